"""Replaying a scenario file (the format of shared/eval/scenarios/*.json) into a business's knowledge.

The runner is split so that higher layers can add columns to the same report: the knowledge layer
provides the `knowledge` column (the knowledge rendered for the question's date); retrieval adds
`context` (what the answerer received) and chat adds `answer`. Each column is a function from a
question to the text that is checked against the question's `require`/`forbid` patterns.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError, field_validator

from apps.facts.models import Disagreement
from apps.facts.selectors import RenderedTopic, knowledge_render
from apps.facts.services import owner_answer_record, source_ingest


class ScenarioEvent(BaseModel):
    source: str
    content: str
    ref: str | None = None
    question: str | None = None
    on: date | None = None

    @field_validator("source")
    @classmethod
    def _known_source(cls, value: str) -> str:
        if value not in {"website", "document", "owner_answer", "profile"}:
            raise ValueError("source must be website, document, owner_answer or profile")
        return value


class ScenarioQuestion(BaseModel):
    ask: str
    on: date | None = None
    # Earlier visitor turns of the same conversation, asked first: "and on Saturdays?" after an hours
    # question is only a question in its conversation.
    after: list[str] = Field(default_factory=list)
    # The knowledge does not answer it: the right reply says so (passes the question to the owner).
    unanswerable: bool = False
    require: list[str] = Field(default_factory=list)
    forbid: list[str] = Field(default_factory=list)

    @field_validator("require", "forbid")
    @classmethod
    def _compiles(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"invalid regular expression {pattern!r}: {exc}") from None
        return patterns


class ScenarioExpect(BaseModel):
    disagreements_at_least: int = 0


class Scenario(BaseModel):
    name: str = "Scenario"
    about: str = ""
    today: date
    events: list[ScenarioEvent]
    questions: list[ScenarioQuestion]
    expect: ScenarioExpect = Field(default_factory=ScenarioExpect)


class ScenarioFileError(ValueError):
    pass


# The ratchet beside the scenario files (tests/scenarios/floors.json) is not a scenario.
NOT_SCENARIOS = {"floors.json"}


def scenario_paths(names: list[str]) -> list[Path]:
    """The scenario files named, a folder standing for the *.json scenario files in it."""
    paths: list[Path] = []
    for name in names:
        path = Path(name)
        found = sorted(path.glob("*.json")) if path.is_dir() else [path]
        paths.extend(p for p in found if p.name not in NOT_SCENARIOS)
    return paths


def scenario_load(path: str | Path) -> Scenario:
    try:
        raw = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ScenarioFileError(f"Cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ScenarioFileError(f"{path} is not UTF-8 text.") from None
    except RecursionError:
        raise ScenarioFileError(f"{path} is nested too deeply to be a scenario file.") from None
    except json.JSONDecodeError as exc:
        raise ScenarioFileError(f"{path} is not valid JSON: {exc}") from None
    try:
        return Scenario.model_validate(raw)
    except (ValidationError, re.error, RecursionError) as exc:
        raise ScenarioFileError(f"{path} is not a scenario file:\n{exc}") from None


@dataclass(frozen=True)
class Check:
    passed: bool
    text: str
    missing: list[str]
    forbidden: list[str]


def check_text(text: str, question: ScenarioQuestion) -> Check:
    missing = [p for p in question.require if not re.search(p, text)]
    forbidden = [p for p in question.forbid if re.search(p, text)]
    return Check(passed=not missing and not forbidden, text=text, missing=missing, forbidden=forbidden)


@dataclass(frozen=True)
class ColumnText:
    """What a column shows for one question. `refusal` marks a reply that passed the question to the
    owner: it is graded as a refusal whatever words it contains (a refusal that quotes related facts
    must not pass a question it did not answer)."""

    text: str
    refusal: bool = False


REFUSED_AN_ANSWERABLE = "an answer (the reply passed the question to the owner)"
ANSWERED_AN_UNANSWERABLE = "a refusal (the knowledge does not answer this question)"


def check_column(shown: ColumnText, question: ScenarioQuestion) -> Check:
    check = check_text(shown.text, question)
    if question.unanswerable and not shown.refusal:
        return Check(False, shown.text, [*check.missing, ANSWERED_AN_UNANSWERABLE], check.forbidden)
    if shown.refusal and not question.unanswerable:
        return Check(False, shown.text, [*check.missing, REFUSED_AN_ANSWERABLE], check.forbidden)
    return check


def grade(shown: str | ColumnText, question: ScenarioQuestion) -> Check:
    """Only a reply can refuse: a column of fact lines (plain text) is graded on its patterns alone,
    so an unanswerable question's knowledge passes when it states nothing the question forbids
    (with the refusal rules, no knowledge column could ever pass one)."""
    if isinstance(shown, ColumnText):
        return check_column(shown, question)
    return check_text(shown, question)


# A column: (question, the date it is asked on) -> what it shows. Columns that only show knowledge
# return plain text (never a refusal, and graded without the refusal rules).
Column = Callable[[ScenarioQuestion, date], "str | ColumnText"]


def fact_lines(topics: Sequence[RenderedTopic]) -> str:
    """The fact lines of rendered topics, each under its topic's name, without the instruction header
    the answerer gets ("Anything not listed here was not stated ..."): grading must see only what the
    business stated, or every pattern for "not" passes on the header."""
    return "\n".join(f"{t.name}: {f.line}" for t in topics for f in t.facts)


def knowledge_column(question: ScenarioQuestion, on: date) -> str:
    return fact_lines(knowledge_render(on=on))


@dataclass
class QuestionResult:
    ask: str
    on: date
    columns: dict[str, Check] = field(default_factory=dict)


@dataclass
class ScenarioReport:
    name: str
    questions: list[QuestionResult]
    disagreements: int
    expect_disagreements: int
    column_names: Sequence[str]
    # Wall-clock seconds spent reading the events and answering the questions (the model check's cost).
    seconds_events: float = 0.0
    seconds_questions: float = 0.0
    # How much of the run the language model really did (the model check prints it): parts whose
    # built-in stand-ins still stand, and replies the built-in answerer gave in the model's place.
    model_misses: dict[str, int] = field(default_factory=dict)

    def passed(self, column: str) -> int:
        return sum(1 for q in self.questions if q.columns[column].passed)

    @property
    def ok(self) -> bool:
        return self.disagreements >= self.expect_disagreements and all(
            check.passed for q in self.questions for check in q.columns.values()
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "questions": [
                {
                    "ask": q.ask,
                    "on": q.on.isoformat(),
                    **{
                        name: {
                            "pass": c.passed,
                            "text": c.text,
                            "missing": c.missing,
                            "forbidden": c.forbidden,
                        }
                        for name, c in q.columns.items()
                    },
                }
                for q in self.questions
            ],
            "summary": {
                **{
                    name: {"passed": self.passed(name), "total": len(self.questions)}
                    for name in self.column_names
                },
                "disagreements": self.disagreements,
                "disagreements_expected_at_least": self.expect_disagreements,
                "ok": self.ok,
            },
        }


def scenario_play_events(scenario: Scenario, *, after_event: Callable[[int], None] | None = None) -> None:
    """Play the events in order, in the current business's schema. Events on one day keep their order.

    ``after_event(index)`` runs after each one (the real-model check stops its server part-way)."""
    for index, event in enumerate(scenario.events):
        day = event.on or scenario.today
        read_at = datetime.combine(day, time(9, 0), tzinfo=UTC) + timedelta(minutes=index)
        if event.source == "owner_answer":
            owner_answer_record(
                question=event.question or "",
                answer=event.content,
                read_at=read_at,
                ref=event.ref or f"scenario-answer-{index}",
            )
        else:
            source_ingest(
                kind=event.source,
                ref=event.ref or f"scenario-{event.source}-{index}",
                content=event.content,
                question=event.question or "",
                read_at=read_at,
                title=event.ref or "",
            )
        if after_event is not None:
            after_event(index)


def scenario_ask(scenario: Scenario, columns: dict[str, Column]) -> ScenarioReport:
    results = []
    for question in scenario.questions:
        on = question.on or scenario.today
        result = QuestionResult(ask=question.ask, on=on)
        for name, column in columns.items():
            shown = column(question, on)
            result.columns[name] = grade(shown, question)
        results.append(result)
    return ScenarioReport(
        name=scenario.name,
        questions=results,
        disagreements=Disagreement.objects.count(),
        expect_disagreements=scenario.expect.disagreements_at_least,
        column_names=list(columns),
    )
