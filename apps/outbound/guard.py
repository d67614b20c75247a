"""The outbound-request guard: a user-supplied URL reaches only public addresses on allowed ports.

Server-side request forgery: an owner types ``http://127.0.0.1:8000/admin/`` (or a name that resolves to
10.0.0.5, or a page that redirects to 169.254.169.254) as the business's website and the worker reads
the machine's own services into facts that anonymous visitors can ask for. The guard:

1. parses the URL (http/https only) and resolves its host ONCE;
2. refuses it when any resolved address is not public (``address_refusal``: loopback, private,
   link-local, multicast, reserved, unspecified, shared 100.64/10, site-local, cloud metadata; IPv6
   forms that embed an IPv4 address are judged by that address) or the port is not allowed (80/443);
3. connects to the very address it checked: the request goes to the IP with the original name in the
   Host header and as the TLS server name (httpx's documented ``sni_hostname`` request extension),
   so a second DNS answer can never be used (DNS rebinding) and certificates are still verified for
   the name;
4. does this in the client's transport, so every request the client sends is checked, each redirect
   hop included (httpx sends every hop through the transport).

Loopback is refused unless ``XORVENTA_OUTBOUND_ALLOW_LOOPBACK`` is on (the test suite, for its local
sites), a server this process runs itself is granted for as long as it runs (``allow_local_server``:
the demo crawl, the security suite's planted site), or the operator names the exact loopback servers
run beside the product (``XORVENTA_OUTBOUND_LOCAL_SERVERS``: `make run`'s demo website, which the
worker re-reads on its schedule). Metadata addresses are refused whatever is allowed.
"""

from __future__ import annotations

import socket
import ssl
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address
from typing import Any

# httpx imports httpcore when it builds its first transport (~0.1 s): here, not in a first request.
import httpcore  # noqa: F401
import httpx
from django.conf import settings

IPAddress = IPv4Address | IPv6Address
# host, port -> the addresses the name resolves to (strings or ipaddress objects). Tests inject one:
# DNS is an outside service; the HTTP servers they talk to are real.
Resolver = Callable[[str, int], Sequence[str | IPAddress]]

DEFAULT_PORTS = {"http": 80, "https": 443}
DEFAULT_ALLOWED_PORTS = frozenset({80, 443})

# Hand-written: ipaddress knows address ranges, not what is running on them. Instance-metadata services
# hand out cloud credentials; they are named in refusals and refused even when loopback is allowed.
METADATA_ADDRESSES = frozenset(
    ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, DigitalOcean, ...
        "169.254.170.2",  # AWS ECS task metadata
        "169.254.170.23",  # AWS EKS pod identity
        "fd00:ec2::254",  # AWS IMDS over IPv6
        "fd00:ec2::23",  # AWS EKS pod identity over IPv6
        "100.100.100.200",  # Alibaba Cloud
        "192.0.0.192",  # Oracle Cloud
    )
)
# Hand-written: Python 3.11's ipaddress does not decode these IPv6 forms that carry an IPv4 address
# (it decodes IPv4-mapped and 6to4), and calls 64:ff9b::/96 "reserved", which would refuse
# every public site on an IPv6-only network with NAT64.
_NAT64 = IPv6Network("64:ff9b::/96")  # RFC 6052 well-known prefix: the last 32 bits are the IPv4 address
_LOCAL_NAT64 = IPv6Network("64:ff9b:1::/48")  # RFC 8215 local-use translation: never public
# Hand-written: 100.64.0.0/10 (RFC 6598, carrier-grade NAT) is neither private nor global to ipaddress;
# named so the refusal says what it is. 192.0.0.0/24 (IETF protocol assignments, not globally
# reachable per the IANA registry) is "global" to Python before 3.13.
_SHARED = IPv4Network("100.64.0.0/10")
_PROTOCOL_ASSIGNMENTS = IPv4Network("192.0.0.0/24")


