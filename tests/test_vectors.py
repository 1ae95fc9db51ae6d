"""The committed golden vectors match the implementation, and verify on their own terms."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from typing import Any

import pytest
import rbcl
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from p2p10.audit import audit_bytes
from p2p10.crypto.elgamal import (
    Ciphertext,
    encrypt_card,
    initial_deck,
    joint_key,
    open_card,
    rerandomise,
    token,
)
from p2p10.crypto.group import (
    GENERATOR,
    GROUP_ORDER,
    IDENTITY,
    Point,
    Scalar,
    base_mul,
    card_of_point,
    card_point,
    mul,
)
from p2p10.crypto.proofs import prove_equal_logs, prove_knowledge, verify_equal_logs, verify_knowledge
from p2p10.crypto.shuffle import (
    apply_shuffle,
    commit_seed,
    derive_rerandomisers,
    seed_matches,
    shuffle_and_prove,
    verify_shuffle,
)
from p2p10.crypto.shuffle_proof import verify_shuffle_proof
from p2p10.hand_crypto import key_context, seed_context, shuffle_context, token_context
from p2p10.log import (
    VERSION,
    BadEntry,
    file_header,
    make_entry,
    parse_entry,
    public_bytes,
    public_key,
    read_records,
    record,
)
from p2p10.signing import Domain, signed_bytes, verify, verify_raw
from p2p10.table import TableState
from protocol.vectors.check_vectors import check_all
from protocol.vectors.make_game_digests import GAME_DIGESTS_PATH, GAMES
from protocol.vectors.make_game_digests import play_one as play_game
from protocol.vectors.make_log_vectors import (
    LOG_VECTORS_PATH,
    SHORT_GAME_PATH,
    build_short_game,
    from_json,
    short_game_outcome,
    to_json,
)
from protocol.vectors.make_log_vectors import build_vectors as build_log_vectors
from protocol.vectors.make_log_vectors import render as render_log
from protocol.vectors.make_signature_vectors import SIGNATURE_VECTORS_PATH
from protocol.vectors.make_signature_vectors import build_vectors as build_signature_vectors
from protocol.vectors.make_signature_vectors import render as render_signatures
from protocol.vectors.make_vectors import VECTORS_PATH, build_vectors, render, replay


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


# ------------------------------------------- contexts and one dealt hand (crypto_v1.json, I12)


def _hex(value: str) -> bytes:
    return bytes.fromhex(value)


def _u64be(value: int) -> bytes:
    return value.to_bytes(8, "big")


def _framed(*parts: bytes) -> bytes:
    # Section 2.2 written out again, so the contexts are checked against the spec's formula and
    # not only against the code that made them.
    return b"".join(len(p).to_bytes(4, "big") + p for p in parts)


def test_the_context_vectors_are_the_spec_formula_and_the_code(committed: dict[str, Any]) -> None:
    c = committed["contexts"]
    g = _hex(c["game_id"])
    key, seed, shuffle, tok = c["key_ctx"], c["seed_ctx"], c["shuffle_ctx"], c["token_ctx"]
    expected = {
        "key_ctx": (_framed(b"p2p10/hand-key", g, _u64be(key["hand"]), _u64be(key["seat"])),
                    key_context(g, key["hand"], key["seat"])),
        "seed_ctx": (_framed(b"p2p10/seed", g, _u64be(seed["hand"]), _u64be(seed["seat"])),
                     seed_context(g, seed["hand"], seed["seat"])),
        "shuffle_ctx": (_framed(b"p2p10/shuffle", g, _u64be(shuffle["hand"]), _u64be(shuffle["round"]),
                                _u64be(shuffle["seat"])),
                        shuffle_context(g, shuffle["hand"], shuffle["round"], shuffle["seat"])),
        "token_ctx": (_framed(b"p2p10/token", g, _u64be(tok["hand"]), _u64be(tok["slot"]),
                              _u64be(tok["seat"])),
                      token_context(g, tok["hand"], tok["slot"], tok["seat"])),
    }
    for name, (by_formula, by_code) in expected.items():
        assert by_formula == by_code == _hex(c[name]["bytes"]), name
    # The worked example printed in PROTOCOL.md section 2.9 is this key_ctx.
    assert key["hand"] == 0 and key["seat"] == 1 and g == bytes(range(16))
    assert len(_hex(key["bytes"])) == 62


def test_the_dealing_vector_hand_keys_and_commitments_are_remade_from_their_inputs(
        committed: dict[str, Any]) -> None:
    d = committed["dealing"]
    g, hand = _hex(d["game_id"]), d["hand"]
    publics = []
    for s, v in enumerate(d["seats"]):
        assert v["seat"] == s
        x = Scalar.from_bytes(_hex(v["secret"]))
        public = base_mul(x)
        assert public.to_bytes().hex() == v["public"]
        assert _hex(v["key_context"]) == key_context(g, hand, s)
        assert _hex(v["seed_context"]) == seed_context(g, hand, s)
        proof = prove_knowledge(x, key_context(g, hand, s), replay(_hex(v["key_nonce_random"])))
        assert proof.to_bytes().hex() == v["key_proof"]
        assert verify_knowledge(public, _hex(v["key_proof"]), key_context(g, hand, s))
        assert commit_seed(_hex(v["seed"]), seed_context(g, hand, s)).hex() == v["commitment"]
        publics.append(public)
    assert joint_key(publics).to_bytes().hex() == d["joint_key"]


def test_each_dealing_shuffle_step_is_remade_byte_for_byte(committed: dict[str, Any]) -> None:
    d = committed["dealing"]
    g, hand = _hex(d["game_id"]), d["hand"]
    joint = Point.from_bytes(_hex(d["joint_key"]))
    joint_secret = sum((Scalar.from_bytes(_hex(v["secret"])) for v in d["seats"]), Scalar.from_int(0))

    def plain(c: Ciphertext) -> Point:
        return c.b if c.a.is_identity() else c.b - token(joint_secret, c.a)

    # The initial deck from the card points of the same file: (identity, M_i).
    points = committed["card_points"]["points"]
    before = initial_deck()
    assert [c.to_bytes().hex() for c in before] == ["00" * 32 + p for p in points]
    for s, step in enumerate(d["shuffle_steps"]):
        assert step["seat"] == s and step["round"] == 0
        context = shuffle_context(g, hand, 0, s)
        assert _hex(step["context"]) == context
        seed = _hex(d["seats"][s]["seed"])
        after = tuple(Ciphertext.from_bytes(_hex(c)) for c in step["after"])
        assert [c.to_bytes().hex() for c in apply_shuffle(before, seed, joint, context)] == step["after"]
        assert verify_shuffle(before, after, seed, joint, context)
        # after[i] is before[permutation[i]] re-randomised: the same card point once decrypted
        # with the joint secret (the sum of both hand secrets).
        for i in (0, 20, 107):
            assert plain(after[i]) == plain(before[step["permutation"][i]])
        before = after


def test_the_single_ciphertext_vector_is_its_encoding(committed: dict[str, Any]) -> None:
    d = committed["dealing"]
    c = d["ciphertext"]
    joint = Point.from_bytes(_hex(d["joint_key"]))
    r = Scalar.from_bytes(_hex(c["r"]))
    cipher = rerandomise(encrypt_card(c["card"]), r, joint)
    assert cipher.a.to_bytes().hex() == c["a"] == base_mul(r).to_bytes().hex()
    assert cipher.b.to_bytes().hex() == c["b"]
    assert cipher.to_bytes().hex() == c["bytes"] == c["a"] + c["b"]
    assert Ciphertext.from_bytes(_hex(c["bytes"])) == cipher
    assert cipher.b - token(r, joint) == card_point(c["card"])


def test_the_opening_vector_opens_the_first_discard_with_both_tokens(committed: dict[str, Any]) -> None:
    d = committed["dealing"]
    g, hand = _hex(d["game_id"]), d["hand"]
    o = d["opening"]
    assert o["slot"] == 10 * len(d["seats"])  # the first discard of a two-seat deal
    assert o["ciphertext"] == d["shuffle_steps"][-1]["after"][o["slot"]]
    cipher = Ciphertext.from_bytes(_hex(o["ciphertext"]))
    parts = []
    for s, t in enumerate(o["tokens"]):
        assert t["seat"] == s
        x = Scalar.from_bytes(_hex(d["seats"][s]["secret"]))
        context = token_context(g, hand, o["slot"], s)
        assert _hex(t["context"]) == context
        assert token(x, cipher.a).to_bytes().hex() == t["token"]
        proof = prove_equal_logs(x, cipher.a, context, replay(_hex(t["nonce_random"])))
        assert proof.to_bytes().hex() == t["proof"]
        assert verify_equal_logs(_hex(d["seats"][s]["public"]), cipher.a, _hex(t["token"]), _hex(t["proof"]),
                                 context)
        # The proof is bound to its slot: the same bytes do not verify for the next one.
        assert not verify_equal_logs(_hex(d["seats"][s]["public"]), cipher.a, _hex(t["token"]),
                                     _hex(t["proof"]), token_context(g, hand, o["slot"] + 1, s))
        parts.append(Point.from_bytes(_hex(t["token"])))
    point = cipher.b - parts[0] - parts[1]
    assert point.to_bytes().hex() == o["point"]
    assert card_of_point(point) == open_card(cipher.b, parts) == o["card"]
    assert point.to_bytes().hex() == committed["card_points"]["points"][o["card"]]


# ------------------------------------------------------------------ the signed log (log_v3.json)


@pytest.fixture(scope="module")
def log_vectors() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(LOG_VECTORS_PATH.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def short_game() -> bytes:
    return SHORT_GAME_PATH.read_bytes()


def test_the_signed_entries_are_remade_byte_for_byte_from_their_inputs(log_vectors: dict[str, Any]) -> None:
    entries = []
    for v in log_vectors["signed_entries"]["entries"]:
        key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(v["private_key"]))
        assert public_bytes(key).hex() == v["public_key"]
        f = v["fields"]
        assert f["version"] == VERSION == log_vectors["version"] == 3
        entry = make_entry(key, bytes.fromhex(f["game_id"]), f["seq"], bytes.fromhex(f["prev_hash"]),
                           f["author"], f["kind"], from_json(f["body"]))
        assert entry.payload.hex() == v["payload"]
        assert signed_bytes(Domain.ENTRY, entry.payload).hex() == v["signed_bytes"]
        assert entry.signature.hex() == v["signature"]
        assert entry.raw.hex() == v["envelope"]
        assert entry.hash.hex() == v["hash"]
        assert record(entry.raw).hex() == v["record"]
        parsed = parse_entry(bytes.fromhex(v["envelope"]))
        assert parsed.verify(public_key(bytes.fromhex(v["public_key"])))
        assert to_json(parsed.body) == f["body"]
        entries.append(parsed)
    first, second = entries
    assert second.prev_hash == first.hash
    # The two entries are a valid start of a table, not just well-signed bytes.
    table = TableState.from_header(first).apply(second)
    assert table.seq == 2 and table.hand is not None and table.hand.stage == "keys"


def test_a_changed_byte_in_a_signed_entry_fails_its_signature(log_vectors: dict[str, Any]) -> None:
    v = log_vectors["signed_entries"]["entries"][1]
    payload = bytearray(bytes.fromhex(v["payload"]))
    payload[-1] ^= 1
    key = public_key(bytes.fromhex(v["public_key"]))
    signature = bytes.fromhex(v["signature"])
    assert not verify(key, Domain.ENTRY, bytes(payload), signature)
    assert verify(key, Domain.ENTRY, bytes.fromhex(v["payload"]), signature)
    # Ed25519 signs the domain-tagged bytes, never the bare payload.
    key.verify(signature, bytes.fromhex(v["signed_bytes"]))
    with pytest.raises(InvalidSignature):
        key.verify(signature, bytes.fromhex(v["payload"]))


def test_the_short_game_file_is_the_one_the_json_describes(log_vectors: dict[str, Any],
                                                           short_game: bytes) -> None:
    sg = log_vectors["short_game"]
    assert sg["file"] == SHORT_GAME_PATH.name
    assert len(short_game) == sg["bytes"]
    assert hashlib.sha256(short_game).hexdigest() == sg["sha256"]
    assert short_game.startswith(bytes.fromhex(log_vectors["file"]["header"]))


def test_the_short_game_audits_clean_with_the_recorded_outcome(log_vectors: dict[str, Any],
                                                               short_game: bytes) -> None:
    expected = log_vectors["short_game"]["audit"]
    report = audit_bytes(short_game)
    assert report.clean, report.verdict()
    assert report.table is not None
    assert report.entries == expected["entries"]
    assert [{k: list(v) if isinstance(v, tuple) else v for k, v in asdict(row).items()}
            for row in report.sheet] == expected["sheet"]
    assert list(report.table.engine.totals) == expected["totals"]
    assert report.table.engine.winner == expected["winner"]
    assert report.table.last_hash.hex() == expected["last_hash"]
    assert report.table.game_id.hex() == expected["game_id"]
    # And the generator's own summary of the file agrees with the committed one.
    assert short_game_outcome(short_game) == expected


@pytest.mark.parametrize("where", ["first entry", "a shuffle", "middle", "last entry", "last byte"])
def test_one_flipped_byte_makes_the_short_game_fail_its_audit(short_game: bytes, where: str) -> None:
    records = read_records(short_game).items
    offsets = []
    pos = len(file_header())
    for raw in records:
        offsets.append(pos)
        pos += 4 + len(raw)
    shuffle = next(i for i, raw in enumerate(records) if parse_entry(raw).kind == "shuffle")
    at = {
        "first entry": offsets[0] + 4 + 40,
        "a shuffle": offsets[shuffle] + 4 + len(records[shuffle]) // 2,
        "middle": len(short_game) // 2,
        "last entry": offsets[-1] + 4 + 20,
        "last byte": len(short_game) - 1,
    }[where]
    damaged = bytearray(short_game)
    damaged[at] ^= 0x01
    report = audit_bytes(bytes(damaged))
    assert not report.clean
    assert report.violation is not None or report.damage is not None


def test_regenerating_the_short_game_from_its_seed_gives_the_same_bytes(short_game: bytes) -> None:
    assert build_short_game() == short_game


def test_regenerating_the_log_vectors_reproduces_the_committed_file(short_game: bytes) -> None:
    assert render_log(build_log_vectors(short_game)) == LOG_VECTORS_PATH.read_text(encoding="utf-8")


# ------------------------------------------------------------------ signatures (signatures_v2.json)


@pytest.fixture(scope="module")
def signature_vectors() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SIGNATURE_VECTORS_PATH.read_text(encoding="utf-8"))
    return data


def test_regenerating_the_signature_vectors_reproduces_the_committed_file() -> None:
    assert render_signatures(build_signature_vectors()) == SIGNATURE_VECTORS_PATH.read_text(encoding="utf-8")


def test_each_domain_vector_verifies_under_its_own_tag_only(signature_vectors: dict[str, Any]) -> None:
    key = public_key(bytes.fromhex(signature_vectors["public_key"]))
    seen = set()
    for v in signature_vectors["domains"]:
        domain = Domain(v["tag"].encode())
        seen.add(domain)
        message, signature = bytes.fromhex(v["message"]), bytes.fromhex(v["signature"])
        assert signed_bytes(domain, message).hex() == v["signed_bytes"]
        tag = domain.value
        assert v["signed_bytes"] == (b"\x00\x00\x00\x0cp2p10/sig/v2" + len(tag).to_bytes(4, "big") + tag
                                     + len(message).to_bytes(4, "big") + message).hex()
        key.verify(signature, bytes.fromhex(v["signed_bytes"]))  # plain Ed25519 over those bytes
        assert [d for d in Domain if verify(key, d, message, signature)] == [domain]
        assert not verify_raw(key, message, signature)
    assert seen == set(Domain)


@pytest.mark.parametrize("index", range(18))
def test_the_library_and_the_rule_give_each_edge_case_its_recorded_verdict(
        signature_vectors: dict[str, Any], index: int) -> None:
    """Each case pins what OpenSSL (through ``cryptography``) does alone, whether the key is
    admitted, and the protocol's verdict; a library upgrade that changes one shows here."""
    v = signature_vectors["edge_cases"][index]
    key, message, signature = (bytes.fromhex(v[f]) for f in ("public_key", "message", "signature"))
    try:
        Ed25519PublicKey.from_public_bytes(key).verify(signature, message)
        library = True
    except InvalidSignature:
        library = False
    assert library == v["library_accepts"], v["why"]
    try:
        admitted = public_key(key)
    except BadEntry:
        admitted = None
    assert (admitted is not None) == v["key_admitted"], v["why"]
    assert (admitted is not None and verify_raw(admitted, message, signature)) == v["accepted"], v["why"]
    # The rule holds even for a key loaded without the admission check.
    assert verify_raw(Ed25519PublicKey.from_public_bytes(key), message, signature) == v["accepted"]


