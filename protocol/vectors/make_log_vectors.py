"""Generate ``log_v3.json`` and ``short_game_v3.p2p10``: golden vectors for the signed move log.

* ``signed_entries``: two chained entries (a table entry and the first hand key after it) made
  from fixed inputs. Ed25519 is deterministic, so the payload, signature, envelope, hash and
  file record are reproducible from the private key and the fields. The two entries are also a
  valid start of a table: ``TableState.from_header(first).apply(second)`` accepts them.
* ``short_game``: a complete, seeded 2-player game (``hands=1``, greedy bots) played through
  the real peers and saved by ``play_table(..., save=...)``; the bytes of the whole ``.p2p10``
  file are ``short_game_v3.p2p10`` beside this script, with the audit outcome they must give.

Every input is fixed, so running this again must reproduce both files byte for byte
(``tests/test_vectors.py`` checks that). The short game is a regression vector of the whole
stack: a change to the bots, the engine or the protocol that alters the game changes the file,
and then this script must be run again and the change reviewed.

Usage: ``python protocol/vectors/make_log_vectors.py`` rewrites both files next to this script.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

from p2p10.audit import audit_bytes
from p2p10.crypto.group import base_mul, frame
from p2p10.crypto.proofs import prove_knowledge
from p2p10.crypto.shuffle import commit_seed
from p2p10.hand_crypto import key_context, seed_context
from p2p10.log import (
    FILE_VERSION,
    GAME_ID_BYTES,
    GENESIS,
    LOG_MAGIC,
    VERSION,
    Entry,
    file_header,
    make_entry,
    parse_entry,
    public_bytes,
    read_records,
    record,
)
from p2p10.primitives import Ed25519PrivateKey, unpack
from p2p10.rules import RuleSet
from p2p10.signing import Domain, signed_bytes
from p2p10.simulate import greedy_player
from p2p10.sitdown import GAME_ID_CONTEXT, NONCE_BYTES, SitDown, sign_sit_down
from p2p10.table import TableState
from protocol.memory import play_table
from protocol.vectors.make_vectors import fixed_bytes, fixed_scalar, replay

LOG_VECTORS_PATH = Path(__file__).with_name("log_v3.json")
SHORT_GAME_PATH = Path(__file__).with_name("short_game_v3.p2p10")
SHORT_GAME_SEED = 13  # the shortest of seeds 1..24 whose game has every kind of move, a Skip included
SHORT_GAME_RULES = ("hands=1",)
SHORT_GAME_PLAYERS = 2


# ------------------------------------------------------------------ JSON notation for msgpack values


def to_json(value: Any) -> Any:
    """A msgpack value in the vectors' JSON notation: bytes as ``{"bin": hex}``, the rest as is."""
    if isinstance(value, bytes):
        return {"bin": value.hex()}
    if isinstance(value, list | tuple):
        return [to_json(v) for v in value]
    if value is None or isinstance(value, bool | int | str):
        return value
    raise TypeError(f"no vector notation for {type(value).__name__}")


def from_json(value: Any) -> Any:
    """The inverse of :func:`to_json`."""
    if isinstance(value, dict):
        if set(value) != {"bin"}:
            raise ValueError(f"an object in the notation is {{'bin': hex}}, not {value!r}")
        return bytes.fromhex(value["bin"])
    if isinstance(value, list):
        return [from_json(v) for v in value]
    return value


# ------------------------------------------------------------------ signed entries


def identity(name: str) -> Ed25519PrivateKey:
    """A fixed Ed25519 identity (its 32-byte private key is ``fixed_bytes(name)``)."""
    return Ed25519PrivateKey.from_private_bytes(fixed_bytes(name))


