"""``p2p10 replay`` on a terminal: the table of a saved game, stepped through move by move and
hand by hand, as one seat saw it or as a spectator."""

from __future__ import annotations

from collections.abc import Sequence

from cli.table.board import Board
from cli.table.drawing import Line
from p2p10.engine import GameState
from p2p10.errors import IllegalMove, ProtocolViolation
from p2p10.i18n import N_, _, pgettext
from p2p10.log import BadEntry, NotALog
from p2p10.narrate import Narrator, Told
from p2p10.replay import replay_frames, revealed_secrets, view_as
from p2p10.screen_view import HelpEntry
from p2p10.table import TableState

REPLAY_HELP: tuple[HelpEntry, ...] = (
    N_("A saved game, step by step, as one seat saw it or as a spectator."),
    "",
    ("←→", N_("one move back or on")),
    ("↑↓ PgUp PgDn", N_("one hand back or on")),
    ("Home End", N_("the start or the end")),
    ("0", N_("watch as a spectator")),
    ("1-6", N_("see the game as that seat")),
    ("m", N_("every meld on the table in full (a small terminal shows some by name only)")),
    ("s", N_("score sheet")),
    ("r", N_("rules in force")),
    ("?", N_("this help")),
    ("q", N_("leave")),
    "",
    N_("Highlighted cards (underlined) fit the seat's phase, or a meld on the table once the seat has "
       "laid down its phase."),
    N_("A spectator sees hidden cards only at each hand's end-of-hand reveal; a seat sees its own cards "
       "(opened with its key, which the log holds from that hand's reveal on)."),
)


class ReplayApp(Board):
    """The viewer: the table at each step of :func:`~p2p10.replay.replay_frames`, and the move
    log up to it. ``hand`` (from 1, as the table counts) is where it opens."""

    help_text = REPLAY_HELP

    def __init__(self, records: Sequence[bytes], seat: int | None = None, ascii_only: bool = False,
                 hand: int | None = None) -> None:
        try:
            self.frames, self.stopped = replay_frames(records)
        except (BadEntry, ProtocolViolation) as err:
            raise NotALog(_("the log's first entry is not a table: {error}").format(error=err)) from None
        self.secrets = revealed_secrets(records)
        first = self.frames[0]
        if seat is not None and not 0 <= seat < first.players:
            raise IllegalMove(_("there is no seat {n} at this table").format(n=seat + 1))
        hands = [frame.engine.hand_no for frame in self.frames]
        self.at = hands.index(hand - 1) if hand is not None and hand - 1 in hands else 0
        super().__init__(first.names, first.rules, seat)
        self.build_terminal(ascii_only)
        self._narrate()

    async def run(self) -> None:
        """Show the viewer until the user leaves."""
        await self.app.run_async()

    def _narrate(self) -> None:
        """The story of every frame as the chosen seat saw it, and how much of it each frame
        has told."""
        self.narrator = Narrator(self.frames[0].names, self.me)
        self._counts: list[int] = []
        for frame in self.frames:
            self.narrator.update(self._view(frame), frame)
            self._counts.append(len(self.narrator.told))

    def _view(self, table: TableState) -> GameState:
        return view_as(table, self.me, self.secrets)

    def state(self) -> GameState:
        """The game at the current step as the chosen seat (or a spectator) saw it."""
        return self._view(self.frames[self.at])

    def log_told(self) -> Sequence[Told]:
        """The story up to the current step."""
        return self.narrator.told[:self._counts[self.at]]

    def seen_as(self) -> str:
        """Whose eyes the replay shows the game through."""
        if self.me is None:
            return _("as a spectator")
        return _("as {name}").format(name=self.frames[self.at].names[self.me])

    def title(self, state: GameState | None) -> Line:
        """Where the replay stands (shortened at a word by the pane when it does not fit)."""
        step = ""
        if state is not None and state.hand_no >= 0:
            step = _("hand {n}").format(n=state.hand_no + 1) + "  "
        # TRANSLATORS: the replay's position: "step 12/70".
        step += _("step {at}/{count}").format(at=self.at + 1, count=len(self.frames)) + "  "
        line: Line = [("class:title", " p2p10 replay  "), ("", step), ("class:dim", self.seen_as())]
        if self.stopped and self.at == len(self.frames) - 1:
            line.append(("class:error", "  " + _("stopped: {reason}").format(reason=self.stopped)))
        return line

    def hand_hint(self, state: GameState) -> str:
        """Nothing under the hand: the players' hints name keys the viewer does not have
        (the help says what the highlighted cards mean)."""
        return ""

    def quit_word(self) -> str:
        """q leaves the viewer."""
        return pgettext("key", "leave")

    def footer(self) -> list[Line]:
        """The viewer's keys."""
        return [*self.keys_lines([("←→", pgettext("key", "move"), True),
                                  ("↑↓", pgettext("key", "hand"), True),
                                  ("Home/End", pgettext("key", "start/end"), True),
                                  ("0-6", pgettext("key", "seat"), True)]),
                *self.keys_lines(self.screen_keys())]

    def ask_quit(self) -> None:
        """A viewer leaves at once: nothing is lost."""
        self.quit()

    def table_keys(self, key: str) -> None:
        """Step by move or hand, choose the seat, open the side screens."""
        last = len(self.frames) - 1
        hands = [frame.engine.hand_no for frame in self.frames]
        here = hands[self.at]
        if key == "→":
            self.at = min(self.at + 1, last)
        elif key == "←":
            self.at = max(self.at - 1, 0)
        elif key in ("↓", "pagedown"):
            self.at = next((i for i in range(self.at, last + 1) if hands[i] > here), last)
        elif key in ("↑", "pageup"):
            target = max(here - 1, hands[0]) if self.at == hands.index(here) else here
            self.at = hands.index(target)
        elif key == "home":
            self.at = 0
        elif key == "end":
            self.at = last
        elif key.isdigit() and int(key) <= self.frames[0].players:
            self.me = int(key) - 1 if key != "0" else None
            self._narrate()
            self.say(_("Seen as a spectator.") if self.me is None
                     else _("Seen as {name}.").format(name=self.frames[self.at].names[self.me]))
        elif key in ("s", "r", "?"):
            self.open({"s": "sheet", "r": "rules", "?": "help"}[key])
