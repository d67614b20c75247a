"""Writes of the knowledge layer: the rules that decide what is true (seed 000, section 3.2).

Every entry point here is one unit of work in one transaction: a source event either changes the
knowledge completely or not at all. Both extractors only *propose* records (``Candidate``); the
rules below decide what becomes a fact, what it replaces, and what is recorded as a disagreement:

1. Only what is new is processed: an unchanged source is a no-op recorded as "seen"; a changed one
   processes only its new parts; facts that came only from removed parts are retired. The event is
   stored (committed) before it is read, and a part the language model fails on is read by the
   built-in extractor meanwhile and asked again by the worker (decision 0020): nothing is lost.
2. Newer replaces older on the same subject (same topic and aspect); other aspects only add detail.
3. An owner's answer is never replaced by a document or the website: that becomes a disagreement.
4. A temporary fact never replaces a permanent one; the permanent one applies again afterwards.
5. Retiring a source retires only the facts that came only from it.
6. Nothing is deleted; every change is a FactEvent with its reason.
"""

from __future__ import annotations

import hashlib
import logging
import time
import uuid
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from apps.facts.extraction.base import (
    Candidate,
    ExtractionContext,
    ExtractionError,
    Extractor,
    ModelOutputError,
    topic_key,
)
from apps.facts.extraction.builtin import BuiltinExtractor
from apps.facts.extraction.builtin_dates import days_of_key
from apps.facts.extraction.factory import get_extractor
from apps.facts.extraction.guard import UNTRUSTED_KINDS, host_of, screen_parts
from apps.facts.extraction.parts import Part, normalise, split_parts
from apps.facts.lexical import content_words, overlap
from apps.facts.models import (
    OWNER_RANK,
    PRECEDENCE,
    Disagreement,
    DisagreementStatus,
    EventKind,
    Evidence,
    Fact,
    FactEvent,
    FactStatus,
    PartReading,
    Source,
    SourceKind,
    SourcePart,
    SourceVersion,
    Topic,
    VersionOutcome,
    Visibility,
    WebsiteSettings,
)
from apps.facts.schedules import reread_schedule_set
from apps.facts.signals import announce_topics_changed
from apps.facts.subjects import alternatives, compare_many, similarity_provider
from apps.integrations.llm import LLMError, LLMResponseError, llm_config_from_settings
from apps.tenants.db import current_schema
from apps.tenants.selectors import current_business_name

logger = logging.getLogger(__name__)


class KnowledgeInputError(ValueError):
    """Bad input for a source event (empty, not text, too large). Nothing was written."""


@dataclass
class IngestResult:
    version: SourceVersion
    added: list[Fact] = field(default_factory=list)
    confirmed: list[Fact] = field(default_factory=list)
    retired: list[Fact] = field(default_factory=list)
    disagreements: list[Disagreement] = field(default_factory=list)
    skipped_parts: list[dict[str, str]] = field(default_factory=list)
    touched_topics: set[int] = field(default_factory=set)
    # Parts the language model failed on: the built-in reader's records stand in, the worker retries.
    rereading: list[SourcePart] = field(default_factory=list)
    # Parts that yielded no record at all: shown to the owner ("we could not read a detail here").
    unread: list[SourcePart] = field(default_factory=list)

    @property
    def unchanged(self) -> bool:
        return self.version.outcome == VersionOutcome.SEEN


# ----------------------------------------------------------------------------------------------
# Names and hashes


def content_hash(text: str) -> str:
    return hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()


def aspect_key(aspect: str) -> str:
    return " ".join(aspect.lower().split())[:200]


def _value_key(value: str | None) -> str:
    return " ".join((value or "").lower().replace(",", "").split()).rstrip(".")


def _same_clock(known: str, new: str) -> bool:
    """Whether new opening hours written without am/pm are the known ones ("5-11" of a leaflet beside
    the page's "5 PM-11 PM"): the same numbers say nothing new, and the known value says more."""
    bare = _value_key(new)
    if "am" in bare.split() or "pm" in bare.split() or not any(ch.isdigit() for ch in bare):
        return False
    return _value_key(known).replace(" am", "").replace(" pm", "") == bare


def _topic_name(name: str) -> str:
    return " ".join(name.split())[:120] or "General"


def _topic_find(name: str) -> Topic | None:
    return Topic.objects.filter(key=topic_key(_topic_name(name))).first()


def topic_get_or_create(name: str) -> Topic:
    name = _topic_name(name)
    key = topic_key(name)
    topic = Topic.objects.filter(key=key).first()
    if topic is None:
        topic = Topic.objects.create(name=name[:1].upper() + name[1:], key=key)
    return topic


def _event(
    fact: Fact,
    kind: EventKind,
    reason: str,
    *,
    at: datetime,
    version: SourceVersion | None = None,
    related: Fact | None = None,
    actor: str = "",
) -> None:
    FactEvent.objects.create(
        fact=fact, kind=kind, reason=reason[:500], version=version, related=related, actor=actor, at=at
    )


def _describe(source: Source) -> str:
    if source.kind == SourceKind.WEBSITE:
        return f"the website ({source.ref})"
    if source.kind == SourceKind.DOCUMENT:
        return f"document '{source.title or source.ref}'"
    if source.kind == SourceKind.PROFILE:
        return "the business profile"
    return "the owner's answer"


def _authority(fact: Fact) -> int:
    kinds = Evidence.objects.filter(fact=fact, withdrawn_at__isnull=True).values_list("kind", flat=True)
    ranks = [PRECEDENCE[SourceKind(k)] for k in kinds]
    return max(ranks) if ranks else PRECEDENCE[SourceKind(fact.source_kind)]


def _windows_overlap(a_from: date | None, a_to: date | None, b_from: date | None, b_to: date | None) -> bool:
    return (a_from or date.min) <= (b_to or date.max) and (b_from or date.min) <= (a_to or date.max)


def _same_subject_conflicts(fact: Fact, cand: Candidate) -> bool:
    """Whether ``cand`` and ``fact`` compete for the same time: two permanent facts always do; a
    temporary and a permanent one never do (the temporary one overrides while in force)."""
    fact_temp = fact.valid_from is not None or fact.valid_to is not None
    cand_temp = cand.valid_from is not None or cand.valid_to is not None
    if fact_temp != cand_temp:
        return False
    if not fact_temp:
        return True
    return _windows_overlap(fact.valid_from, fact.valid_to, cand.valid_from, cand.valid_to)


#: Aspects that say only *whether* something is so ("allowed", "availability"): the thing itself is
#: in the question, so two owner answers with such an aspect are about the same subject only when
#: their questions are (DSTC9: "Can I bring my bike on the train?" and "Can I park my bike at the
#: station?" both extract to Bike / allowed; the second must not retire the first).
_YES_NO_ASPECTS = ("availability", "allowed", "included")
_SAME_QUESTION_OVERLAP = 0.6


def _same_question_subject(fact: Fact, aspect: str, question: str) -> bool:
    if not aspect.startswith(_YES_NO_ASPECTS) or not fact.question or not question:
        return True  # the aspect alone names the subject ("hours sunday", "price")
    if normalise(fact.question).lower() == normalise(question).lower():
        return True
    return overlap(fact.question, question) >= _SAME_QUESTION_OVERLAP


def _owner_restates(fact: Fact, cand: Candidate, run: _Run) -> bool:
    """Whether the owner's answer gives a page's or document's value again in words of its own ("its
    EUR 9.95 anywhere in Ireland but ... free on anything over EUR 80 now" of "Delivery anywhere in
    Ireland: EUR 9.95, FREE on orders over EUR 100"): the owner's statement replaces the weaker one,
    which confirming would keep, dropping whatever else the owner said."""
    return (
        run.source.kind == SourceKind.OWNER_ANSWER
        and _authority(fact) < run.rank
        and fact.learned_at <= run.at
        and normalise(fact.statement).lower().rstrip(".") != normalise(cand.statement).lower().rstrip(".")
    )