def test_the_edge_cases_cover_every_kind_the_rule_names(signature_vectors: dict[str, Any]) -> None:
    cases = signature_vectors["edge_cases"]
    assert len(cases) == 18 and len({c["name"] for c in cases}) == 18
    # Where the library alone would accept and the protocol refuses, and the converse never.
    assert {c["name"] for c in cases if c["library_accepts"] and not c["accepted"]} == {
        "taming-0", "taming-1", "taming-2", "taming-11", "identity-r", "noncanonical-identity-a"}
    assert not [c for c in cases if c["accepted"] and not c["library_accepts"]]


# ------------------------------------------------- the proof of shuffle (crypto_v1.json, §2.13)


def _h_s(*parts: bytes) -> int:
    return int.from_bytes(hashlib.sha512(_framed(*parts)).digest(), "little") % GROUP_ORDER


def _le(value: str) -> int:
    return int.from_bytes(_hex(value), "little")


def _combine(scalars: list[int], points: list[Point]) -> Point:
    total = IDENTITY
    for s, p in zip(scalars, points, strict=True):
        total = total + mul(Scalar.from_int(s), p)
    return total


def test_the_shuffle_proof_vector_is_checked_from_the_spec_alone(committed: dict[str, Any]) -> None:
    """Section 2.13 written out again, in the group operations of section 2.1 only: the
    generators, the digests, every challenge, and the verifier's equations reach the recorded
    challenge; the prover's code remakes the proof byte for byte."""
    v = committed["shuffle_proof"]
    d = v["domains"]
    context, joint = _hex(v["context"]), Point.from_bytes(_hex(v["joint_key"]))
    before = [Ciphertext.from_bytes(_hex(c)) for c in v["before"]]
    after = [Ciphertext.from_bytes(_hex(c)) for c in v["after"]]
    n = len(before)
    gens = [Point.from_bytes(rbcl.crypto_core_ristretto255_from_hash(
        hashlib.sha512(_framed(d["generators"].encode(), context, _u64be(i))).digest()))
        for i in range(n + 1)]
    assert [g.to_bytes().hex() for g in gens] == v["generators"]
    hs, h = gens[:n], gens[n]
    digest = hashlib.sha512(_framed(
        d["statement"].encode(), context, GENERATOR.to_bytes(), joint.to_bytes(),
        b"".join(g.to_bytes() for g in gens), _u64be(n),
        b"".join(c.to_bytes() for c in before), b"".join(c.to_bytes() for c in after))).digest()
    assert digest.hex() == v["statement_digest"]
    parts = v["parts"]
    commitments = [Point.from_bytes(_hex(c)) for c in parts["commitments"]]
    chain = [Point.from_bytes(_hex(c)) for c in parts["chain"]]
    bound = hashlib.sha512(_framed(d["permutation_challenges"].encode(), digest,
                                   b"".join(c.to_bytes() for c in commitments))).digest()
    assert bound.hex() == v["permutation_digest"]
    u = [_h_s(d["permutation_challenges"].encode(), bound, _u64be(j)) for j in range(n)]
    c = _le(v["challenge"])
    s1, s2, s3, s4 = (_le(parts[k]) for k in ("s1", "s2", "s3", "s4"))
    s_hat = [_le(s) for s in parts["chain_responses"]]
    s_prime = [_le(s) for s in parts["responses"]]
    minus_c = -c % GROUP_ORDER

    def g(s: int) -> Point:
        return base_mul(Scalar.from_int(s))

    u_all = 1
    for uj in u:
        u_all = u_all * uj % GROUP_ORDER
    c_bar = _combine([1] * n, commitments) - _combine([1] * n, hs)
    t1 = g(s1) + mul(Scalar.from_int(minus_c), c_bar)
    t2 = g(s2) + mul(Scalar.from_int(minus_c), chain[-1] - mul(Scalar.from_int(u_all), h))
    cu = [minus_c * uj % GROUP_ORDER for uj in u]
    t3 = g(s3) + _combine(s_prime, hs) + _combine(cu, commitments)
    t4a = _combine(s_prime, [e.a for e in after]) - g(s4) + _combine(cu, [e.a for e in before])
    t4b = (_combine(s_prime, [e.b for e in after]) - mul(Scalar.from_int(s4), joint)
           + _combine(cu, [e.b for e in before]))
    t_hat = [g(s_hat[i]) + mul(Scalar.from_int(s_prime[i]), chain[i - 1] if i else h)
             + mul(Scalar.from_int(minus_c), chain[i]) for i in range(n)]
    recomputed = _h_s(d["challenge"].encode(), bound, b"".join(x.to_bytes() for x in chain),
                      t1.to_bytes(), t2.to_bytes(), t3.to_bytes(), t4a.to_bytes(), t4b.to_bytes(),
                      b"".join(t.to_bytes() for t in t_hat))
    assert recomputed == c
    # The wire form is the parts in order; the code agrees, and remakes it from the seed.
    wire = b"".join([*(x.to_bytes() for x in commitments), *(x.to_bytes() for x in chain),
                     *(s.to_bytes(32, "little") for s in (c, s1, s2, s3, s4, *s_hat, *s_prime))])
    assert wire.hex() == v["proof"] and len(wire) == v["proof_bytes"] == 128 * n + 160
    assert verify_shuffle_proof(before, after, joint, wire, context)
    remade_after, remade = shuffle_and_prove(before, _hex(v["seed"]), joint, context)
    assert [x.to_bytes().hex() for x in remade_after] == v["after"] and remade.to_bytes() == wire
    assert [int.from_bytes(_hex(r), "little") for r in v["rerandomisers"]] == [
        int.from_bytes(r.to_bytes(), "little") for r in derive_rerandomisers(_hex(v["seed"]), n, context)]


