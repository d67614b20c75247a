"""chat: what a visitor waits for, over a real websocket to a real server process.

A daphne process (``python -m daphne xorventa.asgi:application``) is started on a free local port,
pointed at the same database, with the built-in answerer. Visitors are asyncio websocket clients (the
``websockets`` package) talking the widget's protocol to a throwaway business loaded with a bakery's
website facts. For each visitor message: time to the first streamed token (first ``delta`` frame) and to
the last (``end`` frame), measured from sending the message; errors are error frames, refused or
dropped connections and time-outs.

- 1, 20 and 100 concurrent sessions; each session sends a few messages with think time between them
  (paced: the load a busy site's visitors make); 100 sessions also in a burst (every session sends at
  the same instant: the worst case).
- with and without speculative retrieval: the widget sends a ``draft`` frame when the visitor pauses
  typing; here the draft carries the final text and is sent ~500 ms before the message.

Each session connects from its own loopback address (127.0.x.y: all of 127/8 is this machine), so the
per-IP and per-visitor rate limits apply at their defaults, as on the internet. The per-widget limit
(600 messages a minute per business by default) is raised for the bench's server only
(XORVENTA_RATE_WIDGET_PER_MIN in the daphne process's environment): 100 visitors of one business
asking every few seconds exceed it, and a refused message would measure the limit, not the server.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import Context
from bench.data import BUSINESSES
from bench.report import Section, rss_mb, stat

ORIGIN = "https://bench-bakery.example"
SERVER_ENV = {
    "XORVENTA_RATE_WIDGET_PER_MIN": "1000000",
    "XORVENTA_ANSWERER": "builtin",
    "PYTHONUNBUFFERED": "1",
}


@dataclass
class Level:
    sessions: int
    turns: int
    think: tuple[float, float]  # seconds before each message (uniform)
    start_spread: float  # seconds over which sessions send their first message
    burst: bool = False

    @property
    def label(self) -> str:
        return f"{self.sessions} {'burst' if self.burst else 'paced'}"


LEVELS_FULL = (
    Level(1, 15, (0.5, 1.0), 0.0),
    Level(20, 3, (2.0, 8.0), 8.0),
    Level(100, 3, (2.0, 8.0), 8.0),
    Level(100, 1, (0.0, 0.0), 0.0, burst=True),
)
LEVELS_QUICK = (
    Level(1, 4, (0.2, 0.5), 0.0),
    Level(20, 2, (1.0, 3.0), 3.0),
)


@dataclass
class SessionResult:
    connect_ms: float = 0.0
    first_ms: list[float] = field(default_factory=list)
    last_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    decisions: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# The server


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_threads() -> str:
    """torch threads of the bench's server: the caller's XORVENTA_TORCH_THREADS, else 1. A server embeds
    for many visitors at once, and two threads per embedding on two cores thrash as soon as anything
    else runs (see the "torch default" row of a full run)."""
    return os.environ.get("XORVENTA_TORCH_THREADS") or "1"


@contextmanager
def daphne_server(torch_threads: str | None = None) -> Iterator[tuple[int, subprocess.Popen[bytes], Path]]:
    """A daphne process on a free port; ``torch_threads`` "" leaves torch's default (all cores)."""
    from django.conf import settings

    port = _free_port()
    log = Path(tempfile.mkstemp(prefix="xorventa-bench-daphne-", suffix=".log")[1])
    env = dict(os.environ, **SERVER_ENV, DJANGO_SETTINGS_MODULE="xorventa.settings")
    threads = server_threads() if torch_threads is None else torch_threads
    if threads:
        env["XORVENTA_TORCH_THREADS"] = threads
    else:
        env.pop("XORVENTA_TORCH_THREADS", None)
    with log.open("wb") as out:
        proc = subprocess.Popen(  # noqa: S603 - our interpreter, our app
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "xorventa.asgi:application"],
            cwd=str(settings.BASE_DIR),
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"daphne exited with {proc.returncode}: {log.read_text()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                time.sleep(0.2)
        else:
            raise RuntimeError("daphne did not start listening within 60 s")
        yield port, proc, log
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
        log.unlink(missing_ok=True)


# ---------------------------------------------------------------------------------------------
# Visitors


