"""An in-memory network of peers in virtual time, with seeded faults, and a table runner.

The network delivers every message after a small latency; under :class:`Faults` it also drops,
duplicates, delays and reorders them, all drawn from one seeded ``random.Random``, so a failing
run can be replayed exactly. ``tamper`` lets a test stand in the middle of every link.

It also models the links themselves, and tells every peer when one goes up or down
(:meth:`~p2p10.peer.Peer.linked`), as the LAN mesh does: :meth:`MemoryNetwork.split` cuts the
table into groups that cannot reach each other (a partition) and :meth:`MemoryNetwork.heal`
joins them again; :meth:`MemoryNetwork.pause` stops a machine as ``SIGSTOP`` or a closed laptop
lid would (no polls, nothing delivered, every link to it down) until
:meth:`MemoryNetwork.resume`.
"""

from __future__ import annotations

import heapq
import os
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from p2p10.crypto.group import RandomBytes
from p2p10.log import GAME_ID_BYTES, Entry
from p2p10.peer import Peer
from p2p10.peer_parts import Player, addressed
from p2p10.primitives import Ed25519PrivateKey
from p2p10.rules import DEFAULT, RuleSet
from p2p10.sitdown import NONCE_BYTES, SitDown
from protocol.storage import LogWriter, SecretsWriter

Tamper = Callable[[int, int, bytes], bytes | None]


class NetworkStalled(RuntimeError):
    """The peers stopped making progress before the game ended."""


@dataclass(frozen=True, slots=True)
class Faults:
    """Per-message probabilities of a drop, a duplicate and an extra delay (which reorders),
    and the longest extra delay in seconds."""

    drop: float = 0.0
    duplicate: float = 0.0
    reorder: float = 0.0
    max_delay: float = 0.5


@dataclass
class NetworkStats:
    """What the network did."""

    sent: int = 0
    delivered: int = 0
    dropped: int = 0
    duplicated: int = 0
    delayed: int = 0
    bytes: int = 0


@dataclass(order=True)
class _Message:
    at: float
    order: int
    dst: int = field(compare=False)
    src: int = field(compare=False)
    data: bytes = field(compare=False)


