"""The wire codec: every entry body and every peer message, typed and bounded.

Each body kind and each message is a frozen dataclass with a ``from_wire`` that checks every
field of the decoded msgpack (its type, its range, its length, how deep it nests) before the
rules or the cryptography see it, and a ``to_wire`` that writes it back as the fixed-position
array of ``specs/PROTOCOL.md`` §4.4 and §6.2. The table, the peer and the replay read bodies
only through these classes, so one body is never read two ways.

A decoder raises :class:`WireError` (a :class:`ProtocolError`) whose message never repeats
peer data unbounded: values are shown by :func:`shown`, at most a few dozen characters, without
recursion. What a field *means* (the hand under way, the slots due, whether a point parses) is
the table's business; the codec only guarantees that every value has the shape it must.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from p2p10 import primitives
from p2p10.cards import DECK_SIZE
from p2p10.crypto.elgamal import Ciphertext
from p2p10.crypto.proofs import DleqProof, SchnorrProof
from p2p10.crypto.shuffle import COMMITMENT_BYTES, SEED_BYTES
from p2p10.crypto.shuffle_proof import ShuffleProof
from p2p10.errors import ProtocolError
from p2p10.game_fields import MAX_PLAYERS

MAX_SHOWN = 40          # characters of peer data a message may repeat
MAX_DEPTH = 5           # the deepest body, a lay-down, nests 4 deep: [.., [[[slot, ...], label]], ..]
MAX_HAND = 2**32 - 1    # hand numbers, shuffle rounds, slots and points fit a u64 context with room
MAX_SLOT = 2**32 - 1
MAX_SEQ = 2**63 - 1
MAX_SEATS = MAX_PLAYERS
MAX_ITEMS = 128         # token items in one entry: a 6-seat deal needs 61
MAX_MELDS = 8           # melds in one lay-down (a phase asks for 1 or 2)
MAX_MELD_SLOTS = DECK_SIZE  # slots in one meld
MAX_MELD_INDEX = 255    # a meld number on the table (at most 12 in a 6-seat hand)
MIN_PHASE, MAX_PHASE = 1, 10
MAX_LABEL = 12          # a set's number or a run's start (1 to 12), a colour (0 to 3)
POINT_BYTES = 32
SCALAR_BYTES = 32
KEY_BYTES = 32  # an Ed25519 public key
SIGNATURE_BYTES = 64
HASH_BYTES = 32
GAME_ID_BYTES = 16
MAX_ENTRY_BYTES = 1 << 16  # the largest entry, a 108-card shuffle, is about 7 KB
MAX_MESSAGE_BYTES = MAX_ENTRY_BYTES + 16
MAX_POINTS = 2**32 - 1
MAX_CHAT = 200
CHAT_NONCE_BYTES = 8
CHAT_LABEL = "p2p10/chat/v1"

ENTRY = 0
WANT = 1
CHAT = 2
AGREE = 3
BACK = 4
PRESENCE = 5

# Where a machine's player is, as ``[5, state]`` says it (PROTOCOL 6.2.2): at the table, reading
# the last hand's summary, or gone (quit). Only shown: it changes nothing a peer does.
AT_TABLE, READING, LEFT = 0, 1, 2
PRESENCES = (AT_TABLE, READING, LEFT)


class WireError(ProtocolError):
    """Bytes or a decoded value that do not have the shape the protocol gives them."""


def shown(value: object) -> str:
    """``value`` as at most about :data:`MAX_SHOWN` characters, never by recursion: safe to
    put peer data in a message."""
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):  # msgpack's are at most 64 bits; anything longer is not printed
        return str(value) if value.bit_length() <= 64 else f"a {value.bit_length()}-bit number"
    if isinstance(value, str):
        text = repr(value[:MAX_SHOWN])
        if len(value) <= MAX_SHOWN and len(text) <= MAX_SHOWN + 2:
            return text
        # Cut the repr itself: an escape makes one character up to 10 long ('\U0001089f').
        return f"{text[:MAX_SHOWN]}...{text[-1]}"
    if isinstance(value, bytes | bytearray):
        return f"{len(value)} bytes"
    if isinstance(value, list | tuple):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return f"a map of {len(value)}"
    return f"a {type(value).__name__}"


def bounded(text: str, limit: int = 200) -> str:
    """A message cut to ``limit`` characters (for text that may carry peer data)."""
    return text if len(text) <= limit else text[:limit - 3] + "..."


def is_int(value: object) -> bool:
    """True for an int that is not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def depth(value: object, limit: int = MAX_DEPTH) -> int:
    """How deep ``value`` nests (0 for a scalar), counted without recursion; stops counting
    once past ``limit`` (the answer is then ``limit + 1``)."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, list | tuple | dict):
            level += 1
            if level > limit:
                return limit + 1
            deepest = max(deepest, level)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level) for child in children)
    return deepest


def unpack(data: bytes) -> Any:
    """Decode msgpack under the rules of PROTOCOL §3.2; raises :class:`WireError`."""
    try:
        return primitives.unpack(data)
    except primitives.NotMsgpack as err:
        raise WireError(bounded(f"not valid msgpack: {err}", 120)) from None


def pack(value: Any) -> bytes:
    """Encode as msgpack, byte strings as bin."""
    return primitives.pack(value)


def _int(value: object, low: int, high: int, what: str) -> int:
    if not is_int(value):
        raise WireError(f"{what} must be an integer, not {shown(value)}")
    assert isinstance(value, int)
    if not low <= value <= high:
        raise WireError(f"{what} must be {low} to {high}, not {shown(value)}")
    return value


def _opt_int(value: object, low: int, high: int, what: str) -> int | None:
    return None if value is None else _int(value, low, high, what)


def _bytes(value: object, size: int, what: str) -> bytes:
    if not isinstance(value, bytes):
        raise WireError(f"{what} must be {size} bytes, not {shown(value)}")
    if len(value) != size:
        raise WireError(f"{what} must be {size} bytes, not {len(value)}")
    return value


def _list(value: object, low: int, high: int, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise WireError(f"{what} must be a list, not {shown(value)}")
    if not low <= len(value) <= high:
        raise WireError(f"{what} must hold {low} to {high} items, not {len(value)}")
    return value


def _array(value: object, size: int, form: str) -> list[Any]:
    """A fixed-position array of ``size`` fields, nested no deeper than a body may be."""
    if not (isinstance(value, list) and len(value) == size):
        raise WireError(f"must be {form}")
    if depth(value) > MAX_DEPTH:
        raise WireError(f"nests deeper than {MAX_DEPTH} levels; must be {form}")
    return value


# ---------------------------------------------------------------------------- entry bodies

@dataclass(frozen=True, slots=True)
class TokenItem:
    """One decryption token: ``[slot, T, proof]``."""

    slot: int
    token: bytes
    proof: bytes

    @classmethod
    def from_wire(cls, item: object) -> TokenItem:
        """Check and type one token item."""
        if not (isinstance(item, list) and len(item) == 3):
            raise WireError("a token is [slot, token, proof]")
        return cls(_int(item[0], 0, MAX_SLOT, "a token's slot"), _bytes(item[1], POINT_BYTES, "a token"),
                   _bytes(item[2], DleqProof.WIRE_BYTES, "a token's proof"))

    def to_wire(self) -> list[Any]:
        """``[slot, T, proof]``."""
        return [self.slot, self.token, self.proof]


def _token_items(value: object) -> tuple[TokenItem, ...]:
    return tuple(TokenItem.from_wire(i) for i in _list(value, 0, MAX_ITEMS, "the tokens"))


@dataclass(frozen=True, slots=True)
class KeyBody:
    """``key``: ``[hand, P, Schnorr proof, seed commitment]`` (PROTOCOL §4.4.2)."""

    hand: int
    key: bytes
    proof: bytes
    commitment: bytes

    @classmethod
    def from_wire(cls, body: object) -> KeyBody:
        """Check and type a ``key`` body."""
        f = _array(body, 4, "[hand, key, proof, commitment]")
        return cls(_int(f[0], 0, MAX_HAND, "the hand"), _bytes(f[1], POINT_BYTES, "a hand key"),
                   _bytes(f[2], SchnorrProof.WIRE_BYTES, "a Schnorr proof"),
                   _bytes(f[3], COMMITMENT_BYTES, "a seed commitment"))

    def to_wire(self) -> list[Any]:
        """The body as written."""
        return [self.hand, self.key, self.proof, self.commitment]


@dataclass(frozen=True, slots=True)
class ShuffleBody:
    """``shuffle``: ``[hand, round, deck, proof]`` (PROTOCOL §4.4.3); the deck is ``64·m`` bytes
    and the proof of shuffle ``128·m + 160``."""

    hand: int
    round: int
    deck: bytes
    proof: bytes

    @classmethod
    def from_wire(cls, body: object) -> ShuffleBody:
        """Check and type a ``shuffle`` body."""
        f = _array(body, 4, "[hand, round, deck, proof]")
        hand = _int(f[0], 0, MAX_HAND, "the hand")
        round_no = _int(f[1], 0, MAX_HAND, "the shuffle round")
        deck, proof = f[2], f[3]
        if not (isinstance(deck, bytes) and 0 < len(deck) <= DECK_SIZE * Ciphertext.WIRE_BYTES
                and len(deck) % Ciphertext.WIRE_BYTES == 0):
            raise WireError(f"a shuffled deck is 1 to {DECK_SIZE} ciphertexts of {Ciphertext.WIRE_BYTES} "
                            f"bytes, not {shown(deck)}")
        size = len(deck) // Ciphertext.WIRE_BYTES
        if not (isinstance(proof, bytes) and len(proof) == ShuffleProof.wire_bytes(size)):
            raise WireError(f"the proof of shuffle of {size} cards is {ShuffleProof.wire_bytes(size)} bytes, "
                            f"not {shown(proof)}")
        return cls(hand, round_no, deck, proof)

    def to_wire(self) -> list[Any]:
        """The body as written."""
        return [self.hand, self.round, self.deck, self.proof]

    def ciphertexts(self) -> tuple[bytes, ...]:
        """The deck cut into its ciphertexts' encodings."""
        w = Ciphertext.WIRE_BYTES
        return tuple(self.deck[i:i + w] for i in range(0, len(self.deck), w))


