"""The canary suite: business A and business B (two agencies), each with unique canary strings planted in
a fact, a disagreement, a gap ticket, a conversation, an uploaded document and a cached value. Then, as
business B's owner, B's staff, B's owner flagged as an operator (Django admin), a reseller admin of
B's agency, B's widget visitors and anonymous people, every path is hit:

- every URL pattern of the business URLconf (xorventa/urls.py), by host and by /t/<slug>/ path, for B
  with the real ids of A's objects substituted, and for A itself; every URL of the public URLconf;
  POSTs of every id-bearing form with A's ids (A must be unchanged afterwards);
- the REST API (widget messages as JSON and SSE, widget config, drafts, businesses, schema);
- rate-limit counters (A's widget and visitor counters exhausted: B is untouched), cache keys, media
  URLs of A's document, search/retrieval, gap merging, drafts, in-process;
- 100 concurrent websocket sessions split across A and B (each must get its own canary only);
- tasks run by a real django-q2 worker process (not sync mode), interleaved A, B, A, B.

A canary hit is any of A's canary strings (or A's widget key) in anything B's side receives. The figures
go to <pytest tmp>/isolation-report.json and are printed at the end of the module.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.core.cache import cache, caches
from django.db import connection, connections
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone
from django_tenants.utils import schema_context, tenant_context

# "requests" counts every observation scanned for canaries: an HTTP response, a websocket frame, a task's
# result, a search result or a cache read.
TALLY: dict[str, Any] = {"requests": 0, "canary_hits": 0, "own_canary_seen": 0, "by_path": {}, "status": {}}
HITS: list[str] = []
QUESTION = "What is the secret recipe code?"


def count(path: str, body: str, tokens: list[str], *, status: int | None = None, own: list[str] = ()) -> int:
    """Record one request (or frame, or task result) on `path`; return the canary hits in `body`."""
    entry = TALLY["by_path"].setdefault(path, {"requests": 0, "canary_hits": 0})
    entry["requests"] += 1
    TALLY["requests"] += 1
    if status is not None:
        TALLY["status"][str(status)] = TALLY["status"].get(str(status), 0) + 1
    hits = [t for t in tokens if t in body]
    entry["canary_hits"] += len(hits)
    TALLY["canary_hits"] += len(hits)
    TALLY["own_canary_seen"] += sum(1 for t in own if t in body)
    HITS.extend(f"{path}: {t}" for t in hits)
    return len(hits)


@pytest.fixture(scope="module", autouse=True)
def report(tmp_path_factory, request) -> Iterator[None]:
    yield
    out = tmp_path_factory.getbasetemp() / "isolation-report.json"
    http = ("pages", "media", "forms", "api", "rate")
    TALLY["http_requests"] = sum(e["requests"] for p, e in TALLY["by_path"].items() if p.startswith(http))
    data = {**TALLY, "hits": HITS[:50]}
    out.write_text(json.dumps(data, indent=2, sort_keys=True))
    capture = request.config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled():
        print(
            f"\n[isolation] observations={TALLY['requests']} http_requests={TALLY['http_requests']} "
            f"canary_hits={TALLY['canary_hits']} "
            f"own_canary_seen={TALLY['own_canary_seen']} report={out}"
        )
        for path, entry in sorted(TALLY["by_path"].items()):
            print(f"[isolation]   {path}: {entry['requests']} requests, {entry['canary_hits']} hits")


# ----------------------------------------------------------------------------------------------
# The two businesses


@dataclass
class Side:
    business: Any
    origin: str
    tokens: dict[str, str]
    ids: dict[str, Any] = field(default_factory=dict)

    @property
    def canaries(self) -> list[str]:
        return [*self.tokens.values(), self.business.public_key]

    @property
    def slug(self) -> str:
        return self.business.slug


@dataclass
class World:
    a: Side
    b: Side
    actors: dict[str, Any]

    def client(self, actor: str) -> Client:
        client = Client(raise_request_exception=False)  # a server error is counted, not raised
        user = self.actors[actor]
        if user is not None:
            client.force_login(user)
        return client


def _tokens(side: str) -> dict[str, str]:
    kinds = ("fact", "dispute", "doc", "gap", "msg", "visitor", "cache")
    return {k: f"ZQX{side}{k.upper()}{secrets.token_hex(5).upper()}" for k in kinds}


def _bump_sequences(schema: str, start: int) -> None:
    """A's ids start at `start` so that an id of A's never names an object of B's (each schema has its
    own sequences): a B page showing A's id would then show B's object, and prove nothing."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT sequencename FROM pg_sequences WHERE schemaname = %s", [schema])
        for (name,) in cursor.fetchall():
            cursor.execute(f'ALTER SEQUENCE "{schema}"."{name}" RESTART WITH {int(start)}')


