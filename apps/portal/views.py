"""The owner portal: pages of one business, reachable only by its members and its reseller.

Every view goes through ``portal_page`` (apps/portal/pages.py: sign-in, then the access gate: a 404 for
anyone else, never a 403), parses its input, calls one service or selector, and renders. Lookups by id
happen inside the business's schema, so an id from another business finds nothing.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from apps.accounts.access import BUSINESS_ROLES_MANAGE, business_role
from apps.accounts.models import Role
from apps.accounts.services import invitation_create
from apps.chat.models import Conversation, Message
from apps.chat.models import Role as MessageRole
from apps.chat.widget import widget_settings
from apps.facts import ingestion
from apps.facts.models import Disagreement, Fact, IngestionJob, JobStatus, Source, Topic
from apps.facts.services import (
    IngestResult,
    KnowledgeInputError,
    disagreement_resolve,
    fact_restore,
    fact_retire,
    owner_answer_record,
    owner_fact_add,
    source_retire,
)
from apps.gaps.models import GapStatus, GapTicket
from apps.gaps.services import gap_answer, gap_dismiss
from apps.portal import forms, selectors
from apps.portal.charts import daily_bars
from apps.portal.pages import actor_of, back_to_topic, portal_page, render_portal_page
from apps.portal.reading import answer_saved


def _on(request: HttpRequest) -> date:
    """The date the owner is looking at (?on=YYYY-MM-DD), today by default."""
    raw = request.GET.get("on", "")
    try:
        return date.fromisoformat(raw) if raw else timezone.localdate()
    except ValueError:
        messages.warning(request, f"{raw!r} is not a date; showing today.")
        return timezone.localdate()


def _quick_dates(today: date) -> list[tuple[str, date]]:
    saturday = today + timedelta(days=(5 - today.weekday()) % 7 or 7)
    return [
        ("Today", today),
        ("Tomorrow", today + timedelta(days=1)),
        ("Saturday", saturday),
        ("In 2 weeks", today + timedelta(days=14)),
        ("In a month", today + timedelta(days=30)),
    ]


def _errors_of(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return " ".join(exc.messages)
    return str(exc)


# ----------------------------------------------------------------------------------------------
# Dashboard (the business's home page)


def business_home(request: HttpRequest) -> HttpResponse:
    """Members see the dashboard; everyone else a plain page with the sign-in link (nothing private)."""
    business = request.tenant  # type: ignore[attr-defined]
    role = business_role(request.user, business)
    if role is None:
        return render(request, "portal/business_home.html", {"role": None})
    request.role = role  # type: ignore[attr-defined]
    stats = selectors.dashboard()
    chart = daily_bars(
        stats.days,
        title="Conversations and unanswered questions, last 14 days",
        desc=f"{sum(d.conversations for d in stats.days)} conversations and "
        f"{sum(d.unanswered for d in stats.days)} unanswered questions in 14 days.",
    )
    start = selectors.onboarding()
    context: dict[str, Any] = {"stats": stats, "chart": chart, "start": None if start.complete else start}
    if not start.complete:
        context.update(_start_context(request, start))
    return render_portal_page(request, "portal/dashboard.html", context)


def _snippet(request: HttpRequest) -> str:
    business = request.tenant  # type: ignore[attr-defined]
    script = f"{settings.SITE_URL}{settings.STATIC_URL}xorventa/widget.js"
    return f'<script src="{script}" data-key="{business.public_key}" async></script>'


def _start_context(request: HttpRequest, start: selectors.Onboarding) -> dict[str, Any]:
    """The three-step start of a new business: its forms post to the usual pages and come back here."""
    return {
        "website_defaults": ingestion.website_settings_get(),
        "site_form": forms.AllowedSiteForm(),
        "snippet": _snippet(request),
        "public_key": request.tenant.public_key,  # type: ignore[attr-defined]
    }


@portal_page()
def home_start(request: HttpRequest) -> HttpResponse:
    """The start's progress line, polled by the dashboard while steps are left; each step's tick is
    swapped in beside it (out of band), so the forms being typed in are never replaced."""
    return render_portal_page(request, "portal/_start_progress.html", {"start": selectors.onboarding()})


def _back(request: HttpRequest, default: str) -> HttpResponse:
    """Forms on the dashboard's start post to their own pages and return to the dashboard."""
    return redirect("portal:home" if request.POST.get("back") == "home" else default)