@dataclass(frozen=True, slots=True)
class TokensBody:
    """``tokens``: ``[hand, [[slot, T, proof], ...]]`` (PROTOCOL §4.4.4)."""

    hand: int
    items: tuple[TokenItem, ...]

    @classmethod
    def from_wire(cls, body: object) -> TokensBody:
        """Check and type a ``tokens`` body."""
        f = _array(body, 2, "[hand, [[slot, token, proof], ...]]")
        return cls(_int(f[0], 0, MAX_HAND, "the hand"), _token_items(f[1]))

    def to_wire(self) -> list[Any]:
        """The body as written."""
        return [self.hand, [i.to_wire() for i in self.items]]


@dataclass(frozen=True, slots=True)
class WireMeld:
    """One meld of a lay-down: ``[slots, label]`` (label nil when the cards settle it)."""

    slots: tuple[int, ...]
    label: int | None

    @classmethod
    def from_wire(cls, item: object) -> WireMeld:
        """Check and type one meld."""
        if not (isinstance(item, list) and len(item) == 2):
            raise WireError("a meld is [slots, label]")
        slots = tuple(_int(s, 0, MAX_SLOT, "a slot")
                      for s in _list(item[0], 1, MAX_MELD_SLOTS, "a meld's slots"))
        return cls(slots, _opt_int(item[1], 0, MAX_LABEL, "a meld's label"))

    def to_wire(self) -> list[Any]:
        """``[slots, label]``."""
        return [list(self.slots), self.label]


