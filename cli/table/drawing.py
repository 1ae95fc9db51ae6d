"""The table's drawing kit: lines of styled fragments, the styles, the cards' colours, and text
measured in terminal columns.

Widths are prompt_toolkit's (:func:`~prompt_toolkit.utils.get_cwidth`): a wide character (山,
an emoji) takes two columns, so a name written in one still lines up with the others, and a
line cut to fit never ends in half of one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from prompt_toolkit.formatted_text import OneStyleAndTextTuple, StyleAndTextTuples, fragment_list_width
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType
from prompt_toolkit.styles import Style
from prompt_toolkit.utils import get_cwidth

from cli.seat import styled
from cli.seat.styled import card_class as card_class
from cli.seat.styled import colour_key as colour_key
from p2p10.cards import card_text

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

BOX_TOP, BOX_SIDE, BOX_BOTTOM = ("┌───┐", "│", "└───┘")
HEAVY_TOP, HEAVY_SIDE, HEAVY_BOTTOM = ("┏━━━┓", "┃", "┗━━━┛")

# Key names as the screens' press() takes them ("Enter", "←"), from prompt_toolkit's.
KEY_NAMES = {"c-m": "Enter", "c-j": "Enter", " ": "Space", "c-i": "Tab", "s-tab": "BackTab", "escape": "Esc",
             "left": "←", "right": "→", "up": "↑", "down": "↓"}
TURN, DOWN, RULE, BAR, CURSOR, BACK = "▶", "✓", "─", "│", "▲", "▒"
ELLIPSIS, ASCII_ELLIPSIS = "…", "..."  # the end of a text shortened at a word
# With --ascii every character drawn goes through this table (cards are framed only without it).
ASCII = str.maketrans({TURN: ">", DOWN: "+", RULE: "-", BAR: "|", CURSOR: "^", BACK: "#", "█": "#",
                       "░": ".", "←": "<", "→": ">", "↑": "^", "↓": "v"})


def card_fragment(card: int, extra: str = "") -> OneStyleAndTextTuple:
    """A card in notation, coloured (with the ``extra`` style too)."""
    return (f"{card_class(card)} {extra}".strip(), card_text(card))


def cards_line(cards: Sequence[int]) -> Line:
    """Cards in notation separated by spaces."""
    out: Line = []
    for index, card in enumerate(cards):
        if index:
            out.append(("", " "))
        out.append(card_fragment(card))
    return out


def click(action: Callable[[], object]) -> Handler:
    """A mouse handler that runs ``action`` when a button is released over the text."""
    def handler(event: MouseEvent) -> object:
        if event.event_type == MouseEventType.MOUSE_UP:
            action()
            return None
        return NotImplemented
    return handler


# ------------------------------------------------------------------ text in columns


def columns(text: str) -> int:
    """How many terminal columns ``text`` takes."""
    return get_cwidth(text)


def cut(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` columns, never through a wide character."""
    used = 0
    for index, char in enumerate(text):
        used += get_cwidth(char)
        if used > limit:
            return text[:index]
    return text


def pad(text: str, size: int, align: str = "<") -> str:
    """``text`` padded with spaces to ``size`` columns, on the right (``<``) or the left (``>``)."""
    room = " " * max(0, size - get_cwidth(text))
    return text + room if align == "<" else room + text


def wrap(text: str, limit: int, indent: str = " ") -> list[str]:
    """``text`` wrapped at spaces into lines of at most ``limit`` columns, the lines after
    the first indented; a word longer than a line is cut."""
    if get_cwidth(indent) + 1 >= limit:
        indent = ""
    lines: list[str] = []
    current = ""
    for word in text.split():
        joined = f"{current} {word}" if current else (indent if lines else "") + word
        if get_cwidth(joined) <= limit:
            current = joined
            continue
        if current:
            lines.append(current)
            joined = indent + word
        while get_cwidth(joined) > limit:
            head = cut(joined, limit) or joined[0]  # at least a character, however narrow
            lines.append(head)
            joined = indent + joined[len(head):]
        current = joined
    if current:
        lines.append(current)
    return lines


SENTENCE_END = re.compile(r"[.?!](?=\s)")


