"""`manage.py backup_business <slug> [--output FILE]`: one business to one file (see apps/accounts/backup.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from apps.accounts.backup import BackupError, business_backup
from apps.tenants.models import Business


class Command(BaseCommand):
    help = "Back up one business (its schema's rows, uploaded files and public records) to a zip file."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="The business to back up")
        parser.add_argument(
            "--output",
            "-o",
            help="The file to write (default: <slug>-<UTC time>.xvbackup.zip in the current folder)",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        business = Business.objects.filter(slug=opts["slug"]).select_related("reseller").first()
        if business is None:
            raise CommandError(f"No business '{opts['slug']}'.")
        stamp = timezone.now().strftime("%Y%m%dT%H%M%SZ")
        output = Path(opts.get("output") or f"{business.slug}-{stamp}.xvbackup.zip")
        try:
            report = business_backup(business=business, path=output)
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            self.style.SUCCESS(
                f"Backed up {business.slug} to {report.path}: {report.tables} tables, {report.rows} rows, "
                f"{report.files} files, {report.bytes / 1024:.0f} KiB."
            )
        )
