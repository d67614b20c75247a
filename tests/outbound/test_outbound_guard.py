"""The outbound guard (apps/outbound) at its own level, against real HTTP(S) servers on 127.0.0.1.

DNS is an outside service, so names are answered by a resolver the test controls; every server is
real. Network rule: nothing here connects anywhere but 127.0.0.1. Every other address is refused
before a connection is opened, which the client's own connection trace shows.
"""

from __future__ import annotations

import os
import re
import socket
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
import trustme

from apps.outbound import (
    OutboundPolicy,
    OutboundRefused,
    allow_local_server,
    check_url,
    check_url_literal,
    guarded_client,
)
from tests.facts.sitefixture import Route, Site, serve

STRICT = OutboundPolicy()  # what production runs with: no loopback, ports 80 and 443
SECRET = "SECRET-7f3a internal admin page"


class Dns:
    """Answers per name, in order (the last answer repeats); records every question."""

    def __init__(self, **answers: list[list[str]]) -> None:
        self.answers = {name.replace("_", "."): list(seq) for name, seq in answers.items()}
        self.asked: list[str] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.asked.append(host)
        queue = self.answers[host]
        return queue.pop(0) if len(queue) > 1 else queue[0]


class Trace:
    """httpx's documented 'trace' request extension: which addresses the client connected to."""

    def __init__(self) -> None:
        self.connected: list[tuple[str, int]] = []

    def __call__(self, event: str, info: dict[str, Any]) -> None:
        if event == "connection.connect_tcp.started":
            self.connected.append((info["host"], info["port"]))

    @property
    def extensions(self) -> dict[str, Any]:
        return {"trace": self}


def _secret_site(site: Site) -> None:
    site.routes["/secret"] = Route(f"<html><body><p>{SECRET}</p></body></html>")
    site.routes["/"] = Route(f"<html><body><p>{SECRET}</p></body></html>")


@pytest.fixture
def secret() -> Iterator[Site]:
    with serve(_secret_site) as site:
        yield site


INTERNAL = [
    ("http://127.0.0.1:{port}/secret", "127.0.0.1 is a loopback address"),
    ("http://[::1]:{port}/", "::1 is a loopback address"),
    ("http://[::ffff:127.0.0.1]:{port}/", "an IPv6 form of 127.0.0.1, a loopback address"),
    ("http://[::127.0.0.1]:{port}/", "an IPv6 form of 127.0.0.1, a loopback address"),
    ("http://[64:ff9b::7f00:1]/", "64:ff9b::7f00:1 is an IPv6 form of 127.0.0.1, a loopback address"),
    ("http://[2002:7f00:1::]/", "an IPv6 form of 127.0.0.1, a loopback address"),
    ("http://2130706433:{port}/", "2130706433 is 127.0.0.1, a loopback address"),
    ("http://127.1:{port}/", "127.1 is 127.0.0.1, a loopback address"),
    ("http://0x7f.0.0.1:{port}/", "0x7f.0.0.1 is 127.0.0.1, a loopback address"),
    ("http://[fe80::1]/", "fe80::1 is a link-local address"),
    ("http://[fd00::1]/", "fd00::1 is a private address"),
    ("http://10.0.0.5/", "10.0.0.5 is a private address"),
    ("http://192.168.1.1/", "192.168.1.1 is a private address"),
    ("http://100.64.0.1/", "100.64.0.1 is a shared (carrier-grade NAT) address"),
    ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a cloud metadata address"),
    ("http://[fd00:ec2::254]/latest/", "fd00:ec2::254 is a cloud metadata address"),
    ("http://[::ffff:169.254.169.254]/", "an IPv6 form of 169.254.169.254, a cloud metadata address"),
    ("http://0.0.0.0:{port}/", "0.0.0.0 is an unspecified address"),
    ("http://[::]:{port}/", ":: is an unspecified address"),
    ("http://224.0.0.1/", "224.0.0.1 is a multicast address"),
    ("http://[ff02::1]/", "ff02::1 is a multicast address"),
    ("http://240.0.0.1/", "240.0.0.1 is a private address"),
]


