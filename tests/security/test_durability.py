"""Nothing lost: kill the database server mid-ingestion and mid-conversation, restart it, and check that
every acknowledged fact and message is there, once, and that re-running the interrupted work reaches
the state an uninterrupted run reaches.

This kills a PostgreSQL server, so it never touches the session's test server: each test starts its own
throwaway embedded server (pgserver) in a temporary folder, and all product code runs in child
processes (`manage.py shell -c ...`) with DATABASE_URL pointing at it. The fault is a SIGKILL of the
postmaster (its pid is the first line of postmaster.pid): no clean shutdown, no checkpoint, crash
recovery on restart (apps.tenants.embedded_db.ensure_server).

Killing the worker mid-crawl is tests/facts/test_jobs_worker.py (slow); the database-level refusal of
UPDATE, DELETE and TRUNCATE of fact history is tests/facts/test_rules.py.
Figures go to <pytest tmp>/durability-report.json.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from django.conf import settings

from tests.facts.sitefixture import serve
from tests.facts.test_jobs_worker import PAGES, build_site

pytestmark = pytest.mark.slow

REPORT: dict[str, Any] = {"faults_injected": 0, "acknowledged": {}, "lost": {}, "duplicated": {}}


class CrashDB:
    """A throwaway embedded PostgreSQL that can be killed and restarted, and `manage.py` against it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.data_dir = root / "pgdata"
        self.url = ""

    def env(self) -> dict[str, str]:
        env = dict(os.environ, DATABASE_URL=self.url, XORVENTA_DATA_DIR=str(self.root / "data"))
        env.update(PYTHONUNBUFFERED="1", XDG_RUNTIME_DIR=str(self.root / "run"))
        env.pop("XORVENTA_TASKS_SYNC", None)
        return env

    def start(self) -> float:
        """Start (or restart after a crash) the server; returns how long it took."""
        started = time.monotonic()
        code = (
            "import sys; from pathlib import Path; from apps.tenants.embedded_db import ensure_server; "
            "print(ensure_server(Path(sys.argv[1]), database='xvcrash'))"
        )
        env = dict(os.environ, XDG_RUNTIME_DIR=str(self.root / "run"))
        result = subprocess.run(
            [sys.executable, "-c", code, str(self.data_dir)],
            cwd=settings.BASE_DIR,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr[-3000:] + self.log()
        socket_dir = result.stdout.strip().splitlines()[-1]
        self.url = f"postgresql://postgres@/xvcrash?host={socket_dir}"
        return time.monotonic() - started

    def kill(self) -> None:
        """SIGKILL the postmaster, then wait until it and its children are gone (reaped)."""
        pid = int((self.data_dir / "postmaster.pid").read_text().splitlines()[0])
        postmaster = psutil.Process(pid)
        children = postmaster.children(recursive=True)
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 60
        for proc in [postmaster, *children]:
            # A killed process stays a zombie until its parent (here: init) reaps it, and pgserver
            # takes a zombie postmaster for a running server: wait for the real end.
            while proc.is_running():
                assert time.monotonic() < deadline, f"process {proc.pid} did not go away"
                time.sleep(0.1)
        REPORT["faults_injected"] += 1

    def log(self) -> str:
        log = self.data_dir / "log"
        return log.read_text()[-3000:] if log.exists() else ""

    def manage(self, *args: str, timeout: float = 300) -> str:
        result = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=settings.BASE_DIR,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        assert result.returncode == 0, (args[:2], result.stdout[-2000:], result.stderr[-4000:])
        return result.stdout

    def shell(self, code: str, timeout: float = 300) -> Any:
        """Run product code in a child process; it prints one JSON line starting with RESULT."""
        out = self.manage("shell", "-c", code, timeout=timeout)
        lines = [line for line in out.splitlines() if line.startswith("RESULT ")]
        assert lines, out[-2000:]
        return json.loads(lines[-1][len("RESULT ") :])

    def popen(self, code: str, log: Path) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [sys.executable, "manage.py", "shell", "-c", code],
            cwd=settings.BASE_DIR,
            env=self.env(),
            stdout=subprocess.PIPE,
            stderr=open(log, "a"),
            text=True,
        )

    def stop(self) -> None:
        from apps.tenants.embedded_db import stop_server

        stop_server(self.data_dir)


@pytest.fixture(scope="module")
def report(tmp_path_factory, request) -> Iterator[dict[str, Any]]:
    yield REPORT
    out = tmp_path_factory.getbasetemp() / "durability-report.json"
    out.write_text(json.dumps(REPORT, indent=2, sort_keys=True))
    capture = request.config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():
        print(f"\n[durability] {json.dumps(REPORT, sort_keys=True)} ({out})")


@pytest.fixture
def crash_db(tmp_path) -> Iterator[CrashDB]:
    db = CrashDB(tmp_path)
    db.start()
    try:
        db.manage("migrate_schemas", "--shared", "-v", "0")
        db.shell(SETUP)
        yield db
    finally:
        db.stop()


