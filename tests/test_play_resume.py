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
from collections.abc import Callable, Iterator
from functools import partial
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
from p2p10.events import DrawStock, TakeDiscard
from p2p10.game_fields import GAME_FIELDS
from p2p10.peer_parts import addressed
from p2p10.rules import RuleSet
from p2p10.table import fold
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
        story = told_at_once(local.log_path)  # told as the screen is made
        assert any("Hand 2" in line for line in story)
        app = TableApp(LocalTable.resume(local.log_path), tell_later=True)
        assert app.narrator.lines == []
        frames_before: list[int] = []
        tell = app.tell_story

        async def tell_story(slice_s: float | None = None) -> None:
            frames_before.append(app.app.render_counter)
            await tell(slice_s)

        app.tell_story = tell_story  # type: ignore[method-assign]
        task = asyncio.create_task(app.run())
        await until(lambda: bool(frames_before) and len(app.narrator.lines) >= len(story))
        assert frames_before[0] >= 1  # the table was on screen before the story was told
        assert app.narrator.lines[:len(story)] == story  # the story as it was told when made
        app.catch_up()
        assert app.narrator.lines[:len(story)] == story  # and only once
        pipe.send_text("q")
        pipe.send_text("y")
        await task
        app.table_seat.close()


def resumed_at_my_turn(folder: Path) -> tuple[LocalTable, list[str]]:
    """A game quit at the user's turn in its first hand, and the story a screen opened on it
    tells at once (as a screen made without ``tell_later`` does)."""
    local = new_table(folder)
    drive(local, lambda t: t.my_turn() and len(t.view().history) > 12, random.Random(1))
    local.close()
    return local, told_at_once(local.log_path)


def told_at_once(log: Path) -> list[str]:
    """The story of the log at ``log`` as a screen made on it tells it at once."""
    seat = LocalTable.resume(log)
    lines = TableApp(seat).narrator.lines
    seat.close()
    return lines


def meanwhile(seat: LocalTable, at: dict[int, Callable[[], None]]) -> None:
    """Have ``seat.history()`` do ``at[k]`` after its ``k``-th step: what happens while a
    screen tells the story in slices (a key's move, a LAN table's entry or chat line)."""
    history = seat.history

    def steps() -> Iterator[Any]:
        for k, step in enumerate(history(), 1):
            yield step
            if k in at:
                at.pop(k)()

    seat.history = steps  # type: ignore[method-assign]


