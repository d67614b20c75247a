"""Every websocket route of the product, in one list (each app owns its consumers)."""

from django.urls import URLPattern, URLResolver

from apps.chat.routing import websocket_urlpatterns as chat_routes
from apps.portal.routing import websocket_urlpatterns as portal_routes

websocket_urlpatterns: list[URLPattern | URLResolver] = [*chat_routes, *portal_routes]
