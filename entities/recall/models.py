"""Episodes: what an agent did in a session, embedded like facts for "past work" recall."""

from __future__ import annotations

from django.db import models


class Episode(models.Model):
    scope = models.CharField(max_length=128, blank=True, default="")
    session_id = models.CharField(max_length=128, blank=True, default="")
    ai_id = models.CharField(max_length=128, blank=True, default="")
    narrative = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    entities = models.ManyToManyField("entities.Entity", blank=True, related_name="episodes")
    facts = models.ManyToManyField("entities.Fact", blank=True, related_name="episodes")

    class Meta:
        app_label = "entities"
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["scope", "created_at"], name="episode_scope_created_idx"),
            models.Index(fields=["scope", "session_id"], name="episode_scope_session_idx"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(narrative=""), name="episode_narrative_not_empty"
            ),
        ]

    def __str__(self) -> str:
        return self.narrative[:80]
