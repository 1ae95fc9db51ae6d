"""How quickly does ``p2p10 play --web`` show a hand in a browser, how late does the page show
a bot's move, and how many bytes does the page take?

Prints measurements, never pass/fail; nothing here asserts a time. See benchmarks/README.md.

    python benchmarks/bench_web.py            # 5 starts; a game of 4 hands against 2 bots
    python benchmarks/bench_web.py --quick    # 2 starts; a game of 1 hand
    python benchmarks/bench_web.py --json     # one JSON object with every figure on stdout
    python benchmarks/bench_web.py --bots 3   # part 2's game at four seats

The browser is Debian's headless Chromium through /usr/bin/chromedriver (as the tests drive
it), started once and warmed up on a blank page. Times in the page are
``performance.timeOrigin + performance.now()`` (epoch milliseconds), taken by a script the
benchmark adds to every document through the DevTools protocol
(``Page.addScriptToEvaluateOnNewDocument``, which a page's Content-Security-Policy does not
govern): it notes when each websocket message arrives and, through a MutationObserver, when
each view is drawn (the page sets ``data-version`` on ``<body>`` at the end of each render).
Python's times are ``time.time()``. The page also notes ``Date.now()`` beside its own times, so
the report gives their offset, and every page time set against a Python time is taken on
``Date.now()`` (:func:`wall_s`), the wall clock ``time.time()`` reads: the page's own clock is
set once, when the page opens, and drifted from the wall clock by 27 ms once on a loaded machine.
Times within the page (a message received, then drawn) stay on the page's finer clock.

1. **start**: ``p2p10 play --web --no-browser --bots 2 --seed S -o hands=1`` as a new process
   (its files in a new temporary home), the browser sent to the address it prints first; from
   ``Popen`` to the moment the page holds ``.hand .card-button`` elements (the observer's note).
   Also from ``Popen`` to the address printed, and to the first view drawn (the dealing shown).
   Median of the runs; beside it, in the same run, ``p2p10 --version`` and ``p2p10 rules``,
   the start-up of the interpreter and the package, so the ratio says what the web adds.
2. **delay**: the table in this process (:class:`protocol.local.LocalTable`, :class:`TableApp`,
   the real :class:`cli.web.server.WebServer` and :class:`cli.web.play_web.WebFront`, as
   ``play --web`` runs them) with the bots at ``--pace`` seconds per move, the user's seat played
   at once by the greedy bot (so the bots' moves arrive while the page is idle). Every entry of
   the user's log is timed as it is saved (a listener of the user's peer); a move-log line it
   adds is "shown" when the page first draws a view holding it. **delay** is the time between
   the two, for the lines of the bots' entries: median, p90, p99, max. Beside it, the parts: the
   entry to the snapshot serialised (Python), the snapshot to aiohttp's ``send_str`` done, that
   to the websocket message received in the page, and the message to the view drawn; what a
   snapshot costs to build, its size whole (a tab's first view; the others are sent only what
   changed, see part 3) and its keys' sizes; and how late a 10 ms timer of the
   event loop runs (the loop's stalls), with the kinds of the entries its longest stall took.
3. **bytes**: from Chromium's performance log (``goog:loggingPrefs``): every HTTP response's
   encoded bytes, and every websocket frame's payload, over the game of part 2; each request's
   URL, and the report says whether any went elsewhere than ``127.0.0.1:PORT``.

The browser keeps its performance log (the Network domain) for all three parts, which costs
it a little. Without chromium and chromium-driver nothing can be measured: the report says why, exit 0.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PATIENCE = 120.0  # s: how long a page may take to show what it must before the run gives up

# Added to every document before its own scripts run (see the module docstring).
PROBE = r"""
(function () {
  var now = function () { return performance.timeOrigin + performance.now(); };
  var notes = window.__bench = { received: [], drawn: [], hand: null, first: null };
  var Native = window.WebSocket;
  function Probed(url, protocols) {
    var socket = protocols === undefined ? new Native(url) : new Native(url, protocols);
    socket.addEventListener("message", function (event) {
      var at = now(), v = null;
      var m = /"v":(\d+)/.exec(event.data.slice(0, 400));
      if (m) { v = Number(m[1]); }
      notes.received.push([at, v, event.data.length, at - Date.now()]);
    });
    return socket;
  }
  Probed.prototype = Native.prototype;
  ["CONNECTING", "OPEN", "CLOSING", "CLOSED"].forEach(function (k) { Probed[k] = Native[k]; });
  window.WebSocket = Probed;
  function watch() {
    new MutationObserver(function () {
      var at = now(), wall = Date.now();
      var view = window.P2P10 && P2P10.view ? P2P10.view() : null;
      if (notes.first === null && view) { notes.first = wall; }
      if (notes.hand === null && document.querySelector(".hand .card-button")) { notes.hand = wall; }
      if (view && view.page === "table") {
        notes.drawn.push([at, view.v || 0, (view.log_start || 0) + (view.log || []).length, at - wall]);
      }
    }).observe(document.body, { attributes: true, attributeFilter: ["data-version", "data-page"],
                                childList: true, subtree: true });
  }
  if (document.body) { watch(); } else { document.addEventListener("DOMContentLoaded", watch); }
})();
"""


def p2p10(*args: str) -> list[str]:
    return [sys.executable, "-m", "cli", *args]


def environment(home: Path) -> dict[str, str]:
    """A command's environment: its files under ``home``, in English."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"), XDG_CONFIG_HOME=str(home / "config"),
               XDG_STATE_HOME=str(home / "state"), XDG_CACHE_HOME=str(home / "cache"),
               PYTHONUNBUFFERED="1", LANGUAGE="en", PYTHONPATH=str(ROOT))
    return env


