"""Structured output against a local fake of each server dialect (issue 19, item 1).

Each fake is a real HTTP server on 127.0.0.1 that takes a schema only in its own form and answers any
other form with the error shape the real server returns: llama.cpp's OpenAI-compatible server (HTTP
500 "Input should be 'text' or 'json_object'"), OpenAI / vLLM / Ollama >= 0.5 (json_schema), a plain
JSON-mode server (older Ollama; the schema must reach the prompt), and a tools-only server. The
extractor runs through its real entry point (LLMExtractor.extract -> apps.integrations.llm.complete_json).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from apps.facts.extraction.base import ExtractionError
from apps.facts.extraction.llm import RESPONSE_SCHEMA, LLMExtractor
from apps.integrations.llm import JSON_MODES, LLMConfig, LLMError, json_mode_forget, json_modes_to_try
from tests.facts.test_llm_extractor import ANSWER, RECORDED_RECORDS, context

LLAMA_CPP_500 = {
    "error": {
        "message": "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
        "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', "
        "'ctx': {'expected': \"'text' or 'json_object'\"}}]",
        "type": "internal_server_error",
        "param": None,
        "code": None,
    }
}


def _invalid(message: str, param: str | None = None) -> tuple[int, dict[str, Any]]:
    return 400, {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": None}}


def _content(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def openai_like(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """OpenAI, vLLM and Ollama >= 0.5 on /v1: json_schema; an unknown key in response_format is refused."""
    fmt = body.get("response_format") or {}
    if fmt.get("type") == "json_schema" and set(fmt) == {"type", "json_schema"}:
        assert fmt["json_schema"]["schema"] == RESPONSE_SCHEMA
        return 200, {"message": _content(json.dumps(RECORDED_RECORDS))}
    extra = sorted(set(fmt) - {"type", "json_schema"})
    return _invalid(f"Unrecognized request argument supplied: {', '.join(extra) or 'response_format'}")


def llama_cpp(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """llama-cpp-python's server: response_format type is 'text' or 'json_object', with an optional schema."""
    fmt = body.get("response_format") or {}
    if fmt.get("type") not in (None, "text", "json_object"):
        return 500, LLAMA_CPP_500
    if fmt.get("schema") != RESPONSE_SCHEMA:
        return 200, {"message": _content("Here are the records you asked for.")}  # unconstrained prose
    return 200, {"message": _content(json.dumps(RECORDED_RECORDS))}


def json_mode_only(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """A server with plain JSON mode only: the model follows the schema only if the prompt carries it."""
    fmt = body.get("response_format") or {}
    if fmt.get("type") != "json_object":
        return _invalid(f"invalid response_format type: {fmt.get('type')}", "response_format")
    if set(fmt) != {"type"}:
        return _invalid('json: unknown field "schema" in response_format', "response_format")
    system = body["messages"][0]["content"]
    assert (
        body["messages"][0]["role"] == "system"
        and len([m for m in body["messages"] if m["role"] == "system"]) == 1
    ), "the schema must join the one system message"
    if json.dumps(RESPONSE_SCHEMA, separators=(",", ":")) not in system:
        return 200, {"message": _content('{"answer": "yes"}')}
    return 200, {"message": _content(json.dumps(RECORDED_RECORDS))}


def tools_only(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """A server without response_format at all; forced function calling works."""
    if "response_format" in body:
        return _invalid("response_format is not supported by this model", "response_format")
    (tool,) = body["tools"]
    name = tool["function"]["name"]
    assert tool["function"]["parameters"] == RESPONSE_SCHEMA
    assert body["tool_choice"] == {"type": "function", "function": {"name": name}}
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(RECORDED_RECORDS)},
    }
    return 200, {
        "message": {"role": "assistant", "content": None, "tool_calls": [call]},
        "finish_reason": "tool_calls",
    }


DIALECTS = {
    "openai_vllm_ollama": (openai_like, "json_schema"),
    "llama_cpp": (llama_cpp, "json_object_schema"),
    "json_mode_only": (json_mode_only, "json_object"),
    "tools_only": (tools_only, "tools"),
}


