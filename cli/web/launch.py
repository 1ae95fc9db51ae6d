"""Telling the user where the page is, and opening it in their browser.

The address is the first line a web command prints, always in the same form
(``http://HOST:PORT/#t=TOKEN``, see :data:`URL_LINE`), so that a script or a test starting the
command can read it. The browser is opened only where a graphical one is likely: on a text
console Python's :mod:`webbrowser` would fall back to lynx or w3m and take the terminal over.

The browser is not given the address itself but a file, readable by the user alone, that sends
it there: a command line is visible to every user of the machine (``ps``), and the token is the
key to the seat.
"""

from __future__ import annotations

import atexit
import html
import os
import re
import shutil
import sys
import tempfile
import webbrowser
from pathlib import Path
from typing import TYPE_CHECKING

from p2p10.i18n import _

if TYPE_CHECKING:
    from cli.web.server import WebServer

URL_LINE = re.compile(r"^http://(?P<host>[^/\s]+):(?P<port>\d+)/#t=(?P<token>[A-Za-z0-9_-]+)$")
"""The first line of a web command's output: the page's address with its token."""


def graphical() -> bool:
    """Whether a browser opened now would be a window, not a program in this terminal."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _redirect(url: str) -> Path:
    """A file of the user's alone that sends a browser on to ``url``; removed at exit. It is
    under the user's cache folder, not /tmp, which a browser in a sandbox (snap, flatpak)
    may not see."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "p2p10"
    cache.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="web-", dir=cache))  # (mode 0700)
    atexit.register(shutil.rmtree, folder, True)
    path = folder / "open.html"
    target = html.escape(url, quote=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(f'<!DOCTYPE html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url={target}">'
                  f'<title>p2p10</title><a href="{target}">p2p10</a>\n')
    return path


def open_in_browser(url: str) -> bool:
    """Open ``url`` in the user's graphical browser; whether one was started."""
    if not graphical():
        return False
    try:
        browser = webbrowser.get()
    except webbrowser.Error:
        return False
    # A plain GenericBrowser is a console browser (or $BROWSER), which webbrowser runs in the
    # foreground and waits for; the graphical ones are BackgroundBrowser or the platform's own.
    if type(browser) is webbrowser.GenericBrowser:
        return False
    try:
        return browser.open(_redirect(url).as_uri())
    except OSError:
        return False


def announce(server: WebServer, open_browser: bool) -> None:
    """Print the page's address as the first line of output, then open it in the browser
    unless ``open_browser`` is false, and say what to do with the address."""
    print(server.url, flush=True)
    if open_browser and open_in_browser(server.url):
        print(_("The page is open in your browser; if it is not, open the address above."), flush=True)
    else:
        print(_("Open the address above in a browser; it holds the page's key, so give it only to "
                "people who may see the page."), flush=True)
