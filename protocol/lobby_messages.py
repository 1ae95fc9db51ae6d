"""The lobby's messages and their checks, shared by both sides of it: what a LAN table's errors
are, a seat as the roster lists it, the signed join and roster messages, and the msgpack they
travel in. The host's side is protocol.lobby, the joiner's protocol.taking_seat."""

from __future__ import annotations

import errno
import os
import re
from dataclasses import dataclass
from typing import Any

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p10.errors import BadRules, P2P10Error, ProtocolError
from p2p10.game_fields import MAX_PLAYERS, MIN_PLAYERS
from p2p10.i18n import N_, _, ngettext
from p2p10.log import (
    GAME_ID_BYTES,
    PUBLIC_KEY_BYTES,
    SIGNATURE_BYTES,
    BadEntry,
    public_key,
)
from p2p10.rules import RuleSet
from p2p10.signing import Domain, sign, verify
from p2p10.sitdown import MAX_NAME

LOBBY_MAX_BYTES = 4096  # a roster of six seats is well under 1 KB, a sit-down about 300 bytes


class LanError(P2P10Error):
    """Something about the LAN table went wrong (a message a player can read)."""


class WrongCode(LanError):
    """A private table's host refused this machine's code, or the table needs one and none
    was given (``needed``): the player may type it again."""

    def __init__(self, message: str, needed: bool = False) -> None:
        super().__init__(message)
        self.needed = needed


class CodeBusy(LanError):
    """A private table's host is slowing down attempts at its code (other machines try it):
    dial again in :attr:`wait` seconds, which keeps this machine's turn."""

    def __init__(self, message: str, wait: int) -> None:
        super().__init__(message)
        self.wait = wait


class GameStarted(LanError):
    """The host refused the seat because its game has started (it may still be watched)."""


def unreachable(host: str, port: int, error: OSError) -> LanError:
    """Why nothing could be reached at ``host``:``port``, in plain words: nobody answering
    there (a refused connection: no program listens on that port) is said as such, anything
    else with the system's own words for it (not the event loop's "Connect call failed")."""
    if error.errno == errno.ECONNREFUSED:
        # TRANSLATORS: nothing listens at this address (the connection was refused).
        return LanError(_("nobody answers at {host}:{port}: no table is open at that address "
                          "(is the host's program running, and are the address and port "
                          "right?)").format(host=host, port=port))
    reason = (os.strerror(error.errno) if error.errno else "") or str(error) or type(error).__name__
    return LanError(_("cannot reach a table at {host}:{port}: {reason}").format(
        host=host, port=port, reason=reason))


# What a private table's host answers, in English on the wire (the guest matches them).
CODE_NEEDED = "this table is private: its code is needed"
CODE_WRONG = "wrong code"
CODE_NOT_PRIVATE = "this table is not private: join without a code"
GAME_STARTED = "the game has started"
CODE_BUSY = re.compile(r"too many wrong codes: try again in ([0-9]{1,5}) s")


def shown(text: str, limit: int = 200) -> str:
    """Words from another machine, as they may be shown on a terminal: every character that is
    not printable (an escape sequence, a newline) replaced by "?", and at most ``limit``
    characters."""
    text = "".join(c if c.isprintable() else "?" for c in text[:limit + 1])
    return text if len(text) <= limit else text[:limit - 1] + "…"


def refused(item: list[Any]) -> None:
    """Raise for a host's ``["refused", reason]``: :class:`WrongCode` for a code refused or
    needed, :class:`LanError` for any other reason (the host's words, made safe to show)."""
    if not (item[:1] == ["refused"] and len(item) == 2 and isinstance(item[1], str)):
        return
    reason = shown(item[1])
    if reason == CODE_WRONG:
        raise WrongCode(_("the host refused the code: it is not this table's code"))
    if reason == CODE_NEEDED:
        raise WrongCode(_("this table is private: ask the host for its code and join with "
                          "--code CODE"), needed=True)
    if reason == CODE_NOT_PRIVATE:
        raise LanError(_("this table is not private: join it without --code"))
    if reason == GAME_STARTED:
        raise GameStarted(_("the game at this table has started: no seat is free now"))
    busy = CODE_BUSY.fullmatch(reason)
    if busy is not None:
        wait = max(1, int(busy.group(1)))
        # TRANSLATORS: a private table's host lets only a few attempts at its code a minute,
        # and other machines are trying; the guest dials again by itself.
        raise CodeBusy(ngettext("the host is slowing down attempts at its code (others are "
                                "trying): dialling again in {n} s",
                                "the host is slowing down attempts at its code (others are "
                                "trying): dialling again in {n} s", wait).format(n=wait), wait)
    # TRANSLATORS: {reason} is the host's own words, in English.
    raise LanError(_("the host refused the seat: {reason}").format(reason=reason))


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """One seat of the roster: who sits there and where its mesh listens ("" for the host
    address the others already know)."""

    name: str
    key: bytes
    host: str
    port: int


# What the host sends a joiner (``["refused", reason]``) stays in English, whatever the host's
# language: the joiner may speak another. The host's own user reads the same reason in theirs.
_NAME_RULE = N_("a name is 1 to {n} printable characters")


