"""Ingestion as tracked jobs: website crawls, scheduled re-syncs and document uploads (issue 7).

The knowledge itself is written by ``services.source_ingest`` / ``source_retire``; this module decides
*what* is read and keeps a record a person can watch (``IngestionJob``: progress, errors, and a change
report saying which details were added, which retired and why, and which now conflict with the owner).

Design rules:

- One transaction per page (or file): the page's knowledge and the job's progress commit together, so
  a job killed half-way has exactly the progress of what it wrote.
- Re-running a job (by id) reaches the same end state: ``source_ingest`` is hash-keyed, so a page read
  before the crash is a recorded no-op, and the report keeps what the earlier attempt found. Each run
  takes a new ``attempt`` number under a row lock; an older run still alive stops at its next page.
- One bad page never aborts a crawl, and a failed crawl never retires anything. A known page is retired
  only when the site says it is gone (404/410, a redirect elsewhere, or no longer linked by a complete
  crawl); a 5xx or a timeout may be temporary and keeps the page's facts.
- Callers pick where the job runs: inline (management commands, the demo) or in the worker
  (``background=True``), through ``apps.tenants.tasks`` so the task enters the business's schema.
"""

from __future__ import annotations

import logging
import posixpath
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from apps.facts.extraction.base import Extractor
from apps.facts.extraction.factory import get_extractor
from apps.facts.models import (
    Disagreement,
    Fact,
    IngestionJob,
    JobKind,
    JobStatus,
    Source,
    SourceKind,
    SyncSchedule,
    Visibility,
    WebsiteSettings,
)
from apps.facts.schedules import resync_schedule_set
from apps.facts.services import IngestResult, KnowledgeInputError, source_ingest, source_retire
from apps.facts.signals import announce_topics_changed, topics_batched
from apps.facts.sources.crawler import (
    DEFAULT_USER_AGENT,
    CrawlLimits,
    CrawlReport,
    PageResult,
    crawl_site,
    normalize_url,
    same_site,
)
from apps.facts.sources.documents import DEFAULT_MAX_BYTES, DocumentError, DocumentLimits
from apps.facts.sources.parse_child import parse_in_child
from apps.outbound import OutboundRefused, check_url_literal
from apps.tenants.db import current_schema
from apps.tenants.models import Business
from apps.tenants.tasks import enqueue_for_business

logger = logging.getLogger(__name__)

# The product name is in the User-Agent so a site owner reading their logs knows who crawled them.
USER_AGENT = DEFAULT_USER_AGENT
# Plan limits (no plans yet): what an owner may ask for, whatever they type.
MAX_PAGES_LIMIT: int = getattr(settings, "XORVENTA_CRAWL_MAX_PAGES", 500)
MAX_DEPTH_LIMIT = 10
CRAWL_TIMEOUT: float = getattr(settings, "XORVENTA_CRAWL_TIMEOUT", 10.0)
CRAWL_CONCURRENCY = 2  # polite: two requests at a time to a small business's server
MAX_UPLOAD_BYTES = DEFAULT_MAX_BYTES
# A queued or running job not heard from for this long is presumed dead (its worker was killed).
STALE_AFTER = timedelta(minutes=10)

WEBSITE_KINDS = (JobKind.CRAWL, JobKind.RESYNC)

Progress = Callable[[IngestionJob], object]


class IngestionInputError(ValueError):
    """Bad input from the owner (an address that is not a web address, a limit out of range)."""


class JobSuperseded(Exception):
    """A newer attempt of this job took over: this run must stop writing."""


# ----------------------------------------------------------------------------------------------
# Website settings and schedule


def website_settings_get() -> WebsiteSettings:
    """The business's website settings (an unsaved default when none were saved yet)."""
    return WebsiteSettings.objects.filter(pk=1).first() or WebsiteSettings(pk=1)


def check_start_url(url: str) -> str:
    """Normalise a web address the owner typed ("sunny.example" -> "https://sunny.example/") and refuse
    an address that is obviously internal (an IP literal or 'localhost', a port other than 80/443):
    the edge's check, without DNS. The crawl checks again, resolved, at every request."""
    normalized = _normalize_start_url(url)
    refusal = _outbound_refusal(normalized)
    if refusal:
        raise IngestionInputError(
            f"{normalized} cannot be read: {refusal}. Give the business's public website."
        )
    return normalized


