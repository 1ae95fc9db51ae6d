"""The terminal table: the full-screen game of ``p2p10 play`` and the viewer of ``p2p10 replay``.

Both draw the same table with prompt_toolkit from a :class:`~p2p10.engine.GameState`: the other
seats with their phase, score, cards in hand and melds; the draw and discard piles; one seat's
hand; and a move log in plain words. The screen holds no rules. Whether a move is allowed, and
why not, is the engine's answer (a move is tried on the seat's view before it is played, so a
refused one changes nothing); the best lay-down is the solver's; what fits a meld is
:func:`~p2p10.melds.hit_ends`'s.

:class:`TableApp` plays a :class:`~protocol.local.LocalTable` (the user at seat 0 against bot
peers); :class:`ReplayApp` steps through a saved log, as one seat saw it or as a spectator.
Both can be driven without a terminal (prompt_toolkit's pipe input and dummy output), which is
how the tests play whole games by keystrokes.
"""

from __future__ import annotations

import asyncio
import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial
from itertools import zip_longest
from typing import TYPE_CHECKING

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import get_app
from prompt_toolkit.formatted_text import OneStyleAndTextTuple, StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import DynamicContainer, HSplit, Layout, VSplit, Window
from prompt_toolkit.layout.containers import Container
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType
from prompt_toolkit.styles import Style

from p2p10.bots import POLICIES, missing
from p2p10.cards import (
    COLOURS,
    SKIP_FIRST,
    WILD_FIRST,
    card_text,
    colour,
    is_natural,
    is_skip,
    is_wild,
    number,
    sort_key,
)
from p2p10.engine import GameState, HandResult
from p2p10.errors import IllegalMove, ProtocolViolation
from p2p10.events import Discard, DrawStock, Hit, LayDown, SeatEvent, TakeDiscard
from p2p10.log import BadEntry, NotALog, parse_entry
from p2p10.melds import End, Meld, hit_ends, label_text
from p2p10.moves import plan_to_event
from p2p10.peer import ChatLine
from p2p10.replay import deferred_violation, revealed_secrets
from p2p10.rules import OPTION_HELP, RuleSet, describe_phase
from p2p10.solver import LayDownPlan, solve
from p2p10.table import TableState, fold
from p2p10.wire import MAX_CHAT
from protocol.local import LocalTable
from protocol.storage import evidence_path

if TYPE_CHECKING:  # the LAN stack (aiohttp, zeroconf) loads only for a LAN game
    from protocol.lan import LanSeat


Line = list[OneStyleAndTextTuple]
Handler = Callable[[MouseEvent], object]

STYLE = Style.from_dict({
    "title": "bold",
    "myturn": "bold reverse",
    "dim": "fg:ansibrightblack",
    "warn": "fg:ansiyellow bold",
    "error": "fg:ansired bold",
    "info": "fg:ansigreen",
    "chip": "reverse",
    "key": "bold reverse",
    "key.off": "fg:ansibrightblack",
    "choice": "bold reverse",
    "meld": "bold underline",
    "header": "bold underline",
    "card.r": "fg:ansired bold",
    "card.b": "fg:ansibrightblue bold",
    "card.g": "fg:ansigreen bold",
    "card.y": "fg:ansiyellow bold",
    "card.w": "fg:ansimagenta bold",
    "card.s": "fg:ansicyan bold",
    "fit": "underline",
    "cursor": "reverse",
})

# Card notation in free text (the log pane), to colour it: R7, B12, W, S as whole words.
CARD_WORD = re.compile(r"^[RBGY](?:1[0-2]|[1-9])[,.:;]?$|^[WS][,.:;]?$")
VIRTUAL_WILDS = tuple(range(WILD_FIRST, SKIP_FIRST))
BOX_TOP, BOX_SIDE, BOX_BOTTOM = ("┌───┐", "│", "└───┘")
HEAVY_TOP, HEAVY_SIDE, HEAVY_BOTTOM = ("┏━━━┓", "┃", "┗━━━┛")


TURN, DOWN, RULE, BAR, CURSOR, BACK = "▶", "✓", "─", "│", "▲", "▒"
# With --ascii every character drawn goes through this table (cards are framed only without it).
ASCII = str.maketrans({TURN: ">", DOWN: "+", RULE: "-", BAR: "|", CURSOR: "^", BACK: "#", "█": "#",
                       "░": ".", "←": "<", "→": ">", "↑": "^", "↓": "v"})


def card_class(card: int) -> str:
    """The style class of a card: its colour, or Wild, or Skip."""
    if is_wild(card):
        return "class:card.w"
    if is_skip(card):
        return "class:card.s"
    return f"class:card.{COLOURS[colour(card)].lower()}"


def colour_key(card: int) -> tuple[int, int, int]:
    """Order cards by colour, then number; Wilds then Skips last."""
    if not is_natural(card):
        return (4 if is_wild(card) else 5, 0, card)
    return (colour(card), number(card), card)


def click(action: Callable[[], object]) -> Handler:
    """A mouse handler that runs ``action`` when a button is released over the text."""
    def handler(event: MouseEvent) -> object:
        if event.event_type == MouseEventType.MOUSE_UP:
            action()
            return None
        return NotImplemented
    return handler


def spoken_name(name: str) -> str:
    """A seat's name in sentences: a bot's level left out ("Bot 2 (normal)" is "Bot 2")."""
    base, _, level = name.rpartition(" (")
    return base if base and level[:-1] in POLICIES and level.endswith(")") else name


def width(line: Line) -> int:
    """How many columns a line of fragments takes."""
    return sum(len(fragment[1]) for fragment in line)


def clip(line: Line, limit: int) -> Line:
    """The line cut to ``limit`` columns (mouse handlers kept)."""
    out: Line = []
    room = limit
    for fragment in line:
        if room <= 0:
            break
        text = fragment[1]
        if len(text) > room:
            fragment = tagged([(fragment[0], text[:room])], *fragment[2:])[0]
        out.append(fragment)
        room -= len(fragment[1])
    return out


def tagged(line: Line, handler: Handler | None = None) -> Line:
    """The line with ``handler`` on every fragment (as it is, without one)."""
    if handler is None:
        return line
    return [(f[0], f[1], handler) for f in line]


def join(lines: Sequence[Line]) -> StyleAndTextTuples:
    """Lines of fragments as one formatted text."""
    out: StyleAndTextTuples = []
    for index, line in enumerate(lines):
        if index:
            out.append(("", "\n"))
        out.extend(line)
    return out


def plain(text: str, style: str = "") -> Line:
    """A line of one style."""
    return [(style, text)]


def coloured_words(text: str, style: str = "") -> Line:
    """Free text with every card in it coloured."""
    out: Line = []
    for index, word in enumerate(text.split(" ")):
        if index:
            out.append((style, " "))
        core = word.rstrip(",.:;")
        if CARD_WORD.match(word):
            face = core[0]
            out.append((f"class:card.{face.lower()}", core))
            if len(core) < len(word):
                out.append((style, word[len(core):]))
        else:
            out.append((style, word))
    return out


# ---------------------------------------------------------------- what the rules say, asked


@lru_cache(maxsize=512)
def phase_fit(cards: tuple[int, ...], phases: tuple[int, ...], rules: RuleSet) -> tuple[int | None, int,
                                                                                         frozenset[int]]:
    """(phase, cards short, the cards that fit it) for the phase of ``phases`` the hand is
    nearest to. The fitting cards are those of the solver's best lay-down with the missing
    cards filled by wilds that are not in the hand: exactly what the hand already has of it."""
    best: tuple[int | None, int, frozenset[int]] = (None, 99, frozenset())
    for phase in phases:
        short = missing(cards, phase, rules)
        if short >= best[1]:
            continue
        extra = tuple(w for w in VIRTUAL_WILDS if w not in cards)[:short]
        if len(extra) < short:
            continue
        plan = solve(cards + extra, phase, rules)
        if plan is not None:
            best = (phase, short, frozenset(plan.cards) - frozenset(extra))
    return best


def lay_down_choices(state: GameState, seat: int, cards: Sequence[int]) -> list[LayDownPlan]:
    """Lay-downs of ``cards`` for the phases ``seat`` may lay down, the solver's best first
    (most cards down), then the solver's best without each of its cards in turn, so a player
    can keep a card back or choose another arrangement."""
    plans: list[LayDownPlan] = []
    seen: set[tuple[object, ...]] = set()

    def add(plan: LayDownPlan) -> None:
        # Two copies of a face make the same arrangement for the player.
        key = (plan.phase, *((m.kind, m.label, tuple(sorted(map(card_text, m.cards)))) for m in plan.melds))
        if key not in seen:
            seen.add(key)
            plans.append(plan)

    for phase in state.allowed_phases(seat):
        best = solve(cards, phase, state.rules)
        if best is None:
            continue
        add(best)
        for card in dict.fromkeys(best.cards):
            alternative = solve([c for c in cards if c != card], phase, state.rules)
            if alternative is not None:
                add(alternative)
    return sorted(plans, key=lambda p: -p.down)  # stable: the solver's best stays first


