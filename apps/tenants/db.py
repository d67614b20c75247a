"""The connection's schema, typed: django-tenants adds these to the connection at run time."""

from __future__ import annotations

from django.db import connection


def current_schema() -> str:
    return str(getattr(connection, "schema_name", "public"))


def use_public_schema() -> None:
    connection.set_schema_to_public()  # type: ignore[attr-defined]


def use_tenant(business: object) -> None:
    connection.set_tenant(business)  # type: ignore[attr-defined]
