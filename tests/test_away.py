"""Going on without a machine that stays away, with no server: every other player signs an
agreement for the very position the table is stuck at; the runner (the lowest other seat with
a player) writes the ``away`` entry; the interrupted hand is voided and replayed without that
seat; from the next hand a bot run by the runner's machine plays it, under a new key the entry
names. The game ends and every log is identical. A forged or incomplete
agreement is refused, and a player who agreed holds back the missing seat's late entry unless
a player who did not agree has taken it. The audit names every takeover (whose seat, at which
entry, agreed by whom) and the shuffle steps of the voided hand whose seeds were never
revealed: nobody can check those, so it exits 3, not 0."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cli.main import main
from p2p10.audit import CLEAN, audit_records
from p2p10.errors import IllegalMove, ProtocolViolation
from p2p10.hand_crypto import away_message, shuffle_context
from p2p10.log import Entry, encode_log, make_entry, parse_entry, public_bytes, read_records
from p2p10.peer import ENTRY, Peer, decode_message, encode_entry_message
from p2p10.rules import RuleSet
from p2p10.signing import Domain, sign
from p2p10.simulate import greedy_player
from p2p10.table import TableState
from p2p10.table_reading import Takeover
from protocol.memory import MemoryNetwork, make_peers, open_table, seeded_bytes
from tests.test_attacks import Withholder

RULES = RuleSet.parse(["hands=2"])
AWAY = 2  # the seat whose machine goes away


class Table:
    """Three peers on the in-memory network; ``gone`` cuts seat 2 off, both ways."""

    def __init__(self, seed: int, peer_class: Callable[..., Peer] = Peer) -> None:
        self.seed = seed
        self.peers = make_peers([greedy_player] * 3, seed=seed, peer_class=peer_class)
        self.gone = False
        self.caught: list[bytes] = []  # what the cut-off seat sent meanwhile

        def tamper(src: int, dst: int, data: bytes) -> bytes | None:
            if self.gone and src == AWAY:
                self.caught.append(data)
            return data

        self.network = MemoryNetwork(self.peers, tamper=tamper)
        open_table(self.peers, ["Ann", "Bob", "Cyd"], RULES, seed=seed)

    def stuck_mid_hand(self) -> None:
        """Play until seat 2 is to move in the middle of a hand, then cut it off."""
        def its_turn() -> bool:
            table = self.peers[0].table
            expect = table.expected() if table else None
            return (expect is not None and expect.seat == AWAY and expect.kind == "move"
                    and len(table.engine.history) >= 4
                    and len(self.peers[AWAY].log) > len(self.peers[0].log))  # its move, unsent

        self.network.run(its_turn)
        self.cut_off()

    def stuck_at_the_reveal(self) -> None:
        """Play until the others wait for seat 2's reveal (it withholds it), then cut it off."""
        self.network.run(lambda: all(p.overdue is not None for p in self.peers[:AWAY]))
        self.cut_off()

    def cut_off(self) -> None:
        """Seat 2's machine drops off the network; wait until the others count it away."""
        self.gone = True
        self.network.split({0, 1}, {AWAY})
        self.network.run(lambda: all(p.waiting() is not None and p.waiting().offer  # type: ignore[union-attr]
                                     for p in self.peers[:AWAY]))

    def go_on(self) -> Entry:
        """Bob agrees, then Ann, who writes the away entry; returns it."""
        self.peers[1].go_on_without(AWAY)
        self.network.run(lambda: bool(self.peers[0].agreed()))
        self.peers[0].go_on_without(AWAY)
        away = self.log()[-1]
        assert away.kind == "away"
        return away

    def finish(self) -> list[Entry]:
        """The bot takes seat 2 and the game is played to its end; returns Ann's log."""
        bring_in_the_bot(self)
        self.network.run(lambda: all(p.finished for p in self.peers))
        return self.log()

    def log(self, seat: int = 0) -> list[Entry]:
        return list(self.peers[seat].log)


def bring_in_the_bot(t: Table) -> Peer:
    """The runner's machine starts the bot it was given, from the runner's log."""
    runner = t.peers[0]
    # Its randomness seeded too (its shuffles, its secrets, its choices): the game after the
    # takeover is then the same on every run. (From the operating system, a tie and its
    # replay hand came up once in a while, against the hands tests/test_narrate.py expects.)
    bot = Peer.restore(AWAY, runner.delegated[AWAY], [e.raw for e in runner.log], [],
                       player=greedy_player, rng_bytes=seeded_bytes(t.seed, "bot-takeover"),
                       rng=random.Random(f"{t.seed}/bot-takeover"))
    t.network.replace(AWAY, bot)
    t.peers[AWAY] = bot
    t.gone = False
    t.network.heal()  # the bot runs on Ann's machine
    return bot


