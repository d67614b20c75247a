"""The spaCy pipeline: pinned files verified before loading, loaded lazily, parses cached."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from apps.language import pipeline
from apps.language.pipeline import LanguageModelError

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def model_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("model") / "en_core_web_sm"
    shutil.copytree(pipeline.model_dir(), target)
    return target


def test_installed_model_matches_every_pinned_hash() -> None:
    pins = pipeline.pinned_hashes()
    # The weights of every trained component are pinned, not only one file.
    for name in ("tok2vec/model", "tagger/model", "parser/model", "ner/model", "config.cfg"):
        assert name in pins
    pipeline.verify_model(pipeline.model_dir())


def test_a_tampered_weight_file_refuses_to_load(model_copy: Path, tmp_path: Path) -> None:
    tampered = tmp_path / "tampered"
    shutil.copytree(model_copy, tampered)
    weights = tampered / "ner" / "model"
    data = bytearray(weights.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one flipped byte: spaCy itself would load this without a word
    weights.write_bytes(bytes(data))
    with pytest.raises(LanguageModelError, match=r"ner/model has sha256 [0-9a-f]{64}, expected"):
        pipeline.load_pipeline(tampered)


def test_a_missing_file_refuses_to_load(model_copy: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(model_copy, broken)
    (broken / "parser" / "model").unlink()
    with pytest.raises(LanguageModelError, match="parser/model is missing"):
        pipeline.load_pipeline(broken)


def test_an_untouched_copy_loads_and_parses(model_copy: Path) -> None:
    nlp = pipeline.load_pipeline(model_copy)
    assert "senter" not in nlp.pipe_names  # the parser sets sentences
    doc = nlp("Our groomer trims nails. She doesn't do cats.")
    assert len(list(doc.sents)) == 2


def test_parse_is_cached_and_entities_only_on_request() -> None:
    text = "Riverside Cycles opened a second workshop in Leeds last spring."
    plain = pipeline.parse(text)
    assert pipeline.parse(text) is plain
    assert plain.ents == ()  # the recogniser did not run
    with_entities = pipeline.parse(text, entities=True)
    assert "GPE" in {e.label_ for e in with_entities.ents}


def test_importing_the_layer_does_not_load_spacy() -> None:
    code = (
        "import django, sys; django.setup(); "
        "import apps.language.analysis, apps.language.spelling; "
        "print('spacy' in sys.modules, apps.language.pipeline.is_loaded())"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "xorventa.settings"}
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert out.stdout.split() == ["False", "False"]


def test_the_layer_imports_no_other_app() -> None:
    for path in (ROOT / "apps" / "language").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                assert not name.startswith("apps.") or name.startswith("apps.language"), (path, name)
