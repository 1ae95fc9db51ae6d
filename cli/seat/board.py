"""The table seen by one seat (or a spectator), as a model: the hand in the chosen order with
its cursor and selection, the question asked, the status line, the move log, which screen is
on show (the table or a side screen, as plain data), and what each key does. The play screen
(:mod:`.play`) and the replay viewer (:mod:`cli.table.replay_view`) are built on it.

Keys are named as the terminal names them ("Enter", "Esc", "←", "Space", "d"); a click or a tap
on the page is the same call as its key (:meth:`SeatBoard.press`, :meth:`SeatBoard.pick`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cli.seat.prompts import Prompt, yes_no
from cli.seat.styled import Styled, colour_key, coloured_words
from p2p10.cards import sort_key
from p2p10.engine import GameState
from p2p10.i18n import _, pgettext
from p2p10.narrate import HandSummary, Narrator, Told
from p2p10.rules import RuleSet
from p2p10.screen_view import (
    HelpEntry,
    HelpView,
    MeldsView,
    OverView,
    RulesView,
    SummaryView,
    help_view,
    melds_view,
    over_view,
    rules_view,
    summary_view,
)
from p2p10.seat_view import SheetView, hand_fit_view, sheet_view

SideView = HelpView | RulesView | MeldsView | SummaryView | OverView | SheetView
"""A side screen as plain data (see :meth:`SeatBoard.side_view`)."""

KeyItem = tuple[str, str, bool]
"""A key as the keys at the foot of a screen list it: the key, what it does, whether it does
it now."""

SIDE_KEYS = {"s": "sheet", "r": "rules", "?": "help", "m": "melds"}
"""The side screens' keys: each opens its screen from the table or another side screen."""


