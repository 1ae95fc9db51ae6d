"""This machine's checkpoint of a saved log (``protocol.checkpoint``): a resume from it is the
full refold, field by field and seat by seat; a checkpoint that is stale, cut, another game's,
bound to another key, garbage or a pickle that would run code is thrown away and never changes
a verdict; and the table keeps it as it plays and when it resumes."""

from __future__ import annotations

import io
import os
import pickle
import random
import stat
from pathlib import Path
from typing import Any

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from p2p10.bots import POLICIES
from p2p10.engine import GameState
from p2p10.errors import SavedFileError
from p2p10.game_fields import GAME_FIELDS
from p2p10.log import Entry
from p2p10.peer import Peer
from p2p10.rules import RuleSet
from p2p10.saved_log import check_saved, parse_saved
from p2p10.table import TableState, fold
from p2p10.table_reading import TABLE_FIELDS
from protocol import checkpoint
from protocol.local import USER, LocalTable
from protocol.storage import LogWriter, SeatFiles, read_log, read_secrets, resume_peer
from tests.test_play_resume import drive, new_table

TWO_HANDS = RuleSet.parse(["hands=2"])


def play_until(folder: Path, stop: Any, seed: int = 3) -> LocalTable:
    """A game of the user and two bots saved in ``folder``, played until ``stop(table)``."""
    local = new_table(folder, seed, bots=2, rules=TWO_HANDS)
    drive(local, stop, random.Random(seed))
    return local


def second_hand_in_play(local: LocalTable) -> bool:
    table = local.table
    hand = table.hand if table is not None else None
    return hand is not None and hand.number == 1 and hand.stage == "play"


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A game quit in the second hand's play, its checkpoint removed: the log and secrets."""
    folder = tmp_path_factory.mktemp("game")
    local = play_until(folder, second_hand_in_play)
    local.close()
    SeatFiles(local.log_path).checkpoint.unlink()
    return local.log_path


@pytest.fixture
def log(game: Path, tmp_path: Path) -> Path:
    """A fresh copy of the game's files (no checkpoint)."""
    for path in game.parent.iterdir():
        if path.name.startswith(game.stem) and not path.name.endswith(".p2p10-checked"):
            (tmp_path / path.name).write_bytes(path.read_bytes())
    return tmp_path / game.name


def fields(value: Any) -> Any:
    """A table state (or anything in it) as plain values to compare: every slot of a state and
    of its game, public keys as their bytes."""
    if isinstance(value, TableState):
        return {name: fields(getattr(value, name)) for name in TABLE_FIELDS}
    if isinstance(value, GameState):
        return {name: getattr(value, name) for name in GAME_FIELDS}
    if isinstance(value, Ed25519PublicKey):
        return value.public_bytes_raw()
    if isinstance(value, tuple):
        return tuple(fields(item) for item in value)
    return value


def entries_of(path: Path) -> tuple[list[bytes], list[Entry]]:
    records = read_log(path)
    return records, parse_saved(records)


def boundaries(entries: list[Entry]) -> dict[str, int]:
    """Positions to cut the log at: mid-deal of hand 1, in its play, between the hands, in the
    second deal."""
    table: TableState | None = None
    found: dict[str, int] = {}
    for index, entry in enumerate(entries):
        table = fold(table, entry, postpone=True)
        hand = table.hand
        if hand is not None and hand.number == 0 and hand.stage == "shuffle":
            found.setdefault("mid-deal", index + 1)
        if hand is not None and hand.number == 0 and hand.stage == "play":
            found.setdefault("in play", index + 5)
        if hand is None and table.hands_started == 1:
            found.setdefault("between hands", index + 1)
        if hand is not None and hand.number == 1 and hand.stage == "deal_tokens":
            found.setdefault("second deal", index + 1)
    assert len(found) == 4
    return found


def seats_of(log: Path) -> list[Path]:
    files = SeatFiles(log)
    return [files.secrets, files.bot_secrets(1), files.bot_secrets(2)]


