"""The browser's door (cli/web/server.py): what it refuses, what it says, and how it pushes.

A real server on 127.0.0.1 and aiohttp's client. The screen's snapshot holds a recognisable
secret: no refusal may carry it, nor anything but a fixed word."""

from __future__ import annotations

import asyncio
import base64
import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli.web.page import Page
from cli.web.server import FORBIDDEN, MAX_MESSAGE, MISDIRECTED, Snapshot, WebServer
from tests.web_views import Follower, take

SECRET = "Ann-holds-R7-secret"
SHELL = "<!DOCTYPE html><title>p2p10</title><p>the shell</p>"
POLICY = "default-src 'none'; script-src 'sha256-abc'; connect-src 'self'"


class Seat:
    """A screen whose view holds a secret, counting its snapshots and keeping what it heard."""

    def __init__(self) -> None:
        self.server: WebServer | None = None
        self.snapshots = 0
        self.langs: list[list[str]] = []
        self.acts: list[dict[str, Any]] = []
        self.fail = False

    def page(self) -> Page:
        return Page(SHELL, POLICY)

    def hello(self, langs: list[str]) -> None:
        self.langs.append(langs)

    def snapshot(self) -> Any:
        self.snapshots += 1
        return {"hand": [SECRET], "n": self.snapshots, "acts": len(self.acts)}

    async def act(self, message: dict[str, Any]) -> None:
        if self.fail:
            raise ValueError("the screen's own bug")
        self.acts.append(message)
        assert self.server is not None
        self.server.changed()  # as a seat's screen does when an action changed the view


@asynccontextmanager
async def serving(readonly: bool = False) -> AsyncIterator[tuple[WebServer, Seat, aiohttp.ClientSession]]:
    seat = Seat()
    server = seat.server = await WebServer.start(seat, readonly=readonly)
    try:
        async with aiohttp.ClientSession() as client:
            yield server, seat, client
    finally:
        await server.close()


