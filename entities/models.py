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
    # Created by extraction on its own (not by a curator or the API) and not yet confirmed
    # by a curator or by a second book: the gazetteer matches it strictly.
    candidate = models.BooleanField(default=False)
    # How much spoke for it when extraction proposed it (chunks, headings, definitions).
    evidence = models.PositiveIntegerField(default=0)

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

    class Kind(models.TextChoices):
        """What an agent's memory item is; recall triggers pick the kinds they need."""

        FACT = "fact"
        DECISION = "decision"
        INVESTIGATION = "investigation"
        MISTAKE = "mistake"
        DEAD_END = "dead_end"
        UNKNOWN = "unknown"
        RESOLVED_UNKNOWN = "resolved_unknown"
        PATTERN = "pattern"
        GOAL = "goal"

    class GoalStatus(models.TextChoices):
        ACTIVE = "active"
        DONE = "done"

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
    kind = models.CharField(max_length=24, choices=Kind.choices, default=Kind.FACT)
    # Kind-specific: a goal's progress, a resolved unknown's resolution, a pattern's domain.
    goal_status = models.CharField(max_length=8, choices=GoalStatus.choices, blank=True, default="")
    resolved_by = models.TextField(blank=True, default="")
    domain = models.CharField(max_length=64, blank=True, default="")
    # Project key; empty is global memory, visible from every project.
    scope = models.CharField(max_length=128, blank=True, default="")
    ai_id = models.CharField(max_length=128, blank=True, default="")
    session_id = models.CharField(max_length=128, blank=True, default="")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(confidence__gte=0) & Q(confidence__lte=1), name="fact_confidence_0_1"
            ),
            models.CheckConstraint(condition=~Q(text_norm=""), name="fact_text_not_empty"),
            models.CheckConstraint(
                condition=Q(kind="goal") | Q(goal_status=""), name="fact_goal_status_only_goals"
            ),
        ]
        indexes = [
            # With status: SQLite then prefers it to the status index for duplicate checks.
            models.Index(
                Left("text_norm", FACT_TEXT_HEAD), "status", name="fact_text_head_status_idx"
            ),
            models.Index(fields=["subject", "predicate"], name="fact_subject_predicate_idx"),
            # A recall trigger's scope (one project's patterns or mistakes above a
            # confidence) is listed from the index alone, with what the domain trigger
            # orders by: no row of the table is read (a thousand rows: 4 ms -> 0.6 ms).
            models.Index(
                fields=["scope", "kind", "status", "confidence", "domain", "confirmations"],
                name="fact_scope_kind_status_idx",
            ),
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


class FactConfirmation(models.Model):
    """A statement ``fact_store`` folded into an existing fact as a confirmation.

    The evidence of a duplicate verdict: what was said, by which source and client,
    when, and what the confirmation changed (the confidence before, the entity links it
    added), so ``fact_confirmation_undo`` can store the statement as a fact of its own
    and take the confirmation back (issue 27: a wrong confirmation must not lose a fact).
    """

    fact = models.ForeignKey(Fact, on_delete=models.CASCADE, related_name="confirmation_rows")
    text = models.TextField()
    source = models.CharField(max_length=255, blank=True, default="")
    client = models.CharField(max_length=128, blank=True, default="")
    ai_id = models.CharField(max_length=128, blank=True, default="")
    session_id = models.CharField(max_length=128, blank=True, default="")
    confidence = models.FloatField(default=1.0)  # the incoming statement's own
    confidence_before = models.FloatField(default=1.0)
    # What the swallowed call named: {"subject", "object_entity", "predicate",
    # "object_value", "entities", "valid_from", "valid_to", "goal_status", "resolved_by",
    # "domain"} and the links it added to the fact: [[entity id, role], ...].
    details = models.JSONField(default=dict, blank=True)
    links_added = models.JSONField(default=list, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    undone_at = models.DateTimeField(null=True, blank=True)
    # The fact the statement became when the confirmation was undone.
    restored_fact = models.ForeignKey(
        Fact, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["fact", "created_at"], name="factconfirm_fact_idx")]

    def __str__(self) -> str:
        return f"{self.fact_id} <- {self.text[:60]}"


class NameToken(models.Model):
    """One word start of an entity's name or alias: "did you mean" finds its candidates
    here through an index instead of scanning every name for a word inside it.

    Derived data (``entities.name_index``): rebuilt by ``manage.py rebuild_name_index``.
    """

    # The first PREFIX_CHARS characters of a word of the normalised name, and of its
    # transliterated form (ö -> oe): what a suggestion query's words are looked up by.
    prefix = models.CharField(max_length=8)
    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="+")
    # The name or alias the word belongs to, normalised and folded (``name_index.fold``):
    # what a suggestion is scored on.
    text = models.CharField(max_length=MAX_NORM_LENGTH)

    class Meta:
        indexes = [models.Index(fields=["prefix"], name="name_token_prefix_idx")]

    def __str__(self) -> str:
        return f"{self.prefix}: {self.text}"


