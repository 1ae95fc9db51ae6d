"""The files a phone's page runs, as a machine at the table serves them: our own pure core
(:mod:`p2p10`, zipped), the page's scripts (``cli/web/static/phone/``) and the vendored
libraries (``cli/web/static/vendor/``: Pyodide, libsodium in WebAssembly, msgpack's pure-Python
modules; ``vendor.json``).

Only these files are served, each by a fixed address known when the server starts (no path
from a request ever reaches the file system), with the type a browser needs to run it (a
module script's ``.mjs`` as JavaScript, ``.wasm`` as WebAssembly), gzip-compressed where the
browser accepts it, and an ETag of its content, so that a phone that comes back reads them from
its cache. None of them holds a secret: they are the code every seat runs, the same for all.

The page runs WebAssembly compiled from the files above, which a Content-Security-Policy allows
only with ``'wasm-unsafe-eval'`` (:data:`PHONE_CSP`); nothing is evaluated from a string.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import io
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

from cli.web.page import Page, page

ROOT = Path(__file__).resolve().parent.parent.parent  # where p2p10/, protocol/ and cli/ are
STATIC = Path(__file__).resolve().parent / "static"
VENDOR = STATIC / "vendor"
CORE = "core.zip"
"""The core's archive, at ``/phone/core.zip``: unpacked into the page's Python, on its path."""

TYPES = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
         ".zip": "application/zip", ".json": "application/json", ".html": "text/html",
         ".css": "text/css"}
"""The content type of each kind of file served (any other is served as plain bytes)."""

PHONE_CSP = ("default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self'; "
             "connect-src 'self'; style-src 'self'; img-src 'self' data:; base-uri 'none'; "
             "form-action 'none'; frame-ancestors 'none'")
"""The phone page's Content-Security-Policy: its own scripts and WebAssembly, nothing else."""

# The vendored files a page loads (licences stay in the repository and the wheel, unserved).
VENDORED = ("pyodide/pyodide.mjs", "pyodide/pyodide.asm.mjs", "pyodide/pyodide.asm.wasm",
            "pyodide/python_stdlib.zip", "pyodide/pyodide-lock.json", "libsodium/libsodium-sumo.mjs")


def _zip(members: Iterable[tuple[str, bytes]]) -> bytes:
    """A zip of ``(name, content)``, the same bytes for the same members (fixed dates and modes,
    in the order given): its ETag changes only with the code."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for name, content in members:
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, content)
    return out.getvalue()


PAGE_MODULES = ("cli/__init__.py", "cli/seat/__init__.py", "cli/seat/board.py", "cli/seat/help.py",
                "cli/seat/moves.py", "cli/seat/play.py", "cli/seat/prompts.py", "cli/seat/styled.py",
                "cli/web/__init__.py", "cli/web/table_screen.py",
                "cli/web/charts.py", "cli/web/page_seat.py", "protocol/__init__.py", "protocol/checkpoint.py",
                "protocol/local.py", "protocol/memory.py", "protocol/saved_index.py",
                "protocol/seat_screen.py", "protocol/storage.py")
"""Besides the core, what the page's seat runs: the seat model and its drawing as JSON (what the
machine's own browser table runs), and the table against bots in the page (paths under the
repository's root; ``tests/test_phone_files.py`` checks that whatever they import is here too)."""


def core_members(extra: Iterable[str] = ()) -> list[tuple[str, bytes]]:
    """What the page's Python needs: every module of :mod:`p2p10` (and its compiled
    translations, where the install has them), the modules of :data:`PAGE_MODULES`, msgpack's
    pure-Python modules as ``msgpack/``, and ``extra`` files by their path under the repository
    (the tests add their own)."""
    members: list[tuple[str, bytes]] = []
    core = ROOT / "p2p10"
    for path in sorted(core.rglob("*")):
        if path.is_file() and path.suffix in (".py", ".mo") and "__pycache__" not in path.parts:
            members.append((path.relative_to(ROOT).as_posix(), path.read_bytes()))
    msgpack = VENDOR / "msgpack" / "msgpack"
    members += [(f"msgpack/{path.name}", path.read_bytes()) for path in sorted(msgpack.glob("*.py"))]
    for pattern in PAGE_MODULES:
        members += [(path.relative_to(ROOT).as_posix(), path.read_bytes())
                    for path in sorted(ROOT.glob(pattern))]
    have = {name for name, _content in members}
    members += [(name, (ROOT / name).read_bytes()) for name in extra if name not in have]
    return members


