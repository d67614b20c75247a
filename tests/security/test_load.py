"""A short load test (`make test-slow`): 20 websocket visitors for 30 s against a daphne server started
here, through `manage.py loadtest` (locust with bench/locustfile.py). The full run, 50 visitors for
5 minutes against `make run`'s server, is `.venv/bin/python manage.py loadtest` (docs/security.md);
`XV_LOAD_USERS=50 XV_LOAD_SECONDS=300 pytest -m slow tests/security/test_load.py` runs it here instead.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django_tenants.utils import tenant_context

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ORIGIN = "https://sunny-bakery.example"
# The short run; XV_LOAD_USERS=50 XV_LOAD_SECONDS=300 gives the full one on a server started here.
USERS = int(os.environ.get("XV_LOAD_USERS", "20"))
SECONDS = int(os.environ.get("XV_LOAD_SECONDS", "30"))
FACTS = [
    ("Opening hours", "Open Monday to Friday, 7 AM to 3 PM, and Saturday 8 AM to 1 PM."),
    ("Sourdough", "A sourdough loaf is $8.50."),
    ("Delivery", "We deliver within 5 miles for $5."),
    ("Location", "Sunny Bakery is at 14 Harbor Street, Portland."),
    ("Gluten-free", "Gluten-free bread is baked on Thursdays."),
    ("Cakes", "Birthday cakes need 3 days notice."),
    ("Payment", "We accept Visa, Mastercard and cash."),
    ("Parking", "Free parking is behind the shop."),
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_twenty_visitors_for_thirty_seconds_without_errors(
    make_business, tmp_path, tmp_path_factory, request
):
    from apps.chat.models import WidgetSettings
    from apps.facts.services import owner_fact_add

    business = make_business("sunny", "Sunny Bakery")
    with tenant_context(business):
        WidgetSettings.objects.create(allowed_origins=[ORIGIN])
        for topic, statement in FACTS:
            owner_fact_add(topic=topic, statement=statement)
    connection.ensure_connection()
    db = connection.settings_dict
    port = _free_port()
    env = dict(
        os.environ,
        DATABASE_URL=f"postgresql://{db['USER'] or 'postgres'}@/{db['NAME']}?host={db['HOST']}",
        PYTHONUNBUFFERED="1",
    )
    log = tmp_path / "daphne.log"
    with open(log, "ab") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "xorventa.asgi:application"],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
                time.sleep(0.2)
        summary_path = tmp_path / "load.json"
        out = StringIO()
        call_command(
            "loadtest",
            host=f"http://127.0.0.1:{port}",
            key=business.public_key,
            origin=ORIGIN,
            users=USERS,
            spawn_rate=10,
            duration=SECONDS,
            # Short run: a message every 3-6 s to get enough samples; the full run keeps the command's
            # default think time (8-16 s: a visitor reads the answer and types the next question).
            wait_min=3 if SECONDS <= 60 else 8,
            wait_max=6 if SECONDS <= 60 else 16,
            server_pid=server.pid,
            json=str(summary_path),
            stdout=out,
        )
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    summary = json.loads(summary_path.read_text())
    report = tmp_path_factory.getbasetemp() / "load-report.json"
    series = summary["server_rss_mb"].pop("series")
    report.write_text(json.dumps({**summary, "rss_series": series}, indent=2))
    capture = request.config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():
        print(f"\n[load] {out.getvalue().strip()} ({report})")
    assert summary["errors"] == 0, summary["error_samples"]
    assert summary["messages"] >= USERS * SECONDS // 20
    assert summary["first_token_ms"]["p95"] is not None and summary["server_rss_mb"]["samples"] >= 10
