"""Seats' names as a person reads them, in the current language: a bot's level in its brackets,
whose bot a seat taken over is, and whom a game was played against, in short. Light (the record
and the start screen use it without the game's engine)."""

from __future__ import annotations

from collections.abc import Sequence

from p2p10.bots import POLICIES
from p2p10.i18n import _, ngettext, pgettext

__all__ = ["company", "level_name", "shown_name"]


def level_name(level: str) -> str:
    """A bots' level (or a policy's name) as a person reads it, in the current language
    (``--level`` takes the English word)."""
    names = {
        # TRANSLATORS: how well the bots play: easy, normal or hard.
        "easy": pgettext("bot level", "easy"),
        "normal": pgettext("bot level", "normal"),
        "hard": pgettext("bot level", "hard"),
        # TRANSLATORS: a simple bot that takes whatever helps at once (a bot's level in a name).
        "greedy": pgettext("bot level", "greedy"),
        # TRANSLATORS: a bot that plays any legal move (a bot's level in a name).
        "random": pgettext("bot level", "random"),
    }
    return names.get(level, level)


def shown_name(name: str) -> str:
    """A seat's name as a screen shows it, in the current language: the bot's level in its
    brackets translated ("Bot 2 (hard)" is "Bot 2 (schwer)" in German), and whose bot a seat
    taken over is ("Cy (Ann's bot)"). The names in the log stay as they were written."""
    base, _sep, rest = name.rpartition(" (")
    if not base or not rest.endswith(")"):
        return name
    inner = rest[:-1]
    if inner in POLICIES:
        # TRANSLATORS: a bot's name and its level: "Bot 2 (hard)".
        return _("{name} ({level})").format(name=base, level=level_name(inner))
    if inner.endswith("'s bot"):
        # TRANSLATORS: a seat a bot plays for its owner, after the owner's machine went away:
        # "Cy (Ann's bot)".
        return _("{name} ({owner}'s bot)").format(name=base, owner=inner[:-len("'s bot")])
    return name


def company(names: Sequence[str]) -> str:
    """Whom a game was played against, short enough for one line of a list: the people by name,
    two or more bots of one level counted ("Bob, 3 bots (hard)")."""
    levels: dict[str, int] = {}
    parts: list[str] = []
    for name in names:
        base, _sep, rest = name.rpartition(" (")
        level = rest[:-1] if base.startswith("Bot ") and rest.endswith(")") else ""
        if level in POLICIES:
            levels[level] = levels.get(level, 0) + 1
        else:
            parts.append(shown_name(name))
    for level, count in levels.items():
        if count == 1:
            parts.append(shown_name(next(n for n in names if n.endswith(f" ({level})"))))
        else:
            # TRANSLATORS: several bots of one level a game was played against: "3 bots (hard)".
            parts.append(ngettext("{n} bot ({level})", "{n} bots ({level})", count).format(
                n=count, level=level_name(level)))
    return ", ".join(parts)
