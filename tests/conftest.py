"""Test fixtures: a throwaway embedded PostgreSQL (pgserver) per run, and businesses made by services.

`make test` boots a fresh server in a temporary folder; `pytest --reuse-pg --reuse-db` keeps one in
.xorventa/test-pgdata between runs for speed.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.core.cache import caches
from django.db import connection, connections
from django_tenants.utils import tenant_context

from apps.accounts.models import Role, User
from apps.accounts.services import business_create_with_owner, membership_grant
from apps.facts.extraction.base import Candidate
from apps.tenants.embedded_db import stop_server
from apps.tenants.models import Business
from apps.tenants.schema_template import template_ensure
from apps.tenants.services import business_delete, reseller_create

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--reuse-pg", action="store_true", help="Keep the embedded test PostgreSQL in .xorventa/test-pgdata."
    )


@pytest.fixture(scope="session")
def django_db_modify_db_settings(request: pytest.FixtureRequest) -> Iterator[None]:
    db = settings.DATABASES["default"]
    if "EMBEDDED_DATA_DIR" not in db:  # DATABASE_URL given: pytest-django makes test_<name> there
        yield
        return
    if request.config.getoption("--reuse-pg"):
        data_dir = Path(settings.BASE_DIR) / ".xorventa" / "test-pgdata"
        data_dir.parent.mkdir(parents=True, exist_ok=True)
        tmp = None
    else:
        tmp = Path(tempfile.mkdtemp(prefix="xorventa-test-"))
        data_dir = tmp / "pgdata"
    db["EMBEDDED_DATA_DIR"] = str(data_dir)
    db["EMBEDDED_DATABASE"] = "postgres"
    db["HOST"] = ""
    yield
    if tmp is not None:
        connections.close_all()
        stop_server(data_dir)
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture
def reseller(db: None):
    return reseller_create(name="Acme Agency", slug="acme")


@pytest.fixture
def make_business(tenant_schema_template: None, db: None, reseller) -> Iterator[Callable[..., object]]:
    """Create businesses through the real service; drop their schemas afterwards (also in transactional tests)."""
    created: list[Business] = []

    def make(slug: str, name: str | None = None, *, owner_email: str | None = None, of=None) -> Business:
        business = business_create_with_owner(
            reseller=of or reseller, name=name or slug.title(), slug=slug, owner_email=owner_email
        )
        created.append(business)
        return business

    yield make
    connection.set_schema_to_public()
    if connection.in_atomic_block:
        return  # a plain django_db test: the schemas' DDL rolls back with the test's transaction
    for business in created:
        if Business.objects.filter(pk=business.pk).exists():
            business_delete(business=business)


@pytest.fixture
def make_user(db: None) -> Callable[..., object]:
    def make(
        email: str,
        *,
        role: str | None = None,
        business=None,
        reseller=None,
        password: str = "pw-Long-enough-1",
    ):
        user = User.objects.create_user(email=email, password=password)
        if role:
            membership_grant(user=user, role=Role(role), business=business, reseller=reseller)
        return user

    return make


@pytest.fixture
def business(make_business) -> Iterator[object]:
    """A fresh business whose schema is active for the whole test."""
    biz = make_business("sunny", "Sunny Bakery")
    with tenant_context(biz):
        yield biz


class ScriptedExtractor:
    """Test double for the rules: returns the candidates a test scripts for each text (the rules engine
    is what these tests exercise; the real extractors have their own tests)."""

    name = "scripted"

    def __init__(self, script: dict[str, list[dict[str, object]]]):
        self.script = script

    def extract(self, text, context):
        return [Candidate(**c) for c in self.script.get(text.strip(), [])]


@pytest.fixture
def scripted():
    return ScriptedExtractor


@pytest.fixture(scope="session")
def tenant_schema_template(django_db_setup: None, django_db_blocker: object) -> None:
    """Build the schema template once, committed: a template built inside a test's transaction would be
    rolled back with it and rebuilt by every test (decision 0008)."""
    if not settings.XORVENTA_TENANT_TEMPLATE:
        return
    with django_db_blocker.unblock():  # type: ignore[attr-defined]
        template_ensure()


@pytest.fixture(autouse=True)
def _fresh_rate_limits() -> Iterator[None]:
    """Each test starts with empty per-address counters (the "global" cache outlives tests in one
    process; every test client comes from 127.0.0.1). Lockouts of django-axes live in the database and
    roll back with each test."""
    caches["global"].clear()
    yield
