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
from typing import TYPE_CHECKING, Literal

from p2p10.bots import POLICIES
from p2p10.cards import card_text, is_skip, sort_key
from p2p10.engine import GameState, HandResult, PublicMove
from p2p10.melds import label_text
from p2p10.rules import describe_phase

if TYPE_CHECKING:  # a narrator of the engine alone needs none of the dealing cryptography
    from p2p10.table import Return, TableState, Takeover

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
        return f"{self.title}: {self.text}" if self.title else self.text

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
    base, _, level = name.rpartition(" (")
    return base if base and level.endswith(")") and level[:-1] in POLICIES else name


def possessive(name: str) -> str:
    """``name``'s possessive, its part in brackets left out: "Bot 2's", "Cy's" for
    "Cy (Ann's bot)"."""
    base, _, rest = name.rpartition(" (")
    return f"{base if base and rest.endswith(')') else name}'s"


@dataclass
class Voice:
    """How the narrator names seats: ``names`` in sentences (see :func:`spoken_name`), and the
    viewer's seat ``me`` as "you" when ``second_person``."""

    names: Sequence[str]
    me: int | None = None
    second_person: bool = False

    def is_you(self, seat: int) -> bool:
        """True when ``seat`` is spoken of as "you"."""
        return self.second_person and seat == self.me

    def name(self, seat: int) -> str:
        """``seat``'s name in a sentence (never "you"; a seat named "You" is "Seat 1 (You)")."""
        name = spoken_name(self.names[seat])
        return f"Seat {seat + 1} ({name})" if name.lower() == "you" else name

    def who(self, seat: int, start: bool = True) -> str:
        """``seat`` as a subject: "You" (or "you" not at the ``start``), or its name."""
        if self.is_you(seat):
            return "You" if start else "you"
        return self.name(seat)

    def whom(self, seat: int) -> str:
        """``seat`` as an object: "you", or its name."""
        return "you" if self.is_you(seat) else self.name(seat)

    def whose(self, seat: int, start: bool = False) -> str:
        """``seat``'s possessive: "your" ("Your" at the ``start``), or "Bot 2's"."""
        if self.is_you(seat):
            return "Your" if start else "your"
        return possessive(self.name(seat))

    def does(self, seats: Sequence[int], verb: str, start: bool = True) -> str:
        """``seats`` as the subject of ``verb`` in the present, agreeing: "You deal", "Ann
        deals", "Ann and Bob play"."""
        who = self.all(seats, start)
        plural = len(seats) > 1 or self.is_you(seats[0])
        return f"{who} {verb if plural else verb + 's'}"

    def all(self, seats: Sequence[int], start: bool = True) -> str:
        """Several seats as a subject: "Ann and Bob", "You and Bob"."""
        return " and ".join(self.who(s, start and i == 0) for i, s in enumerate(seats))


