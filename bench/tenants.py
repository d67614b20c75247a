"""tenants: schema-per-business at scale. Creating a business is a schema plus every tenant migration, so
its cost, the catalog's size and the database's memory are what grow with the number of businesses.

Businesses are created one by one through ``business_create`` up to 1,000 (quick: 50). At checkpoints
(10, 100, 500, 1,000 existing) it records the time per creation just before the checkpoint, the
database's size and catalog, and the memory of the database server. With the first and the last
checkpoint it measures a retrieval turn in one business loaded with real facts, and at the end the cost
of one connection touching every schema (what a worker that serves all businesses pays) and of a no-op
``migrate_schemas`` per schema (what every deploy pays per business). Everything is deleted afterwards.
"""

from __future__ import annotations

import time
from datetime import date
from typing import Any

from bench.common import Context, all_threads, set_threads
from bench.data import BUSINESSES
from bench.report import Section, postmaster_pid, pss_mb, rss_mb, stat

CHECKPOINTS_FULL = (10, 100, 500, 1000)
CHECKPOINTS_QUICK = (10, 50)
WINDOW = 20  # creations before a checkpoint that describe the cost "at" it


def _db_snapshot() -> dict[str, Any]:
    from django.db import connection

    from bench.report import _children_map, _tree

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_database_size(current_database()), (SELECT count(*) FROM pg_class)")
        size, relations = cursor.fetchone()
        cursor.execute(
            "SELECT coalesce(sum(pg_total_relation_size(oid)), 0) FROM pg_class "
            "WHERE relnamespace = 'pg_catalog'::regnamespace AND relkind = 'r'"
        )
        catalog = cursor.fetchone()[0]
        cursor.execute("SELECT count(*) FROM pg_namespace")
        schemas = cursor.fetchone()[0]
    pm = postmaster_pid()
    pg_pss = sum(pss_mb(pid) for pid in _tree(pm, _children_map())) if pm else 0.0
    return {
        "database_mb": round(float(size) / 1e6, 1),
        "catalog_mb": round(float(catalog) / 1e6, 1),
        "relations": relations,
        "schemas": schemas,
        "postgres_pss_mb": round(pg_pss, 1),
        "bench_process_rss_mb": rss_mb(),
    }


def _load_knowledge() -> list[str]:
    from apps.facts.extraction.builtin import BuiltinExtractor
    from apps.facts.models import SourceKind
    from apps.facts.services import source_ingest
    from apps.facts.signals import topics_batched

    business = BUSINESSES[0]
    with topics_batched():
        for path, sentences in business.pages.items():
            source_ingest(
                kind=SourceKind.WEBSITE,
                ref=f"https://bench.example{path}",
                content=" ".join(sentences),
                extractor=BuiltinExtractor(),
            )
    return list(business.questions)


def _turns(questions: list[str], repeats: int) -> list[float]:
    from apps.retrieval.search import retrieve

    on = date.today()
    for q in questions:  # warm-up
        retrieve(q, on=on)
    times = []
    for _ in range(repeats):
        for q in questions:
            t0 = time.perf_counter()
            retrieve(q, on=on)
            times.append((time.perf_counter() - t0) * 1000)
    return times


def _touch_all(businesses: list[Any]) -> dict[str, Any]:
    """One fresh connection reads from every schema once: time per schema, backend memory growth."""
    from django.db import connection
    from django_tenants.utils import schema_context

    from apps.facts.models import Fact
    from apps.retrieval.models import Piece

    connection.close()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    before = pss_mb(backend)
    times = []
    for business in businesses:
        t0 = time.perf_counter()
        with schema_context(business.schema_name):
            Piece.objects.filter(generation=1).exists()
            Fact.objects.filter(status="live").exists()
        times.append((time.perf_counter() - t0) * 1000)
    after = pss_mb(backend)
    again = []
    for business in businesses[:100]:
        t0 = time.perf_counter()
        with schema_context(business.schema_name):
            Piece.objects.filter(generation=1).exists()
            Fact.objects.filter(status="live").exists()
        again.append((time.perf_counter() - t0) * 1000)
    connection.close()
    return {
        "schemas": len(businesses),
        "first_touch_ms": stat(times),
        "second_touch_ms": stat(again),
        "backend_pss_before_mb": before,
        "backend_pss_after_mb": after,
        "backend_kb_per_schema": round((after - before) * 1024 / max(1, len(businesses)), 1),
    }


def _noop_migrations(businesses: list[Any], count: int) -> list[float]:
    from django.core.management import call_command

    times = []
    for business in businesses[:count]:
        t0 = time.perf_counter()
        call_command("migrate_schemas", schema_name=business.schema_name, interactive=False, verbosity=0)
        times.append((time.perf_counter() - t0) * 1000)
    return times


