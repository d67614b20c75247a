"""The configured extractor (settings.XORVENTA_EXTRACTOR), kept apart from the types it builds so that
base.py, which the extractors import, imports none of them (issue 18: no import circle)."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from apps.integrations.llm import llm_configured

from .base import Extractor
from .builtin import BuiltinExtractor
from .llm import LLMExtractor


def get_extractor() -> Extractor:
    """settings.XORVENTA_EXTRACTOR = "builtin" | "llm" | "auto" (default): "auto" uses the
    language-model extractor when a model is configured, else the built-in one."""
    choice = str(_setting("XORVENTA_EXTRACTOR", "auto") or "auto").lower()
    if choice == "llm" or (choice != "builtin" and llm_configured()):
        return LLMExtractor()
    return BuiltinExtractor()


def _setting(name: str, default: Any) -> Any:
    if not settings.configured:  # the extractors also run without Django's settings (tests, bench)
        return default
    return getattr(settings, name, default)
