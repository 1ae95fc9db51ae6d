"""The index of saved games (``protocol.saved_index``): a start screen lists the unfinished
games without folding a log that has not changed; a log that changed, was replaced or is gone
is looked at again; a damaged index is rebuilt, never an error."""

from __future__ import annotations

import os
import random
from datetime import timedelta
from pathlib import Path
from typing import Any

import msgpack
import pytest

from p2p10.rules import RuleSet
from protocol import local as local_module
from protocol.local import USER, LocalTable, SavedGame, data_dir, fold_unfinished, unfinished_games
from protocol.saved_index import INDEX_NAME, LABEL, SavedIndex, Stamp
from protocol.storage import SeatFiles, read_log
from tests.test_play_resume import drive as play_on

RULES = RuleSet()


def saved_game(folder: Path, seed: int, moves: int) -> Path:
    """An unfinished game against two bots in ``folder``, quit after ``moves`` entries."""
    local = LocalTable("Ann", 2, "normal", RULES, seed, save_dir=folder, pace=0)
    drive(local, moves)
    local.close()
    return local.log_path


def drive(local: LocalTable, entries: int) -> None:
    """Play on until the user's log holds ``entries`` more entries."""
    target = len(local.user.log) + entries
    play_on(local, lambda table: len(table.user.log) >= target, random.Random(len(local.user.log)))


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("games")
    for seed, moves in ((1, 30), (2, 70), (3, 110)):
        saved_game(folder, seed, moves)
        os.utime(folder)  # (distinct times: the list is newest first)
    return folder


@pytest.fixture
def folder(games: Path, tmp_path: Path) -> Path:
    """A copy of the saved games, with their times, and no index."""
    for path in sorted(games.iterdir(), key=lambda p: p.stat().st_mtime_ns):
        if path.name != INDEX_NAME:
            copy = tmp_path / path.name
            copy.write_bytes(path.read_bytes())
            info = path.stat()
            os.utime(copy, ns=(info.st_atime_ns, info.st_mtime_ns))
    return tmp_path


