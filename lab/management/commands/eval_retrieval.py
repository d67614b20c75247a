"""python manage.py eval_retrieval --dataset dstc --knowledge K --logs L --labels B ..."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from lab.evaluation import (
    ABLATIONS,
    compare,
    config_from,
    dataset_load,
    evaluate,
    per_question,
    summarise,
)


class Command(BaseCommand):
    help = (
        "Evaluate retrieval on a DSTC-format set: hit@1, hit@k, MRR (Wilson 95% CIs), latency, comparisons."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dataset", default="dstc", choices=["dstc"])
        parser.add_argument(
            "--root", help="A DSTC folder (knowledge.json + val[_subset]/logs.json, labels.json)"
        )
        parser.add_argument("--knowledge", help="knowledge.json (alternative to --root)")
        parser.add_argument("--logs", help="logs.json")
        parser.add_argument("--labels", help="labels.json")
        parser.add_argument("--limit", type=int)
        parser.add_argument(
            "--config", default="full", help=f"An ablation ({', '.join(ABLATIONS)}) or overrides k=v,..."
        )
        parser.add_argument(
            "--compare", nargs="*", default=[], help="Further configurations compared with --config"
        )
        parser.add_argument(
            "--ablations", action="store_true", help="Compare every ablation with the full path"
        )
        parser.add_argument(
            "--unanswerable", action="store_true", help="Also ask each question with its gold doc removed"
        )
        parser.add_argument("--json", action="store_true")
        parser.add_argument("--out", help="Write the full JSON report (with per-question outputs) here")

    def handle(self, *args: Any, **opts: Any) -> None:
        root = self._root(opts)
        dataset = dataset_load(root, limit=opts["limit"])
        if not dataset.questions:
            raise CommandError("No knowledge-seeking questions with a gold doc in that set.")
        names = [opts["config"], *opts["compare"]]
        if opts["ablations"]:
            names += [n for n in ABLATIONS if n not in names]
        configs = {name: config_from(name) for name in names}
        k = configs[names[0]].k
        self.stderr.write(
            f"{dataset.name}: {len(dataset.questions)} questions, {len(dataset.entities())} businesses"
        )
        outcomes = evaluate(dataset, configs, unanswerable=opts["unanswerable"], progress=self.stderr.write)
        report: dict[str, Any] = {"dataset": dataset.name, "k": k, "configs": {}}
        for name in names:
            report["configs"][name] = {
                "options": configs[name].label(),
                **summarise(dataset, outcomes[name], k=k),
            }
            if name != names[0]:
                report["configs"][name]["vs_" + names[0]] = compare(outcomes[names[0]], outcomes[name], k=k)
        if opts["out"]:
            full = dict(report, questions={n: per_question(dataset, outcomes[n]) for n in names})
            Path(opts["out"]).write_text(json.dumps(full, indent=2))
        if opts["json"]:
            self.stdout.write(json.dumps(report, indent=2))
            return
        self._table(report, names, k)

    def _root(self, opts: dict[str, Any]) -> Path:
        if opts["root"]:
            return Path(opts["root"])
        if not (opts["knowledge"] and opts["logs"] and opts["labels"]):
            raise CommandError("Give --root DIR, or --knowledge, --logs and --labels.")
        tmp = Path(tempfile.mkdtemp(prefix="xorventa-eval-"))
        (tmp / "val").mkdir()
        shutil.copy(opts["knowledge"], tmp / "knowledge.json")
        shutil.copy(opts["logs"], tmp / "val" / "logs.json")
        shutil.copy(opts["labels"], tmp / "val" / "labels.json")
        return tmp

    def _table(self, report: dict[str, Any], names: list[str], k: int) -> None:
        self.stdout.write(f"\n{report['dataset']} (k={k})")
        head = (
            f"{'config':<14} {'hit@1':>20} {f'hit@{k}':>20} {'MRR':>6} {'p50 ms':>7} {'p95 ms':>7}  vs first"
        )
        self.stdout.write(head)
        for name in names:
            c = report["configs"][name]
            h1, hk = c["hit@1"], c[f"hit@{k}"]
            vs = c.get("vs_" + names[0])
            vs_text = (
                f"@1 +{vs['hit@1']['gained']}/-{vs['hit@1']['lost']} p={vs['hit@1']['p']}; "
                f"@{k} +{vs[f'hit@{k}']['gained']}/-{vs[f'hit@{k}']['lost']} p={vs[f'hit@{k}']['p']}"
                if vs
                else ""
            )
            self.stdout.write(
                f"{name:<14} {h1['value']:.3f} [{h1['ci95'][0]:.3f}-{h1['ci95'][1]:.3f}] "
                f"{hk['value']:.3f} [{hk['ci95'][0]:.3f}-{hk['ci95'][1]:.3f}] {c['mrr']:>6.3f} "
                f"{c['latency_ms']['median']:>7.1f} {c['latency_ms']['p95']:>7.1f}  {vs_text}"
            )
            if "unanswerable" in c:
                u = c["unanswerable"]
                self.stdout.write(f"{'':<14} unanswerable AUC {u['auc']} ({u['profile']})")
                for decision, r in u["flag_rates"].items():
                    self.stdout.write(
                        f"{'':<16}{decision:<12} t={r['threshold']:.3f} flags {r['flags_unanswerable']:.0%} of "
                        f"unanswerable (target {r['target_unanswerable']:.0%}), {r['flags_answerable']:.0%} of answerable"
                    )
