"""No import circles: two modules that need each other are one idea split wrong.

A circle makes the import order matter (a top-level circle fails on whichever
module is loaded first), and a lazy one (an import inside a function, there
only to dodge the circle) hides the same knot. So every floorbench import that
runs counts — at the top of a module or inside a function — and the package's
graph must have no strongly connected set of two or more modules. Imports
under ``if TYPE_CHECKING:`` never run and are left out.

The one exception is a back-end loaded on demand: a model or service that a
module picks by name and imports only when it is used, because it is heavy or
needs an extra (`BACKENDS`, each with its reason). Such an import is
legitimately lazy and may point back at the module that chose it.
`KNOWN` lists the circles left in files other developers are editing right
now; each must still be a circle while its modules exist (the test fails when
one is dissolved, so the list only shrinks) and no other may appear.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

from tests.support.source import parse_source
from tests.test_layers import PACKAGE, imported_modules, module_name

BACKENDS: dict[tuple[str, str], str] = {
    ("floorbench.speech.tts", "floorbench.speech.tts_pipecat"):
        "a pipecat TTS service (a `service:` voice of the operator's voices file), loaded only when one speaks",
    ("floorbench.scoring.judges", "floorbench.scoring.judges.offline"):
        "the offline judge (its sentence model), chosen by name in make_judge",
    ("floorbench.scoring.judges", "floorbench.scoring.judges.llm"):
        "the LLM judge (an OpenAI-compatible endpoint's client), chosen by name in make_judge",
    ("floorbench.scoring.judges", "floorbench.scoring.judges.cascade"):
        "the offline judge with the LLM for its unsure items, chosen by name in make_judge",
}
"""(importer, back-end module) → why the back-end is imported lazily; only a lazy import is excused"""

KNOWN: dict[frozenset[str], str] = {}
"""circles left in files owned by other work in progress (issue 35 lists them); to be dissolved, not added to"""


def _lines_under(tree: ast.Module) -> tuple[set[int], set[int]]:
    """(lines inside a function, lines under `if TYPE_CHECKING:`)."""
    lazy: set[int] = set()
    typing: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            lazy.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for stmt in node.body:
                typing.update(range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1))
    return lazy, typing


def import_graph(root: Path = PACKAGE) -> dict[str, dict[str, bool]]:
    """module → {module it imports at run time: whether every such import is lazy}."""
    graph: dict[str, dict[str, bool]] = {}
    for path in sorted(root.rglob("*.py")):
        me = module_name(path, root.parent)
        lazy, typing = _lines_under(parse_source(path))
        out = graph.setdefault(me, {})
        for line, target in imported_modules(path, root.parent):
            if line in typing or target == me:
                continue
            out[target] = out.get(target, True) and line in lazy
    return graph


@cache
def package_graph() -> dict[str, dict[str, bool]]:
    """The package's own graph, parsed once for the tests here."""
    return import_graph()


def circles(graph: dict[str, dict[str, bool]], excused: dict[tuple[str, str], str]) -> list[frozenset[str]]:
    """The strongly connected sets of two or more modules (Tarjan), a lazy import of an excused back-end left out."""
    edges = {a: [b for b, lazy in bs.items() if b in graph and not (lazy and (a, b) in excused)]
             for a, bs in graph.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(v: str) -> None:  # the graph is a few hundred modules deep at most
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp: set[str] = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(frozenset(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def _describe(comp: frozenset[str], graph: dict[str, dict[str, bool]]) -> str:
    arrows = [f"{a} -> {b}{' (lazy)' if graph[a][b] else ''}" for a in sorted(comp) for b in sorted(graph[a]) if b in comp]
    return "; ".join(arrows)


def test_no_import_circles_but_lazy_backends() -> None:
    graph = package_graph()
    found = circles(graph, BACKENDS)
    new = [c for c in found if c not in KNOWN]
    assert not new, "import circles (move what both need into a module of its own):\n" + "\n".join(
        _describe(c, graph) for c in new)
    gone = [", ".join(sorted(c)) for c in KNOWN if c not in found and c <= graph.keys()]
    assert not gone, "no longer a circle, drop it from KNOWN: " + "; ".join(gone)


def test_every_excused_backend_is_a_lazy_import() -> None:
    """An allow-list entry names an import that exists and is lazy (a top-level one is no back-end on demand)."""
    graph = package_graph()
    wrong = [f"{a} -> {b}" for a, b in BACKENDS if graph.get(a, {}).get(b) is not True]
    assert not wrong, "BACKENDS entries that are no lazy import: " + ", ".join(wrong)


def test_the_finder_sees_lazy_circles_and_skips_type_only_imports(tmp_path: Path) -> None:
    pkg = tmp_path / "floorbench"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from floorbench import b\n")
    (pkg / "b.py").write_text("def f():\n    from floorbench.a import x\n")
    (pkg / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from floorbench import a\n")
    (pkg / "d.py").write_text("def load():\n    from floorbench import e\n")
    (pkg / "e.py").write_text("from floorbench.d import load\n")
    graph = import_graph(pkg)
    assert graph["floorbench.b"] == {"floorbench.a": True} and graph["floorbench.c"] == {}
    assert sorted(sorted(c) for c in circles(graph, {})) == [
        ["floorbench.a", "floorbench.b"], ["floorbench.d", "floorbench.e"]]
    assert circles(graph, {("floorbench.d", "floorbench.e"): "a back-end"}) == [
        frozenset({"floorbench.a", "floorbench.b"})]
    (pkg / "d.py").write_text("from floorbench import e\n")  # top-level: no back-end excuse
    assert len(circles(import_graph(pkg), {("floorbench.d", "floorbench.e"): "a back-end"})) == 2
