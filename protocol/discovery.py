"""Finding tables on the LAN with multicast DNS service discovery (python-zeroconf, asyncio).

A host advertises its table as a ``_p2p10._tcp.local.`` service: the SRV and A records say where
its peer listens, the TXT record says what the table is (:class:`TableAd`). Browsing keeps a live
view of the tables as they appear, change (seats taken) and disappear.

Discovery is a hint, never trusted: anybody on the network can advertise anything, so every
record is checked on the way in and a malformed one is skipped. What matters (who sits where,
the rules, the keys) is settled by the handshake and the signed log, never by a TXT record.

``interfaces`` everywhere is ``None`` or ``"all"`` for every interface, or a list of addresses
(``["127.0.0.1"]``, or one as a string) to send and listen on those alone.
"""

from __future__ import annotations

import asyncio
import ipaddress
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Literal, Self

import ifaddr
from zeroconf import (
    DNSQuestionType,
    InterfaceChoice,
    IPVersion,
    NotRunningException,
    ServiceStateChange,
    Zeroconf,
)
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from p2p10.errors import ProtocolError
from p2p10.game_fields import MAX_PLAYERS, MIN_PLAYERS
from p2p10.i18n import N_, _
from p2p10.rules import RuleSet
from p2p10.table import MAX_NAME, PROTOCOL_NAME

SERVICE_TYPE = "_p2p10._tcp.local."
TABLE_PATH = "/table"  # where a host describes its table to whoever asks it directly
MAX_TITLE = 40
MAX_VERSION = 16
MAX_OPTIONS = 16
MAX_OPTION = 40
MAX_TXT_STRING = 255
# Zeroconf keeps a service's pointer record for at least 1125 s whatever its TTL, so a host that
# vanished without a goodbye (killed, unplugged) would stay listed for 19 minutes. Its other
# records live RECORD_TTL seconds; a browser re-resolves every table each RECHECK_INTERVAL and
# drops one that no longer answers once they have expired.
RECORD_TTL = 30
RECHECK_INTERVAL = 10.0
RESOLVE_TIMEOUT_MS = 3000
DEFAULT_LIST_TIMEOUT = 3.0
# Ask for answers by multicast ("QM"), not zeroconf's default unicast first ("QU"): several
# zeroconf instances on one machine (a host and a joiner, or tests) all bind port 5353, and a
# unicast answer reaches only the last of them to bind, so the others would miss it.
MULTICAST_ANSWERS = DNSQuestionType.QM
# An instance name is one DNS label (63 bytes); leave room for zeroconf's "-2" on a clash.
MAX_INSTANCE_BYTES = 56

_FINGERPRINT = re.compile(r"[0-9a-f]{4}(?::[0-9a-f]{4}){7}")  # 128 bits (p2p10.log.fingerprint)
_SEAT_COUNT = re.compile(rb"[0-9]{1,2}")
_UNSPECIFIED = ("", "0.0.0.0", "::")

Interfaces = Literal["all"] | Sequence[str] | None


class BadAdvertisement(ProtocolError):
    """A table advertisement that is malformed: skipped when browsing, refused when advertising."""


# The messages of a malformed advertisement are shown only to the host whose own table cannot be
# announced (a browser skips a malformed one without a word): in the user's language.

def _check_text(rule: str, value: object, limit: int) -> str:
    """``value`` if it is 1 to ``limit`` printable characters; else :class:`BadAdvertisement`
    saying ``rule`` (marked with ``N_``, its ``{n}`` the limit)."""
    if not isinstance(value, str) or not 0 < len(value) <= limit or not value.isprintable():
        raise BadAdvertisement(_(rule).format(n=limit))
    return value


def _as_sent(item: dict[Any, Any], key: str) -> Any:
    """``item[key]`` as a host sent it (None when missing), of whatever type it has: typed Any
    because :class:`TableAd`'s constructor checks every field, refusing a wrong or missing one."""
    return item.get(key)


def _check_option(option: object) -> str:
    if not (isinstance(option, str) and 0 < len(option) <= MAX_OPTION and option.isascii()
            and option.isprintable() and " " not in option):
        raise BadAdvertisement(_("a rule option must be 1 to {n} ASCII characters, no spaces").format(
            n=MAX_OPTION))
    return option


