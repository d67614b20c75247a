"""Set the confidence thresholds of the configured embedding model from answerable and unanswerable
questions (the gold doc removed), by target flag rates (seed 000, table 3.5)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from apps.retrieval.embedding import model_id
from apps.retrieval.stats import auc, calibrate_threshold, flag_rates
from apps.retrieval.thresholds import TARGET_FLAG_RATES, profile_write
from lab.evaluation import config_from, dataset_load, evaluate


class Command(BaseCommand):
    help = "Calibrate the thresholds of the current embedding model on DSTC-format sets (gold removed)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("roots", nargs="+", help="DSTC folders (e.g. ../shared/eval/dstc9)")
        parser.add_argument("--limit", type=int)
        parser.add_argument(
            "--write-profile", action="store_true", help="Write apps/retrieval/profiles/<model>.json"
        )
        parser.add_argument("--scores", help="Also save the raw scores (JSON) for map_thresholds")

    def handle(self, *args: Any, **opts: Any) -> None:
        answerable: list[float] = []
        unanswerable: list[float] = []
        names = []
        for root in opts["roots"]:
            dataset = dataset_load(Path(root), limit=opts["limit"])
            if not dataset.questions:
                raise CommandError(f"No questions in {root}")
            names.append(f"{dataset.name} ({len(dataset.questions)} q)")
            outcomes = evaluate(
                dataset, {"full": config_from("full")}, unanswerable=True, progress=self.stderr.write
            )
            answerable += [o.confidence for o in outcomes["full"]]
            unanswerable += [
                o.unanswerable_confidence for o in outcomes["full"] if o.unanswerable_confidence is not None
            ]
        values = {
            name: round(calibrate_threshold(unanswerable, rate), 4)
            for name, rate in TARGET_FLAG_RATES.items()
        }
        self.stdout.write(
            f"Model {model_id()}: AUC {auc(answerable, unanswerable):.3f} on {', '.join(names)}"
        )
        for name, threshold in values.items():
            flags_u, flags_a = flag_rates(answerable, unanswerable, threshold)
            self.stdout.write(
                f"  {name:<13} {threshold:.4f}  flags {flags_u:.0%} of unanswerable (target "
                f"{TARGET_FLAG_RATES[name]:.0%}), {flags_a:.1%} of answerable"
            )
        if opts["scores"]:
            Path(opts["scores"]).write_text(
                json.dumps({"model": model_id(), "answerable": answerable, "unanswerable": unanswerable})
            )
        if opts["write_profile"]:
            path = profile_write(
                model_id(),
                values,
                calibrated_on=f"{', '.join(names)}, gold removed, on {timezone.localdate().isoformat()}",
                details={
                    "auc": round(auc(answerable, unanswerable), 4),
                    "answerable": len(answerable),
                    "unanswerable": len(unanswerable),
                    "targets": TARGET_FLAG_RATES,
                    "command": "python manage.py calibrate_thresholds "
                    + " ".join(str(r) for r in opts["roots"])
                    + " --write-profile",
                },
            )
            self.stdout.write(self.style.SUCCESS(f"Wrote {path}"))