class MemoryNetwork:
    """Carries messages between ``peers`` (indexed by seat) in virtual time."""

    def __init__(self, peers: Sequence[Peer], faults: Faults = Faults(), rng: random.Random | None = None,
                 latency: float = 0.002, tick: float = 0.05, tamper: Tamper | None = None) -> None:
        self.peers = list(peers)
        self.faults = faults
        self.rng = rng or random.Random(0)
        self.latency = latency
        self.tick = tick
        self.tamper = tamper
        self.now = 0.0
        self.stats = NetworkStats()
        self._queue: list[_Message] = []
        self._order = 0
        self._next_tick = tick
        self._groups: list[frozenset[int]] = [frozenset(range(len(self.peers)))]
        self._paused: set[int] = set()
        self._up: set[tuple[int, int]] = set()
        # Bots a machine runs for seats whose machine went away, by that machine's seat, as
        # the mesh carries them (:meth:`carry`).
        self.carried: dict[int, list[Peer]] = {}
        self._report()

    def carry(self, machine: int, peer: Peer) -> None:
        """Run ``peer`` (a bot for a seat taken over) on ``machine``'s seat, as the LAN mesh
        carries such a bot: it hears what that machine's peer sends, what it sends goes to that
        peer (which relays its entries once accepted), and its links are that machine's."""
        self.carried.setdefault(machine, []).append(peer)
        for other in range(len(self.peers)):
            peer.linked(other, other == machine or self.reachable(machine, other), self.now)

    # ------------------------------------------------------------------ links

    @property
    def paused(self) -> frozenset[int]:
        """The machines stopped now (:meth:`pause`)."""
        return frozenset(self._paused)

    def reachable(self, src: int, dst: int) -> bool:
        """True while ``src`` and ``dst`` can reach each other."""
        if src in self._paused or dst in self._paused:
            return False
        return any(src in group and dst in group for group in self._groups)

    def split(self, *groups: set[int] | frozenset[int]) -> None:
        """Cut the table into ``groups`` (every seat in exactly one); links across are down."""
        seats = [s for g in groups for s in g]
        if sorted(seats) != list(range(len(self.peers))):
            raise ValueError("a split puts every seat in exactly one group")
        self._groups = [frozenset(g) for g in groups]
        self._report()

    def heal(self) -> None:
        """Join every group again."""
        self.split(set(range(len(self.peers))))

    def pause(self, seat: int) -> None:
        """Stop ``seat``'s machine: it is not polled, hears nothing, and nobody reaches it."""
        self._paused.add(seat)
        self._report()

    def resume(self, seat: int) -> None:
        """Let a paused machine run again; its links come back up."""
        self._paused.discard(seat)
        self._report()

    def _report(self) -> None:
        """Tell every running peer of each link that changed (a paused one learns on resume)."""
        for seat, peer in enumerate(self.peers):
            if seat in self._paused:
                continue
            for other in range(len(self.peers)):
                if other == seat:
                    continue
                up = self.reachable(seat, other)
                if up != ((seat, other) in self._up):
                    peer.linked(other, up, self.now)
                    for bot in self.carried.get(seat, ()):
                        if bot.seat != other:
                            bot.linked(other, up, self.now)
                if up:
                    self._up.add((seat, other))
                else:
                    self._up.discard((seat, other))

    def _post(self, src: int, dst: int, data: bytes) -> None:
        faults, rng = self.faults, self.rng
        self.stats.sent += 1
        if self.tamper is not None:
            tampered = self.tamper(src, dst, data)
            if tampered is None:
                self.stats.dropped += 1
                return
            data = tampered
        if not self.reachable(src, dst):
            self.stats.dropped += 1
            return
        if faults.drop and rng.random() < faults.drop:
            self.stats.dropped += 1
            return
        copies = 1
        if faults.duplicate and rng.random() < faults.duplicate:
            copies = 2
            self.stats.duplicated += 1
        for _ in range(copies):
            delay = self.latency
            if faults.reorder and rng.random() < faults.reorder:
                delay += rng.uniform(0, faults.max_delay)
                self.stats.delayed += 1
            self._order += 1
            heapq.heappush(self._queue, _Message(self.now + delay, self._order, dst, src, data))

    def flush_outboxes(self) -> None:
        """Move every peer's outgoing messages onto the wire."""
        for src, peer in enumerate(self.peers):
            if src in self._paused:
                continue  # a stopped machine sends nothing (what it had queued waits)
            for target, data in addressed(self._pump_carried(src, peer), src, len(self.peers)):
                self._post(src, target, data)

    def _pump_carried(self, machine: int, host: Peer) -> list[tuple[int | None, bytes]]:
        """Pass messages between ``machine``'s peer and the bots it carries, as the mesh does;
        what is left for the wire (never a message only for a carried bot)."""
        bots = self.carried.get(machine, [])
        wire: list[tuple[int | None, bytes]] = []
        for _ in range(64):  # a bound, as in the mesh
            moved = False
            for dest, data in host.take_outbox():
                moved = True
                for bot in bots:
                    if dest is None or dest == bot.seat:
                        bot.receive(data, machine, self.now)
                if dest is None or all(b.seat != dest for b in bots):
                    wire.append((dest, data))
            for bot in bots:
                for dest, data in bot.take_outbox():
                    moved = True
                    if dest is None or dest == machine:
                        host.receive(data, bot.seat, self.now)
                    for other in bots:
                        if other is not bot and (dest is None or dest == other.seat):
                            other.receive(data, bot.seat, self.now)
            if not moved:
                break
        return wire

    def replace(self, seat: int, peer: Peer) -> None:
        """Put ``peer`` in ``seat``'s place, as after a crash and restart: whatever was on its
        way to the old one is lost, and so is whatever it had not sent yet."""
        self.peers[seat].take_outbox()
        self._queue = [m for m in self._queue if m.dst != seat]
        heapq.heapify(self._queue)
        self.peers[seat] = peer
        self._up = {(a, b) for a, b in self._up if a != seat}
        self._report()

    def step(self) -> None:
        """Deliver the next message, or advance the clock one tick and poll every peer."""
        self.flush_outboxes()
        if self._queue and self._queue[0].at <= self._next_tick:
            message = heapq.heappop(self._queue)
            self.now = max(self.now, message.at)
            if not self.reachable(message.src, message.dst):
                self.stats.dropped += 1  # the link went down while it was on its way
                return
            self.stats.delivered += 1
            self.stats.bytes += len(message.data)
            self.peers[message.dst].receive(message.data, message.src, self.now)
            return
        self.now = self._next_tick
        self._next_tick += self.tick
        for seat, peer in enumerate(self.peers):
            if seat not in self._paused:
                peer.poll(self.now)
                for bot in self.carried.get(seat, ()):
                    bot.poll(self.now)

    def run(self, until: Callable[[], bool], max_seconds: float = 36_000.0) -> None:
        """Step until ``until()`` holds; raises :class:`NetworkStalled` after ``max_seconds`` of
        virtual time."""
        while not until():
            if self.now > max_seconds:
                raise NetworkStalled(f"no end after {max_seconds:.0f} s of virtual time")
            self.step()