@dataclass(frozen=True, slots=True)
class TableAd:
    """What a host says about its table on the network.

    ``address`` is where the host's peer listens; when advertising, an unspecified host
    (``"0.0.0.0"``) stands for the addresses of the interfaces advertised on. ``options`` are the
    rule options as :meth:`RuleSet.options` writes them. Constructing one checks every field.
    """

    table: str
    host: str
    seats_taken: int
    seats_free: int
    options: tuple[str, ...]
    fingerprint: str
    address: tuple[str, int]
    version: str = PROTOCOL_NAME
    private: bool = False  # only who has the host's code sits down or watches
    started: bool = False  # the game is under way: no seat to take, but spectators may watch

    def __post_init__(self) -> None:
        # TRANSLATORS: the name of a table announced on the network.
        _check_text(N_("the table name must be 1 to {n} printable characters"), self.table, MAX_TITLE)
        # TRANSLATORS: the name of the player who hosts a table announced on the network.
        _check_text(N_("the host name must be 1 to {n} printable characters"), self.host, MAX_NAME)
        _check_text(N_("the protocol version must be 1 to {n} printable characters"), self.version,
                    MAX_VERSION)
        if not (self.version.isascii() and " " not in self.version):
            raise BadAdvertisement(_("the protocol version must be ASCII with no spaces"))
        for seats in (self.seats_taken, self.seats_free):
            if type(seats) is not int or seats < 0:
                raise BadAdvertisement(_("seat counts must be whole numbers"))
        if not MIN_PLAYERS <= self.seats_taken + self.seats_free <= MAX_PLAYERS:
            raise BadAdvertisement(_("a table has {low} to {high} seats").format(
                low=MIN_PLAYERS, high=MAX_PLAYERS))
        if not isinstance(self.options, tuple) or len(self.options) > MAX_OPTIONS:
            raise BadAdvertisement(_("the rule options must be a tuple of at most {n}").format(
                n=MAX_OPTIONS))
        for option in self.options:
            _check_option(option)
        try:
            RuleSet.parse(self.options)
        except ValueError as exc:
            raise BadAdvertisement(_("the rule options do not parse: {reason}").format(reason=exc)) from exc
        if not isinstance(self.fingerprint, str) or not _FINGERPRINT.fullmatch(self.fingerprint):
            # TRANSLATORS: keep the example fingerprint as it is.
            raise BadAdvertisement(_("the key fingerprint must look like "
                                     "0123:4567:89ab:cdef:0123:4567:89ab:cdef (128 bits)"))
        if not isinstance(self.private, bool):
            raise BadAdvertisement(_("private must be true or false"))
        if not isinstance(self.started, bool):
            raise BadAdvertisement(_("started must be true or false"))
        if self.started and self.seats_free:
            # A game under way has every seat taken: an announcement that says otherwise
            # contradicts itself (and could lure joiners into a refusal), so it is skipped.
            raise BadAdvertisement(_("a table whose game has started has no seat free"))
        _check_address(self.address)

    @property
    def seats(self) -> int:
        return self.seats_taken + self.seats_free

    @property
    def compatible(self) -> bool:
        """Whether this program speaks the table's protocol."""
        return self.version == PROTOCOL_NAME

    def rules(self) -> RuleSet:
        return RuleSet.parse(self.options)

    def to_txt(self) -> dict[bytes, bytes]:
        """The TXT record's properties (short keys: every byte counts in a multicast packet)."""
        txt = {
            b"v": self.version.encode(),
            b"t": self.table.encode(),
            b"h": self.host.encode(),
            b"s": str(self.seats_taken).encode(),
            b"f": str(self.seats_free).encode(),
            b"o": " ".join(self.options).encode(),
            b"k": self.fingerprint.encode(),
        }
        if self.private:
            txt[b"p"] = b"1"
        if self.started:
            txt[b"g"] = b"1"
        for key, value in txt.items():
            if len(key) + 1 + len(value) > MAX_TXT_STRING:
                # TRANSLATORS: a TXT field is a part of the table's announcement on the network;
                # {key} is its one-letter name.
                raise BadAdvertisement(_("the TXT field {key} is longer than {n} bytes").format(
                    key=key.decode(), n=MAX_TXT_STRING))
        return txt

    @classmethod
    def from_txt(cls, txt: Mapping[bytes, bytes | None], address: tuple[str, int]) -> TableAd:
        """Read an advertisement back from TXT properties; raises :class:`BadAdvertisement`."""

        def text(key: bytes) -> str:
            value = txt.get(key)
            if value is None:
                raise BadAdvertisement(f"the TXT field {key.decode()} is missing")
            try:
                return value.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise BadAdvertisement(f"the TXT field {key.decode()} is not UTF-8") from exc

        def count(key: bytes) -> int:
            value = txt.get(key)
            if value is None or not _SEAT_COUNT.fullmatch(value):
                raise BadAdvertisement(f"the TXT field {key.decode()} is not a seat count")
            return int(value)

        options = text(b"o")
        return cls(
            table=text(b"t"),
            host=text(b"h"),
            seats_taken=count(b"s"),
            seats_free=count(b"f"),
            options=tuple(options.split(" ")) if options else (),
            fingerprint=text(b"k"),
            address=address,
            version=text(b"v"),
            private=txt.get(b"p") == b"1",
            started=txt.get(b"g") == b"1",
        )

    def as_json(self) -> dict[str, object]:
        """The advertisement as JSON (``p2p10 tables --json``, and ``GET /table``)."""
        return {"table": self.table, "host": self.host, "address": f"{self.address[0]}:{self.address[1]}",
                "seats_taken": self.seats_taken, "seats_free": self.seats_free,
                "options": list(self.options), "fingerprint": self.fingerprint,
                "version": self.version, "compatible": self.compatible, "private": self.private,
                "started": self.started}

    @classmethod
    def from_json(cls, item: object, address: tuple[str, int]) -> TableAd:
        """An advertisement a host sent as JSON (``GET /table``), found at ``address``;
        raises :class:`BadAdvertisement` (every field is checked as from a TXT record)."""
        if not isinstance(item, dict):
            raise BadAdvertisement("the table's description is not a JSON object")
        options = item.get("options")
        try:
            return cls(table=_as_sent(item, "table"), host=_as_sent(item, "host"),
                       seats_taken=_as_sent(item, "seats_taken"),
                       seats_free=_as_sent(item, "seats_free"),
                       options=tuple(options) if isinstance(options, list) else (),
                       fingerprint=_as_sent(item, "fingerprint"),
                       address=address, version=_as_sent(item, "version"),
                       private=item.get("private", False),
                       started=item.get("started", False))
        except TypeError as exc:
            raise BadAdvertisement(f"the table's description is malformed: {exc}") from None