Action = Literal["draw", "take", "lay", "hit", "discard"]
End = Literal["low", "high"]


@dataclass(frozen=True, slots=True)
class MoveBody:
    """``move`` (PROTOCOL §4.4.5): ``[hand, "draw"]``, ``[hand, "take"]``,
    ``[hand, "lay", phase, [[slots, label], ...], tokens]``,
    ``[hand, "hit", slot, meld, end, tokens]`` or ``[hand, "discard", slot, target, tokens]``.
    Fields an action does not have are None (``melds`` and ``tokens`` empty)."""

    hand: int
    action: Action
    phase: int | None = None
    melds: tuple[WireMeld, ...] = ()
    slot: int | None = None
    meld: int | None = None
    end: End | None = None
    target: int | None = None
    tokens: tuple[TokenItem, ...] = ()

    @classmethod
    def from_wire(cls, body: object) -> MoveBody:
        """Check and type a ``move`` body."""
        if not (isinstance(body, list) and len(body) >= 2):
            raise WireError("a move is [hand, action, ...]")
        action = body[1]
        form = _MOVE_FORMS.get(action) if isinstance(action, str) else None
        if form is None:
            raise WireError(f"{shown(action)} is not a move (draw, take, lay, hit or discard)")
        f = _array(body, form[0], form[1])
        hand = _int(f[0], 0, MAX_HAND, "the hand")
        if action in ("draw", "take"):
            return cls(hand, action)
        if action == "lay":
            melds = tuple(WireMeld.from_wire(m) for m in _list(f[3], 1, MAX_MELDS, "the melds"))
            return cls(hand, "lay", phase=_int(f[2], MIN_PHASE, MAX_PHASE, "the phase"), melds=melds,
                       tokens=_token_items(f[4]))
        slot = _int(f[2], 0, MAX_SLOT, "the slot")
        if action == "hit":
            end = f[4]
            if end not in (None, "low", "high"):
                raise WireError(f"a hit's end is nil, 'low' or 'high', not {shown(end)}")
            return cls(hand, "hit", slot=slot, meld=_int(f[3], 0, MAX_MELD_INDEX, "the meld"), end=end,
                       tokens=_token_items(f[5]))
        return cls(hand, "discard", slot=slot, target=_opt_int(f[3], 0, MAX_SEATS - 1, "a Skip's target"),
                   tokens=_token_items(f[4]))

    @property
    def played(self) -> tuple[int, ...]:
        """The slots the move plays from the hand, in body order."""
        if self.action == "lay":
            return tuple(s for m in self.melds for s in m.slots)
        return () if self.slot is None else (self.slot,)

    def to_wire(self) -> list[Any]:
        """The body as written."""
        tokens = [i.to_wire() for i in self.tokens]
        if self.action in ("draw", "take"):
            return [self.hand, self.action]
        if self.action == "lay":
            return [self.hand, "lay", self.phase, [m.to_wire() for m in self.melds], tokens]
        if self.action == "hit":
            return [self.hand, "hit", self.slot, self.meld, self.end, tokens]
        return [self.hand, "discard", self.slot, self.target, tokens]


