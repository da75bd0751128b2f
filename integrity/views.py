"""The contradiction inbox: open contradictions by urgency, the two facts side by side
with what differs highlighted, resolve (keep first / keep second / both true / drop
both) and undo, with keyboard shortcuts (``static/kgsite.js``)."""

from __future__ import annotations

import difflib
import re

from django.core.paginator import Paginator
from django.db.models import Q
from django.http import HttpRequest
from django.shortcuts import render
from django.urls import reverse
from django.utils.text import Truncator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from entities import hooks
from entities.scopes import page_scopes
from kgsite.converters import parse_id
from kgsite.errors import DomainError
from kgsite.models import AuditEntry
from kgsite.pages import (
    Panel,
    UndoAction,
    audit_target_ids,
    checked_get,
    curator_required,
    is_curator,
    render_page,
    state_seen,
)
from kgsite.text import has_control_chars
from notifications.models import Notification
from notifications.views import EVENT

from . import resolution, selectors, services
from .models import Contradiction

INBOX_PAGE_SIZE = 20
EVIDENCE_ENTITIES = 2
RESOLVE_ACTION = "contradiction.resolve"
_TOKEN = re.compile(r"\w+|[^\w\s]+|\s+")


# The diff between the two facts' middles (after their common beginning and end) runs
# only while both have at most this many tokens: SequenceMatcher is quadratic in the
# worst case, and a reader may store a fact of 10,000 repeated characters (issue 27).
# Past it, the whole middle of each side is marked as differing.
MAX_DIFF_TOKENS = 400


def differing_words(first: str, second: str) -> tuple[list[dict], list[dict]]:
    """Both texts as runs of {"text", "diff"}: ``diff`` marks the words one text has and
    the other does not (the conflicting values: a date, a number, a name, a "not").

    Linear in the texts' length: the common first and last tokens are matched by a
    scan, and only a middle of at most ``MAX_DIFF_TOKENS`` tokens on each side is diffed.
    """
    a, b = _TOKEN.findall(first), _TOKEN.findall(second)
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    mid_a, mid_b = a[head : len(a) - tail], b[head : len(b) - tail]
    if max(len(mid_a), len(mid_b)) <= MAX_DIFF_TOKENS:
        matcher = difflib.SequenceMatcher(a=mid_a, b=mid_b, autojunk=False)
        middle = matcher.get_opcodes()
    else:
        middle = [("replace", 0, len(mid_a), 0, len(mid_b))]
    runs_a: list[dict] = []
    runs_b: list[dict] = []

    def add(runs: list[dict], tokens: list[str], changed: bool) -> None:
        if tokens:
            runs.append({"text": "".join(tokens), "diff": changed})

    add(runs_a, a[:head], False)
    add(runs_b, b[:head], False)
    for op, i1, i2, j1, j2 in middle:
        add(runs_a, mid_a[i1:i2], op != "equal")
        add(runs_b, mid_b[j1:j2], op != "equal")
    add(runs_a, a[len(a) - tail :], False)
    add(runs_b, b[len(b) - tail :], False)
    return _merged(runs_a), _merged(runs_b)


def _merged(runs: list[dict]) -> list[dict]:
    """Adjacent runs with the same mark as one (the prefix and the middle's first
    equal run, say)."""
    out: list[dict] = []
    for run in runs:
        if out and out[-1]["diff"] == run["diff"]:
            out[-1] = {"text": out[-1]["text"] + run["text"], "diff": run["diff"]}
        else:
            out.append(run)
    return out


def urgency(contradiction: Contradiction) -> str:
    return services.contradiction_urgency(contradiction.confidence)


def _fact_side(fact) -> dict:
    """A fact's entities (with links) and where books speak of them: the first
    mention of each entity, defining places first (``hooks.entity_mentions_read``)."""
    links = sorted(fact.entity_facts.all(), key=lambda link: (link.role, link.entity_id))
    entities = [link.entity for link in links]
    evidence = []
    for entity in entities[:EVIDENCE_ENTITIES]:
        for group in hooks.entity_mentions_read(entity.pk)[:1]:
            for mention in group["mentions"][:1]:
                evidence.append({"entity": entity, "title": group["title"], **mention})
    return {"entities": entities, "evidence": evidence}


