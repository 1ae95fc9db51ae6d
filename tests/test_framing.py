"""Nobody is framed as an equivocator by the keys a seat changes (attacks A52, A53).

A seat signs with the key of its sit-down until the others go on without its machine (an
``away`` entry gives it a bot's delegate key) and again after it comes back (a ``back`` entry).
Equivocation is two different entries for one position that verify under the *same* key: the
key that position's author signed with (PROTOCOL §6.7). An entry under a key the seat did not
hold at that position is not the seat's entry for it: it is dropped, and nobody is blamed for
it. Cyd's machine, cut off, went on signing her turn with her own key; the others went on
without her and Ann's machine played her seat as a bot; she came back. Whatever order her late
entries and the bot's arrive in, from whichever machine, no peer freezes and Cyd is never
blamed; her own real equivocation, under her own key, is still caught."""

from __future__ import annotations

from p2p10.log import Entry, make_entry
from p2p10.peer import Peer, encode_entry_message
from p2p10.rules import RuleSet
from p2p10.simulate import greedy_player
from protocol.memory import MemoryNetwork, make_peers, open_table
from tests.test_liveness import CYD, bot_for, come_back_game, moved_unseen


class Listener(Peer):
    """A peer that checks and keeps what it hears and writes nothing."""

    def _act(self) -> None:
        return


def late_entry(cyd: Peer, like: Entry, seq: int) -> Entry:
    """An entry Cyd's machine signs with her own key for ``seq`` while it is cut off (its body
    that of her move nobody took: what she signs offline is hers, whatever it says)."""
    return make_entry(cyd.identity, like.game_id, seq, like.hash, CYD, like.kind, like.body)


def bot_entry(runner: Peer, like: Entry, seq: int) -> Entry:
    """An entry the runner's machine signs for Cyd's seat with the bot's delegate key, other
    than ``like`` (an entry's hash is its payload's: the same payload is the same entry)."""
    return make_entry(runner.delegated[CYD], like.game_id, seq, like.prev_hash, CYD, "chat", [seq])


def deliver(entry: Entry, to: list[Peer], sender: int, now: float) -> None:
    for peer in to:
        peer.receive(encode_entry_message(entry.raw), sender, now)


def nobody_framed(peers: list[Peer]) -> None:
    for peer in peers:
        assert peer.equivocation is None and peer.violation is None and not peer.stopped, peer.faults
        assert not [f for f in peer.faults if f.seat == CYD], peer.faults


def test_a_late_entry_under_her_own_key_after_she_came_back_is_not_equivocation() -> None:
    """A52: Cyd's late entry, signed with her own key for a position where the log holds the
    bot's entry for her seat, reaches every peer after she took her seat back (her key signs
    for her seat again): it is dropped, nobody freezes. Before the fix every peer compared it
    with the bot's entry under her current key and froze on "Cyd signed two entries"."""
    peers, bot, network, away = come_back_game(31)
    cyd = peers[CYD]
    mine = cyd.log[away.seq]  # her move that nobody took, signed as she was cut off
    network.run(lambda: all(p.finished for p in (*peers, bot)))
    log = peers[0].log
    back = next(e for e in log if e.kind == "back")
    bots = [e for e in log[away.seq + 1:back.seq] if e.author == CYD]
    assert bots, "the bot wrote for Cyd's seat between the away and the back entry"
    for position in (away.seq, bots[0].seq, bots[-1].seq):
        deliver(late_entry(cyd, mine, position), [*peers, bot], 1, network.now)
    nobody_framed([*peers, bot])
    assert all(p.log == log for p in (*peers, bot))


def test_a_bot_key_entry_for_a_position_she_wrote_herself_is_not_her_equivocation() -> None:
    """A53: while the bot holds Cyd's seat, an entry signed with the bot's key for a position
    Cyd wrote herself (with her own key) is not Cyd's: dropped; before the fix every peer took
    it for Cyd's second entry at that position and froze."""
    peers, bot, network, away = come_back_game(32)
    network.run(lambda: bot.table is not None and bot.table.engine.stage in ("draw", "play"))
    log = peers[0].log
    hers = [e for e in log[:away.seq] if e.author == CYD]
    forged = bot_entry(peers[0], hers[-1], hers[-1].seq)
    assert forged.hash != hers[-1].hash
    deliver(forged, [*peers, bot], 0, network.now)
    nobody_framed([*peers, bot])
    network.run(lambda: all(p.finished for p in (*peers, bot)))
    nobody_framed([*peers, bot])


