"""Kill/restart trials: LAN games in which random peers are SIGKILLed and resumed.

Each game is a table of peers in separate processes on 127.0.0.1 (``p2p10 host`` and ``p2p10
join`` with ``--autoplay greedy``); at random moments a random peer, the host included, is killed
with SIGKILL and started again with ``p2p10 resume``. At the end every saved log must be
byte-identical, its audit clean, and every process must have exited 0 with a ``game over:``
line. The trial itself is :func:`tests.test_lan_stress.run_trial` (the test runs a few of them).

    python benchmarks/kill_restart.py --games 20            # 20 games, 3 to 5 kills each
    python benchmarks/kill_restart.py --games 5 --kills 8 --seed 7
    python benchmarks/kill_restart.py --games 1 --seed S -v # replay one game's kill schedule

Game ``i`` uses the seed ``SEED + i`` (printed): its kill schedule (who, when, how soon the
restart) is the seed's; the game itself (keys, cards, timing) differs from run to run. A failed
game's files (logs, secrets, rosters and every process's output) are copied to
``/tmp/failed-trial-N-seed-S``. The exit status is 1 if any game failed. Nothing here is a timing.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.test_lan_stress import run_trial  # noqa: E402 - needs the project root on sys.path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10, help="games to play (10)")
    parser.add_argument("--kills", type=int, default=None,
                        help="kills per game (default: 3 to 5, from the game's seed)")
    parser.add_argument("--seats", type=int, default=3, help="seats at each table, 2-6 (3)")
    parser.add_argument("--seed", type=int, default=None, help="the first game's seed (random)")
    parser.add_argument("-o", "--option", action="append", default=None,
                        help="a rule option for every game (default: hands=1)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every kill")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(1 << 32)
    options = tuple(args.option or ["hands=1"])
    print(f"{args.games} games of {args.seats} seats, rules {' '.join(options)}, "
          f"seeds {seed}..{seed + args.games - 1}", flush=True)
    games = kills = restarts = failures = 0
    started = time.monotonic()

    def say(line: str) -> None:
        if args.verbose:
            print(line, flush=True)

    for n in range(args.games):
        with tempfile.TemporaryDirectory(prefix="p2p10-kill-") as folder:
            result = run_trial(Path(folder), seed + n, args.kills, args.seats, options, say)
            games += 1
            kills += result.kills
            restarts += result.restarts
            print(f"game {n + 1}: {result.line()}", flush=True)
            if not result.ok:
                failures += 1
                kept = Path(f"/tmp/failed-trial-{n + 1}-seed-{seed + n}")
                if kept.exists():
                    kept = Path(tempfile.mkdtemp(prefix=f"{kept.name}-", dir="/tmp"))
                    kept.rmdir()
                shutil.copytree(folder, kept, symlinks=True)
                for problem in result.problems:
                    print(f"  - {problem}", flush=True)
                print(f"  files kept in {kept}", flush=True)
    print(f"total: {games} games, {kills} kills, {restarts} restarts, {failures} failures "
          f"({time.monotonic() - started:.0f} s)", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
