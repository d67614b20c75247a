"""The reseller's endpoints with a reseller key: businesses (create, suspend, resume, delete), owners
and invitations, usage; another reseller's businesses stay out of reach."""

from __future__ import annotations

import pytest
from django.test import Client


@pytest.mark.django_db(transaction=True)
def test_reseller_businesses_team_and_usage(sunny, make_key, api, reseller, tenant_schema_template):
    from apps.tenants.models import Business
    from apps.tenants.services import business_delete

    client = api(make_key(reseller=reseller), slug=None)
    try:
        created = client.post(
            "reseller/businesses", {"name": "Bright Smiles", "slug": "smiles", "owner_email": "o@smiles.test"}
        )
        assert created.status_code == 201, created.content
        assert created.json()["host"].startswith("smiles.") and created.json()["path"] == "/t/smiles/"
        assert client.post("reseller/businesses", {"name": "X", "slug": "smiles"}).status_code == 400
        assert client.post("reseller/businesses", {"name": "X", "slug": "Bad Slug"}).status_code == 400
        team = client.get("reseller/businesses/smiles/team").json()
        assert [i["email"] for i in team["invitations"]] == ["o@smiles.test"]
        invited = client.post(
            "reseller/businesses/smiles/invitations", {"email": "staff@smiles.test", "role": "staff"}
        )
        assert invited.status_code == 201 and invited.json()["role"] == "staff"
        api(make_key(business=sunny), slug="sunny").get("sources")
        usage = {u["slug"]: u for u in client.get("reseller/usage").json()}
        assert sorted(usage) == ["smiles", "sunny"]
        assert usage["sunny"]["api_requests_30d"] == 1 and usage["smiles"]["api_requests_30d"] == 0

        # Suspended: its routes answer 404 (the business key too); deleting needs a suspension first.
        smiles_key = make_key(business=Business.objects.get(slug="smiles"))
        assert api(smiles_key, slug="smiles").get("sources").status_code == 200
        assert client.delete("reseller/businesses/smiles").status_code == 400
        assert client.post("reseller/businesses/smiles/suspend").json()["is_active"] is False
        assert Client().get("/t/smiles/", HTTP_HOST="localhost").status_code == 404
        assert api(smiles_key, slug="smiles", routing="path").get("sources").status_code == 404
        assert client.post("reseller/businesses/smiles/resume").json()["is_active"] is True
        assert api(smiles_key, slug="smiles").get("sources").status_code == 200
        client.post("reseller/businesses/smiles/suspend")
        assert client.delete("reseller/businesses/smiles").status_code == 204
        assert not Business.objects.filter(slug="smiles").exists()
    finally:
        for leftover in Business.objects.filter(slug="smiles"):
            business_delete(business=leftover)


@pytest.mark.django_db
def test_a_reseller_key_cannot_touch_another_resellers_business(make_business, make_key, api, reseller):
    from apps.tenants.services import reseller_create

    make_business("rival", of=reseller_create(name="Other", slug="other"))
    client = api(make_key(reseller=reseller), slug=None)
    for method, path in [
        ("get", "reseller/businesses/rival"),
        ("post", "reseller/businesses/rival/suspend"),
        ("delete", "reseller/businesses/rival"),
        ("get", "reseller/businesses/rival/team"),
        ("post", "reseller/businesses/rival/invitations"),
    ]:
        response = getattr(client, method)(path)
        assert response.status_code == 404, (method, path, response.content)


@pytest.mark.django_db
def test_a_read_only_reseller_key_cannot_create(make_key, api, reseller):
    client = api(make_key(reseller=reseller, access="read"), slug=None)
    assert client.get("reseller/businesses").status_code == 200
    assert client.post("reseller/businesses", {"name": "X", "slug": "xyz"}).status_code == 403