def _check_address(address: object) -> None:
    if not (isinstance(address, tuple) and len(address) == 2 and isinstance(address[0], str)
            and type(address[1]) is int and 0 < address[1] < 65536):
        raise BadAdvertisement(_("the address must be (host, port) with a port from 1 to 65535"))
    if address[0] not in _UNSPECIFIED:
        try:
            ipaddress.ip_address(address[0])
        except ValueError as exc:
            raise BadAdvertisement(_("{address!r} is not an IP address").format(
                address=address[0][:45])) from exc


# ------------------------------------------------------------------------------ zeroconf glue

def interface_addresses(interfaces: Interfaces) -> list[str] | None:
    """The chosen interfaces as a list of addresses, or None for all of them; a single address
    may be given as a string. Raises ValueError for anything that is not an IP address."""
    if interfaces is None or interfaces == "all":
        return None
    addresses = [interfaces] if isinstance(interfaces, str) else list(interfaces)
    if not addresses:
        raise ValueError(_("no interface chosen"))
    for address in addresses:
        try:
            ipaddress.ip_address(address)
        except ValueError as exc:
            # TRANSLATORS: keep the option "--interface" as it is.
            raise ValueError(_("--interface {address!r}: expected an IP address").format(
                address=address)) from exc
    return addresses


def open_zeroconf(interfaces: Interfaces = None) -> AsyncZeroconf:
    """A zeroconf instance on the chosen interfaces (IPv4 only when on all of them)."""
    addresses = interface_addresses(interfaces)
    if addresses is None:
        return AsyncZeroconf(interfaces=InterfaceChoice.All, ip_version=IPVersion.V4Only)
    return AsyncZeroconf(interfaces=addresses)


def _published_addresses(host: str, interfaces: Interfaces) -> list[str]:
    """The addresses to put in the A records: the host's own, or for an unspecified host those
    of the interfaces advertised on (every IPv4 one but loopback, when on all of them)."""
    if host not in _UNSPECIFIED:
        return [host]
    addresses = interface_addresses(interfaces)
    if addresses is not None:
        return addresses
    return network_addresses() or ["127.0.0.1"]


def network_addresses() -> list[str]:
    """This machine's IPv4 addresses but loopback (and link-local), private ones first: those
    that others on its networks can dial."""
    found = {ipaddress.ip_address(str(ip.ip)) for adapter in ifaddr.get_adapters() for ip in adapter.ips
             if ip.is_IPv4}
    usable = [a for a in found if not (a.is_loopback or a.is_link_local or a.is_unspecified)]
    return [str(a) for a in sorted(usable, key=lambda a: (not a.is_private, a))]


