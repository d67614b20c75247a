"""The real-model check's outage drill and the scenario replay's re-reading, against a real local
fake of the model server (tests/fake_model.py: real HTTP on loopback, stopped and started again).

The drill stops the server after half a scenario's events: every event must still be stored and read
(the built-in reader standing in), and once the server is back the worker's re-reading must replace the
stand-ins with the model's records. `make test-llm --outage` runs the same drill on llama.cpp."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.management.base import CommandError

from lab.management.commands import llm_check
from lab.management.commands.llm_check import Command
from lab.scenario import scenario_load
from lab.scenario_runner import scenario_run
from tests.fake_model import ModelServer, record, serve_model

EVENTS = [
    ("website", "https://cafe.example/menu", "Flat white: $4.50. Cheese toastie: $7."),
    ("website", "https://cafe.example/hours", "We open at 7 am on weekdays."),
    ("owner_answer", "Do you have oat milk?", "Yes, oat milk is 50 cents extra."),
    ("website", "https://cafe.example/cakes", "Carrot cake slices are $5."),
]
RECORDS = {
    "Flat white": [record("Flat white", "price", "A flat white costs $4.50.", "$4.50")],
    "toastie": [record("Cheese toastie", "price", "A cheese toastie costs $7.", "$7")],
    "open at 7": [record("Opening hours", "weekdays", "The cafe opens at 7 am on weekdays.", "7 am")],
    "oat milk": [record("Oat milk", "price", "Oat milk costs 50 cents extra.", "$0.50")],
    "Carrot cake": [record("Carrot cake", "price", "A slice of carrot cake costs $5.", "$5")],
}


@pytest.fixture
def model(settings: Any) -> Iterator[ModelServer]:
    yield from serve_model(settings)


def _scenario(tmp_path):
    events = [
        {"source": kind, "ref": ref, "content": text}
        if kind != "owner_answer"
        else {"source": kind, "question": ref, "content": text}
        for kind, ref, text in EVENTS
    ]
    questions = [{"ask": "How much is carrot cake?", "require": [r"\$5"], "forbid": []}]
    path = tmp_path / "cafe.json"
    path.write_text(
        json.dumps(
            {
                "name": "Corner Cafe",
                "today": "2026-11-10",
                "events": events,
                "questions": questions,
                "expect": {"disagreements_at_least": 0},
            }
        )
    )
    return path, scenario_load(path)


@pytest.mark.django_db(transaction=True)
def test_the_drill_keeps_every_event_and_the_model_replaces_the_stand_ins(model, settings, tmp_path, capsys):
    model.records = RECORDS
    settings.XORVENTA_ANSWERER = "builtin"
    path, scenario = _scenario(tmp_path)
    row = Command()._outage_drill(model, path, scenario)
    # Stopped after event 2 of 4: the last two were read by the built-in reader, nothing left unread.
    assert row["during"]["events_stored"] == len(EVENTS)
    assert row["during"]["events_unread"] == 0
    assert row["during"]["parts_waiting"] >= 2
    assert row["during"]["stand_ins_live"] >= 2
    # Back up: the re-reading replaced every stand-in with the model's records.
    assert row["after"]["parts_waiting"] == 0
    assert row["after"]["stand_ins_live"] == 0
    assert row["after"]["stand_ins_replaced"] == row["during"]["stand_ins_live"]
    assert row["answer"] == 1
    assert "server stopped after event 2 of 4" in capsys.readouterr().out


@pytest.mark.django_db(transaction=True)
def test_the_drill_fails_loudly_when_an_event_is_left_unread(model, settings, tmp_path, monkeypatch):
    settings.XORVENTA_ANSWERER = "builtin"
    path, scenario = _scenario(tmp_path)
    counts = {
        "events_stored": 4,
        "events_unread": 1,
        "parts_waiting": 0,
        "stand_ins_live": 0,
        "stand_ins_replaced": 0,
        "model_facts_live": 0,
    }
    monkeypatch.setattr(llm_check, "_reading_counts", lambda: counts)
    with pytest.raises(CommandError, match="lost or left unread"):
        Command()._outage_drill(model, path, scenario)


@pytest.mark.django_db(transaction=True)
def test_a_replay_reads_again_what_the_model_failed_on_before_the_questions(model, settings, tmp_path):
    """The product's worker re-reads a failed part when its retry comes due; a replay does it itself
    before asking, so the figures count the model's records where a second try reads the part."""
    model.records = RECORDS
    settings.XORVENTA_ANSWERER = "builtin"
    _path, scenario = _scenario(tmp_path)
    model.stop()  # down for every event: all four read by the built-in reader, then retried

    def back_after_the_last(index: int) -> None:
        if index == len(EVENTS) - 1:
            model.start()

    requests_before = len(model.requests)
    report = scenario_run(scenario, after_event=back_after_the_last)
    assert len(model.requests) > requests_before  # the re-reading asked the model again
    assert report.passed("answer") == 1
    assert report.model_misses == {"parts_stand_in": 0, "answers_fallback": 0}
