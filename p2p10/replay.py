"""A readable transcript of a saved game, hand by hand and turn by turn.

The log is folded through the same checks as the audit. A viewer sees what one seat saw: its
own cards (opened with its hand key, which the log holds once that hand's reveal is written) and
everything public; a spectator sees only public cards until each hand's end-of-hand reveal.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence

from p2p10.cards import card_text, sort_key
from p2p10.crypto.group import Scalar
from p2p10.engine import GameState
from p2p10.errors import ProtocolError, ProtocolViolation
from p2p10.log import BadEntry, Entry, parse_entry
from p2p10.rules import describe_phase
from p2p10.table import TableState, fold
from p2p10.wire import MoveBody, RevealBody, decode_body


def revealed_secrets(records: Sequence[bytes]) -> dict[tuple[int, int], Scalar]:
    """``(hand, seat) -> secret`` from the reveal entries (checked later, by the fold)."""
    found: dict[tuple[int, int], Scalar] = {}
    for raw in records:
        try:
            entry = parse_entry(raw)
            if entry.kind == "reveal":
                body = RevealBody.from_wire(entry.body)
                found[(body.hand, entry.author)] = Scalar.from_bytes(body.secret)
        except ProtocolError:  # BadEntry, WireError, a scalar that does not parse
            continue
    return found


def _cards(cards: Sequence[int]) -> str:
    return " ".join(card_text(c) for c in sorted(cards, key=sort_key)) or "no cards"


class _Narrator:
    """Turns each entry into lines, comparing the table before and after it."""

    def __init__(self, viewer: int | None, secrets: dict[tuple[int, int], Scalar]) -> None:
        self.viewer = viewer
        self.secrets = secrets
        self.deal_from = 0
        self.draw_pending: int | None = None

    def _view(self, table: TableState) -> GameState:
        if self.viewer is None or table.hand is None:
            return table.engine
        return table.seat_view(self.viewer, self.secrets.get((table.hand.number, self.viewer)))

    def lines(self, entry: Entry, before: TableState, after: TableState) -> list[str]:
        name = after.names[entry.author]
        kind = entry.kind
        old, new = before.engine, after.engine
        out: list[str] = []
        if kind == "away":
            return ["", *self._went_on(entry, before, after)]
        if kind == "back":
            back = after.returns[-1]
            who = " and ".join(after.names[s] for s in back.seats)
            return ["", f"** At entry {entry.seq} {who} came back: {who} plays again from hand "
                        f"{back.hand + 1} **"]
        if kind == "key" and before.hand is None:
            self.deal_from = entry.seq
            out.append("")
            out.append(f"== Hand {after.hands_started} ==")
        if kind in ("key", "shuffle", "tokens"):
            if before.hand is not None and before.hand.stage == "deal_tokens" and new.stage != "deal":
                out.append(self._dealt(entry, after))
            elif (before.hand is not None and before.hand.stage == "shuffle" and after.hand is not None
                  and after.hand.stage == "play" and len(after.hand.rounds) > 1):
                pool = len(after.hand.rounds[-1].base)
                out.append(f"  The draw pile ran out: {pool} cards of the discard pile were "
                           f"reshuffled by all {after.players} seats")
            if self.draw_pending is not None and after.hand is not None and after.hand.draw is None:
                drawer, self.draw_pending = self.draw_pending, None
                view = self._view(after)
                slot = new.hands[drawer][-1]
                card = view.card_at(slot)
                seen = f": {card_text(card)}" if card is not None and drawer == self.viewer else ""
                out.append(f"  {after.names[drawer]} drew from the draw pile{seen}")
            return out
        if kind == "move":
            move = decode_body(kind, entry.body)
            assert isinstance(move, MoveBody)  # the fold accepted it
            action = move.action
            if self.viewer == entry.author and old.stage == "draw":
                mine = self._view(before).hand_cards(entry.author)
                out.append(f"  (your hand: {_cards(mine)})")
            if action == "draw":
                self.draw_pending = entry.author
            elif action == "take":
                out.append(f"  {name} took {card_text(old.known[old.discard[-1]])} from the discard pile")
            elif action == "lay":
                melds = " | ".join(m.describe() for m in new.melds[len(old.melds):])
                out.append(f"  {name} laid down phase {move.phase}: {melds}")
            elif action == "hit":
                assert move.meld is not None and move.slot is not None
                meld = new.melds[move.meld]
                card = new.known[move.slot]
                owner = "own" if meld.owner == entry.author else f"{new.names[meld.owner]}'s"
                out.append(f"  {name} hit {card_text(card)} on {owner} {meld.describe()}")
            elif action == "discard":
                assert move.slot is not None
                card = new.known[move.slot]
                target = move.target
                if target is not None:
                    out.append(f"  {name} discarded a Skip at {new.names[target]}")
                else:
                    out.append(f"  {name} discarded {card_text(card)}")
            if new.stage == "reveal" and old.stage != "reveal":
                out.append(f"  {name} went out")
            return out
        if kind == "reveal" and after.hand is None:
            out.extend(self._scored(before, after))
        return out

    def _went_on(self, entry: Entry, before: TableState, after: TableState) -> list[str]:
        # Who was taken over, at which entry and by whose agreement, and which steps of the
        # voided hand nobody can ever check (every revealed one was checked at its reveal).
        takeover = after.takeovers[-1]
        names = before.names
        gone = [names[s] for s in takeover.seats]
        them = "them" if len(gone) > 1 else "that seat"
        cosigners = [names[s] for s in takeover.agreed_by if s != takeover.runner]
        agreement = (f"with the signed agreement of {' and '.join(cosigners)}" if cosigners
                     else "nobody else had to agree")
        lines = [f"** At entry {entry.seq} {' and '.join(names[s] for s in takeover.agreed_by)} went on "
                 f"without {' and '.join(gone)}: the hand under way is void and is dealt again "
                 f"without {them}; from the next hand "
                 f"{', '.join(after.names[s] for s in takeover.seats)} "
                 f"{'play' if len(gone) > 1 else 'plays'} as a bot **",
                 f"   ({names[takeover.runner]} wrote the away entry, {agreement})"]
        return lines

    def _dealt(self, entry: Entry, after: TableState) -> str:
        engine = after.engine
        top = engine.top_discard()
        lines = [f"  Dealt by {after.players} shuffles after {after.players} hand keys with proofs "
                 f"(entries {self.deal_from}-{entry.seq}); dealer {engine.names[engine.dealer]}; "
                 f"first discard {card_text(top) if top is not None else '?'}"]
        phases = ", ".join(f"{engine.names[s]} phase {engine.phase_of(s)}" for s in engine.seats_in_hand)
        lines.append(f"  Phases: {phases}")
        if self.viewer is not None:
            mine = self._view(after).hand_cards(self.viewer)
            lines.append(f"  Your cards: {_cards(mine)}")
        return "\n".join(lines)

    def _scored(self, before: TableState, after: TableState) -> list[str]:
        new = after.engine
        result = new.sheet[-1]
        out = ["  Hand over. Every key and seed revealed; every shuffle and hand checked:"]
        for seat in range(new.players):
            if result.points[seat] is None:
                continue
            hand_before = before.engine
            slots = hand_before.hands[seat]
            held = [new.known[s] for s in slots if s in new.known] if slots else []
            phase = result.phase[seat]
            status = "made" if result.made[seat] else "not made"
            out.append(f"    {new.names[seat]}: {_cards(held)} = {result.points[seat]} points; "
                       f"phase {phase} ({describe_phase(phase) if phase else '-'}) {status}")
        totals = ", ".join(f"{n} {t}" for n, t in zip(new.names, new.totals, strict=True))
        out.append(f"  Totals: {totals}")
        if new.winner is not None:
            out.append("")
            out.append(f"Game over: {new.names[new.winner]} wins with {new.totals[new.winner]} points.")
        elif new.tie is not None:
            out.append("  A tie: the tied players replay their last phase.")
        return out


def transcript(records: Sequence[bytes], viewer: int | None = None,
               hand: int | None = None) -> Generator[str, None, ProtocolViolation | None]:
    """Lines of a game's transcript as ``viewer`` (a seat, or None for a spectator) saw it;
    ``hand`` (1-based) keeps only that hand's lines. Stops at a violation, saying so in its
    last line, and returns it (None for a log with none)."""
    secrets = revealed_secrets(records) if viewer is not None else {}
    narrator = _Narrator(viewer, secrets)
    table: TableState | None = None
    for index, raw in enumerate(records):
        try:
            entry = parse_entry(raw)
            if table is None:
                table = fold(None, entry, defer_proofs=True)
                players = ", ".join(table.name(s) for s in range(table.players))
                yield f"Game {table.game_id.hex()[:16]}: {players}"
                yield f"Rules: {table.rules.describe()}"
                if viewer is not None and viewer >= table.players:
                    raise ProtocolError(f"there is no seat {viewer + 1} at this table")
                who = f"as {table.name(viewer)}" if viewer is not None else "as a spectator"
                yield f"Seen {who}; hidden cards appear at each hand's end-of-hand reveal."
                continue
            after = table.apply(entry)
        except (BadEntry, ProtocolViolation) as err:
            bad = deferred_violation(table, index)
            if bad is not None:
                yield f"VIOLATION at entry {bad.seq}: {bad}"
                return bad
            if isinstance(err, ProtocolViolation):
                yield f"VIOLATION at entry {index}: {err}"
                return err
            yield f"VIOLATION at entry {index}: a malformed entry: {err}"
            return ProtocolViolation(None, index, f"a malformed entry: {err}")
        number = table.hand.number + 1 if table.hand is not None else table.hands_started + 1
        lines = narrator.lines(entry, table, after)
        table = after
        if hand is None or number == hand:
            yield from lines
    if table is not None and table.expected() is not None:
        bad = deferred_violation(table, None)
        if bad is not None:
            yield f"VIOLATION at entry {bad.seq}: {bad}"
            return bad
        expect = table.expected()
        assert expect is not None
        yield f"(The log ends here: {table.name(expect.seat)} was to write {expect.what}.)"
    return None


def deferred_violation(table: TableState | None, before: int | None) -> ProtocolViolation | None:
    """A replay folds as the audit does, deferring a hand's proofs to its reveals
    (``defer_proofs``): where the log breaks (at entry ``before``) or ends mid-hand, a check put
    off and failed before that point is what the peers stopped at; None if there is none."""
    if table is None:
        return None
    try:
        table.check_deferred(before)
    except ProtocolViolation as err:
        return err
    return None
