"""A machine's checkpoint of a saved log's checked fold, so that a resume checks only what this
machine has not checked before.

Resuming a seat refolds its whole log and checks every entry again (``Peer.restore``): seconds
for a long game. Beside the log (``STEM.p2p10-checked``) this machine keeps the state it
reached, the fold of the log's first ``count`` entries as :func:`p2p10.saved_log.check_saved`
returns it. It is a cache, signed by nobody and trusted by nobody but this machine: it is not
part of the protocol, never sent, and never decides anything. It is used only when all of this
holds, and otherwise thrown away (and written again once the log is checked the long way):

- it is whole and bound, by an HMAC-SHA256 under this machine's own random key
  (``$XDG_DATA_HOME/p2p10/checkpoint.key``, mode 0600), to its contents: a file this machine
  did not write (copied from another machine or game, damaged, cut short) does not verify;
- it was written by this very code (a fingerprint of the ``p2p10`` package's source and of
  the Python version): a state folded by other rules code is not this code's state;
- the log holds at least ``count`` entries, and the BLAKE2b digest of its first ``count``
  records, byte for byte, is the one it was written for: another game's checkpoint, one of a
  log cut back or edited since, does not match;
- what it holds is a table state after exactly those entries (its position, the last entry's
  hash and the game id agree with the log), checking every proof on arrival.

A resume then folds only the entries after ``count`` (:func:`p2p10.saved_log.check_saved`). The
state is the same as the full refold's (``tests/test_resume_cache.py`` compares them field by
field, with caches stale, cut, foreign and garbage): a damaged or stale checkpoint costs time,
never a verdict, and never a crash.

Why pickle: the state is the whole table (the rules engine's game, the hand's decks and
tokens), and a codec of its own would be a second description of every field to keep in step
with the fold. Pickle would run code chosen by whoever wrote the file, so a checkpoint is only
ever unpickled after its MAC verifies under this machine's private key: only this program on
this machine, as this user, could have written it (and whoever can write the key can change
the program itself). A plain hash would not do: anybody can compute one for a file they put
beside the log. As a second fence, the unpickler loads nothing but the core's own classes.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import io
import os
import pickle
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack

import p2p10
from p2p10.errors import SavedFileError
from p2p10.log import Entry, public_key
from p2p10.peer import Peer
from p2p10.primitives import Ed25519PublicKey
from p2p10.saved_log import check_saved, parse_saved
from p2p10.table import TableState
from p2p10.table_reading import TABLE_FIELDS
from protocol import data_home
from protocol.storage import AppendFile, SeatFiles, read_log, write_private

MAGIC = b"P2P10CHK"
FORMAT = 1
KEY_BYTES = 32
MAC_BYTES = 32
DIGEST_BYTES = 32
MAX_CHECKPOINT_BYTES = 64 << 20
"""A checkpoint larger than this is not read (a mid-hand state of six seats is about 0.2 MB)."""

_DIGEST_PERSON = b"p2p10/prefix"


def key_path() -> Path:
    """Where this machine keeps the key its checkpoints are bound to."""
    return data_home() / "checkpoint.key"


def machine_key() -> bytes | None:
    """This machine's checkpoint key, made (32 random bytes, mode 0600) if there is none or the
    one there is not a key or could be read by others; None if it can be neither read nor made
    (then no checkpoint is read or written: a resume only takes longer)."""
    path = key_path()
    try:
        info = path.stat()
        if stat.S_ISREG(info.st_mode) and not info.st_mode & 0o077 and info.st_size == KEY_BYTES:
            key = path.read_bytes()
            if len(key) == KEY_BYTES:
                return key
    except OSError:
        pass
    key = os.urandom(KEY_BYTES)
    try:
        write_private(path, key)  # (a new key: every checkpoint of the old one is thrown away)
    except OSError:
        return None
    return key


@functools.cache
def code_fingerprint() -> bytes:
    """A digest of the source of the ``p2p10`` package, its version and the Python version: a
    state is only read back by the code that folded it."""
    digest = hashlib.blake2b(digest_size=DIGEST_BYTES, person=b"p2p10/code")
    digest.update(f"{sys.version}\0{p2p10.__version__}\0".encode())
    root = Path(p2p10.__file__).parent
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0")
        digest.update(hashlib.blake2b(path.read_bytes()).digest())
    return digest.digest()


def prefix_digest(records: Sequence[bytes], count: int) -> bytes:
    """The digest of a log's first ``count`` records, each framed by its length."""
    digest = hashlib.blake2b(digest_size=DIGEST_BYTES, person=_DIGEST_PERSON)
    for raw in records[:count]:
        digest.update(len(raw).to_bytes(4, "big"))
        digest.update(raw)
    return digest.digest()


class _Pickler(pickle.Pickler):
    """Pickles a table state; an Ed25519 public key (no pickle of its own) as its 32 bytes."""

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, Ed25519PublicKey):
            return public_key, (obj.public_bytes_raw(),)
        return NotImplemented


class _Unpickler(pickle.Unpickler):
    """Loads only the core's own classes (and its public keys): a second fence behind the MAC."""

    def find_class(self, module: str, name: str) -> Any:
        if module == "p2p10.log" and name == "public_key":
            return public_key
        if module.startswith("p2p10.") and module in sys.modules:
            found = getattr(sys.modules[module], name, None)
            if isinstance(found, type) and found.__module__ == module:
                return found
        raise pickle.UnpicklingError(f"{module}.{name} is not a class of the core")


def _mac(key: bytes, data: bytes) -> bytes:
    return hmac.new(key, data, hashlib.sha256).digest()


