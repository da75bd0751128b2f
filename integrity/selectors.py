"""Read-side queries for integrity: contradictions, and classifying a pair on demand."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from entities.scopes import ScopeFilter
from kgsite.converters import MAX_ID, parse_id
from kgsite.errors import InvalidInput, NotFound
from kgsite.text import has_control_chars, shows_nothing

from .detection.classifier import Verdict
from .detection.tokens import LANGS
from .models import Contradiction
from .services import classify
from .signals import pair_similarity

MAX_PAIR_TEXT = 10_000


def _in_view(qs: QuerySet[Contradiction], scopes: ScopeFilter | None) -> QuerySet[Contradiction]:
    """Contradictions both of whose facts the reader may see (None: every one)."""
    if scopes is None:
        return qs
    return qs.filter(scopes.q("fact_a__"), scopes.q("fact_b__"))


def contradiction_get(*, contradiction_id: int, scopes: ScopeFilter | None = None) -> Contradiction:
    """One contradiction; with ``scopes``, one about a fact outside the view is a 404."""
    qs = Contradiction.objects.select_related("fact_a", "fact_b", "resolved_by")
    try:
        return _in_view(qs, scopes).get(pk=contradiction_id)
    except Contradiction.DoesNotExist:
        raise NotFound(f"no contradiction with id {contradiction_id}", field="id") from None


def _choice(value: str, choices: list[str], field: str) -> str:
    if value not in choices:
        raise InvalidInput(f"{field} must be one of {', '.join(choices)}", field=field)
    return value


def contradiction_list(
    *,
    status: str | None = None,
    kind: str | None = None,
    fact: int | str | None = None,
    scopes: ScopeFilter | None = None,
) -> QuerySet[Contradiction]:
    """Newest first; open ones are what curators work through."""
    qs = _in_view(Contradiction.objects.select_related("fact_a", "fact_b", "resolved_by"), scopes)
    if status:
        qs = qs.filter(status=_choice(status, Contradiction.Status.values, "status"))
    if kind:
        qs = qs.filter(kind=_choice(kind, Contradiction.Kind.values, "kind"))
    if fact not in (None, ""):
        # ASCII digits only: int() also reads "1_0", " 1" and full-width digits.
        fact_id = parse_id(fact) if isinstance(fact, str) else fact
        if not isinstance(fact_id, int) or isinstance(fact_id, bool):
            raise InvalidInput("fact must be a fact id", field="fact")
        if not 0 <= fact_id <= MAX_ID:
            raise InvalidInput("fact is out of range", field="fact")
        qs = qs.filter(Q(fact_a_id=fact_id) | Q(fact_b_id=fact_id))
    return qs.order_by("-created_at", "-id")


def _pair_text(value: object, field: str) -> str:
    if not isinstance(value, str) or shows_nothing(value):
        raise InvalidInput(f"{field} must not be empty", field=field)
    if has_control_chars(value):
        raise InvalidInput(f"{field} contains control characters", field=field)
    if len(value) > MAX_PAIR_TEXT:
        raise InvalidInput(f"{field} is longer than {MAX_PAIR_TEXT} characters", field=field)
    return value.strip()


def pair_classify(*, existing: object, new: object, lang: str | None = None) -> Verdict:
    """Classify one pair without storing anything (the check endpoint)."""
    existing_text = _pair_text(existing, "existing")
    new_text = _pair_text(new, "new")
    if lang:
        _choice(lang, list(LANGS), "lang")
    return classify(
        existing=existing_text,
        new=new_text,
        lang=lang or None,
        similarity=pair_similarity(existing_text, new_text),
    )