@pytest.mark.parametrize("seed", [11, 12])
def test_the_others_go_on_and_a_bot_takes_the_seat_from_the_next_hand(seed: int) -> None:
    t = Table(seed)
    t.stuck_mid_hand()
    hand_before = t.peers[0].table.engine.hand_no  # type: ignore[union-attr]
    with pytest.raises(IllegalMove, match="cannot go on without itself"):
        t.peers[AWAY].go_on_without(AWAY)
    t.peers[1].go_on_without(AWAY)  # Bob agrees first; Ann (the runner) writes once she agrees
    t.network.run(lambda: bool(t.peers[0].agreed()))
    assert all(e.kind != "away" for e in t.log())
    assert t.peers[0].agreed() == {AWAY: (1,)}
    t.peers[0].go_on_without(AWAY)
    away = t.log()[-1]
    assert away.kind == "away" and away.author == 0
    table = t.peers[0].table
    assert table is not None
    assert table.names[AWAY] == "Cyd (Ann's bot)" and table.run_by[AWAY] == 0
    assert table.keys[AWAY] != table.signing_keys[AWAY]  # the roster key stays; a new one signs
    assert table.engine.hand_no == hand_before - 1 and table.engine.stage == "deal"  # voided
    assert table.engine.next_deal_seats() == (0, 1)  # ... and replayed without Cyd
    bot = bring_in_the_bot(t)
    t.network.run(lambda: all(p.finished for p in t.peers))
    assert all(p.log == t.peers[0].log for p in t.peers[:2]) and bot.log == t.peers[0].log
    engine = t.peers[0].table.engine  # type: ignore[union-attr]
    replayed = engine.sheet[hand_before]
    assert replayed.points[AWAY] is None and replayed.points[0] is not None  # Cyd sat it out
    later = [row for row in engine.sheet[hand_before + 1:] if not row.tie]
    assert all(row.points[AWAY] is not None for row in later)  # the bot played them
    assert len([row for row in engine.sheet if not row.tie]) == 2 and engine.winner is not None
    report = audit_records(read_records(encode_log(t.peers[0].log)).items)
    assert report.violation is None and report.complete, report.verdict()
    assert report.clean  # the voided hand's shuffles are checked through their proofs
    assert report.takeovers == (Takeover(AWAY, (AWAY,), away.seq, 0, (0, 1), hand_before),)
    assert not any(f.seat in (0, 1) for p in t.peers for f in p.faults)


def test_an_agreement_holds_back_the_late_entry_until_someone_who_did_not_agree_takes_it() -> None:
    t = Table(15)
    t.stuck_mid_hand()
    late = next(d for d in t.caught if decode_message(d)[0] == ENTRY
                and parse_entry(decode_message(d)[1]).seq == len(t.peers[1].log))
    t.peers[1].go_on_without(AWAY)
    before = len(t.peers[1].log)
    t.peers[1].receive(late, AWAY, t.network.now)  # from the absent seat itself: held back
    assert len(t.peers[1].log) == before and t.peers[1].going_on is not None
    t.peers[1].receive(late, 0, t.network.now)  # Ann, who never agreed, took it: going on is off
    assert len(t.peers[1].log) == before + 1 and t.peers[1].going_on is None
    assert t.peers[1].log[-1].raw == decode_message(late)[1]  # Cyd's own entry, at its position
    # Nobody is blamed for anything: the table simply goes on with Cyd, to one history.
    t.gone = False
    t.network.heal()
    t.network.run(lambda: all(p.finished for p in t.peers))
    assert all(p.log == t.peers[0].log and not p.stopped and not p.faults for p in t.peers)
    report = audit_records([e.raw for e in t.log()])
    assert report.clean and not report.takeovers, report.verdict()


