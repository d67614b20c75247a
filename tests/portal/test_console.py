"""The reseller's console: creating a business and white-labelling its portal and widget."""

from __future__ import annotations

import pytest


@pytest.fixture
def agency(world):
    return world.client(world.agency)


def test_create_a_business_provisions_it_and_invites_the_owner(
    agency, world, django_capture_on_commit_callbacks
):
    from django.core import mail

    from apps.accounts.models import Invitation
    from apps.tenants.models import Business

    with django_capture_on_commit_callbacks(execute=True):
        response = agency.post(
            "/console/acme/", {"name": "Bike Shop", "slug": "bikes", "owner_email": "o@bikes.example"}
        )
    assert response.status_code == 302
    business = Business.objects.get(slug="bikes")
    try:
        assert business.reseller == world.reseller
        assert Invitation.objects.filter(business=business, email="o@bikes.example", role="owner").exists()
        assert len(mail.outbox) == 1
        page = agency.get("/console/acme/").content.decode()
        assert "Bike Shop" in page and 'href="/t/bikes/"' in page
        assert agency.get("/t/bikes/knowledge/").status_code == 200  # the reseller opens its portal
        taken = agency.post("/console/acme/", {"name": "Again", "slug": "bikes"})
        assert taken.status_code == 400 and b"already exists" in taken.content
        bad = agency.post("/console/acme/", {"name": "Bad", "slug": "Not A Slug"})
        assert bad.status_code == 400
    finally:
        business.delete(force_drop=True)


def test_another_reseller_cannot_create_businesses_here(world):
    from apps.tenants.models import Business

    response = world.client(world.far_agency).post("/console/acme/", {"name": "Sneaky", "slug": "sneaky"})
    assert response.status_code == 404
    assert not Business.objects.filter(slug="sneaky").exists()


def test_white_label_applies_to_portal_and_widget(agency, world, in_sunny):
    form = {
        "product_name": "BakeBot",
        "logo_url": "/static/agency-logo.svg",
        "primary_color": "#117744",
        "show_powered_by": "",
    }
    assert agency.post("/console/acme/white-label/", form).status_code == 302
    world.reseller.refresh_from_db()
    assert world.reseller.product_name == "BakeBot" and not world.reseller.show_powered_by
    portal = world.client(world.owner).get("/t/sunny/knowledge/").content.decode()
    assert "BakeBot" in portal and "#117744" in portal and "/static/agency-logo.svg" in portal
    from apps.chat.widget import business_identity

    with in_sunny():
        identity = business_identity()
    assert identity["product_name"] == "BakeBot" and identity["powered_by"] is False
    far_portal = world.client(world.far_agency).get("/t/smiles/knowledge/").content.decode()
    assert "BakeBot" not in far_portal

    bad = agency.post(
        "/console/acme/white-label/", {**form, "primary_color": "#12", "logo_url": "javascript:alert(1)"}
    )
    assert bad.status_code == 400
    world.reseller.refresh_from_db()
    assert world.reseller.primary_color == "#117744"
