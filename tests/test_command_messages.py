"""What the commands answer to input they refuse: the words the user typed, quoted, and what
would have been accepted; a refusal is a typed error and a non-zero exit status."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli.main import main
from cli.rules_cmd import answer_line
from p2p10.errors import BadRules
from p2p10.rules import RuleSet
from p2p10.simulate import greedy_player
from protocol.memory import play_table

# ------------------------------------------------------------------------------ rule options


@pytest.mark.parametrize("typed,accepted", [
    ("natural", "natural=phase or natural=meld"),
    ("skip", "skip=next or skip=choose"),
    ("hit", "hit=own or hit=any"),
    ("order", "order=any or order=sequence"),
    ("phases", "phases=all, phases=even or phases=odd"),
    ("hands", "hands=N, a whole number of at least 1"),
    ("Goal", "goal=N, a whole number of at least 1"),
])
def test_an_option_given_without_its_value_is_quoted_as_typed(typed: str, accepted: str) -> None:
    with pytest.raises(BadRules) as refused:
        RuleSet.parse([typed])
    assert str(refused.value) == f"rule option {typed!r} needs a value: {accepted}"


@pytest.mark.parametrize("typed,accepted", [
    ("Natural=Sideways", "natural=phase or natural=meld"),
    ("goal=0", "goal=N, a whole number of at least 1"),
    ("skip_stacking=maybe", "skip_stacking, skip_stacking=true or skip_stacking=false"),
])
def test_an_option_with_a_wrong_value_is_quoted_as_typed(typed: str, accepted: str) -> None:
    with pytest.raises(BadRules) as refused:
        RuleSet.parse([typed])
    assert str(refused.value) == f"rule option {typed!r}: expected {accepted}"


def test_a_flag_needs_no_value() -> None:
    assert RuleSet.parse(["skip_stacking"]).skip_stacking


def test_dash_o_natural_says_what_was_typed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "phases", "-o", "natural"]) == 2
    err = capsys.readouterr().err
    assert err == "p2p10: rule option 'natural' needs a value: natural=phase or natural=meld\n"
    assert "true" not in err


# ------------------------------------------------------------------------------ rules solve --json


@pytest.mark.parametrize("request_,error", [
    ({"hand": ["R1"]}, "missing 'phase': give a whole number from 1 to 10"),
    ({"phase": None, "hand": ["R1"]}, "'phase' must be a whole number from 1 to 10, not null"),
    ({"phase": "2", "hand": ["R1"]}, "'phase' must be a whole number from 1 to 10, not \"2\""),
    ({"phase": True, "hand": ["R1"]}, "'phase' must be a whole number from 1 to 10, not true"),
    ({"phase": 11, "hand": ["R1"]}, "'phase' must be a whole number from 1 to 10, not 11"),
    ({"phase": 2}, "missing 'hand': give a list of cards in notation, like [\"R7\", \"W\"]"),
    ({"phase": 2, "hand": "R1 R2"},
     "'hand' must be a list of cards in notation, like [\"R7\", \"W\"], not \"R1 R2\""),
    ({"phase": 2, "hand": [1, 2]},
     "'hand' must be a list of cards in notation, like [\"R7\", \"W\"], not [1, 2]"),
    ({"phase": 2, "hand": ["R1"], "options": "natural=phase"},
     "'options' must be an object like {\"natural\": \"phase\"} or a list like [\"natural=phase\"], "
     "not \"natural=phase\""),
])
def test_solve_json_names_a_missing_or_mistyped_field(request_: dict[str, object], error: str) -> None:
    assert answer_line(json.dumps(request_)) == {"error": error}


def test_solve_json_shows_a_long_value_cut_short() -> None:
    answer = answer_line(json.dumps({"phase": "x" * 500, "hand": []}))
    assert len(answer["error"]) < 120, answer


def test_solve_json_options_parsed_before_are_told_apart_by_their_types() -> None:
    """The rule sets of earlier lines are kept (cli.rules_cmd._PARSED), by the options as written:
    true and 1 are equal in Python but not the same option, and a refused option is refused
    again, with its message, however often it comes."""
    hand = ["R1", "W", "W", "W", "W", "W"]

    def answer(options: object) -> dict[str, object]:
        return answer_line(json.dumps({"phase": 1, "hand": hand, "options": options}))

    natural = answer({"natural": "phase"})
    assert natural["makes"] is True and answer({"natural": "phase"}) == natural
    assert answer(["natural=phase"]) == natural
    assert answer({"goal": 1})["makes"] is False  # goal=1 is an option; each set needs R1 here
    refused = {"error": "rule option 'goal=true': expected goal=N, a whole number of at least 1"}
    assert answer({"goal": True}) == refused and answer({"goal": True}) == refused
    assert answer({"skip_stacking": True}) == answer({"skip_stacking": 1}) == answer({"goal": 1})
    assert answer({"skip_stacking": "maybe"}) == answer({"skip_stacking": "maybe"}) != answer({"goal": 1})


# ------------------------------------------------------------------------------ replay --hand


@pytest.fixture(scope="module")
def three_hands(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("three") / "three.p2p10"
    run = play_table([greedy_player] * 2, RuleSet.parse(["hands=3"]), seed=13, save=path)
    assert all(p.finished for p in run.peers)
    return path


def test_replay_of_a_hand_the_log_does_not_have_says_how_many_it_has(
        three_hands: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["replay", "--text", "--hand", "7", str(three_hands)]) == 2
    out = capsys.readouterr()
    assert not out.out
    assert out.err == "p2p10: --hand 7: this log has only 3 hands (1 to 3)\n"


def test_replay_of_a_hand_the_log_has_prints_it(three_hands: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["replay", "--text", "--hand", "3", str(three_hands)]) == 0
    out = capsys.readouterr().out
    assert "== Hand 3" in out and "== Hand 2" not in out


@pytest.mark.parametrize("lang", ["en", "de", "es"])
def test_help_descriptions_wrap_to_the_terminal_in_every_language_and_examples_keep_their_lines(
        lang: str) -> None:
    env = {**os.environ, "COLUMNS": "80"}
    for command in ("play", "simulate", "audit", "replay", "host", "join", "stats"):
        result = subprocess.run([sys.executable, "-m", "cli", "--lang", lang, command, "--help"],
                                capture_output=True, text=True, timeout=30, env=env)
        assert result.returncode == 0, result.stderr
        description = result.stdout.split("\n\n")[1]  # after the usage
        assert all(len(line) <= 80 for line in description.splitlines()), (command, description)
        examples = [line for line in result.stdout.splitlines() if line.lstrip().startswith("p2p10 ")]
        assert all(line.strip().startswith("p2p10 " + command) for line in examples), examples
