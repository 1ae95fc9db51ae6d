"""Private tables: a short code, and a password-authenticated key exchange that proves it.

No networking here: this module is the sans-I/O core that the lobby drives.

The code
--------
``p2p10 host --private`` shows a code in magic-wormhole's style: a number from 1 to 99 and two
words from the 256 of :data:`protocol.words.WORDS`, e.g. ``7-orbit-tulip``. The host reads it out
(or shows it) to the players in the room; a guest types it. :func:`new_code` makes one with
:mod:`secrets`; :func:`parse_code` turns what a person typed into the one canonical spelling
(lowercase, one hyphen between the parts, the number without leading zeros), which is the
password of the exchange, so ``" 07 Orbit  tulip"`` works as well as ``7-orbit-tulip``.

A code has log2(99 · 256 · 256) = log2(6 488 064) ≈ 22.6 bits of entropy. That is far too
little for anything an attacker could test offline, and plenty for a secret that can only be
tested *online*, one guess per connection, against a host that slows guessers down:

- The exchange is SPAKE2: what crosses the network (even to an active attacker who runs the
  protocol with a guessed code) lets nobody test a code offline. Each run with the host tests
  exactly one code, and the host knows about it.
- :class:`GuessLimiter` makes every address wait after a wrong code (1 s, 2 s, 4 s, ... up to
  60 s) and lets all addresses together make at most 3 wrong guesses a minute. Half the code
  space is 3 244 032 guesses: at 3 a minute, an attacker with any number of machines needs
  about 2 years on average, and one who tries for the whole hour a lobby is typically open
  wins with a chance of 180 / 6 488 064 ≈ 1 in 36 000. A code lives only as long as its
  lobby; a host who sees many wrong codes can close the table and open another.

The exchange, over the lobby link
---------------------------------
Every lobby link already runs over TLS 1.3 with each side's certificate carrying its Ed25519
identity (:mod:`protocol.tls`). On a private table the guest proves the code right after the TLS
handshake, before its ``join``, so that the host seats nobody and shows no name until then
(the host takes the guest's key from the guest's certificate). Each side has a
:class:`CodeProof` with the code, its role, and the *binding* :func:`binding_of` of the host's
key and the guest's key *as each side sees them in the TLS handshake*.

1. The guest sends ``["pake", X]``: ``X = CodeProof.message()``, its SPAKE2 message
   (33 bytes: the side byte ``A`` and a point of Ed25519).
2. The host asks its :class:`GuessLimiter` (:meth:`GuessLimiter.begin`) about the guest's
   address. If the address (or everyone) must wait, it answers ``["refused", reason]`` with the
   number of seconds to wait, and closes. Otherwise it takes ``X`` (:meth:`CodeProof.receive`)
   and answers ``["pake", Y]``, its own SPAKE2 message (side byte ``B``).
3. The guest takes ``Y`` and sends ``["confirm", Cg]``: ``Cg = CodeProof.confirmation()``,
   32 bytes.
4. The host checks ``Cg`` (:meth:`CodeProof.check`). If it is wrong, the host answers
   ``["refused", "wrong code"]`` and closes: the guest's address has used one guess. If it is
   right, the host tells the limiter (:meth:`GuessLimiter.succeeded`) and answers
   ``["confirm", Ch]``, its own confirmation.
5. The guest checks ``Ch``. If it is wrong, the guest leaves: the other end does not know the
   code, or a machine in between relays the exchange. If it is right, the link goes on as on an
   open table, with the guest's ``join``.

A malformed frame, a message of the wrong size or side, a frame out of this order, or a link
that closes or times out before step 4 ends the exchange with a refusal, and counts as a wrong
guess (the limiter counts every attempt from its start and forgives only a right code). Only
the host limits guesses: the guest answers one host once, and a person types the code.

The host sends its confirmation only after checking the guest's, so an unproven guest gets
nothing that depends on the code. (SPAKE2 would not let the guest test codes offline even from
the host's confirmation; the order just makes "one guess per connection" obvious.)

Why the binding. Without it, a machine in the middle could run TLS with each side under its
own key and relay the SPAKE2 messages and confirmations unchanged: both sides would see a right
code, and the middle would read and change the whole lobby link. The confirmations cover the
keys each side saw in TLS, so in that case each side computes a different transcript and the
proof fails on both. (A TLS channel binding would do as well, but Python's :mod:`ssl` has no
``tls-exporter`` (RFC 9266), and ``tls-unique`` is not defined for TLS 1.3; it does give the
peer's certificate, hence its key.)

The key schedule
----------------
``frame(parts)`` is :func:`p2p10.crypto.group.frame`: each part prefixed by its length as 4
bytes big-endian.

- password = the canonical code, ASCII.
- SPAKE2 over Ed25519 as python-spake2 0.9 computes it (its M and N, the password scalar
  HKDF-SHA256(password, info ``SPAKE2 pw``) mod ℓ, the key SHA-256 of SHA-256(password),
  SHA-256(idA), SHA-256(idB), X, Y, K): the guest is side A and the host side B, with
  ``idA = b"p2p10/private/v1 guest"`` and ``idB = b"p2p10/private/v1 host"``. A message is a
  side byte (``A`` or ``B``) and a 32-byte point in RFC 8032's encoding; the receiver refuses
  its own side, a non-canonical encoding, the identity, points outside the prime-order
  subgroup and a reflection of its own message.
- ``Kc = HKDF-SHA256(K, salt none, info b"p2p10/private/v1 confirm", 32 bytes)``.
- A confirmation is ``HMAC-SHA256(Kc, frame(b"p2p10/private/v1 confirmation", role, X, Y,
  binding))`` with ``role`` ``b"guest"`` or ``b"host"`` (whose confirmation it is) and ``X``,
  ``Y`` the guest's and the host's whole 33-byte messages, in that order on both sides. The two
  confirmations differ, so a confirmation sent back to its maker fails.
- ``binding = frame(b"p2p10/private/v1 binding", table id, host key, guest key)``: the table id
  is empty while the guest does not know it yet (it comes with the roster).
- ``table key = HKDF-SHA256(K, salt none, info b"p2p10/private/v1 table key", 32 bytes)``: a
  key only the two ends of this link know, for later handshakes to bind to.

Why SPAKE2_A/SPAKE2_B rather than SPAKE2_Symmetric. magic-wormhole uses the symmetric variant
because its two clients meet through a mailbox server and neither knows which one it is. Here
the roles are fixed by the link (the host listens, the guest dials), so the asymmetric
protocol, the one with the published security proof (Abdalla and Pointcheval, 2005), fits;
its side byte also makes each side refuse a message from its own side, so a host can never be
fed its own message or another host's.
"""