def _outbound_refusal(url: str) -> str:
    try:
        check_url_literal(url)
    except OutboundRefused as exc:
        return str(exc)
    return ""


def _normalize_start_url(url: str) -> str:
    url = (url or "").strip()
    if not url:
        raise IngestionInputError("Give the address of the website (e.g. https://www.example.com/).")
    if "://" not in url:
        _scheme, colon, rest = url.partition(":")
        if colon and not rest[:1].isdigit():  # "mailto:...", "javascript:..." (but not "host:8080")
            raise IngestionInputError(f"{url!r} is not a web address (http:// or https://).")
        url = "https://" + url.lstrip("/")
    normalized = normalize_url(url)
    if normalized is None:
        raise IngestionInputError(f"{url!r} is not a web address (http:// or https://).")
    return normalized


def _check_limit(name: str, value: int, low: int, high: int) -> int:
    if not low <= int(value) <= high:
        raise IngestionInputError(f"{name} must be between {low} and {high}.")
    return int(value)


@transaction.atomic
def website_settings_update(
    *,
    start_url: str | None = None,
    schedule: SyncSchedule | str | None = None,
    max_pages: int | None = None,
    max_depth: int | None = None,
) -> WebsiteSettings:
    """Save the website settings and create/update/remove the re-sync schedule to match."""
    row = WebsiteSettings.objects.select_for_update().filter(pk=1).first() or WebsiteSettings(pk=1)
    if start_url is not None:
        row.start_url = check_start_url(start_url) if start_url.strip() else ""
    if schedule is not None:
        try:
            row.schedule = SyncSchedule(schedule)
        except ValueError:
            raise IngestionInputError("The schedule must be daily, weekly or off.") from None
    if max_pages is not None:
        row.max_pages = _check_limit("The page limit", max_pages, 1, MAX_PAGES_LIMIT)
    if max_depth is not None:
        row.max_depth = _check_limit("The depth limit", max_depth, 0, MAX_DEPTH_LIMIT)
    row.save()
    resync_schedule_set(schema_name=current_schema(), every=row.schedule, enabled=bool(row.start_url))
    return row


@transaction.atomic
def website_settings_save(
    *, actor: str = "", start_url: str | None = None, **limits: Any
) -> tuple[WebsiteSettings, IngestionJob | None]:
    """The owner's save: the settings, and a first crawl in the worker when the address is new or
    changed (queued when this transaction commits), so the owner need not find "sync now". Saving the
    same address again (or only the schedule or limits) starts nothing."""
    before = website_settings_get().start_url
    row = website_settings_update(start_url=start_url, **limits)
    if not row.start_url or row.start_url == before:
        return row, None
    return row, website_crawl_start(kind=JobKind.CRAWL, actor=actor, background=True)


# ----------------------------------------------------------------------------------------------
# Starting jobs


def _active_website_job() -> IngestionJob | None:
    """A crawl or re-sync that is queued or running and was heard from recently."""
    fresh = timezone.now() - STALE_AFTER
    return (
        IngestionJob.objects.filter(kind__in=WEBSITE_KINDS, status__in=[JobStatus.QUEUED, JobStatus.RUNNING])
        .filter(Q(heartbeat_at__gte=fresh) | Q(heartbeat_at__isnull=True, created_at__gte=fresh))
        .first()
    )


def _fail_stale_jobs() -> int:
    """Mark jobs whose worker died (no progress for STALE_AFTER) as failed, so the owner does not watch
    a job that will never move. They can still be resumed; a late re-delivery by the queue is a no-op."""
    now = timezone.now()
    cutoff = now - STALE_AFTER
    return (
        IngestionJob.objects.filter(status__in=[JobStatus.QUEUED, JobStatus.RUNNING])
        .filter(Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, created_at__lt=cutoff))
        .update(
            status=JobStatus.FAILED,
            finished_at=now,
            error="Stopped: no progress for a while (was the worker stopped?). Resume it to finish it.",
        )
    )


