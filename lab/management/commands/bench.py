"""python manage.py bench [NAME ...] [--quick] [--json] [--out FILE] [--cleanup]: see bench/ and
docs/benchmarks.md. A thin adapter: each benchmark runs on its own, a failure is reported and the next
one runs, and the throwaway businesses are deleted whatever happens (also on Ctrl-C)."""

from __future__ import annotations

import shlex
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from bench import BENCHMARKS, runner
from bench.common import Context, leftover_businesses
from bench.report import CpuMeter, Section, describe_machine, machine_lines, report_json


class Command(BaseCommand):
    help = "Measure speed, cost and scale (median and p95) in throwaway businesses: " + "; ".join(
        ["embed", "retrieve", "ingest", "tenants", "chat", "quality"]
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("names", nargs="*", help="Benchmarks to run (default: all, in order)")
        parser.add_argument(
            "--quick", action="store_true", help="Smallest sizes: a smoke check in ~2 minutes"
        )
        parser.add_argument("--json", action="store_true", help="Print the JSON report on stdout")
        parser.add_argument("--out", help="Also write the JSON report to this file (.md: the Markdown)")
        parser.add_argument(
            "--cleanup", action="store_true", help="Only delete businesses left behind by killed runs"
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        names = opts["names"] or list(BENCHMARKS)
        unknown = [n for n in names if n not in BENCHMARKS]
        if unknown:
            raise CommandError(f"Unknown benchmark(s) {unknown}; choose from {list(BENCHMARKS)}.")
        out = self.stderr if opts["json"] else self.stdout

        def log(text: str) -> None:
            self.stderr.write(text)
            self.stderr.flush()

        ctx = Context(quick=opts["quick"], log=log)
        leftovers = leftover_businesses()
        if leftovers:
            log(f"Deleting {len(leftovers)} business(es) left behind by an earlier, killed bench run.")
            ctx.created = [b.pk for b in leftovers]
            ctx.cleanup()
        if opts["cleanup"]:
            return

        # SIGTERM (a CI timeout, `kill`) cleans up like Ctrl-C.
        def terminate(signum: int, frame: object) -> None:
            raise KeyboardInterrupt

        signal.signal(signal.SIGTERM, terminate)
        command = "python manage.py bench " + " ".join(shlex.quote(a) for a in sys.argv[2:])
        machine = describe_machine()
        out.write(f"# Xorventa benchmarks{' (quick)' if ctx.quick else ''}\n\n`{command.strip()}`\n")
        out.write("\n".join(machine_lines(machine)) + "\n")
        sections: list[Section] = []
        started = time.monotonic()
        interrupted = False
        for name in names:
            log(f"[{name}] {BENCHMARKS[name][1]}")
            meter = CpuMeter()
            section = Section(name, BENCHMARKS[name][1])
            try:
                section = runner(name)(ctx)
            except KeyboardInterrupt:
                section.error = "interrupted (Ctrl-C)"
                interrupted = True
            except Exception as exc:  # reported, and the next benchmark still runs
                section.error = f"{type(exc).__name__}: {exc}"
                section.data["traceback"] = traceback.format_exc()
                log(traceback.format_exc())
            finally:
                removed = ctx.cleanup()
                if removed:
                    log(f"  cleaned up {removed} throwaway business(es)")
            section.cpu = meter.result()
            sections.append(section)
            out.write("\n" + section.markdown())
            out.flush()
            if interrupted:
                break
        total = time.monotonic() - started
        targets = [t for s in sections for t in s.targets]
        summary = [f"\n## Summary\n\nTotal {total / 60:.1f} min."]
        summary += [f"- {t.line()}" for t in targets]
        summary += [f"- {s.name} FAILED: {s.error}" for s in sections if s.error]
        out.write("\n".join(summary) + "\n")
        report = report_json(machine, sections, command=command.strip(), quick=ctx.quick)
        if opts["out"]:
            path = Path(opts["out"])
            if path.suffix == ".md":
                text = "\n".join(
                    ["# Xorventa benchmarks", "", f"`{command.strip()}`", *machine_lines(machine)]
                )
                text += "\n" + "\n".join(s.markdown() for s in sections) + "\n".join(summary)
                path.write_text(text + "\n")
            else:
                path.write_text(report)
        if opts["json"]:
            self.stdout.write(report)
        if interrupted:
            raise CommandError("Interrupted; the throwaway businesses were deleted.")
