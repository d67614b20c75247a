"""Routing by host and by path, plain 404s for unknown tenants, and the role checks."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token

from apps.accounts.access import access_business, business_role, businesses_for_user
from apps.accounts.models import Role
from apps.tenants.models import Business
from apps.tenants.routing import normalise_host


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("SUNNY.localhost:8000", "sunny.localhost"),
        ("www.Sunny.Example.com.", "sunny.example.com"),
        ("[::1]:8000", "[::1]"),
        ("localhost", "localhost"),
    ],
)
def test_host_names_are_normalised(raw, expected):
    assert normalise_host(raw) == expected


@pytest.fixture
def two(make_business, reseller):
    from apps.tenants.services import reseller_create

    other_reseller = reseller_create(name="Other Agency", slug="other")
    return make_business("sunny", "Sunny Bakery"), make_business("smiles", "Bright Smiles", of=other_reseller)


def test_business_is_reachable_by_host_and_by_path(two):
    client = Client()
    by_host = client.get("/", HTTP_HOST="sunny.localhost:8000")
    by_upper_host = client.get("/", HTTP_HOST="SUNNY.LOCALHOST")
    by_path = client.get("/t/sunny/")
    for response in (by_host, by_upper_host, by_path):
        assert response.status_code == 200
        assert b"Sunny Bakery" in response.content and b"Bright Smiles" not in response.content
    assert b"Bright Smiles" in client.get("/t/smiles/").content


def test_path_routed_links_keep_the_prefix(two):
    body = Client().get("/t/sunny/").content.decode()
    assert 'href="/t/sunny/accounts/login/"' in body


@pytest.mark.parametrize(
    ("host", "path"), [("nope.localhost", "/"), ("localhost", "/t/nope/"), ("evil.com", "/")]
)
def test_unknown_tenants_get_a_plain_404(two, host, path):
    response = Client().get(path, HTTP_HOST=host)
    assert response.status_code in (400, 404)
    assert b"Traceback" not in response.content and len(response.content) < 200


def test_public_site_is_served_on_the_base_domain(two):
    assert Client().get("/", HTTP_HOST="localhost:8000").status_code == 200
    assert Client().get("/healthz", HTTP_HOST="localhost").json() == {"status": "ok"}


def test_roles(two, make_user, reseller):
    sunny, smiles = two
    owner = make_user("owner@sunny.example", role="owner", business=sunny)
    staff = make_user("staff@sunny.example", role="staff", business=sunny)
    agency = make_user("admin@acme.example", role="reseller_admin", reseller=reseller)
    stranger = make_user("someone@else.example")
    assert business_role(owner, sunny) == Role.OWNER and business_role(owner, smiles) is None
    assert business_role(staff, sunny) == Role.STAFF
    assert business_role(agency, sunny) == Role.RESELLER_ADMIN
    assert business_role(agency, smiles) is None  # another reseller's business
    assert business_role(stranger, sunny) is None
    assert [b.slug for b in businesses_for_user(agency)] == ["sunny"]
    from django.http import Http404

    with pytest.raises(Http404):
        access_business(agency, smiles)
    with pytest.raises(Http404):
        access_business(staff, sunny, roles=frozenset({Role.OWNER}))


def test_reseller_api_creates_only_its_own_businesses(
    make_user, reseller, django_capture_on_commit_callbacks
):
    agency = make_user("admin@acme.example", role="reseller_admin", reseller=reseller)
    token = Token.objects.create(user=agency)
    client = Client(HTTP_AUTHORIZATION=f"Token {token.key}")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/api/v1/businesses",
            {"name": "Bike Shop", "slug": "bikes", "owner_email": "o@bikes.example"},
            content_type="application/json",
        )
    assert response.status_code == 201, response.content
    assert response.json()["host"] == "bikes.localhost"
    assert Business.objects.get(slug="bikes").reseller == reseller
    listed = client.get("/api/v1/businesses").json()
    assert [b["slug"] for b in listed] == ["bikes"]
    bad = client.post(
        "/api/v1/businesses", {"name": "X", "slug": "Not A Slug"}, content_type="application/json"
    )
    assert bad.status_code == 400 and "slug" in bad.json()
    Business.objects.get(slug="bikes").delete(force_drop=True)


def test_api_refuses_anonymous_and_non_resellers(make_user, two):
    assert Client().post("/api/v1/businesses", {"name": "X", "slug": "xyz"}).status_code == 401
    owner = make_user("owner@sunny.example", role="owner", business=two[0])
    token = Token.objects.create(user=owner)
    response = Client(HTTP_AUTHORIZATION=f"Token {token.key}").post(
        "/api/v1/businesses", {"name": "X", "slug": "xyz"}, content_type="application/json"
    )
    assert response.status_code == 404


def test_invitation_becomes_a_membership(make_business, django_capture_on_commit_callbacks):
    from apps.accounts.models import Invitation, Membership

    with django_capture_on_commit_callbacks(execute=True):
        business = make_business("sunny", "Sunny Bakery", owner_email="new@sunny.example")
    token = Invitation.objects.get().token
    client = Client()
    page = client.get(f"/accounts/invite/{token}/")
    assert page.status_code == 200 and b"Sunny Bakery" in page.content
    done = client.post(
        f"/accounts/invite/{token}/", {"password": "a-Long-pass-123", "password_again": "a-Long-pass-123"}
    )
    assert done.status_code == 302
    assert Membership.objects.get(user__email="new@sunny.example").business == business
    assert client.get(f"/accounts/invite/{token}/").status_code == 404  # used once
