"""The same conversation over HTTP, for integrations: POST /api/v1/widgets/<key>/messages.

With ``Accept: text/event-stream`` the answer streams as server-sent events (start, delta..., end);
otherwise one JSON object. The public key resolves the business; when the request carries an Origin it
must be on the widget's allow-list (browsers always send one cross-site; servers integrating by API
send none and are held to the same rate limits).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from django.http import StreamingHttpResponse
from django_tenants.utils import schema_context
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.access import access_business
from apps.chat import limits
from apps.chat.drafts import draft_reply
from apps.chat.models import Channel
from apps.chat.origins import origin_allowed
from apps.chat.services import TurnEnded, TurnStarted, answer_once, conversation_open, turn_run
from apps.chat.widget import business_identity, widget_settings
from apps.tenants.context import iterate_in_schema
from apps.tenants.db import use_public_schema
from apps.tenants.models import Business


def _business(key: str) -> Business | None:
    use_public_schema()
    return Business.objects.filter(public_key=key, is_active=True).first()


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


class AnswerOutput(serializers.Serializer[dict[str, Any]]):
    conversation_id = serializers.IntegerField()
    message_id = serializers.IntegerField(allow_null=True)
    text = serializers.CharField(allow_blank=True)
    decision = serializers.ChoiceField(choices=["answer", "unknown", "gate", "handoff", "held"])
    sources = serializers.ListField(child=serializers.CharField())


class EventStreamRenderer(BaseRenderer):
    """Lets content negotiation accept `Accept: text/event-stream`; the view streams the events itself."""

    media_type = "text/event-stream"
    format = "sse"

    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None
    ) -> bytes:
        return _sse("error", data if isinstance(data, dict) else {"detail": str(data)})


class WidgetMessagesApi(APIView):
    authentication_classes: list[Any] = []  # the public key is the credential; no session, no CSRF
    permission_classes = [AllowAny]
    renderer_classes = [JSONRenderer, EventStreamRenderer]

    class InputSerializer(serializers.Serializer[dict[str, Any]]):
        text = serializers.CharField(max_length=limits.MAX_MESSAGE_CHARS, trim_whitespace=True)
        visitor_id = serializers.RegexField(r"^[A-Za-z0-9_-]{8,64}$")
        conversation_id = serializers.IntegerField(required=False)

    @extend_schema(
        request=InputSerializer,
        responses={
            200: OpenApiResponse(
                AnswerOutput,
                description="JSON answer; with Accept: text/event-stream, server-sent events "
                "`start`, `delta` ({text}) and `end` ({decision, sources, message_id}).",
            ),
            403: OpenApiResponse(description="Origin not allowed for this widget"),
            404: OpenApiResponse(description="Unknown widget key"),
            429: OpenApiResponse(description="Rate limited"),
        },
        summary="Ask the business's assistant a question",
    )
    def post(self, request: Request, key: str) -> Any:
        business = _business(key)
        if business is None:
            return Response({"detail": "Unknown widget."}, status=status.HTTP_404_NOT_FOUND)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        origin = request.headers.get("Origin")

        with schema_context(business.schema_name):
            if origin and not origin_allowed(origin, list(widget_settings().allowed_origins or [])):
                return Response(
                    {"detail": "This site may not use the widget."}, status=status.HTTP_403_FORBIDDEN
                )
            try:
                text = limits.check_message(data.validated_data["text"])
                limits.check_rates(
                    public_key=key,
                    visitor_id=data.validated_data["visitor_id"],
                    ip=request.META.get("REMOTE_ADDR", ""),
                )
            except limits.Refused as refused:
                code = status.HTTP_429_TOO_MANY_REQUESTS if refused.code == "rate_limited" else 400
                return Response({"detail": refused.message, "code": refused.code}, status=code)
            conversation = conversation_open(
                visitor_id=data.validated_data["visitor_id"],
                channel=Channel.API,
                origin=origin or "",
                conversation_id=data.validated_data.get("conversation_id"),
            )
        if "text/event-stream" in request.headers.get("Accept", ""):
            stream = _answer_events(business.schema_name, conversation.pk, text)
            response = StreamingHttpResponse(stream, content_type="text/event-stream")
            response["Cache-Control"] = "no-cache"
            response["X-Accel-Buffering"] = "no"
            return response

        with schema_context(business.schema_name):
            turn, message = answer_once(conversation_id=conversation.pk, text=text)
        return Response(  # no message when a person answers the conversation (decision "held")
            {
                "conversation_id": conversation.pk,
                "message_id": message.pk if message else None,
                "text": message.text if message else "",
                "decision": turn.decision,
                "sources": message.sources if message else [],
            }
        )


async def _answer_events(schema_name: str, conversation_id: int, text: str) -> AsyncIterator[bytes]:
    turn = lambda: turn_run(conversation_id=conversation_id, text=text)  # noqa: E731
    async for event in iterate_in_schema(schema_name, turn):
        if isinstance(event, TurnStarted):
            yield _sse("start", {"conversation_id": conversation_id})
        elif isinstance(event, TurnEnded):
            message = event.message  # None: a person answers this conversation (decision "held")
            end = {
                "decision": event.turn.decision,
                "sources": message.sources if message else [],
                "message_id": message.pk if message else None,
            }
            yield _sse("end", end)
        else:
            yield _sse("delta", {"text": event})


class WidgetConfigApi(APIView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    @extend_schema(
        responses={200: OpenApiTypes.OBJECT}, summary="What the widget shows (name, colours, greeting)"
    )
    def get(self, request: Request, key: str) -> Response:
        business = _business(key)
        if business is None:
            return Response({"detail": "Unknown widget."}, status=status.HTTP_404_NOT_FOUND)

        with schema_context(business.schema_name):
            identity = business_identity()
        identity.pop("allowed_hosts", None)
        response = Response(identity)
        # Public, credential-free data that every customer site's widget fetches.
        response["Access-Control-Allow-Origin"] = "*"
        return response


class DraftApi(APIView):
    """An owner pastes an email or DM and gets a reply draft from the same knowledge, with its sources."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer[dict[str, Any]]):
        text = serializers.CharField(max_length=20000)

    @extend_schema(
        request=InputSerializer,
        responses={
            200: inline_serializer(
                "Draft",
                {
                    "draft": serializers.CharField(),
                    "sources": serializers.ListField(),
                    "decision": serializers.CharField(),
                    "reranked": serializers.BooleanField(),
                },
            )
        },
        summary="Draft a reply to an email or direct message (owner, staff)",
    )
    def post(self, request: Request) -> Response:
        access_business(request.user, request.tenant)  # type: ignore[attr-defined]
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        draft = draft_reply(text=data.validated_data["text"], actor=str(request.user))
        return Response(draft)