def test_each_dealing_shuffle_step_carries_a_proof_that_verifies(committed: dict[str, Any]) -> None:
    d = committed["dealing"]
    g, hand = _hex(d["game_id"]), d["hand"]
    joint = Point.from_bytes(_hex(d["joint_key"]))
    before = initial_deck()
    for s, step in enumerate(d["shuffle_steps"]):
        context = shuffle_context(g, hand, 0, s)
        after = tuple(Ciphertext.from_bytes(_hex(c)) for c in step["after"])
        assert verify_shuffle_proof(before, after, joint, _hex(step["proof"]), context)
        _, remade = shuffle_and_prove(before, _hex(d["seats"][s]["seed"]), joint, context)
        assert remade.to_bytes().hex() == step["proof"]
        assert not verify_shuffle_proof(before, after, joint, _hex(step["proof"]),
                                        shuffle_context(g, hand, 0, 1 - s))
        before = after


def test_the_seeded_games_are_played_byte_for_byte_as_their_committed_digests() -> None:
    """Refactoring guard: every seeded game's file and traffic are those recorded (re-run
    ``python -m protocol.vectors.make_game_digests`` only for a change meant to alter a game)."""
    committed = json.loads(GAME_DIGESTS_PATH.read_text(encoding="utf-8"))["games"]
    assert len(committed) == len(GAMES)
    for game, recorded in zip(GAMES, committed, strict=True):
        assert play_game(*game) == recorded, f"seed {recorded['seed']} with {recorded['players']}"


