from django.urls import path

from apps.portal.inbox import InboxConsumer

websocket_urlpatterns = [path("ws/inbox/", InboxConsumer.as_asgi())]
