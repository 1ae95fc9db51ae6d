"""The game in plain words: one narrator for the play screen's move log, the replay viewer and
the transcript that ``p2p10 replay`` prints.

A :class:`Narrator` is fed successive views of one game (:meth:`Narrator.update`): the viewer's
:class:`~p2p10.engine.GameState` and, where there is one, the
:class:`~p2p10.table.TableState` it was read from, which knows what the rules engine does not
(a hand voided because the table went on without a machine, a machine that came back, the
entries that dealt a hand). It compares each view with the one before and tells what happened
in between, as :class:`Told` lines: a hand's heading, the moves, the table's events, and the
details only a transcript prints (the dealing and the checks). Fed every entry (the transcript,
the play screen) or only the views where a move is due (the replay viewer), it tells the same
story.

Seats are named by their names, a bot's level left out ("Bot 2 (normal)" is "Bot 2"); only the
viewer's own seat in live play is "you" (``second_person``). A possessive drops a name's part in
brackets ("Bot 2's set", "Cy's set" for "Cy (Ann's bot)"). A seat *named* "You" is "Seat 1
(You)", so that nobody reads it as the viewer. Hands are numbered as the table counts them, one
per row of the score sheet: a voided hand is dealt again under its own number.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Literal

from p2p10.bots import POLICIES
from p2p10.cards import card_text, is_skip, sort_key
from p2p10.chatroom import Spectators, spectators_in
from p2p10.engine import GameState
from p2p10.game_fields import HandResult, PublicMove
from p2p10.i18n import N_, _, ngettext, pgettext
from p2p10.melds import label_text
from p2p10.names import shown_name
from p2p10.rules import describe_phase

if TYPE_CHECKING:  # a narrator of the engine alone needs none of the dealing cryptography
    from p2p10.table import TableState
    from p2p10.table_reading import Return, Takeover

Kind = Literal["heading", "play", "event", "note", "detail", "item", "aside"]
"""What a :class:`Told` line is: a hand's ``heading``; a move or its outcome (``play``); a
table ``event`` (going on without a machine, a machine back); a ``note`` from outside the log
(chat); and, for transcripts only, a ``detail`` of the dealing and checks, an ``item`` of a list
under one, and an ``aside`` to an event."""

SHOWN: frozenset[Kind] = frozenset({"heading", "play", "event", "note"})
"""The kinds a screen's move log shows; a transcript prints all but notes."""

_TRANSCRIPT_INDENT: dict[Kind, str] = {"play": "  ", "detail": "  ", "item": "    ", "aside": "   "}


@dataclass(frozen=True, slots=True)
class Told:
    """One line of the story: its words, its :data:`Kind`, and the hand it belongs to (from 1,
    as the table counts; 0 before the first deal). A heading has a ``title`` ("Hand 2") before
    its words ("Ann deals, R7 turned up")."""

    hand: int
    kind: Kind
    text: str
    title: str = ""

    @property
    def shown(self) -> bool:
        """True for a line a screen's move log shows."""
        return self.kind in SHOWN

    @property
    def line(self) -> str:
        """The line in words, as a screen shows it ("Hand 2: Ann deals, R7 turned up")."""
        # TRANSLATORS: a line of the move log under a title: "Hand 2: Ann deals, R7 turned up".
        return _("{title}: {text}").format(title=self.title, text=self.text) if self.title else self.text

    def transcript(self) -> list[str]:
        """The line as a transcript prints it (a heading or event after a blank line, set off
        by ``==`` or ``**``); nothing for a note, which is not in the log."""
        if self.kind == "heading":
            return ["", f"== {self.title} ==", f"  {self.text}."]
        if self.kind == "event":
            return ["", f"** {self.text.rstrip('.')} **"]
        if self.kind == "note":
            return []
        return [_TRANSCRIPT_INDENT[self.kind] + self.text]


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


