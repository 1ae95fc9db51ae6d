"""Figures for the dealing protocol: the proof of shuffle, hand set-up and private draws between
peers (in one process and in six), and the audit; each measured with proofs and without.

Prints measurements, never pass/fail; nothing here asserts a time. See benchmarks/README.md.

    python benchmarks/bench_dealing.py              # the full run (a few minutes on 2 cores)
    python benchmarks/bench_dealing.py --quick      # a smoke run of well under a minute
    python benchmarks/bench_dealing.py --json       # one JSON object with every figure on stdout

Parts 2, 3 and 5 run every peer in this one process, each doing all its own work (signing,
verifying every entry and proof it receives) through the real ``Peer`` / ``MemoryNetwork`` code
path; the network's latency is virtual, so the wall time is computation alone. Part 4 runs six
``p2p10 host`` / ``p2p10 join`` processes, on 127.0.0.1 only. "Without proofs" is the same
protocol with the proof of shuffle taken out (``no_proofs.without_proofs``). Progress goes to
stderr. The exit status is 1 only if something is wrong with the protocol run itself (a peer
refused an entry, the peers' logs differ, a proof does not verify, a process failed, an audit is
not clean); otherwise 0.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
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
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from no_proofs import without_proofs  # benchmarks/no_proofs.py: this script's folder is sys.path[0]
from processes import BenchFailure, Proc, one_log, reap_all, spawn  # benchmarks/processes.py

from cli.main import main as p2p10_main
from p2p10 import primitives, signing
from p2p10.audit import audit_bytes
from p2p10.crypto import proofs, shuffle, shuffle_proof
from p2p10.crypto.elgamal import Deck, initial_deck
from p2p10.crypto.group import MULTIPLICATIONS, base_mul, mul, random_scalar
from p2p10.crypto.shuffle import apply_shuffle, derive_permutation, derive_rerandomisers, verify_shuffle
from p2p10.crypto.shuffle_proof import ShuffleProof, prove_shuffle, verify_shuffle_proof
from p2p10.events import DrawStock
from p2p10.log import Entry, parse_entry, read_records
from p2p10.peer import Peer
from p2p10.rules import RuleSet
from p2p10.signing import Domain
from p2p10.simulate import greedy_player
from protocol.memory import MemoryNetwork, make_peers, open_table, play_table

BENCH_DIR = Path(__file__).resolve().parent
RUNNER = BENCH_DIR / "peer_process.py"
LOOPBACK = "127.0.0.1"  # part 4: every process listens and dials here, never anywhere else
PROCESS_PEERS = 6
PROCESS_RULES = "hands=1"
CARDS = 108
MAX_VIRTUAL_SECONDS = 600.0  # a set-up or a draw that takes longer than this (virtual) is stuck
GAME_TIMEOUT = 300.0  # s: a game of processes that takes longer is stuck
PORT_TIMEOUT = 30.0  # s: the host process must say where it listens by then
COMMAND_TIMEOUT = 600.0  # s: p2p10 simulate / p2p10 audit as subprocesses
SIMULATE = ("simulate", "--players", "4", "--games", "1", "--crypto", "--seed", "11")
MODES = ("with_proofs", "without_proofs")
MODE_NAMES = {"with_proofs": "with proofs", "without_proofs": "without proofs"}
# The targets of the issue, printed beside the figures (never checked: nothing here fails on time).
TARGET_VERIFY_RATIO = 1.3  # a proof's verification, over the cost of its own multiplications
TARGET_SETUP_6_S = 1.5  # hand set-up of 6 peers in one process, with proofs
TARGET_PEER_CPU_S = 0.6  # CPU per peer per hand set-up, 6 processes, with proofs
TARGET_AUDIT_COMMAND_S = 1.5  # p2p10 audit FILE of a 4-player game, wall
SIGNATURE_CHECKS: Counter[str] = Counter()  # Ed25519 verifications, counted by a wrapper (below)
MEMOS = (shuffle_proof.VERDICTS, shuffle.VERDICTS, proofs.EQUAL_LOGS_VERDICTS, proofs.KNOWLEDGE_VERDICTS)


@dataclass(frozen=True)
class Settings:
    """How much work each part does."""

    peers: tuple[int, ...]
    runs: int
    unit_batches: int
    unit_batch_size: int
    proof_runs: int
    process_runs: int
    game_rules: tuple[str, ...]
    audit_players: tuple[int, ...]
    audit_runs: int
    command_runs: int
    command_rules: tuple[str, ...]


FULL = Settings(peers=(2, 4, 6), runs=5, unit_batches=7, unit_batch_size=300, proof_runs=15,
                process_runs=3, game_rules=(), audit_players=(4, 6), audit_runs=3, command_runs=5,
                command_rules=())
QUICK = Settings(peers=(2, 4), runs=2, unit_batches=3, unit_batch_size=100, proof_runs=2, process_runs=1,
                 game_rules=("hands=1",), audit_players=(4, 6), audit_runs=2, command_runs=2,
                 command_rules=("hands=1",))


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


def clear_memos() -> None:
    """Forget every verdict this process keeps (proofs of shuffle, re-derived steps, token and
    key proofs), so that a run checks what it checks from scratch."""
    for memo in MEMOS:
        memo.clear()


def clear_generators() -> None:
    """Forget the proof generators hashed into the group (cached per context): a peer meets
    each shuffle's context once, so a proof made or checked for it hashes them afresh."""
    shuffle_proof.generators.cache_clear()
    shuffle_proof._generator_sum.cache_clear()


def mode(name: str) -> contextlib.AbstractContextManager[None]:
    """The protocol as it is, or without proofs of shuffle."""
    return without_proofs() if name == "without_proofs" else contextlib.nullcontext()


def check_peers(peers: Sequence[Peer], what: str) -> None:
    """Every peer accepted everything, and all hold the same log."""
    for peer in peers:
        if peer.faults or peer.stopped:
            raise BenchFailure(f"{what}: seat {peer.seat + 1} refused something: {peer.faults[:1]}")
    heads = {(len(p.log), p.log[-1].hash) for p in peers}
    if len(heads) != 1:
        raise BenchFailure(f"{what}: the peers' logs differ")


