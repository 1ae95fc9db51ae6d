"""``p2p10 play --web``: the start screen and the table in the user's browser.

The command is the same: the same start menu (:class:`~cli.seat.start.StartMenu`), the same
seat at the table (:class:`~cli.seat.play.PlaySeat`), the same peers, files and record; the
terminal draws the same models (:mod:`cli.table`), the browser draws them here. One server
(:mod:`cli.web.server`) serves the page for the whole run, and :class:`WebFront` hands its
snapshots and the user's actions to what is showing now: the start screen (:class:`StartPage`)
or a game (:class:`~cli.web.table_screen.TableScreen`). Nothing here needs a terminal.

The language: ``--lang`` or the environment's (LANGUAGE, LC_ALL, LC_MESSAGES, LANG) when one
names a language p2p10 speaks; else the first the browser asks for that it speaks, fixed when
the first browser says hello (the narrator's lines are words once told).

The page is the only way to the table, so Ctrl-C, SIGTERM and the terminal closing (SIGHUP)
leave it as its ``q`` does, with no question: the command ends as after any game left, its
result or how to continue it printed, exit status 0. A finished game is in the record from the
moment it ends (:func:`cli.play_cmd.record_when_over`), whatever ends the command after.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from p2p10.errors import P2P10Error
from p2p10.i18n import LANGUAGES, _, current_language, explicit_language, language_code, set_language

if TYPE_CHECKING:
    from cli.game_settings import NewGame
    from cli.seat.play import PlaySeat
    from cli.seat.start import StartChoice, StartMenu
    from cli.web.page import Page
    from cli.web.table_screen import TableScreen
    from protocol.lan import LanSeat
    from protocol.local import LocalTable


def _nothing() -> None:
    """No one to tell yet."""


class StartPage:
    """The start screen as the browser shows it: the menu's rows, messages and checks, driven
    by the page's clicks, fields and keys."""

    def __init__(self, screen: StartMenu) -> None:
        self.screen = screen

    def snapshot(self) -> dict[str, Any]:
        """The menu as JSON: its rows (with the heading each begins), the cursor, the message,
        the name and options as typed, and the record."""
        from cli.game_settings import LEVELS
        from cli.seat.start import CHANGED, headings
        from cli.web.table_screen import page_words
        from p2p10.names import level_name

        screen = self.screen
        heads = headings()
        rows = []
        seen: set[str] = set()
        for index, row in enumerate(screen.rows()):
            heading = heads.get(row.key) if row.key not in seen else None
            seen.add(row.key)
            rows.append({"index": index, "key": row.key, "text": row.text, "heading": heading,
                         "change": row.key in CHANGED})
        message = screen.message
        settings = screen.settings
        return {
            "page": "start", "lang": current_language(), "words": page_words(),
            "title": _("p2p10: Phase 10 with no server and no trusted dealer"),
            "rows": rows, "cursor": screen.cursor,
            "message": None if message is None else {"text": message[1],
                                                     "tone": message[0].removeprefix("class:")},
            "name": settings.name, "options": " ".join(settings.options),
            "levels": [{"level": level, "text": level_name(level)} for level in LEVELS],
            "record_title": _("Your record"),
            "record": screen.record or [_("No finished game yet.")],
            "fields": {"name": _("Your name"), "options": _("Rule options"), "set": _("Set"),
                       "hint": _("Rule options, e.g. phases=even skip=next (see 'p2p10 rules options'; "
                                 "Enter, Esc):")},
        }

    def act(self, message: dict[str, Any]) -> None:
        """A key, a row clicked (``step`` -1 or 1 changes a setting), or a field typed."""
        screen = self.screen
        kind = message.get("type")
        if kind == "key" and isinstance(message.get("key"), str) and len(message["key"]) <= 16:
            screen.press(message["key"])
        elif kind == "row" and isinstance(message.get("index"), int):
            step = message.get("step")
            screen.click(int(message["index"]), int(step) if step in (-1, 1) else None)
        elif kind == "edit" and message.get("field") in ("name", "options") and \
                isinstance(message.get("text"), str) and len(message["text"]) <= 400:
            screen.message = None
            screen.edit(str(message["field"]), message["text"])


