"""POST /api/v1/widgets/<key>/feedback: the widget's thumbs up or down on one reply.

The visitor id (random, kept in the visitor's browser) and the reply's id must belong together: a reply
of another visitor or another business is "not found", never rated.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.chat.widget_http import preflight, visitor_id_field, widget_call
from apps.feedback.models import Rating
from apps.feedback.services import MAX_COMMENT_CHARS, FeedbackInputError, FeedbackNotFound, feedback_record


class WidgetFeedbackApi(APIView):
    authentication_classes: list[Any] = []  # the public key and the visitor's id; no session, no CSRF
    permission_classes = [AllowAny]

    class FeedbackInSerializer(serializers.Serializer[dict[str, Any]]):
        visitor_id = visitor_id_field()
        message_id = serializers.IntegerField(min_value=1)
        rating = serializers.ChoiceField(choices=Rating.values)
        comment = serializers.CharField(max_length=MAX_COMMENT_CHARS, required=False, allow_blank=True)

    @extend_schema(
        request=FeedbackInSerializer,
        responses={
            200: inline_serializer(
                "FeedbackSaved", {"message_id": serializers.IntegerField(), "rating": serializers.CharField()}
            ),
            400: OpenApiResponse(description="Invalid input"),
            403: OpenApiResponse(description="Origin not allowed for this widget"),
            404: OpenApiResponse(description="Unknown widget key, or no such reply for this visitor"),
            429: OpenApiResponse(description="Rate limited"),
        },
        summary="Rate one of the assistant's replies (widget)",
    )
    def post(self, request: Request, key: str) -> Response:
        def act(values: dict[str, Any], origin: str) -> Response:
            try:
                recorded = feedback_record(
                    message_id=values["message_id"],
                    visitor_id=values["visitor_id"],
                    rating=values["rating"],
                    comment=values.get("comment", ""),
                )
            except FeedbackInputError as exc:
                code = (
                    status.HTTP_404_NOT_FOUND
                    if isinstance(exc, FeedbackNotFound)
                    else status.HTTP_400_BAD_REQUEST
                )
                return Response({"detail": str(exc)}, status=code)
            return Response({"message_id": recorded.feedback.message_id, "rating": recorded.feedback.rating})

        return widget_call(request, key, self.FeedbackInSerializer, act)

    @extend_schema(exclude=True)
    def options(self, request: Any, *args: Any, **kwargs: Any) -> Response:
        return preflight(request, kwargs["key"])