def website_crawl_start(
    *,
    start_url: str | None = None,
    kind: JobKind = JobKind.CRAWL,
    max_pages: int | None = None,
    max_depth: int | None = None,
    timeout: float | None = None,
    actor: str = "",
    background: bool = False,
    progress: Progress | None = None,
    extractor: Extractor | None = None,
) -> IngestionJob:
    """Crawl a website (the saved one by default) as a new job: now, or in the worker."""
    _fail_stale_jobs()
    row = website_settings_get()
    url = _normalize_start_url(start_url or row.start_url)
    options = {
        "max_pages": _check_limit("The page limit", max_pages or row.max_pages, 1, MAX_PAGES_LIMIT),
        "max_depth": _check_limit(
            "The depth limit", row.max_depth if max_depth is None else max_depth, 0, MAX_DEPTH_LIMIT
        ),
        "timeout": float(timeout or CRAWL_TIMEOUT),
    }
    refused = _outbound_refusal(url)
    if refused:  # e.g. a website saved before addresses were checked: the refusal is the job's record
        now = timezone.now()
        return IngestionJob.objects.create(
            kind=kind,
            target=url,
            options=options,
            created_by=actor,
            status=JobStatus.FAILED,
            error=f"The website could not be crawled: {refused}. Nothing was read or retired.",
            errors=[{"url": url, "error": refused}],
            started_at=now,
            finished_at=now,
        )
    job = IngestionJob.objects.create(kind=kind, target=url, options=options, created_by=actor)
    return _launch(job, background=background, progress=progress, extractor=extractor)


def website_sync_now(
    *,
    actor: str = "",
    background: bool = True,
    progress: Progress | None = None,
    extractor: Extractor | None = None,
) -> IngestionJob:
    """The owner's "sync now": re-sync the saved website. A sync under way is returned, not doubled."""
    _fail_stale_jobs()
    active = _active_website_job()
    if active is not None:
        return active
    if not website_settings_get().start_url:
        raise IngestionInputError("No website address is set yet.")
    return website_crawl_start(
        kind=JobKind.RESYNC, actor=actor, background=background, progress=progress, extractor=extractor
    )


def website_resync_scheduled() -> IngestionJob | None:
    """The scheduled re-sync (called in the worker, inside the business's schema)."""
    schema = current_schema()
    if not Business.objects.filter(schema_name=schema, is_active=True).exists():
        # The business is gone or suspended: a schedule left behind must not keep firing.
        resync_schedule_set(schema_name=schema, every=SyncSchedule.OFF, enabled=False)
        return None
    row = website_settings_get()
    if not row.start_url or row.schedule == SyncSchedule.OFF:
        return None
    if _active_website_job() is not None:
        logger.info("scheduled re-sync of %s skipped: a sync is already running", schema)
        return None
    return website_crawl_start(kind=JobKind.RESYNC, actor="schedule")


def _clean_filename(filename: str) -> str:
    name = posixpath.basename((filename or "").replace("\\", "/")).strip()
    return "".join(ch for ch in name if ch.isprintable())[:200] or "document"


def document_upload(
    *,
    filename: str,
    data: bytes,
    visibility: Visibility | str = Visibility.PUBLIC,
    actor: str = "",
    background: bool = False,
    progress: Progress | None = None,
    extractor: Extractor | None = None,
) -> IngestionJob:
    """Store an uploaded document and read it in as a job. The file name is the source's reference:
    the same bytes again are a no-op, new bytes under the same name are processed as a change."""
    _fail_stale_jobs()
    name = _clean_filename(filename)
    job = IngestionJob(
        kind=JobKind.UPLOAD, target=name, visibility=Visibility(visibility), created_by=actor, total=1
    )
    refused = ""
    if not data:
        refused = "The file is empty."
    elif len(data) > MAX_UPLOAD_BYTES:
        refused = f"The file is larger than {MAX_UPLOAD_BYTES / 1_000_000:g} MB."
    if refused:  # recorded as a failed job so the owner sees why, but the file is not kept
        now = timezone.now()
        job.status, job.error, job.errors = JobStatus.FAILED, refused, [{"file": name, "error": refused}]
        job.started_at = job.finished_at = now
        job.save()
        return job
    job.file.save(name, ContentFile(data), save=False)
    job.save()
    return _launch(job, background=background, progress=progress, extractor=extractor)


def ingestion_job_enqueue(job: IngestionJob) -> None:
    """Hand the job to the worker (once the current transaction commits)."""
    enqueue_for_business(current_schema(), "apps.facts.tasks.ingestion_job_task", job.pk)


