"""`manage.py crawl_site <business-slug> <url>`: crawl a business's website as a tracked job.

Runs the same job code as the worker, here in the terminal (or in the worker with --background),
with a progress bar and the change report at the end.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Protocol

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django_tenants.utils import tenant_context

from apps.facts.ingestion import (
    IngestionInputError,
    job_report_lines,
    website_crawl_start,
    website_settings_update,
)
from apps.facts.models import IngestionJob, JobStatus, SyncSchedule
from apps.tenants.models import Business

FINISHED = (JobStatus.DONE, JobStatus.FAILED)


class _Output(Protocol):
    def write(self, text: str) -> Any: ...
    def flush(self) -> Any: ...
    def isatty(self) -> bool: ...


class TerminalProgress:
    """A one-line progress bar redrawn in place ("\\r") on a terminal, one line per change elsewhere."""

    def __init__(self, out: _Output, unit: str = "pages", width: int = 30) -> None:
        self.out = out
        self.unit = unit
        self.width = width
        self.tty = out.isatty()
        self.last = ""

    def __call__(self, job: IngestionJob) -> None:
        total = max(job.total, job.done, 1)
        filled = int(self.width * job.done / total)
        bar = "#" * filled + "-" * (self.width - filled)
        errors = f"  {len(job.errors)} error(s)" if job.errors else ""
        line = (
            f"[{bar}] {job.done}/{job.total} {self.unit}  +{job.facts_added} details  "
            f"-{job.facts_retired} retired  {job.disagreements} conflicts{errors}"
        )
        if line == self.last:
            return
        self.last = line
        self.out.write(("\r" + line) if self.tty else line + "\n")
        self.out.flush()

    def close(self) -> None:
        if self.tty and self.last:
            self.out.write("\n")


def watch(job: IngestionJob, progress: TerminalProgress, *, poll: float = 0.5) -> IngestionJob:
    """Follow a job the worker runs, redrawing the bar, until it finishes."""
    while True:
        job = IngestionJob.objects.get(pk=job.pk)
        progress(job)
        if job.status in FINISHED:
            return job
        time.sleep(poll)


def business_by_slug(slug: str) -> Business:
    business = Business.objects.filter(slug=slug.strip().lower()).first()
    if business is None:
        raise CommandError(f"No business with the address '{slug}'.")
    return business


def show_report(command: BaseCommand, job: IngestionJob) -> None:
    style = command.style.SUCCESS if job.status == JobStatus.DONE else command.style.ERROR
    lines = job_report_lines(job)
    command.stdout.write(style(lines[0]))
    for line in lines[1:]:
        command.stdout.write(line)


class Command(BaseCommand):
    help = "Crawl a business's website into its knowledge as a tracked job, with a progress bar."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("business", help="The business's address (slug), e.g. sunny")
        parser.add_argument("url", help="The page to start from, e.g. https://www.example.com/")
        parser.add_argument("--max-pages", type=int, default=None)
        parser.add_argument("--max-depth", type=int, default=None)
        parser.add_argument(
            "--sync",
            action="store_true",
            help="Also save this address as the business's website and re-sync it on a schedule",
        )
        parser.add_argument("--schedule", choices=[s.value for s in SyncSchedule], default=None)
        parser.add_argument("--background", action="store_true", help="Run it in the worker and watch")
        parser.add_argument("--no-wait", action="store_true", help="With --background: do not watch")

    def handle(self, *args: Any, **opts: Any) -> None:
        business = business_by_slug(opts["business"])
        progress = TerminalProgress(sys.stdout if self.stdout.isatty() else self.stdout)
        with tenant_context(business):
            try:
                if opts["sync"]:
                    row = website_settings_update(
                        start_url=opts["url"],
                        schedule=opts["schedule"] or SyncSchedule.DAILY,
                        max_pages=opts["max_pages"],
                        max_depth=opts["max_depth"],
                    )
                    self.stdout.write(f"Saved {row.start_url} as the website, re-synced {row.schedule}.")
                job = website_crawl_start(
                    start_url=opts["url"],
                    max_pages=opts["max_pages"],
                    max_depth=opts["max_depth"],
                    actor="manage.py crawl_site",
                    background=opts["background"],
                    progress=progress,
                )
            except IngestionInputError as exc:
                raise CommandError(str(exc)) from None
            if opts["background"]:
                self.stdout.write(f"Queued job #{job.pk}; the worker (manage.py qcluster) runs it.")
                if opts["no_wait"]:
                    return
                job = watch(job, progress)
            progress.close()
            show_report(self, job)
        if job.status != JobStatus.DONE:
            raise CommandError("The crawl failed (see above).")
