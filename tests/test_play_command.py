"""``p2p10 play`` around the table: the end of a game printed, play again, and --resume."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from cli import play_cmd
from cli.game_settings import NewGame
from cli.seat.start import Continue
from p2p10.bots import POLICIES
from p2p10.errors import P2P10Error
from p2p10.rules import RuleSet
from protocol.local import LocalTable
from tests.test_play_app import play_by_keys, table


def args(**given: object) -> argparse.Namespace:
    values: dict[str, object] = {"bots": None, "name": None, "level": None, "seed": None, "resume": None,
                                 "ascii": False, "pace": 0.0, "options": [], "rules": RuleSet()}
    values.update(given)
    return argparse.Namespace(**values)


def test_the_end_of_a_game_names_the_winner_and_every_players_phases_and_points(tmp_path: Path) -> None:
    local = LocalTable("Ann", 2, "easy", RuleSet.parse(["hands=1"]), 5, save_dir=tmp_path, pace=0)
    local.run_to_end(POLICIES["normal"])
    local.close()
    state = local.view()
    lines = play_cmd.result_lines(state)
    assert state.winner is not None
    assert lines[0] == f"{state.names[state.winner]} won the game."
    assert len(lines) == 4
    for seat, line in enumerate(lines[1:]):
        assert line.split()[0] == state.names[seat].split()[0]
        assert f"{state.totals[seat]} point" in line and f"{len(state.made[seat])} phase" in line


async def test_n_at_the_end_of_a_game_asks_for_another(tmp_path: Path) -> None:
    async with table(tmp_path, bots=1, seed=21) as kb:
        await play_by_keys(kb, [], [])
        await kb.until(lambda: kb.app.screen == "over")
        assert "play again" in kb.screen()
        assert not kb.app.again
        await kb.keys("n")
        assert kb.app.again


def test_the_flags_give_the_new_game_and_check_it() -> None:
    assert play_cmd._settings(args(), NewGame("You")) == NewGame("You", 3, "normal", ())
    chosen = args(bots=2, level="hard", name=" Zoë ", options=["phases=even"],
                  rules=RuleSet.parse(["phases=even"]))
    assert play_cmd._settings(chosen, NewGame("You")) == NewGame("Zoë", 2, "hard", ("phases=even",))
    with pytest.raises(P2P10Error, match="--bots must be 1 to 5, not 6"):
        play_cmd._settings(args(bots=6), NewGame())
    with pytest.raises(P2P10Error, match="--name takes 1 to"):
        play_cmd._settings(args(name="  "), NewGame())


def test_resume_with_no_game_named_takes_the_newest_unfinished_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    with pytest.raises(P2P10Error, match="no unfinished game"):
        play_cmd._resume_choice(play_cmd.LATEST)
    local = LocalTable("Ann", 1, "easy", RuleSet.parse(["hands=2"]), 5, pace=0)
    local.start()
    for _step in range(3):
        local.step()
    local.close()
    assert play_cmd._resume_choice(play_cmd.LATEST) == Continue(local.log_path)
    assert play_cmd._resume_choice("elsewhere.p2p10") == Continue(Path("elsewhere.p2p10"))
    resumed = LocalTable.resume(local.log_path, pace=0)
    try:  # playing again after a resumed game: a new game with that game's settings
        assert play_cmd._settings_of(resumed) == NewGame("Ann", 1, "easy", ("hands=2",))
    finally:
        resumed.close()


class _Peer:
    def __init__(self, seat: int, table: object) -> None:
        self.seat, self.table, self.finished, self.stopped = seat, table, True, False


class _Result:
    def __init__(self, log_path: Path, seat: int, table: object) -> None:
        self.log_path, self.peer = log_path, _Peer(seat, table)
        self.alone: float | None = None  # (a game played out: somebody always answered)

    def summary(self) -> str:
        return "the game is over"


def test_a_lan_game_played_by_hand_goes_into_the_record_and_an_autoplayed_one_does_not(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cli import lan_cmds
    from protocol import record_store

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    local = LocalTable("Ann", 1, "easy", RuleSet.parse(["hands=1"]), 5, save_dir=tmp_path, pace=0)
    local.run_to_end(POLICIES["normal"])
    local.close()
    result: Any = _Result(local.log_path, 1, local.peers[1].table)
    assert lan_cmds._finish(result, played_by_hand=False) == 0
    assert record_store.load().games == ()
    assert lan_cmds._finish(result, played_by_hand=True) == 0
    (game,) = record_store.load().games
    assert game.me == 1 and game.players[1].name.startswith("Bot 1")


@pytest.mark.parametrize(("lang", "word", "seat_word"), [("en", "You", "Seat"), ("de", "Du", "Platz"),
                                                         ("es", "Tú", "Asiento")])
def test_the_default_name_is_you_in_the_players_language_and_others_read_it_as_a_seat(
        lang: str, word: str, seat_word: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import getpass

    from cli import game_settings
    from p2p10.i18n import current_language, set_language
    from p2p10.narrate import Voice

    def no_login() -> str:
        raise KeyError("no passwd entry")

    monkeypatch.setattr(getpass, "getuser", no_login)  # else the login name is the default
    before = current_language()
    set_language(lang)
    try:
        assert game_settings.default_name() == word
        # seen by anybody else (a replay as seat 2), the seat named "you" is told as a seat
        told = Voice([word, "Bob"], me=1, second_person=False).name(0)
        assert told.startswith(seat_word) and f"({word})" in told, told
    finally:
        set_language(before)


def test_the_looking_line_is_wiped_before_the_start_screen_opens(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from cli.seat.start import Leave
    from cli.table import start

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    seen: list[str] = []

    def choose(*_args: object, **_options: object) -> Leave:
        seen.append(capsys.readouterr().out)  # what the terminal holds as the screen opens
        return Leave()

    monkeypatch.setattr(start, "choose", choose)
    assert play_cmd._start_screen(NewGame(), False) == Leave()
    looking = "Looking for your saved games..."
    assert seen == [f"{looking}\r{' ' * len(looking)}\r"]
