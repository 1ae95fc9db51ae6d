"""Verdicts of checks already made in this process, so that peers sharing a process check each
proof and each shuffle once (``p2p play``, ``simulate --crypto`` and the tests run every seat of a
table in one process; each would otherwise check everything the others check).

A check is a pure function of its inputs, so its verdict can be kept under a key that names
every input: a SHA-512 digest of them, framed (``group.frame``), under the check's own domain
tag. Two different inputs never share a key (that would be a SHA-512 collision), and a kept
verdict is one this process computed itself, or the "true" of a proof it made itself from its
witness (for a statement the verifier takes: no identity point): nothing a peer sends can put
a verdict here. So a peer does not check its own proofs again, nor do the other peers of its
process; every other process does.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable

from p2p10.crypto.group import frame


class Verdicts:
    """A bounded store of the verdicts of one kind of check, least recently used out first."""

    def __init__(self, domain: bytes, size: int) -> None:
        self.domain = domain
        self.size = size
        self._kept: OrderedDict[bytes, bool] = OrderedDict()

    def key(self, *inputs: bytes) -> bytes:
        """The key naming every input of one check."""
        return hashlib.sha512(frame(self.domain, *inputs)).digest()

    def check(self, key: bytes, compute: Callable[[], bool]) -> bool:
        """The verdict kept under ``key``, or ``compute()``'s, which is then kept."""
        known = self._kept.get(key)
        if known is not None:
            self._kept.move_to_end(key)
            return known
        verdict = compute()
        self.record(key, verdict)
        return verdict

    def record(self, key: bytes, verdict: bool) -> None:
        """Keep a verdict known without checking: that of a proof this process has just made
        from its witness, which verifies by the proof's completeness (the tests check that)."""
        self._kept[key] = verdict
        if len(self._kept) > self.size:
            self._kept.popitem(last=False)

    def clear(self) -> None:
        """Forget every verdict (for benchmarks that time a check itself)."""
        self._kept.clear()
