"""Generate ``signatures_v2.json``: golden vectors for identity signatures (PROTOCOL.md §2.12;
the keys admitted: §2.10).

* ``domains``: one signature for each domain tag of :class:`p2p10.signing.Domain`, by a fixed
  key over a fixed message of that kind, with the exact bytes Ed25519 signs. Each verifies under
  its own tag only.
* ``edge_cases``: Ed25519 signatures at the edges of the verification rule, each with what the
  library (``cryptography``, OpenSSL) says about it alone, whether the key is admitted as an
  identity key (:func:`p2p10.log.public_key`), and the protocol's verdict
  (:func:`p2p10.signing.verify_raw`; no domain tag). Cases ``taming-0`` to ``taming-11`` are the
  twelve vectors of Chalkias, Garillot and Nikolaenko, "Taming the many EdDSAs" (SSR 2020, as
  published in the ed25519-speccheck repository); the others are made here from a fixed key.

Every verdict below is written by hand from the rule; the generator refuses to write the file
if the library or the implementation disagrees with one, and ``tests/test_vectors.py`` checks
the committed file against both again, and that this script reproduces it byte for byte.

Usage: ``python protocol/vectors/make_signature_vectors.py`` rewrites the file next to this script.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import msgpack
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from p2p10.hand_crypto import away_message, return_message
from p2p10.log import BadEntry, public_bytes, public_key
from p2p10.signing import FIELD_PRIME, GROUP_ORDER, SIGNATURE_LABEL, Domain, sign, signed_bytes, verify_raw
from protocol.mesh_link import hello_message
from protocol.vectors.make_vectors import fixed_bytes

SIGNATURE_VECTORS_PATH = Path(__file__).with_name("signatures_v2.json")
BASE_POINT = bytes.fromhex("5866666666666666666666666666666666666666666666666666666666666666")
IDENTITY = bytes([1]) + bytes(31)

# (name, public key, message, signature, library accepts, key admitted, protocol accepts, why)
TAMING = [
    ("taming-0", "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
     "8c93255d71dcab10e8f379c26200f3c7bd5f09d9bc3068d3ef4edeb4853022b6",
     "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"
     "0000000000000000000000000000000000000000000000000000000000000000",
     True, False, False, "S = 0, A and R of small order: A is refused as a weak key"),
    ("taming-1", "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
     "9bd9f44f4dcc75bd531b56b2cd280b0bb38fc1cd6d1230e14861d861de092e79",
     "f7badec5b8abeaf699583992219b7b223f1df3fbbea919844e3f7c554a43dd43"
     "a5bb704786be79fc476f91d3f3f89b03984d8068dcf1bb7dfc6637b45450ac04",
     True, False, False, "A of small order, R of mixed order: A is refused as a weak key"),
    ("taming-2", "f7badec5b8abeaf699583992219b7b223f1df3fbbea919844e3f7c554a43dd43",
     "aebf3f2601a0c8c5d39cc7d8911642f740b78168218da8471772b35f9d35b9ab",
     "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa"
     "8c4bd45aecaca5b24fb97bc10ac27ac8751a7dfe1baff8b953ec9f5833ca260e",
     True, True, False, "A of mixed order, R of small order: R of small order is refused"),
    ("taming-3", "cdb267ce40c5cd45306fa5d2f29731459387dbf9eb933b7bd5aed9a765b88d4d",
     "9bd9f44f4dcc75bd531b56b2cd280b0bb38fc1cd6d1230e14861d861de092e79",
     "9046a64750444938de19f227bb80485e92b83fdb4b6506c160484c016cc1852f"
     "87909e14428a7a1d62e9f22f3d3ad7802db02eb2e688b6c52fcd6648a98bd009",
     True, True, True, "A and R of mixed order, and R = [S]B - [k]A holds: accepted"),
    ("taming-4", "cdb267ce40c5cd45306fa5d2f29731459387dbf9eb933b7bd5aed9a765b88d4d",
     "e47d62c63f830dc7a6851a0b1f33ae4bb2f507fb6cffec4011eaccd55b53f56c",
     "160a1cb0dc9c0258cd0a7d23e94d8fa878bcb1925f2c64246b2dee1796bed512"
     "5ec6bc982a269b723e0668e540911a9a6a58921d6925e434ab10aa7940551a09",
     False, True, False, "only the cofactored equation holds: refused (the rule is cofactorless)"),
    ("taming-5", "cdb267ce40c5cd45306fa5d2f29731459387dbf9eb933b7bd5aed9a765b88d4d",
     "e47d62c63f830dc7a6851a0b1f33ae4bb2f507fb6cffec4011eaccd55b53f56c",
     "21122a84e0b5fca4052f5b1235c80a537878b38f3142356b2c2384ebad4668b7"
     "e40bc836dac0f71076f9abe3a53f9c03c1ceeeddb658d0030494ace586687405",
     False, True, False, "only the cofactored equation holds (R of order l): refused"),
    ("taming-6", "442aad9f089ad9e14647b1ef9099a1ff4798d78589e66f28eca69c11f582a623",
     "85e241a07d148b41e47d62c63f830dc7a6851a0b1f33ae4bb2f507fb6cffec40",
     "e96f66be976d82e60150baecff9906684aebb1ef181f67a7189ac78ea23b6c0e"
     "547f7690a0e2ddcd04d87dbc3490dc19b3b3052f7ff0538cb68afb369ba3a514",
     False, True, False, "S >= l (a valid S plus l): refused"),
    ("taming-7", "442aad9f089ad9e14647b1ef9099a1ff4798d78589e66f28eca69c11f582a623",
     "85e241a07d148b41e47d62c63f830dc7a6851a0b1f33ae4bb2f507fb6cffec40",
     "8ce5b96c8f26d0ab6c47958c9e68b937104cd36e13c33566acd2fe8d38aa1942"
     "7e71f98a473474f2f13f06f97c20d58cc3f54b8bd0d272f42b695dd7e89a8c22",
     False, True, False, "S much larger than l: refused"),
    ("taming-8", "f7badec5b8abeaf699583992219b7b223f1df3fbbea919844e3f7c554a43dd43",
     "9bedc267423725d473888631ebf45988bad3db83851ee85c85e241a07d148b41",
     "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
     "03be9678ac102edcd92b0210bb34d7428d12ffc5df5f37e359941266a4e35f0f",
     False, True, False, "R a non-canonical encoding of a point of small order: refused"),
    ("taming-9", "f7badec5b8abeaf699583992219b7b223f1df3fbbea919844e3f7c554a43dd43",
     "9bedc267423725d473888631ebf45988bad3db83851ee85c85e241a07d148b41",
     "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
     "ca8c5b64cd208982aa38d4936621a4775aa233aa0505711d8fdcfdaa943d4908",
     False, True, False, "R non-canonical and of small order, hashed as sent: refused"),
    ("taming-10", "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
     "e96b7021eb39c1a163b6da4e3093dcd3f21387da4cc4572be588fafae23c155b",
     "a9d55260f765261eb9b84e106f665e00b867287a761990d7135963ee0a7d59dc"
     "a5bb704786be79fc476f91d3f3f89b03984d8068dcf1bb7dfc6637b45450ac04",
     False, False, False, "A a non-canonical encoding of a point of small order: refused as weak"),
    ("taming-11", "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
     "39a591f5321bbe07fd5a23dc2f39d025d74526615746727ceefd6e82ae65c06f",
     "a9d55260f765261eb9b84e106f665e00b867287a761990d7135963ee0a7d59dc"
     "a5bb704786be79fc476f91d3f3f89b03984d8068dcf1bb7dfc6637b45450ac04",
     True, False, False, "the library takes this non-canonical small-order A; the protocol refuses it"),
]


def identity(name: str) -> Ed25519PrivateKey:
    """A fixed Ed25519 identity (its 32-byte private key is ``fixed_bytes(name)``)."""
    return Ed25519PrivateKey.from_private_bytes(fixed_bytes(name))


def secret_scalar(key: Ed25519PrivateKey) -> int:
    """RFC 8032's secret scalar ``a`` of a private key (the clamped first half of its hash)."""
    digest = hashlib.sha512(key.private_bytes_raw()).digest()
    scalar = int.from_bytes(digest[:32], "little")
    return (scalar & ((1 << 254) - 8)) | (1 << 254)


