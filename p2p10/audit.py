"""Audit a saved game: fold every entry through the same checks the peers ran, offline.

The audit trusts nothing in the file: it checks every signature against the keys in the table
entry, the hash chain, the single writer at each position, every point, scalar and proof, every
shuffle against its revealed seed, every move against the rules, and every hand and score
(:meth:`p2p10.table.TableState.apply`). The first failure is the verdict, pinned on a seat
where the evidence allows.

Every revealed shuffle step is checked when its seed is revealed. A hand voided because the
table went on without a machine (an ``away`` entry) may leave steps whose seeds were never
revealed: nobody can check those, so a complete game with no violation is CLEAN only when there
are none; otherwise the verdict lists them. Every takeover is named: whose seats, at which
entry, and who agreed.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import BinaryIO

from p2p10.engine import HandResult
from p2p10.errors import ProtocolViolation
from p2p10.log import BadEntry, RecordReader, parse_entry
from p2p10.table import Expect, Return, TableState, Takeover, UncheckedStep, fold

CLEAN = 0
"""Exit status of a complete game in which every check passed and every step was checked."""
FAILED = 1
"""Exit status of a violation, or of a log that ends before the game does."""
UNCHECKED = 3
"""Exit status of a complete game with no violation in which some shuffle steps were never
checked (their hands were voided before their seeds were revealed)."""


@dataclass(frozen=True, slots=True)
class AuditReport:
    """The verdict on a log. ``clean`` only for a complete game with no violation in which
    every step was checked."""

    entries: int
    table: TableState | None
    violation: ProtocolViolation | None

    @property
    def complete(self) -> bool:
        """True when the log reaches the end of the game."""
        return self.table is not None and self.table.expected() is None

    @property
    def unchecked(self) -> tuple[UncheckedStep, ...]:
        """The shuffle steps nobody could check: their seeds were never revealed."""
        return self.table.unchecked_steps() if self.table is not None else ()

    @property
    def takeovers(self) -> tuple[Takeover, ...]:
        """Every time the table went on without a machine, in log order."""
        return self.table.takeovers if self.table is not None else ()

    @property
    def returns(self) -> tuple[Return, ...]:
        """Every time a machine the table went on without took its seats back, in log order."""
        return self.table.returns if self.table is not None else ()

    def return_text(self, back: Return) -> str:
        """One return in words: whose seats, at which entry, from which hand."""
        names = self.table.given_names if self.table is not None else ()
        seats = " and ".join(f"{names[s]} (seat {s + 1})" for s in back.seats)
        return (f"at entry {back.seq} {seats} came back, undoing the takeover at entry {back.away}, "
                f"and played again from hand {back.hand + 1}")

    @property
    def clean(self) -> bool:
        """True for a complete game in which every check passed and every step was checked."""
        return self.exit_status == CLEAN

    @property
    def exit_status(self) -> int:
        """``CLEAN`` (0), ``UNCHECKED`` (3) for a complete game with no violation but some
        unchecked steps, else ``FAILED`` (1)."""
        if self.violation is None and self.complete:
            return UNCHECKED if self.unchecked else CLEAN
        return FAILED

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
        steps = self.unchecked
        if not steps:
            return "CLEAN: every signature, shuffle, token, proof, move and score checks out"
        count = f"{len(steps)} SHUFFLE STEP{'S' if len(steps) > 1 else ''}"
        return (f"COMPLETE, NO VIOLATION, {count} UNCHECKED ({unchecked_text(steps)}): their "
                "seeds were never revealed, as their hands were voided when the table went on "
                "without a seat; every other signature, shuffle, token, proof, move and score "
                "checks out")

    def takeover_text(self, takeover: Takeover) -> str:
        """One takeover in words: who was taken over, at which entry, and who agreed."""
        assert self.table is not None
        who = self.table.given_names

        def seat(s: int) -> str:
            return f"{who[s]} (seat {s + 1})"

        gone = " and ".join(seat(s) for s in takeover.seats)
        agreed = " and ".join(seat(s) for s in takeover.agreed_by)
        return (f"at entry {takeover.seq} the table went on without {gone}, agreed by {agreed}; "
                f"{who[takeover.runner]}'s machine plays {'them' if len(takeover.seats) > 1 else 'it'}"
                " from then on")


def unchecked_text(steps: Sequence[UncheckedStep]) -> str:
    """Unchecked steps, by hand and round, numbered as players see them:
    ``hand 2: seats 1, 2 and 3 in round 0``."""
    groups: dict[int, dict[int, list[int]]] = {}
    for step in steps:
        groups.setdefault(step.hand, {}).setdefault(step.round, []).append(step.seat)
    return "; ".join(
        f"hand {hand + 1}: " + ", ".join(
            f"{_seats(seats)} in round {round_no}" for round_no, seats in rounds.items())
        for hand, rounds in groups.items())


def _seats(seats: Sequence[int]) -> str:
    numbers = [str(s + 1) for s in seats]
    if len(numbers) == 1:
        return f"seat {numbers[0]}"
    return f"seats {', '.join(numbers[:-1])} and {numbers[-1]}"


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
