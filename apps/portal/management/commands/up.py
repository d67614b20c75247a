"""`make run`: migrate, seed the demo, then run the ASGI server and the task worker until Ctrl-C.

For several machines (README, "Beyond one machine"; docs/scaling.md) the same command starts one kind of
process: `up --web-only` (migrations, then N ASGI server processes) or `up --worker-only` (a django-q2
cluster of N workers). Each refuses to start when the services shared between processes are missing
(apps.tenants.deployment.layout_problems).
"""

from __future__ import annotations

import hashlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, cast

from django.conf import settings
from django.contrib.staticfiles.finders import get_finders
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection, connections
from django.db.migrations.executor import MigrationExecutor
from django_q.tasks import async_task

from apps.accounts.api_keys import api_key_log_schedule_ensure
from apps.gaps.schedules import digest_schedule_ensure
from apps.portal.signals import local_run_prepared
from apps.tenants.deployment import layout_problems, migration_lock, pooler_refusal
from apps.visitors.tasks import retention_schedule_ensure
from apps.webhooks.tasks import prune_schedule_ensure


class Command(BaseCommand):
    help = "Run Xorventa locally: database, migrations, demo data, web server (with websockets) and worker."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default=os.environ.get("XORVENTA_HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("XORVENTA_PORT", "8000")))
        parser.add_argument(
            "--demo",
            action="store_true",
            help="Seed the demo even with DEBUG off (as XORVENTA_DEMO=1): logins with published passwords",
        )
        parser.add_argument("--no-demo", action="store_true", help="Do not seed the demo business")
        parser.add_argument("--no-worker", action="store_true")
        parser.add_argument(
            "--web-processes",
            type=int,
            default=int(os.environ.get("XORVENTA_WEB_PROCESSES", "1")),
            help="ASGI server processes sharing the port (one per core serves more visitors; each loads "
            "the embedding model, ~0.7 GB)",
        )
        only = parser.add_mutually_exclusive_group()
        only.add_argument(
            "--web-only",
            action="store_true",
            help="Migrate, then run only the web server processes (--processes of them, default "
            "XORVENTA_WEB_PROCESSES); needs REDIS_URL and DATABASE_URL",
        )
        only.add_argument(
            "--worker-only",
            action="store_true",
            help="Run only a task worker cluster (--processes workers, default XORVENTA_WORKERS); needs "
            "REDIS_URL and DATABASE_URL, and a web process to have migrated",
        )
        parser.add_argument("--processes", type=int, help="With --web-only or --worker-only: how many")
        parser.add_argument(
            "--same-machine",
            action="store_true",
            help="With --web-only or --worker-only: every process runs on this machine, so the embedded "
            "database may be shared",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["web_only"] or opts["worker_only"]:
            self._one_kind(**opts)
            return
        started = time.perf_counter()
        self._refuse_pooler()
        self._prepare()
        # The demo lives in the development-only lab app, which answers this signal when installed.
        banner: list[str] = []
        if not opts["no_demo"]:
            replies = local_run_prepared.send(
                sender=type(self), asked_demo=opts["demo"], port=opts["port"], log=self.stdout.write
            )
            for _receiver, lines in replies:
                banner += cast("list[str]", lines)  # each receiver returns its banner lines
            if opts["demo"] and not replies:
                raise CommandError("--demo needs the development tools: set XORVENTA_LAB=1 (lab/).")
        connections.close_all()  # the children open their own
        env = dict(os.environ, PYTHONUNBUFFERED="1", XORVENTA_ASGI_SERVER="1")
        children = self._web_servers(opts["host"], opts["port"], max(1, opts["web_processes"]), env)
        if not opts["no_worker"]:
            children.append(subprocess.Popen([sys.executable, "manage.py", "qcluster"], env=env))
            self._index_check()
        base = f"http://{settings.BASE_DOMAIN}:{opts['port']}"
        self.stdout.write(
            self.style.SUCCESS(f"\nXorventa is running (ready in {time.perf_counter() - started:.1f} s):")
            + f"\n  Public site and API    {base}/   (API docs {base}/api/docs/)"
            + f"\n  Staff admin            {base}/admin/ (operators only)"
            + "".join(f"\n  {line}" for line in banner)
            + (
                ""
                if banner
                else "\n  No demo (DEBUG is off): `manage.py create_operator EMAIL` makes a staff admin."
            )
            + "\nPress Ctrl-C to stop.\n"
        )
        self._supervise(children)
        self.stdout.write(
            "Stopped the server and the worker. The database keeps running; `make dbstop` stops it."
        )

    # -- steps shared by the layouts ------------------------------------------------------------

    @staticmethod
    def _refuse_pooler() -> None:
        refusal = pooler_refusal()
        if refusal:  # before anything runs: a transaction pooler mixes businesses (decision 0016)
            raise CommandError(refusal)

    @staticmethod
    def _prepare() -> None:
        """Migrations, static files and the nightly schedules: idempotent, and serialised between web
        processes that start at the same moment on several machines."""
        with migration_lock():
            call_command("migrate_schemas", interactive=False, verbosity=0)
            digest_schedule_ensure()
            retention_schedule_ensure()  # nightly: each business deletes conversations older than it keeps
            prune_schedule_ensure()  # nightly: webhook delivery logs keep 30 days
            api_key_log_schedule_ensure()  # nightly: API keys' request log keeps XORVENTA_API_KEY_LOG_DAYS
        Command._collect_static()

    @staticmethod
    def _collect_static() -> None:
        """collectstatic, unless STATIC_ROOT already holds these very files: it compresses every file
        again on each run (whitenoise), which took 95 s of a web process's start on a busy 2-core machine.
        Hand-written: collectstatic has no up-to-date check of its own."""
        listing = hashlib.sha256()
        for finder in get_finders():
            for path, storage in sorted(finder.list([]), key=lambda item: item[0]):
                stat = os.stat(storage.path(path))
                listing.update(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
        marker = Path(settings.STATIC_ROOT) / ".collected"
        if marker.exists() and marker.read_text() == listing.hexdigest():
            return
        call_command("collectstatic", interactive=False, verbosity=0)
        marker.write_text(listing.hexdigest())

    @staticmethod
    def _index_check() -> None:
        # The worker loads the embedding model anyway: it checks every business's index against the
        # model (golden vector) and re-embeds stale ones without delaying the start
        # (apps/retrieval/tasks.py).
        async_task("apps.retrieval.tasks.index_reconcile_all", task_name="index-check-at-start")

    @staticmethod
    def _supervise(children: list[subprocess.Popen[bytes]]) -> None:
        """Until Ctrl-C, SIGTERM or a child's exit; then stop every child (SIGINT, 15 s, then kill)."""
        stopping = False

        def stop(signum: int, frame: object) -> None:
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        try:
            while not stopping and all(child.poll() is None for child in children):
                time.sleep(0.3)
        finally:
            for child in children:
                if child.poll() is None:
                    child.send_signal(signal.SIGINT)
            deadline = time.monotonic() + 15
            for child in children:
                try:
                    child.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    child.kill()

    # -- one kind of process (several machines) ---------------------------------------------------

    def _one_kind(self, **opts: Any) -> None:
        role = "web" if opts["web_only"] else "worker"
        refusals, warnings = layout_problems(role, same_machine=opts["same_machine"])
        if refusals:
            raise CommandError(f"up --{role}-only refuses to start:\n- " + "\n- ".join(refusals))
        for warning in warnings:
            self.stderr.write(self.style.WARNING(f"Warning: {warning}"))
        self._refuse_pooler()
        env = dict(os.environ, PYTHONUNBUFFERED="1", XORVENTA_ASGI_SERVER="1")
        if role == "web":
            processes = max(1, opts["processes"] or opts["web_processes"])
            self._prepare()
            connections.close_all()  # the children open their own
            children = self._web_servers(opts["host"], opts["port"], processes, env)
            self._index_check()
            where = f"http://{opts['host']}:{opts['port']}/"
            line = f"{processes} web process(es) on {where} (health: {where}healthz)"
        else:
            self._refuse_unmigrated()
            if opts["processes"]:
                env["XORVENTA_WORKERS"] = str(max(1, opts["processes"]))
            children = [subprocess.Popen([sys.executable, "manage.py", "qcluster"], env=env)]
            line = f"a task worker cluster of {env.get('XORVENTA_WORKERS', settings.Q_CLUSTER['workers'])} on Redis"
        self.stdout.write(self.style.SUCCESS(f"Xorventa is running {line}. Ctrl-C stops it."))
        self._supervise(children)

    @staticmethod
    def _refuse_unmigrated() -> None:
        """A worker on a database its code has not migrated would fail task after task: say so at once."""
        executor = MigrationExecutor(connection)
        if executor.migration_plan(executor.loader.graph.leaf_nodes()):
            raise CommandError(
                "The database is not migrated for this version: start a web process first "
                "(`manage.py up --web-only` migrates) or run `manage.py migrate_schemas`."
            )

    @staticmethod
    def _web_servers(
        host: str, port: int, processes: int, env: dict[str, str]
    ) -> list[subprocess.Popen[bytes]]:
        """daphne on host:port; with several processes they share one listening socket opened here (the
        kernel hands each new connection to one of them), as gunicorn's workers do."""
        # A widget's connection waits up to 30 s for its hello rather than daphne's 5 s: on a busy
        # machine the accept (two database calls) took longer, and daphne rejected the visitor (HTTP
        # 403) instead of queueing them (tests/deployment/test_multiprocess.py).
        command = [sys.executable, "-m", "daphne", "--websocket_connect_timeout", "30"]
        if processes == 1:
            return [
                subprocess.Popen(  # noqa: S603 - our interpreter, our app
                    [*command, "-b", host, "-p", str(port), "xorventa.asgi:application"], env=env
                )
            ]
        listener = socket.create_server((host, port), backlog=1024)
        listener.set_inheritable(True)
        fd = listener.fileno()
        children = [
            subprocess.Popen(  # noqa: S603 - our interpreter, our app
                [*command, "--fd", str(fd), "xorventa.asgi:application"], env=env, pass_fds=(fd,)
            )
            for _ in range(processes)
        ]
        listener.close()  # the children hold it now
        return children