async def test_a_key_typed_while_a_resumed_game_is_told_is_answered_before_the_story_ends(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # One entry a slice: the loop has its turn after every entry, so the key is read early
    # whatever this machine's speed (the screen's default slice is 10 ms).
    monkeypatch.setattr("cli.seat.play.STORY_SLICE_S", 0.0)
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        local, story = resumed_at_my_turn(tmp_path)
        assert len(story) > 20
        app = TableApp(LocalTable.resume(local.log_path), tell_later=True)
        told_at_help: list[int] = []
        open_screen = app.open

        def opened(screen: str) -> None:
            if screen == "help":
                told_at_help.append(len(app.narrator.lines))
            open_screen(screen)

        app.open = opened  # type: ignore[method-assign]
        task = asyncio.create_task(app.run())
        pipe.send_text("?")
        await until(lambda: bool(told_at_help) and len(app.narrator.lines) >= len(story))
        assert told_at_help[0] < len(story)  # the help opened while the story was being told
        assert app.narrator.lines == story  # and the story is told whole, in order, once
        pipe.send_text("q")
        pipe.send_text("y")
        await task
        app.table_seat.close()


async def test_a_move_played_while_a_resumed_game_is_told_is_told_once_in_its_place(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("cli.seat.play.STORY_SLICE_S", 0.0)
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        local, story = resumed_at_my_turn(tmp_path)
        seat = LocalTable.resume(local.log_path)
        app = TableApp(seat, tell_later=True)
        told_at_move: list[int] = []
        play = seat.play

        def played(move: Any) -> None:
            told_at_move.append(len(app.narrator.lines))
            play(move)

        seat.play = played  # type: ignore[method-assign]
        task = asyncio.create_task(app.run())
        pipe.send_text("d")
        await until(lambda: any(line.startswith("You drew ") for line in app.narrator.lines[len(story):]))
        assert told_at_move and told_at_move[0] < len(story)  # drawn while the story was told
        pipe.send_text("q")
        pipe.send_text("y")
        await task
        seat.close()
        lines = app.narrator.lines
        assert lines[:len(story)] == story
        drew = [line for line in lines[len(story):] if line.startswith("You drew ")]
        assert len(drew) == 1 and drew[0] != "You drew a card."  # once, the card named
        assert lines == told_at_once(local.log_path)  # as a screen opened now tells it
        report = audit_records(read_log(local.log_path))
        assert report.violation is None and report.damage is None


def test_a_hand_that_ends_while_its_story_is_told_is_told_whole_and_its_summary_opens(
        tmp_path: Path) -> None:
    # The reviewed failure: the entries that came while the story was told were told as one
    # jump from a stale view, losing the hand's end and the first lines of the next.
    with create_pipe_input(), create_app_session(output=DummyOutput()):
        local, _story = resumed_at_my_turn(tmp_path)
        seat = LocalTable.resume(local.log_path)
        app = TableApp(seat, tell_later=True)
        second_hand = partial(drive, seat, lambda t: len(t.view().sheet) == 1 and t.dealing() is None,
                              random.Random(2))
        meanwhile(seat, {5: second_hand})
        app.catch_up()
        assert len(seat.view().sheet) == 1  # the first hand was played out during the story
        assert app.narrator.lines == told_at_once(local.log_path)
        assert app.summary is not None and app.summary.winner is None  # it came live: it opens
        assert app.screen == "hand" and app.hold
        seat.close()


def test_a_line_from_outside_the_log_is_told_where_the_log_was_when_it_came(tmp_path: Path) -> None:
    with create_pipe_input(), create_app_session(output=DummyOutput()):
        local, story = resumed_at_my_turn(tmp_path)
        seat = LocalTable.resume(local.log_path)
        app = TableApp(seat, tell_later=True)
        rng = random.Random(3)

        def move() -> None:  # the user's draw, and what the table writes for it
            drive(seat, lambda t: not t.my_turn() or t.view().stage == "play", rng)
            drive(seat, lambda t: t.view().stage == "play" and not t.card_coming(), rng)

        meanwhile(seat, {3: partial(app.tell, partial(app.narrator.note, "Bo said hello.")),
                         4: move,
                         6: partial(app.tell, partial(app.narrator.note, "Bo said bye."))})
        app.catch_up()
        lines = app.narrator.lines
        assert lines[:len(story)] == story
        drew = next(i for i, line in enumerate(lines) if i >= len(story) and line.startswith("You drew "))
        assert lines[len(story)] == "Bo said hello."  # heard before the draw: told before it
        assert lines.index("Bo said bye.") > drew  # heard after it: told after it
        app.tell(partial(app.narrator.note, "Bo left."))  # once told: at once
        assert app.narrator.lines[-1] == "Bo left."
        seat.close()


def two_ways_on(folder: Path) -> tuple[int, LocalTable, list[Any], Path]:
    """A game quit at the user's turn in its first hand, gone on two ways from there to the
    second hand: the user drawing, or taking the discard. The point where they part (entries),
    the first way resumed, the second way's entries, and its log."""
    local, _story = resumed_at_my_turn(folder / "first")
    shutil.copytree(folder / "first", folder / "second")
    logs = []
    for way, first in (("first", DrawStock(USER)), ("second", TakeDiscard(USER))):
        seat = LocalTable.resume(folder / way / local.log_path.relative_to(folder / "first"))
        parted = seat.entries
        seat.start()
        while seat.step():
            pass
        seat.play(first)
        drive(seat, lambda t: len(t.view().sheet) == 1 and t.dealing() is None, random.Random(2))
        seat.close()
        logs.append(seat.log_path)
    second = LocalTable.resume(logs[1])
    entries = list(second.user.log)
    second.close()
    return parted, LocalTable.resume(logs[0]), entries, logs[1]


def cut_and_regrow(seat: LocalTable, parted: int, entries: list[Any]) -> None:
    """The seat's log cut back to ``parted`` entries and grown again with ``entries`` after
    them (none: only cut back), the fold with it: what a LAN peer does when it gives up its own entries for an
    `away` entry and the table goes on (p2p10/peer_away.py)."""
    user = seat.user
    del user.log[parted:]
    user.log.extend(entries[parted:])
    table = fold(None, user.log[0], defer_proofs=True)
    for entry in user.log[1:]:
        table = table.apply(entry)
    user.table = table


@pytest.mark.parametrize("at", ["behind the cut", "past the cut"])
def test_a_log_cut_back_and_grown_again_while_its_story_is_told_is_told_as_it_now_is(
        tmp_path: Path, at: str) -> None:
    # Behind the cut, the story has yet to reach the entries that changed; past it, it has
    # told some that are gone and goes on from the cut. Either way what came after the story
    # began is told as if live (the first hand's end opens its summary), nothing as one jump.
    with create_pipe_input(), create_app_session(output=DummyOutput()):
        parted, seat, entries, second = two_ways_on(tmp_path)
        app = TableApp(seat, tell_later=True)
        step = 2 if at == "behind the cut" else parted + 3
        meanwhile(seat, {step: partial(cut_and_regrow, seat, parted, entries)})
        app.catch_up()
        lines, now = app.narrator.lines, told_at_once(second)
        if at == "behind the cut":
            assert lines == now
        else:  # entries of the first way may have been told before they went: the rest, in order
            rest = iter(lines)
            assert all(line in rest for line in now), "a line of the log as it now is was not told"
        assert app.summary is not None and app.screen == "hand"
        seat.close()


def test_an_entry_kept_as_evidence_is_not_in_the_story(tmp_path: Path) -> None:
    # A peer keeps an entry the fold refused in its log as evidence of a violation, its fold
    # staying before it (p2p10/peer_sync.py): the story reads only what the fold took.
    with create_pipe_input(), create_app_session(output=DummyOutput()):
        local, story = resumed_at_my_turn(tmp_path)
        seat = LocalTable.resume(local.log_path)
        seat.user.log.append(seat.user.log[-1])  # folded again, it would not chain
        assert TableApp(seat).narrator.lines == story
        seat.close()


def test_a_log_cut_back_while_its_story_is_told_ends_the_story_where_the_seat_is(tmp_path: Path) -> None:
    # A LAN peer gives up its own entries that nobody built on for an `away` entry
    # (p2p10/peer_away.py): its log is cut back, possibly while a resumed screen tells it.
    with create_pipe_input(), create_app_session(output=DummyOutput()):
        local, story = resumed_at_my_turn(tmp_path)
        seat = LocalTable.resume(local.log_path)
        app = TableApp(seat, tell_later=True)
        entries = seat.entries
        # The last three entries go, and the fold with them; nothing comes after them.
        meanwhile(seat, {entries - 1: partial(cut_and_regrow, seat, entries - 3, [])})
        app.catch_up()
        lines = app.narrator.lines
        assert len(story) - 3 <= len(lines) < len(story) and lines == story[:len(lines)]
        app.tell(partial(app.narrator.note, "Bo said hi."))  # the story is over: told at once
        assert app.narrator.lines[-1] == "Bo said hi."
        seat.close()
