"""The one narrator (:mod:`p2p10.narrate`) of the play screen's move log, the replay viewer and
the transcript: plain words, seats by their names ("you" only for the player in live play), and
a voided hand told as voided, with the hand numbers the table uses."""

from __future__ import annotations

import re
from pathlib import Path

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from cli.table.replay_view import ReplayApp
from p2p10.bots import POLICIES
from p2p10.log import parse_entry, read_records
from p2p10.narrate import Narrator, possessive, spoken_name
from p2p10.replay import revealed_secrets, transcript, view_as
from p2p10.rules import RuleSet
from p2p10.table import TableState
from protocol.local import LocalTable
from tests.test_away import Table
from tests.test_moves import run_scenario_steps


def test_the_move_log_speaks_plain_words() -> None:
    narrator = Narrator(["Ann", "Bot 1 (easy)"], me=1, second_person=True)
    run_scenario_steps(
        {"A": "R7 B7 G7 R4 B5 G6 Y7 R3 R8 S", "B": "Y8 Y9 Y10 Y11 Y12 G8 G9 G10 G11 B12", "up": "B11",
         "stock": "R10 B1"},
        "A draw", "A down 2: R7 B7 G7 | R4 B5 G6 Y7", "A hit R8 -> 1", "A discard S -> B",
        each=narrator.update)
    assert narrator.lines[1:] == [
        "Your phase: 2 (set of 3 + run of 4).",
        "Ann drew a card from the draw pile.",
        "Ann laid down phase 2: set of 7s: R7 B7 G7; run 4-7: R4 B5 G6 Y7.",
        "Ann hit R8 on own run 4-8.",
        "Ann skipped you.",
    ]
    assert narrator.lines[0] == "Hand 2: You deal, B11 turned up"
    assert spoken_name("Bot 1 (easy)") == "Bot 1" and spoken_name("Ann (home)") == "Ann (home)"
    assert possessive("Bot 2 (normal)") == "Bot 2's" and possessive("Cy (Ann's bot)") == "Cy's"


def saved_game(folder: Path, seed: int = 4) -> list[bytes]:
    """A game of ``p2p10 play`` by a player who kept the default name, You, against two bots."""
    local = LocalTable("You", 2, "greedy", RuleSet.parse(["hands=2"]), seed, save_dir=folder, pace=0)
    local.run_to_end(POLICIES["greedy"])
    local.close()
    return read_records(local.log_path.read_bytes()).items


def test_a_replay_seen_as_a_seat_names_every_seat_and_says_you_to_nobody(tmp_path: Path) -> None:
    """The viewer and the transcript as Bot 1 name Bot 1 by its name, and the player named
    You as "Seat 1 (You)": never "You drew", "on You's set" or "your"."""
    records = saved_game(tmp_path)
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        viewer = ReplayApp(records, seat=1)
        viewer.press("end")
        shown = viewer.log_lines()
    printed = list(transcript(records, 1))[3:]  # (after the header, which lists the seats)
    for lines in (shown, printed):
        text = "\n".join(lines)
        assert "You's" not in text and not re.search(r"\b[Yy]our?\b", text.replace("Seat 1 (You)", ""))
        assert re.search(r"Bot 1 drew [RBGYWS]\d* from the draw pile", text)  # its own cards, named
        assert "Seat 1 (You) drew a card from the draw pile" in text
    assert any("on Seat 1's set of 9s" in line for line in printed)


def test_a_possessive_leaves_out_a_bots_level(tmp_path: Path) -> None:
    text = "\n".join(transcript(saved_game(tmp_path, seed=6)))
    assert ")'s" not in text
    assert "Seat 1 (You) hit Y10 on Bot 1's set of 10s." in text


def away_game() -> list[bytes]:
    """Cyd's machine goes away mid-hand 1; Ann and Bob go on without it: the hand is voided and
    dealt again without Cyd, whose bot plays hand 2 (``tests/test_away.py``)."""
    t = Table(11)
    t.stuck_mid_hand()
    t.go_on()
    return [e.raw for e in t.finish()]


def test_a_voided_hand_is_told_as_voided_and_dealt_again_under_its_own_number(tmp_path: Path) -> None:
    records = away_game()
    secrets = revealed_secrets(records)
    table = TableState.from_header(parse_entry(records[0]))
    narrator = Narrator(table.names, me=0, second_person=True)  # Ann's screen, entry by entry
    went_out: list[tuple[str, int]] = []
    for raw in records[1:]:
        table = table.apply(parse_entry(raw))
        view = view_as(table, 0, secrets)
        told = len(narrator.told)
        narrator.update(view, table)
        went_out += [(t.text, len(view.hands[0])) for t in narrator.told[told:] if t.text == "You went out!"]
    lines = narrator.lines
    away = next(i for i, line in enumerate(lines) if "went on without Cyd" in line)
    assert "the hand under way is void and is dealt again without that seat" in lines[away]
    assert lines[away + 1].startswith("Hand 1, dealt again: ")  # nothing of the voided hand after it
    assert [line.split(":")[0] for line in lines if line.startswith("Hand ") and "over" not in line] == [
        "Hand 1", "Hand 1, dealt again", "Hand 2"]
    assert all(held == 0 for _, held in went_out)

    # The transcript and the viewer count hands as the table does: the voided hand and its new
    # deal are both hand 1, and hand 2 is the last.
    printed = list(transcript(records))
    assert [line for line in printed if line.startswith("== ")] == [
        "== Hand 1 ==", "== Hand 1, dealt again ==", "== Hand 2 =="]
    last = list(transcript(records, hand=2))
    assert "== Hand 2 ==" in last and any("Hand 2 over" in line for line in last)
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        viewer = ReplayApp(records, hand=2)
        title = "".join(f[1] for f in viewer.title(viewer.state()))
        assert "hand 2 " in title and viewer.state().hand_no == 1
        viewer.press("end")
        assert "Game over" in viewer.log_lines()[-1]