# ----------------------------------------------------------------------------------------------
# Knowledge


@portal_page()
def knowledge(request: HttpRequest) -> HttpResponse:
    on = _on(request)
    form = forms.FactForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            result = owner_fact_add(
                topic=data["topic"],
                statement=data["statement"],
                valid_from=data["valid_from"],
                valid_to=data["valid_to"],
                visibility=data["visibility"],
                actor=actor_of(request),
            )
        except KnowledgeInputError as exc:
            form.add_error(None, str(exc))
        else:
            if result.disagreements:
                messages.info(request, "Saved as a disagreement: a stronger source says otherwise.")
            else:
                messages.success(request, "Fact added. The assistant uses it from now on.")
            return redirect(request.get_full_path())
    context = {
        "on": on,
        "today": timezone.localdate(),
        "quick_dates": _quick_dates(timezone.localdate()),
        "topics": selectors.knowledge_overview(on=on),
        "topic_names": selectors.topic_names(),
        "disagreement_count": selectors.disagreements().count(),
        "form": form,
    }
    return render_portal_page(request, "portal/knowledge.html", context, status=400 if form.errors else 200)


@portal_page()
def topic(request: HttpRequest, pk: int) -> HttpResponse:
    found = get_object_or_404(Topic, pk=pk)
    on = _on(request)
    context = {
        "page": selectors.topic_page(topic=found, on=on),
        "on": on,
        "today": timezone.localdate(),
        "quick_dates": _quick_dates(timezone.localdate()),
        "replace_form": forms.ReplaceForm(),
        "retire_form": forms.RetireForm(),
    }
    return render_portal_page(request, "portal/topic.html", context)


@portal_page()
def fact_replace(request: HttpRequest, pk: int) -> HttpResponse:
    fact = get_object_or_404(Fact.objects.select_related("topic"), pk=pk)
    form = forms.ReplaceForm(
        request.POST or None,
        initial={"statement": fact.statement, "valid_from": fact.valid_from, "valid_to": fact.valid_to},
    )
    if request.method == "POST" and form.is_valid():
        try:
            owner_fact_add(
                topic=fact.topic.name,
                aspect=fact.aspect,
                statement=form.cleaned_data["statement"],
                valid_from=form.cleaned_data["valid_from"],
                valid_to=form.cleaned_data["valid_to"],
                visibility=fact.visibility,
                replaces=[fact],
                actor=actor_of(request),
            )
        except KnowledgeInputError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, "Replaced. The old wording is kept in the history.")
            return back_to_topic(fact, request)
    return render_portal_page(
        request,
        "portal/fact_action.html",
        {"fact": fact, "form": form, "action": "replace"},
        status=400 if form.errors else 200,
    )


@portal_page()
def fact_retire_view(request: HttpRequest, pk: int) -> HttpResponse:
    fact = get_object_or_404(Fact.objects.select_related("topic"), pk=pk)
    form = forms.RetireForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            fact_retire(fact=fact, reason=form.cleaned_data["reason"], actor=actor_of(request))
        except KnowledgeInputError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, "Retired. The assistant no longer says it; you can restore it.")
            return back_to_topic(fact, request)
    return render_portal_page(
        request,
        "portal/fact_action.html",
        {"fact": fact, "form": form, "action": "retire"},
        status=400 if form.errors else 200,
    )


@require_POST
@portal_page()
def fact_restore_view(request: HttpRequest, pk: int) -> HttpResponse:
    fact = get_object_or_404(Fact, pk=pk)
    form = forms.RestoreForm(request.POST)
    reason = form.cleaned_data["reason"] if form.is_valid() else ""
    try:
        fact_restore(fact=fact, reason=reason, actor=actor_of(request))
    except KnowledgeInputError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "Restored. Whatever had replaced it is retired.")
    return back_to_topic(fact, request)


