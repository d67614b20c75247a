"""Tests of apps.retrieval.chunking."""

from __future__ import annotations

import itertools
import random
import re

import pytest

from apps.retrieval.chunking import Piece, chunk_document, embedding_text

_WORD_TEXT = (
    "the quick brown fox jumps over lazy dogs while bakers knead sourdough loaves at dawn in our "
    "little shop and customers queue outside for croissants"
)
WORDS = _WORD_TEXT.split()


def sentence(rng: random.Random, low: int = 5, high: int = 30) -> str:
    words = [rng.choice(WORDS) for _ in range(rng.randint(low, high))]
    return " ".join(words).capitalize() + rng.choice([".", "!", "?"])


def paragraph(rng: random.Random, sentences: int) -> str:
    return " ".join(sentence(rng) for _ in range(sentences))


def tokens(text: str) -> list[str]:
    return re.findall(r"\S+", text)


def long_document(seed: int = 7) -> tuple[str, list[str]]:
    rng = random.Random(seed)
    paragraphs = [paragraph(rng, rng.randint(1, 4)) for _ in range(12)]
    paragraphs.insert(5, paragraph(rng, 40))  # one paragraph much longer than a piece
    parts = ["# Sunny Bakery", paragraphs[0], "## Opening hours", "- Monday to Friday: 7 AM to 3 PM"]
    parts += ["- Saturday and Sunday: closed", "## About us", *paragraphs[1:8], "## Prices", *paragraphs[8:]]
    return "\n\n".join(parts), paragraphs


def test_short_document_is_one_piece() -> None:
    text = "Sourdough is $8.50 a loaf.\n\nWe deliver within 10 miles."
    pieces = chunk_document("Prices", text)
    assert pieces == [Piece(title="Prices", text=text, position=0)]


def test_empty_document_has_no_pieces() -> None:
    assert chunk_document("Empty", "") == []
    assert chunk_document("Empty", "  \n\n \t\n") == []


def test_long_document_respects_size_order_and_words() -> None:
    text, paragraphs = long_document()
    pieces = chunk_document("Sunny Bakery", text, size=900, overlap=150)
    assert len(pieces) > 3
    assert [p.position for p in pieces] == list(range(len(pieces)))
    assert all(p.text.strip() == p.text and p.text for p in pieces)
    assert all(len(p.text) <= 900 for p in pieces)
    assert all(p.title == "Sunny Bakery" for p in pieces)

    # Never split mid-word: every token of a piece is a token of the document.
    doc_tokens = set(tokens(text)) | {">", "Sunny", "Bakery", "Opening", "hours", "About", "us", "Prices"}
    for piece in pieces:
        assert set(tokens(piece.text)) <= doc_tokens

    # Paragraphs that fit are never cut, and appear in document order.
    joined = "\n".join(p.text for p in pieces)
    last = -1
    for para in paragraphs:
        if len(para) <= 600:
            assert any(para in p.text for p in pieces), para[:60]
            where = joined.find(para)
            assert where > last
            last = where


def test_long_paragraph_is_cut_at_sentences_with_overlap() -> None:
    rng = random.Random(11)
    text = paragraph(rng, 60)
    pieces = chunk_document("About us", text, size=900, overlap=150)
    assert len(pieces) >= 3
    assert all(len(p.text) <= 900 for p in pieces)
    for before, after in itertools.pairwise(pieces):
        # The next piece starts with text carried over from the end of the previous one ...
        head = after.text[:40]
        assert head in before.text[-250:], (before.text[-250:], head)
        # ... and the cut is at a sentence boundary.
        assert before.text[-1] in ".!?"
    # Every sentence of the paragraph survives somewhere.
    for piece_sentence in re.split(r"(?<=[.!?])\s+", text):
        assert any(piece_sentence in p.text for p in pieces)


def test_overlap_zero_means_no_repetition() -> None:
    rng = random.Random(5)
    text = paragraph(rng, 50)
    pieces = chunk_document("T", text, size=500, overlap=0)
    assert " ".join(p.text for p in pieces) == text


def test_headings_stay_with_their_content() -> None:
    rng = random.Random(3)
    sections = []
    for n in range(8):
        sections.append(f"## Section {n}")
        sections.append(paragraph(rng, 3))
    pieces = chunk_document("Doc", "\n\n".join(sections), size=400, overlap=80)
    for piece in pieces:
        assert not piece.text.splitlines()[-1].startswith("#"), piece.text
    # A piece that begins inside a section names the section first.
    for piece in pieces:
        first = piece.text.splitlines()[0]
        assert first.startswith("## Section") or first.startswith("Section "), first


def test_list_items_kept_whole() -> None:
    items = [f"- Item {i}: a small loaf of rye bread with seeds, baked daily, for ${i}.00" for i in range(40)]
    text = "## Prices\n" + "\n".join(items)
    pieces = chunk_document("Prices", text, size=300, overlap=50)
    assert all(len(p.text) <= 300 for p in pieces)
    for item in items:
        assert sum(item in p.text for p in pieces) >= 1


def test_single_sentence_longer_than_size_is_cut_between_words() -> None:
    text = " ".join(["sourdough"] * 200) + "."
    pieces = chunk_document("T", text, size=300, overlap=50)
    assert len(pieces) > 1
    assert all(len(p.text) <= 300 for p in pieces)
    assert all(set(tokens(p.text)) <= {"sourdough", "sourdough."} for p in pieces)


def test_a_word_longer_than_size_is_not_cut() -> None:
    url = "https://example.com/" + "a" * 400
    pieces = chunk_document("T", f"See {url} for details.", size=200, overlap=50)
    assert any(url in p.text for p in pieces)


def test_deterministic() -> None:
    text, _ = long_document(seed=21)
    assert chunk_document("A", text) == chunk_document("A", text)


def test_windows_newlines() -> None:
    assert chunk_document("T", "One.\r\n\r\nTwo.")[0].text == "One.\n\nTwo."


def test_invalid_size() -> None:
    with pytest.raises(ValueError):
        chunk_document("T", "text", size=0)


def test_embedding_text() -> None:
    piece = Piece(title="Delivery", text="We deliver within 10 miles.", position=0)
    assert embedding_text(piece) == "Delivery\nWe deliver within 10 miles."
    assert embedding_text(Piece(title="", text="x", position=0)) == "x"
