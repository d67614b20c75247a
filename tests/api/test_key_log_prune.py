"""The API keys' request log is pruned nightly, so it does not grow without end."""

from datetime import timedelta

import pytest
from django.utils import timezone

pytestmark = pytest.mark.django_db


def test_requests_older_than_the_kept_days_are_forgotten_and_newer_ones_kept(
    make_business, make_user, settings
):
    from apps.accounts.api_keys import api_key_create, api_key_use_record, api_key_uses_prune
    from apps.accounts.models import ApiKeyUse

    settings.XORVENTA_API_KEY_LOG_DAYS = 90
    sunny = make_business("sunny", "Sunny Bakery")
    owner = make_user("owner@sunny.test", role="owner", business=sunny)
    key, _text = api_key_create(name="zapier", access="read", business=sunny, created_by=owner)
    for _ in range(3):
        api_key_use_record(key=key, business_slug="sunny", method="GET", path="/api/v1/sources", status=200)
    old, edge, fresh = ApiKeyUse.objects.order_by("id")
    now = timezone.now()
    ApiKeyUse.objects.filter(pk=old.pk).update(at=now - timedelta(days=91))
    ApiKeyUse.objects.filter(pk=edge.pk).update(at=now - timedelta(days=89))

    assert api_key_uses_prune(now=now) == 1
    assert set(ApiKeyUse.objects.values_list("pk", flat=True)) == {edge.pk, fresh.pk}
    assert api_key_uses_prune(now=now) == 0  # idempotent


def test_up_schedules_the_prune_once(db):
    from django_q.models import Schedule

    from apps.accounts.api_keys import LOG_PRUNE_SCHEDULE, api_key_log_schedule_ensure

    api_key_log_schedule_ensure()
    api_key_log_schedule_ensure()
    schedule = Schedule.objects.get(name=LOG_PRUNE_SCHEDULE)
    assert schedule.func == "apps.accounts.api_keys.api_key_uses_prune"
    assert schedule.schedule_type == Schedule.DAILY
