"""Figures for play on a LAN: a table's announcement, a private draw over websockets, a whole game.

Prints measurements, never pass/fail; nothing here asserts a time. See benchmarks/README.md.

    python benchmarks/bench_lan.py              # the full run (about a minute and a half on 2 cores)
    python benchmarks/bench_lan.py --quick      # a smoke run of about twenty seconds
    python benchmarks/bench_lan.py --json       # one JSON object with every figure on stdout

Everything stays on 127.0.0.1: Zeroconf is bound to the loopback interface alone, every
websocket and every process listens and dials there. Three parts:

1. host to listed: an in-process ``Host`` (advertised) until a ``TableBrowser`` that is already
   running lists its table; real, unpatched python-zeroconf timings;
2. a private draw over loopback websockets (an in-process mesh of 2, 4 and 6 peers), from the
   draw move until the drawer has folded every other seat's token and opened its card, against
   the same draw on the in-memory network measured in the same run;
3. a complete 4-peer game of separate ``p2p10 host`` / ``p2p10 join`` processes with greedy
   bots: wall time, each peer's CPU time, the log; the 4 logs must be byte-identical and audit
   clean.

Progress goes to stderr. The exit status is 1 only if something is wrong with the protocol run
itself (a peer refused an entry, the peers' logs differ, a process failed, the audit is not
clean, a table was never listed); otherwise 0.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import inspect
import json
import os
import platform
import random
import re
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import zeroconf
from aiohttp import web
from processes import BenchFailure, Proc, one_log, reap_all, spawn, spread  # benchmarks/processes.py

from p2p10.audit import audit_bytes
from p2p10.bots import POLICIES
from p2p10.events import DrawStock
from p2p10.log import public_bytes
from p2p10.peer import Peer
from p2p10.rules import DEFAULT
from protocol.discovery import TableAd, TableBrowser
from protocol.lan_host import Host
from protocol.listener import listen
from protocol.memory import MemoryNetwork, make_peers, open_table, sit_downs_for
from protocol.mesh import MESH_PATH, POLL_EVERY, Mesh

LOOPBACK = "127.0.0.1"
INTERFACES = [LOOPBACK]  # Zeroconf on the loopback interface alone, never on every interface
GAME_PLAYERS = 4
BROWSER_SETTLE = 1.0  # s: a new browser's own start-up queries go out before the first host starts
LISTED_TIMEOUT = 15.0  # s: a table not listed by then counts as a failure
QUIET_AFTER_ANNOUNCE = 1.1  # s: a fresh browser opens this long after the host's last announcement
WITHDRAWN_TIMEOUT = 5.0  # s: how long to wait for the browser to drop a table that said goodbye
STEP_TIMEOUT = 60.0  # s: a set-up, a draw or a turn over websockets that takes longer is stuck
MAX_VIRTUAL_SECONDS = 600.0  # the same, in the in-memory network's virtual time
SETTLE = 0.05  # s: after a turn, the last relayed copies drain before the next draw is timed
GAME_TIMEOUT = 300.0  # s: a process game that takes longer is stuck
PORT_TIMEOUT = 30.0  # s: the host process must say where it listens by then
LINGER = inspect.signature(Mesh.run).parameters["linger"].default  # what p2p10 host / join keep


@dataclass(frozen=True)
class Settings:
    """How much work each part does."""

    announce_runs: int
    peers: tuple[int, ...]
    draws: int
    games: int
    hands: int
    startup_runs: int


FULL = Settings(announce_runs=7, peers=(2, 4, 6), draws=9, games=3, hands=5, startup_runs=3)
QUICK = Settings(announce_runs=2, peers=(2, 4), draws=3, games=1, hands=1, startup_runs=1)


# --------------------------------------------------------------------------- helpers


def progress(message: str) -> None:
    """One progress line on stderr (never stdout, which carries the figures)."""
    print(f"[bench] {message}", file=sys.stderr, flush=True)


async def wait_until(condition: Callable[[], bool], timeout: float, what: str, every: float = 0.005) -> None:
    """Poll ``condition`` until it holds; :class:`BenchFailure` after ``timeout`` seconds."""
    deadline = time.perf_counter() + timeout
    while not condition():
        if time.perf_counter() > deadline:
            raise BenchFailure(f"{what}: nothing after {timeout:.0f} s")
        await asyncio.sleep(every)


def zeroconf_timings() -> dict[str, Any]:
    """python-zeroconf's own delays, read from the installed version (None where it has none):
    a random wait before the first probe, three probes some interval apart, then three
    announcements; a browser waits a little before its first query."""
    from zeroconf import _core, const
    from zeroconf._services import browser

    def get(module: Any, name: str) -> Any:
        value = getattr(module, name, None)
        return list(value) if isinstance(value, tuple) else value

    return {
        "version": zeroconf.__version__,
        "probe_delay_ms": get(_core, "_PROBE_RANDOM_DELAY_INTERVAL"),
        "probes": get(_core, "_REGISTER_BROADCASTS"),
        "probe_interval_ms": get(const, "_CHECK_TIME"),
        "announce_interval_ms": get(const, "_REGISTER_TIME"),
        "goodbye_interval_ms": get(const, "_UNREGISTER_TIME"),
        "browser_first_query_ms": get(browser, "_FIRST_QUERY_DELAY_RANDOM_INTERVAL"),
    }


# --------------------------------------------------------------------------- 1. host to listed


async def bench_announce(settings: Settings, folder: Path) -> dict[str, Any]:
    """Start an advertised ``Host`` on 127.0.0.1 ``announce_runs`` times, each with its own
    table name, and time it until a browser that was already running lists the table. Once the
    host's announcements are over (and over a second old), a fresh browser is opened and timed
    until it lists the table too; then the host is stopped (its goodbye) and the running
    browser timed until it drops the table."""
    tag = os.urandom(3).hex()  # other tables may be announced on this machine: ours are named
    listed: dict[str, float] = {}
    titles: dict[str, str] = {}
    dropped: dict[str, float] = {}

    def on_change(name: str, ad: TableAd | None) -> None:
        now = time.perf_counter()
        if ad is not None:
            listed.setdefault(ad.table, now)
            titles[name] = ad.table
        elif name in titles:
            dropped.setdefault(titles[name], now)

    samples: list[dict[str, float]] = []
    async with TableBrowser(INTERFACES, on_change):
        await asyncio.sleep(BROWSER_SETTLE)
        for r in range(settings.announce_runs):
            title = f"bench {tag} {r + 1}"
            said: list[tuple[float, str]] = []
            host = Host("Bench", 2, DEFAULT, "greedy", interface=LOOPBACK, save_dir=folder / "hosts",
                        say=lambda line, said=said: said.append((time.perf_counter(), line)),
                        title=title, advertised=True)
            gc.collect()
            t0 = time.perf_counter()
            hosting = asyncio.ensure_future(host.run())
            try:
                await wait_until(lambda title=title, hosting=hosting: title in listed or hosting.done(),
                                 LISTED_TIMEOUT, f"table {title!r} listed")
                if title not in listed:
                    raise BenchFailure(f"the host stopped before its table was listed: {said}")
                await wait_until(lambda said=said: any(line.startswith(("announced as", "not announced"))
                                                       for _, line in said),
                                 LISTED_TIMEOUT, "the host's announcement")
                announced = [t for t, line in said if line.startswith("announced as")]
                refused = [line for _, line in said if line.startswith("not announced")]
                if refused:
                    raise BenchFailure(refused[0])
                # A record multicast less than a second ago is multicast again only after a delay
                # (RFC 6762 section 6), and a browser opened during the announcements would catch
                # the next one: wait until the table is quiet, as for a `p2p10 tables` run later on.
                await asyncio.sleep(max(0.0, announced[0] + QUIET_AFTER_ANNOUNCE - time.perf_counter()))
                fresh_seen: dict[str, float] = {}

                def fresh_change(_name: str, ad: TableAd | None, seen: dict[str, float] = fresh_seen) -> None:
                    if ad is not None:
                        seen.setdefault(ad.table, time.perf_counter())

                t_fresh = time.perf_counter()
                async with TableBrowser(INTERFACES, fresh_change):
                    await wait_until(lambda seen=fresh_seen, title=title: title in seen,
                                     LISTED_TIMEOUT, f"table {title!r} listed by a fresh browser")
                listening = next(t for t, line in said if line.startswith("listening on"))
            finally:
                t_stop = time.perf_counter()
                hosting.cancel()
                await asyncio.gather(hosting, return_exceptions=True)
            with contextlib.suppress(BenchFailure):
                await wait_until(lambda title=title: title in dropped, WITHDRAWN_TIMEOUT,
                                 "goodbye")
            sample = {
                "listening_ms": (listening - t0) * 1e3,
                "listed_ms": (listed[title] - t0) * 1e3,
                "announced_ms": (announced[0] - t0) * 1e3,
                "fresh_browser_ms": (fresh_seen[title] - t_fresh) * 1e3,
                "withdrawn_ms": (dropped[title] - t_stop) * 1e3 if title in dropped else None,
            }
            samples.append(sample)
            progress(f"announce: run {r + 1}/{settings.announce_runs}: listed after "
                     f"{sample['listed_ms']:.0f} ms (register returned at {sample['announced_ms']:.0f} ms); "
                     f"a fresh browser listed it in {sample['fresh_browser_ms']:.0f} ms")
    result: dict[str, Any] = {"runs": len(samples)}
    for key in ("listening_ms", "listed_ms", "announced_ms", "fresh_browser_ms", "withdrawn_ms"):
        values = [s[key] for s in samples if s[key] is not None]
        result[key] = spread(values) if values else None
    result["not_withdrawn"] = sum(1 for s in samples if s["withdrawn_ms"] is None)
    result["samples"] = samples
    return result


# --------------------------------------------------------------------------- 2. a private draw


def in_play(peers: Sequence[Peer]) -> Callable[[], bool]:
    """True once every peer's table is in the play stage of a hand, no draw is pending, and
    every peer has the same log length."""
    def done() -> bool:
        for p in peers:
            hand = p.table.hand if p.table is not None else None
            if hand is None or hand.stage != "play" or hand.draw is not None or p.stopped:
                return False
        return len({len(p.log) for p in peers}) == 1
    return done


def check_peers(peers: Sequence[Peer], what: str) -> None:
    """Every peer accepted everything, and all hold the same log."""
    for peer in peers:
        if peer.faults or peer.stopped:
            raise BenchFailure(f"{what}: seat {peer.seat + 1} refused something: {peer.faults[:1]}")
    if len({(len(p.log), p.log[-1].hash) for p in peers}) != 1:
        raise BenchFailure(f"{what}: the peers' logs differ")


class DrawWatch:
    """Listening to the drawer's entries for one draw (inert after it): the moment the drawer has folded the
    last token of its draw (the table back in play, no draw pending) and opened the card with
    its secret (``view()``, one variable-base multiplication), stamped in the hook itself."""

    def __init__(self, drawer: Peer) -> None:
        self.drawer = drawer
        self.at: float | None = None
        self.cards = 0
        self.event = asyncio.Event()

    def __call__(self, entry: Any) -> None:
        table = self.drawer.table
        if self.at is not None or entry.kind != "tokens" or table is None or table.hand is None:
            return
        if table.hand.stage == "play" and table.hand.draw is None:
            self.cards = len(self.drawer.view().hand_cards(self.drawer.seat))
            self.at = time.perf_counter()
            self.event.set()


class DrawTable:
    """A table of peers without players (every move is played by the benchmark) on some
    transport; the subclasses carry the messages."""

    transport = ""

    def __init__(self, players: int, seed: int) -> None:
        self.players = players
        self.seed = seed
        self.peers = make_peers([None] * players, seed)
        self.names = [f"Seat {i + 1}" for i in range(players)]
        self.setup_s = 0.0

    async def start(self) -> None:
        """Open the table and carry messages until every peer has the deal in play."""
        raise NotImplementedError

    async def settle(self) -> None:
        """Carry messages until every peer is in play with the same log."""
        raise NotImplementedError

    async def until_drawn(self, watch: DrawWatch) -> None:
        """Carry messages until the drawer has its card."""
        raise NotImplementedError

    def sent(self, seat: int) -> None:
        """``seat``'s peer has just played a move: send what it wrote."""

    async def close(self) -> None:
        """Let go of the transport."""

    def mover(self) -> Peer:
        """The peer whose move it is (the table must be waiting for a move)."""
        table = self.peers[0].table
        expect = table.expected() if table is not None else None
        if expect is None or expect.kind != "move":
            raise BenchFailure(f"{self.transport}: a move was due but the table expects {expect}")
        return self.peers[expect.seat]

    async def draw(self) -> float:
        """The seat to move draws from the stock: seconds until it has opened the card."""
        drawer = self.mover()
        view = drawer.view()
        if view.stage != "draw" or not view.stock:
            raise BenchFailure(f"{self.transport}: seat {drawer.seat + 1} cannot draw from the stock now")
        held = len(view.hand_cards(drawer.seat))
        watch = DrawWatch(drawer)
        drawer.hooks.listen(entry=watch)
        gc.collect()
        t0 = time.perf_counter()
        drawer.play(DrawStock(drawer.seat))
        self.sent(drawer.seat)
        await self.until_drawn(watch)
        assert watch.at is not None
        if watch.cards != held + 1:
            raise BenchFailure(f"{self.transport}: the drawer cannot see the card it drew")
        await self.settle()
        check_peers(self.peers, f"a draw over {self.transport} with {self.players} peers")
        return watch.at - t0

    async def finish_turn(self, rng: random.Random) -> None:
        """The drawer ends its turn as the greedy bot would (lay down, hit, discard)."""
        drawer = self.mover()
        seat = drawer.seat
        while True:
            table = drawer.table
            expect = table.expected() if table is not None else None
            if expect is None or expect.seat != seat or expect.kind != "move":
                break
            drawer.play(POLICIES["greedy"](drawer.view(), seat, rng))
            self.sent(seat)
            await self.settle()
        check_peers(self.peers, f"a turn over {self.transport} with {self.players} peers")


class MemoryTable(DrawTable):
    """The in-memory network with no virtual latency: the wall time is computation alone."""

    transport = "memory"

    def __init__(self, players: int, seed: int) -> None:
        super().__init__(players, seed)
        self.network = MemoryNetwork(self.peers, rng=random.Random(seed), latency=0.0)

    async def start(self) -> None:
        t0 = time.perf_counter()
        open_table(self.peers, self.names, seed=self.seed)
        self.network.run(in_play(self.peers), MAX_VIRTUAL_SECONDS)
        self.setup_s = time.perf_counter() - t0
        check_peers(self.peers, f"set-up in memory with {self.players} peers")

    async def settle(self) -> None:
        self.network.run(in_play(self.peers), self.network.now + MAX_VIRTUAL_SECONDS)

    async def until_drawn(self, watch: DrawWatch) -> None:
        self.network.run(lambda: watch.at is not None, self.network.now + MAX_VIRTUAL_SECONDS)


class WebsocketTable(DrawTable):
    """One mesh per peer, each listening on its own 127.0.0.1 port, all in this process and
    this event loop (as ``open_mesh_table`` in tests/test_mesh.py builds them)."""

    transport = "websockets"

    def __init__(self, players: int, seed: int) -> None:
        super().__init__(players, seed)
        # The sit-downs open_table signs, so the log is the same as the in-memory table's.
        self.sit_downs = sit_downs_for(self.peers, self.names, DEFAULT, seed)
        self.meshes = [Mesh(peer, self.sit_downs[0].table_id) for peer in self.peers]
        self.runners: list[web.AppRunner] = []
        self.running: list[asyncio.Future[None]] = []
        self.stopping = False

    async def start(self) -> None:
        ports = []
        for mesh in self.meshes:
            runner, port = await listen({MESH_PATH: mesh.handle}, LOOPBACK, identity=mesh.peer.identity)
            self.runners.append(runner)
            ports.append(port)
        keys = [public_bytes(p.identity) for p in self.peers]
        for mesh in self.meshes:
            mesh.seat_table(keys, [(LOOPBACK, port) for port in ports])
        t0 = time.perf_counter()
        self.running = [asyncio.ensure_future(mesh.run(lambda: self.stopping, linger=0.0))
                        for mesh in self.meshes]
        self.peers[0].open_table(self.sit_downs)
        self.meshes[0].pump()
        await self.settle()
        self.setup_s = time.perf_counter() - t0
        check_peers(self.peers, f"set-up over websockets with {self.players} peers")

    def _alive(self) -> None:
        for task in self.running:
            if task.done():
                why = "cancelled" if task.cancelled() else repr(task.exception())
                raise BenchFailure(f"a mesh stopped: {why}")

    async def settle(self) -> None:
        done = in_play(self.peers)

        def ready() -> bool:
            self._alive()
            return done()

        await wait_until(ready, STEP_TIMEOUT, f"{self.players} peers over websockets in play")
        await asyncio.sleep(SETTLE)

    async def until_drawn(self, watch: DrawWatch) -> None:
        try:
            await asyncio.wait_for(watch.event.wait(), STEP_TIMEOUT)
        except TimeoutError:
            raise BenchFailure(f"a draw over websockets with {self.players} peers never ended") from None

    def sent(self, seat: int) -> None:
        # A move played from outside the mesh (as a screen would) leaves at the mesh's next
        # pump; without this one it would wait for the poll timer (POLL_EVERY).
        self.meshes[seat].pump()

    async def close(self) -> None:
        self.stopping = True
        if self.running:
            await asyncio.gather(*self.running, return_exceptions=True)
        for mesh in self.meshes:
            await mesh.close()
        for runner in self.runners:
            await runner.cleanup()


async def bench_draws(settings: Settings, seed: int) -> dict[str, Any]:
    """For each table size, one table on each transport with the same seed (so the same keys,
    the same deal, the same log); then ``draws`` turns, each a timed draw from the stock on the
    in-memory table, the same draw on the websocket table, and the rest of the turn (untimed)."""
    results: dict[str, Any] = {}
    progress("draw: warm-up (2 peers on each transport, not recorded)")
    await one_size(2, seed - 1, 1, record=False)
    for players in settings.peers:
        results[str(players)] = await one_size(players, seed * 1000 + players, settings.draws)
    return results


async def one_size(players: int, seed: int, draws: int, record: bool = True) -> dict[str, Any]:
    memory = MemoryTable(players, seed)
    sockets = WebsocketTable(players, seed)
    try:
        await memory.start()
        await sockets.start()
        if record:
            progress(f"draw, {players} peers: set-up {memory.setup_s * 1e3:.0f} ms in memory, "
                     f"{sockets.setup_s * 1e3:.0f} ms over websockets")
        mem_ms: list[float] = []
        ws_ms: list[float] = []
        same = True
        for k in range(draws):
            mem_ms.append(await memory.draw() * 1e3)
            ws_ms.append(await sockets.draw() * 1e3)
            turn = f"{seed}/turn{k}"
            await memory.finish_turn(random.Random(turn))
            await sockets.finish_turn(random.Random(turn))
            same = same and memory.peers[0].log[-1].hash == sockets.peers[0].log[-1].hash
            if record:
                progress(f"draw, {players} peers: {k + 1}/{draws}: {mem_ms[-1]:.1f} ms in memory, "
                         f"{ws_ms[-1]:.1f} ms over websockets")
        entries = len(sockets.peers[0].log)
    finally:
        await sockets.close()
    ws, mem = spread(ws_ms), spread(mem_ms)
    return {
        "draws": draws,
        "ws_median_ms": ws["median"], "ws_min_ms": ws["min"], "ws_max_ms": ws["max"],
        "memory_median_ms": mem["median"], "memory_min_ms": mem["min"], "memory_max_ms": mem["max"],
        "ratio": ws["median"] / mem["median"],
        "pair_ratio": statistics.median(w / m for w, m in zip(ws_ms, mem_ms, strict=True)),
        "extra_ms": ws["median"] - mem["median"],
        "tokens": players - 1,
        "ws_setup_ms": sockets.setup_s * 1e3,
        "memory_setup_ms": memory.setup_s * 1e3,
        "same_log": same,
        "entries": entries,
    }


