"""embed: the embedding model's cost on this CPU (the one step every chat turn pays).

- one visitor message, on one torch thread and on all threads;
- a batch of pieces (realistic ~300-900 character knowledge pieces, batch size 32, all threads);
- model load in a fresh subprocess (import + weights hash check + load + first vector) and its memory.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

from bench.common import Context, all_threads, dstc_questions, set_threads
from bench.report import Section, stat

_LOAD_SCRIPT = r"""
import json, os, resource, sys, time
t0 = time.perf_counter()
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "xorventa.settings")
import django
django.setup()
t1 = time.perf_counter()
import sentence_transformers  # noqa: F401  (the import alone costs seconds)
t2 = time.perf_counter()
from apps.retrieval.embedding import get_embedder
embedder = get_embedder()
embedder.preload()  # verify the weights' sha256, load, embed the golden text
t3 = time.perf_counter()
embedder.embed_query("Are you open on Saturday?")
t4 = time.perf_counter()
status = open("/proc/self/status").read()
rss = next(int(l.split()[1]) for l in status.splitlines() if l.startswith("VmRSS:")) / 1024
hwm = next(int(l.split()[1]) for l in status.splitlines() if l.startswith("VmHWM:")) / 1024
print(json.dumps({"django_ms": (t1 - t0) * 1000, "import_ms": (t2 - t1) * 1000,
                  "load_ms": (t3 - t2) * 1000, "first_query_ms": (t4 - t3) * 1000,
                  "total_ms": (t4 - t0) * 1000, "rss_mb": rss, "peak_rss_mb": hwm}))
"""


def _load_in_subprocess() -> dict[str, float]:
    from django.conf import settings

    done = subprocess.run(  # noqa: S603 - our own interpreter and script
        [sys.executable, "-c", _LOAD_SCRIPT],
        cwd=str(settings.BASE_DIR),
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(ctx: Context) -> Section:
    from apps.retrieval.embedding import get_embedder
    from bench.retrieve import piece_corpus

    section = Section("embed", "embedding model cost (all-MiniLM-L6-v2, CPU)")
    embedder = get_embedder()
    messages = [m for m, _ in dstc_questions(30 if ctx.quick else 300)]
    set_threads(all_threads())
    embedder.preload()

    # One visitor message: 1 thread, then all threads.
    single = section.table(
        "One visitor message (ms, median / p95)", ["torch threads", "ms", "messages timed"]
    )
    per_threads = {}
    for threads in sorted({1, all_threads()}):
        set_threads(threads)
        for m in messages[:10]:  # warm-up
            embedder.embed_query(m)
        times = []
        for m in messages:
            started = time.perf_counter()
            embedder.embed_query(m)
            times.append((time.perf_counter() - started) * 1000)
        s = stat(times)
        per_threads[threads] = s
        single.add(threads, s, s.n)
    section.data["message_ms"] = {str(k): v.as_json() for k, v in per_threads.items()}

    # A batch of knowledge pieces, all threads.
    set_threads(all_threads())
    count = 100 if ctx.quick else 1000
    chunk = 25 if ctx.quick else 100
    texts = [t for t, _, _ in piece_corpus()[:count]]
    avg_chars = sum(len(t) for t in texts) / max(1, len(texts))
    chunks = []
    started = time.perf_counter()
    for i in range(0, len(texts), chunk):
        t0 = time.perf_counter()
        embedder.embed_passages(texts[i : i + chunk], batch_size=32)
        chunks.append((time.perf_counter() - t0) * 1000)
    total_s = time.perf_counter() - started
    s_chunk = stat(chunks)
    batch = section.table(
        f"A batch of {len(texts):,} pieces (avg {avg_chars:.0f} characters), batch size 32, "
        f"{all_threads()} threads",
        ["pieces", "total s", "pieces/s", f"ms per {chunk} pieces (median / p95)"],
    )
    batch.add(len(texts), round(total_s, 1), round(len(texts) / total_s, 1), s_chunk)
    section.data["batch"] = {
        "pieces": len(texts),
        "avg_chars": round(avg_chars),
        "total_s": round(total_s, 2),
        "per_second": round(len(texts) / total_s, 1),
        "chunk_ms": s_chunk.as_json(),
    }

    # Cold model load in a subprocess (the OS file cache is warm after the first).
    runs = 1 if ctx.quick else 3
    loads = [_load_in_subprocess() for _ in range(runs)]
    load = section.table(
        f"Model load in a fresh process ({runs} runs, ms, median / p95)",
        ["step", "ms / MB"],
    )
    for key, label in (
        ("django_ms", "Django setup"),
        ("import_ms", "import sentence_transformers"),
        ("load_ms", "verify sha256 + load weights + golden vector"),
        ("first_query_ms", "first query after load"),
        ("total_ms", "total, process start to first vector"),
        ("rss_mb", "RSS after load (MB)"),
        ("peak_rss_mb", "peak RSS (MB)"),
    ):
        load.add(label, stat(r[key] for r in loads))
    load.notes.append(
        "Fresh interpreter each run; the OS file cache is warm (the weights were read before), as on a "
        "server restart. A first boot after a reboot also reads ~90 MB of weights from disk."
    )
    section.data["load"] = loads

    section.notes.append(
        "A turn embeds the message once, plus once more with the conversation blended in (two passes), "
        "plus once for a recognised kind of fact, plus once for a repaired spelling: 1-4 embeddings."
    )
    set_threads(all_threads())
    return section
