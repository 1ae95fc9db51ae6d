"""What a peer reports and keeps besides its log: the faults it charged to a seat, a hand's
secrets, the hooks a driver listens on (each entry, secret, chat line, rollback and presence),
and who a message goes to."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from p2p10.chatroom import ChatLine
from p2p10.crypto.group import Scalar
from p2p10.engine import GameState
from p2p10.errors import IllegalMove
from p2p10.events import SeatEvent
from p2p10.log import Entry

# A bot or a player's choice of move: (the seat's view, its seat, a random source) -> a move.
Player = Callable[[GameState, int, random.Random], SeatEvent]
Outgoing = tuple[int | None, bytes]  # (destination seat, or None for every other seat; message)


@dataclass(frozen=True, slots=True)
class Fault:
    """Something a peer refused. ``seat`` is who is to blame: the author when the entry is
    signed by it, otherwise the seat that passed it on (``sender``)."""

    seat: int | None
    seq: int | None
    reason: str


FAULTS_KEPT = 1000


class Faults(list[Fault]):
    """A peer's faults, oldest first: a list that keeps the first :data:`FAULTS_KEPT` and counts
    the rest, so that a seat (or a stranger's link, closed and dialled again) sending garbage for
    hours cannot make a peer hold memory without bound (attack A56). The first faults are the
    ones that name who started it."""

    dropped: int = 0

    def append(self, fault: Fault) -> None:
        """Keep ``fault`` if fewer than :data:`FAULTS_KEPT` are kept; else count it."""
        if len(self) < FAULTS_KEPT:
            super().append(fault)
        else:
            self.dropped += 1


@dataclass(frozen=True, slots=True)
class HandSecrets:
    """A seat's secrets for one hand: its hand key's secret and its shuffle seed."""

    hand: int
    secret: Scalar
    seed: bytes


class OwnEntryRefused(IllegalMove):
    """The fold refused an entry this peer was about to write: nothing was signed or sent."""


class PeerHooks:
    """How a peer tells its driver what happened, as it happens: a peer takes one at
    construction, and calls every listener added with :meth:`listen`, in the order they were
    added. A driver adds its files first, so that an entry or a secret is saved before a screen
    sees it, and always before the peer sends anything that depends on it."""

    __slots__ = ("_chat", "_entry", "_presence", "_rollback", "_secret")

    def __init__(self) -> None:
        self._entry: list[Callable[[Entry], None]] = []
        self._secret: list[Callable[[HandSecrets], None]] = []
        self._chat: list[Callable[[ChatLine], None]] = []
        self._rollback: list[Callable[[int], None]] = []
        self._presence: list[Callable[[int, int], None]] = []

    def listen(self, *, entry: Callable[[Entry], None] | None = None,
               secret: Callable[[HandSecrets], None] | None = None,
               chat: Callable[[ChatLine], None] | None = None,
               rollback: Callable[[int], None] | None = None,
               presence: Callable[[int, int], None] | None = None) -> None:
        """Add listeners: ``entry`` for every entry the log takes (the peer's own and the
        others'), ``secret`` for every new hand secret, ``chat`` for every chat line shown,
        ``rollback`` with a count when the log is cut back to that many entries (only when the
        others went on without this machine, over entries nobody else ever accepted),
        ``presence`` with a seat and its new state when another machine says where its player
        is (:meth:`Peer.tell`)."""
        if entry is not None:
            self._entry.append(entry)
        if secret is not None:
            self._secret.append(secret)
        if chat is not None:
            self._chat.append(chat)
        if rollback is not None:
            self._rollback.append(rollback)
        if presence is not None:
            self._presence.append(presence)

    def entry_added(self, entry: Entry) -> None:
        """The log took ``entry``."""
        for listener in self._entry:
            listener(entry)

    def secret_made(self, secrets: HandSecrets) -> None:
        """This seat made its secrets for a hand."""
        for listener in self._secret:
            listener(secrets)

    def chat_heard(self, line: ChatLine) -> None:
        """A chat line to show."""
        for listener in self._chat:
            listener(line)

    def rolled_back(self, length: int) -> None:
        """The log was cut back to ``length`` entries."""
        for listener in self._rollback:
            listener(length)

    def presence_changed(self, seat: int, state: int) -> None:
        """The machine at ``seat`` says where its player is now."""
        for listener in self._presence:
            listener(seat, state)


def addressed(outgoing: list[Outgoing], sender: int, seats: int) -> list[tuple[int, bytes]]:
    """Each outgoing message with one destination seat: a message for everybody goes to every
    seat but its sender."""
    return [(target, data) for dst, data in outgoing
            for target in ([dst] if dst is not None else [d for d in range(seats) if d != sender])]
