"""Who reaches which page: members and their reseller get 200, everyone else a 404 (never a 403),
anonymous people are sent to sign in."""

from __future__ import annotations

import pytest

from tests.portal.conftest import seed_conversation, seed_knowledge

PAGES = [
    "knowledge/",
    "knowledge/topics/{topic}/",
    "knowledge/facts/{fact}/replace/",
    "knowledge/facts/{fact}/retire/",
    "knowledge/disagreements/",
    "sources/",
    "gaps/",
    "conversations/",
    "conversations/{conversation}/",
]
MANAGE_PAGES = ["widget/", "team/"]


@pytest.fixture
def urls(world, in_sunny):
    with in_sunny():
        seeded = seed_knowledge()
        conversation = seed_conversation(["What are your opening hours?"])
    ids = {"topic": seeded["hours"].topic_id, "fact": seeded["hours"].pk, "conversation": conversation.pk}
    return [f"/t/sunny/{p.format(**ids)}" for p in PAGES], [f"/t/sunny/{p}" for p in MANAGE_PAGES]


def test_members_and_their_reseller_see_every_page_staff_all_but_two(world, urls):
    pages, manage = urls
    for user in (world.owner, world.agency):
        client = world.client(user)
        home = client.get("/t/sunny/")
        assert home.status_code == 200 and b"Dashboard" in home.content
        for url in pages + manage:
            response = client.get(url)
            assert response.status_code == 200, (user, url, response.status_code)
            assert b"Sunny Bakery" in response.content
    # Staff: everything but the widget and the team.
    client = world.client(world.staff)
    for url in pages:
        assert client.get(url).status_code == 200, url
    for url in manage:
        assert client.get(url).status_code == 404, url
    nav = client.get("/t/sunny/knowledge/").content.decode()
    assert 'href="/t/sunny/team/"' not in nav and 'href="/t/sunny/widget/"' not in nav


def test_member_of_another_business_and_another_reseller_get_404(world, urls, in_sunny):
    pages, manage = urls
    for user in (world.other_owner, world.far_agency):
        client = world.client(user)
        for url in pages + manage:
            response = client.get(url)
            assert response.status_code == 404, (user, url)
            assert b"Sunny Bakery" not in response.content
        home = client.get("/t/sunny/")  # the public page of the business: no dashboard, no data
        assert home.status_code == 200 and b"Dashboard" not in home.content
    # Their posts are refused too, and change nothing.
    from apps.facts.models import Fact, FactStatus

    with in_sunny():
        fact = Fact.objects.filter(status=FactStatus.LIVE).first()
    client = world.client(world.other_owner)
    response = client.post(f"/t/sunny/knowledge/facts/{fact.pk}/retire/", {"reason": "sabotage"})
    assert response.status_code == 404
    with in_sunny():
        fact.refresh_from_db()
        assert fact.status == FactStatus.LIVE


def test_anonymous_people_are_sent_to_sign_in_and_hosts_route_too(world, urls):
    pages, manage = urls
    client = world.client()
    for url in pages + manage:
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith("/t/sunny/accounts/login/?next=/t/sunny/"), response[
            "Location"
        ]
    home = client.get("/t/sunny/")
    assert home.status_code == 200 and b'href="/t/sunny/accounts/login/"' in home.content
    # Reached by host name instead of path, the same gate applies.
    client = world.client(world.owner)
    response = client.get("/knowledge/", HTTP_HOST="sunny.localhost")
    assert response.status_code == 200 and b"Opening hours" in response.content
    assert client.get("/knowledge/", HTTP_HOST="brew.localhost").status_code == 404


def test_console_is_for_the_resellers_admins_only(world):
    agency = world.client(world.agency)
    assert agency.get("/console/")["Location"] == "/console/acme/"
    for url in ("/console/acme/", "/console/acme/white-label/"):
        assert agency.get(url).status_code == 200, url
    page = agency.get("/console/acme/").content.decode()
    assert "Sunny Bakery" in page and "Brew Cafe" in page and "Bright Smiles" not in page
    assert 'href="/t/sunny/"' in page
    for user in (world.owner, world.far_agency, world.staff):
        client = world.client(user)
        for url in ("/console/acme/", "/console/acme/white-label/"):
            assert client.get(url).status_code == 404, (user, url)
    assert world.client(world.owner).get("/console/").status_code == 404
    anonymous = world.client().get("/console/acme/")
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/")