class OutboundRefused(httpx.RequestError):
    """A request the guard will not send; ``reason`` says why in words an owner can act on."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"refused: {reason}")
        self.reason = reason


@dataclass(frozen=True)
class OutboundPolicy:
    """What the guard lets through besides public addresses on the allowed ports."""

    allow_loopback: bool = False  # loopback addresses on any port (local development, the test suite)
    allowed_ports: frozenset[int] = DEFAULT_ALLOWED_PORTS
    # Loopback servers the operator runs beside the product, exactly (address, port): `make run`'s demo
    # website, which its worker re-reads too. Nothing else on loopback.
    local_servers: frozenset[tuple[IPAddress, int]] = frozenset()

    @classmethod
    def from_settings(cls) -> OutboundPolicy:
        """XORVENTA_OUTBOUND_ALLOW_LOOPBACK and XORVENTA_OUTBOUND_ALLOWED_PORTS (strict outside Django)."""
        if not settings.configured:
            return cls()
        return cls(
            allow_loopback=bool(getattr(settings, "XORVENTA_OUTBOUND_ALLOW_LOOPBACK", False)),
            allowed_ports=frozenset(
                getattr(settings, "XORVENTA_OUTBOUND_ALLOWED_PORTS", DEFAULT_ALLOWED_PORTS)
            ),
            local_servers=frozenset(
                local_server_key(url) for url in getattr(settings, "XORVENTA_OUTBOUND_LOCAL_SERVERS", ())
            ),
        )


@dataclass(frozen=True)
class ResolvedTarget:
    """A checked request target: connect to ``address``; say ``host`` in the Host header and TLS."""

    scheme: str
    host: str  # ASCII (IDNA) host name or IP literal, as the URL gave it
    port: int
    address: IPAddress

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == DEFAULT_PORTS[self.scheme] else f"{host}:{self.port}"


# --------------------------------------------------------------------------------------------------
# Servers this process runs itself on loopback (the demo site, the security suite's site)

_grants_lock = threading.Lock()
_grants: dict[tuple[IPAddress, int], int] = {}


@contextmanager
def allow_local_server(base_url: str) -> Iterator[None]:
    """Let requests from this process reach one loopback server it runs itself (exact address and
    port), while the block runs. Nothing else on loopback becomes reachable, and other processes
    (the web server, the worker) are unaffected."""
    key = local_server_key(base_url)
    with _grants_lock:
        _grants[key] = _grants.get(key, 0) + 1
    try:
        yield
    finally:
        with _grants_lock:
            _grants[key] -= 1
            if not _grants[key]:
                del _grants[key]


def local_server_key(base_url: str) -> tuple[IPAddress, int]:
    """(address, port) of a loopback server given as http://127.0.0.1:8001; ValueError otherwise."""
    try:
        url = httpx.URL(base_url)
        address = ip_address(url.raw_host.decode("ascii"))
    except (httpx.InvalidURL, UnicodeError, ValueError):
        raise ValueError(
            f"a loopback address and port such as http://127.0.0.1:8001, not {base_url!r}"
        ) from None
    if not address.is_loopback or url.port is None:
        raise ValueError(f"a loopback address and port such as http://127.0.0.1:8001, not {base_url!r}")
    return address, url.port


def _granted(address: IPAddress, port: int) -> bool:
    with _grants_lock:
        return (address, port) in _grants


# --------------------------------------------------------------------------------------------------
# Addresses


