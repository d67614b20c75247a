"""Webhook signatures: HMAC-SHA256 over the timestamp and the body, sent as

    Xorventa-Signature: t=1767225600,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd

(the scheme Stripe uses). ``v1`` is hex(HMAC-SHA256(secret, f"{t}.{raw body}")). The receiver
recomputes it over the raw bytes it received, compares in constant time, and refuses a ``t`` outside
its replay window (``TOLERANCE_SECONDS``): a captured request cannot be replayed later, and changing
``t`` breaks the signature. Several ``v1`` entries may appear while a secret is being rolled.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

HEADER = "Xorventa-Signature"
TOLERANCE_SECONDS = 300


class SignatureError(ValueError):
    pass


def secret_new() -> str:
    return "whsec_" + secrets.token_urlsafe(32)


def _mac(secret: str, timestamp: int, body: bytes) -> str:
    return hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()


def signature_header(secret: str, body: bytes, *, timestamp: int | None = None) -> str:
    t = int(time.time()) if timestamp is None else timestamp
    return f"t={t},v1={_mac(secret, t, body)}"


def signature_verify(
    secret: str, header: str, body: bytes, *, tolerance: int = TOLERANCE_SECONDS, now: float | None = None
) -> int:
    """The signed timestamp, or SignatureError. What a receiver runs (README has a standalone copy)."""
    parts = [p.split("=", 1) for p in header.split(",") if "=" in p]
    stamps = [v for k, v in parts if k.strip() == "t"]
    signatures = [v.strip() for k, v in parts if k.strip() == "v1"]
    if len(stamps) != 1 or not stamps[0].strip().isdigit() or not signatures:
        raise SignatureError("malformed signature header")
    timestamp = int(stamps[0])
    if abs((time.time() if now is None else now) - timestamp) > tolerance:
        raise SignatureError("timestamp outside the replay window")
    expected = _mac(secret, timestamp, body)
    if not any(hmac.compare_digest(expected, s) for s in signatures):
        raise SignatureError("signature does not match")
    return timestamp
