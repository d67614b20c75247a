"""The answer path: one service runs a turn for the websocket, the HTTP API and owner drafts.

``turn_run`` is the turn; the consumer, the API and drafts only translate bytes to and from it:
1. a cheap gate: small talk gets a friendly reply without retrieval or a model call;
2. retrieval with the conversation's recent turns (or the retrieval a typing pause already did,
   ``turn_speculate``, when the question is the same);
3. confidence decides: answer, or say plainly that the business has not provided that and that the
   question was passed to them (a gap ticket, recorded once, in ``turn_finish``); never a guess;
4. the answerer, chosen once per turn in ``turn_begin``, reads the knowledge rendered for the day asked
   about (between nonce delimiters, as data);
5. the output is sanitised before it reaches a page;
6. everything is stored: messages, the retrieval log, the answerer, timings; then the reply is
   embedded for the next turn's blended pass (``remember_turn``), after the visitor has it.

All functions here are synchronous ORM code for the current business's schema. Async callers (the
consumer, the event stream) iterate ``turn_run`` through ``apps.tenants.context.iterate_in_schema``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from apps.chat import handoff, live
from apps.chat.answering.base import Answerer, RetrievalHints, unknown_reply
from apps.chat.answering.builtin import BuiltinAnswerer
from apps.chat.answering.factory import get_answerer
from apps.chat.answering.gate import gate
from apps.chat.answering.person import asks_for_person
from apps.chat.answering.sanitize import sanitize, sanitize_stream
from apps.chat.limits import model_budget_take
from apps.chat.models import Channel, Conversation, Decision, Message, Role
from apps.chat.widget import business_identity, widget_settings
from apps.facts.selectors import AUDIENCE_VISITOR, RenderedTopic
from apps.gaps.services import gap_record
from apps.language.analysis import analyse
from apps.retrieval.fact_similarity import fact_similarity
from apps.retrieval.search import RetrievalOptions, RetrievalResult, remember_turn, retrieve
from apps.tenants.db import current_schema

HISTORY_TURNS = 4
CONVERSATION_IDLE_HOURS = 24


@transaction.atomic
def conversation_open(
    *, visitor_id: str, channel: str = Channel.WIDGET, origin: str = "", conversation_id: int | None = None
) -> Conversation:
    """The visitor's current conversation (kept across page loads), or a new one."""
    visitor_id = (visitor_id or "anonymous")[:64]
    qs = Conversation.objects.filter(visitor_id=visitor_id, channel=channel)
    if conversation_id:
        found = qs.filter(pk=conversation_id).first()
        if found:
            return found
    cutoff = timezone.now() - timedelta(hours=CONVERSATION_IDLE_HOURS)
    recent = qs.filter(last_at__gte=cutoff).order_by("-last_at").first()
    return recent or Conversation.objects.create(visitor_id=visitor_id, channel=channel, origin=origin[:300])


def conversation_transcript(conversation: Conversation, limit: int = 50) -> list[dict[str, Any]]:
    messages = list(conversation.messages.order_by("-created_at", "-id")[:limit])
    return [
        {"id": m.pk, "role": m.role, "text": m.text, "sources": m.sources, "decision": m.decision}
        for m in reversed(messages)
    ]


@dataclass
class Turn:
    """Everything decided before the first token: what to say, or what the answerer reads."""

    conversation_id: int
    question: str
    on: date
    decision: str
    fixed_reply: str | None
    context: list[RenderedTopic]
    history: list[tuple[str, str]]
    retrieval: RetrievalResult | None
    business_name: str
    allowed_hosts: set[str]
    answerer: Answerer | None = None  # chosen once, in turn_begin; None for a fixed reply
    answerer_name: str = ""
    speculative_hit: bool = False
    visitor_message_id: int | None = None
    wants_gap: bool = False  # retrieval's confidence says the owner should hear of this question
    records_gaps: bool = True  # an owner's draft asks nobody but the owner
    gap_ticket_id: int | None = None
    ask_contact: bool = False  # the visitor is asked for an email or phone (set once the turn ends)
    used_fact_ids: list[int] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def sources(self) -> list[str]:
        """Where the answer's facts came from, newest first: metadata from retrieval, never written by
        the model. Only the facts the answerer used, when it says which."""
        used = set(self.used_fact_ids)
        refs = [
            ref
            for topic in self.context
            for fact in topic.facts
            if not used or fact.id in used
            for ref in fact.sources
        ]
        labels: list[str] = []
        for ref in sorted(refs, key=lambda r: r.learned_on, reverse=True):
            if ref.label not in labels:
                labels.append(ref.label)
        return labels[:3]