def test_a_player_passed_the_late_entry_by_one_who_had_agreed_follows_the_away_entry() -> None:
    """Bob agrees to go on without Cyd. Then Cyd's late entry reaches him from Ann before her
    agreement does, so he takes it: to him, going on cannot happen any more. But Ann had agreed
    (a dishonest consenter, or here the runner, passing it on anyway) and writes the away entry.
    From that position Bob's log holds Cyd's entry only, which nobody who agreed built on: he
    cuts it back and takes the away entry, as Cyd's own machine would, and the game ends in one
    history. Nobody is blamed: a relay is not signed, so Bob cannot show who passed the entry
    on (§4.13, the safety rule; A70). Before, Bob blamed Ann for the away entry and stayed on a
    fork of his own."""
    t = Table(15)
    t.stuck_mid_hand()
    seq = len(t.peers[1].log)
    late = next(d for d in t.caught if decode_message(d)[0] == ENTRY
                and parse_entry(decode_message(d)[1]).seq == seq)
    t.peers[1].go_on_without(AWAY)
    t.network.run(lambda: bool(t.peers[0].agreed()))  # Ann holds Bob's agreement
    t.peers[1].receive(late, 0, t.network.now)  # "from Ann", not known to Bob to have agreed
    assert len(t.peers[1].log) == seq + 1 and t.peers[1].going_on is None
    t.peers[0].go_on_without(AWAY)  # ... and yet she agrees, and writes the away entry
    away = t.log()[-1]
    assert away.kind == "away" and away.seq == seq
    later = t.network.now + 5
    t.network.run(lambda: t.network.now >= later)
    assert t.peers[1].log[seq] == away and t.peers[1].going_on is None
    log = t.finish()
    assert all(p.log == log and not p.stopped for p in t.peers)
    assert not [f for p in t.peers for f in p.faults if f.seat is not None]
    report = audit_records([e.raw for e in log])
    assert report.violation is None and [o.seq for o in report.takeovers] == [seq], report.verdict()


def forge(table: TableState, away: Entry, author: Ed25519PrivateKey, seat: int, body: object) -> Entry:
    return make_entry(author, away.game_id, away.seq, away.prev_hash, seat, "away", body)


def test_a_forged_or_incomplete_away_entry_is_refused() -> None:
    t = Table(14)
    t.stuck_mid_hand()
    t.peers[1].go_on_without(AWAY)
    t.network.run(lambda: bool(t.peers[0].agreed()))
    t.peers[0].go_on_without(AWAY)
    log = t.log()
    away = log[-1]
    assert away.kind == "away"
    table = TableState.from_header(log[0])
    for entry in log[1:-1]:
        table = table.apply(entry)
    assert table.apply(away).names[AWAY] == "Cyd (Ann's bot)"
    person, delegates, cosigs = away.body
    ann, bob, cyd = (p.identity for p in t.peers)
    stranger = Ed25519PrivateKey.generate()
    bad_sig = sign(stranger, Domain.AGREEMENT, away_message(away.game_id, away.seq, away.prev_hash, AWAY))
    other_spot = sign(bob, Domain.AGREEMENT, away_message(away.game_id, away.seq + 1, away.prev_hash, AWAY))
    cases = {
        "only Ann": forge(table, away, bob, 1, away.body),
        "agreement of every other player": forge(table, away, ann, 0, [person, delegates, []]),
        "does not verify": forge(table, away, ann, 0, [person, delegates, [[1, bad_sig]]]),
        "does not verify ": forge(table, away, ann, 0, [person, delegates, [[1, other_spot]]]),
        "new key to each": forge(table, away, ann, 0, [person, [], cosigs]),
        "must be new": forge(table, away, ann, 0, [person, [[AWAY, public_bytes(cyd)]], cosigs]),
        "an away entry is": forge(table, away, ann, 0, [1, delegates, cosigs]),
    }
    records = [e.raw for e in log[:-1]]
    for reason, entry in cases.items():
        with pytest.raises(ProtocolViolation, match=reason.strip()) as caught:
            table.apply(entry)
        assert (caught.value.seat, caught.value.seq) == (entry.author, away.seq)
        # A live peer at that position freezes on the same seat and entry.
        witness = 1 if entry.author == 0 else 0
        live = Peer.restore(witness, t.peers[witness].identity, records,
                            list(t.peers[witness].secrets.values()))
        live.receive(encode_entry_message(entry.raw), entry.author, t.network.now)
        assert live.violation is not None and live.stopped, reason
        assert (live.violation.seat, live.violation.seq) == (entry.author, away.seq)
        assert len(live.log) == away.seq  # refused


