"""``p2p10 play``'s screen: the user's seat at a table, by keys and by mouse."""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial

from cli.table.board import Board
from cli.table.drawing import Handler, Line, click, plain, shorten, tagged, width
from cli.table.panels import HelpEntry, prose
from cli.table.play_help import BUSY, PLAY_HELP
from cli.table.prompts import Choice, Prompt, yes_no
from p2p10.advice import Advice, NoAdvice, advise, meld_text, skip_choice
from p2p10.cards import card_text
from p2p10.engine import Action, GameState
from p2p10.errors import IllegalMove
from p2p10.events import Discard, DrawStock, Hit, LayDown, SeatEvent, TakeDiscard
from p2p10.i18n import _, ngettext, pgettext
from p2p10.melds import End, Meld, label_text
from p2p10.moves import (
    discard_targets,
    hit_fits,
    lay_down_choices,
    open_ends,
    phase_fit,
    plan_hits,
    plan_to_event,
    wild_given_away,
)
from p2p10.narrate import cards_words, list_words, skip_sentence
from p2p10.rules import describe_phase
from p2p10.solver import LayDownPlan
from p2p10.table import TableState
from protocol.seat_screen import SeatScreen, next_pace


class TableApp(Board):
    """The user at a table through a :class:`~protocol.local.SeatScreen`: the seat plays the
    table (its messages, its bots and their pace); this screen shows the game, narrates it,
    and passes the user's moves on. While a hand's summary is open it holds the seat, so that
    a table that can wait (bots on this machine) does. ``run()`` returns when the user leaves.

    A screen opened on a game under way (resumed) is told the game from the start of the
    user's log first, so that its move log reads as it did when the game was played.
    """

    help_text: tuple[HelpEntry, ...] = PLAY_HELP

    def __init__(self, seat: SeatScreen, ascii_only: bool = False) -> None:
        self.table_seat = seat
        self.seat = seat.seat
        self.hold = False  # a hand's summary is open: the seat is held until it closes
        self._follow = False  # the cursor goes to the card the user draws
        self._cache: tuple[TableState, GameState] | None = None
        self._moves_seen = (-1, 0)  # (hand, moves) of the user's view told in the status line
        self.again = False  # the user asked for another game at the end of this one
        self._quit_prompt: Prompt | None = None  # the last "Quit the game?" asked
        super().__init__(seat.names, seat.rules, self.seat, ascii_only, second_person=True)
        view = None
        for view, table in seat.history():
            self.narrator.update(view, table)
        if view is not None:
            self._moves_seen = (view.hand_no, len(view.history))
        seat.subscribe(self._changed)

    async def run(self) -> None:
        """Show the table and play until the user leaves."""
        def start() -> None:
            self.app.create_background_task(self._follow_the_table())

        await self.app.run_async(pre_run=start)

    async def _follow_the_table(self) -> None:
        try:
            await self.table_seat.run()
        except Exception as err:  # a bug, or a table entry that contradicts the roster: show why
            self.fail(err)
            return
        self._changed()

    def _changed(self) -> None:
        """After every new entry of the user's log: narrate, say a Skip played on the user, and
        open a hand's summary (the status line's last words are then stale: they go)."""
        seat = self.table_seat
        table = seat.table
        if table is None:
            return
        view = seat.view()
        summary = self.narrator.update(view, table)
        self._say_skips(view)
        # Asked before the summary below takes the prompt away (the last hand's included).
        leaving = self.prompt is not None and self.prompt is self._quit_prompt
        if summary is not None:
            self.summary = summary
            self.prompt = None
            self.status = []
            if summary.winner is None:
                self.hold = True
                seat.hold(True)
                self.screen = "hand"
        if seat.over and not self.hold:
            if leaving:
                # The user asked to leave and the game ended before the answer: leaving then
                # loses nothing (the result is printed on the way out), and a "y" typed at
                # the question must not fall on the end screen, where it does nothing.
                self.quit()
            self.prompt = None
            self.status = []
            self.screen = "over"
        self.invalidate()

    def _say_skips(self, view: GameState) -> None:
        """A Skip another player discarded on the user, said in the status line (the move log
        is not always in sight)."""
        hand, seen = self._moves_seen
        start = seen if view.hand_no == hand else 0
        for move in view.history[start:]:
            if move.action == "discard" and move.target == self.seat and move.seat != self.seat:
                self.say(skip_sentence(self.narrator.voice, move.seat, self.seat), "class:warn")
        self._moves_seen = (view.hand_no, len(view.history))

    def over_lines(self, state: GameState) -> list[Line]:
        """The end of the game, and where its log is."""
        saved = _("The game's log: {path}").format(path=self.table_seat.log_path)
        return [*super().over_lines(state), plain(""), *prose(saved, self.size()[0], "class:dim")]

    # --------------------------------------------------------------------- reading

    def state(self) -> GameState | None:
        """The game as the user sees it (one view per log entry, however often it is drawn)."""
        table = self.table_seat.table
        if table is None:
            return None
        if self._cache is None or self._cache[0] is not table:
            self._cache = (table, self.table_seat.view())
        return self._cache[1]

    def title(self, state: GameState | None) -> Line:
        """The hand number and whose turn it is, and the rules in force as the last fragment
        when there is room. Where the pane is too narrow, the rules go first, then the turn's
        words are abbreviated, then the hand's; a name is shortened at a word, never cut."""
        if state is not None and state.hand_no >= 0:
            number = state.hand_no + 1
            # TRANSLATORS: the hand's number in the title, and its short form for a narrow
            # terminal ("H3").
            hands = [" " + _("Hand {number}").format(number=number) + "  ",
                     " " + pgettext("title", "H{number}").format(number=number) + "  "]
        else:
            hands = [" p2p10  ", " p2p10  "]
        style, doing, name = self._title_status(state)
        limit = self.left_width()
        rules: Line = [("class:dim", f"  ({self.rules.describe()})")]
        forms: list[Line] = [
            [("class:title", hands[0]), (style, doing[0].format(name=name))],
            [("class:title", hands[0]), (style, doing[1].format(name=name))],
            [("class:title", hands[1]), (style, doing[1].format(name=name))],
        ]
        if width(forms[0] + rules) <= limit:
            return forms[0] + rules
        for line in forms:
            if width(line) <= limit:
                return line
        room = limit - width(forms[-1]) + width([("", name)])
        short = shorten(name, room, self.ellipsis) or name
        return [("class:title", hands[1]), (style, doing[1].format(name=short))]

    def _title_status(self, state: GameState | None) -> tuple[str, tuple[str, str], str]:
        """Whose turn, as the title says it: (style, (words, short words), the name in them)."""
        seat = self.table_seat
        if seat.over:
            over = " " + _("Game over") + " "
            return "class:myturn", (over, over), ""
        if seat.dealing() is not None or state is None:
            # TRANSLATORS: the title while a hand is dealt, and its short form.
            return "class:dim", (_("shuffling and dealing..."), pgettext("title", "dealing...")), ""
        if seat.my_turn():
            if state.stage == "draw":
                # TRANSLATORS: the title on the user's turn, and its short form; the keys stay.
                doing = (_("Your turn: draw a card (d or t)"), pgettext("title", "Your turn: d or t"))
            else:
                doing = (_("Your turn: play, then discard (x)"), pgettext("title", "Your turn: x discards"))
            return "class:myturn", (" " + doing[0] + " ", " " + doing[1] + " "), ""
        if state.stage in ("draw", "play"):
            # TRANSLATORS: the title while another player moves ({name}), and its short form.
            return "", (_("{name} is playing..."), pgettext("title", "{name} plays")), \
                self.narrator.voice.name(state.turn)
        return "class:dim", (_("the hand is over: the cards are revealed"),
                             pgettext("title", "cards revealed")), ""

    def piles_note(self) -> Line | None:
        """A progress bar while the deck is shuffled and dealt."""
        progress = self.table_seat.dealing()
        if progress is None or self.table_seat.over:
            return None
        done, total = progress
        # TRANSLATORS: beside the progress bar of a deal: "[████░░░] 5/12 steps".
        steps = ngettext("{done}/{total} step", "{done}/{total} steps", total).format(done=done, total=total)
        words = "  " + _("Shuffling and dealing") + " "
        # The bar gives way to the words in a narrow pane (20 cells where there is room).
        cells = max(5, min(20, self.left_width() - width(plain(words + steps)) - 3))
        filled = cells * done // max(total, 1)
        bar = "█" * filled + "░" * (cells - filled)
        return [("", words), ("class:warn", f"[{bar}]"), ("", f" {steps}")]

    def may(self, action: Action) -> bool:
        """Whether the user may make a move of kind ``action`` now (the engine says)."""
        state = self.state()
        return state is not None and self.table_seat.my_turn() and state.why_not(action, self.seat) is None

    def footer(self) -> list[Line]:
        """The actions, lit when the rules allow them now, then the keys that move, show and
        leave, flowed together (as few lines as the terminal allows: each is a line the
        table does not have)."""
        return self.keys_lines(self.footer_items())

    def footer_items(self) -> list[tuple[str, str, bool]]:
        """The actions, lit when the rules allow them now, then the keys that move, show and
        leave."""
        paced = self.table_seat.pace is not None
        return [
            ("d", pgettext("key", "draw"), self.may("draw")),
            ("t", pgettext("key", "take"), self.may("take")),
            ("l", pgettext("key", "lay down"), self.may("lay")),
            ("L", pgettext("key", "choose"), self.may("lay")),
            ("h", pgettext("key", "hit"), self.may("hit")),
            ("x", pgettext("key", "discard"), self.may("discard")),
            ("i", pgettext("key", "hint"), self.table_seat.my_turn()),
            ("p", pgettext("key", "play hint"), self.table_seat.my_turn()),
            ("←→", pgettext("key", "move"), True), ("Space", pgettext("key", "select"), True),
            ("o", pgettext("key", "sort"), True), ("+", pgettext("key", "faster"), paced),
            ("-", pgettext("key", "slower"), paced), ("s", pgettext("key", "scores"), True),
            ("r", pgettext("key", "rules"), True), ("?", pgettext("key", "help"), True),
            ("q", self.quit_word(), True)]

    def panel_keys_shown(self) -> list[tuple[str, str, bool]]:
        """At the end of a game: n plays another with the same settings."""
        if self.screen == "over" and self.table_seat.over:
            return [("n", pgettext("key", "play again"), True)]
        return []

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
        """The table's keys (see ``PLAY_HELP``). Enter selects nothing here: it is the key that
        closes a hand's summary, and pressed once too often it must not pick a card of the next
        hand."""
        state = self.state()
        slots = self.hand_slots(state) if state is not None else []
        if self.move_cursor(key, len(slots)):
            return
        actions: dict[str, Callable[[], object]] = {
            "d": partial(self.play_move, DrawStock(self.seat), _("You drew from the draw pile."),
                         follow=True),
            "t": partial(self.play_move, TakeDiscard(self.seat), _("You took the discard."), follow=True),
            "l": self.lay_down, "L": self.choose_lay_down, "h": self.hit, "x": self.discard,
            "i": self.hint, "p": self.play_hint, "+": partial(self.change_pace, True),
            "-": partial(self.change_pace, False),
            "s": partial(self.open, "sheet"), "r": partial(self.open, "rules"),
            "?": partial(self.open, "help"), "o": self._sort,
        }
        if key in actions:
            actions[key]()
        elif key == "Space" and slots:
            self.selected ^= {slots[self.cursor]}
        elif key == "↑" and slots:
            self.selected.add(slots[self.cursor])
        elif key == "↓" and slots:
            self.selected.discard(slots[self.cursor])
        elif key == "Esc":
            self.selected.clear()
            self.status = []

    def _sort(self) -> None:
        self.by_colour = not self.by_colour
        self.say(_("Sorted by colour.") if self.by_colour else _("Sorted by number."), "class:dim")

    def advice(self) -> Advice | None:
        """What the strong bot would play for the user now; None, with why there is no hint
        shown, when there is none."""
        seat = self.table_seat
        table = seat.table
        if table is None or seat.over or seat.dealing() is not None:
            self.say(_("No hint: {reason}.").format(reason=self.waiting_for()), "class:dim")
            return None
        try:
            # The same position, the same hint: the bot's random source is seeded by it.
            return advise(seat.view(), self.seat, self.spoken, random.Random(table.seq))
        except NoAdvice as err:
            self.say(_("No hint: {reason}.").format(reason=err), "class:dim")
            return None

    def hint(self) -> None:
        """What the strong bot would play for the user now, and why, in the status line; the
        cursor goes to the card it plays from the hand (so that x or h does what the hint
        says), and p plays it. Out of turn, why there is no hint."""
        advice = self.advice()
        if advice is None:
            return
        move = advice.move
        if isinstance(move, Discard | Hit):
            state = self.table_seat.view()
            slots = self.hand_slots(state)
            if move.slot in slots:
                self.cursor = slots.index(move.slot)
                self.selected.clear()
        # TRANSLATORS: {advice} is the strong bot's move and its reason: "discard G9: ...".
        self.say(_("Hint: {advice}.").format(advice=advice.reason))

    def play_hint(self) -> None:
        """Play the move the hint advises (the one ``i`` shows)."""
        advice = self.advice()
        if advice is None:
            return
        move = advice.move
        state = self.table_seat.view()
        if isinstance(move, DrawStock):
            self.play_move(move, _("You drew from the draw pile."), follow=True)
        elif isinstance(move, TakeDiscard):
            self.play_move(move, _("You took the discard."), follow=True)
        elif isinstance(move, LayDown):
            melds = "; ".join(meld_text(m) for m in advice.reason_parts.melds)
            if self.play_move(move, _("You laid down phase {phase}: {melds}.").format(
                    phase=move.phase, melds=melds)):
                self.selected.clear()
        elif isinstance(move, Hit):
            if self.play_move(move, self.hit_words(state.melds[move.meld], card_text(move.card))):
                self.selected.clear()
        elif move.target is not None:
            self.play_move(move, skip_sentence(self.narrator.voice, self.seat, move.target))
        elif wild_given_away(state, self.seat, move.slot) is not None:  # asked first, as x asks
            self.cursor = self.hand_slots(state).index(move.slot)
            self.discard()
        else:
            self.play_move(move, _("You discarded {card}.").format(card=card_text(move.card)))

    def change_pace(self, faster: bool) -> None:
        """The bots' pace a step faster or slower (where this machine sets it)."""
        seat = self.table_seat
        pace = seat.pace
        if pace is None:
            self.refuse(_("the bots' pace is not this machine's to set"))
            return
        seat.set_pace(next_pace(pace, faster))
        pace = seat.pace or 0.0
        if pace == 0:
            self.say(_("Bots move at once."), "class:dim")
        else:
            # TRANSLATORS: {seconds} is a number of seconds with one decimal: "1.2".
            self.say(_("Bots wait {seconds} s per move.").format(seconds=f"{pace:.1f}"), "class:dim")

    def panel_keys(self, key: str) -> None:
        """A hand's summary waits for Enter; the end screen leaves on Enter."""
        if self.screen == "over" and key in ("Enter", "Esc", "Space"):
            self.quit()
        elif self.screen == "over" and key == "n" and self.table_seat.over:
            self.again = True
            self.quit()
        elif self.screen == "hand" and key in ("Enter", "Esc", "Space"):
            self.close_panel()
        else:
            super().panel_keys(key)

    def close_panel(self) -> None:
        """Back to the table; closing a hand's summary lets the seat go on."""
        if self.hold:
            self.hold = False
            self.table_seat.hold(False)
        self.screen = "over" if self.table_seat.over else "table"

    def ask_quit(self) -> None:
        """Ask before leaving a game under way; a finished one just closes."""
        if self.table_seat.over:
            self.quit()
        else:
            self.prompt = self._quit_prompt = yes_no(
                _("Quit the game? Its log stays saved."), _("yes, quit"), self.quit,
                _("no, play on"), self.cancel)

    def meld_clicked(self, meld_id: int) -> Handler | None:
        """A click on a meld hits the selected cards on it."""
        return click(partial(self.hit, meld_id))

    def card_clicked(self, index: int) -> Handler | None:
        """A click on a card puts the cursor there and selects or unselects it."""
        return click(partial(self.toggle_card, index))

    def toggle_card(self, index: int) -> None:
        """Put the cursor on the hand's card at ``index`` and select or unselect it."""
        state = self.state()
        slots = self.hand_slots(state) if state is not None else []
        if index < len(slots):
            self.cursor = index
            self.selected ^= {slots[index]}

    def piles_parts(self, state: GameState) -> tuple[Line, Line]:
        """The piles; a click on the draw pile draws, on the discard pile takes or discards."""
        draw, discard = super().piles_parts(state)
        return (tagged(draw, click(partial(self.pile_clicked, "draw"))),
                tagged(discard, click(partial(self.pile_clicked, "discard"))))

    def pile_clicked(self, pile: str) -> None:
        """The draw pile draws; the discard pile takes its card, or (after the draw) discards."""
        state = self.state()
        if pile == "draw":
            self.press("d")
        elif state is not None:
            self.press("t" if state.stage == "draw" else "x")

    # --------------------------------------------------------------------- actions

    def waiting_for(self) -> str | None:
        """Why the user cannot move now, or None when it is their move."""
        seat = self.table_seat
        if seat.over:
            return _("the game is over")
        if seat.dealing() is not None:
            return _("wait a moment: the cards are being shuffled and dealt")
        if seat.my_turn():
            return None
        table = seat.table
        expect = table.expected() if table is not None else None
        if expect is not None and expect.kind == "move":
            voice = self.narrator.voice
            # TRANSLATORS: why a key did nothing: another player ({owner}) is to move.
            return _("it is {owner}'s turn, not yours").format(owner=voice.owner(expect.seat))
        kind = expect.kind if expect is not None else ""
        return _(BUSY[kind]) if kind in BUSY else _("wait a moment: the table is busy")

    def my_view(self) -> GameState | None:
        """The user's view when it is their move; otherwise None, with the reason shown."""
        why = self.waiting_for()
        if why is not None:
            self.refuse(why)
            return None
        return self.table_seat.view()

    def play_move(self, move: SeatEvent, done: str, follow: bool = False) -> bool:
        """Play one move; a refused move shows the engine's reason and changes nothing."""
        if self.my_view() is None:
            return False
        try:
            self.table_seat.play(move)
        except IllegalMove as err:
            self.refuse(str(err))
            return False
        self._follow = follow
        self.say(done)
        return True

    def chosen_slots(self, state: GameState) -> list[int]:
        """The selected cards in hand order, or the card under the cursor."""
        slots = self.hand_slots(state)
        chosen = [s for s in slots if s in self.selected]
        return chosen or slots[self.cursor:self.cursor + 1]

    def lay_pool(self, state: GameState) -> tuple[list[int], bool]:
        """The cards a lay-down is made from: the selected ones, or the whole hand; and
        whether they are a selection."""
        selected = [state.known[s] for s in self.hand_slots(state) if s in self.selected]
        return (selected, True) if selected else (list(state.hand_cards(self.seat)), False)

    def lay_plans(self, state: GameState) -> list[LayDownPlan] | None:
        """The lay-downs open to the user (from the selection, if any), best first; None with
        the reason shown when there is none."""
        why = state.why_not("lay", self.seat)
        if why is not None:
            self.refuse(why)
            return None
        pool, selected = self.lay_pool(state)
        plans = lay_down_choices(state, self.seat, pool)
        if plans:
            return plans
        allowed = state.allowed_phases(self.seat)
        # TRANSLATORS: a phase a player may lay down, in a list of them: "phase 2 (set of 3 + run of 4)".
        phases = list_words([_("phase {phase} ({description})").format(phase=p, description=describe_phase(p))
                             for p in allowed])
        if selected:
            self.refuse(_("the selected cards do not make {phases}; Esc clears the selection").format(
                phases=phases))
        else:
            _phase, short, _fit = phase_fit(state.hand_cards(self.seat), allowed, state.rules)
            self.refuse(ngettext("you cannot lay down {phases} yet: {n} card short",
                                 "you cannot lay down {phases} yet: {n} cards short", short).format(
                phases=phases, n=short))
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
        laid = _("You laid down phase {phase}: {melds}.").format(phase=plan.phase, melds=melds)
        if self.play_move(plan_to_event(state, self.seat, plan), laid):
            self.selected.clear()

    def choose_lay_down(self) -> None:
        """Go through the lay-downs open to the user, each previewed in the hand, each told
        apart by the cards it keeps back."""
        state = self.my_view()
        if state is None:
            return
        plans = self.lay_plans(state)
        if plans is None:
            return
        pool, _selected = self.lay_pool(state)
        slot_of = {state.known[s]: s for s in state.hands[self.seat] if s in state.known}
        choices = []
        for index, plan in enumerate(plans):
            melds = " + ".join(label_text(m.kind, m.label, len(m.cards)) for m in plan.melds)
            kept = [c for c in pool if c not in plan.cards]
            fields = {"phase": plan.phase, "melds": melds, "down": plan.down, "kept": cards_words(kept)}
            # TRANSLATORS: a lay-down to choose: "P2 set of 7s + run 2-6, 8 down, keeps R7 G12".
            label = (_("P{phase} {melds}, {down} down, keeps {kept}") if kept
                     else _("P{phase} {melds}, {down} down")).format(**fields)
            choices.append(Choice(str(index + 1) if index < 9 else "", label,
                                  partial(self.lay_down, plan), frozenset(slot_of[c] for c in plan.cards)))
        self.prompt = Prompt(_("Lay down which?"), choices, cycle="L")

    def hit(self, meld_id: int | None = None) -> None:
        """Hit the selected cards (or the one under the cursor) on a meld: ``meld_id``, the
        only one they fit, or one the user picks by its letter."""
        state = self.my_view()
        if state is None:
            return
        slots = self.chosen_slots(state)
        if not slots:
            self.refuse(_("you have no card to hit"))
            return
        if meld_id is not None:
            self.hit_on(state, slots, meld_id)
            return
        why = state.why_not("hit", self.seat)  # not drawn yet, not down yet: said first
        if why is not None or not state.melds:
            self.refuse(why or _("there is no meld on the table to hit yet"))
            return
        fitting, reasons = hit_fits(state, self.seat, slots)
        cards = " ".join(card_text(state.known[s]) for s in slots)
        if not fitting:
            if len(set(reasons)) == 1:
                self.refuse(reasons[0])
            elif len(slots) > 1:
                self.refuse(_("{cards} do not all fit one meld on the table").format(cards=cards))
            else:
                self.refuse(_("{cards} fits no meld on the table").format(cards=cards))
            return
        if len(fitting) == 1:
            self.hit_on(state, slots, fitting[0])
            return
        choices = [Choice(chr(ord("a") + m), self.meld_name(state.melds[m]), partial(self.hit, m))
                   for m in fitting]

        def other_meld(key: str) -> bool:
            # A meld's letter that is not offered: hit it anyway, for the engine's reason.
            meld = ord(key) - ord("a") if len(key) == 1 else -1
            if not 0 <= meld < len(state.melds):
                return False
            self.hit(meld)
            return True

        self.prompt = Prompt(_("Hit {cards} on which meld?").format(cards=cards), choices, other=other_meld)

    def meld_name(self, meld: Meld) -> str:
        """A meld in words: whose, and what."""
        name = label_text(meld.kind, meld.label, len(meld.cards))
        voice = self.narrator.voice
        if voice.is_you(meld.owner):
            # TRANSLATORS: a meld of the user's, among those to choose from: "your run 4-7".
            return _("your {meld}").format(meld=name)
        # TRANSLATORS: another player's meld, among those to choose from: "Ann's set of 7s".
        return _("{owner}'s {meld}").format(owner=voice.owner(meld.owner), meld=name)

    def hit_on(self, state: GameState, slots: list[int], meld_id: int, end: End | None = None) -> None:
        """Hit every card at ``slots`` on meld ``meld_id``, all of them or none."""
        meld = state.melds[meld_id] if meld_id < len(state.melds) else None
        if meld is None:
            self.refuse(_("there is no meld {letter}").format(letter=chr(ord("A") + meld_id)))
            return
        ends = open_ends(meld, state.known[slots[0]]) if end is None and len(slots) == 1 else {}
        if ends:
            name = label_text(meld.kind, meld.label, len(meld.cards))
            at = partial(self.hit_on, state, slots, meld_id)
            self.prompt = Prompt(_("Which end of the {meld}?").format(meld=name), [
                Choice("<", _("low end, as {value}").format(value=ends["low"]), partial(at, "low")),
                Choice(">", _("high end, as {value}").format(value=ends["high"]), partial(at, "high"))])
            return
        try:
            hits = plan_hits(state, self.seat, meld_id, slots, end)
        except IllegalMove as err:
            self.refuse(str(err))
            return
        done = self.hit_words(meld, " ".join(card_text(h.card) for h in hits))
        for move in hits:
            if not self.play_move(move, done):
                return
        self.selected.clear()

    def hit_words(self, meld: Meld, cards: str) -> str:
        """What the status line says after ``cards`` (in notation) were hit on ``meld``."""
        name = label_text(meld.kind, meld.label, len(meld.cards))
        voice = self.narrator.voice
        if voice.is_you(meld.owner):
            return _("You hit {cards} on your {meld}.").format(cards=cards, meld=name)
        return _("You hit {cards} on {owner}'s {meld}.").format(
            cards=cards, owner=voice.owner(meld.owner), meld=name)

    def discard(self) -> None:
        """Discard the card under the cursor; a Skip asks whom it is for, a Wild that the next
        player could take asks first."""
        state = self.my_view()
        if state is None:
            return
        slots = self.hand_slots(state)
        if not slots:
            self.refuse(_("you have no card to discard"))
            return
        slot = slots[self.cursor]
        taker = wild_given_away(state, self.seat, slot)
        if taker is None:
            self.discard_slot(state, slot)
            return
        name = self.narrator.voice.name(taker)
        # TRANSLATORS: asked before a Wild is discarded; {name} is the next player, who may take it.
        self.prompt = yes_no(_("Discard a Wild? {name} may take it.").format(name=name),
                             _("discard it"), partial(self.discard_slot, state, slot),
                             _("keep it"), self._kept)

    def _kept(self) -> None:
        self.say(_("You kept the Wild."), "class:dim")

    def discard_slot(self, state: GameState, slot: int) -> None:
        """Discard the card at ``slot``; a Skip asks whom it is for, unless only one may be
        skipped."""
        card = state.known[slot]
        targets = discard_targets(state, self.seat, card)
        voice = self.narrator.voice
        if not targets:
            self.play_move(Discard(self.seat, slot, card),
                           _("You discarded {card}.").format(card=card_text(card)))
            return
        if len(targets) == 1:
            only = targets[0]
            self.play_move(Discard(self.seat, slot, card, only), skip_sentence(voice, self.seat, only))
            return
        # Numbered 1, 2, ... as they read (not by seat); the player the hint would skip is
        # the current choice, so that Enter follows the hint.
        hinted = skip_choice(state, targets)
        choices = []
        for number, target in enumerate(targets, start=1):
            name = voice.name(target)
            # TRANSLATORS: the player a Skip's hint names, among those to choose from.
            label = _("{name} (hint)").format(name=name) if target == hinted else name
            choices.append(Choice(str(number) if number <= 9 else "", label,
                                  partial(self.play_move, Discard(self.seat, slot, card, target),
                                          skip_sentence(voice, self.seat, target))))
        self.prompt = Prompt(_("Skip whom?"), choices, index=targets.index(hinted))
