"""LAN play under stress, every peer in its own process on 127.0.0.1 (see tests/test_lan_processes.py
for the basic runs this builds on):

* six peers in six processes play a whole ``hands=1`` game: every saved log byte-identical,
  the audit clean, every process ends with status 0 and a ``game over:`` line;
* a three-seat game in which random peers (the host included) are killed with SIGKILL at random
  moments and started again with ``p2p10 resume``, several times a game: kills in quick
  succession, a peer killed again soon after it resumed, two peers down at once. At the end the
  same checks. The kill schedule comes from a printed seed, so a failure can be replayed
  (``P2P10_KILL_SEED=S P2P10_KILL_TRIALS=1``; the game itself, keys and timing, still differs).

``P2P10_KILL_TRIALS`` sets how many kill/restart games the test plays (default
:data:`DEFAULT_TRIALS`); ``benchmarks/kill_restart.py`` runs :func:`run_trial` as many times as
asked and reports the totals. Nothing here asserts a time: the time-outs only stop a hung game.

A peer is killed at any moment once it has saved its identity (the secrets file) and its
roster, which ``resume`` needs to find its seat: the log file is created just before the identity
is saved, and a kill between the two leaves a seat that cannot resume, so that moment is skipped
(the victim is stopped with SIGSTOP, seen stopped in ``/proc``, while its files are read; then
SIGKILL, or SIGCONT and no kill). Kills near the end are included: after the victim's own last
reveal, or once it has finished and stays for the others (a finished peer stays until every seat
holds the whole log, :data:`protocol.mesh.LINGER`), so a restarted peer still finds somebody to
fetch the last entries from. Once a process has ended, the kills of that game stop.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from p2p10.audit import audit_bytes
from p2p10.errors import ProtocolError
from p2p10.log import read_records
from protocol.storage import SeatFiles, read_secrets
from tests.test_lan_processes import assert_nothing_outside_save, environment, p2p10, spawn, stop
from tests.test_lan_processes import start_table as start_processes

NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay")
GAME_OVER = re.compile(r"^game over: .+ \(seat \d\) won; log /.+\.p2p10$", re.M)
GAME_TIMEOUT = 240.0  # a whole game after the last kill; a few seconds on an idle machine
START_TIMEOUT = 60.0  # until every seat has its files
WAIT_TIMEOUT = 30.0  # one wait for the game to move on before a kill
LATEST_KILL = 110  # entries: a three-seat hands=1 game writes 40 to 250, about 105 on average
FAIL_GRACE = 15.0  # once a process has failed, how long the others still get
AFTER_GAME_OVER = 90.0  # once one has ended well: a finished peer stays 30 s at most (LINGER)
DEFAULT_TRIALS = 3
TRIALS_VARIABLE = "P2P10_KILL_TRIALS"
SEED_VARIABLE = "P2P10_KILL_SEED"

Say = Callable[[str], None]


def _quiet(_line: str) -> None:
    pass


@dataclass
class Seat:
    """One seat's folder and the process that plays it now (``generation`` 0 is the host or
    join process, every restart is one more)."""

    name: str
    folder: Path
    proc: subprocess.Popen[str]
    generation: int = 0

    def log(self) -> Path | None:
        """The seat's saved log, once it has one."""
        return next(self.folder.glob("*.p2p10"), None)


@dataclass
class Table:
    """The seats of a table played by processes, in the order they sat down (the host first;
    the table seats the joiners in the order they reached the lobby)."""

    root: Path
    seats: list[Seat]
    env: dict[str, str]

    def procs(self) -> list[subprocess.Popen[str]]:
        """The processes that play the seats now."""
        return [seat.proc for seat in self.seats]

    def keep_output(self, seat: Seat) -> None:
        """Save what a process that has ended printed, in ``root/out`` (kept for a post-mortem)."""
        out, err = seat.proc.communicate()
        folder = self.root / "out"
        folder.mkdir(exist_ok=True)
        stem = f"{seat.name}-{seat.generation}"
        (folder / f"{stem}.out").write_text(f"{out}\n[exit status {seat.proc.returncode}]\n")
        (folder / f"{stem}.err").write_text(err)


def start_table(root: Path, seats: int, options: tuple[str, ...] = ("hands=1",)) -> Table:
    """A host and ``seats - 1`` joiners on 127.0.0.1, every seat played by a greedy bot and saving
    in its own folder. The host announces nothing (``--quiet-network``)."""
    names = NAMES[:seats]
    procs, folders = start_processes(root, names, options, host=("--quiet-network",))
    return Table(root, [Seat(*seat) for seat in zip(names, folders, procs, strict=True)],
                 environment(root))


def entries(path: Path | None) -> list[bytes]:
    """The whole records of a log file (none if there is no file yet)."""
    if path is None:
        return []
    try:
        return list(read_records(path.read_bytes()).items)
    except (OSError, ProtocolError):
        return []


def progress(table: Table) -> int:
    """How far the game has got: the longest log of the table, in entries."""
    return max(len(entries(seat.log())) for seat in table.seats)


