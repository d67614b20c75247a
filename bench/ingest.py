"""ingest: from website text to live, indexed facts, and the cost of re-reading a site that did not change.

1. Sentences (bench/data.py: twelve kinds of small business) go through the real path: each page is a
   website source event (``source_ingest`` with the built-in extractor: split, hash, extract, the rules),
   a whole business in one batch as a crawl job does, then the changed topics are re-indexed
   (embedded). One fresh business per kind; the rate is measured per business.
2. A 200-page site served by a local ``http.server`` is crawled by the real job (``website_crawl_start``),
   then re-synced unchanged several times: every page is fetched and hashed, nothing is extracted or
   embedded. The per-page cost of that no-op is what a nightly re-sync of every business costs.
"""

from __future__ import annotations

import random
import time
from datetime import date
from typing import Any

from apps.facts.sources.local_site import serve_pages
from bench.common import Context, all_threads, set_threads
from bench.data import BUSINESSES, BusinessText
from bench.report import Section, stat

SITE_PAGES_FULL = 200
SITE_PAGES_QUICK = 50
RESYNCS_FULL = 3
RESYNCS_QUICK = 2

# ---------------------------------------------------------------------------------------------
# A local website


_PRODUCTS = (
    "sourdough loaf", "rye loaf", "seeded batch", "spelt loaf", "baguette", "focaccia", "brioche",
    "croissant", "pain au chocolat", "cinnamon bun", "cardamom knot", "almond tart", "lemon drizzle",
    "carrot cake", "chocolate torte", "fruit scone", "cheese scone", "sausage roll", "quiche",
    "olive bread", "pretzel", "bagel", "muffin", "flapjack", "brownie",
)  # fmt: skip
_VARIANTS = ("classic", "wholemeal", "large", "small", "gluten-free", "organic", "family", "mini")
_DAYS = ("every day", "on weekdays", "on Saturdays only", "from Tuesday to Saturday", "on Fridays")


ROBOTS = "User-agent: *\nAllow: /\n"


def site_pages(count: int) -> dict[str, str]:
    """A bakery's product catalogue: a home page linking to ``count - 1`` product pages."""
    rng = random.Random(11)
    names = [f"{v} {p}" for p in _PRODUCTS for v in _VARIANTS][: count - 1]
    pages: dict[str, str] = {}
    links = []
    for i, name in enumerate(names):
        path = f"/products/{i:03d}-{name.replace(' ', '-')}"
        links.append(f'<li><a href="{path}">{name.title()}</a></li>')
        price = rng.choice([2.5, 3.2, 4, 6.5, 8, 8.5, 12, 18, 24])
        notice = rng.choice([1, 2, 3, 7])
        sentences = [
            f"The {name} costs ${price:.2f}.",
            f"The {name} is baked {rng.choice(_DAYS)}.",
            f"Orders of more than ten need {notice} days notice.",
            f"The {name} keeps for {rng.choice([2, 3, 5])} days in a bread bin.",
        ]
        pages[path] = _html(name.title(), sentences)
    home = _html(
        "Sunny Bakery",
        ["Sunny Bakery is open Monday to Friday from 7 AM to 3 PM.", "Call us on 555-0142."],
        extra="<ul>" + "".join(links) + "</ul>",
    )
    return {"/": home, **pages}


def _html(title: str, sentences: list[str], extra: str = "") -> str:
    body = "".join(f"<p>{s}</p>" for s in sentences)
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{title}</title></head><body>'
        '<header><nav><a href="/">Home</a></nav></header>'
        f"<main><h1>{title}</h1>{body}{extra}</main>"
        "<footer><p>Sunny Bakery, 12 Mill Lane, Millbrook.</p></footer></body></html>"
    )


# ---------------------------------------------------------------------------------------------


