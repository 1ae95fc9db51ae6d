"""``p2p10 replay`` on a terminal: the table of a saved game, stepped through move by move and
hand by hand, as one seat saw it or as a spectator."""

from __future__ import annotations

from collections.abc import Sequence

from cli.table.board import Board
from cli.table.drawing import Line
from p2p10.engine import GameState
from p2p10.errors import IllegalMove, ProtocolViolation
from p2p10.log import BadEntry, NotALog
from p2p10.narrate import Narrator, Told
from p2p10.replay import replay_frames, revealed_secrets, view_as
from p2p10.table import TableState

REPLAY_HELP = (
    " A saved game, step by step, as one seat saw it or as a spectator.",
    "",
    " ←→ one move back or on          ↑↓ or PgUp/PgDn one hand back or on",
    " Home/End the start or the end   0 spectator   1-6 see as that seat",
    " s  score sheet    r  rules      ?  this help   q  leave",
    "",
    " A spectator sees hidden cards only at each hand's end-of-hand reveal; a seat",
    " sees its own cards (opened with its key, which the log holds from that hand's",
    " reveal on).",
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
            raise NotALog(f"the log's first entry is not a table: {err}") from None
        self.secrets = revealed_secrets(records)
        first = self.frames[0]
        if seat is not None and not 0 <= seat < first.players:
            raise IllegalMove(f"there is no seat {seat + 1} at this table")
        hands = [frame.engine.hand_no for frame in self.frames]
        self.at = hands.index(hand - 1) if hand is not None and hand - 1 in hands else 0
        super().__init__(first.names, first.rules, seat, ascii_only)
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

    def title(self, state: GameState | None) -> Line:
        """Where the replay stands."""
        who = f"as {self.frames[self.at].names[self.me]}" if self.me is not None else "as a spectator"
        hand = f"hand {state.hand_no + 1}  " if state is not None and state.hand_no >= 0 else ""
        step = f"{hand}step {self.at + 1}/{len(self.frames)}  "
        line: Line = [("class:title", " p2p10 replay  "), ("", step), ("class:dim", who)]
        if self.stopped and self.at == len(self.frames) - 1:
            line.append(("class:error", f"  stopped: {self.stopped}"))
        return line

    def footer(self) -> list[Line]:
        """The viewer's keys."""
        return [*self.keys_lines([("←→", "move", True), ("↑↓", "hand", True), ("Home/End", "start/end", True),
                                  ("0-6", "seat", True)]),
                *self.keys_lines([("s", "scores", True), ("r", "rules", True), ("?", "help", True),
                                  ("q", "leave", True)])]

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
            seen = f"as {self.frames[self.at].names[self.me]}" if self.me is not None else "as a spectator"
            self.say(f"Seen {seen}.")
        elif key in ("s", "r", "?"):
            self.open({"s": "sheet", "r": "rules", "?": "help"}[key])