# --------------------------------------------------------------------------- 3. a game of processes


def p2p10(*args: str) -> list[str]:
    return [sys.executable, "-m", "cli", *args]


def bench_startup(settings: Settings, folder: Path, env: dict[str, str]) -> dict[str, float]:
    """What one ``p2p10`` process costs before it does anything: ``p2p10 --version`` starts
    the interpreter and imports the same modules as ``host`` and ``join`` (the command line
    imports every command). The median over ``startup_runs`` runs."""
    walls, cpus = [], []
    for r in range(settings.startup_runs):
        proc = spawn(f"startup{r}", p2p10("--version"), folder, env)
        try:
            reap_all([proc], 30, "p2p10 --version")
        finally:
            proc.kill()
        if proc.code != 0:
            raise BenchFailure(f"p2p10 --version failed: {proc.tail()}")
        assert proc.ended is not None
        walls.append(proc.ended - proc.started)
        cpus.append(proc.cpu_s)
    return {"runs": settings.startup_runs, "wall_s": statistics.median(walls),
            "cpu_s": statistics.median(cpus)}


def play_processes(number: int, hands: int, folder: Path, env: dict[str, str]) -> dict[str, Any]:
    """One game: the host process, then three joiners once it says where it listens; every
    seat a greedy bot, every process saving its log in its own folder."""
    folder.mkdir(parents=True)
    dirs = [folder / f"seat{i + 1}" for i in range(GAME_PLAYERS)]
    procs: list[Proc] = []
    try:
        t0 = time.perf_counter()
        wall0 = time.time()
        procs.append(spawn("host", p2p10(
            "host", "--name", "Seat 1", "--autoplay", "greedy", "--seats", str(GAME_PLAYERS),
            "--start-when-full", "--interface", LOOPBACK, "--quiet-network", "--save", str(dirs[0]),
            "-o", f"hands={hands}"), folder, env))
        host = procs[0]
        deadline = time.perf_counter() + PORT_TIMEOUT
        while (found := re.search(r"^listening on 127\.0\.0\.1:(\d+)$", host.text(), re.M)) is None:
            if host.reap() or time.perf_counter() > deadline:
                raise BenchFailure(f"game {number}: the host never said where it listens: {host.tail()}")
            time.sleep(0.005)
        listening = time.perf_counter() - t0
        port = int(found.group(1))
        for i in range(1, GAME_PLAYERS):
            procs.append(spawn(f"seat{i + 1}", p2p10(
                "join", f"{LOOPBACK}:{port}", "--name", f"Seat {i + 1}", "--autoplay", "greedy",
                "--interface", LOOPBACK, "--save", str(dirs[i])), folder, env))
        dealing: list[float] = []

        def watch() -> None:
            # The host creates its log as the table starts, just before it writes the table entry.
            if not dealing and any(dirs[0].glob("*.p2p10")):
                dealing.append(time.time())

        reap_all(procs, GAME_TIMEOUT, f"game {number}", watch)
        watch()
        ended = max(p.ended for p in procs if p.ended is not None) - t0
    finally:
        for proc in procs:
            proc.kill()
    log = one_log(procs, dirs, f"game {number}")
    gc.collect()
    t_audit = time.process_time()
    report = audit_bytes(log)
    audit_cpu = time.process_time() - t_audit
    if not report.clean:
        raise BenchFailure(f"game {number}: the audit is not clean: {report.verdict()}")
    last_entry = max(path.stat().st_mtime for d in dirs for path in d.glob("*.p2p10")) - wall0
    start = (dealing[0] - wall0) if dealing else None
    engine = report.table.engine if report.table is not None else None
    return {
        "wall_s": ended,
        "listening_s": listening,
        "dealing_s": start,
        "last_entry_s": last_entry,
        "game_s": last_entry - start if start is not None else None,
        "tail_s": ended - last_entry,
        "hands": len(engine.sheet) if engine is not None else 0,
        "entries": report.entries,
        "bytes": len(log),
        "clean": report.clean,
        "identical": True,
        "audit_cpu_s": audit_cpu,
        "peers": [{"seat": i + 1, "cpu_s": p.cpu_s, "user_s": p.usage.ru_utime, "sys_s": p.usage.ru_stime,
                   "max_rss_mb": p.usage.ru_maxrss / 1024} for i, p in enumerate(procs)],
    }


