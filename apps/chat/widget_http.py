"""What the widget's small HTTP calls share (feedback, identify): the public key resolves the business,
a browser's Origin must be on the widget's allow-list, and CORS answers name that origin only.

Browsers send these cross-site (the widget runs on the business's own site), with a JSON body, so they
preflight; the preflight gets the same origin check. Servers may call without an Origin, held to the
same rate limits as the widget.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django_tenants.utils import schema_context
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from apps.chat import limits
from apps.chat.origins import origin_allowed
from apps.chat.widget import widget_settings
from apps.tenants.db import use_public_schema
from apps.tenants.models import Business


class WidgetRefused(Exception):
    def __init__(self, response: Response) -> None:
        super().__init__(str(response.data))
        self.response = response


def widget_business(key: str) -> Business:
    use_public_schema()
    business = Business.objects.filter(public_key=key, is_active=True).first()
    if business is None:
        raise WidgetRefused(Response({"detail": "Unknown widget."}, status=status.HTTP_404_NOT_FOUND))
    return business


def widget_origin_check(request: Request, business: Business) -> str:
    """The request's Origin ("" for a server-side call), or WidgetRefused when the site may not."""
    origin = request.headers.get("Origin", "")
    if origin:
        with schema_context(business.schema_name):
            allowed = list(widget_settings().allowed_origins or [])
        if not origin_allowed(origin, allowed):
            raise WidgetRefused(
                Response({"detail": "This site may not use the widget."}, status=status.HTTP_403_FORBIDDEN)
            )
    return origin


def widget_rates_check(request: Request, key: str, visitor_id: str) -> None:
    try:
        limits.check_rates(public_key=key, visitor_id=visitor_id, ip=request.META.get("REMOTE_ADDR", ""))
    except limits.Refused as refused:
        raise WidgetRefused(
            Response(
                {"detail": refused.message, "code": refused.code}, status=status.HTTP_429_TOO_MANY_REQUESTS
            )
        ) from None


def with_cors(response: Response, origin: str) -> Response:
    if origin:
        response["Access-Control-Allow-Origin"] = origin
        response["Vary"] = "Origin"
    return response


def preflight(request: Request, key: str) -> Response:
    """The answer to a browser's OPTIONS before a cross-site POST: allowed origins only, no cookies."""
    try:
        origin = widget_origin_check(request, widget_business(key))
    except WidgetRefused as refused:
        return refused.response
    response = Response(status=status.HTTP_204_NO_CONTENT)
    response["Access-Control-Allow-Methods"] = "POST, OPTIONS"
    response["Access-Control-Allow-Headers"] = "Content-Type"
    response["Access-Control-Max-Age"] = "600"
    return with_cors(response, origin)


def widget_call(
    request: Request,
    key: str,
    serializer_class: type[Any],
    act: Callable[[dict[str, Any], str], Response],
) -> Response:
    """One widget call: business, origin, input, rate limits, then ``act(validated data, origin)`` in
    the business's schema; every answer, refusals included, carries the CORS header for an allowed
    origin (so the widget can read the reason)."""
    origin = ""
    try:
        business = widget_business(key)
        origin = widget_origin_check(request, business)
        data = serializer_class(data=request.data)
        if not data.is_valid():
            return with_cors(Response(data.errors, status=status.HTTP_400_BAD_REQUEST), origin)
        widget_rates_check(request, key, data.validated_data["visitor_id"])
        with schema_context(business.schema_name):
            return with_cors(act(data.validated_data, origin), origin)
    except WidgetRefused as refused:
        return with_cors(refused.response, origin)


def visitor_id_field() -> Any:
    return serializers.RegexField(r"^[A-Za-z0-9_-]{8,64}$")
