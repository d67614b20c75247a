"""ASGI entry point: HTTP through Django (tenant middleware), websockets through Channels.

Websocket routes are collected from the apps' ``websocket_urlpatterns`` lists (``xorventa.ws_routes``),
behind the tenant resolver (which also strips a /t/<slug>/ prefix) and the session/auth middleware.
HTTP responses get the security headers even when Django's handler answers before its middleware.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "xorventa.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter  # noqa: E402

from apps.tenants.asgi import TenantResolverMiddleware, WebsocketRouter  # noqa: E402
from apps.tenants.security import SecurityHeadersASGI  # noqa: E402
from xorventa.ws_routes import websocket_urlpatterns  # noqa: E402

if os.environ.get("XORVENTA_PRELOAD_MODEL", "1") == "1" and os.environ.get("XORVENTA_ASGI_SERVER"):
    # Load the embedding model before taking traffic: loading it on the first question (5-8 s) holds
    # the thread that serves every database call, and handshakes queued behind it time out.
    from apps.retrieval.embedding import preload

    preload()
    # The same for the language pipeline (apps/language): 2-5 s on the first question otherwise.
    from apps.language.pipeline import nlp

    nlp()

application = ProtocolTypeRouter(
    {
        "http": SecurityHeadersASGI(django_asgi_app),
        "websocket": TenantResolverMiddleware(AuthMiddlewareStack(WebsocketRouter(websocket_urlpatterns))),
    }
)