def conversation_history(conversation: Conversation) -> list[tuple[str, str]]:
    """The last turns as the answerers read them: role "user" for the visitor, "assistant" for
    replies (the assistant's and an owner's follow-up), oldest first. Passing the stored role
    ("visitor") made both answerers skip every earlier question, so "and on saturdays?" after an
    hours question had nothing to follow."""
    recent = list(conversation.messages.order_by("-created_at", "-id")[: HISTORY_TURNS * 2])
    return [("user" if m.role == Role.VISITOR else "assistant", m.text) for m in reversed(recent)]


def question_day(text: str, *, today: date) -> date:
    """The day whose knowledge answers ``text``: the day or first day of the period it names ("next
    Monday", "on December 29", "this Saturday", "tomorrow", "in July"), resolved against ``today``
    (the business's date), within a year ahead; otherwise today. The built-in answerer reads the
    same analysis (one cached parse)."""
    return analyse(text, base_date=today).day_about() or today


def _counted_from_earlier(analysis) -> tuple[int, int] | None:
    """The span of the word a day is counted from when it points back ("the Monday after *that*",
    "the day before *then*", "the Friday before *that one*"), read from the parse: the object of
    "after" or "before" is a pronoun or "then", not a date of its own."""
    tokens = analysis.tokens
    for prep in tokens:
        if prep.lemma not in ("after", "before"):
            continue
        for obj in tokens:
            if obj.head != prep.i or obj.dep not in ("pobj", "pcomp"):
                continue
            words = [t for t in tokens if t.head == obj.i and t.dep == "det"] + [obj]
            said = " ".join(t.text.lower() for t in words)
            if said in ("that", "then", "it", "that one"):
                start = words[0].start_char
                return start, obj.start_char + len(obj.text)
    return None


def dated_from_earlier(text: str, history: list[tuple[str, str]], *, today: date) -> str:
    """``text`` with the date it counts from written in, when it counts from the day the visitor's
    previous question named ("are you open on Boxing Day?" then "and the Monday after that?"): the
    language layer reads "the Monday after 26 December 2026" as one day. Hand-written: no library
    resolves what "that" points back to across messages; only the last question is looked at."""
    earlier = next((t for role, t in reversed(history) if role == "user"), None)
    if earlier is None or not re.search(r"(?i)\b(?:after|before)\b", text):
        return text
    found = _counted_from_earlier(analyse(text, base_date=today))
    if found is None:
        return text
    analysis = analyse(earlier, base_date=today)
    day = analysis.day_about() if analysis.dated is not None and not analysis.dated.bare_weekday else None
    if day is None:
        return text
    return f"{text[: found[0]]}{day.day} {day:%B %Y}{text[found[1] :]}"


def question_names_day(text: str, *, today: date) -> bool:
    """Whether ``text`` names the day it is about by its date or as a day relative to today ("on 20
    May", "next Monday", "tomorrow"): retrieval then keeps a place for what is in force that day only
    for a while. A weekday alone ("on a tuesday") is any such weekday, not one day."""
    analysis = analyse(text, base_date=today)
    return analysis.day_about() is not None and analysis.dated is not None and not analysis.dated.bare_weekday


def turn_speculate(*, conversation_id: int, text: str) -> RetrievalResult:
    """Retrieve ahead while the visitor pauses typing: the same date and history the turn will use,
    so turn_begin reuses the result when the question sent is the draft."""
    conversation = Conversation.objects.get(pk=conversation_id)
    today = timezone.localdate()
    history = conversation_history(conversation)
    text = dated_from_earlier(text, history, today=today)
    on = question_day(text, today=today)
    return retrieve(
        text,
        on=on,
        history=[t for _, t in history],
        dated=question_names_day(text, today=today),
    )


