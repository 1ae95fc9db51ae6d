"""``p2p10 replay --html``: a saved game as one self-contained HTML page.

Everything the page shows is computed here, when the file is made: the replay's steps
(:func:`~p2p10.replay.replay_frames`), each seat's and a spectator's view of every step
(:func:`~p2p10.replay.view_as` with :func:`~p2p10.replay.revealed_secrets`), the narrator's
story as each of them saw it (:class:`~p2p10.narrate.Narrator`, as the terminal's replay viewer
tells it), the score sheet and its chart (:mod:`cli.web.charts`), and the audit's report and
verdict exactly as ``p2p10 audit`` prints them (:func:`cli.audit_cmd.cmd_audit`). The page's
script (``static/replay.js``) only steps through those frames and draws them: it decides
nothing, and the page makes no request of any kind.

To keep a long game's file small, the frames are arrays of small numbers: every text is in a
string table, and every hand row, meld list and seat line that repeats from one step to the next
is stored once and named by its index (see :class:`Interned`).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from html import escape
from pathlib import Path
from typing import Any

from cli.audit_cmd import cmd_audit
from cli.web.charts import running_totals, score_chart
from cli.web.page import Page, page
from p2p10.cards import sort_key
from p2p10.crypto.group import Scalar
from p2p10.engine import GameState
from p2p10.errors import ProtocolViolation
from p2p10.game_fields import HandResult
from p2p10.i18n import _, current_language, ngettext, pgettext
from p2p10.log import BadEntry, NotALog
from p2p10.melds import label_text
from p2p10.names import shown_name
from p2p10.narrate import Narrator
from p2p10.replay import replay_frames, revealed_secrets, view_as
from p2p10.seat_view import as_json, card_view
from p2p10.table import TableState

HIDDEN = -1
"""A card the viewer cannot see, in a hand row."""
KINDS = ("heading", "play", "event", "note", "detail", "item", "aside")
"""The narrator's kinds of line, by their index in the page's data."""
STAGES = ("deal", "draw", "play", "reveal", "over")
DOWN = "✓"  # the mark of a phase laid down, as the terminal's score sheet writes it
MOST_CARDS = 40  # the words "{n} cards" are given to the page for 0..MOST_CARDS


@dataclass
class Interned:
    """A table of JSON values, each stored once: :meth:`add` gives a value's index."""

    values: list[Any] = field(default_factory=list)
    _index: dict[str, int] = field(default_factory=dict)

    def add(self, value: Any) -> int:
        """The index of ``value`` in the table (added if it is new)."""
        key = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
        found = self._index.get(key)
        if found is None:
            found = self._index[key] = len(self.values)
            self.values.append(value)
        return found


def audit_report(path: Path) -> tuple[list[str], int]:
    """The lines ``p2p10 audit PATH`` prints, and its exit status (0 clean), from the
    command's own code. It is run from the file's folder on its name alone, so that the report
    names the file as the page does, and not where it was kept on this machine."""
    out = io.StringIO()
    args = argparse.Namespace(file=Path(path.name), jobs=1, by_reveals=False, json=False)
    with contextlib.chdir(path.parent), contextlib.redirect_stdout(out):
        status = cmd_audit(args)
    return out.getvalue().splitlines(), status


def _hand_row(view: GameState, seat: int) -> list[int]:
    """A seat's hand as the viewer sees it: known cards in order of number, then one
    :data:`HIDDEN` for each card it cannot see."""
    known = sorted((view.known[slot] for slot in view.hands[seat] if slot in view.known), key=sort_key)
    return known + [HIDDEN] * (len(view.hands[seat]) - len(known))


def _status(view: GameState, names: Sequence[str]) -> str:
    """What the table waits for at a step, in a few words."""
    if view.stage == "over":
        if view.winner is None:
            return pgettext("replay", "Game over")
        return ngettext("Game over: {name} wins with {n} point!", "Game over: {name} wins with {n} points!",
                        view.totals[view.winner]).format(name=names[view.winner], n=view.totals[view.winner])
    if view.stage == "deal" and not any(view.hands):
        # TRANSLATORS: the replay page's status line before a hand is dealt.
        return _("The next hand is being dealt.")
    if view.stage in ("deal", "reveal"):
        # TRANSLATORS: the replay page's status line at a hand's end.
        return _("The hand is over: every seat's cards are revealed.")
    if view.stage == "draw":
        # TRANSLATORS: the replay page's status line: {name} is to draw a card.
        return _("{name} to draw").format(name=names[view.turn])
    # TRANSLATORS: the replay page's status line: {name} has drawn and is to lay down, hit or discard.
    return _("{name} to play").format(name=names[view.turn])


