"""The embedded PostgreSQL 16 + pgvector server (pgserver) used when no DATABASE_URL is set.

One data folder is shared by the web server, the worker and ``manage.py``: the first process to
connect starts the server, the others reattach to it (pgserver keeps a lock file). The server outlives
the process that started it (``cleanup_mode=None``); ``manage.py dbserver stop`` stops it.
"""

from __future__ import annotations

import logging
import os
import subprocess
import threading
from pathlib import Path

import psycopg
from psycopg import sql

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_socket_dirs: dict[Path, str] = {}


class EmbeddedDatabaseError(RuntimeError):
    pass


def ensure_server(data_dir: Path, *, database: str) -> str:
    """Start (or reattach to) the server in ``data_dir`` and make sure ``database`` exists.

    Returns the unix socket directory to use as the connection HOST.
    """
    data_dir = Path(data_dir).resolve()
    with _lock:
        if data_dir in _socket_dirs:
            return _socket_dirs[data_dir]
        os.environ.setdefault("XDG_RUNTIME_DIR", str(data_dir.parent / "run"))
        Path(os.environ["XDG_RUNTIME_DIR"]).mkdir(parents=True, exist_ok=True, mode=0o700)
        data_dir.parent.mkdir(parents=True, exist_ok=True)
        try:
            import pgserver  # lazy: only the embedded set-up needs it
        except ImportError as exc:  # pragma: no cover - install problem
            raise EmbeddedDatabaseError(
                "pgserver is not installed; run `make install` or set DATABASE_URL to an external "
                "PostgreSQL with pgvector >= 0.5."
            ) from exc
        try:
            server = pgserver.get_server(data_dir, cleanup_mode=None)
        except Exception as exc:
            log = data_dir / "log"
            raise EmbeddedDatabaseError(
                f"The embedded PostgreSQL in {data_dir} did not start ({exc}). See its log at {log}."
            ) from exc
        info = server.get_postmaster_info()
        socket_dir = str(info.socket_dir)
        _create_database(socket_dir, database)
        _socket_dirs[data_dir] = socket_dir
        logger.info("embedded PostgreSQL ready in %s (socket %s)", data_dir, socket_dir)
        return socket_dir


def _create_database(socket_dir: str, database: str) -> None:
    with psycopg.connect(host=socket_dir, user="postgres", dbname="postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database]).fetchone()
        if not exists:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))


def stop_server(data_dir: Path) -> bool:
    """Stop the embedded server if it runs. Returns whether one was running."""
    # Lazy, as pgserver in ensure_server: only the embedded set-up needs it (an external database
    # never imports it).
    from pgserver._commands import POSTGRES_BIN_PATH

    data_dir = Path(data_dir).resolve()
    if not (data_dir / "postmaster.pid").exists():
        return False
    pg_ctl = Path(POSTGRES_BIN_PATH) / "pg_ctl"
    # pgserver runs the postmaster as the `pgserver` system user when started as root.
    cmd = [str(pg_ctl), "-D", str(data_dir), "-w", "-m", "fast", "stop"]
    if os.geteuid() == 0:
        cmd = ["su", "-s", "/bin/sh", "pgserver", "-c", " ".join(cmd)]
    subprocess.run(cmd, check=False, capture_output=True, timeout=60)  # noqa: S603
    _socket_dirs.pop(data_dir, None)
    return True
