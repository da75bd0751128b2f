"""Duplicate suggestions: store, scan, dismiss."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_noop

from kgsite.errors import Conflict
from kgsite.models import audit

from ..duplicates import MIN_SCORE as DUPLICATE_MIN_SCORE
from ..duplicates import Candidates, duplicate_candidates, pair_key
from ..models import (
    DuplicateScan,
    DuplicateSuggestion,
    Entity,
)
from .bulk import BULK_BATCH
from .lifecycle import _chunks


@transaction.atomic
def duplicate_dismiss(*, suggestion: DuplicateSuggestion, actor) -> DuplicateSuggestion:
    """The two entities are different: the pair never comes back (``pair_key`` stays)."""
    suggestion = DuplicateSuggestion.objects.select_for_update().get(pk=suggestion.pk)
    if suggestion.status == DuplicateSuggestion.Status.MERGED:
        raise Conflict(
            gettext_noop("suggestion %(id)s was already merged"),
            params={"id": suggestion.pk},
            field="id",
        )
    if suggestion.status == DuplicateSuggestion.Status.DISMISSED:
        return suggestion
    suggestion.status = DuplicateSuggestion.Status.DISMISSED
    suggestion.decided_by = actor if getattr(actor, "is_authenticated", False) else None
    suggestion.decided_at = timezone.now()
    suggestion.save(update_fields=["status", "decided_by", "decided_at", "updated_at"])
    audit(
        actor=actor,
        action="duplicate.dismiss",
        target=suggestion,
        payload={"pair": suggestion.pair_key, "score": suggestion.score},
    )
    return suggestion


# --- Duplicate suggestions --------------------------------------------------------------


@transaction.atomic
def duplicate_suggestions_store(
    *, candidates: Candidates, entity_ids: Iterable[str] | None = None
) -> dict[str, int]:
    """Write a scan's pairs: new ones pending, pending ones refreshed; a dismissed or
    merged pair is never reopened. Pending pairs the scan covered but no longer finds
    (an alias was removed, a name changed) are withdrawn."""
    focus = set(entity_ids) if entity_ids is not None else None
    scored = {
        pair_key(pair): (pair, candidates.score(pair), items)
        for pair, items in candidates.evidence.items()
    }
    scored = {k: v for k, v in scored.items() if v[1] >= DUPLICATE_MIN_SCORE}
    existing: dict[str, DuplicateSuggestion] = {}
    keys = sorted(scored)
    for chunk in _chunks(keys):
        existing.update(DuplicateSuggestion.objects.in_bulk(chunk, field_name="pair_key"))
    stats = {"found": len(scored), "created": 0, "updated": 0, "kept_decided": 0, "withdrawn": 0}
    new, changed = [], []
    for key, (pair, score, items) in scored.items():
        row = existing.get(key)
        if row is None:
            new.append(
                DuplicateSuggestion(
                    pair_key=key,
                    entity_a_id=pair[0],
                    entity_b_id=pair[1],
                    score=score,
                    evidence=items,
                )
            )
        elif row.status != DuplicateSuggestion.Status.PENDING:
            stats["kept_decided"] += 1
        elif row.score != score or row.evidence != items:
            row.score, row.evidence = score, items
            changed.append(row)
    DuplicateSuggestion.objects.bulk_create(new, batch_size=BULK_BATCH, ignore_conflicts=True)
    DuplicateSuggestion.objects.bulk_update(changed, ["score", "evidence"], batch_size=BULK_BATCH)
    stats["created"], stats["updated"] = len(new), len(changed)
    # A pair whose entity was merged away keeps its row: undoing that merge restores it.
    pending = DuplicateSuggestion.objects.filter(
        status=DuplicateSuggestion.Status.PENDING,
        entity_a__isnull=False,
        entity_b__isnull=False,
    )
    covered: set[str] = set()
    if focus is None:
        covered = set(pending.values_list("pair_key", flat=True))
    else:
        for chunk in _chunks(sorted(focus)):
            covered |= set(
                pending.filter(Q(entity_a_id__in=chunk) | Q(entity_b_id__in=chunk)).values_list(
                    "pair_key", flat=True
                )
            )
    for chunk in _chunks(sorted(covered - set(keys))):
        stats["withdrawn"] += pending.filter(pair_key__in=chunk).delete()[0]
    return stats


def duplicate_scan_request(
    *, entity_ids: Iterable[str] | None = None
) -> tuple[DuplicateScan, bool]:
    """Ask for a scan; joins the scan already queued and not started, if any (saves in a
    burst, such as a book's ingestion, become one job). Returns (scan, newly queued)."""
    ids = sorted(set(entity_ids)) if entity_ids is not None else None
    with transaction.atomic():
        queued = (
            DuplicateScan.objects.select_for_update()
            .filter(status=DuplicateScan.Status.QUEUED)
            .order_by("pk")
            .first()
        )
        if queued is not None:
            if ids is None or queued.entity_ids is None:
                queued.entity_ids = None
            else:
                queued.entity_ids = sorted(set(queued.entity_ids) | set(ids))
            queued.save(update_fields=["entity_ids", "updated_at"])
            return queued, False
        return DuplicateScan.objects.create(entity_ids=ids), True


def duplicate_scan_run(*, scan_id: int) -> DuplicateScan:
    """The job's work: find candidate pairs (outside any transaction: it reads for a
    while) and store them; progress and outcome go on the scan row."""
    with transaction.atomic():
        scan = DuplicateScan.objects.select_for_update().get(pk=scan_id)
        if scan.status in (DuplicateScan.Status.RUNNING, DuplicateScan.Status.DONE):
            return scan  # a retried job: idempotent
        scan.status, scan.started_at = DuplicateScan.Status.RUNNING, timezone.now()
        scan.total = len(scan.entity_ids) if scan.entity_ids is not None else Entity.objects.count()
        scan.save(update_fields=["status", "started_at", "total", "updated_at"])

    def progress(done: int) -> None:
        DuplicateScan.objects.filter(pk=scan_id).update(done=done)

    try:
        candidates = duplicate_candidates(entity_ids=scan.entity_ids, progress=progress)
        result = duplicate_suggestions_store(candidates=candidates, entity_ids=scan.entity_ids)
    except Exception as exc:
        DuplicateScan.objects.filter(pk=scan_id).update(
            status=DuplicateScan.Status.FAILED, error=str(exc)[:2000], finished_at=timezone.now()
        )
        raise
    result["embedding_checked"] = candidates.embedding_checked
    DuplicateScan.objects.filter(pk=scan_id).update(
        status=DuplicateScan.Status.DONE,
        done=scan.total,
        result=result,
        finished_at=timezone.now(),
    )
    scan.refresh_from_db()
    return scan
