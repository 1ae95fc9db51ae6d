"""The joiner's side of a LAN table's lobby: dialling the host, proving a private table's code,
taking a seat, checking the roster it is sent and signing its sit-down, and asking a table what
it is. The host's side is protocol.lobby, the messages and their checks
protocol.lobby_messages."""

from __future__ import annotations

import asyncio
import http.client
import json
from typing import Any

import aiohttp
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p10.errors import ProtocolError
from p2p10.i18n import _
from p2p10.log import (
    fingerprint,
    public_bytes,
)
from p2p10.rules import RuleSet
from protocol.lobby import CODE_TIMEOUT, JOIN_TIMEOUT, LOBBY_PATH, Say, SignSitDown, _peek
from protocol.lobby_messages import (
    LOBBY_MAX_BYTES,
    CodeBusy,
    GameStarted,
    LanError,
    SeatInfo,
    pack,
    parse_roster,
    refused,
    renamed,
    signed,
    unpack,
    unreachable,
)
from protocol.mesh import url_for
from protocol.private import CodeProof, binding_of
from protocol.tls import BadCertificate, client_context, require_key


async def prove_code(socket: aiohttp.ClientWebSocketResponse, code: str, host_key: bytes,
                     guest_key: bytes) -> None:
    """The guest's side of a private table's door; :class:`WrongCode` if the host refuses the
    code, :class:`LanError` if the host does not prove it knows it."""
    proof = CodeProof(code, "guest", binding_of(host_key, guest_key))
    await socket.send_bytes(pack(["pake", proof.message()]))
    item = await _guest_receive(socket)
    if not (item[:1] == ["pake"] and len(item) == 2 and isinstance(item[1], bytes)):
        raise ProtocolError("the host's answer to the code is not ['pake', message]")
    proof.receive(item[1])
    await socket.send_bytes(pack(["confirm", proof.confirmation()]))
    item = await _guest_receive(socket)
    if not (item[:1] == ["confirm"] and len(item) == 2 and isinstance(item[1], bytes)
            and proof.check(item[1])):
        raise LanError(_("the host did not prove it knows the code (or something in between "
                         "relays the link): leaving"))


async def _guest_receive(socket: aiohttp.ClientWebSocketResponse) -> list[Any]:
    message = await asyncio.wait_for(socket.receive(), CODE_TIMEOUT)
    if message.type != aiohttp.WSMsgType.BINARY:
        raise LanError(_("the host closed the link during the code exchange"))
    item = _peek(message.data)
    refused(item)
    return item


async def take_seat(address: tuple[str, int], name: str, identity: Ed25519PrivateKey,
                    mesh_at: tuple[str, int], sign: SignSitDown, say: Say,
                    host_fingerprint: str | None = None, code: str | None = None
                    ) -> tuple[bytes, RuleSet, list[SeatInfo]]:
    """A joiner's side of the lobby: join the table at ``address`` as ``name`` (its mesh
    listening at ``mesh_at``), and once the roster comes, sign its sit-down with ``sign``
    (given the table id, rules, roster and this seat) and wait for the start. The table id,
    rules and roster; :class:`LanError` if the host refuses, leaves or proposes a roster this
    seat cannot sign. A private table's host that slows down attempts at its code is dialled
    again when it says (:class:`CodeBusy`, said with ``say``)."""
    while True:
        try:
            return await _take_seat(address, name, identity, mesh_at, sign, say, host_fingerprint,
                                    code)
        except CodeBusy as busy:
            # Dialling again when told keeps this machine's turn among those that try.
            say(str(busy))
            await asyncio.sleep(busy.wait)


async def _take_seat(address: tuple[str, int], name: str, identity: Ed25519PrivateKey,
                     mesh_at: tuple[str, int], sign: SignSitDown, say: Say,
                     host_fingerprint: str | None, code: str | None
                     ) -> tuple[bytes, RuleSet, list[SeatInfo]]:
    key = public_bytes(identity)
    proposed: tuple[bytes, RuleSet, list[SeatInfo]] | None = None
    host, port = address
    url = url_for(host, port, LOBBY_PATH)
    try:
        async with aiohttp.ClientSession() as session, \
                session.ws_connect(url, max_msg_size=LOBBY_MAX_BYTES,
                                   ssl=client_context(identity)) as socket:
            host_key = host_key_of(socket, host_fingerprint)
            if code is not None:
                await prove_code(socket, code, host_key, key)
            await socket.send_bytes(signed(identity, ["join", name, key, *mesh_at]))
            while True:
                message = await socket.receive()
                if message.type != aiohttp.WSMsgType.BINARY:
                    raise LanError(_("the host closed the lobby before the game started"))
                item = unpack(message.data)
                if isinstance(item, list):
                    refused(item)
                if isinstance(item, list) and item[:1] == ["seated"] and proposed is None:
                    say(_("seated at {host}:{port}; waiting for the table to fill").format(
                        host=host, port=port))
                    continue
                if proposed is not None:
                    if item != ["start"]:
                        raise LanError(_("the host sent something other than the start in the lobby"))
                    return proposed
                proposed = check_roster(item, key, name, host_key)
                table_id, rules, roster = proposed
                sat = sign(table_id, rules, roster, [s.key for s in roster].index(key))
                await socket.send_bytes(signed(identity, ["sit-down", sat.raw]))
    except GameStarted as started:
        # TRANSLATORS: {message} is the sentence before; keep "p2p10 watch" as it is.
        raise GameStarted(_("{message}; watch it with p2p10 watch {host}:{port}").format(
            message=started, host=host, port=port)) from None
    except aiohttp.ClientConnectorError as err:
        raise unreachable(host, port, err.os_error) from None
    except (aiohttp.ClientError, OSError) as err:
        raise LanError(_("cannot reach a table at {host}:{port}: {reason}").format(
            host=host, port=port, reason=err)) from None
    except (ProtocolError, TimeoutError) as err:
        raise LanError(_("the host sent a bad lobby message: {reason}").format(
            reason=err or "none in time")) from None


