"""A seat's sit-down: what one player signs to take a seat, and the game id all of them make.

Before a game, every seat signs its own sit-down with its identity key:

    payload   = msgpack [table_id, seat, name, key, run_by, options, nonce]
    sit-down  = msgpack [payload, signature]
    signature = Ed25519(key, signed_bytes(SIT_DOWN, payload))   (p2p10.signing)

``run_by`` is None for a seat with a player of its own, or the seat whose machine runs it as a
bot (the host signs its bots' sit-downs with each bot's own key); ``options`` are the rule
options the seat saw, in canonical form; ``nonce`` is 16 fresh random bytes. The table entry
carries every seat's sit-down (:mod:`p2p10.table`), so a host cannot name a seat, mark it as
its bot or change the rules without that seat's own signature; and the game id is a hash of
every seat's nonce (:func:`game_id_of`), so nobody chooses it alone and an honest seat's fresh
nonce makes every game new: no entry of one game verifies in another.
"""

from __future__ import annotations

import hashlib
import os
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from p2p10 import primitives
from p2p10.crypto.group import frame
from p2p10.errors import ProtocolError
from p2p10.game_fields import MAX_PLAYERS
from p2p10.log import GAME_ID_BYTES, PUBLIC_KEY_BYTES, SIGNATURE_BYTES, BadEntry, public_bytes, public_key
from p2p10.primitives import Ed25519PrivateKey
from p2p10.rules import RuleSet
from p2p10.signing import Domain, sign, verify
from p2p10.wire import is_int

GAME_ID_CONTEXT = b"p2p10/game-id"
NONCE_BYTES = 16
MAX_NAME = 32
MAX_OPTIONS = 16  # far more than the rule options there are
MAX_SIT_DOWN_BYTES = 1024  # a sit-down is about 200 bytes


class BadSitDown(ProtocolError):
    """Bytes that are not a well-formed sit-down, or whose signature does not verify."""


@dataclass(frozen=True, slots=True)
class SitDown:
    """One seat's signed sit-down, checked: its signature verifies under ``key``. ``raw`` is
    the sit-down exactly as signed and sent (the table entry carries these bytes)."""

    raw: bytes
    table_id: bytes
    seat: int
    name: str
    key: bytes
    run_by: int | None
    options: tuple[str, ...]
    nonce: bytes

    @property
    def terms(self) -> tuple[object, ...]:
        """What the seat signed, whatever the encoding of the bytes that carry it."""
        return (self.table_id, self.seat, self.name, self.key, self.run_by, self.options, self.nonce)


# The Unicode general categories of the characters a name may not hold (PROTOCOL 4.4.1):
# "Other" and "Separator", except U+0020 SPACE. This is what Python's str.isprintable means,
# written out so that another language can reproduce it.
UNPRINTABLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})


def printable(char: str) -> bool:
    """True for a printable character: U+0020, or one whose general category (in the Unicode
    database of this Python, :data:`unicodedata.unidata_version`) is not in
    :data:`UNPRINTABLE_CATEGORIES`."""
    return char == " " or unicodedata.category(char) not in UNPRINTABLE_CATEGORIES


def valid_name(name: object) -> bool:
    """True for a name a table can carry: 1 to 32 code points, each :func:`printable`."""
    return isinstance(name, str) and 0 < len(name) <= MAX_NAME and all(printable(c) for c in name)


def _pack(item: Any) -> bytes:
    return primitives.pack(item)


def _unpack(data: bytes) -> Any:
    try:
        return primitives.unpack(data, max_bin_len=MAX_SIT_DOWN_BYTES)
    except primitives.NotMsgpack:
        raise BadSitDown("a sit-down is not valid msgpack") from None


def sign_sit_down(identity: Ed25519PrivateKey, table_id: bytes, seat: int, name: str,
                  rules: RuleSet, run_by: int | None = None, nonce: bytes | None = None) -> SitDown:
    """Sign a sit-down for ``seat`` at table ``table_id`` with a fresh nonce (``nonce`` only
    for reproducible test games)."""
    nonce = os.urandom(NONCE_BYTES) if nonce is None else nonce
    payload = _pack([table_id, seat, name, public_bytes(identity), run_by, list(rules.options()), nonce])
    return parse_sit_down(_pack([payload, sign(identity, Domain.SIT_DOWN, payload)]))


