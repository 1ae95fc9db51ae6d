"""Your record (``p2p10 stats``): finished games added from their saved logs, each once; the
record's JSON read back as written; a damaged record refused with a reason, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from cli.stats_cmd import NO_GAMES
from p2p10.bots import POLICIES
from p2p10.game_fields import HandResult
from p2p10.record import (
    BOT,
    PERSON,
    RECORD_VERSION,
    GameResult,
    Player,
    Record,
    RecordError,
    game_result,
    kind_text,
    seat_level,
)
from p2p10.rules import RuleSet
from p2p10.table import TableState
from protocol.local import USER, LocalTable
from protocol.record_store import add_finished_game, add_finished_table, load, record_path
from tests.test_cli_imports import DEALING, LAN_STACK, probe


@dataclass(frozen=True)
class Played:
    """A game played on this machine and saved: its log and the user's fold of it."""

    log_path: Path
    table: TableState


def play(folder: Path, bots: int, level: str, options: list[str], seed: int, to_end: bool = True) -> Played:
    local = LocalTable("Ann", bots, level, RuleSet.parse(options), seed, save_dir=folder, pace=0)
    if to_end:
        local.run_to_end(POLICIES["greedy"])
    else:
        local.start()
        for _ in range(3):
            local.step()
    local.close()
    assert local.table is not None
    return Played(local.log_path, local.table)


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> list[Played]:
    """Two short finished games: 1 hand against an easy bot (lost), 2 hands against two hard
    bots (won)."""
    folder = tmp_path_factory.mktemp("games")
    played = [play(folder, 1, "easy", ["hands=1"], 14), play(folder, 2, "hard", ["hands=2"], 12)]
    # One won and one lost, so that the record counts both (other seeds may not give that).
    assert [p.table.engine.winner == USER for p in played] == [False, True]
    return played


@pytest.fixture
def xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty data folder, for this process and the commands it runs."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data"


def stats(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", "stats", *args], capture_output=True,
                          text=True, timeout=60, env=os.environ.copy())


def result(game_id: str, *, won: bool, hands: int = 3, score: int = 50, date: str = "2025-01-01T10:00:00",
           levels: tuple[str, ...] = ("hard",), made: tuple[int | None, ...] = (1, None, 2)) -> GameResult:
    players = (Player("Ann", PERSON), *(Player(f"Bot {i} ({lv})", lv) for i, lv in enumerate(levels, 1)))
    return GameResult(game_id, date, f"/games/{game_id}.p2p10", players, 0, 0 if won else 1, score,
                      max((p for p in made if p is not None), default=None), made, hands, ("hands=3",))


def test_two_finished_games_make_the_record(games: list[Played], xdg: Path) -> None:
    results = [add_finished_game(g.log_path, USER) for g in games]
    record = load()
    assert record_path() == xdg / "p2p10" / "record.json" and record_path().exists()
    assert (record_path().stat().st_mode & 0o777) == 0o600
    assert [r.game_id for r in record.games] == [g.table.game_id.hex() for g in games]
    assert list(record.games) == results
    first, second = record.games
    assert [p.name for p in first.players] == ["Ann", "Bot 1 (easy)"]
    assert [p.level for p in second.players] == [PERSON, "hard", "hard"]
    assert (first.hands, second.hands, first.options, second.options) == (1, 2, ("hands=1",), ("hands=2",))
    wins = [g.table.engine.winner == USER for g in games]
    assert [r.won for r in record.games] == wins
    assert [r.score for r in record.games] == [g.table.engine.totals[USER] for g in games]
    assert record.total().won == sum(wins) and record.total().lost == 2 - sum(wins)
    assert {level: (t.won, t.lost) for level, t in record.by_level().items()} == {
        "easy": (int(wins[0]), int(not wins[0])), "hard": (int(wins[1]), int(not wins[1]))}
    assert {size: (t.won, t.lost) for size, t in record.by_table_size().items()} == {
        2: (int(wins[0]), int(not wins[0])), 3: (int(wins[1]), int(not wins[1]))}
    made = [[row.phase[USER] if row.made[USER] else None for row in g.table.engine.sheet] for g in games]
    assert [list(r.phases_made) for r in record.games] == made
    made_count = sum(p is not None for m in made for p in m)
    assert record.phases_made() == (made_count, 3)
    assert record.phases_per_hand() == pytest.approx(made_count / 3)
    assert second.date >= first.date and record.latest() == (second, first)
    assert record.best() == (min((r for r in record.games if r.won), key=lambda r: (r.hands, r.score),
                                 default=None))


def test_a_peers_own_fold_adds_the_same_result_as_the_saved_log(games: list[Played], xdg: Path,
                                                                  tmp_path: Path) -> None:
    for game in games:
        from_log = add_finished_game(game.log_path, USER, tmp_path / "from_log.json")
        from_fold = add_finished_table(game.table, USER, game.log_path, tmp_path / "from_fold.json")
        assert from_fold == from_log and from_fold is not None
    assert load(tmp_path / "from_fold.json") == load(tmp_path / "from_log.json")


