"""A peer's files: the game log (``.p2p10``) and its own secrets (``.p2p10-secrets``).

Both are append-only; each record is written with one ``write`` and flushed (and, when
``durable``, fsynced) before the peer sends anything that depends on it, so a crash loses at
most a torn last record, which reopening trims. The format is in :mod:`p2p10.log`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, BinaryIO

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p10.crypto.group import Scalar
from p2p10.errors import ProtocolError
from p2p10.log import (
    LOG_MAGIC,
    SECRETS_MAGIC,
    Entry,
    file_header,
    pack_secret,
    read_records,
    record,
    unpack_secret,
)
from p2p10.peer import HandSecrets, Peer


class AppendFile:
    """An append-only record file that trims a torn tail when it is reopened."""

    def __init__(self, path: Path, magic: bytes, durable: bool = False) -> None:
        self.path = path
        self.durable = durable
        self._magic = magic
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and path.stat().st_size > 0:
            records = read_records(path.read_bytes(), magic)
            self._file: BinaryIO = open(path, "r+b")  # noqa: SIM115 - kept open for appending
            self._file.truncate(records.good_length)
            self._file.seek(records.good_length)
            self.records = list(records.items)
        else:
            # Only the owner may read a peer's files: the secrets file holds private keys.
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            self._file = os.fdopen(descriptor, "wb")
            self._file.write(file_header(magic))
            self._sync()
            self.records = []

    def append(self, data: bytes) -> None:
        """Append one record and flush it to the operating system (and disk, if durable)."""
        self._file.write(record(data))
        self._sync()
        self.records.append(data)

    def keep_first(self, count: int) -> None:
        """Cut the file back to its first ``count`` records (a log that must drop entries only
        its own machine ever held: see ``Peer.on_rollback``)."""
        if count >= len(self.records):
            return
        size = len(file_header(self._magic)) + sum(len(record(r)) for r in self.records[:count])
        self._file.truncate(size)
        self._file.seek(size)
        self._sync()
        del self.records[count:]

    def _sync(self) -> None:
        self._file.flush()
        if self.durable:
            os.fsync(self._file.fileno())

    def close(self) -> None:
        """Close the file."""
        self._file.close()


class LogWriter(AppendFile):
    """The game log of one peer."""

    def __init__(self, path: Path, durable: bool = False) -> None:
        super().__init__(path, LOG_MAGIC, durable)

    def add(self, entry: Entry) -> None:
        """Append an accepted entry exactly as received."""
        self.append(entry.raw)


class SecretsWriter(AppendFile):
    """One peer's secrets: never sent anywhere, kept so a restarted peer can go on."""

    def __init__(self, path: Path, durable: bool = False) -> None:
        super().__init__(path, SECRETS_MAGIC, durable)

    def add_identity(self, seat: int, private_key: bytes) -> None:
        """Record the seat's Ed25519 identity key."""
        self.append(pack_secret(["identity", seat, private_key]))

    def add_hand(self, secrets: HandSecrets) -> None:
        """Record one hand's key secret and shuffle seed."""
        self.append(pack_secret(["hand", secrets.hand, secrets.secret.to_bytes(), secrets.seed]))



def read_log(path: Path) -> list[bytes]:
    """The entries of a saved log, as stored (a torn last record is left out)."""
    return list(read_records(path.read_bytes(), LOG_MAGIC).items)


def read_secrets(path: Path) -> tuple[int, Ed25519PrivateKey, list[HandSecrets]]:
    """A secrets file: the seat, its identity key, and its hand secrets so far."""
    seat: int | None = None
    identity: Ed25519PrivateKey | None = None
    hands: list[HandSecrets] = []
    for raw in read_records(path.read_bytes(), SECRETS_MAGIC).items:
        item = unpack_secret(raw)
        if not isinstance(item, list) or not item:
            raise ProtocolError(f"{path}: a damaged secrets record")
        if item[0] == "identity" and len(item) == 3 and isinstance(item[2], bytes):
            seat, identity = int(item[1]), Ed25519PrivateKey.from_private_bytes(item[2])
        elif (item[0] == "hand" and len(item) == 4 and isinstance(item[2], bytes)
              and isinstance(item[3], bytes)):
            hands.append(HandSecrets(int(item[1]), Scalar.from_bytes(item[2]), item[3]))
        else:
            raise ProtocolError(f"{path}: a damaged secrets record")
    if seat is None or identity is None:
        raise ProtocolError(f"{path}: no identity key in the secrets file")
    return seat, identity, hands


def resume_peer(log_path: Path, secrets_path: Path, **options: Any) -> Peer:
    """A peer started again from its log and secrets files."""
    seat, identity, hands = read_secrets(secrets_path)
    return Peer.restore(seat, identity, read_log(log_path) if log_path.exists() else [], hands, **options)


def evidence_path(log_path: Path) -> Path:
    """Where a peer that froze keeps the signed entries that froze it: beside its log."""
    return log_path.with_name(log_path.stem + ".p2p10-evidence")
