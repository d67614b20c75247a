"""Splitting source text into parts (apps.facts.extraction.parts): one sentence, list item, table row
or question-and-answer each, under its heading breadcrumb, with a whitespace-insensitive hash."""

from __future__ import annotations

from datetime import date

from apps.facts.extraction.base import ExtractionContext
from apps.facts.extraction.builtin import BuiltinExtractor
from apps.facts.extraction.parts import MAX_PART_CHARS, normalise, part_hash, split_parts, split_sentences

PAGE = """# Sunny Bakery

Fresh bread every day. Open Mon. to Fri. 7 a.m. to 3 p.m. Closed Sat. and Sun.

## Prices
- Sourdough loaf: $8
- Rye: $7.50
  (sliced on request)
* **Croissant** $3

Hours
-----
Mon-Fri: 7am-3pm

**Delivery:**
We deliver within 5 miles. Dr. Smith St. is our street.

| Item | Price |
|---|---|
| Baguette | $4 |

Do you deliver? Yes, within 5 miles. Is it free? No.
Visit [our shop](https://x.example/shop) for more.
"""


def texts(text: str) -> list[tuple[str, str]]:
    return [(p.heading, p.text) for p in split_parts(text)]


def test_page_is_split_under_heading_breadcrumbs() -> None:
    assert texts(PAGE) == [
        ("Sunny Bakery", "Fresh bread every day."),
        ("Sunny Bakery", "Open Mon. to Fri. 7 a.m. to 3 p.m."),
        ("Sunny Bakery", "Closed Sat. and Sun."),
        ("Sunny Bakery > Prices", "Sourdough loaf: $8"),
        ("Sunny Bakery > Prices", "Rye: $7.50 (sliced on request)"),
        ("Sunny Bakery > Prices", "Croissant $3"),
        ("Sunny Bakery > Hours", "Mon-Fri: 7am-3pm"),
        ("Sunny Bakery > Hours > Delivery", "We deliver within 5 miles."),
        ("Sunny Bakery > Hours > Delivery", "Dr. Smith St. is our street."),
        ("Sunny Bakery > Hours", "Baguette: $4"),
        ("Sunny Bakery > Hours", "Do you deliver? Yes, within 5 miles."),
        ("Sunny Bakery > Hours", "Is it free? No."),
        ("Sunny Bakery > Hours", "Visit our shop (https://x.example/shop) for more."),
    ]


def test_headings_replace_siblings_and_pop_deeper_levels() -> None:
    text = "# A\n## B\nOne.\n### C\nTwo.\n## D\nThree.\n# E\nFour."
    assert texts(text) == [("A > B", "One."), ("A > B > C", "Two."), ("A > D", "Three."), ("E", "Four.")]


def test_sentence_splitting_respects_abbreviations_times_and_days() -> None:
    assert split_sentences(
        "It costs $8. E.g. the rye is $7. We open at 7 a.m. Sunday too. Apt. 4B is ours. See you!"
    ) == [
        "It costs $8.",
        "E.g. the rye is $7.",
        "We open at 7 a.m. Sunday too.",
        "Apt. 4B is ours.",
        "See you!",
    ]
    assert split_sentences(
        "We're at 12 Main St. Call us. Open 9 a.m. We close at 5 p.m. Tuesday to Friday."
    ) == [
        "We're at 12 Main St.",
        "Call us.",
        "Open 9 a.m.",
        "We close at 5 p.m. Tuesday to Friday.",
    ]
    assert split_sentences("Prices are approx. 10% lower online. Thanks!") == [
        "Prices are approx. 10% lower online.",
        "Thanks!",
    ]


def test_question_keeps_its_answer_but_not_the_next_question() -> None:
    assert split_sentences(
        "Do you deliver? Yes, within 5 miles. Is it free? No. Any nuts? Can I pay by card?"
    ) == [
        "Do you deliver? Yes, within 5 miles.",
        "Is it free? No.",
        "Any nuts?",
        "Can I pay by card?",
    ]


