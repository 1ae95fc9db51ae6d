"""Table chat (PROTOCOL §6.2.1): lines signed by their seat and bound to the game, passed on
once, shown to the players, and never part of the log.

A :class:`ChatRoom` keeps the lines a peer shows and the signed messages it has seen (so that
each is passed on once and a repeat is dropped). :func:`check_chat` reads a message from the
wire against the table; :func:`sign_chat` makes this seat's own. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from p2p10.errors import IllegalMove, ProtocolError
from p2p10.i18n import _
from p2p10.primitives import Ed25519PrivateKey
from p2p10.signing import Domain, sign, verify
from p2p10.table import TableState
from p2p10.wire import MAX_CHAT, Chat, WireError

CHAT_KEPT = 500  # lines of chat a peer keeps to show (and signed messages, to drop repeats)


@dataclass(frozen=True, slots=True)
class ChatLine:
    """A line of table chat, signed by ``seat``: ``signed`` is the message as on the wire
    (what a host passes on to its spectators, who check it themselves)."""

    seat: int
    text: str
    signed: bytes = field(default=b"", compare=False, repr=False)


# A seat's machine tells the players who watches it (``p2p10 watch``) with a chat line of its
# seat in this form, "/watching N: NAMES" ("/watching 0" for nobody): a notice, shown as one in
# each player's language and attributed to nobody. A person's typed line may not take this form
# (:func:`typed_text`), so only a machine's gallery writes it.
NOTICE_PREFIX = "/watching"
_SEPARATOR = ", "


def spectators_notice(names: Sequence[str]) -> str:
    """The chat text that says who watches now: every name that fits in a chat line, and how
    many watch in all."""
    head = f"{NOTICE_PREFIX} {len(names)}"
    if not names:
        return head
    text = f"{head}: "
    for number, name in enumerate(names):
        piece = (_SEPARATOR if number else "") + name
        if len(text) + len(piece) > MAX_CHAT:
            break
        text += piece
    return text


@dataclass(frozen=True, slots=True)
class Spectators:
    """A notice of who watches: ``count`` spectators, ``names`` those named (all of them, or
    as many as a chat line holds)."""

    count: int
    names: str


def spectators_in(text: str) -> Spectators | None:
    """The notice a chat line's text carries, or None for a line somebody said."""
    head, colon, names = text.partition(": ")
    word, _space, count = head.partition(" ")
    if word != NOTICE_PREFIX or not (count.isascii() and count.isdigit()) or len(count) > 3:
        return None
    if (int(count) == 0) != (not colon):
        return None
    return Spectators(int(count), names)


def typed_text(text: str) -> str:
    """A line a person typed, as :func:`chat_text`; :class:`IllegalMove` too for one in the
    form of a notice (which would show as the table's word, not theirs)."""
    text = chat_text(text)
    if text.split(" ", 1)[0] == NOTICE_PREFIX:
        # TRANSLATORS: {prefix} is "/watching", as it is.
        raise IllegalMove(_("a chat line may not start with {prefix}: the table's notices "
                            "do").format(prefix=NOTICE_PREFIX))
    return text


class ChatRefused(ProtocolError):
    """A chat message from the wire that cannot be shown; the reason names no peer data."""


def chat_text(text: str) -> str:
    """``text`` as a line of chat, or :class:`IllegalMove` saying why it cannot be one."""
    text = text.strip()
    if not 0 < len(text) <= MAX_CHAT or not text.isprintable():
        raise IllegalMove(f"a chat line is 1 to {MAX_CHAT} printable characters")
    return text


def sign_chat(identity: Ed25519PrivateKey, table: TableState, seat: int, nonce: bytes,
              text: str) -> tuple[bytes, ChatLine]:
    """This seat's line ``text`` (already :func:`chat_text`), signed: the message and the line."""
    body = Chat.body_bytes(table.game_id, seat, nonce, text)
    signed = Chat.signed_bytes(body, sign(identity, Domain.CHAT, body))
    return signed, ChatLine(seat, text, signed)


def check_chat(table: TableState, signed: bytes) -> ChatLine:
    """The line a signed chat message from the wire says; :class:`ChatRefused` if it is
    malformed, of another game, or not signed by the seat it names."""
    try:
        chat = Chat.from_wire(signed)
        if chat.seat >= table.players:
            raise WireError("no such seat")
        text = chat_text(chat.text)
    except (WireError, IllegalMove):
        raise ChatRefused("a malformed chat message") from None
    if chat.game_id != table.game_id:
        raise ChatRefused("a chat message of another game")
    if not verify(table.verifiers[chat.seat], Domain.CHAT, chat.body, chat.signature):
        raise ChatRefused("a chat message whose signature does not verify")
    return ChatLine(chat.seat, text, signed)


class ChatRoom:
    """The lines a peer shows, oldest first (at most :data:`CHAT_KEPT`), and the messages seen."""

    __slots__ = ("_seen", "lines")

    def __init__(self) -> None:
        self.lines: list[ChatLine] = []
        self._seen: dict[bytes, None] = {}  # insertion-ordered, so the oldest go first

    def seen(self, signed: bytes) -> bool:
        """True for a message this peer has kept already (it was passed on then)."""
        return signed in self._seen

    def keep(self, signed: bytes, line: ChatLine) -> None:
        """Keep a new line (the caller passes the message on, once)."""
        self._seen[signed] = None
        if len(self._seen) > CHAT_KEPT:
            del self._seen[next(iter(self._seen))]
        self.lines = [*self.lines[-(CHAT_KEPT - 1):], line]
