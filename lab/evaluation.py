"""Retrieval evaluation on the DSTC format (shared/eval/dstc9, dstc10), the fair protocol of the README:

- one throwaway business per entity, loaded through the real ingestion path: each FAQ doc is an owner
  answer whose question is the doc's title, with the doc id kept as the source reference;
- each knowledge-seeking turn asked with its dialogue history through the whole query path;
- a hit means a fact from the gold doc reached the answerer (it is among the facts rendered into the
  context), at rank r = the position of the first kept piece that carries one of the gold facts;
- `unanswerable` asks again with the gold doc retired (inside a savepoint that is rolled back), giving
  the confidence of questions the knowledge cannot answer.
Several configurations run on the same loaded businesses, so they are compared on identical questions.
"""

from __future__ import annotations

import json
import secrets
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from django.db import transaction
from django_tenants.utils import tenant_context

from apps.facts.models import Evidence, Source
from apps.facts.services import owner_answer_record, source_retire
from apps.facts.signals import topics_batched
from apps.retrieval import embedding
from apps.retrieval.embedding import model_id
from apps.retrieval.search import RetrievalOptions, remember_turn, retrieve
from apps.retrieval.stats import auc, flag_rates, mcnemar_exact, percentiles, wilson_interval
from apps.retrieval.thresholds import TARGET_FLAG_RATES, builtin_profile
from apps.tenants.db import use_public_schema
from apps.tenants.models import Reseller
from apps.tenants.services import business_create, business_delete

EVAL_RESELLER = "xorventa-system"
EVAL_DAY = date(2026, 11, 2)


@dataclass(frozen=True)
class Question:
    index: int
    domain: str
    entity_id: str
    doc_id: str
    message: str
    history: tuple[str, ...]


@dataclass
class Outcome:
    rank: int | None  # 1-based rank of the first kept piece with a gold fact; None when missed
    top_similarity: float  # the message's own best match
    confidence: float  # the signal the decisions use
    latency_ms: float
    kept: list[str]
    unanswerable_top: float | None = None
    unanswerable_confidence: float | None = None
    signals: dict[str, float] = field(default_factory=dict)
    unanswerable_signals: dict[str, float] = field(default_factory=dict)
    decisions: dict[str, bool] = field(default_factory=dict)


@dataclass
class Dataset:
    name: str
    knowledge: dict[str, Any]
    questions: list[Question]

    def entities(self) -> list[tuple[str, str]]:
        return sorted({(q.domain, q.entity_id) for q in self.questions})


def dataset_load(root: Path, *, limit: int | None = None) -> Dataset:
    """Read a DSTC folder: knowledge.json and (val or val_subset)/logs.json + labels.json."""
    knowledge = json.loads((root / "knowledge.json").read_text())
    split = next(
        (root / name for name in ("val_subset", "val", "test") if (root / name / "labels.json").exists()),
        None,
    )
    if split is None:
        raise FileNotFoundError(f"No val/ or val_subset/ with logs.json and labels.json under {root}")
    logs = json.loads((split / "logs.json").read_text())
    labels = json.loads((split / "labels.json").read_text())
    questions = []
    for index, (log, label) in enumerate(zip(logs, labels, strict=True)):
        if not label.get("target") or not label.get("knowledge"):
            continue
        gold = label["knowledge"][0]
        domain, entity, doc = gold["domain"], str(gold["entity_id"]), str(gold["doc_id"])
        if entity not in knowledge.get(domain, {}) or doc not in knowledge[domain][entity]["docs"]:
            continue
        turns = [t["text"] for t in log]
        questions.append(
            Question(
                index=index,
                domain=domain,
                entity_id=entity,
                doc_id=doc,
                message=turns[-1],
                history=tuple(turns[:-1]),
            )
        )
    if limit:
        questions = questions[:limit]
    return Dataset(name=root.name, knowledge=knowledge, questions=questions)


def doc_ref(domain: str, entity: str, doc: str) -> str:
    return f"dstc:{domain}:{entity}:{doc}"


def _load_entity(dataset: Dataset, domain: str, entity: str) -> None:
    record = dataset.knowledge[domain][entity]
    with topics_batched():
        for doc_id, doc in record["docs"].items():
            owner_answer_record(
                question=doc["title"], answer=doc["body"], ref=doc_ref(domain, entity, doc_id)
            )


def _gold_fact_ids(ref: str) -> set[int]:
    return set(Evidence.objects.filter(source__ref=ref).values_list("fact_id", flat=True))


def _rank(result: Any, gold: set[int]) -> int | None:
    """1-based rank of the first kept piece carrying a gold fact that was rendered into the context."""
    received = gold.intersection(result.fact_ids)
    for rank, hit in enumerate(result.hits, start=1):
        if received.intersection(hit.fact_ids):
            return rank
    return None


