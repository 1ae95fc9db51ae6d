"""A seat's files: one place names them all (:class:`SeatFiles`), every one is readable by its
owner alone whether it is created or reopened, and ``p2p10 host`` started from a script (no
terminal to press Enter on) starts when the table is full instead of dying on its input."""

from __future__ import annotations

import asyncio
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cli.lan_cmds import NO_TERMINAL, _host, starts_when_full
from p2p10.log import public_bytes
from p2p10.rules import RuleSet
from protocol.lan import GameResult, SeatInfo, log_path_for, save_evidence, save_roster
from protocol.lan_host import Host
from protocol.lan_join import Joiner
from protocol.storage import LogWriter, SeatFiles, SecretsWriter, write_private
from tests.test_lan_processes import TIMEOUT, environment, p2p10, read_line, read_port, spawn, stop

TABLE_ID = bytes.fromhex("a1b64915") + bytes(12)
SHORT = RuleSet.parse(["hands=1"])


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def loose_umask() -> Iterator[None]:
    """A umask that would leave new files readable by everybody (0644)."""
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


# ----------------------------------------------------------------------------- SeatFiles

def test_seat_files_are_named_from_the_log_as_before(tmp_path: Path) -> None:
    files = SeatFiles(tmp_path / "20261129-205400-a1b64915-seat2.p2p10")
    stem = tmp_path / "20261129-205400-a1b64915-seat2"
    assert files.secrets == Path(f"{stem}.p2p10-secrets")
    assert files.roster == Path(f"{stem}.p2p10-roster")
    assert files.evidence == Path(f"{stem}.p2p10-evidence")
    new = SeatFiles.new(tmp_path, TABLE_ID, 2)
    assert new.log.parent == tmp_path
    assert re.fullmatch(r"\d{8}-\d{6}-a1b64915-seat3\.p2p10", new.log.name), new.log.name
    assert log_path_for(tmp_path, TABLE_ID, 0).name.endswith("-a1b64915-seat1.p2p10")


def test_another_seat_of_the_same_table_is_found_beside_a_log(tmp_path: Path) -> None:
    """The bots a machine runs keep their files beside its own: the newest of that table's
    seat is found, never another table's, and a stem with glob characters matches literally."""
    for name in ("20261129-205400-a1b64915-seat3.p2p10", "20261129-205409-a1b64915-seat3.p2p10",
                 "20261129-205409-a1b64915-seat3.p2p10-secrets", "20261129-205409-ffffffff-seat4.p2p10"):
        (tmp_path / name).write_bytes(b"")
    own = SeatFiles(tmp_path / "20261129-205400-a1b64915-seat1.p2p10")
    found = own.other_seat(2)
    assert found is not None and found.log.name == "20261129-205409-a1b64915-seat3.p2p10"
    assert own.other_seat(3) is None
    (tmp_path / "x-[a]-seat2.p2p10").write_bytes(b"")
    (tmp_path / "x-a-seat2.p2p10").write_bytes(b"")
    odd = SeatFiles(tmp_path / "x-[a]-seat1.p2p10").other_seat(1)
    assert odd is not None and odd.log.name == "x-[a]-seat2.p2p10"


# ----------------------------------------------------------------------------- file modes

@pytest.mark.usefixtures("loose_umask")
@pytest.mark.parametrize("writer", [LogWriter, SecretsWriter])
def test_log_and_secrets_are_private_when_created_and_when_reopened(
        tmp_path: Path, writer: type[LogWriter] | type[SecretsWriter]) -> None:
    path = tmp_path / "games" / "seat1.p2p10"
    writer(path).close()
    assert mode(path) == 0o600
    path.chmod(0o644)  # a copy, or a file from an older version
    writer(path).close()
    assert mode(path) == 0o600
    empty = tmp_path / "empty.p2p10"
    empty.write_bytes(b"")  # an empty file somebody made first: written from the start
    empty.chmod(0o666)
    writer(empty).close()
    assert mode(empty) == 0o600 and empty.stat().st_size > 0


@pytest.mark.usefixtures("loose_umask")
def test_roster_and_evidence_are_private_even_over_older_files(tmp_path: Path) -> None:
    files = SeatFiles(tmp_path / "seat1.p2p10")
    for old in (files.roster, files.evidence, files.roster.with_name(files.roster.name + ".part"),
                files.evidence.with_name(files.evidence.name + ".part")):
        old.write_bytes(b"old")
        old.chmod(0o644)
    keys = [public_bytes(Ed25519PrivateKey.generate()) for _ in range(2)]
    roster = [SeatInfo("Ann", keys[0], "127.0.0.1", 4000), SeatInfo("Bob", keys[1], "127.0.0.1", 4001)]
    save_roster(files.roster, TABLE_ID, SHORT, roster, ("127.0.0.1", 4000))
    assert mode(files.roster) == 0o600 and files.roster.read_bytes() != b"old"

    class Frozen:  # what save_evidence reads of a peer that froze
        stopped = True
        evidence = (b"a signed entry",)

        def stop_reason(self) -> str:
            return "Bob broke the rules at entry 7"

    assert save_evidence(Frozen(), files.log) == files.evidence  # type: ignore[arg-type]
    assert mode(files.evidence) == 0o600 and b"entry 7" in files.evidence.read_bytes()
    assert not list(tmp_path.glob("*.part"))
    fresh = tmp_path / "new" / "file"
    write_private(fresh, b"data")
    assert mode(fresh) == 0o600 and fresh.read_bytes() == b"data"


