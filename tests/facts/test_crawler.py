"""Crawler tests against a local multi-page bakery site (127.0.0.1 only, never the network)."""

from __future__ import annotations

import itertools
import socket
import time

import pytest

from apps.facts.sources.crawler import (
    CrawlLimits,
    CrawlReport,
    PageResult,
    crawl_site,
    normalize_url,
    same_site,
)
from tests.facts.sitefixture import Route, Site, page, serve

FAST = CrawlLimits(timeout=0.5, max_bytes=100_000, concurrency=2, max_pages=50, max_depth=3)

HOME = """
    <section class="hero"><h1>Real bread, baked before dawn</h1>
      <p>Crumb &amp; Co is a family bakery in Bristol. Everything is baked on site every morning.</p>
    </section>
    <h2>This week</h2>
    <ul>
      <li><a href="/menu">See the full menu</a></li>
      <li><a href="/team">Meet the team</a></li>
      <li><a href="/broken">Order online</a></li>
      <li><a href="/slow">Gift cards</a></li>
      <li><a href="/loop-a">Loyalty card</a></li>
      <li><a href="/old-shop">Our old shop</a></li>
      <li><a href="/price-list">Wholesale price list</a></li>
      <li><a href="/gallery">Photo gallery</a></li>
      <li><a href="/fr">En fran&ccedil;ais</a></li>
      <li><a href="/private/staff">Staff area</a></li>
      <li><a href="/menu.pdf">Printable menu (PDF)</a></li>
      <li><a href="/static/logo.png">Logo</a></li>
      <li><a href="https://example.org/partner">Our flour mill partner</a></li>
      <li><a href="/about#story">Our story</a></li>
    </ul>
"""

MENU = """
    <h1>Menu</h1>
    <h2>Breads</h2>
    <table>
      <tr><th>Item</th><th>Price</th></tr>
      <tr><td>Sourdough loaf</td><td>&pound;4.50</td></tr>
      <tr><td>Rye &amp; caraway</td><td>&pound;5.00</td></tr>
    </table>
    <h2>Pastries</h2>
    <ul><li>Butter croissant</li><li>Cardamom bun</li></ul>
"""

ABOUT = """
    <article><h1>About us</h1>
      <p>Founded in 1998 by Ana and Tom, who still open the shop at 6am.</p>
      <p><a href="/about/history">Read our history</a></p>
    </article>
"""

CONTACT = """
    <h1>Contact</h1>
    <p>12 Mill Lane, Bristol BS1 4XX</p>
    <h2>Opening hours</h2>
    <p>Tuesday to Saturday, 7am to 3pm. Closed Sunday and Monday.</p>
    <p><a href="/index.html">Back home</a></p>
"""