def bench_game(settings: Settings, folder: Path) -> dict[str, Any]:
    """Figure 3: ``games`` games of processes, and the two baselines: a process's start-up,
    and one audit of each game's own log (every entry folded and checked once, in this process:
    the least work each peer must do for that game)."""
    env = {**os.environ, "XDG_DATA_HOME": str(folder / "xdg"), "PYTHONUNBUFFERED": "1"}
    progress(f"game: start-up of one p2p10 process ({settings.startup_runs} runs)")
    startup = bench_startup(settings, folder, env)
    games = []
    for g in range(settings.games):
        progress(f"game {g + 1}/{settings.games}: {GAME_PLAYERS} processes, hands={settings.hands}")
        game = play_processes(g + 1, settings.hands, folder / f"game{g + 1}", env)
        games.append(game)
        cpus = ", ".join(f"{p['cpu_s']:.2f}" for p in game["peers"])
        progress(f"game {g + 1}/{settings.games}: {game['wall_s']:.1f} s wall, {game['entries']} entries, "
                 f"CPU s per peer {cpus}")
    per_seat = []
    for i in range(GAME_PLAYERS):
        cpu = [g["peers"][i]["cpu_s"] for g in games]
        per_seat.append({
            "seat": i + 1,
            "cpu_s": statistics.median(cpu),
            "user_s": statistics.median(g["peers"][i]["user_s"] for g in games),
            "sys_s": statistics.median(g["peers"][i]["sys_s"] for g in games),
            "beyond_startup_s": statistics.median(cpu) - startup["cpu_s"],
            "max_rss_mb": max(g["peers"][i]["max_rss_mb"] for g in games),
        })
    total_cpu = [sum(p["cpu_s"] for p in g["peers"]) for g in games]
    beyond = [t - GAME_PLAYERS * startup["cpu_s"] for t in total_cpu]
    per_entry = [b / g["entries"] * 1e3 for b, g in zip(beyond, games, strict=True)]
    to_audit = [b / GAME_PLAYERS / g["audit_cpu_s"] for b, g in zip(beyond, games, strict=True)]
    game_s = [g["game_s"] for g in games if g["game_s"] is not None]
    dealing = [g["dealing_s"] for g in games if g["dealing_s"] is not None]
    return {
        "players": GAME_PLAYERS,
        "rules": f"hands={settings.hands}",
        "games": len(games),
        "wall_s": statistics.median(g["wall_s"] for g in games),
        "listening_s": statistics.median(g["listening_s"] for g in games),
        "dealing_s": statistics.median(dealing) if dealing else None,
        "game_s": statistics.median(game_s) if game_s else None,
        "tail_s": statistics.median(g["tail_s"] for g in games),
        "entries": statistics.median(g["entries"] for g in games),
        "bytes": statistics.median(g["bytes"] for g in games),
        "total_cpu_s": statistics.median(total_cpu),
        "beyond_startup_cpu_s": statistics.median(beyond),
        "cpu_ms_per_entry": statistics.median(per_entry),
        "peers": per_seat,
        "startup": startup,
        "audit_cpu_s": statistics.median(g["audit_cpu_s"] for g in games),
        "audit_ms_per_entry": statistics.median(g["audit_cpu_s"] / g["entries"] * 1e3 for g in games),
        "ratio_to_audit": statistics.median(to_audit),
        "identical": all(g["identical"] for g in games),
        "clean": all(g["clean"] for g in games),
        "runs": games,
    }


