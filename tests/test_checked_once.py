"""Checking costs little: every peer checks each entry's signature once, however many copies of
it reach it (every peer relays every entry to every other, and the network may duplicate and
reorder them), and where several peers share one process (``p2p10 play``, ``simulate --crypto``,
the tests) each proof of shuffle, each shuffle re-derivation and each token proof is checked once
in the process, not once per peer; a proof the process made itself, from its witness, it does
not check at all (every other process does)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from p2p10.crypto import proofs, shuffle, shuffle_proof
from p2p10.log import Entry
from p2p10.rules import RuleSet
from p2p10.simulate import greedy_player
from p2p10.table import TableState, fold
from protocol.memory import Faults, MemoryNetwork, make_peers, open_table

PEERS = 3


def test_each_signature_once_per_peer_and_each_proof_once_per_process(
        monkeypatch: pytest.MonkeyPatch) -> None:
    for memo in (shuffle_proof.VERDICTS, shuffle.VERDICTS, proofs.EQUAL_LOGS_VERDICTS,
                 proofs.KNOWLEDGE_VERDICTS):
        memo.clear()
    signatures: Counter[bytes] = Counter()
    checked: Counter[str] = Counter()
    verify = Entry.verify

    def counting_verify(entry: Entry, key: Any) -> bool:
        signatures[entry.hash] += 1
        return verify(entry, key)

    def counted(name: str, real: Any) -> Any:
        def wrapper(*args: Any) -> Any:
            checked[name] += 1
            return real(*args)
        return wrapper

    monkeypatch.setattr(Entry, "verify", counting_verify)
    monkeypatch.setattr(shuffle_proof, "_check", counted("shuffle proof", shuffle_proof._check))
    monkeypatch.setattr(shuffle, "apply_shuffle", counted("re-derivation", shuffle.apply_shuffle))
    monkeypatch.setattr(proofs, "_check_equal_logs", counted("token proof", proofs._check_equal_logs))

    peers = make_peers([greedy_player] * PEERS, seed=41)
    network = MemoryNetwork(peers, faults=Faults(duplicate=0.3, reorder=0.3, max_delay=0.2))
    open_table(peers, ["Ann", "Bob", "Cyd"], RuleSet.parse(["hands=1"]), seed=41)
    network.run(lambda: all(p.finished for p in peers))
    log = peers[0].log
    assert all(p.log == log and not p.faults for p in peers)
    assert network.stats.duplicated > 0 and network.stats.delayed > 0
    # Each peer checks each entry once (its own included): at most one check per peer.
    assert max(signatures.values()) <= PEERS and set(signatures) == {e.hash for e in log}
    steps = [e for e in log if e.kind == "shuffle"]
    reveals = [e for e in log if e.kind == "reveal"]
    tokens = sum(len(e.body[1]) for e in log if e.kind == "tokens")
    tokens += sum(len(e.body[-1]) for e in log if e.kind == "move" and e.body[1] != "draw"
                  and e.body[1] != "take")
    assert len(reveals) == PEERS and checked["re-derivation"] == len(steps)  # once, not once per peer
    assert checked["shuffle proof"] == checked["token proof"] == 0  # every one was made here

    # The same log reaching three peers of another process: each proof checked once there.
    for memo in (shuffle_proof.VERDICTS, shuffle.VERDICTS, proofs.EQUAL_LOGS_VERDICTS,
                 proofs.KNOWLEDGE_VERDICTS):
        memo.clear()
    checked.clear()
    for _ in range(PEERS):
        table: TableState | None = None
        for entry in log:
            table = fold(table, entry)
    assert checked["shuffle proof"] == checked["re-derivation"] == len(steps)
    assert checked["token proof"] == tokens
