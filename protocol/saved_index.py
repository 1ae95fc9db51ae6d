"""An index of the saved games in a folder, so that a start screen lists them without folding
their logs.

Whether a saved game is unfinished, and its players, hand and phase, take folding its log
(0.3 to 2.3 s each). Beside the logs (``saved-games.p2p10-index``, mode 0600, written whole
through a ``.part`` file) this machine keeps what it found in each, with how the log was when
it looked: its size, its modification time in nanoseconds and a digest of its last 4 KiB. A log
is appended to whenever the game goes on, so any change moves its size and time; a log put in
another's place shows in its tail. An entry that does not match its log any more is stale, and
folded again; a log that is gone takes its entry with it. Like :mod:`protocol.checkpoint`, it
is a cache: a damaged, foreign or unreadable index is thrown away and rebuilt from the logs,
never an error, and it never decides whether a game can be resumed (the resume checks that).

Saved as msgpack ``["p2p10/index/v1", {log name: [size, mtime_ns, tail digest, found]}]``,
``found`` being ``[names, hand, phase | nil]`` for an unfinished game and nil for a log that is
not one (over, or not readable as a game).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack

from protocol.storage import write_private

INDEX_NAME = "saved-games.p2p10-index"
LABEL = "p2p10/index/v1"
TAIL_BYTES = 4096
MAX_INDEX_BYTES = 4 << 20
"""An index larger than this is not read (each game takes under 200 bytes)."""


@dataclass(frozen=True, slots=True)
class Stamp:
    """How a log file was: its size, its modification time (ns) and a digest of its tail."""

    size: int
    mtime_ns: int
    tail: bytes

    @classmethod
    def of(cls, path: Path) -> Stamp | None:
        """The stamp of the file at ``path`` now; None if it cannot be read."""
        try:
            with open(path, "rb") as file:
                info = os.fstat(file.fileno())
                file.seek(max(0, info.st_size - TAIL_BYTES))
                tail = file.read(TAIL_BYTES)
        except OSError:
            return None
        return cls(info.st_size, info.st_mtime_ns, hashlib.blake2b(tail, digest_size=16).digest())


@dataclass(frozen=True, slots=True)
class Found:
    """An unfinished game, as its log shows it: the players, the hand in play (or the next to
    be dealt, from 1) and the user's phase (None if the user sits that hand out)."""

    names: tuple[str, ...]
    hand: int
    phase: int | None


class SavedIndex:
    """The index of one folder's saved games (see the module docstring)."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / INDEX_NAME
        self._items: dict[str, tuple[Stamp, Found | None]] = _read(self.path)
        self._changed = False

    def lookup(self, log: Path, stamp: Stamp) -> tuple[bool, Found | None]:
        """(True, what was found) if the index has ``log`` as it is now (``stamp``); (False,
        None) if it has not, or only as it was before."""
        item = self._items.get(log.name)
        if item is None or item[0] != stamp:
            return False, None
        return True, item[1]

    def put(self, log: Path, stamp: Stamp, found: Found | None) -> None:
        """Note what ``log`` (as ``stamp`` says it is) holds."""
        if self._items.get(log.name) != (stamp, found):
            self._items[log.name] = (stamp, found)
            self._changed = True

    def keep_only(self, logs: list[Path]) -> None:
        """Forget every log but ``logs`` (the ones in the folder now)."""
        names = {log.name for log in logs}
        for name in [name for name in self._items if name not in names]:
            del self._items[name]
            self._changed = True

    def save(self) -> None:
        """Write the index if it changed (best effort: an index that cannot be written is
        rebuilt next time)."""
        if not self._changed:
            return
        items = {name: [stamp.size, stamp.mtime_ns, stamp.tail,
                        None if found is None else [list(found.names), found.hand, found.phase]]
                 for name, (stamp, found) in self._items.items()}
        try:
            write_private(self.path, msgpack.packb([LABEL, items], use_bin_type=True))
        except OSError:
            return
        self._changed = False


def _read(path: Path) -> dict[str, tuple[Stamp, Found | None]]:
    """The index at ``path``; empty if there is none or it does not read."""
    try:
        if path.stat().st_size > MAX_INDEX_BYTES:
            return {}
        data = path.read_bytes()
        item = msgpack.unpackb(data, raw=False, strict_map_key=True)
    except Exception:  # an index that does not read is rebuilt, whatever broke
        return {}
    if not (isinstance(item, list) and len(item) == 2 and item[0] == LABEL and isinstance(item[1], dict)):
        return {}
    items: dict[str, tuple[Stamp, Found | None]] = {}
    for name, value in item[1].items():
        parsed = _entry(name, value)
        if parsed is None:
            return {}  # one bad entry: the whole file is suspect
        items[name] = parsed
    return items


def _count(value: Any, least: int = 0) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def _entry(name: Any, value: Any) -> tuple[Stamp, Found | None] | None:
    if not (isinstance(name, str) and isinstance(value, list) and len(value) == 4):
        return None
    size, mtime_ns, tail, found = value
    if not (_count(size) and _count(mtime_ns) and isinstance(tail, bytes) and len(tail) == 16):
        return None
    stamp = Stamp(size, mtime_ns, tail)
    if found is None:
        return stamp, None
    if not (isinstance(found, list) and len(found) == 3):
        return None
    names, hand, phase = found
    if not (isinstance(names, list) and names and all(isinstance(n, str) for n in names)
            and _count(hand, 1) and (phase is None or _count(phase, 1))):
        return None
    return stamp, Found(tuple(names), hand, phase)
