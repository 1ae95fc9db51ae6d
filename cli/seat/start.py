"""The start screen as a model: a new game, an unfinished one to continue, a recent one to
replay, and the player's record, chosen by keys (↑/↓, ←/→, Enter) or by a row clicked.

The menu decides nothing about the game: it gathers the settings a flag would give (``--bots``,
``--level``, ``-o``, ``--name``, ``--resume``) and ends with a :data:`StartChoice`; the command
then does exactly what the same flags do. The terminal draws it (:mod:`cli.table.start`), the
browser too (:mod:`cli.web.play_web`); neither holds a rule of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from cli.game_settings import LEVELS, MAX_BOTS, NewGame
from p2p10.errors import P2P10Error
from p2p10.i18n import N_, _, pgettext
from p2p10.names import level_name
from p2p10.rules import RuleSet
from p2p10.table import MAX_NAME

# The kinds of game offered by name; any other rule options are typed in the "Rule options" row.
GAMES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (N_("full game: phases 1 to 10"), ()),
    (N_("quick game: the even phases 2, 4, 6, 8, 10"), ("phases=even",)),
    (N_("three hands: lowest total wins"), ("hands=3",)),
)
SHOWN = 3  # unfinished and recent games listed
CHANGED = ("bots", "level", "game")
"""The rows whose setting ←/→ (or a click on a side of the row) changes."""
TYPED = ("name", "options")
"""The rows whose setting is typed (Enter opens the line)."""


@dataclass(frozen=True, slots=True)
class Continue:
    """Continue the unfinished game saved at ``path`` (``--resume PATH``)."""

    path: Path


@dataclass(frozen=True, slots=True)
class Replay:
    """Watch the finished game saved at ``path`` (``p2p10 replay PATH``)."""

    path: Path


@dataclass(frozen=True, slots=True)
class Leave:
    """Leave without playing."""


StartChoice = NewGame | Continue | Replay | Leave


@dataclass(frozen=True, slots=True)
class Listed:
    """A game on disk as the menu lists it: its file and a one-line description."""

    path: Path
    label: str


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the menu: what Enter does there, and what ←/→ change."""

    key: str
    text: str
    path: Path | None = None


def headings() -> dict[str, str]:
    """The heading over the first row of each kind that has one."""
    return {"start": _("New game"), "continue": _("Unfinished games"), "replay": _("Recent games")}


