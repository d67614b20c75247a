"""A tiny local website for crawler tests: ThreadingHTTPServer on 127.0.0.1, port 0, in a thread.

Routes are mutable while the server runs, so a test can change or remove pages between two crawls.
Nothing here touches the network beyond the loopback interface.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Route:
    body: bytes | str = b""
    status: int = 200
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before answering (interrupted when the server stops)
    send_length: bool = True  # False: no Content-Length, the body ends when the connection closes

    def payload(self) -> bytes:
        if isinstance(self.body, bytes):
            return self.body
        return self.body.encode("utf-8")


@dataclass
class Hit:
    path: str
    at: float
    user_agent: str


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # the crawler hangs up on slow/huge pages on purpose: no tracebacks on stderr


class Site:
    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.hits: list[Hit] = []
        self.stopping = threading.Event()
        self._server = _Server(("127.0.0.1", 0), self._handler_class())
        self.port = self._server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05})

    def url(self, path: str) -> str:
        return self.base + path

    def paths_hit(self) -> list[str]:
        return [hit.path for hit in self.hits]

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                site.hits.append(Hit(self.path, time.monotonic(), self.headers.get("User-Agent", "")))
                route = site.routes.get(self.path)
                if route is None:
                    route = Route("<html><body><h1>Not found</h1></body></html>", status=404)
                if route.delay and site.stopping.wait(route.delay):
                    return
                payload = route.payload()
                self.send_response(route.status)
                self.send_header("Content-Type", route.content_type)
                if route.send_length:
                    self.send_header("Content-Length", str(len(payload)))
                for name, value in route.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: object) -> None:
                pass

        return Handler

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


@contextmanager
def serve(build: Callable[[Site], None]) -> Iterator[Site]:
    """Start a site whose routes are filled by `build(site)` (it gets the port, for absolute links)."""
    site = Site()
    build(site)
    site.start()
    try:
        yield site
    finally:
        site.stop()


def page(title: str, main: str, nav: str = "", extra_body: str = "", head: str = "") -> str:
    """A realistic small-business page: header + nav, cookie banner, main content, footer."""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>{title} | Crumb &amp; Co Bakery</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="/static/site.css">
  <style>.hero {{ color: brown; }}</style>
  <script>window.dataLayer = window.dataLayer || [];</script>
  {head}
</head>
<body>
  <header class="site-header">
    <a class="logo" href="/"><img src="/static/logo.png" alt="Crumb &amp; Co"></a>
    <nav aria-label="Main">
      <ul>
        <li><a href="/">Home</a></li>
        <li><a href="/menu">Menu</a></li>
        <li><a href="/about">About us</a></li>
        <li><a href="/contact">Contact</a></li>
        {nav}
      </ul>
    </nav>
  </header>
  <div id="cookie-consent" class="cc-banner" role="dialog" aria-label="Cookie consent">
    <p>We use cookies to improve your experience.</p>
    <button>Accept all</button> <a href="/privacy">Privacy policy</a>
  </div>
  <main>
{main}
  </main>
  <footer>
    <p>Crumb &amp; Co Bakery, 12 Mill Lane, Bristol</p>
    <p>Call us: <a href="tel:+441170000000">0117 000 0000</a> ·
       <a href="mailto:hello@crumb.example">hello@crumb.example</a></p>
    <p><a href="https://www.instagram.com/crumbandco">Instagram</a></p>
  </footer>
</body>
</html>
"""