def cards_words(cards: Sequence[int]) -> str:
    """Cards in notation, in hand order ("no cards" for none)."""
    return " ".join(card_text(c) for c in sorted(cards, key=sort_key)) or "no cards"


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
                first, end, _ = view.pools[-1]
                self._tell("play", f"The draw pile ran out: {end - first} cards of the discard pile "
                                   "were reshuffled into a new draw pile.")
            if view.went_out is not None and not self._out:
                self._out = True
                self._tell("play", f"{self.voice.who(view.went_out)} went out!")
        if len(view.sheet) > self._sheet:
            self._sheet = len(view.sheet)
            summary = self._scored(view, table)
        self._last = view
        return summary

    def said(self, seat: int, text: str) -> None:
        """A line of table chat (a note: chat is not in the log)."""
        self._tell("note", f"{self.voice.who(seat)} said: {text}")

    def note(self, text: str) -> None:
        """A line for the move log from outside the log."""
        self._tell("note", text)

    # --------------------------------------------------------------------- the story

    def _tell(self, kind: Kind, text: str, hand: int | None = None, title: str = "") -> None:
        self.told.append(Told(self._number if hand is None else hand, kind, text, title))

    def _begin(self, view: GameState, table: TableState | None) -> None:
        # A game joined under way (resumed, or a LAN seat's screen opened late): the hands
        # and events before this view are not told again.
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
        them = "them" if len(gone) > 1 else "that seat"
        voided = self._last is not None and self._last.stage not in ("deal", "over")
        if voided:
            fate = f"the hand under way is void and is dealt again without {them}"
        else:
            fate = f"the next hand is dealt without {them}"
        bots = after.does(gone, "play", start=False)
        self._tell("event", f"At entry {takeover.seq} {before.all(takeover.agreed_by, start=False)} went on "
                            f"without {' and '.join(before.whom(s) for s in gone)}: {fate}; from the "
                            f"next hand {bots} as a bot.", takeover.hand + 1)
        cosigners = [before.name(s) for s in takeover.agreed_by if s != takeover.runner]
        agreement = (f"with the signed agreement of {' and '.join(cosigners)}" if cosigners
                     else "nobody else had to agree")
        self._tell("aside", f"({before.who(takeover.runner)} wrote the away entry, {agreement})",
                   takeover.hand + 1)
        self._hand_no, self._again = None, voided
        self._number = takeover.hand + 1

    def _came_back(self, back: Return, table: TableState) -> None:
        voice = Voice(table.names, self.me, self.second_person)
        self._tell("event", f"At entry {back.seq} {voice.all(back.seats, start=False)} came back: "
                            f"{voice.does(back.seats, 'play', start=False)} again from hand "
                            f"{back.hand + 1}.", back.hand + 1)

    def _start(self, view: GameState, table: TableState | None) -> None:
        voice = self.voice
        self._hand_no, self._number = view.hand_no, view.hand_no + 1
        self._moves = self._held_told = self._pools = 0
        self._out = False
        top = view.top_discard()
        turned = f"{card_text(top)} turned up" if top is not None else "dealt"
        tie = " (tie replay)" if view.tie is not None else ""
        again = ", dealt again" if self._again else ""
        self._again = False
        self._tell("heading", f"{voice.does([view.dealer], 'deal')}, {turned}",
                   title=f"Hand {self._number}{tie}{again}")
        if top is not None and is_skip(top):
            order = view.seats_in_hand
            first = next((s for s in order if s > view.dealer), order[0])  # left of the dealer
            self._tell("play", f"The Skip turned up: {voice.does([first], 'lose')} the first turn.")
        if table is not None and table.hand is not None and table.hand.rounds:
            seqs, players = table.hand.rounds[0].seqs, table.players
            self._tell("detail", f"Dealt by {players} shuffles after {players} hand keys with proofs "
                                 f"(entries {seqs[0] - players}-{seqs[-1] + players}).")
        phases = ", ".join(f"{voice.name(s)} phase {view.phase_of(s)}" for s in view.seats_in_hand)
        self._tell("detail", f"Phases: {phases}.")
        me = self.me
        if me is not None and me in view.seats_in_hand:
            phase = view.phase_of(me)
            if phase is not None:
                self._tell("play", f"{voice.whose(me, start=True)} phase: {phase} ({describe_phase(phase)}).")
            held = view.hand_cards(me)
            if held:  # (a replay knows them only from the hand's reveal on)
                self._tell("detail", f"{voice.whose(me, start=True)} cards: {cards_words(held)}.")

    def _moves_since(self, view: GameState) -> None:
        history = view.history
        while self._moves < len(history):
            move = history[self._moves]
            if move.seat == self.me and move.action in ("draw", "take") and self._held_told <= self._moves:
                self._held_told = self._moves + 1
                held = self._last.hand_cards(move.seat) if self._last is not None else ()
                if held:
                    self._tell("detail", f"({self.voice.whose(move.seat)} hand: {cards_words(held)})")
            line = self._move(view, move, last=self._moves == len(history) - 1)
            if line is None:
                return  # the seat's drawn card opens once the other seats' tokens are in
            self._tell("play", line)
            self._moves += 1

    def _move(self, view: GameState, move: PublicMove, last: bool) -> str | None:
        voice = self.voice
        who = voice.who(move.seat)
        if move.action == "draw":
            drawn = None
            if move.seat == self.me and last and view.stage == "play":
                drawn = view.card_at(view.hands[move.seat][-1])
                if drawn is None:
                    return None
            return f"{who} drew {card_text(drawn) if drawn is not None else 'a card'} from the draw pile."
        if move.action == "lay":
            melds = "; ".join(m.describe() for m in view.melds if m.owner == move.seat)
            return f"{who} laid down phase {move.phase}: {melds}."
        card = move.card
        assert card is not None  # every other move is of a card everybody saw
        if move.action == "take":
            return f"{who} took {card_text(card)} from the discard pile."
        if move.action == "hit":
            meld = next((m for m in view.melds if card in m.cards), None)
            if meld is None:
                return f"{who} hit {card_text(card)}."
            owner = "own" if meld.owner == move.seat else voice.whose(meld.owner)
            name = label_text(meld.kind, meld.label, len(meld.cards))
            return f"{who} hit {card_text(card)} on {owner} {name}."
        if move.target is not None:
            return f"{who} skipped {voice.whom(move.target)}."
        if is_skip(card) and view.went_out != move.seat:
            return f"{who} discarded a Skip, with nobody to skip."
        return f"{who} discarded {card_text(card)}."

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
            self._tell("detail", "Every key and seed revealed; every shuffle and hand checked:", hand)
        for seat, points in enumerate(result.points):
            if points is not None:
                phase = result.phase[seat]
                made = "made" if result.made[seat] else "not made"
                about = f" ({describe_phase(phase)})" if phase else ""
                self._tell("item", f"{voice.who(seat)}: {cards_words(left[seat] or ())} = {points} points; "
                                   f"phase {phase or '-'}{about} {made}.", hand)
        points_words = ", ".join(f"{voice.who(s)} {p}" for s, p in enumerate(result.points) if p is not None)
        self._tell("play", f"Hand {summary.number} over: {voice.who(result.went_out)} went out. "
                           f"Points: {points_words}.", hand)
        self._tell("detail", "Totals: " + ", ".join(f"{voice.who(s)} {t}" for s, t in enumerate(view.totals))
                   + ".", hand)
        if view.winner is not None:
            self._tell("play", f"Game over: {voice.does([view.winner], 'win')} with "
                               f"{view.totals[view.winner]} points.", hand)
        elif view.tie is not None:
            self._tell("play", f"A tie: {voice.all(sorted(view.tie))} replay their last phase.", hand)
        self.summaries.append(summary)
        return summary
