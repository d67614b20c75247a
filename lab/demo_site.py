"""The demo business's website crawl: `make run` shows a finished crawl and its change report.

The pages in demo_site/ are served by a throwaway http.server on 127.0.0.1 (a free port) only while the
demo is seeded; the crawl is a real ingestion job (the code the worker runs), followed by a second one
over the unchanged site so the admin shows what an unchanged re-sync reports. Idempotent: once a crawl
job has finished, nothing is done again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any

from django.conf import settings
from django_tenants.utils import tenant_context

from apps.facts.ingestion import job_summary, website_crawl_start
from apps.facts.models import IngestionJob, JobKind, JobStatus
from apps.facts.sources.local_site import serve_handler
from apps.tenants.models import Business

DEMO_SITE_DIR = Path(settings.BASE_DIR) / "demo_site"


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass  # the seed's own log says what happens; no request lines in the terminal


@contextmanager
def serve_demo_site(directory: Path = DEMO_SITE_DIR) -> Iterator[str]:
    """Serve ``directory`` on 127.0.0.1 (a free port) in a thread; yields the base URL."""
    with serve_handler(partial(_QuietHandler, directory=str(directory))) as base:
        yield f"{base}/"


def demo_crawl_seed(business: Business, log: Callable[[str], object] = print) -> None:
    with tenant_context(business):
        if IngestionJob.objects.filter(
            kind__in=[JobKind.CRAWL, JobKind.RESYNC], status=JobStatus.DONE
        ).exists():
            return
        if not (DEMO_SITE_DIR / "index.html").exists():
            log(f"No demo website in {DEMO_SITE_DIR}: skipping the demo crawl.")
            return
        log("Crawling the demo bakery's website (a local copy)...")
        with serve_demo_site() as url:
            # No saved website and no schedule: the local server is gone once the seed ends.
            first = website_crawl_start(start_url=url, actor="demo")
            log(f"  first crawl: {job_summary(first)}")
            again = website_crawl_start(start_url=url, kind=JobKind.RESYNC, actor="demo")
            log(f"  re-sync of the unchanged site: {job_summary(again)}")
