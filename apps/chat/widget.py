"""The widget as a visitor sees it: its settings row and the business identity it shows.

Apart from the turn service so that everything the widget's settings feed (the turn, the handoff, the
API, the portal) can read them without importing the turn.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

from apps.chat import limits
from apps.chat.models import WidgetSettings
from apps.facts.extraction.guard import host_of
from apps.facts.ingestion import website_settings_get
from apps.tenants.db import current_schema
from apps.tenants.models import Business


def widget_settings() -> WidgetSettings:
    settings_row = WidgetSettings.objects.first()
    if settings_row is None:
        settings_row = WidgetSettings.objects.create()
    return settings_row


def business_identity() -> dict[str, Any]:
    """What the widget shows: name, colours, greeting, white-label (from the reseller)."""
    business = Business.objects.select_related("reseller").get(schema_name=current_schema())
    widget = widget_settings()
    return {
        "name": widget.display_name or business.name,
        "color": widget.primary_color,
        "greeting": widget.greeting,
        "lead_capture_text": widget.lead_capture_text,
        "show_sources": widget.show_sources,
        "powered_by": business.reseller.show_powered_by,
        "product_name": business.reseller.product_name,
        "allowed_hosts": sorted(_allowed_hosts(widget)),
        # the widget's character counter counts down to the limit the server enforces
        "max_message_chars": limits.MAX_MESSAGE_CHARS,
    }


def _allowed_hosts(widget: WidgetSettings) -> set[str]:
    """Hosts an answer may link to: the sites the widget is embedded in and the business's own website
    (the one its pages are crawled from: facts from its pages keep links to it, and only to it)."""
    hosts = set()
    for origin in widget.allowed_origins or []:
        host = urlparse(origin).hostname
        if host:
            hosts.add(host.lstrip("*."))
    website = host_of(website_settings_get().start_url or "")
    if website:
        hosts.add(website)
    return hosts
