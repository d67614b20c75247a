"""Reads about the businesses themselves. Apart from db.py (the connection's schema), which the
models' schema creation imports: db.py importing the models made an import circle (issue 18)."""

from __future__ import annotations

from django.db import connection

from apps.tenants.db import current_schema
from apps.tenants.models import Business


def current_business_name() -> str:
    """The name of the business whose schema the connection is in ("The business" in public)."""
    name = getattr(getattr(connection, "tenant", None), "name", None)
    if name:
        return str(name)
    business = Business.objects.filter(schema_name=current_schema()).only("name").first()
    return business.name if business else "The business"