_MOVE_FORMS: dict[str, tuple[int, str]] = {
    "draw": (2, "[hand, 'draw']"),
    "take": (2, "[hand, 'take']"),
    "lay": (5, "[hand, 'lay', phase, [[slots, label], ...], tokens]"),
    "hit": (6, "[hand, 'hit', slot, meld, end, tokens]"),
    "discard": (5, "[hand, 'discard', slot, target, tokens]"),
}


@dataclass(frozen=True, slots=True)
class RevealBody:
    """``reveal``: ``[hand, secret, seed, cards, points]`` (PROTOCOL §4.4.6)."""

    hand: int
    secret: bytes
    seed: bytes
    cards: tuple[int, ...]
    points: int

    @classmethod
    def from_wire(cls, body: object) -> RevealBody:
        """Check and type a ``reveal`` body."""
        f = _array(body, 5, "[hand, secret, seed, cards, points]")
        cards = tuple(_int(c, 0, DECK_SIZE - 1, "a card") for c in _list(f[3], 0, DECK_SIZE, "the cards"))
        return cls(_int(f[0], 0, MAX_HAND, "the hand"), _bytes(f[1], SCALAR_BYTES, "a secret"),
                   _bytes(f[2], SEED_BYTES, "a seed"), cards, _int(f[4], 0, MAX_POINTS, "the points"))

    def to_wire(self) -> list[Any]:
        """The body as written."""
        return [self.hand, self.secret, self.seed, list(self.cards), self.points]


