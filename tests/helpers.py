"""Small helpers shared by test modules (fixtures live in conftest.py)."""

from __future__ import annotations


def fresh_rate_window(seconds: int = 60, needed: float = 20.0) -> None:
    """Wait, if need be, until the rate limits' current fixed window has ``needed`` seconds left.

    The limits count per fixed window (apps/chat/limits.py), so a flood that straddles a window's end is
    counted in two windows and may pass: tests that expect an exact refusal point start early in one.
    """
    import time

    left = seconds - (time.time() % seconds)
    if left < needed:
        time.sleep(left + 0.05)
