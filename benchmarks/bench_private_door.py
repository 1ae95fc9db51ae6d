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
"""

from __future__ import annotations

import argparse
import json
import math

from protocol.private import GuessLimiter

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=float, default=0.1, help="seconds between a stranger "
                        "address's attempts (default 0.1)")
    parser.add_argument("--sources", type=int, nargs="*", default=[1, 2, 3, 10, 50],
                        help="stranger address counts to run (default 1 2 3 10 50)")
    parser.add_argument("--quick", action="store_true", help="only 1 and 50 addresses")
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args()
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
