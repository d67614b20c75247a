"""Schemathesis against the live OpenAPI schemas on a real server (pytest-django's live_server, on the
real PostgreSQL test database): every v1 operation, with an owner's key (the business's schema, by
host) and a reseller's key (the business's schema, and the reseller's own on the main site). No 5xx,
and every response matches the schema (status, content type, headers, body).

Examples are limited per operation so the whole run stays within a couple of minutes.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    ignored_auth,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

EXAMPLES = int(os.environ.get("XORVENTA_SCHEMATHESIS_EXAMPLES", "4"))
# No 5xx, every response as the schema says, and no operation answers without its key. Not the
# heuristic "schema-valid data is accepted": a valid-looking request that breaks a rule the schema
# cannot state (a fact that ends before it starts, retiring a retired fact) is rightly a 400.
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    ignored_auth,
]


def _seed(business):
    """A little of everything, so the generated ids sometimes hit rows (most are 404s)."""
    from django_tenants.utils import tenant_context

    from apps.chat.models import Channel
    from apps.chat.services import answer_once, conversation_open
    from apps.facts.services import owner_answer_record, owner_fact_add
    from apps.gaps.services import gap_record

    with tenant_context(business):
        owner_fact_add(topic="Sourdough", statement="A sourdough loaf is $8.50.")
        owner_answer_record(question="Do you deliver?", answer="We deliver within 10 miles.")
        gap_record(question="Do you have parking for customers?", top_similarity=0.1)
        conversation = conversation_open(visitor_id="visitor-a", channel=Channel.API)
        answer_once(conversation_id=conversation.pk, text="When are you open?")


def _v1_only(schema):
    return schema.include(
        path_regex=r"/api/v1/(knowledge|sources|questions|conversations|widget/settings|reseller|visitors)"
    )


def _run(schema, *, base_url: str, host: str, key: str, methods: tuple[str, ...] = ()) -> list[str]:
    """Each operation's generated cases, called and validated; returns the failures (operation: why)."""
    failures: list[str] = []
    headers = {"Host": host, "Authorization": f"Api-Key {key}"}
    session = requests.Session()
    for result in _v1_only(schema).get_all_operations():
        operation = result.ok()
        if methods and operation.method.upper() not in methods:
            continue

        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        )
        @given(case=operation.as_strategy(), data=st.data())
        def check(case, data):
            case.call_and_validate(base_url=base_url, session=session, headers=headers, checks=CHECKS)

        try:
            check()
        except (Exception, BaseExceptionGroup) as exc:  # all operations' failures, reported together
            failures.append(f"{operation.method.upper()} {operation.path}: {exc}"[:2000])
    return failures


@pytest.mark.django_db(transaction=True)
def test_the_live_schemas_hold_for_an_owner_key_and_a_reseller_key(
    live_server, make_business, make_user, reseller, settings
):
    from apps.accounts.api_keys import api_key_create
    from apps.tenants.models import Business
    from apps.tenants.services import business_delete

    settings.XORVENTA_API_KEY_RATE = 100_000  # the run is a flood by design; the limit has its own test
    sunny = make_business("sunny", "Sunny Bakery")
    _seed(sunny)
    owner = make_user("owner@sunny.test", role="owner", business=sunny)
    _k, owner_key = api_key_create(name="schemathesis", access="write", business=sunny, created_by=owner)
    _k, reseller_key = api_key_create(
        name="schemathesis", access="write", reseller=reseller, created_by=owner
    )

    port = urlsplit(live_server.url).port
    tenant_host, public_host = f"sunny.localhost:{port}", f"localhost:{port}"
    tenant = schemathesis.openapi.from_url(f"{live_server.url}/api/schema/", headers={"Host": tenant_host})
    public = schemathesis.openapi.from_url(f"{live_server.url}/api/schema/", headers={"Host": public_host})
    operations = sum(1 for _ in _v1_only(tenant).get_all_operations()) + sum(
        1 for _ in _v1_only(public).get_all_operations()
    )
    assert operations >= 40

    try:
        failures = _run(tenant, base_url=live_server.url, host=tenant_host, key=owner_key)
        # The reseller's key on the business: its reads (its writes are the owner's key's, above).
        failures += _run(
            tenant, base_url=live_server.url, host=tenant_host, key=reseller_key, methods=("GET",)
        )
        failures += _run(public, base_url=live_server.url, host=public_host, key=reseller_key)
    finally:
        # The businesses the run created (POST reseller/businesses) and their schemas.
        for made in Business.objects.exclude(pk=sunny.pk):
            business_delete(business=made)
    assert not failures, "\n\n".join(failures)