def _card(
    contradiction: Contradiction, *, error: str = "", note: str = "", can_write: bool = True
) -> dict:
    runs_a, runs_b = differing_words(contradiction.fact_a.text, contradiction.fact_b.text)
    return {
        "c": contradiction,
        "urgency": urgency(contradiction),
        "runs_a": runs_a,
        "runs_b": runs_b,
        "side_a": _fact_side(contradiction.fact_a),
        "side_b": _fact_side(contradiction.fact_b),
        "error": error,
        "note": note if error else contradiction.note,
        "resolutions": Contradiction.Resolution,
        "can_write": can_write,  # readers see the pair, not the buttons they may not use
        # The decision this card shows: its Undo undoes that one and no later one.
        "decision": _latest_resolution(contradiction.pk)
        if contradiction.status == Contradiction.Status.RESOLVED
        else None,
        "seen": pair_seen(contradiction),
        "max_note": resolution.MAX_NOTE,
    }


PAIR_SHOWN = ("text",)


def pair_seen(contradiction: Contradiction) -> str:
    """The two texts the card was drawn with, posted back with a resolution: a fact
    edited since is noticed before a decision is made on words nobody saw."""
    return state_seen(contradiction.fact_a, PAIR_SHOWN) + state_seen(
        contradiction.fact_b, PAIR_SHOWN
    )


def _with_entities(qs):
    return qs.prefetch_related("fact_a__entity_facts__entity", "fact_b__entity_facts__entity")


@require_GET
@curator_required
def inbox(request):
    """Open contradictions, most urgent (most confident) first, oldest first within."""
    open_ones = _with_entities(
        selectors.contradiction_list(
            status=Contradiction.Status.OPEN, scopes=page_scopes(request.user)
        ).order_by("-confidence", "created_at", "id")
    )
    # "next" continues after the last card shown, not at page n + 1: cards are resolved
    # in place, so the open list moves up under the page and a page number skips.
    after = parse_id(request.GET.get("after", ""))
    anchor = (
        Contradiction.objects.filter(pk=after).values("confidence", "created_at", "id").first()
        if after is not None
        else None
    )
    rest = open_ones.filter(_after(anchor)) if anchor else open_ones
    page = Paginator(rest, INBOX_PAGE_SIZE).get_page(1 if anchor else request.GET.get("page"))
    cards = [_card(c, can_write=is_curator(request.user)) for c in page.object_list]
    return render_page(
        request,
        "integrity/inbox.html",
        {
            "page": page,
            "cards": cards,
            "open_count": open_ones.count() if anchor else page.paginator.count,
            "continued": anchor is not None or page.number > 1,
            "next_after": page.object_list[len(cards) - 1].pk if page.has_next() else None,
        },
    )


def _after(anchor: dict) -> Q:
    """What comes after ``anchor`` in the inbox's order (most confident, then oldest)."""
    same = {"confidence": anchor["confidence"]}
    return (
        Q(confidence__lt=anchor["confidence"])
        | Q(**same, created_at__gt=anchor["created_at"])
        | Q(**same, created_at=anchor["created_at"], id__gt=anchor["id"])
    )


@require_GET
@curator_required
def detail(request, contradiction_id: int):
    contradiction, can_write = checked_get(
        request,
        _with_entities(selectors.contradiction_list(scopes=page_scopes(request.user))),
        contradiction_id,
    )
    card = _card(contradiction, can_write=can_write)
    return render_page(request, "integrity/detail.html", {"card": card})


@require_GET
@curator_required
def open_count(request):
    """The inbox's count of open contradictions, polled while the inbox is open."""
    count = selectors.contradiction_list(
        status=Contradiction.Status.OPEN, scopes=page_scopes(request.user)
    ).count()
    return render(request, "integrity/_count.html", {"open_count": count})


def _card_response(request, contradiction, *, error="", note="", status=200):
    response = render_page(
        request,
        "integrity/detail.html",
        {"card": _card(contradiction, error=error, note=note)},
        partial="integrity/_card.html",
        status=status,
    )
    if not error:
        response["HX-Trigger"] = EVENT  # the bell's count changed
    return response


@require_POST
@curator_required
def resolve(request, contradiction_id: int):
    contradiction, _w = checked_get(
        request, selectors.contradiction_list(), contradiction_id, write=True
    )
    note = request.POST.get("note", "")
    shown = request.POST.get("seen")
    if (
        shown is not None
        and contradiction.status == Contradiction.Status.OPEN
        and shown != pair_seen(contradiction)
    ):
        error = _(
            "One of these facts was edited since your page showed it; the pair is shown as "
            "it is now. Decide again on what it says."
        )
        return _card_response(request, contradiction, error=error, note=note, status=409)
    try:
        contradiction = resolution.contradiction_resolve(
            contradiction=contradiction,
            resolution=request.POST.get("resolution", ""),
            note=note,
            actor=request.user,
        )
    except DomainError as exc:
        contradiction = selectors.contradiction_get(contradiction_id=contradiction.pk)
        if exc.code == "already_resolved" and _as_asked(contradiction, request.POST, note):
            # A double click (or the key pressed twice): the second request found the
            # decision the first one made, which is what the curator asked for.
            return _card_response(request, contradiction)
        error = refusal(exc, contradiction, note=note)
        return _card_response(request, contradiction, error=error, note=note, status=400)
    return _card_response(request, selectors.contradiction_get(contradiction_id=contradiction.pk))


