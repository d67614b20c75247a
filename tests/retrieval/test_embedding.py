"""Tests of apps.retrieval.embedding against the real builtin model (shipped locally, no download)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from apps.retrieval import embedding
from apps.retrieval.embedding import (
    BUILTIN_MODEL,
    BUILTIN_SHA256,
    GOLDEN_TEXT,
    Embedder,
    EmbeddingConfig,
    EmbeddingModelError,
)

REPO_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    instance = Embedder(EmbeddingConfig())
    instance.preload()
    return instance


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_import_is_lazy_and_offline() -> None:
    code = (
        "import sys, os\n"
        "import apps.retrieval.embedding as e\n"
        "assert 'sentence_transformers' not in sys.modules, 'sentence_transformers imported eagerly'\n"
        "assert 'torch' not in sys.modules, 'torch imported eagerly'\n"
        "assert os.environ['HF_HUB_OFFLINE'] == '1' and os.environ['TRANSFORMERS_OFFLINE'] == '1'\n"
        "print(e.model_id())\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"{BUILTIN_MODEL}@-#{BUILTIN_SHA256[:12]}"


def test_defaults_without_django_settings() -> None:
    config = embedding.embedding_config()
    assert config.model == BUILTIN_MODEL
    assert config.revision is None
    assert config.query_prefix == ""
    assert config.expected_sha256 == BUILTIN_SHA256
    assert config.dimensions == 384


def test_dimension_dtype_and_normalisation(embedder: Embedder) -> None:
    query = embedder.embed_query("How much is a sourdough loaf?")
    assert query.shape == (384,)
    assert query.dtype == np.float32
    assert abs(float(np.linalg.norm(query)) - 1.0) < 1e-4

    passages = embedder.embed_passages(["Sourdough is $8.50 a loaf.", "We deliver within 10 miles."])
    assert passages.shape == (2, 384)
    assert passages.dtype == np.float32
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-4)

    queries = embedder.embed_queries(["a", "b", "c"])
    assert queries.shape == (3, 384)
    assert embedder.embed_passages([]).shape == (0, 384)


def test_paraphrase_scores_higher_than_unrelated(embedder: Embedder) -> None:
    a, b, c = embedder.embed_passages(
        [
            "What time do you close on Saturday?",
            "How late are you open on Saturdays?",
            "Do you sell gluten-free birthday cakes?",
        ]
    )
    paraphrase, unrelated = cosine(a, b), cosine(a, c)
    assert paraphrase > 0.6
    assert paraphrase - unrelated > 0.35


def test_query_prefix_applied_to_queries_only(embedder: Embedder) -> None:
    prefixed = Embedder(replace(embedder.config, query_prefix="Represent this question for search: "))
    text = "Do you deliver?"
    q = prefixed.embed_query(text)
    assert np.allclose(
        q, embedder.embed_passages(["Represent this question for search: " + text])[0], atol=1e-5
    )
    assert not np.allclose(q, embedder.embed_query(text), atol=1e-3)
    # passages never carry the prefix
    assert np.allclose(prefixed.embed_passages([text]), embedder.embed_passages([text]), atol=1e-5)


def test_deterministic_and_batch_independent(embedder: Embedder) -> None:
    texts = ["Open Monday to Friday, 7 AM to 3 PM.", "Delivery is free on orders over $50."]
    together = embedder.embed_passages(texts, batch_size=2)
    alone = np.stack([embedder.embed_passages([t])[0] for t in texts])
    assert np.allclose(together, alone, atol=1e-5)


def test_golden_vector(embedder: Embedder) -> None:
    golden = embedder.golden_vector()
    assert len(golden) == 384
    assert embedder.golden_matches(golden)
    assert np.allclose(golden, embedder.embed_passages([GOLDEN_TEXT])[0], atol=1e-6)

    rng = np.random.default_rng(0)
    perturbed = np.asarray(golden) + rng.normal(0.0, 0.01, size=384)
    assert not embedder.golden_matches(perturbed.tolist())
    assert embedder.golden_matches(perturbed.tolist(), threshold=0.9)  # a loose check still passes
    assert not embedder.golden_matches(golden[:100])  # wrong dimension
    assert not embedder.golden_matches([0.0] * 384)


def test_wrong_sha256_raises_clear_error() -> None:
    wrong = "0" * 64
    bad = Embedder(EmbeddingConfig(sha256=wrong))
    with pytest.raises(EmbeddingModelError) as info:
        bad.embed_query("hello")
    message = str(info.value)
    assert "model.safetensors" in message
    assert wrong in message
    assert BUILTIN_SHA256 in message  # the actual hash
    assert "re-embed" in message
    assert bad.model_id().endswith("#000000000000")


def test_dimension_mismatch_raises() -> None:
    with pytest.raises(EmbeddingModelError, match="384-dimensional"):
        Embedder(EmbeddingConfig(dimensions=768)).preload()


def test_unknown_builtin_and_missing_local_model_raise(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingModelError, match="Unknown builtin"):
        Embedder(EmbeddingConfig(model="builtin:nope")).preload()
    with pytest.raises(EmbeddingModelError, match="no local weights file"):
        Embedder(EmbeddingConfig(model=str(tmp_path), sha256="ab" * 32)).preload()


def test_model_id_is_stable_and_names_the_space(embedder: Embedder) -> None:
    assert embedder.model_id() == f"{BUILTIN_MODEL}@-#{BUILTIN_SHA256[:12]}"
    pinned = Embedder(EmbeddingConfig(model="org/some-model", revision="abc123", sha256="F" * 64))
    assert pinned.model_id() == "org/some-model@abc123#ffffffffffff"


def test_module_level_singleton() -> None:
    first = embedding.get_embedder()
    assert first is embedding.get_embedder()
    assert embedding.model_id() == first.model_id()
    vector = embedding.embed_query("Are you open on Sundays?")
    assert vector.shape == (384,)
    assert embedding.golden_matches(embedding.golden_vector())


def test_concurrent_queries_are_consistent(embedder: Embedder) -> None:
    texts = [f"question number {i} about opening hours" for i in range(8)]
    expected = embedder.embed_queries(texts)
    results: dict[int, np.ndarray] = {}

    def work(i: int) -> None:
        results[i] = embedder.embed_query(texts[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(texts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for i, vector in results.items():
        assert np.allclose(vector, expected[i], atol=1e-5)


# -- ONNX for single queries ------------------------------------------------------------------


def test_queries_use_onnx_and_stay_in_the_torch_vector_space(embedder: Embedder) -> None:
    texts = ["Are you open on Sundays?", "price", "Do you deliver to the city centre, and what does it cost?"]
    queries = embedder.embed_queries(texts)
    assert embedder.query_runtime.startswith("onnx"), embedder.query_runtime
    passages = embedder.embed_passages(texts)  # torch: the index's side of the space
    for q, p in zip(queries, passages, strict=True):
        assert cosine(q, p) > 0.9999
    assert queries.dtype == np.float32 and np.allclose(np.linalg.norm(queries, axis=1), 1.0, atol=1e-5)


def test_torch_runtime_can_be_chosen_and_agrees(embedder: Embedder) -> None:
    torch_only = Embedder(replace(EmbeddingConfig(), query_runtime="torch"))
    vector = torch_only.embed_query("Is there parking?")
    assert torch_only.query_runtime.startswith("torch")
    assert cosine(vector, embedder.embed_query("Is there parking?")) > 0.9999


def test_onnx_required_but_unavailable_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # as if it were not installed
    fallback = Embedder(EmbeddingConfig())
    fallback.embed_query("hello")  # auto: torch serves
    assert fallback.query_runtime == "torch (onnxruntime is not installed)"
    required = Embedder(replace(EmbeddingConfig(), query_runtime="onnx"))
    with pytest.raises(EmbeddingModelError, match="onnxruntime"):
        required.embed_query("hello")


def test_unknown_query_runtime_setting_is_refused(settings) -> None:
    settings.XORVENTA_EMBEDDING_QUERY_RUNTIME = "gpu"
    with pytest.raises(EmbeddingModelError, match="XORVENTA_EMBEDDING_QUERY_RUNTIME"):
        embedding.embedding_config()
