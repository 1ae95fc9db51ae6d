"""The lobby of a LAN table: the host gathers the seats, and every seat signs its sit-down.

The host (seat 0) serves ``/lobby`` beside ``/mesh``. A joiner first starts its own mesh
listener, then dials the lobby and sends ``join`` (its name, its Ed25519 public key and where
its mesh listens; an empty host means "the address you see me at"). The host answers
``["seated", seats taken, seats]`` or ``["refused", reason]`` and keeps the link open. When the
table starts (full, or by hand), the host sends every joiner ``["roster", table id, rule
options, [[name, key, host, port], ...]]`` in seat order (its own bots after the people); each
joiner checks it seats its key once, signs its sit-down (:mod:`p2p10.sitdown`: the table id,
its seat, the name the roster gives it, its key, that it is a person, the rules, a fresh
nonce) and sends it back; once every seat has sat down the host sends ``["start"]`` and
closes the lobby. The host's seat and its bots sign their own sit-downs (a bot with its own
key, run by seat 0). The table entry then carries every sit-down, and every peer and the audit
check it against them (:meth:`p2p10.table.TableState.from_header`): the roster only proposes.

Every frame a joiner sends is signed by its key: ``[payload, signature]`` with the signature
under the signing domain ``lobby`` (:mod:`p2p10.signing`), the payload a msgpack array. The host's frames are
proposals, unsigned: what binds is the joiners' signed sit-downs and the host's signed table
entry. A joiner that leaves the lobby before the start gives its seat back.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections import Counter, OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import aiohttp
from aiohttp import web

from p2p10.errors import ProtocolError
from p2p10.game_fields import MIN_PLAYERS
from p2p10.i18n import N_, _, ngettext
from p2p10.rules import RuleSet
from p2p10.sitdown import MAX_NAME, BadSitDown, SitDown, parse_sit_down
from protocol.lobby_messages import (
    CODE_NEEDED,
    CODE_NOT_PRIVATE,
    CODE_WRONG,
    GAME_STARTED,
    LOBBY_MAX_BYTES,
    LanError,
    SeatInfo,
    _in_both,
    open_signed,
    pack,
    parse_seat,
    roster_message,
    unpack,
)
from protocol.private import CodeProof, GuessLimiter, binding_of, parse_code, source_of_guess
from protocol.tls import require_key

LOBBY_PATH = "/lobby"
JOIN_TIMEOUT = 10.0


CODE_TIMEOUT = 10.0
PROVEN_KEPT = 1024  # TLS keys a door remembers as having proven the code (and sources it counts)
NOTICE_EVERY = 60.0
"""Seconds between two of the lines that tell a private table's host of failed attempts."""