@portal_page()
def disagreements(request: HttpRequest) -> HttpResponse:
    context = {"open": selectors.disagreements(), "resolved": selectors.disagreements(status="accepted")[:10]}
    return render_portal_page(request, "portal/disagreements.html", context)


@require_POST
@portal_page()
def disagreement_resolve_view(request: HttpRequest, pk: int) -> HttpResponse:
    disagreement = get_object_or_404(Disagreement, pk=pk)
    form = forms.ResolveForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose accept or dismiss.")
        return redirect("portal:knowledge_disagreements")
    accept = form.cleaned_data["decision"] == "accept"
    try:
        disagreement_resolve(disagreement=disagreement, accept=accept, actor=actor_of(request))
    except KnowledgeInputError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request,
            "Accepted: the source's value replaces yours." if accept else "Dismissed: your value stands.",
        )
    return redirect("portal:knowledge_disagreements")


# ----------------------------------------------------------------------------------------------
# Sources


@portal_page()
def sources(request: HttpRequest) -> HttpResponse:
    current = ingestion.website_settings_get()
    form = forms.WebsiteForm(
        request.POST or None,
        initial={
            "start_url": current.start_url,
            "schedule": current.schedule,
            "max_pages": current.max_pages,
            "max_depth": current.max_depth,
        },
    )
    if request.method == "POST" and form.is_valid():
        try:
            _row, job = ingestion.website_settings_save(actor=actor_of(request), **form.cleaned_data)
        except (ingestion.IngestionInputError, KnowledgeInputError) as exc:
            form.add_error(None, str(exc))
        else:
            if job is None:
                messages.success(request, "Website settings saved.")
            elif job.status == JobStatus.FAILED:  # refused before it started (e.g. not a public address)
                messages.error(request, f"Website settings saved, but {job.error}")
            else:
                messages.success(request, "Website settings saved. Reading your website now…")
            return _back(request, "portal:sources")
    context = {
        "page": selectors.sources_page(),
        "website_form": form,
        "upload_form": forms.UploadForm(),
        "answer_form": forms.AnswerForm(),
    }
    return render_portal_page(request, "portal/sources.html", context, status=400 if form.errors else 200)


@require_POST
@portal_page()
def sources_sync(request: HttpRequest) -> HttpResponse:
    try:
        job = ingestion.website_sync_now(actor=actor_of(request), background=True)
    except (ingestion.IngestionInputError, KnowledgeInputError) as exc:
        messages.error(request, str(exc))
    else:
        if job.status == JobStatus.FAILED:  # refused before it started (e.g. not a public address)
            messages.error(request, job.error)
        else:
            messages.success(request, f"Reading {job.target} now: progress shows below.")
    return redirect("portal:sources")


@require_POST
@portal_page()
def sources_upload(request: HttpRequest) -> HttpResponse:
    form = forms.UploadForm(request.POST, request.FILES)
    if not form.is_valid():
        messages.error(request, "Choose a file to upload.")
        return redirect("portal:sources")
    upload = form.cleaned_data["file"]
    try:
        # Stored here, read in the worker (a parser never runs in the web process, issue 16); one byte
        # over the limit is enough for document_upload to refuse an oversized file without holding it.
        job = ingestion.document_upload(
            filename=upload.name,
            data=upload.read(ingestion.MAX_UPLOAD_BYTES + 1),
            visibility=form.cleaned_data["visibility"],
            actor=actor_of(request),
            background=True,
        )
    except (ingestion.IngestionInputError, KnowledgeInputError) as exc:
        messages.error(request, str(exc))
    else:
        if job.status == JobStatus.FAILED:
            messages.error(request, f"{job.target}: {job.error or 'could not be read.'}")
        elif job.status == JobStatus.DONE:
            messages.success(request, f"{job.target}: {ingestion.job_summary(job)}")
        else:
            messages.success(request, f"{job.target} is being read: progress shows below.")
    return redirect("portal:sources")


