"""The LAN games this machine left unfinished, found in its data folder, for ``p2p10 resume``
with no file named (a killed terminal has lost the path it printed).

A LAN seat's files are ``STAMP-TABLE-seatN.p2p10`` with its secrets and roster beside it
(:class:`protocol.storage.SeatFiles`). Of those, a game to resume is the seat a person played
on this machine (not a host's bot, which comes back with its host's seat, nor a seat taken over
for a machine that went away, which comes back with the seat that took it over), in a game
that started and has not ended, and whose table did not freeze (a frozen table's evidence is
kept, and it does not go on). A game against bots (``p2p10 play``) is not a LAN game: it goes on
with ``p2p10 play --resume``.

Whether a game has ended takes folding its whole log (about 0.2 s for three hands on one core;
this machine's checkpoint of it, :mod:`protocol.checkpoint`, spares that where it fits), so
only the :data:`LOOKED_AT` most recently written seats of a person are folded (a game to
resume after a killed terminal is one of the last played), and a game already in the player's
record (:mod:`protocol.record_store`: it ended) is not folded at all. Which seat a log is, and
whether it is a person's, reads from its secrets and the log's first entry alone.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from p2p10.errors import P2P10Error
from p2p10.log import parse_entry, public_bytes
from p2p10.table import fold
from protocol.local import data_dir, fold_unfinished
from protocol.storage import LOG_SUFFIX, SeatFiles, read_log, read_secrets

LOOKED_AT = 10
"""How many of the most recently written seats of a person :func:`unfinished_lan_seats` folds."""


@dataclass(frozen=True, slots=True)
class UnfinishedSeat:
    """A LAN seat to go on with: its log, when it was last written, the players' names, this
    seat (from 0) and the hand in play (or the next to be dealt, from 1)."""

    path: Path
    when: datetime
    names: tuple[str, ...]
    seat: int
    hand: int


def unfinished_lan_seats(folder: Path | None = None, ended: Collection[Path] = ()) -> list[UnfinishedSeat]:
    """The unfinished LAN games of ``folder`` (:func:`protocol.local.data_dir` by default), the
    most recently written first, among the :data:`LOOKED_AT` last seats of a person (see the
    module docstring); the logs ``ended`` (absolute paths: the record's) are known to be over.
    A seat whose files are missing or do not read is left out: ``p2p10 resume FILE`` says what
    is wrong with it."""
    def written(path: Path) -> float:
        try:
            return path.stat().st_mtime
        except OSError:
            return 0.0

    over = {str(path) for path in ended}
    logs = sorted((folder or data_dir()).glob(f"*-seat[0-9]{LOG_SUFFIX}"), key=written, reverse=True)
    found: list[UnfinishedSeat] = []
    folded = 0
    for path in logs:
        own = _own_seat(path)
        if own is None or str(path.absolute()) in over:
            continue
        if folded == LOOKED_AT:
            break
        folded += 1
        if (seat := _unfinished(path, *own)) is not None:
            found.append(seat)
    return found


def _own_seat(path: Path) -> tuple[int, list[bytes]] | None:
    """The seat (from 0) and the records of ``path`` if it is the log of a person's own seat
    (its secrets' key is the one it sat down with, and no other seat runs it) at a table that
    has not frozen; None for any other log, or one whose files do not read."""
    files = SeatFiles(path)
    if (files.local.exists() or files.evidence.exists() or not files.roster.exists()
            or not files.secrets.exists()):
        return None
    try:
        seat, identity, _hands = read_secrets(files.secrets)
        records = read_log(path)
        table = fold(None, parse_entry(records[0])) if records else None
    except (P2P10Error, OSError):
        return None
    if (table is None or not 0 <= seat < table.players
            or table.sit_downs[seat].run_by is not None  # a host's bot
            or table.keys[seat] != public_bytes(identity)):  # a seat taken over, under a new key
        return None
    return seat, records


def _unfinished(path: Path, seat: int, records: list[bytes]) -> UnfinishedSeat | None:
    folded = fold_unfinished(path, lambda: records)
    if folded is None:
        return None
    table, when, hand = folded
    return UnfinishedSeat(path, when, tuple(table.given_names), seat, hand)
