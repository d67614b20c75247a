"""A local OpenAI-compatible server that plays the extraction model, for tests (real HTTP, in a thread).

It answers each extraction call with the records recorded for the text between the SOURCE markers of
the request (apps.facts.extraction.llm.build_messages), can answer malformed JSON, and can be stopped
and started again on the same port to play a model outage.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from apps.integrations.llm import json_mode_forget

SOURCE = re.compile(r"<<<SOURCE (\w+)>>>\n(.*?)\n<<<END SOURCE \1>>>", re.S)


def record(topic: str, aspect: str, statement: str, value: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "topic": topic,
        "aspect": aspect,
        "statement": statement,
        "value": value,
        "valid_from": None,
        "valid_to": None,
        "replaces": [],
        **extra,
    }


class ModelServer:
    """An OpenAI-compatible chat-completions endpoint that answers with recorded records per text.

    ``records`` maps a phrase to the records of any source text containing it (none: no record);
    ``malformed`` makes every answer invalid JSON, ``delay`` makes each answer wait. ``stop()`` kills it, ``start()`` brings it back on
    the same port."""

    def __init__(self) -> None:
        self.records: dict[str, list[dict[str, Any]]] = {}
        self.malformed = False
        self.delay = 0.0  # seconds before each answer (a slow CPU model)
        self.requests: list[dict[str, Any]] = []
        self.port = 0
        self.httpd: ThreadingHTTPServer | None = None

    def source_of(self, body: dict[str, Any]) -> str:
        found = SOURCE.search(body["messages"][-1]["content"])
        return found.group(2) if found else ""

    def answer(self, body: dict[str, Any]) -> str:
        if self.malformed:
            return '{"records": [{"topic": "Sourdough", "aspect": "pri'  # cut off mid-way
        text = self.source_of(body)
        found = [r for phrase, recs in self.records.items() if phrase in text for r in recs]
        return json.dumps({"records": found})

    def start(self) -> None:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                server.requests.append(body)
                time.sleep(server.delay)
                reply = {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion",
                    "model": "fake",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": server.answer(body)},
                            "finish_reason": "stop",
                        }
                    ],
                }
                data = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def stop(self) -> None:
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()
            self.httpd = None


def serve_model(settings: Any) -> Iterator[ModelServer]:
    """Start a ModelServer and point the settings at it (extractor=llm); use it from a fixture."""
    fake = ModelServer()
    fake.start()
    settings.XORVENTA_EXTRACTOR = "llm"
    settings.XORVENTA_LLM_BASE_URL = f"http://127.0.0.1:{fake.port}/v1"
    settings.XORVENTA_LLM_MODEL = "fake"
    settings.XORVENTA_LLM_JSON_MODE = "json_schema"
    settings.XORVENTA_LLM_TIMEOUT = 5
    json_mode_forget()
    try:
        yield fake
    finally:
        fake.stop()
        json_mode_forget()
