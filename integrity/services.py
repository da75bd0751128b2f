"""Integrity services: near-duplicate catching and the background contradiction check
(curator resolutions and their undo: ``integrity.resolution``).

Pair order is fixed everywhere: fact A is the older fact (smaller id, "the existing
one", "the first"), fact B the newer ("the second").
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q

from entities.models import EntityFact, Fact
from entities.search.kinds import similar_facts
from entities.services import NamedEntities, facts_name_alike
from notifications.models import Notification
from notifications.services import (
    notification_create,
    notification_mark_read_by_key,
)

from .detection.classifier import (
    Mentions,
    Thresholds,
    Verdict,
    classify_pair,
    mentions_remembered,
    obvious_duplicate,
)
from .llm_judge import judge_pair
from .models import Contradiction, PendingFactCheck
from .signals import entity_mentions, pair_encoder

logger = logging.getLogger(__name__)

Judge = Callable[[str, str], "Verdict | None"]


# --- Adapters to the classifier, the vector index and the LLM judge ------------------


def classifier_thresholds() -> Thresholds:
    """The classifier's cut-offs as the KGSITE_* settings have them now."""
    return Thresholds(
        judge_below=settings.KGSITE_JUDGE_BELOW,
        duplicate_similarity=settings.KGSITE_DUPLICATE_SIMILARITY,
        unrelated_similarity=settings.KGSITE_UNRELATED_SIMILARITY,
    )


def classify(
    *,
    existing: str,
    new: str,
    lang: str | None = None,
    similarity: float | None = None,
    use_judge: bool = True,
    mentions: Mentions | None = None,
) -> Verdict:
    """The pair model behind the duplicate guard, with the LLM judge where it is on.
    ``mentions``: the entity table's reader (``entity_mentions`` unless given, e.g.
    remembered for one check's pairs)."""
    judge = judge_or_none() if use_judge else None
    return classify_pair(
        existing,
        new,
        lang=lang,
        similarity=similarity,
        judge=judge,
        thresholds=classifier_thresholds(),
        mentions=mentions or entity_mentions,
        encoder=pair_encoder(),
    )


def judge_or_none() -> Judge | None:
    return judge_pair if settings.KGSITE_LLM_JUDGE else None


def similar(text: str, *, k: int, min_score: float) -> list[tuple[int, float]]:
    """Level 1: nearest facts from the vector index; empty when there is no index."""
    try:
        return list(similar_facts(text, k=k, min_score=min_score))
    except Exception:  # an unusable index must never stop a fact from being saved
        logger.warning("vector search failed; falling back to entity links", exc_info=True)
        return []


# --- Synchronous near-duplicate finder (an entities.hooks.duplicate_finder) ----------


def fact_find_near_duplicate(
    text: str,
    text_norm: str,
    *,
    scope: str = "",
    kind: str = Fact.Kind.FACT,
    named: NamedEntities | None = None,
) -> Fact | None:
    """An active fact that plainly says the same thing, so fact_store confirms it.

    Conservative on purpose, because a confirmed fact is not stored: an index
    neighbour at or above ``KGSITE_DUPLICATE_SIMILARITY`` counts only if the pair model
    calls it a duplicate with the duplicate guard's consent (``obvious_duplicate``: no
    identifier, number, date, time or name of the new statement missing from the old,
    the same negation). Doubtful pairs are stored; the background check may then raise
    a LOW notification. The LLM judge is never consulted here. Only a fact of the same
    project scope and kind, about the same entities, counts.
    """
    threshold = settings.KGSITE_DUPLICATE_SIMILARITY
    hits = similar(text, k=settings.KGSITE_NEAR_DUPLICATE_K, min_score=threshold)
    hits = [(fid, score) for fid, score in hits if score >= threshold]
    if not hits:
        return None
    facts = Fact.objects.filter(
        pk__in=[fid for fid, _ in hits], status=Fact.Status.ACTIVE, scope=scope, kind=kind
    )
    if named:  # facts_name_alike compares each hit's links: read them in one go
        facts = facts.prefetch_related("entity_facts")
    by_id = {f.pk: f for f in facts}
    thresholds = classifier_thresholds()
    mentions = mentions_remembered(entity_mentions)  # the new text, read once for all hits
    for fact_id, score in sorted(hits, key=lambda h: (-h[1], h[0])):
        fact = by_id.get(fact_id)
        if fact is None or not facts_name_alike(fact=fact, named=named):
            continue
        if obvious_duplicate(
            fact.text,
            text,
            similarity=score,
            thresholds=thresholds,
            mentions=mentions,
            encoder=pair_encoder(),
        ):
            return fact
    return None


