"""The widget's websocket: /ws/chat/<public key>/?visitor=<id>.

Protocol (JSON frames):
  server -> {"type": "hello", "business": {...}, "conversation": {"id", "messages": [...]}}
  client -> {"type": "message", "text": "..."}          a visitor's question
  client -> {"type": "draft", "text": "..."}            typing pause: retrieve ahead (speculative)
  client -> {"type": "contact", "value": "email or phone"}  lead capture for an unanswered question
  client -> {"type": "person"}                          the visitor asks for a person (apps/chat/handoff.py)
  server -> {"type": "handoff", "state": "requested|live|", "reply": "...", "ask_contact": bool}
  server -> {"type": "held", "turn": n}                 a person answers this conversation: no reply
  server -> {"type": "person", "message": {"id", "role": "owner|note", "text"}, "handoff", "by"}
            a person's reply or "<name> joined" / "... left", pushed over the channel layer
  server -> {"type": "start", "turn": n}, {"type": "delta", "turn": n, "text": "..."},
            {"type": "end", "turn": n, "decision": "...", "sources": [...], "message_id": id}
  server -> {"type": "error", "code": "rate_limited|too_long|empty|unavailable|bad_request", "message": "..."}

A frame that is not a JSON object of this shape (binary, not JSON, nested deeper than
apps.tenants.json_input.MAX_DEPTH, a field that is not a string, or holds NUL / control characters / a lone
surrogate) gets `bad_request` with a message naming the field, and the connection stays open; nothing
is stored for it. `unavailable` is kept for failures on our side.
Reached at /ws/chat/<key>/ on the public host or a business's host, or at /t/<slug>/ws/chat/<key>/;
a key of another business than the host or path names is closed with 4404, like an unknown key.

The key resolves the business with a public-schema lookup; every database call after that runs inside
the business's schema via call_in_schema (docs/architecture.md: the tenant rule for consumers).
"""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from apps.chat import limits
from apps.chat.handoff import handoff_request
from apps.chat.live import conversation_group
from apps.chat.origins import origin_allowed
from apps.chat.services import (
    TurnEnded,
    TurnStarted,
    business_identity,
    conversation_open,
    conversation_transcript,
    turn_run,
    turn_speculate,
    widget_settings,
)
from apps.facts.services import KnowledgeInputError
from apps.gaps.services import gap_contact_leave
from apps.tenants.context import call_in_schema, iterate_in_schema
from apps.tenants.db import use_public_schema
from apps.tenants.json_input import JSONInputError, json_loads_limited
from apps.tenants.models import Business

logger = logging.getLogger(__name__)
_VISITOR = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
MAX_FRAME_CHARS = 256 * 1024  # a question is at most limits.MAX_MESSAGE_CHARS; this bounds the parse
# Characters no visitor types and PostgreSQL refuses (NUL) or a UTF-8 encoder cannot write (surrogates).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_JSON_KINDS = {dict: "an object", list: "a list", bool: "true/false", int: "a number", float: "a number"}
_JSON_KINDS[type(None)] = "null"


def text_field(content: dict[str, Any], name: str) -> str:
    """A frame's text field, or a bad_request naming it (an absent field reads as empty, as before)."""
    value = content.get(name, "")
    if not isinstance(value, str):
        raise limits.Refused("bad_request", f'"{name}" must be a string, not {_JSON_KINDS[type(value)]}.')
    if "\x00" in value:
        raise limits.Refused("bad_request", f'"{name}" must not contain NUL characters.')
    if _CONTROL.search(value):
        raise limits.Refused("bad_request", f'"{name}" must not contain control characters.')
    if _SURROGATE.search(value):
        raise limits.Refused("bad_request", f'"{name}" is not valid Unicode text (a lone surrogate).')
    return value


def _business_for_key(key: str) -> tuple[str, str] | None:
    use_public_schema()
    business = (
        Business.objects.filter(public_key=key, is_active=True).values_list("schema_name", "name").first()
    )
    return (business[0], business[1]) if business else None


def portal_origins() -> list[str]:
    """The product's own pages may always connect: the owner's live preview uses the real widget."""
    site = urlsplit(settings.SITE_URL)
    port = f":{site.port}" if site.port else ""
    return [settings.SITE_URL, f"{site.scheme}://*.{settings.BASE_DOMAIN}{port}"]


def _open(visitor_id: str, origin: str) -> dict[str, Any]:
    widget = widget_settings()
    if not origin_allowed(origin, [*(widget.allowed_origins or []), *portal_origins()]):
        return {"refused": True}
    conversation = conversation_open(visitor_id=visitor_id, origin=origin)
    identity = business_identity()
    identity.pop("allowed_hosts", None)  # the allow-list is the business's, not the visitors'
    return {
        "business": identity,
        "conversation": {
            "id": conversation.pk,
            "messages": conversation_transcript(conversation),
            "handoff": conversation.handoff,
            "handoff_by": conversation.handoff_by,
        },
    }


