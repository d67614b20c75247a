"""SSRF through the crawler (issue 16, finding 1), attacked through the product's own entry points.

An owner sets the business's website to an internal address; before the fix the worker fetched it and
the page's text became facts anonymous visitors could ask for. Each test serves a secret page on
127.0.0.1, switches the test suite's loopback allowance OFF (production's default) and checks that the
server saw no request and no fact holds the secret. The guard itself is tested in
tests/outbound/test_outbound_guard.py.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from django_tenants.utils import tenant_context

from apps.facts.ingestion import website_crawl_start
from apps.facts.models import Fact, IngestionJob, JobStatus, Source, WebsiteSettings
from apps.outbound import allow_local_server
from tests.facts.sitefixture import Route, Site, serve

SECRET = "The admin password is hunter2-7f3a"


def _secret_site(site: Site) -> None:
    page = f"<html><head><title>Admin</title></head><body><main><p>{SECRET}.</p></main></body></html>"
    site.routes["/secret"] = Route(page)
    site.routes["/"] = Route(page)
    site.routes["/robots.txt"] = Route("User-agent: *\nAllow: /\n", content_type="text/plain")


@pytest.fixture
def secret() -> Iterator[Site]:
    with serve(_secret_site) as site:
        yield site


@pytest.fixture
def production_outbound(settings) -> None:
    """What a deployment runs with: no loopback allowance (tests/pytest_env.py turns it on)."""
    settings.XORVENTA_OUTBOUND_ALLOW_LOOPBACK = False
    settings.XORVENTA_OUTBOUND_ALLOWED_PORTS = frozenset({80, 443})


def _learned_the_secret() -> bool:
    return Fact.objects.filter(statement__icontains="hunter2").exists() or Source.objects.exists()


@pytest.mark.django_db
def test_the_portal_refuses_an_internal_website_when_it_is_saved(
    make_business, make_user, production_outbound, secret
):
    from django.test import Client

    business = make_business("sunny", "Sunny Bakery")
    owner = Client()
    owner.force_login(make_user("owner@sunny.example", role="owner", business=business))
    for url, reason in (
        (secret.url("/secret"), "127.0.0.1 is a loopback address"),
        (f"localhost:{secret.port}/secret", "localhost is a loopback address"),
        (f"http://[::ffff:127.0.0.1]:{secret.port}/", "an IPv6 form of 127.0.0.1, a loopback address"),
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a cloud metadata address"),
        ("http://10.0.0.5/", "10.0.0.5 is a private address"),
        ("https://sunny-bakery.example:8443/", "port 8443 is not allowed"),
    ):
        response = owner.post(
            "/t/sunny/sources/",
            {"start_url": url, "schedule": "daily", "max_pages": "10", "max_depth": "1"},
        )
        assert response.status_code == 400, url
        assert reason in response.content.decode(), url
    with tenant_context(business):
        assert not WebsiteSettings.objects.exists()
    assert secret.hits == []


@pytest.mark.django_db
def test_a_crawl_of_an_internal_address_is_refused_and_recorded_on_the_job(
    make_business, production_outbound, secret
):
    """The service the admin's 'crawl now', the crawl_site command and a saved website's re-sync call."""
    business = make_business("sunny", "Sunny Bakery")
    with tenant_context(business):
        job = website_crawl_start(start_url=secret.url("/secret"), actor="attacker")
        assert job.status == JobStatus.FAILED
        assert "refused: 127.0.0.1 is a loopback address" in job.error
        assert job.errors == [
            {"url": secret.url("/secret"), "error": "refused: 127.0.0.1 is a loopback address"}
        ]
        assert not _learned_the_secret()
    assert secret.hits == []


@pytest.mark.django_db
def test_a_website_that_redirects_inside_is_refused_at_the_redirect(
    make_business, production_outbound, secret
):
    """The start page answers, then redirects to a loopback server the crawler may not reach. The first
    server is one the test allows (as the demo allows its own site); only the redirect hop is refused."""

    def front(site: Site) -> None:
        site.routes["/"] = Route(status=302, headers={"Location": secret.url("/secret")})

    business = make_business("sunny", "Sunny Bakery")
    with serve(front) as site, allow_local_server(site.base), tenant_context(business):
        job = website_crawl_start(start_url=site.url("/"), actor="attacker")
        assert job.status == JobStatus.FAILED
        assert "refused: 127.0.0.1 is a loopback address" in job.error
        assert not _learned_the_secret()
        assert site.paths_hit() == ["/robots.txt", "/"]
    assert secret.hits == []


def _loopback_name() -> str:
    """A name this machine resolves to loopback without DNS (/etc/hosts): its own host name."""
    name = socket.gethostname()
    try:
        answers = {info[4][0] for info in socket.getaddrinfo(name, 80, type=socket.SOCK_STREAM)}
    except OSError:
        answers = set()
    if not answers or not all(answer.startswith("127.") or answer == "::1" for answer in answers):
        pytest.skip(f"this machine's host name {name!r} does not resolve to loopback only")
    return name


@pytest.mark.django_db(transaction=True)
def test_the_worker_refuses_a_saved_name_that_resolves_to_loopback(
    make_business, make_user, settings, secret, monkeypatch, tmp_path
):
    """The full attack, as an owner would make it: save a website whose name resolves to 127.0.0.1 (the
    form cannot know without DNS), press 'sync now', and let the real worker (manage.py qcluster) crawl
    it. The port is allowed here so that only the address check stands between the owner and the
    secret page."""
    from django.test import Client

    from tests.facts.test_jobs_worker import wait_for, worker

    name = _loopback_name()
    ports = f"80,443,{secret.port}"
    settings.XORVENTA_OUTBOUND_ALLOW_LOOPBACK = False
    settings.XORVENTA_OUTBOUND_ALLOWED_PORTS = frozenset({80, 443, secret.port})
    monkeypatch.setenv("XORVENTA_OUTBOUND_ALLOW_LOOPBACK", "0")  # the worker's own settings
    monkeypatch.setenv("XORVENTA_OUTBOUND_ALLOWED_PORTS", ports)
    business = make_business("wsunny", "Sunny Bakery")
    owner = Client()
    owner.force_login(make_user("owner@wsunny.example", role="owner", business=business))
    url = f"http://{name}:{secret.port}/secret"
    saved = owner.post(
        "/t/wsunny/sources/", {"start_url": url, "schedule": "off", "max_pages": "10", "max_depth": "1"}
    )
    assert saved.status_code == 302
    log = tmp_path / "worker.log"
    with worker(log):
        assert owner.post("/t/wsunny/sources/sync/").status_code == 302
        with tenant_context(business):
            job = IngestionJob.objects.get()
        job = wait_for(business, job.pk, lambda j: j.status in (JobStatus.DONE, JobStatus.FAILED), log)
    assert job.status == JobStatus.FAILED, job.error
    assert f"refused: {name} resolves to 127.0.0.1, a loopback address" in job.error
    with tenant_context(business):
        assert not _learned_the_secret()
    assert secret.hits == []
