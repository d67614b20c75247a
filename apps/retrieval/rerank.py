"""Optional cross-encoder re-ranking (seed 000, 3.6): the one module that touches a re-ranking model.

The most effective component measured, and the most expensive on CPU (about a second per query), so it
is used where nobody is waiting (owner drafts), not in live chat. No registry package ships
cross-encoder weights, so it is configured by a local model path (XORVENTA_RERANKER_MODEL) and fails
open: with no model, or when the model fails, the order is left as it was and the log says why.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from typing import Any

from django.conf import settings

logger = logging.getLogger(__name__)

MAX_LENGTH = 256  # tokens per (query, passage) pair: most of the gain at 42% of the cost of 512 (seed 000)
_lock = threading.Lock()
_models: dict[str, Any] = {}


def reranker_path() -> str | None:
    return getattr(settings, "XORVENTA_RERANKER_MODEL", None) or None


def _load(path: str) -> Any:
    with _lock:
        if path not in _models:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            # Lazy: sentence-transformers imports torch (about 5 s together); only a configured
            # re-ranking model needs it, after HF_HUB_OFFLINE is set.
            from sentence_transformers import CrossEncoder

            _models[path] = CrossEncoder(path, device="cpu", max_length=MAX_LENGTH)
        return _models[path]


def rerank(query: str, passages: Sequence[str], *, path: str | None = None) -> tuple[list[int], str]:
    """Indices of ``passages`` best first, and a note for the retrieval log. Never raises."""
    order = list(range(len(passages)))
    path = path or reranker_path()
    if not path:
        return order, "no re-ranking model configured (XORVENTA_RERANKER_MODEL): order kept"
    if not passages:
        return order, "nothing to re-rank"
    try:
        model = _load(path)
        scores = model.predict([(query, p) for p in passages], show_progress_bar=False)
    except Exception as exc:  # fail open: a draft without re-ranking beats no draft
        logger.warning("re-ranking failed open: %s", exc)
        return order, f"re-ranking failed, order kept: {exc.__class__.__name__}: {exc}"[:300]
    ranked = sorted(order, key=lambda i: float(scores[i]), reverse=True)
    return ranked, f"re-ranked {len(passages)} candidates with {path}"
