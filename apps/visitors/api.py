"""Visitor data over HTTP.

Widget (public key): POST /api/v1/widgets/<key>/identify, the website telling who the visitor is.
Owner (business URLconf, owners and reseller admins): GET /api/v1/visitors/<visitor_id> exports one
visitor's data as JSON; DELETE erases it.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.chat.widget_http import preflight, visitor_id_field, widget_call
from apps.visitors.selectors import visitor_export
from apps.visitors.services import VisitorInputError, visitor_erase, visitor_identify

VISITOR_ID = r"[A-Za-z0-9_-]{1,64}"


class WidgetIdentifyApi(APIView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer[dict[str, Any]]):
        visitor_id = visitor_id_field()
        email = serializers.CharField(max_length=200)
        name = serializers.CharField(max_length=200, required=False, allow_blank=True)
        consent = serializers.CharField(max_length=1000, required=False, allow_blank=True)

    @extend_schema(
        request=InputSerializer,
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

        return widget_call(request, key, self.InputSerializer, act)

    @extend_schema(exclude=True)
    def options(self, request: Any, *args: Any, **kwargs: Any) -> Response:
        return preflight(request, kwargs["key"])


class VisitorDataApi(APIView):
    permission_classes = [IsAuthenticated]

    def _gate(self, request: Request) -> None:
        from apps.accounts.access import BUSINESS_ROLES_MANAGE, access_business

        access_business(request.user, request.tenant, roles=BUSINESS_ROLES_MANAGE)  # type: ignore[attr-defined]

    @extend_schema(
        responses={200: OpenApiTypes.OBJECT, 404: OpenApiResponse(description="No data about this visitor")},
        summary="Export one visitor's conversations, contact details and questions (JSON)",
    )
    def get(self, request: Request, visitor_id: str) -> Response:
        self._gate(request)
        data = visitor_export(visitor_id=visitor_id)
        if not (data["conversations"] or data["contacts"] or data["questions_for_owner"]):
            return Response({"detail": "No data about this visitor."}, status=status.HTTP_404_NOT_FOUND)
        response = Response(data)
        response["Content-Disposition"] = f'attachment; filename="visitor-{visitor_id}.json"'
        return response

    @extend_schema(
        responses={
            200: inline_serializer(
                "VisitorErased",
                {
                    "conversations": serializers.IntegerField(),
                    "messages": serializers.IntegerField(),
                    "contacts": serializers.IntegerField(),
                    "asks": serializers.IntegerField(),
                },
            )
        },
        summary="Delete one visitor's conversations, messages, contact details and leads",
    )
    def delete(self, request: Request, visitor_id: str) -> Response:
        self._gate(request)
        erased = visitor_erase(visitor_id=visitor_id)
        return Response(asdict(erased))