def _answerer_choose(chosen: Answerer | None, result: RetrievalResult, turn: Turn) -> Answerer:
    """The one answerer of this turn. A language-model call is taken from the business's daily budget;
    once it is spent, the built-in answerer (no model) answers instead."""
    answerer = chosen or get_answerer()
    wants_model = answerer.name != "builtin" and result.context and not result.decisions.get("ask_owner")
    if wants_model and not model_budget_take(
        schema_name=current_schema(), daily_budget=widget_settings().daily_model_budget
    ):
        turn.flags.append("model budget spent: built-in answerer")
        return BuiltinAnswerer()
    return answerer


@transaction.atomic
def turn_begin(
    *,
    conversation_id: int,
    text: str,
    on: date | None = None,
    precomputed: RetrievalResult | None = None,
    query_vector: Any | None = None,
    answerer: Answerer | None = None,
    options: RetrievalOptions | None = None,
) -> Turn:
    """Store the visitor's message and decide how to answer it (gate, retrieval, confidence, answerer)."""
    started = time.perf_counter()
    conversation = Conversation.objects.select_for_update().get(pk=conversation_id)
    on = on or timezone.localdate()
    # The knowledge for the day the question is about ("Are you open next Monday?"), not today's.
    history = conversation_history(conversation)
    visitor_message = Message.objects.create(conversation=conversation, role=Role.VISITOR, text=text)
    said = text
    text = dated_from_earlier(text, history, today=on)  # what is searched and answered
    asked_on = question_day(text, today=on)
    conversation.last_at = timezone.now()
    conversation.save(update_fields=["last_at"])
    identity = business_identity()
    base = {
        "conversation_id": conversation.pk,
        "question": text,
        "on": on,
        "history": history,
        "business_name": identity["name"],
        "allowed_hosts": set(identity["allowed_hosts"]),
        "started": started,
        "visitor_message_id": visitor_message.pk,
        "records_gaps": conversation.channel != Channel.DRAFT,
    }

    live.message_added(conversation, visitor_message)
    if conversation.handoff == handoff.LIVE:
        # A person is answering this conversation: the assistant stays silent (no reply is stored).
        return Turn(decision=Decision.HELD, fixed_reply=None, context=[], retrieval=None, **base)
    small_talk = gate(said)
    if small_talk is not None:
        return Turn(decision=Decision.GATE, fixed_reply=small_talk, context=[], retrieval=None, **base)
    if asks_for_person(said):
        requested = handoff.handoff_request(conversation_id=conversation.pk)
        turn = Turn(
            decision=Decision.HANDOFF, fixed_reply=requested.reply, context=[], retrieval=None, **base
        )
        turn.ask_contact = requested.question_left
        return turn

    speculative_hit = precomputed is not None and precomputed.message == text and precomputed.on == asked_on
    result = (
        precomputed
        if speculative_hit
        else retrieve(
            text,
            on=asked_on,
            history=[t for _, t in history],
            audience=AUDIENCE_VISITOR,
            options=options,
            query_vector=query_vector,
            dated=question_names_day(text, today=on),
        )
    )
    assert result is not None
    turn = Turn(
        decision=Decision.ANSWER,
        fixed_reply=None,
        context=result.context,
        retrieval=result,
        speculative_hit=speculative_hit,
        **base,
    )
    turn.timings["retrieval_ms"] = round((time.perf_counter() - started) * 1000, 2)
    decisions = result.decisions
    turn.wants_gap = bool(decisions.get("record_gap") or decisions.get("ask_owner") or not result.context)
    # Below the "ask the owner" threshold a model is not called. The built-in answerer costs nothing
    # and checks each fact against the question itself (a second, lexical signal), so it still gets
    # to answer when a fact plainly does ("Do you accept Visa?"); when none does it says so.
    turn.answerer = _answerer_choose(answerer, result, turn)
    if not result.context or (decisions.get("ask_owner") and turn.answerer.name != "builtin"):
        turn.decision = Decision.UNKNOWN
        turn.fixed_reply = unknown_reply(identity["name"])
        turn.context = []
    return turn


