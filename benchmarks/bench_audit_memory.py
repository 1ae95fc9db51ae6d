"""Peak memory of ``p2p10 audit``: a large junk file and a real game log.

Prints measurements, never pass/fail. The audit reads a file record by record
(``p2p10.log.RecordReader``), so its memory should stay near the largest entry for a file that
is not a log, and well within twice the file's size for a real game.

    python benchmarks/bench_audit_memory.py                 # 300 MB of junk, a 4-seat 10-hand game
    python benchmarks/bench_audit_memory.py --junk-mb 20    # a smaller junk file
    python benchmarks/bench_audit_memory.py --json          # one JSON object on stdout

Each audit runs in a fresh process (``python -m cli audit FILE``); its peak resident set size
(``ru_maxrss`` of the child) is reported beside that of a process that only imports the same
modules, so the difference is what the audit itself holds. The files go to a temporary
directory that is removed afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from p2p10.log import LOG_MAGIC, MAX_ENTRY_BYTES, file_header, record
from p2p10.rules import RuleSet
from p2p10.simulate import greedy_player
from protocol.memory import play_table

CHUNK = 1 << 20
BASELINE = "import p2p10.audit, cli.main"


def peak_rss_kb(code: list[str]) -> tuple[int, float, int]:
    """Run ``python code...`` in a fresh process: its peak RSS in KiB, seconds, exit status."""
    script = ("import resource, runpy, sys; sys.argv = sys.argv[1:]\n"
              "status = 0\n"
              "try:\n"
              "    if sys.argv[0] == '-c':\n"
              "        exec(sys.argv[1])\n"
              "    else:\n"
              "        runpy.run_module(sys.argv[0], run_name='__main__', alter_sys=True)\n"
              "except SystemExit as done:\n"
              "    status = done.code or 0\n"
              "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, status, file=sys.stderr)\n")
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", script, *code], capture_output=True, text=True,
                          check=False)
    seconds = time.perf_counter() - started
    rss, status = done.stderr.strip().splitlines()[-1].split()
    return int(rss), seconds, int(status)


def write_junk(path: Path, megabytes: int, with_magic: bool) -> None:
    """``megabytes`` of junk; with the log's magic, cut into records of the largest size a
    reader takes (what a crafted file would do to make a reader hold every record)."""
    junk = os.urandom(CHUNK)
    with path.open("wb") as out:
        if with_magic:
            out.write(file_header())
            size = MAX_ENTRY_BYTES
            piece = record(junk[:size])
            for _ in range(megabytes * CHUNK // len(piece)):
                out.write(piece)
        else:
            out.write(b"J" * len(LOG_MAGIC))
            for _ in range(megabytes):
                out.write(junk)


def write_game(path: Path, players: int, hands: int, seed: int) -> None:
    """A real game's log, played by greedy bots with the full dealing protocol."""
    play_table([greedy_player] * players, RuleSet.parse([f"hands={hands}"]), seed=seed, save=path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--junk-mb", type=int, default=300, help="size of the junk files (MB)")
    parser.add_argument("--players", type=int, default=4, help="seats in the real game")
    parser.add_argument("--hands", type=int, default=10, help="hands in the real game")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    baseline, _, _ = peak_rss_kb(["-c", BASELINE])
    figures: dict[str, Any] = {"baseline_rss_kb": baseline, "cases": {}}
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        cases = {
            "junk": (root / "junk.p2p10", lambda p: write_junk(p, args.junk_mb, False)),
            "junk_records": (root / "records.p2p10", lambda p: write_junk(p, args.junk_mb, True)),
            "game": (root / "game.p2p10", lambda p: write_game(p, args.players, args.hands, args.seed)),
        }
        for name, (path, make) in cases.items():
            print(f"writing {name} ...", file=sys.stderr)
            make(path)
            rss, seconds, status = peak_rss_kb(["cli", "audit", str(path)])
            size = path.stat().st_size
            figures["cases"][name] = {
                "file_bytes": size, "peak_rss_kb": rss, "above_baseline_kb": rss - baseline,
                "above_baseline_per_file_byte": round((rss - baseline) * 1024 / size, 4),
                "seconds": round(seconds, 2), "exit_status": status,
            }
    figures["self_rss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"a process that imports the audit: {baseline / 1024:.1f} MiB peak")
    for name, row in figures["cases"].items():
        above = row["above_baseline_kb"] / 1024
        print(f"{name:<13} file {row['file_bytes'] / CHUNK:8.1f} MiB  audit peak "
              f"{row['peak_rss_kb'] / 1024:7.1f} MiB (+{above:.1f} MiB, "
              f"{row['above_baseline_per_file_byte']:.3f} per file byte)  {row['seconds']:.1f} s  "
              f"exit {row['exit_status']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
