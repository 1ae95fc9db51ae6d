"""The fold is total: whatever a signed entry makes it do that is not "accepted" is a violation
pinned on its author and its entry, live (``TableState.apply``, a :class:`Peer`) and offline
(``p2p10 audit``, ``p2p10 replay``); never a traceback, never an abort with nobody blamed.

Unsigned bytes (a crafted file) are nobody's statement: the commands then say in one line what
is wrong with the file (exit 2 for a file that is not a log, 1 for a log with a violation).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli.main import main
from p2p10.cards import is_natural
from p2p10.errors import ProtocolViolation
from p2p10.events import DrawStock, LayDown, MeldSpec
from p2p10.hand_crypto import away_message
from p2p10.log import (
    VERSION,
    BadEntry,
    Entry,
    encode_log,
    file_header,
    make_entry,
    parse_entry,
    public_bytes,
    record,
)
from p2p10.peer import Peer, encode_entry_message
from p2p10.rules import RuleSet
from p2p10.signing import Domain, sign
from p2p10.simulate import greedy_player
from p2p10.table import TableState, fold
from p2p10.wire import AwayBody
from protocol.memory import MemoryNetwork, make_peers, open_table

ANY_ORDER = RuleSet.parse(["order=any"])
DEPTH = 1000


def nested(depth: int = DEPTH) -> bytes:
    """msgpack for a list nested ``depth`` deep around a 0 (too deep for ``packb`` to write)."""
    return b"\x91" * depth + b"\x00"


def packed_array(items: list[bytes]) -> bytes:
    """A msgpack array of already encoded items (for bodies ``packb`` cannot write)."""
    assert len(items) < 16
    return bytes([0x90 | len(items)]) + b"".join(items)


def pack(value: Any) -> bytes:
    return bytes(msgpack.packb(value, use_bin_type=True))


def signed(peer: Peer, kind: str, body: bytes, *, version: bytes = pack(VERSION)) -> Entry:
    """An entry that ``peer`` signs at the next position of its log, with ``body`` as encoded."""
    table = peer.table
    assert table is not None
    payload = packed_array([version, pack(table.game_id), pack(len(peer.log)), pack(table.last_hash),
                            pack(peer.seat), pack(kind), body])
    raw = pack([payload, sign(peer.identity, Domain.ENTRY, payload)])
    return parse_entry(raw)


def to_move(seed: int) -> tuple[list[Peer], MemoryNetwork, Peer]:
    """Two people at an ``order=any`` table, run until the seat to move has drawn."""
    peers = make_peers([None, None], seed=seed)
    network = MemoryNetwork(peers)
    open_table(peers, ["Ann", "Bob"], ANY_ORDER, seed=seed)

    def waiting_for_a_move() -> bool:
        return all(p.table is not None and p.table.expected() is not None
                   and p.table.expected().kind == "move" for p in peers)  # type: ignore[union-attr]

    network.run(waiting_for_a_move)
    table = peers[0].table
    assert table is not None
    mover = peers[table.expected().seat]  # type: ignore[union-attr]
    mover.play(DrawStock(mover.seat))
    network.run(waiting_for_a_move)
    assert all(p.table.engine.stage == "play" for p in peers)  # type: ignore[union-attr]
    return peers, network, mover


def assert_blamed_everywhere(peers: list[Peer], author: Peer, entry: Entry, tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    """The fold, every other peer, the audit and the replay pin ``entry`` on its author."""
    seat, seq = author.seat, entry.seq
    table = author.table
    assert table is not None
    with pytest.raises(ProtocolViolation) as caught:
        table.apply(entry)
    assert (caught.value.seat, caught.value.seq) == (seat, seq)
    assert len(str(caught.value)) < 300
    for peer in peers:
        if peer is author:
            continue
        peer.receive(encode_entry_message(entry.raw), author.seat, 1000.0)
        assert peer.violation is not None
        assert (peer.violation.seat, peer.violation.seq) == (seat, seq)
        assert peer.evidence == [entry.raw]
    path = tmp_path / "attacked.p2p10"
    path.write_bytes(encode_log([*author.log, entry]))
    capsys.readouterr()
    assert main(["audit", str(path)]) == 1
    verdict = capsys.readouterr().out.splitlines()[-1]
    assert verdict.startswith(f"VIOLATION: seat {seat + 1}: entry {seq}: "), verdict
    assert len(verdict) < 300
    assert main(["replay", "--text", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith(f"VIOLATION at entry {seq}: seat {seat + 1}: "), out[-1]
    assert len(out[-1]) < 300


# ----------------------------------------------------------------- a body nested 1000 deep

@pytest.mark.parametrize("where", ["hand", "slot", "target", "tokens", "action"])
def test_a_signed_move_nested_a_thousand_deep_is_blamed_on_its_author(
        where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Attack: the seat to move signs a discard one of whose fields is a list nested 1000 deep
    (valid msgpack, a well-chained entry with a good signature). Error messages that repeated
    peer data with ``!r`` hit Python's recursion limit, and the table aborted with nobody
    blamed. Defence: the codec checks the nesting and every field's type before anything else
    reads it; the entry is a violation of its author at its position."""
    peers, _network, mover = to_move(701)
    table = mover.table
    assert table is not None
    slot = table.engine.hands[mover.seat][0]
    fields = {"hand": pack(table.hand.number), "action": pack("discard"),  # type: ignore[union-attr]
              "slot": pack(slot), "target": pack(None), "tokens": pack([])}
    fields[where] = nested()
    body = packed_array(list(fields.values()))
    entry = signed(mover, "move", body)
    assert_blamed_everywhere(peers, mover, entry, tmp_path, capsys)


