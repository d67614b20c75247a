"""A website served from memory on 127.0.0.1, for crawls that must not leave the machine.

The security suite plants attacks in one and crawls it; the ingestion benchmark crawls a 200-page one.
Both go through the real crawler and job, over real HTTP on a local port.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from apps.outbound import allow_local_server

NOT_FOUND = "<html><body>Not found</body></html>"


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a crawler closing a connection early is not an error worth a traceback


@contextmanager
def serve_pages(routes: Mapping[str, str]) -> Iterator[str]:
    """Serve ``routes`` (path -> body; ``.txt`` paths as plain text, the rest as HTML); yields the base
    URL. Unknown paths are 404s; the query string is ignored."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            body = routes.get(path)
            status = 200 if body is not None else 404
            kind = "text/plain" if path.endswith(".txt") and body is not None else "text/html; charset=utf-8"
            payload = (body if body is not None else NOT_FOUND).encode()
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: object) -> None:
            pass

    with serve_handler(Handler) as base:
        yield base


@contextmanager
def serve_handler(handler: Callable[..., BaseHTTPRequestHandler]) -> Iterator[str]:
    """Run ``handler`` on 127.0.0.1 (a free port) in a thread; yields the base URL, without a slash.

    While it runs, this process's crawler may read this one server (allow_local_server): loopback
    stays refused for everything else, and for other processes (the web server, the worker)."""
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with allow_local_server(base):
            yield base
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
