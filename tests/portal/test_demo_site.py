"""The demo bakery's own website (`make run`): its pages at a local address with the widget on them,
crawled by the demo and saved as the business's website with a daily re-read (the Sources page shows
both). A real HTTP server, a real crawl job."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from lab.demo_site import demo_crawl_seed, demo_site_start

SNIPPET = '<script src="http://localhost:8000/static/xorventa/widget.js" data-key="pk_demo" async></script>'


@pytest.fixture
def site():
    served = demo_site_start(snippet=SNIPPET, port=0)
    yield served
    served.shutdown()
    served.server_close()


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, ""


def test_every_page_of_the_demo_website_carries_the_widget(site):
    for path in ("", "menu.html", "cakes.html", "about.html"):
        status, body = _get(site.url + path)
        assert status == 200, path
        assert body.count(SNIPPET) == 1 and body.index(SNIPPET) < body.index("</body>"), path
    status, css = _get(site.url + "style.css")
    assert status == 200 and SNIPPET not in css
    assert _get(site.url + "../pyproject.toml")[0] == 404  # nothing outside demo_site/


def test_the_demo_crawls_its_website_and_keeps_it_with_a_daily_re_read(site, bakery, in_sunny):
    from apps.facts.models import IngestionJob, Source, SyncSchedule, WebsiteSettings

    lines: list[str] = []
    demo_crawl_seed(bakery.sunny, log=lines.append, site_url=site.url)
    with in_sunny():
        settings_row = WebsiteSettings.objects.get()
        first, again = IngestionJob.objects.order_by("id")
        refs = set(Source.objects.filter(kind="website", is_active=True).values_list("ref", flat=True))
    assert settings_row.start_url == site.url and settings_row.schedule == SyncSchedule.DAILY
    assert first.report["pages"] == {"new": 5} and again.report["pages"] == {"unchanged": 5}
    assert all(ref.startswith(site.url) and "#" not in ref for ref in refs) and len(refs) == 5
    page = bakery.client(bakery.owner).get("/t/sunny/sources/").content.decode()
    assert f'value="{site.url}"' in page  # the website address, as saved
    assert '<option value="daily" selected>' in page  # and its schedule
    demo_crawl_seed(bakery.sunny, log=lines.append, site_url=site.url)  # idempotent
    with in_sunny():
        assert IngestionJob.objects.count() == 2
