"""Slow is not gone, and gone can come back (PROTOCOL §4.13, §4.14).

A machine is *away* only when no link to it has been up for ``away_after`` seconds: a player
who is connected and thinking is never offered to the others, however long they think. Once a
player has agreed to go on at a position, it never takes the late entry for that position from
another player who agreed too. A refused go-on is an :class:`IllegalMove` (a line on the
screen), never an exception that kills a peer. A machine that was away and returns follows
the game and takes its seat back, by a ``back`` entry, at the start of the next hand."""

from __future__ import annotations

import random

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p10.audit import audit_records
from p2p10.errors import IllegalMove, ProtocolViolation
from p2p10.hand_crypto import return_message
from p2p10.log import Entry, make_entry, parse_entry
from p2p10.peer import ENTRY, Peer, decode_message, encode_entry_message
from p2p10.replay import transcript
from p2p10.rules import RuleSet
from p2p10.signing import Domain, sign
from p2p10.simulate import greedy_player
from p2p10.table import TableState
from p2p10.table_reading import Return
from protocol.lan import Machine, taken_note
from protocol.memory import MemoryNetwork, make_peers, open_table, seeded_bytes

RULES = RuleSet.parse(["hands=3"])
CYD = 2


def table_of(peers: list[Peer], seed: int, names: list[str], rules: RuleSet = RULES,
             players: list[object] | None = None) -> MemoryNetwork:
    network = MemoryNetwork(peers)
    open_table(peers, names, rules, seed=seed)
    return network


def awaiting_move(peers: list[Peer], seat: int, moves: int = 3) -> bool:
    """The table waits for ``seat``'s move (after ``moves`` moves), and every peer knows it."""
    table = peers[0].table
    expect = table.expected() if table else None
    return (expect is not None and expect.seat == seat and expect.kind == "move"
            and len(table.engine.history) >= moves and all(len(p.log) == len(peers[0].log) for p in peers))


def moved_unseen(peers: list[Peer], seat: int) -> bool:
    """The others wait for ``seat``'s move, which its bot has just written and not yet sent."""
    table = peers[0].table
    expect = table.expected() if table else None
    return (expect is not None and expect.seat == seat and expect.kind == "move"
            and len(table.engine.history) >= 3 and len(peers[seat].log) > len(peers[0].log))


def test_a_connected_player_who_thinks_for_minutes_is_never_offered_away() -> None:
    """Cyd's machine is linked but Cyd does not move for five minutes: the others see "thinking",
    with the time, never an offer; pressing go-on anyway is refused with a reason; then Cyd
    moves and the game goes on with nobody blamed."""
    peers = make_peers([greedy_player, greedy_player, None], seed=21)
    network = table_of(peers, 21, ["Ann", "Bob", "Cyd"])
    network.run(lambda: awaiting_move(peers, CYD, moves=0), max_seconds=600)
    start = network.now
    network.run(lambda: network.now - start >= 300)
    for peer in peers[:CYD]:
        waiting = peer.waiting()
        assert waiting is not None and waiting.person == CYD
        assert waiting.away is None and not waiting.offer and waiting.waited >= 299
        with pytest.raises(IllegalMove, match="Cyd is still connected: they are thinking"):
            peer.go_on_without(CYD)
        assert peer.going_on is None and not peer.agreed()
    cyd = peers[CYD]
    cyd.play(greedy_player(cyd.view(), CYD, random.Random(0)))
    network.run(lambda: (len(peers[0].log) > len(peers[1].log) - 1 and peers[0].log[-1].author == CYD)
                or (peers[0].table is not None and peers[0].table.awaited_machine() != CYD))
    assert all(e.kind != "away" for e in peers[0].log)
    assert not any(f.seat is not None for p in peers for f in p.faults)


def test_a_machine_out_of_reach_is_away_only_after_away_after() -> None:
    peers = make_peers([greedy_player] * 3, seed=22)
    network = table_of(peers, 22, ["Ann", "Bob", "Cyd"])
    network.run(lambda: moved_unseen(peers, CYD))
    network.split({0, 1}, {CYD})
    cut = network.now
    network.run(lambda: network.now - cut >= 10)
    waiting = peers[1].waiting()
    assert waiting is not None and waiting.away is not None and 9 <= waiting.away <= 11
    assert not waiting.offer
    with pytest.raises(IllegalMove, match=r"out of reach for 1\d s only; a machine is away after 30 s"):
        peers[1].go_on_without(CYD)
    network.run(lambda: network.now - cut >= 31)
    waiting = peers[1].waiting()
    assert waiting is not None and waiting.offer
    peers[1].go_on_without(CYD)  # now it may
    assert peers[1].going_on is not None
    # The link comes back before everybody agreed: the agreement stands but Cyd's entry is
    # taken from Ann, who never agreed; one history, nobody blamed.
    network.heal()
    network.run(lambda: all(p.finished for p in peers))
    assert all(p.log == peers[0].log for p in peers) and all(e.kind != "away" for e in peers[0].log)
    assert not any(f.seat is not None for p in peers for f in p.faults)