def run(ctx: Context) -> Section:
    from django_tenants.utils import tenant_context

    from apps.retrieval.embedding import preload
    from apps.tenants.db import use_public_schema
    from apps.tenants.models import Business

    section = Section("tenants", "businesses (schemas) as their number grows")
    set_threads(all_threads())
    preload()
    checkpoints = CHECKPOINTS_QUICK if ctx.quick else CHECKPOINTS_FULL
    use_public_schema()
    existing0 = Business.objects.exclude(schema_name="public").count()
    made: list[Any] = []
    create_ms: list[float] = []
    snapshots: dict[int, dict[str, Any]] = {0: _db_snapshot()}
    turn_ms: dict[int, list[float]] = {}
    started = time.perf_counter()
    target_total = checkpoints[-1]
    for n in range(1, target_total + 1):
        t0 = time.perf_counter()
        made.append(ctx.business_create(f"Bench tenant {n}"))
        create_ms.append((time.perf_counter() - t0) * 1000)
        if n == 1:
            with tenant_context(made[0]):
                questions = _load_knowledge()
        if n in checkpoints:
            use_public_schema()
            snapshots[n] = _db_snapshot()
            ctx.log(
                f"  {n:,} businesses: creation {stat(create_ms[-WINDOW:]).cell()} ms, "
                f"database {snapshots[n]['database_mb']} MB"
            )
            if n in (checkpoints[0], checkpoints[-1]):
                set_threads(1)
                with tenant_context(made[0]):
                    turn_ms[n] = _turns(questions, 3 if ctx.quick else 6)
                set_threads(all_threads())
                use_public_schema()
    fill_s = time.perf_counter() - started

    touch = _touch_all(made)
    migrate_ms = _noop_migrations(made, 3 if ctx.quick else 10)
    use_public_schema()

    delete_ms = []
    for business in list(made):
        t0 = time.perf_counter()
        ctx.business_delete(business)
        delete_ms.append((time.perf_counter() - t0) * 1000)
    after = _db_snapshot()

    growth = section.table(
        "Creating a business (schema + all tenant migrations + domain) as the number of businesses grows",
        [
            "businesses existing",
            "ms per creation (median / p95)",
            "creations/s",
            "database MB",
            "catalog MB",
            "relations",
            "PostgreSQL memory (PSS) MB",
        ],
    )
    for n in checkpoints:
        window = create_ms[max(0, n - WINDOW) : n] if n > 10 else create_ms[:n]
        s = stat(window)
        snap = snapshots[n]
        growth.add(
            f"{n + existing0:,}",
            s,
            round(1000 / s.median, 2),
            snap["database_mb"],
            snap["catalog_mb"],
            f"{snap['relations']:,}",
            snap["postgres_pss_mb"],
        )
    growth.notes += [
        f"Time per creation = the {WINDOW} creations just before each checkpoint (the first 10 for 10). "
        f"{existing0} business(es) existed before the run.",
        f"All {target_total:,} creations: {stat(create_ms).cell()} ms, {target_total / fill_s:.2f} per second "
        f"overall ({fill_s:.0f} s, with the checkpoints' measurements).",
        f"Before the run: database {snapshots[0]['database_mb']} MB, {snapshots[0]['relations']:,} relations; "
        f"after deleting them all: {after['database_mb']} MB, {after['relations']:,} relations.",
    ]

    per_business = (snapshots[checkpoints[-1]]["database_mb"] - snapshots[0]["database_mb"]) / target_total
    rel_per = (snapshots[checkpoints[-1]]["relations"] - snapshots[0]["relations"]) / target_total
    cost = section.table(
        "What each business costs the database, and a query with many present", ["measure", "value"]
    )
    cost.add("disk per empty business (MB)", round(per_business, 2))
    cost.add("relations (tables, indexes, sequences, TOAST) per business", round(rel_per))
    first, last = checkpoints[0], checkpoints[-1]
    cost.add(
        f"retrieval turn with {first + existing0:,} businesses, ms (median / p95, 1 thread)",
        stat(turn_ms[first]),
    )
    cost.add(
        f"retrieval turn with {last + existing0:,} businesses, ms (median / p95, 1 thread)",
        stat(turn_ms[last]),
    )
    cost.add(
        f"one connection's first query in each of {touch['schemas']:,} schemas, ms (median / p95)",
        touch["first_touch_ms"],
    )
    cost.add("the same connection, second visit (catalog cached), ms", touch["second_touch_ms"])
    cost.add(
        "that connection's memory growth per schema visited (KB, PSS)",
        touch["backend_kb_per_schema"],
    )
    cost.add(
        f"no-op migrate_schemas of one schema, ms ({len(migrate_ms)} schemas)",
        stat(migrate_ms),
    )
    cost.add("deleting a business (DROP SCHEMA CASCADE), ms", stat(delete_ms))
    cost.notes.append(
        "The retrieval turn is in one business with the bakery's facts (bench/data.py), with the "
        "other businesses empty: schema count, not data volume, is what this isolates."
    )
    last_create = stat(create_ms[max(0, last - WINDOW) : last])
    if not ctx.quick:
        section.target(
            f"creating a business at {last + existing0:,} existing (p95)",
            last_create.p95 / 1000,
            1,
            "s",
            "creation is Django's migration executor (CPU-bound Python) plus the DDL; see the growth table",
        )
    section.data = {
        "existing_before": existing0,
        "create_ms": [round(x, 1) for x in create_ms],
        "delete_ms": [round(x, 1) for x in delete_ms],
        "snapshots": {str(k): v for k, v in snapshots.items()},
        "after_cleanup": after,
        "turn_ms": {str(k): stat(v).as_json() for k, v in turn_ms.items()},
        "touch_all": {k: v.as_json() if hasattr(v, "as_json") else v for k, v in touch.items()},
        "noop_migrate_ms": [round(x, 1) for x in migrate_ms],
        "fill_s": round(fill_s, 1),
    }
    return section