@require_POST
@portal_page()
def source_retire_view(request: HttpRequest, pk: int) -> HttpResponse:
    source = get_object_or_404(Source, pk=pk, is_active=True)
    reason = request.POST.get("reason", "").strip()[:300]
    result = source_retire(source=source, reason=reason, actor=actor_of(request))
    messages.success(
        request, f"Retired {source.title or source.ref}: {len(result.retired)} fact(s) retired with it."
    )
    return redirect("portal:sources")


@require_POST
@portal_page()
def owner_answer_add(request: HttpRequest) -> HttpResponse:
    form = forms.AnswerForm(request.POST)
    question = request.POST.get("question", "").strip()[:500]
    if not form.is_valid():
        messages.error(request, "Write an answer.")
        return _back(request, "portal:sources")
    try:
        result = owner_answer_record(
            question=question, answer=form.cleaned_data["answer"], actor=actor_of(request)
        )
    except KnowledgeInputError as exc:
        messages.error(request, str(exc))
    else:
        answer_saved(request, "Answer saved: it wins over the website and documents.", result=result)
    return _back(request, "portal:sources")


@portal_page()
def job(request: HttpRequest, pk: int) -> HttpResponse:
    """One job's progress (the Sources page polls this with htmx while the job runs)."""
    found = selectors.with_summary(get_object_or_404(IngestionJob, pk=pk))
    return render_portal_page(request, "portal/_job.html", {"job": found})


# ----------------------------------------------------------------------------------------------
# Gaps: questions the knowledge could not answer


@portal_page()
def gaps(request: HttpRequest) -> HttpResponse:
    tickets = list(selectors.gaps_open())
    rows = [_gap_row(t) for t in tickets]
    context = {"rows": rows, "closed": selectors.gaps_closed(), "answer_form": forms.AnswerForm()}
    return render_portal_page(request, "portal/gaps.html", context)


def _gap_row(ticket: GapTicket) -> dict[str, Any]:
    return {
        "ticket": ticket,
        "wordings": selectors.gap_wordings(ticket),
        "asks": selectors.gap_asks_context(ticket),
        "found": selectors.gap_found(ticket),
    }


def _gap_done(request: HttpRequest, ticket: GapTicket, form: Any = None) -> HttpResponse:
    if request.htmx:  # type: ignore[attr-defined]
        row = {"ticket": ticket, "wordings": []}
        return render_portal_page(
            request, "portal/_gap.html", {"row": row, "answer_form": form or forms.AnswerForm()}
        )
    if form is not None and form.errors:
        messages.error(request, " ".join(e for errors in form.errors.values() for e in errors))
    return redirect("portal:gaps")


@require_POST
@portal_page()
def gap_answer_view(request: HttpRequest, pk: int) -> HttpResponse:
    ticket = get_object_or_404(GapTicket.objects.defer("embedding"), pk=pk)
    form = forms.AnswerForm(request.POST)
    if form.is_valid():
        try:
            ticket = gap_answer(ticket=ticket, answer=form.cleaned_data["answer"], actor=actor_of(request))
        except KnowledgeInputError as exc:
            form.add_error("answer", str(exc))
        else:
            if not request.htmx:  # type: ignore[attr-defined]
                answer_saved(request, "Answered. The assistant knows it now.", fact_ids=ticket.fact_ids)
            return _gap_done(request, ticket)
    return _gap_done(request, ticket, form)


@require_POST
@portal_page()
def gap_dismiss_view(request: HttpRequest, pk: int) -> HttpResponse:
    ticket = get_object_or_404(GapTicket.objects.defer("embedding"), pk=pk, status=GapStatus.OPEN)
    form = forms.DismissForm(request.POST)
    reason = (form.cleaned_data["reason"] if form.is_valid() else "") or "no business value"
    ticket = gap_dismiss(ticket=ticket, reason=reason, actor=actor_of(request))
    if not request.htmx:  # type: ignore[attr-defined]
        messages.success(request, "Dismissed. Similar questions will not be asked again.")
    return _gap_done(request, ticket)


# ----------------------------------------------------------------------------------------------
# Conversations


