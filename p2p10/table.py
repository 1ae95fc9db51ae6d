"""The table: a pure fold of the signed move log through the dealing protocol and the rules engine.

``TableState.apply(entry)`` checks one entry completely (signature, chain, that its author is
the one seat entitled to write at this position, the body's shape, every point, scalar and
proof in it, and the move against the rules) and returns the state after it, or raises
:class:`ProtocolViolation` naming the seat to blame. Every peer, the audit and the replay fold
the same entries through this one function, so they agree by construction.

The state machine of one hand (``HandCrypto.stage``); ``expected()`` names the next writer:

    keys         each seat in seat order: its hand key, Schnorr proof, shuffle-seed commitment
    shuffle      each seat in seat order permutes and re-randomises the whole deck (round 0),
                 or the discard pile turned into a new draw pile (round 1, 2, ...)
    deal_tokens  each seat in seat order: a token for every dealt slot except its own cards,
                 and for the first discard; then the first discard is opened publicly
    play         the seat whose turn it is writes a move; a played card carries its owner's
                 token, so everybody opens it
    draw_tokens  after a draw from the stock, every other seat in seat order: its token for the
                 drawn slot (only the drawer can add the last one)
    reveal       each seat in seat order: its hand key's secret, its shuffle seed, and the hand
                 and points it claims; its shuffle steps are checked against that seed at once,
                 and after the last reveal every hand is opened, checked and scored

A card that opens to something that is not a card, or to a card already on the table, can only
come from a shuffle that broke the rules; the hand then stops (``dispute``) and goes straight to
the reveal, whose checks name the shuffler.

The engine only ever sees slots and opened cards; keys never leave this module and the peer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from p2p10 import deferred
from p2p10.cards import card_text, points
from p2p10.crypto.elgamal import Ciphertext, Deck, initial_deck, joint_key, open_card, token
from p2p10.crypto.group import NotACard, Point, Scalar, base_mul, frame
from p2p10.crypto.proofs import verify_equal_logs, verify_knowledge
from p2p10.crypto.shuffle import seed_matches, verify_shuffle
from p2p10.crypto.shuffle_proof import verify_shuffle_proof
from p2p10.engine import HAND_SIZE, MAX_PLAYERS, MIN_PLAYERS, GameState
from p2p10.errors import BadRules, IllegalMove, ProtocolError, ProtocolViolation
from p2p10.events import (
    Deal,
    Discard,
    DrawStock,
    EndHand,
    Event,
    Hit,
    LayDown,
    MeldSpec,
    Reshuffle,
    Reveal,
    SitOut,
    TakeDiscard,
)
from p2p10.log import GENESIS, Entry, public_key
from p2p10.rules import RuleSet, canonical_options
from p2p10.signing import Domain, verify
from p2p10.sitdown import MAX_NAME as MAX_NAME
from p2p10.sitdown import BadSitDown, SitDown, game_id_of, parse_sit_down
from p2p10.wire import (
    AwayBody,
    BackBody,
    KeyBody,
    MoveBody,
    RevealBody,
    ShuffleBody,
    TokenItem,
    TokensBody,
    bounded,
    decode_body,
    shown,
)

PROTOCOL_NAME = "p2p10/3"
TOKEN_CONTEXT = b"p2p10/token"
KEY_CONTEXT = b"p2p10/hand-key"
SEED_CONTEXT = b"p2p10/seed"
SHUFFLE_CONTEXT = b"p2p10/shuffle"
AWAY_CONTEXT = b"p2p10/away"
RETURN_CONTEXT = b"p2p10/return"


def _num(value: int) -> bytes:
    return value.to_bytes(8, "big")


def key_context(game_id: bytes, hand: int, seat: int) -> bytes:
    """What a hand key's Schnorr proof is bound to."""
    return frame(KEY_CONTEXT, game_id, _num(hand), _num(seat))


def seed_context(game_id: bytes, hand: int, seat: int) -> bytes:
    """What a shuffle-seed commitment is bound to."""
    return frame(SEED_CONTEXT, game_id, _num(hand), _num(seat))


def shuffle_context(game_id: bytes, hand: int, round_no: int, seat: int) -> bytes:
    """What one shuffle step's permutation and re-randomisers are derived under."""
    return frame(SHUFFLE_CONTEXT, game_id, _num(hand), _num(round_no), _num(seat))


def token_context(game_id: bytes, hand: int, slot: int, seat: int) -> bytes:
    """What a token's Chaum-Pedersen proof is bound to."""
    return frame(TOKEN_CONTEXT, game_id, _num(hand), _num(slot), _num(seat))


def away_message(game_id: bytes, seq: int, prev_hash: bytes, person: int) -> bytes:
    """What a player signs, under :attr:`~p2p10.signing.Domain.AGREEMENT`, to agree that the
    table goes on without ``person``'s machine at position ``seq`` (after the entry ``prev_hash``)."""
    return frame(AWAY_CONTEXT, game_id, _num(seq), prev_hash, _num(person))


def return_message(game_id: bytes, person: int, away: int) -> bytes:
    """What ``person``'s machine signs, under :attr:`~p2p10.signing.Domain.RETURN`, to take back
    the seats the table went on without at the ``away`` entry ``away``. Bound to that entry, a
    request cannot bring the machine back after a later takeover it did not ask to undo."""
    return frame(RETURN_CONTEXT, game_id, _num(person), _num(away))


