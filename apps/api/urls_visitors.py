"""The v1 visitor-data endpoints of one business (tenant URLconf, under /api/v1/)."""

from django.urls import re_path

from apps.api import visitors

urlpatterns = [
    re_path(
        rf"^visitors/(?P<visitor_id>{visitors.VISITOR_ID})$",
        visitors.VisitorData.as_view(),
        name="api-visitor",
    ),
]
