"""Reads for the portal and the console: the numbers and lists the pages show.

The portal sits on top of every other app, so it may read their records; it never writes them (writes
go through each app's services). Functions without a ``business`` argument read the current schema;
the console's ones enter each business's schema themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, TypeVar

from django.db.models import Count, F, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.db.models.functions import TruncDate
from django.utils import timezone
from django_tenants.utils import schema_context

from apps.accounts.models import Invitation, Membership, Role
from apps.chat.models import Conversation, Decision, Message, WidgetSettings, own_tests_q
from apps.chat.models import Role as MessageRole
from apps.facts.ingestion import job_summary
from apps.facts.models import (
    Disagreement,
    DisagreementStatus,
    Evidence,
    Fact,
    FactStatus,
    IngestionJob,
    JobKind,
    JobStatus,
    Source,
    SourceKind,
    SourceVersion,
    Topic,
    WebsiteSettings,
)
from apps.facts.selectors import (
    AUDIENCE_STAFF,
    AUDIENCE_VISITOR,
    PartsFlagged,
    knowledge_render,
    parts_flagged,
    topic_history,
)
from apps.gaps.models import GapAsk, GapStatus, GapTicket
from apps.retrieval.models import IndexState
from apps.tenants.models import Business, Reseller

CHART_DAYS = 14
_J = TypeVar("_J", IngestionJob, IngestionJob | None)
WEBSITE_JOB_KINDS = (JobKind.CRAWL, JobKind.RESYNC)


def _day_start(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, datetime.min.time()))


# ----------------------------------------------------------------------------------------------
# Dashboard


@dataclass(frozen=True)
class DayCount:
    day: date
    conversations: int
    unanswered: int


@dataclass
class Dashboard:
    today: date
    conversations_today: int
    conversations_week: int
    answered: int
    unanswered: int
    open_gaps: list[GapTicket]
    open_gap_count: int
    disagreements: list[Disagreement]
    disagreement_count: int
    last_sync_at: datetime | None
    last_sync_job: IngestionJob | None
    website: str
    days: list[DayCount] = field(default_factory=list)
    visitor_questions: int = 0  # ever asked by visitors (not the owner's tests): an empty state's truth
    live_facts: int = 0
    model_turns_today: int = 0  # turns the language model was asked to answer
    model_fallbacks_today: int = 0  # of them, turns the built-in answerer answered instead

    @property
    def answered_share(self) -> int | None:
        """Percent of the week's questions answered from the knowledge (None: no questions yet)."""
        total = self.answered + self.unanswered
        return round(100 * self.answered / total) if total else None


def _answer_counts(since: datetime) -> tuple[int, int]:
    counts = (
        Message.objects.filter(
            role=MessageRole.ASSISTANT,
            created_at__gte=since,
            decision__in=[Decision.ANSWER, Decision.UNKNOWN],
        )
        .exclude(own_tests_q("conversation__"))  # the owner's own tests are not visitors' questions
        .aggregate(
            answered=Count("id", filter=Q(decision=Decision.ANSWER)),
            unanswered=Count("id", filter=Q(decision=Decision.UNKNOWN)),
        )
    )
    return counts["answered"], counts["unanswered"]


def daily_counts(*, today: date, days: int = CHART_DAYS) -> list[DayCount]:
    """Conversations started and questions left unanswered, per day, for the last ``days`` days."""
    first = today - timedelta(days=days - 1)
    since = _day_start(first)
    started = dict(
        Conversation.objects.visitors()
        .filter(started_at__gte=since)
        .annotate(day=TruncDate("started_at"))
        .values_list("day")
        .annotate(n=Count("id"))
        .values_list("day", "n")
    )
    unanswered = dict(
        Message.objects.filter(role=MessageRole.ASSISTANT, decision=Decision.UNKNOWN, created_at__gte=since)
        .exclude(own_tests_q("conversation__"))
        .annotate(day=TruncDate("created_at"))
        .values_list("day")
        .annotate(n=Count("id"))
        .values_list("day", "n")
    )
    out = []
    for i in range(days):
        day = first + timedelta(days=i)
        out.append(DayCount(day=day, conversations=started.get(day, 0), unanswered=unanswered.get(day, 0)))
    return out


def with_summary(job: _J) -> _J:
    """Attach the one-line summary ("5 pages: 2 new...; 7 details added") the templates show."""
    if job is not None:
        job.summary = job_summary(job)  # type: ignore[attr-defined]
    return job


