"""`make run`: migrate, seed the demo, then run the ASGI server and the task worker until Ctrl-C."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from typing import Any, cast

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.portal.signals import local_run_prepared


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

    def handle(self, *args: Any, **opts: Any) -> None:
        started = time.perf_counter()
        from xorventa.deployment import pooler_refusal

        refusal = pooler_refusal()
        if refusal:  # before anything runs: a transaction pooler mixes businesses (decision 0016)
            raise CommandError(refusal)
        call_command("migrate_schemas", interactive=False, verbosity=0)
        call_command("collectstatic", interactive=False, verbosity=0)
        from apps.gaps.schedules import digest_schedule_ensure

        digest_schedule_ensure()
        from apps.visitors.tasks import retention_schedule_ensure

        retention_schedule_ensure()  # nightly: each business deletes conversations older than it keeps
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
        from django.db import connections

        connections.close_all()  # the children open their own
        env = dict(os.environ, PYTHONUNBUFFERED="1", XORVENTA_ASGI_SERVER="1")
        children = self._web_servers(opts["host"], opts["port"], max(1, opts["web_processes"]), env)
        if not opts["no_worker"]:
            children.append(subprocess.Popen([sys.executable, "manage.py", "qcluster"], env=env))
            from django_q.tasks import async_task

            # The worker loads the embedding model anyway: it checks every business's index against
            # the model (golden vector) and re-embeds stale ones without delaying the start
            # (apps/retrieval/tasks.py).
            async_task("apps.retrieval.tasks.index_reconcile_all", task_name="index-check-at-start")
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
            self.stdout.write(
                "Stopped the server and the worker. The database keeps running; `make dbstop` stops it."
            )

    @staticmethod
    def _web_servers(
        host: str, port: int, processes: int, env: dict[str, str]
    ) -> list[subprocess.Popen[bytes]]:
        """daphne on host:port; with several processes they share one listening socket opened here (the
        kernel hands each new connection to one of them), as gunicorn's workers do."""
        command = [sys.executable, "-m", "daphne"]
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
