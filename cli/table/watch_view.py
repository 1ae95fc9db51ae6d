"""``p2p10 watch`` on a terminal: the replay viewer's table, fed live. Each entry checked by the
spectator's audit adds a step (the same steps a replay shows); while the viewer is at the last
step it follows the game, and stepping back leaves it where it is until End. A spectator holds
only what is public: hidden cards only at each hand's reveal. Seen as a seat (1-6, as in the
replay), that seat's own cards of a hand open once the hand's reveal has come, as in a replay
of the log so far; the hand being played shows them face down."""

from __future__ import annotations

from collections.abc import Sequence

from cli.table.drawing import Line
from cli.table.replay_view import ReplayApp
from p2p10.chatroom import spectators_in
from p2p10.engine import GameState
from p2p10.i18n import _
from p2p10.log import fingerprint
from p2p10.narrate import spectators_text
from p2p10.replay import revealed_secrets
from p2p10.table import TableState


class WatchApp(ReplayApp):
    """The live table of a watched game (:meth:`add` each state the audit reached)."""

    def __init__(self, records: Sequence[bytes], ascii_only: bool = False) -> None:
        super().__init__(records[:1], None, ascii_only)
        self.latest = self.frames[-1]
        self.ended: str | None = None  # the verdict, once the game is over
        self.failure: str | None = None
        # Every seat's key, as its player's own machine shows it to them ("your key: ..."): the
        # host chose whom to seat, and only the players can say that these keys are theirs.
        # They open the move log, where stepping back to the start shows them again.
        table = self.frames[0]
        self.narrator.note(_("The keys at this table (each player can compare theirs):"))
        for seat in range(table.players):
            # The key on a line of its own: the move log is narrow, and a key cut in the
            # middle is hard to compare.
            self.narrator.note(_("seat {seat}: {name}, key:").format(seat=seat + 1, name=table.names[seat]))
            groups = fingerprint(table.keys[seat]).split(":")  # (in halves, if the log wraps)
            self.narrator.note(":".join(groups[:4]) + " " + ":".join(groups[4:]))
        self._counts[0] = len(self.narrator.told)

    def add(self, table: TableState, raw: bytes | None = None) -> None:
        """The state after the next entry (``raw``): a new step where a replay would have one
        (a move is due, a hand was scored, the game ended). A reveal opens its seat's cards of
        that hand, for the view as that seat."""
        opened = revealed_secrets([raw]) if raw is not None else {}
        if opened:
            self.secrets.update(opened)
            if self.me is not None and any(seat == self.me for _hand, seat in opened):
                self._narrate()  # the story as that seat, its cards of the hand now opened
        before = self.latest
        self.latest = table
        expect = table.expected()
        scored = len(table.engine.sheet) > len(before.engine.sheet)
        if not (expect is None or expect.kind == "move" or scored):
            return
        following = self.at == len(self.frames) - 1
        self.frames.append(table)
        self.narrator.update(self._view(table), table)
        self._counts.append(len(self.narrator.told))
        if following:
            self.at = len(self.frames) - 1
        self.invalidate()

    def failed(self, line: str) -> None:
        """A violation (or damage) seen: shown, and the table stays where the log stopped."""
        self.failure = line
        self.refuse(line)
        self.invalidate()

    def heard(self, seat: int, text: str) -> None:
        """A line of table chat, as the host showed it; a notice of who watches as a notice
        (nobody's words)."""
        notice = spectators_in(text)
        if notice is not None:
            self.say(spectators_text(notice), "class:dim")
        else:
            names = self.frames[0].names
            who = names[seat] if 0 <= seat < len(names) else "?"
            self.say(f"{who}: {text}")
        self.invalidate()

    def over(self, verdict: str) -> None:
        """The game is over (or the link closed): the verdict stays in the title."""
        self.ended = verdict
        if self.latest is not self.frames[-1]:
            following = self.at == len(self.frames) - 1
            self.frames.append(self.latest)
            self.narrator.update(self._view(self.latest), self.latest)
            self._counts.append(len(self.narrator.told))
            if following:
                self.at = len(self.frames) - 1
        self.say(_("The game is over: press q to leave."))
        self.invalidate()

    def title(self, state: GameState | None) -> Line:
        """Like the replay's, with what the watch is doing instead of "replay"."""
        line = super().title(state)
        doing = (_("watching, game over") if self.ended is not None else _("watching live"))
        line[0] = ("class:title", f" p2p10 {doing}  ")
        if self.failure is not None:
            line.append(("class:error", "  " + self.failure))
        return line

    def table_keys(self, key: str) -> None:
        """The replay's keys; seen as a seat, a word on when its cards show."""
        seat = self.me
        super().table_keys(key)
        if self.me is not None and self.me != seat:
            self.say(_("Its cards show once their hand's reveal has come, at the end of the hand."))
