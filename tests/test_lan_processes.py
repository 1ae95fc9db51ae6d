"""LAN play as a player runs it. In separate processes on 127.0.0.1: a whole game with
``--autoplay``, every seat's saved log identical and audit clean (issue 6's done-when, in
miniature), and a peer killed with SIGKILL mid-game and started again with ``p2p10 resume``.
In this process: the command-line errors a player can meet, and a full table refusing one more."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import select
import signal
import socket
import subprocess
import sys
import time
import weakref
from pathlib import Path
from typing import Any

import pytest

from cli import finding
from cli.main import main
from p2p10.audit import audit_bytes
from p2p10.rules import RuleSet
from protocol.lan import GameResult, LanError
from protocol.lan_host import Host
from protocol.lan_join import Joiner
from tests.netns import lone_loopback

TIMEOUT = 25.0


def p2p10(*args: str) -> list[str]:
    return [sys.executable, "-m", "cli", *args]


def environment(tmp_path: Path) -> dict[str, str]:
    # Logs go to --save; XDG_DATA_HOME keeps anything else out of the real home.
    return {**os.environ, "XDG_DATA_HOME": str(tmp_path / "xdg")}


_UNREAD: weakref.WeakKeyDictionary[subprocess.Popen[str], bytes] = weakref.WeakKeyDictionary()
"""Per process: what :func:`read_line` read from its pipe past the line it was waiting for."""


def read_line(proc: subprocess.Popen[str], pattern: str) -> re.Match[str]:
    """Wait for a line of ``proc``'s output that matches ``pattern`` (from its start).

    It reads the pipe itself, not through ``proc.stdout``: a buffered ``readline`` can take two
    lines at once and leave the second in a buffer that ``select`` does not see (under load the
    host's first two lines come together, and the wait for the port ran out with the port line
    read and unseen). What it reads past the matching line waits for its next call, and the
    process's output from then on can be read by ``communicate``."""
    assert proc.stdout is not None
    pipe = proc.stdout.fileno()
    pending = _UNREAD.pop(proc, b"")
    lines: list[str] = []
    deadline = time.monotonic() + TIMEOUT
    while True:
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            lines.append(line.decode())
            found = re.match(pattern, lines[-1].strip())
            if found:
                _UNREAD[proc] = pending
                return found
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([pipe], [], [], left)[0]:
            break
        chunk = os.read(pipe, 4096)
        if not chunk:
            break
        pending += chunk
    raise AssertionError(f"no line {pattern!r} came: {lines}")


def read_port(host: subprocess.Popen[str]) -> int:
    """Wait for the host's first line and take the port it listens on from it: ``listening on
    127.0.0.1:PORT``, or ``listening on port PORT; others dial ...`` behind ``--reachable-at``."""
    found = read_line(host, r"^listening on (?:127\.0\.0\.1:(\d+)$|port (\d+); )")
    return int(found.group(1) or found.group(2))