@dataclass(frozen=True, slots=True)
class Expect:
    """The next writer: ``seat`` must write an entry of ``kind``; ``what`` says it in words."""

    seat: int
    kind: str
    what: str


@dataclass(frozen=True, slots=True)
class Round:
    """One shuffle round: the deck it starts from and each seat's shuffled deck so far.

    Slot ``first + i`` of the hand is position ``i`` of the round's final deck."""

    first: int
    base: Deck
    decks: tuple[Deck, ...] = ()
    seqs: tuple[int, ...] = ()
    proofs: tuple[bytes, ...] = ()

    @property
    def final(self) -> Deck:
        """The deck after the last shuffle so far."""
        return self.decks[-1] if self.decks else self.base

    def holds(self, slot: int) -> bool:
        """True when ``slot`` is one of this round's positions."""
        return self.first <= slot < self.first + len(self.base)


@dataclass(frozen=True, slots=True)
class Claim:
    """A seat's end-of-hand reveal: its secrets and the hand and points it says it holds."""

    seq: int
    secret: Scalar
    seed: bytes
    cards: tuple[int, ...]
    points: int


@dataclass(frozen=True, slots=True)
class Deferred:
    """A check that a fold deferring proofs (the audit's, the replay's) has not made yet, of the
    entry ``seq`` by ``seat``: its shuffle step of round ``round`` (``slot`` None), or its
    ``token`` for ``slot`` with its ``proof``. It is made with the seat's revealed secrets
    where they came (the step re-derived from the seed, the token checked as ``x·A``), and
    through the proof where they never do."""

    seq: int
    seat: int
    round: int = 0
    slot: int | None = None
    token: Point | None = None
    proof: bytes = b""


@dataclass(frozen=True, slots=True)
class HandCrypto:
    """The dealing state of the hand under way (see the module docstring for ``stage``)."""

    number: int
    stage: str = "keys"
    publics: tuple[Point, ...] = ()
    commitments: tuple[bytes, ...] = ()
    joint: Point | None = None
    rounds: tuple[Round, ...] = ()
    tokens: Mapping[int, Mapping[int, Point]] = field(default_factory=dict)
    batches: int = 0
    draw: tuple[int, int] | None = None
    claims: tuple[Claim, ...] = ()
    dispute: tuple[int, int, str] | None = None
    deferred: tuple[Deferred, ...] = ()

    def ciphertext(self, slot: int) -> Ciphertext:
        """The current ciphertext at ``slot``."""
        for rnd in self.rounds:
            if rnd.holds(slot):
                return rnd.final[slot - rnd.first]
        raise ProtocolError(f"slot {slot} has not been dealt")


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


def _check_sit_down(seat: int, sat: SitDown, first: SitDown, sit_downs: Sequence[SitDown]) -> None:
    """A table entry's sit-down for ``seat`` against seat 1's (``first``) and the others:
    raises the violation, blamed on seat 1 at entry 0 unless it is the seat's own signature."""
    def host(reason: str) -> ProtocolViolation:
        return ProtocolViolation(0, 0, reason)

    if sat.seat != seat:
        raise host(f"seat {seat + 1} carries the sit-down signed for seat {sat.seat + 1}")
    if sat.table_id != first.table_id:
        raise host(f"seat {seat + 1} sat down at another table")
    if not canonical_options(sat.options):
        # The seat signed options an honest seat never writes: its own doing, not the
        # host's (compared as strings, hands=02 against hands=2 blamed the host; A72).
        raise ProtocolViolation(seat, 0,
                                f"seat {seat + 1} signed rule options that are not in canonical form")
    if sat.options != first.options:
        raise host(f"seat {seat + 1} sat down to other rules than seat 1")
    owner = sat.run_by
    if owner is not None and (owner >= len(sit_downs) or owner == seat
                              or sit_downs[owner].run_by is not None):
        raise host(f"seat {seat + 1}'s bot must be run by a seat with a player of its own")


