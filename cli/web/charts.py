"""Charts drawn as inline SVG text, for the pages of the browser front end.

A chart is built here, in Python, as a string of SVG that a page embeds as it is: no script
draws it, so it shows in a saved page with scripts off, and a screen reader reads its
``<title>`` and ``<desc>``. Every shape has its own presentation attributes (a page's
Content-Security-Policy allows no ``style=""`` attribute). Lines differ by dash and marker as
well as by colour, so that they can be told apart without colour vision.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from html import escape

from p2p10.engine import GameState
from p2p10.game_fields import HandResult
from p2p10.i18n import _, pgettext
from p2p10.names import shown_name

# Distinct in hue and lightness on the dark green table (Okabe and Ito's colour-blind safe set).
COLOURS = ("#f0e442", "#56b4e9", "#e69f00", "#ffffff", "#cc79a7", "#d55e00")
DASHES = ("", "8 4", "2 3", "10 3 2 3", "4 4", "1 0")
MARKERS = ("circle", "square", "diamond", "triangle", "circle-open", "square-open")

WIDTH, HEIGHT = 640, 340
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 16, 44
LEGEND_ROW = 22


def _nice_step(top: int) -> int:
    """A round step for about five gridlines up to ``top``."""
    for step in itertools.chain.from_iterable((m, 2 * m, 5 * m) for m in (1, 10, 100, 1000, 10000)):
        if top / step <= 6:
            return step
    return 100000


def _y_title(text: str) -> str:
    """The vertical axis's title, ``text``, written upwards beside the axis."""
    middle = TOP + (HEIGHT - TOP - BOTTOM) / 2
    return (f'<text x="14" y="{middle:.1f}" text-anchor="middle" class="axis-y" font-size="13" '
            f'fill="#f4f7f4" transform="rotate(-90 14 {middle:.1f})">{escape(text)}</text>')


def _marker(kind: str, x: float, y: float, colour: str, hand: int = 0) -> str:
    """A small marker of ``kind`` at (x, y), marked as hand ``hand``'s (0: the legend's)."""
    open_ = kind.endswith("-open")
    mark = f' data-hand="{hand}"' if hand else ""
    fill = "none" if open_ else colour
    stroke = f' stroke="{colour}" stroke-width="2"' if open_ else ""
    if kind.startswith("circle"):
        return f'<circle{mark} cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{fill}"{stroke}/>'
    if kind.startswith("square"):
        return f'<rect{mark} x="{x - 3.5:.1f}" y="{y - 3.5:.1f}" width="7" height="7" fill="{fill}"{stroke}/>'
    if kind == "diamond":
        points = f"{x:.1f},{y - 5:.1f} {x + 5:.1f},{y:.1f} {x:.1f},{y + 5:.1f} {x - 5:.1f},{y:.1f}"
    else:
        points = f"{x:.1f},{y - 5:.1f} {x + 5:.1f},{y + 4:.1f} {x - 5:.1f},{y + 4:.1f}"
    return f'<polygon{mark} points="{points}" fill="{fill}"/>'