def _seed(side: Side) -> None:
    """Plant the canaries through the real services, inside the business's schema."""
    from apps.chat.models import Message, WidgetSettings
    from apps.chat.services import answer_once, conversation_open
    from apps.facts.ingestion import document_upload
    from apps.facts.models import Disagreement, Source
    from apps.facts.services import owner_fact_add, source_ingest
    from apps.gaps.services import gap_record
    from tests.conftest import ScriptedExtractor

    t = side.tokens
    with tenant_context(side.business):
        WidgetSettings.objects.create(allowed_origins=[side.origin])
        fact = owner_fact_add(
            topic="Secret recipe", aspect="code", statement=f"The secret recipe code is {t['fact']}."
        ).added[0]
        price = owner_fact_add(topic="Sourdough", aspect="price", statement="Sourdough is $8.50.").added[0]
        flyer = f"Sourdough loaves are $10 says flyer {t['dispute']}."
        source_ingest(
            kind="document",
            ref="flyer.txt",
            title="flyer.txt",
            content=flyer,
            extractor=ScriptedExtractor(
                {flyer: [{"topic": "Sourdough", "aspect": "price", "statement": flyer, "value": "$10"}]}
            ),
        )
        job = document_upload(
            filename=f"menu-{t['doc']}.txt",
            data=f"Menu {t['doc']}.\nThe {t['doc']} cake costs $31.\nWe are open Monday to Friday.\n".encode(),
        )
        gap = gap_record(question=f"Do you sell {t['gap']} gift cards?", top_similarity=0.1).ticket
        conversation = conversation_open(visitor_id=t["visitor"])
        answer_once(conversation_id=conversation.pk, text=f"Tell me about {t['msg']} please")
        answer_once(conversation_id=conversation.pk, text=QUESTION)
        cache.set("canary", t["cache"], timeout=600)
        side.ids = {
            "fact": fact.pk,
            "price": price.pk,
            "topic": fact.topic_id,
            "disagreement": Disagreement.objects.get().pk,
            "source": Source.objects.get(ref=f"menu-{t['doc']}.txt").pk,
            "job": job.pk,
            "gap": gap.pk,
            "conversation": conversation.pk,
            "message": Message.objects.filter(role="assistant").first().pk,
            "file": job.file.name,
        }


def build_world(make_business, make_user, reseller) -> World:
    from apps.accounts.models import Membership
    from apps.accounts.services import invitation_create
    from apps.tenants.services import reseller_create

    other_agency = reseller_create(name="Far Agency", slug="far-agency")
    a = Side(make_business("anvil", "Anvil Forge"), "https://anvil-forge.example", _tokens("A"))
    b = Side(
        make_business("birch", "Birch Dental", of=other_agency), "https://birch-dental.example", _tokens("B")
    )
    _bump_sequences(a.business.schema_name, 7001)
    cache.clear()
    caches["global"].clear()
    _seed(a)
    _seed(b)
    a_owner = make_user("owner@anvil.example", role="owner", business=a.business)
    a.ids["owner"] = a_owner.pk
    a.ids["membership"] = Membership.objects.get(user=a_owner).pk
    a.ids["invitation"] = invitation_create(
        email="new@anvil.example", role="staff", business=a.business, send=False
    ).pk
    a.ids["reseller"] = a.business.reseller_id
    a.ids["business"] = a.business.pk
    operator = make_user("operator@birch.example", role="owner", business=b.business)
    operator.is_staff = True
    operator.save(update_fields=["is_staff"])
    actors = {
        "b_owner": make_user("owner@birch.example", role="owner", business=b.business),
        "b_staff": make_user("staff@birch.example", role="staff", business=b.business),
        "b_operator": operator,
        "other_agency_admin": make_user("admin@far.example", role="reseller_admin", reseller=other_agency),
        "anonymous": None,
    }
    return World(a=a, b=b, actors=actors)


