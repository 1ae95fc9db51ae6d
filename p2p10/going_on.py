"""One peer's part in going on without a machine that stays away (PROTOCOL §4.13), and in
that machine's coming back (§4.14), as a small state machine. Pure: the peer feeds it what it
hears and asks it what to do; the table decides what is valid.

Going on, from this peer's side::

    idle ──agree(position)──▶ agreed ──the log moves──▶ idle
                                 │  (the away entry, or any entry: the position is gone)
                                 └──a player who did not agree passes the late entry on──▶
                                    withdrawn: the held entries are released ──▶ idle

While *agreed*, this peer holds back every entry of the machine left behind for that position,
unless a player known not to have agreed passes it on: that player took it and will never
agree, so going on cannot happen (the safety rule). Agreements heard from others are kept per
position and dropped once the log moves past it.

Coming back: the requests heard from machines that want their seats back (by person: the
``away`` entry they undo and the signature), kept until the seat is back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

HELD_KEPT = 8
"""The most entries held back at once (see :meth:`GoingOn.hold`)."""

Position = tuple[int, int, bytes]
"""(person, seq, prev_hash): going on without ``person``'s machine with the away entry at
``seq``, after the entry whose hash is ``prev_hash``."""


@dataclass(slots=True)
class GoingOn:
    """This peer's agreement, the others' agreements and the entries it holds back."""

    agreed: Position | None = None
    signatures: dict[Position, dict[int, bytes]] = field(default_factory=dict)
    held: list[tuple[bytes, int | None]] = field(default_factory=list)
    agreed_at: float = 0.0
    back_requests: dict[int, tuple[int, bytes]] = field(default_factory=dict)

    def agree(self, position: Position, now: float) -> bool:
        """This peer agrees at ``position``; False if it had already."""
        if self.agreed == position:
            return False
        self.agreed, self.agreed_at = position, now
        return True

    def add(self, position: Position, signer: int, signature: bytes) -> None:
        """Keep a signed agreement (already checked) for ``position``."""
        self.signatures.setdefault(position, {})[signer] = signature

    def at(self, seq: int) -> dict[int, tuple[int, ...]]:
        """For the position ``seq``: each machine that players agreed to go on without, and
        who agreed."""
        return {person: tuple(sorted(signers)) for (person, at, _prev), signers in self.signatures.items()
                if at == seq}

    def complete(self, consenters: tuple[int, ...]) -> tuple[tuple[int, bytes], ...] | None:
        """Every consenter's agreement for the position this peer agreed to, in seat order, or
        None while one is missing."""
        if self.agreed is None:
            return None
        signed = self.signatures.get(self.agreed, {})
        if any(s not in signed for s in consenters):
            return None
        return tuple((s, signed[s]) for s in consenters)

    def holds_back(self, seq: int, author_machine: int, sender_machine: int | None,
                   own_machine: int) -> bool | None:
        """Whether an entry by ``author_machine`` at ``seq``, passed on by ``sender_machine``
        (None: unknown), is held back by a peer of ``own_machine``: True (hold it), False (going
        on cannot happen: withdraw, then take it), or None when this peer's agreement does not
        concern it."""
        if self.agreed is None:
            return None
        person, at, _prev = self.agreed
        if seq != at or author_machine != person:
            return None
        if sender_machine == own_machine:
            # Another peer of this very machine (its player, or a bot it carries) passes an
            # entry on only once it accepted it: the machine withdrew its agreement. A bot hears
            # nobody else, so it would otherwise hold the entry back for ever (§4.13).
            return False
        signers = self.signatures.get(self.agreed, {})
        # A player who agreed too never takes it, so one passing it on proves nothing (and may
        # be lying); only a player known not to have agreed shows that it took it.
        return sender_machine is None or sender_machine == person or sender_machine in signers

    def hold(self, raw: bytes, sender: int | None) -> None:
        """Hold an entry back (see :meth:`holds_back`): once, however many peers pass it on,
        and at most :data:`HELD_KEPT` different entries. They are all for one position, by one
        machine's seats: one is its entry, a second by the same seat an equivocation; more add
        nothing, and an entry not held is fetched again by want if going on is withdrawn."""
        if len(self.held) < HELD_KEPT and all(raw != other for other, _ in self.held):
            self.held.append((raw, sender))

    def withdraw(self) -> list[tuple[bytes, int | None]]:
        """Going on cannot happen: forget this peer's agreement; the entries it held back."""
        held, self.agreed, self.held = self.held, None, []
        return held

    def moved(self, seq: int) -> None:
        """The log is now ``seq`` entries long: an agreement for another position is void."""
        if self.agreed is not None and self.agreed[1] != seq:
            self.agreed, self.held = None, []
        if self.signatures:
            self.signatures = {k: v for k, v in self.signatures.items() if k[1] == seq}
