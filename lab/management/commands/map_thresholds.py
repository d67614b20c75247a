"""Move thresholds to a new embedding model by percentile: t_new = Q_new(F_old(t_old)) (seed 000, App. B)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from apps.retrieval.stats import map_threshold
from apps.retrieval.thresholds import DECISIONS, builtin_profile, profile_write


class Command(BaseCommand):
    help = (
        "Map a model's thresholds to another model's scale using both models' scores on the same questions."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "old_scores", help="JSON written by calibrate_thresholds --scores with the old model"
        )
        parser.add_argument("new_scores", help="The same questions scored with the new model")
        parser.add_argument("--write-profile", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        old = json.loads(Path(opts["old_scores"]).read_text())
        new = json.loads(Path(opts["new_scores"]).read_text())
        old_all = old["answerable"] + old["unanswerable"]
        new_all = new["answerable"] + new["unanswerable"]
        profile = builtin_profile(old["model"])
        mapped = {d: round(map_threshold(old_all, new_all, profile[d]), 4) for d in DECISIONS}
        for d in DECISIONS:
            self.stdout.write(
                f"{d:<13} {profile[d]:.4f} ({old['model']}) -> {mapped[d]:.4f} ({new['model']})"
            )
        if opts["write_profile"]:
            path = profile_write(
                new["model"],
                mapped,
                calibrated_on=f"mapped by percentile from {old['model']}",
                details={"from": profile.values},
            )
            self.stdout.write(f"Wrote {path}")