def _hints(result: RetrievalResult | None) -> RetrievalHints | None:
    """What retrieval found that the answerer should use too: the repaired question it searched with
    and each kept topic's best similarity to the question (own or repaired form, not the blended
    follow-up pass, which measures the conversation rather than the question), and each handed fact's
    similarity to the question, for the answerer's closest-fact reply."""
    if result is None:
        return None
    similarity: dict[int, float] = {}
    for hit in result.hits:
        own = max((hit.scores.get(leg, 0.0) for leg in ("message", "repaired")), default=0.0)
        similarity[hit.topic_id] = max(similarity.get(hit.topic_id, 0.0), own)
    repaired = str(result.log.get("repaired") or "")
    return RetrievalHints(
        repaired=repaired,
        similarity=similarity,
        fact_similarity=fact_similarity(repaired or result.message, result.context),
    )


def _answerer_input(turn: Turn) -> dict[str, Any]:
    return {
        "question": turn.question,
        "history": turn.history,
        "context": turn.context,
        "business_name": turn.business_name,
        "on": turn.on,
        "hints": _hints(turn.retrieval),
    }


def turn_stream(turn: Turn) -> Iterator[str]:
    """The answer's text, sanitised, in chunks as the turn's answerer produces them. The sanitiser
    keeps the joined text safe at every cut (a link or tag split across chunks is held back until
    complete)."""
    if turn.fixed_reply is not None or turn.answerer is None:
        yield sanitize(turn.fixed_reply or "", allowed_hosts=turn.allowed_hosts)
        return
    answerer = turn.answerer
    turn.answerer_name = answerer.name
    stream = answerer.stream(**_answerer_input(turn))
    sent: list[str] = []
    for chunk in sanitize_stream(stream, allowed_hosts=turn.allowed_hosts):
        if not sent:
            turn.timings["first_token_ms"] = round((time.perf_counter() - turn.started) * 1000, 2)
        sent.append(chunk)
        yield chunk
    final = getattr(stream, "answer", None)
    if final is not None:
        # The answerer may find the facts do not answer the question after all ("Do you take Amex?"
        # given "We accept Visa and cash"): that is a question for the owner too.
        turn.decision = Decision.UNKNOWN if final.decision == "unknown" else Decision.ANSWER
        turn.used_fact_ids = list(final.used_fact_ids)
        turn.flags += list(getattr(final, "flags", ()))
    if not "".join(sent).strip():
        # Nothing readable reached the visitor (an answerer with no text, or text the sanitiser
        # removed whole): never an empty answer. The built-in answerer speaks for this turn, or, if it
        # was the one with nothing to say, the unknown reply, and the owner is asked.
        yield from _empty_reply_replaced(turn, answerer.name)


def _empty_reply_replaced(turn: Turn, answerer_name: str) -> Iterator[str]:
    turn.flags.append("empty-answer")
    text, decision, used = "", Decision.UNKNOWN, []
    if answerer_name != "builtin":
        turn.flags.append("fallback:builtin")
        answer = BuiltinAnswerer().answer(**_answerer_input(turn))
        text = sanitize(answer.text, allowed_hosts=turn.allowed_hosts)
        decision = Decision.UNKNOWN if answer.decision == "unknown" else Decision.ANSWER
        used = list(answer.used_fact_ids)
    if not text.strip():
        text, decision, used = unknown_reply(turn.business_name), Decision.UNKNOWN, []
    turn.decision, turn.used_fact_ids = decision, used
    yield text


