"""A person steps in, in real browsers: the visitor's widget on the business's own site (one origin) and
the owner's inbox in the portal (another origin, daphne: the production ASGI app with websockets).

The visitor asks for a person with the widget's button; the owner's open inbox shows it live (the
portal's notification); the owner opens the conversation, takes it over (the visitor sees "<name>
joined"), replies, and the visitor's widget shows the reply at once. The inbox and the conversation
pass the accessibility check and fit a 390 px phone screen.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.chat.test_widget_browser import (  # noqa: F401 - fixtures
    _CONTEXTS,
    ANSWER_TIMEOUT_MS,
    _open_page,
    _wait_hello,
    browser,
    server,
    shop,
    site,
)
from tests.portal.test_portal_browser import check_accessibility

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
PASSWORD = "pw-Long-enough-1"  # the make_user fixture's default
PHONE = {"width": 390, "height": 844}


def _owner_page(browser: Any, server: dict[str, Any]) -> Any:  # noqa: F811
    context = browser.new_context(viewport=PHONE)
    _CONTEXTS.append(context)
    page = context.new_page()
    page.set_default_timeout(20_000)
    page.goto(f"{server['url']}/t/sunny/accounts/login/?next=/t/sunny/inbox/")
    page.fill("#id_username", "owner@sunny.example")
    page.fill("#id_password", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url("**/t/sunny/inbox/")
    page.locator("#inbox-live").filter(has_text="Live updates: on").wait_for()
    return page


def _fits_the_phone(page: Any) -> None:
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"{page.url} is {width} px wide on a {PHONE['width']} px phone"


def test_the_owner_takes_over_a_live_conversation_and_the_visitor_gets_the_reply(
    browser,  # noqa: F811
    server,  # noqa: F811
    site,  # noqa: F811
    shop,  # noqa: F811
    make_user,
):
    owner = make_user("owner@sunny.example", role="owner", business=shop)
    owner.first_name = "Sam"
    owner.save(update_fields=["first_name"])
    inbox = _owner_page(browser, server)
    check_accessibility(inbox)
    _fits_the_phone(inbox)

    _context, visitor, frames = _open_page(browser, f"{site['origin']}/{shop.page}")
    visitor.locator(".launcher").click()
    _wait_hello(visitor, frames)
    visitor.locator("button.person").click()
    visitor.locator(".row.assistant .text").filter(has_text="join").wait_for()
    assert frames.of("handoff")[-1]["state"] == "requested"

    # The owner's open inbox shows the request at once: no reload, no polling.
    inbox.locator("#inbox-alert").filter(has_text="1 visitor waiting for a person").wait_for()
    row = inbox.locator(".inbox-row.waiting")
    assert row.count() == 1
    _fits_the_phone(inbox)
    row.locator("a").click()
    inbox.wait_for_url("**/t/sunny/inbox/*/")
    inbox.locator("[data-live-status]").filter(has_text="Live updates: on").wait_for()
    check_accessibility(inbox)
    _fits_the_phone(inbox)

    inbox.get_by_role("button", name="Take over").click()
    visitor.locator(".note").filter(has_text="Sam joined").wait_for()
    inbox.fill("#reply-text", "Hi, Sam here. Yes, we can make that cake for Saturday.")
    inbox.get_by_role("button", name="Send").click()
    reply = visitor.locator(".row.owner .text").filter(has_text="Sam here")
    reply.wait_for()
    assert reply.inner_text() == "Hi, Sam here. Yes, we can make that cake for Saturday."

    # The visitor writes back: the assistant stays silent and the owner's page shows it live (once the
    # page, reloaded by the reply's POST, listens again). The server's first question loads the
    # language pipeline, which takes a while on a busy machine.
    inbox.locator("[data-live-status]").filter(has_text="Live updates: on").wait_for()
    box = visitor.locator("textarea")
    box.fill("Great, thank you! Chocolate please.")
    box.press("Enter")
    mine = inbox.locator("#transcript .bubble.visitor").filter(has_text="Chocolate please")
    mine.wait_for(timeout=ANSWER_TIMEOUT_MS)
    visitor.wait_for_timeout(500)
    assert frames.of("held") and not frames.of("start")  # the assistant said nothing
    check_accessibility(inbox)
