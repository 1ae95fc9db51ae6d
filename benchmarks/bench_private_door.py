"""How long an honest guest waits to sit down at a private table while strangers try its code
as fast as the host lets them (attack A54), in virtual time through the host's own
:class:`~protocol.private.GuessLimiter` (the lobby asks it exactly so: ``begin`` when a
``pake`` arrives, ``failed`` when the attempt ends without the code, ``succeeded`` when right).

Each stranger address asks every ``--every`` seconds whatever it is told (its maximum rate:
refusals cost it nothing but a connection), and hangs up after its message each time it is let
in. The honest guest arrives once the strangers have run for ten minutes, dials, and dials again
when told ("try again in N s", as ``p2p10 join`` does). Printed: for 1 and for 50 stranger
addresses (and ``--sources`` more), the guest's wait and the attempts the strangers made a
minute. Figures, not pass/fail.

``--sockets N`` runs the same on real sockets instead, on loopback, with time scaled down ten
times (window 6 s, backoff cap 6 s, come back within 2 s, grace 1 s): a private host on
127.0.0.1, ``N`` strangers from 127.0.0.2, 127.0.0.3, ... each dialling, sending one ``pake`` and
hanging up (a try every 0.1 s), and after 30 s an honest ``Joiner`` with the right code from
127.0.0.1, which dials again when told; printed: how long it took to sit down (and that times
ten, the full-scale figure).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import tempfile
import time
from pathlib import Path

import aiohttp
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p10.rules import RuleSet
from protocol.lan_host import Host
from protocol.lan_join import Joiner
from protocol.lobby import LOBBY_PATH
from protocol.lobby_messages import pack, unpack
from protocol.mesh import url_for
from protocol.private import CodeProof, GuessLimiter, binding_of, new_code
from protocol.tls import client_context

STEP = 0.05


def guest_wait(strangers: int, every: float, warm_up: float = 600.0) -> dict[str, float]:
    """Run ``strangers`` addresses against one limiter; the guest's wait in seconds and the
    strangers' attempts a minute over the run."""
    limiter = GuessLimiter()
    sources = [f"10.0.{i // 250}.{i % 250 + 1}" for i in range(strangers)]
    next_ask = dict.fromkeys(sources, 0.0)
    guest, arrived, guest_next = "192.168.9.9", warm_up, warm_up
    attempts = 0
    tick = 0
    while True:
        now = tick * STEP
        tick += 1
        for source in sources:
            if next_ask[source] <= now + 1e-9:
                if limiter.begin(source, now) == 0:
                    attempts += 1
                    limiter.failed(source, now)  # hung up after its message
                next_ask[source] = now + every
        if now + 1e-9 >= guest_next:
            wait = limiter.begin(guest, now)
            if wait == 0:
                limiter.succeeded(guest)
                return {"strangers": strangers, "guest_wait_s": round(now - arrived, 2),
                        "stranger_attempts_a_minute": round(attempts / now * 60, 2)}
            guest_next = now + math.ceil(wait)  # the wire says whole seconds


async def _stranger(port: int, source: str, stop: asyncio.Event, answers: dict[str, int]) -> None:
    identity = Ed25519PrivateKey.generate()
    key = identity.public_key().public_bytes_raw()
    connector = aiohttp.TCPConnector(local_addr=(source, 0), force_close=True)
    async with aiohttp.ClientSession(connector=connector) as session:
        while not stop.is_set():
            try:
                message = CodeProof(new_code(), "guest", binding_of(bytes(32), key)).message()
                socket = await session.ws_connect(url_for("127.0.0.1", port, LOBBY_PATH),
                                                  ssl=client_context(identity))
                await socket.send_bytes(pack(["pake", message]))
                answer = unpack((await asyncio.wait_for(socket.receive(), 10)).data)[0]
                await socket.close()  # hangs up, whatever the answer
            except (aiohttp.ClientError, OSError, TimeoutError, IndexError, TypeError):
                answer = "error"
            answers[answer] = answers.get(answer, 0) + 1
            await asyncio.sleep(0.1)


async def on_sockets(strangers: int) -> dict[str, object]:
    """The guest's wait on real sockets, time scaled down ten times (see the module)."""
    folder = Path(tempfile.mkdtemp(prefix="p2p10-door-"))
    said: list[str] = []
    code = new_code()
    host = Host("Ann", 2, RuleSet.parse(["hands=1"]), "greedy", "127.0.0.1", save_dir=folder / "ann",
                say=said.append, advertised=False, code=code)
    host.gate.limiter = GuessLimiter(base=0.1, cap=6, global_window=6, idle=60, poll=2, grace=1)
    hosting = asyncio.ensure_future(host.run())
    while not said:
        await asyncio.sleep(0.01)
    port = int(said[0].rpartition(":")[2])
    stop, answers = asyncio.Event(), {}
    flood = [asyncio.ensure_future(_stranger(port, f"127.0.0.{2 + i}", stop, answers))
             for i in range(strangers)]
    await asyncio.sleep(30)
    started = time.monotonic()
    told: list[str] = []
    guest = Joiner(f"127.0.0.1:{port}", "Bob", "greedy", "127.0.0.1", folder / "bob", say=told.append,
                   code=code)
    joining = asyncio.ensure_future(guest.run())
    while len(host.roster) < 2 and not joining.done():
        await asyncio.sleep(0.05)
    waited = time.monotonic() - started
    stop.set()
    await asyncio.gather(hosting, joining, *flood, return_exceptions=True)
    with contextlib.suppress(Exception):
        joining.result()
    return {"strangers": strangers, "guest_wait_s_scaled": round(waited, 1),
            "guest_wait_s_full_scale": round(waited * 10), "guest_dialled_again":
            sum("dialling again" in line for line in told), "stranger_answers": answers}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=float, default=0.1, help="seconds between a stranger "
                        "address's attempts (default 0.1)")
    parser.add_argument("--sources", type=int, nargs="*", default=[1, 2, 3, 10, 50],
                        help="stranger address counts to run (default 1 2 3 10 50)")
    parser.add_argument("--quick", action="store_true", help="only 1 and 50 addresses")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument("--sockets", type=int, metavar="N", help="run N strangers on real "
                        "sockets (127.0.0.2 on), time scaled down ten times")
    args = parser.parse_args()
    if args.sockets:
        print(json.dumps(asyncio.run(on_sockets(args.sockets))))
        return
    counts = [1, 50] if args.quick else args.sources
    rows = [guest_wait(n, args.every) for n in counts]
    if args.json:
        print(json.dumps({"every_s": args.every, "runs": rows}))
        return
    print(f"strangers ask every {args.every:g} s per address; the guest arrives at 10 min")
    for row in rows:
        print(f"{row['strangers']:>4} addresses: guest waits {row['guest_wait_s']:>7.1f} s; "
              f"strangers' attempts {row['stranger_attempts_a_minute']:.2f} a minute")


if __name__ == "__main__":
    main()
