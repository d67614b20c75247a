"""Keys are made and revoked in the portal (owners) and the console (resellers), shown once, and work
(then stop working) on the API at once."""

from __future__ import annotations

import re

import pytest
from django.test import Client

KEY = re.compile(r'<code class="key">([^<]+)</code>')


def _signed_in(user) -> Client:
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


@pytest.mark.django_db
def test_an_owner_makes_a_key_sees_it_once_and_revokes_it(sunny, owner, make_user, api):
    from apps.accounts.models import ApiKey

    portal = _signed_in(owner)
    page = portal.post("/t/sunny/api-keys/", {"name": "Zapier", "access": "write"})
    assert page.status_code == 200
    text = KEY.search(page.content.decode()).group(1)
    key = ApiKey.objects.get(name="Zapier")
    assert key.business == sunny and key.created_by == owner and text.startswith(key.prefix + ".")
    assert text not in key.hashed_key and text not in portal.get("/t/sunny/api-keys/").content.decode()
    assert api(text, slug="sunny").post("knowledge/answers", {"answer": "We open at 7."}).status_code == 201

    revoked = portal.post(f"/t/sunny/api-keys/{key.prefix}/revoke/", HTTP_HOST="localhost")
    assert revoked.status_code == 302
    assert api(text, slug="sunny").get("knowledge/topics").status_code == 401

    staff = _signed_in(make_user("staff@sunny.test", role="staff", business=sunny))
    assert staff.get("/t/sunny/api-keys/").status_code == 404
    assert staff.post("/t/sunny/api-keys/", {"name": "x", "access": "write"}).status_code == 404


@pytest.mark.django_db
def test_an_owner_cannot_revoke_another_business_key(sunny, owner, make_business, make_key):
    from apps.accounts.models import ApiKey

    smiles = make_business("smiles")
    make_key(business=smiles, name="theirs")
    theirs = ApiKey.objects.get(name="theirs")
    assert _signed_in(owner).post(f"/t/sunny/api-keys/{theirs.prefix}/revoke/").status_code == 404
    assert not ApiKey.objects.get(pk=theirs.pk).revoked


@pytest.mark.django_db
def test_a_reseller_makes_keys_for_all_businesses_or_one(sunny, make_user, make_business, reseller, api):
    from apps.accounts.models import ApiKey
    from apps.tenants.services import reseller_create

    make_business("smiles")
    admin = _signed_in(make_user("admin@acme.test", role="reseller_admin", reseller=reseller))
    page = admin.post("/console/acme/api-keys/", {"name": "All", "access": "read", "scope": "*"})
    everything = KEY.search(page.content.decode()).group(1)
    page = admin.post("/console/acme/api-keys/", {"name": "One", "access": "read", "scope": "smiles"})
    one = KEY.search(page.content.decode()).group(1)
    assert api(everything, slug=None).get("reseller/usage").status_code == 200
    assert api(everything, slug="sunny").get("sources").status_code == 200
    assert api(one, slug="smiles").get("sources").status_code == 200
    assert api(one, slug="sunny").get("sources").status_code == 404
    assert api(one, slug=None).get("reseller/usage").status_code == 404

    other = reseller_create(name="Other", slug="other")
    stranger = _signed_in(make_user("admin@other.test", role="reseller_admin", reseller=other))
    assert stranger.get("/console/acme/api-keys/").status_code == 404
    prefix = ApiKey.objects.get(name="All").prefix
    assert stranger.post(f"/console/other/api-keys/{prefix}/revoke/").status_code == 404
    assert admin.post(f"/console/acme/api-keys/{prefix}/revoke/").status_code == 302
    assert api(everything, slug=None).get("reseller/usage").status_code == 401
