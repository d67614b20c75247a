"""The retrieval index of one business (tenant schema): derived data, rebuilt from the facts at will."""

from __future__ import annotations

from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.db import models
from pgvector.django import HnswIndex, VectorField

DIMENSIONS = 384  # the column is typed; a model of another size needs a migration (docs/decisions)


class Audience(models.TextChoices):
    VISITOR = "visitor", "Visitors (public facts only)"
    STAFF = "staff", "Staff (with internal facts)"


class IndexState(models.Model):
    """One row: which vector space the index is in, and the golden vector that guards against drift."""

    model_id = models.CharField(max_length=300)
    generation = models.PositiveIntegerField(default=1)
    golden = VectorField(dimensions=DIMENSIONS)
    status = models.CharField(max_length=10, default="ready")  # ready | stale
    stale_reason = models.CharField(max_length=500, blank=True)
    built_at = models.DateTimeField()
    thresholds = models.JSONField(default=dict, blank=True, help_text="This business's calibrated thresholds")
    # Part of the vector space's identity: the pieces' vectors depend on it (index.question_weight).
    question_weight = models.FloatField(default=0.0)
    # Bumped whenever the active generation's pieces change, so that what a process derives from
    # them (the spelling repair's vocabulary) knows it is current without counting pieces each turn.
    revision = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.model_id} gen {self.generation} ({self.status})"


class Piece(models.Model):
    """About 900 characters of one topic's rendered knowledge, embedded with the topic's name as title.

    ``fact_ids`` lets the answerer receive these facts rendered for the question's date, so a fact past
    its end date never reaches it even before anyone re-indexes; ``expires_on`` lets the vector query
    skip pieces whose every fact has ended.
    """

    generation = models.PositiveIntegerField()
    topic = models.ForeignKey(
        "facts.Topic", on_delete=models.DO_NOTHING, db_constraint=False, related_name="+"
    )
    position = models.PositiveSmallIntegerField()
    audience = models.CharField(max_length=10, choices=Audience.choices)
    topic_has_internal = models.BooleanField(default=False)
    title = models.CharField(max_length=200)
    text = models.TextField()
    fact_ids = models.JSONField(default=list)
    expires_on = models.DateField(null=True, blank=True)
    embedding = VectorField(dimensions=DIMENSIONS)
    search = SearchVectorField(null=True)

    class Meta:
        indexes = [
            HnswIndex(
                name="piece_embedding_hnsw",
                fields=["embedding"],
                m=16,
                ef_construction=64,
                opclasses=["vector_cosine_ops"],
            ),
            GinIndex(name="piece_search_gin", fields=["search"]),
            models.Index(fields=["generation", "topic"]),
        ]
