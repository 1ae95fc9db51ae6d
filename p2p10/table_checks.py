"""The table's checks of a hand's cryptography that a fold may put off to the reveals or a pool of
processes: each seat's shuffles re-derived from its seed, the proofs kept for later, and the
end of a hand (every card opened, every claim checked, the hand scored). The fold that calls
them is p2p10.table."""

from __future__ import annotations

from dataclasses import replace
from typing import Self

from p2p10 import deferred
from p2p10.cards import card_text, points
from p2p10.crypto.elgamal import open_card, token
from p2p10.crypto.group import Scalar
from p2p10.crypto.shuffle import verify_shuffle
from p2p10.crypto.shuffle_proof import verify_shuffle_proof
from p2p10.errors import ProtocolError, ProtocolViolation
from p2p10.events import (
    EndHand,
    Reveal,
)
from p2p10.hand_crypto import (
    HandCrypto,
    Round,
    shuffle_context,
    sum_secrets,
    token_context,
)
from p2p10.table_reading import TableReading


class TableChecks(TableReading):
    """The checks of a hand that may wait (see :class:`~p2p10.table.TableState`'s ``defer_proofs``
    and ``postpone``)."""

    __slots__ = ()

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

    def checking_on_arrival(self) -> Self:
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

    def deferring(self) -> Self:
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
        everyone = sum_secrets([c.secret for c in claims]) if len(claims) == self.players else None
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
            joint_secret = sum_secrets([secret, *(c.secret for c in hand.claims)])
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
