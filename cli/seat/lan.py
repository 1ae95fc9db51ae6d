"""A seat at a LAN table, as a model: the same seat as at home, played by the mesh, with table
chat, and what the table is waiting for (a player thinking, a machine out of reach, who agreed
to go on without it). The terminal draws it (:class:`cli.table.lan.LanTableApp`), the browser
too."""

from __future__ import annotations

import math
from dataclasses import replace
from functools import partial

from cli.seat.board import KeyItem
from cli.seat.help import PLAY_HELP
from cli.seat.play import News, PlaySeat, TitleView
from cli.seat.prompts import Prompt, yes_no
from cli.seat.styled import Styled
from p2p10.engine import GameState
from p2p10.errors import IllegalMove
from p2p10.i18n import N_, _, pgettext
from p2p10.narrate import going_on_cost
from p2p10.peer import ChatLine
from p2p10.screen_view import HelpEntry, OverView, Paragraph, RulesView, Section, rules_view, stopped_view
from p2p10.table import TableState
from p2p10.wire import LEFT, READING
from protocol.lan import LanSeat, taken_note
from protocol.storage import evidence_path

LAN_HELP: tuple[HelpEntry, ...] = (
    *PLAY_HELP,
    "",
    N_("At a LAN table:"),
    ("c", N_("chat: type a line; Enter sends it, Esc drops it")),
    ("g", N_("go on without a player whose machine has been out of reach for a while (never one who is "
             "connected and thinking): when every other player agrees, the hand is dealt again without "
             "them, and a bot run by the lowest other seat's machine plays their seat until their machine "
             "comes back, at the start of a hand")),
    N_("Every player's lines are signed with their key; chat is not in the log."),
    N_("The game goes on while a hand's summary is open: the others do not wait (they see that you "
       "are reading it), and the summary says when your turn has come."),
    N_("Quitting is said to the others: they read that you left, not that your machine is out of "
       "reach."),
    N_("Quit leaves the table; 'p2p10 resume LOG' takes you back to it."),
)

PACE_KEYS = ("+", "-")  # the bots' pace: not a LAN table's to set


def duration(seconds: float) -> str:
    """``25 s``, ``2 min``: how long, as a title line says it."""
    if seconds < 60:
        # TRANSLATORS: a number of seconds, short.
        return _("{n} s").format(n=f"{seconds:.0f}")
    # TRANSLATORS: a number of minutes, short.
    return _("{n} min").format(n=f"{seconds // 60:.0f}")



