"""Widget settings: name, colour, greeting, allowed sites, the contact request, sources shown."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from apps.api import serializers as out
from apps.api.base import ApiView
from apps.chat.widget import widget_settings
from apps.portal.forms import WidgetSettingsForm


class WidgetSettingsIn(serializers.Serializer[Any]):
    display_name = serializers.CharField(max_length=120, required=False, allow_blank=True)
    primary_color = serializers.CharField(max_length=7, required=False, help_text="#rrggbb")
    greeting = serializers.CharField(max_length=300, required=False)
    allowed_origins = serializers.ListField(
        child=serializers.CharField(max_length=300), required=False, max_length=100
    )
    lead_capture_text = serializers.CharField(max_length=400, required=False)
    show_sources = serializers.BooleanField(required=False)


class Widget(ApiView):
    @extend_schema(tags=["widget"], responses=out.WidgetSettingsOut)
    def get(self, request: Request) -> Response:
        return Response(out.WidgetSettingsOut(widget_settings()).data)

    @extend_schema(tags=["widget"], request=WidgetSettingsIn, responses=out.WidgetSettingsOut)
    def patch(self, request: Request) -> Response:
        """Change some settings; the rest stay. Validated by the portal's own form (colours, sites)."""
        data = self.valid(WidgetSettingsIn)
        current = widget_settings()
        fields = dict(out.WidgetSettingsOut(current).data)
        fields.update(data)
        fields["allowed_origins"] = "\n".join(fields.get("allowed_origins") or [])
        form = WidgetSettingsForm(data={k: v for k, v in fields.items() if v is not False}, instance=current)
        if not form.is_valid():
            raise serializers.ValidationError(
                {field: [str(e) for e in errors] for field, errors in form.errors.items()}
            )
        return Response(out.WidgetSettingsOut(form.save()).data)