def _seat_pairs(value: object, size: int, what: str) -> tuple[tuple[int, bytes], ...]:
    out = []
    for item in _list(value, 0, MAX_SEATS, what):
        if not (isinstance(item, list) and len(item) == 2):
            raise WireError(f"{what} are [seat, bytes] pairs")
        out.append((_int(item[0], 0, MAX_SEATS - 1, "a seat"), _bytes(item[1], size, what)))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class AwayBody:
    """``away``: ``[person, [[seat, key], ...], [[seat, signature], ...]]`` (PROTOCOL §4.13)."""

    person: int
    delegates: tuple[tuple[int, bytes], ...]
    agreements: tuple[tuple[int, bytes], ...]

    @classmethod
    def from_wire(cls, body: object) -> AwayBody:
        """Check and type an ``away`` body."""
        f = _array(body, 3, "[person, [[seat, key], ...], [[seat, signature], ...]]")
        return cls(_int(f[0], 0, MAX_SEATS - 1, "the person"), _seat_pairs(f[1], KEY_BYTES, "new keys"),
                   _seat_pairs(f[2], SIGNATURE_BYTES, "agreements"))

    def to_wire(self) -> list[Any]:
        """The body as written."""
        return [self.person, [list(d) for d in self.delegates], [list(a) for a in self.agreements]]


@dataclass(frozen=True, slots=True)
class BackBody:
    """``back``: ``[person, away, signature]`` (PROTOCOL §4.14): ``person``'s machine, which the
    table went on without at the ``away`` entry ``away``, takes its seats back; ``signature``
    is its request, signed with its own identity key. The same triple is the request message."""

    person: int
    away: int
    signature: bytes

    @classmethod
    def from_wire(cls, body: object) -> BackBody:
        """Check and type a ``back`` body (or request)."""
        f = _array(body, 3, "[person, away entry, signature]")
        return cls(_int(f[0], 0, MAX_SEATS - 1, "the person"), _int(f[1], 0, MAX_SEQ, "the away entry"),
                   _bytes(f[2], SIGNATURE_BYTES, "a signature"))

    def to_wire(self) -> list[Any]:
        """The body as written."""
        return [self.person, self.away, self.signature]


Body = KeyBody | ShuffleBody | TokensBody | MoveBody | RevealBody | AwayBody | BackBody

BODIES: dict[str, type[KeyBody] | type[ShuffleBody] | type[TokensBody] | type[MoveBody]
             | type[RevealBody] | type[AwayBody] | type[BackBody]] = {
    "key": KeyBody, "shuffle": ShuffleBody, "tokens": TokensBody, "move": MoveBody,
    "reveal": RevealBody, "away": AwayBody, "back": BackBody,
}


def decode_body(kind: str, body: object) -> Body:
    """The typed body of an entry of ``kind`` (any kind but ``table``); raises :class:`WireError`
    saying, in bounded words, what is wrong."""
    codec = BODIES.get(kind)
    if codec is None:
        raise WireError(f"{shown(kind)} is not a kind of entry")
    try:
        return codec.from_wire(body)
    except WireError as err:
        text = str(err)
        joined = f" {text}" if text.startswith(("must", "nests")) else f": {text}"
        raise WireError(f"the {kind} entry{joined}") from None


# --------------------------------------------------------------------------- peer messages

@dataclass(frozen=True, slots=True)
class Agreement:
    """``[3, [person, seq, prev_hash, signer, signature]]``: ``signer`` agrees that the table
    goes on without ``person``'s machine at ``seq`` (PROTOCOL §4.13)."""

    person: int
    seq: int
    prev_hash: bytes
    signer: int
    signature: bytes

    @classmethod
    def from_wire(cls, value: object) -> Agreement:
        """Check and type an agreement."""
        if not (isinstance(value, list) and len(value) == 5):
            raise WireError("an agreement is [person, seq, prev_hash, signer, signature]")
        return cls(_int(value[0], 0, MAX_SEATS - 1, "the person"), _int(value[1], 0, MAX_SEQ, "the position"),
                   _bytes(value[2], HASH_BYTES, "the previous hash"),
                   _int(value[3], 0, MAX_SEATS - 1, "the signer"),
                   _bytes(value[4], SIGNATURE_BYTES, "a signature"))

    def to_wire(self) -> list[Any]:
        """The agreement as sent."""
        return [self.person, self.seq, self.prev_hash, self.signer, self.signature]


