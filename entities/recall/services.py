"""Recall writes: episodes of past work, and a finding logged through ``fact_store``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import transaction

from kgsite.errors import InvalidInput
from kgsite.models import audit
from kgsite.text import shows_nothing
from kgsite.vectors.service import vector_changed

from .. import services as entity_services
from ..models import Entity, Fact
from ..scopes import key_clean, scope_clean, scope_owns
from . import findings, selectors
from .models import Episode

MAX_NARRATIVE = 20_000


def _episode_indexed(episode_id: int) -> None:
    vector_changed("episodes", [episode_id])


@transaction.atomic
def episode_store(
    *,
    narrative: str,
    scope: str = "",
    session_id: str = "",
    ai_id: str = "",
    entities: Iterable[Entity] = (),
    facts: Iterable[Fact] = (),
    actor=None,
) -> Episode:
    """Record what an agent did in a session; it is embedded after commit for recall."""
    # Longer than a trigger's text (MAX_TEXT): a narrative may run to MAX_NARRATIVE.
    if not isinstance(narrative, str) or shows_nothing(narrative):
        raise InvalidInput("narrative must not be empty", field="narrative")
    narrative = narrative.strip()
    if len(narrative) > MAX_NARRATIVE:
        raise InvalidInput(
            f"narrative is longer than {MAX_NARRATIVE} characters", field="narrative"
        )
    episode = Episode.objects.create(
        narrative=narrative,
        scope=scope_clean(scope),
        session_id=key_clean(session_id, field="session_id"),
        ai_id=key_clean(ai_id, field="ai_id"),
    )
    episode.entities.set(list(entities))
    episode.facts.set(list(facts))
    if actor is not None and getattr(actor, "is_authenticated", False):
        audit(actor=actor, action="episode.create", target=episode, payload={"scope": scope})
    transaction.on_commit(lambda: _episode_indexed(episode.pk))
    return episode


def recall_finding_log(*, text: str, scope: str, kind: str, fields: dict[str, Any], actor):
    """The finding trigger asked to log: ``fact_store`` confirms the existing fact (its
    confidence rises) or stores a new one, by the same duplicate judgement. Only a fact
    of the finding's own scope is confirmed: a restated global fact stays as it was, and
    the project gets its own (``scopes.scope_owns``)."""
    restated, _because = findings.finding_restated(
        text=selectors.text_check(text, "text"), scope=scope, kind=kind
    )
    if restated is not None and not scope_owns(restated.scope, scope):
        restated = None
    return entity_services.fact_store(
        text=text, scope=scope, kind=kind, restates=restated, actor=actor, **fields
    )


def finding_fields_check(*, kind: str, resolved_by: str = "", domain: str = "") -> None:
    """A field the finding's kind cannot carry is refused with or without log, as a
    logged one is (a resolution on a plain fact, a domain on a decision)."""
    if resolved_by and kind != Fact.Kind.RESOLVED_UNKNOWN:
        raise InvalidInput("only a resolved unknown has resolved_by", field="resolved_by")
    if domain and kind != Fact.Kind.PATTERN:
        raise InvalidInput("only a pattern has a domain", field="domain")