def constructed() -> list[tuple[str, str, str, str, bool, bool, bool, str]]:
    """Edge cases made here from a fixed key ``a``: they need no curve arithmetic beyond the
    library's, because each either sets ``R`` to a known point or changes only ``S``."""
    key = identity("ed25519-edge")
    a, public = secret_scalar(key), public_bytes(key)
    message = b"p2p10 edge case"
    honest = key.sign(message)
    s_plus_l = (int.from_bytes(honest[32:], "little") + GROUP_ORDER).to_bytes(32, "little")
    # R = the identity: [S]B - [k]A is the identity when S = k·a, so the equation holds.
    k = int.from_bytes(hashlib.sha512(IDENTITY + public + message).digest(), "little") % GROUP_ORDER
    identity_r = IDENTITY + (k * a % GROUP_ORDER).to_bytes(32, "little")
    # A = the identity spelled y = p + 1 (not canonical): R = B and S = 1 verify for every message.
    weak = (FIELD_PRIME + 1).to_bytes(32, "little")
    any_message = BASE_POINT + (1).to_bytes(32, "little")
    noncanonical = (FIELD_PRIME + 3).to_bytes(32, "little")  # y = 3 is on the curve
    not_a_point = bytes([2]) + bytes(31)  # y = 2 is on no curve point
    return [
        ("honest", public.hex(), message.hex(), honest.hex(), True, True, True,
         "an ordinary signature: accepted"),
        ("s-plus-l", public.hex(), message.hex(), (honest[:32] + s_plus_l).hex(), False, True, False,
         "the honest signature with l added to S: refused"),
        ("identity-r", public.hex(), message.hex(), identity_r.hex(), True, True, False,
         "R the identity with S = k·a: the library accepts, the protocol refuses R of small order"),
        ("noncanonical-identity-a", weak.hex(), b"any message at all".hex(), any_message.hex(),
         True, False, False,
         "A the identity spelled y = p + 1: the library accepts R = B, S = 1 for every message"),
        ("noncanonical-a", noncanonical.hex(), message.hex(), honest.hex(), False, False, False,
         "A spelled y = p + 3, a non-canonical encoding of a point not of small order: refused as a key"),
        ("not-a-point", not_a_point.hex(), message.hex(), honest.hex(), False, False, False,
         "A is no point of the curve: the library loads it, the protocol refuses it as a key"),
    ]


