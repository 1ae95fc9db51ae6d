#!/usr/bin/env python3
"""Vendor JavaScript libraries from the npm registry, by exact version, checked by hash.

What: ``vendor.json`` at the repository's root lists packages, each with its exact version, the
integrity hash the registry publishes for its tarball (Subresource Integrity, ``sha512-`` and
base64), the files to take from the tarball (a path inside the package mapped to a path in this
repository, licences included), and the sha256 of every file written. This script

* (default) fetches each listed package: reads the version's metadata from the registry npm is
  configured with (``npm config get registry``; the npm registry's default address when npm is
  not installed), downloads the tarball it names, refuses it unless it matches both the integrity
  the registry publishes and the one pinned in the manifest, extracts only the listed files
  (from the tarball's ``package/`` folder, never outside this repository), writes them, and
  records their sha256 in the manifest;
* (``--check``) verifies, offline, that every vendored file is there and matches its recorded
  sha256, and exits 1 naming each one that is missing or differs.

Why: the project's standard is that JavaScript libraries come from the npm registry by exact
version, vendored with their licences by a script that checks the registry's integrity hash, so
that what is committed can be traced to a published release and a changed byte is caught. The
tests use axe-core (tests/axe.py); the phone's libraries will be listed here the same way.

Standard library only: it runs before anything is installed.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import urllib.parse
import urllib.request
from pathlib import Path, PurePosixPath
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = "vendor.json"
# npm's own default, used only when npm is not installed to say which registry it is configured with.
DEFAULT_REGISTRY = "https://registry.npmjs.org/"
PREFIX = "package/"  # where npm tarballs keep the package's files
TIMEOUT = 120.0  # s: for one request to the registry
# Abbreviated metadata (what npm install reads): every version's dist, without the readmes.
ACCEPT = "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8"
SRI_HASHES = {"sha512": hashlib.sha512, "sha384": hashlib.sha384, "sha256": hashlib.sha256}


class VendorError(Exception):
    """A package that cannot be vendored or a vendored file that does not check out."""


def say(line: str) -> None:
    print(line, flush=True)


# --- integrity ---------------------------------------------------------------------------------

def sri_digests(integrity: str) -> dict[str, set[str]]:
    """The digests an SRI string names, by algorithm (``sha512-AbC== sha1-...`` may list several;
    only sha256/384/512 are taken: sha1 proves nothing)."""
    out: dict[str, set[str]] = {}
    for token in integrity.split():
        algorithm, _, digest = token.partition("-")
        digest = digest.split("?")[0]  # SRI allows options after a '?'
        if algorithm in SRI_HASHES and digest:
            out.setdefault(algorithm, set()).add(digest)
    return out


def verify_integrity(data: bytes, integrity: str, what: str) -> None:
    """Refuse ``data`` unless it matches the SRI string ``integrity``: every strong algorithm it
    names must have one digest equal to the data's. ``what`` names the package and version in
    the error."""
    digests = sri_digests(integrity)
    if "sha512" not in digests:
        raise VendorError(f"{what}: integrity {integrity!r} has no sha512 digest; refusing")
    for algorithm, expected in sorted(digests.items()):
        got = base64.b64encode(SRI_HASHES[algorithm](data).digest()).decode("ascii")
        if got not in expected:
            raise VendorError(f"{what}: integrity mismatch: expected {algorithm}-"
                              f"{' or '.join(sorted(expected))}, got {algorithm}-{got}")


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- paths -------------------------------------------------------------------------------------

def safe_relative(path: str, what: str) -> PurePosixPath:
    """``path`` as a relative POSIX path that stays inside its folder (no absolute path, no
    ``..``, no backslash or drive): refuse anything else."""
    pure = PurePosixPath(path)
    if (not path or "\\" in path or ":" in path or pure.is_absolute()
            or any(part in ("..", "") for part in pure.parts) or str(pure) == "."):
        raise VendorError(f"{what}: unsafe path {path!r}; refusing")
    return pure


def target(root: Path, path: str, what: str) -> Path:
    """Where the repository path ``path`` is under ``root``, refusing one that leaves it."""
    out = root.joinpath(*safe_relative(path, what).parts)
    base = root.resolve()
    if not out.resolve().is_relative_to(base):
        raise VendorError(f"{what}: {path!r} resolves outside {base}; refusing")
    return out


# --- the registry ------------------------------------------------------------------------------

def registry() -> str:
    """The registry npm is configured with (its default when npm is not here), ending in '/'."""
    # npm's own setting from the environment (npm reads npm_config_* whatever its case), for when
    # npm itself is not here to be asked.
    url = next((v for k, v in os.environ.items() if k.lower() == "npm_config_registry" and v), "")
    npm = shutil.which("npm")
    if npm is not None:
        try:
            run = subprocess.run([npm, "config", "get", "registry"], capture_output=True, text=True,
                                 timeout=60, check=True)
            url = run.stdout.strip() or url
        except (OSError, subprocess.SubprocessError) as e:
            say(f"npm config get registry failed ({e}); using {url or DEFAULT_REGISTRY}")
    url = url or DEFAULT_REGISTRY
    if urllib.parse.urlsplit(url).scheme not in ("https", "http"):
        raise VendorError(f"registry {url!r} is not an http(s) address")
    return url if url.endswith("/") else url + "/"


def get(url: str, accept: str | None = None) -> bytes:
    request = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            data: bytes = response.read()
            return data
    except OSError as e:
        raise VendorError(f"cannot fetch {url}: {e}") from e


def dist(registry_url: str, package: str, version: str) -> dict[str, Any]:
    """The ``dist`` record (tarball, integrity) the registry publishes for package@version."""
    name = urllib.parse.quote(package, safe="@")  # a scoped name's '/' is sent as %2F
    url = urllib.parse.urljoin(registry_url, name)
    say(f"{package}@{version}: metadata from {url}")
    try:
        metadata = json.loads(get(url, ACCEPT))
    except ValueError as e:
        raise VendorError(f"{package}: the registry's metadata at {url} is not JSON: {e}") from e
    record = metadata.get("versions", {}).get(version)
    if not isinstance(record, dict) or not isinstance(record.get("dist"), dict):
        raise VendorError(f"{package}@{version}: the registry at {registry_url} publishes no such version")
    result: dict[str, Any] = record["dist"]
    return result


def tarball(registry_url: str, entry: dict[str, Any]) -> bytes:
    """The package's tarball, checked against the registry's integrity and the manifest's."""
    package, version = entry["package"], entry["version"]
    what = f"{package}@{version}"
    pinned = entry.get("integrity")
    if not pinned:
        raise VendorError(f"{what}: the manifest pins no integrity; "
                          f"add the registry's (npm view {what} dist.integrity)")
    record = dist(registry_url, package, version)
    published, url = record.get("integrity"), record.get("tarball")
    if not published or not url:
        raise VendorError(f"{what}: the registry publishes no integrity or tarball for it")
    if set(published.split()) != set(pinned.split()):
        raise VendorError(f"{what}: the registry's integrity differs from the manifest's: "
                          f"expected {pinned}, got {published}")
    here, there = urllib.parse.urlsplit(registry_url), urllib.parse.urlsplit(url)
    if (there.scheme, there.netloc) != (here.scheme, here.netloc):
        raise VendorError(f"{what}: the tarball {url} is not on the registry {registry_url}; refusing")
    say(f"{what}: tarball {url}")
    data = get(url)
    verify_integrity(data, published, what + " (registry's integrity)")
    verify_integrity(data, pinned, what + " (manifest's integrity)")
    say(f"{what}: {len(data)} bytes, integrity {pinned} verified")
    return data