def save(log_path: Path, records: Sequence[bytes], table: TableState) -> bool:
    """Keep ``table``, the checked fold of the first ``table.seq`` of ``records`` (the log at
    ``log_path``), as this machine's checkpoint of that log. Best effort: False if it could
    not be written (a resume then folds the long way), never an error."""
    count = table.seq
    if count > len(records) or table.defer_proofs or table.postpone:
        return False
    key = machine_key()
    if key is None:
        return False
    header = msgpack.packb([code_fingerprint(), count, prefix_digest(records, count)], use_bin_type=True)
    buffer = io.BytesIO()
    try:
        _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(table)
    except Exception:  # a state this code cannot keep: no checkpoint, and the game goes on
        return False
    body = MAGIC + bytes([FORMAT]) + len(header).to_bytes(4, "big") + header + buffer.getvalue()
    try:
        write_private(SeatFiles(log_path).checkpoint, body + _mac(key, body))
    except OSError:
        return False
    return True


def load(log_path: Path, records: Sequence[bytes], entries: Sequence[Entry]) -> TableState | None:
    """This machine's checkpoint of the log at ``log_path`` (its ``records``, parsed into
    ``entries``) if it is one and still fits the log (see the module docstring), else None:
    never an error, whatever the file holds."""
    path = SeatFiles(log_path).checkpoint
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_CHECKPOINT_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    key = machine_key()
    if key is None or len(data) < len(MAGIC) + 5 + MAC_BYTES:
        return None
    body, mac = data[:-MAC_BYTES], data[-MAC_BYTES:]
    if not hmac.compare_digest(_mac(key, body), mac):
        return None
    # (Written by this machine, whole: what follows only tells whether it still fits.)
    try:
        return _fitting(body, records, entries)
    except Exception:  # a cache that does not read is thrown away, whatever broke
        return None


def _fitting(body: bytes, records: Sequence[bytes], entries: Sequence[Entry]) -> TableState | None:
    """The state in a checkpoint's authenticated ``body`` if it is a state after the first
    entries of this very log, folded by this very code; None otherwise."""
    if body[:len(MAGIC)] != MAGIC or body[len(MAGIC)] != FORMAT:
        return None
    start = len(MAGIC) + 1
    size = int.from_bytes(body[start:start + 4], "big")
    header = msgpack.unpackb(body[start + 4:start + 4 + size], raw=False, strict_map_key=True)
    if not (isinstance(header, list) and len(header) == 3):
        return None
    fingerprint, count, digest = header
    if (fingerprint != code_fingerprint() or not isinstance(count, int) or isinstance(count, bool)
            or not 0 < count <= len(entries) or digest != prefix_digest(records, count)):
        return None
    table = _Unpickler(io.BytesIO(body[start + 4 + size:])).load()
    if not (type(table) is TableState and all(hasattr(table, name) for name in TABLE_FIELDS)):
        return None
    if (table.seq != count or table.last_hash != entries[count - 1].hash
            or table.game_id != entries[0].game_id or table.defer_proofs or table.postpone):
        return None
    return table


@dataclass(frozen=True, slots=True)
class SavedLog:
    """A saved log read, parsed and checked once, for every seat of this machine that goes on
    from it (``protocol.storage.resume_peer``): its entries, their checked fold (None for an
    empty log) and the digest of its records."""

    path: Path
    entries: list[Entry]
    table: TableState | None
    digest: bytes


def read_saved(log_path: Path, like: SavedLog | None = None) -> SavedLog:
    """The log at ``log_path`` (none yet: an empty one) read and checked, from this machine's
    checkpoint of it where one fits (see the module docstring); the checkpoint is written
    again when the log reaches past it. ``like``: another log of this machine's seats read
    just before (a LAN host's, whose bots keep logs of their own): if this one holds the very
    same records, its fold is this one's too. Raises :class:`SavedFileError` naming the log
    and what is wrong with it, as ``Peer.restore`` does."""
    records = read_log(log_path) if log_path.exists() else []
    digest = prefix_digest(records, len(records))
    if like is not None and like.digest == digest:
        return SavedLog(log_path, like.entries, like.table, digest)
    try:
        entries = parse_saved(records)
        since = load(log_path, records, entries) if entries else None
        table = check_saved(entries, since)
    except SavedFileError as err:
        raise SavedFileError(f"{log_path}: {err}") from None
    if table is not None and (since is None or since.seq != table.seq):
        save(log_path, records, table)
    return SavedLog(log_path, entries, table, digest)


def forget(log_path: Path) -> None:
    """Delete the checkpoint of the log at ``log_path`` (a finished game's: nothing resumes it)."""
    SeatFiles(log_path).checkpoint.unlink(missing_ok=True)



class Keeper:
    """Keeps a playing peer's checkpoint of its log (written by ``log``) as it goes: where a
    hand ends and where its deal ends (the costly checks behind it), and on :meth:`keep`; so
    that a resume, even after a crash, folds at most the moves of one hand. Listen to the
    peer's entries after the log writer (:meth:`entry_added`)."""

    def __init__(self, peer: Peer, log: AppendFile) -> None:
        self.peer = peer
        self.log = log
        self._stage: str | None = None

    def entry_added(self, entry: Entry) -> None:
        """The peer's log took ``entry`` (already written)."""
        table = self.peer.table
        stage = None if table is None or table.hand is None else table.hand.stage
        ended = entry.kind == "reveal" and stage is None
        dealt = self._stage == "deal_tokens" and stage == "play"
        self._stage = stage
        if ended or dealt:
            self.keep()

    def keep(self) -> bool:
        """Write the checkpoint of the peer's fold now; False if there is none to keep (the game
        is over, or the peer froze: its log ends in evidence its fold refused) or it could not
        be written."""
        table, peer = self.peer.table, self.peer
        if table is None or peer.finished or peer.stopped or table.seq != len(self.log.records):
            return False
        return save(self.log.path, self.log.records, table)
