"""The owner portal: pages of one business, reachable only by its members and its reseller."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from apps.accounts.access import business_role


def business_home(request: HttpRequest) -> HttpResponse:
    business = request.tenant  # type: ignore[attr-defined]
    role = business_role(request.user, business)
    return render(request, "portal/business_home.html", {"role": role})