def extract(data: bytes, files: dict[str, str], what: str) -> dict[str, bytes]:
    """The listed files' contents from the tarball ``data`` (paths inside the package)."""
    wanted = {PREFIX + str(safe_relative(source, what)): source for source in files}
    found: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        for member in archive.getmembers():
            source = wanted.get(member.name)
            if source is None:
                continue
            if not member.isreg():
                raise VendorError(f"{what}: {member.name} is not a regular file in the tarball; refusing")
            handle = archive.extractfile(member)
            assert handle is not None  # a regular file always has one
            found[source] = handle.read()
    missing = sorted(set(files) - set(found))
    if missing:
        raise VendorError(f"{what}: the tarball has no {', '.join(missing)}")
    return found


def vendor(root: Path, entry: dict[str, Any], registry_url: str) -> None:
    """Fetch one manifest entry's files into ``root`` and record their sha256 in ``entry``."""
    what = f"{entry['package']}@{entry['version']}"
    files: dict[str, str] = entry["files"]
    destinations = {source: target(root, path, what) for source, path in files.items()}
    contents = extract(tarball(registry_url, entry), files, what)
    sums: dict[str, str] = {}
    for source, path in files.items():
        out, data = destinations[source], contents[source]
        out.parent.mkdir(parents=True, exist_ok=True)
        partial = out.with_name(out.name + ".partial")
        partial.write_bytes(data)
        partial.replace(out)
        sums[path] = hashlib.sha256(data).hexdigest()
        say(f"{what}: wrote {path} ({len(data)} bytes, sha256 {sums[path]})")
    entry["sha256"] = sums


