"""Run a scenario in a throwaway business with every column the product has (the top layer)."""

from __future__ import annotations

import secrets
from datetime import date

from django_tenants.utils import tenant_context

from apps.chat.models import Channel
from apps.chat.services import answer_once, conversation_open
from apps.facts.scenario import (
    Column,
    Scenario,
    ScenarioQuestion,
    ScenarioReport,
    knowledge_column,
    scenario_ask,
    scenario_play_events,
)
from apps.retrieval.search import retrieve
from apps.tenants.db import use_public_schema
from apps.tenants.models import Reseller
from apps.tenants.services import business_create, business_delete

SYSTEM_RESELLER = "xorventa-system"


def context_column(question: ScenarioQuestion, on: date) -> str:
    """What the answerer actually receives for the question, after retrieval."""
    return retrieve(question.ask, on=on).context_text()


def answer_column(question: ScenarioQuestion, on: date) -> str:
    """The answer a visitor gets, through the same service as the widget (a fresh conversation)."""
    conversation = conversation_open(visitor_id=f"scenario-{secrets.token_hex(6)}", channel=Channel.API)
    _turn, message = answer_once(conversation_id=conversation.pk, text=question.ask, on=on)
    return message.text


def scenario_columns() -> dict[str, Column]:
    return {"knowledge": knowledge_column, "context": context_column, "answer": answer_column}


def scenario_run(scenario: Scenario, *, keep: bool = False) -> ScenarioReport:
    reseller = Reseller.objects.filter(slug=SYSTEM_RESELLER).first()
    if reseller is None:
        reseller = Reseller.objects.create(name="Xorventa tools", slug=SYSTEM_RESELLER, show_powered_by=False)
    name = scenario.name[:100] or "Scenario"
    business = business_create(reseller=reseller, name=name, slug=f"scenario-{secrets.token_hex(4)}")
    try:
        with tenant_context(business):
            scenario_play_events(scenario)
            return scenario_ask(scenario, scenario_columns())
    finally:
        use_public_schema()
        if not keep:
            business_delete(business=business)
