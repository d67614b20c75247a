"""The demo data `make run` shows: a reseller, a bakery with its owner, and the bakery's history.

Idempotent: running it again changes nothing that is already there.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction

from apps.accounts.models import Role, User
from apps.accounts.services import membership_grant
from apps.tenants.models import Business, Reseller
from apps.tenants.services import business_create, reseller_create

DEMO_RESELLER_SLUG = "demo-agency"
DEMO_SLUG = "sunny"
DEMO_OWNER_EMAIL = "owner@sunny.example"
DEMO_RESELLER_EMAIL = "agency@demo.example"
DEMO_OWNER_PASSWORD = "sunny-demo-2026"  # noqa: S105 - local demo only, printed by `make run`


def _user(email: str, *, staff: bool = False) -> User:
    user = User.objects.filter(email=email).first()
    if user is None:
        user = User.objects.create_user(
            email=email, password=DEMO_OWNER_PASSWORD, is_staff=staff, is_superuser=staff
        )
    return user


def demo_seed(log: Callable[[str], object] = print) -> Business:
    reseller = Reseller.objects.filter(slug=DEMO_RESELLER_SLUG).first() or reseller_create(
        name="Demo Agency", slug=DEMO_RESELLER_SLUG
    )
    business = Business.objects.filter(slug=DEMO_SLUG).first()
    if business is None:
        log("Creating the demo business (schema and migrations)...")
        business = business_create(reseller=reseller, name="Sunny Bakery", slug=DEMO_SLUG)
    with transaction.atomic():
        membership_grant(user=_user(DEMO_OWNER_EMAIL), role=Role.OWNER, business=business)
        membership_grant(
            user=_user(DEMO_RESELLER_EMAIL, staff=True), role=Role.RESELLER_ADMIN, reseller=reseller
        )
    from apps.portal.demo_knowledge import demo_knowledge_seed

    demo_knowledge_seed(business, log=log)
    from apps.portal.demo_site import demo_crawl_seed

    demo_crawl_seed(business, log=log)
    from apps.portal.demo_conversations import demo_conversations_seed

    demo_conversations_seed(business, log=log)
    return business
