"""The primitives of :mod:`p2p10.primitives` in a browser's page: the core running in Pyodide
(CPython compiled to WebAssembly), its ristretto255 and Ed25519 from libsodium compiled to
WebAssembly (npm ``libsodium-sumo``, the module ``libsodium.js`` is built on: the same library
``rbcl`` bundles), its msgpack the pure-Python form of the same package.

The page registers libsodium's raw exports as the JavaScript module ``p2p10_sodium``
(``cli/web/static/phone/sodium.mjs``) before it imports the core. Bytes cross between the two
languages as hexadecimal strings (Pyodide converts a string, not a ``bytes``, on its own: no
proxy to release, no buffer shared), a few microseconds a call against the tenth of a
millisecond of a scalar multiplication. Each function behaves as ``rbcl``'s of the same name:
the ``_allow_scalar_zero`` multiplications give the identity for a zero scalar and refuse an
invalid point; the point and scalar functions ignore libsodium's return code, their output
cleared first; Ed25519 is libsodium's ``crypto_sign_*``, whose edge cases the protocol does not
rest on (:mod:`p2p10.signing` checks them itself: the signature vectors hold both backends to
the same verdicts).
"""

from __future__ import annotations

import importlib
import os
from typing import Any

BACKEND = "page"
"""Which backend gives the primitives ("page": libsodium compiled to WebAssembly)."""

POINT = 32
SCALAR = 32
SEED = 32
SIGNATURE = 64

_sodium: Any = None


def _js() -> Any:
    """The page's ``p2p10_sodium`` module (imported at the first call: the page registers it
    before it imports the core, and an import of this module anywhere else fails only when a
    primitive is used)."""
    global _sodium
    if _sodium is None:
        _sodium = importlib.import_module("p2p10_sodium")
    return _sodium


def _raw(name: str, out: int, *inputs: bytes) -> bytes:
    """libsodium's ``name`` called as ``name(out, *inputs)`` on a cleared ``out``-byte buffer,
    its return code ignored (as ``rbcl`` does)."""
    said: str = _js().raw(name, out, *(bytes(value).hex() for value in inputs))
    return bytes.fromhex(said)


def _sized(value: bytes, size: int, what: str) -> bytes:
    if not isinstance(value, bytes | bytearray) or len(value) != size:
        raise (ValueError if isinstance(value, bytes | bytearray) else TypeError)(
            f"{what} must be a bytes object of length {size}")
    return bytes(value)


# ---------------------------------------------------------------------------- ristretto255

def is_valid_point(p: bytes) -> bool:
    """Whether 32 bytes encode a point (libsodium's check)."""
    return bool(_js().is_valid_point(_sized(p, POINT, "point").hex()))


def scalarmult(s: bytes, p: bytes) -> bytes:
    """``s * p``; the identity for a zero scalar; a TypeError for an invalid point."""
    _sized(s, SCALAR, "scalar")
    if not is_valid_point(p):
        raise TypeError("second input must represent a valid point")
    return _raw("crypto_scalarmult_ristretto255", POINT, s, p)


def scalarmult_base(s: bytes) -> bytes:
    """``s * G``; the identity for a zero scalar."""
    return _raw("crypto_scalarmult_ristretto255_base", POINT, _sized(s, SCALAR, "scalar"))


def point_add(p: bytes, q: bytes) -> bytes:
    """``p + q``."""
    return _raw("crypto_core_ristretto255_add", POINT, _sized(p, POINT, "point"), _sized(q, POINT, "point"))


def point_sub(p: bytes, q: bytes) -> bytes:
    """``p - q``."""
    return _raw("crypto_core_ristretto255_sub", POINT, _sized(p, POINT, "point"), _sized(q, POINT, "point"))


def point_from_hash(h: bytes) -> bytes:
    """The point of a 64-byte hash."""
    return _raw("crypto_core_ristretto255_from_hash", POINT, _sized(h, 64, "hash"))


