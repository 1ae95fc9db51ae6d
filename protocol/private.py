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
- :class:`GuessLimiter` counts every attempt from its start (a hang-up as much as a wrong
  code) against its source (an IPv4 address, an IPv6 /64): a source waits after each (1 s,
  2 s, 4 s, ... up to 60 s) and begins at most 2 in a minute, and all sources together begin
  at most 3 a minute, taking turns in the order they asked when that is full. Half the code
  space is 3 244 032 guesses: at 3 a minute, an attacker with any number of machines needs
  about 2 years on average, and one who tries for the whole hour a lobby is typically open
  wins with a chance of 180 / 6 488 064 ≈ 1 in 36 000. A code lives only as long as its
  lobby, and the host is told of the attempts that failed and where from; a host can take a
  new code at any time (the old one then opens nothing).

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
   number of seconds to wait (``"too many wrong codes: try again in N s"``), and closes; a
   guest dials again after N seconds to keep its turn. Otherwise it takes ``X`` (:meth:`CodeProof.receive`)
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
that closes or times out before step 4 ends the exchange with a refusal, and counts as a failed
attempt, as a wrong code does (the limiter counts every attempt from its start and forgives
only a right code). Only
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
import ipaddress
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
from spake2 import SPAKE2_A, SPAKE2_B

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
    "source_of_guess",
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


def source_of_guess(address: str) -> str:
    """Whom a guess is counted against: an IPv4 address by itself (an IPv4 client of a
    dual-stack socket by its IPv4 address), an IPv6 address by its /64, since one machine may
    take any number of addresses in its network's /64 (privacy addresses); anything else as
    it is."""
    try:
        parsed = ipaddress.ip_address(address.partition("%")[0])
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, 64), strict=False))
    return str(parsed)


@dataclass
class _Source:
    failures: int = 0     # attempts that did not prove the code, abandoned ones included
    last: float = 0.0     # when the last one was begun or judged
    judged_at: float = 0.0  # when the last one ended without proving the code
    begun: deque[float] = field(default_factory=deque)  # attempts begun within the window
    pending: list[float] = field(default_factory=list)  # attempts begun, not yet judged


@dataclass
class _Turn:
    back_by: float        # the source loses its place if it has not asked again by then


