"""Seed (idempotently) the demo reseller and business that `make run` serves."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from apps.portal.demo import DEMO_OWNER_EMAIL, DEMO_OWNER_PASSWORD, DEMO_RESELLER_EMAIL, demo_seed


class Command(BaseCommand):
    help = "Create the demo reseller, business and logins (safe to run again)."

    def handle(self, *args: object, **opts: object) -> None:
        business = demo_seed(log=self.stdout.write)
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo business '{business.name}' ready. Owner login {DEMO_OWNER_EMAIL} / {DEMO_OWNER_PASSWORD}; "
                f"reseller login {DEMO_RESELLER_EMAIL} / {DEMO_OWNER_PASSWORD}"
            )
        )
