"""Phone numbers in a text, found and normalised by phonenumbers (libphonenumber's rules)."""

from __future__ import annotations

from dataclasses import dataclass

import phonenumbers
from django.conf import settings

__all__ = ["DEFAULT_REGION", "Phone", "find_phones", "phone_region"]

#: Region assumed for numbers written without a country code, when settings name none.
DEFAULT_REGION = "US"


@dataclass(frozen=True)
class Phone:
    text: str
    start_char: int
    end_char: int
    e164: str  # "+15552013344"
    region: str | None  # the number's own region ("GB" for +44 ...), None when unknown


def phone_region() -> str:
    """The region of numbers without a country code: ``XORVENTA_PHONE_REGION``, else US."""
    if not settings.configured:
        return DEFAULT_REGION
    return str(getattr(settings, "XORVENTA_PHONE_REGION", DEFAULT_REGION) or DEFAULT_REGION).upper()


def find_phones(text: str, *, region: str | None = None) -> tuple[Phone, ...]:
    """Every valid phone number in ``text``; ``region`` (ISO 3166 code) reads national numbers."""
    if sum(c.isdigit() for c in text) < 5:
        return ()  # no phone number is shorter; skips the matcher's cost for most questions

    found: list[Phone] = []
    for match in phonenumbers.PhoneNumberMatcher(
        text, region or phone_region(), leniency=phonenumbers.Leniency.VALID
    ):
        number = match.number
        found.append(
            Phone(
                text=match.raw_string,
                start_char=match.start,
                end_char=match.end,
                e164=phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164),
                region=phonenumbers.region_code_for_number(number),
            )
        )
    return tuple(found)
