"""The one module that talks to a language model, over an OpenAI-compatible chat-completions API.

Configuration comes from settings (XORVENTA_LLM_BASE_URL, XORVENTA_LLM_API_KEY, XORVENTA_LLM_MODEL,
XORVENTA_LLM_TIMEOUT, XORVENTA_LLM_FIRST_TOKEN_TIMEOUT, XORVENTA_LLM_JSON_MODE); with no base URL or
model, no model is configured and callers fall back to deterministic code. The base URL is the API root
that ``/chat/completions`` is appended to, e.g. ``https://api.openai.com/v1`` or
``http://127.0.0.1:8080/v1``.

Structured output: OpenAI-compatible servers do not agree on how a request carries a JSON schema, so
``complete_json`` speaks one of four forms (JSON_MODES). With XORVENTA_LLM_JSON_MODE=auto (the default) it
starts with OpenAI's ``json_schema`` and, on an error that names the response format, tries the next
form; the form that worked is remembered per base URL for the life of the process and logged once.

Streams: a stream counts only when the server says it finished (``[DONE]`` or a finish_reason); one that
stops early, comes back as HTML, or carries a refusal raises LLMResponseError, so callers never take a
cut or empty reply for an answer.
"""

from __future__ import annotations

import copy
import json
import logging
import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import httpx
from django.conf import settings

logger = logging.getLogger(__name__)

Message = Mapping[str, str]

# How a request carries the schema, in the order auto mode tries them:
# json_schema        OpenAI: response_format {"type": "json_schema", "json_schema": {name, strict, schema}}
#                    (also vLLM, Ollama >= 0.5 on /v1, most hosted OpenAI-compatible APIs);
# json_object_schema llama.cpp's servers (llama-cpp-python, llama-server): {"type": "json_object",
#                    "schema": {...}}; they answer HTTP 500 "Input should be 'text' or 'json_object'" to
#                    json_schema;
# json_object        plain JSON mode (older Ollama, some hosted APIs): the schema goes into the prompt;
# tools              one function whose parameters are the schema, tool_choice forcing it.
JSON_MODES: tuple[str, ...] = ("json_schema", "json_object_schema", "json_object", "tools")
DEFAULT_TIMEOUT = 180.0  # one extraction call took 50-150 s on a loaded 2-core machine (llama.cpp, 1.5B)
DEFAULT_FIRST_TOKEN_TIMEOUT = 20.0  # a visitor waits this long before the built-in answer is used


class LLMError(Exception):
    """The model could not be reached or answered with an error (network, HTTP status, time-out).

    ``kind`` is a short code for logs and flags: "error", "timeout", "status", or for LLMResponseError
    "empty", "interrupted", "not-a-stream", "refused", "malformed", "cut-off"."""

    kind = "error"

    def __init__(self, message: str, *, kind: str | None = None) -> None:
        super().__init__(message)
        if kind:
            self.kind = kind


class LLMStatusError(LLMError):
    """The server answered with an HTTP error status."""

    kind = "status"

    def __init__(self, status: int, body: str) -> None:
        super().__init__(_status_message(status, body))
        self.status = status
        self.body = body


class LLMResponseError(LLMError):
    """The model answered, but not with what was asked for (not JSON, refused, truncated, empty)."""

    kind = "malformed"


@dataclass(frozen=True)
class LLMConfig:
    base_url: str | None = None
    api_key: str | None = None
    model: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    first_token_timeout: float = DEFAULT_FIRST_TOKEN_TIMEOUT
    json_mode: str = "auto"  # "auto" or one of JSON_MODES

    @property
    def configured(self) -> bool:
        return bool(self.base_url and self.model)


def llm_config_from_settings() -> LLMConfig:
    if not settings.configured:
        return LLMConfig()
    timeout = getattr(settings, "XORVENTA_LLM_TIMEOUT", None)
    first = getattr(settings, "XORVENTA_LLM_FIRST_TOKEN_TIMEOUT", None)
    mode = str(getattr(settings, "XORVENTA_LLM_JSON_MODE", "") or "auto").strip().lower()
    if mode not in ("auto", *JSON_MODES):
        raise ValueError(
            f"XORVENTA_LLM_JSON_MODE must be auto or one of {', '.join(JSON_MODES)}, not {mode!r}"
        )
    return LLMConfig(
        base_url=getattr(settings, "XORVENTA_LLM_BASE_URL", None) or None,
        api_key=getattr(settings, "XORVENTA_LLM_API_KEY", None) or None,
        model=getattr(settings, "XORVENTA_LLM_MODEL", None) or None,
        timeout=float(timeout) if timeout else DEFAULT_TIMEOUT,
        first_token_timeout=float(first) if first else DEFAULT_FIRST_TOKEN_TIMEOUT,
        json_mode=mode,
    )


