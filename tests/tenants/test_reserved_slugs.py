"""Issue 16, finding 2: a business slug cannot take a schema that is not its own.

The attack: a reseller creates a business whose slug maps to an existing schema (the template every
new business is copied from, pg_toast, information_schema, public, or any other schema), so that its
owner's answers land in a schema other businesses are made from. Each attempt goes through the real
REST API, the console form and the command, and must be refused before anything is written.
"""

from __future__ import annotations

# ruff: noqa: S608 - the SQL here reads schemas the test itself names
import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client
from rest_framework.authtoken.models import Token

from apps.tenants.models import Business
from apps.tenants.schema_template import template_ensure


def _template_state(name: str) -> tuple[int, int, int]:
    """(migrations recorded, facts, tables) in the template: what a takeover would change."""
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT count(*) FROM "{name}".django_migrations')
        migrations = cursor.fetchone()[0]
        cursor.execute(f'SELECT count(*) FROM "{name}".facts_fact')
        facts = cursor.fetchone()[0]
        cursor.execute("SELECT count(*) FROM pg_tables WHERE schemaname = %s", [name])
        tables = cursor.fetchone()[0]
    return migrations, facts, tables


@pytest.fixture
def taken_schema(db: None) -> str:
    """A schema that exists but belongs to no business (another tool's, a half-restored one...)."""
    from apps.tenants.services import business_schema_name

    name = business_schema_name("orphan")
    with connection.cursor() as cursor:
        cursor.execute(f'CREATE SCHEMA "{name}"')  # rolls back with the test
    return name


def _reserved_slugs() -> list[str]:
    template = template_ensure()
    return [template.replace("_", "-"), "pg-toast", "pg-catalog", "information-schema", "public", "orphan"]


def test_reserved_and_existing_schema_names_are_refused_by_the_api(
    make_user, reseller, tenant_schema_template, taken_schema
):
    template = template_ensure()
    before = _template_state(template)
    agency = make_user("admin@acme.example", role="reseller_admin", reseller=reseller)
    client = Client(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=agency).key}")
    for slug in _reserved_slugs():
        response = client.post(
            "/api/v1/businesses", {"name": "Takeover", "slug": slug}, content_type="application/json"
        )
        assert response.status_code == 400, (slug, response.content)
        message = " ".join(response.json()["slug"])
        assert "reserved" in message or "already exists" in message, (slug, message)
        assert slug in message
    assert not Business.objects.filter(name="Takeover").exists()
    assert not Business.objects.filter(schema_name__in=[template, "pg_toast", "information_schema"]).exists()
    assert _template_state(template) == before
    # The orphan schema is untouched too (a failed creation drops the schema named by the row).
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_namespace WHERE nspname = %s", [taken_schema])
        assert cursor.fetchone() is not None


def test_console_form_and_command_refuse_reserved_slugs_with_the_same_message(
    make_user, reseller, tenant_schema_template
):
    agency = make_user("admin@acme.example", role="reseller_admin", reseller=reseller)
    client = Client()
    client.force_login(agency)
    slug = template_ensure().replace("_", "-")
    page = client.post("/console/acme/", {"name": "Takeover", "slug": slug})
    assert page.status_code == 400 and b"is reserved" in page.content
    with pytest.raises(CommandError, match="is reserved"):
        call_command("create_business", "pg-toast", name="Takeover", reseller="acme")
    assert not Business.objects.filter(name="Takeover").exists()


def test_business_schemas_live_under_their_own_prefix(make_business):
    from apps.tenants.services import BUSINESS_SCHEMA_PREFIX

    business = make_business("bike-shop")
    assert business.schema_name == f"{BUSINESS_SCHEMA_PREFIX}bike_shop"
    assert not template_ensure().startswith(BUSINESS_SCHEMA_PREFIX)
