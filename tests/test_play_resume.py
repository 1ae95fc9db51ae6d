"""``p2p10 play --resume``: a game against bots quit at any moment (mid-deal, mid-turn, while a
bot's move is on its way, between hands) starts again from its files, every seat restored, the
user's view as it was, and plays on to a log that audits clean."""

from __future__ import annotations

import asyncio
import os
import random
import re
import shutil
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from cli.table.play import TableApp
from p2p10.audit import audit_records
from p2p10.bots import POLICIES
from p2p10.errors import SavedFileError
from p2p10.game_fields import GAME_FIELDS
from p2p10.peer_parts import addressed
from p2p10.rules import RuleSet
from protocol.local import USER, GameOver, LocalTable, unfinished_games
from protocol.saved_index import INDEX_NAME
from protocol.storage import LocalSettings, SeatFiles, read_log, read_secrets

TWO_HANDS = RuleSet.parse(["hands=2"])
Stop = Callable[[LocalTable], bool]


def new_table(folder: Path, seed: int = 7, bots: int = 3, rules: RuleSet = TWO_HANDS) -> LocalTable:
    return LocalTable("Ann", bots, "normal", rules, seed, save_dir=folder, pace=0)


def drive(local: LocalTable, stop: Stop, rng: random.Random) -> None:
    """Play as the screen does (messages first, then the user's or a bot's move), checking
    ``stop`` after every step, until it holds or the game is over."""
    local.start()
    while not local.over and not stop(local):
        if local.step():
            continue
        if local.my_turn():
            local.play(POLICIES["normal"](local.view(), USER, rng))
        elif not local.bot_move():
            raise RuntimeError("the table is stuck")


def never(local: LocalTable) -> bool:
    return False


def mid_deal(local: LocalTable) -> bool:
    """Half the entries of a deal written, some of them still on their way to the user."""
    progress = local.dealing()
    return progress is not None and progress[1] // 2 <= progress[0] < progress[1]


def after_drawing(local: LocalTable) -> bool:
    """The user's turn, the card drawn, nothing discarded yet."""
    return local.my_turn() and local.view().stage == "play"


def bot_move_on_its_way(local: LocalTable) -> bool:
    """A bot signed its move, which has not reached the user's peer yet."""
    table = local.table
    expect = table.expected() if table else None
    return (expect is not None and expect.kind == "move" and expect.seat != USER
            and len(local.peers[expect.seat].log) > len(local.user.log))


def between_hands(local: LocalTable) -> bool:
    """The first hand just scored: the next one's deal has barely begun (the user's peer
    writes its hand key as soon as the last reveal comes)."""
    progress = local.dealing()
    return len(local.view().sheet) == 1 and progress is not None and progress[0] <= 1


def seen(local: LocalTable) -> dict[str, Any]:
    """Everything the user's screen reads of the table."""
    view = local.view()
    state = {name: getattr(view, name) for name in GAME_FIELDS}
    return {**state, "dealing": local.dealing(), "my_turn": local.my_turn(), "names": local.names,
            "expected": local.table.expected() if local.table else None, "entries": len(local.user.log)}


def quit_and_resume(local: LocalTable) -> LocalTable:
    """Close the table where it stands and start it again from its files."""
    before = seen(local)
    local.close()
    resumed = LocalTable.resume(local.log_path)
    assert seen(resumed) == before
    assert resumed.log_path == local.log_path and resumed.pace == local.pace
    return resumed


@pytest.mark.parametrize("seed", [7, 11])
def test_quit_anywhere_and_resume_plays_to_a_clean_log(tmp_path: Path, seed: int) -> None:
    local = new_table(tmp_path, seed)
    rng = random.Random(seed)
    stops: list[Stop] = [mid_deal, after_drawing, bot_move_on_its_way, between_hands, mid_deal]
    for stop in stops:
        drive(local, stop, rng)
        assert stop(local), f"the game ended before {stop.__name__}"
        written = read_log(local.log_path)
        local = quit_and_resume(local)
        assert read_log(local.log_path) == written
    drive(local, never, rng)
    local.close()
    records = read_log(local.log_path)
    assert records[:len(written)] == written
    report = audit_records(records)
    assert report.clean and report.complete, report.verdict()


