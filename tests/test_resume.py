"""A peer killed at any moment and started again from its own files plays on with nothing lost."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from p2p10.audit import audit_records
from p2p10.errors import ProtocolError
from p2p10.peer import HandSecrets, Peer
from p2p10.rules import RuleSet
from p2p10.simulate import greedy_player
from protocol.memory import Faults, MemoryNetwork, make_peers, open_table, seeded_bytes
from protocol.storage import LogWriter, SecretsWriter, read_log, resume_peer

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
        peer.on_entry = log.add

        def keep(item: HandSecrets) -> None:
            secrets.add_hand(item)

        peer.on_secret = keep

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