def last_website_job() -> IngestionJob | None:
    return with_summary(
        IngestionJob.objects.filter(kind__in=WEBSITE_JOB_KINDS).order_by("-created_at", "-id").first()
    )


def _last_sync() -> tuple[datetime | None, str]:
    settings_row = WebsiteSettings.objects.filter(pk=1).first()
    website = settings_row.start_url if settings_row else ""
    at = settings_row.last_sync_at if settings_row else None
    if at is None:  # a website read before the settings existed (the demo history, a scenario)
        at = (
            Source.objects.filter(kind=SourceKind.WEBSITE, last_read_at__isnull=False)
            .order_by("-last_read_at")
            .values_list("last_read_at", flat=True)
            .first()
        )
    return at, website


def dashboard(*, today: date | None = None) -> Dashboard:
    today = today or timezone.localdate()
    week_start = _day_start(today - timedelta(days=6))
    answered, unanswered = _answer_counts(week_start)
    open_gaps = GapTicket.objects.filter(status=GapStatus.OPEN).order_by("-asked_count", "-last_asked_at")
    disagreements = Disagreement.objects.filter(status=DisagreementStatus.OPEN).select_related(
        "fact__topic", "source"
    )
    last_sync_at, website = _last_sync()
    return Dashboard(
        today=today,
        conversations_today=Conversation.objects.visitors().filter(started_at__gte=_day_start(today)).count(),
        conversations_week=Conversation.objects.visitors().filter(started_at__gte=week_start).count(),
        answered=answered,
        unanswered=unanswered,
        open_gaps=list(open_gaps[:5]),
        open_gap_count=open_gaps.count(),
        disagreements=list(disagreements[:3]),
        disagreement_count=disagreements.count(),
        last_sync_at=last_sync_at,
        last_sync_job=last_website_job(),
        website=website,
        days=daily_counts(today=today),
        visitor_questions=Message.objects.filter(role=MessageRole.VISITOR)
        .exclude(own_tests_q("conversation__"))
        .count(),
        live_facts=Fact.objects.filter(status=FactStatus.LIVE).count(),
        **_model_health(since=_day_start(today)),
    )


@dataclass
class Onboarding:
    """The three steps of a new business's start, each done by what it leaves behind."""

    live_facts: int  # 1. it knows something (a website read, a document, owner answers)
    crawl_job: IngestionJob | None  # the website reading, while it runs: its progress is shown
    website: str
    previewed: bool  # 2. the owner asked it something in the preview
    allowed_origins: list[str]  # 3. sites that may show the widget
    visitor_seen: bool  # after 3: the first real visitor talked to it

    @property
    def knows(self) -> bool:
        return self.live_facts > 0

    @property
    def embedded(self) -> bool:
        return bool(self.allowed_origins)

    @property
    def done_count(self) -> int:
        return sum((self.knows, self.previewed, self.embedded))

    @property
    def complete(self) -> bool:
        return self.done_count == 3

    @property
    def reading(self) -> bool:
        return self.crawl_job is not None and self.crawl_job.status in (JobStatus.QUEUED, JobStatus.RUNNING)


def onboarding() -> Onboarding:
    widget = WidgetSettings.objects.first()
    settings_row = WebsiteSettings.objects.filter(pk=1).first()
    previewed = (
        Message.objects.filter(role=MessageRole.VISITOR).filter(own_tests_q("conversation__")).exists()
    )
    return Onboarding(
        live_facts=Fact.objects.filter(status=FactStatus.LIVE).count(),
        crawl_job=last_website_job(),
        website=settings_row.start_url if settings_row else "",
        previewed=previewed,
        allowed_origins=list(widget.allowed_origins or []) if widget else [],
        visitor_seen=Conversation.objects.visitors().exists(),
    )


def _model_health(*, since: datetime) -> dict[str, int]:
    """How often today the language model failed a visitor's turn (no text, a cut or HTML stream, a
    refusal, an error or a time-out) and the built-in answerer spoke instead: the flag is on the turn's
    log (apps.chat.services.turn_finish)."""
    counts = Message.objects.filter(
        role=MessageRole.ASSISTANT, created_at__gte=since, answerer="llm"
    ).aggregate(
        turns=Count("id"),
        fallbacks=Count("id", filter=Q(retrieval_log__flags__contains=["fallback:builtin"])),
    )
    return {"model_turns_today": counts["turns"], "model_fallbacks_today": counts["fallbacks"]}


# ----------------------------------------------------------------------------------------------
# Knowledge


