"""Audit a saved game: fold every entry through the same checks the peers ran, offline.

The audit trusts nothing in the file: it checks every signature against the keys in the table
entry, the hash chain, the single writer at each position, every point, scalar and proof, every
shuffle against its revealed seed, every move against the rules, and every hand and score
(:meth:`p2p10.table.TableState.apply`). The first failure is the verdict, pinned on a seat
where the evidence allows.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import BinaryIO

from p2p10.engine import HandResult
from p2p10.errors import ProtocolViolation
from p2p10.log import BadEntry, RecordReader, parse_entry
from p2p10.table import Expect, TableState, fold


@dataclass(frozen=True, slots=True)
class AuditReport:
    """The verdict on a log. ``clean`` only for a complete game with no violation."""

    entries: int
    table: TableState | None
    violation: ProtocolViolation | None

    @property
    def complete(self) -> bool:
        """True when the log reaches the end of the game."""
        return self.table is not None and self.table.expected() is None

    @property
    def clean(self) -> bool:
        """True for a complete game in which every check passed."""
        return self.violation is None and self.complete

    @property
    def waiting_for(self) -> Expect | None:
        """For a log that stops early: who was to write next."""
        return self.table.expected() if self.table is not None and self.violation is None else None

    @property
    def sheet(self) -> tuple[HandResult, ...]:
        """The score sheet of the hands that were checked."""
        return self.table.engine.sheet if self.table is not None else ()

    def verdict(self) -> str:
        """One line for a person."""
        if self.violation is not None:
            return f"VIOLATION: {self.violation}"
        if self.table is None:
            return "VIOLATION: the log is empty"
        expect = self.table.expected()
        if expect is not None:
            return (f"INCOMPLETE: the log ends after entry {self.entries - 1}; "
                    f"{self.table.name(expect.seat)} was to write {expect.what}")
        return "CLEAN: every signature, shuffle, token, proof, move and score checks out"


def audit_records(records: Iterable[bytes], torn: int = 0, table: TableState | None = None,
                  first: int = 0) -> AuditReport:
    """Fold raw entries (as stored) and report the first problem. ``table`` and ``first``
    resume an audit from the state after the first ``first`` entries."""
    return _audit(records, lambda: torn, table, first)


def _audit(records: Iterable[bytes], torn: Callable[[], int], table: TableState | None,
           first: int) -> AuditReport:
    # ``torn`` is asked only once every record has been read: a streamed file knows it then.
    end = first
    for index, raw in enumerate(records, first):
        end = index + 1
        try:
            entry = parse_entry(raw)
            if entry.seq != index:
                raise ProtocolViolation(None, index, f"entry {index} of the file says it is entry "
                                        f"{entry.seq} (a replayed, dropped or reordered entry)")
            table = fold(table, entry)
        except BadEntry as err:
            return AuditReport(index, table, ProtocolViolation(None, index, f"a malformed entry: {err}"))
        except ProtocolViolation as err:
            return AuditReport(index, table, err)
    cut = torn()
    if cut:
        return AuditReport(end, table, ProtocolViolation(
            None, end, f"entry {end} is cut short or damaged: the last {cut} bytes of "
            "the file are not a whole entry"))
    return AuditReport(end, table, None)


def audit_stream(stream: BinaryIO) -> AuditReport:
    """Audit a ``.p2p10`` file read record by record from ``stream`` (memory stays near the
    size of the largest entry plus the fold's state); raises :class:`p2p10.log.NotALog` if it
    is not a log."""
    reader = RecordReader(stream)
    return _audit(reader, lambda: reader.torn, None, 0)


def audit_bytes(data: bytes) -> AuditReport:
    """Audit a whole ``.p2p10`` file's bytes; raises :class:`p2p10.log.NotALog` if it is not one."""
    return audit_stream(io.BytesIO(data))
