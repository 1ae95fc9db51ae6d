"""Saved games: ``p2p10 simulate --crypto --save``, ``p2p10 audit`` and ``p2p10 replay``.

The central promise: a saved game audits clean, and any single byte changed anywhere in it
makes the audit fail with a reason (checked exhaustively, byte by byte, on a short game).
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from p2p10.audit import audit_bytes, audit_records
from p2p10.log import LOG_MAGIC, NotALog, file_header, parse_entry, read_records, record
from p2p10.table import TableState


def p2p10(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", *args], capture_output=True, text=True,
                          timeout=300)


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 3-player, 2-hand game played by the command itself."""
    folder = tmp_path_factory.mktemp("games")
    result = p2p10("simulate", "--players", "3", "--games", "1", "--crypto", "--save", str(folder),
                   "--seed", "7", "-o", "hands=2", "--policies", "greedy,random")
    assert result.returncode == 0, result.stderr
    assert "saved" in result.stdout
    path = folder / "game-0001.p2p10"
    assert path.exists()
    secrets = sorted(p.name for p in folder.glob("*.p2p10-secrets"))
    assert secrets == [f"game-0001.seat{s}.p2p10-secrets" for s in (1, 2, 3)]
    return path


def test_a_saved_game_audits_clean(saved: Path) -> None:
    result = p2p10("audit", str(saved))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "CLEAN" in result.stdout and "Winner:" in result.stdout
    report = json.loads(p2p10("audit", str(saved), "--json").stdout)
    assert report["clean"] and report["complete"] and report["violation"] is None
    assert len(report["players"]) == 3 and len(report["hands"]) == 2
    assert report["totals"] == [sum(h["points"][s] for h in report["hands"]) for s in range(3)]
    assert report["winner"] == 1 + min(range(3), key=lambda s: report["totals"][s])


def test_the_audit_on_several_processes_says_the_same(saved: Path) -> None:
    alone, pooled = p2p10("audit", str(saved), "--jobs", "1"), p2p10("audit", str(saved), "--jobs", "3")
    assert alone.returncode == pooled.returncode == 0 and alone.stdout == pooled.stdout, pooled.stderr
    refused = p2p10("audit", str(saved), "--jobs", "0")
    assert refused.returncode == 2 and "--jobs must be at least 1" in refused.stderr


def test_every_single_byte_changed_fails_the_audit(saved: Path) -> None:
    """Exhaustive: every byte of every entry, and every length prefix, flipped in turn. The
    audit resumes from the (cached) state before the damaged entry, which is exactly what a
    full audit computes, so this covers the whole file quickly."""
    data = saved.read_bytes()
    records = read_records(data).items
    states: list[TableState | None] = [None]
    for raw in records:
        entry = parse_entry(raw)
        prev = states[-1]
        states.append(TableState.from_header(entry) if prev is None else prev.apply(entry))
    starts = []
    pos = len(file_header())
    for raw in records:
        starts.append(pos)
        pos += 4 + len(raw)
    assert pos == len(data)
    rng = random.Random(3)
    for index, start in enumerate(starts):
        raw = records[index]
        # A changed length prefix changes how the rest of the file splits into entries.
        for offset in range(start, start + 4):
            damaged = bytearray(data[start:])
            damaged[offset - start] ^= 1 << rng.randrange(8)
            tail = read_records(file_header() + bytes(damaged))
            report = audit_records(tail.items, tail.torn, states[index], index)
            assert not report.clean, f"length byte {offset} (entry {index}) changed and the audit passed"
            failure = report.violation or report.damage
            assert failure is not None and failure.reason
        # A changed byte inside an entry must be refused at that very entry.
        for offset in range(len(raw)):
            damaged = bytearray(raw)
            damaged[offset] ^= 1 << rng.randrange(8)
            report = audit_records([bytes(damaged)], 0, states[index], index)
            failure = report.violation or report.damage
            assert failure is not None, f"byte {offset} of entry {index} changed and it passed"
            assert failure.seq == index and failure.reason
    # The file header: not a game log any more (exit 2 from the command).
    for offset in range(len(file_header())):
        damaged = bytearray(data)
        damaged[offset] ^= 0x01
        with pytest.raises(NotALog, match=r"not a p2p10|format version"):
            audit_bytes(bytes(damaged))


