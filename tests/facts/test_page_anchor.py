"""A page anchor is not a page: "/#site-footer", "/#top" or "/menu#breads" lead to pages already read.

Crawled through the real ingestion job from a local HTTP server. The start page's footer (address,
hours) is read with the start page itself; a crawl from before this stored it as a separate
"<site>/#site-footer" page, which the next crawl retires without losing what it said.
"""

from __future__ import annotations

from apps.facts.models import Evidence, FactStatus, Source, SourceKind
from apps.facts.services import source_ingest
from tests.facts.sitefixture import Route, Site, serve
from tests.facts.test_ingestion import EXTRACTOR, announced, crawl, html, live  # noqa: F401 (fixture)

FOOTER = "Bakery address is 12 Mill Lane."


def _build(site: Site) -> None:
    site.routes["/robots.txt"] = Route("User-agent: *\nAllow: /\n", content_type="text/plain")
    site.routes["/"] = Route(
        html(
            "Home",
            "Bakery hours are 7am to 3pm.",
            links=("/#site-footer", "/#top", "#contact", "/menu#breads", "/menu"),
        )
    )
    site.routes["/menu"] = Route(html("Menu", "Sourdough price is $8.", links=("/menu#top", "/#site-footer")))


def test_anchors_are_not_pages_and_the_footer_belongs_to_the_start_page(business):
    with serve(_build) as site:
        # What an older crawl left: the footer stored as a page of its own.
        old = f"{site.url('/')}#site-footer"
        source_ingest(
            kind=SourceKind.WEBSITE, ref=old, title="Site footer", content=FOOTER, extractor=EXTRACTOR
        )
        job = crawl(site)
        hits = site.paths_hit()

    active = set(Source.objects.filter(kind=SourceKind.WEBSITE, is_active=True).values_list("ref", flat=True))
    assert active == {site.url("/"), site.url("/menu")}
    assert job.report["pages"].get("new") == 2, job.report["pages"]  # two pages, not three
    assert "2 pages" in job.report.get("summary", "2 pages") and hits.count("/") == 1
    assert "#" not in "".join(item["ref"] for item in job.report["items"] if item["outcome"] != "retired")
    # The old anchor "page" is retired, and what it said lives on, read from the start page.
    assert not Source.objects.get(ref=old).is_active
    assert FOOTER in live()
    evidence = Evidence.objects.filter(
        fact__statement=FOOTER, fact__status=FactStatus.LIVE, withdrawn_at__isnull=True
    ).values_list("source__ref", flat=True)
    assert list(evidence) == [site.url("/")]
