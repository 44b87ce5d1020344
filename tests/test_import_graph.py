"""The project's modules import each other without circles (function-level imports count).

A circle means two modules that cannot be understood, tested or changed apart; import-linter
keeps the daemon away from the TUI, this keeps each package free of knots.
"""

from __future__ import annotations

import grimp
import pytest


def cycles(package: str) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    graph = grimp.build_graph(package)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(
                        graph.find_modules_directly_imported_by(child)))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        m = stack.pop()
                        on_stack.discard(m)
                        comp.append(m)
                        if m == node:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
    return found


@pytest.mark.parametrize("package", ["supervisor", "tui"])
def test_no_import_cycles(package: str) -> None:
    assert cycles(package) == []


def test_the_cycle_finder_finds_a_cycle(tmp_path, monkeypatch) -> None:
    pkg = tmp_path / "knot"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from knot import b\n")
    (pkg / "b.py").write_text("def f():\n    from knot import a\n")
    (pkg / "c.py").write_text("from knot import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert cycles("knot") == [["knot.a", "knot.b"]]
