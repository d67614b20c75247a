"""The websocket/ASGI tenant resolver (django-tenants has none for Channels).

Resolves the business once per connection from the path (/t/<slug>/ws/...) or the Host header and
puts its schema name in ``scope["schema_name"]``. A path-routed connection gets ``/t/<slug>`` as its
``root_path`` (the ASGI mount point), so the URL router matches the same ``ws/...`` routes under the
prefix as under a business's own host. Unknown tenants, and paths no route matches, are closed with
code 4404 before any consumer runs. Consumers must still enter the schema inside every sync call
(apps.tenants.context): the scope only says which business; it does not make the thread's connection
use its schema.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from channels.routing import URLRouter

from apps.tenants.db import use_public_schema
from apps.tenants.routing import UnknownTenant, resolve

Scope = dict[str, Any]


async def _close_unknown(receive: Any, send: Any) -> None:
    # Accept, then close with 4404: a handshake refused before accept reaches the browser as a bare
    # HTTP 403 / close 1006 ("server down"), and the widget would keep retrying instead of stopping.
    await receive()  # the websocket.connect event
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.close", "code": 4404})


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
                return await _close_unknown(receive, send)
            raise
        scope = dict(scope, schema_name=schema_name, business_id=business_id, tenant_path_slug=path_slug)
        if path_slug:
            # Mount the connection at "/t/<slug>", the prefix as the client wrote it (/t/Sunny/ works too).
            root = scope.get("root_path", "")
            scope["root_path"] = root + "/".join(scope["path"][len(root) :].split("/", 3)[:3])
        return await self.inner(scope, receive, send)


class WebsocketRouter(URLRouter):
    """Channels' URLRouter raises ValueError("No route found") for a path it does not know, which the
    server turns into a 500 and a traceback; a websocket to an unknown path is closed with 4404 instead."""

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> Any:
        path = scope["path"]
        root = scope.get("root_path", "")
        rest = path[len(root) :].lstrip("/") if path.startswith(root) else None
        if rest is None or not any(route.pattern.match(rest) for route in self.routes):
            return await _close_unknown(receive, send)
        return await super().__call__(scope, receive, send)