def _sentences_to_facts(ctx: Context, business_text: BusinessText) -> dict[str, Any]:
    from apps.facts.extraction.base import ExtractionContext
    from apps.facts.extraction.builtin import BuiltinExtractor
    from apps.facts.models import Fact, FactStatus, SourceKind
    from apps.facts.services import source_ingest
    from apps.facts.signals import topics_batched
    from apps.retrieval.models import Piece

    extractor = BuiltinExtractor()
    with ctx.business(business_text.name):
        # The extractor alone, sentence by sentence (what a page costs before the rules and the index).
        context = ExtractionContext(
            business_name=business_text.name,
            source_kind="website",
            learned_on=date.today(),
            question=None,
            heading="",
            existing_topics=[],
            live_facts=[],
        )
        extract_ms = []
        for sentence in business_text.sentences:
            t0 = time.perf_counter()
            extractor.extract(sentence, context)
            extract_ms.append((time.perf_counter() - t0) * 1000)
        page_ms = []
        started = time.perf_counter()
        with topics_batched():
            for path, sentences in business_text.pages.items():
                t0 = time.perf_counter()
                source_ingest(
                    kind=SourceKind.WEBSITE,
                    ref=f"https://{business_text.kind.replace(' ', '-')}.example{path}",
                    content=" ".join(sentences),
                    title=path,
                    extractor=extractor,
                )
                page_ms.append((time.perf_counter() - t0) * 1000)
            t_index = time.perf_counter()
        index_ms = (time.perf_counter() - t_index) * 1000  # the batch's re-index runs on exit
        total_s = time.perf_counter() - started
        facts = Fact.objects.filter(status=FactStatus.LIVE).count()
        pieces = Piece.objects.count()
    return {
        "kind": business_text.kind,
        "sentences": len(business_text.sentences),
        "facts": facts,
        "pieces": pieces,
        "total_s": total_s,
        "index_ms": index_ms,
        "page_ms": page_ms,
        "extract_ms": extract_ms,
    }


def _site(ctx: Context, pages: int, resyncs: int) -> dict[str, Any]:
    from apps.facts.extraction.builtin import BuiltinExtractor
    from apps.facts.ingestion import website_crawl_start
    from apps.facts.models import Fact, FactStatus, JobKind, SourceVersion
    from apps.retrieval.models import Piece

    extractor = BuiltinExtractor()
    out: dict[str, Any] = {"pages": pages}
    with (
        ctx.business("Bench website") as _business,
        serve_pages({**site_pages(pages), "/robots.txt": ROBOTS}) as base,
    ):
        stamps: list[float] = []

        def tick(job: object) -> None:
            stamps.append(time.perf_counter())

        t0 = time.perf_counter()
        job = website_crawl_start(
            start_url=base + "/", max_pages=pages + 10, max_depth=2, progress=tick, extractor=extractor
        )
        out["first_crawl_s"] = time.perf_counter() - t0
        out["first_crawl_status"] = job.status
        out["first_crawl_pages"] = dict(job.report.get("pages", {}))
        facts_before = Fact.objects.filter(status=FactStatus.LIVE).count()
        pieces_before = Piece.objects.count()
        out["facts"] = facts_before
        out["pieces"] = pieces_before
        resync_s: list[float] = []
        per_page_ms: list[float] = []
        outcomes: dict[str, int] = {}
        for _ in range(resyncs):
            stamps.clear()
            processed_before = SourceVersion.objects.filter(outcome="processed").count()
            t0 = time.perf_counter()
            job = website_crawl_start(
                start_url=base + "/",
                kind=JobKind.RESYNC,
                max_pages=pages + 10,
                max_depth=2,
                progress=tick,
                extractor=extractor,
            )
            elapsed = time.perf_counter() - t0
            resync_s.append(elapsed)
            per_page_ms.extend((b - a) * 1000 for a, b in zip([t0, *stamps], stamps, strict=False))
            for key, n in job.report.get("pages", {}).items():
                outcomes[key] = outcomes.get(key, 0) + n
            out.setdefault("resync_status", []).append(job.status)
            out.setdefault("re_extracted_versions", []).append(
                SourceVersion.objects.filter(outcome="processed").count() - processed_before
            )
        out["resync_s"] = resync_s
        out["resync_page_ms"] = per_page_ms
        out["resync_outcomes"] = outcomes
        out["facts_after"] = Fact.objects.filter(status=FactStatus.LIVE).count()
        out["pieces_after"] = Piece.objects.count()
    return out


