"""What a table's state says, read without changing it: who plays which seat and for which
machine, which key signs for a seat where, whose entry is expected, who may go on without whom
or come back, and each seat's view of the game. The fold that makes the state is p2p10.table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

from p2p10 import deferred
from p2p10.crypto.elgamal import open_card, token
from p2p10.crypto.group import NotACard, Scalar
from p2p10.engine import GameState
from p2p10.errors import IllegalMove
from p2p10.events import (
    Reveal,
    SitOut,
)
from p2p10.game_fields import HAND_SIZE
from p2p10.hand_crypto import (
    Expect,
    HandCrypto,
    return_message,
    slot_owner,
)
from p2p10.log import Entry, public_key
from p2p10.primitives import Ed25519PublicKey
from p2p10.rules import RuleSet
from p2p10.signing import Domain, verify
from p2p10.sitdown import SitDown


@dataclass(frozen=True, slots=True)
class Takeover:
    """The table went on without ``person``'s machine at the ``away`` entry ``seq``: the
    ``seats`` of that machine are played from then on by ``runner``'s machine, as every seat
    of ``agreed_by`` (the runner, who wrote the entry, and every cosigner) agreed. The hand
    voided (and dealt again without them) is on row ``hand`` of the score sheet (0-based)."""

    person: int
    seats: tuple[int, ...]
    seq: int
    runner: int
    agreed_by: tuple[int, ...]
    hand: int


@dataclass(frozen=True, slots=True)
class Return:
    """``person``'s machine took its ``seats`` back at the ``back`` entry ``seq``, undoing the
    takeover at the ``away`` entry ``away``; it plays them again from the hand on row ``hand``
    of the score sheet (0-based)."""

    person: int
    seats: tuple[int, ...]
    seq: int
    away: int
    hand: int


class TableReading:
    """A table's state (its fields, kept by :class:`~p2p10.table.TableState`) and what it says.
    Treat it as immutable."""

    __slots__ = ("deal_engine", "defer_proofs", "engine", "every_proof", "game_id", "given_names", "hand",
                 "hands_started", "keys", "last_hash", "names", "postpone", "postponed", "returns",
                 "rules", "run_by", "seq", "signers", "signing_keys", "sit_downs", "table_id",
                 "takeovers", "verifiers")

    game_id: bytes
    table_id: bytes
    sit_downs: tuple[SitDown, ...]
    names: tuple[str, ...]
    given_names: tuple[str, ...]
    run_by: tuple[int | None, ...]
    signing_keys: tuple[bytes, ...]
    deal_engine: GameState | None
    keys: tuple[bytes, ...]
    verifiers: tuple[Ed25519PublicKey, ...]
    signers: tuple[tuple[int, tuple[Ed25519PublicKey, ...]], ...]
    rules: RuleSet
    seq: int
    last_hash: bytes
    engine: GameState
    hand: HandCrypto | None
    hands_started: int
    takeovers: tuple[Takeover, ...]
    returns: tuple[Return, ...]
    defer_proofs: bool
    every_proof: bool
    postpone: bool
    postponed: tuple[deferred.Job, ...]

    def _labels(self) -> tuple[str, ...]:
        # A bot's name carries whose it is, in every view, replay and audit.
        names = self.given_names
        return tuple(name if owner is None else f"{name} ({names[owner]}'s bot)"
                     for name, owner in zip(names, self.run_by, strict=True))

    def machine_of(self, seat: int) -> int:
        """The seat of the player whose machine writes for ``seat`` (itself, or its bot's runner)."""
        owner = self.run_by[seat]
        return seat if owner is None else owner

    def away_group(self, person: int) -> tuple[int, ...]:
        """The seats that go when ``person``'s machine goes: its own and its bots'."""
        return tuple(s for s in range(self.players) if self.machine_of(s) == person)

    def runner_for(self, person: int) -> int | None:
        """Who takes over ``person``'s seats as bots if the others go on without that machine:
        the lowest other seat with a player of its own (None if there is none)."""
        return next((s for s in range(self.players) if s != person and self.run_by[s] is None), None)

    def consenters(self, person: int) -> tuple[int, ...]:
        """Whose signed agreement, besides the runner's own entry, going on without ``person``
        needs: every other player, in seat order."""
        runner = self.runner_for(person)
        return tuple(s for s in range(self.players)
                     if s not in (person, runner) and self.run_by[s] is None)

    def home_seats(self, person: int) -> tuple[int, ...]:
        """The seats ``person``'s machine sat down with: its own and the bots it brought."""
        return tuple(s for s in range(self.players)
                     if s == person or self.sit_downs[s].run_by == person)

    def verifier_at(self, seat: int, seq: int) -> Ed25519PublicKey:
        """The key that signs ``seat``'s entry at position ``seq`` of this log: the seat's key
        in the fold just before that entry (an ``away`` or ``back`` entry changes it from the
        entry after it). For a position not yet reached, the key it has now."""
        key = self.signers[0][1][seat]
        for start, keys in self.signers:
            if start > seq:
                break
            key = keys[seat]
        return key

    def held_by(self, seat: int, entry: Entry) -> bool:
        """True if ``entry`` verifies under some key ``seat`` has signed with at this table (its
        sit-down's, a bot's delegate key, ...), whichever position it was for: an entry signed
        by the seat, though perhaps not for the position it claims."""
        seen: set[bytes] = set()
        for _start, keys in self.signers:
            raw = keys[seat].public_bytes_raw()
            if raw not in seen:
                seen.add(raw)
                if entry.verify(keys[seat]):
                    return True
        return False

    def taken_from(self, person: int) -> Takeover | None:
        """The takeover that holds ``person``'s own seat now, if the table went on without its
        machine and it has not come back (the latest ``away`` entry naming that seat)."""
        if self.signing_keys[person] == self.keys[person]:
            return None
        return next((t for t in reversed(self.takeovers) if person in t.seats), None)

    def return_signed(self, person: int, away: int, signature: bytes) -> bool:
        """True if ``signature`` is ``person``'s own request to undo the takeover at the
        ``away`` entry ``away`` (signed with the key of its sit-down)."""
        return (0 <= person < self.players
                and verify(public_key(self.keys[person]), Domain.RETURN,
                           return_message(self.game_id, person, away), signature))

    def return_refusal(self, person: int, away: int, signature: bytes) -> str | None:
        """Why ``person``'s signed request to take its seats back (undoing the takeover at the
        ``away`` entry ``away``) cannot be written now, or None if it can: it must be due now
        (:meth:`return_not_due`) and signed by the seat's own key."""
        refusal = self.return_not_due(person, away)
        if refusal is None and not self.return_signed(person, away, signature):
            return f"{self.name(person)}'s request to come back does not verify"
        return refusal

    def return_not_due(self, person: int, away: int) -> str | None:
        """Why a request of ``person``'s to undo the takeover at the ``away`` entry ``away``
        cannot be written now, its signature aside (a peer checks that once, on arrival), or
        None if it can: it names the takeover that holds the seat, and takes effect only
        between hands, once the seat is dealt in again (not in the voided hand's replay)."""
        if not 0 <= person < self.players or self.sit_downs[person].run_by is not None:
            return "only a player's own machine can come back"
        taken = self.taken_from(person)
        if taken is None:
            return f"{self.name(person)} has not been taken over"
        if taken.seq != away:
            return (f"the request names entry {away}, but {self.name(person)} was taken over at "
                    f"entry {taken.seq}")
        if self.hand is not None or self.expected() is None:
            return "a machine comes back only between hands"
        if set(self.home_seats(person)) & self.engine.sitting_out:
            return "a machine comes back only once its seats are dealt in again"
        return None

    def go_on_refusal(self, person: int) -> str | None:
        """Why the table cannot go on without ``person``'s machine now, or None if it can
        (whatever the liveness of that machine, which only a peer knows)."""
        if self.expected() is None:
            return "the game is over"
        if self.awaited_machine() != person:
            return "the table is not waiting for that player"
        if self.runner_for(person) is None:
            return "nobody with a player of their own is left to go on"
        base = self.engine if self.engine.stage == "deal" else self.deal_engine
        if base is None:
            return "the table cannot go on here"
        try:
            for seat in self.away_group(person):
                base = base.apply(SitOut(seat))
        except IllegalMove as err:
            return str(err)
        return None

    def awaited_machine(self) -> int | None:
        """The player whose machine the table is waiting for now (None when over)."""
        expect = self.expected()
        return None if expect is None else self.machine_of(expect.seat)

    @property
    def players(self) -> int:
        """The number of seats."""
        return len(self.names)

    def name(self, seat: int) -> str:
        """A seat as players see it: its name and number."""
        return f"{self.names[seat]} (seat {seat + 1})"

    def expected(self) -> Expect | None:
        """Which seat must write the next entry, and what; None once the game is over."""
        hand = self.hand
        engine = self.engine
        if hand is None:
            if engine.awaiting().kind == "over":
                return None
            return Expect(0, "key", f"a key for hand {self.hands_started + 1}")
        stage = hand.stage
        if stage == "keys":
            return Expect(len(hand.publics), "key", f"a key for hand {hand.number + 1}")
        if stage == "shuffle":
            what = f"shuffle round {len(hand.rounds) - 1} of hand {hand.number + 1}"
            return Expect(len(hand.rounds[-1].decks), "shuffle", what)
        if stage == "deal_tokens":
            return Expect(hand.batches, "tokens", f"tokens for the deal of hand {hand.number + 1}")
        if stage == "draw_tokens":
            assert hand.draw is not None
            slot, drawer = hand.draw
            others = [s for s in range(self.players) if s != drawer]
            what = f"a token for slot {slot} drawn by {self.names[drawer]}"
            return Expect(others[hand.batches], "tokens", what)
        if stage == "reveal":
            return Expect(len(hand.claims), "reveal", f"the reveal of hand {hand.number + 1}")
        waiting = engine.awaiting()
        if waiting.kind == "move":
            assert waiting.seat is not None
            return Expect(waiting.seat, "move", "a move")
        if waiting.kind == "reshuffle":
            return Expect(0, "shuffle", f"shuffle round {len(hand.rounds)} of hand {hand.number + 1}")
        return Expect(0, "reveal", f"the reveal of hand {hand.number + 1}")

    def deal_owner(self, slot: int) -> int | None:
        """The seat a slot of the coming deal goes to (None for the first discard and the stock).
        Only meaningful before the deal is applied to the engine."""
        return slot_owner(self.engine.next_deal_order(), slot)

    def deal_token_slots(self, seat: int) -> tuple[int, ...]:
        """The slots ``seat`` publishes tokens for in the deal: all but its own, and the first up."""
        order = self.engine.next_deal_order()  # once, not once per slot
        return tuple(s for s in range(HAND_SIZE * len(order) + 1) if slot_owner(order, s) != seat)

    def private_card(self, seat: int, secret: Scalar, slot: int) -> int | None:
        """The card at ``slot`` of ``seat``'s hand, opened with ``seat``'s own secret (which
        never leaves the peer); None when it cannot be opened (a broken shuffle)."""
        hand = self.hand
        if hand is None:
            return None
        published = hand.tokens.get(slot, {})
        if any(s not in published for s in range(self.players) if s != seat):
            return None
        cipher = hand.ciphertext(slot)
        others = [published[s] for s in range(self.players) if s != seat]
        try:
            return open_card(cipher.b, [*others, token(secret, cipher.a)])
        except NotACard:
            return None

    def seat_view(self, seat: int, secret: Scalar | None,
                  cache: dict[int, int] | None = None) -> GameState:
        """The game as ``seat`` sees it: everything public plus its own hidden cards, opened
        with its hand key's ``secret`` (None: the public view). ``cache`` keeps the cards
        opened so far in this hand (slot -> card), since each costs a scalar multiplication."""
        engine = self.engine
        if secret is None or self.hand is None or engine.stage in ("deal", "over"):
            return engine
        cache = {} if cache is None else cache
        opened = []
        for slot in engine.hands[seat]:
            if slot in engine.known:
                continue
            card = cache.get(slot)
            if card is None:
                card = self.private_card(seat, secret, slot)
                if card is None:
                    continue
                cache[slot] = card
            opened.append((slot, card))
        if not opened:
            return engine
        try:
            return engine.apply(Reveal(tuple(opened)))
        except IllegalMove:
            # Only a broken shuffle can make a private card clash with the table; the reveal
            # names the shuffler. Meanwhile, the public view.
            return engine

    def _copy(self) -> Self:
        new = object.__new__(type(self))
        for name in TABLE_FIELDS:
            setattr(new, name, getattr(self, name))
        return new


# Every field of a table's state (the checkpoint checks an unpickled state has them all).
TABLE_FIELDS: tuple[str, ...] = TableReading.__slots__
