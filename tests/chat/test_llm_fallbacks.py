"""No empty answers (issue 19, item 3): whatever the model's server does wrong, the visitor gets the
built-in answer for that turn, the turn's log says why, and the owner's dashboard counts it.

The model is a real HTTP server on 127.0.0.1 (a thread of this test) that misbehaves the way servers
do: an empty reply, a stream cut before or after some text (llama.cpp interrupts a stream when another
request arrives), an HTML error page from a proxy, an error event before the first token, a refusal,
silence past the first-token time-out, and text the sanitiser removes whole. Questions go in through
the widget's HTTP API with the language model configured in settings, as in production.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.core.cache import caches
from django.test import Client
from django_tenants.utils import tenant_context

from apps.chat.models import Message, Role, WidgetSettings
from apps.facts.services import owner_fact_add
from apps.portal.selectors import dashboard

QUESTION = "How much is a sourdough loaf?"


def _event(delta: dict[str, Any], finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return (
        b"data: "
        + json.dumps({"id": "c1", "object": "chat.completion.chunk", "choices": [choice]}).encode()
        + b"\n\n"
    )


ROLE = _event({"role": "assistant", "content": ""})
STOP = _event({}, "stop") + b"data: [DONE]\n\n"

# name -> (what the server writes after its status line and headers, the kind of failure expected)
BEHAVIOURS: dict[str, tuple[str, bytes, str]] = {
    "empty reply": ("text/event-stream", ROLE + STOP, "empty"),
    "whitespace reply": ("text/event-stream", ROLE + _event({"content": " \n "}) + STOP, "empty"),
    "stream cut before any text": ("text/event-stream", ROLE, "interrupted"),
    "HTML instead of a stream": ("text/html", b"<html><body><h1>502 Bad Gateway</h1></body></html>", "not-a-stream"),
    "error before the first token": (
        "text/event-stream",
        b'data: {"error": {"message": "the slot was interrupted", "code": 500}}\n\n',
        "error",
    ),
    "refusal": ("text/event-stream", ROLE + _event({"refusal": "I can't help with that."}) + STOP, "refused"),
}  # fmt: skip


class MisbehavingModel:
    def __init__(self) -> None:
        self.content_type = "text/event-stream"
        self.body = ROLE + _event({"content": "A sourdough loaf is $8.50."}) + STOP
        self.delay = 0.0
        self.chunked_then_drop = False
        self.requests = 0
        model = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                model.requests += 1
                time.sleep(model.delay)
                self.send_response(200)
                self.send_header("Content-Type", model.content_type)
                if model.chunked_then_drop:
                    # a chunked body whose connection drops mid-way: no terminating chunk
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(model.body), model.body))
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.send_header("Connection", "close")
                self.end_headers()
                # no Content-Length: the body ends where the server closes; a client that gave up
                # waiting (the time-out test) has closed its end already
                with contextlib.suppress(OSError):
                    self.wfile.write(model.body)
                self.close_connection = True

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()


@pytest.fixture
def model(settings: Any) -> Iterator[MisbehavingModel]:
    fake = MisbehavingModel()
    settings.XORVENTA_LLM_BASE_URL = f"http://127.0.0.1:{fake.httpd.server_address[1]}/v1"
    settings.XORVENTA_LLM_MODEL = "test-model"
    settings.XORVENTA_LLM_FIRST_TOKEN_TIMEOUT = 0.5
    settings.XORVENTA_ANSWERER = "llm"
    caches["global"].clear()
    try:
        yield fake
    finally:
        caches["global"].clear()
        fake.httpd.shutdown()
        fake.httpd.server_close()


@pytest.fixture
def bakery(make_business: Any) -> Any:
    business = make_business("sunny", "Sunny Bakery")
    with tenant_context(business):
        WidgetSettings.objects.create()
        owner_fact_add(topic="Sourdough", statement="A sourdough loaf is $8.50.")
        owner_fact_add(topic="Opening hours", statement="Open Monday to Friday, 7 AM to 3 PM.")
    return business


def ask(business: Any, visitor: str, text: str = QUESTION) -> tuple[dict[str, Any], Message]:
    response = Client().post(
        f"/api/v1/widgets/{business.public_key}/messages",
        {"text": text, "visitor_id": visitor},
        content_type="application/json",
        HTTP_HOST="localhost",
    )
    assert response.status_code == 200, response.content
    with tenant_context(business):
        message = Message.objects.get(pk=response.json()["message_id"])
    return response.json(), message


def builtin_text(business: Any, settings: Any) -> str:
    settings.XORVENTA_ANSWERER = "builtin"
    body, _message = ask(business, "visitor-builtin")
    settings.XORVENTA_ANSWERER = "llm"
    assert "$8.50" in body["text"]
    return str(body["text"])


def model_health(business: Any) -> tuple[int, int]:
    with tenant_context(business):
        stats = dashboard()
    return stats.model_turns_today, stats.model_fallbacks_today


@pytest.mark.django_db
def test_a_good_stream_is_the_models_answer_and_no_fallback(bakery: Any, model: MisbehavingModel) -> None:
    model.body = (
        ROLE + _event({"content": "We sell a sourdough loaf "}) + _event({"content": "for $8.50."}) + STOP
    )
    body, message = ask(bakery, "visitor-good")
    assert body["text"] == message.text == "We sell a sourdough loaf for $8.50."
    assert message.answerer == "llm" and message.decision == "answer"
    assert "flags" not in message.retrieval_log
    assert model_health(bakery) == (1, 0)


@pytest.mark.django_db
@pytest.mark.parametrize("behaviour", list(BEHAVIOURS))
def test_a_failed_model_turn_is_the_builtin_answer_flagged_and_counted(
    bakery: Any, model: MisbehavingModel, settings: Any, behaviour: str
) -> None:
    expected = builtin_text(bakery, settings)
    model.content_type, model.body, kind = BEHAVIOURS[behaviour]
    body, message = ask(bakery, "visitor-llm")
    assert model.requests == 1
    assert body["text"] == message.text == expected
    assert message.decision == "answer" and message.answerer == "llm"
    flags = message.retrieval_log["flags"]
    assert "fallback:builtin" in flags and f"llm-failed:{kind}" in flags and "llm-interrupted" not in flags
    assert model_health(bakery) == (1, 1)


@pytest.mark.django_db
def test_a_connection_dropped_before_any_text_and_a_silent_server_fall_back(
    bakery: Any, model: MisbehavingModel, settings: Any
) -> None:
    expected = builtin_text(bakery, settings)
    model.body, model.chunked_then_drop = ROLE, True
    _body, dropped = ask(bakery, "visitor-drop")
    assert dropped.text == expected and "llm-failed:interrupted" in dropped.retrieval_log["flags"]
    model.chunked_then_drop = False
    model.delay = 1.5  # past the first-token time-out (0.5 s in this test)
    started = time.perf_counter()
    _body, silent = ask(bakery, "visitor-slow")
    assert time.perf_counter() - started < 1.4
    assert silent.text == expected and "llm-failed:timeout" in silent.retrieval_log["flags"]
    assert model_health(bakery) == (2, 2)


@pytest.mark.django_db
def test_a_stream_cut_after_some_text_keeps_it_and_adds_the_builtin_answer(
    bakery: Any, model: MisbehavingModel, settings: Any
) -> None:
    """Text already sent to the visitor cannot be taken back: it stays, and the built-in answer follows
    on a new line, so the reply still ends complete; the turn is flagged as interrupted."""
    expected = builtin_text(bakery, settings)
    # longer than the canary guard holds back (its length less one), so it reaches the visitor
    model.body = ROLE + _event({"content": "Our sourdough loaves are baked "})  # and the server stops
    _body, message = ask(bakery, "visitor-cut")
    # what the guards had passed on stays (the canary guard still held the last 17 characters back)
    assert message.text == "Our sourdough \n\n" + expected
    flags = message.retrieval_log["flags"]
    assert {"fallback:builtin", "llm-failed:interrupted", "llm-interrupted"} <= set(flags)
    assert message.decision == "answer"
    assert model_health(bakery) == (1, 1)


@pytest.mark.django_db
def test_the_owners_dashboard_shows_todays_model_fallbacks(
    bakery: Any, model: MisbehavingModel, make_user: Any, settings: Any
) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    owner = Client()
    owner.force_login(make_user("owner@sunny.example", role="owner", business=bakery))
    assert b"model fallback" not in owner.get("/t/sunny/").content  # no model turn yet: no line
    ask(bakery, "visitor-good")
    model.body = ROLE + STOP
    ask(bakery, "visitor-empty")
    page = " ".join(owner.get("/t/sunny/").content.decode().split())
    assert '<span class="num">1</span> model fallback today (of 2 model answers' in page


@pytest.mark.django_db
def test_text_the_sanitiser_removes_whole_is_never_an_empty_answer(
    bakery: Any, model: MisbehavingModel, settings: Any
) -> None:
    expected = builtin_text(bakery, settings)
    model.body = ROLE + _event({"content": "<script>alert(1)</script>"}) + STOP
    _body, message = ask(bakery, "visitor-script")
    assert message.text == expected and message.decision == "answer"
    assert {"empty-answer", "fallback:builtin"} <= set(message.retrieval_log["flags"])
    with tenant_context(bakery):
        assert not Message.objects.filter(role=Role.ASSISTANT, text="").exists()
