"""Conversations: list and filter, read one with each reply's retrieval log, export as JSON."""

from __future__ import annotations

from datetime import UTC
from typing import Any

import django_filters
from django import forms
from django.db.models import Count, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.shortcuts import get_object_or_404
from django_filters.fields import IsoDateTimeField
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from apps.api import serializers as out
from apps.api.base import ApiView
from apps.chat.models import Channel, Conversation, Decision, Message
from apps.chat.models import Role as MessageRole

TAG = ["conversations"]
EXPORT_LIMIT = 5000


def _conversations() -> QuerySet[Conversation]:
    first_question = (
        Message.objects.filter(conversation=OuterRef("pk"), role=MessageRole.VISITOR)
        .order_by("created_at", "id")
        .values("text")[:1]
    )
    return Conversation.objects.annotate(
        turns=Count("messages", filter=Q(messages__role=MessageRole.VISITOR)),
        unanswered=Count("messages", filter=Q(messages__decision=Decision.UNKNOWN)),
        first_question=Subquery(first_question),
    )


class UtcIsoDateTimeField(IsoDateTimeField):
    """An ISO time in UTC: PostgreSQL refuses UTC offsets beyond ±15:59 that Python accepts (±23:59),
    and a time near the calendar's ends may not exist in UTC (found by schemathesis: a 500)."""

    def clean(self, value: Any) -> Any:
        found = super().clean(value)
        if found is None:
            return None
        try:
            return found.astimezone(UTC)
        except OverflowError:
            raise forms.ValidationError("That time is out of range.") from None


class UtcDateTimeFilter(django_filters.IsoDateTimeFilter):
    field_class = UtcIsoDateTimeField


class ConversationFilter(django_filters.FilterSet):
    channel = django_filters.ChoiceFilter(choices=Channel.choices)
    since = UtcDateTimeFilter(field_name="started_at", lookup_expr="gte", help_text="ISO 8601 time")
    until = UtcDateTimeFilter(field_name="started_at", lookup_expr="lt", help_text="ISO 8601 time")
    visitor = django_filters.CharFilter(field_name="visitor_id", max_length=64)
    has_contact = django_filters.BooleanFilter(method="filter_has_contact")
    unanswered = django_filters.BooleanFilter(
        method="filter_unanswered", help_text="Only those with (true) or without (false) unanswered replies"
    )

    class Meta:
        model = Conversation
        fields = ["channel", "since", "until", "visitor", "has_contact", "unanswered"]

    def filter_has_contact(self, queryset: QuerySet[Conversation], name: str, value: bool) -> Any:
        return queryset.exclude(contact="") if value else queryset.filter(contact="")

    def filter_unanswered(self, queryset: QuerySet[Conversation], name: str, value: bool) -> Any:
        # ``unanswered`` is the list's annotation (_conversations).
        return queryset.filter(unanswered__gt=0) if value else queryset.filter(unanswered=0)  # type: ignore[misc]


class ConversationList(ApiView):
    filter_backends = [DjangoFilterBackend]
    filterset_class = ConversationFilter

    def get_queryset(self) -> QuerySet[Conversation]:
        return _conversations()

    @extend_schema(tags=TAG, responses=out.ConversationOut(many=True))
    def get(self, request: Request) -> Response:
        """Conversations, newest first; filter by channel, start time, visitor, contact, unanswered."""
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(out.ConversationOut(page, many=True).data)


def _with_messages(queryset: QuerySet[Conversation]) -> QuerySet[Conversation]:
    return queryset.prefetch_related(
        Prefetch("messages", queryset=Message.objects.order_by("created_at", "id"))
    )


class ConversationDetail(ApiView):
    @extend_schema(tags=TAG, responses=out.ConversationDetailOut)
    def get(self, request: Request, pk: int) -> Response:
        """One conversation, every message in order, with what each reply retrieved and why."""
        conversation = get_object_or_404(_with_messages(Conversation.objects.all()), pk=pk)
        return Response(out.ConversationDetailOut(conversation).data)


class ExportOut(serializers.Serializer[Any]):
    count = serializers.IntegerField()
    truncated = serializers.BooleanField(help_text=f"More than {EXPORT_LIMIT} matched: narrow the dates")
    conversations = out.ConversationDetailOut(many=True)


class ConversationExport(ApiView):
    filter_backends = [DjangoFilterBackend]
    filterset_class = ConversationFilter
    pagination_class = None

    def get_queryset(self) -> QuerySet[Conversation]:
        return _conversations()

    @extend_schema(tags=TAG, responses=ExportOut)
    def get(self, request: Request) -> Response:
        """The matching conversations with all of their messages, as one JSON file (newest first)."""
        found = list(
            _with_messages(self.filter_queryset(self.get_queryset()).order_by("-id"))[: EXPORT_LIMIT + 1]
        )
        data = {
            "count": min(len(found), EXPORT_LIMIT),
            "truncated": len(found) > EXPORT_LIMIT,
            "conversations": found[:EXPORT_LIMIT],
        }
        response = Response(ExportOut(data).data)
        response["Content-Disposition"] = 'attachment; filename="conversations.json"'
        return response
