"""A peer killed at any moment and started again from its own files plays on with nothing lost;
files that are damaged or do not belong together are refused with a reason, never a traceback."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import msgpack
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from cli.main import main
from p2p10.audit import audit_records
from p2p10.crypto.group import Scalar
from p2p10.errors import ProtocolError, SavedFileError
from p2p10.game_fields import MAX_PLAYERS
from p2p10.log import LOG_MAGIC, SECRETS_MAGIC, file_header, pack_secret, public_bytes, record
from p2p10.peer import Peer
from p2p10.peer_parts import HandSecrets
from p2p10.rules import RuleSet
from p2p10.simulate import greedy_player
from protocol.lan import SeatInfo, save_roster
from protocol.memory import Faults, MemoryNetwork, make_peers, open_table, seeded_bytes
from protocol.storage import LogWriter, SeatFiles, SecretsWriter, read_log, read_secrets, resume_peer

SHORT = RuleSet.parse(["hands=1"])


class Disk:
    """One seat's two files, written as its peer goes."""

    def __init__(self, folder: Path, seat: int) -> None:
        self.log_path = folder / f"seat{seat + 1}.p2p10"
        self.secrets_path = folder / f"seat{seat + 1}.p2p10-secrets"
        self.log: LogWriter | None = None
        self.secrets: SecretsWriter | None = None

    def attach(self, peer: Peer, first_time: bool) -> None:
        self.log = LogWriter(self.log_path)
        self.secrets = SecretsWriter(self.secrets_path)
        if first_time:
            self.secrets.add_identity(peer.seat, peer.identity.private_bytes_raw())
        log, secrets = self.log, self.secrets
        peer.hooks.listen(entry=log.add, secret=secrets.add_hand)

    def close(self) -> None:
        assert self.log is not None and self.secrets is not None
        self.log.close()
        self.secrets.close()


def play_with_crashes(folder: Path, seed: int, crash_rate: float,
                      faults: Faults | None = None) -> tuple[list[Peer], int]:
    players = 3
    peers = make_peers([greedy_player] * players, seed)
    disks = [Disk(folder, seat) for seat in range(players)]
    for peer, disk in zip(peers, disks, strict=True):
        disk.attach(peer, first_time=True)
    network = MemoryNetwork(peers, faults or Faults(), random.Random(seed))
    open_table(peers, ["Ann", "Bob", "Cyd"], SHORT, seed)
    rng = random.Random(seed * 7 + 1)
    crashes = 0
    while not all(p.finished for p in network.peers):
        assert network.now < 3_000, "the table stalled"
        assert not any(p.stopped for p in network.peers), [p.faults for p in network.peers]
        network.step()
        if rng.random() < crash_rate:
            seat = rng.randrange(players)
            disks[seat].close()
            crashes += 1
            restarted = resume_peer(disks[seat].log_path, disks[seat].secrets_path, player=greedy_player,
                                    rng_bytes=seeded_bytes(seed, f"seat{seat}/restart{crashes}"),
                                    rng=random.Random(crashes))
            disks[seat].attach(restarted, first_time=False)
            network.replace(seat, restarted)
    for disk in disks:
        disk.close()
    return network.peers, crashes


@pytest.mark.parametrize("seed", range(6))
def test_peers_killed_at_random_moments_finish_with_identical_logs(tmp_path: Path, seed: int) -> None:
    peers, crashes = play_with_crashes(tmp_path, seed, crash_rate=0.01)
    assert crashes >= 3
    logs = [read_log(tmp_path / f"seat{s + 1}.p2p10") for s in range(3)]
    assert logs[0] == logs[1] == logs[2]
    assert [e.raw for e in peers[0].log] == logs[0]
    assert audit_records(logs[0]).clean
    assert all(not p.faults for p in peers)


def test_restarts_on_a_faulty_network(tmp_path: Path) -> None:
    faults = Faults(drop=0.1, duplicate=0.1, reorder=0.2, max_delay=0.5)
    _, crashes = play_with_crashes(tmp_path, 42, crash_rate=0.02, faults=faults)
    assert crashes >= 5
    logs = [read_log(tmp_path / f"seat{s + 1}.p2p10") for s in range(3)]
    assert logs[0] == logs[1] == logs[2] and audit_records(logs[0]).clean


