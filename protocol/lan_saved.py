"""The LAN games this machine left unfinished, found in its data folder, for ``p2p10 resume``
with no file named (a killed terminal has lost the path it printed).

A LAN seat's files are ``STAMP-TABLE-seatN.p2p10`` with its secrets and roster beside it
(:class:`protocol.storage.SeatFiles`). Of those, a game to resume is the seat a person played
on this machine (not a host's bot, which comes back with its host's seat, nor a seat taken over
for a machine that went away, which comes back with the seat that took it over), in a game
that started and has not ended, and whose table did not freeze (a frozen table's evidence is
kept, and it does not go on). A game against bots (``p2p10 play``) is not a LAN game: it goes on
with ``p2p10 play --resume``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from p2p10.errors import P2P10Error
from p2p10.log import parse_entry, public_bytes
from p2p10.table import TableState, fold
from protocol.local import data_dir
from protocol.storage import LOG_SUFFIX, SeatFiles, read_log, read_secrets


@dataclass(frozen=True, slots=True)
class UnfinishedSeat:
    """A LAN seat to go on with: its log, when it was last written, the players' names, this
    seat (from 0) and the hand in play (or the next to be dealt, from 1)."""

    path: Path
    when: datetime
    names: tuple[str, ...]
    seat: int
    hand: int


def unfinished_lan_seats(folder: Path | None = None) -> list[UnfinishedSeat]:
    """The unfinished LAN games of ``folder`` (:func:`protocol.local.data_dir` by default), the
    most recently written first (see the module docstring for which seats count). A seat whose
    files are missing or do not read is left out: ``p2p10 resume FILE`` says what is wrong."""
    def written(path: Path) -> float:
        try:
            return path.stat().st_mtime
        except OSError:
            return 0.0

    logs = sorted((folder or data_dir()).glob(f"*-seat[0-9]{LOG_SUFFIX}"), key=written, reverse=True)
    return [seat for path in logs if (seat := _unfinished(path)) is not None]


def _unfinished(path: Path) -> UnfinishedSeat | None:
    files = SeatFiles(path)
    if (files.local.exists() or files.evidence.exists() or not files.roster.exists()
            or not files.secrets.exists()):
        return None
    try:
        seat, identity, _hands = read_secrets(files.secrets)
        table: TableState | None = None
        for raw in read_log(path):
            table = fold(table, parse_entry(raw), postpone=True)  # the hands' checks never made
        when = datetime.fromtimestamp(path.stat().st_mtime)
    except (P2P10Error, OSError):
        return None
    if (table is None or table.expected() is None or not 0 <= seat < table.players
            or table.sit_downs[seat].run_by is not None  # a host's bot
            or table.keys[seat] != public_bytes(identity)):  # a seat taken over, under a new key
        return None
    hand = table.hand.number + 1 if table.hand is not None else table.hands_started + 1
    return UnfinishedSeat(path, when, tuple(table.given_names), seat, hand)
