"""Reads of the knowledge layer, chiefly rendering: the assistant never reads the fact table.

It reads one document per topic, rendered from the facts live on the date of the question. A fact past
its end date is simply not rendered (no job has to run for it to expire); while a temporary fact is in
force, the permanent fact it overrides is shown as paused, with the date it resumes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta

from django.db.models import Count, Q, QuerySet

from apps.facts.models import (
    Disagreement,
    DisagreementStatus,
    Evidence,
    Fact,
    FactEvent,
    FactStatus,
    PartReading,
    Source,
    SourceKind,
    SourcePart,
    Topic,
    Visibility,
)
from apps.tenants.selectors import current_business_name

AUDIENCE_VISITOR = "visitor"
AUDIENCE_STAFF = "staff"


@dataclass(frozen=True)
class SourceRef:
    kind: str
    ref: str
    title: str
    learned_on: date

    @property
    def label(self) -> str:
        """How a visitor sees it under an answer: "per the owner, 12 Nov" / "from the website, 3 Nov"."""
        when = f"{self.learned_on.day} {self.learned_on:%b}"
        return {
            SourceKind.OWNER_ANSWER: f"per the owner, {when}",
            SourceKind.PROFILE: f"from the business profile, {when}",
            SourceKind.DOCUMENT: f"from a document, {when}",
            SourceKind.WEBSITE: f"from the website, {when}",
        }.get(SourceKind(self.kind), when)


@dataclass(frozen=True)
class RenderedFact:
    id: int
    statement: str
    state: str  # current | temporary | paused | upcoming | ended (only when asked for: knowledge_render)
    learned_at: datetime
    valid_from: date | None
    valid_to: date | None
    sources: tuple[SourceRef, ...]
    line: str


@dataclass(frozen=True)
class RenderedTopic:
    topic_id: int
    name: str
    on: date
    text: str
    facts: tuple[RenderedFact, ...] = field(default_factory=tuple)

    def keeping(self, fact_ids: Collection[int]) -> RenderedTopic | None:
        """The same topic with only the facts ``fact_ids`` names (None when none of them is left)."""
        kept = tuple(f for f in self.facts if f.id in fact_ids)
        if not kept:
            return None
        header = self.text.split("\n- ", 1)[0]
        return replace(self, text=_topic_text(header, kept), facts=kept)

    @property
    def sources(self) -> list[SourceRef]:
        seen: dict[tuple[str, str], SourceRef] = {}
        for fact in self.facts:
            for src in fact.sources:
                current = seen.get((src.kind, src.ref))
                if current is None or src.learned_on > current.learned_on:
                    seen[(src.kind, src.ref)] = src
        return sorted(seen.values(), key=lambda s: s.learned_on, reverse=True)


def _fmt(day: date) -> str:
    return f"{day.day} {day:%B %Y}"


def facts_live_on(
    on: date, *, audience: str = AUDIENCE_VISITOR, ended_since: date | None = None
) -> QuerySet[Fact]:
    """Facts that can apply on ``on`` or later: live, not past their end date (or, with
    ``ended_since``, ended no earlier than that day). Visitors never see internal facts (the filter is
    in the query, not in a prompt)."""
    q = Q(status=FactStatus.LIVE) & (Q(valid_to__isnull=True) | Q(valid_to__gte=ended_since or on))
    if audience != AUDIENCE_STAFF:
        q &= Q(visibility=Visibility.PUBLIC)
    return Fact.objects.filter(q)


def fact_ids_dated_on(on: date, *, audience: str = AUDIENCE_VISITOR) -> list[int]:
    """Live facts in force on ``on`` only for a while (a closure week, seasonal hours, an offer that
    ends): what a question about that day must see whatever it asks about."""
    return list(
        facts_live_on(on, audience=audience)
        .filter(valid_to__isnull=False)
        .filter(Q(valid_from__isnull=True) | Q(valid_from__lte=on))
        .values_list("id", flat=True)
    )


def _covers(broad: str, aspect: str) -> bool:
    return aspect == broad or aspect.startswith(broad + " ")


def _in_force(fact: Fact, on: date) -> bool:
    return (fact.valid_from is None or fact.valid_from <= on) and (
        fact.valid_to is None or fact.valid_to >= on
    )


def _render_lines(facts: list[Fact], on: date) -> list[tuple[Fact, str, str]]:
    """Order and word one topic's facts for a date: (fact, state, line)."""
    in_force_temp: dict[str, list[Fact]] = defaultdict(list)
    for f in facts:
        if f.is_temporary and _in_force(f, on):
            in_force_temp[f.aspect].append(f)
    lines: list[tuple[Fact, str, str]] = []
    for f in facts:
        if f.valid_to is not None and f.valid_to < on:
            # Over (only rendered when asked for): "is the summer school still on?" is answered by
            # when it ended, and an ended fact overrides nothing.
            lines.append((f, "ended", f"Ended {_fmt(f.valid_to)} (over): {f.statement}"))
            continue
        if f.is_temporary:
            if f.valid_from is not None and f.valid_from > on:
                until = f" to {_fmt(f.valid_to)}" if f.valid_to else ""
                lines.append((f, "upcoming", f"From {_fmt(f.valid_from)}{until} (upcoming): {f.statement}"))
            elif f.valid_to is not None:
                lines.append((f, "temporary", f"Until {_fmt(f.valid_to)} (temporary): {f.statement}"))
            else:
                lines.append((f, "current", f.statement))
            continue
        # A temporary fact overrides permanent facts on the same aspect, and a broader temporary
        # fact ("hours": closed for a week) overrides the narrower ones ("hours monday-thursday").
        overrides = [o for aspect, found in in_force_temp.items() if _covers(aspect, f.aspect) for o in found]
        if overrides:
            if any(o.valid_to is None for o in overrides):
                continue  # replaced from a start date on, with no end: no longer applies
            resumes = max(o.valid_to for o in overrides if o.valid_to) + timedelta(days=1)
            lines.append((f, "paused", f"Usually, and again from {_fmt(resumes)}: {f.statement}"))
        else:
            lines.append((f, "current", f.statement))
    order = {"temporary": 0, "current": 1, "paused": 2, "upcoming": 3, "ended": 4}
    lines.sort(key=lambda item: (order[item[1]], item[0].learned_at, item[0].pk))
    return lines


