"""Do spectators slow the players? A complete 4-peer game of separate ``p2p10 host`` / ``p2p10
join`` processes (greedy bots), played without spectators and with three ``p2p10 watch``
processes following it from before the deal, the runs interleaved so that both meet the same
machine.

Prints measurements, never pass/fail; nothing here asserts a time. See benchmarks/README.md.

    python benchmarks/bench_watch.py            # the full run: 5 games of each kind, hands=2
    python benchmarks/bench_watch.py --quick    # a smoke run: 1 game without and with spectators
                                                # (at the players' priority), hands=1
    python benchmarks/bench_watch.py --json     # one JSON object with every figure on stdout

Everything runs on 127.0.0.1, on one machine: the spectators' own work (each checks every entry,
every proof included, as a peer does) competes with the players' for the same cores, which a
spectator on its own machine would not. So there are three kinds of runs with spectators: at the
players' priority (the worst case: 7 processes on these cores), at ``nice 19``, and "apart": the
players kept to core 0 and the spectators to core 1 (``taskset``), as if on machines of their
own, which leaves what a spectator costs the players: the host's work of serving it and the
network's; its baseline is the players kept to core 0 with no spectators. The figure is the
game's wall time, from the start of the table (the host saves its roster) to the last entry of
the log (the players' time, not the processes' start-up), as the files' times say, and the time
an entry takes (games differ in length: their deals are random), with the ratio of its median to
the median without spectators.

The exit status is 1 only if a run itself went wrong: a process failed, the players' logs
differ, or a spectator saw another log than theirs (a spectator that could not keep up, which
the host drops, is counted, not a failure: at nice 19 on a loaded machine it may not)."""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from processes import BenchFailure, Proc, one_log, reap_all, spawn, spread  # benchmarks/processes.py

from p2p10.audit import audit_bytes

LOOPBACK = "127.0.0.1"
PLAYERS = 4
SPECTATORS = 3
TIMEOUT = 600.0
# No spectators; 3 at nice 19; 3 at the players' priority; and, with the players kept to one
# core: no spectators, and 3 spectators kept to the other core ("apart": as if on machines of
# their own, which leaves the host's work of serving them, and the network's).
KINDS = ("none", "nice", "same", "alone", "apart")
BASELINE = {"none": "none", "nice": "none", "same": "none", "alone": "alone", "apart": "alone"}
PINNED = {"alone", "apart"}


def p2p10(*args: str) -> list[str]:
    return [sys.executable, "-m", "cli", *args]


def progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def play(kind: str, number: int, hands: int, folder: Path, env: dict[str, str]) -> dict[str, Any]:
    """One game of ``kind``; its figures."""
    folder.mkdir(parents=True)
    dirs = [folder / f"seat{i + 1}" for i in range(PLAYERS)]
    watching = kind not in ("none", "alone")
    watch_dirs = [folder / f"watch{i + 1}" for i in range(SPECTATORS if watching else 0)]
    players_cpu = ["taskset", "-c", "0"] if kind in PINNED else []
    spectators_cpu = ["taskset", "-c", "1"] if kind in PINNED else []
    procs: list[Proc] = []
    watchers: list[Proc] = []
    try:
        procs.append(spawn("host", [*players_cpu, *p2p10(
            "host", "--name", "Seat 1", "--autoplay", "greedy", "--seats", str(PLAYERS),
            "--start-when-full", "--interface", LOOPBACK, "--quiet-network", "--save", str(dirs[0]),
            "-o", f"hands={hands}")], folder, env))
        deadline = time.perf_counter() + 30
        while (found := re.search(r"^listening on 127\.0\.0\.1:(\d+)$", procs[0].text(), re.M)) is None:
            if procs[0].reap() or time.perf_counter() > deadline:
                raise BenchFailure(f"{kind} {number}: the host never said where it listens: "
                                   f"{procs[0].tail()}")
            time.sleep(0.005)
        address = f"{LOOPBACK}:{found.group(1)}"
        for i, save in enumerate(watch_dirs):
            nice = ["nice", "-n", "19"] if kind == "nice" else []
            command = p2p10("watch", address, "--name", f"Watcher {i + 1}", "--save", str(save))
            watchers.append(spawn(f"watch{i + 1}", [*spectators_cpu, *nice, *command], folder, env))
        # The spectators are watching before anybody sits down: the whole game goes to them.
        deadline = time.perf_counter() + 30
        while procs[0].text().count("is watching") < len(watchers):
            if procs[0].reap() or time.perf_counter() > deadline:
                raise BenchFailure(f"{kind} {number}: the spectators never came: {procs[0].tail()}")
            time.sleep(0.005)
        for i in range(1, PLAYERS):
            procs.append(spawn(f"seat{i + 1}", [*players_cpu, *p2p10(
                "join", address, "--name", f"Seat {i + 1}", "--autoplay", "greedy",
                "--interface", LOOPBACK, "--save", str(dirs[i]))], folder, env))
        reap_all([*procs, *watchers], TIMEOUT, f"{kind} {number}")
    finally:
        for proc in [*procs, *watchers]:
            proc.kill()
    log = one_log(procs, dirs, f"{kind} {number}")
    kept_up = 0
    for watcher, save in zip(watchers, watch_dirs, strict=True):
        saved = list(save.glob("*.p2p10"))
        held = saved[0].read_bytes() if len(saved) == 1 else b""
        verdict = watcher.text().rstrip().splitlines()[-1] if watcher.text().strip() else ""
        if watcher.code == 0 and held == log and verdict.startswith("CLEAN"):
            kept_up += 1
        elif "VIOLATION" in watcher.text() or not log.startswith(held):
            # Too slow to keep up is allowed (the host drops it); a wrong log is not.
            raise BenchFailure(f"{kind} {number}: {watcher.name} saw another log: {watcher.tail()}")
    report = audit_bytes(log)
    if not report.clean:
        raise BenchFailure(f"{kind} {number}: the audit is not clean: {report.verdict()}")
    # From the start of the table (the host saves the roster as it starts) to the last entry.
    first = min(p.stat().st_mtime for p in dirs[0].glob("*.p2p10-roster"))
    last = max(p.stat().st_mtime for d in dirs for p in d.glob("*.p2p10"))
    return {"kind": kind, "game_s": last - first, "entries": report.entries,
            "ms_per_entry": (last - first) * 1000 / report.entries,
            "spectators_kept_up": kept_up,
            "players_cpu_s": sum(p.cpu_s for p in procs),
            "host_cpu_s": procs[0].cpu_s,
            "spectators_cpu_s": sum(w.cpu_s for w in watchers)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one game of each kind, hands=1")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument("--games", type=int, help="games of each kind (5; --quick 1)")
    parser.add_argument("--hands", type=int, help="hands a game (2; --quick 1)")
    args = parser.parse_args(argv)
    games = args.games or (1 if args.quick else 5)
    hands = args.hands or (1 if args.quick else 2)
    kinds = ("none", "same") if args.quick else KINDS
    if (os.cpu_count() or 1) < 2:
        kinds = tuple(k for k in kinds if k not in PINNED)  # one core: nothing to keep apart
    runs: dict[str, list[dict[str, Any]]] = {kind: [] for kind in kinds}
    try:
        with tempfile.TemporaryDirectory(prefix="p2p10-bench-watch-") as tmp:
            env = {**os.environ, "XDG_DATA_HOME": str(Path(tmp) / "xdg"), "PYTHONUNBUFFERED": "1"}
            for g in range(games):
                for kind in kinds:  # interleaved: each kind meets the machine as it is then
                    run = play(kind, g + 1, hands, Path(tmp) / f"{kind}{g + 1}", env)
                    runs[kind].append(run)
                    progress(f"game {g + 1}/{games}, spectators {kind}: {run['game_s']:.2f} s, "
                             f"{run['entries']} entries")
    except BenchFailure as err:
        print(f"bench_watch: {err}", file=sys.stderr)
        return 1
    base = {kind: statistics.median(r["ms_per_entry"] for r in runs[kind]) for kind in kinds
            if kind in BASELINE.values()}
    figures: dict[str, Any] = {"players": PLAYERS, "spectators": SPECTATORS, "games": games, "hands": hands,
                               "cores": os.cpu_count(), "kinds": {}}
    for kind in kinds:
        per_entry = [r["ms_per_entry"] for r in runs[kind]]
        figures["kinds"][kind] = {
            "game_s": spread([r["game_s"] for r in runs[kind]]),
            "ms_per_entry": spread(per_entry),
            "baseline": BASELINE[kind],
            "ratio_to_none": statistics.median(per_entry) / base[BASELINE[kind]],
            "players_cpu_s": statistics.median(r["players_cpu_s"] for r in runs[kind]),
            "host_cpu_s": statistics.median(r["host_cpu_s"] for r in runs[kind]),
            "spectators_cpu_s": statistics.median(r["spectators_cpu_s"] for r in runs[kind]),
            "entries": statistics.median(r["entries"] for r in runs[kind]),
            "spectators_kept_up": sum(r["spectators_kept_up"] for r in runs[kind]),
            "spectators_watching": SPECTATORS * len(runs[kind]) if kind not in ("none", "alone") else 0,
        }
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"A {PLAYERS}-peer game of processes on 127.0.0.1 (greedy bots, hands={hands}), "
          f"{games} game(s) of each kind, {os.cpu_count()} cores; median [min, max]:")
    names = {"none": "no spectators", "nice": f"{SPECTATORS} spectators at nice 19",
             "same": f"{SPECTATORS} spectators at the players' priority",
             "alone": "players on core 0, no spectators",
             "apart": f"players on core 0, {SPECTATORS} spectators on core 1"}
    for kind in kinds:
        k = figures["kinds"][kind]
        g, e = k["game_s"], k["ms_per_entry"]
        print(f"  {names[kind]:<44} {e['median']:5.1f} ms an entry [{e['min']:.1f}, {e['max']:.1f}]  "
              f"x{k['ratio_to_none']:.3f}  (game {g['median']:.2f} s, {k['entries']:.0f} entries)  "
              f"host CPU {k['host_cpu_s']:.2f} s  spectators CPU {k['spectators_cpu_s']:.2f} s, "
              f"{k['spectators_kept_up']}/{k['spectators_watching']} ended with the whole log")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
