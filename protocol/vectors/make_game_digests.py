"""Generate ``games_v3.json``: the digests of seeded whole games, a guard for refactoring.

Each game is played through the real peers over the in-memory network (every level of bot,
three to six seats, rule options, and one game over a network that drops, duplicates and
reorders messages, so that the peers' sync and relay run). Everything is seeded and the
network's clock is simulated, so a game's saved ``.p2p10`` file and the messages the peers
sent are the same on every run and every machine. ``tests/test_vectors.py`` replays every
game and compares: a change that should not change behaviour (a file split, a function cut in
two) must leave every digest alone; a change that should (a bot, a rule, the wire) makes this
script run again and the new digests reviewed.

Usage: ``python -m protocol.vectors.make_game_digests`` rewrites the file next to this script.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from pathlib import Path
from typing import Any

from p2p10.bots import POLICIES
from p2p10.rules import RuleSet
from protocol.memory import Faults, play_table

GAME_DIGESTS_PATH = Path(__file__).with_name("games_v3.json")

# (bot levels by seat, seed, rule options, network faults)
GAMES: tuple[tuple[tuple[str, ...], int, tuple[str, ...], Faults], ...] = (
    (("hard", "normal", "easy", "greedy"), 5, ("hands=2", "skip=next"), Faults()),
    (("normal",) * 6, 7, ("hands=1", "phases=even"), Faults()),
    (("hard", "random", "normal"), 3, ("hands=2",), Faults(drop=0.05, duplicate=0.05, reorder=0.1)),
)


def play_one(players: tuple[str, ...], seed: int, rules: tuple[str, ...], faults: Faults) -> dict[str, Any]:
    """Play one game and describe what must not change: its file and the traffic it took."""
    with tempfile.TemporaryDirectory(prefix="p2p10-digests-") as tmp:
        path = Path(tmp) / "game.p2p10"
        run = play_table([POLICIES[level] for level in players], RuleSet.parse(list(rules)),
                         seed=seed, faults=faults, save=path)
        data = path.read_bytes()
    stats = run.network.stats
    return {
        "players": list(players),
        "seed": seed,
        "rules": list(rules),
        "faults": {"drop": faults.drop, "duplicate": faults.duplicate, "reorder": faults.reorder,
                   "max_delay": faults.max_delay},
        "bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
        "messages": {"sent": stats.sent, "delivered": stats.delivered, "dropped": stats.dropped,
                     "duplicated": stats.duplicated, "delayed": stats.delayed, "bytes": stats.bytes},
    }


def build() -> list[dict[str, Any]]:
    """Every game's digest, in the order of :data:`GAMES`."""
    return [play_one(*game) for game in GAMES]


def render(games: list[dict[str, Any]]) -> str:
    """The exact text of the digests file."""
    return json.dumps({"games": games}, indent=1) + "\n"


def main() -> None:
    """Write the file."""
    GAME_DIGESTS_PATH.write_text(render(build()), encoding="utf-8")


if __name__ == "__main__":
    main()