def entry_vector(key: Ed25519PrivateKey, entry: Entry) -> dict[str, Any]:
    """One signed entry: its inputs and every byte string made from them."""
    return {
        "private_key": key.private_bytes_raw().hex(),
        "public_key": public_bytes(key).hex(),
        "fields": {
            "version": VERSION,
            "game_id": entry.game_id.hex(),
            "seq": entry.seq,
            "prev_hash": entry.prev_hash.hex(),
            "author": entry.author,
            "kind": entry.kind,
            "body": to_json(entry.body),
        },
        "payload": entry.payload.hex(),
        "signed_bytes": signed_bytes(Domain.ENTRY, entry.payload).hex(),
        "signature": entry.signature.hex(),
        "envelope": entry.raw.hex(),
        "hash": entry.hash.hex(),
        "record": record(entry.raw).hex(),
    }


def sit_down_vector(key: Ed25519PrivateKey, sat: SitDown) -> dict[str, Any]:
    """One signed sit-down: its signer and terms, and the bytes made from them."""
    payload, signature = unpack(sat.raw)
    return {
        "private_key": key.private_bytes_raw().hex(),
        "terms": to_json([sat.table_id, sat.seat, sat.name, sat.key, sat.run_by, list(sat.options),
                          sat.nonce]),
        "payload": payload.hex(),
        "signed_message": signed_bytes(Domain.SIT_DOWN, payload).hex(),
        "signature": signature.hex(),
        "sit_down": sat.raw.hex(),
    }


def build_signed_entries() -> tuple[list[Entry], dict[str, Any]]:
    """The table entry of a fixed two-seat table and seat 1's first hand key after it."""
    seat1, seat2 = identity("ed25519-seat-1"), identity("ed25519-seat-2")
    table_id = fixed_bytes("table-id")[:GAME_ID_BYTES]
    rules = RuleSet.parse(list(SHORT_GAME_RULES))
    sit_downs = [sign_sit_down(key, table_id, seat, name, rules,
                               nonce=fixed_bytes(f"sit-down-nonce-{seat + 1}")[:NONCE_BYTES])
                 for seat, (key, name) in enumerate([(seat1, "Ada"), (seat2, "Bo")])]
    game_id = TableState.game_id_for(sit_downs)
    header = TableState.header_body(sit_downs)
    table = make_entry(seat1, game_id, 0, GENESIS, 0, "table", header)

    secret = fixed_scalar("hand-key-secret")
    proof = prove_knowledge(secret, key_context(game_id, 0, 0), replay(fixed_bytes("hand-key-nonce")))
    seed = fixed_bytes("hand-shuffle-seed")
    commitment = commit_seed(seed, seed_context(game_id, 0, 0))
    key_body = [0, base_mul(secret).to_bytes(), proof.to_bytes(), commitment]
    key = make_entry(seat1, game_id, 1, table.hash, 0, "key", key_body)
    return [table, key], {
        "table_id": table_id.hex(),
        "sit_downs": [sit_down_vector(k, sat) for k, sat in zip((seat1, seat2), sit_downs, strict=True)],
        "game_id_message": frame(GAME_ID_CONTEXT, table_id, *(s.nonce for s in sit_downs)).hex(),
        "game_id": game_id.hex(),
        "hand_key_secret": secret.to_bytes().hex(),
        "hand_key_nonce_random": fixed_bytes("hand-key-nonce").hex(),
        "shuffle_seed": seed.hex(),
        "other_seat_public_key": public_bytes(seat2).hex(),
    }


# ------------------------------------------------------------------ the short game


def build_short_game() -> bytes:
    """Play the seeded short game through the peers and return its saved ``.p2p10`` file."""
    rules = RuleSet.parse(list(SHORT_GAME_RULES))
    with tempfile.TemporaryDirectory(prefix="p2p10-vectors-") as tmp:
        path = Path(tmp) / "short_game.p2p10"
        play_table([greedy_player] * SHORT_GAME_PLAYERS, rules, seed=SHORT_GAME_SEED, save=path)
        return path.read_bytes()