def _launch(
    job: IngestionJob, *, background: bool, progress: Progress | None, extractor: Extractor | None
) -> IngestionJob:
    if background:
        ingestion_job_enqueue(job)
        return job
    return ingestion_job_run(job.pk, progress=progress, extractor=extractor)


def ingestion_job_resume(
    *,
    job: IngestionJob,
    background: bool = True,
    progress: Progress | None = None,
    extractor: Extractor | None = None,
) -> IngestionJob:
    """Run a job again by id (after its worker died, or after a failure): the run takes over from any
    earlier attempt and reaches the state an uninterrupted run would have."""
    with transaction.atomic():
        job = IngestionJob.objects.select_for_update().get(pk=job.pk)
        if job.status == JobStatus.DONE:
            raise IngestionInputError("This job has finished; start a new sync instead.")
        job.status = JobStatus.QUEUED
        job.save(update_fields=["status"])
    return _launch(job, background=background, progress=progress, extractor=extractor)


# ----------------------------------------------------------------------------------------------
# Running a job


@dataclass
class _Run:
    job_id: int
    attempt: int
    extractor: Extractor
    progress: Progress | None

    def locked(self) -> IngestionJob:
        """The job row, locked for this page's transaction; refuses if a newer attempt took over."""
        job = IngestionJob.objects.select_for_update().get(pk=self.job_id)
        if job.attempt != self.attempt:
            raise JobSuperseded(f"job {self.job_id}: attempt {self.attempt} superseded by {job.attempt}")
        return job

    def notify(self, job: IngestionJob) -> None:
        if self.progress is not None:
            self.progress(job)


def _claim(job_id: int) -> int | None:
    """Start an attempt. None when the job is already finished (a duplicate delivery by the queue)."""
    with transaction.atomic():
        job = IngestionJob.objects.select_for_update().get(pk=job_id)
        if job.status in (JobStatus.DONE, JobStatus.FAILED):
            return None
        now = timezone.now()
        job.attempt += 1
        job.status = JobStatus.RUNNING
        job.started_at = job.started_at or now
        job.heartbeat_at = now
        job.finished_at = None
        job.error = ""
        job.done = 0  # the crawl starts over (re-reading a page already read is a no-op)
        job.save()
        return job.attempt


def ingestion_job_run(
    job_id: int, *, progress: Progress | None = None, extractor: Extractor | None = None
) -> IngestionJob:
    """Run (or resume) a job to its end. The caller must be in the business's schema.

    ``progress`` is called with the saved job after each page; ``extractor`` overrides the configured
    one (tests)."""
    attempt = _claim(job_id)
    if attempt is None:
        return IngestionJob.objects.get(pk=job_id)
    run = _Run(job_id=job_id, attempt=attempt, extractor=extractor or get_extractor(), progress=progress)
    try:
        # One re-index per touched topic at the end of the job, not one per page.
        with topics_batched():
            job = IngestionJob.objects.get(pk=job_id)
            if job.kind == JobKind.UPLOAD:
                status, error = _run_upload(job, run)
            else:
                status, error = _run_crawl(job, run)
            # Topics touched by an earlier attempt that was killed before its batch was announced.
            announce_topics_changed(job_topics(IngestionJob.objects.get(pk=job_id)))
        _finish(run, status, error)
    except JobSuperseded:
        logger.info("ingestion job %s attempt %s stopped: a newer attempt took over", job_id, attempt)
    except Exception as exc:
        logger.exception("ingestion job %s failed", job_id)
        try:
            _finish(run, JobStatus.FAILED, f"Unexpected error: {type(exc).__name__}: {exc}")
        except Exception:  # e.g. the database is gone too: the original error is what matters
            logger.exception("could not mark ingestion job %s failed", job_id)
        raise
    job = IngestionJob.objects.get(pk=job_id)
    run.notify(job)
    return job


def _finish(run: _Run, status: JobStatus, error: str) -> None:
    with transaction.atomic():
        job = run.locked()
        now = timezone.now()
        job.status = status
        job.error = error
        job.finished_at = job.heartbeat_at = now
        job.report["finished"] = True
        job.save()
        if job.kind in WEBSITE_KINDS and status == JobStatus.DONE:
            row = website_settings_get()
            if row.pk and row.start_url and same_site(row.start_url, job.target):
                WebsiteSettings.objects.filter(pk=row.pk).update(last_sync_at=now)


