"""Parse one uploaded document in a child process, under a memory limit and a time limit (issue 16).

documents.py refuses files whose declared sizes are over the limits before parsing them; what no static
check sees (a PDF whose streams expand page after page, XML that costs many times its size as a tree,
pathological HTML) is bounded here. The worker runs ``python -m apps.facts.sources.parse_child`` with
the file on stdin; the child caps its own address space (RLIMIT_AS) before it imports any parser, parses,
and writes one JSON object to stdout. A child that runs out of memory or time ends alone, and the
worker, with the embedding model it holds, is untouched.

Why a fresh interpreter, not multiprocessing: the worker holds torch and its threads, and fork() of a
threaded process is unsafe; 'spawn' and 'forkserver' re-import the parent's main module (Django and
all). A bare interpreter that imports only the parsers starts in about 0.2 s (docs/security.md).

No Django imports: the child does not configure Django, and the parent passes the limits in.
"""

from __future__ import annotations

import json
import logging
import os
import resource
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from apps.facts.sources.documents import DocumentLimits, ParsedDocument

logger = logging.getLogger(__name__)

# The child runs from the project root so that ``apps`` is importable without the parent's environment.
PROJECT_ROOT = Path(__file__).resolve().parents[3]


def parse_in_child(
    data: bytes, filename: str, *, limits: DocumentLimits, memory_mb: int, timeout: float
) -> ParsedDocument:
    """parse_document(data, filename, limits=limits) in a child process of at most ``memory_mb`` of
    address space, killed after ``timeout`` seconds. Raises DocumentRefused (over a limit) or
    DocumentError (anything else wrong with the file) with a message for the owner."""
    # Imported here, not at the top: the child imports this module before it limits its memory.
    from apps.facts.sources.documents import DocumentError, DocumentRefused, ParsedDocument

    request = json.dumps({"filename": filename, "limits": asdict(limits), "memory_mb": memory_mb})
    try:
        # -E -s: the child ignores PYTHON* variables and the user's site-packages; its environment
        # holds no secret (a parser bug exploited by a file reaches nothing the worker knows). The
        # command is fixed (this interpreter, this module); the owner's file only travels on stdin.
        done = subprocess.run(  # noqa: S603
            [sys.executable, "-E", "-s", "-m", "apps.facts.sources.parse_child", request],
            input=data,
            capture_output=True,
            timeout=timeout,
            cwd=PROJECT_ROOT,
            env={"PATH": os.environ.get("PATH", os.defpath), "LC_ALL": "C.UTF-8"},
            check=False,
        )
    except subprocess.TimeoutExpired:  # subprocess.run has killed the child
        raise DocumentRefused(
            f"Refused: reading the document took longer than {timeout:g} seconds, the limit."
        ) from None
    reply: dict[str, Any] | None = None
    try:
        reply = json.loads(done.stdout) if done.stdout else None
    except ValueError:
        reply = None
    if done.returncode != 0 or not isinstance(reply, dict):
        stderr = done.stderr.decode("utf-8", "replace")[-2000:]
        logger.warning("document reader for %r ended with %s: %s", filename, done.returncode, stderr)
        if "MemoryError" in stderr or done.returncode < 0:  # a signal: killed, or aborted in C code
            raise DocumentRefused(_over_memory(memory_mb))
        raise DocumentError("This file could not be read: the document reader failed.")
    if reply.get("ok"):
        return ParsedDocument(kind=reply["kind"], title=reply["title"], text=reply["text"])
    error_class = DocumentRefused if reply.get("refused") else DocumentError
    raise error_class(str(reply.get("error") or "This file could not be read."))


def _over_memory(memory_mb: int) -> str:
    return f"Refused: reading the document needs more than {memory_mb:,} MB of memory, the limit."


def _limit_memory(memory_mb: int) -> None:
    size = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (size, size))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a crash leaves no core file of the document


def _reply(payload: dict[str, Any]) -> int:
    sys.stdout.write(json.dumps(payload))
    sys.stdout.flush()
    return 0


def main() -> int:
    request = json.loads(sys.argv[1])
    memory_mb = int(request["memory_mb"])
    _limit_memory(memory_mb)
    try:
        # Imported only now: the parsers' imports count against the memory limit set just above.
        from apps.facts.sources.documents import (
            DocumentError,
            DocumentLimits,
            DocumentRefused,
            parse_document,
        )

        data = sys.stdin.buffer.read()
        limits = DocumentLimits(**request["limits"])
        parsed = parse_document(data, request["filename"], limits=limits)
    except MemoryError:
        return _reply({"ok": False, "refused": True, "error": _over_memory(memory_mb)})
    except DocumentError as exc:
        return _reply({"ok": False, "refused": isinstance(exc, DocumentRefused), "error": str(exc)})
    return _reply({"ok": True, "kind": parsed.kind, "title": parsed.title, "text": parsed.text})


if __name__ == "__main__":
    sys.exit(main())
