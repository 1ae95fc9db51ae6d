"""A table on the LAN: the lobby at the host (:mod:`protocol.lobby`), then the mesh
(:mod:`protocol.mesh`).

The host is just the peer at seat 0 that gathers the others. It listens on one port for both
``/lobby`` and ``/mesh``. Joiners sit down in its lobby; when the table starts (full, with
``start_when_full``, or by hand: :meth:`Host.start`) the host seats its own bots (``--bots``)
after the people, every seat signs its sit-down (the host's bots each with its own key, run by
seat 0), and every peer forms the mesh with the roster's keys and addresses. The host then
writes the table entry carrying every sit-down; the peers play, each saving its log and
secrets as the game goes.

A person plays through a *front* (the play screen, :class:`LanSeat` is what it reads); a bot
plays a seat with ``--autoplay``. All the peers of one process form a :class:`Machine`: the
player's seat and the bots it runs, which agree together to go on without a machine that stays
away (PROTOCOL 4.13); the runner's machine then carries the bots it takes over in its own mesh.

Every peer saves the roster beside its log (``.p2p10-roster``: the roster message, msgpack,
with every host resolved, and its own listener). ``p2p10 resume FILE`` starts a killed peer
again from its log, its secrets and that roster, with the bots it ran: it listens on the port
it had, so the lower seats, which keep dialling it, find it again, and it dials the higher
seats itself.

What binds is the signed table entry, which carries every seat's own signed sit-down: every
peer checks it seats its own key and carries its own sit-down, and that it names the same
keys as the roster the mesh authenticates against.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp import web
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p10.bots import POLICIES
from p2p10.chatroom import typed_text
from p2p10.engine import MAX_PLAYERS, MIN_PLAYERS
from p2p10.errors import IllegalMove, ProtocolError
from p2p10.events import SeatEvent
from p2p10.i18n import _, ngettext
from p2p10.liveness import ALONE_AFTER
from p2p10.log import GAME_ID_BYTES, Entry, fingerprint, public_bytes
from p2p10.peer import AWAY_AFTER, ChatLine, Peer, Player, Waiting
from p2p10.rules import RuleSet
from p2p10.sitdown import SitDown
from p2p10.table import TableState
from p2p10.wire import AT_TABLE, LEFT, READING
from protocol.checkpoint import SavedLog, read_saved
from protocol.discovery import TABLE_PATH, Advertisement, TableAd, advertise, network_addresses
from protocol.gallery import DEFAULT_SPECTATORS, Gallery, read_gallery, save_gallery
from protocol.listener import Door, Handler, listen
from protocol.lobby import JOIN_TIMEOUT, LOBBY_PATH, Gate, Lobby, Say
from protocol.lobby_messages import LanError as LanError
from protocol.lobby_messages import SeatInfo, is_port, pack, parse_roster, roster_message, unpack, valid_name
from protocol.local import data_dir, dealing_progress
from protocol.mesh import MESH_PATH, Mesh, attach_files
from protocol.private import new_code
from protocol.seat_screen import PeerSeat
from protocol.storage import LogWriter, SeatFiles, SecretsWriter, resume_peer, write_private
from protocol.taking_seat import take_seat
from protocol.watch import WATCH_PATH

WILDCARD = ("", "0.0.0.0", "::")
LEAVING_FLUSH = 1.0  # seconds a player who quits waits at most for the goodbye to go out


@dataclass(frozen=True, slots=True)
class GameResult:
    """A game this peer played to its end, or to a frozen table."""

    peer: Peer
    log_path: Path
    alone: float | None = None  # the seconds nobody answered, if this machine stopped waiting

    def summary(self) -> str:
        """One line: who won (or why the table stopped, or that nobody answered) and where the
        log is."""
        table = self.peer.table
        if self.alone is not None and not (self.peer.finished or self.peer.stopped):
            return alone_line(self.peer, self.alone, self.log_path)
        if self.peer.stopped:
            saved = SeatFiles(self.log_path).evidence
            reason = self.peer.stop_reason()
            if saved.exists():
                # TRANSLATORS: {reason} says whom the table blames and why; {evidence} and
                # {log} are file names.
                return _("the table stopped: {reason}; the signed evidence is in {evidence}; "
                         "log {log}").format(reason=reason, evidence=saved, log=self.log_path)
            return _("the table stopped: {reason}; log {log}").format(reason=reason, log=self.log_path)
        if table is None or not self.peer.finished:
            # TRANSLATORS: keep the command "p2p10 resume" as it is.
            return _("you left the table mid-game; go back with: p2p10 resume {log}").format(
                log=self.log_path)
        winner = table.engine.winner
        if winner is None:
            return _("game over: nobody won; log {log}").format(log=self.log_path)
        # TRANSLATORS: {name} is the winner's name and seat, "Ann (seat 1)"; {log} a file name.
        return _("game over: {name} won; log {log}").format(name=table.name(winner), log=self.log_path)


def alone_line(peer: Peer, seconds: float, log_path: Path) -> str:
    """What a machine that stopped waiting says: nobody at the table answered for
    ``seconds`` (and, if its log shows it, that the others had gone on without it), and how
    ``p2p10 resume`` fetches the rest once they are back."""
    if seconds < 120:
        count = round(seconds)
        # TRANSLATORS: how long nobody answered, in the sentences that follow.
        time = ngettext("{n} second", "{n} seconds", count).format(n=count)
    else:
        count = round(seconds / 60)
        time = ngettext("{n} minute", "{n} minutes", count).format(n=count)
    table = peer.table
    if table is not None and table.taken_from(peer.seat) is not None:
        # TRANSLATORS: {time} is "2 minutes" or "45 seconds".
        said = _("the others went on without this machine and nobody has answered for {time}: "
                 "the game may have ended without you").format(time=time)
    else:
        said = _("nobody at the table has answered for {time}: the game may have gone on and "
                 "ended without this machine, or the network is down").format(time=time)
    # TRANSLATORS: {said} is the sentence before; keep "p2p10 resume" as it is; {log} a file.
    return _("{said}; what it holds is saved: when the others are back, p2p10 resume {log} "
             "fetches the rest").format(said=said, log=log_path)


def key_line(identity: Ed25519PrivateKey) -> str:
    """The line that tells a player their key's fingerprint: a spectator sees every seat's
    beside its name, and a key its player does not recognise was seated by somebody else (a
    host showing a game that never happened, attack A57)."""
    # TRANSLATORS: {key} is a key fingerprint, eight groups of four hexadecimal digits.
    return _("your key: {key} (spectators and the audit show it beside your name)").format(
        key=fingerprint(public_bytes(identity)))


EVIDENCE_LABEL = "p2p10/evidence/v1"


def save_evidence(peer: Peer, log_path: Path) -> Path | None:
    """Keep the signed evidence of a frozen table (the twins of an equivocation, or the entry
    that broke the rules) beside the log, as msgpack ``["p2p10/evidence/v1", reason,
    [envelope, ...]]``: with the log's table entry, anybody can check the signatures. None if
    the peer did not freeze."""
    if not peer.stopped or not peer.evidence:
        return None
    path = SeatFiles(log_path).evidence
    write_private(path, pack([EVIDENCE_LABEL, peer.stop_reason(), list(peer.evidence)]))
    return path


def parse_address(text: str, what: str | None = None) -> tuple[str, int]:
    """``HOST:PORT`` (an IPv6 host may be in brackets) as (host, port); :class:`LanError`
    naming ``what`` (a command or an option, as typed) otherwise."""
    host, _colon, port = text.rpartition(":")
    if not host or not port.isdigit() or not is_port(int(port)):
        if what is None:
            # TRANSLATORS: keep HOST:PORT as it is: it is how the address is typed.
            raise LanError(_("an address takes HOST:PORT, not {text!r}").format(text=text))
        # TRANSLATORS: {what} is a command or an option as typed ("join", "--reachable-at");
        # keep HOST:PORT as it is.
        raise LanError(_("{what} takes HOST:PORT, not {text!r}").format(what=what, text=text))
    return host.strip("[]"), int(port)


def log_path_for(save_dir: Path | None, table_id: bytes, seat: int) -> Path:
    """Where a seat saves its log (:meth:`SeatFiles.new`): one file per seat, so peers on one
    machine never clash."""
    folder = (save_dir or data_dir()).absolute()  # printed at the end: useful from any directory
    return SeatFiles.new(folder, table_id, seat).log


DIALLED_AT_MOST = 3  # a machine's addresses named in the host's first line


def listening_line(interface: str, port: int, reachable_at: tuple[str, int] | None) -> str:
    """The host's first line: where it listens, as addresses the others can dial. On every
    interface that is the machine's network (IPv4) addresses with the port, not "0.0.0.0";
    with none but loopback, that only this machine can dial it; behind a forwarded port
    (``reachable_at``), that address. It ends in ``:PORT``, the port listened on, unless
    ``reachable_at`` says another."""
    if reachable_at is not None:
        # TRANSLATORS: the host's first line behind a forwarded port; {address} is HOST:PORT.
        return _("listening on port {port}; others dial {address}").format(
            port=port, address=f"{reachable_at[0]}:{reachable_at[1]}")
    if interface not in WILDCARD:
        return _("listening on {interface}:{port}").format(interface=interface, port=port)
    found = network_addresses()
    if not found:
        # TRANSLATORS: the host's first line when the machine has no network address.
        return _("listening on port {port}; no network address found: only this machine can "
                 "dial 127.0.0.1:{port}").format(port=port)
    # TRANSLATORS: the host's first line; {addresses} lists HOST:PORT, "192.168.1.20:41234".
    return _("listening on port {port}; others dial {addresses}").format(
        port=port, addresses=", ".join(f"{a}:{port}" for a in found[:DIALLED_AT_MOST]))


def _say(line: str) -> None:
    print(line, flush=True)  # flushed: a parent process may be waiting for the line


def taken_note(table: TableState, seat: int) -> str | None:
    """For the player at ``seat``, if the table went on without their machine: what becomes of
    the seat, said once and as this machine will make it happen (it asks for the seat back, and
    gets it when the next hand starts, PROTOCOL 4.14): the hand is dealt again without them or
    a bot plays it meanwhile, and it is theirs again from the next hand; or, after their
    ``back`` entry, from which hand it is theirs again. None if the table never went on
    without them."""
    taken = next((t for t in reversed(table.takeovers) if seat in t.seats), None)
    if taken is None:
        return None
    back = next((r for r in reversed(table.returns) if seat in r.seats and r.away == taken.seq), None)
    if back is not None:
        return _("The table went on without you at hand {hand}; your seat is yours again from hand "
                 "{back}.").format(hand=taken.hand + 1, back=back.hand + 1)
    if table.taken_from(seat) is None:
        return None
    if seat in table.engine.sitting_out:
        # TRANSLATORS: the hand went on without this player's machine and is played again
        # without them; their machine asks for the seat back, which it gets as the next starts.
        return _("The table went on without you at hand {hand}: it is dealt again without you, "
                 "and your seat is yours again from the next hand.").format(hand=taken.hand + 1)
    if table.hand is None:  # between hands: the seat comes back as the next one starts
        return _("The table went on without you at hand {hand}; your seat is yours again from the "
                 "next hand.").format(hand=taken.hand + 1)
    return _("The table went on without you at hand {hand}: a bot plays your seat until the next "
             "hand, when it is yours again.").format(hand=taken.hand + 1)


class LanSeat(PeerSeat):
    """A seat at a LAN table as a screen sees it (a :class:`~protocol.seat_screen.SeatScreen`,
    as a :class:`~protocol.local.LocalTable` is, so the same play screen serves both), played
    by the mesh. Made by :func:`play_seat` once the table entry is known."""

    def __init__(self, peer: Peer, mesh: Mesh, rules: RuleSet, log_path: Path,
                 playing: asyncio.Task[None], machine: Machine,
                 alone: Callable[[], float | None] = lambda: None) -> None:
        assert peer.table is not None
        self._alone = alone
        self._user = peer
        self.machine = machine
        self.mesh = mesh
        self.rules = rules
        self.log_path = log_path
        self.playing = playing
        self.names = list(peer.table.names)
        self._listeners: list[Callable[[], None]] = []
        self.chat_listeners: list[Callable[[ChatLine], None]] = []
        self.presence_listeners: list[Callable[[int, int], None]] = []

    @property
    def user(self) -> Peer:
        """The user's own peer."""
        return self._user

    @property
    def over(self) -> bool:
        """True once the game has a winner, or the table froze, or this machine stopped
        waiting because nobody answered (:meth:`alone_line`)."""
        return self.user.finished or self.user.stopped or self._alone() is not None

    def alone_line(self) -> str | None:
        """Why this machine stopped waiting, if nobody at the table answered for long (see
        :attr:`Timing.alone_after`), with how to fetch the rest later; else None."""
        seconds = self._alone()
        if seconds is None or self.user.finished or self.user.stopped:
            return None
        return alone_line(self.user, seconds, self.log_path)

    def dealing(self) -> tuple[int, int] | None:
        """While a hand is being set up: (entries written, entries needed)."""
        return dealing_progress(self.table, len(self.names))

    def waiting(self) -> Waiting | None:
        """Who the table waits for, if it is another machine: how long, whether that machine
        is out of reach or its player is thinking, and whether to offer going on without it
        (see :meth:`Peer.waiting`)."""
        return None if self.over else self.user.waiting()

    def taken_note(self) -> str | None:
        """What happened to this player's seat, if the table went on without this machine (see
        :func:`taken_note`)."""
        return None if self.table is None else taken_note(self.table, self.seat)

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` after every new entry in the user's log."""
        self._listeners.append(listener)

    def play(self, move: SeatEvent) -> None:
        """The user's move; raises :class:`IllegalMove` with a reason, changing nothing."""
        self.user.play(move)
        self.mesh.pump()

    def hold(self, held: bool) -> None:
        """The other machines do not wait while this player reads a hand's summary; they are
        told, so that their screens say so rather than that this player is thinking
        (PROTOCOL 6.2.2)."""
        self.user.tell(READING if held else AT_TABLE)
        self.mesh.pump()

    def presence(self, person: int) -> int:
        """Where ``person``'s player is, as their machine said: at the table, reading the
        last hand's summary, or gone (they quit)."""
        return self.user.presence_of(person)

    def leave(self) -> None:
        """Tell the others that this player leaves the table (quits) before the links close."""
        self.user.tell(LEFT)
        self.mesh.pump()

    @property
    def pace(self) -> None:
        """None: the bots at a LAN table move at their own machine's pace (a host's bots and
        the bots a machine takes over move at once), which this screen does not set."""
        return None

    def set_pace(self, seconds: float) -> None:
        """Nothing: see :attr:`pace`."""

    async def run(self) -> None:
        """Wait while the mesh plays the table, until the game is over (or the table stops)."""
        try:
            await asyncio.shield(self.playing)  # leaving the screen must not stop the mesh
        except asyncio.CancelledError:
            if not self.playing.cancelled():
                raise  # the screen left, not the table

    def stop_reason(self) -> str | None:
        """Why the table froze (whom it blames), or None."""
        return self.user.stop_reason()

    def awaited(self) -> int | None:
        """The player whose machine the table waits for now, if it is not this one."""
        table = self.table
        if table is None or self.over:
            return None
        person = table.awaited_machine()
        return None if person is None or person == table.machine_of(self.seat) else person

    def go_on_without(self, person: int) -> None:
        """Agree to go on without ``person``'s machine (see :meth:`Peer.go_on_without`)."""
        self.machine.go_on_without(person)
        self.mesh.pump()

    def agreed(self) -> dict[int, tuple[int, ...]]:
        """Who has agreed to go on without whom, at the current position."""
        return self.user.agreed()

    def say(self, text: str) -> ChatLine:
        """A line of table chat; raises :class:`IllegalMove` for an empty or overlong line, or
        one in the form of the table's notices."""
        line = self.user.say(typed_text(text))
        self.mesh.pump()
        return line

    def entry_added(self) -> None:
        """Tell the screen (called by the peer's log hook)."""
        for listener in self._listeners:
            listener()

    def chat_heard(self, line: ChatLine) -> None:
        """Tell the screen of a line of chat."""
        for listener in self.chat_listeners:
            listener(line)

    def presence_heard(self, seat: int, state: int) -> None:
        """Tell the screen that the machine at ``seat`` said where its player is."""
        for listener in self.presence_listeners:
            listener(seat, state)


Front = Callable[[LanSeat], Awaitable[None]]


async def play_machine(seats: Sequence[Coroutine[Any, Any, GameResult]]) -> GameResult:
    """Play the player's seat (the first) and the bots this machine runs for its seats to the
    end; the player's result. A player who leaves mid-game takes their bots along: without
    the player's seat the table cannot go on anyway, and the files stay for resume."""
    tasks = [asyncio.ensure_future(seat) for seat in seats]
    try:
        result = await tasks[0]
        if result.peer.finished or result.peer.stopped:
            await asyncio.gather(*tasks[1:])
        return result
    finally:
        for task in tasks[1:]:
            task.cancel()
        await asyncio.gather(*tasks[1:], return_exceptions=True)


class Machine:
    """The peers this process plays: the player's own seat first, then the bots it runs (the
    host's bots, and bots taken over for seats whose machine went away). Going on without
    another machine is agreed for all of them at once, so that none of them takes the late
    entry the others hold back."""

    def __init__(self, bot_level: str = "normal") -> None:
        self.peers: list[Peer] = []
        self.bot_level = bot_level
        # Where each seat this process plays listens (by seat): its peers dial each other
        # there, not at the address the others reach them at, which behind a port forward
        # would need the router to loop the connection back.
        self.listening: dict[int, tuple[str, int]] = {}

    def local_address(self, seat: int) -> tuple[str, int] | None:
        """Where to dial ``seat`` from this process, if this process plays it; else None."""
        found = self.listening.get(seat)
        if found is None:
            return None
        host, port = found
        return ({"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host), port)

    def go_on_without(self, person: int) -> None:
        """Agree to go on without ``person``'s machine; :class:`IllegalMove` if the table is not
        waiting for it, or if this machine's peers are not all at the same position yet."""
        # (A bot whose seat was taken back by its own machine plays no more: left out.)
        bots = [bot for bot in self.peers[1:] if bot.plays_its_seat]
        positions = {(len(p.log), p.table.last_hash if p.table else b"") for p in (self.peers[0], *bots)}
        if len(positions) != 1:
            raise IllegalMove(_("the table is moving: try again in a moment"))
        for bot in bots:
            bot.go_on_without(person)  # holds back only: the player's agreement speaks for it
        self.peers[0].go_on_without(person)


@dataclass(frozen=True, slots=True)
class Timing:
    """How this machine waits for the others (PROTOCOL §4.13), and how long its bot takes.

    A machine with no link up to any of its seats for ``away_after`` seconds is *away*: only
    then is the player offered to go on without it. A player who is connected and thinking is
    never away. With ``go_on_after``, this machine agrees by itself once a machine has been
    away that long. A seat played by a bot (``--autoplay``) takes ``think`` seconds over each
    move: to watch it play, or to try the table's patience. Once the table has started, a
    machine with no link up to any other machine for ``alone_after`` seconds stops waiting
    (None: it waits for ever), its files kept for ``p2p10 resume``."""

    away_after: float = AWAY_AFTER
    go_on_after: float | None = None
    think: float = 0.0
    alone_after: float | None = ALONE_AFTER


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


def save_roster(path: Path, table_id: bytes, rules: RuleSet, roster: list[SeatInfo],
                listening: tuple[str, int]) -> None:
    """Write the roster (hosts resolved) and where this peer listens, at once and whole: a
    crash leaves the old file or none. The roster message gets one more item, ``[address,
    port]`` of this peer's own listener, which differs from its roster entry when the others
    reach it through a forwarded port or a proxy (``--reachable-at``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    item = unpack(roster_message(table_id, rules, roster))
    write_private(path, pack([*item, list(listening)]))


def read_roster(path: Path) -> tuple[bytes, RuleSet, list[SeatInfo], tuple[str, int]]:
    """A saved roster and where this peer listened; raises :class:`LanError` if the file is
    missing or damaged."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise LanError(_("cannot read the table's roster {path}: {reason}").format(
            path=path, reason=err.strerror)) from None
    try:
        item = unpack(data)
        listening = item.pop() if isinstance(item, list) and len(item) == 5 else None
        if not (isinstance(listening, list) and len(listening) == 2
                and isinstance(listening[0], str) and is_port(listening[1])):
            # TRANSLATORS: keep "[address, port]": it is what the file holds.
            raise ProtocolError(_("a saved roster ends with [address, port] of this peer's listener"))
        return (*parse_roster(item), (listening[0], listening[1]))
    except ProtocolError as err:
        raise LanError(f"{path}: {err}") from None


BotSeat = tuple[Ed25519PrivateKey, "MeshSlot", int]  # a host's bot: its key, mesh route, port


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


def forget_gallery(result: GameResult, log_path: Path) -> None:
    """Once the game is over (or frozen for good), the host's spectator settings serve no
    resume: they go, and a private table's code with them."""
    if result.peer.finished or result.peer.stopped:
        SeatFiles(log_path).gallery.unlink(missing_ok=True)


def player_for(policy: str | None) -> Player | None:
    """The bot that plays a seat, or None for a person at the screen."""
    return None if policy is None else POLICIES[policy]


class Host:
    """Seat 0: gathers the seats in its lobby, sends the roster and opens the table.

    ``bots`` of the ``seats`` are bots run by this machine (``bot_level`` policy), seated after
    the people and marked as the host's in the table entry. The table starts when every other
    seat is taken (``start_when_full``) or when :meth:`start` is called: then the bots fill
    the free seats up to ``bots``. ``policy`` None means a person plays seat 0 through
    ``front`` (the play screen)."""

    def __init__(self, name: str, seats: int, rules: RuleSet, policy: str | None,
                 interface: str = "0.0.0.0", port: int = 0, save_dir: Path | None = None,
                 say: Say = _say, title: str | None = None, advertised: bool = True,
                 reachable_at: tuple[str, int] | None = None, *, bots: int = 0,
                 bot_level: str = "normal", start_when_full: bool = True,
                 front: Front | None = None, timing: Timing = Timing(),
                 spectators: int = DEFAULT_SPECTATORS, code: str | None = None) -> None:
        if not MIN_PLAYERS <= seats <= MAX_PLAYERS:
            raise LanError(_("a table seats {low} to {high} players, not {n}").format(
                low=MIN_PLAYERS, high=MAX_PLAYERS, n=seats))
        if not 0 <= bots < seats:
            # TRANSLATORS: keep the option "--bots" as it is.
            raise LanError(_("--bots must leave the host a seat: 0 to {most}, not {bots}").format(
                most=seats - 1, bots=bots))
        if bot_level not in POLICIES:
            raise LanError(_("unknown bot level {level!r}; choose from {choices}").format(
                level=bot_level, choices=", ".join(POLICIES)))
        self.bots = bots
        self.bot_level = bot_level
        self.peers: list[Peer] = []  # once the table starts: the host's own, then its bots
        self.start_when_full = start_when_full
        self.front = front
        self.timing = timing
        self.name = valid_name(name)
        self.title = title or f"{self.name}'s table"  # announced to the network: in English
        self.advertised = advertised
        self._ad: Advertisement | None = None
        self.seats = seats
        self.rules = rules
        self.policy = policy
        self.interface = interface
        self.port = port
        self.save_dir = save_dir
        self.say = say
        self.reachable_at = reachable_at
        self.identity = Ed25519PrivateKey.generate()
        self.table_id = os.urandom(GAME_ID_BYTES)
        own_host = "" if interface in WILDCARD else interface
        own_seat = SeatInfo(self.name, public_bytes(self.identity), own_host, 0)
        # A private table's code (None: an open table), checked at the door of every lobby and
        # watch link.
        self.gate = Gate(code, own_seat.key, say=say)
        self.lobby = Lobby(self.table_id, rules, own_seat, seats - bots, bots, say, self._update_ad,
                           start_when_full, self.gate)
        self._closing_ad: asyncio.Future[None] | None = None
        self._updating: asyncio.Future[None] | None = None
        self._bots_seated = False
        self.slot = MeshSlot()
        if spectators < 0:
            # TRANSLATORS: keep the option "--spectators" as it is.
            raise LanError(_("--spectators takes 0 or more, not {n}").format(n=spectators))
        self.gallery = Gallery(spectators, say, self.gate)

    @property
    def people(self) -> int:
        """Seats for people (the host included): the rest are the host's bots."""
        return self.seats - self.bots

    @property
    def roster(self) -> list[SeatInfo]:
        """The seats taken so far (every seat, once the table has started)."""
        return self.lobby.roster

    def can_start(self) -> str | None:
        """Why the table cannot start now, or None."""
        return self.lobby.can_start()

    def start(self) -> None:
        """Start with the people seated now (bots fill up to ``bots``); :class:`LanError` if
        nobody has sat down and there are no bots."""
        self.lobby.start()

    def new_code(self) -> str:
        """A private table takes a new code while its lobby is open (the old one opens nothing
        more; who sat down with it stays), and says it; :class:`LanError` for an open table or
        once the table has started (the code is saved with the game for a resumed host)."""
        if not self.gate.private:
            raise LanError(_("this table is not private: it has no code"))
        if self.lobby.started:
            raise LanError(_("the table has started: its code stays"))
        self.gate.refresh(new_code())
        assert self.gate.code is not None
        # TRANSLATORS: {code} is the private table's new code, "7-orbit-tulip".
        self.say(_("new code: {code} (the old one opens nothing now)").format(code=self.gate.code))
        return self.gate.code

    async def run(self) -> GameResult:
        """Open the lobby, wait for a full table (or :meth:`start`), play seat 0 to the end."""
        try:
            runner, port = await listen({LOBBY_PATH: self.lobby.handle, MESH_PATH: self.slot.handle,
                                         WATCH_PATH: self.gallery.handle, TABLE_PATH: self._describe},
                                        self.interface, self.port, identity=self.identity,
                                        door=self.slot.door)
        except OSError as err:
            raise LanError(_("cannot listen on {interface}:{port}: {reason}").format(
                interface=self.interface, port=self.port, reason=err.strerror)) from None
        self.listening = port
        own_host, own_port = self.reachable_at or (self.roster[0].host, port)
        self.roster[0] = SeatInfo(self.name, self.roster[0].key, own_host, own_port)
        runners: list[web.AppRunner] = []
        advertising: asyncio.Future[None] | None = None
        try:
            self.say(listening_line(self.interface, port, self.reachable_at))
            if self.gate.code is not None:
                # TRANSLATORS: {code} is the private table's code, "7-orbit-tulip".
                self.say(_("private table: its code is {code} (players join with --code {code})").format(
                    code=self.gate.code))
            # TRANSLATORS: {table} is the table's name, quoted.
            self.say(_("table {table}: {seats} seats, rules: {rules}").format(
                table=repr(self.title), seats=self.seats, rules=self.rules.describe()))
            # Zeroconf's probing takes over a second: the lobby is open meanwhile, and a table
            # that fills (players who joined by address) starts without waiting for it.
            advertising = asyncio.ensure_future(self._advertise(port)) if self.advertised else None
            await self.lobby.wait_full()
            if self.gallery.cap == 0:
                # Nobody may watch: nothing to announce once no seat is free.
                if advertising is not None:
                    advertising.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await advertising
                    advertising = None
                if self._ad is not None:
                    # The goodbye goes out in the background: the dealing does not wait for it.
                    self._closing_ad = asyncio.ensure_future(self._ad.close())
                    self._ad = None
            bots = await self._seat_bots(runners)
            self._bots_seated = True
            # A game under way stays announced, as started, for spectators to find it by
            # name (an announcement still being made publishes it so once made). In the
            # background: the dealing does not wait for it.
            self._updating = asyncio.ensure_future(self._update_ad())
            away_after = self.timing.away_after
            peer = Peer(0, self.identity, player=player_for(self.policy), away_after=away_after)
            machine = Machine(self.bot_level)
            machine.peers.append(peer)
            self.peers = machine.peers
            self.gallery.attach(peer)
            local = {0: peer.sit_down(self.table_id, self.name, self.rules)}
            for seat, (identity, _slot, _port) in bots.items():
                bot = Peer(seat, identity, player=POLICIES[self.bot_level], away_after=away_after)
                machine.peers.append(bot)
                local[seat] = bot.sit_down(self.table_id, self.roster[seat].name, self.rules, run_by=0)
            sit_downs = await self.lobby.gather(local)
            self.say(_("the table starts with {n} players: dealing").format(n=len(self.roster)))
            self.say(key_line(peer.identity))
            machine.listening[0] = (self.interface, port)
            machine.listening.update({seat: (self.interface, bot_port)
                                      for seat, (_identity, _slot, bot_port) in bots.items()})
            own_log = log_path_for(self.save_dir, self.table_id, 0)
            # A resumed host serves its spectators again, with the same cap and code.
            save_gallery(SeatFiles(own_log).gallery, self.gallery.cap, self.gate.code,
                         self.title if self.advertised else None)
            playing = [play_seat(peer, self.table_id, self.roster, self.rules, own_log, self.slot,
                                 listening=(self.interface, port), sit_downs=sit_downs, front=self.front,
                                 machine=machine, timing=self.timing)]
            for bot, (_identity, slot, bot_port) in zip(machine.peers[1:], bots.values(), strict=True):
                playing.append(play_seat(bot, self.table_id, self.roster, self.rules,
                                         log_path_for(self.save_dir, self.table_id, bot.seat), slot,
                                         listening=(self.interface, bot_port), machine=machine))
            result = await play_machine(playing)
            await self.gallery.finish()
            forget_gallery(result, own_log)
            return result
        finally:
            for pending in (advertising, self._updating):
                if pending is not None and not pending.done():
                    pending.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await pending
            if self._ad is not None:
                await self._ad.close()
            if self._closing_ad is not None:
                with contextlib.suppress(Exception):
                    await self._closing_ad
            for extra in runners:
                await extra.cleanup()
            await runner.cleanup()

    async def _seat_bots(self, runners: list[web.AppRunner]) -> dict[int, BotSeat]:
        """Seat the host's bots after the people, each a peer of its own with its own key,
        files and mesh listener (in this process); by seat, its key, mesh slot and port."""
        bots: dict[int, BotSeat] = {}
        for number in range(1, min(self.bots, self.seats - len(self.roster)) + 1):
            identity = Ed25519PrivateKey.generate()
            slot = MeshSlot()
            # Reached at another address than its own (a forwarded port), the host's machine is
            # reached on the ports after the host's, one per bot: forward those too.
            wanted = self.listening + number if self.reachable_at is not None else 0
            try:
                runner, port = await listen({MESH_PATH: slot.handle}, self.interface, wanted,
                                            identity=identity, door=slot.door)
            except OSError as err:
                raise LanError(_("cannot listen for a bot on {interface}:{port}: {reason}").format(
                    interface=self.interface, port=wanted, reason=err.strerror)) from None
            runners.append(runner)
            if self.reachable_at is None:
                reached = (self.roster[0].host, port)
            else:
                reached = (self.reachable_at[0], self.reachable_at[1] + number)
            self.roster.append(SeatInfo(self.lobby.unique(f"Bot {number}"), public_bytes(identity),
                                        *reached))
            bots[len(self.roster) - 1] = (identity, slot, port)
        return bots

    def _table_ad(self, port: int) -> TableAd:
        """The table as announced: the seats taken and free while the lobby is open; once the
        game has started, every seat taken (its bots seated) and ``started``."""
        if self.lobby.started:
            seated = len(self.roster)  # with its bots, once they are seated
            taken, free = (seated if self._bots_seated else seated + self.bots), 0
        else:
            taken, free = len(self.roster) + self.bots, self.people - len(self.roster)
        return TableAd(self.title, self.name, min(taken, self.seats), free,
                       tuple(self.rules.options()), fingerprint(self.roster[0].key),
                       (self.interface if self.interface not in WILDCARD else "0.0.0.0", port),
                       private=self.gate.private, started=self.lobby.started)

    async def _describe(self, request: web.Request) -> web.StreamResponse:
        """``GET /table``: what the announcement says, for ``p2p10 tables --at HOST:PORT``
        (a table on another network, which no announcement reaches)."""
        return web.json_response(self._table_ad(self.listening).as_json())

    async def _advertise(self, port: int) -> None:
        """Announce the table with Zeroconf. Discovery is a convenience, never needed: a
        network without multicast still joins by address."""
        interfaces = None if self.interface in WILDCARD else [self.interface]
        # Once the table has started (it may fill before the announcement is made), a person's
        # play screen may be up: a line printed under it would garble it, so nothing is said.
        try:
            self._ad = await advertise(self._table_ad(port), interfaces)
        except (OSError, ValueError, ProtocolError) as err:
            if not self._screen_may_be_up():
                self.say(_("not announced on the network ({reason}); players join with the "
                           "address above").format(reason=err))
            return
        if not self._screen_may_be_up():
            # TRANSLATORS: keep the command 'p2p10 tables' as it is.
            self.say(_("announced as {title!r}: 'p2p10 tables' lists it").format(title=self.title))
        await self._update_ad()  # seats taken, or the start, while it was being announced

    def _screen_may_be_up(self) -> bool:
        """Whether a person's play screen may be drawn now (the table has started)."""
        return self.lobby.started and self.front is not None

    async def _update_ad(self) -> None:
        if self._ad is not None:
            # A stale seat count in an announcement is harmless: the lobby has the truth.
            with contextlib.suppress(OSError, ProtocolError):
                await self._ad.update(self._table_ad(self.roster[0].port))


class Joiner:
    """A peer that sits down at a host's table (``HOST:PORT``) and plays its seat."""

    def __init__(self, address: str, name: str, policy: str | None, interface: str = "0.0.0.0",
                 save_dir: Path | None = None, say: Say = _say,
                 reachable_at: tuple[str, int] | None = None, front: Front | None = None,
                 timing: Timing = Timing(), host_fingerprint: str | None = None,
                 code: str | None = None, listen_port: int = 0) -> None:
        self.host, self.port = parse_address(address, "join")
        self.code = code
        self.listen_port = listen_port  # 0: any free one; fixed, for a forwarded port
        self.name = valid_name(name)
        self.policy = policy
        self.interface = interface
        self.save_dir = save_dir
        self.say = say
        self.reachable_at = reachable_at
        self.front = front
        self.timing = timing
        # The host key's fingerprint the table was announced with (joining by name): the
        # roster's seat 1 must have that key, or this is not the table the player chose.
        self.host_fingerprint = host_fingerprint
        self.peer: Peer | None = None  # once seated
        self.identity = Ed25519PrivateKey.generate()
        self.slot = MeshSlot()

    async def run(self) -> GameResult:
        """Start a mesh listener, sit down in the lobby, wait for the start, play."""
        # At an open table every seat serves spectators too: one who pins a second seat (watch
        # --also) checks that the host shows the history the players hold. Not at a private
        # one: each door would be another window of guesses at the code (section 6.1.3).
        self.gallery = Gallery(DEFAULT_SPECTATORS, self.say,
                               Gate(self.code, public_bytes(self.identity), say=self.say))
        routes: dict[str, Handler] = {MESH_PATH: self.slot.handle}
        if self.code is None:
            routes[WATCH_PATH] = self.gallery.handle
        try:
            runner, port = await listen(routes, self.interface, self.listen_port,
                                        identity=self.identity, door=self.slot.door)
        except OSError as err:
            raise LanError(_("cannot listen on {interface}:{port}: {reason}").format(
                interface=self.interface, port=self.listen_port, reason=err.strerror)) from None
        try:
            own_host = "" if self.interface in WILDCARD else self.interface
            table_id, rules, roster = await take_seat((self.host, self.port), self.name, self.identity,
                                                      self.reachable_at or (own_host, port),
                                                      self._sign, self.say, self.host_fingerprint,
                                                      self.code)
            peer = self.peer
            assert peer is not None  # made by _sign
            seat = peer.seat
            self.say(_("the table is full: dealing; you are seat {seat} of {n}").format(
                seat=seat + 1, n=len(roster)))
            self.say(key_line(peer.identity))
            # Saved with every host resolved, for a restart: "" is the host's own address.
            roster = [SeatInfo(s.name, s.key, own_host if i == seat and not self.reachable_at
                               else s.host or self.host, s.port)
                      for i, s in enumerate(roster)]
            self.gallery.attach(peer)
            result = await play_seat(peer, table_id, roster, rules,
                                     log_path_for(self.save_dir, table_id, seat), self.slot,
                                     listening=(self.interface, port), front=self.front,
                                     timing=self.timing)
            await self.gallery.finish()
            return result
        finally:
            await runner.cleanup()

    def _sign(self, table_id: bytes, rules: RuleSet, roster: list[SeatInfo], seat: int) -> SitDown:
        """This player's peer, now that it has a seat, and its signed sit-down."""
        self.peer = Peer(seat, self.identity, player=player_for(self.policy),
                         away_after=self.timing.away_after)
        return self.peer.sit_down(table_id, roster[seat].name, rules)


class Resumer:
    """A peer killed or crashed mid-game, started again from its files: its log, its secrets
    and the roster saved beside them. It listens on the port it had (so the lower seats, which
    keep dialling it, find it again), dials the higher seats, catches up by want and plays on.
    It never signs a second entry for a position: every entry it sent was saved first. The bots
    it ran come back too, from their files beside its own: a host's bots (``--bots``) each on
    its own port again, and bots it took over for a machine that went away in its own mesh."""

    def __init__(self, log_path: Path, policy: str | None, interface: str | None = None,
                 front: Front | None = None, bot_level: str = "normal",
                 timing: Timing = Timing(), say: Say = _say) -> None:
        self.log_path = log_path.absolute()
        self.policy = policy
        self.interface = interface
        self.front = front
        self.bot_level = bot_level
        self.timing = timing
        self.say = say
        # A host's spectators, served again from the settings it saved (None: not a host), and
        # its table as announced again (None: it was not announced).
        self.gallery: Gallery | None = None
        self.title: str | None = None
        self._announced: TableAd | None = None
        self._saved: SavedLog | None = None  # the first of this machine's logs read

    async def run(self) -> GameResult:
        """Restore the peer (and its bots), listen where it listened, play to the end."""
        runners: list[web.AppRunner] = []
        machine = Machine(self.bot_level)
        started: list[Coroutine[Any, Any, GameResult]] = []
        announcing: asyncio.Future[Advertisement | None] | None = None
        try:
            peer, play = await self._restore(self.log_path, self.policy, runners)
            machine.peers.append(peer)
            table = peer.table
            taken_over: list[tuple[Peer, Path]] = []
            hosted: list[tuple[Peer, Callable[..., Coroutine[Any, Any, GameResult]]]] = []
            for seat, owner in enumerate(table.run_by if table is not None else ()):
                if owner != peer.seat or table is None:
                    continue
                bot_files = self._bot_files(seat)
                if table.signing_keys[seat] == table.keys[seat]:
                    hosted.append(await self._restore(bot_files.log, self.bot_level, runners))
                else:  # taken over from a machine that went away: carried by this peer's mesh
                    bot = resume_peer(bot_files.log, bot_files.secrets,
                                      saved=read_saved(bot_files.log, like=self._saved),
                                      player=POLICIES[self.bot_level], away_after=self.timing.away_after)
                    taken_over.append((bot, bot_files.log))
            machine.peers.extend(bot for bot, _play in hosted)
            started.append(play(machine=machine, front=self.front, timing=self.timing,
                                taken_over=taken_over))
            started.extend(bot_play(machine=machine) for _bot, bot_play in hosted)
            if self.gallery is not None:
                self.gallery.attach(peer)
            if self._announced is not None:
                announcing = asyncio.ensure_future(self._announce(self._announced))
            result = await play_machine(started)
            if self.gallery is not None:
                await self.gallery.finish()
                forget_gallery(result, self.log_path)
            return result
        finally:
            if announcing is not None:
                if announcing.done() and not announcing.cancelled() and announcing.exception() is None:
                    ad = announcing.result()
                    if ad is not None:
                        with contextlib.suppress(OSError, ProtocolError):
                            await ad.close()
                else:
                    announcing.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await announcing
            for runner in runners:
                await runner.cleanup()

    @staticmethod
    async def _announce(ad: TableAd) -> Advertisement | None:
        """Announce the table again, as a game under way, under the name the host gave it (a
        spectator finds it by name, PROTOCOL 6.1.2); None if the network will not have it
        (discovery is a convenience: nothing is said, a play screen may be up)."""
        interfaces = None if ad.address[0] in WILDCARD else [ad.address[0]]
        try:
            return await advertise(ad, interfaces)
        except (OSError, ValueError, ProtocolError):
            return None

    def _bot_files(self, seat: int) -> SeatFiles:
        """The files of this peer's bot at ``seat``: beside this one, same table, that seat."""
        found = SeatFiles(self.log_path).other_seat(seat)
        if found is None:
            raise LanError(_("the log of this table's bot at seat {seat} is not beside {log}: that "
                             "seat cannot go on").format(seat=seat + 1, log=self.log_path.name))
        return found

    async def _restore(self, log_path: Path, policy: str | None, runners: list[web.AppRunner]
                       ) -> tuple[Peer, Callable[..., Coroutine[Any, Any, GameResult]]]:
        """A peer from its files, listening where it listened; and how to play it on."""
        files = SeatFiles(log_path)
        if not log_path.exists() and not files.secrets.exists():
            # (None yet: killed just after its identity.)
            raise LanError(_("no game log at {path}").format(path=log_path))
        table_id, rules, roster, (listen_host, listen_port) = read_roster(files.roster)
        if not files.secrets.exists():
            raise LanError(_("no secrets file beside the log ({name}): this seat cannot go on").format(
                name=files.secrets.name))
        # The seats of this machine (the player's, its bots') keep logs of their own, nearly
        # always the same records: the first one read is checked, the others share its fold.
        saved = read_saved(log_path, like=self._saved)
        self._saved = self._saved or saved
        peer = resume_peer(log_path, files.secrets, saved=saved, player=player_for(policy),
                           away_after=self.timing.away_after)
        if peer.seat >= len(roster) or roster[peer.seat].key != public_bytes(peer.identity):
            raise LanError(_("the saved roster does not seat this peer's key"))
        if peer.table is not None and list(peer.table.keys) != [s.key for s in roster]:
            raise LanError(_("the saved roster and the saved log seat different players"))
        interface = self.interface or listen_host
        slot = MeshSlot()
        routes: dict[str, Handler] = {MESH_PATH: slot.handle}
        watching = read_gallery(files.gallery) if peer.seat == 0 else None
        if watching is not None:
            cap, code, self.title = watching
            self.gallery = Gallery(cap, self.say, Gate(code, public_bytes(peer.identity), say=self.say))
            routes[WATCH_PATH] = self.gallery.handle
        try:
            runner, _port = await listen(routes, interface, listen_port, identity=peer.identity,
                                         door=slot.door)
        except OSError as err:
            raise LanError(_("cannot listen again on {interface}:{port}: {reason}").format(
                interface=interface, port=listen_port, reason=err.strerror)) from None
        runners.append(runner)
        if peer.seat == 0 and self.title is not None:
            self._announced = TableAd(
                self.title, roster[0].name, len(roster), 0, tuple(rules.options()),
                fingerprint(roster[0].key),
                (interface if interface not in WILDCARD else "0.0.0.0", listen_port),
                private=self.gallery is not None and self.gallery.gate.code is not None, started=True)

        def play(**options: Any) -> Coroutine[Any, Any, GameResult]:
            machine: Machine | None = options.get("machine")
            if machine is not None:
                machine.listening[peer.seat] = (interface, listen_port)
            return play_seat(peer, table_id, roster, rules, log_path, slot,
                             listening=(interface, listen_port), resumed=True, **options)

        return peer, play