def test_a_game_added_twice_counts_once(games: list[Played], xdg: Path) -> None:
    once = add_finished_game(games[0].log_path, USER)
    written = record_path().read_bytes()
    again = add_finished_game(games[0].log_path, USER)
    assert again == once and record_path().read_bytes() == written
    assert len(load().games) == 1
    assert once is not None
    record = Record().add(once)
    assert record.add(once) is record and record.add(replace(once, score=999)).games == (once,)
    assert record.total().games == 1


def test_an_unfinished_game_is_not_added(tmp_path: Path, xdg: Path) -> None:
    unfinished = play(tmp_path, 1, "easy", ["hands=1"], 13, to_end=False)
    assert game_result(unfinished.table, USER, date="2025-01-01T00:00:00") is None
    assert add_finished_game(unfinished.log_path, USER) is None
    assert not record_path().exists() and load() == Record()


def test_a_result_is_read_from_the_fold_as_the_seat_saw_it(games: list[Played]) -> None:
    table = games[1].table
    bot = game_result(table, 2, date="2025-02-03T04:05:06", log_path="x.p2p10")
    assert bot is not None and bot.me == 2 and bot.date == "2025-02-03T04:05:06"
    assert bot.score == table.engine.totals[2] and bot.won == (table.engine.winner == 2)
    assert [p.level for p in bot.opponents] == [PERSON, "hard"]
    with pytest.raises(RecordError, match="no seat 4"):
        game_result(table, 3, date="2025-02-03T04:05:06")


def test_a_hand_the_seat_was_not_dealt_into_is_not_a_hand_it_played(games: list[Played]) -> None:
    # A seat sits a hand out when its machine was away (or in another pair's tie replay).
    table = games[1].table
    sat_out = HandResult(2, False, (1, None, 1), (True, False, False), (0, None, 20), 0)
    engine = SimpleNamespace(winner=0, made=((1, 2), (1,), (1,)), totals=(10, 30, 40),
                             sheet=(*table.engine.sheet, sat_out))
    stand_in = SimpleNamespace(engine=engine, players=3, given_names=table.given_names,
                               sit_downs=table.sit_downs, game_id=table.game_id, rules=table.rules)
    mine = game_result(cast(TableState, stand_in), 0, date="2025-01-01T00:00:00")
    theirs = game_result(cast(TableState, stand_in), 1, date="2025-01-01T00:00:00")
    assert mine is not None and theirs is not None
    played = table.engine.sheet

    def made(seat: int) -> tuple[int | None, ...]:
        return tuple(row.phase[seat] if row.made[seat] else None for row in played)

    assert len(played) == 2 and mine.hands == theirs.hands == 3 and mine.final_phase == 2
    # The hand sat out is not one of seat 1's hands: its row adds a phase to seat 0's only.
    assert mine.phases_made == (*made(0), 1) and theirs.phases_made == made(1)


def test_seat_levels_come_from_bot_names() -> None:
    assert seat_level("Bot 2 (hard)") == "hard" and seat_level("Bot 1 (easy)", is_bot=True) == "easy"
    assert seat_level("Bot 1", is_bot=True) == BOT
    assert seat_level("Ann") == seat_level("Ann (home)") == seat_level("Bot 1 (hard") == PERSON


def test_best_and_latest_games() -> None:
    record = Record()
    for item in (result("a", won=True, hands=5, score=10, date="2025-01-01T10:00:00"),
                 result("b", won=True, hands=3, score=200, date="2025-01-03T10:00:00"),
                 result("c", won=True, hands=3, score=60, date="2025-01-02T10:00:00"),
                 result("d", won=False, hands=1, score=0, date="2025-01-04T10:00:00"),
                 result("e", won=True, hands=3, score=60, date="2025-01-05T10:00:00")):
        record = record.add(item)
    best = record.best()
    assert best is not None and best.game_id == "c"  # fewest hands, lowest score, earliest
    assert [g.game_id for g in record.latest(3)] == ["e", "d", "b"]
    assert [g.game_id for g in record.latest()] == ["e", "d", "b", "c", "a"]
    assert Record((result("x", won=False),)).best() is None


def test_mixed_tables_count_under_each_level() -> None:
    record = (Record().add(result("a", won=True, levels=("hard", PERSON)))
              .add(result("b", won=False, levels=("easy", "easy", "hard"))))
    levels = {level: (t.won, t.lost) for level, t in record.by_level().items()}
    assert levels == {"easy": (0, 1), "hard": (1, 1), PERSON: (1, 0)}
    assert list(levels) == ["easy", "hard", PERSON]
    assert {s: (t.won, t.lost) for s, t in record.by_table_size().items()} == {3: (1, 0), 4: (0, 1)}


