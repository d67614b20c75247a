"""API keys in the portal (one business's keys) and in the console (a reseller's keys and its
businesses'). A new key is shown once, on the page that answers the form (never stored in a message
or the session); only its hash is kept. Owners and reseller admins only."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from apps.accounts.access import BUSINESS_ROLES_MANAGE
from apps.accounts.api_keys import api_key_create, api_key_revoke, api_keys_of_business, api_keys_of_reseller
from apps.accounts.models import ApiAccess, ApiKey
from apps.portal.pages import console_reseller, portal_page, render_console_page, render_portal_page

ALL_BUSINESSES = "*"


class ApiKeyForm(forms.Form):
    name = forms.CharField(
        label="Name", max_length=50, help_text="Where it is used, e.g. 'Zapier' or 'our CRM'."
    )
    access = forms.ChoiceField(label="Access", choices=ApiAccess.choices, initial=ApiAccess.READ)


class ResellerApiKeyForm(ApiKeyForm):
    scope = forms.ChoiceField(
        label="Reaches", help_text="All of your businesses (and the reseller API), or one."
    )

    def __init__(self, *args: Any, businesses: list[Any], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        scope = self.fields["scope"]
        assert isinstance(scope, forms.ChoiceField)
        scope.choices = [(ALL_BUSINESSES, "All businesses")] + [(b.slug, b.name) for b in businesses]


def _rows(keys: Any, revoke_url: Any) -> list[ApiKey]:
    rows = list(keys)
    for key in rows:
        key.revoke_url = revoke_url(key)
    return rows


def _created(form: forms.Form, **scope: Any) -> tuple[ApiKey | None, str]:
    try:
        key, text = api_key_create(
            name=form.cleaned_data["name"], access=form.cleaned_data["access"], **scope
        )
    except ValidationError as exc:
        for field, errors in exc.message_dict.items():
            form.add_error(field if field in form.fields else None, errors)
        return None, ""
    return key, text


@portal_page(BUSINESS_ROLES_MANAGE)
def api_keys(request: HttpRequest) -> HttpResponse:
    business = request.tenant  # type: ignore[attr-defined]
    form = ApiKeyForm(request.POST or None)
    new_key = ""
    if request.method == "POST" and form.is_valid():
        _key, new_key = _created(form, business=business, created_by=request.user)
        if new_key:
            form = ApiKeyForm()
    context = {
        "keys": _rows(
            api_keys_of_business(business), lambda k: reverse("portal:api_keys_revoke", args=[k.prefix])
        ),
        "form": form,
        "new_key": new_key,
        "docs_url": reverse("api-docs"),
    }
    return render_portal_page(request, "portal/api_keys.html", context, status=400 if form.errors else 200)


@require_POST
@portal_page(BUSINESS_ROLES_MANAGE)
def api_key_revoke_view(request: HttpRequest, prefix: str) -> HttpResponse:
    key = get_object_or_404(ApiKey, prefix=prefix, business=request.tenant)  # type: ignore[attr-defined]
    api_key_revoke(key=key)
    messages.success(request, f"Revoked {key.name}: it is refused from now on.")
    return redirect("portal:api_keys")


@login_required
def console_api_keys(request: HttpRequest, slug: str) -> HttpResponse:
    reseller = console_reseller(request, slug)
    businesses = list(reseller.businesses.order_by("name"))
    form = ResellerApiKeyForm(request.POST or None, businesses=businesses)
    new_key = ""
    if request.method == "POST" and form.is_valid():
        chosen = form.cleaned_data["scope"]
        scope: dict[str, Any] = (
            {"reseller": reseller}
            if chosen == ALL_BUSINESSES
            else {"business": next(b for b in businesses if b.slug == chosen)}
        )
        _key, new_key = _created(form, created_by=request.user, **scope)
        if new_key:
            form = ResellerApiKeyForm(businesses=businesses)
    context = {
        "keys": _rows(
            api_keys_of_reseller(reseller),
            lambda k: reverse("console:api_keys_revoke", args=[reseller.slug, k.prefix]),
        ),
        "form": form,
        "new_key": new_key,
        "docs_url": reverse("api-docs"),
    }
    return render_console_page(
        request, reseller, "console/api_keys.html", context, status=400 if form.errors else 200
    )


@require_POST
@login_required
def console_api_key_revoke(request: HttpRequest, slug: str, prefix: str) -> HttpResponse:
    reseller = console_reseller(request, slug)
    key = get_object_or_404(api_keys_of_reseller(reseller), prefix=prefix)
    api_key_revoke(key=key)
    messages.success(request, f"Revoked {key.name}: it is refused from now on.")
    return redirect("console:api_keys", reseller.slug)
