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
from collections.abc import Sequence
from typing import Any

from p2p10.cards import is_skip
from p2p10.chatroom import CHAT_KEPT as CHAT_KEPT
from p2p10.chatroom import ChatLine as ChatLine
from p2p10.chatroom import ChatRefused, ChatRoom, check_chat, sign_chat
from p2p10.chatroom import chat_text as chat_text
from p2p10.crypto.group import RandomBytes, base_mul
from p2p10.crypto.shuffle import seed_matches
from p2p10.engine import GameState
from p2p10.errors import IllegalMove, ProtocolError, ProtocolViolation, SavedFileError
from p2p10.events import Discard, DrawStock, SeatEvent, TakeDiscard
from p2p10.going_on import GoingOn
from p2p10.hand_crypto import (
    Expect,
    seed_context,
)
from p2p10.liveness import AWAY_AFTER as AWAY_AFTER
from p2p10.liveness import Links
from p2p10.liveness import Waiting as Waiting
from p2p10.log import Entry, make_entry, public_bytes
from p2p10.peer_parts import Fault, Faults, HandSecrets, Outgoing, OwnEntryRefused, PeerHooks, Player
from p2p10.peer_sync import PeerSync
from p2p10.primitives import Ed25519PrivateKey, Ed25519PublicKey
from p2p10.rules import RuleSet
from p2p10.saved_log import _published_keys, check_saved, parse_saved
from p2p10.sitdown import SitDown, sign_sit_down
from p2p10.table import TableState
from p2p10.wire import AGREE as AGREE
from p2p10.wire import (
    AT_TABLE,
    LEFT,
    PRESENCE,
    READING,
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

WANT_BATCH = 256


"""The most faults a peer keeps (the first ones; the rest are counted in :attr:`Faults.dropped`)."""


class Peer(PeerSync):
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

    # ------------------------------------------------------------------- coming back

    # ----------------------------------------------------------------- sync and folding

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