def why_not_kill(seat: Seat) -> str | None:
    """Why killing this seat now would leave it unable to come back (None: it can be killed).
    The process must be stopped (SIGSTOP) while this reads its files."""
    if seat.proc.poll() is not None:
        return "it has ended"
    log = seat.log()
    if log is None:
        return "no log yet"
    if not SeatFiles(log).roster.exists():
        return "no roster yet"
    try:
        read_secrets(SeatFiles(log).secrets)
    except (OSError, ProtocolError):
        return "its identity is not saved yet"
    return None


@dataclass
class TrialResult:
    """What one game under kills came to."""

    seed: int
    seats: int
    kills_planned: int
    kills: int = 0
    restarts: int = 0
    declined: int = 0  # moments at which the victim could not be killed (see why_not_kill)
    entries: int = 0
    identical: bool = False
    clean: bool = False
    exits_ok: bool = False
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    root: Path | None = None

    @property
    def ok(self) -> bool:
        """True when the game ended well for every seat."""
        return self.identical and self.clean and self.exits_ok and not self.problems

    def line(self) -> str:
        """One line for a person."""
        verdict = "ok" if self.ok else "FAILED"
        return (f"seed {self.seed}: {self.seats} seats, kills {self.kills}/{self.kills_planned}, "
                f"restarts {self.restarts}, declined {self.declined}, {self.entries} entries, "
                f"logs identical {self.identical}, audit clean {self.clean}, exits ok "
                f"{self.exits_ok}, {self.seconds:.1f} s: {verdict}")

    def report(self) -> str:
        """The line and every problem, with where the files are."""
        lines = [self.line(), *(f"  - {p}" for p in self.problems)]
        if self.root is not None:
            lines.append(f"  files in {self.root}")
        return "\n".join(lines)


def wait_for_files(table: Table, deadline: float) -> None:
    """Until every seat has a log with the table entry in it (a game under way)."""
    while not all(entries(seat.log()) for seat in table.seats):
        if time.monotonic() > deadline or any(s.proc.poll() is not None for s in table.seats):
            raise TimeoutError("the game never got going")
        time.sleep(0.02)


def _wait_progress(table: Table, target: int) -> None:
    deadline = time.monotonic() + WAIT_TIMEOUT
    while progress(table) < target and time.monotonic() < deadline:
        if any(s.proc.poll() is not None for s in table.seats):
            return
        time.sleep(0.02)


def _wait_stopped(pid: int) -> None:
    """Until the process has really stopped (a signal takes effect when it is next scheduled)."""
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except (OSError, IndexError):
            return  # no /proc: the check that follows is then only nearly exact
        if state in "TtZX":
            return
        time.sleep(0.001)


def try_kill(table: Table, seat: Seat) -> str | None:
    """SIGKILL the seat's process if it can come back; why not, otherwise."""
    try:
        seat.proc.send_signal(signal.SIGSTOP)
    except ProcessLookupError:
        return "it has ended"
    _wait_stopped(seat.proc.pid)
    reason = why_not_kill(seat)
    if reason is not None:
        seat.proc.send_signal(signal.SIGCONT)
        return reason
    seat.proc.send_signal(signal.SIGKILL)
    seat.proc.wait()
    table.keep_output(seat)
    return None


def restart(table: Table, seat: Seat) -> None:
    """``p2p10 resume`` the seat from its files."""
    log = seat.log()
    assert log is not None
    seat.generation += 1
    seat.proc = spawn(p2p10("resume", str(log), "--autoplay", "greedy"), table.env)


def kill_and_restart(table: Table, rng: random.Random, kills: int, result: TrialResult,
                     say: Say = _quiet) -> None:
    """Kill ``kills`` times a random seat at a random moment and restart it at once or after a
    short pause. Moments: once the game has reached a random entry (the kills' entries are
    drawn over a typical game, :data:`LATEST_KILL`, and sorted), a fraction of a second after
    the previous kill (two peers down at once, or one killed while it starts up again), or the
    previous victim again soon after its restart."""
    targets = sorted(rng.randint(1, LATEST_KILL) for _ in range(kills))
    victim: Seat | None = None
    attempts = 0
    while result.kills < kills and attempts < kills * 6:
        attempts += 1
        if any(s.proc.poll() is not None for s in table.seats):
            say("  a process has ended: no more kills in this game")
            return
        mode = rng.choice(("progress", "progress", "quick", "again"))
        if mode == "again" and victim is not None:
            time.sleep(rng.uniform(0.1, 1.5))
            seat = victim
        elif mode == "quick":
            time.sleep(rng.uniform(0.0, 0.4))
            seat = rng.choice(table.seats)
        else:
            mode = "progress"
            _wait_progress(table, targets[result.kills])
            seat = rng.choice(table.seats)
        at = progress(table)
        reason = try_kill(table, seat)
        if reason == "it has ended":
            say(f"  not killing {seat.name} at entry {at} ({reason}): no more kills in this game")
            result.declined += 1
            return
        if reason is not None:
            say(f"  not killing {seat.name} at entry {at}: {reason}")
            result.declined += 1
            continue
        result.kills += 1
        victim = seat
        pause = rng.choice((0.0, 0.0, rng.uniform(0.0, 1.5)))
        say(f"  kill {result.kills}: {seat.name} (process {seat.generation}) at entry {at} "
            f"[{mode}], restart after {pause:.2f} s")
        time.sleep(pause)
        restart(table, seat)
        result.restarts += 1