def test_a_player_who_agreed_never_takes_the_late_entry_from_another_who_agreed() -> None:
    """Four seats; Dan is away. Bob and Cyd agreed; Ann (the runner) has not yet. Cyd passes
    Dan's late entry to Bob (a lying or buggy peer could): Bob holds it back, because Cyd
    promised never to take it. Only Ann, who did not agree, passing it on shows that going on
    cannot happen, and then Bob takes it."""
    dan = 3
    peers = make_peers([greedy_player] * 4, seed=23)
    caught: list[bytes] = []

    def tamper(src: int, dst: int, data: bytes) -> bytes | None:
        if src == dan:
            caught.append(data)
        return data

    network = MemoryNetwork(peers, tamper=tamper)
    open_table(peers, ["Ann", "Bob", "Cyd", "Dan"], RULES, seed=23)
    network.run(lambda: moved_unseen(peers, dan))
    caught.clear()
    network.split({0, 1, 2}, {dan})  # Dan moved, and nobody got it
    network.run(lambda: bool(caught) and peers[1].waiting() is not None
                and peers[1].waiting().offer)  # type: ignore[union-attr]
    late = next(d for d in caught if decode_message(d)[0] == ENTRY
                and parse_entry(decode_message(d)[1]).seq == len(peers[1].log))
    peers[1].go_on_without(dan)
    peers[2].go_on_without(dan)
    network.run(lambda: peers[1].agreed().get(dan) == (1, 2))
    before = len(peers[1].log)
    peers[1].receive(late, 2, network.now)  # from Cyd, who agreed: held back
    assert len(peers[1].log) == before and peers[1].going_on is not None
    peers[1].receive(late, 0, network.now)  # from Ann, who did not: going on cannot happen
    assert len(peers[1].log) > before and peers[1].going_on is None
    assert peers[1].log[before].raw == decode_message(late)[1]


def test_a_refused_go_on_is_a_message_never_an_exception() -> None:
    """At a two-seat table, going on without the other would leave one player: the key the
    screen offers says why instead. A machine cannot go on without itself."""
    peers = make_peers([greedy_player, greedy_player], seed=24)
    network = table_of(peers, 24, ["Ann", "Bob"])
    network.run(lambda: moved_unseen(peers, 1))
    network.split({0}, {1})
    cut = network.now
    network.run(lambda: network.now - cut >= 40)
    waiting = peers[0].waiting()
    assert waiting is not None and waiting.away is not None and not waiting.offer
    with pytest.raises(IllegalMove, match="fewer than 2 would play"):
        peers[0].go_on_without(1)
    with pytest.raises(IllegalMove, match="cannot go on without itself"):
        peers[1].go_on_without(1)
    assert not peers[0].stopped and not peers[1].stopped


def play_until(network: MemoryNetwork, peers: list[Peer], done: object) -> None:
    network.run(done)  # type: ignore[arg-type]


def bot_for(runner: Peer, seat: int) -> Peer:
    """The bot the runner's machine starts for a seat it took over (as the LAN does). Its
    randomness (its shuffle seeds and its choices) comes from the log so far, so that a seeded
    game replays alike: from the operating system, the deals after the takeover, and so the
    game's length, differed run by run (a game could end before the seat came back)."""
    label = f"bot {seat} after {runner.log[-1].hash.hex()}"
    return Peer.restore(seat, runner.delegated[seat], [e.raw for e in runner.log], [], player=greedy_player,
                        rng_bytes=seeded_bytes(0, label), rng=random.Random(label))


def come_back_game(seed: int) -> tuple[list[Peer], Peer, MemoryNetwork, Entry]:
    """Cyd's machine stops mid-hand (its lid closed); after ``away_after`` the others go on,
    and Ann's machine carries the bot; Cyd's machine is resumed during the replayed hand."""
    peers = make_peers([greedy_player] * 3, seed=seed)
    network = table_of(peers, seed, ["Ann", "Bob", "Cyd"])
    network.run(lambda: moved_unseen(peers, CYD))
    network.pause(CYD)  # with its move unsent: it is rolled back when Cyd comes back
    network.run(lambda: all(p.waiting() is not None and p.waiting().offer  # type: ignore[union-attr]
                            for p in peers[:CYD]))
    peers[1].go_on_without(CYD)
    network.run(lambda: bool(peers[0].agreed()))
    peers[0].go_on_without(CYD)
    away = peers[0].log[-1]
    assert away.kind == "away"
    bot = bot_for(peers[0], CYD)
    network.carry(0, bot)
    network.run(lambda: peers[0].table is not None and peers[0].table.hand is not None
                and peers[0].table.engine.stage in ("draw", "play"))
    network.resume(CYD)
    return peers, bot, network, away


