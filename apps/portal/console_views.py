"""The reseller's console (public site, /console/): its businesses with usage and health, creating a
business, and the white-label settings applied to every business's portal and widget.

Every view goes through the access gate (``access_reseller``, by way of ``pages.console_reseller``):
anyone who does not administer the reseller gets a 404.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from apps.accounts.access import resellers_administered
from apps.accounts.services import business_create_with_owner
from apps.portal import forms, selectors
from apps.portal.pages import console_reseller, render_console_page
from apps.tenants.models import Reseller


@login_required
def console_home(request: HttpRequest) -> HttpResponse:
    resellers = resellers_administered(request.user)
    if not resellers:
        raise Http404("No such page.")
    if len(resellers) == 1:
        return redirect("console:reseller", resellers[0].slug)
    return render(request, "console/choose.html", {"resellers": resellers})


@login_required
def reseller_home(request: HttpRequest, slug: str) -> HttpResponse:
    reseller = console_reseller(request, slug)
    form = forms.BusinessCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            business = business_create_with_owner(reseller=reseller, **form.cleaned_data)
        except ValidationError as exc:
            for field, errors in exc.message_dict.items():
                form.add_error(field if field in form.fields else None, errors)
        else:
            invited = (
                f" and invited {form.cleaned_data['owner_email']}" if form.cleaned_data["owner_email"] else ""
            )
            messages.success(request, f"Created {business.name}{invited}.")
            return redirect("console:reseller", reseller.slug)
    context = {"rows": selectors.reseller_businesses(reseller), "form": form}
    return render_console_page(
        request, reseller, "console/home.html", context, status=400 if form.errors else 200
    )


@login_required
def branding(request: HttpRequest, slug: str) -> HttpResponse:
    reseller = console_reseller(request, slug)
    form = forms.BrandingForm(request.POST or None, instance=reseller)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, "Saved: every business's portal and widget now use it.")
        return redirect("console:branding", reseller.slug)
    # The form edits ``reseller`` in place while validating: show the saved look until it is saved.
    saved = Reseller.objects.get(pk=reseller.pk)
    return render_console_page(
        request, saved, "console/branding.html", {"form": form}, status=400 if form.errors else 200
    )