@pytest.mark.parametrize(("template", "reason"), INTERNAL)
def test_internal_addresses_are_refused_before_any_connection(secret, template, reason):
    url = template.format(port=secret.port)
    trace = Trace()
    with guarded_client(policy=STRICT) as client, pytest.raises(OutboundRefused) as refused:
        client.get(url, extensions=trace.extensions)
    assert reason in str(refused.value) and str(refused.value).startswith("refused: ")
    assert trace.connected == [] and secret.hits == []


def test_metadata_and_private_addresses_stay_refused_when_loopback_is_allowed():
    relaxed = OutboundPolicy(allow_loopback=True)
    for url in (
        "http://169.254.169.254/",
        "http://[fd00:ec2::254]/",
        "http://10.0.0.5/",
        "http://[fd00::1]/",
    ):
        with pytest.raises(OutboundRefused):
            check_url(url, policy=relaxed)
    assert check_url("http://127.0.0.1:8000/", policy=relaxed).address.is_loopback


def test_a_name_that_resolves_to_a_private_address_is_refused_without_connecting():
    dns = Dns(evil_example=[["10.0.0.5"]])
    trace = Trace()
    with guarded_client(policy=STRICT, resolver=dns) as client, pytest.raises(OutboundRefused) as refused:
        client.get("http://evil.example/", extensions=trace.extensions)
    assert str(refused.value) == "refused: evil.example resolves to 10.0.0.5, a private address"
    assert dns.asked == ["evil.example"] and trace.connected == []


def test_a_name_with_one_internal_answer_among_others_is_refused(secret):
    # The guard connects to the first answer; an attacker adding an internal second answer (and hoping
    # for a fallback) is refused outright. The first answer is a server the test runs and allows.
    dns = Dns(shop_example=[["127.0.0.1", "169.254.169.254"]])
    with (
        allow_local_server(secret.base),
        guarded_client(policy=STRICT, resolver=dns) as client,
        pytest.raises(OutboundRefused, match=re.escape("169.254.169.254, a cloud metadata address")),
    ):
        client.get(f"http://shop.example:{secret.port}/")
    assert secret.hits == []


def test_every_redirect_hop_is_checked(secret):
    """A public-looking site (a name the test resolves to a server it allows) redirects inside: to a
    loopback server that is not allowed, and to a name resolving to a private address."""

    def front_site(site: Site) -> None:
        site.routes["/"] = Route("<p>Welcome</p>")
        site.routes["/to-loopback"] = Route(status=302, headers={"Location": secret.url("/secret")})
        site.routes["/to-private"] = Route(status=301, headers={"Location": "http://intranet.example/"})
        site.routes["/to-metadata"] = Route(status=307, headers={"Location": "http://169.254.169.254/"})

    dns = Dns(shop_example=[["127.0.0.1"]], intranet_example=[["10.1.2.3"]])
    with serve(front_site) as front, allow_local_server(front.base):
        with guarded_client(policy=STRICT, resolver=dns, follow_redirects=True) as client:
            assert client.get(f"http://shop.example:{front.port}/").text == "<p>Welcome</p>"
            for path, reason in (
                ("/to-loopback", "127.0.0.1 is a loopback address"),
                ("/to-private", "intranet.example resolves to 10.1.2.3, a private address"),
                ("/to-metadata", "169.254.169.254 is a cloud metadata address"),
            ):
                trace = Trace()
                with pytest.raises(OutboundRefused) as refused:
                    client.get(f"http://shop.example:{front.port}{path}", extensions=trace.extensions)
                assert reason in str(refused.value)
                assert trace.connected in ([], [("127.0.0.1", front.port)])  # the front site only
        assert front.paths_hit() == ["/", "/to-loopback", "/to-private", "/to-metadata"]
    assert secret.hits == []