def pair_restates(existing: str, new: str) -> bool:
    """The pair model's duplicate verdict with the duplicate guard's consent, whatever
    the two texts' cosine (recall's finding trigger found the pair by other means)."""
    verdict = obvious_duplicate(
        existing,
        new,
        similarity=None,
        thresholds=classifier_thresholds(),
        mentions=entity_mentions,
        encoder=pair_encoder(),
    )
    return verdict is not None


# --- Background check ----------------------------------------------------------------


# Pending checks a background check also runs, so a backlog drains in small steps.
PENDING_BATCH = 100
_QUEUE_NOTICE = "fact_check_queue:"


def fact_check_defer(*, fact_id: int, error: object) -> None:
    """Remember a fact whose check could not be queued, and tell curators once per
    outage (one unread job_failed notification). Never raises: it runs after commit."""
    try:
        if not Fact.objects.filter(pk=fact_id).exists():
            return  # deleted before its hook ran: nothing left to check
        with transaction.atomic():
            pending, _created = PendingFactCheck.objects.get_or_create(
                fact_id=fact_id, defaults={"error": str(error)[:2000]}
            )
            notification_create(  # a no-op while the outage's notice is unread
                type=Notification.Type.JOB_FAILED,
                urgency=Notification.Urgency.MEDIUM,
                title="Contradiction checks could not be queued; they will run later",
                payload={
                    "task": "fact_check",
                    "fact": fact_id,
                    "error": str(error)[:500],
                    "retry": "with the next background check, or manage.py check_pending_facts",
                },
                link=f"/api/v1/facts/{fact_id}/",
                key=f"{_QUEUE_NOTICE}{pending.pk}",
                series=_QUEUE_NOTICE,
            )
    except Exception:
        logger.exception("could not record the pending check of fact %s", fact_id)


def fact_checks_pending_run(
    *, limit: int | None = None, failures: list[tuple[int, str]] | None = None
) -> int:
    """Check facts whose check could not be queued; returns how many were checked.

    Each row goes only once its check has run, so a failure leaves it for next time.
    When none is left, the job_failed notification about them is marked read. A caller
    passing ``failures`` gets each failed check's (fact id, error) to report itself.
    """
    done = 0
    rows = PendingFactCheck.objects.order_by("id")
    for row in list(rows[:limit] if limit is not None else rows):
        try:
            fact_check(fact_id=row.fact_id)
        except Exception as exc:
            if failures is None:
                logger.exception("pending check of fact %s failed; kept for later", row.fact_id)
            else:
                failures.append((row.fact_id, f"{type(exc).__name__}: {exc}"))
            continue
        PendingFactCheck.objects.filter(pk=row.pk).delete()
        done += 1
    if not PendingFactCheck.objects.exists():
        notification_mark_read_by_key(key=_QUEUE_NOTICE, prefix=True)
    return done


def fact_check_run(*, fact_id: int) -> dict:
    """The background task's work: check this fact, then a batch of pending ones."""
    result = fact_check(fact_id=fact_id).as_dict()
    if PendingFactCheck.objects.exists():
        result["pending_checked"] = fact_checks_pending_run(limit=PENDING_BATCH)
    return result


def fact_candidates(*, fact: Fact) -> dict[int, float | None]:
    """Other active facts worth classifying against ``fact``: id -> cosine (None if the
    fact came from entity links rather than the index)."""
    found: dict[int, float | None] = {}
    hits = similar(
        fact.text,
        k=settings.KGSITE_CANDIDATE_TOP_N + 1,
        min_score=settings.KGSITE_CANDIDATE_SIMILARITY,
    )
    for fact_id, score in hits:
        if fact_id != fact.pk and score >= settings.KGSITE_CANDIDATE_SIMILARITY:
            found[fact_id] = float(score)

    links = EntityFact.objects.filter(fact=fact)
    subjects = set(links.filter(role=EntityFact.Role.SUBJECT).values_list("entity_id", flat=True))
    if fact.subject_id:
        subjects.add(fact.subject_id)
    exhaustive = settings.KGSITE_CANDIDATE_EXHAUSTIVE
    if subjects:
        # Two indexed lookups rather than one OR across a join, which PostgreSQL answers
        # by scanning every fact.
        as_subject = Fact.objects.filter(subject_id__in=subjects, status=Fact.Status.ACTIVE)
        newest = _newest_ids(
            [
                as_subject.exclude(pk=fact.pk).order_by("-id").values_list("id", flat=True),
                _linked_fact_ids(fact=fact, entity_ids=subjects, role=EntityFact.Role.SUBJECT),
            ],
            limit=None if exhaustive else settings.KGSITE_CANDIDATE_SUBJECT_LIMIT,
        )
        for fact_id in newest:
            found.setdefault(fact_id, None)

    if exhaustive or not hits:
        linked = set(links.values_list("entity_id", flat=True))
        if linked:
            newest = _newest_ids(
                [_linked_fact_ids(fact=fact, entity_ids=linked).distinct()],
                limit=None if exhaustive else settings.KGSITE_CANDIDATE_FALLBACK_LIMIT,
            )
            for fact_id in newest:
                found.setdefault(fact_id, None)
    return _within_scope(fact, found)


