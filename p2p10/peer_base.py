"""A peer's fields, and what they say read without changing them: whether it stopped and why, the
chat, whether its table is going on without a machine, the game over, the seat's view, what it
has to send. The peer is p2p10.peer; its parts are built on this one, each in its own module."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from p2p10.chatroom import ChatLine, ChatRoom
from p2p10.crypto.group import RandomBytes
from p2p10.engine import GameState
from p2p10.errors import ProtocolError, ProtocolViolation
from p2p10.going_on import GoingOn
from p2p10.hand_crypto import (
    Expect,
)
from p2p10.liveness import Links
from p2p10.log import Entry
from p2p10.peer_parts import Faults, HandSecrets, Outgoing, PeerHooks, Player
from p2p10.primitives import Ed25519PrivateKey, Ed25519PublicKey
from p2p10.sitdown import SitDown
from p2p10.table import TableState


class PeerBase:
    """What every part of a :class:`~p2p10.peer.Peer` holds (set in its ``__init__``) and reads."""

    # Set in Peer.__init__ (see there for what each is).
    seat: int
    identity: Ed25519PrivateKey
    player: Player | None
    rng_bytes: RandomBytes
    rng: random.Random
    resend_after: float
    blame_after: float
    away_after: float
    hooks: PeerHooks
    log: list[Entry]
    table: TableState | None
    secrets: dict[int, HandSecrets]
    faults: Faults
    violation: ProtocolViolation | None
    equivocation: tuple[Entry, Entry] | None
    overdue: Expect | None
    evidence: list[bytes]
    chatroom: ChatRoom
    own_sit_down: SitDown | None
    away: GoingOn
    delegated: dict[int, Ed25519PrivateKey]
    links: Links
    presence: dict[int, int]
    _presence: int
    _signed_through: int
    _asked_back_at: float
    _now: float
    _public: bytes
    _private: dict[int, int]
    _private_hand: int
    _buffer: dict[int, dict[bytes, tuple[Entry, int | None, Ed25519PublicKey | None]]]
    _outbox: list[Outgoing]
    _progress_at: float | None
    _wanted_at: float

    # Methods of the parts built on this one that a lower part calls (each is defined once, in
    # the part named): typed here so that every part is checked against them.
    _offer: Callable[[bytes, int | None, float], None]  # p2p10.peer_sync
    _write: Callable[[str, Any], None]  # p2p10.peer
    _act: Callable[[], None]  # p2p10.peer
    away_for: Callable[[int], float | None]  # p2p10.peer

    def _table(self) -> TableState:
        if self.table is None:
            raise ProtocolError("no table yet: the first entry has not arrived")
        return self.table

    @property
    def stopped(self) -> bool:
        """True once the peer has frozen on a violation or an equivocation."""
        return self.violation is not None or self.equivocation is not None

    def stop_reason(self) -> str | None:
        """Why this peer froze, in words naming the seat to blame; None if it did not."""
        if self.equivocation is not None:
            first, second = self.equivocation
            who = self.table.name(first.author) if self.table else f"seat {first.author + 1}"
            return (f"{who} signed two different entries for entry {first.seq} "
                    f"({first.hash.hex()[:12]}... and {second.hash.hex()[:12]}...)")
        if self.violation is not None:
            err = self.violation
            # A table entry that its own sit-downs refute leaves no table to name seat 1 by.
            who = ("nobody" if err.seat is None else self.table.name(err.seat) if self.table
                   else f"seat {err.seat + 1}")
            return f"{who} broke the rules at entry {err.seq}: {err.reason}"
        return None

    @property
    def plays_its_seat(self) -> bool:
        """True while this peer's key signs for its seat: False once the others went on without
        its machine (a bot has the seat), or for such a bot once the seat was taken back."""
        return self.table is None or self.table.signing_keys[self.seat] == self._public

    @property
    def chat(self) -> list[ChatLine]:
        """The chat lines to show, oldest first."""
        return self.chatroom.lines

    @property
    def going_on(self) -> tuple[int, int, bytes] | None:
        """What this peer agreed to: going on without ``person``'s machine at (``seq``,
        ``prev_hash``); None while it has not."""
        return self.away.agreed

    @property
    def finished(self) -> bool:
        """True once the game in the log is over."""
        return self.table is not None and self.table.expected() is None

    def view(self) -> GameState:
        """The game as this seat sees it: everything public plus its own hand."""
        table = self._table()
        engine = table.engine
        hand = table.hand
        if hand is None or engine.stage in ("deal", "over"):
            return engine
        if hand.number != self._private_hand:
            self._private, self._private_hand = {}, hand.number
        secrets = self.secrets.get(hand.number)
        # A card of this hand that clashes with the table can only come from a broken shuffle:
        # this seat then plays it to expose it (``_exposing_move``).
        return table.seat_view(self.seat, secrets.secret if secrets else None, self._private)

    def take_outbox(self) -> list[Outgoing]:
        """The messages to send, oldest first; the outbox is emptied."""
        out, self._outbox = self._outbox, []
        return out