# ----------------------------------------------------------------------------------------------
# The change report (job.report)
#
# {"items": [{"ref", "title", "outcome", "detail", "added", "retired", "disagreements", "confirmed"}],
#  "added": [{"fact", "topic", "statement", "source"}],
#  "retired": [{"fact", "topic", "statement", "reason", "source"}],
#  "disagreements": [{"id", "topic", "owner_statement", "source_statement", "source"}],
#  "pages": {outcome: count}, "documents_linked": [url], "topics": [topic id], "finished": bool}
#
# Item outcomes: new, changed, unchanged (read), failed (error), skipped (not read: robots, not HTML,
# too large, no text), retired (gone from the site), kept (not reached, facts kept).

PROCESSED_OUTCOMES = ("new", "changed")


def job_topics(job: IngestionJob) -> set[int]:
    return {int(t) for t in job.report.get("topics", [])}


def _set_item(job: IngestionJob, entry: dict[str, Any]) -> None:
    items: list[dict[str, Any]] = job.report.setdefault("items", [])
    for i, item in enumerate(items):
        if item["ref"] == entry["ref"]:
            items[i] = entry
            break
    else:
        items.append(entry)
    job.report["pages"] = dict(Counter(item["outcome"] for item in items))


def _find_item(job: IngestionJob, ref: str) -> dict[str, Any] | None:
    return next((item for item in job.report.get("items", []) if item["ref"] == ref), None)


def _fact_row(fact: Fact, source: str) -> dict[str, Any]:
    return {"fact": fact.pk, "topic": fact.topic.name, "statement": fact.statement, "source": source}


def _merge_result(job: IngestionJob, *, ref: str, title: str, result: IngestResult, new: bool) -> None:
    """Add one source event's outcome to the report."""
    previous = _find_item(job, ref)
    if result.unchanged and previous is not None and previous["outcome"] in PROCESSED_OUTCOMES:
        # An earlier attempt of this job read this page before it was killed: keep what it found.
        return
    outcome = "unchanged" if result.unchanged else ("new" if new else "changed")
    # Read now: an error an earlier attempt met on this page is no longer true.
    job.errors = [e for e in job.errors if ref not in (e.get("url"), e.get("file"))]
    _set_item(
        job,
        {
            "ref": ref,
            "title": title,
            "outcome": outcome,
            "detail": f"{len(result.skipped_parts)} part(s) could not be read"
            if result.skipped_parts
            else "",
            "added": len(result.added),
            "retired": len(result.retired),
            "disagreements": len(result.disagreements),
            "confirmed": len(result.confirmed),
        },
    )
    _merge_changes(job, ref, result)


def _merge_changes(job: IngestionJob, ref: str, result: IngestResult) -> None:
    report = job.report
    report.setdefault("added", []).extend(_fact_row(f, ref) for f in result.added)
    report.setdefault("retired", []).extend(
        {**_fact_row(f, ref), "reason": f.retired_reason} for f in result.retired
    )
    report.setdefault("disagreements", []).extend(_disagreement_row(d, ref) for d in result.disagreements)
    report["topics"] = sorted(job_topics(job) | set(result.touched_topics))
    job.facts_added = len(report["added"])
    job.facts_retired = len(report["retired"])
    job.disagreements = len(report["disagreements"])


def _disagreement_row(disagreement: Disagreement, ref: str) -> dict[str, Any]:
    owner_fact = disagreement.fact
    return {
        "id": disagreement.pk,
        "topic": owner_fact.topic.name,
        "owner_statement": owner_fact.statement,
        "source_statement": disagreement.statement,
        "source": ref,
    }


def _add_error(job: IngestionJob, key: str, ref: str, error: str) -> None:
    if not any(e.get(key) == ref and e.get("error") == error for e in job.errors):
        job.errors.append({key: ref, "error": error})


def _progress(job: IngestionJob, done: int, total: int) -> None:
    job.done = done
    job.total = max(total, done)
    job.heartbeat_at = timezone.now()


