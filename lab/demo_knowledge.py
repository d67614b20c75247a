"""The demo bakery's knowledge history (seed 000, Appendix A), played through the real services."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from django_tenants.utils import tenant_context

from apps.facts.models import Source
from apps.facts.services import owner_answer_record, source_ingest
from apps.tenants.models import Business

WEBSITE = "https://sunny-bakery.example/"
EVENTS: list[tuple[str, str, str, str]] = [
    (
        "website",
        WEBSITE,
        "",
        "Sunny Bakery, fresh bread every day. Open Monday to Friday, 7 AM to 3 PM. Sourdough loaf is $8. "
        "Delivery within 5 miles for $5. Gift cards available in store.",
    ),
    (
        "owner_answer",
        "demo-answer-1",
        "Do you make wedding cakes?",
        "Yes, wedding cakes start at $250 and we need 4 weeks notice.",
    ),
    (
        "owner_answer",
        "demo-answer-2",
        "What are your holiday hours?",
        "We're open until 6pm Monday to Friday until Dec 24.",
    ),
    (
        "document",
        "price-update.txt",
        "",
        "Sourdough is now $9 a loaf. Our delivery area has grown to 10 miles.",
    ),
    (
        "owner_answer",
        "demo-answer-3",
        "Is delivery free?",
        "Delivery is free on orders over $50, otherwise $5.",
    ),
    (
        "website",
        WEBSITE,
        "",
        "Sunny Bakery, fresh bread every day. Open Monday to Friday, 7 AM to 3 PM. Sourdough loaf is $8. "
        "Delivery within 5 miles for $5. Gift cards available in store.",
    ),
    (
        "website",
        WEBSITE,
        "",
        "Sunny Bakery, fresh bread every day. Open Monday to Friday, 7 AM to 3 PM. Sourdough loaf is $8. "
        "Delivery within 5 miles for $5. We no longer sell gift cards.",
    ),
    ("owner_answer", "demo-answer-4", "How much is the sourdough?", "Sourdough is $8.50."),
    ("document", "holiday-flyer.txt", "", "Holiday flyer: Sourdough loaves $10."),
]


def demo_knowledge_seed(business: Business, log: Callable[[str], object] = print) -> None:
    with tenant_context(business):
        if Source.objects.exists():
            return
        log("Playing the bakery's knowledge history...")
        start = datetime.now(UTC) - timedelta(days=len(EVENTS))
        for i, (kind, ref, question, content) in enumerate(EVENTS):
            when = start + timedelta(days=i)
            if kind == "owner_answer":
                owner_answer_record(question=question, answer=content, read_at=when, ref=ref, actor="demo")
            else:
                source_ingest(kind=kind, ref=ref, content=content, read_at=when, title=ref)
