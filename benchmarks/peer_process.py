"""Run one ``p2p10`` command in this process and note when its table was dealt (for
``bench_dealing.py`` part 4; not a tool of its own).

    python benchmarks/peer_process.py --stamps FILE [--no-proofs] -- host --seats 6 ...
    python benchmarks/peer_process.py --stamps FILE [--no-proofs] -- join 127.0.0.1:PORT ...

Runs ``cli.main.main(COMMAND)`` exactly as ``p2p10 COMMAND`` would (same parser, same code),
with ``p2p10.peer_sync.fold`` (the fold a peer applies every entry with) wrapped to take two
stamps: when the table entry has been applied (the log's first entry: the table is set) and
when the first hand first reaches the stage "play" (the keys, the shuffle round and the deal
tokens all folded, the first discard opened: the hand is dealt). At the second it writes
``FILE`` (JSON): the wall and CPU time between the two (``time.perf_counter``,
``time.process_time``: this process's user + system CPU, every thread), the CPU spent before
the table entry, and both moments as ``time.time()`` for comparing processes. ``--no-proofs``
runs the command inside ``no_proofs.without_proofs()``. The exit status is the command's.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import p2p10.peer_sync
from p2p10.table import TableState


def stamp_the_deal(stamps: Path) -> None:
    """Wrap ``p2p10.peer_sync.fold`` so that it writes ``stamps`` when the first hand is dealt."""
    fold = p2p10.peer_sync.fold
    seen: dict[str, tuple[float, float, float]] = {}

    def stamped(table: TableState | None, entry: Any, **kwargs: Any) -> TableState:
        after = fold(table, entry, **kwargs)
        if table is None:
            seen.setdefault("table", (time.time(), time.perf_counter(), time.process_time()))
        elif ("table" in seen and "dealt" not in seen
              and after.hand is not None and after.hand.stage == "play"):
            seen["dealt"] = now = (time.time(), time.perf_counter(), time.process_time())
            then = seen["table"]
            stamps.write_text(json.dumps({
                "table_time": then[0],
                "dealt_time": now[0],
                "setup_wall_s": now[1] - then[1],
                "setup_cpu_s": now[2] - then[2],
                "cpu_before_table_s": then[2],
                "hand": after.hand.number,
            }))
        return after

    p2p10.peer_sync.fold = stamped  # type: ignore[assignment]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stamps", type=Path, required=True, help="where to write the deal's stamps")
    parser.add_argument("--no-proofs", action="store_true", help="take the proofs of shuffle out")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- and the p2p10 command line")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    stamp_the_deal(args.stamps)
    from cli.main import main as p2p10_main  # after the wrapper: the same module either way

    if not args.no_proofs:
        return p2p10_main(command)
    from no_proofs import without_proofs  # this script's folder is sys.path[0]

    with without_proofs():
        return p2p10_main(command)


if __name__ == "__main__":
    sys.exit(main())