def test_short_unpunctuated_lines_are_separate_parts() -> None:
    assert texts("Monday to Friday\nSaturday 9am-1pm\nClosed Sunday") == [
        ("", "Monday to Friday"),
        ("", "Saturday 9am-1pm"),
        ("", "Closed Sunday"),
    ]
    # a wrapped sentence joins up again
    assert texts("We deliver to all of Brooklyn and\nQueens on weekdays.") == [
        ("", "We deliver to all of Brooklyn and Queens on weekdays.")
    ]


def test_a_long_line_in_a_list_is_an_item_but_wrapped_prose_joins_up() -> None:
    menu = (
        "Tyre fitting: $15\n"
        "Wheel alignment Mon to Fri before noon: $69 per car, 45 minutes, free recheck within 30 days\n"
        "Puncture repair from $25 (most tyres)\n"
        "Open Mon-Sat 8am-5pm"
    )
    assert [t for _, t in texts(menu)][1:3] == [
        "Wheel alignment Mon to Fri before noon: $69 per car, 45 minutes, free recheck within 30 days",
        "Puncture repair from $25 (most tyres)",
    ]
    prose = (
        "Our groomers have looked after the dogs of this town for twenty years and every one of\n"
        "Them is trained in handling nervous dogs, which is why so many owners come back to us\n"
        "Again and again for baths, trims and nail clipping throughout the year."
    )
    assert len(texts(prose)) == 1


def test_empty_and_long_input() -> None:
    assert split_parts("") == [] and split_parts("  \n\t ") == []
    long_parts = split_parts("word, " * 300)
    assert len(long_parts) > 1 and all(len(p.text) <= MAX_PART_CHARS for p in long_parts)
    blob = split_parts("x" * 1500)
    assert [len(p.text) for p in blob] == [600, 600, 300]


def test_hash_ignores_whitespace_only() -> None:
    assert normalise("  Open\n Monday\tto Friday ") == "Open Monday to Friday"
    assert part_hash("Open  Monday") == part_hash(" Open Monday\n")
    assert part_hash("Sourdough is $8.") != part_hash("Sourdough is $9.")
    parts = split_parts("Open Monday.\n\nOpen   Monday.")
    assert parts[0].hash == parts[1].hash == part_hash("Open Monday.")


def test_a_sentence_opening_with_its_price_goes_on_about_the_label_before_it() -> None:
    text = "Pottery taster nights: every Thursday in March. $55 with clay and two firings. Aprons provided."
    texts = [p.text for p in split_parts(text)]
    assert "Pottery taster nights: $55 with clay and two firings." in texts, texts
    assert "Aprons provided." in texts  # a sentence with a subject of its own is left as it is


def test_the_continued_sentence_is_priced_under_the_label() -> None:
    from datetime import date

    from apps.facts.extraction.base import ExtractionContext
    from apps.facts.extraction.builtin import BuiltinExtractor

    found = BuiltinExtractor().extract(
        "Kayak sunset tour: Fridays in July. $65, 2 hours, all gear included.",
        ExtractionContext(
            business_name="Inlet Paddle Co", source_kind="document", learned_on=date(2026, 5, 1)
        ),
    )
    assert ("Kayak sunset tour", "$65") in {(c.topic, c.value) for c in found}, found


def test_a_sentence_pointing_back_at_a_date_is_dated_on_its_own() -> None:
    text = "Thanksgiving, Thursday November 26, 2026: open 7am-noon. No custom cake orders that day."
    texts = [p.text for p in split_parts(text)]
    assert "No custom cake orders on Thursday November 26, 2026." in texts, texts
    # without a date before it, nothing is invented
    assert [p.text for p in split_parts("Closed for stocktake. No deliveries that day.")][-1] == (
        "No deliveries that day."
    )


