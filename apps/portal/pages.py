"""What every portal and console view shares: the access gate, the page frame (navigation, role) the
templates expect, who is acting, and the way back to a topic after a fact action.

One public module so the view modules (views.py, console_views.py, views_*.py) use the same helpers
without reaching into each other's private names (issue 18).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse

from apps.accounts.access import BUSINESS_ROLES_ALL, BUSINESS_ROLES_MANAGE, access_business, access_reseller
from apps.accounts.models import Role
from apps.facts.models import Fact
from apps.tenants.models import Reseller

# The portal's tabs: (view name, label, roles that see it).
NAV = [
    ("portal:home", "Dashboard", BUSINESS_ROLES_ALL),
    ("portal:knowledge", "Knowledge", BUSINESS_ROLES_ALL),
    ("portal:sources", "Sources", BUSINESS_ROLES_ALL),
    ("portal:gaps", "Questions", BUSINESS_ROLES_ALL),
    ("portal:inbox", "Inbox", BUSINESS_ROLES_ALL),
    ("portal:conversations", "Conversations", BUSINESS_ROLES_ALL),
    ("portal:widget", "Widget", BUSINESS_ROLES_MANAGE),
    ("portal:team", "Team", BUSINESS_ROLES_MANAGE),
    ("portal:api_keys", "API keys", BUSINESS_ROLES_MANAGE),
    ("portal:webhooks", "Webhooks", BUSINESS_ROLES_MANAGE),
    ("portal:privacy", "Visitor data", BUSINESS_ROLES_MANAGE),
]

# The console's tabs: (view name, label); each takes the reseller's slug.
CONSOLE_NAV = [
    ("console:reseller", "Businesses"),
    ("console:branding", "White label"),
    ("console:api_keys", "API keys"),
]

View = Callable[..., HttpResponse]


def portal_page(roles: frozenset[Role] = BUSINESS_ROLES_ALL) -> Callable[[View], View]:
    """Sign-in required, then the access gate; the role is kept on the request for the templates."""

    def decorate(view: View) -> View:
        @login_required
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            business = getattr(request, "tenant", None)
            if business is None:
                raise Http404("No such business.")
            request.role = access_business(request.user, business, roles=roles)  # type: ignore[attr-defined]
            return view(request, *args, **kwargs)

        return wrapper

    return decorate


def render_portal_page(
    request: HttpRequest, template: str, context: dict[str, Any], *, status: int = 200
) -> HttpResponse:
    """Render a portal page with the frame every portal template expects (role, tabs, console link)."""
    role = request.role  # type: ignore[attr-defined]
    # View names are "<section>_<page>" ("portal:knowledge_topic"): the section's tab is current.
    current = request.resolver_match.view_name if request.resolver_match else ""
    section = current.split("_")[0]
    nav = [
        {"url": reverse(name), "label": label, "current": name == section}
        for name, label, roles in NAV
        if role in roles
    ]
    base = {
        "role": role,
        "can_manage": role in BUSINESS_ROLES_MANAGE,
        "nav": nav,
        "console_url": f"{settings.SITE_URL}/console/" if role == Role.RESELLER_ADMIN else "",
    }
    return render(request, template, {**base, **context}, status=status)


def actor_of(request: HttpRequest) -> str:
    """Who is acting, as the services record it (the signed-in user's email)."""
    return str(getattr(request.user, "email", ""))


def back_to_topic(fact: Fact, request: HttpRequest) -> HttpResponse:
    """Redirect to the fact's topic page, on the date the owner was looking at (?on= or the form's on)."""
    url = reverse("portal:knowledge_topic", args=[fact.topic_id])
    on = request.POST.get("on") or request.GET.get("on")
    return redirect(f"{url}?on={on}" if on else url)


def console_reseller(request: HttpRequest, slug: str) -> Reseller:
    """The reseller of a console URL; a 404 unless the signed-in user administers it."""
    return access_reseller(request.user, get_object_or_404(Reseller, slug=slug))


def render_console_page(
    request: HttpRequest, reseller: Reseller, template: str, context: dict[str, Any], *, status: int = 200
) -> HttpResponse:
    """Render a console page with the frame every console template expects (reseller, its tabs)."""
    current = request.resolver_match.view_name if request.resolver_match else ""
    nav = [
        {"url": reverse(name, args=[reseller.slug]), "label": label, "current": name == current}
        for name, label in CONSOLE_NAV
    ]
    base = {"reseller": reseller, "product_name": reseller.product_name, "nav": nav}
    return render(request, template, {**base, **context}, status=status)
