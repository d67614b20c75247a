from django.urls import path

from apps.chat import api

urlpatterns = [path("drafts", api.DraftApi.as_view(), name="api-drafts")]
