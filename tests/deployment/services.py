"""Real shared services started by the deployment tests: PgBouncer, Redis, an S3-compatible server.

Each is a local process on a loopback port, started from the Debian package or the PyPI one the test
needs, and stopped when the test ends. A test whose binary is absent is skipped with the install line.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen[bytes], log: Path, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"exited with {proc.returncode}: {log.read_text(errors='replace')[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(
        f"not listening on {port} after {timeout} s: {log.read_text(errors='replace')[-2000:]}"
    )


def _binary(name: str, package: str) -> str:
    path = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin")
    if not path:
        pytest.skip(f"{name} is not installed (apt-get install -y {package}; .ci/run does it)")
    return path


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextmanager
def pgbouncer(*, socket_dir: str, pg_port: str, pool_mode: str) -> Iterator[int]:
    """PgBouncer in ``pool_mode`` on 127.0.0.1, in front of the embedded PostgreSQL's unix socket.

    Its files live in a folder of their own under /tmp: PgBouncer runs as the database server's user
    (it refuses root), which cannot enter pytest's root-only temporary folders."""
    binary = _binary("pgbouncer", "pgbouncer")
    port = free_port()
    workdir = Path(tempfile.mkdtemp(prefix="xorventa-pgbouncer-"))
    (workdir / "users.txt").write_text('"postgres" ""\n')
    log = workdir / "pgbouncer.log"
    (workdir / "pgbouncer.ini").write_text(
        "[databases]\n"
        f"* = host={socket_dir} port={pg_port or 5432}\n"
        "[pgbouncer]\n"
        f"listen_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n"
        f"auth_type = trust\nauth_file = {workdir / 'users.txt'}\n"
        f"pool_mode = {pool_mode}\nmax_client_conn = 200\ndefault_pool_size = 30\n"
        # psycopg sends extra_float_digits; our backend sends `options` only when ef_search is set.
        "ignore_startup_parameters = extra_float_digits,options\n"
        f"logfile = {log}\npidfile = {workdir / 'pgbouncer.pid'}\n"
    )
    command = [binary, str(workdir / "pgbouncer.ini")]
    if os.geteuid() == 0:  # PgBouncer refuses to run as root: run it as the embedded server's user
        user = "pgserver" if _user_exists("pgserver") else "postgres"
        shutil.chown(workdir, user)
        for child in workdir.iterdir():
            shutil.chown(child, user)
        command = ["runuser", "-u", user, "--", *command]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port, proc, log)
        yield port
    finally:
        _stop(proc)
        shutil.rmtree(workdir, ignore_errors=True)


def _user_exists(name: str) -> bool:
    import pwd

    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


@contextmanager
def redis_server(workdir: Path) -> Iterator[str]:
    """Debian's redis-server on a loopback port, no persistence; yields its redis:// URL."""
    binary = _binary("redis-server", "redis-server")
    port = free_port()
    workdir.mkdir(parents=True, exist_ok=True)
    log = workdir / "redis.log"
    proc = subprocess.Popen(
        [
            binary,
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(workdir),
            "--logfile",
            str(log),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_for_port(port, proc, log)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        _stop(proc)


@contextmanager
def s3_server(workdir: Path) -> Iterator[str]:
    """moto's S3-compatible server (PyPI moto[server]) on a loopback port; yields its endpoint URL."""
    binary = Path(sys.executable).with_name("moto_server")
    if not binary.exists():
        pytest.skip("moto_server is not installed (pip install 'moto[server]'; the dev extra has it)")
    port = free_port()
    workdir.mkdir(parents=True, exist_ok=True)
    log = workdir / "moto.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(binary), "-H", "127.0.0.1", "-p", str(port)], stdout=out, stderr=subprocess.STDOUT
        )
    try:
        wait_for_port(port, proc, log)
        yield f"http://127.0.0.1:{port}"
    finally:
        _stop(proc)


def s3_environment(endpoint: str, bucket: str) -> dict[str, str]:
    """The variables that put a product process's uploads on the moto server at ``endpoint``."""
    return {
        "XORVENTA_STORAGE": "s3",
        "AWS_STORAGE_BUCKET_NAME": bucket,
        "AWS_S3_ENDPOINT_URL": endpoint,
        "AWS_S3_REGION_NAME": "us-east-1",
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
    }


def s3_client(endpoint: str) -> Any:
    """A boto3 client of the moto server at ``endpoint`` (the test's own view of the bucket)."""
    import boto3

    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )
