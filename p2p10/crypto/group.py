"""Typed, validated wrappers around the ristretto255 group of libsodium (through
:mod:`p2p10.primitives`).

``Point`` and ``Scalar`` are immutable values that cannot hold an invalid encoding: the
constructor checks every value that comes from outside, so a value received from a peer and a
value computed here are equally trustworthy. A point libsodium computes from valid points
(``mul``, ``base_mul``, ``+``, ``-``) is valid by construction and is not checked again. The
identity point is representable (the initial deck needs it, and sums can reach it) but
``Point.from_bytes`` refuses it unless the caller says it is allowed there.

Group arithmetic is libsodium's; nothing here is hand-rolled.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from p2p10 import primitives
from p2p10.cards import DECK_SIZE
from p2p10.errors import ProtocolError

POINT_BYTES = 32
SCALAR_BYTES = 32
CARD_DOMAIN = b"p2p10/card/v1"
GROUP_ORDER = 2**252 + 27742317777372353535851937790883648493

RandomBytes = Callable[[int], bytes]

# For benchmarks only (``benchmarks/bench_dealing.py``): how many scalar multiplications this
# process has done, by kind: "mul" (variable base, ``mul``) and "base_mul" (fixed base,
# ``base_mul``). Nothing in the protocol reads it; a benchmark clears it and reads it back.
MULTIPLICATIONS: Counter[str] = Counter()


class BadPoint(ProtocolError):
    """Bytes that are not a valid ristretto255 point, or the identity where it is not allowed."""


class BadScalar(ProtocolError):
    """Bytes that are not a canonical (fully reduced) ristretto255 scalar."""


class NotACard(ProtocolError):
    """An opened ciphertext whose plaintext is none of the 108 card points."""


def _reduce64(wide: bytes) -> bytes:
    return bytes(primitives.scalar_reduce(wide))


@dataclass(frozen=True, slots=True)
class Scalar:
    """An integer modulo the group order ℓ, held as its canonical 32-byte little-endian encoding."""

    encoding: bytes

    def __post_init__(self) -> None:
        if not isinstance(self.encoding, bytes) or len(self.encoding) != SCALAR_BYTES:
            raise BadScalar(f"a scalar is exactly {SCALAR_BYTES} bytes")
        # Padding to 64 bytes and reducing is the identity exactly on values below ℓ, so this
        # rejects every non-canonical encoding (which would give one scalar two spellings).
        if _reduce64(self.encoding + bytes(SCALAR_BYTES)) != self.encoding:
            raise BadScalar("the scalar is not reduced modulo the group order")

    @classmethod
    def from_bytes(cls, data: bytes) -> Scalar:
        """Parse a received scalar; raises ``BadScalar`` unless it is canonical."""
        return cls(bytes(data))

    @classmethod
    def from_int(cls, value: int) -> Scalar:
        """The scalar ``value mod ℓ`` (for constants and tests; secrets come from ``random_scalar``)."""
        return cls((value % GROUP_ORDER).to_bytes(SCALAR_BYTES, "little"))

    @classmethod
    def reduce(cls, wide: bytes) -> Scalar:
        """Reduce 64 uniformly distributed bytes modulo ℓ (negligible bias)."""
        if len(wide) != 64:
            raise ValueError("scalar reduction takes exactly 64 bytes")
        return cls.computed(_reduce64(wide))

    def to_bytes(self) -> bytes:
        """The canonical 32-byte encoding."""
        return self.encoding

    def is_zero(self) -> bool:
        """True for the scalar 0."""
        return self.encoding == bytes(SCALAR_BYTES)

    @classmethod
    def computed(cls, encoding: bytes) -> Scalar:
        """A scalar libsodium has just computed (reduced by construction): not checked again."""
        scalar = object.__new__(cls)
        object.__setattr__(scalar, "encoding", encoding)
        return scalar

    def __add__(self, other: Scalar) -> Scalar:
        return Scalar.computed(primitives.scalar_add(self.encoding, other.encoding))

    def __sub__(self, other: Scalar) -> Scalar:
        return Scalar.computed(primitives.scalar_sub(self.encoding, other.encoding))

    def __neg__(self) -> Scalar:
        return Scalar.computed(primitives.scalar_negate(self.encoding))

    def __mul__(self, other: Scalar) -> Scalar:
        return Scalar.computed(primitives.scalar_mul(self.encoding, other.encoding))

    def __repr__(self) -> str:
        # Scalars are usually secrets; keep them out of logs and tracebacks.
        return "Scalar(<hidden>)"


@dataclass(frozen=True, slots=True)
class Point:
    """An element of ristretto255, held as its canonical 32-byte encoding.

    Ristretto encodings are canonical, so two points are equal exactly when their bytes are.
    """

    encoding: bytes

    def __post_init__(self) -> None:
        if not isinstance(self.encoding, bytes) or len(self.encoding) != POINT_BYTES:
            raise BadPoint(f"a point is exactly {POINT_BYTES} bytes")
        # The libsodium bundled in rbcl 1.1.2 ignores bit 255 when it checks that an encoding is
        # canonical, so a point would have a second spelling (measured); refuse it here. Its
        # validity check also accepts the identity; callers decide about that one.
        if self.encoding[-1] & 0x80 or not primitives.is_valid_point(self.encoding):
            raise BadPoint("the bytes are not a valid ristretto255 point")

    @classmethod
    def from_bytes(cls, data: bytes, *, allow_identity: bool = False) -> Point:
        """Parse a received point; raises ``BadPoint`` for an invalid encoding or the identity.

        The identity is refused by default because a key, token, commitment or shuffled
        ciphertext equal to it is either an attack or a bug.
        """
        point = cls(bytes(data))
        if point.is_identity() and not allow_identity:
            raise BadPoint("the identity point is not allowed here")
        return point

    @classmethod
    def computed(cls, encoding: bytes) -> Point:
        """A point libsodium has just computed from valid points: valid by construction, so it
        is not checked again (a check costs a sixth of a scalar multiplication). Never for
        bytes that came from outside: those enter through :meth:`from_bytes`."""
        point = object.__new__(cls)
        object.__setattr__(point, "encoding", encoding)
        return point

    def to_bytes(self) -> bytes:
        """The canonical 32-byte encoding."""
        return self.encoding

    def is_identity(self) -> bool:
        """True for the neutral element."""
        return self.encoding == bytes(POINT_BYTES)

    def __add__(self, other: Point) -> Point:
        return Point.computed(primitives.point_add(self.encoding, other.encoding))

    def __sub__(self, other: Point) -> Point:
        return Point.computed(primitives.point_sub(self.encoding, other.encoding))

    def __repr__(self) -> str:
        return f"Point({self.encoding.hex()})"


IDENTITY = Point(bytes(POINT_BYTES))


def mul(scalar: Scalar, point: Point) -> Point:
    """``scalar · point``; total: a zero scalar or the identity point gives the identity.

    The ``allow_scalar_zero`` variant is used because the plain one raises ``RuntimeError``
    whenever the result is the identity, which would turn a peer's bad input into a crash.
    """
    MULTIPLICATIONS["mul"] += 1
    product = primitives.scalarmult(scalar.encoding, point.encoding)
    return Point.computed(product)


def base_mul(scalar: Scalar) -> Point:
    """``scalar · G`` for the standard ristretto255 generator."""
    MULTIPLICATIONS["base_mul"] += 1
    return Point.computed(primitives.scalarmult_base(scalar.encoding))


GENERATOR = base_mul(Scalar.from_int(1))


def random_scalar(rng_bytes: RandomBytes = os.urandom) -> Scalar:
    """A uniformly random non-zero scalar from 64 bytes of ``rng_bytes``.

    Zero only comes out of a broken source (probability 2⁻²⁵²), so it raises rather than retries:
    a source that keeps returning zeros would otherwise loop forever.
    """
    scalar = Scalar.reduce(rng_bytes(64))
    if scalar.is_zero():
        raise ValueError("the random source returned a degenerate value")
    return scalar


def frame(*parts: bytes) -> bytes:
    """Length-prefix and concatenate, so that no two different part lists give the same bytes."""
    return b"".join(len(part).to_bytes(4, "big") + part for part in parts)


def hash_to_scalar(domain: bytes, *parts: bytes) -> Scalar:
    """SHA-512 of the framed domain tag and parts, reduced modulo ℓ."""
    return Scalar.reduce(hashlib.sha512(frame(domain, *parts)).digest())


def _make_card_point(card: int) -> Point:
    digest = hashlib.sha512(CARD_DOMAIN + bytes([card])).digest()
    return Point(bytes(primitives.point_from_hash(digest)))


# Hashing to the curve gives points with no known discrete-log relation to G or to each other,
# unlike ``c·G``, which would let anyone link and subtract cards.
_CARD_POINTS: tuple[Point, ...] = tuple(_make_card_point(card) for card in range(DECK_SIZE))
_CARD_OF_POINT: dict[Point, int] = {point: card for card, point in enumerate(_CARD_POINTS)}


def card_point(card: int) -> Point:
    """``M_c``: the point that stands for card identity ``card`` (0..107)."""
    if not 0 <= card < DECK_SIZE:
        raise ValueError(f"card identity {card} is outside 0..{DECK_SIZE - 1}")
    return _CARD_POINTS[card]


def card_of_point(point: Point) -> int:
    """The card identity whose point is ``point``; raises ``NotACard`` if there is none."""
    try:
        return _CARD_OF_POINT[point]
    except KeyError:
        raise NotACard("the opened card is not one of the 108 card points") from None
