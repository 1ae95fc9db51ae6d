"""Zeroconf discovery of tables, on the loopback interface only (multicast never leaves 127.0.0.1).

Zeroconf's probing and announcing delays are patched down to a few milliseconds, so a table
appears at once. Each test's tables carry a fresh name, so tests running at the same time on
this machine (which share the loopback multicast group) cannot confuse one another.
"""

from __future__ import annotations

import asyncio
import random
import signal
import sys
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

from p2p10.game_fields import MAX_PLAYERS, MIN_PLAYERS
from p2p10.log import fingerprint
from p2p10.rules import RuleSet
from p2p10.table import MAX_NAME
from protocol import discovery
from protocol.discovery import (
    MAX_TITLE,
    SERVICE_TYPE,
    BadAdvertisement,
    TableAd,
    TableBrowser,
    advertise,
    browse,
    interface_addresses,
    list_tables,
    open_zeroconf,
)

LOOPBACK = ["127.0.0.1"]
KEY = fingerprint(b"\x01" * 32)


@pytest.fixture(autouse=True)
def fast_zeroconf(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Probe and announce in milliseconds instead of about a second (zeroconf's _core is pure
    Python, so its module constants can be patched)."""
    import zeroconf._core as core

    monkeypatch.setattr(core, "_CHECK_TIME", 5)
    monkeypatch.setattr(core, "_REGISTER_TIME", 5)
    monkeypatch.setattr(core, "_UNREGISTER_TIME", 5)
    monkeypatch.setattr(core, "_PROBE_RANDOM_DELAY_INTERVAL", (1, 2))
    yield


def make_ad(table: str | None = None, taken: int = 1, free: int = 3) -> TableAd:
    """A table with a fresh name and port (and so its own host name: see _service_info)."""
    return TableAd(
        table=table or f"Table {uuid.uuid4().hex[:8]}",
        host="Ann",
        seats_taken=taken,
        seats_free=free,
        options=("skip=next", "goal=5"),
        fingerprint=KEY,
        address=("127.0.0.1", random.randrange(1024, 65536)),
    )


async def eventually(condition: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.02)


def by_table(browser: TableBrowser, table: str) -> TableAd | None:
    return next((ad for ad in browser.tables.values() if ad.table == table), None)


async def seen(table: str, count: int = 1) -> list[TableAd]:
    """The tables of that name, once ``count`` of them have appeared."""
    async with TableBrowser(LOOPBACK) as browser:
        await eventually(lambda: len([ad for ad in browser.tables.values() if ad.table == table]) == count)
        return [ad for ad in browser.tables.values() if ad.table == table]


# ------------------------------------------------------------------------------ on the network

async def test_an_advertised_table_is_listed() -> None:
    ad = make_ad()
    async with await advertise(ad, LOOPBACK):
        # Just announced, so the answer to a multicast question waits out the one-second limit.
        found = [t for t in await list_tables(LOOPBACK, timeout=1.5) if t.table == ad.table]
    assert found == [ad]


async def test_a_live_browser_sees_seats_change_and_the_table_go() -> None:
    changes: list[tuple[str, TableAd | None]] = []
    ad = make_ad()
    async with TableBrowser(LOOPBACK, lambda name, new: changes.append((name, new))) as browser:
        advertisement = await advertise(ad, LOOPBACK)
        await eventually(lambda: by_table(browser, ad.table) == ad)

        fuller = replace(ad, seats_taken=3, seats_free=1)
        await advertisement.update(fuller)
        await eventually(lambda: by_table(browser, ad.table) == fuller)

        await advertisement.close()
        await eventually(lambda: by_table(browser, ad.table) is None)
    ours = [(name, new) for name, new in changes if name == advertisement.name]
    assert ours == [(advertisement.name, ad), (advertisement.name, fuller), (advertisement.name, None)]


async def test_one_zeroconf_can_advertise_and_browse() -> None:
    zeroconf = open_zeroconf(LOOPBACK)
    try:
        browser = await browse(zeroconf=zeroconf)
        ad = make_ad()
        async with await advertise(ad, zeroconf=zeroconf):
            await eventually(lambda: by_table(browser, ad.table) == ad)
        await eventually(lambda: by_table(browser, ad.table) is None)
        await browser.close()
    finally:
        await zeroconf.async_close()


async def test_two_tables_of_the_same_name_both_show() -> None:
    # On one zeroconf: probing finds the clash in its own cache. Across processes on one machine
    # the answer to a probe (unicast, as RFC 6762 asks) may reach another process's socket.
    zeroconf = open_zeroconf(LOOPBACK)
    ad = make_ad()
    try:
        async with await advertise(ad, zeroconf=zeroconf) as first, \
                await advertise(ad, zeroconf=zeroconf) as second:
            assert first.name != second.name
            assert await seen(ad.table, 2) == [ad, ad]
    finally:
        await zeroconf.async_close()


ADVERTISER = """
import asyncio, sys
import zeroconf._core as core
import protocol.discovery as discovery
core._CHECK_TIME = core._REGISTER_TIME = core._UNREGISTER_TIME = 5
core._PROBE_RANDOM_DELAY_INTERVAL = (1, 2)
discovery.RECORD_TTL = 1

async def main() -> None:
    ad = discovery.TableAd(sys.argv[1], "Ann", 1, 3, (), sys.argv[2], ("127.0.0.1", int(sys.argv[3])))
    async with await discovery.advertise(ad, ["127.0.0.1"]):
        print("advertised", flush=True)
        await asyncio.sleep(60)

asyncio.run(main())
"""


async def test_a_host_that_stops_answering_drops_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discovery, "RESOLVE_TIMEOUT_MS", 500)
    table = f"Killed {uuid.uuid4().hex[:8]}"
    async with TableBrowser(LOOPBACK, recheck=0.1) as browser:
        host = await asyncio.create_subprocess_exec(
            sys.executable, "-c", ADVERTISER, table, KEY, str(random.randrange(1024, 65536)),
            stdout=asyncio.subprocess.PIPE)
        try:
            assert host.stdout is not None
            assert await asyncio.wait_for(host.stdout.readline(), 20) == b"advertised\n"
            await eventually(lambda: by_table(browser, table) is not None)
            await asyncio.sleep(2)  # past its records' lifetime: still listed, as it answers
            await eventually(lambda: by_table(browser, table) is not None)

            host.send_signal(signal.SIGSTOP)  # frozen (or off the network) for a while
            await eventually(lambda: by_table(browser, table) is None)
            host.send_signal(signal.SIGCONT)
            await eventually(lambda: by_table(browser, table) is not None)
        finally:
            host.kill()  # SIGKILL: no goodbye
            await host.wait()
        await eventually(lambda: by_table(browser, table) is None)


def junk_records(table: str) -> list[bytes | dict[bytes, bytes | None]]:
    good = make_ad(table).to_txt()
    return [
        {},
        {b"t": b"\xff\xfe not utf-8"},
        {**good, b"t": b"bell\x07 and escape \x1b[2J"},
        {**good, b"t": b"x" * 200},
        {**good, b"s": b"lots"},
        {**good, b"s": b"9", b"f": b"9"},
        {**good, b"f": "\u0663".encode()},
        {**good, b"k": b"not a fingerprint"},
        {**good, b"k": b"0123:4567:89ab:cdef"},  # the former 64-bit form: too weak a pin (A58)
        {**good, b"o": b"skip=sideways"},
        {**good, b"o": b"hands=2 goal=3"},
        {**good, b"v": None},
        {**good, b"h": b""},
        b"\x40short",  # a TXT string claiming more bytes than there are
        b"\x00\x00\x00",
    ]


async def test_malformed_records_are_skipped() -> None:
    table = f"Junk {uuid.uuid4().hex[:8]}"
    changes: list[tuple[str, TableAd | None]] = []
    junk = AsyncZeroconf(interfaces=LOOPBACK)
    listener = open_zeroconf(LOOPBACK)

    turning = make_ad(f"{table} turning")

    def raw(name: str, txt: bytes | Mapping[bytes, bytes | None]) -> AsyncServiceInfo:
        return AsyncServiceInfo(SERVICE_TYPE, f"{name}.{SERVICE_TYPE}", port=turning.address[1],
                                properties=txt if isinstance(txt, bytes) else dict(txt),
                                server=f"{table.replace(' ', '-')}.local.",
                                parsed_addresses=["127.0.0.1"])

    infos = [raw(f"{table} {n}", txt) for n, txt in enumerate(junk_records(table))]
    try:
        browser = await browse(on_change=lambda name, new: changes.append((name, new)), zeroconf=listener)
        for info in infos:
            await (await junk.async_register_service(info))
        await (await junk.async_register_service(raw(turning.table, turning.to_txt())))
        good = make_ad(f"{table} good")
        async with await advertise(good, LOOPBACK):
            await eventually(lambda: by_table(browser, good.table) == good)
            await eventually(lambda: by_table(browser, turning.table) == turning)
            for info in infos:  # the junk did reach the browser's side, and was skipped
                assert await AsyncServiceInfo(SERVICE_TYPE, info.name).async_request(listener.zeroconf, 1000)
            assert sorted(ad.table for ad in browser.tables.values() if ad.table.startswith(table)) == [
                good.table, turning.table]

            # A table whose record turns malformed is dropped, and comes back once mended.
            await (await junk.async_update_service(raw(turning.table, {**turning.to_txt(), b"s": b"-1"})))
            await eventually(lambda: by_table(browser, turning.table) is None)
            assert by_table(browser, good.table) == good
            mended = replace(turning, seats_taken=2, seats_free=2)
            await (await junk.async_update_service(raw(turning.table, mended.to_txt())))
            await eventually(lambda: by_table(browser, turning.table) == mended)
        await browser.close()
    finally:
        await junk.async_close()
        await listener.async_close()
    seen = [new for _, new in changes if new is not None and new.table.startswith(table)]
    assert sorted(seen, key=lambda ad: (ad.table, ad.seats_taken)) == [good, turning, mended]


# ------------------------------------------------------------------------------ the TXT record

VALID_OPTIONS = ["skip=next", "skip_stacking", "natural=phase", "hit=own", "phases=even",
                 "phases=odd", "order=any", "hands=3", "goal=4"]


def parses(options: list[str]) -> bool:
    try:
        RuleSet.parse(options)
    except ValueError:
        return False
    return True


def printable(max_size: int) -> st.SearchStrategy[str]:
    letters = st.characters(categories=["L", "M", "N", "P", "S"], codec="utf-8") | st.just(" ")
    return st.text(letters, min_size=1, max_size=max_size).filter(str.isprintable)


@st.composite
def table_ads(draw: st.DrawFn) -> TableAd:
    seats = draw(st.integers(MIN_PLAYERS, MAX_PLAYERS))
    taken = draw(st.integers(0, seats))
    return TableAd(
        table=draw(printable(MAX_TITLE)),
        host=draw(printable(MAX_NAME)),
        seats_taken=taken,
        seats_free=seats - taken,
        options=tuple(draw(st.lists(st.sampled_from(VALID_OPTIONS), unique=True).filter(parses))),
        fingerprint=fingerprint(draw(st.binary(min_size=32, max_size=32))),
        address=(draw(st.ip_addresses(v=4).map(str)), draw(st.integers(1, 65535))),
    )


@given(table_ads())
def test_txt_round_trip(ad: TableAd) -> None:
    txt = ad.to_txt()
    assert all(len(key) + 1 + len(value) <= 255 for key, value in txt.items())
    assert TableAd.from_txt(txt, ad.address) == ad


@given(st.dictionaries(st.sampled_from([b"v", b"t", b"h", b"s", b"f", b"o", b"k", b"x"]),
                       st.none() | st.binary(max_size=60) | st.sampled_from([b"2", b"4", b"goal=5"])))
def test_any_txt_gives_an_ad_or_bad_advertisement(changes: dict[bytes, bytes | None]) -> None:
    txt = {**make_ad("T").to_txt(), **changes}
    try:
        ad = TableAd.from_txt(txt, ("127.0.0.1", 1))
    except BadAdvertisement:
        return
    assert TableAd.from_txt(ad.to_txt(), ad.address) == ad


@pytest.mark.parametrize("change", [
    {"table": ""}, {"table": "x" * (MAX_TITLE + 1)}, {"table": "tab\there"}, {"host": "\u202e"},
    {"seats_taken": -1}, {"seats_taken": 5, "seats_free": 5}, {"seats_taken": 1, "seats_free": 0},
    {"seats_taken": True}, {"options": ["goal=5"]}, {"options": ("goal five",)},
    {"options": ("skip=maybe",)}, {"fingerprint": "0123"}, {"fingerprint": "0123:4567:89ab:cdef"},
    {"address": ("127.0.0.1", 0)},
    {"address": ("localhost", 80)}, {"version": "p2p10 2"},
])
def test_a_bad_field_is_refused(change: dict[str, object]) -> None:
    fields: dict[str, object] = {
        "table": "T", "host": "Ann", "seats_taken": 1, "seats_free": 1, "options": (),
        "fingerprint": KEY, "address": ("127.0.0.1", 80),
    }
    with pytest.raises(BadAdvertisement):
        TableAd(**{**fields, **change})  # type: ignore[arg-type]


async def test_long_unicode_and_dotted_names_advertise() -> None:
    ad = make_ad(f"Ünïcødé 🂡 v1.2 {uuid.uuid4().hex[:6]} " + "ж" * 15)
    async with await advertise(ad, LOOPBACK) as advertisement:
        instance = advertisement.name.removesuffix("." + SERVICE_TYPE)
        assert "." not in instance and len(instance.encode()) <= 63
        assert await seen(ad.table) == [ad]


async def test_an_unspecified_host_is_advertised_at_the_interface_address() -> None:
    ad = make_ad()
    anywhere = TableAd(ad.table, ad.host, 1, 3, ad.options, ad.fingerprint, ("0.0.0.0", 4321))
    async with await advertise(anywhere, LOOPBACK):
        assert [t.address for t in await seen(ad.table)] == [("127.0.0.1", 4321)]


def test_interfaces_must_be_addresses() -> None:
    assert interface_addresses(None) is interface_addresses("all") is None
    assert interface_addresses("127.0.0.1") == interface_addresses(("127.0.0.1",)) == LOOPBACK
    with pytest.raises(ValueError, match="eth0"):
        open_zeroconf(["eth0"])
    with pytest.raises(ValueError):
        interface_addresses([])


def test_a_fingerprint_is_128_bits_in_eight_groups_and_its_label_is_no_pin() -> None:
    """Attack A58: the fingerprint is the only pin of a table found by its announcement; at 64
    bits another key with the same one is within reach. It is 128 bits (BLAKE2b-128 of the key,
    eight groups of four hex digits); the label is its first two groups."""
    import hashlib

    from p2p10.log import fingerprint_label

    key = bytes(range(32))
    shown = fingerprint(key)
    assert shown.replace(":", "") == hashlib.blake2b(key, digest_size=16).hexdigest()
    assert [len(group) for group in shown.split(":")] == [4] * 8
    assert fingerprint_label(key) == shown[:9] and shown.startswith(fingerprint_label(key) + ":")
    assert fingerprint(bytes(32)) != shown