def library_accepts(key: bytes, message: bytes, signature: bytes) -> bool:
    """What ``cryptography`` alone says: the key loads and the signature verifies."""
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(signature, message)
    except (ValueError, InvalidSignature):
        return False
    return True


def key_admitted(key: bytes) -> bool:
    """Whether the protocol admits these 32 bytes as an identity key."""
    try:
        public_key(key)
    except BadEntry:
        return False
    return True


def protocol_accepts(key: bytes, message: bytes, signature: bytes) -> bool:
    """The pinned rule: the key is admitted and the signature verifies under it."""
    return key_admitted(key) and verify_raw(public_key(key), message, signature)


def edge_cases() -> list[dict[str, Any]]:
    """Every edge case, checked against the library and the implementation."""
    out = []
    for name, key_hex, message_hex, signature_hex, library, admitted, accepted, why in [
            *TAMING, *constructed()]:
        key, message, signature = (bytes.fromhex(h) for h in (key_hex, message_hex, signature_hex))
        found = (library_accepts(key, message, signature), key_admitted(key),
                 protocol_accepts(key, message, signature))
        if found != (library, admitted, accepted):
            raise AssertionError(f"{name}: expected {(library, admitted, accepted)}, found {found}")
        out.append({"name": name, "public_key": key_hex, "message": message_hex,
                    "signature": signature_hex, "library_accepts": library, "key_admitted": admitted,
                    "accepted": accepted, "why": why})
    return out


