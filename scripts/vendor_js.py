#!/usr/bin/env python3
"""Vendor libraries from the npm registry and PyPI, by exact version, checked by hash.

What: ``vendor.json`` at the repository's root lists packages. Each entry names its package, its
exact version, the licence it declares (SPDX), why it is here, the files to take from its
archive (a path inside the package mapped to a path in this repository, licences included), and
the sha256 of every file written (``"sha256"``, recorded by this script). Where the archive comes
from and how it is pinned depends on the entry's ``"registry"``:

* ``"npm"`` (the default when absent): the npm registry's tarball, pinned by ``"integrity"``, the
  Subresource Integrity string the registry publishes (``sha512-`` and base64); paths are inside
  the tarball's ``package/`` folder;
* ``"pypi"``: a source distribution on PyPI, named by ``"sdist"`` (``<name>-<version>.tar.gz``)
  and pinned by ``"sdist_sha256"`` (hex, as PyPI publishes it); paths are inside its
  ``<name>-<version>/`` folder.

An entry may also take licence texts from other packages (``"licenses_from"``), for a package
whose archive ships none (Pyodide's tarball has no licence file) or that contains another
project's code under another licence (Pyodide contains CPython). Each such source is itself a
pinned package (the same fields: ``registry``, ``package``, ``version``, ``integrity`` or
``sdist`` and ``sdist_sha256``, ``files``) with the ``"license"`` (SPDX) of the text it supplies:
the script takes its files only if its archive checks out and the package itself declares that
licence (``license`` in an npm package's package.json; ``License-Expression``, else ``License``,
in a source distribution's PKG-INFO). An entry's own ``"license"``, when given, is checked the
same way against what its package declares. What the licence sources write is recorded in the
entry's ``"sha256"`` with its own files.

This script

* (default) fetches each listed package: for npm, reads the version's metadata from the
  registry npm is configured with (``npm config get registry``; the npm registry's default
  address when npm is not installed) and downloads the tarball it names; for PyPI, reads the
  project's page from the index (``PIP_INDEX_URL``, else https://pypi.org/simple/) in the JSON
  form of the simple API (PEP 691) and downloads the file it lists under the pinned name. It
  refuses an archive unless it matches both the hash the registry publishes and the one pinned in
  the manifest, extracts only the listed files (never outside this repository), writes them (only
  once every archive of the entry checked out), and records their sha256 in the manifest;
* (``--check``) verifies, offline, that every vendored file is there and matches its recorded
  sha256, and exits 1 naming each one that is missing or differs.

Why: the project's standard is that third-party code the pages run comes from a public registry
by exact version, vendored with its licences by a script that checks the registry's hash, so that
what is committed can be traced to a published release and a changed byte is caught. The tests
use axe-core (tests/axe.py); a phone's page runs the project's pure core in Pyodide, with
libsodium and msgpack's pure-Python modules (cli/web/static/vendor/).

Standard library only: it runs before anything is installed.
"""

from __future__ import annotations

import argparse
import base64
import email.parser
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import urllib.parse
import urllib.request
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = "vendor.json"
# npm's own default, used only when npm is not installed to say which registry it is configured with.
DEFAULT_REGISTRY = "https://registry.npmjs.org/"
# PyPI's simple index, used unless PIP_INDEX_URL names another (which must answer PEP 691's JSON).
DEFAULT_INDEX = "https://pypi.org/simple/"
PREFIX = "package/"  # where npm tarballs keep the package's files
SDIST = ".tar.gz"  # the only form of source distribution taken (PEP 625's)
TIMEOUT = 120.0  # s: for one request to the registry
# Abbreviated metadata (what npm install reads): every version's dist, without the readmes.
ACCEPT = "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8"
# The simple API's JSON form (PEP 691), the one that publishes each file's hashes as data.
PYPI_ACCEPT = "application/vnd.pypi.simple.v1+json"
SRI_HASHES = {"sha512": hashlib.sha512, "sha384": hashlib.sha384, "sha256": hashlib.sha256}
REGISTRIES = ("npm", "pypi")
HEX_SHA256 = re.compile(r"[0-9a-f]{64}")


class VendorError(Exception):
    """A package that cannot be vendored or a vendored file that does not check out."""


def say(line: str) -> None:
    print(line, flush=True)


def kind(entry: dict[str, Any]) -> str:
    """The registry an entry (or a licence source) comes from: "npm" unless it says "pypi"."""
    found: str = entry.get("registry", "npm")
    return found


def label(entry: dict[str, Any]) -> str:
    """``name@version`` for npm, ``name==version`` for PyPI: how each registry's tools say it."""
    return f"{entry['package']}{'==' if kind(entry) == 'pypi' else '@'}{entry['version']}"


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


def verify_sha256(data: bytes, expected: str, what: str) -> None:
    """Refuse ``data`` unless its sha256 is ``expected`` (64 hex digits, as PyPI publishes it)."""
    if not HEX_SHA256.fullmatch(expected):
        raise VendorError(f"{what}: {expected!r} is not a sha256 (64 lowercase hex digits); refusing")
    got = hashlib.sha256(data).hexdigest()
    if got != expected:
        raise VendorError(f"{what}: sha256 mismatch: expected {expected}, got {got}")


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


