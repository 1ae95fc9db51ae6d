"""A saved game replayed: its transcript, hand by hand and turn by turn (told by
:class:`~p2p10.narrate.Narrator`), and the steps the replay viewer shows.

The log is folded through the same checks as the audit. A viewer sees what one seat saw: its
own cards (opened with its hand key, which the log holds once that hand's reveal is written) and
everything public; a spectator sees only public cards until each hand's end-of-hand reveal.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence

from p2p10.crypto.group import Scalar
from p2p10.engine import GameState
from p2p10.errors import ProtocolError, ProtocolViolation
from p2p10.i18n import _
from p2p10.log import BadEntry, parse_entry
from p2p10.narrate import Narrator
from p2p10.table import TableState, fold
from p2p10.wire import RevealBody


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


def view_as(table: TableState, viewer: int | None, secrets: Mapping[tuple[int, int], Scalar]) -> GameState:
    """The game at ``table`` as ``viewer`` saw it (None: a spectator), its own cards opened with
    its hand key from ``secrets`` (see :func:`revealed_secrets`) where the log has it."""
    if viewer is None or table.hand is None:
        return table.engine
    return table.seat_view(viewer, secrets.get((table.hand.number, viewer)))


def replay_frames(records: Sequence[bytes]) -> tuple[list[TableState], str | None]:
    """The steps of a replay: the table at the start, wherever a move is due, after each hand
    is scored, and at the end of the log; and the reason the fold stopped early (a
    violation), if it did: a damaged log is shown up to the damage. Raises
    :class:`BadEntry` or :class:`ProtocolViolation` when the first entry is not a table."""
    table = fold(None, parse_entry(records[0]), defer_proofs=True)
    frames = [table]
    stopped = None
    for index, raw in enumerate(records[1:], start=1):
        try:
            after = table.apply(parse_entry(raw))
        except (BadEntry, ProtocolViolation) as err:
            earlier = deferred_violation(table, index)
            stopped = _stopped_at(index, err) if earlier is None else _stopped_at(earlier.seq, earlier)
            break
        expect = after.expected()
        if expect is None or expect.kind == "move" or len(after.engine.sheet) > len(table.engine.sheet):
            frames.append(after)
        table = after
    if stopped is None and table.expected() is not None:
        earlier = deferred_violation(table, None)
        stopped = None if earlier is None else _stopped_at(earlier.seq, earlier)
    if frames[-1] is not table:
        frames.append(table)
    return frames, stopped


def transcript(records: Sequence[bytes], viewer: int | None = None,
               hand: int | None = None) -> Generator[str, None, ProtocolViolation | None]:
    """Lines of a game's transcript as ``viewer`` (a seat, or None for a spectator) saw it;
    ``hand`` (from 1, as the table and its score sheet count hands) keeps only that hand's
    lines. Stops at a violation, saying so in its last line, and returns it (None for a log
    with none)."""
    secrets = revealed_secrets(records) if viewer is not None else {}
    narrator: Narrator | None = None
    table: TableState | None = None
    for index, raw in enumerate(records):
        try:
            entry = parse_entry(raw)
            if table is None:
                table = fold(None, entry, defer_proofs=True)
                players = ", ".join(table.name(s) for s in range(table.players))
                # TRANSLATORS: the transcript's first line: the game's number (hexadecimal) and
                # its players.
                yield _("Game {game}: {players}").format(game=table.game_id.hex()[:16], players=players)
                yield _("Rules: {rules}").format(rules=table.rules.describe())
                if viewer is not None and viewer >= table.players:
                    raise ProtocolError(_("there is no seat {seat} at this table").format(seat=viewer + 1))
                if viewer is not None:
                    # TRANSLATORS: {name} is a player's name and seat: "Ann (seat 1)".
                    yield _("Seen as {name}; hidden cards appear at each hand's end-of-hand "
                            "reveal.").format(name=table.name(viewer))
                else:
                    yield _("Seen as a spectator; hidden cards appear at each hand's end-of-hand "
                            "reveal.")
                narrator = Narrator(table.names, viewer)
                narrator.update(table.engine, table)
                continue
            table = table.apply(entry)
        except (BadEntry, ProtocolViolation) as err:
            bad = deferred_violation(table, index)
            if bad is not None:
                yield _violation_line(bad.seq, bad)
                return bad
            if isinstance(err, ProtocolViolation):
                yield _violation_line(index, err)
                return err
            # TRANSLATORS: {reason} says what is wrong with the bytes of a log entry.
            malformed = _("a malformed entry: {reason}").format(reason=err)
            yield _violation_line(index, malformed)
            return ProtocolViolation(None, index, malformed)
        assert narrator is not None  # made with the table
        told = len(narrator.told)
        narrator.update(view_as(table, viewer, secrets), table)
        for line in narrator.told[told:]:
            if hand is None or line.hand == hand:
                yield from line.transcript()
    if table is not None and table.expected() is not None:
        bad = deferred_violation(table, None)
        if bad is not None:
            yield _violation_line(bad.seq, bad)
            return bad
        expect = table.expected()
        assert expect is not None
        # TRANSLATORS: the transcript's last line when the log stops mid-game: {name} is a
        # player's name and seat ("Ann (seat 1)"), {what} the entry they were to write ("a move").
        yield _("(The log ends here: {name} was to write {what}.)").format(
            name=table.name(expect.seat), what=expect.what)
    return None


def _stopped_at(seq: int | None, err: object) -> str:
    """Where and why a replay stopped, for the replay viewer."""
    # TRANSLATORS: why a replay stops early: {seq} is the log entry's number, {reason} what is
    # wrong with it.
    return _("entry {seq}: {reason}").format(seq=seq, reason=err)


def _violation_line(seq: int | None, err: object) -> str:
    """The transcript's line for a violation; the verdict word is a documented token, the same
    in every language (as in ``p2p10 audit``)."""
    # TRANSLATORS: {verdict} is the word VIOLATION, kept in English (a token scripts look for):
    # keep it first. {seq} is the log entry's number, {reason} what is wrong with it.
    return _("{verdict} at entry {seq}: {reason}").format(verdict="VIOLATION", seq=seq, reason=err)


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