@dataclass
class Built:
    """The data of a replay page, gathered step by step (see :func:`replay_data`)."""

    strings: Interned = field(default_factory=Interned)
    parts: Interned = field(default_factory=Interned)


def _frame(built: Built, view: GameState, names: Sequence[str]) -> list[Any]:
    """The public part of one step, as the spectator sees it (the hands as its rows)."""
    parts, strings = built.parts, built.strings
    melds = parts.add([[m.owner, m.id, strings.add(label_text(m.kind, m.label, len(m.cards))), list(m.cards)]
                       for m in view.melds])
    playing = view.stage in ("draw", "play", "reveal")
    seats = []
    for seat in range(view.players):
        dealt = seat in view.seats_in_hand or view.stage == "deal"
        phase = view.phase_of(seat) if dealt and view.stage != "over" else None
        # A hand is shown while it is played, and after it with the cards left, which the
        # end-of-hand reveal opened for everybody.
        shown = (playing and seat in view.seats_in_hand) or bool(view.hands[seat])
        seats.append(parts.add([phase or 0, int(view.down[seat] is not None), view.pending_skips[seat],
                                view.totals[seat], int(shown)]))
    rows = [parts.add(_hand_row(view, seat)) for seat in range(view.players)]
    top = view.top_discard()
    return [view.hand_no + 1, STAGES.index(view.stage), view.turn, len(view.stock),
            HIDDEN if top is None else top, len(view.discard), len(view.sheet), melds, seats, rows,
            strings.add(_status(view, names))]


FRAME_ROWS = 9
"""Where a frame (see :func:`_frame`) holds its hand rows."""


def _view_data(built: Built, frames: Sequence[TableState], viewer: int | None,
               secrets: dict[tuple[int, int], Scalar],
               names: list[str], frames_data: list[list[Any]]) -> dict[str, Any]:
    """One view of the game (``viewer``'s, None for the spectator's, which comes first and
    fills ``frames_data``): its move log's lines and at which step each was told; a seat's
    rows where it sees more than the spectator."""
    first = frames[0]
    narrator = Narrator(first.names, viewer)
    counts: list[int] = []
    rows: list[Any] = []
    for index, table in enumerate(frames):
        view = view_as(table, viewer, secrets)
        narrator.update(view, table)
        counts.append(len(narrator.told))
        if viewer is None:
            frames_data.append(_frame(built, view, names))
            continue
        # A seat's view differs from the spectator's only where it sees more (its own
        # hand): the rows that differ, as [seat, row, seat, row, ...], or 0.
        seen = [built.parts.add(_hand_row(view, seat)) for seat in range(view.players)]
        public = frames_data[index][FRAME_ROWS]
        rows.append([x for seat, row in enumerate(seen) if row != public[seat] for x in (seat, row)] or 0)
    # Each line as one number (its string times 8 plus its kind), and how many more lines each
    # step has told than the one before: small numbers, a small file.
    entry: dict[str, Any] = {
        "log": [built.strings.add(t.line) * 8 + KINDS.index(t.kind) for t in narrator.told],
        "at": [count - before for count, before in zip(counts, [0, *counts], strict=False)]}
    if viewer is not None:
        entry["rows"] = rows
    return entry


def _sheet_rows(sheet: Sequence[HandResult], totals: Sequence[Sequence[int]]) -> list[list[Any]]:
    """The score sheet's rows for the page: tie, phases, made, points (hidden as HIDDEN),
    running totals."""
    return [[int(row.tie), [p or 0 for p in row.phase], [int(m) for m in row.made],
             [HIDDEN if p is None else p for p in row.points], [t[i] for t in totals]]
            for i, row in enumerate(sheet)]


