"""Webhooks (tenant schema): the business's endpoints, and every event delivered to them.

A delivery is one event for one endpoint; each try is an attempt, kept so the owner can see what the
receiver answered and when the next try is due (docs/webhooks.md).
"""

from __future__ import annotations

import uuid

from django.db import models


class EventType(models.TextChoices):
    QUESTION_CREATED = "question.created", "A new question for the owner"
    QUESTION_ANSWERED = "question.answered", "The owner answered a question"
    CONVERSATION_STARTED = "conversation.started", "A visitor started a conversation"
    LEAD_CAPTURED = "lead.captured", "A visitor left contact details"
    SOURCE_SYNCED = "source.synced", "A website sync or document upload finished"
    DISAGREEMENT_CREATED = "disagreement.created", "A source contradicts an owner answer"
    FACT_CHANGED = "fact.changed", "Facts of some topics changed"


class Endpoint(models.Model):
    url = models.URLField(max_length=500)
    description = models.CharField(max_length=200, blank=True)
    # Kept readable: every delivery is signed with it (an HMAC needs the key itself, not a hash).
    secret = models.CharField(max_length=100)
    events = models.JSONField(default=list, blank=True, help_text="Event types to send; empty = all")
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return self.url

    def wants(self, event_type: str) -> bool:
        return self.is_active and (not self.events or event_type in self.events)


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", "Waiting for the worker"
    RETRYING = "retrying", "Failed; will retry"
    SUCCEEDED = "succeeded", "Delivered"
    FAILED = "failed", "Failed; no more retries"


class Delivery(models.Model):
    endpoint = models.ForeignKey(Endpoint, on_delete=models.CASCADE, related_name="deliveries")
    event_id = models.UUIDField(default=uuid.uuid4, help_text="The event's id: the same for every endpoint")
    event_type = models.CharField(max_length=40, choices=EventType.choices)
    key = models.CharField(
        max_length=200, help_text="What happened, once: a second signal is not a second event"
    )
    payload = models.JSONField()
    # The conversation the event is about, if any: erasing a visitor deletes its deliveries too.
    conversation_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    status = models.CharField(
        max_length=10, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING, db_index=True
    )
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["endpoint", "key"], name="one_delivery_per_event")]

    def __str__(self) -> str:
        return f"{self.event_type} to {self.endpoint_id} ({self.status})"


class Attempt(models.Model):
    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempt_log")
    number = models.PositiveIntegerField()
    manual = models.BooleanField(default=False, help_text="Sent again by the owner (resend)")
    at = models.DateTimeField()
    status_code = models.PositiveIntegerField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True)
    response_excerpt = models.CharField(max_length=500, blank=True)
    duration_ms = models.FloatField(default=0.0)

    class Meta:
        ordering = ["at", "id"]

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300
