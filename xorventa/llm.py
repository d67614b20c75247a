"""The one module that talks to a language model, over an OpenAI-compatible chat-completions API.

Configuration comes from settings (XORVENTA_LLM_BASE_URL, XORVENTA_LLM_API_KEY, XORVENTA_LLM_MODEL,
XORVENTA_LLM_TIMEOUT); with no base URL or model, no model is configured and callers fall back to
deterministic code. The base URL is the API root that ``/chat/completions`` is appended to, e.g.
``https://api.openai.com/v1`` or ``http://127.0.0.1:8080/v1``. httpx is imported lazily so importing
this module costs nothing.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Message = Mapping[str, str]


class LLMError(Exception):
    """The model could not be reached or answered with an error (network, HTTP status, time-out)."""


class LLMResponseError(LLMError):
    """The model answered, but not with what was asked for (not JSON, refused, truncated)."""


@dataclass(frozen=True)
class LLMConfig:
    base_url: str | None = None
    api_key: str | None = None
    model: str | None = None
    timeout: float = 30.0

    @property
    def configured(self) -> bool:
        return bool(self.base_url and self.model)


def llm_config_from_settings() -> LLMConfig:
    from django.conf import settings

    if not settings.configured:
        return LLMConfig()
    timeout = getattr(settings, "XORVENTA_LLM_TIMEOUT", None)
    return LLMConfig(
        base_url=getattr(settings, "XORVENTA_LLM_BASE_URL", None) or None,
        api_key=getattr(settings, "XORVENTA_LLM_API_KEY", None) or None,
        model=getattr(settings, "XORVENTA_LLM_MODEL", None) or None,
        timeout=float(timeout) if timeout else 30.0,
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
    """One chat completion whose output the API constrains to ``schema`` (json_schema, strict).

    Raises LLMError when the model cannot be reached or errors, LLMResponseError when its answer is not
    a JSON object (refusal, truncation, malformed content). Validating against the schema is the
    caller's job (it owns the pydantic model).
    """
    cfg = _require(config)
    payload: dict[str, Any] = {
        "model": cfg.model,
        "messages": [dict(m) for m in messages],
        "temperature": temperature,
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": schema_name, "strict": True, "schema": dict(schema)},
        },
    }
    if max_tokens is not None:
        payload["max_tokens"] = max_tokens
    body = _post_json(cfg, payload)
    try:
        choice = body["choices"][0]
        message = choice["message"]
    except (KeyError, IndexError, TypeError) as exc:
        raise LLMResponseError(f"model response has no choices[0].message: {_snippet(body)}") from exc
    if message.get("refusal"):
        raise LLMResponseError(f"model refused: {str(message['refusal'])[:200]}")
    if choice.get("finish_reason") == "length":
        raise LLMResponseError("model output was cut off (finish_reason=length); raise max_tokens")
    content = message.get("content")
    if not isinstance(content, str) or not content.strip():
        raise LLMResponseError("model returned no content")
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
    """Stream a chat completion (server-sent events), yielding text deltas as they arrive."""
    import httpx

    cfg = _require(config)
    payload: dict[str, Any] = {
        "model": cfg.model,
        "messages": [dict(m) for m in messages],
        "temperature": temperature,
        "stream": True,
    }
    if max_tokens is not None:
        payload["max_tokens"] = max_tokens
    try:
        with (
            httpx.Client(timeout=cfg.timeout) as client,
            client.stream("POST", _url(cfg), json=payload, headers=_headers(cfg)) as response,
        ):
            if response.status_code >= 400:
                response.read()
                raise LLMError(_status_message(response.status_code, response.text))
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
                    text = delta.get("content")
                    if isinstance(text, str) and text:
                        yield text
    except httpx.TimeoutException as exc:
        raise LLMError(f"language model timed out after {cfg.timeout:g}s ({_url(cfg)})") from exc
    except httpx.HTTPError as exc:
        raise LLMError(f"could not reach the language model at {_url(cfg)}: {exc}") from exc


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
    import httpx

    try:
        with httpx.Client(timeout=cfg.timeout) as client:
            response = client.post(_url(cfg), json=payload, headers=_headers(cfg))
    except httpx.TimeoutException as exc:
        raise LLMError(f"language model timed out after {cfg.timeout:g}s ({_url(cfg)})") from exc
    except httpx.HTTPError as exc:
        raise LLMError(f"could not reach the language model at {_url(cfg)}: {exc}") from exc
    if response.status_code >= 400:
        raise LLMError(_status_message(response.status_code, response.text))
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
