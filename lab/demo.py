"""The demo data `make run` shows: a reseller, a bakery with its owner, and the bakery's history.

Idempotent: running it again changes nothing that is already there. The demo logins have passwords
published in the README, so they are seeded only in development (DEBUG) or when asked for explicitly
(XORVENTA_DEMO=1, `up --demo`, `seed_demo --force`): ``demo_enabled``.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from django.conf import settings
from django.db import transaction
from django_tenants.utils import tenant_context

from apps.accounts.models import Role, User
from apps.accounts.services import membership_grant, operator_create
from apps.chat.origins import normalise_origin
from apps.chat.widget import widget_settings
from apps.tenants.models import Business, Reseller
from apps.tenants.services import business_create, reseller_create
from lab.demo_conversations import demo_conversations_seed
from lab.demo_knowledge import demo_knowledge_seed
from lab.demo_site import demo_crawl_seed, demo_site_port, demo_site_start

DEMO_RESELLER_SLUG = "demo-agency"
DEMO_SLUG = "sunny"
DEMO_OWNER_EMAIL = "owner@sunny.example"
DEMO_RESELLER_EMAIL = "agency@demo.example"
DEMO_OWNER_PASSWORD = "sunny-demo-2026"  # noqa: S105 - local demo only, printed by `make run`
DEMO_OPERATOR_EMAIL = "operator@demo.example"


def demo_enabled(*, asked: bool = False) -> bool:
    """Whether demo accounts may be seeded: development, or an explicit request."""
    return asked or bool(settings.DEBUG) or bool(settings.XORVENTA_DEMO)


def _user(email: str) -> User:
    """A demo login: never staff or superuser (the staff admin is for operators, whose passwords are
    random). A demo user made staff by an older version is demoted."""
    user = User.objects.filter(email=email).first()
    if user is None:
        return User.objects.create_user(email=email, password=DEMO_OWNER_PASSWORD)
    if user.is_staff or user.is_superuser:
        user.is_staff = user.is_superuser = False
        user.save(update_fields=["is_staff", "is_superuser"])
    return user


def demo_seed(log: Callable[[str], object] = print, *, site_url: str = "") -> Business:
    reseller = Reseller.objects.filter(slug=DEMO_RESELLER_SLUG).first() or reseller_create(
        name="Demo Agency", slug=DEMO_RESELLER_SLUG
    )
    business = Business.objects.filter(slug=DEMO_SLUG).first()
    if business is None:
        log("Creating the demo business (schema and migrations)...")
        business = business_create(reseller=reseller, name="Sunny Bakery", slug=DEMO_SLUG)
    with transaction.atomic():
        membership_grant(user=_user(DEMO_OWNER_EMAIL), role=Role.OWNER, business=business)
        membership_grant(user=_user(DEMO_RESELLER_EMAIL), role=Role.RESELLER_ADMIN, reseller=reseller)
    demo_knowledge_seed(business, log=log)
    demo_crawl_seed(business, log=log, site_url=site_url)
    demo_conversations_seed(business, log=log)
    return business


def demo_for_local_run(
    sender: object, *, asked_demo: bool, port: int, log: Callable[[str], object], **kwargs: object
) -> list[str]:
    """`manage.py up`'s demo (the ``apps.portal.signals.local_run_prepared`` receiver): seeded when
    ``demo_enabled``; returns the start-up banner's lines for it (addresses and logins)."""
    if not demo_enabled(asked=asked_demo):
        return []
    base = f"http://{settings.BASE_DOMAIN}:{port}"
    # The bakery's own website, with the widget, for as long as `make run` runs (this process).
    site = demo_site_start(snippet="", port=demo_site_port(), log=log)
    business = demo_seed(log=log, site_url=site.url)
    site.snippet = (
        f'<script src="{base}/static/xorventa/widget.js" data-key="{business.public_key}" async></script>'
    )
    widget_allowed_on(business, site.url)
    # The web server and the worker `up` starts next may read that one local server (its daily
    # re-read, "Sync now"); nothing else on loopback.
    named = [s for s in os.environ.get("XORVENTA_OUTBOUND_LOCAL_SERVERS", "").split(",") if s]
    os.environ["XORVENTA_OUTBOUND_LOCAL_SERVERS"] = ",".join(dict.fromkeys([*named, site.url.rstrip("/")]))
    return [
        f"Demo business, by path {base}/t/{DEMO_SLUG}/",
        f"Demo business, by host http://{DEMO_SLUG}.{settings.BASE_DOMAIN}:{port}/",
        f"Its own website        {site.url} (the pages it crawls, with the widget on them)",
        f"Owner login            {DEMO_OWNER_EMAIL} / {DEMO_OWNER_PASSWORD}",
        f"Reseller login         {DEMO_RESELLER_EMAIL} / {DEMO_OWNER_PASSWORD} (not staff)",
        _operator_line(),
        *TRY_LINES,
    ]


# What a newcomer can try on the demo website (the seeded knowledge: demo_knowledge.py).
TRY_LINES = [
    "Try, in the widget on its website:",
    "  - “Do you have gluten-free bread?”: not known, so passed to the owner. Sign in as the owner, answer",
    "    it under Questions, ask again: the owner's answer, at once.",
    "  - “What are your hours on December 28?”: the holiday hours (to Dec 24) are over by then, the",
    "    usual hours are back. The Knowledge page shows any date the same way.",
    "  - “Talk to a person” (or type “can I talk to a human?”): the owner sees it live in the portal's",
    "    Inbox, takes the conversation over and replies; the visitor reads the reply in the widget.",
]


def widget_allowed_on(business: Business, site_url: str) -> None:
    """The demo website may show the business's widget (its origin on the allow-list, once)."""
    origin = normalise_origin(site_url.rstrip("/"))
    with tenant_context(business):
        row = widget_settings()
        if origin and origin not in (row.allowed_origins or []):
            row.allowed_origins = [*(row.allowed_origins or []), origin]
            row.save(update_fields=["allowed_origins", "updated_at"])


def _operator_line() -> str:
    """The demo's staff admin: created once with a random password, shown only that time."""
    user, password = operator_create(email=DEMO_OPERATOR_EMAIL)
    if password:
        return f"Staff admin login      {user.email} / {password} (shown only now)"
    return (
        f"Staff admin login      {user.email} (password shown when it was made; "
        f"`manage.py create_operator {user.email} --reset-password` sets a new one)"
    )
