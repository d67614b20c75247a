"""Benchmarks: `python manage.py bench [NAME ...] [--quick] [--json] [--out FILE]` (docs/benchmarks.md).

Each benchmark is a module with ``run(ctx: Context) -> Section``; it works in throwaway businesses that
are deleted afterwards, also when it fails or is interrupted.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bench.common import Context
    from bench.report import Section

#: name -> (module, one-line description), in the order a full run uses.
BENCHMARKS: dict[str, tuple[str, str]] = {
    "embed": ("bench.embed", "embedding model: one message (1 and all threads), a batch, load time, memory"),
    "retrieve": (
        "bench.retrieve",
        "a retrieval turn at 100 to 100,000 pieces; HNSW recall; vs vector-only and full text",
    ),
    "ingest": ("bench.ingest", "website sentences to live indexed facts; re-sync of an unchanged site"),
    "tenants": ("bench.tenants", "creating businesses as their number grows; memory and a query with many"),
    "chat": ("bench.chat", "first and last token over the websocket at 1, 20 and 100 sessions (real daphne)"),
    "quality": ("bench.quality", "retrieval quality on DSTC9/DSTC10 and the Sunny Bakery scenario"),
}


def runner(name: str) -> Callable[[Context], Section]:
    module = importlib.import_module(BENCHMARKS[name][0])
    run: Callable[[Context], Section] = module.run
    return run
