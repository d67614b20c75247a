"""Record the scenario floors: `python -m tests.scenarios.floors [FILE ...]` runs the named scenario
files (default: all) through `manage.py scenario --json` and writes their per-column pass counts to
floors.json. Run it only after a change that gains questions, and commit the new floors with it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parents[1]


def measure(paths: list[Path]) -> list[dict[str, object]]:
    """One `manage.py scenario --json` run for all the files (the models load once); it prints one
    JSON object per file."""
    done = subprocess.run(
        [sys.executable, "manage.py", "scenario", "--json", *map(str, paths)],
        cwd=ROOT,
        env=dict(os.environ, XORVENTA_LAB="1"),  # the scenario command lives in the lab app
        capture_output=True,
        text=True,
        check=False,
    )
    decoder, text, found = json.JSONDecoder(), done.stdout, []
    position = 0
    while (start := text.find("{", position)) != -1:
        report, position = decoder.raw_decode(text, start)
        found.append(report["summary"])
    if len(found) != len(paths):
        raise SystemExit(f"expected {len(paths)} reports, got {len(found)}:\n{done.stderr[-2000:]}")
    return [_floor(summary) for summary in found]


def _floor(summary: dict[str, dict[str, int]]) -> dict[str, object]:
    floor: dict[str, object] = {c: summary[c]["passed"] for c in ("knowledge", "context", "answer")}
    floor["total"] = summary["answer"]["total"]
    floor["disagreements"] = summary["disagreements"] >= summary["disagreements_expected_at_least"]
    return floor


def main(names: list[str]) -> None:
    floors_file = HERE / "floors.json"
    floors = json.loads(floors_file.read_text()) if floors_file.exists() else {}
    every = sorted(HERE.glob("*.json")) + sorted((HERE / "heldout").glob("*.json"))
    paths = [HERE / n for n in names] or [p for p in every if p != floors_file]
    for path, floor in zip(paths, measure(paths), strict=True):
        key = path.relative_to(HERE).as_posix()
        floors[key] = floor
        print(key, floor)
    floors_file.write_text(json.dumps(dict(sorted(floors.items())), indent=1) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
