"""Nothing is lost when the language model fails (issue 19, items 2 and 4; decision 0020).

A real local OpenAI-compatible server (http.server on 127.0.0.1, in a thread) plays the model: it
answers each extraction call with the records recorded for the text between the SOURCE markers. The
tests stop it mid-run and start it again on the same port, and run the worker's retry the way the
cluster does: django-q2's scheduler turns the due ONCE schedule into a queued task, and the queued task
runs (tests.helpers.run_queued_tasks) in the business's schema. Real PostgreSQL throughout.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from apps.facts.models import (
    Disagreement,
    DisagreementStatus,
    EventKind,
    Fact,
    FactEvent,
    FactStatus,
    PartReading,
    Source,
    SourcePart,
    SourceVersion,
    VersionOutcome,
)
from apps.facts.schedules import reread_schedule_get
from apps.facts.selectors import knowledge_text
from apps.facts.services import (
    SUPERSEDED_BY_MODEL,
    owner_answer_record,
    owner_fact_add,
    retry_delay,
    source_ingest,
)
from tests.fake_model import ModelServer, record, serve_model
from tests.helpers import run_queued_tasks


@pytest.fixture
def model(settings: Any) -> Iterator[ModelServer]:
    yield from serve_model(settings)


PRICES = {
    "Sourdough": [record("Sourdough", "price", "A sourdough loaf costs $8 at Sunny Bakery.", "$8")],
    "Rye bread": [record("Rye bread", "price", "A rye loaf costs $7 at Sunny Bakery.", "$7")],
    "Croissants": [record("Croissants", "price", "A croissant costs $3 at Sunny Bakery.", "$3")],
    "wedding cakes": [
        record("Wedding cakes", "availability", "Sunny Bakery makes wedding cakes.", "yes"),
        record("Wedding cakes", "price", "Wedding cakes start at $250 at Sunny Bakery.", "from $250"),
    ],
}


def worker_runs_due_retries() -> int:
    """Time passes to the retries' due time; the cluster's scheduler and a worker then do their part.

    django-q2's scheduler (django_q.scheduler.scheduler) closes the database connections first, which
    a test's transaction cannot survive, so its one step for a due ONCE schedule is done here the same
    way: queue the schedule's function with its arguments and drop the schedule; the queued task then
    runs as the worker runs it."""
    import ast

    from django_q.models import Schedule
    from django_q.tasks import async_task

    past = timezone.now() - timedelta(seconds=1)
    SourcePart.objects.filter(reading=PartReading.RETRY).update(retry_at=past)
    for schedule in Schedule.objects.filter(name__startswith="model-reread:"):
        assert (
            schedule.schedule_type == Schedule.ONCE and schedule.func == "apps.tenants.tasks.run_for_business"
        )
        async_task(schedule.func, *ast.literal_eval(schedule.args))
        schedule.delete()
    return run_queued_tasks()


def live(**filters: Any) -> list[Fact]:
    return list(Fact.objects.filter(status=FactStatus.LIVE, **filters).order_by("id"))


def test_a_model_that_dies_mid_run_loses_nothing_and_is_read_again_when_back(
    business: Any, model: ModelServer, django_capture_on_commit_callbacks: Any
) -> None:
    model.records = dict(PRICES)
    owner_answer_record(question="How much is sourdough?", answer="Sourdough is $8 a loaf.")
    assert [f.statement for f in live()] == ["A sourdough loaf costs $8 at Sunny Bakery."]
    assert not live(stand_in=True)

    model.stop()  # the server dies between two events
    with django_capture_on_commit_callbacks(execute=True):
        page = source_ingest(
            kind="website",
            ref="https://sunny.example/menu",
            content="Rye bread is $7 a loaf.\n\nCroissants are $3 each.",
        )
        answer = owner_answer_record(
            question="Do you make wedding cakes?", answer="Yes, we make wedding cakes from $250."
        )

    # Every event is stored and read; the built-in reader's records are live, marked as stand-ins.
    assert SourceVersion.objects.filter(outcome=VersionOutcome.PROCESSED).count() == 3
    assert len(page.rereading) == 2 and len(answer.rereading) == 1
    stand_ins = live(stand_in=True)
    assert stand_ins and all(f.stand_in for f in page.added + answer.added)
    text = knowledge_text(on=timezone.localdate())
    assert "$7" in text and "$3" in text and "250" in text  # visitors get the owner's answer at once
    waiting = list(SourcePart.objects.filter(reading=PartReading.RETRY))
    assert len(waiting) == 3 and all(p.read_by == "builtin" and p.read_error for p in waiting)
    assert all(p.read_attempts == 1 and p.retry_at is not None for p in waiting)
    assert reread_schedule_get(business.schema_name) is not None  # the worker is told when to retry

    # Still down when the first retry is due: the parts wait longer (exponential backoff), nothing changes.
    before = timezone.now()
    worker_runs_due_retries()
    first = SourcePart.objects.filter(reading=PartReading.RETRY).order_by("id").first()
    assert first is not None and first.read_attempts == 2
    assert first.retry_at is not None and first.retry_at >= before + retry_delay(2) - timedelta(seconds=5)
    assert {f.pk for f in live(stand_in=True)} == {f.pk for f in stand_ins}

    model.start()  # back, on the same address
    assert worker_runs_due_retries() >= 1
    assert not SourcePart.objects.filter(reading=PartReading.RETRY).exists()
    assert set(
        SourcePart.objects.exclude(source__ref__startswith="answer-").values_list("read_by", flat=True)
    ) == {"llm"}
    assert not live(stand_in=True)  # every stand-in is superseded ...
    for fact in stand_ins:
        fact.refresh_from_db()
        assert fact.status == FactStatus.RETIRED and fact.retired_reason == SUPERSEDED_BY_MODEL[:300]
    statements = {f.statement for f in live()}
    assert statements == {
        "A sourdough loaf costs $8 at Sunny Bakery.",
        "A rye loaf costs $7 at Sunny Bakery.",
        "A croissant costs $3 at Sunny Bakery.",
        "Sunny Bakery makes wedding cakes.",
        "Wedding cakes start at $250 at Sunny Bakery.",
    }
    rye = live(statement="A rye loaf costs $7 at Sunny Bakery.")[0]
    assert any(f.retired_by_id == rye.pk for f in stand_ins)  # ... by the model's record on its subject
    # ... and nothing is deleted: the stand-ins keep their history, which says why they went.
    assert Fact.objects.count() == len(stand_ins) + 5
    assert FactEvent.objects.filter(kind=EventKind.RETIRED, reason=SUPERSEDED_BY_MODEL).count() == len(
        stand_ins
    )
    assert Source.objects.count() == 3


def test_malformed_output_is_retried_not_hashed_as_done(
    business: Any, model: ModelServer, django_capture_on_commit_callbacks: Any
) -> None:
    model.malformed = True
    content = "Sourdough is $8 a loaf."
    with django_capture_on_commit_callbacks(execute=True):
        first = source_ingest(kind="website", ref="https://sunny.example/", content=content)
    part = SourcePart.objects.get()
    assert part.reading == PartReading.RETRY and "malformed" in part.read_error
    assert first.rereading == [part] and live(stand_in=True)  # the built-in reader's price stands in

    # An unchanged re-crawl is a no-op, but the part is still waiting for the model ...
    again = source_ingest(kind="website", ref="https://sunny.example/", content=content)
    assert again.unchanged
    part.refresh_from_db()
    assert part.reading == PartReading.RETRY

    # ... and the worker reads it once the model answers properly.
    model.malformed = False
    model.records = dict(PRICES)
    worker_runs_due_retries()
    part.refresh_from_db()
    assert part.reading == PartReading.READ and part.read_by == "llm" and part.retry_at is None
    assert [f.statement for f in live()] == ["A sourdough loaf costs $8 at Sunny Bakery."]
    assert not live(stand_in=True)


def test_a_model_that_timed_out_is_not_waited_for_again_by_the_next_event(
    business: Any, model: ModelServer, settings: Any
) -> None:
    settings.XORVENTA_LLM_TIMEOUT = 1
    model.delay = 3.0  # slower than the time-out: a loaded CPU model
    first = owner_answer_record(question="Do you deliver?", answer="Yes, we deliver within 5 miles for $5.")
    assert "timeout" in first.rereading[0].read_error
    started = time.monotonic()
    second = owner_answer_record(question="Do you cater?", answer="Yes, we cater for up to 50 people.")
    assert time.monotonic() - started < 1.0  # the owner does not wait out a second time-out
    assert second.rereading and "not asked" in second.rereading[0].read_error
    assert len(model.requests) == 1 and live(stand_in=True)


def test_a_stand_in_disagreement_is_replaced_by_the_models(
    business: Any, model: ModelServer, django_capture_on_commit_callbacks: Any
) -> None:
    owner = owner_fact_add(
        topic="Sourdough", aspect="price", statement="A sourdough loaf costs $8.", value="$8"
    )
    model.stop()
    with django_capture_on_commit_callbacks(execute=True):
        source_ingest(kind="website", ref="https://sunny.example/", content="Sourdough is $9 a loaf.")
    first = Disagreement.objects.get()
    assert first.status == DisagreementStatus.OPEN and first.fact == owner.added[0]
    model.records = {
        "Sourdough": [record("Sourdough", "price", "A sourdough loaf costs $9 at Sunny Bakery.", "$9")]
    }
    model.start()
    worker_runs_due_retries()
    first.refresh_from_db()
    assert first.status == DisagreementStatus.DISMISSED  # it went with the built-in reader's records
    now_open = Disagreement.objects.get(status=DisagreementStatus.OPEN)
    assert (
        now_open.statement == "A sourdough loaf costs $9 at Sunny Bakery." and now_open.fact == owner.added[0]
    )
    assert live(statement="A sourdough loaf costs $8.")  # the owner's answer still wins


def test_a_part_with_no_record_is_flagged(business: Any, model: ModelServer) -> None:
    result = owner_answer_record(question="Anything else?", answer="Ask Maria about that when she is in.")
    part = SourcePart.objects.get()
    assert part.reading == PartReading.NO_RECORDS and part.read_by == "llm"
    assert result.unread == [part] and not result.added
    from apps.facts.selectors import parts_flagged

    assert parts_flagged([part.source_id])[part.source_id].unread == [part]


def test_the_model_sees_the_live_facts_it_may_replace_and_the_parts_around(
    business: Any, model: ModelServer
) -> None:
    loaf = owner_fact_add(topic="Sourdough", aspect="price", statement="A sourdough loaf costs $8.").added[0]
    hours = owner_fact_add(
        topic="Opening hours", aspect="hours monday-friday", statement="Open 7 AM-3 PM on weekdays."
    ).added[0]
    # A small model files the price under the first topic it sees and names the hours as replaced.
    model.records = {
        "now $9": [
            record("Opening hours", "price", "A sourdough loaf now costs $9.", "$9", replaces=[str(hours.pk)])
        ]
    }
    source_ingest(
        kind="website",
        ref="https://sunny.example/bread",
        content="Our sourdough loaf is now $9.\n\nWe bake it fresh every morning.",
    )
    sent = [r for r in model.requests if "now $9" in model.source_of(r)]
    assert len(sent) == 1
    user = sent[0]["messages"][-1]["content"]
    context = json.loads(re.search(r"^context: (.*)$", user, re.M).group(1))  # type: ignore[union-attr]
    shown = {f["id"]: f["topic"] for f in context["live_facts"]}
    assert shown.get(str(loaf.pk)) == "Sourdough"  # the fact it may replace is in view
    assert str(hours.pk) not in shown  # a subject the part is not about is not offered
    assert "[after] We bake it fresh every morning." in user.split("<<<AROUND", 1)[1]
    # The model's replaces names another subject: the rules do not retire the opening hours for it.
    hours.refresh_from_db()
    assert hours.status == FactStatus.LIVE