@pytest.fixture
def fast_and_local(settings, tmp_path) -> None:
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.MEDIA_ROOT = str(tmp_path / "media")


@pytest.fixture
def world(fast_and_local, make_business, make_user, reseller) -> World:
    return build_world(make_business, make_user, reseller)


# ----------------------------------------------------------------------------------------------
# Every URL pattern, with A's ids


def url_routes(urlconf: str) -> list[str]:
    """Every URL pattern of a URLconf as a route string (regex patterns as `RE:` + regex)."""

    def walk(patterns: list[Any], prefix: str) -> Iterator[str]:
        for p in patterns:
            pattern = p.pattern
            part = (
                str(pattern)
                if type(pattern).__name__ == "RoutePattern"
                else "RE:" + pattern.regex.pattern.lstrip("^").rstrip("$")
            )
            if isinstance(p, URLResolver):
                yield from walk(p.url_patterns, prefix + part)
            elif isinstance(p, URLPattern):
                yield prefix + part

    return list(dict.fromkeys(walk(get_resolver(urlconf).url_patterns, "")))


ADMIN_MODEL_IDS = {
    "facts/fact": "fact",
    "facts/topic": "topic",
    "facts/source": "source",
    "facts/disagreement": "disagreement",
    "facts/ingestionjob": "job",
    "facts/websitesettings": None,
    "tenants/reseller": "reseller",
    "tenants/business": "business",
    "accounts/user": "owner",
    "accounts/membership": "membership",
    "accounts/invitation": "invitation",
    "authtoken/tokenproxy": "owner",
}
PORTAL_IDS = [
    ("knowledge/topics/", "topic"),
    ("knowledge/facts/", "fact"),
    ("knowledge/disagreements/", "disagreement"),
    ("sources/jobs/", "job"),
    ("sources/", "source"),
    ("gaps/", "gap"),
    ("conversations/answers/", "message"),
    ("conversations/", "conversation"),
]


def fill(route: str, a: Side) -> str:
    """A concrete path for a route, naming A's objects wherever the route takes an id."""

    def object_id() -> str:
        for prefix, key in ADMIN_MODEL_IDS.items():
            if f"admin/{prefix}/" in route:
                return str(a.ids[key]) if key else "1"
        for prefix, key in PORTAL_IDS:
            if route.startswith(prefix):
                return str(a.ids[key])
        return str(a.ids["fact"])

    def value(name: str) -> str:
        if name in {"pk", "object_id", "id"}:
            return object_id()
        return {
            "content_type_id": str(_fact_content_type()),
            "token": secrets.token_urlsafe(24),  # a B actor cannot know A's invitation tokens
            "key": a.business.public_key,
            "slug": a.business.reseller.slug,
            "app_label": "facts",
            "url": f"facts/fact/{a.ids['fact']}/",
        }.get(name, "1")

    if route.startswith("RE:"):
        regex = route[3:]
        path = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda m: value(m.group(1)), regex)
        return path.replace("\\", "")
    return re.sub(r"<(?:\w+:)?(\w+)>", lambda m: value(m.group(1)), route)


def _fact_content_type() -> int:
    from django.contrib.contenttypes.models import ContentType

    return ContentType.objects.get(app_label="facts", model="fact").pk


# Product defect found by this suite (apps/facts/admin.py, not fixed here): on the public site the Django
# admin's object URLs of tenant models (/admin/facts/<model>/<id>/change/, history, delete, and the
# /admin/r/ "view on site" shortcut) query the tenant table in the public schema and answer 500
# (relation "facts_fact" does not exist) to any signed-in operator (is_staff). No data is shown; the
# xfail test below turns green when the admin refuses those URLs on the public site.
KNOWN_PUBLIC_ADMIN_500 = re.compile(r"^/admin/(facts/\w+/[^/]+/(change|history|delete)/|r/\d+/\d+/)$")


def _body(response: Any) -> str:
    # Joining a streaming response consumes an async event stream too.
    content = b"".join(response) if getattr(response, "streaming", False) else response.content
    headers = " ".join(f"{k}: {v}" for k, v in response.items())
    return headers + "\n" + content.decode("utf-8", "replace")


