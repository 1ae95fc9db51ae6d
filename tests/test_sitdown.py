"""The sit-down: every seat signs what it sits down to, the table entry carries those
signatures, and the game id is made of every seat's fresh nonce (PROTOCOL 4.4.1, 6.1.1).

The attacks: a host that marks an honest joiner as its own bot (and could then go on without
another player with nobody's agreement, PROTOCOL 4.13), one that changes a seat's name, key or
rules, and one that re-issues an old game's table entry to replay an honest seat's old
entries (catalogue A26 and A27)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from itertools import product
from pathlib import Path

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from cli.main import main
from p2p10.audit import audit_records
from p2p10.errors import BadRules, ProtocolError, ProtocolViolation
from p2p10.log import Entry, encode_log, make_entry, public_bytes
from p2p10.peer import Peer, encode_entry_message
from p2p10.peer_parts import Fault
from p2p10.rules import RuleSet, canonical_options
from p2p10.signing import Domain, sign, signed_bytes
from p2p10.simulate import greedy_player
from p2p10.sitdown import (
    BadSitDown,
    SitDown,
    game_id_of,
    parse_sit_down,
    printable,
    sign_sit_down,
    valid_name,
)
from p2p10.table import PROTOCOL_NAME, TableState, fold
from protocol.listener import listen
from protocol.lobby import LOBBY_PATH, Lobby
from protocol.lobby_messages import LanError, SeatInfo, open_signed, renamed, roster_message, signed, unpack
from protocol.memory import MemoryNetwork, make_peers, open_table, sit_downs_for
from protocol.taking_seat import check_roster, take_seat

SHORT = RuleSet.parse(["hands=1"])
NAMES = ["Ann", "Bob", "Cyd"]
MAX_SECONDS = 300.0


# ------------------------------------------------------------------------------- helpers

def signed_sit_down(identity: Ed25519PrivateKey, *, table_id: bytes = bytes(16), seat: int = 0,
                    name: object = "Ann", key: bytes | None = None, run_by: object = None,
                    options: object = (), nonce: object = bytes(16)) -> bytes:
    """A sit-down signed by ``identity`` over whatever it is given, sensible or not (``key``
    to name another key than the signer's)."""
    key = public_bytes(identity) if key is None else key
    listed = list(options) if isinstance(options, tuple) else options
    payload = msgpack.packb([table_id, seat, name, key, run_by, listed, nonce])
    return bytes(msgpack.packb([payload, sign(identity, Domain.SIT_DOWN, payload)]))


def resigned(raw: bytes, **changes: object) -> bytes:
    """``raw`` with some of its terms changed and its signature kept (what a host can do to
    somebody else's sit-down)."""
    payload, signature = msgpack.unpackb(raw)
    fields = msgpack.unpackb(payload)
    order = ["table_id", "seat", "name", "key", "run_by", "options", "nonce"]
    for name, value in changes.items():
        fields[order.index(name)] = value
    return bytes(msgpack.packb([msgpack.packb(fields), signature]))


def _terms(raw: bytes) -> list[object]:
    return list(msgpack.unpackb(msgpack.unpackb(raw)[0]))


def table_entry(host: Ed25519PrivateKey, sit_downs: Sequence[bytes], game_id: bytes | None = None) -> Entry:
    """A table entry by ``host`` carrying ``sit_downs`` as they are, under the game id their
    nonces make (or ``game_id``)."""
    if game_id is None:
        terms = [_terms(raw) for raw in sit_downs]
        game_id = game_id_of(terms[0][0], [t[6] for t in terms])  # type: ignore[arg-type,misc]
    return make_entry(host, game_id, 0, bytes(32), 0, "table", [PROTOCOL_NAME, list(sit_downs)])


def blamed(entry: Entry) -> tuple[int | None, int | None, str]:
    """What ``from_header`` says about a table entry: seat, entry and reason."""
    with pytest.raises(ProtocolViolation) as caught:
        TableState.from_header(entry)
    return caught.value.seat, caught.value.seq, caught.value.reason


def honest_sit_downs(peers: list[Peer], seed: int, rules: RuleSet = SHORT) -> list[bytes]:
    return [s.raw for s in sit_downs_for(peers, NAMES[:len(peers)], rules, seed)]


def deliver(peers: Sequence[Peer], entry: Entry) -> None:
    """The host's table entry reaches every other seat (and nothing else happens)."""
    for peer in peers:
        peer.receive(encode_entry_message(entry.raw), 0, 0.0)


# ----------------------------------------------------------------------------- the sit-down

def test_a_sit_down_says_what_its_seat_agreed_to_and_verifies_only_as_signed() -> None:
    """A sit-down parses back to what was signed; change any term (the table id above all: a
    signature from one table never verifies for another) and the signature no longer
    verifies. The signature covers the domain tag: the same bytes signed bare, or as a lobby
    message, are no sit-down."""
    ann = Ed25519PrivateKey.from_private_bytes(bytes([7]) * 32)
    table_a, table_b = bytes([1]) * 16, bytes([2]) * 16
    sat = sign_sit_down(ann, table_a, 2, "Ann", SHORT, run_by=0, nonce=bytes([9]) * 16)
    assert sat.terms == (table_a, 2, "Ann", public_bytes(ann), 0, ("hands=1",), bytes([9]) * 16)
    assert parse_sit_down(sat.raw) == sat
    other = Ed25519PrivateKey.from_private_bytes(bytes([8]) * 32)
    for change in ({"table_id": table_b}, {"seat": 1}, {"name": "Eve"}, {"run_by": None},
                   {"options": []}, {"nonce": bytes(16)}, {"key": public_bytes(other)}):
        with pytest.raises(BadSitDown, match="not signed by its key"):
            parse_sit_down(resigned(sat.raw, **change))
    payload = msgpack.unpackb(sat.raw)[0]
    for message in (payload, signed_bytes(Domain.LOBBY, payload)):
        with pytest.raises(BadSitDown, match="not signed by its key"):
            parse_sit_down(msgpack.packb([payload, ann.sign(message)]))
    for junk in (b"", b"\xc1", msgpack.packb([1, 2]), bytes(2000), msgpack.packb([payload, b"x" * 64]),
                 signed_sit_down(ann, name=""), signed_sit_down(ann, run_by=True),
                 signed_sit_down(ann, seat=6), signed_sit_down(ann, options=["é"]),
                 signed_sit_down(ann, nonce=b"short"), signed_sit_down(ann, key=bytes(32))):
        with pytest.raises(BadSitDown):
            parse_sit_down(junk)


def test_the_game_id_is_made_by_every_seat_and_checked() -> None:
    """The game id is a hash of the table id and every seat's nonce, in seat order: a new
    nonce of any one seat makes a new game, and the host cannot choose it: a table entry
    under any other game id is refused and blamed on seat 1, at entry 0."""
    peers = make_peers([greedy_player] * 3, seed=40)
    sat = sit_downs_for(peers, NAMES, SHORT, seed=40)
    game = TableState.game_id_for(sat)
    assert game == game_id_of(sat[0].table_id, [s.nonce for s in sat]) and len(game) == 16
    assert game != sat[0].table_id
    fresh = sat[:2] + [peers[2].sit_down(sat[0].table_id, "Cyd", SHORT)]
    assert TableState.game_id_for(fresh) != game
    assert TableState.game_id_for(list(reversed(sat))) != game
    host = peers[0].identity
    assert TableState.from_header(table_entry(host, [s.raw for s in sat])).game_id == game
    chosen = table_entry(host, [s.raw for s in sat], game_id=sat[0].table_id)
    assert blamed(chosen) == (0, 0, "the game id is not the one the seats' sit-downs make")


def test_every_term_of_every_seat_is_checked_against_its_own_signature() -> None:
    """The host cannot change a seat's name, key, rules, seat or table: each is refused and
    blamed on seat 1, who wrote the table entry, at entry 0."""
    peers = make_peers([greedy_player] * 3, seed=41)
    host = peers[0].identity
    sat = honest_sit_downs(peers, 41)
    assert TableState.from_header(table_entry(host, sat)).names == tuple(NAMES)
    mallory = Ed25519PrivateKey.from_private_bytes(bytes([5]) * 32)
    cases = {
        "name": [sat[0], resigned(sat[1], name="Ann's puppet"), sat[2]],
        "key": [sat[0], resigned(sat[1], key=public_bytes(mallory)), sat[2]],
        "rules": [sat[0], resigned(sat[1], options=["hands=2"]), sat[2]],
        "bot": [sat[0], resigned(sat[1], run_by=0), sat[2]],
        "order": [sat[0], sat[2], sat[1]],
        "rules the seat never saw": [*honest_sit_downs(peers[:1], 41, RuleSet.parse(["hands=2"])), *sat[1:]],
        "another table": [sat[0], sit_downs_for(peers, NAMES, SHORT, seed=42)[1].raw, sat[2]],
        "one seat twice": [sat[0], sat[1], sat[1]],
    }
    reasons = {}
    for case, sit_downs in cases.items():
        seat, seq, reasons[case] = blamed(table_entry(host, sit_downs))
        assert (seat, seq) == (0, 0), case
    assert reasons["name"] == reasons["key"] == reasons["rules"] == reasons["bot"] == (
        "the sit-down for seat 2 is not signed by its key")
    assert reasons["order"] == "seat 2 carries the sit-down signed for seat 3"
    assert reasons["rules the seat never saw"] == "seat 2 sat down to other rules than seat 1"
    assert reasons["another table"] == "seat 2 sat down at another table"
    assert reasons["one seat twice"] == "seat 3 carries the sit-down signed for seat 2"


def test_a_table_entry_nobody_can_be_blamed_for() -> None:
    """Until the table entry's signature verifies under seat 1's sit-down, the bytes are no
    seat's statement: blamed on nobody (a peer puts them down to whoever passed them on)."""
    peers = make_peers([greedy_player] * 2, seed=43)
    sat = honest_sit_downs(peers, 43)
    forged = table_entry(peers[1].identity, sat)  # seat 2 signs a table entry as seat 1
    assert blamed(forged) == (None, 0, "the table entry's signature does not verify for seat 1")
    for body in ([PROTOCOL_NAME, []], ["p2p10/1", sat], [PROTOCOL_NAME, [b"junk", sat[1]]], [[[[]]]]):
        entry = make_entry(peers[0].identity, bytes(16), 0, bytes(32), 0, "table", body)
        assert blamed(entry)[:2] == (None, 0)
    lone = table_entry(peers[0].identity, sat[:1])
    assert blamed(lone) == (0, 0, "a table seats 2 to 6 players, not 1")


# ------------------------------------------------------------------ A26: the run_by spoof

def test_a_host_cannot_mark_an_honest_player_as_its_bot() -> None:
    """Attack (A26): the host marks Bob, an honest joiner, as its bot, so that it could then go
    on without Cyd with nobody's agreement (PROTOCOL 4.13: a bot's runner speaks for it), and
    Bob would be shown as "Bob (Ann's bot)". Defence: Bob signed his sit-down as a person, so
    the table entry cannot say otherwise: Bob's machine and Cyd's refuse it, freeze and blame
    seat 1 at entry 0, and so does the audit of the log."""
    peers = make_peers([greedy_player] * 3, seed=44)
    sat = honest_sit_downs(peers, 44)
    spoof = table_entry(peers[0].identity, [sat[0], resigned(sat[1], run_by=0), sat[2]])
    deliver(peers[1:], spoof)
    for peer in peers[1:]:
        assert peer.table is None and peer.stopped
        assert peer.violation is not None and (peer.violation.seat, peer.violation.seq) == (0, 0)
        assert peer.faults == [Fault(0, 0, "the sit-down for seat 2 is not signed by its key")]
        assert peer.evidence == [spoof.raw]
        assert peer.stop_reason() == ("seat 1 broke the rules at entry 0: the sit-down for seat 2 "
                                      "is not signed by its key")
    report = audit_records([spoof.raw])
    assert report.violation is not None and (report.violation.seat, report.violation.seq) == (0, 0)
    assert "not signed by its key" in report.violation.reason
    # Honestly marked, a host's bot is fine: it signed its sit-down as the host's.
    bots = make_peers([greedy_player] * 3, seed=44)
    network = MemoryNetwork(bots)
    open_table(bots, NAMES, SHORT, seed=44, run_by=[None, None, 0])
    network.run(lambda: all(p.finished for p in bots), MAX_SECONDS)
    assert all(not p.stopped and not p.faults for p in bots)
    assert audit_records([e.raw for e in bots[0].log]).clean


def test_a_joiner_refuses_a_table_entry_that_is_not_the_one_it_sat_down_to() -> None:
    """A joiner's machine remembers the sit-down it signed: a table entry that marks its
    player as somebody's bot, or carries another sit-down of its key (an old one, with
    another nonce), is refused with the blame on seat 1, although every signature in it
    verifies."""
    peers = make_peers([greedy_player] * 3, seed=45)
    sat = honest_sit_downs(peers, 45)
    old_bob = peers[1].identity
    as_bot = signed_sit_down(old_bob, table_id=_terms(sat[0])[0], seat=1, name="Bob",  # type: ignore[arg-type]
                             run_by=0, options=["hands=1"], nonce=bytes([3]) * 16)
    entry = table_entry(peers[0].identity, [sat[0], as_bot, sat[2]])
    assert TableState.from_header(entry).names[1] == "Bob (Ann's bot)"  # valid on its face
    deliver(peers[1:], entry)
    bob, cyd = peers[1], peers[2]
    assert bob.stopped and bob.violation is not None
    assert (bob.violation.seat, bob.violation.seq) == (0, 0)
    assert "does not carry the sit-down seat 2 signed for this table" in bob.violation.reason
    assert cyd.stopped is False and cyd.table is not None  # Cyd cannot tell; Bob never plays it


def test_a_name_is_printable_by_unicode_general_category() -> None:
    """PROTOCOL 4.4.1 defines a printable character by its general category, so that another
    language can reproduce the check: that definition is exactly Python's ``str.isprintable``
    over every code point, and the name check follows it."""
    for code in range(0x110000):
        char = chr(code)
        assert printable(char) == char.isprintable(), hex(code)
    for name in ("Ann Lee", "Zoë", "李", "🂡", "x" * 32):
        assert valid_name(name), name
    for name in ("", "x" * 33, "a\tb", "a\u00a0b", "a\u200bb", "a\u2028b", "a\ue000b",
                 "a\U000e0001b", "a\ud800b"):
        assert not valid_name(name), repr(name)


# ------------------------------------------------------- A72: rule options not in canonical form

@pytest.mark.parametrize("options", [
    ["hands=02"], ["HANDS=2"], ["hands=2", "hands=2"], ["hands= 2"], ["skip=choose", "hands=2"],
    ["hands=2", "skip=next"], ["skip_stacking=true", "hands=2"], ["phases=all", "hands=2"], ["goal=x"],
])
def test_rule_options_not_in_canonical_form_are_the_signers_violation(
        options: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Attack (A72): a seat signs its sit-down with rule options that mean the host's
    ``hands=2`` but are not written as the reference writes them (``hands=02``, upper case,
    a repeated key, a default written out, another order), or that do not parse at all.
    Compared as strings, the host, who wrote ``hands=2`` honestly, was blamed for seating
    somebody under "other rules". Defence: every sit-down's options must be in canonical form
    (PROTOCOL 4.4.1), and one that is not is blamed on the seat that signed it, at entry 0;
    only canonical options that differ from seat 1's are the host's doing."""
    rules = RuleSet.parse(["hands=2"])
    assert rules.options() == ("hands=2",)
    ann, bob, cyd = (Ed25519PrivateKey.from_private_bytes(bytes([i]) * 32) for i in (1, 2, 3))
    table_id = bytes([7]) * 16
    first = sign_sit_down(ann, table_id, 0, "Ann", rules, nonce=bytes([1]) * 16).raw
    honest = sign_sit_down(cyd, table_id, 2, "Cyd", rules, nonce=bytes([3]) * 16).raw
    odd = signed_sit_down(bob, table_id=table_id, seat=1, name="Bob", options=options,
                          nonce=bytes([2]) * 16)
    assert TableState.from_header(table_entry(ann, [first, sign_sit_down(
        bob, table_id, 1, "Bob", rules, nonce=bytes([2]) * 16).raw, honest])).players == 3
    seat, seq, reason = blamed(table_entry(ann, [first, odd, honest]))
    assert (seat, seq) == (1, 0)
    assert reason == "seat 2 signed rule options that are not in canonical form"
    # The audit says the same, counting seats from 1 in its JSON (PROTOCOL §8).
    path = tmp_path / "odd.p2p10"
    path.write_bytes(encode_log([table_entry(ann, [first, odd, honest])]))
    assert main(["audit", "--json", str(path)]) == 1
    assert json.loads(capsys.readouterr().out)["violation"] == {"seat": 2, "entry": 0, "reason": reason}
    # Seat 1's own options not canonical: seat 1's doing, before any comparison.
    own = signed_sit_down(ann, table_id=table_id, seat=0, name="Ann", options=options,
                          nonce=bytes([1]) * 16)
    assert blamed(table_entry(ann, [own, odd, honest]))[:2] == (0, 0)
    # Canonical but other rules than seat 1's: the host seated somebody under other rules.
    other = sign_sit_down(bob, table_id, 1, "Bob", RuleSet.parse(["hands=3"]), nonce=bytes([2]) * 16).raw
    assert blamed(table_entry(ann, [first, other, honest])) == (
        0, 0, "seat 2 sat down to other rules than seat 1")


def test_the_reference_writes_every_rule_set_in_canonical_form() -> None:
    """What ``RuleSet.options()`` writes is canonical, for every combination the rules allow,
    so an honest seat is never blamed by the check above (and old logs stay valid)."""
    count = 0
    for flags in product([False, True], repeat=5):
        for phases, hands, goal in product(("all", "even", "odd"), (0, 1, 2, 10, 12), (0, 1, 5)):
            typed = [o for o, on in zip(("skip=next", "skip_stacking", "natural=phase", "hit=own",
                                         "order=any"), flags, strict=True) if on]
            typed += [f"phases={phases}"] + ([f"hands={hands}"] if hands else [])
            typed += [f"goal={goal}"] if goal else []
            try:
                rules = RuleSet.parse(typed)
            except BadRules:
                continue
            count += 1
            assert canonical_options(rules.options()), rules
            assert RuleSet.parse(list(rules.options())) == rules
    assert count > 200
    assert canonical_options([]) and not canonical_options(["phases=all"])
    assert not canonical_options(["hands=2", "skip=next"]) and canonical_options(["skip=next", "hands=2"])


# ------------------------------------------------------------------ A27: an old game replayed

def test_an_old_games_table_and_entries_cannot_be_replayed_in_a_new_game() -> None:
    """Attack (A27): the same three people, with the same long-lived keys, played game A.
    For game B the host reuses A's table id, then (1) re-issues game A's table entry, so
    that Bob's old signed entries would be valid again and his new ones would sit beside
    them (equivocation, framing Bob); (2) feeds game B an entry of game A. Defence: every
    seat's sit-down has a fresh nonce and the game id is made of them all, so B's game id
    is new: (1) Bob's machine refuses A's table entry, blaming seat 1 at entry 0, and signs
    nothing under A's game id; (2) the entry of A is another game's, the sender charged."""
    old = make_peers([greedy_player] * 3, seed=46)
    network = MemoryNetwork(old)
    open_table(old, NAMES, SHORT, seed=46)
    network.run(lambda: len(old[0].log) >= 6, MAX_SECONDS)
    game_a = old[0].log

    new = make_peers([greedy_player] * 3, seed=46)  # the same identities
    assert [p.identity.private_bytes_raw() for p in new] == [p.identity.private_bytes_raw() for p in old]
    table_id = TableState.from_header(game_a[0]).table_id
    sat = [p.sit_down(table_id, name, SHORT) for p, name in zip(new, NAMES, strict=True)]
    assert TableState.game_id_for(sat) != game_a[0].game_id

    deliver(new[1:2], game_a[0])
    bob = new[1]
    assert bob.table is None and bob.violation is not None
    assert (bob.violation.seat, bob.violation.seq) == (0, 0)
    bob.receive(encode_entry_message(game_a[2].raw), 0, 0.0)
    assert not bob.log  # Bob signs nothing under game A's id: there is nothing to frame him with
    assert {data for _to, data in bob.take_outbox()} == {encode_entry_message(game_a[0].raw)}

    fresh = make_peers([greedy_player] * 3, seed=46)
    network = MemoryNetwork(fresh)
    fresh[0].open_table([p.sit_down(table_id, name, SHORT) for p, name in zip(fresh, NAMES, strict=True)])
    network.run(lambda: all(len(p.log) >= 2 for p in fresh), MAX_SECONDS)
    fresh[1].receive(encode_entry_message(game_a[1].raw), 0, 0.0)
    assert fresh[1].faults == [Fault(0, 1, "an entry of another game")]
    assert not fresh[1].stopped


# --------------------------------------------------------------------------- the lobby

def test_lobby_frames_are_signed_by_their_sender() -> None:
    """Every frame a joiner sends is signed by its key under the lobby's tag: a join proves
    the key it names, and a sit-down message from another key than the seat's is refused."""
    bob = Ed25519PrivateKey.from_private_bytes(bytes([2]) * 32)
    eve = Ed25519PrivateKey.from_private_bytes(bytes([6]) * 32)
    join = ["join", "Bob", public_bytes(bob), "", 4000]
    assert open_signed(signed(bob, join), None) == join
    with pytest.raises(ProtocolError, match="not signed by its sender"):
        open_signed(signed(eve, join), None)
    sat = sign_sit_down(bob, bytes(16), 1, "Bob", SHORT)
    message = signed(bob, ["sit-down", sat.raw])
    assert open_signed(message, public_bytes(bob)) == ["sit-down", sat.raw]
    with pytest.raises(ProtocolError, match="not signed by its sender"):
        open_signed(message, public_bytes(eve))
    payload = msgpack.packb(join)
    bare = msgpack.packb([payload, bob.sign(payload)])  # no domain tag
    with pytest.raises(ProtocolError, match="not signed by its sender"):
        open_signed(bare, None)
    for junk in (b"\xc1", msgpack.packb(join), msgpack.packb([b"", bytes(64)]),
                 signed(bob, ["join", "Bob"])):
        with pytest.raises(ProtocolError):
            open_signed(junk, None)


def test_a_joiner_signs_only_a_roster_that_seats_it_under_its_own_name() -> None:
    """The roster is the host's proposal; a joiner signs its sit-down only for a roster that
    seats its key, under its own name (or with a number to tell it from a namesake)."""
    bob = public_bytes(Ed25519PrivateKey.from_private_bytes(bytes([2]) * 32))
    ann = public_bytes(Ed25519PrivateKey.from_private_bytes(bytes([1]) * 32))

    def roster(name: str, keys: tuple[bytes, ...] = (ann, bob)) -> object:
        seats = [SeatInfo(n, k, "", 4000) for n, k in zip(["Ann", name], keys, strict=True)]
        return unpack(roster_message(bytes(16), SHORT, seats))

    for proposed in ("Bob", "Bob 2"):
        assert check_roster(roster(proposed), bob, "Bob", ann)[2][1].name == proposed
    assert renamed("Guest 12", "Guest") and not renamed("Eve", "Bob") and not renamed("2", "Bob")
    with pytest.raises(LanError, match="another name"):
        check_roster(roster("Bob (Ann's bot)"), bob, "Bob", ann)
    with pytest.raises(LanError, match="does not seat this peer"):
        stranger = public_bytes(Ed25519PrivateKey.from_private_bytes(bytes([9]) * 32))
        check_roster(roster("Bob", (ann, stranger)), bob, "Bob", ann)


async def _lobby_game(sign_as: dict[str, object]) -> tuple[list[SitDown] | LanError, object, Peer | None]:
    """A real lobby on 127.0.0.1 with one joiner, Bob, who signs his sit-down with the terms
    ``sign_as`` changes: what the host's ``gather`` gives, what Bob's ``take_seat`` gives, and
    Bob's peer."""
    ann, bob = (Ed25519PrivateKey.from_private_bytes(bytes([i]) * 32) for i in (1, 2))
    table_id = bytes([4]) * 16

    async def changed() -> None:
        return None

    lobby = Lobby(table_id, SHORT, SeatInfo("Ann", public_bytes(ann), "", 4001), 2, 0, lambda _: None,
                  changed)
    runner, port = await listen({LOBBY_PATH: lobby.handle}, "127.0.0.1", identity=ann)
    made: list[Peer] = []

    def sign(table: bytes, rules: RuleSet, roster: list[SeatInfo], seat: int) -> SitDown:
        made.append(Peer(seat, bob))
        honest = made[0].sit_down(table, roster[seat].name, rules)
        return parse_sit_down(signed_sit_down(bob, **{**dict(zip(
            ["table_id", "seat", "name", "run_by", "options", "nonce"],
            [honest.table_id, honest.seat, honest.name, honest.run_by, list(honest.options), honest.nonce],
            strict=True)), **sign_as}))  # type: ignore[arg-type]

    try:
        joining = asyncio.ensure_future(take_seat(("127.0.0.1", port), "Bob", bob, ("127.0.0.1", 4000),
                                                  sign, lambda _: None))
        await lobby.wait_full()
        host = Peer(0, ann)
        gathered: list[SitDown] | LanError
        try:
            gathered = await lobby.gather({0: host.sit_down(table_id, "Ann", SHORT)})
        except LanError as err:
            gathered = err
        joined = (await asyncio.gather(joining, return_exceptions=True))[0]
    finally:
        await runner.cleanup()
    return gathered, joined, made[0] if made else None


async def test_the_lobby_gathers_every_seats_sit_down_over_a_real_link() -> None:
    """Over a real websocket: Bob joins (signed), gets the roster, signs his sit-down; the
    host gathers it and writes the table entry, which Bob's machine accepts."""
    gathered, joined, bob = await _lobby_game({})
    assert isinstance(gathered, list) and [s.name for s in gathered] == ["Ann", "Bob"]
    assert isinstance(joined, tuple) and joined[0] == bytes([4]) * 16
    ann = Peer(0, Ed25519PrivateKey.from_private_bytes(bytes([1]) * 32))
    ann.open_table(gathered)
    assert bob is not None and bob.own_sit_down == gathered[1]
    bob.receive(encode_entry_message(ann.log[0].raw), 0, 0.0)
    assert bob.table is not None and bob.table.names == ("Ann", "Bob") and not bob.faults


@pytest.mark.parametrize("change", [{"name": "Robert"}, {"run_by": 0}, {"options": []}])
async def test_the_host_refuses_a_sit_down_that_is_not_the_rosters(change: dict[str, object]) -> None:
    """A joiner whose sit-down says something else than the roster (another name, a bot,
    other rules) stops the table before it starts: the host says why, and so does Bob."""
    gathered, joined, _bob = await _lobby_game(change)
    assert isinstance(gathered, LanError) and "Bob signed another seat, name or rules" in str(gathered)
    assert isinstance(joined, LanError) and "the host refused the seat: Bob signed another" in str(joined)


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1) | st.text(max_size=40)
    | st.binary(max_size=40) | st.floats(allow_nan=False),
    lambda inner: st.lists(inner, max_size=5), max_leaves=12)