def shorten(text: str, limit: int, ellipsis: str = ELLIPSIS) -> str:
    """``text`` in at most ``limit`` columns, shortened at a word and never through one: its
    first sentences if they fit, else its first words and ``ellipsis``; "" if not even one
    word fits. Spaces before the text are kept."""
    if get_cwidth(text) <= limit:
        return text
    body = text.lstrip()
    lead = text[:len(text) - len(body)]
    room = limit - get_cwidth(lead)
    if get_cwidth(body.rstrip()) <= room:
        return lead + body.rstrip()
    sentences = [body[:m.end()] for m in SENTENCE_END.finditer(body)]
    fitting = [s for s in sentences if get_cwidth(s) <= room]
    if fitting:
        return lead + fitting[-1]
    words = body.split()
    best = ""
    for count in range(1, len(words)):
        head = " ".join(words[:count]).rstrip(",;:") + ellipsis
        if get_cwidth(head) > room:
            break
        best = head
    return lead + best if best else ""


# ------------------------------------------------------------------ lines of fragments


def width(line: Line) -> int:
    """How many columns a line of fragments takes."""
    return fragment_list_width(line)


def clip(line: Line, limit: int) -> Line:
    """The line cut to ``limit`` columns (mouse handlers kept), never through a wide character."""
    out: Line = []
    room = limit
    for fragment in line:
        if room <= 0:
            break
        text = fragment[1]
        size = get_cwidth(text)
        if size > room:
            fragment = tagged([(fragment[0], cut(text, room))], *fragment[2:])[0]
            size = room
        out.append(fragment)
        room -= size
    return out


def fit_words(line: Line, limit: int, ellipsis: str = ELLIPSIS) -> Line:
    """The line in ``limit`` columns, shortened at a word (see :func:`shorten`) where it does
    not fit, never through one; mouse handlers kept. For a line of words, such as a title."""
    if width(line) <= limit:
        return line
    out: Line = []
    room = limit
    for fragment in line:
        size = get_cwidth(fragment[1])
        if size <= room:
            out.append(fragment)
            room -= size
            continue
        short = shorten(fragment[1], room, ellipsis)
        if short.strip():
            out.append(tagged([(fragment[0], short)], *fragment[2:])[0])
        elif get_cwidth(ellipsis) <= room and out:
            out.append((fragment[0], ellipsis))
        break
    return out


def flow(line: Line, limit: int, rows: int, indent: str = " ", ellipsis: str = ELLIPSIS) -> list[Line]:
    """The line flowed at its spaces into at most ``rows`` lines of ``limit`` columns, styles,
    spacing and mouse handlers kept, the lines after the first indented; a word wider than a
    line (a file's path) is broken; the last line shortened at a word (see :func:`fit_words`)
    if the words do not all fit."""
    text = "".join(f[1] for f in line)
    if get_cwidth(text) <= limit or rows <= 1:
        return [fit_words(line, limit, ellipsis)]
    if get_cwidth(indent) + 1 >= limit:
        indent = ""
    spans: list[tuple[int, int]] = []  # each line's part of the text
    start = 0
    for word in re.finditer(r"\S+", text):
        head = indent if spans else ""
        while len(spans) < rows - 1 and get_cwidth(head + text[start:word.end()]) > limit:
            if word.start() > start and text[start:word.start()].strip():
                spans.append((start, word.start()))  # the line ends before this word
            else:  # a word wider than a line, broken
                piece = cut(text[start:word.end()], limit - get_cwidth(head)) or text[start]
                spans.append((start, start + len(piece)))
            start = spans[-1][1]
            while start < len(text) and text[start] == " ":
                start += 1
            head = indent
    spans.append((start, len(text)))
    lines = [[("", indent), *_sliced(line, a, b)] if index else _sliced(line, a, b)
             for index, (a, b) in enumerate(spans)]
    lines = [_merged([f for f in each if f[1]]) for each in lines]
    lines[-1] = fit_words(lines[-1], limit, ellipsis)
    return lines


def _sliced(line: Line, start: int, end: int) -> Line:
    """The fragments of the line's text from ``start`` to ``end`` (offsets in its characters)."""
    out: Line = []
    at = 0
    for fragment in line:
        size = len(fragment[1])
        low, high = max(start, at), min(end, at + size)
        if low < high:
            out.append((fragment[0], fragment[1][low - at:high - at], *fragment[2:]))
        at += size
    return [(f[0], f[1].rstrip(" "), *f[2:]) if i == len(out) - 1 else f
            for i, f in enumerate(out)]


def _merged(line: Line) -> Line:
    """The line with neighbouring fragments of one style (and no mouse handler) made one."""
    out: Line = []
    for fragment in line:
        if out and len(out[-1]) == 2 and len(fragment) == 2 and out[-1][0] == fragment[0]:
            out[-1] = (fragment[0], out[-1][1] + fragment[1])
        else:
            out.append(fragment)
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
    """Free text with every card in it coloured (:func:`cli.seat.styled.coloured_words`), as
    a terminal line."""
    return list(styled.coloured_words(text, style))
