"""Where signing in lands, through the real sign-in form: a business's dashboard, a reseller's
console, a safe ``next``; an off-site ``next`` is ignored."""

from __future__ import annotations

import pytest
from django.test import Client

PASSWORD = "pw-Long-enough-1"  # tests.conftest.make_user's default


def _sign_in(path: str, email: str, **extra: str) -> str:
    response = Client().post(path, {"username": email, "password": PASSWORD, **extra})
    assert response.status_code == 302, response.content[:300]
    return response["Location"]


def test_an_owner_lands_on_their_dashboard(bakery):
    assert _sign_in("/accounts/login/", bakery.owner.email) == "/t/sunny/"
    # Signing in on the business's own address lands on the same dashboard.
    assert _sign_in("/t/sunny/accounts/login/", bakery.owner.email) == "/t/sunny/"


def test_the_dashboard_it_lands_on_opens(bakery):
    client = Client()
    landed = client.post("/accounts/login/", {"username": bakery.owner.email, "password": PASSWORD})
    assert landed["Location"] == "/t/sunny/"
    page = client.get(landed["Location"])
    assert page.status_code == 200 and "Sunny Bakery" in page.content.decode()


def test_a_reseller_lands_on_the_console_and_sees_its_link(bakery):
    client = Client()
    landed = client.post("/accounts/login/", {"username": bakery.agency.email, "password": PASSWORD})
    assert landed["Location"] == "/console/"
    assert client.get("/console/").status_code == 302  # one reseller: straight to its page
    assert 'href="/console/"' in client.get("/").content.decode()


def test_a_person_of_several_businesses_chooses(bakery, make_business, make_user):
    from apps.accounts.models import Role
    from apps.accounts.services import membership_grant

    brew = make_business("brew", "Brew Cafe")
    membership_grant(user=bakery.owner, role=Role.OWNER, business=brew)
    client = Client()
    landed = client.post("/accounts/login/", {"username": bakery.owner.email, "password": PASSWORD})
    assert landed["Location"] == "/"
    chooser = client.get("/").content.decode()
    assert 'href="/t/sunny/"' in chooser and 'href="/t/brew/"' in chooser


def test_a_safe_next_is_followed(bakery):
    landed = _sign_in("/t/sunny/accounts/login/", bakery.owner.email, next="/t/sunny/knowledge/")
    assert landed == "/t/sunny/knowledge/"


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/x", "https:/\\evil.example"])
def test_an_off_site_next_is_ignored(bakery, target):
    assert _sign_in("/accounts/login/", bakery.owner.email, next=target) == "/t/sunny/"
