"""``p2p10 watch --web``: a spectator's live, verified table as a page, for a room's big screen.

It is fed as the terminal's watch screen is (:class:`protocol.watch.WatchEvents`): every entry
the spectator's audit accepted, chat, notes and a failure. It holds only what a spectator holds:
every seat's laid-down phases, card counts and points, the piles, the score sheet, the move
log as a spectator's narrator tells it, and the audit's verdict so far. Hidden cards appear only
at a hand's end-of-hand reveal, as in the log. The page draws the same JSON as a seat's table
page, read-only: no hand, no question, no keys.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from p2p10.audit import Damage, LiveAudit
from p2p10.chatroom import spectators_in
from p2p10.engine import GameState
from p2p10.errors import ProtocolViolation
from p2p10.i18n import LANGUAGES, _, current_language, language_code, ngettext, set_language
from p2p10.log import fingerprint
from p2p10.names import shown_name
from p2p10.narrate import Narrator, spectators_text
from p2p10.seat_view import as_json, piles_view, seat_rows, sheet_view
from p2p10.table import TableState

if TYPE_CHECKING:
    from cli.web.page import Page
    from cli.web.server import WebServer

LOG_LINES = 200  # the move log's last lines sent: a screen shows fewer; a whole game has ~2,000
STATUS_LINES = 4  # the last notes, chat lines and failures shown
WATCHING = "WATCHING"  # the verdict's word while the game goes on and every entry checked out


def verdict_word(line: str) -> str:
    """The verdict's token of an audit's line ("CLEAN: every ..." -> "CLEAN"): the documented
    words, never translated."""
    head = line.split(":", 1)[0].strip()
    return head if head.replace(" ", "").isalpha() and head.isupper() else "INCOMPLETE"


class WatchScreen:
    """What the spectator's page shows, and the door's :class:`~cli.web.server.Screen`."""

    def __init__(self, explicit: str | None = None) -> None:
        self.server: WebServer | None = None  # told of every change once it serves the page
        # The language asked for (--lang, the environment); None: the first browser's.
        self.chosen = explicit is not None
        self.table: TableState | None = None  # the state after the last entry checked
        self.entries = 0
        self.narrator: Narrator | None = None  # made when the story is first shown
        self._first: TableState | None = None  # the table entry's state
        self._due: list[TableState] = []  # the steps not yet told
        self._last_step: GameState | None = None
        self.status: list[tuple[str, str]] = []
        self.failure: str | None = None
        self.ended: str | None = None  # the verdict line, once the watch is over
        self.version = 0  # of the snapshot, as a seat's page counts them

    # ----------------------------------------------------------------- the door's side

    def page(self) -> Page:
        """The table page, as a seat's but read-only; nothing of the game in it."""
        from cli.web.page import page
        from cli.web.table_screen import page_words

        return page("p2p10", current_language(), ["cards.js", "table.js"],
                    ["base.css", "table.css", "watch.css"],
                    data={"page": "watch", "readonly": True, "words": page_words()}, connect=True)

    def hello(self, langs: list[str]) -> None:
        """A browser opened the page: unless a language was asked for, the first browser's
        (the first of its languages the program speaks) is the page's from now on. The story
        is told only once a browser shows it, so it is told in that language from the start."""
        if self.chosen:
            return
        self.chosen = True
        for lang in langs:
            if language_code(lang) in LANGUAGES:
                set_language(language_code(lang))
                break

    async def act(self, message: dict[str, Any]) -> None:
        """A spectator's page has nothing to do (the door serves it read-only)."""

    def _changed(self) -> None:
        if self.server is not None:
            self.server.changed()

    # ------------------------------------------------------------ the watch's events

    def entry(self, audit: LiveAudit) -> None:
        """An entry checked: the table after it; a step of the story where a replay has one
        (the table, a move due, a hand scored, the game's end), which the narrator reads the
        game between."""
        table = audit.table
        if table is None:
            return
        self.table = table
        self.entries = len(audit.records)
        if self._first is None:
            self._first = table
            self._step(table)
        else:
            expect = table.expected()
            last = self._last_step
            scored = last is not None and len(table.engine.sheet) > len(last.sheet)
            if expect is None or expect.kind == "move" or scored:
                self._step(table)
        self._changed()

    def _step(self, table: TableState) -> None:
        self._due.append(table)
        self._last_step = table.engine

    def _narrate(self) -> Narrator | None:
        """The story so far: told up to the last step (the first time, from the table's
        start, with every seat's key as the terminal's watch shows them: only the players can
        say these keys are theirs)."""
        first = self._first
        if first is None:
            return None
        narrator = self.narrator
        if narrator is None:
            self.narrator = narrator = Narrator(first.names, None)
            narrator.note(_("The keys at this table (each player can compare theirs):"))
            for seat in range(first.players):
                narrator.note(_("seat {seat}: {name}, key:").format(seat=seat + 1, name=first.names[seat]))
                narrator.note(fingerprint(first.keys[seat]))
        for table in self._due:
            narrator.update(table.engine, table)
        self._due = []
        return narrator

    def note(self, line: str) -> None:
        """A note of the watch (a link lost and found again, where the log goes)."""
        self._say(line, "dim")

    def heard(self, seat: int, text: str) -> None:
        """Table chat as the host showed it, or a notice of who watches."""
        notice = spectators_in(text)
        if notice is not None:
            self._say(spectators_text(notice), "dim")
        else:
            names = self.table.names if self.table is not None else ()
            who = shown_name(names[seat]) if 0 <= seat < len(names) else "?"
            self._say(f"{who}: {text}", "info")

    def failed(self, failure: ProtocolViolation | Damage) -> None:
        """The audit stopped on a violation or damage: the page says so, in red."""
        line = (f"DAMAGED: {failure.reason}" if isinstance(failure, Damage) else f"VIOLATION: {failure}")
        self.failure = line
        self._say(line, "error")

    def over(self, verdict: str) -> None:
        """The watch ended (the game's end, or the link's): its verdict line."""
        table = self.table
        if table is not None and self._last_step is not table.engine:
            self._step(table)
        self.ended = verdict
        self._say(verdict, "info" if verdict_word(verdict).startswith("CLEAN") else "error")

    def _say(self, text: str, tone: str) -> None:
        self.status = [*self.status, (text, tone)][-STATUS_LINES:]
        self._changed()

    # ------------------------------------------------------------------- the view

    def snapshot(self) -> dict[str, Any]:
        """The view, in the JSON shape of a seat's table page (:mod:`cli.web.table_screen`):
        read-only, no hand, no question, no keys, and the live audit's ``verdict`` besides."""
        from cli.web.charts import game_chart
        from cli.web.table_screen import page_words
        from protocol.local import dealing_progress

        table = self.table
        state = table.engine if table is not None else None
        self.version += 1
        dealing = None
        if table is not None and state is not None and state.stage != "over":
            dealing = dealing_progress(table, state.players)
        piles = None
        if state is not None and state.stage in ("draw", "play", "reveal"):
            # (never to be taken: a spectator has no turn)
            piles = {**as_json(piles_view(state)), "takeable": False}
        return {
            "page": "watch", "v": self.version, "lang": current_language(), "words": page_words(),
            "readonly": True, "screen": "table",
            "title": self.title(state),
            "status": [[{"text": text, "tone": tone}] for text, tone in self.status],
            "keys": [],
            "prompt": None,
            "log": self.log(),
            "seats": [] if state is None else as_json(seat_rows(state, None)),
            "piles": piles,
            "hand": None,
            "sheet": None if state is None else as_json(sheet_view(state)),
            "side": None,
            "chart": game_chart(state) if self.ended and state is not None and state.sheet else None,
            "dealing": None if dealing is None else list(dealing),
            "over": self.ended is not None,
            "verdict": self.verdict(),
        }

    def title(self, state: GameState | None) -> str:
        """What the page is and where the game is."""
        doing = _("watching, game over") if self.ended is not None else _("watching live")
        if state is None:
            return f"p2p10 {doing}"
        if state.hand_no >= 0 and state.stage != "over":
            return f"p2p10 {doing}: " + _("hand {n}").format(n=state.hand_no + 1)
        return f"p2p10 {doing}"

    def log(self) -> list[dict[str, Any]]:
        """The last lines of the move log, as a spectator's narrator tells them."""
        narrator = self._narrate()
        if narrator is None:
            return []
        shown = [told for told in narrator.told if told.shown][-LOG_LINES:]
        return [{"hand": told.hand, "kind": told.kind, "text": told.line} for told in shown]

    def verdict(self) -> dict[str, str]:
        """The live audit's verdict: the failure at once if one was seen, the final verdict at
        the end, and until then how many entries checked out; its ``word`` (CLEAN, VIOLATION,
        ...) apart from the rest of the line."""
        for line in (self.failure, self.ended):
            if line is not None:
                word = verdict_word(line)
                return {"word": word, "text": line.removeprefix(word + ": ")}
        return {"word": WATCHING,
                "text": ngettext("every entry so far checks out ({n} entry)",
                                 "every entry so far checks out ({n} entries)",
                                 self.entries).format(n=self.entries)}
