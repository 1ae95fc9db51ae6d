"""Your record: every finished game you played, and what they add up to.

A :class:`GameResult` is one finished game seen from your seat (:func:`game_result` derives it
from the fold of the game's log); a :class:`Record` is every result, each game once (adding a
game again changes nothing: games are told apart by their game id). Everything the record shows
is computed from the results:

* wins and losses by opponent level (:meth:`Record.by_level`): a bot's level comes from its
  name, "Bot 2 (hard)" is ``hard``; a bot whose name does not say it (a LAN host's "Bot 1") is
  ``bot``; everybody else is a ``person``. A game counts once under each level it was played
  against: a win against a hard bot and a person is a win against ``hard`` and against ``person``;
* wins and losses by table size (:meth:`Record.by_table_size`), the number of seats;
* phases made per hand (:meth:`Record.phases_per_hand`): the phases you laid down, divided by
  the hands you were dealt into, over every game;
* the best game (:meth:`Record.best`): of your wins, the one won in the fewest hands; among
  those, the one with the lowest score; among those, the earliest;
* the kinds of game (:meth:`Record.by_kind`): the games of each set of rule options apart, so
  that a three-hand game (``hands=3``) is compared with three-hand games only, and the best
  full game is a full game. The screens show every figure above for each kind;
* the latest games (:meth:`Record.latest`), newest first.

The record is stored as JSON with a version number (:meth:`Record.to_json`,
:meth:`Record.from_json`); a file that is not a record of this version is a :class:`RecordError`
that says what is wrong, never a traceback. Reading and writing the file is
:mod:`protocol.record_store`'s business: this module does no I/O and reads no clock (a result's
date is given to it).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeGuard

from p2p10.bots import POLICIES
from p2p10.errors import P2P10Error
from p2p10.game_fields import MAX_PLAYERS, MIN_PLAYERS
from p2p10.i18n import _, ngettext, pgettext
from p2p10.names import company, level_name, shown_name

if TYPE_CHECKING:
    from p2p10.table import TableState

RECORD_VERSION = 1
"""The version of the record's JSON that this module writes and reads."""
PERSON = "person"
"""The level of an opponent who is a person."""
BOT = "bot"
"""The level of a bot whose name does not say its level."""
LATEST = 5
"""How many games :meth:`Record.latest` gives unless told."""
LEVEL_ORDER = (*POLICIES, BOT, PERSON)
"""The order levels are listed in: the bot levels, then ``bot``, then ``person``."""


class RecordError(P2P10Error):
    """A record that cannot be read (damaged, or of a version this program does not know), or a
    game that cannot be added to it."""


@dataclass(frozen=True, slots=True)
class Player:
    """A seat of a finished game: its name, and ``level`` (a bot level, ``bot`` or ``person``)."""

    name: str
    level: str


