"""A small, polite, same-site web crawler for ingesting a business's website.

`crawl_site` walks one site breadth-first (robots.txt respected, sitemap.xml used as a seed list),
extracts each HTML page's main text with `html_text.extract_main_text` and reports every page it
touched. A bad page never aborts the crawl: it is reported as "error" or "skipped" and the crawl goes
on. Only failures of the crawl itself (start URL unreachable, robots.txt unreachable or forbidding
the start page) give `CrawlReport.ok == False`, in which case callers must not retire anything.

Every request goes through apps.outbound's guarded client: each URL and each redirect hop is checked
(public addresses, allowed ports) and connected to the address checked; a refusal is reported like
any other failure ("refused: 127.0.0.1 is a loopback address").

No Django imports: the Django job calls this module (the guard reads its policy from the settings).
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
import zlib
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from html import unescape
from typing import Literal
from urllib.parse import urljoin, urlsplit, urlunsplit
from urllib.robotparser import RobotFileParser

import httpx

from apps.outbound import OutboundRefused, guarded_client

from .html_text import extract_main_text

__all__ = [
    "CrawlLimits",
    "CrawlReport",
    "PageResult",
    "PageStatus",
    "crawl_site",
    "normalize_url",
    "same_site",
]

PageStatus = Literal["ok", "skipped", "error"]

DEFAULT_USER_AGENT = "XorventaBot/1.0 (+https://github.com/xorventa)"
MAX_REDIRECTS = 10
MAX_CRAWL_DELAY = 30.0  # a Crawl-delay above this is clamped: the job must finish in reasonable time
MAX_ROBOTS_BYTES = 500_000
MAX_SITEMAP_FILES = 20
MAX_SITEMAP_BYTES = 20_000_000
MAX_SITEMAP_URLS = 10_000
HTML_TYPES = {"text/html", "application/xhtml+xml"}
# Links to these are not pages: never fetched, never reported.
_NON_PAGE_WORDS = (
    "jpg jpeg png gif webp svg ico bmp tif tiff avif heic heif pdf doc docx xls xlsx ppt pptx odt ods odp rtf"
    " txt csv md zip gz tgz rar 7z tar bz2 xz css js mjs json xml rss atom map woff woff2 ttf otf eot mp3 mp4"
    " m4a m4v wav ogg oga webm mov avi mkv flac exe dmg apk msi iso bin ics vcf"
)
NON_PAGE_EXTENSIONS = frozenset(_NON_PAGE_WORDS.split())
# Same-site links with these extensions are listed in CrawlReport.document_links for parse_document.
DOCUMENT_EXTENSIONS = frozenset({"pdf", "docx", "txt", "md"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass
class CrawlLimits:
    max_pages: int = 50  # page fetches (robots-blocked links cost nothing)
    max_depth: int = 3  # link hops from the start page; sitemap URLs count as depth 1
    timeout: float = 10.0  # seconds, per request (connect, each read, and the whole body)
    max_bytes: int = 2_000_000  # decoded body size above which a page is skipped
    concurrency: int = 2  # worker threads
    delay: float = 0.0  # seconds between two requests of the same worker (Crawl-delay wins if larger)
    user_agent: str = DEFAULT_USER_AGENT


@dataclass
class PageResult:
    url: str  # normalised URL as discovered
    final_url: str  # after redirects
    status: PageStatus
    http_status: int | None = None
    title: str = ""
    text: str = ""
    content_hash: str = ""  # sha256 of `text` (the extracted text, not the raw HTML)
    error: str = ""  # why it is "skipped" or "error"
    depth: int = 0
    # Compared with `known_hashes`: None when the page had no known hash or was not fetched ok.
    changed: bool | None = None
    # The start page only: its footer (address, phone, hours), which `text` leaves out as boilerplate.
    # It belongs to that page: a "#site-footer" anchor is not a page of its own.
    footer: str = ""


@dataclass
class CrawlReport:
    start_url: str
    pages: list[PageResult] = field(default_factory=list)
    ok: bool = True
    error: str = ""
    # Same-site links to documents (.pdf, .docx, .txt, .md) found on fetched pages; not fetched.
    document_links: list[str] = field(default_factory=list)
    # Footer text of the start page (address, phone, opening hours often live only there).
    site_footer: str = ""

    @property
    def fetched(self) -> list[PageResult]:
        return [page for page in self.pages if page.status == "ok"]


# --------------------------------------------------------------------------------------------------
# URLs


def normalize_url(url: str) -> str | None:
    """Lowercase scheme/host, drop fragment, userinfo and default port, empty path -> "/".

    Returns None for anything that is not an absolute http(s) URL. Path and query are kept as they are.
    """
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").rstrip(".")
    if scheme not in _DEFAULT_PORTS or not host:
        return None
    netloc = f"[{host}]" if ":" in host else host
    if port is not None and port != _DEFAULT_PORTS[scheme]:
        netloc += f":{port}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def _site_key(url: str) -> tuple[str, int | None]:
    parts = urlsplit(url)
    port = parts.port
    if port is not None and port == _DEFAULT_PORTS.get(parts.scheme):
        port = None
    return (parts.hostname or "").removeprefix("www."), port


def same_site(url: str, other: str) -> bool:
    """Same host (www. and the bare host count as one), same non-default port; scheme ignored."""
    return _site_key(url) == _site_key(other)


def _extension(url: str) -> str:
    last = urlsplit(url).path.rsplit("/", 1)[-1]
    return last.rsplit(".", 1)[-1].lower() if "." in last else ""


def _with_start_scheme(url: str) -> str:
    url = url.strip()
    return url if "://" in url else "https://" + url.lstrip("/")


@dataclass(frozen=True)
class _Site:
    origin: str  # canonical scheme://host[:port], every same-site URL is rewritten to it

    @classmethod
    def of(cls, url: str) -> _Site:
        parts = urlsplit(url)
        return cls(f"{parts.scheme}://{parts.netloc}")

    def contains(self, url: str) -> bool:
        return same_site(self.origin, url)

    def canonical(self, url: str) -> str:
        parts = urlsplit(url)
        origin = urlsplit(self.origin)
        return urlunsplit((origin.scheme, origin.netloc, parts.path, parts.query, ""))


# --------------------------------------------------------------------------------------------------
# robots.txt


@dataclass
class _Robots:
    parser: RobotFileParser | None  # None = allow all
    crawl_delay: float
    sitemaps: list[str]

    def allows(self, user_agent: str, url: str) -> bool:
        return self.parser is None or self.parser.can_fetch(user_agent, url)


def _crawl_delay(text: str, user_agent: str) -> float:
    """Crawl-delay of the group that applies to us (the stdlib parser only understands integers)."""
    product = user_agent.split("/")[0].strip().lower()
    delays: dict[str, float] = {}
    agents: list[str] = []
    in_rules = False
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if ":" not in line:
            continue
        key, value = (part.strip() for part in line.split(":", 1))
        key = key.lower()
        if key == "user-agent":
            if in_rules:
                agents, in_rules = [], False
            agents.append(value.lower())
        elif key in ("allow", "disallow", "crawl-delay"):
            in_rules = True
            if key == "crawl-delay":
                try:
                    delay = float(value)
                except ValueError:
                    continue
                for agent in agents:
                    delays.setdefault(agent, delay)
    for agent, delay in delays.items():
        if agent != "*" and agent in product:
            return delay
    return delays.get("*", 0.0)


# --------------------------------------------------------------------------------------------------
# Politeness


class _Throttle:
    """Per-worker delay between requests plus an optional site-wide minimum interval (Crawl-delay)."""

    def __init__(self, worker_delay: float) -> None:
        self.worker_delay = max(0.0, worker_delay)
        self.site_interval = 0.0
        self._lock = threading.Lock()
        self._next_slot = 0.0
        self._last_any = 0.0
        self._local = threading.local()

    def wait(self) -> None:
        now = time.monotonic()
        wake = now
        last: float | None = getattr(self._local, "last", None)
        if last is not None:
            wake = max(wake, last + self.worker_delay)
        if self.site_interval > 0:
            with self._lock:
                wake = max(wake, self._next_slot)
                self._next_slot = wake + self.site_interval
        if wake > now:
            time.sleep(wake - now)
        self._local.last = self._last_any = time.monotonic()

    def set_site_interval(self, interval: float) -> None:
        with self._lock:
            self.site_interval = max(self.site_interval, interval)
            self._next_slot = max(self._next_slot, self._last_any + self.site_interval)


# --------------------------------------------------------------------------------------------------
# Fetching


class _Timeout(Exception):
    pass


@dataclass
class _Outcome:
    result: PageResult
    links: list[str] = field(default_factory=list)
    footer: str = ""
    offsite: str = ""  # start page only: the off-site URL it redirects to


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class _Crawler:
    def __init__(
        self,
        client: httpx.Client,
        limits: CrawlLimits,
        on_page: Callable[[PageResult, int, int], None] | None,
        known_hashes: Mapping[str, str] | None,
    ) -> None:
        self.client = client
        self.limits = limits
        self.on_page = on_page
        self.known = known_hashes or {}
        self.throttle = _Throttle(limits.delay)
        self.robots = _Robots(None, 0.0, [])
        self.site = _Site("")
        self.report = CrawlReport(start_url="")
        self.seen: set[str] = set()
        self.claimed: dict[str, str] = {}  # final URL -> URL whose result holds that page
        self.queue: deque[tuple[str, int]] = deque()
        self.in_flight = 0
        self.budget = max(0, limits.max_pages)

    # ----- helpers

    def _timeout_message(self) -> str:
        return f"timed out after {self.limits.timeout:g}s"

    def _read_body(self, response: httpx.Response, cap: int, started: float) -> bytes | None:
        """Stream the body; None when it exceeds `cap` bytes. Raises _Timeout past the deadline."""
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap:
            return None
        body = bytearray()
        for chunk in response.iter_bytes():
            body.extend(chunk)
            if len(body) > cap:
                return None
            if time.monotonic() - started > self.limits.timeout:
                raise _Timeout
        return bytes(body)

    def _get_small(self, url: str, cap: int) -> tuple[int, bytes] | None:
        """GET following redirects (robots.txt, sitemaps). None when the body is too large."""
        self.throttle.wait()
        started = time.monotonic()
        with self.client.stream("GET", url, follow_redirects=True) as response:
            if response.status_code >= 300:
                return response.status_code, b""
            body = self._read_body(response, cap, started)
            return None if body is None else (response.status_code, body)

    # ----- robots.txt and sitemaps

    def load_robots(self) -> str:
        """Fetch robots.txt of the current site; returns an error message when the crawl must stop."""
        url = self.site.origin + "/robots.txt"
        try:
            got = self._get_small(url, MAX_ROBOTS_BYTES)
        except (httpx.TimeoutException, _Timeout):
            return f"could not reach {self.site.origin}: robots.txt {self._timeout_message()}"
        except OutboundRefused as exc:  # the site itself, or robots.txt redirecting inside
            return str(exc)
        except httpx.HTTPError as exc:
            return f"could not reach {self.site.origin}: {str(exc) or type(exc).__name__}"
        if got is None:  # absurdly large robots.txt: parse nothing, allow all
            self.robots = _Robots(None, 0.0, [])
            return ""
        status, body = got
        if status >= 500:
            return (
                f"robots.txt answered HTTP {status}; the site asks crawlers to wait until it is available, "
                "so nothing was crawled"
            )
        if status >= 300:  # 4xx ("unavailable", RFC 9309) or too many redirects: allow all
            self.robots = _Robots(None, 0.0, [])
            return ""
        text = body.decode("utf-8", errors="replace")
        parser = RobotFileParser(url)
        parser.parse(text.splitlines())
        delay = min(MAX_CRAWL_DELAY, max(0.0, _crawl_delay(text, self.limits.user_agent)))
        self.robots = _Robots(parser, delay, list(parser.site_maps() or []))
        self.throttle.set_site_interval(delay)
        return ""

    def sitemap_urls(self) -> list[str]:
        declared = [
            u for u in (normalize_url(s) for s in self.robots.sitemaps) if u and self.site.contains(u)
        ]
        pending = deque(declared or [self.site.origin + "/sitemap.xml"])
        visited: set[str] = set()
        urls: list[str] = []
        while pending and len(visited) < MAX_SITEMAP_FILES and len(urls) < MAX_SITEMAP_URLS:
            sitemap = pending.popleft()
            if sitemap in visited:
                continue
            visited.add(sitemap)
            try:
                got = self._get_small(sitemap, MAX_SITEMAP_BYTES)
            except (httpx.HTTPError, _Timeout):  # OutboundRefused included: that sitemap is skipped
                continue
            if got is None or got[0] != 200:
                continue
            is_index, locations = _parse_sitemap(got[1])
            for location in locations:
                normalized = normalize_url(location)
                if normalized and self.site.contains(normalized):
                    (pending if is_index else urls).append(self.site.canonical(normalized))
        return urls[:MAX_SITEMAP_URLS]

    # ----- one page

    def fetch(self, url: str, depth: int, allow_offsite: bool = False) -> _Outcome:
        try:
            return self._fetch(url, depth, allow_offsite)
        except (httpx.TimeoutException, _Timeout):
            return _Outcome(PageResult(url, url, "error", error=self._timeout_message(), depth=depth))
        except OutboundRefused as exc:  # the page, or a redirect hop, is not a public address
            return _Outcome(PageResult(url, url, "error", error=str(exc), depth=depth))
        except httpx.ConnectError as exc:
            return _Outcome(PageResult(url, url, "error", error=f"could not connect: {exc}", depth=depth))
        except httpx.HTTPError as exc:
            message = f"request failed: {str(exc) or type(exc).__name__}"
            return _Outcome(PageResult(url, url, "error", error=message, depth=depth))
        except Exception as exc:  # a bad page must never abort the crawl
            message = f"could not process page: {type(exc).__name__}: {exc}"
            return _Outcome(PageResult(url, url, "error", error=message, depth=depth))

    def _fetch(self, url: str, depth: int, allow_offsite: bool) -> _Outcome:
        chain = [url]
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            if not self.robots.allows(self.limits.user_agent, current):
                return _Outcome(
                    PageResult(url, current, "skipped", error="disallowed by robots.txt", depth=depth)
                )
            self.throttle.wait()
            started = time.monotonic()
            with self.client.stream("GET", current) as response:
                if response.is_redirect:
                    target = normalize_url(urljoin(current, response.headers.get("location", "")))
                    if target is None:
                        return _Outcome(
                            PageResult(
                                url, current, "error", response.status_code, error="bad redirect", depth=depth
                            )
                        )
                    if not self.site.contains(target):
                        if allow_offsite:
                            return _Outcome(PageResult(url, target, "skipped", depth=depth), offsite=target)
                        host = urlsplit(target).netloc
                        message = f"outside the site (redirects to {host})"
                        return _Outcome(
                            PageResult(
                                url, target, "skipped", response.status_code, error=message, depth=depth
                            )
                        )
                    owner = self.claimed.get(target)  # already fetched under another URL: don't refetch
                    if owner is not None and owner != url:
                        message = f"same page as {owner}"
                        return _Outcome(
                            PageResult(
                                url, target, "skipped", response.status_code, error=message, depth=depth
                            )
                        )
                    if target in chain:
                        return _Outcome(
                            PageResult(
                                url, target, "error", response.status_code, error="redirect loop", depth=depth
                            )
                        )
                    chain.append(target)
                    current = target
                    continue
                return self._page(url, current, depth, response, started)
        return _Outcome(PageResult(url, current, "error", error="too many redirects", depth=depth))

    def _page(self, url: str, final: str, depth: int, response: httpx.Response, started: float) -> _Outcome:
        status = response.status_code
        if not 200 <= status < 300:
            return _Outcome(PageResult(url, final, "error", status, error=f"HTTP {status}", depth=depth))
        mime = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if mime and mime not in HTML_TYPES:
            return _Outcome(
                PageResult(url, final, "skipped", status, error=f"not HTML ({mime})", depth=depth)
            )
        body = self._read_body(response, self.limits.max_bytes, started)
        if body is None:
            message = f"page larger than {self.limits.max_bytes} bytes"
            return _Outcome(PageResult(url, final, "skipped", status, error=message, depth=depth))
        if not mime and b"<" not in body[:1024]:
            return _Outcome(
                PageResult(url, final, "skipped", status, error="not HTML (unknown type)", depth=depth)
            )
        page = extract_main_text(body, final, encoding=response.charset_encoding)
        result = PageResult(
            url=url,
            final_url=final,
            status="ok",
            http_status=status,
            title=page.title,
            text=page.text,
            content_hash=_sha256(page.text),
            depth=depth,
        )
        links = page.links if depth < self.limits.max_depth else []
        doc_links = [link for link in page.links if _extension(link) in DOCUMENT_EXTENSIONS]
        return _Outcome(result, links + [link for link in doc_links if link not in links], page.footer_text)

    # ----- bookkeeping (main thread only)

    def record(self, outcome: _Outcome) -> None:
        result = outcome.result
        if result.status == "ok":
            owner = self.claimed.get(result.final_url)
            if owner is not None and owner != result.url:
                result = replace(
                    result,
                    status="skipped",
                    error=f"same page as {owner}",
                    text="",
                    title="",
                    content_hash="",
                )
            else:
                self.claimed[result.final_url] = result.url
                self.seen.add(result.final_url)
                known = self.known.get(result.url, self.known.get(result.final_url))
                if known is not None:
                    result.changed = known != result.content_hash
                self.enqueue(outcome.links, result.depth + 1)
        self.report.pages.append(result)
        if self.on_page is not None:
            done = len(self.report.pages)
            self.on_page(result, done, done + self.in_flight + min(len(self.queue), self.budget))

    def enqueue(self, links: Iterable[str], depth: int) -> None:
        for link in links:
            normalized = normalize_url(link)
            if normalized is None or not self.site.contains(normalized):
                continue
            normalized = self.site.canonical(normalized)
            extension = _extension(normalized)
            if extension in NON_PAGE_EXTENSIONS:
                if extension in DOCUMENT_EXTENSIONS and normalized not in self.report.document_links:
                    self.report.document_links.append(normalized)
                continue
            if normalized in self.seen or depth > self.limits.max_depth:
                continue
            self.seen.add(normalized)
            self.queue.append((normalized, depth))

    # ----- the crawl

    def fail(self, error: str) -> CrawlReport:
        self.report.ok = False
        self.report.error = error
        return self.report

    def run(self, start_url: str) -> CrawlReport:
        start = normalize_url(_with_start_scheme(start_url))
        self.report.start_url = start or start_url
        if start is None:
            return self.fail(f"not a valid web address: {start_url!r}")
        self.site = _Site.of(start)
        error = self.load_robots()
        if error:
            return self.fail(error)
        if not self.robots.allows(self.limits.user_agent, start):
            return self.fail("robots.txt does not allow crawling this site")
        if self.budget < 1:
            return self.report
        self.budget -= 1
        outcome = self.fetch(start, 0, allow_offsite=True)
        if outcome.offsite:
            # The start address moved to another host (e.g. a site builder's domain): crawl that site.
            self.site = _Site.of(outcome.offsite)
            error = self.load_robots()
            if error:
                return self.fail(error)
            outcome = self.fetch(outcome.offsite, 0)
            outcome.result.url = start
        first = outcome.result
        if first.status != "ok":
            self.record(outcome)
            detail = first.error or first.status
            return self.fail(f"the start page could not be crawled: {detail}")
        self.site = _Site.of(first.final_url)
        self.seen.update({start, first.final_url})
        self.report.site_footer = first.footer = outcome.footer
        self.record(outcome)
        if self.limits.max_depth >= 1:
            self.enqueue(self.sitemap_urls(), 1)
        self._drain()
        return self.report

    def _drain(self) -> None:
        workers = max(1, self.limits.concurrency)
        running: dict[Future[_Outcome], tuple[str, int]] = {}
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="crawl")
        try:
            while self.queue or running:
                while self.queue and len(running) < workers and self.budget > 0:
                    url, depth = self.queue.popleft()
                    if not self.robots.allows(self.limits.user_agent, url):
                        result = PageResult(
                            url, url, "skipped", error="disallowed by robots.txt", depth=depth
                        )
                        self.record(_Outcome(result))
                        continue
                    self.budget -= 1
                    running[pool.submit(self.fetch, url, depth)] = (url, depth)
                    self.in_flight = len(running)
                if not running:
                    break
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    url, depth = running.pop(future)
                    self.in_flight = len(running)
                    try:
                        outcome = future.result()
                    except Exception as exc:  # pragma: no cover - fetch() already catches everything
                        outcome = _Outcome(PageResult(url, url, "error", error=str(exc), depth=depth))
                    self.record(outcome)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


# --------------------------------------------------------------------------------------------------
# Sitemaps

_LOC_RE = re.compile(
    r"<(?:\w+:)?loc\b[^>]*>\s*(?:<!\[CDATA\[)?\s*(.*?)\s*(?:\]\]>)?\s*</(?:\w+:)?loc>", re.S | re.I
)
_INDEX_RE = re.compile(r"<(?:\w+:)?sitemapindex\b", re.I)


def _parse_sitemap(data: bytes) -> tuple[bool, list[str]]:
    """(is_index, locations) of an XML sitemap, a gzipped one, or a plain-text list of URLs."""
    if data[:2] == b"\x1f\x8b":
        try:
            data = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data, MAX_SITEMAP_BYTES)
        except zlib.error:
            return False, []
    text = data.decode("utf-8", errors="replace")
    if "<" not in text[:2048]:
        return False, [line.strip() for line in text.splitlines() if line.strip().startswith("http")]
    return bool(_INDEX_RE.search(text)), [unescape(m) for m in _LOC_RE.findall(text)]


# --------------------------------------------------------------------------------------------------


def crawl_site(
    start_url: str,
    limits: CrawlLimits | None = None,
    on_page: Callable[[PageResult, int, int], None] | None = None,
    known_hashes: Mapping[str, str] | None = None,
) -> CrawlReport:
    """Crawl one website breadth-first and report every page touched.

    on_page(result, done, total_known) is called (in the calling thread) after each result; an exception
    raised by it stops the crawl and propagates (use it to cancel). known_hashes maps URL -> previous
    content_hash and fills PageResult.changed.
    """
    limits = limits or CrawlLimits()
    timeout = httpx.Timeout(limits.timeout)
    headers = {
        "User-Agent": limits.user_agent,
        "Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5",
    }
    pool_limits = httpx.Limits(max_connections=max(1, limits.concurrency) + 1)
    with guarded_client(
        timeout=timeout, headers=headers, follow_redirects=False, limits=pool_limits
    ) as client:
        return _Crawler(client, limits, on_page, known_hashes).run(start_url)