# --- the manifest ------------------------------------------------------------------------------

def load(root: Path) -> dict[str, Any]:
    path = root / MANIFEST
    try:
        manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise VendorError(f"cannot read {path}: {e}") from e
    packages = manifest.get("packages") if isinstance(manifest, dict) else None
    if not isinstance(packages, list):
        raise VendorError(f"{path}: no list of packages")
    for entry in packages:
        if not (isinstance(entry, dict) and isinstance(entry.get("package"), str)
                and isinstance(entry.get("version"), str) and isinstance(entry.get("files"), dict)):
            raise VendorError(f"{path}: an entry without package, version and files: {entry!r}")
    return manifest


def save(root: Path, manifest: dict[str, Any]) -> None:
    path = root / MANIFEST
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    partial.replace(path)


def check(root: Path, manifest: dict[str, Any]) -> list[str]:
    """What is wrong with the vendored files, one line each (none: all match)."""
    problems = []
    for entry in manifest["packages"]:
        what = f"{entry['package']}@{entry['version']}"
        sums = entry.get("sha256") or {}
        for path in entry["files"].values():
            try:
                file = target(root, path, what)
            except VendorError as e:
                problems.append(str(e))
                continue
            recorded = sums.get(path)
            if recorded is None:
                problems.append(f"{path}: no sha256 recorded for it ({what}); run scripts/vendor_js.py")
            elif not file.is_file():
                problems.append(f"{path}: missing ({what}); run scripts/vendor_js.py")
            elif (got := sha256_file(file)) != recorded:
                problems.append(f"{path}: sha256 mismatch ({what}): expected {recorded}, got {got}")
            else:
                say(f"ok {path} ({what})")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Vendor the JavaScript packages listed in vendor.json from the npm registry "
                    "(exact versions, tarballs checked against the registry's and the manifest's "
                    "integrity hash), or check the vendored files against their recorded sha256.")
    parser.add_argument("--check", action="store_true",
                        help="offline: verify every vendored file against its recorded sha256 "
                             "(exit 1 naming each one that is missing or differs)")
    parser.add_argument("--root", type=Path, default=ROOT,
                        help=f"the tree holding {MANIFEST} and the vendored files (default: this repository)")
    parser.add_argument("packages", nargs="*", metavar="PACKAGE",
                        help="fetch only these packages of the manifest (default: all)")
    args = parser.parse_args(argv)
    root: Path = args.root
    try:
        manifest = load(root)
        if args.check:
            problems = check(root, manifest)
            for line in problems:
                print(f"FAIL {line}", file=sys.stderr)
            say(f"{len(problems)} problem(s)" if problems else "all vendored files match vendor.json")
            return 1 if problems else 0
        names = {entry["package"] for entry in manifest["packages"]}
        unknown = sorted(set(args.packages) - names)
        if unknown:
            raise VendorError(f"not in {MANIFEST}: {', '.join(unknown)}")
        url = registry()
        say(f"registry: {url}")
        for entry in manifest["packages"]:
            if not args.packages or entry["package"] in args.packages:
                vendor(root, entry, url)
                save(root, manifest)
        say(f"{MANIFEST} updated")
        return 0
    except VendorError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
