"""How big is a ``p2p10 replay --html`` page of a 16-hand game, how long does it take to make,
and how long to open in a browser?

Prints measurements, never pass/fail; nothing here asserts a time. See benchmarks/README.md.

    python benchmarks/bench_replay_html.py            # a 4-seat game of 16 hands, 5 runs of each
    python benchmarks/bench_replay_html.py --quick    # a 3-seat game of 2 hands, 2 runs
    python benchmarks/bench_replay_html.py --json     # one JSON object with every figure on stdout
    python benchmarks/bench_replay_html.py --log GAME.p2p10   # a saved game instead of a new one

The game is played first by ``p2p10 simulate --crypto --save`` (greedy and hard bots, a fixed
seed), then:

* **build**: the wall time of the command ``p2p10 replay --html GAME -o FILE`` (a new
  interpreter each time: start-up, the fold of every frame as each seat saw it, the narrator,
  and the audit, which is most of it), median of the runs, and of ``p2p10 audit GAME`` beside
  it, the runs interleaved; and the CPU time of each (steadier on a shared machine);
* **size**: the file's bytes, and those of its parts (the frames, the seats' views and logs, the
  string table, the interned rows and melds, the chart, the scripts and styles);
* **open**: in headless Chromium (Debian's, through /usr/bin/chromedriver) with the network
  blocked, from ``driver.get`` of the ``file://`` URL to the page's own mark after its first
  step is drawn (``performance.mark("p2p10-drawn")``, measured from the navigation's start), and
  the wall time of ``driver.get`` (which returns once the page has loaded); median of the runs,
  each in a new tab state (the page is loaded again).

Without chromium and chromium-driver the open figures are left out, saying why."""

from __future__ import annotations

import argparse
import json
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))



def p2p10(*args: str) -> list[str]:
    return [sys.executable, "-m", "cli", *args]


def play(folder: Path, players: int, hands: int, seed: int) -> Path:
    """A game of ``hands`` hands between bots, saved in ``folder``."""
    command = p2p10("simulate", "--players", str(players), "--games", "1", "--crypto", "--save", str(folder),
                    "--seed", str(seed), "-o", f"hands={hands}", "--policies", "greedy,hard")
    subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
    return folder / "game-0001.p2p10"


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 1)


def build_figures(log: Path, out: Path, runs: int) -> dict[str, Any]:
    """The wall and CPU times of ``p2p10 replay --html``, and of ``p2p10 audit`` (which it
    runs) for comparison: each a new interpreter, the runs interleaved. The CPU time (user and
    system, of the child) is the steadier figure on a machine shared with other work."""
    samples: dict[str, list[float]] = {"build": [], "build_cpu": [], "audit": [], "audit_cpu": []}
    for _run in range(runs):
        for command, name in ((p2p10("replay", "--html", str(log), "-o", str(out)), "build"),
                              (p2p10("audit", str(log)), "audit")):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
            samples[name].append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            samples[name + "_cpu"].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return {"runs": runs, "command_median_ms": median_ms(samples["build"]),
            "command_cpu_median_ms": median_ms(samples["build_cpu"]),
            "audit_command_median_ms": median_ms(samples["audit"]),
            "audit_command_cpu_median_ms": median_ms(samples["audit_cpu"])}


def size_figures(out: Path) -> dict[str, Any]:
    """The file's bytes and its parts'."""
    text = out.read_text(encoding="utf-8")
    data_text = re.search(r'id="p2p10-data">(.*?)</script>', text, re.S)
    assert data_text is not None
    data = json.loads(data_text.group(1))

    def size(value: Any) -> int:
        return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())

    views = data["views"]
    script = re.findall(r"<script>(.*?)</script>", text, re.S)
    style = re.findall(r"<style>(.*?)</style>", text, re.S)
    chart = re.search(r'<figure class="chart".*?</figure>', text, re.S)
    return {
        "file_bytes": len(text.encode()),
        "frames": len(data["frames"]),
        "hands": len(data["sheet"]),
        "seats": len(data["names"]),
        "parts_bytes": {
            "frames": size(data["frames"]),
            "views_logs": sum(size(v["log"]) + size(v["at"]) for v in views),
            "views_rows": sum(size(v.get("rows", [])) for v in views),
            "strings": size(data["strings"]),
            "interned": size(data["parts"]),
            "cards": size(data["cards"]),
            "chart": len(chart.group(0).encode()) if chart else 0,
            "script": sum(len(s.encode()) for s in script),
            "style": sum(len(s.encode()) for s in style),
        },
    }


def open_figures(out: Path, runs: int) -> dict[str, Any]:
    """Times to open the page in headless Chromium with the network blocked."""
    from tests.browser import browser_missing

    why = browser_missing()
    if why is not None:
        return {"skipped": why}
    from tests.browser import desktop, offline, start_chrome

    driver = start_chrome()
    try:
        offline(driver)
        desktop(driver)
        drawn, loaded = [], []
        for _run in range(runs + 1):  # the first warms the browser up, and is not counted
            driver.get("about:blank")
            start = time.perf_counter()
            driver.get(out.as_uri())
            wall = time.perf_counter() - start
            mark = driver.execute_script("const m = performance.getEntriesByName('p2p10-drawn');"
                                         "return m.length ? m[0].startTime : null")
            assert mark is not None, "the page did not draw its first step"
            if _run:
                drawn.append(mark / 1000)
                loaded.append(wall)
        return {"runs": runs, "first_step_drawn_median_ms": median_ms(drawn),
                "first_step_drawn_max_ms": round(max(drawn) * 1000, 1), "get_median_ms": median_ms(loaded)}
    finally:
        driver.quit()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a 3-seat game of 2 hands, 2 runs")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument("--log", type=Path, help="a saved game instead of a new one")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--runs", type=int)
    args = parser.parse_args()
    runs = args.runs or (2 if args.quick else 5)
    with tempfile.TemporaryDirectory(prefix="bench-replay-html-") as folder:
        work = Path(folder)
        if args.log is not None:
            log = args.log
        else:
            print("playing the game...", file=sys.stderr)
            log = play(work, 3 if args.quick else 4, 2 if args.quick else 16, args.seed)
        out = work / "game.html"
        print("building the page...", file=sys.stderr)
        build = build_figures(log, out, runs)
        sizes = size_figures(out)
        print("opening it in Chromium...", file=sys.stderr)
        opened = open_figures(out, runs)
    result = {"meta": {"log": str(log) if args.log else "played", "quick": args.quick, "seed": args.seed},
              "build": build, "size": sizes, "open": opened}
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"game: {sizes['seats']} seats, {sizes['hands']} hands, {sizes['frames']} steps")
    print(f"size: {sizes['file_bytes'] / 1024:.1f} KB")
    for name, value in sizes["parts_bytes"].items():
        print(f"  {name:<12} {value / 1024:8.1f} KB")
    print(f"build: p2p10 replay --html {build['command_median_ms']:.0f} ms "
          f"({build['command_cpu_median_ms']:.0f} ms CPU), median of {runs}; p2p10 audit alone "
          f"{build['audit_command_median_ms']:.0f} ms ({build['audit_command_cpu_median_ms']:.0f} ms CPU)")
    if "skipped" in opened:
        print("open: " + opened["skipped"])
    else:
        print(f"open: first step drawn {opened['first_step_drawn_median_ms']:.0f} ms after navigation "
              f"(median of {runs}, max {opened['first_step_drawn_max_ms']:.0f}); driver.get "
              f"{opened['get_median_ms']:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
