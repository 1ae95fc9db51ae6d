"""One seat at a LAN table, run: its peer on the mesh, its files, its bot, the clock that decides
when a machine is gone and the table goes on without it, and how the seat's game ended. The
machine's seats together and the shared pieces are protocol.lan."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from aiohttp import web

from p2p10.bots import POLICIES
from p2p10.errors import IllegalMove
from p2p10.i18n import _
from p2p10.log import Entry
from p2p10.peer import ChatLine, Peer
from p2p10.rules import RuleSet
from p2p10.sitdown import SitDown
from protocol.lan import (
    LEAVING_FLUSH,
    Front,
    GameResult,
    LanSeat,
    Machine,
    Timing,
    log_path_for,
    save_evidence,
    save_roster,
)
from protocol.listener import Door
from protocol.lobby import JOIN_TIMEOUT
from protocol.lobby_messages import LanError as LanError
from protocol.lobby_messages import SeatInfo
from protocol.mesh import Mesh, attach_files
from protocol.storage import LogWriter, SeatFiles, SecretsWriter


class SeatRunner:
    """Plays one peer's seat to the end over the mesh (:meth:`run`), with its files, its
    screen (a *front*) and the bots it takes over.

    ``roster`` has every host resolved; this peer listens at ``listening``. Seat 0 writes the
    table entry carrying every seat's ``sit_downs`` unless its log has one. A ``resumed`` peer
    appends to its files. With a ``front`` (the play screen), a person plays: the front is
    awaited once the table entry is known, and if it returns before the end (the player
    quit), the seat leaves the table, its files kept for resume.

    ``machine`` holds every peer of this process; the first one is the player's. When the
    others go on without a machine and this peer is the runner, it starts the bots it was
    given, with their own files, carried by this peer's mesh; ``taken_over`` are such bots
    restored from their files after a restart."""

    def __init__(self, peer: Peer, table_id: bytes, roster: list[SeatInfo], rules: RuleSet,
                 log_path: Path, mesh_slot: MeshSlot, *, listening: tuple[str, int],
                 resumed: bool = False, sit_downs: Sequence[SitDown] | None = None,
                 front: Front | None = None, machine: Machine | None = None,
                 timing: Timing = Timing(),
                 taken_over: Sequence[tuple[Peer, Path]] = ()) -> None:
        self.peer = peer
        self.table_id = table_id
        self.roster = roster
        self.rules = rules
        self.log_path = log_path
        self.listening = listening
        self.front = front
        self.timing = timing
        self.machine = machine or Machine()
        if peer not in self.machine.peers:
            self.machine.peers.append(peer)
        self.keys = [s.key for s in roster]
        save_roster(SeatFiles(log_path).roster, table_id, rules, roster, listening)
        log, secrets = attach_files(peer, log_path, identity_saved=resumed)  # heard first
        self.closers: list[LogWriter | SecretsWriter] = [log, secrets]
        self.mesh = Mesh(peer, table_id)
        self.machine.listening[peer.seat] = listening
        self.mesh.seat_table(self.keys, [None if i == peer.seat else self.machine.local_address(i)
                                         or (s.host, s.port) for i, s in enumerate(roster)])
        mesh_slot.fill(self.mesh, self.keys)
        self.screen: LanSeat | None = None
        # A bot that thinks (``timing.think``) moves from here, not from inside the peer: the
        # position it is to move at, and since when.
        self._paced = peer.player if timing.think > 0 else None
        self._turn = (-1, 0.0)
        if self._paced is not None:
            peer.player = None
        self.table_known = asyncio.Event()  # set once the table entry is in the log
        self.alone: float | None = None  # how long nobody had answered, once this seat stopped waiting
        self._overdue_said: object = None  # the overdue seat last named on standard error
        for bot, bot_path in taken_over:
            self._take_over(bot, bot_path, restored=True)
        peer.hooks.listen(entry=self._entry_added, chat=self._chat_heard, presence=self._presence_heard)
        if peer.seat == 0 and not peer.log and sit_downs is not None:
            peer.open_table(sit_downs)
        if peer.table is not None:
            self.table_known.set()

    async def run(self) -> GameResult:
        """Play to the end (or until the player quits); the result, files closed."""
        playing = asyncio.ensure_future(self.mesh.run(self._done))
        try:
            if self.front is not None:
                known = asyncio.ensure_future(self.table_known.wait())
                await asyncio.wait([known, playing], return_when=asyncio.FIRST_COMPLETED)
                known.cancel()
                if self.peer.table is not None:
                    self.screen = LanSeat(self.peer, self.mesh, self.rules, self.log_path, playing,
                                          self.machine, alone=lambda: self.alone)
                    await self.front(self.screen)
                if not playing.done():
                    if self.screen is not None and not (self.peer.finished or self.peer.stopped):
                        self.screen.leave()  # a quit is said as a quit, not left to look like a crash
                        await self.mesh.flush(LEAVING_FLUSH)
                    playing.cancel()  # the player left mid-game: the files stay for resume
            with contextlib.suppress(asyncio.CancelledError):
                await playing
        finally:
            if not playing.done():
                playing.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await playing
            for closer in self.closers:
                closer.close()
        return GameResult(self.peer, self.log_path, self.alone)

    # ------------------------------------------------------------ the peer's hooks

    def _entry_added(self, entry: Entry) -> None:
        peer = self.peer  # (the entry is saved already: the files listen first)
        for taken, key in list(peer.delegated.items()):
            carried = self.mesh.locals.get(taken)
            if carried is None or carried.identity is not key:
                # The others went on without a machine and this peer runs its seats now: the
                # bot's key and log are saved before the away entry leaves this peer. The bot
                # goes on from this peer's own checked fold of the log (one fold for the seats
                # of this machine), not from a refold of it, which would stop the game seconds.
                options: dict[str, Any] = {"player": POLICIES[self.machine.bot_level],
                                           "away_after": self.timing.away_after}
                table = peer.table
                if table is not None and table.seq == len(peer.log):
                    bot = Peer.resumed(taken, key, peer.log, table, [], **options)
                else:  # (its log ends in evidence its fold refused: refold it, as a resume does)
                    bot = Peer.restore(taken, key, [e.raw for e in peer.log], [], **options)
                self._take_over(bot, log_path_for(self.log_path.parent, self.table_id, taken),
                                restored=False)
        if peer.table is not None:
            self.table_known.set()
        if self.screen is not None:
            self.screen.entry_added()

    def _chat_heard(self, line: ChatLine) -> None:
        if self.screen is not None:
            self.screen.chat_heard(line)

    def _presence_heard(self, seat: int, state: int) -> None:
        if self.screen is not None:
            self.screen.presence_heard(seat, state)

    def _take_over(self, bot: Peer, bot_path: Path, restored: bool) -> None:
        self.closers.extend(attach_files(bot, bot_path, identity_saved=restored))
        if not restored:
            for entry in bot.log:
                bot.hooks.entry_added(entry)  # its log so far, saved before anything it writes
        save_roster(SeatFiles(bot_path).roster, self.table_id, self.rules, self.roster, self.listening)
        old = self.mesh.locals.get(bot.seat)
        if old in self.machine.peers:
            self.machine.peers.remove(old)  # a bot of an earlier takeover of that seat
        self.mesh.add_local(bot)
        self.machine.peers.append(bot)

    # ------------------------------------------------------------ every poll

    def _done(self) -> bool:
        """Checked by the mesh on every poll: whether the game is over for this seat."""
        peer = self.peer
        table = peer.table
        if table is not None and list(table.keys) != self.keys:
            raise LanError(_("the table entry names other keys than the roster: leaving this table"))
        if self.front is None and peer.overdue is not None and self._overdue_said != peer.overdue:
            self._overdue_said = peer.overdue
            # TRANSLATORS: {name} is a player's name and seat, "Ann (seat 1)".
            print(_("p2p10: waiting for {name}").format(
                name=table.name(peer.overdue.seat) if table else "?"), file=sys.stderr)
        if peer.stopped and not SeatFiles(self.log_path).evidence.exists():
            save_evidence(peer, self.log_path)  # at once: the screen shows where it is
        self._go_on_by_itself()
        self._move_when_thought()
        return peer.finished or peer.stopped or self._nobody_answers()

    def _nobody_answers(self) -> bool:
        """True once the table has started and no other machine has had a link up to this
        peer for ``timing.alone_after`` seconds: the others have left (perhaps after finishing
        the game without this machine, asleep meanwhile) or the network is gone. Waiting on
        would be for ever; the files stay for ``p2p10 resume``."""
        table, after = self.peer.table, self.timing.alone_after
        if table is None or after is None or self.peer.finished or self.peer.stopped:
            return False
        mine = table.machine_of(self.peer.seat)
        others = [seat for seat in range(table.players) if table.machine_of(seat) != mine]
        if not others:
            return False  # (nobody else's machine: a table this machine plays alone)
        waited = self.mesh.unlinked_for(others, self.mesh.clock())
        if waited < after:
            return False
        self.alone = waited
        return True

    def _move_when_thought(self) -> None:
        """A thinking bot's move, ``timing.think`` seconds after its turn came."""
        peer, table = self.peer, self.peer.table
        if self._paced is None or table is None or peer.stopped:
            return
        expect = table.expected()
        if expect is None or expect.seat != peer.seat or expect.kind != "move" or not peer.plays_its_seat:
            return
        now = self.mesh.clock()
        if self._turn[0] != len(peer.log):
            self._turn = (len(peer.log), now)
        elif now - self._turn[1] >= self.timing.think:
            with contextlib.suppress(IllegalMove):  # (the peer plays a move exposing a cheat itself)
                peer.play(self._paced(peer.view(), peer.seat, peer.rng))

    def _go_on_by_itself(self) -> None:
        """With ``go_on_after``: agree to go on without a machine away that long."""
        after = self.timing.go_on_after
        if after is None or self.peer is not self.machine.peers[0] or self.peer.going_on is not None:
            return
        waiting = self.peer.waiting()
        if waiting is None or not waiting.offer or waiting.away is None or waiting.away < after:
            return
        try:
            self.machine.go_on_without(waiting.person)
        except IllegalMove:
            return  # e.g. this machine's peers are not all at one position yet: next poll
        assert self.peer.table is not None
        # TRANSLATORS: {name} is a player's name and seat, "Ann (seat 1)".
        print(_("p2p10: going on without {name}").format(name=self.peer.table.name(waiting.person)),
              file=sys.stderr)


async def play_seat(peer: Peer, table_id: bytes, roster: list[SeatInfo], rules: RuleSet,
                    log_path: Path, mesh_slot: MeshSlot, **options: Any) -> GameResult:
    """Play ``peer``'s seat to the end over the mesh (see :class:`SeatRunner`)."""
    return await SeatRunner(peer, table_id, roster, rules, log_path, mesh_slot, **options).run()


class MeshSlot:
    """The ``/mesh`` route of a listener that starts before its peer exists (a joiner learns
    its seat only from the roster): links that arrive early wait for the mesh a little."""

    def __init__(self) -> None:
        self.mesh: Mesh | None = None
        # The door of the listener this route is served on (:func:`listen` with
        # ``door=slot.door``): once the table has started it keeps places for the roster.
        self.door = Door()
        self._filled = asyncio.Event()

    def fill(self, mesh: Mesh, keys: list[bytes]) -> None:
        """The mesh is ready to take links, for the table seating ``keys``: the listener keeps
        places for their machines from now on (attack A60)."""
        self.mesh = mesh
        self.door.reserve_for(keys)
        self._filled.set()

    async def handle(self, request: web.Request) -> web.StreamResponse:
        """Hand the link to the mesh, once there is one."""
        try:
            await asyncio.wait_for(self._filled.wait(), JOIN_TIMEOUT)
        except TimeoutError:
            return web.Response(status=503, text="no table yet")
        assert self.mesh is not None
        return await self.mesh.handle(request)
