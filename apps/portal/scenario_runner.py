"""Run a scenario in a throwaway business with every column the product has (the top layer)."""

from __future__ import annotations

import secrets

from django.db import connection
from django_tenants.utils import tenant_context

from apps.facts.scenario import (
    Column,
    Scenario,
    ScenarioReport,
    knowledge_column,
    scenario_ask,
    scenario_play_events,
)
from apps.tenants.models import Reseller
from apps.tenants.services import business_create, business_delete

SYSTEM_RESELLER = "xorventa-system"


def scenario_columns() -> dict[str, Column]:
    return {"knowledge": knowledge_column}


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
        connection.set_schema_to_public()
        if not keep:
            business_delete(business=business)