class TableState:
    """The state of a table after a prefix of its log. Treat it as immutable.

    Besides the game, it keeps what an audit must name: ``takeovers`` (every ``away`` entry)
    and ``returns`` (every ``back`` entry).

    ``defer_proofs``: a peer checks every proof on arrival (False): a shuffle's, a token's. An
    audit or a replay (True) defers them (``HandCrypto.deferred``) to the reveals, which bring
    cheaper and stronger checks of the same statements: a step re-derived from its seed (with
    the joint secret, once every seat has revealed), a token compared with ``x·A``. Only what
    the reveals never reach is checked through its proof: a voided hand's (at the ``away``
    entry) and, through :meth:`check_deferred`, the hand under way where the log ends or
    breaks. ``postpone`` (an audit with a pool of processes) goes one step further: the checks
    of a hand's last reveal are not made but kept in ``postponed`` (a new tuple at each hand's
    end: that hand's) for the caller to make, and the fold goes on as if they passed.
    ``every_proof`` (the audit's default) makes every deferred check verify the proof a peer
    verified on arrival too, before the re-derivation: a false proof of a right shuffle or token
    is then found, and blamed where a peer blames it (attack A61); without it (a replay, or
    ``p2p10 audit --by-reveals``) a revealed step is settled by its seed alone."""

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

    # ---------------------------------------------------------------- the first entry

    @staticmethod
    def header_body(sit_downs: Sequence[SitDown]) -> list[Any]:
        """The body of the ``table`` entry that opens a log: every seat's signed sit-down, in
        seat order. Its game id is :func:`game_id_of` their nonces (:meth:`game_id_for`)."""
        return [PROTOCOL_NAME, [s.raw for s in sit_downs]]

    @staticmethod
    def game_id_for(sit_downs: Sequence[SitDown]) -> bytes:
        """The game id of a table with these sit-downs (seat order): nobody chooses it alone."""
        return game_id_of(sit_downs[0].table_id, [s.nonce for s in sit_downs])

    @classmethod
    def from_header(cls, entry: Entry, *, defer_proofs: bool = False, postpone: bool = False,
                    every_proof: bool = False) -> TableState:
        """The table that the log's first entry describes; raises :class:`ProtocolViolation`.

        The entry is signed by the key of seat 1's sit-down, which it carries: until that
        signature verifies, nobody can be blamed for the bytes. After it, everything that is
        wrong with the table is seat 1's doing (it wrote the entry), and is blamed on seat 1
        at entry 0: every seat's name, key, ``run_by`` and rules are checked against that
        seat's own signed sit-down, and the game id against their nonces."""
        def unsigned(reason: str) -> ProtocolViolation:
            return ProtocolViolation(None, entry.seq, reason)

        def host(reason: str) -> ProtocolViolation:
            return ProtocolViolation(0, 0, reason)

        if entry.seq != 0 or entry.prev_hash != GENESIS:
            raise unsigned("the first entry of a log must have sequence 0 and no predecessor")
        if entry.kind != "table" or entry.author != 0:
            raise unsigned("a log must begin with the table entry written by seat 1")
        body = entry.body
        if not (isinstance(body, list) and len(body) == 2 and body[0] == PROTOCOL_NAME
                and isinstance(body[1], list) and body[1]):
            raise unsigned(f"the table entry must be [{PROTOCOL_NAME!r}, [sit-down, ...]]")
        try:
            first = parse_sit_down(body[1][0])
        except BadSitDown as err:
            raise unsigned(f"seat 1's sit-down: {err}") from None
        if not entry.verify(public_key(first.key)):
            raise unsigned("the table entry's signature does not verify for seat 1")
        # Signed by seat 1 from here on: whatever is wrong with the table, foreseen or not, is
        # seat 1's doing.
        try:
            return cls._seated(entry, first, body[1], defer_proofs, postpone, every_proof)
        except ProtocolViolation:
            raise
        except Exception as err:  # the header check is total
            raise host(f"the table entry cannot be applied ({type(err).__name__})") from None

    @classmethod
    def _seated(cls, entry: Entry, first: SitDown, carried: list[Any], defer_proofs: bool,
                postpone: bool, every_proof: bool = False) -> TableState:
        """The table the sit-downs ``carried`` by a table entry signed by seat 1 describe; every
        refusal is blamed on seat 1 at entry 0."""
        def host(reason: str) -> ProtocolViolation:
            return ProtocolViolation(0, 0, reason)

        if not MIN_PLAYERS <= len(carried) <= MAX_PLAYERS:
            raise host(f"a table seats {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(carried)}")
        try:
            sit_downs = tuple(parse_sit_down(raw) for raw in carried)
        except BadSitDown as err:
            raise host(str(err)) from None
        players = len(sit_downs)
        for seat, sat in enumerate(sit_downs):
            _check_sit_down(seat, sat, first, sit_downs)
        keys = tuple(s.key for s in sit_downs)
        if len(set(keys)) != len(keys):
            raise host("two seats share one identity key")
        try:
            rules = RuleSet.parse(list(first.options))
        except BadRules as err:
            raise host(str(err)) from None
        if entry.game_id != cls.game_id_for(sit_downs):
            raise host("the game id is not the one the seats' sit-downs make")
        state = object.__new__(cls)
        state.game_id = entry.game_id
        state.table_id = first.table_id
        state.sit_downs = sit_downs
        state.given_names = tuple(s.name for s in sit_downs)
        state.run_by = tuple(s.run_by for s in sit_downs)
        state.names = state._labels()
        state.keys = keys
        state.signing_keys = keys
        state.deal_engine = None
        state.verifiers = tuple(public_key(k) for k in keys)
        state.signers = ((0, state.verifiers),)
        state.rules = rules
        state.seq = 1
        state.last_hash = entry.hash
        state.engine = GameState(players, rules, state.names)
        state.hand = None
        state.hands_started = 0
        state.takeovers = ()
        state.returns = ()
        state.defer_proofs = defer_proofs or postpone
        state.every_proof = every_proof
        state.postpone = postpone
        state.postponed = ()
        return state

    def _labels(self) -> tuple[str, ...]:
        # A bot's name carries whose it is, in every view, replay and audit.
        names = self.given_names
        return tuple(name if owner is None else f"{name} ({names[owner]}'s bot)"
                     for name, owner in zip(names, self.run_by, strict=True))

    # ------------------------------------------------------------------- reading

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
        return _deal_owner(self.engine.next_deal_order(), slot)

    def deal_token_slots(self, seat: int) -> tuple[int, ...]:
        """The slots ``seat`` publishes tokens for in the deal: all but its own, and the first up."""
        order = self.engine.next_deal_order()  # once, not once per slot
        return tuple(s for s in range(HAND_SIZE * len(order) + 1) if _deal_owner(order, s) != seat)

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

    # ------------------------------------------------------------------- applying

    def apply(self, entry: Entry, *, verified_by: Ed25519PublicKey | None = None) -> TableState:
        """Check ``entry`` and return the state after it; raises :class:`ProtocolViolation`.

        ``verified_by`` is the key a caller has already checked the signature with, where the
        entry entered (a peer's receive): when it is still the author's key here, the signature
        is not checked a second time; any other key (say, one an ``away`` entry has replaced
        since) and the signature is checked again."""
        if entry.game_id != self.game_id:
            raise ProtocolViolation(None, entry.seq, "the entry belongs to another game")
        if entry.author >= self.players:
            raise ProtocolViolation(None, entry.seq, f"there is no seat {entry.author + 1} at this table")
        key = self.verifiers[entry.author]
        if verified_by is not key and not entry.verify(key):
            raise ProtocolViolation(None, entry.seq,
                                    f"the signature does not verify for {self.name(entry.author)}: "
                                    "the entry was altered or forged")
        if entry.seq != self.seq:
            raise ProtocolViolation(None, entry.seq,
                                    f"entry {entry.seq} arrived where entry {self.seq} belongs "
                                    "(a replayed, dropped or reordered entry)")
        if entry.prev_hash != self.last_hash:
            # Not pinned on the author: an honest author chains to what it received, and if the
            # previous writer equivocated, this log may simply hold the other twin.
            raise ProtocolViolation(None, entry.seq,
                                    "the entry does not chain to the previous one (a fork, or a "
                                    "log spliced from two)")
        expect = self.expected()
        if expect is None:
            raise ProtocolViolation(entry.author, entry.seq, "the game is over: nobody writes any more")
        if entry.kind == "away":
            new = self._copy()
            new.seq = self.seq + 1
            new.last_hash = entry.hash
            _fold_blaming_author(entry, new._on_away, entry, self.machine_of(expect.seat))
            return new
        if entry.kind == "back" and entry.author == expect.seat:
            # Written by whoever would write the next hand's first key, so no two seats race
            # for the position (§4.14).
            new = self._copy()
            new.seq = self.seq + 1
            new.last_hash = entry.hash
            _fold_blaming_author(entry, new._on_back, entry)
            return new
        if entry.author != expect.seat or entry.kind != expect.kind:
            raise ProtocolViolation(
                entry.author, entry.seq,
                f"out of turn: {self.name(entry.author)} wrote a {shown(entry.kind)} entry where "
                f"{self.name(expect.seat)} must write {expect.what}")
        new = self._copy()
        new.seq = self.seq + 1
        new.last_hash = entry.hash
        _fold_blaming_author(entry, _HANDLERS[entry.kind], new, entry)
        return new

    def _copy(self) -> TableState:
        new = object.__new__(TableState)
        for name in TableState.__slots__:
            setattr(new, name, getattr(self, name))
        return new

    def _hand_body(self, entry: Entry, codec: type[_HandBody]) -> _HandBody:
        """The entry's body, typed by the wire codec, for the hand under way."""
        body = decode_body(entry.kind, entry.body)
        assert isinstance(body, codec)  # the handler is chosen by the entry's kind
        number = self.hand.number if self.hand is not None else self.hands_started
        if body.hand != number:
            raise ProtocolError(f"the entry is for hand {body.hand}, but hand {number} is under way")
        return body

    def _token_proved(self, hand: HandCrypto, seat: int, slot: int, t: Point, proof: bytes) -> bool:
        return verify_equal_logs(hand.publics[seat], hand.ciphertext(slot).a, t, proof,
                                 token_context(self.game_id, hand.number, slot, seat))

    def _tokens(self, hand: HandCrypto, seat: int, seq: int, items: Sequence[TokenItem],
                slots: Sequence[int]) -> HandCrypto:
        got = [i.slot for i in items]
        if got != list(slots):
            raise ProtocolError(bounded(f"tokens were expected for slots {list(slots)}, not {got}"))
        tokens = dict(hand.tokens)
        put_off = list(hand.deferred)
        for item in items:
            slot = item.slot
            t = Point.from_bytes(item.token)
            if self.defer_proofs:
                put_off.append(Deferred(seq, seat, slot=slot, token=t, proof=item.proof))
            elif not self._token_proved(hand, seat, slot, t, item.proof):
                raise ProtocolError(deferred.bad_token(slot))
            per_slot = dict(tokens.get(slot, {}))
            per_slot[seat] = t
            tokens[slot] = per_slot
        return replace(hand, tokens=tokens, deferred=tuple(put_off))

    def _open(self, hand: HandCrypto, slot: int) -> int | None:
        """Open a slot whose tokens are all published; None for a card that cannot be there."""
        per_slot = hand.tokens.get(slot, {})
        if len(per_slot) != self.players:
            raise ProtocolError(f"slot {slot} cannot be opened: tokens are missing")
        cipher = hand.ciphertext(slot)
        try:
            card = open_card(cipher.b, [per_slot[s] for s in range(self.players)])
        except NotACard:
            return None
        engine = self.engine
        if engine.stage == "deal":
            return card  # the first card of a hand: the previous hand's cards are no longer out
        return card if engine.clash(slot, card) is None else None

    def _dispute(self, hand: HandCrypto, seq: int, seat: int, slot: int) -> None:
        self.hand = replace(hand, stage="reveal", dispute=(seq, seat, f"slot {slot} opened to a card "
                                                           "that cannot be there"))

    # --------------------------------------------------------------- entry kinds

    def _on_key(self, entry: Entry) -> None:
        body = self._hand_body(entry, KeyBody)
        hand = self.hand
        if hand is None:
            hand = HandCrypto(self.hands_started)
            self.hands_started += 1
        commitment = body.commitment
        public = Point.from_bytes(body.key)
        if not verify_knowledge(public, body.proof, key_context(self.game_id, hand.number, entry.author)):
            raise ProtocolError("the hand key's proof of knowledge does not verify (a rogue key?)")
        hand = replace(hand, publics=(*hand.publics, public), commitments=(*hand.commitments, commitment))
        if len(hand.publics) == self.players:
            hand = replace(hand, joint=joint_key(hand.publics), stage="shuffle",
                           rounds=(Round(0, initial_deck()),))
        self.hand = hand

    def _on_shuffle(self, entry: Entry) -> None:
        body = self._hand_body(entry, ShuffleBody)
        hand = self.hand
        assert hand is not None
        round_no = body.round
        if hand.stage == "play":
            # The draw pile is empty: the discard pile less its top card is dealt anew, in the
            # clear, and shuffled by every seat as round 0 was.
            self.engine = self.engine.apply(Reshuffle())
            first, _end, pool = self.engine.pools[-1]
            fresh = Round(first, initial_deck(sorted(pool)))
            hand = replace(hand, stage="shuffle", rounds=(*hand.rounds, fresh))
        if round_no != len(hand.rounds) - 1:
            raise ProtocolError(f"this is shuffle round {len(hand.rounds) - 1}, not {round_no}")
        rnd = hand.rounds[-1]
        size = len(rnd.base)
        if len(body.deck) != size * Ciphertext.WIRE_BYTES:
            raise ProtocolError(f"a shuffled deck of {size} cards is {size * Ciphertext.WIRE_BYTES} bytes")
        deck = tuple(Ciphertext.from_bytes(c) for c in body.ciphertexts())
        if len({c.a for c in deck}) != size:
            # Honest re-randomisers never collide; one scalar for two cards links them, and
            # shows as equal A components wherever the input's are equal (the initial deck's).
            raise ProtocolError("two cards of the shuffled deck share their randomness (equal A components)")
        rnd = replace(rnd, decks=(*rnd.decks, deck), seqs=(*rnd.seqs, entry.seq),
                      proofs=(*rnd.proofs, body.proof))
        if self.defer_proofs:
            hand = replace(hand, deferred=(*hand.deferred, Deferred(entry.seq, entry.author, round_no)))
        else:
            self._check_proof(hand, round_no, rnd, entry.author)
        hand = replace(hand, rounds=(*hand.rounds[:-1], rnd))
        if len(rnd.decks) == self.players:
            hand = replace(hand, stage="deal_tokens" if round_no == 0 else "play", batches=0)
        self.hand = hand

    def _on_tokens(self, entry: Entry) -> None:
        body = self._hand_body(entry, TokensBody)
        hand = self.hand
        assert hand is not None
        if hand.stage == "deal_tokens":
            slots = self.deal_token_slots(entry.author)
            hand = self._tokens(hand, entry.author, entry.seq, body.items, slots)
            hand = replace(hand, batches=hand.batches + 1)
            self.hand = hand
            if hand.batches == self.players:
                first_up = HAND_SIZE * len(self.engine.next_deal_seats())
                card = self._open(hand, first_up)
                if card is None:
                    self._dispute(hand, entry.seq, entry.author, first_up)
                    return
                self.deal_engine = self.engine  # what a voided hand goes back to
                self.engine = self.engine.apply(Deal(card))
                self.hand = replace(hand, stage="play")
            return
        assert hand.draw is not None
        slot, _ = hand.draw
        hand = self._tokens(hand, entry.author, entry.seq, body.items, (slot,))
        hand = replace(hand, batches=hand.batches + 1)
        if hand.batches == self.players - 1:
            hand = replace(hand, stage="play", draw=None)
        self.hand = hand

    def _on_move(self, entry: Entry) -> None:
        hand = self.hand
        assert hand is not None
        body = self._hand_body(entry, MoveBody)
        action = body.action
        seat = entry.author
        if action == "draw":
            self.engine = self.engine.apply(DrawStock(seat))
            slot = self.engine.hands[seat][-1]
            self.hand = replace(hand, stage="draw_tokens", draw=(slot, seat), batches=0)
            return
        if action == "take":
            self.engine = self.engine.apply(TakeDiscard(seat))
            return
        slots = body.played
        if len(set(slots)) != len(slots):
            raise IllegalMove("the same card is played twice in one move", seat)
        engine = self.engine
        hidden = sorted(s for s in slots if s not in engine.known)
        for s in hidden:
            if s not in engine.hands[seat]:
                raise IllegalMove(f"{self.name(seat)} plays slot {s}, which was not dealt to it", seat)
        hand = self._tokens(hand, seat, entry.seq, body.tokens, hidden)
        cards: dict[int, int] = {}
        for s in slots:
            known = engine.known.get(s)
            if known is None:
                opened = self._open(hand, s)
                if opened is None:
                    self._dispute(hand, entry.seq, seat, s)
                    return
                known = opened
            cards[s] = known
        event: Event
        if action == "lay":
            assert body.phase is not None
            melds = tuple(MeldSpec(m.slots, tuple(cards[s] for s in m.slots), m.label) for m in body.melds)
            event = LayDown(seat, body.phase, melds)
        elif action == "hit":
            assert body.slot is not None and body.meld is not None
            event = Hit(seat, body.slot, cards[body.slot], body.meld, body.end)
        else:
            assert body.slot is not None
            event = Discard(seat, body.slot, cards[body.slot], body.target)
        self.engine = engine.apply(event)
        self.hand = hand

    def _on_away(self, entry: Entry, person: int) -> None:
        """The others go on without ``person``'s machine (the one the table is waiting for):
        every other player signed the agreement for this very position; the runner's entry
        gives each of that machine's seats a new key, for a bot the runner plays from now on.
        The hand under way is voided and replayed without those seats; from the next hand on
        their bots play them."""
        runner = self.runner_for(person)
        group = self.away_group(person)
        consenters = self.consenters(person)
        body = self._checked_away(entry, person, runner, group, consenters)
        new_keys = {seat: key for seat, key in body.delegates}
        verifiers = self._delegates_verifiers(new_keys, group)
        base = self.engine if self.engine.stage == "deal" else self.deal_engine
        assert base is not None and base.stage == "deal"
        for seat in group:
            base = base.apply(SitOut(seat))  # raises IllegalMove when too few would be left
        if self.defer_proofs:
            # The voided hand's checks put off to its reveals: its unrevealed steps will never be
            # re-derived, and their proofs are all that checks them (a peer checked them on arrival).
            self.check_deferred()
        # For the audit: who was taken over, where and by whose agreement.
        self.takeovers = (*self.takeovers, Takeover(person, group, entry.seq, entry.author,
                                                    tuple(sorted((entry.author, *consenters))),
                                                    len(base.sheet)))
        self.verifiers = tuple(verifiers)
        self.signers = (*self.signers, (entry.seq + 1, self.verifiers))
        self.signing_keys = tuple(new_keys.get(s, k) for s, k in enumerate(self.signing_keys))
        self.run_by = tuple(runner if s in new_keys else r for s, r in enumerate(self.run_by))
        self.names = self._labels()
        self.engine = base.with_names(self.names)
        self.deal_engine = None
        self.hand = None

    def _checked_away(self, entry: Entry, person: int, runner: int | None, group: Sequence[int],
                      consenters: Sequence[int]) -> AwayBody:
        """An away entry's body, checked: written by the runner, for ``person``, a new key for
        each seat of the machine's ``group`` and every consenter's verified agreement, in seat
        order."""
        if entry.author != runner:
            who = "nobody" if runner is None else self.name(runner)
            raise ProtocolViolation(entry.author, entry.seq, f"only {who} may write that the table "
                                    f"goes on without {self.name(person)}")
        body = decode_body("away", entry.body)
        assert isinstance(body, AwayBody)
        if body.person != person:
            raise ProtocolError(f"an away entry is for the machine the table waits for, {self.name(person)}")
        if [d[0] for d in body.delegates] != list(group):
            raise ProtocolError(f"an away entry gives a new key to each of seats "
                                f"{', '.join(str(s + 1) for s in group)}")
        cosigs = body.agreements
        if [c[0] for c in cosigs] != list(consenters):
            raise ProtocolError("an away entry carries the agreement of every other player, in seat order")
        message = away_message(self.game_id, entry.seq, entry.prev_hash, person)
        for seat, signature in cosigs:
            if not (isinstance(signature, bytes)
                    and verify(self.verifiers[seat], Domain.AGREEMENT, message, signature)):
                raise ProtocolError(f"{self.name(seat)}'s agreement to go on does not verify")
        return body

    def _delegates_verifiers(self, new_keys: dict[int, bytes],
                             group: Sequence[int]) -> list[Ed25519PublicKey]:
        """Every seat's verifier once the bots of an away entry sign with ``new_keys``."""
        # New: never a key of the table entry nor of an earlier away entry, even one no longer
        # signing (a seat taken over, or given back): one key, one seat, for the whole game.
        used = {v.public_bytes_raw() for _start, signers in self.signers for v in signers}
        if len(set(new_keys.values())) != len(group) or used & set(new_keys.values()):
            raise ProtocolError("a bot's new key must be new")
        verifiers = list(self.verifiers)
        for seat, key in new_keys.items():
            verifiers[seat] = public_key(key)  # raises BadEntry for a weak or invalid key
        return verifiers

    def _on_back(self, entry: Entry) -> None:
        """``person``'s machine takes back the seats it sat down with that a takeover holds:
        their keys, ``run_by`` and names become those of the sit-downs again, and the bots that
        played them stop (their keys no longer sign for those seats)."""
        body = decode_body("back", entry.body)
        assert isinstance(body, BackBody)
        refusal = self.return_refusal(body.person, body.away, body.signature)
        if refusal is not None:
            raise ProtocolError(refusal)
        seats = tuple(s for s in self.home_seats(body.person) if self.signing_keys[s] != self.keys[s])
        self.signing_keys = tuple(self.keys[s] if s in seats else k for s, k in enumerate(self.signing_keys))
        self.verifiers = tuple(public_key(self.keys[s]) if s in seats else v
                               for s, v in enumerate(self.verifiers))
        self.signers = (*self.signers, (entry.seq + 1, self.verifiers))
        self.run_by = tuple(self.sit_downs[s].run_by if s in seats else r for s, r in enumerate(self.run_by))
        self.names = self._labels()
        self.engine = self.engine.with_names(self.names)
        self.returns = (*self.returns, Return(body.person, seats, entry.seq, body.away,
                                              len(self.engine.sheet)))

    def _on_reveal(self, entry: Entry) -> None:
        body = self._hand_body(entry, RevealBody)
        hand = self.hand
        assert hand is not None
        if hand.stage != "reveal":
            hand = replace(hand, stage="reveal")
        seed = body.seed
        seat = entry.author
        secret = Scalar.from_bytes(body.secret)
        if base_mul(secret) != hand.publics[seat]:
            raise ProtocolError("the revealed secret is not the one behind this seat's hand key")
        if not seed_matches(hand.commitments[seat], seed, seed_context(self.game_id, hand.number, seat)):
            raise ProtocolError("the revealed shuffle seed does not match its commitment")
        if not self.defer_proofs:
            self._check_shuffles(hand, seat, seed, secret)
        hand = replace(hand, claims=(*hand.claims, Claim(entry.seq, secret, seed, body.cards, body.points)))
        self.hand = hand
        if len(hand.claims) == self.players:
            if self.postpone:
                self.postponed = tuple(self.deferred_jobs())
            else:
                self.check_deferred()
            self._finish_hand(hand)

    def _check_proof(self, hand: HandCrypto, round_no: int, rnd: Round, seat: int) -> None:
        """Check ``seat``'s proof of shuffle in round ``round_no``: its deck is a permutation
        and re-encryption of the deck before it. Raises a violation of ``seat`` at its
        ``shuffle`` entry (where a peer checks it, on arrival, that is the entry under way)."""
        assert hand.joint is not None
        before = rnd.decks[seat - 1] if seat else rnd.base
        context = shuffle_context(self.game_id, hand.number, round_no, seat)
        if not verify_shuffle_proof(before, rnd.decks[seat], hand.joint, rnd.proofs[seat], context):
            raise ProtocolViolation(seat, rnd.seqs[seat], deferred.bad_proof(self.name(seat), round_no))

    def check_deferred(self, before: int | None = None) -> None:
        """Make the checks a deferring fold put off in the hand under way
        (:meth:`deferred_jobs`); raises :class:`ProtocolViolation` for the one a peer would have
        found first. The fold calls this at the last reveal (unless it leaves them to the
        caller, ``postpone``) and at an ``away`` entry; the audit and the replay where the log
        ends or breaks, with ``before`` the entry that broke (a peer would have stopped at an
        earlier bad proof, and never reached it)."""
        found = deferred.earliest(deferred.run_all(self.deferred_jobs(before)))
        if found is not None:
            raise found

    def checking_on_arrival(self) -> TableState:
        """This state, checking every proof on arrival from now on, as a peer does, once the
        checks a deferring fold put off in the hand under way are made (raises
        :class:`ProtocolViolation` for the first that fails). A peer restarted from its own
        log refolds it deferring, which costs less, then goes on as a peer."""
        self.check_deferred()
        new = self._copy()
        new.defer_proofs = new.postpone = False
        if new.hand is not None:
            new.hand = replace(new.hand, deferred=())
        return new

    def deferring(self) -> TableState:
        """This state, deferring proofs from now on as the audit does (``defer_proofs``): for a
        peer that goes on from a state it checked before (a checkpoint), between two hands
        only, so that no hand is checked half one way and half the other."""
        if self.hand is not None:
            raise ProtocolError("a fold may only start deferring between two hands")
        new = self._copy()
        new.defer_proofs = True
        return new

    def deferred_jobs(self, before: int | None = None) -> list[deferred.Job]:
        """The checks a deferring fold put off in the hand under way (``HandCrypto.deferred``),
        those of entries before ``before`` if given, each to be made the cheapest sound way the
        log allows so far: a step whose shuffler has revealed is re-derived from its seed (with
        the joint secret once every seat has revealed), a token of a seat that has revealed is
        compared with ``x·A``; anything else is checked through its proof."""
        hand = self.hand
        if hand is None or not hand.deferred:
            return []
        claims = hand.claims
        assert hand.joint is not None
        joint = hand.joint.to_bytes()
        everyone = _sum_secrets([c.secret for c in claims]) if len(claims) == self.players else None
        joint_secret = None if everyone is None else everyone.to_bytes()
        jobs: list[deferred.Job] = []
        for item in hand.deferred:
            if before is not None and item.seq >= before:
                break
            claim = claims[item.seat] if item.seat < len(claims) else None
            if item.slot is None:
                rnd = hand.rounds[item.round]
                jobs.append(deferred.StepJob(
                    item.seat, item.seq, self.name(item.seat), item.round,
                    deferred.deck_bytes(rnd.decks[item.seat - 1] if item.seat else rnd.base),
                    deferred.deck_bytes(rnd.decks[item.seat]), joint,
                    shuffle_context(self.game_id, hand.number, item.round, item.seat), rnd.proofs[item.seat],
                    None if claim is None else claim.seed, 0 if claim is None else claim.seq, joint_secret,
                    self.every_proof))
            else:
                assert item.token is not None
                jobs.append(deferred.TokenJob(
                    item.seat, item.seq, item.slot, hand.ciphertext(item.slot).a.to_bytes(),
                    item.token.to_bytes(), hand.publics[item.seat].to_bytes(), item.proof,
                    token_context(self.game_id, hand.number, item.slot, item.seat),
                    None if claim is None else claim.secret.to_bytes(), self.every_proof))
        return jobs

    def _check_shuffles(self, hand: HandCrypto, seat: int, seed: bytes, secret: Scalar) -> None:
        """Check every shuffle step of ``seat`` in this hand against its revealed ``seed``, as
        soon as the seed is out: a hand voided later (``away``) then hides no revealed step.
        Each step is checked against the deck actually published before it, so each seat
        answers only for its own step; a failure is blamed on it at its ``shuffle`` entry.
        The last seat to reveal (``secret``, its key's) completes the joint secret, which makes
        its re-derivation cheaper."""
        assert hand.joint is not None
        joint_secret = None
        if len(hand.claims) == self.players - 1:
            joint_secret = _sum_secrets([secret, *(c.secret for c in hand.claims)])
        for round_no, rnd in enumerate(hand.rounds):  # all complete: no reveal comes mid-round
            before = rnd.decks[seat - 1] if seat else rnd.base
            context = shuffle_context(self.game_id, hand.number, round_no, seat)
            if not verify_shuffle(before, rnd.decks[seat], seed, hand.joint, context, joint_secret):
                raise ProtocolViolation(seat, rnd.seqs[seat], deferred.not_seeded(self.name(seat), round_no))

    def _finish_hand(self, hand: HandCrypto) -> None:
        """Every secret is out, and every shuffle step was checked as its seed came
        (``_check_shuffles``): open every hand, check the claims, score."""
        if hand.dispute is not None:
            seq, seat, why = hand.dispute
            raise ProtocolViolation(seat, seq, why)
        engine = self.engine
        opened: list[tuple[int, int]] = []
        for slot in engine.unrevealed_in_hands():
            cipher = hand.ciphertext(slot)
            per_slot = hand.tokens.get(slot, {})
            parts = [per_slot.get(s) or token(hand.claims[s].secret, cipher.a) for s in range(self.players)]
            opened.append((slot, open_card(cipher.b, parts)))
        engine = engine.apply(Reveal(tuple(opened)))
        for seat, claim in enumerate(hand.claims):
            held = tuple(sorted(engine.hand_cards(seat)))
            owed = sum(points(c) for c in held)
            if tuple(sorted(claim.cards)) != held or claim.points != owed:
                shown = " ".join(card_text(c) for c in held) or "no cards"
                raise ProtocolViolation(seat, claim.seq,
                                        f"{self.name(seat)} claimed {len(claim.cards)} cards for "
                                        f"{claim.points} points but holds {shown} for {owed}")
        self.engine = engine.apply(EndHand())
        self.hand = None


