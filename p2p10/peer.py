"""One seat's peer, sans-I/O: bytes in, bytes out, a clock passed in.

A :class:`Peer` holds its seat's identity key and hand secrets, its copy of the log and the
fold of that log (:class:`~p2p10.table.TableState`). The driver (the in-memory network in tests
and ``p2p10 simulate``, websockets on a LAN) calls :meth:`Peer.receive` with each message and
:meth:`Peer.poll` now and then, and sends what :meth:`Peer.take_outbox` returns. The peer writes
its own entries whenever the table says it is its turn: dealing entries by itself, moves by
asking its ``player`` (a bot) or waiting for :meth:`Peer.play` (a person at a screen).

Sync, modelled on gossip with single-writer positions: every newly accepted entry is relayed
once to every other peer; entries that arrive early wait in a bounded buffer; a peer that has
seen no progress for ``resend_after`` seconds asks everybody for the entries from its next
position on (``want``); one that has waited ``blame_after`` seconds names the seat it is
waiting for (:attr:`Peer.overdue`). Duplicates are dropped by hash. Two different entries signed
by one author for one position freeze the peer with both kept as evidence (:attr:`equivocation`).

Messages: msgpack ``[0, envelope]`` (an entry), ``[1, seq]`` (want entries from ``seq``),
``[2, chat]`` (a line of table chat: signed by its seat like an entry, relayed once, shown to
the players, and never part of the log; see :meth:`Peer.say`), ``[3, agreement]`` (to go on
without a machine), ``[4, request]`` (a machine that was away asks for its seats back) or
``[5, state]`` (where the sender's player is: at the table, reading a hand's summary, or gone;
only shown, see :meth:`Peer.tell`). Every message and every body is read and written through
:mod:`p2p10.wire`.

The peer is the front of small state machines, each in a module of its own: which machines it
can reach (:class:`~p2p10.liveness.Links`: slow is not gone), going on without a machine and its
coming back (:class:`~p2p10.going_on.GoingOn`), and table chat
(:class:`~p2p10.chatroom.ChatRoom`); log sync and the bodies this seat writes are its own. It
tells its driver what happened through one :class:`PeerHooks`, taken at construction.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from p2p10.cards import is_skip, points
from p2p10.chatroom import CHAT_KEPT as CHAT_KEPT
from p2p10.chatroom import ChatLine as ChatLine
from p2p10.chatroom import ChatRefused, ChatRoom, check_chat, sign_chat
from p2p10.chatroom import chat_text as chat_text
from p2p10.crypto.elgamal import initial_deck, token
from p2p10.crypto.group import RandomBytes, Scalar, base_mul, random_scalar
from p2p10.crypto.proofs import prove_equal_logs, prove_knowledge
from p2p10.crypto.shuffle import commit_seed, new_seed, seed_matches, shuffle_and_prove
from p2p10.engine import GameState
from p2p10.errors import IllegalMove, ProtocolError, ProtocolViolation, SavedFileError
from p2p10.events import Discard, DrawStock, Hit, LayDown, Reshuffle, SeatEvent, TakeDiscard
from p2p10.going_on import GoingOn
from p2p10.hand_crypto import (
    Expect,
    HandCrypto,
    away_message,
    key_context,
    return_message,
    seed_context,
    shuffle_context,
    token_context,
)
from p2p10.liveness import AWAY_AFTER as AWAY_AFTER
from p2p10.liveness import Links
from p2p10.liveness import Waiting as Waiting
from p2p10.log import BadEntry, Entry, make_entry, parse_entry, public_bytes
from p2p10.rules import RuleSet
from p2p10.signing import Domain, sign, verify
from p2p10.sitdown import SitDown, sign_sit_down
from p2p10.table import TableState, fold
from p2p10.wire import AGREE as AGREE
from p2p10.wire import (
    AT_TABLE,
    LEFT,
    PRESENCE,
    READING,
    Agreement,
    AwayBody,
    BackBody,
    KeyBody,
    MoveBody,
    RevealBody,
    ShuffleBody,
    TokenItem,
    TokensBody,
    WireError,
    WireMeld,
    decode_body,
    encode_agreement,
    encode_back,
    encode_chat,
    encode_presence,
)
from p2p10.wire import BACK as BACK
from p2p10.wire import CHAT as CHAT
from p2p10.wire import CHAT_LABEL as CHAT_LABEL
from p2p10.wire import CHAT_NONCE_BYTES as CHAT_NONCE_BYTES
from p2p10.wire import ENTRY as ENTRY
from p2p10.wire import MAX_MESSAGE_BYTES as MAX_MESSAGE_BYTES
from p2p10.wire import WANT as WANT
from p2p10.wire import decode_message as decode_message
from p2p10.wire import encode_entry_message as encode_entry_message
from p2p10.wire import encode_want as encode_want

BUFFER_LIMIT = 4096
WANT_BATCH = 256

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
"""The most faults a peer keeps (the first ones; the rest are counted in :attr:`Faults.dropped`)."""


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


class Peer:
    """One seat at a table (see the module docstring)."""

    def __init__(self, seat: int, identity: Ed25519PrivateKey, *, player: Player | None = None,
                 rng_bytes: RandomBytes = os.urandom, rng: random.Random | None = None,
                 resend_after: float = 1.0, blame_after: float = 30.0, away_after: float = AWAY_AFTER,
                 hooks: PeerHooks | None = None) -> None:
        self.seat = seat
        self.identity = identity
        self.player = player
        self.rng_bytes = rng_bytes
        self.rng = rng or random.Random(int.from_bytes(rng_bytes(8), "big"))
        self.resend_after = resend_after
        self.blame_after = blame_after
        self.away_after = away_after
        self.hooks = hooks if hooks is not None else PeerHooks()
        self.log: list[Entry] = []
        self.table: TableState | None = None
        self.secrets: dict[int, HandSecrets] = {}
        self.faults = Faults()
        self.violation: ProtocolViolation | None = None
        self.equivocation: tuple[Entry, Entry] | None = None
        self.overdue: Expect | None = None
        # The signed entries that froze this peer, as received: anybody can check them with
        # the author's key from the table entry.
        self.evidence: list[bytes] = []
        self.chatroom = ChatRoom()
        # This seat's sit-down for the table it is about to join (``sit_down``), if it signed one.
        self.own_sit_down: SitDown | None = None
        # Going on without a machine that stays away, and its coming back (§4.13, §4.14); and
        # the keys of the bots this peer was given to run (as the runner).
        self.away = GoingOn()
        self.delegated: dict[int, Ed25519PrivateKey] = {}
        # Liveness, as the driver reports it (``linked``). Slow is not gone: only a machine
        # with no link up for ``away_after`` seconds may be left behind (PROTOCOL §4.13).
        self.links = Links()
        # Where each other machine's player is, as that machine's own link said it (by seat;
        # PROTOCOL 6.2.2), and what this machine last said of its own player. Only shown on a
        # screen: nothing a peer does depends on it.
        self.presence: dict[int, int] = {}
        self._presence = AT_TABLE
        # The last position this peer's own key signed (it asks to come back only beyond it).
        self._signed_through = -1
        self._asked_back_at = -1e9
        self._now = 0.0
        self._public = public_bytes(identity)
        self._private: dict[int, int] = {}
        self._private_hand = -1
        # Early entries by position, each with the seat that delivered it (to charge its faults).
        # Each with the key its signature was checked with, so the fold need not check it again.
        self._buffer: dict[int, dict[bytes, tuple[Entry, int | None, Ed25519PublicKey | None]]] = {}
        self._outbox: list[Outgoing] = []
        self._progress_at: float | None = None  # the first poll starts the clock
        self._wanted_at = 0.0

    @classmethod
    def restore(cls, seat: int, identity: Ed25519PrivateKey, records: list[bytes],
                secrets: list[HandSecrets], **options: Any) -> Peer:
        """A peer started again from its own files: the log it had accepted (``records``, as
        stored) and its hand secrets. It refolds the log, checking every entry again
        (:func:`check_saved`), and then catches up with ``want`` like any peer that was away
        (:meth:`resumed`, which says what else it checks).

        Raises :class:`SavedFileError` naming what is wrong: an entry that does not check,
        a log that does not seat this key, a hand key this identity published whose secrets
        are missing or others, or two different secrets for one hand."""
        entries = parse_saved(records)
        return cls.resumed(seat, identity, entries, check_saved(entries), secrets, **options)

    @classmethod
    def resumed(cls, seat: int, identity: Ed25519PrivateKey, entries: Sequence[Entry],
                table: TableState | None, secrets: list[HandSecrets], **options: Any) -> Peer:
        """A peer started again from its own log (``entries``, parsed from the records as
        stored), already folded and checked into ``table`` by :func:`check_saved` (or a state
        equal to what it returns: the seats of one machine share one fold of their common log,
        and a machine may keep a checkpoint of it, see ``protocol.checkpoint``), and its hand
        secrets. Only what is this seat's own is checked here.

        It never signs a second entry for a position it signed before: every entry it sent was
        stored before it was sent, so it is in the log; and every hand key it published was
        stored first too, so each has its secrets: the one behind the key (``secret·G``) and
        the seed that opens the commitment beside it. Another secret or seed would have this
        seat sign a shuffle, tokens or a reveal that convict it.

        Raises :class:`SavedFileError` as :meth:`restore` does (the log checked already)."""
        if (table is None) != (not entries) or (table is not None and table.seq != len(entries)):
            raise SavedFileError("the checked fold does not cover the saved log")  # a caller's bug
        peer = cls(seat, identity, **options)
        for item in secrets:
            if peer.secrets.setdefault(item.hand, item) != item:
                raise SavedFileError(f"the secrets file holds two different secrets for hand "
                                     f"{item.hand + 1}")
        peer.log = list(entries)
        peer.table = table
        own = public_bytes(identity)
        # The seat's own key, or a bot's key for it after the others went on without that
        # machine (the machine itself may then still follow the game, never writing).
        if table is not None and (not 0 <= seat < table.players
                                  or own not in (table.keys[seat], table.signing_keys[seat])):
            raise SavedFileError(f"the saved log does not seat this key at seat {seat + 1}")
        for number, (seq, key, commitment) in sorted(_published_keys(entries, table, seat, own).items()):
            saved = peer.secrets.get(number)
            where = f"the key this seat published at entry {seq}"
            if saved is None:
                raise SavedFileError(f"the secrets file has no secret for hand {number + 1}, "
                                     f"whose key this seat published at entry {seq}")
            if base_mul(saved.secret).to_bytes() != key:
                raise SavedFileError(f"the saved secret of hand {number + 1} is not the one behind "
                                     f"{where}: the secrets file is damaged or belongs to another game")
            assert table is not None  # (a key entry was folded)
            if not seed_matches(commitment, saved.seed, seed_context(table.game_id, number, seat)):
                raise SavedFileError(f"the saved shuffle seed of hand {number + 1} does not open the "
                                     f"commitment beside {where}: the secrets file is damaged")
        return peer

    # ----------------------------------------------------------------------- reading

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

    # ------------------------------------------------------------------------ input

    def sit_down(self, table_id: bytes, name: str, rules: RuleSet, run_by: int | None = None,
                 nonce: bytes | None = None) -> SitDown:
        """Sign this seat's sit-down at table ``table_id`` (see :mod:`p2p10.sitdown`) and
        remember it: this peer then refuses, blaming seat 1, a table entry that does not carry
        exactly this sit-down (another name, rules or ``run_by``, or an old one of this key,
        which would make an old game's entries valid again). ``nonce`` only for test games."""
        self.own_sit_down = sign_sit_down(self.identity, table_id, self.seat, name, rules, run_by, nonce)
        return self.own_sit_down

    def open_table(self, sit_downs: Sequence[SitDown]) -> None:
        """Write the log's first entry (the seat at 0 opens the table): every seat's signed
        sit-down, in seat order, under the game id their nonces make."""
        if self.log:
            raise ProtocolError("this peer already has a table")
        entry = make_entry(self.identity, TableState.game_id_for(sit_downs), 0, bytes(32), self.seat,
                           "table", TableState.header_body(sit_downs))
        self._accept(entry, None)
        self._act()

    def receive(self, data: bytes, sender: int | None, now: float) -> None:
        """Handle one message from ``sender`` (a seat, or None if unknown)."""
        try:
            kind, value = decode_message(data)
        except ProtocolError as err:
            self.faults.append(Fault(sender, None, str(err)))
            return
        self._tick(now)
        if kind == WANT:
            if sender is None:
                return  # only a seated peer is answered
            for entry in self.log[value:value + WANT_BATCH]:
                self._outbox.append((sender, encode_entry_message(entry.raw)))
            return
        if kind == CHAT:
            self._hear(value, sender)
            return
        if kind == AGREE:
            self._heard_agreement(value, sender)
            return
        if kind == BACK:
            self._heard_back(value, sender)
            return
        if kind == PRESENCE:
            self._heard_presence(value, sender)
            return
        self._offer(value, sender, now)
        self._act()

    def poll(self, now: float) -> None:
        """Let time pass: act if it is this seat's turn, ask for missing entries, name a seat
        that keeps everybody waiting, and ask to come back if the table went on without this
        machine."""
        self._tick(now)
        self._act()
        if self._progress_at is None:
            self._progress_at = now  # nobody is overdue before this peer has waited at all
        if self.stopped or self.finished:
            return
        if self.away.agreed is not None and now - self.away.agreed_at >= self.resend_after:
            self.away.agreed_at = now
            self._send_agreement()  # a peer that was behind, or lost it, hears it again
        expect = self.table.expected() if self.table else None
        waited = now - self._progress_at
        if expect is not None and expect.seat != self.seat and waited >= self.blame_after:
            self.overdue = expect
        if waited >= self.resend_after and now - self._wanted_at >= self.resend_after:
            self._wanted_at = now
            # From this machine's own trailing entries, if its log ends with them: if the others
            # went on without it there, the away entry at that position is what it lacks, and
            # the entries after it may not verify here until it has it (§4.13, "Coming back").
            self._outbox.append((None, encode_want(self._own_tail())))
        if now - self._asked_back_at >= self.resend_after:
            self._ask_back(now)

    def _tick(self, now: float) -> None:
        self._now = now
        self.links.start(now)  # a seat never linked has been out of reach since here

    # ------------------------------------------------------------------- liveness

    def linked(self, seat: int, up: bool, now: float) -> None:
        """The driver's report that this peer's link to ``seat`` went up or down (a transport
        link, or a seat in the same process). Only this decides whether a machine is *away*:
        however long a player thinks, a machine with a link up is not (PROTOCOL §4.13). A new
        link catches this peer up at once, rather than after its next resend: the other side
        may have written entries while the link was down (§6.6)."""
        self._tick(now)
        self.links.report(seat, up, now)
        if self.presence.get(seat) == (READING if not up else LEFT):
            # A reader whose link went has no screen we know of; a machine that left and
            # links again is back.
            self._heard_presence(AT_TABLE, seat, link_up=up)
        if up:
            if self._presence != AT_TABLE:
                self._outbox.insert(0, (seat, encode_presence(self._presence)))
            # First in the outbox, so that it is the first message on the new link.
            self._outbox.insert(0, (seat, encode_want(len(self.log))))

    def away_for(self, person: int) -> float | None:
        """How many seconds ``person``'s machine has counted as away for this peer, or None
        while it does not (or it is this peer's own machine).

        A machine with no link up to any of its seats is away from the moment the last link
        went down. A machine with a link up is not away while the table waits for a move:
        its player is thinking, for as long as they like. But the entries of the dealing
        protocol (a key, a shuffle, tokens, a reveal) its software writes at once, by itself:
        a connected machine that does not write one is broken or withholding it on purpose,
        and counts as away from the moment the table began to wait for it."""
        table = self._table()
        seats = table.away_group(person)
        if table.machine_of(self.seat) == person:
            return None
        if self.links.any_up(seats):
            expect = table.expected()
            if (expect is None or expect.kind == "move" or table.machine_of(expect.seat) != person
                    or self._progress_at is None):
                return None
            return max(0.0, self._now - self._progress_at)
        return self.links.down_for(seats, self._now)

    def waiting(self) -> Waiting | None:
        """Who the table waits for now, if it is another machine (see :class:`Waiting`)."""
        table = self.table
        if table is None or self.stopped:
            return None
        person = table.awaited_machine()
        if person is None or person == table.machine_of(self.seat):
            return None
        away = self.away_for(person)
        waited = self._now - (self._progress_at if self._progress_at is not None else self._now)
        offer = (away is not None and away >= self.away_after and self.away.agreed is None
                 and table.go_on_refusal(person) is None)
        return Waiting(person, waited, away, offer)

    def tell(self, state: int) -> None:
        """Tell every other seat where this machine's player is (PROTOCOL 6.2.2): back at the
        table (``AT_TABLE``), reading the last hand's summary (``READING``) or leaving the
        table (``LEFT``, just before the links close). Said again on every new link while it
        is not ``AT_TABLE``. It only changes what the others' screens say."""
        if state != self._presence:
            self._presence = state
            self._outbox.append((None, encode_presence(state)))

    def presence_of(self, person: int) -> int:
        """Where ``person``'s player is, as their machine said (``AT_TABLE`` if it said nothing)."""
        return self.presence.get(person, AT_TABLE)

    def _heard_presence(self, state: int, sender: int | None, link_up: bool = False) -> None:
        """A machine says where its player is: kept for the seat of the link it came on (a
        machine speaks for its own player only; it is not passed on). Having left, it stays
        gone until a link to it comes up again (``link_up``): a machine that toggled "left"
        on one link could otherwise fill the others' move logs with departures."""
        if sender is None or sender == self.seat or self.presence_of(sender) == state:
            return
        if self.presence_of(sender) == LEFT and not link_up:
            return
        if state == AT_TABLE:
            del self.presence[sender]
        else:
            self.presence[sender] = state
        self.hooks.presence_changed(sender, state)

    def play(self, move: SeatEvent) -> None:
        """Play a move for this seat (from a screen); raises :class:`IllegalMove` and changes
        nothing if the rules refuse it."""
        table = self._table()
        expect = table.expected()
        if self.stopped or expect is None or expect.seat != self.seat or expect.kind != "move":
            raise IllegalMove("it is not your turn to move", self.seat)
        self.view().apply(move)  # refuse an illegal move before anything is signed
        self._write("move", self.build_move(table, move))
        self._act()

    def say(self, text: str) -> ChatLine:
        """Send a line of table chat to every seat, signed with this seat's key (so nobody can
        put words in another player's mouth) and bound to this game. Chat is not a move: it
        is never written to the log. Raises :class:`IllegalMove` for an empty or overlong
        line, or before the table exists."""
        text = chat_text(text)
        if self.table is None:
            raise IllegalMove("there is no table to talk to yet", self.seat)
        signed, line = sign_chat(self.identity, self.table, self.seat, self.rng_bytes(CHAT_NONCE_BYTES), text)
        self._keep_chat(signed, line)
        return line

    def _hear(self, signed: bytes, sender: int | None) -> None:
        """A chat message from the wire: checked, kept, passed on once, or a fault."""
        if self.chatroom.seen(signed) or self.table is None:
            return  # (before the table, nobody's key is known: it cannot be checked)
        try:
            line = check_chat(self.table, signed)
        except ChatRefused as err:
            self.faults.append(Fault(sender, None, str(err)))
            return
        self._keep_chat(signed, line)

    def _keep_chat(self, signed: bytes, line: ChatLine) -> None:
        self.chatroom.keep(signed, line)
        self._outbox.append((None, encode_chat(signed)))  # passed on once
        self.hooks.chat_heard(line)

    # ------------------------------------------------- going on without a machine that left

    def go_on_without(self, person: int) -> None:
        """Agree that the table goes on without ``person``'s machine (the one it is waiting
        for): sign the agreement for this very position and send it to everybody. From now on
        this peer holds back any entry of that machine for this position, unless a player who
        did not agree passes it on (then going on cannot happen, and it takes the entry after
        all). When every player but that one has agreed, the runner (the lowest other seat with
        a player) writes the ``away`` entry: the hand is voided and replayed without that
        machine's seats, and from the next hand bots played by the runner's machine take them.
        A bot peer (a seat run by another seat's machine) only holds back: its machine agrees
        for it. Raises :class:`IllegalMove` if the table is not waiting for that machine."""
        table = self._table()
        if table.machine_of(self.seat) == person:
            raise IllegalMove("a seat cannot go on without itself", self.seat)
        refusal = "the table has stopped" if self.stopped else table.go_on_refusal(person)
        if refusal is not None:
            raise IllegalMove(refusal, self.seat)
        away = self.away_for(person)
        who = table.names[person]
        if away is None:
            raise IllegalMove(f"{who} is still connected: they are thinking, not gone", self.seat)
        if away < self.away_after:
            raise IllegalMove(f"{who} has been out of reach for {away:.0f} s only; a machine is away "
                              f"after {self.away_after:.0f} s", self.seat)  # or silent, connected
        if not self.away.agree((person, len(self.log), table.last_hash), self._now):
            return  # agreed already
        self._send_agreement()
        self._maybe_go_on()

    def agreed(self) -> dict[int, tuple[int, ...]]:
        """For the current position: each machine that players agreed to go on without, and
        who agreed (for a screen to show)."""
        return self.away.at(len(self.log))

    def _send_agreement(self) -> None:
        table = self.table
        position = self.away.agreed
        if position is None or table is None or table.run_by[self.seat] is not None:
            return  # a bot's machine speaks for it
        person, seq, prev_hash = position
        signature = sign(self.identity, Domain.AGREEMENT, away_message(table.game_id, seq, prev_hash, person))
        self.away.add(position, self.seat, signature)
        self._outbox.append((None, encode_agreement(Agreement(person, seq, prev_hash, self.seat, signature))))

    def _heard_agreement(self, agreement: Agreement, sender: int | None) -> None:
        table = self.table
        if table is None:
            return
        person, seq, prev_hash = agreement.person, agreement.seq, agreement.prev_hash
        signer, signature = agreement.signer, agreement.signature
        if seq != len(self.log) or prev_hash != table.last_hash:
            return  # for another position: stale, or this peer is behind (it is sent again)
        if not (person < table.players and signer < table.players
                and table.run_by[signer] is None and signer != person):
            self.faults.append(Fault(sender, None, "an agreement to go on from a seat that cannot give one"))
            return
        if not verify(table.verifiers[signer], Domain.AGREEMENT,
                      away_message(table.game_id, seq, prev_hash, person), signature):
            self.faults.append(Fault(sender, None, "an agreement to go on whose signature does not verify"))
            return
        self.away.add((person, seq, prev_hash), signer, signature)
        self._maybe_go_on()

    def _maybe_go_on(self) -> None:
        """The runner writes the away entry once every player has agreed."""
        table = self.table
        position = self.away.agreed
        if position is None or table is None or self.stopped:
            return
        person, seq, _prev = position
        if seq != len(self.log) or table.runner_for(person) != self.seat:
            return
        agreements = self.away.complete(table.consenters(person))
        if agreements is None:
            return
        delegates = []
        for seat in table.away_group(person):
            key = Ed25519PrivateKey.from_private_bytes(self.rng_bytes(32))
            self.delegated[seat] = key  # before the entry: its log hook may save the key first
            delegates.append((seat, public_bytes(key)))
        try:
            self._write("away", AwayBody(person, tuple(delegates), agreements).to_wire())
        except OwnEntryRefused as err:
            # Nothing was sent: the agreement stands, but this peer cannot write the entry.
            self.faults.append(Fault(None, seq, f"this seat's away entry was refused: {err}"))
            self.away.withdraw()
            for taken, _key in delegates:
                self.delegated.pop(taken, None)

    def _left_behind(self, away: Entry, now: float) -> bool:
        """The others went on without a machine at a position where this log holds only entries
        of that machine's seats (which every player who agreed held back: nobody who agreed
        built on them): if ``away`` checks at that position, cut the log back and take it.

        Above all this is the machine left behind itself: it then follows the game without
        writing; a bot under a new key has its seat. It is also any other peer that took those
        entries though the away entry did not need its agreement, or had it: a bot that plays
        no more but still runs on that machine (it hears the machine's entries first, in the
        same process), or a player who agreed and was then passed the late entry by a
        consenter who had agreed too (§4.13, A70). The away entry carries every player's
        agreement for this very position, so every honest player is on its side."""
        seq = away.seq
        if self.stopped or seq == 0 or self.table is None:
            return False
        try:
            person = AwayBody.from_wire(away.body).person
        except WireError:
            return False  # not an away entry at all: the fold refuses it
        try:
            # The fold before ``seq`` again: entries this peer checked when they came, so
            # refolded as the audit folds (each hand checked at its end), then a peer's again.
            table = fold(None, self.log[0], defer_proofs=True)
            for entry in self.log[1:seq]:
                table = table.apply(entry)
        except ProtocolViolation:
            return False
        # The group of ``person`` as the away entry takes it (a `back` among the dropped entries
        # may have given a seat of that group back to its own machine since).
        if any(table.machine_of(e.author) != person for e in self.log[seq:]):
            return False  # somebody else built on those entries: not this case
        try:
            table = table.checking_on_arrival().apply(away)
        except ProtocolViolation:
            return False
        self.hooks.rolled_back(seq)
        del self.log[seq:]
        self._buffer.clear()
        self.away.withdraw()
        self.table = table
        self.log.append(away)
        self.away.moved(len(self.log))
        self.hooks.entry_added(away)
        self._outbox.append((None, encode_entry_message(away.raw)))
        self._progress_at = now
        self.overdue = None
        return True

    def _own_tail(self) -> int:
        """Where the run of this machine's own entries at the end of its log begins (the log's
        length if the last entry is another machine's): the entries that, if the others went
        on without this machine, nobody else has."""
        table = self.table
        if table is None:
            return len(self.log)
        mine = table.machine_of(self.seat)
        start = len(self.log)
        while start > 1 and table.machine_of(self.log[start - 1].author) == mine:
            start -= 1
        return start

    def _of_this_machine(self, seat: int) -> bool:
        """True if ``seat`` is written by this machine (its player's seat or one of its bots'),
        as far as this log knows: the only seats whose keys the others can change without this
        machine hearing of it (by going on without it)."""
        table = self.table
        return table is not None and table.machine_of(seat) == table.machine_of(self.seat)

    # ------------------------------------------------------------------- coming back

    def _ask_back(self, now: float) -> None:
        """If the table went on without this machine and this is its player's own seat, ask
        every seat to let it take its seats back (signed; sent again until it is written)."""
        table = self.table
        if (table is None or self.stopped or self.finished or table.keys[self.seat] != self._public
                or table.sit_downs[self.seat].run_by is not None or len(self.log) <= self._signed_through):
            return  # (never at a position its key signed before the others went on)
        taken = table.taken_from(self.seat)
        if taken is None:
            return
        self._asked_back_at = now
        signature = sign(self.identity, Domain.RETURN, return_message(table.game_id, self.seat, taken.seq))
        request = BackBody(self.seat, taken.seq, signature)
        self._outbox.append((None, encode_back(request)))

    def _heard_back(self, request: BackBody, sender: int | None) -> None:
        table = self.table
        if table is None:
            return
        taken = table.taken_from(request.person) if request.person < table.players else None
        if taken is None or taken.seq != request.away:
            return  # stale (the seat is back already, or was taken again since): nothing to do
        if not table.return_signed(request.person, request.away, request.signature):
            self.faults.append(Fault(sender, None, "a request to come back whose signature does not verify"))
            return
        requests = self.away.back_requests
        if requests.get(request.person) != (request.away, request.signature):
            requests[request.person] = (request.away, request.signature)
            # Passed on once: the seat that writes the next hand's first key may be a bot that
            # only hears what its machine passes on.
            self._outbox.append((None, encode_back(request)))
        self._act()

    def _due_back(self, table: TableState) -> BackBody | None:
        """The ``back`` entry this seat writes now, if it is to write the next hand's first key
        and a machine asked to come back (§4.14)."""
        requests = self.away.back_requests
        for person, (away, signature) in sorted(requests.items()):
            if table.taken_from(person) is None:
                del requests[person]
            elif table.return_not_due(person, away) is None:  # (its signature checked on arrival)
                return BackBody(person, away, signature)
        return None

    def _withdraw(self) -> None:
        """Going on cannot happen: take back the entries held for it."""
        for raw, sender in self.away.withdraw():
            self._offer(raw, sender, self._now)

    # ----------------------------------------------------------------- sync and folding

    def _table(self) -> TableState:
        if self.table is None:
            raise ProtocolError("no table yet: the first entry has not arrived")
        return self.table

    def _offer(self, raw: bytes, sender: int | None, now: float) -> None:
        """An entry from the wire (or held back and withdrawn): checked on arrival, then
        buffered beyond the end of the log, held for going on, or accepted (§6.3)."""
        entry = self._fresh(raw, sender)
        if entry is None:
            return
        go_on, key = self._checked_on_arrival(entry, sender, now)
        if not go_on or self.stopped:
            return
        if entry.seq > len(self.log):
            self._buffer_ahead(entry, sender, key)
            return
        if self._held_for_going_on(entry, raw, sender, now):
            return
        self._accept(entry, sender, key)
        self._take_buffered(now)
        self._progress_at = now
        self.overdue = None

    def _fresh(self, raw: bytes, sender: int | None) -> Entry | None:
        """The entry ``raw`` parsed, or None for bytes that are not one (the sender's fault)
        and for a copy of an entry this peer holds already."""
        try:
            entry = parse_entry(raw)
        except BadEntry as err:
            self.faults.append(Fault(sender, None, f"malformed entry: {err}"))
            return None
        if entry.seq < len(self.log) and self.log[entry.seq].hash == entry.hash:
            return None  # a duplicate (every entry is relayed by every peer): no need to verify it
        if entry.hash in self._buffer.get(entry.seq, {}):
            return None  # a copy of an entry already checked and waiting for its turn
        return entry

    def _checked_on_arrival(self, entry: Entry, sender: int | None,
                            now: float) -> tuple[bool, Ed25519PublicKey | None]:
        """Whether ``entry`` goes on to be buffered or accepted, and the key its signature was
        checked with (None before the table entry). An entry for a filled position is dealt
        with here (``_offer_filled``)."""
        if self.table is None:
            # Nothing can be checked before the table entry; the others are fetched again later.
            return entry.seq == 0, None
        table = self.table
        if entry.game_id != table.game_id:
            self.faults.append(Fault(sender, entry.seq, "an entry of another game"))
            return False, None
        if entry.author >= table.players:
            self.faults.append(Fault(sender, entry.seq, "an entry by a seat this table does not have"))
            return False, None
        if entry.seq < len(self.log):
            self._offer_filled(entry, sender, now)
            return False, None
        # The one signature check of an entry from the wire; the fold is told it was made.
        key = table.verifiers[entry.author]
        if entry.verify(key):
            return True, key
        if self._own_tail() < len(self.log) and self._of_this_machine(entry.author):
            # This machine's own entries end its log, and the entry is for one of its
            # seats: the others may have gone on without it, under a key it does not
            # know yet (a bot's for its seat). The away entry that says so is where its
            # own entries begin: ask from there. (Another machine's seat keeps its key,
            # so an entry of its that does not verify is still its sender's fault.)
            self._outbox.append((sender, encode_want(self._own_tail())))
        elif not self._signed_before_a_key_change(entry, table):
            self.faults.append(Fault(sender, entry.seq, "an entry whose signature does not verify"))
        return False, None

    def _buffer_ahead(self, entry: Entry, sender: int | None, key: Ed25519PublicKey | None) -> None:
        """Keep an entry beyond the end of the log until its turn (§6.5)."""
        if entry.seq - len(self.log) > BUFFER_LIMIT:
            self.faults.append(Fault(sender, entry.seq, "an entry far beyond the end of the log"))
            return
        # Two entries by one author for one position beyond the log are both kept (at most
        # two under one key): whether they prove an equivocation depends on the key that
        # position's author signs with, known only when the log reaches it (§6.5).
        waiting = self._buffer.setdefault(entry.seq, {})
        if sum(1 for other, _, held in waiting.values()
               if other.author == entry.author and held is key) < 2:
            waiting[entry.hash] = (entry, sender, key)

    def _held_for_going_on(self, entry: Entry, raw: bytes, sender: int | None, now: float) -> bool:
        """True when the next entry is held back, or was offered again, because of an
        agreement to go on without a machine (§4.13); False when it is to be accepted."""
        if self.table is None or entry.kind == "away":
            return False
        table = self.table
        held = self.away.holds_back(entry.seq, table.machine_of(entry.author),
                                    None if sender is None else table.machine_of(sender),
                                    table.machine_of(self.seat))
        if held:
            self.away.hold(raw, sender)  # agreed to go on without its machine
            return True
        if held is False:
            # A player who did not agree took it, so that player never will agree: going
            # on cannot happen at this position (§4.13, the safety rule).
            self._withdraw()
            self._offer(raw, sender, now)
            return True
        return False

    def _take_buffered(self, now: float) -> None:
        """Apply the buffered entries for the positions that follow the log, in turn (§6.5).
        At each position the first candidate that is accepted wins; the others are then offered
        against it like any entry for a filled position (an equivocation is found there, under
        the key that position's author signs with, and an entry signed with a key its seat no
        longer holds is dropped)."""
        while not self.stopped and len(self.log) in self._buffer:
            seq = len(self.log)
            candidates = list(self._buffer.pop(seq).values())
            left: list[tuple[Entry, int | None]] = []
            for candidate, delivered_by, checked_with in candidates:
                table = self.table
                if len(self.log) > seq:
                    left.append((candidate, delivered_by))
                elif (table is not None and checked_with is not table.verifiers[candidate.author]
                        and not candidate.verify(table.verifiers[candidate.author])):
                    left.append((candidate, delivered_by))  # its seat's key changed since it came
                else:
                    self._accept(candidate, delivered_by, checked_with)
            if len(self.log) <= seq:
                return  # nothing could be taken: the entries stay dropped, fetched again by want
            for candidate, delivered_by in left:
                self._offer_filled(candidate, delivered_by, now)

    def _offer_filled(self, entry: Entry, sender: int | None, now: float) -> None:
        """An entry, not the one held, for a position this log has filled (§6.3 step 3).

        Equivocation is two different entries for one position under one key: the key that
        position's author signs with (the one the held entry was checked with, if it is the
        author's). An entry that verifies only under another key its seat has held (its own
        key after the others went on without its machine, a bot's key for a position before
        the bot had the seat) is not that seat's entry for this position: it is dropped and
        nobody is blamed."""
        table = self.table
        assert table is not None  # a filled position: the log has its table entry
        mine = self.log[entry.seq]
        if entry.verify(table.verifier_at(entry.author, entry.seq)):
            if mine.author == entry.author:
                self._equivocate(mine, entry)
            elif entry.kind == "away" and self._left_behind(entry, now):
                pass
            elif entry.seq >= self._own_tail():
                # The others wrote on at a position where this log holds only this machine's
                # own entries: they went on without it (while it was cut off or asleep). That
                # is nobody's fault; the away entry that explains it sits where this machine's
                # own entries begin, so ask for the log from there (``_left_behind`` then takes it).
                self._outbox.append((sender, encode_want(self._own_tail())))
            elif any(t.seq == entry.seq and entry.author in t.seats for t in table.takeovers):
                pass  # its machine's own late entry: the others went on without it right here
            else:
                self.faults.append(Fault(entry.author, entry.seq,
                                         "a signed entry for a position another seat wrote"))
            return
        if table.held_by(entry.author, entry):
            return  # signed by that seat, with a key it did not hold at this position: not its entry
        if entry.seq >= self._own_tail() and self._of_this_machine(entry.author):
            # Under a key this peer does not know yet for one of its own seats: the others
            # went on without this machine.
            self._outbox.append((sender, encode_want(self._own_tail())))
            return
        self.faults.append(Fault(sender, entry.seq, "an entry whose signature does not verify"))

    def _signed_before_a_key_change(self, entry: Entry, table: TableState) -> bool:
        """True for an entry whose signature this peer cannot check with the key it holds now
        for its author, through nobody's fault: one beyond the end of the log (an ``away`` or
        ``back`` entry before it may give its seat another key; it is fetched again when its
        turn comes), or one signed with a key the seat held before: a machine's own late entry
        for a position after the takeover of its seat (signed with the key the seat had: the
        others went on without it)."""
        return entry.seq > len(self.log) or table.held_by(entry.author, entry)

    def _equivocate(self, first: Entry, second: Entry) -> None:
        if self.equivocation is not None:
            return
        self.equivocation = (first, second)
        self.evidence = [first.raw, second.raw]
        self.faults.append(Fault(first.author, first.seq, "two different entries signed for one position"))
        # Pass both on, so that every peer holds the evidence and freezes, not only this one.
        for twin in (first, second):
            self._outbox.append((None, encode_entry_message(twin.raw)))

    def _accept(self, entry: Entry, sender: int | None, verified_by: Ed25519PublicKey | None = None,
                own: bool = False) -> bool:
        if self.table is not None and entry.seq == self.table.seq and entry.prev_hash != self.table.last_hash:
            # The entry builds on another entry than ours at the previous position: either its
            # author forked, or the previous writer equivocated and this peer holds the other
            # twin, and then the author is honest. Blaming it now could blame the wrong seat, so
            # fetch the previous position again: a twin proves the equivocation (``_offer``); an
            # author that really forked stays the seat everybody waits for (``overdue``).
            self._outbox.append((None, encode_want(entry.seq - 1)))
            return False
        try:
            table = fold(self.table, entry, verified_by=verified_by)
            if self.table is None and (self.seat >= table.players
                                       or table.keys[self.seat] != public_bytes(self.identity)):
                raise ProtocolViolation(None, 0, f"the table entry does not seat this peer's key at "
                                        f"seat {self.seat + 1}")
            if (self.table is None and self.own_sit_down is not None
                    and table.sit_downs[self.seat].terms != self.own_sit_down.terms):
                raise ProtocolViolation(0, 0, f"the table entry does not carry the sit-down seat "
                                        f"{self.seat + 1} signed for this table")
        except ProtocolViolation as err:
            blame = err.seat if err.seat is not None else sender
            seq = err.seq if err.seq is not None else entry.seq  # the entry convicted
            if own and seq >= entry.seq:
                # This peer's own entry, refused before it was kept or sent: a refusal for the
                # caller to show, never a violation of its own seat.
                raise OwnEntryRefused(err.reason, self.seat) from None
            self.faults.append(Fault(blame, seq, err.reason))
            if err.seat is None:
                return False
            self.violation = err
            self.evidence = [entry.raw]
            # Pass the signed evidence on: every peer then finds the violation for itself.
            self._outbox.append((None, encode_entry_message(entry.raw)))
            if seq >= entry.seq:
                return False
            # The check this entry made possible (a shuffle against the seed it reveals, or the
            # end-of-hand check) convicts an EARLIER entry (a shuffle, a false claim); this
            # entry itself is sound. Keep and relay it as evidence:
            # otherwise the seat that wrote it would have its own honest reveal refused, nobody
            # else would run the check, and they would end up blaming that seat as overdue.
            # The fold stays before the entry: the hand cannot be scored, the peer is frozen.
            assert self.table is not None
            table = self.table
        self.log.append(entry)
        self.table = table
        self.away.moved(len(self.log))  # the table moved on (without that machine, or with it)
        self.hooks.entry_added(entry)
        self._outbox.append((None, encode_entry_message(entry.raw)))
        return True

    def _write(self, kind: str, body: Any) -> None:
        table = self._table()
        entry = make_entry(self.identity, table.game_id, len(self.log), table.last_hash, self.seat,
                           kind, body)
        self._accept(entry, self.seat, own=True)
        self._signed_through = max(self._signed_through, entry.seq)

    def _act(self) -> None:
        """Write every entry that is this seat's to write, until another seat is due. A refusal
        of its own entry (a bug, or a bot's illegal move) is noted and stops it: never raised
        into the driver."""
        try:
            self._write_due()
        except OwnEntryRefused as err:
            self.faults.append(Fault(None, len(self.log), f"this seat's own entry was refused: {err}"))

    def _write_due(self) -> None:
        while self.table is not None and not self.stopped:
            table = self.table
            expect = table.expected()
            if expect is None or expect.seat != self.seat:
                return
            if not self.plays_its_seat:
                return  # the others went on without this machine: a bot has this seat now
            back = self._due_back(table)
            if back is not None:
                self._write("back", back.to_wire())
                continue
            if expect.kind == "move":
                view = self.view()
                move = self._exposing_move(table, view)
                if move is None:
                    if self.player is None:
                        return
                    move = self.player(view, self.seat, self.rng)
                self._write("move", self.build_move(table, move))
                continue
            builder = {"key": self.build_key, "shuffle": self.build_shuffle,
                       "tokens": self.build_tokens, "reveal": self.build_reveal}[expect.kind]
            self._write(expect.kind, builder(table))

    def _exposing_move(self, table: TableState, view: GameState) -> SeatEvent | None:
        """The move that exposes a broken shuffle when this seat's own hand proves one.

        A hidden card of this hand that opens to no card, or to a card that cannot be there
        (already elsewhere, or twice in this hand), can only come from a shuffle that broke the
        rules. Only this seat can see it, and no player can play such a hand (a bot would crash
        on it). Playing the card, after drawing as the rules require, opens it for everybody:
        the table stops the hand (a dispute) and the reveal names the shuffler. A card held
        twice is discarded once; the second copy then clashes in public.
        """
        engine = table.engine
        hidden = [s for s in engine.hands[self.seat] if s not in view.known]
        if not hidden or engine.stage not in ("draw", "play"):
            return None
        if engine.stage == "draw":
            return DrawStock(self.seat) if engine.stock else TakeDiscard(self.seat)
        held: set[int] = set()
        twice: Discard | None = None
        for slot in hidden:
            card = self._private.get(slot)
            if card is None:
                return Discard(self.seat, slot, 0)  # opens to no card: a dispute
            if engine.clash(slot, card) is not None:
                return Discard(self.seat, slot, card)  # a card that is elsewhere: a dispute
            if card in held and twice is None:
                targets = engine.skip_targets(self.seat) if is_skip(card) else ()
                twice = Discard(self.seat, slot, card, targets[0] if targets else None)
            held.add(card)
        return twice

    # ------------------------------------------------------- the bodies this seat writes
    # Each is a method so that a test can subclass a peer into a cheat.

    def _hand_secrets(self, table: TableState) -> HandSecrets:
        number = table.hand.number if table.hand is not None else table.hands_started
        secrets = self.secrets.get(number)
        if secrets is None:
            secrets = HandSecrets(number, random_scalar(self.rng_bytes), new_seed(self.rng_bytes))
            self.secrets[number] = secrets
            self.hooks.secret_made(secrets)  # stored before anything that depends on it is sent
        return secrets

    def _current(self, table: TableState) -> HandCrypto:
        if table.hand is None:
            raise ProtocolError("no hand is under way")
        return table.hand

    def build_key(self, table: TableState) -> list[Any]:
        """``[hand, P, Schnorr proof, seed commitment]``."""
        s = self._hand_secrets(table)
        proof = prove_knowledge(s.secret, key_context(table.game_id, s.hand, self.seat), self.rng_bytes)
        return KeyBody(s.hand, base_mul(s.secret).to_bytes(), proof.to_bytes(),
                       commit_seed(s.seed, seed_context(table.game_id, s.hand, self.seat))).to_wire()

    def build_shuffle(self, table: TableState) -> list[Any]:
        """``[hand, round, deck, proof]``: the current deck permuted and re-randomised by the seed,
        with the proof of shuffle every peer checks before any card of it is opened."""
        hand = self._current(table)
        s = self._hand_secrets(table)
        assert hand.joint is not None
        if hand.stage == "play":
            _first, _end, pool = table.engine.apply(Reshuffle()).pools[-1]
            round_no, before = len(hand.rounds), initial_deck(sorted(pool))
        else:
            round_no, before = len(hand.rounds) - 1, hand.rounds[-1].final
        context = shuffle_context(table.game_id, hand.number, round_no, self.seat)
        deck, proof = shuffle_and_prove(before, s.seed, hand.joint, context)
        cards = b"".join(c.to_bytes() for c in deck)
        return ShuffleBody(hand.number, round_no, cards, proof.to_bytes()).to_wire()

    def _token_items(self, table: TableState, slots: list[int] | tuple[int, ...]) -> tuple[TokenItem, ...]:
        hand = self._current(table)
        s = self._hand_secrets(table)
        items = []
        for slot in slots:
            a = hand.ciphertext(slot).a
            proof = prove_equal_logs(s.secret, a, token_context(table.game_id, hand.number, slot, self.seat),
                                     self.rng_bytes)
            items.append(TokenItem(slot, token(s.secret, a).to_bytes(), proof.to_bytes()))
        return tuple(items)

    def build_tokens(self, table: TableState) -> list[Any]:
        """``[hand, [[slot, token, proof], ...]]`` for the deal or for another seat's draw."""
        hand = self._current(table)
        if hand.stage == "deal_tokens":
            slots: tuple[int, ...] = table.deal_token_slots(self.seat)
        else:
            assert hand.draw is not None
            slots = (hand.draw[0],)
        return TokensBody(hand.number, self._token_items(table, slots)).to_wire()

    def build_move(self, table: TableState, move: SeatEvent) -> list[Any]:
        """The body of a move; a card played from the hand carries this seat's token."""
        number = self._current(table).number
        known = table.engine.known

        def tokens(slots: list[int]) -> tuple[TokenItem, ...]:
            return self._token_items(table, sorted(s for s in slots if s not in known))

        body: MoveBody
        if isinstance(move, DrawStock):
            body = MoveBody(number, "draw")
        elif isinstance(move, TakeDiscard):
            body = MoveBody(number, "take")
        elif isinstance(move, LayDown):
            body = MoveBody(number, "lay", phase=move.phase,
                            melds=tuple(WireMeld(m.slots, m.label) for m in move.melds),
                            tokens=tokens([s for m in move.melds for s in m.slots]))
        elif isinstance(move, Hit):
            body = MoveBody(number, "hit", slot=move.slot, meld=move.meld, end=move.end,
                            tokens=tokens([move.slot]))
        elif isinstance(move, Discard):
            body = MoveBody(number, "discard", slot=move.slot, target=move.target, tokens=tokens([move.slot]))
        else:
            raise IllegalMove(f"a {type(move).__name__} is not a move")
        return body.to_wire()

    def build_reveal(self, table: TableState) -> list[Any]:
        """``[hand, secret, seed, cards held, points]``."""
        s = self._hand_secrets(table)
        held = sorted(self.view().hand_cards(self.seat))
        owed = sum(points(c) for c in held)
        return RevealBody(s.hand, s.secret.to_bytes(), s.seed, tuple(held), owed).to_wire()


def identity_bytes(key: Ed25519PrivateKey) -> bytes:
    """A peer's public identity (its Ed25519 public key)."""
    return public_bytes(key)


def parse_saved(records: Sequence[bytes]) -> list[Entry]:
    """The entries of a saved log, parsed from its records as stored; :class:`SavedFileError`
    naming the first that does not parse."""
    entries = []
    for index, raw in enumerate(records):
        try:
            entries.append(parse_entry(raw))
        except BadEntry as err:
            raise SavedFileError(f"entry {index} of the saved log does not check: {err}") from None
    return entries


def check_saved(entries: Sequence[Entry], since: TableState | None = None) -> TableState | None:
    """A peer's own saved log folded and checked again, as :meth:`Peer.restore` needs it: the
    state after ``entries``, checking every proof on arrival from there on (None for an empty
    log). Every seat of one machine restores from the same public fold, so it is made once.

    ``since``: a state this machine checked before over the first ``since.seq`` of
    ``entries`` (a checkpoint, see ``protocol.checkpoint``); only the entries after it are
    folded. From the start or from between two hands, the entries are folded as the audit
    folds them, each hand checked with its revealed secrets at its end, and the hand under way
    where the log ends checked through its proofs; from the middle of a hand, on arrival, as
    the peer that saved the checkpoint went on folding them. Either way the verdict is the one
    a peer reached when the entries came.

    Raises :class:`SavedFileError` naming the first entry that does not check."""
    table = since
    start = 0 if since is None else since.seq
    if since is not None and (start > len(entries) or entries[start - 1].hash != since.last_hash):
        raise SavedFileError("the checkpoint does not cover the saved log")  # a caller's bug
    deferring = since is None or since.hand is None
    if since is not None and deferring and start < len(entries):
        table = since.deferring()
    for index in range(start, len(entries)):
        try:
            table = fold(table, entries[index], defer_proofs=deferring)
        except ProtocolError as err:
            raise SavedFileError(f"entry {index} of the saved log does not check: {err}") from None
    if table is not None and table.defer_proofs:
        try:
            table = table.checking_on_arrival()
        except ProtocolError as err:
            raise SavedFileError(f"the saved log does not check: {err}") from None
    return table


def _published_keys(entries: Sequence[Entry], table: TableState | None, seat: int,
                    own: bytes) -> dict[int, tuple[int, bytes, bytes]]:
    """By hand, the hand key that ``seat`` published under the key ``own`` in a checked log
    (whose fold is ``table``): the entry's position, the key and its seed commitment. A hand
    dealt again (after an ``away`` entry) keeps the last one."""
    published: dict[int, tuple[int, bytes, bytes]] = {}
    if table is None:
        return published
    for entry in entries:
        if (entry.kind == "key" and entry.author == seat
                and table.verifier_at(seat, entry.seq).public_bytes_raw() == own):
            body = decode_body("key", entry.body)  # (it checked: it is a key body)
            assert isinstance(body, KeyBody)
            published[body.hand] = (entry.seq, body.key, body.commitment)
    return published
