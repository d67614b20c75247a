"""Outbound requests to addresses a user supplied (a business's website; later, webhooks).

The lowest layer: imports no app, so any app can use it. Every request to a user-supplied URL goes
through ``guarded_client`` (an ``httpx.Client`` whose transport checks each request, redirects included,
and connects to the address it checked) or is checked first with ``check_url``. See guard.py and
docs/security.md ("Outbound requests").
"""

from apps.outbound.guard import (
    OutboundPolicy,
    OutboundRefused,
    ResolvedTarget,
    allow_local_server,
    check_url,
    check_url_literal,
    guarded_client,
)

__all__ = [
    "OutboundPolicy",
    "OutboundRefused",
    "ResolvedTarget",
    "allow_local_server",
    "check_url",
    "check_url_literal",
    "guarded_client",
]