@dataclass
class TopicOnDate:
    topic: Topic
    lines: list[Any]  # RenderedFact, as the visitors' assistant reads them on the date
    internal: list[Any]  # staff-only lines (never shown to visitors)


def knowledge_overview(*, on: date) -> list[TopicOnDate]:
    """Every topic as the assistant would present it on ``on``; topics with nothing to say included."""
    visitor = {t.topic_id: t for t in knowledge_render(on=on, audience=AUDIENCE_VISITOR)}
    staff = {t.topic_id: t for t in knowledge_render(on=on, audience=AUDIENCE_STAFF)}
    topics = Topic.objects.annotate(
        live=Count("facts", filter=Q(facts__status=FactStatus.LIVE)),
        retired=Count("facts", filter=Q(facts__status=FactStatus.RETIRED)),
    ).order_by("name")
    out = []
    for topic in topics:
        seen = visitor.get(topic.pk)
        lines = list(seen.facts) if seen else []
        shown = {f.id for f in lines}
        internal = [f for f in (staff[topic.pk].facts if topic.pk in staff else ()) if f.id not in shown]
        out.append(TopicOnDate(topic=topic, lines=lines, internal=internal))
    return out


@dataclass
class FactRow:
    fact: Fact
    state: str  # live state on the date (current, temporary, paused, upcoming, ended) or "retired"
    evidence: list[Evidence]
    replaced_by: Fact | None
    replaces: list[Fact]


@dataclass
class TopicPage:
    topic: Topic
    on: date
    rendered: Any  # RenderedTopic | None, as visitors' assistant sees it
    facts: list[FactRow]
    history: list[Any]


def topic_page(*, topic: Topic, on: date) -> TopicPage:
    rendered = knowledge_render(on=on, topic_ids=[topic.pk], audience=AUDIENCE_VISITOR)
    staff = knowledge_render(on=on, topic_ids=[topic.pk], audience=AUDIENCE_STAFF)
    states = {f.id: f.state for t in staff for f in t.facts}
    facts = (
        topic.facts.all()
        .select_related("retired_by", "origin__source")
        .prefetch_related(
            Prefetch("evidence", queryset=Evidence.objects.select_related("source").order_by("added_at")),
            "replaces",
        )
        .order_by("status", "-learned_at", "-id")
    )
    rows = []
    for fact in facts:
        state = "retired" if fact.status == FactStatus.RETIRED else states.get(fact.pk, "ended")
        rows.append(
            FactRow(
                fact=fact,
                state=state,
                evidence=list(fact.evidence.all()),
                replaced_by=fact.retired_by,
                replaces=list(fact.replaces.all()),
            )
        )
    return TopicPage(
        topic=topic,
        on=on,
        rendered=rendered[0] if rendered else None,
        facts=rows,
        history=topic_history(topic),
    )


def topic_names() -> list[str]:
    return list(Topic.objects.order_by("name").values_list("name", flat=True))


def disagreements(*, status: str = DisagreementStatus.OPEN) -> QuerySet[Disagreement]:
    return Disagreement.objects.filter(status=status).select_related(
        "fact__topic", "source", "version", "fact__origin__source"
    )


# ----------------------------------------------------------------------------------------------
# Sources


@dataclass
class SourceRow:
    source: Source
    versions: list[Any]
    facts: list[Fact]
    question: str = ""
    # Parts read by the built-in reader for a failed model, or with no record (decision 0020).
    flags: PartsFlagged = field(default_factory=PartsFlagged)


def _source_rows(kind: SourceKind, limit: int = 50) -> list[SourceRow]:
    sources = (
        Source.objects.filter(kind=kind)
        .prefetch_related(
            Prefetch("versions", queryset=SourceVersion.objects.order_by("-read_at", "-id")),
            Prefetch(
                "evidence",
                queryset=Evidence.objects.filter(withdrawn_at__isnull=True).select_related("fact__topic"),
            ),
        )
        .order_by("-is_active", "-last_read_at", "-id")[:limit]
    )
    rows = []
    for source in sources:
        facts: dict[int, Fact] = {}
        for evidence in source.evidence.all():
            if evidence.fact.status == FactStatus.LIVE:
                facts.setdefault(evidence.fact_id, evidence.fact)
        versions = list(source.versions.all())
        question = next((v.question for v in versions if v.question), "")
        rows.append(
            SourceRow(source=source, versions=versions, facts=list(facts.values()), question=question)
        )
    flagged = parts_flagged(row.source.pk for row in rows)
    for row in rows:
        row.flags = flagged.get(row.source.pk, row.flags)
    return rows


