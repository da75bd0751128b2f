"""Notifications: what curators and chat clients should hear about, by urgency."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Notification(models.Model):
    class Type(models.TextChoices):
        CONTRADICTION = "contradiction"
        DUPLICATE = "duplicate"
        JOB_FAILED = "job_failed"
        JOB_DONE = "job_done"
        SYSTEM = "system"

    class Urgency(models.TextChoices):
        HIGH = "high"
        MEDIUM = "medium"
        LOW = "low"

    type = models.CharField(max_length=32, choices=Type.choices, db_index=True)
    urgency = models.CharField(max_length=8, choices=Urgency.choices, db_index=True)
    title = models.CharField(max_length=255)
    payload = models.JSONField(default=dict, blank=True)
    # Where a client should send the user: a site path or an API path.
    link = models.CharField(max_length=512, blank=True, default="")
    read = models.BooleanField(default=False, db_index=True)
    read_at = models.DateTimeField(null=True, blank=True)
    # Empty: addressed to every curator (one shared read flag).
    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="notifications",
    )
    # The project of the facts it is about ("" = global memory): a reader of another
    # project never sees it (session-start recall, the MCP digest, ``?scope=``).
    scope = models.CharField(max_length=128, blank=True, default="", db_index=True)
    # Idempotency key: a re-run background check does not notify twice.
    key = models.CharField(max_length=128, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["key"], condition=~Q(key=""), name="notification_unique_key"
            ),
        ]
        indexes = [
            models.Index(fields=["read", "urgency", "created_at"], name="notification_pending_idx"),
        ]

    def __str__(self) -> str:
        return f"[{self.urgency}] {self.title}"