from __future__ import annotations

import hmac
import math
import os
import re
import secrets
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from hashlib import sha256
from typing import Literal

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from spake2 import SPAKE2_A, SPAKE2_B  # type: ignore[import-untyped]

from p2p10.crypto.group import frame
from p2p10.errors import P2P10Error, ProtocolError
from p2p10.i18n import _
from p2p10.signing import FIELD_PRIME
from protocol.words import WORDS

__all__ = [
    "CODE_BITS",
    "CONFIRMATION_BYTES",
    "MESSAGE_BYTES",
    "TABLE_KEY_BYTES",
    "BadCode",
    "BadExchange",
    "CodeProof",
    "GuessLimiter",
    "OutOfOrder",
    "Role",
    "binding_of",
    "new_code",
    "parse_code",
]

MAX_NUMBER = 99
CODE_BITS = math.log2(MAX_NUMBER * len(WORDS) ** 2)
"""The entropy of a code from :func:`new_code`: about 22.6 bits."""

MESSAGE_BYTES = 33
"""A SPAKE2 message: the side byte and a 32-byte Ed25519 point."""
CONFIRMATION_BYTES = 32
"""A key confirmation: an HMAC-SHA256."""
TABLE_KEY_BYTES = 32

_LABEL = b"p2p10/private/v1"
_ID_GUEST = _LABEL + b" guest"
_ID_HOST = _LABEL + b" host"
_CONFIRM_KEY_INFO = _LABEL + b" confirm"
_CONFIRMATION_LABEL = _LABEL + b" confirmation"
_TABLE_KEY_INFO = _LABEL + b" table key"
_BINDING_LABEL = _LABEL + b" binding"
_SIDE = {"guest": b"A", "host": b"B"}