def _within_scope(fact: Fact, found: dict[int, float | None]) -> dict[int, float | None]:
    """Pairs are compared within a project plus global memory: a project's fact against
    its project's and global facts, a global fact against any."""
    if not fact.scope or not found:
        return found
    visible = set(
        Fact.objects.filter(pk__in=list(found), scope__in=[fact.scope, ""]).values_list(
            "pk", flat=True
        )
    )
    return {pk: score for pk, score in found.items() if pk in visible}


def _linked_fact_ids(*, fact: Fact, entity_ids: set[str], role: str | None = None):
    """Ids of the other active facts linked to these entities, newest first."""
    links = EntityFact.objects.filter(entity_id__in=entity_ids, fact__status=Fact.Status.ACTIVE)
    if role is not None:
        links = links.filter(role=role)
    return links.exclude(fact_id=fact.pk).order_by("-fact_id").values_list("fact_id", flat=True)


def _newest_ids(id_querysets: list, *, limit: int | None) -> list[int]:
    """The newest ids across querysets that each list ids newest first."""
    ids: set[int] = set()
    for queryset in id_querysets:
        ids.update(queryset if limit is None else queryset[:limit])
    newest = sorted(ids, reverse=True)
    return newest if limit is None else newest[:limit]


@dataclass
class FactCheckResult:
    fact_id: int
    checked: int = 0
    contradictions: list[int] = field(default_factory=list)  # Contradiction ids created
    duplicates: list[int] = field(default_factory=list)  # other fact ids
    uncertain: list[int] = field(default_factory=list)  # other fact ids, sent to a curator
    skipped: str = ""  # "missing" | "inactive"

    def as_dict(self) -> dict:
        return asdict(self)


def contradiction_urgency(confidence: float) -> str:
    """HIGH at or above the notify threshold, MEDIUM from the medium one, LOW below."""
    if confidence >= settings.KGSITE_CONTRADICTION_NOTIFY_THRESHOLD:
        return Notification.Urgency.HIGH
    if confidence >= settings.KGSITE_CONTRADICTION_MEDIUM_THRESHOLD:
        return Notification.Urgency.MEDIUM
    return Notification.Urgency.LOW


def quoted(text: str, limit: int = 60) -> str:
    """A fact's text in a notice's title: quoted, cut at ``limit`` characters."""
    return f"“{text if len(text) <= limit else text[: limit - 1] + '…'}”"


def _fact_brief(fact: Fact) -> dict:
    return {"id": fact.pk, "text": fact.text}


def contradiction_link(contradiction_id: int) -> str:
    return f"/api/v1/integrity/contradictions/{contradiction_id}/"


def _kind(verdict: Verdict) -> str:
    return verdict.kind if verdict.kind in Contradiction.Kind.values else ""


@transaction.atomic
def contradiction_store(*, fact_a: Fact, fact_b: Fact, verdict: Verdict) -> Contradiction | None:
    """Record a contradiction once per pair and notify; None if the pair is known."""
    if fact_a.pk > fact_b.pk:
        fact_a, fact_b = fact_b, fact_a
    confidence = min(1.0, max(0.0, float(verdict.confidence)))
    try:
        with transaction.atomic():
            contradiction = Contradiction.objects.create(
                fact_a=fact_a,
                fact_b=fact_b,
                kind=_kind(verdict),
                confidence=confidence,
                explanation=(verdict.explanation or "")[:2000],
            )
    except IntegrityError:
        return None  # a concurrent check stored this pair first
    notification_create(
        type=Notification.Type.CONTRADICTION,
        urgency=contradiction_urgency(confidence),
        title=f"Contradiction: {quoted(fact_a.text)} vs {quoted(fact_b.text)}",
        payload={
            "contradiction": contradiction.pk,
            "kind": contradiction.kind,
            "confidence": confidence,
            "explanation": contradiction.explanation,
            "fact_a": _fact_brief(fact_a),
            "fact_b": _fact_brief(fact_b),
        },
        link=contradiction_link(contradiction.pk),
        key=f"contradiction:{contradiction.pk}",
        scope=fact_a.scope or fact_b.scope,
    )
    return contradiction


