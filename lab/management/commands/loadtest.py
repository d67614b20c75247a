"""`manage.py loadtest`: 50 visitors chatting for 5 minutes against a running server (`make run`).

    make run                                   # in one terminal
    .venv/bin/python manage.py loadtest        # in another: 50 users, 5 minutes, the demo business

Runs locust headless with bench/locustfile.py (a websocket user per visitor, each from its own loopback
address so the per-IP limit applies as on the internet), samples the server's memory, and prints the
errors, p50/p95 time to the first token and to the whole answer, and the server's memory at the start,
the end and in steady state. Exits 1 when any message failed. Options pick another business, size and
duration; `--json` writes the summary.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psutil
import websocket
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.tenants.models import Business
from lab.demo import DEMO_SLUG


def server_pid(port: int) -> int | None:
    """The process listening on ``port`` on this machine (the daphne of `make run`)."""
    try:
        connections = psutil.net_connections(kind="tcp")
    except psutil.AccessDenied:
        return None
    for conn in connections:
        if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port and conn.pid:
            return int(conn.pid)
    return None


class Command(BaseCommand):
    help = "Load test: websocket visitors chatting with a business's widget on a running server (locust)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="http://127.0.0.1:8000", help="The running server")
        parser.add_argument("--business", default=None, help="Business slug (default: the demo business)")
        parser.add_argument("--key", help="The widget key (instead of looking the business up)")
        parser.add_argument("--origin", help="Origin header (default: the site URL, always allowed)")
        parser.add_argument("--users", type=int, default=50)
        parser.add_argument("--spawn-rate", type=float, default=10.0, help="Visitors started per second")
        parser.add_argument("--duration", type=int, default=300, help="Seconds")
        parser.add_argument("--wait-min", type=float, default=8.0, help="Think time between messages (s)")
        parser.add_argument("--wait-max", type=float, default=16.0)
        parser.add_argument("--server-pid", type=int, help="Process to sample memory of (default: by port)")
        parser.add_argument("--json", help="Write the summary to this file")
        parser.add_argument(
            "--no-warmup",
            action="store_true",
            help="Skip the one question asked before the run (it loads the server's embedding model)",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        key = opts.get("key") or self._key(opts.get("business"))
        host = opts["host"].rstrip("/")
        port = urlsplit(host).port or 80
        pid = opts.get("server_pid") or server_pid(port)
        origin = opts.get("origin") or settings.SITE_URL
        if not opts["no_warmup"]:
            self._warm_up(host, key, origin)
        locustfile = Path(settings.BASE_DIR) / "bench" / "locustfile.py"
        with tempfile.TemporaryDirectory(prefix="xv-loadtest-") as tmp:
            summary_path = Path(tmp) / "summary.json"
            env = dict(
                os.environ,
                XV_WIDGET_KEY=key,
                XV_ORIGIN=origin,
                XV_SUMMARY=str(summary_path),
                XV_WAIT_MIN=str(opts["wait_min"]),
                XV_WAIT_MAX=str(opts["wait_max"]),
                XV_SERVER_PID=str(pid or ""),
            )
            command = [
                sys.executable,
                "-m",
                "locust",
                "-f",
                str(locustfile),
                "--headless",
                "--only-summary",
                "-u",
                str(opts["users"]),
                "-r",
                str(opts["spawn_rate"]),
                "-t",
                f"{opts['duration']}s",
                "--stop-timeout",
                "30",
                "--host",
                host,
                "--exit-code-on-error",
                "0",
            ]
            self.stdout.write(
                f"{opts['users']} visitors for {opts['duration']} s against {host} "
                f"(widget {key[:8]}..., server pid {pid or 'unknown: no memory samples'})"
            )
            timeout = opts["duration"] + 180
            result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)  # noqa: S603
            if not summary_path.exists():
                raise CommandError(
                    f"locust did not finish:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
                )
            summary = json.loads(summary_path.read_text())
        summary["users"] = opts["users"]
        summary["host"] = host
        if opts.get("json"):
            Path(opts["json"]).write_text(json.dumps(summary, indent=2))
        self._print(summary)
        if summary["errors"] or not summary["messages"]:
            raise CommandError(f"{summary['errors']} failed messages: {summary['error_samples'][:3]}")

    def _warm_up(self, host: str, key: str, origin: str) -> None:
        """One question before the run: a fresh server loads its embedding model on the first message
        (seconds), and the measurement is of a running server, not of its start."""

        base = urlsplit(host)
        scheme = "wss" if base.scheme in ("https", "wss") else "ws"
        url = f"{scheme}://{base.netloc}/ws/chat/{key}/?visitor=loadtest-warmup-0001"
        try:
            ws = websocket.create_connection(url, origin=origin, timeout=120)
            try:
                ws.recv()  # hello
                ws.send(json.dumps({"type": "message", "text": "When are you open?"}))
                while json.loads(ws.recv()).get("type") not in ("end", "error"):
                    pass
            finally:
                ws.close()
        except Exception as exc:
            raise CommandError(f"The server at {host} did not answer a first question: {exc}") from None

    def _key(self, slug: str | None) -> str:
        slug = slug or DEMO_SLUG
        business = Business.objects.filter(slug=slug, is_active=True).first()
        if business is None:
            raise CommandError(
                f"No business '{slug}': run `make run` (it seeds the demo) or pass --business."
            )
        return business.public_key

    def _print(self, s: dict[str, Any]) -> None:
        rss = s["server_rss_mb"]
        growth = (
            f"{rss['last_quarter_median'] - rss['second_quarter_median']:+.1f} MB"
            if rss["last_quarter_median"] is not None and rss["second_quarter_median"] is not None
            else "n/a"
        )
        self.stdout.write(
            f"messages {s['messages']}, errors {s['errors']} in {s['seconds']} s\n"
            f"first token p50 {s['first_token_ms']['p50']} ms, p95 {s['first_token_ms']['p95']} ms, "
            f"max {s['first_token_ms']['max']} ms\n"
            f"whole answer p50 {s['answer_ms']['p50']} ms, p95 {s['answer_ms']['p95']} ms\n"
            f"server memory (RSS): start {rss['first']} MB, end {rss['last']} MB, max {rss['max']} MB, "
            f"steady-state growth (last quarter vs second quarter) {growth}, {rss['samples']} samples"
        )