def fold(table: TableState | None, entry: Entry, *, verified_by: Ed25519PublicKey | None = None,
         defer_proofs: bool = False, postpone: bool = False, every_proof: bool = False) -> TableState:
    """The state after ``entry``: the table it opens (``table`` None) or ``table.apply(entry)``.
    Raises :class:`ProtocolViolation` and nothing else, whatever the entry holds: a table entry
    that makes the header check fail in a way it did not foresee is refused with no seat
    blamed (the table entry's checks blame nobody). ``defer_proofs``, ``postpone`` and
    ``every_proof`` (read with the table entry, kept by every state after it) are for an audit
    or a replay: see :class:`TableState`."""
    if table is not None:
        return table.apply(entry, verified_by=verified_by)
    try:
        return TableState.from_header(entry, defer_proofs=defer_proofs, postpone=postpone,
                                      every_proof=every_proof)
    except ProtocolViolation as err:
        # Its reasons may quote the entry (a rule option it does not know): keep them short.
        raise ProtocolViolation(err.seat, err.seq, bounded(err.reason)) from None
    except Exception as err:  # the header check is total too
        reason = bounded(str(err)) if isinstance(err, ProtocolError | BadRules) else type(err).__name__
        raise ProtocolViolation(None, entry.seq, f"the table entry cannot be read ({reason})") from None