def _instance_name(ad: TableAd) -> str:
    """A DNS-SD instance name from the table name, made unique across hosts by a piece of the
    fingerprint (zeroconf's probing renames it should the same host clash with itself)."""
    suffix = f" ({ad.fingerprint[:4]}{ad.fingerprint[5:9]})"
    # Zeroconf writes names label by label, split on dots: a dot would cut the label in two.
    title = "".join(c if c.isprintable() and c != "." else "-" for c in ad.table)
    room = MAX_INSTANCE_BYTES - len(suffix.encode())
    title = title.encode()[:room].decode("utf-8", errors="ignore")
    return f"{title}{suffix}.{SERVICE_TYPE}"


def _service_info(ad: TableAd, name: str, interfaces: Interfaces) -> AsyncServiceInfo:
    # A host name per key and port: two processes never share one, so one's goodbye (which
    # withdraws its address records) cannot take the other's address away from the browsers.
    return AsyncServiceInfo(
        SERVICE_TYPE,
        name,
        port=ad.address[1],
        properties=ad.to_txt(),
        server=f"p2p10-{ad.fingerprint.replace(':', '')}-{ad.address[1]}.local.",
        host_ttl=RECORD_TTL,
        other_ttl=RECORD_TTL,
        parsed_addresses=_published_addresses(ad.address[0], interfaces),
    )


def ad_from_info(info: AsyncServiceInfo) -> TableAd:
    """The advertisement a resolved service carries; raises :class:`BadAdvertisement`."""
    addresses = info.parsed_addresses()
    if not addresses or info.port is None:
        raise BadAdvertisement("the service has no address")
    try:
        txt = info.properties
    except Exception as exc:  # zeroconf parses the raw TXT bytes lazily, and they are anybody's
        raise BadAdvertisement("the TXT record does not parse") from exc
    return TableAd.from_txt(txt, (addresses[0], info.port))


class Advertisement:
    """A table being advertised; :meth:`update` it as seats fill, :meth:`close` to withdraw it."""

    def __init__(self, zeroconf: AsyncZeroconf, info: AsyncServiceInfo, ad: TableAd,
                 interfaces: Interfaces, owns_zeroconf: bool) -> None:
        self._zeroconf = zeroconf
        self._info = info
        self._interfaces = interfaces
        self._owns_zeroconf = owns_zeroconf
        self._closed = False
        self.ad = ad

    @property
    def name(self) -> str:
        """The service's full name as registered (after any rename)."""
        return self._info.name

    async def update(self, ad: TableAd) -> None:
        """Publish new details (typically the seats taken and free)."""
        if self._closed:
            raise RuntimeError("the advertisement is closed")
        info = _service_info(ad, self._info.name, self._interfaces)
        await (await self._zeroconf.async_update_service(info))
        self._info = info
        self.ad = ad

    async def close(self) -> None:
        """Say goodbye (browsers drop the table at once) and let go of the network."""
        if self._closed:
            return
        self._closed = True
        try:
            await (await self._zeroconf.async_unregister_service(self._info))
        finally:
            if self._owns_zeroconf:
                await self._zeroconf.async_close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()


async def advertise(ad: TableAd, interfaces: Interfaces = None, *,
                    zeroconf: AsyncZeroconf | None = None) -> Advertisement:
    """Announce a table (probing first so its name is unique on the network).

    Pass ``zeroconf`` to share one instance with a browser; otherwise the advertisement opens
    its own on ``interfaces`` and closes it with itself."""
    owns = zeroconf is None
    zc = open_zeroconf(interfaces) if zeroconf is None else zeroconf
    info = _service_info(ad, _instance_name(ad), interfaces)
    try:
        await (await zc.async_register_service(info, allow_name_change=True))
    except BaseException:
        if owns:
            await zc.async_close()
        raise
    return Advertisement(zc, info, ad, interfaces, owns)


# ------------------------------------------------------------------------------ browsing

TableChange = Callable[[str, TableAd | None], None]


