"""A saved game as one JSON object, for other tools and statistics (``p2p10 export --json``).

:func:`export_game` turns the records of a ``.p2p10`` log into a plain ``dict`` (JSON types
only) of the format :data:`FORMAT`. The format is specified by ``specs/export.schema.json``
(JSON Schema, draft 2020-12) and explained in ``specs/EXPORT.md``; in brief:

* the table (``game`` and ``table`` ids in hex, the ``protocol``, the number of ``entries``),
  the ``players`` (seat numbers from 1, index from 0, names, identity keys and their
  fingerprints, which seats are bots and who runs them) and the ``rules``;
* ``hands``, in log order: each hand's deal (every seat's ten cards and the first discard, as
  the end-of-hand reveal shows them), every move in order with the cards it shows, the
  reshuffles, the melds at the end, who went out, and per seat the phase, whether it was made,
  the cards left, the points and the totals after it. A hand voided because the table went on
  without a machine is there too, marked ``voided``, with only the cards the log ever opened;
* ``events`` (the table going on without a machine, a machine coming back) and the ``result``
  (totals, phases made, the winner).

Seats are numbered from 1 everywhere (``index`` in ``players`` is the 0-based position);
entries by their sequence number in the log (from 0, as ``p2p10 audit`` names them); hands and
melds from 1. Cards are written in the notation of :func:`p2p10.cards.card_text` (``R7``,
``B12``, ``W``, ``S``): a face, so the two copies of a card read the same. Nothing is
translated: the object reads the same in every language.

Only a log that audits clean is exported (:class:`NotClean` otherwise): every card the export
names was checked, and nothing is exported of a game that did not end. The conversion reads the
log through the same fold as the audit and the replay (:func:`p2p10.table.fold`) and takes
every fact from the states it goes through (the public view: the cards the table opened, and,
at each hand's end, every card left in a hand), so the export says what the audit checked.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from p2p10.audit import AuditReport, audit_records
from p2p10.cards import COLOURS, card_text
from p2p10.engine import GameState
from p2p10.errors import P2P10Error
from p2p10.game_fields import HAND_SIZE, HandResult
from p2p10.log import Entry, fingerprint, parse_entry
from p2p10.melds import Meld
from p2p10.rules import PHASES, RuleSet
from p2p10.table import PROTOCOL_NAME, TableState, fold
from p2p10.table_reading import Return, Takeover

FORMAT = "p2p10/export/v1"
"""The value of the export's ``format`` field: the name and version of the format."""


class NotClean(P2P10Error):
    """A log that does not audit clean (a violation, a damaged file, an unfinished game), which
    is not exported. ``report`` is the audit's; the message is its one-line verdict."""

    def __init__(self, report: AuditReport) -> None:
        super().__init__(report.verdict())
        self.report = report


def export_game(records: Sequence[bytes], report: AuditReport | None = None,
                bots: Collection[int] = ()) -> dict[str, Any]:
    """The game in ``records`` (the raw entries of a ``.p2p10`` log, as
    :func:`p2p10.log.read_records` gives them) as one JSON-ready object of the format
    :data:`FORMAT` (see the module docstring and ``specs/export.schema.json``).

    ``report`` is the audit of these very records (:func:`p2p10.audit.audit_stream`), if the
    caller has made it; without it they are audited here (:func:`p2p10.audit.audit_records`).
    ``bots`` are the seats (from 0) known to be bots from outside the log: a game against bots
    saved by ``p2p10 play``, whose bots sit down under keys of their own like people (its
    settings beside the log name them); a bot that another seat's machine runs is one anyway.
    Raises :class:`NotClean` for a log that does not audit clean, and ``ValueError`` for a
    report that is not of these records."""
    if report is None:
        report = audit_records(records)
    if not report.clean:
        raise NotClean(report)
    if report.table is None or report.entries != len(records):
        raise ValueError("the audit report is not of these records")
    exporter: _Exporter | None = None
    table: TableState | None = None
    for raw in records:
        entry = parse_entry(raw)
        # The audit made every check (its report is clean): the checks a hand's last reveal
        # would make again are only kept (postpone), not made.
        after = fold(table, entry, postpone=True)
        if exporter is None:
            exporter = _Exporter(after)
        else:
            assert table is not None
            exporter.step(table, after, entry)
        table = after
    if exporter is None or table is None or table.last_hash != report.table.last_hash:
        raise ValueError("the audit report is not of these records")
    return exporter.result(table, len(records), frozenset(bots))


def card_json(card: int | None) -> str | None:
    """A card as the export writes it (``R7``, ``B12``, ``W``, ``S``), None for one never opened."""
    return None if card is None else card_text(card)


