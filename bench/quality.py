"""quality: the retrieval evaluation and the scenario, so one report shows speed and quality together.

- DSTC9 and DSTC10 (../shared/eval, read at run time) through ``lab.evaluation`` exactly as
  ``manage.py eval_retrieval`` runs it: one throwaway business per entity loaded through the real
  ingestion path, each knowledge-seeking turn asked with its conversation. The full path and vector-only
  (the ``message-only`` ablation) are compared on the same questions (McNemar).
- The Sunny Bakery scenario (seed 000, Appendix A) through ``lab.scenario_runner``.
"""

from __future__ import annotations

from typing import Any

from bench.common import Context, eval_root, set_threads
from bench.report import Section

QUICK_LIMIT = 20


def run(ctx: Context) -> Section:
    from apps.retrieval.embedding import preload
    from apps.retrieval.search import RetrievalOptions
    from lab.evaluation import ABLATIONS, compare, dataset_load, evaluate, summarise
    from lab.scenario import scenario_load
    from lab.scenario_runner import scenario_run

    section = Section("quality", "retrieval quality (DSTC9, DSTC10) and the Sunny Bakery scenario")
    set_threads(1)
    preload()
    limit = QUICK_LIMIT if ctx.quick else None
    configs = {"full": RetrievalOptions(), "vector only": RetrievalOptions(**ABLATIONS["message-only"])}
    k = configs["full"].k
    table = section.table(
        f"Retrieval quality (hit@1, hit@{k} with 95% Wilson intervals; latency in ms, 1 torch thread)",
        [
            "set",
            "questions",
            "businesses",
            "path",
            "hit@1",
            f"hit@{k}",
            "MRR",
            "ms (median / p95)",
            "vs full",
        ],
    )
    data: dict[str, Any] = {}
    for name in ("dstc9", "dstc10"):
        root = eval_root() / name
        if not (root / "knowledge.json").exists():
            section.notes.append(f"{root} not found: {name} skipped.")
            continue
        dataset = dataset_load(root, limit=limit)
        ctx.log(f"  {name}: {len(dataset.questions)} questions in {len(dataset.entities())} businesses")
        outcomes = evaluate(dataset, configs)
        data[name] = {}
        for config in configs:
            summary = summarise(dataset, outcomes[config], k=k)
            versus = compare(outcomes["full"], outcomes[config], k=k) if config != "full" else None
            data[name][config] = {"summary": summary, "vs_full": versus}
            h1, hk = summary["hit@1"], summary[f"hit@{k}"]
            table.add(
                name,
                summary["questions"],
                len(dataset.entities()),
                config,
                f"{h1['value']:.3f} [{h1['ci95'][0]:.2f}-{h1['ci95'][1]:.2f}]",
                f"{hk['value']:.3f} [{hk['ci95'][0]:.2f}-{hk['ci95'][1]:.2f}]",
                f"{summary['mrr']:.3f}",
                f"{summary['latency_ms']['median']:.1f} / {summary['latency_ms']['p95']:.1f}",
                (
                    f"@1 +{versus['hit@1']['gained']}/-{versus['hit@1']['lost']} p={versus['hit@1']['p']}"
                    if versus
                    else ""
                ),
            )
    table.notes.append(
        "Hit = a fact of the gold FAQ doc is among the facts handed to the answerer, at the rank of the "
        "first kept piece carrying it; vs full = questions gained/lost against the full path, exact "
        "McNemar p. Command for the same figures: python manage.py eval_retrieval --root "
        "../shared/eval/dstc9 --compare message-only" + (f" --limit {QUICK_LIMIT}" if limit else "")
    )

    path = eval_root() / "scenarios" / "sunny_bakery.json"
    if path.exists():
        ctx.log("  scenario: sunny_bakery.json")
        scenario = scenario_load(path)
        report = scenario_run(scenario)
        columns = list(report.column_names)
        scen = section.table(
            f"Scenario: {report.name} ({len(report.questions)} questions after {len(scenario.events)} "
            "knowledge events)",
            ["column", "passed", "of"],
        )
        for column in columns:
            scen.add(column, report.passed(column), len(report.questions))
        scen.notes.append(
            f"knowledge = the facts rendered for the date, context = what retrieval hands the answerer, "
            f"answer = the built-in answerer's reply; disagreements recorded {report.disagreements} "
            f"(expected at least {report.expect_disagreements}). Same as python manage.py scenario {path}."
        )
        data["scenario"] = report.as_json()
    section.data = data
    return section
