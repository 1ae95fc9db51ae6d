"""What p2p10 join and p2p10 resume run: a joiner's machine (dial the host, take a seat, play) and
a machine brought back to a game under way from its files. Hosting is protocol.lan_host; what
every seat runs is protocol.lan."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from aiohttp import web
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p10.bots import POLICIES
from p2p10.errors import ProtocolError
from p2p10.i18n import _
from p2p10.log import fingerprint, public_bytes
from p2p10.peer import Peer
from p2p10.rules import RuleSet
from p2p10.sitdown import SitDown
from protocol.checkpoint import SavedLog, read_saved
from protocol.discovery import Advertisement, TableAd, advertise
from protocol.gallery import DEFAULT_SPECTATORS, Gallery, read_gallery
from protocol.lan import (
    WILDCARD,
    Front,
    GameResult,
    Machine,
    Timing,
    forget_gallery,
    key_line,
    log_path_for,
    parse_address,
    play_machine,
    player_for,
    print_line,
    read_roster,
)
from protocol.listener import Handler, listen
from protocol.lobby import Gate, Say
from protocol.lobby_messages import LanError as LanError
from protocol.lobby_messages import SeatInfo, valid_name
from protocol.mesh import MESH_PATH
from protocol.seat_runner import MeshSlot, play_seat
from protocol.storage import SeatFiles, resume_peer
from protocol.taking_seat import take_seat
from protocol.watch import WATCH_PATH


class Joiner:
    """A peer that sits down at a host's table (``HOST:PORT``) and plays its seat."""

    def __init__(self, address: str, name: str, policy: str | None, interface: str = "0.0.0.0",
                 save_dir: Path | None = None, say: Say = print_line,
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
                 timing: Timing = Timing(), say: Say = print_line) -> None:
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
