"""Where a web command says its page is, and when it opens a browser (cli/web/launch.py)."""

from __future__ import annotations

import stat
import sys
import webbrowser
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from cli.web import launch

URL = "http://127.0.0.1:41234/#t=" + "k" * 43


class Browser(webbrowser.BackgroundBrowser):
    """A graphical browser that records what it was asked to open."""

    def __init__(self) -> None:
        super().__init__("true")
        self.opened: list[str] = []

    def open(self, url: str, new: int = 0, autoraise: bool = True) -> bool:
        self.opened.append(url)
        return True


@pytest.fixture
def desktop(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Browser:
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    browser = Browser()
    monkeypatch.setattr(webbrowser, "get", lambda *args: browser)
    return browser


def announced(capsys: pytest.CaptureFixture[str], open_browser: bool) -> list[str]:
    server: Any = SimpleNamespace(url=URL)
    launch.announce(server, open_browser)
    return capsys.readouterr().out.splitlines()


def test_the_address_is_the_first_line_and_the_browser_gets_it_through_a_private_file(
        desktop: Browser, capsys: pytest.CaptureFixture[str]) -> None:
    lines = announced(capsys, True)
    assert lines[0] == URL and launch.URL_LINE.match(lines[0])
    assert "open in your browser" in lines[1]
    (opened,) = desktop.opened
    assert "#t=" not in opened  # the token is on no command line
    path = Path(opened.removeprefix("file://"))
    assert URL in path.read_text()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_no_browser_when_told_not_to(desktop: Browser, capsys: pytest.CaptureFixture[str]) -> None:
    lines = announced(capsys, False)
    assert lines[0] == URL and "Open the address above" in lines[1]
    assert desktop.opened == []


def test_no_browser_on_a_text_console(desktop: Browser, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("DISPLAY")
    lines = announced(capsys, True)
    assert lines[0] == URL and "Open the address above" in lines[1]
    assert desktop.opened == []


def test_no_console_browser_even_with_a_display(monkeypatch: pytest.MonkeyPatch, desktop: Browser,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    console = webbrowser.GenericBrowser("w3m")
    monkeypatch.setattr(console, "open", lambda *args, **kwargs: pytest.fail("w3m was started"))
    monkeypatch.setattr(webbrowser, "get", lambda *args: console)
    assert announced(capsys, True)[0] == URL