class GuessLimiter:
    """Who may try a code now, and how long the others must wait. Pure: the clock is passed
    in (as seconds from :func:`time.monotonic`, say). Guesses are counted by source
    (:func:`source_of_guess`: an IPv4 address, an IPv6 /64).

    Per source, before the global bound:

    - after ``n`` attempts that did not prove the code (a wrong code, and also an attempt
      begun and never finished: a hang-up, a timeout, a malformed frame), the next must wait
      ``min(cap, base · 2**(n-1))`` seconds from the last one: 1, 2, 4, 8, 16, 32, 60, 60, ...
      seconds with the defaults;
    - at most ``per_source`` attempts (2) begun in any ``global_window`` seconds: one source
      never holds the whole window.

    A right code forgets the source and gives its attempt back to the window.

    For everyone: at most ``global_limit`` attempts begun in any ``global_window`` seconds (3 a
    minute), counted from their start whatever becomes of them, a right code excepted. This is
    what bounds an attacker with many addresses: at 3 a minute, guessing a 22.6-bit code takes
    about 2 years on average (3 244 032 guesses). When the window is full, the sources that
    ask take turns: each source that may try (its own wait over) has one place in a queue, in
    the order they first asked, and the window's next free attempts go to the first places.
    A source is told when to come back (at most ``poll`` seconds ahead, so that it keeps its
    place by asking again); a source that is not back ``grace`` seconds after that loses its
    place. So a guest behind ``k`` other sources waits about ``k / global_limit`` windows,
    whatever the others do, instead of racing machines that ask a thousand times a second.

    Memory: at most ``max_addresses`` sources (1024) and as many places in the queue; a source
    is forgotten ``idle`` seconds (10 minutes) after its last attempt; when full, the longest
    idle goes first. Forgetting loses nothing, as ``idle`` is longer than ``cap`` and the
    window; an attacker who floods the table to push a source out only restarts that source's
    backoff, and the global bound still holds. A source that finds the queue full is told to
    come back in a window.

    The lobby calls :meth:`begin` when an attempt starts (0: go on; otherwise the seconds to
    wait, and nothing is counted), then :meth:`succeeded` if the code was right, or
    :meth:`failed` for any other end (which only restarts the source's wait from then: the
    attempt is counted once). :meth:`wait` tells without asking for a place.
    """

    def __init__(self, *, base: float = 1.0, cap: float = 60.0, global_limit: int = 3,
                 global_window: float = 60.0, per_source: int = 2, max_addresses: int = 1024,
                 idle: float = 600.0, poll: float = 20.0, grace: float = 10.0) -> None:
        if not (0 < base <= cap <= idle and global_limit >= 1 and global_window > 0
                and global_window <= idle and per_source >= 1 and max_addresses >= 1
                and poll > 0 and grace > 0):
            raise ValueError("need 0 < base <= cap <= idle, global_limit >= 1, "
                             "0 < global_window <= idle, per_source >= 1, max_addresses >= 1, "
                             "poll > 0, grace > 0")
        self.base = base
        self.cap = cap
        self.global_limit = global_limit
        self.global_window = global_window
        self.per_source = per_source
        self.max_addresses = max_addresses
        self.idle = idle
        self.poll = poll
        self.grace = grace
        # Ordered by the time of the last attempt, oldest first: idle sources are at the
        # front. Keeping the newest ``global_limit`` times is enough to know the global wait.
        self._sources: OrderedDict[str, _Source] = OrderedDict()
        self._recent: deque[float] = deque(maxlen=global_limit)
        self._queue: OrderedDict[str, _Turn] = OrderedDict()

    def __len__(self) -> int:
        """How many sources are remembered."""
        return len(self._sources)

    @property
    def queued(self) -> int:
        """How many sources wait for their turn."""
        return len(self._queue)

    def _forget(self, now: float) -> None:
        while self._sources:
            oldest = next(iter(self._sources.values()))
            if now - oldest.last < self.idle:
                break
            self._sources.popitem(last=False)
        while self._recent and now - self._recent[0] >= self.global_window:
            self._recent.popleft()
        for source, turn in list(self._queue.items()):
            if now > turn.back_by:
                del self._queue[source]

    def _backoff(self, failures: int) -> float:
        # The exponent is bounded so that a long run of failures cannot overflow the float.
        return min(self.cap, self.base * 2.0 ** min(failures - 1, 64))

    def _own_wait(self, source: str, now: float) -> float:
        known = self._sources.get(source)
        if known is None:
            return 0.0
        while known.begun and now - known.begun[0] >= self.global_window:
            known.begun.popleft()
        waits = [0.0]
        # The backoff counts the attempts that have ended: attempts still under way (a player
        # and a spectator on one machine, say) do not hold each other back; the share bounds
        # how many may be under way.
        ended = known.failures - len(known.pending)
        if ended > 0:
            waits.append(known.judged_at + self._backoff(ended) - now)
        if len(known.begun) >= self.per_source:
            waits.append(known.begun[0] + self.global_window - now)
        return max(waits)

    def _free_at(self, place: int, now: float) -> float:
        """When the window has room for the attempt of the ``place``-th in the queue (0: the
        first), if everyone before takes theirs."""
        slots = [now] * (self.global_limit - len(self._recent))
        slots += [started + self.global_window for started in self._recent]
        return slots[place % self.global_limit] + self.global_window * (place // self.global_limit)

    def wait(self, address: str, now: float) -> float:
        """Seconds ``address`` must still wait before its next attempt, if nobody else asks
        meanwhile; 0 if it may try now."""
        self._forget(now)
        source = source_of_guess(address)
        waits = [self._own_wait(source, now)]
        if len(self._recent) >= self.global_limit:
            waits.append(self._recent[0] + self.global_window - now)
        return max(waits)

    def _count(self, source: str, now: float) -> _Source:
        known = self._sources.pop(source, None)
        if known is None:
            known = _Source()
            while len(self._sources) >= self.max_addresses:
                self._sources.popitem(last=False)
        known.failures += 1
        known.last = now
        self._sources[source] = known  # at the end: the most recent
        self._recent.append(now)
        return known

    def begin(self, address: str, now: float) -> float:
        """Start an attempt from ``address`` if it may make one now, counting it as a failure
        until :meth:`succeeded`, and return 0; otherwise return the seconds it must wait
        before asking again (its place in the queue is kept if it asks by then), and count
        nothing."""
        self._forget(now)
        source = source_of_guess(address)
        own = self._own_wait(source, now)
        if own > 0:
            self._queue.pop(source, None)
            return own
        if source not in self._queue and len(self._queue) >= self.max_addresses:
            return self.global_window
        self._queue.setdefault(source, _Turn(now))
        place = list(self._queue).index(source)
        free = self._free_at(place, now)
        if free > now:
            told = min(free - now, self.poll)
            self._queue[source].back_by = now + told + self.grace
            return told
        del self._queue[source]
        known = self._count(source, now)
        known.begun.append(now)
        known.pending.append(now)
        # A source that never finishes its attempts could otherwise grow this list by one per
        # backoff for as long as the lobby is open; the oldest have left the global window.
        del known.pending[:-_MAX_PENDING]
        return 0.0

    def failed(self, address: str, now: float) -> None:
        """An attempt from ``address`` that did not prove the code, ended at ``now``. After
        :meth:`begin` it was counted already: this only makes the wait run from ``now``."""
        self._forget(now)
        source = source_of_guess(address)
        known = self._sources.get(source)
        if known is not None and known.pending:
            known.pending.pop(0)
            known.last = max(known.last, now)
            known.judged_at = max(known.judged_at, now)
            self._sources.move_to_end(source)
        else:
            self._count(source, now).judged_at = now

    def succeeded(self, address: str) -> None:
        """A right code from ``address``: forget its failures, and give the window back the
        attempt :meth:`begin` started."""
        known = self._sources.pop(source_of_guess(address), None)
        if known is not None and known.pending:
            # Only if the window still holds it; an attempt longer than the window has aged
            # out of it already.
            started = known.pending[0]
            if started in self._recent:
                self._recent.remove(started)
