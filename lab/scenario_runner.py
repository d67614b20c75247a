"""Run a scenario in a throwaway business with every column the product has (the top layer)."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date

from django.db.models import Max
from django_tenants.utils import tenant_context

from apps.chat.models import Channel, Decision, Message
from apps.chat.services import Turn, answer_once, conversation_open
from apps.facts.models import PartReading, SourcePart
from apps.facts.rereading import RereadSummary, parts_reread_due
from apps.tenants.db import use_public_schema
from apps.tenants.models import Business, Reseller
from apps.tenants.services import business_create, business_delete
from lab.scenario import (
    Column,
    ColumnText,
    Scenario,
    ScenarioQuestion,
    ScenarioReport,
    fact_lines,
    knowledge_column,
    scenario_ask,
    scenario_play_events,
)

SYSTEM_RESELLER = "xorventa-system"


class ConversationColumns:
    """The context and answer columns of one scenario, from one real turn per question: the question is
    asked through the same service as the widget, in a fresh conversation that first asks the
    question's earlier turns (`after`), so a follow-up is graded in its conversation."""

    def __init__(self) -> None:
        self._turns: dict[tuple[int, date], tuple[Turn, Message]] = {}

    def _turn(self, question: ScenarioQuestion, on: date) -> tuple[Turn, Message]:
        key = (id(question), on)
        if key not in self._turns:
            conversation = conversation_open(
                visitor_id=f"scenario-{secrets.token_hex(6)}", channel=Channel.API
            )
            for earlier in question.after:
                answer_once(conversation_id=conversation.pk, text=earlier, on=on)
            turn, message = answer_once(conversation_id=conversation.pk, text=question.ask, on=on)
            if message is None:  # only when a person answers the conversation: never a fresh one
                raise RuntimeError(f"no reply to {question.ask!r}: a person is answering the conversation")
            self._turns[key] = (turn, message)
        return self._turns[key]

    def context(self, question: ScenarioQuestion, on: date) -> str:
        """What retrieval handed the answerer for the turn (fact lines only)."""
        turn, _message = self._turn(question, on)
        return fact_lines(turn.retrieval.context) if turn.retrieval else ""

    def answer(self, question: ScenarioQuestion, on: date) -> ColumnText:
        """The reply a visitor gets; one that passed the question to the owner is a refusal."""
        _turn, message = self._turn(question, on)
        return ColumnText(message.text, refusal=message.decision in REFUSALS)


# The product's own record of a reply that did not answer: passed to the owner, or refused.
REFUSALS = {Decision.UNKNOWN, Decision.REFUSED}


def scenario_columns() -> dict[str, Column]:
    conversation = ConversationColumns()
    return {"knowledge": knowledge_column, "context": conversation.context, "answer": conversation.answer}


def retries_settle() -> RereadSummary | None:
    """The worker's second reading, once, of every part the language model failed on (decision 0020).

    In the product the worker re-reads such a part when its retry comes due (a minute later, then with
    backoff); a replay is over in seconds, so it runs that reading itself, as at the latest due time,
    before the questions are asked: the figures then count the model's records where the model could
    read the part on a second try, and the built-in stand-ins where it could not. Nothing is due
    with the built-in extractor, and then this is one query."""
    waiting = SourcePart.objects.filter(reading=PartReading.RETRY, removed_in__isnull=True)
    due_by = waiting.aggregate(at=Max("retry_at"))["at"]
    if due_by is None:
        return None
    return parts_reread_due(now=due_by, limit=waiting.count())


def model_misses() -> dict[str, int]:
    """What the built-in reader and answerer did in the model's place in the current business."""
    stood_in = SourcePart.objects.filter(
        reading__in=(PartReading.RETRY, PartReading.GAVE_UP), removed_in__isnull=True
    ).count()
    fell_back = Message.objects.filter(retrieval_log__flags__contains=["fallback:builtin"]).count()
    return {"parts_stand_in": stood_in, "answers_fallback": fell_back}


@contextmanager
def scenario_business(name: str, *, keep: bool = False) -> Iterator[Business]:
    """A throwaway business to replay a scenario in, entered; deleted afterwards unless ``keep``."""
    reseller = Reseller.objects.filter(slug=SYSTEM_RESELLER).first()
    if reseller is None:
        reseller = Reseller.objects.create(name="Xorventa tools", slug=SYSTEM_RESELLER, show_powered_by=False)
    business = business_create(
        reseller=reseller, name=name[:100] or "Scenario", slug=f"scenario-{secrets.token_hex(4)}"
    )
    try:
        with tenant_context(business):
            yield business
    finally:
        use_public_schema()
        if not keep:
            business_delete(business=business)


def scenario_run(
    scenario: Scenario, *, keep: bool = False, after_event: Callable[[int], None] | None = None
) -> ScenarioReport:
    with scenario_business(scenario.name, keep=keep):
        started = time.monotonic()
        scenario_play_events(scenario, after_event=after_event)
        retries_settle()
        read = time.monotonic()
        report = scenario_ask(scenario, scenario_columns())
        report.seconds_events, report.seconds_questions = read - started, time.monotonic() - read
        report.model_misses = model_misses()
        return report
