"""Ingestion jobs in one process: crawls of a local site (served by the test), re-syncs, uploads,
resuming an interrupted job, schedules, and the management commands.

A tiny deterministic extractor turns sentences shaped "<Topic> <aspect> is <value>." into one fact each,
so a failure here is ingestion's fault, not extraction's (the real extractors have their own tests; the
worker tests in test_jobs_worker.py use the configured one).
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from django_tenants.utils import get_public_schema_name, schema_context, tenant_context

from apps.facts.extraction.base import Candidate, ExtractionContext
from apps.facts.ingestion import (
    IngestionInputError,
    document_upload,
    ingestion_job_resume,
    ingestion_job_run,
    job_report_lines,
    website_crawl_start,
    website_resync_scheduled,
    website_settings_update,
    website_sync_now,
)
from apps.facts.models import (
    Fact,
    FactStatus,
    IngestionJob,
    JobKind,
    JobStatus,
    Source,
    SourceKind,
    SourceVersion,
    VersionOutcome,
    WebsiteSettings,
)
from apps.facts.services import source_ingest
from tests.facts.sitefixture import Route, Site, serve
from tests.facts.test_documents import make_pdf

SENTENCE = re.compile(r"^(?P<topic>[A-Z]\w+) (?P<aspect>\w+) (?:is|are) (?P<value>[^.]+)\.?$")


class SentenceExtractor:
    """ "Sourdough price is $8." -> topic Sourdough, aspect price, value $8. Anything else: nothing."""

    name = "sentences"

    def extract(self, text: str, context: ExtractionContext) -> list[Candidate]:
        match = SENTENCE.match(text.strip().lstrip("-").strip())
        if not match:
            return []
        return [
            Candidate(
                topic=match["topic"],
                aspect=match["aspect"],
                statement=text.strip().lstrip("-").strip(),
                value=match["value"],
            )
        ]


EXTRACTOR = SentenceExtractor()
FAST = {"timeout": 0.5}


@pytest.fixture(autouse=True)
def announced() -> Iterator[list[frozenset[int]]]:
    """Record the knowledge layer's "topics changed" announcements instead of re-indexing (retrieval has
    its own tests; the worker tests keep the real re-index): fast, and it shows how often a job announces."""
    from apps.facts.signals import topics_changed
    from apps.retrieval.receivers import reindex_changed_topics

    calls: list[frozenset[int]] = []

    def record(sender: object, *, topic_ids: frozenset[int], **kwargs: object) -> None:
        calls.append(topic_ids)

    topics_changed.disconnect(dispatch_uid="retrieval-reindex")
    topics_changed.connect(record, dispatch_uid="test-record")
    try:
        yield calls
    finally:
        topics_changed.disconnect(dispatch_uid="test-record")
        topics_changed.connect(reindex_changed_topics, dispatch_uid="retrieval-reindex")


def html(title: str, *sentences: str, links: tuple[str, ...] = ()) -> str:
    """A small page with chrome (nav, footer) the extractor must not see, and its own main text."""
    body = "\n".join(f"<p>{s}</p>" for s in sentences)
    more = "".join(f'<li><a href="{href}">{href}</a></li>' for href in links)
    return f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>{title}</title></head>
<body><header><nav><a href="/">Home</a> <a href="/menu">Menu</a> <a href="/about">About</a></nav></header>
<main><h1>{title}</h1>
{body}
<ul>{more}</ul></main>
<footer><p>Bakery address is 12 Mill Lane.</p></footer></body></html>"""


HOME = ("Bakery hours are 7am to 3pm.", "Bakery phone is 555-0100.")
MENU = ("Sourdough price is $8.", "Croissant price is $3.")
ABOUT = ("Bakery founder is Ana.", "Flour origin is local.")
TEAM = ("Baker name is Tom.", "Flour origin is local.", "Oven type is wood.")


