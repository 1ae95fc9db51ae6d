"""The ``p2p10`` command imports the heavy parts of the program only for the commands that need
them, so that the others start without them: the LAN stack (aiohttp, zeroconf) for the commands
that play or look for a table on the LAN, and the dealing cryptography (rbcl, the peers, the
table's checks) for the commands that deal or check cards.

Each check runs in a fresh interpreter: in the test process, other tests have imported everything."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

LAN_STACK = ("aiohttp", "zeroconf", "protocol.lan", "protocol.mesh", "protocol.discovery",
             "protocol.lobby")
DEALING = ("rbcl", "p2p10.peer", "p2p10.table", "protocol.memory")

# Runs the command lines given as JSON in argv[1] through cli.main with their output captured,
# then prints each one's exit status and standard output, and which of the modules named in
# argv[2] were loaded by then.
PROBE = """
import contextlib, io, json, sys
from cli.main import main

statuses, outputs = [], []
for argv in json.loads(sys.argv[1]):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            statuses.append(main(argv))
        except SystemExit as done:
            statuses.append(done.code)
    outputs.append(out.getvalue())
loaded = [name for name in json.loads(sys.argv[2]) if name in sys.modules]
print(json.dumps({"statuses": statuses, "outputs": outputs, "loaded": loaded}))
"""


def probe(*argvs: list[str], modules: Sequence[str] = LAN_STACK, stdin: str = "") -> dict[str, Any]:
    """Run ``argvs`` in one fresh interpreter, with ``stdin`` as its standard input."""
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(argvs), json.dumps(modules)],
                          input=stdin, capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
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


def test_the_commands_that_deal_no_cards_do_not_import_the_dealing_cryptography() -> None:
    result = probe(["--version"], ["--help"], ["rules", "phases"], ["rules", "options"],
                   ["rules", "solve", "--phase", "1", "R7", "B7", "G7", "R4", "B4", "G4"],
                   ["rules", "solve", "--json"],
                   ["simulate", "--players", "2", "--seed", "1", "-o", "hands=1"],
                   modules=DEALING, stdin='{"phase": 1, "hand": ["R7", "B7", "G7"]}\n')
    assert result["statuses"] == [0] * 7
    assert "makes it, 6 cards down" in result["outputs"][4]
    assert json.loads(result["outputs"][5]) == {"makes": False, "melds": [], "down": 0}
    assert result["loaded"] == []


def test_a_command_that_deals_imports_the_dealing_cryptography_when_it_runs() -> None:
    result = probe(["simulate", "--players", "2", "--seed", "1", "-o", "hands=1", "--crypto"],
                   modules=DEALING)
    assert result["statuses"] == [0]
    assert result["loaded"] == list(DEALING)
