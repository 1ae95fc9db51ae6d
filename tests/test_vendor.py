"""The vendored libraries (scripts/vendor_js.py, vendor.json) and the axe-core helper (tests/axe.py).

The files vendored match the sha256 the manifest records, and a changed byte fails the check,
naming the file; the integrity check refuses a tarball whose hash differs and a path that would
leave the tree; a whole fetch runs against a registry of the test's own on the loopback (no
network). A PyPI entry's source distribution is refused unless it matches both the index's sha256
and the pinned one; a licence taken from another package is taken only from one that declares
that licence; the phone's libraries (Pyodide, libsodium, msgpack) are pinned as chosen, ship in
the wheel, and the vendored msgpack imports without its C extension. These run offline: the fetch
function is replaced by one serving the test's own archives. In Chromium, axe-core loads into a
page despite a strict Content-Security-Policy and finds an image without alt text and a button
without a name, and nothing on a clean page.
"""

from __future__ import annotations

import base64
import glob
import hashlib
import importlib.util
import io
import json
import shutil
import subprocess
import sys
import tarfile
import threading
import tomllib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.axe import axe_violations, describe
from tests.browser import chrome  # noqa: F401  (the fixture, taken by name)

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "vendor_js.py"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("vendor_js", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


vendor_js = load_script()


def run_check(root: Path | None = None) -> subprocess.CompletedProcess[str]:
    args = [sys.executable, str(SCRIPT), "--check"] + (["--root", str(root)] if root else [])
    return subprocess.run(args, capture_output=True, text=True, timeout=120)


def sri(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


# --- the check ---------------------------------------------------------------------------------

def test_the_vendored_files_match_the_manifest() -> None:
    run = run_check()
    assert run.returncode == 0, run.stdout + run.stderr
    manifest = json.loads((ROOT / "vendor.json").read_text(encoding="utf-8"))
    axe = next(e for e in manifest["packages"] if e["package"] == "axe-core")
    assert set(axe["files"].values()) == set(axe["sha256"])
    assert any("LICENSE" in path for path in axe["files"].values())


def copy_tree(to: Path) -> None:
    """vendor.json and every file it lists, copied under ``to``."""
    shutil.copy(ROOT / "vendor.json", to / "vendor.json")
    manifest = json.loads((ROOT / "vendor.json").read_text(encoding="utf-8"))
    for entry in manifest["packages"]:
        for path in vendor_js.written(entry):
            (to / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / path, to / path)


def test_a_changed_byte_fails_the_check_naming_the_file(tmp_path: Path) -> None:
    copy_tree(tmp_path)
    assert run_check(tmp_path).returncode == 0
    changed = tmp_path / "tests/vendor/axe-core/axe.min.js"
    data = bytearray(changed.read_bytes())
    data[len(data) // 2] ^= 0x01
    changed.write_bytes(bytes(data))
    run = run_check(tmp_path)
    assert run.returncode == 1
    assert "tests/vendor/axe-core/axe.min.js: sha256 mismatch" in run.stderr
    assert "LICENSE:" not in run.stderr  # the others still match


def test_a_missing_file_fails_the_check_naming_it(tmp_path: Path) -> None:
    copy_tree(tmp_path)
    (tmp_path / "tests/vendor/axe-core/LICENSE").unlink()
    run = run_check(tmp_path)
    assert run.returncode == 1
    assert "tests/vendor/axe-core/LICENSE: missing" in run.stderr


# --- integrity and paths -----------------------------------------------------------------------

def test_the_integrity_check_refuses_a_wrong_hash() -> None:
    data = b"the tarball"
    vendor_js.verify_integrity(data, sri(data), "pkg@1.0.0")  # the right one passes
    with pytest.raises(vendor_js.VendorError) as refused:
        vendor_js.verify_integrity(data + b"!", sri(data), "pkg@1.0.0")
    message = str(refused.value)
    assert "pkg@1.0.0" in message and sri(data) in message and sri(data + b"!") in message
    with pytest.raises(vendor_js.VendorError, match="no sha512"):  # a weak or no hash proves nothing
        vendor_js.verify_integrity(data, "sha1-" + base64.b64encode(hashlib.sha1(data).digest()).decode(),
                                   "pkg@1.0.0")
    with pytest.raises(vendor_js.VendorError):  # every strong digest listed must match
        vendor_js.verify_integrity(data, sri(data) + " sha256-" + base64.b64encode(b"x" * 32).decode(),
                                   "pkg@1.0.0")


@pytest.mark.parametrize("path", ["../evil.js", "/etc/passwd", "a/../../b", "", ".", "a\\..\\b", "C:x"])
def test_a_path_leaving_the_tree_is_refused(path: str, tmp_path: Path) -> None:
    with pytest.raises(vendor_js.VendorError, match="unsafe path"):
        vendor_js.target(tmp_path, path, "pkg@1.0.0")


# --- a whole fetch, from a registry of the test's own ------------------------------------------

def tarball(files: dict[str, bytes], prefix: str = "package/") -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(prefix + name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


@pytest.fixture
def registry() -> Iterator[dict[str, Any]]:
    """A registry on the loopback serving what ``served`` holds: ``{"/path": bytes}``; its
    address is ``served["url"]``."""
    served: dict[str, Any] = {}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = served.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    served["url"] = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        yield served
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def publish(served: dict[str, Any], data: bytes, integrity: str) -> None:
    served["/demo"] = json.dumps({"name": "demo", "versions": {"1.2.3": {"dist": {
        "integrity": integrity, "tarball": served["url"] + "demo/-/demo-1.2.3.tgz"}}}}).encode()
    served["/demo/-/demo-1.2.3.tgz"] = data


def entry(integrity: str) -> dict[str, Any]:
    return {"package": "demo", "version": "1.2.3", "integrity": integrity,
            "files": {"dist/demo.js": "vendor/demo/demo.js", "LICENSE": "vendor/demo/LICENSE"}}


def test_a_fetch_writes_the_listed_files_and_records_their_sha256(registry: dict[str, Any],
                                                                   tmp_path: Path) -> None:
    data = tarball({"dist/demo.js": b"var demo = 1;\n", "LICENSE": b"MIT\n", "README.md": b"not taken\n"})
    publish(registry, data, sri(data))
    pinned = entry(sri(data))
    vendor_js.vendor(tmp_path, pinned, registry["url"])
    assert (tmp_path / "vendor/demo/demo.js").read_bytes() == b"var demo = 1;\n"
    assert (tmp_path / "vendor/demo/LICENSE").read_bytes() == b"MIT\n"
    assert not (tmp_path / "vendor/demo/README.md").exists()
    assert pinned["sha256"]["vendor/demo/LICENSE"] == hashlib.sha256(b"MIT\n").hexdigest()
    assert vendor_js.check(tmp_path, {"packages": [pinned]}) == []


def test_a_fetch_refuses_a_tarball_unlike_its_integrity(registry: dict[str, Any], tmp_path: Path) -> None:
    data = tarball({"dist/demo.js": b"var demo = 1;\n", "LICENSE": b"MIT\n"})
    forged = tarball({"dist/demo.js": b"steal();\n", "LICENSE": b"MIT\n"})
    publish(registry, forged, sri(data))  # the registry's hash is right, its tarball is not
    with pytest.raises(vendor_js.VendorError, match=r"demo@1\.2\.3.*integrity mismatch"):
        vendor_js.vendor(tmp_path, entry(sri(data)), registry["url"])
    publish(registry, forged, sri(forged))  # the registry's hash is not the one pinned
    with pytest.raises(vendor_js.VendorError, match=r"demo@1\.2\.3: the registry's integrity differs"):
        vendor_js.vendor(tmp_path, entry(sri(data)), registry["url"])
    assert not (tmp_path / "vendor").exists()


def test_a_fetch_refuses_a_file_the_tarball_lacks_or_a_link(registry: dict[str, Any], tmp_path: Path) -> None:
    data = tarball({"dist/demo.js": b"var demo = 1;\n"})
    publish(registry, data, sri(data))
    with pytest.raises(vendor_js.VendorError, match="has no LICENSE"):
        vendor_js.vendor(tmp_path, entry(sri(data)), registry["url"])
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        link = tarfile.TarInfo("package/LICENSE")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        archive.addfile(link)
    publish(registry, out.getvalue(), sri(out.getvalue()))
    with pytest.raises(vendor_js.VendorError, match="not a regular file"):
        vendor_js.vendor(tmp_path, entry(sri(out.getvalue())), registry["url"])


# --- PyPI, licences from other packages: against a fetch function of the test's own ------------

REGISTRY = "https://registry.example/"
INDEX = "https://index.example/simple/"


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """What the faked fetch function serves, by address (nothing else is reachable)."""
    served: dict[str, bytes] = {}

    def get(url: str, accept: str | None = None) -> bytes:
        if url not in served:
            raise vendor_js.VendorError(f"cannot fetch {url}: HTTP Error 404")
        return served[url]

    monkeypatch.setattr(vendor_js, "get", get)
    return served


def npm_publish(served: dict[str, bytes], package: str, version: str, data: bytes, integrity: str) -> None:
    tgz = f"{REGISTRY}{package}/-/{package}-{version}.tgz"
    served[REGISTRY + package] = json.dumps({"name": package, "versions": {version: {"dist": {
        "integrity": integrity, "tarball": tgz}}}}).encode()
    served[tgz] = data


def pypi_publish(served: dict[str, bytes], project: str, filename: str, data: bytes, sha256: str) -> None:
    url = f"https://files.example/packages/ab/cd/{filename}"
    served[f"{INDEX}{project}/"] = json.dumps({"meta": {"api-version": "1.1"}, "name": project, "files": [
        {"filename": filename, "url": url, "hashes": {"sha256": sha256}}]}).encode()
    served[url] = data


def sdist_of(files: dict[str, bytes], license_: str = "Apache-2.0") -> bytes:
    """demo-py 2.0.1's source distribution: ``files`` and a PKG-INFO declaring ``license_``."""
    info = f"Metadata-Version: 2.4\nName: demo-py\nVersion: 2.0.1\nLicense-Expression: {license_}\n\n"
    return tarball({"PKG-INFO": info.encode(), **files}, prefix="demo_py-2.0.1/")


def pypi_entry(sha256: str) -> dict[str, Any]:
    return {"registry": "pypi", "package": "demo.py", "version": "2.0.1", "license": "Apache-2.0",
            "sdist": "demo_py-2.0.1.tar.gz", "sdist_sha256": sha256,
            "files": {"demo/__init__.py": "vendor/demo_py/demo/__init__.py",
                      "COPYING": "vendor/demo_py/COPYING"}}


def hexsum(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_a_pypi_sdist_is_vendored_from_its_folder(served: dict[str, bytes], tmp_path: Path) -> None:
    data = sdist_of({"demo/__init__.py": b"x = 1\n", "COPYING": b"Apache\n", "setup.py": b"not taken\n"})
    pypi_publish(served, "demo-py", "demo_py-2.0.1.tar.gz", data, hexsum(data))  # PEP 503's name
    pinned = pypi_entry(hexsum(data))
    vendor_js.vendor(tmp_path, pinned, REGISTRY, INDEX)
    assert (tmp_path / "vendor/demo_py/demo/__init__.py").read_bytes() == b"x = 1\n"
    assert (tmp_path / "vendor/demo_py/COPYING").read_bytes() == b"Apache\n"
    assert not (tmp_path / "vendor/demo_py/setup.py").exists()
    assert pinned["sha256"] == {"vendor/demo_py/demo/__init__.py": hexsum(b"x = 1\n"),
                                "vendor/demo_py/COPYING": hexsum(b"Apache\n")}
    assert vendor_js.check(tmp_path, {"packages": [pinned]}) == []


def test_a_pypi_sdist_unlike_its_sha256_is_refused(served: dict[str, bytes], tmp_path: Path) -> None:
    data = sdist_of({"demo/__init__.py": b"x = 1\n", "COPYING": b"Apache\n"})
    forged = sdist_of({"demo/__init__.py": b"steal()\n", "COPYING": b"Apache\n"})
    # The index's hash is the pinned one, its file is not what it hashes to.
    pypi_publish(served, "demo-py", "demo_py-2.0.1.tar.gz", forged, hexsum(data))
    with pytest.raises(vendor_js.VendorError,
                       match=r"demo\.py==2\.0\.1 \(index's sha256\): sha256 mismatch: expected "
                             + hexsum(data) + ", got " + hexsum(forged)):
        vendor_js.vendor(tmp_path, pypi_entry(hexsum(data)), REGISTRY, INDEX)
    # The index's hash (and file) are not the pinned ones.
    pypi_publish(served, "demo-py", "demo_py-2.0.1.tar.gz", forged, hexsum(forged))
    with pytest.raises(vendor_js.VendorError,
                       match=r"the index's sha256 of demo_py-2\.0\.1\.tar\.gz differs"):
        vendor_js.vendor(tmp_path, pypi_entry(hexsum(data)), REGISTRY, INDEX)
    with pytest.raises(vendor_js.VendorError, match="sha256 mismatch"):  # the pin checks the bytes too
        vendor_js.verify_sha256(forged, hexsum(data), "demo.py==2.0.1 (manifest's sha256)")
    with pytest.raises(vendor_js.VendorError, match="not a sha256"):
        vendor_js.verify_sha256(data, hexsum(data).upper(), "demo.py==2.0.1")
    with pytest.raises(vendor_js.VendorError, match="pins no sdist_sha256"):
        vendor_js.vendor(tmp_path, {**pypi_entry(""), "sdist_sha256": ""}, REGISTRY, INDEX)
    with pytest.raises(vendor_js.VendorError, match=r"is not <name>-2\.0\.1\.tar\.gz"):
        vendor_js.vendor(tmp_path, {**pypi_entry(hexsum(data)), "sdist": "demo_py-2.0.0.tar.gz"},
                         REGISTRY, INDEX)
    assert not (tmp_path / "vendor").exists()


def test_a_package_declaring_another_licence_is_refused(served: dict[str, bytes], tmp_path: Path) -> None:
    data = sdist_of({"demo/__init__.py": b"x = 1\n", "COPYING": b"MIT\n"}, license_="MIT")
    pypi_publish(served, "demo-py", "demo_py-2.0.1.tar.gz", data, hexsum(data))
    with pytest.raises(vendor_js.VendorError, match=r"licence is 'Apache-2\.0', the package declares 'MIT'"):
        vendor_js.vendor(tmp_path, pypi_entry(hexsum(data)), REGISTRY, INDEX)
    assert not (tmp_path / "vendor").exists()


def runtime(served: dict[str, bytes], licence: bytes, declared: str) -> dict[str, Any]:
    """An entry for a package with no licence file (as Pyodide's tarball has none) taking its
    licence's text from ``mpl-thing``, whose tarball holds ``licence`` and declares ``declared``;
    both tarballs published."""
    runtime_tgz = tarball({"package.json": b'{"license": "MPL-2.0"}', "runtime.mjs": b"export {};\n"})
    donor_tgz = tarball({"package.json": json.dumps({"license": declared}).encode(), "LICENSE": licence})
    npm_publish(served, "runtime", "1.0.0", runtime_tgz, sri(runtime_tgz))
    npm_publish(served, "mpl-thing", "4.0.0", donor_tgz, sri(donor_tgz))
    return {"package": "runtime", "version": "1.0.0", "integrity": sri(runtime_tgz), "license": "MPL-2.0",
            "files": {"runtime.mjs": "vendor/runtime/runtime.mjs"},
            "licenses_from": [{"license": "MPL-2.0", "package": "mpl-thing", "version": "4.0.0",
                               "integrity": sri(donor_tgz), "files": {"LICENSE": "vendor/runtime/LICENSE"}}]}


def test_a_licence_is_taken_from_another_package_declaring_it(served: dict[str, bytes],
                                                               tmp_path: Path) -> None:
    entry = runtime(served, b"Mozilla Public License Version 2.0\n", "MPL-2.0")
    vendor_js.vendor(tmp_path, entry, REGISTRY, INDEX)
    assert (tmp_path / "vendor/runtime/LICENSE").read_bytes() == b"Mozilla Public License Version 2.0\n"
    assert set(entry["sha256"]) == {"vendor/runtime/runtime.mjs", "vendor/runtime/LICENSE"}
    assert vendor_js.check(tmp_path, {"packages": [entry]}) == []
    (tmp_path / "vendor/runtime/LICENSE").write_bytes(b"Mozilla Public License Version 2.1\n")
    assert [line.split(":")[0] for line in vendor_js.check(tmp_path, {"packages": [entry]})] \
        == ["vendor/runtime/LICENSE"]


def test_a_licence_is_refused_from_a_package_declaring_another(served: dict[str, bytes],
                                                               tmp_path: Path) -> None:
    entry = runtime(served, b"MIT License\n", "MIT")
    with pytest.raises(vendor_js.VendorError,
                       match=r"mpl-thing@4\.0\.0: .*'MPL-2\.0', the package declares 'MIT'"):
        vendor_js.vendor(tmp_path, entry, REGISTRY, INDEX)
    del entry["licenses_from"][0]["license"]  # a licence source must say which licence it supplies
    with pytest.raises(vendor_js.VendorError, match="names no license"):
        vendor_js.vendor(tmp_path, entry, REGISTRY, INDEX)
    entry["licenses_from"][0]["license"] = "MPL-2.0"
    donor_tgz = tarball({"package.json": b'{"license": "MPL-2.0"}', "LICENSE": b"MPL\n"})
    npm_publish(served, "mpl-thing", "4.0.0", donor_tgz, sri(donor_tgz))  # not the pinned tarball
    with pytest.raises(vendor_js.VendorError, match=r"mpl-thing@4\.0\.0: the registry's integrity differs"):
        vendor_js.vendor(tmp_path, entry, REGISTRY, INDEX)
    assert not (tmp_path / "vendor").exists()  # nothing is written unless every archive checks out


def test_the_manifest_refuses_an_unknown_registry_or_a_path_written_twice(tmp_path: Path) -> None:
    def manifest(*entries: dict[str, Any]) -> None:
        (tmp_path / "vendor.json").write_text(json.dumps({"packages": list(entries)}), encoding="utf-8")

    demo = entry(sri(b"x"))
    manifest({**demo, "registry": "cargo"})
    with pytest.raises(vendor_js.VendorError, match="from a registry other than npm or pypi"):
        vendor_js.load(tmp_path)
    manifest(demo, {**pypi_entry("0" * 64), "files": {"LICENSE": "vendor/demo/LICENSE"}})
    with pytest.raises(vendor_js.VendorError, match="vendor/demo/LICENSE is written by two entries"):
        vendor_js.load(tmp_path)


# --- the phone's libraries, as vendored --------------------------------------------------------

PHONE = "cli/web/static/vendor/"


def manifest_entries() -> dict[str, dict[str, Any]]:
    manifest = json.loads((ROOT / "vendor.json").read_text(encoding="utf-8"))
    return {e["package"]: e for e in manifest["packages"]}


def test_the_phones_libraries_are_pinned_with_their_licences() -> None:
    entries = manifest_entries()
    pyodide, sodium, msgpack = entries["pyodide"], entries["libsodium-sumo"], entries["msgpack"]
    assert (pyodide["version"], pyodide["license"]) == ("314.0.8", "MPL-2.0")
    assert pyodide["integrity"] == ("sha512-74Wq1kXOC+CCEzAfxuRAO701nAcCMLjf8NrwvWpu8S41dVMXwXmLQ05dYB+F4e46"
                                    "AdnGo0oq7YHSVUpHsoarLQ==")
    assert (sodium["version"], sodium["license"]) == ("0.8.4", "ISC")
    assert sodium["integrity"] == ("sha512-TMtHShQfVVsaxDygyapvUC3o7YsPgXa/hRWeIgzyFz6w5k/1hirGptCxp1U7XwW3"
                                   "rCskaTTYKgV10v86UiGgNw==")
    assert (msgpack["registry"], msgpack["version"]) == ("pypi", "1.1.2")
    assert msgpack["sdist"] == "msgpack-1.1.2.tar.gz"
    assert msgpack["sdist_sha256"] == "3b60763c1373dd60f398488069bcdc703cd08a711477b5d480eecc9f9626f47e"
    for e in (pyodide, sodium, msgpack):
        assert e["why"] and set(vendor_js.written(e)) == set(e["sha256"])
        assert all(path.startswith(PHONE) for path in vendor_js.written(e))
        assert any(path.rsplit("/", 1)[1] in ("LICENSE", "COPYING") for path in vendor_js.written(e))
    # Pyodide's licence: the MPL-2.0 text, the very bytes axe-core ships; CPython's, PSF-2.0.
    licences = {s["license"]: s for s in pyodide["licenses_from"]}
    assert set(licences) == {"MPL-2.0", "PSF-2.0"}
    mpl = (ROOT / PHONE / "pyodide/LICENSE").read_bytes()
    assert mpl == (ROOT / "tests/vendor/axe-core/LICENSE").read_bytes()
    assert (ROOT / PHONE / "pyodide/LICENSE").read_text(encoding="utf-8").startswith("Mozilla Public License")
    cpython = (ROOT / PHONE / "pyodide/LICENSE-CPython").read_text(encoding="ascii")
    assert "PYTHON SOFTWARE FOUNDATION LICENSE VERSION 2" in cpython
    assert '"Copyright (c) 2001 Python Software Foundation; All Rights Reserved"' in cpython


def test_a_changed_byte_in_a_phone_library_fails_the_check(tmp_path: Path) -> None:
    copy_tree(tmp_path)
    changed = tmp_path / PHONE / "msgpack/msgpack/fallback.py"
    changed.write_bytes(changed.read_bytes().replace(b"\n", b"\r\n", 1))
    (tmp_path / PHONE / "pyodide/LICENSE-CPython").unlink()
    run = run_check(tmp_path)
    assert run.returncode == 1
    assert f"{PHONE}msgpack/msgpack/fallback.py: sha256 mismatch (msgpack==1.1.2)" in run.stderr
    assert f"{PHONE}pyodide/LICENSE-CPython: missing (pyodide@314.0.8)" in run.stderr
    assert run.stderr.count("FAIL") == 2


def test_the_vendored_msgpack_runs_without_its_c_extension() -> None:
    # -B: no __pycache__ beside the vendored modules; -I: not the installed msgpack's folder first.
    probe = ("import sys; sys.path.insert(0, sys.argv[1]); import msgpack, msgpack.fallback; "
             "print(msgpack.__file__); print(msgpack.Packer is msgpack.fallback.Packer); "
             "print(msgpack.packb({'a': [1, b'x', 2.5, None]}).hex())")
    run = subprocess.run([sys.executable, "-B", "-I", "-c", probe, str(ROOT / PHONE / "msgpack")],
                         capture_output=True, text=True, timeout=60, check=True)
    where, fallback, packed = run.stdout.split()
    assert Path(where) == ROOT / PHONE / "msgpack/msgpack/__init__.py"
    assert fallback == "True"
    msgpack = pytest.importorskip("msgpack")  # the installed one, C extension and all: the same bytes
    assert bytes.fromhex(packed) == msgpack.packb({"a": [1, b"x", 2.5, None]})


def test_the_vendored_files_ship_in_the_wheel_and_no_pycache(tmp_path: Path) -> None:
    """setuptools matches package-data globs with glob.glob(recursive=True) under the package's
    folder: every vendored file under cli/web/ must match one, and a __pycache__ none."""
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = globs["tool"]["setuptools"]["package-data"]["cli.web"]
    shipped = [path.removeprefix("cli/web/") for e in manifest_entries().values()
               for path in vendor_js.written(e) if path.startswith("cli/web/")]
    assert shipped
    stray = "static/vendor/msgpack/msgpack/__pycache__/fallback.cpython-311.pyc"
    for path in [*shipped, stray]:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(b"")
    matched = {Path(found).relative_to(tmp_path).as_posix()
               for pattern in patterns for found in glob.glob(str(tmp_path / pattern), recursive=True)
               if Path(found).is_file()}
    assert set(shipped) <= matched
    assert stray not in matched


# --- axe-core in Chromium ----------------------------------------------------------------------

# As strict as the project's pages: no script but one with this (unmatched) hash, no eval.
POLICY = "default-src 'none'; script-src 'sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='; img-src data:"


def page(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / f"{name}.html"
    path.write_text(f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{POLICY}">
<title>{name}</title></head>
<body><main><h1>{name}</h1>{body}
<script>document.title = "the policy let this run";</script></main></body></html>
""", encoding="utf-8")
    return path.as_uri()


@pytest.mark.browser
def test_axe_finds_an_image_without_alt_and_a_button_without_a_name(chrome: Any, tmp_path: Path) -> None:  # noqa: F811
    chrome.get(page(tmp_path, "bad", '<img src="data:,"><button id="mute"></button>'))
    assert chrome.title == "bad"  # the policy holds on this page...
    found = axe_violations(chrome)  # ...and axe runs in it all the same
    by_id = {v["id"]: v for v in found}
    assert {"image-alt", "button-name"} <= set(by_id), describe(found)
    assert by_id["button-name"]["nodes"][0]["target"] == "#mute"
    assert by_id["image-alt"]["impact"] == "critical"
    assert "button-name" in describe(found) and "#mute" in describe(found)
    assert axe_violations(chrome, context="h1") == []  # only what the context holds


@pytest.mark.browser
def test_axe_finds_nothing_on_a_clean_page(chrome: Any, tmp_path: Path) -> None:  # noqa: F811
    chrome.get(page(tmp_path, "clean", '<img src="data:," alt="a dot"><button>Mute</button>'))
    found = axe_violations(chrome, impacts=None)
    assert found == [], describe(found)
