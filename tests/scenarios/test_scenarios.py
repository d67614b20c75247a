"""Scenarios end to end: events through the real ingestion, questions through retrieval and the
built-in answerer; every column (knowledge, context, answer) must pass every question."""

from __future__ import annotations

from pathlib import Path

import pytest

from apps.facts.scenario import scenario_load
from apps.portal.scenario_runner import scenario_run

HERE = Path(__file__).parent
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "eval" / "scenarios" / "sunny_bakery.json"
FILES = sorted(HERE.glob("*.json")) + ([SHARED] if SHARED.exists() else [])


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_scenario_passes_every_column(path):
    report = scenario_run(scenario_load(path))
    failures = [
        f"{q.ask} [{name}] missing={c.missing} forbidden={c.forbidden}: {c.text[:300]!r}"
        for q in report.questions
        for name, c in q.columns.items()
        if not c.passed
    ]
    assert failures == []
    assert report.disagreements >= report.expect_disagreements


@pytest.mark.django_db(transaction=True)
def test_sunny_bakery_is_identical_over_three_runs():
    if not SHARED.exists():
        pytest.skip("shared/eval/scenarios/sunny_bakery.json is not beside this checkout")
    scenario = scenario_load(SHARED)
    runs = [scenario_run(scenario).as_json() for _ in range(3)]
    assert runs[0]["summary"]["knowledge"]["passed"] == 9
    assert runs[0]["questions"] == runs[1]["questions"] == runs[2]["questions"]
