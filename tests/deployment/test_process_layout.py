"""`manage.py up --web-only` / `--worker-only` (issue 22, item 2): each refuses to start without the
services processes share, and says what to set. The layout itself runs in test_multiprocess.py."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.conf import settings

from apps.tenants.deployment import layout_problems


def test_without_redis_or_a_database_server_both_kinds_refuse_with_what_to_set():
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "DATABASE_URL")}
    for kind in ("--web-only", "--worker-only"):
        done = subprocess.run(
            [sys.executable, "manage.py", "up", kind],
            cwd=settings.BASE_DIR,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode != 0
        assert f"up {kind} refuses to start" in done.stderr
        assert "REDIS_URL is not set" in done.stderr and "DATABASE_URL is not set" in done.stderr
        assert "Xorventa is running" not in done.stdout


@pytest.mark.parametrize("role", ["web", "worker"])
def test_what_is_required_and_what_is_only_warned(settings, role):
    settings.REDIS_URL, settings.DATABASE_URL, settings.XORVENTA_STORAGE = "", "", "local"
    refusals, warnings = layout_problems(role)
    assert [r.split(" ")[0] for r in refusals] == ["REDIS_URL", "DATABASE_URL"]
    assert "XORVENTA_STORAGE=s3" in warnings[0]  # a shared volume is a valid layout: warned, not refused
    # All processes on one machine may share the embedded database; Redis is still needed.
    refusals, _ = layout_problems(role, same_machine=True)
    assert [r.split(" ")[0] for r in refusals] == ["REDIS_URL"]
    settings.REDIS_URL, settings.DATABASE_URL, settings.XORVENTA_STORAGE = (
        "redis://127.0.0.1:6379/0",
        "postgresql://db/xorventa",
        "s3",
    )
    assert layout_problems(role) == ([], [])
