"""URLs of the public site: landing page, reseller console, invitations, the management API."""

from django.contrib import admin
from django.urls import include, path

from apps.portal import views_public
from xorventa.api_docs import docs_urlpatterns

urlpatterns = [
    path("", views_public.home, name="public-home"),
    path("healthz", views_public.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("accounts/", include("apps.accounts.urls")),
    path("console/", include("apps.portal.console_urls")),
    path("api/v1/", include("apps.api.urls_reseller_admin")),
    path("api/v1/", include("apps.chat.api_urls")),
    path("api/v1/", include("apps.feedback.api_urls")),
    path("api/v1/", include("apps.visitors.widget_urls")),
    path("api/v1/reseller/", include("apps.api.urls_reseller")),
    *docs_urlpatterns(urlconf="xorventa.urls_public"),
]