def plan_hits(state: GameState, seat: int, meld_id: int, slots: Sequence[int],
              end: End | None = None) -> list[Hit]:
    """The hits that put every card at ``slots`` onto meld ``meld_id``, in an order that works
    (a run grows one value at a time, so numbered cards go first and a wild fills the gap
    towards a card that waits), each checked by the engine. Raises :class:`IllegalMove` with
    the engine's reason when a card does not fit. ``end`` places a lone wild on a run."""
    pending = sorted(slots, key=lambda s: not is_natural(state.known[s]))
    hits: list[Hit] = []
    while pending:
        meld = state.melds[meld_id]
        slot = next((s for s in pending if hit_ends(meld, state.known[s])), pending[0])
        card = state.known[slot]
        ends = hit_ends(meld, card)
        side: End | None = ends[0] if len(ends) == 1 else None
        if len(ends) == 2:
            waiting = [number(state.known[s]) for s in pending if is_natural(state.known[s])]
            side = end or ("low" if any(n < meld.label for n in waiting) else "high")
        move = Hit(seat, slot, card, meld_id, side)
        state = state.apply(move)  # the engine's reason, when it does not fit
        hits.append(move)
        pending.remove(slot)
    return hits


# ------------------------------------------------------------------------- the move log


@dataclass(frozen=True)
class HandSummary:
    """One hand's end, for the summary screen: per seat the phase, whether it was made, the
    cards left and their points, and the totals after it."""

    number: int
    result: HandResult
    left: tuple[tuple[int, ...] | None, ...]
    totals: tuple[int, ...]
    winner: int | None
    tie: tuple[int, ...]


@dataclass
class Narrator:
    """The move log in plain words, from successive views of the game.

    ``update`` is called with each new view; it narrates what happened since the last one from
    the hand's public moves (``GameState.history``), the reshuffles and the score sheet. ``me``
    is the seat whose drawn cards are named; ``second_person`` says "You" for it.
    """

    names: Sequence[str]
    me: int | None
    second_person: bool = False
    lines: list[str] = field(default_factory=list)
    summaries: list[HandSummary] = field(default_factory=list)
    _hand: int = -1
    _moves: int = 0
    _pools: int = 0
    _sheet: int = 0
    _out: bool = False

    def who(self, seat: int) -> str:
        """A seat as the subject of a sentence."""
        return "You" if self.second_person and seat == self.me else self.names[seat]

    def whom(self, seat: int) -> str:
        """A seat as the object of a sentence."""
        return "you" if self.second_person and seat == self.me else self.names[seat]

    def update(self, state: GameState) -> HandSummary | None:
        """Narrate what is new in ``state``; returns the hand's summary when a hand ended."""
        if state.hand_no != self._hand and state.stage not in ("deal", "over"):
            self._start(state)
        self._narrate_moves(state)
        if len(state.pools) > self._pools:
            self._pools = len(state.pools)
            self.lines.append("The draw pile ran out: the discard pile was reshuffled.")
        if state.went_out is not None and not self._out:
            self._out = True
            self.lines.append(f"{self.who(state.went_out)} went out!")
        if len(state.sheet) > self._sheet:
            self._sheet = len(state.sheet)
            return self._scored(state)
        return None

    def _start(self, state: GameState) -> None:
        self._hand, self._moves, self._pools, self._out = state.hand_no, 0, 0, False
        top = state.top_discard()
        turned = f"{card_text(top)} turned up" if top is not None else "dealt"
        tie = " (tie replay)" if state.tie is not None else ""
        dealer = self.who(state.dealer)
        deals = "deal" if dealer == "You" else "deals"
        self.lines.append(f"{RULE * 2} Hand {state.hand_no + 1}{tie}: {dealer} {deals}, {turned}")
        if top is not None and is_skip(top):
            order = state.seats_in_hand
            first = next((s for s in order if s > state.dealer), order[0])  # left of the dealer
            verb = "lose" if self.who(first) == "You" else "loses"
            self.lines.append(f"The Skip turned up: {self.who(first)} {verb} the first turn.")
        if self.me is not None and self.me in state.seats_in_hand:
            phase = state.phase_of(self.me)
            if phase is not None:
                whose = "Your" if self.second_person else f"{self.names[self.me]}'s"
                self.lines.append(f"{whose} phase: {phase} ({describe_phase(phase)}).")

    def _narrate_moves(self, state: GameState) -> None:
        if state.hand_no != self._hand:
            return
        history = state.history
        while self._moves < len(history):
            move = history[self._moves]
            who = self.who(move.seat)
            if move.action == "draw":
                drawn = None
                if move.seat == self.me and self._moves == len(history) - 1 and state.stage == "play":
                    drawn = state.card_at(state.hands[move.seat][-1])
                    if drawn is None:
                        return  # the seat's card opens once the other seats' tokens are in
                line = f"{who} drew {card_text(drawn)}" if drawn is not None else f"{who} drew a card"
                self.lines.append(f"{line} from the draw pile.")
            elif move.action == "take":
                assert move.card is not None
                self.lines.append(f"{who} took {card_text(move.card)} from the discard pile.")
            elif move.action == "lay":
                melds = "; ".join(m.describe() for m in state.melds if m.owner == move.seat)
                self.lines.append(f"{who} laid down phase {move.phase}: {melds}.")
            elif move.action == "hit":
                assert move.card is not None
                meld = next((m for m in state.melds if move.card in m.cards), None)
                if meld is None:
                    self.lines.append(f"{who} hit {card_text(move.card)}.")
                else:
                    owner = "own" if meld.owner == move.seat else f"{self.whom(meld.owner)}'s"
                    owner = "your" if owner == "you's" else owner
                    name = label_text(meld.kind, meld.label, len(meld.cards))
                    self.lines.append(f"{who} hit {card_text(move.card)} on {owner} {name}.")
            else:
                assert move.card is not None
                if move.target is not None:
                    self.lines.append(f"{who} skipped {self.whom(move.target)}.")
                elif is_skip(move.card) and state.went_out != move.seat:
                    self.lines.append(f"{who} discarded a Skip, with nobody to skip.")
                else:
                    self.lines.append(f"{who} discarded {card_text(move.card)}.")
            self._moves += 1

    def _scored(self, state: GameState) -> HandSummary:
        result = state.sheet[-1]
        # The table still holds the ended hand until the next deal, every card revealed.
        left = tuple(tuple(state.known[s] for s in state.hands[seat] if s in state.known)
                     if result.points[seat] is not None else None for seat in range(state.players))
        summary = HandSummary(len(state.sheet), result, left, state.totals, state.winner,
                              tuple(sorted(state.tie)) if state.tie is not None else ())
        points = ", ".join(f"{self.who(s)} {p}" for s, p in enumerate(result.points) if p is not None)
        went = self.who(result.went_out)
        self.lines.append(f"Hand {summary.number} over: {went} went out. Points: {points}.")
        if state.winner is not None:
            verb = "win" if self.who(state.winner) == "You" else "wins"
            self.lines.append(f"Game over: {self.who(state.winner)} {verb} with "
                              f"{state.totals[state.winner]} points.")
        elif state.tie is not None:
            self.lines.append("A tie: " + ", ".join(self.who(s) for s in sorted(state.tie))
                              + " replay their last phase.")
        self.summaries.append(summary)
        return summary


# ------------------------------------------------------------------------------ prompts


@dataclass
class Choice:
    """One answer to a prompt: the key that picks it, its words, and what it does."""

    key: str
    label: str
    action: Callable[[], object]
    cards: frozenset[int] = frozenset()  # slots to raise in the hand while it is the current one


@dataclass
class Prompt:
    """A question in the status line: a key picks a choice; arrows move, Enter picks the
    current one, ``cycle`` also moves on; Esc or any other key cancels."""

    question: str
    choices: list[Choice]
    index: int = 0
    cycle: str = ""
    other: Callable[[str], bool] | None = None  # a key that is no choice; True if it handled it

    @property
    def current(self) -> Choice:
        """The choice Enter would pick."""
        return self.choices[self.index]


# ---------------------------------------------------------------------------- the board