def figures(samples: list[float], scale: float = 1.0, digits: int = 1) -> dict[str, Any]:
    """Median, p90, p99 and max of ``samples`` (times ``scale``), and how many."""
    if not samples:
        return {"n": 0}
    ordered = sorted(s * scale for s in samples)

    def at(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], digits)

    return {"n": len(ordered), "median": round(statistics.median(ordered), digits), "p90": at(0.90),
            "p99": at(0.99), "max": round(ordered[-1], digits), "min": round(ordered[0], digits)}


def start_browser(performance_log: bool = False) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    from tests.browser import CHROMEDRIVER, CHROMIUM

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1920,1080", "--lang=en-US"):
        options.add_argument(argument)
    if performance_log:
        options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PROBE})
    driver.get("about:blank")
    return driver


def notes(driver: Any) -> dict[str, Any]:
    result: dict[str, Any] = driver.execute_script("return window.__bench || null") or {}
    return result


def wait_for(condition: Any, what: str) -> Any:
    deadline = time.monotonic() + PATIENCE
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.02)


# ---------------------------------------------------------------------- 1. start


def command_time(args: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(p2p10(*args), check=True, capture_output=True, env=env, cwd=ROOT)
    return time.perf_counter() - start


def one_start(driver: Any, home: Path, seed: int) -> dict[str, float]:
    """One ``play --web`` from Popen to its first hand drawn in the page (seconds)."""
    env = environment(home)
    driver.get("about:blank")
    began = time.time()
    proc = subprocess.Popen(p2p10("play", "--web", "--no-browser", "--bots", "2", "--name", "Ann",
                                  "--seed", str(seed), "-o", "hands=1"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        printed = time.time()
        if not re.fullmatch(r"http://127\.0\.0\.1:\d+/#t=[A-Za-z0-9_-]+", url):
            why = proc.stderr.read() if proc.stderr else ""
            raise RuntimeError(f"play --web printed {url!r}; stderr: {why}")
        driver.get(url)
        got = wait_for(lambda: (n := notes(driver)).get("hand") and n, "the first hand in the page")
        return {"address_s": printed - began, "first_view_s": got["first"] / 1000 - began,
                "hand_s": got["hand"] / 1000 - began}
    finally:
        proc.terminate()
        try:
            proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()


def start_figures(driver: Any, runs: int, seed: int) -> dict[str, Any]:
    samples: dict[str, list[float]] = {"address_s": [], "first_view_s": [], "hand_s": [], "version_s": [],
                                       "rules_s": []}
    with tempfile.TemporaryDirectory(prefix="bench-web-start-") as folder:
        home = Path(folder)
        env = environment(home)
        command_time(["--version"], env)  # (warm the file cache, untimed)
        for run in range(runs + 1):  # the first warms everything up, and is not counted
            print(f"start {run}/{runs}...", file=sys.stderr)
            shutil.rmtree(home / "data", ignore_errors=True)
            got = one_start(driver, home, seed + run)
            version = command_time(["--version"], env)
            rules = command_time(["rules", "phases"], env)
            if run:
                for key, value in got.items():
                    samples[key].append(value)
                samples["version_s"].append(version)
                samples["rules_s"].append(rules)
    medians = {key: round(statistics.median(values) * 1000, 1) for key, values in samples.items()}
    return {
        "runs": runs,
        "median_ms": medians,
        "max_ms": {key: round(max(values) * 1000, 1) for key, values in samples.items()},
        "ratio_to_version": round(medians["hand_s"] / medians["version_s"], 2),
        "ratio_to_rules": round(medians["hand_s"] / medians["rules_s"], 2),
    }


# ---------------------------------------------------------------------- 2. delay


class InProcess:
    """``play --web``'s table, server and front in a thread of this process, with every entry
    of the user's log and every snapshot timed."""

    def __init__(self, hands: int, pace: float, seed: int, home: Path, bots: int = 2) -> None:
        self.hands, self.pace, self.seed, self.home, self.bots = hands, pace, seed, home, bots
        self.url: str | None = None
        self.ready = threading.Event()
        self.done = threading.Event()
        self.error: BaseException | None = None
        self.entries: list[tuple[float, int, int]] = []  # (saved at, author, lines shown after it)
        self.snapshots: list[tuple[float, int, float, int]] = []  # (built at, v, build s, bytes)
        self.written: dict[int, float] = {}  # v: when the socket took its message
        self.parts: dict[str, list[int]] = {}  # a snapshot's key: its bytes in each snapshot
        self.kinds: list[str] = []  # each entry's kind
        self.lags: list[tuple[float, float]] = []  # (when, how late) the event loop ran a 10 ms timer
        self.thread = threading.Thread(target=self._main, daemon=True)

    def start(self) -> None:
        self.thread.start()
        if not self.ready.wait(PATIENCE) or self.url is None:
            raise RuntimeError(f"the in-process table did not start: {self.error!r}")

    def _main(self) -> None:
        from prompt_toolkit.application import create_app_session
        from prompt_toolkit.input import DummyInput
        from prompt_toolkit.output import DummyOutput

        try:
            with create_app_session(input=DummyInput(), output=DummyOutput()):
                asyncio.run(self._run())
        except BaseException as err:  # (raised again in the main thread)
            self.error = err
        finally:
            self.ready.set()
            self.done.set()

    async def _run(self) -> None:
        from cli.web.play_web import WebFront
        from cli.web.server import WebServer
        from p2p10.bots import POLICIES
        from p2p10.i18n import set_language
        from p2p10.rules import RuleSet
        from protocol.local import USER, LocalTable

        set_language("en")
        front = WebFront("en")
        server = await WebServer.start(front)
        front.changed = server.changed
        self._time_snapshots(server)
        local = LocalTable("Ann", self.bots, "normal", RuleSet.parse([f"hands={self.hands}"]), self.seed,
                           save_dir=self.home, pace=self.pace)
        wake = asyncio.Event()
        saved_at: list[float] = []

        def entry(item: Any) -> None:  # before anything else hears of the entry
            saved_at.append(time.time())
            self.entries.append((saved_at[-1], item.author, -1))
            self.kinds.append(item.kind)
            wake.set()

        # First among the peer's entry listeners, before the table saves and narrates it.
        local.user.hooks._entry.insert(0, entry)
        playing = asyncio.ensure_future(front.play(local))
        await asyncio.sleep(0)
        table = front.showing
        app = table.app  # type: ignore[union-attr]

        def told() -> None:  # after the narrator (subscribed after the TableApp) told it
            at, author, _lines = self.entries[-1]
            self.entries[-1] = (at, author, sum(1 for t in app.narrator.told if t.shown))

        local.subscribe(told)
        watching = asyncio.ensure_future(self._watch_loop())
        self.url = server.url
        self.ready.set()
        policy = POLICIES["greedy"]
        rng = __import__("random").Random(self.seed)
        try:
            while not playing.done():
                wake.clear()
                if app.screen == "hand":
                    await front.act({"type": "key", "key": "Enter"})
                elif app.screen == "over":
                    await asyncio.sleep(1.0)  # the page draws the end
                    await front.act({"type": "key", "key": "Enter"})
                    break
                elif local.my_turn() and app.prompt is None and not local.over:
                    local.play(policy(local.view(), USER, rng))
                    front.changed()
                    continue
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wake.wait(), 0.2)
            await asyncio.wait_for(playing, PATIENCE)
        finally:
            watching.cancel()
            local.close()
            await server.close("bench over")

    async def _watch_loop(self) -> None:
        """How long the event loop is kept from its other work (the peers' work in one turn):
        a 10 ms sleep, and how late it ends."""
        loop = asyncio.get_running_loop()
        while True:
            start = loop.time()
            await asyncio.sleep(0.01)
            self.lags.append((time.time(), loop.time() - start - 0.01))

    def _time_snapshots(self, server: Any) -> None:
        """Time each snapshot the server builds (and serialises), and each message the socket
        takes (aiohttp's ``send_str``, which returns once the frame is written to the
        transport); note each snapshot's parts' sizes."""
        from aiohttp import web

        view = server._view

        def timed() -> Any:
            start = time.perf_counter()
            snapshot = view()  # (a cli.web.server.Snapshot: every part serialised once)
            spent = time.perf_counter() - start
            if snapshot is not None:
                whole = len(snapshot.whole().encode())
                self.snapshots.append((time.time(), snapshot.v or 0, spent, whole))
                for key, value in snapshot.parts.items():
                    self.parts.setdefault(key, []).append(len(value.encode()))
                if snapshot.log is not None:
                    log = sum(len(line.encode()) + 1 for line in snapshot.log)
                    self.parts.setdefault("log", []).append(log)
            return snapshot

        server._view = timed
        send_str = web.WebSocketResponse.send_str

        async def sent(ws: Any, data: str, compress: int | None = None) -> None:
            await send_str(ws, data, compress)
            m = re.search(r'"v":(\d+)', data[:400])
            if m:
                self.written[int(m.group(1))] = time.time()

        web.WebSocketResponse.send_str = sent  # type: ignore[method-assign,assignment]  # (here only)


def wall_s(at: float, offset: float) -> float:
    """A page time ``at`` (its own clock, epoch ms) on the wall clock, in epoch seconds:
    ``offset`` is that clock less ``Date.now()``, noted at the same moment."""
    return (at - offset) / 1000


def delay_figures(driver: Any, hands: int, pace: float, seed: int,
                  bots: int = 2) -> tuple[dict[str, Any], list[Any], str]:
    with tempfile.TemporaryDirectory(prefix="bench-web-delay-") as folder:
        run = InProcess(hands, pace, seed, Path(folder), bots)
        driver.get_log("performance")  # (drop what the start runs left)
        run.start()
        assert run.url is not None
        driver.get(run.url)
        print(f"playing a game of {hands} hand(s), the bots at {pace} s a move...", file=sys.stderr)
        if not run.done.wait(PATIENCE * max(hands, 1) * 3):
            raise TimeoutError("the in-process game did not end")
        if run.error is not None:
            raise run.error
        page = notes(driver)
        log = driver.get_log("performance")
    port = re.search(r":(\d+)/", run.url).group(1)  # type: ignore[union-attr]
    drawn = page["drawn"]
    received = {v: at for at, v, _size, _offset in page["received"] if v is not None}
    received_wall = {v: wall_s(at, offset) for at, v, _size, offset in page["received"] if v is not None}
    drawn_v = {v: at for at, v, _lines, _offset in drawn}
    sent_v = {v: at for at, v, _spent, _size in run.snapshots}
    # A line k is shown at the first view drawn holding more than k lines.
    shown_at: list[float] = []
    for at, _v, lines, offset in drawn:
        while len(shown_at) < lines:
            shown_at.append(wall_s(at, offset))
    delays, lines_of_bots, first_line = [], 0, 0
    for saved, author, lines in run.entries:
        if lines > first_line:
            if author != 0:
                for k in range(first_line, lines):
                    if k < len(shown_at):
                        delays.append(shown_at[k] - saved)
                        lines_of_bots += 1
            first_line = lines
    # The parts of the way, per view: entry -> snapshot sent (only views following an entry).
    # Only the entries timed above: a bot's entry that added a line.
    to_snapshot, to_page, to_drawn = [], [], []
    told = 0
    for saved, author, lines in run.entries:
        later = [at for at, _v, _s, _b in run.snapshots if at >= saved]
        if author != 0 and lines > told and later:
            to_snapshot.append(later[0] - saved)
        told = max(told, lines)
    to_written, written_to_page = [], []
    slow_writes, stalled = 0, 0  # views written 50 ms or more after being built; of them, during a stall
    for v, at in sent_v.items():
        if v in received_wall:
            to_page.append(received_wall[v] - at)
        if v in run.written:
            to_written.append(run.written[v] - at)
            if run.written[v] - at >= 0.05:
                slow_writes += 1
                wait = run.written[v] - at
                # A timer that ended while the view waited and was late by half the wait or more.
                if any(at <= end <= run.written[v] + 0.011 and late >= wait / 2 for end, late in run.lags):
                    stalled += 1
            if v in received_wall:
                written_to_page.append(received_wall[v] - run.written[v])
        if v in received and v in drawn_v:
            to_drawn.append((drawn_v[v] - received[v]) / 1000)
    offsets = [offset for _at, _v, _lines, offset in drawn]
    result = {
        "hands": hands, "pace_s": pace, "entries": len(run.entries),
        "bot_entries": sum(1 for e in run.entries if e[1] != 0),
        "lines_timed": lines_of_bots, "views_sent": len(run.snapshots), "views_drawn": len(drawn),
        "delay_ms": figures(delays, 1000),
        "entry_to_sent_ms": figures(to_snapshot, 1000),
        "sent_to_received_ms": figures(to_page, 1000),
        "sent_to_written_ms": figures(to_written, 1000),
        "written_to_received_ms": figures(written_to_page, 1000),
        "snapshot_parts_mean_bytes": {key: round(statistics.mean(sizes)) for key, sizes in
                                      sorted(run.parts.items(), key=lambda kv: -statistics.mean(kv[1]))},
        "snapshot_parts_last_bytes": {key: sizes[-1] for key, sizes in run.parts.items()},
        "received_to_drawn_ms": figures(to_drawn, 1000),
        "snapshot_build_ms": figures([s for _a, _v, s, _b in run.snapshots], 1000, 2),
        "snapshot_bytes": figures([float(b) for _a, _v, _s, b in run.snapshots], 1, 0),
        # The baseline of part 3, in the same run: every view built sent whole, as before patches.
        "whole_views_bytes_per_hand": round(sum(b for _a, _v, _s, b in run.snapshots) / max(hands, 1)),
        "clock_offset_ms": figures(offsets, 1, 2),
        "loop_lag_ms": figures([late for _end, late in run.lags], 1000),
        "slow_writes": slow_writes, "slow_writes_in_a_stall": stalled,
        "longest_stall": longest_stall(run),
    }
    return result, log, port


def longest_stall(run: InProcess) -> dict[str, Any]:
    """The event loop's longest stall, and the kinds of the entries the user's log took in it
    (what the peers in this process were doing)."""
    if not run.lags:
        return {}
    end, late = max(run.lags, key=lambda lag: lag[1])
    kinds: dict[str, int] = {}
    for (at, _author, _lines), kind in zip(run.entries, run.kinds, strict=True):
        if end - late - 0.01 <= at <= end:
            kinds[kind] = kinds.get(kind, 0) + 1
    return {"ms": round(late * 1000, 1), "entries": kinds}


# ---------------------------------------------------------------------- 3. bytes


def byte_figures(log: list[Any], port: str, hands: int) -> dict[str, Any]:
    """The page's HTTP responses and websocket frames, from Chromium's performance log."""
    urls: dict[str, str] = {}
    http_bytes: dict[str, int] = {}
    frames_in, frames_out, bytes_in, bytes_out, largest = 0, 0, 0, 0, 0
    for item in log:
        message = json.loads(item["message"])["message"]
        method, params = message.get("method"), message.get("params", {})
        if method == "Network.requestWillBeSent":
            urls[params["requestId"]] = params["request"]["url"]
        elif method == "Network.webSocketCreated":
            urls[params["requestId"]] = params["url"]
        elif method == "Network.loadingFinished":
            http_bytes[params["requestId"]] = int(params.get("encodedDataLength", 0))
        elif method == "Network.webSocketFrameReceived":
            size = len(params["response"]["payloadData"].encode())
            frames_in += 1
            bytes_in += size
            largest = max(largest, size)
        elif method == "Network.webSocketFrameSent":
            frames_out += 1
            bytes_out += len(params["response"]["payloadData"].encode())
    allowed = re.compile(rf"^(http|ws)://127\.0\.0\.1:{port}/")
    elsewhere = sorted({url for url in urls.values() if not allowed.match(url)})
    page = {urls.get(rid, rid).split("#")[0].split("?")[0]: size for rid, size in http_bytes.items()}
    return {
        "requests": len(urls), "urls": sorted({u.split("?")[0].split("#")[0] for u in urls.values()}),
        "only_local": not elsewhere, "elsewhere": elsewhere,
        "page_bytes": sum(http_bytes.values()), "page_parts": page,
        "ws_frames_received": frames_in, "ws_bytes_received": bytes_in, "ws_largest_frame": largest,
        "ws_bytes_received_per_hand": round(bytes_in / max(hands, 1)),
        "ws_frames_sent": frames_out, "ws_bytes_sent": bytes_out,
    }


# ---------------------------------------------------------------------- the report


def load() -> str:
    """The load average over 1, 5 and 15 minutes."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="2 starts, a game of 1 hand")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--runs", type=int, help="starts timed (5; --quick 2)")
    parser.add_argument("--hands", type=int, help="hands of part 2's game (4; --quick 1)")
    parser.add_argument("--pace", type=float, default=0.3, help="a bot's wait before each move (0.3 s)")
    parser.add_argument("--bots", type=int, default=2, help="bots at part 2's table (2; 3 for four seats)")
    args = parser.parse_args()
    from tests.browser import browser_missing

    why = browser_missing()
    if why is not None:
        print(json.dumps({"skipped": why}) if args.json else why)
        return 0
    runs = args.runs or (2 if args.quick else 5)
    hands = args.hands or (1 if args.quick else 4)
    before = load()
    driver = start_browser(performance_log=True)
    try:
        print("starting play --web...", file=sys.stderr)
        start = start_figures(driver, runs, args.seed)
        delay, log, port = delay_figures(driver, hands, args.pace, args.seed, args.bots)
    finally:
        driver.quit()
    sizes = byte_figures(log, port, hands)
    result = {"meta": {"quick": args.quick, "seed": args.seed, "bots": args.bots, "cpus": os.cpu_count(),
                       "load_before": before,
                       "load_after": load()},
              "start": start, "delay": delay, "bytes": sizes}
    if args.json:
        print(json.dumps(result))
        return 0
    report(result)
    return 0


def report(result: dict[str, Any]) -> None:
    """The figures as text."""
    meta, start, delay, sizes = result["meta"], result["start"], result["delay"], result["bytes"]
    print(f"load average before {meta['load_before']}, after {meta['load_after']}; {meta['cpus']} CPUs")
    m, top = start["median_ms"], start["max_ms"]
    print(f"1. start, median of {start['runs']} (max): play --web to the first hand drawn "
          f"{m['hand_s']:.0f} ms ({top['hand_s']:.0f})")
    print(f"   address printed {m['address_s']:.0f} ms, first view drawn {m['first_view_s']:.0f} ms; "
          f"beside it p2p10 --version {m['version_s']:.0f} ms, p2p10 rules phases {m['rules_s']:.0f} ms")
    print(f"   ratio: {start['ratio_to_version']} x --version, {start['ratio_to_rules']} x rules phases")

    def line(name: str, f: dict[str, Any], unit: str = "ms") -> None:
        if not f.get("n"):
            print(f"   {name:<28} none")
            return
        print(f"   {name:<28} median {f['median']:>8} {unit}  p90 {f['p90']:>8}  p99 {f['p99']:>8}  "
              f"max {f['max']:>8}  (n={f['n']})")

    print(f"2. delay: {delay['hands']} hand(s), bots at {delay['pace_s']} s a move; "
          f"{delay['entries']} entries "
          f"({delay['bot_entries']} by bots), {delay['lines_timed']} bots' move-log lines timed; "
          f"{delay['views_sent']} views sent, {delay['views_drawn']} drawn")
    line("entry saved -> line drawn", delay["delay_ms"])
    line("entry saved -> view built", delay["entry_to_sent_ms"])
    line("view built -> received", delay["sent_to_received_ms"])
    line("  built -> socket written", delay["sent_to_written_ms"])
    line("  written -> received", delay["written_to_received_ms"])
    line("received -> drawn", delay["received_to_drawn_ms"])
    line("snapshot built (+JSON)", delay["snapshot_build_ms"])
    line("snapshot size", delay["snapshot_bytes"], "B ")
    line("page clock - Date.now()", delay["clock_offset_ms"])
    line("event loop late by", delay["loop_lag_ms"])
    print(f"   views written 50 ms or more after built: {delay['slow_writes']}, of which "
          f"{delay['slow_writes_in_a_stall']} waited out one stall of the event loop (half the wait or more)")
    stall = delay["longest_stall"]
    if stall:
        print(f"   the longest stall, {stall['ms']} ms, took the entries "
              + (", ".join(f"{k} x{n}" for k, n in stall["entries"].items()) or "none"))
    parts = delay["snapshot_parts_mean_bytes"]
    print("   a snapshot's parts, mean bytes: " + ", ".join(f"{k} {v}" for k, v in list(parts.items())[:8]))
    print(f"3. bytes: page {sizes['page_bytes'] / 1024:.1f} KB over HTTP ({sizes['requests']} requests: "
          f"{', '.join(sizes['urls'])}); only 127.0.0.1:PORT: {sizes['only_local']}"
          + (f" (elsewhere: {', '.join(sizes['elsewhere'])})" if sizes["elsewhere"] else ""))
    print(f"   websocket: {sizes['ws_frames_received']} frames in, "
          f"{sizes['ws_bytes_received'] / 1024:.1f} KB "
          f"({sizes['ws_bytes_received_per_hand'] / 1024:.1f} KB a hand, largest frame "
          f"{sizes['ws_largest_frame'] / 1024:.1f} KB); {sizes['ws_frames_sent']} frames out, "
          f"{sizes['ws_bytes_sent']} B")
    whole = delay["whole_views_bytes_per_hand"]
    print(f"   every view built, sent whole (the baseline): {whole / 1024:.1f} KB a hand; "
          f"sent as patches: x{sizes['ws_bytes_received_per_hand'] / max(whole, 1):.3f} of that")


if __name__ == "__main__":
    sys.exit(main())
