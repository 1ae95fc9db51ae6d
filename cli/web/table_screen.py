"""The seat's table as the browser draws it: the model both front ends draw.

A :class:`TableScreen` draws a :class:`~cli.seat.play.PlaySeat` (or a LAN seat's
:class:`~cli.seat.lan.LanPlaySeat`), the model the terminal draws too: it keeps the cursor, the
selection, the question asked, the status line, the narrator and every rule of what a key
does. The browser gets :meth:`TableScreen.snapshot`, plain JSON built from
:mod:`p2p10.seat_view` and the model's words, and sends back the keys the terminal reads
(``{"type": "key"}``) or a tap or a click (a card, a pile, a meld, an answer):
:meth:`TableScreen.act` turns each into the same call on the model. Nothing about the rules is
decided in the browser.

The side screens (help, rules, score sheet, every meld, a hand's summary, the end) are sent as
the plain data of :mod:`p2p10.screen_view` (``side``: its kind and data), which the page draws
as HTML tables, lists and headings at its own width: two tabs of one seat at two widths each
draw the same data their own way. Nothing is laid out for a text width.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from cli.seat.styled import Styled
from p2p10.i18n import N_, _, current_language
from p2p10.seat_view import as_json, card_view, piles_view, seat_rows, sheet_view

if TYPE_CHECKING:
    from cli.seat.play import PlaySeat
    from p2p10.engine import GameState

LOG_SHOWN = 200  # the move log's last lines a view carries (the whole log is in the game's file)
MAX_KEY = 16  # characters of a key's name ("pagedown"); a longer one is no key

PAGE_WORDS = {
    "draw_pile": N_("Draw pile"),
    "discard_pile": N_("Discard pile"),
    "moves": N_("Moves"),
    "score_sheet": N_("Score sheet"),
    "your_hand": N_("Your hand"),
    "by_number": N_("Sort by number"),
    "by_colour": N_("Sort by colour"),
    "chat": N_("Chat"),
    "send": N_("Send"),
    "close": N_("Close"),
    "empty": N_("empty"),
    "cards_left": N_("cards left"),
    "connecting": N_("Connecting to your p2p10..."),
    "refused": N_("This page needs the address p2p10 printed, with its key (#t=...). Start p2p10 "
                  "again with --web, or copy the whole address it printed."),
    "gone": N_("p2p10 has stopped: this page shows nothing more. Its last words are above."),
    "drag_hint": N_("Click a card to select it; drag it to the discard pile, or click the pile, "
                    "to discard it."),
    "melds": N_("Melds"),
    "no_melds": N_("No meld yet."),
    # TRANSLATORS: the head of the column of players' names in the page's tables.
    "player": N_("Player"),
    # TRANSLATORS: what the page's row of keys (buttons) is called for a screen reader.
    "keys": N_("Keys"),
    # TRANSLATORS: a phone's page while our own program starts in it (it plays the seat there).
    "starting": N_("Starting the table in this page..."),
    # TRANSLATORS: followed by the reason, as the browser gives it.
    "failed": N_("The table could not start in this page:"),
}
"""The page's own words (labels of its parts), sent translated in every snapshot."""


def page_words() -> dict[str, str]:
    """:data:`PAGE_WORDS` in the current language."""
    return {key: _(text) for key, text in PAGE_WORDS.items()}


def fragments(line: Styled) -> list[dict[str, str]]:
    """A line of styled text as the page's parts: text and tone (the terminal's style class,
    "info", "warn", "error", "dim", ...)."""
    out: list[dict[str, str]] = []
    for fragment in line:
        style, text = fragment[0], fragment[1]
        tone = " ".join(part.removeprefix("class:") for part in style.split())
        if out and out[-1]["tone"] == tone:
            out[-1]["text"] += text
        else:
            out.append({"text": text, "tone": tone})
    return out