def _as_in_chat(question: Question) -> None:
    """Set the stage a live turn finds: nothing of this message embedded yet (other configurations
    asked it before), and the earlier turns embedded when they happened (chat warms each reply)."""
    embedding.forget_recent()
    for turn in question.history:
        remember_turn(turn)


def _ask(question: Question, options: RetrievalOptions) -> Outcome:
    _as_in_chat(question)
    started = time.perf_counter()
    result = retrieve(question.message, on=EVAL_DAY, history=question.history, options=options)
    latency = (time.perf_counter() - started) * 1000
    gold = _gold_fact_ids(doc_ref(question.domain, question.entity_id, question.doc_id))
    return Outcome(
        rank=_rank(result, gold),
        top_similarity=result.top_similarity,
        confidence=result.confidence,
        signals=result.log.get("signals", {}),
        latency_ms=latency,
        kept=[h.title for h in result.hits],
        decisions=result.decisions,
    )


def _ask_without_gold(question: Question, options: RetrievalOptions) -> tuple[float, float, dict[str, float]]:
    source = Source.objects.get(ref=doc_ref(question.domain, question.entity_id, question.doc_id))
    with transaction.atomic():
        source_retire(source=source, reason="evaluation: gold removed")
        result = retrieve(question.message, on=EVAL_DAY, history=question.history, options=options)
        transaction.set_rollback(True)
    return result.top_similarity, result.confidence, result.log.get("signals", {})


def evaluate(
    dataset: Dataset,
    configs: dict[str, RetrievalOptions],
    *,
    unanswerable: bool = False,
    progress: Callable[[str], None] | None = None,
) -> dict[str, list[Outcome]]:
    """Run every configuration on every question; one throwaway business per entity."""
    reseller = Reseller.objects.filter(slug=EVAL_RESELLER).first() or Reseller.objects.create(
        name="Xorventa tools", slug=EVAL_RESELLER, show_powered_by=False
    )
    by_entity: dict[tuple[str, str], list[Question]] = defaultdict(list)
    for q in dataset.questions:
        by_entity[(q.domain, q.entity_id)].append(q)
    outcomes: dict[str, dict[int, Outcome]] = {name: {} for name in configs}
    for n, ((domain, entity), questions) in enumerate(sorted(by_entity.items()), start=1):
        name = dataset.knowledge[domain][entity].get("name") or domain
        business = business_create(
            reseller=reseller, name=str(name)[:100], slug=f"eval-{secrets.token_hex(5)}"
        )
        try:
            with tenant_context(business):
                _load_entity(dataset, domain, entity)
                for config_name, options in configs.items():
                    for q in questions:
                        outcome = _ask(q, options)
                        if unanswerable:
                            (
                                outcome.unanswerable_top,
                                outcome.unanswerable_confidence,
                                outcome.unanswerable_signals,
                            ) = _ask_without_gold(q, options)
                        outcomes[config_name][q.index] = outcome
        finally:
            use_public_schema()
            business_delete(business=business)
        if progress:
            progress(f"[{n}/{len(by_entity)}] {domain} {name}: {len(questions)} questions")
    order = [q.index for q in dataset.questions]
    return {name: [outcomes[name][i] for i in order] for name in configs}


def _rate(k: int, n: int) -> dict[str, Any]:
    lo, hi = wilson_interval(k, n)
    return {"value": round(k / n, 3) if n else 0.0, "ci95": [round(lo, 3), round(hi, 3)], "k": k, "n": n}


def summarise(dataset: Dataset, outcomes: list[Outcome], *, k: int) -> dict[str, Any]:
    n = len(outcomes)
    hit1 = sum(1 for o in outcomes if o.rank == 1)
    hitk = sum(1 for o in outcomes if o.rank is not None and o.rank <= k)
    mrr = sum(1 / o.rank for o in outcomes if o.rank) / n if n else 0.0
    latencies = [o.latency_ms for o in outcomes]
    p50, p95 = percentiles(latencies, [50, 95]) if latencies else (0.0, 0.0)
    summary: dict[str, Any] = {
        "questions": n,
        "hit@1": _rate(hit1, n),
        f"hit@{k}": _rate(hitk, n),
        "mrr": round(mrr, 3),
        "latency_ms": {"median": round(p50, 1), "p95": round(p95, 1)},
    }
    by_domain: dict[str, list[Outcome]] = defaultdict(list)
    for q, o in zip(dataset.questions, outcomes, strict=True):
        by_domain[q.domain].append(o)
    summary["per_domain"] = {
        d: {
            "n": len(os),
            "hit@1": round(sum(1 for o in os if o.rank == 1) / len(os), 3),
            f"hit@{k}": round(sum(1 for o in os if o.rank and o.rank <= k) / len(os), 3),
        }
        for d, os in sorted(by_domain.items())
    }
    gone = [o.unanswerable_confidence for o in outcomes if o.unanswerable_confidence is not None]
    if gone:
        summary["unanswerable"] = unanswerable_summary([o.confidence for o in outcomes], gone)
        summary["unanswerable"]["auc_top_similarity_alone"] = round(
            auc(
                [o.top_similarity for o in outcomes],
                [o.unanswerable_top for o in outcomes if o.unanswerable_top is not None],
            ),
            3,
        )
    return summary


