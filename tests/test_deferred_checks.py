"""The audit defers the proofs of a hand to its reveals (PROTOCOL §4.4.3, *deferred proofs*) and
checks every one of them there, as the peers did on arrival (an audit by reveals checks a
revealed shuffle step by its seed and a revealed seat's token as ``x·A``, and only what no
reveal reaches through its proof). Here logs are forged by re-signing an honest game from a
tampered entry on (every seat's key is at hand): whatever is tampered, the deferring fold (the
audit's) names the very seat and entry that a peer, checking every proof on arrival, names."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest

from p2p10.audit import audit_bytes, audit_records
from p2p10.crypto.elgamal import Ciphertext
from p2p10.crypto.group import Scalar, base_mul
from p2p10.errors import ProtocolViolation, SavedFileError
from p2p10.log import Entry, encode_log, make_entry
from p2p10.peer import Peer
from p2p10.rules import RuleSet
from p2p10.simulate import greedy_player
from p2p10.table import TableState, fold
from protocol.memory import MemoryNetwork, make_peers, open_table


@pytest.fixture(scope="module")
def game() -> tuple[list[Peer], list[Entry]]:
    """A complete two-seat game of two hands."""
    peers = make_peers([greedy_player, greedy_player], seed=31)
    network = MemoryNetwork(peers)
    open_table(peers, ["Ann", "Bob"], RuleSet.parse(["hands=2"]), seed=31)
    network.run(lambda: all(p.finished for p in peers))
    return peers, list(peers[0].log)


def resigned(peers: Sequence[Peer], log: Sequence[Entry], at: int, body: Any) -> list[Entry]:
    """The log with entry ``at``'s body replaced, signed again by its author, and every later
    entry chained and signed again as it was."""
    out = list(log[:at])
    for entry in log[at:]:
        new_body = body if entry.seq == at else entry.body
        out.append(make_entry(peers[entry.author].identity, entry.game_id, entry.seq, out[-1].hash,
                              entry.author, entry.kind, new_body))
    return out


def live_verdict(log: Sequence[Entry]) -> ProtocolViolation | None:
    """What a peer that checks every proof on arrival finds: its first violation."""
    table: TableState | None = None
    for entry in log:
        try:
            table = fold(table, entry)
        except ProtocolViolation as err:
            return err
    return None


def audit_verdict(log: Sequence[Entry]) -> ProtocolViolation | None:
    return audit_records([e.raw for e in log]).violation


def where(err: ProtocolViolation | None) -> tuple[int | None, int | None] | None:
    return None if err is None else (err.seat, err.seq)


def test_the_honest_game_is_clean_both_ways(game: tuple[list[Peer], list[Entry]]) -> None:
    _, log = game
    assert live_verdict(log) is None and audit_records([e.raw for e in log]).clean


def test_a_wrong_token_in_a_finished_hand_is_found_by_the_audit_at_its_entry(
        game: tuple[list[Peer], list[Entry]]) -> None:
    """Bob's deal tokens carry a wrong token (and the proof of the right one) for a slot of Ann's:
    a peer refuses that entry. The audit, which checks Bob's tokens only once his secret is out,
    finds it at the hand's last reveal, and names the same seat and entry."""
    peers, log = game
    at = next(e.seq for e in log if e.kind == "tokens" and e.author == 1)
    body = [log[at].body[0], [list(item) for item in log[at].body[1]]]
    body[1][0][1] = base_mul(Scalar.from_int(7)).to_bytes()
    forged = resigned(peers, log, at, body)
    assert where(live_verdict(forged)) == (1, at)
    found = audit_verdict(forged)
    assert where(found) == (1, at) and found is not None and "token for slot" in found.reason


def test_a_bad_shuffle_in_a_finished_hand_is_found_by_the_audit_at_its_entry(
        game: tuple[list[Peer], list[Entry]]) -> None:
    """Ann's shuffle is published with two of its ciphertexts swapped (so neither its proof nor
    its seed fits it): a peer refuses it; the audit re-derives it at the reveal and, finding the
    proof false too, names the same seat and entry."""
    peers, log = game
    at = next(e.seq for e in log if e.kind == "shuffle" and e.author == 0)
    deck = bytearray(log[at].body[2])
    w = Ciphertext.WIRE_BYTES
    deck[0:w], deck[w:2 * w] = deck[w:2 * w], deck[0:w]
    forged = resigned(peers, log, at, [*log[at].body[:2], bytes(deck), log[at].body[3]])
    assert where(live_verdict(forged)) == (0, at)
    assert where(audit_verdict(forged)) == (0, at)


def flipped(data: bytes, index: int) -> bytes:
    out = bytearray(data)
    out[index] ^= 1
    return bytes(out)


