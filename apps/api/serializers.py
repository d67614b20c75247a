"""Output and input shapes of the v1 API (the schema is generated from these)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from apps.chat.models import Conversation, Message, WidgetSettings
from apps.facts.ingestion import job_report_lines, job_summary
from apps.facts.models import (
    Disagreement,
    Evidence,
    Fact,
    FactEvent,
    IngestionJob,
    Source,
    SourceVersion,
    Topic,
    Visibility,
    WebsiteSettings,
)
from apps.gaps.models import GapTicket

# ----------------------------------------------------------------------------------------------
# Knowledge


class SourceRefOut(serializers.Serializer[Any]):
    kind = serializers.CharField()
    ref = serializers.CharField()
    title = serializers.CharField()
    learned_on = serializers.DateField()
    label = serializers.CharField(help_text="How a visitor sees it under an answer")  # type: ignore[assignment]


class RenderedFactOut(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    statement = serializers.CharField()
    state = serializers.ChoiceField(choices=["current", "temporary", "paused", "upcoming"])
    line = serializers.CharField(help_text="The line as the assistant reads it on the date")
    learned_at = serializers.DateTimeField()
    valid_from = serializers.DateField(allow_null=True)
    valid_to = serializers.DateField(allow_null=True)
    sources = SourceRefOut(many=True)


class RenderedTopicOut(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    on = serializers.DateField()
    text = serializers.CharField(help_text="The topic's document as the assistant reads it on the date")
    facts = RenderedFactOut(many=True)


class TopicOut(serializers.ModelSerializer[Topic]):
    class Meta:
        model = Topic
        fields = ["id", "name", "created_at"]


class EvidenceOut(serializers.ModelSerializer[Evidence]):
    source_id = serializers.IntegerField()
    source_kind = serializers.CharField(source="kind")
    source_ref = serializers.CharField(source="source.ref")
    source_title = serializers.CharField(source="source.title")
    current = serializers.SerializerMethodField()

    class Meta:
        model = Evidence
        fields = [
            "source_id",
            "source_kind",
            "source_ref",
            "source_title",
            "added_at",
            "withdrawn_at",
            "withdrawn_reason",
            "current",
        ]

    def get_current(self, evidence: Evidence) -> bool:
        return evidence.withdrawn_at is None


class FactEventOut(serializers.ModelSerializer[FactEvent]):
    related_fact_id = serializers.IntegerField(source="related_id", allow_null=True)

    class Meta:
        model = FactEvent
        fields = ["id", "fact_id", "kind", "reason", "actor", "at", "related_fact_id"]


class FactOut(serializers.ModelSerializer[Fact]):
    topic = serializers.CharField(source="topic.name")

    class Meta:
        model = Fact
        fields = [
            "id",
            "topic_id",
            "topic",
            "aspect",
            "statement",
            "value",
            "status",
            "visibility",
            "source_kind",
            "learned_at",
            "valid_from",
            "valid_to",
            "question",
            "retired_at",
            "retired_reason",
            "retired_by_id",
        ]


class FactDetailOut(FactOut):
    sources = EvidenceOut(source="evidence", many=True, help_text="Every source that stated it")
    history = FactEventOut(source="events", many=True, help_text="What changed, when and why (oldest first)")
    replaces = serializers.PrimaryKeyRelatedField[Fact](many=True, read_only=True)
    can_split = serializers.SerializerMethodField(
        help_text="Filed under another subject by meaning: POST .../split files it under its own"
    )

    class Meta(FactOut.Meta):
        fields = [*FactOut.Meta.fields, "replaces", "sources", "history", "can_split"]

    def get_can_split(self, fact: Fact) -> bool:
        return bool((fact.matched_subject or {}).get("own_topic"))


class TopicDetailOut(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    on = serializers.DateField()
    rendered = RenderedTopicOut(allow_null=True, help_text="As visitors' assistant reads it on the date")
    facts = FactOut(many=True, help_text="Every fact of the topic, live first")
    history = FactEventOut(many=True, help_text="What changed on the topic, newest first")


class FactIn(serializers.Serializer[Any]):
    topic = serializers.CharField(max_length=120)
    statement = serializers.CharField(max_length=2000)
    valid_from = serializers.DateField(required=False, allow_null=True)
    valid_to = serializers.DateField(required=False, allow_null=True)
    visibility = serializers.ChoiceField(choices=Visibility.choices, default=Visibility.PUBLIC)


class FactCorrectIn(serializers.Serializer[Any]):
    statement = serializers.CharField(max_length=2000)
    valid_from = serializers.DateField(required=False, allow_null=True)
    valid_to = serializers.DateField(required=False, allow_null=True)


class ReasonIn(serializers.Serializer[Any]):
    reason = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")


class RetireIn(serializers.Serializer[Any]):
    reason = serializers.CharField(max_length=300)


class ChangeOut(serializers.Serializer[Any]):
    """What a write changed in the knowledge."""

    added = FactOut(many=True)
    retired = FactOut(many=True)
    confirmed = FactOut(many=True)
    disagreements = serializers.ListField(child=serializers.IntegerField(), help_text="Disagreement ids")


class DisagreementOut(serializers.ModelSerializer[Disagreement]):
    owner_fact = FactOut(source="fact")
    source_kind = serializers.CharField(source="source.kind")
    source_ref = serializers.CharField(source="source.ref")
    resulting_fact_id = serializers.IntegerField(allow_null=True)
    can_split = serializers.SerializerMethodField()

    class Meta:
        model = Disagreement
        fields = [
            "id",
            "statement",
            "status",
            "owner_fact",
            "source_id",
            "source_kind",
            "source_ref",
            "created_at",
            "resolved_at",
            "resolved_by",
            "resulting_fact_id",
            "can_split",
        ]

    def get_can_split(self, disagreement: Disagreement) -> bool:
        return bool((disagreement.candidate.get("matched_subject") or {}).get("own_topic"))


class ResolveIn(serializers.Serializer[Any]):
    decision = serializers.ChoiceField(
        choices=[("accept", "The source's value replaces yours"), ("dismiss", "Your value stands")]
    )


class OwnerAnswerIn(serializers.Serializer[Any]):
    question = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")
    answer = serializers.CharField(max_length=5000)
    visibility = serializers.ChoiceField(choices=Visibility.choices, default=Visibility.PUBLIC)


# ----------------------------------------------------------------------------------------------
# Sources


class SourceVersionOut(serializers.ModelSerializer[SourceVersion]):
    class Meta:
        model = SourceVersion
        fields = [
            "id",
            "read_at",
            "outcome",
            "facts_added",
            "facts_confirmed",
            "facts_retired",
            "disagreements",
            "parts_added",
            "parts_removed",
        ]


class SourceOut(serializers.ModelSerializer[Source]):
    class Meta:
        model = Source
        fields = [
            "id",
            "kind",
            "ref",
            "title",
            "visibility",
            "is_active",
            "last_read_at",
            "retired_at",
            "retired_reason",
            "created_at",
        ]


class SourceDetailOut(SourceOut):
    versions = SourceVersionOut(many=True)

    class Meta(SourceOut.Meta):
        fields = [*SourceOut.Meta.fields, "versions"]


class WebsiteOut(serializers.ModelSerializer[WebsiteSettings]):
    class Meta:
        model = WebsiteSettings
        fields = ["start_url", "schedule", "max_pages", "max_depth", "last_sync_at"]
        read_only_fields = ["last_sync_at"]


class WebsiteIn(serializers.Serializer[Any]):
    start_url = serializers.CharField(max_length=500, required=False, allow_blank=True)
    schedule = serializers.ChoiceField(choices=["daily", "weekly", "off"], required=False)
    max_pages = serializers.IntegerField(required=False, min_value=1, max_value=10_000)
    max_depth = serializers.IntegerField(required=False, min_value=0, max_value=100)


class JobOut(serializers.ModelSerializer[IngestionJob]):
    summary = serializers.SerializerMethodField()

    class Meta:
        model = IngestionJob
        fields = [
            "id",
            "kind",
            "status",
            "target",
            "total",
            "done",
            "progress",
            "facts_added",
            "facts_retired",
            "disagreements",
            "error",
            "errors",
            "summary",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
        ]

    def get_summary(self, job: IngestionJob) -> str:
        return job_summary(job)


class JobDetailOut(JobOut):
    report = serializers.JSONField(help_text="The change report: added, retired, disagreements, items")
    report_lines = serializers.SerializerMethodField()

    class Meta(JobOut.Meta):
        fields = [*JobOut.Meta.fields, "report", "report_lines"]

    def get_report_lines(self, job: IngestionJob) -> list[str]:
        return job_report_lines(job)


class UploadIn(serializers.Serializer[Any]):
    file = serializers.FileField()
    visibility = serializers.ChoiceField(choices=Visibility.choices, default=Visibility.PUBLIC)


# ----------------------------------------------------------------------------------------------
# Questions for the owner (gaps)


class QuestionOut(serializers.ModelSerializer[GapTicket]):
    class Meta:
        model = GapTicket
        fields = [
            "id",
            "question",
            "status",
            "asked_count",
            "first_asked_at",
            "last_asked_at",
            "answer",
            "answered_at",
            "answered_by",
            "dismissed_reason",
        ]


class QuestionDetailOut(QuestionOut):
    wordings = serializers.ListField(child=serializers.CharField(), help_text="Other ways visitors asked it")
    retrieval_log = serializers.JSONField(help_text="What the last ask retrieved, and why it fell short")

    class Meta(QuestionOut.Meta):
        fields = [*QuestionOut.Meta.fields, "wordings", "retrieval_log"]


class AnswerIn(serializers.Serializer[Any]):
    answer = serializers.CharField(max_length=5000)


class DismissIn(serializers.Serializer[Any]):
    reason = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")


# ----------------------------------------------------------------------------------------------
# Conversations


class MessageOut(serializers.ModelSerializer[Message]):
    class Meta:
        model = Message
        fields = [
            "id",
            "role",
            "text",
            "created_at",
            "decision",
            "answerer",
            "top_similarity",
            "sources",
            "fact_ids",
            "retrieval_log",
        ]


class ConversationOut(serializers.ModelSerializer[Conversation]):
    turns = serializers.IntegerField(help_text="Visitor messages")
    unanswered = serializers.IntegerField(help_text="Replies that passed the question to the owner")
    first_question = serializers.CharField(allow_null=True)

    class Meta:
        model = Conversation
        fields = [
            "id",
            "visitor_id",
            "channel",
            "origin",
            "contact",
            "started_at",
            "last_at",
            "turns",
            "unanswered",
            "first_question",
        ]


class ConversationDetailOut(serializers.ModelSerializer[Conversation]):
    messages = MessageOut(many=True)

    class Meta:
        model = Conversation
        fields = ["id", "visitor_id", "channel", "origin", "contact", "started_at", "last_at", "messages"]


# ----------------------------------------------------------------------------------------------
# Widget


class WidgetSettingsOut(serializers.ModelSerializer[WidgetSettings]):
    class Meta:
        model = WidgetSettings
        fields = [
            "display_name",
            "primary_color",
            "greeting",
            "allowed_origins",
            "lead_capture_text",
            "show_sources",
            "daily_model_budget",
            "updated_at",
        ]
        read_only_fields = ["updated_at"]
