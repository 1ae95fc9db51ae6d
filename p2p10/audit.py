"""Audit a saved game: fold every entry through the same checks the peers ran, offline.

The audit trusts nothing in the file: it checks every signature against the keys in the table
entry, the hash chain, the single writer at each position, every point, scalar and proof, every
shuffle against its revealed seed, every move against the rules, and every hand and score
(:meth:`p2p10.table.TableState.apply`). The first failure is the verdict: a VIOLATION, pinned
on a seat where the evidence allows, or, for bytes that are not a whole, well-formed entry (a
file cut short, a changed byte in an envelope), DAMAGED, which blames nobody.

It checks every proof, as the peers did on arrival (``every_proof``, the default): every proof
of shuffle and every token's proof, then each revealed shuffle against its seed, so that a false
proof of a right shuffle is found, and blamed at the entry and seat the peers froze on (attack
A61). The proofs are checked in the hands' order, in a pool of processes with ``--jobs``
(``TableState.defer_proofs``, :mod:`p2p10.deferred`). An audit *by reveals*
(``every_proof=False``, ``p2p10 audit --by-reveals``) settles a revealed step by re-deriving it
from its seed and a token by ``x·A``, and checks through its proof only what no reveal reaches:
faster, but a false proof of a right step passes, and its verdict line says so (``CLEAN BY
REVEALS``), never ``CLEAN`` alone. Every takeover is named: whose seats, at which
entry, and who agreed.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from typing import BinaryIO

from p2p10 import deferred
from p2p10.errors import ProtocolViolation
from p2p10.game_fields import HandResult
from p2p10.hand_crypto import Expect
from p2p10.log import BadEntry, RecordReader, parse_entry
from p2p10.table import TableState, fold
from p2p10.table_reading import Return, Takeover

CLEAN = 0
"""Exit status of a complete game in which every check passed."""
FAILED = 1
"""Exit status of a violation, of a damaged file, or of a log that ends before the game does."""


@dataclass(frozen=True, slots=True)
class Damage:
    """Bytes of the file, from entry ``seq`` on, that are not a whole, well-formed entry: a
    write cut short, a copy cut off, a changed byte. Nobody's signed word, so nobody is blamed.
    ``reason`` names the entry (once)."""

    seq: int
    reason: str


@dataclass(frozen=True, slots=True)
class AuditReport:
    """The verdict on a log. ``clean`` only for a complete game with no violation and no
    damage; at most one of ``violation`` and ``damage`` is set (the first failure)."""

    entries: int
    table: TableState | None
    violation: ProtocolViolation | None
    damage: Damage | None = None

    @property
    def complete(self) -> bool:
        """True when the log reaches the end of the game."""
        return self.table is not None and self.table.expected() is None

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
        """True for a complete game in which every check passed."""
        return self.exit_status == CLEAN

    @property
    def exit_status(self) -> int:
        """``CLEAN`` (0) for a complete game with no violation and no damage, else ``FAILED`` (1)."""
        return CLEAN if self.violation is None and self.damage is None and self.complete else FAILED

    @property
    def every_proof(self) -> bool:
        """True if every proof of shuffle and every token's proof was checked, as the peers
        check them on arrival (the audit's default); False for an audit by reveals, which
        settles a revealed step by its seed alone."""
        table = self.table
        return table is None or table.every_proof or not table.defer_proofs  # (a peer's fold)

    @property
    def waiting_for(self) -> Expect | None:
        """For a log that stops early: who was to write next."""
        if self.table is None or self.violation is not None or self.damage is not None:
            return None
        return self.table.expected()

    @property
    def sheet(self) -> tuple[HandResult, ...]:
        """The score sheet of the hands that were checked."""
        return self.table.engine.sheet if self.table is not None else ()

    def verdict(self) -> str:
        """One line for a person."""
        if self.violation is not None:
            return f"VIOLATION: {self.violation}"
        if self.damage is not None:
            return f"DAMAGED: {self.damage.reason}"
        if self.table is None:
            return "INCOMPLETE: the log is empty: it holds no entry, not even the table entry"
        expect = self.table.expected()
        if expect is not None:
            return (f"INCOMPLETE: the log ends after entry {self.entries - 1}; "
                    f"{self.table.name(expect.seat)} was to write {expect.what}")
        if not self.every_proof:
            return ("CLEAN BY REVEALS: every signature, move and score checks out, and every "
                    "revealed shuffle and token matches its seed or secret; the proofs of revealed "
                    "steps were not checked (audit without --by-reveals to check them)")
        return "CLEAN: every signature, shuffle, token, proof, move and score checks out"

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


def audit_records(records: Iterable[bytes], torn: int = 0, table: TableState | None = None,
                  first: int = 0, every_proof: bool = True) -> AuditReport:
    """Fold raw entries (as stored) and report the first problem. ``table`` and ``first``
    resume an audit from the state after the first ``first`` entries (and its way of checking).
    ``every_proof``: check every proof, as the peers did (False: by reveals, see
    :class:`~p2p10.table.TableState`)."""
    return _audit(records, lambda: torn, table, first, every_proof=every_proof)


BATCH = 4
"""Checks sent to a pool process at a time (:class:`_Postponed`)."""


class _Postponed:
    """Each hand's checks, made in a pool of processes while the fold goes on (``postpone``)."""

    def __init__(self, pool: Executor) -> None:
        self.pool = pool
        self.futures: list[Future[list[deferred.Found]]] = []
        self.last: tuple[deferred.Job, ...] = ()

    def offer(self, table: TableState) -> None:
        """Send the checks of the hand the last entry finished, if it finished one."""
        if table.postponed is not self.last:
            self.last = table.postponed
            # In small batches, so that every process of the pool takes a share of one hand's
            # proofs (a hand's proofs are most of an audit's work; the fold is cheap).
            for start in range(0, len(self.last), BATCH):
                self.futures.append(self.pool.submit(deferred.run_all, self.last[start:start + BATCH]))

    def passed(self) -> bool:
        """Whether every check sent passed (waiting for them)."""
        return all(not future.result() for future in self.futures)


def _step(table: TableState | None, index: int, raw: bytes, *, defer_proofs: bool = False,
          postpone: bool = False, every_proof: bool = False) -> TableState | Damage:
    """The state after the record at position ``index``, checked as the audit checks it, or
    the :class:`Damage` of bytes that are no entry; raises :class:`ProtocolViolation`."""
    try:
        entry = parse_entry(raw)
    except BadEntry as err:
        return Damage(index, f"entry {index} is not a well-formed entry: {err}")
    if entry.seq != index:
        raise ProtocolViolation(None, index, f"the file has entry {entry.seq} in this place "
                                "(a replayed, dropped or reordered entry)")
    return fold(table, entry, defer_proofs=defer_proofs, postpone=postpone, every_proof=every_proof)


def _audit(records: Iterable[bytes], torn: Callable[[], int], table: TableState | None,
           first: int, postponed: _Postponed | None = None, *, every_proof: bool = True) -> AuditReport:
    # ``torn`` is asked only once every record has been read: a streamed file knows it then.
    end = first
    for index, raw in enumerate(records, first):
        end = index + 1
        try:
            after = _step(table, index, raw, defer_proofs=True, postpone=postponed is not None,
                          every_proof=every_proof)
        except ProtocolViolation as err:
            return _stopped(index, table, err)
        if isinstance(after, Damage):
            return _stopped(index, table, after)
        table = after
        if postponed is not None:
            postponed.offer(table)
    cut = torn()
    if cut:
        return _stopped(end, table, Damage(
            end, f"the file ends in the middle of entry {end}: its last {cut} bytes are not a whole "
            "entry (a write cut short, or a damaged length)"))
    return _stopped(end, table, None)


def _stopped(entries: int, table: TableState | None,
             failure: ProtocolViolation | Damage | None) -> AuditReport:
    """The report on a log that stops after ``entries`` entries, at ``failure`` or at its end.
    The fold put the checks of the hand under way off to its reveals, which now never come:
    they are made here, and a failed one is the verdict, as it was for the peers that checked
    its proof on arrival and stopped there (before any later violation)."""
    if table is not None:
        try:
            # Proofs a peer would have checked before it reached the entry that broke.
            table.check_deferred(None if failure is None else entries)
        except ProtocolViolation as err:
            return AuditReport(entries, table, err)
    if isinstance(failure, Damage):
        return AuditReport(entries, table, None, failure)
    return AuditReport(entries, table, failure)


def audit_stream(stream: BinaryIO, pool: Executor | None = None, every_proof: bool = True) -> AuditReport:
    """Audit a ``.p2p10`` file read record by record from ``stream`` (memory stays near the
    size of the largest entry plus the fold's state); raises :class:`p2p10.log.NotALog` if it
    is not a log.

    With a ``pool`` of processes (and a stream that can be read again), each hand's checks are
    made in the pool while the fold goes on, as if they passed. If they all pass, that is the
    report; if one fails, the file is folded again, each hand checked at its end, so that the
    report is exactly the one without a pool. ``every_proof``: as for :func:`audit_records`."""
    start = stream.tell() if pool is not None and stream.seekable() else None
    reader = RecordReader(stream)
    if pool is None or start is None:
        return _audit(reader, lambda: reader.torn, None, 0, every_proof=every_proof)
    postponed = _Postponed(pool)
    report = _audit(reader, lambda: reader.torn, None, 0, postponed, every_proof=every_proof)
    if postponed.passed():
        return report
    stream.seek(start)
    reader = RecordReader(stream)
    return _audit(reader, lambda: reader.torn, None, 0, every_proof=every_proof)


def audit_bytes(data: bytes, pool: Executor | None = None, every_proof: bool = True) -> AuditReport:
    """Audit a whole ``.p2p10`` file's bytes; raises :class:`p2p10.log.NotALog` if it is not
    one. ``pool`` and ``every_proof``: as for :func:`audit_stream`."""
    return audit_stream(io.BytesIO(data), pool, every_proof)


class LiveAudit:
    """The audit of a log that arrives one entry at a time (a spectator's): each entry is
    checked as it comes, exactly as a peer checks it (every proof on arrival), and the first
    failure freezes the audit, as it freezes a peer. :meth:`report` is then the same verdict
    :func:`audit_records` gives the entries so far.

    A spectator hears the log from one peer; what that peer says about a violation it saw (its
    signed evidence) is checked too (:meth:`evidence`), never taken on its word."""

    def __init__(self) -> None:
        self.records: list[bytes] = []
        self.table: TableState | None = None
        self.failure: ProtocolViolation | Damage | None = None

    @property
    def stopped(self) -> bool:
        """True once an entry failed: nothing more is taken."""
        return self.failure is not None

    def add(self, raw: bytes) -> ProtocolViolation | Damage | None:
        """Check the next entry; the failure it caused (and freezes on), or None."""
        if self.failure is not None:
            return self.failure
        after: TableState | Damage | ProtocolViolation
        try:
            after = _step(self.table, len(self.records), raw)  # every proof on arrival, as a peer
        except ProtocolViolation as err:
            after = err
        if not isinstance(after, TableState):
            self.failure = after
            return after
        self.table = after
        self.records.append(raw)
        return None

    def cut(self, length: int) -> None:
        """The peer cut its log back to ``length`` entries (the others went on without its
        machine): fold again from the start. Never past a failure already seen."""
        if self.failure is not None or length >= len(self.records):
            return
        kept = self.records[:length]
        self.records, self.table = [], None
        for raw in kept:
            self.add(raw)

    def evidence(self, envelopes: Iterable[bytes]) -> ProtocolViolation | None:
        """The violation that the peer's signed ``envelopes`` prove, checked here: two entries
        signed by one author for one position (an equivocation), or an entry that breaks the
        rules at the end of this log. None if they prove nothing (the peer's word alone)."""
        if self.table is None or self.failure is not None:
            return None
        entries = []
        for raw in envelopes:
            try:
                entries.append(parse_entry(raw))
            except BadEntry:
                return None
        table = self.table
        if len(entries) == 2:
            first, second = entries
            # Twins prove an equivocation only at this table, for a position of this log (or
            # the next), under the key that signs that seat there: a player's key used at two
            # tables, or a seat's key from before a takeover, proves nothing (attack A55).
            if (first.seq == second.seq and first.author == second.author and first.hash != second.hash
                    and first.game_id == second.game_id == table.game_id
                    and 0 < first.seq <= len(self.records) and first.author < table.players
                    and first.verify(key := table.verifier_at(first.author, first.seq))
                    and second.verify(key)):
                self.failure = ProtocolViolation(first.author, first.seq, "signed two different "
                                                 f"entries for entry {first.seq} (an equivocation)")
                return self.failure
            return None
        if len(entries) == 1 and entries[0].seq == len(self.records):
            try:
                fold(self.table, entries[0])
            except ProtocolViolation as err:
                self.failure = err
                return err
        return None

    def report(self) -> AuditReport:
        """The verdict on the entries so far (a complete game checks CLEAN)."""
        return _stopped(len(self.records) + (self.failure is not None), self.table, self.failure)


def one_history(first: Sequence[bytes], second: Sequence[bytes]) -> str | None:
    """Whether two feeds of one table, each checked by its own :class:`LiveAudit` (a spectator
    watching two seats, ``p2p10 watch --also``), serve one history: None if they do (where one
    is longer, the other is a prefix of it); else why not, naming the seat where the evidence
    allows. Two different table entries mean the two machines do not serve one table (a host
    may have seated keys it made itself: attack A57); two different entries for one position
    that both verify under the key that signs their author there are that author's fork."""
    if not first or not second:
        return None
    if first[0] != second[0]:
        return ("these two seats do not serve one table: their table entries differ (one of "
                "them seated other keys)")
    try:
        table = fold(None, parse_entry(first[0]))
    except (BadEntry, ProtocolViolation):
        return None  # (each feed's own audit says what is wrong with it)
    for seq, (one, other) in enumerate(zip(first, second, strict=False)):
        if one == other:
            if seq > 0:
                try:
                    table = fold(table, parse_entry(one))
                except (BadEntry, ProtocolViolation):
                    return None
            continue
        try:
            a, b = parse_entry(one), parse_entry(other)
        except BadEntry:
            return None
        if a.author == b.author and a.author < table.players:
            key = table.verifier_at(a.author, seq)
            if a.verify(key) and b.verify(key):
                return (f"{table.name(a.author)} signed two different entries for entry {seq}: "
                        "the two seats were shown two histories (a fork)")
        return f"the two seats serve different entries from entry {seq} on"
    return None