def test_a_table_of_group_sizes_after_a_description_is_about_the_caption_that_opened_the_text() -> None:
    """The rows name no item ("6-10 guests"), so the table is about the caption above the description,
    not about a column ("Weekend"), which had become the topic of every row."""
    text = (
        "Corporate Away Days\n"
        "A full day on the water with two instructors, lunch included.\n"
        "\n"
        "| Group size | Weekday | Weekend |\n"
        "|---|---|---|\n"
        "| 6-10 guests | £70 | £80 |\n"
        "| 11-20 guests | £60 | £70 |\n"
    )
    rows = [p.row for p in split_parts(text) if p.row is not None]
    assert len(rows) == 4
    assert {r.item for r in rows} == {"Corporate Away Days"}, rows
    assert {r.variant for r in rows} == {
        "6-10 guests, Weekday",
        "6-10 guests, Weekend",
        "11-20 guests, Weekday",
        "11-20 guests, Weekend",
    }


def test_a_verbless_line_of_days_and_times_goes_on_about_the_label_before_it() -> None:
    texts = [p.text for p in split_parts("Pool: Mon-Fri 7am-9pm. Saturday 8am-6pm only.\nLockers are free.")]
    assert texts == ["Pool: Mon-Fri 7am-9pm.", "Pool: Saturday 8am-6pm only.", "Lockers are free."]
    # A sentence with a verb of its own says who it is about.
    assert [p.text for p in split_parts("Pool: Mon-Fri 7am-9pm. Sunday we open the gym only.")][-1] == (
        "Sunday we open the gym only."
    )


def test_a_sentence_saying_only_when_the_one_before_holds_dates_it() -> None:
    """'Stay 3 nights and pay for 2! Valid for stays from 4 January to 31 March 2027.' had kept the
    offer live for ever beside a fact that said only 'valid for stays ...'."""
    texts = [
        p.text for p in split_parts("Kids eat free on Sundays. Available until 30 June 2027. Book ahead.")
    ]
    assert texts == ["Kids eat free on Sundays (available until 30 June 2027).", "Book ahead."]
    # A closure is a statement of its own, not the window of the sentence before it.
    assert [p.text for p in split_parts("We're open daily. Closed from 17 to 23 May.")] == [
        "We're open daily.",
        "Closed from 17 to 23 May.",
    ]


def test_an_offers_end_dates_the_paragraphs_terms_of_the_offer() -> None:
    """'Rent a unit and pay just $1 for your first month! New rentals only. Offer ends August 31,
    2027.' had stored the $1 as a permanent price beside a fact saying only when the offer ends."""
    texts = [
        p.text
        for p in split_parts(
            "Pay just $1 for your first month! New rentals only. Offer ends August 31, 2027. "
            "Standard rates apply from the second month."
        )
    ]
    assert texts == [
        "Pay just $1 for your first month (offer ends August 31, 2027).",
        "New rentals only.",
        "Standard rates apply from the second month.",
    ]
    # A term after the end, and a deal read as a verb by the tagger.
    assert [p.text for p in split_parts("Deal valid until 30 November. Half-price cocktails, $6 each.")] == [
        "Half-price cocktails, $6 each (deal valid until 30 November)."
    ]
    # What gives nothing keeps no end; a closure is no offer's end; two ends leave both alone.
    assert [p.text for p in split_parts("Gift cards never expire. Our sale ends 12 October, 20% off.")] == [
        "Gift cards never expire.",
        "Our sale ends 12 October, 20% off.",
    ]
    assert [p.text for p in split_parts("Coffee $3 all day. Closed December 25.")] == [
        "Coffee $3 all day.",
        "Closed December 25.",
    ]
    two = "Free delivery this week. Offer ends Friday 9 October. Sale ends 31 October. Shoes $20."
    assert len(split_parts(two)) == 4


def test_a_price_statement_keeps_the_words_of_its_window() -> None:
    ctx = ExtractionContext(
        business_name="Harbour Storage", source_kind="website", learned_on=date(2027, 7, 5)
    )
    [cand] = BuiltinExtractor().extract("Pay just $1 for your first month (offer ends August 31, 2027).", ctx)
    assert cand.valid_to == date(2027, 8, 31)
    assert "(offer ends August 31, 2027)" in cand.statement, cand.statement