def short_game_outcome(data: bytes) -> dict[str, Any]:
    """What auditing ``data`` must report (raises if it is not a clean, complete game)."""
    report = audit_bytes(data)
    if not report.clean or report.table is None:
        raise AssertionError(f"the short game does not audit clean: {report.verdict()}")
    table = report.table
    kinds: Counter[str] = Counter()
    for raw in read_records(data).items:
        entry = parse_entry(raw)
        kinds[entry.body[1] if entry.kind == "move" else entry.kind] += 1
    return {
        "clean": True,
        "entries": report.entries,
        "entry_kinds": dict(sorted(kinds.items())),
        "game_id": table.game_id.hex(),
        "names": list(table.names),
        "public_keys": [k.hex() for k in table.keys],
        "last_hash": table.last_hash.hex(),
        "sheet": [{k: list(v) if isinstance(v, tuple) else v for k, v in asdict(row).items()}
                  for row in report.sheet],
        "totals": list(table.engine.totals),
        "winner": table.engine.winner,
    }


# ------------------------------------------------------------------ the files


def build_vectors(short_game: bytes) -> dict[str, Any]:
    """Every log vector, as JSON-ready data (bytes as lowercase hex)."""
    entries, extra = build_signed_entries()
    seat1 = identity("ed25519-seat-1")
    return {
        "version": VERSION,
        "notation": ("in an entry's fields, game_id and prev_hash are hex; in its body every msgpack "
                     "byte string is written {\"bin\": hex}, and integers, text, null and arrays are "
                     "JSON's own"),
        "payload_rule": ("msgpack array [version, game_id, seq, prev_hash, author, kind, body], "
                         "integers in their shortest encoding, byte strings as bin, text as str"),
        "envelope_rule": "msgpack array [payload as bin, signature as bin]",
        "signature_rule": ("Ed25519 (RFC 8032, pure) by the author's identity key over signed_bytes = "
                           "frame('p2p10/sig/v2', 'entry', payload) (PROTOCOL.md §2.12)"),
        "sit_down_rule": ("msgpack [payload as bin, signature as bin]; payload = msgpack [table_id, "
                          "seat, name, key, run_by or nil, [option, ...], nonce]; signature = Ed25519 "
                          "by the seat's key over signed_bytes = frame('p2p10/sig/v2', 'sit-down', payload)"),
        "game_id_rule": ("BLAKE2b with a 16-byte digest, no key, no personalisation, over "
                         "frame('p2p10/game-id', table_id, nonce of seat 1, nonce of seat 2, ...); "
                         "frame = each part as u32be(length) then its bytes"),
        "hash_rule": ("BLAKE2b with a 32-byte digest, no key, personalisation 'p2p10/entry' padded "
                      "with zero bytes to 16, over the payload bytes"),
        "file": {
            "magic": LOG_MAGIC.decode(),
            "version": FILE_VERSION,
            "header": file_header().hex(),
            "record_rule": "each record is its length as 4 bytes big-endian, then the envelope",
        },
        "signed_entries": {
            "about": ("a table entry and the first hand key after it, both by seat 1; the second "
                      "chains to the first and both are accepted by the table fold. The table entry "
                      "carries both seats' sit-downs (inputs.sit_downs), and its game id is made "
                      "from their nonces (inputs.game_id_message)"),
            "inputs": extra,
            "entries": [entry_vector(seat1, e) for e in entries],
        },
        "short_game": {
            "file": SHORT_GAME_PATH.name,
            "bytes": len(short_game),
            "sha256": hashlib.sha256(short_game).hexdigest(),
            "made_by": (f"protocol.memory.play_table([greedy_player] * {SHORT_GAME_PLAYERS}, "
                        f"RuleSet.parse({list(SHORT_GAME_RULES)!r}), seed={SHORT_GAME_SEED}, save=path)"),
            "seed": SHORT_GAME_SEED,
            "rules": list(SHORT_GAME_RULES),
            "players": ["greedy"] * SHORT_GAME_PLAYERS,
            "audit": short_game_outcome(short_game),
        },
    }


def render(vectors: dict[str, Any]) -> str:
    """The exact text of the vectors file."""
    return json.dumps(vectors, indent=1) + "\n"


def main() -> None:
    """Write both files."""
    short_game = build_short_game()
    SHORT_GAME_PATH.write_bytes(short_game)
    LOG_VECTORS_PATH.write_text(render(build_vectors(short_game)), encoding="utf-8")


if __name__ == "__main__":
    main()