def false_proofs(game: tuple[list[Peer], list[Entry]]) -> dict[str, tuple[list[Entry], tuple[int, int]]]:
    """Logs whose every shuffle and token is right, but one proof is false (attack A61): each
    with the seat and entry a peer, checking every proof on arrival, names."""
    peers, log = game
    step = next(e for e in log if e.kind == "shuffle" and e.author == 0)
    later = next(e for e in log if e.kind == "shuffle" and e.author == 0 and e.body[0] != step.body[0])
    tokens = next(e for e in log if e.kind == "tokens" and e.author == 1)

    def shuffle_with(proof: bytes) -> list[Entry]:
        return resigned(peers, log, step.seq, [*step.body[:3], proof])

    token_body = [tokens.body[0], [list(item) for item in tokens.body[1]]]
    token_body[1][0][2] = flipped(token_body[1][0][2], -1)  # its proof; the token is right
    ann = (0, step.seq)
    return {
        "a proof of shuffle with its last byte flipped": (shuffle_with(flipped(step.body[3], -1)), ann),
        "a proof of shuffle with its first byte changed": (shuffle_with(flipped(step.body[3], 0)), ann),
        "the proof of the same seat's step in another hand": (shuffle_with(later.body[3]), ann),
        "a right token with a false proof": (resigned(peers, log, tokens.seq, token_body), (1, tokens.seq)),
    }


@pytest.mark.parametrize("name", ["a proof of shuffle with its last byte flipped",
                                  "a proof of shuffle with its first byte changed",
                                  "the proof of the same seat's step in another hand",
                                  "a right token with a false proof"])
def test_a_false_proof_of_a_right_step_is_the_peers_verdict(
        game: tuple[list[Peer], list[Entry]], name: str) -> None:
    """Attack A61: the step is right (its seed re-derives it, or the token is ``x·A``) but its
    proof is false. A peer refuses the entry; the audit checks every proof too, and names the
    same seat and entry. An audit by reveals does not check it, and its verdict says so."""
    forged, blamed = false_proofs(game)[name]
    assert where(live_verdict(forged)) == blamed
    assert where(audit_verdict(forged)) == blamed
    by_reveals = audit_records([e.raw for e in forged], every_proof=False)
    assert by_reveals.violation is None and not by_reveals.every_proof
    assert by_reveals.verdict().startswith("CLEAN BY REVEALS: ") and "not checked" in by_reveals.verdict()


def test_a_false_proof_and_a_later_false_move_blame_the_prover(game: tuple[list[Peer], list[Entry]]) -> None:
    """Attack A61: a false proof of a right shuffle at Ann's step, then, in the next hand, a move
    of Bob's that breaks the rules. The peers froze on Ann's step and never saw the move: the audit names Ann
    at her step, not Bob at his move (an audit by reveals, which never checks the proof, names
    Bob)."""
    peers, _log = game
    forged, blamed = false_proofs(game)["a proof of shuffle with its last byte flipped"]
    next_hand = next(e.seq for e in forged if e.kind == "shuffle" and e.body[0] != forged[blamed[1]].body[0])
    move = next(e for e in forged if e.kind == "move" and e.author == 1 and e.seq > next_hand
                and e.body[1] in ("draw", "take"))  # after every reveal of Ann's hand
    bad = resigned(peers, forged, move.seq, [move.body[0], "discard", 9999, None, []])
    assert where(live_verdict(bad)) == blamed
    assert where(audit_verdict(bad)) == blamed
    assert where(audit_records([e.raw for e in bad], every_proof=False).violation) == (1, move.seq)


def test_a_violation_after_a_bad_proof_is_not_the_verdict(game: tuple[list[Peer], list[Entry]]) -> None:
    """A bad token, then a move of Ann's that breaks the rules: a peer stops at the token and
    never sees the move; the audit, which has not checked the token when the move breaks,
    checks what it put off before reporting, and names the token too."""
    peers, log = game
    at = next(e.seq for e in log if e.kind == "tokens" and e.author == 1)
    body = [log[at].body[0], [list(item) for item in log[at].body[1]]]
    body[1][0][1] = base_mul(Scalar.from_int(7)).to_bytes()
    forged = resigned(peers, log, at, body)
    move = next(e for e in forged if e.kind == "move" and e.seq > at and e.body[1] in ("draw", "take"))
    bad = resigned(peers, forged, move.seq, [move.body[0], "discard", 9999, None, []])
    deferring = TableState.from_header(bad[0], defer_proofs=True)
    with pytest.raises(ProtocolViolation) as stopped:
        for entry in bad[1:]:
            deferring = deferring.apply(entry)
    assert where(stopped.value) == (move.author, move.seq)  # where the deferring fold breaks
    assert where(live_verdict(bad)) == (1, at)
    assert where(audit_verdict(bad)) == (1, at)  # ... and the audit still names the token