def test_a_flyer_list_with_symbol_markers_gives_one_part_per_item() -> None:
    """Owners paste lists from flyers and emails with stars, ticks and arrows for bullets: each line is
    an item, though each ends with a full stop and the next starts with a symbol, not a capital."""
    flyer = (
        "WHAT'S ON THIS SPRING\n\n"
        "\u2605 Seed swap - Sunday 14 March, 10am-1pm. Bring your spare seeds.\n"
        "\u2605 Raised beds 20% off until 31 March.\n"
        "\u2714\ufe0f Café closed for refurbishment 1-5 April.\n"
    )
    assert [text for _heading, text in texts(flyer)] == [
        "WHAT'S ON THIS SPRING",
        "Seed swap - Sunday 14 March, 10am-1pm. Bring your spare seeds.",
        "Raised beds 20% off until 31 March.",
        "Café closed for refurbishment 1-5 April.",
    ]


def test_long_lines_that_end_in_a_price_are_items_not_wrapped_prose() -> None:
    """Wrapped prose breaks between words; a line that ends in an amount or a bracket closes an item,
    however long it is, when the next one starts a new one."""
    price_list = (
        "End of lease clean for a 2 bedroom unit, includes oven, windows and walls: $320\n"
        "End of lease clean for a 3 bedroom house, includes oven, windows and walls: $450\n"
        "Carpet steam cleaning for any room up to 20 square metres (furniture moved by you)\n"
        "Window tracks and sliding doors are included in every end of lease clean we do."
    )
    assert [text for _heading, text in texts(price_list)] == [
        "End of lease clean for a 2 bedroom unit, includes oven, windows and walls: $320",
        "End of lease clean for a 3 bedroom house, includes oven, windows and walls: $450",
        "Carpet steam cleaning for any room up to 20 square metres (furniture moved by you)",
        "Window tracks and sliding doors are included in every end of lease clean we do.",
    ]


def test_long_lines_that_end_in_a_time_are_items_too() -> None:
    """Seasonal opening hours, one season a line: each line is its own part, so each season keeps its
    own dates (joined, the summer hours took both seasons' dates and the winter hours were lost)."""
    hours = (
        "Summer (1 April \u2013 30 September): Mon\u2013Fri 7am\u201310pm \u00b7 Sat & Sun 7am\u20139pm\n"
        "Winter (1 October \u2013 31 March): Mon\u2013Fri 9am\u20139pm \u00b7 Sat & Sun 8am\u20136pm\n"
        "Bays are floodlit after dark all year round."
    )
    assert [text[:6] for _heading, text in texts(hours)] == ["Summer", "Winter", "Bays a"]


def test_a_date_before_a_colon_is_a_label_not_a_time() -> None:
    """ "Fri Nov 28: 8am - 2pm": the day number before the colon is a date's, so the line has its own
    label and does not go on about the line before it (it had become "Thu Nov 27 (Thanksgiving): Fri
    Nov 28: 8am - 2pm", and Thanksgiving read as open)."""
    holiday_hours = "HOLIDAY HOURS 2025\nThu Nov 27 (Thanksgiving): CLOSED\nFri Nov 28: 8am \u2013 2pm"
    assert texts(holiday_hours) == [
        ("Holiday hours 2025", "Thu Nov 27 (Thanksgiving): CLOSED"),
        ("Holiday hours 2025", "Fri Nov 28: 8am \u2013 2pm"),
    ]


