from __future__ import annotations

from django.http import HttpRequest


def tenant(request: HttpRequest) -> dict[str, object]:
    business = getattr(request, "tenant", None)
    prefix = getattr(request, "tenant_prefix", "")
    product_name = business.reseller.product_name if business is not None else "Xorventa"
    return {
        "business": business,
        "tenant_prefix": prefix,
        "tenant_home": f"{prefix}/" if prefix else "/",
        "product_name": product_name,
    }
