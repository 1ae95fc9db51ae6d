"""The audit's verdict words: a file whose bytes are not whole entries is DAMAGED (nobody's
signed word, so no seat is blamed), an empty file is said to be empty, and an entry number is
said once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.main import main
from p2p10.audit import FAILED, audit_bytes, audit_records
from p2p10.log import encode_log, file_header, read_records, record
from tests.test_total_fold import to_move


@pytest.fixture(scope="module")
def short_log() -> bytes:
    """A real, unfinished game's log: up to the first move drawn."""
    peers, _network, _mover = to_move(704)
    return encode_log(peers[0].log)


def audit_command(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, dict[str, object]]:
    """The exit status, the last line of ``p2p10 audit FILE`` and the object of ``--json``."""
    capsys.readouterr()
    status = main(["audit", "--jobs", "1", str(path)])
    last = capsys.readouterr().out.splitlines()[-1]
    assert main(["audit", "--jobs", "1", "--json", str(path)]) == status
    return status, last, json.loads(capsys.readouterr().out)


def test_a_file_cut_short_is_damaged_and_says_its_entry_once(
        short_log: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    whole = len(read_records(short_log).items)
    report = audit_bytes(short_log[:-7])
    assert report.violation is None and report.damage is not None and report.damage.seq == whole - 1
    assert not report.clean and report.exit_status == FAILED
    path = tmp_path / "cut.p2p10"
    path.write_bytes(short_log[:-7])
    status, last, as_json = audit_command(path, capsys)
    assert status == FAILED
    assert last.startswith(f"DAMAGED: the file ends in the middle of entry {whole - 1}"), last
    assert last.count(str(whole - 1)) == 1, last
    assert "VIOLATION" not in last
    assert as_json["violation"] is None and as_json["verdict"] == last
    assert as_json["damaged"] == {"entry": whole - 1, "reason": report.damage.reason}


def test_a_record_that_is_no_entry_is_damaged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "junk.p2p10"
    path.write_bytes(file_header() + record(b"\xc1junk"))
    status, last, as_json = audit_command(path, capsys)
    assert status == FAILED and last.startswith("DAMAGED: entry 0 is not a well-formed entry"), last
    assert last.count("entry 0") == 1, last
    assert as_json["violation"] is None and as_json["damaged"]["entry"] == 0  # type: ignore[index]


def test_an_entry_out_of_place_says_its_number_once(short_log: bytes) -> None:
    records = read_records(short_log).items
    report = audit_records([*records[:3], *records[4:]])
    assert report.violation is not None and report.violation.seat is None
    verdict = report.verdict()
    assert verdict == ("VIOLATION: entry 3: the file has entry 4 in this place "
                       "(a replayed, dropped or reordered entry)"), verdict


def test_a_log_with_no_entry_is_incomplete_not_a_violation(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "header.p2p10"
    path.write_bytes(file_header())
    status, last, as_json = audit_command(path, capsys)
    assert status == FAILED
    assert last.startswith("INCOMPLETE: the log is empty"), last
    assert as_json["violation"] is None and as_json["damaged"] is None


@pytest.mark.parametrize("command", [["audit"], ["audit", "--json"], ["replay", "--text"]])
def test_an_empty_file_is_said_to_be_empty(command: list[str], tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "empty.p2p10"
    path.write_bytes(b"")
    capsys.readouterr()
    assert main([*command, str(path)]) == 2
    out = capsys.readouterr()
    assert not out.out
    assert out.err == f"p2p10: {path} is empty (0 bytes), not a game log\n"
