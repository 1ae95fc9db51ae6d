"""How quickly does our core start and work in a phone's page, and how much does a phone fetch?

Prints measurements, never pass/fail; nothing here asserts a time. See benchmarks/README.md.

    python benchmarks/bench_page.py            # 5 runs of each
    python benchmarks/bench_page.py --quick    # 2 runs
    python benchmarks/bench_page.py --json     # one JSON object with every figure on stdout

The page is ``tests/page_core.py``'s harness, served on 127.0.0.1 exactly as a machine at the
table serves a phone its files (:class:`cli.web.phone_files.PhoneFiles`), in Debian's headless
Chromium through /usr/bin/chromedriver.

1. **ready**: a new browser (an empty profile: nothing cached) opens the page and starts the core
   in a Web Worker, as the phone's page does: Pyodide, libsodium and the core's archive fetched,
   ``p2p10.primitives`` imported. Then the same browser reloads the page (its files revalidated
   from its cache: 304s). Seconds from ``driver.get`` to the core ready, median of the runs; the
   bytes the server sent for each (its bodies, not counting headers), and what gzip would make
   of the first visit's files (the server sends them as they are). The same again with the core
   loaded on the page's own thread and the CPU throttled 4x (a worker is not throttled).
2. **work**: a seat's share of a hand's set-up and of checking the others, timed inside the page
   with ``time.perf_counter`` around the core's own functions, under a new context each run (a
   new hand: the proof's generators made anew): its hand key's Schnorr proof; its shuffle of the
   108-card deck with the proof of shuffle; checking one other seat's proof (the verdicts and
   generators the core keeps forgotten first: another seat's proof is new); 10 decryption tokens
   with their Chaum-Pedersen proofs, and checking 10. On the page's main thread
   (``/?main``: DevTools' CPU throttling does not reach a dedicated worker), at 1x and with the CPU
   throttled 4x (``Emulation.setCPUThrottlingRate``: a mid-range phone), median of the runs; the
   same work on CPython in this process beside it, for the ratio.

Without chromium and chromium-driver nothing can be measured: the report says why, exit 0.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.browser import browser_missing, start_chrome
from tests.page_core import Server, ready, run

WORK = """
import json, os, time
from p2p10.crypto import proofs, shuffle_proof
from p2p10.crypto.elgamal import initial_deck, token
from p2p10.crypto.group import Scalar, base_mul
from p2p10.crypto.proofs import prove_equal_logs, prove_knowledge, verify_equal_logs
from p2p10.crypto.shuffle import shuffle_and_prove
from p2p10.crypto.shuffle_proof import verify_shuffle_proof

def timed(work):
    start = time.perf_counter()
    work()
    return time.perf_counter() - start

def forget():  # a proof of another seat is new to this one: no verdict, no generators kept
    for verdicts in (shuffle_proof.VERDICTS, proofs.KNOWLEDGE_VERDICTS, proofs.EQUAL_LOGS_VERDICTS):
        verdicts.clear()
    shuffle_proof.generators.cache_clear()
    shuffle_proof._generator_sum.cache_clear()

secret = Scalar.from_int(424242)
joint = base_mul(Scalar.from_int(20261208))
deck = initial_deck()
context = b"p2p10/bench/" + os.urandom(8)  # a new hand's context: its generators made anew
out = {}
out["key_proof"] = timed(lambda: prove_knowledge(secret, context + b"/key"))
made = {}
seed = os.urandom(32)
out["shuffle_and_prove"] = timed(lambda: made.update(s=shuffle_and_prove(deck, seed, joint, context)))
after, proof = made["s"]
wire = proof.to_bytes()
forget()
verdict = {}
out["verify_shuffle"] = timed(lambda: verdict.update(
    ok=verify_shuffle_proof(deck, after, joint, wire, context)))
assert verdict["ok"]
cards = [c.a for c in after[:10]]
contexts = [context + b"/t%d" % i for i in range(10)]
tokens = {}
out["tokens_10"] = timed(lambda: tokens.update(t=[(token(secret, a), prove_equal_logs(secret, a, c))
                                                  for a, c in zip(cards, contexts)]))
public = base_mul(secret)
forget()
out["verify_tokens_10"] = timed(lambda: verdict.update(ok=all(
    verify_equal_logs(public, a, t.to_bytes(), p.to_bytes(), c)
    for a, (t, p), c in zip(cards, tokens["t"], contexts))))