Role = Literal["host", "guest"]

_MAX_PENDING = 16

_WORD_INDEX = frozenset(WORDS)
# People type hyphens however their keyboard or phone gives them: a hyphen-minus, or a
# Unicode hyphen or dash that autocorrection put in its place.
_SEPARATORS = re.compile(r"[\s\-\u2010-\u2015\u2212]+")
_NUMBER = re.compile(r"[0-9]+")  # not \d, which takes any script's digits
_EXAMPLE = "7-orbit-tulip"


class BadCode(P2P10Error, ValueError):
    """Text that is not a private table's code: what is wrong, for the person who typed it."""


class BadExchange(ProtocolError):
    """A code exchange that cannot go on: the other side sent a malformed or unexpected message.

    A :class:`~p2p10.errors.ProtocolError`, so the lobby's handling of bad frames applies."""


class OutOfOrder(BadExchange):
    """A step of :class:`CodeProof` taken out of order, or after the proof failed. In the lobby
    this usually means the other side sent a frame out of turn; it can also be a bug."""


def new_code() -> str:
    """A fresh code, ``number-word-word``, from :mod:`secrets`: about 22.6 bits."""
    number = 1 + secrets.randbelow(MAX_NUMBER)
    return f"{number}-{secrets.choice(WORDS)}-{secrets.choice(WORDS)}"


def parse_code(text: str) -> str:
    """The canonical spelling of the code a person typed; raises :class:`BadCode`.

    Case, the spaces around it, and any run of spaces and hyphens between the parts do not
    matter, nor leading zeros in the number: ``" 07 Orbit--tulip "`` gives ``7-orbit-tulip``.
    """
    parts = [part for part in _SEPARATORS.split(text.strip().lower()) if part]
    if not parts:
        # TRANSLATORS: {example} is a code; its words are English in every language.
        raise BadCode(_("the code is empty: type the number and the two words the host shows, "
                        "like {example}").format(example=_EXAMPLE))
    if len(parts) != 3:
        raise BadCode(_("a code has three parts, a number and two words like {example}; this has "
                        "{count}").format(example=_EXAMPLE, count=len(parts)))
    number, *words = parts
    if not _NUMBER.fullmatch(number):
        raise BadCode(_("a code starts with a number from 1 to {top}, not {given!r}").format(
            top=MAX_NUMBER, given=number))
    value = int(number)
    if not 1 <= value <= MAX_NUMBER:
        raise BadCode(_("the number of a code is from 1 to {top}, not {given}").format(
            top=MAX_NUMBER, given=value))
    for word in words:
        if word not in _WORD_INDEX:
            raise BadCode(_("{word!r} is not one of the code's words: check the spelling with "
                            "the host").format(word=word))
    return f"{value}-{words[0]}-{words[1]}"


def binding_of(host_key: bytes, guest_key: bytes, table_id: bytes = b"") -> bytes:
    """What the two ends of one lobby link both know and a relay in the middle would change:
    the host's and the guest's Ed25519 public keys as seen in the TLS handshake, and the table
    id when both know it (leave it empty otherwise). The ``binding`` of :class:`CodeProof`."""
    return frame(_BINDING_LABEL, table_id, host_key, guest_key)


def _canonical(point: bytes) -> bool:
    # python-spake2 reduces y modulo p and takes x = 0 with either sign, so it would take
    # several spellings of one point, among them non-canonical spellings of the identity,
    # which it refuses only in its canonical one. A message has one spelling (RFC 8032's).
    y = int.from_bytes(point, "little")
    negative, y = y >> 255, y & ((1 << 255) - 1)
    return y < FIELD_PRIME and not (negative and y in (1, FIELD_PRIME - 1))