def spoken_name(name: str) -> str:
    """A seat's name in sentences: a bot's level left out ("Bot 2 (normal)" is "Bot 2")."""
    base, _sep, level = name.rpartition(" (")
    return base if base and level.endswith(")") and level[:-1] in POLICIES else name


def owner_name(name: str) -> str:
    """``name`` as an owner, its part in brackets left out: "Cy" for "Cy (Ann's bot)" (the
    templates put it in the possessive: "{owner}'s set")."""
    base, _sep, rest = name.rpartition(" (")
    return base if base and rest.endswith(")") else name


def possessive(name: str) -> str:
    """``name``'s possessive, its part in brackets left out: "Bot 2's", "Cy's" for
    "Cy (Ann's bot)"."""
    # TRANSLATORS: a player's possessive, before a thing of theirs: "Ann's" (as in "Ann's set").
    return _("{name}'s").format(name=owner_name(name))


def list_words(items: Sequence[str]) -> str:
    """Names or things joined: "Ann and Bob", "Ann and Bob and Cy"."""
    text = items[0]
    for item in items[1:]:
        # TRANSLATORS: two names or things of a list (a longer list repeats it): "Ann and Bob".
        text = _("{first} and {second}").format(first=text, second=item)
    return text


@dataclass
class Voice:
    """How the narrator names seats: ``names`` in sentences (see :func:`spoken_name`), and the
    viewer's seat ``me`` as "you" when ``second_person``.

    A sentence about a seat is a whole template in each person (:meth:`say`): "You drew ..."
    and "{name} drew ..." are two sentences to translate, never "you" put into one."""

    names: Sequence[str]
    me: int | None = None
    second_person: bool = False

    def is_you(self, seat: int) -> bool:
        """True when ``seat`` is spoken of as "you"."""
        return self.second_person and seat == self.me

    def name(self, seat: int) -> str:
        """``seat``'s name in a sentence (never "you"; a seat named "You", or the word for "you"
        in the language spoken, is "Seat 1 (You)")."""
        name = shown_name(spoken_name(self.names[seat]))
        if name.lower() in ("you", pgettext("subject", "you").lower()):  # "You", "Du", "Tú"
            # TRANSLATORS: a player who named themselves "You", told from the viewer: "Seat 1 (You)".
            return _("Seat {number} ({name})").format(number=seat + 1, name=name)
        return name

    def owner(self, seat: int) -> str:
        """``seat``'s name for a possessive template ("{owner}'s set"): its part in brackets
        left out."""
        return owner_name(self.name(seat))

    def say(self, seat: int, you: str, other: str, **fields: object) -> str:
        """The sentence about ``seat``: template ``you`` (second person) when it is "you",
        else ``other`` with ``{name}``; both marked with ``N_`` where they are written,
        translated here and filled with ``fields``."""
        if self.is_you(seat):
            return _(you).format(**fields)
        return _(other).format(name=self.name(seat), **fields)

    def who(self, seat: int, start: bool = True) -> str:
        """``seat`` as a subject: "You" (or "you" not at the ``start``), or its name (for a
        label or a list; a sentence is a template of :meth:`say`)."""
        if self.is_you(seat):
            return pgettext("subject", "You") if start else pgettext("subject", "you")
        return self.name(seat)

    def whom(self, seat: int) -> str:
        """``seat`` as an object: "you", or its name."""
        return pgettext("object", "you") if self.is_you(seat) else self.name(seat)

    def all(self, seats: Sequence[int], start: bool = True) -> str:
        """Several seats as a subject: "Ann and Bob", "You and Bob"."""
        return list_words([self.who(s, start and i == 0) for i, s in enumerate(seats)])

    def several(self, seats: Sequence[int], one_you: str, one: str, many: str, **fields: object) -> str:
        """The sentence about ``seats``: template ``one_you`` for "you" alone, ``one`` with
        ``{name}`` for another seat alone, ``many`` with ``{names}`` for several (see
        :meth:`say`)."""
        if len(seats) == 1:
            return self.say(seats[0], one_you, one, **fields)
        return _(many).format(names=self.all(seats, start=False), **fields)