def seat_level(name: str, is_bot: bool = False) -> str:
    """The level of the seat called ``name``: the bot level its name ends with ("Bot 2 (hard)"
    is ``hard``), else ``bot`` for a seat known to be a bot (``is_bot``: a LAN host's "Bot 1"),
    else ``person``."""
    base, _sep, last = name.rpartition(" (")
    level = last.removesuffix(")")
    if base and last.endswith(")") and level in POLICIES:
        return level
    return BOT if is_bot else PERSON


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished game from your seat.

    ``game_id`` is the game id in hex; ``date`` when it ended (ISO 8601, local time);
    ``log_path`` where its log was saved; ``players`` every seat in seat order and ``me`` yours
    (from 0); ``winner`` the winning seat; ``score`` your final total; ``final_phase`` the last
    phase you made (None if none); ``phases_made`` one item per hand you were dealt into: the
    phase you made in it, or None; ``hands`` how many hands the game had (a tie replay is one);
    ``options`` the rule options it was played with.
    """

    game_id: str
    date: str
    log_path: str
    players: tuple[Player, ...]
    me: int
    winner: int
    score: int
    final_phase: int | None
    phases_made: tuple[int | None, ...]
    hands: int
    options: tuple[str, ...] = ()

    @property
    def won(self) -> bool:
        """True if you won the game."""
        return self.winner == self.me

    @property
    def table_size(self) -> int:
        """How many seats the table had."""
        return len(self.players)

    @property
    def opponents(self) -> tuple[Player, ...]:
        """Everybody at the table but you, in seat order."""
        return tuple(p for seat, p in enumerate(self.players) if seat != self.me)

    @property
    def opponent_levels(self) -> tuple[str, ...]:
        """The levels you played against, each once, in :data:`LEVEL_ORDER`."""
        return _in_level_order({p.level for p in self.opponents})

    @property
    def kind(self) -> tuple[str, ...]:
        """The kind of game: its rule options, in a fixed order (none: the standard rules)."""
        return tuple(sorted(self.options))

    @property
    def made_count(self) -> int:
        """How many phases you laid down."""
        return sum(phase is not None for phase in self.phases_made)

    def describe(self, rules: bool = True) -> str:
        """One line for a person: when, won or lost, against whom, how long, your score, and
        the rule options unless ``rules`` is false (a line under its kind of game already says
        them), in the current language."""
        # TRANSLATORS: part of a game's line in your record: "in 3 hands" (a hand: a deal).
        hands = ngettext("in {n} hand", "in {n} hands", self.hands).format(n=self.hands)
        # TRANSLATORS: part of a game's line in your record: "with 45 points" (your final score).
        points = ngettext("with {n} point", "with {n} points", self.score).format(n=self.score)
        fields = {"date": short_date(self.date), "others": company([p.name for p in self.opponents]),
                  "in_hands": hands, "with_points": points}
        if self.won:
            # TRANSLATORS: a game in your record: "2024-01-02 10:11: won against Bot 1 (hard), Ann
            # in 4 hands with 45 points"; {in_hands} is "in 4 hands", {with_points} "with 45 points".
            clauses = [_("{date}: won against {others} {in_hands} {with_points}").format(**fields)]
        else:
            # TRANSLATORS: a game in your record that you lost, as "{date}: won against ...".
            clauses = [_("{date}: lost against {others} {in_hands} {with_points}").format(**fields)]
        if len(self.opponents) > 1 and not self.won:
            # TRANSLATORS: after a lost game in your record, who won it.
            clauses.append(_("{name} won").format(name=shown_name(self.players[self.winner].name)))
        if self.options and rules:
            clauses.append(kind_text(self.options))
        return "; ".join(clauses)

    def row(self) -> str:
        """One line of a list of games: when, won or lost, seats, hands, score, last phase made,
        opponents (in the current language)."""
        # TRANSLATORS: a game in the list of your latest games, won or lost.
        won, lost = pgettext("game", "won"), pgettext("game", "lost")
        outcome = f"{won if self.won else lost:<{max(len(won), len(lost))}}"
        phase = (_("phase {n}").format(n=self.final_phase) if self.final_phase is not None
                 # TRANSLATORS: in the list of your latest games: you made no phase in that game.
                 else _("no phase"))
        against = company([p.name for p in self.opponents])
        # TRANSLATORS: a game in the list of your latest games: how many players it had.
        players = ngettext("{n} player", "{n} players", self.table_size).format(n=self.table_size)
        # TRANSLATORS: a game in the list of your latest games: how many hands it had.
        hands = ngettext("{n} hand", "{n} hands", self.hands).format(n=self.hands)
        # TRANSLATORS: a game in the list of your latest games: your final score ({n} is padded).
        points = ngettext("{n} point", "{n} points", self.score).format(n=f"{self.score:>4}")
        # TRANSLATORS: a game in the list of your latest games: whom you played against.
        versus = _("vs {others}").format(others=against)
        return f"{short_date(self.date)}  {outcome}  {players}  {hands:>8}  {points}  {phase:<8}  {versus}"

    def to_dict(self) -> dict[str, Any]:
        """The result as a JSON object (the form the record stores)."""
        return {"game_id": self.game_id, "date": self.date, "log_path": self.log_path,
                "players": [{"name": p.name, "level": p.level} for p in self.players],
                "me": self.me, "winner": self.winner, "score": self.score,
                "final_phase": self.final_phase, "phases_made": list(self.phases_made),
                "hands": self.hands, "options": list(self.options)}

    @classmethod
    def from_dict(cls, item: object) -> GameResult:
        """A result from :meth:`to_dict`'s form; :class:`RecordError` saying what is wrong."""
        # TRANSLATORS: what a message about a damaged record is about: "a game has no 'players'".
        game = _Fields(item, _("a game"))
        players = tuple(_player(p, n) for n, p in enumerate(game.items("players"), 1))
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            raise RecordError(_("a game has {low} to {high} players, not {n}").format(
                low=MIN_PLAYERS, high=MAX_PLAYERS, n=len(players)))
        me, winner = game.seat("me", len(players)), game.seat("winner", len(players))
        return cls(game_id=game.text("game_id"), date=game.text("date"), log_path=game.text("log_path"),
                   players=players, me=me, winner=winner, score=game.count("score"),
                   final_phase=game.maybe_count("final_phase"),
                   phases_made=tuple(_maybe_count(p, "'phases_made'") for p in game.items("phases_made")),
                   hands=game.count("hands"),
                   options=tuple(_text(o, "'options'") for o in game.items("options")))


