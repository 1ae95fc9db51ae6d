"""The ``p2p10 rules`` command, run as a user runs it (a subprocess)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from p2p10.cards import DECK_SIZE, card_text
from p2p10.rules import PHASES
from tests.brute import makes


def p2p10(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_rules_phases_lists_the_phases_under_the_options() -> None:
    out = p2p10("rules", "phases").stdout
    assert "Phase  1: 2 sets of 3" in out and "Phase 10: set of 5 + set of 3" in out
    even = p2p10("rules", "phases", "-o", "phases=even").stdout
    assert "Phase  2" in even and "Phase  1" not in even and "Phase  3" not in even


def test_rules_solve_prints_the_best_lay_down_readably() -> None:
    result = p2p10("rules", "solve", "--phase", "2", "R7", "B7", "G7", "R4", "B5", "Y6", "W",
                   "R2", "R11", "S")
    assert result.returncode == 0
    assert "8 cards down" in result.stdout
    assert "R2 W(3) R4 B5 Y6" in result.stdout
    assert "Left in hand: R11 S (25 points)" in result.stdout


def test_rules_solve_says_when_a_hand_does_not_make_the_phase() -> None:
    result = p2p10("rules", "solve", "--phase", "4", "R1", "R2", "R3")
    assert result.returncode == 0 and "does not make it" in result.stdout


def test_bad_cards_and_options_exit_2_with_a_message_not_a_traceback() -> None:
    for args in (["rules", "solve", "--phase", "2", "X9"],
                 ["rules", "phases", "-o", "bogus"],
                 ["rules", "phases", "-o", "hands=\u00b2"],
                 ["rules", "phases", "-o", "x" * 5000],
                 ["rules", "solve", "--phase", "2"]):
        result = p2p10(*args)
        assert result.returncode == 2
        assert result.stderr.startswith("p2p10: ") and "Traceback" not in result.stderr
        assert len(result.stderr) < 300  # an option is never repeated unbounded


def test_json_mode_answers_every_line_and_survives_bad_ones() -> None:
    lines = [
        json.dumps({"phase": 1, "hand": ["R7", "B7", "W", "G3", "G3", "Y3"]}),
        "not json",
        json.dumps({"phase": 1, "hand": ["R7", "W", "W", "W", "W", "W"],
                    "options": {"natural": "phase"}}),
        json.dumps({"phase": 0, "hand": []}),
        json.dumps({"phase": 2, "hand": ["R99"]}),
        json.dumps({"phase": 2, "hand": ["R1"], "options": ["skip=sideways"]}),
        json.dumps([1, 2]),
        "",
        json.dumps({"phase": 4, "hand": ["R1", "R2"]}),
    ]
    result = p2p10("rules", "solve", "--json", stdin="\n".join(lines) + "\n")
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert result.returncode == 0 and len(answers) == len(lines)
    assert answers[0]["makes"] is True and answers[0]["down"] == 6
    assert {m["kind"] for m in answers[0]["melds"]} == {"set"}
    assert answers[2]["makes"] is True
    assert all("error" in answers[i] for i in (1, 3, 4, 5, 6, 7))
    assert answers[8] == {"makes": False, "melds": [], "down": 0}


def test_json_answers_agree_with_an_exhaustive_search_on_random_deals() -> None:
    rng = random.Random(99)
    requests = []
    for _ in range(300):
        hand = [card_text(c) for c in rng.sample(range(DECK_SIZE), 10)]
        requests.append({"phase": rng.choice(sorted(PHASES)), "hand": hand})
    stdin = "\n".join(json.dumps(r) for r in requests) + "\n"
    answers = [json.loads(line) for line in p2p10("rules", "solve", "--json", stdin=stdin)
               .stdout.splitlines()]
    assert len(answers) == len(requests)
    from p2p10.cards import parse_hand

    for request, answer in zip(requests, answers, strict=True):
        hand = parse_hand(request["hand"])
        assert answer["makes"] == makes(hand, request["phase"]), request
        if answer["makes"]:
            assert answer["down"] == sum(len(m["cards"]) for m in answer["melds"])
            for meld in answer["melds"]:
                assert len(meld["values"]) == len(meld["cards"])


def test_the_wilson_interval_holds_the_win_rate_even_at_its_ends() -> None:
    """The interval printed beside a win rate contains it, and ends exactly at 0 or 1 when no
    game or every game was won (rounding once left 1.0 outside [0.51, 0.9999999999999999])."""
    from cli.simulate_cmd import wilson

    for trials in range(1, 2001):
        for wins in {0, 1, trials // 3, trials - 1, trials}:
            low, high = wilson(wins, trials)
            assert 0.0 <= low <= wins / trials <= high <= 1.0, (wins, trials)
        assert wilson(0, trials)[0] == 0.0 and wilson(trials, trials)[1] == 1.0
    low, high = wilson(1160, 2000)
    assert round(low, 3) == 0.558 and round(high, 3) == 0.601


def test_the_programs_own_lines_go_to_its_log_file_not_the_terminal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 24, point 10 (A63): a broken link is a line in the program's log file
    (``$XDG_DATA_HOME/p2p10/p2p10.log``, its owner's only), never on the screen where the table
    is drawn."""
    import logging

    from cli.main import main

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert main(["rules", "phases"]) == 0
    capsys.readouterr()
    log = tmp_path / "p2p10" / "p2p10.log"
    assert not log.exists()  # made only when there is a line to write
    logging.getLogger("p2p10.mesh").info("link to seat 2 broke: ClientConnectionResetError")
    assert capsys.readouterr() == ("", "")
    assert "p2p10.mesh: link to seat 2 broke: ClientConnectionResetError" in log.read_text()
    assert log.stat().st_mode & 0o077 == 0