def test_a_delegate_key_is_new_to_the_whole_game() -> None:
    """A delegate key must be new: not the table key of a seat already taken over (Cyd's own
    key, no longer signing for Cyd), nor any key an earlier away entry gave. Before, only the
    keys signing at that moment were excluded, so Ann could give Bob's seat the key of Cyd's
    absent machine: one key for two seats (PROTOCOL 4.13)."""
    t = Table(14)
    t.stuck_mid_hand()
    cyd = t.peers[AWAY].identity
    first = t.go_on()
    log = t.finish()
    delegate = first.body[1][0][1]
    table = TableState.from_header(log[0])
    for entry in log[1:first.seq + 1]:
        table = table.apply(entry)
    ann = t.peers[0].identity
    tried = 0
    for entry in log[first.seq + 1:]:
        expect = table.expected()
        if expect is not None and expect.seat == 1 and not table.engine.sitting_out:
            def away(key: bytes, at: Entry = entry) -> Entry:
                return make_entry(ann, at.game_id, at.seq, at.prev_hash, 0, "away", [1, [[1, key]], []])
            assert table.apply(away(public_bytes(Ed25519PrivateKey.generate()))).names[1] == "Bob (Ann's bot)"
            for reused in (public_bytes(cyd), delegate):
                with pytest.raises(ProtocolViolation, match="must be new") as caught:
                    table.apply(away(reused))
                assert (caught.value.seat, caught.value.seq) == (0, entry.seq)
            tried += 1
        table = table.apply(entry)
    assert tried


