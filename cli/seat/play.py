"""The user's seat at a table, as a model: the table followed as it plays (its story told
from the user's log, a hand's summary held open while the table can wait, the game's end), the
title's words, and what each key and tap does there. The terminal draws it
(:class:`cli.table.play.TableApp`), the browser too (:class:`cli.web.table_screen.TableScreen`)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial

from cli.seat.board import KeyItem
from cli.seat.help import PLAY_HELP
from cli.seat.moves import PlayMoves
from cli.seat.prompts import Prompt, yes_no
from p2p10.engine import GameState
from p2p10.events import DrawStock, TakeDiscard
from p2p10.game_fields import Action
from p2p10.i18n import _, pgettext
from p2p10.narrate import skip_sentence
from p2p10.screen_view import HelpEntry, OverView, Paragraph, over_view
from p2p10.table import TableState
from protocol.seat_screen import SeatScreen, next_pace

# The longest the story of a resumed game is told before the keys have their turn (the screen
# answers a key within about this, plus a frame).
STORY_SLICE_S = 0.01


@dataclass(frozen=True, slots=True)
class News:
    """A part of the title about one player (a LAN table's: who it waits for): ``template``
    said of ``name`` (a narrow screen may shorten the name), in a ``style``."""

    style: str
    template: str
    name: str
    values: tuple[tuple[str, str], ...] = ()

    def text(self, name: str | None = None) -> str:
        """The words, with ``name`` (shortened) for the player's."""
        return self.template.format(name=self.name if name is None else name, **dict(self.values))


@dataclass(frozen=True, slots=True)
class TitleView:
    """The title's words: the hand's number, whose turn it is (or what the table is doing) and
    the rules in force; at a LAN table, news of the players it waits for after the hand's
    number. Each of the first two has a short form for a narrow screen; ``doing`` may name a
    player (``{name}``: ``name``), whose name a narrow screen may shorten."""

    hand: tuple[str, str]
    style: str
    doing: tuple[str, str]
    name: str
    rules: str
    news: tuple[News, ...] = ()

    def words(self, short: bool = False, name: str | None = None) -> str:
        """What the title says is being done, in its short form if ``short``, with ``name``
        (shortened) for the player's."""
        return self.doing[short].format(name=self.name if name is None else name)

    @property
    def text(self) -> str:
        """The whole title in plain words, for a screen that wraps its own lines."""
        news = " ".join(item.text() for item in self.news)
        return " ".join(f"{self.hand[0]} {news} {self.words()} ({self.rules})".split())


class PlaySeat(PlayMoves):
    """The user at a table through a :class:`~protocol.local.SeatScreen`: the seat plays the
    table (its messages, its bots and their pace); this model follows the game, narrates it,
    and passes the user's moves on. While a hand's summary is open it holds the seat, so that
    a table that can wait (bots on this machine) does. A front end runs it with
    :func:`follow_table` (or its own loop) until the user leaves.

    A model opened on a game under way (resumed) is told the game from the start of the
    user's log first, so that its move log reads as it did when the game was played. With
    ``tell_later`` that waits until the front end calls :meth:`catch_up` or :meth:`tell_story`
    (once the table is drawn: in slices of :data:`STORY_SLICE_S` with the keys (and a LAN
    table's messages) answered between them: a long game's story takes longer to tell (0.6 s
    at hand 21 of six seats) than the rest of a resume, and a key typed as the table appears
    must not wait for it).
    """

    help_text: tuple[HelpEntry, ...] = PLAY_HELP
    waits_while_reading = True
    """Whether the table waits while the user reads a hand's summary (the bots on this
    machine do; the other machines of a LAN table do not)."""
    title_keys = True
    """Whether the title names the keys of the user's turn ("draw a card (d or t)"): the
    terminal's does; the page's does not (it is tapped, and its keys are buttons below)."""

    def __init__(self, seat: SeatScreen, tell_later: bool = False) -> None:
        self.hold = False  # a hand's summary is open: the seat is held until it closes
        self._cache: tuple[TableState, GameState] | None = None
        self._moves_seen = (-1, 0)  # (hand, moves) of the user's view told in the status line
        self.again = False  # the user asked for another game at the end of this one
        self._quit_prompt: Prompt | None = None  # the last "Quit the game?" asked
        self._told = False  # the game so far is told, and the screen follows the seat
        # Lines from outside the log heard while the story is told, each with the number of
        # entries the log had then (see tell); None once the story is over.
        self._held: list[tuple[int, Callable[[], None]]] | None = []
        self._leaving = False  # "Quit the game?" was open as the last entry came (see _new_entry)
        PlayMoves.__init__(self, seat)  # (named: see PlayMoves.__init__)
        if not tell_later:
            self.catch_up()

    def catch_up(self) -> None:
        """Tell the game so far (the user's log from its start) and from then on every new
        entry; once only, all at once (see :meth:`tell_story` for the way a screen that is
        already drawn tells it)."""
        for _step in self._story():
            pass

    async def tell_story(self, slice_s: float | None = None) -> None:
        """As :meth:`catch_up`, in slices of about ``slice_s`` seconds (:data:`STORY_SLICE_S`),
        the event loop having its turn between them: keys typed meanwhile are answered, and a
        LAN table's entries keep coming. The story follows the log as it grows and ends only
        once it has caught up with it, so every entry is told once, in its place."""
        story = self._story()
        while True:
            end = time.perf_counter() + (STORY_SLICE_S if slice_s is None else slice_s)
            for _step in story:
                if time.perf_counter() >= end:
                    break
            else:
                return
            await asyncio.sleep(0)

    def tell(self, line: Callable[[], None]) -> None:
        """Put a line from outside the log into the move log (a chat line, a presence notice):
        now, or, while the game so far is being told, once the story reaches the entry the log
        had when the line came, so that it is told among the moves around it."""
        if self._held is None:
            line()
        else:
            self._held.append((self.table_seat.entries, line))

    def _story(self) -> Iterator[None]:
        # One step per entry of the user's log, then the switch to following the seat, with
        # no step between the story's last entry and the subscription: nothing falls between.
        # The entries the log held when the story began are the game so far, told as a
        # replay tells them (a past hand's summary is not opened again); an entry that came
        # while the story was told (a key's move, a LAN table's message) is told as if it came
        # live: its hand's summary opens, a Skip on the user is said.
        if self._told:
            return
        self._told = True
        seat = self.table_seat
        told = 0
        came = False  # an entry came while the story was told
        table: TableState | None = None
        for view, table, new in seat.history():
            # The lines heard when the log had the entries told so far come before the next.
            self._tell_held(told)
            told = table.seq
            if new:
                came = True
                self._new_entry(view, table, last=False)
            else:
                self.narrator.update(view, table)
                self._moves_seen = (view.hand_no, len(view.history))
            yield
        self._tell_held(None)
        seat.subscribe(self._changed)
        now = seat.table
        if now is not None and (table is None or now.last_hash != table.last_hash):
            # The log was cut back while it was told (a move of this machine that nobody built
            # on, given up for an `away` entry): go on from the seat as it is.
            self._changed()
        elif came:
            self._end_if_over()
        self.invalidate()

    def _tell_held(self, told: int | None) -> None:
        """The lines held while the story is told, up to those heard when the log had
        ``told`` entries (all of them with None: the story is over and they are told at once
        from now on)."""
        held = self._held or []
        while held and (told is None or held[0][0] <= told):
            held.pop(0)[1]()
        if told is None:
            self._held = None

    def _changed(self) -> None:
        """After every new entry of the user's log (subscribed once the game so far is told)."""
        table = self.table_seat.table
        if table is not None:
            self._new_entry(self.table_seat.view(), table, last=True)

    def _new_entry(self, view: GameState, table: TableState, last: bool) -> None:
        """A new entry of the user's log, ``view`` and ``table`` after it: narrate, say a Skip
        played on the user, and open a hand's summary (the status line's last words are then
        stale: they go); if it is the ``last`` in the log, end the game if it is over."""
        seat = self.table_seat
        summary = self.narrator.update(view, table)
        self._say_skips(view)
        # Asked before a summary below takes the prompt away (the last hand's included).
        self._leaving = self.prompt is not None and self.prompt is self._quit_prompt
        if summary is not None:
            self.summary = summary
            self.prompt = None
            self.status = []
            if summary.winner is None:
                self.hold = True
                seat.hold(True)
                self.screen = "hand"
        if last:
            self._end_if_over()
        self.invalidate()

    def _end_if_over(self) -> None:
        """The game's end, once the log says it is over and no hand's summary is open."""
        if not self.table_seat.over or self.hold:
            return
        if self._leaving or (self.prompt is not None and self.prompt is self._quit_prompt):
            # The user asked to leave and the game ended before the answer: leaving then
            # loses nothing (the result is printed on the way out), and a "y" typed at
            # the question must not fall on the end screen, where it does nothing.
            self.quit()
        self.prompt = None
        self.status = []
        self.screen = "over"

    def _say_skips(self, view: GameState) -> None:
        """A Skip another player discarded on the user, said in the status line (the move log
        is not always in sight)."""
        hand, seen = self._moves_seen
        start = seen if view.hand_no == hand else 0
        for move in view.history[start:]:
            if move.action == "discard" and move.target == self.seat and move.seat != self.seat:
                self.say(skip_sentence(self.narrator.voice, move.seat, self.seat), "class:warn")
        self._moves_seen = (view.hand_no, len(view.history))

    def over_view(self, state: GameState) -> OverView:
        """The end of the game, and where its log is."""
        saved = _("The game's log: {path}").format(path=self.table_seat.log_path)
        return over_view(state, self.narrator.summaries, self.narrator.voice, [Paragraph(saved, "dim")])

    # --------------------------------------------------------------------- reading

    def state(self) -> GameState | None:
        """The game as the user sees it (one view per log entry, however often it is drawn)."""
        table = self.table_seat.table
        if table is None:
            return None
        if self._cache is None or self._cache[0] is not table:
            self._cache = (table, self.table_seat.view())
        return self._cache[1]

    def title_view(self, state: GameState | None) -> TitleView:
        """The title's words (see :class:`TitleView`)."""
        table = self.table_seat.table
        number: int | None = None
        if table is not None and table.hand is not None and self.table_seat.dealing() is not None:
            number = table.hand.number + 1  # the hand being dealt (the game's view holds the last)
        elif state is not None and state.hand_no >= 0:
            number = state.hand_no + 1
        if number is not None:
            # TRANSLATORS: the hand's number in the title, and its short form for a narrow
            # terminal ("H3").
            hand = (" " + _("Hand {number}").format(number=number) + "  ",
                    " " + pgettext("title", "H{number}").format(number=number) + "  ")
        else:
            hand = (" p2p10  ", " p2p10  ")
        style, doing, name = self._title_status(state)
        return TitleView(hand, style, doing, name, self.rules.describe())

    def _title_status(self, state: GameState | None) -> tuple[str, tuple[str, str], str]:
        """Whose turn, as the title says it: (style, (words, short words), the name in them)."""
        seat = self.table_seat
        if seat.over:
            over = " " + _("Game over") + " "
            return "class:myturn", (over, over), ""
        if self.hold and self.waits_while_reading and self.summary is not None:
            # The table waits for the user to close the summary: nobody plays meanwhile,
            # whoever's turn the next hand has come to.
            # TRANSLATORS: the title while a hand's summary is open and the bots wait for the
            # user ({n}: the hand that ended), and its short form.
            doing = (_("the table waits while you read hand {n}'s summary: Enter goes on"),
                     pgettext("title", "summary: Enter goes on"))
            said = doing[0].format(n=self.summary.number)
            return "class:myturn", (" " + said + " ", " " + doing[1] + " "), ""
        if seat.dealing() is not None or state is None:
            # TRANSLATORS: the title while a hand is dealt, and its short form.
            return "class:dim", (_("shuffling and dealing..."), pgettext("title", "dealing...")), ""
        if seat.my_turn():
            if not self.title_keys:  # (the page: a finger taps a pile or a card, the keys are below)
                # TRANSLATORS: the title on the user's turn where no key is named (the browser).
                doing = ((_("Your turn: draw a card"),) if state.stage == "draw"
                         else (_("Your turn: play, then discard"),)) * 2
            elif state.stage == "draw":
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

    def may(self, action: Action) -> bool:
        """Whether the user may make a move of kind ``action`` now (the engine says)."""
        state = self.state()
        return state is not None and self.table_seat.my_turn() and state.why_not(action, self.seat) is None

    def footer_items(self) -> list[KeyItem]:
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

    def panel_keys_shown(self) -> list[KeyItem]:
        """At the end of a game: n plays another with the same settings."""
        if self.screen == "over" and self.table_seat.over:
            return [("n", pgettext("key", "play again"), True)]
        return []

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

    def toggle_card(self, index: int) -> None:
        """Put the cursor on the hand's card at ``index`` and select or unselect it."""
        state = self.state()
        slots = self.hand_slots(state) if state is not None else []
        if index < len(slots):
            self.cursor = index
            self.selected ^= {slots[index]}

    def pile_clicked(self, pile: str) -> None:
        """The draw pile draws; the discard pile takes its card, or (after the draw) discards."""
        state = self.state()
        if pile == "draw":
            self.press("d")
        elif state is not None:
            self.press("t" if state.stage == "draw" else "x")


async def follow_table(seat: PlaySeat) -> None:
    """Play the table under ``seat`` until the user leaves it, for a front end that runs no
    loop of its own (the page's): the story so far told, then the table followed. A bug in
    following the table (or an entry that contradicts the roster) ends it, kept in
    ``seat.broke`` and raised here."""

    left = asyncio.get_running_loop().create_future()

    def gone() -> None:
        if not left.done():
            left.set_result(None)

    seat.on_leave.append(gone)
    seat.catch_up()
    follow = asyncio.create_task(seat.table_seat.run())
    try:
        done, _pending = await asyncio.wait({follow, left}, return_when=asyncio.FIRST_COMPLETED)
        if follow in done:
            try:
                follow.result()
            except Exception as err:  # as the terminal's table: shown, then raised
                seat.fail(err)
                raise
            seat._changed()  # the game's end, once the table has stopped
            await left
    finally:
        follow.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):  # (raised above already)
            await follow
