"""Relations, the edges facts make between entities, and trained TransE models."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from kgsite.models import TimeStampedModel


class Relation(models.Model):
    """A normalised predicate. ``inverse`` names the same link read the other way
    (depends_on / dependency_of): a fact stated with the inverse is stored on this
    relation with head and tail swapped. A symmetric relation stores its edges once, with
    the smaller entity id as head."""

    name = models.CharField(max_length=128, unique=True)
    inverse = models.CharField(max_length=128, blank=True, default="")
    symmetric = models.BooleanField(default=False)
    domain = models.CharField(max_length=64, blank=True, default="")
    range = models.CharField(max_length=64, blank=True, default="")
    # Seeded with the default set; false for relations made from an unknown predicate.
    builtin = models.BooleanField(default=False)

    class Meta:
        ordering = ["name"]
        constraints = [models.CheckConstraint(condition=~Q(name=""), name="relation_not_empty")]

    def __str__(self) -> str:
        return self.name


class Edge(models.Model):
    """head --relation--> tail, as many facts say it; ``weight`` sums their confidence."""

    head = models.ForeignKey("entities.Entity", on_delete=models.CASCADE, related_name="edges_out")
    relation = models.ForeignKey(Relation, on_delete=models.CASCADE, related_name="edges")
    tail = models.ForeignKey("entities.Entity", on_delete=models.CASCADE, related_name="edges_in")
    weight = models.FloatField(default=0.0)
    fact_count = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["head", "relation", "tail"], name="edge_unique"),
        ]
        indexes = [models.Index(fields=["tail", "relation"], name="edge_tail_relation_idx")]

    def __str__(self) -> str:
        return f"{self.head_id} -{self.relation_id}-> {self.tail_id}"


class EdgeFact(models.Model):
    """A fact supporting an edge. The fact id is a plain column (not a foreign key): a
    deleted fact's row is found and removed by the fact hook after the delete commits."""

    edge = models.ForeignKey(Edge, on_delete=models.CASCADE, related_name="supports")
    fact_id = models.BigIntegerField(db_index=True)
    weight = models.FloatField(default=1.0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["fact_id"], name="edgefact_one_edge")]

    def __str__(self) -> str:
        return f"{self.edge_id} ← fact {self.fact_id}"


class KGEModel(TimeStampedModel):
    """One trained TransE model: its vectors (an ``.npz`` blob), vocabulary, settings,
    held-out metrics and the score thresholds calibrated on held-out triples."""

    class Status(models.TextChoices):
        TRAINING = "training"
        READY = "ready"
        FAILED = "failed"

    status = models.CharField(max_length=16, choices=Status.choices, default=Status.TRAINING)
    # The view of the memory it was trained on: global memory only (scope ""), a project
    # plus global memory, or every project (all_scopes). It answers readers of that view.
    scope = models.CharField(max_length=128, blank=True, default="", db_index=True)
    all_scopes = models.BooleanField(default=False)
    # A model good enough to answer: ready, and trained on enough triples to calibrate.
    good = models.BooleanField(default=False)
    dim = models.PositiveIntegerField(default=0)
    entity_count = models.PositiveIntegerField(default=0)
    relation_count = models.PositiveIntegerField(default=0)
    triple_count = models.PositiveIntegerField(default=0)
    settings = models.JSONField(default=dict, blank=True)
    metrics = models.JSONField(default=dict, blank=True)
    thresholds = models.JSONField(default=dict, blank=True)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True, default="")
    # numpy .npz: entity ids, entity vectors, relation names, relation vectors.
    blob = models.BinaryField(default=b"", editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "KGE model"

    def __str__(self) -> str:
        return f"TransE #{self.pk} ({self.status})"
