"""A reseller administrator's business list (public URLconf, /api/v1/businesses), with the
administrator's own login."""

from django.urls import path

from apps.api import reseller_admin

urlpatterns = [
    path("businesses", reseller_admin.BusinessListCreateApi.as_view(), name="api-businesses"),
]