def _same_value(fact: Fact, cand: Candidate) -> bool:
    if fact.valid_from != cand.valid_from or fact.valid_to != cand.valid_to:
        return False
    if fact.value and cand.value:
        if cand.aspect.startswith("hours") and _same_clock(fact.value, cand.value):
            return True
        return _value_key(fact.value) == _value_key(cand.value)
    return normalise(fact.statement).lower().rstrip(".") == normalise(cand.statement).lower().rstrip(".")


# ----------------------------------------------------------------------------------------------
# One source event


@dataclass
class _Run:
    source: Source
    version: SourceVersion
    part: SourcePart | None
    rank: int
    at: datetime
    question: str
    result: IngestResult
    actor: str = ""
    # Records of the built-in extractor standing in for a model that failed on the part.
    stand_in: bool = False
    # Whether a candidate's ``replaces`` ids are the owner's own choice (the portal's "replace"), or a
    # model's proposal that the subject matcher must confirm.
    trust_replaces: bool = False
    # Facts the rules must not compare with: the stand-ins a model reading is superseding.
    ignore: frozenset[int] = frozenset()


def _retire(
    fact: Fact,
    reason: str,
    *,
    run_at: datetime,
    by: Fact | None = None,
    version: SourceVersion | None = None,
    actor: str = "",
) -> None:
    fact.status = FactStatus.RETIRED
    fact.retired_at = run_at
    fact.retired_reason = reason[:300]
    fact.retired_by = by
    fact.save(update_fields=["status", "retired_at", "retired_reason", "retired_by"])
    _event(fact, EventKind.RETIRED, reason, at=run_at, version=version, related=by, actor=actor)


def _add_evidence(fact: Fact, run: _Run) -> None:
    Evidence.objects.create(
        fact=fact,
        source=run.source,
        version=run.version,
        part=run.part,
        kind=run.source.kind,
        added_at=run.at,
    )


#: Aspects longer than this are whole statements (a candidate with no aspect of its own), not names:
#: they are only ever the same subject by key.
_MAX_ASPECT_NAME_WORDS = 5


def _subject_label(topic: str, aspect: str) -> str:
    return f"{topic} · {aspect}" if aspect else topic


def _live_elsewhere(run: _Run) -> list[Fact]:
    """The live facts no part of the candidate's own source states: what a subject by meaning may be."""
    return list(
        Fact.objects.filter(status=FactStatus.LIVE)
        .exclude(evidence__source=run.source, evidence__withdrawn_at__isnull=True)
        .select_related("topic")
        .only("id", "aspect", "topic__id", "topic__name", "topic__key")
    )


def _meaning_subject(
    topic_name: str, aspect: str, live: list[Fact]
) -> tuple[list[Fact], dict[str, object]] | None:
    """The live facts on a subject that names the candidate's by meaning, and the record of the match.

    Compared with every live subject of the business (topic names, then the aspects on each matching
    topic) by apps.facts.subjects. A subject the candidate's own source states is never a match: a
    source that names two things separately means two things ("Cleaning $95. Deep cleaning $200.").
    """
    if not live:
        return None
    own_key = topic_key(topic_name)
    topics = {f.topic.name: f.topic for f in live}
    names = [n for n, t in topics.items() if t.key != own_key]
    by_topic: dict[str, tuple[float | None, str, str]] = {
        n: (1.0, "key", "the same name") for n, t in topics.items() if t.key == own_key
    }
    for name, found in zip(names, compare_many(topic_name, names), strict=True):
        if found.same:
            by_topic[name] = (found.similarity, found.method, found.reason)
    best: tuple[float, list[Fact], dict[str, object]] | None = None
    for name, (topic_sim, topic_method, topic_reason) in by_topic.items():
        on_topic = [f for f in live if f.topic.name == name]
        aspects = list(dict.fromkeys(f.aspect for f in on_topic))
        matched: dict[str, tuple[float | None, str]] = {}
        if aspect in aspects:
            matched[aspect] = (1.0, "key")
        elif len(aspect.split()) <= _MAX_ASPECT_NAME_WORDS:
            # Aspects are by head nouns only ("prices" / "price", "hours: sunday" / "sunday hours"):
            # they are one- or two-word attribute names, where the embedding cannot tell attributes
            # apart (an address merged with a phone number in tests/facts/test_ingestion.py).
            short = [a for a in aspects if len(a.split()) <= _MAX_ASPECT_NAME_WORDS]
            for other, found in zip(
                short, compare_many(aspect, short, use_provider=False, aspects=True), strict=True
            ):
                if found.same:
                    matched[other] = (found.similarity, found.method)
        for other, (aspect_sim, aspect_method) in matched.items():
            if topic_method == "key" and aspect_method == "key":
                continue  # the exact subject: the caller found it already, or it is this source's
            # The match's similarity is its weakest matched part's (None: matched without a provider).
            parts = [(topic_sim, topic_method), (aspect_sim, aspect_method)]
            sims = [sim for sim, how in parts if how != "key"]
            similarity = None if None in sims else min(sims)  # type: ignore[type-var]
            score = 1.0 if similarity is None else similarity
            if best is not None and score <= best[0]:
                continue
            facts = [f for f in on_topic if f.aspect == other]
            method = topic_method if topic_method != "key" else aspect_method
            provider = similarity_provider()
            best = (
                score,
                facts,
                {
                    "topic": name,
                    "aspect": other,
                    "fact": facts[0].pk,
                    "similarity": None if similarity is None else round(similarity, 4),
                    "topic_similarity": None if topic_sim is None else round(topic_sim, 4),
                    "aspect_similarity": None if aspect_sim is None else round(aspect_sim, 4),
                    "method": method,
                    "provider": provider.name if provider is not None else "",
                    "own_topic": topic_name,
                    "own_aspect": aspect,
                    "reason": topic_reason if topic_method != "key" else f"aspect {aspect_method}",
                },
            )
    if best is None:
        return None
    return best[1], best[2]


def _folded(topic_name: str, aspect: str) -> tuple[str, str, bool]:
    """A subject with its variant moved from the aspect into the name: a table cell is filed as
    "Copy" / "price for colour" (the row's item, the column as the variant), where prose says
    "Colour copies" / "price". Returns (name, aspect, folded)."""
    base, sep, variant = aspect.partition(" for ")
    if sep and variant.strip() and 0 < len(base.split()) <= _MAX_VARIANT_BASE_WORDS:
        # Each of the row's names takes the variant ("Remedial / deep tissue" at "60 min").
        named = " / ".join(f"{variant.strip()} {name}" for name in alternatives(topic_name))
        return named, base.strip(), True
    return topic_name, aspect, False


#: "price for colour": the part before "for" names the attribute (one or two words), not a phrase.
_MAX_VARIANT_BASE_WORDS = 2


def _variant_subject(
    topic_name: str, aspect: str, live: list[Fact], run: _Run
) -> tuple[list[Fact], dict[str, object]] | None:
    """The live facts on a subject that names the candidate's once a table's variant is read as part
    of the name ("Copy" / "price for colour" and "Colour copies" / "price"), compared by
    apps.facts.subjects like any two names. Only pairs where one side carries a variant: the others
    were compared by _meaning_subject already. Never a subject of the candidate's own source."""
    own_name, own_aspect, own_folded = _folded(topic_name, aspect)
    subjects: dict[str, list[Fact]] = {}
    for fact in live:
        if fact.pk in run.ignore:
            continue
        name, base, folded = _folded(fact.topic.name, fact.aspect)
        if base == own_aspect and (folded or own_folded):
            subjects.setdefault(name, []).append(fact)
    names = list(subjects)
    if not names:
        return None
    own_key = topic_key(topic_name)
    variants_of_own = {name for name, facts in subjects.items() if facts[0].topic.key == own_key}
    if not own_folded and len(variants_of_own) > 1:
        # A bare name over two of its own variants ("Mini Bee" beside "Mini Bee, Mon-Fri" and "Mini
        # Bee, Sat & Sun"): which one it means is not the matcher's guess, however close one scores.
        return None
    same = [
        (1.0 if found.similarity is None else found.similarity, name)
        for name, found in zip(names, compare_many(own_name, names), strict=True)
        if found.same
    ]
    if len(same) != 1:
        # None, or ambiguous: "High school" names both "online High school" and "in person High
        # school"; which one a bare name means is not the matcher's guess to make.
        return None
    best = same[0]
    facts = subjects[best[1]]
    groups = {(f.topic_id, f.aspect) for f in facts}
    if len(groups) > 1:
        return None  # one folded name over two stored subjects: not one thing to replace
    provider = similarity_provider()
    return facts, {
        "topic": facts[0].topic.name,
        "aspect": facts[0].aspect,
        "fact": facts[0].pk,
        "similarity": None if best[0] == 1.0 else round(best[0], 4),
        "topic_similarity": None,
        "aspect_similarity": None,
        "method": "variant",
        "provider": provider.name if provider is not None else "",
        "own_topic": topic_name,
        "own_aspect": aspect,
        "reason": f'"{own_name}" names the same thing as "{best[1]}" once the variant is part of the name',
    }


