"""Split-and-heal schedules through whole games (issue 11, item 7; PROTOCOL §4.13, §4.14).

Hypothesis draws a schedule for 3 or 4 machines on the in-memory network: partitions (2|1,
2|2, 1|1|1, ...) that heal after a while, machines paused as by ``SIGSTOP`` or a closed lid,
players who think for a long time before they move, and players who press "go on" at random
moments. Every machine's driver behaves as the LAN's does: it carries the bots it is given
when the others go on without a machine, and a machine agrees for all the peers it runs.

Whatever the schedule, at the end of the game there is one history (every honest log is a
prefix of the longest), no honest seat is blamed for anything, and the log audits with exit 0,
or 3 when a voided hand left steps nobody could check.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from p2p10.audit import CLEAN, audit_records
from p2p10.errors import IllegalMove
from p2p10.log import public_bytes
from p2p10.peer import Peer
from p2p10.rules import RuleSet
from p2p10.simulate import greedy_player
from protocol.memory import MemoryNetwork, make_peers, open_table, seeded_bytes

RULES = RuleSet.parse(["hands=2"])
AWAY_AFTER = 30.0
NAMES = ["Ann", "Bob", "Cyd", "Dan"]
# Schedules per run of the suite; P2P10_SCHEDULES=500 for a long trial.
SCHEDULES = int(os.environ.get("P2P10_SCHEDULES", "10"))


@dataclass(frozen=True)
class Split:
    """At ``at`` seconds, cut the table into ``groups`` for ``lasts`` seconds."""

    at: float
    groups: tuple[frozenset[int], ...]
    lasts: float


@dataclass(frozen=True)
class Pause:
    """At ``at`` seconds, stop ``seat``'s machine for ``lasts`` seconds."""

    at: float
    seat: int
    lasts: float


@dataclass(frozen=True)
class GoOn:
    """At ``at`` seconds, the player at ``seat`` presses "go on" (if the screen offers it)."""

    at: float
    seat: int


@dataclass(frozen=True)
class Tail:
    """From ``at`` seconds, the first time ``seat``'s machine has written an entry nobody else
    holds, cut it off from every other machine: it goes on signing its turn alone (a tail of
    its own offline entries). The others press "go on" ``press`` seconds after ``away_after``;
    the cut heals ``heal`` seconds after the first agreement to go on without it (negative:
    before it, measured from when the cut began plus ``away_after``), so the tail and the away
    entry race."""

    at: float
    seat: int
    press: float
    heal: float


@dataclass
class Schedule:
    """What happens to one table: events, and how long each person thinks before a move."""

    seats: int
    seed: int
    events: list[Split | Pause | GoOn | Tail]
    thinking: dict[int, float] = field(default_factory=dict)


def groupings(seats: int) -> st.SearchStrategy[tuple[frozenset[int], ...]]:
    """Every way to cut ``seats`` machines into two or three non-empty groups."""

    def cut(labels: list[int]) -> tuple[frozenset[int], ...]:
        groups = [frozenset(s for s in range(seats) if labels[s] == g) for g in sorted(set(labels))]
        return tuple(groups)

    return (st.lists(st.integers(0, 2), min_size=seats, max_size=seats)
            .filter(lambda labels: len(set(labels)) >= 2).map(cut))


@st.composite
def schedules(draw: st.DrawFn) -> Schedule:
    seats = draw(st.sampled_from([3, 4]))
    seed = draw(st.integers(0, 2**16))
    times = st.floats(0, 600, allow_nan=False)
    split = st.builds(Split, times, groupings(seats), st.floats(1, 90))
    pause = st.builds(Pause, times, st.integers(0, seats - 1), st.floats(1, 120))
    go_on = st.builds(GoOn, times, st.integers(0, seats - 1))
    tail = st.builds(Tail, times, st.integers(0, seats - 1), st.floats(0, 10), st.floats(-3, 3))
    events = draw(st.lists(st.one_of(split, pause, go_on, go_on, tail), min_size=1, max_size=8))
    thinking = draw(st.dictionaries(st.integers(0, seats - 1), st.floats(0, 90), max_size=seats))
    return Schedule(seats, seed, sorted(events, key=lambda e: e.at), thinking)


