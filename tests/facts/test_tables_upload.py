"""Price tables reach the knowledge as one fact per row and column, through the real upload path
(document_upload: the file is stored, parsed in a child process, split, extracted, applied by the
rules) and through a crawled page's HTML. On the code before the table reader, the .docx table below
became "Deluxe wash | $30 | $45" parts and facts without their column."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from docx import Document

from apps.facts.extraction.builtin import BuiltinExtractor
from apps.facts.extraction.parts import split_parts
from apps.facts.ingestion import document_upload
from apps.facts.models import Fact, FactStatus, JobStatus
from apps.facts.sources.documents import parse_document
from apps.facts.sources.html_text import extract_main_text
from tests.facts.test_documents import make_pdf


@pytest.fixture
def media(settings, tmp_path: Path) -> Path:
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


def price_docx(suv_deluxe: str = "$45") -> bytes:
    document = Document()
    document.add_heading("Wash menu", level=1)
    document.add_paragraph("Prices include GST.")
    rows = [
        ("Service", "Car", "SUV"),
        ("Express wash", "$12", "$15"),
        ("Deluxe wash", "$30", suv_deluxe),
        ("Interior detail", "from $129", "from $149"),
    ]
    table = document.add_table(rows=len(rows), cols=3)
    for row, values in zip(table.rows, rows, strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def live_facts() -> dict[tuple[str, str], Fact]:
    facts = Fact.objects.filter(status=FactStatus.LIVE).select_related("topic")
    return {(f.topic.name, f.aspect): f for f in facts}


def test_an_uploaded_docx_price_table_gives_one_clean_fact_per_row_and_column(business, media):
    job = document_upload(filename="wash-menu.docx", data=price_docx(), extractor=BuiltinExtractor())
    assert job.status == JobStatus.DONE, job.error
    facts = live_facts()
    want = {
        ("Express wash", "price for car"): "$12",
        ("Express wash", "price for suv"): "$15",
        ("Deluxe wash", "price for car"): "$30",
        ("Deluxe wash", "price for suv"): "$45",
        ("Interior detail", "price for car"): "from $129",
        ("Interior detail", "price for suv"): "from $149",
    }
    for key, value in want.items():
        assert key in facts and facts[key].value == value, (key, sorted(facts))
    assert facts[("Deluxe wash", "price for suv")].statement == "Deluxe wash, SUV: $45."
    assert all("|" not in fact.statement for fact in facts.values())
    assert not any(topic in {"Service", "Car", "SUV"} for topic, _ in facts)  # the header states nothing

    # A new file with one cell changed retires that cell's fact only.
    changed = document_upload(
        filename="wash-menu.docx", data=price_docx(suv_deluxe="$48"), extractor=BuiltinExtractor()
    )
    assert changed.status == JobStatus.DONE, changed.error
    assert [r["statement"] for r in changed.report["retired"]] == ["Deluxe wash, SUV: $45."]
    facts = live_facts()
    assert facts[("Deluxe wash", "price for suv")].value == "$48"
    assert facts[("Deluxe wash", "price for car")].value == "$30"


PAGE = """<!doctype html><html><head><title>Bella Pizza</title></head><body>
<header><a href="/">Home</a> <a href="/menu">Menu</a></header>
<div class="topbar"><a href="/">Home</a> | <a href="/menu">Menu</a> | <a href="/book">Book</a> | <a href="/gift">Gift cards</a></div>
<div class="content">
  <h1>Menu</h1>
  <table><thead><tr><th>Pizza</th><th>Small</th><th>Large</th></tr></thead>
    <tbody><tr><td>Margherita</td><td>$12</td><td>$20</td></tr>
           <tr><td>Diavola</td><td>$14</td><td>$23</td></tr></tbody></table>
  <p>Garlic bread ...... $6</p>
</div>
<div class="legal">© 2026 Bella Pizza Pty Ltd · ABN 12 345 678 901 · Privacy</div>
<div id="notice">We use cookies to improve your experience. <button>Accept</button></div>
</body></html>"""


def test_a_crawled_html_table_keeps_its_header_and_drops_page_chrome() -> None:
    page = extract_main_text(PAGE, url="https://bella.example/menu")
    parts = split_parts(page.text)
    rows = {(p.row.item, p.row.variant, p.row.value) for p in parts if p.row is not None}
    assert rows == {
        # The first column's header names what each row is (issue 17, session 29).
        ("Margherita pizza", "Small", "$12"),
        ("Margherita pizza", "Large", "$20"),
        ("Diavola pizza", "Small", "$14"),
        ("Diavola pizza", "Large", "$23"),
        ("Garlic bread", "", "$6"),
    }
    texts = " ".join(p.text for p in parts)
    for chrome in ("ABN", "cookies", "Gift cards", "©"):
        assert chrome not in texts, texts


def table_pdf(rows: list[tuple[str, ...]], xs: tuple[int, ...] = (72, 260, 380)) -> bytes:
    """A one-page PDF with each cell placed at its column's x, as table tools write one."""
    cells = [(x, 700 - 16 * n, cell) for n, row in enumerate(rows) for x, cell in zip(xs, row, strict=False)]
    return make_pdf([[]], cells=[cells])


def test_a_pdf_table_keeps_its_columns() -> None:
    """pypdf's default reading gives "Deluxe wash $30 $45"; the parser keeps the columns apart."""
    data = table_pdf(
        [("Service", "Car", "SUV"), ("Express wash", "$12", "$15"), ("Deluxe wash", "$30", "$45")]
    )
    parts = split_parts(parse_document(data, "wash.pdf").text)
    rows = {(p.row.item, p.row.variant, p.row.value) for p in parts if p.row is not None}
    assert rows == {
        ("Express wash", "Car", "$12"),
        ("Express wash", "SUV", "$15"),
        ("Deluxe wash", "Car", "$30"),
        ("Deluxe wash", "SUV", "$45"),
    }


def test_the_language_model_extractor_takes_a_priced_cell_as_it_is() -> None:
    """No model call for a cell whose item, variant and amount are known (none is configured here)."""
    from datetime import date

    from apps.facts.extraction.base import ExtractionContext
    from apps.facts.extraction.llm import LLMExtractor

    part = next(p for p in split_parts("Service | Car | SUV\nDeluxe wash | $30 | $45") if p.row)
    context = ExtractionContext(
        business_name="Sudsy's", source_kind="website", learned_on=date(2026, 5, 1), row=part.row
    )
    [cand] = LLMExtractor().extract(part.text, context)
    assert (cand.topic, cand.aspect, cand.value) == ("Deluxe wash", "price for car", "$30")