def upgrade_headers() -> dict[str, str]:
    """What a browser sends to open a websocket (without Host and Origin)."""
    return {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": base64.b64encode(os.urandom(16)).decode()}


def here(server: WebServer) -> str:
    return f"127.0.0.1:{server.port}"


@asynccontextmanager
async def socket(server: WebServer, client: aiohttp.ClientSession,
                 hello: bool = True) -> AsyncIterator[aiohttp.ClientWebSocketResponse]:
    """A tab: the socket with the right token and Origin, greeted (its first view read)."""
    ws = await client.ws_connect(f"http://{here(server)}/ws?t={server.token}",
                                 origin=f"http://{here(server)}")
    try:
        if hello:
            await ws.send_json({"type": "hello", "langs": ["de-DE", "en"]})
            message = await ws.receive(timeout=10)
            assert json.loads(message.data)["type"] == "view"
            FOLLOWERS[id(ws)] = Follower()
            FOLLOWERS[id(ws)].heard(message.data)
        yield ws
    finally:
        await ws.close()


async def receive(ws: aiohttp.ClientWebSocketResponse) -> Any:
    message = await ws.receive(timeout=10)
    assert message.type == aiohttp.WSMsgType.TEXT, message
    return json.loads(message.data)


FOLLOWERS: dict[int, Follower] = {}


async def next_view(ws: aiohttp.ClientWebSocketResponse) -> Any:
    """The view the page holds after the next message on ``ws`` (a view, or a patch of the
    last one: ``tests/web_views.py``)."""
    message = await ws.receive(timeout=10)
    assert message.type == aiohttp.WSMsgType.TEXT, message
    return FOLLOWERS.setdefault(id(ws), Follower()).heard(message.data)


async def quiet(ws: aiohttp.ClientWebSocketResponse) -> bool:
    """Whether nothing comes on ``ws`` for a moment (a few turns of both loops)."""
    try:
        message = await ws.receive(timeout=0.3)
    except TimeoutError:
        return True
    raise AssertionError(f"unexpected {message}")


async def raw_get(port: int, target: str, headers: dict[str, str],
                  version: str = "1.1") -> tuple[int, dict[str, str], bytes]:
    """A GET with exactly ``headers`` (no Host unless given): the status, headers and body."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        lines = [f"GET {target} HTTP/{version}", *(f"{k}: {v}" for k, v in headers.items()), "", ""]
        writer.write("\r\n".join(lines).encode())
        await writer.drain()
        status_line = await reader.readline()
        status = int(status_line.split()[1])
        got: dict[str, str] = {}
        while (line := await reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            got[name.strip().lower()] = value.strip()
        body = await reader.readexactly(int(got.get("content-length", "0")))
        return status, got, body
    finally:
        writer.close()


@pytest.mark.parametrize(("case", "status", "word"), [
    ("no token", 403, FORBIDDEN),
    ("wrong token", 403, FORBIDDEN),
    ("a token one character off", 403, FORBIDDEN),
    ("foreign Origin", 403, FORBIDDEN),
    ("no Origin", 403, FORBIDDEN),
    ("Origin of another port", 403, FORBIDDEN),
    ("foreign Host", 421, MISDIRECTED),
    ("rebound DNS name", 421, MISDIRECTED),
    ("no Host", 421, MISDIRECTED),
    ("good", 101, ""),
])
async def test_the_socket_is_refused_without_the_token_the_origin_or_the_host(
        case: str, status: int, word: str) -> None:
    async with serving() as (server, _seat, _client):
        ours = here(server)
        token = server.token
        query = f"?t={token}"
        headers = {"Host": ours, "Origin": f"http://{ours}", **upgrade_headers()}
        if case == "no token":
            query = ""
        elif case == "wrong token":
            query = "?t=" + "A" * len(token)
        elif case == "a token one character off":
            query = "?t=" + token[:-1] + ("x" if token[-1] != "x" else "y")
        elif case == "foreign Origin":
            headers["Origin"] = "http://evil.example"
        elif case == "no Origin":
            del headers["Origin"]
        elif case == "Origin of another port":
            headers["Origin"] = f"http://127.0.0.1:{server.port + 1}"
        elif case == "foreign Host":
            headers["Host"] = "evil.example"
            headers["Origin"] = "http://evil.example"
        elif case == "rebound DNS name":  # evil.example now resolves to 127.0.0.1
            headers["Host"] = f"evil.example:{server.port}"
            headers["Origin"] = f"http://evil.example:{server.port}"
        elif case == "no Host":
            del headers["Host"]
        # (HTTP/1.1 requires a Host: aiohttp refuses a request without one before the door; an
        # HTTP/1.0 request may leave it out.)
        version = "1.0" if case == "no Host" else "1.1"
        got, sent, body = await raw_get(server.port, f"/ws{query}", headers, version)
        assert got == status, case
        if status != 101:
            assert body.decode() == word
            assert SECRET.encode() not in body and token.encode() not in body
            assert sent["x-content-type-options"] == "nosniff"
            assert "frame-ancestors 'none'" in sent["content-security-policy"]


async def test_the_shell_is_the_same_for_everybody_with_strict_headers() -> None:
    async with serving() as (server, _seat, client):
        bodies = []
        for _ in range(2):
            async with client.get(f"http://{here(server)}/") as response:
                assert response.status == 200
                assert response.content_type == "text/html"
                bodies.append(await response.read())
                headers = response.headers
                assert headers["Content-Security-Policy"] == POLICY + "; frame-ancestors 'none'"
                assert headers["X-Content-Type-Options"] == "nosniff"
                assert headers["Referrer-Policy"] == "no-referrer"
                assert headers["Cache-Control"] == "no-store"
                assert "Set-Cookie" not in headers
        assert bodies[0] == bodies[1] == SHELL.encode()
        # By the other name of the loopback address too (a user may type localhost).
        async with client.get(f"http://{here(server)}/",
                              headers={"Host": f"localhost:{server.port}"}) as response:
            assert response.status == 200


@pytest.mark.parametrize(("method", "path", "headers", "status"), [
    ("GET", "/", {"Host": "evil.example"}, 421),
    ("GET", "/", {"Origin": "http://evil.example"}, 403),
    ("POST", "/", {}, 405),
    ("HEAD", "/", {}, 405),
    ("GET", "/index.html", {}, 404),
    ("GET", "/ws/../etc", {}, 404),
    ("GET", "/static/table.js", {}, 404),
])
async def test_nothing_else_is_served(method: str, path: str, headers: dict[str, str], status: int) -> None:
    async with serving() as (server, _seat, client), \
            client.request(method, f"http://{here(server)}{path}", headers=headers) as response:
        assert response.status == status
        body = await response.text()
        assert SHELL not in body and SECRET not in body
        assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]
        assert response.headers["Referrer-Policy"] == "no-referrer"


async def test_a_tab_gets_the_view_after_its_hello_and_after_each_change() -> None:
    async with serving() as (server, seat, client):
        ws = await client.ws_connect(f"http://{here(server)}/ws?t={server.token}",
                                     origin=f"http://{here(server)}")
        await ws.send_json({"type": "key", "key": "d"})  # before the hello: ignored
        assert await quiet(ws)
        await ws.send_json({"type": "hello", "langs": ["es-ES", 7, "x" * 100, "en"]})
        first = await receive(ws)
        assert first == {"type": "view", "view": {"hand": [SECRET], "n": 1, "acts": 0}}
        assert seat.langs == [["es-ES", "en"]] and seat.acts == []
        FOLLOWERS[id(ws)] = Follower()
        FOLLOWERS[id(ws)].view = first["view"]
        server.changed()
        # After the first, only what changed: the count, not the hand.
        assert await receive(ws) == {"type": "patch", "set": {"n": 2}}
        # A second tab gets the whole view; a change reaches both, each as its page holds it.
        async with socket(server, client) as other:
            server.changed()
            mine, theirs = await next_view(ws), await next_view(other)
            assert mine == theirs == {"hand": [SECRET], "n": 4, "acts": 0}
        await ws.close()


async def test_changes_in_one_turn_of_the_loop_make_one_snapshot() -> None:
    async with serving() as (server, seat, client), socket(server, client) as ws:
        before = seat.snapshots
        for _ in range(10):
            server.changed()
        view = await next_view(ws)
        assert seat.snapshots == before + 1
        assert view["n"] == before + 1
        assert await quiet(ws)


async def test_a_slow_tab_gets_only_the_latest_view() -> None:
    async with serving() as (server, _seat, client), socket(server, client) as ws:
        (tab,) = server._tabs
        for n in range(5):  # all before the writer runs: each replaces the one before
            tab.offer(Snapshot.of({"hand": [SECRET], "n": 100 + n, "acts": 0}))
        assert await receive(ws) == {"type": "patch", "set": {"n": 104}}
        assert await quiet(ws)


async def test_a_message_the_door_cannot_read_is_ignored_and_the_socket_stays(
        capsys: pytest.CaptureFixture[str]) -> None:
    async with serving() as (server, seat, client), socket(server, client) as ws:
        for junk in ["not json", "[1, 2]", '"hello"', "null", '{"no": "type"}', '{"type": 7}',
                     "[" * 5000 + "]" * 5000, '{"type": "hello", "langs": "xx"}']:
            await ws.send_str(junk)
        await ws.send_bytes(b'{"type": "key", "key": "d"}')
        assert await quiet(ws)  # nothing echoed
        assert seat.acts == [] and len(seat.langs) == 1  # a second hello changes nothing
        seat.fail = True  # the screen's own error: on stderr, for the developer
        await ws.send_json({"type": "key", "key": "x"})
        await ws.send_json({"type": "ping"})
        assert await quiet(ws)
        assert "the screen's own bug" in capsys.readouterr().err
        seat.fail = False
        await ws.send_json({"type": "key", "key": "d"})
        assert (await next_view(ws))["acts"] == 1
        assert seat.acts == [{"type": "key", "key": "d"}]


async def test_a_message_too_long_closes_only_its_own_socket() -> None:
    async with serving() as (server, seat, client), socket(server, client) as ws, \
            socket(server, client) as other:
        await ws.send_str(json.dumps({"type": "chat", "text": "x" * MAX_MESSAGE}))
        message = await ws.receive(timeout=10)
        assert message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
        assert seat.acts == []
        await other.send_json({"type": "key", "key": "d"})
        assert (await next_view(other))["acts"] == 1


async def test_a_read_only_page_ignores_actions() -> None:
    async with serving(readonly=True) as (server, seat, client), socket(server, client) as ws:
        await ws.send_json({"type": "key", "key": "d"})
        await ws.send_json({"type": "act", "act": "discard", "slot": 3})
        assert await quiet(ws)
        assert seat.acts == []
        server.changed()
        assert (await receive(ws))["type"] == "patch"


async def test_close_says_bye_and_stops_listening() -> None:
    async with serving() as (server, _seat, client):
        async with socket(server, client) as ws:
            closing = asyncio.ensure_future(server.close("The game is over."))
            assert await receive(ws) == {"type": "bye", "text": "The game is over."}
            message = await ws.receive(timeout=10)
            assert message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
            await closing
        with pytest.raises(aiohttp.ClientConnectionError):
            async with client.get(f"http://{here(server)}/"):
                pass


def test_the_address_has_the_token_in_its_fragment() -> None:
    async def started() -> tuple[str, str, int]:
        server = await WebServer.start(Seat())
        try:
            return server.url, server.token, server.port
        finally:
            await server.close()

    url, token, port = asyncio.run(started())
    assert url == f"http://127.0.0.1:{port}/#t={token}"
    assert len(token) >= 43  # 32 random bytes


async def test_bound_to_every_address_any_ip_address_names_it_and_no_dns_name() -> None:
    server = WebServer(Seat(), "0.0.0.0", readonly=True)  # (never started: no port opened)
    server.port = 8080
    for netloc in ("192.168.1.20:8080", "10.0.0.5:8080", "[fe80::1]:8080", "127.0.0.1:8080"):
        assert server._host_ok(netloc), netloc
    for netloc in ("evil.example:8080", "localhost:8080", "192.168.1.20:8081", "192.168.1.20", "", None):
        assert not server._host_ok(netloc), netloc


# ------------------------------------------------------------------ only what changed is sent

def test_a_patch_carries_the_parts_that_changed_and_the_lines_added() -> None:
    lines = [{"text": f"line {n}"} for n in range(8)]
    old = Snapshot.of({"v": 1, "title": "Hand 1", "sheet": [1, 2], "log": lines[:5], "log_start": 0})
    new = Snapshot.of({"v": 2, "title": "Hand 2", "sheet": [1, 2], "log": lines[2:8], "log_start": 2})
    patch = json.loads(new.since(old) or "")
    assert patch == {"type": "patch", "v": 2, "set": {"title": "Hand 2"},
                     "log": {"start": 2, "add": lines[5:8]}}
    # Nothing but v changed: nothing to send.
    assert Snapshot.of({"v": 3, "title": "Hand 2", "sheet": [1, 2], "log": lines[2:8],
                        "log_start": 2}).since(new) is None
    # A log that is not the old one's continuation comes whole; a null is a value.
    cut = Snapshot.of({"v": 4, "title": "Hand 2", "sheet": None, "log": [{"text": "other"}], "log_start": 3})
    assert json.loads(cut.since(new) or "") == {"type": "patch", "v": 4, "set": {"sheet": None},
                                               "log": {"start": 3, "lines": [{"text": "other"}]}}
    # A part gone (another screen): the whole view.
    start = Snapshot.of({"v": 5, "page": "start"})
    assert json.loads(start.since(cut) or "") == {"type": "view", "view": {"v": 5, "page": "start"}}


VALUES = st.recursive(st.one_of(st.none(), st.integers(0, 3), st.sampled_from(["", "x", "yz"])),
                      lambda inner: st.one_of(st.lists(inner, max_size=3),
                                              st.dictionaries(st.sampled_from("pq"), inner, max_size=2)),
                      max_leaves=6)
VIEWS = st.dictionaries(st.sampled_from("abcd"), VALUES, max_size=4)
STEPS = st.lists(st.tuples(VIEWS, st.integers(0, 6), st.integers(0, 6), st.booleans()),
                 min_size=1, max_size=8)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])  # (a loaded machine draws slowly)
@given(STEPS, st.lists(st.booleans(), min_size=8, max_size=8))
def test_the_patches_a_tab_takes_rebuild_every_view_it_is_sent(
        steps: list[tuple[dict[str, Any], int, int, bool]], skipped: list[bool]) -> None:
    """Whatever the views and whichever of them a slow tab skips, the view the page builds
    from the messages it took is the last view sent, exactly."""
    story = [{"text": f"line {n}"} for n in range(40)]
    sent: Snapshot | None = None
    held: dict[str, Any] | None = None
    told = 0
    for index, (parts, more, window, rewrite) in enumerate(steps):
        told += more
        start = max(0, told - window)
        log = [dict(line) for line in story[start:told]]
        if rewrite and log:
            log[0]["text"] += " (told again)"  # a window whose old lines changed
        view = {"v": index, **parts, "log": log, "log_start": start}
        if skipped[index] and index < len(steps) - 1:
            continue  # a slow tab: this view was replaced before its writer ran
        now = Snapshot.of(view)
        text = now.whole() if sent is None else now.since(sent)
        sent = now
        if text is not None:
            held = take(held, json.loads(text))
        assert held is not None
        assert {k: v for k, v in held.items() if k != "v"} == {k: v for k, v in view.items() if k != "v"}


def test_a_value_changed_deep_in_a_part_goes_alone() -> None:
    seats = [{"name": "Ann", "cards": 10, "melds": [[1, 2, 3]]}, {"name": "Bob", "cards": 9, "melds": []}]
    old = Snapshot.of({"v": 1, "seats": seats})
    later = [dict(seats[0], cards=9), dict(seats[1], melds=[[4, 5, 6]])]
    patch = json.loads(Snapshot.of({"v": 2, "seats": later}).since(old) or "")
    assert patch == {"type": "patch", "v": 2, "set": {},
                     "ops": [[["seats", 0, "cards"], 9], [["seats", 1, "melds"], [[4, 5, 6]]]]}
    assert take({"v": 1, "seats": seats}, patch) == {"v": 2, "seats": later}
