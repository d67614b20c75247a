"""`manage.py restore_business FILE [--slug S] [--into S --replace]`: a backup back into a business.

Without options the backup returns as the business it was (its slug must be free: the business was
deleted), with its widget key, domains, members and re-sync schedule. `--slug` makes a copy under another
address; `--into <slug> --replace` drops that business's data and loads the backup in its place. See
apps/accounts/backup.py and docs/security.md.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.accounts.backup import BackupError, backup_read_manifest, business_restore
from apps.tenants.models import Business, Reseller


class Command(BaseCommand):
    help = "Restore a business from a backup_business file (into a new business, or replacing one)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="A file written by backup_business")
        parser.add_argument(
            "--slug", help="Restore as a new business with this address (default: the backup's)"
        )
        parser.add_argument("--name", help="Name of the new business (default: the backup's)")
        parser.add_argument("--reseller", help="Reseller slug for the new business (default: the backup's)")
        parser.add_argument("--into", help="Restore into this existing business (needs --replace)")
        parser.add_argument(
            "--replace",
            action="store_true",
            help="With --into: drop that business's data and load the backup",
        )
        parser.add_argument(
            "--members",
            action="store_true",
            help="Re-grant the backup's members to a copy (always done when restoring under the original slug)",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            manifest = backup_read_manifest(opts["file"])
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        into = None
        if opts.get("into"):
            into = Business.objects.filter(slug=opts["into"]).first()
            if into is None:
                raise CommandError(f"No business '{opts['into']}' to restore into.")
        elif opts.get("replace"):
            raise CommandError("--replace needs --into <slug>.")
        reseller = None
        if opts.get("reseller"):
            reseller = Reseller.objects.filter(slug=opts["reseller"]).first()
            if reseller is None:
                raise CommandError(f"No reseller '{opts['reseller']}'.")
        try:
            report = business_restore(
                path=opts["file"],
                slug=opts.get("slug"),
                name=opts.get("name"),
                reseller=reseller,
                into=into,
                replace=bool(opts.get("replace")),
                members=True if opts.get("members") else None,
            )
        except BackupError as exc:
            raise CommandError(str(exc)) from None
        source = manifest["business"]["slug"]
        lines = [
            f"Restored {source} (backup of {manifest['created_at']}) as {report.business.slug}: "
            f"{report.tables} tables, {report.rows} rows, {report.files} files."
        ]
        if report.kept_public_key:
            lines.append("The widget key is the original one: embedded widgets keep working.")
        if report.members:
            lines.append(f"Members re-granted: {', '.join(report.members)}.")
        if report.members_missing:
            lines.append(f"Not here (invite them again): {', '.join(report.members_missing)}.")
        self.stdout.write(self.style.SUCCESS("\n".join(lines)))
