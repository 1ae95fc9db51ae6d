"""``p2p10 tables --at HOST:PORT``: asking a host directly, for a table that no announcement
reaches (another network). What the host says is checked as an announcement is, and its key
must be the one its TLS link proves."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
from pathlib import Path

import pytest

from cli.lan_parsers import DEFAULT_SPECTATORS as PARSERS_DEFAULT
from p2p10.log import fingerprint, public_bytes
from p2p10.rules import RuleSet
from protocol.discovery import BadAdvertisement, TableAd
from protocol.gallery import DEFAULT_SPECTATORS
from protocol.lan import LanError
from protocol.lan_host import Host
from protocol.taking_seat import ask_table
from tests.test_lan_processes import environment, p2p10, read_port, stop


def test_tables_at_asks_the_host_directly(tmp_path: Path) -> None:
    env = environment(tmp_path)
    host = subprocess.Popen(p2p10("host", "--name", "Ann", "--seats", "3", "--private",
                                  "--autoplay", "greedy",
                                  "--table", "Kitchen", "--interface", "127.0.0.1", "--quiet-network",
                                  "-o", "hands=1", "--save", str(tmp_path / "ann")),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            stdin=subprocess.DEVNULL)
    try:
        port = read_port(host)
        asked = subprocess.run(p2p10("tables", "--at", f"127.0.0.1:{port}", "--json"),
                               capture_output=True, text=True, env=env, timeout=30)
        assert asked.returncode == 0, asked
        [table] = json.loads(asked.stdout)["tables"]
        assert table["table"] == "Kitchen" and table["host"] == "Ann" and table["private"] is True
        assert table["seats_taken"] == 1 and table["seats_free"] == 2
        assert table["address"] == f"127.0.0.1:{port}" and table["options"] == ["hands=1"]
        listed = subprocess.run(p2p10("tables", "--at", f"127.0.0.1:{port}"),
                                capture_output=True, text=True, env=env, timeout=30)
        assert "Kitchen" in listed.stdout and "(private" in listed.stdout, listed
        assert table["fingerprint"] in listed.stdout
    finally:
        stop([host])
    # Nobody there: one clear line, exit 2, no traceback.
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        nobody = free.getsockname()[1]
    gone = subprocess.run(p2p10("tables", "--at", f"127.0.0.1:{nobody}"), capture_output=True, text=True,
                          env=env, timeout=30)
    assert gone.returncode == 2, gone
    assert gone.stderr.startswith(f"p2p10: nobody answers at 127.0.0.1:{nobody}"), gone
    assert "Traceback" not in gone.stderr
    bad = subprocess.run(p2p10("tables", "--at", "nowhere"), capture_output=True, text=True, env=env,
                         timeout=30)
    assert bad.returncode == 2 and "--at takes HOST:PORT" in bad.stderr, bad


async def test_what_the_host_says_is_checked_and_its_key_is_the_links(tmp_path: Path) -> None:
    said: list[str] = []
    host = Host("Ann", 2, RuleSet.parse(["hands=1"]), "greedy", "127.0.0.1", save_dir=tmp_path,
                say=said.append, advertised=False)
    hosting = asyncio.ensure_future(host.run())
    try:
        while not said:
            await asyncio.sleep(0.01)
        port = int(said[0].rpartition(":")[2])
        described, key = await ask_table(("127.0.0.1", port))
        assert key == public_bytes(host.identity)
        table = TableAd.from_json(described, ("127.0.0.1", port))
        assert table.fingerprint == fingerprint(key) and not table.private
        # A description that is not one is refused as a bad announcement would be.
        for broken in ([], {**described, "seats_free": -1}, {**described, "fingerprint": "x"},
                       {**described, "private": "yes"}, {**described, "options": ["no such rule"]}):
            with pytest.raises(BadAdvertisement):
                TableAd.from_json(broken, ("127.0.0.1", port))
        with pytest.raises(LanError, match=r"not as a p2p10 table|cannot reach|nobody answers"):
            await ask_table(("127.0.0.1", 9))  # the discard port: nobody listens there
    finally:
        hosting.cancel()
        await asyncio.gather(hosting, return_exceptions=True)


def test_the_spectator_cap_has_one_default() -> None:
    # The parser does not import the LAN stack, so it has its own copy of the number.
    assert PARSERS_DEFAULT == DEFAULT_SPECTATORS