class Tables:
    """The machines of one table and their drivers, on one in-memory network."""

    def __init__(self, schedule: Schedule) -> None:
        self.schedule = schedule
        players = [None if s in schedule.thinking else greedy_player for s in range(schedule.seats)]
        self.peers = make_peers(players, seed=schedule.seed, away_after=AWAY_AFTER)
        self.network = MemoryNetwork(self.peers, rng=random.Random(schedule.seed))
        self.rng = random.Random(f"{schedule.seed}/schedule")
        self.turn_seen: dict[int, tuple[int, float]] = {}  # person: (position, since when)
        self.heal_at: list[float] = []
        self.resume_at: dict[int, float] = {}
        self.tails: list[Tail] = []  # armed, waiting for the seat's own entry
        self.cut: tuple[Tail, float] | None = None  # the tail under way, and when its cut began
        open_table(self.peers, NAMES[:schedule.seats], RULES, seed=schedule.seed)

    # ------------------------------------------------------------ the drivers

    def machine(self, seat: int) -> list[Peer]:
        """The peers ``seat``'s machine runs: its own, then the bots it carries."""
        return [self.peers[seat], *self.network.carried.get(seat, [])]

    def go_on(self, seat: int) -> None:
        """The player at ``seat`` presses "go on", as the play screen offers it: for every peer
        of the machine at once (bots first: they only hold back)."""
        if seat in self.network.paused:
            return
        peer = self.peers[seat]
        waiting = peer.waiting()
        if waiting is None or not waiting.offer:
            return  # the screen offers nothing to press
        for each in [p for p in reversed(self.machine(seat)) if p.plays_its_seat or p is peer]:
            try:
                each.go_on_without(waiting.person)
            except IllegalMove:
                return  # a refusal is a line on the screen, never an exception

    def carry_takeovers(self) -> None:
        """A runner's machine starts the bots it was given, as ``play_seat`` does."""
        for seat, peer in enumerate(self.peers):
            carried = {b.seat: b for b in self.network.carried.get(seat, [])}
            for taken, key in peer.delegated.items():
                bot = carried.get(taken)
                if bot is None or bot.identity is not key:
                    # Seeded by its key (itself drawn from the runner's seeded source): its hand
                    # secrets, shuffles and choices are the same on every run, so a failing
                    # schedule replays exactly (from the operating system, it played another game
                    # each time after the first takeover).
                    label = f"{self.schedule.seed}/bot/{public_bytes(key).hex()}"
                    bot = Peer.restore(taken, key, [e.raw for e in peer.log], [], player=greedy_player,
                                       rng_bytes=seeded_bytes(self.schedule.seed, label),
                                       rng=random.Random(label), away_after=AWAY_AFTER)
                    self.network.carry(seat, bot)

    def think(self) -> None:
        """Each thinking person moves ``thinking[seat]`` seconds after their turn comes."""
        for seat, delay in self.schedule.thinking.items():
            peer = self.peers[seat]
            table = peer.table
            if seat in self.network.paused or table is None or peer.stopped:
                continue
            expect = table.expected()
            if expect is None or expect.seat != seat or expect.kind != "move":
                continue
            if table.signing_keys[seat] != table.keys[seat]:
                continue  # the others went on without this machine: a bot plays the seat
            position = len(peer.log)
            since = self.turn_seen.setdefault(seat, (position, self.network.now))
            if since[0] != position:
                self.turn_seen[seat] = since = (position, self.network.now)
            if self.network.now - since[1] >= delay:
                peer.play(greedy_player(peer.view(), seat, peer.rng))

    # ------------------------------------------------------------- the clock

    def run(self, limit: float = 20_000.0) -> None:
        events = list(self.schedule.events)
        net = self.network
        def over() -> bool:
            # Every seat not paused has ended. With every seat paused at once, nobody can
            # have: time goes on until they come back (an empty all() would end it there).
            running = [p for p in self.peers if p.seat not in net.paused]
            return bool(running) and all(p.finished or p.stopped for p in running)

        while not over():
            if net.now > limit:
                raise AssertionError(f"no end after {limit:.0f} s of virtual time: "
                                     f"logs {[len(p.log) for p in self.peers]}")
            while events and events[0].at <= net.now:
                self.start(events.pop(0))
            if self.heal_at and net.now >= max(self.heal_at):
                self.heal_at = []
                net.heal()
            for seat, at in list(self.resume_at.items()):
                if net.now >= at:
                    del self.resume_at[seat]
                    net.resume(seat)
            self.watch_tails()
            self.think()
            self.carry_takeovers()
            net.step()
        # The end: everything heals, and every machine catches up.
        net.heal()
        for seat in list(self.resume_at):
            net.resume(seat)
        end = net.now + 120
        net.run(lambda: net.now >= end
                or all(len(p.log) == max(len(q.log) for q in self.peers) for p in self.peers))

    def watch_tails(self) -> None:
        """Cut a seat off as it writes alone; press "go on" for the others; heal at the moment
        they agree (:class:`Tail`)."""
        net = self.network
        if self.cut is None and self.tails:
            tail = self.tails[0]
            own = self.peers[tail.seat].log
            others = [p for p in self.peers if p.seat != tail.seat]
            if (tail.seat not in net.paused and len(own) > max(len(p.log) for p in others)
                    and own[-1].author == tail.seat):
                self.tails.pop(0)
                self.cut = (tail, net.now)
                net.split({tail.seat}, {p.seat for p in others})
            return
        if self.cut is None:
            return
        tail, since = self.cut
        others = [p for p in self.peers if p.seat != tail.seat]
        if net.now >= since + AWAY_AFTER + tail.press:
            for peer in others:
                self.go_on(peer.seat)
        agreed = any(p.agreed() for p in others)
        if (tail.heal < 0 and net.now >= since + AWAY_AFTER + tail.press + tail.heal) or (
                agreed and net.now >= since + AWAY_AFTER + tail.press + max(tail.heal, 0)) or (
                net.now >= since + AWAY_AFTER + 120):
            self.cut = None
            net.heal()

    def start(self, event: Split | Pause | GoOn | Tail) -> None:
        net = self.network
        if isinstance(event, Tail):
            self.tails.append(event)
        elif isinstance(event, Split):
            net.split(*event.groups)
            self.heal_at.append(net.now + event.lasts)
        elif isinstance(event, Pause):
            if event.seat not in net.paused:
                net.pause(event.seat)
                self.resume_at[event.seat] = net.now + event.lasts
        else:
            self.go_on(event.seat)