def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


# --------------------------------------------------------------------------- 0. unit costs


def unit_batches(rng: Callable[[int], bytes], size: int) -> dict[str, Callable[[], None]]:
    """Batches of ``size`` raw libsodium operations on random inputs, keyed by the unit cost
    each measures: variable-base and fixed-base multiplications, additions, validations."""
    raw_s = [random_scalar(rng).to_bytes() for _ in range(size)]
    raw_p = [base_mul(random_scalar(rng)).to_bytes() for _ in range(size)]
    raw_q = raw_p[1:] + raw_p[:1]
    var_raw = primitives.scalarmult  # (libsodium's own functions, as the core calls them)
    base_raw = primitives.scalarmult_base
    add_raw = primitives.point_add
    valid_raw = primitives.is_valid_point

    def raw_mul() -> None:
        for s, p in zip(raw_s, raw_p, strict=True):
            var_raw(s, p)

    def raw_base() -> None:
        for s in raw_s:
            base_raw(s)

    def raw_add() -> None:
        for p, q in zip(raw_p, raw_q, strict=True):
            add_raw(p, q)

    def raw_valid() -> None:
        for p in raw_p:
            valid_raw(p)

    return {"raw_mul_us": raw_mul, "raw_base_mul_us": raw_base, "raw_add_us": raw_add,
            "raw_valid_us": raw_valid}


def bench_unit_costs(settings: Settings) -> dict[str, float]:
    """Microseconds per group operation, median over batches: a scalar multiplication in
    libsodium's own call (``raw_*``, the floor) and through the ``group`` wrapper the protocol
    calls (which also builds a ``Point``); a point addition and a point validation in libsodium;
    and, for comparison, one entry signature's verification (:func:`p2p10.signing.verify`: the
    domain tag, the edge-case checks and Ed25519) of a 300-byte message (about a token entry's
    size)."""
    rng = random.Random(1).randbytes
    size = settings.unit_batch_size
    raw = unit_batches(rng, size)
    scalars = [random_scalar(rng) for _ in range(size)]
    points = [base_mul(random_scalar(rng)) for _ in range(size)]
    signer = Ed25519PrivateKey.from_private_bytes(rng(32))
    verifier = signer.public_key()
    messages = [rng(300) for _ in range(size)]
    signatures = [signing.sign(signer, Domain.ENTRY, m) for m in messages]

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
        **raw, "mul_us": wrapped_mul, "base_mul_us": wrapped_base, "ed25519_verify_us": ed25519_verify,
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


# --------------------------------------------------------------------------- 1. one proof of shuffle


@contextlib.contextmanager
def counting_operations() -> Iterator[Counter[str]]:
    """Count, besides the multiplications, the point additions and subtractions of
    ``shuffle_proof`` (its ``_add`` and ``_sub``) and of ``group.Point`` (``+`` and ``-``, as
    ``rerandomise`` makes them), the point validations (``crypto_core_ristretto255_is_valid_point``,
    as ``Point`` calls it) and the hashes into the group (``crypto_core_ristretto255_from_hash``,
    the generators). For an untimed run: the wrappers cost time."""
    found: Counter[str] = Counter()
    patched = [(shuffle_proof, "_add", "add"), (shuffle_proof, "_sub", "sub"),
               (primitives, "point_add", "point_add"),
               (primitives, "point_sub", "point_add"),
               (primitives, "is_valid_point", "valid"),
               (primitives, "point_from_hash", "from_hash")]
    originals = [getattr(module, name) for module, name, _ in patched]

    def counted(fn: Callable[..., Any], key: str) -> Callable[..., Any]:
        def wrapper(*args: Any) -> Any:
            found[key] += 1
            return fn(*args)
        return wrapper

    MULTIPLICATIONS.clear()
    for (module, name, key), original in zip(patched, originals, strict=True):
        setattr(module, name, counted(original, key))
    try:
        yield found
    finally:
        for (module, name, _), original in zip(patched, originals, strict=True):
            setattr(module, name, original)
        found["mul"] = MULTIPLICATIONS["mul"]
        found["base_mul"] = MULTIPLICATIONS["base_mul"]
        MULTIPLICATIONS.clear()


def operation_figures(seconds: Sequence[float], ops: Counter[str],
                      units: Sequence[dict[str, float]]) -> dict[str, Any]:
    """Median (and spread) of one operation's times, its counts, and what they cost at the raw
    unit costs: the floor (multiplications alone), plus the additions, plus the validations.
    ``units`` holds the unit costs timed in each run, beside that run's operation: each ratio is
    the median over the runs of the run's time over the run's own floor (the floors shown are
    priced at the median unit costs)."""
    adds = ops["add"] + ops["sub"] + ops["point_add"]

    def floors(costs: dict[str, float]) -> tuple[float, float, float]:
        floor = (ops["mul"] * costs["raw_mul_us"] + ops["base_mul"] * costs["raw_base_mul_us"]) / 1e3
        with_adds = floor + adds * costs["raw_add_us"] / 1e3
        return floor, with_adds, with_adds + ops["valid"] * costs["raw_valid_us"] / 1e3

    ms = [s * 1e3 for s in seconds]
    median = statistics.median(ms)
    typical = floors({name: statistics.median(u[name] for u in units) for name in units[0]})
    per_run = [floors(u) for u in units]

    def ratio_of(which: int) -> float | None:
        if not all(f[which] for f in per_run):
            return None
        return statistics.median(t / f[which] for t, f in zip(ms, per_run, strict=True))

    return {
        "runs": len(ms), "median_ms": median, "min_ms": min(ms), "max_ms": max(ms),
        "mul": ops["mul"], "base_mul": ops["base_mul"],
        "adds": ops["add"], "subs": ops["sub"], "point_adds": ops["point_add"], "all_adds": adds,
        "validations": ops["valid"], "from_hash": ops["from_hash"],
        "floor_ms": typical[0], "ratio_to_floor": ratio_of(0),
        "floor_adds_ms": typical[1], "ratio_to_floor_adds": ratio_of(1),
        "floor_adds_checks_ms": typical[2], "ratio_to_floor_adds_checks": ratio_of(2),
    }


