"""Books, their chunks, and the mention index linking chunks to entities.

The mention index is what retrieval walks: "where is E defined", "which books mention
E", "which chunks of other books share entities with this one". Each of those is one
query over a composite index of ``Mention``.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from kgsite.models import TimeStampedModel
from kgsite.text import MAX_NORM_LENGTH


class Book(TimeStampedModel):
    class Status(models.TextChoices):
        # A book row exists only once its first version is written, so it is "ready";
        # while a new version of it is ingested it shows "ingesting" (its chunks are
        # still the previous version's). A failure is recorded on the job, and the
        # book is "ready" again with its previous version intact.
        INGESTING = "ingesting"
        READY = "ready"

    class Format(models.TextChoices):
        MARKDOWN = "markdown"
        TEXT = "text"
        PDF = "pdf"
        HTML = "html"
        EPUB = "epub"
        RST = "rst"
        MAN = "man"

    title = models.CharField(max_length=512)
    # Re-ingesting a title replaces that book: the normalised title is its identity.
    # As long as folding can make a title of 512 characters ("ß" is "ss"), as name_norm.
    title_norm = models.CharField(max_length=MAX_NORM_LENGTH, editable=False)
    author = models.CharField(max_length=512, blank=True, default="")
    source_name = models.CharField(max_length=512, blank=True, default="")
    content_hash = models.CharField(max_length=64, blank=True, default="")
    format = models.CharField(max_length=16, choices=Format.choices)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.READY, db_index=True
    )
    extractor = models.CharField(max_length=32, blank=True, default="")
    char_count = models.PositiveIntegerField(default=0)
    word_count = models.PositiveIntegerField(default=0)
    chunk_count = models.PositiveIntegerField(default=0)
    ingested_at = models.DateTimeField(null=True, blank=True)

    # False from the write of a version until every one of its chunks has a vector: a
    # worker killed mid-embed leaves it False, and the next run embeds what is missing.
    embedded = models.BooleanField(default=True)

    class Meta:
        ordering = ["title_norm"]
        constraints = [
            models.UniqueConstraint(fields=["title_norm"], name="book_unique_title"),
            models.CheckConstraint(condition=~Q(title_norm=""), name="book_title_not_empty"),
        ]

    def __str__(self) -> str:
        return self.title


class Chunk(models.Model):
    book = models.ForeignKey(Book, on_delete=models.CASCADE, related_name="chunks")
    ordinal = models.PositiveIntegerField()
    # Headings from the outermost down, e.g. ["Spells", "Fireball"].
    heading_path = models.JSONField(default=list, blank=True)
    text = models.TextField()
    # Character offsets into the parsed source document: text == document[start:end].
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()

    class Meta:
        ordering = ["book_id", "ordinal"]
        constraints = [
            models.UniqueConstraint(fields=["book", "ordinal"], name="chunk_unique_ordinal"),
            models.CheckConstraint(condition=Q(end__gte=models.F("start")), name="chunk_span"),
        ]

    def __str__(self) -> str:
        return f"{self.book_id}#{self.ordinal}"

    @property
    def heading(self) -> str:
        return self.heading_path[-1] if self.heading_path else ""


class Mention(models.Model):
    """An entity named in a chunk: one row per (chunk, entity), at its first occurrence.

    ``defines`` marks the chunk that defines the entity (its heading names it, or it
    opens with a definition); every other chunk naming it ``references`` it.
    """

    class Type(models.TextChoices):
        DEFINES = "defines"
        REFERENCES = "references"

    # The composite indexes below start with entity and book, so the FKs need no
    # single-column index of their own (fewer indexes, faster bulk inserts).
    entity = models.ForeignKey(
        "entities.Entity", on_delete=models.CASCADE, related_name="mentions", db_index=False
    )
    book = models.ForeignKey(
        Book, on_delete=models.CASCADE, related_name="mentions", db_index=False
    )
    chunk = models.ForeignKey(
        Chunk, on_delete=models.CASCADE, related_name="mentions", db_index=False
    )
    mention_type = models.CharField(max_length=16, choices=Type.choices)
    surface = models.CharField(max_length=512, blank=True, default="")
    # Offsets of the first occurrence in the parsed source document (as Chunk.start).
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    # How often the chunk names the entity: ranks related chunks.
    count = models.PositiveIntegerField(default=1)
    context = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["mention_type", "book_id", "start"]
        constraints = [
            models.UniqueConstraint(fields=["chunk", "entity"], name="mention_unique_chunk_entity"),
        ]
        indexes = [
            # All mentions of E, defines first (optionally in one book).
            models.Index(fields=["entity", "mention_type", "book"], name="mention_entity_type_idx"),
            # Books that mention E (and GC: does E appear in another book?).
            models.Index(fields=["entity", "book"], name="mention_entity_book_idx"),
            # All mentions in book B.
            models.Index(fields=["book", "entity"], name="mention_book_entity_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.entity_id} {self.mention_type} chunk {self.chunk_id}"


class IngestJob(TimeStampedModel):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    book = models.ForeignKey(
        Book, null=True, blank=True, on_delete=models.SET_NULL, related_name="jobs"
    )
    title = models.CharField(max_length=512, blank=True, default="")
    author = models.CharField(max_length=512, blank=True, default="")
    source_name = models.CharField(max_length=512, blank=True, default="")
    # Where the queued file waits for the worker (uploads are copied under DATA_DIR).
    source_path = models.CharField(max_length=1024, blank=True, default="")
    extractor = models.CharField(max_length=32, blank=True, default="")
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.QUEUED, db_index=True
    )
    phase = models.CharField(max_length=16, blank=True, default="")
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True, default="")
    # The error's template and params (``Wording.stored``), for a page to say it in its
    # language; empty for an exception's own words, and on jobs that failed before it.
    error_wording = models.JSONField(null=True, blank=True, default=None)
    # Non-fatal problems (an LLM answer that could not be parsed, per chunk).
    warnings = models.JSONField(default=list, blank=True)
    result = models.JSONField(default=dict, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Runs started: a job whose worker died is retried up to KGSITE_JOB_MAX_ATTEMPTS.
    attempts = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"ingest {self.title or self.source_name} ({self.status})"