def test_a_resume_from_a_checkpoint_is_the_full_refold(log: Path) -> None:
    records, entries = entries_of(log)
    full = check_saved(entries)
    assert full is not None and full.seq == len(entries)
    for where, cut in boundaries(entries).items():
        since = check_saved(entries[:cut])
        assert since is not None
        assert checkpoint.save(log, records, since)
        loaded = checkpoint.load(log, records, entries)
        assert loaded is not None and loaded.seq == cut, where
        assert fields(loaded) == fields(since), where
        resumed = check_saved(entries, loaded)
        assert fields(resumed) == fields(full), where
        for path in seats_of(log):
            seat, identity, hands = read_secrets(path)
            one = Peer.resumed(seat, identity, entries, resumed, hands)
            other = Peer.restore(seat, identity, records, hands)
            assert fields(one.view()) == fields(other.view()), (where, seat)
            assert [e.raw for e in one.log] == [e.raw for e in other.log]


def test_read_saved_goes_on_from_a_fitting_checkpoint(log: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records, entries = entries_of(log)
    cut = boundaries(entries)["between hands"]
    since = check_saved(entries[:cut])
    assert since is not None and checkpoint.save(log, records, since)
    started: list[int | None] = []
    real = checkpoint.check_saved

    def spy(entries: list[Entry], since: TableState | None = None) -> TableState | None:
        started.append(None if since is None else since.seq)
        return real(entries, since)

    monkeypatch.setattr(checkpoint, "check_saved", spy)
    saved = checkpoint.read_saved(log)
    assert started == [cut]  # only the entries after the checkpoint were folded
    assert fields(saved.table) == fields(check_saved(entries))
    # It wrote the checkpoint again, covering the whole log: the next resume folds nothing.
    started.clear()
    checkpoint.read_saved(log)
    assert started == [len(entries)]


def garbage(path: Path, log: Path, other: Path) -> None:
    path.write_bytes(os.urandom(5000))


def cut_short(path: Path, log: Path, other: Path) -> None:
    path.write_bytes(path.read_bytes()[:-100])


def flipped(path: Path, log: Path, other: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 1
    path.write_bytes(bytes(data))


def empty(path: Path, log: Path, other: Path) -> None:
    path.write_bytes(b"")


def another_games(path: Path, log: Path, other: Path) -> None:
    """Another game's checkpoint, written by this machine (its MAC verifies)."""
    checkpoint.read_saved(other)
    path.write_bytes(SeatFiles(other).checkpoint.read_bytes())


def another_key(path: Path, log: Path, other: Path) -> None:
    """This checkpoint, but the machine's key has changed since."""
    checkpoint.key_path().write_bytes(os.urandom(32))


def another_code(path: Path, log: Path, other: Path) -> None:
    """Written by another version of the program (under this machine's key)."""
    _write(log, [bytes(32), *_header(path)[1:]], _payload(path))


def wrong_state(path: Path, log: Path, other: Path) -> None:
    """Another game's state under this log's digest (under this machine's key): a bug that
    must not pass."""
    records = read_log(log)
    foreign = check_saved(parse_saved(read_log(other)))
    assert foreign is not None and foreign.seq < len(records)
    _write(log, [checkpoint.code_fingerprint(), foreign.seq, checkpoint.prefix_digest(records, foreign.seq)],
           _pickled(foreign))


def log_edited(path: Path, log: Path, other: Path) -> None:
    """The log was changed before the checkpoint's end: a byte of its fourth entry."""
    data = bytearray(log.read_bytes())
    data[data.find(read_log(log)[3]) + 20] ^= 1
    log.write_bytes(bytes(data))


def log_cut(path: Path, log: Path, other: Path) -> None:
    """The log was cut back before the checkpoint's end (a rollback)."""
    writer = LogWriter(log)
    writer.keep_first(len(writer.records) - 3)
    writer.close()


def _header(path: Path) -> list[Any]:
    data = path.read_bytes()
    start = len(checkpoint.MAGIC) + 1
    size = int.from_bytes(data[start:start + 4], "big")
    header = msgpack.unpackb(data[start + 4:start + 4 + size])
    assert isinstance(header, list)
    return header


def _payload(path: Path) -> bytes:
    data = path.read_bytes()[:-checkpoint.MAC_BYTES]
    start = len(checkpoint.MAGIC) + 1
    size = int.from_bytes(data[start:start + 4], "big")
    return data[start + 4 + size:]


def _pickled(table: TableState) -> bytes:
    buffer = io.BytesIO()
    checkpoint._Pickler(buffer).dump(table)
    return buffer.getvalue()


def _write(log: Path, header: list[Any], payload: bytes) -> None:
    """A checkpoint with a valid MAC under this machine's key, holding what the test says."""
    key = checkpoint.machine_key()
    assert key is not None
    packed = msgpack.packb(header, use_bin_type=True)
    body = checkpoint.MAGIC + bytes([checkpoint.FORMAT]) + len(packed).to_bytes(4, "big") + packed + payload
    SeatFiles(log).checkpoint.write_bytes(body + checkpoint._mac(key, body))


@pytest.fixture(scope="module")
def other(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Another game's log, in its first hand."""
    local = play_until(tmp_path_factory.mktemp("other"), lambda local: len(local.user.log) > 60, seed=9)
    local.close()
    return local.log_path


@pytest.mark.parametrize("damage", [garbage, cut_short, flipped, empty, another_games, another_key,
                                    another_code, wrong_state, log_edited, log_cut])
def test_a_checkpoint_that_does_not_fit_is_thrown_away(log: Path, other: Path, damage: Any) -> None:
    checkpoint.read_saved(log)  # writes the checkpoint of the whole log
    path = SeatFiles(log).checkpoint
    records, entries = entries_of(log)
    assert checkpoint.load(log, records, entries) is not None
    damage(path, log, other)
    records = read_log(log)
    entries = parse_saved(records)
    assert checkpoint.load(log, records, entries) is None
    try:
        full: Any = fields(check_saved(entries))
    except SavedFileError as err:
        full = str(err)
    try:
        resumed: Any = fields(checkpoint.read_saved(log).table)
    except SavedFileError as err:
        resumed = str(err).removeprefix(f"{log}: ")
    assert resumed == full
    # Rebuilt: it fits the log as it is now.
    assert isinstance(full, str) or checkpoint.load(log, records, entries) is not None


class Planted:
    """What a checkpoint that runs code on loading would do: leave a file behind."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> Any:
        return (Path.touch, (self.marker,))


def test_a_checkpoint_never_runs_what_it_holds(log: Path, tmp_path: Path) -> None:
    """Even under a valid MAC (the key stolen), the unpickler loads nothing but the core's classes."""
    records, entries = entries_of(log)
    marker = tmp_path / "ran"
    count = len(entries)
    _write(log, [checkpoint.code_fingerprint(), count, checkpoint.prefix_digest(records, count)],
           pickle.dumps(Planted(marker)))
    assert checkpoint.load(log, records, entries) is None
    assert not marker.exists()
    with pytest.raises(pickle.UnpicklingError):
        checkpoint._Unpickler(io.BytesIO(pickle.dumps(Planted(marker)))).load()


@pytest.mark.parametrize("where", ["before", "after"])
def test_a_damaged_log_is_refused_with_or_without_a_checkpoint(log: Path, where: str) -> None:
    """An entry damaged before the checkpoint's end (its digest no longer fits: the log is
    refolded whole) or after it (folded from the checkpoint on) is refused all the same."""
    records, entries = entries_of(log)
    since = check_saved(entries[:boundaries(entries)["between hands"]])
    assert since is not None and checkpoint.save(log, records, since)
    data = bytearray(log.read_bytes())
    damaged = records[5] if where == "before" else records[-1]
    data[data.find(damaged) + len(damaged) - 10] ^= 1  # a byte of its signature
    log.write_bytes(bytes(data))
    with pytest.raises(SavedFileError, match="does not check"):
        checkpoint.read_saved(log)
    with pytest.raises(SavedFileError, match="does not check"):
        resume_peer(log, SeatFiles(log).secrets)
    with pytest.raises(SavedFileError, match="does not check"):
        LocalTable.resume(log)


def test_the_table_keeps_its_checkpoint_as_it_plays_and_resumes(tmp_path: Path) -> None:
    local = play_until(tmp_path, second_hand_in_play)
    path = SeatFiles(local.log_path).checkpoint
    # Kept while playing: where the first hand ended and where the second one's deal did.
    records, entries = entries_of(local.log_path)
    kept = checkpoint.load(local.log_path, records, entries)
    assert kept is not None and kept.hand is not None and kept.hand.stage == "play"
    local.close()
    records, entries = entries_of(local.log_path)
    kept = checkpoint.load(local.log_path, records, entries)
    assert kept is not None and kept.seq == len(entries)  # and on closing
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(checkpoint.key_path().stat().st_mode) == 0o600
    path.unlink()
    resumed = LocalTable.resume(local.log_path)
    assert checkpoint.load(local.log_path, records, entries) is not None  # written by the resume
    assert [fields(p.view()) for p in resumed.peers] == [fields(p.view()) for p in local.peers]
    assert all(peer.table is resumed.user.table for peer in resumed.peers)  # one fold for all
    rng = random.Random(1)
    while not resumed.over:
        if resumed.step():
            continue
        if resumed.my_turn():
            resumed.play(POLICIES["normal"](resumed.view(), USER, rng))
        else:
            resumed.bot_move()
    resumed.close()
    assert not path.exists()  # a finished game: nothing resumes it


def test_a_key_others_can_read_is_replaced(log: Path) -> None:
    checkpoint.read_saved(log)
    records, entries = entries_of(log)
    key = checkpoint.key_path()
    os.chmod(key, 0o644)
    assert checkpoint.load(log, records, entries) is None
    assert stat.S_IMODE(key.stat().st_mode) == 0o600


def test_the_seats_of_a_machine_share_the_fold_of_the_same_records(log: Path, tmp_path: Path) -> None:
    """A LAN host's bots keep logs of their own: one with the very same records as the log
    read first shares its fold; one that differs (a record short) is read and checked itself."""
    first = checkpoint.read_saved(log)
    same = tmp_path / "same.p2p10"
    same.write_bytes(log.read_bytes())
    shared = checkpoint.read_saved(same, like=first)
    assert shared.table is first.table and shared.entries is first.entries
    assert not SeatFiles(same).checkpoint.exists()  # nothing was folded for it
    shorter = tmp_path / "shorter.p2p10"
    shorter.write_bytes(log.read_bytes())
    writer = LogWriter(shorter)
    writer.keep_first(len(writer.records) - 1)
    writer.close()
    own = checkpoint.read_saved(shorter, like=first)
    assert own.table is not first.table and len(own.entries) == len(first.entries) - 1
    assert fields(own.table) == fields(check_saved(parse_saved(read_log(shorter))))


def test_a_state_that_cannot_be_kept_leaves_no_checkpoint_and_no_error(
        log: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records, entries = entries_of(log)
    table = check_saved(entries)
    assert table is not None

    def refuse(self: Any, obj: Any) -> Any:
        raise TypeError("cannot pickle this")

    monkeypatch.setattr(checkpoint._Pickler, "reducer_override", refuse)
    assert checkpoint.save(log, records, table) is False
    assert not SeatFiles(log).checkpoint.exists()
    saved = checkpoint.read_saved(log)  # folded the long way, as without a checkpoint
    assert fields(saved.table) == fields(table)


def test_the_fields_named_are_every_slot_of_a_table_state(tmp_path: Path) -> None:
    # TABLE_FIELDS is what the checkpoint checks an unpickled state against: every slot of it.
    local = new_table(tmp_path)
    drive(local, lambda t: t.table is not None and t.table.hand is not None, random.Random(0))
    table = local.table
    assert table is not None
    slots = {s for cls in type(table).__mro__ for s in getattr(cls, "__slots__", ())}
    assert slots == set(TABLE_FIELDS) and len(TABLE_FIELDS) == len(slots) > 20
    assert all(hasattr(table, name) for name in TABLE_FIELDS)
    local.close()