def seeded_bytes(seed: int | None, label: str) -> RandomBytes:
    """``os.urandom``, or for a seeded (test) run a reproducible stream per ``label``."""
    if seed is None:
        return os.urandom
    return random.Random(f"{seed}/{label}").randbytes


@dataclass
class TableRun:
    """A table played through an in-memory network."""

    peers: list[Peer]
    network: MemoryNetwork

    @property
    def log(self) -> list[Entry]:
        """The first peer's log (every honest peer's is the same)."""
        return self.peers[0].log


def make_peers(players: Sequence[Player | None], seed: int | None = None,
               peer_class: Callable[..., Peer] = Peer, **options: object) -> list[Peer]:
    """One peer per seat, each with its own identity key and random source."""
    peers = []
    for seat, player in enumerate(players):
        rng_bytes = seeded_bytes(seed, f"seat{seat}")
        identity = Ed25519PrivateKey.from_private_bytes(rng_bytes(32))
        rng = random.Random(f"{seed}/play{seat}") if seed is not None else None
        peers.append(peer_class(seat, identity, player=player, rng_bytes=rng_bytes, rng=rng, **options))
    return peers


def sit_downs_for(peers: Sequence[Peer], names: Sequence[str], rules: RuleSet = DEFAULT,
                  seed: int | None = None, run_by: Sequence[int | None] | None = None) -> list[SitDown]:
    """Every seat signs its sit-down at one table (``run_by`` marks seats that are bots of
    another seat's machine); seeded, the table id and the nonces are reproducible."""
    table_id = seeded_bytes(seed, "table")(GAME_ID_BYTES)
    owners = list(run_by) if run_by is not None else [None] * len(peers)
    return [peer.sit_down(table_id, name, rules, owner, seeded_bytes(seed, f"nonce{peer.seat}")(NONCE_BYTES))
            for peer, name, owner in zip(peers, names, owners, strict=True)]


def open_table(peers: Sequence[Peer], names: Sequence[str], rules: RuleSet = DEFAULT,
               seed: int | None = None, run_by: Sequence[int | None] | None = None) -> None:
    """Every seat signs its sit-down, and seat 0 writes the table entry that carries them."""
    peers[0].open_table(sit_downs_for(peers, names, rules, seed, run_by))


def save_to(peers: Sequence[Peer], log_path: Path) -> list[LogWriter | SecretsWriter]:
    """Write seat 0's log to ``log_path`` and each seat's secrets beside it, as they happen."""
    writers: list[LogWriter | SecretsWriter] = []
    log = LogWriter(log_path)
    writers.append(log)
    peers[0].hooks.listen(entry=log.add)
    for peer in peers:
        secrets = SecretsWriter(log_path.with_name(f"{log_path.stem}.seat{peer.seat + 1}.p2p10-secrets"))
        secrets.add_identity(peer.seat, peer.identity.private_bytes_raw())
        writers.append(secrets)
        peer.hooks.listen(secret=secrets.add_hand)
    return writers


def play_table(players: Sequence[Player], rules: RuleSet = DEFAULT, seed: int | None = None,
               names: Sequence[str] | None = None, faults: Faults = Faults(),
               save: Path | None = None, tamper: Tamper | None = None,
               max_seconds: float = 36_000.0) -> TableRun:
    """Play one complete game between bot ``players`` with full dealing cryptography."""
    peers = make_peers(players, seed)
    names = list(names) if names else [f"Bot {i + 1}" for i in range(len(players))]
    writers = save_to(peers, save) if save is not None else []
    network = MemoryNetwork(peers, faults, random.Random(f"{seed}/net"), tamper=tamper)
    try:
        open_table(peers, names, rules, seed)
        network.run(lambda: all(p.finished or p.stopped for p in peers), max_seconds)
    finally:
        for writer in writers:
            writer.close()
    return TableRun(peers, network)