class DialectServer:
    def __init__(self, behave: Any) -> None:
        self.requests: list[dict[str, Any]] = []
        self.behave = behave
        self.override: tuple[int, dict[str, Any]] | None = None
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                server.requests.append(body)
                status, reply = server.override or server.behave(body)
                if status == 200:
                    choice = {"index": 0, "finish_reason": "stop", **reply}
                    reply = {"id": "chatcmpl-1", "object": "chat.completion", "choices": [choice]}
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def config(self, mode: str = "auto") -> LLMConfig:
        port = self.httpd.server_address[1]
        return LLMConfig(
            base_url=f"http://127.0.0.1:{port}/v1", model="test-model", timeout=5, json_mode=mode
        )

    def modes_sent(self) -> list[str]:
        out = []
        for body in self.requests:
            fmt = body.get("response_format") or {}
            if "tools" in body:
                out.append("tools")
            elif fmt.get("type") == "json_object":
                out.append("json_object_schema" if "schema" in fmt else "json_object")
            else:
                out.append(str(fmt.get("type")))
        return out


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[DialectServer] = []
    json_mode_forget()

    def start(name: str) -> DialectServer:
        servers.append(DialectServer(DIALECTS[name][0]))
        return servers[-1]

    try:
        yield start
    finally:
        json_mode_forget()  # a later test's server may get the same port
        for s in servers:
            s.httpd.shutdown()
            s.httpd.server_close()


@pytest.mark.parametrize("dialect", list(DIALECTS))
def test_each_dialect_is_detected_and_remembered(serve: Any, dialect: str, caplog: Any) -> None:
    server = serve(dialect)
    expected = DIALECTS[dialect][1]
    tried = list(JSON_MODES[: JSON_MODES.index(expected) + 1])
    extractor = LLMExtractor(server.config())
    with caplog.at_level(logging.INFO, logger="apps.integrations.llm"):
        first = extractor.extract(ANSWER, context())
        second = extractor.extract(ANSWER, context())
    assert [c.statement for c in first] == [c.statement for c in second]
    assert [c.aspect for c in first] == ["availability", "price", "lead time"]
    # the chain up to the form that works, once; then straight to it
    assert server.modes_sent() == [*tried, expected]
    assert json_modes_to_try(server.config()) == (expected,)
    learnt = [
        r for r in caplog.records if r.levelno == logging.WARNING and "takes structured output" in r.message
    ]
    assert len(learnt) == (0 if expected == "json_schema" else 1)


def test_llama_cpp_error_names_the_format_and_is_not_retried_when_configured(serve: Any) -> None:
    server = serve("llama_cpp")
    with pytest.raises(LLMError, match="Input should be 'text' or 'json_object'"):
        LLMExtractor(server.config("json_schema")).extract(ANSWER, context())
    assert server.modes_sent() == ["json_schema"]
    assert len(LLMExtractor(server.config("json_object_schema")).extract(ANSWER, context())) == 3
    assert server.modes_sent() == ["json_schema", "json_object_schema"]


@pytest.mark.parametrize(
    "status,reply",
    [
        (500, {"error": {"message": "model overloaded"}}),
        (503, {"error": {"message": "Service Unavailable"}}),
        (429, {"error": {"message": "rate limit: tools quota exceeded"}}),
        (401, {"error": {"message": "invalid api key for response_format"}}),
    ],
)
def test_an_error_about_anything_but_the_format_is_not_a_fallback(
    serve: Any, status: int, reply: Any
) -> None:
    server = serve("llama_cpp")
    server.override = (status, reply)
    with pytest.raises(LLMError) as info:
        LLMExtractor(server.config()).extract(ANSWER, context())
    assert not isinstance(info.value, ExtractionError)
    assert len(server.requests) == 1
    assert json_modes_to_try(server.config()) == JSON_MODES  # nothing learnt from a failure


def test_a_reply_that_breaks_the_schema_is_refused_by_pydantic(serve: Any) -> None:
    server = serve("tools_only")
    bad = {"records": [{**RECORDED_RECORDS["records"][0], "invented": "field"}]}
    server.behave = lambda body: (
        200,
        {"message": {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "x", "arguments": json.dumps(bad)}}
        ]}},
    )  # fmt: skip
    with pytest.raises(ExtractionError, match="does not match the record schema"):
        LLMExtractor(server.config("tools")).extract(ANSWER, context())


def test_an_unknown_json_mode_setting_is_refused(settings: Any) -> None:
    from apps.integrations.llm import llm_config_from_settings

    settings.XORVENTA_LLM_JSON_MODE = "grammar"
    with pytest.raises(ValueError, match="XORVENTA_LLM_JSON_MODE"):
        llm_config_from_settings()
    settings.XORVENTA_LLM_JSON_MODE = "Tools"
    assert llm_config_from_settings().json_mode == "tools"
