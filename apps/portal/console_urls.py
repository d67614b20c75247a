"""The reseller console (public URLconf, under /console/)."""

from django.urls import path

from apps.portal import console_views, views_api_keys

app_name = "console"
urlpatterns = [
    path("", console_views.console_home, name="home"),
    path("<slug:slug>/", console_views.reseller_home, name="reseller"),
    path("<slug:slug>/white-label/", console_views.branding, name="branding"),
    path("<slug:slug>/api-keys/", views_api_keys.console_api_keys, name="api_keys"),
    path(
        "<slug:slug>/api-keys/<str:prefix>/revoke/",
        views_api_keys.console_api_key_revoke,
        name="api_keys_revoke",
    ),
]
