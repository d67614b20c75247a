"""What the settings and the start-up need to know about the services a deployment runs beside us.

Settings switch on environment variables only (README, "Beyond one machine"): these helpers turn a
missing extra or a half-set variable into a clear ImproperlyConfigured at start, not a traceback at
the first upload, and refuse a connection pooler that would mix businesses' schemas.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.core.checks import Error
from django.core.exceptions import ImproperlyConfigured
from django.db import connections


def require_extra(extra: str, modules: Iterable[str], why: str) -> None:
    """Refuse to start when ``why`` asks for modules that the ``xorventa[extra]`` extra installs."""
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if missing:
        raise ImproperlyConfigured(
            f"{why}, but {', '.join(missing)} is not installed: pip install 'xorventa[{extra}]' "
            f"(or unset the variable to stay on one machine)."
        )


def s3_storage_options() -> dict[str, Any]:
    """django-storages' S3Storage options from the usual AWS_* variables (XORVENTA_STORAGE=s3)."""
    require_extra("s3", ("storages", "boto3"), "XORVENTA_STORAGE=s3")
    bucket = os.environ.get("AWS_STORAGE_BUCKET_NAME", "").strip()
    if not bucket:
        raise ImproperlyConfigured(
            "XORVENTA_STORAGE=s3 needs AWS_STORAGE_BUCKET_NAME (and AWS_S3_ENDPOINT_URL for a server "
            "other than AWS, AWS_S3_REGION_NAME, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)."
        )
    options: dict[str, Any] = {
        "bucket_name": bucket,
        # Private objects, read through the storage API (or short-lived signed URLs), never public.
        "default_acl": None,
        "querystring_auth": True,
        # Two uploads with one name keep both files, as on the local disk.
        "file_overwrite": False,
    }
    for option, variable in (
        ("endpoint_url", "AWS_S3_ENDPOINT_URL"),
        ("region_name", "AWS_S3_REGION_NAME"),
        ("access_key", "AWS_ACCESS_KEY_ID"),
        ("secret_key", "AWS_SECRET_ACCESS_KEY"),
    ):
        value = os.environ.get(variable, "").strip()
        if value:  # unset: boto3's own chain (instance role, ~/.aws) decides
            options[option] = value
    return options


POOLER_ADVICE = (
    "Xorventa keeps each business in its own PostgreSQL schema and sets it with a session-level "
    "search_path, and its tasks commit in several transactions (a crawl commits page by page): a pooler "
    "in transaction or statement mode hands that session to other clients between transactions "
    "(measured: 312 of 600 reads crossed businesses). Change: pool_mode = session for this database in "
    "pgbouncer.ini (or point DATABASE_URL at PostgreSQL directly). See docs/decisions/0016-poolers.md."
)


def shared_backend_pid(params: dict[str, Any], rounds: int = 3) -> int | None:
    """The PostgreSQL backend two open client connections were both served by, or None.

    Two sessions open at once never share a backend on a direct connection or behind a pooler in
    session mode. Behind transaction (or statement) pooling the backend goes back to the pool after
    each statement outside a transaction, and PgBouncer gives the next client the one released last:
    the two clients see the same pid. Several rounds, each client asking in turn, cover a pool with
    other idle backends. Hand-written: no library or SQL command tells a pooled client the pool mode.
    """
    # Lazy: settings imports this module, and psycopg (0.25 s, libpq) is needed only by this check.
    import psycopg

    params = {k: v for k, v in params.items() if k not in ("cursor_factory", "context")}
    with (
        psycopg.connect(**params, autocommit=True) as first,
        psycopg.connect(**params, autocommit=True) as second,
    ):
        for _ in range(rounds):
            pids = []
            for conn in (first, second):
                row = conn.execute("SELECT pg_backend_pid()").fetchone()
                pids.append(row[0] if row else None)
            if pids[0] is not None and pids[0] == pids[1]:
                return int(pids[0])
    return None


def pooler_refusal(alias: str = "default") -> str:
    """Why the product must not run on the database ``alias`` (a transaction pooler), or ''."""
    pid = shared_backend_pid(connections[alias].get_connection_params())
    if pid is None:
        return ""
    return f"The database connection goes through a pooler in transaction mode (two clients shared backend {pid}). {POOLER_ADVICE}"


def check_pooler(app_configs: Any = None, databases: Any = None, **kwargs: Any) -> list[Any]:
    """System check (database tag: `manage.py check --database default`, run before a worker starts)."""
    return [
        Error(refusal, id="xorventa.E001") for alias in databases or () if (refusal := pooler_refusal(alias))
    ]


def layout_problems(role: str, *, same_machine: bool = False) -> tuple[list[str], list[str]]:
    """What stops ``role`` ("web" or "worker") from running beside other processes, and what to warn.

    Refused: no REDIS_URL (each process would keep its own cache, so every rate limit and the model
    budget would count per process, and its own channel layer, so an owner's answer posted by one
    process would never reach a visitor connected to another; a worker would also listen on the
    database queue while the web processes, if they have Redis, enqueue on Redis); the embedded
    database (it lives on this machine's disk and listens on a local socket only) unless
    ``same_machine`` says every process runs here. Warned: uploads on the local disk, which is right
    only when every web process and worker sees the same directory (one host, or a shared volume).
    """
    refusals: list[str] = []
    warnings: list[str] = []
    if not settings.REDIS_URL:
        refusals.append(
            "REDIS_URL is not set: web processes and workers share their cache (rate limits), channel "
            "layer (live answers) and task queue through Redis. pip install '.[redis]' and set "
            "REDIS_URL=redis://host:6379/0 on every process."
        )
    if not settings.DATABASE_URL and not same_machine:
        refusals.append(
            "DATABASE_URL is not set, so this process would use the embedded PostgreSQL, which only "
            "processes on this machine can reach. Set DATABASE_URL=postgresql://user:password@host/db "
            "(PostgreSQL 16 with pgvector) on every process, or pass --same-machine if all of them run "
            "here and share it."
        )
    if settings.XORVENTA_STORAGE != "s3":
        warnings.append(
            f"Uploads are stored on the local disk ({settings.MEDIA_ROOT}): a worker reads them only if "
            "it sees the same directory. On several machines set XORVENTA_STORAGE=s3 (pip install "
            "'.[s3]', AWS_STORAGE_BUCKET_NAME and the AWS_* variables)."
        )
    return refusals, warnings


@contextmanager
def migration_lock(alias: str = "default") -> Iterator[None]:
    """Hold a PostgreSQL advisory lock for the block: several web processes starting at once (one per
    machine) migrate one after the other, and the later ones find nothing left to do."""
    with connections[alias].cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s)", [MIGRATION_LOCK_KEY])
    try:
        yield
    finally:
        with connections[alias].cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [MIGRATION_LOCK_KEY])


MIGRATION_LOCK_KEY = 0x58_6F_72_76  # "Xorv": any fixed 64-bit number no other code on the database uses
