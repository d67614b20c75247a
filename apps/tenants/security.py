"""Security headers on every response, including those made before the views' middleware runs.

No page of the product is meant to be framed by another site: the widget is a script that draws itself
in the customer's page (Shadow DOM), not an iframe, and the portal's live preview uses the same script.
So every response says ``frame-ancestors 'none'`` (X-Frame-Options: DENY says the same to old browsers),
``nosniff`` and the referrer policy. The policy is ``settings.XORVENTA_CONTENT_SECURITY_POLICY``; a view
that sets its own header keeps it.

Django's SecurityMiddleware and XFrameOptionsMiddleware set most of these, but only on responses that
pass through them: the tenant router (before them) answers unknown hosts and /t/<slug>/ itself, and
Django's ASGI handler answers a request it cannot build (a query string that is not UTF-8) before any
middleware. Hence two places, both adding only what is missing:

- ``SecurityHeadersMiddleware``, first in MIDDLEWARE: every response of the Django stack (WSGI, ASGI and
  the test client alike);
- ``SecurityHeadersASGI``, around the ASGI HTTP application: the responses Django's handler makes itself.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse

DEFAULT_POLICY = "frame-ancestors 'none'; base-uri 'self'; object-src 'none'"


def security_headers() -> dict[str, str]:
    """The headers every response carries unless it set its own, from the settings."""
    headers = {}
    policy = str(getattr(settings, "XORVENTA_CONTENT_SECURITY_POLICY", DEFAULT_POLICY) or "")
    if policy:
        headers["Content-Security-Policy"] = policy
    headers["X-Frame-Options"] = str(getattr(settings, "X_FRAME_OPTIONS", "DENY"))
    if settings.SECURE_CONTENT_TYPE_NOSNIFF:
        headers["X-Content-Type-Options"] = "nosniff"
    referrer = settings.SECURE_REFERRER_POLICY
    if referrer:
        headers["Referrer-Policy"] = referrer if isinstance(referrer, str) else ",".join(referrer)
    return headers


class SecurityHeadersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.headers = security_headers()

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        for name, value in self.headers.items():
            if name == "X-Frame-Options" and getattr(response, "xframe_options_exempt", False):
                continue  # Django's own opt-out (@xframe_options_exempt) stays an opt-out
            if name not in response:
                response[name] = value
        return response


Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]


class SecurityHeadersASGI:
    def __init__(self, app: Callable[..., Awaitable[None]]) -> None:
        self.app = app
        self.headers = [(k.lower().encode(), v.encode()) for k, v in security_headers().items()]

    async def __call__(self, scope: Scope, receive: Any, send: Callable[[Message], Awaitable[None]]) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {bytes(name).lower() for name, _ in message.get("headers", [])}
                missing = [(k, v) for k, v in self.headers if k not in present]
                if missing:
                    message = dict(message, headers=[*message.get("headers", []), *missing])
            await send(message)

        return await self.app(scope, receive, send_with_headers)
