"""The start screen of ``p2p10 play``, driven by keys through a pipe as a person would type them."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from cli.game_settings import NewGame
from cli.seat.start import Continue, Leave, Listed, Replay, StartChoice
from cli.table.start import StartScreen

KEYS = {"→": "\x1b[C", "←": "\x1b[D", "↑": "\x1b[A", "↓": "\x1b[B", "Enter": "\r", "Esc": "\x1b"}


class Terminal(DummyOutput):
    def get_size(self) -> Size:
        return Size(rows=24, columns=80)


def run(keys: list[str], settings: NewGame | None = None, unfinished: list[Listed] | None = None,
        recent: list[Listed] | None = None, record: list[str] | None = None) -> tuple[StartChoice, str]:
    """Type ``keys`` into a start screen; its choice and every screen it showed, before each key
    and at the end."""

    async def main() -> tuple[StartChoice, str]:
        with create_pipe_input() as pipe, create_app_session(input=pipe, output=Terminal()):
            screen = StartScreen(settings or NewGame(), unfinished or [], recent or [], record or [])
            task = asyncio.create_task(screen.run())
            screens = []
            for key in keys:
                await asyncio.sleep(0.02)
                screens.append(screen.screen_text())
                pipe.send_text(KEYS.get(key, key))
            choice = await asyncio.wait_for(task, 10)
            return choice, "\n".join([*screens, screen.screen_text()])

    return asyncio.run(main())


def test_n_starts_a_game_with_the_settings_of_the_flags() -> None:
    settings = NewGame("Ann", 2, "hard", ("skip=next",))
    choice, _screen = run(["n"], settings)
    assert choice == settings


def test_a_quick_game_against_two_hard_bots_chosen_with_the_arrows() -> None:
    # down to "Bots" (3): ← makes 2; down to "level" (normal): → makes hard; down to "Game": → quick
    keys = ["↓", "←", "↓", "→", "↓", "→", "↑", "↑", "↑", "Enter"]
    choice, _screen = run(keys)
    assert choice == NewGame("You", 2, "hard", ("phases=even",))


def test_the_name_and_the_rule_options_are_typed_and_checked() -> None:
    # row 5 is the name, row 4 the rule options
    keys = ["↓", "↓", "↓", "↓", "↓", "Enter", *"\x7f" * 3, *"Zoë", "Enter",
            "↑", "Enter", *"goal=3 skip=next", "Enter", "n"]
    choice, _screen = run(keys)
    assert choice == NewGame("Zoë", 3, "normal", ("goal=3", "skip=next"))


def test_a_bad_rule_option_is_refused_with_the_reason_and_changes_nothing() -> None:
    keys = ["↓", "↓", "↓", "↓", "Enter", *"nonsense=1", "Enter"]
    choice, screen = run([*keys, "q"])
    assert choice == Leave()
    assert "unknown rule option 'nonsense=1'" in screen  # said after Enter, in the user's words


def test_escape_while_typing_keeps_the_old_name() -> None:
    keys = ["↓", "↓", "↓", "↓", "↓", "Enter", *"Bob", "Esc", "n"]
    choice, _screen = run(keys)
    assert isinstance(choice, NewGame) and choice.name == "You"


def test_continue_and_replay_return_the_game_chosen() -> None:
    unfinished = [Listed(Path("/g/new.p2p10"), "today, hand 3"), Listed(Path("/g/old.p2p10"), "old")]
    recent = [Listed(Path("/g/done.p2p10"), "won in 4 hands")]
    assert run(["c"], unfinished=unfinished)[0] == Continue(Path("/g/new.p2p10"))
    # after the six new-game rows: the two unfinished games, then the recent one
    keys = ["↓"] * 7 + ["Enter"]
    assert run(keys, unfinished=unfinished, recent=recent)[0] == Continue(Path("/g/old.p2p10"))
    keys = ["↓"] * 8 + ["Enter"]
    choice, screen = run(keys, unfinished=unfinished, recent=recent, record=["2 games, 1 won"])
    assert choice == Replay(Path("/g/done.p2p10"))
    assert "today, hand 3" in screen and "won in 4 hands" in screen and "2 games, 1 won" in screen


@pytest.mark.parametrize("keys", [["q"], ["Esc"], ["↑", "Enter"]])
def test_leaving_starts_nothing(keys: list[str]) -> None:
    choice, screen = run(keys)
    assert choice == Leave()
    assert "No finished game yet." in screen