class Gate:
    """The door of a table: on a private one (``code``), every lobby and watch link proves the
    code before anything else (:mod:`protocol.private`: SPAKE2 bound to both TLS keys), and
    attempts from one source, or from all together, are slowed down
    (:class:`~protocol.private.GuessLimiter`). The host's player is not disturbed by each of
    them: :attr:`wrong` counts the attempts that failed (a wrong code, or an attempt begun and
    never finished), :attr:`failed_from` counts them by source, and ``say`` (the host's lines)
    is told of them at most once every :data:`NOTICE_EVERY` seconds. On an open table the door
    is open."""

    def __init__(self, code: str | None, host_key: bytes,
                 clock: Callable[[], float] = time.monotonic, say: Say | None = None) -> None:
        self.code = None if code is None else parse_code(code)
        self.host_key = host_key
        self.clock = clock
        self.say = say
        self.limiter = GuessLimiter()
        self.wrong = 0
        self.failed_from: Counter[str] = Counter()
        self._told_at = -NOTICE_EVERY
        self._telling: asyncio.TimerHandle | None = None
        # The TLS keys that have proven the code (at most PROVEN_KEPT, the oldest forgotten
        # first). A spectator dials again after a broken link with the same key: TLS proves
        # it holds that key, so it has the code already, and the guess limit (spent by an
        # attacker, perhaps) must not keep it out. It still proves the code, as every link.
        self.proven: OrderedDict[bytes, None] = OrderedDict()

    def refresh(self, code: str) -> None:
        """Take ``code`` as the table's code from now on: the old one opens nothing more.
        The links that proved the old one stay, and so do their keys' right to dial again."""
        if self.code is None:
            raise LanError(_("this table is not private: it has no code"))
        self.code = parse_code(code)

    def _failed(self, address: str, counted: bool) -> None:
        """An attempt from ``address`` ended without proving the code."""
        self.wrong += 1
        if counted:
            self.limiter.failed(address, self.clock())
        source = source_of_guess(address)
        if source in self.failed_from or len(self.failed_from) < PROVEN_KEPT:
            self.failed_from[source] += 1
        if self.say is not None and self._telling is None:
            loop = asyncio.get_running_loop()
            self._telling = loop.call_later(max(0.0, self._told_at + NOTICE_EVERY - loop.time()),
                                            self._tell)

    def _tell(self) -> None:
        self._telling = None
        self._told_at = asyncio.get_running_loop().time()
        most = ", ".join(f"{source} ({count})" for source, count in self.failed_from.most_common(3))
        others = len(self.failed_from) - 3
        if others > 0:
            # TRANSLATORS: after a list of addresses: how many more sent failed code attempts.
            most += " " + ngettext("and {n} more", "and {n} more", others).format(n=others)
        if self.say is not None:
            # TRANSLATORS: {sources} lists addresses, each with its count: "10.0.0.7 (12)".
            self.say(ngettext("{n} attempt at the code has failed so far, from {sources}",
                              "{n} attempts at the code have failed so far, from {sources}",
                              self.wrong).format(n=self.wrong, sources=most))

    @property
    def private(self) -> bool:
        """True when only who has the code comes in."""
        return self.code is not None

    async def open(self, request: web.Request, **options: Any) -> tuple[web.WebSocketResponse, bytes | None]:
        """A lobby or watch link (a websocket with ``options``) through the door: the socket,
        and its first frame after the door, or None once the link broke during the upgrade or
        was refused (and closed)."""
        socket = web.WebSocketResponse(**options)
        try:
            await socket.prepare(request)
        except (ConnectionError, OSError):
            return socket, None  # the connection broke during the upgrade (the network's doing)
        return socket, await self.admit(socket, request)

    async def admit(self, socket: web.WebSocketResponse, request: web.Request) -> bytes | None:
        """The first frame after the door (the join, or the watch), or None once the link
        was refused and closed."""
        trying = False
        address = "?"
        known = False
        try:
            data = await _first_binary(socket)
            item = _peek(data)
            if self.code is None:
                if item[:1] == ["pake"]:
                    raise ProtocolError(CODE_NOT_PRIVATE)
                return data
            if item[:1] != ["pake"] or len(item) != 2 or not isinstance(item[1], bytes):
                raise ProtocolError(CODE_NEEDED)
            # (A guest without a certificate that can be read takes no attempt from the limit.)
            guest_key = require_key(request.transport and request.transport.get_extra_info("ssl_object"),
                                    None, "the guest")
            address = request.remote or "?"
            known = guest_key in self.proven
            wait = 0.0 if known else self.limiter.begin(address, self.clock())
            if wait > 0:
                raise ProtocolError(f"too many wrong codes: try again in {math.ceil(wait)} s")
            # From here, every end but a right code is an attempt that failed: a stranger
            # who hangs up after its message has taken a turn of the window as a guess does.
            trying = True
            proof = CodeProof(self.code, "host", binding_of(self.host_key, guest_key))
            proof.receive(item[1])
            await socket.send_bytes(pack(["pake", proof.message()]))
            confirm = _peek(await _first_binary(socket))
            if not (confirm[:1] == ["confirm"] and len(confirm) == 2 and isinstance(confirm[1], bytes)
                    and proof.check(confirm[1])):
                raise ProtocolError(CODE_WRONG)
            trying = False
            if not known:
                self.limiter.succeeded(address)
            self.proven[guest_key] = None
            self.proven.move_to_end(guest_key)
            if len(self.proven) > PROVEN_KEPT:
                self.proven.popitem(last=False)
            await socket.send_bytes(pack(["confirm", proof.confirmation()]))
            return await _first_binary(socket)
        except (ProtocolError, TimeoutError, ConnectionError) as err:
            with contextlib.suppress(Exception):
                late = "no code in time" if self.code is not None else "nothing said in time"
                await socket.send_bytes(pack(["refused", str(err) or late]))
                await socket.close()
            return None
        finally:
            if trying:
                self._failed(address, not known)


async def _first_binary(socket: web.WebSocketResponse) -> bytes:
    message = await asyncio.wait_for(socket.receive(), CODE_TIMEOUT)
    if message.type != aiohttp.WSMsgType.BINARY:
        raise ProtocolError("a lobby message is a binary frame")
    data: bytes = message.data
    return data


def _peek(data: bytes) -> list[Any]:
    """An unsigned lobby item (the code exchange's), or [] for anything else."""
    try:
        item = unpack(data)
    except ProtocolError:
        return []
    return item if isinstance(item, list) else []