def _undone_since(contradiction: Contradiction, decision: int) -> bool:
    """Whether the decision a card showed has been undone (and nothing decided since)."""
    return AuditEntry.objects.filter(
        action="contradiction.undo",
        target_type=Contradiction._meta.label_lower,
        target_id=str(contradiction.pk),
        pk__gt=decision,
    ).exists()


def _as_asked(contradiction: Contradiction, posted, note: str) -> bool:
    """Whether the contradiction is resolved as this request asks (the note too)."""
    asked = posted.get("resolution", "")
    if asked != contradiction.resolution:
        return False
    return asked != Contradiction.Resolution.BOTH_TRUE or note.strip() == contradiction.note


@require_POST
@curator_required
def undo(request, contradiction_id: int):
    contradiction, _w = checked_get(
        request, selectors.contradiction_list(), contradiction_id, write=True
    )
    shown = parse_id(request.POST.get("decision", ""))
    if shown is not None and shown != _latest_resolution(contradiction.pk):
        # A card drawn before another curator undid and decided again: its Undo would
        # reopen a decision the curator never saw.
        error = _(
            "This contradiction was decided again since your page showed it; it is shown "
            "as it is now. Undo that decision only if you mean to."
        )
        return _card_response(request, contradiction, error=error, status=409)
    try:
        resolution.contradiction_undo(contradiction=contradiction, actor=request.user)
    except DomainError as exc:
        if exc.code == "not_resolved" and shown is not None and _undone_since(contradiction, shown):
            return _card_response(request, contradiction)  # a double click: undone already
        error = refusal(exc, contradiction)
        return _card_response(request, contradiction, error=error, status=409)
    return _card_response(request, selectors.contradiction_get(contradiction_id=contradiction.pk))


def refusal(exc: DomainError, contradiction: Contradiction, *, note: str = "") -> str:
    """A resolution's or an undo's refusal in the page's language, in the service's words
    (which the API answers in English)."""
    fact = next(
        (f for f in (contradiction.fact_a, contradiction.fact_b) if f.pk == exc.fact_id),
        contradiction.fact_a,
    )
    if exc.code == "kept_inactive":
        return _(
            "fact %(id)s is %(status)s already, so it cannot be kept; undo what ended it, "
            "or choose another resolution"
        ) % {"id": fact.pk, "status": _(fact.get_status_display()).lower()}
    if exc.code == "already_resolved":
        return _("contradiction %(id)s is already resolved (%(resolution)s); undo it first") % {
            "id": contradiction.pk,
            "resolution": RESOLUTION_LABELS.get(contradiction.resolution, ""),
        }
    if exc.code == "not_resolved":
        return _("contradiction %(id)s is not resolved; nothing to undo") % {"id": contradiction.pk}
    if exc.code == "changed_since":
        return _("fact %(id)s changed since this resolution; restore it by hand") % {"id": fact.pk}
    if exc.code == "no_history":
        return _("no record of how this was resolved")
    if exc.field == "resolution":
        choices = ", ".join(Contradiction.Resolution.values)
        return _("resolution must be one of %(choices)s") % {"choices": choices}
    if exc.field == "note":
        if isinstance(note, str) and has_control_chars(note):
            return _("note must be text without control characters")
        if isinstance(note, str) and len(note.strip()) > resolution.MAX_NOTE:
            return _("The note is longer than %(n)s characters.") % {"n": resolution.MAX_NOTE}
        return _("say in a note why both facts are true")
    return exc.translated


# --- what integrity adds to other pages -------------------------------------------------


def home_panel_context(request: HttpRequest) -> dict:
    open_ones = selectors.contradiction_list(
        status=Contradiction.Status.OPEN, scopes=page_scopes(request.user)
    )
    return {
        "open_count": open_ones.count(),
        "top": list(open_ones.order_by("-confidence", "created_at")[:5]),
    }


HOME_PANEL = Panel(
    name="integrity",
    template="integrity/panel_home.html",
    context=home_panel_context,
    order=20,
)