class SeatBoard:
    """The table of one game seen by seat ``me`` (None: a spectator), with the move log told by
    a :class:`~p2p10.narrate.Narrator` ("you" for ``me`` if ``second_person``). A board built
    on it provides the game (:meth:`state`) and the table's keys (:meth:`table_keys`)."""

    help_text: tuple[HelpEntry, ...] = ()

    def __init__(self, names: Sequence[str], rules: RuleSet, me: int | None,
                 second_person: bool = False) -> None:
        self.me = me
        self.rules = rules
        self.prompt: Prompt | None = None
        self.by_colour = False
        self.cursor = 0
        self.selected: set[int] = set()
        self.screen = "table"  # or help, sheet, rules, melds, hand, over
        self.status: Styled = []
        self.narrator = Narrator(names, me, second_person)
        self.summary: HandSummary | None = None
        self.scroll = 0  # the first line shown of a side screen taller than the terminal
        # The front ends drawing this board are told of every change, and of the user leaving
        # (a bug that ended the screen is kept in ``broke``).
        self.on_change: list[Callable[[], None]] = []
        self.on_leave: list[Callable[[], None]] = []
        self.broke: BaseException | None = None

    # ----------------------------------------------------------------- to be provided

    def state(self) -> GameState | None:
        """The game as this board shows it."""
        raise NotImplementedError

    def table_keys(self, key: str) -> None:
        """Handle a key on the table screen."""
        raise NotImplementedError

    # ------------------------------------------------------------------- the seats

    @property
    def names(self) -> list[str]:
        """The seats' names as the table has them now (a seat a bot took over says whose)."""
        return list(self.narrator.names)

    @property
    def spoken(self) -> list[str]:
        """The seats' names as sentences say them."""
        voice = self.narrator.voice
        return [voice.name(seat) for seat in range(len(self.narrator.names))]

    # ------------------------------------------------------------------- the hand

    def hand_slots(self, state: GameState) -> list[int]:
        """The slots of the shown hand, in the chosen order (the cursor kept on one of them)."""
        if self.me is None or state.stage == "deal":
            return []
        known = [s for s in state.hands[self.me] if s in state.known]
        key = colour_key if self.by_colour else sort_key
        slots = sorted(known, key=lambda s: key(state.known[s]))
        self.cursor = max(0, min(self.cursor, len(slots) - 1))
        return slots

    def fits(self, state: GameState) -> tuple[frozenset[int], str]:
        """The cards to highlight in the shown hand (as slots), and a line that says why."""
        fit = hand_fit_view(state, self.me)
        return fit.slots, fit.text

    def hand_hint(self, state: GameState) -> str:
        """The line under the shown hand: what its highlighted cards mean to the player, and
        the key that uses them."""
        return self.fits(state)[1]

    def hand_hints(self, state: GameState) -> list[str]:
        """The line under the hand in every form, widest first (a narrow screen takes the first
        that fits, and the last whatever its width)."""
        return [self.hand_hint(state)]

    def raised(self) -> set[int]:
        """The hand's slots drawn raised: the selection, or the lay-down a prompt previews."""
        if self.prompt is not None and self.prompt.current.cards:
            return set(self.prompt.current.cards)
        return self.selected

    def move_cursor(self, key: str, count: int) -> bool:
        """Move the hand's cursor with ←, →, Home, End; True if ``key`` was one of them."""
        steps = {"←": self.cursor - 1, "→": self.cursor + 1, "home": 0, "end": count - 1}
        if key not in steps or not count:
            return False
        self.cursor = steps[key] % count
        return True

    # -------------------------------------------------------------------- the move log

    def log_told(self) -> Sequence[Told]:
        """The story so far (the move log shows its lines for a screen)."""
        return self.narrator.told

    # ----------------------------------------------------------------- side screens

    def side_view(self) -> SideView | None:
        """The side screen on show, as plain data (:mod:`p2p10.screen_view`): what the terminal
        lays out in text and the page draws in HTML; None on the table, or before the game has
        a state."""
        state = self.state()
        if self.screen == "help":
            return help_view(self.help_text)
        if self.screen == "rules":
            return self.rules_view()
        if state is None or self.screen == "table":
            return None
        if self.screen == "melds":
            return melds_view(state)
        if self.screen == "hand" and self.summary is not None:
            return summary_view(self.summary, state.names, self.narrator.voice)
        if self.screen == "over":
            return self.over_view(state)
        return sheet_view(state)

    def rules_view(self) -> RulesView:
        """The rules screen: the rules in force (a table may add its own)."""
        return rules_view(self.rules)

    def over_view(self, state: GameState) -> OverView:
        """The end of the game: the winner and the score sheet (a table may add its notes)."""
        return over_view(state, self.narrator.summaries, self.narrator.voice)

    def open(self, screen: str) -> None:
        """Show a side screen (from its top)."""
        self.screen = screen
        self.scroll = 0

    def close_panel(self) -> None:
        """Back to the table."""
        self.screen = "table"

    # ------------------------------------------------------------------ the status line

    def say(self, text: str, style: str = "class:info") -> None:
        """Show a message in the status line."""
        self.status = coloured_words(text, style)

    def refuse(self, text: str) -> None:
        """Show why an action is not allowed."""
        self.say(text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else "."), "class:error")

    def status_shown(self) -> Styled:
        """What the status line says when no question is asked: the last message (a board may
        say more when it has nothing else to say)."""
        return self.status

    # ------------------------------------------------------------------------ keys

    def key_items(self) -> list[KeyItem]:
        """The keys of what is on the screen: (key, what it does, whether it does it now)."""
        if self.prompt is not None:
            return [("←→", pgettext("key", "choose"), True), ("Enter", pgettext("key", "pick"), True),
                    ("Esc", pgettext("key", "cancel"), True)]
        if self.screen == "table":
            return self.footer_items()
        if self.screen == "over":
            back = pgettext("key", "leave")
        elif self.screen == "hand":
            back = pgettext("key", "next hand")
        else:
            back = pgettext("key", "back")
        return [("Enter", back, True), *self.panel_keys_shown(), *self.screen_keys()]

    def footer_items(self) -> list[KeyItem]:
        """The table screen's keys."""
        return self.screen_keys()

    def screen_keys(self) -> list[KeyItem]:
        """The keys of every screen: the side screens and leaving."""
        return [("s", pgettext("key", "scores"), True), ("r", pgettext("key", "rules"), True),
                ("?", pgettext("key", "help"), True), ("q", self.quit_word(), True)]

    def quit_word(self) -> str:
        """What q does, as the keys say it."""
        return pgettext("key", "quit")

    def panel_keys_shown(self) -> list[KeyItem]:
        """A screen's own keys on a side screen, after Enter's (none here)."""
        return []

    def press(self, key: str) -> None:
        """Handle one key (a button's too)."""
        self.status = []  # the status line answers the last key only
        prompt = self.prompt
        if prompt is not None:
            self._prompt_key(prompt, key)
        elif key in ("q", "c-c", "<sigint>"):
            self.ask_quit()
        elif self.screen == "table" and key == "m":
            self.open("melds")  # every meld in full, on every screen of a table
        elif self.screen == "table":
            self.table_keys(key)
        else:
            self.panel_keys(key)
        self.invalidate()

    def panel_keys(self, key: str) -> None:
        """Keys on a side screen: its own key or Esc/Enter go back; s, r, ? switch; ↑↓ scroll."""
        if key in ("↑", "↓", "pageup", "pagedown"):
            step = {"↑": -1, "↓": 1, "pageup": -10, "pagedown": 10}[key]
            self.scroll = max(0, self.scroll + step)
        elif key in SIDE_KEYS and SIDE_KEYS[key] != self.screen:
            self.open(SIDE_KEYS[key])
        elif key in ("Esc", "Enter", "Space", *SIDE_KEYS):
            self.close_panel()

    # ------------------------------------------------------------------ questions

    def ask_quit(self) -> None:
        """Ask before leaving."""
        self.prompt = yes_no(_("Quit?"), _("yes, quit"), self.quit, _("no"), self.cancel)

    def cancel(self) -> None:
        """Drop the question in the status line."""
        self.prompt = None

    def pick(self, index: int) -> None:
        """Pick the answer at ``index`` of the question asked (nothing if none is, or there is
        no such answer)."""
        prompt = self.prompt
        if prompt is None or not 0 <= index < len(prompt.choices):
            return
        self.prompt = None
        self.status = []
        prompt.choices[index].action()
        self.invalidate()

    def _prompt_key(self, prompt: Prompt, key: str) -> None:
        keys = [c.key.lower() for c in prompt.choices]
        also = [c.also.lower() for c in prompt.choices]
        if key.lower() in keys and key != prompt.cycle:
            self.pick(keys.index(key.lower()))
        elif key.lower() in also and key.lower() not in keys:
            self.pick(also.index(key.lower()))
        elif key in ("←", "↑", "BackTab"):
            prompt.index = (prompt.index - 1) % len(prompt.choices)
        elif key in ("→", "↓", "Tab", prompt.cycle):
            prompt.index = (prompt.index + 1) % len(prompt.choices)
        elif key in ("Enter", "Space"):
            self.pick(prompt.index)
        elif prompt.other is not None and prompt.other(key):
            self.prompt = None
        else:
            self.prompt = None
            self.say(_("Cancelled."), "class:dim")

    # ------------------------------------------------------------ the front ends

    def invalidate(self) -> None:
        """Tell every front end that the board changed."""
        for hook in self.on_change:
            hook()

    def quit(self) -> None:
        """The user leaves (``on_leave`` is told once: a key typed twice must not end it twice)."""
        self._gone()

    def fail(self, err: BaseException) -> None:
        """Leave because of a bug (kept in ``broke``)."""
        self.broke = err
        self._gone()

    def _gone(self) -> None:
        hooks, self.on_leave = self.on_leave, []
        for hook in hooks:
            hook()
