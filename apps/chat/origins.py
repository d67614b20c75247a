"""Which sites may talk to a business's widget: an allow-list of origins per widget.

An entry is an origin (scheme://host[:port]); a leading "*." on the host allows its subdomains (not the
bare domain). Origin is forgeable outside browsers, so this stops other websites from embedding the
widget; the rate limits still apply to everyone.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

DEFAULT_PORTS = {"http": 80, "https": 443}


_HOST_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")


def _parts(origin: str) -> tuple[str, str, int] | None:
    if "\\" in origin or any(ch.isspace() for ch in origin.strip()):
        return None
    try:
        split = urlsplit(origin.strip())
        port = split.port
    except ValueError:
        return None
    if split.scheme not in DEFAULT_PORTS or not split.hostname or port == 0:
        return None
    host = split.hostname.lower().rstrip(".")
    is_ipv6 = ":" in host
    if not is_ipv6 and not all(_HOST_LABEL.match(label) for label in host.split(".")):
        return None  # empty labels (".example.com"), underscores, stray characters
    if split.path not in ("", "/") or split.query or split.fragment or split.username or split.password:
        return None
    return split.scheme, split.hostname.lower().rstrip("."), port or DEFAULT_PORTS[split.scheme]


def normalise_origin(origin: str) -> str | None:
    """The canonical form of an allow-list entry, or None when it is not one ("*." allowed first)."""
    wildcard = "://*." in origin
    parts = _parts(origin.replace("://*.", "://", 1) if wildcard else origin)
    if parts is None:
        return None
    scheme, host, port = parts
    prefix = "*." if wildcard else ""
    return f"{scheme}://{prefix}{host}" + ("" if port == DEFAULT_PORTS[scheme] else f":{port}")


def origin_allowed(origin: str | None, allowed: list[str]) -> bool:
    if not origin:
        return False
    request = _parts(origin)
    if request is None:
        return False
    scheme, host, port = request
    for entry in allowed:
        wildcard = "://*." in entry
        expected = _parts(entry.replace("://*.", "://", 1)) if wildcard else _parts(entry)
        if expected is None:
            continue
        e_scheme, e_host, e_port = expected
        if (scheme, port) != (e_scheme, e_port):
            continue
        if host == e_host and not wildcard:
            return True
        if wildcard and host.endswith("." + e_host):
            return True
    return False