@dataclass(frozen=True, slots=True)
class Chat:
    """A signed line of chat (PROTOCOL §6.2.1): ``[body, signature]``, the body
    ``["p2p10/chat/v1", game_id, seat, nonce, text]``. ``body`` is kept as signed."""

    body: bytes
    signature: bytes
    game_id: bytes
    seat: int
    nonce: bytes
    text: str

    @classmethod
    def from_wire(cls, signed: bytes) -> Chat:
        """Check and type a chat message (the text's printability is the peer's business)."""
        outer = unpack(signed)
        if not (isinstance(outer, list) and len(outer) == 2 and isinstance(outer[0], bytes)):
            raise WireError("a chat message is [body, signature]")
        body = outer[0]
        signature = _bytes(outer[1], SIGNATURE_BYTES, "a signature")
        f = unpack(body)
        if not (isinstance(f, list) and len(f) == 5 and f[0] == CHAT_LABEL):
            raise WireError(f"a chat body is [{CHAT_LABEL!r}, game, seat, nonce, text]")
        text = f[4]
        if not (isinstance(text, str) and 0 < len(text) <= MAX_CHAT):
            raise WireError(f"a chat line is 1 to {MAX_CHAT} characters")
        return cls(body, signature, _bytes(f[1], GAME_ID_BYTES, "a game id"),
                   _int(f[2], 0, MAX_SEATS - 1, "a seat"), _bytes(f[3], CHAT_NONCE_BYTES, "a nonce"), text)

    @staticmethod
    def body_bytes(game_id: bytes, seat: int, nonce: bytes, text: str) -> bytes:
        """The bytes a chat line's author signs."""
        return pack([CHAT_LABEL, game_id, seat, nonce, text])

    @staticmethod
    def signed_bytes(body: bytes, signature: bytes) -> bytes:
        """The chat message as it travels inside ``[2, chat]``."""
        return pack([body, signature])


# Each kind of message: whether its body has the shape it must, and what is returned for it
# (None: the body itself; agreements and requests to come back are parsed further, and raise
# for a bad one).
_MESSAGE_BODIES: dict[int, tuple[Callable[[Any], bool], Callable[[Any], Any] | None]] = {
    ENTRY: (lambda v: isinstance(v, bytes) and len(v) <= MAX_ENTRY_BYTES, None),
    WANT: (lambda v: is_int(v) and 0 <= v <= 2**64 - 1, None),
    CHAT: (lambda v: isinstance(v, bytes), None),
    AGREE: (lambda v: isinstance(v, list), Agreement.from_wire),
    BACK: (lambda v: isinstance(v, list), BackBody.from_wire),
    PRESENCE: (lambda v: type(v) is int and v in PRESENCES, None),
}


def decode_message(data: bytes) -> tuple[int, Any]:
    """``(ENTRY, envelope bytes)``, ``(WANT, seq)``, ``(CHAT, signed chat bytes)`` or
    ``(AGREE, Agreement)``, ``(BACK, BackBody)`` or ``(PRESENCE, state)``; raises
    :class:`ProtocolError` (PROTOCOL §6.2)."""
    if len(data) > MAX_MESSAGE_BYTES:
        raise WireError(f"a message is at most {MAX_MESSAGE_BYTES} bytes")
    try:
        item = unpack(data)
    except WireError:
        raise WireError("the message is not valid msgpack") from None
    if isinstance(item, list) and len(item) == 2 and type(item[0]) is int:  # not True, not 1.0
        kind, value = item
        read = _MESSAGE_BODIES.get(kind)
        if read is not None and read[0](value):
            return kind, value if read[1] is None else read[1](value)
    raise WireError("a message is [0, entry], [1, sequence number], [2, chat], [3, agreement], "
                    "[4, request to come back] or [5, presence 0 to 2]")


def encode_entry_message(raw: bytes) -> bytes:
    """The message that carries one entry."""
    return pack([ENTRY, raw])


def encode_want(seq: int) -> bytes:
    """The message that asks for the entries from ``seq`` on."""
    return pack([WANT, seq])


def encode_chat(signed: bytes) -> bytes:
    """The message that carries one signed chat line."""
    return pack([CHAT, signed])


def encode_agreement(agreement: Agreement) -> bytes:
    """The message that carries one agreement to go on."""
    return pack([AGREE, agreement.to_wire()])


def encode_back(request: BackBody) -> bytes:
    """The message that carries a machine's signed request to take its seats back."""
    return pack([BACK, request.to_wire()])


def encode_presence(state: int) -> bytes:
    """The message that says where this machine's player is (one of :data:`PRESENCES`)."""
    return pack([PRESENCE, state])
