"""URLs of a business (tenant schema): reached as <slug>.<base domain>/... or /t/<slug>/..."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("apps.accounts.urls")),
    path("api/v1/", include("apps.chat.tenant_api_urls")),
    path("", include("apps.portal.urls")),
]
