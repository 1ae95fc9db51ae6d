"""Issue 25, what a newcomer meets around the table (points 11, 12 and the command-line parts of
15): ``p2p10 play`` remembers the last new game and names the player by their login; leaving
a game or a replay opened from the start screen comes back to it; ``c`` with nothing to
continue says so; ``p2p10 resume`` finds the unfinished LAN game by itself and sends a game
against bots to ``play --resume``; the record's headings and kinds of game; the export's bots;
a file that is not a log is named.

Each test reads what a person reads: the start screen through a pipe as typed key by key
(the harness of tests/test_start_screen.py, run by the real ``p2p10 play`` command), or what
a command prints."""

from __future__ import annotations

import asyncio
import getpass
import io
import json
import os
import sys
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input

from cli import UsageError, play_cmd
from cli.game_settings import NewGame, settings_path
from cli.main import main
from cli.seat.start import StartChoice
from cli.table import start
from cli.table.start import StartScreen
from p2p10.bots import POLICIES
from p2p10.log import NotALog
from p2p10.record import PERSON, GameResult, Player, Record
from p2p10.rules import RuleSet
from protocol.lan import SeatInfo, save_roster
from protocol.local import LocalTable
from protocol.record_store import record_path
from protocol.storage import LocalSettings, SeatFiles
from tests.test_start_screen import KEYS, Terminal

REAL_REPLAY = play_cmd._replay


class TTY(io.StringIO):
    """A terminal as far as ``p2p10 play`` asks (it refuses a pipe): what it prints is kept."""

    def isatty(self) -> bool:
        return True


