"""Shared models: the base timestamped model, and the log of curator actions (audit)."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from pgvector.django import VectorField


def short_id() -> str:
    """A 12-character URL-safe opaque id (72 random bits, less one in 64 first letters):
    never starting with "-", which a command line reads as an option
    (``find_duplicates -5O9i…`` failed with "unrecognized arguments")."""
    while True:
        value = secrets.token_urlsafe(9)
        if not value.startswith("-"):
            return value


class TimeStampedModel(models.Model):
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class AuditEntry(models.Model):
    """One row per curator action: who did what, with enough payload to show or undo it."""

    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    action = models.CharField(max_length=64, db_index=True)
    target_type = models.CharField(max_length=64)
    target_id = models.CharField(max_length=64, db_index=True)
    payload = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "audit entries"

    def __str__(self) -> str:
        return f"{self.action} {self.target_type}:{self.target_id}"


def audit(*, actor, action: str, target: models.Model, payload: dict | None = None) -> AuditEntry:
    """Record a curator action; call inside the service's transaction."""
    user = actor if getattr(actor, "is_authenticated", False) else None
    return AuditEntry.objects.create(
        actor=user,
        action=action,
        target_type=target._meta.label_lower,
        target_id=str(target.pk),
        payload=payload or {},
    )


def audit_many(*, actor, action: str, model: type[models.Model], payload: dict) -> AuditEntry:
    """Record one action over many rows of ``model`` (machine bulk writes): the row has no
    single target, and ``payload`` lists the ids."""
    user = actor if getattr(actor, "is_authenticated", False) else None
    return AuditEntry.objects.create(
        actor=user,
        action=action,
        target_type=model._meta.label_lower,
        target_id="",
        payload=payload,
    )


class VectorKindState(models.Model):
    """What the pgvector backend holds for one kind: the embedder signature and dimension
    its vectors come from, and whether every row is stored (false while a queued rebuild
    fills a missing store). The table exists only where pgvector does (migration 0002)."""

    kind = models.CharField(max_length=64, primary_key=True)
    signature = models.CharField(max_length=255)
    dim = models.IntegerField()
    complete = models.BooleanField()

    class Meta:
        db_table = "kgsite_vectorkind"

    def __str__(self) -> str:
        return f"{self.kind} ({self.signature}, {'complete' if self.complete else 'filling'})"


class StoredVector(models.Model):
    """One item's vector for the pgvector backend, generic over kinds (the vectors room
    knows no app): ``key`` is the row's id as text, ``hash`` the hash of the text that
    was embedded. Written and searched with SQL by ``kgsite.vectors.pgvector`` (HNSW
    cosine index per kind on ``embedding::vector(dim)``)."""

    kind = models.CharField(max_length=64)
    key = models.CharField(max_length=255)
    hash = models.CharField(max_length=32)
    embedding = VectorField()

    class Meta:
        db_table = "kgsite_vector"
        constraints = [
            models.UniqueConstraint(fields=["kind", "key"], name="kgsite_vector_kind_key")
        ]

    def __str__(self) -> str:
        return f"{self.kind}:{self.key}"
