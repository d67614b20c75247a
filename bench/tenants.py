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

import contextlib
import json
import subprocess
import sys
import tempfile
import time
from datetime import date
from typing import Any

from bench.common import Context, all_threads, set_threads
from bench.data import BUSINESSES
from bench.report import Section, postmaster_pid, pss_mb, rss_mb, stat

CHECKPOINTS_FULL = (10, 100, 500, 1000)
CHECKPOINTS_QUICK = (10, 50)
WINDOW = 20  # creations before a checkpoint that describe the cost "at" it
FILL_WORKERS = 2

_FILL_SCRIPT = r"""
import json, os, secrets, sys
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "xorventa.settings")
import django
django.setup()
from apps.tenants.models import Reseller
from apps.tenants.services import business_create
reseller = Reseller.objects.get(slug=sys.argv[1])
for _ in range(int(sys.argv[2])):
    business = business_create(reseller=reseller, name="Bench tenant", slug=sys.argv[3] + secrets.token_hex(6))
    print(json.dumps({"pk": business.pk}), flush=True)
"""


def _fill(ctx: Context, count: int) -> list[Any]:
    """Create ``count`` businesses in FILL_WORKERS subprocesses; each is registered for clean-up as soon as
    it exists, so an interrupted run still deletes it."""
    from django.conf import settings

    from apps.tenants.models import Business

    ctx.reseller()
    shares = [count // FILL_WORKERS + (1 if i < count % FILL_WORKERS else 0) for i in range(FILL_WORKERS)]
    procs: list[subprocess.Popen[str]] = []
    readers: list[Any] = []
    pks: list[int] = []

    def read(proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("{"):
                pk = int(json.loads(line)["pk"])
                pks.append(pk)
                ctx.created.append(pk)

    errors: list[Any] = []
    with contextlib.ExitStack() as files:
        try:
            _start(shares, procs, readers, errors, files, read, str(settings.BASE_DIR))
            for proc in procs:
                proc.wait()
            for reader in readers:
                reader.join(timeout=10)
        finally:
            for proc in procs:
                if proc.poll() is None:
                    proc.terminate()
                    proc.wait(timeout=30)
        failed = [(p.returncode, e) for p, e in zip(procs, errors, strict=True) if p.returncode]
        if failed:
            code, err = failed[0]
            err.seek(0)
            raise RuntimeError(f"a business-creating worker failed ({code}): {err.read()[-1500:]}")
    by_pk = Business.objects.in_bulk(pks)
    return [by_pk[pk] for pk in pks]


def _start(
    shares: list[int],
    procs: list[subprocess.Popen[str]],
    readers: list[Any],
    errors: list[Any],
    files: contextlib.ExitStack,
    read: Any,
    cwd: str,
) -> None:
    import threading

    from bench.common import BENCH_RESELLER, SLUG_PREFIX

    for share in shares:
        if not share:
            continue
        err = files.enter_context(tempfile.TemporaryFile(mode="w+"))  # noqa: SIM115 - closed by the stack
        errors.append(err)
        proc = subprocess.Popen(  # noqa: S603 - our interpreter, our script
            [sys.executable, "-c", _FILL_SCRIPT, BENCH_RESELLER, str(share), SLUG_PREFIX],
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )
        procs.append(proc)
        reader = threading.Thread(target=read, args=(proc,), daemon=True)
        reader.start()
        readers.append(reader)


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
    business = BUSINESSES[0]
    business.ingest("bench.example")
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
    window_ms: dict[int, list[float]] = {}
    fills: list[tuple[int, float]] = []
    snapshots: dict[int, dict[str, Any]] = {0: _db_snapshot()}
    turn_ms: dict[int, list[float]] = {}
    started = time.perf_counter()
    target_total = checkpoints[-1]
    questions: list[str] = []
    for checkpoint in checkpoints:
        # Up to WINDOW creations before the checkpoint are timed one by one in this process; the
        # businesses before them are made by parallel workers (the same business_create), which keeps a
        # full run within its time budget.
        window_size = 10 if ctx.quick else WINDOW
        sequential = min(checkpoint - len(made), checkpoint if checkpoint <= 10 else window_size)
        fill = checkpoint - len(made) - sequential
        if fill > 0:
            ctx.log(f"  creating {fill:,} businesses with {FILL_WORKERS} parallel workers")
            t0 = time.perf_counter()
            made.extend(_fill(ctx, fill))
            fills.append((fill, time.perf_counter() - t0))
        window: list[float] = []
        for _ in range(sequential):
            t0 = time.perf_counter()
            made.append(ctx.business_create(f"Bench tenant {len(made) + 1}"))
            window.append((time.perf_counter() - t0) * 1000)
            if len(made) == 1:
                with tenant_context(made[0]):
                    questions = _load_knowledge()
        window_ms[checkpoint] = window
        create_ms.extend(window)
        use_public_schema()
        snapshots[checkpoint] = _db_snapshot()
        ctx.log(
            f"  {checkpoint:,} businesses: creation {stat(window).cell()} ms, "
            f"database {snapshots[checkpoint]['database_mb']} MB"
        )
        if checkpoint in (checkpoints[0], checkpoints[-1]):
            set_threads(1)
            with tenant_context(made[0]):
                turn_ms[checkpoint] = _turns(questions, 3 if ctx.quick else 6)
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
        s = stat(window_ms[n])
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
        f"Time per creation = the {10 if ctx.quick else WINDOW} creations just before each checkpoint "
        "(the first 10 for 10), "
        f"one at a time. {existing0} business(es) existed before the run.",
        f"The businesses in between were created by {FILL_WORKERS} worker processes in parallel (the same "
        f"business_create): {sum(n for n, _ in fills):,} in {sum(t for _, t in fills):.0f} s, "
        f"{sum(n for n, _ in fills) / max(1e-9, sum(t for _, t in fills)):.2f} per second; one at a time: "
        f"{1000 / max(1e-9, stat(create_ms).median):.2f} per second. All {target_total:,}: {fill_s:.0f} s "
        "with the checkpoints' measurements.",
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
    last_create = stat(window_ms[last])
    if not ctx.quick:
        section.target(
            f"creating a business at {last + existing0:,} existing (p95)",
            last_create.p95 / 1000,
            1,
            "s",
            "a creation runs every tenant migration (50): mostly Django rendering migration states in Python, "
            "then ~450 DDL statements and 50 commits; it does not grow with the number of businesses",
        )
    section.data = {
        "existing_before": existing0,
        "create_ms": {str(k): [round(x, 1) for x in v] for k, v in window_ms.items()},
        "parallel_fill": [{"businesses": n, "seconds": round(t, 1)} for n, t in fills],
        "delete_ms": [round(x, 1) for x in delete_ms],
        "snapshots": {str(k): v for k, v in snapshots.items()},
        "after_cleanup": after,
        "turn_ms": {str(k): stat(v).as_json() for k, v in turn_ms.items()},
        "touch_all": {k: v.as_json() if hasattr(v, "as_json") else v for k, v in touch.items()},
        "noop_migrate_ms": [round(x, 1) for x in migrate_ms],
        "fill_s": round(fill_s, 1),
    }
    return section
