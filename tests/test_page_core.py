"""Our own core runs in a phone's page and gives the same bytes as on CPython.

A headless Chromium loads the phone's worker (``cli/web/static/phone/core-worker.mjs``) from a
server on 127.0.0.1 that serves exactly what a machine at the table serves a phone
(:class:`cli.web.phone_files.PhoneFiles`, under the phone page's Content-Security-Policy): the
``p2p10`` package in Pyodide, its primitives from libsodium in WebAssembly
(``p2p10.page_primitives``). There, with no library of CPython's:

* the golden vectors hold (``protocol/vectors/check_vectors.py``): ``crypto_v1.json`` remade byte
  for byte from its seeds, every signature remade and bound to its domain, every signature edge
  case given the protocol's verdict, the signed entries remade, the short game audited CLEAN;
* a proof of shuffle made in the page from a seed is the one CPython makes from that seed, and
  verifies on CPython; one made on CPython verifies in the page, and fails there with a changed
  byte;
* a whole seeded game, played by the real peers over an in-memory network that drops,
  duplicates and reorders messages, gives the committed digest of its file and traffic
  (``games_v3.json``): the page is a peer;
* every rule scenario of ``specs/rules/`` runs (``tests/scenario.py``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from cli.web.phone_files import ROOT
from p2p10.crypto.elgamal import Ciphertext, initial_deck
from p2p10.crypto.group import Point, Scalar, base_mul
from p2p10.crypto.shuffle import shuffle_and_prove
from p2p10.crypto.shuffle_proof import verify_shuffle_proof
from tests.browser import start_chrome
from tests.page_core import Server, ready, run

pytestmark = [pytest.mark.slow, pytest.mark.browser]

PATIENCE = 180.0  # s: Pyodide starting on a loaded 2-core machine, then the checks

VECTORS = ["protocol/vectors/crypto_v1.json", "protocol/vectors/signatures_v2.json",
           "protocol/vectors/log_v3.json", "protocol/vectors/short_game_v3.p2p10"]
SCENARIOS = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "specs" / "rules").glob("*.toml"))
EXTRA = [
    # the checks and what they are made from (the core itself is in core.zip anyway)
    "protocol/__init__.py", "protocol/memory.py", "protocol/storage.py",
    "protocol/vectors/make_vectors.py", "protocol/vectors/make_log_vectors.py",
    "protocol/vectors/make_game_digests.py", "protocol/vectors/games_v3.json",
    "protocol/vectors/check_vectors.py", *VECTORS,
    "tests/__init__.py", "tests/scenario.py", *SCENARIOS,
]


@pytest.fixture(scope="module")
def page() -> Iterator[Any]:
    """A Chromium on the harness page, its core loaded."""
    server = Server(EXTRA)
    driver = start_chrome()
    driver.set_script_timeout(PATIENCE)
    try:
        driver.get(server.url)
        loaded = ready(driver)
        assert loaded["ready"], loaded.get("error")
        yield driver
    finally:
        driver.quit()
        server.stop()


def test_the_golden_vectors_hold_in_the_page(page: Any) -> None:
    result = run(page, """
import json
from pathlib import Path
from protocol.vectors.check_vectors import check_all
folder = Path("/core/protocol/vectors")
files = {name: (folder / name).read_bytes() for name in
         ("crypto_v1.json", "signatures_v2.json", "log_v3.json", "short_game_v3.p2p10")}
json.dumps(check_all(files))
""")
    assert result["backend"] == "page"
    assert (result["crypto"], result["signatures"], result["log"]) == ([], [], [])
    # libsodium 1.0.22 alone gives every edge case the protocol's own verdict (OpenSSL accepts six
    # that the rule refuses: signatures_v2.json records its verdicts); the rule decides anyway
    recorded = json.loads((ROOT / "protocol/vectors/signatures_v2.json").read_text(encoding="utf-8"))
    assert result["library_accepts"] == {case["name"]: case["accepted"] for case in recorded["edge_cases"]}


def test_a_shuffle_proof_made_in_the_page_is_cpythons_and_verifies_on_both(page: Any) -> None:
    seed, context = bytes(range(32)), b"p2p10/test/page-shuffle"
    joint = base_mul(Scalar.from_int(20261208))
    made = run(page, f"""
import json
from p2p10.crypto.elgamal import initial_deck
from p2p10.crypto.group import Point
from p2p10.crypto.shuffle import shuffle_and_prove
after, proof = shuffle_and_prove(initial_deck(), bytes.fromhex("{seed.hex()}"),
                                 Point.from_bytes(bytes.fromhex("{joint.to_bytes().hex()}")), {context!r})
json.dumps({{"after": [c.to_bytes().hex() for c in after], "proof": proof.to_bytes().hex()}})
""")
    after, proof = shuffle_and_prove(initial_deck(), seed, joint, context)
    assert made["after"] == [c.to_bytes().hex() for c in after]
    assert made["proof"] == proof.to_bytes().hex()
    page_after = [Ciphertext.from_bytes(bytes.fromhex(c)) for c in made["after"]]
    assert verify_shuffle_proof(initial_deck(), page_after, joint, bytes.fromhex(made["proof"]), context)
    # CPython's proof of another shuffle, checked in the page; one changed byte refused there
    other_after, other = shuffle_and_prove(initial_deck(), bytes(32), joint, context)
    wire = other.to_bytes()
    damaged = bytearray(wire)
    damaged[-1] ^= 1
    verdicts = run(page, f"""
import json
from p2p10.crypto.elgamal import Ciphertext, initial_deck
from p2p10.crypto.group import Point
from p2p10.crypto.shuffle_proof import verify_shuffle_proof
after = [Ciphertext.from_bytes(bytes.fromhex(c)) for c in {[c.to_bytes().hex() for c in other_after]!r}]
joint = Point.from_bytes(bytes.fromhex("{joint.to_bytes().hex()}"))
json.dumps([verify_shuffle_proof(initial_deck(), after, joint, bytes.fromhex(p), {context!r})
            for p in ("{wire.hex()}", "{bytes(damaged).hex()}")])
""")
    assert verdicts == [True, False]
    assert Point.from_bytes(joint.to_bytes()) == joint


def test_every_rule_scenario_runs_in_the_page(page: Any) -> None:
    failures = run(page, """
import json
from pathlib import Path
from tests.scenario import run_scenario
failed = {}
paths = sorted(Path("/core/specs/rules").glob("*.toml"))
for path in paths:
    try:
        run_scenario(path)
    except Exception as err:
        failed[path.name] = f"{type(err).__name__}: {err}"
json.dumps({"ran": len(paths), "failed": failed})
""")
    assert failures["ran"] == len(SCENARIOS) > 0
    assert failures["failed"] == {}


def test_a_whole_seeded_game_played_in_the_page_is_the_committed_one(page: Any) -> None:
    """The game of games_v3.json over a network that drops, duplicates and reorders messages
    (so that the peers' want, resend and relay run): three seats' peers and bots in the page
    make the very file and traffic CPython made (the other two games are the same code paths;
    tests/test_vectors.py plays all three on CPython)."""
    played = run(page, """
import json
from protocol.vectors.make_game_digests import GAMES, play_one
json.dumps(play_one(*GAMES[2]))
""")
    committed = json.loads((ROOT / "protocol/vectors/games_v3.json").read_text(encoding="utf-8"))["games"]
    assert committed[2]["faults"]["drop"] > 0 and played == committed[2]
