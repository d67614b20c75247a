"""Create a platform operator (staff superuser) with a random password, printed once."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandParser

from apps.accounts.services import operator_create


class Command(BaseCommand):
    help = "Create a staff superuser with a random password, printed once (or set a new one)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("email")
        parser.add_argument(
            "--reset-password", action="store_true", help="The account exists: give it a new random password"
        )

    def handle(self, *args: object, **opts: object) -> None:
        email = str(opts["email"])
        user, password = operator_create(email=email, reset_password=bool(opts["reset_password"]))
        if password is None:
            self.stdout.write(f"{user.email} already exists; --reset-password gives it a new password.")
            return
        self.stdout.write(
            self.style.SUCCESS(f"Operator {user.email}, password {password}")
            + "\n(shown only now; it is stored as a hash. Staff admin: /admin/)"
        )
