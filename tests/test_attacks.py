"""The attack catalogue: one test per attack of ``/work/shared/brief/protocol.md``.

Every test mounts the attack for real (a peer subclassed into a cheat that signs what an honest
peer would never sign, or a ``tamper`` hook standing in the middle of every link, or a damaged
saved file) and asserts two things: the attack is DETECTED, and it is BLAMED ON THE RIGHT SEAT,
in words that say what happened. Where a log exists, the offline audit of that log (plus the
refused entry) must reach the same verdict as the peers did.

Attacks on the transport (a replayed, dropped, reordered or truncated message) must be harmless:
the peers still finish with identical logs and blame nobody's signed word. The same damage done
to a saved file is no seat's signed statement, so the audit pins it on no seat (``seat is None``)
but says exactly which entry is wrong and how.

Shuffles are checked when their seeds are revealed at the hand's end, by design (a zero-knowledge
shuffle proof is a later step): those tests assert that detection happens then.

Seats are numbered from 1 in the prose, as players see them ("seat 2"), and from 0 in the code.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

import msgpack
import pytest
import rbcl
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p10.audit import audit_bytes, audit_records
from p2p10.crypto.elgamal import Ciphertext, rerandomise, token
from p2p10.crypto.group import GENERATOR, GROUP_ORDER, Point, Scalar, base_mul, mul
from p2p10.crypto.proofs import SchnorrProof, prove_equal_logs, prove_knowledge
from p2p10.crypto.shuffle import commit_seed, derive_permutation, derive_rerandomisers, shuffle_and_prove
from p2p10.crypto.shuffle_proof import prove_shuffle
from p2p10.errors import IllegalMove, ProtocolViolation
from p2p10.events import Discard, DrawStock, SeatEvent
from p2p10.hand_crypto import away_message, key_context, seed_context, shuffle_context, token_context
from p2p10.log import Entry, encode_log, file_header, make_entry, parse_entry, public_bytes, record
from p2p10.peer import (
    CHAT,
    CHAT_LABEL,
    CHAT_NONCE_BYTES,
    ENTRY,
    ChatLine,
    Peer,
    decode_message,
    encode_entry_message,
)
from p2p10.peer_parts import Fault
from p2p10.rules import RuleSet
from p2p10.signing import Domain, sign
from p2p10.simulate import greedy_player
from p2p10.table import TableState
from p2p10.wire import Agreement, encode_agreement
from protocol.memory import MemoryNetwork, Tamper, make_peers, open_table

SHORT = RuleSet.parse(["hands=1"])
NAMES = ["Ann", "Bob", "Cyd"]
MAX_SECONDS = 300.0  # virtual time; a stalled run fails fast instead of spinning for hours


# ------------------------------------------------------------------------------- helpers

class Cheat(Peer):
    """A peer that sends what it builds even when its own fold refuses it, as a real cheat
    would. ``refused`` keeps those entries: the evidence the audit is shown."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.refused: list[Entry] = []

    def _write(self, kind: str, body: Any) -> None:
        table = self._table()
        entry = make_entry(self.identity, table.game_id, len(self.log), table.last_hash, self.seat,
                           kind, body)
        if not self._accept(entry, self.seat):
            assert self.stopped  # refused with the blame on itself: it writes nothing more
            self.refused.append(entry)
            self._outbox.append((None, encode_entry_message(entry.raw)))


def seat_peers(players: int, cheater: int, cheat: type[Peer], seed: int, **options: Any) -> list[Peer]:
    """``players`` greedy bots, the one at index ``cheater`` of class ``cheat``."""
    def build(seat: int, identity: Any, **kwargs: Any) -> Peer:
        return (cheat if seat == cheater else Peer)(seat, identity, **kwargs)

    return make_peers([greedy_player] * players, seed, peer_class=build, **options)


def start(peers: list[Peer], seed: int, tamper: Tamper | None = None) -> MemoryNetwork:
    network = MemoryNetwork(peers, tamper=tamper)
    open_table(peers, NAMES[:len(peers)], SHORT, seed)
    return network


def honest(peers: list[Peer], cheater: int) -> list[Peer]:
    return [p for p in peers if p.seat != cheater]


def play(peers: list[Peer], cheater: int, seed: int) -> MemoryNetwork:
    """Run until every honest peer has stopped on a violation or finished the game."""
    network = start(peers, seed)
    network.run(lambda: all(p.stopped or p.finished for p in honest(peers, cheater)), MAX_SECONDS)
    return network


def assert_caught(peers: list[Peer], cheater: int, phrase: str) -> int:
    """Every honest peer froze on a violation pinned on ``cheater`` whose reason matches
    ``phrase``, and blamed no honest seat for anything. Returns the offending entry's seq."""
    seqs = set()
    for peer in honest(peers, cheater):
        err = peer.violation
        assert err is not None, f"seat {peer.seat + 1} did not catch the cheat"
        assert err.seat == cheater, f"seat {peer.seat + 1} blamed seat {err.seat}: {err}"
        assert re.search(phrase, err.reason), err.reason
        assert Fault(cheater, err.seq, err.reason) in peer.faults
        assert {f.seat for f in peer.faults} == {cheater}, peer.faults
        assert not peer.finished  # a cheated hand is never scored
        seqs.add(err.seq)
    assert len(seqs) == 1, "the honest peers disagree on the offending entry"
    return seqs.pop()


def assert_audit_blames(entries: Sequence[Entry], cheater: int, phrase: str, seq: int) -> None:
    """The offline audit of ``entries`` pins the same entry on the same seat."""
    report = audit_records([e.raw for e in entries])
    assert report.violation is not None, report.verdict()
    assert report.violation.seat == cheater, report.verdict()
    assert report.violation.seq == seq
    assert re.search(phrase, report.violation.reason), report.violation.reason


def assert_harmless(peers: list[Peer]) -> None:
    """Every peer finished the game with the very same log and froze on nothing."""
    assert all(p.finished and not p.stopped and p.violation is None for p in peers)
    logs = [[e.raw for e in p.log] for p in peers]
    assert all(log == logs[0] for log in logs)
    report = audit_records(logs[0])
    assert report.clean, report.verdict()


def plus_one_order(encoding: bytes) -> bytes:
    """The same scalar spelled without reduction: ``s + ℓ`` (still below 2²⁵⁶)."""
    return (int.from_bytes(encoding, "little") + GROUP_ORDER).to_bytes(32, "little")


def swap_two(body: list[Any]) -> list[Any]:
    """A shuffle body with cards 0 and 5 of its deck swapped after the proof was made: a
    genuine deck, but not the one the proof is about."""
    deck = bytearray(body[2])
    w = Ciphertext.WIRE_BYTES
    deck[0:w], deck[5 * w:6 * w] = deck[5 * w:6 * w], deck[0:w]
    return [*body[:2], bytes(deck), body[3]]


def proved_shuffle(peer: Peer, table: TableState, seed: bytes, *, swap: tuple[int, int] | None = None,
                   same_randomness: bool = False, context: bytes | None = None) -> list[Any]:
    """A genuine shuffle of the deck under way with a proof that verifies: its permutation and
    re-randomisers come from ``seed``, with outputs ``swap`` exchanged, or with one
    re-randomiser for every card (``same_randomness``). Unless ``seed`` is the peer's own and
    nothing is changed, it is not the shuffle the committed seed dictates. ``context`` proves
    it for another context than its own (another hand, say)."""
    hand = table.hand
    assert hand is not None and hand.joint is not None and hand.stage == "shuffle"
    round_no = len(hand.rounds) - 1
    before = hand.rounds[-1].final
    own = shuffle_context(table.game_id, hand.number, round_no, peer.seat)
    perm = list(derive_permutation(seed, len(before), own))
    rs = [int.from_bytes(r.to_bytes(), "little") for r in derive_rerandomisers(seed, len(before), own)]
    if swap is not None:
        i, j = swap
        perm[i], perm[j], rs[i], rs[j] = perm[j], perm[i], rs[j], rs[i]
    if same_randomness:
        rs = [rs[0]] * len(rs)
    after = [rerandomise(before[p], Scalar.from_int(r), hand.joint) for p, r in zip(perm, rs, strict=True)]
    proof = prove_shuffle(before, after, perm, rs, hand.joint, context or own, seed)
    return [hand.number, round_no, b"".join(c.to_bytes() for c in after), proof.to_bytes()]