def build_bakery(site: Site) -> None:
    site.routes["/robots.txt"] = Route("User-agent: *\nDisallow: /private/\n", content_type="text/plain")
    site.routes["/"] = Route(html("Home", *HOME, links=("/menu", "/about", "/team", "/private/staff")))
    site.routes["/menu"] = Route(html("Menu", *MENU))
    site.routes["/about"] = Route(html("About", *ABOUT))
    site.routes["/team"] = Route(html("Team", *TEAM))
    site.routes["/private/staff"] = Route(html("Staff", "Staff code is 1234."))


@pytest.fixture
def bakery() -> Iterator[Site]:
    with serve(build_bakery) as site:
        yield site


def crawl(site: Site, **kwargs: object) -> IngestionJob:
    kwargs.setdefault("timeout", FAST["timeout"])
    return website_crawl_start(start_url=site.url("/"), extractor=EXTRACTOR, **kwargs)  # type: ignore[arg-type]


def live() -> set[str]:
    return set(Fact.objects.filter(status=FactStatus.LIVE).values_list("statement", flat=True))


def outcomes(job: IngestionJob) -> dict[str, str]:
    return {item["ref"]: item["outcome"] for item in job.report["items"]}


# ----------------------------------------------------------------------------------------------
# Website


def test_first_crawl_learns_every_page_and_reports_progress(business, bakery, announced):
    seen: list[tuple[int, int]] = []
    job = crawl(bakery, progress=lambda j: seen.append((j.done, j.total)))

    assert job.status == JobStatus.DONE and job.kind == JobKind.CRAWL
    assert live() == {*HOME, *MENU, *ABOUT, *TEAM, "Bakery address is 12 Mill Lane."}  # + the footer
    assert job.facts_added == 9 and job.facts_retired == 0 and job.errors == []
    assert job.done == job.total == 5  # 4 pages + the robots-blocked link (reported, not fetched)
    dones = [done for done, _ in seen]
    assert dones == sorted(dones) and dones[-1] == 5
    pages = outcomes(job)
    assert [pages[bakery.url(p)] for p in ("/", "/menu", "/about", "/team")] == ["new"] * 4
    assert pages[bakery.url("/private/staff")] == "skipped"
    assert "/private/staff" not in bakery.paths_hit()  # robots.txt respected
    assert all("XorventaBot" in hit.user_agent for hit in bakery.hits)  # the product is named
    assert "Added (9):" in "\n".join(job_report_lines(job))
    # One announcement for the whole job (the retrieval index re-indexes each topic once).
    assert announced == [frozenset(job.report["topics"])] and len(job.report["topics"]) == 6


def test_unchanged_resync_is_a_recorded_no_op(business, bakery):
    crawl(bakery)
    facts_before = Fact.objects.count()
    versions_before = SourceVersion.objects.count()

    job = crawl(bakery, kind=JobKind.RESYNC)

    assert job.status == JobStatus.DONE
    new_versions = SourceVersion.objects.order_by("id")[versions_before:]
    assert len(new_versions) == 4 and {v.outcome for v in new_versions} == {VersionOutcome.SEEN}
    assert Fact.objects.count() == facts_before
    assert (job.facts_added, job.facts_retired, job.disagreements) == (0, 0, 0)
    assert set(outcomes(job).values()) == {"unchanged", "skipped"}
    assert job.report["pages"] == {"unchanged": 4, "skipped": 1}


def test_a_changed_page_processes_only_its_changed_parts(business, bakery):
    crawl(bakery)
    last_version = SourceVersion.objects.latest("id").pk
    bakery.routes["/menu"] = Route(html("Menu", "Sourdough price is $9.", "Croissant price is $3."))

    job = crawl(bakery, kind=JobKind.RESYNC)

    menu = SourceVersion.objects.filter(source__ref=bakery.url("/menu")).latest("id")
    assert (menu.outcome, menu.parts_added, menu.parts_removed) == (VersionOutcome.PROCESSED, 1, 1)
    others = SourceVersion.objects.filter(pk__gt=last_version).exclude(pk=menu.pk)
    assert len(others) == 3 and {v.outcome for v in others} == {VersionOutcome.SEEN}
    assert "Sourdough price is $9." in live() and "Sourdough price is $8." not in live()
    assert "Croissant price is $3." in live()
    assert [r["statement"] for r in job.report["added"]] == ["Sourdough price is $9."]
    assert [r["statement"] for r in job.report["retired"]] == ["Sourdough price is $8."]
    assert outcomes(job)[bakery.url("/menu")] == "changed"


