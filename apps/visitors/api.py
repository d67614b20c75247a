"""The widget's identify call (public key): POST /api/v1/widgets/<key>/identify, the website telling
who the visitor is. The owner's export and erasure are in the v1 API (apps/api/visitors.py)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.chat.widget_http import preflight, visitor_id_field, widget_call
from apps.visitors.services import VisitorInputError, visitor_identify

VISITOR_ID = r"[A-Za-z0-9_-]{1,64}"


class WidgetIdentifyApi(APIView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    class IdentifyInSerializer(serializers.Serializer[dict[str, Any]]):
        visitor_id = visitor_id_field()
        email = serializers.CharField(max_length=200)
        name = serializers.CharField(max_length=200, required=False, allow_blank=True)
        consent = serializers.CharField(max_length=1000, required=False, allow_blank=True)

    @extend_schema(
        request=IdentifyInSerializer,
        responses={
            200: inline_serializer("Identified", {"ok": serializers.BooleanField()}),
            400: OpenApiResponse(description="Invalid input"),
            403: OpenApiResponse(description="Origin not allowed for this widget"),
            404: OpenApiResponse(description="Unknown widget key"),
            429: OpenApiResponse(description="Rate limited"),
        },
        summary="Tell the business who the visitor is (widget's Xorventa.identify)",
    )
    def post(self, request: Request, key: str) -> Response:
        def act(values: dict[str, Any], origin: str) -> Response:
            try:
                visitor_identify(
                    visitor_id=values["visitor_id"],
                    name=values.get("name", ""),
                    email=values["email"],
                    consent_text=values.get("consent", ""),
                    origin=origin,
                )
            except VisitorInputError as exc:
                return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
            return Response({"ok": True})

        return widget_call(request, key, self.IdentifyInSerializer, act)

    @extend_schema(exclude=True)
    def options(self, request: Any, *args: Any, **kwargs: Any) -> Response:
        return preflight(request, kwargs["key"])
