"""Shared by every benchmark: the run's context, throwaway businesses that are always deleted, threads."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH_RESELLER = "xorventa-bench"
SLUG_PREFIX = "bench-"


def eval_root() -> Path:
    """The shared evaluation data (DSTC, scenarios): the XORVENTA_EVAL_DIR setting."""
    from django.conf import settings

    return Path(settings.XORVENTA_EVAL_DIR)


def cache_dir() -> Path:
    from django.conf import settings

    path = Path(settings.DATA_DIR) / "bench-cache"
    path.mkdir(parents=True, exist_ok=True)
    return path


@dataclass
class Context:
    quick: bool = False
    log: Callable[[str], None] = field(default=lambda text: print(text, file=sys.stderr, flush=True))
    created: list[int] = field(default_factory=list)  # business pks made by this run, not yet deleted

    # -- throwaway businesses -------------------------------------------------------------------

    def reseller(self) -> Any:
        from apps.tenants.models import Reseller

        return Reseller.objects.filter(slug=BENCH_RESELLER).first() or Reseller.objects.create(
            name="Xorventa benchmarks", slug=BENCH_RESELLER, show_powered_by=False
        )

    def business_create(self, name: str = "Bench business") -> Any:
        from apps.tenants.db import use_public_schema
        from apps.tenants.services import business_create

        use_public_schema()
        business = business_create(
            reseller=self.reseller(), name=name[:100], slug=f"{SLUG_PREFIX}{secrets.token_hex(6)}"
        )
        self.created.append(business.pk)
        return business

    def business_delete(self, business: Any) -> None:
        from apps.tenants.db import use_public_schema
        from apps.tenants.services import business_delete

        use_public_schema()
        pk = business.pk  # delete() sets it to None
        with _no_interrupts():
            business_delete(business=business)
            if pk in self.created:
                self.created.remove(pk)

    def cleanup(self) -> int:
        """Delete every business this run created and has not deleted yet (Ctrl-C safe)."""
        from apps.tenants.db import use_public_schema
        from apps.tenants.models import Business
        from apps.tenants.services import business_delete

        if not self.created:
            return drop_orphan_schemas(self.log)
        with _no_interrupts():
            with contextlib.suppress(Exception):
                from django.db import connection

                if connection.in_atomic_block:
                    connection.rollback()
            use_public_schema()
            done = 0
            for business in Business.objects.filter(pk__in=list(self.created)):
                try:
                    business_delete(business=business)
                    done += 1
                except Exception as exc:  # keep going: one stuck schema must not leave the others
                    self.log(f"  could not delete {business.slug}: {exc}")
            self.created.clear()
            done += drop_orphan_schemas(self.log)
            return done

    @contextlib.contextmanager
    def business(self, name: str = "Bench business") -> Iterator[Any]:
        """A fresh business, entered (its schema active), deleted afterwards whatever happens."""
        from django_tenants.utils import tenant_context

        business = self.business_create(name)
        try:
            with tenant_context(business):
                yield business
        finally:
            self.business_delete(business)


def leftover_businesses() -> list[Any]:
    """Businesses of earlier bench runs that were killed before they could clean up."""
    from apps.tenants.models import Business

    return list(Business.objects.filter(reseller__slug=BENCH_RESELLER, slug__startswith=SLUG_PREFIX))


def drop_orphan_schemas(log: Callable[[str], None]) -> int:
    """Schemas of bench businesses whose row is gone (a worker killed half-way through a creation)."""
    import re

    from django.db import connection

    from apps.tenants.models import Business

    with connection.cursor() as cursor:
        cursor.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'bench%%'")
        names = [row[0] for row in cursor.fetchall() if re.fullmatch(r"bench_[0-9a-f]{12}", row[0])]
    known = set(Business.objects.filter(schema_name__in=names).values_list("schema_name", flat=True))
    orphans = [n for n in names if n not in known]
    with _no_interrupts(), connection.cursor() as cursor:
        for name in orphans:
            log(f"  dropping orphan schema {name}")
            cursor.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
    return len(orphans)


@contextlib.contextmanager
def _no_interrupts() -> Iterator[None]:
    """Clean-up must finish: a second Ctrl-C while a schema is being dropped is deferred to the end."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    for sig in previous:
        signal.signal(sig, lambda signum, frame: pending.append(signum))
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if pending:
            raise KeyboardInterrupt


# ---------------------------------------------------------------------------------------------
# Threads and timing


def set_threads(n: int | None) -> int:
    """torch intra-op threads for what follows; returns the number now in force."""
    import torch

    if n:
        torch.set_num_threads(n)
    return int(torch.get_num_threads())


def all_threads() -> int:
    return os.cpu_count() or 1


@contextlib.contextmanager
def timer() -> Iterator[list[float]]:
    """with timer() as t: ...; t[0] is the elapsed milliseconds."""
    out: list[float] = []
    started = time.perf_counter()
    try:
        yield out
    finally:
        out.append((time.perf_counter() - started) * 1000)


# ---------------------------------------------------------------------------------------------
# DSTC data, read at run time from the shared evaluation folder


def dstc_knowledge(name: str = "dstc10") -> dict[str, Any]:
    return json.loads((eval_root() / name / "knowledge.json").read_text())


def dstc_questions(limit: int | None = None) -> list[tuple[str, tuple[str, ...]]]:
    """Real visitor turns with the conversation before them: DSTC10 (spoken, garbled) and DSTC9 val
    turns that seek knowledge, interleaved so any prefix mixes both."""
    from lab.evaluation import dataset_load

    sets = []
    for name in ("dstc10", "dstc9"):
        root = eval_root() / name
        if (root / "knowledge.json").exists():
            sets.append([(q.message, q.history) for q in dataset_load(root).questions])
    mixed: list[tuple[str, tuple[str, ...]]] = []
    for i in range(max((len(s) for s in sets), default=0)):
        mixed.extend(s[i] for s in sets if i < len(s))
    return mixed[:limit] if limit else mixed