def _named_in_statement(
    topic_name: str, aspect: str, statement: str, live: list[Fact], run: _Run
) -> tuple[list[Fact], dict[str, object]] | None:
    """The live subject whose fuller name the candidate's own statement writes, when the candidate's
    name is part of that name ("Protein is $2.50 now for a protein scoop" against "Protein scoop":
    the statement says which protein thing it prices). One such subject, on the same aspect, or none."""
    own = set(topic_key(topic_name).split())
    said = f" {topic_key(statement)} "
    found: dict[int, list[Fact]] = {}
    for fact in live:
        words = fact.topic.key.split()
        if (
            fact.aspect == aspect
            and fact.pk not in run.ignore
            and len(words) > len(own) > 0
            and own <= set(words)
            and f" {fact.topic.key} " in said
        ):
            found.setdefault(fact.topic_id, []).append(fact)
    if len(found) != 1:
        return None
    facts = next(iter(found.values()))
    return facts, {
        "topic": facts[0].topic.name,
        "aspect": aspect,
        "fact": facts[0].pk,
        "similarity": None,
        "topic_similarity": None,
        "aspect_similarity": None,
        "method": "named",
        "provider": "",
        "own_topic": topic_name,
        "own_aspect": aspect,
        "reason": f'the statement names "{facts[0].topic.name}", of which "{topic_name}" is part',
    }


def _merge_note(match: dict[str, object] | None) -> str:
    if not match:
        return ""
    similarity = match.get("similarity")
    how = f"similarity {similarity:.2f}" if isinstance(similarity, float) else str(match.get("method"))
    own = _subject_label(str(match["own_topic"]), str(match["own_aspect"]))
    return f' Named "{own}"; treated as the same subject as "{_subject_label(str(match["topic"]), str(match["aspect"]))}" ({how}).'


def _apply_candidate(cand: Candidate, run: _Run) -> None:
    aspect = aspect_key(cand.aspect) or aspect_key(cand.statement)
    topic = _topic_find(cand.topic)
    same_subject = (
        list(
            Fact.objects.filter(topic=topic, aspect=aspect, status=FactStatus.LIVE).exclude(pk__in=run.ignore)
        )
        if topic
        else []
    )
    match: dict[str, object] | None = None
    if not same_subject:
        # No live fact under the exact names: a live subject may name the same thing differently.
        live = _live_elsewhere(run)
        name = _topic_name(cand.topic)
        found = (
            _meaning_subject(name, aspect, live)
            or _variant_subject(name, aspect, live, run)
            or _named_in_statement(name, aspect, cand.statement, live, run)
        )
        if found is not None:
            same_subject, match = found
            topic, aspect = same_subject[0].topic, same_subject[0].aspect
    if topic is None:
        topic = topic_get_or_create(cand.topic)
    run.result.touched_topics.add(topic.pk)
    named = [int(i) for i in getattr(cand, "replaces", []) or [] if str(i).isdigit()]
    if named:  # a language-model extractor may name what it replaces; the rules still decide
        found_named = list(
            Fact.objects.filter(pk__in=named, status=FactStatus.LIVE)
            .exclude(pk__in=[f.pk for f in same_subject])
            .exclude(pk__in=run.ignore)
            .select_related("topic")
        )
        if not run.trust_replaces:
            found_named = _same_topic(found_named, topic, cand.topic)
        on_subject = {f.pk for f in same_subject}
        named = [i for i in named if i in on_subject] + [f.pk for f in found_named]
        same_subject += found_named

    restated = []
    for fact in same_subject:
        if fact.topic_id == topic.pk and fact.aspect == aspect and _same_value(fact, cand):
            if _owner_restates(fact, cand, run):
                restated.append(fact)
                continue
            already = Evidence.objects.filter(
                fact=fact, source=run.source, withdrawn_at__isnull=True
            ).exists()
            _add_evidence(fact, run)  # per part: the fact survives while any stating part remains
            if not already:
                _event(
                    fact,
                    EventKind.CONFIRMED,
                    f"Also stated by {_describe(run.source)}.{_merge_note(match)}",
                    at=run.at,
                    version=run.version,
                )
            run.result.confirmed.append(fact)
            return

    conflicts = restated + [
        f
        for f in same_subject
        if f not in restated
        and (
            f.pk in named
            or (_same_subject_conflicts(f, cand) and _same_question_subject(f, aspect, run.question))
        )
    ]
    stronger = [f for f in conflicts if _authority(f) > run.rank]
    if stronger:
        owner_fact = max(stronger, key=_authority)
        _record_disagreement(owner_fact, cand, run, match=match)
        return

    newer = [f for f in conflicts if f.learned_at > run.at]
    fact = Fact.objects.create(
        topic=topic,
        aspect=aspect,
        statement=normalise(cand.statement),
        value=(cand.value or "")[:200],
        learned_at=run.at,
        valid_from=cand.valid_from,
        valid_to=cand.valid_to,
        source_kind=run.source.kind,
        origin=run.version,
        question=run.question,
        visibility=run.source.visibility,
        matched_subject=match or {},
        stand_in=run.stand_in,
    )
    _add_evidence(fact, run)
    stood_in = " Read by the built-in reader; the language model will read it again." if run.stand_in else ""
    _event(
        fact,
        EventKind.CREATED,
        f"Learned from {_describe(run.source)}.{_merge_note(match)}{stood_in}",
        at=run.at,
        version=run.version,
        actor=run.actor,
    )
    if newer:  # this source is older than what we know: keep it, but as history
        _retire(
            fact,
            "Superseded by newer information learned earlier.",
            run_at=run.at,
            by=newer[0],
            version=run.version,
        )
        run.result.retired.append(fact)
        return
    run.result.added.append(fact)
    for old in conflicts:
        _replace(old, fact, run, f"Replaced by newer information from {_describe(run.source)}.")
    _weekly_hours_covered(fact, run)


def _replace(old: Fact, fact: Fact, run: _Run, reason: str) -> None:
    fact.replaces.add(old)
    _retire(old, reason, run_at=run.at, by=fact, version=run.version, actor=run.actor)
    run.result.retired.append(old)


_WEEK_DAYS = 7


def _weekly_days(fact: Fact) -> set[int] | None:
    """The weekdays a permanent opening-hours fact is about ("hours monday-tuesday"), or None."""
    if fact.valid_from or fact.valid_to or not fact.aspect.startswith("hours "):
        return None
    return days_of_key(fact.aspect.removeprefix("hours "))


