"""`manage.py llm_check`: the scenario files against a real local model server (`make test-llm`)."""

import json
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.test import override_settings

from apps.facts.models import Fact, FactStatus, PartReading, SourcePart, SourceVersion, VersionOutcome
from lab.llm_check import MODES, ModelServer, model_server
from lab.scenario import (
    Scenario,
    ScenarioFileError,
    ScenarioReport,
    scenario_ask,
    scenario_load,
    scenario_paths,
    scenario_play_events,
)
from lab.scenario_runner import retries_settle, scenario_business, scenario_columns, scenario_run

COLUMNS = ("knowledge", "context", "answer")


class Command(BaseCommand):
    help = (
        "Start a real llama.cpp server with a small local model (built and assembled once, in a cache "
        "outside the repository) and replay scenario files with the model as extractor, answerer, or both."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "files",
            nargs="*",
            help="Scenario files, or folders of *.json scenario files (default: Appendix A from "
            "XORVENTA_EVAL_DIR and every file in tests/scenarios)",
        )
        parser.add_argument(
            "--modes",
            default=",".join(f"{e}/{a}" for e, a in MODES),
            help="extractor/answerer pairs, comma-separated (default: %(default)s)",
        )
        parser.add_argument("--threads", type=int, default=2, help="Model server threads")
        parser.add_argument("--json-out", help="Also write the figures to this JSON file")
        parser.add_argument(
            "--outage",
            metavar="FILE",
            help="First an outage drill on this scenario file: the server is stopped after half its events "
            "and started again after the last; then what was kept, and what the worker's re-reading did",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        modes = _modes(opts["modes"])
        scenarios = _scenarios(opts["files"] or _default_files())
        figures: list[dict[str, Any]] = []
        with model_server(threads=opts["threads"], say=self.stdout.write) as server:
            if opts["outage"]:
                drill = _scenarios([opts["outage"]])[0]
                with _served_by(server, extractor="llm", answerer="builtin"):
                    figures.append(self._outage_drill(server, *drill))
            for extractor, answerer in modes:
                with _served_by(server, extractor=extractor, answerer=answerer):
                    figures.append(self._run_mode(extractor, answerer, scenarios))
        if opts["json_out"]:
            Path(opts["json_out"]).write_text(json.dumps(figures, indent=2))

    def _run_mode(self, extractor: str, answerer: str, scenarios: list[tuple[Path, Any]]) -> dict[str, Any]:
        self.stdout.write(f"\n== extractor={extractor} answerer={answerer}")
        reports: list[ScenarioReport] = []
        for path, scenario in scenarios:
            report = scenario_run(scenario)
            reports.append(report)
            self.stdout.write(
                f"{path.name:<40} "
                + " ".join(f"{c} {report.passed(c)}/{len(report.questions)}" for c in COLUMNS)
                + f"  {report.seconds_events:.0f} s events, {report.seconds_questions:.0f} s questions"
                + f"  (built-in in the model's place: {report.model_misses.get('parts_stand_in', 0)} parts,"
                + f" {report.model_misses.get('answers_fallback', 0)} replies)"
            )
        row = _totals(extractor, answerer, scenarios, reports)
        self.stdout.write(
            "total: "
            + ", ".join(f"{c} {row[c]['passed']}/{row['questions']} ({row[c]['rate']:.0%})" for c in COLUMNS)
            + f"; {row['seconds_per_event']:.1f} s per event, {row['seconds_per_question']:.1f} s per question"
            + f"; built-in in the model's place: {row['parts_stand_in']} parts, {row['answers_fallback']} replies"
        )
        return row

    def _outage_drill(self, server: ModelServer, path: Path, scenario: Scenario) -> dict[str, Any]:
        """Stop the real server part-way through a replay: every event must be stored and read (the
        built-in reader standing in), and the worker's re-reading must replace the stand-ins once the
        server is back. Prints the counts; a lost event is an error."""
        self.stdout.write(f"\n== outage drill on {path.name} (extractor=llm answerer=builtin)")
        stop_after = max(len(scenario.events) // 2 - 1, 0)

        def stop_midway(index: int) -> None:
            if index == stop_after:
                server.stop()
                self.stdout.write(f"server stopped after event {index + 1} of {len(scenario.events)}")

        with scenario_business(scenario.name):
            started = time.monotonic()
            scenario_play_events(scenario, after_event=stop_midway)
            during = _reading_counts()
            self.stdout.write(f"during the outage ({time.monotonic() - started:.0f} s): {during}")
            server.start()
            self.stdout.write("server started again; the worker's re-reading runs")
            reread = retries_settle()
            after = _reading_counts()
            self.stdout.write(f"after the re-reading ({reread}): {after}")
            report = scenario_ask(scenario, scenario_columns())
        row = {"drill": path.name, "events": len(scenario.events), "during": during, "after": after}
        row.update({c: report.passed(c) for c in COLUMNS}, questions=len(report.questions))
        self.stdout.write("drill: " + " ".join(f"{c} {row[c]}/{row['questions']}" for c in COLUMNS))
        if (
            during["events_unread"]
            or after["events_unread"]
            or during["events_stored"] < len(scenario.events)
        ):
            raise CommandError(f"The outage lost or left unread an event: {during} / {after}")
        return row


def _served_by(server: ModelServer, *, extractor: str, answerer: str) -> override_settings:
    """The product's settings for one mode: which side asks the model, and the local server it asks."""
    return override_settings(
        XORVENTA_EXTRACTOR=extractor,
        XORVENTA_ANSWERER=answerer,
        XORVENTA_LLM_BASE_URL=server.base_url,
        XORVENTA_LLM_MODEL="local",
    )


def _reading_counts() -> dict[str, int]:
    """What the current business kept: events stored and unread, parts waiting, stand-ins live/replaced."""
    stand_ins = Fact.objects.filter(stand_in=True)
    return {
        "events_stored": SourceVersion.objects.count(),
        "events_unread": SourceVersion.objects.filter(outcome=VersionOutcome.RECEIVED).count(),
        "parts_waiting": SourcePart.objects.filter(
            reading=PartReading.RETRY, removed_in__isnull=True
        ).count(),
        "stand_ins_live": stand_ins.filter(status=FactStatus.LIVE).count(),
        "stand_ins_replaced": stand_ins.exclude(status=FactStatus.LIVE).count(),
        "model_facts_live": Fact.objects.filter(stand_in=False, status=FactStatus.LIVE).count(),
    }


def _totals(
    extractor: str, answerer: str, scenarios: list[tuple[Path, Any]], reports: list[ScenarioReport]
) -> dict[str, Any]:
    questions = sum(len(r.questions) for r in reports)
    events = sum(len(s.events) for _, s in scenarios)
    row: dict[str, Any] = {"extractor": extractor, "answerer": answerer, "files": len(reports)}
    row["questions"] = questions
    row["events"] = events
    for column in COLUMNS:
        passed = sum(r.passed(column) for r in reports)
        row[column] = {"passed": passed, "rate": passed / max(questions, 1)}
    row["seconds_per_event"] = sum(r.seconds_events for r in reports) / max(events, 1)
    row["seconds_per_question"] = sum(r.seconds_questions for r in reports) / max(questions, 1)
    for miss in ("parts_stand_in", "answers_fallback"):
        row[miss] = sum(r.model_misses.get(miss, 0) for r in reports)
    return row


def _modes(text: str) -> list[tuple[str, str]]:
    modes = []
    for pair in filter(None, (p.strip() for p in text.split(","))):
        extractor, _, answerer = pair.partition("/")
        if extractor not in ("llm", "builtin") or answerer not in ("llm", "builtin"):
            raise CommandError(f"A mode is extractor/answerer, each llm or builtin; not {pair!r}.")
        modes.append((extractor, answerer))
    return modes


def _default_files() -> list[str]:
    appendix_a = Path(settings.XORVENTA_EVAL_DIR) / "scenarios" / "sunny_bakery.json"
    own = Path(settings.BASE_DIR) / "tests" / "scenarios"
    return [str(p) for p in (appendix_a, own) if p.exists()]


def _scenarios(names: list[str]) -> list[tuple[Path, Any]]:
    paths = scenario_paths(names)
    if not paths:
        raise CommandError(f"No scenario files in {', '.join(names)}.")
    try:
        return [(path, scenario_load(path)) for path in paths]
    except ScenarioFileError as exc:
        raise CommandError(str(exc)) from None