SETUP = """
import json
from apps.tenants.services import business_create, reseller_create
reseller = reseller_create(name="Crash Agency", slug="crash-agency")
# Same name: the built-in extractor writes the business's name into statements.
for slug in ("crashy", "steady"):
    business_create(reseller=reseller, name="Sunny Bakery", slug=slug)
print("RESULT " + json.dumps("ok"))
"""

KNOWLEDGE = """
def knowledge():
    from apps.facts.models import Evidence, Fact, FactStatus, Source
    facts = sorted(
        [f.topic.name, f.aspect, f.statement, f.value, str(f.valid_from), str(f.valid_to),
         sorted(Evidence.objects.filter(fact=f, withdrawn_at__isnull=True).values_list("source__ref", flat=True))]
        for f in Fact.objects.filter(status=FactStatus.LIVE).select_related("topic")
    )
    sources = sorted(list(s) for s in Source.objects.values_list("kind", "ref", "is_active", "last_hash"))
    return {"facts": facts, "sources": sources, "fact_count": Fact.objects.count()}
"""

CRAWL = """
import json
from django_tenants.utils import schema_context
from apps.facts.ingestion import website_crawl_start
from apps.facts.models import Fact

def progress(job):
    # Called after each page's transaction committed: these facts are acknowledged.
    facts = [[pk, s] for pk, s in Fact.objects.values_list("pk", "statement")]
    print("ACK " + json.dumps({"job": job.pk, "done": job.done, "facts": facts}), flush=True)

with schema_context("biz_crashy"):
    website_crawl_start(start_url=URL, progress=progress)
print("FINISHED", flush=True)
"""

STATE = (
    KNOWLEDGE
    + """
import json
from django_tenants.utils import schema_context
from apps.facts.models import Fact, IngestionJob
from apps.chat.models import Message
from django.db.models import Count
with schema_context(SCHEMA):
    state = knowledge()
    state["fact_ids"] = [[pk, s] for pk, s in Fact.objects.values_list("pk", "statement")]
    state["jobs"] = [[j.pk, j.status, j.done, j.attempt] for j in IngestionJob.objects.order_by("pk")]
    state["messages"] = [[m.pk, m.role, m.text, m.conversation_id] for m in Message.objects.order_by("pk")]
    state["duplicate_live_facts"] = list(
        Fact.objects.filter(status="live").values("topic_id", "aspect", "statement")
        .annotate(n=Count("id")).filter(n__gt=1).values_list("statement", flat=True)
    )
print("RESULT " + json.dumps(state, default=str))
"""
)

RESUME = (
    KNOWLEDGE
    + """
import json
from django_tenants.utils import schema_context
from apps.facts.ingestion import ingestion_job_resume, website_crawl_start
from apps.facts.models import IngestionJob
with schema_context("biz_crashy"):
    job = ingestion_job_resume(job=IngestionJob.objects.get(pk=JOB), background=False)
    resumed = {"status": job.status, "attempt": job.attempt, "facts_added": job.facts_added,
               "outcomes": sorted(i["outcome"] for i in job.report["items"]), "knowledge": knowledge()}
with schema_context("biz_steady"):
    job = website_crawl_start(start_url=URL)
    steady = {"status": job.status, "facts_added": job.facts_added,
              "outcomes": sorted(i["outcome"] for i in job.report["items"]), "knowledge": knowledge()}
print("RESULT " + json.dumps({"resumed": resumed, "steady": steady}, default=str))
"""
)

CHAT = """
import json
from django_tenants.utils import schema_context
from apps.chat.models import Message
from apps.chat.services import answer_once, conversation_open
QUESTIONS = ["When are you open?", "How much is a sourdough loaf?", "Do you deliver?", "Where are you?"]
with schema_context("biz_crashy"):
    conversation = conversation_open(visitor_id=VISITOR)
    for i in range(100000):
        text = f"{VISITOR} Q{i}: " + QUESTIONS[i % len(QUESTIONS)]
        turn, reply = answer_once(conversation_id=conversation.pk, text=text)
        asked = Message.objects.filter(conversation=conversation, role="visitor").order_by("-pk").first()
        # answer_once returned: both messages are committed (turn_begin and turn_finish are atomic).
        print("ACK " + json.dumps({"i": i, "question": asked.pk, "text": text, "reply": reply.pk}), flush=True)
"""


def _read_acks(proc: subprocess.Popen[str], until: Any, timeout: float) -> list[dict[str, Any]]:
    acks: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("ACK "):
            acks.append(json.loads(line[4:]))
            if until(acks):
                return acks
    pytest.fail(f"the driver stopped before the fault point: {acks[-1:]}")


