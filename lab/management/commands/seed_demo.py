"""Seed (idempotently) the demo reseller and business that `make run` serves."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from lab.demo import (
    DEMO_OWNER_EMAIL,
    DEMO_OWNER_PASSWORD,
    DEMO_RESELLER_EMAIL,
    demo_enabled,
    demo_seed,
)


class Command(BaseCommand):
    help = "Create the demo reseller, business and logins (safe to run again). Development only."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--force",
            action="store_true",
            help="Seed even with DEBUG off: logins with the README's published password on this install",
        )

    def handle(self, *args: object, **opts: object) -> None:
        if not demo_enabled(asked=bool(opts["force"])):
            raise CommandError(
                "Demo accounts have published passwords, so they are seeded only with DEBUG=1, "
                "XORVENTA_DEMO=1 or --force."
            )
        business = demo_seed(log=self.stdout.write)
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo business '{business.name}' ready. Owner login {DEMO_OWNER_EMAIL} / {DEMO_OWNER_PASSWORD}; "
                f"reseller login {DEMO_RESELLER_EMAIL} / {DEMO_OWNER_PASSWORD} (not staff)"
            )
        )
