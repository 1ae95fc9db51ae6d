"""Which machines a peer can reach, and since when (PROTOCOL §4.13).

Slow is not gone. A player who is connected and thinking may take as long as they like; only a
machine with no link up to any of its seats, for ``away_after`` seconds, is *away*, and only
then may the others agree to go on without it. The links are the driver's to report (a
websocket that opened or closed, a seat in the same process), through :meth:`Links.report`;
the peer asks :meth:`Links.any_up` and :meth:`Links.down_for`. Pure: the clock is passed in.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

AWAY_AFTER = 30.0  # seconds with no link up before a machine counts as away (PROTOCOL §4.13)
# Seconds with no link up to any other machine, once the table has started, before a machine
# stops waiting (PROTOCOL §6.1, "Nobody answers", in specs/protocol/LAN.md): long enough for a
# Wi-Fi that drops and comes back, short enough that a laptop woken after the others finished
# and left says so and ends.
ALONE_AFTER = 120.0


@dataclass(frozen=True, slots=True)
class Waiting:
    """Who the table is waiting for, as a screen shows it: ``person``'s machine must write the
    next entry, and the table has waited ``waited`` seconds for it. ``away`` is how long that
    machine has counted as away for this peer (None while it does not: its player is
    thinking), and ``offer`` whether this peer may agree to go on without it now."""

    person: int
    waited: float
    away: float | None
    offer: bool


class Links:
    """The seats a peer has a link up to, and since when each other seat has had none.

    A seat never reported up has been out of reach since the peer started (:meth:`start`, its
    first tick): a machine that never linked at all is away like one that went."""

    __slots__ = ("_down_since", "_started_at", "_up")

    def __init__(self) -> None:
        self._up: set[int] = set()
        self._down_since: dict[int, float] = {}
        self._started_at: float | None = None

    def start(self, now: float) -> None:
        """The peer's first tick: the moment a seat never linked counts as out of reach from."""
        if self._started_at is None:
            self._started_at = now

    def report(self, seat: int, up: bool, now: float) -> None:
        """The link to ``seat`` went up, or down (a repeated report changes nothing)."""
        self.start(now)
        if up:
            self._up.add(seat)
            self._down_since.pop(seat, None)
        elif seat in self._up or seat not in self._down_since:
            self._up.discard(seat)
            self._down_since[seat] = now

    def any_up(self, seats: Iterable[int]) -> bool:
        """True if a link to one of ``seats`` is up."""
        return any(s in self._up for s in seats)

    def down_for(self, seats: Iterable[int], now: float) -> float:
        """How long every one of ``seats`` has been out of reach: since the last of their links
        went down (0 if one is up)."""
        seats = tuple(seats)
        if self.any_up(seats):
            return 0.0
        start = self._started_at if self._started_at is not None else now
        since = max((self._down_since.get(s, start) for s in seats), default=start)
        return max(0.0, now - since)
