"""Every identity signature of the protocol, under an explicit domain tag, and the one Ed25519
verification rule (PROTOCOL.md §2.10).

One Ed25519 identity key signs log entries, sit-downs, lobby frames, mesh handshakes, chat
lines and agreements to go on without a machine. So that a signature made for one purpose can never be
taken for another, Ed25519 never signs a message itself but

    frame(b"p2p10/sig/v2", tag, message)

(:func:`p2p10.crypto.group.frame`: length-prefixed parts), where ``tag`` is one of the fixed
:class:`Domain` tags. The frame is injective, so two different (tag, message) pairs never give
the same signed bytes.

Verification is RFC 8032's cofactorless equation as OpenSSL (through ``cryptography``) computes
it, with the edge cases pinned: ``S`` must be below ℓ; the public key ``A`` must be a canonical
encoding (``y < p``) of a point of the curve that is not of small order (a key of mixed order is
accepted); ``R`` must not be of small order (nor a non-canonical encoding of one); and ``R``
must equal, byte for byte, the encoding of ``[S]B − [k]A`` with ``k = SHA-512(R ‖ A ‖ signed
bytes) mod ℓ``. The library checks ``S`` and the equation; it would take a small-order ``R``, and
any 32 bytes as ``A``, so those are refused here before it is asked.
"""

from __future__ import annotations

from enum import Enum

from p2p10.crypto.group import frame
from p2p10.primitives import Ed25519PrivateKey, Ed25519PublicKey, InvalidSignature

SIGNATURE_LABEL = b"p2p10/sig/v2"
SIGNATURE_BYTES = 64
POINT_BYTES = 32
FIELD_PRIME = 2**255 - 19
GROUP_ORDER = 2**252 + 27742317777372353535851937790883648493
_CURVE_D = -121665 * pow(121666, -1, FIELD_PRIME) % FIELD_PRIME


class Domain(Enum):
    """What a signature is for. The value is the tag that the signed bytes carry."""

    ENTRY = b"entry"          # a log entry's payload (PROTOCOL.md §3.3)
    SIT_DOWN = b"sit-down"    # a seat's sit-down, carried in the table entry (§4.4.1)
    LOBBY = b"lobby"          # a joiner's frame in the lobby (§6.1.1)
    HANDSHAKE = b"handshake"  # a mesh link's proof of the key (§6.1)
    CHAT = b"chat"            # a line of table chat (§6.2.1)
    AGREEMENT = b"agreement"  # an agreement to go on without a machine (§4.13)
    RETURN = b"return"        # a machine's request to take its seats back (§4.14)


# The Ed25519 encodings of the eight points of small order, with the sign bit cleared
# (libsodium's ``has_small_order`` list, which also holds the non-canonical encodings y = p and
# y = p + 1). For a key of small order one signature verifies for every message, so anybody
# could sign as that seat and the seat could deny what it signed; an R of small order lets a
# signer make a signature that RFC 8032's two equations judge differently.
SMALL_ORDER = frozenset(bytes.fromhex(h) for h in (
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0100000000000000000000000000000000000000000000000000000000000000",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
))


def signed_bytes(domain: Domain, message: bytes) -> bytes:
    """The exact bytes that Ed25519 signs for ``message`` under ``domain``."""
    return frame(SIGNATURE_LABEL, domain.value, message)


def sign(key: Ed25519PrivateKey, domain: Domain, message: bytes) -> bytes:
    """The 64-byte signature of ``message`` for the purpose ``domain``."""
    return key.sign(signed_bytes(domain, message))


def is_small_order(point: bytes) -> bool:
    """True when 32 bytes encode a point of small order (whatever the sign bit says)."""
    return point[:31] + bytes([point[31] & 0x7F]) in SMALL_ORDER


def _on_curve(y: int) -> bool:
    """True when some x puts (x, y) on edwards25519: x² = u / v with u = y² − 1, v = d·y² + 1
    (never 0, as −1/d is not a square) is a square, that is when u·v is (Euler's criterion)."""
    uv = (y * y - 1) * (_CURVE_D * y * y + 1) % FIELD_PRIME
    return uv == 0 or pow(uv, (FIELD_PRIME - 1) // 2, FIELD_PRIME) == 1


def key_problem(data: bytes) -> str | None:
    """Why 32 bytes are not an acceptable identity key, or None when they are: a key must be a
    canonical encoding (``y < p``) of a point of the curve, not of small order. The library
    loads any 32 bytes as a key (it finds a non-point only when it verifies), so this is
    checked here, once, when a key is admitted."""
    if len(data) != POINT_BYTES:
        return f"a public key is {POINT_BYTES} bytes"
    if is_small_order(data):
        return "a weak identity key (a point of small order) is not allowed"
    y = int.from_bytes(data, "little") & ((1 << 255) - 1)
    if y >= FIELD_PRIME:
        return "an identity key must be encoded canonically (y below p)"
    if not _on_curve(y):
        return "not an Ed25519 public key: no point of the curve has these bytes"
    return None


def _bad_key(data: bytes) -> bool:
    """The cheap part of :func:`key_problem`, repeated on every verification so that a key
    loaded without it is held to the rule too (a non-point fails in the library anyway)."""
    return is_small_order(data) or int.from_bytes(data, "little") & ((1 << 255) - 1) >= FIELD_PRIME


def verify_raw(key: Ed25519PublicKey, message: bytes, signature: bytes) -> bool:
    """True when ``signature`` is valid for exactly ``message`` under the pinned rule (no domain:
    the edge-case vectors exercise this; the protocol always goes through :func:`verify`)."""
    if len(signature) != SIGNATURE_BYTES or _bad_key(key.public_bytes_raw()):
        return False
    if is_small_order(signature[:POINT_BYTES]):
        return False
    if int.from_bytes(signature[POINT_BYTES:], "little") >= GROUP_ORDER:
        return False  # the library refuses this too; checked here so the rule does not rest on it
    try:
        key.verify(signature, message)
    except InvalidSignature:
        return False
    return True


def verify(key: Ed25519PublicKey, domain: Domain, message: bytes, signature: bytes) -> bool:
    """True when ``signature`` is the key's signature of ``message`` for the purpose ``domain``."""
    return verify_raw(key, signed_bytes(domain, message), signature)
