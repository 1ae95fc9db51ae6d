"""The golden vectors checked with the core alone: what any build of the core must reproduce,
wherever it runs.

``tests/test_vectors.py`` checks the vectors on CPython in detail, with pytest and the libraries
themselves; this module checks them with nothing but :mod:`p2p10` (through its primitives) and
the standard library, so that the same checks run where neither pytest nor those libraries
are: in a phone's page, the core in Pyodide with libsodium in WebAssembly
(``tests/test_page_core.py``). It reads no file: it is given the files' contents.

:func:`check_all` returns, for each check, the list of what failed (empty: it holds):

* ``crypto``: ``crypto_v1.json`` remade byte for byte from its seeds (card points, proofs, a
  dealt hand with its shuffles and their proofs of shuffle): the same seed gives the same bytes;
  and the recorded shuffle proofs verify.
* ``signatures``: ``signatures_v2.json``: each domain's signature remade by the fixed key and
  verifying under its own tag only; each edge case given its recorded verdict by the
  protocol's rule (the library's own verdict is reported, not checked: libsodium and OpenSSL
  differ there, and the rule does not rest on either).
* ``log``: ``log_v3.json``: the signed entries remade byte for byte and verified; the short
  game's file audits CLEAN with its recorded outcome, and one flipped byte makes it fail.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from p2p10 import primitives
from p2p10.audit import audit_bytes
from p2p10.crypto.elgamal import Ciphertext, initial_deck
from p2p10.crypto.group import Point
from p2p10.crypto.shuffle_proof import verify_shuffle_proof
from p2p10.hand_crypto import shuffle_context
from p2p10.log import BadEntry, make_entry, parse_entry, public_bytes, public_key, record
from p2p10.signing import Domain, sign, signed_bytes, verify, verify_raw
from protocol.vectors.make_log_vectors import from_json, to_json
from protocol.vectors.make_vectors import build_vectors, render

Failures = list[str]


def _hex(value: str) -> bytes:
    return bytes.fromhex(value)


def check_crypto(text: str) -> Failures:
    """``crypto_v1.json`` remade from its seeds, and its proofs of shuffle verified."""
    failed: Failures = []
    remade = render(build_vectors())
    if remade != text:
        line = next((i for i, (a, b) in enumerate(zip(remade.splitlines(), text.splitlines(), strict=False))
                     if a != b), min(len(remade.splitlines()), len(text.splitlines())))
        failed.append(f"crypto_v1.json is not remade byte for byte (first difference at line {line + 1})")
    committed = json.loads(text)
    v = committed["shuffle_proof"]
    before = [Ciphertext.from_bytes(_hex(c)) for c in v["before"]]
    after = [Ciphertext.from_bytes(_hex(c)) for c in v["after"]]
    joint = Point.from_bytes(_hex(v["joint_key"]))
    if not verify_shuffle_proof(before, after, joint, _hex(v["proof"]), _hex(v["context"])):
        failed.append("the shuffle proof vector does not verify")
    d = committed["dealing"]
    deck = initial_deck()
    joint = Point.from_bytes(_hex(d["joint_key"]))
    for s, step in enumerate(d["shuffle_steps"]):
        context = shuffle_context(_hex(d["game_id"]), d["hand"], 0, s)
        shuffled = tuple(Ciphertext.from_bytes(_hex(c)) for c in step["after"])
        if not verify_shuffle_proof(deck, shuffled, joint, _hex(step["proof"]), context):
            failed.append(f"the dealing's shuffle step {s} does not verify")
        if verify_shuffle_proof(deck, shuffled, joint, _hex(step["proof"]),
                                shuffle_context(_hex(d["game_id"]), d["hand"], 0, 1 - s)):
            failed.append(f"the dealing's shuffle step {s} verifies for the other seat's context")
        deck = shuffled
    return failed


def _library_accepts(key: bytes, message: bytes, signature: bytes) -> bool:
    try:
        primitives.Ed25519PublicKey.from_public_bytes(key).verify(signature, message)
    except (primitives.InvalidSignature, ValueError):
        return False
    return True


def check_signatures(text: str, library: dict[str, bool] | None = None) -> Failures:
    """``signatures_v2.json``: every domain's signature remade and bound to its tag; every edge
    case's recorded verdict under the rule. ``library``, if given, gets each edge case's verdict
    by the library alone (name -> accepted)."""
    failed: Failures = []
    v = json.loads(text)
    key = primitives.Ed25519PrivateKey.from_private_bytes(_hex(v["private_key"]))
    if public_bytes(key).hex() != v["public_key"]:
        failed.append("the fixed private key does not give the recorded public key")
    verifier = public_key(_hex(v["public_key"]))
    for case in v["domains"]:
        domain = Domain(case["tag"].encode())
        message, signature = _hex(case["message"]), _hex(case["signature"])
        if signed_bytes(domain, message).hex() != case["signed_bytes"]:
            failed.append(f"{case['tag']}: the signed bytes differ")
        if sign(key, domain, message).hex() != case["signature"]:
            failed.append(f"{case['tag']}: the signature is not remade byte for byte")
        if [d for d in Domain if verify(verifier, d, message, signature)] != [domain]:
            failed.append(f"{case['tag']}: the signature does not verify under its own tag only")
    for case in v["edge_cases"]:
        raw_key, message, signature = (_hex(case[f]) for f in ("public_key", "message", "signature"))
        if library is not None:
            library[case["name"]] = _library_accepts(raw_key, message, signature)
        try:
            admitted = public_key(raw_key)
        except BadEntry:
            admitted = None
        if (admitted is not None) != case["key_admitted"]:
            failed.append(f"edge case {case['name']}: key admitted is not {case['key_admitted']}")
        verdict = admitted is not None and verify_raw(admitted, message, signature)
        if verdict != case["accepted"]:
            failed.append(f"edge case {case['name']}: the rule's verdict is not {case['accepted']}")
        loaded = primitives.Ed25519PublicKey.from_public_bytes(raw_key)  # (without the admission)
        if verify_raw(loaded, message, signature) != case["accepted"]:
            failed.append(f"edge case {case['name']}: the rule's verdict on a key not admitted differs")
    return failed


def check_log(text: str, short_game: bytes) -> Failures:
    """``log_v3.json`` and the short game's file it describes."""
    failed: Failures = []
    v = json.loads(text)
    entries = []
    for case in v["signed_entries"]["entries"]:
        key = primitives.Ed25519PrivateKey.from_private_bytes(_hex(case["private_key"]))
        f = case["fields"]
        entry = make_entry(key, _hex(f["game_id"]), f["seq"], _hex(f["prev_hash"]), f["author"], f["kind"],
                           from_json(f["body"]))
        made = {"payload": entry.payload, "signature": entry.signature, "envelope": entry.raw,
                "hash": entry.hash, "record": record(entry.raw)}
        failed += [f"signed entry {f['seq']}: its {name} is not remade byte for byte"
                   for name, value in made.items() if value.hex() != case[name]]
        parsed = parse_entry(_hex(case["envelope"]))
        if not parsed.verify(public_key(_hex(case["public_key"]))) or to_json(parsed.body) != f["body"]:
            failed.append(f"signed entry {f['seq']}: it does not parse and verify as recorded")
        entries.append(parsed)
    if len(entries) == 2 and entries[1].prev_hash != entries[0].hash:
        failed.append("the second signed entry does not chain to the first")
    sg = v["short_game"]
    if hashlib.sha256(short_game).hexdigest() != sg["sha256"]:
        failed.append("the short game's file is not the one the vectors describe")
    report = audit_bytes(short_game)
    expected = sg["audit"]
    outcome: dict[str, Callable[[], object]] = {
        "clean": lambda: report.clean,
        "entries": lambda: report.entries,
        "sheet": lambda: [{k: list(x) if isinstance(x, tuple) else x for k, x in asdict(row).items()}
                          for row in report.sheet],
        "totals": lambda: list(report.table.engine.totals) if report.table else None,
        "winner": lambda: report.table.engine.winner if report.table else None,
        "last_hash": lambda: report.table.last_hash.hex() if report.table else None,
        "game_id": lambda: report.table.game_id.hex() if report.table else None,
    }
    failed += [f"the short game's audit: {name} is not as recorded" for name, got in outcome.items()
               if got() != expected[name]]
    damaged = bytearray(short_game)
    damaged[len(damaged) // 2] ^= 0x01
    if audit_bytes(bytes(damaged)).clean:
        failed.append("the short game with a flipped byte still audits clean")
    return failed


def check_all(files: dict[str, bytes]) -> dict[str, Any]:
    """Every check on the vector files given by name (``crypto_v1.json``, ``signatures_v2.json``,
    ``log_v3.json``, ``short_game_v3.p2p10``): each check's failures, the backend that ran them,
    and the library's own verdicts on the signature edge cases."""
    library: dict[str, bool] = {}
    return {
        "backend": primitives.BACKEND,
        "crypto": check_crypto(files["crypto_v1.json"].decode("utf-8")),
        "signatures": check_signatures(files["signatures_v2.json"].decode("utf-8"), library),
        "log": check_log(files["log_v3.json"].decode("utf-8"), files["short_game_v3.p2p10"]),
        "library_accepts": library,
    }
