"""Table chat: signed by its seat, bound to the game, relayed once, never in the log; forged,
replayed-from-another-game and malformed chat is refused with a fault and shown to nobody."""

from __future__ import annotations

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2p10.errors import IllegalMove
from p2p10.peer import CHAT, CHAT_LABEL, ChatLine, Peer
from p2p10.rules import RuleSet
from p2p10.signing import Domain, sign
from p2p10.simulate import greedy_player
from p2p10.wire import MAX_CHAT
from protocol.memory import MemoryNetwork, make_peers, open_table


def table(seed: int = 5) -> tuple[list[Peer], MemoryNetwork]:
    peers = make_peers([greedy_player] * 3, seed=seed)
    network = MemoryNetwork(peers)
    open_table(peers, ["Ann", "Bob", "Cyd"], RuleSet.parse(["hands=1"]), seed=seed)
    network.run(lambda: all(len(p.log) > 10 for p in peers))
    return peers, network


def chat_message(game_id: bytes, seat: int, text: str, key: Ed25519PrivateKey,
                 label: str = CHAT_LABEL) -> bytes:
    body = msgpack.packb([label, game_id, seat, b"12345678", text], use_bin_type=True)
    signed = msgpack.packb([body, sign(key, Domain.CHAT, body)])
    return bytes(msgpack.packb([CHAT, signed], use_bin_type=True))


def test_a_line_of_chat_reaches_every_seat_once_and_stays_out_of_the_log() -> None:
    peers, network = table()
    logs = [list(p.log) for p in peers]
    peers[1].say("  good luck, all  ")
    peers[1].say("good luck, all")  # the same words twice are two lines (each has its nonce)
    network.run(lambda: all(len(p.chat) == 2 for p in peers))
    network.run(lambda: all(p.finished for p in peers))  # relays settle; nothing is repeated
    for peer in peers:
        assert peer.chat == [ChatLine(1, "good luck, all")] * 2
        assert not peer.faults
    # Chat is not a move: it changes no log (the game goes on meanwhile, so compare prefixes).
    for peer, before in zip(peers, logs, strict=True):
        assert peer.log[:len(before)] == before
        assert all(e.kind != "chat" for e in peer.log)


@pytest.mark.parametrize("text", ["", "   ", "x" * (MAX_CHAT + 1), "bell\a", "two\nlines"])
def test_a_line_that_cannot_be_chat_is_refused_before_it_is_signed(text: str) -> None:
    peers, _network = table()
    with pytest.raises(IllegalMove, match="printable"):
        peers[0].say(text)
    assert peers[0].chat == []


def test_no_chat_before_the_table_exists() -> None:
    peer = make_peers([greedy_player, greedy_player], seed=1)[0]
    with pytest.raises(IllegalMove, match="no table"):
        peer.say("hello")


def test_forged_and_foreign_chat_is_refused_with_a_fault() -> None:
    peers, _network = table()
    game_id = peers[0].table.game_id  # type: ignore[union-attr]
    stranger = Ed25519PrivateKey.generate()
    cases = [
        (chat_message(game_id, 1, "I fold", stranger), "signature does not verify"),
        (chat_message(b"\0" * len(game_id), 1, "hi", peers[1].identity), "another game"),
        (chat_message(game_id, 1, "hi", peers[1].identity, label="p2p10/other"), "malformed"),
        (chat_message(game_id, 7, "hi", peers[1].identity), "malformed"),
        (chat_message(game_id, 1, "a\x00b", peers[1].identity), "malformed"),
    ]
    for data, reason in cases:
        peers[0].receive(data, 2, 0.0)
        assert peers[0].faults[-1].seat == 2 and reason in peers[0].faults[-1].reason
    assert peers[0].chat == []
    # The genuine article is taken, once, however often it comes.
    genuine = chat_message(game_id, 1, "hi", peers[1].identity)
    for _ in range(3):
        peers[0].receive(genuine, 2, 0.0)
    assert peers[0].chat == [ChatLine(1, "hi")]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=200) | st.builds(lambda v: msgpack.packb(v), st.lists(
    st.none() | st.integers(-2**63, 2**63) | st.binary(max_size=40) | st.text(max_size=10), max_size=6)))
def test_hostile_chat_never_raises_and_is_never_shown(payload: bytes) -> None:
    peer = PEERS[0]
    before = (len(peer.chat), len(peer.log))
    peer.receive(bytes(msgpack.packb([CHAT, payload], use_bin_type=True)), 1, 0.0)
    assert (len(peer.chat), len(peer.log)) == before
    assert not peer.stopped


PEERS, _ = table(9)