def replay_data(records: Sequence[bytes], path: Path,
                made: datetime | None = None) -> tuple[dict[str, Any], str]:
    """The JSON the replay page draws, and the HTML of its chart of the scores (the page shows
    it as far as the hands scored at its step). ``path`` is the log's file, audited with
    ``p2p10 audit``'s own code."""
    try:
        frames, stopped = replay_frames(records)
    except (BadEntry, ProtocolViolation) as err:
        raise NotALog(_("the log's first entry is not a table: {error}").format(error=err)) from None
    secrets = revealed_secrets(records)
    first: TableState = frames[0]
    names = [shown_name(name) for name in first.names]
    built = Built()
    frames_data: list[list[Any]] = []
    views: list[dict[str, Any]] = []
    for viewer in [None, *range(first.players)]:
        views.append(_view_data(built, frames, viewer, secrets, names, frames_data))
    last = frames[-1]
    sheet = last.engine.sheet
    totals = running_totals(sheet, first.players)
    lines, status = audit_report(path)
    when = (made or datetime.now(UTC)).replace(microsecond=0)
    raw = path.read_bytes()
    data: dict[str, Any] = {
        "v": 1,
        "names": names,
        "rules": first.rules.describe(),
        "game": first.game_id.hex(),
        "file": path.name,
        "made": when.isoformat().replace("+00:00", "Z"),
        "stopped": stopped,
        "audit": {"lines": lines, "verdict": lines[-1] if lines else "", "clean": status == 0},
        "hash": {"file": hashlib.sha256(raw).hexdigest(), "head": last.last_hash.hex()},
        "sheet": _sheet_rows(sheet, totals),
        "cards": [as_json(card_view(card)) for card in range(108)],
        "frames": frames_data,
        "views": views,
        "strings": built.strings.values,
        "parts": built.parts.values,
    }
    # TRANSLATORS: the title of the chart of the scores over the hands.
    title = _("Scores over the hands")
    charts = f'<figure class="chart" id="chart">{score_chart(names, totals, title)}</figure>' if sheet else ""
    return data, charts


def words() -> dict[str, Any]:
    """The page's own words, in the current language, for its script."""
    return {
        "hand": _("hand {n}"),
        "step": _("step {at}/{count}"),
        "asSpectator": _("as a spectator"),
        "as": _("as {name}"),
        "cards": [ngettext("{n} card", "{n} cards", n).format(n=n) for n in range(MOST_CARDS + 1)],
        "points": _("{n} pts"),
        "skippedNext": _("skipped next"),
        "skipped": _("skipped {n} turns"),
        # TRANSLATORS: the replay page: the name of a card it cannot show (face down).
        "hidden": _("a hidden card"),
        # TRANSLATORS: the replay page: how many cards are in the draw pile.
        "stock": _("Draw pile: {n}"),
        # TRANSLATORS: the replay page: how many cards are in the discard pile.
        "discard": _("Discard pile: {n}"),
        # TRANSLATORS: the replay page, when the discard pile is empty.
        "empty": _("empty"),
        # TRANSLATORS: the replay page: a seat whose turn it is (before its name, for a screen reader).
        "turn": _("to move"),
        "hands": pgettext("score sheet", "Hand"),
        "total": pgettext("score sheet", "Total"),
        "tie": _("{n} tie"),
        "down": DOWN,
        # TRANSLATORS: the replay page: the melds a seat has laid down.
        "melds": _("Melds"),
    }


def texts(data: dict[str, Any]) -> dict[str, str]:
    """The page's fixed words, in the current language, escaped for HTML (the marked strings
    stay outside f-strings, where the catalogues' extractor finds them)."""
    words = {
        "title": _("p2p10 replay"),
        "rules": _("Rules: {rules}").format(rules=data["rules"]),
        # TRANSLATORS: the replay page: the name of its row of buttons that step through the game.
        "steps": _("Steps"),
        # TRANSLATORS: the replay page: before the list "as a spectator", "as Ann" (whose eyes).
        "seen": _("Seen"),
        # TRANSLATORS: the replay page's keys; Home and End are the keys' names.
        "keys": _("Keys: ← → one move, ↑ ↓ one hand, Home End the start or the end, 0-6 the seat seen."),
        # TRANSLATORS: the replay page: the heading of the table (for a screen reader).
        "table": _("Table"),
        "moves": _("Moves"),
        "sheet": _("Score sheet"),
        "legend": _("(P2{tick}: phase 2 made that hand. Points are penalties: the lowest total "
                    "wins.)").format(tick=DOWN),
        # TRANSLATORS: the replay page: the heading of the audit's verdict.
        "audit": _("Audit"),
        # TRANSLATORS: the replay page, under the audit's verdict; {when} is a date and time (UTC).
        "when": _("This verdict was computed by p2p10 audit when this file was made ({when}). The page "
                  "does not check the game again: to check it yourself, run p2p10 audit on the game's "
                  "log.").format(when=data["made"]),
        # TRANSLATORS: the replay page: the name of the game's log file.
        "file": _("Log file"),
        # TRANSLATORS: the replay page: the SHA-256 of the log file (as sha256sum prints it).
        "sha": _("SHA-256 of the log file"),
        # TRANSLATORS: the replay page: the hash of the log's last entry, which chains every entry before it.
        "head": _("Hash of the log's last entry"),
        # TRANSLATORS: the replay page: what p2p10 audit printed, shown on a click.
        "report": _("The audit's report"),
        "noscript": _("Stepping through the game needs JavaScript."),
        "spectator": _("as a spectator"),
    }
    return {key: escape(value) for key, value in words.items()}


