"""Public URLconf (/api/v1/): the widget's identify call."""

from django.urls import path

from apps.visitors import api

urlpatterns = [
    path("widgets/<str:key>/identify", api.WidgetIdentifyApi.as_view(), name="api-widget-identify"),
]
