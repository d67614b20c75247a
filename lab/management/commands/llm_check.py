"""`manage.py llm_check`: the scenario files against a real local model server (`make test-llm`)."""

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.test import override_settings

from lab.llm_check import MODES, model_server
from lab.scenario import ScenarioFileError, ScenarioReport, scenario_load, scenario_paths
from lab.scenario_runner import scenario_run

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

    def handle(self, *args: Any, **opts: Any) -> None:
        modes = _modes(opts["modes"])
        scenarios = _scenarios(opts["files"] or _default_files())
        figures: list[dict[str, Any]] = []
        with model_server(threads=opts["threads"], say=self.stdout.write) as server:
            for extractor, answerer in modes:
                with override_settings(
                    XORVENTA_EXTRACTOR=extractor,
                    XORVENTA_ANSWERER=answerer,
                    XORVENTA_LLM_BASE_URL=server.base_url,
                    XORVENTA_LLM_MODEL="local",
                ):
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
            )
        row = _totals(extractor, answerer, scenarios, reports)
        self.stdout.write(
            "total: "
            + ", ".join(f"{c} {row[c]['passed']}/{row['questions']} ({row[c]['rate']:.0%})" for c in COLUMNS)
            + f"; {row['seconds_per_event']:.1f} s per event, {row['seconds_per_question']:.1f} s per question"
        )
        return row


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
