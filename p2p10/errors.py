"""Typed errors. Every message is written for a player to read."""

from __future__ import annotations


class P2P10Error(Exception):
    """Base of every error the project raises on purpose."""


class BadCard(P2P10Error, ValueError):
    """Text that is not a card in the notation, or a card that cannot exist."""


class BadRules(P2P10Error, ValueError):
    """A rule option that is unknown, malformed or contradicts another option."""


class IllegalMove(P2P10Error):
    """An event that the rules do not allow in the current state.

    ``seat`` is the seat the event was attributed to, when there is one.
    """

    def __init__(self, message: str, seat: int | None = None) -> None:
        super().__init__(message)
        self.seat = seat


class ProtocolError(P2P10Error, ValueError):
    """Data received from a peer that is malformed or breaks the protocol."""
