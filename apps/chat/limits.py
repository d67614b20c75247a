"""Limits on the public widget: message size, rate limits per visitor, per IP and per widget, and the
business's daily budget of language-model calls. A refused message costs no retrieval and no model call.

Counters live in the "global" cache alias, which has no tenant prefix: a per-IP limit must count one
address across every business it talks to (django-tenants' key function would split it per tenant).
"""

from __future__ import annotations

import time

from django.conf import settings
from django.core.cache import caches

from apps.tenants.rate_limits import Limit, limit_exceeded

MAX_MESSAGE_CHARS = getattr(settings, "XORVENTA_MAX_MESSAGE_CHARS", 1000)


PER_VISITOR = Limit("visitor", int(getattr(settings, "XORVENTA_RATE_VISITOR_PER_MIN", 20)), 60)
PER_IP = Limit("ip", int(getattr(settings, "XORVENTA_RATE_IP_PER_MIN", 60)), 60)
PER_WIDGET = Limit("widget", int(getattr(settings, "XORVENTA_RATE_WIDGET_PER_MIN", 600)), 60)


class Refused(Exception):
    def __init__(self, code: str, message: str, retry_after: int = 0) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after


def check_message(text: str) -> str:
    text = (text or "").strip()
    if not text:
        raise Refused("empty", "Type a question first.")
    if len(text) > MAX_MESSAGE_CHARS:
        raise Refused("too_long", f"Messages can be at most {MAX_MESSAGE_CHARS} characters.")
    return text


def check_rates(*, public_key: str, visitor_id: str, ip: str) -> None:
    """Count this message against every limit; raise Refused when one is exceeded."""
    for limit, key in (
        (PER_WIDGET, public_key),
        (PER_IP, ip or "unknown"),
        (PER_VISITOR, f"{public_key}:{visitor_id}"),
    ):
        if limit_exceeded(limit, key):
            raise Refused(
                "rate_limited",
                "You're sending messages faster than we can answer. Please wait a moment.",
                retry_after=limit.seconds,
            )


def model_budget_take(*, schema_name: str, daily_budget: int) -> bool:
    """Take one language-model call from the business's budget for today; False when spent."""
    cache = caches["global"]
    day = time.strftime("%Y%m%d", time.gmtime())
    key = f"budget:{schema_name}:{day}"
    if cache.add(key, 1, timeout=2 * 86400):
        return daily_budget >= 1
    return int(cache.incr(key)) <= daily_budget