@pytest.mark.parametrize("seed", [31, 32])
def test_a_machine_that_comes_back_takes_its_seat_back_at_the_next_hand(seed: int) -> None:
    peers, bot, network, away = come_back_game(seed)
    cyd = peers[CYD]
    network.run(lambda: all(p.finished for p in (*peers, bot)))
    log = peers[0].log
    assert all(p.log == log for p in (*peers, bot))  # one history
    backs = [e for e in log if e.kind == "back"]
    assert len(backs) == 1
    back = backs[0]
    table = peers[0].table
    assert table is not None
    row = table.takeovers[0]
    assert (row.person, row.seq) == (CYD, away.seq)
    assert table.returns == (Return(CYD, (CYD,), back.seq, away.seq, table.returns[0].hand),)
    # Between hands, after the voided hand was dealt again without Cyd; then Cyd writes again.
    at_away = TableState.from_header(log[0])
    for entry in log[1:away.seq + 1]:
        at_away = at_away.apply(entry)
    voided_row = len(at_away.engine.sheet)
    assert table.engine.sheet[voided_row].points[CYD] is None
    assert table.returns[0].hand > voided_row
    assert any(e.author == CYD and e.seq > back.seq for e in log)
    assert all(e.seq < back.seq or (e.seq > back.seq and e.verify(table.verifiers[CYD]))
               for e in log if e.author == CYD and e.seq > away.seq)
    assert table.names[CYD] == "Cyd" and table.run_by[CYD] is None
    assert not any(f.seat is not None for p in (*peers, bot) for f in p.faults)
    assert not cyd.stopped
    report = audit_records([e.raw for e in log])
    assert report.clean, report.verdict()
    assert report.returns == table.returns
    text = "\n".join(transcript([e.raw for e in log]))
    assert (f"** At entry {back.seq} Cyd came back: Cyd plays again from hand "
            f"{table.returns[0].hand + 1} **") in text
    # What Cyd's screen says, before and after the back entry.
    before = TableState.from_header(log[0])
    for entry in log[1:back.seq]:
        before = before.apply(entry)
    gone = f"The table went on without you at hand {row.hand + 1}; "
    assert taken_note(before, CYD) == f"{gone}your seat is yours again from the next hand."
    assert taken_note(table, CYD) == f"{gone}your seat is yours again from hand {table.returns[0].hand + 1}."
    assert taken_note(table, 0) is None and row.hand == voided_row


def forged_backs(seed: int) -> tuple[TableState, list[Entry], dict[str, tuple[Entry, int]]]:
    """The log up to the honest back entry, and forged entries in its place: each with the seat
    that must be blamed."""
    peers, _bot, network, away = come_back_game(seed)
    network.run(lambda: any(e.kind == "back" for e in peers[0].log))
    log = list(peers[0].log)
    log = log[:next(e.seq for e in log if e.kind == "back") + 1]
    back = log[-1]
    table = TableState.from_header(log[0])
    for entry in log[1:-1]:
        table = table.apply(entry)
    ann, bob, cyd = (p.identity for p in peers)
    game, seq, prev = back.game_id, back.seq, back.prev_hash

    def entry(key: Ed25519PrivateKey, author: int, body: object, kind: str = "back") -> Entry:
        return make_entry(key, game, seq, prev, author, kind, body)

    good = sign(cyd, Domain.RETURN, return_message(game, CYD, away.seq))
    stranger = sign(Ed25519PrivateKey.generate(), Domain.RETURN, return_message(game, CYD, away.seq))
    other_away = sign(cyd, Domain.RETURN, return_message(game, CYD, away.seq + 1))
    writer = back.author
    key = ann if writer == 0 else bob
    cases = {
        "does not verify": (entry(key, writer, [CYD, away.seq, stranger]), writer),
        "taken over at entry": (entry(key, writer, [CYD, away.seq + 1, other_away]), writer),
        "has not been taken over": (entry(key, writer, [1, away.seq, good]), writer),
        "out of turn": (entry(bob if writer == 0 else ann, 1 - writer, [CYD, away.seq, good]), 1 - writer),
        "the back entry": (entry(key, writer, [CYD, away.seq]), writer),
    }
    return table, log, cases


def test_a_forged_back_entry_is_refused_and_blamed_on_its_author() -> None:
    table, log, cases = forged_backs(33)
    assert table.apply(log[-1]).returns  # the honest one is accepted
    for reason, (entry, blamed) in cases.items():
        with pytest.raises(ProtocolViolation, match=reason) as caught:
            table.apply(entry)
        assert (caught.value.seat, caught.value.seq) == (blamed, entry.seq), reason


