"""`make screenshots`: every page of the portal and the console at phone and desktop widths.

Runs the real server (daphne, as `make run` does) against the development database with the demo
seeded, signs in as the demo owner and the demo reseller in headless Chromium, and writes PNGs to
screenshots/ (ignored by git); the key ones are copied to docs/img/ for the README.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from datetime import date
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connections
from django.db.models import Count, Q
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django_tenants.utils import schema_context
from playwright.sync_api import sync_playwright

from apps.chat.models import Conversation
from apps.facts.models import Topic
from apps.tenants.models import Business
from lab.demo import DEMO_OWNER_EMAIL, DEMO_OWNER_PASSWORD, DEMO_RESELLER_EMAIL, DEMO_SLUG, widget_allowed_on
from lab.demo_site import demo_site_port, demo_site_start

CHROMIUM = os.environ.get("XORVENTA_CHROMIUM", "/usr/bin/chromium")
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
VIEWPORTS = {"phone": (390, 844), "desktop": (1366, 900)}
# The ones the README shows.
KEY_SHOTS = [
    "dashboard-desktop",
    "dashboard-phone",
    "knowledge-future-desktop",
    "knowledge-phone",
    "topic-desktop",
    "gaps-desktop",
    "gaps-phone",
    "conversation-desktop",
    "conversations-phone",
    "sources-desktop",
    "widget-desktop",
    "console-desktop",
    "console-phone",
    "demo-site-phone",
    "inbox-desktop",
    "inbox-phone",
    "handoff-phone",
]


def _has_inbox() -> bool:
    """The inbox (live handoff) is another part of issue 20: photographed once it exists."""
    try:
        reverse("portal:inbox", urlconf=settings.ROOT_URLCONF)
    except NoReverseMatch:
        return False
    return True


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _future_date(today: date) -> date:
    """Dec 27: the day after the demo's holiday hours end ("what will it say on Dec 27?")."""
    target = date(today.year, 12, 27)
    return target if target >= today else date(today.year + 1, 12, 27)