def game_result(table: TableState, me: int, *, date: str, log_path: str = "") -> GameResult | None:
    """The result of the game folded into ``table``, seen from seat ``me`` (from 0), which
    ended at ``date`` (ISO 8601) and is saved at ``log_path``; None if it has no winner yet."""
    engine = table.engine
    if engine.winner is None:
        return None
    if not 0 <= me < table.players:
        raise RecordError(_("there is no seat {seat} at a table of {n}").format(seat=me + 1, n=table.players))
    players = tuple(Player(name, seat_level(name, sit_down.run_by is not None))
                    for name, sit_down in zip(table.given_names, table.sit_downs, strict=True))
    made = engine.made[me]
    return GameResult(
        game_id=table.game_id.hex(), date=date, log_path=log_path, players=players, me=me,
        winner=engine.winner, score=engine.totals[me], final_phase=made[-1] if made else None,
        phases_made=tuple(row.phase[me] if row.made[me] else None
                          for row in engine.sheet if row.phase[me] is not None),
        hands=len(engine.sheet), options=tuple(table.rules.options()))


@dataclass(frozen=True, slots=True)
class Tally:
    """Games won and lost."""

    won: int = 0
    lost: int = 0

    @property
    def games(self) -> int:
        """Games played."""
        return self.won + self.lost

    @property
    def rate(self) -> float | None:
        """The share of games won (None before the first game)."""
        return self.won / self.games if self.games else None

    def counted(self, won: bool) -> Tally:
        """This tally with one more game, won or lost."""
        return Tally(self.won + won, self.lost + (not won))

    def to_dict(self) -> dict[str, int]:
        """The tally as a JSON object."""
        return {"won": self.won, "lost": self.lost}