def test_replay_and_audit_tell_the_story(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The transcript and the audit name the takeover (Cyd's seat, at the away entry, agreed by
    Ann, who wrote it, and Bob). None of the voided hand's seeds was revealed, yet every one of
    its shuffle steps is checked, through its proof of shuffle: the audit is CLEAN (exit 0), and
    --json says so with the takeover."""
    from p2p10.replay import transcript

    t = Table(11)
    t.stuck_mid_hand()
    voided = t.peers[0].table.hand  # type: ignore[union-attr]
    assert voided is not None and not voided.claims and len(voided.rounds[0].proofs) == 3
    row = len(t.peers[0].table.engine.sheet)  # type: ignore[union-attr]  # its score sheet row
    away = t.go_on()
    log = t.finish()
    text = "\n".join(transcript(read_records(encode_log(log)).items))
    assert (f"** At entry {away.seq} Ann and Bob went on without Cyd: the hand under way is void "
            "and is dealt again without that seat; from the next hand Cyd (Ann's bot) plays as a "
            "bot **\n   (Ann wrote the away entry, with the signed agreement of Bob)") in text
    assert "Never checked" not in text

    path = tmp_path / "game.p2p10"
    path.write_bytes(encode_log(log))
    assert main(["audit", str(path)]) == CLEAN
    out = capsys.readouterr().out
    assert (f"Went on without a machine: at entry {away.seq} the table went on without Cyd (seat 3), "
            "agreed by Ann (seat 1) and Bob (seat 2); Ann's machine plays it from then on") in out
    verdict = out.splitlines()[-1]
    assert verdict.startswith("CLEAN: "), verdict

    assert main(["audit", "--json", str(path)]) == CLEAN
    report = json.loads(capsys.readouterr().out)
    assert "unchecked" not in report
    replayed = report["hands"][row]  # the same number on the score sheet: dealt again, scored
    assert replayed["hand"] == row + 1 and replayed["points"][AWAY] is None
    # §8: a seat not dealt in has no phase (null), made false; seats count from 1 in the JSON.
    assert replayed["phase"][AWAY] is None and replayed["made"][AWAY] is False
    sheet = t.peers[0].table.engine.sheet  # type: ignore[union-attr]
    assert [h["went_out"] for h in report["hands"]] == [h.went_out + 1 for h in sheet]
    assert replayed["went_out"] in (1, 2)  # Ann or Bob: Cyd (3) was not dealt in
    assert report["takeovers"] == [{"seat": 3, "entry": away.seq, "agreed_by": [1, 2], "runner": 1}]
    assert report["clean"] and report["complete"] and report["violation"] is None
    assert report["verdict"] == verdict


def test_a_hand_voided_at_its_reveal_is_checked_by_seeds_and_proofs() -> None:
    """Cyd never writes its reveal; Ann and Bob had revealed theirs, and their steps were
    re-derived from their seeds right then. The others go on without Cyd: the audit checks
    Cyd's steps of that hand through their proofs of shuffle, and the game is CLEAN."""
    def build(seat: int, identity: Ed25519PrivateKey, **options: Any) -> Peer:
        return (Withholder if seat == AWAY else Peer)(seat, identity, **options)

    t = Table(16, peer_class=build)
    t.stuck_at_the_reveal()
    hand = t.peers[0].table.hand  # type: ignore[union-attr]
    assert hand is not None and len(hand.claims) == AWAY  # Ann's and Bob's reveals are in
    row = len(t.peers[0].table.engine.sheet)  # type: ignore[union-attr]
    away = t.go_on()
    log = t.finish()
    report = audit_records([e.raw for e in log])
    assert report.exit_status == CLEAN and report.violation is None, report.verdict()
    assert report.takeovers == (Takeover(AWAY, (AWAY,), away.seq, 0, (0, 1), row),)


def test_a_machine_that_comes_back_takes_the_away_entry_and_follows_without_writing(
        tmp_path: Path) -> None:
    """Cyd's machine wrote its move just as it went away: nobody took it. When it comes back
    it finds that the others went on without it: it cuts its own log (and file) back to that
    position, takes the away entry, and follows the game to its end without writing again."""
    from protocol.mesh import attach_files
    from protocol.storage import read_log

    t = Table(15)
    t.stuck_mid_hand()
    old = t.peers[AWAY]
    log_file, secrets_file = attach_files(old, tmp_path / "cyd.p2p10", durable=False)
    for entry in old.log:
        log_file.add(entry)
    assert len(old.log) > len(t.peers[0].log)  # its move, which nobody has
    t.peers[1].go_on_without(AWAY)
    t.network.run(lambda: bool(t.peers[0].agreed()))
    t.peers[0].go_on_without(AWAY)
    bring_in_the_bot(t)
    t.network.run(lambda: all(p.finished for p in t.peers))
    for entry in t.peers[0].log:  # it comes back, and hears the log from Ann
        old.receive(encode_entry_message(entry.raw), 0, t.network.now)
    assert old.log == t.peers[0].log and old.finished and not old.stopped
    assert not [f for f in old.faults if f.seat == 0]
    log_file.close()
    secrets_file.close()
    assert read_log(tmp_path / "cyd.p2p10") == [e.raw for e in t.peers[0].log]


def test_a_void_at_any_position_checks_the_proofs_of_exactly_the_unrevealed_steps(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """At every position of an honest game, the others go on without the machine awaited there:
    the away entry is accepted and names the takeover. A fold that defers proofs of shuffle to
    the reveals (the audit's) checks, at the away entry, the proofs of exactly the voided hand's
    shuffle entries by seats that had not yet revealed (none before a hand is dealt); the
    revealed ones were re-derived from their seeds."""
    import p2p10.deferred

    checked: list[bytes] = []
    real = p2p10.deferred.verify_shuffle_proof

    def counting(before: Any, after: Any, joint: Any, proof: Any, context: bytes) -> bool:
        checked.append(context)
        return real(before, after, joint, proof, context)

    monkeypatch.setattr(p2p10.deferred, "verify_shuffle_proof", counting)
    peers = make_peers([greedy_player] * 3, seed=17)
    network = MemoryNetwork(peers)
    open_table(peers, ["Ann", "Bob", "Cyd"], RuleSet.parse(["hands=1"]), seed=17)
    network.run(lambda: all(p.finished for p in peers))
    log = peers[0].log
    identities = {p.seat: p.identity for p in peers}
    bot_key = public_bytes(Ed25519PrivateKey.from_private_bytes(bytes(32)))
    table = TableState.from_header(log[0], defer_proofs=True)
    hand_from = 1
    reveals_seen = set()
    for seq in range(1, len(log)):
        if table.hand is None:
            hand_from = seq  # the next entry opens a hand
        person = table.awaited_machine()
        runner = table.runner_for(person)  # type: ignore[arg-type]
        assert person is not None and runner is not None
        agreements = [[c, sign(identities[c], Domain.AGREEMENT,
                                     away_message(table.game_id, seq, table.last_hash, person))]
                      for c in table.consenters(person)]
        away = make_entry(identities[runner], table.game_id, seq, table.last_hash, runner, "away",
                          [person, [[person, bot_key]], agreements])
        checked.clear()
        after = table.apply(away)
        so_far = log[hand_from:seq] if table.hand is not None else []
        revealed = {e.author for e in so_far if e.kind == "reveal"}
        reveals_seen.add(len(revealed))
        hand_no = table.hand.number if table.hand is not None else None
        assert checked == [shuffle_context(table.game_id, hand_no, e.body[1], e.author)  # type: ignore[arg-type]
                           for e in so_far if e.kind == "shuffle" and e.author not in revealed]
        assert after.takeovers == (Takeover(person, (person,), seq, runner,
                                            tuple(sorted([runner, *table.consenters(person)])),
                                            len(table.engine.sheet)),)
        table = table.apply(log[seq])
    assert reveals_seen == {0, 1, 2}  # voided before, and between, the reveals
    assert table.expected() is None and not table.takeovers