def run(ctx: Context) -> Section:
    section = Section("ingest", "website text to live indexed facts; re-sync of an unchanged site")
    from apps.retrieval.embedding import preload

    threads = set_threads(all_threads())
    preload()  # a server has the model loaded; its first load is measured by `embed`
    kinds = BUSINESSES[:3] if ctx.quick else BUSINESSES
    runs = []
    for business_text in kinds:
        ctx.log(f"  {business_text.kind}: {len(business_text.sentences)} sentences")
        runs.append(_sentences_to_facts(ctx, business_text))
    table = section.table(
        f"Sentences to live, indexed facts (built-in extractor, {threads} torch threads for the re-index)",
        ["business", "sentences", "facts", "pieces", "total ms", "re-index ms", "sentences/s", "facts/s"],
    )
    for r in runs:
        table.add(
            r["kind"],
            r["sentences"],
            r["facts"],
            r["pieces"],
            round(r["total_s"] * 1000),
            round(r["index_ms"]),
            round(r["sentences"] / r["total_s"], 1),
            round(r["facts"] / r["total_s"], 1),
        )
    rates = section.table(
        f"Per business and per step ({len(runs)} businesses, median / p95)",
        ["measure", "median / p95", "n"],
    )
    for label, values in (
        (
            "sentences per second (whole business, with the re-index)",
            [r["sentences"] / r["total_s"] for r in runs],
        ),
        ("facts per second (whole business, with the re-index)", [r["facts"] / r["total_s"] for r in runs]),
        ("ms per page: parts, extraction, rules, history", [ms for r in runs for ms in r["page_ms"]]),
        ("ms per sentence: built-in extractor alone", [ms for r in runs for ms in r["extract_ms"]]),
        ("ms per business: re-index of the touched topics (embedding)", [r["index_ms"] for r in runs]),
    ):
        s = stat(values)
        rates.add(label, s if s.median >= 1 else f"{s.median:.3f} / {s.p95:.3f}", s.n)

    pages = SITE_PAGES_QUICK if ctx.quick else SITE_PAGES_FULL
    resyncs = RESYNCS_QUICK if ctx.quick else RESYNCS_FULL
    ctx.log(f"  website: {pages} pages, first crawl then {resyncs} unchanged re-syncs")
    site = _site(ctx, pages, resyncs)
    crawl = section.table(
        f"A {pages}-page website through the real crawl job (local http.server, 2 fetches at a time)",
        ["run", "seconds", "ms per page (median / p95)", "pages", "what happened"],
    )
    crawl.add(
        "first crawl (extract + index)",
        round(site["first_crawl_s"], 1),
        f"{site['first_crawl_s'] * 1000 / pages:.0f} (mean)",
        pages,
        f"{site['first_crawl_pages']}; {site['facts']} facts, {site['pieces']} pieces",
    )
    s_resync = stat(site["resync_s"])
    crawl.add(
        f"unchanged re-sync (x{resyncs})",
        s_resync.cell(2),
        stat(site["resync_page_ms"]),
        pages,
        f"{site['resync_outcomes']}; versions re-extracted {site['re_extracted_versions']}; facts "
        f"{site['facts']} -> {site['facts_after']}, pieces {site['pieces']} -> {site['pieces_after']}",
    )
    crawl.notes.append(
        "Per-page time of a re-sync is the gap between two pages' commits: fetch, hash, a 'seen' version "
        "row, the job's progress. No extraction, no embedding."
    )
    section.data = {"sentences": runs, "site": site}
    return section