def build_bakery(site: Site) -> None:
    base = site.base
    site.routes.update(
        {
            "/robots.txt": Route(
                f"User-agent: *\nDisallow: /private/\n\nSitemap: {base}/sitemap_index.xml\n",
                content_type="text/plain",
            ),
            "/sitemap_index.xml": Route(
                f"""<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>{base}/sitemap-pages.xml</loc></sitemap>
  <sitemap><loc>https://elsewhere.example/sitemap.xml</loc></sitemap>
</sitemapindex>""",
                content_type="application/xml",
            ),
            "/sitemap-pages.xml": Route(
                f"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <url><loc>{base}/</loc></url>
  <url><loc>{base}/menu</loc></url>
  <url><loc>{base}/catering</loc><lastmod>2024-05-01</lastmod></url>
  <url><loc>https://elsewhere.example/page</loc></url>
</urlset>""",
                content_type="application/xml",
            ),
            "/": Route(page("Home", HOME)),
            "/menu": Route(page("Menu", MENU)),
            "/about": Route(page("About", ABOUT)),
            "/about/history": Route(page("History", "<h1>History</h1><p>The first oven was wood-fired.</p>")),
            "/contact": Route(page("Contact", CONTACT)),
            "/catering": Route(page("Catering", "<h1>Catering</h1><p>Platters for 10 to 200 people.</p>")),
            "/private/staff": Route(page("Staff", "<h1>Rota</h1>")),
            "/broken": Route("<h1>Internal Server Error</h1>", status=500),
            "/slow": Route(page("Gift cards", "<h1>Gift cards</h1>"), delay=1.5),
            "/loop-a": Route(status=302, headers={"Location": "/loop-b"}),
            "/loop-b": Route(status=302, headers={"Location": f"{base}/loop-a"}),
            "/old-shop": Route(status=301, headers={"Location": f"http://localhost:{site.port}/shop"}),
            "/index.html": Route(status=301, headers={"Location": "/"}),
            "/price-list": Route(b"%PDF-1.4 not really", content_type="application/pdf"),
            "/gallery": Route(
                page("Gallery", "<h1>Gallery</h1>" + "<p>Photo of a loaf.</p>" * 20_000), send_length=False
            ),
            "/fr": Route(
                page("Fr", "<h1>Bienvenue</h1><p>Crème brûlée et pâtisserie fine.</p>")
                .replace('charset="utf-8"', 'charset="iso-8859-1"')
                .encode("latin-1"),
                content_type="text/html; charset=iso-8859-1",
            ),
        }
    )


def by_path(report: CrawlReport, site: Site) -> dict[str, PageResult]:
    return {result.url.removeprefix(site.base): result for result in report.pages}


def test_bakery_crawl_reports_every_page_and_survives_bad_ones() -> None:
    progress: list[tuple[str, int, int]] = []
    with serve(build_bakery) as site:
        started = time.monotonic()
        report = crawl_site(
            site.url("/"), FAST, on_page=lambda r, done, total: progress.append((r.url, done, total))
        )
        elapsed = time.monotonic() - started
        hits = site.paths_hit()
        agents = {hit.user_agent for hit in site.hits}

    assert report.ok, report.error
    assert elapsed < 5
    pages = by_path(report, site)

    ok = {path for path, result in pages.items() if result.status == "ok"}
    assert ok == {"/", "/menu", "/about", "/about/history", "/contact", "/catering", "/fr"}
    assert {p.url for p in report.fetched} == {site.base + path for path in ok}

    home = pages["/"]
    assert home.depth == 0 and home.http_status == 200
    assert home.title == "Home | Crumb & Co Bakery"
    assert home.text.startswith("# Real bread, baked before dawn")
    assert "We use cookies" not in home.text and "Accept all" not in home.text  # cookie banner
    assert "About us" not in home.text.split("## This week")[0]  # navigation dropped
    assert "12 Mill Lane" not in home.text  # footer dropped ...
    assert "12 Mill Lane, Bristol" in report.site_footer  # ... but kept aside for the caller
    assert "- See the full menu" in home.text

    menu = pages["/menu"]
    assert "# Menu\n\n## Breads\n\nItem | Price\nSourdough loaf | £4.50\nRye & caraway | £5.00" in menu.text
    assert "- Butter croissant\n- Cardamom bun" in menu.text
    assert menu.depth == 1
    assert pages["/catering"].depth == 1  # only reachable through the sitemap
    assert pages["/about/history"].depth == 2
    assert "Crème brûlée et pâtisserie fine." in pages["/fr"].text  # latin-1 page decoded

    def check(path: str, status: str, error: str, http_status: int | None = None) -> None:
        result = pages[path]
        assert (result.status, result.error) == (status, error), path
        assert result.http_status == http_status, path
        assert result.text == "" and result.content_hash == ""

    check("/team", "error", "HTTP 404", 404)
    check("/broken", "error", "HTTP 500", 500)
    check("/slow", "error", "timed out after 0.5s")
    check("/loop-a", "error", "redirect loop", 302)
    check("/old-shop", "skipped", f"outside the site (redirects to localhost:{site.port})", 301)
    check("/price-list", "skipped", "not HTML (application/pdf)", 200)
    check("/gallery", "skipped", "page larger than 100000 bytes", 200)
    check("/private/staff", "skipped", "disallowed by robots.txt")
    check("/index.html", "skipped", f"same page as {site.base}/", 301)

    # Never requested: robots-blocked, off-site, non-page files, the redirect target on another host.
    for path in ("/private/staff", "/shop", "/menu.pdf", "/static/logo.png", "/static/site.css"):
        assert path not in hits
    assert hits.count("/robots.txt") == 1
    assert hits.count("/") == 1 and hits.count("/menu") == 1  # sitemap + links: fetched once
    assert agents == {FAST.user_agent}
    assert all(same_site(result.url, site.base) for result in report.pages)
    assert not any("example.org" in url or "elsewhere" in url for url in pages)
    assert report.document_links == [site.url("/menu.pdf")]

    # Every page has a sha256 of its text; progress was reported once per result, in order.
    for result in report.fetched:
        assert len(result.content_hash) == 64 and result.changed is None
    assert [done for _, done, _ in progress] == list(range(1, len(report.pages) + 1))
    assert [url for url, _, _ in progress] == [result.url for result in report.pages]
    assert all(total >= done for _, done, total in progress)


def test_recrawl_detects_changed_unchanged_and_removed_pages() -> None:
    with serve(build_bakery) as site:
        first = crawl_site(site.url("/"), FAST)
        known = {result.url: result.content_hash for result in first.fetched}

        site.routes["/menu"] = Route(page("Menu", MENU.replace("4.50", "4.80")))  # price change
        del site.routes["/about"]  # page removed (still linked from the home page)
        # Cosmetic-only change: new classes, attributes, whitespace and scripts; same text.
        site.routes["/contact"] = Route(
            page("Contact", CONTACT.replace("<p>", '<p class="lead  text-muted" data-x="1">\n   '))
            .replace("<main>", '<main id="content" class="container"><script>track()</script>')
            .replace("hello@crumb", "hi@crumb")
        )
        second = crawl_site(site.url("/"), FAST, known_hashes=known)

    assert first.ok and second.ok
    before, after = by_path(first, site), by_path(second, site)

    assert after["/menu"].content_hash != before["/menu"].content_hash
    assert after["/menu"].changed is True
    assert "£4.80" in after["/menu"].text

    for path in ("/", "/contact", "/catering", "/fr"):
        assert after[path].status == "ok", path
        assert after[path].content_hash == before[path].content_hash, path
        assert after[path].changed is False, path

    removed = after["/about"]
    assert (removed.status, removed.error, removed.http_status) == ("error", "HTTP 404", 404)
    assert removed.changed is None
    # /about/history was only linked from /about: it is no longer discovered at all.
    assert "/about/history" not in after


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_unreachable_start_url_fails_the_crawl() -> None:
    report = crawl_site(f"http://127.0.0.1:{_closed_port()}/", FAST)
    assert not report.ok
    assert report.error.startswith("could not reach http://127.0.0.1:")
    assert report.fetched == []


def test_robots_5xx_fails_the_crawl_without_fetching_pages() -> None:
    def build(site: Site) -> None:
        site.routes["/robots.txt"] = Route("oops", status=503, content_type="text/plain")
        site.routes["/"] = Route(page("Home", "<h1>Hi</h1>"))

    with serve(build) as site:
        report = crawl_site(site.url("/"), FAST)
        hits = site.paths_hit()
    assert not report.ok
    assert "robots.txt answered HTTP 503" in report.error
    assert hits == ["/robots.txt"]


def test_robots_disallowing_everything_fails_the_crawl() -> None:
    def build(site: Site) -> None:
        site.routes["/robots.txt"] = Route(
            "User-agent: XorventaBot\nDisallow: /\n", content_type="text/plain"
        )
        site.routes["/"] = Route(page("Home", "<h1>Hi</h1>"))

    with serve(build) as site:
        report = crawl_site(site.url("/"), FAST)
        hits = site.paths_hit()
    assert (report.ok, report.error) == (False, "robots.txt does not allow crawling this site")
    assert hits == ["/robots.txt"]


def test_start_page_error_fails_the_crawl_and_is_reported() -> None:
    def build(site: Site) -> None:
        site.routes["/"] = Route("<h1>Maintenance</h1>", status=502)

    with serve(build) as site:
        report = crawl_site(site.base, FAST)  # no path: normalised to "/"
    assert not report.ok
    assert report.error == "the start page could not be crawled: HTTP 502"
    assert [(p.url, p.status, p.http_status) for p in report.pages] == [(site.url("/"), "error", 502)]


def _plain(body: str) -> Route:
    return Route(f"<!doctype html><html><head><title>t</title></head><body>{body}</body></html>")


def _chain_site(site: Site) -> None:
    # / -> /a -> /a/b -> /a/b/c, plus /x /y from the home page; missing robots.txt = allow all.
    site.routes["/"] = _plain('<h1>Home</h1><a href="/a">a</a> <a href="/x">x</a> <a href="/y">y</a>')
    site.routes["/a"] = _plain('<h1>A</h1><a href="/a/b">b</a>')
    site.routes["/a/b"] = _plain('<h1>B</h1><a href="/a/b/c">c</a>')
    site.routes["/a/b/c"] = _plain("<h1>C</h1>")
    for name in "xy":
        site.routes[f"/{name}"] = _plain(f"<h1>{name}</h1>")


def test_max_depth_and_max_pages() -> None:
    with serve(_chain_site) as site:
        shallow = crawl_site(site.url("/"), CrawlLimits(timeout=0.5, max_depth=1))
        few = crawl_site(site.url("/"), CrawlLimits(timeout=0.5, max_pages=3, concurrency=1))
        site.hits.clear()
        deep = crawl_site(site.url("/"), CrawlLimits(timeout=0.5, max_depth=3, concurrency=1))
        order = [path for path in site.paths_hit() if path in ("/x", "/y", "/a/b", "/a/b/c")]
    assert {p.url.removeprefix(site.base) for p in shallow.fetched} == {"/", "/a", "/x", "/y"}
    assert len(few.pages) == 3 and few.ok
    assert {p.url.removeprefix(site.base) for p in deep.fetched} == {"/", "/a", "/x", "/y", "/a/b", "/a/b/c"}
    # Breadth-first: every depth-1 page is requested before any depth-2 page.
    assert order == ["/x", "/y", "/a/b", "/a/b/c"]
    assert [p.depth for p in deep.fetched if p.url.endswith(("/a", "/a/b", "/a/b/c"))] == [1, 2, 3]


def test_crawl_delay_from_robots_spaces_requests() -> None:
    def build(site: Site) -> None:
        _chain_site(site)
        site.routes["/robots.txt"] = Route(
            "User-agent: *\nDisallow:\n\nUser-agent: xorventabot\nCrawl-delay: 0.1\n",
            content_type="text/plain",
        )

    with serve(build) as site:
        report = crawl_site(site.url("/"), CrawlLimits(timeout=0.5, max_pages=4, concurrency=2))
        times = sorted(hit.at for hit in site.hits)
    assert report.ok and len(report.fetched) == 4
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    assert min(gaps) >= 0.06  # without Crawl-delay they are ~1 ms apart; allow scheduling jitter
    assert times[-1] - times[0] >= 0.095 * len(gaps)


def test_start_url_redirecting_to_another_host_moves_the_crawl_there() -> None:
    def build(site: Site) -> None:
        _chain_site(site)
        site.routes["/start"] = Route(status=301, headers={"Location": f"http://localhost:{site.port}/"})

    with serve(build) as site:
        report = crawl_site(site.url("/start"), CrawlLimits(timeout=0.5, max_depth=1))
    assert report.ok, report.error
    first = report.pages[0]
    assert (first.url, first.final_url, first.status) == (
        site.url("/start"),
        f"http://localhost:{site.port}/",
        "ok",
    )
    assert {p.url for p in report.fetched[1:]} == {
        f"http://localhost:{site.port}{p}" for p in ("/a", "/x", "/y")
    }


def test_on_page_exception_cancels_the_crawl() -> None:
    class Stop(Exception):
        pass

    def cancel(result: PageResult, done: int, total: int) -> None:
        if done == 2:
            raise Stop

    with serve(_chain_site) as site, pytest.raises(Stop):
        crawl_site(site.url("/"), CrawlLimits(timeout=0.5), on_page=cancel)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("HTTP://WWW.Bakery.COM:80", "http://www.bakery.com/"),
        ("https://bakery.com:443/Menu?b=2&a=1#top", "https://bakery.com/Menu?b=2&a=1"),
        ("https://bakery.com:8443/x", "https://bakery.com:8443/x"),
        ("mailto:a@b.c", None),
        ("/relative", None),
        ("https://bakery.com:99999/", None),
    ],
)
def test_normalize_url(raw: str, expected: str | None) -> None:
    assert normalize_url(raw) == expected


def test_same_site() -> None:
    assert same_site("https://www.bakery.com/a", "http://bakery.com/b")
    assert not same_site("https://bakery.com/", "https://shop.bakery.com/")
    assert not same_site("http://127.0.0.1:8000/", "http://127.0.0.1:8001/")
