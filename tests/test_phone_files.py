"""What a phone's page is served: the files, their types, and the code its Python runs.

The page's Python (Pyodide) has the standard library, the core, the modules
``cli.web.phone_files.PAGE_MODULES`` lists and msgpack's pure-Python modules, nothing else: every
module in the archive it is served must import only what is in the archive or in the standard
library (checked here from the sources, lazy imports included, rather than found missing in a
phone's page in the middle of a game)."""

from __future__ import annotations

import gzip
import io
import sys
import zipfile
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from cli.web.phone_files import CORE, PHONE_CSP, PhoneFiles, core_members
from tests.test_layers import _known, imports_of, module_sources

# Imports the archive's modules make that the page does without, each with why.
ALLOWED_ELSEWHERE = {
    # the CPython backend of the core's primitives: under sys.platform "emscripten" the page's
    # own backend (p2p10/page_primitives.py) is imported instead
    ("p2p10.primitives", "rbcl"), ("p2p10.primitives", "cryptography"),
    # registered by the page's worker before the core imports it (cli/web/static/phone/)
    ("p2p10.page_primitives", "p2p10_sodium"),
    # the translators' tool (python -m p2p10.i18n extract, compile), never the game's
    ("p2p10.i18n", "babel"),
}


def _module(name: str) -> str:
    parts = name.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_every_import_of_the_pages_python_is_in_its_archive_or_the_standard_library() -> None:
    ours = module_sources()  # every module of the three packages, to resolve names to modules
    members = {name: content for name, content in core_members() if name.endswith(".py")}
    modules = {_module(name): (name, content) for name, content in members.items()}
    missing = []
    for module, (name, content) in sorted(modules.items()):
        if module.startswith("msgpack"):
            continue  # (vendored byte for byte: vendor.json; it imports the standard library only)
        package = name.endswith("__init__.py")
        for found in imports_of(module, content.decode("utf-8"), package):
            top = found.target.split(".")[0]
            if top in sys.stdlib_module_names or top == "__future__" or (module, top) in ALLOWED_ELSEWHERE:
                continue
            # one of ours: the module that defines the name must be in the archive
            defined_in = _known(found.target, ours)
            if defined_in not in modules and not (top == "msgpack" and "msgpack" in modules):
                missing.append(f"{module} (line {found.line}) imports {found.target}")
    assert missing == []


def test_the_archive_is_the_same_bytes_twice_and_holds_the_core() -> None:
    first, second = PhoneFiles().files[f"/phone/{CORE}"], PhoneFiles().files[f"/phone/{CORE}"]
    assert first.body == second.body and first.etag == second.etag
    names = zipfile.ZipFile(io.BytesIO(first.body)).namelist()
    assert "p2p10/peer.py" in names and "p2p10/page_primitives.py" in names and "msgpack/fallback.py" in names
    assert "cli/web/page_seat.py" in names and not any(n.startswith(("cli/table/", "tests/")) for n in names)


@pytest.fixture
async def client() -> TestClient:  # type: ignore[misc]
    app = web.Application()
    PhoneFiles().add_routes(app)
    async with TestClient(TestServer(app, host="127.0.0.1")) as served:
        yield served


async def test_each_file_is_served_with_its_type_its_etag_and_the_policy(client: TestClient) -> None:
    for address, kind in (("/vendor/pyodide/pyodide.asm.wasm", "application/wasm"),
                          ("/phone/core-worker.mjs", "text/javascript"),
                          (f"/phone/{CORE}", "application/zip")):
        response = await client.get(address)
        assert response.status == 200 and response.content_type == kind
        assert response.headers["Content-Security-Policy"] == PHONE_CSP
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        again = await client.get(address, headers={"If-None-Match": response.headers["ETag"]})
        assert again.status == 304 and await again.read() == b""


@pytest.mark.parametrize("address", ["/vendor/pyodide/LICENSE", "/vendor/../../pyproject.toml",
                                     "/phone/../page.py", "/vendor/msgpack/msgpack/fallback.py", "/phone/"])
async def test_nothing_but_the_listed_files_is_served(client: TestClient, address: str) -> None:
    response = await client.get(address)
    assert response.status == 404


async def test_a_browser_that_accepts_gzip_gets_the_same_bytes_compressed(client: TestClient) -> None:
    address = "/vendor/libsodium/libsodium-sumo.mjs"
    plain = await client.get(address, headers={"Accept-Encoding": "identity"})
    body = await plain.read()
    raw = await client.get(address, headers={"Accept-Encoding": "gzip, deflate"}, auto_decompress=False)
    squeezed = await raw.read()
    assert raw.headers["Content-Encoding"] == "gzip" and "Content-Encoding" not in plain.headers
    assert gzip.decompress(squeezed) == body and len(squeezed) < len(body) // 2
    assert raw.headers["ETag"] != plain.headers["ETag"]  # one ETag per form: a cache never mixes them
    etag = raw.headers["ETag"]
    again = await client.get(address, headers={"Accept-Encoding": "gzip", "If-None-Match": etag})
    assert again.status == 304
    archive = await client.get(f"/phone/{CORE}", headers={"Accept-Encoding": "gzip"}, auto_decompress=False)
    assert "Content-Encoding" not in archive.headers  # a zip is compressed already


def test_every_file_a_page_is_served_ships_in_the_wheel() -> None:
    """An installed p2p10 serves what its wheel holds: every file under cli/web/static/ (but a
    __pycache__) matches one of the package-data globs, as setuptools matches them."""
    import glob
    import tomllib

    root = Path(__file__).resolve().parent.parent
    web = root / "cli" / "web"
    patterns = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))[
        "tool"]["setuptools"]["package-data"]["cli.web"]
    matched = {Path(found) for pattern in patterns for found in glob.glob(str(web / pattern), recursive=True)}
    files = {path for path in (web / "static").rglob("*")
             if path.is_file() and "__pycache__" not in path.parts}
    assert sorted(str(p.relative_to(web)) for p in files - matched) == []
