"""The wire codec (``p2p10/wire.py``): every body and message typed, bounded, and written back
byte for byte; and a peer checks each entry's signature once."""

from __future__ import annotations

import struct
from collections import Counter
from typing import Any

import msgpack
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from p2p10.errors import ProtocolViolation
from p2p10.log import Entry, entry_hash, make_entry, parse_entry
from p2p10.peer import Peer, encode_entry_message
from p2p10.rules import RuleSet
from p2p10.signing import Domain, sign
from p2p10.simulate import greedy_player
from p2p10.table import fold
from p2p10.wire import (
    AGREE,
    MAX_DEPTH,
    Agreement,
    AwayBody,
    Chat,
    MoveBody,
    WireError,
    decode_body,
    decode_message,
    depth,
    encode_agreement,
    encode_want,
    pack,
    shown,
)
from protocol.memory import MemoryNetwork, make_peers, open_table


@pytest.fixture(scope="module")
def game() -> list[Peer]:
    peers = make_peers([greedy_player, greedy_player, greedy_player], seed=801)
    network = MemoryNetwork(peers)
    open_table(peers, ["Ann", "Bob", "Cyd"], RuleSet.parse(["hands=1"]), seed=801)
    network.run(lambda: all(p.finished for p in peers))
    return peers


def test_every_body_of_a_real_game_decodes_and_encodes_back_to_the_same_bytes(game: list[Peer]) -> None:
    kinds: Counter[str] = Counter()
    for entry in game[0].log[1:]:
        body = decode_body(entry.kind, entry.body)
        assert pack(body.to_wire()) == pack(entry.body)
        kinds[entry.kind if not isinstance(body, MoveBody) else f"move/{body.action}"] += 1
    assert {"key", "shuffle", "tokens", "reveal", "move/draw", "move/discard"} <= set(kinds)


@pytest.mark.parametrize(("kind", "body", "phrase"), [
    ("key", [0, bytes(31), bytes(64), bytes(32)], "hand key must be 32 bytes, not 31"),
    ("key", [True, bytes(32), bytes(64), bytes(32)], "hand must be an integer, not a boolean"),
    ("key", [-1, bytes(32), bytes(64), bytes(32)], "hand must be 0 to"),
    ("shuffle", [0, 0, bytes(65), bytes(8480)], "shuffled deck is 1 to 108 ciphertexts"),
    ("shuffle", [0, 0, bytes(64 * 109), bytes(0)], "shuffled deck is 1 to 108 ciphertexts"),
    ("shuffle", [0, 0, bytes(64 * 66), bytes(8479)], "proof of shuffle of 66 cards is 8608 bytes"),
    ("shuffle", [0, 0, bytes(64 * 66)], "must be [hand, round, deck, proof]"),
    ("tokens", [0, [[0, bytes(32), bytes(96)]] * 129], "tokens must hold 0 to 128 items"),
    ("tokens", [0, [[0, bytes(32)]]], "a token is"),
    ("move", [0, "fly"], "'fly' is not a move"),
    ("move", [0, "x" * 10_000], "is not a move"),
    ("move", [0, "lay", 8, [[[1, 2], 4.0]], []], "label must be an integer"),
    ("move", [0, "lay", 8, [[[1, 2], 13]], []], "label must be 0 to 12, not 13"),
    ("move", [0, "lay", 11, [[[1, 2], None]], []], "phase must be 1 to 10"),
    ("move", [0, "lay", 1, [], []], "melds must hold 1 to 8"),
    ("move", [0, "hit", 3, 0, "middle", []], "end is nil, 'low' or 'high'"),
    ("move", [0, "discard", 3, 6, []], "target must be 0 to 5"),
    ("move", [0, "discard", 2**64 - 1, None, []], "slot must be 0 to"),
    ("move", [0, "discard", 3, None], "must be [hand, 'discard', slot, target, tokens]"),
    ("reveal", [0, bytes(32), bytes(32), [108], 0], "card must be 0 to 107"),
    ("reveal", [0, bytes(32), bytes(32), [], -1], "points must be 0 to"),
    ("away", [0, [[0, bytes(32)]] * 7, []], "new keys must hold 0 to 6"),
    ("away", [0, [], [[1, bytes(63)]]], "agreements must be 64 bytes, not 63"),
    ("table", [], "'table' is not a kind of entry"),
])
def test_each_field_is_checked_and_the_reason_says_which(kind: str, body: Any, phrase: str) -> None:
    with pytest.raises(WireError) as caught:
        decode_body(kind, body)
    assert phrase in str(caught.value)
    assert len(str(caught.value)) < 200