@dataclass
class Step:
    """One shuffle step to prove and verify: the deck before, the deck after, the witness."""

    before: Deck
    after: Deck
    seed: bytes
    context: bytes
    permutation: tuple[int, ...]
    rerandomisers: list[int]


def make_step(before: Deck, seed: bytes, joint: Any, context: bytes) -> Step:
    permutation = derive_permutation(seed, len(before), context)
    scalars = derive_rerandomisers(seed, len(before), context)
    after = apply_shuffle(before, seed, joint, context)
    return Step(before, after, seed, context, permutation,
                [int.from_bytes(r.to_bytes(), "little") for r in scalars])


def bench_proof(settings: Settings) -> dict[str, Any]:
    """Figure 1: ``prove_shuffle`` and ``verify_shuffle_proof`` of one 108-card step, alone,
    for a deck shuffled once before and for the first step (from ``initial_deck()``, whose
    ``A`` components are the identity); and the re-derivation of a step from its seed."""
    rng = random.Random(3)
    secret = random_scalar(rng.randbytes)
    joint = base_mul(secret)
    first = make_step(initial_deck(), rng.randbytes(32), joint, b"p2p10/bench/step-0")
    second = make_step(first.after, rng.randbytes(32), joint, b"p2p10/bench/step-1")
    steps = {"shuffled": second, "initial": first}
    proof_bytes = {name: prove_shuffle(s.before, s.after, s.permutation, s.rerandomisers, joint, s.context,
                                       s.seed).to_bytes() for name, s in steps.items()}
    for name in steps:
        if len(proof_bytes[name]) != ShuffleProof.wire_bytes(CARDS):
            raise BenchFailure(f"a proof of {CARDS} cards is {len(proof_bytes[name])} bytes")

    def prove(step: Step) -> None:
        prove_shuffle(step.before, step.after, step.permutation, step.rerandomisers, joint, step.context,
                      step.seed)

    def verify(step: Step, name: str) -> None:
        shuffle_proof.VERDICTS.clear()
        if not verify_shuffle_proof(step.before, step.after, joint, proof_bytes[name], step.context):
            raise BenchFailure(f"the proof of shuffle ({name} deck) does not verify")

    def rederive(secret_known: bool) -> None:
        shuffle.VERDICTS.clear()
        if not verify_shuffle(second.before, second.after, second.seed, joint, second.context,
                              joint_secret=secret if secret_known else None):
            raise BenchFailure("the re-derivation of a shuffle step does not match")

    cases: dict[str, Callable[[], None]] = {}
    for name, step in steps.items():
        cases[f"{name}/prove"] = lambda step=step: prove(step)  # type: ignore[misc]
        cases[f"{name}/verify"] = lambda step=step, name=name: verify(step, name)  # type: ignore[misc]
    cases["rederive/public"] = lambda: rederive(False)
    cases["rederive/secret"] = lambda: rederive(True)
    calibration = unit_batches(rng.randbytes, CARDS)
    operations: dict[str, Counter[str]] = {}
    for name, fn in cases.items():  # counted, untimed (also the warm-up)
        clear_generators()
        with counting_operations() as found:
            fn()
        operations[name] = found
    for fn in calibration.values():
        fn()
    cases.update({f"unit/{name}": fn for name, fn in calibration.items()})
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for r in range(settings.proof_runs):
        for name, fn in cases.items():  # interleaved, so a slow moment hits every case alike
            clear_generators()
            gc.collect()
            t0 = time.perf_counter()
            fn()
            samples[name].append(time.perf_counter() - t0)
        progress(f"proof of shuffle: run {r + 1}/{settings.proof_runs}: verify "
                 f"{samples['shuffled/verify'][-1] * 1e3:.1f} ms, "
                 f"prove {samples['shuffled/prove'][-1] * 1e3:.1f} ms, one var-base multiplication "
                 f"{samples['unit/raw_mul_us'][-1] / CARDS * 1e6:.1f} us")
    clear_generators()
    t0 = time.perf_counter()
    shuffle_proof.generators(b"p2p10/bench/generators", CARDS)
    generators_ms = (time.perf_counter() - t0) * 1e3
    # The floors of this part are priced at unit costs timed in each run, beside its proofs (the
    # same batches as part 0's raw ones, 108 operations each), and each ratio pairs a run's time
    # with that run's floor: the machine's speed drifts, between parts and within one, by more
    # than the ratios this part is about.
    units = [{name: samples[f"unit/{name}"][r] / CARDS * 1e6 for name in calibration}
             for r in range(settings.proof_runs)]
    here = {name: statistics.median(u[name] for u in units) for name in calibration}
    result: dict[str, Any] = {"cards": CARDS, "proof_bytes": ShuffleProof.wire_bytes(CARDS),
                              "deck_bytes": CARDS * 64, "runs": settings.proof_runs,
                              "generators_ms": generators_ms, "unit_costs": here}
    for name in steps:
        result[name] = {op: operation_figures(samples[f"{name}/{op}"], operations[f"{name}/{op}"], units)
                        for op in ("prove", "verify")}
    public = operation_figures(samples["rederive/public"], operations["rederive/public"], units)
    known = operation_figures(samples["rederive/secret"], operations["rederive/secret"], units)
    def paired(top: str, bottom: str) -> float:
        """The median over the runs of one case's time over another's in the same run."""
        return statistics.median(t / b for t, b in zip(samples[top], samples[bottom], strict=True))

    result["rederive"] = {"public": public, "secret": known,
                          "ratio": paired("rederive/public", "rederive/secret"),
                          "proof_over_public": paired("shuffled/verify", "rederive/public")}
    result["target_verify_ratio"] = TARGET_VERIFY_RATIO
    return result


