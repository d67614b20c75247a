"""Security headers Django has no setting for: the Content-Security-Policy that says where the product's
pages may be framed.

No page of the product is meant to be framed by another site: the widget is a script that draws itself
in the customer's page (Shadow DOM), not an iframe, and the portal's live preview uses the same script.
So every response says ``frame-ancestors 'none'`` (X-Frame-Options: DENY says the same to old browsers).
The policy is ``settings.XORVENTA_CONTENT_SECURITY_POLICY``; a view that sets its own header keeps it.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

DEFAULT_POLICY = "frame-ancestors 'none'; base-uri 'self'; object-src 'none'"


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.policy = str(getattr(settings, "XORVENTA_CONTENT_SECURITY_POLICY", DEFAULT_POLICY) or "")

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if self.policy and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = self.policy
        return response