def test_the_json_round_trip_keeps_every_field() -> None:
    record = Record((result("a", won=True, made=(None, None)), result("b", won=False, levels=("bot",))))
    text = record.to_json()
    assert json.loads(text)["version"] == RECORD_VERSION
    assert Record.from_json(text) == record
    assert Record.from_json(Record().to_json()) == Record()


@pytest.mark.parametrize(("text", "reason"), [
    ("", "not JSON"),
    ('{"version": 1, "games": [', "not JSON"),
    ("[1, 2]", "no version"),
    ('{"games": []}', "no version"),
    ('{"version": 2, "games": []}', "version 2, and this p2p10 reads version 1 (a newer"),
    ('{"version": "1", "games": []}', "version '1'"),
    ('{"version": 1}', "no list of games"),
    ('{"version": 1, "games": [7]}', "game 1: a game is not a JSON object"),
])
def test_a_record_that_is_not_one_is_a_clear_error(text: str, reason: str) -> None:
    with pytest.raises(RecordError, match=reason.replace("(", r"\(")):
        Record.from_json(text)


def test_a_damaged_game_in_the_record_names_the_game_and_the_field() -> None:
    good = result("a", won=True).to_dict()
    for change, reason in (({"score": -1}, "'score' is -1"),
                           ({"winner": 5}, "'winner' is seat 5, and a table of 2"),
                           ({"players": []}, "a game has 2 to 6 players, not 0"),
                           ({"date": None}, "'date' holds None"),
                           ({"phases_made": ["x"]}, "'phases_made' holds 'x'"),
                           ({"me": True}, "'me' is True")):
        text = json.dumps({"version": 1, "games": [good, {**good, "game_id": "b", **change}]})
        with pytest.raises(RecordError, match=f"game 2: {reason}"):
            Record.from_json(text)
    del good["hands"]
    with pytest.raises(RecordError, match="game 1: a game has no 'hands'"):
        Record.from_json(json.dumps({"version": 1, "games": [good]}))


def test_a_damaged_record_file_is_refused_and_kept(games: list[Played], xdg: Path) -> None:
    add_finished_game(games[0].log_path, USER)
    damaged = record_path().read_text()[:-20]
    record_path().write_text(damaged)
    with pytest.raises(RecordError, match=f"{record_path()}: the record is damaged.*move the file away"):
        load()
    with pytest.raises(RecordError):
        add_finished_game(games[1].log_path, USER)
    assert record_path().read_text() == damaged  # nothing written over the user's record
    for args in ((), ("--json",)):
        done = stats(*args)
        assert done.returncode == 2 and done.stdout == ""
        assert done.stderr.startswith("p2p10: ") and "damaged" in done.stderr
        assert "Traceback" not in done.stderr


def test_stats_with_no_game_yet(xdg: Path) -> None:
    done = stats()
    assert done.returncode == 0 and done.stdout.strip() == NO_GAMES
    summary = json.loads(stats("--json").stdout)
    assert summary["games"] == 0 and summary["best"] is None and summary["latest"] == []
    assert summary["file"] == str(xdg / "p2p10" / "record.json")
    assert Record().summary_lines() == ["No finished games yet."]


def test_stats_prints_the_record(games: list[Played], xdg: Path) -> None:
    for game in games:
        add_finished_game(game.log_path, USER)
    record = load()
    total = record.total()
    out = stats().stdout
    assert out.startswith(f"Your record: 2 games, {total.won} won, {total.lost} lost")
    assert "  easy  " in out and "  hard  " in out and "Latest games" in out
    for kind, games in record.by_kind().items():  # each kind of game apart (issue 25 point 15)
        made, hands = games.phases_made()
        assert f"Games with {kind_text(kind)}: {len(games.games)} game" in out
        assert f"Phases made: {made} in {hands} hand" in out
    assert out.count("  vs ") == 2 and "Bot 1" in out and f"Record: {record_path()}" in out
    assert ("no win yet" in out) == any(not games.total().won for games in record.by_kind().values())
    summary = json.loads(stats("--json").stdout)
    assert summary == {"file": str(record_path()), **json.loads(json.dumps(record.summary()))}
    assert summary["games"] == 2 and summary["won"] == total.won
    assert set(summary["by_level"]) == {"easy", "hard"} and set(summary["by_table_size"]) == {"2", "3"}
    assert [g["game_id"] for g in summary["latest"]] == [g.game_id for g in record.latest()]
    lines = record.summary_lines()
    assert lines[0] == f"{total.won} won, {total.lost} lost ({round(50 * total.won)}% won)"
    assert any(line.startswith("Last game: ") for line in lines)


def test_stats_loads_neither_the_dealing_cryptography_nor_the_lan_stack(xdg: Path) -> None:
    done = probe(["stats"], ["stats", "--json"], ["stats", "--help"], modules=DEALING + LAN_STACK)
    assert done["statuses"] == [0, 0, 0]
    assert done["outputs"][0].strip() == NO_GAMES and "record.json" in done["outputs"][2]
    assert done["loaded"] == []