class WebFront:
    """The one screen the server shows for a whole ``play --web`` run (see the module
    docstring): the page, the language, and whatever is showing now."""

    def __init__(self, explicit: str | None) -> None:
        self.explicit = explicit  # the language asked for, if any; else the browser's
        self.chosen = explicit is not None
        self.showing: StartPage | TableScreen | None = None
        self.changed: Callable[[], None] = _nothing  # the server's push, once it runs
        self.hello_heard = asyncio.Event()
        self.closing: str | None = None
        self.stopped = False  # a signal asked the run to end (see stop)
        self._leave: Callable[[], None] = _nothing  # how what is showing is left at once

    def page(self) -> Page:
        """The shell: the table page's script and style, its words; nothing of the game."""
        from cli.web.page import page
        from cli.web.table_screen import page_words

        return page("p2p10", current_language(), ["cards.js", "start.js", "table.js"],
                    ["base.css", "table.css"], body='<div id="app"></div>',
                    data={"page": "table", "words": page_words()}, connect=True)

    def hello(self, langs: list[str]) -> None:
        """A browser opened the page: the first one's language is the game's, unless one was
        asked for."""
        if not self.chosen:
            self.chosen = True
            for lang in langs:
                code = language_code(lang)
                if code in LANGUAGES:
                    set_language(code)
                    break
        self.hello_heard.set()

    def snapshot(self) -> Any:
        """What is showing, as JSON."""
        if self.showing is None:
            from cli.web.table_screen import page_words

            return {"page": "wait", "title": "p2p10", "words": page_words(),
                    "text": self.closing or _("Opening the table...")}
        return self.showing.snapshot()

    async def act(self, message: dict[str, Any]) -> None:
        """The user's action, to what is showing."""
        if self.showing is not None:
            self.showing.act(message)
            self.changed()

    def stop(self) -> None:
        """End the run as a signal asks (Ctrl-C, SIGTERM, the terminal closing): the table is
        left as ``q`` leaves it, with no question (a game under way stays resumable), the start
        screen as if the user chose to leave, and no other screen opens after."""
        self.stopped = True
        self.hello_heard.set()  # (no browser has come yet: stop waiting for one)
        self._leave()

    # ------------------------------------------------------------------ the run

    async def start_menu(self, settings: NewGame, notice: str | None) -> StartChoice:
        """Show the start screen until a choice is made."""
        from cli.play_cmd import start_lists
        from cli.seat.start import Leave, StartMenu

        unfinished, recent, lines = start_lists()
        screen = StartMenu(settings, unfinished, recent, lines, notice=notice)
        chosen: asyncio.Future[StartChoice] = asyncio.get_running_loop().create_future()

        def finished(choice: StartChoice) -> None:
            if not chosen.done():
                chosen.set_result(choice)

        screen.on_finish.append(finished)
        self.showing = StartPage(screen)
        self._leave = lambda: finished(Leave())
        self.changed()
        try:
            return await chosen
        finally:
            self.showing = None
            self._leave = _nothing

    async def play(self, local: LocalTable) -> bool:
        """One game at the table, in the page; True if the user asked for another."""
        from cli.seat.play import PlaySeat

        return await self.show_table(PlaySeat(local))

    async def show_table(self, app: PlaySeat) -> bool:
        """The table ``app`` in the page until the user leaves it (or :meth:`stop`); True if
        they asked for another game. A clock redraws it every second (the LAN's "thinking
        (25 s)")."""
        from cli.seat.play import follow_table
        from cli.web.table_screen import TableScreen

        table = TableScreen(app)
        app.on_change.append(self.changed)
        self.showing = table
        self._leave = app.quit
        self.changed()
        clock = asyncio.create_task(self._tick())
        try:
            await follow_table(app)
        finally:
            clock.cancel()
            self.showing = None
            self._leave = _nothing
            self.changed()
        return app.again and not self.stopped

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(1.0)
            self.changed()


def _replay_html_choice(path: Path) -> str:
    """A recent game chosen on the page's start screen: saved as one HTML page beside its log
    (as ``p2p10 replay --html`` makes it), and where it is, said on the start screen."""
    from cli.log_files import read_log_file
    from cli.web.replay_html import replay_page

    target = path.with_suffix(".html")
    try:
        target.write_text(replay_page(read_log_file(path).items, path).html, encoding="utf-8")
    except OSError as err:
        return _("The replay could not be saved: {reason}").format(reason=err.strerror or err)
    return _("The replay is saved as one page: open {path} in your browser, or run "
             "'p2p10 replay {log}'.").format(path=target, log=path)


