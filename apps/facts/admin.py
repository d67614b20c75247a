"""The staff admin of a business's knowledge: facts, sources, disagreements, topic history, and the
ingestion jobs (crawls, re-syncs, uploads) with their progress and change reports.

The admin never writes a fact itself: every action goes through apps.facts.services / ingestion (the
same rules as everywhere else), facts are read-only here, and nothing can be deleted (the database
refuses both anyway, migration 0002). These models live in business schemas only, so they are hidden
on the public admin, and a staff member sees them only for businesses they manage.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django_tenants.utils import get_public_schema_name

from apps.facts.ingestion import (
    MAX_DEPTH_LIMIT,
    MAX_PAGES_LIMIT,
    MAX_UPLOAD_BYTES,
    IngestionInputError,
    check_start_url,
    document_upload,
    ingestion_job_resume,
    job_summary,
    website_crawl_start,
    website_settings_get,
    website_settings_update,
    website_sync_now,
)
from apps.facts.models import (
    Disagreement,
    DisagreementStatus,
    Evidence,
    Fact,
    FactEvent,
    FactStatus,
    IngestionJob,
    JobStatus,
    Source,
    SourceVersion,
    Topic,
    WebsiteSettings,
)
from apps.facts.schedules import resync_schedule_get
from apps.facts.services import (
    KnowledgeInputError,
    disagreement_resolve,
    fact_restore,
    fact_retire,
    source_retire,
)
from apps.tenants.db import current_schema


def _actor(request: HttpRequest) -> str:
    return str(getattr(request.user, "email", "") or request.user.get_username())


def _table(headers: list[str], rows: list[tuple[Any, ...]]) -> SafeString:
    if not rows:
        return format_html("<p>{}</p>", "None.")
    head = format_html_join("", "<th>{}</th>", ((h,) for h in headers))
    body = format_html_join(
        "",
        "<tr>{}</tr>",
        (
            (format_html_join("", "<td>{}</td>", ((cell if cell is not None else "",) for cell in row)),)
            for row in rows
        ),
    )
    return format_html(
        '<table class="xv-table"><thead><tr>{}</tr></thead><tbody>{}</tbody></table>', head, body
    )


class ReasonActionForm(helpers.ActionForm):
    """The action bar with a reason box: retiring a fact or a source always says why."""

    reason = forms.CharField(
        required=False, label="Reason", widget=forms.TextInput(attrs={"size": 40, "placeholder": "Why?"})
    )


class BusinessAdmin(admin.ModelAdmin):
    """Visible only inside a business's schema, to operators (superusers: the staff admin admits no one
    else, apps/accounts/admin.py). Read-only by default; nothing is ever deleted."""

    def _allowed(self, request: HttpRequest) -> bool:
        if current_schema() == get_public_schema_name():
            return False  # these tables do not exist in the public schema
        user = request.user
        return bool(user.is_active and user.is_staff and user.is_superuser)

    def get_queryset(self, request: HttpRequest) -> Any:
        # The object pages look the row up before asking for permission: in public (where these
        # tables do not exist) answer "no such object" without touching the database.
        queryset = super().get_queryset(request)
        return queryset.none() if current_schema() == get_public_schema_name() else queryset

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self._allowed(request)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._allowed(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


# ----------------------------------------------------------------------------------------------
# Facts


@admin.register(Fact)
class FactAdmin(BusinessAdmin):
    list_display = [
        "statement",
        "topic",
        "aspect",
        "status",
        "source_kind",
        "visibility",
        "valid_from",
        "valid_to",
        "learned_at",
    ]
    list_filter = [
        "status",
        "source_kind",
        "visibility",
        ("topic", admin.RelatedOnlyFieldListFilter),
    ]
    search_fields = ["statement", "aspect", "value", "topic__name"]
    list_select_related = ["topic"]
    date_hierarchy = "learned_at"
    action_form = ReasonActionForm
    actions = ["retire_facts", "restore_facts"]
    fields = (
        "statement",
        "topic",
        "aspect",
        "value",
        "status",
        "valid_from",
        "valid_to",
        "learned_at",
        "source_kind",
        "visibility",
        "question",
        "retired_at",
        "retired_reason",
        "retired_by",
        "stated_by",
        "history",
    )
    readonly_fields = fields

    @admin.display(description="Stated by")
    def stated_by(self, obj: Fact) -> SafeString:
        rows = [
            (
                e.source.get_kind_display(),
                e.source.ref,
                e.added_at,
                e.withdrawn_at or "current",
                e.withdrawn_reason,
            )
            for e in Evidence.objects.filter(fact=obj).select_related("source").order_by("added_at", "id")
        ]
        return _table(["Source", "Reference", "Since", "Until", "Why withdrawn"], rows)

    @admin.display(description="History")
    def history(self, obj: Fact) -> SafeString:
        rows = [(e.at, e.get_kind_display(), e.reason, e.actor) for e in FactEvent.objects.filter(fact=obj)]
        return _table(["When", "What", "Why", "Who"], rows)

    @admin.action(description="Retire the selected facts (give the reason in the box)")
    def retire_facts(self, request: HttpRequest, queryset: QuerySet[Fact]) -> None:
        reason = request.POST.get("reason", "").strip()
        if not reason:
            self.message_user(request, "Say why the facts are retired (the Reason box).", messages.ERROR)
            return
        done = 0
        for fact in queryset.filter(status=FactStatus.LIVE):
            fact_retire(fact=fact, reason=reason, actor=_actor(request))
            done += 1
        self.message_user(request, f"Retired {done} fact(s).", messages.SUCCESS)

    @admin.action(description="Restore the selected retired facts")
    def restore_facts(self, request: HttpRequest, queryset: QuerySet[Fact]) -> None:
        reason = request.POST.get("reason", "").strip()
        done = 0
        for fact in queryset.exclude(status=FactStatus.LIVE):
            fact_restore(fact=fact, reason=reason, actor=_actor(request))
            done += 1
        self.message_user(request, f"Restored {done} fact(s).", messages.SUCCESS)


@admin.register(Topic)
class TopicAdmin(BusinessAdmin):
    list_display = ["name", "live_facts", "retired_facts", "created_at"]
    search_fields = ["name"]
    fields = ("name", "created_at", "facts_now", "history")
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[Topic]:
        return (
            super()
            .get_queryset(request)
            .annotate(
                n_live=Count("facts", filter=Q(facts__status=FactStatus.LIVE)),
                n_retired=Count("facts", filter=Q(facts__status=FactStatus.RETIRED)),
            )
        )

    @admin.display(description="Live facts", ordering="n_live")
    def live_facts(self, obj: Any) -> int:
        return int(obj.n_live)

    @admin.display(description="Retired facts", ordering="n_retired")
    def retired_facts(self, obj: Any) -> int:
        return int(obj.n_retired)

    @admin.display(description="Live facts")
    def facts_now(self, obj: Topic) -> SafeString:
        rows = [
            (f.statement, f.aspect, f.get_source_kind_display(), f.valid_from, f.valid_to, f.learned_at)
            for f in obj.facts.filter(status=FactStatus.LIVE)
        ]
        return _table(["Statement", "Aspect", "From", "Valid from", "Valid to", "Learned"], rows)

    @admin.display(description="History (every change to this topic's facts)")
    def history(self, obj: Topic) -> SafeString:
        events = FactEvent.objects.filter(fact__topic=obj).select_related("fact").order_by("at", "id")
        rows = [(e.at, e.get_kind_display(), e.fact.statement, e.reason, e.actor) for e in events]
        return _table(["When", "What", "Fact", "Why", "Who"], rows)


# ----------------------------------------------------------------------------------------------
# Sources and disagreements


class SourceVersionInline(admin.TabularInline):
    model = SourceVersion
    extra = 0
    max_num = 0
    can_delete = False
    show_change_link = False
    fields = (
        "read_at",
        "outcome",
        "extractor",
        "parts_added",
        "parts_removed",
        "facts_added",
        "facts_confirmed",
        "facts_retired",
        "disagreements",
    )
    readonly_fields = fields
    ordering = ["-read_at", "-id"]

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return True  # shown only inside SourceAdmin, which checks access

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Source)
class SourceAdmin(BusinessAdmin):
    list_display = ["ref", "kind", "title", "is_active", "visibility", "last_read_at", "retired_reason"]
    list_filter = ["kind", "is_active", "visibility"]
    search_fields = ["ref", "title"]
    fields = (
        "kind",
        "ref",
        "title",
        "visibility",
        "is_active",
        "last_read_at",
        "retired_at",
        "retired_reason",
        "created_at",
    )
    readonly_fields = fields
    inlines = [SourceVersionInline]
    action_form = ReasonActionForm
    actions = ["retire_sources"]

    @admin.action(description="Retire the selected sources (only facts that came only from them)")
    def retire_sources(self, request: HttpRequest, queryset: QuerySet[Source]) -> None:
        reason = request.POST.get("reason", "").strip()
        retired = 0
        for source in queryset.filter(is_active=True):
            retired += len(source_retire(source=source, reason=reason, actor=_actor(request)).retired)
        self.message_user(request, f"Done: {retired} fact(s) retired with their sources.", messages.SUCCESS)


@admin.register(Disagreement)
class DisagreementAdmin(BusinessAdmin):
    list_display = ["statement", "owner_says", "source", "status", "created_at", "resolved_by"]
    list_filter = ["status", "source__kind"]
    search_fields = ["statement", "fact__statement", "source__ref"]
    list_select_related = ["fact", "source"]
    fields = (
        "statement",
        "owner_says",
        "source",
        "status",
        "created_at",
        "resolved_at",
        "resolved_by",
    )
    readonly_fields = fields
    actions = ["accept", "dismiss"]

    @admin.display(description="The owner's fact")
    def owner_says(self, obj: Disagreement) -> str:
        return obj.fact.statement

    def _resolve(self, request: HttpRequest, queryset: QuerySet[Disagreement], accept: bool) -> None:
        done = 0
        for disagreement in queryset.filter(status=DisagreementStatus.OPEN):
            try:
                disagreement_resolve(disagreement=disagreement, accept=accept, actor=_actor(request))
                done += 1
            except KnowledgeInputError as exc:
                self.message_user(request, str(exc), messages.WARNING)
        verb = "Accepted" if accept else "Dismissed"
        self.message_user(request, f"{verb} {done} disagreement(s).", messages.SUCCESS)

    @admin.action(description="Accept: the source's value replaces the owner's fact")
    def accept(self, request: HttpRequest, queryset: QuerySet[Disagreement]) -> None:
        self._resolve(request, queryset, accept=True)

    @admin.action(description="Dismiss: keep the owner's fact")
    def dismiss(self, request: HttpRequest, queryset: QuerySet[Disagreement]) -> None:
        self._resolve(request, queryset, accept=False)


# ----------------------------------------------------------------------------------------------
# Website and ingestion jobs


class WebsiteSettingsForm(forms.ModelForm):
    # A plain text box: owners type "sunny-bakery.example"; check_start_url adds the scheme.
    start_url = forms.CharField(required=False, max_length=500, label="Website address")

    class Meta:
        model = WebsiteSettings
        fields = ["start_url", "schedule", "max_pages", "max_depth"]

    def clean_start_url(self) -> str:
        url = self.cleaned_data.get("start_url") or ""
        try:
            return check_start_url(url) if url.strip() else ""
        except IngestionInputError as exc:
            raise forms.ValidationError(str(exc)) from None

    def clean_max_pages(self) -> int:
        value = int(self.cleaned_data["max_pages"])
        if not 1 <= value <= MAX_PAGES_LIMIT:
            raise forms.ValidationError(f"Between 1 and {MAX_PAGES_LIMIT}.")
        return value

    def clean_max_depth(self) -> int:
        value = int(self.cleaned_data["max_depth"])
        if not 0 <= value <= MAX_DEPTH_LIMIT:
            raise forms.ValidationError(f"Between 0 and {MAX_DEPTH_LIMIT}.")
        return value


@admin.register(WebsiteSettings)
class WebsiteSettingsAdmin(BusinessAdmin):
    form = WebsiteSettingsForm
    list_display = ["start_url", "schedule", "max_pages", "max_depth", "last_sync_at", "next_sync"]
    readonly_fields = ["last_sync_at", "next_sync"]
    actions = ["sync_now"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return self._allowed(request) and not WebsiteSettings.objects.exists()

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._allowed(request)

    @admin.display(description="Next scheduled sync")
    def next_sync(self, obj: WebsiteSettings) -> Any:
        schedule = resync_schedule_get(current_schema())
        return getattr(schedule, "next_run", None) or "not scheduled"

    def save_model(
        self, request: HttpRequest, obj: WebsiteSettings, form: forms.ModelForm, change: bool
    ) -> None:
        # Through the service, so the re-sync schedule always matches the saved settings.
        saved = website_settings_update(
            start_url=obj.start_url, schedule=obj.schedule, max_pages=obj.max_pages, max_depth=obj.max_depth
        )
        obj.pk = saved.pk

    @admin.action(description="Sync now (in the background)")
    def sync_now(self, request: HttpRequest, queryset: QuerySet[WebsiteSettings]) -> None:
        try:
            job = website_sync_now(actor=_actor(request), background=True)
        except IngestionInputError as exc:
            self.message_user(request, str(exc), messages.ERROR)
            return
        self.message_user(
            request, f"Sync job #{job.pk} is {job.get_status_display().lower()}.", messages.SUCCESS
        )


class StartJobForm(forms.ModelForm):
    """Start a job from the admin: upload a document, or crawl a website (the saved one if blank)."""

    upload = forms.FileField(
        required=False, help_text="A document: PDF, Word (.docx), HTML, Markdown or text"
    )
    start_url = forms.CharField(
        required=False, help_text="Or a website to crawl; leave both empty to re-sync the saved website"
    )

    class Meta:
        model = IngestionJob
        fields = ["visibility"]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("upload") and data.get("start_url"):
            raise forms.ValidationError("Upload a document or give a website, not both.")
        if data.get("start_url"):
            try:
                data["start_url"] = check_start_url(data["start_url"])
            except IngestionInputError as exc:
                raise forms.ValidationError({"start_url": str(exc)}) from None
        elif not data.get("upload") and not website_settings_get().start_url:
            raise forms.ValidationError("Upload a document or give a website: no website is saved yet.")
        return data


@admin.register(IngestionJob)
class IngestionJobAdmin(BusinessAdmin):
    list_display = [
        "id",
        "kind",
        "target",
        "status",
        "pages_done",
        "facts_added",
        "facts_retired",
        "disagreements",
        "error_count",
        "created_by",
        "started_at",
        "finished_at",
    ]
    list_filter = ["status", "kind"]
    search_fields = ["target", "created_by"]
    actions = ["resume_jobs"]
    readonly_fields = [
        "kind",
        "target",
        "status",
        "pages_done",
        "summary",
        "error",
        "error_list",
        "change_report",
        "options",
        "attempt",
        "created_by",
        "created_at",
        "started_at",
        "heartbeat_at",
        "finished_at",
    ]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return self._allowed(request)

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        if obj is None:
            kwargs["form"] = StartJobForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return [(None, {"fields": ["upload", "start_url", "visibility"]})]
        return [(None, {"fields": self.readonly_fields})]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return self.readonly_fields if obj is not None else []

    def save_model(
        self, request: HttpRequest, obj: IngestionJob, form: forms.ModelForm, change: bool
    ) -> None:
        # A job is started by the services (which create the row), never saved from the form.
        data = form.cleaned_data
        actor = _actor(request)
        if data.get("upload"):
            upload = data["upload"]
            job = document_upload(
                filename=upload.name,
                data=upload.read(MAX_UPLOAD_BYTES + 1),  # enough to refuse an oversized file
                visibility=data.get("visibility") or "public",
                actor=actor,
                background=True,
            )
        elif data.get("start_url"):
            job = website_crawl_start(start_url=data["start_url"], actor=actor, background=True)
        else:
            job = website_sync_now(actor=actor, background=True)
        obj.pk, obj.kind, obj.target, obj.status = job.pk, job.kind, job.target, job.status

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        pass  # nothing related is saved from the form

    @admin.display(description="Pages done")
    def pages_done(self, obj: IngestionJob) -> str:
        return obj.progress

    @admin.display(description="Errors")
    def error_count(self, obj: IngestionJob) -> int:
        return len(obj.errors or [])

    @admin.display(description="Summary")
    def summary(self, obj: IngestionJob) -> str:
        return job_summary(obj)

    @admin.display(description="Errors, per page or file")
    def error_list(self, obj: IngestionJob) -> SafeString:
        rows = [(e.get("url") or e.get("file") or "", e.get("error", "")) for e in obj.errors or []]
        return _table(["Page or file", "Error"], rows)

    @admin.display(description="Change report")
    def change_report(self, obj: IngestionJob) -> SafeString:
        report = obj.report or {}
        added = _table(
            ["Topic", "Detail", "From"],
            [(r["topic"], r["statement"], r["source"]) for r in report.get("added", [])],
        )
        retired = _table(
            ["Topic", "Detail", "Why"],
            [(r["topic"], r["statement"], r.get("reason", "")) for r in report.get("retired", [])],
        )
        conflicts = _table(
            ["Topic", "The source says", "The owner says", "Source"],
            [
                (r["topic"], r["source_statement"], r["owner_statement"], r["source"])
                for r in report.get("disagreements", [])
            ],
        )
        pages = _table(
            ["Page or file", "Outcome", "Detail", "Added", "Retired"],
            [
                (i["ref"], i["outcome"], i.get("detail", ""), i.get("added", ""), i.get("retired", ""))
                for i in report.get("items", [])
            ],
        )
        return format_html(
            "<h4>Details added</h4>{}<h4>Details retired</h4>{}"
            "<h4>Now conflicting with the owner's answers (not applied)</h4>{}<h4>Pages</h4>{}",
            added,
            retired,
            conflicts,
            pages,
        )

    @admin.action(description="Resume / re-run the selected unfinished jobs (in the background)")
    def resume_jobs(self, request: HttpRequest, queryset: QuerySet[IngestionJob]) -> None:
        resumed = 0
        for job in queryset.exclude(status=JobStatus.DONE):
            ingestion_job_resume(job=job, background=True)
            resumed += 1
        self.message_user(request, f"Queued {resumed} job(s) again.", messages.SUCCESS)
