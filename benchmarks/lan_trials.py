"""LAN trials in network namespaces: three ``p2p10`` processes, each on its own machine (a
network namespace joined to the others by a bridge), play a game of bots; in each run one
player's network goes down mid-hand for a while (its interface down: the others see nothing,
as when a Wi-Fi drops) and comes back. A run is good when every process exits 0, every log
(the bots a machine took over included) is byte-identical, and the audit blames nobody.

Issue 24, point 10: one run in six that partitioned a player for 30 s, healed about when the
others agreed to go on without it, left that machine forked for good. The cut lengths here
straddle that moment (links fail within the heartbeat, ``--away-after`` 30 s and
``--go-on-after`` 2 s later the others go on).

Needs root, ``ip`` (iproute2) and network namespaces; nothing leaves the machine (the
namespaces have no route out). Figures, not pass/fail; the exit status is 1 if a run was bad.

    python benchmarks/lan_trials.py                      # six runs, cuts of 30 to 45 s
    python benchmarks/lan_trials.py --runs 2 --cut 40    # two runs of a 40 s cut
    python benchmarks/lan_trials.py --json               # one JSON object on stdout
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from p2p10.audit import audit_bytes  # noqa: E402  (after the path: run as a script)

NAMES = ("Ann", "Bob", "Cy")
SUBNET = "10.78.0"
GAME_TIMEOUT = 600.0


@dataclass
class Run:
    """One trial: whom it cut, for how long, and how it ended."""

    cut: str
    seconds: float
    codes: list[int | None] = field(default_factory=list)
    identical: bool = False
    verdict: str = ""
    away_entries: int = 0
    tracebacks: int = 0
    took: float = 0.0

    @property
    def good(self) -> bool:
        return (self.codes == [0, 0, 0] and self.identical and self.tracebacks == 0
                and (self.verdict.startswith("CLEAN") or self.verdict.startswith("COMPLETE")))


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=30)


class Lan:
    """A bridge in namespace ``sw`` and three machines ``m1..m3`` at 10.78.0.1-3."""

    def __init__(self) -> None:
        tag = f"p2p10t{os.getpid()}"
        self.switch = f"{tag}sw"
        self.machines = [f"{tag}m{i}" for i in (1, 2, 3)]

    def __enter__(self) -> Lan:
        ip("netns", "add", self.switch)
        ip("-n", self.switch, "link", "add", "br0", "type", "bridge")
        ip("-n", self.switch, "link", "set", "br0", "up")
        for i, machine in enumerate(self.machines, 1):
            ip("netns", "add", machine)
            ip("-n", self.switch, "link", "add", f"v{i}", "type", "veth", "peer", "name", "eth0",
               "netns", machine)
            ip("-n", self.switch, "link", "set", f"v{i}", "master", "br0", "up")
            ip("-n", machine, "addr", "add", f"{SUBNET}.{i}/24", "dev", "eth0")
            ip("-n", machine, "link", "set", "eth0", "up")
            ip("-n", machine, "link", "set", "lo", "up")
        return self

    def __exit__(self, *_exc: object) -> None:
        for namespace in [*self.machines, self.switch]:
            pids = subprocess.run(["ip", "netns", "pids", namespace], capture_output=True,
                                  text=True).stdout.split()
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pid), 9)
            subprocess.run(["ip", "netns", "del", namespace], capture_output=True)

    def spawn(self, index: int, args: list[str], folder: Path) -> subprocess.Popen[bytes]:
        folder.mkdir(parents=True, exist_ok=True)
        env = {**os.environ, "XDG_DATA_HOME": str(folder / "xdg"), "PYTHONPATH": str(ROOT)}
        return subprocess.Popen(
            ["ip", "netns", "exec", self.machines[index], sys.executable, "-m", "cli", *args],
            stdout=open(folder / "out", "wb"), stderr=open(folder / "err", "wb"),
            stdin=subprocess.DEVNULL, env=env)

    def link(self, index: int, up: bool) -> None:
        ip("-n", self.machines[index], "link", "set", "eth0", "up" if up else "down")


def host_port(folder: Path, deadline: float) -> int:
    while time.monotonic() < deadline:
        found = re.search(rb"listening on [\d.]+:(\d+)", (folder / "out").read_bytes())
        if found:
            return int(found.group(1))
        time.sleep(0.05)
    raise SystemExit("the host never said where it listens")


def trial(folder: Path, victim: int, seconds: float, hands: int, think: float) -> Run:
    run = Run(NAMES[victim], seconds)
    dirs = [folder / name.lower() for name in NAMES]
    playing = ["--autoplay", "greedy", "--think", str(think), "--go-on-after", "2"]
    started = time.monotonic()
    with Lan() as lan:
        procs = [lan.spawn(0, ["host", "--name", NAMES[0], "--seats", "3", "--start-when-full",
                               "--quiet-network", "--interface", f"{SUBNET}.1", "-o", f"hands={hands}",
                               "--save", str(dirs[0] / "logs"), *playing], dirs[0])]
        port = host_port(dirs[0], started + 30)
        for i in (1, 2):
            procs.append(lan.spawn(i, ["join", f"{SUBNET}.1:{port}", "--name", NAMES[i],
                                       "--interface", f"{SUBNET}.{i + 1}",
                                       "--save", str(dirs[i] / "logs"), *playing], dirs[i]))
        # Mid-hand: once the victim's log is well into the first hand's play.
        while not any(f.stat().st_size > 30_000 for f in (dirs[victim] / "logs").glob("*.p2p10")):
            if time.monotonic() - started > GAME_TIMEOUT / 2:
                break
            time.sleep(0.05)
        lan.link(victim, False)
        time.sleep(seconds)
        lan.link(victim, True)
        deadline = started + GAME_TIMEOUT
        for proc in procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(max(1.0, deadline - time.monotonic()))
        run.codes = [proc.poll() for proc in procs]
    run.took = time.monotonic() - started
    logs = [f.read_bytes() for d in dirs for f in sorted((d / "logs").glob("*.p2p10"))]
    run.identical = bool(logs) and all(log == logs[0] for log in logs)
    longest = max(logs, key=len) if logs else b""
    run.verdict = audit_bytes(longest).verdict().splitlines()[0] if longest else "no log"
    run.away_entries = longest.count(b"\xa4away")
    run.tracebacks = sum((d / "err").read_bytes().count(b"Traceback") for d in dirs)
    return run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=6)
    parser.add_argument("--cut", type=float, nargs="+", default=[30, 35, 38, 40, 42, 45],
                        help="the cut lengths in seconds, used in turn")
    parser.add_argument("--hands", type=int, default=3)
    parser.add_argument("--think", type=float, default=0.5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("lan_trials needs root (network namespaces)", file=sys.stderr)
        return 2
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="p2p10-trials-") as tmp:
        for n in range(args.runs):
            victim = 1 + n % 2  # Bob (dials Cy) and Cy (dials nobody) in turn
            seconds = args.cut[n % len(args.cut)]
            print(f"run {n + 1}/{args.runs}: {NAMES[victim]} cut off for {seconds:g} s ...",
                  file=sys.stderr, flush=True)
            run = trial(Path(tmp) / f"run{n}", victim, seconds, args.hands, args.think)
            runs.append(run)
            print(f"  exits {run.codes}, logs {'identical' if run.identical else 'DIFFER'}, "
                  f"{run.away_entries} away entries, {run.tracebacks} tracebacks, "
                  f"{run.took:.0f} s: {run.verdict}", file=sys.stderr, flush=True)
    good = sum(run.good for run in runs)
    if args.json:
        print(json.dumps({"runs": [asdict(run) | {"good": run.good} for run in runs], "good": good}))
    else:
        print(f"{good} of {len(runs)} runs ended with one history, audit clean, every exit 0")
    return 0 if good == len(runs) else 1


if __name__ == "__main__":
    sys.exit(main())
