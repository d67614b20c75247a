"""Settings switch on environment variables only (issue 22, item 1): each is read in a fresh process."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from django.conf import settings

PRINT = (
    "import json, django; django.setup(); from django.conf import settings as s; "
    "print(json.dumps({'q': s.Q_CLUSTER, 'storage': s.STORAGES['default'], "
    "'layer': s.CHANNEL_LAYERS['default'], 'cache': s.CACHES['default']['BACKEND']}))"
)
S3_VARIABLES = (
    "XORVENTA_STORAGE",
    "AWS_STORAGE_BUCKET_NAME",
    "AWS_S3_ENDPOINT_URL",
    "AWS_S3_REGION_NAME",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
)


def _settings(**env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in (*S3_VARIABLES, "REDIS_URL")}
    return subprocess.run(
        [sys.executable, "-c", env.pop("PRELUDE", "") + PRINT],
        env={**base, "DJANGO_SETTINGS_MODULE": "xorventa.settings", **env},
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _config(**env: str) -> dict:
    done = _settings(**env)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_one_machine_by_default():
    config = _config()
    assert config["q"]["orm"] == "default" and "redis" not in config["q"]
    assert config["storage"]["BACKEND"] == "django.core.files.storage.FileSystemStorage"
    assert config["layer"]["BACKEND"] == "channels.layers.InMemoryChannelLayer"
    assert config["cache"].endswith("LocMemCache")


def test_redis_url_moves_cache_channel_layer_and_task_broker():
    url = "redis://127.0.0.1:6399/2"
    config = _config(REDIS_URL=url)
    assert config["q"]["redis"] == url and "orm" not in config["q"]  # django-q2 checks "orm" first
    assert config["q"]["broker_class"] == "xorventa.task_broker.ReliableRedis"  # acknowledges tasks
    # A socket timeout above channels-redis's 5 s blocking receive (redis-py 8 defaults to 5 s).
    hosts = [{"address": url, "socket_timeout": 30}]
    assert config["layer"] == {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": hosts}}
    assert config["cache"] == "django.core.cache.backends.redis.RedisCache"


def test_s3_storage_from_the_usual_variables():
    config = _config(
        XORVENTA_STORAGE="s3",
        AWS_STORAGE_BUCKET_NAME="uploads",
        AWS_S3_ENDPOINT_URL="http://127.0.0.1:9000",
        AWS_S3_REGION_NAME="eu-west-1",
        AWS_ACCESS_KEY_ID="key",
        AWS_SECRET_ACCESS_KEY="secret",
    )
    assert config["storage"]["BACKEND"] == "storages.backends.s3.S3Storage"
    assert config["storage"]["OPTIONS"] == {
        "bucket_name": "uploads",
        "endpoint_url": "http://127.0.0.1:9000",
        "region_name": "eu-west-1",
        "access_key": "key",
        "secret_key": "secret",
        "default_acl": None,
        "querystring_auth": True,
        "file_overwrite": False,
    }


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"XORVENTA_STORAGE": "s3"}, "XORVENTA_STORAGE=s3 needs AWS_STORAGE_BUCKET_NAME"),
        ({"XORVENTA_STORAGE": "nfs"}, "XORVENTA_STORAGE must be 'local' or 's3'"),
    ],
)
def test_half_configured_storage_refuses_to_start(env, message):
    done = _settings(**env)
    assert done.returncode != 0
    assert "ImproperlyConfigured" in done.stderr and message in done.stderr


@pytest.mark.parametrize(
    ("module", "env", "extra"),
    [
        ("channels_redis", {"REDIS_URL": "redis://127.0.0.1:6399/0"}, "redis"),
        ("storages", {"XORVENTA_STORAGE": "s3", "AWS_STORAGE_BUCKET_NAME": "uploads"}, "s3"),
    ],
)
def test_a_missing_extra_names_the_pip_line(module, env, extra):
    # The extras are installed here: the process is started with the module hidden (a None entry in
    # sys.modules makes importlib's find_spec answer "not installed").
    done = _settings(**env, PRELUDE=f"import sys; sys.modules[{module!r}] = None; ")
    assert done.returncode != 0
    assert f"pip install 'xorventa[{extra}]'" in done.stderr, done.stderr[-2000:]
