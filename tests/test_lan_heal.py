"""Coming back over real sockets in separate processes: a partition that heals at the moment
the others agree to go on (issue 24, point 10; attack catalogue A62), and a machine that wakes
after the game is over (point 7, A59).

Three ``p2p10`` processes play through TCP proxies (:mod:`tests.test_lan_proxy`). Mid-game the
proxy of seat 3, which carries both of its links, goes dark: seat 3's machine is cut off and
goes on alone (if it is its turn, it signs its moves offline). After ``--away-after`` the
others agree by themselves (``--go-on-after``) and the runner writes the away entry; the
network heals as soon as that entry is in a log. Whatever raced, every process ends well, with
one history (every log byte-identical, seat 3's machine having dropped any tail it wrote and
taken its seat back or followed to the end), the audit clean, and nobody blamed
(``play_through_proxies`` checks each peer's faults at exit)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import time
from pathlib import Path

import pytest

from p2p10.audit import audit_bytes
from p2p10.log import parse_entry, read_records
from tests.tcp_proxy import Faults, TcpProxy
from tests.test_lan_processes import start_table, stop
from tests.test_lan_proxy import GAME_TIMEOUT, play_through_proxies

AWAY_KIND = b"\xa4away"  # the kind of an away entry, as msgpack writes it in a log


def seat_3(dirs: list[Path]) -> int | None:
    """The index of the folder whose peer sits at seat 3, once its log is saved."""
    for index, folder in enumerate(dirs):
        if any(folder.glob("*-seat3.p2p10")):
            return index
    return None


def cut_seat_3_until_the_others_go_on(proxies: list[TcpProxy], dirs: list[Path]) -> None:
    deadline = time.monotonic() + GAME_TIMEOUT / 2
    cut: int | None = None
    while cut is None or not any(f.stat().st_size > 20_000 for f in dirs[cut].glob("*.p2p10")):
        assert time.monotonic() < deadline, "the game never got going"
        cut = seat_3(dirs)
        time.sleep(0.01)
    proxies[cut].faults = Faults(blackout=True)
    others = [folder for index, folder in enumerate(dirs) if index != cut]
    while not any(AWAY_KIND in f.read_bytes() for folder in others for f in folder.glob("*.p2p10")):
        assert time.monotonic() < deadline, "the others never went on without seat 3"
        time.sleep(0.01)
    proxies[cut].faults = Faults()  # healed at the moment of the away entry


@pytest.mark.slow
def test_a_partition_healed_as_the_others_go_on_ends_in_one_history(tmp_path: Path) -> None:
    logs, counts = play_through_proxies(
        tmp_path, Faults(), 4, hands=2, during=cut_seat_3_until_the_others_go_on,
        play=("--away-after", "2", "--go-on-after", "2", "--think", "0.2"))
    assert AWAY_KIND in logs[0]
    assert sum(c.blacked_out for c in counts) > 0, counts  # the cut did cut


@pytest.mark.slow
def test_a_machine_that_wakes_after_the_game_ended_says_so_and_stops(tmp_path: Path) -> None:
    """Issue 24, point 7 (attack catalogue A59): Cy's laptop is closed mid-hand (SIGSTOP); the
    others go on without it, finish the game and leave; opened again (SIGCONT), Cy's machine
    finds nobody. It says so in one line, with the saved log and how to fetch the rest, and
    exits 3, with no traceback; its log is what the others' began with."""
    play = ("--autoplay", "greedy", "--away-after", "2", "--go-on-after", "2", "--alone-after", "5")
    procs, dirs = start_table(tmp_path, play=play)
    try:
        deadline = time.monotonic() + GAME_TIMEOUT / 2
        while not any(f.stat().st_size > 25_000 for f in dirs[2].glob("*.p2p10")):
            assert time.monotonic() < deadline, "the game never got going"
            time.sleep(0.01)  # (about half of a game of one hand for three: mid-hand)
        os.kill(procs[2].pid, signal.SIGSTOP)
        others = [proc.communicate(timeout=GAME_TIMEOUT) for proc in procs[:2]]
        for proc, (out, err) in zip(procs[:2], others, strict=True):
            assert proc.returncode == 0 and re.search(r"^game over: .+ won", out, re.M), (out, err)
        os.kill(procs[2].pid, signal.SIGCONT)
        out, err = procs[2].communicate(timeout=GAME_TIMEOUT)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(procs[2].pid, signal.SIGCONT)
        stop(procs)
    assert procs[2].returncode == 3, (out, err)
    log = next(dirs[2].glob("*.p2p10"))
    # Whether it heard, as it woke, that the others had gone on without it is the network's
    # race (what its socket buffers held): either way it says what it knows.
    said = (r"^(nobody at the table has answered for \d+ seconds: the game may have gone on and "
            r"ended without this machine, or the network is down|the others went on without this "
            r"machine and nobody has answered for \d+ seconds: the game may have ended without you)"
            r"; what it holds is saved: when the others are back, "
            rf"p2p10 resume {re.escape(str(log))} fetches the rest$")
    assert re.search(said, out, re.M), out
    assert "Traceback" not in err, err
    # What it holds is the others' history, but for the moves it signed alone on waking (a bot
    # moves at once), which nobody else has: the audit says so, and blames nobody.
    held = [parse_entry(raw) for raw in read_records(log.read_bytes()).items]
    cy = int(log.stem.rsplit("seat", 1)[1]) - 1
    shared = len(held)
    while held[shared - 1].author == cy:
        shared -= 1
    finished = read_records(next(dirs[0].glob("*.p2p10")).read_bytes()).items
    assert [e.raw for e in held[:shared]] == list(finished[:shared]) and len(finished) > len(held)
    report = audit_bytes(log.read_bytes())
    assert report.violation is None and report.damage is None and not report.complete, report.verdict()
