"""retrieve: one full retrieval turn at 100 to 100,000 pieces in one business, single thread.

Data: realistic pieces built at run time from the DSTC10 FAQ knowledge (../shared/eval/dstc10, 668
businesses, 12,039 question/answer docs): each doc becomes one live fact (its question and answer, as
owner answers are indexed) of its business's topic, and pieces are whole fact lines packed to ~300, 600
and 900 characters, embedded with the topic name as title, exactly like ``apps.retrieval.index``.
Embedding 100k texts would take about an hour on this CPU, so ~5,000 distinct pieces are embedded once
(cached in XORVENTA_DATA_DIR/bench-cache/) and larger sets add synthetic pieces: the text of one real
piece with a vector mixed from it (55-80%) and another real piece of the same domain, plus a little
Gaussian noise, re-normalised (the vector a piece packing facts of both would roughly get). Rows are bulk-loaded with COPY with the
HNSW and full-text indexes dropped, then the indexes are rebuilt with the migration's own DDL.

Measured on the same data and queries (real DSTC9/10 visitor turns with their conversation):
- the full path (``retrieve`` with default options: two passes, repair, kind-of-fact, keyword for
  identifiers, diversity, rendering), and with every leg forced on (keyword on);
- vector only: ``retrieve`` with every extra leg off (one embedding, one vector query, rendering);
- Postgres full text only: one ranked ``@@`` query (no embedding, no rendering);
- HNSW recall@10 of the message vector against an exact scan (index scans disabled).
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import (
    Context,
    all_threads,
    cache_dir,
    dstc_knowledge,
    dstc_questions,
    eval_root,
    set_threads,
)
from bench.report import Section, stat

CORPUS_VERSION = 1
PACK_SIZES = (900, 600, 300)  # characters per piece, one packing of every business's docs each
DISTINCT_FULL = 5000
DISTINCT_QUICK = 500
MIX_WEIGHT = (0.55, 0.8)  # a synthetic piece's share of its main real piece (the rest: another one)
NOISE_COSINE = 0.98  # plus a little noise
SIZES_FULL = (100, 500, 1_000, 10_000, 50_000, 100_000)  # issue 4 names 500 / 50,000; issue 9 1,000 / 100,000
SIZES_QUICK = (100, 1_000)
QUERIES_FULL = 150
QUERIES_QUICK = 30
RECALL_QUERIES_FULL = 100
RECALL_QUERIES_QUICK = 20
INDEXES = ("piece_embedding_hnsw", "piece_search_gin")

Doc = tuple[str, str, str]  # domain, entity id, doc id


# ---------------------------------------------------------------------------------------------
# The corpus: pieces packed from the DSTC10 FAQ docs (read at run time, never stored in the repo)


@lru_cache(maxsize=1)
def piece_corpus() -> list[tuple[str, str, tuple[Doc, ...]]]:
    """(text, title, docs) of every distinct piece, in a fixed order whose prefixes mix businesses."""
    knowledge = dstc_knowledge("dstc10")
    entities = sorted((d, e) for d, ents in knowledge.items() for e in ents)
    rng = random.Random(20261129)
    corpus: list[tuple[str, str, tuple[Doc, ...]]] = []
    seen: set[str] = set()
    for variant, size in enumerate(PACK_SIZES):
        batch: list[tuple[str, str, tuple[Doc, ...]]] = []
        for domain, entity in entities:
            record = knowledge[domain][entity]
            title = entity_title(domain, record)
            docs = sorted(record["docs"].items(), key=lambda kv: int(kv[0]) if kv[0].isdigit() else 0)
            if variant:
                rng.shuffle(docs)
            group: list[tuple[str, str]] = []
            length = 0
            for doc_id, doc in docs:
                line = f"{doc['title'].strip()}\n{doc['body'].strip()}"
                if group and length + len(line) + 1 > size:
                    batch.append(_piece(title, group, domain, entity))
                    group, length = [], 0
                group.append((doc_id, line))
                length += len(line) + 1
            if group:
                batch.append(_piece(title, group, domain, entity))
        rng.shuffle(batch)
        for piece in batch:
            if piece[0] not in seen:
                seen.add(piece[0])
                corpus.append(piece)
    return corpus


def entity_title(domain: str, record: dict[str, Any]) -> str:
    name = str(record.get("name") or domain.title()).strip()
    return name.title()[:120] if name.isupper() else name[:120]


def _piece(
    title: str, group: list[tuple[str, str]], domain: str, entity: str
) -> tuple[str, str, tuple[Doc, ...]]:
    return ("\n".join(line for _, line in group), title, tuple((domain, entity, d) for d, _ in group))


def _cache_path() -> Path:
    from apps.retrieval.embedding import model_id

    source = eval_root() / "dstc10" / "knowledge.json"
    key = f"{CORPUS_VERSION}|{model_id()}|{source.stat().st_size}|{PACK_SIZES}"
    return cache_dir() / f"pieces-{hashlib.sha256(key.encode()).hexdigest()[:16]}.npy"


def corpus_vectors(n: int, ctx: Context) -> np.ndarray:
    """Vectors of the first n corpus pieces: read from the cache, the missing ones embedded and saved."""
    from apps.retrieval.embedding import get_embedder
    from apps.retrieval.index import embedding_text

    corpus = piece_corpus()
    n = min(n, len(corpus))
    path = _cache_path()
    have = np.load(path) if path.exists() else np.zeros((0, 384), dtype=np.float32)
    if len(have) >= n:
        return have[:n]
    threads = set_threads(all_threads())
    ctx.log(f"  embedding {n - len(have):,} corpus pieces once ({threads} threads; cached in {path})")
    embedder = get_embedder()
    started = time.perf_counter()
    step = 256
    for start in range(len(have), n, step):
        texts = [embedding_text(t, x) for x, t, _ in corpus[start : min(n, start + step)]]
        have = np.concatenate([have, embedder.embed_passages(texts)])
        tmp = path.with_suffix(".tmp.npy")
        np.save(tmp, have)
        tmp.replace(path)
        done = len(have)
        ctx.log(f"    {done:,}/{n:,} ({done / max(1e-6, time.perf_counter() - started):.0f}/s overall)")
    return have[:n]


# ---------------------------------------------------------------------------------------------
# Loading a business: facts for the docs, pieces by COPY, indexes rebuilt


class Loader:
    """Grows one business's index to a given number of pieces (the schema must be active)."""

    def __init__(self, ctx: Context, distinct: int) -> None:
        self.ctx = ctx
        self.corpus = piece_corpus()
        self.distinct = min(distinct, len(self.corpus))
        self.vectors: np.ndarray | None = None
        self.count = 0
        self.rng = np.random.default_rng(7)
        self.fact_ids: dict[Doc, int] = {}
        self.topic_ids: dict[tuple[str, str], int] = {}
        self.search_text: dict[int, str] = {}
        self.vector_text: dict[int, str] = {}
        self.knowledge = dstc_knowledge("dstc10")
        self.generation = 0
        self.index_ddl: dict[str, str] = {}

    def prepare(self) -> None:
        from apps.retrieval.index import index_state

        self.generation = index_state().generation
        self.vectors = corpus_vectors(self.distinct, self.ctx)
        set_threads(1)

    # -- facts ------------------------------------------------------------------------------------

    def _ensure_facts(self, entities: set[tuple[str, str]]) -> None:
        from django.db import transaction
        from django.utils import timezone

        from apps.facts.models import (
            Evidence,
            Fact,
            Source,
            SourceKind,
            SourceVersion,
            Topic,
            VersionOutcome,
        )

        missing = sorted(e for e in entities if e not in self.topic_ids)
        if not missing:
            return
        now = timezone.now()
        with transaction.atomic():
            sources = Source.objects.bulk_create(
                [
                    Source(kind=SourceKind.DOCUMENT, ref=f"dstc10:{d}:{e}", title=f"{d} {e}")
                    for d, e in missing
                ]
            )
            versions = SourceVersion.objects.bulk_create(
                [
                    SourceVersion(
                        source=s, content_hash="0" * 64, read_at=now, outcome=VersionOutcome.PROCESSED
                    )
                    for s in sources
                ]
            )
            topics = Topic.objects.bulk_create(
                [Topic(name=entity_title(d, self.knowledge[d][e]), key=f"dstc10:{d}:{e}") for d, e in missing]
            )
            facts: list[Fact] = []
            keys: list[Doc] = []
            owners: list[tuple[Source, SourceVersion]] = []
            for (d, e), source, version, topic in zip(missing, sources, versions, topics, strict=True):
                self.topic_ids[(d, e)] = topic.pk
                for doc_id, doc in self.knowledge[d][e]["docs"].items():
                    facts.append(
                        Fact(
                            topic=topic,
                            aspect=doc["title"][:200],
                            statement=doc["body"],
                            question=doc["title"],
                            learned_at=now,
                            source_kind=SourceKind.DOCUMENT,
                            origin=version,
                        )
                    )
                    keys.append((d, e, doc_id))
                    owners.append((source, version))
            made = Fact.objects.bulk_create(facts, batch_size=2000)
            Evidence.objects.bulk_create(
                [
                    Evidence(fact=f, source=s, version=v, kind=SourceKind.DOCUMENT, added_at=now)
                    for f, (s, v) in zip(made, owners, strict=True)
                ],
                batch_size=2000,
            )
            for key, fact in zip(keys, made, strict=True):
                self.fact_ids[key] = fact.pk

    # -- pieces -----------------------------------------------------------------------------------

    def _search_texts(self, bases: list[int]) -> None:
        from django.db import connection

        todo = [b for b in dict.fromkeys(bases) if b not in self.search_text]
        for start in range(0, len(todo), 1000):
            chunk = todo[start : start + 1000]
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT (setweight(to_tsvector('english', t), 'A') || to_tsvector('english', x))::text "
                    "FROM unnest(%s::text[], %s::text[]) WITH ORDINALITY AS u(t, x, i) ORDER BY i",
                    [[self.corpus[b][1] for b in chunk], [self.corpus[b][0] for b in chunk]],
                )
                for base, (text,) in zip(chunk, cursor.fetchall(), strict=True):
                    self.search_text[base] = text

    @staticmethod
    def _vec_text(vector: np.ndarray) -> str:
        return "[" + ",".join(f"{v:.6f}" for v in vector.tolist()) + "]"

    def _indexes(self, drop: bool) -> None:
        from django.db import connection

        with connection.cursor() as cursor:
            if not self.index_ddl:
                cursor.execute(
                    "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() "
                    "AND tablename = 'retrieval_piece' AND indexname = ANY(%s)",
                    [list(INDEXES)],
                )
                self.index_ddl = dict(cursor.fetchall())
            for name, ddl in self.index_ddl.items():
                if drop:
                    cursor.execute(f'DROP INDEX IF EXISTS "{name}"')
                else:
                    cursor.execute(ddl.replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS", 1))

    def grow(self, target: int) -> dict[str, float]:
        """Add pieces until the business has ``target``; returns the seconds of each loading step."""
        from django.db import connection

        from apps.retrieval.index import index_state, pieces_changed

        assert self.vectors is not None
        add = target - self.count
        if add <= 0:
            return {}
        bases = [
            i if i < self.distinct else int(self.rng.integers(self.distinct))
            for i in range(self.count, target)
        ]
        noisy = [i >= self.distinct for i in range(self.count, target)]
        steps: dict[str, float] = {}
        t0 = time.perf_counter()
        entities = {(d, e) for b in set(bases) for d, e, _ in self.corpus[b][2]}
        self._ensure_facts(entities)
        self._search_texts(bases)
        steps["facts_and_tsvector_s"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        sigma = np.sqrt(1 / NOISE_COSINE**2 - 1) / np.sqrt(self.vectors.shape[1])
        by_domain: dict[str, list[int]] = {}
        for i in range(self.distinct):
            by_domain.setdefault(self.corpus[i][2][0][0], []).append(i)
        rows: list[tuple[Any, ...]] = []
        for base, is_copy in zip(bases, noisy, strict=True):
            text, title, docs = self.corpus[base]
            if is_copy:
                # A synthetic piece: mostly one real piece, partly another of the same domain (as a piece
                # that packs facts of both would embed), plus noise; it keeps the main piece's text.
                same = by_domain[docs[0][0]]
                partner = same[int(self.rng.integers(len(same)))]
                weight = self.rng.uniform(*MIX_WEIGHT)
                vec = weight * self.vectors[base] + (1 - weight) * self.vectors[partner]
                vec = vec / np.linalg.norm(vec)
                vec = vec + self.rng.normal(0.0, sigma, vec.shape[0]).astype(np.float32)
                vtext = self._vec_text(vec / np.linalg.norm(vec))
            else:
                vtext = self.vector_text.get(base) or self._vec_text(self.vectors[base])
                self.vector_text[base] = vtext
            d, e, _ = docs[0]
            rows.append(
                (
                    self.generation,
                    self.topic_ids[(d, e)],
                    0,
                    "visitor",
                    False,
                    title,
                    text,
                    json.dumps([self.fact_ids[doc] for doc in docs]),
                    vtext,
                    self.search_text[base],
                )
            )
        steps["prepare_rows_s"] = time.perf_counter() - t0

        self._indexes(drop=True)
        t0 = time.perf_counter()
        with (
            connection.cursor() as cursor,
            cursor.copy(
                "COPY retrieval_piece (generation, topic_id, position, audience, topic_has_internal, title, "
                "text, fact_ids, embedding, search) FROM STDIN"
            ) as copy,
        ):
            for row in rows:
                copy.write_row(row)
        steps["copy_s"] = time.perf_counter() - t0
        pieces_changed(index_state())  # as the product's own indexing does after a change
        with connection.cursor() as cursor:
            cursor.execute("SET maintenance_work_mem = '512MB'")
            for name in INDEXES:
                t0 = time.perf_counter()
                ddl = self.index_ddl[name]
                cursor.execute(ddl.replace("CREATE INDEX", "CREATE INDEX IF NOT EXISTS", 1))
                steps[f"index_{'hnsw' if 'hnsw' in name else 'gin'}_s"] = time.perf_counter() - t0
            cursor.execute("RESET maintenance_work_mem")
            t0 = time.perf_counter()
            cursor.execute("ANALYZE retrieval_piece")
            steps["analyze_s"] = time.perf_counter() - t0
        self.count = target
        return {k: round(v, 2) for k, v in steps.items()}


# ---------------------------------------------------------------------------------------------
# Measurements


FTS_SQL = (
    "SELECT id, title, text FROM retrieval_piece, "
    "(SELECT replace(plainto_tsquery('english', %s)::text, '&', '|')::tsquery AS q) AS query "
    "WHERE generation = %s AND audience = 'visitor' AND (expires_on IS NULL OR expires_on >= %s) "
    "AND search @@ q ORDER BY ts_rank_cd(search, q) DESC LIMIT 4"
)


def fulltext_only(message: str, generation: int, on: date) -> list[int]:
    """What a plain keyword search box would do: any of the message's stems, ranked, top 4."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(FTS_SQL, [message, generation, on])
        return [row[0] for row in cursor.fetchall()]


def _ann_and_exact(
    vector: Any, generation: int, on: date
) -> tuple[list[int], list[int], list[int], float, float]:
    """Top 10 by the index as the product queries it (ef_search XORVENTA_HNSW_EF_SEARCH), by an exact
    scan, and by the index at pgvector's default ef_search of 40."""
    from django.db import connection, transaction

    from apps.retrieval.search import _vector_search

    t0 = time.perf_counter()
    ann = [
        p.pk for p, _ in _vector_search(vector, generation=generation, audience="visitor", on=on, limit=10)
    ]
    t1 = time.perf_counter()
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_indexscan = off")
            cursor.execute("SET LOCAL enable_bitmapscan = off")
        t2 = time.perf_counter()
        exact = [
            p.pk
            for p, _ in _vector_search(vector, generation=generation, audience="visitor", on=on, limit=10)
        ]
        t3 = time.perf_counter()
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL hnsw.ef_search = 40")
        at40 = [
            p.pk
            for p, _ in _vector_search(vector, generation=generation, audience="visitor", on=on, limit=10)
        ]
    return ann, exact, at40, (t1 - t0) * 1000, (t3 - t2) * 1000


def _uses_index(vector: Any, generation: int, on: date) -> bool:
    from django.db.models import Q
    from pgvector.django import CosineDistance

    from apps.retrieval.models import Piece

    qs = (
        Piece.objects.filter(audience="visitor", generation=generation)
        .filter(Q(expires_on__isnull=True) | Q(expires_on__gte=on))
        .annotate(distance=CosineDistance("embedding", vector))
        .order_by("distance")[:16]
    )
    return "piece_embedding_hnsw" in qs.explain()


def measure_size(
    size: int,
    queries: list[tuple[str, tuple[str, ...]]],
    vectors: dict[str, Any],
    recall_n: int,
    generation: int,
) -> dict[str, Any]:
    from apps.retrieval import embedding, search
    from apps.retrieval.index import index_state
    from apps.retrieval.search import RetrievalOptions, remember_turn, retrieve
    from lab.evaluation import ABLATIONS

    on = date.today()
    configs = {
        "full": RetrievalOptions(),
        "full, earlier turns cold": RetrievalOptions(),
        "all legs on": RetrievalOptions(keyword="on"),
        "vector only": RetrievalOptions(**ABLATIONS["message-only"]),
    }
    # The spelling-repair vocabulary is built from the whole index once per index change.
    search._vocabularies.clear()
    t0 = time.perf_counter()
    state = index_state()
    search._vocabulary(search.index_key(state.built_at, generation, state.revision))
    vocab_ms = (time.perf_counter() - t0) * 1000
    for message, history in queries[:8]:  # warm-up: caches, buffers
        for options in configs.values():
            retrieve(message, on=on, history=history, options=options)
        fulltext_only(message, generation, on)

    latencies: dict[str, list[float]] = {name: [] for name in [*configs, "full text only"]}
    steps: dict[str, list[float]] = {}
    legs = {"repair": 0, "own_words": 0, "contextual": 0, "kind": 0, "keyword": 0}
    kept = []
    variants = [*configs, "full text only"]
    for n, (message, history) in enumerate(queries):
        # Interleaved, in a rotating order: a load spike, or the cache left cold by the previous
        # variant's query, falls on every variant alike.
        for name in variants[n % len(variants) :] + variants[: n % len(variants)]:
            # As in chat: the message has not been embedded yet, the earlier turns were when they
            # happened (chat embeds each reply after sending it); "cold" times them being embedded too.
            embedding.forget_recent()
            if name != "full, earlier turns cold":
                for turn in history:
                    remember_turn(turn)
            started = time.perf_counter()
            if name == "full text only":
                fulltext_only(message, generation, on)
                latencies[name].append((time.perf_counter() - started) * 1000)
                continue
            result = retrieve(message, on=on, history=history, options=configs[name])
            latencies[name].append((time.perf_counter() - started) * 1000)
            if name == "full":
                timings = result.log["timings_ms"]
                for step, ms in timings.items():
                    steps.setdefault(step, []).append(ms)
                for leg in legs:
                    legs[leg] += int(leg in timings)
                kept.append(len(result.hits))

    recalls, recalls_default, ann_ms, exact_ms = [], [], [], []
    for message, _ in queries[:recall_n]:
        ann, exact, at40, a_ms, e_ms = _ann_and_exact(vectors[message], generation, on)
        if exact:
            recalls.append(len(set(ann) & set(exact)) / len(exact))
            recalls_default.append(len(set(at40) & set(exact)) / len(exact))
        ann_ms.append(a_ms)
        exact_ms.append(e_ms)
    return {
        "pieces": size,
        "latency_ms": {name: stat(values) for name, values in latencies.items()},
        "steps_ms": {step: stat(values) for step, values in steps.items()},
        "legs_fired": {leg: round(n / len(queries), 3) for leg, n in legs.items()},
        "recall_at_10": stat(recalls),
        "recall_at_10_ef40": stat(recalls_default),
        "ann_ms": stat(ann_ms),
        "exact_ms": stat(exact_ms),
        "hnsw_used": _uses_index(vectors[queries[0][0]], generation, on),
        "vocabulary_build_ms": round(vocab_ms, 1),
        "kept_per_turn": stat(kept),
        "queries": len(queries),
    }


def run(ctx: Context) -> Section:
    from django.conf import settings

    from apps.retrieval.embedding import get_embedder

    section = Section("retrieve", "one retrieval turn vs. index size (one business, 1 torch thread)")
    sizes = SIZES_QUICK if ctx.quick else SIZES_FULL
    queries = dstc_questions(QUERIES_QUICK if ctx.quick else QUERIES_FULL)
    recall_n = RECALL_QUERIES_QUICK if ctx.quick else RECALL_QUERIES_FULL
    distinct = DISTINCT_QUICK if ctx.quick else DISTINCT_FULL
    loader = Loader(ctx, distinct)
    results: list[dict[str, Any]] = []
    loads: dict[int, dict[str, float]] = {}
    with ctx.business("Bench retrieval") as business:
        loader.prepare()
        set_threads(1)
        embedder = get_embedder()
        vectors = {m: embedder.embed_query(m) for m, _ in queries[:recall_n]}
        for size in sizes:
            ctx.log(f"  loading {size:,} pieces into {business.schema_name}")
            loads[size] = loader.grow(size)
            ctx.log(f"  measuring at {size:,} pieces ({len(queries)} questions x 4 variants)")
            results.append(measure_size(size, queries, vectors, recall_n, loader.generation))

    lat = section.table(
        "One retrieval turn, ms (median / p95), embedding included, 1 torch thread",
        [
            "pieces",
            "full path",
            "full, earlier turns cold",
            "all legs on",
            "vector only",
            "full text only",
            "full / vector",
            "full / text",
        ],
    )
    for r in results:
        m = r["latency_ms"]
        lat.add(
            f"{r['pieces']:,}",
            m["full"],
            m["full, earlier turns cold"],
            m["all legs on"],
            m["vector only"],
            m["full text only"],
            f"{m['full'].median / max(1e-9, m['vector only'].median):.2f}x",
            f"{m['full'].median / max(1e-9, m['full text only'].median):.1f}x",
        )
    lat.notes += [
        f"{len(queries)} real visitor turns (DSTC10 spoken + DSTC9 written) with their conversation, "
        "each asked once per variant, variants interleaved in a rotating order.",
        "full path = default RetrievalOptions (two passes, repair when weak, kind-of-fact, keyword only for "
        "identifiers, diversity, rendering of the kept facts), the earlier turns' vectors ready as in chat "
        "(each turn is embedded when it happens; chat embeds a reply after sending it); earlier turns cold = "
        "the same with those vectors computed inside the turn; all legs on = keyword leg forced too; "
        "vector only = retrieve() with two_pass, repair, kind_leg, keyword and diversity off; full text "
        "only = one ranked Postgres @@ query (any stem of the message, ts_rank_cd, top 4), no embedding.",
    ]

    rec = section.table(
        f"HNSW (m=16, ef_construction=64, ef_search={settings.XORVENTA_HNSW_EF_SEARCH or 40}) vs exact scan, "
        "top 10 of the message vector",
        [
            "pieces",
            "recall@10 (median / p95)",
            "mean recall@10",
            "mean at ef_search=40 (pgvector default)",
            "HNSW ms",
            "exact scan ms",
            "planner uses HNSW",
        ],
    )
    for r in results:
        rc = r["recall_at_10"]
        rec.add(
            f"{r['pieces']:,}",
            f"{rc.median:.2f} / {rc.p95:.2f}",
            f"{rc.mean:.3f} (min {rc.min:.1f})",
            f"{r['recall_at_10_ef40'].mean:.3f}",
            r["ann_ms"],
            r["exact_ms"],
            "yes" if r["hnsw_used"] else "no (seq scan)",
        )
    rec.notes.append(
        "Through the product's own query (filters on generation, audience and end date); exact = the same "
        "query with index and bitmap scans disabled. Below a few thousand rows the planner scans, so "
        "recall is exact by construction."
    )

    step_names = [
        "embed_message",
        "search_message",
        "repair",
        "own_words_check",
        "own_words",
        "contextual",
        "kind",
        "keyword",
        "combine",
        "render",
    ]
    steps = section.table(
        "Where a full-path turn spends its time, ms (median / p95; a step is counted only when it ran)",
        ["pieces", *step_names, "legs fired (share of turns)"],
    )
    for r in results:
        fired = ", ".join(f"{k} {v:.0%}" for k, v in r["legs_fired"].items())
        steps.add(f"{r['pieces']:,}", *[r["steps_ms"].get(s, "-") for s in step_names], fired)

    load = section.table(
        "Loading (bulk COPY, then index builds), seconds",
        [
            "pieces added up to",
            "facts + tsvector",
            "rows",
            "COPY",
            "HNSW build",
            "GIN build",
            "vocabulary build (ms)",
        ],
    )
    for r in results:
        s = loads.get(r["pieces"], {})
        load.add(
            f"{r['pieces']:,}",
            s.get("facts_and_tsvector_s", "-"),
            s.get("prepare_rows_s", "-"),
            s.get("copy_s", "-"),
            s.get("index_hnsw_s", "-"),
            s.get("index_gin_s", "-"),
            r["vocabulary_build_ms"],
        )
    load.notes.append(
        "Indexes are dropped before each COPY and rebuilt over the whole table (maintenance_work_mem 512MB); "
        "the vocabulary of the spelling repair is rebuilt from all pieces after any index change, once."
    )
    section.notes.append(
        f"{min(distinct, len(piece_corpus())):,} distinct pieces are real DSTC10 text embedded once; pieces "
        "beyond that are synthetic: the text of one real piece, with a vector mixed from it (55-80%) and "
        "another real piece of the same domain plus a little noise, re-normalised. Vector search sees 100k "
        "distinct points spread between real ones; the text repeats, so full-text search matches each "
        "word ~20 times more often than 100k distinct texts would (its cost at 100k is a worst case)."
    )
    by_size = {r["pieces"]: r for r in results}
    for pieces, limit in ((500, 40), (1_000, 40), (50_000, 80), (100_000, 80)):
        if pieces in by_size:
            p95 = by_size[pieces]["latency_ms"]["full"].p95
            section.target(
                f"retrieval turn p95 at {pieces:,} pieces", p95, limit, "ms", _why(by_size[pieces])
            )
    section.data = {
        "sizes": [_plain(r) for r in results],
        "loading_s": {str(k): v for k, v in loads.items()},
        "distinct_pieces": min(distinct, len(piece_corpus())),
        "synthetic_mix_weight": MIX_WEIGHT,
        "noise_cosine": NOISE_COSINE,
    }
    return section


def _why(r: dict[str, Any]) -> str:
    """Which steps dominate the p95: the honest reason when a target is missed."""
    parts = sorted(((s.p95, name) for name, s in r["steps_ms"].items()), reverse=True)[:3]
    text = ", ".join(f"{name} p95 {ms:.0f} ms" for ms, name in parts)
    return f"largest steps: {text}"


def _plain(r: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in r.items():
        if isinstance(value, dict):
            out[key] = {k: v.as_json() if hasattr(v, "as_json") else v for k, v in value.items()}
        elif hasattr(value, "as_json"):
            out[key] = value.as_json()
        else:
            out[key] = value
    return out