@dataclass
class SourcesPage:
    website: WebsiteSettings | None
    website_job: IngestionJob | None
    last_report_job: IngestionJob | None
    pages: list[SourceRow]
    documents: list[SourceRow]
    answers: list[SourceRow]
    jobs: list[IngestionJob]


def sources_page() -> SourcesPage:
    finished = IngestionJob.objects.filter(kind__in=WEBSITE_JOB_KINDS, status=JobStatus.DONE)
    return SourcesPage(
        website=WebsiteSettings.objects.filter(pk=1).first(),
        website_job=last_website_job(),
        last_report_job=finished.order_by("-finished_at", "-id").first(),
        pages=_source_rows(SourceKind.WEBSITE),
        documents=_source_rows(SourceKind.DOCUMENT),
        answers=_source_rows(SourceKind.OWNER_ANSWER),
        jobs=[with_summary(j) for j in IngestionJob.objects.order_by("-created_at", "-id")[:10]],
    )


# ----------------------------------------------------------------------------------------------
# Gaps


def gaps_open() -> QuerySet[GapTicket]:
    return (
        GapTicket.objects.filter(status=GapStatus.OPEN)
        .prefetch_related(Prefetch("asks", queryset=GapAsk.objects.order_by("-asked_at")))
        .order_by("-asked_count", "-last_asked_at")
        .defer("embedding")
    )


def gaps_closed(limit: int = 20) -> QuerySet[GapTicket]:
    return (
        GapTicket.objects.exclude(status=GapStatus.OPEN)
        .order_by(F("answered_at").desc(nulls_last=True), "-last_asked_at")
        .defer("embedding", "retrieval_log")[:limit]
    )


@dataclass
class AskContext:
    """One visitor asking a question for the owner, with the turns that led to it."""

    ask: GapAsk
    conversation: Conversation | None
    before: list[Message]  # the messages just before the question, oldest first

    @property
    def anchor(self) -> str:
        return f"m{self.ask.message_id}" if self.ask.message_id else ""


def gap_asks_context(ticket: GapTicket, *, limit: int = 3, turns_before: int = 4) -> list[AskContext]:
    """The latest conversations that asked ``ticket`` (its asks must be prefetched newest first)."""
    asks = [a for a in ticket.asks.all() if a.conversation_id][:limit]
    conversations = Conversation.objects.in_bulk([a.conversation_id for a in asks])
    out = []
    for ask in asks:
        conversation = conversations.get(ask.conversation_id)
        before: list[Message] = []
        if conversation is not None:
            earlier = conversation.messages.filter(created_at__lt=ask.asked_at)
            if ask.message_id:
                earlier = conversation.messages.filter(pk__lt=ask.message_id)
            before = list(earlier.order_by("-created_at", "-id")[:turns_before])[::-1]
        out.append(AskContext(ask=ask, conversation=conversation, before=before))
    return out


@dataclass
class GapFound:
    """What the assistant found for a question for the owner, and why it was not enough (its log)."""

    kept: list[dict[str, Any]]  # {"topic", "score"} of each piece it read, best first
    confidence: float | None
    needed: float | None  # the confidence below which a question is passed to the owner
    reason: str


def gap_found(ticket: GapTicket) -> GapFound:
    log = ticket.retrieval_log or {}
    kept = [
        {"topic": k.get("topic", ""), "score": max((k.get("scores") or {}).values(), default=0.0)}
        for k in log.get("kept", [])
    ]
    confidence = log.get("confidence", log.get("top_similarity"))
    needed = (log.get("thresholds") or {}).get("values", {}).get("record_gap")
    if not log:
        reason = "No search was recorded for it."
    elif not kept:
        reason = "Nothing in the knowledge came close to it."
    elif confidence is not None and needed is not None and confidence < needed:
        reason = (
            f"The best match scored {confidence:.2f}, below the {needed:.2f} the assistant needs to be "
            "sure it is about the same thing."
        )
    else:
        reason = "The facts it found do not say what was asked, so it did not guess."
    return GapFound(kept=kept[:5], confidence=confidence, needed=needed, reason=reason)


def gap_wordings(ticket: GapTicket, limit: int = 5) -> list[str]:
    """The distinct ways visitors asked this question (the ticket merges them by meaning)."""
    seen: list[str] = []
    for ask in ticket.asks.all():
        if ask.question != ticket.question and ask.question not in seen:
            seen.append(ask.question)
    return seen[:limit]


# ----------------------------------------------------------------------------------------------
# Conversations


