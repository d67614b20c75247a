"""Hours for a period no calendar can place (a season, a holiday) are one fact about that period: they
never replace the regular days' hours (found in bench/golden, where "closed on Sundays" in winter
retired a bike shop's regular Sunday hours and Valentine's Day hours its Saturday hours)."""

from __future__ import annotations

import pytest

from apps.facts.models import Fact, FactStatus
from apps.facts.services import owner_answer_record

CASES = [
    (
        "Tuesday-Friday 10am-7pm, Saturday 9am-5pm and Sunday 11am-4pm. We're closed Mondays.",
        "Do your hours change in winter?",
        "From November through February we close at 6pm on weekdays and we're closed on Sundays. "
        "Saturday hours stay the same.",
        "hours winter",
    ),
    (
        "Monday to Friday 9am-6pm, Saturday 9am-4pm, Sunday 10am-2pm.",
        "Are you open on Valentine's Day and Mother's Day?",
        "Yes, we're open extended hours, 7am-8pm, on Valentine's Day and on the Saturday before Mother's Day.",
        "hours valentine's day",
    ),
    (
        "Tuesday to Saturday 7am-3pm, Sunday 8am-1pm. We're closed Mondays.",
        "Are you open on Christmas Day?",
        "No.",
        "hours christmas day",
    ),
]


@pytest.mark.parametrize(("regular", "question", "answer", "aspect"), CASES)
def test_period_hours_keep_the_regular_hours(business, regular, question, answer, aspect):
    owner_answer_record(question="What are your opening hours?", answer=regular)
    before = set(Fact.objects.filter(status=FactStatus.LIVE).values_list("statement", flat=True))
    owner_answer_record(question=question, answer=answer)
    live = Fact.objects.filter(status=FactStatus.LIVE)
    assert before <= set(live.values_list("statement", flat=True)), "a regular day's hours were retired"
    period = live.get(aspect=aspect)
    assert period.topic.name == "Opening hours"
    words = {
        "hours winter": "November",
        "hours valentine's day": "Valentine",
        "hours christmas day": "Christmas",
    }
    assert words[aspect] in period.statement


def test_someone_elses_phone_number_is_not_the_business_contact():
    """ "call the Northside Animal Emergency Hospital at (555) 020-7711" (bench/golden's vet) was stored
    as the vet's own phone number, and replaced its real one."""
    from datetime import date

    from apps.facts.extraction.base import ExtractionContext
    from apps.facts.extraction.builtin import BuiltinExtractor

    def phones(question: str, answer: str) -> list[str]:
        context = ExtractionContext(
            business_name="Maple Grove Vet", source_kind="owner_answer", learned_on=date(2026, 11, 30),
            question=question,
        )  # fmt: skip
        return [c.value for c in BuiltinExtractor().extract(answer, context) if c.aspect == "phone"]

    assert (
        phones(
            "What should I do in an emergency after hours?",
            "Outside our opening hours, please call the Northside Animal Emergency Hospital at (555) 020-7711.",
        )
        == []
    )
    assert phones("How can I reach you?", "Call us at (555) 020-1234.") == ["(555) 020-1234"]
    assert phones("How can I reach you?", "Call Maple Grove Vet at (555) 020-1234.") == ["(555) 020-1234"]


def test_a_date_range_is_not_a_phone_number():
    """ "July 13-24 2026" has digits enough for a phone number; read as one, it became the business's
    contact number and the sentence's price was never read."""
    from datetime import date

    from apps.facts.extraction.base import ExtractionContext
    from apps.facts.extraction.builtin import BuiltinExtractor

    context = ExtractionContext(
        business_name="Clayworks Pottery", source_kind="owner_answer", learned_on=date(2026, 5, 2),
        question="Do you run a kids' summer camp?",
    )  # fmt: skip
    found = BuiltinExtractor().extract(
        "Yes, the kids clay camp runs August 10-21 2026, afternoons, $240 for the two weeks.", context
    )
    assert [c for c in found if c.aspect == "phone"] == []
    assert "$240" in {c.value for c in found if c.aspect.startswith("price")}
    # a real number beside a date is still found
    found = BuiltinExtractor().extract("From June 3 call us on (555) 014-2290 instead.", context)
    assert [c.value for c in found if c.aspect == "phone"] == ["(555) 014-2290"]