def test_her_late_entry_waiting_in_a_buffer_is_no_twin_of_the_bots() -> None:
    """A52, the path for early entries: a peer behind the others holds Cyd's late entry (her
    key) for a position beyond its log when the bot's entry (the bot's key) for that position
    arrives too. Two entries for one position by one author number, under two keys: not an
    equivocation. The bot's is taken when the position comes, and hers is dropped."""
    peers, bot, network, away = come_back_game(31)
    cyd = peers[CYD]
    mine = cyd.log[away.seq]
    network.run(lambda: all(p.finished for p in (*peers, bot)))
    log = peers[0].log
    back = next(e for e in log if e.kind == "back")
    target = next(e for e in log[away.seq + 1:back.seq] if e.author == CYD)
    # Bob's machine, behind the others, from a copy of its early log; it only listens here
    # (its own entries would be a second history of his seat, a test of something else).
    bob = peers[1]
    late = Listener.restore(1, bob.identity, [e.raw for e in log[:away.seq]], list(bob.secrets.values()))
    deliver(late_entry(cyd, mine, target.seq), [late], 2, network.now)  # waits, under Cyd's key
    deliver(log[away.seq], [late], 0, network.now)  # the away entry: the bot's key signs for Cyd
    deliver(target, [late], 0, network.now)  # waits too, under the bot's key
    for entry in log[away.seq + 1:target.seq]:
        deliver(entry, [late], 0, network.now)
    nobody_framed([late])
    assert late.log[:target.seq + 1] == log[:target.seq + 1]


def test_her_real_equivocation_under_her_own_key_is_still_caught() -> None:
    """The fix narrows equivocation to one key; it does not excuse it: two different entries
    Cyd signs with her own key for a position where her key signs are a proof against her."""
    peers, bot, network, _away = come_back_game(31)
    network.run(lambda: all(p.finished for p in (*peers, bot)))
    log = peers[0].log
    back = next(e for e in log if e.kind == "back")
    hers = next(e for e in log[back.seq + 1:] if e.author == CYD)
    twin = make_entry(peers[CYD].identity, hers.game_id, hers.seq, hers.prev_hash, CYD, "chat", [1])
    deliver(twin, [peers[0]], 1, network.now)
    assert peers[0].equivocation is not None
    assert [f.seat for f in peers[0].faults if "two different entries" in f.reason] == [CYD]


def test_a_machine_whose_offline_tail_lost_the_race_drops_it_and_comes_back() -> None:
    """Point 10 of issue 24, in virtual time: Cyd's machine is cut off in the middle of her turn
    and goes on signing it alone (six moves, entries 15 to 20); the others go on without her at
    entry 15 and the replay hand is dealt; the network heals. The others' entry 21 is the bot's
    shuffle for her seat, under a key her machine does not know yet. Before the fix her machine
    blamed whoever sent it ("does not verify") and asked again for entry 21, for ever: its log
    stayed forked at entry 15. Now it asks from where its own entries begin, takes the away
    entry, drops its tail, follows, and takes its seat back at the next hand."""
    peers = make_peers([greedy_player] * 3, seed=40)
    network = MemoryNetwork(peers)
    open_table(peers, ["Ann", "Bob", "Cyd"], RuleSet.parse(["hands=3"]), seed=40)
    network.run(lambda: moved_unseen(peers, CYD))
    network.split({0, 1}, {CYD})
    network.run(lambda: all(p.waiting() is not None and p.waiting().offer  # type: ignore[union-attr]
                            for p in peers[:CYD]))
    peers[1].go_on_without(CYD)
    network.run(lambda: bool(peers[0].agreed()))
    peers[0].go_on_without(CYD)
    bot = bot_for(peers[0], CYD)
    network.carry(0, bot)
    network.run(lambda: peers[0].table is not None and peers[0].table.hand is not None
                and peers[0].table.engine.stage in ("draw", "play"))
    cyd, log = peers[CYD], peers[0].log
    away = next(e for e in log if e.kind == "away")
    tail = len(cyd.log)
    assert all(e.author == CYD for e in cyd.log[away.seq:]) and log[tail].author == CYD, (
        "the case: her tail ends where the others hold an entry the bot signed for her seat")
    network.heal()
    network.run(lambda: all(p.finished for p in (*peers, bot)), max_seconds=network.now + 3_000)
    assert all(p.log == peers[0].log for p in (*peers, bot))
    assert any(e.kind == "back" for e in peers[0].log)  # she plays her seat again
    nobody_framed([*peers, bot])
    assert not [f for p in (*peers, bot) for f in p.faults if f.seat is not None]
