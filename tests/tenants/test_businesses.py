from __future__ import annotations

import pytest
from django.core import mail
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import connection

from apps.accounts.models import Invitation
from apps.tenants.models import Business, Domain


def schema_exists(name: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM information_schema.schemata WHERE schema_name = %s", [name])
        return cursor.fetchone() is not None


def tables_in(schema: str) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = %s", [schema])
        return {row[0] for row in cursor.fetchall()}


def test_create_business_makes_schema_domain_and_owner_invitation(
    make_business, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        business = make_business("sunny", "Sunny Bakery", owner_email="Owner@Sunny.example")
    assert business.schema_name == "biz_sunny" and schema_exists("biz_sunny")
    assert "facts_fact" in tables_in("biz_sunny")
    assert "facts_fact" not in tables_in("public")
    assert Domain.objects.get(tenant=business).domain == "sunny.localhost"
    invitation = Invitation.objects.get(business=business)
    assert invitation.email == "owner@sunny.example" and invitation.role == "owner"
    assert len(mail.outbox) == 1 and invitation.token in mail.outbox[0].body


def test_hyphenated_slug_gets_a_valid_schema(make_business):
    business = make_business("bike-shop")
    assert business.schema_name == "biz_bike_shop" and schema_exists("biz_bike_shop")


@pytest.mark.parametrize("slug", ["Sunny Bakery", "a", "-x-", "www", "api", "x" * 60, "1abc"])
def test_bad_slugs_are_refused_before_any_schema_exists(make_business, slug):
    with pytest.raises(ValidationError):
        make_business(slug)
    assert Business.objects.count() == 0


def test_duplicate_slug_is_refused(make_business):
    make_business("sunny")
    with pytest.raises(ValidationError, match="already exists"):
        make_business("sunny")


def test_management_command_creates_a_business(reseller, capsys):
    call_command(
        "create_business", "dentist", name="Bright Smiles", reseller="acme", owner_email="dr@example.com"
    )
    out = capsys.readouterr().out
    assert "Created Bright Smiles" in out and " ms" in out
    business = Business.objects.get(slug="dentist")
    assert schema_exists(business.schema_name)
    business.delete(force_drop=True)


def test_env_file_values_quotes_and_inline_comments(tmp_path, monkeypatch):
    from xorventa.env import load_dotenv

    env = tmp_path / ".env"
    env.write_text(
        "# comment\nXV_A=auto          # auto | builtin\nXV_B=\"frame-ancestors 'none'\"\nXV_C='x # y'\nXV_D=plain\n"
    )
    for key in ("XV_A", "XV_B", "XV_C", "XV_D"):
        monkeypatch.delenv(key, raising=False)
    load_dotenv(env)
    import os

    assert (os.environ["XV_A"], os.environ["XV_B"], os.environ["XV_C"], os.environ["XV_D"]) == (
        "auto",
        "frame-ancestors 'none'",
        "x # y",
        "plain",
    )
    for key in ("XV_A", "XV_B", "XV_C", "XV_D"):
        monkeypatch.delenv(key, raising=False)


def test_bad_environment_values_fail_loudly(monkeypatch):
    from django.core.exceptions import ImproperlyConfigured

    from xorventa.env import env_bool, env_int

    monkeypatch.setenv("XV_FLAG", "ture")
    monkeypatch.setenv("XV_NUM", "ten")
    with pytest.raises(ImproperlyConfigured, match="XV_FLAG"):
        env_bool("XV_FLAG")
    with pytest.raises(ImproperlyConfigured, match="XV_NUM"):
        env_int("XV_NUM", 1)