class Board:
    """What the play screen and the replay viewer share: drawing a table from a game state,
    the side screens (score sheet, rules, help, hand summary) and the key dispatch."""

    help_text: tuple[str, ...] = ()

    def __init__(self, names: Sequence[str], rules: RuleSet, me: int | None, ascii_only: bool,
                 second_person: bool = False) -> None:
        self.names = list(names)
        self.rules = rules
        self.me = me
        self.ascii = ascii_only
        self.screen = "table"  # or help, sheet, rules, hand, over
        self.prompt: Prompt | None = None
        self.status: Line = []
        self.by_colour = False
        self.cursor = 0
        self.selected: set[int] = set()
        self.spoken = [spoken_name(n) for n in self.names]
        self.narrator = Narrator(self.spoken, me, second_person)
        self.summary: HandSummary | None = None
        self.scroll = 0  # the first line shown of a side screen taller than the terminal
        self._panel_rows = 0
        self._left = FormattedTextControl(lambda: self.drawn(self._left_text()))
        self._log = FormattedTextControl(lambda: self.drawn(self._log_text()))
        self._panel = FormattedTextControl(lambda: self.drawn(self._panel_text()))
        self._status = FormattedTextControl(lambda: self.drawn(self._status_text()))
        self._footer = FormattedTextControl(lambda: self.drawn(self._footer_text()))
        table = VSplit([Window(self._left, wrap_lines=False),
                        Window(width=1, char="|" if ascii_only else BAR, style="class:dim"),
                        Window(self._log, width=lambda: self._log_width(), wrap_lines=False)])
        lone = Window(self._left, wrap_lines=False)
        panel = Window(self._panel, wrap_lines=False)

        def body() -> Container:
            if self.screen != "table":
                return panel
            return table if self._log_width() else lone

        root = HSplit([DynamicContainer(body), Window(self._status, height=1),
                       Window(self._footer, height=lambda: len(self.footer_lines()))])
        keys = KeyBindings()
        keys.add(Keys.Any)(self._key)  # every key, the arrows and Ctrl-C too: press() sorts them out
        self.app: Application[None] = Application(
            layout=Layout(root), key_bindings=keys, style=STYLE, full_screen=True,
            mouse_support=True, min_redraw_interval=0.03)
        # Esc alone must not wait half a second for the rest of an escape sequence.
        self.app.ttimeoutlen = 0.05

    def drawn(self, text: StyleAndTextTuples) -> StyleAndTextTuples:
        """Text as it goes to the terminal: in ASCII with ``--ascii``."""
        if not self.ascii:
            return text
        return [(f[0], f[1].translate(ASCII), *f[2:]) for f in text]

    def screen_text(self) -> str:
        """What the screen shows, as plain text: the table (or side screen), the move log, the
        status line and the keys."""
        parts = [self._left_text(), self._log_text()] if self.screen == "table" else [self._panel_text()]
        parts += [self._status_text(), self._footer_text()]
        return "\n".join("".join(fragment[1] for fragment in self.drawn(part)) for part in parts)

    # ----------------------------------------------------------------- to be provided

    def state(self) -> GameState | None:
        """The game as this screen shows it."""
        raise NotImplementedError

    def table_keys(self, key: str) -> None:
        """Handle a key on the table screen."""
        raise NotImplementedError

    def footer(self) -> list[Line]:
        """The two lines of keys for the table screen."""
        raise NotImplementedError

    def title(self, state: GameState | None) -> Line:
        """The first line of the table screen."""
        raise NotImplementedError

    def piles_note(self) -> Line | None:
        """Something to show instead of the piles (dealing progress), if any."""
        return None

    def hand_slots(self, state: GameState) -> list[int]:
        """The slots of the shown hand, in the chosen order (the cursor kept on one of them)."""
        if self.me is None or state.stage == "deal":
            return []
        known = [s for s in state.hands[self.me] if s in state.known]
        key = colour_key if self.by_colour else sort_key
        slots = sorted(known, key=lambda s: key(state.known[s]))
        self.cursor = max(0, min(self.cursor, len(slots) - 1))
        return slots

    def fits(self, state: GameState) -> tuple[frozenset[int], str]:
        """The cards to highlight in the shown hand (as slots), and a line that says why."""
        me = self.me
        if me is None or state.stage not in ("draw", "play") or me not in state.seats_in_hand:
            return frozenset(), ""
        slots = [s for s in state.hands[me] if s in state.known]
        if state.down[me] is not None:
            # moves.hit_moves answers only on the seat's own turn; this shows the fits all along.
            melds = [m for m in state.melds if not state.rules.hit_own or m.owner == me]
            hits = frozenset(s for s in slots if any(hit_ends(m, state.known[s]) for m in melds))
            return hits, ("Highlighted: cards that fit a meld (h hits them)." if hits
                          else "Phase made; no card of yours fits a meld now.")
        phase, short, cards = phase_fit(tuple(state.known[s] for s in slots),
                                        state.allowed_phases(me), state.rules)
        if phase is None:
            return frozenset(), "This hand is far from any phase you may lay down."
        marked = frozenset(s for s in slots if state.known[s] in cards)
        if short == 0:
            return marked, f"You hold phase {phase}: l lays it down."
        return marked, f"Highlighted: your phase {phase} so far, {short} card{'s' * (short > 1)} short."

    # ------------------------------------------------------------------- measuring

    def size(self) -> tuple[int, int]:
        """(columns, rows) of the terminal."""
        size = get_app().output.get_size()
        return size.columns, size.rows

    def _log_width(self) -> int:
        columns = self.size()[0]
        if columns >= 110:
            return 36
        return 24 if columns >= 72 else 0

    def left_width(self) -> int:
        """Columns of the table pane."""
        log = self._log_width()
        return self.size()[0] - (log + 1 if log else 0)

    # ------------------------------------------------------------------- drawing

    def card(self, card: int, extra: str = "") -> OneStyleAndTextTuple:
        """A card in notation, coloured."""
        return (f"{card_class(card)} {extra}".strip(), card_text(card))

    def cards(self, cards: Sequence[int]) -> Line:
        """Cards in notation separated by spaces."""
        out: Line = []
        for index, card in enumerate(cards):
            if index:
                out.append(("", " "))
            out.append(self.card(card))
        return out

    def seat_line(self, state: GameState, seat: int) -> Line:
        """A seat's name, phase chip, cards in hand, score and Skips waiting for it."""
        playing = state.stage in ("draw", "play") and state.turn == seat
        line: Line = [("class:warn", f"{TURN} " if playing else "  "),
                      ("class:title" if playing else "", self.names[seat])]
        phase = state.phase_of(seat) if seat in state.seats_in_hand or state.stage == "deal" else None
        if state.stage != "over" and phase is not None:
            down = DOWN if state.down[seat] is not None else ""
            line += [("", "  "), ("class:chip", f" P{phase}{down} ")]
        if seat in state.seats_in_hand and state.stage in ("draw", "play", "reveal"):
            count = len(state.hands[seat])
            line.append(("", f"  {count} card{'s' * (count != 1)}"))
        line.append(("", f"  {state.totals[seat]} pts"))
        if state.pending_skips[seat]:
            line.append(("class:warn", "  skipped next" if state.pending_skips[seat] == 1
                         else f"  skipped {state.pending_skips[seat]} turns"))
        return line

    def meld_lines(self, state: GameState, seat: int, limit: int) -> list[Line]:
        """A seat's melds on the table, lettered A, B, ... (the letter a hit chooses), wrapped."""
        if state.stage not in ("draw", "play", "reveal"):
            return []
        lines: list[Line] = []
        line: Line = [("", "    ")]
        for meld in state.melds:
            if meld.owner != seat:
                continue
            piece = self.meld_piece(meld)
            if width(line) > 4 and width(line) + 2 + width(piece) > limit:
                lines.append(line)
                line = [("", "    ")]
            elif width(line) > 4:
                line.append(("", "  "))
            line += piece
        if width(line) > 4:
            lines.append(line)
        return [clip(x, limit) for x in lines]

    def meld_piece(self, meld: Meld) -> Line:
        """One meld: its letter, its name and its cards."""
        handler = self.meld_clicked(meld.id)
        name = label_text(meld.kind, meld.label, len(meld.cards))
        piece: Line = [("class:meld", chr(ord("A") + meld.id)), ("class:dim", f" {name} ")]
        piece += self.cards(meld.cards)
        return tagged(piece, handler)

    def meld_clicked(self, meld_id: int) -> Handler | None:
        """What a click on a meld does (nothing here)."""
        return None

    def piles_line(self, state: GameState) -> Line:
        """The draw pile's count and the discard pile's top card."""
        note = self.piles_note()
        if note is not None:
            return note
        if state.stage not in ("draw", "play", "reveal"):
            return plain("")
        line: Line = [("", "  Draw pile "), ("class:dim", BACK * 2), ("", f" {len(state.stock)}"),
                      ("", "     Discard pile ")]
        top = state.top_discard()
        if top is None:
            line.append(("class:dim", "empty"))
        else:
            line.append(self.card(top, "class:chip"))
            if is_skip(top):
                line.append(("class:dim", " (cannot be taken)"))
        return line

    def hand_lines(self, state: GameState, limit: int) -> list[Line]:
        """The shown hand: cards in frames (or in text), the selected ones raised a row, the
        highlighted ones heavier (underlined), the cursor marked under its card."""
        slots = self.hand_slots(state)
        if not slots:
            return []
        fits, _ = self.fits(state)
        raised = self.raised()
        framed = not self.ascii and 5 * len(slots) <= limit
        cell = 5 if framed else 4
        rows: list[Line] = [[] for _ in range(4 if framed else 2)]
        marks: Line = []
        for index, slot in enumerate(slots):
            card = state.known[slot]
            fit = slot in fits
            up = slot in raised
            text = card_text(card)
            here = index == self.cursor
            face = card_class(card) + (" class:fit" if fit else "") + (" class:cursor" if here else "")
            handler = self.card_clicked(index)
            if framed:
                top, side, bottom = (HEAVY_TOP, HEAVY_SIDE, HEAVY_BOTTOM) if fit else (BOX_TOP, BOX_SIDE,
                                                                                      BOX_BOTTOM)
                frame = card_class(card)
                pieces: list[Line] = [[(frame, top)], [(frame, side), (face, f"{text:^3}"), (frame, side)],
                                      [(frame, bottom)]]
                first = 0 if up else 1
                for row in range(4):
                    blank: Line = [("", " " * cell)]
                    part = pieces[row - first] if first <= row < first + 3 else blank
                    rows[row] += tagged(part, handler)
                marks.append(("class:warn", f"{CURSOR if here else '':^{cell}}"))
            else:
                for row in range(2):
                    shown = (row == 0) == up
                    rows[row] += tagged([(face if shown else "", f"{text if shown else '':<3}"), ("", " ")],
                                        handler)
                mark = (CURSOR if here else " ") + ("*" if fit and self.ascii else " ")
                marks.append(("class:warn", f"{mark:<{cell}}"))
        return [*rows, marks]

    def raised(self) -> set[int]:
        """The hand's slots drawn raised: the selection, or the lay-down a prompt previews."""
        if self.prompt is not None and self.prompt.current.cards:
            return set(self.prompt.current.cards)
        return self.selected

    def card_clicked(self, index: int) -> Handler | None:
        """What a click on the hand's card at ``index`` does (nothing here)."""
        return None

    def _left_text(self) -> StyleAndTextTuples:
        state = self.state()
        limit = self.left_width()
        rows = self.body_rows()
        lines = [self.title(state)]
        if state is None:
            return join([*lines, plain(""), plain("  Opening the table...")])
        others = [s for s in range(state.players) if s != self.me]
        blocks = [(self.seat_line(state, s), self.meld_lines(state, s, limit)) for s in others]
        mine: list[Line] = []
        if self.me is not None:
            mine.append(plain(RULE * limit, "class:dim"))
            you = self.seat_line(state, self.me)
            phase = state.phase_of(self.me) if state.stage != "over" else None
            if phase is not None:
                you.append(("class:dim", f"  {describe_phase(phase)}"))
            mine.append(you)
            mine += self.meld_lines(state, self.me, limit)
            hand = self.hand_lines(state, limit)
            mine += hand
            if hand:
                mine.append(plain(self.fits(state)[1], "class:dim"))
            elif state.stage == "deal":
                mine.append(plain("  The cards are being shuffled and dealt...", "class:dim"))
        room = max(rows - (1 + len(others) + 1 + len(mine)), 0)  # title, seats, piles, own part
        # Melds first lose their wrapped lines, then whole meld lines, so every seat stays.
        if sum(len(m) for _, m in blocks) > room:
            blocks = [(s, m[:1]) for s, m in blocks]
        if sum(len(m) for _, m in blocks) > room:
            keep = room
            trimmed = []
            for seat_line, melds in blocks:
                trimmed.append((seat_line, melds[:keep]))
                keep -= len(melds[:keep])
            blocks = trimmed
        for seat_line, melds in blocks:
            lines.append(seat_line)
            lines += melds
        if len(lines) + 2 + len(mine) <= rows:  # a blank line before the piles, if it fits
            lines.append(plain(""))
        lines.append(self.piles_line(state))
        lines += mine
        return join([clip(line, limit) for line in lines])

    def _log_text(self) -> StyleAndTextTuples:
        limit = self._log_width() - 1
        rows = self.body_rows() - 1
        if limit <= 0 or rows <= 0:  # no room for the log pane
            return []
        wrapped: list[Line] = []
        for text in self.log_lines():
            style = "class:dim" if text.startswith(RULE) else ""
            for part in textwrap.wrap(text, limit, subsequent_indent=" ") or [""]:
                wrapped.append(coloured_words(part, style))
        return join([[("class:header", " Moves")], *wrapped[-rows:]])

    def log_lines(self) -> list[str]:
        """The move log's lines so far."""
        return self.narrator.lines

    # ----------------------------------------------------------------- side screens

    def _panel_text(self) -> StyleAndTextTuples:
        state = self.state()
        limit = self.size()[0]
        if self.screen == "help":
            lines = [plain(" Help", "class:header")]
            lines += [coloured_words(text) for text in self.help_text]
        elif self.screen == "rules":
            lines = self.rules_lines()
        elif self.screen == "hand" and self.summary is not None:
            lines = self.summary_lines(self.summary)
        elif self.screen == "over" and state is not None:
            lines = self.over_lines(state)
        else:
            lines = self.sheet_lines(state) if state is not None else []
        self._panel_rows = len(lines)
        rows = self.body_rows()
        self.scroll = max(0, min(self.scroll, len(lines) - rows))
        return join([clip(line, limit) for line in lines[self.scroll:self.scroll + rows]])

    def short_names(self, room: int) -> list[str]:
        """Names cut to ``room`` columns, the bot level dropped first."""
        out = []
        for name in self.names:
            if len(name) > room and name.endswith(")") and " (" in name:
                name = name[:name.rindex(" (")]
            out.append(name[:room])
        return out

    def sheet_lines(self, state: GameState) -> list[Line]:
        """The score sheet: a row per hand (points, phase, * when made) and the totals."""
        players = state.players
        room = max(8, min(16, (self.size()[0] - 8) // players - 1))
        names = self.short_names(room)
        lines = [plain(" Score sheet", "class:header"), plain(""),
                 plain(" Hand   " + "".join(f"{n:>{room}} " for n in names), "class:title")]
        for index, row in enumerate(state.sheet):
            cells = []
            for seat in range(players):
                points, phase = row.points[seat], row.phase[seat]
                mark = DOWN if row.made[seat] else " "
                cells.append("-" if points is None else f"{points}  P{phase}{mark}")
            label = f"{index + 1}{' tie' if row.tie else ''}"
            lines.append(plain(f" {label:<6} " + "".join(f"{c:>{room}} " for c in cells)))
        lines.append(plain(" Total  " + "".join(f"{t:>{room}} " for t in state.totals), "class:title"))
        lines.append(plain(" Made   " + "".join(f"{len(m):>{room}} " for m in state.made)))
        lines += [plain(""), plain(f" (P2{DOWN}: phase 2 made that hand. Points are penalties: "
                                   "the lowest total wins.)", "class:dim")]
        return lines

    def rules_lines(self) -> list[Line]:
        """The rules in force: the options, the phases played and how the game ends."""
        rules = self.rules
        active = {o.split("=")[0]: o for o in rules.options()}
        lines = [plain(" Rules", "class:header"), plain(""),
                 plain(f" In force: {rules.describe()}", "class:title"), plain("")]
        room = max(self.size()[0] - 22, 20)
        for name, text in OPTION_HELP:
            on = active.get(name.split("=")[0])
            for index, part in enumerate(textwrap.wrap(text, room)):
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

    def summary_lines(self, summary: HandSummary) -> list[Line]:
        """One hand's end: who went out, and per seat the phase, cards left, points, total."""
        result = summary.result
        room = max(len(n) for n in self.short_names(16))
        names = self.short_names(room)
        went = self.narrator.who(result.went_out)
        lines = [plain(f" Hand {summary.number}{' (tie replay)' if result.tie else ''} is over: "
                       f"{went} went out.", "class:header"), plain(""),
                 plain(f" {'':<{room}}  {'phase':<12} {'points':>6} {'total':>6}  cards left", "class:title")]
        for seat in range(len(self.names)):
            points = result.points[seat]
            if points is None:
                continue
            phase = result.phase[seat]
            made = f"{phase} made {DOWN}" if result.made[seat] else f"{phase} not made"
            line = plain(f" {names[seat]:<{room}}  {made:<12} {points:>6} {summary.totals[seat]:>6}  ")
            line += self.cards(sorted(summary.left[seat] or (), key=sort_key))
            lines.append(line)
        if summary.tie:
            lines += [plain(""), plain(" A tie: " + ", ".join(self.spoken[s] for s in summary.tie)
                                       + " replay their last phase; the first out wins.")]
        return lines

    def over_lines(self, state: GameState) -> list[Line]:
        """The end of the game: the winner and the score sheet."""
        if state.winner is None:
            lines = [plain(" The game stopped before its end.", "class:header")]
        else:
            who = self.narrator.who(state.winner)
            verb = "win" if who == "You" else "wins"
            total = state.totals[state.winner]
            lines = [plain(f" Game over: {who} {verb} with {total} points!", "class:header")]
        lines.append(plain(""))
        if self.narrator.summaries:
            lines += self.summary_lines(self.narrator.summaries[-1])[2:]
            lines.append(plain(""))
        lines += self.sheet_lines(state)[2:]
        return lines

    # --------------------------------------------------------------- status, footer

    def say(self, text: str, style: str = "class:info") -> None:
        """Show a message in the status line."""
        self.status = coloured_words(text, style)

    def refuse(self, text: str) -> None:
        """Show why an action is not allowed."""
        self.say(text[:1].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else "."), "class:error")

    def _status_text(self) -> StyleAndTextTuples:
        prompt = self.prompt
        columns = self.size()[0]
        if prompt is None:
            status = self.status
            if not status and not self._log_width() and self.screen == "table" and self.log_lines():
                status = coloured_words(self.log_lines()[-1], "class:dim")  # no room for the log pane
            return clip([("", " "), *status], columns)
        line: Line = [("class:warn", f" {prompt.question} ")]
        for index, choice in enumerate(prompt.choices):
            style = "class:choice" if index == prompt.index else ""
            line += tagged([("class:key", choice.key), (style, f" {choice.label}")],
                           click(partial(self._pick, index)))
            line.append(("", "  "))
        if width(line) > columns:  # too many to show: the current one, and where it stands
            choice = prompt.current
            place = f"({prompt.index + 1} of {len(prompt.choices)}) "
            line = [("class:warn", f" {prompt.question} "), ("", place),
                    ("class:key", choice.key), ("class:choice", f" {choice.label}"),
                    ("class:dim", f"  {prompt.cycle or '→'} next")]
        return clip(line, columns)

    def keys_lines(self, items: Sequence[tuple[str, str, bool]]) -> list[Line]:
        """Footer lines: each key and its action, dimmed when not available, flowed to the
        terminal's width; a click presses the key."""
        columns = self.size()[0]
        lines: list[Line] = [[]]
        for key, words, available in items:
            off = "" if available else "class:key.off"
            piece = tagged([(off or "class:key", f" {key} "), (off, f" {words}")],
                           click(partial(self.press, key)))
            if lines[-1] and width(lines[-1]) + 2 + width(piece) > columns:
                lines.append([])
            lines[-1] += [("", "  ")] * bool(lines[-1]) + piece
        return lines

    def footer_lines(self) -> list[Line]:
        """The keys at the bottom of the screen, for what is on it."""
        if self.prompt is not None:
            return self.keys_lines([("←→", "choose", True), ("Enter", "pick", True), ("Esc", "cancel", True)])
        if self.screen == "table":
            return self.footer()
        back = "leave" if self.screen == "over" else "next hand" if self.screen == "hand" else "back"
        items = [("Enter", back, True), ("s", "scores", True), ("r", "rules", True), ("?", "help", True),
                 ("q", "quit", True)]
        lines = self.keys_lines(items)
        if self._panel_rows > self.size()[1] - 1 - len(lines):  # taller than the screen
            lines = self.keys_lines([*items, ("↑↓", "scroll", True)])
        return lines

    def body_rows(self) -> int:
        """Rows above the status line and the keys."""
        return self.size()[1] - 1 - len(self.footer_lines())

    def _footer_text(self) -> StyleAndTextTuples:
        return join([clip(line, self.size()[0]) for line in self.footer_lines()])

    # ------------------------------------------------------------------------ keys

    def _key(self, event: KeyPressEvent) -> None:
        pressed = event.key_sequence[0]
        key = pressed.key.value if isinstance(pressed.key, Keys) else pressed.data
        self.press({"c-m": "Enter", "c-j": "Enter", " ": "Space", "c-i": "Tab", "s-tab": "BackTab",
                    "escape": "Esc", "left": "←", "right": "→", "up": "↑", "down": "↓"}.get(key, key))

    def press(self, key: str) -> None:
        """Handle one key (also the footer's clicks)."""
        self.status = []  # the status line answers the last key only
        prompt = self.prompt
        if prompt is not None:
            self._prompt_key(prompt, key)
        elif key in ("q", "c-c", "<sigint>"):
            self.ask_quit()
        elif self.screen == "table":
            self.table_keys(key)
        else:
            self.panel_keys(key)
        self.app.invalidate()

    def panel_keys(self, key: str) -> None:
        """Keys on a side screen: its own key or Esc/Enter go back; s, r, ? switch; ↑↓ scroll."""
        screens = {"s": "sheet", "r": "rules", "?": "help"}
        if key in ("↑", "↓", "pageup", "pagedown"):
            step = {"↑": -1, "↓": 1, "pageup": -10, "pagedown": 10}[key]
            self.scroll = max(0, self.scroll + step)
        elif key in screens and screens[key] != self.screen:
            self.screen = screens[key]
            self.scroll = 0
        elif key in ("Esc", "Enter", "Space", *screens):
            self.close_panel()

    def close_panel(self) -> None:
        """Back to the table."""
        self.screen = "table"

    def ask_quit(self) -> None:
        """Ask before leaving."""
        self.prompt = Prompt("Quit?", [Choice("y", "yes, quit", self.quit), Choice("n", "no", self._cancel)],
                             index=1)

    def quit(self) -> None:
        """Leave the screen (once: a key typed twice must not end it twice)."""
        if self.app.is_running and not self.app.is_done:
            self.app.exit()

    def _cancel(self) -> None:
        self.prompt = None

    def _pick(self, index: int) -> None:
        prompt = self.prompt
        if prompt is None:
            return
        self.prompt = None
        prompt.choices[index].action()
        self.app.invalidate()

    def _prompt_key(self, prompt: Prompt, key: str) -> None:
        keys = [c.key.lower() for c in prompt.choices]
        if key.lower() in keys and key != prompt.cycle:
            self._pick(keys.index(key.lower()))
        elif key in ("←", "↑", "BackTab"):
            prompt.index = (prompt.index - 1) % len(prompt.choices)
        elif key in ("→", "↓", "Tab", prompt.cycle):
            prompt.index = (prompt.index + 1) % len(prompt.choices)
        elif key in ("Enter", "Space"):
            self._pick(prompt.index)
        elif prompt.other is not None and prompt.other(key):
            self.prompt = None
        else:
            self.prompt = None
            self.say("Cancelled.", "class:dim")

    def move_cursor(self, key: str, count: int) -> bool:
        """Move the hand's cursor with ←, →, Home, End; True if ``key`` was one of them."""
        steps = {"←": self.cursor - 1, "→": self.cursor + 1, "home": 0, "end": count - 1}
        if key not in steps or not count:
            return False
        self.cursor = steps[key] % count
        return True


# --------------------------------------------------------------------------- playing


PLAY_HELP = (
    " Goal: make the phases in order, one per hand, with the fewest penalty points.",
    " A turn: draw a card; lay down your whole phase (once a hand); hit cards on any",
    " meld once you are down; end by discarding one card. Empty your hand to go out.",
    "",
    " d  draw from the draw pile        t  take the top of the discard pile",
    " l  lay down your phase: the arrangement that puts the most cards down",
    "    (with cards selected: the best from those cards only)",
    " L  choose another lay-down: L or arrows go through them, Enter lays it down",
    " ←→ move the cursor; Space, Enter or ↑ select a card; ↓ or Esc unselect",
    " h  hit the selected cards (or the card under the cursor) on a meld:",
    "    A, B, ... name the melds; a card that does not fit is refused",
    " x  discard the card under the cursor; for a Skip, a digit chooses whom",
    " o  sort your hand by number or by colour",
    " s  score sheet    r  rules in force    ?  this help    q  quit (y confirms)",
    " The mouse works too: click a card, a meld, a pile or a key below.",
    "",
    " Highlighted cards (heavy frame, underlined; * with --ascii) fit your phase,",
    " or, once you are down, a meld on the table. P3 is a player's phase;",
    " a tick (+ with --ascii) means laid down this hand. Cards: R7 red 7,",
    " B12 blue 12, G1 green, Y9 yellow, W wild, S skip.",
)


class TableApp(Board):
    """``p2p10 play``: the user at seat 0 of a :class:`LocalTable` against bot peers.

    The app drives the table itself (passing messages, pacing the bots, waiting for the user),
    so that it can hold the bots while the user reads a hand's summary. ``run()`` returns
    when the user leaves; the table's log is saved all along.
    """

    help_text: tuple[str, ...] = PLAY_HELP

    def __init__(self, local: LocalTable, ascii_only: bool = False) -> None:
        self.local = local
        self.hold = False
        self._wake = asyncio.Event()
        self._follow = False
        names = local.names
        self._cache: tuple[int, GameState] | None = None
        self.seat = local.seat
        super().__init__(names, local.rules, self.seat, ascii_only, second_person=True)
        local.subscribe(self._changed)

    async def run(self) -> None:
        """Show the table and play until the user leaves."""
        def start() -> None:
            self.app.create_background_task(self._drive())

        await self.app.run_async(pre_run=start)

    # ---------------------------------------------------------------- the game loop

    async def _drive(self) -> None:
        local = self.local
        try:
            local.start()
            while not local.over:
                if local.step():
                    await asyncio.sleep(0)  # redraw between the dealing's steps
                elif local.my_turn() or self.hold:
                    self._wake.clear()
                    await self._wake.wait()
                else:
                    await asyncio.sleep(local.pace)
                    if not self.hold:
                        local.bot_move()
            local.step()
        except Exception as err:  # a bug: leave the screen so the terminal is usable again
            self.app.exit(exception=err)
            return
        self._changed()

    def _changed(self) -> None:
        """After every new entry of the user's log: narrate, and open a hand's summary."""
        if self.local.table is None:
            return
        summary = self.narrator.update(self.local.view())
        if summary is not None:
            self.summary = summary
            self.prompt = None
            if summary.winner is None:
                self.hold = True
                self.screen = "hand"
        if self.local.over and not self.hold:
            self.prompt = None
            self.screen = "over"
        self.app.invalidate()

    def over_lines(self, state: GameState) -> list[Line]:
        """The end of the game, and where its log is."""
        saved = plain(f" The game's log: {self.local.log_path}", "class:dim")
        return [*super().over_lines(state), plain(""), saved]

    def _release(self) -> None:
        self.hold = False
        self._wake.set()

    # --------------------------------------------------------------------- reading

    def state(self) -> GameState | None:
        """The game as the user sees it (one fold per log entry, however often it is drawn)."""
        if self.local.table is None:
            return None
        entries = len(self.local.user.log)
        if self._cache is None or self._cache[0] != entries:
            self._cache = (entries, self.local.view())
        return self._cache[1]

    def title(self, state: GameState | None) -> Line:
        """The hand number and whose turn it is (and the rules, if there is room)."""
        hand = f" Hand {state.hand_no + 1}  " if state is not None and state.hand_no >= 0 else " p2p10  "
        line: Line = [("class:title", hand)]
        local = self.local
        if local.over:
            line.append(("class:myturn", " Game over "))
        elif local.dealing() is not None or state is None:
            line.append(("class:dim", "shuffling and dealing..."))
        elif local.my_turn():
            doing = "draw a card (d or t)" if state.stage == "draw" else "play, then discard (x)"
            line.append(("class:myturn", f" Your turn: {doing} "))
        elif state.stage in ("draw", "play"):
            line.append(("", f"{self.spoken[state.turn]} is playing..."))
        else:
            line.append(("class:dim", "the hand is over: the cards are revealed"))
        rules = f"  ({self.rules.describe()})"
        if width(line) + len(rules) <= self.left_width():
            line.append(("class:dim", rules))
        return line

    def piles_note(self) -> Line | None:
        """A progress bar while the deck is shuffled and dealt."""
        progress = self.local.dealing()
        if progress is None or self.local.over:
            return None
        done, total = progress
        filled = 20 * done // max(total, 1)
        bar = "█" * filled + "░" * (20 - filled)
        return [("", "  Shuffling and dealing "), ("class:warn", f"[{bar}]"), ("", f" {done}/{total} steps")]

    def footer(self) -> list[Line]:
        """The actions, lit when the rules allow them now."""
        state = self.state()
        mine = state is not None and self.local.my_turn()
        drawing = mine and state is not None and state.stage == "draw"
        playing = mine and state is not None and state.stage == "play"
        down = state is not None and state.down[self.seat] is not None
        top = state.top_discard() if state is not None else None
        takeable = top is not None and not is_skip(top)
        return [
            *self.keys_lines([("d", "draw", drawing), ("t", "take", drawing and takeable),
                              ("l", "lay down", playing and not down), ("L", "choose", playing and not down),
                              ("h", "hit", playing and down), ("x", "discard", playing)]),
            *self.keys_lines([("←→", "move", True), ("Space", "select", True), ("o", "sort", True),
                              ("s", "scores", True), ("r", "rules", True), ("?", "help", True),
                              ("q", "quit", True)]),
        ]

    def hand_slots(self, state: GameState) -> list[int]:
        """The user's hand in the chosen order; the cursor follows a card just drawn."""
        slots = super().hand_slots(state)
        self.selected &= set(slots)
        if self._follow and state.stage == "play" and state.turn == self.seat and state.hands[self.seat]:
            drawn = state.hands[self.seat][-1]
            if drawn in slots:
                self.cursor = slots.index(drawn)
                self._follow = False
        return slots

    # ------------------------------------------------------------------------ keys

    def table_keys(self, key: str) -> None:
        """The table's keys (see ``PLAY_HELP``)."""
        state = self.state()
        slots = self.hand_slots(state) if state is not None else []
        if self.move_cursor(key, len(slots)):
            return
        actions: dict[str, Callable[[], object]] = {
            "d": partial(self.play_move, DrawStock(self.seat), "You drew from the draw pile.", follow=True),
            "t": partial(self.play_move, TakeDiscard(self.seat), "You took the discard.", follow=True),
            "l": self.lay_down, "L": self.choose_lay_down, "h": self.hit, "x": self.discard,
            "s": partial(self._open, "sheet"), "r": partial(self._open, "rules"),
            "?": partial(self._open, "help"), "o": self._sort,
        }
        if key in actions:
            actions[key]()
        elif key in ("Space", "Enter") and slots:
            slot = slots[self.cursor]
            self.selected ^= {slot}
        elif key == "↑" and slots:
            self.selected.add(slots[self.cursor])
        elif key == "↓" and slots:
            self.selected.discard(slots[self.cursor])
        elif key == "Esc":
            self.selected.clear()
            self.status = []

    def _open(self, screen: str) -> None:
        self.screen = screen
        self.scroll = 0

    def _sort(self) -> None:
        self.by_colour = not self.by_colour
        self.say(f"Sorted by {'colour' if self.by_colour else 'number'}.", "class:dim")

    def panel_keys(self, key: str) -> None:
        """A hand's summary waits for Enter; the end screen leaves on Enter."""
        if self.screen == "over" and key in ("Enter", "Esc", "Space"):
            self.quit()
        elif self.screen == "hand" and key in ("Enter", "Esc", "Space"):
            self.close_panel()
        else:
            super().panel_keys(key)

    def close_panel(self) -> None:
        """Back to the table; closing a hand's summary lets the next hand go on."""
        if self.hold:
            self._release()
        self.screen = "over" if self.local.over else "table"

    def ask_quit(self) -> None:
        """Ask before leaving a game under way; a finished one just closes."""
        if self.local.over:
            self.quit()
        else:
            self.prompt = Prompt("Quit the game? Its log stays saved.",
                                 [Choice("y", "yes, quit", self.quit),
                                  Choice("n", "no, play on", self._cancel)], index=1)

    def meld_clicked(self, meld_id: int) -> Handler | None:
        """A click on a meld hits the selected cards on it."""
        return click(partial(self.hit, meld_id))

    def card_clicked(self, index: int) -> Handler | None:
        """A click on a card puts the cursor there and selects or unselects it."""
        def toggle() -> None:
            state = self.state()
            slots = self.hand_slots(state) if state is not None else []
            if index < len(slots):
                self.cursor = index
                self.selected ^= {slots[index]}
        return click(toggle)

    def piles_line(self, state: GameState) -> Line:
        """The piles; a click on the draw pile draws, on the discard pile takes or discards."""
        line = super().piles_line(state)
        if self.piles_note() is not None:
            return line
        draw = click(lambda: self.press("d"))
        discard = click(lambda: self.press("t" if state.stage == "draw" else "x"))
        split = next((i for i, f in enumerate(line) if "Discard" in f[1]), len(line))
        return tagged(line[:split], draw) + tagged(line[split:], discard)

    # --------------------------------------------------------------------- actions

    def waiting_for(self) -> str | None:
        """Why the user cannot move now, or None when it is their move."""
        local = self.local
        if local.over:
            return "the game is over"
        if local.dealing() is not None:
            return "wait a moment: the cards are being shuffled and dealt"
        if local.my_turn():
            return None
        table = local.table
        expect = table.expected() if table is not None else None
        if expect is not None and expect.kind == "move":
            return f"it is {self.spoken[expect.seat]}'s turn, not yours"
        doing = {"shuffle": "the discard pile is being reshuffled into a new draw pile",
                 "tokens": "the other players are opening the card just drawn",
                 "reveal": "the cards left in hand are being revealed and scored"}
        return f"wait a moment: {doing.get(expect.kind if expect else '', 'the table is busy')}"

    def my_view(self) -> GameState | None:
        """The user's view when it is their move; otherwise None, with the reason shown."""
        why = self.waiting_for()
        if why is not None:
            self.refuse(why)
            return None
        return self.local.view()

    def play_move(self, move: SeatEvent, done: str, follow: bool = False) -> bool:
        """Play one move; a refused move shows the engine's reason and changes nothing."""
        if self.my_view() is None:
            return False
        try:
            self.local.play(move)
        except IllegalMove as err:
            self.refuse(str(err))
            return False
        self._follow = follow
        self._wake.set()
        self.say(done)
        return True

    def chosen_slots(self, state: GameState) -> list[int]:
        """The selected cards in hand order, or the card under the cursor."""
        slots = self.hand_slots(state)
        chosen = [s for s in slots if s in self.selected]
        return chosen or slots[self.cursor:self.cursor + 1]

    def lay_plans(self, state: GameState) -> list[LayDownPlan] | None:
        """The lay-downs open to the user (from the selection, if any), best first; None with
        the reason shown when there is none."""
        phase = state.phase_of(self.seat) or 1
        try:  # the engine says whether a lay-down may be made now at all
            state.apply(LayDown(self.seat, phase, ()))
        except IllegalMove as err:
            me = self.seat
            if state.stage != "play" or state.down[me] is not None or not state.allowed_phases(me):
                self.refuse(str(err))
                return None
        selected = [state.known[s] for s in self.hand_slots(state) if s in self.selected]
        plans = lay_down_choices(state, self.seat, selected or state.hand_cards(self.seat))
        if plans:
            return plans
        phases = " or ".join(f"phase {p} ({describe_phase(p)})" for p in state.allowed_phases(self.seat))
        if selected:
            self.refuse(f"the selected cards do not make {phases}; Esc clears the selection")
        else:
            _, short, _ = phase_fit(state.hand_cards(self.seat), state.allowed_phases(self.seat), state.rules)
            self.refuse(f"you cannot lay down {phases} yet: {short} card{'s' * (short != 1)} short")
        return None

    def lay_down(self, plan: LayDownPlan | None = None) -> None:
        """Lay down ``plan``, or the arrangement that puts the most cards down."""
        state = self.my_view()
        if state is None:
            return
        if plan is None:
            plans = self.lay_plans(state)
            if plans is None:
                return
            plan = plans[0]
        melds = "; ".join(label_text(m.kind, m.label, len(m.cards)) for m in plan.melds)
        laid = f"You laid down phase {plan.phase}: {melds}."
        if self.play_move(plan_to_event(state, self.seat, plan), laid):
            self.selected.clear()

    def choose_lay_down(self) -> None:
        """Go through the lay-downs open to the user, each previewed in the hand."""
        state = self.my_view()
        if state is None:
            return
        plans = self.lay_plans(state)
        if plans is None:
            return
        slot_of = {state.known[s]: s for s in state.hands[self.seat] if s in state.known}
        choices = []
        for index, plan in enumerate(plans):
            words = " + ".join(f"{label_text(m.kind, m.label, len(m.cards))}" for m in plan.melds)
            label = f"P{plan.phase} {words}, {plan.down} down"
            choices.append(Choice(str(index + 1) if index < 9 else "", label,
                                  partial(self.lay_down, plan), frozenset(slot_of[c] for c in plan.cards)))
        self.prompt = Prompt("Lay down which?", choices, cycle="L")

    def hit(self, meld_id: int | None = None) -> None:
        """Hit the selected cards (or the one under the cursor) on a meld: ``meld_id``, the
        only one they fit, or one the user picks by its letter."""
        state = self.my_view()
        if state is None:
            return
        slots = self.chosen_slots(state)
        if not slots:
            self.refuse("you have no card to hit")
            return
        if meld_id is not None:
            self.hit_on(state, slots, meld_id)
            return
        if not state.melds:
            try:  # the engine's reason comes first: not drawn yet, not down yet
                state.apply(Hit(self.seat, slots[0], state.known[slots[0]], 0))
            except IllegalMove as err:
                if state.stage != "play" or state.down[self.seat] is None:
                    self.refuse(str(err))
                    return
            self.refuse("there is no meld on the table to hit yet")
            return
        fitting: list[int] = []
        reasons: list[str] = []
        for meld in state.melds:
            try:
                plan_hits(state, self.seat, meld.id, slots)
                fitting.append(meld.id)
            except IllegalMove as err:
                reasons.append(str(err))
        cards = " ".join(card_text(state.known[s]) for s in slots)
        if not fitting:
            if len(set(reasons)) == 1:
                self.refuse(reasons[0])
            else:
                what = f"{cards} do not all fit one meld" if len(slots) > 1 else f"{cards} fits no meld"
                self.refuse(f"{what} on the table")
            return
        if len(fitting) == 1:
            self.hit_on(state, slots, fitting[0])
            return
        choices = [Choice(chr(ord("a") + m), self.meld_name(state, state.melds[m]), partial(self.hit, m))
                   for m in fitting]
        def other_meld(key: str) -> bool:
            # A meld's letter that is not offered: hit it anyway, for the engine's reason.
            meld = ord(key) - ord("a") if len(key) == 1 else -1
            if not 0 <= meld < len(state.melds):
                return False
            self.hit(meld)
            return True

        self.prompt = Prompt(f"Hit {cards} on which meld?", choices, other=other_meld)

    def meld_name(self, state: GameState, meld: Meld) -> str:
        """A meld in words: whose, and what."""
        owner = "your" if meld.owner == self.seat else f"{self.spoken[meld.owner]}'s"
        return f"{owner} {label_text(meld.kind, meld.label, len(meld.cards))}"

    def hit_on(self, state: GameState, slots: list[int], meld_id: int, end: End | None = None) -> None:
        """Hit every card at ``slots`` on meld ``meld_id``, all of them or none."""
        meld = state.melds[meld_id] if meld_id < len(state.melds) else None
        if meld is None:
            self.refuse(f"there is no meld {chr(ord('A') + meld_id)}")
            return
        card = state.known[slots[0]]
        if end is None and len(slots) == 1 and len(hit_ends(meld, card)) == 2:
            low, high = meld.label - 1, meld.high + 1
            self.prompt = Prompt(f"Which end of the {label_text(meld.kind, meld.label, len(meld.cards))}?", [
                Choice("<", f"low end, as {low}", partial(self.hit_on, state, slots, meld_id, "low")),
                Choice(">", f"high end, as {high}", partial(self.hit_on, state, slots, meld_id, "high"))])
            return
        try:
            hits = plan_hits(state, self.seat, meld_id, slots, end)
        except IllegalMove as err:
            self.refuse(str(err))
            return
        cards = " ".join(card_text(h.card) for h in hits)
        for move in hits:
            if not self.play_move(move, f"You hit {cards} on {self.meld_name(state, meld)}."):
                return
        self.selected.clear()

    def discard(self) -> None:
        """Discard the card under the cursor; a Skip asks whom it is for."""
        state = self.my_view()
        if state is None:
            return
        slots = self.hand_slots(state)
        if not slots:
            self.refuse("you have no card to discard")
            return
        slot = slots[self.cursor]
        card = state.known[slot]
        targets = state.skip_targets(self.seat) if state.stage == "play" else ()
        if not is_skip(card) or not targets or len(state.hands[self.seat]) == 1:
            self.play_move(Discard(self.seat, slot, card), f"You discarded {card_text(card)}.")
        elif len(targets) == 1:
            skipped = f"You skipped {self.spoken[targets[0]]}."
            self.play_move(Discard(self.seat, slot, card, targets[0]), skipped)
        else:
            choices = [Choice(str(t + 1), self.spoken[t],  # seats are numbered from 1, as everywhere
                              partial(self.play_move, Discard(self.seat, slot, card, t),
                                      f"You skipped {self.spoken[t]}."))
                       for t in targets]
            self.prompt = Prompt("Skip whom?", choices)


# --------------------------------------------------------------------------- replaying


REPLAY_HELP = (
    " A saved game, step by step, as one seat saw it or as a spectator.",
    "",
    " ←→ one move back or on          ↑↓ or PgUp/PgDn one hand back or on",
    " Home/End the start or the end   0 spectator   1-6 see as that seat",
    " s  score sheet    r  rules      ?  this help   q  leave",
    "",
    " A spectator sees hidden cards only at each hand's end-of-hand reveal; a seat",
    " sees its own cards (opened with its key, which the log holds from that hand's",
    " reveal on).",
)


LAN_HELP = (
    *PLAY_HELP,
    "",
    " At a LAN table: c  chat (type a line, Enter sends it, Esc drops it).",
    " g  go on without a player whose machine has been out of reach for a while",
    " (never one who is connected and thinking): when every other player agrees,",
    " the hand is dealt again without them, and a bot run by the lowest other",
    " seat's machine plays their seat until their machine comes back, at the",
    " start of a hand.",
    " Every player's lines are signed with their key; chat is not in the log.",
    " The game goes on while a hand's summary is open: the others do not wait.",
    " Quit leaves the table; 'p2p10 resume LOG' takes you back to it.",
)


def _duration(seconds: float) -> str:
    """``25 s``, ``2 min``: how long, as a title line says it."""
    return f"{seconds:.0f} s" if seconds < 60 else f"{seconds // 60:.0f} min"


class LanTableApp(TableApp):
    """The play screen for a seat at a LAN table (:class:`~protocol.lan.LanSeat`): the same
    table, driven by the mesh instead of by the screen, with table chat and a warning when the
    table has been waiting too long for somebody."""

    help_text: tuple[str, ...] = LAN_HELP
    thinking_shown = 10.0  # seconds a player thinks before the title says so

    def __init__(self, seat: LanSeat, ascii_only: bool = False) -> None:
        self.typing: str | None = None  # the chat line being typed, or None
        super().__init__(seat, ascii_only)  # type: ignore[arg-type]
        self.lan = seat
        self._taken_said: str | None = None
        seat.chat_listeners.append(self._heard)
        self.app.refresh_interval = 1.0  # the "waiting for" line changes with no new entry

    async def _drive(self) -> None:
        try:
            await asyncio.shield(self.lan.playing)
        except asyncio.CancelledError:
            return
        except Exception as err:  # e.g. a roster the table entry contradicts: show why
            self.app.exit(exception=err)
            return
        self._changed()

    def _release(self) -> None:
        self.hold = False  # nobody waits for this screen: the summary only closes

    def _changed(self) -> None:
        """After every entry: a seat taken over by a bot is renamed (whose bot it is)."""
        table = self.lan.table
        if table is not None and list(table.names) != self.names:
            self.names = list(table.names)
            self.spoken = [spoken_name(n) for n in self.names]
            self.narrator.names = self.spoken
        super()._changed()
        note = self.lan.taken_note()
        if note is not None and note != self._taken_said:
            self._taken_said = note
            self.say(note, "class:warn")
            self.narrator.lines.append(note)  # kept in the Moves panel once the status moves on

    def over_lines(self, state: GameState) -> list[Line]:
        """The end of the game; or, for a table that froze, why, whom it blames, and where
        the signed evidence is."""
        reason = self.lan.user.stop_reason()
        if reason is None:
            return super().over_lines(state)
        limit = max(20, self.size()[0] - 2)
        lines = [plain(" The table stopped: nobody can play on.", "class:error"), plain("")]
        lines += [plain(" " + part) for part in textwrap.wrap(reason, limit)]
        lines += [plain(""), plain(f" The signed evidence: {evidence_path(self.lan.log_path)}"),
                  plain(f" The game's log: {self.lan.log_path}", "class:dim")]
        return lines

    def _heard(self, line: ChatLine) -> None:
        who = "You" if line.seat == self.seat else self.spoken[line.seat]
        self.narrator.lines.append(f"{who} said: {line.text}")
        self.app.invalidate()

    def title(self, state: GameState | None) -> Line:
        """As at home, and who the table is waiting for (thinking, or out of reach), and who
        has agreed to go on without them."""
        line = super().title(state)
        waiting = self.lan.waiting()
        if waiting is not None:
            who = self.spoken[waiting.person]
            if waiting.away is None:
                if waiting.waited >= self.thinking_shown:
                    line = [*line, ("class:dim", f" {who} is thinking ({_duration(waiting.waited)}) ")]
            else:
                line = [*line, ("class:error", f" {who} is out of reach ({_duration(waiting.away)}) ")]
        for person, signers in self.lan.agreed().items():
            who = ", ".join("you" if s == self.seat else self.spoken[s] for s in signers)
            line = [*line, ("class:warn", f" {who} agreed to go on without {self.spoken[person]} ")]
        return line

    def footer(self) -> list[Line]:
        """The keys, with chat, and going on without a player whose machine is away."""
        if self.typing is not None:
            return self.keys_lines([("Enter", "send", True), ("Esc", "cancel", True)])
        lines = super().footer()
        extra = [("c", "chat", True)]
        waiting = self.lan.waiting()
        if waiting is not None and waiting.offer:
            extra.append(("g", f"go on without {self.spoken[waiting.person]}", True))
        return [*lines[:-1], *self.keys_lines(extra), lines[-1]]

    def table_keys(self, key: str) -> None:
        """The table's keys, and g: go on without the player whose machine is away."""
        if key != "g":
            super().table_keys(key)
            return
        waiting = self.lan.waiting()
        if waiting is None or not waiting.offer:
            if waiting is not None and waiting.away is None:
                self.refuse(f"{self.spoken[waiting.person]} is connected and thinking: "
                            "the table waits for them")
            else:
                self.refuse("nobody's machine has been out of reach long enough to go on without them")
            return
        person = waiting.person
        name = self.spoken[person]
        self.prompt = Prompt(f"Go on without {name}? The hand is dealt again without them.",
                             [Choice("y", "yes, go on", partial(self._go_on, person)),
                              Choice("n", "no, wait", self._cancel)], index=1)

    def _go_on(self, person: int) -> None:
        self.prompt = None
        try:
            self.lan.go_on_without(person)
        except IllegalMove as err:
            self.refuse(str(err))
            return
        self.say(f"You agreed to go on without {self.spoken[person]}; the others must agree too.")

    def _status_text(self) -> StyleAndTextTuples:
        if self.typing is None:
            return super()._status_text()
        cursor = "_" if self.ascii else "▏"
        return clip([("class:warn", " Say: "), ("", self.typing + cursor)], self.size()[0])

    def press(self, key: str) -> None:
        """Chat typing takes every key until Enter or Esc."""
        if self.typing is None:
            if key == "c" and self.prompt is None and self.screen == "table":
                self.typing = ""
                self.app.invalidate()
                return
            super().press(key)
            return
        if key == "Esc":
            self.typing = None
        elif key == "Enter":
            text, self.typing = self.typing, None
            if text.strip():
                try:
                    self.lan.say(text)
                except IllegalMove as err:
                    self.refuse(str(err))
        elif key in ("c-h", "backspace"):
            self.typing = self.typing[:-1]
        elif key == "Space":
            self.typing += " "
        elif len(key) == 1 and key.isprintable() and len(self.typing) < MAX_CHAT:
            self.typing += key
        self.app.invalidate()


def replay_frames(records: Sequence[bytes]) -> tuple[list[TableState], str | None]:
    """The replay's steps: the table at the start, wherever a move is due, after each hand is
    scored, and at the end of the log; and the reason the fold stopped early (a violation), if
    it did: a damaged log is shown up to the damage."""
    table = fold(None, parse_entry(records[0]), defer_proofs=True)
    frames = [table]
    stopped = None
    for index, raw in enumerate(records[1:], start=1):
        try:
            after = table.apply(parse_entry(raw))
        except (BadEntry, ProtocolViolation) as err:
            earlier = deferred_violation(table, index)
            stopped = f"entry {index}: {err}" if earlier is None else f"entry {earlier.seq}: {earlier}"
            break
        expect = after.expected()
        if expect is None or expect.kind == "move" or len(after.engine.sheet) > len(table.engine.sheet):
            frames.append(after)
        table = after
    if stopped is None and table.expected() is not None:
        earlier = deferred_violation(table, None)
        stopped = None if earlier is None else f"entry {earlier.seq}: {earlier}"
    if frames[-1] is not table:
        frames.append(table)
    return frames, stopped


class ReplayApp(Board):
    """``p2p10 replay`` on a terminal: the same table, stepped through a saved log."""

    help_text = REPLAY_HELP

    def __init__(self, records: Sequence[bytes], seat: int | None = None, ascii_only: bool = False,
                 hand: int | None = None) -> None:
        try:
            self.frames, self.stopped = replay_frames(records)
        except (BadEntry, ProtocolViolation) as err:
            raise NotALog(f"the log's first entry is not a table: {err}") from None
        self.secrets = revealed_secrets(records)
        first = self.frames[0]
        if seat is not None and not 0 <= seat < first.players:
            raise IllegalMove(f"there is no seat {seat + 1} at this table")
        hands = [frame.engine.hand_no for frame in self.frames]
        self.at = hands.index(hand - 1) if hand is not None and hand - 1 in hands else 0
        super().__init__(first.names, first.rules, seat, ascii_only)
        self._narrate()

    async def run(self) -> None:
        """Show the viewer until the user leaves."""
        await self.app.run_async()

    def _narrate(self) -> None:
        """The move log of every frame, as the chosen seat saw it (a log per frame: lines so far)."""
        self.narrator = Narrator(self.spoken, self.me, second_person=self.me is not None)
        self._counts: list[int] = []
        for frame in self.frames:
            self.narrator.update(self._view(frame))
            self._counts.append(len(self.narrator.lines))

    def _view(self, table: TableState) -> GameState:
        if self.me is None or table.hand is None:
            return table.engine
        return table.seat_view(self.me, self.secrets.get((table.hand.number, self.me)))

    def state(self) -> GameState:
        """The game at the current step as the chosen seat (or a spectator) saw it."""
        return self._view(self.frames[self.at])

    def log_lines(self) -> list[str]:
        """The move log up to the current step."""
        return self.narrator.lines[:self._counts[self.at]]

    def title(self, state: GameState | None) -> Line:
        """Where the replay stands."""
        who = f"as {self.names[self.me]}" if self.me is not None else "as a spectator"
        hand = f"hand {state.hand_no + 1}  " if state is not None and state.hand_no >= 0 else ""
        step = f"{hand}step {self.at + 1}/{len(self.frames)}  "
        line: Line = [("class:title", " p2p10 replay  "), ("", step), ("class:dim", who)]
        if self.stopped and self.at == len(self.frames) - 1:
            line.append(("class:error", f"  stopped: {self.stopped}"))
        return line

    def footer(self) -> list[Line]:
        """The viewer's keys."""
        return [*self.keys_lines([("←→", "move", True), ("↑↓", "hand", True), ("Home/End", "start/end", True),
                                  ("0-6", "seat", True)]),
                *self.keys_lines([("s", "scores", True), ("r", "rules", True), ("?", "help", True),
                                  ("q", "leave", True)])]

    def ask_quit(self) -> None:
        """A viewer leaves at once: nothing is lost."""
        self.quit()

    def table_keys(self, key: str) -> None:
        """Step by move or hand, choose the seat, open the side screens."""
        last = len(self.frames) - 1
        hands = [frame.engine.hand_no for frame in self.frames]
        here = hands[self.at]
        if key == "→":
            self.at = min(self.at + 1, last)
        elif key == "←":
            self.at = max(self.at - 1, 0)
        elif key in ("↓", "pagedown"):
            self.at = next((i for i in range(self.at, last + 1) if hands[i] > here), last)
        elif key in ("↑", "pageup"):
            target = max(here - 1, hands[0]) if self.at == hands.index(here) else here
            self.at = hands.index(target)
        elif key == "home":
            self.at = 0
        elif key == "end":
            self.at = last
        elif key.isdigit() and int(key) <= len(self.names):
            self.me = int(key) - 1 if key != "0" else None
            self._narrate()
            self.say(f"Seen {'as ' + self.names[self.me] if self.me is not None else 'as a spectator'}.")
        elif key in ("s", "r", "?"):
            self.screen = {"s": "sheet", "r": "rules", "?": "help"}[key]