class Person:
    """Runs ``p2p10 play`` as a person would: types the keys of each start screen that opens,
    in turn, and keeps every screen it read. A game chosen is not played: it is left at once
    (``q`` ``y``), as the ``games`` list records; a replay is left at once too."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, login: str = "ana") -> None:
        self.monkeypatch = monkeypatch
        self.typing: list[list[str]] = []
        self.screens: list[str] = []
        self.narrow: list[str] = []  # each screen as an 80-column terminal shows it
        self.games: list[object] = []
        self.replays: list[Path] = []
        monkeypatch.setattr(getpass, "getuser", lambda: login)
        monkeypatch.setattr(start, "choose", self._choose)
        monkeypatch.setattr(play_cmd, "_table", lambda choice, _args: choice)
        monkeypatch.setattr(play_cmd, "_play", self._play)
        monkeypatch.setattr(play_cmd, "_replay", lambda path, _ascii: self.replays.append(path))

    def play(self, *argv: str, screens: list[list[str]]) -> tuple[int, str]:
        """``p2p10 play ARGV``, typing ``screens`` (one list of keys per start screen); the exit
        status and what the command printed (standard output and error)."""
        self.typing = list(screens)
        out = TTY()
        self.monkeypatch.setattr(sys, "stdin", TTY())
        self.monkeypatch.setattr(sys, "stdout", out)
        self.monkeypatch.setattr(sys, "stderr", out)
        status = main(["play", *argv])
        assert self.typing == [], f"start screens that never opened: {self.typing}"
        return status, out.getvalue()

    def _play(self, choice: object, _ascii: bool) -> bool:
        self.games.append(choice)
        return False  # left before the end

    def _choose(self, settings: NewGame, unfinished: list[start.Listed], recent: list[start.Listed],
                record: list[str], ascii_only: bool = False, notice: str | None = None,
                **_unused: object) -> StartChoice:
        assert self.typing, "a start screen opened with no keys left to type"
        keys = self.typing.pop(0)

        async def run() -> StartChoice:
            with create_pipe_input() as pipe, create_app_session(input=pipe, output=Terminal()):
                noticed = {} if notice is None else {"notice": notice}
                screen = StartScreen(settings, unfinished, recent, record, ascii_only, **noticed)
                task = asyncio.create_task(screen.run())
                for key in keys:
                    await asyncio.sleep(0.02)
                    self.screens.append(screen.screen_text())
                    self.narrow.append("\n".join("".join(f[1] for f in line) for line in screen.lines(80)))
                    pipe.send_text(KEYS.get(key, key))
                choice = await asyncio.wait_for(task, 10)
                self.screens.append(screen.screen_text())
                return choice

        return asyncio.run(run())


@pytest.fixture
def person(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Person:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return Person(monkeypatch)


# ------------------------------------------------------------------ point 11: remembered settings

ANA = ["↓", "←", "↓", "→", "↓", "→", "→",  # 2 bots, hard, the three-hands game
       "↓", "↓", "Enter", *"\x7f" * 40, *"Ana Ñúñez", "Enter", "n"]


def test_the_next_launch_opens_with_the_last_new_games_settings(person: Person) -> None:
    status, _printed = person.play(screens=[ANA, ["q"]])
    assert status == 0
    assert person.games == [NewGame("Ana Ñúñez", 2, "hard", ("hands=3",))]
    person.screens.clear()
    assert person.play(screens=[["q"]])[0] == 0
    shown = person.screens[0]
    for line in ("Bots at the table: 2", "Their level: hard", "Game: three hands",
                 "Your name: Ana Ñúñez"):
        assert line in shown, shown
    kept = json.loads(settings_path().read_text(encoding="utf-8"))
    assert kept["name"] == "Ana Ñúñez" and kept["options"] == ["hands=3"]
    assert settings_path().stat().st_mode & 0o777 == 0o600


def test_a_flag_changes_one_setting_of_the_last_game_and_the_game_is_remembered(person: Person) -> None:
    person.play(screens=[ANA, ["q"]])
    person.games.clear()
    assert person.play("--bots", "4", screens=[])[0] == 0  # no start screen: the game at once
    assert person.games == [NewGame("Ana Ñúñez", 4, "hard", ("hands=3",))]
    person.play(screens=[["q"]])
    assert "Bots at the table: 4" in person.screens[-1]


def test_the_name_of_a_first_game_is_the_login_name_not_you(person: Person) -> None:
    person.play(screens=[["n"], ["q"]])
    assert "Your name: ana" in person.screens[0]
    assert person.games == [NewGame("ana", 3, "normal", ())]


@pytest.mark.parametrize(("text", "reason"), [
    ("{not json", "it is not JSON"),
    ('{"version": 1, "name": "Ann", "bots": 9, "level": "hard", "options": []}',
     "the number of bots is not 1 to 5"),
    ('{"version": 1, "name": "Ann", "bots": 2, "level": "hard", "options": ["nonsense=1"]}',
     "unknown rule option 'nonsense=1'"),
    ("\udcff", "it is not text"),
])
def test_a_damaged_settings_file_gives_the_defaults_and_says_which_file_and_why(
        person: Person, text: str, reason: str) -> None:
    path = settings_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(text.encode("utf-8", "surrogateescape"))
    status, _printed = person.play(screens=[["q"]])
    assert status == 0
    shown = person.screens[0]
    assert "".join(f"{path} was not used ({reason}".split()) in "".join(shown.split()), shown
    narrow = person.narrow[0]  # at 80 columns the notice is wrapped, not cut
    assert all(len(line) <= 80 for line in narrow.splitlines())
    squashed = "".join(narrow.split())  # (a path longer than a line goes on below)
    assert "".join(f"{path} was not used ({reason}".split()) in squashed
    assert "):thedefaultsettingsinstead" in squashed
    assert "Bots at the table: 3" in shown and "Your name: ana" in shown
    # started by a flag, the game says it on the terminal, and starts
    status, printed = person.play("--level", "easy", screens=[])
    assert status == 0 and f"{path} was not used ({reason}" in printed
    assert person.games == [NewGame("ana", 3, "easy", ())]


def test_settings_that_cannot_be_kept_are_said_and_the_game_goes_on(
        person: Person, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "config-is-a-file"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(blocked))
    status, printed = person.play("--bots", "1", screens=[])
    assert status == 0 and person.games == [NewGame("ana", 1, "normal", ())]
    assert f"cannot keep your settings in {blocked}/p2p10/settings.json" in printed


# ------------------------------------------------------------------ point 15: the start screen

def test_c_with_nothing_to_continue_says_so(person: Person) -> None:
    person.play(screens=[["c", "q"]])
    assert "There is no unfinished game to continue: n starts a new one." in person.screens[1]


def test_a_game_or_a_replay_left_from_the_start_screen_comes_back_to_it_and_the_screen_says_so(
        person: Person, monkeypatch: pytest.MonkeyPatch) -> None:
    recent = [start.Listed(Path("/g/done.p2p10"), "won in 4 hands")]
    real_start_screen = play_cmd._start_screen

    def with_a_recent_game(settings: NewGame, ascii_only: bool, notice: str | None = None) -> StartChoice:
        return person._choose(settings, [], recent, [], ascii_only, notice)

    monkeypatch.setattr(play_cmd, "_start_screen", with_a_recent_game)
    person.play(screens=[["n"], ["↑", "↑", "Enter"], ["q"]])  # a game, then the replay, then leave
    assert len(person.games) == 1 and person.replays == [Path("/g/done.p2p10")]
    assert "Leave a game or a replay and you come back here; q here leaves." in person.screens[0]
    monkeypatch.setattr(play_cmd, "_start_screen", real_start_screen)
    # a game started by its flags ends the command when it is left: no start screen
    person.play("--bots", "2", screens=[])
    assert len(person.games) == 2


# ------------------------------------------------------------------ point 15: the record

def _game(game_id: str, *, won: bool, hands: int, score: int, options: tuple[str, ...],
          date: str) -> GameResult:
    players = (Player("Ana", PERSON), Player("Bot 1 (hard)", "hard"), Player("Bot 2 (hard)", "hard"))
    return GameResult(game_id, date, f"/g/{game_id}.p2p10", players, 0, 0 if won else 1, score, 2,
                      (1, 2, *(None,) * (hands - 2)), hands, options)


# A three-hand win, then a full game won in 12 hands, then a full game lost.
SHORT_WIN = _game("a", won=True, hands=3, score=40, options=("hands=3",), date="2025-01-01T10:00:00")
FULL_WIN = _game("b", won=True, hands=12, score=90, options=(), date="2025-01-02T10:00:00")
FULL_LOSS = _game("c", won=False, hands=10, score=200, options=(), date="2025-01-03T10:00:00")


def _keep_record(*games: GameResult) -> None:
    path = record_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(Record(games).to_json(), encoding="utf-8")


def test_the_start_screen_heads_the_record_once_and_its_best_game_is_of_the_last_games_kind(
        person: Person) -> None:
    _keep_record(SHORT_WIN, FULL_WIN, FULL_LOSS)
    person.play(screens=[["q"]])
    shown = person.screens[0]
    assert shown.count("Your record") == 1, shown
    assert "2 won, 1 lost (67% won)" in shown
    # the last game was a full one: the best full game, not the three-hand one
    read = " ".join(shown.split())  # as a person reads it: a long line goes on below
    best = read[read.index("Best game"):]
    assert best.startswith("Best game (standard rules): 2025-01-02 10:00: won") and "in 12 hands" in best[:90]


def test_stats_shows_each_kind_of_game_apart_with_its_own_best_game(
        person: Person, capsys: pytest.CaptureFixture[str]) -> None:
    _keep_record(SHORT_WIN, FULL_WIN, FULL_LOSS)
    assert main(["stats"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Your record: 3 games, 2 won, 1 lost (67% won)\n")
    full, short = out.split("Games with standard rules: ")[1].split("Games with rules hands=3: ")
    assert full.startswith("2 games, 1 won, 1 lost (50% won)")
    assert "Best game (fewest hands, then lowest score): 2025-01-02 10:00: won" in full
    assert "Phases made: 4 in 22 hands" in full
    assert short.startswith("1 game, 1 won, 0 lost (100% won)")
    assert "Best game (fewest hands, then lowest score): 2025-01-01 10:00: won" in short
    summary = json.loads((main(["stats", "--json"]), capsys.readouterr().out)[1])
    assert [(kind["options"], kind["games"], kind["best"]["game_id"]) for kind in summary["by_kind"]] == [
        ([], 2, "b"), (["hands=3"], 1, "a")]


# ------------------------------------------------------------------ point 15: files and export

@pytest.mark.parametrize("command", [["replay", "--text"], ["audit"], ["export", "--json"]])
def test_a_file_that_is_not_a_log_is_named_in_the_error(
        command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name, data in (("garbage.p2p10", bytes(range(256)) * 4), ("newer.p2p10", b"P2P10LOG\x07")):
        path = tmp_path / name
        path.write_bytes(data)
        assert main([*command, str(path)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"p2p10: {path}: this"), err


def test_replay_from_the_start_screen_names_a_file_that_is_not_a_log(tmp_path: Path) -> None:
    path = tmp_path / "garbage.p2p10"
    path.write_bytes(b"garbage")
    with pytest.raises(NotALog, match=f"^{path}: this is not a p2p10 game log"):
        play_cmd._replay(path, ascii_only=True)


def test_export_marks_the_bots_of_a_game_against_bots_as_bots(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    local = LocalTable("Ana", 2, "easy", RuleSet.parse(["hands=1"]), 5, save_dir=tmp_path, pace=0)
    local.run_to_end(POLICIES["normal"])
    local.close()
    assert main(["export", "--json", "--jobs", "1", str(local.log_path)]) == 0
    players = json.loads(capsys.readouterr().out)["players"]
    assert [(p["name"], p["bot"], p["run_by"]) for p in players] == [
        ("Ana", False, None), ("Bot 1 (easy)", True, None), ("Bot 2 (easy)", True, None)]
    # settings beside the log that seat other players are refused, naming the file
    settings = SeatFiles(local.log_path).local
    LocalSettings((("Bob", None), ("Bot 1 (easy)", "easy"), ("Bot 2 (easy)", "easy")), 0.0, 5).save(settings)
    assert main(["export", "--json", "--jobs", "1", str(local.log_path)]) == 2
    assert f"{settings}: its seats are not the players of" in capsys.readouterr().err


# ------------------------------------------------------------------ point 12: p2p10 resume

def _stopped_game(folder: Path, seed: int, steps: int) -> LocalTable:
    local = LocalTable("Ana", 2, "easy", RuleSet.parse(["hands=2"]), seed, save_dir=folder, pace=0)
    local.start()
    for _step in range(steps):
        local.step()
    local.close()
    return local


def _as_lan_seat(local: LocalTable, seat_name: str) -> Path:
    """The files of a game against bots made into a LAN seat's (seat 1 of its table): the
    log and the secrets under a LAN seat's names, a roster beside them, no bots' settings."""
    files = SeatFiles(local.log_path)
    lan = SeatFiles(local.log_path.with_name(f"{seat_name}-seat1.p2p10"))
    files.log.rename(lan.log)
    files.secrets.rename(lan.secrets)
    files.local.unlink()
    table = local.table
    assert table is not None
    roster = [SeatInfo(name, key, "127.0.0.1", 9 + s)
              for s, (name, key) in enumerate(zip(table.given_names, table.keys, strict=True))]
    save_roster(lan.roster, table.table_id, table.rules, roster, ("127.0.0.1", 9))
    return lan.log


class Resumed(Exception):
    """Where the fake resume stops: the command has chosen its file."""


def _resume(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
            *argv: str) -> tuple[list[Path], str, str]:
    """``p2p10 resume ARGV --autoplay greedy`` up to the point it starts the seat: the files it
    would start from, and what it printed."""
    from cli import lan_cmds

    started: list[Path] = []

    class FakeResumer:
        def __init__(self, path: Path, *_args: object, **_options: object) -> None:
            started.append(path)

        async def run(self) -> None:
            raise UsageError("(the test stops here)")

    monkeypatch.setattr(lan_cmds, "Resumer", FakeResumer)
    main(["resume", *argv, "--autoplay", "greedy"])
    out, err = capsys.readouterr()
    return started, out, err


def test_resume_with_no_file_goes_on_with_the_unfinished_lan_game(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    games = tmp_path / "p2p10" / "games"
    started, _out, err = _resume(monkeypatch, capsys)
    assert started == [] and f"there is no unfinished LAN game in {games}" in err, err
    log = _as_lan_seat(_stopped_game(games, 5, 4), "20261201-101010-0badcafe")
    finished = LocalTable("Ana", 1, "easy", RuleSet.parse(["hands=1"]), 6, save_dir=games, pace=0)
    finished.run_to_end(POLICIES["normal"])
    finished.close()
    _as_lan_seat(finished, "20261201-090909-00c0ffee")  # over: nothing to resume
    started, out, _err = _resume(monkeypatch, capsys)
    assert started == [log]
    assert "resuming " in out and "Ana, Bot 1 (easy), Bot 2 (easy); hand 1; you are Ana, seat 1" in out
    assert str(log) in out


def test_resume_with_no_file_lists_several_games_and_asks_which(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    games = tmp_path / "p2p10" / "games"
    older = _as_lan_seat(_stopped_game(games, 5, 4), "20261201-101010-0badcafe")
    newer = _as_lan_seat(_stopped_game(games, 7, 4), "20261201-111111-0defaced")
    os.utime(older, (1_000_000_000, 1_000_000_000))
    started, out, err = _resume(monkeypatch, capsys)  # no terminal to ask on: the list, exit 2
    assert started == []
    assert "2 unfinished LAN games, the most recent first:" in out
    assert out.index(f"p2p10 resume {newer}") < out.index(f"p2p10 resume {older}")
    assert "several unfinished LAN games: name one, p2p10 resume FILE" in err
    monkeypatch.setattr(sys, "stdin", TTY())
    monkeypatch.setattr("builtins.input", lambda _prompt: "2")
    assert _resume(monkeypatch, capsys)[0] == [older]


def test_resume_given_a_game_against_bots_says_so_and_gives_the_play_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    local = _stopped_game(tmp_path / "p2p10" / "games", 5, 4)
    started, _out, err = _resume(monkeypatch, capsys, str(local.log_path))
    assert started == [] and "roster" not in err
    assert err == (f"p2p10: {local.log_path} is a game against bots, not a LAN game: it goes on with\n"
                   f"  p2p10 play --resume {local.log_path}\n")
    # with no file, and no LAN game, the unfinished game against bots is pointed to
    err = _resume(monkeypatch, capsys)[2]
    assert "(your unfinished game against bots goes on with 'p2p10 play --resume')" in err


def test_resume_with_no_file_leaves_out_a_hosts_bot_and_a_game_the_record_says_is_over(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from p2p10.simulate import greedy_player
    from protocol.memory import make_peers, open_table
    from protocol.storage import LogWriter, SecretsWriter

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    games = tmp_path / "p2p10" / "games"
    mine = _as_lan_seat(_stopped_game(games, 5, 4), "20261201-101010-0badcafe")
    # seat 2 of a table whose host runs it (a bot): its files are this machine's too
    peers = make_peers([greedy_player] * 3, 3)
    open_table(peers, ["Ann", "Bot 1", "Bob"], RuleSet.parse(["hands=1"]), 3, run_by=[None, 0, None])
    assert peers[0].table is not None
    bot = SeatFiles(games / "20261201-121212-0b0tb0t0-seat2.p2p10")
    log = LogWriter(bot.log)
    for entry in peers[0].log:
        log.add(entry)
    log.close()
    secrets = SecretsWriter(bot.secrets)
    secrets.add_identity(1, peers[1].identity.private_bytes_raw())
    secrets.close()
    save_roster(bot.roster, peers[0].table.table_id, peers[0].table.rules,
                [SeatInfo(n, k, "127.0.0.1", 9 + s) for s, (n, k) in
                 enumerate(zip(peers[0].table.given_names, peers[0].table.keys, strict=True))],
                ("127.0.0.1", 10))
    assert _resume(monkeypatch, capsys)[0] == [mine]  # not the host's bot
    # a game the record holds has ended: it is not offered (and not folded to find it out)
    _keep_record(_game("x", won=True, hands=3, score=1, options=(), date="2025-01-01T10:00:00"))
    record = json.loads(record_path().read_text())
    record["games"][0]["log_path"] = str(mine.absolute())
    record_path().write_text(json.dumps(record))
    assert "there is no unfinished LAN game" in _resume(monkeypatch, capsys)[2]


def test_a_saved_game_that_cannot_be_opened_is_named_on_the_start_screen_which_opens_again(
        person: Person, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    garbage = tmp_path / "garbage.p2p10"
    garbage.write_bytes(b"garbage")
    recent = [start.Listed(garbage, "won in 4 hands")]
    monkeypatch.setattr(play_cmd, "_replay", REAL_REPLAY)  # the real one: it reads the file

    def with_a_recent_game(settings: NewGame, ascii_only: bool, notice: str | None = None) -> StartChoice:
        return person._choose(settings, [], recent, [], ascii_only, notice)

    monkeypatch.setattr(play_cmd, "_start_screen", with_a_recent_game)
    status, _printed = person.play(screens=[["↑", "↑", "Enter"], ["q"]])
    assert status == 0
    reopened = person.screens[-2]  # the second start screen, before its q
    squashed = "".join(reopened.split())  # (a path longer than a line goes on below)
    assert "".join(f"{garbage}: this is not a p2p10 game log".split()) in squashed, reopened
