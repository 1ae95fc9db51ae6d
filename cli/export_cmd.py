"""``p2p10 export``: a saved game, audited, as one JSON object for other tools.

Imported only when the command runs (its options are in :mod:`cli.log_parsers`): the audit
loads the dealing cryptography. The conversion is :func:`p2p10.export.export_game`; the format
is specified in ``specs/export.schema.json`` and ``specs/EXPORT.md``."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from pathlib import Path

from cli import UsageError
from cli.audit_cmd import checking_pool
from cli.log_files import naming, read_bytes
from p2p10.audit import AuditReport, audit_stream
from p2p10.errors import SavedFileError
from p2p10.export import NotClean, export_game
from p2p10.i18n import _
from p2p10.log import read_records
from protocol.storage import LocalSettings, SeatFiles


def cmd_export(args: argparse.Namespace) -> int:
    """Export a log that audits clean; exit 0 written, 1 not clean (nothing written), 2 not a
    log or an output that cannot be written."""
    if args.indent is not None and args.indent < 0:
        raise UsageError(_("--indent takes a number of spaces from 0"))
    output = None if args.output is None or str(args.output) == "-" else args.output
    if output is not None and _same_file(output, args.file):
        raise UsageError(_("{path}: the output would overwrite the game log").format(path=output))
    with checking_pool(args.jobs) as pool:
        data = read_bytes(args.file)  # read once: the audit and the export see the same bytes
        with naming(args.file):
            report = audit_stream(io.BytesIO(data), pool)
    try:
        exported = export_game(read_records(data).items, report, _local_bots(args.file, report))
    except NotClean as err:
        # The verdict word (VIOLATION, DAMAGED, INCOMPLETE) is a documented token, the same in
        # every language, as in p2p10 audit.
        verdict = " ".join(str(err).split())
        # TRANSLATORS: {verdict} is the audit's one-line verdict, kept in English: it starts
        # with the word VIOLATION, DAMAGED or INCOMPLETE (a token scripts look for).
        print("p2p10: " + _("{file}: not exported: {verdict}").format(file=args.file, verdict=verdict),
              file=sys.stderr)
        return err.report.exit_status
    text = json.dumps(exported, indent=args.indent) + "\n"
    if output is None:
        sys.stdout.write(text)
    else:
        _write_atomically(output, text.encode("utf-8"))
    return 0


def _local_bots(log: Path, report: AuditReport) -> frozenset[int]:
    """The seats of a game against bots saved by ``p2p10 play``, as its settings beside the
    log name them (the log cannot tell: each bot sits down under a key of its own); none for
    any other log. Settings that cannot be read, or that seat other players than the log, are
    a :class:`UsageError` naming the file."""
    settings_path = SeatFiles(log).local
    if report.table is None or not settings_path.exists():
        return frozenset()
    try:
        settings = LocalSettings.read(settings_path)
    except SavedFileError as err:
        raise UsageError(str(err)) from None
    if [name for name, _policy in settings.seats] != list(report.table.given_names):
        raise UsageError(_("{settings}: its seats are not the players of {log}").format(
            settings=settings_path, log=log.name))
    return frozenset(seat for seat, (_name, policy) in enumerate(settings.seats) if policy is not None)


def _same_file(output: Path, log: Path) -> bool:
    """True when ``output`` names the file ``log`` is (it would be replaced by the export)."""
    try:
        return output.exists() and log.exists() and os.path.samefile(output, log)
    except OSError:
        return False


def _write_atomically(path: Path, data: bytes) -> None:
    """Write ``path`` whole: to a file beside it first, then renamed over it, so that a crash
    or a full disk leaves the old file or the new one, never half of one (and the permissions
    of a new file, as the umask says)."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
        os.replace(partial, path)
    except OSError as err:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
        # TRANSLATORS: {reason} is the system's reason ("No such file or directory").
        raise UsageError(_("{path}: cannot write the export: {reason}").format(
            path=path, reason=err.strerror or err)) from None