# ------------------------------------------------------------------ host with no terminal

async def _host_and_two_joiners(tmp_path: Path) -> list[GameResult]:
    said: list[str] = []
    host = Host("Ann", 3, SHORT, "greedy", "127.0.0.1", save_dir=tmp_path / "ann", say=said.append,
                advertised=False, start_when_full=starts_when_full(False))
    hosting = asyncio.ensure_future(_host(host))
    while not said:
        if hosting.done():
            hosting.result()  # the host failed before it listened: its error
        await asyncio.sleep(0.01)
    address = said[0].removeprefix("listening on ")
    joiners = [Joiner(address, name, "greedy", "127.0.0.1", tmp_path / name, say=lambda _line: None)
               for name in ("Bob", "Cy")]
    return list(await asyncio.wait_for(asyncio.gather(hosting, *(j.run() for j in joiners)), TIMEOUT))


@pytest.mark.parametrize("source", ["devnull", "pipe"])
async def test_a_host_with_no_terminal_starts_when_every_seat_is_taken(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        source: str) -> None:
    """Standard input from /dev/null (which the event loop cannot watch: the PermissionError
    of old) or from a pipe a script never writes to: the host says what will start the game,
    reads nothing, and the game starts once the table is full."""
    if source == "devnull":
        stdin = open(os.devnull)  # noqa: SIM115 - closed below
    else:
        read_end, write_end = os.pipe()
        stdin = os.fdopen(read_end)
    monkeypatch.setattr("sys.stdin", stdin)
    try:
        results = await _host_and_two_joiners(tmp_path)
    finally:
        stdin.close()
        if source == "pipe":
            os.close(write_end)
    assert all(r.peer.finished and not r.peer.stopped for r in results)
    out = capsys.readouterr().out
    assert NO_TERMINAL in out and "press Enter" not in out
    assert results[0].log_path.read_bytes() == results[1].log_path.read_bytes()


def test_host_run_from_a_script_plays_a_whole_game(tmp_path: Path) -> None:
    """The issue's command as a script runs it (no --start-when-full, input from /dev/null)
    and two joiners: every process ends well, and no traceback is printed."""
    env = environment(tmp_path)
    dirs = [tmp_path / name for name in ("host", "one", "two")]
    common = ["--autoplay", "greedy", "--interface", "127.0.0.1"]
    procs = [spawn(p2p10("host", "--seats", "3", "--quiet-network", "-o", "hands=1",
                         "--save", str(dirs[0]), *common), env)]
    try:
        read_line(procs[0], re.escape(NO_TERMINAL))  # said before it listens
        port = read_port(procs[0])
        for folder in dirs[1:]:
            procs.append(spawn(p2p10("join", f"127.0.0.1:{port}", "--save", str(folder), *common), env))
        outputs = [proc.communicate(timeout=TIMEOUT) for proc in reversed(procs)][::-1]
    finally:
        stop(procs)
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0 and "Traceback" not in err, (out, err)
        assert re.search(r"^game over: .+ won; log /.+\.p2p10$", out, re.M), out
    for folder in dirs:
        assert {mode(path) for path in folder.iterdir()} == {0o600}


async def test_a_host_at_a_terminal_still_starts_on_enter(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A terminal (a pseudo-terminal here) is read as before: Enter starts the game with the
    players seated so far."""
    controller, terminal = os.openpty()
    stdin = os.fdopen(terminal)
    monkeypatch.setattr("sys.stdin", stdin)
    said: list[str] = []
    host = Host("Ann", 3, SHORT, "greedy", "127.0.0.1", save_dir=tmp_path / "ann", say=said.append,
                advertised=False, start_when_full=starts_when_full(False))
    try:
        hosting = asyncio.ensure_future(_host(host))
        while not said:
            if hosting.done():
                hosting.result()  # the host failed before it listened: its error
            await asyncio.sleep(0.01)
        joiner = Joiner(said[0].removeprefix("listening on "), "Bob", "greedy", "127.0.0.1",
                        tmp_path / "bob", say=lambda _line: None)
        joining = asyncio.ensure_future(joiner.run())
        while len(host.roster) < 2:
            await asyncio.sleep(0.01)
        os.write(controller, b"\n")
        results = await asyncio.wait_for(asyncio.gather(hosting, joining), TIMEOUT)
    finally:
        stdin.close()
        os.close(controller)
    assert all(r.peer.finished for r in results) and len(results[0].peer.table.names) == 2
    out = capsys.readouterr().out
    assert "press Enter to start" in out and NO_TERMINAL not in out