def unanswerable_summary(answerable: Sequence[float], unanswerable: Sequence[float]) -> dict[str, Any]:
    profile = builtin_profile(model_id())
    rates = {}
    for decision in TARGET_FLAG_RATES:
        if decision == "new_question":
            continue
        flags_unans, flags_ans = flag_rates(answerable, unanswerable, profile[decision])
        rates[decision] = {
            "threshold": round(profile[decision], 4),
            "flags_unanswerable": round(flags_unans, 3),
            "flags_answerable": round(flags_ans, 3),
            "target_unanswerable": TARGET_FLAG_RATES[decision],
        }
    # AUC: how well the confidence separates answerable (higher) from gold-removed questions.
    return {
        "auc": round(auc(answerable, unanswerable), 3),
        "answerable": len(answerable),
        "unanswerable": len(unanswerable),
        "flag_rates": rates,
        "profile": profile.origin,
    }


def compare(base: list[Outcome], other: list[Outcome], *, k: int) -> dict[str, Any]:
    """Paired comparison on the same questions: gained / lost / exact McNemar p (hit@1 and hit@k)."""
    result = {}
    for label, ok in (
        ("hit@1", lambda o: o.rank == 1),
        (f"hit@{k}", lambda o: o.rank is not None and o.rank <= k),
    ):
        gained = sum(1 for a, b in zip(base, other, strict=True) if not ok(a) and ok(b))
        lost = sum(1 for a, b in zip(base, other, strict=True) if ok(a) and not ok(b))
        result[label] = {"gained": gained, "lost": lost, "p": round(mcnemar_exact(gained, lost), 4)}
    return result


def per_question(dataset: Dataset, outcomes: list[Outcome]) -> list[dict[str, Any]]:
    return [
        {
            "index": q.index,
            "domain": q.domain,
            "entity": q.entity_id,
            "gold_doc": q.doc_id,
            "message": q.message,
            "history_tail": list(q.history[-2:]),
            "rank": o.rank,
            "top_similarity": round(o.top_similarity, 4),
            "confidence": round(o.confidence, 4),
            "signals": o.signals,
            "unanswerable_top": None if o.unanswerable_top is None else round(o.unanswerable_top, 4),
            "unanswerable_signals": o.unanswerable_signals,
            "kept": o.kept,
            "latency_ms": round(o.latency_ms, 1),
        }
        for q, o in zip(dataset.questions, outcomes, strict=True)
    ]


ABLATIONS: dict[str, dict[str, Any]] = {
    "full": {},
    "message-only": {
        "two_pass": False,
        "repair": False,
        "kind_leg": False,
        "keyword": "off",
        "diversity": False,
    },
    "no-two-pass": {"two_pass": False},
    "no-repair": {"repair": False},
    "no-kind": {"kind_leg": False},
    "keyword-on": {"keyword": "on"},
    "no-diversity": {"diversity": False},
    "keep-fillers": {"clean_fillers": False},
    "text-blend": {"blend": "text"},  # the blended pass embeds the joined texts (session 2)
    "discount-subjectless": {"subjectless_follow_ups": False},  # session 3's rule for every message
}


def config_from(spec: str) -> RetrievalOptions:
    """'full', an ablation name, or comma-separated overrides: 'two_pass=false,k=4'."""
    if spec in ABLATIONS:
        return RetrievalOptions(**ABLATIONS[spec])
    overrides: dict[str, Any] = {}
    defaults = RetrievalOptions()
    for item in filter(None, spec.split(",")):
        key, _, raw = item.partition("=")
        current = getattr(defaults, key)
        if isinstance(current, bool):
            overrides[key] = raw.lower() in {"1", "true", "on", "yes"}
        elif isinstance(current, int):
            overrides[key] = int(raw)
        elif isinstance(current, float):
            overrides[key] = float(raw)
        else:
            overrides[key] = raw
    return RetrievalOptions(**overrides)