def check_one_history(tables: Tables) -> None:
    peers = [*tables.peers, *(b for bots in tables.network.carried.values() for b in bots)]
    longest = max((p.log for p in peers), key=len)
    for peer in peers:
        assert [e.hash for e in peer.log] == [e.hash for e in longest[:len(peer.log)]], (
            f"seat {peer.seat + 1}'s log forks from the longest")
        assert not peer.stopped, peer.stop_reason()
        blamed = [f for f in peer.faults if f.seat is not None]
        assert not blamed, blamed
    assert all(p.finished for p in tables.peers)
    report = audit_records([e.raw for e in longest])
    assert report.violation is None, report.verdict()
    assert report.exit_status == CLEAN, report.verdict()


# Found by this test: every seat paused at once ended the test's loop early (the harness's bug,
# not the peers'), leaving the game unfinished.
EVERY_SEAT_PAUSED_AT_ONCE = Schedule(
    seats=3, seed=13065,
    events=[Pause(0.0, 0, 44.8), GoOn(4.0, 0), Pause(13.0, 0, 74.5), Pause(32.3, 2, 82.7),
            Pause(32.3, 1, 95.9), Pause(536.6, 2, 48.6)],
    thinking={2: 0.0, 0: 0.0, 1: 78.3})


# Found by this test: the table went on without Bob's machine (Ann's machine carried his bot),
# then without Ann's (Cyd's carried both seats). Ann's machine still ran Bob's old bot, which
# plays no more but follows the log, as on the LAN. Ann's seat, played by its bot, gave it back
# to her by a `back` entry; her machine at once wrote the next one (for Bob) and was cut off
# again, and the others went on without her there. She cut her log back and took the away
# entry, but the old bot, which had taken her entries on her own machine, blamed the away
# entry's author and stayed forked (PROTOCOL §4.13, A70). (The two identical splits at one
# instant are innocent: they heal together, long before.)
# It plays a 222-entry game (100 s on 2 cores): the suite runs the same path in the 4-second
# test_a_retired_bot_on_a_machine_left_behind_follows_the_others, and this schedule itself in a
# long trial (P2P10_SCHEDULES above 10, as the README's long run sets it).
A_RETIRED_BOT_ON_A_MACHINE_LEFT_BEHIND = Schedule(
    seats=4, seed=17831,
    events=[Tail(160.21457889899386, 1, 4.93594151732201, 2.1442648096561268),
            Tail(281.1115504137419, 0, 7.636962695711311, -1.8502461591575473e-77),
            Tail(318.15670176206874, 0, 5.820175016120342, 0.024459603953987497),
            Tail(328.6393091074199, 0, 2.66611179449265, -1.374602669223921e-101),
            GoOn(388.22154807552585, 2),
            Tail(439.82666999756265, 0, 6.672500488276541, -0.8460273531877252),
            Split(576.229190064729, (frozenset({0, 1}), frozenset({2, 3})), 33.437550772673056),
            Split(576.229190064729, (frozenset({0, 1}), frozenset({2, 3})), 33.437550772673056)],
    thinking={2: 87.23589725864987, 3: 23.860066524820116, 0: 50.48484940156695, 1: 60.591055058007825})


