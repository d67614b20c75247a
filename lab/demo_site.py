"""The demo bakery's own website: `make run` serves it with the widget on it, and the demo crawls it.

``demo_site_start`` serves the pages in demo_site/ at a stable local address (http://127.0.0.1:8001/,
XORVENTA_DEMO_SITE_PORT) for as long as `make run` runs, with the business's widget snippet added to
every page, so a newcomer sees the product as a visitor does. The demo crawls that address (a real
ingestion job, the code the worker runs), then re-syncs it unchanged so the Sources page shows what an
unchanged re-sync reports; the address is saved as the business's website with a daily re-read, which
the worker may reach because `make run` names it in XORVENTA_OUTBOUND_LOCAL_SERVERS.

Without the served site (``seed_demo``, tests) the pages are crawled from a throwaway local server, and
no address is saved. Idempotent: once the site at its address has been crawled, nothing is done again.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django_tenants.utils import tenant_context

from apps.facts.ingestion import (
    job_summary,
    website_crawl_start,
    website_settings_get,
    website_settings_update,
)
from apps.facts.models import IngestionJob, JobKind, JobStatus, Source, SourceKind, SyncSchedule
from apps.facts.services import source_retire
from apps.facts.sources.local_site import serve_handler
from apps.outbound import allow_local_server
from apps.tenants.models import Business

DEMO_SITE_DIR = Path(settings.BASE_DIR) / "demo_site"
DEMO_SITE_PORT = 8001  # XORVENTA_DEMO_SITE_PORT overrides it


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass  # the seed's own log says what happens; no request lines in the terminal


@contextmanager
def serve_demo_site(directory: Path = DEMO_SITE_DIR) -> Iterator[str]:
    """Serve ``directory`` on 127.0.0.1 (a free port) in a thread; yields the base URL."""
    with serve_handler(partial(_QuietHandler, directory=str(directory))) as base:
        yield f"{base}/"


class _WidgetPageHandler(_QuietHandler):
    """The demo site's files; every HTML page gets the business's widget snippet before </body>."""

    server: DemoSite

    def do_GET(self) -> None:
        path = Path(self.translate_path(self.path))  # within the directory (http.server's own check)
        if path.is_dir():
            path = path / "index.html"
        if path.suffix != ".html" or not path.is_file():
            super().do_GET()
            return
        page = path.read_text(encoding="utf-8")
        body = page.replace("</body>", f"{self.server.snippet}\n</body>", 1).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class DemoSite(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port: int, snippet: str, directory: Path = DEMO_SITE_DIR) -> None:
        super().__init__(("127.0.0.1", port), partial(_WidgetPageHandler, directory=str(directory)))
        self.snippet = snippet
        self.url = f"http://127.0.0.1:{self.server_address[1]}/"


def demo_site_port() -> int:
    return int(os.environ.get("XORVENTA_DEMO_SITE_PORT", DEMO_SITE_PORT))


def demo_site_start(*, snippet: str, port: int, log: Callable[[str], object] = print) -> DemoSite:
    """Serve the demo site with ``snippet`` on every page, in a thread of this process (`make run`'s,
    which lives as long as the servers it supervises). A port in use gives a free one instead."""
    try:
        site = DemoSite(port, snippet)
    except OSError as exc:
        site = DemoSite(0, snippet)
        log(f"Port {port} is in use ({exc.strerror}): the demo website is at {site.url} instead.")
    threading.Thread(target=site.serve_forever, name="demo-site", daemon=True).start()
    return site


def demo_crawl_seed(business: Business, log: Callable[[str], object] = print, *, site_url: str = "") -> None:
    """Crawl the demo website: at ``site_url`` (served by demo_site_start), saved as the business's
    website with a daily re-read; or, without it, from a throwaway local server, saving nothing."""
    with tenant_context(business):
        crawled = IngestionJob.objects.filter(
            kind__in=[JobKind.CRAWL, JobKind.RESYNC], status=JobStatus.DONE
        ).exists()
        if crawled and (not site_url or website_settings_get().start_url == site_url):
            return
        if not (DEMO_SITE_DIR / "index.html").exists():
            log(f"No demo website in {DEMO_SITE_DIR}: skipping the demo crawl.")
            return
        log("Crawling the demo bakery's website (a local copy)...")
        if not site_url:
            with serve_demo_site() as url:  # gone once the seed ends: no saved address, no schedule
                _crawl_twice(url, log)
            return
        with allow_local_server(site_url):
            website_settings_update(start_url=site_url, schedule=SyncSchedule.DAILY)
            _crawl_twice(site_url, log)
        _retire_earlier_addresses(site_url, log)


def _crawl_twice(url: str, log: Callable[[str], object]) -> None:
    first = website_crawl_start(start_url=url, actor="demo")
    log(f"  first crawl: {job_summary(first)}")
    again = website_crawl_start(start_url=url, kind=JobKind.RESYNC, actor="demo")
    log(f"  re-sync of the unchanged site: {job_summary(again)}")


def _retire_earlier_addresses(site_url: str, log: Callable[[str], object]) -> None:
    """Pages an older demo read from a throwaway port on this machine: the site lives at site_url now."""
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(site_url))
    earlier = Source.objects.filter(
        kind=SourceKind.WEBSITE, is_active=True, ref__startswith="http://127.0.0.1:"
    )
    for source in earlier.exclude(ref__startswith=origin):
        source_retire(source=source, reason=f"The demo website is served at {site_url} now.", actor="demo")
        log(f"  retired {source.ref} (the demo website moved to {site_url})")
