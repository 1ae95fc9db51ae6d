"""A seat's own saved log read back: its entries parsed, the whole of it checked as one fold (what
every seat of one machine can share), and the hand keys the seat published in it, whose secrets
it must still hold. The peer that resumes from it is p2p10.peer."""

from __future__ import annotations

from collections.abc import Sequence

from p2p10.errors import ProtocolError, SavedFileError
from p2p10.log import BadEntry, Entry, parse_entry, public_bytes
from p2p10.primitives import Ed25519PrivateKey
from p2p10.table import TableState, fold
from p2p10.wire import (
    KeyBody,
    decode_body,
)


def identity_bytes(key: Ed25519PrivateKey) -> bytes:
    """A peer's public identity (its Ed25519 public key)."""
    return public_bytes(key)


def parse_saved(records: Sequence[bytes]) -> list[Entry]:
    """The entries of a saved log, parsed from its records as stored; :class:`SavedFileError`
    naming the first that does not parse."""
    entries = []
    for index, raw in enumerate(records):
        try:
            entries.append(parse_entry(raw))
        except BadEntry as err:
            raise SavedFileError(f"entry {index} of the saved log does not check: {err}") from None
    return entries


def check_saved(entries: Sequence[Entry], since: TableState | None = None) -> TableState | None:
    """A peer's own saved log folded and checked again, as :meth:`Peer.restore` needs it: the
    state after ``entries``, checking every proof on arrival from there on (None for an empty
    log). Every seat of one machine restores from the same public fold, so it is made once.

    ``since``: a state this machine checked before over the first ``since.seq`` of
    ``entries`` (a checkpoint, see ``protocol.checkpoint``); only the entries after it are
    folded. From the start or from between two hands, the entries are folded as the audit
    folds them, each hand checked with its revealed secrets at its end, and the hand under way
    where the log ends checked through its proofs; from the middle of a hand, on arrival, as
    the peer that saved the checkpoint went on folding them. Either way the verdict is the one
    a peer reached when the entries came.

    Raises :class:`SavedFileError` naming the first entry that does not check."""
    table = since
    start = 0 if since is None else since.seq
    if since is not None and (start > len(entries) or entries[start - 1].hash != since.last_hash):
        raise SavedFileError("the checkpoint does not cover the saved log")  # a caller's bug
    deferring = since is None or since.hand is None
    if since is not None and deferring and start < len(entries):
        table = since.deferring()
    for index in range(start, len(entries)):
        try:
            table = fold(table, entries[index], defer_proofs=deferring)
        except ProtocolError as err:
            raise SavedFileError(f"entry {index} of the saved log does not check: {err}") from None
    if table is not None and table.defer_proofs:
        try:
            table = table.checking_on_arrival()
        except ProtocolError as err:
            raise SavedFileError(f"the saved log does not check: {err}") from None
    return table


def _published_keys(entries: Sequence[Entry], table: TableState | None, seat: int,
                    own: bytes) -> dict[int, tuple[int, bytes, bytes]]:
    """By hand, the hand key that ``seat`` published under the key ``own`` in a checked log
    (whose fold is ``table``): the entry's position, the key and its seed commitment. A hand
    dealt again (after an ``away`` entry) keeps the last one."""
    published: dict[int, tuple[int, bytes, bytes]] = {}
    if table is None:
        return published
    for entry in entries:
        if (entry.kind == "key" and entry.author == seat
                and table.verifier_at(seat, entry.seq).public_bytes_raw() == own):
            body = decode_body("key", entry.body)  # (it checked: it is a key body)
            assert isinstance(body, KeyBody)
            published[body.hand] = (entry.seq, body.key, body.commitment)
    return published
