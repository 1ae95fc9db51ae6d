"""How long a player waits: to resume a game against bots (``p2p10 play --resume``) and for the
start screen's list of saved games, before and after this machine's checkpoint of a log's
checked fold (``protocol/checkpoint.py``) and its index of saved games
(``protocol/saved_index.py``).

Prints measurements, never pass/fail; nothing here asserts a time. See benchmarks/README.md.

    python benchmarks/bench_resume.py            # 4 seats at hand 8 and 6 seats at hand 21, 5 runs
    python benchmarks/bench_resume.py --quick    # a smoke run: 4 seats at hand 3, 3 runs
    python benchmarks/bench_resume.py --json     # one JSON object with every figure on stdout
    python benchmarks/bench_resume.py --profile  # and cProfile's top functions of each way

Each game is played first, in a temporary folder (normal bots in every seat, ``hands=N+1``, so
that the game is surely at hand N), and quit in hand N's play. Then, in this process, the
median of several runs of each way to start every seat again from the files:

- ``per_seat``: what a resume did before: each seat refolds and re-checks the whole log
  (``Peer.restore`` through ``resume_peer`` with no shared log), once per seat;
- ``shared``: ``LocalTable.resume`` with no checkpoint: the log folded and checked once for
  every seat (the checkpoint it writes is deleted before each run);
- ``checkpoint``: ``LocalTable.resume`` with this machine's checkpoint of the whole log;

and the ratio of each to ``per_seat``. Then the start screen's lists (``cli.play_cmd.start_lists``,
every game of the run in the data folder): with no index and no checkpoints (every log folded,
as before), with no index but the checkpoints (each log parsed, not folded), and with the index
(nothing read but the files' sizes, times and last 4 KiB). Log sizes are in entries and bytes.

With tmux installed, each case is also timed as a player waits for it: ``p2p10 play --resume``
started in a tmux pane (a fresh copy of the game's files each run), the pane read every 5 ms,
until the hand's title is on screen (``table_s``) and until the move log has told the game so
far (``story_s``: it is told after the table is drawn, in slices); and in as many runs more,
``?`` is typed as soon as the table is on screen and timed until the help it opens is on
screen (``key_s``: how long a key typed as the table appears waits; before the story was told
in slices, it waited for the whole story).
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import os
import pstats
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from processes import spread  # benchmarks/processes.py

FULL_CASES = ((4, 8), (6, 21))
QUICK_CASES = ((4, 3),)


def progress(message: str) -> None:
    """One progress line on stderr (never stdout, which carries the figures)."""
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def play_to(folder: Path, seats: int, hand: int, seed: int) -> Path:
    """A game of ``seats`` normal bots (the user's seat played by one too) saved in ``folder``,
    quit in hand ``hand``'s play; its log."""
    from p2p10.bots import POLICIES
    from p2p10.rules import RuleSet
    from protocol.local import USER, LocalTable

    local = LocalTable("Ann", seats - 1, "normal", RuleSet.parse([f"hands={hand + 1}"]), seed,
                       save_dir=folder, pace=0)
    rng = random.Random(seed)
    local.start()

    def there() -> bool:
        table = local.table
        return (table is not None and table.hand is not None and table.hand.number + 1 >= hand
                and table.hand.stage == "play")

    while not local.over and not there():
        if local.step():
            continue
        if local.my_turn():
            local.play(POLICIES["normal"](local.view(), USER, rng))
        elif not local.bot_move():
            raise RuntimeError("the table is stuck")
    local.close()
    if not there():
        raise RuntimeError(f"the game ended before hand {hand}")
    return local.log_path


def timed(runs: int, before: Callable[[], None], action: Callable[[], Any],
          after: Callable[[Any], None]) -> list[float]:
    """Wall times of ``runs`` runs of ``action`` (``before`` and ``after`` not timed)."""
    times = []
    for _ in range(runs):
        before()
        started = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - started)
        after(result)
    return times