def _weekly_hours_covered(fact: Fact, run: _Run) -> None:
    """Newer beats older on the same subject, day by day: the hours of a run of days ("closed Monday
    & Tuesday") are one subject per day, and a fact whose every day has since been stated again
    ("open Mondays 9-5", "closed Tuesdays"), by sources at least as authoritative, says nothing that
    is still so. It is retired, with the fact that completed the cover as what replaced it. Only
    whole runs: one day of five changed leaves the run live, and the answerer takes the newer day."""
    days = _weekly_days(fact)
    if not days or len(days) == _WEEK_DAYS:
        # "Every day" covers nothing here: it is the reading most often of someone else's hours ("for
        # emergencies call the animal hospital, open 24/7"), and a wrong one would retire them all.
        return
    weekly = [
        (f, d, _authority(f))
        for f in Fact.objects.filter(topic=fact.topic, status=FactStatus.LIVE, aspect__startswith="hours ")
        .exclude(pk__in=run.ignore)
        .exclude(pk=fact.pk)
        if (d := _weekly_days(f))
    ]
    for old, old_days, old_rank in weekly:
        if not old_days & days or run.rank < old_rank or old.learned_at >= run.at:
            continue
        newer = [
            d
            for f, d, rank in weekly
            if f.pk != old.pk and f.learned_at > old.learned_at and rank >= old_rank and len(d) < _WEEK_DAYS
        ]
        if old_days <= days.union(*newer):
            reason = f"Each of its days has since been stated again, last by {_describe(run.source)}."
            _replace(old, fact, run, reason)


def _same_topic(facts: list[Fact], topic: Topic, named_topic: str) -> list[Fact]:
    """The facts a model named in ``replaces`` that are on the candidate's subject: its topic after
    matching, or a topic the subject matcher says names the same thing. A model that names a fact on
    another subject (a small model filed a loaf's price under Opening hours) replaces nothing."""
    other = list(dict.fromkeys(f.topic.name for f in facts if f.topic_id != topic.pk))
    same = {
        name
        for name, found in zip(other, compare_many(_topic_name(named_topic), other), strict=True)
        if found.same
    }
    kept = [f for f in facts if f.topic_id == topic.pk or f.topic.name in same]
    if len(kept) < len(facts):
        logger.info(
            "ignored %d replaces id(s) on another subject than %r", len(facts) - len(kept), named_topic
        )
    return kept


def _record_disagreement(
    owner_fact: Fact, cand: Candidate, run: _Run, *, match: dict[str, object] | None = None
) -> None:
    statement = normalise(cand.statement)
    exists = Disagreement.objects.filter(
        fact=owner_fact, source=run.source, statement=statement, status=DisagreementStatus.OPEN
    ).exists()
    if exists:
        return
    disagreement = Disagreement.objects.create(
        fact=owner_fact,
        source=run.source,
        version=run.version,
        part=run.part,
        candidate={**cand.model_dump(mode="json"), **({"matched_subject": match} if match else {})},
        statement=statement,
        created_at=run.at,
    )
    _event(
        owner_fact,
        EventKind.DISAGREEMENT,
        f'{_describe(run.source).capitalize()} says otherwise: "{statement}" (not applied).{_merge_note(match)}',
        at=run.at,
        version=run.version,
    )
    run.result.disagreements.append(disagreement)


def _withdraw_parts(parts: list[SourcePart], run: _Run, reason: str) -> None:
    """Withdraw the evidence of removed parts; retire facts left with no current evidence."""
    if not parts:
        return
    evidence = Evidence.objects.filter(part__in=parts, withdrawn_at__isnull=True)
    fact_ids = set(evidence.values_list("fact_id", flat=True))
    evidence.update(withdrawn_at=run.at, withdrawn_reason=reason[:300])
    Disagreement.objects.filter(part__in=parts, status=DisagreementStatus.OPEN).update(
        status=DisagreementStatus.DISMISSED,
        resolved_at=run.at,
        resolved_by="system: the source no longer says this",
    )
    for fact in Fact.objects.filter(pk__in=fact_ids, status=FactStatus.LIVE):
        if not Evidence.objects.filter(fact=fact, withdrawn_at__isnull=True).exists():
            _retire(fact, reason, run_at=run.at, version=run.version)
            run.result.retired.append(fact)
            run.result.touched_topics.add(fact.topic_id)


def _removal_reason(source: Source) -> str:
    if source.kind == SourceKind.WEBSITE:
        return f"No longer on the website ({source.ref})."
    if source.kind == SourceKind.DOCUMENT:
        return f"No longer in document '{source.title or source.ref}'."
    return f"No longer stated by {_describe(source)}."


def _check_text(content: str) -> str:
    if content is None or not content.strip():
        raise KnowledgeInputError("The source is empty: there is nothing to learn from it.")
    limit = int(getattr(settings, "XORVENTA_MAX_SOURCE_CHARS", 1_000_000))
    if len(content) > limit:
        raise KnowledgeInputError(
            f"The source is {len(content):,} characters long; the limit is {limit:,}. Split it into "
            "several documents."
        )
    sample = content[:20000]
    control = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\n\r\t")
    if "\x00" in sample or control > len(sample) * 0.05:
        raise KnowledgeInputError("The source does not look like text (binary data or control characters).")
    return content


def source_ingest(
    *,
    kind: SourceKind | str,
    ref: str,
    content: str,
    title: str = "",
    question: str = "",
    read_at: datetime | None = None,
    visibility: Visibility | str = Visibility.PUBLIC,
    extractor: Extractor | None = None,
    actor: str = "",
) -> IngestResult:
    """Read one source event (a crawl of a page, an upload, an owner answer) into the knowledge.

    Two transactions: the event is stored first (its own, committed when the caller holds none), then
    read. A reading that fails leaves the event stored as "received", and the worker reads it again
    (apps.facts.rereading); a part the language model fails on does not fail the reading at all (its
    built-in stand-ins, ``_part_read``)."""
    kind = SourceKind(kind)
    content = _check_text(content)
    read_at = read_at or timezone.now()
    ref = ref.strip()[:500]
    if not ref:
        raise KnowledgeInputError("A source needs a reference (URL, file name or id).")
    extractor = extractor or get_extractor()
    with transaction.atomic():
        stored = _event_store(
            kind=kind,
            ref=ref,
            content=content,
            title=title,
            question=question,
            read_at=read_at,
            visibility=visibility,
            extractor_name=extractor.name,
        )
    if isinstance(stored, IngestResult):
        return stored  # unchanged since the last reading
    try:
        with transaction.atomic():
            return source_version_read(version=stored, extractor=extractor, title=title, actor=actor)
    except Exception:
        # The event is kept (committed above, unless the caller's own transaction rolls it back); the
        # worker reads "received" versions again. The caller still hears of the failure.
        _reread_schedule(timezone.now() + timedelta(seconds=REREAD_RECEIVED_AFTER_SECONDS))
        raise


def _event_store(
    *,
    kind: SourceKind,
    ref: str,
    content: str,
    title: str,
    question: str,
    read_at: datetime,
    visibility: Visibility | str,
    extractor_name: str,
) -> SourceVersion | IngestResult:
    """Store the event as a "received" version of its source; an unchanged source is recorded as seen."""
    digest = content_hash(f"{question}\n{content}" if question else content)
    source = Source.objects.select_for_update().filter(kind=kind, ref=ref).first()
    if source is None:
        source = Source.objects.create(kind=kind, ref=ref, title=title[:300], visibility=visibility)
    elif source.is_active and source.last_hash == digest:
        version = SourceVersion.objects.create(
            source=source, content_hash=digest, read_at=read_at, outcome=VersionOutcome.SEEN
        )
        source.last_read_at = read_at
        source.save(update_fields=["last_read_at"])
        return IngestResult(version=version)
    return SourceVersion.objects.create(
        source=source,
        content_hash=digest,
        content=content,
        question=question,
        read_at=read_at,
        outcome=VersionOutcome.RECEIVED,
        extractor=extractor_name,
    )