def _embedded_ipv4(address: IPv6Address) -> IPv4Address | None:
    """The IPv4 address an IPv6 address stands for (mapped, compatible, NAT64, 6to4). Teredo's
    2001::/32 is refused whole: ipaddress counts 2001::/23 as private."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in _NAT64:
        return IPv4Address(int(address) & 0xFFFF_FFFF)
    if address.sixtofour is not None:
        return address.sixtofour
    if 1 < int(address) <= 0xFFFF_FFFF:  # IPv4-compatible ::a.b.c.d (deprecated, RFC 4291 2.5.5.1)
        return IPv4Address(int(address))
    return None


@dataclass(frozen=True)
class _Verdict:
    kind: str  # "loopback", "private", ... ("" = public)
    text: str  # "a loopback address"


_PUBLIC = _Verdict("", "")


def address_refusal(address: IPAddress) -> _Verdict:
    """Why an address is not public, or the empty verdict for a public one."""
    if address in METADATA_ADDRESSES:
        return _Verdict("metadata", "a cloud metadata address")
    if isinstance(address, IPv6Address):
        inner = _embedded_ipv4(address)
        if inner is not None:
            verdict = address_refusal(inner)
            return (
                _Verdict(verdict.kind, f"an IPv6 form of {inner}, {verdict.text}")
                if verdict.kind
                else _PUBLIC
            )
        if address in _LOCAL_NAT64:
            return _Verdict("reserved", "a local-use NAT64 address")
        if address.is_site_local:
            return _Verdict("private", "a site-local address")
    checks = (
        (address.is_unspecified, "unspecified", "an unspecified address"),
        (address.is_loopback, "loopback", "a loopback address"),
        (address.is_link_local, "link-local", "a link-local address"),
        (address.is_multicast, "multicast", "a multicast address"),
        (address in _SHARED, "shared", "a shared (carrier-grade NAT) address"),
        (address.is_private, "private", "a private address"),
        (address.is_reserved, "reserved", "a reserved address"),
        (not address.is_global or address in _PROTOCOL_ASSIGNMENTS, "reserved", "not a public address"),
    )
    for hit, kind, text in checks:
        if hit:
            return _Verdict(kind, text)
    return _PUBLIC


def _literal_address(host: str) -> tuple[IPAddress, str] | None:
    """(address, how to name it in a refusal) for a host that is an IP literal, without DNS; None for
    a name. The C library's numeric parsing too, not only ipaddress: it reads '127.1', '0x7f000001'
    and '2130706433' as 127.0.0.1, and those spellings reach the C library when a request is sent."""
    try:
        return ip_address(host.split("%", 1)[0]), f"{host} is "
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None, flags=socket.AI_NUMERICHOST, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return None
    if not infos:
        return None
    address = ip_address(str(infos[0][4][0]).split("%", 1)[0])
    return address, f"{host} is {address}, "


def _system_resolver(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_ADDRCONFIG)
    return [str(info[4][0]) for info in infos]


def _is_localhost_name(host: str) -> bool:
    """'localhost' and names under .localhost, loopback by definition (RFC 6761)."""
    name = host.rstrip(".").lower()
    return name == "localhost" or name.endswith(".localhost")


# --------------------------------------------------------------------------------------------------
# Checking a URL


def _parse(url: str | httpx.URL) -> tuple[str, str, int]:
    try:
        parsed = url if isinstance(url, httpx.URL) else httpx.URL(url)
        scheme, host = parsed.scheme, parsed.raw_host.decode("ascii")
    except (httpx.InvalidURL, UnicodeError, TypeError):
        raise OutboundRefused(f"{url!s} is not a valid web address") from None
    if scheme not in DEFAULT_PORTS:
        raise OutboundRefused(f"only http:// and https:// addresses are read, not {scheme or 'this'}://")
    if not host:
        raise OutboundRefused(f"{url!s} names no host")
    return scheme, host, parsed.port or DEFAULT_PORTS[scheme]


def _port_text(port: int, policy: OutboundPolicy) -> str:
    allowed = ", ".join(str(p) for p in sorted(policy.allowed_ports))
    return f"port {port} is not allowed (allowed: {allowed})"


def _refusal(address: IPAddress, port: int, policy: OutboundPolicy, subject: str) -> str:
    """Why this address and port are refused, after ``subject`` ("" when allowed)."""
    if _granted(address, port) or (address, port) in policy.local_servers:
        return ""
    verdict = address_refusal(address)
    if verdict.kind == "loopback" and policy.allow_loopback:
        return ""  # a local development server: any port
    if verdict.kind:
        return subject + verdict.text
    return "" if port in policy.allowed_ports else _port_text(port, policy)


def _check_parts(
    scheme: str, host: str, port: int, policy: OutboundPolicy, resolver: Resolver | None
) -> ResolvedTarget:
    literal = _literal_address(host)
    if literal is not None:
        address, subject = literal
        reason = _refusal(address, port, policy, subject)
        if reason:
            raise OutboundRefused(reason)
        return ResolvedTarget(scheme, host, port, address)
    try:
        answers = (resolver or _system_resolver)(host, port)
    except (OSError, UnicodeError) as exc:
        raise httpx.ConnectError(f"could not resolve {host}: {exc}") from None
    addresses = [ip_address(str(answer).split("%", 1)[0]) for answer in answers]
    if not addresses:
        raise httpx.ConnectError(f"could not resolve {host}: no address")
    # Every answer must pass, not only the one used: a name that also points inside is hostile.
    for address in addresses:
        reason = _refusal(address, port, policy, f"{host} resolves to {address}, ")
        if reason:
            raise OutboundRefused(reason)
    return ResolvedTarget(scheme, host, port, addresses[0])


def check_url(
    url: str | httpx.URL, *, policy: OutboundPolicy | None = None, resolver: Resolver | None = None
) -> ResolvedTarget:
    """Resolve the URL's host once and check every address and the port; raises OutboundRefused
    (or httpx.ConnectError when the name does not resolve). Connect to ``.address`` only."""
    scheme, host, port = _parse(url)
    return _check_parts(scheme, host, port, policy or OutboundPolicy.from_settings(), resolver)


def check_url_literal(url: str, *, policy: OutboundPolicy | None = None) -> None:
    """The check an edge can make without DNS (a form, at save time): the scheme, the port, an IP
    literal, 'localhost'. A name is checked again, resolved, when it is fetched."""
    policy = policy or OutboundPolicy.from_settings()
    scheme, host, port = _parse(url)
    if _literal_address(host) is not None:
        _check_parts(scheme, host, port, policy, None)
    elif _is_localhost_name(host):
        reason = _refusal(IPv4Address("127.0.0.1"), port, policy, f"{host} is ")
        if reason:
            raise OutboundRefused(reason)
    elif port not in policy.allowed_ports:
        raise OutboundRefused(_port_text(port, policy))


# --------------------------------------------------------------------------------------------------
# The client


class _GuardedTransport(httpx.BaseTransport):
    """Checks each request and sends it to the checked address; one connection pool per host name,
    so a connection opened (and TLS-verified) for one name is never reused for another name that
    happens to share its address."""

    def __init__(self, policy: OutboundPolicy | None, resolver: Resolver | None, options: dict[str, Any]):
        self.policy = policy
        self.resolver = resolver
        self.options = options
        self._pools: dict[tuple[str, str, int], httpx.HTTPTransport] = {}
        self._lock = threading.Lock()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        policy = self.policy or OutboundPolicy.from_settings()
        scheme, host, port = _parse(request.url)
        target = _check_parts(scheme, host, port, policy, self.resolver)
        headers = request.headers.copy()
        headers["Host"] = target.host_header
        extensions = dict(request.extensions)
        if scheme == "https":
            extensions["sni_hostname"] = host
        pinned = httpx.Request(
            request.method,
            request.url.copy_with(host=str(target.address)),
            headers=headers,
            stream=request.stream,
            extensions=extensions,
        )
        return self._pool(scheme, host, port).handle_request(pinned)

    def _pool(self, scheme: str, host: str, port: int) -> httpx.HTTPTransport:
        with self._lock:
            pool = self._pools.get((scheme, host, port))
            if pool is None:
                pool = self._pools[(scheme, host, port)] = httpx.HTTPTransport(**self.options)
            return pool

    def close(self) -> None:
        with self._lock:
            pools, self._pools = list(self._pools.values()), {}
        for pool in pools:
            pool.close()


def guarded_client(
    *,
    policy: OutboundPolicy | None = None,
    resolver: Resolver | None = None,
    verify: Any = True,
    limits: httpx.Limits | None = None,
    **client_options: Any,
) -> httpx.Client:
    """An httpx.Client for user-supplied URLs: every request it sends (each redirect hop too) is
    checked and connected to the checked address. ``policy`` None reads the settings at each request.

    Environment proxies and .netrc are off (trust_env=False): a proxy would resolve the name itself."""
    for option in ("transport", "mounts", "proxy", "trust_env", "app"):
        if option in client_options:
            raise TypeError(f"guarded_client does not take {option!r}: it would bypass the guard")
    # One TLS context for every per-host pool: loading the CA bundle costs ~0.1 s each time.
    ssl_context = verify if isinstance(verify, ssl.SSLContext) else httpx.create_ssl_context(verify=verify)
    options: dict[str, Any] = {"verify": ssl_context, "retries": 0}
    if limits is not None:
        options["limits"] = limits
    transport = _GuardedTransport(policy=policy, resolver=resolver, options=options)
    return httpx.Client(transport=transport, trust_env=False, **client_options)
