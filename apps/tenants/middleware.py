"""Selects the business's schema for each HTTP request, by host or by /t/<slug>/ path."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse, HttpResponseNotFound
from django.urls import set_urlconf
from django_tenants.urlresolvers import get_subfolder_urlconf

from apps.tenants.db import use_public_schema, use_tenant
from apps.tenants.models import Business
from apps.tenants.routing import UnknownTenant, resolve

# One URLconf module per path-routed business, built once: Django caches a resolver per URLconf
# object, so building a fresh module per request would grow that cache without bound.
_path_urlconfs: dict[str, object] = {}


def _path_urlconf(business: Business, slug: str) -> object:
    urlconf = _path_urlconfs.get(slug)
    if urlconf is None:
        business.domain_subfolder = slug
        urlconf = _path_urlconfs.setdefault(slug, get_subfolder_urlconf(business))
    return urlconf


class TenantRoutingMiddleware:
    """Must be first. Unknown tenants get a plain 404 that reveals nothing."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        use_public_schema()
        try:
            route = resolve(request.get_host(), request.path)
        except (UnknownTenant, DisallowedHost):
            return HttpResponseNotFound("Not found.", content_type="text/plain")
        request.tenant_prefix = ""  # type: ignore[attr-defined]
        if route.business is None:
            # No `request.tenant` on the public site: django-tenants' admin reads its absence as
            # "public schema" (code must use getattr(request, "tenant", None)).
            request.urlconf = settings.PUBLIC_SCHEMA_URLCONF
        else:
            business = route.business
            request.tenant = business  # type: ignore[attr-defined]
            use_tenant(business)
            if route.path_slug:
                request.urlconf = _path_urlconf(business, route.path_slug)  # type: ignore[assignment]
                request.tenant_prefix = f"/{settings.TENANT_SUBFOLDER_PREFIX}/{route.path_slug}"  # type: ignore[attr-defined]
            else:
                request.urlconf = settings.ROOT_URLCONF
        set_urlconf(request.urlconf)
        try:
            return self.get_response(request)
        finally:
            use_public_schema()
