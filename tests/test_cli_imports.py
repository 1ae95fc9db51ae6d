"""The ``p2p10`` command imports the LAN stack (aiohttp, zeroconf) only for the commands that play
or look for a table on the LAN, so that the others start without it.

Each check runs in a fresh interpreter: in the test process, other tests have imported everything."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

LAN_STACK = ("aiohttp", "zeroconf", "protocol.lan", "protocol.mesh", "protocol.discovery",
             "protocol.lobby")

# Runs the command lines given as JSON in argv[1] through cli.main with their output captured,
# then prints each one's exit status and the LAN modules loaded by then.
PROBE = """
import contextlib, io, json, sys
from cli.main import main

statuses = []
for argv in json.loads(sys.argv[1]):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            statuses.append(main(argv))
        except SystemExit as done:
            statuses.append(done.code)
loaded = [name for name in json.loads(sys.argv[2]) if name in sys.modules]
print(json.dumps({"statuses": statuses, "loaded": loaded}))
"""


def probe(*argvs: list[str]) -> dict[str, list[object]]:
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(argvs), json.dumps(LAN_STACK)],
                          capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    result: dict[str, list[object]] = json.loads(done.stdout)
    return result


def test_the_offline_commands_do_not_import_the_lan_stack(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.p2p10")
    result = probe(["--version"], ["rules", "phases"], ["rules", "solve", "--phase", "1", "R7", "B7"],
                   ["audit", missing], ["replay", missing], ["host", "--help"])
    assert result["statuses"] == [0, 0, 0, 2, 2, 0]
    assert result["loaded"] == []


def test_a_lan_command_imports_the_lan_stack_when_it_runs() -> None:
    # --timeout 0 is refused by the command's code, after the import and before any network.
    result = probe(["tables", "--timeout", "0"])
    assert result["statuses"] == [2]
    assert result["loaded"] == list(LAN_STACK)
