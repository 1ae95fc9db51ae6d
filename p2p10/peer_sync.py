"""A peer's sync: every entry from the wire checked on arrival, kept for its turn, held while
going on is agreed, or accepted into the log and folded; an entry for a filled position checked
for equivocation; what a fork or a bad entry makes the peer do and whom it blames (PROTOCOL 6.3
to 6.5)."""

from __future__ import annotations

from p2p10.errors import ProtocolViolation
from p2p10.log import BadEntry, Entry, parse_entry, public_bytes
from p2p10.peer_away import PeerAway
from p2p10.peer_parts import Fault, OwnEntryRefused
from p2p10.primitives import Ed25519PublicKey
from p2p10.table import TableState, fold
from p2p10.wire import encode_entry_message, encode_want

# The most positions beyond the end of its log a peer keeps entries for (PROTOCOL 6.5).
BUFFER_LIMIT = 4096


class PeerSync(PeerAway):
    """A peer's sync and folding of the entries it receives."""

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