@pytest.mark.django_db(transaction=True)  # a server error must not abort the other requests
def test_every_url_and_form_as_every_actor_of_b_shows_and_changes_nothing_of_a(world):
    a, b = world.a, world.b
    tenant_routes = url_routes(settings.ROOT_URLCONF)
    public_routes = url_routes(settings.PUBLIC_SCHEMA_URLCONF)
    assert len(tenant_routes) > 100 and len(public_routes) > 100  # the admin's patterns are in both
    targets: list[tuple[str, str, str]] = []  # (label, path, host)
    for route in tenant_routes:
        path = fill(route, a)
        targets += [
            ("pages: B by host, A's ids", f"/{path}", f"{b.slug}.localhost"),
            ("pages: B by path, A's ids", f"/t/{b.slug}/{path}", "localhost"),
            ("pages: A by path", f"/t/{a.slug}/{path}", "localhost"),
            ("pages: A by host", f"/{path}", f"{a.slug}.localhost"),
        ]
    targets += [("pages: public site", f"/{fill(route, a)}", "localhost") for route in public_routes]
    media = a.ids["file"]
    targets += [
        ("media: A's document", f"/media/{media}", host)
        for host in ("localhost", f"{a.slug}.localhost", f"{b.slug}.localhost")
    ]
    targets += [("media: A's document", f"/t/{slug}/media/{media}", "localhost") for slug in (a.slug, b.slug)]
    assert (Path(settings.MEDIA_ROOT) / media).read_text().count(a.tokens["doc"]) == 2  # it is there

    errors: list[tuple[str, str, str, int]] = []
    known_errors: list[tuple[str, str, str, int]] = []
    for actor in world.actors:
        client = world.client(actor)
        for label, path, host in targets:
            response = client.get(path, HTTP_HOST=host)
            count(
                label, _body(response), a.canaries, status=response.status_code, own=list(b.tokens.values())
            )
            if response.status_code >= 500:
                known = host == "localhost" and KNOWN_PUBLIC_ADMIN_500.match(path)
                (known_errors if known else errors).append((actor, path, host, response.status_code))
            if label.startswith("media") and response.status_code != 404:
                errors.append((actor, path, host, response.status_code))
    TALLY["known_server_errors"] = len(known_errors)
    assert errors == [], "\n".join(map(str, errors))
    assert not HITS, HITS[:20]
    # The suite is not vacuous: B's own people do see B's canaries on B's pages.
    owner = world.client("b_owner")
    seen = _body(owner.get("/t/birch/knowledge/", HTTP_HOST="localhost"))
    seen += _body(owner.get("/t/birch/gaps/", HTTP_HOST="localhost"))
    seen += _body(owner.get("/t/birch/sources/", HTTP_HOST="localhost"))
    assert all(b.tokens[k] in seen for k in ("fact", "gap", "doc")), "B's owner should see B's canaries"
    check_forms(world)


@pytest.mark.django_db(transaction=True)
def test_public_admin_refuses_tenant_model_urls_without_a_server_error(fast_and_local, make_user):
    operator = make_user("operator@example.com")
    operator.is_staff = True
    operator.save(update_fields=["is_staff"])
    client = Client(raise_request_exception=False)
    client.force_login(operator)
    statuses = {
        client.get(f"/admin/facts/{m}/1/change/", HTTP_HOST="localhost").status_code
        for m in ("fact", "topic")
    }
    assert statuses <= {302, 403, 404}, statuses


