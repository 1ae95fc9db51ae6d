"""Opening a saved game log, for ``p2p10 audit``, ``replay`` and ``export``: every error says
which file it is about."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from p2p10.i18n import _
from p2p10.log import NotALog, Records, read_records


@contextlib.contextmanager
def naming(path: Path) -> Iterator[None]:
    """A :class:`NotALog` raised while ``path``'s contents are read names the file (the
    reader of the bytes does not know it): "FILE: this is not a p2p10 game log"."""
    try:
        yield
    except NotALog as err:
        if str(err).startswith(f"{path}"):
            raise
        raise NotALog(f"{path}: {err}") from None


@contextlib.contextmanager
def opened(path: Path) -> Iterator[BinaryIO]:
    """``path`` open for reading; a file that cannot be read, or is empty, is :class:`NotALog`."""
    try:
        stream = path.open("rb")
    except FileNotFoundError:
        raise NotALog(_("{path}: no such file").format(path=path)) from None
    except IsADirectoryError:
        raise NotALog(_("{path} is a directory, not a game log").format(path=path)) from None
    except OSError as err:
        raise NotALog(f"{path}: {err.strerror}") from None
    with stream:
        try:
            empty = stream.peek(1) == b""
        except OSError as err:
            raise NotALog(f"{path}: {err.strerror}") from None
        if empty:  # said here, where the file has a name
            raise NotALog(_("{path} is empty (0 bytes), not a game log").format(path=path))
        with naming(path):
            yield stream


def read_bytes(path: Path) -> bytes:
    """The whole of ``path``; a file that cannot be read is :class:`NotALog`."""
    with opened(path) as stream:
        try:
            return stream.read()
        except OSError as err:
            raise NotALog(f"{path}: {err.strerror}") from None



def read_log_file(path: Path) -> Records:
    """The records of the game log at ``path``; :class:`NotALog` naming the file if it cannot
    be read or is not a log."""
    data = read_bytes(path)
    with naming(path):
        return read_records(data)
