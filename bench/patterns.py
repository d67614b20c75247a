"""How much hand-written English parsing the product holds: `python -m bench.patterns [--root DIR]`.

Issue 17 asks for the hand-written pattern code (regex literals, word lists, special-case phrasing
branches) to fall to at most half of what it was, counted by a script. This is that script. It reads
the product's Python files (apps/, migrations excluded) with the ast module and counts:

- `re` calls: calls of re.compile / search / match / fullmatch / sub / subn / split / findall /
  finditer;
- regex literals: string constants passed as the pattern of such a call (directly, or through a
  module-level name assigned a string), plus raw strings that look like patterns (`(?i)`, `\\b`, ...);
- word lists: set / frozenset / list / tuple literals (and `"..." .split()` strings) of five or more
  string constants that are single words or short phrases;
- lines of the files that hold any of these, as a rough size of the parsing code.

The counts are a yardstick, not a judgement of each line: a URL pattern in the sanitiser counts like
an English one. Compare two trees with `--root` (for example a `git worktree` of an older commit).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

RE_FUNCTIONS = {"compile", "search", "match", "fullmatch", "sub", "subn", "split", "findall", "finditer"}
PATTERN_HINT = re.compile(r"\(\?[imsx]+\)|\\[bdswBDSW]|\[\^|\(\?:|\(\?<?[=!]|\|\w+\|")
WORDISH = re.compile(r"^[A-Za-z][A-Za-z'\- ]{0,30}$")
MIN_LIST = 5


@dataclass
class FileCount:
    path: str
    re_calls: int = 0
    regex_literals: int = 0
    word_lists: int = 0
    lines: int = 0


@dataclass
class Totals:
    files: list[FileCount] = field(default_factory=list)

    def total(self, name: str) -> int:
        return sum(getattr(f, name) for f in self.files)


def _is_re_call(node: ast.Call) -> bool:
    func = node.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr in RE_FUNCTIONS
        and isinstance(func.value, ast.Name)
        and func.value.id in {"re", "regex"}
    )


def _strings(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _is_word_list(node: ast.AST) -> bool:
    if isinstance(node, ast.Set | ast.List | ast.Tuple):
        values = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return len(values) >= MIN_LIST and sum(bool(WORDISH.match(v)) for v in values) >= MIN_LIST
    if (  # "a b c d e".split()
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "split"
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str)
        and not node.args
    ):
        words = node.func.value.value.split()
        return len(words) >= MIN_LIST and all(WORDISH.match(w) for w in words)
    return False


def count_file(path: Path, root: Path) -> FileCount:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = FileCount(path=path.relative_to(root).as_posix())
    counted_literals: set[int] = set()
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _is_re_call(node):
            found.re_calls += 1
            lines.add(node.lineno)
            if node.args:
                for const in ast.walk(node.args[0]):
                    if isinstance(const, ast.Constant) and isinstance(const.value, str):
                        counted_literals.add(id(const))
        elif (
            isinstance(node, ast.Constant) and isinstance(node.value, str) and PATTERN_HINT.search(node.value)
        ):
            counted_literals.add(id(node))
            lines.add(node.lineno)
        if _is_word_list(node):
            found.word_lists += 1
            lines.update(range(node.lineno, (getattr(node, "end_lineno", None) or node.lineno) + 1))
    found.regex_literals = len(counted_literals)
    found.lines = len(lines)
    return found


def count_tree(root: Path) -> Totals:
    totals = Totals()
    for path in sorted((root / "apps").rglob("*.py")):
        if "migrations" in path.parts:
            continue
        counted = count_file(path, root)
        if counted.re_calls or counted.regex_literals or counted.word_lists:
            totals.files.append(counted)
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--files", action="store_true", help="Also list every file with its counts")
    args = parser.parse_args()
    totals = count_tree(args.root)
    names = ("re_calls", "regex_literals", "word_lists", "lines")
    if args.json:
        print(json.dumps({n: totals.total(n) for n in names} | {"files": [asdict(f) for f in totals.files]}))
        return
    if args.files:
        for f in sorted(totals.files, key=lambda f: -f.regex_literals):
            print(f"{f.path:<60} {f.re_calls:>5} {f.regex_literals:>5} {f.word_lists:>5} {f.lines:>5}")
    print(" ".join(f"{n}={totals.total(n)}" for n in names))


if __name__ == "__main__":
    main()