class EntityMerge(models.Model):
    """One merge of duplicates into a survivor, with the full before state so undo can
    restore exactly what was there (ids, names, aliases, links, other apps' references)."""

    survivor = models.ForeignKey(
        Entity, null=True, blank=True, on_delete=models.SET_NULL, related_name="merges"
    )
    # Kept when the survivor is later deleted or merged away: history still reads.
    survivor_name = models.CharField(max_length=512)
    duplicate_ids = models.JSONField(default=list)
    # What the merge moved and dropped; see ``entities.services.entity_merge``.
    state = models.JSONField(default=dict)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    undone_at = models.DateTimeField(null=True, blank=True)
    undone_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"merge {self.pk} into {self.survivor_name}"

    @property
    def undone(self) -> bool:
        return self.undone_at is not None


class EntityRedirect(models.Model):
    """A merged-away entity id and the entity that absorbed it. Not a foreign key: the
    target may itself be merged later, and readers follow the chain."""

    old_id = models.CharField(primary_key=True, max_length=12)
    target_id = models.CharField(max_length=12, db_index=True)
    merge = models.ForeignKey(EntityMerge, on_delete=models.CASCADE, related_name="redirects")

    def __str__(self) -> str:
        return f"{self.old_id} -> {self.target_id}"


class DuplicateSuggestion(TimeStampedModel):
    """A pair of entities that look like one, with the evidence; a curator merges or
    dismisses it. ``pair_key`` ("a|b", ids sorted) outlives the entities' rows, so a
    dismissed pair stays dismissed whatever the job finds later."""

    class Status(models.TextChoices):
        PENDING = "pending"
        DISMISSED = "dismissed"
        MERGED = "merged"

    pair_key = models.CharField(max_length=25, unique=True)
    entity_a = models.ForeignKey(
        Entity, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    entity_b = models.ForeignKey(
        Entity, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    score = models.FloatField(default=0.0)
    evidence = models.JSONField(default=list)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING, db_index=True
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-score", "id"]
        indexes = [models.Index(fields=["status", "-score"], name="dupsugg_status_score_idx")]

    def __str__(self) -> str:
        return f"{self.pair_key} ({self.status}, {self.score:.2f})"


class DuplicateScan(TimeStampedModel):
    """One run of the duplicate-suggestion job: its scope, progress and outcome.

    Saves after ingestion are coalesced: while a scan is queued and not started, new
    entity ids join its ``entity_ids`` instead of queueing another job.
    """

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    # None: every entity; otherwise the ids whose pairs are looked for.
    entity_ids = models.JSONField(null=True, blank=True)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.QUEUED, db_index=True
    )
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    result = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True, default="")
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        scope = "all" if self.entity_ids is None else f"{len(self.entity_ids)} entities"
        return f"duplicate scan {self.pk} ({scope}, {self.status})"


class ExternalFactLink(models.Model):
    """A fact id of an imported entity memory (``import_entity_kg``) and where it went.

    ``fact`` is set when the store's facts table was imported; without one the id stays
    an external reference on the entity it was linked to. One row per (store, id, entity)
    keeps a second import from changing anything.
    """

    store = models.CharField(max_length=255)
    external_id = models.CharField(max_length=255)
    entity = models.ForeignKey(
        Entity, null=True, blank=True, on_delete=models.CASCADE, related_name="external_facts"
    )
    fact = models.ForeignKey(
        Fact, null=True, blank=True, on_delete=models.SET_NULL, related_name="external_ids"
    )
    # The project the import was made for (``--scope``): a reader of another project
    # never sees the reference, like the facts it stands for.
    scope = models.CharField(max_length=128, blank=True, default="", db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["store", "external_id", "entity"], name="externalfact_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.store}:{self.external_id}"


class ExternalEntityId(models.Model):
    """An entity's id in an imported entity memory (``import_entity_kg``): a second key
    that lookup, ``entity_get`` and ``GET /api/v1/entities/<id>/`` resolve, because the
    original memory refers to entities by it. Rows folded into one entity all keep theirs.
    """

    store = models.CharField(max_length=255)
    external_id = models.CharField(max_length=255, db_index=True)
    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="external_ids")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["store", "external_id"], name="externalentity_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.store}:{self.external_id} -> {self.entity_id}"


# The recall room's models live in their package; imported here so Django finds them.
# The graph of relations lives in its own package; importing it here registers its models.
from .graph.models import Edge, EdgeFact, KGEModel, Relation  # noqa: E402,F401
from .recall.models import Episode  # noqa: E402, F401
