"""The knowledge layer's text similarity, from the embedding model (registered in RetrievalConfig.ready).

apps.facts.subjects decides whether two subject names are the same subject; for names whose head
nouns differ ("gift vouchers" / "gift cards") it asks a similarity provider, which facts defines and
retrieval supplies, because retrieval owns the embedding model and facts sits below it.

The threshold is calibrated for the model's similarity scale on a labelled file of subject pairs
(``python -m bench.subjects --write-profile``) and read from ``profiles/subjects_<model>.json``. A
model without a profile gets ``UNCALIBRATED_THRESHOLD``, which is high enough that only near-identical
names merge by meaning.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from apps.facts.subjects import set_similarity
from apps.retrieval import embedding
from apps.retrieval.thresholds import PROFILE_DIR

logger = logging.getLogger(__name__)

UNCALIBRATED_THRESHOLD = 0.9
#: Subject-name vectors kept per process (384 floats each: 8,192 of them are 12 MB).
RECENT_NAMES = 8192


def profile_path(model: str) -> Path:
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in model.split("@")[0])
    return PROFILE_DIR / f"subjects_{safe}.json"


def calibrated_thresholds(model: str) -> tuple[float, float, float, str]:
    """The thresholds for ``model`` (different heads, a one-sided qualifier, synonymous qualifiers)
    and where they come from. A threshold the profile lacks is the uncalibrated default."""
    path = profile_path(model)
    if path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
        return (
            float(data.get("threshold", UNCALIBRATED_THRESHOLD)),
            float(data.get("qualifier_threshold", UNCALIBRATED_THRESHOLD)),
            float(data.get("synonym_threshold", UNCALIBRATED_THRESHOLD)),
            f"calibrated: {data.get('calibrated_on', path.name)}",
        )
    return UNCALIBRATED_THRESHOLD, UNCALIBRATED_THRESHOLD, UNCALIBRATED_THRESHOLD, "uncalibrated default"


class EmbeddingSimilarity:
    """Cosine similarity of short names in the configured embedding model's space. The model loads
    on the first comparison, not at start-up."""

    def __init__(self) -> None:
        model = embedding.embedding_config().model
        self.name = model
        self.threshold, self.qualifier_threshold, self.synonym_threshold, self.origin = calibrated_thresholds(
            model
        )
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def _vectors_of(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            found = {t: self._vectors.get(t) for t in dict.fromkeys(texts)}
            for text, vector in found.items():
                if vector is not None:
                    self._vectors.move_to_end(text)
        missing = [t for t, v in found.items() if v is None]
        if missing:
            fresh = embedding.embed_queries(missing)
            with self._lock:
                for text, vector in zip(missing, fresh, strict=True):
                    found[text] = self._vectors[text] = vector
                while len(self._vectors) > RECENT_NAMES:
                    self._vectors.popitem(last=False)
        return np.vstack([v for v in (found[t] for t in texts) if v is not None])

    def similarities(self, text: str, others: Sequence[str]) -> list[float]:
        if not others:
            return []
        vectors = self._vectors_of([text, *others])
        return [float(x) for x in vectors[1:] @ vectors[0]]


def register() -> None:
    set_similarity(EmbeddingSimilarity())
