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
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p10.bots import POLICIES
from p2p10.chatroom import typed_text
from p2p10.errors import IllegalMove, ProtocolError
from p2p10.events import SeatEvent
from p2p10.i18n import _, ngettext
from p2p10.liveness import ALONE_AFTER
from p2p10.log import fingerprint, public_bytes
from p2p10.peer import AWAY_AFTER, ChatLine, Peer, Waiting
from p2p10.peer_parts import Player
from p2p10.rules import RuleSet
from p2p10.table import TableState
from p2p10.wire import AT_TABLE, LEFT, READING
from protocol.discovery import network_addresses
from protocol.lobby_messages import LanError as LanError
from protocol.lobby_messages import SeatInfo, is_port, pack, parse_roster, roster_message, unpack
from protocol.local import data_dir, dealing_progress
from protocol.mesh import Mesh
from protocol.seat_screen import PeerSeat
from protocol.storage import SeatFiles, write_private

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


def print_line(line: str) -> None:
    """A line of the LAN commands' output (what ``say`` does unless a screen takes it)."""
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




def forget_gallery(result: GameResult, log_path: Path) -> None:
    """Once the game is over (or frozen for good), the host's spectator settings serve no
    resume: they go, and a private table's code with them."""
    if result.peer.finished or result.peer.stopped:
        SeatFiles(log_path).gallery.unlink(missing_ok=True)


def player_for(policy: str | None) -> Player | None:
    """The bot that plays a seat, or None for a person at the screen."""
    return None if policy is None else POLICIES[policy]