def spawn(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    """A p2p10 process with its output captured and no input."""
    return subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


def start_table(tmp_path: Path, names: tuple[str, ...] = ("Ann", "Bob", "Cy"),
                options: tuple[str, ...] = ("hands=1",), play: tuple[str, ...] = ("--autoplay", "greedy"),
                host: tuple[str, ...] = (), seats: int | None = None,
                ) -> tuple[list[subprocess.Popen[str]], list[Path]]:
    """A host (``names[0]``) and a joiner for every other name on 127.0.0.1, each playing as
    ``play`` says and saving in its own folder (named after it); ``host`` adds options of the
    host's, ``seats`` (all the names) the table's size. Starts when full."""
    env = environment(tmp_path)
    dirs = [tmp_path / name.lower() for name in names]
    rules = [arg for option in options for arg in ("-o", option)]
    common = [*play, "--interface", "127.0.0.1"]
    procs = [spawn(p2p10("host", "--name", names[0], "--seats", str(seats or len(names)),
                         "--start-when-full", *rules, *host, "--save", str(dirs[0]), *common), env)]
    try:
        port = read_port(procs[0])
        for name, folder in zip(names[1:], dirs[1:], strict=True):
            procs.append(spawn(p2p10("join", f"127.0.0.1:{port}", "--name", name,
                                     "--save", str(folder), *common), env))
    except BaseException:
        stop(procs)
        raise
    return procs, dirs


def stop(procs: list[subprocess.Popen[str]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def assert_game_over(procs: list[subprocess.Popen[str]], dirs: list[Path]) -> None:
    """Every process ends well and says who won; the logs are one and the same, and clean."""
    outputs = [proc.communicate(timeout=TIMEOUT) for proc in procs]
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, (out, err)
        assert re.search(r"^game over: .+ \(seat \d\) won; log /.+\.p2p10$", out, re.M), out
    logs = [next(folder.glob("*.p2p10")).read_bytes() for folder in dirs]
    assert all(log == logs[0] for log in logs)
    report = audit_bytes(logs[0])
    assert report.clean, report.verdict()
    assert report.table is not None and sorted(report.table.names) == ["Ann", "Bob", "Cy"]
    for folder in dirs:
        secrets = next(folder.glob("*.p2p10-secrets"))
        assert secrets.stat().st_mode & 0o077 == 0  # private keys: the owner's alone


def wait_mid_game(folder: Path) -> None:
    """Until the log in ``folder`` is well into the game (a hands=1 game for three writes
    about 45 KB of log)."""
    deadline = time.monotonic() + TIMEOUT
    while not any(f.stat().st_size > 12_000 for f in folder.glob("*.p2p10")):
        assert time.monotonic() < deadline, "the game never got going"
        time.sleep(0.01)


def test_read_line_sees_lines_that_came_in_one_write() -> None:
    """The helper itself: the host's first lines come in one read under load; the line waited
    for is found among them, the next call finds the line after it, and what follows is still
    there for ``communicate`` (CI once timed out on the port line read and kept unseen)."""
    proc = spawn([sys.executable, "-c", "import sys, time; "
                  "sys.stdout.write('one\\nlistening on 127.0.0.1:5\\ncode 7\\n'); sys.stdout.flush(); "
                  "time.sleep(0.2); print('last')"], dict(os.environ))
    try:
        assert read_port(proc) == 5
        assert read_line(proc, r"code (\d)").group(1) == "7"
        assert proc.communicate(timeout=TIMEOUT)[0] == "last\n"
    finally:
        stop([proc])


def test_three_processes_play_a_whole_game(tmp_path: Path) -> None:
    procs, dirs = start_table(tmp_path)
    try:
        assert_game_over(procs, dirs)
    finally:
        stop(procs)
    assert_nothing_outside_save(tmp_path)


def assert_nothing_outside_save(tmp_path: Path) -> None:
    """Nothing of the game outside --save: in the data folder (:func:`environment`'s), at most
    this machine's key for the checkpoints it keeps beside the logs (protocol.checkpoint),
    which no folder of games holds."""
    data = tmp_path / "xdg"
    written = sorted(p.relative_to(data).as_posix() for p in data.rglob("*") if p.is_file())
    assert written in ([], ["p2p10/checkpoint.key"])


@pytest.mark.parametrize("victim", [0, 2], ids=["host", "last-seat"])
def test_a_peer_killed_mid_game_resumes_from_its_files(tmp_path: Path, victim: int) -> None:
    procs, dirs = start_table(tmp_path)
    try:
        wait_mid_game(dirs[victim])
        procs[victim].send_signal(signal.SIGKILL)
        procs[victim].wait()
        log = next(dirs[victim].glob("*.p2p10"))
        procs[victim] = spawn(p2p10("resume", str(log), "--autoplay", "greedy"), environment(tmp_path))
        assert_game_over(procs, dirs)
    finally:
        stop(procs)


def test_command_line_errors_exit_2_with_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # Other tests, in the suite's other process, announce tables on 127.0.0.1 meanwhile: a
    # "join" with no table named would take one of theirs and wait in it. This machine listens
    # as ever, but hears none of them.
    listen = finding.listen

    async def hearing_nothing(*args: Any, **kwargs: Any) -> tuple[list[object], float]:
        _heard, waited = await listen(*args, **kwargs)
        return [], waited

    monkeypatch.setattr(finding, "listen", hearing_nothing)
    cases = [
        (["host", "--seats", "3"], "needs a terminal"),  # pytest's stdin is not one
        (["join", "127.0.0.1:5"], "needs a terminal"),
        (["host", "--autoplay", "greedy", "--seats", "3", "--bots", "3"], "--bots must leave"),
        (["host", "--autoplay", "nobody", "--start-when-full"], "unknown policy"),
        (["host", "--autoplay", "greedy", "--start-when-full", "--seats", "9"], "2 to 6"),
        (["join", "127.0.0.1:5", "--autoplay", "greedy", "--name", ""], "printable"),
        (["join", "nowhere", "--autoplay", "greedy", "--interface", "127.0.0.1", "--timeout", "0.3"],
         "no open table called 'nowhere'"),
        (["join", "--autoplay", "greedy", "--interface", "127.0.0.1", "--timeout", "0.3"],
         "no open table heard in 0.3 s"),
        (["join", "--timeout", "0", "--autoplay", "greedy"], "--timeout must be positive"),
        (["host", "--autoplay", "greedy", "--start-when-full", "--reachable-at", "nowhere"],
         "--reachable-at takes HOST:PORT"),
        (["resume", str(tmp_path / "none.p2p10"), "--autoplay", "greedy"], "no game log"),
    ]
    for args, message in cases:
        # In this process (main() is what the console script runs): nothing beyond 127.0.0.1.
        assert main(args) == 2, args
        err = capsys.readouterr().err
        last = err.splitlines()[-1]  # after any progress line ("looking for tables...")
        assert last.startswith("p2p10: ") and message in last, (args, err)


def test_other_machines_broken_links_do_not_write_on_the_screen(caplog: pytest.LogCaptureFixture) -> None:
    """asyncio's warning for each write to a link another machine reset is noise that machine
    makes at will; under the command line it is not logged (standard error is where the table
    is drawn). Its errors still are."""
    import logging

    asyncio_log = logging.getLogger("asyncio")
    level = asyncio_log.level
    try:
        assert main(["rules", "phases"]) == 0
        asyncio_log.warning("socket.send() raised exception.")
        asyncio_log.error("a real error")
    finally:
        asyncio_log.setLevel(level)
    assert [r.getMessage() for r in caplog.records if r.name == "asyncio"] == ["a real error"]


async def test_a_full_table_refuses_one_more(tmp_path: Path) -> None:
    # Host and joiners in this one process (the same classes the commands run), on loopback.
    said: list[str] = []
    host = Host("Ann", 2, RuleSet.parse(["hands=1"]), "greedy", "127.0.0.1", save_dir=tmp_path / "ann",
                say=said.append)
    hosting = asyncio.ensure_future(host.run())
    while not said:
        await asyncio.sleep(0.01)
    address = said[0].removeprefix("listening on ")
    joiners = [Joiner(address, name, "greedy", "127.0.0.1", tmp_path / name, say=lambda _line: None)
               for name in ("Bob", "Cy")]
    results = await asyncio.wait_for(
        asyncio.gather(hosting, *(j.run() for j in joiners), return_exceptions=True), TIMEOUT)
    refused = [r for r in results if isinstance(r, LanError)]
    played = [r for r in results if isinstance(r, GameResult)]
    assert len(refused) == 1 and "the table is full" in str(refused[0]), results
    assert len(played) == 2 and all(r.peer.finished for r in played)
    assert played[0].log_path.read_bytes() == played[1].log_path.read_bytes()


def test_a_table_is_announced_listed_and_joined_by_name(tmp_path: Path) -> None:
    """Zeroconf on 127.0.0.1 only: the host announces its table, 'p2p10 tables' lists it with
    its seats and rules, and 'p2p10 join NAME' finds it and plays."""
    import json

    env = environment(tmp_path)
    dirs = [tmp_path / "host", tmp_path / "guest"]
    host = spawn(
        p2p10("host", "--name", "Ann", "--table", "Kitchen table", "--autoplay", "greedy", "--seats", "2",
              "--start-when-full", "--interface", "127.0.0.1", "-o", "hands=1", "--save", str(dirs[0])), env)
    procs = [host]
    try:
        read_port(host)
        listed = subprocess.run(p2p10("tables", "--interface", "127.0.0.1", "--timeout", "2", "--json"),
                                capture_output=True, text=True, env=env, timeout=TIMEOUT)
        assert listed.returncode == 0, listed.stderr
        tables = [t for t in json.loads(listed.stdout)["tables"] if t["table"] == "Kitchen table"]
        assert len(tables) == 1
        assert tables[0]["seats_taken"] == 1 and tables[0]["seats_free"] == 1
        assert tables[0]["options"] == ["hands=1"] and tables[0]["compatible"]
        procs.append(spawn(
            p2p10("join", "kitchen TABLE", "--name", "Bob", "--autoplay", "greedy", "--interface",
                  "127.0.0.1", "--save", str(dirs[1]), "--timeout", "2"), env))
        outputs = [proc.communicate(timeout=TIMEOUT) for proc in procs]
        for proc, (out, err) in zip(procs, outputs, strict=True):
            assert proc.returncode == 0, (out, err)
        logs = [next(folder.glob("*.p2p10")).read_bytes() for folder in dirs]
        assert logs[0] == logs[1] and audit_bytes(logs[0]).clean
    finally:
        stop(procs)
    missing = subprocess.run(p2p10("join", "No such table", "--autoplay", "greedy", "--interface",
                                   "127.0.0.1", "--timeout", "0.5"),
                             capture_output=True, text=True, env=env, timeout=TIMEOUT)
    assert missing.returncode == 2 and "no open table called" in missing.stderr


def test_issue_done_when_host_and_two_bare_joins(tmp_path: Path) -> None:
    """The issue's done-when, word for word apart from --save and a short game: a host on
    127.0.0.1 and two ``p2p10 join`` with no table named find the only table, sit down, play
    to the end with no other input, and the three logs are one and the same, and clean. On a
    loopback of their own: on the shared one a joiner can hear another test's table too."""
    with lone_loopback() as inside:
        bare_joins(tmp_path, inside)


def bare_joins(tmp_path: Path, inside: list[str]) -> None:
    """The test above, its processes run with the command prefix ``inside``."""
    env = environment(tmp_path)
    dirs = [tmp_path / name for name in ("host", "one", "two")]
    host = spawn(inside + p2p10("host", "--autoplay", "greedy", "--seats", "3", "--start-when-full",
                                "--interface", "127.0.0.1", "-o", "hands=1", "--save", str(dirs[0])), env)
    procs = [host]
    try:
        read_port(host)
        for folder in dirs[1:]:
            procs.append(spawn(inside + p2p10("join", "--autoplay", "greedy", "--interface", "127.0.0.1",
                                              "--save", str(folder)), env))
        # The joiners first, each checked before the host is waited for: one that fails (it
        # joined another table, say) is named with what it said, not as the host timing out.
        outputs: list[tuple[str, str]] = []
        for proc in [*procs[1:], host]:
            out, err = proc.communicate(timeout=TIMEOUT)
            assert proc.returncode == 0, (proc.args, out, err)
            assert re.search(r"^game over: .+ won; log /.+\.p2p10$", out, re.M), out
            outputs.append((out, err))
        for out, _err in outputs[:2]:
            assert "joining " in out and "'" in out  # it says which table it found
        logs = [next(folder.glob("*.p2p10")).read_bytes() for folder in dirs]
        assert logs[0] == logs[1] == logs[2]
        report = audit_bytes(logs[0])
        assert report.clean, report.verdict()
        assert report.table is not None and len(set(report.table.names)) == 3  # same login, numbered
    finally:
        stop(procs)


def test_a_host_with_its_bot_killed_mid_game_resumes_both(tmp_path: Path) -> None:
    """The host runs a bot (marked as its own); SIGKILL takes both down; ``p2p10 resume`` of
    the host's log brings the bot back too, and the game ends with three identical logs."""
    env = environment(tmp_path)
    procs, dirs = start_table(tmp_path, ("Ann", "Bob"), seats=3, host=("--bots", "1", "--quiet-network"))
    host = procs[0]
    try:
        wait_mid_game(dirs[1])
        host.send_signal(signal.SIGKILL)
        host.wait()
        log = next(dirs[0].glob("*-seat1.p2p10"))
        procs[0] = spawn(p2p10("resume", str(log), "--autoplay", "greedy"), env)
        outputs = [proc.communicate(timeout=TIMEOUT) for proc in procs]
        for proc, (out, err) in zip(procs, outputs, strict=True):
            assert proc.returncode == 0, (out, err)
        logs = [p.read_bytes() for p in sorted(dirs[0].glob("*.p2p10"))]
        logs += [p.read_bytes() for p in dirs[1].glob("*.p2p10")]
        assert len(logs) == 3 and logs[0] == logs[1] == logs[2]
        report = audit_bytes(logs[0])
        assert report.clean, report.verdict()
        assert report.table is not None and report.table.names == ("Ann", "Bob", "Bot 1 (Ann's bot)")
    finally:
        stop(procs)


def wait_for_listener(port: int, proc: subprocess.Popen[str]) -> None:
    """Until something accepts connections on 127.0.0.1:``port`` (``proc`` is still running)."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"nothing listens on port {port}"
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.05)


def test_a_resumed_host_serves_its_spectators_again_behind_its_code(tmp_path: Path) -> None:
    """A private table's host is killed mid-game and resumed. The spectator watching since
    before the start dials again until the host is back and goes on; one who comes after the
    resume is refused without the code and catches up with it. Both end with the players' log,
    byte for byte, clean."""
    env = environment(tmp_path)
    names = ("Ann", "Bob", "Cy")
    dirs = [tmp_path / name.lower() for name in names]
    common = ("--autoplay", "greedy", "--interface", "127.0.0.1")
    host = spawn(p2p10("host", "--name", "Ann", "--seats", "3", "--private", "--start-when-full",
                       "--quiet-network", "-o", "hands=1", "--save", str(dirs[0]), *common), env)
    procs = [host]
    try:
        port = read_port(host)
        code = read_line(host, r"private table: its code is (\d+-[a-z]+-[a-z]+) ").group(1)
        watch = ("watch", f"127.0.0.1:{port}", "--code", code)
        early = spawn(p2p10(*watch, "--name", "Early", "--save", str(tmp_path / "early")), env)
        procs.append(early)
        read_line(early, "watching the table at ")  # there before the game
        for name, folder in zip(names[1:], dirs[1:], strict=True):
            procs.append(spawn(p2p10("join", f"127.0.0.1:{port}", "--name", name, "--code", code,
                                     "--save", str(folder), *common), env))
        wait_mid_game(dirs[1])
        host.send_signal(signal.SIGKILL)
        host.wait()
        # Bob and Cy are held while the host comes back, so that the game waits for the late
        # spectator, however slow this machine is (a held peer is not away for 30 s).
        for joiner in procs[2:]:
            joiner.send_signal(signal.SIGSTOP)
        try:
            settings = next(dirs[0].glob("*.p2p10-watch"))
            assert settings.stat().st_mode & 0o077 == 0  # it holds the code: the owner's alone
            log = next(dirs[0].glob("*.p2p10"))
            procs[0] = spawn(p2p10("resume", str(log), "--autoplay", "greedy"), env)
            wait_for_listener(port, procs[0])
            refused = subprocess.run(p2p10(*watch[:2], "--save", str(tmp_path / "eve")),
                                     capture_output=True, text=True, env=env, timeout=TIMEOUT,
                                     stdin=subprocess.DEVNULL)
            assert refused.returncode == 1 and "--code CODE" in refused.stderr, refused
            assert not any(tmp_path.glob("eve/*.p2p10"))
            late = spawn(p2p10(*watch, "--name", "Late", "--save", str(tmp_path / "late")), env)
            procs.append(late)
            read_line(late, "watching the table at ")
        finally:
            for joiner in procs[2:4]:
                joiner.send_signal(signal.SIGCONT)
        outputs = [proc.communicate(timeout=2 * TIMEOUT) for proc in procs]
        for proc, (out, err) in zip(procs, outputs, strict=True):
            assert proc.returncode == 0, (proc.args, out, err)
            assert "Traceback" not in err
        assert "dialling again" in outputs[1][0]  # the early spectator lost the host a while
        logs = [next(folder.glob("*.p2p10")).read_bytes() for folder in dirs]
        logs += [next((tmp_path / who).glob("*-watch.p2p10")).read_bytes() for who in ("early", "late")]
        assert all(one == logs[0] for one in logs)
        report = audit_bytes(logs[0])
        assert report.clean and report.complete, report.verdict()
        assert not any(dirs[0].glob("*.p2p10-watch"))  # the game is over: the code is gone
        for out, _err in (outputs[1], outputs[-1]):  # the spectators' verdicts
            assert out.rstrip().splitlines()[-1].startswith("CLEAN"), out
    finally:
        stop(procs)


async def test_a_joiner_leaves_a_table_whose_host_key_is_not_the_announced_one(tmp_path: Path) -> None:
    """Joining by name, the joiner knows the host key's fingerprint from the announcement: a
    roster whose seat 1 has another key is another table (a spoofed announcement), and it leaves."""
    from p2p10.log import fingerprint, public_bytes

    said: list[str] = []
    host = Host("Ann", 2, RuleSet.parse(["hands=1"]), "greedy", "127.0.0.1", save_dir=tmp_path / "ann",
                say=said.append, advertised=False)
    hosting = asyncio.ensure_future(host.run())
    try:
        while not said:
            await asyncio.sleep(0.01)
        address = said[0].removeprefix("listening on ")
        wrong = fingerprint(bytes(32))
        joiner = Joiner(address, "Bob", "greedy", "127.0.0.1", tmp_path / "bob", say=lambda _: None,
                        host_fingerprint=wrong)
        with pytest.raises(LanError, match="not the one the table was announced with"):
            await asyncio.wait_for(joiner.run(), TIMEOUT)
        assert fingerprint(public_bytes(host.identity)) != wrong
    finally:
        hosting.cancel()
        await asyncio.gather(hosting, return_exceptions=True)


def test_a_spectator_pins_a_second_seat_with_also(tmp_path: Path) -> None:
    """``p2p10 watch HOST:PORT --also BOB:PORT`` (attack A57): the spectator watches the host
    and Bob's own machine, and says that Bob holds the history the host showed."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        bobs_port = probe.getsockname()[1]
    env = environment(tmp_path)
    host = spawn(p2p10("host", "--name", "Ann", "--seats", "2", "--start-when-full", "-o", "hands=1",
                       "--autoplay", "greedy", "--think", "0.05", "--interface", "127.0.0.1",
                       "--quiet-network", "--save", str(tmp_path / "ann")), env)
    procs = [host]
    try:
        port = read_port(host)
        procs.append(spawn(p2p10("join", f"127.0.0.1:{port}", "--name", "Bob", "--autoplay", "greedy",
                                 "--think", "0.05", "--interface", "127.0.0.1", "--port", str(bobs_port),
                                 "--save", str(tmp_path / "bob")), env))
        read_line(procs[1], r"the table is full")
        procs.append(spawn(p2p10("watch", f"127.0.0.1:{port}", "--also", f"127.0.0.1:{bobs_port}",
                                 "--name", "Sam", "--save", str(tmp_path / "sam")), env))
        out, err = procs[2].communicate(timeout=TIMEOUT * 4)
    finally:
        stop(procs)
    assert procs[2].returncode == 0, (out, err)
    assert re.search(r"^CLEAN: .+", out, re.M), out
    assert re.search(rf"^--also 127\.0\.0\.1:{bobs_port}: the second seat holds the same history "
                     r"\(\d+ entries\)$", out, re.M), out
