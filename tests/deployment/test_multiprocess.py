"""The multi-process layout against real services (issue 22, item 4; docs/scaling.md).

Debian's redis-server and PgBouncer (session mode: transaction mode is refused, decision 0016) in
front of the test's PostgreSQL, moto's S3 server, two web processes on two ports and two worker
clusters, each started with the command compose.yaml gives its service (read from the file, so the
two cannot drift apart). Through their real entry points (websocket, the owner's portal over HTTP):

- a visitor connected to web A receives, live, the owner's answer posted through web B;
- an upload accepted by web B is stored in the bucket and read by a worker from there;
- a crawl survives the kill of the worker cluster running it and finishes on the other one;
- the per-visitor rate limit counts across both web processes;
- 200 websocket sessions over both web processes: 0 errors; first-token figures printed and written
  to <XORVENTA_REPORT_DIR or .xorventa/reports>/multiprocess.json.

Marked slow (`make test-slow`, CI): about three minutes on two cores.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import psutil
import pytest
import requests
import yaml
from django.conf import settings
from django.db import connection
from django_tenants.utils import tenant_context

from apps.facts.models import IngestionJob, JobKind, JobStatus
from apps.gaps.models import GapTicket
from tests.deployment.services import free_port, pgbouncer, redis_server, s3_client, s3_environment, s3_server
from tests.facts.sitefixture import Route, Site, page
from tests.facts.test_jobs_worker import kill
from tests.helpers import fresh_rate_window

pytestmark = pytest.mark.slow

ROOT = Path(settings.BASE_DIR)
DATA_ROOT = ROOT / ".xorventa" / "test-multiprocess"
BUCKET = "xorventa-uploads"
PASSWORD = "pw-Long-enough-1"
SESSIONS = 200
# Seconds over which the 200 widgets open: daphne drops a websocket whose accept takes over 5 s, and on
# a 2-core machine shared with other work 200 opens in 10 s were more than two processes accepted.
SPREAD = 30.0
TASK_TIMEOUT, TASK_RETRY = 90, 95  # seconds: a killed worker's task goes to another after TASK_RETRY
UPLOAD = b"Bagels cost $2 each.\nA sourdough loaf costs $6.\nWe open at 7am on weekdays.\n"
QUESTIONS = ["How much is a bagel?", "What does a sourdough loaf cost?", "When do you open on weekdays?"]
CRAWL_PAGES = 6


def compose_command(service: str) -> list[str]:
    """The service's command in compose.yaml, with this interpreter for `python`."""
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    command = list(compose["services"][service]["command"])
    assert command[0] == "python", command
    return [sys.executable, *command[1:]]


