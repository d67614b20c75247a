"""The reseller console (public URLconf, under /console/)."""

from django.urls import path

from apps.portal import console_views

app_name = "console"
urlpatterns = [
    path("", console_views.console_home, name="home"),
    path("<slug:slug>/", console_views.reseller_home, name="reseller"),
    path("<slug:slug>/white-label/", console_views.branding, name="branding"),
]
