"""How a request finds its business: by host (sunny.example.com) or by path (/t/sunny/...).

Shared by the HTTP middleware and the websocket resolver so both normalise hosts the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.conf import settings

from apps.tenants.models import Business, Domain

_PATH_RE = re.compile(r"^/(?P<prefix>[a-z]+)/(?P<slug>[A-Za-z0-9-]+)(?P<rest>/.*)?$")


def normalise_host(host: str) -> str:
    """Lower-case, without port, trailing dot or a leading www. (SUNNY.localhost:8000 -> sunny.localhost)."""
    host = host.strip().lower()
    if host.startswith("["):  # IPv6 literal
        host = host.split("]", 1)[0] + "]"
    else:
        host = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    host = host.rstrip(".")
    return host[4:] if host.startswith("www.") else host


@dataclass(frozen=True)
class Route:
    business: Business | None  # None: the public site
    path_slug: str | None  # set when routed by path: /t/<slug>/


class UnknownTenant(Exception):
    pass


def resolve(host: str, path: str) -> Route:
    """Find the business for a host and path; raise UnknownTenant when they name none."""
    match = _PATH_RE.match(path)
    if match and match.group("prefix") == settings.TENANT_SUBFOLDER_PREFIX:
        slug = match.group("slug").lower()
        business = Business.objects.filter(slug=slug, is_active=True).select_related("reseller").first()
        if business is None:
            raise UnknownTenant(slug)
        return Route(business=business, path_slug=business.slug)
    hostname = normalise_host(host)
    if hostname in settings.PUBLIC_HOSTS:
        return Route(business=None, path_slug=None)
    domain = (
        Domain.objects.filter(domain=hostname, tenant__is_active=True)
        .select_related("tenant__reseller")
        .first()
    )
    if domain is None:
        raise UnknownTenant(hostname)
    return Route(business=domain.tenant, path_slug=None)
