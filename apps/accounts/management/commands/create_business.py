import time

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.accounts.services import business_create_with_owner
from apps.tenants.models import Reseller
from apps.tenants.services import business_host


class Command(BaseCommand):
    help = "Create a business: its schema, its host name and an invitation for its owner."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="Address of the business: <slug>.<base domain> and /t/<slug>/")
        parser.add_argument("--name", required=True)
        parser.add_argument("--reseller", required=True, help="Slug of the reseller that runs it")
        parser.add_argument("--owner-email", help="Send the owner an invitation")

    def handle(self, *args: object, **opts: str) -> None:
        reseller = Reseller.objects.filter(slug=opts["reseller"]).first()
        if reseller is None:
            raise CommandError(
                f"No reseller '{opts['reseller']}'. Existing: {', '.join(Reseller.objects.values_list('slug', flat=True)) or 'none'}."
            )
        started = time.perf_counter()
        try:
            business = business_create_with_owner(
                reseller=reseller, name=opts["name"], slug=opts["slug"], owner_email=opts.get("owner_email")
            )
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from None
        ms = (time.perf_counter() - started) * 1000
        self.stdout.write(
            self.style.SUCCESS(
                f"Created {business.name} in {ms:.0f} ms: http://{business_host(business.slug)}:8000/ and /t/{business.slug}/"
            )
        )