def cards_words(cards: Sequence[int]) -> str:
    """Cards in notation, in hand order ("no cards" for none)."""
    return " ".join(card_text(c) for c in sorted(cards, key=sort_key)) or _("no cards")


@dataclass
class Narrator:
    """The story of one game as one viewer saw it (see the module docstring).

    ``names`` are the seats' names (followed from the table, when :meth:`update` is given one);
    ``me`` is the viewer's seat (None: a spectator), whose hand and drawn cards are told;
    ``second_person`` speaks of it as "you" (live play only).
    """

    names: Sequence[str]
    me: int | None = None
    second_person: bool = False
    told: list[Told] = field(default_factory=list)
    summaries: list[HandSummary] = field(default_factory=list)
    _started: bool = False
    _hand_no: int | None = None  # the engine's hand narrated; None: none yet, or voided
    _number: int = 0
    _again: bool = False
    _moves: int = 0
    _held_told: int = 0  # the moves before which the viewer's hand was told
    _pools: int = 0
    _sheet: int = 0
    _out: bool = False
    _takeovers: int = 0
    _returns: int = 0
    _last: GameState | None = None

    @property
    def voice(self) -> Voice:
        """How seats are named now."""
        return Voice(self.names, self.me, self.second_person)

    @property
    def lines(self) -> list[str]:
        """The words of the lines a screen's move log shows, so far."""
        return [t.line for t in self.told if t.shown]

    # ------------------------------------------------------------------------- input

    def update(self, view: GameState, table: TableState | None = None) -> HandSummary | None:
        """Tell what is new in ``view`` (read from ``table``, if given); returns the hand's
        summary when a hand was scored."""
        if not self._started:
            self._begin(view, table)
        if table is not None:
            self._table_events(table)
        if view.stage not in ("deal", "over") and view.hand_no != self._hand_no:
            self._start(view, table)
        summary = None
        if view.hand_no == self._hand_no:
            self._moves_since(view)
            if len(view.pools) > self._pools:
                self._pools = len(view.pools)
                first, end, _top = view.pools[-1]
                self._tell("play", ngettext(
                    "The draw pile ran out: {n} card of the discard pile was reshuffled into a new "
                    "draw pile.",
                    "The draw pile ran out: {n} cards of the discard pile were reshuffled into a new "
                    "draw pile.", end - first).format(n=end - first))
            if view.went_out is not None and not self._out:
                self._out = True
                self._tell("play", self.voice.say(view.went_out, N_("You went out!"), N_("{name} went out!")))
        if len(view.sheet) > self._sheet:
            self._sheet = len(view.sheet)
            summary = self._scored(view, table)
        self._last = view
        return summary

    def said(self, seat: int, text: str) -> None:
        """A line of table chat (a note: chat is not in the log); a machine's notice of who
        watches (:func:`~p2p10.chatroom.spectators_in`) is told as a notice, nobody's words."""
        notice = spectators_in(text)
        if notice is not None:
            self._tell("note", spectators_text(notice))
            return
        # TRANSLATORS: a line of table chat in the move log; {text} is what was typed.
        self._tell("note", self.voice.say(seat, N_("You said: {text}"), N_("{name} said: {text}"), text=text))

    def note(self, text: str) -> None:
        """A line for the move log from outside the log."""
        self._tell("note", text)

    # --------------------------------------------------------------------- the story

    def _tell(self, kind: Kind, text: str, hand: int | None = None, title: str = "") -> None:
        self.told.append(Told(self._number if hand is None else hand, kind, text, title))

    def _begin(self, view: GameState, table: TableState | None) -> None:
        # A game joined under way (a LAN seat's screen opened late): the hands and events
        # before this view are not told. (A screen on a resumed game tells it from the start
        # of its log: see SeatScreen.history.)
        self._started = True
        self._sheet = len(view.sheet)
        self._number = len(view.sheet) + 1 if view.stage == "deal" else view.hand_no + 1
        if table is not None:
            self._takeovers, self._returns = len(table.takeovers), len(table.returns)

    def _table_events(self, table: TableState) -> None:
        for takeover in table.takeovers[self._takeovers:]:
            self._went_on(takeover, table)
        for back in table.returns[self._returns:]:
            self._came_back(back, table)
        self._takeovers, self._returns = len(table.takeovers), len(table.returns)
        self.names = table.names

    def _went_on(self, takeover: Takeover, table: TableState) -> None:
        before, after = self.voice, Voice(table.names, self.me, self.second_person)
        gone = takeover.seats
        voided = self._last is not None and self._last.stage not in ("deal", "over")
        fields = {"seq": takeover.seq, "agreed": before.all(takeover.agreed_by, start=False),
                  "gone": list_words([before.whom(s) for s in gone]), "bots": after.all(gone, start=False)}
        if voided:
            text = after.several(
                gone,
                # TRANSLATORS: the table went on without a machine's seats (PROTOCOL 4.13). {agreed}
                # are the players who agreed ("Ann and Bob", may hold "you"); {gone} the seat(s)
                # gone and {bots} the same seat(s) as named from then on ("Cy (Ann's bot)").
                # (What becomes of the viewer's own seat is said once, by the screen's note.)
                N_("At entry {seq} {agreed} went on without you: the hand under way is void and is dealt "
                   "again without you."),
                N_("At entry {seq} {agreed} went on without {gone}: the hand under way is void and is dealt "
                   "again without that seat; from the next hand {bots} plays as a bot."),
                N_("At entry {seq} {agreed} went on without {gone}: the hand under way is void and is dealt "
                   "again without them; from the next hand {bots} play as a bot."), **fields)
        else:
            text = after.several(
                gone,
                # TRANSLATORS: as above, between two hands.
                N_("At entry {seq} {agreed} went on without you: the next hand is dealt without you."),
                N_("At entry {seq} {agreed} went on without {gone}: the next hand is dealt without that "
                   "seat; from the next hand {bots} plays as a bot."),
                N_("At entry {seq} {agreed} went on without {gone}: the next hand is dealt without them; "
                   "from the next hand {bots} play as a bot."), **fields)
        self._tell("event", text, takeover.hand + 1)
        cosigners = [before.name(s) for s in takeover.agreed_by if s != takeover.runner]
        if cosigners:
            # TRANSLATORS: who wrote the entry that went on without a machine, and who signed it too.
            aside = before.say(takeover.runner, N_("(You wrote the away entry, with the signed agreement of "
                                                   "{cosigners})"),
                               N_("({name} wrote the away entry, with the signed agreement of {cosigners})"),
                               cosigners=list_words(cosigners))
        else:
            aside = before.say(takeover.runner, N_("(You wrote the away entry, nobody else had to agree)"),
                               N_("({name} wrote the away entry, nobody else had to agree)"))
        self._tell("aside", aside, takeover.hand + 1)
        self._hand_no, self._again = None, voided
        self._number = takeover.hand + 1

    def _came_back(self, back: Return, table: TableState) -> None:
        voice = Voice(table.names, self.me, self.second_person)
        text = voice.several(back.seats,
                             # TRANSLATORS: a machine the table went on without took its seat(s) back.
                             N_("At entry {seq} you came back: you play again from hand {hand}."),
                             N_("At entry {seq} {name} came back: {name} plays again from hand {hand}."),
                             N_("At entry {seq} {names} came back: {names} play again from hand {hand}."),
                             seq=back.seq, hand=back.hand + 1)
        self._tell("event", text, back.hand + 1)

    def _start(self, view: GameState, table: TableState | None) -> None:
        voice = self.voice
        self._hand_no, self._number = view.hand_no, view.hand_no + 1
        self._moves = self._held_told = self._pools = 0
        self._out = False
        top = view.top_discard()
        title = _hand_title(self._number, view.tie is not None, self._again)
        self._again = False
        if top is not None:
            # TRANSLATORS: a hand's heading, after "Hand 2: ": who deals, and the first discard.
            heading = voice.say(view.dealer, N_("You deal, {card} turned up"),
                                N_("{name} deals, {card} turned up"), card=card_text(top))
        else:
            heading = voice.say(view.dealer, N_("You deal"), N_("{name} deals"))
        self._tell("heading", heading, title=title)
        if top is not None and is_skip(top):
            order = view.seats_in_hand
            first = next((s for s in order if s > view.dealer), order[0])  # left of the dealer
            self._tell("play", voice.say(first, N_("The Skip turned up: you lose the first turn."),
                                         N_("The Skip turned up: {name} loses the first turn.")))
        if table is not None and table.hand is not None and table.hand.rounds:
            seqs, players = table.hand.rounds[0].seqs, table.players
            # TRANSLATORS: a transcript's note on how a hand was dealt (the dealing cryptography).
            dealt = _("Dealt by {players} shuffles after {players} hand keys with proofs "
                      "(entries {first}-{last}).")
            self._tell("detail", dealt.format(players=players, first=seqs[0] - players,
                                              last=seqs[-1] + players))
        # TRANSLATORS: one player's phase in a list of them: "Ann phase 2".
        phases = ", ".join(_("{name} phase {phase}").format(name=voice.name(s), phase=view.phase_of(s))
                           for s in view.seats_in_hand)
        self._tell("detail", _("Phases: {phases}.").format(phases=phases))
        me = self.me
        if me is not None and me in view.seats_in_hand:
            phase = view.phase_of(me)
            if phase is not None:
                self._tell("play", voice.say(me, N_("Your phase: {phase} ({description})."),
                                             N_("{owner}'s phase: {phase} ({description})."),
                                             owner=voice.owner(me), phase=phase,
                                             description=describe_phase(phase)))
            held = view.hand_cards(me)
            if held:  # (a replay knows them only from the hand's reveal on)
                self._tell("detail", voice.say(me, N_("Your cards: {cards}."),
                                               N_("{owner}'s cards: {cards}."),
                                               owner=voice.owner(me), cards=cards_words(held)))

    def _moves_since(self, view: GameState) -> None:
        history = view.history
        while self._moves < len(history):
            move = history[self._moves]
            if move.seat == self.me and move.action in ("draw", "take") and self._held_told <= self._moves:
                self._held_told = self._moves + 1
                held = self._last.hand_cards(move.seat) if self._last is not None else ()
                if held:
                    self._tell("detail", self.voice.say(move.seat, N_("(your hand: {cards})"),
                                                        N_("({owner}'s hand: {cards})"),
                                                        owner=self.voice.owner(move.seat),
                                                        cards=cards_words(held)))
            line = self._move(view, move, last=self._moves == len(history) - 1)
            if line is None:
                return  # the seat's drawn card opens once the other seats' tokens are in
            self._tell("play", line)
            self._moves += 1

    def _move(self, view: GameState, move: PublicMove, last: bool) -> str | None:
        say = partial(self.voice.say, move.seat)
        if move.action == "draw":
            drawn = None
            if move.seat == self.me and last and view.stage == "play":
                drawn = view.card_at(view.hands[move.seat][-1])
                if drawn is None:
                    return None
            if drawn is None:
                return say(N_("You drew a card from the draw pile."),
                           N_("{name} drew a card from the draw pile."))
            return say(N_("You drew {card} from the draw pile."),
                       N_("{name} drew {card} from the draw pile."), card=card_text(drawn))
        if move.action == "lay":
            melds = "; ".join(m.describe() for m in view.melds if m.owner == move.seat)
            # TRANSLATORS: {melds} are the melds laid down: "set of 7s: R7 B7 G7; run 4-7: R4 B5 G6 Y7".
            return say(N_("You laid down phase {phase}: {melds}."),
                       N_("{name} laid down phase {phase}: {melds}."), phase=move.phase, melds=melds)
        card = move.card
        assert card is not None  # every other move is of a card everybody saw
        if move.action == "take":
            return say(N_("You took {card} from the discard pile."),
                       N_("{name} took {card} from the discard pile."), card=card_text(card))
        if move.action == "hit":
            return self._hit(view, move, card)
        if move.target is not None:
            return skip_sentence(self.voice, move.seat, move.target)
        if is_skip(card) and view.went_out != move.seat:
            return say(N_("You discarded a Skip, with nobody to skip."),
                       N_("{name} discarded a Skip, with nobody to skip."))
        return say(N_("You discarded {card}."), N_("{name} discarded {card}."), card=card_text(card))

    def _hit(self, view: GameState, move: PublicMove, card: int) -> str:
        voice = self.voice
        say = partial(voice.say, move.seat)
        meld = next((m for m in view.melds if card in m.cards), None)
        if meld is None:
            return say(N_("You hit {card}."), N_("{name} hit {card}."), card=card_text(card))
        fields = {"card": card_text(card), "meld": label_text(meld.kind, meld.label, len(meld.cards))}
        # TRANSLATORS: {meld} is a meld's name ("run 4-8", "set of 7s"); {owner} its owner's name.
        if meld.owner == move.seat:
            return say(N_("You hit {card} on own {meld}."), N_("{name} hit {card} on own {meld}."), **fields)
        if voice.is_you(meld.owner):
            return say(N_("You hit {card} on your {meld}."), N_("{name} hit {card} on your {meld}."),
                       **fields)
        return say(N_("You hit {card} on {owner}'s {meld}."), N_("{name} hit {card} on {owner}'s {meld}."),
                   owner=voice.owner(meld.owner), **fields)

    def _scored(self, view: GameState, table: TableState | None) -> HandSummary:
        voice = self.voice
        result = view.sheet[-1]
        hand = result.number + 1
        # The view still holds the ended hand until the next deal, every card revealed.
        left = tuple(tuple(view.known[s] for s in view.hands[seat] if s in view.known)
                     if result.points[seat] is not None else None for seat in range(view.players))
        summary = HandSummary(len(view.sheet), result, left, view.totals, view.winner,
                              tuple(sorted(view.tie)) if view.tie is not None else ())
        if table is not None:
            self._tell("detail", _("Every key and seed revealed; every shuffle and hand checked:"), hand)
        for seat, points in enumerate(result.points):
            if points is not None:
                self._tell("item", _score_item(voice.who(seat), left[seat] or (), points, result.phase[seat],
                                               result.made[seat]), hand)
        # TRANSLATORS: one player's points in a list of them: "Ann 35".
        points_words = ", ".join(_("{name} {points}").format(name=voice.who(s), points=p)
                                 for s, p in enumerate(result.points) if p is not None)
        self._tell("play", voice.say(result.went_out,
                                     N_("Hand {number} over: You went out. Points: {points}."),
                                     N_("Hand {number} over: {name} went out. Points: {points}."),
                                     number=summary.number, points=points_words), hand)
        totals = ", ".join(_("{name} {points}").format(name=voice.who(s), points=t)
                           for s, t in enumerate(view.totals))
        self._tell("detail", _("Totals: {totals}.").format(totals=totals), hand)
        if view.winner is not None:
            self._tell("play", voice.say(view.winner, N_("Game over: You win with {points} points."),
                                         N_("Game over: {name} wins with {points} points."),
                                         points=view.totals[view.winner]), hand)
        elif view.tie is not None:
            # TRANSLATORS: the players tied for the lowest total: "Ann and Bob" (may hold "You").
            self._tell("play", _("A tie: {names} replay their last phase.").format(
                names=voice.all(sorted(view.tie))), hand)
        self.summaries.append(summary)
        return summary