def conversations_list(limit: int = 100, *, tests: bool = False) -> QuerySet[Conversation]:
    """Visitors' conversations, newest first; or, with ``tests``, the owner's own (previews, drafts)."""
    first_question = (
        Message.objects.filter(conversation=OuterRef("pk"), role=MessageRole.VISITOR)
        .order_by("created_at", "id")
        .values("text")[:1]
    )
    chosen = Conversation.objects.tests() if tests else Conversation.objects.visitors()
    return chosen.annotate(
        turns=Count("messages", filter=Q(messages__role=MessageRole.VISITOR)),
        unanswered=Count("messages", filter=Q(messages__decision=Decision.UNKNOWN)),
        first_question=Subquery(first_question),
    ).order_by("-last_at")[:limit]


@dataclass
class Turn:
    question: Message | None
    answer: Message | None


def conversation_turns(conversation: Conversation) -> list[Turn]:
    """The transcript as (visitor message, assistant reply) pairs, in order."""
    turns: list[Turn] = []
    for message in conversation.messages.order_by("created_at", "id"):
        if message.role == MessageRole.VISITOR:
            turns.append(Turn(question=message, answer=None))
        elif turns and turns[-1].answer is None and turns[-1].question is not None:
            turns[-1].answer = message
        else:
            turns.append(Turn(question=None, answer=message))
    return turns


def question_before(message: Message) -> Message | None:
    """The visitor's message an assistant message answered."""
    return (
        Message.objects.filter(
            conversation_id=message.conversation_id,
            role=MessageRole.VISITOR,
            created_at__lte=message.created_at,
        )
        .exclude(pk=message.pk)
        .order_by("-created_at", "-id")
        .first()
    )


def open_gap_for_message(message_id: int) -> GapTicket | None:
    ask = (
        GapAsk.objects.filter(message_id=message_id, ticket__status=GapStatus.OPEN)
        .select_related("ticket")
        .first()
    )
    return ask.ticket if ask else None


# ----------------------------------------------------------------------------------------------
# Team


@dataclass
class TeamPage:
    members: list[Membership]
    reseller_admins: list[Membership]
    invitations: list[Invitation]


def team(business: Business) -> TeamPage:
    return TeamPage(
        members=list(
            Membership.objects.filter(business=business)
            .select_related("user")
            .order_by("role", "user__email")
        ),
        reseller_admins=list(
            Membership.objects.filter(reseller_id=business.reseller_id, role=Role.RESELLER_ADMIN)
            .select_related("user")
            .order_by("user__email")
        ),
        invitations=[
            i
            for i in Invitation.objects.filter(business=business, accepted_at__isnull=True).order_by(
                "-created_at"
            )
            if i.is_open
        ],
    )


# ----------------------------------------------------------------------------------------------
# Console


@dataclass
class BusinessUsage:
    business: Business
    conversations_30d: int
    answered: int
    unanswered: int
    open_gaps: int
    open_disagreements: int
    live_facts: int
    last_sync_at: datetime | None
    last_job: IngestionJob | None
    index_status: str
    index_built_at: datetime | None

    @property
    def answered_share(self) -> int | None:
        total = self.answered + self.unanswered
        return round(100 * self.answered / total) if total else None

    @property
    def healthy(self) -> bool:
        failed = self.last_job is not None and self.last_job.status == JobStatus.FAILED
        return self.index_status in ("ready", "empty") and not failed


def business_usage(business: Business, *, today: date | None = None) -> BusinessUsage:
    """Usage and health of one business (enters its schema)."""
    today = today or timezone.localdate()
    since = _day_start(today - timedelta(days=29))
    with schema_context(business.schema_name):
        answered, unanswered = _answer_counts(since)
        state = IndexState.objects.first()
        last_sync_at, _ = _last_sync()
        return BusinessUsage(
            business=business,
            conversations_30d=Conversation.objects.visitors().filter(started_at__gte=since).count(),
            answered=answered,
            unanswered=unanswered,
            open_gaps=GapTicket.objects.filter(status=GapStatus.OPEN).count(),
            open_disagreements=Disagreement.objects.filter(status=DisagreementStatus.OPEN).count(),
            live_facts=Fact.objects.filter(status=FactStatus.LIVE).count(),
            last_sync_at=last_sync_at,
            last_job=last_website_job(),
            index_status=state.status if state else "empty",
            index_built_at=state.built_at if state else None,
        )


def reseller_businesses(reseller: Reseller) -> list[BusinessUsage]:
    return [business_usage(b) for b in reseller.businesses.order_by("name")]
