"""Knowledge gaps (tenant schema): questions the knowledge could not answer, merged by meaning."""

from __future__ import annotations

from django.db import models
from pgvector.django import VectorField

from apps.retrieval.models import DIMENSIONS


class GapStatus(models.TextChoices):
    OPEN = "open", "Open"
    ANSWERED = "answered", "Answered"
    DISMISSED = "dismissed", "Dismissed (no business value)"
    COVERED = "covered", "Answered by the knowledge since"  # closed itself (apps.gaps.recheck)


class GapTicket(models.Model):
    """One question for the owner, however many visitors asked it ("asked 7 times")."""

    question = models.TextField(help_text="The first wording asked; the owner's answer is filed under it")
    embedding = VectorField(dimensions=DIMENSIONS)
    status = models.CharField(max_length=10, choices=GapStatus.choices, default=GapStatus.OPEN, db_index=True)
    asked_count = models.PositiveIntegerField(default=0)
    first_asked_at = models.DateTimeField()
    last_asked_at = models.DateTimeField(db_index=True)
    top_similarity = models.FloatField(default=0.0)
    retrieval_log = models.JSONField(default=dict, blank=True, help_text="The last ask's retrieval log")
    answer = models.TextField(blank=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    answered_by = models.CharField(max_length=200, blank=True)
    fact_ids = models.JSONField(default=list, blank=True, help_text="Facts the owner's answer created")
    dismissed_reason = models.CharField(max_length=200, blank=True)
    closed_note = models.TextField(blank=True, help_text="Why the question closed itself (what answers it)")
    digested_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-asked_count", "-last_asked_at"]

    def __str__(self) -> str:
        return self.question


class GapAsk(models.Model):
    """One visitor asking: the wording, the conversation, and contact details for the answer."""

    ticket = models.ForeignKey(GapTicket, on_delete=models.CASCADE, related_name="asks")
    question = models.TextField()
    conversation_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    message_id = models.BigIntegerField(null=True, blank=True)
    visitor_id = models.CharField(max_length=64, blank=True)
    top_similarity = models.FloatField(default=0.0)
    asked_at = models.DateTimeField()
    contact = models.CharField(max_length=200, blank=True)
    notified_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["asked_at", "id"]
