"""Saving a website address on the Sources page starts its first crawl at once, in the worker; saving
the same address again starts nothing."""

from __future__ import annotations

from django_q.models import OrmQ

from tests.facts.sitefixture import Route, Site, page, serve
from tests.helpers import run_queued_tasks


def _build(site: Site) -> None:
    site.routes["/robots.txt"] = Route("User-agent: *\nAllow: /\n", content_type="text/plain")
    site.routes["/"] = Route(
        page(
            "Home",
            "<h1>Crumb Bakery</h1><p>We bake sourdough every morning.</p>",
            nav='<a href="/hours">Hours</a>',
        )
    )
    site.routes["/hours"] = Route(
        page("Hours", "<h1>Opening hours</h1><p>We are open Monday to Friday, 7 AM to 3 PM.</p>")
    )


def _save(client, url: str, schedule: str = "weekly"):
    return client.post(
        "/t/sunny/sources/",
        {"start_url": url, "schedule": schedule, "max_pages": "10", "max_depth": "2"},
    )


def test_saving_a_new_address_queues_one_crawl_that_reads_the_site(
    bakery, in_sunny, django_capture_on_commit_callbacks
):
    from apps.facts.models import IngestionJob, JobStatus, Source

    owner = bakery.client(bakery.owner)
    with serve(_build) as site:
        with django_capture_on_commit_callbacks(execute=True):
            saved = _save(owner, site.url("/"))
        assert saved.status_code == 302
        assert OrmQ.objects.count() == 1  # exactly one task, handed over when the save committed
        with in_sunny():
            job = IngestionJob.objects.get()
            assert job.kind == "crawl" and job.target == site.url("/") and job.status == JobStatus.QUEUED
        landed = owner.get(saved["Location"]).content.decode()
        assert "Reading your website now" in landed
        assert f"/t/sunny/sources/jobs/{job.pk}/" in landed  # its progress is polled on the page

        assert run_queued_tasks() == 1  # as the worker would, entering the bakery's schema
    with in_sunny():
        job.refresh_from_db()
        assert job.status == JobStatus.DONE, job.error
        refs = set(Source.objects.filter(kind="website", is_active=True).values_list("ref", flat=True))
    assert {site.url("/"), site.url("/hours")} <= refs
    assert owner.get(f"/t/sunny/sources/jobs/{job.pk}/").status_code == 200


def test_saving_the_same_address_again_queues_nothing(bakery, in_sunny, django_capture_on_commit_callbacks):
    from apps.facts.models import IngestionJob

    owner = bakery.client(bakery.owner)
    with django_capture_on_commit_callbacks(execute=True):
        assert _save(owner, "sunny-bakery.example").status_code == 302
    assert OrmQ.objects.count() == 1
    OrmQ.objects.all().delete()  # as if the worker took it
    with django_capture_on_commit_callbacks(execute=True):
        # The same address (as typed, or as it was normalised), with only the schedule changed.
        assert _save(owner, "sunny-bakery.example", schedule="daily").status_code == 302
        assert _save(owner, "https://sunny-bakery.example/", schedule="daily").status_code == 302
    assert OrmQ.objects.count() == 0
    with in_sunny():
        assert IngestionJob.objects.count() == 1
    with django_capture_on_commit_callbacks(execute=True):
        assert _save(owner, "www2.sunny-bakery.example").status_code == 302  # a new address: read it
    assert OrmQ.objects.count() == 1


def test_an_internal_address_is_refused_and_nothing_is_queued(
    bakery, in_sunny, settings, django_capture_on_commit_callbacks
):
    from apps.facts.models import IngestionJob

    settings.XORVENTA_OUTBOUND_ALLOW_LOOPBACK = False
    owner = bakery.client(bakery.owner)
    with django_capture_on_commit_callbacks(execute=True):
        refused = _save(owner, "http://127.0.0.1:8000/")
    assert refused.status_code == 400 and "cannot be read" in refused.content.decode()
    assert OrmQ.objects.count() == 0
    with in_sunny():
        assert not IngestionJob.objects.exists()