def profiled(action: Callable[[], Any], after: Callable[[Any], None], top: int = 12) -> str:
    """cProfile's ``top`` functions by internal time, and by cumulative time, of one run."""
    profile = cProfile.Profile()
    profile.enable()
    result = action()
    profile.disable()
    after(result)
    out = io.StringIO()
    stats = pstats.Stats(profile, stream=out)
    stats.sort_stats("tottime").print_stats(top)
    stats.sort_stats("cumulative").print_stats(top)
    return out.getvalue()


def resume_case(folder: Path, seats: int, hand: int, runs: int, seed: int, profile: bool) -> dict[str, Any]:
    """Every way of resuming one game, timed; its log's size."""
    from protocol.local import LocalTable, _secrets_of
    from protocol.storage import SeatFiles, read_log, resume_peer

    started = time.perf_counter()
    log = play_to(folder, seats, hand, seed)
    played = time.perf_counter() - started
    files = SeatFiles(log)
    entries = len(read_log(log))

    def drop() -> None:
        files.checkpoint.unlink(missing_ok=True)

    def keep() -> None:
        if not files.checkpoint.exists():
            LocalTable.resume(log).close()

    def per_seat() -> list[Any]:
        return [resume_peer(log, _secrets_of(files, seat)) for seat in range(seats)]

    def close(local: Any) -> None:
        local._log.close()  # (not close(): that would write the checkpoint again)
        for writer in local._secrets:
            writer.close()

    ways: dict[str, tuple[Callable[[], None], Callable[[], Any], Callable[[Any], None]]] = {
        "per_seat": (lambda: None, per_seat, lambda _peers: None),
        "shared": (drop, lambda: LocalTable.resume(log), close),
        "checkpoint": (keep, lambda: LocalTable.resume(log), close),
    }
    times: dict[str, list[float]] = {}
    profiles: dict[str, str] = {}
    for name, (before, action, after) in ways.items():
        times[name] = timed(runs, before, action, after)
        progress(f"{seats} seats at hand {hand}, {name}: median {statistics.median(times[name]):.3f} s")
        if profile:
            before()
            profiles[name] = profiled(action, after)
    keep()
    base = statistics.median(times["per_seat"])
    figures: dict[str, Any] = {
        "seats": seats, "hand": hand, "entries": entries, "log_bytes": log.stat().st_size,
        "checkpoint_bytes": files.checkpoint.stat().st_size, "played_s": played, "runs": runs,
        "resume_s": {name: spread(values) for name, values in times.items()},
        "ratio_to_per_seat": {name: statistics.median(values) / base for name, values in times.items()},
    }
    if profile:
        figures["profiles"] = profiles
    screen = on_screen(log, hand, runs)
    if screen is not None:
        figures["on_screen"] = screen
    return figures


def on_screen(log: Path, hand: int, runs: int) -> dict[str, Any] | None:
    """``p2p10 play --resume`` of a copy of ``log`` in a tmux pane: ``runs`` runs timed until
    the table and then the end of the story so far are on screen, and ``runs`` more in which
    ``?`` is typed as soon as the table is on screen, timed until the help it opens is (how
    long a key typed as the table appears waits). None without tmux."""
    if shutil.which("tmux") is None:
        progress("no tmux: the resume is not timed on screen")
        return None
    with tmux_server() as tmux:
        return timed_on_screen(tmux, log, hand, runs)


Tmux = Callable[..., str]  # runs one tmux command on the benchmark's own server, returns its output


@contextlib.contextmanager
def tmux_server() -> Iterator[Tmux]:
    """A tmux server of this benchmark's own (a socket named for it, so a player's server and
    other tests' are not touched), kept up by a waiting session until the timing is over: tmux
    exits when its last session ends, and a new session asked of a server that is exiting
    fails ("server exited unexpectedly"), as one did between runs under a loaded suite."""
    socket = f"p2p10-bench-{os.getpid()}"

    def tmux(*args: str) -> str:
        return subprocess.run(["tmux", "-L", socket, "-f", os.devnull, *args], capture_output=True,
                              text=True, check=True, timeout=10).stdout

    tmux("new-session", "-d", "-s", "keep", "sleep 3600")
    try:
        yield tmux
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, check=False, timeout=10)


