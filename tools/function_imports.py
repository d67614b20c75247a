"""Every import inside a function says why it is there (issue 18): `python tools/function_imports.py`.

An import belongs at the top of its module, where a reader sees what the module depends on and
import-linter and tools/import_cycles.py see the whole graph in order. It may sit inside a function
(or method) only where that is needed: a truly heavy library loaded on first use (torch, spaCy, model
weights), Django's AppConfig.ready() connecting signal receivers, a model that can only be imported
once the app registry is ready, a real import circle. Such an import carries a comment saying why, on
its own line or on the line directly above; one comment above a run of adjacent imports (no blank line
between them) covers the run. A comment that is only a pragma (``# noqa``, ``# type: ignore``) is no
reason.

Checked: apps/, xorventa/ and lab/, without migrations. ``bench/`` is not checked: its benchmark
functions import the product after ``manage.py bench`` has set Django up and time what they import,
about 120 function-level imports that are the point rather than hidden order. Exit status 1 and one
line per import (file:line and the statement) when one has no comment.
"""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
from collections.abc import Iterable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECKED = ("apps", "lab", "xorventa")
PRAGMA = re.compile(r"^(noqa\b.*|type:\s*ignore\b.*|pragma\b.*|fmt:\s*\w+|isort:\s*\w+)$", re.IGNORECASE)


def function_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """The import statements inside a function or method, at any depth, in the order they appear."""
    found: dict[int, ast.Import | ast.ImportFrom] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import | ast.ImportFrom):
                    found[id(inner)] = inner
    return sorted(found.values(), key=lambda node: (node.lineno, node.col_offset))


def reason_lines(source: str) -> set[int]:
    """The line numbers that carry a comment saying something (not only a pragma)."""
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            text = token.string.lstrip("#").strip()
            if text and not all(PRAGMA.match(part.strip()) for part in text.split("#") if part.strip()):
                lines.add(token.start[0])
    return lines


def comment_only_lines(source: str) -> set[int]:
    """The line numbers whose only content is a comment."""
    return {number for number, line in enumerate(source.splitlines(), 1) if line.strip().startswith("#")}


def uncommented(source: str, filename: str = "<source>") -> Iterator[ast.Import | ast.ImportFrom]:
    """The function-level imports of `source` with no reason beside them or directly above them."""
    reasons, comment_only = reason_lines(source), comment_only_lines(source)
    covered_until = -1  # the last line of a run of adjacent imports a comment covers
    for node in function_imports(ast.parse(source, filename=filename)):
        end = node.end_lineno or node.lineno
        if node.lineno == covered_until + 1:
            covered = True  # directly below an import the comment above covers
        else:
            above = node.lineno - 1
            covered = above in reasons and above in comment_only
        covered = covered or any(line in reasons for line in range(node.lineno, end + 1))
        if covered:
            covered_until = end
        else:
            yield node


def checked_files(packages: Iterable[str] = CHECKED) -> Iterator[Path]:
    for package in packages:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


def findings(paths: Iterable[Path]) -> Iterator[str]:
    for path in paths:
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        name = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        for node in uncommented(source, str(path)):
            yield f"{name}:{node.lineno}: {lines[node.lineno - 1].strip()}"


def main(argv: list[str]) -> int:
    found = list(findings([Path(arg).resolve() for arg in argv] if argv else checked_files()))
    for finding in found:
        print(finding)
    if found:
        print(
            f"{len(found)} function-level imports without a reason: move them to the top of the module,"
            " or say on the line above why they cannot be there"
        )
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