def test_a_torn_last_record_is_trimmed_and_the_peer_resumes(tmp_path: Path) -> None:
    play_with_crashes(tmp_path, 3, crash_rate=0.0)
    path = tmp_path / "seat2.p2p10"
    whole = read_log(path)
    with open(path, "ab") as file:  # a crash in the middle of writing the next entry
        file.write((500).to_bytes(4, "big") + b"\x93partial")
    assert read_log(path) == whole
    resumed = resume_peer(path, tmp_path / "seat2.p2p10-secrets")
    assert resumed.finished and [e.raw for e in resumed.log] == whole
    writer = LogWriter(path)
    writer.close()
    assert path.read_bytes().endswith(whole[-1])  # the torn bytes are gone


def test_a_damaged_saved_log_is_refused_with_a_reason(tmp_path: Path) -> None:
    play_with_crashes(tmp_path, 4, crash_rate=0.0)
    path = tmp_path / "seat1.p2p10"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x10
    path.write_bytes(bytes(data))
    with pytest.raises(ProtocolError, match="saved log does not check"):
        resume_peer(path, tmp_path / "seat1.p2p10-secrets")
    other = tmp_path / "other"
    other.mkdir()
    play_with_crashes(other, 5, crash_rate=0.0)
    with pytest.raises(ProtocolError, match="does not seat this key"):
        resume_peer(other / "seat2.p2p10", tmp_path / "seat2.p2p10-secrets")


# ------------------------------------------------------------------ damaged or foreign files

IDENTITY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
HAND = HandSecrets(0, Scalar.from_int(5), bytes(32))


def secrets_bytes(*items: list[object]) -> bytes:
    return file_header(SECRETS_MAGIC) + b"".join(record(pack_secret(list(i))) for i in items)


def identity_record(seat: object = 1, key: object = None) -> list[object]:
    return ["identity", seat, IDENTITY.private_bytes_raw() if key is None else key]


def hand_record(hand: object = 0, secret: object = None, seed: object = None) -> list[object]:
    return ["hand", hand, HAND.secret.to_bytes() if secret is None else secret,
            HAND.seed if seed is None else seed]


WHOLE = secrets_bytes(identity_record(), hand_record())
DAMAGED_SECRETS = {
    "31-byte identity key": (secrets_bytes(identity_record(key=bytes(31))),
                             "record 1: the identity key is 32 bytes, this one is 31 bytes"),
    "identity key not bytes": (secrets_bytes(identity_record(key="key")), "this one is not bytes"),
    "seat not an integer": (secrets_bytes(identity_record(seat="two")),
                            f"record 1: the seat is not a number from 0 to {MAX_PLAYERS - 1}"),
    "seat a float": (secrets_bytes(identity_record(seat=1.0)), "the seat is not a number"),
    "seat a boolean": (secrets_bytes(identity_record(seat=True)), "the seat is not a number"),
    "seat out of range": (secrets_bytes(identity_record(seat=MAX_PLAYERS)), "the seat is not a number"),
    "identity record too short": (secrets_bytes(["identity", 1]), "an identity record is"),
    "cut short": (WHOLE[:len(file_header(SECRETS_MAGIC)) + 20], "no identity key"),
    "header only": (file_header(SECRETS_MAGIC), "no identity key"),
    "wrong magic": (LOG_MAGIC + WHOLE[len(SECRETS_MAGIC):], "not a p2p10 secrets file"),
    "empty": (b"", "the file is empty"),
    "wrong version": (SECRETS_MAGIC + b"\x09" + WHOLE[len(SECRETS_MAGIC) + 1:], "format version"),
    "not msgpack": (file_header(SECRETS_MAGIC) + record(b"\xc1"), "record 1: not msgpack"),
    "not a list": (file_header(SECRETS_MAGIC) + record(pack_secret(5)),  # type: ignore[arg-type]
                   "record 1: neither an identity record nor a hand record"),
    "unknown kind": (secrets_bytes(identity_record(), ["key", 0, b""]),
                     "record 2: neither an identity record nor a hand record"),
    "hand secret of 31 bytes": (secrets_bytes(identity_record(), hand_record(secret=bytes(31))),
                                "record 2: the secret of hand 1 is not a 32-byte scalar"),
    "hand secret not reduced": (secrets_bytes(identity_record(), hand_record(secret=b"\xff" * 32)),
                                "the secret of hand 1 is not a 32-byte scalar"),
    "hand secret not bytes": (secrets_bytes(identity_record(), hand_record(secret=7)),
                              "the secret of hand 1 is not"),
    "seed of 31 bytes": (secrets_bytes(identity_record(), hand_record(seed=bytes(31))),
                         "the shuffle seed of hand 1 is not 32 bytes"),
    "hand number negative": (secrets_bytes(identity_record(), hand_record(hand=-1)),
                             "the hand is not a number"),
    "hand number text": (secrets_bytes(identity_record(), hand_record(hand="1")), "the hand is not a number"),
    "hand record too long": (secrets_bytes(identity_record(), [*hand_record(), 1]), "a hand record is"),
    "two identity keys": (secrets_bytes(identity_record(), identity_record(key=bytes(32))),
                          "record 2: a second, different identity key"),
}