def test_damaged_files_fail_with_a_reason_and_no_traceback(saved: Path, tmp_path: Path) -> None:
    data = saved.read_bytes()
    rng = random.Random(5)
    for trial in range(6):
        damaged = bytearray(data)
        damaged[rng.randrange(len(LOG_MAGIC) + 1, len(data))] ^= 0x20
        path = tmp_path / f"bad{trial}.p2p10"
        path.write_bytes(bytes(damaged))
        result = p2p10("audit", str(path))
        assert result.returncode == 1, result.stdout + result.stderr
        assert "VIOLATION" in result.stdout or "DAMAGED" in result.stdout
        assert "Traceback" not in result.stderr
        as_json = json.loads(p2p10("audit", str(path), "--json").stdout)
        failure = as_json["violation"] or as_json["damaged"]
        assert failure["reason"] and failure["entry"] is not None
    short = tmp_path / "short.p2p10"
    short.write_bytes(data[: len(data) // 2])
    result = p2p10("audit", str(short))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "cut short" in result.stdout or "INCOMPLETE" in result.stdout


def test_a_log_cut_at_an_entry_boundary_is_incomplete_and_says_who_is_due(saved: Path) -> None:
    records = read_records(saved.read_bytes()).items
    cut = file_header() + b"".join(record(r) for r in records[:40])
    report = audit_bytes(cut)
    assert not report.clean and report.violation is None and not report.complete
    assert report.waiting_for is not None
    assert "INCOMPLETE" in report.verdict() and "was to write" in report.verdict()


def test_reordered_replayed_and_dropped_entries_in_a_file_are_caught(saved: Path) -> None:
    records = list(read_records(saved.read_bytes()).items)
    swapped = records[:10] + [records[11], records[10]] + records[12:]
    replayed = records[:20] + [records[5]] + records[20:]
    dropped = records[:30] + records[31:]
    for variant in (swapped, replayed, dropped):
        report = audit_records(variant)
        assert report.violation is not None and not report.clean
        assert "replayed, dropped or reordered" in report.violation.reason


def test_not_a_log_exits_2_with_a_clear_message(tmp_path: Path) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("hello\n")
    for target in (str(junk), str(tmp_path / "missing.p2p10"), str(tmp_path)):
        result = p2p10("audit", target)
        assert result.returncode == 2
        assert result.stderr.startswith("p2p10: ") and "Traceback" not in result.stderr


def test_replay_as_a_seat_shows_its_cards_and_a_spectator_sees_only_public_ones(saved: Path) -> None:
    spectator = p2p10("replay", str(saved))
    assert spectator.returncode == 0
    text = spectator.stdout
    assert "== Hand 1 ==" in text and "== Hand 2 ==" in text and "Game over" in text
    assert "'s cards: " not in text and "drew a card from the draw pile" in text
    assert not re.search(r"drew [RBGYWS]\d* from the draw pile", text)
    assert "Every key and seed revealed" in text
    seat2 = p2p10("replay", str(saved), "--as", "2", "--hand", "2").stdout
    assert "== Hand 1 ==" not in seat2 and "== Hand 2 ==" in seat2
    assert "random 2's cards: " in seat2  # (seats are named by their names, even the viewer's)
    # Seat 2 sees its own draws, never another seat's.
    drew = [line.strip() for line in seat2.splitlines() if "from the draw pile" in line]
    assert any(re.match(r"random 2 drew [RBGYWS]\d* from", line) for line in drew)
    assert all(line.startswith("random 2 ") or " drew a card " in line for line in drew)
    bad = p2p10("replay", str(saved), "--as", "9")
    assert bad.returncode == 2 or "no seat 9" in bad.stdout


def test_simulate_json_without_crypto_and_usage_errors() -> None:
    result = p2p10("simulate", "--players", "3", "--games", "2", "--seed", "1", "--json", "--verbose",
                   "--policies", "greedy,random")
    summary = json.loads(result.stdout)
    assert summary["games"] == 2 and summary["players"] == 3 and len(summary["results"]) == 2
    stats = summary["policies"]
    assert stats["greedy"]["seats"] == 4 and stats["random"]["seats"] == 2
    assert stats["greedy"]["wins"] + stats["random"]["wins"] == 2
    for row in stats.values():
        low, high = row["ci95"]
        assert 0 <= low <= row["win_rate"] <= high <= 1
    # Seats rotate from game to game.
    assert summary["results"][0]["seats"] != summary["results"][1]["seats"]
    assert p2p10("simulate", "--players", "7").returncode == 2
    refused = p2p10("simulate", "--save", "x")
    assert refused.returncode == 2 and "--save needs --crypto" in refused.stderr
    assert "unknown policy" in p2p10("simulate", "--policies", "wizard").stderr
