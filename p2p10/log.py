"""The signed, hash-chained move log: entries, their envelopes, and the ``.p2p10`` file format.

An entry is signed over the exact bytes that were sent and is never re-encoded:

    payload  = msgpack [version, game_id, seq, prev_hash, author, kind, body]
    envelope = msgpack [payload, signature]
    signature = Ed25519(author's key, frame("p2p10/sig/v2", "entry", payload))   (p2p10.signing)
    hash     = BLAKE2b-256(payload, person="p2p10/entry")

``prev_hash`` is the hash of the entry at ``seq - 1`` (32 zero bytes for the first), so the log
is a chain and an entry cannot be moved, dropped or replayed without breaking it. The payload,
not the envelope, is hashed, so a re-encoded signature cannot make a second identity for one
entry. Which seat may write at each position is the table state machine's business
(:mod:`p2p10.table`); this module only parses, signs and checks signatures.

File format (``.p2p10`` for the log, ``.p2p10-secrets`` for one peer's secrets): an 8-byte magic
and a version byte, then records, each a 4-byte big-endian length and that many bytes (for the
log, one envelope). Appending a record is one write, so a crash can leave at most a torn last
record, which :func:`read_records` and :class:`RecordReader` report instead of failing.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO

from p2p10 import primitives
from p2p10.errors import ProtocolError
from p2p10.primitives import Ed25519PrivateKey, Ed25519PublicKey
from p2p10.signing import Domain, key_problem, sign, verify
from p2p10.wire import GAME_ID_BYTES as GAME_ID_BYTES
from p2p10.wire import HASH_BYTES as HASH_BYTES
from p2p10.wire import MAX_ENTRY_BYTES as MAX_ENTRY_BYTES
from p2p10.wire import SIGNATURE_BYTES as SIGNATURE_BYTES
from p2p10.wire import WireError, is_int, shown
from p2p10.wire import unpack as wire_unpack

VERSION = 3
GENESIS = bytes(HASH_BYTES)
PUBLIC_KEY_BYTES = 32
LOG_MAGIC = b"P2P10LOG"
SECRETS_MAGIC = b"P2P10KEY"
FILE_VERSION = 1
_HASH_PERSON = b"p2p10/entry"


class BadEntry(ProtocolError):
    """Bytes that are not a well-formed entry, or whose signature does not verify."""


class NotALog(ProtocolError):
    """A file that is not a p2p10 log (or secrets file) of a version this program reads."""


def entry_hash(payload: bytes) -> bytes:
    """The 32-byte hash that identifies an entry and chains the next one to it."""
    return hashlib.blake2b(payload, digest_size=HASH_BYTES, person=_HASH_PERSON).digest()


@dataclass(frozen=True, slots=True)
class Entry:
    """One parsed entry. ``raw`` is the envelope exactly as received; ``payload`` the bytes
    that were signed and hashed. ``body`` is decoded msgpack, shape-checked by the table."""

    raw: bytes
    payload: bytes
    signature: bytes
    game_id: bytes
    seq: int
    prev_hash: bytes
    author: int
    kind: str
    body: Any
    hash: bytes

    def verify(self, key: Ed25519PublicKey) -> bool:
        """True when the signature is the author's over the payload, as an entry."""
        return verify(key, Domain.ENTRY, self.payload, self.signature)


def _unpack(data: bytes) -> Any:
    try:
        return wire_unpack(data)
    except WireError as err:
        raise BadEntry(str(err)) from None


def parse_entry(raw: bytes) -> Entry:
    """Parse an envelope; raises :class:`BadEntry` naming what is wrong. The signature is not
    checked here (that needs the table's keys): call :meth:`Entry.verify`."""
    if len(raw) > MAX_ENTRY_BYTES:
        raise BadEntry(f"an entry is at most {MAX_ENTRY_BYTES} bytes, this one is {len(raw)}")
    outer = _unpack(raw)
    if not (isinstance(outer, list) and len(outer) == 2 and isinstance(outer[0], bytes)
            and isinstance(outer[1], bytes)):
        raise BadEntry("an envelope is [payload, signature], both byte strings")
    payload, signature = outer
    if len(signature) != SIGNATURE_BYTES:
        raise BadEntry(f"a signature is {SIGNATURE_BYTES} bytes, not {len(signature)}")
    fields = _unpack(payload)
    if not (isinstance(fields, list) and len(fields) == 7):
        raise BadEntry("a payload is [version, game, seq, prev, author, kind, body]")
    version, game_id, seq, prev_hash, author, kind, body = fields
    if not (is_int(version) and version == VERSION):
        raise BadEntry(f"protocol version {shown(version)} is not {VERSION}")
    if not (isinstance(game_id, bytes) and len(game_id) == GAME_ID_BYTES):
        raise BadEntry(f"a game id is {GAME_ID_BYTES} bytes")
    if not (is_int(seq) and seq >= 0):
        raise BadEntry("the sequence number must be a non-negative integer")
    if not (isinstance(prev_hash, bytes) and len(prev_hash) == HASH_BYTES):
        raise BadEntry(f"the previous hash is {HASH_BYTES} bytes")
    if not (is_int(author) and 0 <= author < 64):
        raise BadEntry("the author must be a seat number")
    if not isinstance(kind, str):
        raise BadEntry("the kind must be a string")
    return Entry(raw, payload, signature, game_id, seq, prev_hash, author, kind, body,
                 entry_hash(payload))


