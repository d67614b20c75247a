"""The widget in a real browser against the real server.

Headless Chromium (the Debian package, driven by Playwright without its own browser download) loads a
page served from one origin (a local http.server) that embeds ``widget.js`` served by daphne from
another origin; daphne runs in a subprocess on the test database, so these tests use
``django_db(transaction=True)``: the server process must see the committed data.

Screenshots for the docs: ``XORVENTA_WIDGET_SCREENSHOTS=docs/img pytest tests/chat/test_widget_browser.py``.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import http.server
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
BASE_DIR = Path(__file__).resolve().parents[2]
SCREENSHOTS = os.environ.get("XORVENTA_WIDGET_SCREENSHOTS", "")
ANSWER_TIMEOUT_MS = 60_000  # the first question loads the embedding model in the server process

try:
    from playwright.sync_api import Page, sync_playwright
except ImportError:  # pragma: no cover - dev dependency missing
    sync_playwright = None  # type: ignore[assignment]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="browser tests need Chromium at /usr/bin/chromium (apt-get install -y chromium)",
    ),
    pytest.mark.skipif(sync_playwright is None, reason="browser tests need the playwright package"),
    pytest.mark.django_db(transaction=True),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_http(url: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"daphne exited early:\n{log.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"daphne did not answer {url} within {timeout}s:\n{log.read_text()[-4000:]}")


@pytest.fixture(scope="module")
def server(django_db_setup: None, django_db_blocker: Any) -> Iterator[dict[str, Any]]:
    """daphne (the production ASGI app) on the test database, serving static files through WhiteNoise."""
    from django.db import connection

    with django_db_blocker.unblock():
        connection.ensure_connection()
        name = connection.settings_dict["NAME"]
        host = connection.settings_dict["HOST"]
    connection.close()
    tmp = Path(tempfile.mkdtemp(prefix="xorventa-widget-"))
    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": f"postgresql://postgres@/{name}?host={host}",
        "SECRET_KEY": "browser-test-secret-key-not-for-production",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        # The server's own address: its portal pages (the owner's widget preview) are its own origin.
        "XORVENTA_SITE_URL": f"http://127.0.0.1:{port}",
        "DEBUG": "0",
        "SECURE_SSL_REDIRECT": "0",
        "XORVENTA_EXTRACTOR": "builtin",
        "XORVENTA_ANSWERER": "builtin",
        "XORVENTA_DATA_DIR": str(tmp),  # STATIC_ROOT is <data dir>/staticfiles
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
    }
    for var in ("XORVENTA_LLM_BASE_URL", "XORVENTA_LLM_MODEL", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE"):
        env.pop(var, None)
    # DEBUG off (as deployed): WhiteNoise serves STATIC_ROOT, so collect the static files first.
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
        cwd=BASE_DIR,
        env=env,
        check=True,
        timeout=600,  # whitenoise compresses every file: minutes on a busy 2-core machine
    )
    log = tmp / "daphne.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "xorventa.asgi:application"],
            cwd=BASE_DIR,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_http(f"http://127.0.0.1:{port}/static/xorventa/widget.js", proc, log)
        yield {"port": port, "url": f"http://127.0.0.1:{port}", "log": log}
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        if os.environ.get("XORVENTA_KEEP_DAPHNE_LOG"):
            print(log.read_text()[-8000:])
        shutil.rmtree(tmp, ignore_errors=True)
        with django_db_blocker.unblock():
            _terminate_backends(name)


def _terminate_backends(database: str) -> None:
    """Safety net: no connection of the server process may outlive it (the test DB must be droppable)."""
    from django.db import connection, connections

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [database],
        )
    connections.close_all()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def site() -> Iterator[dict[str, Any]]:
    """The business's own website: a plain static server on another port (and so another origin)."""
    root = Path(tempfile.mkdtemp(prefix="xorventa-site-"))
    port = _free_port()
    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", port), functools.partial(_QuietHandler, directory=str(root))
    )
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        # The same server is reachable as two origins: localhost (allowed) and 127.0.0.1 (not allowed).
        yield {
            "root": root,
            "port": port,
            "origin": f"http://localhost:{port}",
            "other": f"http://127.0.0.1:{port}",
        }
    finally:
        httpd.shutdown()
        httpd.server_close()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    assert sync_playwright is not None
    # Playwright's sync API keeps an event loop on this thread, so Django's async-safety check would
    # refuse the tests' own (synchronous) ORM calls: allow them for this module only.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as pw:
            chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                yield chromium
            finally:
                chromium.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


