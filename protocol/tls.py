"""TLS 1.3 on every lobby and mesh link, each side's certificate carrying its Ed25519 identity.

Every peer (and the host's lobby on the same port) listens under TLS 1.3 only, and presents a
certificate for its own identity key: the key that signs its entries. A dialler presents its own
certificate too when it dials a seat of the mesh. What authenticates a link is the *key in the
certificate*, pinned after the handshake: the dialler checks that the listener's certificate
carries the key the roster gives that seat (:func:`peer_key`), and the listener checks that the
dialler's certificate carries the key the dialler proves in the mesh handshake. TLS 1.3 always
makes each side that presents a certificate sign the handshake transcript with that
certificate's key (CertificateVerify), so a certificate is only usable by whoever holds its
private key.

Why a public issuer. Python's :mod:`ssl` has no certificate-verification callback: a listener
that asks for the dialler's certificate can only accept one that chains to a trusted issuer. So
every certificate is issued by one fixed issuer whose private key is *public*: derived from a
label anyone can read in this file. That chain proves nothing and is not meant to; anybody can
issue a certificate for any key. It only lets OpenSSL accept the certificate, so that the
CertificateVerify proof and the pinning above (which are what count) can be made. A listener
that sees no certificate, or one whose key is not the one proven, refuses the link.

Certificates are deterministic: the same key always gives the same certificate (Ed25519
signatures are deterministic, the serial is derived from the key, and the validity runs from
2000 to 9999, so that no clock, however wrong or however long a machine slept, ever expires a
link).

What TLS adds to the signed log: nobody on the network can read the table's chat or its public
moves, and nobody can inject, change, drop or replay a frame on a link: a single altered byte
fails the record's authentication and the connection drops. Nobody is blamed for that (it is
the network's doing, not a seat's); the dialler dials again and the peers ask for what they
missed.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import os
import ssl
import tempfile
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.x509.oid import NameOID

from p2p10.errors import ProtocolError
from p2p10.log import fingerprint, public_bytes

# The issuer's private key is derived from this label: public on purpose (see the docstring).
ISSUER_LABEL = b"p2p10/tls/public-issuer/v1: this key is not a secret"
NOT_BEFORE = datetime.datetime(2000, 1, 1, tzinfo=datetime.UTC)
NOT_AFTER = datetime.datetime(9999, 12, 31, 23, 59, 59, tzinfo=datetime.UTC)


class BadCertificate(ProtocolError):
    """The other side of a link presented no certificate, or not one for the expected key."""


@cache
def _issuer() -> tuple[Ed25519PrivateKey, x509.Certificate]:
    key = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(ISSUER_LABEL).digest())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "p2p10 public issuer")])
    cert = (x509.CertificateBuilder()
            .subject_name(name).issuer_name(name)
            .public_key(key.public_key())
            .serial_number(1)
            .not_valid_before(NOT_BEFORE).not_valid_after(NOT_AFTER)
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False,
                                         key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, key_cert_sign=True, crl_sign=False,
                                         encipher_only=False, decipher_only=False), critical=True)
            .sign(key, None))
    return key, cert


def issuer_pem() -> bytes:
    """The public issuer's certificate, PEM: every peer trusts it (and it proves nothing)."""
    return _issuer()[1].public_bytes(serialization.Encoding.PEM)


def certificate(identity: Ed25519PrivateKey) -> x509.Certificate:
    """The certificate for ``identity``'s public key: the same one every time."""
    issuer_key, issuer = _issuer()
    key = public_bytes(identity)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"p2p10 {fingerprint(key)}")])
    serial = int.from_bytes(hashlib.sha256(b"p2p10/tls/serial" + key).digest()[:16], "big") >> 1
    return (x509.CertificateBuilder()
            .subject_name(name).issuer_name(issuer.subject)
            .public_key(identity.public_key())
            .serial_number(serial or 1)
            .not_valid_before(NOT_BEFORE).not_valid_after(NOT_AFTER)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .sign(issuer_key, None))


