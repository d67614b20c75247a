"""The websocket/ASGI tenant resolver (django-tenants has none for Channels).

Resolves the business once per connection from the path (/t/<slug>/ws/...) or the Host header and
puts its schema name in ``scope["schema_name"]``. Unknown tenants are closed with code 4404 before the
consumer runs. Consumers must still enter the schema inside every sync call (apps.tenants.context):
the scope only says which business; it does not make the thread's connection use its schema.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async

from apps.tenants.db import use_public_schema
from apps.tenants.routing import UnknownTenant, resolve

Scope = dict[str, Any]


def _lookup(host: str, path: str) -> tuple[str | None, int | None, str | None]:
    use_public_schema()
    route = resolve(host, path)
    if route.business is None:
        return None, None, None
    return route.business.schema_name, route.business.pk, route.path_slug


class TenantResolverMiddleware:
    def __init__(self, inner: Any) -> None:
        self.inner = inner

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> Any:
        if scope["type"] not in {"websocket", "http"}:
            return await self.inner(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        host = headers.get(b"host", b"").decode("latin-1")
        try:
            schema_name, business_id, path_slug = await database_sync_to_async(
                _lookup, thread_sensitive=False
            )(host, scope["path"])
        except UnknownTenant:
            if scope["type"] == "websocket":
                await receive()  # the websocket.connect event
                await send({"type": "websocket.close", "code": 4404})
                return None
            raise
        scope = dict(scope, schema_name=schema_name, business_id=business_id, tenant_path_slug=path_slug)
        return await self.inner(scope, receive, send)