@transaction.atomic
def turn_finish(turn: Turn, text: str) -> Message:
    """Store the assistant's message with the retrieval log, decision, answerer and timings."""
    turn.timings["total_ms"] = round((time.perf_counter() - turn.started) * 1000, 2)
    turn.timings.setdefault("first_token_ms", turn.timings["total_ms"])
    # Lock the conversation first, as turn_begin does: inserting a message takes a share lock on the
    # conversation row (its foreign key), and upgrading that to the update of last_at deadlocks with a
    # concurrent turn of the same conversation (measured: 100 sessions on the thread pool).
    conversation = Conversation.objects.select_for_update().get(pk=turn.conversation_id)
    result = turn.retrieval
    if not text.strip() and turn.decision == Decision.ANSWER:
        # turn_stream never ends empty; a caller that stored nothing it sent still gets no empty answer
        turn.decision = Decision.UNKNOWN
        turn.flags.append("empty-answer")
    _turn_gap_record(turn, conversation)
    turn.ask_contact = turn.ask_contact or turn.decision == Decision.UNKNOWN
    message = Message.objects.create(
        conversation=conversation,
        role=Role.ASSISTANT,
        text=text,
        decision=turn.decision,
        answerer=turn.answerer_name or ("gate" if turn.decision == Decision.GATE else "fixed"),
        top_similarity=result.top_similarity if result else None,
        # the turn's flags (a model fallback and why, an empty answer replaced, the budget spent)
        # ride on its log; the owner's dashboard counts the model fallbacks from them
        retrieval_log={**(result.log if result else {}), **({"flags": turn.flags} if turn.flags else {})},
        sources=turn.sources if turn.decision == Decision.ANSWER else [],
        fact_ids=[f.id for t in turn.context for f in t.facts],
        timings=turn.timings,
        tokens={
            "question_chars": len(turn.question),
            "context_chars": sum(len(t.text) for t in turn.context),
        },
        speculative_hit=turn.speculative_hit,
    )
    conversation.last_at = timezone.now()
    conversation.save(update_fields=["last_at"])
    live.message_added(conversation, message)
    return message


def _turn_gap_record(turn: Turn, conversation: Conversation) -> None:
    """The one place a turn becomes a question for the owner: when retrieval's confidence asked for it
    (an answer it was unsure of is recorded too) or the answer turned out unknown; once per turn."""
    result = turn.retrieval
    wanted = turn.wants_gap or turn.decision == Decision.UNKNOWN
    if not wanted or not turn.records_gaps or turn.gap_ticket_id is not None or result is None:
        return
    recorded = gap_record(
        question=turn.question,
        top_similarity=result.top_similarity,
        retrieval_log=result.log,
        conversation_id=conversation.pk,
        message_id=turn.visitor_message_id,
        visitor_id=conversation.visitor_id,
    )
    turn.gap_ticket_id = recorded.ticket.pk if recorded.ticket else None


@dataclass(frozen=True)
class TurnStarted:
    """The turn is decided (first event of turn_run): the visitor's message is stored."""

    turn: Turn


@dataclass(frozen=True)
class TurnEnded:
    """The reply is stored (last event the caller needs; the reply is remembered after it). No
    message when a person is answering the conversation (decision "held")."""

    turn: Turn
    message: Message | None


TurnEvent = TurnStarted | str | TurnEnded


def turn_run(
    *,
    conversation_id: int,
    text: str,
    on: date | None = None,
    precomputed: RetrievalResult | None = None,
    answerer: Answerer | None = None,
    options: RetrievalOptions | None = None,
) -> Iterator[TurnEvent]:
    """One whole turn: TurnStarted, then the reply's text chunks, then TurnEnded. After the end is
    handed over, the reply is embedded for the next turn's blended pass (while the visitor reads it)."""
    turn = turn_begin(
        conversation_id=conversation_id,
        text=text,
        on=on,
        precomputed=precomputed,
        answerer=answerer,
        options=options,
    )
    yield TurnStarted(turn)
    if turn.decision == Decision.HELD:
        yield TurnEnded(turn, None)  # a person answers; their reply comes through apps.chat.handoff
        return
    parts: list[str] = []
    for chunk in turn_stream(turn):
        parts.append(chunk)
        yield chunk
    message = turn_finish(turn, "".join(parts))
    yield TurnEnded(turn, message)
    remember_turn(message.text)


def answer_once(
    *,
    conversation_id: int,
    text: str,
    on: date | None = None,
    answerer: Answerer | None = None,
    options: RetrievalOptions | None = None,
) -> tuple[Turn, Message | None]:
    """A whole turn without streaming (scenario, tests, JSON API, drafts): turn_run, collected. The
    message is None only when a person is answering the conversation (decision "held")."""
    for event in turn_run(
        conversation_id=conversation_id, text=text, on=on, answerer=answerer, options=options
    ):
        if isinstance(event, TurnEnded):
            ended = event
    return ended.turn, ended.message