def test_a_seeded_game_resumed_at_one_point_goes_on_alike(tmp_path: Path) -> None:
    local = new_table(tmp_path / "a", seed=5)
    drive(local, after_drawing, random.Random(1))
    local.close()
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    logs = []
    for folder in ("a", "b"):
        resumed = LocalTable.resume(tmp_path / folder / local.log_path.name)
        drive(resumed, never, random.Random(2))
        resumed.close()
        logs.append(read_log(resumed.log_path))
    assert logs[0] == logs[1]


def test_a_deal_cut_short_mid_step_resumes_with_the_secrets_saved(tmp_path: Path) -> None:
    # Killed in the middle of a step: the user's key reached the bots and the next bot wrote its
    # own (its hand secret saved first), which never reached the user's log. That bot starts
    # again from the user's log and writes its key with the same saved secret.
    local = new_table(tmp_path)
    drive(local, lambda t: t.dealing() == (1, 12), random.Random(0))
    for target, data in addressed(local.user.take_outbox(), USER, len(local.peers)):
        local.peers[target].receive(data, USER, time.monotonic())
    assert len(local.peers[1].log) > len(local.user.log)
    local = quit_and_resume(local)
    drive(local, after_drawing, random.Random(0))
    local.close()
    hands = [secrets.hand for secrets in read_secrets(SeatFiles(local.log_path).bot_secrets(1))[2]]
    assert hands == [0]
    local = LocalTable.resume(local.log_path)
    drive(local, never, random.Random(0))
    local.close()
    assert audit_records(read_log(local.log_path)).clean


def test_every_file_of_a_resumable_game_is_private(tmp_path: Path) -> None:
    local = new_table(tmp_path, bots=2)
    drive(local, mid_deal, random.Random(0))
    local.close()
    files = SeatFiles(local.log_path)
    paths = [local.log_path, files.secrets, files.bot_secrets(1), files.bot_secrets(2), files.local,
             files.checkpoint, tmp_path / INDEX_NAME]
    assert sorted(tmp_path.iterdir()) == sorted(paths)
    assert all(stat.S_IMODE(path.stat().st_mode) == 0o600 for path in paths)
    assert LocalSettings.read(files.local) == LocalSettings(
        (("Ann", None), ("Bot 1 (normal)", "normal"), ("Bot 2 (normal)", "normal")), 0.0, 7)


def test_a_finished_game_cannot_be_resumed(tmp_path: Path) -> None:
    local = new_table(tmp_path, rules=RuleSet.parse(["hands=1"]))
    drive(local, never, random.Random(0))
    local.close()
    winner = local.table.engine.winner if local.table else None
    assert winner is not None
    files = SeatFiles(local.log_path)
    assert not files.bot_secrets(1).exists()  # they serve a resume only
    assert files.local.exists()  # it names the bots, for the export (issue 25)
    assert files.secrets.exists()
    with pytest.raises(GameOver, match=f"^{re.escape(f'that game is over ({local.names[winner]} won)')}$"):
        LocalTable.resume(local.log_path)
    assert unfinished_games(tmp_path) == []


def test_missing_or_damaged_files_are_named(tmp_path: Path) -> None:
    local = new_table(tmp_path)
    drive(local, after_drawing, random.Random(0))
    local.close()
    files = SeatFiles(local.log_path)
    with pytest.raises(SavedFileError, match="no game log at"):
        LocalTable.resume(tmp_path / "nothing.p2p10")

    bot = files.bot_secrets(2)
    kept = bot.read_bytes()
    bot.unlink()
    with pytest.raises(SavedFileError, match=f"cannot read {bot}"):
        LocalTable.resume(local.log_path)
    bot.write_bytes(files.bot_secrets(3).read_bytes())  # another bot's secrets
    with pytest.raises(SavedFileError, match=f"{bot} holds the secrets of seat 4, not seat 3"):
        LocalTable.resume(local.log_path)
    bot.write_bytes(kept)

    settings = files.local.read_bytes()
    files.local.write_bytes(settings[:-3])
    with pytest.raises(SavedFileError, match=f"^{files.local}: "):
        LocalTable.resume(local.log_path)
    LocalSettings((("Ann", None), ("Bot 1", "normal"), ("Bot 2", "normal"), ("Bot 3", "normal")),
                  0.0, 7).save(files.local)
    with pytest.raises(SavedFileError, match="its seats are not the user and the bots of"):
        LocalTable.resume(local.log_path)
    files.local.unlink()  # as a LAN seat's log has none
    with pytest.raises(SavedFileError, match="not a game against bots on this machine"):
        LocalTable.resume(local.log_path)
    files.local.write_bytes(settings)
    LocalTable.resume(local.log_path).close()


