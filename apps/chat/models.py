"""Conversations (tenant schema): every turn is kept with what was retrieved and why."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.db import models
from django.db.models import Q


class WidgetSettings(models.Model):
    """One row per business: how the widget looks and where it may be embedded."""

    display_name = models.CharField(max_length=120, blank=True, help_text="Defaults to the business name")
    primary_color = models.CharField(max_length=7, default="#2255aa")
    greeting = models.CharField(max_length=300, default="Hi! Ask me anything about us.")
    allowed_origins = models.JSONField(
        default=list, blank=True, help_text="Sites that may embed the widget, e.g. https://sunny.example"
    )
    lead_capture_text = models.CharField(
        max_length=400,
        default="Leave your email or phone number and we'll tell you the answer. We use it only for this.",
    )
    show_sources = models.BooleanField(default=True)
    daily_model_budget = models.PositiveIntegerField(default=500, help_text="Language-model calls per day")
    # Handoff to a person (apps/chat/handoff.py): how long a visitor's request waits for someone to take
    # it before it becomes a question for the owner, and when people answer ({"mon": ["09:00",
    # "17:00"], ...} in the server's time zone; no day at all means at any time).
    handoff_wait_minutes = models.PositiveSmallIntegerField(default=5)
    handoff_hours = models.JSONField(default=dict, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"Widget of {self.display_name or 'the business'}"


class Channel(models.TextChoices):
    WIDGET = "widget", "Website widget"
    API = "api", "HTTP API"
    DRAFT = "draft", "Owner draft"


def own_tests_q(prefix: str = "") -> Q:
    """The business's own tests, not visitors: owner drafts, and conversations opened from the
    product's own pages (the widget preview on the Widget page and the dashboard, the API docs' "try
    it out"), whose origin is the portal's. They stay in the transcripts, out of the figures."""
    site = urlsplit(settings.SITE_URL)
    port = f":{site.port}" if site.port else ""
    origin = f"{prefix}origin"
    return (
        Q(**{f"{prefix}channel": Channel.DRAFT})
        | Q(**{f"{origin}__iexact": settings.SITE_URL})
        | Q(
            **{
                f"{origin}__istartswith": f"{site.scheme}://",
                f"{origin}__iendswith": f".{settings.BASE_DOMAIN}{port}",
            }
        )
    )


class ConversationQuerySet(models.QuerySet["Conversation"]):
    def tests(self) -> ConversationQuerySet:
        return self.filter(own_tests_q())

    def visitors(self) -> ConversationQuerySet:
        return self.exclude(own_tests_q())


class Conversation(models.Model):
    visitor_id = models.CharField(max_length=64, db_index=True)
    channel = models.CharField(max_length=10, choices=Channel.choices, default=Channel.WIDGET)
    origin = models.CharField(max_length=300, blank=True)
    contact = models.CharField(max_length=200, blank=True, help_text="Email or phone left by the visitor")
    contact_consent_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(auto_now_add=True, db_index=True)
    last_at = models.DateTimeField(auto_now_add=True)
    # Handoff (apps/chat/handoff.py): "requested" while a visitor waits for a person, "live" while a
    # person answers instead of the assistant (``handoff_by`` is the name the visitor sees).
    handoff = models.CharField(max_length=10, blank=True, default="", db_index=True)
    handoff_by = models.CharField(max_length=120, blank=True)
    handoff_requested_at = models.DateTimeField(null=True, blank=True)

    objects = ConversationQuerySet.as_manager()

    class Meta:
        ordering = ["-last_at"]

    def __str__(self) -> str:
        return f"Conversation {self.pk} ({self.visitor_id[:8]})"

    @property
    def is_test(self) -> bool:
        """The same rule as own_tests_q, for one conversation already loaded."""
        if self.channel == Channel.DRAFT:
            return True
        site = urlsplit(settings.SITE_URL)
        port = f":{site.port}" if site.port else ""
        origin = self.origin.lower()
        own_subdomain = origin.startswith(f"{site.scheme}://") and origin.endswith(
            f".{settings.BASE_DOMAIN}{port}"
        )
        return origin == settings.SITE_URL.lower() or own_subdomain


class Role(models.TextChoices):
    VISITOR = "visitor", "Visitor"
    ASSISTANT = "assistant", "Assistant"
    OWNER = "owner", "Owner (follow-up)"
    NOTE = "note", "Note (a person joined or left)"


class Decision(models.TextChoices):
    ANSWER = "answer", "Answered from the knowledge"
    UNKNOWN = "unknown", "Not in the knowledge: passed to the owner"
    GATE = "gate", "Small talk (no retrieval)"
    HANDOFF = "handoff", "Asked for a person"
    HELD = "held", "A person is answering (the assistant stays silent)"
    REFUSED = "refused", "Refused (limit or error)"


class Message(models.Model):
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="messages")
    role = models.CharField(max_length=10, choices=Role.choices)
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    decision = models.CharField(max_length=10, choices=Decision.choices, blank=True)
    answerer = models.CharField(max_length=20, blank=True)
    top_similarity = models.FloatField(null=True, blank=True)
    retrieval_log = models.JSONField(default=dict, blank=True)
    sources = models.JSONField(default=list, blank=True, help_text="Source labels shown under the answer")
    fact_ids = models.JSONField(default=list, blank=True)
    timings = models.JSONField(default=dict, blank=True)
    tokens = models.JSONField(default=dict, blank=True)
    speculative_hit = models.BooleanField(default=False)
    # A person's live reply the owner marked as the answer to the visitor's question (it became an
    # owner answer then; other replies never become facts).
    marked_answer_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.role}: {self.text[:60]}"