@pytest.mark.parametrize("name", ["a proof of shuffle with its last byte flipped",
                                  "a right token with a false proof"])
def test_a_false_proof_before_a_torn_tail_is_the_verdict_not_the_damage(
        game: tuple[list[Peer], list[Entry]], name: str) -> None:
    """PROTOCOL §8: before a torn tail is reported, the proofs the fold put off are checked, as
    the peers checked them on arrival. The file ends in the middle of an entry of the same hand
    as a false proof (whose reveals never come): the verdict is the proof's VIOLATION, not
    DAMAGED; with the proof right, the same cut is DAMAGED."""
    _peers, log = game
    forged, blamed = false_proofs(game)[name]
    cut = blamed[1] + 3  # a few entries on, in the same hand, before any reveal
    assert all(e.kind != "reveal" for e in forged[blamed[1]:cut + 1])
    torn = encode_log(forged[:cut + 1])[:-5]
    report = audit_bytes(torn)
    assert where(report.violation) == blamed and report.damage is None, report.verdict()
    honest = audit_bytes(encode_log(log[:cut + 1])[:-5])
    assert honest.violation is None and honest.damage is not None and honest.damage.seq == cut


def test_deferred_tokens_are_checked_against_the_revealed_secrets(game: tuple[list[Peer], list[Entry]],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """In a finished hand an audit by reveals checks no token proof at all: each token is
    compared with ``x·A`` once its maker's secret is out (one multiplication instead of four).
    The audit's default checks every one, as the peers did."""
    import p2p10.deferred

    _, log = game
    calls: list[int] = []
    monkeypatch.setattr(p2p10.deferred, "verify_equal_logs", lambda *args: calls.append(1) or True)
    assert audit_records([e.raw for e in log], every_proof=False).violation is None
    assert calls == []
    assert audit_records([e.raw for e in log]).clean
    assert len(calls) >= sum(len(e.body[1]) for e in log if e.kind == "tokens")  # (and the tokens of moves)


@pytest.fixture(scope="module")
def pool() -> Iterator[ProcessPoolExecutor]:
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(1, mp_context=context) as executor:
        yield executor


def test_an_audit_with_a_pool_gives_the_very_same_report(game: tuple[list[Peer], list[Entry]],
                                                          pool: ProcessPoolExecutor) -> None:
    """Each hand's checks made in another process while the fold goes on: the same verdict,
    players and score sheet, for a clean log and for each forged one (where a check fails in
    the pool, the audit folds the file again, each hand checked at its end)."""
    peers, log = game
    at = next(e.seq for e in log if e.kind == "tokens" and e.author == 1)
    body = [log[at].body[0], [list(item) for item in log[at].body[1]]]
    body[1][0][1] = base_mul(Scalar.from_int(7)).to_bytes()
    shuffle_at = next(e.seq for e in log if e.kind == "shuffle" and e.author == 0)
    deck = bytearray(log[shuffle_at].body[2])
    deck[0:64], deck[64:128] = deck[64:128], deck[0:64]
    forged = [log, resigned(peers, log, at, body),
              resigned(peers, log, shuffle_at, [*log[shuffle_at].body[:2], bytes(deck),
                                                log[shuffle_at].body[3]]),
              log[:len(log) // 2]]
    for entries in forged:
        data = encode_log(entries)
        alone, pooled = audit_bytes(data), audit_bytes(data, pool)
        assert pooled.verdict() == alone.verdict() and pooled.entries == alone.entries
        assert pooled.sheet == alone.sheet and where(pooled.violation) == where(alone.violation)
    assert audit_bytes(encode_log(forged[1]), pool).violation is not None


def test_a_restarted_peer_refolds_deferring_then_checks_on_arrival(
        game: tuple[list[Peer], list[Entry]]) -> None:
    """A peer started again from its files refolds its log as the audit does (cheaper), makes
    the checks it put off in the hand under way, and from then on checks every proof on
    arrival: a saved log that ends with a shuffle whose proof is false is refused."""
    peers, log = game
    at = next(e.seq for e in log if e.kind == "shuffle" and e.author == 1)
    secrets = list(peers[0].secrets.values())
    honest = Peer.restore(0, peers[0].identity, [e.raw for e in log[:at + 1]], secrets)
    assert honest.table is not None and not honest.table.defer_proofs
    assert honest.table.hand is not None and honest.table.hand.deferred == ()
    proof = bytearray(log[at].body[3])
    proof[-1] ^= 1
    forged = resigned(peers, log, at, [*log[at].body[:3], bytes(proof)])
    with pytest.raises(SavedFileError, match=r"Bob \(seat 2\)'s proof of shuffle in round 0 does not verify"):
        Peer.restore(0, peers[0].identity, [e.raw for e in forged[:at + 1]], secrets)
