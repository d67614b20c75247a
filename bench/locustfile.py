"""Load test of the chat widget's websocket: visitors who connect, ask, read the streamed answer and think.

Run it through `manage.py loadtest` (it fills in the widget key, the origin and the server's pid), or
directly:

    XV_WIDGET_KEY=pk_... XV_ORIGIN=http://localhost:8000 XV_SERVER_PID=1234 \\
      .venv/bin/locust -f bench/locustfile.py --headless -u 50 -r 10 -t 5m --host http://127.0.0.1:8000

Each visitor is one websocket (websocket-client over gevent) from its own loopback address
(127.0.0.<n>, all of 127/8 is this machine), so the per-IP rate limit sees what it would see on the
internet: one address per visitor. Reported to locust per message: "first token" (send -> first `delta`
frame) and "answer" (send -> `end` frame); an error frame, a refused or dropped connection or a time-out
is a failure. The server process's memory (RSS) is sampled every 2 s. A JSON summary (counts, p50/p95,
memory samples) is written to XV_SUMMARY when the run ends.

Environment: XV_WIDGET_KEY (required), XV_ORIGIN (an allowed origin), XV_SERVER_PID (memory sampling),
XV_SUMMARY (summary path), XV_WAIT_MIN / XV_WAIT_MAX (think time in seconds, default 8-16: a visitor
reads the answer and types the next question), XV_TIMEOUT (seconds to wait for an answer, default 60).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import socket
import time
from typing import Any
from urllib.parse import urlsplit

import gevent
import psutil
import websocket
from locust import User, between, events, task

QUESTIONS = [
    "When are you open?",
    "Are you open on Saturday?",
    "How much is a sourdough loaf?",
    "Do you deliver?",
    "Where are you?",
    "Do you have gluten-free bread?",
    "Can I order a birthday cake?",
    "Do you take credit cards?",
    "hi!",
    "Is there parking nearby?",
]

_visitor_numbers = itertools.count(1)
SAMPLES: dict[str, list[Any]] = {"first_token_ms": [], "answer_ms": [], "errors": [], "rss_mb": []}


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return round(ordered[index], 1)


class WidgetVisitor(User):
    wait_time = between(float(os.environ.get("XV_WAIT_MIN", "8")), float(os.environ.get("XV_WAIT_MAX", "16")))

    def on_start(self) -> None:
        self.number = next(_visitor_numbers)
        self.visitor = f"loadtest-{os.getpid()}-{self.number:05d}"
        self.ws: websocket.WebSocket | None = None
        self.timeout = float(os.environ.get("XV_TIMEOUT", "60"))
        self._connect()

    def on_stop(self) -> None:
        if self.ws is not None:
            self.ws.close()

    def _fail(self, name: str, started: float, exc: Exception) -> None:
        SAMPLES["errors"].append(f"{name}: {type(exc).__name__}: {exc}"[:300])
        self.environment.events.request.fire(
            request_type="WS",
            name=name,
            response_time=(time.perf_counter() - started) * 1000,
            response_length=0,
            exception=exc,
            context={},
        )

    def _connect(self) -> None:
        base = urlsplit(self.host or "http://127.0.0.1:8000")
        scheme = "wss" if base.scheme in ("https", "wss") else "ws"
        port = base.port or (443 if scheme == "wss" else 80)
        key = os.environ["XV_WIDGET_KEY"]
        url = f"{scheme}://{base.netloc}/ws/chat/{key}/?visitor={self.visitor}"
        origin = os.environ.get("XV_ORIGIN", f"{base.scheme}://{base.netloc}")
        started = time.perf_counter()
        try:
            sock = None
            if base.hostname in ("127.0.0.1", "localhost"):
                # One loopback address per visitor: 127.0.1.1, 127.0.1.2, ... (never another network).
                source = f"127.0.{1 + self.number // 250}.{1 + self.number % 250}"
                sock = socket.create_connection(
                    ("127.0.0.1", port), timeout=self.timeout, source_address=(source, 0)
                )
            self.ws = websocket.create_connection(url, origin=origin, timeout=self.timeout, socket=sock)
            hello = json.loads(self.ws.recv())
            if hello.get("type") != "hello":
                raise RuntimeError(f"expected hello, got {hello}")
        except Exception as exc:
            self.ws = None
            self._fail("connect", started, exc)
            return
        self.environment.events.request.fire(
            request_type="WS",
            name="connect",
            response_time=(time.perf_counter() - started) * 1000,
            response_length=0,
            exception=None,
            context={},
        )

    @task
    def ask(self) -> None:
        if self.ws is None:
            self._connect()
            if self.ws is None:
                return
        question = random.choice(QUESTIONS)
        started = time.perf_counter()
        first: float | None = None
        length = 0
        try:
            self.ws.send(json.dumps({"type": "message", "text": question}))
            while True:
                frame = json.loads(self.ws.recv())
                kind = frame.get("type")
                if kind == "delta":
                    length += len(frame.get("text", ""))
                    if first is None:
                        first = (time.perf_counter() - started) * 1000
                elif kind == "error":
                    raise RuntimeError(f"error frame {frame.get('code')}: {frame.get('message')}")
                elif kind == "end":
                    break
        except Exception as exc:
            self._fail("answer", started, exc)
            if self.ws is not None:
                self.ws.close()
            self.ws = None
            return
        total = (time.perf_counter() - started) * 1000
        first = first if first is not None else total
        SAMPLES["first_token_ms"].append(first)
        SAMPLES["answer_ms"].append(total)
        fire = self.environment.events.request.fire
        fire(
            request_type="WS",
            name="first token",
            response_time=first,
            response_length=0,
            exception=None,
            context={},
        )
        fire(
            request_type="WS",
            name="answer",
            response_time=total,
            response_length=length,
            exception=None,
            context={},
        )


def _sample_memory(pid: int, started: float) -> None:
    try:
        process = psutil.Process(pid)
    except psutil.NoSuchProcess:
        return
    while True:
        try:
            rss = process.memory_info().rss / 1_048_576
        except psutil.NoSuchProcess:
            return
        SAMPLES["rss_mb"].append([round(time.monotonic() - started, 1), round(rss, 1)])
        gevent.sleep(2.0)


@events.test_start.add_listener
def _on_start(environment: Any, **kwargs: Any) -> None:
    pid = os.environ.get("XV_SERVER_PID")
    SAMPLES["started"] = [time.monotonic()]
    if pid:
        gevent.spawn(_sample_memory, int(pid), time.monotonic())


def summary() -> dict[str, Any]:
    rss = [mb for _, mb in SAMPLES["rss_mb"]]
    quarter = max(1, len(rss) // 4)

    def median(values: list[float]) -> float | None:
        return _percentile(values, 50)

    duration = time.monotonic() - SAMPLES.get("started", [time.monotonic()])[0]
    return {
        "messages": len(SAMPLES["answer_ms"]),
        "errors": len(SAMPLES["errors"]),
        "error_samples": SAMPLES["errors"][:10],
        "seconds": round(duration, 1),
        "first_token_ms": {
            "p50": _percentile(SAMPLES["first_token_ms"], 50),
            "p95": _percentile(SAMPLES["first_token_ms"], 95),
            "max": _percentile(SAMPLES["first_token_ms"], 100),
        },
        "answer_ms": {
            "p50": _percentile(SAMPLES["answer_ms"], 50),
            "p95": _percentile(SAMPLES["answer_ms"], 95),
        },
        "server_rss_mb": {
            "samples": len(rss),
            "first": rss[0] if rss else None,
            "last": rss[-1] if rss else None,
            "max": max(rss) if rss else None,
            # Steady state: the median of the last quarter of the run against the second quarter's
            # (the first quarter is warm-up: models load, caches fill).
            "second_quarter_median": median(rss[quarter : 2 * quarter]) if len(rss) >= 4 else None,
            "last_quarter_median": median(rss[-quarter:]) if len(rss) >= 4 else None,
            "series": SAMPLES["rss_mb"],
        },
    }


@events.quitting.add_listener
def _on_quit(environment: Any, **kwargs: Any) -> None:
    path = os.environ.get("XV_SUMMARY")
    data = summary()
    data["locust_failures"] = environment.stats.total.num_failures if environment.stats else None
    if path:
        with open(path, "w") as out:
            json.dump(data, out, indent=2)
