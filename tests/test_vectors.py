"""The committed golden vectors match the implementation, and verify on their own terms."""

from __future__ import annotations

import json
from typing import Any

import pytest

from p2p10.crypto.group import Point, Scalar, base_mul, card_of_point
from p2p10.crypto.proofs import verify_equal_logs, verify_knowledge
from p2p10.crypto.shuffle import seed_matches
from protocol.vectors.make_vectors import VECTORS_PATH, build_vectors, render


@pytest.fixture(scope="module")
def committed() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(VECTORS_PATH.read_text(encoding="utf-8"))
    return data


def test_regenerating_the_vectors_reproduces_the_committed_file() -> None:
    assert render(build_vectors()) == VECTORS_PATH.read_text(encoding="utf-8")


def test_card_points_in_the_file_look_up_to_their_cards(committed: dict[str, Any]) -> None:
    points = committed["card_points"]["points"]
    assert len(points) == 108
    assert [card_of_point(Point.from_bytes(bytes.fromhex(p))) for p in points] == list(range(108))


def test_the_vector_proofs_verify_and_keys_match_secrets(committed: dict[str, Any]) -> None:
    s, d = committed["schnorr"], committed["dleq"]
    assert base_mul(Scalar.from_bytes(bytes.fromhex(s["secret"]))).to_bytes().hex() == s["public"]
    assert verify_knowledge(
        bytes.fromhex(s["public"]), bytes.fromhex(s["proof"]), bytes.fromhex(s["context"])
    )
    assert verify_equal_logs(
        bytes.fromhex(d["public"]),
        bytes.fromhex(d["base"]),
        bytes.fromhex(d["token"]),
        bytes.fromhex(d["proof"]),
        bytes.fromhex(d["context"]),
    )


def test_the_vector_shuffle_is_a_permutation_with_an_opening_commitment(committed: dict[str, Any]) -> None:
    sh = committed["shuffle"]
    assert sorted(sh["permutation"]) == list(range(108))
    assert seed_matches(
        bytes.fromhex(sh["commitment"]), bytes.fromhex(sh["seed"]), bytes.fromhex(sh["context"])
    )
    assert len({Scalar.from_bytes(bytes.fromhex(r)) for r in sh["rerandomisers"]}) == 108