def assert_shuffle_refused_on_arrival(peers: list[Peer], cheater: int, phrase: str) -> int:
    """``cheater``'s shuffle entry was refused on arrival by every honest peer and by the audit,
    pinned on it, so no honest log goes past it and nobody ever wrote a token for that deck.
    Returns the entry's seq."""
    seq = assert_caught(peers, cheater, phrase)
    bad = first_bad(peers[cheater])
    assert (bad.seq, bad.kind, bad.author) == (seq, "shuffle", cheater)
    for peer in honest(peers, cheater):
        assert len(peer.log) == seq and all(e.kind != "tokens" for e in peer.log)
    assert_audit_blames([*honest(peers, cheater)[0].log, bad], cheater, phrase, seq)
    return seq


def first_bad(peer: Peer) -> Entry:
    assert isinstance(peer, Cheat) and len(peer.refused) == 1, "the cheat never happened"
    return peer.refused[0]


@pytest.fixture(scope="module")
def honest_log() -> list[Entry]:
    """A complete, clean two-seat game, for the attacks on a saved file."""
    peers = make_peers([greedy_player, greedy_player], seed=900)
    network = start(peers, 900)
    network.run(lambda: all(p.finished for p in peers), MAX_SECONDS)
    assert audit_records([e.raw for e in peers[0].log]).clean
    return list(peers[0].log)


# ------------------------------------------------------------------------ bad shuffles

class Swapper(Peer):
    """A seat that shuffles as its seed says, but swaps two cards of its output, and proves
    that shuffle: a genuine shuffle, but not the one its committed seed dictates."""

    def build_shuffle(self, table: TableState) -> list[Any]:
        return proved_shuffle(self, table, self._hand_secrets(table).seed, swap=(0, 5))


class Withholder(Peer):
    """A seat that plays the hand but never writes its end-of-hand reveal."""

    def _act(self) -> None:
        expect = self.table.expected() if self.table is not None else None
        if expect is not None and expect.seat == self.seat and expect.kind == "reveal":
            return
        super()._act()


def test_card_swapped_in_shuffle() -> None:
    """Attack: seat 2 shuffles as its seed says, but swaps two cards of its output (it moves
    cards where its committed permutation does not put them), and proves that shuffle: its
    proof verifies, as the deck is a genuine shuffle. Defence: each seat's shuffle steps are
    re-derived from its seed as soon as its reveal brings it; the swap is found at seat 2's
    own reveal and pinned on seat 2's shuffle entry, by every honest peer and by the audit of
    the log."""
    peers = seat_peers(3, 1, Swapper, seed=101)
    play(peers, 1, 101)
    seq = assert_caught(peers, 1, r"shuffle in round 0 is not the one its revealed seed dictates")
    log = peers[0].log
    assert log[seq].kind == "shuffle" and log[seq].author == 1
    assert [e.body[1] for e in log if e.kind == "shuffle" and e.author == 1] == [0]  # one step
    assert log[-1].kind == "reveal" and log[-1].author == 1  # detected at its own reveal
    assert [e.raw for e in peers[2].log] == [e.raw for e in log]
    assert_audit_blames(log, 1, r"not the one its revealed seed dictates", seq)


@pytest.mark.parametrize("proof", ["honest", "forged"])
def test_copied_ciphertext_is_refused_before_any_card_is_opened(proof: str) -> None:
    """Attack (A39, the attack of issue 12): seat 2, shuffling last, copies the ciphertext of a
    slot dealt to seat 1 onto a slot dealt to itself (re-randomised, so it looks unrelated):
    when its own slot is opened to it, it would read seat 1's card. It publishes the proof of
    its honest shuffle, or one it makes for the copied deck with a "permutation" that sends two
    outputs to one input. Defence: every peer checks the proof of shuffle on arrival; it does
    not verify, the shuffle entry is refused and pinned on seat 2, and no peer ever writes a
    token for that deck: no card of it is opened, to anybody."""
    copied_from, copied_to = 1, 2

    class Copier(Cheat):
        def build_shuffle(self, table: TableState) -> list[Any]:
            hand = table.hand
            assert hand is not None and hand.joint is not None
            assert table.deal_owner(copied_from) == 0 and table.deal_owner(copied_to) == 1
            context = shuffle_context(table.game_id, hand.number, 0, self.seat)
            seed = self._hand_secrets(table).seed
            before = hand.rounds[-1].final
            perm = list(derive_permutation(seed, len(before), context))
            rs = [int.from_bytes(r.to_bytes(), "little")
                  for r in derive_rerandomisers(seed, len(before), context)]
            honest_after = [rerandomise(before[p], Scalar.from_int(r), hand.joint)
                            for p, r in zip(perm, rs, strict=True)]
            after = list(honest_after)
            after[copied_to] = rerandomise(after[copied_from], Scalar.from_int(12345), hand.joint)
            if proof == "honest":
                made = prove_shuffle(before, honest_after, perm, rs, hand.joint, context, seed)
            else:
                perm[copied_to] = perm[copied_from]
                rs[copied_to] = (rs[copied_from] + 12345) % GROUP_ORDER
                made = prove_shuffle(before, after, perm, rs, hand.joint, context, seed)
            return [hand.number, 0, b"".join(c.to_bytes() for c in after), made.to_bytes()]

    peers = seat_peers(2, 1, Copier, seed=102)
    play(peers, 1, 102)
    assert_shuffle_refused_on_arrival(peers, 1, r"proof of shuffle in round 0 does not verify")
    assert all(e.kind != "tokens" for e in peers[1].log)  # not even in the cheat's own log


