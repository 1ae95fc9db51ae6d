"""What checking every proof costs the audit (issue 24, point 9; attack A61): ``p2p10 audit
FILE`` as a subprocess, on the log of ``p2p10 simulate --players 4 --games 1 --crypto --seed
11``, checking every proof (the default) against ``--by-reveals`` (the former audit, which
settles a revealed step by its seed), each with ``--jobs 1`` and ``--jobs 2``. Wall time,
median of ``--runs`` runs, the modes interleaved; the ratios are against ``--by-reveals --jobs
2`` in the same run. Figures, not pass/fail.

    python benchmarks/bench_audit_modes.py            # 3 runs each
    python benchmarks/bench_audit_modes.py --runs 1 --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODES = {
    "every proof, --jobs 2": ["--jobs", "2"],
    "every proof, --jobs 1": ["--jobs", "1"],
    "--by-reveals, --jobs 2": ["--by-reveals", "--jobs", "2"],
    "--by-reveals, --jobs 1": ["--by-reveals", "--jobs", "1"],
}
BASELINE = "--by-reveals, --jobs 2"


def p2p10(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", *args], capture_output=True, text=True,
                          env=env, timeout=900, check=False)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="p2p10-audit-modes-") as tmp:
        env = {**os.environ, "XDG_DATA_HOME": str(Path(tmp) / "xdg"), "PYTHONPATH": str(ROOT)}
        print("playing a 4-player game with proofs (p2p10 simulate) ...", file=sys.stderr, flush=True)
        made = p2p10("simulate", "--players", "4", "--games", "1", "--crypto", "--seed", "11",
                     "--save", tmp, env=env)
        if made.returncode != 0:
            print(made.stderr, file=sys.stderr)
            return 1
        log = next(Path(tmp).glob("*.p2p10"))
        times: dict[str, list[float]] = {mode: [] for mode in MODES}
        verdicts: dict[str, str] = {}
        for run in range(args.runs):
            for mode, options in MODES.items():
                start = time.perf_counter()
                done = p2p10("audit", str(log), *options, env=env)
                times[mode].append(time.perf_counter() - start)
                if done.returncode != 0:
                    print(f"{mode}: exit {done.returncode}\n{done.stdout}{done.stderr}", file=sys.stderr)
                    return 1
                verdicts[mode] = done.stdout.strip().splitlines()[-1]
            print(f"run {run + 1}/{args.runs}: " + ", ".join(f"{m} {t[-1]:.2f} s" for m, t in times.items()),
                  file=sys.stderr, flush=True)
        medians = {mode: statistics.median(values) for mode, values in times.items()}
        result = {"log_bytes": log.stat().st_size, "runs": args.runs,
                  "median_s": medians, "ratio": {m: medians[m] / medians[BASELINE] for m in MODES},
                  "verdicts": verdicts}
    if args.json:
        print(json.dumps(result))
    else:
        print(f"p2p10 audit of a 4-player game ({result['log_bytes']:,} bytes), median of {args.runs}:")
        for mode in MODES:
            print(f"  {mode:<24} {medians[mode]:6.2f} s  x{result['ratio'][mode]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
