"""Opening a saved game log, for ``p2p10 audit`` and ``p2p10 replay``."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from p2p10.i18n import _
from p2p10.log import NotALog


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
        yield stream


def read_bytes(path: Path) -> bytes:
    """The whole of ``path``; a file that cannot be read is :class:`NotALog`."""
    with opened(path) as stream:
        try:
            return stream.read()
        except OSError as err:
            raise NotALog(f"{path}: {err.strerror}") from None

