"""How many businesses one PostgreSQL holds (docs/scaling.md): the catalog and the migrations as the
number of schemas grows past bench/tenants.py's 1,000.

    XORVENTA_DATA_DIR=/tmp/xorventa-scale python -m bench.tenant_scale --checkpoints 1000,2000,3000 \
        --minutes 40 --out /tmp/xorventa-scale/scale.json

Run it on a throwaway data directory: it migrates a fresh embedded database there, fills it with empty
businesses (``business_create``, the product's path: a copy of the template schema) and does not delete
them; remove the directory afterwards (``manage.py dbserver stop`` first). At each checkpoint it records
the schemas, relations, catalog and database size, the time of a creation, of a no-op
``migrate_schemas`` of one schema (what every deploy pays per business) and of one real additive
tenant migration applied to one schema (facts' newest: rolled back, then timed forward).
The JSON is rewritten after every checkpoint, so a run stopped by ``--minutes`` keeps what it measured;
run it again on the same directory to go on filling from where it stopped.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

#: The app whose newest migration is rolled back and timed forward in each sampled schema.
REAL_MIGRATION_APP = "facts"
SAMPLE = 8  # schemas per migration measurement


def _migrate_ms(schemas: list[str]) -> dict[str, Any]:
    from django.core.management import call_command

    from bench.report import stat

    noop, real = [], []
    app, before, after = newest_migration()
    for schema in schemas:
        # Untimed first: migrations added to the code since the schema was made are applied here, so
        # the timed run below is a true no-op.
        call_command("migrate_schemas", schema_name=schema, interactive=False, verbosity=0)
        t0 = time.perf_counter()
        call_command("migrate_schemas", schema_name=schema, interactive=False, verbosity=0)
        noop.append((time.perf_counter() - t0) * 1000)
        call_command("migrate_schemas", app, before, schema_name=schema, interactive=False, verbosity=0)
        t0 = time.perf_counter()
        call_command("migrate_schemas", app, after, schema_name=schema, interactive=False, verbosity=0)
        real.append((time.perf_counter() - t0) * 1000)
    return {"noop_ms": stat(noop).as_json(), "additive_ms": stat(real).as_json()}


def newest_migration() -> tuple[str, str, str]:
    """(app, the migration before its newest, its newest), for a forward run of one real migration."""
    from django.db import connection
    from django.db.migrations.loader import MigrationLoader

    graph = MigrationLoader(connection).graph
    (newest,) = [node for node in graph.leaf_nodes() if node[0] == REAL_MIGRATION_APP]
    parents = [p for p in graph.node_map[newest].parents if p.key[0] == REAL_MIGRATION_APP]
    return REAL_MIGRATION_APP, parents[0].key[1], newest[1]


def _create_ms(ctx: Any, count: int) -> dict[str, Any]:
    from bench.report import stat

    times = []
    for _ in range(count):
        t0 = time.perf_counter()
        ctx.business_create("Scale tenant")
        times.append((time.perf_counter() - t0) * 1000)
    return stat(times).as_json()


def _measure(ctx: Any) -> dict[str, Any]:
    """Ten creations, then the database's size and catalog, then the migrations of SAMPLE schemas."""
    from apps.tenants.db import use_public_schema
    from apps.tenants.models import Business
    from bench import tenants

    use_public_schema()
    create = _create_ms(ctx, 10)
    use_public_schema()
    snapshot = tenants._db_snapshot()
    schemas = list(
        Business.objects.exclude(schema_name="public").order_by("?").values_list("schema_name", flat=True)
    )[:SAMPLE]
    migrate = _migrate_ms(schemas)
    use_public_schema()
    row = {"businesses": Business.objects.exclude(schema_name="public").count(), **snapshot}
    row.update(create_ms=create, **migrate)
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoints", default="1000,2000,3000")
    parser.add_argument("--minutes", type=float, default=40.0, help="stop filling after this long")
    parser.add_argument("--fill-workers", type=int, default=2)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--measure-now",
        action="store_true",
        help="measure the businesses there are (e.g. while another run fills), no migration, no fill",
    )
    args = parser.parse_args(argv)
    if not os.environ.get("XORVENTA_DATA_DIR"):
        parser.error("set XORVENTA_DATA_DIR to a throwaway directory: the businesses are not deleted")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "xorventa.settings")
    import django

    django.setup()
    from django.core.management import call_command

    from apps.tenants.db import use_public_schema
    from apps.tenants.models import Business
    from bench import tenants
    from bench.common import Context

    tenants.FILL_WORKERS = args.fill_workers
    ctx = Context()
    if args.measure_now:
        args.out.write_text(json.dumps({"checkpoints": [_measure(ctx)]}, indent=2))
        return 0
    # A resumed run migrates `public` only: migrating every existing schema is what this measures.
    fresh = not Business.objects.exclude(schema_name="public").exists()
    call_command("migrate_schemas", shared=not fresh, interactive=False, verbosity=0)
    # One creation first builds the template schema (decision 0008), before the parallel fill: two
    # fill workers that both found no template raced to build it in a first run.
    ctx.business_create("Scale tenant")
    deadline = time.monotonic() + args.minutes * 60
    results: dict[str, Any] = {"real_migration": "/".join(newest_migration()), "checkpoints": []}
    for checkpoint in (int(n) for n in args.checkpoints.split(",")):
        use_public_schema()
        have = Business.objects.exclude(schema_name="public").count()
        if checkpoint - have > 10:
            ctx.log(f"filling {have:,} -> {checkpoint - 10:,} businesses")
            t0 = time.perf_counter()
            tenants._fill(ctx, checkpoint - 10 - have)
            fill_s = time.perf_counter() - t0
            ctx.log(f"  {checkpoint - 10 - have:,} in {fill_s:.0f} s")
        row = _measure(ctx)
        results["checkpoints"].append(row)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(results, indent=2))
        ctx.log(json.dumps(row))
        if time.monotonic() > deadline:
            ctx.log("time is up: stopping after this checkpoint")
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
