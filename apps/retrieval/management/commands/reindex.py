"""`manage.py reindex`: check every business's search index against the configured embedding model, and
re-embed the ones that need it (after a model change, or when the model no longer reproduces the
golden vector stored with the index). Each business is rebuilt beside its live index and switched at
once, so visitors keep the old index until the new one is complete."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.retrieval.tasks import businesses_with_index, reconcile_each
from apps.tenants.models import Business


class Command(BaseCommand):
    help = "Check the search index of every business (or the named ones) and re-embed the stale ones."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--business", nargs="*", default=[], help="Slugs (default: every active business)"
        )
        what = parser.add_mutually_exclusive_group()
        what.add_argument("--check", action="store_true", help="Only report (and mark) stale indexes")
        what.add_argument("--all", action="store_true", help="Re-embed every chosen business, stale or not")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["business"]:
            businesses = list(
                Business.objects.exclude(schema_name="public")
                .filter(slug__in=opts["business"])
                .order_by("slug")
            )
            missing = set(opts["business"]) - {b.slug for b in businesses}
            if missing:
                raise CommandError(f"No business {', '.join(sorted(missing))}.")
        else:
            businesses = list(businesses_with_index())
        rebuild = "none" if opts["check"] else "all" if opts["all"] else "stale"
        stale = rebuilt = 0
        for business, outcome in reconcile_each(businesses, rebuild=rebuild):
            stale += outcome.was == "stale"
            rebuilt += outcome.rebuilt
            line = f"{business.slug}: {outcome.was}"
            if outcome.reason:
                line += f" ({outcome.reason})"
            if outcome.rebuilt:
                line += f", re-embedded {outcome.pieces} pieces in {outcome.seconds:.1f} s"
            self.stdout.write(line)
        summary = f"{len(businesses)} businesses checked, {stale} stale, {rebuilt} re-embedded."
        if opts["check"] and stale:
            summary += " Run `python manage.py reindex` to re-embed the stale ones."
        self.stdout.write(
            self.style.WARNING(summary) if stale and not rebuilt else self.style.SUCCESS(summary)
        )
