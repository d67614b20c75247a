"""Every response carries the framing and sniffing headers (issue 16, finding 9), including those made
before the normal middleware runs: the tenant router's 404 for an unknown host or /t/<slug>/, and the
ASGI handler's own 400 for a request Django cannot even build."""

from __future__ import annotations

from pathlib import Path

import pytest
from channels.testing import HttpCommunicator
from django.test import Client

from tests.helpers import run_async
from xorventa.asgi import application

HEADERS = {
    "content-security-policy": "frame-ancestors 'none'",
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
}


def _missing(headers: dict[str, str]) -> dict[str, str | None]:
    headers = {k.lower(): v for k, v in headers.items()}
    return {name: headers.get(name) for name, want in HEADERS.items() if want not in headers.get(name, "")}


@pytest.mark.django_db
def test_responses_made_outside_the_views_carry_the_security_headers(make_business):
    business = make_business("sunny", "Sunny Bakery")
    key = business.public_key
    client = Client()
    cases = [
        ("GET", "nobody.localhost", "/", "", 404),  # unknown host
        ("GET", "evil.example", "/", "", 404),  # not even an allowed host
        ("GET", "localhost", "/t/nope/", "", 404),  # unknown path tenant
        ("GET", "localhost", "/t/sunny/no-such-page/", "", 404),  # a 404 inside a tenant
        ("GET", "sunny.localhost", "/no-such-page/", "", 404),
        ("POST", "localhost", f"/api/v1/widgets/{key}/messages", "[" * 1000 + "]" * 1000, 400),  # parser
        ("POST", "localhost", f"/api/v1/widgets/{key}/messages", "{", 400),
        ("GET", "localhost", f"/api/v1/widgets/{key}/config", "", 200),  # the widget's endpoints
        ("GET", "localhost", "/api/v1/widgets/pk_nope/config", "", 404),
        # WhiteNoise serves collected files only (DEBUG off): a fresh checkout has none, and a 404 must
        # carry the headers as well as the file would.
        (
            "GET",
            "localhost",
            "/static/xorventa/widget.js",
            "",
            200 if _collected("xorventa/widget.js") else 404,
        ),
    ]
    for method, host, path, body, status in cases:
        if method == "GET":
            response = client.get(path, HTTP_HOST=host)
        else:
            response = client.post(path, data=body, content_type="application/json", HTTP_HOST=host)
        assert response.status_code == status, (host, path, response.status_code)
        assert _missing(dict(response.headers)) == {}, (host, path)
    # The widget config is fetched cross-site by every customer's page: still never framed, still CORS.
    config = client.get(f"/api/v1/widgets/{key}/config", HTTP_HOST="localhost")
    assert config["Access-Control-Allow-Origin"] == "*"


@pytest.mark.django_db(transaction=True)
def test_the_asgi_application_adds_the_headers_to_responses_django_makes_before_middleware(make_business):
    make_business("sunny", "Sunny Bakery")

    async def request(host: str, path: str, query: bytes = b"") -> dict:
        communicator = HttpCommunicator(application, "GET", path, headers=[(b"host", host.encode())])
        communicator.scope["query_string"] = query
        return await communicator.get_response(timeout=30)

    cases = [
        # A query string that is not UTF-8: Django's ASGI handler answers 400 before any middleware.
        ("localhost", "/", b"q=\xff\xfe", 400),
        ("nobody.localhost", "/", b"", 404),
        ("localhost", "/t/nope/", b"", 404),
        ("localhost", "/healthz", b"", 200),
    ]
    for host, path, query, status in cases:
        response = run_async(request(host, path, query))
        assert response["status"] == status, (host, path, query, response["status"])
        headers = {k.decode(): v.decode() for k, v in response["headers"]}
        assert _missing(headers) == {}, (host, path, query)
        names = [k.lower() for k, _ in response["headers"]]
        assert len(names) == len(set(names)), names  # added once, never twice


def _collected(name: str) -> bool:
    """WhiteNoise serves the file: it was collected, or WhiteNoise reads the finders (DEBUG, which a
    developer's .env may set for the tests too)."""
    from django.conf import settings

    return settings.WHITENOISE_USE_FINDERS or (Path(settings.STATIC_ROOT) / name).exists()