@pytest.mark.parametrize("how", ["404", "unlinked"])
def test_a_removed_page_retires_only_what_only_it_said(business, bakery, how):
    crawl(bakery)
    document_upload(filename="notes.txt", data=b"Oven type is wood.\n", extractor=EXTRACTOR)
    if how == "404":
        del bakery.routes["/team"]
    else:  # still served, but nothing links to it any more
        bakery.routes["/"] = Route(html("Home", *HOME, links=("/menu", "/about")))

    job = crawl(bakery, kind=JobKind.RESYNC)

    team = Source.objects.get(ref=bakery.url("/team"))
    assert not team.is_active and team.retired_reason.startswith("No longer on the website")
    retired = Fact.objects.get(statement="Baker name is Tom.")
    assert retired.status == FactStatus.RETIRED
    # Also said by /about (a page) and notes.txt (a document): both stay live.
    assert {"Flour origin is local.", "Oven type is wood."} <= live()
    assert [r["statement"] for r in job.report["retired"]] == ["Baker name is Tom."]
    assert outcomes(job)[bakery.url("/team")] == "retired"


def test_slow_and_broken_pages_are_reported_per_page_and_do_not_abort(business, bakery):
    bakery.routes["/"] = Route(html("Home", *HOME, links=("/menu", "/slow", "/broken", "/gone")))
    bakery.routes["/slow"] = Route(html("Slow", "Cake price is $30."), delay=2.0)
    bakery.routes["/broken"] = Route("<h1>Internal error</h1>", status=500)

    job = crawl(bakery)

    assert job.status == JobStatus.DONE
    errors = {e["url"]: e["error"] for e in job.errors}
    assert "timed out" in errors[bakery.url("/slow")]
    assert errors[bakery.url("/broken")] == "HTTP 500" and errors[bakery.url("/gone")] == "HTTP 404"
    assert {*HOME, *MENU} <= live()
    pages = outcomes(job)
    assert pages[bakery.url("/slow")] == pages[bakery.url("/broken")] == "failed"


def test_a_page_failing_with_5xx_or_timeout_is_kept_not_retired(business, bakery):
    crawl(bakery)
    bakery.routes["/team"] = Route("<h1>Oops</h1>", status=503)
    bakery.routes["/about"] = Route(html("About", *ABOUT), delay=2.0)

    job = crawl(bakery, kind=JobKind.RESYNC)

    assert job.status == JobStatus.DONE
    assert (
        Source.objects.filter(ref__in=[bakery.url("/team"), bakery.url("/about")], is_active=True).count()
        == 2
    )
    assert {*TEAM, *ABOUT} <= live() and job.facts_retired == 0
    assert {e["url"] for e in job.errors} == {bakery.url("/team"), bakery.url("/about")}


def test_a_failed_sync_retires_nothing(business, bakery):
    crawl(bakery)
    live_before = live()
    bakery.stop()  # the whole site is down

    job = crawl(bakery, kind=JobKind.RESYNC)

    assert job.status == JobStatus.FAILED and "Nothing was retired" in job.error
    assert live() == live_before
    assert not Source.objects.filter(kind=SourceKind.WEBSITE, is_active=False).exists()
    assert job.errors and job.errors[0]["url"] == bakery.url("/")


