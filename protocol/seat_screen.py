"""What a play screen knows of the user's seat at a table, whatever plays the table: a
:class:`~protocol.local.LocalTable` (bots on this machine) or a :class:`~protocol.lan.LanSeat`
(a mesh of machines). The seat plays the table; the screen only reads it, passes the user's
moves on, and waits for it (:meth:`SeatScreen.run`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Protocol

from p2p10.engine import GameState
from p2p10.events import SeatEvent
from p2p10.log import Entry
from p2p10.peer import Peer
from p2p10.rules import RuleSet
from p2p10.table import TableState, fold

PACES = (0.0, 0.3, 0.6, 1.2, 2.5)
"""The bots' paces a screen steps through: seconds a bot waits before each move."""


def next_pace(current: float, faster: bool) -> float:
    """The pace after ``current`` among :data:`PACES`: the next shorter wait if ``faster``,
    else the next longer one (the ends stay; a pace between two steps goes to the nearer
    step that way)."""
    if faster:
        return max((p for p in PACES if p < current), default=PACES[0])
    return min((p for p in PACES if p > current), default=PACES[-1])


class SeatScreen(Protocol):
    """The user's seat as a screen sees it: the table's names and rules, the user's fold of the
    log and view of the game, the user's moves in, and the table played until it ends."""

    @property
    def names(self) -> Sequence[str]:
        """The players' names, in seat order, as the table began."""
        ...

    @property
    def rules(self) -> RuleSet:
        """The rules in force."""
        ...

    @property
    def log_path(self) -> Path:
        """Where the user's log is saved."""
        ...

    @property
    def seat(self) -> int:
        """The user's seat."""
        ...

    @property
    def table(self) -> TableState | None:
        """The user's fold of the log (None until the table entry is in)."""
        ...

    @property
    def over(self) -> bool:
        """True once the game has a winner, or the table froze on a violation."""
        ...

    def view(self) -> GameState:
        """The game as the user sees it."""
        ...

    def my_turn(self) -> bool:
        """True when the table waits for the user's move."""
        ...

    def dealing(self) -> tuple[int, int] | None:
        """While a hand is being set up: (entries written, entries needed); None in play."""
        ...

    def card_coming(self) -> tuple[int, ...]:
        """The seats whose share of the key the card the user just drew still waits for, the
        one the table waits for now first; () when no card of the user's is on its way."""
        ...

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` after every new entry in the user's log."""
        ...

    def play(self, move: SeatEvent) -> None:
        """The user's move; raises :class:`~p2p10.errors.IllegalMove` with a reason, changing
        nothing."""
        ...

    def hold(self, held: bool) -> None:
        """Ask the table to wait (True) while the user reads, or to go on (False). A table that
        cannot wait for one player (the others' machines) goes on regardless."""
        ...

    @property
    def pace(self) -> float | None:
        """Seconds the bots this seat plays wait before each move; None when their pace is not
        this seat's to set (the other machines play at their own)."""
        ...

    def set_pace(self, seconds: float) -> None:
        """Have the bots wait ``seconds`` before each move from now on (the move under way
        too); nothing where :attr:`pace` is None."""
        ...

    @property
    def entries(self) -> int:
        """How many entries the user's log holds."""
        ...

    def history(self) -> Iterator[tuple[GameState, TableState, bool]]:
        """The game as the user saw it, one step per entry of the user's log: the user's view
        after it, the fold, and whether the entry came after the walk began. It follows the
        log as it grows between steps and ends at its end; where the log was cut back and grew
        again it goes on from the cut. A screen opened on a game under way (resumed) tells the
        game from its start with it, as it was told live."""
        ...

    async def run(self) -> None:
        """Play the table until the game is over (or stops); cancel it to leave."""
        ...


class PeerSeat:
    """The part of a :class:`SeatScreen` that the user's own peer (:attr:`user`) answers: the
    seat, the fold, the view, and whether it is the user's move."""

    @property
    def user(self) -> Peer:
        """The user's own peer."""
        raise NotImplementedError

    @property
    def seat(self) -> int:
        """The user's seat."""
        return self.user.seat

    @property
    def table(self) -> TableState | None:
        """The user's fold of the log."""
        return self.user.table

    def view(self) -> GameState:
        """The game as the user sees it."""
        return self.user.view()

    def my_turn(self) -> bool:
        """True when the table waits for the user's move."""
        table = self.table
        expect = table.expected() if table else None
        return expect is not None and expect.seat == self.seat and expect.kind == "move"

    def card_coming(self) -> tuple[int, ...]:
        """The seats whose share of the key the card the user just drew still waits for (see
        :meth:`SeatScreen.card_coming`): the drawer's turn goes on once every other seat has
        written its token for it, in seat order. Until then the card is counted in the user's
        hand but cannot be opened."""
        table = self.table
        hand = table.hand if table is not None else None
        if table is None or hand is None or hand.stage != "draw_tokens" or hand.draw is None:
            return ()
        if hand.draw[1] != self.seat:
            return ()
        others = [s for s in range(table.players) if s != self.seat]
        return tuple(others[hand.batches:])

    @property
    def entries(self) -> int:
        """How many entries the user's log holds."""
        return len(self.user.log)

    def history(self) -> Iterator[tuple[GameState, TableState, bool]]:
        """The game as the user saw it (see :meth:`SeatScreen.history`): the user's log
        folded again, each view with the user's own cards opened by the saved hand keys, as
        :meth:`Peer.view` opens them. Every entry was checked when it came in (or when the seat
        was restored from its files), so its signature is not checked again, nor are the hands'
        proofs: this reads the log, it does not judge it."""
        user = self.user
        table: TableState | None = None
        opened: dict[int, int] = {}
        opened_hand = -1
        given: list[bytes] = []  # the hashes of the entries given so far

        def taken() -> int:
            # Only the entries the user's fold took: an entry kept as evidence of a violation
            # is not.
            return min(len(user.log), user.table.seq if user.table else 0)

        began = user.log[:taken()]  # the entries there at the start
        # By index, not over a copy: the caller may let the event loop run between steps,
        # and the entries that come meanwhile are read too (the story ends caught up).
        while len(given) < taken():
            entry = user.log[len(given)]
            if given and entry.prev_hash != given[-1]:
                # The log was cut back (a move of this machine nobody built on, given up for an
                # `away` entry) and grew again: fold again, untold, as far as the two agree.
                told = len(given)
                table, given = self._refold(given)
                if len(given) == told:
                    return  # an entry that does not chain to the one before: nothing to tell
                opened, opened_hand = {}, -1
                continue
            at = len(given)
            new = at >= len(began) or entry is not began[at]
            given.append(entry.hash)
            table = _fold_checked(table, entry)
            hand, engine = table.hand, table.engine
            if hand is None or engine.stage in ("deal", "over"):
                yield engine, table, new
                continue
            if hand.number != opened_hand:
                opened, opened_hand = {}, hand.number
            secrets = user.secrets.get(hand.number)
            yield table.seat_view(self.seat, secrets.secret if secrets else None, opened), table, new

    def _refold(self, given: list[bytes]) -> tuple[TableState | None, list[bytes]]:
        """The fold of the user's log as far as it agrees with the entries ``given`` (their
        hashes), and those hashes."""
        log = self.user.log
        agree = 0
        while agree < min(len(given), len(log)) and log[agree].hash == given[agree]:
            agree += 1
        table: TableState | None = None
        for entry in log[:agree]:
            table = _fold_checked(table, entry)
        return table, given[:agree]


def _fold_checked(table: TableState | None, entry: Entry) -> TableState:
    """``table`` with ``entry`` folded in, an entry the user's peer checked when it came: its
    signature is not checked again, nor the hands' proofs (postponed, never made)."""
    if table is None:
        return fold(None, entry, postpone=True)
    return table.apply(entry, verified_by=table.verifiers[entry.author])
