"""Visitor data rights in the portal: find a visitor (by contact or id), export their data as JSON,
erase it, and set how long conversations are kept. Owners and reseller admins only."""

from __future__ import annotations

import json

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from apps.accounts.access import BUSINESS_ROLES_MANAGE
from apps.portal.pages import portal_page, render_portal_page
from apps.visitors.selectors import visitor_export, visitors_find
from apps.visitors.services import (
    MAX_RETENTION_DAYS,
    VisitorInputError,
    data_settings,
    retention_set,
    visitor_erase,
)


class RetentionForm(forms.Form):
    retention_days = forms.IntegerField(
        label="Delete conversations after (days)",
        required=False,
        min_value=1,
        max_value=MAX_RETENTION_DAYS,
        help_text="Counted from a conversation's last message; checked every night. Empty: keep them.",
    )


@portal_page(BUSINESS_ROLES_MANAGE)
def privacy(request: HttpRequest) -> HttpResponse:
    settings_row = data_settings()
    form = RetentionForm(request.POST or None, initial={"retention_days": settings_row.retention_days})
    if request.method == "POST" and form.is_valid():
        try:
            retention_set(days=form.cleaned_data["retention_days"])
        except VisitorInputError as exc:
            form.add_error("retention_days", str(exc))
        else:
            messages.success(request, "Retention saved.")
            return redirect("portal:privacy")
    query = request.GET.get("q", "").strip()[:200]
    context = {"form": form, "query": query, "found": visitors_find(query) if query else []}
    return render_portal_page(request, "portal/privacy.html", context, status=400 if form.errors else 200)


@portal_page(BUSINESS_ROLES_MANAGE)
def privacy_export(request: HttpRequest, visitor_id: str) -> HttpResponse:
    body = json.dumps(visitor_export(visitor_id=visitor_id), indent=2, ensure_ascii=False)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="visitor-{visitor_id}.json"'
    return response


@require_POST
@portal_page(BUSINESS_ROLES_MANAGE)
def privacy_erase(request: HttpRequest, visitor_id: str) -> HttpResponse:
    erased = visitor_erase(visitor_id=visitor_id)
    messages.success(
        request,
        f"Deleted {erased.conversations} conversation(s) with {erased.messages} message(s), "
        f"{erased.contacts} contact detail(s) and {erased.asks} question ask(s) of this visitor.",
    )
    return redirect("portal:privacy")
