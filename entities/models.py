"""The entity-centric graph: entities, their aliases, facts and the links between them."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Left

from kgsite.models import TimeStampedModel, short_id
from kgsite.text import MAX_NORM_LENGTH

# Facts are found by their normalised text through an index on its first characters: a
# whole text (up to 10,000 characters) does not fit in a PostgreSQL btree entry.
FACT_TEXT_HEAD = 200


class Entity(TimeStampedModel):
    id = models.CharField(primary_key=True, max_length=12, default=short_id, editable=False)
    canonical_name = models.CharField(max_length=512)
    name_norm = models.CharField(max_length=MAX_NORM_LENGTH, editable=False)
    type = models.CharField(max_length=64, blank=True, default="")
    description = models.TextField(blank=True, default="")
    # A curator touched it by hand: garbage collection after a book is deleted spares it.
    curated = models.BooleanField(default=False)

    class Meta:
        verbose_name_plural = "entities"
        ordering = ["name_norm", "type"]
        constraints = [
            models.UniqueConstraint(fields=["name_norm", "type"], name="entity_unique_name_type"),
            models.CheckConstraint(condition=~Q(name_norm=""), name="entity_name_not_empty"),
        ]
        indexes = [models.Index(fields=["type", "name_norm"], name="entity_type_name_idx")]
        permissions = [("curate", "Can curate the knowledge graph")]

    def __str__(self) -> str:
        return f"{self.canonical_name} ({self.type})" if self.type else self.canonical_name


class Alias(TimeStampedModel):
    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="aliases")
    alias = models.CharField(max_length=512)
    alias_norm = models.CharField(max_length=MAX_NORM_LENGTH, editable=False)
    # Copy of the entity's type: one normalised alias points to one entity per type.
    type = models.CharField(max_length=64, blank=True, default="", editable=False)
    # Added by a curator or API client (not discovered by extraction).
    manual = models.BooleanField(default=True)

    class Meta:
        verbose_name_plural = "aliases"
        ordering = ["alias_norm"]
        constraints = [
            models.UniqueConstraint(fields=["alias_norm", "type"], name="alias_unique_norm_type"),
            models.CheckConstraint(condition=~Q(alias_norm=""), name="alias_not_empty"),
        ]

    def __str__(self) -> str:
        return self.alias


class Fact(TimeStampedModel):
    class Status(models.TextChoices):
        ACTIVE = "active"
        SUPERSEDED = "superseded"
        RETRACTED = "retracted"

    text = models.TextField()
    text_norm = models.TextField(editable=False)
    subject = models.ForeignKey(
        Entity, null=True, blank=True, on_delete=models.SET_NULL, related_name="facts_as_subject"
    )
    predicate = models.CharField(max_length=128, blank=True, default="")
    object_entity = models.ForeignKey(
        Entity, null=True, blank=True, on_delete=models.SET_NULL, related_name="facts_as_object"
    )
    object_value = models.CharField(max_length=1024, blank=True, default="")
    confidence = models.FloatField(default=1.0)
    confirmations = models.PositiveIntegerField(default=1)
    source = models.CharField(max_length=255, blank=True, default="", db_index=True)
    client = models.CharField(max_length=128, blank=True, default="")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.ACTIVE, db_index=True
    )
    valid_from = models.DateTimeField(null=True, blank=True)
    valid_to = models.DateTimeField(null=True, blank=True)
    entities = models.ManyToManyField(Entity, through="EntityFact", related_name="facts")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(confidence__gte=0) & Q(confidence__lte=1), name="fact_confidence_0_1"
            ),
            models.CheckConstraint(condition=~Q(text_norm=""), name="fact_text_not_empty"),
        ]
        indexes = [
            # With status: SQLite then prefers it to the status index for duplicate checks.
            models.Index(
                Left("text_norm", FACT_TEXT_HEAD), "status", name="fact_text_head_status_idx"
            ),
            models.Index(fields=["subject", "predicate"], name="fact_subject_predicate_idx"),
        ]

    def __str__(self) -> str:
        return self.text[:80]


class EntityFact(models.Model):
    class Role(models.TextChoices):
        SUBJECT = "subject"
        OBJECT = "object"
        MENTION = "mention"

    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="entity_facts")
    fact = models.ForeignKey(Fact, on_delete=models.CASCADE, related_name="entity_facts")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.MENTION)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["entity", "fact"], name="entityfact_unique"),
        ]
        indexes = [models.Index(fields=["fact", "entity"], name="entityfact_fact_idx")]

    def __str__(self) -> str:
        return f"{self.entity_id} — {self.fact_id}"


# The graph of relations lives in its own package; importing it here registers its models.
from .graph.models import Edge, EdgeFact, KGEModel, Relation  # noqa: E402,F401