def test_a_body_nested_too_deep_is_refused_without_recursion() -> None:
    deep: Any = 0
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(WireError, match="nests deeper"):
        decode_body("move", [0, "discard", 1, None, [deep]])
    assert depth(deep) == MAX_DEPTH + 1
    assert shown(deep) == "a list of 1"


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text() | st.binary() | st.floats(),
                    lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner), max_leaves=40))
@example("0\x1f\x1f\U0001089f\U00018cd6\U00018d09\U00018d09\U0001b2fc")  # short, but escaped long
@example("\x00" * 41)
def test_shown_is_short_for_any_value(value: Any) -> None:
    assert len(shown(value)) <= 60


def test_messages_decode_typed_and_encode_back() -> None:
    agreement = Agreement(1, 40, bytes(32), 2, bytes(64))
    assert decode_message(encode_agreement(agreement)) == (AGREE, agreement)
    assert decode_message(encode_want(7)) == (1, 7)
    for bad in ([AGREE, [1, 40, bytes(32), 9, bytes(64)]], [AGREE, [1, 40, bytes(31), 2, bytes(64)]],
                [1, -1], [1, True], [True, 5], [4, b""], [0, "text"]):
        with pytest.raises(WireError):
            decode_message(pack(bad))
    with pytest.raises(WireError, match="not valid msgpack"):
        decode_message(b"\x91" * 5000)


def test_a_chat_line_is_typed() -> None:
    body = Chat.body_bytes(bytes(16), 2, bytes(8), "hello")
    chat = Chat.from_wire(Chat.signed_bytes(body, bytes(64)))
    assert (chat.seat, chat.text, chat.body) == (2, "hello", body)
    for wrong in (pack([body, bytes(63)]), pack([pack(["p2p10/chat/v0", bytes(16), 2, bytes(8), "hi"]),
                                                 bytes(64)]),
                  pack([pack(["p2p10/chat/v1", bytes(16), 2, bytes(8), "x" * 201]), bytes(64)])):
        with pytest.raises(WireError):
            Chat.from_wire(wrong)


def test_an_away_body_round_trips() -> None:
    body = [1, [[1, bytes(32)]], [[0, bytes(64)], [2, bytes(64)]]]
    assert AwayBody.from_wire(body).to_wire() == body


# ----------------------------------------------------------------- one signature check per peer

def test_a_peer_checks_each_entry_signature_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every entry reaches a peer from every other peer, and the fold checks signatures too;
    a peer checks each entry's signature once, where it arrives, and tells the fold."""
    checks: Counter[tuple[int, bytes]] = Counter()
    verify = Entry.verify
    held: list[Any] = []  # every key seen, kept alive: a freed key's id may be another key's later

    def counted(self: Entry, key: Any) -> bool:
        held.append(key)
        checks[(id(key), self.hash)] += 1
        return verify(self, key)

    monkeypatch.setattr(Entry, "verify", counted)
    peers = make_peers([greedy_player] * 3, seed=802)
    network = MemoryNetwork(peers)
    open_table(peers, ["Ann", "Bob", "Cyd"], RuleSet.parse(["hands=1"]), seed=802)
    network.run(lambda: all(p.finished for p in peers))
    assert all(not p.faults for p in peers)
    entries = len(peers[0].log)
    # Each entry: checked by each peer that did not write it, once (the table entry is checked
    # by its header check alone).
    assert max(checks.values()) == 1
    assert sum(checks.values()) <= 3 * entries


