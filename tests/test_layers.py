"""The layers hold: imports go only downward (cli -> protocol -> p2p10), and the core's modules
import one another without a circle; only :mod:`p2p10.primitives` imports the libraries the core's
cryptography and encoding come from. Inside ``cli`` the seat model is below both front ends:
``cli.seat`` knows neither front end nor a terminal library, and the browser's ``cli.web``
imports nothing of the terminal's ``cli.table``.

The sources are parsed, not imported, so every import counts wherever it stands: at the top,
inside a function (a lazy import hides a circle, it does not remove it), under ``TYPE_CHECKING``
(a type from above is still an arrow up) and ``importlib.import_module`` of a written-out name.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError
from pathlib import Path

import pytest

from p2p10 import __version__
from p2p10.i18n import set_language

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ("p2p10", "protocol", "cli")
VENDORED = Path("cli", "web", "static", "vendor")
"""Other projects' files, vendored byte for byte (vendor.json): not modules of ours."""
"""The three packages, lowest first: a module may import its own layer and those before it."""


@dataclass(frozen=True)
class Import:
    """One import in a module: the module it names (as written, resolved if relative) and where."""

    source: str
    target: str
    line: int


def module_sources(root: Path = ROOT) -> dict[str, str]:
    """Every module of the three packages by dotted name (a package by its own name), as text."""
    sources: dict[str, str] = {}
    for layer in LAYERS:
        for path in sorted((root / layer).rglob("*.py")):
            if path.is_relative_to(root / VENDORED):
                continue  # (another project's files, served to a phone's page: vendor.json)
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            sources[".".join(parts)] = path.read_text(encoding="utf-8")
    return sources


def _is_import_module(call: ast.Call) -> bool:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    return name in ("import_module", "__import__")


def imports_of(module: str, source: str, is_package: bool) -> Iterator[Import]:
    """Every module ``source`` imports, each name of a ``from x import a, b`` as ``x.a`` and
    ``x.b`` (the caller keeps whichever is a module)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(module, alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module if is_package else module.rpartition(".")[0]
                for _ in range(node.level - 1):
                    package = package.rpartition(".")[0]
                base = f"{package}.{base}" if base else package
            for alias in node.names:
                yield Import(module, f"{base}.{alias.name}", node.lineno)
        elif (isinstance(node, ast.Call) and _is_import_module(node) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            yield Import(module, node.args[0].value, node.lineno)


def _known(name: str, modules: Mapping[str, str]) -> str | None:
    """The longest prefix of ``name`` that is one of ``modules`` (``p2p10.bots.POLICIES`` is
    ``p2p10.bots``), or None for a name from outside the three packages."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def _packages(sources: Mapping[str, str]) -> set[str]:
    """The modules of ``sources`` that are packages (another module's name starts with theirs)."""
    return {name for name in sources if any(other.startswith(name + ".") for other in sources)}


def import_graph(sources: Mapping[str, str]) -> list[Import]:
    """Every import between modules of ``sources``, with its target resolved to a module."""
    packages = _packages(sources)
    edges: list[Import] = []
    for module, source in sources.items():
        for found in imports_of(module, source, module in packages or module in LAYERS):
            target = _known(found.target, sources)
            if target is not None and target != module:
                edges.append(Import(module, target, found.line))
    return edges


def _layer(module: str) -> int:
    return LAYERS.index(module.split(".")[0])


def arrows_up(edges: list[Import]) -> list[str]:
    """The imports from a lower layer to a higher one."""
    return [f"{e.source} (line {e.line}) imports {e.target}" for e in edges
            if _layer(e.target) > _layer(e.source)]


def cycles(edges: list[Import]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, without
    recursion): each is a set of modules that import one another around a circle."""
    graph: dict[str, set[str]] = {}
    for edge in edges:
        graph.setdefault(edge.source, set()).add(edge.target)
        graph.setdefault(edge.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return sorted(found)


def within(layer: str, edges: list[Import]) -> list[Import]:
    """The imports between two modules of ``layer``."""
    return [e for e in edges if _layer(e.source) == _layer(e.target) == LAYERS.index(layer)]


APART: dict[str, tuple[str, ...]] = {
    "cli.seat": ("cli.table", "cli.web", "prompt_toolkit"),
    "cli.web": ("cli.table", "prompt_toolkit"),
}
"""What each package of the front end must not import (a package of ours, or a library): the
model is drawn by both front ends, and neither front end is built on the other's drawing."""