def score_chart(names: Sequence[str], totals: Sequence[Sequence[int]], title: str) -> str:
    """An accessible SVG chart of the scores over the hands: ``totals[p]`` is player ``p``'s
    (``names[p]``'s) total after each hand in turn (cumulative: the score sheet's running
    total), drawn as one line per player from 0 before the first hand. Axis labels, a legend
    with the names, and a ``<title>`` (``title``) and ``<desc>`` that say the final totals in
    words. Names and title are escaped. Each hand's segments and markers carry
    ``data-hand="N"`` (from 1), for a page that shows the chart only up to some hand."""
    hands = max((len(row) for row in totals), default=0)
    rows = -(-len(names) // 2)  # the legend: two names a row
    height = HEIGHT + rows * LEGEND_ROW
    top_value = max([1, *(value for row in totals for value in row)])
    step = _nice_step(top_value)
    top = -(-top_value // step) * step
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x_at(hand: int) -> float:
        return LEFT + plot_w * hand / max(hands, 1)

    def y_at(value: int) -> float:
        return TOP + plot_h * (1 - value / top)

    # TRANSLATORS: the description of the score chart for a screen reader: {scores} lists each
    # player with their total ("Ann 120, Bob 95"), {n} is the number of hands.
    desc = _("Penalty points after each hand; after hand {n}: {scores}.").format(
        n=hands, scores=", ".join(f"{name} {row[-1] if row else 0}" for name, row in zip(names, totals,
                                                                                           strict=True)))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="p2p10-chart" viewBox="0 0 {WIDTH} {height}" '
        f'role="img" font-family="system-ui, sans-serif">',
        # The first <title> child names the image, its <desc> describes it (SVG accessibility
        # mapping): no ids, so that a page can hold several charts.
        f'<title>{escape(title)}</title>',
        f'<desc>{escape(desc)}</desc>',
        f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="#0a2a1a" stroke="#3f7a58"/>',
    ]
    for value in range(0, top + 1, step):
        y = y_at(value)
        parts.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + plot_w}" y2="{y:.1f}" stroke="#3f7a58" '
                     f'stroke-width="1"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" class="tick" font-size="12" '
                     f'fill="#c8d6cc">{value}</text>')
    label_every = max(1, -(-hands // 16))
    for hand in range(1, hands + 1):
        if hand % label_every == 0 or hand == hands:
            parts.append(f'<text x="{x_at(hand):.1f}" y="{TOP + plot_h + 16}" text-anchor="middle" '
                         f'class="tick" font-size="12" fill="#c8d6cc">{hand}</text>')
    hand_word = pgettext("score sheet", "Hand")
    parts.append(f'<text x="{LEFT + plot_w / 2:.1f}" y="{TOP + plot_h + 36}" text-anchor="middle" '
                 f'class="axis" font-size="13" fill="#f4f7f4">{escape(hand_word)}</text>')
    # TRANSLATORS: the score chart's vertical axis: a player's penalty points so far.
    points = _("Points")
    parts.append(_y_title(points))
    for index, (name, row) in enumerate(zip(names, totals, strict=True)):
        colour = COLOURS[index % len(COLOURS)]
        dash = DASHES[index % len(DASHES)]
        marker = MARKERS[index % len(MARKERS)]
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        # One segment per hand, each marked with its hand (data-hand), so that a page can show
        # the chart as far as a step of the game has come by hiding the hands after it.
        values = [0, *row]
        parts.append(f"<g><title>{escape(name)}</title>")
        for hand in range(1, len(values)):
            start, end = (x_at(hand - 1), y_at(values[hand - 1])), (x_at(hand), y_at(values[hand]))
            parts.append(f'<line data-hand="{hand}" x1="{start[0]:.1f}" y1="{start[1]:.1f}" '
                         f'x2="{end[0]:.1f}" y2="{end[1]:.1f}" stroke="{colour}" '
                         f'stroke-width="2.5" stroke-linecap="round"{dashed}/>')
            parts.append(_marker(marker, x_at(hand), y_at(values[hand]), colour, hand))
        parts.append("</g>")
        lx = LEFT + (index % 2) * (plot_w / 2)
        ly = HEIGHT + (index // 2) * LEGEND_ROW + 6
        parts.append(f'<line x1="{lx:.1f}" y1="{ly:.1f}" x2="{lx + 28:.1f}" y2="{ly:.1f}" stroke="{colour}" '
                     f'stroke-width="2.5"{dashed}/>')
        parts.append(_marker(marker, lx + 14, ly, colour))
        parts.append(f'<text x="{lx + 36:.1f}" y="{ly + 5:.1f}" class="legend" font-size="14" fill="#f4f7f4">'
                     f'{escape(name)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def rate_chart(labels: Sequence[str], rates: Sequence[float], title: str, axis: str) -> str:
    """An accessible SVG chart of one rate over time: a marker for each of ``rates`` (in order,
    ``labels[i]`` naming the i-th under the axis, e.g. a game's date), and a line of their
    running average; ``axis`` names the vertical axis. Labels, title and axis are escaped."""
    count = len(rates)
    top = max(1.0, *rates) if rates else 1.0
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x_at(index: int) -> float:
        return LEFT + plot_w * (index + 0.5) / max(count, 1)

    def y_at(value: float) -> float:
        return TOP + plot_h * (1 - value / top)

    averages: list[float] = []
    for index, rate in enumerate(rates):
        averages.append(((averages[-1] * index if averages else 0.0) + rate) / (index + 1))
    # TRANSLATORS: the description of a chart for a screen reader: {n} values over time, the
    # last one {last} and their average {average}.
    desc = _("{n} values; the last {last}, the average {average}.").format(
        n=count, last=f"{rates[-1]:.2f}" if rates else "-", average=f"{averages[-1]:.2f}" if rates else "-")
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="p2p10-chart" '
        f'viewBox="0 0 {WIDTH} {HEIGHT + LEGEND_ROW}" role="img" font-family="system-ui, sans-serif">',
        f"<title>{escape(title)}</title>",
        f"<desc>{escape(desc)}</desc>",
        f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="#0a2a1a" stroke="#3f7a58"/>',
    ]
    steps = 4
    for i in range(steps + 1):
        value = top * i / steps
        y = y_at(value)
        parts.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + plot_w}" y2="{y:.1f}" stroke="#3f7a58"/>')
        parts.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" text-anchor="end" class="tick" font-size="12" '
                     f'fill="#c8d6cc">{value:.2f}</text>')
    label_every = max(1, -(-count // 6))
    for index, label in enumerate(labels):
        if index % label_every == 0 or index == count - 1:
            parts.append(f'<text x="{x_at(index):.1f}" y="{TOP + plot_h + 16}" text-anchor="middle" '
                         f'class="tick" font-size="11" fill="#c8d6cc">{escape(label)}</text>')
    parts.append(_y_title(axis))
    if count > 1:
        line = " ".join(f"{x_at(i):.1f},{y_at(v):.1f}" for i, v in enumerate(averages))
        parts.append(f'<polyline points="{line}" fill="none" stroke="{COLOURS[1]}" stroke-width="2.5" '
                     f'stroke-dasharray="8 4"/>')
    for index, rate in enumerate(rates):
        parts.append(f'<g><title>{escape(labels[index])}: {rate:.2f}</title>'
                     f'{_marker("circle", x_at(index), y_at(rate), COLOURS[0])}</g>')
    ly = HEIGHT + 6
    # TRANSLATORS: the legend of a chart: one game's value (a dot), and the average so far (a dashed line).
    one, average = _("one game"), _("average so far")
    parts.append(_marker("circle", LEFT + 14, ly, COLOURS[0]))
    parts.append(f'<text x="{LEFT + 28}" y="{ly + 5}" class="legend" font-size="14" fill="#f4f7f4">'
                 f"{escape(one)}</text>")
    middle = LEFT + plot_w / 2
    parts.append(f'<line x1="{middle:.1f}" y1="{ly}" x2="{middle + 28:.1f}" y2="{ly}" stroke="{COLOURS[1]}" '
                 f'stroke-width="2.5" stroke-dasharray="8 4"/>')
    parts.append(f'<text x="{middle + 36:.1f}" y="{ly + 5}" class="legend" font-size="14" fill="#f4f7f4">'
                 f"{escape(average)}</text>")
    parts.append("</svg>")
    return "".join(parts)


def tally_bar(won: int, lost: int, label: str) -> str:
    """A small SVG bar of games won (filled) and lost (outlined), named ``label`` for a reader."""
    games = won + lost
    width = 120
    filled = width * won / games if games else 0
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="p2p10-bar" viewBox="0 0 {width} 14" role="img">'
            f"<title>{escape(label)}</title>"
            f'<rect x="0.5" y="0.5" width="{width - 1}" height="13" rx="3" fill="none" stroke="#c8d6cc"/>'
            f'<rect x="0.5" y="0.5" width="{max(filled - 1, 0):.1f}" height="13" rx="3" fill="{COLOURS[0]}"/>'
            "</svg>")


def running_totals(sheet: Sequence[HandResult], players: int) -> list[list[int]]:
    """Each of ``players`` seats' total after each row of the score sheet (a tie replay's
    points do not count, as :attr:`GameState.totals` counts them); ``[seat][row]``."""
    totals = [0] * players
    after: list[list[int]] = [[] for _seat in range(players)]
    for row in sheet:
        for seat, points in enumerate(row.points):
            if not row.tie and points is not None:
                totals[seat] += points
            after[seat].append(totals[seat])
    return after


def game_chart(state: GameState) -> str:
    """The chart of the scores over the hands of ``state``'s game, its names as shown."""
    names = [shown_name(name) for name in state.names]
    # TRANSLATORS: the title of the chart of the scores over the hands.
    return score_chart(names, running_totals(state.sheet, state.players), _("Scores over the hands"))