def test_dns_rebinding_connects_to_the_checked_address_and_never_looks_the_name_up_again(secret, monkeypatch):
    """The name first resolves to an allowed address, then to an internal one. The request goes to the
    address that was checked (httpcore is handed the IP, so it does no lookup of its own), and the
    next request's fresh answer is checked and refused before connecting."""
    lookups: list[str] = []  # names the C resolver was asked to look up (numeric parsing excluded)
    real_getaddrinfo = socket.getaddrinfo

    def spy(host: Any, *args: Any, **kwargs: Any) -> Any:
        if not kwargs.get("flags", 0) & socket.AI_NUMERICHOST:
            lookups.append(str(host))
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", spy)
    dns = Dns(shop_example=[["127.0.0.1"], ["10.0.0.5"]])
    with allow_local_server(secret.base), guarded_client(policy=STRICT, resolver=dns) as client:
        trace = Trace()
        response = client.get(f"http://shop.example:{secret.port}/", extensions=trace.extensions)
        assert response.status_code == 200 and str(response.url) == f"http://shop.example:{secret.port}/"
        assert response.request.headers["Host"] == f"shop.example:{secret.port}"
        assert trace.connected == [("127.0.0.1", secret.port)]
        assert dns.asked == ["shop.example"]  # once for the request
        assert "shop.example" not in lookups  # no lookup of the name below the guard
        with pytest.raises(
            OutboundRefused, match=re.escape("shop.example resolves to 10.0.0.5, a private address")
        ):
            client.get(f"http://shop.example:{secret.port}/other")
    assert dns.asked == ["shop.example", "shop.example"]
    assert secret.paths_hit() == ["/"]


@contextmanager
def https_site(ca: trustme.CA, name: str) -> Iterator[tuple[int, list[str], list[str]]]:
    """An HTTPS server on 127.0.0.1 with a certificate for ``name``; yields (port, SNI names, Hosts)."""
    server_names: list[str] = []
    hosts: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hosts.append(self.headers.get("Host", ""))
            body = b"<p>over TLS</p>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert(name).configure_cert(context)
    context.sni_callback = lambda sock, server_name, ctx: server_names.append(server_name or "")

    class TLSServer(ThreadingHTTPServer):
        daemon_threads = True

        def get_request(self) -> tuple[socket.socket, Any]:
            sock, address = super().get_request()
            return context.wrap_socket(sock, server_side=True), address

        def handle_error(self, request: object, client_address: object) -> None:
            pass  # the client hanging up on a certificate it refuses is the point of one test

    server = TLSServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], server_names, hosts
    finally:
        server.shutdown()
        server.server_close()


def test_tls_names_and_verifies_the_host_while_connecting_to_the_checked_address():
    ca = trustme.CA()
    client_context = ssl.create_default_context()
    ca.configure_trust(client_context)
    dns = Dns(shop_example=[["127.0.0.1"]], other_example=[["127.0.0.1"]])
    with (
        https_site(ca, "shop.example") as (port, server_names, hosts),
        allow_local_server(f"http://127.0.0.1:{port}"),
        guarded_client(policy=STRICT, resolver=dns, verify=client_context) as client,
    ):
        trace = Trace()
        response = client.get(f"https://shop.example:{port}/", extensions=trace.extensions)
        assert response.text == "<p>over TLS</p>"
        assert trace.connected == [("127.0.0.1", port)]
        assert server_names == ["shop.example"] and hosts == [f"shop.example:{port}"]
        # Connecting to the IP does not weaken verification: a name the certificate does not
        # cover fails, exactly as it would without the guard.
        with pytest.raises(httpx.ConnectError, match="certificate verify failed"):
            client.get(f"https://other.example:{port}/")
    assert hosts == [f"shop.example:{port}"]


