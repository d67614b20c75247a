"""Confidence thresholds: a per-model profile defined by behaviour, not by number (seed 000, 3.5).

Each decision is defined by what it should flag (a share of unanswerable questions) and rises in order
of cost: recording a gap is free, so it is the most sensitive; a web look-up is slow, so it fires only
on a clear miss. A model's similarity scale is its own, so the numbers come from calibration on that
model (`calibrate_thresholds`), and move to a new model by percentile (`map_thresholds`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Decision -> target share of unanswerable questions it should flag (seed 000, table in 3.5).
TARGET_FLAG_RATES: dict[str, float] = {
    "record_gap": 0.70,
    "new_question": 0.50,
    "ask_owner": 0.31,
    "repair": 0.19,
    "web_lookup": 0.11,
}
DECISIONS = tuple(TARGET_FLAG_RATES)

# The seed paper's numbers (snowflake-arctic-embed-s): only a last resort when a model has no profile.
SEED_PROFILE: dict[str, float] = {
    "record_gap": 0.675,
    "new_question": 0.61,
    "ask_owner": 0.59,
    "repair": 0.57,
    "web_lookup": 0.55,
}

PROFILE_DIR = Path(__file__).resolve().parent / "profiles"


@dataclass(frozen=True)
class ThresholdProfile:
    model: str
    values: dict[str, float]
    origin: str  # "calibrated:<where>" | "seed paper default"

    def __getitem__(self, decision: str) -> float:
        return self.values[decision]


def _profile_file(model: str) -> Path:
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in model.split("@")[0])
    return PROFILE_DIR / f"{safe}.json"


# Read on every chat turn: parsed again only when the file changes (calibrate_thresholds rewrites it).
_parsed: dict[Path, tuple[int, dict[str, Any]]] = {}


def _read_profile(path: Path) -> dict[str, Any]:
    version = path.stat().st_mtime_ns
    cached = _parsed.get(path)
    if cached is None or cached[0] != version:
        cached = _parsed[path] = (version, json.loads(path.read_text()))
    return cached[1]


def builtin_profile(model: str) -> ThresholdProfile:
    """The profile shipped for a model (written by `calibrate_thresholds --write-profile`)."""
    path = _profile_file(model)
    if path.is_file():
        data = _read_profile(path)
        return ThresholdProfile(
            model=model,
            values={k: float(data["thresholds"][k]) for k in DECISIONS},
            origin=f"calibrated: {data.get('calibrated_on', path.name)}",
        )
    return ThresholdProfile(model=model, values=dict(SEED_PROFILE), origin="seed paper default")


def profile_write(
    model: str, values: dict[str, float], *, calibrated_on: str, details: dict[str, object]
) -> Path:
    PROFILE_DIR.mkdir(parents=True, exist_ok=True)
    path = _profile_file(model)
    path.write_text(
        json.dumps(
            {"model": model.split("@")[0], "calibrated_on": calibrated_on, "thresholds": values, **details},
            indent=2,
        )
        + "\n"
    )
    return path


def decisions_for(confidence: float, profile: ThresholdProfile) -> dict[str, bool]:
    """Each decision fires when the confidence is below its threshold, except new_question, which is
    the opposite: a message whose own best match reaches it is a question in its own right."""
    return {
        name: (confidence >= profile[name]) if name == "new_question" else (confidence < profile[name])
        for name in DECISIONS
    }
