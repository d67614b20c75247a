from __future__ import annotations

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse

from apps.accounts.access import businesses_for_user, resellers_administered


def home(request: HttpRequest) -> HttpResponse:
    """The landing page; for a signed-in person, the businesses to choose from (and a reseller's
    console in the navigation)."""
    context = {
        "businesses": businesses_for_user(request.user),
        "console_url": reverse("console:home") if resellers_administered(request.user) else "",
    }
    return render(request, "portal/public_home.html", context)


def healthz(request: HttpRequest) -> JsonResponse:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})
