"""A peer's files: the game log (``.p2p10``), its own secrets (``.p2p10-secrets``), and, for a
LAN seat, the roster (``.p2p10-roster``) and the evidence of a frozen table (``.p2p10-evidence``)
beside them; :class:`SeatFiles` names them all. A game against bots on this machine (``p2p10
play``) has one log, the user's, and beside it every bot's secrets (``.seatN.p2p10-secrets``) and
the table's settings (``.p2p10-local``, :class:`LocalSettings`). Beside any log, this machine
may keep a checkpoint of its checked fold (``.p2p10-checked``, :mod:`protocol.checkpoint`), a
cache it alone trusts. Every one is readable by its owner alone (mode 0600), whether it is
created or reopened: the secrets hold private keys, and the others show the owner's game.

The log and the secrets are append-only; each record is written with one ``write`` and flushed
(and, when ``durable``, fsynced) before the peer sends anything that depends on it, so a crash
loses at most a torn last record, which reopening trims. The format is in :mod:`p2p10.log`.
"""

from __future__ import annotations

import glob
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from p2p10.crypto.group import SCALAR_BYTES, BadScalar, Scalar
from p2p10.crypto.shuffle import SEED_BYTES
from p2p10.errors import ProtocolError, SavedFileError
from p2p10.game_fields import MAX_PLAYERS, MIN_PLAYERS
from p2p10.log import (
    LOG_MAGIC,
    SECRETS_MAGIC,
    Entry,
    NotALog,
    file_header,
    pack_secret,
    read_records,
    record,
    unpack_secret,
)
from p2p10.peer import Peer
from p2p10.peer_parts import HandSecrets
from p2p10.primitives import Ed25519PrivateKey

if TYPE_CHECKING:
    from protocol.checkpoint import SavedLog

PRIVATE = 0o600  # the mode of every file of a seat
LOG_SUFFIX = ".p2p10"
IDENTITY_KEY_BYTES = 32  # an Ed25519 private key, raw


@dataclass(frozen=True, slots=True)
class SeatFiles:
    """Every file of one seat, named from its log ``FOLDER/STEM.p2p10``: the secrets
    (``STEM.p2p10-secrets``), the roster (``STEM.p2p10-roster``), the evidence
    (``STEM.p2p10-evidence``) and a host's spectator settings (``STEM.p2p10-watch``) beside
    it. A LAN seat's stem is ``STAMP-TABLE-seatN`` (the time it sat down, the table id's first
    8 hex digits, its seat from 1), so the seats one machine plays (its bots) keep their files
    side by side and find each other again."""

    log: Path

    @classmethod
    def new(cls, folder: Path, table_id: bytes, seat: int) -> SeatFiles:
        """The files of ``seat`` (from 0) at table ``table_id``, sitting down now in ``folder``."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        return cls(folder / f"{stamp}-{table_id.hex()[:8]}-seat{seat + 1}{LOG_SUFFIX}")

    @property
    def secrets(self) -> Path:
        """The seat's secrets: its identity key and its hand secrets, never sent anywhere."""
        return self._beside(".p2p10-secrets")

    @property
    def roster(self) -> Path:
        """The LAN roster this seat sat down with, so that a restarted peer finds the others."""
        return self._beside(".p2p10-roster")

    @property
    def evidence(self) -> Path:
        """The signed entries that froze this seat's table, if it froze."""
        return self._beside(".p2p10-evidence")

    @property
    def gallery(self) -> Path:
        """A LAN host's spectator settings (the cap, a private table's code), so that the host
        serves spectators again when it resumes."""
        return self._beside(".p2p10-watch")

    @property
    def local(self) -> Path:
        """The settings of a game against bots on this machine (:class:`LocalSettings`)."""
        return self._beside(".p2p10-local")

    @property
    def checkpoint(self) -> Path:
        """This machine's checkpoint of the log's checked fold: a cache for a fast resume,
        trusted by nobody but this machine (:mod:`protocol.checkpoint`)."""
        return self._beside(".p2p10-checked")

    def bot_secrets(self, seat: int) -> Path:
        """The secrets of the bot at ``seat`` (from 0) of a game against bots on this machine:
        ``STEM.seatN.p2p10-secrets``, N from 1. Its bots keep no log of their own: every seat
        of that game goes on from this one (see :mod:`protocol.local`)."""
        return self.log.with_name(f"{self.log.stem}.seat{seat + 1}.p2p10-secrets")

    def other_seat(self, seat: int) -> SeatFiles | None:
        """The files of the same table's ``seat`` (from 0) in this folder (a bot this seat's
        machine runs), the newest if there are several; None if there are none."""
        table_tag = self.log.stem.rsplit("-seat", 1)[0].rsplit("-", 1)[-1]
        pattern = f"*-{glob.escape(table_tag)}-seat{seat + 1}{LOG_SUFFIX}"
        found = sorted(self.log.parent.glob(pattern))
        return SeatFiles(found[-1]) if found else None

    def _beside(self, suffix: str) -> Path:
        return self.log.with_name(self.log.stem + suffix)


