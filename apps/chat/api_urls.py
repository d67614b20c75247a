from django.urls import path

from apps.chat import api

urlpatterns = [
    path("widgets/<str:key>/messages", api.WidgetMessagesApi.as_view(), name="api-widget-messages"),
    path("widgets/<str:key>/config", api.WidgetConfigApi.as_view(), name="api-widget-config"),
]