def test_a_line_in_capitals_over_text_is_its_heading() -> None:
    """A page without markup writes its headings in capitals: "DELIVERY INFO" names the text under it
    (it was stored as a fact of its own, "About ...: DELIVERY INFO."). A shouted statement is no
    heading ("NO DOGS ALLOWED", "WE'RE MOVING!"), nor a line with a number other than a year."""
    page = (
        "DELIVERY INFO\n\nWe deliver within 5 miles.\n\n"
        "NO DOGS ALLOWED\nGuide dogs welcome.\n\n"
        "OPEN 7 DAYS\n\n"
        "\u2764\ufe0f VALENTINE'S WEEK 2026 \u2764\ufe0f\nRoses are our speciality."
    )
    assert texts(page) == [
        ("Delivery info", "We deliver within 5 miles."),
        ("Delivery info", "NO DOGS ALLOWED"),
        ("Delivery info", "Guide dogs welcome."),
        ("Delivery info", "OPEN 7 DAYS"),
        ("Valentine's week 2026", "Roses are our speciality."),
    ]


def test_a_heading_in_capitals_may_give_dates_but_not_say_what_happens_on_them() -> None:
    """A date in a capitals heading names the section ("PRICE LIST (EFFECTIVE 1 APRIL 2026)"); a line
    whose dates come with what happens then says something ("CLOSED 24-26 DECEMBER") and stays a
    statement: the parse of its words, in lower case, has no noun at its root."""
    page = "PRICE LIST (EFFECTIVE 1 APRIL 2026)\nSourdough loaf $6\n\nCLOSED 24-26 DECEMBER\nSee you soon."
    assert [heading for heading, _text in texts(page)] == ["Price list (effective 1 april 2026)"] * 3
    assert texts(page)[1][1].startswith("CLOSED 24-26 DECEMBER")


def test_a_heading_that_gives_a_range_of_dates_dates_its_section() -> None:
    """ "## Christmas week (21-27 December)" over "We close at 2pm every day.": the hours hold in that
    week only (they had replaced the usual hours for good). An open range dates the section from its
    start ("effective 1 April 2026"); one day in a heading dates nothing ("News - 3 March 2026" is when
    a post was written, not how long its text holds)."""
    page = (
        "## Christmas week (21-27 December)\n\nWe close at 2pm every day.\n\n"
        "PRICE LIST (EFFECTIVE 1 APRIL 2027)\nSourdough loaf $6\n\n"
        "## News - 3 March 2026\n\nWe now stock oat milk."
    )
    ctx = ExtractionContext(
        business_name="Rosa's Bakery", source_kind="website", learned_on=date(2026, 12, 6)
    )
    found = {}
    for part in split_parts(page):
        context = ctx.model_copy(update={"heading": part.heading, "row": part.row})
        for cand in BuiltinExtractor().extract(part.text, context):
            found[cand.statement] = (cand.valid_from, cand.valid_to)
    assert [k for k, v in found.items() if "2pm" in k and v == (date(2026, 12, 21), date(2026, 12, 27))], (
        found
    )
    assert [k for k, v in found.items() if "$6 (from 1 April 2027)" in k and v == (date(2027, 4, 1), None)], (
        found
    )
    assert [k for k, v in found.items() if "oat milk" in k and v == (None, None)], found


def test_a_timetables_day_heading_sits_under_the_timetable() -> None:
    schedule = "CLASS SCHEDULE (main studio)\n\nMONDAY\n6:30 AM Sunrise Flow\n\nSAT & SUN\n9:00 AM Slow Flow"
    assert texts(schedule) == [
        ("Class schedule (main studio) > Monday", "6:30 AM Sunrise Flow"),
        ("Class schedule (main studio) > Sat & sun", "9:00 AM Slow Flow"),
    ]