def write_private(path: Path, data: bytes) -> None:
    """Write ``path`` whole, readable by its owner alone: to ``path.part`` first, then renamed
    over it, so a crash leaves the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".part")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE)
    with os.fdopen(descriptor, "wb") as file:
        os.chmod(partial, PRIVATE)  # a .part left by a crash keeps the mode it had
        file.write(data)
    os.replace(partial, path)


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
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE)
            self._file = os.fdopen(descriptor, "wb")
            self._file.write(file_header(magic))
            self._sync()
            self.records = []
        # Only the owner may read a peer's files; one reopened keeps the mode it had (a copy, an
        # empty file made by somebody else, a file from an older version) unless it is set.
        os.chmod(path, PRIVATE)

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



def _records(path: Path, magic: bytes) -> tuple[bytes, ...]:
    """The whole records of one of a seat's files; :class:`SavedFileError` naming the file if
    it cannot be read or is not of that kind."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise SavedFileError(f"cannot read {path}: {err.strerror}") from None
    try:
        records = read_records(data, magic)
    except NotALog as err:
        raise SavedFileError(f"{path}: {err}") from None
    return records.items


def read_log(path: Path) -> list[bytes]:
    """The entries of a saved log, as stored (a torn last record is left out)."""
    return list(_records(path, LOG_MAGIC))


def read_secrets(path: Path) -> tuple[int, Ed25519PrivateKey, list[HandSecrets]]:
    """A secrets file: the seat (from 0), its identity key, and its hand secrets so far.
    Raises :class:`SavedFileError` naming the file, the record and what is wrong with it: a
    record that is not msgpack, or not ``["identity", seat, key]`` (a seat of the table and a
    32-byte key) or ``["hand", hand, secret, seed]`` (a hand number from 0, a canonical
    32-byte scalar and a 32-byte seed); no identity key, or two different ones."""
    identity: tuple[int, bytes] | None = None
    hands: list[HandSecrets] = []
    for number, raw in enumerate(_records(path, SECRETS_MAGIC), 1):
        try:
            item = _secrets_record(raw)
        except ProtocolError as err:
            raise SavedFileError(f"{path}: record {number}: {err}") from None
        if isinstance(item, HandSecrets):
            hands.append(item)
        elif identity is not None and item != identity:
            raise SavedFileError(f"{path}: record {number}: a second, different identity key")
        else:
            identity = item
    if identity is None:
        raise SavedFileError(f"{path}: no identity key in the secrets file")
    seat, key = identity
    return seat, Ed25519PrivateKey.from_private_bytes(key), hands


def _is_count(value: object, below: int | None = None) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool) and value >= 0
            and (below is None or value < below))


def _secrets_record(raw: bytes) -> tuple[int, bytes] | HandSecrets:
    """One record of a secrets file: (seat, identity key) or a hand's secrets; raises
    :class:`ProtocolError` saying what is wrong."""
    try:
        item = unpack_secret(raw)
    except ProtocolError:
        raise ProtocolError("not msgpack") from None
    kind = item[0] if isinstance(item, list) and item else None
    if kind == "identity":
        if len(item) != 3:
            raise ProtocolError("an identity record is [\"identity\", seat, key]")
        _, seat, key = item
        if not _is_count(seat, MAX_PLAYERS):
            raise ProtocolError(f"the seat is not a number from 0 to {MAX_PLAYERS - 1}")
        if not isinstance(key, bytes) or len(key) != IDENTITY_KEY_BYTES:
            size = f"{len(key)} bytes" if isinstance(key, bytes) else "not bytes"
            raise ProtocolError(f"the identity key is {IDENTITY_KEY_BYTES} bytes, this one is {size}")
        return seat, key
    if kind == "hand":
        if len(item) != 4:
            raise ProtocolError("a hand record is [\"hand\", hand, secret, seed]")
        _, hand, secret, seed = item
        if not _is_count(hand):
            raise ProtocolError("the hand is not a number from 0")
        try:
            scalar = Scalar.from_bytes(secret) if isinstance(secret, bytes) else None
        except BadScalar:
            scalar = None
        if scalar is None:
            raise ProtocolError(f"the secret of hand {hand + 1} is not a {SCALAR_BYTES}-byte scalar")
        if not isinstance(seed, bytes) or len(seed) != SEED_BYTES:
            raise ProtocolError(f"the shuffle seed of hand {hand + 1} is not {SEED_BYTES} bytes")
        return HandSecrets(hand, scalar, seed)
    raise ProtocolError("neither an identity record nor a hand record")