# --------------------------------------------------------------------------- 2 and 3. dealing


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
    clear_memos()
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
    clear_memos()
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
    """Figures 2 and 3: each run sets a table up (timed), then one private draw on it (timed),
    with proofs and then without, on the same seed (the same keys, deal and draw)."""
    for name in MODES:
        progress(f"dealing: warm-up {MODE_NAMES[name]} (2 peers, not recorded)")
        with mode(name):
            private_draw(*set_up(2, seed)[:2])
    setups: dict[str, Any] = {"with_proofs": {}, "without_proofs": {}, "ratio": {},
                              "target_6_peers_s": TARGET_SETUP_6_S}
    draws: dict[str, Any] = {"with_proofs": {}, "without_proofs": {}, "ratio": {}}
    for players in settings.peers:
        setup_samples: dict[str, list[Sample]] = {name: [] for name in MODES}
        draw_samples: dict[str, list[Sample]] = {name: [] for name in MODES}
        for r in range(settings.runs):
            for name in MODES:  # interleaved, so a slow moment hits both alike
                with mode(name):
                    peers, network, sample = set_up(players, seed * 1000 + 100 * players + r)
                    setup_samples[name].append(sample)
                    draw_samples[name].append(private_draw(peers, network))
            progress(f"dealing, {players} peers: run {r + 1}/{settings.runs}: set-up "
                     f"{setup_samples['with_proofs'][-1].seconds * 1e3:.0f} ms with proofs, "
                     f"{setup_samples['without_proofs'][-1].seconds * 1e3:.0f} ms without; draw "
                     f"{draw_samples['with_proofs'][-1].seconds * 1e3:.1f} / "
                     f"{draw_samples['without_proofs'][-1].seconds * 1e3:.1f} ms")
        key = str(players)
        for name in MODES:
            setups[name][key] = summarise(setup_samples[name], costs)
            draws[name][key] = summarise(draw_samples[name], costs)
        for part in (setups, draws):
            part["ratio"][key] = ratio(part["with_proofs"][key]["median_ms"],
                                       part["without_proofs"][key]["median_ms"])
    return setups, draws


# --------------------------------------------------------------------------- processes


def run_command(name: str, args: list[str], folder: Path, env: dict[str, str]) -> Proc:
    """Run one process to its end (killed if anything goes wrong meanwhile)."""
    proc = spawn(name, args, folder, env)
    try:
        reap_all([proc], COMMAND_TIMEOUT, name)
    finally:
        proc.kill()
    return proc


def process_env(folder: Path) -> dict[str, str]:
    """The environment of every process: saves and anything else under the temporary folder."""
    return {**os.environ, "XDG_DATA_HOME": str(folder / "xdg"), "PYTHONUNBUFFERED": "1"}


# --------------------------------------------------------------------------- 4. six processes


def runner(stamps: Path, name: str, *command: str) -> list[str]:
    """``p2p10 COMMAND`` through ``peer_process.py``, which stamps the deal (and, without
    proofs, takes them out)."""
    flags = ["--no-proofs"] if name == "without_proofs" else []
    return [sys.executable, str(RUNNER), "--stamps", str(stamps), *flags, "--", *command]


def play_processes(name: str, number: int, folder: Path, env: dict[str, str]) -> dict[str, Any]:
    """One hands=1 game of six processes on 127.0.0.1: the host, then five joiners once it says
    where it listens; every seat a greedy bot, every process saving its log in its own folder."""
    folder.mkdir(parents=True)
    dirs = [folder / f"seat{i + 1}" for i in range(PROCESS_PEERS)]
    stamps = [folder / f"seat{i + 1}.deal.json" for i in range(PROCESS_PEERS)]
    what = f"six processes {MODE_NAMES[name]}, game {number}"
    procs: list[Proc] = []
    try:
        procs.append(spawn("host", runner(
            stamps[0], name, "host", "--name", "Seat 1", "--autoplay", "greedy",
            "--seats", str(PROCESS_PEERS), "--start-when-full", "--interface", LOOPBACK, "--quiet-network",
            "--save", str(dirs[0]), "-o", PROCESS_RULES), folder, env))
        host = procs[0]
        deadline = time.perf_counter() + PORT_TIMEOUT
        while (found := re.search(r"^listening on 127\.0\.0\.1:(\d+)$", host.text(), re.M)) is None:
            if host.reap() or time.perf_counter() > deadline:
                raise BenchFailure(f"{what}: the host never said where it listens: {host.tail()}")
            time.sleep(0.005)
        port = int(found.group(1))
        for i in range(1, PROCESS_PEERS):
            procs.append(spawn(f"seat{i + 1}", runner(
                stamps[i], name, "join", f"{LOOPBACK}:{port}", "--name", f"Seat {i + 1}", "--autoplay",
                "greedy", "--interface", LOOPBACK, "--save", str(dirs[i])), folder, env))
        reap_all(procs, GAME_TIMEOUT, what)
    finally:
        for proc in procs:
            proc.kill()
    log = one_log(procs, dirs, what)
    clear_memos()
    # A game without proofs has zero bytes for proofs: only an audit by reveals passes it.
    report = audit_bytes(log, every_proof=name == "with_proofs")
    if not report.verdict().startswith("CLEAN"):
        raise BenchFailure(f"{what}: the audit is not clean: {report.verdict()}")
    missing = [i + 1 for i, path in enumerate(stamps) if not path.exists()]
    if missing:
        raise BenchFailure(f"{what}: seats {missing} never noted the deal")
    deals = [json.loads(path.read_text()) for path in stamps]
    if any(d["hand"] != deals[0]["hand"] for d in deals):
        raise BenchFailure(f"{what}: the peers noted the deal of different hands")
    started = procs[0].started
    return {
        "setup_wall_s": max(d["dealt_time"] for d in deals) - deals[0]["table_time"],
        "setup_cpu_s": [d["setup_cpu_s"] for d in deals],
        "setup_own_wall_s": [d["setup_wall_s"] for d in deals],
        "cpu_before_table_s": [d["cpu_before_table_s"] for d in deals],
        "cpu_s": [p.cpu_s for p in procs],
        "max_rss_mb": [p.usage.ru_maxrss / 1024 for p in procs],
        "wall_s": max(p.ended for p in procs if p.ended is not None) - started,
        "entries": report.entries,
        "bytes": len(log),
    }


