"""ARCHITECTURE.md stays true: every path and every module, class, function or method it names
in a code span exists, and the README points to it.

A span with a slash is a path from the top of the repository (a ``*`` in it must match a file);
a dotted name that starts with ``p2p10``, ``protocol`` or ``cli`` is a module, then names defined
in it: a top-level name, then a name in that class. The sources are parsed, not imported."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAP = ROOT / "ARCHITECTURE.md"
SPAN = re.compile(r"`([^`\n]+)`")
PATH = re.compile(r"[\w.*-]*/[\w./*-]*")
DOTTED = re.compile(r"(p2p10|protocol|cli)(\.\w+)*")


def module_file(parts: list[str], root: Path) -> Path | None:
    """The source of the module ``parts`` name, or None when there is none."""
    base = root.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@cache
def _parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _defined(body: list[ast.stmt]) -> dict[str, ast.stmt]:
    """The names a block of statements binds (defs, classes, assignments, imports), also inside
    its ``if`` and ``try`` blocks, each with the statement that binds it."""
    names: dict[str, ast.stmt] = {}
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names[node.name] = node
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    names[target.id] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                names[(alias.asname or alias.name).split(".")[0]] = node
        elif isinstance(node, ast.If | ast.Try):
            blocks = [node.body, node.orelse]
            if isinstance(node, ast.Try):
                blocks += [node.finalbody, *(handler.body for handler in node.handlers)]
            for block in blocks:
                names.update(_defined(block))
    return names


def dotted_problem(name: str, root: Path = ROOT) -> str | None:
    """Why the dotted ``name`` does not exist, or None when it does."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        source = module_file(parts[:cut], root)
        if source is not None:
            break
    else:
        return f"{name}: no such module"
    body: list[ast.stmt] = _parsed(source).body
    for depth, attr in enumerate(parts[cut:]):
        found = _defined(body).get(attr)
        if found is None:
            where = ".".join(parts[:cut + depth])
            return f"{name}: {where} defines no {attr}"
        if isinstance(found, ast.ClassDef):
            body = found.body
        elif depth + 1 < len(parts) - cut:
            return f"{name}: {attr} is not a class"
    return None


def path_problem(text: str, root: Path = ROOT) -> str | None:
    """Why the path ``text`` names nothing in the repository, or None when it does."""
    if "*" in text:
        return None if any(root.glob(text)) else f"{text}: matches no file"
    return None if (root / text).exists() else f"{text}: no such file or folder"


def references(text: str) -> tuple[list[str], list[str]]:
    """The paths and the dotted names of ``text``'s code spans."""
    paths, names = [], []
    for span in SPAN.findall(text):
        span = span.strip()
        if PATH.fullmatch(span):
            paths.append(span)
        elif DOTTED.fullmatch(span):
            names.append(span)
    return paths, names


def problems(text: str, root: Path = ROOT) -> list[str]:
    """Every reference of ``text`` that names nothing."""
    paths, names = references(text)
    found = [path_problem(p, root) for p in paths] + [dotted_problem(n, root) for n in names]
    return [problem for problem in found if problem is not None]


def test_every_path_and_name_in_the_map_exists() -> None:
    assert problems(MAP.read_text(encoding="utf-8")) == []


def test_the_map_names_enough_to_be_checked_and_fits_a_page() -> None:
    text = MAP.read_text(encoding="utf-8")
    paths, names = references(text)
    assert len(paths) >= 30 and len(names) >= 30, (len(paths), len(names))
    assert {"p2p10.peer.Peer.receive", "p2p10.table.TableState.apply",
            "cli.web.table_screen.TableScreen.snapshot"} <= set(names)
    assert len(text.splitlines()) <= 100


def test_the_readme_points_to_the_map() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    layout = readme[readme.index("## Layout"):]
    assert "(ARCHITECTURE.md)" in layout


def test_a_name_or_a_path_that_is_not_there_is_reported() -> None:
    text = ("`p2p10.table.TableState.apply` `p2p10.table.TableState.nowhere` `p2p10.nowhere` "
            "`p2p10.peer.Peer.receive.deeper` `cli/web/static/*.js` `cli/web/static/*.wasm` "
            "`p2p10/crypto/` `p2p10/gone.py` `python -m cli` `_()`")
    assert problems(text) == [
        "cli/web/static/*.wasm: matches no file",
        "p2p10/gone.py: no such file or folder",
        "p2p10.table.TableState.nowhere: p2p10.table.TableState defines no nowhere",
        "p2p10.nowhere: p2p10 defines no nowhere",
        "p2p10.peer.Peer.receive.deeper: receive is not a class",
    ]