class TableScreen:
    """A seat's table drawn in a browser (see the module docstring)."""

    def __init__(self, app: PlaySeat) -> None:
        self.app = app
        self.version = 0
        app.title_keys = False  # (a finger taps a pile or a card; the keys are buttons)

    # ------------------------------------------------------------------ the model as JSON

    def snapshot(self) -> dict[str, Any]:
        """Everything the page shows now, as JSON values."""
        app = self.app
        self.version += 1
        state = app.state()
        title = app.title_view(state).text
        status = fragments(app.status_shown()) if app.prompt is None else []
        hand = self._hand(state) if state is not None else None
        keys = [{"key": key, "label": label, "enabled": enabled} for key, label, enabled in app.key_items()]
        prompt = app.prompt
        told = [t for t in app.log_told() if t.shown]
        start = max(0, len(told) - LOG_SHOWN)  # the window's first line in the whole story
        view: dict[str, Any] = {
            "page": "table", "v": self.version, "lang": current_language(), "words": page_words(),
            "readonly": False, "screen": app.screen, "title": title,
            "status": status, "keys": keys,
            "prompt": None if prompt is None else {
                "question": prompt.question, "index": prompt.index,
                "choices": [{"key": c.key, "label": c.label} for c in prompt.choices]},
            "log": [{"hand": t.hand, "kind": t.kind, "text": t.line} for t in told[start:]],
            "log_start": start,
            "seats": [], "piles": None, "hand": hand, "sheet": None, "side": None, "chart": None,
            "dealing": app.table_seat.dealing(), "over": app.table_seat.over,
        }
        if state is not None:
            view["seats"] = as_json(seat_rows(state, app.me))
            if state.stage in ("draw", "play", "reveal"):
                view["piles"] = as_json(piles_view(state))
            view["sheet"] = as_json(sheet_view(state))
        side = app.side_view() if app.screen != "table" else None
        if side is not None:
            view["side"] = {"kind": app.screen, "data": as_json(side)}
        if app.screen == "over" and state is not None and state.sheet:
            from cli.web.charts import game_chart

            view["chart"] = game_chart(state)
        return view

    def _hand(self, state: GameState) -> dict[str, Any]:
        app = self.app
        slots = app.hand_slots(state)
        fits = app.fits(state)[0]
        raised = app.raised()
        cards = [{"slot": slot, "card": as_json(card_view(state.known[slot])), "fit": slot in fits,
                  "raised": slot in raised, "cursor": index == app.cursor}
                 for index, slot in enumerate(slots)]
        coming = len(app.table_seat.card_coming()) if hasattr(app.table_seat, "card_coming") else 0
        return {"cards": cards, "line": app.hand_hints(state)[0] if slots else "", "by_colour": app.by_colour,
                "coming": coming}

    # ------------------------------------------------------------------ the user's actions

    def act(self, message: dict[str, Any]) -> None:
        """One message from the page: a key, or a click, as the terminal's keys and mouse
        handlers take them. Anything else is ignored."""
        kind = message.get("type")
        handler = self._HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is not None:
            handler(self, message)

    def _key(self, message: dict[str, Any]) -> None:
        key = message.get("key")
        if isinstance(key, str) and 0 < len(key) <= MAX_KEY:
            self.app.press(key)

    def _card_message(self, message: dict[str, Any]) -> None:
        self._card(str(message["type"]), message.get("slot"))

    def _pile(self, message: dict[str, Any]) -> None:
        if message.get("pile") in ("draw", "discard"):
            self.app.status = []
            self.app.pile_clicked(str(message["pile"]))

    def _meld(self, message: dict[str, Any]) -> None:
        if isinstance(message.get("id"), int):
            self.app.status = []
            self.app.hit(int(message["id"]))
            self.app.invalidate()

    def _answer(self, message: dict[str, Any]) -> None:
        if isinstance(message.get("index"), int):
            self.app.pick(int(message["index"]))

    def _chat(self, message: dict[str, Any]) -> None:
        say = getattr(self.app, "send_chat", None)  # (a LAN seat's: LanPlaySeat.send_chat)
        if isinstance(message.get("text"), str) and callable(say):
            say(message["text"])

    def _sort(self, message: dict[str, Any]) -> None:
        if message.get("by") in ("colour", "number") and (message["by"] == "colour") != self.app.by_colour:
            self.app.press("o")

    _HANDLERS: ClassVar[dict[str, Callable[[TableScreen, dict[str, Any]], None]]] = {
        "key": _key, "card": _card_message, "discard": _card_message, "pile": _pile,
        "meld": _meld, "pick": _answer, "chat": _chat, "sort": _sort,
    }
    """What each kind of message from the page does (its own checks of the message's values
    first: a value of the wrong type or out of range is ignored)."""

    def _card(self, kind: str, slot: object) -> None:
        app = self.app
        state = app.state()
        if state is None or not isinstance(slot, int) or app.prompt is not None:
            return
        slots = app.hand_slots(state)
        if slot not in slots:
            return
        index = slots.index(slot)
        if kind == "card":
            app.toggle_card(index)
            app.invalidate()
        else:  # dropped on the discard pile: that card, whatever is selected
            app.cursor = index
            app.selected.clear()
            app.press("x")
