"""No module imports another module's private name (issue 18): `python tools/private_imports.py`.

A name that starts with one underscore is private to the module that defines it. This checks every
Python file of the product and the lab (tests are free to reach inside) for

- ``from a.b import _name`` (absolute or relative), where ``a.b`` is one of our modules, and
- ``module._name`` where ``module`` was bound by importing one of our modules (``import a.b as m``,
  ``from a import b``).

import-linter has no contract for names inside modules (its contracts are about which modules import
which), hence this small checker, run by ``make lint`` after ``lint-imports``. Exit status 1 and one
line per finding when something imports a private name. ``bench/`` is not checked: a benchmark times
and patches internals on purpose (a cache cleared, one private step timed). Findings written in
pyproject.toml's ``[tool.private-imports] ignore`` (as ``importer -> module.name``, like
import-linter's ignore_imports) are accepted for now; each says why beside it.
"""

from __future__ import annotations

import ast
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("apps", "lab", "bench", "xorventa")  # whose names count
CHECKED = ("apps", "lab", "xorventa")  # whose modules are checked


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_ours(module: str) -> bool:
    return module.split(".")[0] in PACKAGES


def is_module(module: str) -> bool:
    base = ROOT.joinpath(*module.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def absolute(node: ast.ImportFrom, here: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    package = here.split(".") if is_package else here.split(".")[:-1]
    package = package[: len(package) - (node.level - 1)]
    return ".".join([*package, *([node.module] if node.module else [])])


def findings(path: Path) -> Iterator[tuple[str, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    here, modules = module_name(path), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = absolute(node, here, path.name == "__init__.py")
            if not is_ours(source):
                continue
            for alias in node.names:
                if private(alias.name):
                    yield f"{here} -> {source}.{alias.name}", f"{path.relative_to(ROOT)}:{node.lineno}"
                elif is_module(f"{source}.{alias.name}"):
                    modules[alias.asname or alias.name] = f"{source}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if is_ours(alias.name) and alias.asname:
                    modules[alias.asname] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and private(node.attr)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
        ):
            yield f"{here} -> {modules[node.value.id]}.{node.attr}", f"{path.relative_to(ROOT)}:{node.lineno}"


def main() -> int:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    accepted = set(config.get("tool", {}).get("private-imports", {}).get("ignore", []))
    found = sorted(
        {
            (finding, where)
            for package in CHECKED
            for path in sorted((ROOT / package).rglob("*.py"))
            if "migrations" not in path.parts
            for finding, where in findings(path)
            if finding not in accepted
        }
    )
    for finding, where in found:
        print(f"{where}: {finding}")
    if found:
        print(f"{len(found)} imports of another module's private name: make it public or move the code")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