def _under(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def crossings(sources: Mapping[str, str], apart: Mapping[str, tuple[str, ...]] = APART) -> list[str]:
    """Every import (a name from outside the three packages included) that a package of
    ``apart`` must not make."""
    packages = _packages(sources)
    found: list[str] = []
    for module, source in sources.items():
        for package, banned in apart.items():
            if not _under(module, package):
                continue
            for imported in imports_of(module, source, module in packages or module in LAYERS):
                target = _known(imported.target, sources) or imported.target
                if any(_under(target, other) for other in banned):
                    found.append(f"{module} (line {imported.line}) imports {target}")
    return sorted(set(found))


def test_no_module_imports_from_a_higher_layer() -> None:
    assert arrows_up(import_graph(module_sources())) == []


def test_the_seat_model_is_below_both_front_ends() -> None:
    assert crossings(module_sources()) == []
    # and there is a model to be below them, which both draw
    edges = {(e.source, e.target) for e in import_graph(module_sources())}
    assert ("cli.table.play", "cli.seat.play") in edges
    assert ("cli.web.table_screen", "cli.seat.styled") in edges


OUTSIDE = ("rbcl", "cryptography", "msgpack")
"""The libraries the core's primitives come from on CPython: only :mod:`p2p10.primitives`
imports them, so that the core runs wherever that one module's names can be given (a phone's
page gives them from libsodium.js)."""


def test_only_the_primitives_module_imports_the_cores_libraries() -> None:
    sources = module_sources()
    core = {m: s for m, s in sources.items() if _under(m, "p2p10") and m != "p2p10.primitives"}
    assert crossings(core, {"p2p10": OUTSIDE}) == []
    seam = crossings({"p2p10.primitives": sources["p2p10.primitives"]}, {"p2p10": OUTSIDE})
    assert {line.split(" imports ")[1].split(".")[0] for line in seam} == set(OUTSIDE)


def test_the_core_has_no_import_cycle() -> None:
    assert cycles(within("p2p10", import_graph(module_sources()))) == []


def test_the_graph_sees_every_package_and_the_core_below_the_rest() -> None:
    edges = import_graph(module_sources())
    sources = {e.source for e in edges}
    assert {"p2p10.bots", "p2p10.moves", "protocol.lan", "cli.main", "cli.table.play"} <= sources
    assert any(e.source == "p2p10.moves" and e.target == "p2p10.measure" for e in edges)
    assert any(e.source == "cli.main" and e.target == "protocol" for e in edges)


# ------------------------------------------------------------- the checks catch what they must

FAKE = {
    "p2p10": "",
    "p2p10.a": "from p2p10.b import thing\n",
    "p2p10.b": "def late():\n    from . import a\n",
    "p2p10.c": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from protocol.x import X\n",
    "p2p10.d": "import importlib\nimportlib.import_module('cli.y')\n",
    "p2p10.e": "import p2p10.a\n",
    "protocol": "",
    "protocol.x": "from p2p10 import a\nfrom p2p10.c import *\n",
    "cli": "",
    "cli.y": "from protocol import x\n",
    "cli.web": "",
    "cli.web.z": "from ..y import thing\n",
}


def test_a_lazy_import_still_closes_a_circle() -> None:
    assert cycles(within("p2p10", import_graph(FAKE))) == [["p2p10.a", "p2p10.b"]]
    # and an arrow up closes one across the layers, as it must
    assert ["p2p10.c", "protocol.x"] in cycles(import_graph(FAKE))


def test_an_import_for_types_only_or_by_name_is_still_an_arrow_up() -> None:
    assert arrows_up(import_graph(FAKE)) == ["p2p10.c (line 3) imports protocol.x",
                                             "p2p10.d (line 2) imports cli.y"]


def test_a_front_end_reaching_into_the_other_or_a_model_into_a_terminal_is_reported() -> None:
    fake = {
        "cli": "", "cli.seat": "", "cli.table": "", "cli.web": "",
        "cli.seat.m": "from prompt_toolkit.layout import Window\n",
        "cli.seat.n": "def late():\n    from cli.web.w import page\n",
        "cli.table.t": "from cli.seat import m\nimport prompt_toolkit\n",
        "cli.web.w": "from cli.seat.m import Model\nfrom ..table import t\n",
    }
    assert crossings(fake) == ["cli.seat.m (line 1) imports prompt_toolkit.layout.Window",
                               "cli.seat.n (line 2) imports cli.web.w",
                               "cli.web.w (line 2) imports cli.table.t"]


def test_names_resolve_to_the_module_that_defines_them() -> None:
    edges = {(e.source, e.target) for e in import_graph(FAKE)}
    assert ("protocol.x", "p2p10.a") in edges  # a submodule, not the package p2p10
    assert ("protocol.x", "p2p10.c") in edges
    assert ("p2p10.a", "p2p10.b") in edges  # p2p10.b.thing is a name in p2p10.b
    assert ("p2p10.e", "p2p10.a") in edges
    assert ("cli.web.z", "cli.y") in edges  # relative, one package up


# ------------------------------------------------------------- the command line's entries

def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, check=False,
                          timeout=60, cwd=ROOT)


def test_python_m_cli_runs_the_command() -> None:
    done = _run("-m", "cli", "--version")
    assert (done.returncode, done.stdout.strip()) == (0, f"p2p10 {__version__}")


def test_python_m_p2p10_runs_the_installed_command_without_naming_it() -> None:
    # The console script it finds in the metadata is the front end's, named in pyproject only.
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts == {"p2p10": "cli.main:main"}
    done = _run("-m", "p2p10", "--version")
    assert (done.returncode, done.stdout.strip()) == (0, f"p2p10 {__version__}")


def test_python_m_p2p10_says_how_to_run_the_command_where_it_is_not_installed(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import p2p10.__main__ as entry

    def not_installed(name: str) -> None:
        raise PackageNotFoundError(name)

    monkeypatch.setattr(entry, "distribution", not_installed)
    monkeypatch.setenv("LANGUAGE", "de")
    try:
        assert entry.main() == 2
    finally:
        set_language("en")
    assert capsys.readouterr().err.startswith("p2p10 ist hier nicht installiert: führe 'python -m cli'")
