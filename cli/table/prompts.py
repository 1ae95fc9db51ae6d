"""A question in the status line and its answers (what to lay down, which meld, whom to skip)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Choice:
    """One answer to a prompt: the key that picks it, its words, and what it does."""

    key: str
    label: str
    action: Callable[[], object]
    cards: frozenset[int] = frozenset()  # slots to raise in the hand while it is the current one


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