def finish(table: Table, result: TrialResult, timeout: float = GAME_TIMEOUT) -> None:
    """Wait for every process to end (stopping them all if the game hangs or one fails), then
    check them and the logs into ``result``."""
    deadline = time.monotonic() + timeout
    ended = False
    while any(seat.proc.poll() is None for seat in table.seats):
        if any(s.proc.returncode not in (None, 0) for s in table.seats):
            deadline = min(deadline, time.monotonic() + FAIL_GRACE)
        elif not ended and any(s.proc.returncode == 0 for s in table.seats):
            ended = True  # the game is over for one: the others have only to catch up
            deadline = min(deadline, time.monotonic() + AFTER_GAME_OVER)
        if time.monotonic() > deadline:
            hung = [s.name for s in table.seats if s.proc.poll() is None]
            why = "after another ended" if ended else "after the time-out"
            result.problems.append(f"still running {why}, stopped: {', '.join(hung)}")
            stop(table.procs())
            break
        time.sleep(0.05)
    exits_ok = True
    for seat in table.seats:
        table.keep_output(seat)
        stem = table.root / "out" / f"{seat.name}-{seat.generation}"
        out = stem.with_suffix(".out").read_text()
        if seat.proc.returncode != 0 or not GAME_OVER.search(out):
            exits_ok = False
            err = stem.with_suffix(".err").read_text().strip()[-600:]
            result.problems.append(f"{seat.name} (process {seat.generation}) exit status "
                                   f"{seat.proc.returncode}: {out.strip()[-300:]!r} {err!r}")
    result.exits_ok = exits_ok
    logs = [seat.log() for seat in table.seats]
    if any(log is None for log in logs):
        result.problems.append("a seat has no log")
        return
    data = [log.read_bytes() for log in logs if log is not None]
    result.identical = all(d == data[0] for d in data)
    if not result.identical:
        sizes = ", ".join(f"{s.name} {len(entries(s.log()))}" for s in table.seats)
        result.problems.append(f"the logs differ (entries: {sizes})")
    report = audit_bytes(data[0])
    result.entries = report.entries
    result.clean = report.clean and report.table is not None and \
        sorted(report.table.names) == sorted(NAMES[:len(table.seats)])
    if not result.clean:
        result.problems.append(f"audit of {table.seats[0].name}'s log: {report.verdict()}")
    for seat in table.seats:
        log = seat.log()
        assert log is not None
        if SeatFiles(log).secrets.stat().st_mode & 0o077:
            result.problems.append(f"{seat.name}'s secrets file is readable by others")


def run_trial(root: Path, seed: int, kills: int | None = None, seats: int = 3,
              options: tuple[str, ...] = ("hands=1",), say: Say = _quiet) -> TrialResult:
    """One game at a table of ``seats`` processes with ``kills`` kills and restarts (3 to 5,
    from the seed, if None); never raises for what goes wrong in the game: see the result."""
    rng = random.Random(seed)
    if kills is None:
        kills = rng.randint(3, 5)
    result = TrialResult(seed, seats, kills, root=root)
    started = time.monotonic()
    table = start_table(root, seats, options)
    try:
        if kills:
            wait_for_files(table, time.monotonic() + START_TIMEOUT)
            kill_and_restart(table, rng, kills, result, say)
        finish(table, result)
    except Exception as err:  # reported as the trial's failure
        result.problems.append(f"{type(err).__name__}: {err}")
    finally:
        stop(table.procs())
    result.seconds = time.monotonic() - started
    return result


def trial_count() -> int:
    """How many kill/restart games the test plays (``P2P10_KILL_TRIALS``)."""
    return int(os.environ.get(TRIALS_VARIABLE, DEFAULT_TRIALS))


# ----------------------------------------------------------------------------- tests


def test_six_processes_play_a_whole_game(tmp_path: Path) -> None:
    result = run_trial(tmp_path, seed=0, kills=0, seats=6)
    assert result.ok, result.report()
    assert result.kills == 0 and result.restarts == 0
    assert_nothing_outside_save(tmp_path)


def test_random_kills_and_restarts_keep_one_clean_log(tmp_path: Path) -> None:
    base = int(os.environ.get(SEED_VARIABLE, random.randrange(1 << 32)))
    trials = trial_count()
    print(f"kill/restart trials: {trials}, seeds {base}..{base + trials - 1} ({SEED_VARIABLE}={base})")
    results = []
    for n in range(trials):
        result = run_trial(tmp_path / f"game{n}", base + n, say=print)
        print(result.line())
        results.append(result)
    failed = [r for r in results if not r.ok]
    assert not failed, "\n".join(r.report() for r in failed)
    assert sum(r.kills for r in results) > 0  # the schedule did kill (a short game may end first)