# -------------------------------------------------------------- a colour label out of range

@pytest.mark.parametrize("label", [4, 12, 99, 2**63, -1, 2**64 - 1])
def test_a_colour_label_out_of_range_is_blamed_on_its_author(
        label: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Attack: under ``order=any`` the seat to move lays down phase 8 (seven cards of one
    colour) with a real card of its hand and colour label 99 (or 2^63). The meld check looked
    the label's name up in the list of four colours: IndexError, a traceback, nobody blamed.
    Defence: the codec bounds every label, and the meld check names a label that is no colour
    without indexing by it; the lay-down is refused and pinned on its author."""
    peers, _network, mover = to_move(702)
    table = mover.table
    assert table is not None
    view = mover.view()
    slot = next(s for s in view.hands[mover.seat] if is_natural(view.known[s]))
    lay = LayDown(mover.seat, 8, (MeldSpec((slot,), (view.known[slot],), label),))
    entry = signed(mover, "move", pack(mover.build_move(table, lay)))
    assert_blamed_everywhere(peers, mover, entry, tmp_path, capsys)


def test_a_wrong_colour_label_on_a_real_group_is_named_in_words() -> None:
    """The meld check itself: a label that is not one of the four colours is refused with a
    bounded reason, whatever its size, instead of indexing the colour names with it."""
    from p2p10.melds import MeldError, check_meld

    red = next(c for c in range(108) if is_natural(c))
    for label in (99, 2**63, -5):
        with pytest.raises(MeldError, match="no colour"):
            check_meld("color", [red], 1, label)


# ------------------------------------------------------------- an unsigned crafted file

def crafted_file(tmp_path: Path, payload: bytes) -> Path:
    path = tmp_path / "crafted.p2p10"
    path.write_bytes(file_header() + record(pack([payload, bytes(64)])))
    return path


@pytest.mark.parametrize("command", ["audit", "replay"])
def test_an_unsigned_file_with_a_nested_version_is_a_damaged_log(
        command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Attack: a crafted ``.p2p10`` file whose first entry has a version field nested 1000
    deep. ``audit`` and ``replay`` printed a RecursionError traceback. Defence: parsing an entry
    never repeats peer data unbounded; the file's first entry is malformed: one line, no seat
    blamed, exit 1."""
    payload = packed_array([nested(), pack(bytes(16)), pack(0), pack(bytes(32)), pack(0), pack("table"),
                            pack([])])
    path = crafted_file(tmp_path, payload)
    args = [command, str(path)] if command == "audit" else [command, "--text", str(path)]
    assert main(args) == 1
    out = capsys.readouterr()
    last = out.out.splitlines()[-1]
    assert "entry 0" in last and "version" in last and len(last) < 300, last
    assert "Traceback" not in out.err


def test_the_signed_version_field_is_checked_with_a_bounded_reason() -> None:
    payload = packed_array([pack(["x" * 10_000]), pack(bytes(16)), pack(0), pack(bytes(32)), pack(0),
                            pack("table"), pack([])])
    with pytest.raises(BadEntry, match=f"version .* is not {VERSION}") as caught:
        parse_entry(pack([payload, bytes(64)]))
    assert len(str(caught.value)) < 200


# ------------------------------------------------------------------ any file, one clear line

@pytest.fixture(scope="module")
def short_log() -> bytes:
    """The log of a table run until its first move has been drawn (a real, unfinished game)."""
    peers, _network, _mover = to_move(703)
    return encode_log(peers[0].log)


def damaged_files(log: bytes) -> dict[str, tuple[bytes, int, str]]:
    """name -> (file bytes, exit status, a phrase of the one line that says what is wrong)."""
    deep = b"\x91" * 200_000 + b"\x00"
    torn = "not a whole entry"
    return {
        "empty": (b"", 2, "empty"),
        "junk": (bytes(range(256)) * 64, 2, "not a p2p10 game log"),
        "magic only": (b"P2P10LOG", 2, "format version"),
        "another version": (b"P2P10LOG\x07" + record(b"x"), 2, "format version"),
        "header only": (file_header(), 1, "empty"),
        "a junk record": (file_header() + record(b"\xc1junk"), 1, "entry 0"),
        "nested garbage": (file_header() + record(deep[:60_000]), 1, "entry 0"),
        "a huge length": (file_header() + (2**32 - 1).to_bytes(4, "big") + bytes(100), 1, torn),
        "cut short": (log[:-7], 1, torn),
        "a cut length": (log + b"\x00\x01", 1, torn),
        "an unsigned table entry": (file_header() + record(pack([pack([1, bytes(16), 0, bytes(32), 0, "table",
                                                                     ["p2p10/1", ["x" * 5000], []]]),
                                                               bytes(64)])), 1, "entry 0"),
    }


@pytest.mark.parametrize("name", list(damaged_files(b"")))
@pytest.mark.parametrize("command", ["audit", "audit --json", "replay"])
def test_any_file_gives_one_clear_line_and_an_exit_status(
        name: str, command: str, short_log: bytes, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Whatever the file holds, ``audit`` and ``replay`` end with one bounded line saying what
    is wrong: exit 2 for a file that is not a log, 1 for a log with a violation; never a
    traceback."""
    data, status, phrase = damaged_files(short_log)[name]
    path = tmp_path / "file.p2p10"
    path.write_bytes(data)
    words = command.split()
    args = [words[0], *words[1:], *(["--text"] if words[0] == "replay" else []), str(path)]
    capsys.readouterr()
    assert main(args) == status
    out = capsys.readouterr()
    lines = out.err.splitlines() if status == 2 else out.out.splitlines()
    assert lines, out
    last = lines[-1]
    if "--json" in words and status != 2:
        last = json.loads(last)["verdict"]
    if status == 2:
        assert len(lines) == 1 and not out.out and phrase in last, out
    else:
        assert phrase in last, last
    assert len(last) < 400, last


@pytest.mark.parametrize("where", ["missing", "directory"])
def test_a_path_that_is_no_file_is_not_a_log(where: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nothing.p2p10" if where == "missing" else tmp_path
    for args in (["audit", str(path)], ["replay", "--text", str(path)]):
        assert main(args) == 2
        err = capsys.readouterr().err.splitlines()
        assert len(err) == 1 and ("no such file" in err[0] or "directory" in err[0])


# ---------------------------------------------------------- any signed body: accepted or blamed

@dataclass(frozen=True)
class Position:
    """A position of a real game: the fold before it (a peer's, and the audit's, which defers
    the hand's proofs to its reveals), the honest entry written there, and every seat's key."""

    name: str
    table: TableState
    honest: Entry
    keys: tuple[Ed25519PrivateKey, ...]
    deferring: TableState | None = None

    def __repr__(self) -> str:
        return f"<position {self.name}, entry {self.honest.seq}>"


@pytest.fixture(scope="module")
def positions() -> dict[str, Position]:
    """One position of a real two-seat game per kind of writing: every body kind, each stage of
    the tokens, each stage of a move, and the reveal that completes the hand's check."""
    peers = make_peers([greedy_player, greedy_player], seed=704)
    network = MemoryNetwork(peers)
    open_table(peers, ["Ann", "Bob"], RuleSet.parse(["hands=1"]), seed=704)
    network.run(lambda: all(p.finished for p in peers))
    log = peers[0].log
    found: dict[str, Position] = {}
    table = fold(None, log[0])
    deferring = fold(None, log[0], defer_proofs=True)
    for entry in log[1:]:
        name = entry.kind
        if entry.kind == "tokens":
            name += f"/{table.hand.stage}"  # type: ignore[union-attr]
        elif entry.kind == "move":
            name += f"/{entry.body[1]}"
        if entry.kind == "reveal" and entry.author == table.players - 1:
            name += "/last"
        found.setdefault(name, Position(name, table, entry, tuple(p.identity for p in peers), deferring))
        table = table.apply(entry)
        deferring = deferring.apply(entry)
    assert set(found) >= set(NAMES)
    return found


def sign_at(position: Position, kind: str, body: Any) -> Entry | None:
    """``body`` signed by the seat entitled to write an entry of ``kind`` at ``position`` (for
    ``away``, the runner who would go on without the awaited machine); None when msgpack
    cannot write it."""
    table, honest = position.table, position.honest
    author = table.runner_for(table.awaited_machine() or 0) if kind == "away" else honest.author
    assert author is not None
    try:
        return make_entry(position.keys[author], table.game_id, honest.seq, table.last_hash, author,
                          kind, body)
    except (ValueError, TypeError, OverflowError, BadEntry):
        return None  # not msgpack (a too-big int) or more than an entry may hold


def assert_accepted_or_blamed(position: Position, entry: Entry | None) -> None:
    """The entry is accepted, or blamed on its author at its position: by a peer's fold, and by
    the audit's, which may find it only when it makes the checks it put off (as it does where
    the log ends: here, right after the entry)."""
    if entry is None:
        return
    folds = [lambda: position.table.apply(entry)]
    if position.deferring is not None:
        deferring = position.deferring
        folds.append(lambda: deferring.apply(entry).check_deferred())
    for run in folds:
        try:
            run()
        except ProtocolViolation as err:
            assert (err.seat, err.seq) == (entry.author, entry.seq), str(err)
            assert len(err.reason) <= 400


# Values at the edges of what the codec and the rules take come up as often as any other kind.
special = st.sampled_from(["draw", "take", "lay", "hit", "discard", "low", "high", -1, 0, 1, 2, 3, 4, 7, 8,
                           10, 11, 12, 13, 99, 107, 108, 255, 2**32, 2**63, 2**64 - 1, bytes(32), bytes(64)])
leaves = st.one_of(special, special, st.none(), st.booleans(), st.integers(-2**64, 2**64),
                   st.floats(allow_nan=False), st.text(max_size=20), st.binary(max_size=100))
values = st.recursive(leaves, lambda inner: st.lists(inner, max_size=6)
                      | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=25)
bodies = st.lists(values, max_size=7) | values  # mostly arrays, as every body is
KINDS = ["key", "shuffle", "tokens", "move", "reveal", "away", "table"]
NAMES = ["key", "shuffle", "tokens/deal_tokens", "tokens/draw_tokens", "move/draw", "move/discard", "reveal",
         "reveal/last"]


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(KINDS), body=bodies)
def test_any_signed_body_is_accepted_or_blamed_on_its_author(
        positions: dict[str, Position], name: str, kind: str, body: Any) -> None:
    """Arbitrary msgpack signed by the seat entitled to write, as any body kind, at a position
    of every stage: the fold accepts it or names that seat and that entry, never anything
    else."""
    assert_accepted_or_blamed(positions[name], sign_at(positions[name], kind, body))


def mutations(body: Any) -> st.SearchStrategy[Any]:
    """Near-valid variants of a real body: one part anywhere in it replaced by an arbitrary
    value, dropped, or doubled."""
    paths: list[tuple[int, ...]] = []
    stack: list[tuple[Any, tuple[int, ...]]] = [(body, ())]
    while stack:
        item, path = stack.pop()
        paths.append(path)
        if isinstance(item, list):
            stack.extend((child, (*path, i)) for i, child in enumerate(item) if len(path) < 4)

    def change(path: tuple[int, ...], how: str, value: Any) -> Any:
        if not path:
            return value
        out = copy.deepcopy(body)
        parent = out
        for i in path[:-1]:
            parent = parent[i]
        last = path[-1]
        if how == "replace":
            parent[last] = value
        elif how == "drop":
            del parent[last]
        else:
            parent.insert(last, parent[last])
        return out

    shallow = [p for p in paths if len(p) <= 2]  # a body's own fields, and their items, most often
    where = st.sampled_from(shallow) | st.sampled_from(paths)
    return st.builds(change, where, st.sampled_from(["replace", "replace", "drop", "double"]), values)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_near_valid_signed_body_is_accepted_or_blamed_on_its_author(
        positions: dict[str, Position], data: st.DataObject, name: str) -> None:
    """A real body changed in one place (a field replaced, dropped or doubled, at any depth),
    signed by its author: accepted, or a violation of that seat at that entry."""
    position = positions[name]
    body = data.draw(mutations(position.honest.body))
    assert_accepted_or_blamed(position, sign_at(position, position.honest.kind, body))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_shaped_move_is_accepted_or_blamed_on_its_author(positions: dict[str, Position],
                                                           data: st.DataObject) -> None:
    """Moves of the right length for their action, with fields near what the rules expect
    (the mover's own slots, real token items, labels and phases around their ranges)."""
    position = positions["move/discard"]
    table = position.table
    seat = position.honest.author
    own = list(table.engine.hands[seat]) or [0]
    slot = st.sampled_from(own) | st.integers(-1, 300)
    token_items = st.lists(st.sampled_from(position.honest.body[-1] or [[0, bytes(32), bytes(96)]]),
                           max_size=3)
    label = st.none() | st.integers(-2, 14) | st.just(2**63)
    meld = st.tuples(st.lists(slot, min_size=1, max_size=8), label).map(list)
    hand = st.just(position.honest.body[0]) | st.integers(-1, 3)
    body = data.draw(st.one_of(
        st.tuples(hand, st.just("lay"), st.integers(0, 11), st.lists(meld, min_size=0, max_size=3),
                  token_items),
        st.tuples(hand, st.just("hit"), slot, st.integers(-1, 14), st.sampled_from([None, "low", "high", 1]),
                  token_items),
        st.tuples(hand, st.just("discard"), slot, st.none() | st.integers(-1, 7), token_items),
        st.tuples(hand, st.sampled_from(["draw", "take"])),
    ).map(list))
    assert_accepted_or_blamed(position, sign_at(position, "move", body))


@pytest.fixture(scope="module")
def away_position() -> Position:
    """A three-seat table waiting for seat 3's move, and the away entry that every other player
    agreed to (Ann runs the bot, Bob agrees): the honest body that the mutations start from."""
    peers = make_peers([greedy_player] * 3, seed=705)
    network = MemoryNetwork(peers)
    open_table(peers, ["Ann", "Bob", "Cyd"], RuleSet.parse(["hands=1"]), seed=705)

    def cyd_to_move() -> bool:
        table = peers[0].table
        expect = table.expected() if table else None
        return expect is not None and expect.kind == "move" and expect.seat == 2

    network.run(cyd_to_move)
    table = peers[0].table
    assert table is not None and table.runner_for(2) == 0 and table.consenters(2) == (1,)
    seq = table.seq
    agreement = sign(peers[1].identity, Domain.AGREEMENT,
                     away_message(table.game_id, seq, table.last_hash, 2))
    bot_key = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
    body = AwayBody(2, ((2, public_bytes(bot_key)),), ((1, agreement),)).to_wire()
    honest = make_entry(peers[0].identity, table.game_id, seq, table.last_hash, 0, "away", body)
    assert table.apply(honest).run_by[2] == 0
    return Position("away", table, honest, tuple(p.identity for p in peers))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_near_valid_away_entry_is_accepted_or_blamed_on_its_author(away_position: Position,
                                                                    data: st.DataObject) -> None:
    """The away entry every other player agreed to, changed in one place and signed by the
    runner: accepted, or a violation of the runner at that entry."""
    body = data.draw(mutations(away_position.honest.body))
    assert_accepted_or_blamed(away_position, sign_at(away_position, "away", body))
