"""``p2p10 host --web`` and ``join --web``: a LAN seat played in the browser, chat included.

The host plays in headless Chromium by clicks; a joiner on the same machine is a bot. The game
goes to its end; both logs are one and the same and audit clean.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from p2p10.audit import audit_bytes
from tests.browser import desktop, start_chrome
from tests.test_lan_processes import TIMEOUT, environment, p2p10, read_line, read_port, spawn, stop
from tests.test_web_play import changed, click, play_by_clicks, showing, until, version, view

pytestmark = [pytest.mark.slow, pytest.mark.browser]


def test_a_lan_game_played_in_the_browser_with_chat(tmp_path: Path) -> None:
    env = environment(tmp_path)
    dirs = [tmp_path / "ann", tmp_path / "bob"]
    common = ["--interface", "127.0.0.1", "--quiet-network"]
    host = spawn(p2p10("host", "--name", "Ann", "--seats", "2", "--start-when-full", "-o", "hands=1",
                       "--save", str(dirs[0]), "--web", "--no-browser", *common), env)
    procs = [host]
    chrome: Any = None
    try:
        port = read_port(host)
        procs.append(spawn(p2p10("join", f"127.0.0.1:{port}", "--name", "Bob", "--autoplay", "greedy",
                                 "--save", str(dirs[1]), "--interface", "127.0.0.1"), env))
        url = read_line(host, r"http://127\.0\.0\.1:\d+/#t=\S+$").group(0)
        chrome = start_chrome()
        desktop(chrome)
        chrome.get(url)
        first = until(chrome, lambda: showing(chrome, "table"), "the LAN table")
        assert any(k["key"] == "c" for k in first["keys"])  # chat, at a LAN table only
        before = version(chrome)
        chrome.find_element("css selector", "#chat-line").send_keys("hello from the browser")
        assert click(chrome, ".chat button[type=submit]")
        changed(chrome, before)
        until(chrome, lambda: any("hello from the browser" in line["text"] for line in view(chrome)["log"]),
              "the chat line in the move log")
        over = play_by_clicks(chrome, tmp_path)
        assert over["screen"] == "over"
        assert click(chrome, '.keys [data-key="Enter"]')  # leave
        outputs = [proc.communicate(timeout=TIMEOUT) for proc in procs]
        for proc, (out, err) in zip(procs, outputs, strict=True):
            assert proc.returncode == 0, (out, err)
            assert re.search(r"^game over: .+ won; log /.+\.p2p10$", out, re.M), out
            assert "Traceback" not in err, err
        logs = [next(folder.glob("*.p2p10")).read_bytes() for folder in dirs]
        assert logs[0] == logs[1]
        report = audit_bytes(logs[0])
        assert report.clean and report.table is not None, report.verdict()
        assert list(report.table.names) == ["Ann", "Bob"]
    finally:
        if chrome is not None:
            chrome.quit()
        stop(procs)
