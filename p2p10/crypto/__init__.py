"""Dealing cryptography: ristretto255 group wrappers, proofs, ElGamal card encryption, shuffles.

Every point that comes from outside enters through ``Point.from_bytes`` and every scalar through
``Scalar.from_bytes``, so the rest of the code only ever handles validated values. Nothing here
does I/O; randomness is drawn only from a ``Callable[[int], bytes]`` the caller passes in
(``os.urandom`` by default) or derived from a seed.
"""
