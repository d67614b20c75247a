"""A new business's start, questions with their context, and phone widths, in a real Chromium.

daphne (the production ASGI app, in a subprocess on the test database: tests/chat/test_widget_browser.py)
serves the portal and the widget; a local HTTP server is the business's own website. The worker's part
(the first crawl, the re-check of open questions) runs here as the worker would (run_queued_tasks).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.chat.test_widget_browser import (
    ANSWER_TIMEOUT_MS,
    HOST_PAGE,
    Frames,
    _wait_server_idle,
    browser,
    pytestmark,
    server,
)
from tests.facts.sitefixture import Route, Site, serve
from tests.facts.sitefixture import page as site_page
from tests.helpers import run_queued_tasks
from tests.portal.test_portal_browser import PASSWORD, check_accessibility

__all__ = ["browser", "pytestmark", "server"]  # the widget tests' module-scoped fixtures and marks

PHONE = {"width": 390, "height": 844}
SERVER_SECRET_KEY = "browser-test-secret-key-not-for-production"  # the server fixture's


@pytest.fixture(autouse=True)
def fast_passwords() -> None:
    """The real hasher here (overriding the portal tests' fast one): the server process checks the
    passwords, and it knows only the configured hashers."""


@pytest.fixture(autouse=True)
def worker_reads_the_servers_tasks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tasks the server queues are signed with its secret key: the worker here unsigns with it."""
    from django_q.conf import Conf

    monkeypatch.setattr(Conf, "SECRET_KEY", SERVER_SECRET_KEY)


def _bakery_site(site: Site) -> None:
    site.routes["/robots.txt"] = Route("User-agent: *\nAllow: /\n", content_type="text/plain")
    site.routes["/"] = Route(
        site_page(
            "Crumb Bakery",
            "<h1>Crumb Bakery</h1><p>We bake sourdough every morning.</p>",
            nav='<a href="/hours">Hours</a> <a href="/#site-footer">Contact</a>',
        )
    )
    site.routes["/hours"] = Route(
        site_page("Hours", "<h1>Opening hours</h1><p>We are open Monday to Friday, 7 AM to 3 PM.</p>")
    )


@pytest.fixture
def tab(browser: Any, make_business: Any) -> Iterator[Any]:
    """A desktop tab; afterwards the server is let finish before the test's businesses are dropped."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(20_000)
    yield page
    context.close()
    _wait_server_idle()


def _sign_in(page: Any, url: str, email: str) -> None:
    page.goto(url)
    page.fill("#id_username", email)
    page.fill("#id_password", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_load_state()


def _ask(page: Any, frames: Frames, question: str) -> dict[str, Any]:
    """Ask in the widget on this page (its box is in its shadow root) and wait for the answer's end."""
    ended = len(frames.of("end"))
    box = page.locator("xorventa-widget textarea")
    box.click()
    box.fill(question)
    box.press("Enter")
    # The server loads the embedding model on its first question: minutes on a busy 2-core machine.
    deadline = time.monotonic() + 3 * ANSWER_TIMEOUT_MS / 1000
    while len(frames.of("end")) <= ended:
        assert time.monotonic() < deadline, f"no answer; got {frames.received[-5:]}, sent {frames.sent[-3:]}"
        page.wait_for_timeout(50)
    return frames.of("end")[-1]


def _answer_text(frames: Frames) -> str:
    """The last answer's text, from the delta frames after the last start."""
    starts = [i for i, f in enumerate(frames.received) if f.get("type") == "start"]
    return "".join(f["text"] for f in frames.received[starts[-1] :] if f.get("type") == "delta")


def test_a_new_business_starts_on_its_dashboard_and_ends_with_the_widget_answering_from_its_first_crawl(
    tab: Any, browser: Any, server: dict[str, Any], make_business: Any, make_user: Any
) -> None:
    from django_tenants.utils import tenant_context

    from apps.facts.models import Source

    business = make_business("crumb", "Crumb Bakery")
    make_user("owner@crumb.example", role="owner", business=business)
    frames = Frames(tab)
    with serve(_bakery_site) as site:
        _sign_in(tab, f"{server['url']}/t/crumb/accounts/login/", "owner@crumb.example")
        assert tab.url.rstrip("/").endswith("/t/crumb")  # signing in lands on the dashboard
        start = tab.get_by_role("region", name="Get your assistant started")
        assert start.is_visible() and "0 of 3 steps done" in start.inner_text()
        assert "could answer everything" not in tab.content()
        check_accessibility(tab)

        # 1. The website: saving it starts its first reading, whose progress shows on the dashboard.
        tab.fill("#start-url", site.url("/"))
        tab.get_by_role("button", name="Read my website").click()
        tab.wait_for_load_state()
        assert tab.url.rstrip("/").endswith("/t/crumb")
        tab.get_by_text("Reading your website now").wait_for()
        assert tab.locator(".start .job").is_visible()
        assert run_queued_tasks() == 1  # the worker reads the site, in the business's schema
        tab.locator("#tick-1.done").wait_for()  # ticked by itself (the start polls its progress)
        with tenant_context(business):
            pages = set(Source.objects.filter(kind="website").values_list("ref", flat=True))
        assert pages == {site.url("/"), site.url("/hours")}  # "/#site-footer" is not a page

        # 2. The preview on the dashboard answers from what was read; the chat is the owner's test.
        tab.locator(".launcher").click()
        end = _ask(tab, frames, "When are you open?")
        assert end["decision"] == "answer", _answer_text(frames)
        assert "Monday" in _answer_text(frames)
        tab.locator("#tick-2.done").wait_for()

        # 3. The snippet, and the site allowed to show the widget.
        assert business.public_key in tab.locator("#snippet").input_value()
        tab.fill("#start-site", site.base)
        tab.get_by_role("button", name="Allow this site").click()
        tab.wait_for_load_state()
        assert tab.get_by_role("region", name="Get your assistant started").count() == 0  # all done
        check_accessibility(tab)

        # The business's own site with the snippet: a visitor gets the answer from the first crawl.
        site.routes["/embed.html"] = Route(
            HOST_PAGE.format(name="Crumb Bakery", server=server["url"], key=business.public_key)
        )
        visitor = browser.new_context(viewport=PHONE)
        try:
            page = visitor.new_page()
            seen = Frames(page)
            page.goto(site.url("/embed.html"))
            page.locator(".launcher").click()
            end = _ask(page, seen, "What are your opening hours?")
            assert end["decision"] == "answer" and "Monday" in _answer_text(seen)
            assert any(site.url("/hours") in s or "website" in s.lower() for s in end["sources"]), end
        finally:
            visitor.close()
    # The dashboard counts the visitor, not the owner's preview.
    tab.goto(f"{server['url']}/t/crumb/")
    assert "1 conversation today" in " ".join(tab.locator(".stats").inner_text().split())
    assert frames.page_errors == []


def test_a_question_shows_its_conversation_and_closes_when_the_owner_adds_the_fact_another_way(
    tab: Any, server: dict[str, Any], make_business: Any, make_user: Any
) -> None:
    from django_tenants.utils import tenant_context

    from apps.gaps.models import GapTicket
    from tests.portal.conftest import seed_conversation, seed_knowledge

    business = make_business("sunny", "Sunny Bakery")
    make_user("owner@sunny.example", role="owner", business=business)
    with tenant_context(business):
        seed_knowledge()
        conversation = seed_conversation(["What are your opening hours?", "Do you have gluten-free bread?"])
        ticket = GapTicket.objects.get()
        ask = ticket.asks.get()
    base = f"{server['url']}/t/sunny"
    _sign_in(tab, f"{base}/accounts/login/", "owner@sunny.example")
    tab.goto(f"{base}/gaps/")
    card = tab.locator(f"#gap-{ticket.pk}")
    card.get_by_text("Where it was asked").click()
    assert card.locator(".before").get_by_text("What are your opening hours?").is_visible()
    card.get_by_text("What the assistant found, and why it was not enough").click()
    assert card.get_by_text("did not guess").or_(card.get_by_text("below the")).first.is_visible()
    check_accessibility(tab)
    card.get_by_role("link", name="Conversation of").click()
    tab.wait_for_load_state()
    assert tab.url.endswith(f"/conversations/{conversation.pk}/#m{ask.message_id}")
    assert "gluten-free" in tab.locator(f"#m{ask.message_id}").inner_text()

    # The owner adds the fact on the Knowledge page instead of answering the question.
    tab.goto(f"{base}/knowledge/")
    tab.fill("#id_topic", "Gluten-free bread")
    tab.fill("#id_statement", "We bake gluten-free bread every Friday.")
    tab.get_by_role("button", name="Add fact").click()
    tab.wait_for_load_state()
    assert run_queued_tasks() >= 1  # the re-check the change queued, as the worker runs it
    tab.goto(f"{base}/gaps/")
    assert tab.get_by_text("No open questions").is_visible()
    closed = tab.get_by_role("region", name="Recently closed")
    assert "closed itself" in closed.inner_text() and "every Friday" in closed.inner_text()
    check_accessibility(tab)


def _cut_cells(page: Any) -> list[str]:
    """Table cells that reach past the screen or past the box holding their table (a cut column)."""
    return page.evaluate(
        """() => {
          const bad = [];
          const width = document.documentElement.clientWidth;
          for (const cell of document.querySelectorAll('main td, main th')) {
            const r = cell.getBoundingClientRect();
            const head = cell.closest('thead');
            // A header row kept for screen readers only (clipped to a pixel) is not on the screen.
            if (!r.width || (head && head.getBoundingClientRect().width <= 1)) continue;
            const box = cell.closest('.scroll, .card, main').getBoundingClientRect();
            if (r.right > width + 1 || r.right > box.right + 1)
              bad.push(cell.textContent.trim().slice(0, 40) + ' (' + Math.round(r.right) + 'px)');
          }
          return bad;
        }"""
    )


def test_every_portal_table_and_the_widget_fit_a_phone(
    browser: Any, server: dict[str, Any], make_business: Any, make_user: Any, reseller: Any
) -> None:
    from django_tenants.utils import tenant_context

    from apps.facts.models import Topic
    from apps.gaps.services import gap_record
    from tests.portal.conftest import seed_conversation, seed_knowledge

    business = make_business("sunny", "Sunny Bakery")
    make_user("admin@acme.example", role="reseller_admin", reseller=reseller)
    with tenant_context(business):
        seed_knowledge()
        conversation = seed_conversation(["What are your opening hours?", "Do you sell gift cards?"])
        gap_record(question="Do you have gluten-free bread?", top_similarity=0.1)
        topic = Topic.objects.get(name="Opening hours")
    context = browser.new_context(viewport=PHONE)
    try:
        page = context.new_page()
        page.set_default_timeout(20_000)
        base = f"{server['url']}/t/sunny"
        _sign_in(page, f"{base}/accounts/login/", "admin@acme.example")  # sees every page and the console
        paths = [
            f"{base}/",
            f"{base}/knowledge/",
            f"{base}/knowledge/topics/{topic.pk}/",
            f"{base}/sources/",
            f"{base}/gaps/",
            f"{base}/conversations/",
            f"{base}/conversations/{conversation.pk}/",
            f"{base}/team/",
            f"{server['url']}/console/acme/",
        ]
        for url in paths:
            response = page.goto(url)
            assert response is not None and response.status == 200, url
            page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], url
            assert _cut_cells(page) == [], url
            check_accessibility(page)

        # The widget on a phone: the whole panel, the box and its counter, nothing cut.
        page.goto(f"{base}/widget/")
        frames = Frames(page)
        page.locator(".launcher").click()
        box = page.locator("xorventa-widget textarea")
        box.wait_for()
        panel = page.evaluate(
            "() => { const r = document.querySelector('xorventa-widget').shadowRoot"
            ".querySelector('.panel').getBoundingClientRect(); return [r.left, r.right, r.width]; }"
        )
        assert panel[0] >= 0 and panel[1] <= PHONE["width"] and panel[2] > 300, panel
        send = page.locator("xorventa-widget .send").bounding_box()
        assert send is not None and send["x"] + send["width"] <= PHONE["width"]
        counter = page.locator("xorventa-widget .count")
        assert not counter.is_visible()  # far from the limit: no counter
        from apps.chat.limits import MAX_MESSAGE_CHARS

        box.fill("a" * int(MAX_MESSAGE_CHARS * 0.9))
        assert counter.is_visible()
        assert counter.inner_text() == f"{int(MAX_MESSAGE_CHARS * 0.9)} / {MAX_MESSAGE_CHARS} characters"
        box.fill("")
        box.press_sequentially("b" * 20)
        box.evaluate(
            f"(el) => {{ el.value = 'c'.repeat({MAX_MESSAGE_CHARS}); el.dispatchEvent(new Event('input')); }}"
        )
        assert counter.inner_text().startswith(f"{MAX_MESSAGE_CHARS} / {MAX_MESSAGE_CHARS}")
        assert box.get_attribute("maxlength") == str(MAX_MESSAGE_CHARS)
        assert box.get_attribute("aria-describedby") == counter.get_attribute("id")
        counter_box = counter.bounding_box()
        assert counter_box is not None and counter_box["x"] + counter_box["width"] <= PHONE["width"]
        assert frames.page_errors == []
    finally:
        context.close()
        _wait_server_idle()