def test_no_back_entry_mid_hand_or_while_the_seat_sits_out() -> None:
    """A request is written only between hands, once the seat is dealt in again: a back entry
    right after the away entry (the voided hand's replay) is refused, with blame on its author."""
    peers, bot, network, away = come_back_game(34)
    log = peers[0].log
    table = TableState.from_header(log[0])
    for entry in log[1:away.seq + 1]:
        table = table.apply(entry)
    assert table.hand is None and CYD in table.engine.sitting_out
    signature = sign(peers[CYD].identity, Domain.RETURN, return_message(away.game_id, CYD, away.seq))
    writer = table.expected().seat  # type: ignore[union-attr]
    key = peers[table.machine_of(writer)].identity if writer != CYD else bot.identity
    early = make_entry(key, away.game_id, table.seq, table.last_hash, writer, "back",
                       [CYD, away.seq, signature])
    with pytest.raises(ProtocolViolation, match="once its seats are dealt in again") as caught:
        table.apply(early)
    assert (caught.value.seat, caught.value.seq) == (writer, table.seq)
    live = Peer.restore(1, peers[1].identity, [e.raw for e in log[:away.seq + 1]],
                        list(peers[1].secrets.values()))
    live.receive(encode_entry_message(early.raw), writer, network.now)
    assert live.violation is not None and (live.violation.seat, live.violation.seq) == (writer, table.seq)


def test_a_machine_that_came_back_can_be_left_behind_again() -> None:
    """Cyd comes back, then its machine stops again: Ann's machine, which still runs the bot
    that played Cyd's seat before (it plays no more), agrees for its peers at once, and the
    table goes on without Cyd a second time, to one history with nobody blamed."""
    peers, bot, network, _away = come_back_game(35)
    network.run(lambda: any(e.kind == "back" for e in peers[0].log) and moved_unseen(peers, CYD))
    network.pause(CYD)
    network.run(lambda: all(p.waiting() is not None and p.waiting().offer  # type: ignore[union-attr]
                            for p in peers[:CYD]))
    ann = Machine()
    ann.peers += [peers[0], bot]
    assert not bot.plays_its_seat and peers[0].plays_its_seat
    peers[1].go_on_without(CYD)
    network.run(lambda: bool(peers[0].agreed()))
    ann.go_on_without(CYD)  # (the retired bot is left out: it would refuse)
    assert [e.kind for e in peers[0].log].count("away") == 2
    second = bot_for(peers[0], CYD)
    network.carry(0, second)
    network.resume(CYD)
    everyone = (*peers, bot, second)
    network.run(lambda: all(p.finished for p in everyone))
    assert all(p.log == peers[0].log for p in everyone)
    assert not any(f.seat is not None for p in everyone for f in p.faults)
    report = audit_records([e.raw for e in peers[0].log])
    assert report.violation is None and len(report.takeovers) == 2, report.verdict()


def test_a_machine_restarted_from_its_files_comes_back_too() -> None:
    """As ``p2p10 resume`` does: Cyd's process dies mid-hand, with its move unsent; the others go
    on; Cyd starts again from its saved log and secrets, takes the away entry in place of its
    unsent move, and takes its seat back at the next hand."""
    peers = make_peers([greedy_player] * 3, seed=36)
    network = table_of(peers, 36, ["Ann", "Bob", "Cyd"])
    network.run(lambda: moved_unseen(peers, CYD))
    saved, secrets = [e.raw for e in peers[CYD].log], list(peers[CYD].secrets.values())
    network.pause(CYD)  # the process is gone; its files stay
    network.run(lambda: all(p.waiting() is not None and p.waiting().offer  # type: ignore[union-attr]
                            for p in peers[:CYD]))
    peers[1].go_on_without(CYD)
    network.run(lambda: bool(peers[0].agreed()))
    peers[0].go_on_without(CYD)
    bot = bot_for(peers[0], CYD)
    network.carry(0, bot)
    network.run(lambda: peers[0].table is not None and peers[0].table.hand is not None
                and peers[0].table.engine.stage in ("draw", "play"))
    cyd = Peer.restore(CYD, peers[CYD].identity, saved, secrets, player=greedy_player)
    network.replace(CYD, cyd)
    peers[CYD] = cyd
    network.resume(CYD)
    network.run(lambda: all(p.finished for p in (*peers, bot)))
    log = peers[0].log
    assert all(p.log == log for p in (*peers, bot))
    assert [e.kind for e in log].count("back") == 1
    assert peers[0].table is not None and peers[0].table.names[CYD] == "Cyd"
    assert not any(f.seat is not None for p in (*peers, bot) for f in p.faults)
