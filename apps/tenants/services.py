"""Writes about tenants: creating resellers and businesses (schema, domain, owner invitation)."""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction

from apps.tenants.models import RESERVED_SLUGS, SLUG_VALIDATOR, Business, Domain, Reseller

logger = logging.getLogger(__name__)


def reseller_create(*, name: str, slug: str) -> Reseller:
    SLUG_VALIDATOR(slug)
    reseller = Reseller(name=name.strip(), slug=slug)
    reseller.full_clean()
    reseller.save()
    return reseller


def business_host(slug: str) -> str:
    return f"{slug}.{settings.BASE_DOMAIN}"


def business_create(*, reseller: Reseller, name: str, slug: str, owner_email: str | None = None) -> Business:
    """Create a business: its schema (all tenant migrations), its host name and an owner invitation.

    The schema is created by django-tenants when the row is saved; it is not transactional DDL we can
    roll back across the migration run, so everything that can be checked is validated first.
    """
    from apps.accounts.models import Role
    from apps.accounts.services import invitation_create

    slug = slug.strip().lower()
    name = name.strip()
    if not name:
        raise ValidationError({"name": "A business needs a name."})
    try:
        SLUG_VALIDATOR(slug)
    except ValidationError as exc:
        raise ValidationError({"slug": exc.messages}) from None
    if slug in RESERVED_SLUGS:
        raise ValidationError({"slug": f"'{slug}' is reserved."})
    if (
        Business.objects.filter(slug=slug).exists()
        or Business.objects.filter(schema_name=slug.replace("-", "_")).exists()
    ):
        raise ValidationError({"slug": f"A business with the address '{slug}' already exists."})
    started = time.perf_counter()
    business = Business(reseller=reseller, name=name, slug=slug, schema_name=slug.replace("-", "_"))
    business.save(verbosity=0)  # creates the schema and runs tenant migrations
    with transaction.atomic():
        Domain.objects.create(domain=business_host(slug), tenant=business, is_primary=True)
        if owner_email:
            invitation_create(email=owner_email, role=Role.OWNER, business=business)
    logger.info("created business %s in %.0f ms", slug, (time.perf_counter() - started) * 1000)
    return business


def business_delete(*, business: Business) -> None:
    """Drop a business and its schema. Only for throwaway businesses (scenarios, evaluations, benches)."""
    business.delete(force_drop=True)