def _duplicate_notify(*, fact_a: Fact, fact_b: Fact, verdict: Verdict) -> None:
    if fact_a.pk > fact_b.pk:
        fact_a, fact_b = fact_b, fact_a
    notification_create(
        type=Notification.Type.DUPLICATE,
        urgency=Notification.Urgency.LOW,
        title=f"Possible duplicate: {quoted(fact_a.text)} and {quoted(fact_b.text)}",
        payload={
            "confidence": float(verdict.confidence),
            "explanation": verdict.explanation or "",
            "fact_a": _fact_brief(fact_a),
            "fact_b": _fact_brief(fact_b),
        },
        link=f"/api/v1/facts/{fact_b.pk}/",
        key=f"duplicate:{fact_a.pk}:{fact_b.pk}",
        scope=fact_a.scope or fact_b.scope,
    )


def _uncertain_notify(*, fact_a: Fact, fact_b: Fact, verdict: Verdict) -> None:
    """Probably the same subject and attribute, no clear verdict: ask a curator (LOW).

    No Contradiction row: nothing is known to conflict. The notification is a
    contradiction-type notice so it sits with them in the panel and the digest.
    """
    if fact_a.pk > fact_b.pk:
        fact_a, fact_b = fact_b, fact_a
    notification_create(
        type=Notification.Type.CONTRADICTION,
        urgency=Notification.Urgency.LOW,
        title=f"Possibly conflicting, please check: {quoted(fact_a.text)} and "
        f"{quoted(fact_b.text)}",
        payload={
            "verdict": "uncertain",
            "kind": verdict.kind or "",
            "confidence": float(verdict.confidence),
            "explanation": verdict.explanation or "",
            "fact_a": _fact_brief(fact_a),
            "fact_b": _fact_brief(fact_b),
        },
        link=f"/api/v1/facts/{fact_b.pk}/",
        key=f"uncertain:{fact_a.pk}:{fact_b.pk}",
        scope=fact_a.scope or fact_b.scope,
    )


def fact_check(*, fact_id: int) -> FactCheckResult:
    """The background check: candidates -> classifier -> Contradiction rows -> notification.

    Idempotent: a pair that already has a Contradiction row (open or resolved) is not
    classified again, and notifications carry a key.
    """
    result = FactCheckResult(fact_id=fact_id)
    fact = Fact.objects.filter(pk=fact_id).first()
    if fact is None:
        result.skipped = "missing"
        return result
    if fact.status != Fact.Status.ACTIVE:
        result.skipped = "inactive"
        return result
    candidates = fact_candidates(fact=fact)
    if not candidates:
        return result
    known = set(
        Contradiction.objects.filter(Q(fact_a=fact) | Q(fact_b=fact)).values_list(
            "fact_a_id", "fact_b_id"
        )
    )
    known_others = {a if b == fact.pk else b for a, b in known}
    others = Fact.objects.filter(
        pk__in=[i for i in candidates if i not in known_others], status=Fact.Status.ACTIVE
    )
    mentions = mentions_remembered(entity_mentions)  # the fact's own names, read once
    for other in sorted(others, key=lambda f: f.pk):
        older, newer = (other, fact) if other.pk < fact.pk else (fact, other)
        verdict = classify(
            existing=older.text,
            new=newer.text,
            similarity=candidates[other.pk],
            mentions=mentions,
        )
        result.checked += 1
        if verdict.label == "contradiction":
            stored = contradiction_store(fact_a=older, fact_b=newer, verdict=verdict)
            if stored is not None:
                result.contradictions.append(stored.pk)
        elif verdict.label == "duplicate":
            _duplicate_notify(fact_a=older, fact_b=newer, verdict=verdict)
            result.duplicates.append(other.pk)
        elif verdict.label == "uncertain":
            _uncertain_notify(fact_a=older, fact_b=newer, verdict=verdict)
            result.uncertain.append(other.pk)
    return result