def meld_json(meld: Meld) -> dict[str, Any]:
    """A meld as the export writes it: its number (from 1, in the order laid down in the hand),
    its owner's seat, its kind, what it stands for (a set's ``number``, a run's ``low`` and
    ``high``, a colour group's ``color`` letter) and its cards (a run's in ascending order)."""
    out: dict[str, Any] = {"meld": meld.id + 1, "owner": meld.owner + 1, "kind": meld.kind}
    if meld.kind == "set":
        out["number"] = meld.label
    elif meld.kind == "run":
        out["low"] = meld.label
        out["high"] = meld.high
    else:
        out["color"] = COLOURS[meld.label]
    out["cards"] = [card_text(c) for c in meld.cards]
    return out


def rules_json(rules: RuleSet) -> dict[str, Any]:
    """The rules as the export writes them: the options as written (:meth:`RuleSet.options`),
    every field of the rule set, and what follows from them."""
    return {
        "options": list(rules.options()),
        "skip_next": rules.skip_next,
        "skip_stacking": rules.skip_stacking,
        "natural_per_phase": rules.natural_per_phase,
        "hit_own": rules.hit_own,
        "phase_list": list(rules.phase_list),
        "any_order": rules.any_order,
        "hands": rules.hands,
        "goal": rules.goal,
        "phases_to_win": None if rules.hands else rules.phases_to_win,
        "hand_size": HAND_SIZE,
        "phases": [{"phase": p, "melds": [{"kind": req.kind, "size": req.size} for req in PHASES[p]]}
                   for p in rules.phase_list],
    }


def _seat(seat: int | None) -> int | None:
    return None if seat is None else seat + 1


def _key(seat: int, key: bytes) -> dict[str, Any]:
    return {"seat": seat + 1, "key": key.hex(), "fingerprint": fingerprint(key)}


@dataclass
class _Hand:
    """A hand under way, from its deal until it is scored or voided."""

    first_entry: int
    number: int
    tie: bool
    dealer: int
    first_turn: int
    first_up: int  # the slot turned up
    dealt: tuple[tuple[int, ...], ...]  # the slots dealt to each seat
    phases: tuple[int | None, ...]  # the phase each seat plays, as dealt
    engine: GameState  # the hand's latest state
    seen: dict[int, int] = field(default_factory=dict)  # every slot opened in the hand
    moves: list[tuple[dict[str, Any], int | None]] = field(default_factory=list)  # (move, drawn slot)
    reshuffles: list[dict[str, Any]] = field(default_factory=list)

    def card(self, slot: int) -> str | None:
        return card_json(self.seen.get(slot))