def knowledge_render(
    *,
    on: date,
    topic_ids: Iterable[int] | None = None,
    audience: str = AUDIENCE_VISITOR,
    fact_ids: Iterable[int] | None = None,
    ended_since: date | None = None,
) -> list[RenderedTopic]:
    """The business's knowledge as one document per topic, for the date ``on`` (optionally only some
    topics, or only some facts: retrieval hands the answerer just the facts of the pieces it kept).
    With ``ended_since``, facts that ended on or after that day and before ``on`` are rendered too,
    marked as over, last in their topic."""
    # Only the columns rendering reads: this runs on every chat turn (retrieval renders the kept
    # pieces' facts), where building full model instances and per-fact evidence querysets cost more
    # than the SQL itself.
    facts_qs = facts_live_on(on, audience=audience, ended_since=ended_since).only(
        "id", "topic_id", "aspect", "statement", "learned_at", "valid_from", "valid_to"
    )
    if topic_ids is not None:
        facts_qs = facts_qs.filter(topic_id__in=list(topic_ids))
    wanted = set(fact_ids) if fact_ids is not None else None
    if wanted is not None:
        # The wanted facts and the temporary ones that may override them; other permanent facts of
        # the topics cannot change how a wanted fact reads.
        facts_qs = facts_qs.filter(Q(pk__in=wanted) | Q(valid_from__isnull=False) | Q(valid_to__isnull=False))
    by_topic: dict[int, list[Fact]] = defaultdict(list)
    for fact in facts_qs.order_by("learned_at", "id"):
        by_topic[fact.topic_id].append(fact)
    chosen: dict[int, list[tuple[Fact, str, str]]] = {}
    for topic_id, facts in by_topic.items():
        lines = _render_lines(facts, on)
        if wanted is not None:
            # Only the wanted facts, plus any temporary fact in force that overrides one of them: a
            # permanent fact must never be presented as current while its override applies.
            aspects = {f.aspect for f, _, _ in lines if f.pk in wanted}
            lines = [
                (f, st, ln)
                for f, st, ln in lines
                if f.pk in wanted or (st == "temporary" and f.aspect in aspects)
            ]
        if lines:
            chosen[topic_id] = lines
    if not chosen:
        return []
    names = dict(Topic.objects.filter(pk__in=list(chosen)).values_list("id", "name"))
    sources = _current_sources([f.pk for lines in chosen.values() for f, _, _ in lines])
    business = current_business_name()
    rendered = []
    for topic_id, lines in chosen.items():
        name = names[topic_id]
        header = (
            f"{name}\n"
            f"This is {business}'s current information on {name} as of {_fmt(on)}. "
            "Anything not listed here was not stated by the business."
        )
        rendered_facts = []
        for fact, state, line in lines:
            refs = tuple(sources.get(fact.pk, ()))
            rendered_facts.append(
                RenderedFact(
                    id=fact.pk,
                    statement=fact.statement,
                    state=state,
                    learned_at=fact.learned_at,
                    valid_from=fact.valid_from,
                    valid_to=fact.valid_to,
                    sources=refs,
                    line=line,
                )
            )
        rendered.append(
            RenderedTopic(
                topic_id=topic_id,
                name=name,
                on=on,
                text=_topic_text(header, rendered_facts),
                facts=tuple(rendered_facts),
            )
        )
    rendered.sort(key=lambda t: t.name.lower())
    return rendered


