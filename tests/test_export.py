"""``p2p10 export --json``: a log that audits clean, as one JSON object of the format
``specs/export.schema.json`` specifies, whose every fact agrees with what the audit and the
table say; a log that does not audit clean is refused (exit 1, nothing written), a file that
is not a log is exit 2, as for ``p2p10 audit``."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cli.main import main
from p2p10.audit import audit_records
from p2p10.bots import POLICIES
from p2p10.cards import ALL_CARDS, card_text
from p2p10.export import FORMAT, NotClean, export_game
from p2p10.log import Entry, encode_log, fingerprint, make_entry, parse_entry, read_records, record
from p2p10.peer import Peer
from p2p10.rules import RuleSet
from p2p10.table import TableState, fold
from protocol.memory import play_table
from tests.test_away import Table, bring_in_the_bot

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "specs" / "export.schema.json"
DECK = Counter(card_text(c) for c in ALL_CARDS)  # how many of each face the deck has


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return loaded


class Game:
    """A finished game: its log file, records, audit and export."""

    def __init__(self, path: Path, records: tuple[bytes, ...], keys: list[Ed25519PrivateKey]) -> None:
        self.path = path
        self.records = records
        self.keys = keys  # each seat's identity key, to sign entries of our own
        self.report = audit_records(records)
        assert self.report.clean, self.report.verdict()
        self.table = self.report.table
        assert self.table is not None
        self.export = export_game(records, self.report)


def _saved(path: Path, log: list[Entry], peers: list[Peer]) -> Game:
    data = encode_log(log)
    path.write_bytes(data)
    return Game(path, read_records(data).items, [p.identity for p in peers])


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Game]:
    """Three games with full dealing cryptography: three greedy bots over three hands and a tie
    replay; two random bots whose hand runs through the draw pile (a reshuffle); and a table
    that went on without a machine (a voided hand, dealt again, and a bot from then on)."""
    folder = tmp_path_factory.mktemp("export")
    three = play_table([POLICIES["greedy"]] * 3, RuleSet.parse(["hands=3"]), seed=13)
    long = play_table([POLICIES["random"]] * 2, RuleSet.parse(["hands=1"]), seed=1)
    away = Table(11)
    away.stuck_mid_hand()
    away.go_on()
    bring_in_the_bot(away)
    away.network.run(lambda: all(p.finished for p in away.peers))
    return {"three": _saved(folder / "three.p2p10", three.log, three.peers),
            "reshuffle": _saved(folder / "reshuffle.p2p10", long.log, long.peers),
            "takeover": _saved(folder / "takeover.p2p10", away.log(), away.peers)}


@pytest.fixture(params=["three", "reshuffle", "takeover"])
def game(request: pytest.FixtureRequest, games: dict[str, Game]) -> Game:
    return games[request.param]


def _schemas(node: object, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every ``properties`` entry of the schema, with where it is."""
    if isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            if isinstance(sub, dict):
                yield f"{where}/{name}", sub
        for key, value in node.items():
            yield from _schemas(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _schemas(item, f"{where}/{index}")


# ------------------------------------------------------------------------------ the schema


def test_the_schema_is_a_valid_draft_2020_12_schema_that_documents_every_property(
        schema: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["properties"]["format"]["const"] == FORMAT
    # Every property is described, except those a conditional forbids or narrows (then/if).
    undocumented = [where for where, sub in _schemas(schema)
                    if "description" not in sub and "/then/" not in where and "/if/" not in where]
    assert not undocumented, undocumented
    objects = [sub for _where, sub in _schemas({"properties": {"_": schema}}) if sub.get("type") == "object"]
    objects += [d for d in schema["$defs"].values() if d.get("type") == "object"]
    assert objects and all(d.get("additionalProperties") is False for d in objects)


def test_every_export_validates_against_the_schema(game: Game, schema: dict[str, Any]) -> None:
    validator = jsonschema.Draft202012Validator(schema)
    errors = [f"{e.json_path}: {e.message}" for e in validator.iter_errors(game.export)]
    assert not errors, errors[:5]
    # ... and the export is JSON (nothing but JSON types: it survives a round trip).
    assert json.loads(json.dumps(game.export)) == game.export


def test_the_schema_refuses_what_the_format_does_not_allow(games: dict[str, Game],
                                                           schema: dict[str, Any]) -> None:
    validator = jsonschema.Draft202012Validator(schema)
    good = json.loads(json.dumps(games["three"].export))
    assert validator.is_valid(good)

    def broken(change: Any) -> bool:
        copy = json.loads(json.dumps(good))
        change(copy)
        return not validator.is_valid(copy)

    assert broken(lambda d: d.update(extra=1))
    assert broken(lambda d: d["players"][0].update(seat=0))
    assert broken(lambda d: d["hands"][0].update(first_discard="X7"))
    assert broken(lambda d: d["hands"][0].update(first_discard="R13"))
    assert broken(lambda d: d["hands"][0]["seats"][0].update(cards=["R1"] * 9))
    assert broken(lambda d: d["hands"][0]["seats"][0].update(points=None))  # a scored hand
    assert broken(lambda d: d["hands"][0]["moves"][0].update(action="pass"))
    assert broken(lambda d: d["hands"][0]["moves"][0].update(melds=[]))  # a draw has no melds
    assert broken(lambda d: d["hands"][0]["melds"][0].pop("number"))  # a set says its number
    assert broken(lambda d: d["result"].pop("winner"))


# ------------------------------------------------------------------------------ the content


def _points(card: str) -> int:
    """Penalty points of a card left in hand, from its notation (specs/RULES.md)."""
    if card == "W":
        return 25
    if card == "S":
        return 15
    return 5 if int(card[1:]) <= 9 else 10


def test_the_table_players_and_rules_are_the_logs(game: Game) -> None:
    out, table = game.export, game.table
    assert table is not None
    assert out["format"] == FORMAT == "p2p10/export/v1"
    assert out["game"] == table.game_id.hex() and out["table"] == table.table_id.hex()
    assert out["entries"] == len(game.records) == game.report.entries
    first = parse_entry(game.records[0])
    assert first.kind == "table" and out["protocol"] == first.body[0]
    assert [p["seat"] for p in out["players"]] == list(range(1, table.players + 1))
    assert [p["index"] for p in out["players"]] == list(range(table.players))
    for player, sat in zip(out["players"], table.sit_downs, strict=True):
        assert player["name"] == sat.name and bytes.fromhex(player["key"]) == sat.key
        assert player["run_by"] is None and player["bot"] is False  # every seat sat down on its own
    assert [p["fingerprint"] for p in out["players"]] == [fingerprint(k) for k in table.keys]
    assert out["rules"]["options"] == list(table.rules.options())
    assert RuleSet.parse(out["rules"]["options"]) == table.rules
    assert out["rules"]["hand_size"] == 10


def test_the_score_sheet_totals_and_winner_are_the_audits(game: Game) -> None:
    out, report = game.export, game.report
    table = report.table
    assert table is not None
    scored = [h for h in out["hands"] if not h["voided"]]
    assert len(scored) == len(report.sheet) == out["result"]["hands"]
    for hand, row in zip(scored, report.sheet, strict=True):
        assert hand["hand"] == row.number + 1 and hand["tie"] == row.tie
        assert hand["went_out"] == row.went_out + 1
        assert [s["points"] for s in hand["seats"]] == list(row.points)
        assert [s["phase"] for s in hand["seats"]] == list(row.phase)
        assert [s["made"] for s in hand["seats"]] == [m if p is not None else None
                                                      for m, p in zip(row.made, row.points, strict=True)]
        for seat in hand["seats"]:
            if seat["dealt_in"]:  # the points are those of the cards left
                assert seat["points"] == sum(_points(c) for c in seat["left"])
    assert out["result"]["winner"] == table.engine.winner + 1  # type: ignore[operator]
    standings = out["result"]["standings"]
    assert [s["total"] for s in standings] == list(table.engine.totals)
    assert [s["phases_made"] for s in standings] == [list(m) for m in table.engine.made]
    counted = [h for h in scored if not h["tie"]]
    for seat in range(table.players):
        assert sum(h["seats"][seat]["points"] or 0 for h in counted) == standings[seat]["total"]
    assert [s["total"] for s in scored[-1]["seats"]] == list(table.engine.totals)


def test_every_move_entry_is_exported_once_in_log_order(game: Game) -> None:
    entries = [parse_entry(raw) for raw in game.records]
    moves = [m for h in game.export["hands"] for m in h["moves"]]
    assert [m["entry"] for m in moves] == [e.seq for e in entries if e.kind == "move"]
    assert all(m["seat"] == entries[m["entry"]].author + 1 for m in moves)
    assert all(m["action"] == entries[m["entry"]].body[1] for m in moves)
    for hand in game.export["hands"]:
        assert hand["first_entry"] < min((m["entry"] for m in hand["moves"]), default=hand["last_entry"])
        assert entries[hand["first_entry"]].kind == "key"
        assert entries[hand["last_entry"]].kind == ("away" if hand["voided"] else "reveal")


def test_each_deal_is_real_cards_ten_a_seat_and_every_card_is_accounted_for(game: Game) -> None:
    """Replayed from the export alone: each seat starts with its ten dealt cards, gains what it
    draws or takes, gives up what it lays down, hits and discards (each time a card it holds),
    and ends with the cards it is scored on; no card of a deal is dealt twice."""
    size = game.export["rules"]["hand_size"]
    for hand in game.export["hands"]:
        dealt = [c for s in hand["seats"] if s["dealt_in"] for c in s["cards"]] + [hand["first_discard"]]
        known = [c for c in dealt if c is not None]
        assert all(c in DECK for c in known)
        assert not Counter(known) - DECK  # no face more often than the deck has it
        assert all(len(s["cards"]) == size for s in hand["seats"] if s["dealt_in"])
        assert all(s["cards"] is None for s in hand["seats"] if not s["dealt_in"])
        if hand["voided"]:
            continue
        assert None not in dealt  # every card of a scored hand is revealed at its end
        held = {s["seat"]: Counter(s["cards"]) for s in hand["seats"] if s["dealt_in"]}
        for move in hand["moves"]:
            mine = held[move["seat"]]
            if move["action"] in ("draw", "take"):
                mine[move["card"]] += 1
                continue
            played = ([c for meld in move["melds"] for c in meld["cards"]] if move["action"] == "lay"
                      else [move["card"]])
            assert not Counter(played) - mine, (hand["hand"], move)  # the seat held what it played
            mine.subtract(played)
            if move["action"] == "lay":
                assert all(meld["owner"] == move["seat"] for meld in move["melds"])
        for seat in hand["seats"]:
            if seat["dealt_in"]:
                assert +held[seat["seat"]] == Counter(seat["left"]), (hand["hand"], seat["seat"])
        assert hand["went_out"] is not None and hand["seats"][hand["went_out"] - 1]["left"] == []


def test_the_melds_at_a_hands_end_are_the_lay_downs_and_the_hits(game: Game) -> None:
    for hand in game.export["hands"]:
        melds: dict[int, list[str]] = {}
        for move in hand["moves"]:
            if move["action"] == "lay":
                melds.update({m["meld"]: list(m["cards"]) for m in move["melds"]})
            elif move["action"] == "hit":
                assert move["owner"] == next(m["owner"] for m in hand["melds"] if m["meld"] == move["meld"])
                melds[move["meld"]].append(move["card"])
        assert sorted(melds) == [m["meld"] for m in hand["melds"]]
        for meld in hand["melds"]:
            assert Counter(meld["cards"]) == Counter(melds[meld["meld"]])


def test_a_reshuffle_is_exported_and_the_cards_it_took_back_stay_known(games: dict[str, Game]) -> None:
    hand = games["reshuffle"].export["hands"][0]
    assert hand["reshuffles"] and all(r["cards"] > 0 for r in hand["reshuffles"])
    entries = [parse_entry(raw) for raw in games["reshuffle"].records]
    assert all(entries[r["entry"]].kind == "shuffle" for r in hand["reshuffles"])
    assert all(m["card"] is not None for m in hand["moves"] if m["action"] != "lay")


def test_a_tie_replay_deals_only_the_tied_players(games: dict[str, Game]) -> None:
    hands = games["three"].export["hands"]
    tie = hands[-1]
    assert tie["tie"] and not any(h["tie"] for h in hands[:-1])
    before = hands[-2]["seats"]
    lowest = min(s["total"] for s in before)
    assert [s["dealt_in"] for s in tie["seats"]] == [s["total"] == lowest for s in before]
    assert [s["total"] for s in tie["seats"]] == [s["total"] for s in before]  # it does not count


def test_a_takeover_is_an_event_and_its_hand_is_voided_and_dealt_again(games: dict[str, Game]) -> None:
    game = games["takeover"]
    out = game.export
    assert len(game.report.takeovers) == 1
    takeover = game.report.takeovers[0]
    table: TableState | None = None
    for raw in game.records[:takeover.seq + 1]:
        table = fold(table, parse_entry(raw), defer_proofs=True)
    assert table is not None
    assert out["events"] == [{
        "event": "takeover", "entry": takeover.seq, "person": 3, "seats": [3], "runner": 1,
        "agreed_by": [1, 2], "hand": takeover.hand + 1, "voided": True,
        "keys": [{"seat": 3, "key": table.signing_keys[2].hex(),
                  "fingerprint": fingerprint(table.signing_keys[2])}]}]
    voided = [h for h in out["hands"] if h["voided"]]
    assert len(voided) == 1
    hand = voided[0]
    assert hand["last_entry"] == takeover.seq and hand["moves"]
    assert all(s["points"] is None and s["left"] is None and s["total"] is None for s in hand["seats"])
    unknown = [c for s in hand["seats"] for c in s["cards"]].count(None)
    assert unknown > 0  # nobody revealed the hand: only the cards played are known
    again = out["hands"][out["hands"].index(hand) + 1]
    assert again["hand"] == hand["hand"] and not again["voided"]
    assert [s["dealt_in"] for s in again["seats"]] == [True, True, False]
    assert all(s["dealt_in"] for h in out["hands"][out["hands"].index(again) + 1:] for s in h["seats"]
               if not h["tie"])


def test_a_log_that_does_not_audit_clean_is_not_exported(games: dict[str, Game]) -> None:
    records = games["three"].records
    with pytest.raises(NotClean) as refused:
        export_game(records[:-1])
    assert str(refused.value).startswith("INCOMPLETE: ") and not refused.value.report.clean
    with pytest.raises(ValueError, match="not of these records"):
        export_game(records, games["reshuffle"].report)


# ------------------------------------------------------------------------------ the command


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    status = main(argv)
    out = capsys.readouterr()
    return status, out.out, out.err


def test_the_command_writes_the_export_to_a_file_or_the_standard_output(
        games: dict[str, Game], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = games["three"]
    target = tmp_path / "game.json"
    target.write_text("an older export")
    status, out, err = _run(["export", "--json", "--jobs", "2", "-o", str(target), str(game.path)], capsys)
    assert (status, out, err) == (0, "", "")
    assert json.loads(target.read_text(encoding="utf-8")) == game.export
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]  # no partial file left beside it
    status, out, err = _run(["export", "--json", "--jobs", "1", str(game.path)], capsys)
    assert status == 0 and not err and out.count("\n") == 1  # one object, on one line
    assert json.loads(out) == game.export
    status, out, err = _run(["export", "--json", "--jobs", "1", "--indent", "2", "-o", "-", str(game.path)],
                            capsys)
    assert status == 0 and out.startswith('{\n  "format": "p2p10/export/v1",')
    assert json.loads(out) == game.export


def test_json_is_required_and_said_to_be(games: dict[str, Game], capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        main(["export", str(games["three"].path)])
    assert done.value.code == 2
    assert "--json" in capsys.readouterr().err


def _flipped(log: bytes, at: int) -> bytes:
    data = bytearray(log)
    data[at] ^= 0x01
    return bytes(data)


def _out_of_turn(game: Game) -> bytes:
    """The game's log up to its second move, then a move signed by a seat whose turn it is not."""
    table: TableState | None = None
    for raw in game.records:
        expect = table.expected() if table is not None else None
        if table is not None and table.engine.history and expect is not None and expect.kind == "move":
            assert table.hand is not None
            other = (expect.seat + 1) % table.players
            bad = make_entry(game.keys[other], table.game_id, table.seq, table.last_hash, other, "move",
                             [table.hand.number, "draw"])
            return encode_log([parse_entry(r) for r in game.records[:table.seq]]) + record(bad.raw)
        table = fold(table, parse_entry(raw), defer_proofs=True)
    raise AssertionError("no move in the game")


@pytest.mark.parametrize("how", ["bit flipped", "cut short", "unfinished", "out of turn", "after the end"])
def test_a_tampered_or_unfinished_log_is_refused_with_its_verdict_and_nothing_is_written(
        how: str, games: dict[str, Game], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    game = games["three"]
    log = game.path.read_bytes()
    sizes = [len(r) + 4 for r in game.records]
    header = len(log) - sum(sizes)
    middle = header + sum(sizes[:40]) + sizes[40] // 2  # inside entry 40
    verdict: tuple[str, ...]  # what the verdict may start with
    if how == "bit flipped":
        bad, verdict = _flipped(log, middle), ("VIOLATION: ", "DAMAGED: ")
    elif how == "cut short":
        bad, verdict = log[:middle], ("DAMAGED: the file ends in the middle of entry 40",)
    elif how == "unfinished":
        bad, verdict = log[:middle - sizes[40] // 2], ("INCOMPLETE: the log ends after entry 39",)
    elif how == "out of turn":
        bad, verdict = _out_of_turn(game), ("VIOLATION: seat ",)
    else:  # a move signed by seat 1 once the game is over
        last = parse_entry(game.records[-1])
        extra = make_entry(game.keys[0], last.game_id, last.seq + 1, last.hash, 0, "move", [0, "draw"])
        bad = log + record(extra.raw)
        verdict = (f"VIOLATION: seat 1: entry {last.seq + 1}: the game is over",)
    path = tmp_path / "bad.p2p10"
    path.write_bytes(bad)
    report = audit_records(read_records(bad).items, read_records(bad).torn)
    assert report.verdict().startswith(verdict), report.verdict()
    target = tmp_path / "out.json"
    status, out, err = _run(["export", "--json", "--jobs", "1", "-o", str(target), str(path)], capsys)
    assert status == 1 and not out and not target.exists()
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err == f"p2p10: {path}: not exported: {' '.join(report.verdict().split())}\n"
    if how == "bit flipped":  # an existing output stays as it was
        target.write_text("kept")
        assert _run(["export", "--json", "--jobs", "1", "-o", str(target), str(path)], capsys)[0] == 1
        assert target.read_text() == "kept"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.p2p10", "out.json"]


@pytest.mark.parametrize("content,message", [
    (None, "{path}: no such file"),
    (b"", "{path} is empty (0 bytes), not a game log"),
    (b"{\"not\": \"a log\"}\n", "{path}: this is not a p2p10 game log (it does not start with P2P10LOG)"),
])
def test_a_file_that_is_not_a_log_is_exit_2_as_for_the_audit(
        content: bytes | None, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.p2p10"
    if content is not None:
        path.write_bytes(content)
    target = tmp_path / "out.json"
    status, out, err = _run(["export", "--json", "--jobs", "1", "-o", str(target), str(path)], capsys)
    assert (status, out) == (2, "") and not target.exists()
    assert err == f"p2p10: {message.format(path=path)}\n"
    assert _run(["audit", "--jobs", "1", str(path)], capsys)[::2] == (2, err)  # as the audit says it


def test_an_output_that_cannot_be_written_or_is_the_log_itself_is_exit_2(
        games: dict[str, Game], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = games["three"]
    missing = tmp_path / "no" / "such" / "dir.json"
    status, out, err = _run(["export", "--json", "--jobs", "1", "-o", str(missing), str(game.path)], capsys)
    assert (status, out) == (2, "") and err.startswith(f"p2p10: {missing}: cannot write the export: ")
    before = game.path.read_bytes()
    status, out, err = _run(["export", "--json", "--jobs", "1", "-o", str(game.path), str(game.path)], capsys)
    assert (status, out) == (2, "") and "would overwrite the game log" in err
    assert game.path.read_bytes() == before
    assert _run(["export", "--json", "--indent", "-1", str(game.path)], capsys)[0] == 2


def test_the_export_module_needs_no_schema_library() -> None:
    """The program writes the format without jsonschema (a test dependency only)."""
    code = ("import sys; sys.modules['jsonschema'] = None; import p2p10.export, cli.export_cmd; "
            "print('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                          timeout=60)
    assert done.stdout == "ok\n", done.stderr