HOST_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{name}</title>
<style>
  /* A careless host stylesheet: none of this may reach the widget. */
  html {{ font-size: 10px; }}
  body {{ margin: 0; padding: 24px; font: 28px/1.1 Georgia, serif; color: #060; background: #fffbe8; }}
  button {{ display: none !important; }}
  div, p, span, form, textarea, label {{ color: red !important; font-size: 40px !important; padding: 30px; }}
  * {{ box-sizing: content-box; }}
</style></head>
<body>
  <a href="#menu" id="first-link">Our menu</a>
  <h1>{name}</h1>
  <p>Fresh bread every morning. Ask our assistant anything.</p>
  <script src="{server}/static/xorventa/widget.js" data-key="{key}" async></script>
</body></html>
"""


@pytest.fixture
def shop(make_business: Callable[..., Any], site: dict[str, Any], server: dict[str, Any]) -> Iterator[Any]:
    """A business with knowledge, its widget allowed on the site's origin, and a page embedding it."""
    from django_tenants.utils import tenant_context

    from apps.chat.models import WidgetSettings
    from apps.facts.services import owner_fact_add

    business = make_business("sunny", "Sunny Bakery")
    with tenant_context(business):
        widget = WidgetSettings.objects.first() or WidgetSettings()
        widget.allowed_origins = [site["origin"]]
        widget.primary_color = "#b4441c"
        widget.greeting = "Hi! I'm Sunny Bakery's assistant. Ask me about our hours, cakes or delivery."
        widget.save()
        owner_fact_add(topic="opening hours", statement="We are open Monday to Friday from 7am to 6pm.")
        owner_fact_add(topic="delivery", statement="We deliver cakes within 5 km for a fee of 4 euros.")
    page = f"embed-{business.public_key}.html"
    html = HOST_PAGE.format(name="Sunny Bakery", server=server["url"], key=business.public_key)
    (site["root"] / page).write_text(html, encoding="utf-8")
    business.page = page
    yield business
    for context in _CONTEXTS:
        with contextlib.suppress(Exception):
            context.close()
    _CONTEXTS.clear()
    _wait_server_idle()  # no query of the server may race the schema drop that follows


def _wait_server_idle(timeout: float = 15.0) -> None:
    from django.db import connection

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid() AND backend_type = 'client backend' AND state <> 'idle'"
            )
            if cursor.fetchone()[0] == 0:
                return
        time.sleep(0.1)


_CONTEXTS: list[Any] = []  # closed by the shop fixture, before its business is dropped


class Frames:
    """Every websocket frame the page sends and receives (what the widget really exchanged)."""

    def __init__(self, page: Page) -> None:
        self.received: list[dict[str, Any]] = []
        self.sent: list[dict[str, Any]] = []
        self.errors: list[str] = []
        self.closed = 0
        self.page_errors: list[str] = []  # uncaught exceptions in the page (the widget must raise none)
        self.console: list[str] = []
        page.on("websocket", self._attach)
        page.on("pageerror", lambda error: self.page_errors.append(str(error)))
        page.on("console", lambda message: self.console.append(f"{message.type}: {message.text}"))

    def _attach(self, ws: Any) -> None:
        ws.on("framereceived", lambda payload: self.received.append(json.loads(payload)))
        ws.on("framesent", lambda payload: self.sent.append(json.loads(payload)))
        ws.on("socketerror", lambda error: self.errors.append(str(error)))
        ws.on("close", lambda _ws: setattr(self, "closed", self.closed + 1))

    def of(self, kind: str, *, sent: bool = False) -> list[dict[str, Any]]:
        return [f for f in (self.sent if sent else self.received) if f.get("type") == kind]


def _open_page(browser: Any, url: str, **context_options: Any) -> tuple[Any, Page, Frames]:
    context = browser.new_context(**context_options)
    _CONTEXTS.append(context)
    page = context.new_page()
    frames = Frames(page)
    page.goto(url)
    page.locator(".launcher").wait_for(state="visible", timeout=15_000)
    return context, page, frames


def _wait_hello(page: Page, frames: Frames) -> dict[str, Any]:
    deadline = time.monotonic() + 15
    while not frames.of("hello"):
        assert time.monotonic() < deadline, "no hello frame"
        page.wait_for_timeout(50)
    return frames.of("hello")[-1]


def _ask(page: Page, frames: Frames, question: str, *, count: int = 1) -> None:
    box = page.locator("textarea")
    box.click()
    box.fill(question)
    box.press("Enter")
    page.wait_for_function(
        f"() => document.querySelector('xorventa-widget').shadowRoot"
        f".querySelectorAll('.row.assistant .text').length >= {count + 0}",
        timeout=5_000,
    )
    deadline = time.monotonic() + ANSWER_TIMEOUT_MS / 1000
    while len(frames.of("end")) < count:
        assert time.monotonic() < deadline, f"no answer; frames: {frames.received[-5:]}"
        page.wait_for_timeout(50)


def _done(context: Any, frames: Frames) -> None:
    assert frames.page_errors == [], frames.page_errors
    context.close()


def _shadow_eval(page: Page, body: str) -> Any:
    return page.evaluate(
        f"() => {{ const root = document.querySelector('xorventa-widget').shadowRoot; {body} }}"
    )


def test_widget_streams_an_answer_with_its_source_from_another_origin(
    browser: Any, shop: Any, site: dict[str, Any], server: dict[str, Any]
) -> None:
    from django_tenants.utils import tenant_context

    from apps.chat.models import Message
    from apps.gaps.models import GapAsk

    context, page, frames = _open_page(browser, f"{site['origin']}/{shop.page}")
    launcher = page.locator(".launcher")
    # The host page hides every button and inflates every div: the widget is untouched.
    assert launcher.is_visible()
    assert launcher.bounding_box()["width"] == pytest.approx(58, abs=1)
    assert launcher.get_attribute("aria-expanded") == "false"

    launcher.click()
    dialog = page.get_by_role("dialog", name="Chat with Sunny Bakery")
    dialog.wait_for(state="visible")
    assert launcher.get_attribute("aria-expanded") == "true"
    page.wait_for_function(
        "() => document.querySelector('xorventa-widget').shadowRoot.activeElement?.tagName === 'TEXTAREA'"
    )
    page.get_by_text("I'm Sunny Bakery's assistant").wait_for()
    # The greeting can show (from the widget's settings) before the socket's hello frame arrives.
    assert _wait_hello(page, frames)["business"]["name"] == "Sunny Bakery"
    assert _shadow_eval(page, "return getComputedStyle(root.querySelector('.bubble')).fontSize;") == "15px"
    assert _shadow_eval(page, "return getComputedStyle(root.querySelector('.head')).backgroundColor;") == (
        "rgb(180, 68, 28)"
    )
    assert page.locator(".powered").inner_text() == "Powered by Xorventa"

    # Count how often the answer's text changes in the DOM while it streams.
    _shadow_eval(
        page,
        "window.__updates = 0; new MutationObserver(records => { for (const r of records) "
        "if (r.type === 'characterData') window.__updates++; })"
        ".observe(root, {subtree: true, characterData: true}); return true;",
    )
    box = page.locator("textarea")
    box.click()
    box.press_sequentially("When are you open?", delay=20)
    # A typing pause sends the draft once (speculative retrieval), then Enter sends the question.
    deadline = time.monotonic() + 5
    while not frames.of("draft", sent=True):
        assert time.monotonic() < deadline, "no draft frame after a typing pause"
        page.wait_for_timeout(50)
    page.wait_for_timeout(500)
    assert [f["text"] for f in frames.of("draft", sent=True)] == ["When are you open?"]
    box.press("Enter")
    deadline = time.monotonic() + ANSWER_TIMEOUT_MS / 1000
    while not frames.of("end"):
        assert time.monotonic() < deadline, f"no answer; frames: {frames.received[-5:]}"
        page.wait_for_timeout(50)

    deltas = frames.of("delta")
    end = frames.of("end")[0]
    answer = "".join(d["text"] for d in deltas)
    assert len(deltas) > 1, f"the answer arrived in one piece: {deltas}"
    assert page.evaluate("window.__updates") > 1
    assert end["decision"] == "answer"
    assert any(label.startswith("per the owner, ") for label in end["sources"])
    assistant = page.locator(".row.assistant").last
    assert assistant.locator(".text").inner_text() == answer
    assert "Monday" in answer
    meta = assistant.locator(".meta")
    meta.wait_for()
    assert "per the owner, " in meta.inner_text()
    assert page.locator(".row.visitor .text").last.inner_text() == "When are you open?"

    if SCREENSHOTS:
        out = BASE_DIR / SCREENSHOTS
        out.mkdir(parents=True, exist_ok=True)
        page.evaluate("document.querySelector('style').remove()")  # a tidy host page for the docs
        page.set_viewport_size({"width": 1280, "height": 800})
        page.wait_for_timeout(200)
        page.screenshot(path=str(out / "widget-desktop.png"))
        page.set_viewport_size({"width": 390, "height": 844})
        page.wait_for_timeout(200)
        page.screenshot(path=str(out / "widget-phone.png"))

    # The visitor's own text is rendered as text, never as markup.
    _ask(page, frames, '<img src=x onerror="window.__xss=1">Thanks!', count=2)
    assert page.locator(".row.visitor .text").last.inner_text().startswith("<img src=x")
    assert _shadow_eval(page, "return root.querySelectorAll('img, script').length;") == 0
    assert page.evaluate("window.__xss") is None

    # A question the business has not answered: the visitor may leave a contact (optional).
    _ask(page, frames, "Do you have parking for cars?", count=3)
    assert frames.of("end")[-1]["decision"] == "unknown" and frames.of("end")[-1]["ask_contact"] is True
    contact = page.get_by_label("Leave your email or phone number")
    contact.fill("visitor@example.com")
    contact.press("Enter")
    page.get_by_text("Thanks! We'll get back to you with the answer.").wait_for(timeout=10_000)
    assert frames.of("contact", sent=True) == [{"type": "contact", "value": "visitor@example.com"}]

    with tenant_context(shop):
        stored = Message.objects.filter(role="assistant", decision="answer").get()
        assert GapAsk.objects.filter(contact="visitor@example.com").exists()
    assert stored.text == answer
    assert stored.speculative_hit, "the draft's retrieval was not reused"

    _done(context, frames)


def _ws_attempt(port: int, key: str, origin: str) -> tuple[int, int | None, str | None]:
    """A raw websocket handshake: (HTTP status, close code if closed after accept, first frame's type)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        nonce = base64.b64encode(os.urandom(16)).decode()
        sock.sendall(
            (
                f"GET /ws/chat/{key}/?visitor=probe-visitor-1 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {nonce}\r\n"
                f"Sec-WebSocket-Version: 13\r\nOrigin: {origin}\r\n\r\n"
            ).encode()
        )
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
        head, _, buf = data.partition(b"\r\n\r\n")
        status = int(head.split()[1])
        if status != 101:
            return status, None, None
        while len(buf) < 2 or len(buf) < 2 + (buf[1] & 0x7F if buf[1] & 0x7F < 126 else 0):
            chunk = sock.recv(4096)
            if not chunk:
                return status, None, None
            buf += chunk
        opcode, length = buf[0] & 0x0F, buf[1] & 0x7F
        offset = 2
        if length == 126:
            while len(buf) < 4:
                buf += sock.recv(4096)
            length, offset = struct.unpack("!H", buf[2:4])[0], 4
        elif length == 127:
            while len(buf) < 10:
                buf += sock.recv(4096)
            length, offset = struct.unpack("!Q", buf[2:10])[0], 10
        while len(buf) < offset + length:
            buf += sock.recv(65536)
        payload = buf[offset : offset + length]
        if opcode == 0x8:
            return status, struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005, None
        return status, None, json.loads(payload).get("type")


def test_page_on_a_non_allowed_origin_is_refused(
    browser: Any, shop: Any, site: dict[str, Any], server: dict[str, Any]
) -> None:
    # The server's side: the allowed origin gets a hello, any other origin is refused.
    assert _ws_attempt(server["port"], shop.public_key, site["origin"]) == (101, None, "hello")
    status, code, first = _ws_attempt(server["port"], shop.public_key, site["other"])
    assert first is None
    assert status == 403 or code == 4403, (status, code)

    # The visitor's side: the same page served from 127.0.0.1 instead of localhost.
    context, page, frames = _open_page(browser, f"{site['other']}/{shop.page}")
    page.locator(".launcher").click()
    status_line = page.get_by_role("status").filter(has_text="unavailable right now")
    status_line.wait_for(timeout=10_000)
    assert not frames.of("hello")
    # daphne rejects a websocket closed before accept with HTTP 403; after accept it would be code 4403
    assert any("403" in error for error in frames.errors) or frames.closed >= 1, frames.errors
    assert page.locator(".send").get_attribute("aria-disabled") == "true"
    _done(context, frames)


def test_a_reload_keeps_the_conversation(
    browser: Any, shop: Any, site: dict[str, Any], server: dict[str, Any]
) -> None:
    context, page, frames = _open_page(browser, f"{site['origin']}/{shop.page}")
    page.locator(".launcher").click()
    _ask(page, frames, "Do you deliver cakes?")
    answer = page.locator(".row.assistant .text").last.inner_text()
    assert "5 km" in answer
    visitor = page.evaluate(f"localStorage.getItem('xorventa:{shop.public_key}:visitor')")
    assert visitor and len(visitor) >= 8

    page.reload()
    page.locator(".launcher").wait_for()
    if page.locator(".launcher").get_attribute("aria-expanded") != "true":
        page.locator(".launcher").click()
    page.locator(".row.visitor .text").filter(has_text="Do you deliver cakes?").wait_for(timeout=10_000)
    assert page.locator(".row.assistant .text").last.inner_text() == answer
    assert "per the owner, " in page.locator(".row.assistant .meta").last.inner_text()
    assert page.evaluate(f"localStorage.getItem('xorventa:{shop.public_key}:visitor')") == visitor
    _done(context, frames)


def test_keyboard_only(browser: Any, shop: Any, site: dict[str, Any], server: dict[str, Any]) -> None:
    context, page, frames = _open_page(browser, f"{site['origin']}/{shop.page}")
    active = "() => document.querySelector('xorventa-widget').shadowRoot.activeElement?.className || ''"
    page.locator("#first-link").focus()
    for _ in range(5):
        page.keyboard.press("Tab")
        if page.evaluate(active) == "launcher":
            break
    assert page.evaluate(active) == "launcher", "Tab never reached the launcher"

    page.keyboard.press("Enter")
    page.get_by_role("dialog").wait_for(state="visible")
    assert page.evaluate(
        "() => document.querySelector('xorventa-widget').shadowRoot.activeElement.tagName"
    ) == ("TEXTAREA")
    page.keyboard.type("Hi")  # under 4 characters: no draft frame for the server to work on
    page.keyboard.press("Tab")  # Tab still moves on (to the send button)
    assert page.evaluate(active) == "send"
    page.keyboard.press("Escape")
    page.get_by_role("dialog").wait_for(state="hidden")
    assert page.evaluate(active) == "launcher"
    assert page.locator(".launcher").get_attribute("aria-expanded") == "false"

    page.keyboard.press("Enter")  # open again, then close with the header's close button
    page.get_by_role("dialog").wait_for(state="visible")
    page.get_by_role("button", name="Close chat").focus()
    page.keyboard.press("Enter")
    page.get_by_role("dialog").wait_for(state="hidden")
    assert page.evaluate(active) == "launcher"
    _done(context, frames)


A11Y_CHECK = """
() => {
  const root = document.querySelector('xorventa-widget').shadowRoot;
  const problems = [];
  const name = (el) => (el.getAttribute('aria-label') || el.textContent || '').trim();
  const visible = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  for (const b of root.querySelectorAll('button')) if (visible(b) && !name(b)) problems.push('button without a name');
  for (const f of root.querySelectorAll('textarea, input')) {
    const label = f.id && root.querySelector(`label[for="${f.id}"]`);
    if (!(label && label.textContent.trim()) && !f.getAttribute('aria-label')) problems.push(`${f.tagName} without a label`);
  }
  const ids = [...root.querySelectorAll('[id]')].map(e => e.id);
  if (new Set(ids).size !== ids.length) problems.push('duplicate ids');
  for (const el of root.querySelectorAll('[aria-controls]'))
    if (!root.getElementById(el.getAttribute('aria-controls'))) problems.push('aria-controls points nowhere');
  const dialog = root.querySelector('[role=dialog]');
  if (!dialog || !(dialog.getAttribute('aria-label') || '').includes('Sunny Bakery')) problems.push('dialog name');
  const log = root.querySelector('[aria-live=polite]');
  if (!log) problems.push('no polite live region');
  for (const svg of root.querySelectorAll('svg')) if (svg.getAttribute('aria-hidden') !== 'true') problems.push('svg not hidden');
  const rgb = (c) => c.match(/\\d+(\\.\\d+)?/g).slice(0, 3).map(Number).map(v => {
    v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
  const lum = (c) => { const [r, g, b] = rgb(c); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const contrast = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  for (const sel of ['.head', '.launcher', '.bubble', '.composer textarea', '.powered', '.subtitle']) {
    const el = root.querySelector(sel); if (!el || !visible(el)) continue;
    const cs = getComputedStyle(el);
    let bg = cs.backgroundColor, node = el;
    while (bg === 'rgba(0, 0, 0, 0)' && node.parentElement) { node = node.parentElement; bg = getComputedStyle(node).backgroundColor; }
    if (bg === 'rgba(0, 0, 0, 0)') bg = 'rgb(255, 255, 255)';
    const ratio = contrast(cs.color, bg);
    if (ratio < 4.5) problems.push(`${sel} contrast ${ratio.toFixed(2)}`);
  }
  return problems;
}
"""


def test_accessibility_and_phone_layout_white_label(
    browser: Any, shop: Any, site: dict[str, Any], server: dict[str, Any]
) -> None:
    shop.reseller.show_powered_by = False
    shop.reseller.save()
    context, page, frames = _open_page(
        browser, f"{site['origin']}/{shop.page}", viewport={"width": 360, "height": 740}, is_mobile=True
    )
    page.locator(".launcher").click()
    page.get_by_role("dialog").wait_for(state="visible")
    page.wait_for_function("() => document.querySelector('xorventa-widget').shadowRoot.querySelector('.row')")
    assert _wait_hello(page, frames)["business"]["powered_by"] is False
    assert page.locator(".powered").is_hidden()  # white-label: no "powered by" line

    assert page.evaluate(A11Y_CHECK) == []
    # Full screen at 360 px, nothing sticking out sideways, the composer reachable.
    box = page.get_by_role("dialog").bounding_box()
    assert (box["x"], box["y"], box["width"], box["height"]) == (0, 0, 360, 740)
    assert _shadow_eval(page, "const l = root.querySelector('.log'); return l.scrollWidth <= l.clientWidth;")
    assert page.locator("textarea").is_visible() and page.locator(".send").is_visible()
    assert page.locator("textarea").bounding_box()["y"] + 40 <= 740

    # The box stops at the server's limit (it sends max_message_chars) ...
    page.locator("textarea").fill("x" * 1001)
    assert len(page.locator("textarea").input_value()) == 1000
    # ... and a longer text a script put there is refused by the server, shown inline, and comes
    # back to the composer.
    too_long = "x" * 1001
    _shadow_eval(page, f"root.querySelector('textarea').value = '{too_long}';")
    page.locator("textarea").press("Enter")
    page.locator(".note.error[data-code=too_long]").wait_for(timeout=10_000)
    assert "at most 1000 characters" in page.locator(".note.error").last.inner_text()
    assert page.locator("textarea").input_value() == too_long
    assert page.locator(".row.visitor").count() == 0
    _done(context, frames)


@pytest.fixture(autouse=True)
def _close_connections() -> Iterator[None]:
    yield
    from django.db import connections

    with contextlib.suppress(Exception):
        connections.close_all()