def web_language(lang_option: str | None) -> str | None:
    """The language the user asked for (``--lang`` or the environment), or None: the browser's."""
    return explicit_language(os.environ, lang_option)


def lan_web_front(lang_option: str | None, open_browser: bool) -> Callable[[LanSeat], Awaitable[None]]:
    """The front of a LAN seat (``host``, ``join``, ``resume`` with ``--web``): its table in
    the browser, served from when the game starts until the user leaves it."""
    async def front(seat: LanSeat) -> None:
        from cli.web.launch import announce
        from cli.web.server import WebServer

        web = WebFront(web_language(lang_option))
        server = await WebServer.start(web)
        web.changed = server.changed
        announce(server, open_browser=open_browser)
        try:
            if not web.chosen:  # the table speaks the browser's language: wait for it
                await web.hello_heard.wait()
            from cli.seat.lan import LanPlaySeat

            await web.show_table(LanPlaySeat(seat))
        finally:
            await server.close(_("p2p10 has stopped."))

    return front


@contextlib.contextmanager
def _stopping_on_signals(stop: Callable[[], None]) -> Iterator[None]:
    """While in it, Ctrl-C (SIGINT), SIGTERM and the terminal closing (SIGHUP) call ``stop``
    (:meth:`WebFront.stop`) rather than end the run wherever it is: the game is left as the
    page leaves it, its result or how to continue it printed. A signal ignored (``nohup``'s
    SIGHUP) stays ignored; each handler is as it was after."""
    loop = asyncio.get_running_loop()
    taken: list[tuple[int, Any]] = []
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)  # (Windows has no SIGHUP)
        if number is None:
            continue
        before = signal.getsignal(number)
        if before is signal.SIG_IGN:
            continue
        try:
            loop.add_signal_handler(number, stop)
        except (NotImplementedError, RuntimeError):  # (no signals in the loop: Windows)
            continue
        taken.append((number, before))
    try:
        yield
    finally:
        for number, before in taken:
            loop.remove_signal_handler(number)
            if before is not None:  # (None: a handler not set from Python, left as it is)
                signal.signal(number, before)


def play_web(args: argparse.Namespace, settings: NewGame, choice: StartChoice | None) -> int:
    """``p2p10 play --web``: as ``p2p10 play``, drawn in the browser (see the module docstring)."""
    return asyncio.run(_play_web(args, settings, choice))


async def _play_web(args: argparse.Namespace, settings: NewGame, choice: StartChoice | None) -> int:
    front = WebFront(web_language(getattr(args, "lang", None)))
    # Signals leave the way the page leaves, so that the finally clauses and after_game run.
    with _stopping_on_signals(front.stop):
        return await _web_games(front, args, settings, choice)


async def _web_games(front: WebFront, args: argparse.Namespace, settings: NewGame,
                     choice: StartChoice | None) -> int:
    from cli import game_settings
    from cli.game_settings import NewGame
    from cli.play_cmd import _settings_of, _table, after_game
    from cli.seat.start import Continue, Leave, Replay
    from cli.web.launch import announce
    from cli.web.server import WebServer

    server = await WebServer.start(front)
    front.changed = server.changed
    announce(server, open_browser=not args.no_browser)
    from_screen = choice is None
    notice: str | None = None
    try:
        if not front.chosen:  # the game speaks the browser's language: wait for it
            await front.hello_heard.wait()
        while True:
            if front.stopped:  # (a signal between two screens, or before the first)
                return 0
            if choice is None:
                choice, notice = await front.start_menu(settings, notice), None
            if isinstance(choice, Leave):
                return 0
            if isinstance(choice, NewGame):
                settings = choice
                unsaved = game_settings.save(choice)
                if unsaved is not None:
                    print(f"p2p10: {unsaved}", file=sys.stderr)
            try:
                if isinstance(choice, Replay):
                    notice = _replay_html_choice(choice.path)
                    choice = None
                    continue
                local = _table(choice, args)
            except P2P10Error as err:
                if not from_screen:
                    raise
                choice, notice = None, str(err)
                continue
            assert isinstance(choice, NewGame | Continue)
            try:
                again = await front.play(local)
            finally:
                local.close()
            after_game(local)
            if again:
                choice = settings = _settings_of(local)
            elif from_screen:
                choice = None
            else:
                return 0
    finally:
        front.closing = _("p2p10 has stopped.")
        await server.close(front.closing)