def _ingest(
    run: _Run,
    *,
    kind: SourceKind,
    ref: str,
    content: str,
    title: str,
    visibility: str = Visibility.PUBLIC,
    done: int,
    total: int,
) -> IngestionJob:
    """One source event and the job's progress, in one transaction."""
    with transaction.atomic():
        job = run.locked()
        was_active = Source.objects.filter(kind=kind, ref=ref).values_list("is_active", flat=True).first()
        result = source_ingest(
            kind=kind,
            ref=ref,
            content=content,
            title=title,
            visibility=visibility,
            extractor=run.extractor,
        )
        _merge_result(job, ref=ref, title=title, result=result, new=was_active is not True)
        _progress(job, done, total)
        job.save()
    return job


def _record_problem(
    run: _Run, *, ref: str, title: str, outcome: str, detail: str, error_key: str, done: int, total: int
) -> IngestionJob:
    with transaction.atomic():
        job = run.locked()
        previous = _find_item(job, ref)
        if previous is None or previous["outcome"] not in PROCESSED_OUTCOMES:
            _set_item(job, {"ref": ref, "title": title, "outcome": outcome, "detail": detail})
        if outcome == "failed":
            _add_error(job, error_key, ref, detail)
        _progress(job, done, total)
        job.save()
    return job


# ----------------------------------------------------------------------------------------------
# Crawl


def _record_page(run: _Run, page: PageResult, done: int, total: int) -> IngestionJob:
    if page.status != "ok":
        outcome = "failed" if page.status == "error" else "skipped"
        return _record_problem(
            run,
            ref=page.url,
            title=page.title,
            outcome=outcome,
            detail=page.error,
            error_key="url",
            done=done,
            total=total,
        )
    ref = page.final_url  # a page is known by the address it is served from (after redirects)
    # The start page's footer is read with it: addresses and hours often live only there.
    content = f"{page.text}\n\n{page.footer}" if page.footer.strip() else page.text
    try:
        return _ingest(
            run,
            kind=SourceKind.WEBSITE,
            ref=ref,
            content=content,
            title=page.title,
            done=done,
            total=total,
        )
    except JobSuperseded:
        raise
    except KnowledgeInputError as exc:  # e.g. a page with no text: reported, its facts kept
        return _record_problem(
            run,
            ref=ref,
            title=page.title,
            outcome="skipped",
            detail=str(exc),
            error_key="url",
            done=done,
            total=total,
        )
    except Exception as exc:  # one bad page never aborts the crawl
        logger.exception("could not ingest %s", ref)
        return _record_problem(
            run,
            ref=ref,
            title=page.title,
            outcome="failed",
            detail=f"could not be read into the knowledge: {type(exc).__name__}: {exc}",
            error_key="url",
            done=done,
            total=total,
        )


def _run_crawl(job: IngestionJob, run: _Run) -> tuple[JobStatus, str]:
    options = job.options or {}
    limits = CrawlLimits(
        max_pages=int(options.get("max_pages", 50)),
        max_depth=int(options.get("max_depth", 3)),
        timeout=float(options.get("timeout", CRAWL_TIMEOUT)),
        concurrency=CRAWL_CONCURRENCY,
        user_agent=USER_AGENT,
    )

    def on_page(page: PageResult, done: int, total: int) -> None:
        # Called in this thread after each page: write it, save progress, let the caller watch.
        run.notify(_record_page(run, page, done, total))

    report = crawl_site(job.target, limits, on_page=on_page)
    if not report.ok:
        # A failed crawl says nothing about which pages are gone: nothing is retired.
        error = f"The website could not be crawled: {report.error}. Nothing was retired."
        with transaction.atomic():
            locked = run.locked()
            _add_error(locked, "url", job.target, report.error)
            locked.save()
        return JobStatus.FAILED, error

    fetched = report.fetched
    site = fetched[0].final_url if fetched else report.start_url
    _retire_missing(run, report, site=site, max_pages=limits.max_pages)
    if report.document_links:
        with transaction.atomic():
            locked = run.locked()
            locked.report["documents_linked"] = report.document_links
            locked.save()
    return JobStatus.DONE, ""