@transaction.atomic
def source_version_read(
    *, version: SourceVersion, extractor: Extractor | None = None, title: str = "", actor: str = ""
) -> IngestResult:
    """Read a stored ("received") version into the knowledge: split, extract, apply the rules."""
    version = SourceVersion.objects.select_related("source").get(pk=version.pk)
    source = Source.objects.select_for_update().get(pk=version.source_id)
    result = IngestResult(version=version)
    if version.outcome != VersionOutcome.RECEIVED:
        return result  # read already (a retry that raced the first reading)
    if SourceVersion.objects.filter(
        source=source, pk__gt=version.pk, outcome=VersionOutcome.PROCESSED
    ).exists():
        # A later reading of the source is in the knowledge already: this older text must not undo it.
        version.outcome = VersionOutcome.SEEN
        version.save(update_fields=["outcome"])
        return result
    extractor = extractor or get_extractor()
    kind = SourceKind(source.kind)
    content, question, read_at = version.content, version.question, version.read_at
    if kind in (SourceKind.OWNER_ANSWER, SourceKind.PROFILE) and question:
        parts = [Part(heading="", text=normalise(content), hash=content_hash(f"{question}\n{content}"))]
    else:
        parts = split_parts(content)
    present = {p.hash: p for p in SourcePart.objects.filter(source=source, removed_in__isnull=True)}
    incoming: dict[str, Part] = {}
    for part in parts:
        incoming.setdefault(part.hash, part)
    new_parts = [p for h, p in incoming.items() if h not in present]
    removed = [p for h, p in present.items() if h not in incoming]

    refused = screen_parts(parts, own_hosts=_own_hosts(source)) if kind in UNTRUSTED_KINDS else {}
    reading = _Reading(
        business_name=current_business_name(),
        kind=kind,
        question=question,
        learned_on=read_at.date(),
        existing_topics=list(Topic.objects.values_list("name", flat=True)),
        live=_LiveFacts() if getattr(extractor, "uses_live_facts", False) else None,
        neighbours=_neighbours(parts, refused),
    )
    run = _Run(
        source=source,
        version=version,
        part=None,
        rank=PRECEDENCE[kind],
        at=read_at,
        question=question,
        result=result,
        actor=actor,
    )
    model_down = _model_paused(extractor)
    for part in new_parts:
        stored = SourcePart.objects.create(
            source=source, hash=part.hash, text=part.text, heading=part.heading[:500], added_in=version
        )
        # Text in a page or document addressed to an AI (indirect prompt injection), or linking to a site
        # that is not the business's own, is not knowledge: it is never extracted. The part row is kept so
        # an unchanged source does not offer it again.
        reason = refused.get(part.hash)
        if reason:
            result.skipped_parts.append({"text": part.text[:200], "reason": reason})
            _part_mark(stored, PartReading.SKIPPED, error=reason)
            continue
        run.part = stored
        model_down = _part_read(
            stored,
            reading.context(part),
            extractor,
            run,
            model_down=model_down,
            topics=reading.existing_topics,
        )

    if removed:
        SourcePart.objects.filter(pk__in=[p.pk for p in removed]).update(removed_in=version)
        _withdraw_parts(removed, run, _removal_reason(source))

    version.outcome = VersionOutcome.PROCESSED
    version.extractor = extractor.name
    version.parts_added = len(new_parts)
    version.parts_removed = len(removed)
    version.facts_added = len(result.added)
    version.facts_confirmed = len(result.confirmed)
    version.facts_retired = len(result.retired)
    version.disagreements = len(result.disagreements)
    version.skipped_parts = result.skipped_parts
    version.save()
    source.last_hash = version.content_hash
    source.last_read_at = read_at
    source.is_active = True
    source.retired_at = None
    source.retired_reason = ""
    if title:
        source.title = title[:300]
    source.save()
    if result.rereading:
        _reread_schedule(min(p.retry_at for p in result.rereading if p.retry_at))
    announce_topics_changed(result.touched_topics)
    return result


# ----------------------------------------------------------------------------------------------
# Reading one part; the built-in stand-ins while the language model fails (decision 0020)

#: Backoff of the worker's retries of a part the model failed on: 1, 2, 4 ... minutes, at most 6 hours
#: apart; after RETRY_MAX_ATTEMPTS failures the built-in reader's records stay for good (the owner sees
#: that on the Sources page).
RETRY_BASE_SECONDS = 60
RETRY_CAP_SECONDS = 6 * 3600
RETRY_MAX_ATTEMPTS = 12
#: A version still "received" this long after it was stored was not read (the reading failed).
REREAD_RECEIVED_AFTER_SECONDS = 300
STAND_IN_EXTRACTOR = "builtin"


def retry_delay(attempts: int) -> timedelta:
    """How long after its ``attempts``-th failure a part is asked again (exponential, capped)."""
    return timedelta(seconds=min(RETRY_BASE_SECONDS * 2 ** max(attempts - 1, 0), RETRY_CAP_SECONDS))


#: How many live facts of the part's candidate subjects the model sees.
MAX_LIVE_FACTS_SHOWN = 30


class _LiveFacts:
    """The live facts of the subjects a part may be about, for a model's ``replaces`` (built once per
    reading). Candidate subjects are the topics whose name, aspects or statements share a content word
    with the part (apps.facts.lexical); which of them really is the part's subject is decided later by
    the rules and the subject matcher, not by this list."""

    def __init__(self, exclude: set[int] | None = None) -> None:
        self.facts = list(
            Fact.objects.filter(status=FactStatus.LIVE)
            .exclude(pk__in=exclude or set())
            .select_related("topic")
            .only("id", "aspect", "statement", "value", "topic__name")
            .order_by("topic__name", "id")
        )
        self.words: dict[int, set[str]] = {}
        for fact in self.facts:
            self.words.setdefault(fact.topic_id, set()).update(
                content_words(f"{fact.topic.name} {fact.aspect} {fact.statement}")
            )

    def for_text(self, text: str) -> list[dict[str, str]]:
        wanted = content_words(text)
        scores = {topic: len(wanted & words) for topic, words in self.words.items()}
        topics = [t for t in sorted(scores, key=lambda t: -scores[t]) if scores[t]]
        chosen = [f for t in topics for f in self.facts if f.topic_id == t][:MAX_LIVE_FACTS_SHOWN]
        return [
            {
                "id": str(f.pk),
                "topic": f.topic.name,
                "aspect": f.aspect,
                "statement": f.statement,
                "value": f.value,
            }
            for f in chosen
        ]


@dataclass
class _Reading:
    """What every part of one reading shares, and each part's extraction context."""

    business_name: str
    kind: SourceKind
    question: str
    learned_on: date
    existing_topics: list[str]
    live: _LiveFacts | None
    neighbours: dict[str, tuple[str, str]]

    def context(self, part: Part) -> ExtractionContext:
        before, after = self.neighbours.get(part.hash, ("", ""))
        live = self.live.for_text(" ".join([part.heading, part.text, self.question])) if self.live else []
        return ExtractionContext(
            business_name=self.business_name,
            source_kind=self.kind.value,
            learned_on=self.learned_on,
            question=self.question or None,
            heading=part.heading,
            existing_topics=self.existing_topics,
            live_facts=live,
            row=part.row,  # a priced cell of a list or table: extracted from its structure
            before=before,
            after=after,
        )


def _neighbours(parts: list[Part], refused: dict[str, str]) -> dict[str, tuple[str, str]]:
    """Each part's previous and next part in the source (refused text is never shown to a model)."""
    kept = [p for p in parts if p.hash not in refused]
    around: dict[str, tuple[str, str]] = {}
    for i, part in enumerate(kept):
        before = kept[i - 1].text if i > 0 else ""
        after = kept[i + 1].text if i + 1 < len(kept) else ""
        around.setdefault(part.hash, (before, after))
    return around


def _part_mark(
    part: SourcePart,
    reading: PartReading,
    *,
    read_by: str = "",
    error: str = "",
    attempts: int | None = None,
    retry_at: datetime | None = None,
) -> None:
    part.reading = reading
    part.read_by = read_by[:40]
    part.read_error = error[:2000]
    if attempts is not None:
        part.read_attempts = attempts
    part.retry_at = retry_at
    part.save(update_fields=["reading", "read_by", "read_error", "read_attempts", "retry_at"])


#: After a call to the model times out or cannot connect, first readings in this process do not ask the
#: same server again for this long: every part, page and owner answer would otherwise wait out its own
#: time-out (180 s on a CPU) before its stand-in. The worker's retries (source_part_reread) always ask.
MODEL_PAUSE_SECONDS = 60.0
_model_paused_until: dict[str, float] = {}


