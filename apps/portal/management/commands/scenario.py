import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.facts.scenario import ScenarioFileError, scenario_load
from apps.portal.scenario_runner import scenario_run


class Command(BaseCommand):
    help = "Replay a scenario file into a throwaway business and check every question, per column."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file")
        parser.add_argument("--json", action="store_true", help="Print one JSON object")
        parser.add_argument(
            "--keep", action="store_true", help="Keep the throwaway business (for inspection)"
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            scenario = scenario_load(opts["file"])
        except ScenarioFileError as exc:
            raise CommandError(str(exc)) from None
        report = scenario_run(scenario, keep=opts["keep"])
        if opts["json"]:
            self.stdout.write(json.dumps(report.as_json(), indent=2))
        else:
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
                f"Summary: {summary}; disagreements {report.disagreements} (expected at least {report.expect_disagreements})"
            )
        if not report.ok:
            raise SystemExit(1)
