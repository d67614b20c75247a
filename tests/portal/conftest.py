"""Portal fixtures: a bakery with its people, a neighbour business, and another agency's business."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client
from django_tenants.utils import tenant_context


@dataclass
class World:
    sunny: Any
    reseller: Any
    owner: Any
    staff: Any
    agency: Any
    other: Any = None  # same reseller, another business
    far: Any = None  # another reseller's business
    far_reseller: Any = None
    other_owner: Any = None
    far_agency: Any = None

    def client(self, user: Any = None) -> Client:
        client = Client()
        if user is not None:
            client.force_login(user)
        return client


@pytest.fixture(autouse=True)
def fast_passwords(settings) -> None:
    # PBKDF2 at full strength costs ~0.3 s per user; these tests are not about hashing.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def bakery(make_business, make_user, reseller) -> World:
    """The bakery with its owner, a staff member and its agency's admin (one schema: fast)."""
    sunny = make_business("sunny", "Sunny Bakery")
    return World(
        sunny=sunny,
        reseller=reseller,
        owner=make_user("owner@sunny.example", role="owner", business=sunny),
        staff=make_user("staff@sunny.example", role="staff", business=sunny),
        agency=make_user("admin@acme.example", role="reseller_admin", reseller=reseller),
    )


@pytest.fixture
def world(bakery, make_business, make_user) -> World:
    """The bakery, a neighbour business of the same agency, and another agency with its business."""
    from apps.tenants.services import reseller_create

    bakery.far_reseller = reseller_create(name="Far Agency", slug="far-agency")
    bakery.other = make_business("brew", "Brew Cafe")
    bakery.far = make_business("smiles", "Bright Smiles", of=bakery.far_reseller)
    bakery.other_owner = make_user("owner@brew.example", role="owner", business=bakery.other)
    bakery.far_agency = make_user("admin@far.example", role="reseller_admin", reseller=bakery.far_reseller)
    return bakery


@pytest.fixture
def in_sunny(bakery) -> Iterator[Any]:
    """Run set-up code inside the bakery's schema (the way services are called by the views)."""

    class Enter:
        def __enter__(self) -> None:
            self._ctx = tenant_context(bakery.sunny)
            self._ctx.__enter__()

        def __exit__(self, *exc: object) -> None:
            self._ctx.__exit__(*exc)

    yield Enter


def seed_knowledge(actor: str = "owner@sunny.example") -> dict[str, Any]:
    """A small history through the real services: hours, a temporary holiday fact, a disagreement."""
    from datetime import date, timedelta

    from django.utils import timezone

    from apps.facts.services import owner_fact_add, source_ingest

    today = timezone.localdate()
    hours = owner_fact_add(
        topic="Opening hours",
        aspect="weekday hours",
        statement="Open Monday to Friday, 7 AM to 3 PM.",
        actor=actor,
    ).added[0]
    holiday = owner_fact_add(
        topic="Opening hours",
        aspect="weekday hours",
        statement="Open until 6 PM on weekdays for the holidays.",
        valid_from=today - timedelta(days=1),
        valid_to=today + timedelta(days=5),
        actor=actor,
    ).added[0]
    price = owner_fact_add(
        topic="Sourdough", aspect="price", statement="Sourdough is $8.50.", actor=actor
    ).added[0]
    from tests.conftest import ScriptedExtractor

    flyer = "Sourdough loaves are $10."
    extractor = ScriptedExtractor(
        {flyer: [{"topic": "Sourdough", "aspect": "price", "statement": flyer, "value": "$10"}]}
    )
    ingested = source_ingest(
        kind="document", ref="flyer.txt", title="flyer.txt", content=flyer, extractor=extractor
    )
    return {
        "hours": hours,
        "holiday": holiday,
        "price": price,
        "flyer": ingested,
        "after_holiday": today + timedelta(days=10),
        "today": today,
        "date": date,
    }


def seed_conversation(questions: list[str]) -> Any:
    from apps.chat.services import answer_once, conversation_open

    conversation = conversation_open(visitor_id="visitor-1")
    for text in questions:
        answer_once(conversation_id=conversation.pk, text=text)
    return conversation
