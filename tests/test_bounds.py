"""What a peer keeps of what others send it is bounded (issue 24, point 4; attack A56): its
faults (a seat, or a link dialled again and again, sending garbage for hours) and the entries
it holds back while it has agreed to go on without a machine (passed on by every peer)."""

from __future__ import annotations

from p2p10.going_on import HELD_KEPT, GoingOn
from p2p10.peer_parts import FAULTS_KEPT, Fault
from protocol.memory import make_peers


def test_a_peer_keeps_the_first_faults_and_counts_the_rest() -> None:
    peer = make_peers([None, None], seed=3)[0]
    for _ in range(FAULTS_KEPT + 500):
        peer.receive(b"\xc1", 1, 0.0)  # not msgpack at all
    assert len(peer.faults) == FAULTS_KEPT and peer.faults.dropped == 500
    assert peer.faults[0] == Fault(1, None, peer.faults[0].reason) and peer.faults[0].reason


def test_an_entry_held_back_is_held_once_and_few_are_held() -> None:
    going_on = GoingOn()
    for sender in (1, 2, 3, 1):
        going_on.hold(b"one entry", sender)
    assert going_on.held == [(b"one entry", 1)]  # passed on by every peer: held once
    for n in range(100):
        going_on.hold(b"entry %d" % n, 1)
    assert len(going_on.held) == HELD_KEPT
