"""A machine that stays away, over real sockets in separate processes: Cy's process is killed
for good mid-game; Ann and Bob, told to go on after a few seconds (``--go-on-after``), agree,
the hand is replayed without Cy, a bot run by Ann's machine plays Cy's seat from the next hand
(marked as hers), and the game ends with every log identical and the audit naming the takeover."""

from __future__ import annotations

import signal
import time
from pathlib import Path

from p2p10.audit import audit_bytes
from tests.test_lan_processes import TIMEOUT, start_table, stop


def test_the_table_goes_on_without_a_machine_that_never_comes_back(tmp_path: Path) -> None:
    procs, dirs = start_table(tmp_path, options=("hands=2",), host=("--quiet-network",),
                              play=("--autoplay", "greedy", "--away-after", "3", "--go-on-after", "3"))
    try:
        deadline = time.monotonic() + TIMEOUT
        while not any(f.stat().st_size > 15_000 for f in dirs[2].glob("*.p2p10")):
            assert time.monotonic() < deadline, "the game never got going"
            time.sleep(0.01)
        procs[2].send_signal(signal.SIGKILL)  # Cy's machine is gone, and stays gone
        procs[2].wait()
        # The joins race: Cy's seat is whichever it got (its log's name says).
        cy_seat = int(next(dirs[2].glob("*.p2p10")).stem.rsplit("-seat", 1)[1]) - 1
        outputs = [proc.communicate(timeout=3 * TIMEOUT) for proc in procs[:2]]
        for proc, (out, err) in zip(procs, outputs, strict=False):
            assert proc.returncode == 0, (out, err)
            assert "game over:" in out, out
        assert "going on without Cy" in outputs[0][1] + outputs[1][1]
        ann = sorted(dirs[0].glob("*.p2p10"))
        assert [p.name.rsplit("-", 1)[1] for p in ann] == ["seat1.p2p10", f"seat{cy_seat + 1}.p2p10"]
        logs = [p.read_bytes() for p in [*ann, *dirs[1].glob("*.p2p10")]]
        assert logs[0] == logs[1] == logs[2]  # Ann, the bot she runs for Cy, Bob
        report = audit_bytes(logs[0])
        # Complete and clean: the voided hand's unrevealed shuffles are checked by their proofs.
        assert report.clean, report.verdict()
        assert [t.seats for t in report.takeovers] == [(cy_seat,)]
        assert report.table is not None and report.table.names[cy_seat] == "Cy (Ann's bot)"
        assert b"away" in logs[0]
    finally:
        stop(procs)