def _is_seat(value: Any) -> bool:
    return is_int(value) and 0 <= value < MAX_PLAYERS


def _fixed_bytes(size: int) -> Callable[[Any], bool]:
    return lambda value: isinstance(value, bytes) and len(value) == size


def _are_options(value: Any) -> bool:
    return (isinstance(value, list) and len(value) <= MAX_OPTIONS
            and all(isinstance(o, str) and o.isascii() and len(o) <= 64 for o in value))


# The payload's seven fields in order, each with its check and what a failure says; checked in
# this order, so a sit-down wrong in two fields is refused for the first.
_FIELDS: tuple[tuple[Callable[[Any], bool], str], ...] = (
    (_fixed_bytes(GAME_ID_BYTES), f"a sit-down's table id is {GAME_ID_BYTES} bytes"),
    (_is_seat, f"a sit-down's seat is 0 to {MAX_PLAYERS - 1}"),
    (valid_name, f"a sit-down's name is 1 to {MAX_NAME} printable characters"),
    (_fixed_bytes(PUBLIC_KEY_BYTES), f"a sit-down's key is {PUBLIC_KEY_BYTES} bytes"),
    (lambda value: value is None or _is_seat(value),
     "a sit-down's run_by (whose bot it is) is nil or a seat"),
    (_are_options, f"a sit-down's options are at most {MAX_OPTIONS} short ASCII strings"),
    (_fixed_bytes(NONCE_BYTES), f"a sit-down's nonce is {NONCE_BYTES} bytes"),
)


def _signed_parts(raw: object) -> tuple[bytes, bytes, bytes]:
    """A sit-down's bytes, its payload and its signature, their shape checked."""
    if not isinstance(raw, bytes) or len(raw) > MAX_SIT_DOWN_BYTES:
        raise BadSitDown(f"a sit-down is a byte string of at most {MAX_SIT_DOWN_BYTES} bytes")
    outer = _unpack(raw)
    if not (isinstance(outer, list) and len(outer) == 2 and isinstance(outer[0], bytes)
            and isinstance(outer[1], bytes) and len(outer[1]) == SIGNATURE_BYTES):
        raise BadSitDown("a sit-down is [payload, 64-byte signature]")
    return raw, outer[0], outer[1]


def parse_sit_down(raw: object) -> SitDown:
    """A sit-down from its bytes, its shape and its signature checked; raises
    :class:`BadSitDown` saying what is wrong (never repeating the bytes)."""
    data, payload, signature = _signed_parts(raw)
    fields = _unpack(payload)
    if not (isinstance(fields, list) and len(fields) == len(_FIELDS)):
        raise BadSitDown("a sit-down's payload is [table id, seat, name, key, run_by, options, nonce]")
    for value, (valid, why) in zip(fields, _FIELDS, strict=True):
        if not valid(value):
            raise BadSitDown(why)
    table_id, seat, name, key, run_by, options, nonce = fields
    try:
        verifier = public_key(key)
    except BadEntry as err:
        raise BadSitDown(f"a sit-down's key: {err}") from None
    if not verify(verifier, Domain.SIT_DOWN, payload, signature):
        raise BadSitDown(f"the sit-down for seat {seat + 1} is not signed by its key") from None
    return SitDown(data, table_id, seat, name, key, run_by, tuple(options), nonce)


def game_id_of(table_id: bytes, nonces: Sequence[bytes]) -> bytes:
    """The game id of a table whose seats' sit-downs carry ``nonces``, in seat order:
    BLAKE2b with a 16-byte digest of ``frame("p2p10/game-id", table_id, nonce_0, ...)``."""
    return hashlib.blake2b(frame(GAME_ID_CONTEXT, table_id, *nonces), digest_size=GAME_ID_BYTES).digest()