def test_a_section_whose_heading_is_followed_by_its_dates_holds_only_then() -> None:
    """ "VALENTINE'S WEEK 2026" / "Monday February 9 - Saturday February 14, 2026" / prices and hours:
    each part of the section holds in those dates (the Valentine's rose price had replaced the usual
    one for good). A part with a date of its own keeps it; the next section is not dated."""
    page = (
        "VALENTINE'S WEEK 2026\n"
        "Monday February 9 \u2013 Saturday February 14, 2026\n"
        "Extended store hours: 8am \u2013 8pm every day that week.\n"
        "Valentine's pricing: Dozen red roses $120 \u00b7 Half dozen $68.\n"
        "Pre-order by February 10, 2026.\n\n"
        "PLANTS\n"
        "Orchids from $48."
    )
    ctx = ExtractionContext(business_name="Petal & Stem", source_kind="website", learned_on=date(2026, 1, 5))
    found = {}
    for part in split_parts(page):
        context = ctx.model_copy(update={"heading": part.heading, "row": part.row})
        for cand in BuiltinExtractor().extract(part.text, context):
            found[cand.statement] = (cand.valid_from, cand.valid_to)
    window = (date(2026, 2, 9), date(2026, 2, 14))
    assert [k for k, v in found.items() if v == window and "$120" in k], found
    assert [k for k, v in found.items() if v == window and "8am" in k], found
    assert [k for k, v in found.items() if "Pre-order" in k and v != window], found
    assert [k for k, v in found.items() if "$48" in k and v == (None, None)], found


def test_a_row_named_by_modifiers_only_takes_the_thing_its_column_header_names() -> None:
    """ "Large" under the header "Bucket" is a large bucket, and "150" under "Balls" is 150 balls; a
    label naming a thing of its own ("Full set") and a header naming no thing ("Item") change nothing."""
    text = (
        "| Bucket | Balls | Price |\n|---|---|---|\n| Small | 50 | £4.50 |\n| Large | 150 | £10.00 |\n\n"
        "| Item | Price |\n|---|---|\n| Single club | £1.00 |\n| Full set | £7.00 |\n"
    )
    assert [p.text for p in split_parts(text)] == [
        "Small bucket: £4.50 (50 balls)",
        "Large bucket: £10.00 (150 balls)",
        "Single club: £1.00",
        "Full set: £7.00",
    ]


def test_a_heading_in_capitals_keeps_a_note_that_says_something_and_a_season_of_two_years() -> None:
    text = (
        "TYRE PRICES (each, fully fitted - includes balancing & new valve)\n\n"
        "| Tyre size | Budget |\n|---|---|\n| 205/55 R16 | £62 |\n\n"
        "HOLIDAY HOURS 2027/28\n\nChristmas Day: closed.\n"
    )
    found = texts(text)
    assert (
        "Tyre prices (each, fully fitted - includes balancing & new valve)",
        "Tyre, 205/55 R16, Budget: £62",
    ) in found
    assert ("Holiday hours 2027/28", "Christmas Day: closed.") in found


def test_a_list_under_a_label_naming_days_is_priced_for_those_days() -> None:
    rows = [
        p.row
        for p in split_parts(
            "Weekend parties (Sat & Sun):\nMini Bee ........ £220\nMega Hive ........ £415\n"
        )
    ]
    assert [(r.item, r.variant) for r in rows if r] == [("Mini Bee", "Sat & Sun"), ("Mega Hive", "Sat & Sun")]


def test_a_sentence_after_a_rows_dash_is_its_own_part_and_does_not_date_the_price() -> None:
    found = texts(
        "One-time enrollment fee: $49 \u2013 NEW YEAR SPECIAL: enrollment fee waived for anyone who joins by"
        " April 30, 2027!\n"
    )
    assert [text for _heading, text in found] == [
        "One-time enrollment fee: $49",
        "NEW YEAR SPECIAL: enrollment fee waived for anyone who joins by April 30, 2027!",
    ]
    assert texts("Rye loaf ...... $7 (sliced on request)\n") == [("", "Rye loaf: $7 (sliced on request)")]


def test_a_condition_after_a_rows_dash_stays_its_note() -> None:
    assert texts("Diagnostic fee: $45 \u2013 waived if you go ahead with the repair\n") == [
        ("", "Diagnostic fee: $45 (\u2013 waived if you go ahead with the repair)")
    ]