# --------------------------------------------------------------------------- report


def _ms(figure: dict[str, float] | None) -> str:
    if figure is None:
        return "-"
    return f"{figure['median']:.0f} ms (min {figure['min']:.0f}, max {figure['max']:.0f})"


def print_report(result: dict[str, Any]) -> None:
    meta = result["meta"]
    z = meta["zeroconf"]
    print(f"p2p10 LAN benchmark  (seed {meta['seed']}, {'quick' if meta['quick'] else 'full'} run, "
          "everything on 127.0.0.1)")
    print(f"Python {meta['python']} on {meta['platform']}, {meta['cpus']} CPUs, python-zeroconf "
          f"{z['version']}")
    print(f"total wall time {meta['wall_s']:.1f} s; load average {meta['load_before']:.2f} before, "
          f"{meta['load_after']:.2f} after (anything else running skews every figure)")
    print()
    a = result["announce"]
    print(f"1. Host to listed: an advertised in-process Host on 127.0.0.1 until an already running "
          f"TableBrowser\n   lists its table (real zeroconf timings), median over {a['runs']} runs")
    print(f"   listening (lobby open):             {_ms(a['listening_ms'])}")
    print(f"   listed by the running browser:      {_ms(a['listed_ms'])}")
    print(f"   host's announcement done:           {_ms(a['announced_ms'])}")
    print(f"   a browser opened {QUIET_AFTER_ANNOUNCE:g} s after that:  {_ms(a['fresh_browser_ms'])} "
          "from its start to the listing")
    print(f"   goodbye until dropped from the list: {_ms(a['withdrawn_ms'])}"
          + (f" ({a['not_withdrawn']} runs not dropped within {WITHDRAWN_TIMEOUT:.0f} s)"
             if a["not_withdrawn"] else ""))
    if z["probe_delay_ms"] and z["probe_interval_ms"] and z["probes"]:
        low, high = z["probe_delay_ms"]
        gap = z["probe_interval_ms"] * (z["probes"] - 1)
        print(f"   zeroconf's own delays: a random {low}-{high} ms before the first probe, "
              f"{z['probes']} probes {z['probe_interval_ms']} ms apart, then the first\n   announcement: "
              f"{low + gap}-{high + gap} ms before anybody can list the table; the other "
              f"{z['probes'] - 1} announcements\n   follow {z['announce_interval_ms']} ms apart")
    print()
    print("2. A private draw over loopback websockets: from the draw move until the drawer has folded "
          "every\n   other seat's token and opened its card; all peers in this process, one event loop; "
          "baseline: the\n   same draw on the in-memory network (no virtual latency), interleaved in "
          "the same run")
    print(f"   {'peers':>5} {'draws':>5} {'ws median':>10} {'min':>7} {'max':>7} {'memory':>8} {'min':>7} "
          f"{'max':>7} {'x memory':>9} {'pairs':>6} {'+ ms':>6} {'set-up ws':>10} {'memory':>7} "
          f"{'same log':>9}")
    for players, d in result["draw"].items():
        print(f"   {players:>5} {d['draws']:>5} {d['ws_median_ms']:10.1f} {d['ws_min_ms']:7.1f} "
              f"{d['ws_max_ms']:7.1f} {d['memory_median_ms']:8.1f} {d['memory_min_ms']:7.1f} "
              f"{d['memory_max_ms']:7.1f} {d['ratio']:9.2f} {d['pair_ratio']:6.2f} {d['extra_ms']:6.1f} "
              f"{d['ws_setup_ms']:10.0f} {d['memory_setup_ms']:7.0f} {'yes' if d['same_log'] else 'NO':>9}")
    print("   (ms; x memory = ws median / memory median; pairs = median of each draw's ws / memory; "
          "+ ms = the\n   difference of the medians; set-up: one run, open_table until every peer has "
          "the deal in play)")
    print()
    g = result["game"]
    s = g["startup"]
    print(f"3. A complete {g['players']}-peer game of separate processes on 127.0.0.1 (p2p10 host "
          f"--quiet-network + 3 p2p10 join,\n   greedy bots, rules: {g['rules']}), median over "
          f"{g['games']} games")
    print(f"   wall {g['wall_s']:.1f} s from spawning the host to the last exit: the host listening after "
          f"{g['listening_s']:.2f} s,")
    if g["game_s"] is not None:
        print(f"   dealing after {g['dealing_s']:.2f} s (joiners started and seated), the game "
              f"{g['game_s']:.1f} s to the last entry, then {g['tail_s']:.1f} s to exit")
    print(f"   (the tail: each peer stays until every other seat has shown it holds the whole log, "
          f"{LINGER:g} s at most)")
    print(f"   log: {g['entries']:,.0f} entries, {g['bytes']:,.0f} bytes; the 4 logs byte-identical: "
          f"{'yes' if g['identical'] else 'NO'}; audit {'CLEAN' if g['clean'] else 'NOT CLEAN'}")
    print(f"   {'seat':>6} {'CPU s':>7} {'user':>7} {'sys':>6} {'beyond start-up':>16} {'max RSS MB':>11}")
    for p in g["peers"]:
        print(f"   {p['seat']:>6} {p['cpu_s']:7.2f} {p['user_s']:7.2f} {p['sys_s']:6.2f} "
              f"{p['beyond_startup_s']:16.2f} {p['max_rss_mb']:11.0f}")
    print(f"   start-up of one p2p10 process (p2p10 --version): {s['cpu_s']:.2f} s CPU, "
          f"{s['wall_s']:.2f} s wall")
    print(f"   all 4 peers: {g['total_cpu_s']:.2f} s CPU, {g['beyond_startup_cpu_s']:.2f} s beyond start-up "
          f"= {g['cpu_ms_per_entry']:.2f} ms per entry (all peers together)")
    print(f"   one audit of the same log in this process: {g['audit_cpu_s']:.2f} s CPU = "
          f"{g['audit_ms_per_entry']:.2f} ms per entry;\n   a peer's CPU beyond start-up is "
          f"{g['ratio_to_audit']:.2f} x that")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a fast smoke run (about twenty seconds)")
    parser.add_argument("--seed", type=int, default=2024,
                        help="seed of the draw tables of part 2 (default 2024)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    parser.add_argument("--peers", type=lambda s: tuple(int(x) for x in s.split(",")),
                        help="table sizes for part 2, e.g. 2,3,4 (overrides the preset)")
    parser.add_argument("--runs", type=int, help="announcement runs of part 1 (overrides the preset)")
    parser.add_argument("--draws", type=int, help="draws per table size in part 2 (overrides the preset)")
    parser.add_argument("--games", type=int, help="process games in part 3 (overrides the preset)")
    parser.add_argument("--hands", type=int, help="hands per game in part 3 (overrides the preset)")
    return parser.parse_args(argv)


