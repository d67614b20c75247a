"""subjects: calibrate and measure the subject matcher (apps.facts.subjects). Development only.

    python -m bench.subjects                  # figures on bench/subject_pairs.tsv
    python -m bench.subjects --write-profile  # ... and write the chosen threshold for the product
    python -m bench.subjects --cost           # also: the matcher's cost per ingested part (needs the DB)

The pairs are split by a hash of the pair into thirds: the threshold is tuned on two thirds (highest
accuracy; ties go to the higher threshold, since a wrong merge retires a true fact) and reported on the
held-out third, beside two baselines: head nouns alone (no provider) and the embedding alone
(similarity >= threshold, no head-noun rules).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import date
from pathlib import Path

PAIRS = Path(__file__).with_name("subject_pairs.tsv")
MIN_PRECISION = 0.84
GRID = [round(0.30 + 0.01 * i, 2) for i in range(66)]  # 0.30 .. 0.95


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    same: bool
    kind: str

    @property
    def held_out(self) -> bool:
        return int(hashlib.sha256(f"{self.a}\t{self.b}".encode()).hexdigest(), 16) % 3 == 0


def read_pairs(path: Path = PAIRS) -> list[Pair]:
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#") or line.startswith("pair_a\t"):
            continue
        a, b, same, kind = line.split("\t")
        pairs.append(Pair(a.strip(), b.strip(), same.strip() == "1", kind.strip()))
    return pairs


def scores(decided: list[bool], pairs: list[Pair]) -> dict[str, float]:
    tp = sum(1 for d, p in zip(decided, pairs, strict=True) if d and p.same)
    fp = sum(1 for d, p in zip(decided, pairs, strict=True) if d and not p.same)
    fn = sum(1 for d, p in zip(decided, pairs, strict=True) if not d and p.same)
    right = sum(1 for d, p in zip(decided, pairs, strict=True) if d == p.same)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return {"accuracy": right / len(pairs), "precision": precision, "recall": recall, "merges": tp + fp}


def line(name: str, s: dict[str, float]) -> str:
    return (
        f"  {name:<34} accuracy {s['accuracy']:.3f}  precision {s['precision']:.3f}  "
        f"recall {s['recall']:.3f}  ({int(s['merges'])} merges)"
    )


def calibrate(write_profile: bool) -> dict[str, object]:
    from apps.facts.subjects import Thresholds, analyse, decide, similarities
    from apps.retrieval.subject_similarity import EmbeddingSimilarity, profile_path

    pairs = read_pairs()
    provider = EmbeddingSimilarity()
    t0 = time.perf_counter()
    phrases = [(analyse(p.a), analyse(p.b)) for p in pairs]
    parse_ms = (time.perf_counter() - t0) * 1000 / len(pairs)
    t0 = time.perf_counter()
    sims = [similarities(provider, a, [b])[0] for a, b in phrases]
    embed_ms = (time.perf_counter() - t0) * 1000 / len(pairs)

    def matcher(limits: Thresholds | None, subset: list[int]) -> list[bool]:
        if limits is None:
            return [decide(*phrases[i], None, None).same for i in subset]
        return [decide(*phrases[i], sims[i], limits).same for i in subset]

    tune = [i for i, p in enumerate(pairs) if not p.held_out]
    held = [i for i, p in enumerate(pairs) if p.held_out]
    tune_pairs, held_pairs = [pairs[i] for i in tune], [pairs[i] for i in held]
    # Three thresholds, searched together on the tune set. A wrong merge hides a true fact (the other
    # item's price becomes a disagreement, or is retired), a missed one leaves an old value beside a
    # new one that the owner can still see and merge: so precision comes first. Among the triples
    # whose tune precision reaches MIN_PRECISION, the most accurate wins; ties go to the higher
    # thresholds.
    best, best_key = Thresholds(GRID[-1], GRID[-1], GRID[-1]), (False, -1.0, -1.0)
    for t in GRID[::2]:
        for q in GRID[::2]:
            for y in GRID[::2]:
                limits = Thresholds(t, q, y)
                tuned = scores(matcher(limits, tune), tune_pairs)
                key = (tuned["precision"] >= MIN_PRECISION, tuned["accuracy"], tuned["precision"])
                if key >= best_key:
                    best, best_key = limits, key
    best_acc = best_key[1]
    emb_t, emb_acc = GRID[0], -1.0
    for t in GRID:
        acc = scores([sims[i].names >= t for i in tune], tune_pairs)["accuracy"]
        if acc >= emb_acc:
            emb_t, emb_acc = t, acc

    counts = Counter(p.same for p in pairs)
    print(
        f"{len(pairs)} pairs ({counts[True]} same, {counts[False]} apart); tune {len(tune)}, held out {len(held)}"
    )
    print(
        f"model {provider.name}; parse {parse_ms:.2f} ms/pair, embedding {embed_ms:.2f} ms/pair (both cold)"
    )
    chosen = f"names {best.names:.2f}, one-sided qualifier {best.qualified:.2f}, synonymous qualifiers {best.synonyms:.2f}"
    print(f"\nTune set ({chosen}), each threshold moved alone:")
    for t in GRID[::5]:
        print(
            line(
                f"names {t:.2f}",
                scores(matcher(Thresholds(t, best.qualified, best.synonyms), tune), tune_pairs),
            )
        )
    for q in GRID[::5]:
        print(
            line(
                f"one-sided qualifier {q:.2f}",
                scores(matcher(Thresholds(best.names, q, best.synonyms), tune), tune_pairs),
            )
        )
    for y in GRID[::5]:
        print(
            line(
                f"synonymous qualifiers {y:.2f}",
                scores(matcher(Thresholds(best.names, best.qualified, y), tune), tune_pairs),
            )
        )
    held_scores = scores(matcher(best, held), held_pairs)
    print(f"\nHeld-out third ({chosen}; tune accuracy {best_acc:.3f}):")
    print(line("matcher (head nouns + embedding)", held_scores))
    print(line("head nouns alone (no provider)", scores(matcher(None, held), held_pairs)))
    print(
        line(f"embedding alone (>= {emb_t:.2f})", scores([sims[i].names >= emb_t for i in held], held_pairs))
    )

    by_kind: dict[str, list[int]] = defaultdict(list)
    for i in held:
        by_kind[pairs[i].kind].append(i)
    print("\nHeld-out, by kind (matcher):")
    for kind, idx in sorted(by_kind.items()):
        decided = matcher(best, idx)
        right = sum(1 for d, i in zip(decided, idx, strict=True) if d == pairs[i].same)
        print(f"  {kind:<12} {right}/{len(idx)}")
    print("\nHeld-out errors:")
    for i in held:
        found = decide(*phrases[i], sims[i], best)
        if found.same != pairs[i].same:
            label = "same" if pairs[i].same else "apart"
            print(
                f"  [{label}] {pairs[i].a!r} / {pairs[i].b!r}: {found.method}, {found.similarity:.2f} ({found.reason})"
            )

    result: dict[str, object] = {
        "model": provider.name,
        "threshold": best.names,
        "qualifier_threshold": best.qualified,
        "synonym_threshold": best.synonyms,
        "calibrated_on": f"bench/subject_pairs.tsv ({len(tune)} pairs tuned, {len(held)} held out) on {date.today()}",
        "held_out": {k: round(v, 4) for k, v in held_scores.items()},
        "tune_accuracy": round(best_acc, 4),
        "command": "python -m bench.subjects --write-profile",
    }
    if write_profile:
        path = profile_path(provider.name)
        path.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        print(f"\nwrote {path}")
    return result


def cost() -> None:
    """The matcher's cost per ingested part: every part of a few businesses' pages goes through the
    real path (source_ingest with the built-in extractor) in a throwaway business; the time spent in
    the matching step is measured around services._meaning_subject."""
    from apps.facts import services
    from apps.facts.extraction.builtin import BuiltinExtractor
    from apps.facts.signals import topics_batched
    from apps.facts.subjects import compare, similarity_provider
    from bench.common import Context
    from bench.data import BUSINESSES

    spent = [0.0, 0]
    original = services._meaning_subject

    def timed(*args, **kwargs):  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - t0
            spent[1] += 1

    services._meaning_subject = timed  # type: ignore[assignment]
    ctx = Context()
    parts = 0
    wall = 0.0
    try:
        # Loading the models is a once-per-process cost, not a per-part one: warm them first.
        compare("warm-up cleanings", "warm up")
        similarity_provider().similarities("warm up", ["the model"])  # type: ignore[union-attr]
        for biz in BUSINESSES:
            with ctx.business(biz.name), topics_batched():
                t0 = time.perf_counter()
                for path, sentences in biz.pages.items():
                    result = services.source_ingest(
                        kind="website",
                        ref=f"https://bench.example{path}",
                        content="\n\n".join(sentences),
                        extractor=BuiltinExtractor(),
                    )
                    parts += result.version.parts_added
                wall += time.perf_counter() - t0
    finally:
        services._meaning_subject = original  # type: ignore[assignment]
        ctx.cleanup()
    print(
        f"\nCost: {parts} parts of {len(BUSINESSES)} businesses; matcher called {spent[1]} times, "
        f"{spent[0] * 1000 / max(parts, 1):.2f} ms per part ({spent[0] * 1000 / max(spent[1], 1):.2f} ms per call), "
        f"ingestion {wall * 1000 / max(parts, 1):.1f} ms per part in all"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--write-profile", action="store_true")
    parser.add_argument("--cost", action="store_true")
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "xorventa.settings")
    import django

    django.setup()
    calibrate(args.write_profile)
    if args.cost:
        cost()
    return 0


if __name__ == "__main__":
    sys.exit(main())