def _hkdf(key: bytes, info: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(key)


class CodeProof:
    """One side of the code exchange on one lobby link (see the module's documentation).

    ``role`` is ``"guest"`` (who dialled) or ``"host"``; ``binding`` is :func:`binding_of` the
    keys this side saw in TLS. The steps, each checked (:class:`OutOfOrder` otherwise):

    - :meth:`message` (this side's SPAKE2 message, to send) and :meth:`receive` (the other
      side's), in either order, each once (:meth:`message` gives the same bytes again);
    - the guest: :meth:`confirmation` (to send), then :meth:`check` the host's;
      the host: :meth:`check` the guest's, then, if it was right, :meth:`confirmation`;
    - :meth:`table_key` once :meth:`check` has returned True.

    After a malformed message or a wrong confirmation the proof is spent: every further step
    raises :class:`OutOfOrder`. Use a new one (a new connection) for a new attempt.

    ``code`` is read with :func:`parse_code` (so :class:`BadCode` if it is not a code).
    ``entropy`` is where SPAKE2 takes its secret scalar from: leave it, except to make test
    vectors.
    """

    def __init__(self, code: str, role: Role, binding: bytes,
                 entropy: Callable[[int], bytes] = os.urandom) -> None:
        if role not in _SIDE:
            raise ValueError(f"role is 'host' or 'guest', not {role!r}")
        if not isinstance(binding, bytes):
            raise TypeError("the binding is bytes")
        self.role: Role = role
        self._binding = binding
        password = parse_code(code).encode("ascii")
        spake = SPAKE2_A if role == "guest" else SPAKE2_B
        self._spake = spake(password, idA=_ID_GUEST, idB=_ID_HOST, entropy_f=entropy)
        self._outbound: bytes | None = None
        self._sent = False
        self._inbound: bytes | None = None
        self._transcript = (b"", b"")  # the guest's message and the host's, once both are known
        self._confirm_key: bytes | None = None
        self._table_key: bytes | None = None
        self._confirmed = False
        self._checked: bool | None = None
        self._spent = False

    @property
    def _other(self) -> Role:
        return "host" if self.role == "guest" else "guest"

    def _step(self, allowed: bool, what: str) -> None:
        if self._spent:
            raise OutOfOrder(f"the code proof has failed: no {what} after that")
        if not allowed:
            raise OutOfOrder(f"{what} out of order in the code exchange")

    def _start(self) -> bytes:
        if self._outbound is None:
            self._outbound = bytes(self._spake.start())
        return self._outbound

    def message(self) -> bytes:
        """This side's SPAKE2 message, to send: :data:`MESSAGE_BYTES` bytes."""
        self._step(True, "message")
        self._sent = True
        return self._start()

    def receive(self, message: bytes) -> None:
        """Take the other side's SPAKE2 message; :class:`BadExchange` if it is malformed, from
        this side, not a point of the group, or this side's own message sent back."""
        self._step(self._inbound is None, "second SPAKE2 message")
        expected = _SIDE[self._other]
        if not isinstance(message, bytes) or len(message) != MESSAGE_BYTES:
            self._spent = True
            raise BadExchange(f"a code exchange message is {MESSAGE_BYTES} bytes")
        if message[:1] != expected:
            self._spent = True
            raise BadExchange(f"a code exchange message from the {self._other} starts with "
                              f"{expected!r}")
        if not _canonical(message[1:]):
            self._spent = True
            raise BadExchange("a code exchange message is not a canonical encoding of a point")
        outbound = self._start()
        try:
            key = bytes(self._spake.finish(message))
        except Exception:
            # The library raises its SPAKEError, ValueError (the identity, a point outside the
            # prime-order subgroup), its own NotOnCurve, or whatever else a hostile point may
            # provoke in its pure-Python arithmetic: all of them mean a bad message, and none
            # may reach the lobby as anything but a BadExchange.
            self._spent = True
            raise BadExchange("a code exchange message is not a valid SPAKE2 message") from None
        self._inbound = message
        guest, host = (outbound, message) if self.role == "guest" else (message, outbound)
        self._transcript = (guest, host)
        self._confirm_key = _hkdf(key, _CONFIRM_KEY_INFO)
        self._table_key = _hkdf(key, _TABLE_KEY_INFO)

    def _mac(self, role: Role) -> bytes:
        assert self._confirm_key is not None
        guest, host = self._transcript
        data = frame(_CONFIRMATION_LABEL, role.encode("ascii"), guest, host, self._binding)
        return hmac.digest(self._confirm_key, data, sha256)

    def confirmation(self) -> bytes:
        """This side's key confirmation, to send: :data:`CONFIRMATION_BYTES` bytes. The guest's
        once both messages are exchanged; the host's only after the guest's checked."""
        ready = self._sent and self._inbound is not None
        if self.role == "host":
            ready = ready and self._checked is True
        self._step(ready, "confirmation")
        self._confirmed = True
        return self._mac(self.role)

    def check(self, theirs: bytes) -> bool:
        """Whether ``theirs`` is the other side's right confirmation (a constant-time
        comparison): True only if both sides used the same code and the same binding. Once per
        proof; the guest checks only after taking its own :meth:`confirmation`."""
        ready = self._sent and self._inbound is not None and self._checked is None
        if self.role == "guest":
            ready = ready and self._confirmed
        self._step(ready, "check")
        right = isinstance(theirs, bytes) and hmac.compare_digest(self._mac(self._other), theirs)
        self._checked = right
        self._spent = not right
        return right

    def table_key(self) -> bytes:
        """A :data:`TABLE_KEY_BYTES`-byte key that only the two ends of this link know, apart
        from the confirmation key; once :meth:`check` has returned True."""
        self._step(self._checked is True, "table key")
        assert self._table_key is not None
        return self._table_key


@dataclass
class _Address:
    failures: int = 0     # consecutive wrong guesses
    last: float = 0.0     # when the last one was counted (begun, or judged)
    judged_at: float = 0.0  # when the last one was judged wrong
    pending: list[float] = field(default_factory=list)  # attempts begun, not yet judged


class GuessLimiter:
    """How long a guest must wait before trying a code again. Pure: the clock is passed in (as
    seconds from :func:`time.monotonic`, say).

    Per address: after ``n`` consecutive wrong guesses, the next attempt must wait
    ``min(cap, base · 2**(n-1))`` seconds from the last one: 1, 2, 4, 8, 16, 32, 60, 60, ...
    seconds with the defaults. A right code forgets the address.

    For everyone: at most ``global_limit`` wrong guesses in any ``global_window`` seconds (3 a
    minute by default); beyond that every address waits until the oldest leaves the window.
    This is what bounds an attacker with many addresses: at 3 a minute, guessing a 22.6-bit code
    takes about 2 years on average (3 244 032 guesses), and an hour-long lobby is guessed with a
    chance of about 1 in 36 000. A few wrong codes from real players in a minute delay
    everybody's next try by under a minute, which is the price.

    Memory: at most ``max_addresses`` addresses (1024), each forgotten after ``idle`` seconds
    (10 minutes) without a wrong guess; when full, the longest idle goes first. Forgetting an
    idle address loses nothing, as ``idle`` is longer than ``cap`` (its wait has passed); an
    attacker who floods the table to push an address out only restarts that address's
    backoff, and the global bound still holds.

    The lobby calls :meth:`begin` when an attempt starts (it counts the attempt as a wrong guess
    at once in the global bound, so that parallel connections cannot all slip through before
    any is judged; the address's own wait grows with the guesses judged wrong), then
    :meth:`succeeded` if the code was right, or :meth:`failed` if it was wrong (which only
    restarts the address's wait from then: the guess is counted once). An attempt that ends
    some other way (a dropped link, a malformed message, a timeout) needs no call: it stays
    counted. :meth:`wait` and :meth:`failed` can also be used on their own.
    """

    def __init__(self, *, base: float = 1.0, cap: float = 60.0, global_limit: int = 3,
                 global_window: float = 60.0, max_addresses: int = 1024,
                 idle: float = 600.0) -> None:
        if not (0 < base <= cap <= idle and global_limit >= 1 and global_window > 0
                and max_addresses >= 1):
            raise ValueError("need 0 < base <= cap <= idle, global_limit >= 1, "
                             "global_window > 0, max_addresses >= 1")
        self.base = base
        self.cap = cap
        self.global_limit = global_limit
        self.global_window = global_window
        self.max_addresses = max_addresses
        self.idle = idle
        # Ordered by the time of the last wrong guess, oldest first: idle addresses are at the
        # front. Keeping the newest ``global_limit`` times is enough to know the global wait.
        self._addresses: OrderedDict[str, _Address] = OrderedDict()
        self._recent: deque[float] = deque(maxlen=global_limit)

    def __len__(self) -> int:
        """How many addresses are remembered."""
        return len(self._addresses)

    def _forget(self, now: float) -> None:
        while self._addresses:
            oldest = next(iter(self._addresses.values()))
            if now - oldest.last < self.idle:
                break
            self._addresses.popitem(last=False)
        while self._recent and now - self._recent[0] >= self.global_window:
            self._recent.popleft()

    def _backoff(self, failures: int) -> float:
        # The exponent is bounded so that a long run of failures cannot overflow the float.
        return min(self.cap, self.base * 2.0 ** min(failures - 1, 64))

    def wait(self, address: str, now: float) -> float:
        """Seconds ``address`` must still wait before its next attempt; 0 if it may try now."""
        self._forget(now)
        waits = [0.0]
        known = self._addresses.get(address)
        # The address's own wait counts only its guesses already judged wrong: attempts still
        # under way (a player and a spectator on one machine, say) do not hold each other
        # back. Parallel guesses are bounded by the global count, which includes them.
        judged = known.failures - len(known.pending) if known is not None else 0
        if known is not None and judged > 0:
            waits.append(known.judged_at + self._backoff(judged) - now)
        if len(self._recent) >= self.global_limit:
            waits.append(self._recent[0] + self.global_window - now)
        return max(waits)

    def _count(self, address: str, now: float) -> _Address:
        known = self._addresses.pop(address, None)
        if known is None:
            known = _Address()
            while len(self._addresses) >= self.max_addresses:
                self._addresses.popitem(last=False)
        known.failures += 1
        known.last = now
        self._addresses[address] = known  # at the end: the most recent
        self._recent.append(now)
        return known

    def begin(self, address: str, now: float) -> float:
        """Start an attempt from ``address`` if it may make one now, counting it as a wrong
        guess until :meth:`succeeded`, and return 0; otherwise return the seconds it must still
        wait, and count nothing."""
        delay = self.wait(address, now)
        if delay > 0:
            return delay
        pending = self._count(address, now).pending
        pending.append(now)
        # A guest that never finishes its attempts could otherwise grow this list by one per
        # backoff for as long as the lobby is open; the oldest have left the global window.
        del pending[:-_MAX_PENDING]
        return 0.0

    def failed(self, address: str, now: float) -> None:
        """A wrong guess from ``address`` at ``now``. After :meth:`begin` it was counted
        already: this only makes the wait run from ``now``."""
        self._forget(now)
        known = self._addresses.get(address)
        if known is not None and known.pending:
            known.pending.pop(0)
            known.last = max(known.last, now)
            known.judged_at = max(known.judged_at, now)
            self._addresses.move_to_end(address)
        else:
            self._count(address, now).judged_at = now

    def succeeded(self, address: str) -> None:
        """A right code from ``address``: forget its wrong guesses, and take back the global
        count of the attempt :meth:`begin` started."""
        known = self._addresses.pop(address, None)
        if known is not None and known.pending:
            # Only if the window still holds it; an attempt longer than the window has aged
            # out of it already.
            started = known.pending[0]
            if started in self._recent:
                self._recent.remove(started)
