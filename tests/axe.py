"""axe-core, the standard accessibility engine, run on the page a selenium driver shows.

``axe_violations(driver)`` injects the vendored ``tests/vendor/axe-core/axe.min.js`` (fetched by
``scripts/vendor_js.py`` from the npm registry, checked against its integrity hash: see
``vendor.json``) into the current page, runs ``axe.run`` on it and returns its violations of the
given impacts as plain, trimmed dicts; ``describe(violations)`` says them for an assertion::

    found = axe_violations(chrome)
    assert found == [], describe(found)

The pages under test carry a strict Content-Security-Policy (a hash for their one script, no
``'unsafe-eval'``). WebDriver's own script execution is not subject to it, and axe-core needs
no ``eval``, so the injection works as it is; tests/test_vendor.py checks that on a page with
such a policy. Were a future Chromium to apply the policy, ``bypass_csp(driver)`` (DevTools'
``Page.setBypassCSP``) before loading the page is the way round.

The rules run are those tagged WCAG 2.0/2.1 level A and AA, and axe's best practices: with the
default impacts (serious, critical) the best practices add only problems a screen-reader or
keyboard user meets (a dialog or a tree item with no name, a positive tabindex, a control
labelled only by its title), while their many moderate and minor rules (landmarks, heading
order) are left out by the impact filter. ``tags`` narrows them (e.g. ``WCAG``, without the
best practices).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
WCAG = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")
TAGS = (*WCAG, "best-practice")
IMPACTS = ("serious", "critical")
NODES = 10  # the elements kept of each violation (its count says how many there were)
TEXT = 300  # characters kept of an element's html and of its failure summary
PATIENCE = 120  # s: how long axe.run may take on one page

# Runs axe on arguments[0] (a CSS selector, an include/exclude object, or null for the whole
# document) with the options in arguments[1], and hands back its violations, trimmed in the
# page so that a page with hundreds of failing elements does not send them all.
RUN = """
var done = arguments[arguments.length - 1];
var context = arguments[0] || document, options = arguments[1], most = arguments[2], text = arguments[3];
function cut(s) { s = s || ''; return s.length > text ? s.slice(0, text - 1) + '\u2026' : s; }
window.axe.run(context, options).then(function (results) {
  done({violations: results.violations.map(function (v) {
    return {id: v.id, impact: v.impact, help: v.help, helpUrl: v.helpUrl, tags: v.tags,
            count: v.nodes.length,
            nodes: v.nodes.slice(0, most).map(function (n) {
              return {target: n.target, impact: n.impact, html: cut(n.html),
                      failureSummary: cut(n.failureSummary)};
            })};
  })});
}, function (error) { done({error: String(error && error.stack || error)}); });
"""


@cache
def source() -> str:
    """The vendored axe.min.js (run ``python scripts/vendor_js.py`` when it is missing)."""
    if not AXE.is_file():
        raise FileNotFoundError(f"{AXE} is missing: run `python scripts/vendor_js.py` to vendor axe-core")
    return AXE.read_text(encoding="utf-8")


def bypass_csp(driver: Any) -> None:
    """Have Chromium ignore the pages' Content-Security-Policy from the next page loaded on
    (not needed for :func:`inject` today: WebDriver's scripts are not subject to it)."""
    driver.execute_cdp_cmd("Page.enable", {})
    driver.execute_cdp_cmd("Page.setBypassCSP", {"enabled": True})


def inject(driver: Any) -> str:
    """Put axe-core into the current page (once per page) and return its version."""
    version: str | None = driver.execute_script("return window.axe ? window.axe.version : null")
    if version is None:
        driver.execute_script(source())
        version = driver.execute_script("return window.axe ? window.axe.version : null")
    if version is None:
        raise AssertionError("axe-core did not load into the page (was its script blocked? "
                             "tests.axe.bypass_csp(driver) before loading the page lifts the page's CSP)")
    return version


def _target(target: Sequence[Any]) -> str:
    """axe's target (a selector per frame, a list of selectors through shadow roots) as one string."""
    return " | ".join(" >>> ".join(part) if isinstance(part, list) else str(part) for part in target)


def axe_violations(driver: Any, impacts: Iterable[str] | None = IMPACTS, context: Any = None,
                   tags: Sequence[str] = TAGS) -> list[dict[str, Any]]:
    """The violations axe-core finds on the page the driver shows, of the given ``impacts``
    (None: all of them), each ``{id, impact, help, helpUrl, tags, count, nodes}`` with at most
    ``NODES`` nodes ``{target, impact, html, failureSummary}``, its target a CSS selector.

    ``context`` is axe's: None for the whole document, a CSS selector, or ``{"include": [...],
    "exclude": [...]}``; ``tags`` the rule tags to run (default: WCAG 2.1 A/AA and best practices).
    """
    inject(driver)
    options = {"runOnly": {"type": "tag", "values": list(tags)}, "resultTypes": ["violations"]}
    before = driver.timeouts.script
    driver.set_script_timeout(PATIENCE)
    try:
        result: dict[str, Any] = driver.execute_async_script(RUN, context, options, NODES, TEXT)
    finally:
        driver.set_script_timeout(before)
    if "error" in result:
        raise AssertionError(f"axe.run failed: {result['error']}")
    wanted = None if impacts is None else set(impacts)
    out = []
    for violation in result["violations"]:
        if wanted is not None and violation["impact"] not in wanted:
            continue
        for node in violation["nodes"]:
            node["target"] = _target(node["target"])
        out.append(violation)
    return out


def describe(violations: Sequence[dict[str, Any]]) -> str:
    """The violations for a person reading a failed assertion: one paragraph each, its rule,
    impact, count and help, then each element's selector and what to fix."""
    if not violations:
        return "no accessibility violation"
    lines = [f"{len(violations)} accessibility violation(s) (axe-core):"]
    for v in violations:
        lines.append(f"- {v['id']} ({v['impact']}, {v['count']} element(s)): {v['help']} <{v['helpUrl']}>")
        for node in v["nodes"]:
            summary = "; ".join(" ".join(line.split()) for line in node["failureSummary"].splitlines()
                                if line.strip())
            lines.append(f"    {node['target']}: {summary}")
        if v["count"] > len(v["nodes"]):
            lines.append(f"    ... and {v['count'] - len(v['nodes'])} more")
    return "\n".join(lines)