async def _session(
    url: str,
    questions: list[str],
    level: Level,
    speculative: bool,
    rng: random.Random,
    go: asyncio.Event,
    ready: list[int],
    address: str = "127.0.0.1",
) -> SessionResult:
    from websockets.asyncio.client import connect

    result = SessionResult()
    try:
        t0 = time.perf_counter()
        async with connect(
            url,
            origin=ORIGIN,  # type: ignore[arg-type]
            open_timeout=60,
            proxy=None,
            max_size=2**22,
            local_addr=(address, 0),  # this visitor's own address
        ) as ws:
            hello = json.loads(await asyncio.wait_for(ws.recv(), 60))
            result.connect_ms = (time.perf_counter() - t0) * 1000
            if hello.get("type") != "hello":
                result.errors.append(f"no hello: {hello.get('type')}")
                return result
            ready.append(1)
            await go.wait()
            if level.start_spread:
                await asyncio.sleep(rng.uniform(0, level.start_spread))
            for turn, question in enumerate(questions):
                if turn and level.think[1]:
                    await asyncio.sleep(rng.uniform(*level.think))
                if speculative:
                    await ws.send(json.dumps({"type": "draft", "text": question}))
                    await asyncio.sleep(0.5)
                sent = time.perf_counter()
                await ws.send(json.dumps({"type": "message", "text": question}))
                first = None
                while True:
                    frame = json.loads(await asyncio.wait_for(ws.recv(), 60))
                    kind = frame.get("type")
                    if kind == "delta" and first is None:
                        first = time.perf_counter()
                    elif kind == "end":
                        done = time.perf_counter()
                        result.first_ms.append(((first or done) - sent) * 1000)
                        result.last_ms.append((done - sent) * 1000)
                        result.decisions.append(str(frame.get("decision")))
                        break
                    elif kind == "error":
                        result.errors.append(f"error frame: {frame.get('code')}")
                        break
    except TimeoutError:
        result.errors.append("timeout")
    except Exception as exc:  # refused, dropped, protocol errors: all count as errors
        result.errors.append(f"{type(exc).__name__}: {str(exc)[:100]}")
    finally:
        if not result.connect_ms:
            ready.append(0)  # never connected: do not hold the others back
    return result


async def _run_level(
    url: str | list[str], questions: list[str], level: Level, speculative: bool, seed: int
) -> dict[str, Any]:
    """One run of ``level``; with several server URLs the sessions are spread over them in turn, as a
    load balancer would."""
    urls = [url] if isinstance(url, str) else url
    go = asyncio.Event()
    ready: list[int] = []
    tasks = []
    for i in range(level.sessions):
        rng = random.Random(seed * 1000 + i)
        mine = [questions[(i + t) % len(questions)] for t in range(level.turns)]
        visitor = f"bench{seed:03d}{i:05d}{'s' if speculative else 'n'}"
        slot = seed * 101 + i  # a different address per session and per run
        address = f"127.0.{1 + slot // 250 % 250}.{1 + slot % 250}"
        tasks.append(
            asyncio.create_task(
                _session(
                    f"{urls[i % len(urls)]}?visitor={visitor}",
                    mine,
                    level,
                    speculative,
                    rng,
                    go,
                    ready,
                    address,
                )
            )
        )
    # Every session connects first (the connect storm is measured apart, as connect_ms).
    deadline = time.monotonic() + 60
    while len(ready) < level.sessions and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    started = time.perf_counter()
    go.set()
    results = await asyncio.gather(*tasks)
    wall = time.perf_counter() - started
    messages = sum(len(r.first_ms) for r in results)
    return {
        "seed": seed,
        "level": level.label,
        "sessions": level.sessions,
        "speculative": speculative,
        "first_ms": stat(x for r in results for x in r.first_ms),
        "last_ms": stat(x for r in results for x in r.last_ms),
        "connect_ms": stat(r.connect_ms for r in results if r.connect_ms),
        "messages": messages,
        "errors": [e for r in results for e in r.errors],
        "wall_s": wall,
        "rate": messages / wall if wall else 0.0,
        "decisions": {d: sum(r.decisions.count(d) for r in results) for d in {"answer", "unknown", "gate"}},
    }