def scalar_reduce(s: bytes) -> bytes:
    """A 64-byte little-endian integer modulo the group order."""
    return _raw("crypto_core_ristretto255_scalar_reduce", SCALAR, _sized(s, 64, "wide scalar"))


def scalar_add(x: bytes, y: bytes) -> bytes:
    """``x + y`` modulo the group order."""
    return _raw("crypto_core_ristretto255_scalar_add", SCALAR, _sized(x, SCALAR, "scalar"),
                _sized(y, SCALAR, "scalar"))


def scalar_sub(x: bytes, y: bytes) -> bytes:
    """``x - y`` modulo the group order."""
    return _raw("crypto_core_ristretto255_scalar_sub", SCALAR, _sized(x, SCALAR, "scalar"),
                _sized(y, SCALAR, "scalar"))


def scalar_mul(x: bytes, y: bytes) -> bytes:
    """``x * y`` modulo the group order."""
    return _raw("crypto_core_ristretto255_scalar_mul", SCALAR, _sized(x, SCALAR, "scalar"),
                _sized(y, SCALAR, "scalar"))


def scalar_negate(s: bytes) -> bytes:
    """``-s`` modulo the group order."""
    return _raw("crypto_core_ristretto255_scalar_negate", SCALAR, _sized(s, SCALAR, "scalar"))


# ---------------------------------------------------------------------------- Ed25519

class InvalidSignature(Exception):
    """A signature that does not verify (as ``cryptography.exceptions.InvalidSignature``)."""


class Ed25519PublicKey:
    """An Ed25519 public key, as ``cryptography``'s class of this name offers it to the core."""

    __slots__ = ("_raw_key",)

    def __init__(self, raw: bytes) -> None:
        self._raw_key = raw

    @classmethod
    def from_public_bytes(cls, data: bytes) -> Ed25519PublicKey:
        """The key of 32 raw bytes (whether they are a point is found out when it verifies)."""
        if not isinstance(data, bytes | bytearray) or len(data) != POINT:
            raise ValueError("An Ed25519 public key is 32 bytes long")
        return cls(bytes(data))

    def public_bytes_raw(self) -> bytes:
        """The key's 32 bytes."""
        return self._raw_key

    def verify(self, signature: bytes, data: bytes) -> None:
        """Return if ``signature`` is the key's of ``data``; raise :class:`InvalidSignature`
        otherwise."""
        if len(signature) != SIGNATURE or _js().verify(self._raw_key.hex(), bytes(data).hex(),
                                                       bytes(signature).hex()) != 0:
            raise InvalidSignature

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Ed25519PublicKey) and other._raw_key == self._raw_key

    def __hash__(self) -> int:
        return hash(self._raw_key)


class Ed25519PrivateKey:
    """An Ed25519 private key (its 32-byte seed), as ``cryptography``'s class of this name
    offers it to the core."""

    __slots__ = ("_public", "_secret", "_seed")

    def __init__(self, seed: bytes) -> None:
        keys = bytes.fromhex(_js().seed_keypair(seed.hex()))  # public (32) then secret (64)
        self._seed = seed
        self._public = Ed25519PublicKey(keys[:POINT])
        self._secret = keys[POINT:]

    @classmethod
    def from_private_bytes(cls, data: bytes) -> Ed25519PrivateKey:
        """The key of a 32-byte seed."""
        if not isinstance(data, bytes | bytearray) or len(data) != SEED:
            raise ValueError("An Ed25519 private key is 32 bytes long")
        return cls(bytes(data))

    @classmethod
    def generate(cls) -> Ed25519PrivateKey:
        """A new key from the page's random source (``crypto.getRandomValues``, through
        ``os.urandom``)."""
        return cls(os.urandom(SEED))

    def public_key(self) -> Ed25519PublicKey:
        """The key's public half."""
        return self._public

    def private_bytes_raw(self) -> bytes:
        """The key's 32-byte seed."""
        return self._seed

    def sign(self, data: bytes) -> bytes:
        """The key's 64-byte signature of ``data``."""
        return bytes.fromhex(_js().sign(self._secret.hex(), bytes(data).hex()))
