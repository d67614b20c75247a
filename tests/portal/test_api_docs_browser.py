"""The API docs (Swagger UI and Redoc) render in a real browser with no network but this server.

The server is the widget tests' daphne subprocess (DEBUG off, static files collected into its own data
dir, served by WhiteNoise). Chromium aborts every request to a host that is not this machine, as a
machine without internet would; the page must still show the API's operations, and no request may
have tried another host (drf-spectacular's defaults load both UIs from jsdelivr at @latest, and Redoc
from Google Fonts too).
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.chat.test_widget_browser import CHROMIUM, CHROMIUM_ARGS, server, sync_playwright

__all__ = ["server"]  # the module-scoped live server fixture, shared with the widget tests

LOCAL_HOSTS = {"127.0.0.1", "localhost"}
HTTP_METHODS = {"get", "put", "post", "delete", "patch"}

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="browser tests need Chromium at /usr/bin/chromium"),
    pytest.mark.skipif(sync_playwright is None, reason="browser tests need the playwright package"),
    pytest.mark.django_db(transaction=True),
]


@pytest.fixture
def offline_page(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Any, list[str]]]:
    """A tab whose requests to any non-loopback host are aborted; yields it and the list of those URLs."""
    assert sync_playwright is not None
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    external: list[str] = []

    def route(r: Any) -> None:
        url = r.request.url
        if urlsplit(url).scheme in ("data", "blob") or urlsplit(url).hostname in LOCAL_HOSTS:
            r.continue_()
        else:
            external.append(url)
            r.abort("internetdisconnected")

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = browser.new_context()
            context.route("**/*", route)
            page = context.new_page()
            page.set_default_timeout(20_000)
            yield page, external
            context.close()
        finally:
            browser.close()


def _operations(server: dict[str, Any]) -> list[dict[str, Any]]:
    """The operations of the public site's live schema (the page must show every one of them)."""
    with urllib.request.urlopen(f"{server['url']}/api/schema/?format=json", timeout=10) as response:
        schema = json.load(response)
    ops = [op for item in schema["paths"].values() for method, op in item.items() if method in HTTP_METHODS]
    assert any(op.get("summary") for op in ops), "the schema has no operation summary to look for"
    return ops


def _open(page: Any, url: str) -> None:
    page.add_init_script(
        "document.addEventListener('securitypolicyviolation', e =>"
        " (window.__csp = window.__csp || []).push([e.effectiveDirective, e.blockedURI]));"
    )
    response = page.goto(url, wait_until="networkidle")
    assert response is not None and response.status == 200
    assert "'self'" in (response.headers.get("content-security-policy") or "")


def _refused_loads(page: Any) -> list[list[str]]:
    """What the page's policy refused, except images: Redoc's sidebar credit always asks cdn.redoc.ly
    for a logo (no option turns it off); the policy refuses it before any request leaves the browser,
    and Redoc then hides the image. A refused script, style, font or fetch would break the page."""
    refused = page.evaluate("window.__csp || []")
    return [v for v in refused if v[0] != "img-src"]


def test_swagger_ui_renders_offline(server: dict[str, Any], offline_page: tuple[Any, list[str]]) -> None:
    page, external = offline_page
    ops = _operations(server)
    _open(page, f"{server['url']}/api/docs/")
    for op in ops:
        if op.get("summary"):
            page.locator(".opblock-summary-description", has_text=op["summary"]).first.wait_for(
                state="visible"
            )
    assert page.locator(".opblock").count() == len(ops)
    assert external == [], f"the docs page asked other hosts: {external}"
    assert _refused_loads(page) == []


def test_redoc_renders_offline(server: dict[str, Any], offline_page: tuple[Any, list[str]]) -> None:
    page, external = offline_page
    ops = _operations(server)
    _open(page, f"{server['url']}/api/redoc/")
    page.locator("h1", has_text="Xorventa API").first.wait_for(state="visible")
    for op in ops:
        if op.get("summary"):
            page.locator("h2", has_text=op["summary"]).first.wait_for(state="visible")
    assert page.locator("div[data-section-id^='operation/']").count() == len(ops)
    assert external == [], f"the docs page asked other hosts: {external}"
    assert _refused_loads(page) == []