async def run_async(settings: Settings, seed: int, folder: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    progress(f"announce: {settings.announce_runs} runs (zeroconf on 127.0.0.1 only)")
    announce = await bench_announce(settings, folder)
    draws = await bench_draws(settings, seed)
    return announce, draws


def _terminate(signum: int, _frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")  # unwinds through every finally: processes, folders


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    preset = QUICK if args.quick else FULL
    settings = Settings(
        announce_runs=max(1, args.runs or preset.announce_runs),
        peers=args.peers or preset.peers,
        draws=max(1, args.draws or preset.draws),
        games=max(1, args.games or preset.games),
        hands=max(1, args.hands or preset.hands),
        startup_runs=preset.startup_runs,
    )
    signal.signal(signal.SIGTERM, _terminate)
    started = time.perf_counter()
    load = os.getloadavg()
    try:
        with tempfile.TemporaryDirectory(prefix="p2p10-bench-lan-") as tmp:
            folder = Path(tmp)
            announce, draws = asyncio.run(run_async(settings, args.seed, folder))
            game = bench_game(settings, folder)
    except BenchFailure as err:
        print(f"[bench] FAILED: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("[bench] interrupted: every process started here is stopped, the temporary folder gone",
              file=sys.stderr)
        return 130
    result = {
        "meta": {
            "seed": args.seed,
            "quick": args.quick,
            "python": platform.python_version(),
            "platform": platform.platform(terse=True),
            "cpus": os.cpu_count(),
            "wall_s": time.perf_counter() - started,
            "load_before": load[0],
            "load_after": os.getloadavg()[0],
            "zeroconf": zeroconf_timings(),
            "mesh_poll_s": POLL_EVERY,
        },
        "announce": announce,
        "draw": draws,
        "game": game,
    }
    if args.json:
        print(json.dumps(result, indent=None, sort_keys=False))
    else:
        print_report(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