# --- the registries ----------------------------------------------------------------------------

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


def pypi_index() -> str:
    """The PyPI index to read (``PIP_INDEX_URL``, else PyPI's), ending in '/'."""
    url = os.environ.get("PIP_INDEX_URL") or DEFAULT_INDEX
    if urllib.parse.urlsplit(url).scheme not in ("https", "http"):
        raise VendorError(f"index {url!r} is not an http(s) address")
    return url if url.endswith("/") else url + "/"


def get(url: str, accept: str | None = None) -> bytes:
    request = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            data: bytes = response.read()
            return data
    except OSError as e:
        raise VendorError(f"cannot fetch {url}: {e}") from e


def get_json(url: str, accept: str, what: str) -> Any:
    try:
        return json.loads(get(url, accept))
    except ValueError as e:
        raise VendorError(f"{what}: the answer from {url} is not JSON: {e}") from e


def dist(registry_url: str, package: str, version: str) -> dict[str, Any]:
    """The ``dist`` record (tarball, integrity) the registry publishes for package@version."""
    name = urllib.parse.quote(package, safe="@")  # a scoped name's '/' is sent as %2F
    url = urllib.parse.urljoin(registry_url, name)
    say(f"{package}@{version}: metadata from {url}")
    metadata = get_json(url, ACCEPT, package)
    record = metadata.get("versions", {}).get(version) if isinstance(metadata, dict) else None
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


def pypi_name(package: str) -> str:
    """A project's name as the simple API spells it in its address (PEP 503)."""
    return re.sub(r"[-_.]+", "-", package).lower()


def sdist_name(entry: dict[str, Any]) -> str:
    """The entry's pinned sdist file name, refused unless it is ``<name>-<version>.tar.gz``."""
    what = label(entry)
    name = entry.get("sdist")
    if not isinstance(name, str) or not name.endswith(f"-{entry['version']}{SDIST}") \
            or "/" in name or "\\" in name or name.startswith("."):
        raise VendorError(f"{what}: the manifest's sdist {name!r} is not <name>-{entry['version']}{SDIST}")
    return name


def sdist(index_url: str, entry: dict[str, Any]) -> bytes:
    """The entry's source distribution from PyPI, checked against the sha256 the index publishes
    and the one pinned in the manifest."""
    what = label(entry)
    name = sdist_name(entry)
    pinned = entry.get("sdist_sha256")
    if not pinned:
        raise VendorError(f"{what}: the manifest pins no sdist_sha256; add the one PyPI publishes for {name}")
    page = urllib.parse.urljoin(index_url, pypi_name(entry["package"]) + "/")
    say(f"{what}: files from {page}")
    project = get_json(page, PYPI_ACCEPT, what)
    files = project.get("files") if isinstance(project, dict) else None
    record = next((f for f in files or [] if isinstance(f, dict) and f.get("filename") == name), None)
    if record is None:
        raise VendorError(f"{what}: the index at {index_url} lists no {name}")
    hashes, url = record.get("hashes"), record.get("url")
    published = hashes.get("sha256") if isinstance(hashes, dict) else None
    if not published or not isinstance(url, str) or not url:
        raise VendorError(f"{what}: the index publishes no sha256 or address for {name}")
    if published != pinned:
        raise VendorError(f"{what}: the index's sha256 of {name} differs from the manifest's: "
                          f"expected {pinned}, got {published}")
    url = urllib.parse.urljoin(page, url)  # the simple API may give it relative to the page
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("https", "http") or PurePosixPath(parts.path).name != name:
        raise VendorError(f"{what}: the index's address for {name} is {url}; refusing")
    if record.get("yanked"):
        say(f"{what}: note: {name} is yanked on the index ({record['yanked']})")
    say(f"{what}: sdist {url}")
    data = get(url)
    verify_sha256(data, published, what + " (index's sha256)")
    verify_sha256(data, pinned, what + " (manifest's sha256)")
    say(f"{what}: {len(data)} bytes, sha256 {pinned} verified")
    return data


def archive(entry: dict[str, Any], registry_url: str, index_url: str) -> tuple[bytes, str]:
    """The entry's archive, checked by hash, and the folder in it its paths are relative to."""
    if kind(entry) == "pypi":
        return sdist(index_url, entry), sdist_name(entry).removesuffix(SDIST) + "/"
    return tarball(registry_url, entry), PREFIX


# --- archives ----------------------------------------------------------------------------------

def extract(data: bytes, files: Iterable[str], what: str, prefix: str = PREFIX) -> dict[str, bytes]:
    """The listed files' contents from the gzipped tarball ``data`` (paths inside its folder
    ``prefix``)."""
    wanted = {prefix + str(safe_relative(source, what)): source for source in files}
    found: dict[str, bytes] = {}
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive_file:
        for member in archive_file.getmembers():
            source = wanted.get(member.name)
            if source is None:
                continue
            if not member.isreg():
                raise VendorError(f"{what}: {member.name} is not a regular file in the archive; refusing")
            handle = archive_file.extractfile(member)
            assert handle is not None  # a regular file always has one
            found[source] = handle.read()
    missing = sorted(set(wanted.values()) - set(found))
    if missing:
        raise VendorError(f"{what}: the archive has no {', '.join(missing)}")
    return found


