"""Business URLconf (/api/v1/ of a business): the owner's visitor-data endpoints."""

from django.urls import re_path

from apps.visitors import api

urlpatterns = [
    re_path(
        rf"^visitors/(?P<visitor_id>{api.VISITOR_ID})$", api.VisitorDataApi.as_view(), name="api-visitor-data"
    ),
]