_TERMS = st.tuples(st.binary(min_size=16, max_size=16) | _VALUES, st.integers(0, 6) | _VALUES,
                   st.sampled_from(["Bob", "", "x" * 33, "a\\nb"]) | _VALUES, st.just(None) | _VALUES,
                   st.none() | st.integers(-1, 7) | _VALUES,
                   st.lists(st.sampled_from(["hands=1", "goal=x", "hands=2", "é"]), max_size=3) | _VALUES,
                   st.binary(min_size=16, max_size=16) | _VALUES)


@settings(max_examples=60, deadline=None)
@given(terms=_TERMS)
def test_any_signed_sit_down_is_accepted_or_blamed_on_seat_1(terms: tuple[object, ...]) -> None:
    """Whatever a seat signs as its sit-down, the table entry that carries it is accepted or
    refused with the blame on seat 1 at entry 0, or on the seat itself for rule options not
    in canonical form (A72): never another exception."""
    ann, bob = (Ed25519PrivateKey.from_private_bytes(bytes([i]) * 32) for i in (1, 2))
    table_id, seat, name, key, run_by, options, nonce = terms
    raw = signed_sit_down(bob, table_id=table_id, seat=seat, name=name,  # type: ignore[arg-type]
                          key=key if isinstance(key, bytes) and len(key) == 32 else None,
                          run_by=run_by, options=options, nonce=nonce)  # type: ignore[arg-type]
    first = sign_sit_down(ann, table_id if isinstance(table_id, bytes) and len(table_id) == 16 else bytes(16),
                          0, "Ann", SHORT)
    entry = make_entry(ann, bytes(16), 0, bytes(32), 0, "table", [PROTOCOL_NAME, [first.raw, raw]])
    try:
        table = TableState.from_header(entry)
    except ProtocolViolation as err:
        # Seat 2's own signed options not in canonical form are seat 2's (A72).
        assert (err.seat, err.seq) == (0, 0) or (
            (err.seat, err.seq) == (1, 0)
            and err.reason == "seat 2 signed rule options that are not in canonical form")
    else:
        assert table.players == 2  # only with the right game id, which bytes(16) is not


def test_whatever_fails_after_seat_1_signed_the_table_entry_is_blamed_on_seat_1(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The header check is total: once the table entry's signature verifies for seat 1, a
    failure nobody foresaw (here the rules parser breaking) is seat 1's, at entry 0, not an
    abort with nobody blamed."""
    ann, bob = (Ed25519PrivateKey.from_private_bytes(bytes([i]) * 32) for i in (1, 2))
    sits = [sign_sit_down(key, bytes(16), seat, name, SHORT) for seat, (key, name)
            in enumerate(((ann, "Ann"), (bob, "Bob")))]
    entry = make_entry(ann, TableState.game_id_for(sits), 0, bytes(32), 0, "table",
                       [PROTOCOL_NAME, [s.raw for s in sits]])
    assert TableState.from_header(entry).names == ("Ann", "Bob")

    def broken(*_args: object) -> RuleSet:
        raise RuntimeError("a bug")

    monkeypatch.setattr(RuleSet, "parse", broken)
    with pytest.raises(ProtocolViolation) as caught:
        fold(None, entry)
    assert (caught.value.seat, caught.value.seq) == (0, 0) and "RuntimeError" in caught.value.reason
