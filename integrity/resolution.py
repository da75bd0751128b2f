"""Curator resolutions of contradictions, and their undo.

A resolution keeps the first fact, keeps the second, says both are true (with a note),
or drops both; the facts it ends stay in history (superseded or retracted). Pair order
as everywhere: fact A is the older fact, fact B the newer.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from entities.models import Fact
from entities.services import fact_status_set
from kgsite.errors import Conflict, InvalidInput
from kgsite.models import AuditEntry, audit
from kgsite.text import has_control_chars, shows_nothing
from notifications.services import notification_mark_read_by_key, notification_mark_unread_by_key

from .models import Contradiction

_AUDIT_RESOLVE = "contradiction.resolve"
_AUDIT_UNDO = "contradiction.undo"
MAX_NOTE = 5000


def _losers(contradiction: Contradiction, resolution: str) -> tuple[list[Fact], str]:
    """The facts a resolution ends and their new status; the fact it keeps must be active."""
    R, a, b = Contradiction.Resolution, contradiction.fact_a, contradiction.fact_b
    kept, losers, status = {
        R.KEEP_FIRST: (a, [b], Fact.Status.SUPERSEDED),
        R.KEEP_SECOND: (b, [a], Fact.Status.SUPERSEDED),
        R.DROP_BOTH: (None, [a, b], Fact.Status.RETRACTED),
    }.get(resolution, (None, [], ""))
    if kept is not None and kept.status != Fact.Status.ACTIVE:
        raise Conflict(
            f"fact {kept.pk} is {kept.status} already, so it cannot be kept; undo what "
            "ended it, or choose another resolution",
            field="resolution",
            code="kept_inactive",
            fact_id=kept.pk,
        )
    return losers, status


def _fact_state(fact: Fact) -> dict:
    return {
        "status": fact.status,
        "valid_to": fact.valid_to.isoformat() if fact.valid_to else None,
    }


def _locked(contradiction: Contradiction) -> Contradiction:
    return (
        Contradiction.objects.select_for_update()
        .select_related("fact_a", "fact_b")
        .get(pk=contradiction.pk)
    )


@transaction.atomic
def contradiction_resolve(
    *, contradiction: Contradiction, resolution: object, note: object = "", actor
) -> Contradiction:
    """Settle a contradiction: keep the first, keep the second, both true, or drop both.

    The losing fact becomes superseded (retracted for "drop both") with ``valid_to``
    set to now unless it already ended earlier; it stays in history. A fact ended
    meanwhile keeps its status. "Both true" needs a note saying why and changes no
    fact. The audit row keeps the facts' previous state so the resolution can be undone.
    """
    if not isinstance(resolution, str) or resolution not in Contradiction.Resolution.values:
        choices = ", ".join(Contradiction.Resolution.values)
        raise InvalidInput(f"resolution must be one of {choices}", field="resolution")
    note = "" if note is None else note
    if not isinstance(note, str) or has_control_chars(note):
        raise InvalidInput("note must be text without control characters", field="note")
    note = note.strip()
    if len(note) > MAX_NOTE:  # as the API's field allows: a note, not a document
        raise InvalidInput(f"note is longer than {MAX_NOTE} characters", field="note")
    # A note of zero-width spaces or bidi marks (pasted) shows nothing: it says no why.
    if resolution == Contradiction.Resolution.BOTH_TRUE and shows_nothing(note):
        raise InvalidInput("say in a note why both facts are true", field="note")
    contradiction = _locked(contradiction)
    if contradiction.status == Contradiction.Status.RESOLVED:
        raise Conflict(
            f"contradiction {contradiction.pk} is already resolved "
            f"({contradiction.resolution}); undo it first",
            field="resolution",
            code="already_resolved",
        )
    now = timezone.now()
    losers, new_status = _losers(contradiction, resolution)
    before, after = {}, {}
    ids = [fact.pk for fact in losers]  # one ended meanwhile (retracted, edited) stays so
    for fact in Fact.objects.select_for_update().filter(pk__in=ids, status="active").order_by("pk"):
        before[str(fact.pk)] = _fact_state(fact)
        valid_to = now if fact.valid_to is None or fact.valid_to > now else fact.valid_to
        fact_status_set(fact=fact, status=new_status, valid_to=valid_to)
        after[str(fact.pk)] = _fact_state(fact)
    contradiction.status = Contradiction.Status.RESOLVED
    contradiction.resolution = resolution
    contradiction.note = note
    contradiction.resolved_by = actor if getattr(actor, "is_authenticated", False) else None
    contradiction.resolved_at = now
    contradiction.save()
    audit(
        actor=actor,
        action=_AUDIT_RESOLVE,
        target=contradiction,
        payload={"resolution": resolution, "note": note, "before": before, "after": after},
    )
    notification_mark_read_by_key(key=f"contradiction:{contradiction.pk}")
    return contradiction


@transaction.atomic
def contradiction_undo(*, contradiction: Contradiction, actor) -> Contradiction:
    """Reopen a resolved contradiction and give both facts back their previous status
    and ``valid_to``. Refused if a fact changed since, so no later decision is lost."""
    contradiction = _locked(contradiction)
    if contradiction.status != Contradiction.Status.RESOLVED:
        raise Conflict(
            f"contradiction {contradiction.pk} is not resolved; nothing to undo",
            field="id",
            code="not_resolved",
        )
    entry = (
        AuditEntry.objects.filter(
            action=_AUDIT_RESOLVE,
            target_type=contradiction._meta.label_lower,
            target_id=str(contradiction.pk),
        )
        .order_by("-id")
        .first()
    )
    if entry is None:  # resolved outside the service (admin, data import)
        raise Conflict("no record of how this was resolved", field="id", code="no_history")
    before = entry.payload.get("before", {})
    after = entry.payload.get("after", {})
    facts = {str(f.pk): f for f in Fact.objects.select_for_update().filter(pk__in=before)}
    for fact_id, state in after.items():
        fact = facts.get(fact_id)
        if fact is not None and _fact_state(fact) != state:
            raise Conflict(
                f"fact {fact_id} changed since this resolution; restore it by hand",
                field="id",
                code="changed_since",
                fact_id=int(fact_id),
            )
    for fact_id, state in before.items():
        fact = facts.get(fact_id)
        if fact is None:
            continue
        valid_to = parse_datetime(state["valid_to"]) if state["valid_to"] else None
        fact_status_set(fact=fact, status=state["status"], valid_to=valid_to)
    undone = {
        "resolution": contradiction.resolution,
        "note": contradiction.note,
        "resolved_by": contradiction.resolved_by_id,
        "resolved_at": contradiction.resolved_at.isoformat() if contradiction.resolved_at else None,
        "restored": before,
    }
    contradiction.status = Contradiction.Status.OPEN
    contradiction.resolution = ""
    contradiction.note = ""
    contradiction.resolved_by = None
    contradiction.resolved_at = None
    contradiction.save()
    audit(actor=actor, action=_AUDIT_UNDO, target=contradiction, payload=undone)
    # Open again, so it is news again: curators see it among the unread.
    notification_mark_unread_by_key(key=f"contradiction:{contradiction.pk}")
    return contradiction
