"""A question in the status line and its answers (what to lay down, which meld, whom to skip)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from p2p10.i18n import pgettext


@dataclass
class Choice:
    """One answer to a prompt: the key that picks it, its words, and what it does."""

    key: str
    label: str
    action: Callable[[], object]
    cards: frozenset[int] = frozenset()  # slots to raise in the hand while it is the current one
    also: str = ""  # another key that picks it (English "y" beside German "j")


@dataclass
class Prompt:
    """A question in the status line: a key picks a choice; arrows move, Enter picks the
    current one, ``cycle`` also moves on; Esc or any other key cancels."""

    question: str
    choices: list[Choice]
    index: int = 0
    cycle: str = ""
    other: Callable[[str], bool] | None = None  # a key that is no choice; True if it handled it

    @property
    def current(self) -> Choice:
        """The choice Enter would pick."""
        return self.choices[self.index]


def yes_no(question: str, yes: str, on_yes: Callable[[], object], no: str, on_no: Callable[[], object]
           ) -> Prompt:
    """A yes-or-no question, "no" the current answer: the language's keys for yes and no (j/n
    in German, s/n in Spanish) pick them, and so do English y and n."""
    # TRANSLATORS: the key that answers "yes" to a question, one lower-case letter ("j", "s").
    yes_key = pgettext("yes key", "y")
    # TRANSLATORS: the key that answers "no" to a question, one lower-case letter.
    no_key = pgettext("no key", "n")
    return Prompt(question, [Choice(yes_key, yes, on_yes, also="y"), Choice(no_key, no, on_no, also="n")],
                  index=1)
