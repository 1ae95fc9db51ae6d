"""Going on without a machine that stays away and taking seats back when it returns, as a peer
does it (PROTOCOL 4.13 and 4.14): agreements sent and heard, the away entry written by the
runner, a machine left behind finding out, and the request to come back. The fold's side is
p2p10.table_away."""

from __future__ import annotations

from p2p10.errors import IllegalMove, ProtocolViolation
from p2p10.hand_crypto import (
    away_message,
    return_message,
)
from p2p10.log import Entry, public_bytes
from p2p10.peer_parts import Fault, OwnEntryRefused
from p2p10.peer_writing import SeatWriting
from p2p10.primitives import Ed25519PrivateKey
from p2p10.signing import Domain, sign, verify
from p2p10.table import TableState, fold
from p2p10.wire import (
    Agreement,
    AwayBody,
    BackBody,
    WireError,
    encode_agreement,
    encode_back,
    encode_entry_message,
)


class PeerAway(SeatWriting):
    """A peer's part in going on without a machine and in its coming back."""

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
