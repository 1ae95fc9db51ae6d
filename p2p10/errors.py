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


class ProtocolViolation(ProtocolError):
    """A log entry that breaks the protocol, pinned on the seat to blame.

    ``seat`` is None when the bytes cannot be pinned on a seat (an entry that is not signed by
    its claimed author, or one that belongs elsewhere): then whoever passed it on is to blame.
    ``seq`` is the log position of the offending entry.
    """

    def __init__(self, seat: int | None, seq: int | None, reason: str) -> None:
        where = f"entry {seq}: " if seq is not None else ""
        who = f"seat {seat + 1}: " if seat is not None else ""
        super().__init__(f"{who}{where}{reason}")
        self.seat = seat
        self.seq = seq
        self.reason = reason


class SavedFileError(ProtocolError):
    """A peer's own saved files (its log, secrets or roster) that are damaged, unreadable, or
    do not belong together: the seat cannot go on from them."""