def timed_on_screen(tmux: Tmux, log: Path, hand: int, runs: int) -> dict[str, Any]:
    """The runs of :func:`on_screen`, on ``tmux``'s server."""
    table_s: list[float] = []
    story_s: list[float] = []
    key_s: list[float] = []
    for run in range(2 * runs):
        with resumed_in_tmux(tmux, log, f"screen{run}") as (started, pane, send):
            keyed = run >= runs
            table = story = key = None
            typed = 0.0
            while time.perf_counter() - started < 30:
                text = pane()
                now = time.perf_counter()
                if table is None and f"Hand {hand}" in text:
                    table = now - started
                    if keyed:
                        typed = send("?")  # the help screen: a key that changes nothing at the table
                if table is not None and keyed and "Goal: make the phases" in text:
                    key = now - typed
                    break
                if table is not None and not keyed and f"Hand {hand}:" in text:
                    # The move log's heading of the hand under way ("── Hand 21: Cy deals"; the
                    # title has no colon): the story has reached the last hand, its end.
                    story = now - started
                    break
                time.sleep(0.005)
        if keyed and key is not None:
            key_s.append(key)
        elif not keyed and table is not None and story is not None:
            table_s.append(table)
            story_s.append(story)
        else:
            raise RuntimeError(f"the resumed table did not show hand {hand} and "
                               f"{'its help' if keyed else 'its story'} within 30 s")
    return {"runs": runs, "table_s": spread(table_s), "story_s": spread(story_s), "key_s": spread(key_s),
            "ratio_table_to_story": statistics.median(table_s) / statistics.median(story_s)}


Pressed = Callable[[str], float]  # types a key, and says when


@contextlib.contextmanager
def resumed_in_tmux(tmux: Tmux, log: Path, name: str) -> Iterator[tuple[float, Callable[[], str], Pressed]]:
    """``p2p10 play --resume`` of a fresh copy of ``log``'s files in a new pane (120x40) of
    ``tmux``'s server: the time it was started, a function that reads the pane, and one that
    types a key and returns the time it was sent (taken before: the key may be read before tmux
    returns). ``name`` names the session, and the copy's folder."""
    # In the command, not tmux's environment: a tmux server already running gives a new
    # session its own environment, not this process's.
    env = " ".join(f"{var}={shlex.quote(value)}" for var, value in (
        ("XDG_DATA_HOME", os.environ.get("XDG_DATA_HOME", "")), ("LANGUAGE", "en"), ("LANG", "C.UTF-8")))
    copy = Path(tempfile.mkdtemp(prefix=f"{log.stem}-{name}-", dir=log.parent.parent))
    for part in log.parent.glob(log.stem + ".*"):
        shutil.copy2(part, copy / part.name)
    resume = shlex.quote(str(copy / log.name))
    command = f"env {env} {shlex.quote(sys.executable)} -m cli play --resume {resume}"

    def pane() -> str:
        try:
            return tmux("capture-pane", "-p", "-t", name)
        except subprocess.CalledProcessError as gone:
            raise RuntimeError(f"the resumed game {name} left its pane: {gone.stderr.strip()}") from None

    def send(key: str) -> float:
        sent = time.perf_counter()
        tmux("send-keys", "-t", name, "-l", key)
        return sent

    started = time.perf_counter()
    tmux("new-session", "-d", "-s", name, "-x", "120", "-y", "40", command)
    try:
        yield started, pane, send
    finally:
        with contextlib.suppress(subprocess.CalledProcessError):
            tmux("kill-session", "-t", name)
        shutil.rmtree(copy, ignore_errors=True)


