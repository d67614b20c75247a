"""The owner's inbox socket: /ws/inbox/ on the business's host, or /t/<slug>/ws/inbox/.

It only listens: the server pushes each change of the business's conversations (apps/chat/live.py),
  server -> {"type": "update", "conversation": {...}, "message": {...} | null}
and the person's actions (take over, reply, hand back, mark as answer) are ordinary portal POSTs with
the session and a CSRF token (apps/portal/views_inbox.py), so there is one way to act and it is the
portal's. A frame a client sends is refused with an error and nothing happens.

Who may connect: a signed-in person (the session cookie, through Channels' AuthMiddlewareStack) with a
role in the business the host or path names (the portal's own access gate), from the portal's own
origin (a page elsewhere cannot ride the owner's cookie: cross-site websocket hijacking). Anyone else
is closed with 4401 (not signed in), 4403 (no role here, or a foreign origin) or 4404 (no business).
Membership is checked again before each update after RECHECK_SECONDS, so a removed member stops
receiving within a minute.
"""

from __future__ import annotations

import time
from typing import Any

from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.http import Http404

from apps.accounts.access import access_business
from apps.accounts.models import User
from apps.chat.consumers import portal_origins
from apps.chat.live import inbox_group
from apps.chat.origins import origin_allowed
from apps.tenants.context import call_in_schema
from apps.tenants.models import Business

RECHECK_SECONDS = 60


def _may_watch(user_id: int, business_id: int) -> bool:
    user = User.objects.filter(pk=user_id, is_active=True).first()
    business = Business.objects.filter(pk=business_id, is_active=True).first()
    if user is None or business is None:
        return False
    try:
        access_business(user, business)
    except Http404:
        return False
    return True


class InboxConsumer(AsyncJsonWebsocketConsumer):
    schema_name: str = ""
    checked_at: float = 0.0

    async def connect(self) -> None:
        schema_name, business_id = self.scope.get("schema_name"), self.scope.get("business_id")
        user = self.scope.get("user")
        origin = dict(self.scope.get("headers") or []).get(b"origin", b"").decode("latin-1")
        if not schema_name or not business_id:
            await self._refuse(4404)
            return
        if user is None or not user.is_authenticated:
            await self._refuse(4401)
            return
        if not origin_allowed(origin, portal_origins()):
            await self._refuse(4403)
            return
        self.user_id, self.business_id = user.pk, business_id
        if not await call_in_schema(schema_name, _may_watch, user.pk, business_id):
            await self._refuse(4403)
            return
        self.schema_name, self.checked_at = schema_name, time.monotonic()
        await self.accept()
        await self.channel_layer.group_add(inbox_group(schema_name), self.channel_name)
        await self.send_json({"type": "hello"})

    async def _refuse(self, code: int) -> None:
        # Accept, then close with our code (a handshake refused before accept reads as 1006).
        await self.accept()
        await self.close(code=code)

    async def disconnect(self, code: int) -> None:
        if self.schema_name:
            await self.channel_layer.group_discard(inbox_group(self.schema_name), self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None, **kw: Any) -> None:
        await self.send_json(
            {
                "type": "error",
                "code": "bad_request",
                "message": "This socket only listens: act from the page.",
            }
        )

    async def inbox_update(self, event: dict[str, Any]) -> None:
        if time.monotonic() - self.checked_at > RECHECK_SECONDS:
            if not await call_in_schema(self.schema_name, _may_watch, self.user_id, self.business_id):
                await self.close(code=4403)
                return
            self.checked_at = time.monotonic()
        await self.send_json(
            {"type": "update", "conversation": event["conversation"], "message": event["message"]}
        )
