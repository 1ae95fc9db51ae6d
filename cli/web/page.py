"""One HTML document from the package's static files, with its Content-Security-Policy.

Every page of the browser front end, the live table served on 127.0.0.1 and the replay saved
as one file alike, is built here: the named scripts and styles from ``cli/web/static/`` are
inlined into one ``<script>`` and one ``<style>``, and the policy allows exactly those two
texts by their SHA-256, so nothing else can run or style the page (no other script, no
``style=""`` attribute, no request anywhere unless ``connect`` allows the page's own server).

This module imports no aiohttp: the offline commands (``replay --html``, ``stats --html``)
build their pages with it without loading the web server.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from cli import UsageError
from p2p10.i18n import _

DATA_ID = "p2p10-data"


@dataclass(frozen=True, slots=True)
class Page:
    """A whole HTML document and the Content-Security-Policy it needs."""

    html: str  # the whole document
    csp: str  # the Content-Security-Policy value (also in a <meta http-equiv> in the html)


def static(name: str) -> str:
    """The text of ``cli/web/static/NAME`` as shipped in the package."""
    return files("cli.web").joinpath("static", name).read_text(encoding="utf-8")


def _digest(text: str) -> str:
    """The CSP source expression that allows exactly the inline text ``text``."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


def data_json(data: object) -> str:
    """``data`` as JSON that is safe inside a ``<script>`` element: every ``<`` is written
    ``\\u003c`` (still the same JSON value), so no ``</script>`` or ``<!--`` can end the
    element early; ``>`` and ``&`` likewise, for good measure."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def csp(script: str, style: str, connect: bool, worker: bool = False) -> str:
    """The policy for a page whose only script is ``script`` and only style ``style`` (and,
    with ``worker``, Web Workers from its own server and a video from a ``data:`` address: a
    phone's page, whose seat is played by the core in a worker, and which keeps the screen on
    with a silent video where the browser has no wake lock)."""
    return "; ".join([
        "default-src 'none'",
        f"script-src {_digest(script)}",
        f"style-src {_digest(style)}",
        "img-src data:",
        "connect-src 'self'" if connect else "connect-src 'none'",
        *(["worker-src 'self'", "media-src data:"] if worker else []),
        "base-uri 'none'",
        "form-action 'none'",
    ])


def page(title: str, lang: str, scripts: Sequence[str], styles: Sequence[str], body: str = "",
         data: object = None, connect: bool = False, worker: bool = False) -> Page:
    """The document titled ``title`` in language ``lang``: the static ``scripts`` and ``styles``
    inlined in that order, ``body`` (trusted HTML) as its body, ``data`` embedded as JSON in
    ``<script type="application/json" id="p2p10-data">`` for the script to read, and a policy
    that lets the page reach its own server only when ``connect`` is true (and start a Web
    Worker from it with ``worker``)."""
    script = "\n".join(static(name) for name in scripts)
    style = "\n".join(static(name) for name in styles)
    policy = csp(script, style, connect, worker)
    # The data element is not run (its type is not a script type), so the policy need not
    # allow it; it sits before the script so that the script finds it when it runs.
    parts = [
        "<!DOCTYPE html>",
        f'<html lang="{html.escape(lang)}">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{html.escape(policy)}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<link rel="icon" href="data:,">',
        f"<title>{html.escape(title)}</title>",
        f"<style>{style}</style>",
        "</head>",
        "<body>",
        body,
        f'<script type="application/json" id="{DATA_ID}">{data_json(data)}</script>',
        f"<script>{script}</script>",
        "</body>",
        "</html>",
    ]
    return Page("\n".join(parts) + "\n", policy)


def write_page(built: Page, output: Path) -> str:
    """Write ``built``'s document to ``output`` and say so, in a line for the user; a file that
    cannot be written is a :class:`~cli.UsageError` naming it and why."""
    try:
        output.write_text(built.html, encoding="utf-8")
    except OSError as err:
        raise UsageError(_("-o {path}: cannot write the page there: {reason}").format(
            path=output, reason=err.strerror)) from None
    return _("Wrote {path} ({size} KB): open it in a browser.").format(
        path=output, size=(len(built.html.encode()) + 1023) // 1024)