class Looks:
    """Counts the logs the listing looks into (folds, or reads a checkpoint of)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.paths: list[str] = []
        real = local_module._look_into

        def look(path: Path) -> Any:
            self.paths.append(path.name)
            return real(path)

        monkeypatch.setattr(local_module, "_look_into", look)


def listed(games: list[SavedGame]) -> list[tuple[str, tuple[str, ...], int, int | None]]:
    return [(g.path.name, g.names, g.hand, g.phase) for g in games]


def test_an_unchanged_folder_is_listed_without_looking_into_a_log(folder: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    looks = Looks(monkeypatch)
    first = unfinished_games(folder)
    assert len(first) == 3 and len(looks.paths) == 3
    assert (folder / INDEX_NAME).exists()
    looks.paths.clear()
    again = unfinished_games(folder)
    assert looks.paths == []
    assert listed(again) == listed(first)
    assert [g.when for g in again] == [g.when for g in first]


def test_what_the_index_says_is_what_the_logs_say(folder: Path) -> None:
    for way in ("from the checkpoints", "folded"):
        if way == "folded":
            (folder / INDEX_NAME).unlink()
            for path in folder.glob("*.p2p10"):
                SeatFiles(path).checkpoint.unlink()
        unfinished_games(folder)
        games = unfinished_games(folder)  # from the index
        assert len(games) == 3
        for game in games:
            folded = fold_unfinished(game.path, lambda path=game.path: read_log(path))
            assert folded is not None
            table, when, hand = folded
            assert (game.names, game.hand, game.phase) == (table.given_names, hand,
                                                           table.engine.phase_of(USER)), way
            assert abs(game.when - when) < timedelta(milliseconds=1)


def test_a_log_that_changed_is_looked_into_again(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    unfinished_games(folder)
    looks = Looks(monkeypatch)
    oldest = min(folder.glob("*.p2p10"), key=lambda p: p.stat().st_mtime_ns)
    local = LocalTable.resume(oldest, pace=0)
    drive(local, 40)
    local.close()  # notes the log in the index itself, from its own fold
    games = unfinished_games(folder)
    assert looks.paths == []
    assert games[0].path == oldest
    found = fold_unfinished(oldest, lambda: read_log(oldest))
    assert found is not None and games[0].hand == found[2]
    # Another program appended to it (a torn record, as a crash leaves one): looked at again.
    with open(oldest, "ab") as file:
        file.write(b"\0\0")
    games = unfinished_games(folder)
    assert looks.paths == [oldest.name]
    assert len(games) == 3


def test_a_log_replaced_by_one_of_the_same_size_and_time_is_looked_into(
        folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    unfinished_games(folder)
    looks = Looks(monkeypatch)
    newest = max(folder.glob("*.p2p10"), key=lambda p: p.stat().st_mtime_ns)
    info = newest.stat()
    data = bytearray(newest.read_bytes())
    data[-30] ^= 1
    newest.write_bytes(bytes(data))
    os.utime(newest, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert Stamp.of(newest) != Stamp(info.st_size, info.st_mtime_ns, b"")
    games = unfinished_games(folder)
    assert looks.paths == [newest.name]
    assert newest not in [g.path for g in games]  # it does not check any more


def test_a_deleted_log_leaves_the_index(folder: Path) -> None:
    unfinished_games(folder)
    gone = next(iter(folder.glob("*.p2p10")))
    gone.unlink()
    games = unfinished_games(folder)
    assert gone not in [g.path for g in games] and len(games) == 2
    index = msgpack.unpackb((folder / INDEX_NAME).read_bytes())
    assert gone.name not in index[1] and len(index[1]) == 2


@pytest.mark.parametrize("damage", [
    b"",
    b"\xc1garbage",
    msgpack.packb(["p2p10/index/v0", {}]),
    msgpack.packb([LABEL, {"x.p2p10": [1, 2, b"short", None]}]),
    msgpack.packb([LABEL, {"x.p2p10": [-1, 2, bytes(16), None]}]),
    msgpack.packb([LABEL, {"x.p2p10": [1, 2, bytes(16), [[], 0, None]]}]),
    msgpack.packb([LABEL, []]),
    msgpack.packb({1: 2}),
])
def test_a_damaged_index_is_rebuilt(folder: Path, damage: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    first = listed(unfinished_games(folder))
    (folder / INDEX_NAME).write_bytes(damage)
    looks = Looks(monkeypatch)
    assert listed(unfinished_games(folder)) == first
    assert len(looks.paths) == 3
    looks.paths.clear()
    assert listed(unfinished_games(folder)) == first
    assert looks.paths == []


def test_a_lying_index_is_believed_only_while_its_log_is_unchanged(folder: Path) -> None:
    """(What the index is for: it is this machine's own note, like the checkpoint.)"""
    unfinished_games(folder)
    path = max(folder.glob("*.p2p10"), key=lambda p: p.stat().st_mtime_ns)
    stamp = Stamp.of(path)
    assert stamp is not None
    index = SavedIndex(folder)
    index.put(path, stamp, None)  # "not an unfinished game"
    index.save()
    assert path not in [g.path for g in unfinished_games(folder)]
    with open(path, "ab") as file:
        file.write(b"\0")
    assert path in [g.path for g in unfinished_games(folder)]


def test_the_start_screen_lists_from_the_index(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cli.play_cmd import start_lists

    monkeypatch.setenv("XDG_DATA_HOME", str(folder / "data"))
    games = data_dir()
    games.mkdir(parents=True)
    for path in folder.iterdir():
        if path.is_file():
            os.replace(path, games / path.name)
    first, _recent, _lines = start_lists()
    assert len(first) == 3
    looks = Looks(monkeypatch)
    again, _recent, _lines = start_lists()
    assert looks.paths == []
    assert again == first
    assert (games / INDEX_NAME).exists()
