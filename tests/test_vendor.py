"""The vendored JavaScript (scripts/vendor_js.py, vendor.json) and the axe-core helper (tests/axe.py).

The files vendored match the sha256 the manifest records, and a changed byte fails the check,
naming the file; the integrity check refuses a tarball whose hash differs and a path that would
leave the tree; a whole fetch runs against a registry of the test's own on the loopback (no
network). In Chromium, axe-core loads into a page despite a strict Content-Security-Policy and
finds an image without alt text and a button without a name, and nothing on a clean page.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import io
import json
import shutil
import subprocess
import sys
import tarfile
import threading
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
        for path in entry["files"].values():
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

def tarball(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo("package/" + name)
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