def _missing_verdict(ref: str, page: PageResult | None, *, truncated: bool) -> tuple[bool, str]:
    """(retire?, why) for a known page that this (successful) crawl did not read."""
    if urlsplit(ref).fragment:
        # Crawls before the footer was read with the start page stored it as "<site>#site-footer".
        return True, "a page anchor is not a page: its text is read with the start page"
    if page is None:
        if truncated:
            return False, "not reached: the crawl hit its page limit, so the page is kept"
        return True, "no longer linked from the site"
    if page.status == "error":
        if page.http_status in (404, 410):
            return True, f"HTTP {page.http_status}"
        return False, f"{page.error}: could be temporary, so the page is kept"
    if page.status == "ok" and page.final_url != ref:
        return True, f"it now redirects to {page.final_url}"
    if page.error.startswith("same page as ") or page.error.startswith("outside the site"):
        return True, page.error.replace("same page as", "now the same page as")
    return False, f"{page.error or 'not read'}: the page is kept"


def _retire_missing(run: _Run, report: CrawlReport, *, site: str, max_pages: int) -> None:
    """Retire known pages of this site that are gone; only called after a successful crawl."""
    alive = {page.final_url for page in report.fetched}
    by_url: dict[str, PageResult] = {}
    for page in report.pages:
        by_url.setdefault(page.url, page)
    for page in report.pages:
        by_url.setdefault(page.final_url, page)
    # Pages the crawl never reached because of the page limit may still exist.
    fetches = sum(1 for page in report.pages if page.error != "disallowed by robots.txt")
    truncated = fetches >= max_pages
    known = Source.objects.filter(kind=SourceKind.WEBSITE, is_active=True).exclude(ref__in=alive)
    for source in known.order_by("ref"):
        if not same_site(source.ref, site):
            continue
        retire, why = _missing_verdict(source.ref, by_url.get(source.ref), truncated=truncated)
        with transaction.atomic():
            job = run.locked()
            if retire:
                result = source_retire(
                    source=source, reason=f"No longer on the website: {source.ref} ({why})."
                )
                _set_item(
                    job,
                    {
                        "ref": source.ref,
                        "title": source.title,
                        "outcome": "retired",
                        "detail": why,
                        "added": 0,
                        "retired": len(result.retired),
                        "disagreements": 0,
                        "confirmed": 0,
                    },
                )
                _merge_changes(job, source.ref, result)
            else:
                previous = _find_item(job, source.ref)
                if previous is None or previous["outcome"] in ("failed", "skipped"):
                    _set_item(
                        job,
                        {
                            **(previous or {}),
                            "ref": source.ref,
                            "title": source.title,
                            "outcome": "kept",
                            "detail": why,
                        },
                    )
            job.heartbeat_at = timezone.now()
            job.save()
        run.notify(job)


# ----------------------------------------------------------------------------------------------
# Upload


def document_limits() -> DocumentLimits:
    """The configured limits on what reading one uploaded document may cost (issue 16)."""
    return DocumentLimits(
        max_bytes=MAX_UPLOAD_BYTES,
        max_unzipped_bytes=settings.XORVENTA_MAX_UNZIPPED_BYTES,
        max_zip_entries=settings.XORVENTA_MAX_ZIP_ENTRIES,
        max_zip_ratio=settings.XORVENTA_MAX_ZIP_RATIO,
        max_pdf_pages=settings.XORVENTA_MAX_PDF_PAGES,
        max_pdf_objects=settings.XORVENTA_MAX_PDF_OBJECTS,
        max_chars=settings.XORVENTA_MAX_SOURCE_CHARS,
    )


def _run_upload(job: IngestionJob, run: _Run) -> tuple[JobStatus, str]:
    name = job.target
    try:
        with job.file.open("rb") as handle:
            data = handle.read(MAX_UPLOAD_BYTES + 1)
    except (FileNotFoundError, ValueError, OSError):
        return _upload_failed(run, name, "The uploaded file is missing from storage: upload it again.")
    try:
        # In a child process under a memory and a time limit: a file that gets past the static checks
        # and still expands beyond them ends the child, not this worker (parse_child.py).
        parsed = parse_in_child(
            data,
            name,
            limits=document_limits(),
            memory_mb=settings.XORVENTA_PARSER_MEMORY_MB,
            timeout=settings.XORVENTA_PARSER_TIMEOUT,
        )
    except DocumentError as exc:  # the message is written for the owner ("No text found...", "Refused:")
        # The job and its stored file are kept: the owner sees why, and nothing of the file is learned.
        return _upload_failed(run, name, str(exc))
    try:
        job = _ingest(
            run,
            kind=SourceKind.DOCUMENT,
            ref=name,
            content=parsed.text,
            title=parsed.title or name,
            visibility=job.visibility,
            done=1,
            total=1,
        )
    except KnowledgeInputError as exc:
        return _upload_failed(run, name, str(exc))
    run.notify(job)
    return JobStatus.DONE, ""