def test_an_interrupted_job_resumes_to_the_same_end_state(business, bakery, make_business):
    class Killed(BaseException):
        """Stands for the worker being killed: nothing of the job's own code runs after it."""

    def kill_after_two(job: IngestionJob) -> None:
        if job.done >= 2:
            raise Killed

    job = IngestionJob.objects.create(
        kind=JobKind.CRAWL, target=bakery.url("/"), options={"max_pages": 50, "max_depth": 3, "timeout": 0.5}
    )
    with pytest.raises(Killed):
        ingestion_job_run(job.pk, progress=kill_after_two, extractor=EXTRACTOR)
    job.refresh_from_db()
    assert job.status == JobStatus.RUNNING and job.done == 2 and job.attempt == 1

    resumed = ingestion_job_resume(job=job, background=False, extractor=EXTRACTOR)
    assert resumed.status == JobStatus.DONE and resumed.attempt == 2
    knowledge = live()
    report = (resumed.facts_added, sorted(outcomes(resumed).values()))

    with schema_context(get_public_schema_name()):  # businesses are created from the public schema
        steady_business = make_business("steady", "Steady Bakery")
    with tenant_context(steady_business):
        steady = crawl(bakery)
        assert live() == knowledge
        assert (steady.facts_added, sorted(outcomes(steady).values())) == report


def test_a_superseded_attempt_stops_writing(business, bakery):
    job = IngestionJob.objects.create(kind=JobKind.CRAWL, target=bakery.url("/"), options=FAST)

    def takeover(current: IngestionJob) -> None:
        # Someone resumes the job while this run is still going (e.g. a worker thought dead).
        IngestionJob.objects.filter(pk=current.pk).update(attempt=current.attempt + 1)

    result = ingestion_job_run(job.pk, progress=takeover, extractor=EXTRACTOR)

    assert result.status == JobStatus.RUNNING  # left to the newer attempt
    assert Source.objects.count() == 1  # the old run stopped after its first page


