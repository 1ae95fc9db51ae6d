"""Going on without a machine and taking its seats back, as the table's fold reads them: an away
entry's checks (the runner, the agreements, the bots' new keys) and what it changes, and a back
entry's. The fold is p2p10.table; the protocol is PROTOCOL 4.13 and 4.14."""

from __future__ import annotations

from collections.abc import Sequence

from p2p10.errors import ProtocolError, ProtocolViolation
from p2p10.events import (
    SitOut,
)
from p2p10.hand_crypto import (
    away_message,
)
from p2p10.log import Entry, public_key
from p2p10.primitives import Ed25519PublicKey
from p2p10.signing import Domain, verify
from p2p10.table_checks import TableChecks
from p2p10.table_reading import Return, Takeover
from p2p10.wire import (
    AwayBody,
    BackBody,
    decode_body,
)


class TableAway(TableChecks):
    """The fold of the away and back entries."""

    __slots__ = ()

    def _on_away(self, entry: Entry, person: int) -> None:
        """The others go on without ``person``'s machine (the one the table is waiting for):
        every other player signed the agreement for this very position; the runner's entry
        gives each of that machine's seats a new key, for a bot the runner plays from now on.
        The hand under way is voided and replayed without those seats; from the next hand on
        their bots play them."""
        runner = self.runner_for(person)
        group = self.away_group(person)
        consenters = self.consenters(person)
        body = self._checked_away(entry, person, runner, group, consenters)
        new_keys = {seat: key for seat, key in body.delegates}
        verifiers = self._delegates_verifiers(new_keys, group)
        base = self.engine if self.engine.stage == "deal" else self.deal_engine
        assert base is not None and base.stage == "deal"
        for seat in group:
            base = base.apply(SitOut(seat))  # raises IllegalMove when too few would be left
        if self.defer_proofs:
            # The voided hand's checks put off to its reveals: its unrevealed steps will never be
            # re-derived, and their proofs are all that checks them (a peer checked them on arrival).
            self.check_deferred()
        # For the audit: who was taken over, where and by whose agreement.
        self.takeovers = (*self.takeovers, Takeover(person, group, entry.seq, entry.author,
                                                    tuple(sorted((entry.author, *consenters))),
                                                    len(base.sheet)))
        self.verifiers = tuple(verifiers)
        self.signers = (*self.signers, (entry.seq + 1, self.verifiers))
        self.signing_keys = tuple(new_keys.get(s, k) for s, k in enumerate(self.signing_keys))
        self.run_by = tuple(runner if s in new_keys else r for s, r in enumerate(self.run_by))
        self.names = self._labels()
        self.engine = base.with_names(self.names)
        self.deal_engine = None
        self.hand = None

    def _checked_away(self, entry: Entry, person: int, runner: int | None, group: Sequence[int],
                      consenters: Sequence[int]) -> AwayBody:
        """An away entry's body, checked: written by the runner, for ``person``, a new key for
        each seat of the machine's ``group`` and every consenter's verified agreement, in seat
        order."""
        if entry.author != runner:
            who = "nobody" if runner is None else self.name(runner)
            raise ProtocolViolation(entry.author, entry.seq, f"only {who} may write that the table "
                                    f"goes on without {self.name(person)}")
        body = decode_body("away", entry.body)
        assert isinstance(body, AwayBody)
        if body.person != person:
            raise ProtocolError(f"an away entry is for the machine the table waits for, {self.name(person)}")
        if [d[0] for d in body.delegates] != list(group):
            raise ProtocolError(f"an away entry gives a new key to each of seats "
                                f"{', '.join(str(s + 1) for s in group)}")
        cosigs = body.agreements
        if [c[0] for c in cosigs] != list(consenters):
            raise ProtocolError("an away entry carries the agreement of every other player, in seat order")
        message = away_message(self.game_id, entry.seq, entry.prev_hash, person)
        for seat, signature in cosigs:
            if not (isinstance(signature, bytes)
                    and verify(self.verifiers[seat], Domain.AGREEMENT, message, signature)):
                raise ProtocolError(f"{self.name(seat)}'s agreement to go on does not verify")
        return body

    def _delegates_verifiers(self, new_keys: dict[int, bytes],
                             group: Sequence[int]) -> list[Ed25519PublicKey]:
        """Every seat's verifier once the bots of an away entry sign with ``new_keys``."""
        # New: never a key of the table entry nor of an earlier away entry, even one no longer
        # signing (a seat taken over, or given back): one key, one seat, for the whole game.
        used = {v.public_bytes_raw() for _start, signers in self.signers for v in signers}
        if len(set(new_keys.values())) != len(group) or used & set(new_keys.values()):
            raise ProtocolError("a bot's new key must be new")
        verifiers = list(self.verifiers)
        for seat, key in new_keys.items():
            verifiers[seat] = public_key(key)  # raises BadEntry for a weak or invalid key
        return verifiers

    def _on_back(self, entry: Entry) -> None:
        """``person``'s machine takes back the seats it sat down with that a takeover holds:
        their keys, ``run_by`` and names become those of the sit-downs again, and the bots that
        played them stop (their keys no longer sign for those seats)."""
        body = decode_body("back", entry.body)
        assert isinstance(body, BackBody)
        refusal = self.return_refusal(body.person, body.away, body.signature)
        if refusal is not None:
            raise ProtocolError(refusal)
        seats = tuple(s for s in self.home_seats(body.person) if self.signing_keys[s] != self.keys[s])
        self.signing_keys = tuple(self.keys[s] if s in seats else k for s, k in enumerate(self.signing_keys))
        self.verifiers = tuple(public_key(self.keys[s]) if s in seats else v
                               for s, v in enumerate(self.verifiers))
        self.signers = (*self.signers, (entry.seq + 1, self.verifiers))
        self.run_by = tuple(self.sit_downs[s].run_by if s in seats else r for s, r in enumerate(self.run_by))
        self.names = self._labels()
        self.engine = self.engine.with_names(self.names)
        self.returns = (*self.returns, Return(body.person, seats, entry.seq, body.away,
                                              len(self.engine.sheet)))