@portal_page()
def conversations(request: HttpRequest) -> HttpResponse:
    """Visitors' conversations; ?tests=1 the owner's own previews and drafts, kept out of the figures."""
    tests = request.GET.get("tests") == "1"
    context = {
        "conversations": selectors.conversations_list(tests=tests),
        "tests": tests,
        "test_count": Conversation.objects.tests().count(),
    }
    return render_portal_page(request, "portal/conversations.html", context)


@portal_page()
def conversation(request: HttpRequest, pk: int) -> HttpResponse:
    found = get_object_or_404(Conversation, pk=pk)
    context = {
        "conversation": found,
        "turns": selectors.conversation_turns(found),
        "fix_form": forms.AnswerForm(),
    }
    return render_portal_page(request, "portal/conversation.html", context)


@require_POST
@portal_page()
def answer_fix(request: HttpRequest, pk: int) -> HttpResponse:
    """ "Fix this answer": the owner's answer to the visitor's question, closing its gap if it had one."""
    message = get_object_or_404(Message, pk=pk, role=MessageRole.ASSISTANT)
    back = reverse("portal:conversations_detail", args=[message.conversation_id]) + f"#m{message.pk}"
    form = forms.AnswerForm(request.POST)
    question = selectors.question_before(message)
    if not form.is_valid() or question is None:
        messages.error(request, "Write the right answer.")
        return redirect(back)
    answer = form.cleaned_data["answer"]
    ticket = selectors.open_gap_for_message(question.pk)
    try:
        if ticket is not None:
            ticket = gap_answer(ticket=ticket, answer=answer, actor=actor_of(request))
            result: IngestResult | None = None
        else:
            result = owner_answer_record(question=question.text, answer=answer, actor=actor_of(request))
    except KnowledgeInputError as exc:
        messages.error(request, str(exc))
    else:
        saved = "Saved as your answer: the assistant will say this from now on."
        answer_saved(request, saved, result=result, fact_ids=ticket.fact_ids if ticket is not None else None)
    return redirect(back)


# ----------------------------------------------------------------------------------------------
# Widget and team (owners and reseller admins)


@portal_page(BUSINESS_ROLES_MANAGE)
def widget(request: HttpRequest) -> HttpResponse:
    business = request.tenant  # type: ignore[attr-defined]
    form = forms.WidgetSettingsForm(request.POST or None, instance=widget_settings())
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, "Widget settings saved. The preview below uses them.")
        return redirect("portal:widget")
    context = {"form": form, "snippet": _snippet(request), "public_key": business.public_key}
    return render_portal_page(request, "portal/widget.html", context, status=400 if form.errors else 200)


@require_POST
@portal_page(BUSINESS_ROLES_MANAGE)
def widget_site_add(request: HttpRequest) -> HttpResponse:
    """One more site that may show the widget (the dashboard's start; the Widget page edits the list)."""
    form = forms.AllowedSiteForm(request.POST)
    if not form.is_valid():
        messages.error(
            request, " ".join(str(e) for e in form.errors.get("origin") or ["Write the site's address."])
        )
        return _back(request, "portal:widget")
    row = widget_settings()
    origin = form.cleaned_data["origin"]
    if origin not in (row.allowed_origins or []):
        row.allowed_origins = [*(row.allowed_origins or []), origin]
        row.save(update_fields=["allowed_origins", "updated_at"])
    messages.success(request, f"{origin} may show the widget now.")
    return _back(request, "portal:widget")


@portal_page(BUSINESS_ROLES_MANAGE)
def team(request: HttpRequest) -> HttpResponse:
    business = request.tenant  # type: ignore[attr-defined]
    form = forms.InviteForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            invitation_create(
                email=form.cleaned_data["email"],
                role=Role(form.cleaned_data["role"]),
                business=business,
                invited_by=request.user,  # type: ignore[arg-type]
            )
        except ValidationError as exc:
            form.add_error("email", _errors_of(exc))
        else:
            messages.success(request, f"Invitation sent to {form.cleaned_data['email']}.")
            return redirect("portal:team")
    return render_portal_page(
        request,
        "portal/team.html",
        {"team": selectors.team(business), "form": form},
        status=400 if form.errors else 200,
    )