@pytest.mark.parametrize("case", DAMAGED_SECRETS)
def test_a_damaged_secrets_file_is_refused_naming_the_record(tmp_path: Path, case: str) -> None:
    data, reason = DAMAGED_SECRETS[case]
    path = tmp_path / "seat2.p2p10-secrets"
    path.write_bytes(data)
    with pytest.raises(SavedFileError) as refused:
        read_secrets(path)
    assert str(refused.value).startswith(f"{path}: ") and reason in str(refused.value)


def test_a_whole_secrets_file_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "seat2.p2p10-secrets"
    path.write_bytes(WHOLE + record(b"\x00\x01"[:1])[:3])  # and a torn last record, left out
    seat, identity, hands = read_secrets(path)
    assert seat == 1 and identity.private_bytes_raw() == IDENTITY.private_bytes_raw()
    assert hands == [HAND]
    path.write_bytes(secrets_bytes(identity_record(), identity_record(), hand_record()))
    assert read_secrets(path)[0] == 1  # the same identity twice is no contradiction


def resume_command(log: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """``p2p10 resume LOG`` (as the console script runs it): it must exit 2 with one line."""
    assert main(["resume", str(log), "--autoplay", "greedy"]) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("p2p10: "), captured.err
    return lines[0]


def save_a_roster(log: Path, seats: int = 3, table_id: bytes = bytes(16),
                  keys: list[bytes] | None = None) -> None:
    keys = keys or [public_bytes(IDENTITY if s == 1 else Ed25519PrivateKey.generate()) for s in range(seats)]
    roster = [SeatInfo(f"P{s}", key, "127.0.0.1", 9 + s) for s, key in enumerate(keys)]
    save_roster(SeatFiles(log).roster, table_id, SHORT, roster, ("127.0.0.1", 10))


@pytest.mark.parametrize("case", ["31-byte identity key", "seat not an integer", "cut short",
                                  "wrong magic", "empty", "not msgpack", "hand secret of 31 bytes"])
def test_resume_refuses_a_damaged_secrets_file_with_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str) -> None:
    """The command exits 2 with one line naming the file and what is wrong: no traceback."""
    log = tmp_path / "20261129-205400-00000000-seat2.p2p10"
    save_a_roster(log)
    data, reason = DAMAGED_SECRETS[case]
    SeatFiles(log).secrets.write_bytes(data)
    line = resume_command(log, capsys)
    assert str(SeatFiles(log).secrets) in line and reason in line, line