def _upload_failed(run: _Run, name: str, error: str) -> tuple[JobStatus, str]:
    _record_problem(
        run, ref=name, title=name, outcome="failed", detail=error, error_key="file", done=1, total=1
    )
    return JobStatus.FAILED, error


# ----------------------------------------------------------------------------------------------
# Reading a report (commands, demo, admin)

OUTCOME_WORDS = {
    "new": "new",
    "changed": "changed",
    "unchanged": "unchanged",
    "failed": "failed",
    "skipped": "skipped",
    "retired": "gone (retired)",
    "kept": "not read (kept)",
}


def job_summary(job: IngestionJob) -> str:
    """One line: "5 pages: 2 new, 1 changed, 2 unchanged; 7 details added, 1 retired, 1 conflict"."""
    pages = job.report.get("pages", {})
    unit = "file" if job.kind == JobKind.UPLOAD else "page"
    count = sum(pages.values())
    parts = ", ".join(f"{n} {OUTCOME_WORDS.get(k, k)}" for k, n in sorted(pages.items()) if n)
    plural = "" if count == 1 else "s"
    conflicts = f"{job.disagreements} conflict{'' if job.disagreements == 1 else 's'} with your answers"
    return (
        f"{count} {unit}{plural}"
        + (f": {parts}" if parts else "")
        + f"; {job.facts_added} detail(s) added, {job.facts_retired} retired, {conflicts}"
    )


def job_report_lines(job: IngestionJob) -> list[str]:
    """The change report as plain text lines."""
    lines = [f"{job.get_kind_display()} #{job.pk} of {job.target}: {job.get_status_display().lower()}"]
    if job.error:
        lines.append(f"  {job.error}")
    lines.append("  " + job_summary(job))
    report = job.report
    for title, rows, fmt in (
        ("Added", report.get("added", []), lambda r: f"  + [{r['topic']}] {r['statement']}"),
        (
            "Retired",
            report.get("retired", []),
            lambda r: f"  - [{r['topic']}] {r['statement']}  ({r.get('reason', '')})",
        ),
        (
            "Now conflicting with your answers (not applied)",
            report.get("disagreements", []),
            lambda r: (
                f'  ! [{r["topic"]}] {r["source"]} says "{r["source_statement"]}"; '
                f'you said "{r["owner_statement"]}"'
            ),
        ),
    ):
        if rows:
            lines.append(f"{title} ({len(rows)}):")
            lines.extend(fmt(row) for row in rows)
    by_outcome: dict[str, list[dict[str, Any]]] = {}
    for item in report.get("items", []):
        by_outcome.setdefault(item["outcome"], []).append(item)
    for outcome in ("new", "changed", "unchanged", "retired", "kept", "skipped", "failed"):
        items = by_outcome.get(outcome, [])
        if items:
            lines.append(
                f"Pages {OUTCOME_WORDS[outcome]} ({len(items)}):"
                if job.kind != JobKind.UPLOAD
                else f"File {OUTCOME_WORDS[outcome]}:"
            )
            lines.extend(
                f"  {item['ref']}" + (f"  ({item['detail']})" if item.get("detail") else "") for item in items
            )
    if report.get("documents_linked"):
        lines.append("Documents linked from the site (upload them to include them):")
        lines.extend(f"  {url}" for url in report["documents_linked"])
    return lines


__all__ = [
    "IngestionInputError",
    "check_start_url",
    "document_upload",
    "ingestion_job_enqueue",
    "ingestion_job_resume",
    "ingestion_job_run",
    "job_report_lines",
    "job_summary",
    "website_crawl_start",
    "website_resync_scheduled",
    "website_settings_get",
    "website_settings_update",
    "website_sync_now",
]