# Found by this test: Dan's machine was left behind and Ann's carried his bot. Later Bob's
# machine was cut off as it wrote alone; Ann agreed to go on without it, and her bot held Bob's
# late entry back with her. Then Cyd, who had not agreed, took the entry and passed it on: Ann
# withdrew and took it, and passed it on to her bot, which heard it only from her, a player who
# had agreed, and so held it back for ever. The table waited for the bot's tokens to the end of
# time (PROTOCOL §4.13, A70).
A_BOT_WHOSE_MACHINE_WITHDREW = Schedule(
    seats=4, seed=109,
    events=[Split(99.29647008867956, (frozenset({0, 1}), frozenset({2, 3})), 89.99999999999999),
            Tail(150.78571771208973, 3, 4.723547361376755, -0.5085279188928506),
            Split(261.8020644717963, (frozenset({2}), frozenset({0}), frozenset({1, 3})), 32.894203277820246),
            Tail(416.63424972388646, 3, 7.131093574900876, 2.7687340506553078),
            Tail(493.09159102202267, 1, 3.5356634731943797, 0.5563727241610454),
            Tail(502.37534186485436, 2, 2.1413875048449587, -0.40959845735454437)],
    thinking={2: 19.655549752300754, 0: 4.090104132565009e-77})


@pytest.mark.slow
@settings(max_examples=SCHEDULES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schedules())
@example(EVERY_SEAT_PAUSED_AT_ONCE)
@example(A_BOT_WHOSE_MACHINE_WITHDREW)
def test_any_split_and_heal_schedule_ends_in_one_history_with_nobody_blamed(schedule: Schedule) -> None:
    tables = Tables(schedule)
    tables.run()
    check_one_history(tables)


@pytest.mark.slow
@pytest.mark.skipif(SCHEDULES <= 10, reason="a long trial's (P2P10_SCHEDULES=500): 100 s; the "
                    "same path runs in test_a_retired_bot_on_a_machine_left_behind_follows_the_others")
def test_the_schedule_that_found_a_retired_bot_forked() -> None:
    tables = Tables(A_RETIRED_BOT_ON_A_MACHINE_LEFT_BEHIND)
    tables.run()
    check_one_history(tables)


@pytest.mark.parametrize("seats, groups", [
    (3, ({0, 1}, {2})), (4, ({0, 1}, {2, 3})), (3, ({0}, {1}, {2})), (4, ({0, 1, 2}, {3})),
])
def test_each_kind_of_split_lasting_past_away_after_with_everybody_pressing_go_on(
        seats: int, groups: tuple[set[int], ...]) -> None:
    """The named shapes, each long enough for every side to be offered "go on" and press it."""
    events: list[Split | Pause | GoOn] = [Split(20.0, tuple(frozenset(g) for g in groups), 200.0)]
    events += [GoOn(20.0 + AWAY_AFTER + 5 + k, s) for k in range(0, 40, 4) for s in range(seats)]
    tables = Tables(Schedule(seats, 1000 + seats, events, {seats - 1: 20.0}))
    tables.run()
    check_one_history(tables)


def test_a_retired_bot_on_a_machine_left_behind_follows_the_others() -> None:
    """Cyd's machine is cut off as it writes alone and the others go on without it: Ann's
    machine carries Cyd's bot. Cyd comes back at the next hand, and the bot plays no more, but
    Ann's machine still runs it (as the LAN does, until another takeover of that seat). Then
    Ann's machine is cut off as it writes alone, and the others go on without her. The old
    bot took Ann's own entries on her machine; like Ann, it takes the away entry in their
    place, blames nobody, and ends with everybody in one history (PROTOCOL §4.13, A70)."""
    tables = Tables(Schedule(3, 1, [Tail(1.0, 2, 1.0, 1.0), Tail(166.0, 0, 1.0, 1.0)], thinking={1: 3.0}))
    tables.run()
    log = tables.peers[1].log
    backs = [e.seq for e in log if e.kind == "back"]
    aways = [e for e in log if e.kind == "away"]
    assert len(aways) == 2 and backs and aways[0].seq < backs[0] < aways[1].seq  # the story above
    retired = [bot for bot in tables.network.carried[0] if bot.seat == 2]
    assert retired and not retired[0].plays_its_seat
    assert [e.hash for e in retired[0].log[:aways[1].seq + 1]] == [e.hash for e in log[:aways[1].seq + 1]]
    check_one_history(tables)


def test_a_bot_takes_the_late_entry_once_its_machine_withdrew_its_agreement() -> None:
    """The schedule :data:`A_BOT_WHOSE_MACHINE_WITHDREW`, alone: the bot Ann's machine carries
    takes Bob's late entry as soon as Ann, having withdrawn her agreement, passes it on; the
    game ends in one history (PROTOCOL §4.13, A70)."""
    tables = Tables(A_BOT_WHOSE_MACHINE_WITHDREW)
    tables.run(limit=3000.0)
    assert [bot.seat for bot in tables.network.carried[0]] == [3]  # the story above
    check_one_history(tables)
