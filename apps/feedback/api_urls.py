from django.urls import path

from apps.feedback import api

urlpatterns = [
    path("widgets/<str:key>/feedback", api.WidgetFeedbackApi.as_view(), name="api-widget-feedback"),
]