class ChatConsumer(AsyncJsonWebsocketConsumer):
    schema_name: str
    public_key: str
    conversation_id: int
    visitor_id: str
    turns: int = 0
    speculative: Any = None

    async def connect(self) -> None:
        self.public_key = self.scope["url_route"]["kwargs"]["key"]
        found = await database_sync_to_async(_business_for_key, thread_sensitive=False)(self.public_key)
        routed_to = self.scope.get("schema_name")  # the business the host or /t/<slug>/ names, if any
        if found is None or (routed_to and routed_to != found[0]):
            await self._refuse(4404)
            return
        self.schema_name = found[0]
        query = parse_qs(self.scope.get("query_string", b"").decode("latin-1"))
        visitor = (query.get("visitor") or [""])[0]
        self.visitor_id = visitor if _VISITOR.match(visitor) else f"anon-{id(self):x}"
        headers = dict(self.scope.get("headers") or [])
        origin = headers.get(b"origin", b"").decode("latin-1")
        opened = await call_in_schema(self.schema_name, _open, self.visitor_id, origin)
        if opened.get("refused"):
            await self._refuse(4403)
            return
        self.conversation_id = opened["conversation"]["id"]
        await self.accept()
        await self.channel_layer.group_add(
            conversation_group(self.schema_name, self.conversation_id), self.channel_name
        )
        await self.send_json({"type": "hello", **opened})

    async def disconnect(self, code: int) -> None:
        if getattr(self, "conversation_id", None):
            await self.channel_layer.group_discard(
                conversation_group(self.schema_name, self.conversation_id), self.channel_name
            )

    async def _refuse(self, code: int) -> None:
        # Accept, then close with our code: a handshake rejected before accept reaches the browser
        # as 1006 ("server down"), and the widget would keep retrying instead of stopping.
        await self.accept()
        await self.close(code=code)

    async def receive(
        self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any
    ) -> None:
        # Channels' JSON consumer raises on a binary or non-JSON frame, and json.loads on deep nesting:
        # each closed the socket with 1011. They are the client's mistakes: say so and keep listening.
        if text_data is None:
            await self._error("bad_request", "Binary frames are not part of the protocol: send JSON text.")
            return
        if len(text_data) > MAX_FRAME_CHARS:
            await self._error("bad_request", f"Frames can be at most {MAX_FRAME_CHARS:,} characters.")
            return
        try:
            content = json_loads_limited(text_data)
        except JSONInputError as exc:
            await self._error("bad_request", str(exc))
            return
        await self.receive_json(content)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if not isinstance(content, dict):
            await self._error("bad_request", "Send JSON objects.")
            return
        kind = content.get("type")
        try:
            if kind == "message":
                await self._message(text_field(content, "text"))
            elif kind == "draft":
                await self._draft(text_field(content, "text"))
            elif kind == "contact":
                await self._contact(text_field(content, "value"))
            elif kind == "person":
                await self._person()
            else:
                await self._error("bad_request", "Unknown message type.")
        except limits.Refused as refused:
            await self._error(refused.code, refused.message, retry_after=refused.retry_after)
        except KnowledgeInputError as refused:  # a service refusing the visitor's input, with the reason
            await self._error("bad_request", str(refused))
        except Exception:
            logger.exception("chat turn failed for %s", self.schema_name)
            await self._error("unavailable", "Sorry, something went wrong on our side. Please try again.")

    async def _error(self, code: str, message: str, **extra: Any) -> None:
        await self.send_json({"type": "error", "code": code, "message": message, **extra})

    def _client_ip(self) -> str:
        client = self.scope.get("client") or ("", 0)
        return str(client[0])

    async def _message(self, raw: str) -> None:
        text = limits.check_message(raw)
        limits.check_rates(public_key=self.public_key, visitor_id=self.visitor_id, ip=self._client_ip())
        self.turns += 1
        turn_no = self.turns
        precomputed, self.speculative = self.speculative, None
        turn = lambda: turn_run(  # noqa: E731
            conversation_id=self.conversation_id, text=text, precomputed=precomputed
        )
        async for event in iterate_in_schema(self.schema_name, turn):
            if isinstance(event, TurnStarted):
                if event.turn.decision != "held":
                    await self.send_json({"type": "start", "turn": turn_no})
            elif isinstance(event, TurnEnded):
                if event.message is None:  # a person is answering this conversation
                    await self.send_json({"type": "held", "turn": turn_no})
                    continue
                await self.send_json(
                    {
                        "type": "end",
                        "turn": turn_no,
                        "decision": event.turn.decision,
                        "message_id": event.message.pk,
                        "sources": event.message.sources,
                        "ask_contact": event.turn.ask_contact,
                    }
                )
            else:
                await self.send_json({"type": "delta", "turn": turn_no, "text": event})

    async def _draft(self, raw: str) -> None:
        text = (raw or "").strip()
        if len(text) < 4 or len(text) > limits.MAX_MESSAGE_CHARS:
            return
        self.speculative = await call_in_schema(
            self.schema_name, turn_speculate, conversation_id=self.conversation_id, text=text
        )

    async def _person(self) -> None:
        limits.check_rates(public_key=self.public_key, visitor_id=self.visitor_id, ip=self._client_ip())
        requested = await call_in_schema(
            self.schema_name, handoff_request, conversation_id=self.conversation_id
        )
        await self.send_json(
            {
                "type": "handoff",
                "state": requested.state,
                "reply": requested.reply,
                "ask_contact": requested.question_left,
            }
        )

    async def chat_person(self, event: dict[str, Any]) -> None:
        """A person's reply or note in this conversation (apps/chat/live.py). Only the server sends
        these: a frame a visitor sends with this type is an unknown type to receive_json."""
        await self.send_json(
            {
                "type": "person",
                "message": event["message"],
                "handoff": event["handoff"],
                "by": event["by"],
            }
        )

    async def _contact(self, value: str) -> None:
        count = await call_in_schema(
            self.schema_name, gap_contact_leave, conversation_id=self.conversation_id, contact=value
        )
        await self.send_json({"type": "contact_saved", "questions": count})