Say = Callable[[str], None]
SignSitDown = Callable[[bytes, RuleSet, list[SeatInfo], int], SitDown]


class Lobby:
    """The host's lobby: seats joiners (``handle`` serves ``/lobby``), and once the table
    starts, proposes the roster and gathers every seat's signed sit-down (:meth:`gather`).

    ``people`` seats (the host's included) are for people; ``bots`` more are the host's bots.
    ``changed`` is awaited whenever a seat is taken or given back (to update an
    announcement)."""

    def __init__(self, table_id: bytes, rules: RuleSet, host: SeatInfo, people: int, bots: int,
                 say: Say, changed: Callable[[], Awaitable[None]], start_when_full: bool = True,
                 gate: Gate | None = None) -> None:
        self.gate = gate or Gate(None, host.key)
        self.table_id = table_id
        self.rules = rules
        self.roster: list[SeatInfo] = [host]
        self.people = people
        self.bots = bots
        self.say = say
        self.changed = changed
        self.start_when_full = start_when_full
        self.started = False
        self._sockets: dict[bytes, web.WebSocketResponse] = {}
        self._full = asyncio.Event()
        self._sat: dict[int, SitDown] = {}
        self._sat_all = asyncio.Event()
        self._failure: tuple[str, str] | None = None  # (for the joiners, for this user)

    @property
    def seats(self) -> int:
        """Seats offered: the people's and the host's bots'."""
        return self.people + self.bots

    def can_start(self) -> str | None:
        """Why the table cannot start now, or None."""
        if self.started:
            return _("the table has started")
        if len(self.roster) + self.bots < MIN_PLAYERS:
            return _("nobody has sat down yet")
        return None

    def start(self) -> None:
        """Start with the people seated now; :class:`LanError` if the table cannot start."""
        why = self.can_start()
        if why is not None:
            raise LanError(why)
        self._full.set()

    async def wait_full(self) -> None:
        """Until the table starts: every seat taken (``start_when_full``), or :meth:`start`."""
        if self.start_when_full and len(self.roster) == self.people:
            self._full.set()  # the host's bots fill every other seat
        await self._full.wait()
        self.started = True

    def unique(self, name: str) -> str:
        """``name``, or ``name 2``, ``name 3``... if somebody at the table has it already: two
        players called Guest would be told apart only by their seat numbers."""
        taken = {s.name.casefold() for s in self.roster}
        number = 1
        unique = name
        while unique.casefold() in taken:
            number += 1
            suffix = f" {number}"
            unique = name[:MAX_NAME - len(suffix)] + suffix
        return unique

    async def gather(self, local: Mapping[int, SitDown]) -> list[SitDown]:
        """Send the roster to every joiner, wait for each one's sit-down, then tell them the
        table starts; every seat's sit-down in seat order (``local``: those signed on this
        machine, the host's and its bots'). :class:`LanError` if a joiner left, did not sit
        down within :data:`JOIN_TIMEOUT`, or signed something else than the roster says."""
        self._sat.update(local)
        roster = roster_message(self.table_id, self.rules, self.roster)
        for key, socket in list(self._sockets.items()):
            try:
                await socket.send_bytes(roster)
            except ConnectionError:
                # Nobody can play that seat now, and without it the table cannot deal.
                raise LanError(_("{name} left just as the table started").format(
                    name=self._name_of(key))) from None
        self._check_all_sat()
        try:
            await asyncio.wait_for(self._sat_all.wait(), JOIN_TIMEOUT)
        except TimeoutError:
            missing = [s.name for i, s in enumerate(self.roster) if i not in self._sat]
            # TRANSLATORS: {names} lists players' names, "Ann, Bob".
            self._failure = _in_both(N_("{names} did not sit down in time"), names=", ".join(missing))
        if self._failure is not None:
            wire, told = self._failure
            await self._close_all(["refused", wire])
            raise LanError(told)
        await self._close_all(["start"])
        return [self._sat[seat] for seat in range(len(self.roster))]

    def _name_of(self, key: bytes) -> str:
        return next(s.name for s in self.roster if s.key == key)

    def _check_all_sat(self) -> None:
        if len(self._sat) == len(self.roster):
            self._sat_all.set()

    async def _close_all(self, item: list[Any]) -> None:
        for socket in list(self._sockets.values()):
            try:
                await socket.send_bytes(pack(item))
                await socket.close()
            except ConnectionError:
                pass  # gone: that seat finds out by itself

    def _take_sit_down(self, data: bytes, key: bytes) -> None:
        """A joiner's signed sit-down: it must be exactly what the roster proposes for it."""
        seat = [s.key for s in self.roster].index(key)
        info = self.roster[seat]
        try:
            item = open_signed(data, key)
            if not (item[0] == "sit-down" and len(item) == 2):
                raise ProtocolError("a sit-down message is ['sit-down', sit-down]")
            sat = parse_sit_down(item[1])
        except (ProtocolError, BadSitDown) as err:
            # TRANSLATORS: {reason} says what is wrong with the signed sit-down (in English).
            self._failure = _in_both(N_("{name} sent a bad sit-down: {reason}"), name=info.name,
                                     reason=err)
        else:
            expected = (self.table_id, seat, info.name, info.key, None, self.rules.options())
            if sat.terms[:6] != expected:
                self._failure = _in_both(N_("{name} signed another seat, name or rules than the "
                                            "roster's"), name=info.name)
            else:
                self._sat[seat] = sat
        if self._failure is not None:
            self._sat_all.set()
        self._check_all_sat()

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        """One joiner's lobby link: seat it, keep the link until the roster goes out, then
        take its sit-down."""
        socket, first = await self.gate.open(request, max_msg_size=LOBBY_MAX_BYTES)
        if first is None:
            return socket
        try:
            seat = _joiner(request, first)
        except ProtocolError as err:
            await _refuse(socket, str(err))
            return socket
        refusal = self._refusal(seat)
        if refusal is not None:
            await _refuse(socket, refusal)
            return socket
        seat = await self._seat(seat, request, socket)
        async for message in socket:
            # Before the roster a joiner has nothing to say; after it, its sit-down.
            if self.started and message.type == aiohttp.WSMsgType.BINARY and not self._sat_all.is_set():
                self._take_sit_down(message.data, seat.key)
        await self._left(seat)
        return socket

    def _refusal(self, seat: SeatInfo) -> str | None:
        """Why the joiner ``seat`` cannot sit down here, or None."""
        if self.started or len(self.roster) >= self.people:
            return "the table is full" if not self.started else GAME_STARTED
        if any(s.key == seat.key for s in self.roster):
            return "that key is already seated"
        return None

    async def _seat(self, seat: SeatInfo, request: web.Request, socket: web.WebSocketResponse) -> SeatInfo:
        """Put the joiner on the roster (under a name of its own, at its address as seen from
        here unless it gave one), say so to all, and tell it; the seat as seated."""
        if not seat.host:
            seat = SeatInfo(seat.name, seat.key, request.remote or "", seat.port)
        seat = SeatInfo(self.unique(seat.name), seat.key, seat.host, seat.port)
        self.roster.append(seat)
        self._sockets[seat.key] = socket
        if self.bots:
            # TRANSLATORS: a player sat down at the host's table: {n} of the {people} seats for
            # people are taken, and the host's {bots} bots take the others.
            sat = ngettext("{name} sat down ({n} of {people}, and {bots} bot)",
                           "{name} sat down ({n} of {people}, and {bots} bots)", self.bots)
        else:
            sat = _("{name} sat down ({n} of {people})")
        self.say(sat.format(name=seat.name, n=len(self.roster), people=self.people, bots=self.bots))
        await socket.send_bytes(pack(["seated", len(self.roster) + self.bots, self.seats]))
        if len(self.roster) == self.people and self.start_when_full:
            self._full.set()
        else:
            if len(self.roster) == self.people:
                # The host said so once, before anybody came: said again now that it is time
                # (a table that starts by itself does not wait for Enter).
                self.say(_("every seat is taken: press Enter to start"))
            await self.changed()
        return seat

    async def _left(self, seat: SeatInfo) -> None:
        """The joiner's link ended: before the start its seat is free again; between the
        start and every sit-down, the table cannot start."""
        if not self.started:
            self.roster = [s for s in self.roster if s.key != seat.key]
            del self._sockets[seat.key]
            self.say(_("{name} left ({n} of {people})").format(name=seat.name, n=len(self.roster),
                                                               people=self.people))
            await self.changed()
        elif not self._sat_all.is_set():
            self._failure = _in_both(N_("{name} left just as the table started"), name=seat.name)
            self._sat_all.set()


def _joiner(request: web.Request, first: bytes) -> SeatInfo:
    """The seat a joiner's first message asks for; raises :class:`ProtocolError`."""
    seat = parse_seat(open_signed(first, None)[1:])
    # The joiner's TLS certificate must be for the key it joins with: the lobby link
    # is then bound to that key, as a mesh link is to its seat's.
    require_key(request.transport and request.transport.get_extra_info("ssl_object"),
                seat.key, "the joiner")
    return seat


async def _refuse(socket: web.WebSocketResponse, reason: str) -> None:
    await socket.send_bytes(pack(["refused", reason]))
    await socket.close()