def _model_address(extractor: Extractor) -> str | None:
    """The server a model extractor calls (None for extractors that call none)."""
    if not hasattr(extractor, "config"):
        return None
    config = getattr(extractor, "config", None) or llm_config_from_settings()
    return config.base_url


def _model_paused(extractor: Extractor) -> bool:
    address = _model_address(extractor)
    return address is not None and _model_paused_until.get(address, 0.0) > time.monotonic()


def _model_pause(extractor: Extractor) -> None:
    address = _model_address(extractor)
    if address is not None:
        _model_paused_until[address] = time.monotonic() + MODEL_PAUSE_SECONDS


def model_failure(exc: Exception) -> tuple[str, bool] | None:
    """(what went wrong, whether the model could not be reached at all) for a failure worth retrying;
    None for anything else (bad input is not retried)."""
    if isinstance(exc, LLMResponseError | ModelOutputError):
        return str(exc), False
    if isinstance(exc, LLMError):
        return f"{exc.kind}: {exc}", True
    return None


def _part_read(
    stored: SourcePart,
    context: ExtractionContext,
    extractor: Extractor,
    run: _Run,
    *,
    model_down: bool,
    topics: list[str],
) -> bool:
    """Extract one part and apply its records. When the extractor (a language model) fails, the
    built-in extractor's records stand in and the part is marked for the worker to retry. Returns
    whether the model could not be reached, so the rest of this reading does not wait on it again."""
    if model_down:
        failure: tuple[str, bool] | None = (
            "not asked: the language model was unreachable or timed out a moment ago",
            True,
        )
    else:
        try:
            candidates = extractor.extract(stored.text, context)
        except Exception as exc:
            failure = model_failure(exc)
            if failure is None and not isinstance(exc, ExtractionError):
                raise
            if failure is None:  # bad input: no extractor can read it
                run.result.skipped_parts.append({"text": stored.text[:200], "reason": str(exc)})
                _part_mark(stored, PartReading.SKIPPED, read_by=extractor.name, error=str(exc))
                return False
        else:
            failure = None
    if failure is not None:
        error, unreachable = failure
        if unreachable and not model_down:
            _model_pause(extractor)
        logger.warning("language model failed on a part of %s (%s): built-in stand-in", run.source.ref, error)
        attempts = stored.read_attempts + 1
        _apply_all(_stand_in_candidates(stored.text, context), run, topics=topics, stand_in=True)
        _part_mark(
            stored,
            PartReading.RETRY,
            read_by=STAND_IN_EXTRACTOR,
            error=error,
            attempts=attempts,
            retry_at=timezone.now() + retry_delay(attempts),
        )
        run.result.rereading.append(stored)
        return unreachable
    _apply_all(candidates, run, topics=topics)
    _part_mark(stored, PartReading.READ if candidates else PartReading.NO_RECORDS, read_by=extractor.name)
    if not candidates:
        run.result.unread.append(stored)
    return False


def _stand_in_candidates(text: str, context: ExtractionContext) -> list[Candidate]:
    try:
        return BuiltinExtractor().extract(text, context)
    except ExtractionError:
        return []


def _apply_all(candidates: list[Candidate], run: _Run, *, topics: list[str], stand_in: bool = False) -> None:
    """Apply a part's records; ``topics`` (the names later parts may reuse) learns the new ones."""
    run.stand_in = stand_in
    try:
        for cand in candidates:
            _apply_candidate(cand, run)
            if cand.topic not in topics:
                topics.append(cand.topic)
    finally:
        run.stand_in = False


def _reread_schedule(at: datetime) -> None:
    """Ask the worker to re-read due parts at ``at`` (once the surrounding transaction commits)."""
    schema = current_schema()
    transaction.on_commit(lambda: reread_schedule_set(schema_name=schema, at=at))


#: Why a stand-in is retired when the model's records for its part arrive.
SUPERSEDED_BY_MODEL = (
    "Read by the built-in reader while the language model was unavailable; the model has now read "
    "the same text and its records replace this one."
)


def _reread_context(part: SourcePart, extractor: Extractor, exclude: set[int]) -> ExtractionContext:
    """The part's context as its first reading had it: heading, table cell, neighbours, live facts."""
    source, version = part.source, part.added_in
    kind = SourceKind(source.kind)
    latest = (
        SourceVersion.objects.filter(source=source, outcome=VersionOutcome.PROCESSED)
        .exclude(content="")
        .order_by("-read_at", "-id")
        .first()
    ) or version
    if kind in (SourceKind.OWNER_ANSWER, SourceKind.PROFILE) and latest.question:
        parts = [Part(heading="", text=part.text, hash=part.hash)]
    else:
        parts = split_parts(latest.content)
    skipped = set(
        SourcePart.objects.filter(source=source, reading=PartReading.SKIPPED).values_list("hash", flat=True)
    )
    found = next((p for p in parts if p.hash == part.hash), None)
    if found is None:
        found = Part(heading=part.heading, text=part.text, hash=part.hash)
        parts = [found]
    reading = _Reading(
        business_name=current_business_name(),
        kind=kind,
        question=version.question,
        learned_on=version.read_at.date(),
        existing_topics=list(Topic.objects.values_list("name", flat=True)),
        live=_LiveFacts(exclude=exclude) if getattr(extractor, "uses_live_facts", False) else None,
        neighbours=_neighbours(parts, dict.fromkeys(skipped, "skipped")),
    )
    return reading.context(found)


@transaction.atomic
def source_part_reread(*, part_id: int, extractor: Extractor, now: datetime | None = None) -> str:
    """Ask the extractor again for a part it failed on (the worker's retry, decision 0020).

    On success its records supersede the built-in stand-ins of the part (retired with a reason; nothing
    is deleted); on failure the part waits twice as long (``retry_delay``), and after
    RETRY_MAX_ATTEMPTS the stand-ins stay for good. Returns "read", "failed", "unreachable",
    "gave_up", or "gone" (no longer waiting, or taken by another worker)."""
    now = now or timezone.now()
    part = (
        SourcePart.objects.select_for_update(skip_locked=True, of=("self",))
        .select_related("source", "added_in")
        .filter(pk=part_id, reading=PartReading.RETRY, removed_in__isnull=True)
        .first()
    )
    if part is None:
        return "gone"
    stand_ins = list(
        Fact.objects.filter(
            stand_in=True, status=FactStatus.LIVE, evidence__part=part, evidence__withdrawn_at__isnull=True
        ).distinct()
    )
    context = _reread_context(part, extractor, {f.pk for f in stand_ins})
    try:
        candidates = extractor.extract(part.text, context)
    except Exception as exc:
        failure = model_failure(exc)
        if failure is None and not isinstance(exc, ExtractionError):
            raise
        error = failure[0] if failure else str(exc)
        attempts = part.read_attempts + 1
        if failure is None or attempts >= RETRY_MAX_ATTEMPTS:
            _part_mark(part, PartReading.GAVE_UP, read_by=STAND_IN_EXTRACTOR, error=error, attempts=attempts)
            return "gave_up"
        _part_mark(
            part,
            PartReading.RETRY,
            read_by=STAND_IN_EXTRACTOR,
            error=error,
            attempts=attempts,
            retry_at=now + retry_delay(attempts),
        )
        return "unreachable" if failure[1] else "failed"
    if not candidates and stand_ins:
        # A model that finds nothing where the built-in reader found something does not take the
        # owner's words away: the stand-ins stay, and the part says why.
        _part_mark(
            part,
            PartReading.READ,
            read_by=STAND_IN_EXTRACTOR,
            error="the language model found no record here; the built-in reader's records stand",
        )
        return "read"
    version = part.added_in
    result = IngestResult(version=version)
    run = _Run(
        source=part.source,
        version=version,
        part=part,
        rank=PRECEDENCE[SourceKind(part.source.kind)],
        at=version.read_at,
        question=version.question,
        result=result,
        ignore=frozenset(f.pk for f in stand_ins),
    )
    Evidence.objects.filter(part=part, fact__in=stand_ins, withdrawn_at__isnull=True).update(
        withdrawn_at=now, withdrawn_reason=SUPERSEDED_BY_MODEL[:300]
    )
    # So far only the built-in reader read this part: the disagreements it found go with its records
    # (the model's reading records its own).
    Disagreement.objects.filter(part=part, status=DisagreementStatus.OPEN).update(
        status=DisagreementStatus.DISMISSED,
        resolved_at=now,
        resolved_by="system: read again by the language model",
    )
    _apply_all(candidates, run, topics=list(context.existing_topics))
    _stand_ins_supersede(stand_ins, result, now=now)
    _part_mark(part, PartReading.READ if candidates else PartReading.NO_RECORDS, read_by=extractor.name)
    announce_topics_changed(result.touched_topics)
    return "read"