def _in_both(message: str, **values: object) -> tuple[str, str]:
    """``message`` (marked with ``N_``) filled with ``values``: in English for the wire, and
    in the user's language."""
    return message.format(**values), _(message).format(**values)


def valid_name(name: str) -> str:
    """``name`` trimmed, or :class:`LanError` if a table entry could not carry it."""
    name = name.strip()
    if not 0 < len(name) <= MAX_NAME or not name.isprintable():
        raise LanError(_(_NAME_RULE).format(n=MAX_NAME))
    return name


def pack(item: list[Any]) -> bytes:
    """One lobby (or roster file) item as msgpack."""
    return bytes(msgpack.packb(item, use_bin_type=True))


def unpack(data: bytes) -> Any:
    """A lobby item from msgpack; raises :class:`ProtocolError`."""
    try:
        return msgpack.unpackb(data, raw=False, strict_map_key=True)
    except (ValueError, TypeError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError):
        raise ProtocolError("a lobby message is not valid msgpack") from None


def signed(identity: Ed25519PrivateKey, item: list[Any]) -> bytes:
    """A joiner's lobby frame: ``item`` signed by its key under the lobby's domain tag."""
    payload = pack(item)
    return pack([payload, sign(identity, Domain.LOBBY, payload)])


def open_signed(data: bytes, key: bytes | None) -> list[Any]:
    """The item of a joiner's signed lobby frame, checked against ``key`` (None for a join,
    which names the key that signs it); raises :class:`ProtocolError`."""
    outer = unpack(data)
    if not (isinstance(outer, list) and len(outer) == 2 and isinstance(outer[0], bytes)
            and isinstance(outer[1], bytes) and len(outer[1]) == SIGNATURE_BYTES):
        raise ProtocolError("a joiner's lobby frame is [payload, 64-byte signature]")
    item = unpack(outer[0])
    if not (isinstance(item, list) and item):
        raise ProtocolError("a lobby message is a non-empty array")
    if key is None:
        key = item[2] if item[0] == "join" and len(item) == 5 else None
        if not (isinstance(key, bytes) and len(key) == PUBLIC_KEY_BYTES):
            raise ProtocolError("a join is ['join', name, key, host, port]")
    try:
        verifier = public_key(key)
    except BadEntry as err:
        raise ProtocolError(str(err)) from None
    if not verify(verifier, Domain.LOBBY, outer[0], outer[1]):
        raise ProtocolError("a lobby message is not signed by its sender's key")
    return item


def is_port(value: object) -> bool:
    """True for a TCP port number (an int, not a bool, 1 to 65535)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 65536


def parse_seat(item: object) -> SeatInfo:
    """A ``[name, key, host, port]`` from the wire; raises :class:`ProtocolError`."""
    if not (isinstance(item, list) and len(item) == 4 and isinstance(item[0], str)
            and isinstance(item[1], bytes) and len(item[1]) == PUBLIC_KEY_BYTES
            and isinstance(item[2], str) and len(item[2]) <= 255 and is_port(item[3])):
        raise ProtocolError("a seat is [name, 32-byte key, host, port]")
    public_key(item[1])  # refuses a key that is not a point, or of small order
    try:
        name = valid_name(item[0])
    except LanError:
        raise ProtocolError(_NAME_RULE.format(n=MAX_NAME)) from None  # sent in a refusal
    return SeatInfo(name, item[1], item[2], item[3])


def roster_message(table_id: bytes, rules: RuleSet, roster: list[SeatInfo]) -> bytes:
    """``["roster", table id, rule options, seats]`` as msgpack."""
    seats = [[s.name, s.key, s.host, s.port] for s in roster]
    return pack(["roster", table_id, list(rules.options()), seats])


def parse_roster(item: object) -> tuple[bytes, RuleSet, list[SeatInfo]]:
    """``["roster", table id, rule options, seats]``; raises :class:`ProtocolError`."""
    if not (isinstance(item, list) and len(item) == 4 and item[0] == "roster"
            and isinstance(item[1], bytes) and len(item[1]) == GAME_ID_BYTES
            and isinstance(item[2], list) and all(isinstance(o, str) for o in item[2])
            and isinstance(item[3], list) and MIN_PLAYERS <= len(item[3]) <= MAX_PLAYERS):
        # TRANSLATORS: keep the bracketed form as it is: it is what the message looks like.
        raise ProtocolError(_("not a roster: ['roster', table id, rule options, seats]"))
    try:
        rules = RuleSet.parse(item[2])
    except BadRules as err:
        raise ProtocolError(_("the roster's rules: {reason}").format(reason=err)) from None
    roster = [parse_seat(s) for s in item[3]]
    if len({s.key for s in roster}) != len(roster):
        raise ProtocolError(_("the roster seats one key twice"))
    return item[1], rules, roster


def renamed(given: str, mine: str) -> bool:
    """True when the roster's ``given`` name is ``mine``, or ``mine`` told apart from a
    namesake by a number ("Guest 2", see :meth:`Lobby.unique`)."""
    stem, _space, number = given.rpartition(" ")
    return given == mine or (number.isdigit() and bool(stem) and mine.startswith(stem))
