"""REDIS_URL against Debian's redis-server (issue 22, item 1): django-q2's Redis broker carries a task
from one process to a real `manage.py qcluster` worker, and the channel layer carries a message
between two processes. The upload in the task is on moto's S3 server, so the worker reads from object
storage what the other process stored."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from channels_redis.core import RedisChannelLayer
from django.conf import settings
from django.db import connection
from django_q.models import OrmQ, Task
from django_tenants.utils import tenant_context

from apps.facts.models import IngestionJob, JobStatus
from tests.deployment.services import redis_server, s3_client, s3_environment, s3_server
from tests.facts import test_jobs_worker

BUCKET = "xorventa-uploads"


def _env(redis_url: str, **extra: str) -> dict[str, str]:
    """A product process on the test database with REDIS_URL set (what a second machine would run)."""
    connection.ensure_connection()
    db = connection.settings_dict
    url = f"postgresql://{db['USER'] or 'postgres'}@/{db['NAME']}?host={db['HOST']}"
    env = dict(os.environ, DATABASE_URL=url, REDIS_URL=redis_url, XORVENTA_WORKERS="1", PYTHONUNBUFFERED="1")
    env.pop("XORVENTA_TASKS_SYNC", None)
    return {**env, **extra}


def _manage(env: dict[str, str], code: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip()


@pytest.mark.django_db(transaction=True)
def test_a_task_goes_through_redis_to_a_qcluster_worker_that_reads_s3(business, tmp_path: Path):
    with redis_server(tmp_path / "redis") as redis_url, s3_server(tmp_path / "moto") as endpoint:
        s3 = s3_environment(endpoint, BUCKET)
        client = s3_client(endpoint)
        client.create_bucket(Bucket=BUCKET)
        env = _env(redis_url, **s3)
        # The "web" side: stores the upload and enqueues its job, then exits.
        job_id = int(
            _manage(
                env,
                "from django_tenants.utils import schema_context\n"
                "from apps.facts.ingestion import document_upload\n"
                f"with schema_context({business.schema_name!r}):\n"
                "    print(document_upload(filename='prices.txt', data=b'Bagel is $2.\\n', background=True).pk)",
            ).splitlines()[-1]
        )
        assert OrmQ.objects.count() == 0  # not on the ORM broker: the task waits in Redis
        log = tmp_path / "worker.log"
        with log.open("ab") as out:
            worker = subprocess.Popen(
                [sys.executable, "manage.py", "qcluster"],
                cwd=settings.BASE_DIR,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            deadline = time.monotonic() + 180
            with tenant_context(business):
                while time.monotonic() < deadline:
                    job = IngestionJob.objects.get(pk=job_id)
                    if job.status in (JobStatus.DONE, JobStatus.FAILED):
                        break
                    time.sleep(0.5)
            # The cluster's monitor stores the task's result a moment after the task returns: wait for
            # it before stopping the worker, or the result is lost with the monitor.
            stored = Task.objects.filter(func="apps.tenants.tasks.run_for_business", success=True)
            while not stored.exists() and time.monotonic() < deadline:
                time.sleep(0.2)
        finally:
            test_jobs_worker.kill(worker)
        assert job.status == JobStatus.DONE, (job.error, log.read_text(errors="replace")[-3000:])
        assert job.facts_added >= 1
        keys = [o["Key"] for o in client.list_objects_v2(Bucket=BUCKET)["Contents"]]
        assert keys == [job.file.name]
        assert Task.objects.filter(func="apps.tenants.tasks.run_for_business", success=True).exists()


def test_the_channel_layer_carries_a_message_between_two_processes(tmp_path: Path):
    async def scenario(redis_url: str) -> dict:
        # This process listens as a consumer of the group would; another process sends with the
        # product's settings (REDIS_URL -> channels_redis), as a worker posting an answer does.
        layer = RedisChannelLayer(hosts=[redis_url])
        channel = await layer.new_channel()
        await layer.group_add("xorventa-probe", channel)
        code = (
            "from asgiref.sync import async_to_sync\n"
            "from channels.layers import get_channel_layer\n"
            "async_to_sync(get_channel_layer().group_send)("
            "'xorventa-probe', {'type': 'chat.message', 'text': 'from another process'})"
        )
        env = dict(os.environ, REDIS_URL=redis_url)
        await asyncio.to_thread(_manage, env, code)
        message = await asyncio.wait_for(layer.receive(channel), timeout=10)
        await layer.flush()
        return message

    with redis_server(tmp_path / "redis") as redis_url:
        message = asyncio.run(scenario(redis_url))
    assert message == {"type": "chat.message", "text": "from another process"}