class LanPlaySeat(PlaySeat):
    """The seat of the user at a LAN table (:class:`~protocol.lan.LanSeat`): the same seat,
    driven by the mesh instead of by this machine, with table chat and what the table waits
    for."""

    help_text: tuple[HelpEntry, ...] = LAN_HELP
    waits_while_reading = False  # the other machines play on (they are told the user reads)
    thinking_shown = 10.0  # seconds a player thinks before the title says so

    def __init__(self, seat: LanSeat, tell_later: bool = False) -> None:
        self.lan = seat
        self._taken_said: str | None = None
        self._go_on_prompt: Prompt | None = None  # the last "Deal hand 3 again without Cy?" asked
        self._go_on_lost = ""  # what it said is lost ("You lose the phase you laid down.")
        PlaySeat.__init__(self, seat, tell_later)  # (named: see PlayMoves.__init__)
        seat.chat_listeners.append(self._heard)
        seat.presence_listeners.append(self._presence)

    # ------------------------------------------------------------------------ chat

    def start_chat(self) -> None:
        """The chat key: a front end opens its line for typing (the page has its own)."""

    def send_chat(self, text: str) -> None:
        """Say ``text`` to the table (a line too long, or not allowed, is refused with why)."""
        if text.strip():
            try:
                self.lan.say(text)
            except IllegalMove as err:
                self.refuse(str(err))
        self.invalidate()

    def _heard(self, line: ChatLine) -> None:
        self.tell(partial(self.narrator.said, line.seat, line.text))
        self.invalidate()


    def _presence(self, seat: int, state: int) -> None:
        """Another machine said where its player is: a player who quit is told in the move
        log (the title says who the table waits for)."""
        if state == LEFT:
            # TRANSLATORS: a player quit the game on their machine (they may come back with
            # 'p2p10 resume').
            left = _("{name} left the table.").format(name=self.narrator.voice.name(seat))
            self.tell(partial(self.narrator.note, left))
        self.invalidate()

    # ------------------------------------------------------------------- the table

    def _new_entry(self, view: GameState, table: TableState, last: bool) -> None:
        """After every new entry: the screen's own, and what happened to this player's seat if
        the table went on without this machine (kept in the move log once the status moves on)."""
        super()._new_entry(view, table, last)
        note = taken_note(table, self.seat)
        if note is not None and note != self._taken_said:
            self._taken_said = note
            self.say(note, "class:warn")
            self.narrator.note(note)

    def over_view(self, state: GameState) -> OverView:
        """The end of the game; or, for a table that froze, why, whom it blames, and where
        the signed evidence is."""
        alone = self.lan.alone_line()
        if alone is not None:  # nobody answered: said whole, not as a game that ended
            return stopped_view(_("Nobody at the table answers."),
                                [Paragraph(alone[:1].upper() + alone[1:] + ".")])
        reason = self.lan.stop_reason()
        if reason is None:
            return super().over_view(state)
        evidence = _("The signed evidence: {path}").format(path=evidence_path(self.lan.log_path))
        return stopped_view(_("The table stopped: nobody can play on."), [
            Paragraph(reason), Paragraph(""), Paragraph(evidence),
            Paragraph(_("The game's log: {path}").format(path=self.lan.log_path), "dim")])

    # ------------------------------------------------------------------- the title

    def title_view(self, state: GameState | None) -> TitleView:
        """As at home, with who the table is waiting for (thinking, or out of reach) and who
        has agreed to go on without them (:meth:`title_news`)."""
        return replace(super().title_view(state), news=tuple(self.title_news()))

    def title_news(self) -> list[News]:
        """Who the table waits for (thinking, reading, out of reach) and who agreed to go on
        without whom."""
        voice = self.narrator.voice
        waiting = self.lan.waiting()
        news: list[News] = []
        if waiting is not None:
            who = voice.name(waiting.person)
            presence = self.lan.presence(waiting.person)
            if waiting.away is None and presence == READING:
                # TRANSLATORS: in the title: the player the table waits for has the last hand's
                # summary open on their screen.
                news.append(News("class:dim", _("{name} is reading the last hand's summary"), who))
            elif waiting.away is None:
                if waiting.waited >= self.thinking_shown:
                    news.append(News("class:dim", _("{name} is thinking ({time})"), who,
                                     (("time", duration(waiting.waited)),)))
            else:
                if presence == LEFT:
                    # TRANSLATORS: in the title: the player quit ({time} ago, "25 s").
                    away = _("{name} left the table ({time})")
                else:
                    away = _("{name} is out of reach ({time})")
                news.append(News("class:error", away, who, (("time", duration(waiting.away)),)))
        for person, signers in self.lan.agreed().items():
            news.append(News("class:warn", _("{names} agreed to go on without {name}"), voice.name(person),
                             (("names", voice.all(signers, start=False)),)))
        return news

    def _title_status(self, state: GameState | None) -> tuple[str, tuple[str, str], str]:
        """As at home; and while the card the user drew waits for another machine's key, it
        is still the user's turn (the title says so: nothing else can happen meanwhile)."""
        if self._card_from() is None:
            return super()._title_status(state)
        # TRANSLATORS: the title while the card the user drew is being opened by the others'
        # keys, and its short form.
        doing = (_("Your turn: your card is on its way"), pgettext("title", "Your turn: card coming"))
        return "class:myturn", (" " + doing[0] + " ", " " + doing[1] + " "), ""

    # ------------------------------------------------------ a card on its way

    def _card_from(self) -> int | None:
        """The seat whose share of the key the user's drawn card waits for now, if it waits."""
        coming = self.lan.card_coming()
        return coming[0] if coming and not self.lan.over else None

    def card_note(self) -> str | None:
        """While the user's drawn card waits for another seat's key: which (None otherwise)."""
        seat = self._card_from()
        if seat is None:
            return None
        # TRANSLATORS: {name} is the player whose share of the key opens the card just drawn.
        return _("your card is waiting for {name}'s key").format(name=self.narrator.voice.name(seat))

    def _going_on(self) -> tuple[str, str | None] | None:
        """While the table waits for a machine out of reach: its player's name, and how long
        until the others may go on without it (None: they may now); None otherwise."""
        waiting = self.lan.waiting()
        if waiting is None or waiting.away is None:
            return None
        name = self.narrator.voice.name(waiting.person)
        if waiting.offer:
            return name, None
        left = self.lan.user.away_after - waiting.away
        if left <= 0:
            return None  # (agreed already: the title says who agreed)
        # Counted down, so rounded up: "in 2 min" never comes sooner than it says.
        return name, duration(math.ceil(left) if left < 60 else 60 * math.ceil(left / 60))

    def going_on_note(self) -> str | None:
        """While the table waits for a machine out of reach: when the others may go on
        without it, or that they may now and what it costs; None otherwise."""
        going = self._going_on()
        if going is None:
            return None
        name, time = going
        if time is None:
            return _("g goes on without {name}: the hand is dealt again.").format(name=name)
        return _("The table can go on without {name} in {time}.").format(name=name, time=time)

    def waiting_for(self) -> str | None:
        """Why the user cannot move now: their own card on its way too."""
        return self.card_note() or super().waiting_for()

    def hint(self) -> None:
        """As at home; while the user's card is on its way, that there is no hint yet and why."""
        note = self.card_note()
        if note is None:
            super().hint()
        else:
            self.say(_("No hint yet: {reason}.").format(reason=note), "class:dim")

    def hand_hints(self, state: GameState) -> list[str]:
        """The line under the hand: under the question whether to go on without a player,
        why no card can be opened without them; while the user's drawn card is on its way,
        whose key it waits for (and when the table may go on without that machine, where that
        fits); else as at home."""
        if self.asking_go_on():
            return [self.go_on_why()]
        card = self.card_lines()
        return super().hand_hints(state) if card is None else card

    def asking_go_on(self) -> bool:
        """Whether the question asked is whether to go on without a player."""
        asked = self.prompt is not None and self.prompt is self._go_on_prompt
        return asked and self.lan.waiting() is not None

    def go_on_why(self) -> str:
        """Why the table can go on only without the player it waits for."""
        waiting = self.lan.waiting()
        name = "" if waiting is None else self.narrator.voice.name(waiting.person)
        return _("Without {name}'s key no card of this hand can be opened.").format(name=name)

    def card_lines(self) -> list[str] | None:
        """While the user's drawn card is on its way, the line under the hand: whose key it
        waits for, with when the table may go on without that machine first, then without it;
        None while no card is on its way."""
        seat = self._card_from()
        if seat is None:
            return None
        key = self.narrator.voice.name(seat)
        short = _("Your card is waiting for {key}'s key.").format(key=key)
        going = self._going_on()
        if going is None:
            return [short]
        name, time = going
        if time is None:
            both = _("Your card is waiting for {key}'s key; g goes on without {name}.").format(
                key=key, name=name)
        else:
            both = _("Your card is waiting for {key}'s key; the table can go on without {name} "
                     "in {time}.").format(key=key, name=name, time=time)
        return [both, short]

    def status_note(self, card_said: bool) -> str | None:
        """What the status line says when it has nothing else to say (no answer to a key, no
        question): on a hand's summary, that the next hand has come to the user's turn; else
        when the table may go on without a machine out of reach, unless the line under the
        hand says it already (``card_said``)."""
        if self.screen == "hand":
            return self.summary_turn_note()  # before anything else: the table is not waiting
        return None if self.status or card_said else self.going_on_note()

    def status_shown(self) -> Styled:
        """The last message, or the note of :meth:`status_note` (the line under the hand said
        whole)."""
        card = self.card_lines()
        note = self.status_note(card is not None and len(card) > 1)
        return self.status if note is None else [("class:warn", note)]

    def summary_turn_note(self) -> str | None:
        """On a hand's summary, once the next hand has reached the user's turn (the others do
        not wait while the user reads): that it has, and how to get to it."""
        if not (self.lan.my_turn() or self._card_from() is not None):
            return None
        state = self.state()
        if state is None or state.hand_no < 0:
            return None
        return _("Your turn in hand {number}: Enter takes you to the table.").format(number=state.hand_no + 1)

    def rules_view(self) -> RulesView:
        """The rules, and going on without a player at a LAN table: when, and what it costs."""
        after = self.lan.user.away_after
        text = _("If a player's machine stays out of reach for {time}, the others may go on without "
                 "it (g), if every one of them agrees. Every card of a hand is locked with every "
                 "player's key: without theirs, no card can be opened, so the hand under way is dealt "
                 "again from its start without them, and whatever was laid down in it, phases too, is "
                 "lost (earlier hands' scores stand). From the next hand a bot run by another player's "
                 "machine plays their seat, until their machine is back (p2p10 resume), at the start "
                 "of a hand.").format(time=duration(after))
        return rules_view(self.rules, [Section(_("Going on without a player"), (text,))])

    def lan_keys(self) -> list[KeyItem]:
        """The LAN table's own keys: chat, and going on without a player whose machine is away
        (when the table offers it)."""
        extra = [("c", pgettext("key", "chat"), True)]
        waiting = self.lan.waiting()
        if waiting is not None and waiting.offer:
            name = self.narrator.voice.name(waiting.person)
            extra.append(("g", pgettext("key", "go on without {name}").format(name=name), True))
        return extra

    def footer_items(self) -> list[KeyItem]:
        """The keys, less the bots' pace, with chat and going on (:meth:`lan_keys`)."""
        items = [item for item in super().footer_items() if item[0] not in PACE_KEYS]
        return [*items, *self.lan_keys()]

    def table_keys(self, key: str) -> None:
        """The table's keys; c: chat; g: go on without the player whose machine is away."""
        if key == "c":
            self.start_chat()
        elif key == "g":
            self._ask_go_on()
        else:
            super().table_keys(key)

    def _ask_go_on(self) -> None:
        waiting = self.lan.waiting()
        voice = self.narrator.voice
        if waiting is None or not waiting.offer:
            if waiting is not None and waiting.away is None:
                if self.lan.presence(waiting.person) == READING:
                    why = _("{name} is reading the last hand's summary: the table waits for them")
                else:
                    why = _("{name} is connected and thinking: the table waits for them")
                self.refuse(why.format(name=voice.name(waiting.person)))
            else:
                self.refuse(_("nobody's machine has been out of reach long enough to go on without them"))
            return
        person = waiting.person
        table, state = self.lan.table, self.state()
        assert table is not None and state is not None  # (the table waits for somebody)
        ask, lost = going_on_cost(voice, state, table.away_group(person), voice.name(person))
        self._go_on_lost = lost
        self.prompt = self._go_on_prompt = yes_no(f"{ask} {lost}".strip(), _("yes, go on"),
                                                  partial(self._go_on, person), _("no, wait"), self.cancel)

    def _go_on(self, person: int) -> None:
        self.prompt = None
        try:
            self.lan.go_on_without(person)
        except IllegalMove as err:
            self.refuse(str(err))
            return
        name = self.narrator.voice.name(person)
        self.say(_("You agreed to go on without {name}; the others must agree too.").format(name=name))