class StartMenu:
    """The menu (see the module docstring). A front end reads :meth:`rows`, ``cursor``,
    ``message`` and ``record``, passes keys to :meth:`press` (or a row's setting to
    :meth:`change`, a typed line to :meth:`edit`), and hears the choice through ``on_finish``."""

    def __init__(self, settings: NewGame, unfinished: Sequence[Listed] = (),
                 recent: Sequence[Listed] = (), record: Sequence[str] = (),
                 notice: str | None = None) -> None:
        self.settings = settings
        self.unfinished = list(unfinished)[:SHOWN]
        self.recent = list(recent)[:SHOWN]
        self.record = list(record)
        self.game = next((i for i, (_text, opts) in enumerate(GAMES) if opts == settings.options), None)
        self.cursor = 0
        # A line under the menu until the next key: an error, or a notice (settings not read).
        self.message: tuple[str, str] | None = None if notice is None else ("class:error", notice)
        self.editing: str | None = None  # "name" or "options" while a line is typed
        self.choice: StartChoice = Leave()
        self.on_finish: list[Callable[[StartChoice], None]] = []  # the front ends'

    def rows(self) -> list[Row]:
        """The menu's lines, in order (the cursor is an index into them)."""
        s = self.settings
        game = _(GAMES[self.game][0]) if self.game is not None else ", ".join(s.options)
        rows = [
            Row("start", _("Start a new game")),
            Row("bots", _("Bots at the table: {n}   (←/→: 1 to 5)").format(n=s.bots)),
            # TRANSLATORS: the bots' level; the three words as in the bot levels (easy, normal, hard).
            Row("level", _("Their level: {level}   (←/→: easy, normal, hard)").format(
                level=level_name(s.level))),
            Row("game", _("Game: {game}   (←/→)").format(game=game)),
            Row("options", _("Rule options: {options}   (Enter to type)").format(
                # TRANSLATORS: no rule options are chosen (the standard rules).
                options=" ".join(s.options) or pgettext("rule options", "none"))),
            Row("name", _("Your name: {name}   (Enter to type)").format(name=s.name)),
        ]
        rows += [Row("continue", _("Continue: {game}").format(game=g.label), g.path) for g in self.unfinished]
        rows += [Row("replay", _("Replay: {game}").format(game=g.label), g.path) for g in self.recent]
        rows.append(Row("leave", _("Leave")))
        return rows

    def press(self, key: str) -> None:
        """One key on the menu (a key name as :mod:`cli.table.drawing` and the page give it)."""
        rows = self.rows()
        self.message = None
        row = rows[self.cursor]
        if key in ("↑", "k", "BackTab"):
            self.cursor = (self.cursor - 1) % len(rows)
        elif key in ("↓", "j", "Tab"):
            self.cursor = (self.cursor + 1) % len(rows)
        elif key in ("←", "→"):
            self.change(row.key, -1 if key == "←" else 1)
        elif key in ("Enter", "Space"):
            self.choose(row)
        elif key == "n":
            self.choose(rows[0])
        elif key == "c" and self.unfinished:
            self.choose(Row("continue", "", self.unfinished[0].path))
        elif key == "c":
            self.message = ("class:error", _("There is no unfinished game to continue: "
                                             "n starts a new one."))
        elif key in ("q", "Esc", "c-c"):
            self.finish(Leave())

    def click(self, index: int, step: int | None = None) -> None:
        """A row clicked (or tapped): the cursor goes there; a setting's side (``step`` -1 or
        1) changes it, another row does what Enter does (a typed row's line is the page's)."""
        rows = self.rows()
        if not 0 <= index < len(rows):
            return
        self.cursor = index
        self.message = None
        row = rows[index]
        if step in (-1, 1) and row.key in CHANGED:
            self.change(row.key, step)
        elif row.key not in TYPED:
            self.press("Enter")

    def change(self, key: str, step: int) -> None:
        """The setting of row ``key`` a ``step`` on (-1 or 1): bots 1 to 5, the level and the
        kind of game round."""
        s = self.settings
        if key == "bots":
            self.settings = replace(s, bots=min(MAX_BOTS, max(1, s.bots + step)))
        elif key == "level":
            index = LEVELS.index(s.level) if s.level in LEVELS else 1
            self.settings = replace(s, level=LEVELS[(index + step) % len(LEVELS)])
        elif key == "game":
            self.game = ((self.game if self.game is not None else -step) + step) % len(GAMES)
            self.settings = replace(s, options=GAMES[self.game][1])

    def choose(self, row: Row) -> None:
        """What Enter does on ``row``."""
        if row.key == "start":
            self.finish(self.settings)
        elif row.key in TYPED:
            self.editing = row.key
            self.begin_edit(row.key)
        elif row.key == "continue" and row.path is not None:
            self.finish(Continue(row.path))
        elif row.key == "replay" and row.path is not None:
            self.finish(Replay(row.path))
        elif row.key == "leave":
            self.finish(Leave())
        elif row.key in CHANGED:
            self.change(row.key, 1)

    def begin_edit(self, field: str) -> None:
        """A front end opens its line for typing ``field`` (the name or the rule options)."""

    def typed_text(self, field: str) -> str:
        """What the line for ``field`` holds when it opens: the setting as it is."""
        return self.settings.name if field == "name" else " ".join(self.settings.options)

    def edit(self, field: str, text: str) -> None:
        """Set the name or the rule options to ``text`` typed (an error said under the menu
        and nothing changed when it is not one)."""
        text = text.strip()
        if field == "name":
            if 0 < len(text) <= MAX_NAME and text.isprintable():
                self.settings = replace(self.settings, name=text)
            else:
                error = _("A name is 1 to {n} printable characters.").format(n=MAX_NAME)
                self.message = ("class:error", error)
        elif field == "options":
            options = tuple(text.replace(",", " ").split())
            try:
                RuleSet.parse(options)
            except P2P10Error as err:
                self.message = ("class:error", str(err))
                return
            self.settings = replace(self.settings, options=options)
            self.game = next((i for i, (_t, opts) in enumerate(GAMES) if opts == options), None)

    def finish(self, choice: StartChoice) -> None:
        """The menu is done: ``choice`` is kept and told to ``on_finish``."""
        self.choice = choice
        for hook in self.on_finish:
            hook(choice)