def _topic_text(header: str, facts: Iterable[RenderedFact]) -> str:
    return header + "\n" + "\n".join(f"- {rf.line}" for rf in facts)


def _current_sources(fact_ids: list[int]) -> dict[int, list[SourceRef]]:
    """The sources currently stating each fact (withdrawn evidence no longer counts), in one query."""
    found: dict[int, list[SourceRef]] = defaultdict(list)
    rows = (
        Evidence.objects.filter(fact_id__in=fact_ids, withdrawn_at__isnull=True)
        .order_by("id")
        .values_list("fact_id", "kind", "source__ref", "source__title", "added_at")
    )
    for fact_id, kind, ref, title, added_at in rows:
        found[fact_id].append(SourceRef(kind=kind, ref=ref, title=title, learned_on=added_at.date()))
    return found


def topic_render(topic: Topic, *, on: date, audience: str = AUDIENCE_VISITOR) -> RenderedTopic | None:
    found = knowledge_render(on=on, topic_ids=[topic.pk], audience=audience)
    return found[0] if found else None


def knowledge_text(*, on: date, audience: str = AUDIENCE_VISITOR) -> str:
    return "\n\n".join(t.text for t in knowledge_render(on=on, audience=audience))


def topics_with_counts() -> QuerySet[Topic]:
    return Topic.objects.annotate(
        live=Count("facts", filter=Q(facts__status=FactStatus.LIVE)),
        retired=Count("facts", filter=Q(facts__status=FactStatus.RETIRED)),
    ).order_by("name")


def topic_history(topic: Topic) -> list[FactEvent]:
    """What changed on a topic, when and why, newest first."""
    return list(
        FactEvent.objects.filter(fact__topic=topic)
        .select_related("fact", "related", "version__source")
        .order_by("-at", "-id")
    )


def facts_of_topic(topic: Topic) -> QuerySet[Fact]:
    return topic.facts.all().prefetch_related("evidence__source").order_by("-learned_at", "-id")


def disagreements_open() -> QuerySet[Disagreement]:
    return Disagreement.objects.filter(status=DisagreementStatus.OPEN).select_related("fact__topic", "source")


def sources_list(kind: str | None = None) -> QuerySet[Source]:
    qs = Source.objects.annotate(
        facts=Count("evidence__fact", filter=Q(evidence__withdrawn_at__isnull=True), distinct=True)
    ).order_by("-last_read_at", "-id")
    return qs.filter(kind=kind) if kind else qs


# ----------------------------------------------------------------------------------------------
# How each part was read (decision 0020): what the owner is told on the Sources page


@dataclass
class PartsFlagged:
    """A source's present parts the owner should know about."""

    rereading: list[SourcePart] = field(default_factory=list)  # built-in stand-ins; the model reads again
    gave_up: list[SourcePart] = field(default_factory=list)  # built-in stand-ins; the model could not read
    unread: list[SourcePart] = field(default_factory=list)  # "we could not read a detail here"


_FLAGGED = {
    PartReading.RETRY: "rereading",
    PartReading.GAVE_UP: "gave_up",
    PartReading.NO_RECORDS: "unread",
}


def parts_flagged(source_ids: Iterable[int]) -> dict[int, PartsFlagged]:
    """By source id: its present parts read by the built-in reader for a model, or with no record."""
    found: dict[int, PartsFlagged] = defaultdict(PartsFlagged)
    parts = SourcePart.objects.filter(
        source_id__in=list(source_ids), removed_in__isnull=True, reading__in=list(_FLAGGED)
    ).order_by("id")
    for part in parts:
        getattr(found[part.source_id], _FLAGGED[PartReading(part.reading)]).append(part)
    return dict(found)


def facts_awaiting_model(fact_ids: Iterable[int]) -> bool:
    """Whether any of these facts is a built-in stand-in whose part the model will read again."""
    return Fact.objects.filter(
        pk__in=list(fact_ids),
        stand_in=True,
        status=FactStatus.LIVE,
        evidence__part__reading=PartReading.RETRY,
        evidence__withdrawn_at__isnull=True,
    ).exists()