class TableBrowser:
    """A live view of the tables on the network: :attr:`tables` maps each service name to its
    advertisement; ``on_change(name, ad)`` is called as one appears or changes, and with
    ``None`` as it disappears (or turns malformed). Malformed records are skipped silently.

    A service stays known from the browser's "added" to its "removed" (a goodbye, or its pointer
    record expiring). Every ``recheck`` seconds each known service is resolved again (from the
    cache while its records live, so mostly without a packet): one that stopped answering leaves
    :attr:`tables`, and comes back should it answer again."""

    def __init__(self, interfaces: Interfaces = None, on_change: TableChange | None = None, *,
                 zeroconf: AsyncZeroconf | None = None, recheck: float = RECHECK_INTERVAL) -> None:
        self.tables: dict[str, TableAd] = {}
        self._interfaces = interfaces
        self._on_change = on_change
        self._zeroconf = zeroconf
        self._owns_zeroconf = zeroconf is None
        self._recheck = recheck
        self._known: set[str] = set()
        self._browser: AsyncServiceBrowser | None = None
        self._rechecking: asyncio.Task[None] | None = None
        self._resolving: dict[str, asyncio.Task[None]] = {}
        self.changed_at: float | None = None  # the event loop's time of the last news heard

    @property
    def settled(self) -> bool:
        """True when every service heard of has been resolved (or dropped): what
        :attr:`tables` holds is all the browser knows so far."""
        return not self._resolving

    async def start(self) -> None:
        if self._zeroconf is None:
            self._zeroconf = open_zeroconf(self._interfaces)
        self.changed_at = asyncio.get_running_loop().time()
        self._browser = AsyncServiceBrowser(self._zeroconf.zeroconf, SERVICE_TYPE,
                                            handlers=[self._on_service], question_type=MULTICAST_ANSWERS)
        self._rechecking = asyncio.create_task(self._recheck_forever(self._zeroconf.zeroconf))

    async def close(self) -> None:
        # The browser first, so that no event starts a resolution after the others are stopped.
        if self._browser is not None:
            await self._browser.async_cancel()
            self._browser = None
        tasks = [*self._resolving.values(), *([self._rechecking] if self._rechecking else [])]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._resolving.clear()
        self._rechecking = None
        if self._owns_zeroconf and self._zeroconf is not None:
            await self._zeroconf.async_close()
            self._zeroconf = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.close()

    def _on_service(self, zeroconf: Zeroconf, service_type: str, name: str,
                    state_change: ServiceStateChange) -> None:
        # The latest news about a name wins: a resolution still under way is stale.
        pending = self._resolving.pop(name, None)
        if pending is not None:
            pending.cancel()
        self.changed_at = asyncio.get_running_loop().time()
        if state_change is ServiceStateChange.Removed:
            self._known.discard(name)
            self._forget(name)
        else:
            self._known.add(name)
            self._start_resolving(zeroconf, name)

    async def _recheck_forever(self, zeroconf: Zeroconf) -> None:
        while True:
            await asyncio.sleep(self._recheck)
            for name in self._known - self._resolving.keys():
                self._start_resolving(zeroconf, name)

    def _start_resolving(self, zeroconf: Zeroconf, name: str) -> None:
        self._resolving[name] = asyncio.create_task(self._resolve(zeroconf, name))

    async def _resolve(self, zeroconf: Zeroconf, name: str) -> None:
        info = AsyncServiceInfo(SERVICE_TYPE, name)
        try:
            found = await info.async_request(zeroconf, RESOLVE_TIMEOUT_MS, MULTICAST_ANSWERS)
            ad = ad_from_info(info) if found else None
        except BadAdvertisement:
            ad = None
        except NotRunningException:  # the zeroconf was closed under the browser
            return
        finally:
            if self._resolving.get(name) is asyncio.current_task():
                del self._resolving[name]
        if ad is None:
            self._forget(name)
        elif self.tables.get(name) != ad:
            self.tables[name] = ad
            self._notify(name, ad)

    def _forget(self, name: str) -> None:
        if self.tables.pop(name, None) is not None:
            self._notify(name, None)

    def _notify(self, name: str, ad: TableAd | None) -> None:
        self.changed_at = asyncio.get_running_loop().time()
        if self._on_change is not None:
            self._on_change(name, ad)


async def browse(interfaces: Interfaces = None, on_change: TableChange | None = None, *,
                 zeroconf: AsyncZeroconf | None = None) -> TableBrowser:
    """Start a :class:`TableBrowser`; close it when done."""
    browser = TableBrowser(interfaces, on_change, zeroconf=zeroconf)
    await browser.start()
    return browser


async def list_tables(interfaces: Interfaces = None, timeout: float = DEFAULT_LIST_TIMEOUT, *,
                      zeroconf: AsyncZeroconf | None = None) -> list[TableAd]:
    """The tables heard of within ``timeout`` seconds, by table name."""
    async with TableBrowser(interfaces, zeroconf=zeroconf) as browser:
        await asyncio.sleep(timeout)
        return sorted(browser.tables.values(), key=lambda ad: (ad.table.casefold(), ad.host, ad.address))
