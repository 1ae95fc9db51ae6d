"""``p2p10 rules``: the phases under the chosen options, and the meld solver for people and
scripts."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping
from typing import IO, Any

from p2p10.cards import COLOURS, card_text, cards_text, parse_hand, points
from p2p10.errors import P2P10Error
from p2p10.i18n import _, ngettext
from p2p10.melds import label_text
from p2p10.rules import OPTION_HELP, PHASES, RuleSet, describe_phase
from p2p10.solver import LayDownPlan, solve


def add_parser(sub: Any, rule_options: argparse.ArgumentParser) -> None:
    """Register ``rules`` and its subcommands."""
    rules = sub.add_parser("rules", help=_("the phases, the rule options and the meld solver"),
                           description=_("The phases under the chosen rule options, and the "
                                         "meld solver."))
    rsub = rules.add_subparsers(dest="rules_command", metavar="{phases,options,solve}")
    rsub.required = True
    phases = rsub.add_parser("phases", parents=[rule_options],
                             help=_("list the phases played under the chosen options"))
    phases.set_defaults(func=cmd_phases)
    options = rsub.add_parser("options", help=_("list every rule option"))
    options.set_defaults(func=cmd_options)
    solve_p = rsub.add_parser(
        "solve", parents=[rule_options],
        help=_("the lay-down of a phase that puts the most cards down"),
        # TRANSLATORS: the JSON in braces is what the program reads: keep it as it is.
        description=_("Print the lay-down of a phase that puts the most cards down. With "
                      '--json, read one JSON object per line on stdin, {"phase": N, "hand": '
                      '["R7", ...], "options": {...}}, and write one JSON answer per line.'),
        epilog=_("example: p2p10 rules solve --phase 2 R7 B7 G7 R4 B5 Y6 W R2 R11 S"))
    solve_p.add_argument("--phase", type=int, help=_("the phase, 1..10"))
    solve_p.add_argument("--json", action="store_true",
                         help=_("answer in JSON; with no cards, read JSON lines on stdin"))
    # TRANSLATORS: the metavar of the cards to solve, each in notation (R7, W, S).
    solve_p.add_argument("cards", nargs="*", metavar=_("CARD"),
                         help=_("cards in notation: R7 B12 G1 Y9 W S"))
    solve_p.set_defaults(func=cmd_solve)


def cmd_options(args: argparse.Namespace) -> int:
    """Print every rule option with its meaning."""
    width = max(len(name) for name, _text in OPTION_HELP)
    for name, text in OPTION_HELP:
        print(f"  {name:<{width}}  {_(text)}")
    print("\n" + _("Give them with -o, e.g. -o skip=next -o goal=5 (or -o skip=next,goal=5)."))
    return 0


def cmd_phases(args: argparse.Namespace) -> int:
    """Print the phases played under the chosen rule options."""
    rules: RuleSet = args.rules
    print(_("Rules: {rules}").format(rules=rules.describe()))
    for index, phase in enumerate(rules.phase_list, 1):
        print(f"  {index:>2}. " + _("Phase {phase}: {description}").format(
            phase=f"{phase:>2}", description=describe_phase(phase)))
    if rules.hands:
        print(ngettext("Exactly {n} hand; everybody plays the same phase each hand and advances "
                       "every hand; lowest total wins.",
                       "Exactly {n} hands; everybody plays the same phase each hand and "
                       "advances every hand; lowest total wins.", rules.hands).format(n=rules.hands))
    elif rules.any_order:
        print(_("Lay down any phase of the list not yet made, one per hand."))
    if rules.goal:
        print(ngettext("The game ends after the hand in which somebody has made {n} phase.",
                       "The game ends after the hand in which somebody has made {n} phases.",
                       rules.goal).format(n=rules.goal))
    return 0


def plan_json(plan: LayDownPlan | None) -> dict[str, Any]:
    """The JSON answer for a solver result."""
    if plan is None:
        return {"makes": False, "melds": [], "down": 0}
    melds = []
    for meld in plan.melds:
        values: list[int | str] = (
            [COLOURS[v] for v in meld.values] if meld.kind == "color" else list(meld.values))
        melds.append({"kind": meld.kind, "cards": [card_text(c) for c in meld.cards],
                      "values": values})
    return {"makes": True, "melds": melds, "down": plan.down}


SHOWN_AT_MOST = 40  # characters of a refused value quoted back


def _field(request: Mapping[str, Any], key: str, what: str, fits: Callable[[Any], bool]) -> Any:
    """``request[key]`` if it is ``what`` (which ``fits`` checks), or a message naming the key,
    what it takes and, when it was given, the value as the line had it."""
    if key not in request:
        raise P2P10Error(f"missing {key!r}: give {what}")
    value = request[key]
    if not fits(value):
        shown = json.dumps(value)
        if len(shown) > SHOWN_AT_MOST:
            shown = shown[:SHOWN_AT_MOST - 3] + "..."
        raise P2P10Error(f"{key!r} must be {what}, not {shown}")
    return value


def _solve_request(request: object) -> dict[str, Any]:
    if not isinstance(request, Mapping):
        raise P2P10Error("each line must be a JSON object with 'phase' and 'hand'")
    unknown = set(request) - {"phase", "hand", "options"}
    if unknown:
        raise P2P10Error(f"unknown field(s): {', '.join(sorted(unknown))}")
    phase = _field(request, "phase", "a whole number from 1 to 10",
                   lambda v: type(v) is int and v in PHASES)
    hand = _field(request, "hand", 'a list of cards in notation, like ["R7", "W"]',
                  lambda v: isinstance(v, list) and all(isinstance(c, str) for c in v))
    options = None
    if request.get("options") is not None:
        options = _field(request, "options",
                         'an object like {"natural": "phase"} or a list like ["natural=phase"]',
                         lambda v: isinstance(v, Mapping | list))
    return plan_json(solve(parse_hand(hand), phase, _rules(options)))


# The rule sets already parsed from --json lines, by the options as written: a script sends the
# same few option sets on thousands of lines. Bounded, so a stream of ever new options costs
# only their parsing.
_PARSED: dict[tuple[object, ...], RuleSet] = {}
_PARSED_AT_MOST = 256
_SCALARS = (str, int, bool)


def _rules(options: Mapping[str, Any] | list[Any] | None) -> RuleSet:
    """``RuleSet.parse(options)``, from _PARSED when these options were parsed before."""
    if not options:
        return RuleSet.parse(options)
    # The key holds each value's type too: True and 1 are equal, but "true" and "1" are
    # different options. Only options that parsed are kept, so every error is raised afresh.
    key: tuple[object, ...]
    if isinstance(options, list):
        if not all(type(item) in _SCALARS for item in options):
            return RuleSet.parse(options)
        key = (list, *((type(item), item) for item in options))
    else:
        if not all(type(value) in _SCALARS for value in options.values()):
            return RuleSet.parse(options)
        key = (dict, *((type(name), name, type(value), value) for name, value in options.items()))
    rules = _PARSED.get(key)
    if rules is None:
        rules = RuleSet.parse(options)
        if len(_PARSED) < _PARSED_AT_MOST:
            _PARSED[key] = rules
    return rules


def answer_line(line: str) -> dict[str, Any]:
    """Answer one JSON request line; never raises."""
    try:
        request = json.loads(line)
    except ValueError as err:
        return {"error": f"not JSON: {err}"}
    try:
        return _solve_request(request)
    except P2P10Error as err:
        return {"error": str(err)}


def solve_stream(source: IO[str], sink: IO[str]) -> None:
    """Answer every line of ``source`` with one line on ``sink``."""
    for line in source:
        if not line.strip():
            sink.write(json.dumps({"error": "empty line"}) + "\n")
        else:
            sink.write(json.dumps(answer_line(line)) + "\n")
        sink.flush()


def print_plan(plan: LayDownPlan | None, phase: int, hand: tuple[int, ...]) -> None:
    """Print a lay-down for a person."""
    description = describe_phase(phase)
    if plan is None:
        print(_("Phase {phase} ({description}): this hand does not make it.").format(
            phase=phase, description=description))
        return
    print(ngettext("Phase {phase} ({description}): makes it, {n} card down",
                   "Phase {phase} ({description}): makes it, {n} cards down", plan.down).format(
        phase=phase, description=description, n=plan.down))
    for meld in plan.melds:
        shown = []
        for card, value in zip(meld.cards, meld.values, strict=True):
            text = card_text(card)
            if text == "W":
                text += f"({COLOURS[value] if meld.kind == 'color' else value})"
            shown.append(text)
        print(f"  {label_text(meld.kind, meld.label, len(meld.cards)):<12} {' '.join(shown)}")
    rest = list(hand)
    for card in plan.cards:
        rest.remove(card)
    if rest:
        left = sum(map(points, rest))
        print(ngettext("Left in hand: {cards} ({n} point)", "Left in hand: {cards} ({n} points)",
                       left).format(cards=cards_text(rest), n=left))
    else:
        print(_("Left in hand: nothing"))


def cmd_solve(args: argparse.Namespace) -> int:
    """``p2p10 rules solve``."""
    if args.json and not args.cards:
        if args.phase is not None:
            print("p2p10: " + _("--phase is read from each JSON line; leave it out with --json"),
                  file=sys.stderr)
            return 2
        solve_stream(sys.stdin, sys.stdout)
        return 0
    if args.phase is None or args.phase not in PHASES:
        print("p2p10: " + _("give --phase N (1 to 10) and the cards, e.g. "
                            "p2p10 rules solve --phase 2 R7 B7 G7 R4 B5 Y6 W"), file=sys.stderr)
        return 2
    if not args.cards:
        print("p2p10: " + _("give the cards of the hand, e.g. R7 B7 G7 R4 B5 Y6 W"),
              file=sys.stderr)
        return 2
    hand = parse_hand(args.cards)
    plan = solve(hand, args.phase, args.rules)
    if args.json:
        print(json.dumps(plan_json(plan)))
    else:
        print_plan(plan, args.phase, hand)
    return 0