def domain_messages() -> dict[Domain, tuple[bytes, str]]:
    """A fixed message of each kind, and how it is made."""
    game_id = fixed_bytes("game-id")[:16]
    chat = msgpack.packb(["p2p10/chat/v1", game_id, 1, fixed_bytes("chat-nonce")[:8], "good luck"],
                         use_bin_type=True)
    entry = msgpack.packb([2, game_id, 0, bytes(32), 0, "table", []], use_bin_type=True)
    return {
        Domain.ENTRY: (entry, "an entry payload (msgpack [2, game_id, 0, 32 zero bytes, 0, 'table', []])"),
        Domain.SIT_DOWN: (fixed_bytes("sit-down"), "32 fixed bytes (the tag's bytes are what matters here)"),
        Domain.LOBBY: (fixed_bytes("lobby"), "32 fixed bytes (the tag's bytes are what matters here)"),
        Domain.HANDSHAKE: (hello_message(game_id, fixed_bytes("dialler"), fixed_bytes("listener"),
                                         public_bytes(identity("ed25519-seat-1")),
                                         public_bytes(identity("ed25519-seat-2"))),
                           "hello_message(game_id, dialler challenge, listener challenge, seat 1's key, "
                           "seat 2's key), PROTOCOL.md §6.1"),
        Domain.CHAT: (chat, "a chat body, PROTOCOL.md §6.2.1"),
        Domain.AGREEMENT: (away_message(game_id, 7, fixed_bytes("prev-hash"), 2),
                           "away_message(game_id, 7, prev_hash, 2), PROTOCOL.md §4.13"),
        Domain.RETURN: (return_message(game_id, 2, 7),
                        "return_message(game_id, 2, 7), PROTOCOL.md §4.14"),
    }


def build_vectors() -> dict[str, Any]:
    """Every signature vector, as JSON-ready data (bytes as lowercase hex)."""
    key = identity("ed25519-seat-1")
    domains = [{
        "domain": domain.name.lower().replace("_", "-"),
        "tag": domain.value.decode(),
        "message_made_as": made_as,
        "message": message.hex(),
        "signed_bytes": signed_bytes(domain, message).hex(),
        "signature": sign(key, domain, message).hex(),
    } for domain, (message, made_as) in domain_messages().items()]
    return {
        "version": 2,
        "signed_bytes_rule": (f"frame('{SIGNATURE_LABEL.decode()}', tag, message), frame as in "
                              "PROTOCOL.md §2.2 (each part as u32be(length) then its bytes)"),
        "private_key": key.private_bytes_raw().hex(),
        "public_key": public_bytes(key).hex(),
        "domains": domains,
        "edge_cases_rule": ("library_accepts: cryptography's Ed25519PublicKey.from_public_bytes(key)"
                            ".verify(signature, message) succeeds; key_admitted: the protocol takes "
                            "the key as an identity key; accepted: the protocol's verdict on the "
                            "signature of exactly 'message' (no domain tag)"),
        "edge_cases": edge_cases(),
    }


def render(vectors: dict[str, Any]) -> str:
    """The exact text of the vectors file."""
    return json.dumps(vectors, indent=1) + "\n"


def main() -> None:
    """Write the file."""
    SIGNATURE_VECTORS_PATH.write_text(render(build_vectors()), encoding="utf-8")


if __name__ == "__main__":
    main()