def test_resume_refuses_unreadable_files_with_one_line(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "20261129-205400-00000000-seat2.p2p10"
    save_a_roster(log)
    SeatFiles(log).secrets.mkdir()
    assert "cannot read" in resume_command(log, capsys)
    SeatFiles(log).secrets.rmdir()
    SeatFiles(log).secrets.write_bytes(WHOLE)
    log.write_bytes(b"not a log at all")
    assert "not a p2p10 game log" in resume_command(log, capsys)
    SeatFiles(log).roster.write_bytes(b"\x93")
    assert "roster" in resume_command(log, capsys)


def test_a_resumed_host_refuses_damaged_spectator_settings_with_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A host's ``.p2p10-watch`` holds a private table's code: a damaged one is refused before
    anything is served, never taken for an open table."""
    log = tmp_path / "20261129-205400-00000000-seat1.p2p10"
    others = [public_bytes(Ed25519PrivateKey.generate()) for _ in range(2)]
    save_a_roster(log, keys=[public_bytes(IDENTITY), *others])
    SeatFiles(log).secrets.write_bytes(secrets_bytes(identity_record(seat=0)))
    SeatFiles(log).gallery.write_bytes(b"\x93\xaep2p10/watch/v1\x08")  # cut short: no code
    line = resume_command(log, capsys)
    assert line == f"p2p10: {SeatFiles(log).gallery}: spectator settings are [label, cap, code]"


def finished_game(folder: Path) -> list[bytes]:
    play_with_crashes(folder, 4, crash_rate=0.0)
    return read_log(folder / "seat2.p2p10")


def rewrite_secrets(path: Path, change: Callable[[list[HandSecrets]], list[HandSecrets]]) -> None:
    seat, identity, hands = read_secrets(path)
    path.unlink()
    writer = SecretsWriter(path)
    writer.add_identity(seat, identity.private_bytes_raw())
    for item in change(hands):
        writer.add_hand(item)
    writer.close()


def test_a_hand_secret_that_is_not_behind_its_published_key_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Today's bug: the peer took it and died later on an AssertionError (its own entry
    refused). Now restoring refuses it, naming the hand and the key entry, and so does the
    command, in one line."""
    finished_game(tmp_path)
    secrets = tmp_path / "seat2.p2p10-secrets"
    rewrite_secrets(secrets, lambda hands: [HandSecrets(h.hand, Scalar.from_int(7), h.seed) for h in hands])
    with pytest.raises(SavedFileError, match=r"the saved secret of hand 1 is not the one behind "
                                             r"the key this seat published at entry \d+"):
        resume_peer(tmp_path / "seat2.p2p10", secrets)
    peer = resume_peer(tmp_path / "seat1.p2p10", tmp_path / "seat1.p2p10-secrets")
    assert peer.table is not None
    save_a_roster(tmp_path / "seat2.p2p10", table_id=peer.table.game_id, keys=list(peer.table.keys))
    assert "is not the one behind the key" in resume_command(tmp_path / "seat2.p2p10", capsys)


def test_a_shuffle_seed_that_does_not_open_its_commitment_is_refused(tmp_path: Path) -> None:
    """A wrong seed would have this seat sign a shuffle that convicts it at the hand's end."""
    finished_game(tmp_path)
    secrets = tmp_path / "seat1.p2p10-secrets"
    rewrite_secrets(secrets, lambda hands: [HandSecrets(h.hand, h.secret, bytes(32)) for h in hands])
    with pytest.raises(SavedFileError, match="the saved shuffle seed of hand 1 does not open the "
                                             r"commitment beside the key this seat published at entry \d+"):
        resume_peer(tmp_path / "seat1.p2p10", secrets)


def test_a_missing_or_doubled_hand_secret_is_refused(tmp_path: Path) -> None:
    finished_game(tmp_path)
    secrets = tmp_path / "seat3.p2p10-secrets"
    original = read_secrets(secrets)[2]
    rewrite_secrets(secrets, lambda hands: [])
    with pytest.raises(SavedFileError, match="has no secret for hand 1, whose key this seat published"):
        resume_peer(tmp_path / "seat3.p2p10", secrets)
    rewrite_secrets(secrets, lambda hands: [*original, HandSecrets(0, Scalar.from_int(3), bytes(32))])
    with pytest.raises(SavedFileError, match="two different secrets for hand 1"):
        resume_peer(tmp_path / "seat3.p2p10", secrets)
    rewrite_secrets(secrets, lambda hands: [*original, *original])  # the same twice: harmless
    assert resume_peer(tmp_path / "seat3.p2p10", secrets).finished


def test_a_hand_secret_is_checked_mid_game(tmp_path: Path) -> None:
    """A peer stopped while a hand is under way: its saved secrets are checked against the keys
    of that hand too (the one it would go on to use for its tokens and reveal)."""
    peers = make_peers([greedy_player] * 3, 8)
    disks = [Disk(tmp_path, seat) for seat in range(3)]
    for peer, disk in zip(peers, disks, strict=True):
        disk.attach(peer, first_time=True)
    network = MemoryNetwork(peers, Faults(), random.Random(8))
    open_table(peers, ["Ann", "Bob", "Cyd"], SHORT, 8)
    while not (peers[1].table is not None and peers[1].table.hand is not None
               and len(peers[1].table.hand.publics) == 3):
        network.step()
    for disk in disks:
        disk.close()
    assert not peers[1].finished
    secrets = tmp_path / "seat2.p2p10-secrets"
    assert resume_peer(tmp_path / "seat2.p2p10", secrets).secrets == peers[1].secrets
    rewrite_secrets(secrets, lambda hands: [HandSecrets(h.hand, Scalar.from_int(9), h.seed) for h in hands])
    with pytest.raises(SavedFileError, match="the saved secret of hand 1"):
        resume_peer(tmp_path / "seat2.p2p10", secrets)


def test_resume_refuses_a_roster_that_seats_other_players_than_the_log(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    finished_game(tmp_path)
    peer = resume_peer(tmp_path / "seat2.p2p10", tmp_path / "seat2.p2p10-secrets")
    assert peer.table is not None
    keys = list(peer.table.keys)
    keys[2] = public_bytes(Ed25519PrivateKey.generate())
    save_a_roster(tmp_path / "seat2.p2p10", table_id=peer.table.game_id, keys=keys)
    assert "the saved roster and the saved log seat different players" in resume_command(
        tmp_path / "seat2.p2p10", capsys)


SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**64 - 1), st.floats(),
                    st.text(max_size=8), st.binary(max_size=40))