def test_card_duplicated_with_a_proof_that_passes_is_still_caught_at_the_reveal(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Defence in depth (A2): were the proof of shuffle ever broken (here every peer's check is
    made to pass), the copy of A39 would go through. Seat 2, shuffling last, replaces the card
    that will be turned up to start the discard pile with a re-randomised copy of a card dealt
    to seat 1, so one card is on the table twice. Seat 1 opens its own card privately and sees
    that it cannot be there (it is the card face up on the discard pile). Only seat 1 can see
    that, so it plays the card to open it for everybody; the table stops the hand (a dispute)
    and goes to the reveal, whose re-derivation of every shuffle pins the copy on seat 2's
    shuffle entry. The audit (whose proof check is not broken) pins the same entry, and says
    more exactly why: the deck is not a shuffle at all."""
    import p2p10.table_checks

    monkeypatch.setattr(p2p10.table_checks, "verify_shuffle_proof", lambda *args: True)

    class Duplicator(Peer):
        def build_shuffle(self, table: TableState) -> list[Any]:
            hand = table.hand
            assert hand is not None and hand.joint is not None
            assert table.deal_owner(1) == 0 and table.deal_owner(20) is None  # seat 1's; first up
            body = super().build_shuffle(table)
            w = Ciphertext.WIRE_BYTES
            deck = [Ciphertext.from_bytes(body[2][i:i + w]) for i in range(0, len(body[2]), w)]
            deck[20] = rerandomise(deck[1], Scalar.from_int(12345), hand.joint)
            assert deck[20] != deck[1]
            return [*body[:2], b"".join(c.to_bytes() for c in deck), body[3]]

    peers = seat_peers(2, 1, Duplicator, seed=102)
    play(peers, 1, 102)
    seq = assert_caught(peers, 1, r"shuffle in round 0 is not the one its revealed seed dictates")
    log = peers[0].log
    assert log[seq].kind == "shuffle" and log[seq].author == 1
    hand = peers[0].table.hand  # type: ignore[union-attr]
    assert hand is not None and hand.dispute is not None
    exposed, by, why = hand.dispute
    assert by == 0 and why == "slot 1 opened to a card that cannot be there"
    assert log[exposed].author == 0 and log[exposed].body[1:3] == ["discard", 1]
    assert [e.kind for e in log[exposed + 1:]] == ["reveal", "reveal"]  # straight to the reveal
    assert_audit_blames(log, 1, r"proof of shuffle in round 0 does not verify", seq)


def test_swapped_pair_is_refused_on_arrival() -> None:
    """Attack (A40): seat 2 proves its honest shuffle, then swaps two ciphertexts of the deck
    it publishes (the proof is of the other order). Defence: the proof covers the output deck
    exactly; it does not verify, and the entry is refused on arrival, pinned on seat 2."""

    class PairSwapper(Cheat):
        def build_shuffle(self, table: TableState) -> list[Any]:
            return swap_two(super().build_shuffle(table))

    peers = seat_peers(3, 1, PairSwapper, seed=101)
    play(peers, 1, 101)
    assert_shuffle_refused_on_arrival(peers, 1, r"proof of shuffle in round 0 does not verify")


def test_reused_randomness_is_refused_where_it_shows_and_caught_by_the_seed_elsewhere() -> None:
    """Attack (A41): a shuffler re-randomises every card with one scalar, and proves it (a
    permutation and re-encryption it is). Then ``after[i] − after[j] = before[π(i)] − before[π(j)]``
    for all cards, which links its outputs to its inputs: its permutation hides nothing.
    Defence: seat 1, shuffling the initial deck (every ``A`` the identity), would publish 108
    equal ``A`` components, and a deck with two equal ``A`` components is refused on arrival;
    any later shuffler's re-used scalar is not the seed's and is caught at its reveal."""

    class Reuser(Cheat):
        def build_shuffle(self, table: TableState) -> list[Any]:
            return proved_shuffle(self, table, self._hand_secrets(table).seed, same_randomness=True)

    peers = seat_peers(3, 0, Reuser, seed=104)
    play(peers, 0, 104)
    assert_shuffle_refused_on_arrival(peers, 0, r"share their randomness")

    peers = seat_peers(3, 1, type("LaterReuser", (Peer,), {"build_shuffle": Reuser.build_shuffle}), seed=104)
    play(peers, 1, 104)
    seq = assert_caught(peers, 1, r"not the one its revealed seed dictates")
    assert peers[0].log[seq].kind == "shuffle" and peers[0].log[seq].author == 1


@pytest.mark.parametrize("made_for", ["another hand", "another deck"])
def test_proof_for_another_hand_or_deck_is_refused(made_for: str) -> None:
    """Attack (A42): seat 2 publishes a proof made for another statement: the same shuffle
    proved under the context of another hand, or the proof of a genuine shuffle of its deck
    beside another genuine shuffle of it (made with another seed). Defence: the proof's
    generators and challenges are bound to game, hand, round and seat, and its challenges
    cover both decks and the joint key: it does not verify, and the entry is refused on
    arrival, pinned on seat 2."""

    class Misprover(Cheat):
        def build_shuffle(self, table: TableState) -> list[Any]:
            hand = table.hand
            assert hand is not None
            seed = self._hand_secrets(table).seed
            if made_for == "another hand":
                other = shuffle_context(table.game_id, hand.number + 1, 0, self.seat)
                return proved_shuffle(self, table, seed, context=other)
            honest = super().build_shuffle(table)
            return [*proved_shuffle(self, table, bytes(range(32)))[:3], honest[3]]

    peers = seat_peers(3, 1, Misprover, seed=105)
    play(peers, 1, 105)
    assert_shuffle_refused_on_arrival(peers, 1, r"proof of shuffle in round 0 does not verify")


def test_shuffle_does_not_match_revealed_seed() -> None:
    """Attack: seat 2 commits to one seed but shuffles, honestly in form, with another (one
    it could have chosen after seeing the others' keys), then reveals the committed seed.
    The deck is a genuine permutation, so the game plays to its end. Defence: at the end every
    peer re-derives seat 2's step from the committed, revealed seed; it does not match."""

    class OtherSeed(Peer):
        def build_shuffle(self, table: TableState) -> list[Any]:
            hand = table.hand
            assert hand is not None and hand.joint is not None
            context = shuffle_context(table.game_id, hand.number, 0, self.seat)
            deck, proof = shuffle_and_prove(hand.rounds[-1].final, bytes(range(32)), hand.joint, context)
            return [hand.number, 0, b"".join(c.to_bytes() for c in deck), proof.to_bytes()]

    peers = seat_peers(3, 1, OtherSeed, seed=103)
    play(peers, 1, 103)
    seq = assert_caught(peers, 1, r"shuffle in round 0 is not the one its revealed seed dictates")
    log = peers[0].log
    assert log[seq].kind == "shuffle" and log[seq].author == 1
    assert_audit_blames(log, 1, r"not the one its revealed seed dictates", seq)


def test_bad_shuffle_with_a_withheld_partner_reveal() -> None:
    """Attack: seat 2 swaps two cards in its shuffle and, at the hand's end, reveals its seed
    like everybody; its partner, seat 3, who reveals after it, never does. The others are to go
    on without seat 3, which voids the hand: before, the voided hand's revealed seeds were never
    checked, no peer froze, and the audit of the log with the away entry said CLEAN. Defence:
    each seat's shuffle steps are checked against its seed when its reveal arrives; the swap is
    found at seat 2's reveal, every peer freezes blaming seat 2's shuffle entry, and a frozen
    peer never agrees to go on. The audit of the log, with or without an away entry written
    after that reveal, names the same seat and entry."""

    def build(seat: int, identity: Any, **kwargs: Any) -> Peer:
        return {1: Swapper, 2: Withholder}.get(seat, Peer)(seat, identity, **kwargs)

    peers = make_peers([greedy_player] * 3, 123, peer_class=build)
    ann, bob, cyd = peers
    network = start(peers, 123)
    network.run(lambda: (ann.stopped and cyd.stopped) or ann.overdue is not None, MAX_SECONDS)
    seq = assert_caught(peers, 1, r"Bob \(seat 2\)'s shuffle in round 0 is not the one its revealed "
                                  r"seed dictates")
    log = ann.log
    assert log[seq].kind == "shuffle" and log[seq].author == 1 and log[seq].body[1] == 0
    assert [(e.kind, e.author) for e in log[-2:]] == [("reveal", 0), ("reveal", 1)]  # not Cyd's
    assert [e.raw for e in cyd.log] == [e.raw for e in log]
    for peer, person in ((ann, 2), (bob, 2)):  # nobody can agree to go on past the evidence
        with pytest.raises(IllegalMove):
            peer.go_on_without(person)
    network.run(lambda: network.now > 120.0, MAX_SECONDS)  # long after anyone would go on
    assert all(p.going_on is None and not p.away.signatures for p in peers)
    assert all(e.kind != "away" for p in peers for e in p.log)
    assert_audit_blames(log, 1, r"not the one its revealed seed dictates", seq)

    # The log as it was before this defence: Ann and Bob agreed, Ann wrote the away entry.
    game, at, prev = log[0].game_id, len(log), log[-1].hash
    agreement = bob.identity.sign(away_message(game, at, prev, 2))
    bot_key = public_bytes(Ed25519PrivateKey.from_private_bytes(bytes(range(32))))
    away = make_entry(ann.identity, game, at, prev, 0, "away",
                      [2, [[2, bot_key]], [[1, agreement]]])
    assert_audit_blames([*log, away], 1, r"not the one its revealed seed dictates", seq)


def test_bad_shuffle_whose_seed_is_never_revealed_is_checked_by_its_proof() -> None:
    """The limit of A25: the partner, seat 2, reveals before the shuffler, seat 3, and withholds
    its reveal, so seat 3's seed is never revealed either; the others go on without seat 2 and
    the hand is voided. Nobody can re-derive seat 3's step, so its swap (of two cards it has
    shuffled genuinely, and proved) is never shown; but its proof of shuffle was checked on
    arrival, and the audit checks it again at the away entry: every step of the game is checked,
    and the audit is CLEAN (issue 12: no more unchecked steps), naming the takeover."""
    swapped: list[int] = []

    class SwapOnce(Swapper):
        def build_shuffle(self, table: TableState) -> list[Any]:
            if swapped:
                return Peer.build_shuffle(self, table)
            body = super().build_shuffle(table)
            swapped.append(len(self.log))
            return body

    def build(seat: int, identity: Any, **kwargs: Any) -> Peer:
        return {1: Withholder, 2: SwapOnce}.get(seat, Peer)(seat, identity, **kwargs)

    peers = make_peers([greedy_player] * 3, 124, peer_class=build)
    ann, cyd = peers[0], peers[2]
    network = start(peers, 124)
    network.run(lambda: ann.overdue is not None and cyd.overdue is not None, MAX_SECONDS)
    hand = ann.table.hand  # type: ignore[union-attr]
    assert hand is not None and len(hand.claims) == 1 and swapped == [hand.rounds[0].seqs[2]]
    cyd.go_on_without(1)
    network.run(lambda: bool(ann.agreed()), MAX_SECONDS)
    ann.go_on_without(1)
    away = ann.log[-1]
    assert away.kind == "away"
    bot = Peer.restore(1, ann.delegated[1], [e.raw for e in ann.log], [], player=greedy_player)
    network.replace(1, bot)
    peers[1] = bot
    network.run(lambda: all(p.finished for p in peers), MAX_SECONDS)
    assert all(p.violation is None and p.log == ann.log for p in peers)
    report = audit_records([e.raw for e in ann.log])
    assert report.clean, report.verdict()
    assert [(t.seats, t.seq, t.agreed_by) for t in report.takeovers] == [((1,), away.seq, (0, 2))]


def test_seed_does_not_match_commitment() -> None:
    """Attack: seat 2 commits to one seed, shuffles with another and, at the end, reveals the
    seed it really used (so its shuffle step would check out). Defence: the revealed seed
    must open the commitment published with the hand key, before any card was dealt; the
    reveal entry is refused and pinned on seat 2."""
    other = bytes(range(32, 64))

    class SeedSwitcher(Cheat):
        def build_shuffle(self, table: TableState) -> list[Any]:
            hand = table.hand
            assert hand is not None and hand.joint is not None
            context = shuffle_context(table.game_id, hand.number, 0, self.seat)
            deck, proof = shuffle_and_prove(hand.rounds[-1].final, other, hand.joint, context)
            return [hand.number, 0, b"".join(c.to_bytes() for c in deck), proof.to_bytes()]

        def build_reveal(self, table: TableState) -> list[Any]:
            body = super().build_reveal(table)
            return [body[0], body[1], other, *body[3:]]

    peers = seat_peers(3, 1, SeedSwitcher, seed=104)
    play(peers, 1, 104)
    seq = assert_caught(peers, 1, r"seed does not match its commitment")
    bad = first_bad(peers[1])
    assert bad.kind == "reveal" and bad.seq == seq
    assert commit_seed(other, seed_context(bad.game_id, 0, 1)) != peers[0].table.hand.commitments[1]  # type: ignore[union-attr]
    assert_audit_blames([*peers[0].log, bad], 1, r"seed does not match its commitment", seq)


# ------------------------------------------------------------------------ tokens and proofs

def test_wrong_token() -> None:
    """Attack: in its deal tokens, seat 2 publishes for one slot a token made with another
    secret (``x'·A``, which would open the card to garbage or to a card of its choosing), with
    a proof that is valid for that other secret. Defence: the Chaum-Pedersen proof is checked
    against seat 2's published hand key, on arrival; the token batch is refused and pinned on
    seat 2."""

    class WrongToken(Cheat):
        def build_tokens(self, table: TableState) -> list[Any]:
            body = super().build_tokens(table)
            hand = table.hand
            assert hand is not None
            slot = body[1][0][0]
            a = hand.ciphertext(slot).a
            fake = Scalar.from_int(987654321)
            proof = prove_equal_logs(fake, a, token_context(table.game_id, hand.number, slot, self.seat))
            body[1][0] = [slot, token(fake, a).to_bytes(), proof.to_bytes()]
            return body

    peers = seat_peers(2, 1, WrongToken, seed=105)
    play(peers, 1, 105)
    seq = assert_caught(peers, 1, r"token for slot \d+ does not match its proof or key")
    bad = first_bad(peers[1])
    assert bad.kind == "tokens" and bad.seq == seq
    assert_audit_blames([*peers[0].log, bad], 1, r"does not match its proof or key", seq)


def test_wrong_proof() -> None:
    """Attack: seat 2 publishes the right token for a slot but with the proof it made for
    another slot (a proof copied instead of made). Defence: a proof's challenge hashes the
    game, hand, slot and seat, so a proof for slot j never verifies for slot i; the batch is
    refused and pinned on seat 2."""

    class WrongProof(Cheat):
        def build_tokens(self, table: TableState) -> list[Any]:
            body = super().build_tokens(table)
            items = body[1]
            items[0] = [items[0][0], items[0][1], items[1][2]]
            return body

    peers = seat_peers(2, 1, WrongProof, seed=106)
    play(peers, 1, 106)
    seq = assert_caught(peers, 1, r"token for slot \d+ does not match its proof or key")
    bad = first_bad(peers[1])
    assert bad.kind == "tokens" and bad.seq == seq
    assert_audit_blames([*peers[0].log, bad], 1, r"does not match its proof or key", seq)


def test_token_withheld() -> None:
    """Attack: seat 2 never publishes its deal tokens, so nobody can see a card and the game
    cannot go on. Defence: a peer that has waited ``blame_after`` seconds without progress
    names the seat it is waiting for (``overdue``) and what that seat owes; not earlier."""
    blame_after = 5.0

    class Withholder(Peer):
        def _act(self) -> None:
            expect = self.table.expected() if self.table is not None else None
            if expect is not None and expect.seat == self.seat and expect.kind == "tokens":
                return
            super()._act()

    peers = seat_peers(3, 1, Withholder, seed=107, blame_after=blame_after)
    others = honest(peers, 1)
    network = start(peers, 107)

    def waiting_for_tokens() -> bool:
        return all(p.table is not None and p.table.expected() is not None
                   and p.table.expected().kind == "tokens"  # type: ignore[union-attr]
                   and p.table.expected().seat == 1 for p in others)  # type: ignore[union-attr]

    network.run(waiting_for_tokens, MAX_SECONDS)
    since = network.now
    network.run(lambda: network.now >= since + blame_after - 0.5, MAX_SECONDS)
    assert all(p.overdue is None for p in peers), "blamed before blame_after"
    network.run(lambda: all(p.overdue is not None for p in others), MAX_SECONDS)
    assert network.now >= since + blame_after - 0.1
    for peer in others:
        assert peer.overdue is not None and peer.overdue.seat == 1 and peer.overdue.kind == "tokens"
        assert "tokens for the deal" in peer.overdue.what
        assert not peer.faults and peer.violation is None  # silence is no signed violation
    assert peers[1].overdue is None


# ------------------------------------------------------------------------ moves

def test_playing_a_slot_not_dealt() -> None:
    """Attack: seat 2 discards a slot of seat 1's hand (publishing its own valid token for
    it, which with the deal tokens would open seat 1's card for everybody). Defence: the log
    shows which slots were dealt to whom; a hidden slot may only be played by its holder,
    checked before any token of it is used. Refused and pinned on seat 2."""

    class SlotThief(Cheat):
        def build_move(self, table: TableState, move: SeatEvent) -> list[Any]:
            if not isinstance(move, Discard):
                return super().build_move(table, move)
            stolen = table.engine.hands[0][0]
            assert stolen not in table.engine.known
            number = table.hand.number  # type: ignore[union-attr]
            items = [i.to_wire() for i in self._token_items(table, [stolen])]
            return [number, "discard", stolen, None, items]

    peers = seat_peers(2, 1, SlotThief, seed=108)
    play(peers, 1, 108)
    seq = assert_caught(peers, 1, r"plays slot \d+, which was not dealt to it")
    bad = first_bad(peers[1])
    assert bad.kind == "move" and bad.body[1] == "discard"
    assert_audit_blames([*peers[0].log, bad], 1, r"which was not dealt to it", seq)


def test_illegal_game_move() -> None:
    """Attack: seat 2 discards without drawing first (its card and its token are genuine; only
    the rules forbid the move). Defence: the rules engine is part of the fold; the move is
    refused and pinned on seat 2 with the rule it breaks."""

    class Rushing(Cheat):
        def build_move(self, table: TableState, move: SeatEvent) -> list[Any]:
            if not isinstance(move, DrawStock):
                return super().build_move(table, move)
            slot = table.engine.hands[self.seat][0]
            card = self.view().card_at(slot)
            assert card is not None  # a card it really holds
            return super().build_move(table, Discard(self.seat, slot, card))

    peers = seat_peers(2, 1, Rushing, seed=109)
    play(peers, 1, 109)
    seq = assert_caught(peers, 1, r"draw a card first")
    bad = first_bad(peers[1])
    assert bad.kind == "move" and bad.body[1] == "discard"
    assert_audit_blames([*peers[0].log, bad], 1, r"draw a card first", seq)


# ------------------------------------------------------------------------ the log itself

def test_forged_signature(honest_log: list[Entry]) -> None:
    """Attack: seat 3 sends seat 2 an entry that claims seat 1 wrote it, signed with seat 3's
    own key. Defence: the signature is checked against the claimed author's key before
    anything else, so the forgery is never pinned on seat 1: it is a fault of the seat that
    passed it on (seat 3), the bytes are dropped and the game goes on. In a saved file a forged
    entry is pinned on nobody (no seat signed it) and named as altered or forged."""
    forged: list[Entry] = []

    def forge(src: int, dst: int, data: bytes) -> bytes | None:
        target = peers[1]
        if src != 2 or dst != 1 or forged or target.table is None:
            return data
        table = target.table
        entry = make_entry(peers[2].identity, table.game_id, len(target.log), table.last_hash, 0,
                           "move", [0, "draw"])
        forged.append(entry)
        return encode_entry_message(entry.raw)

    peers = make_peers([greedy_player] * 3, seed=110)
    network = start(peers, 110, tamper=forge)
    network.run(lambda: all(p.finished or p.stopped for p in peers), MAX_SECONDS)
    assert len(forged) == 1 and forged[0].author == 0
    assert peers[1].faults == [Fault(2, forged[0].seq, "an entry whose signature does not verify")]
    assert not peers[0].faults and not peers[2].faults
    assert_harmless(peers)

    # In a file: seat 1's entry, re-signed by seat 2's key.
    k = next(i for i, e in enumerate(honest_log) if i > 0 and e.author == 0)
    victim = honest_log[k]
    identity = make_peers([None, None], seed=900)[1].identity
    resigned = msgpack.packb([victim.payload, sign(identity, Domain.ENTRY, victim.payload)],
                             use_bin_type=True)
    records = [e.raw for e in honest_log]
    records[k] = resigned
    report = audit_records(records)
    assert report.violation is not None and report.violation.seat is None
    assert report.violation.seq == k
    assert re.search(r"does not verify for Ann \(seat 1\).*altered or forged", report.violation.reason)


def test_replayed_entry(honest_log: list[Entry]) -> None:
    """Attack: a man in the middle replays, on every link, one entry message in three by an
    entry sent earlier on that link (so the new one is lost too). Defence on the wire: an
    entry's position and predecessor are signed, so a replay can only be a duplicate, dropped
    by hash; the missing entry is fetched again. Harmless: identical logs, nobody blamed. In a
    saved file: an entry repeated is found where it breaks the numbering."""
    rng = random.Random(111)
    sent: dict[tuple[int, int], list[bytes]] = {}
    replays = [0]

    def replay(src: int, dst: int, data: bytes) -> bytes | None:
        if decode_message(data)[0] != ENTRY:
            return data
        history = sent.setdefault((src, dst), [])
        history.append(data)
        if len(history) > 5 and rng.random() < 1 / 3:
            replays[0] += 1
            return history[rng.randrange(len(history) - 1)]
        return data

    peers = make_peers([greedy_player] * 3, seed=111)
    network = start(peers, 111, tamper=replay)
    network.run(lambda: all(p.finished or p.stopped for p in peers), MAX_SECONDS)
    assert replays[0] > 50
    assert_harmless(peers)
    assert all(not p.faults for p in peers)

    records = [e.raw for e in honest_log]
    k = 6
    report = audit_records(records[:k + 1] + [records[k]] + records[k + 1:])
    assert report.violation is not None and report.violation.seat is None
    assert report.violation.seq == k + 1
    assert re.search(r"has entry 6 in this place \(a replayed, dropped or reordered", report.violation.reason)


def test_dropped_entry(honest_log: list[Entry]) -> None:
    """Attack: a man in the middle drops half the entry messages on every link. Defence on the
    wire: a peer that sees no progress asks for the entries from its next position on, and an
    entry that arrives early waits for its predecessor. Harmless. In a saved file: an entry
    left out is found where the numbering jumps."""
    rng = random.Random(112)

    def drop(src: int, dst: int, data: bytes) -> bytes | None:
        if decode_message(data)[0] != ENTRY:
            return data
        return None if rng.random() < 0.5 else data

    peers = make_peers([greedy_player] * 3, seed=112)
    network = start(peers, 112, tamper=drop)
    network.run(lambda: all(p.finished or p.stopped for p in peers), MAX_SECONDS)
    assert network.stats.dropped > 100
    assert_harmless(peers)
    assert all(not p.faults for p in peers)

    records = [e.raw for e in honest_log]
    k = 9
    report = audit_records(records[:k] + records[k + 1:])
    assert report.violation is not None and report.violation.seat is None
    assert report.violation.seq == k
    assert re.search(r"the file has entry 10 in this place \(a replayed", report.violation.reason)


def test_reordered_entries(honest_log: list[Entry]) -> None:
    """Attack: a man in the middle holds every entry message back until the next one has
    passed (every link delivers in swapped pairs). Defence on the wire: early entries wait in a
    buffer for their predecessor. Harmless. In a saved file: two entries swapped are found at
    the first of them."""
    held: dict[tuple[int, int], bytes] = {}
    swaps: list[bytes] = []

    def swap(src: int, dst: int, data: bytes) -> bytes | None:
        if decode_message(data)[0] != ENTRY or (swaps and data is swaps[-1]):
            return data  # not an entry, or the later one of a swap being put on the wire
        earlier = held.pop((src, dst), None)
        if earlier is None:
            held[(src, dst)] = data
            return None  # held back; sent after the next one (or fetched again if none follows)
        swaps.append(data)
        network._post(src, dst, data)  # the later entry goes on the wire first ...
        return earlier  # ... then the earlier one

    peers = make_peers([greedy_player] * 3, seed=113)
    network = start(peers, 113, tamper=swap)
    network.run(lambda: all(p.finished or p.stopped for p in peers), MAX_SECONDS)
    assert len(swaps) > 100
    assert_harmless(peers)
    assert all(not p.faults for p in peers)

    records = [e.raw for e in honest_log]
    k = 4
    records[k], records[k + 1] = records[k + 1], records[k]
    report = audit_records(records)
    assert report.violation is not None and report.violation.seat is None
    assert report.violation.seq == k
    assert re.search(r"the file has entry 5 in this place", report.violation.reason)


def test_truncated_entry(honest_log: list[Entry]) -> None:
    """Attack: a man in the middle cuts the tail off one entry in five on every link.
    Defence on the wire: the envelope does not parse, so it is refused as malformed and put
    down to the link it came on (a fault of the sender, never a freeze); the entry is fetched
    again. Harmless. In a saved file: a file cut short is reported as a torn last entry, and an
    entry cut short inside a whole record as malformed; neither is any seat's signed word, so
    the audit says DAMAGED and blames nobody."""
    rng = random.Random(114)
    cut: list[tuple[int, int]] = []

    def truncate(src: int, dst: int, data: bytes) -> bytes | None:
        kind, raw = decode_message(data)
        if kind != ENTRY or rng.random() >= 0.2:
            return data
        cut.append((src, dst))
        return bytes(msgpack.packb([ENTRY, raw[:len(raw) // 2]], use_bin_type=True))

    peers = make_peers([greedy_player] * 3, seed=114)
    network = start(peers, 114, tamper=truncate)
    network.run(lambda: all(p.finished or p.stopped for p in peers), MAX_SECONDS)
    end = network.now
    network.run(lambda: network.now > end + 1, MAX_SECONDS)  # deliver what is still in flight
    assert len(cut) > 50
    assert_harmless(peers)
    for peer in peers:
        senders = [src for src, dst in cut if dst == peer.seat]
        assert sorted(f.seat for f in peer.faults if f.seat is not None) == sorted(senders)
        assert all(f.reason.startswith("malformed entry") for f in peer.faults)

    data = encode_log(honest_log)
    report = audit_bytes(data[:-20])
    n = len(honest_log) - 1
    assert report.violation is None and report.damage is not None
    assert report.damage.seq == n
    assert re.search(rf"the file ends in the middle of entry {n}", report.damage.reason)
    k = 7
    records = [e.raw for e in honest_log]
    report = audit_bytes(file_header() + b"".join(record(r if i != k else r[:-9])
                                                  for i, r in enumerate(records)))
    assert report.violation is None and report.damage is not None
    assert report.damage.seq == k
    assert re.search(rf"entry {k} is not a well-formed entry", report.damage.reason)


@pytest.mark.parametrize("network", ["lossless", "twin-relay-lost"])
def test_equivocation(network: str) -> None:
    """Attack: seat 2 signs two different key entries for one log position and sends one to
    seat 1, the other to seat 3, to split the table into two games. Defence: every peer relays
    every entry it accepts, so each honest peer soon holds both; two valid entries signed by
    one author for one position are a proof of equivocation: the peer freezes, keeps both as
    evidence (``equivocation``) and blames seat 2. With "twin-relay-lost", seat 3's relay of
    its twin to seat 1 is lost, so seat 1 first sees seat 3's next entry, built on a twin it
    has never seen: it must not blame seat 3 for a fork, but fetch the position again."""
    split: list[Entry] = []

    class Equivocator(Peer):
        def _write(self, kind: str, body: Any) -> None:
            if kind != "key" or split:
                super()._write(kind, body)
                return
            table = self._table()
            other = [*body[:3], commit_seed(bytes(32), seed_context(table.game_id, 0, self.seat))]
            twin = make_entry(self.identity, table.game_id, len(self.log), table.last_hash, self.seat,
                              kind, other)
            super()._write(kind, body)
            mine = self.log[-1]
            dest, _msg = self._outbox.pop()
            assert dest is None
            self._outbox += [(0, encode_entry_message(mine.raw)), (2, encode_entry_message(twin.raw))]
            split.extend([mine, twin])

    lost: list[bytes] = []

    def lose_twin(src: int, dst: int, data: bytes) -> bytes | None:
        _kind, raw = decode_message(data)
        if network == "lossless" or lost or not split or (src, dst) != (2, 0) or raw != split[1].raw:
            return data
        lost.append(raw)
        return None

    peers = seat_peers(3, 1, Equivocator, seed=115)
    net = start(peers, 115, tamper=lose_twin)
    net.run(lambda: all(p.stopped for p in honest(peers, 1)), MAX_SECONDS)
    assert len(split) == 2 and len(lost) == (network != "lossless")
    for peer in honest(peers, 1):
        assert peer.equivocation is not None and peer.violation is None
        first, second = peer.equivocation
        assert {first.hash, second.hash} == {e.hash for e in split}
        assert first.author == second.author == 1 and first.seq == second.seq == split[0].seq
        key = peers[0].table.verifiers[1]  # type: ignore[union-attr]
        assert first.verify(key) and second.verify(key)  # both signed by seat 2: the evidence
        assert peer.faults == [Fault(1, split[0].seq, "two different entries signed for one position")]
        assert not peer.finished


def test_entry_out_of_turn() -> None:
    """Attack: while the table waits for another seat's move, seat X signs a move of its own
    for that position (correct number, correct predecessor, valid signature). Defence: at every
    position exactly one seat may write, decided by the fold; the entry is refused and pinned
    on its author."""
    peers = make_peers([None, None, None], seed=116)
    network = start(peers, 116)

    def someone_to_move() -> bool:
        return all(p.table is not None and p.table.expected() is not None
                   and p.table.expected().kind == "move" for p in peers)  # type: ignore[union-attr]

    network.run(someone_to_move, MAX_SECONDS)
    table = peers[0].table
    assert table is not None and table.expected() is not None
    turn = table.expected().seat  # type: ignore[union-attr]
    cheater = (turn + 1) % 3
    bad = make_entry(peers[cheater].identity, table.game_id, len(peers[cheater].log), table.last_hash,
                     cheater, "move", [0, "draw"])
    peers[cheater]._outbox.append((None, encode_entry_message(bad.raw)))
    network.run(lambda: all(p.stopped for p in honest(peers, cheater)), MAX_SECONDS)
    name = re.escape(table.name(turn))
    phrase = rf"out of turn: .* wrote a 'move' entry where {name} must write a move"
    seq = assert_caught(peers, cheater, phrase)
    assert seq == bad.seq
    assert_audit_blames([*peers[turn].log, bad], cheater, r"out of turn", seq)


# ------------------------------------------------------------------------ points and scalars

def _not_a_point() -> bytes:
    data = bytes([1]) + bytes(31)
    assert not rbcl.crypto_core_ristretto255_is_valid_point(data)
    return data


def _second_spelling(point: Point) -> bytes:
    """A point's encoding with bit 255 set, which this libsodium would also accept."""
    return point.to_bytes()[:31] + bytes([point.to_bytes()[31] | 0x80])


@pytest.mark.parametrize("where", ["key-invalid", "key-identity", "key-high-bit", "deck-identity",
                                   "deck-invalid", "token-identity"])
def test_invalid_or_identity_point(where: str) -> None:
    """Attack: seat 2 puts a point that is not on the group (or the identity, or a second
    spelling of a valid point) where a key, a shuffled ciphertext or a token belongs. An
    identity hand key would make the joint key the others' alone to control, an identity
    ciphertext component shows a card in the clear, an identity token opens nothing. Defence:
    every received point is validated and the identity refused on parse, before any use; the
    entry is refused and pinned on seat 2."""

    class BadPoint(Cheat):
        def build_key(self, table: TableState) -> list[Any]:
            body = super().build_key(table)
            public = Point.from_bytes(body[1])
            if where == "key-invalid":
                body[1] = _not_a_point()
            elif where == "key-identity":
                body[1] = bytes(32)
            elif where == "key-high-bit":
                body[1] = _second_spelling(public)
                assert rbcl.crypto_core_ristretto255_is_valid_point(body[1])
            return body

        def build_shuffle(self, table: TableState) -> list[Any]:
            body = super().build_shuffle(table)
            deck = bytearray(body[2])
            if where == "deck-identity":
                deck[64 * 3:64 * 3 + 32] = bytes(32)
            elif where == "deck-invalid":
                deck[64 * 3 + 32:64 * 4] = _not_a_point()
            return [*body[:2], bytes(deck), body[3]]

        def build_tokens(self, table: TableState) -> list[Any]:
            body = super().build_tokens(table)
            if where == "token-identity":
                body[1][0][1] = bytes(32)
            return body

    peers = seat_peers(2, 1, BadPoint, seed=117)
    play(peers, 1, 117)
    phrase = r"identity point is not allowed" if "identity" in where else r"not a valid ristretto255 point"
    seq = assert_caught(peers, 1, phrase)
    bad = first_bad(peers[1])
    assert bad.kind == where.split("-")[0].replace("deck", "shuffle").replace("token", "tokens")
    assert_audit_blames([*peers[0].log, bad], 1, phrase, seq)


@pytest.mark.parametrize("where", ["revealed-secret", "key-proof", "token-proof"])
def test_non_reduced_scalar(where: str) -> None:
    """Attack: seat 2 spells a scalar as ``s + ℓ`` instead of ``s``: the revealed hand secret,
    or the response of its key proof or of a token proof. The group arithmetic would treat it
    as ``s`` (the test checks that), so without the check one value would have two spellings
    and the signed bytes two meanings. Defence: every received scalar must be canonical
    (below ℓ); the entry is refused and pinned on seat 2."""

    class Unreduced(Cheat):
        def build_key(self, table: TableState) -> list[Any]:
            body = super().build_key(table)
            if where == "key-proof":
                proof = SchnorrProof.from_bytes(body[2])
                wide = plus_one_order(proof.response.to_bytes())
                same = base_mul(proof.response).to_bytes()
                assert bytes(rbcl.crypto_scalarmult_ristretto255_base(wide)) == same
                body[2] = proof.commitment.to_bytes() + wide
            return body

        def build_tokens(self, table: TableState) -> list[Any]:
            body = super().build_tokens(table)
            if where == "token-proof":
                proof = body[1][0][2]
                body[1][0][2] = proof[:64] + plus_one_order(proof[64:])
            return body

        def build_reveal(self, table: TableState) -> list[Any]:
            body = super().build_reveal(table)
            if where == "revealed-secret":
                wide = plus_one_order(body[1])
                public = table.hand.publics[self.seat]  # type: ignore[union-attr]
                assert bytes(rbcl.crypto_scalarmult_ristretto255_base(wide)) == public.to_bytes()
                body[1] = wide
            return body

    peers = seat_peers(2, 1, Unreduced, seed=118)
    play(peers, 1, 118)
    phrase = {"revealed-secret": r"scalar is not reduced modulo the group order",
              "key-proof": r"hand key's proof of knowledge does not verify",
              "token-proof": r"token for slot \d+ does not match its proof or key"}[where]
    seq = assert_caught(peers, 1, phrase)
    bad = first_bad(peers[1])
    assert bad.kind == {"revealed-secret": "reveal", "key-proof": "key", "token-proof": "tokens"}[where]
    assert_audit_blames([*peers[0].log, bad], 1, phrase, seq)


# ------------------------------------------------------------------------ end of hand and keys

def test_false_hand_or_score() -> None:
    """Attack: at the hand's end seat 1 (the first to reveal) claims a hand and a score that
    are not what it holds (a card left out, fewer points). Defence: once every secret is out,
    every peer opens every card still in a hand itself and compares each claim; the mismatch is
    found when the last (honest) seat's reveal completes the check, and pinned on seat 1's
    reveal entry, by every honest peer and by the audit."""

    class Liar(Peer):
        def build_reveal(self, table: TableState) -> list[Any]:
            body = super().build_reveal(table)
            cards = body[3]
            body[3] = cards[1:] if cards else []
            body[4] = body[4] - 5 if cards else 5
            return body

    peers = seat_peers(2, 0, Liar, seed=119)
    play(peers, 0, 119)
    seq = assert_caught(peers, 0, r"Ann \(seat 1\) claimed \d+ cards for -?\d+ points but holds .* for \d+")
    log = peers[1].log
    assert log[seq].kind == "reveal" and log[seq].author == 0
    assert log[-1].kind == "reveal" and log[-1].author == 1  # the honest reveal that completed it
    assert_audit_blames(log, 0, r"claimed \d+ cards", seq)


def test_rogue_public_key() -> None:
    """Attack: seat 2, writing its hand key last, publishes ``P = x·G − P₁`` so that the joint
    key ``H = P₁ + P`` is ``x·G``: it alone could open every card. It cannot know ``log_G P``,
    so it attaches a proof of knowledge of ``x``. Defence: every hand key comes with a Schnorr
    proof of knowledge bound to game, hand and seat; the proof does not verify for ``P``; the
    key entry is refused and pinned on seat 2."""
    rogue: list[tuple[Point, Point]] = []

    class Rogue(Cheat):
        def build_key(self, table: TableState) -> list[Any]:
            body = super().build_key(table)
            hand = table.hand
            assert hand is not None and len(hand.publics) == 1
            s = self._hand_secrets(table)
            public = base_mul(s.secret) - hand.publics[0]
            rogue.append((public, hand.publics[0]))
            proof = prove_knowledge(s.secret, key_context(table.game_id, hand.number, self.seat))
            return [body[0], public.to_bytes(), proof.to_bytes(), body[3]]

    peers = seat_peers(2, 1, Rogue, seed=120)
    play(peers, 1, 120)
    public, other = rogue[0]
    secret = peers[1].secrets[0].secret
    assert other + public == mul(secret, GENERATOR)  # the joint key the cheat was after
    seq = assert_caught(peers, 1, r"proof of knowledge does not verify \(a rogue key\?\)")
    bad = first_bad(peers[1])
    assert bad.kind == "key"
    assert_audit_blames([*peers[0].log, bad], 1, r"a rogue key", seq)


# ------------------------------------------------------------------------ another game, another hand

def test_message_of_another_game(honest_log: list[Entry]) -> None:
    """Attack: the same three people also play game B. (1) A man in the middle feeds game A
    a genuine entry of game B, signed by the very seat that writes that position in game A.
    (2) Seat 2 re-signs the key entry it wrote in game B (key and proof) into game A.
    Defence: (1) the entry names its game and is refused as another game's, put down to the
    seat that passed it on, never to its signer, and the game goes on; (2) the key proof is
    bound to the game id, so it does not verify in game A: pinned on seat 2. In a saved file
    an entry of another game is found at its position."""
    game_b = make_peers([greedy_player] * 3, seed=121)
    net_b = MemoryNetwork(game_b)
    open_table(game_b, NAMES, SHORT, seed=9121)  # same identities, another game id
    net_b.run(lambda: len(game_b[0].log) >= 4, MAX_SECONDS)
    from_b = {e.seq: e for e in game_b[0].log}
    assert from_b[2].author == 1 and from_b[2].kind == "key"
    fed: list[tuple[int, int]] = []

    def feed(src: int, dst: int, data: bytes) -> bytes | None:
        kind, raw = decode_message(data)
        if fed or src != 1 or dst != 0 or kind != ENTRY or parse_entry(raw).seq != 2:
            return data
        fed.append((src, dst))
        return encode_entry_message(from_b[2].raw)

    peers = make_peers([greedy_player] * 3, seed=121)
    network = start(peers, 121, tamper=feed)
    network.run(lambda: all(p.finished or p.stopped for p in peers), MAX_SECONDS)
    assert fed == [(1, 0)]
    assert peers[0].faults == [Fault(1, 2, "an entry of another game")]
    assert_harmless(peers)

    class Replayer(Cheat):
        def build_key(self, table: TableState) -> list[Any]:
            return list(from_b[2].body)

    peers = seat_peers(3, 1, Replayer, seed=121)
    play(peers, 1, 121)
    seq = assert_caught(peers, 1, r"proof of knowledge does not verify")
    bad = first_bad(peers[1])
    assert bad.body[1] == from_b[2].body[1] and bad.game_id != from_b[2].game_id
    assert_audit_blames([*peers[0].log, bad], 1, r"proof of knowledge does not verify", seq)

    records = [e.raw for e in honest_log]
    records[2] = from_b[2].raw
    report = audit_records(records)
    assert report.violation is not None and report.violation.seat is None and report.violation.seq == 2
    assert "belongs to another game" in report.violation.reason


@pytest.mark.parametrize("how", ["labelled", "bound"])
def test_message_of_another_hand(how: str) -> None:
    """Attack: seat 2 writes, in hand 0, a key entry for hand 1 ("labelled": the body says
    hand 1), or one labelled hand 0 whose proof was made for hand 1 ("bound": a proof carried
    over from another hand). Defence: every hand entry names its hand and must name the one
    under way, and every proof's challenge covers the hand number; refused and pinned on
    seat 2."""

    class OtherHand(Cheat):
        def build_key(self, table: TableState) -> list[Any]:
            body = super().build_key(table)
            s = self._hand_secrets(table)
            proof = prove_knowledge(s.secret, key_context(table.game_id, 1, self.seat))
            label = 1 if how == "labelled" else 0
            return [label, body[1], proof.to_bytes(), body[3]]

    peers = seat_peers(2, 1, OtherHand, seed=122)
    play(peers, 1, 122)
    phrase = (r"the entry is for hand 1, but hand 0 is under way" if how == "labelled"
              else r"proof of knowledge does not verify")
    seq = assert_caught(peers, 1, phrase)
    bad = first_bad(peers[1])
    assert bad.kind == "key"
    assert_audit_blames([*peers[0].log, bad], 1, phrase, seq)


# ------------------------------------------------- a signature made for one purpose, used for another
#
# One identity key signs entries, sit-downs, handshakes, chat lines and agreements. Each attack
# below takes a victim's genuine signature of EXACTLY the bytes the target needs, made for
# another purpose (the worst case: the attacker got those bytes signed through another part of
# the protocol), and presents it where it does not belong. The domain tag in what Ed25519 signs
# (PROTOCOL.md §2.12) makes every such signature fail, so the victim is never held to it.

OTHER_THAN_ENTRY = [d for d in Domain if d is not Domain.ENTRY]
OTHER_THAN_CHAT = [d for d in Domain if d is not Domain.CHAT]
OTHER_THAN_AGREEMENT = [d for d in Domain if d is not Domain.AGREEMENT]


def identities(players: int, seed: int) -> list[Ed25519PrivateKey]:
    """The identity keys that ``make_peers`` gives a table of ``players`` seeded with ``seed``."""
    return [p.identity for p in make_peers([None] * players, seed=seed)]


def table_of(peers: list[Peer]) -> TableState:
    table = peers[0].table
    assert table is not None
    return table


def test_a_signature_for_another_purpose_replayed_as_an_entry() -> None:
    """Attack A30, live: seat 3 holds seat 1's signature of the exact payload of an entry in
    seat 1's name at seat 2's next position, made for chat, and relays it to seat 2 as seat 1's
    entry. Defence: an entry's signature covers the entry tag, so it does not verify; seat 2
    notes a fault against seat 3 (who passed it on), blames seat 1 for nothing, and the game
    goes on to a clean end."""
    replayed: list[Entry] = []

    def replay(src: int, dst: int, data: bytes) -> bytes | None:
        target = peers[1]
        if src != 2 or dst != 1 or replayed or target.table is None or len(target.log) < 5:
            return data
        table = target.table
        honest = make_entry(peers[0].identity, table.game_id, len(target.log), table.last_hash, 0,
                            "move", [0, "draw"])
        raw = msgpack.packb([honest.payload, sign(peers[0].identity, Domain.CHAT, honest.payload)],
                            use_bin_type=True)
        replayed.append(parse_entry(raw))
        return encode_entry_message(raw)

    peers = make_peers([greedy_player] * 3, seed=130)
    network = start(peers, 130, tamper=replay)
    network.run(lambda: all(p.finished or p.stopped for p in peers), MAX_SECONDS)
    assert len(replayed) == 1
    assert peers[1].faults == [Fault(2, replayed[0].seq, "an entry whose signature does not verify")]
    assert not peers[0].faults and not peers[2].faults
    assert_harmless(peers)


@pytest.mark.parametrize("domain", OTHER_THAN_ENTRY, ids=lambda d: d.name.lower())
def test_a_signature_for_another_purpose_replayed_as_an_entry_in_a_file(
        honest_log: list[Entry], domain: Domain) -> None:
    """Attack A30, in a file: an entry of seat 1 whose signature is replaced by seat 1's own
    signature of the very same payload made for another purpose (sit-down, handshake, chat,
    agreement). Defence: it does not verify as an entry; the audit pins it on no seat (seat 1
    never signed it as an entry) and names the entry as altered or forged."""
    k = next(i for i, e in enumerate(honest_log) if i > 0 and e.author == 0)
    victim = honest_log[k]
    ann = identities(2, 900)[0]
    assert public_bytes(ann) == TableState.from_header(honest_log[0]).keys[0]
    records = [e.raw for e in honest_log]
    records[k] = msgpack.packb([victim.payload, sign(ann, domain, victim.payload)], use_bin_type=True)
    report = audit_records(records)
    assert report.violation is not None and report.violation.seat is None
    assert report.violation.seq == k
    assert re.search(r"does not verify for Ann \(seat 1\).*altered or forged", report.violation.reason)
    # The control: the same key, signing as an entry, is accepted.
    records[k] = msgpack.packb([victim.payload, sign(ann, Domain.ENTRY, victim.payload)], use_bin_type=True)
    assert audit_records(records).clean


@pytest.fixture
def chatting() -> list[Peer]:
    """Three peers whose table is known (so chat can be checked), the game under way."""
    peers = make_peers([greedy_player] * 3, seed=131)
    network = start(peers, 131)
    network.run(lambda: all(len(p.log) > 3 for p in peers), MAX_SECONDS)
    return peers


def _chat(peer: Peer, seat: int, key: Ed25519PrivateKey, domain: Domain, text: str) -> bytes:
    """A chat message for ``seat`` whose body is signed by ``key`` for ``domain``."""
    table = peer.table
    assert table is not None
    body = msgpack.packb([CHAT_LABEL, table.game_id, seat, bytes(CHAT_NONCE_BYTES), text], use_bin_type=True)
    signed = msgpack.packb([body, sign(key, domain, body)], use_bin_type=True)
    return bytes(msgpack.packb([CHAT, signed], use_bin_type=True))


@pytest.mark.parametrize("domain", OTHER_THAN_CHAT, ids=lambda d: d.name.lower())
def test_a_signature_for_another_purpose_replayed_as_a_chat_line(chatting: list[Peer],
                                                                 domain: Domain) -> None:
    """Attack A31: seat 3 sends seat 2 a chat line in seat 1's name whose body seat 1 did sign,
    but for another purpose (its handshake proof, an entry, an agreement, a sit-down). Defence:
    a chat signature covers the chat tag; seat 2 shows nothing, notes a fault against seat 3,
    and nobody is blamed."""
    bob = chatting[1]
    chat, faults = list(bob.chat), list(bob.faults)
    text = f"I resign ({domain.name.lower()})"
    bob.receive(_chat(bob, 0, chatting[0].identity, domain, text), 2, 0.0)
    assert bob.chat == chat
    assert bob.faults == [*faults, Fault(2, None, "a chat message whose signature does not verify")]
    assert bob.violation is None and not bob.stopped
    # The control: signed as chat, the same line is shown, in seat 1's name.
    bob.receive(_chat(bob, 0, chatting[0].identity, Domain.CHAT, text), 2, 0.0)
    assert bob.chat[-1] == ChatLine(0, text)


@pytest.mark.parametrize("domain", OTHER_THAN_AGREEMENT, ids=lambda d: d.name.lower())
def test_a_signature_for_another_purpose_replayed_as_an_agreement(chatting: list[Peer],
                                                                  domain: Domain) -> None:
    """Attack A32, on the wire: seat 3 sends seat 1 an agreement of seat 2 to go on without
    seat 3's machine, signed by seat 2 over the exact agreement bytes but for another purpose.
    Defence: an agreement's signature covers the agreement tag; seat 1 counts no agreement,
    notes a fault against seat 3, and nobody is blamed."""
    ann = chatting[0]
    table = table_of(chatting)
    seq, prev = len(ann.log), table.last_hash
    message = away_message(table.game_id, seq, prev, 2)
    faults = list(ann.faults)
    ann.receive(encode_agreement(Agreement(2, seq, prev, 1, sign(chatting[1].identity, domain, message))),
                2, 0.0)
    assert ann.agreed() == {}
    assert ann.faults == [*faults, Fault(2, None, "an agreement to go on whose signature does not verify")]
    assert ann.violation is None and not ann.stopped
    # The control: signed as an agreement, it counts (seat 1 itself has not agreed).
    ann.receive(encode_agreement(Agreement(2, seq, prev, 1, sign(chatting[1].identity, Domain.AGREEMENT,
                                                             message))), 2, 0.0)
    assert ann.agreed() == {2: (1,)}


def test_a_signature_for_another_purpose_inside_an_away_entry() -> None:
    """Attack A32, in the log: seat 1, the runner, writes the away entry that takes seat 3's
    seat, carrying as seat 2's agreement seat 2's signature of the exact agreement bytes made
    for another purpose (say, a chat line seat 1 got it to sign). Defence: every agreement in
    an away entry must verify under the agreement tag; the entry is refused and pinned on its
    author, seat 1, never on seat 2 (and seat 3 keeps its seat)."""
    peers = make_peers([greedy_player] * 3, seed=132)
    network = start(peers, 132)

    def seat_3_to_write() -> bool:
        table = peers[0].table
        expect = table.expected() if table else None
        return expect is not None and expect.seat == 2 and len(peers[0].log) > 8

    network.run(seat_3_to_write, MAX_SECONDS)
    log = list(peers[0].log)
    table = TableState.from_header(log[0])
    for entry in log[1:]:
        table = table.apply(entry)
    ann, bob = peers[0].identity, peers[1].identity
    message = away_message(table.game_id, table.seq, table.last_hash, 2)
    delegate = public_bytes(Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33))))

    def away(signature: bytes) -> Entry:
        return make_entry(ann, table.game_id, table.seq, table.last_hash, 0, "away",
                          [2, [[2, delegate]], [[1, signature]]])

    for domain in OTHER_THAN_AGREEMENT:
        bad = away(sign(bob, domain, message))
        with pytest.raises(ProtocolViolation) as caught:
            table.apply(bad)
        assert caught.value.seat == 0 and caught.value.seq == bad.seq
        assert "Bob (seat 2)'s agreement to go on does not verify" in caught.value.reason
        report = audit_records([*(e.raw for e in log), bad.raw])
        assert report.violation is not None
        assert (report.violation.seat, report.violation.seq) == (0, bad.seq)
    # The control: the same agreement signed as an agreement takes seat 3's seat.
    assert table.apply(away(sign(bob, Domain.AGREEMENT, message))).names[2] == "Cyd (Ann's bot)"
