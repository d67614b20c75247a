"""Writes about tenants: creating resellers and businesses (schema, domain), suspending, deleting.

Inviting a new business's owner is the accounts app's (``business_create_with_owner``): accounts sits
above tenants, and nothing here imports it."""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection, transaction

from apps.tenants.models import RESERVED_SLUGS, SLUG_VALIDATOR, Business, Domain, Reseller
from apps.tenants.schema_template import template_ensure

logger = logging.getLogger(__name__)


def reseller_create(*, name: str, slug: str) -> Reseller:
    SLUG_VALIDATOR(slug)
    reseller = Reseller(name=name.strip(), slug=slug)
    reseller.full_clean()
    reseller.save()
    return reseller


def business_host(slug: str) -> str:
    return f"{slug}.{settings.BASE_DOMAIN}"


# Every business schema is named under this prefix, so no slug can name a schema that is not a
# business's own: the schema template (xv_template_<hash>, computable from the public source), public,
# pg_* and information_schema all lie outside it. Businesses created before the prefix keep their
# schema names: code finds a business's schema through Business.schema_name, never from its slug.
BUSINESS_SCHEMA_PREFIX = "biz_"
# Slugs that read as PostgreSQL's or Xorventa's own schemas are refused outright too (they are also
# confusing addresses), so the rule holds even if the prefix ever changes.
RESERVED_SLUG_PREFIXES = ("pg-", "xv-")
RESERVED_SCHEMA_SLUGS = frozenset({"public", "information-schema"})


def business_schema_name(slug: str) -> str:
    """The schema of a new business with this (valid) slug; slugs have no '_', so this is one-to-one."""
    return BUSINESS_SCHEMA_PREFIX + slug.replace("-", "_")


def business_slug_check(slug: str) -> str:
    """The one rule for a new business's slug: returns its schema name, or raises with a clear message.

    Call inside the creating transaction: it reads pg_namespace, so a schema that exists for any reason
    (another tool, a restore, a hand-made one) is never adopted by a new business.
    """
    try:
        SLUG_VALIDATOR(slug)
    except ValidationError as exc:
        raise ValidationError({"slug": exc.messages}) from None
    if slug in RESERVED_SLUGS or slug in RESERVED_SCHEMA_SLUGS or slug.startswith(RESERVED_SLUG_PREFIXES):
        raise ValidationError(
            {
                "slug": f"The address '{slug}' is reserved (addresses starting with "
                f"{' or '.join(repr(p) for p in RESERVED_SLUG_PREFIXES)} and names such as 'public', "
                "'information-schema', 'www' or 'admin' are kept for the system). Choose another."
            }
        )
    schema = business_schema_name(slug)
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_namespace WHERE lower(nspname) = lower(%s)", [schema])
        schema_taken = cursor.fetchone() is not None
    if (
        schema_taken
        or Business.objects.filter(slug=slug).exists()
        or Business.objects.filter(schema_name__iexact=schema).exists()
    ):
        raise ValidationError({"slug": f"A business with the address '{slug}' already exists."})
    return schema


def business_create(*, reseller: Reseller, name: str, slug: str) -> Business:
    """Create a business: its schema (all tenant migrations) and its host name.

    The schema is created by django-tenants when the row is saved. Everything runs in one transaction
    (PostgreSQL DDL is transactional): the slug check reads pg_namespace inside it, and if the schema
    cannot be made, the row, the schema and django-tenants' clean-up (which drops the schema named
    by the row, whoever made it) all roll back together.
    """
    slug = slug.strip().lower()
    name = name.strip()
    if not name:
        raise ValidationError({"name": "A business needs a name."})
    started = time.perf_counter()
    if settings.XORVENTA_TENANT_TEMPLATE:
        # Built (once per set of migrations) and committed before the business's own transaction, so
        # concurrent creators wait on the template's lock, not on this business's uncommitted rows.
        template_ensure()
    with transaction.atomic():
        schema = business_slug_check(slug)
        business = Business(reseller=reseller, name=name, slug=slug, schema_name=schema)
        business.save(verbosity=0)  # creates the schema (template copy, or the tenant migrations)
        Domain.objects.create(domain=business_host(slug), tenant=business, is_primary=True)
    logger.info("created business %s in %.0f ms", slug, (time.perf_counter() - started) * 1000)
    return business


def business_delete(*, business: Business) -> None:
    """Drop a business and its schema. Only for throwaway businesses (scenarios, evaluations, benches)."""
    business.delete(force_drop=True)


def business_set_active(*, business: Business, active: bool) -> Business:
    """Suspend (or resume) a business: a suspended one is not routed (host or path: a 404), so its
    portal, widget and API stop; its data stays until it is deleted."""
    Business.objects.filter(pk=business.pk).update(is_active=active)
    business.is_active = active
    logger.info("business %s %s", business.slug, "resumed" if active else "suspended")
    return business


def business_remove(*, business: Business) -> None:
    """A reseller deletes one of its businesses for good: schema, domains, memberships, keys. Only a
    suspended business can be deleted, so deleting is always a second, deliberate step."""
    if business.is_active:
        raise ValidationError("Suspend the business before deleting it.")
    business_delete(business=business)