def _server_side(business: Any, seed: int) -> dict[str, Any]:
    """What the server itself recorded for a run's turns (Message.timings): its share of the wait."""
    from django_tenants.utils import tenant_context

    from apps.chat.models import Message

    with tenant_context(business):
        rows = list(
            Message.objects.filter(
                role="assistant", conversation__visitor_id__startswith=f"bench{seed:03d}"
            ).values_list("timings", "speculative_hit")
        )
    return {
        "retrieval_ms": stat(t.get("retrieval_ms", 0.0) for t, _ in rows if "retrieval_ms" in t),
        "first_token_ms": stat(t.get("first_token_ms", 0.0) for t, _ in rows),
        "speculative_hits": sum(1 for _, hit in rows if hit),
        "turns": len(rows),
    }


def _prepare_business(ctx: Context) -> tuple[Any, list[str]]:
    from django_tenants.utils import tenant_context

    from apps.chat.models import WidgetSettings

    bakery = BUSINESSES[0]
    business = ctx.business_create(bakery.name)
    with tenant_context(business):
        WidgetSettings.objects.create(allowed_origins=[ORIGIN])
        bakery.ingest("bench-bakery.example")
    return business, list(bakery.questions)


def run(ctx: Context) -> Section:
    import websockets
    from django.db import connections

    section = Section("chat", "time to first and last token over the websocket (real daphne process)")
    business, questions = _prepare_business(ctx)
    connections.close_all()
    levels = LEVELS_QUICK if ctx.quick else LEVELS_FULL
    results: list[dict[str, Any]] = []
    with daphne_server() as (port, proc, log):
        url = f"ws://127.0.0.1:{port}/ws/chat/{business.public_key}/"
        ctx.log(f"  daphne pid {proc.pid} on port {port}; warming up (the model loads on the first message)")
        t0 = time.perf_counter()
        warm = asyncio.run(_run_level(url, questions[:2], Level(1, 2, (0.0, 0.0), 0.0), False, 999))
        warm_s = time.perf_counter() - t0
        rss_idle = rss_mb(proc.pid)
        for n, level in enumerate(levels):
            for speculative in (False,) if level.burst else (False, True):
                ctx.log(f"  {level.label}, {'with' if speculative else 'without'} speculative retrieval")
                results.append(
                    asyncio.run(_run_level(url, questions, level, speculative, n * 2 + speculative))
                )
        rss_after = rss_mb(proc.pid)
        server_log = log.read_text(errors="replace")
        log.unlink(missing_ok=True)
    if not ctx.quick and server_threads() == "1":
        # The same 20-session load against a server left at torch's default threads (all cores).
        with daphne_server(torch_threads="") as (port, proc, log):
            url = f"ws://127.0.0.1:{port}/ws/chat/{business.public_key}/"
            ctx.log("  20 paced again, server at torch's default threads")
            asyncio.run(_run_level(url, questions[:2], Level(1, 2, (0.0, 0.0), 0.0), False, 998))
            level = next(lv for lv in levels if lv.sessions == 20)
            extra = asyncio.run(_run_level(url, questions, level, False, 90))
            extra["level"] += ", torch default threads"
            results.append(extra)
            server_log += log.read_text(errors="replace")
            log.unlink(missing_ok=True)
    if not ctx.quick:
        # The 100-session load spread over two server processes (one per core), as behind a balancer.
        with contextlib.ExitStack() as servers:
            started = [servers.enter_context(daphne_server()) for _ in range(2)]
            urls = [f"ws://127.0.0.1:{port}/ws/chat/{business.public_key}/" for port, _, _ in started]
            ctx.log("  100 paced again, spread over 2 server processes")
            for n, url in enumerate(urls):
                asyncio.run(_run_level(url, questions[:2], Level(1, 2, (0.0, 0.0), 0.0), False, 996 - n))
            level = next(lv for lv in levels if lv.sessions == 100 and not lv.burst)
            extra = asyncio.run(_run_level(urls, questions, level, False, 91))
            extra["level"] += ", 2 server processes"
            results.append(extra)
            for _, _, log in started:
                server_log += log.read_text(errors="replace")
    tracebacks = server_log.count("Traceback")
    for r in results:
        r["server"] = _server_side(business, r["seed"])

    table = section.table(
        "Time to first / last token, ms (median / p95), from sending the message",
        [
            "sessions",
            "speculative",
            "first token",
            "last token",
            "messages",
            "msg/s",
            "errors",
            "connect ms",
            "server: retrieval",
            "server: first token",
            "speculative hits",
        ],
    )
    for r in results:
        table.add(
            r["level"],
            "yes" if r["speculative"] else "no",
            r["first_ms"],
            r["last_ms"],
            r["messages"],
            round(r["rate"], 1),
            len(r["errors"]),
            r["connect_ms"],
            r["server"]["retrieval_ms"],
            r["server"]["first_token_ms"],
            f"{r['server']['speculative_hits']}/{r['server']['turns']}",
        )
    table.notes += [
        "paced: every session connects, sends its first message at a random moment within the first "
        "seconds, then waits a random think time between messages (see msg/s for the load it makes); "
        "burst: every session sends one message at the same instant.",
        "server: what the server recorded for the same turns (Message.timings: from the start of turn_begin "
        "to the end of retrieval, and to the first token); the rest of the client's wait is queueing "
        "before a server thread picks the message up, and the network.",
        "speculative: a draft frame with the same text 500 ms before the message; the server retrieves "
        "during those 500 ms and the message reuses the result (timed from the message, not the draft).",
        f"Server: one daphne process, XORVENTA_TORCH_THREADS={server_threads()}, built-in answerer; each "
        "session from its own loopback address (per-IP and per-visitor limits at their defaults), the "
        "per-widget limit raised for the bench (XORVENTA_RATE_WIDGET_PER_MIN="
        f"{SERVER_ENV['XORVENTA_RATE_WIDGET_PER_MIN']}). "
        f"websockets {websockets.__version__} clients in the bench process, same machine.",
        f"Warm-up (first two messages after start, model load included): {warm_s:.1f} s; server RSS "
        f"{rss_idle:.0f} MB after warm-up, {rss_after:.0f} MB at the end; tracebacks in the server log: "
        f"{tracebacks}.",
    ]
    errors = {
        f"{r['level']} {'spec' if r['speculative'] else 'plain'}": r["errors"][:5]
        for r in results
        if r["errors"]
    }
    if errors:
        section.notes.append(f"Errors (first five per run): {errors}")
    one = [r for r in results if r["level"] == "100 paced"]
    if one:
        worst = max(one, key=lambda r: r["first_ms"].p95)
        section.target(
            "100 concurrent sessions (paced), one server process: first-token p95",
            worst["first_ms"].p95,
            250,
            "ms",
            f"at {worst['rate']:.1f} messages/s one process is CPU-bound (its Python work holds one "
            f"interpreter lock): the server's own time to first token is p95 "
            f"{worst['server']['first_token_ms'].p95:.0f} ms, the rest of the wait is queueing for the "
            "process; one process per core (`manage.py up --web-processes 2`) is the configuration for it",
        )
    two = [r for r in results if r["level"].endswith("2 server processes")]
    if two:
        section.target(
            "100 concurrent sessions (paced), two server processes: first-token p95",
            two[0]["first_ms"].p95,
            250,
            "ms",
            f"at {two[0]['rate']:.1f} messages/s",
        )
    hundred = [r for r in results if r["sessions"] == 100 and not r["level"].endswith("burst")]
    if hundred:
        section.target(
            "100 concurrent sessions (paced, all runs): errors",
            float(sum(len(r["errors"]) for r in hundred)),
            1,
            "errors",
        )
    section.data = {
        "runs": [
            {
                **r,
                "first_ms": r["first_ms"].as_json(),
                "last_ms": r["last_ms"].as_json(),
                "connect_ms": r["connect_ms"].as_json(),
                "server": {k: v.as_json() if hasattr(v, "as_json") else v for k, v in r["server"].items()},
            }
            for r in results
        ],
        "warmup_s": round(warm_s, 2),
        "warmup_errors": warm["errors"],
        "server_rss_mb": {"after_warmup": rss_idle, "end": rss_after},
        "server_tracebacks": tracebacks,
        "server_log_tail": server_log[-3000:] if tracebacks else "",
    }
    return section