def test_the_fold_checks_again_a_signature_checked_with_another_key(game: list[Peer]) -> None:
    """A caller that checked a signature with a key the fold no longer holds for the author
    (an away entry gave the seat a new one) does not spare the check."""
    log = game[0].log
    table = fold(None, log[0])
    for entry in log[1:5]:
        table = table.apply(entry)
    honest = log[5]
    forged = make_entry(game[2].identity, table.game_id, honest.seq, table.last_hash, honest.author,
                        honest.kind, msgpack.unpackb(msgpack.packb(honest.body), raw=False))
    other = table.verifiers[2]
    assert honest.author != 2
    with pytest.raises(ProtocolViolation) as caught:
        table.apply(forged, verified_by=other)
    assert caught.value.seat is None and "does not verify" in caught.value.reason
    assert table.apply(honest, verified_by=table.verifiers[honest.author]).seq == honest.seq + 1


def _long(value: Any) -> bytes:
    """``value`` as msgpack in the longest encoding of every int, str, bin and array."""
    if value is None:
        return b"\xc0"
    if isinstance(value, bool):
        raise TypeError("no booleans on the wire")
    if isinstance(value, int):
        return b"\xd3" + struct.pack(">q", value)
    if isinstance(value, bytes):
        return b"\xc6" + struct.pack(">I", len(value)) + value
    if isinstance(value, str):
        data = value.encode()
        return b"\xdb" + struct.pack(">I", len(data)) + data
    assert isinstance(value, list)
    return b"\xdd" + struct.pack(">I", len(value)) + b"".join(_long(v) for v in value)


def test_a_reader_accepts_any_msgpack_encoding_short_or_long(game: list[Peer]) -> None:
    """PROTOCOL §3.2: a reader MUST accept any valid msgpack encoding of a value. The whole game,
    every payload and envelope written in the longest forms (int64, bin32, str32, array32),
    signed and chained again, folds to the same game as the shortest forms."""
    keys = {p.seat: p.identity for p in game}
    table = None
    short = None
    prev = bytes(32)
    for entry in game[0].log:
        fields = msgpack.unpackb(entry.payload, raw=False)
        fields[3] = prev
        payload = _long(fields)
        assert payload != pack(fields)
        envelope = _long([payload, sign(keys[entry.author], Domain.ENTRY, payload)])
        long_entry = parse_entry(envelope)
        assert long_entry.body == entry.body and long_entry.payload == payload
        table = fold(table, long_entry)
        short = fold(short, entry)
        prev = entry_hash(payload)
    assert table is not None and short is not None
    assert table.engine.sheet == short.engine.sheet and table.expected() is None


def test_a_peer_stores_and_relays_an_envelope_exactly_as_it_came(game: list[Peer]) -> None:
    """PROTOCOL §3.3: the envelope's own encoding is not signed, so honest peers MUST relay and
    store it exactly as they received it: a table entry in an envelope of the longest forms is
    kept and passed on in those very bytes."""
    first = game[0].log[0]
    envelope = _long([first.payload, first.signature])
    assert envelope != first.raw and parse_entry(envelope).hash == first.hash
    fresh = make_peers([greedy_player] * 3, seed=801)
    fresh[1].receive(encode_entry_message(envelope), 0, 0.0)
    assert fresh[1].table is not None and fresh[1].log[0].raw == envelope
    sent = {data for _to, data in fresh[1].take_outbox()}
    assert encode_entry_message(envelope) in sent and encode_entry_message(first.raw) not in sent


def test_token_items_must_be_exactly_the_slots_due_in_order(game: list[Peer]) -> None:
    """PROTOCOL §4.4.4: the slots of a tokens entry's items MUST be exactly the required list,
    in order: one missing, two swapped or one added is the author's violation at that entry."""
    log = game[0].log
    at = next(i for i, e in enumerate(log) if e.kind == "tokens")
    table = None
    for entry in log[:at]:
        table = fold(table, entry)
    assert table is not None
    entry = log[at]
    items = entry.body[1]
    keys = {p.seat: p.identity for p in game}
    for bad in (items[1:], [items[1], items[0], *items[2:]], [*items, items[0]]):
        forged = make_entry(keys[entry.author], entry.game_id, entry.seq, entry.prev_hash, entry.author,
                            "tokens", [entry.body[0], bad])
        with pytest.raises(ProtocolViolation, match="tokens were expected for slots") as caught:
            table.apply(forged)
        assert (caught.value.seat, caught.value.seq) == (entry.author, entry.seq)
