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

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from p2p10 import deferred
from p2p10.crypto.elgamal import Ciphertext, initial_deck, joint_key, open_card
from p2p10.crypto.group import NotACard, Point, Scalar, base_mul
from p2p10.crypto.proofs import verify_equal_logs, verify_knowledge
from p2p10.crypto.shuffle import seed_matches
from p2p10.engine import GameState
from p2p10.errors import BadRules, IllegalMove, ProtocolError, ProtocolViolation
from p2p10.events import (
    Deal,
    Discard,
    DrawStock,
    Event,
    Hit,
    LayDown,
    MeldSpec,
    Reshuffle,
    TakeDiscard,
)
from p2p10.game_fields import HAND_SIZE, MAX_PLAYERS, MIN_PLAYERS
from p2p10.hand_crypto import (
    Claim,
    Deferred,
    HandCrypto,
    Round,
    key_context,
    seed_context,
    token_context,
)
from p2p10.log import GENESIS, Entry, public_key
from p2p10.primitives import Ed25519PublicKey
from p2p10.rules import RuleSet, canonical_options
from p2p10.sitdown import MAX_NAME as MAX_NAME
from p2p10.sitdown import BadSitDown, SitDown, game_id_of, parse_sit_down
from p2p10.table_away import TableAway
from p2p10.wire import (
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


class TableState(TableAway):
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

    __slots__ = ()

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

    # ------------------------------------------------------------------- reading

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
