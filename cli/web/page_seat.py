"""A seat's table run in the browser's page itself: the seat model
(:class:`~cli.seat.play.PlaySeat`) and its drawing as JSON (:class:`~cli.web.table_screen.TableScreen`)
in the page's own Python (Pyodide, in a Web Worker), next to the core that plays the seat.

The page's ``table.js`` draws the views it is sent and sends back the keys and taps, exactly as
it does with the machine's server (``cli/web/server.py``); here they cross between the worker
and the page as messages (``cli/web/static/phone/``): :meth:`PageSeat.act` takes each one, and
``post`` gives each view to the page, whole (``{"type": "view"}``: nothing crosses a network).
Views are sent at most once per turn of the event loop, however many changes it saw.

:func:`solo` is a whole game against bots in the page, every seat's peer in it: what a phone
can play with nothing but the page, and the table the tests drive by taps.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cli.seat.play import PlaySeat, follow_table
from cli.web.table_screen import TableScreen
from p2p10.rules import RuleSet
from protocol.local import LocalTable, unfinished_games

MAX_MESSAGE = 4096  # characters of one message from the page (a key, a tap, a chat line)
SAVED = "/home/pyodide/games"
"""Where the page keeps its games' files (the worker keeps this folder in IndexedDB)."""


class PageSeat:
    """A seat's table in the page (see the module docstring): ``post`` takes each view's JSON
    text."""

    def __init__(self, app: PlaySeat, post: Callable[[str], None]) -> None:
        self.app = app
        self.screen = TableScreen(app)
        self.post = post
        self._pending = False
        app.on_change.append(self.changed)

    def changed(self) -> None:
        """The seat changed: its view goes to the page once this turn of the loop is over."""
        if self._pending:
            return
        self._pending = True
        try:
            asyncio.get_running_loop().call_soon(self.send)
        except RuntimeError:  # (no loop running: told at once)
            self.send()

    def send(self) -> None:
        """The view now, to the page; a view that cannot be made (a bug) ends the page's table
        with why, never a page that silently stops changing."""
        self._pending = False
        try:
            text = json.dumps({"type": "view", "view": self.screen.snapshot()}, separators=(",", ":"))
        except Exception as err:
            self.post(json.dumps({"type": "bye", "text": f"{type(err).__name__}: {err}"}))
            raise
        self.post(text)

    def act(self, text: str) -> None:
        """One message from the page (JSON: a key, a tap, a chat line); anything that is not
        one is ignored, as the server ignores it."""
        if not isinstance(text, str) or len(text) > MAX_MESSAGE:
            return
        try:
            message: Any = json.loads(text)
        except ValueError:
            return
        if isinstance(message, dict) and message.get("type") == "hello":
            self.send()
        elif isinstance(message, dict):
            self.screen.act(message)
            self.changed()


SEAT: PageSeat | None = None
"""The seat the page shows (one page, one seat)."""


def act(text: str) -> None:
    """A message from the page to its seat (nothing before the seat is there)."""
    if SEAT is not None:
        SEAT.act(text)


def solo(post: Callable[[str], None], name: str = "You", bots: int = 2, level: str = "normal",
         options: tuple[str, ...] = (), seed: int | None = None, pace: float = 0.3,
         folder: str = SAVED, persist: Callable[[], None] | None = None) -> asyncio.Task[None]:
    """A game against ``bots`` bots played in the page (see the module docstring), its files
    (the log, every seat's keys and secrets) in the page's own file system under ``folder``,
    which ``persist`` keeps (the browser's IndexedDB: a page opened again goes on with the game
    it finds unfinished there, at the entry where it stopped); the task that plays it until the
    user leaves."""
    global SEAT
    unfinished = unfinished_games(Path(folder), limit=1)
    if unfinished:
        local = LocalTable.resume(unfinished[0].path, pace=pace)
    else:
        rules = RuleSet.parse(list(options))
        local = LocalTable(name, bots, level, rules, seed, save_dir=Path(folder), pace=pace)
    if persist is not None:
        keep = persist
        # every entry the user's log gets (and the secrets written before it is passed on)
        local.user.hooks.listen(entry=lambda _entry: keep())
        keep()
    app = PlaySeat(local)
    SEAT = PageSeat(app, post)
    SEAT.send()

    async def play() -> None:
        try:
            await follow_table(app)
        finally:
            local.close()
            if persist is not None:
                persist()

    return asyncio.ensure_future(play())


def start(post: Callable[[str], None], settings: dict[str, Any],
          persist: Callable[[], None] | None = None) -> None:
    """What a phone's page plays, from its data (``{"mode": "solo", ...}``, checked here: a
    setting of the wrong type is left at its default); ``persist`` keeps the page's files."""
    if settings.get("mode") != "solo":
        raise ValueError(f"a page plays 'solo', not {settings.get('mode')!r}")
    name = settings.get("name")
    bots = settings.get("bots")
    options = settings.get("options")
    seed = settings.get("seed")
    pace = settings.get("pace")
    solo(post, name if isinstance(name, str) and name else "You",
         bots if isinstance(bots, int) and 1 <= bots <= 5 else 2,
         options=tuple(o for o in options if isinstance(o, str)) if isinstance(options, list) else (),
         seed=seed if isinstance(seed, int) else None,
         pace=float(pace) if isinstance(pace, int | float) and 0 <= pace <= 5 else 0.3, persist=persist)
