from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from apps.tenants.embedded_db import ensure_server, stop_server


class Command(BaseCommand):
    help = "Start, stop or locate the embedded PostgreSQL server (only when DATABASE_URL is not set)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=["start", "stop", "status"])

    def handle(self, *args: object, action: str, **opts: object) -> None:
        db = settings.DATABASES["default"]
        data_dir = db.get("EMBEDDED_DATA_DIR")
        if not data_dir:
            self.stdout.write("DATABASE_URL is set: the embedded server is not used.")
            return
        path = Path(str(data_dir))
        if action == "stop":
            stopped = stop_server(path)
            self.stdout.write("Stopped." if stopped else "Not running.")
        elif action == "start":
            socket_dir = ensure_server(path, database=str(db["NAME"]))
            self.stdout.write(f"Running: data {path}, socket {socket_dir}")
        else:
            running = (path / "postmaster.pid").exists()
            self.stdout.write(f"{'Running' if running else 'Stopped'}: data {path}")