def declared_license(entry: dict[str, Any], data: bytes, prefix: str) -> str:
    """The licence the package says it is under: package.json's ``license`` (npm), PKG-INFO's
    ``License-Expression`` or else ``License`` (PyPI)."""
    what = label(entry)
    if kind(entry) == "pypi":
        text = extract(data, ["PKG-INFO"], what, prefix)["PKG-INFO"].decode("utf-8", "replace")
        headers = email.parser.Parser().parsestr(text, headersonly=True)
        return str(headers.get("License-Expression") or headers.get("License") or "").strip()
    try:
        declared = json.loads(extract(data, ["package.json"], what, prefix)["package.json"])
    except ValueError as e:
        raise VendorError(f"{what}: its package.json is not JSON: {e}") from e
    license_ = declared.get("license") if isinstance(declared, dict) else None
    return license_.strip() if isinstance(license_, str) else ""


def verify_license(entry: dict[str, Any], data: bytes, prefix: str, expected: str) -> None:
    """Refuse a package that does not declare the licence ``expected`` (SPDX)."""
    declared = declared_license(entry, data, prefix)
    if declared != expected:
        raise VendorError(f"{label(entry)}: the manifest says its licence is {expected!r}, "
                          f"the package declares {declared or 'none'!r}; refusing")


def sources(entry: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The packages an entry's files come from: itself, then its licence sources."""
    yield entry
    yield from entry.get("licenses_from", [])


def written(entry: dict[str, Any]) -> list[str]:
    """Every repository path an entry writes: its files, then its licence sources'."""
    return [path for source in sources(entry) for path in source["files"].values()]


def vendor(root: Path, entry: dict[str, Any], registry_url: str, index_url: str = DEFAULT_INDEX) -> None:
    """Fetch one manifest entry's files, and its licence sources', into ``root`` and record
    their sha256 in ``entry``. Nothing is written unless every archive checks out."""
    what = label(entry)
    destinations = {path: target(root, path, what) for path in written(entry)}
    contents: dict[str, bytes] = {}
    for source in sources(entry):
        data, prefix = archive(source, registry_url, index_url)
        if source is not entry and not source.get("license"):
            raise VendorError(f"{what}: the licence source {label(source)} names no license")
        if source.get("license"):
            verify_license(source, data, prefix, source["license"])
        got = extract(data, source["files"], label(source), prefix)
        contents.update({path: got[name] for name, path in source["files"].items()})
    sums: dict[str, str] = {}
    for path, out in destinations.items():
        data = contents[path]
        out.parent.mkdir(parents=True, exist_ok=True)
        partial = out.with_name(out.name + ".partial")
        partial.write_bytes(data)
        partial.replace(out)
        sums[path] = hashlib.sha256(data).hexdigest()
        say(f"{what}: wrote {path} ({len(data)} bytes, sha256 {sums[path]})")
    entry["sha256"] = sums


# --- the manifest ------------------------------------------------------------------------------

def valid_source(source: Any) -> bool:
    """Whether ``source`` has what fetching it needs: package, version, files (paths as text),
    and a known registry."""
    return (isinstance(source, dict) and isinstance(source.get("package"), str)
            and isinstance(source.get("version"), str) and isinstance(source.get("files"), dict)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in source["files"].items())
            and kind(source) in REGISTRIES)


def load(root: Path) -> dict[str, Any]:
    path = root / MANIFEST
    try:
        manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise VendorError(f"cannot read {path}: {e}") from e
    packages = manifest.get("packages") if isinstance(manifest, dict) else None
    if not isinstance(packages, list):
        raise VendorError(f"{path}: no list of packages")
    seen: set[str] = set()
    for entry in packages:
        if not (valid_source(entry) and isinstance(entry.get("licenses_from", []), list)
                and all(valid_source(s) for s in entry.get("licenses_from", []))):
            raise VendorError(f"{path}: an entry (or a licence source) without package, version and "
                              f"files, or from a registry other than {' or '.join(REGISTRIES)}: {entry!r}")
        for out in written(entry):
            if out in seen:
                raise VendorError(f"{path}: {out} is written by two entries")
            seen.add(out)
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
        what = label(entry)
        sums = entry.get("sha256") or {}
        for path in written(entry):
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
        description="Vendor the packages listed in vendor.json from the npm registry and PyPI "
                    "(exact versions, archives checked against the registry's and the manifest's "
                    "hash), or check the vendored files against their recorded sha256.")
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
        url, index = registry(), pypi_index()
        say(f"npm registry: {url}; PyPI index: {index}")
        for entry in manifest["packages"]:
            if not args.packages or entry["package"] in args.packages:
                vendor(root, entry, url, index)
                save(root, manifest)
        say(f"{MANIFEST} updated")
        return 0
    except VendorError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
