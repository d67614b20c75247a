"""JSON from outside (request bodies, websocket frames) parsed with a nesting limit.

Python's json module has no depth limit of its own: ``"[" * 1000`` raises RecursionError, which is not
a ValueError, so DRF's parser lets it escape as a 500 and a websocket consumer closes with 1011. No
payload of this product nests more than a few levels, so anything deeper than ``MAX_DEPTH`` is refused
before json.loads sees it. The depth count is written here because neither the standard library nor
DRF offers one; NaN and Infinity are refused as DRF's strict mode does (PostgreSQL's jsonb has neither).
"""

from __future__ import annotations

import re
from itertools import accumulate
from typing import Any

from rest_framework.exceptions import ParseError

# get_encoding: DRF's charset check (refuses bytes-to-bytes codecs such as bz2_codec).
from rest_framework.parsers import JSONParser, get_encoding
from rest_framework.utils import json

MAX_DEPTH = 64
# A JSON string literal (escapes included): brackets inside strings do not nest anything.
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")


class JSONInputError(ValueError):
    """The text is not JSON this product accepts; the message says why, for the sender."""


def nested_deeper_than(text: str, limit: int) -> bool:
    # Fast path in C: fewer opening brackets than the limit cannot nest deeper than it.
    if text.count("[") + text.count("{") <= limit:
        return False
    steps = (1 if b in "[{" else -1 for b in _BRACKET.findall(_STRING.sub("", text)))
    return max(accumulate(steps), default=0) > limit


def json_loads_limited(text: str, *, max_depth: int = MAX_DEPTH) -> Any:
    if nested_deeper_than(text, max_depth):
        raise JSONInputError(f"JSON nested more than {max_depth} levels deep is not accepted.")
    try:
        return json.loads(text)
    except RecursionError:  # not reachable below the limit; kept so no input can escape as a crash
        raise JSONInputError(f"JSON nested more than {max_depth} levels deep is not accepted.") from None
    except ValueError as exc:
        raise JSONInputError(f"Not valid JSON: {exc}") from None


class LimitedJSONParser(JSONParser):
    """DRF's JSON parser with the nesting limit: every API endpoint answers a 400 with the reason."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        encoding = get_encoding(parser_context or {})
        try:
            text = stream.read().decode(encoding)
        except UnicodeDecodeError:
            raise ParseError(f"The request body is not valid {encoding} text.") from None
        try:
            return json_loads_limited(text)
        except JSONInputError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
