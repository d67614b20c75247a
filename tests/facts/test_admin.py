"""The knowledge admin on a business's host: lists with filters, read-only facts with their history,
actions that go through the services, the job list with progress and the change report, and who may
see any of it."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django_q.models import Schedule

from apps.facts.ingestion import website_crawl_start
from apps.facts.models import (
    Disagreement,
    DisagreementStatus,
    Fact,
    FactEvent,
    FactStatus,
    IngestionJob,
    JobKind,
    JobStatus,
    Topic,
    WebsiteSettings,
)
from apps.facts.services import owner_fact_add, source_ingest
from tests.facts.sitefixture import serve
from tests.facts.test_ingestion import EXTRACTOR, announced, build_bakery  # noqa: F401 - autouse fixture

HOST = "sunny.localhost"


@pytest.fixture
def knowledge(business):
    owner_fact_add(topic="Sourdough", aspect="price", statement="Sourdough price is $8.50.", value="$8.50")
    source_ingest(
        kind="website",
        ref="https://sunny.example/menu",
        content="Sourdough price is $9.\n\nCroissant price is $3.",
        extractor=EXTRACTOR,
    )
    return business


@pytest.fixture
def staff_client(knowledge, make_user) -> Callable[..., object]:
    """A logged-in client for the business's host; puts the test back in the business's schema after
    each request (the routing middleware leaves the public schema active)."""
    admin_user = make_user("admin@xorventa.example")
    admin_user.is_staff = admin_user.is_superuser = True
    admin_user.save()
    client = Client(HTTP_HOST=HOST)
    client.force_login(admin_user)

    def call(method: str, url: str, data: dict | None = None, **extra: object):
        response = getattr(client, method)(url, data or {}, **extra)
        connection.set_tenant(knowledge)
        return response

    return call


def _text(response) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


def test_lists_and_filters_open_for_the_business(staff_client):
    topic = Topic.objects.get(name="Sourdough")
    for url in [
        "/admin/",
        "/admin/facts/fact/",
        f"/admin/facts/fact/?status__exact=live&source_kind__exact=website&topic__id__exact={topic.pk}",
        "/admin/facts/fact/?visibility__exact=public&q=croissant",
        "/admin/facts/source/?kind__exact=website",
        "/admin/facts/disagreement/?status__exact=open",
        "/admin/facts/topic/",
        "/admin/facts/ingestionjob/?status__exact=done",
        "/admin/facts/websitesettings/",
    ]:
        assert staff_client("get", url).status_code == 200, url
    filtered = _text(
        staff_client("get", f"/admin/facts/fact/?source_kind__exact=website&topic__id__exact={topic.pk}")
    )
    assert "Croissant price is $3." not in filtered and "Sourdough price is $8.50." not in filtered


def test_a_fact_is_read_only_with_its_sources_and_history(staff_client):
    fact = Fact.objects.get(statement="Sourdough price is $8.50.")
    page = _text(staff_client("get", f"/admin/facts/fact/{fact.pk}/change/"))
    assert "Sourdough price is $8.50." in page and "Learned" in page
    assert 'name="statement"' not in page  # no input: read-only
    assert "says otherwise" in page  # the website's $9 is recorded in the history as a disagreement
    assert staff_client("post", f"/admin/facts/fact/{fact.pk}/delete/", {"post": "yes"}).status_code == 403
    assert staff_client("get", "/admin/facts/fact/add/").status_code == 403
    assert Fact.objects.filter(pk=fact.pk).exists()


def test_retire_needs_a_reason_and_restore_undoes_it(staff_client):
    fact = Fact.objects.get(statement="Croissant price is $3.")
    action = {"_selected_action": [fact.pk]}
    staff_client("post", "/admin/facts/fact/", {**action, "action": "retire_facts", "reason": ""})
    assert Fact.objects.get(pk=fact.pk).status == FactStatus.LIVE

    staff_client(
        "post", "/admin/facts/fact/", {**action, "action": "retire_facts", "reason": "Sold out for good"}
    )
    fact.refresh_from_db()
    assert fact.status == FactStatus.RETIRED and fact.retired_reason == "Sold out for good"
    assert FactEvent.objects.filter(fact=fact, kind="retired", actor="admin@xorventa.example").exists()

    staff_client(
        "post", "/admin/facts/fact/", {**action, "action": "restore_facts", "reason": "Back on the menu"}
    )
    assert Fact.objects.get(pk=fact.pk).status == FactStatus.LIVE


@pytest.mark.parametrize("action, status", [("accept", "accepted"), ("dismiss", "dismissed")])
def test_disagreements_are_accepted_or_dismissed(staff_client, action, status):
    disagreement = Disagreement.objects.get()
    staff_client(
        "post", "/admin/facts/disagreement/", {"action": action, "_selected_action": [disagreement.pk]}
    )
    disagreement.refresh_from_db()
    assert disagreement.status == DisagreementStatus(status)
    owner_fact = Fact.objects.get(statement="Sourdough price is $8.50.")
    assert (owner_fact.status == FactStatus.LIVE) is (action == "dismiss")


def test_topic_history(staff_client):
    topic = Topic.objects.get(name="Sourdough")
    page = _text(staff_client("get", f"/admin/facts/topic/{topic.pk}/change/"))
    assert "History" in page and "Sourdough price is $8.50." in page and "Contradicted" in page


def test_job_list_shows_progress_and_the_change_report(staff_client):
    with serve(build_bakery) as site:
        job = website_crawl_start(start_url=site.url("/"), extractor=EXTRACTOR, timeout=0.5)
    listing = _text(staff_client("get", "/admin/facts/ingestionjob/"))
    row = re.search(
        rf'<tr><td class="action-checkbox">[^\n]*?/ingestionjob/{job.pk}/change/.*?</tr>', listing
    )
    assert row is not None
    cells = dict(re.findall(r'<td class="field-(\w+)[^"]*">([^<]*)</td>', row.group(0)))
    # The knowledge fixture already knew "Sourdough price is $8.50." from the owner: the site's $8 conflicts.
    assert cells["status"] == "Done" and cells["pages_done"] == "5/5" and cells["error_count"] == "0"
    assert (cells["facts_added"], cells["disagreements"]) == (str(job.facts_added), "1")
    detail = _text(staff_client("get", f"/admin/facts/ingestionjob/{job.pk}/change/"))
    assert (
        "Details added" in detail
        and "Bakery founder is Ana." in detail
        and "disallowed by robots.txt" in detail
    )


def test_website_settings_and_sync_now(staff_client, django_capture_on_commit_callbacks):
    response = staff_client(
        "post",
        "/admin/facts/websitesettings/add/",
        {"start_url": "sunny-bakery.example", "schedule": "weekly", "max_pages": "30", "max_depth": "2"},
    )
    assert response.status_code == 302
    row = WebsiteSettings.objects.get()
    assert (row.start_url, row.schedule) == ("https://sunny-bakery.example/", "weekly")
    assert (
        Schedule.objects.get(name=f"website-resync:{connection.schema_name}").schedule_type == Schedule.WEEKLY
    )

    with django_capture_on_commit_callbacks() as callbacks:
        staff_client(
            "post", "/admin/facts/websitesettings/", {"action": "sync_now", "_selected_action": [row.pk]}
        )
    job = IngestionJob.objects.get()
    assert (job.kind, job.status, job.created_by) == (
        JobKind.RESYNC,
        JobStatus.QUEUED,
        "admin@xorventa.example",
    )
    assert len(callbacks) == 1  # handed to the worker once the request's transaction commits


def test_upload_from_the_admin_starts_a_background_job(staff_client, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    upload = SimpleUploadedFile("hours.txt", b"Bakery hours are 7am to 3pm.\n", content_type="text/plain")
    response = staff_client(
        "post", "/admin/facts/ingestionjob/add/", {"upload": upload, "visibility": "internal"}
    )
    assert response.status_code == 302
    job = IngestionJob.objects.get()
    assert (job.kind, job.target, job.status, job.visibility) == ("upload", "hours.txt", "queued", "internal")


def test_who_sees_the_knowledge_admin(knowledge, make_user):
    stranger = make_user("staff@elsewhere.example")
    stranger.is_staff = True
    stranger.save()
    reseller_admin = make_user("agency@acme.example", role="reseller_admin", reseller=knowledge.reseller)
    reseller_admin.is_staff = True
    reseller_admin.save()
    superuser = make_user("root@xorventa.example")
    superuser.is_staff = superuser.is_superuser = True
    superuser.save()

    def status(user, host: str = HOST) -> int:
        client = Client(HTTP_HOST=host)
        client.force_login(user)
        code = client.get("/admin/facts/fact/").status_code
        connection.set_tenant(knowledge)
        return code

    # The staff admin is for operators only (issue 16, finding 4): a staff flag alone, even of the
    # reseller that manages the business, is sent to the admin's sign-in page.
    assert status(stranger) == 302
    assert status(reseller_admin) == 302
    assert status(superuser) == 200
    assert status(superuser, host="localhost") == 403  # not on the public admin: no such tables there
