"""Your record on disk: ``$XDG_DATA_HOME/p2p10/record.json`` (``~/.local/share`` by default).

:func:`add_finished_game` reads a saved game log, folds it as the audit does, and adds the game
to the record if it has a winner (:func:`add_finished_table` adds it from a fold a peer has
already checked, at the end of the game it played); :func:`load` reads the record
(:class:`p2p10.record.Record`).
The file is rewritten whole, to a temporary file renamed over it, so a crash leaves the old
record or the new one; a lock file beside it keeps two games that end at once (two seats of one
LAN table on one machine) from each writing over the other's result.

Loading is light (no dealing cryptography): ``p2p10 stats`` and the start screen only load.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from p2p10.i18n import _
from p2p10.record import GameResult, Record, RecordError, game_result
from protocol import data_home

if TYPE_CHECKING:
    from p2p10.table import TableState

RECORD_FILE = "record.json"


def record_path() -> Path:
    """Where the record is kept: ``record.json`` in :func:`protocol.data_home`."""
    return data_home() / RECORD_FILE


def load(path: Path | None = None) -> Record:
    """The record at ``path`` (:func:`record_path` by default); an empty record if there is no
    file yet. Raises :class:`RecordError` naming the file if it cannot be read or is damaged."""
    path = path or record_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Record()
    except (OSError, UnicodeDecodeError) as err:
        # TRANSLATORS: why your record cannot be read: the file holds something else than text.
        reason = err.strerror if isinstance(err, OSError) else _("it is not text")
        raise RecordError(_("cannot read your record {path}: {reason}").format(
            path=path, reason=reason)) from None
    try:
        return Record.from_json(text)
    except RecordError as err:
        raise RecordError(_("{path}: {reason}; move the file away to start a new record").format(
            path=path, reason=err)) from None


def add_finished_game(log_path: Path, me: int, record_file: Path | None = None) -> GameResult | None:
    """Add the game saved at ``log_path``, in which you played seat ``me`` (from 0), to the
    record (at ``record_file``, :func:`record_path` by default) and return its result; None if
    the log does not reach the end of a game with a winner, or breaks the rules or the protocol
    somewhere. A game already in the record is not added again (its result is still returned).
    Raises :class:`p2p10.errors.SavedFileError` if the log cannot be read, and
    :class:`RecordError` if the record cannot be read or written."""
    # Imported here: folding a log loads the dealing cryptography, which loading the record
    # (p2p10 stats, the start screen) does not need.
    from p2p10.audit import audit_records
    from protocol.storage import read_log

    report = audit_records(read_log(log_path))
    if report.violation is not None or report.damage is not None or report.table is None:
        return None
    return add_finished_table(report.table, me, log_path, record_file)


def add_finished_table(table: TableState, me: int, log_path: Path,
                       record_file: Path | None = None) -> GameResult | None:
    """Add the game of ``table``, a fold already checked entry by entry (the peer's own, at the
    end of a game it played), saved at ``log_path``, to the record as :func:`add_finished_game`
    does, without reading and checking the log a second time."""
    from protocol.storage import write_private

    ended = datetime.fromtimestamp(log_path.stat().st_mtime).isoformat(timespec="seconds")
    result = game_result(table, me, date=ended, log_path=str(log_path.absolute()))
    if result is None:
        return None
    path = record_file or record_path()
    with _locked(path):
        record = load(path)
        if not record.has(result.game_id):
            try:
                write_private(path, record.add(result).to_json().encode())
            except OSError as err:
                raise RecordError(_("cannot write your record {path}: {reason}").format(
                    path=path, reason=err.strerror)) from None
    return result


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold the record's lock (``record.json.lock`` beside it) while it is read and rewritten."""
    lock = path.with_name(path.name + ".lock")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as err:
        raise RecordError(_("cannot write your record in {folder}: {reason}").format(
            folder=path.parent, reason=err.strerror)) from None
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)
