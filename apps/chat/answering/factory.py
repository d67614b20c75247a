"""The configured answerer (settings.XORVENTA_ANSWERER), kept apart from the types it builds so that
base.py, which the answerers import, imports none of them (issue 18: no import circle)."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from apps.chat.answering.base import Answerer
from apps.chat.answering.builtin import BuiltinAnswerer
from apps.chat.answering.llm import LLMAnswerer
from apps.integrations.llm import llm_configured


def get_answerer() -> Answerer:
    """settings.XORVENTA_ANSWERER = "auto" | "builtin" | "llm".

    "auto" uses the language model when one is configured and the built-in answerer otherwise, so a
    fresh install and CI answer deterministically without any network access.
    """
    mode = (getattr(settings, "XORVENTA_ANSWERER", "auto") or "auto").strip().lower()
    if mode not in {"auto", "builtin", "llm"}:
        raise ImproperlyConfigured(f"XORVENTA_ANSWERER must be auto, builtin or llm, not {mode!r}")
    if mode == "llm" and not llm_configured():
        raise ImproperlyConfigured(
            "XORVENTA_ANSWERER=llm needs a model: set XORVENTA_LLM_BASE_URL and XORVENTA_LLM_MODEL"
        )
    if mode == "llm" or (mode == "auto" and llm_configured()):
        return LLMAnswerer()
    return BuiltinAnswerer()
