"""API keys: scope (business / reseller, read / write), both routings, revocation, the usage log,
the per-key rate limit and the one error shape."""

from __future__ import annotations

import pytest
from django.test import override_settings

ROUTINGS = ["host", "path"]


@pytest.mark.django_db
@pytest.mark.parametrize("routing", ROUTINGS)
def test_a_business_key_works_on_its_business_only(routing, sunny, make_business, make_key, api, reseller):
    from apps.tenants.services import reseller_create

    smiles = make_business("smiles")  # same reseller
    rival = make_business("rival", of=reseller_create(name="Other", slug="other"))
    key = make_key(business=sunny)
    assert api(key, slug="sunny", routing=routing).get("knowledge/topics").status_code == 200
    for other in (smiles, rival):
        refused = api(key, slug=other.slug, routing=routing).get("knowledge/topics")
        assert refused.status_code == 404, refused.content
        assert refused.json()["type"] == "client_error"
        assert refused.json()["errors"][0]["code"] == "not_found"
    # A business key is not a reseller key.
    assert api(key, slug=None).get("reseller/businesses").status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize("routing", ROUTINGS)
def test_a_reseller_key_reaches_its_businesses_only(routing, sunny, make_business, make_key, api, reseller):
    from apps.tenants.services import reseller_create

    rival = make_business("rival", of=reseller_create(name="Other", slug="other"))
    key = make_key(reseller=reseller)
    assert api(key, slug="sunny", routing=routing).get("knowledge/facts").status_code == 200
    assert api(key, slug=rival.slug, routing=routing).get("knowledge/facts").status_code == 404
    listed = api(key, slug=None).get("reseller/businesses").json()["results"]
    assert [b["slug"] for b in listed] == ["sunny"]
    assert api(key, slug=None).get("reseller/businesses/rival").status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize("routing", ROUTINGS)
def test_a_key_revoked_mid_session_is_refused(routing, sunny, make_key, api):
    from apps.accounts.api_keys import api_key_revoke
    from apps.accounts.models import ApiKey

    text = make_key(business=sunny)
    session = api(text, slug="sunny", routing=routing)
    assert session.get("knowledge/topics").status_code == 200
    api_key_revoke(key=ApiKey.objects.get(prefix=text.split(".")[0]))
    refused = session.get("knowledge/topics")
    assert refused.status_code == 401
    assert refused.json()["errors"][0]["code"] == "authentication_failed"
    assert refused["WWW-Authenticate"] == "Api-Key"


@pytest.mark.django_db
def test_no_key_a_wrong_secret_or_an_old_token_is_refused(sunny, make_key, api):
    from django.test import Client

    text = make_key(business=sunny)
    prefix = text.split(".")[0]
    assert api(f"{prefix}.wrongsecret", slug="sunny").get("knowledge/topics").status_code == 401
    assert Client().get("/api/v1/knowledge/topics", HTTP_HOST="sunny.localhost").status_code == 401
    token = Client(HTTP_AUTHORIZATION=f"Token {text}")
    assert token.get("/api/v1/knowledge/topics", HTTP_HOST="sunny.localhost").status_code == 401


@pytest.mark.django_db
def test_a_read_key_cannot_write(sunny, make_key, api):
    key = make_key(business=sunny, access="read")
    client = api(key, slug="sunny")
    assert client.get("knowledge/facts").status_code == 200
    refused = client.post("knowledge/facts", {"topic": "Hours", "statement": "Open 9-5."})
    assert refused.status_code == 403
    assert refused.json()["errors"][0]["detail"] == "This API key is read-only."


@pytest.mark.django_db
def test_every_request_is_logged_with_its_key(sunny, make_key, api):
    from apps.accounts.models import ApiKey, ApiKeyUse

    text = make_key(business=sunny, access="read")
    client = api(text, slug="sunny")
    client.get("knowledge/topics")
    client.post("knowledge/facts", {"topic": "Hours", "statement": "Open 9-5."})
    api(text, slug="sunny", routing="path").get("knowledge/facts/999")
    key = ApiKey.objects.get(prefix=text.split(".")[0])
    uses = list(ApiKeyUse.objects.filter(key=key).order_by("id").values_list("method", "path", "status"))
    assert uses == [
        ("GET", "/api/v1/knowledge/topics", 200),
        ("POST", "/api/v1/knowledge/facts", 403),
        ("GET", "/t/sunny/api/v1/knowledge/facts/999", 404),
    ]
    assert set(ApiKeyUse.objects.values_list("business_slug", flat=True)) == {"sunny"}
    assert key.last_used_at is not None


@pytest.mark.django_db
@override_settings(XORVENTA_API_KEY_RATE=3)
def test_the_rate_limit_counts_per_key(sunny, make_key, api):
    from tests.helpers import fresh_rate_window

    fresh_rate_window(needed=5)
    first, second = make_key(business=sunny), make_key(business=sunny)
    client = api(first, slug="sunny")
    assert [client.get("sources").status_code for _ in range(4)] == [200, 200, 200, 429]
    limited = client.get("sources")
    assert limited.json()["errors"][0]["code"] == "throttled" and int(limited["Retry-After"]) >= 1
    assert api(second, slug="sunny", routing="path").get("sources").status_code == 200


@pytest.mark.django_db
def test_reads_carry_an_etag_and_answer_304_when_unchanged(sunny, make_key, api):
    client = api(make_key(business=sunny), slug="sunny")
    first = client.get("widget/settings")
    assert first.status_code == 200 and first["ETag"]
    assert client.get("widget/settings", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    client.patch("widget/settings", {"greeting": "Hello there!"})
    changed = client.get("widget/settings", HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200 and changed.json()["greeting"] == "Hello there!"


@pytest.mark.django_db
def test_bad_input_has_the_one_error_shape(sunny, make_key, api):
    client = api(make_key(business=sunny), slug="sunny")
    bad = client.post("knowledge/facts", {"topic": "Hours"})
    assert bad.status_code == 400
    assert bad.json() == {
        "type": "validation_error",
        "errors": [{"code": "required", "detail": "This field is required.", "attr": "statement"}],
    }
    bad_date = client.get("knowledge/topics?on=tomorrow")
    assert bad_date.status_code == 400 and bad_date.json()["errors"][0]["attr"] == "on"
