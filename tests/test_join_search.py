"""``p2p10 join`` looking for a table: it says so at once, shows its progress on a terminal,
stops as soon as the table is heard, and when there is none says what it did hear.

Zeroconf on 127.0.0.1 only, its probing patched down to milliseconds (as in
tests/test_discovery.py); every table carries a fresh name, so that tests running at the same
time on this machine cannot confuse one another."""

from __future__ import annotations

import asyncio
import io
import uuid
from collections.abc import Iterator

import pytest

from cli import UsageError, finding
from protocol.discovery import advertise
from tests.test_discovery import LOOPBACK, make_ad


@pytest.fixture(autouse=True)
def fast_zeroconf(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    import zeroconf._core as core

    monkeypatch.setattr(core, "_CHECK_TIME", 5)
    monkeypatch.setattr(core, "_REGISTER_TIME", 5)
    monkeypatch.setattr(core, "_UNREGISTER_TIME", 5)
    monkeypatch.setattr(core, "_PROBE_RANDOM_DELAY_INTERVAL", (1, 2))
    yield


class Terminal(io.StringIO):
    """Standard error as a terminal shows it."""

    def isatty(self) -> bool:
        return True


async def test_join_by_name_says_it_is_looking_and_stops_once_it_hears_the_table(
        capsys: pytest.CaptureFixture[str]) -> None:
    ad = make_ad()
    async with await advertise(ad, LOOPBACK):
        # Up to an hour: the search ends when the table is heard, not at its --timeout (the
        # test's own minute would run out first otherwise).
        found = await asyncio.wait_for(finding.find_table(ad.table, "127.0.0.1", 3600), 60)
    assert found == ad
    err = capsys.readouterr().err
    assert err.startswith(f"looking for table {ad.table!r} on the network (up to 3600 s)..."), err


async def test_on_a_terminal_the_seconds_and_tables_heard_count_up(
        monkeypatch: pytest.MonkeyPatch) -> None:
    screen = Terminal()
    monkeypatch.setattr("sys.stderr", screen)
    other = make_ad()
    async with await advertise(other, LOOPBACK):
        with pytest.raises(UsageError):
            await finding.find_table(f"Nowhere {uuid.uuid4().hex[:8]}", "127.0.0.1", 2.5)
    shown = screen.getvalue()
    assert "\r" in shown and "1 s" in shown and "2 s" in shown, shown
    assert "heard" in shown.split("\r")[-1], shown
    assert shown.endswith("\n"), shown  # the error goes on a line of its own


async def test_no_such_table_names_the_tables_heard(capsys: pytest.CaptureFixture[str]) -> None:
    wanted = f"Nowhere {uuid.uuid4().hex[:8]}"
    open_one, full_one = make_ad(), make_ad(taken=4, free=0)
    async with await advertise(open_one, LOOPBACK), await advertise(full_one, LOOPBACK):
        with pytest.raises(UsageError) as refused:
            await finding.find_table(wanted, "127.0.0.1", 2.5)
    message = str(refused.value)
    assert f"no open table called {wanted!r} heard in 2.5 s" in message, message
    assert repr(open_one.table) in message and f"{full_one.table!r} (full)" in message, message
    assert "'p2p10 tables'" in message, message


async def test_no_table_at_all_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    # Nothing advertised by this test; another test's table may be heard, and is then named.
    wanted = f"Nowhere {uuid.uuid4().hex[:8]}"
    with pytest.raises(UsageError) as refused:
        await finding.find_table(wanted, "127.0.0.1", 0.5)
    message = str(refused.value)
    assert f"no open table called {wanted!r} heard in 0.5 s" in message, message
    assert "is a host running on this network?" in message or "'p2p10 tables'" in message, message
    assert capsys.readouterr().err.startswith(f"looking for table {wanted!r}")