def spectators_text(notice: Spectators) -> str:
    """A notice of who watches the table, in the user's language."""
    if notice.count == 0:
        return _("Nobody is watching the table now.")
    # TRANSLATORS: a notice, not chat: who watches the table now (p2p10 watch); {names} lists
    # their names (some may be left out when there are many).
    return ngettext("Watching the table now ({n}): {names}", "Watching the table now ({n}): {names}",
                    notice.count).format(n=notice.count, names=notice.names)


def going_on_cost(voice: Voice, state: GameState, gone: Sequence[int], name: str) -> tuple[str, str]:
    """What going on without the machine whose seats are ``gone`` (its player ``name``) costs
    the others, asked before they agree (PROTOCOL 4.13): the question, and what is lost. The
    hand under way is dealt again from its start without those seats, so whoever laid down
    their phase in it loses it; between hands, nothing is ("")."""
    if state.stage in ("deal", "over"):
        # TRANSLATORS: asked before the others agree to go on without a player's machine,
        # between two hands.
        return _("Deal the next hand without {name}?").format(name=name), ""
    laid = [s for s in state.seats_in_hand if s not in gone and state.down[s] is not None]
    # TRANSLATORS: asked before the others agree to go on without a player's machine: the
    # hand under way is voided and dealt again from its start.
    ask = _("Deal hand {number} again without {name}?").format(number=state.hand_no + 1, name=name)
    if not laid:
        # TRANSLATORS: after "Deal hand 3 again without Cy?": nobody laid down in it yet.
        return ask, _("Its moves so far are lost.")
    lost = voice.several(laid,
                         # TRANSLATORS: after "Deal hand 3 again without Cy?".
                         N_("You lose the phase you laid down."),
                         N_("{name} loses the phase laid down."),
                         N_("{names} lose the phases laid down."))
    return ask, lost[:1].upper() + lost[1:]