RESOLUTION_LABELS = {
    Contradiction.Resolution.KEEP_FIRST: gettext_lazy("Keep first"),
    Contradiction.Resolution.KEEP_SECOND: gettext_lazy("Keep second"),
    Contradiction.Resolution.BOTH_TRUE: gettext_lazy("Both true"),
    Contradiction.Resolution.DROP_BOTH: gettext_lazy("Drop both"),
}
FACT_NOTES = 20


def fact_contradictions(fact_id: int, *, scopes) -> list[dict[str, str]]:
    """The contradictions a fact is part of, for its page: the other fact and how each
    was decided, linked to its card (where it is undone). A fact a resolution
    superseded says why; its own history holds only its edits."""
    found = selectors.contradiction_list(fact=fact_id, scopes=scopes)[:FACT_NOTES]
    notes = []
    for c in found:
        other = c.fact_b if c.fact_a_id == fact_id else c.fact_a
        state = RESOLUTION_LABELS.get(c.resolution) or _("still open")
        label = _("Contradicts “%(other)s”: %(state)s") % {
            "other": Truncator(other.text).chars(90),
            "state": state,
        }
        notes.append({"label": label, "url": reverse("integrity:detail", args=[c.pk])})
    return notes


def contradiction_page(notification: Notification) -> str:
    """Where the bell sends a curator for a contradiction notification."""
    return reverse("integrity:detail", args=[int(notification.payload["contradiction"])])


def _pair(notification: Notification) -> dict[str, str]:
    payload = notification.payload
    return {
        "a": services.quoted(payload["fact_a"]["text"]),
        "b": services.quoted(payload["fact_b"]["text"]),
    }


def contradiction_title(notification: Notification) -> str:
    """A contradiction notice (or a pair to check) in the page's language."""
    if notification.payload.get("verdict") == "uncertain":
        return _("Possibly conflicting, please check: %(a)s and %(b)s") % _pair(notification)
    return _("Contradiction: %(a)s vs %(b)s") % _pair(notification)


def duplicate_title(notification: Notification) -> str:
    return _("Possible duplicate: %(a)s and %(b)s") % _pair(notification)


def check_queue_title(notification: Notification) -> str:
    """The notice of checks that could not be queued (a job_failed notice of ours)."""
    if notification.payload.get("task") != "fact_check":
        return ""
    return _("Contradiction checks could not be queued; they will run later")


def _latest_resolution(contradiction_id: int | str) -> int | None:
    """The audit row of a contradiction's latest resolution."""
    return (
        AuditEntry.objects.filter(
            action=RESOLVE_ACTION,
            target_type=Contradiction._meta.label_lower,
            target_id=str(contradiction_id),
        )
        .order_by("-id")
        .values_list("pk", flat=True)
        .first()
    )


def _resolution_undoable(entry: AuditEntry) -> bool:
    """The latest resolution of a contradiction that is still resolved."""
    return (
        entry.target_type == Contradiction._meta.label_lower
        and _latest_resolution(entry.target_id) == entry.pk
        and Contradiction.objects.filter(
            pk=entry.target_id, status=Contradiction.Status.RESOLVED
        ).exists()
    )


def _resolution_undo(entry: AuditEntry, actor) -> None:
    contradiction = selectors.contradiction_get(contradiction_id=int(entry.target_id))
    resolution.contradiction_undo(contradiction=contradiction, actor=actor)


AUDIT_LABELS = {
    "contradiction.resolve": gettext_lazy("resolved the contradiction"),
    "contradiction.undo": gettext_lazy("reopened the contradiction"),
}


def describe_contradictions(entries: list[AuditEntry]) -> dict[int, tuple[str, str]]:
    ids = audit_target_ids(entries)
    found = Contradiction.objects.select_related("fact_a", "fact_b").in_bulk(ids)
    out = {}
    for entry in entries:
        c = found.get(parse_id(entry.target_id))
        if c is not None:
            name = f"{Truncator(c.fact_a.text).chars(50)} / {Truncator(c.fact_b.text).chars(50)}"
            out[entry.pk] = (name, reverse("integrity:detail", args=[c.pk]))
    return out


def hidden_contradictions(entries: list[AuditEntry], reader) -> set[int]:
    """Rows about a contradiction whose facts the reader does not see (a project's)."""
    scopes = page_scopes(reader)
    if scopes.all_scopes:
        return set()
    ids = audit_target_ids(entries)
    seen = set(
        selectors.contradiction_list(scopes=scopes).filter(pk__in=ids).values_list("pk", flat=True)
    )
    return {e.pk for e in entries if parse_id(e.target_id) not in seen}


RESOLUTION_UNDO = UndoAction(
    action=RESOLVE_ACTION, undo=_resolution_undo, available=_resolution_undoable
)
