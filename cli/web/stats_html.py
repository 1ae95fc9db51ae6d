"""``p2p10 stats --html``: your record as one self-contained web page.

The figures are the record's own (:meth:`p2p10.record.Record.summary`, the same that
``p2p10 stats --json`` prints, and the texts that ``p2p10 stats`` prints): the games won and
lost, then for each kind of game won and lost by opponent level and by table size, the phases
made and the best game; a chart of the phases made per hand, game by game
(:func:`cli.web.charts.rate_chart`); and the latest games. The page is HTML and SVG built here:
it runs no script and makes no request.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from html import escape
from pathlib import Path

from cli.web.charts import rate_chart, tally_bar
from cli.web.page import Page, page
from p2p10.i18n import _, current_language, pgettext
from p2p10.names import company
from p2p10.record import GameResult, Record, Tally, kind_text, level_text, percent, short_date

LATEST_SHOWN = 10
"""How many of the latest games the page lists."""


def _tally_table(title: str, tallies: Mapping[str, Tally], keys: Mapping[str, str]) -> str:
    """A table of games won and lost, a row per key (``keys`` maps each shown key to its name
    in the data, for ``data-key``), with a bar of the share won."""
    won, lost, rate = (pgettext("stats column", "Won"), pgettext("stats column", "Lost"),
                       pgettext("stats column", "Won %"))
    rows = []
    for key, tally in tallies.items():
        # TRANSLATORS: a bar's name for a screen reader in `p2p10 stats --html`: "2 won, 1 lost".
        label = _("{won} won, {lost} lost").format(won=tally.won, lost=tally.lost)
        rows.append(f'<tr data-key="{escape(keys[key])}"><th scope="row">{escape(key)}</th>'
                    f'<td class="n">{tally.won}</td><td class="n">{tally.lost}</td>'
                    f'<td class="n">{escape(percent(tally.rate))}</td>'
                    f'<td class="bar">{tally_bar(tally.won, tally.lost, label)}</td></tr>')
    return (f'<table class="tally"><thead><tr><th scope="col">{escape(title)}</th>'
            f'<th scope="col" class="n">{escape(won)}</th><th scope="col" class="n">{escape(lost)}</th>'
            f'<th scope="col" class="n">{escape(rate)}</th><th scope="col"></th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def _kind_section(kind: tuple[str, ...], games: Record) -> str:
    """One kind of game: its games won and lost by level and by table size, phases, best game."""
    levels = {level_text(level): (level, t) for level, t in games.by_level().items()}
    keys = {shown: level for shown, (level, _t) in levels.items()}
    sizes = {str(size): t for size, t in games.by_table_size().items()}
    return (
        f'<section class="panel kind" data-kind="{escape(",".join(kind))}">'
        f"<h2>{escape(kind_text(kind))}</h2>"
        f'<p class="head">{escape(games.kind_heading(kind))}</p>'
        '<div class="tallies">'
        f'{_tally_table(pgettext("stats column", "Against"), {k: t for k, (_l, t) in levels.items()}, keys)}'
        f'{_tally_table(pgettext("stats column", "Players"), sizes, {k: k for k in sizes})}'
        "</div>"
        f"<p>{escape(games.phases_text())}</p>"
        f"<p>{escape(games.best_text())}</p>"
        "</section>")


def _latest_table(games: tuple[GameResult, ...]) -> str:
    """The latest games, a row each."""
    heads = [pgettext("stats column", "Date"), pgettext("stats column", "Result"),
             pgettext("stats column", "Players"), pgettext("stats column", "Hands"),
             pgettext("stats column", "Points"), pgettext("stats column", "Last phase"),
             pgettext("stats column", "Against")]
    rows = []
    for game in games:
        outcome = pgettext("game", "won") if game.won else pgettext("game", "lost")
        phase = _("phase {n}").format(n=game.final_phase) if game.final_phase is not None else _("no phase")
        cells = [short_date(game.date), outcome, str(game.table_size), str(game.hands), str(game.score),
                 phase, company([p.name for p in game.opponents])]
        classes = ["date", "won" if game.won else "lost", "n", "n", "n", "", "against"]
        rows.append("<tr>" + "".join(f'<td class="{c}">{escape(text)}</td>'
                                     for c, text in zip(classes, cells, strict=True)) + "</tr>")
    head = "".join(f'<th scope="col">{escape(h)}</th>' for h in heads)
    return (f'<div class="scroll"><table class="latest"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def phases_by_game(record: Record) -> list[tuple[str, float]]:
    """Each game's phases made per hand dealt in, oldest first, with its date (``YYYY-MM-DD``);
    games in which you were dealt no hand are left out."""
    games = sorted(record.games, key=lambda g: g.date)
    return [(g.date[:10], g.made_count / len(g.phases_made)) for g in games if g.phases_made]


def stats_body(record: Record, path: Path, made: datetime | None = None) -> str:
    """The page's HTML: the whole record, in the current language."""
    when = (made or datetime.now(UTC)).replace(microsecond=0).isoformat().replace("+00:00", "Z")
    # TRANSLATORS: the heading of the record's web page (p2p10 stats --html).
    heading = _("Your record")
    parts = [f'<header class="top"><h1>{escape(heading)}</h1>']
    if not record.games:
        empty = _("No finished games yet.")
        parts.append(f"<p>{escape(empty)}</p></header>")
        return "".join(parts)
    parts.append(f'<p class="total">{escape(record.heading())}</p></header><main>')
    parts += [_kind_section(kind, games) for kind, games in record.by_kind().items()]
    several = _("(a game against several levels counts under each)")
    parts.append(f'<p class="dim note">{escape(several)}</p>')
    points = phases_by_game(record)
    # TRANSLATORS: the title of the chart of the phases made per hand, game after game.
    title = _("Phases made per hand, game by game")
    # TRANSLATORS: the vertical axis of the chart of phases made per hand.
    axis = _("Phases a hand")
    parts.append(f'<section class="panel chart"><h2>{escape(title)}</h2>'
                 f"{rate_chart([d for d, _r in points], [r for _d, r in points], title, axis)}</section>")
    latest = _("Latest games")
    parts.append(f'<section class="panel"><h2>{escape(latest)}</h2>'
                 f"{_latest_table(record.latest(LATEST_SHOWN))}</section>")
    kept = _("Record: {path}").format(path=path)
    # TRANSLATORS: the foot of the record's web page: when the page was made ({when}: a date and time, UTC).
    made_at = _("This page was made at {when}.").format(when=when)
    parts.append(f'<p class="dim note">{escape(kept)}. {escape(made_at)}</p></main>')
    return "".join(parts)


def stats_page(record: Record, path: Path, made: datetime | None = None) -> Page:
    """The record's self-contained page (no script, no request), in the current language;
    ``path`` is where the record is kept."""
    return page(_("Your record"), current_language(), [], ["base.css", "stats.css"],
                body=stats_body(record, path, made), connect=False)

