"""What the benchmarks that start processes share (``bench_lan.py``, ``bench_dealing.py``): a
process with its output in files and its resource usage from ``wait4``, and the failure a
benchmark reports and exits 1 on. Imported by the scripts as ``processes`` (their folder is
``sys.path[0]``)."""

from __future__ import annotations

import contextlib
import os
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class BenchFailure(RuntimeError):
    """The protocol run went wrong (not a timing matter): the benchmark reports it and exits 1."""


def spread(values: Sequence[float]) -> dict[str, float]:
    """Median, min and max of some samples."""
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


@dataclass
class Proc:
    """A process this benchmark started, with its output in files (never a pipe that could
    fill up) and, once reaped with ``wait4``, its exit code, end time and resource usage."""

    name: str
    popen: subprocess.Popen[bytes]
    out: Path
    err: Path
    started: float
    ended: float | None = None
    code: int | None = None
    usage: Any = None

    def reap(self) -> bool:
        """Collect the process if it has ended (True once it has)."""
        if self.code is not None:
            return True
        pid, status, usage = os.wait4(self.popen.pid, os.WNOHANG)
        if pid == 0:
            return False
        self.ended = time.perf_counter()
        self.code = os.waitstatus_to_exitcode(status)
        self.usage = usage
        self.popen.returncode = self.code  # reaped here: Popen must not wait for it again
        return True

    def kill(self) -> None:
        """Kill and reap it, if it is still running."""
        if self.code is None and self.popen.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.popen.kill()
            with contextlib.suppress(ChildProcessError):
                self.popen.wait()

    @property
    def cpu_s(self) -> float:
        """User and system CPU seconds, from ``wait4``."""
        return float(self.usage.ru_utime + self.usage.ru_stime)

    @property
    def wall_s(self) -> float:
        """From its start until it was reaped."""
        assert self.ended is not None
        return self.ended - self.started

    def text(self) -> str:
        return self.out.read_text(errors="replace") if self.out.exists() else ""

    def tail(self) -> str:
        err = self.err.read_text(errors="replace") if self.err.exists() else ""
        return (self.text() + err)[-600:]


def one_log(procs: Sequence[Proc], dirs: Sequence[Path], what: str) -> bytes:
    """After a game of processes, each saving its log in its own folder of ``dirs``: every
    process ended with status 0, and every folder holds one log, all the same; that log's bytes."""
    for proc in procs:
        if proc.code != 0:
            raise BenchFailure(f"{what}: {proc.name} ended with status {proc.code}: {proc.tail()}")
    logs = [path for d in dirs for path in d.glob("*.p2p10")]
    if len(logs) != len(dirs):
        raise BenchFailure(f"{what}: {len(logs)} logs saved, not {len(dirs)}")
    data = [path.read_bytes() for path in logs]
    if any(d != data[0] for d in data):
        raise BenchFailure(f"{what}: the peers' logs differ")
    return data[0]


def spawn(name: str, args: list[str], folder: Path, env: dict[str, str]) -> Proc:
    """Start ``args`` in ``folder``, its output in ``NAME.out`` and ``NAME.err`` there."""
    out, err = folder / f"{name}.out", folder / f"{name}.err"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        popen = subprocess.Popen(args, stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL,
                                 env=env, cwd=folder)
    return Proc(name, popen, out, err, time.perf_counter())


def reap_all(procs: Sequence[Proc], timeout: float, what: str,
             watch: Callable[[], None] = lambda: None) -> None:
    """Wait for every process to end (calling ``watch`` now and then)."""
    deadline = time.perf_counter() + timeout
    while not all([p.reap() for p in procs]):
        watch()
        if time.perf_counter() > deadline:
            raise BenchFailure(f"{what}: still running after {timeout:.0f} s")
        time.sleep(0.005)