def llm_configured(config: LLMConfig | None = None) -> bool:
    return (config or llm_config_from_settings()).configured


def strict_json_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Make a (pydantic) JSON schema acceptable to OpenAI strict structured outputs.

    Inlines $defs, makes every property required and closes every object (additionalProperties false),
    and drops keywords strict mode rejects or ignores (default, title, format, length bounds).
    """
    root = copy.deepcopy(dict(schema))
    defs: dict[str, Any] = root.pop("$defs", {}) or root.pop("definitions", {}) or {}

    def walk(node: Any, depth: int = 0) -> Any:
        if depth > 50:
            raise ValueError("schema nests too deeply (recursive model?)")
        if isinstance(node, list):
            return [walk(n, depth + 1) for n in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            name = str(node["$ref"]).rsplit("/", 1)[-1]
            target = dict(defs[name])
            target.update({k: v for k, v in node.items() if k != "$ref"})
            return walk(target, depth + 1)
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in {"default", "title", "format", "minLength", "maxLength", "examples"}:
                continue
            if key == "properties" and isinstance(value, dict):
                out[key] = {name: walk(sub, depth + 1) for name, sub in value.items()}
            else:
                out[key] = walk(value, depth + 1)
        if out.get("type") == "object" or "properties" in out:
            out["type"] = "object"
            props = out.setdefault("properties", {})
            out["required"] = list(props)
            out["additionalProperties"] = False
        return out

    result = walk(root)
    assert isinstance(result, dict)
    return result


def complete_json(
    messages: Sequence[Message],
    schema: Mapping[str, Any],
    schema_name: str,
    *,
    config: LLMConfig | None = None,
    temperature: float = 0.0,
    max_tokens: int | None = None,
) -> dict[str, Any]:
    """One chat completion whose output the server constrains to ``schema``, in the form it takes.

    Raises LLMError when the model cannot be reached or errors, LLMResponseError when its answer is not
    a JSON object (refusal, truncation, malformed content). Validating against the schema is the
    caller's job (it owns the pydantic model, the one place the schema is written).
    """
    cfg = _require(config)
    modes = json_modes_to_try(cfg)
    for index, mode in enumerate(modes):
        payload = _json_payload(cfg, mode, messages, schema, schema_name, temperature, max_tokens)
        try:
            body = _post_json(cfg, payload)
        except LLMStatusError as exc:
            if index + 1 < len(modes) and _names_the_format(exc):
                logger.info(
                    "%s refused structured output as %s (%s); trying %s",
                    _url(cfg),
                    mode,
                    exc,
                    modes[index + 1],
                )
                continue
            raise
        _remember_json_mode(cfg, mode)
        return _json_reply(body, mode)
    raise AssertionError("unreachable: the last mode either returns or raises")


# The form each base URL takes, learnt by auto mode (per process; a restart detects it again).
_json_mode_cache: dict[str, str] = {}
_json_mode_lock = threading.Lock()

# A refusal that is about the form of the request rather than the model, the input or the load: the
# words the servers' errors use (llama.cpp: "Input should be 'text' or 'json_object'" at
# ('body', 'response_format', 'type'); OpenAI: "Unrecognized request argument supplied: schema",
# "'response_format' ... not supported with this model"; others: "unsupported parameter: tools").
_FORMAT_ERROR = re.compile(
    r"response_format|json_schema|json_object|\bschema\b|\btools?\b|tool_choice|function"
    r"|unrecogni[sz]ed|unsupported|not supported|unknown (?:field|parameter|argument)|extra (?:field|input)",
    re.IGNORECASE,
)


def json_modes_to_try(cfg: LLMConfig) -> tuple[str, ...]:
    """The configured form alone, or in auto mode the remembered form, else every form in order."""
    if cfg.json_mode in JSON_MODES:
        return (cfg.json_mode,)
    with _json_mode_lock:
        known = _json_mode_cache.get(_url(cfg))
    return (known,) if known else JSON_MODES


def json_mode_forget() -> None:
    """Forget every learnt form (tests; a server replaced behind the same URL needs a restart anyway)."""
    with _json_mode_lock:
        _json_mode_cache.clear()


def _remember_json_mode(cfg: LLMConfig, mode: str) -> None:
    if cfg.json_mode in JSON_MODES:
        return
    with _json_mode_lock:
        if _json_mode_cache.get(_url(cfg)) == mode:
            return
        _json_mode_cache[_url(cfg)] = mode
    if mode != JSON_MODES[0]:
        logger.warning(
            "the language model at %s takes structured output as %s (set XORVENTA_LLM_JSON_MODE=%s to skip detection)",
            _url(cfg),
            mode,
            mode,
        )


def _names_the_format(exc: LLMStatusError) -> bool:
    # 401/403 (key), 404 (model or path), 429 and 502-504 (load) are never about the request's form.
    return exc.status in (400, 415, 422, 500, 501) and bool(_FORMAT_ERROR.search(exc.body))


def _json_payload(
    cfg: LLMConfig,
    mode: str,
    messages: Sequence[Message],
    schema: Mapping[str, Any],
    schema_name: str,
    temperature: float,
    max_tokens: int | None,
) -> dict[str, Any]:
    chat = [dict(m) for m in messages]
    payload: dict[str, Any] = {"model": cfg.model, "messages": chat, "temperature": temperature}
    if mode == "json_schema":
        payload["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": schema_name, "strict": True, "schema": dict(schema)},
        }
    elif mode == "json_object_schema":
        payload["response_format"] = {"type": "json_object", "schema": dict(schema)}
    elif mode == "json_object":
        payload["response_format"] = {"type": "json_object"}
        # Nothing constrains the output to the schema here, so the model is told it; appended to the
        # first system message, as many chat templates accept only one system message, first.
        note = "Answer with one JSON object, nothing else, that matches this JSON schema:\n" + json.dumps(
            dict(schema), separators=(",", ":")
        )
        if chat and chat[0].get("role") == "system":
            chat[0]["content"] = f"{chat[0].get('content', '')}\n\n{note}"
        else:
            chat.insert(0, {"role": "system", "content": note})
    elif mode == "tools":
        payload["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": schema_name,
                    "description": "Record the result.",
                    "parameters": dict(schema),
                },
            }
        ]
        payload["tool_choice"] = {"type": "function", "function": {"name": schema_name}}
    else:
        raise ValueError(f"unknown JSON mode {mode!r}")
    if max_tokens is not None:
        payload["max_tokens"] = max_tokens
    return payload


def _json_reply(body: Any, mode: str) -> dict[str, Any]:
    try:
        choice = body["choices"][0]
        message = choice["message"]
    except (KeyError, IndexError, TypeError) as exc:
        raise LLMResponseError(f"model response has no choices[0].message: {_snippet(body)}") from exc
    if message.get("refusal"):
        raise LLMResponseError(f"model refused: {str(message['refusal'])[:200]}", kind="refused")
    if choice.get("finish_reason") == "length":
        raise LLMResponseError(
            "model output was cut off (finish_reason=length); raise max_tokens", kind="cut-off"
        )
    content = message.get("content")
    if mode == "tools":
        calls = message.get("tool_calls") or []
        try:
            content = calls[0]["function"]["arguments"]
        except (KeyError, IndexError, TypeError):
            content = content if isinstance(content, str) else None  # some servers answer in content
        if isinstance(content, dict):
            return content
    if not isinstance(content, str) or not content.strip():
        raise LLMResponseError("model returned no content", kind="empty")
    try:
        data = json.loads(content)
    except json.JSONDecodeError as exc:
        raise LLMResponseError(f"model returned content that is not JSON: {content[:200]!r}") from exc
    if not isinstance(data, dict):
        raise LLMResponseError(f"model returned JSON that is not an object: {content[:200]!r}")
    return data


def stream_chat(
    messages: Sequence[Message],
    *,
    config: LLMConfig | None = None,
    temperature: float = 0.0,
    max_tokens: int | None = None,
) -> Iterator[str]:
    """Stream a chat completion (server-sent events), yielding text deltas as they arrive.

    The read time-out is ``first_token_timeout``: no byte for that long (before the first token or
    between two) raises LLMError. A stream that ends without ``[DONE]`` or a finish_reason, a body that
    is not an event stream (an HTML error page from a proxy), or a refusal raises LLMResponseError, so a
    cut reply is never mistaken for a whole one; what was yielded before stays yielded.
    """
    cfg = _require(config)
    payload: dict[str, Any] = {
        "model": cfg.model,
        "messages": [dict(m) for m in messages],
        "temperature": temperature,
        "stream": True,
    }
    if max_tokens is not None:
        payload["max_tokens"] = max_tokens
    timeout = httpx.Timeout(cfg.timeout, connect=min(cfg.timeout, 10.0), read=cfg.first_token_timeout)
    try:
        with (
            httpx.Client(timeout=timeout) as client,
            client.stream("POST", _url(cfg), json=payload, headers=_headers(cfg)) as response,
        ):
            if response.status_code >= 400:
                response.read()
                raise LLMStatusError(response.status_code, response.text)
            content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
            if content_type == "application/json":
                # a server that ignores "stream": the whole completion in one body
                response.read()
                yield from _whole_reply(response.text)
                return
            if content_type and content_type != "text/event-stream":
                response.read()
                raise LLMResponseError(
                    f"model server answered {content_type}, not an event stream: {response.text[:120]!r}",
                    kind="not-a-stream",
                )
            finished = False
            for line in response.iter_lines():
                line = line.strip()
                if not line.startswith("data:"):
                    continue  # comments (": keep-alive"), event names, blank separators
                data = line[5:].strip()
                if data == "[DONE]":
                    return
                try:
                    event = json.loads(data)
                except json.JSONDecodeError as exc:
                    raise LLMResponseError(f"malformed stream event: {data[:200]!r}") from exc
                if isinstance(event, dict) and event.get("error"):
                    raise LLMError(f"model stream error: {_error_text(event)}")
                for choice in event.get("choices") or [] if isinstance(event, dict) else []:
                    delta = choice.get("delta") or {}
                    if delta.get("refusal") or choice.get("finish_reason") == "content_filter":
                        raise LLMResponseError("model refused to answer", kind="refused")
                    text = delta.get("content")
                    if isinstance(text, str) and text:
                        yield text
                    finished = finished or bool(choice.get("finish_reason"))
            if not finished:
                raise LLMResponseError("the model's stream ended before it finished", kind="interrupted")
    except httpx.TimeoutException as exc:
        raise LLMError(f"language model timed out ({_url(cfg)})", kind="timeout") from exc
    except httpx.HTTPError as exc:
        # a connection closed mid-stream lands here too (httpx.RemoteProtocolError)
        raise LLMError(
            f"could not reach the language model at {_url(cfg)}: {exc}", kind="interrupted"
        ) from exc


def _whole_reply(text: str) -> Iterator[str]:
    try:
        body = json.loads(text)
        message = body["choices"][0]["message"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise LLMResponseError(f"model response is not a completion: {text[:200]!r}") from exc
    if message.get("refusal"):
        raise LLMResponseError("model refused to answer", kind="refused")
    content = message.get("content")
    if isinstance(content, str) and content:
        yield content


def _require(config: LLMConfig | None) -> LLMConfig:
    cfg = config or llm_config_from_settings()
    if not cfg.configured:
        raise LLMError("no language model configured (set XORVENTA_LLM_BASE_URL and XORVENTA_LLM_MODEL)")
    return cfg


def _url(cfg: LLMConfig) -> str:
    return f"{(cfg.base_url or '').rstrip('/')}/chat/completions"


def _headers(cfg: LLMConfig) -> dict[str, str]:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if cfg.api_key:
        headers["Authorization"] = f"Bearer {cfg.api_key}"
    return headers


def _post_json(cfg: LLMConfig, payload: dict[str, Any]) -> Any:
    try:
        with httpx.Client(timeout=cfg.timeout) as client:
            response = client.post(_url(cfg), json=payload, headers=_headers(cfg))
    except httpx.TimeoutException as exc:
        raise LLMError(
            f"language model timed out after {cfg.timeout:g}s ({_url(cfg)})", kind="timeout"
        ) from exc
    except httpx.HTTPError as exc:
        raise LLMError(f"could not reach the language model at {_url(cfg)}: {exc}") from exc
    if response.status_code >= 400:
        raise LLMStatusError(response.status_code, response.text)
    try:
        return response.json()
    except ValueError as exc:
        raise LLMResponseError(f"model response is not JSON: {response.text[:200]!r}") from exc


def _status_message(status: int, text: str) -> str:
    try:
        detail = _error_text(json.loads(text))
    except ValueError:
        detail = text[:200]
    return f"language model API returned HTTP {status}: {detail}"


def _error_text(body: Any) -> str:
    if isinstance(body, dict):
        err = body.get("error")
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])[:300]
        if isinstance(err, str):
            return err[:300]
    return _snippet(body)


def _snippet(body: Any) -> str:
    return json.dumps(body)[:200] if not isinstance(body, str) else body[:200]
