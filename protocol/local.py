"""A table on this machine, in real time: the user's peer and bot peers, for ``p2p10 play``.

Every seat is a separate :class:`~p2p10.peer.Peer` with its own keys and secrets, exactly as on
a LAN; their messages are passed in memory at once. Bots move after ``pace`` seconds, so a
person can follow the game. The user's log (and secrets) are written to ``save_dir`` as the
game goes, so ``p2p10 replay`` and ``p2p10 audit`` work on it, even if the game is quit.

The driver is asyncio: :meth:`LocalTable.run` delivers messages in small steps, yielding to
the event loop between them so a screen stays responsive while the deck is shuffled, and calls
``on_change`` after every new log entry.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from p2p10.bots import POLICIES, Policy
from p2p10.engine import GameState
from p2p10.errors import IllegalMove
from p2p10.events import SeatEvent
from p2p10.log import Entry
from p2p10.peer import HandSecrets, Peer, addressed
from p2p10.rules import RuleSet
from p2p10.table import TableState
from protocol.memory import make_peers, sit_downs_for
from protocol.storage import LogWriter, SeatFiles, SecretsWriter

USER = 0


def data_dir() -> Path:
    """Where games are saved: ``$XDG_DATA_HOME/p2p10/games`` (``~/.local/share`` by default)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "p2p10" / "games"


@dataclass(frozen=True, slots=True)
class Seat:
    """Who sits where: a name, and the bot policy (None for the user)."""

    name: str
    policy: str | None


class SeatScreen:
    """What the play screen reads of the user's seat, whatever drives the table: the user's
    peer (:attr:`user`), its fold, its view, and whether it is the user's move."""

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


class LocalTable(SeatScreen):
    """The user at seat 0 against bots, every seat its own peer (see the module docstring)."""

    def __init__(self, name: str = "You", bots: int = 3, level: str = "normal",
                 rules: RuleSet | None = None, seed: int | None = None,
                 save_dir: Path | None = None, pace: float = 0.6) -> None:
        if not 1 <= bots <= 5:
            raise IllegalMove(f"a table has 1 to 5 bots besides you, not {bots}")
        if level not in POLICIES:
            raise IllegalMove(f"unknown bot level {level!r}; choose from {', '.join(POLICIES)}")
        self.rules = rules or RuleSet()
        self.pace = pace
        self.seats = [Seat(name, None)] + [Seat(f"Bot {i} ({level})", level) for i in range(1, bots + 1)]
        self.policies: list[Policy | None] = [None] + [POLICIES[level]] * bots
        self._rng = random.Random(seed)
        self.peers = make_peers([None] * (bots + 1), seed)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        self.sit_downs = sit_downs_for(self.peers, [s.name for s in self.seats], self.rules, seed)
        self.game_id = TableState.game_id_for(self.sit_downs)
        folder = save_dir or data_dir()
        self.log_path = folder / f"{stamp}-{self.game_id.hex()[:8]}.p2p10"
        self._log = LogWriter(self.log_path)
        self._secrets = SecretsWriter(SeatFiles(self.log_path).secrets)
        user = self.peers[USER]
        self._secrets.add_identity(USER, user.identity.private_bytes_raw())
        user.hooks.listen(entry=self._saved, secret=self._keep_secret)
        self._listeners: list[Callable[[], None]] = []
        self._changed = asyncio.Event() if _loop_running() else None
        self.started = False

    # -------------------------------------------------------------------- reading

    @property
    def user(self) -> Peer:
        """The user's own peer."""
        return self.peers[USER]

    @property
    def over(self) -> bool:
        """True once the game has a winner (or a peer froze on a violation)."""
        return self.user.finished or any(p.stopped for p in self.peers)

    def dealing(self) -> tuple[int, int] | None:
        """While a hand is being set up: (entries written, entries needed); None in play."""
        return dealing_progress(self.table, len(self.seats))

    @property
    def names(self) -> list[str]:
        """The players' names, in seat order."""
        return [seat.name for seat in self.seats]

    # --------------------------------------------------------------------- input

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` after every new entry in the user's log."""
        self._listeners.append(listener)

    def play(self, move: SeatEvent) -> None:
        """The user's move; raises :class:`IllegalMove` with a reason, changing nothing."""
        self.user.play(move)
        self._wake()

    # ------------------------------------------------------------------- driving

    def start(self) -> None:
        """Write the table entry (the user's peer opens the table)."""
        if self.started:
            return
        self.started = True
        self.user.open_table(self.sit_downs)

    def step(self) -> bool:
        """Deliver one round of pending messages; True if anything moved."""
        moved = False
        for src, peer in enumerate(self.peers):
            for target, data in addressed(peer.take_outbox(), src, len(self.peers)):
                self.peers[target].receive(data, src, time.monotonic())
                moved = True
        return moved

    def bot_move(self) -> bool:
        """If a bot is due to move, make its move now; True if one moved."""
        table = self.table
        expect = table.expected() if table else None
        if expect is None or expect.kind != "move" or expect.seat == USER:
            return False
        policy = self.policies[expect.seat]
        assert policy is not None
        peer = self.peers[expect.seat]
        peer.play(policy(peer.view(), expect.seat, self._rng))
        return True

    async def run(self) -> None:
        """Play until the game is over: pass messages, pace the bots, wait for the user."""
        self._changed = asyncio.Event()
        self.start()
        while not self.over:
            if self.step():
                await asyncio.sleep(0)  # let the screen redraw between dealing steps
                continue
            if self.my_turn():
                self._changed.clear()
                await self._changed.wait()
                continue
            table = self.table
            expect = table.expected() if table else None
            if expect is not None and expect.kind == "move":
                await asyncio.sleep(self.pace)
                self.bot_move()
                continue
            await asyncio.sleep(0)
        self.step()

    def run_to_end(self, user_policy: Policy) -> None:
        """Play a whole game at once with ``user_policy`` in the user's seat (for tests)."""
        self.start()
        rng = random.Random(0)
        while not self.over:
            if self.step():
                continue
            if self.my_turn():
                self.play(user_policy(self.view(), USER, rng))
            elif not self.bot_move():
                raise RuntimeError("the table is stuck: nobody can write")
        self.step()

    def close(self) -> None:
        """Close the files (the log stays where it is)."""
        self._log.close()
        self._secrets.close()

    # ------------------------------------------------------------------ internals

    def _saved(self, entry: Entry) -> None:
        self._log.add(entry)
        for listener in self._listeners:
            listener()

    def _keep_secret(self, secrets: HandSecrets) -> None:
        self._secrets.add_hand(secrets)

    def _wake(self) -> None:
        if self._changed is not None:
            self._changed.set()


def dealing_progress(table: TableState | None, players: int) -> tuple[int, int] | None:
    """While a hand is being set up: (entries written, entries needed) of keys, shuffles and
    deal tokens, for a progress bar; None once the hand is in play."""
    if table is None:
        return (0, 3 * players)
    hand = table.hand
    n = players
    if hand is None:
        return (0, 3 * n) if table.expected() is not None else None
    if hand.stage == "keys":
        return (len(hand.publics), 3 * n)
    if hand.stage == "shuffle" and len(hand.rounds) == 1:
        return (n + len(hand.rounds[0].decks), 3 * n)
    if hand.stage == "deal_tokens":
        return (2 * n + hand.batches, 3 * n)
    return None


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
