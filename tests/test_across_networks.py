"""Two machines on two networks play a whole game by ``p2p10 join HOST:PORT``.

Zeroconf finds tables on one subnet only; across a VPN or a forwarded port players join by
address. Here the host is in one network namespace (10.77.1.0/24), the joiner in another
(10.77.2.0/24), and a third routes between them with no multicast crossing (see
:mod:`tests.netns`). Each test first checks that setting (the subnets differ, TCP crosses
through the router, mDNS does not), so that a failure after that is the program's. Then
``p2p10 host`` and ``p2p10 join`` play a one-hand game with ``--autoplay``: both must exit 0
saying who won, with logs of the same entries, byte for byte, that ``p2p10 audit`` finds
clean.

Once routed (the host at its own address). Then from home to home: both machines behind NAT
(routing off in the router), reachable only through ports forwarded to them
(:meth:`tests.netns.Networks.behind_nat`), each given to the others as its public address
with ``--port`` and ``--reachable-at``; once with two people, once with a bot of the host's
too (which listens on the host's port + 1, forwarded as well). Every process runs in a
namespace, so nothing leaves the machine; nothing but ``ip`` and Python is needed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from protocol.lan import read_roster
from protocol.storage import SeatFiles, read_log
from tests.netns import (
    HOST_A,
    HOST_B,
    ROUTER_A,
    ROUTER_B,
    Forward,
    NetnsError,
    Networks,
    Started,
    forwarded_from,
    routed,
    routed_networks,
)
from tests.test_lan_processes import environment, p2p10

GAME_TIMEOUT = 90.0  # a one-hand game for two takes a few seconds; a loaded machine, more
START_TIMEOUT = 30.0  # until the host says where it listens
CUT_OFF = 1.0  # seconds without an answer that show a direct connection is dropped (a SYN
# through the router is answered within a millisecond)
# Any ports: the namespaces are new, nothing else listens there.
HOST_PORT = 41234  # where Ann's host listens (--port); her bot, on the next one
BOB_PORT = 41240  # where Bob's joiner listens (--port)
BOB_OUTSIDE = 41250  # where Bob is reached at his router (--reachable-at): another port
GAME_OVER = r"^game over: .+; log (/.+\.p2p10)$"

__all__ = ["routed"]  # the fixture of tests.netns, which the tests below take by name


def assert_routed_apart(nets: Networks) -> None:
    """The setting itself, before any game: two different subnets, each reaching the other
    through the router alone, TCP crossing, multicast (mDNS) not."""
    subnet_a, subnet_b = nets.subnet("a"), nets.subnet("b")
    assert (str(subnet_a), str(subnet_b)) == ("10.77.1.0/24", "10.77.2.0/24")
    assert not subnet_a.overlaps(subnet_b)
    assert re.search(rf"^{re.escape(HOST_A)} via {re.escape(ROUTER_B)} ", nets.route("b", HOST_A)), \
        nets.route("b", HOST_A)
    assert re.search(rf"^{re.escape(HOST_B)} via {re.escape(ROUTER_A)} ", nets.route("a", HOST_B)), \
        nets.route("a", HOST_B)
    server = nets.tcp_server("a", HOST_A, 7)
    try:
        # Routed, not translated: a sees b's own address.
        assert nets.tcp_ask("b", HOST_A, 7) == f"seen {HOST_B}", nets.report()
    finally:
        server.kill()
    from_router, from_b = nets.multicast_heard()
    assert from_router, "the multicast probe in a heard nothing, not even on its own subnet\n" + nets.report()
    assert not from_b, "multicast from b crossed the router\n" + nets.report()


def play(nets: Networks, tmp_path: Path, host_args: list[str], address: str, *, bots: int = 0,
         join_args: tuple[str, ...] = (), timeout: float = GAME_TIMEOUT,
         ) -> tuple[tuple[Started, Path], tuple[Started, Path]]:
    """``p2p10 host`` (Ann, with ``bots`` bots of hers) in a with ``host_args``, then ``p2p10
    join ADDRESS`` (Bob) in b with ``join_args``, each bot-played and saving in its own folder;
    each process and the log it printed, once both ended well saying who won (within
    ``timeout`` seconds each). ``ADDRESS`` may hold ``{port}``: the port the host prints."""
    env = environment(tmp_path)
    host = nets.spawn("host", nets.a, p2p10(
        "host", "--name", "Ann", "--quiet-network", "--seats", str(2 + bots), "--bots", str(bots),
        "--autoplay", "greedy", "--start-when-full", "-o", "hands=1", "--save", str(tmp_path / "ann"),
        *host_args), env)
    port = nets.wait_for(host, r"^listening on port (\d+); ", START_TIMEOUT).group(1)
    joiner = nets.spawn("joiner", nets.b, p2p10(
        "join", address.format(port=port), "--autoplay", "greedy", "--save", str(tmp_path / "bob"),
        "--name", "Bob", *join_args), env)
    ended = []
    for started, folder in ((joiner, "bob"), (host, "ann")):  # the joiner first: it fails first
        status = nets.finish(started, timeout)
        if status != 0:
            raise NetnsError(f"{started.label} exited {status}\n" + nets.report())
        found = re.search(GAME_OVER, started.stdout(), re.M)
        if found is None:
            raise NetnsError(f"{started.label} printed no 'game over' line\n" + nets.report())
        log = Path(found.group(1))
        assert log.parent == tmp_path / folder and log.is_file(), nets.report()
        ended.append((started, log))
    return ended[1], ended[0]


def not_through(answer: str) -> bool:
    """Whether a ``tcp-ask`` failed to connect (``error ...``: ``error TimeoutError`` when the
    router drops the SYN without a word, as it does here)."""
    return answer.startswith("error ")


def home_to_home(nets: Networks, host_ports: dict[int, int]) -> Started:
    """Both machines behind NAT (:meth:`Networks.behind_nat`) after checking the routed
    setting: a's ports ``host_ports`` (inside -> outside) forwarded from ``ROUTER_B`` (a's
    public address), ``BOB_PORT`` from ``ROUTER_A``:``BOB_OUTSIDE`` (b's). Checked before any
    game: no direct way across either way, and every forwarded port reached through the
    router from both machines (both dial a's ports: the host dials its own bots as any seat
    does), the target seeing the router, not the dialler. The forwarder."""
    assert_routed_apart(nets)
    forwards = [Forward((ROUTER_B, outside), (HOST_A, inside)) for inside, outside in host_ports.items()]
    forwards.append(Forward((ROUTER_A, BOB_OUTSIDE), (HOST_B, BOB_PORT)))
    forwarder = nets.behind_nat(*forwards)
    servers = [nets.tcp_server("a", "0.0.0.0", inside) for inside in host_ports]
    servers.append(nets.tcp_server("b", "0.0.0.0", BOB_PORT))
    try:
        # The servers listen: only the router stands in the way (it drops the SYN, so the
        # dialler times out; any error at all would do).
        assert not_through(nets.tcp_ask("b", HOST_A, HOST_PORT, CUT_OFF)), nets.report()
        assert not_through(nets.tcp_ask("a", HOST_B, BOB_PORT, CUT_OFF)), nets.report()
        for outside in host_ports.values():
            for side in "ab":
                assert nets.tcp_ask(side, ROUTER_B, outside) == f"seen {ROUTER_A}", nets.report()
        for side in "ab":
            assert nets.tcp_ask(side, ROUTER_A, BOB_OUTSIDE) == f"seen {ROUTER_B}", nets.report()
    finally:
        for server in servers:
            server.kill()
    return forwarder


def assert_same_clean_game(nets: Networks, host_log: Path, joiner_log: Path,
                           names: tuple[str, ...] = ("Ann", "Bob")) -> None:
    """The two logs hold the same entries, byte for byte, and each is a clean, complete game of
    ``names`` (``p2p10 audit --json``, run on the machine that saved it)."""
    entries = read_log(host_log)
    assert entries and entries == read_log(joiner_log)
    assert host_log.read_bytes() == joiner_log.read_bytes()
    for namespace, log in ((nets.a, host_log), (nets.b, joiner_log)):
        audited = nets.run(namespace, *p2p10("audit", str(log), "--json"), check=False)
        assert audited.returncode == 0, (audited.stdout, audited.stderr)
        report = json.loads(audited.stdout)
        assert report["clean"] and report["complete"], report["verdict"]
        assert report["entries"] == len(entries)
        assert tuple(p["name"] for p in report["players"]) == names
        assert report["winner"] in range(1, len(names) + 1)


@pytest.mark.slow
def test_a_whole_game_across_a_router_by_host_and_port(routed: Networks, tmp_path: Path) -> None:
    assert_routed_apart(routed)
    (_host, host_log), (_joiner, joiner_log) = play(routed, tmp_path, [], HOST_A + ":{port}")
    assert_same_clean_game(routed, host_log, joiner_log)
    # Each reached the other at its own address, across the router: Bob was seen from b's
    # subnet (where the host dialled him), and Bob knows the host where he dialled it.
    _table, _rules, host_roster, _listening = read_roster(SeatFiles(host_log).roster)
    _table, _rules, joiner_roster, _listening = read_roster(SeatFiles(joiner_log).roster)
    assert host_roster[1].host == HOST_B
    assert joiner_roster[0].host == HOST_A


@pytest.mark.slow
def test_a_whole_game_from_home_to_home_through_forwarded_ports(routed: Networks, tmp_path: Path) -> None:
    forwarder = home_to_home(routed, {HOST_PORT: HOST_PORT})
    before = len(forwarder.stdout())
    ann_outside = f"{ROUTER_B}:{HOST_PORT}"
    (_host, host_log), (_joiner, joiner_log) = play(
        routed, tmp_path, ["--port", str(HOST_PORT), "--reachable-at", ann_outside], ann_outside,
        join_args=("--port", str(BOB_PORT), "--reachable-at", f"{ROUTER_A}:{BOB_OUTSIDE}"))
    assert_same_clean_game(routed, host_log, joiner_log)
    _table, _rules, host_roster, host_listening = read_roster(SeatFiles(host_log).roster)
    _table, _rules, joiner_roster, joiner_listening = read_roster(SeatFiles(joiner_log).roster)
    assert (host_listening, joiner_listening) == (("0.0.0.0", HOST_PORT), ("0.0.0.0", BOB_PORT))
    # Each knows the other (and itself) at its public address only...
    for roster in (host_roster, joiner_roster):
        assert [(s.host, s.port) for s in roster] == [(ROUTER_B, HOST_PORT), (ROUTER_A, BOB_OUTSIDE)]
    # ...and was reached there: Bob sat down through a's forward, Ann linked to him through b's.
    assert forwarded_from(forwarder, before) == {
        (ann_outside, HOST_B), (f"{ROUTER_A}:{BOB_OUTSIDE}", HOST_A)}, forwarder.stdout()
    assert not_through(routed.tcp_ask("b", HOST_A, HOST_PORT, CUT_OFF))  # still: no way round


@pytest.mark.slow
def test_a_host_with_a_bot_from_home_to_home(routed: Networks, tmp_path: Path) -> None:
    # Ann's public ports differ from those she listens on, as a router may map them: the roster
    # must give her bot her public port + 1, where it listens on her own port + 1.
    outside = HOST_PORT + 100
    forwarder = home_to_home(routed, {HOST_PORT: outside, HOST_PORT + 1: outside + 1})
    before = len(forwarder.stdout())
    ann_outside, bot_outside = f"{ROUTER_B}:{outside}", f"{ROUTER_B}:{outside + 1}"
    (_host, host_log), (_joiner, joiner_log) = play(
        routed, tmp_path, ["--port", str(HOST_PORT), "--reachable-at", ann_outside], ann_outside,
        bots=1, join_args=("--port", str(BOB_PORT), "--reachable-at", f"{ROUTER_A}:{BOB_OUTSIDE}"))
    assert_same_clean_game(routed, host_log, joiner_log, ("Ann", "Bob", "Bot 1 (Ann's bot)"))
    _table, _rules, host_roster, _listening = read_roster(SeatFiles(host_log).roster)
    _table, _rules, joiner_roster, _listening = read_roster(SeatFiles(joiner_log).roster)
    expected = [(ROUTER_B, outside), (ROUTER_A, BOB_OUTSIDE), (ROUTER_B, outside + 1)]
    for roster in (host_roster, joiner_roster):
        assert [(s.host, s.port) for s in roster] == expected
    # The lower seat dials the higher: Bob dialled the bot at Ann's public address, Ann dialled
    # Bob at his, and Bob sat down at hers. Ann dials her own bot on her own machine, not
    # through her router (which would have to loop the connection back: many do not).
    assert forwarded_from(forwarder, before) == {
        (ann_outside, HOST_B), (f"{ROUTER_A}:{BOB_OUTSIDE}", HOST_A),
        (bot_outside, HOST_B)}, forwarder.stdout()


def test_the_networks_are_taken_down_even_when_a_test_fails(tmp_path: Path) -> None:
    """Processes, veths and namespaces go however the ``with`` block ends."""
    with pytest.raises(RuntimeError, match="on purpose"), routed_networks(tmp_path) as nets:
        sleepers = [nets.spawn(f"sleeper-{side}", getattr(nets, side), ["sleep", "600"]) for side in "abr"]
        assert nets.leftovers()  # they exist while the block runs
        raise RuntimeError("on purpose")
    assert all(s.popen.poll() is not None for s in sleepers)
    assert nets.leftovers() == []
