"""The play screen's fixed words: its help screen (the keys, the goal, what the highlights mean)
and what it says while the table is busy with an entry that is not the user's move. Marked for
translation here, translated where they are shown."""

from __future__ import annotations

from p2p10.i18n import N_
from p2p10.screen_view import HelpEntry

PLAY_HELP: tuple[HelpEntry, ...] = (
    N_("Goal: make the phases in order, one per hand, with the fewest penalty points."),
    N_("A turn: draw a card; lay down your whole phase (once a hand); hit cards on any meld once you "
       "are down; end by discarding one card. Empty your hand to go out."),
    "",
    ("d", N_("draw from the draw pile")),
    ("t", N_("take the top of the discard pile")),
    ("l", N_("lay down your phase: the arrangement that puts the most cards down (with cards "
             "selected: the best from those cards only)")),
    ("L", N_("choose another lay-down: L or the arrows go through them, Enter lays it down")),
    ("←→", N_("move the cursor")),
    ("Space ↑", N_("select the card under the cursor (Space again, ↓ or Esc unselects)")),
    ("h", N_("hit the selected cards (or the card under the cursor) on a meld: A, B, ... name the "
             "melds; a card that does not fit is refused")),
    ("x", N_("discard the card under the cursor; for a Skip, a digit chooses whom (Enter: the "
             "player the hint names); a Wild is discarded once you confirm (the next player may "
             "take it)")),
    ("i", N_("hint: what the strong bot would play now, and why (nothing is played); the cursor "
             "goes to the card it names")),
    ("p", N_("play the hint's move")),
    ("+ -", N_("the bots play faster or slower")),
    ("o", N_("sort your hand by number or by colour")),
    ("m", N_("every meld on the table in full (a small terminal shows some by name only)")),
    ("s", N_("score sheet")),
    ("r", N_("rules in force")),
    ("?", N_("this help")),
    # TRANSLATORS: y is the key for yes: write your language's ("j" in German, "s" in Spanish).
    ("q", N_("quit (y confirms)")),
    N_("The mouse works too: click a card, a meld, a pile or a key below."),
    "",
    N_("Highlighted cards (heavy frame, underlined; * with --ascii) fit your phase, or, once you are "
       "down, a meld on the table. P3 is a player's phase; a tick (+ with --ascii) means laid down "
       "this hand."),
    N_("Cards: R7 red 7, B12 blue 12, G1 green, Y9 yellow, W wild, S skip."),
)

# What the table is doing while it waits for an entry that is not the user's move.
BUSY = {"shuffle": N_("wait a moment: the discard pile is being reshuffled into a new draw pile"),
        "tokens": N_("wait a moment: the other players are opening the card just drawn"),
        "reveal": N_("wait a moment: the cards left in hand are being revealed and scored")}