def _stand_ins_supersede(stand_ins: list[Fact], result: IngestResult, *, now: datetime) -> None:
    """Retire the stand-ins no other source still states, each by the model's record on its subject."""
    made = result.added + result.confirmed
    for fact in stand_ins:
        if Evidence.objects.filter(fact=fact, withdrawn_at__isnull=True).exists():
            continue  # another source states it too: it stays, on that evidence
        by = next((f for f in made if f.topic_id == fact.topic_id and f.aspect == fact.aspect), None) or next(
            (f for f in made if f.topic_id == fact.topic_id), None
        )
        _retire(fact, SUPERSEDED_BY_MODEL, run_at=now, by=by, version=result.version)
        if by is not None:
            by.replaces.add(fact)
        result.retired.append(fact)
        result.touched_topics.add(fact.topic_id)


def _own_hosts(source: Source) -> set[str]:
    """The business's own sites: its saved website's host and, for a crawled page, the page's host."""
    website = WebsiteSettings.objects.filter(pk=1).values_list("start_url", flat=True).first() or ""
    refs = [website, source.ref if source.kind == SourceKind.WEBSITE else ""]
    return {host for host in (host_of(ref) for ref in refs if ref) if host}


def owner_answer_record(
    *,
    question: str,
    answer: str,
    read_at: datetime | None = None,
    ref: str | None = None,
    visibility: Visibility | str = Visibility.PUBLIC,
    actor: str = "",
    extractor: Extractor | None = None,
) -> IngestResult:
    """An owner's direct answer: the highest precedence. Each answer is its own source."""
    if not answer or not answer.strip():
        raise KnowledgeInputError("The answer is empty.")
    return source_ingest(
        kind=SourceKind.OWNER_ANSWER,
        ref=ref or f"answer-{uuid.uuid4().hex[:12]}",
        content=answer,
        title=(question or answer)[:300],
        question=(question or "").strip(),
        read_at=read_at,
        visibility=visibility,
        actor=actor,
        extractor=extractor,
    )


@transaction.atomic
def owner_fact_add(
    *,
    topic: str,
    statement: str,
    aspect: str = "",
    value: str = "",
    valid_from: date | None = None,
    valid_to: date | None = None,
    replaces: list[Fact] | None = None,
    visibility: Visibility | str = Visibility.PUBLIC,
    actor: str = "",
    read_at: datetime | None = None,
) -> IngestResult:
    """An owner writes a fact directly (the portal's "add" and "edit by replacing"): no extraction."""
    statement = normalise(statement)
    if not statement:
        raise KnowledgeInputError("The statement is empty.")
    if valid_from and valid_to and valid_from > valid_to:
        raise KnowledgeInputError("The fact ends before it starts.")
    read_at = read_at or timezone.now()
    source = Source.objects.create(
        kind=SourceKind.OWNER_ANSWER,
        ref=f"portal-{uuid.uuid4().hex[:12]}",
        title=f"Added by {actor or 'the owner'}: {statement[:200]}",
        visibility=visibility,
    )
    version = SourceVersion.objects.create(
        source=source,
        content_hash=content_hash(statement),
        content=statement,
        read_at=read_at,
        outcome=VersionOutcome.PROCESSED,
        extractor="owner",
    )
    part = SourcePart.objects.create(
        source=source, hash=content_hash(statement), text=statement, added_in=version
    )
    result = IngestResult(version=version)
    run = _Run(
        source=source,
        version=version,
        part=part,
        rank=PRECEDENCE[SourceKind.OWNER_ANSWER],
        at=read_at,
        question="",
        result=result,
        actor=actor,
        trust_replaces=True,  # the owner chose what this replaces
    )
    replaced = replaces or []
    cand = Candidate(
        topic=topic,
        aspect=aspect or (replaced[0].aspect if replaced else statement),
        statement=statement,
        value=value or None,
        valid_from=valid_from,
        valid_to=valid_to,
    )
    if replaced:
        cand = cand.model_copy(update={"replaces": [str(f.pk) for f in replaced]})
    _apply_candidate(cand, run)
    source.last_hash = version.content_hash
    source.last_read_at = read_at
    source.save(update_fields=["last_hash", "last_read_at"])
    version.facts_added = len(result.added)
    version.facts_retired = len(result.retired)
    version.save(update_fields=["facts_added", "facts_retired"])
    announce_topics_changed(result.touched_topics)
    return result


@transaction.atomic
def source_retire(
    *, source: Source, reason: str = "", actor: str = "", at: datetime | None = None
) -> IngestResult:
    """Retire a source: only the facts that came only from it are retired."""
    at = at or timezone.now()
    source = Source.objects.select_for_update().get(pk=source.pk)
    version = SourceVersion.objects.create(
        source=source, content_hash=source.last_hash, read_at=at, outcome=VersionOutcome.RETIRED
    )
    result = IngestResult(version=version)
    run = _Run(
        source=source,
        version=version,
        part=None,
        rank=PRECEDENCE[SourceKind(source.kind)],
        at=at,
        question="",
        result=result,
        actor=actor,
    )
    parts = list(SourcePart.objects.filter(source=source, removed_in__isnull=True))
    SourcePart.objects.filter(pk__in=[p.pk for p in parts]).update(removed_in=version)
    why = reason or f"{_describe(source).capitalize()} was retired."
    _withdraw_parts(parts, run, why)
    # Evidence without a part (none today) is withdrawn with the source too.
    Evidence.objects.filter(source=source, withdrawn_at__isnull=True).update(
        withdrawn_at=at, withdrawn_reason=why
    )
    Disagreement.objects.filter(source=source, status=DisagreementStatus.OPEN).update(
        status=DisagreementStatus.DISMISSED, resolved_at=at, resolved_by="system: source retired"
    )
    source.is_active = False
    source.retired_at = at
    source.retired_reason = why[:300]
    source.last_hash = ""
    source.save()
    version.facts_retired = len(result.retired)
    version.save(update_fields=["facts_retired"])
    announce_topics_changed(result.touched_topics)
    return result


@transaction.atomic
def fact_retire(*, fact: Fact, reason: str, actor: str = "") -> Fact:
    fact = Fact.objects.select_for_update().get(pk=fact.pk)
    if fact.status != FactStatus.LIVE:
        raise KnowledgeInputError("This fact is already retired.")
    if not reason.strip():
        raise KnowledgeInputError("Say why the fact is retired.")
    _retire(fact, reason.strip(), run_at=timezone.now(), actor=actor)
    announce_topics_changed({fact.topic_id})
    return fact


@transaction.atomic
def fact_restore(*, fact: Fact, reason: str = "", actor: str = "") -> Fact:
    """Undo a wrong retirement: the fact is live again and the fact that replaced it is retired."""
    now = timezone.now()
    fact = Fact.objects.select_for_update().get(pk=fact.pk)
    if fact.status == FactStatus.LIVE:
        raise KnowledgeInputError("This fact is live already.")
    replacement = fact.retired_by
    fact.status = FactStatus.LIVE
    fact.retired_at = None
    fact.retired_reason = ""
    fact.retired_by = None
    fact.save(update_fields=["status", "retired_at", "retired_reason", "retired_by"])
    why = reason.strip() or "Restored by the owner."
    _event(fact, EventKind.RESTORED, why, at=now, related=replacement, actor=actor)
    if replacement is not None and replacement.status == FactStatus.LIVE:
        _retire(
            replacement,
            f"The owner restored the fact it had replaced: {why}",
            run_at=now,
            by=fact,
            actor=actor,
        )
    announce_topics_changed({fact.topic_id} | ({replacement.topic_id} if replacement else set()))
    return fact