@dataclass(frozen=True, slots=True)
class Served:
    """One file as it is served: its bytes, its type, its ETag."""

    body: bytes
    content_type: str
    etag: str


GZIP_LEVEL = 6
SQUEEZED = (".mjs", ".js", ".wasm", ".json", ".html", ".css")
"""The kinds of file sent gzip-compressed to a browser that accepts it (the WebAssembly and the
scripts of Pyodide shrink to a third; an archive is compressed already)."""


class PhoneFiles:
    """The phone page's files by address (see the module docstring); :meth:`add_routes` puts
    them on an aiohttp application.

    A browser that accepts gzip gets the files of :data:`SQUEEZED` compressed (14.3 MB become
    6.9), each compressed once, in a thread, the first time it is asked for: the server's loop
    goes on meanwhile, and a server that no phone visits spends nothing on it."""

    def __init__(self, extra_core: Iterable[str] = ()) -> None:
        self.files: dict[str, Served] = {}
        self.sent = 0  # bytes of the bodies sent so far (for the figures of benchmarks/bench_page.py)
        self._squeezed: dict[str, asyncio.Task[bytes]] = {}
        for path in sorted((STATIC / "phone").glob("*")):
            if path.is_file():
                self._add(f"/phone/{path.name}", path.read_bytes(), path.suffix)
        for name in VENDORED:
            self._add(f"/vendor/{name}", (VENDOR / name).read_bytes(), Path(name).suffix)
        self._add(f"/phone/{CORE}", _zip(core_members(extra_core)), ".zip")

    def _add(self, address: str, body: bytes, suffix: str) -> None:
        etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        self.files[address] = Served(body, TYPES.get(suffix, "application/octet-stream"), etag)

    def add_routes(self, app: web.Application) -> None:
        """A GET route for each file, answered whole or, when the browser holds the same
        content already (``If-None-Match``), with 304."""
        for address in self.files:
            app.router.add_get(address, self._serve, allow_head=False)

    async def _serve(self, request: web.Request) -> web.StreamResponse:
        served = self.files[request.path]
        accepted = request.headers.get("Accept-Encoding", "")
        squeeze = Path(request.path).suffix in SQUEEZED and "gzip" in accepted
        etag = served.etag[:-1] + '-gz"' if squeeze else served.etag  # one ETag per form sent
        # The policy is the worker's own (a worker's script brings it): its WebAssembly only.
        headers = {"ETag": etag, "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff",
                   "Content-Security-Policy": PHONE_CSP, "Vary": "Accept-Encoding"}
        if request.headers.get("If-None-Match") == etag:
            return web.Response(status=304, headers=headers)
        body = served.body
        if squeeze:
            body = await self._compressed(request.path, served.body)
            headers["Content-Encoding"] = "gzip"
        self.sent += len(body)
        return web.Response(body=body, content_type=served.content_type, headers=headers)

    async def _compressed(self, address: str, body: bytes) -> bytes:
        """``body`` gzip-compressed, once for all the requests that ask for it."""
        task = self._squeezed.get(address)
        if task is None:
            task = self._squeezed[address] = asyncio.create_task(
                asyncio.to_thread(gzip.compress, body, GZIP_LEVEL, mtime=0))
        return await asyncio.shield(task)


def phone_page(settings: dict[str, object], lang: str) -> Page:
    """A phone's page: the table (``table.js``) drawn from the seat the page's own core plays
    (``phone/page.js`` starts it in a worker, with ``settings``: see
    :func:`cli.web.page_seat.start`)."""
    from cli.web.table_screen import page_words

    scripts = ["cards.js", "vendor/nosleep/NoSleep.min.js", "phone/page.js", "start.js", "table.js"]
    return page("p2p10", lang, scripts, ["base.css", "table.css"], body='<div id="app"></div>',
                data={"page": "table", "words": page_words(), "phone": settings}, connect=True, worker=True)