class Command(BaseCommand):
    help = (
        "Write screenshots of every page at phone and desktop widths (screenshots/, key ones to docs/img/)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--out", default=str(Path(settings.BASE_DIR) / "screenshots"))
        parser.add_argument("--docs", default=str(Path(settings.BASE_DIR) / "docs" / "img"))
        parser.add_argument("--only", nargs="*", default=[], help="Only these pages (e.g. dashboard gaps)")
        parser.add_argument("--no-seed", action="store_true", help="Do not migrate and seed the demo first")

    def handle(self, *args: Any, **opts: Any) -> None:
        if not Path(CHROMIUM).exists():
            raise CommandError(f"Chromium not found at {CHROMIUM}: apt-get install -y chromium")
        if not opts["no_seed"]:
            call_command("migrate_schemas", interactive=False, verbosity=0)
            call_command("collectstatic", interactive=False, verbosity=0)
            call_command("seed_demo", force=True)  # a development tool: the demo is what it photographs
        port = _free_port()
        base = f"http://localhost:{port}"
        site = self._demo_site(base)
        pages = [*self._pages(), ("demo-site", site.url, "anonymous")]
        if _has_inbox():  # a visitor asks for a person (the owner's inbox, shot after, shows it)
            pages.append(("handoff", site.url, "anonymous"))
        if opts["only"]:
            pages = [p for p in pages if p[0] in opts["only"]]
        connections.close_all()  # the server opens its own
        server = subprocess.Popen(  # noqa: S603
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "xorventa.asgi:application"],
            env=dict(os.environ, PYTHONUNBUFFERED="1"),
            stdout=subprocess.DEVNULL,
        )
        try:
            self._wait(f"{base}/healthz", server)
            out, docs = Path(opts["out"]), Path(opts["docs"])
            out.mkdir(parents=True, exist_ok=True)
            written = self._shoot(base, pages, out)
            docs.mkdir(parents=True, exist_ok=True)
            for name in KEY_SHOTS:
                if (out / f"{name}.png").exists():
                    shutil.copyfile(out / f"{name}.png", docs / f"{name}.png")
            self.stdout.write(
                self.style.SUCCESS(f"Wrote {written} screenshots to {out}; key ones to {docs}.")
            )
        finally:
            site.shutdown()
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()

    @staticmethod
    def _demo_site(base: str) -> Any:
        """The demo bakery's own website with its widget (as `make run` serves it), on its port."""
        business = Business.objects.get(slug=DEMO_SLUG)
        snippet = (
            f'<script src="{base}/static/xorventa/widget.js" data-key="{business.public_key}" async></script>'
        )
        site = demo_site_start(snippet=snippet, port=demo_site_port())
        widget_allowed_on(business, site.url)
        return site

    def _pages(self) -> list[tuple[str, str, str]]:
        """(name, path, who): who is "anonymous", "owner" or "agency"."""
        with schema_context(Business.objects.get(slug=DEMO_SLUG).schema_name):
            topic = Topic.objects.filter(name__iexact="Opening hours").first() or Topic.objects.first()
            conversation = (
                Conversation.objects.annotate(
                    answered=Count("messages", filter=Q(messages__decision="answer")),
                    n=Count("messages"),
                )
                .filter(answered__gt=0)
                .order_by("-n", "-last_at")
                .first()
            )
        prefix = f"/t/{DEMO_SLUG}"
        future = _future_date(timezone.localdate())
        pages = [
            ("login", f"{prefix}/accounts/login/", "anonymous"),
            ("dashboard", f"{prefix}/", "owner"),
            ("knowledge", f"{prefix}/knowledge/", "owner"),
            ("knowledge-future", f"{prefix}/knowledge/?on={future.isoformat()}", "owner"),
            ("disagreements", f"{prefix}/knowledge/disagreements/", "owner"),
            ("sources", f"{prefix}/sources/", "owner"),
            ("gaps", f"{prefix}/gaps/", "owner"),
            ("conversations", f"{prefix}/conversations/", "owner"),
            ("widget", f"{prefix}/widget/", "owner"),
            ("team", f"{prefix}/team/", "owner"),
            *([("inbox", f"{prefix}/inbox/", "owner")] if _has_inbox() else []),
            ("console", "/console/", "agency"),
            ("white-label", "/console/demo-agency/white-label/", "agency"),
        ]
        if topic is not None:
            pages.insert(4, ("topic", f"{prefix}/knowledge/topics/{topic.pk}/", "owner"))
        if conversation is not None:
            pages.insert(-4, ("conversation", f"{prefix}/conversations/{conversation.pk}/", "owner"))
        return pages

    @staticmethod
    def _ask(page: Any, question: str) -> None:
        page.locator(".launcher").click()
        box = page.locator("xorventa-widget textarea")
        box.fill(question)
        box.press("Enter")
        try:  # an answer from the knowledge carries its sources (.meta); the first loads the model
            page.locator("xorventa-widget .row.assistant .meta").last.wait_for(timeout=120_000)
        except Exception:  # photograph whatever the widget shows by then
            page.wait_for_timeout(1000)

    def _wait(self, url: str, server: subprocess.Popen[bytes]) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if server.poll() is not None:
                raise CommandError("The server stopped while starting.")
            try:
                with urllib.request.urlopen(url, timeout=2) as response:  # noqa: S310 - our own local server
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.3)
        raise CommandError(f"The server did not answer {url} within 60 s.")

    def _shoot(self, base: str, pages: list[tuple[str, str, str]], out: Path) -> int:
        logins = {
            "owner": (f"/t/{DEMO_SLUG}/accounts/login/", DEMO_OWNER_EMAIL),
            "agency": ("/accounts/login/", DEMO_RESELLER_EMAIL),
        }
        written = 0
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                for label, (width, height) in VIEWPORTS.items():
                    for who in ("anonymous", "owner", "agency"):
                        mine = [p for p in pages if p[2] == who]
                        if not mine:
                            continue
                        context = browser.new_context(viewport={"width": width, "height": height})
                        page = context.new_page()
                        if who in logins:
                            path, email = logins[who]
                            page.goto(base + path)
                            page.fill("#id_username", email)
                            page.fill("#id_password", DEMO_OWNER_PASSWORD)
                            page.click("form button[type=submit]")
                            page.wait_for_load_state()
                        for name, path, _ in mine:
                            url = path if path.startswith("http") else base + path
                            response = page.goto(url, wait_until="load")
                            if response is None or response.status >= 400:
                                raise CommandError(
                                    f"{path} answered {response.status if response else 'nothing'}"
                                )
                            if name == "conversation":  # show one retrieval log opened
                                page.evaluate(
                                    "document.querySelector('details.log')?.setAttribute('open', '')"
                                )
                            if name == "gaps":  # the first question with its context opened
                                page.evaluate(
                                    "document.querySelectorAll('.gap')[0]?.querySelectorAll('details')"
                                    ".forEach(d => d.setAttribute('open', ''))"
                                )
                            if name == "demo-site":  # the visitor's view: the widget open, one answer
                                self._ask(page, "When are you open?")
                            if name == "handoff":  # the visitor asks for a person
                                person = page.locator("xorventa-widget .person")
                                if not person.is_visible():  # the widget reopens as it was left
                                    page.locator(".launcher").click()
                                person.click()
                                page.wait_for_timeout(2500)
                            page.wait_for_timeout(400)  # the widget preview and htmx settle
                            page.screenshot(path=str(out / f"{name}-{label}.png"), full_page=True)
                            written += 1
                            self.stdout.write(f"  {name}-{label}.png")
                        context.close()
            finally:
                browser.close()
        return written
