from django.urls import path

from apps.tenants import api

urlpatterns = [
    path("businesses", api.BusinessListCreateApi.as_view(), name="api-businesses"),
]
