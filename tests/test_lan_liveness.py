"""Slow is not gone, and gone comes back, over real sockets in separate processes (issue 11,
item 7; PROTOCOL §4.13, §4.14). Two tables play at once:

- **Thinking.** Cy is connected and takes 45 s over each move (``--think 45``); Ann and Bob are
  on ``--go-on-after 5``. Nothing happens: nobody goes on without Cy, and Cy's move, when it
  comes, is in every log.
- **Asleep.** Cy's process is stopped with SIGSTOP for 75 s (a closed laptop lid) and then
  continued. Ann and Bob go on without it once it has been out of reach for ``--away-after``
  (30 s, the default) and 5 s more; when Cy wakes, its machine follows the game and takes its
  seat back at the start of the next hand. One history, nobody blamed, and the audit names
  the takeover and the return. (Ann's and Bob's bots take half a second over each move, so
  that the game is still on when Cy wakes.)

Both take minutes of real time, nearly all of it waiting. So that the suite does not wait for
them, :class:`Trial` starts when collection ends (``tests/conftest.py``) and runs beside the
other tests; the test collects what it saw and checks it.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from p2p10.audit import audit_bytes
from p2p10.log import Entry, parse_entry
from protocol.storage import read_log
from tests.test_lan_processes import TIMEOUT, environment, p2p10, read_port, spawn, stop

THINK = 45.0
ASLEEP = 75.0
GREEDY = ("--autoplay", "greedy", "--interface", "127.0.0.1")
GO_ON = (*GREEDY, "--go-on-after", "5")
STEADY = (*GO_ON, "--think", "0.5")


def table(folder: Path, hands: int, plays: tuple[tuple[str, ...], ...]
          ) -> tuple[list[subprocess.Popen[str]], list[Path]]:
    """Ann hosts, Bob and Cy join, each playing as ``plays`` says."""
    env = environment(folder)
    dirs = [folder / name for name in ("ann", "bob", "cy")]
    procs = [spawn(p2p10("host", "--name", "Ann", "--seats", "3", "--start-when-full", "--quiet-network",
                         "-o", f"hands={hands}", "--save", str(dirs[0]), *plays[0]), env)]
    port = read_port(procs[0])
    for name, where, play in zip(("Bob", "Cy"), dirs[1:], plays[1:], strict=True):
        procs.append(spawn(p2p10("join", f"127.0.0.1:{port}", "--name", name, "--save", str(where),
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


class Trial:
    """Both tables, played out in a thread of their own; what they showed, for the test."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="p2p10-liveness-"))
        self.procs: list[subprocess.Popen[str]] = []
        self.thinking: list[subprocess.Popen[str]] = []
        self.asleep: list[subprocess.Popen[str]] = []
        self.think_dirs: list[Path] = []
        self.sleep_dirs: list[Path] = []
        self.thought_for = 0.0  # how long the thinking table waited for Cy's first move
        self.away_while_asleep = False  # the others went on while Cy slept
        self.outputs: list[tuple[str, str]] = []
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="liveness trial", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def finish(self) -> None:
        """Wait for both tables to end (or fail); re-raise what went wrong in the thread."""
        self.thread.join(THINK + ASLEEP + 30 * TIMEOUT)
        if self.thread.is_alive():
            self.error = self.error or AssertionError("the trial never ended")
        if self.error is not None:
            raise self.error

    def close(self) -> None:
        stop(self.procs)
        shutil.rmtree(self.folder, ignore_errors=True)

    def _run(self) -> None:
        try:
            self.thinking, self.think_dirs = table(self.folder / "thinking", 1,
                                                   (GO_ON, GO_ON, (*GREEDY, "--think", str(THINK))))
            self.procs += self.thinking
            self.asleep, self.sleep_dirs = table(self.folder / "asleep", 5, (STEADY, STEADY, GREEDY))
            self.procs += self.asleep
            wait_for(lambda: dealt(self.sleep_dirs[2]), TIMEOUT, "the asleep table never got going")
            self.asleep[2].send_signal(signal.SIGSTOP)
            stopped_at = time.monotonic()
            self._think()
            time.sleep(max(0.0, ASLEEP - (time.monotonic() - stopped_at)))
            self.away_while_asleep = any(e.kind == "away" for e in log_of(self.sleep_dirs[0], 0))
            self.asleep[2].send_signal(signal.SIGCONT)
            self.outputs = [proc.communicate(timeout=20 * TIMEOUT) for proc in self.asleep]
        except BaseException as err:  # the test re-raises it
            self.error = err

    def _think(self) -> None:
        """The thinking table, up to Cy's first move being in every log; then it stops."""
        dirs = self.think_dirs
        wait_for(lambda: dealt(dirs[2]), TIMEOUT, "the thinking table never got going")
        started = time.monotonic()
        cy = seat_of(dirs[2])
        seats = (0, seat_of(dirs[1]), cy)

        def moved(folder: Path, seat: int) -> bool:
            return any(e.author == cy and e.kind == "move" for e in log_of(folder, seat))

        wait_for(lambda: moved(dirs[0], 0), THINK + 3 * TIMEOUT, "Cy never moved")
        self.thought_for = time.monotonic() - started
        for folder, seat in zip(dirs, seats, strict=True):
            wait_for(lambda f=folder, s=seat: moved(f, s), TIMEOUT,  # type: ignore[misc]
                     "Cy's move is not in every log")
        stop(self.thinking)


