"""The hint key: what the strong bot would do now, and why, in a few words.

:func:`advise` asks the ``hard`` strong bot (:data:`ADVISOR_LEVEL`) for the seat's move, from
what the seat may see (:meth:`GameState.seen_by`), and returns that very move with a short
reason. ``hard`` is the strongest level (``benchmarks/bench_ladder.py``) and cheap enough for a
key press that wants an answer well under 0.3 s (``benchmarks/bench_bots.py`` part 3 times it
with a cold solver cache).

The bot does not say why it chose, so the why is derived afterwards from the same view with
the bot's own measures (:meth:`StrongPolicy.target_phase`, :meth:`StrongPolicy.rank_discards`,
:meth:`StrongPolicy.takes`, :meth:`StrongPolicy.skip_target_key`, :func:`p2p10.bots.feed`,
:func:`p2p10.bots.bridging_outs`, :func:`p2p10.bots.hits_after`, the solver's plan): the reason
explains the move and never changes it.

A reason is data first (:class:`Reason`: a kind and its arguments: cards, seats, numbers, melds)
and words second: :func:`reason_text` fills the kind's sentence template from
:data:`TEMPLATES`, which holds every English sentence and fragment of this module in one place,
as format strings with named placeholders, marked for translation and translated into the
current language (:mod:`p2p10.i18n`) when a reason is put into words.

Out of turn there is nothing to advise: :func:`advise` raises :class:`NoAdvice`, whose message
says why in words a player can read.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from p2p10.bots import POLICIES, Feed, StrongPolicy, bridging_outs, feed, hits_after, unseen_cards
from p2p10.cards import COLOUR_NAMES, card_text, is_skip, is_wild, points
from p2p10.engine import GameState
from p2p10.errors import P2P10Error
from p2p10.events import Discard, DrawStock, Hit, LayDown, SeatEvent, TakeDiscard
from p2p10.i18n import N_, _
from p2p10.measure import WILD_IDS, missing
from p2p10.melds import Meld, check_meld, hit_ends
from p2p10.moves import discard_moves, hit_moves, hit_targets
from p2p10.rules import PHASES, MeldKind
from p2p10.solver import meld_partners, solve

ADVISOR_LEVEL = "hard"

ReasonKind = Literal[
    # drawing
    "take_completes", "take_makes", "take_builds", "take_goes_down", "take_wild", "take_hit",
    "take_last", "take",
    "draw_useless", "draw_no_closer", "draw_no_hit", "draw_skip", "draw_empty",
    # laying down and hitting
    "lay_down", "lay_down_out", "hit", "hit_out", "hit_opens",
    # Skips
    "skip_closest", "skip_ahead", "skip_lowest", "skip_only", "skip_even", "skip_nobody",
    # other discards
    "discard_out", "discard_spare", "discard_least", "discard_keeps_down", "discard_danger",
    "discard_avoid", "discard_feeds", "discard_bridge", "discard_fits_nothing", "discard_dearest",
    "discard_wilds", "discard",
    # clauses: what the next player would do with a card (the {feed} of discard_avoid/_feeds)
    "feed_wild", "feed_hit", "feed_hit_own", "feed_set", "feed_run", "feed_color",
]

# Every sentence and fragment, in English, marked for translation (reason_text translates them).
# Placeholders: {card} and {other} are cards in notation, {seat} a player's name, {number} a
# number (a phase, a set's number), {meld} a meld with its owner ("your run 3-6", "Ann's set of
# 7s", from the owner.* templates), {melds} meld names joined by "and", {feed} a feed_* clause.
# A reason about a colour has a template for each colour (feed_color.red, ...), and so has a
# colour group (meld.color.red, ...): the colour's word agrees with the words around it.
TEMPLATES: Mapping[str, str] = {
    # TRANSLATORS: advice for the player, as short as the English (at most 80 characters
    # once filled in). {card} is a card in notation (R7, W), {meld} a meld with its owner
    # ("your run 3-6", "Ann's set of 7s"); the sentences start lower case.
    "take_completes": N_("take {card} from the discard pile: with it you can lay down phase {number}"),
    "take_makes": N_("take {card} from the discard pile: it makes {meld}"),
    "take_builds": N_("take {card} from the discard pile: it builds {meld}"),
    # TRANSLATORS: the card is not needed for the phase, but it will be laid down with it.
    "take_goes_down": N_("take {card} from the discard pile: it goes down with phase {number}"),
    "take_wild": N_("take {card} from the discard pile: a wild fits any meld"),
    "take_hit": N_("take {card} from the discard pile: you can hit it on {meld}"),
    "take_last": N_("take {card} from the discard pile: the draw pile is empty"),
    "take": N_("take {card} from the discard pile"),
    "draw_useless": N_("draw from the pile: the {card} on the discard pile fits nothing of yours"),
    # TRANSLATORS: the card would pair with a card in hand, but the hand would still miss as
    # many cards for the phase.
    "draw_no_closer": N_("draw from the pile: taking {card} brings you no closer to phase {number}"),
    "draw_no_hit": N_("draw from the pile: you cannot hit the {card} from the discard pile"),
    "draw_skip": N_("draw from the pile: a Skip cannot be taken from the discard pile"),
    "draw_empty": N_("draw from the pile: the discard pile is empty"),
    # TRANSLATORS: {melds} are the melds of the phase: "set of 7s and run 9-12".
    "lay_down": N_("lay down phase {number}: {melds}"),
    "lay_down_out": N_("lay down phase {number} and go out: {melds}"),
    "hit": N_("hit {card} on {meld}"),
    "hit_out": N_("hit {card} on {meld} and go out"),
    # TRANSLATORS: after this hit, another card of the player's fits too.
    "hit_opens": N_("hit {card} on {meld}: then more of your cards fit"),
    # TRANSLATORS: {card} is a Skip (S), {seat} the player it skips.
    "skip_closest": N_("discard {card} to skip {seat}, who is closest to going out"),
    "skip_ahead": N_("discard {card} to skip {seat}, who has made the most phases"),
    "skip_lowest": N_("discard {card} to skip {seat}, who has the lowest score"),
    "skip_only": N_("discard {card} to skip {seat}: nobody else may be skipped now"),
    "skip_even": N_("discard {card} to skip {seat}: nobody else is further ahead"),
    "skip_nobody": N_("discard {card}: no meld takes it, and nobody may be skipped now"),
    "discard_out": N_("discard {card} and go out"),
    "discard_spare": N_("discard {card}: no meld of yours needs it"),
    "discard_least": N_("discard {card}: you need every card, and this one least"),
    # TRANSLATORS: {other} is the card kept: it will be laid down with the phase.
    "discard_keeps_down": N_("discard {card}, not {other}: {other} goes down with phase {number}"),
    # TRANSLATORS: {seat} has laid down and holds two cards or fewer.
    "discard_danger": N_("discard {card}: {seat} may go out soon, and it costs {number} points"),
    # TRANSLATORS: {other} is the card kept instead, {feed} says who it would help, as in
    # "discard R3, not Y12: Bob collects 12s".
    "discard_avoid": N_("discard {card}, not {other}: {feed}"),
    # TRANSLATORS: {feed} says who the card helps, as in "Bob collects 12s".
    "discard_feeds": N_("discard {card}: it helps you least, though {feed}"),
    # TRANSLATORS: {other} is the card kept: one card drawn could let the player hit it.
    "discard_bridge": N_("discard {card}, not {other}: one draw could let you hit {other}"),
    "discard_fits_nothing": N_("discard {card}: it fits no meld and costs {number} points in hand"),
    "discard_dearest": N_("discard {card}: it is your dearest card"),
    "discard_wilds": N_("discard {card}: you hold nothing but wilds"),
    "discard": N_("discard {card}"),
    # TRANSLATORS: what the next player would do with a card: the {feed} of "discard {card},
    # not {other}: {feed}" and of "discard {card}: it helps you least, though {feed}".
    "feed_wild": N_("{seat} would take a wild"),
    "feed_hit": N_("{seat} could hit it on {meld}"),
    # TRANSLATORS: {melds} is a meld's name: "{seat} could hit it on their run 3-6".
    "feed_hit_own": N_("{seat} could hit it on their {melds}"),
    # TRANSLATORS: Bob collects 12s: the cards Bob takes for a set are 12s.
    "feed_set": N_("{seat} collects {number}s"),
    "feed_run": N_("{seat} took a {number} for a run"),
    "feed_color.red": N_("{seat} collects red cards"),
    "feed_color.blue": N_("{seat} collects blue cards"),
    "feed_color.green": N_("{seat} collects green cards"),
    "feed_color.yellow": N_("{seat} collects yellow cards"),
    # fragments: a meld's bare name (in the {melds} of a lay-down, and after "their")
    # TRANSLATORS: a set by its number: "set of 7s".
    "meld.set": N_("set of {number}s"),
    # TRANSLATORS: a run by its lowest and highest numbers: "run 3-6".
    "meld.run": N_("run {low}-{high}"),
    # TRANSLATORS: a group of cards of one colour.
    "meld.color.red": N_("red group"),
    "meld.color.blue": N_("blue group"),
    "meld.color.green": N_("green group"),
    "meld.color.yellow": N_("yellow group"),
    # fragments: a meld with its owner, the {meld} of a sentence (translate it to fit in every
    # sentence with a {meld}: "take R7 from the discard pile: it makes your set of 7s", "hit R7
    # on Ann's set of 7s", "Bob could hit it on Ann's set of 7s")
    # TRANSLATORS: the player's own set (the {meld} of a sentence).
    "owner.yours.set": N_("your set of {number}s"),
    "owner.yours.run": N_("your run {low}-{high}"),
    "owner.yours.color.red": N_("your red group"),
    "owner.yours.color.blue": N_("your blue group"),
    "owner.yours.color.green": N_("your green group"),
    "owner.yours.color.yellow": N_("your yellow group"),
    # TRANSLATORS: another player's set (the {meld} of a sentence): "Ann's set of 7s".
    "owner.theirs.set": N_("{seat}'s set of {number}s"),
    "owner.theirs.run": N_("{seat}'s run {low}-{high}"),
    "owner.theirs.color.red": N_("{seat}'s red group"),
    "owner.theirs.color.blue": N_("{seat}'s blue group"),
    "owner.theirs.color.green": N_("{seat}'s green group"),
    "owner.theirs.color.yellow": N_("{seat}'s yellow group"),
    # TRANSLATORS: two melds of a phase (a longer list repeats it): "set of 7s and run 9-12".
    "list.and": N_("{first} and {second}"),
    # why there is no advice (the messages of NoAdvice)
    # TRANSLATORS: why the hint key gives no advice now.
    "none.reshuffle": N_("the draw pile is being reshuffled: ask again in a moment"),
    "none.no_hand": N_("no hand is being played now"),
    "none.not_your_turn": N_("it is {seat}'s turn, not yours"),
    "none.hidden_hand": N_("this table does not know your cards"),
}


class NoAdvice(P2P10Error):
    """There is no move to advise ``seat`` now: it is not its turn, or no hand is being played."""


@dataclass(frozen=True, slots=True)
class MeldName:
    """A meld as words: its kind, label (a set's number, a run's lowest value, a group's colour)
    and length, and its owner (None: the advised seat's own meld, laid down or planned)."""

    kind: MeldKind
    label: int
    length: int
    owner: int | None = None


@dataclass(frozen=True, slots=True)
class Reason:
    """Why, as data: the kind of reason (a key of :data:`TEMPLATES`) and its arguments.

    ``card`` is the card moved (or the one on the discard pile for a draw), ``other`` a card
    kept instead, ``seat`` another player, ``number`` a phase or a set's number, ``colour`` a
    colour index, ``meld`` one meld, ``melds`` the melds of a lay-down, ``clause`` a nested
    ``feed_*`` reason.
    """

    kind: ReasonKind
    card: int | None = None
    other: int | None = None
    seat: int | None = None
    number: int | None = None
    colour: int | None = None
    meld: MeldName | None = None
    melds: tuple[MeldName, ...] = ()
    clause: Reason | None = None


@dataclass(frozen=True, slots=True)
class Advice:
    """The strong bot's move for the seat now, its reason in words (in the language spoken when
    it was advised), and the reason as data."""

    move: SeatEvent
    reason: str
    reason_parts: Reason


# ------------------------------------------------------------------------ the words

def meld_text(meld: MeldName, templates: Mapping[str, str] = TEMPLATES) -> str:
    """A meld's bare name: 'set of 7s', 'run 3-6', 'red group' (in the current language)."""
    return _meld_words("meld", meld, {}, templates)


def reason_text(reason: Reason, names: Sequence[str], templates: Mapping[str, str] = TEMPLATES) -> str:
    """The sentence for ``reason``, seats named by ``names``, in the current language: each
    template of ``templates`` is translated with the catalogue (another set of templates than
    :data:`TEMPLATES` puts other words in, and is translated only where the catalogue has them)."""
    fields: dict[str, str] = {}
    if reason.card is not None:
        fields["card"] = card_text(reason.card)
    if reason.other is not None:
        fields["other"] = card_text(reason.other)
    if reason.seat is not None:
        fields["seat"] = names[reason.seat]
    if reason.number is not None:
        fields["number"] = str(reason.number)
    if reason.meld is not None:
        fields["meld"] = _owned_text(reason.meld, names, templates)
    if reason.melds:
        fields["melds"] = _list_text([meld_text(m, templates) for m in reason.melds], templates)
    if reason.clause is not None:
        fields["feed"] = reason_text(reason.clause, names, templates)
    key: str = reason.kind
    if reason.colour is not None and f"{key}.{COLOUR_NAMES[reason.colour]}" in templates:
        key = f"{key}.{COLOUR_NAMES[reason.colour]}"  # a sentence for each colour
    return _(templates[key]).format(**fields)


def _meld_words(prefix: str, meld: MeldName, fields: Mapping[str, str],
                templates: Mapping[str, str]) -> str:
    """The template ``prefix``.set/.run/.color.<colour> for ``meld``, filled in."""
    if meld.kind == "set":
        return _(templates[f"{prefix}.set"]).format(number=meld.label, **fields)
    if meld.kind == "run":
        return _(templates[f"{prefix}.run"]).format(low=meld.label, high=meld.label + meld.length - 1,
                                                   **fields)
    return _(templates[f"{prefix}.color.{COLOUR_NAMES[meld.label]}"]).format(**fields)


def _owned_text(meld: MeldName, names: Sequence[str], templates: Mapping[str, str]) -> str:
    if meld.owner is None:
        return _meld_words("owner.yours", meld, {}, templates)
    return _meld_words("owner.theirs", meld, {"seat": names[meld.owner]}, templates)


def _list_text(items: Sequence[str], templates: Mapping[str, str]) -> str:
    text = items[0]
    for item in items[1:]:
        text = _(templates["list.and"]).format(first=text, second=item)
    return text


# ------------------------------------------------------------------------ the advice

def advisor() -> StrongPolicy:
    """The strong bot whose moves the hint key advises (the one seated as ``ADVISOR_LEVEL``)."""
    policy = POLICIES[ADVISOR_LEVEL]
    assert isinstance(policy, StrongPolicy)
    return policy


def advise(state: GameState, seat: int, names: Sequence[str], rng: random.Random | int) -> Advice:
    """What the strong bot would play for ``seat`` now, and why.

    Only what ``seat`` may see is used (the state is redacted with ``seen_by`` first). ``rng``
    (or a seed) is the bot's random source (only ``easy`` draws from it): the same state and
    seed give the same advice. Raises :class:`NoAdvice` when it is not ``seat``'s turn to move.
    """
    _check_turn(state, seat, names)
    view = state.seen_by(seat)
    if isinstance(rng, int):
        rng = random.Random(rng)
    policy = advisor()
    move = policy(view, seat, rng)
    why = explain(view, seat, move, policy)
    return Advice(move, reason_text(why, names), why)


def skip_choice(view: GameState, targets: Sequence[int]) -> int:
    """Of ``targets``, the player the strong bot would skip (the one a Skip's hint names): the
    one down and nearest going out, then with the most phases made, then the lowest total."""
    policy = advisor()
    return max(targets, key=lambda t: policy.skip_target_key(view, t))


def _check_turn(state: GameState, seat: int, names: Sequence[str]) -> None:
    waiting = state.awaiting()
    if waiting.kind == "reshuffle":
        raise NoAdvice(_(TEMPLATES["none.reshuffle"]))
    if waiting.kind != "move" or waiting.seat is None:
        raise NoAdvice(_(TEMPLATES["none.no_hand"]))
    if waiting.seat != seat:
        raise NoAdvice(_(TEMPLATES["none.not_your_turn"]).format(seat=names[waiting.seat]))
    if any(slot not in state.known for slot in state.hands[seat]):
        raise NoAdvice(_(TEMPLATES["none.hidden_hand"]))


def explain(view: GameState, seat: int, move: SeatEvent, policy: StrongPolicy) -> Reason:
    """Why ``policy`` plays ``move`` for ``seat`` in ``view`` (the seat's own view)."""
    if isinstance(move, DrawStock | TakeDiscard):
        return _explain_draw(view, seat, move, policy)
    out = len(view.hands[seat]) == _cards_played(move)
    if isinstance(move, LayDown):
        melds = tuple(
            MeldName(req.kind, check_meld(req.kind, spec.cards, req.size, spec.label,
                                          not view.rules.natural_per_phase), len(spec.cards))
            for req, spec in zip(PHASES[move.phase], move.melds, strict=True))
        return Reason("lay_down_out" if out else "lay_down", number=move.phase, melds=melds)
    if isinstance(move, Hit):
        kind: ReasonKind = "hit_out" if out else "hit"
        if (not out and hits_after(view.apply(move), seat) > 0
                and all(h.slot == move.slot for h in hit_moves(view, seat))):
            kind = "hit_opens"  # nothing else fit before this hit
        return Reason(kind, card=move.card, meld=_meld_name(view.melds[move.meld], seat))
    if out:
        return Reason("discard_out", card=move.card)
    if is_skip(move.card):
        return _explain_skip(view, seat, move, policy)
    if view.down[seat] is not None:
        return _explain_discard_when_down(view, seat, move)
    return _explain_discard(view, seat, move, policy)


def _cards_played(move: LayDown | Hit | Discard) -> int:
    if isinstance(move, LayDown):
        return sum(len(spec.cards) for spec in move.melds)
    return 1


def _meld_name(meld: Meld, seat: int) -> MeldName:
    return MeldName(meld.kind, meld.label, len(meld.cards), None if meld.owner == seat else meld.owner)


# -- drawing

def _explain_draw(view: GameState, seat: int, move: DrawStock | TakeDiscard,
                  policy: StrongPolicy) -> Reason:
    top = view.top_discard()
    if isinstance(move, DrawStock):
        if top is None:
            return Reason("draw_empty")
        if is_skip(top):
            return Reason("draw_skip", card=top)
        if view.down[seat] is not None:
            return Reason("draw_no_hit", card=top)
        return _explain_refused(view, seat, top, policy)
    if top is None:  # pragma: no cover - TakeDiscard is legal only with a card to take
        return Reason("draw_empty")
    if not view.stock:
        return Reason("take_last", card=top)
    if view.down[seat] is not None:
        fits = next((m for m in hit_targets(view, seat) if hit_ends(m, top)), None)
        return Reason("take_hit", card=top, meld=_meld_name(fits, seat)) if fits else Reason("take", card=top)
    if is_wild(top):
        return Reason("take_wild", card=top)
    return _explain_taken_for_phase(view, seat, top, policy)


def _explain_taken_for_phase(view: GameState, seat: int, top: int, policy: StrongPolicy) -> Reason:
    """Why a seat not down takes the discard pile's natural ``top``: what it does for the
    phase the seat aims at."""
    hand = view.hand_cards(seat) + (top,)
    phase = policy.target_phase(view, seat, hand)
    if phase is None:
        return Reason("take", card=top)
    after = missing(hand, phase, view.rules)
    if after == 0:
        return Reason("take_completes", card=top, number=phase)
    if after == missing(hand[:-1], phase, view.rules):
        # Taken though the hand misses as many cards: it goes down with the phase (hard).
        return Reason("take_goes_down", card=top, number=phase)
    # With the wilds it still misses, every plan of the phase uses the top card (without it
    # the hand would miss no more): the meld that takes it is the one the card builds.
    wilds = tuple(w for w in WILD_IDS if w not in hand)[:after]
    plan = solve(hand + wilds, phase, view.rules)
    meld = next((m for m in plan.melds if top in m.cards), None) if plan is not None else None
    if meld is None:
        return Reason("take", card=top)
    # "makes" when the meld needs none of the wilds still missing, "builds" when it does.
    kind: ReasonKind = "take_builds" if set(meld.cards) & set(wilds) else "take_makes"
    return Reason(kind, card=top, meld=MeldName(meld.kind, meld.label, len(meld.cards)))


def _explain_refused(view: GameState, seat: int, top: int, policy: StrongPolicy) -> Reason:
    """Why a seat not down leaves the discard pile's ``top``: it fits nothing of the hand
    (no card in hand shares a meld of an allowed phase with it, by the solver), or it would
    leave the hand missing as many cards for the phase aimed at."""
    hand = view.hand_cards(seat)
    if not any(meld_partners(top, hand, phase) for phase in view.allowed_phases(seat)):
        return Reason("draw_useless", card=top)
    phase = policy.target_phase(view, seat, (*hand, top))
    return Reason("draw_no_closer", card=top, number=phase)


# -- Skips

def _explain_skip(view: GameState, seat: int, move: Discard, policy: StrongPolicy) -> Reason:
    target = move.target
    if target is None:
        return Reason("skip_nobody", card=move.card)
    others = [t for t in view.skip_targets(seat) if t != target]
    if not others:
        return Reason("skip_only", card=move.card, seat=target)
    key = policy.skip_target_key(view, target)
    runner_up = max(policy.skip_target_key(view, t) for t in others)
    # The first part of the key that sets the target apart says why it was chosen.
    kinds: tuple[ReasonKind, ...] = ("skip_closest", "skip_closest", "skip_ahead", "skip_lowest")
    for kind, mine, theirs in zip(kinds, key, runner_up, strict=True):
        if mine != theirs:
            return Reason(kind, card=move.card, seat=target)
    return Reason("skip_even", card=move.card, seat=target)


# -- other discards

def _feed_reason(view: GameState, seat: int, fed: Feed) -> Reason:
    if fed.kind == "hit":
        meld = view.melds[fed.value]
        if meld.owner == fed.seat:
            return Reason("feed_hit_own", seat=fed.seat, melds=(_meld_name(meld, seat),))
        return Reason("feed_hit", seat=fed.seat, meld=_meld_name(meld, seat))
    if fed.kind == "color":
        return Reason("feed_color", seat=fed.seat, colour=fed.value)
    if fed.kind == "set":
        return Reason("feed_set", seat=fed.seat, number=fed.value)
    if fed.kind == "run":
        return Reason("feed_run", seat=fed.seat, number=fed.value)
    return Reason("feed_wild", seat=fed.seat)


def _kept_for_next(view: GameState, seat: int, move: Discard, kept: Discard) -> Reason | None:
    """The reason when the bot threw ``move`` rather than ``kept`` (its pick had the next
    player not mattered) because ``kept`` would help the next player, else None."""
    fed = feed(view, seat, kept.card)
    if kept.card == move.card or fed is None:
        return None
    return Reason("discard_avoid", card=move.card, other=kept.card, clause=_feed_reason(view, seat, fed))


def _explain_discard_when_down(view: GameState, seat: int, move: Discard) -> Reason:
    if is_wild(move.card):
        return Reason("discard_wilds", card=move.card)
    options = discard_moves(view, seat)
    blind = min(options, key=lambda d: (is_wild(d.card), -points(d.card)))
    avoided = _kept_for_next(view, seat, move, blind)
    if avoided is not None:
        return avoided
    if blind.card != move.card and bridging_outs(blind.card, hit_targets(view, seat),
                                                 unseen_cards(view, seat)) > 0:
        return Reason("discard_bridge", card=move.card, other=blind.card)
    fed = feed(view, seat, move.card)
    if fed is not None:
        return Reason("discard_feeds", card=move.card, clause=_feed_reason(view, seat, fed))
    return Reason("discard_fits_nothing", card=move.card, number=points(move.card))


def _explain_discard(view: GameState, seat: int, move: Discard, policy: StrongPolicy) -> Reason:
    hand = view.hand_cards(seat)
    phase = policy.target_phase(view, seat, hand)
    if phase is None:
        return Reason("discard_dearest", card=move.card)
    if is_wild(move.card):
        return Reason("discard_wilds", card=move.card)
    ranked = policy.rank_discards(view, seat, discard_moves(view, seat), hand, phase)
    keys = {m.card: key for key, m in ranked}
    if move.card not in keys:  # pragma: no cover - the bot discards one of the ranked cards
        return Reason("discard", card=move.card)
    key = keys[move.card]
    # The card the bot would throw if the next player did not matter.
    blind = min(ranked, key=lambda item: item[0]._replace(feeds=False))[1]
    avoided = _kept_for_next(view, seat, move, blind)
    if avoided is not None:
        return avoided
    fed = feed(view, seat, move.card) if key.feeds else None
    if fed is not None:
        return Reason("discard_feeds", card=move.card, clause=_feed_reason(view, seat, fed))
    if key.dear:
        closest = min((s for s in view.seats_in_hand if s != seat and view.down[s] is not None),
                      key=lambda s: len(view.hands[s]))
        return Reason("discard_danger", card=move.card, seat=closest, number=points(move.card))
    # The card thrown if what goes down with the phase did not count.
    plain = min(ranked, key=lambda item: item[0]._replace(kept_down=0))[1]
    if plain.card != move.card and key.kept_down < keys[plain.card].kept_down:
        return Reason("discard_keeps_down", card=move.card, other=plain.card, number=phase)
    return Reason("discard_spare" if key.cost == 0 else "discard_least", card=move.card)
