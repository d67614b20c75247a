"""The owner's webhook pages: endpoints (add, edit, roll the secret, delete) and each endpoint's
delivery log with "resend". Owners and reseller admins only; lookups by id happen inside the
business's schema, so another business's ids find nothing."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from apps.accounts.access import BUSINESS_ROLES_MANAGE
from apps.portal.pages import portal_page, render_portal_page
from apps.webhooks.models import Delivery, Endpoint, EventType
from apps.webhooks.services import (
    WebhookInputError,
    delivery_resend,
    endpoint_create,
    endpoint_delete,
    endpoint_secret_roll,
    endpoint_update,
)
from apps.webhooks.signing import HEADER

DELIVERIES_SHOWN = 50


class EndpointForm(forms.Form):
    url = forms.CharField(
        label="Address that receives the events",
        max_length=500,
        widget=forms.URLInput(
            attrs={"placeholder": "https://example.com/hooks/xorventa", "spellcheck": "false"}
        ),
    )
    description = forms.CharField(label="Description", max_length=200, required=False)
    events = forms.MultipleChoiceField(
        label="Events",
        choices=EventType.choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="None ticked: every event.",
    )
    is_active = forms.BooleanField(label="Send events to this address", required=False, initial=True)


def _save(request: HttpRequest, form: EndpointForm, endpoint: Endpoint | None) -> Endpoint | None:
    data = form.cleaned_data
    try:
        if endpoint is None:
            return endpoint_create(url=data["url"], description=data["description"], events=data["events"])
        return endpoint_update(
            endpoint=endpoint,
            url=data["url"],
            description=data["description"],
            events=data["events"],
            is_active=data["is_active"],
        )
    except WebhookInputError as exc:
        form.add_error("url", str(exc))
        return None


@portal_page(BUSINESS_ROLES_MANAGE)
def webhooks(request: HttpRequest) -> HttpResponse:
    form = EndpointForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        endpoint = _save(request, form, None)
        if endpoint is not None:
            messages.success(request, "Endpoint added. Copy its signing secret into your receiver.")
            return redirect("portal:webhooks_endpoint", pk=endpoint.pk)
    endpoints = [
        {"endpoint": e, "last": e.deliveries.order_by("-created_at", "-id").first()}
        for e in Endpoint.objects.all()
    ]
    context = {"form": form, "endpoints": endpoints, "header": HEADER}
    return render_portal_page(request, "portal/webhooks.html", context, status=400 if form.errors else 200)


@portal_page(BUSINESS_ROLES_MANAGE)
def webhooks_endpoint(request: HttpRequest, pk: int) -> HttpResponse:
    endpoint = get_object_or_404(Endpoint, pk=pk)
    initial = {
        "url": endpoint.url,
        "description": endpoint.description,
        "events": endpoint.events,
        "is_active": endpoint.is_active,
    }
    form = EndpointForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid() and _save(request, form, endpoint) is not None:
        messages.success(request, "Endpoint saved.")
        return redirect("portal:webhooks_endpoint", pk=endpoint.pk)
    deliveries = Delivery.objects.filter(endpoint=endpoint).prefetch_related("attempt_log")[:DELIVERIES_SHOWN]
    context = {"endpoint": endpoint, "form": form, "deliveries": deliveries, "header": HEADER}
    return render_portal_page(
        request, "portal/webhooks_endpoint.html", context, status=400 if form.errors else 200
    )


@require_POST
@portal_page(BUSINESS_ROLES_MANAGE)
def webhooks_roll(request: HttpRequest, pk: int) -> HttpResponse:
    endpoint_secret_roll(endpoint=get_object_or_404(Endpoint, pk=pk))
    messages.success(request, "New signing secret made: update your receiver. The old one no longer signs.")
    return redirect("portal:webhooks_endpoint", pk=pk)


@require_POST
@portal_page(BUSINESS_ROLES_MANAGE)
def webhooks_delete(request: HttpRequest, pk: int) -> HttpResponse:
    endpoint_delete(endpoint=get_object_or_404(Endpoint, pk=pk))
    messages.success(request, "Endpoint deleted, with its delivery log.")
    return redirect("portal:webhooks")


@require_POST
@portal_page(BUSINESS_ROLES_MANAGE)
def webhooks_resend(request: HttpRequest, pk: int) -> HttpResponse:
    delivery = get_object_or_404(Delivery, pk=pk)
    delivery_resend(delivery=delivery)
    messages.success(request, "Sending it again now; the log below shows the answer in a moment.")
    return redirect("portal:webhooks_endpoint", pk=delivery.endpoint_id)
