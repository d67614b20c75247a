from __future__ import annotations

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from apps.accounts.access import businesses_for_user


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "portal/public_home.html", {"businesses": businesses_for_user(request.user)})


def healthz(request: HttpRequest) -> JsonResponse:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})
