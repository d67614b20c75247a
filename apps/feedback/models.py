"""Answer feedback (tenant schema): a visitor's thumbs up or down on one reply, with an optional comment."""

from __future__ import annotations

from django.db import models


class Rating(models.TextChoices):
    UP = "up", "Helpful"
    DOWN = "down", "Not helpful"


class AnswerFeedback(models.Model):
    # One per reply (the visitor may change their mind); goes when the reply goes (visitor erasure).
    message = models.OneToOneField("chat.Message", on_delete=models.CASCADE, related_name="feedback")
    rating = models.CharField(max_length=4, choices=Rating.choices)
    comment = models.TextField(blank=True)
    # Set once a thumbs-down has opened or bumped a question for the owner: a second click bumps nothing.
    gap_ticket_id = models.BigIntegerField(null=True, blank=True)
    gap_recorded = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at", "-id"]

    def __str__(self) -> str:
        return f"{self.rating} on message {self.message_id}"
