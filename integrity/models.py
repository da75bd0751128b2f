"""Contradictions between two facts, and how a curator resolved them."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from entities.models import Fact
from kgsite.models import TimeStampedModel


class Contradiction(TimeStampedModel):
    """Two facts that cannot both be true.

    ``fact_a`` is always the older fact (the smaller id: stored first, "the existing
    one") and ``fact_b`` the newer, so a pair is stored once whichever side found it.
    """

    class Kind(models.TextChoices):
        DATE = "date"
        NUMBER = "number"
        NAME = "name"
        PREFERENCE = "preference"
        STATUS = "status"
        NEGATION = "negation"
        LLM = "llm"

    class Status(models.TextChoices):
        OPEN = "open"
        RESOLVED = "resolved"

    class Resolution(models.TextChoices):
        KEEP_FIRST = "keep_first"
        KEEP_SECOND = "keep_second"
        BOTH_TRUE = "both_true"
        DROP_BOTH = "drop_both"

    fact_a = models.ForeignKey(Fact, on_delete=models.CASCADE, related_name="contradictions_as_a")
    fact_b = models.ForeignKey(Fact, on_delete=models.CASCADE, related_name="contradictions_as_b")
    # Blank only if a classifier ever reports a contradiction without naming its kind.
    kind = models.CharField(max_length=16, choices=Kind.choices, blank=True, default="")
    confidence = models.FloatField()
    explanation = models.TextField(blank=True, default="")
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.OPEN, db_index=True
    )
    resolution = models.CharField(max_length=16, choices=Resolution.choices, blank=True, default="")
    note = models.TextField(blank=True, default="")
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["fact_a", "fact_b"], name="contradiction_unique_pair"),
            models.CheckConstraint(
                condition=Q(fact_a__lt=F("fact_b")), name="contradiction_a_older_than_b"
            ),
            models.CheckConstraint(
                condition=Q(confidence__gte=0) & Q(confidence__lte=1),
                name="contradiction_confidence_0_1",
            ),
            models.CheckConstraint(
                condition=Q(status="open", resolution="")
                | (Q(status="resolved") & ~Q(resolution="")),
                name="contradiction_resolution_iff_resolved",
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.fact_a_id} vs #{self.fact_b_id} ({self.kind})"


class PendingFactCheck(models.Model):
    """A new fact whose background check could not be queued (the broker refused it).

    The fact itself is saved; the next background check that runs, or
    ``manage.py check_pending_facts``, checks it and deletes this row.
    """

    fact = models.OneToOneField(Fact, on_delete=models.CASCADE, related_name="+")
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"check of fact #{self.fact_id} pending"
