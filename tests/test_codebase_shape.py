"""The codebase's shape (issue 28): no module over 600 lines, no function over 20 in cyclomatic
complexity, bar the solver's inner loops that say why.

Complexity is radon's (McCabe's count with each boolean operator a branch, as the issue
measured it); a block over the limit is allowed only with a comment ``# Complexity: ...`` in
the comment block right above its ``def``, saying why speed needs it whole. The solver's two
such loops are cross-checked against an exhaustive search in tests/test_solver.py.
"""

from __future__ import annotations

from pathlib import Path

from radon.complexity import cc_visit

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("p2p10", "protocol", "cli")
MOST_LINES = 600
MOST_COMPLEXITY = 20
WHY = "# Complexity: "


def modules() -> list[Path]:
    """Every Python module of the three packages (not the files vendored from other projects
    under cli/web/static/vendor/, which vendor.json pins byte for byte)."""
    vendored = ROOT / "cli" / "web" / "static" / "vendor"
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py")
                  if not p.is_relative_to(vendored))


def too_complex(source: str) -> list[tuple[str, int, int, bool]]:
    """(name, line, complexity, explained) of every block of ``source`` over the limit."""
    lines = source.splitlines()
    out = []
    for block in cc_visit(source):
        for b in [block, *getattr(block, "methods", [])]:
            if b.complexity > MOST_COMPLEXITY:
                # The comment block right above the def (or its decorators) must say why.
                at = b.lineno - 2
                while at >= 0 and lines[at].lstrip().startswith("@"):
                    at -= 1
                block = []
                while at >= 0 and lines[at].lstrip().startswith("#"):
                    block.append(lines[at].strip())
                    at -= 1
                out.append((b.fullname, b.lineno, b.complexity, any(c.startswith(WHY) for c in block)))
    return out


def test_no_module_is_over_600_lines() -> None:
    long = {str(p.relative_to(ROOT)): n for p in modules()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MOST_LINES}
    assert long == {}


def test_no_function_is_over_20_in_complexity_unless_it_says_why() -> None:
    unexplained = {f"{p.relative_to(ROOT)}:{line} {name}": cc for p in modules()
                   for name, line, cc, explained in too_complex(p.read_text(encoding="utf-8"))
                   if not explained}
    assert unexplained == {}


def test_only_the_solvers_inner_loops_are_excused() -> None:
    excused = {name for p in modules()
               for name, _, _, explained in too_complex(p.read_text(encoding="utf-8")) if explained}
    assert excused <= {"_best_two_sets", "_best_set_and_run"}


def test_the_measure_finds_a_complex_function_and_its_reason() -> None:
    branches = "\n".join(f"    if x == {i} and y:\n        return {i}" for i in range(12))
    plain = f"def f(x, y):\n{branches}\n    return -1\n"
    assert [(n, c, e) for n, _, c, e in too_complex(plain)] == [("f", 25, False)]
    assert [e for *_, e in too_complex(f"{WHY}speed\n" + plain)] == [True]