def resume_peer(log_path: Path, secrets_path: Path, *, saved: SavedLog | None = None,
                **options: Any) -> Peer:
    """A peer started again from its log and secrets files; :class:`SavedFileError` naming
    what is wrong if they are damaged or do not belong together. ``saved``: the log read and
    checked already (``protocol.checkpoint.read_saved``), shared by every seat of this machine
    that goes on from it; without it, the log is read and refolded whole."""
    seat, identity, hands = read_secrets(secrets_path)
    try:
        if saved is None:
            records = read_log(log_path) if log_path.exists() else []
            return Peer.restore(seat, identity, records, hands, **options)
        return Peer.resumed(seat, identity, saved.entries, saved.table, hands, **options)
    except SavedFileError as err:
        raise SavedFileError(f"{log_path}: {err}") from None


def evidence_path(log_path: Path) -> Path:
    """Where a peer that froze keeps the signed entries that froze it: beside its log."""
    return SeatFiles(log_path).evidence


LOCAL_LABEL = "p2p10/local/v1"


@dataclass(frozen=True, slots=True)
class LocalSettings:
    """What a game against bots on this machine needs, besides its log and every seat's
    secrets, to go on: each seat's name and bot policy (None for the person's seat), how long
    the bots wait before a move, and the seed of a reproducible (test) game.

    Saved whole beside the log as msgpack ``["p2p10/local/v1", [[name, policy | nil], ...],
    pace, seed | nil]``, the seed in decimal (it may not fit 64 bits)."""

    seats: tuple[tuple[str, str | None], ...]
    pace: float
    seed: int | None

    def save(self, path: Path) -> None:
        """Write the settings to ``path`` (mode 0600, through a ``.part`` file)."""
        seed = None if self.seed is None else str(self.seed)
        write_private(path, pack_secret([LOCAL_LABEL, [list(seat) for seat in self.seats], self.pace, seed]))

    @classmethod
    def read(cls, path: Path) -> LocalSettings:
        """The settings saved at ``path``; :class:`SavedFileError` naming the file and what is
        wrong if it cannot be read or is not of that shape."""
        try:
            data = path.read_bytes()
        except OSError as err:
            raise SavedFileError(f"cannot read {path}: {err.strerror}") from None
        try:
            return cls._parse(unpack_secret(data))
        except ProtocolError as err:
            raise SavedFileError(f"{path}: {err}") from None

    @classmethod
    def _parse(cls, item: object) -> LocalSettings:
        if not (isinstance(item, list) and len(item) == 4 and item[0] == LOCAL_LABEL):
            raise ProtocolError(f"not the settings of a game against bots ({LOCAL_LABEL})")
        _, seats, pace, seed = item
        if not (isinstance(seats, list) and MIN_PLAYERS <= len(seats) <= MAX_PLAYERS
                and all(isinstance(s, list) and len(s) == 2 and isinstance(s[0], str)
                        and (s[1] is None or isinstance(s[1], str)) for s in seats)):
            raise ProtocolError(f"the seats are not {MIN_PLAYERS} to {MAX_PLAYERS} [name, policy] pairs")
        if isinstance(pace, bool) or not isinstance(pace, int | float) or not pace >= 0:
            raise ProtocolError("the pace is not a number of seconds")
        if seed is not None and not (isinstance(seed, str) and seed.removeprefix("-").isdecimal()):
            raise ProtocolError("the seed is not a whole number")
        return cls(tuple((name, policy) for name, policy in seats), float(pace),
                   None if seed is None else int(seed))