class Processes:
    """Product processes started as their compose services, each in its own session (killable)."""

    def __init__(self, env: dict[str, str], logs: Path) -> None:
        self.env = env
        self.logs = logs
        self.procs: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str, service: str, **extra: str) -> subprocess.Popen[bytes]:
        log = self.logs / f"{name}.log"
        # The local folder holds only collected static files here (uploads go to the bucket, asserted
        # below): the web processes share it as two containers of one image would, and it is kept
        # between runs so that they are collected once.
        data_dir = DATA_ROOT / service
        with log.open("ab") as out:
            proc = subprocess.Popen(
                compose_command(service),
                cwd=ROOT,
                env={**self.env, "XORVENTA_DATA_DIR": str(data_dir), **extra},
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.procs[name] = proc
        return proc

    def log(self, name: str) -> str:
        return (self.logs / f"{name}.log").read_text(errors="replace")[-4000:]

    def wait_healthy(self, name: str, port: int, timeout: float = 300) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.procs[name].poll() is None, f"{name} exited: {self.log(name)}"
            try:
                if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.5)
        raise AssertionError(f"{name} not healthy after {timeout} s: {self.log(name)}")

    def wait_worker(self, name: str, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while "running." not in self.log(name) and time.monotonic() < deadline:
            assert self.procs[name].poll() is None, f"{name} exited: {self.log(name)}"
            time.sleep(0.5)
        assert "running." in self.log(name), self.log(name)

    def stop_all(self) -> None:
        for proc in self.procs.values():
            kill(proc, signal.SIGTERM)

    def rss_mb(self, name: str) -> float:
        root = psutil.Process(self.procs[name].pid)
        return sum(p.memory_info().rss for p in [root, *root.children(recursive=True)]) / 2**20

    def holding_connection_to(self, port: int) -> str | None:
        """Which process tree has a TCP connection open to ``port`` (the crawl's slow page)."""
        for name, proc in self.procs.items():
            if proc.poll() is not None:
                continue
            root = psutil.Process(proc.pid)
            for p in [root, *root.children(recursive=True)]:
                try:
                    if any(c.raddr and c.raddr.port == port for c in p.net_connections(kind="tcp")):
                        return name
                except psutil.Error:
                    continue
        return None


@contextmanager
def services(tmp_path: Path) -> Iterator[dict[str, str]]:
    """Redis, moto (with the bucket) and PgBouncer in session mode in front of the test database."""
    connection.ensure_connection()
    db = connection.settings_dict
    with ExitStack() as stack:
        redis_url = stack.enter_context(redis_server(tmp_path / "redis"))
        endpoint = stack.enter_context(s3_server(tmp_path / "moto"))
        port = stack.enter_context(
            pgbouncer(socket_dir=db["HOST"], pg_port=str(db["PORT"] or ""), pool_mode="session")
        )
        s3 = s3_environment(endpoint, BUCKET)
        s3_client(endpoint).create_bucket(Bucket=BUCKET)
        yield {
            "REDIS_URL": redis_url,
            "DATABASE_URL": f"postgresql://postgres@127.0.0.1:{port}/{db['NAME']}",
            **s3,
        }


def product_env(shared: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ, **shared)
    env.update(
        DEBUG="0",  # production settings, as in the test process (not the checkout's .env)
        XORVENTA_WORKERS="1",
        XORVENTA_WEB_PROCESSES="1",
        XORVENTA_HOST="127.0.0.1",
        XORVENTA_TASK_TIMEOUT=str(TASK_TIMEOUT),
        XORVENTA_TASK_RETRY=str(TASK_RETRY),
        PYTHONUNBUFFERED="1",
    )
    env.pop("XORVENTA_TASKS_SYNC", None)
    return env


def owner_session(base: str, email: str) -> requests.Session:
    """Signed in through the real form of web process ``base``."""
    http = requests.Session()
    login = f"{base}/accounts/login/"
    http.get(login, timeout=30).raise_for_status()
    done = http.post(
        login,
        data={"username": email, "password": PASSWORD, "csrfmiddlewaretoken": http.cookies["csrftoken"]},
        timeout=30,
    )
    assert done.ok and "sessionid" in http.cookies, done.text[-2000:]
    return http


def post_form(http: requests.Session, url: str, data: dict[str, Any], **kwargs: Any) -> requests.Response:
    response = http.post(
        url, data={**data, "csrfmiddlewaretoken": http.cookies["csrftoken"]}, timeout=60, **kwargs
    )
    assert response.ok, response.text[-2000:]
    return response


def only_gap(business: Any) -> int:
    try:
        with tenant_context(business):
            return int(GapTicket.objects.get().pk)
    finally:
        connection.close()  # this thread's own connection


def wait_job(business: Any, kind: str, timeout: float) -> IngestionJob:
    deadline = time.monotonic() + timeout
    with tenant_context(business):
        while time.monotonic() < deadline:
            job = IngestionJob.objects.filter(kind=kind).order_by("-pk").first()
            if job and job.status in (JobStatus.DONE, JobStatus.FAILED):
                return job
            time.sleep(0.5)
    raise AssertionError(f"no finished {kind} job after {timeout} s: {job and job.status}")


# -- websocket visitors --------------------------------------------------------------------------


async def ws_connect(url: str, address: str = "127.0.0.1") -> Any:
    from websockets.asyncio.client import connect

    origin: Any = settings.SITE_URL  # websockets types it as its Origin NewType
    ws = await connect(url, origin=origin, open_timeout=60, proxy=None, local_addr=(address, 0))
    hello = json.loads(await asyncio.wait_for(ws.recv(), 60))
    assert hello["type"] == "hello", hello
    return ws


async def ask(ws: Any, text: str) -> tuple[dict[str, Any], float | None]:
    """Send a question; the end (or error) frame and the seconds to the first delta."""
    sent = time.perf_counter()
    await ws.send(json.dumps({"type": "message", "text": text}))
    first = None
    while True:
        frame = json.loads(await asyncio.wait_for(ws.recv(), 120))
        if frame["type"] == "delta" and first is None:
            first = time.perf_counter() - sent
        if frame["type"] in ("end", "error"):
            return frame, first


async def visitor(
    url: str, address: str, question: str, delay: float, asked: list[int], everyone: asyncio.Event
) -> dict[str, Any]:
    """Opens the widget ``delay`` seconds in, asks at once, and stays connected until every visitor has
    had an answer, so all the sessions are open together at the end."""
    try:
        await asyncio.sleep(delay)
        ws = await ws_connect(url, address)
        try:
            frame, first = await ask(ws, question)
            asked.append(1)
            await everyone.wait()
        finally:
            await ws.close()
    except Exception as exc:  # refused, dropped, timed out: every one is an error
        return {"error": f"{type(exc).__name__}: {exc}"[:200]}
    if frame["type"] != "end":
        return {"error": f"error frame: {frame.get('code')}"}
    return {"first_ms": (first or 0.0) * 1000, "decision": frame["decision"]}


async def load(urls: list[str], sessions: int, spread: float) -> tuple[list[dict[str, Any]], float]:
    """``sessions`` visitors over the web processes in turn, opening within ``spread`` seconds; the
    seconds until the last one has its answer (or failed)."""
    rng = random.Random(22)
    asked: list[int] = []
    everyone = asyncio.Event()
    tasks = []
    for i in range(sessions):
        address = f"127.0.{1 + i // 250}.{1 + i % 250}"  # one address each: the per-IP limit is not the test
        url = f"{urls[i % len(urls)]}?visitor=load{i:05d}"
        question = QUESTIONS[i % len(QUESTIONS)]
        tasks.append(
            asyncio.create_task(visitor(url, address, question, rng.uniform(0, spread), asked, everyone))
        )
    started = time.perf_counter()
    while len(asked) + sum(1 for t in tasks if t.done()) < sessions:
        await asyncio.sleep(0.05)
    wall = time.perf_counter() - started
    everyone.set()
    return list(await asyncio.gather(*tasks)), wall


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


# -- the test ------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_two_web_processes_and_two_workers_share_redis_s3_and_postgresql(make_business, make_user, tmp_path):
    business = make_business("sunny", "Sunny Bakery")
    owner = make_user("owner@sunny.example", role="owner", business=business, password=PASSWORD)
    report: dict[str, Any] = {}
    logs = tmp_path / "logs"
    logs.mkdir()
    site = Site()
    links = "".join(f'<li><a href="/p{n}">Page {n}</a></li>' for n in range(1, CRAWL_PAGES))
    site.routes["/robots.txt"] = Route("User-agent: *\nAllow: /\n", content_type="text/plain")
    site.routes["/"] = Route(page("Home", f"<p>Fresh bread every morning.</p><ul>{links}</ul>"))
    for n in range(1, CRAWL_PAGES):
        site.routes[f"/p{n}"] = Route(page(f"Page {n}", f"<p>Cake number {n} costs ${n + 10}.</p>"))
    slow = site.routes["/p3"]
    slow.delay = 8.0  # the first attempt is inside this page when its worker is killed
    site.start()
    with services(tmp_path) as shared, ExitStack() as stack:
        stack.callback(site.stop)
        procs = Processes(product_env(shared), logs)
        stack.callback(procs.stop_all)
        port_a, port_b = free_port(), free_port()
        started = time.perf_counter()
        procs.start("web-a", "web", XORVENTA_PORT=str(port_a))
        procs.wait_healthy("web-a", port_a)
        procs.start("web-b", "web", XORVENTA_PORT=str(port_b))
        procs.start("worker-1", "worker")
        procs.wait_healthy("web-b", port_b)
        procs.wait_worker("worker-1")
        report["start_s"] = round(time.perf_counter() - started, 1)
        ws_a = f"ws://127.0.0.1:{port_a}/ws/chat/{business.public_key}/"
        ws_b = f"ws://127.0.0.1:{port_b}/ws/chat/{business.public_key}/"
        portal_b = f"http://127.0.0.1:{port_b}/t/{business.slug}"
        http = owner_session(portal_b, owner.email)

        # 1. The owner's answer, posted through web B, reaches the visitor connected to web A.
        async def owner_answer_reaches_a() -> dict[str, Any]:
            ws = await ws_connect(f"{ws_a}?visitor=asker0001")
            try:
                end, _ = await ask(ws, "Do you deliver wedding cakes to Bath?")
                assert end["type"] == "end" and end["decision"] == "unknown", end
                ticket = await asyncio.to_thread(only_gap, business)
                await asyncio.to_thread(
                    post_form,
                    http,
                    f"{portal_b}/gaps/{ticket}/answer/",
                    {"answer": "Yes, we deliver wedding cakes to Bath for $15."},
                )
                while True:
                    frame = json.loads(await asyncio.wait_for(ws.recv(), 20))
                    if frame["type"] == "person":  # a person's words: here the owner's answer
                        return frame
            finally:
                await ws.close()

        pushed = asyncio.run(owner_answer_reaches_a())
        assert "deliver wedding cakes to Bath for $15" in pushed["message"]["text"]

        # 2. An upload accepted by web B is in the bucket, and a worker reads it from there.
        t0 = time.perf_counter()
        post_form(
            http,
            f"{portal_b}/sources/upload/",
            {"visibility": "public"},
            files={"file": ("prices.txt", UPLOAD)},
        )
        upload = wait_job(business, JobKind.UPLOAD, timeout=180)
        report["upload_to_done_s"] = round(time.perf_counter() - t0, 1)
        assert upload.status == JobStatus.DONE, (upload.error, procs.log("worker-1"))
        assert upload.facts_added >= 2
        keys = [
            o["Key"]
            for o in s3_client(shared["AWS_S3_ENDPOINT_URL"]).list_objects_v2(Bucket=BUCKET)["Contents"]
        ]
        assert upload.file.name in keys
        assert not list(DATA_ROOT.glob("*/media"))  # nothing went to a local disk

        # 3. A crawl survives the kill of the worker cluster running it and finishes on the other one.
        procs.start("worker-2", "worker")
        procs.wait_worker("worker-2")
        post_form(
            http,
            f"{portal_b}/sources/",
            {"start_url": site.url("/"), "schedule": "off", "max_pages": 20, "max_depth": 2},
        )
        deadline = time.monotonic() + 120
        while (running := procs.holding_connection_to(site.port)) is None and time.monotonic() < deadline:
            time.sleep(0.2)  # the crawl reaches the slow page
        assert running in ("worker-1", "worker-2"), "no worker started the crawl"
        killed_at = time.perf_counter()
        kill(procs.procs[running])
        slow.delay = 0.0
        with tenant_context(business):
            job = IngestionJob.objects.filter(kind=JobKind.CRAWL).get()
            while job.attempt < 2 and time.perf_counter() - killed_at < TASK_RETRY + 60:
                time.sleep(0.2)
                job.refresh_from_db()
        redelivered_at = time.perf_counter()
        crawl = wait_job(business, JobKind.CRAWL, timeout=120)
        report["crawl_redelivered_after_kill_s"] = round(redelivered_at - killed_at, 1)
        report["crawl_second_attempt_s"] = round(time.perf_counter() - redelivered_at, 1)
        assert crawl.status == JobStatus.DONE, (crawl.error, procs.log("worker-1"), procs.log("worker-2"))
        assert crawl.attempt == 2  # the first attempt died with its worker; the second finished it
        assert crawl.done >= CRAWL_PAGES  # its pages (the page template's own nav links count too)
        survivor = "worker-2" if running == "worker-1" else "worker-1"
        assert procs.procs[survivor].poll() is None

        # 4. The per-visitor limit counts across both web processes (20 a minute, not 20 on each).
        async def one_visitor_on_both() -> list[str]:
            a, b = (
                await ws_connect(f"{ws_a}?visitor=limit0001", "127.0.9.1"),
                await ws_connect(f"{ws_b}?visitor=limit0001", "127.0.9.1"),
            )
            outcomes = []
            try:
                for i in range(30):
                    frame, _ = await ask((a, b)[i % 2], QUESTIONS[i % len(QUESTIONS)])
                    outcomes.append(frame["type"] if frame["type"] == "end" else frame["code"])
            finally:
                await a.close()
                await b.close()
            return outcomes

        # 30 asks that straddle a fixed window's end may all be answered (seen in CI: 30 of 30).
        fresh_rate_window(needed=30.0)
        asked_at = time.perf_counter()
        outcomes = asyncio.run(one_visitor_on_both())
        report["rate_limit_30_asks_s"] = round(time.perf_counter() - asked_at, 1)
        assert outcomes.count("end") == settings.XORVENTA_RATE_VISITOR_PER_MIN, outcomes
        assert outcomes.count("rate_limited") == 30 - settings.XORVENTA_RATE_VISITOR_PER_MIN

        # 5. 200 sessions over both web processes, opened within SPREAD seconds, all open at the end.
        load_before = os.getloadavg()[0]
        results, wall = asyncio.run(load([ws_a, ws_b], SESSIONS, spread=SPREAD))
        errors = [r["error"] for r in results if "error" in r]
        first = [r["first_ms"] for r in results if "first_ms" in r]
        report.update(
            sessions=SESSIONS,
            errors=len(errors),
            error_examples=errors[:5],
            answered=sum(r.get("decision") == "answer" for r in results),
            wall_s=round(wall, 1),
            first_token_ms={"median": round(percentile(first, 0.5)), "p95": round(percentile(first, 0.95))},
            spread_s=SPREAD,
            messages_per_s=round(len(first) / wall, 1),
            rss_mb={name: round(procs.rss_mb(name)) for name in ("web-a", "web-b", survivor)},
            load_average_1min=[round(load_before, 1), round(os.getloadavg()[0], 1)],  # before, after
            cores=os.cpu_count(),
        )
    out_dir = Path(os.environ.get("XORVENTA_REPORT_DIR", ROOT / ".xorventa" / "reports"))
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "multiprocess.json").write_text(json.dumps(report, indent=2))
    print(f"\n[multiprocess] {json.dumps(report)}")
    assert report["errors"] == 0, report["error_examples"]