@contextlib.contextmanager
def _pem_files(identity: Ed25519PrivateKey) -> Iterator[tuple[str, str]]:
    """Paths the ssl module can load the certificate chain and the key from. ``ssl`` reads
    them only from files: on Linux an anonymous in-memory file, so the private key never
    touches a disk; elsewhere a private temporary directory, removed at once."""
    chain = (certificate(identity).public_bytes(serialization.Encoding.PEM) + issuer_pem())
    key = identity.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                 serialization.NoEncryption())
    if hasattr(os, "memfd_create") and Path("/proc/self/fd").is_dir():
        fds = [os.memfd_create("p2p10-cert"), os.memfd_create("p2p10-key")]
        try:
            for fd, data in zip(fds, (chain, key), strict=True):
                os.write(fd, data)
            yield f"/proc/self/fd/{fds[0]}", f"/proc/self/fd/{fds[1]}"
        finally:
            for fd in fds:
                os.close(fd)
        return
    with tempfile.TemporaryDirectory(prefix="p2p10-tls-") as folder:
        paths = [Path(folder, "cert.pem"), Path(folder, "key.pem")]
        for path, data in zip(paths, (chain, key), strict=True):
            path.touch(0o600)
            path.write_bytes(data)
        yield str(paths[0]), str(paths[1])


def _context(protocol: int, identity: Ed25519PrivateKey | None) -> ssl.SSLContext:
    context = ssl.SSLContext(protocol)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.maximum_version = ssl.TLSVersion.TLSv1_3
    context.load_verify_locations(cadata=issuer_pem().decode())
    if identity is not None:
        with _pem_files(identity) as (chain, key):
            context.load_cert_chain(chain, key)
    return context


def server_context(identity: Ed25519PrivateKey) -> ssl.SSLContext:
    """A listener's context: TLS 1.3, this identity's certificate, and a dialler's certificate
    asked for but optional (a joiner in the lobby and a spectator have no seat to prove)."""
    context = _context(ssl.PROTOCOL_TLS_SERVER, identity)
    context.verify_mode = ssl.CERT_OPTIONAL
    return context


def client_context(identity: Ed25519PrivateKey | None) -> ssl.SSLContext:
    """A dialler's context: TLS 1.3, the listener's certificate required (its key is pinned
    after the handshake, not its name: peers have no names), and this identity's certificate
    presented if given."""
    context = _context(ssl.PROTOCOL_TLS_CLIENT, identity)
    context.check_hostname = False  # what is checked is the key: see peer_key
    context.verify_mode = ssl.CERT_REQUIRED
    return context


def peer_key(transport_info: object) -> bytes | None:
    """The Ed25519 public key in the certificate the other side presented, from an ``ssl``
    object (``get_extra_info("ssl_object")``); None if it presented none."""
    ssl_object = transport_info
    if not isinstance(ssl_object, ssl.SSLObject | ssl.SSLSocket):
        return None
    der = ssl_object.getpeercert(binary_form=True)
    if not der:
        return None
    return certificate_key(der)


def certificate_key(der: bytes) -> bytes | None:
    """The Ed25519 public key a DER certificate carries (None: another kind of key).
    :class:`BadCertificate` if it does not parse: OpenSSL takes some encodings (BER where DER
    is due) that ``cryptography`` refuses, so a certificate that passed the handshake may
    still not be read here, and must end that link, never the task that dialled it."""
    try:
        key = x509.load_der_x509_certificate(der).public_key()
    except (ValueError, UnsupportedAlgorithm) as err:
        raise BadCertificate(f"a certificate that does not parse ({err})"[:200]) from None
    if not isinstance(key, Ed25519PublicKey):
        return None
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def require_key(ssl_object: object, expected: bytes | None, who: str) -> bytes:
    """The key in the other side's certificate; :class:`BadCertificate` if it presented none,
    or (with ``expected``) not one for that key."""
    got = peer_key(ssl_object)
    if got is None:
        raise BadCertificate(f"{who} presented no certificate for an Ed25519 key")
    if expected is not None and got != expected:
        raise BadCertificate(f"{who}'s certificate is for key {fingerprint(got)}, not "
                             f"{fingerprint(expected)}")
    return got