ITEMS = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=5), max_leaves=12)
RECORDS = st.one_of(
    st.tuples(st.sampled_from(["identity", "hand"]), st.lists(ITEMS, max_size=4)).map(
        lambda kind_rest: [kind_rest[0], *kind_rest[1]]),
    st.tuples(st.just("identity"), st.integers(-2, 8), st.binary(min_size=30, max_size=34)).map(list),
    st.tuples(st.just("hand"), st.integers(-2, 3), st.binary(min_size=31, max_size=33),
              st.binary(min_size=31, max_size=33)).map(list),
    ITEMS)


@settings(max_examples=300, deadline=None)
@given(records=st.lists(RECORDS, max_size=4), junk=st.binary(max_size=12), cut=st.integers(0, 400))
def test_any_secrets_file_reads_or_is_refused_with_a_reason(tmp_path_factory: pytest.TempPathFactory,
                                                             records: list[object], junk: bytes,
                                                             cut: int) -> None:
    """Whatever the records hold, and wherever the file is cut: it reads, or SavedFileError."""
    path = tmp_path_factory.mktemp("secrets") / "seat1.p2p10-secrets"
    data = file_header(SECRETS_MAGIC) + b"".join(
        record(bytes(msgpack.packb(r, use_bin_type=True))) for r in records) + record(junk)
    path.write_bytes(data[:len(data) - cut] if cut < len(data) else data)
    try:
        seat, _identity, hands = read_secrets(path)
    except SavedFileError as err:
        assert str(err).startswith(f"{path}: ") and "\n" not in str(err)
    else:
        assert 0 <= seat < MAX_PLAYERS and all(h.hand >= 0 and len(h.seed) == 32 for h in hands)