def _sum_secrets(secrets: Sequence[Scalar]) -> Scalar:
    """``x = Σ x_s``: the joint key's secret, once every seat has revealed its share."""
    total = secrets[0]
    for secret in secrets[1:]:
        total = total + secret
    return total


def _deal_owner(order: tuple[int, ...], slot: int) -> int | None:
    # Slot i of the deal goes to order[i % k]; the first discard and the stock to nobody.
    k = len(order)
    return order[slot % k] if slot < HAND_SIZE * k else None


def _fold_blaming_author(entry: Entry, step: Callable[..., None], *args: Any) -> None:
    """Run one fold step for an entry whose signature, chain and turn have been checked: from
    here on whatever it makes the fold do other than accept it is its author's doing. A
    violation found by a check is passed on as it is (the end-of-hand check may convict an
    earlier entry); any other failure, foreseen or not, is pinned on the author with a bounded
    reason, never a traceback and never an abort with nobody blamed."""
    try:
        step(*args)
    except ProtocolViolation:
        raise
    except (ProtocolError, IllegalMove) as err:
        raise ProtocolViolation(entry.author, entry.seq, bounded(str(err))) from None
    except Exception as err:  # the fold is total: nothing a signed entry does escapes it
        raise ProtocolViolation(entry.author, entry.seq,
                                f"the entry cannot be applied ({type(err).__name__})") from None


_HandBody = TypeVar("_HandBody", KeyBody, ShuffleBody, TokensBody, MoveBody, RevealBody)

_HANDLERS = {
    "key": TableState._on_key,
    "shuffle": TableState._on_shuffle,
    "tokens": TableState._on_tokens,
    "move": TableState._on_move,
    "reveal": TableState._on_reveal,
}
