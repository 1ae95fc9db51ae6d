"""What p2p10 host runs: the host's machine (its listener, lobby, gallery and announcement, its
seats and bots, from the lobby to the end of the game). Joining and resuming are
protocol.lan_join; what every seat runs is protocol.lan."""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path

from aiohttp import web
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p10.bots import POLICIES
from p2p10.errors import ProtocolError
from p2p10.game_fields import MAX_PLAYERS, MIN_PLAYERS
from p2p10.i18n import _
from p2p10.log import GAME_ID_BYTES, fingerprint, public_bytes
from p2p10.peer import Peer
from p2p10.rules import RuleSet
from protocol.discovery import TABLE_PATH, Advertisement, TableAd, advertise
from protocol.gallery import DEFAULT_SPECTATORS, Gallery, save_gallery
from protocol.lan import (
    WILDCARD,
    Front,
    GameResult,
    Machine,
    Timing,
    forget_gallery,
    key_line,
    listening_line,
    log_path_for,
    play_machine,
    player_for,
    print_line,
)
from protocol.listener import listen
from protocol.lobby import LOBBY_PATH, Gate, Lobby, Say
from protocol.lobby_messages import LanError as LanError
from protocol.lobby_messages import SeatInfo, valid_name
from protocol.mesh import MESH_PATH
from protocol.private import new_code
from protocol.seat_runner import MeshSlot, play_seat
from protocol.storage import SeatFiles
from protocol.watch import WATCH_PATH

BotSeat = tuple[Ed25519PrivateKey, MeshSlot, int]  # a host's bot: its key, mesh route, port


class Host:
    """Seat 0: gathers the seats in its lobby, sends the roster and opens the table.

    ``bots`` of the ``seats`` are bots run by this machine (``bot_level`` policy), seated after
    the people and marked as the host's in the table entry. The table starts when every other
    seat is taken (``start_when_full``) or when :meth:`start` is called: then the bots fill
    the free seats up to ``bots``. ``policy`` None means a person plays seat 0 through
    ``front`` (the play screen)."""

    def __init__(self, name: str, seats: int, rules: RuleSet, policy: str | None,
                 interface: str = "0.0.0.0", port: int = 0, save_dir: Path | None = None,
                 say: Say = print_line, title: str | None = None, advertised: bool = True,
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