def check_forms(world: World) -> None:
    """POST every id-bearing form of the portal with A's ids, to B and to A: A must be unchanged."""
    from apps.facts.models import Disagreement, Fact, FactEvent, Source
    from apps.gaps.models import GapTicket

    a, b = world.a, world.b

    def state() -> tuple[Any, ...]:
        with tenant_context(a.business):
            return (
                sorted(Fact.objects.values_list("pk", "status", "statement")),
                FactEvent.objects.count(),
                sorted(GapTicket.objects.values_list("pk", "status", "answer")),
                sorted(Source.objects.values_list("pk", "is_active")),
                sorted(Disagreement.objects.values_list("pk", "status")),
            )

    before = state()
    forms = [
        (f"knowledge/facts/{a.ids['fact']}/replace/", {"statement": "Hijacked."}),
        (f"knowledge/facts/{a.ids['fact']}/retire/", {"reason": "sabotage"}),
        (f"knowledge/facts/{a.ids['fact']}/restore/", {"reason": "x"}),
        (f"knowledge/disagreements/{a.ids['disagreement']}/", {"decision": "accept"}),
        (f"sources/{a.ids['source']}/retire/", {"reason": "sabotage"}),
        (f"gaps/{a.ids['gap']}/answer/", {"answer": "Hijacked answer."}),
        (f"gaps/{a.ids['gap']}/dismiss/", {"reason": "sabotage"}),
        (f"conversations/answers/{a.ids['message']}/fix/", {"answer": "Hijacked."}),
    ]
    statuses = Counter()
    for actor in world.actors:
        client = world.client(actor)
        for form, data in forms:
            for path, host in (
                (f"/t/{b.slug}/{form}", "localhost"),
                (f"/{form}", f"{b.slug}.localhost"),
                (f"/t/{a.slug}/{form}", "localhost"),
                (f"/{form}", f"{a.slug}.localhost"),
            ):
                response = client.post(path, data, HTTP_HOST=host)
                statuses[response.status_code] += 1
                count("forms: POST with A's ids", _body(response), a.canaries, status=response.status_code)
    assert state() == before
    assert set(statuses) <= {302, 404}, statuses  # 404 for members; anonymous are sent to sign in
    assert not HITS, HITS[:20]


