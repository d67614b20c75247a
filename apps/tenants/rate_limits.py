"""Fixed-window counters for rate limits that hold across every business: the widget's limits
(apps/chat/limits.py) and the account links (invitations, password resets: the accounts app's views).

Counters live in the "global" cache alias, which has no tenant prefix: a per-IP limit must count one
address across every business it talks to (django-tenants' key function would split it per tenant).
Written here rather than taken from a library because django-axes (logins) counts only calls to
authenticate(), and the widget's limits need the same counter outside any request (websocket frames).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from django.core.cache import caches


@dataclass(frozen=True)
class Limit:
    name: str
    count: int
    seconds: int


def limit_hit(limit: Limit, key: str) -> int:
    """Count one event for ``key`` in the current window; returns the count so far (this one included)."""
    cache = caches["global"]
    window = int(time.time() // limit.seconds)
    cache_key = f"rl:{limit.name}:{key}:{window}"
    if cache.add(cache_key, 1, timeout=limit.seconds * 2):
        return 1
    try:
        return int(cache.incr(cache_key))
    except ValueError:  # expired between add and incr
        cache.set(cache_key, 1, timeout=limit.seconds * 2)
        return 1


def limit_exceeded(limit: Limit, key: str) -> bool:
    """Count one event and say whether it goes over the limit."""
    return limit_hit(limit, key) > limit.count
