"""URLs of a business (tenant schema): reached as <slug>.<base domain>/... or /t/<slug>/..."""

from django.contrib import admin
from django.urls import include, path

from xorventa.api_docs import docs_urlpatterns

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("apps.accounts.urls")),
    path("api/v1/", include("apps.chat.tenant_api_urls")),
    path("api/v1/", include("apps.api.urls_visitors")),
    path("api/v1/", include("apps.api.urls_business")),
    *docs_urlpatterns(),
    path("", include("apps.portal.urls")),
]