def make_entry(key: Ed25519PrivateKey, game_id: bytes, seq: int, prev_hash: bytes, author: int,
               kind: str, body: Any) -> Entry:
    """Encode, sign and parse back a new entry (parsing back proves it is well formed)."""
    payload = primitives.pack([VERSION, game_id, seq, prev_hash, author, kind, body])
    raw = primitives.pack([payload, sign(key, Domain.ENTRY, payload)])
    return parse_entry(raw)


def public_key(data: bytes) -> Ed25519PublicKey:
    """An Ed25519 public key from its 32 bytes; raises :class:`BadEntry` for a malformed key, a
    weak one (a point of small order) or a non-canonical encoding (:func:`p2p10.signing.key_problem`)."""
    if not isinstance(data, bytes) or len(data) != PUBLIC_KEY_BYTES:
        raise BadEntry(f"a public key is {PUBLIC_KEY_BYTES} bytes")
    problem = key_problem(data)
    if problem is not None:
        raise BadEntry(problem)
    try:
        return Ed25519PublicKey.from_public_bytes(data)
    except ValueError as err:
        raise BadEntry(f"not an Ed25519 public key: {err}") from None


def public_bytes(key: Ed25519PrivateKey | Ed25519PublicKey) -> bytes:
    """The 32 raw bytes of a public key (of a private key's public half)."""
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return public.public_bytes_raw()


FINGERPRINT_BYTES = 16
"""A key's fingerprint is 128 bits: the only pin of a table found by its announcement, so
finding another key with the same fingerprint must cost about 2^128 work, not 2^64 (attack A58)."""


def fingerprint(key_bytes: bytes) -> str:
    """A public key's fingerprint, for people to compare and for Zeroconf TXT records: the
    first 128 bits of BLAKE2b of the key, as eight groups of four hex digits
    (``0123:4567:89ab:cdef:0123:4567:89ab:cdef``)."""
    digest = hashlib.blake2b(key_bytes, digest_size=FINGERPRINT_BYTES).hexdigest()
    return ":".join(digest[i:i + 4] for i in range(0, 2 * FINGERPRINT_BYTES, 4))


def fingerprint_label(key_bytes: bytes) -> str:
    """The first two groups of a key's fingerprint (``0123:4567``): a label to tell tables
    apart in a list, never a pin (32 bits are found by anyone who tries)."""
    return ":".join(fingerprint(key_bytes).split(":")[:2])


# ------------------------------------------------------------------------------ file format

def file_header(magic: bytes = LOG_MAGIC) -> bytes:
    """The bytes a new log (or secrets) file begins with."""
    return magic + bytes([FILE_VERSION])


def record(data: bytes) -> bytes:
    """One length-prefixed record, ready to append."""
    return len(data).to_bytes(4, "big") + data


@dataclass(frozen=True, slots=True)
class Records:
    """The records of a file; ``torn`` is the number of trailing bytes that do not make a whole
    record (a crash during a write, or a damaged length), which a reader reports and a writer
    truncates before appending; ``good_length`` is where the whole records end."""

    items: tuple[bytes, ...]
    torn: int
    good_length: int


class RecordReader:
    """The records of a file, read one at a time from a binary file object, so that memory
    stays near the largest record whatever the file's size. The header is checked on
    construction (:class:`NotALog`); iterate for the records. Once iteration ends, ``torn``
    is the number of trailing bytes that do not make a whole record and ``good_length`` is
    where the whole records end (as in :class:`Records`)."""

    def __init__(self, stream: BinaryIO, magic: bytes = LOG_MAGIC) -> None:
        head = stream.read(len(magic) + 1)
        if not head:
            raise NotALog("the file is empty")
        if not head.startswith(magic):
            kind = "game log" if magic == LOG_MAGIC else "secrets file"
            raise NotALog(f"this is not a p2p10 {kind} (it does not start with {magic.decode()})")
        if len(head) <= len(magic) or head[len(magic)] != FILE_VERSION:
            raise NotALog("this p2p10 file has a format version this program does not read")
        self.stream = stream
        self.good_length = len(head)
        self.torn = 0

    def __iter__(self) -> Iterator[bytes]:
        stream = self.stream
        while True:
            prefix = stream.read(4)
            if not prefix:
                return
            size = int.from_bytes(prefix, "big")
            data = stream.read(size) if len(prefix) == 4 and size <= MAX_ENTRY_BYTES else b""
            if len(prefix) < 4 or size > MAX_ENTRY_BYTES or len(data) < size:
                # A damaged length or a cut-short record: the rest is not a whole entry.
                self.torn = stream.seek(0, io.SEEK_END) - self.good_length
                return
            self.good_length += 4 + size
            yield data


def read_records(data: bytes, magic: bytes = LOG_MAGIC) -> Records:
    """Split a file's bytes into records; raises :class:`NotALog` if the header is wrong."""
    reader = RecordReader(io.BytesIO(data), magic)
    items = tuple(reader)
    return Records(items, reader.torn, reader.good_length)


def encode_log(entries: list[Entry] | tuple[Entry, ...]) -> bytes:
    """A whole log file's bytes."""
    return file_header() + b"".join(record(e.raw) for e in entries)


def pack_secret(item: list[Any]) -> bytes:
    """One secrets-file record (msgpack)."""
    return primitives.pack(item)


def unpack_secret(data: bytes) -> Any:
    """Decode one secrets-file record."""
    return _unpack(data)