def summarise_processes(games: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Medians over the games; the per-peer figures pooled over every peer of every game."""
    setup_cpu = [c for g in games for c in g["setup_cpu_s"]]
    cpu = [c for g in games for c in g["cpu_s"]]
    return {
        "games": len(games),
        "setup_wall_s": statistics.median(g["setup_wall_s"] for g in games),
        "setup_wall_min_s": min(g["setup_wall_s"] for g in games),
        "setup_wall_max_s": max(g["setup_wall_s"] for g in games),
        "setup_cpu_median_s": statistics.median(setup_cpu),
        "setup_cpu_max_s": max(setup_cpu),
        "setup_cpu_min_s": min(setup_cpu),
        "setup_cpu_by_seat_s": [statistics.median(g["setup_cpu_s"][i] for g in games)
                                for i in range(PROCESS_PEERS)],
        "cpu_before_table_median_s": statistics.median(c for g in games for c in g["cpu_before_table_s"]),
        "cpu_median_s": statistics.median(cpu),
        "cpu_max_s": max(cpu),
        "cpu_by_seat_s": [statistics.median(g["cpu_s"][i] for g in games) for i in range(PROCESS_PEERS)],
        "max_rss_mb": max(m for g in games for m in g["max_rss_mb"]),
        "wall_s": statistics.median(g["wall_s"] for g in games),
        "entries": statistics.median(g["entries"] for g in games),
        "bytes": statistics.median(g["bytes"] for g in games),
        "runs": list(games),
    }


def bench_processes(settings: Settings, folder: Path) -> dict[str, Any]:
    """Figure 4: ``process_runs`` games of six processes with proofs and as many without,
    interleaved, and the start-up of one such process (``--version`` through the runner)."""
    env = process_env(folder)
    startup = []
    for r in range(settings.process_runs):
        proc = run_command(f"startup{r}", runner(folder / "startup.json", "with_proofs", "--version"),
                           folder, env)
        if proc.code != 0:
            raise BenchFailure(f"p2p10 --version failed: {proc.tail()}")
        startup.append(proc.cpu_s)
    games: dict[str, list[dict[str, Any]]] = {name: [] for name in MODES}
    for r in range(settings.process_runs):
        for name in MODES:
            progress(f"six processes {MODE_NAMES[name]}: game {r + 1}/{settings.process_runs} "
                     f"({PROCESS_RULES})")
            game = play_processes(name, r + 1, folder / f"processes-{name}-{r + 1}", env)
            games[name].append(game)
            cpus = ", ".join(f"{c:.2f}" for c in game["setup_cpu_s"])
            progress(f"six processes {MODE_NAMES[name]}: set-up {game['setup_wall_s']:.2f} s wall, "
                     f"CPU s per peer {cpus}")
    result: dict[str, Any] = {"peers": PROCESS_PEERS, "rules": PROCESS_RULES, "games": settings.process_runs,
                              "startup_cpu_s": statistics.median(startup),
                              "target_setup_cpu_s": TARGET_PEER_CPU_S}
    for name in MODES:
        result[name] = summarise_processes(games[name])
    with_, without = result["with_proofs"], result["without_proofs"]
    result["ratio"] = {key: ratio(with_[key], without[key])
                       for key in ("setup_wall_s", "setup_cpu_median_s", "setup_cpu_max_s", "cpu_median_s",
                                   "cpu_max_s", "wall_s")}
    return result


# --------------------------------------------------------------------------- 5. audit


def play_game(players: int, name: str, settings: Settings, seed: int, folder: Path) -> tuple[bytes, float]:
    """Play a complete game through the peers (in ``name``'s mode) and save it: the file's
    bytes and the wall time of the play."""
    rules = RuleSet.parse(list(settings.game_rules))
    path = folder / f"game-{players}-{name}.p2p10"
    what = f"{players}-player game {MODE_NAMES[name]}"
    progress(f"audit: playing a {what} ({rules.describe()}) with greedy bots")
    clear_memos()
    t0 = time.perf_counter()
    with mode(name):
        run = play_table([greedy_player] * players, rules, seed=seed, save=path)
    play_s = time.perf_counter() - t0
    check_peers(run.peers, f"the played {what}")
    return path.read_bytes(), play_s


def audit_figures(players: int, settings: Settings, seed: int, data: bytes, play_s: float,
                  seconds: Sequence[float], report: Any) -> dict[str, Any]:
    """One game's figures: what the log holds, and its audits' times."""
    records = read_records(data).items
    by_kind: Counter[str] = Counter()
    bytes_by_kind: Counter[str] = Counter()
    for raw in records:
        kind = parse_entry(raw).kind
        by_kind[kind] += 1
        bytes_by_kind[kind] += len(raw)
    median = statistics.median(seconds)
    engine = report.table.engine if report.table is not None else None
    return {
        "players": players,
        "rules": RuleSet.parse(list(settings.game_rules)).describe(),
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
        "max_s": max(seconds),
        "entries_per_sec": report.entries / median,
        "clean": report.clean,
    }


def audit_game(players: int, settings: Settings, seed: int, folder: Path) -> dict[str, Any]:
    """Play a game with proofs and the same game without, then audit each file ``audit_runs``
    times, the two interleaved, every verdict memo cleared before each audit."""
    played = {name: play_game(players, name, settings, seed, folder) for name in MODES}
    seconds: dict[str, list[float]] = {name: [] for name in MODES}
    reports: dict[str, Any] = {}
    for r in range(settings.audit_runs):
        for name in MODES:
            clear_memos()
            gc.collect()
            t0 = time.perf_counter()
            reports[name] = audit_bytes(played[name][0], every_proof=name == "with_proofs")
            seconds[name].append(time.perf_counter() - t0)
            if not reports[name].verdict().startswith("CLEAN"):
                raise BenchFailure(f"the audit of the {players}-player game {MODE_NAMES[name]} is not clean: "
                                   f"{reports[name].verdict()}")
        progress(f"audit, {players}-player game: run {r + 1}/{settings.audit_runs}: "
                 f"{seconds['with_proofs'][-1]:.2f} s with proofs, "
                 f"{seconds['without_proofs'][-1]:.2f} s without")
    figures: dict[str, Any] = {
        name: audit_figures(players, settings, seed, played[name][0], played[name][1], seconds[name],
                            reports[name])
        for name in MODES}
    figures["ratio"] = ratio(figures["with_proofs"]["median_s"], figures["without_proofs"]["median_s"])
    return figures


def audit_command(settings: Settings, folder: Path) -> dict[str, Any]:
    """The whole command: ``p2p10 audit FILE`` as a subprocess (start-up, imports, reading,
    the audit, the report), on the log of ``p2p10 simulate --players 4 --games 1 --crypto
    --seed 11`` (a subprocess), and on the same game played in this process without proofs."""
    env = process_env(folder)
    rules = [arg for option in settings.command_rules for arg in ("-o", option)]
    command = [*SIMULATE, *rules]
    saves = {name: folder / f"simulate-{name}" for name in MODES}
    progress(f"audit command: p2p10 {' '.join(command)} --save DIR (a subprocess)")
    simulate = run_command("simulate", [sys.executable, "-m", "cli", *command, "--save",
                                        str(saves["with_proofs"])], folder, env)
    if simulate.code != 0:
        raise BenchFailure(f"p2p10 simulate failed with status {simulate.code}: {simulate.tail()}")
    progress("audit command: the same game without proofs, in this process (cli.main.main)")
    clear_memos()
    out = io.StringIO()
    t0 = time.perf_counter()
    with without_proofs(), contextlib.redirect_stdout(out):
        status = p2p10_main([*command, "--save", str(saves["without_proofs"])])
    played_without = time.perf_counter() - t0
    if status != 0:
        raise BenchFailure(f"p2p10 simulate without proofs failed with status {status}: "
                           f"{out.getvalue()[-600:]}")
    files = {}
    for name, save in saves.items():
        found = sorted(save.glob("*.p2p10"))
        if len(found) != 1:
            raise BenchFailure(f"p2p10 simulate ({MODE_NAMES[name]}) saved {len(found)} logs, not 1")
        files[name] = found[0]
    walls: dict[str, list[float]] = {name: [] for name in MODES}
    cpus: dict[str, list[float]] = {name: [] for name in MODES}
    for r in range(settings.command_runs):
        for name in MODES:
            by_reveals = [] if name == "with_proofs" else ["--by-reveals"]  # (zero bytes for proofs)
            proc = run_command(f"audit-{name}-{r}",
                               [sys.executable, "-m", "cli", "audit", str(files[name]), *by_reveals],
                               folder, env)
            if proc.code != 0:
                raise BenchFailure(f"p2p10 audit of the game {MODE_NAMES[name]} ended with status "
                                   f"{proc.code}: {proc.tail()}")
            walls[name].append(proc.wall_s)
            cpus[name].append(proc.cpu_s)
        progress(f"audit command: run {r + 1}/{settings.command_runs}: {walls['with_proofs'][-1]:.2f} s with "
                 f"proofs, {walls['without_proofs'][-1]:.2f} s without")
    entries = {name: len(read_records(path.read_bytes()).items) for name, path in files.items()}
    sizes = {name: path.stat().st_size for name, path in files.items()}
    result: dict[str, Any] = {
        "command": f"p2p10 {' '.join(command)} --save DIR",
        "runs": settings.command_runs,
        "entries": entries["with_proofs"],
        "bytes": sizes["with_proofs"],
        "same_size": entries["with_proofs"] == entries["without_proofs"]
        and sizes["with_proofs"] == sizes["without_proofs"],
        "simulate_wall_s": simulate.wall_s,
        "simulate_cpu_s": simulate.cpu_s,
        "played_without_proofs_s": played_without,
        "target_s": TARGET_AUDIT_COMMAND_S,
    }
    for name in MODES:
        result[name] = {"wall_s": statistics.median(walls[name]), "wall_min_s": min(walls[name]),
                        "wall_max_s": max(walls[name]), "cpu_s": statistics.median(cpus[name]),
                        "entries": entries[name], "bytes": sizes[name]}
    result["ratio"] = ratio(result["with_proofs"]["wall_s"], result["without_proofs"]["wall_s"])
    return result


def bench_audit(settings: Settings, seed: int, folder: Path) -> dict[str, Any]:
    """Figure 5: games played with and without proofs, each audited; and the audit command."""
    games: dict[str, Any] = {}
    for players in settings.audit_players:
        games[str(players)] = audit_game(players, settings, seed, folder)
    return {"games": games, "command": audit_command(settings, folder)}


# --------------------------------------------------------------------------- report


def _num(value: float | None, spec: str, width: int) -> str:
    return f"{value:{width}{spec}}" if value is not None else f"{'-':>{width}}"


def _dealing_table(figures: dict[str, Any]) -> None:
    print(f"   {'peers':>5} {'runs':>4} {'median ms':>10} {'min ms':>8} {'max ms':>8} "
          f"{'var-base':>9} {'base':>7} {'floor ms':>9} {'x floor':>8} {'sig chk':>8} {'sig ms':>7} "
          f"{'entries':>8} {'bytes':>9}")
    for players, f in figures.items():
        print(f"   {players:>5} {f['runs']:>4} {f['median_ms']:10.1f} {f['min_ms']:8.1f} {f['max_ms']:8.1f} "
              f"{f['mul']:9,} {f['base_mul']:7,} {f['floor_ms']:9.1f} {_num(f['ratio_to_floor'], '.2f', 8)} "
              f"{f['sig_verify']:8,} {f['sig_verify_ms']:7.1f} {f['entries']:8} {f['log_bytes']:9,}")
        if f["mults_vary"]:
            print(f"   ({players} peers: the multiplication count differed between runs; the last is shown)")


def _side_by_side(part: dict[str, Any]) -> None:
    print(f"   {'peers':>5} {'with proofs ms':>15} {'without proofs ms':>18} {'ratio':>6}")
    for players, r in part["ratio"].items():
        print(f"   {players:>5} {part['with_proofs'][players]['median_ms']:15.1f} "
              f"{part['without_proofs'][players]['median_ms']:18.1f} {_num(r, '.2f', 6)}")


def _proof_rows(p: dict[str, Any]) -> None:
    print(f"   {'':<30} {'median ms':>9} {'min':>6} {'max':>6} {'var-base':>8} {'base':>5} {'adds':>5} "
          f"{'checks':>6} {'floor ms':>8} {'x floor':>7} {'x (floor+adds)':>14}")
    labels = {("shuffled", "prove"): "prove, deck shuffled before",
              ("shuffled", "verify"): "verify, deck shuffled before",
              ("initial", "prove"): "prove, from initial_deck()",
              ("initial", "verify"): "verify, from initial_deck()",
              ("rederive", "public"): "re-derive, public joint key",
              ("rederive", "secret"): "re-derive, joint secret"}
    for (case, op), label in labels.items():
        f = p[case][op]
        print(f"   {label:<30} {f['median_ms']:9.1f} {f['min_ms']:6.1f} {f['max_ms']:6.1f} {f['mul']:8,} "
              f"{f['base_mul']:5,} {f['all_adds']:5,} {f['validations']:6,} {f['floor_ms']:8.1f} "
              f"{_num(f['ratio_to_floor'], '.2f', 7)} {_num(f['ratio_to_floor_adds'], '.2f', 14)}")


def print_report(result: dict[str, Any]) -> None:
    meta = result["meta"]
    print(f"p2p10 dealing benchmark  (seed {meta['seed']}, {'quick' if meta['quick'] else 'full'} run)")
    print(f"Python {meta['python']} on {meta['platform']}, {meta['cpus']} CPUs")
    print(f"total wall time {meta['wall_s']:.1f} s; load average {meta['load_before']:.2f} before, "
          f"{meta['load_after']:.2f} after (anything else running skews every figure)")
    print()
    c = result["unit_costs"]
    print("0. Unit costs on ristretto255, microseconds (median over batches)")
    print(f"   variable-base multiplication: {c['raw_mul_us']:.1f} us in libsodium, {c['mul_us']:.1f} us "
          "through group.mul")
    print(f"   fixed-base multiplication:    {c['raw_base_mul_us']:.1f} us in libsodium, "
          f"{c['base_mul_us']:.1f} us through group.base_mul")
    print(f"   point addition:               {c['raw_add_us']:.2f} us in libsodium "
          "(crypto_core_ristretto255_add)")
    print(f"   point validation:             {c['raw_valid_us']:.2f} us in libsodium "
          "(crypto_core_ristretto255_is_valid_point)")
    print(f"   (for comparison, one Ed25519 signature check: {c['ed25519_verify_us']:.1f} us)")
    print("   floor = (var-base count x libsodium var-base cost) + (base count x libsodium base cost);")
    print("   sig chk = Ed25519 checks of entries by all peers, sig ms = that count x the cost above")
    print()
    p = result["proof"]
    print(f"1. Proof of one {p['cards']}-card shuffle: prove_shuffle alone, verify_shuffle_proof alone "
          "(its memo cleared,\n   the proof as bytes, as the fold gets it), generators hashed afresh each "
          f"time; median over {p['runs']} runs")
    _proof_rows(p)
    print("   adds = point additions and subtractions (shuffle_proof's _add, _sub; Point + and -), "
          "checks = point\n   validations (counted in an untimed run);")
    u = p["unit_costs"]
    print("   x floor = median over the runs of (the run's time / its floor), x (floor+adds) the same with "
          "adds x the\n   addition's cost added to the floor; the unit costs are timed in each run beside "
          "its proofs\n   (batches of 108; medians: var-base "
          f"{u['raw_mul_us']:.1f} us, base {u['raw_base_mul_us']:.1f} us,\n   "
          f"addition {u['raw_add_us']:.2f} us, validation {u['raw_valid_us']:.2f} us); "
          f"the generators alone: {p['generators_ms']:.1f} ms")
    sv, iv = p["shuffled"]["verify"], p["initial"]["verify"]
    print(f"   proof size {p['proof_bytes']:,} bytes (128 x {p['cards']} + 160; the deck itself "
          f"{p['deck_bytes']:,} bytes)")
    print(f"   target: verification within {p['target_verify_ratio']:.1f}x the cost of its own "
          f"multiplication count:\n   here {_num(sv['ratio_to_floor'], '.2f', 0)}x (deck shuffled before), "
          f"{_num(iv['ratio_to_floor'], '.2f', 0)}x (from initial_deck()); with the additions priced in: "
          f"{_num(sv['ratio_to_floor_adds'], '.2f', 0)}x, {_num(iv['ratio_to_floor_adds'], '.2f', 0)}x")
    rd = p["rederive"]
    pub, sec = rd["public"], rd["secret"]
    print("   re-derive = verify_shuffle of the step from a deck shuffled before, from its seed (memo "
          f"cleared):\n   {pub['median_ms']:.1f} ms with the public joint key, {sec['median_ms']:.1f} ms "
          f"with the joint secret: x{_num(rd['ratio'], '.2f', 0)} faster with the secret\n   (about x1.8 "
          f"expected); checking the proof costs x{_num(rd['proof_over_public'], '.1f', 0)} a re-derivation "
          "with the public key")
    print()
    s = result["setup"]
    print("2. Hand set-up, all peers in one process: open_table until every peer has the deal in play\n"
          "   and has opened its own ten cards (keys + proofs, shuffle round, deal tokens, first discard);\n"
          "   verdict memos on (shared by the peers, as in p2p10 play), cleared before each run")
    for name in MODES:
        print(f"   {MODE_NAMES[name]}:")
        _dealing_table(s[name])
    _side_by_side(s)
    six = s["with_proofs"].get("6")
    print(f"   target: 6 peers <= {s['target_6_peers_s']:.1f} s with proofs: "
          + (f"here {six['median_ms'] / 1e3:.2f} s" if six else "not measured in this run"))
    print()
    d = result["draw"]
    print("3. A private draw: from the draw move until the drawer knows its card (the other seats'\n"
          "   tokens written, relayed and verified by every peer), on each table of part 2")
    for name in MODES:
        print(f"   {MODE_NAMES[name]}:")
        _dealing_table(d[name])
    _side_by_side(d)
    print()
    pr = result["processes"]
    w, wo, rt = pr["with_proofs"], pr["without_proofs"], pr["ratio"]
    print(f"4. {pr['peers']} peers in {pr['peers']} processes on 127.0.0.1 (p2p10 host --quiet-network + "
          f"{pr['peers'] - 1} p2p10 join, greedy bots,\n   {pr['rules']}), games each way: {pr['games']}; "
          "set-up = from the table entry applied to the first hand dealt (stage play)")
    print(f"   {'':<48} {'with proofs':>12} {'without':>9} {'ratio':>6}")
    rows = [("set-up wall, table entry to the last peer dealt, s", "setup_wall_s"),
            ("set-up CPU per peer, median over peers, s", "setup_cpu_median_s"),
            ("set-up CPU per peer, max, s", "setup_cpu_max_s"),
            ("whole game CPU per process (wait4), median, s", "cpu_median_s"),
            ("whole game CPU per process (wait4), max, s", "cpu_max_s"),
            ("game wall, spawning the host to the last exit, s", "wall_s")]
    for label, key in rows:
        print(f"   {label:<48} {w[key]:12.2f} {wo[key]:9.2f} {_num(rt[key], '.2f', 6)}")
    print(f"   (a process's start-up alone, the runner with --version: {pr['startup_cpu_s']:.2f} s CPU; "
          f"CPU before the table entry:\n   {w['cpu_before_table_median_s']:.2f} s median; "
          f"{w['entries']:.0f} entries, {w['bytes']:,.0f} bytes; set-up CPU by seat with proofs: "
          + ", ".join(f"{x:.2f}" for x in w["setup_cpu_by_seat_s"]) + ")")
    print(f"   target: <= {pr['target_setup_cpu_s']:.1f} s CPU per peer per hand set-up with proofs: here "
          f"{w['setup_cpu_median_s']:.2f} s median, {w['setup_cpu_max_s']:.2f} s max")
    print()
    a = result["audit"]
    print("5. Audit (audit_bytes, every verdict memo cleared before each run; proofs deferred, revealed "
          "steps re-derived)")
    for players, g in a["games"].items():
        gw, gwo = g["with_proofs"], g["without_proofs"]
        print(f"   {players}-player game (greedy bots, rules: {gw['rules']}, seed {gw['seed']}): "
              f"{gw['hands']} hands, {gw['entries']:,} entries, {gw['bytes']:,} bytes "
              f"({gw['bytes_per_entry']:,.0f} bytes/entry);\n   played through the peers in "
              f"{gw['play_s']:.1f} s with proofs, {gwo['play_s']:.1f} s without")
        kinds = ", ".join(f"{k} {v['entries']} ({v['bytes'] / gw['bytes']:.0%})"
                          for k, v in gw["kinds"].items())
        print(f"   entries by kind (share of bytes): {kinds}")
        print(f"   audit_bytes median over {gw['runs']} runs: {gw['median_s']:.2f} s with proofs "
              f"({gw['entries_per_sec']:,.0f} entries/s), {gwo['median_s']:.2f} s without "
              f"({gwo['entries']:,} entries), ratio {_num(g['ratio'], '.2f', 0)}; "
              f"{'CLEAN' if gw['clean'] and gwo['clean'] else 'NOT CLEAN'}")
    cm = a["command"]
    cw, cwo = cm["with_proofs"], cm["without_proofs"]
    print(f"   p2p10 audit FILE, a subprocess (wall, median of {cm['runs']}), FILE the log of\n"
          f"   {cm['command']} ({cm['entries']:,} entries, {cm['bytes']:,} bytes; "
          f"{'same size' if cm['same_size'] else 'NOT the same size'} without proofs):")
    print(f"   {cw['wall_s']:.2f} s with proofs ({cw['cpu_s']:.2f} s CPU), {cwo['wall_s']:.2f} s without "
          f"({cwo['cpu_s']:.2f} s CPU), ratio {_num(cm['ratio'], '.2f', 0)};\n   target <= "
          f"{cm['target_s']:.1f} s with proofs: here {cw['wall_s']:.2f} s")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a fast smoke run (well under a minute)")
    parser.add_argument("--seed", type=int, default=2024, help="seed of every table and game (default 2024)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    parser.add_argument("--json-file", type=Path, metavar="PATH",
                        help="also write that JSON object to PATH (the report still printed)")
    parser.add_argument("--peers", type=lambda s: tuple(int(x) for x in s.split(",")),
                        help="table sizes for parts 2 and 3, e.g. 2,3,4 (overrides the preset)")
    parser.add_argument("--runs", type=int,
                        help="runs per table size in parts 2 and 3 (overrides the preset)")
    parser.add_argument("--process-runs", type=int, help="games of six processes each way in part 4")
    return parser.parse_args(argv)


def _terminate(signum: int, _frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")  # unwinds through every finally: processes, folders


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    preset = QUICK if args.quick else FULL
    settings = Settings(
        peers=args.peers or preset.peers,
        runs=max(1, args.runs or preset.runs),
        unit_batches=preset.unit_batches,
        unit_batch_size=preset.unit_batch_size,
        proof_runs=preset.proof_runs,
        process_runs=max(1, args.process_runs or preset.process_runs),
        game_rules=preset.game_rules,
        audit_players=preset.audit_players,
        audit_runs=preset.audit_runs,
        command_runs=preset.command_runs,
        command_rules=preset.command_rules,
    )
    signal.signal(signal.SIGTERM, _terminate)
    started = time.perf_counter()
    load = os.getloadavg()
    count_signature_checks()
    try:
        with tempfile.TemporaryDirectory(prefix="p2p10-bench-dealing-") as tmp:
            folder = Path(tmp)
            progress("unit costs")
            costs = bench_unit_costs(settings)
            proof = bench_proof(settings)
            setup, draw = bench_dealing(settings, args.seed, costs)
            processes = bench_processes(settings, folder)
            audit = bench_audit(settings, args.seed, folder)
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
        },
        "unit_costs": costs,
        "proof": proof,
        "setup": setup,
        "draw": draw,
        "processes": processes,
        "audit": audit,
    }
    if args.json_file is not None:
        args.json_file.write_text(json.dumps(result, indent=None, sort_keys=False) + "\n")
    if args.json:
        print(json.dumps(result, indent=None, sort_keys=False))
    else:
        print_report(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
