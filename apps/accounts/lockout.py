"""Helpers for django-axes, which locks sign-in after repeated failures (settings.AXES_*)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest


def axes_username(request: HttpRequest, credentials: dict[str, Any] | None = None) -> str:
    """The account an attempt is counted against: emails sign in case-insensitively, so
    'Owner@X' and 'owner@x' share one counter (else changing case would dodge the per-account limit)."""
    credentials = credentials or {}
    # authenticate() passes "username" (AuthenticationForm's field); axes' backend passes its
    # AXES_USERNAME_FORM_FIELD, set to the same name in settings.
    username = credentials.get("username", credentials.get("email"))
    if username is None:
        username = request.POST.get("username", "")
    return str(username).strip().lower()
