"""Slow is not gone, and gone comes back, over real sockets in separate processes (issue 11,
item 7; PROTOCOL §4.13, §4.14). Two tables play at once, to keep the suite short:

- **Thinking.** Cy is connected and takes 45 s over each move (``--think 45``); Ann and Bob are
  on ``--go-on-after 5``. Nothing happens: nobody goes on without Cy, and Cy's move, when it
  comes, is in every log.
- **Asleep.** Cy's process is stopped with SIGSTOP for 75 s (a closed laptop lid) and then
  continued. Ann and Bob go on without it once it has been out of reach for ``--away-after``
  (30 s, the default) and 5 s more; when Cy wakes, its machine follows the game and takes its
  seat back at the start of the next hand. One history, nobody blamed, and the audit names
  the takeover and the return. (Ann's and Bob's bots take half a second over each move, so
  that the game is still on when Cy wakes.)
"""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from p2p10.audit import UNCHECKED, audit_bytes
from p2p10.log import Entry, parse_entry
from protocol.storage import read_log
from tests.test_lan_processes import TIMEOUT, environment, p2p10, read_port, spawn, stop

THINK = 45.0
ASLEEP = 75.0
GREEDY = ("--autoplay", "greedy", "--interface", "127.0.0.1")
GO_ON = (*GREEDY, "--go-on-after", "5")


def table(tmp_path: Path, hands: int, plays: tuple[tuple[str, ...], ...]
          ) -> tuple[list[subprocess.Popen[str]], list[Path]]:
    """Ann hosts, Bob and Cy join, each playing as ``plays`` says."""
    env = environment(tmp_path)
    dirs = [tmp_path / name for name in ("ann", "bob", "cy")]
    procs = [spawn(p2p10("host", "--name", "Ann", "--seats", "3", "--start-when-full", "--quiet-network",
                         "-o", f"hands={hands}", "--save", str(dirs[0]), *plays[0]), env)]
    port = read_port(procs[0])
    for name, folder, play in zip(("Bob", "Cy"), dirs[1:], plays[1:], strict=True):
        procs.append(spawn(p2p10("join", f"127.0.0.1:{port}", "--name", name, "--save", str(folder),
                                 *play), env))
    return procs, dirs


def seat_of(folder: Path) -> int:
    """The seat a joiner got (the joins race): its log's name says."""
    return int(next(folder.glob("*.p2p10")).stem.rsplit("-seat", 1)[1]) - 1


def log_of(folder: Path, seat: int) -> list[Entry]:
    path = next(folder.glob(f"*-seat{seat + 1}.p2p10"))
    return [parse_entry(raw) for raw in read_log(path)]


def wait_for(condition: Callable[[], object], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def dealt(folder: Path) -> bool:
    return any(f.stat().st_size > 15_000 for f in folder.glob("*.p2p10"))


@pytest.mark.slow
def test_a_thinking_player_is_waited_for_and_a_sleeping_machine_comes_back(tmp_path: Path) -> None:
    procs: list[subprocess.Popen[str]] = []
    try:
        slow = (*GREEDY, "--think", str(THINK))
        thinking, think_dirs = table(tmp_path / "thinking", 1, (GO_ON, GO_ON, slow))
        procs += thinking
        steady = (*GO_ON, "--think", "0.5")
        asleep, sleep_dirs = table(tmp_path / "asleep", 5, (steady, steady, GREEDY))
        procs += asleep
        wait_for(lambda: dealt(sleep_dirs[2]), TIMEOUT, "the asleep table never got going")
        asleep[2].send_signal(signal.SIGSTOP)
        stopped_at = time.monotonic()

        # Thinking: wait for Cy's first move; meanwhile nobody goes on without Cy.
        wait_for(lambda: dealt(think_dirs[2]), TIMEOUT, "the thinking table never got going")
        cy = seat_of(think_dirs[2])
        seats = (0, seat_of(think_dirs[1]), cy)

        def cy_moved() -> bool:
            return any(e.author == cy and e.kind == "move" for e in log_of(think_dirs[0], 0))

        started = time.monotonic()
        wait_for(cy_moved, THINK + 3 * TIMEOUT, "Cy never moved")
        assert time.monotonic() - started >= THINK - 5  # (the table waited for the whole think)
        for folder, seat in zip(think_dirs, seats, strict=True):
            wait_for(lambda f=folder, s=seat: any(e.author == cy and e.kind == "move"  # type: ignore[misc]
                                                  for e in log_of(f, s)), TIMEOUT, "Cy's move not everywhere")
            assert all(e.kind != "away" for e in log_of(folder, seat))
        stop(thinking)
        for proc in thinking[:2]:
            assert "going on without" not in proc.communicate()[1]

        # Asleep: wake Cy after 75 s; the game then runs to its end, in one history.
        time.sleep(max(0.0, ASLEEP - (time.monotonic() - stopped_at)))
        assert any(e.kind == "away" for e in log_of(sleep_dirs[0], 0))  # the others went on
        asleep[2].send_signal(signal.SIGCONT)
        cy = seat_of(sleep_dirs[2])
        outputs = [proc.communicate(timeout=20 * TIMEOUT) for proc in asleep]
        for proc, (out, err) in zip(asleep, outputs, strict=True):
            assert proc.returncode == 0, (out, err)
            assert "game over:" in out, out
        logs = [path.read_bytes() for folder in sleep_dirs for path in sorted(folder.glob("*.p2p10"))]
        assert len(logs) == 4 and len(set(logs)) == 1  # Ann, the bot she ran for Cy, Bob, Cy
        report = audit_bytes(logs[0])
        assert report.violation is None and report.complete, report.verdict()
        assert report.exit_status == UNCHECKED  # the voided hand's unrevealed steps
        assert [t.seats for t in report.takeovers] == [(cy,)]
        assert [(r.seats, r.away) for r in report.returns] == [((cy,), report.takeovers[0].seq)]
        back = report.returns[0]
        cy_after = [e for e in log_of(sleep_dirs[2], cy) if e.author == cy and e.seq > back.seq]
        assert cy_after and report.table is not None
        assert all(e.verify(report.table.verifiers[cy]) for e in cy_after)  # Cy's own key again
        assert report.table.names[cy] == "Cy"
        assert "going on without Cy" in outputs[0][1] + outputs[1][1]
    finally:
        stop(procs)