assert verdict["ok"]
json.dumps(out)
"""

STEPS = ("key_proof", "shuffle_and_prove", "verify_shuffle", "tokens_10", "verify_tokens_10")


def served_bytes(server: Server) -> int:
    """What the server has sent so far (its bodies)."""
    files = server.phone_files
    return files.sent if files is not None else 0


def _visits(server: Server, address: str, rate: int) -> tuple[float, float, int, int, dict[str, float]]:
    """A new browser (nothing cached) opens ``address`` with the CPU throttled ``rate`` times,
    then reloads it: seconds to the core ready, each, the bytes the server sent, each, and (on
    the page's own thread) when each step of the reload's start ended."""
    driver = start_chrome()
    driver.set_script_timeout(300)
    try:
        driver.execute_cdp_cmd("Emulation.setCPUThrottlingRate", {"rate": rate})
        timings = []
        steps = {}
        for go in (lambda: driver.get(address), driver.refresh):
            before = served_bytes(server)
            start = time.perf_counter()
            go()
            loaded = ready(driver)
            assert loaded["ready"], loaded.get("error")
            timings.append((time.perf_counter() - start, served_bytes(server) - before))
            steps = driver.execute_script("return window.coreLoadTimes || {}")
    finally:
        driver.quit()
    (first, first_bytes), (cached, cached_bytes) = timings
    return first, cached, first_bytes, cached_bytes, steps


def part_ready(runs: int) -> dict[str, Any]:
    out: dict[str, Any] = {"runs": runs}
    server = Server()
    try:
        for name, address, rate in (("worker", server.url, 1), ("main_4x", server.url + "?main", 4)):
            visits = [_visits(server, address, rate) for _ in range(runs)]
            out[name] = {"first_visit_s": statistics.median(v[0] for v in visits),
                         "cached_s": statistics.median(v[1] for v in visits),
                         "first_visit_bytes": statistics.median(v[2] for v in visits),
                         "cached_bytes": statistics.median(v[3] for v in visits),
                         "cached_steps_ms": {k: statistics.median(v[4][k] for v in visits)
                                             for k in visits[0][4]}}
        files = server.phone_files
        assert files is not None
        out["files_bytes"] = sum(len(f.body) for f in files.files.values())
        out["files_gzip_bytes"] = sum(len(gzip.compress(f.body, 6)) for f in files.files.values())
    finally:
        server.stop()
    return out


def part_work(runs: int) -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    cpython = [json.loads(_exec_cpython(namespace)) for _ in range(runs)]
    out: dict[str, Any] = {"cpython": {k: statistics.median(r[k] for r in cpython) for k in STEPS}}
    server = Server()
    driver = start_chrome()
    driver.set_script_timeout(600)
    try:
        driver.get(server.url + "?main")
        loaded = ready(driver)
        assert loaded["ready"], loaded.get("error")
        for rate in (1, 4):
            driver.execute_cdp_cmd("Emulation.setCPUThrottlingRate", {"rate": rate})
            results = [run(driver, WORK) for _ in range(runs)]
            out[f"page_{rate}x"] = {k: statistics.median(r[k] for r in results) for k in STEPS}
        driver.execute_cdp_cmd("Emulation.setCPUThrottlingRate", {"rate": 1})
    finally:
        driver.quit()
        server.stop()
    return out


def _exec_cpython(namespace: dict[str, Any]) -> str:
    """The page's work run here (the benchmark's own fixed code), its figures as JSON."""
    exec(WORK, namespace)
    return json.dumps(namespace["out"])


def report(figures: dict[str, Any]) -> None:
    r = figures["ready"]
    print("1. ready (to p2p10.primitives imported), median of", r["runs"], "new browsers each")
    for name, label in (("worker", "in a worker, CPU 1x"), ("main_4x", "on the page's thread, CPU 4x")):
        f = r[name]
        sent, again = f["first_visit_bytes"] / 1e6, f["cached_bytes"] / 1e6
        print(f"   {label:30} first visit {f['first_visit_s']:5.2f} s ({sent:.2f} MB sent),"
              f" from cache {f['cached_s']:5.2f} s ({again:.2f} MB sent: 304s)")
        if f["cached_steps_ms"]:
            steps = ", ".join(f"{k} {v / 1000:.2f} s" for k, v in sorted(f["cached_steps_ms"].items(),
                                                                             key=lambda kv: kv[1]))
            print(f"   {'':30} from cache, each step's end: {steps}")
    print(f"   every file {r['files_bytes'] / 1e6:.2f} MB, {r['files_gzip_bytes'] / 1e6:.2f} MB gzipped")
    w = figures["work"]
    print("2. work, seconds (median): CPython | page 1x | page 4x (CPU throttled) | 4x / CPython")
    for step in STEPS:
        c, one, four = w["cpython"][step], w["page_1x"][step], w["page_4x"][step]
        print(f"   {step:18} {c:8.4f} | {one:8.4f} | {four:8.4f} | {four / c:5.1f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 runs of each")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the report")
    args = parser.parse_args()
    why = browser_missing()
    if why is not None:
        print(f"bench_page: nothing measured: {why}")
        return 0
    runs = 2 if args.quick else 5
    figures = {"ready": part_ready(runs), "work": part_work(runs)}
    if args.json:
        print(json.dumps(figures))
    else:
        report(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
