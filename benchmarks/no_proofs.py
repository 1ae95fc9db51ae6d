"""The dealing protocol "without proofs", for the benchmarks' comparisons (``bench_dealing.py``).

``without_proofs()`` is a context manager that takes the proof of shuffle out of the protocol
and nothing else, in this process, and puts it back on the way out:

* ``p2p10.peer_writing.shuffle_and_prove`` (what ``Peer.build_shuffle`` calls) becomes the shuffle
  alone, ``apply_shuffle(deck, seed, joint, context)``, with a "proof" of the right length
  (``ShuffleProof.wire_bytes(n)`` = 128·n + 160 bytes) made of zero bytes, so every entry has
  the size it has with proofs, and the wire's length check passes;
* ``p2p10.table_checks.verify_shuffle_proof`` (what the fold calls on every shuffle entry when it does
  not defer proofs) answers True without looking: the fold would refuse the zero proof.

Everything else is the real code: signatures, the seed commitments and their re-derivation at
the reveals, the tokens and their proofs. A log played this way audits clean only by reveals
(``p2p10 audit --by-reveals``, ``every_proof=False``), which checks every revealed step by
re-deriving it from its seed; the default audit checks every proof and refuses the zero ones.
Never for anything but a benchmark: a table playing like this checks no shuffle until the
hand's end.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import p2p10.peer_writing
import p2p10.table_checks
from p2p10.crypto.elgamal import Ciphertext, Deck
from p2p10.crypto.group import POINT_BYTES, Point
from p2p10.crypto.shuffle import apply_shuffle
from p2p10.crypto.shuffle_proof import ShuffleProof

_ZERO_POINT = bytes(POINT_BYTES)


def zero_proof(size: int) -> ShuffleProof:
    """A "proof" for ``size`` cards whose wire form is ``wire_bytes(size)`` zero bytes."""
    proof = ShuffleProof((_ZERO_POINT,) * size, (_ZERO_POINT,) * size, 0, 0, 0, 0, 0,
                         (0,) * size, (0,) * size)
    assert proof.to_bytes() == bytes(ShuffleProof.wire_bytes(size))
    return proof


def shuffle_without_proof(deck: Sequence[Ciphertext], seed: bytes, joint: Point,
                          context: bytes) -> tuple[Deck, ShuffleProof]:
    """What ``shuffle_and_prove`` returns, with the proof's work left out."""
    return apply_shuffle(deck, seed, joint, context), zero_proof(len(deck))


def accept_any_proof(*_args: Any, **_kwargs: Any) -> bool:
    """The fold's proof check, answering True without looking."""
    return True


@contextlib.contextmanager
def without_proofs() -> Iterator[None]:
    """Play and fold without proofs of shuffle inside the ``with`` block (see the module)."""
    prove, verify = p2p10.peer_writing.shuffle_and_prove, p2p10.table_checks.verify_shuffle_proof
    p2p10.peer_writing.shuffle_and_prove = shuffle_without_proof  # type: ignore[assignment]
    p2p10.table_checks.verify_shuffle_proof = accept_any_proof
    try:
        yield
    finally:
        p2p10.peer_writing.shuffle_and_prove = prove
        p2p10.table_checks.verify_shuffle_proof = verify