def listing(runs: int) -> dict[str, Any]:
    """The start screen's lists, timed: no index nor checkpoints, no index, the index."""
    from cli.play_cmd import start_lists
    from protocol.local import data_dir
    from protocol.saved_index import INDEX_NAME
    from protocol.storage import SeatFiles

    folder = data_dir()
    logs = sorted(folder.glob("*.p2p10"))
    kept = {log: SeatFiles(log).checkpoint.read_bytes() for log in logs if SeatFiles(log).checkpoint.exists()}

    def bare() -> None:
        (folder / INDEX_NAME).unlink(missing_ok=True)
        for log in logs:
            SeatFiles(log).checkpoint.unlink(missing_ok=True)

    def no_index() -> None:
        (folder / INDEX_NAME).unlink(missing_ok=True)
        for log, data in kept.items():
            SeatFiles(log).checkpoint.write_bytes(data)

    def indexed() -> None:
        if not (folder / INDEX_NAME).exists():
            start_lists()

    times = {name: timed(runs, before, start_lists, lambda _lists: None)
             for name, before in (("folded", bare), ("checkpoints", no_index), ("index", indexed))}
    listed = len(start_lists()[0])
    base = statistics.median(times["folded"])
    return {"logs": len(logs), "listed": listed, "log_bytes": sum(log.stat().st_size for log in logs),
            "runs": runs, "start_lists_s": {name: spread(values) for name, values in times.items()},
            "ratio_to_folded": {name: statistics.median(values) / base for name, values in times.items()}}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="4 seats at hand 3, 3 runs")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument("--runs", type=int, help="runs of each way (5; --quick 3)")
    parser.add_argument("--seed", type=int, default=7, help="the games' seed (7)")
    parser.add_argument("--profile", action="store_true", help="add cProfile's top functions of each way")
    args = parser.parse_args(argv)
    runs = args.runs or (3 if args.quick else 5)
    cases = QUICK_CASES if args.quick else FULL_CASES
    with tempfile.TemporaryDirectory(prefix="p2p10-bench-resume-") as tmp:
        # Everything in the temporary folder: the games, the checkpoint key, the index.
        os.environ["XDG_DATA_HOME"] = str(Path(tmp) / "data")
        from protocol.local import data_dir

        figures: dict[str, Any] = {"cores": os.cpu_count(), "cases": [], "seed": args.seed}
        for seats, hand in cases:
            figures["cases"].append(resume_case(data_dir(), seats, hand, runs, args.seed, args.profile))
        figures["start_screen"] = listing(runs)
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"Resuming a game against bots (normal bots), {runs} runs each, {os.cpu_count()} cores; "
          "median [min, max], and the ratio to each seat refolding the log (before):")
    names = {"per_seat": "every seat refolds the log (before)",
             "shared": "one fold for every seat, no checkpoint",
             "checkpoint": "from this machine's checkpoint"}
    for case in figures["cases"]:
        print(f"  {case['seats']} seats at hand {case['hand']}: {case['entries']} entries, "
              f"{case['log_bytes']:,} bytes (checkpoint {case['checkpoint_bytes']:,} bytes)")
        for name, label in names.items():
            t = case["resume_s"][name]
            print(f"    {label:<40} {t['median']:7.3f} s [{t['min']:.3f}, {t['max']:.3f}]  "
                  f"x{case['ratio_to_per_seat'][name]:.3f}")
        if "on_screen" in case:
            shown = case["on_screen"]
            shown_as = (("table_s", "the table on screen"), ("story_s", "the story so far told"),
                        ("key_s", "a key typed then, to its answer"))
            for name, label in shown_as:
                t = shown[name]
                print(f"    p2p10 play --resume: {label:<33} {t['median']:6.3f} s "
                      f"[{t['min']:.3f}, {t['max']:.3f}]")
            print(f"    (the table before its story: x{shown['ratio_table_to_story']:.3f})")
        for name, text in case.get("profiles", {}).items():
            print(f"\n--- profile: {case['seats']} seats at hand {case['hand']}, {names[name]}\n{text}")
    screen = figures["start_screen"]
    print(f"The start screen's lists ({screen['logs']} saved logs, {screen['listed']} listed, "
          f"{screen['log_bytes']:,} bytes):")
    labels = {"folded": "no index, no checkpoints (before)", "checkpoints": "no index, from the checkpoints",
              "index": "from the index"}
    for name, label in labels.items():
        t = screen["start_lists_s"][name]
        print(f"    {label:<40} {t['median']:7.4f} s [{t['min']:.4f}, {t['max']:.4f}]  "
              f"x{screen['ratio_to_folded'][name]:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
