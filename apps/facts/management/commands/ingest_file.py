"""`manage.py ingest_file <business-slug> <path>`: read a document into a business's knowledge."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django_tenants.utils import tenant_context

from apps.facts.ingestion import document_upload
from apps.facts.management.commands.crawl_site import TerminalProgress, business_by_slug, show_report, watch
from apps.facts.models import JobStatus, Visibility


class Command(BaseCommand):
    help = "Upload a document (PDF, DOCX, HTML, Markdown, text) into a business's knowledge as a job."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("business", help="The business's address (slug), e.g. sunny")
        parser.add_argument("path", type=Path)
        parser.add_argument("--name", default=None, help="The document's name (default: the file name)")
        parser.add_argument("--visibility", choices=[v.value for v in Visibility], default="public")
        parser.add_argument("--background", action="store_true", help="Run it in the worker and watch")
        parser.add_argument("--no-wait", action="store_true", help="With --background: do not watch")

    def handle(self, *args: Any, **opts: Any) -> None:
        business = business_by_slug(opts["business"])
        path: Path = opts["path"]
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CommandError(f"Cannot read {path}: {exc.strerror or exc}") from None
        progress = TerminalProgress(sys.stdout if self.stdout.isatty() else self.stdout, unit="file")
        with tenant_context(business):
            job = document_upload(
                filename=opts["name"] or path.name,
                data=data,
                visibility=opts["visibility"],
                actor="manage.py ingest_file",
                background=opts["background"],
                progress=progress,
            )
            if opts["background"] and job.status not in (JobStatus.DONE, JobStatus.FAILED):
                self.stdout.write(f"Queued job #{job.pk}; the worker (manage.py qcluster) runs it.")
                if opts["no_wait"]:
                    return
                job = watch(job, progress)
            progress.close()
            show_report(self, job)
        if job.status != JobStatus.DONE:
            raise CommandError("The document could not be read (see above).")