def _finish(proc: subprocess.Popen[str]) -> list[dict[str, Any]]:
    """Let the driver fail on the dead server; any acknowledgement printed before it counts too."""
    try:
        out, _ = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    return [json.loads(line[4:]) for line in (out or "").splitlines() if line.startswith("ACK ")]


def test_killing_the_database_mid_ingestion_loses_no_acknowledged_fact_and_the_rerun_converges(
    crash_db: CrashDB, tmp_path: Path, report: dict[str, Any]
) -> None:
    log = tmp_path / "driver.log"
    with serve(build_site(delay=0.6)) as site:
        url = site.url("/")
        proc = crash_db.popen(f"URL = {url!r}\n" + CRAWL, log)
        acks = _read_acks(proc, lambda a: a[-1]["done"] >= 3, timeout=180)
        crash_db.kill()
        acks += _finish(proc)
        assert proc.returncode != 0, "the crawl finished before the fault: nothing was interrupted"
        restart_seconds = crash_db.start()

        acknowledged = {tuple(f) for ack in acks for f in ack["facts"]}
        job_id = acks[-1]["job"]
        state = crash_db.shell("SCHEMA = 'biz_crashy'\n" + STATE)
        present = {tuple(f) for f in state["fact_ids"]}
        lost = acknowledged - present
        assert not lost, f"acknowledged facts missing after the crash: {sorted(lost)[:5]}"
        assert state["duplicate_live_facts"] == []
        job = next(j for j in state["jobs"] if j[0] == job_id)
        assert job[1] == "running" and job[2] < len(PAGES), job  # it was interrupted, not finished

        result = crash_db.shell(f"URL = {url!r}\nJOB = {job_id}\n" + RESUME)
    resumed, steady = result["resumed"], result["steady"]
    assert resumed["status"] == "done" and resumed["attempt"] == 2
    assert steady["knowledge"]["facts"], "the extractor learned nothing: the comparison would be empty"
    assert resumed["knowledge"] == steady["knowledge"]
    assert resumed["facts_added"] == steady["facts_added"] and resumed["outcomes"] == steady["outcomes"]
    report["acknowledged"]["facts"] = len(acknowledged)
    report["lost"]["facts"] = len(lost)
    report["duplicated"]["facts"] = len(state["duplicate_live_facts"])
    report["ingestion"] = {
        "pages_acknowledged_before_kill": acks[-1]["done"],
        "pages": len(PAGES),
        "restart_seconds": round(restart_seconds, 2),
        "rerun_equals_uninterrupted": True,
    }


def test_killing_the_database_mid_conversation_loses_no_acknowledged_message(
    crash_db: CrashDB, tmp_path: Path, report: dict[str, Any]
) -> None:
    # Knowledge to answer from (owner facts: no crawl needed here).
    crash_db.shell(
        """
import json
from django_tenants.utils import schema_context
from apps.facts.services import owner_fact_add
with schema_context("biz_crashy"):
    owner_fact_add(topic="Opening hours", statement="Open Monday to Friday, 7 AM to 3 PM.")
    owner_fact_add(topic="Sourdough", statement="A sourdough loaf is $8.")
    owner_fact_add(topic="Delivery", statement="We deliver within 5 miles.")
print("RESULT " + json.dumps("ok"))
"""
    )
    log = tmp_path / "chat.log"
    rounds, acknowledged, in_flight_orphans = 3, [], 0
    for round_no in range(rounds):
        proc = crash_db.popen(f"VISITOR = 'visitor-crash-{round_no:04d}'\n" + CHAT, log)
        # Kill at a different point each round (after 6, 9, 12 acknowledged turns).
        acks = _read_acks(proc, lambda a, n=6 + 3 * round_no: len(a) >= n, timeout=180)
        crash_db.kill()
        acks += _finish(proc)
        crash_db.start()
        acknowledged += acks
        state = crash_db.shell("SCHEMA = 'biz_crashy'\n" + STATE)
        by_pk = {m[0]: m for m in state["messages"]}
        for ack in acks:
            assert by_pk.get(ack["question"], [None, None, None])[2] == ack["text"], ack
            assert by_pk.get(ack["reply"], [None, None])[1] == "assistant", ack
        texts = [m[2] for m in state["messages"] if m[1] == "visitor"]
        duplicated = [t for t in {a["text"] for a in acks} if texts.count(t) != 1]
        assert duplicated == [], duplicated
        # The turn in flight when the server died: its question may have been stored without a reply.
        conversation = by_pk[acks[-1]["question"]][3]
        after = [m for m in state["messages"] if m[3] == conversation and m[0] > acks[-1]["reply"]]
        in_flight_orphans += len(after)
    messages = 2 * len(acknowledged)
    report["acknowledged"]["messages"] = messages
    report["lost"]["messages"] = 0
    report["duplicated"]["messages"] = 0
    report["conversation"] = {
        "rounds": rounds,
        "turns_acknowledged": len(acknowledged),
        "unacknowledged_questions_stored_without_reply": in_flight_orphans,
    }
