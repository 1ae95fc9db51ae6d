"""The bodies a seat writes for its own entries: its hand key with its proof and seed commitment,
its shuffles with their proofs, its tokens, its moves with the tokens that open the cards they
play, and its reveal. What decides when it writes them is p2p10.peer."""

from __future__ import annotations

from typing import Any

from p2p10.cards import points
from p2p10.crypto.elgamal import initial_deck, token
from p2p10.crypto.group import base_mul, random_scalar
from p2p10.crypto.proofs import prove_equal_logs, prove_knowledge
from p2p10.crypto.shuffle import commit_seed, new_seed, shuffle_and_prove
from p2p10.errors import IllegalMove, ProtocolError
from p2p10.events import Discard, DrawStock, Hit, LayDown, Reshuffle, SeatEvent, TakeDiscard
from p2p10.hand_crypto import (
    HandCrypto,
    key_context,
    seed_context,
    shuffle_context,
    token_context,
)
from p2p10.peer_base import PeerBase
from p2p10.peer_parts import HandSecrets
from p2p10.table import TableState
from p2p10.wire import (
    KeyBody,
    MoveBody,
    RevealBody,
    ShuffleBody,
    TokenItem,
    TokensBody,
    WireMeld,
)


class SeatWriting(PeerBase):
    """The bodies of this seat's entries, from the table's state and the seat's hand secrets."""

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