def test_unfinished_games_lists_the_resumable_ones_newest_first(tmp_path: Path) -> None:
    paths = []
    for seed, stop in enumerate([mid_deal, after_drawing, between_hands, never, after_drawing]):
        rules = RuleSet.parse(["hands=1"]) if stop is never else TWO_HANDS
        local = new_table(tmp_path, seed=seed, rules=rules)
        drive(local, stop, random.Random(seed))
        local.close()
        paths.append(local.log_path)
        os.utime(local.log_path, (1_700_000_000 + seed, 1_700_000_000 + seed))
    SeatFiles(paths[4]).local.unlink()  # no settings beside it, as a LAN seat's log
    games = unfinished_games(tmp_path)
    assert [game.path for game in games] == [paths[2], paths[1], paths[0]]
    assert [game.hand for game in games] == [2, 1, 1]
    assert all(game.names == ("Ann", "Bot 1 (normal)", "Bot 2 (normal)", "Bot 3 (normal)") for game in games)
    assert [game.phase for game in games] == [2, 1, 1]  # hands=2 plays phases 1 and 2
    assert games[0].when.timestamp() == 1_700_000_002
    assert [game.path for game in unfinished_games(tmp_path, limit=2)] == [paths[2], paths[1]]


@pytest.mark.parametrize("moment", ["deal", "turn"])
async def test_quitting_the_play_screen_mid_deal_or_mid_turn_leaves_a_resumable_game(
        tmp_path: Path, moment: str) -> None:
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        local = LocalTable("Ann", 2, "normal", TWO_HANDS, 3, save_dir=tmp_path, pace=0)
        app = TableApp(local)
        task = asyncio.create_task(app.run())
        if moment == "deal":
            held = local.step

            def step() -> bool:  # the deal stops half-way, some entries still on their way
                return not mid_deal(local) and held()

            local.step = step  # type: ignore[method-assign]
            await until(lambda: mid_deal(local))
        else:
            await until(lambda: local.my_turn() and app.screen == "table")
            pipe.send_text("d")
            await until(lambda: after_drawing(local))
        pipe.send_text("q")
        pipe.send_text("y")
        await task
        before = seen(local)
        local.close()
    assert mid_deal(local) if moment == "deal" else after_drawing(local)
    resumed = LocalTable.resume(local.log_path)
    assert seen(resumed) == before
    drive(resumed, never, random.Random(0))
    resumed.close()
    assert audit_records(read_log(local.log_path)).clean


async def until(condition: Callable[[], bool], seconds: float = 30) -> None:
    deadline = asyncio.get_running_loop().time() + seconds
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.002)


async def test_a_resumed_screen_draws_the_table_before_it_tells_the_game_so_far(tmp_path: Path) -> None:
    local = new_table(tmp_path)
    drive(local, lambda t: len(t.view().sheet) == 1 and t.my_turn(), random.Random(1))
    local.close()
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        told = LocalTable.resume(local.log_path)
        story = TableApp(told).narrator.lines  # told as the screen is made
        told.close()
        assert any("Hand 2" in line for line in story)
        app = TableApp(LocalTable.resume(local.log_path), tell_later=True)
        assert app.narrator.lines == []
        frames_before: list[int] = []
        tell = app.catch_up

        def catch_up() -> None:
            frames_before.append(app.app.render_counter)
            tell()

        app.catch_up = catch_up  # type: ignore[method-assign]
        task = asyncio.create_task(app.run())
        await until(lambda: bool(frames_before))
        assert frames_before[0] >= 1  # the table was on screen before the story was told
        assert app.narrator.lines[:len(story)] == story  # the story as it was told when made
        app.catch_up()
        assert app.narrator.lines[:len(story)] == story  # and only once
        pipe.send_text("q")
        pipe.send_text("y")
        await task
        app.table_seat.close()
