"""Amounts (price-parser) with units and qualifiers, and phone numbers (phonenumbers)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from apps.language.analysis import analyse
from apps.language.phones import find_phones


def amounts(text: str):
    return [
        (a.value, a.currency, a.unit, a.qualifier, a.quantity)
        for a in analyse(text, base_date=dt.date(2026, 12, 1)).amounts
    ]


def test_per_unit_and_each() -> None:
    assert amounts("Driving lessons are $45 per hour; a block of 10 is $400.") == [
        (Decimal("45"), "$", "hour", None, None),
        (Decimal("400"), "$", None, None, None),
    ]
    assert amounts("Kayak hire £18/hour, dry bags £3 each") == [
        (Decimal("18"), "£", "hour", None, None),
        (Decimal("3"), "£", "each", None, None),
    ]
    assert amounts("Cabins from $149 a night") == [(Decimal("149"), "$", "night", "from", None)]


def test_qualifiers_offers_and_ranges() -> None:
    assert amounts("Repairs up to $500 are covered.")[0][3] == "up_to"
    assert amounts("Class packs are 5 for $100 or 10 for $180") == [
        (Decimal("100"), "$", None, None, Decimal("5")),
        (Decimal("180"), "$", None, None, Decimal("10")),
    ]
    assert [a[:2] for a in amounts("Colour 45-60 EUR")] == [(Decimal("45"), "EUR"), (Decimal("60"), "EUR")]
    assert [a[:2] for a in amounts("Tint $30-45")] == [(Decimal("30"), "$"), (Decimal("45"), "$")]


def test_written_currencies_and_separators() -> None:
    assert amounts("A gel manicure is 30 dollars.")[0][:2] == (Decimal("30"), "USD")
    assert amounts("Timing belt: €1.234,50 incl. labour")[0][:2] == (Decimal("1234.50"), "€")
    assert amounts("Garlic bread ...... $6")[0][:2] == (Decimal("6"), "$")
    assert amounts("| Deluxe wash | $30 | $45 |") == [
        (Decimal("30"), "$", None, None, None),
        (Decimal("45"), "$", None, None, None),
    ]


def test_bare_numbers_are_not_amounts() -> None:
    assert amounts("We groom 40 dogs a week and open at 8.") == []


def test_phone_numbers_with_a_default_region() -> None:
    text = "Bookings: (202) 555-0143, or our London shop on +44 20 7946 0958."
    assert [(p.e164, p.region) for p in find_phones(text, region="US")] == [
        ("+12025550143", "US"),
        ("+442079460958", "GB"),
    ]
    national = "Ring the workshop on 020 7946 0958 before noon."
    assert find_phones(national, region="US") == ()
    (phone,) = find_phones(national, region="GB")
    assert (phone.text, phone.e164) == ("020 7946 0958", "+442079460958")
    assert analyse("Open 9-5, 300 covers, $12.50 mains", base_date=dt.date(2026, 12, 1)).phones == ()


def test_the_default_region_comes_from_settings(settings) -> None:
    national = "Ring the workshop on 020 7946 0958 before noon."
    settings.XORVENTA_PHONE_REGION = "GB"
    assert [p.e164 for p in find_phones(national)] == ["+442079460958"]
    settings.XORVENTA_PHONE_REGION = "US"
    assert find_phones(national) == ()


def test_amounts_in_cents() -> None:
    import datetime as dt

    from apps.language.analysis import analyse

    found = analyse(
        "Photocopies 15¢ per page, or 99 cents a photo print.", base_date=dt.date(2026, 1, 1)
    ).amounts
    assert [(a.text, str(a.value), a.currency, a.unit) for a in found] == [
        ("15¢", "0.15", "¢", "page"),
        ("99 cents", "0.99", "¢", "photo"),
    ]