TRIAL: Trial | None = None


def start_trial() -> None:
    """Start the trial in the background (``tests/conftest.py`` calls this when collection
    ends, if this test is to run)."""
    global TRIAL
    if TRIAL is None:
        TRIAL = Trial()
        TRIAL.start()


@pytest.mark.slow
def test_a_thinking_player_is_waited_for_and_a_sleeping_machine_comes_back() -> None:
    start_trial()  # (already running, unless collected some other way)
    assert TRIAL is not None
    try:
        TRIAL.finish()
        # Thinking: the table waited out the whole think, and nobody went on without Cy.
        assert TRIAL.thought_for >= THINK - 5
        for folder in TRIAL.think_dirs:
            assert all(e.kind != "away" for path in folder.glob("*.p2p10")
                       for e in map(parse_entry, read_log(path)))
        for proc in TRIAL.thinking[:2]:
            assert "going on without" not in proc.communicate()[1]
        # Asleep: the others went on while Cy slept; it came back, and the game ended in one
        # history with Cy's seat back.
        assert TRIAL.away_while_asleep
        for proc, (out, err) in zip(TRIAL.asleep, TRIAL.outputs, strict=True):
            assert proc.returncode == 0, (out, err)
            assert "game over:" in out, out
            # A link broken by the sleep is a line in the log, never a traceback on the
            # player's screen (issue 24, attack A63).
            assert "Traceback" not in err and "Traceback" not in out, err
        dirs = TRIAL.sleep_dirs
        cy = seat_of(dirs[2])
        logs = [path.read_bytes() for folder in dirs for path in sorted(folder.glob("*.p2p10"))]
        assert len(logs) == 4 and len(set(logs)) == 1  # Ann, the bot she ran for Cy, Bob, Cy
        report = audit_bytes(logs[0])
        assert report.violation is None and report.complete, report.verdict()
        assert report.clean  # the voided hand's unrevealed steps are checked by their proofs
        assert [t.seats for t in report.takeovers] == [(cy,)]
        assert [(r.seats, r.away) for r in report.returns] == [((cy,), report.takeovers[0].seq)]
        back = report.returns[0]
        cy_after = [e for e in log_of(dirs[2], cy) if e.author == cy and e.seq > back.seq]
        assert cy_after and report.table is not None
        assert all(e.verify(report.table.verifiers[cy]) for e in cy_after)  # Cy's own key again
        assert report.table.names[cy] == "Cy"
        assert "going on without Cy" in TRIAL.outputs[0][1] + TRIAL.outputs[1][1]
    finally:
        TRIAL.close()
