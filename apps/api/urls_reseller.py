"""A reseller's v1 API (public URLconf, /api/v1/reseller/...), with a reseller's key."""

from django.urls import path

from apps.api import reseller

urlpatterns = [
    path("businesses", reseller.BusinessList.as_view(), name="api-reseller-businesses"),
    path("businesses/<slug:slug>", reseller.BusinessDetail.as_view(), name="api-reseller-business"),
    path("businesses/<slug:slug>/suspend", reseller.BusinessSuspend.as_view(), name="api-reseller-suspend"),
    path("businesses/<slug:slug>/resume", reseller.BusinessResume.as_view(), name="api-reseller-resume"),
    path("businesses/<slug:slug>/team", reseller.BusinessTeam.as_view(), name="api-reseller-team"),
    path("businesses/<slug:slug>/invitations", reseller.BusinessInvite.as_view(), name="api-reseller-invite"),
    path("usage", reseller.Usage.as_view(), name="api-reseller-usage"),
]