@transaction.atomic
def fact_subject_split(*, fact: Fact, reason: str, actor: str = "") -> Fact:
    """Undo a merge by meaning: the fact was filed under a live subject that names its own
    (``matched_subject``); the owner says they are two things. Its statement becomes a live fact under
    its own topic and aspect, the merged fact is retired, and the facts the merge had retired are live
    again. Returns the new fact. Nothing is deleted: both facts keep their history, which says why."""
    now = timezone.now()
    fact = Fact.objects.select_for_update().select_related("topic").get(pk=fact.pk)
    match = fact.matched_subject or {}
    if not match.get("own_topic"):
        raise KnowledgeInputError("This fact was not matched to another subject: there is nothing to split.")
    if fact.status != FactStatus.LIVE:
        raise KnowledgeInputError("This fact is already retired.")
    why = reason.strip()
    if not why:
        raise KnowledgeInputError("Say why these are two different things.")
    own = _subject_label(str(match["own_topic"]), str(match.get("own_aspect") or ""))
    merged = _subject_label(fact.topic.name, fact.aspect)
    topic = topic_get_or_create(str(match["own_topic"]))
    split = Fact.objects.create(
        topic=topic,
        aspect=aspect_key(str(match.get("own_aspect") or "")) or fact.aspect,
        statement=fact.statement,
        value=fact.value,
        learned_at=fact.learned_at,
        valid_from=fact.valid_from,
        valid_to=fact.valid_to,
        source_kind=fact.source_kind,
        origin=fact.origin,
        question=fact.question,
        visibility=fact.visibility,
    )
    for evidence in Evidence.objects.filter(fact=fact, withdrawn_at__isnull=True):
        Evidence.objects.create(
            fact=split,
            source=evidence.source,
            version=evidence.version,
            part=evidence.part,
            kind=evidence.kind,
            added_at=now,
        )
    _event(
        split,
        EventKind.CREATED,
        f'Split by the owner from "{merged}": "{own}" is its own subject. {why}',
        at=now,
        related=fact,
        actor=actor,
    )
    split.replaces.add(fact)
    _retire(
        fact,
        f'Split by the owner: "{own}" is not the same subject as "{merged}". {why}',
        run_at=now,
        by=split,
        actor=actor,
    )
    for old in Fact.objects.filter(retired_by=fact, status=FactStatus.RETIRED):
        old.status = FactStatus.LIVE
        old.retired_at = None
        old.retired_reason = ""
        old.retired_by = None
        old.save(update_fields=["status", "retired_at", "retired_reason", "retired_by"])
        _event(
            old,
            EventKind.RESTORED,
            f'The owner split "{own}" from "{merged}": what replaced this fact was about another subject. {why}',
            at=now,
            related=split,
            actor=actor,
        )
    announce_topics_changed({fact.topic_id, topic.pk})
    return split


def _fact_from_disagreement(
    disagreement: Disagreement,
    cand: Candidate,
    *,
    topic: Topic,
    aspect: str,
    learned_at: datetime,
    visibility: str,
    now: datetime,
) -> Fact:
    """The disagreeing statement as a live fact, with the disagreeing source as its evidence."""
    fact = Fact.objects.create(
        topic=topic,
        aspect=aspect,
        statement=disagreement.statement,
        value=(cand.value or "")[:200],
        learned_at=learned_at,
        valid_from=cand.valid_from,
        valid_to=cand.valid_to,
        source_kind=disagreement.source.kind,
        origin=disagreement.version,
        visibility=visibility,
    )
    Evidence.objects.create(
        fact=fact,
        source=disagreement.source,
        version=disagreement.version,
        part=disagreement.part,
        kind=disagreement.source.kind,
        added_at=now,
    )
    return fact


@transaction.atomic
def disagreement_split(*, disagreement: Disagreement, actor: str = "") -> Fact:
    """A lower-ranked source's statement was matched by meaning to the owner's subject and recorded
    as a disagreement; the owner says it is another thing. It becomes a live fact under its own
    topic and aspect (the owner's fact is untouched) and the disagreement is resolved with it."""
    now = timezone.now()
    disagreement = Disagreement.objects.select_for_update().select_related("source").get(pk=disagreement.pk)
    match = disagreement.candidate.get("matched_subject") or {}
    if disagreement.status != DisagreementStatus.OPEN:
        raise KnowledgeInputError("This disagreement is already resolved.")
    if not match.get("own_topic"):
        raise KnowledgeInputError(
            "This disagreement is about the same subject by name: accept or dismiss it."
        )
    cand = Candidate.model_validate(disagreement.candidate)
    topic = topic_get_or_create(str(match["own_topic"]))
    aspect = aspect_key(str(match.get("own_aspect") or "")) or aspect_key(cand.statement)
    if Fact.objects.filter(topic=topic, aspect=aspect, status=FactStatus.LIVE).exists():
        raise KnowledgeInputError(f'"{topic.name}" has live facts of its own now: resolve this one there.')
    fact = _fact_from_disagreement(
        disagreement,
        cand,
        topic=topic,
        aspect=aspect,
        learned_at=disagreement.created_at,
        visibility=disagreement.source.visibility,
        now=now,
    )
    own = _subject_label(topic.name, aspect)
    _event(
        fact,
        EventKind.CREATED,
        f'The owner split "{own}" from "{_subject_label(str(match["topic"]), str(match["aspect"]))}": '
        f"not the same subject, so {_describe(disagreement.source)} is not contradicting them.",
        at=now,
        version=disagreement.version,
        related=disagreement.fact,
        actor=actor,
    )
    disagreement.status = DisagreementStatus.ACCEPTED
    disagreement.resolved_at = now
    disagreement.resolved_by = actor
    disagreement.resulting_fact = fact
    disagreement.save()
    announce_topics_changed({topic.pk})
    return fact


@transaction.atomic
def disagreement_resolve(*, disagreement: Disagreement, accept: bool, actor: str = "") -> Disagreement:
    """Accept (the source's value replaces the owner's fact) or dismiss (the owner's value stands)."""
    now = timezone.now()
    disagreement = Disagreement.objects.select_for_update().get(pk=disagreement.pk)
    if disagreement.status != DisagreementStatus.OPEN:
        raise KnowledgeInputError("This disagreement is already resolved.")
    disagreement.resolved_at = now
    disagreement.resolved_by = actor
    if not accept:
        disagreement.status = DisagreementStatus.DISMISSED
        disagreement.save()
        return disagreement
    cand = Candidate.model_validate(disagreement.candidate)
    owner_fact = disagreement.fact
    fact = _fact_from_disagreement(
        disagreement,
        cand,
        topic=owner_fact.topic,
        aspect=owner_fact.aspect,
        learned_at=now,
        visibility=owner_fact.visibility,
        now=now,
    )
    _event(
        fact,
        EventKind.CREATED,
        f"The owner accepted the value from {_describe(disagreement.source)}.",
        at=now,
        version=disagreement.version,
        related=owner_fact,
        actor=actor,
    )
    if owner_fact.status == FactStatus.LIVE:
        fact.replaces.add(owner_fact)
        _retire(
            owner_fact,
            f'The owner accepted "{disagreement.statement}" instead.',
            run_at=now,
            by=fact,
            actor=actor,
        )
    disagreement.status = DisagreementStatus.ACCEPTED
    disagreement.resulting_fact = fact
    disagreement.save()
    announce_topics_changed({fact.topic_id})
    return disagreement


__all__ = [
    "OWNER_RANK",
    "IngestResult",
    "KnowledgeInputError",
    "disagreement_resolve",
    "disagreement_split",
    "fact_restore",
    "fact_retire",
    "fact_subject_split",
    "owner_answer_record",
    "owner_fact_add",
    "retry_delay",
    "source_ingest",
    "source_part_reread",
    "source_retire",
    "source_version_read",
    "topic_get_or_create",
]