def host_key_of(socket: aiohttp.ClientWebSocketResponse, announced: str | None) -> bytes:
    """The key in the host's TLS certificate; :class:`LanError` if the table was found by its
    announcement and this is not the key it was announced with (another machine answers at
    that address)."""
    try:
        key = require_key(socket.get_extra_info("ssl_object"), None, "the host")
    except BadCertificate as err:
        raise LanError(_("the host's link is not secured: {reason}").format(reason=err)) from None
    if announced is not None and fingerprint(key) != announced:
        # TRANSLATORS: {key} and {announced} are key fingerprints (hexadecimal).
        raise LanError(_("the host's key is not the one the table was announced with ({key}, not "
                         "{announced}): leaving").format(key=fingerprint(key), announced=announced))
    return key


def check_roster(item: object, key: bytes, name: str, host_key: bytes
                 ) -> tuple[bytes, RuleSet, list[SeatInfo]]:
    """The roster a joiner is about to sign its sit-down for: it must seat the joiner's key
    once, under its name (or its name with a number), and give seat 1 the key the host's TLS
    certificate carries (the one it was announced with, when the table was found by its
    announcement: :func:`host_key_of`). :class:`LanError` otherwise."""
    try:
        table_id, rules, roster = parse_roster(item)
    except ProtocolError as err:
        raise LanError(_("the host sent a bad roster: {reason}").format(reason=err)) from None
    keys = [s.key for s in roster]
    if keys.count(key) != 1:
        raise LanError(_("the host's roster does not seat this peer"))
    if not renamed(roster[keys.index(key)].name, name):
        raise LanError(_("the host's roster gives this seat another name"))
    if roster[0].key != host_key:
        # TRANSLATORS: {key} and {linked} are key fingerprints (hexadecimal).
        raise LanError(_("the host's roster gives seat 1 another key ({key}) than the one its "
                         "link proves ({linked}): leaving").format(key=fingerprint(roster[0].key),
                                                                  linked=fingerprint(host_key)))
    return table_id, rules, roster


async def ask_table(address: tuple[str, int]) -> tuple[Any, bytes]:
    """What the host at ``address`` says of its table (``GET /table``: the announcement's
    fields as JSON), and the key its TLS certificate proves; :class:`LanError` if it cannot be
    reached or does not answer. The caller checks the fields (:meth:`TableAd.from_json`)."""
    return await asyncio.to_thread(_ask_table, address)


def _ask_table(address: tuple[str, int]) -> tuple[Any, bytes]:
    # http.client keeps the TLS socket at hand, so the key is read from the very connection
    # that carried the answer.
    from protocol.discovery import TABLE_PATH

    host, port = address
    connection = http.client.HTTPSConnection(host, port, timeout=JOIN_TIMEOUT,
                                             context=client_context(None))
    try:
        connection.request("GET", TABLE_PATH)
        key = require_key(connection.sock, None, "the host")
        response = connection.getresponse()
        if response.status != 200:
            raise LanError(_("{host}:{port} answers, but not as a p2p10 table (HTTP {status})").format(
                host=host, port=port, status=response.status))
        return json.loads(response.read(64 * 1024)), key
    except BadCertificate as err:
        raise LanError(_("the host's link is not secured: {reason}").format(reason=err)) from None
    except ConnectionRefusedError as err:
        raise unreachable(host, port, err) from None
    except (OSError, http.client.HTTPException, ValueError) as err:
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err) or type(err).__name__
        raise LanError(_("cannot reach a table at {host}:{port}: {reason}").format(
            host=host, port=port, reason=reason)) from None
    finally:
        connection.close()
