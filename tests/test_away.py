"""Going on without a machine that stays away, with no server: every other player signs an
agreement for the very position the table is stuck at; the runner (the lowest other seat with
a player) writes the ``away`` entry; the interrupted hand is voided and replayed without that
seat; from the next hand a bot run by the runner's machine plays it, under a new key the entry
names. The game ends, every log is identical and the audit passes. A forged or incomplete
agreement is refused, and a player who agreed holds back the missing seat's late entry unless
a player who did not agree has taken it."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p10.audit import audit_records
from p2p10.errors import IllegalMove, ProtocolViolation
from p2p10.log import Entry, encode_log, make_entry, parse_entry, public_bytes, read_records
from p2p10.peer import ENTRY, Peer, decode_message, encode_entry_message
from p2p10.rules import RuleSet
from p2p10.simulate import greedy_player
from p2p10.table import TableState, away_message
from protocol.memory import MemoryNetwork, make_peers, open_table

RULES = RuleSet.parse(["hands=2"])
AWAY = 2  # the seat whose machine goes away


class Table:
    """Three peers on the in-memory network; ``gone`` cuts seat 2 off, both ways."""

    def __init__(self, seed: int) -> None:
        self.peers = make_peers([greedy_player] * 3, seed=seed)
        self.gone = False
        self.caught: list[bytes] = []  # what the cut-off seat sent meanwhile

        def tamper(src: int, dst: int, data: bytes) -> bytes | None:
            if self.gone and AWAY in (src, dst):
                if src == AWAY:
                    self.caught.append(data)
                return None
            return data

        self.network = MemoryNetwork(self.peers, tamper=tamper)
        open_table(self.peers, ["Ann", "Bob", "Cyd"], RULES, seed=seed)

    def stuck_mid_hand(self) -> None:
        """Play until seat 2 is to move in the middle of a hand, then cut it off."""
        def its_turn() -> bool:
            table = self.peers[0].table
            expect = table.expected() if table else None
            return (expect is not None and expect.seat == AWAY and expect.kind == "move"
                    and len(table.engine.history) >= 4)

        self.network.run(its_turn)
        self.gone = True
        self.network.run(lambda: self.peers[0].overdue is not None and self.peers[1].overdue is not None)

    def log(self, seat: int = 0) -> list[Entry]:
        return list(self.peers[seat].log)


def bring_in_the_bot(t: Table) -> Peer:
    """The runner's machine starts the bot it was given, from the runner's log."""
    runner = t.peers[0]
    bot = Peer.restore(AWAY, runner.delegated[AWAY], [e.raw for e in runner.log], [],
                       player=greedy_player)
    t.network.replace(AWAY, bot)
    t.peers[AWAY] = bot
    t.gone = False
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
    assert report.clean, report.verdict()
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
    bad_sig = stranger.sign(away_message(away.game_id, away.seq, away.prev_hash, AWAY))
    other_spot = bob.sign(away_message(away.game_id, away.seq + 1, away.prev_hash, AWAY))
    cases = {
        "only Ann": forge(table, away, bob, 1, away.body),
        "agreement of every other player": forge(table, away, ann, 0, [person, delegates, []]),
        "does not verify": forge(table, away, ann, 0, [person, delegates, [[1, bad_sig]]]),
        "does not verify ": forge(table, away, ann, 0, [person, delegates, [[1, other_spot]]]),
        "new key to each": forge(table, away, ann, 0, [person, [], cosigs]),
        "must be new": forge(table, away, ann, 0, [person, [[AWAY, public_bytes(cyd)]], cosigs]),
        "an away entry is": forge(table, away, ann, 0, [1, delegates, cosigs]),
    }
    for reason, entry in cases.items():
        with pytest.raises(ProtocolViolation, match=reason.strip()):
            table.apply(entry)


def test_replay_and_audit_tell_the_story(tmp_path: object) -> None:
    from p2p10.replay import transcript

    t = Table(11)
    t.stuck_mid_hand()
    t.peers[1].go_on_without(AWAY)
    t.network.run(lambda: bool(t.peers[0].agreed()))
    t.peers[0].go_on_without(AWAY)
    bring_in_the_bot(t)
    t.network.run(lambda: all(p.finished for p in t.peers))
    text = "\n".join(transcript(read_records(encode_log(t.peers[0].log)).items))
    assert "Ann and Bob went on without Cyd: the hand under way is void" in text
    assert "Cyd (Ann's bot) plays as a bot" in text


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