class _Exporter:
    """Follows the fold entry by entry (:meth:`step`) and builds the export."""

    def __init__(self, table: TableState) -> None:
        self.players = table.players
        self.hands: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self.hand: _Hand | None = None
        self.hand_start = 0  # the first entry (a key) of the hand being dealt

    def step(self, before: TableState, after: TableState, entry: Entry) -> None:
        """Note what ``entry`` did, from the states before and after it."""
        old, new = before.engine, after.engine
        if before.hand is None and after.hand is not None:
            self.hand_start = entry.seq
        hand = self.hand
        if entry.kind == "away":
            voided = old.stage not in ("deal", "over")
            if voided and hand is not None:
                self._finish(hand, entry.seq, None)
            self.events.append(self._takeover(after, after.takeovers[-1], voided))
            return
        if entry.kind == "back":
            self.events.append(self._return(after.returns[-1]))
            return
        if hand is not None:
            hand.seen.update(new.known)
            hand.engine = new
            if len(new.pools) > len(old.pools):
                first, end, _cards = new.pools[-1]
                hand.reshuffles.append({"entry": entry.seq, "cards": end - first})
            if entry.kind == "move":
                self._move(hand, old, new, entry)
            if len(new.sheet) > len(old.sheet):
                self._finish(hand, entry.seq, new.sheet[-1])
        if old.stage == "deal" and new.stage not in ("deal", "over"):
            self._deal(new)

    def _deal(self, engine: GameState) -> None:
        players = range(self.players)
        dealt_in = engine.seats_in_hand
        self.hand = _Hand(
            first_entry=self.hand_start, number=engine.hand_no + 1, tie=engine.tie is not None,
            dealer=engine.dealer, first_turn=engine.turn, first_up=engine.discard[0],
            dealt=engine.hands, phases=tuple(engine.phase_of(s) if s in dealt_in else None for s in players),
            engine=engine, seen=dict(engine.known))

    def _move(self, hand: _Hand, old: GameState, new: GameState, entry: Entry) -> None:
        played = new.history[-1]
        seat = played.seat
        move: dict[str, Any] = {"entry": entry.seq, "seat": seat + 1, "action": played.action}
        drawn = None
        if played.action == "draw":
            drawn = new.hands[seat][-1]  # opened when played, or at the end-of-hand reveal
            move["card"] = None
        elif played.action == "take":
            move["card"] = card_json(played.card)
        elif played.action == "lay":
            move["phase"] = played.phase
            move["melds"] = [meld_json(m) for m in new.melds[len(old.melds):]]
        elif played.action == "hit":
            index, grown = next((i, m) for i, m in enumerate(new.melds) if m != old.melds[i])
            added = set(grown.slots) - set(old.melds[index].slots)
            end = None if grown.kind != "run" else "low" if grown.slots[0] in added else "high"
            move.update({"card": card_json(played.card), "meld": index + 1, "owner": grown.owner + 1,
                         "end": end})
        else:
            move.update({"card": card_json(played.card), "skipped": _seat(played.target)})
        hand.moves.append((move, drawn))

    def _finish(self, hand: _Hand, last: int, result: HandResult | None) -> None:
        """The hand as the export writes it: scored with ``result``, or voided (None) at the
        entry ``last``."""
        engine = hand.engine
        seats = []
        for s in range(self.players):
            dealt_in = bool(hand.dealt[s])
            phase = hand.phases[s]
            if result is not None:
                phase = result.phase[s]
            elif engine.down[s] is not None:
                phase = engine.down[s]
            seats.append({
                "seat": s + 1,
                "dealt_in": dealt_in,
                "phase": phase if dealt_in else None,
                "cards": [hand.card(slot) for slot in hand.dealt[s]] if dealt_in else None,
                "made": (result.made[s] if result is not None else engine.down[s] is not None)
                if dealt_in else None,
                "left": [hand.card(slot) for slot in engine.hands[s]] if dealt_in and result else None,
                "points": result.points[s] if result is not None else None,
                "total": engine.totals[s] if result is not None else None,
            })
        moves = []
        for move, drawn in hand.moves:
            if drawn is not None:
                move["card"] = hand.card(drawn)
            moves.append(move)
        self.hands.append({
            "hand": hand.number,
            "tie": hand.tie,
            "voided": result is None,
            "first_entry": hand.first_entry,
            "last_entry": last,
            "dealer": hand.dealer + 1,
            "first_turn": hand.first_turn + 1,
            "first_discard": hand.card(hand.first_up),
            "seats": seats,
            "moves": moves,
            "reshuffles": hand.reshuffles,
            "melds": [meld_json(m) for m in engine.melds],
            "went_out": _seat(result.went_out if result is not None else engine.went_out),
        })
        self.hand = None

    def _takeover(self, table: TableState, takeover: Takeover, voided: bool) -> dict[str, Any]:
        return {"event": "takeover", "entry": takeover.seq, "person": takeover.person + 1,
                "seats": [s + 1 for s in takeover.seats], "runner": takeover.runner + 1,
                "agreed_by": [s + 1 for s in takeover.agreed_by], "hand": takeover.hand + 1,
                "voided": voided, "keys": [_key(s, table.signing_keys[s]) for s in takeover.seats]}

    @staticmethod
    def _return(back: Return) -> dict[str, Any]:
        return {"event": "return", "entry": back.seq, "person": back.person + 1,
                "seats": [s + 1 for s in back.seats], "undoes": back.away, "hand": back.hand + 1}

    def result(self, table: TableState, entries: int, bots: frozenset[int]) -> dict[str, Any]:
        """The export of the game folded into ``table`` (its last state), of ``entries`` entries,
        in which the seats ``bots`` are bots whatever the log says."""
        engine = table.engine
        assert engine.winner is not None  # a clean log is a finished game
        players = [{
            "seat": s + 1,
            "index": s,
            "name": table.given_names[s],
            "key": table.keys[s].hex(),
            "fingerprint": fingerprint(table.keys[s]),
            "run_by": _seat(sat.run_by),
            "bot": sat.run_by is not None or s in bots,
        } for s, sat in enumerate(table.sit_downs)]
        standings = [{"seat": s + 1, "total": engine.totals[s], "phases_made": list(engine.made[s]),
                      "last_phase": engine.last_phase[s]} for s in range(table.players)]
        return {
            "format": FORMAT,
            "game": table.game_id.hex(),
            "table": table.table_id.hex(),
            "protocol": PROTOCOL_NAME,
            "entries": entries,
            "players": players,
            "rules": rules_json(table.rules),
            "hands": self.hands,
            "events": self.events,
            "result": {"winner": engine.winner + 1, "hands": len(engine.sheet), "standings": standings},
        }
