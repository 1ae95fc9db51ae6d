"""The primitives the core takes from outside, in one place: the ristretto255 group and Ed25519
(libsodium's and OpenSSL's, through ``rbcl`` and ``cryptography``) and msgpack.

This is the only module of :mod:`p2p10` that imports them, so that the core runs wherever these
few names can be given: on CPython with the libraries above, and in a browser's page
(``sys.platform`` "emscripten": Pyodide), where :mod:`p2p10.page_primitives` gives them from
libsodium compiled to WebAssembly, and msgpack is its own pure-Python form. Nothing
else in the core knows where it runs; the golden vectors (``protocol/vectors/``) hold every
backend to the same bytes.

The ristretto255 functions take and return encodings (32-byte points and scalars, 64-byte
hashes), exactly libsodium's ``crypto_core_ristretto255_*`` and
``crypto_scalarmult_ristretto255_*`` (the ``_allow_scalar_zero`` forms: a zero scalar gives the
identity, an invalid point raises). :mod:`p2p10.crypto.group` wraps them in checked types.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import msgpack

if sys.platform == "emscripten":  # a browser's page (Pyodide): libsodium in WebAssembly
    from p2p10.page_primitives import (
        BACKEND,
        Ed25519PrivateKey,
        Ed25519PublicKey,
        InvalidSignature,
        is_valid_point,
        point_add,
        point_from_hash,
        point_sub,
        scalar_add,
        scalar_mul,
        scalar_negate,
        scalar_reduce,
        scalar_sub,
        scalarmult,
        scalarmult_base,
    )
else:
    import rbcl
    from cryptography.exceptions import InvalidSignature as InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey as Ed25519PrivateKey
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey as Ed25519PublicKey

    BACKEND = "cpython"
    """Which backend gives the primitives ("cpython": rbcl, cryptography and msgpack; "page":
    :mod:`p2p10.page_primitives`)."""

    # ristretto255: bound to the library's own functions (no call of ours between: the shuffle
    # proofs make thousands of these calls).
    scalarmult: Callable[[bytes, bytes], bytes] = rbcl.crypto_scalarmult_ristretto255_allow_scalar_zero
    """``scalar * point``; the identity for a zero scalar; raises for an invalid point."""
    scalarmult_base: Callable[[bytes], bytes] = rbcl.crypto_scalarmult_ristretto255_base_allow_scalar_zero
    """``scalar * G``; the identity for a zero scalar."""
    point_add: Callable[[bytes, bytes], bytes] = rbcl.crypto_core_ristretto255_add
    """``p + q`` of two valid points."""
    point_sub: Callable[[bytes, bytes], bytes] = rbcl.crypto_core_ristretto255_sub
    """``p - q`` of two valid points."""
    point_from_hash: Callable[[bytes], bytes] = rbcl.crypto_core_ristretto255_from_hash
    """The point of a 64-byte hash (Elligator, twice, added)."""
    is_valid_point: Callable[[bytes], bool] = rbcl.crypto_core_ristretto255_is_valid_point
    """Whether 32 bytes encode a point (the library's check; :mod:`p2p10.crypto.group` adds its own)."""
    scalar_reduce: Callable[[bytes], bytes] = rbcl.crypto_core_ristretto255_scalar_reduce
    """A 64-byte little-endian integer modulo the group order."""
    scalar_add: Callable[[bytes, bytes], bytes] = rbcl.crypto_core_ristretto255_scalar_add
    """``a + b`` modulo the group order."""
    scalar_sub: Callable[[bytes, bytes], bytes] = rbcl.crypto_core_ristretto255_scalar_sub
    """``a - b`` modulo the group order."""
    scalar_mul: Callable[[bytes, bytes], bytes] = rbcl.crypto_core_ristretto255_scalar_mul
    """``a * b`` modulo the group order."""
    scalar_negate: Callable[[bytes], bytes] = rbcl.crypto_core_ristretto255_scalar_negate
    """``-a`` modulo the group order."""

__all__ = [
    "BACKEND", "Ed25519PrivateKey", "Ed25519PublicKey", "InvalidSignature", "NotMsgpack", "is_valid_point",
    "pack", "point_add", "point_from_hash", "point_sub", "scalar_add", "scalar_mul", "scalar_negate",
    "scalar_reduce", "scalar_sub", "scalarmult", "scalarmult_base", "unpack",
]


class NotMsgpack(ValueError):
    """Bytes that do not decode as one msgpack value under the given limits."""


def pack(value: Any) -> bytes:
    """Encode as msgpack, byte strings as bin (never raw str)."""
    return bytes(msgpack.packb(value, use_bin_type=True))


def unpack(data: bytes, max_bin_len: int = -1) -> Any:
    """Decode exactly one msgpack value: strings as str, maps' keys as str or int only (no
    containers), arrays as lists, a bin at most ``max_bin_len`` bytes (-1: msgpack's default,
    the data's length); raises :class:`NotMsgpack`, whose message says why."""
    try:
        return msgpack.unpackb(data, raw=False, strict_map_key=True, use_list=True, max_bin_len=max_bin_len)
    except (ValueError, TypeError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError) as err:
        raise NotMsgpack(str(err)) from None
