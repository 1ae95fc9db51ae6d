"""Figures for the dealing protocol: hand set-up and private draws between peers, and the audit.

Prints measurements, never pass/fail; nothing here asserts a time. See benchmarks/README.md.

    python benchmarks/bench_dealing.py              # the full run (about 40 s on 2 cores)
    python benchmarks/bench_dealing.py --quick      # a smoke run of a few seconds
    python benchmarks/bench_dealing.py --json       # one JSON object with every figure on stdout

Every peer runs in this one process and does all its own work (signing, verifying every entry
and proof it receives) through the real ``Peer`` / ``MemoryNetwork`` code path; the network's
latency is virtual, so the wall time is computation alone. Progress goes to stderr. The exit
status is 1 only if something is wrong with the protocol run itself (a peer refused an entry,
the peers' logs differ, the audit of the played game is not clean); otherwise 0.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import rbcl
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from p2p10 import signing
from p2p10.audit import audit_bytes
from p2p10.crypto.group import MULTIPLICATIONS, base_mul, mul, random_scalar
from p2p10.events import DrawStock
from p2p10.log import Entry, parse_entry, read_records
from p2p10.peer import Peer
from p2p10.rules import RuleSet
from p2p10.signing import Domain
from p2p10.simulate import greedy_player
from protocol.memory import MemoryNetwork, make_peers, open_table, play_table

GAME_PLAYERS = 4
MAX_VIRTUAL_SECONDS = 600.0  # a set-up or a draw that takes longer than this (virtual) is stuck
SIGNATURE_CHECKS: Counter[str] = Counter()  # Ed25519 verifications, counted by a wrapper (below)


@dataclass(frozen=True)
class Settings:
    """How much work each part does."""

    peers: tuple[int, ...]
    runs: int
    unit_batches: int
    unit_batch_size: int
    game_rules: tuple[str, ...]
    audit_runs: int


FULL = Settings(peers=(2, 4, 6), runs=5, unit_batches=7, unit_batch_size=300, game_rules=(),
                audit_runs=3)
QUICK = Settings(peers=(2, 4), runs=2, unit_batches=3, unit_batch_size=100, game_rules=("hands=1",),
                 audit_runs=2)


class BenchFailure(RuntimeError):
    """The protocol run went wrong (not a timing matter): the benchmark reports it and exits 1."""


# --------------------------------------------------------------------------- helpers


def progress(message: str) -> None:
    """One progress line on stderr (never stdout, which carries the figures)."""
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def count_signature_checks() -> None:
    """Wrap ``Entry.verify`` so that every Ed25519 verification is counted (this process only;
    the wrapper calls the original and changes nothing else)."""
    original = Entry.verify
    if getattr(original, "counting", False):
        return

    def verify(entry: Entry, key: Ed25519PublicKey) -> bool:
        SIGNATURE_CHECKS["verify"] += 1
        return original(entry, key)

    verify.counting = True  # type: ignore[attr-defined]
    setattr(Entry, "verify", verify)  # noqa: B010 - a method assignment mypy would refuse


def reset_counts() -> None:
    """Clear the multiplication and signature counters."""
    MULTIPLICATIONS.clear()
    SIGNATURE_CHECKS.clear()


def counts() -> dict[str, int]:
    """What was counted since the last ``reset_counts()``."""
    return {"mul": MULTIPLICATIONS["mul"], "base_mul": MULTIPLICATIONS["base_mul"],
            "sig_verify": SIGNATURE_CHECKS["verify"]}


def check_peers(peers: Sequence[Peer], what: str) -> None:
    """Every peer accepted everything, and all hold the same log."""
    for peer in peers:
        if peer.faults or peer.stopped:
            raise BenchFailure(f"{what}: seat {peer.seat + 1} refused something: {peer.faults[:1]}")
    heads = {(len(p.log), p.log[-1].hash) for p in peers}
    if len(heads) != 1:
        raise BenchFailure(f"{what}: the peers' logs differ")


# --------------------------------------------------------------------------- 0. unit costs


def bench_unit_costs(settings: Settings) -> dict[str, float]:
    """Microseconds per scalar multiplication, median over batches: libsodium's own call
    (``raw_*``, the floor) and the ``group`` wrapper the protocol calls (which also checks
    that the result is a valid encoding and builds a ``Point``); and, for comparison, one
    entry signature's verification (:func:`p2p10.signing.verify`: the domain tag, the edge-case
    checks and Ed25519) of a 300-byte message (about a token entry's size)."""
    rng = random.Random(1).randbytes
    size = settings.unit_batch_size
    scalars = [random_scalar(rng) for _ in range(size)]
    points = [base_mul(random_scalar(rng)) for _ in range(size)]
    raw_s = [s.to_bytes() for s in scalars]
    raw_p = [p.to_bytes() for p in points]
    signer = Ed25519PrivateKey.from_private_bytes(rng(32))
    verifier = signer.public_key()
    messages = [rng(300) for _ in range(size)]
    signatures = [signing.sign(signer, Domain.ENTRY, m) for m in messages]
    var_raw = rbcl.crypto_scalarmult_ristretto255_allow_scalar_zero
    base_raw = rbcl.crypto_scalarmult_ristretto255_base_allow_scalar_zero

    def raw_mul() -> None:
        for s, p in zip(raw_s, raw_p, strict=True):
            var_raw(s, p)

    def raw_base() -> None:
        for s in raw_s:
            base_raw(s)

    def wrapped_mul() -> None:
        for s, p in zip(scalars, points, strict=True):
            mul(s, p)

    def wrapped_base() -> None:
        for s in scalars:
            base_mul(s)

    def ed25519_verify() -> None:
        for m, sig in zip(messages, signatures, strict=True):
            assert signing.verify(verifier, Domain.ENTRY, m, sig)

    cases: dict[str, Callable[[], None]] = {
        "raw_mul_us": raw_mul, "raw_base_mul_us": raw_base,
        "mul_us": wrapped_mul, "base_mul_us": wrapped_base,
        "ed25519_verify_us": ed25519_verify,
    }
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for fn in cases.values():
        fn()  # warm-up
    clock = time.perf_counter
    for _ in range(settings.unit_batches):
        for name, fn in cases.items():  # interleaved, so a slow moment hits every case alike
            t0 = clock()
            fn()
            samples[name].append((clock() - t0) / size * 1e6)
    MULTIPLICATIONS.clear()
    return {name: statistics.median(s) for name, s in samples.items()}


# --------------------------------------------------------------------------- 1 and 2. dealing


def in_play(peers: Sequence[Peer]) -> Callable[[], bool]:
    """True once every peer's table is in the play stage of a hand (and no draw is pending)."""
    def done() -> bool:
        for p in peers:
            hand = p.table.hand if p.table is not None else None
            if hand is None or hand.stage != "play" or hand.draw is not None or p.stopped:
                return False
        return len({len(p.log) for p in peers}) == 1
    return done


@dataclass
class Sample:
    """One timed operation: wall seconds, multiplications, and the log it added."""

    seconds: float
    mults: dict[str, int]
    entries: int
    log_bytes: int


def set_up(players: int, seed: int) -> tuple[list[Peer], MemoryNetwork, Sample]:
    """Open a table and run it until every peer has the deal in play and knows its hand."""
    peers = make_peers([None] * players, seed)
    network = MemoryNetwork(peers, rng=random.Random(seed))
    names = [f"Seat {i + 1}" for i in range(players)]
    gc.collect()
    reset_counts()
    t0 = time.perf_counter()
    open_table(peers, names, seed=seed)
    network.run(in_play(peers), MAX_VIRTUAL_SECONDS)
    for peer in peers:
        peer.view()  # each seat opens its own ten cards with its secret
    elapsed = time.perf_counter() - t0
    mults = counts()
    check_peers(peers, f"set-up of {players} peers")
    for peer in peers:
        if len(peer.view().hand_cards(peer.seat)) != 10:
            raise BenchFailure(f"set-up of {players} peers: seat {peer.seat + 1} cannot see its hand")
    log = peers[0].log
    return peers, network, Sample(elapsed, mults, len(log), sum(len(e.raw) for e in log))


def private_draw(peers: Sequence[Peer], network: MemoryNetwork) -> Sample:
    """The seat to move draws from the stock; run until it knows the card it drew."""
    table = peers[0].table
    assert table is not None
    expect = table.expected()
    if expect is None or expect.kind != "move":
        raise BenchFailure(f"a draw was due but the table expects {expect}")
    drawer = peers[expect.seat]
    before = len(drawer.log)
    held = len(drawer.view().hand_cards(drawer.seat))
    gc.collect()
    reset_counts()
    t0 = time.perf_counter()
    drawer.play(DrawStock(drawer.seat))
    network.run(in_play(peers), network.now + MAX_VIRTUAL_SECONDS)
    hand = drawer.view().hand_cards(drawer.seat)
    elapsed = time.perf_counter() - t0
    mults = counts()
    check_peers(peers, f"draw with {len(peers)} peers")
    if len(hand) != held + 1:
        raise BenchFailure("the drawer cannot see the card it drew")
    added = drawer.log[before:]
    return Sample(elapsed, mults, len(added), sum(len(e.raw) for e in added))


def summarise(samples: Sequence[Sample], costs: dict[str, float]) -> dict[str, Any]:
    """Median wall time, the multiplications (the same in every run) and the floor they set,
    and the signature verifications (with what they cost at the measured rate)."""
    ms = [s.seconds * 1e3 for s in samples]
    mults = samples[-1].mults
    varying = any(s.mults != mults for s in samples)
    floor_ms = (mults["mul"] * costs["raw_mul_us"] + mults["base_mul"] * costs["raw_base_mul_us"]) / 1e3
    median = statistics.median(ms)
    return {
        "runs": len(samples),
        "median_ms": median,
        "min_ms": min(ms),
        "max_ms": max(ms),
        "mul": mults["mul"],
        "base_mul": mults["base_mul"],
        "mults_vary": varying,
        "floor_ms": floor_ms,
        "ratio_to_floor": median / floor_ms if floor_ms else None,
        "sig_verify": mults["sig_verify"],
        "sig_verify_ms": mults["sig_verify"] * costs["ed25519_verify_us"] / 1e3,
        "entries": samples[-1].entries,
        "log_bytes": samples[-1].log_bytes,
    }


def bench_dealing(settings: Settings, seed: int, costs: dict[str, float]) -> tuple[dict[str, Any],
                                                                                    dict[str, Any]]:
    """Figures 1 and 2: each run sets a table up (timed), then one private draw on it (timed)."""
    progress("dealing: warm-up (2 peers, not recorded)")
    private_draw(*set_up(2, seed)[:2])
    setups: dict[str, Any] = {}
    draws: dict[str, Any] = {}
    for players in settings.peers:
        setup_samples: list[Sample] = []
        draw_samples: list[Sample] = []
        for r in range(settings.runs):
            peers, network, sample = set_up(players, seed * 1000 + 100 * players + r)
            setup_samples.append(sample)
            draw_samples.append(private_draw(peers, network))
            progress(f"dealing, {players} peers: run {r + 1}/{settings.runs}: set-up "
                     f"{sample.seconds * 1e3:.0f} ms, draw {draw_samples[-1].seconds * 1e3:.1f} ms")
        setups[str(players)] = summarise(setup_samples, costs)
        draws[str(players)] = summarise(draw_samples, costs)
    return setups, draws


# --------------------------------------------------------------------------- 3. audit


def bench_audit(settings: Settings, seed: int) -> dict[str, Any]:
    """Play a complete game through the peers, save it, and audit the file ``audit_runs`` times."""
    rules = RuleSet.parse(list(settings.game_rules))
    with tempfile.TemporaryDirectory(prefix="p2p10-bench-") as tmp:
        path = Path(tmp) / "game.p2p10"
        progress(f"audit: playing a {GAME_PLAYERS}-player game ({rules.describe()}) with greedy bots")
        t0 = time.perf_counter()
        run = play_table([greedy_player] * GAME_PLAYERS, rules, seed=seed, save=path)
        play_s = time.perf_counter() - t0
        check_peers(run.peers, "the played game")
        data = path.read_bytes()
    records = read_records(data).items
    by_kind: Counter[str] = Counter()
    bytes_by_kind: Counter[str] = Counter()
    for raw in records:
        kind = parse_entry(raw).kind
        by_kind[kind] += 1
        bytes_by_kind[kind] += len(raw)
    seconds: list[float] = []
    report = None
    for r in range(settings.audit_runs):
        gc.collect()
        t0 = time.perf_counter()
        report = audit_bytes(data)
        seconds.append(time.perf_counter() - t0)
        progress(f"audit: run {r + 1}/{settings.audit_runs}: {seconds[-1]:.2f} s")
    assert report is not None
    if not report.clean:
        raise BenchFailure(f"the audit of the played game is not clean: {report.verdict()}")
    median = statistics.median(seconds)
    engine = report.table.engine if report.table is not None else None
    return {
        "players": GAME_PLAYERS,
        "rules": rules.describe(),
        "seed": seed,
        "play_s": play_s,
        "hands": len(engine.sheet) if engine is not None else 0,
        "entries": report.entries,
        "bytes": len(data),
        "bytes_per_entry": len(data) / report.entries,
        "kinds": {kind: {"entries": by_kind[kind], "bytes": bytes_by_kind[kind]}
                  for kind in sorted(by_kind, key=lambda k: -bytes_by_kind[k])},
        "runs": len(seconds),
        "median_s": median,
        "min_s": min(seconds),
        "entries_per_sec": report.entries / median,
        "clean": report.clean,
    }


# --------------------------------------------------------------------------- report


def _dealing_table(title: str, figures: dict[str, Any]) -> None:
    print(title)
    print(f"   {'peers':>5} {'runs':>4} {'median ms':>10} {'min ms':>8} {'max ms':>8} "
          f"{'var-base':>9} {'base':>7} {'floor ms':>9} {'x floor':>8} {'sig chk':>8} {'sig ms':>7} "
          f"{'entries':>8} {'bytes':>8}")
    for players, f in figures.items():
        ratio = f"{f['ratio_to_floor']:8.2f}" if f["ratio_to_floor"] is not None else f"{'-':>8}"
        print(f"   {players:>5} {f['runs']:>4} {f['median_ms']:10.1f} {f['min_ms']:8.1f} {f['max_ms']:8.1f} "
              f"{f['mul']:9,} {f['base_mul']:7,} {f['floor_ms']:9.1f} {ratio} "
              f"{f['sig_verify']:8,} {f['sig_verify_ms']:7.1f} {f['entries']:8} {f['log_bytes']:8,}")
        if f["mults_vary"]:
            print(f"   ({players} peers: the multiplication count differed between runs; the last is shown)")


def print_report(result: dict[str, Any]) -> None:
    meta = result["meta"]
    print(f"p2p10 dealing benchmark  (seed {meta['seed']}, {'quick' if meta['quick'] else 'full'} run)")
    print(f"Python {meta['python']} on {meta['platform']}, {meta['cpus']} CPUs")
    print(f"total wall time {meta['wall_s']:.1f} s")
    print()
    c = result["unit_costs"]
    print("0. One scalar multiplication on ristretto255, microseconds (median over batches)")
    print(f"   variable base: {c['raw_mul_us']:.1f} us in libsodium, {c['mul_us']:.1f} us through "
          "group.mul (result validated)")
    print(f"   fixed base:    {c['raw_base_mul_us']:.1f} us in libsodium, {c['base_mul_us']:.1f} us through "
          "group.base_mul")
    print(f"   (for comparison, one Ed25519 signature check: {c['ed25519_verify_us']:.1f} us)")
    print("   floor = (var-base count x libsodium var-base cost) + (base count x libsodium base cost);")
    print("   sig chk = Ed25519 checks of entries by all peers, sig ms = that count x the cost above")
    print()
    _dealing_table("1. Hand set-up, all peers in one process: open_table until every peer has the deal in "
                   "play\n   and has opened its own ten cards (keys + proofs, shuffle round, deal tokens, "
                   "first discard)", result["setup"])
    print()
    _dealing_table("2. A private draw: from the draw move until the drawer knows its card (the other "
                   "seats'\n   tokens written, relayed and verified by every peer)", result["draw"])
    print()
    a = result["audit"]
    print(f"3. Audit of a complete {a['players']}-player game (greedy bots, rules: {a['rules']}, "
          f"seed {a['seed']})")
    print(f"   played through the peers in {a['play_s']:.1f} s wall: {a['hands']} hands, "
          f"{a['entries']:,} entries, {a['bytes']:,} bytes ({a['bytes_per_entry']:,.0f} bytes/entry)")
    kinds = ", ".join(f"{k} {v['entries']} ({v['bytes'] / a['bytes']:.0%} of bytes)"
                      for k, v in a["kinds"].items())
    print(f"   entries by kind: {kinds}")
    print(f"   audit_bytes: median {a['median_s']:.2f} s over {a['runs']} runs (min {a['min_s']:.2f} s), "
          f"{a['entries_per_sec']:,.0f} entries/s; verdict {'CLEAN' if a['clean'] else 'NOT CLEAN'}")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a fast smoke run (a few seconds)")
    parser.add_argument("--seed", type=int, default=2024, help="seed of every table and game (default 2024)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    parser.add_argument("--peers", type=lambda s: tuple(int(x) for x in s.split(",")),
                        help="table sizes for parts 1 and 2, e.g. 2,3,4 (overrides the preset)")
    parser.add_argument("--runs", type=int, help="runs per table size (overrides the preset)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    preset = QUICK if args.quick else FULL
    settings = Settings(
        peers=args.peers or preset.peers,
        runs=max(1, args.runs or preset.runs),
        unit_batches=preset.unit_batches,
        unit_batch_size=preset.unit_batch_size,
        game_rules=preset.game_rules,
        audit_runs=preset.audit_runs,
    )
    started = time.perf_counter()
    count_signature_checks()
    try:
        progress("unit costs of one multiplication")
        costs = bench_unit_costs(settings)
        setup, draw = bench_dealing(settings, args.seed, costs)
        audit = bench_audit(settings, args.seed)
    except BenchFailure as err:
        print(f"[bench] FAILED: {err}", file=sys.stderr)
        return 1
    result = {
        "meta": {
            "seed": args.seed,
            "quick": args.quick,
            "python": platform.python_version(),
            "platform": platform.platform(terse=True),
            "cpus": os.cpu_count(),
            "wall_s": time.perf_counter() - started,
        },
        "unit_costs": costs,
        "setup": setup,
        "draw": draw,
        "audit": audit,
    }
    if args.json:
        print(json.dumps(result, indent=None, sort_keys=False))
    else:
        print_report(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
