"""Every websocket route of the product, in one list (each app owns its consumers)."""

from django.urls import URLPattern, URLResolver

websocket_urlpatterns: list[URLPattern | URLResolver] = []
