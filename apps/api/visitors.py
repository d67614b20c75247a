"""One visitor's data (issue 21, item 6): export it as JSON, or erase it. A read-write key is needed to
erase; a visitor the business holds nothing about is a 404 for both."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from apps.api.base import ApiView
from apps.visitors.selectors import visitor_export, visitor_held
from apps.visitors.services import visitor_erase

TAG = ["visitors"]
VISITOR_ID = r"[A-Za-z0-9_-]{1,64}"


class _Feedback(serializers.Serializer[Any]):
    rating = serializers.ChoiceField(choices=["up", "down"])
    comment = serializers.CharField(allow_blank=True)


class _Message(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    role = serializers.CharField()
    text = serializers.CharField(allow_blank=True)
    at = serializers.DateTimeField()
    sources = serializers.ListField(child=serializers.CharField(), required=False)
    feedback = _Feedback(required=False)


class _Conversation(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    channel = serializers.CharField()
    origin = serializers.CharField(allow_blank=True)
    started_at = serializers.DateTimeField()
    last_at = serializers.DateTimeField()
    contact = serializers.CharField(allow_blank=True)
    contact_consent_at = serializers.DateTimeField(allow_null=True)
    messages = _Message(many=True)


class _Contact(serializers.Serializer[Any]):
    name = serializers.CharField(allow_blank=True)
    contact = serializers.CharField()
    source = serializers.ChoiceField(choices=["lead_form", "identify"])  # type: ignore[assignment]
    consent_text = serializers.CharField()
    consented_at = serializers.DateTimeField()
    conversation_id = serializers.IntegerField(allow_null=True)


class _Ask(serializers.Serializer[Any]):
    question = serializers.CharField()
    asked_at = serializers.DateTimeField()
    contact = serializers.CharField(allow_blank=True)
    conversation_id = serializers.IntegerField(allow_null=True)


class VisitorExportOut(serializers.Serializer[Any]):
    visitor_id = serializers.CharField()
    exported_at = serializers.DateTimeField()
    conversations = _Conversation(many=True)
    contacts = _Contact(many=True)
    questions_for_owner = _Ask(many=True)


class VisitorErasedOut(serializers.Serializer[Any]):
    conversations = serializers.IntegerField()
    messages = serializers.IntegerField()
    contacts = serializers.IntegerField()
    asks = serializers.IntegerField()


class VisitorData(ApiView):
    pagination_class = None

    def _held(self, visitor_id: str) -> None:
        if not visitor_held(visitor_id=visitor_id):
            raise exceptions.NotFound("This business holds no data about that visitor.")

    @extend_schema(tags=TAG, responses=VisitorExportOut)
    def get(self, request: Request, visitor_id: str) -> Response:
        """Everything held about one visitor: conversations with every message and its feedback,
        contact details with the consent they were given under, their questions for the owner."""
        self._held(visitor_id)
        return Response(visitor_export(visitor_id=visitor_id))

    @extend_schema(tags=TAG, request=None, responses=VisitorErasedOut)
    def delete(self, request: Request, visitor_id: str) -> Response:
        """Delete one visitor's conversations, messages, feedback, contact details and leads. Their
        questions stay in the owner's list, without who asked."""
        self._held(visitor_id)
        return Response(asdict(visitor_erase(visitor_id=visitor_id)))
