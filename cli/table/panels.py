"""The side screens that take the whole table's place: help, the score sheet, the rules in
force, a hand's summary and the end of the game. Each is a list of lines drawn from the game
for a terminal ``columns`` wide."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import zip_longest

from cli.table.drawing import DOWN, Line, cards_line, coloured_words, columns, cut, pad, plain, wrap
from p2p10.cards import sort_key
from p2p10.engine import GameState
from p2p10.narrate import HandSummary, Voice
from p2p10.rules import OPTION_HELP, RuleSet, describe_phase


def help_lines(text: Sequence[str]) -> list[Line]:
    """A screen's help, its cards coloured."""
    return [plain(" Help", "class:header"), *(coloured_words(line) for line in text)]


def short_names(names: Sequence[str], room: int) -> list[str]:
    """Names cut to ``room`` columns, the part in brackets (a bot's level) dropped first."""
    out = []
    for name in names:
        if columns(name) > room and name.endswith(")") and " (" in name:
            name = name[:name.rindex(" (")]
        out.append(cut(name, room))
    return out


def sheet_lines(state: GameState, width: int) -> list[Line]:
    """The score sheet: a row per hand (points, phase, a tick when made) and the totals."""
    players = state.players
    room = max(8, min(16, (width - 8) // players - 1))

    def row(head: str, cells: Sequence[object], style: str = "") -> Line:
        return plain(f" {head:<6} " + "".join(pad(str(c), room, ">") + " " for c in cells), style)

    lines = [plain(" Score sheet", "class:header"), plain(""),
             row("Hand", short_names(state.names, room), "class:title")]
    for index, result in enumerate(state.sheet):
        cells = []
        for seat in range(players):
            points, phase = result.points[seat], result.phase[seat]
            mark = DOWN if result.made[seat] else " "
            cells.append("-" if points is None else f"{points}  P{phase}{mark}")
        lines.append(row(f"{index + 1}{' tie' if result.tie else ''}", cells))
    lines.append(row("Total", state.totals, "class:title"))
    lines.append(row("Made", [len(m) for m in state.made]))
    lines += [plain(""), plain(f" (P2{DOWN}: phase 2 made that hand. Points are penalties: "
                               "the lowest total wins.)", "class:dim")]
    return lines


def rules_lines(rules: RuleSet, width: int) -> list[Line]:
    """The rules in force: the options, the phases played and how the game ends."""
    active = {o.split("=")[0]: o for o in rules.options()}
    lines = [plain(" Rules", "class:header"), plain(""),
             plain(f" In force: {rules.describe()}", "class:title"), plain("")]
    room = max(width - 22, 20)
    for name, text in OPTION_HELP:
        on = active.get(name.split("=")[0])
        for index, part in enumerate(wrap(text, room, indent="")):
            head = f" {'[x]' if on else '[ ]'} {on or name:<16}" if index == 0 else " " * 21
            lines.append(plain(f"{head} {part}", "" if on else "class:dim"))
    lines += [plain(""), plain(" Phases played:", "class:title")]
    played = [f"{phase:>2}: {describe_phase(phase)}" for phase in rules.phase_list]
    half = (len(played) + 1) // 2
    for left, right in zip_longest(played[:half], played[half:], fillvalue=""):
        lines.append(plain(f"   {left:<30} {right}"))
    if rules.hands:
        end = f"after {rules.hands} hand{'s' * (rules.hands > 1)}; everybody moves on every hand"
    else:
        end = f"after the hand in which somebody has made {rules.phases_to_win} phases"
    lines += [plain(""), plain(f" The game ends {end}; the lowest total wins (a tie replays)."),
              plain(" A turn: draw; lay down your whole phase once, then hit any meld; discard."),
              plain(" A Skip discarded costs a player of your choice their next turn."),
              plain(" Cards left in hand: 1-9 5 points, 10-12 10, Skip 15, Wild 25.")]
    return lines


def summary_lines(summary: HandSummary, names: Sequence[str], voice: Voice) -> list[Line]:
    """One hand's end: who went out, and per seat the phase, cards left, points, total."""
    result = summary.result
    room = max(columns(n) for n in short_names(names, 16))
    names = short_names(names, room)
    tie = " (tie replay)" if result.tie else ""
    lines = [plain(f" Hand {summary.number}{tie} is over: {voice.who(result.went_out)} went out.",
                   "class:header"), plain(""),
             plain(f" {'':<{room}}  {'phase':<12} {'points':>6} {'total':>6}  cards left", "class:title")]
    for seat, points in enumerate(result.points):
        if points is None:
            continue
        phase = result.phase[seat]
        made = f"{phase} made {DOWN}" if result.made[seat] else f"{phase} not made"
        line = plain(f" {pad(names[seat], room)}  {made:<12} {points:>6} {summary.totals[seat]:>6}  ")
        lines.append(line + cards_line(sorted(summary.left[seat] or (), key=sort_key)))
    if summary.tie:
        lines += [plain(""), plain(f" A tie: {voice.all(summary.tie)} replay their last phase; "
                                   "the first out wins.")]
    return lines


def over_lines(state: GameState, summaries: Sequence[HandSummary], voice: Voice, width: int) -> list[Line]:
    """The end of the game: the winner, the last hand's summary and the score sheet."""
    if state.winner is None:
        lines = [plain(" The game stopped before its end.", "class:header")]
    else:
        won = voice.does([state.winner], "win")
        lines = [plain(f" Game over: {won} with {state.totals[state.winner]} points!", "class:header")]
    lines.append(plain(""))
    if summaries:
        lines += summary_lines(summaries[-1], state.names, voice)[2:]
        lines.append(plain(""))
    lines += sheet_lines(state, width)[2:]
    return lines