@pytest.mark.filterwarnings("ignore:StreamingHttpResponse must consume asynchronous iterators")
@pytest.mark.django_db(transaction=True)  # the SSE stream runs on other threads: data must be committed
def test_api_rate_limits_search_drafts_and_cache_of_b_see_nothing_of_a(world, monkeypatch):
    from apps.chat import limits

    a, b = world.a, world.b
    visitor = Client()
    tokens = a.canaries

    def post(
        key: str, text: str, *, visitor_id: str, origin: str | None, ip: str, sse: bool = False, **extra
    ):
        headers = {"HTTP_HOST": "localhost", "REMOTE_ADDR": ip}
        if origin:
            headers["HTTP_ORIGIN"] = origin
        if sse:
            headers["HTTP_ACCEPT"] = "text/event-stream"
        body = {"text": text, "visitor_id": visitor_id, **extra}
        return visitor.post(
            f"/api/v1/widgets/{key}/messages", body, content_type="application/json", **headers
        )

    # B's visitors ask B's widget for A's knowledge, by question and by A's canary strings.
    questions = [QUESTION, *(f"What about {t}?" for t in a.tokens.values())]
    for i, question in enumerate(questions):
        for sse in (False, True):
            response = post(
                b.business.public_key,
                question,
                visitor_id=f"b-visitor-{i:04d}",
                origin=b.origin,
                ip=f"192.0.2.{i + 1}",
                sse=sse,
                conversation_id=a.ids["conversation"],  # A's conversation id: B must start its own
            )
            assert response.status_code == 200, _body(response)
            body = _body(response)
            count("api: widget messages (B key)", body, tokens, own=[b.tokens["fact"]])
    # B's visitor on A's widget with B's origin: refused before anything is read.
    refused = post(
        a.business.public_key, QUESTION, visitor_id="b-visitor-x", origin=b.origin, ip="192.0.2.99"
    )
    assert refused.status_code == 403
    count("api: widget messages (A key, B origin)", _body(refused), tokens)
    # The widget config is public by design (the key is on A's site); it carries no canary.
    for key in (a.business.public_key, b.business.public_key):
        response = visitor.get(f"/api/v1/widgets/{key}/config", HTTP_HOST="localhost")
        count("api: widget config", _body(response).replace(a.business.public_key, ""), tokens)

    # Drafts: B's people on B's host; and on A's host (404).
    for actor in world.actors:
        client = world.client(actor)
        for host in (f"{b.slug}.localhost", f"{a.slug}.localhost"):
            for text in (QUESTION, f"Please explain {a.tokens['fact']} and {a.tokens['doc']}"):
                response = client.post(
                    "/api/v1/drafts", {"text": text}, content_type="application/json", HTTP_HOST=host
                )
                count("api: drafts", _body(response), tokens, status=response.status_code)
                if host.startswith(a.slug) or actor == "anonymous":  # the agency admin is B's agency's
                    assert response.status_code in (401, 403, 404), (actor, host, response.status_code)
        # The businesses API: never A (another agency's business), never creating under A's agency.
        listing = client.get("/api/v1/businesses", HTTP_HOST="localhost")
        count("api: businesses", _body(listing), tokens, status=listing.status_code)
        create = client.post(
            "/api/v1/businesses",
            {"name": "Sneaky", "slug": "sneaky", "reseller": a.business.reseller.slug},
            content_type="application/json",
            HTTP_HOST="localhost",
        )
        count("api: businesses", _body(create), tokens, status=create.status_code)
        assert create.status_code in (401, 403, 404), (actor, create.status_code)
        for host, path in (
            ("localhost", "/api/schema/"),
            (f"{b.slug}.localhost", "/api/schema/"),
            ("localhost", f"/t/{b.slug}/api/schema/"),
        ):
            response = client.get(path, HTTP_HOST=host)
            count("api: schema", _body(response), tokens, status=response.status_code)

    # Rate-limit counters: exhaust A's widget and one visitor's counter on A; B is not limited by them.
    if time.time() % 60 > 50:  # the counters are per minute: stay inside one window
        time.sleep(61 - time.time() % 60)
    caches["global"].clear()
    monkeypatch.setattr(limits, "PER_WIDGET", limits.Limit("widget", 3, 60))
    monkeypatch.setattr(limits, "PER_VISITOR", limits.Limit("visitor", 2, 60))
    codes_a = [
        post(
            a.business.public_key, "Hi", visitor_id="shared-visitor", origin=a.origin, ip=f"198.51.100.{i}"
        ).status_code
        for i in range(4)
    ]
    assert codes_a == [200, 200, 429, 429]  # the visitor's limit (2), then the widget's (3)
    codes_b = [
        post(
            b.business.public_key,
            "Hi",
            visitor_id="shared-visitor",
            origin=b.origin,
            ip=f"198.51.100.{10 + i}",
        ).status_code
        for i in range(2)
    ]
    assert codes_b == [200, 200]  # same visitor id on B: a fresh counter; A's widget limit not shared
    window = int(time.time() // 60)
    global_cache = caches["global"]
    assert global_cache.get(f"rl:widget:{b.business.public_key}:{window}") == 2
    assert global_cache.get(f"rl:visitor:{b.business.public_key}:shared-visitor:{window}") == 2
    assert global_cache.get(f"rl:widget:{a.business.public_key}:{window}") >= 3
    TALLY["rate_limit_counters"] = {"a_widget_requests": 4, "a_refused": codes_a.count(429), "b_refused": 0}
    count("rate limits: B after A exhausted", json.dumps(codes_b), tokens)
    assert not HITS, HITS[:20]
    check_in_process(world)


def check_in_process(world: World) -> None:
    """Search/retrieval, drafts, gap merging and the tenant cache, called in B's schema."""
    from apps.chat.drafts import draft_reply
    from apps.facts.selectors import AUDIENCE_STAFF, AUDIENCE_VISITOR
    from apps.gaps.models import GapTicket
    from apps.gaps.services import gap_record
    from apps.retrieval.search import retrieve

    a, b = world.a, world.b
    tokens = a.canaries
    today = timezone.localdate()
    with tenant_context(b.business):
        for query in [QUESTION, *(f"{t}" for t in a.tokens.values()), "cake menu price"]:
            for audience in (AUDIENCE_VISITOR, AUDIENCE_STAFF):
                result = retrieve(query, on=today, audience=audience)
                # The log repeats the query (A's token, typed by B's side): only what was found counts.
                log = json.dumps(result.log, default=str).replace(query, "")
                count("search: retrieve in B", result.context_text() + log, tokens, own=[b.tokens["fact"]])
            count("search: draft in B", json.dumps(draft_reply(text=query), default=str), tokens)
        # The same gap question as A's is a new ticket in B, never merged into A's.
        # (it may merge with B's own similar ticket: B's ids are below A's 7001)
        recorded = gap_record(question=f"Do you sell {a.tokens['gap']} gift cards?", top_similarity=0.1)
        assert recorded.ticket is not None and recorded.ticket.pk < 7001
        count("gaps: record in B", recorded.ticket.question, tokens)
        # The tenant cache: B's key space holds B's value only.
        value = cache.get("canary")
        assert value == b.tokens["cache"]
        count("cache: B reads 'canary'", str(value), tokens)
    with tenant_context(a.business):
        assert GapTicket.objects.get(pk=a.ids["gap"]).asked_count == 1
    with schema_context("public"):
        count("cache: public reads 'canary'", str(cache.get("canary")), tokens)
        assert cache.get("canary") is None

    # From the thread pool (the consumers' path): still B's value.
    from apps.tenants.context import call_in_schema

    schemas = [b.business.schema_name, a.business.schema_name] * 10

    async def from_thread() -> list[Any]:
        try:
            return await asyncio.gather(*(call_in_schema(s, cache.get, "canary") for s in schemas))
        finally:
            await sync_to_async(connections.close_all)()

    values = asyncio.run(from_thread())
    for schema, value in zip(schemas, values, strict=True):
        own = b.tokens["cache"] if schema == b.business.schema_name else a.tokens["cache"]
        assert value == own
        if schema == b.business.schema_name:
            count("cache: B reads 'canary' from the thread pool", str(value), tokens)
    TALLY["exports"] = "no export endpoints exist (every URL pattern was enumerated above)"
    assert not HITS, HITS[:20]


# ----------------------------------------------------------------------------------------------
# Websockets: 100 concurrent sessions


async def _ws_session(key: str, origin: str, visitor: str, questions: list[str], ip: str) -> list[dict]:
    from xorventa.asgi import application

    async def from_address(scope, receive, send):
        return await application(dict(scope, client=(ip, 50000)), receive, send)

    communicator = WebsocketCommunicator(
        from_address,
        f"/ws/chat/{key}/?visitor={visitor}",
        headers=[(b"origin", origin.encode()), (b"host", b"localhost")],
    )
    connected, code = await communicator.connect(timeout=60)
    if not connected:
        return [{"type": "closed", "code": code}]
    first = await communicator.receive_output(timeout=60)
    if first["type"] == "websocket.close":
        return [{"type": "closed", "code": first.get("code")}]
    frames = [json.loads(first["text"])]
    for question in questions:
        await communicator.send_json_to({"type": "message", "text": question})
        while True:
            frame = await communicator.receive_json_from(timeout=120)
            frames.append(frame)
            if frame["type"] in ("end", "error"):
                break
    await communicator.disconnect()
    return frames


@pytest.mark.django_db(transaction=True)
def test_a_hundred_concurrent_websocket_sessions_never_cross(world):
    a, b = world.a, world.b
    caches["global"].clear()
    plan = []
    for i in range(100):
        side, other = (a, b) if i % 2 == 0 else (b, a)
        # A few B sessions reuse A's canary visitor id (their history must come from B only) and ask
        # for A's document by its canary name.
        probing = side is b and i % 20 == 1
        visitor = a.tokens["visitor"] if probing else f"visitor-{i:06d}"
        plan.append(
            (side, other, visitor, [QUESTION, f"And {other.tokens['doc']}?"] if probing else [QUESTION])
        )

    async def run() -> list[list[dict]]:
        try:
            sessions = [
                _ws_session(side.business.public_key, side.origin, visitor, questions, ip=f"203.0.113.{i}")
                for i, (side, _, visitor, questions) in enumerate(plan)
            ]
            # B's visitor with B's origin on A's widget: refused.
            sessions.append(
                _ws_session(a.business.public_key, b.origin, "visitor-b-on-a", [QUESTION], "203.0.113.200")
            )
            return await asyncio.gather(*sessions)
        finally:
            await sync_to_async(connections.close_all)()

    started = time.perf_counter()
    results = asyncio.run(run())
    elapsed = time.perf_counter() - started
    assert results[-1] == [{"type": "closed", "code": 4403}]
    errors, own_answers = [], 0
    for (side, other, _, _), frames in zip(plan, results[:-1], strict=True):
        errors += [f for f in frames if f["type"] in ("error", "closed")]
        for frame in frames:
            count("websocket: frames", json.dumps(frame), other.canaries if side is b else [])
            if side is a:  # the reverse direction too: A's sessions never see B's canaries
                count("websocket: frames (A's sessions, B's canaries)", json.dumps(frame), b.canaries)
        own_answers += any(side.tokens["fact"] in json.dumps(f) for f in frames if f["type"] == "delta") or (
            side.tokens["fact"] in "".join(f.get("text", "") for f in frames if f["type"] == "delta")
        )
    TALLY["websocket"] = {"sessions": len(results), "seconds": round(elapsed, 1), "own_answers": own_answers}
    assert errors == []
    assert own_answers == 100  # each session got its own business's secret code
    assert not HITS, HITS[:20]


# ----------------------------------------------------------------------------------------------
# Tasks under a real django-q2 worker


def probe(tag: str, question: str) -> dict[str, Any]:
    """Run by the worker (through run_for_business): what this task can see from where it runs."""
    from apps.chat.models import Message
    from apps.facts.models import Fact, Source
    from apps.gaps.models import GapTicket
    from apps.retrieval.search import retrieve
    from apps.tenants.db import current_schema

    result = retrieve(question, on=timezone.localdate())
    return {
        "tag": tag,
        "schema": current_schema(),
        "context": result.context_text(),
        "facts": list(Fact.objects.values_list("statement", flat=True)),
        "sources": list(Source.objects.values_list("ref", flat=True)),
        "gaps": list(GapTicket.objects.values_list("question", flat=True)),
        "messages": list(Message.objects.values_list("text", flat=True)),
    }


@contextmanager
def worker(log: Path, media_root: str) -> Iterator[subprocess.Popen[bytes]]:
    connection.ensure_connection()
    db = connection.settings_dict
    url = f"postgresql://{db['USER'] or 'postgres'}@/{db['NAME']}?host={db['HOST']}"
    env = dict(
        os.environ,
        DATABASE_URL=url,
        XORVENTA_WORKERS="2",
        XORVENTA_MEDIA_ROOT=media_root,
        PYTHONUNBUFFERED="1",
    )
    env.pop("XORVENTA_TASKS_SYNC", None)
    with open(log, "ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "manage.py", "qcluster"],
            cwd=settings.BASE_DIR,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield proc
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=15)
        except ProcessLookupError:
            pass


@pytest.mark.django_db(transaction=True)
def test_tasks_run_by_a_real_worker_see_only_their_business(world, tmp_path):
    from django_q.models import Failure, Success

    from apps.facts.ingestion import document_upload
    from apps.facts.models import Fact, IngestionJob, JobStatus
    from apps.tenants.tasks import enqueue_for_business

    a, b = world.a, world.b
    a_facts = {}
    with tenant_context(a.business):
        a_facts = set(Fact.objects.values_list("pk", "statement"))
    log = tmp_path / "worker.log"
    order = [b.business.schema_name, a.business.schema_name] * 3
    with worker(log, settings.MEDIA_ROOT):
        for n, schema in enumerate(order):
            enqueue_for_business(schema, "tests.security.test_isolation.probe", f"{schema}-{n}", QUESTION)
        new_doc = f"extra-{secrets.token_hex(4)}.txt"
        with tenant_context(b.business):
            job = document_upload(
                filename=new_doc,
                data=b"The birch special costs $44.\nOpen Saturday 9 AM to 1 PM.\n",
                background=True,
            )
        deadline = time.monotonic() + 120
        while True:
            done = Success.objects.filter(func="apps.tenants.tasks.run_for_business").count()
            failed = list(Failure.objects.values_list("result", flat=True))
            if done >= len(order) + 1 or failed:
                break
            assert time.monotonic() < deadline, log.read_text()[-4000:]
            time.sleep(0.3)
    assert not failed, failed
    results = {}
    for task in Success.objects.filter(func="apps.tenants.tasks.run_for_business"):
        if isinstance(task.result, dict):
            results[task.result["tag"]] = task.result
    assert len(results) == len(order)
    for tag, seen in results.items():
        schema = tag.split("-")[0]
        own, other = (b, a) if schema == b.business.schema_name else (a, b)
        assert seen["schema"] == schema
        body = json.dumps(seen)
        count("tasks: real worker probe", body, other.canaries, own=[own.tokens["fact"]])
        assert own.tokens["fact"] in seen["context"] and own.tokens["doc"] in " ".join(seen["sources"])
    with tenant_context(b.business):
        job = IngestionJob.objects.get(pk=job.pk)
        assert job.status == JobStatus.DONE, job.error
        b_statements = " ".join(Fact.objects.values_list("statement", flat=True))
        assert "$44" in b_statements
        count("tasks: real worker ingestion (B's facts)", b_statements, a.canaries)
    with tenant_context(a.business):
        assert set(Fact.objects.values_list("pk", "statement")) == a_facts  # nothing landed in A
        assert "$44" not in " ".join(Fact.objects.values_list("statement", flat=True))
    TALLY["worker_tasks"] = len(results) + 1
    assert not HITS, HITS[:20]
