"""List the import circles between our modules: `python tools/import_cycles.py` (grimp, the graph
import-linter builds). Every import counts, also those inside functions and under TYPE_CHECKING, so a
circle hidden by a function-level import is still listed. Exit status 1 when there is one."""

from __future__ import annotations

import sys
from pathlib import Path

import grimp

PACKAGES = ("apps", "lab", "bench", "xorventa")


def cycles() -> list[list[str]]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    found: set[tuple[str, ...]] = set()
    for module in sorted(graph.modules):
        for imported in graph.find_modules_directly_imported_by(module):
            path = graph.find_shortest_chain(importer=imported, imported=module)
            if path:
                circle = [module, *path]  # module -> imported -> ... -> module
                start = circle.index(min(circle[:-1]))
                found.add(tuple(circle[start:-1] + circle[:start]))
    return [list(circle) for circle in sorted(found, key=lambda c: (len(c), c))]


def main() -> int:
    found = cycles()
    for circle in found:
        print(" -> ".join([*circle, circle[0]]))
    print(f"{len(found)} import circles")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
