"""API keys: creating, revoking, checking and logging them (the REST API's views are in apps/api).

A key reaches one business, or every business of one reseller (plus the reseller's own endpoints);
it reads, or reads and writes. Only the person who may manage a business (its owner, its reseller's
admins) or a reseller (its admins) creates or revokes its keys: the portal and the console go through
``api_key_create`` / ``api_key_revoke`` after the access gate.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import cast

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from apps.accounts.models import ApiAccess, ApiKey, ApiKeyUse, User
from apps.tenants.db import use_public_schema
from apps.tenants.models import Business, Reseller
from apps.tenants.tasks import daily_schedule_ensure

LOG_PRUNE_SCHEDULE = "api-key-log-prune"


def api_key_create(
    *,
    name: str,
    access: str,
    created_by: User | None,
    business: Business | None = None,
    reseller: Reseller | None = None,
) -> tuple[ApiKey, str]:
    """A new key and its full text, which is never stored (show it once)."""
    name = name.strip()
    if not name:
        raise ValidationError({"name": "Give the key a name (where it is used, e.g. 'Zapier')."})
    if len(name) > 50:
        raise ValidationError({"name": "Use at most 50 characters."})
    if access not in ApiAccess.values:
        raise ValidationError({"access": "Choose read or write."})
    if (business is None) == (reseller is None):
        raise ValueError("A key is for one business or for one reseller.")
    key, text = ApiKey.objects.create_key(
        name=name, access=access, business=business, reseller=reseller, created_by=created_by
    )
    return cast(ApiKey, key), text


@transaction.atomic
def api_key_revoke(*, key: ApiKey) -> ApiKey:
    """Refused from the next request on (every request looks the key up again)."""
    key = ApiKey.objects.select_for_update().get(pk=key.pk)
    if not key.revoked:
        key.revoked = True
        key.revoked_at = timezone.now()
        key.save(update_fields=["revoked", "revoked_at"])
    return key


def api_key_check(text: str) -> ApiKey | None:
    """The live key with this full text, or None (unknown, wrong secret, revoked or expired)."""
    try:
        key = ApiKey.objects.get_from_key(text)
    except ApiKey.DoesNotExist:
        return None
    return None if key.has_expired else cast(ApiKey, key)


def api_key_reaches(key: ApiKey, business: Business) -> bool:
    """Whether ``key`` may act on ``business``: its own business, or one of its reseller's."""
    if key.business_id is not None:
        return key.business_id == business.pk
    return key.reseller_id == business.reseller_id


def api_key_use_record(*, key: ApiKey, business_slug: str, method: str, path: str, status: int) -> None:
    ApiKeyUse.objects.create(
        key=key, business_slug=business_slug, method=method, path=path[:300], status=status
    )
    # One cheap UPDATE; the log above is the record, this is for the list of keys.
    ApiKey.objects.filter(pk=key.pk).update(last_used_at=timezone.now())


def api_key_uses_prune(*, now: datetime | None = None) -> int:
    """Nightly: forget requests older than XORVENTA_API_KEY_LOG_DAYS, so the log does not grow without
    end. A worker task: the log is in the public schema, which it enters itself."""
    use_public_schema()
    cutoff = (now or timezone.now()) - timedelta(days=settings.XORVENTA_API_KEY_LOG_DAYS)
    deleted, _ = ApiKeyUse.objects.filter(at__lt=cutoff).delete()
    return deleted


def api_key_log_schedule_ensure() -> None:
    daily_schedule_ensure(
        name=LOG_PRUNE_SCHEDULE, func="apps.accounts.api_keys.api_key_uses_prune", at=time(3, 50)
    )


def api_requests_by_business(reseller: Reseller, *, since: datetime) -> dict[str, int]:
    """How many API requests each of the reseller's businesses received since ``since``, by slug
    (made with any key that reaches it: the business's own or the reseller's)."""
    rows = (
        ApiKeyUse.objects.filter(at__gte=since)
        .filter(Q(key__reseller=reseller) | Q(key__business__reseller=reseller))
        .exclude(business_slug="")
        .values("business_slug")
        .annotate(n=Count("id"))
    )
    return {row["business_slug"]: row["n"] for row in rows}


def api_keys_of_business(business: Business) -> QuerySet[ApiKey]:
    return ApiKey.objects.filter(business=business).order_by("revoked", "-created")


def api_keys_of_reseller(reseller: Reseller) -> QuerySet[ApiKey]:
    """The reseller's own keys and those of each of its businesses."""
    return (
        ApiKey.objects.filter(Q(reseller=reseller) | Q(business__reseller=reseller))
        .select_related("business")
        .order_by("revoked", "-created")
    )