# ------------------------------------------- the portable checker (protocol/vectors/check_vectors.py)


def _vector_files() -> dict[str, bytes]:
    folder = VECTORS_PATH.parent
    return {name: (folder / name).read_bytes()
            for name in ("crypto_v1.json", "signatures_v2.json", "log_v3.json", "short_game_v3.p2p10")}


def test_the_portable_checker_finds_every_vector_holding_on_cpython() -> None:
    """What the core in a phone's page runs (tests/test_page_core.py), run here first."""
    result = check_all(_vector_files())
    assert result["backend"] == "cpython"
    assert (result["crypto"], result["signatures"], result["log"]) == ([], [], [])
    # the library alone, on the edge cases: as recorded for cryptography (OpenSSL)
    recorded = json.loads(SIGNATURE_VECTORS_PATH.read_text(encoding="utf-8"))["edge_cases"]
    assert result["library_accepts"] == {c["name"]: c["library_accepts"] for c in recorded}


@pytest.mark.parametrize(("name", "field"), [
    ("crypto_v1.json", "crypto"), ("signatures_v2.json", "signatures"), ("log_v3.json", "log"),
    ("short_game_v3.p2p10", "log")])
def test_the_portable_checker_catches_a_changed_vector(name: str, field: str) -> None:
    files = _vector_files()
    data = bytearray(files[name])
    if name.endswith(".json"):  # a hex digit of a recorded value changed, the JSON still JSON
        text = data.decode("utf-8")
        at = text.index('"signature": "') + len('"signature": "') if "signature" in name else \
            text.rindex('": "') + 4
        digit = text[at]
        data = bytearray((text[:at] + ("1" if digit != "1" else "2") + text[at + 1:]).encode("utf-8"))
    else:
        data[len(data) // 3] ^= 0x01
    files[name] = bytes(data)
    assert check_all(files)[field] != []