def body(data: dict[str, Any], charts: str) -> str:
    """The page's fixed HTML: headings, controls and the audit, in the current language. The
    script fills in the table, the log and the score sheet of each step."""
    t = texts(data)
    names = data["names"]
    seen_as = _("as {name}")
    seat_options = [f'<option value="0">{t["spectator"]}</option>'] + [
        f'<option value="{i + 1}">{escape(seen_as.format(name=name))}</option>'
        for i, name in enumerate(names)]
    audit = data["audit"]
    verdict = audit["verdict"]
    word = verdict.split(":", 1)[0]
    tone = "clean" if audit["clean"] else "failed"
    buttons = [
        ("first", "|◀", _("the start"), "Home"), ("hand-back", "◀◀", _("one hand back"), "↑"),
        ("back", "◀", _("one move back"), "←"), ("on", "▶", _("one move on"), "→"),
        ("hand-on", "▶▶", _("one hand on"), "↓"), ("last", "▶|", _("the end"), "End"),
    ]
    controls = "".join(f'<button type="button" id="{id_}" aria-label="{escape(label)}" '
                       f'title="{escape(label)} ({key})">{symbol}</button>'
                       for id_, symbol, label, key in buttons)
    hashes = data["hash"]
    report = escape("\n".join(audit["lines"]))
    return f"""
<header class="top">
  <div class="title">
    <h1>{t["title"]}</h1>
    <p class="players">{escape(", ".join(names))}</p>
    <p class="dim rules">{t["rules"]}</p>
  </div>
  <div class="controls" role="toolbar" aria-label="{t["steps"]}">
    {controls}
    <label class="seen">{t["seen"]}
      <select id="seat">{"".join(seat_options)}</select>
    </label>
  </div>
  <p id="where" class="where" aria-live="polite"></p>
  <p class="keys dim">{t["keys"]}</p>
</header>
<main class="layout">
  <section class="panel table" aria-labelledby="table-head">
    <h2 id="table-head" class="visually-hidden">{t["table"]}</h2>
    <p id="status" class="status"></p>
    <div class="piles">
      <figure id="stock" class="pile"></figure>
      <figure id="discard" class="pile"></figure>
    </div>
    <div id="seats" class="seats"></div>
  </section>
  <section class="panel log" aria-labelledby="log-head">
    <h2 id="log-head">{t["moves"]}</h2>
    <ol id="moves" class="moves"></ol>
  </section>
  <section class="panel sheet" aria-labelledby="sheet-head">
    <h2 id="sheet-head">{t["sheet"]}</h2>
    <div class="sheet-scroll"><table id="sheet-table"></table></div>
    <p class="dim">{t["legend"]}</p>
    <div class="charts">{charts}</div>
  </section>
  <section class="panel audit {tone}" aria-labelledby="audit-head">
    <h2 id="audit-head">{t["audit"]}</h2>
    <p class="verdict"><strong class="word">{escape(word)}</strong>{escape(verdict[len(word):])}</p>
    <p>{t["when"]}</p>
    <dl class="hashes">
      <dt>{t["file"]}</dt><dd>{escape(data["file"])}</dd>
      <dt>{t["sha"]}</dt><dd><code>{hashes["file"]}</code></dd>
      <dt>{t["head"]}</dt><dd><code>{hashes["head"]}</code></dd>
    </dl>
    <details>
      <summary>{t["report"]}</summary>
      <pre>{report}</pre>
    </details>
  </section>
</main>
<noscript><p class="panel">{t["noscript"]}</p></noscript>
"""


def replay_page(records: Sequence[bytes], path: Path, made: datetime | None = None) -> Page:
    """The self-contained replay page of the log at ``path`` (its ``records``), in the
    current language."""
    data, charts = replay_data(records, path, made)
    data["words"] = words()
    # Said at the last step of a log that breaks the rules, as the terminal's viewer says it.
    stopped = data["stopped"]
    data["words"]["stopped"] = _("stopped: {reason}").format(reason=stopped) if stopped else ""
    title = _("p2p10 replay: {players}").format(players=", ".join(data["names"]))
    return page(title, current_language(), ["cards.js", "replay.js"], ["base.css", "replay.css"],
                body=body(data, charts), data=data, connect=False)
