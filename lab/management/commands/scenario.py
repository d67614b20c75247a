import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from lab.scenario import ScenarioFileError, ScenarioReport, scenario_load, scenario_paths
from lab.scenario_runner import scenario_run

COLUMNS = ("knowledge", "context", "answer")


class Command(BaseCommand):
    help = (
        "Replay scenario files, each into a throwaway business, and check every question per column. "
        "Several files (or folders of them) print a table per file and the totals."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "files", nargs="+", help="Scenario files, or folders holding *.json scenario files"
        )
        parser.add_argument("--json", action="store_true", help="Print one JSON object per file")
        parser.add_argument("--markdown", action="store_true", help="Print the per-file table as Markdown")
        parser.add_argument(
            "--keep", action="store_true", help="Keep the throwaway business (for inspection)"
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        paths = _expand(opts["files"])
        try:
            scenarios = [(path, scenario_load(path)) for path in paths]
        except ScenarioFileError as exc:
            raise CommandError(str(exc)) from None
        reports = []
        for path, scenario in scenarios:
            report = scenario_run(scenario, keep=opts["keep"])
            reports.append((path, report))
            if opts["json"]:
                self.stdout.write(json.dumps(report.as_json(), indent=2))
            elif not opts["markdown"]:
                self._print_report(report)
        if len(reports) > 1 or opts["markdown"]:
            self._print_table(reports, markdown=opts["markdown"])
        if not all(report.ok for _, report in reports):
            raise SystemExit(1)

    def _print_report(self, report: ScenarioReport) -> None:
        cols = list(report.column_names)
        self.stdout.write(f"{report.name}\n" + " | ".join(f"{c:^9}" for c in cols) + " | question")
        for q in report.questions:
            marks = " | ".join(f"{'pass' if q.columns[c].passed else 'FAIL':^9}" for c in cols)
            self.stdout.write(f"{marks} | {q.ask} (on {q.on:%Y-%m-%d})")
            for c in cols:
                check = q.columns[c]
                if not check.passed:
                    self.stdout.write(f"      {c}: missing {check.missing} forbidden {check.forbidden}")
        summary = ", ".join(f"{c} {report.passed(c)}/{len(report.questions)}" for c in cols)
        self.stdout.write(
            f"Summary: {summary}; disagreements {report.disagreements} "
            f"(expected at least {report.expect_disagreements})"
        )

    def _print_table(self, reports: list[tuple[Path, ScenarioReport]], *, markdown: bool) -> None:
        rows = [
            [path.name, *(f"{r.passed(c)}/{len(r.questions)}" for c in COLUMNS), _disagreements(r)]
            for path, r in reports
        ]
        total = sum(len(r.questions) for _, r in reports)
        passed = {c: sum(r.passed(c) for _, r in reports) for c in COLUMNS}
        rows.append(
            [
                "total",
                *(f"{passed[c]}/{total} ({passed[c] / max(total, 1):.0%})" for c in COLUMNS),
                f"{sum(r.disagreements >= r.expect_disagreements for _, r in reports)}/{len(reports)} files",
            ]
        )
        header = ["file", *COLUMNS, "disagreements"]
        if markdown:
            self.stdout.write("| " + " | ".join(header) + " |")
            self.stdout.write("|" + "---|" * len(header))
            for row in rows:
                self.stdout.write("| " + " | ".join(row) + " |")
        else:
            for row in [header, *rows]:
                self.stdout.write(f"{row[0]:<40} " + " ".join(f"{cell:>16}" for cell in row[1:]))


def _disagreements(report: ScenarioReport) -> str:
    return f"{report.disagreements} (>= {report.expect_disagreements})"


def _expand(names: list[str]) -> list[Path]:
    paths = scenario_paths(names)
    if not paths:
        raise CommandError(f"No scenario files in {', '.join(names)}.")
    return paths