def test_a_job_whose_worker_died_is_marked_failed_and_can_be_resumed(business, bakery):
    from datetime import timedelta

    from django.utils import timezone

    dead = IngestionJob.objects.create(
        kind=JobKind.RESYNC, target=bakery.url("/"), options=FAST, status=JobStatus.RUNNING, attempt=1
    )
    IngestionJob.objects.filter(pk=dead.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    website_settings_update(start_url=bakery.url("/"))

    fresh = website_sync_now(background=False, extractor=EXTRACTOR)  # not blocked by the dead one

    dead.refresh_from_db()
    assert fresh.pk != dead.pk and fresh.status == JobStatus.DONE
    assert dead.status == JobStatus.FAILED and "Resume it" in dead.error
    assert ingestion_job_resume(job=dead, background=False, extractor=EXTRACTOR).status == JobStatus.DONE


def test_a_finished_job_is_not_run_twice(business, bakery):
    job = crawl(bakery)
    again = ingestion_job_run(job.pk, extractor=EXTRACTOR)  # e.g. the queue delivers it twice
    assert again.attempt == 1 and SourceVersion.objects.count() == 4
    with pytest.raises(IngestionInputError):
        ingestion_job_resume(job=job)


# ----------------------------------------------------------------------------------------------
# Settings, schedule, sync now


def test_settings_keep_the_schedule_in_step(business):
    from django_q.models import Schedule

    row = website_settings_update(start_url="sunny-bakery.example", max_pages=20)
    assert row.start_url == "https://sunny-bakery.example/" and row.schedule == "daily"
    schedule = Schedule.objects.get(name=f"website-resync:{connection.schema_name}")
    assert schedule.schedule_type == Schedule.DAILY
    assert schedule.func == "apps.tenants.tasks.run_for_business"
    assert schedule.args == repr((connection.schema_name, "apps.facts.tasks.website_resync_task"))

    website_settings_update(schedule="weekly")
    assert Schedule.objects.get(pk=schedule.pk).schedule_type == Schedule.WEEKLY
    website_settings_update(schedule="off")
    assert not Schedule.objects.filter(pk=schedule.pk).exists()
    with pytest.raises(IngestionInputError):
        website_settings_update(start_url="mailto:owner@example.com")
    with pytest.raises(IngestionInputError):
        website_settings_update(max_pages=100_000)


def test_the_scheduled_resync_runs_in_the_business_schema(business, bakery, monkeypatch):
    from apps.tenants.tasks import run_for_business

    monkeypatch.setattr("apps.facts.ingestion.get_extractor", lambda: EXTRACTOR)
    website_settings_update(start_url=bakery.url("/"))
    schema = connection.schema_name
    connection.set_schema_to_public()  # where django-q2 runs every task
    try:
        summary = run_for_business(schema, "apps.facts.tasks.website_resync_task")
    finally:
        connection.set_tenant(business)
    job = IngestionJob.objects.get()
    assert summary == f"resync #{job.pk}: done" and job.kind == JobKind.RESYNC
    assert WebsiteSettings.objects.get().last_sync_at == job.finished_at
    website_settings_update(schedule="off")
    assert website_resync_scheduled() is None


def test_sync_now_queues_one_job_for_the_worker(business, bakery, django_capture_on_commit_callbacks):
    from django_q.models import OrmQ

    with pytest.raises(IngestionInputError):
        website_sync_now()
    website_settings_update(start_url=bakery.url("/"))
    queued_before = OrmQ.objects.count()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        job = website_sync_now(actor="owner@sunny.example")
        assert website_sync_now() == job  # a sync already under way is not doubled
    assert job.status == JobStatus.QUEUED and len(callbacks) == 1
    assert OrmQ.objects.count() == queued_before + 1


# ----------------------------------------------------------------------------------------------
# Documents


def _docx(lines: list[str]) -> bytes:
    from docx import Document

    document = Document()
    document.add_heading("Price list", level=1)
    for line in lines:
        document.add_paragraph(line)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


DOCUMENTS: dict[str, Callable[[list[str]], bytes]] = {
    "prices.pdf": lambda lines: make_pdf([lines], title="Price list"),
    "prices.docx": _docx,
    "prices.html": lambda lines: html("Price list", *lines).encode(),
    "prices.md": lambda lines: ("# Price list\n\n" + "\n\n".join(lines) + "\n").encode(),
    "prices.txt": lambda lines: ("\n\n".join(lines) + "\n").encode(),
}


@pytest.fixture
def media(settings, tmp_path: Path) -> Path:
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


def test_each_document_type_is_read_and_versioned_by_name(business, media):
    for name, build in DOCUMENTS.items():
        job = document_upload(
            filename=f"uploads/{name}",
            data=build([f"Bagel {name[7:]} is $2.", f"Muffin {name[7:]} is $3."]),
            extractor=EXTRACTOR,
        )
        assert job.status == JobStatus.DONE and job.kind == JobKind.UPLOAD and job.target == name, job.error
        assert {f"Bagel {name[7:]} is $2.", f"Muffin {name[7:]} is $3."} <= live(), name
        assert Source.objects.get(kind=SourceKind.DOCUMENT, ref=name).is_active
        assert job.file.name.startswith(f"{connection.schema_name}/documents/")
        assert (media / job.file.name).exists()

        same = build([f"Bagel {name[7:]} is $2.", f"Muffin {name[7:]} is $3."])
        again = document_upload(filename=name, data=same, extractor=EXTRACTOR)
        assert again.report["items"][0]["outcome"] == "unchanged" and again.facts_added == 0, name

        changed = document_upload(
            filename=name,
            data=build([f"Bagel {name[7:]} is $2.", f"Muffin {name[7:]} is $4."]),
            extractor=EXTRACTOR,
        )
        version = SourceVersion.objects.filter(source__ref=name).latest("id")
        assert (version.parts_added, version.parts_removed) == (1, 1), name
        assert [r["statement"] for r in changed.report["retired"]] == [f"Muffin {name[7:]} is $3."]
        assert {f"Muffin {name[7:]} is $4.", f"Bagel {name[7:]} is $2."} <= live()


def test_upload_problems_are_clear_job_errors(business, media):
    scanned = document_upload(
        filename="scan.pdf", data=make_pdf([["x"]], image_only=True), extractor=EXTRACTOR
    )
    assert scanned.status == JobStatus.FAILED and scanned.error.startswith("No text found")
    assert scanned.errors == [{"file": "scan.pdf", "error": scanned.error}]

    empty = document_upload(filename="empty.txt", data=b"")
    assert empty.status == JobStatus.FAILED and empty.error == "The file is empty." and not empty.file

    image = document_upload(filename="menu.txt", data=b"\x89PNG\r\n\x1a\n" + b"\x00" * 64)
    assert image.status == JobStatus.FAILED and "PNG image" in image.error
    assert not Source.objects.exists()


def test_a_fact_a_document_shares_with_a_page_survives_the_page(business, bakery, media):
    source_ingest(kind="document", ref="flyer.txt", content="Sourdough price is $8.", extractor=EXTRACTOR)
    crawl(bakery)
    del bakery.routes["/menu"]
    crawl(bakery, kind=JobKind.RESYNC)
    assert "Sourdough price is $8." in live() and "Croissant price is $3." not in live()


# ----------------------------------------------------------------------------------------------
# Management commands


def test_crawl_site_command_shows_progress_and_the_change_report(business, bakery, monkeypatch):
    monkeypatch.setattr("apps.facts.ingestion.get_extractor", lambda: EXTRACTOR)
    out = io.StringIO()
    call_command("crawl_site", "sunny", bakery.url("/"), "--max-pages", "10", "--sync", stdout=out)
    text = out.getvalue()
    assert re.search(r"\[#+-*\] 1/\d+ pages", text) and "5/5 pages" in text
    assert (
        "Website crawl #" in text and "Added (9):" in text and "+ [Sourdough] Sourdough price is $8." in text
    )
    assert WebsiteSettings.objects.get().start_url == bakery.url("/")


def test_ingest_file_command(business, media, tmp_path, monkeypatch):
    monkeypatch.setattr("apps.facts.ingestion.get_extractor", lambda: EXTRACTOR)
    path = tmp_path / "hours.md"
    path.write_text("# Hours\n\nBakery hours are 8am to 2pm.\n")
    out = io.StringIO()
    call_command("ingest_file", "sunny", str(path), stdout=out)
    assert "1/1 file" in out.getvalue() and "+ [Bakery] Bakery hours are 8am to 2pm." in out.getvalue()
    assert IngestionJob.objects.get().status == JobStatus.DONE


# ----------------------------------------------------------------------------------------------
# The demo (`make run`)


def test_demo_crawl_seed_shows_a_finished_crawl_then_an_unchanged_resync(business):
    from lab.demo_site import demo_crawl_seed

    lines: list[str] = []
    demo_crawl_seed(business, log=lines.append)
    first, again = IngestionJob.objects.order_by("id")
    assert (first.kind, first.status, again.kind, again.status) == ("crawl", "done", "resync", "done")
    assert (
        first.errors == [] and first.facts_added > 5 and first.report["pages"] == {"new": 5}
    )  # the footer is read with the home page
    assert again.report["pages"] == {"unchanged": 5} and again.facts_added == again.facts_retired == 0
    assert "re-sync of the unchanged site: 5 pages: 5 unchanged" in lines[-1]
    demo_crawl_seed(business, log=lines.append)  # idempotent
    assert IngestionJob.objects.count() == 2


def test_crawl_site_command_can_hand_the_job_to_the_worker(business, django_capture_on_commit_callbacks):
    out = io.StringIO()
    with django_capture_on_commit_callbacks() as callbacks:
        call_command("crawl_site", "sunny", "sunny-bakery.example", "--background", "--no-wait", stdout=out)
    job = IngestionJob.objects.get()
    assert job.status == JobStatus.QUEUED and job.target == "https://sunny-bakery.example/"
    assert f"Queued job #{job.pk}" in out.getvalue() and len(callbacks) == 1
