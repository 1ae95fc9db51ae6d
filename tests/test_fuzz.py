"""Hostile bytes at a peer: random, random msgpack, and damaged real messages. A peer never
raises, never freezes on unsigned junk, and never changes its log because of it."""

from __future__ import annotations

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p10.peer import Peer, encode_entry_message
from p2p10.rules import RuleSet
from p2p10.simulate import greedy_player
from protocol.memory import MemoryNetwork, make_peers, open_table


def _table_in_play() -> tuple[list[Peer], list[bytes]]:
    peers = make_peers([greedy_player, greedy_player, greedy_player], seed=77)
    network = MemoryNetwork(peers)
    open_table(peers, ["Ann", "Bob", "Cyd"], RuleSet.parse(["hands=1"]), seed=77)
    network.run(lambda: len(peers[0].log) > 40)
    return peers, [encode_entry_message(e.raw) for e in peers[0].log]


PEERS, MESSAGES = _table_in_play()

values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1) | st.floats() | st.binary(max_size=80)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=8) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=30)


def _damaged(data: bytes, flips: list[tuple[int, int]]) -> bytes:
    out = bytearray(data)
    for position, bit in flips:
        out[position % len(out)] ^= 1 << bit
    return bytes(out)


def _check(data: bytes, sender: int | None) -> None:
    peer = PEERS[1]
    before = [e.hash for e in peer.log]
    peer.receive(data, sender, 1.0)
    peer.take_outbox()
    assert [e.hash for e in peer.log][: len(before)] == before
    assert not peer.stopped, peer.faults[-1:]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=300), sender=st.sampled_from([0, 2, None]))
def test_random_bytes_are_refused_quietly(data: bytes, sender: int | None) -> None:
    _check(data, sender)


@settings(max_examples=300, deadline=None)
@given(value=values, sender=st.sampled_from([0, 2, None]))
def test_random_msgpack_is_refused_quietly(value: object, sender: int | None) -> None:
    _check(msgpack.packb(value, use_bin_type=True), sender)
    _check(msgpack.packb([0, msgpack.packb(value, use_bin_type=True)], use_bin_type=True), sender)
    _check(msgpack.packb([0, msgpack.packb([msgpack.packb(value, use_bin_type=True), bytes(64)],
                                           use_bin_type=True)], use_bin_type=True), sender)


@settings(max_examples=300, deadline=None)
@given(index=st.integers(0, len(MESSAGES) - 1),
       flips=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 7)), min_size=1, max_size=4),
       sender=st.sampled_from([0, 2]))
def test_damaged_real_messages_are_refused_quietly(index: int, flips: list[tuple[int, int]],
                                                   sender: int) -> None:
    """A damaged copy of a real entry: its signature fails (or it no longer parses), so it is
    never taken for equivocation or a violation by its author."""
    _check(_damaged(MESSAGES[index], flips), sender)