def test_ports_other_than_80_and_443_are_refused_by_default(secret):
    # check_url opens no connection: the public address the test's DNS gives is never contacted.
    dns = Dns(shop_example=[["93.184.215.14"]])
    for port in (22, 5432, 6379, 8000, 8080):
        with pytest.raises(OutboundRefused, match=f"port {port} is not allowed \\(allowed: 80, 443\\)"):
            check_url(f"http://shop.example:{port}/", policy=STRICT, resolver=dns)
    assert check_url("https://shop.example/", policy=STRICT, resolver=dns).port == 443
    wider = OutboundPolicy(allowed_ports=frozenset({80, 443, 8080}))
    assert str(check_url("http://shop.example:8080/", policy=wider, resolver=dns).address) == "93.184.215.14"
    # A server the process runs itself is reachable on its own port only, not the address's others.
    with allow_local_server(secret.base):
        assert check_url(secret.url("/"), policy=STRICT).address.is_loopback
        with pytest.raises(OutboundRefused, match=re.escape("127.0.0.1 is a loopback address")):
            check_url(f"http://127.0.0.1:{secret.port + 1}/", policy=STRICT)
    with pytest.raises(OutboundRefused):
        check_url(secret.url("/"), policy=STRICT)  # the grant ends with the block


def test_the_edge_check_refuses_obvious_internal_addresses_without_dns(monkeypatch):
    asked: list[tuple[Any, int]] = []
    real_getaddrinfo = socket.getaddrinfo

    def numeric_only(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        asked.append((host, kwargs.get("flags", 0)))
        return real_getaddrinfo(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", numeric_only)
    for url, reason in (
        ("http://localhost:8000/admin/", "localhost is a loopback address"),
        ("http://shop.localhost/", "shop.localhost is a loopback address"),
        ("http://127.0.0.1/", "127.0.0.1 is a loopback address"),
        ("http://[::1]/", "::1 is a loopback address"),
        ("http://169.254.169.254/", "a cloud metadata address"),
        ("https://sunny.example:8443/", "port 8443 is not allowed"),
        ("gopher://sunny.example/", "only http:// and https://"),
    ):
        with pytest.raises(OutboundRefused, match=reason):
            check_url_literal(url, policy=STRICT)
    check_url_literal("https://sunny-bakery.example/", policy=STRICT)  # a name: checked when fetched
    assert all(flags & socket.AI_NUMERICHOST for _, flags in asked)  # numeric parsing only, no DNS


def test_the_client_cannot_be_given_a_way_around_the_guard():
    for option in (
        {"transport": httpx.HTTPTransport()},
        {"proxy": "http://127.0.0.1:3128"},
        {"trust_env": True},
    ):
        with pytest.raises(TypeError, match="bypass the guard"):
            guarded_client(**option)


def test_production_settings_allow_no_loopback_and_only_ports_80_and_443():
    env = {k: v for k, v in os.environ.items() if not k.startswith("XORVENTA_OUTBOUND_")}
    env.update(DEBUG="0", DJANGO_SETTINGS_MODULE="xorventa.settings")
    code = (
        "import django; django.setup(); from django.conf import settings; "
        "print(settings.XORVENTA_OUTBOUND_ALLOW_LOOPBACK, sorted(settings.XORVENTA_OUTBOUND_ALLOWED_PORTS))"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False [80, 443]"


def test_a_named_local_server_is_reachable_and_nothing_else_on_loopback(secret, settings):
    """XORVENTA_OUTBOUND_LOCAL_SERVERS (`make run` names its demo website for its worker): that exact
    address and port only; the next port, another loopback address and a private address stay refused."""
    settings.XORVENTA_OUTBOUND_LOCAL_SERVERS = [secret.base]
    settings.XORVENTA_OUTBOUND_ALLOW_LOOPBACK = False  # as deployed (the tests allow loopback)
    policy = OutboundPolicy.from_settings()
    assert not policy.allow_loopback
    with guarded_client(policy=policy) as client:
        assert client.get(secret.url("/")).status_code in (200, 404)
        for refused in (
            f"http://127.0.0.1:{secret.port + 1}/",
            f"http://127.0.0.2:{secret.port}/",
            "http://10.0.0.5/",
        ):
            with pytest.raises(OutboundRefused):
                client.get(refused)
    assert OutboundPolicy().local_servers == frozenset()  # production: none