def skip_sentence(voice: Voice, seat: int, target: int) -> str:
    """``seat`` skipped ``target``, as ``voice`` says it: "You skipped Ann.", "Bot 2 skipped
    you.", "Bot 2 skipped Ann." (the move log, and a play screen's status line)."""
    if voice.is_you(target):
        # TRANSLATORS: another player discarded a Skip on you.
        return _("{name} skipped you.").format(name=voice.name(seat))
    return voice.say(seat, N_("You skipped {target}."), N_("{name} skipped {target}."),
                     target=voice.name(target))


def _hand_title(number: int, tie: bool, again: bool) -> str:
    """A hand's title in the move log: "Hand 2", "Hand 2 (tie replay)", "Hand 1, dealt again"."""
    if tie and again:
        return _("Hand {number} (tie replay), dealt again").format(number=number)
    if tie:
        return _("Hand {number} (tie replay)").format(number=number)
    if again:
        # TRANSLATORS: a hand voided when the table went on without a machine, dealt anew.
        return _("Hand {number}, dealt again").format(number=number)
    return _("Hand {number}").format(number=number)


def _score_item(who: str, left: Sequence[int], points: int, phase: int | None, made: bool) -> str:
    """A transcript's line of one seat's score at a hand's end (``who`` is a name or "You")."""
    fields = {"who": who, "cards": cards_words(left), "points": points, "phase": phase}
    # TRANSLATORS: a transcript's line at a hand's end: who, the cards left in hand, their
    # points, and the phase played (with its description) made or not.
    if phase is None:
        return ngettext("{who}: {cards} = {points} point; phase - not made.",
                        "{who}: {cards} = {points} points; phase - not made.", points).format(**fields)
    fields["description"] = describe_phase(phase)
    if made:
        return ngettext("{who}: {cards} = {points} point; phase {phase} ({description}) made.",
                        "{who}: {cards} = {points} points; phase {phase} ({description}) made.",
                        points).format(**fields)
    return ngettext("{who}: {cards} = {points} point; phase {phase} ({description}) not made.",
                    "{who}: {cards} = {points} points; phase {phase} ({description}) not made.",
                    points).format(**fields)