@dataclass(frozen=True, slots=True)
class Record:
    """Every finished game you played, in the order they were added, each once."""

    games: tuple[GameResult, ...] = ()

    def has(self, game_id: str) -> bool:
        """True if the game ``game_id`` (hex) is in the record."""
        return any(game.game_id == game_id for game in self.games)

    def add(self, result: GameResult) -> Record:
        """The record with ``result`` in it; the same record if its game is already there."""
        return self if self.has(result.game_id) else Record((*self.games, result))

    def total(self) -> Tally:
        """Every game, won or lost."""
        return _tally(game.won for game in self.games)

    def by_level(self) -> dict[str, Tally]:
        """Won and lost by opponent level, in :data:`LEVEL_ORDER` (a game counts under each
        level it was played against)."""
        tallies: dict[str, Tally] = {}
        for game in self.games:
            for level in game.opponent_levels:
                tallies[level] = tallies.get(level, Tally()).counted(game.won)
        return {level: tallies[level] for level in _in_level_order(tallies)}

    def by_table_size(self) -> dict[int, Tally]:
        """Won and lost by the number of seats at the table, smallest first."""
        sizes = sorted({game.table_size for game in self.games})
        return {size: _tally(g.won for g in self.games if g.table_size == size) for size in sizes}

    def phases_made(self) -> tuple[int, int]:
        """(phases you made, hands you were dealt into), over every game."""
        return (sum(game.made_count for game in self.games),
                sum(len(game.phases_made) for game in self.games))

    def phases_per_hand(self) -> float | None:
        """Phases made per hand dealt in, on average (None before the first hand)."""
        made, hands = self.phases_made()
        return made / hands if hands else None

    def best(self) -> GameResult | None:
        """Your best game: of your wins, the fewest hands, then the lowest score, then the
        earliest; None before your first win."""
        wins = [game for game in self.games if game.won]
        return min(wins, key=lambda g: (g.hands, g.score, g.date), default=None)

    def by_kind(self) -> dict[tuple[str, ...], Record]:
        """The games of each kind (:attr:`GameResult.kind`), each kind a record of its own: the
        standard rules first, then the others by their options."""
        kinds = sorted({game.kind for game in self.games}, key=lambda kind: (kind != (), kind))
        return {kind: Record(tuple(g for g in self.games if g.kind == kind)) for kind in kinds}

    def latest(self, count: int = LATEST) -> tuple[GameResult, ...]:
        """The ``count`` latest games by date, newest first (of one date, the last added first)."""
        newest_first = sorted(reversed(self.games), key=lambda g: g.date, reverse=True)
        return tuple(newest_first[:max(count, 0)])

    def figures(self) -> dict[str, Any]:
        """What the games add up to, as a JSON object: ``games``, ``won``, ``lost``,
        ``by_level`` and ``by_table_size`` (``{key: {"won", "lost"}}``), ``phases_made``,
        ``hands_dealt``, ``phases_per_hand`` and ``best`` (as stored, with ``won``)."""
        total = self.total()
        made, hands = self.phases_made()
        best = self.best()
        return {"games": total.games, "won": total.won, "lost": total.lost,
                "by_level": {level: t.to_dict() for level, t in self.by_level().items()},
                "by_table_size": {str(size): t.to_dict() for size, t in self.by_table_size().items()},
                "phases_made": made, "hands_dealt": hands, "phases_per_hand": self.phases_per_hand(),
                "best": None if best is None else _with_outcome(best)}

    def summary(self, count: int = LATEST) -> dict[str, Any]:
        """Everything the record adds up to, as a JSON object: the :meth:`figures` of every
        game, ``by_kind`` (a list, in :meth:`by_kind`'s order, of each kind's ``options`` and
        :meth:`figures`) and the ``count`` ``latest`` games (each as stored, with ``won``)."""
        return {"version": RECORD_VERSION, **self.figures(),
                "by_kind": [{"options": list(kind), **games.figures()}
                            for kind, games in self.by_kind().items()],
                "latest": [_with_outcome(game) for game in self.latest(count)]}

    def summary_lines(self) -> list[str]:
        """A few short lines for the start screen, under its heading "Your record" (in the
        current language): the games won and lost, the phases made a hand, the last game and
        the best game of its kind."""
        if not self.games:
            return [_("No finished games yet.")]
        total = self.total()
        # TRANSLATORS: the first line under the start screen's heading "Your record"; {percent}
        # is a share of the games, "57%".
        lines = [_("{won} won, {lost} lost ({percent} won)").format(
            won=total.won, lost=total.lost, percent=percent(total.rate))]
        per_hand = self.phases_per_hand()
        if per_hand is not None:
            # TRANSLATORS: phases laid down per hand dealt, on average: "0.67 a hand".
            lines.append(_("Phases made: {rate} a hand").format(rate=f"{per_hand:.2f}"))
        last = self.latest(1)[0]
        lines.append(_("Last game: {game}").format(game=last.describe()))
        best = self.by_kind()[last.kind].best()
        if best is not None:
            # TRANSLATORS: the best game of one kind; {kind} is "standard rules" or "rules
            # hands=3" (as after a game in your record).
            lines.append(_("Best game ({kind}): {game}").format(kind=kind_text(last.kind),
                                                                game=best.describe(rules=False)))
        return lines

    def report_lines(self, count: int = LATEST) -> list[str]:
        """The whole record as text (``p2p10 stats``): the totals, then for each kind of game
        (:meth:`by_kind`) won and lost by opponent level and by table size, phases made and the
        best game, then the ``count`` latest games."""
        lines = [self.heading()]
        for kind, games in self.by_kind().items():
            lines += ["", *games._kind_lines(kind)]
        return [*lines, _("(a game against several levels counts under each)"), "",
                _("Latest games"), *(f"  {game.row()}" for game in self.latest(count))]

    def heading(self) -> str:
        """The record's first line: games played, won and lost, and the share won."""
        total = self.total()
        # TRANSLATORS: the first line of `p2p10 stats`; {percent} is a share of the games, "57%".
        head = ngettext("Your record: {n} game, {won} won, {lost} lost ({percent} won)",
                        "Your record: {n} games, {won} won, {lost} lost ({percent} won)", total.games)
        return head.format(n=total.games, won=total.won, lost=total.lost, percent=percent(total.rate))

    def kind_heading(self, kind: tuple[str, ...]) -> str:
        """The heading of these games, all of ``kind``: how many, won, lost, the share won."""
        total = self.total()
        # TRANSLATORS: the heading of one kind of game in `p2p10 stats`; {kind} is "standard
        # rules" or "rules hands=3" (as after a game in your record), {percent} a share, "57%".
        head = ngettext("Games with {kind}: {n} game, {won} won, {lost} lost ({percent} won)",
                        "Games with {kind}: {n} games, {won} won, {lost} lost ({percent} won)",
                        total.games)
        return head.format(kind=kind_text(kind), n=total.games, won=total.won, lost=total.lost,
                           percent=percent(total.rate))

    def phases_text(self) -> str:
        """The phases made, in how many hands, and how many a hand."""
        made, hands = self.phases_made()
        per_hand = self.phases_per_hand()
        if per_hand is None:
            phases = ngettext("Phases made: {made} in {n} hand", "Phases made: {made} in {n} hands", hands)
        else:
            # TRANSLATORS: {rate} is phases laid down per hand dealt, on average: "0.67".
            phases = ngettext("Phases made: {made} in {n} hand, {rate} a hand",
                              "Phases made: {made} in {n} hands, {rate} a hand", hands)
        return phases.format(made=made, n=hands, rate="" if per_hand is None else f"{per_hand:.2f}")

    def best_text(self) -> str:
        """The best game in words (under its kind: without the rules)."""
        best = self.best()
        if best is None:
            return _("Best game (fewest hands, then lowest score): no win yet")
        return _("Best game (fewest hands, then lowest score): {game}").format(
            game=best.describe(rules=False))

    def _kind_lines(self, kind: tuple[str, ...]) -> list[str]:
        """The figures of these games, all of ``kind``, as text."""
        levels = {level_text(level): t for level, t in self.by_level().items()}
        return [self.kind_heading(kind),
                # TRANSLATORS: the title of a column of opponent levels (easy, hard, person, ...).
                *_tally_table(pgettext("stats column", "Against"), levels),
                # TRANSLATORS: the title of a column of table sizes (2, 3, 4 players).
                *_tally_table(pgettext("stats column", "Players"),
                              {str(size): t for size, t in self.by_table_size().items()}),
                "  " + self.phases_text(),
                "  " + self.best_text()]

    def to_json(self) -> str:
        """The record as JSON, with its version."""
        return json.dumps({"version": RECORD_VERSION, "games": [g.to_dict() for g in self.games]},
                          indent=1, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> Record:
        """The record :meth:`to_json` wrote; :class:`RecordError` saying what is wrong if
        ``text`` is not one, or is one of another version."""
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as err:
            raise RecordError(_("the record is damaged: it is not JSON ({reason})").format(
                reason=err)) from None
        if not isinstance(data, dict) or "version" not in data:
            raise RecordError(_("the record is damaged: it has no version number"))
        version = data["version"]
        if version != RECORD_VERSION:
            if isinstance(version, int) and version > RECORD_VERSION:
                message = _("the record is of version {version!r}, and this p2p10 reads version "
                            "{known} (a newer p2p10 wrote it)")
            else:
                message = _("the record is of version {version!r}, and this p2p10 reads version {known}")
            raise RecordError(message.format(version=version, known=RECORD_VERSION))
        games = data.get("games")
        if not isinstance(games, list):
            raise RecordError(_("the record is damaged: it has no list of games"))
        record = cls()
        for number, item in enumerate(games, 1):
            try:
                record = record.add(GameResult.from_dict(item))
            except RecordError as err:
                raise RecordError(_("the record is damaged: game {number}: {reason}").format(
                    number=number, reason=err)) from None
        return record


def kind_text(kind: tuple[str, ...]) -> str:
    """A kind of game for a person: "standard rules", or its rule options ("rules hands=3")."""
    if not kind:
        # TRANSLATORS: a kind of game in your record: the one with no rule option.
        return _("standard rules")
    # TRANSLATORS: after a game in your record, its rule options as written (skip=next).
    return _("rules {options}").format(options=", ".join(kind))


def short_date(date: str) -> str:
    """An ISO 8601 date and time as ``YYYY-MM-DD HH:MM``."""
    return date[:16].replace("T", " ")


def percent(rate: float | None) -> str:
    """A share as a whole percentage ("57%"), or "-" when there is none."""
    return "-" if rate is None else f"{round(100 * rate)}%"


def level_text(level: str) -> str:
    """An opponent level for a person, in the current language: a bot level as the bots' names
    show it ("hard", as in "Bot 2 (hard)"), ``bot`` and ``person``."""
    if level == BOT:
        # TRANSLATORS: an opponent level in `p2p10 stats`: a bot whose name does not say its level.
        return pgettext("opponent", "bot")
    if level == PERSON:
        # TRANSLATORS: an opponent level in `p2p10 stats`: a person, not a bot.
        return pgettext("opponent", "person")
    return level_name(level)


def _tally_table(title: str, tallies: Mapping[str, Tally]) -> list[str]:
    # TRANSLATORS: the titles of the columns of games won and lost, and the share won.
    won, lost, rate = (pgettext("stats column", "Won"), pgettext("stats column", "Lost"),
                       pgettext("stats column", "Won %"))
    widths = (max(10, len(title)), max(5, len(won)), max(5, len(lost)), max(6, len(rate)))
    rows = [f"  {title:<{widths[0]}} {won:>{widths[1]}} {lost:>{widths[2]}} {rate:>{widths[3]}}"]
    rows += [f"  {key:<{widths[0]}} {t.won:>{widths[1]}} {t.lost:>{widths[2]}} {percent(t.rate):>{widths[3]}}"
             for key, t in tallies.items()]
    return rows


def _tally(outcomes: Iterable[bool]) -> Tally:
    tally = Tally()
    for won in outcomes:
        tally = tally.counted(won)
    return tally


def _in_level_order(levels: Iterable[str]) -> tuple[str, ...]:
    # Known levels in their order, then any other (a record written with other bot names) by name.
    return tuple(sorted(levels, key=lambda level: (LEVEL_ORDER.index(level) if level in LEVEL_ORDER
                                                   else len(LEVEL_ORDER), level)))


def _with_outcome(game: GameResult) -> dict[str, Any]:
    return {**game.to_dict(), "won": game.won}


def _player(item: object, number: int) -> Player:
    # TRANSLATORS: what a message about a damaged record is about: "player 2 has no 'name'".
    fields = _Fields(item, _("player {number}").format(number=number))
    return Player(fields.text("name"), fields.text("level"))


def _is_count(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _maybe_count(value: object, what: str) -> int | None:
    if value is None or _is_count(value):
        return value
    raise RecordError(_("{what} holds {value!r}, not a whole number or null").format(what=what, value=value))


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise RecordError(_("{what} holds {value!r}, not text").format(what=what, value=value))
    return value


class _Fields:
    """The fields of one JSON object of the record, each read as the type it must have."""

    def __init__(self, item: object, what: str) -> None:
        if not isinstance(item, Mapping):
            raise RecordError(_("{what} is not a JSON object").format(what=what))
        self.item = item
        self.what = what

    def _get(self, key: str) -> object:
        if key not in self.item:
            raise RecordError(_("{what} has no {key!r}").format(what=self.what, key=key))
        return self.item[key]

    def text(self, key: str) -> str:
        """The text at ``key``."""
        return _text(self._get(key), repr(key))

    def count(self, key: str) -> int:
        """The whole number (0 or more) at ``key``."""
        value = self._get(key)
        if not _is_count(value):
            raise RecordError(_("{key!r} is {value!r}, not a whole number").format(key=key, value=value))
        return value

    def seat(self, key: str, players: int) -> int:
        """The seat (from 0) of one of ``players`` at ``key``."""
        seat = self.count(key)
        if seat >= players:
            raise RecordError(_("{key!r} is seat {seat}, and a table of {n} has seats 0 to {last}").format(
                key=key, seat=seat, n=players, last=players - 1))
        return seat

    def maybe_count(self, key: str) -> int | None:
        """The whole number or null at ``key``."""
        return _maybe_count(self._get(key), repr(key))

    def items(self, key: str) -> list[object]:
        """The list at ``key``."""
        value = self._get(key)
        if not isinstance(value, list):
            raise RecordError(_("{key!r} is not a list").format(key=key))
        return value
