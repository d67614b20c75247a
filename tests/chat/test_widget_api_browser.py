"""The widget's JavaScript API in a real browser, on a page of another origin than the server: the
site queues calls before the script loads (``Xorventa("on", ...)``), then opens the widget, asks a
question and receives the answer event; thumbs up/down and identify() reach the business's schema;
the site's language and greeting overrides are applied. Same servers as tests/chat/test_widget_browser.py
(daphne in a subprocess on the test database, a static site on another port)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django_tenants.utils import tenant_context

from tests.chat import test_widget_browser as _base

# The servers and the browser of the widget's own browser test (module fixtures, used by name).
pytestmark = _base.pytestmark
server, site, browser, shop = _base.server, _base.site, _base.browser, _base.shop
_CONTEXTS = _base._CONTEXTS

# The first question loads the embedding model in the server process (slow on a busy machine).
ANSWER_TIMEOUT_MS = 150_000

API_PAGE = """<!doctype html>
<html lang="fr"><head><meta charset="utf-8"><title>Boulangerie</title>
<script>
  window.XorventaSettings = {{ language: "fr", greeting: "Bonjour ! Posez-nous votre question.",
                               texts: {{ placeholder: "Votre question…", helpful: "Utile", not_helpful: "Pas utile" }} }};
  window.Xorventa = window.Xorventa || function () {{ (window.Xorventa.q = window.Xorventa.q || []).push(arguments); }};
  window.seen = [];
  Xorventa("on", "open", function (e) {{ seen.push(["open", e]); }});
  Xorventa("on", "answer", function (e) {{ seen.push(["answer", e]); }});
  Xorventa("on", "lead", function (e) {{ seen.push(["lead", e]); }});
  Xorventa("on", "answer", function () {{ throw new Error("a broken listener of the site"); }});
</script></head>
<body><h1>Boulangerie</h1>
<script src="{server}/static/xorventa/widget.js" data-key="{key}" async></script>
</body></html>
"""


@pytest.fixture
def api_shop(shop: Any, site: dict[str, Any], server: dict[str, Any]) -> Any:
    """The widget test's bakery (its widget allowed on the site's origin, its opening hours known),
    embedded by a page that uses the JavaScript API."""
    page = f"api-{shop.public_key}.html"
    html = API_PAGE.format(server=server["url"], key=shop.public_key)
    (site["root"] / page).write_text(html, encoding="utf-8")
    shop.page = page
    return shop


def _seen(page: Any, kind: str) -> list[Any]:
    return [detail for name, detail in page.evaluate("window.seen") if name == kind]


def test_open_ask_and_the_answer_event_on_another_origin(
    browser: Any, api_shop: Any, site: dict[str, Any]
) -> None:
    from apps.feedback.models import AnswerFeedback
    from apps.gaps.models import GapTicket
    from apps.visitors.models import VisitorContact

    context = browser.new_context()
    _CONTEXTS.append(context)
    page = context.new_page()
    errors: list[str] = []
    console: list[str] = []
    frames: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload)[:300])))
    page.on(
        "websocket",
        lambda ws: ws.on("framesent", lambda payload: frames.append("SENT " + str(payload)[:300])),
    )
    page.goto(f"{site['origin']}/{api_shop.page}")
    page.wait_for_function("() => window.Xorventa && window.Xorventa.version === '1'", timeout=15_000)

    page.evaluate("Xorventa.open()")
    assert _seen(page, "open") == [{}]
    panel = page.locator(".panel")
    panel.wait_for(state="visible", timeout=5_000)
    assert page.locator(".row.greeting .text").inner_text() == "Bonjour ! Posez-nous votre question."
    assert page.locator("textarea").get_attribute("placeholder") == "Votre question…"
    assert page.locator(".root").get_attribute("lang") == "fr"

    assert page.evaluate("Xorventa.ask('When are you open on Monday?')") is True
    try:
        page.wait_for_function(
            "() => window.seen.some(function (e) { return e[0] === 'answer'; })", timeout=ANSWER_TIMEOUT_MS
        )
    except Exception:
        pytest.fail(
            f"no answer event; console {console}, errors {errors}, frames {frames}, seen {page.evaluate('window.seen')}"
        )
    answer = _seen(page, "answer")[0]
    assert answer["decision"] == "answer" and "Monday" in answer["text"] and "7am" in answer["text"]
    assert answer["question"] == "When are you open on Monday?" and isinstance(answer["messageId"], int)
    assert errors == []  # the site's broken listener did not break the widget

    # Thumbs down under the answer, then a comment: stored on the reply, and a question for the owner.
    page.locator(".row.assistant .rate button[aria-label='Pas utile']").click()
    page.locator(".rate input").fill("I asked about Monday evening")
    page.locator(".rate form .ok").click()
    deadline = time.monotonic() + 10
    while True:
        with tenant_context(api_shop):
            feedback = AnswerFeedback.objects.filter(message_id=answer["messageId"]).first()
        if (feedback and feedback.comment) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert (
        feedback is not None
        and feedback.rating == "down"
        and feedback.comment == "I asked about Monday evening"
    )
    with tenant_context(api_shop):
        assert GapTicket.objects.get(pk=feedback.gap_ticket_id).question == "When are you open on Monday?"

    assert page.evaluate("Xorventa.identify({name: 'Ann Baker', email: 'ann@example.com'})") is True
    assert _seen(page, "lead")[-1] == {
        "source": "identify",
        "contact": "ann@example.com",
        "name": "Ann Baker",
    }
    with tenant_context(api_shop):
        contact = VisitorContact.objects.get(source="identify")
        assert contact.name == "Ann Baker" and "identify()" in contact.consent_text

    page.evaluate("Xorventa.close()")
    panel.wait_for(state="hidden", timeout=5_000)


def test_a_site_not_allowed_cannot_rate_or_identify(
    browser: Any, api_shop: Any, site: dict[str, Any]
) -> None:
    from apps.visitors.models import VisitorContact

    context = browser.new_context()
    _CONTEXTS.append(context)
    page = context.new_page()
    page.goto(f"{site['other']}/{api_shop.page}")  # the same page on an origin the widget is not allowed on
    page.wait_for_function("() => window.Xorventa && window.Xorventa.version === '1'", timeout=15_000)
    assert page.evaluate("Xorventa.identify({email: 'eve@example.com'})") is False
    with tenant_context(api_shop):
        assert not VisitorContact.objects.exists()
