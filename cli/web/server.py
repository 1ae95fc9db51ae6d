"""The door between a browser and the seat: one page and one websocket, served by aiohttp.

The browser is only the seat's screen, on the seat's own machine, so the door is there to keep
everybody else out: another user of the machine, a page of another site open in the same
browser, a site that rebinds its DNS name to 127.0.0.1. It serves two routes and nothing else:

* ``GET /``: the page's shell (:meth:`Screen.page`), the same bytes for everybody, with nothing
  of the seat in it. The token travels in the URL's fragment (``/#t=TOKEN``), which a browser
  never sends, so this is the one request that cannot prove it.
* ``GET /ws?t=TOKEN``: the websocket. The page's script reads the token from the fragment and
  opens it; everything of the seat goes over it, and only after the token was shown.

Every request passes the same checks, in order: its ``Host`` must name this server exactly
(``HOST:PORT``, or ``localhost:PORT`` on 127.0.0.1) else 421, which defeats DNS rebinding; an
``Origin``, if sent, must be this server's else 403; on ``/ws`` the ``Origin`` is required
(every browser sends one on a websocket) and the token must match, compared in constant time,
else 403. A refusal's body is a fixed word. Every response carries the page's
Content-Security-Policy with ``frame-ancestors 'none'``, ``Referrer-Policy: no-referrer`` (the
socket's URL holds the token), ``nosniff`` and ``no-store``.

Over the socket the browser sends JSON objects: ``{"type": "hello", "langs": [...]}`` first,
then whatever the screen understands (:meth:`Screen.act`), ignored for a read-only page.
Anything else (not JSON, not an object, too long) is dropped without a word back. The server
sends ``{"type": "view", "view": SNAPSHOT}`` after the hello, then only what changed
(:meth:`WebServer.changed`): ``{"type": "patch", "v": V, "set": {KEY: VALUE, ...}, "ops":
[[PATH, VALUE], ...], "log": {...}}``, the snapshot's top-level parts that differ from the last
the tab was sent, whole (``set``) or, where that is shorter, only the values that changed in
them, each at its path of keys and indices from the top (``ops``: a seat's count, a key lit; a
view with fewer parts, another screen's, comes whole), and of a move log sent as a window (``log``
and ``log_start``, the index of its first line in the whole story) the lines added, ``{"start":
S, "add": [...]}``, or the whole window, ``{"start": S, "lines": [...]}``, where the old one is
not its beginning; a snapshot that changes nothing but ``v`` is not sent at all.
``{"type": "bye", "text": ...}`` when it closes.

Pushing never waits for a slow tab: changes made in one turn of the event loop make one
snapshot, each part serialised once for every tab; each socket has a writer task holding only
the latest snapshot not yet sent, and what it sends is that snapshot against the last one the tab
took, so a tab that reads slowly skips views, never queues them, and never misses a change.

This module is the only one of the front end that imports aiohttp; the commands import it only
when they serve a page.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import json
import secrets
import sys
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from aiohttp import WSMsgType, web

from cli.web.page import Page

MAX_MESSAGE = 16 * 1024  # bytes a browser's message may have: keys, clicks and a line of chat
HEARTBEAT = 15.0  # s: a tab whose machine went away is noticed, and its writer ends
MAX_LANGS = 16  # languages kept from a hello (a browser lists a handful)
MAX_LANG = 35  # characters of a language tag (BCP 47's longest useful ones are shorter)
BYE_WITHIN = 2.0  # s: how long close() gives each tab to take its bye

STRICTEST = "default-src 'none'"  # the policy of a response when the page could not be built
FORBIDDEN = "forbidden"
MISDIRECTED = "misdirected request"
_FIXED = {403: FORBIDDEN, 404: "not found", 405: "method not allowed", 421: MISDIRECTED}


class Screen(Protocol):
    """What a browser shows and may do: the seat's (or a spectator's) side of the door."""

    def page(self) -> Page:
        """The HTML shell; holds nothing of the seat's state."""
        ...

    def hello(self, langs: list[str]) -> None:
        """The browser's languages (its preference order), before its first view."""
        ...

    def snapshot(self) -> Any:
        """The JSON-able view pushed to the browser."""
        ...

    async def act(self, message: dict[str, Any]) -> None:
        """A browser message other than hello (the screen ignores types it does not know)."""
        ...


def host_port(host: str, port: int) -> str:
    """``host:port`` as a URL and a ``Host`` header write it (an IPv6 address in brackets)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def is_wildcard(host: str) -> bool:
    """Whether ``host`` is the address of every interface (0.0.0.0, ::)."""
    try:
        return ipaddress.ip_address(host).is_unspecified
    except ValueError:
        return False


def _ip_literal(netloc: str) -> bool:
    """Whether a ``Host`` header names an IP address rather than a DNS name."""
    host = netloc.rsplit(":", 1)[0] if not netloc.endswith("]") else netloc
    host = host.strip("[]")
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def _plain(status: int) -> web.Response:
    """A refusal: a fixed word, nothing of the seat or of the request."""
    return web.Response(status=status, text=_FIXED.get(status, "error"))


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Snapshot:
    """One view of the screen, its top-level parts each serialised once for every tab: ``parts``
    by key (``v`` and a windowed move log apart), and the move log's lines, ``log`` (None where
    the view has no window of one: ``log`` a list and ``log_start`` an int)."""

    v: Any
    parts: dict[str, str]
    log: tuple[str, ...] | None
    log_start: int
    _values: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def value(self, key: str) -> Any:
        """Part ``key`` read back from its text (once per snapshot, for every tab it is sent
        against: nothing a screen changed in its view since)."""
        if key not in self._values:
            self._values[key] = json.loads(self.parts[key])
        return self._values[key]

    @classmethod
    def of(cls, view: Any) -> Snapshot:
        """The snapshot of a view (a dict of JSON values)."""
        if not isinstance(view, dict):
            raise TypeError("a screen's snapshot is a dict")
        windowed = isinstance(view.get("log"), list) and isinstance(view.get("log_start"), int)
        parts = {str(k): _dumps(v) for k, v in view.items()
                 if k != "v" and not (windowed and k in ("log", "log_start"))}
        log = tuple(_dumps(line) for line in view["log"]) if windowed else None
        return cls(view.get("v"), parts, log, view["log_start"] if windowed else 0)

    def whole(self) -> str:
        """The view message that carries all of it."""
        items = [f'"v":{_dumps(self.v)}'] if self.v is not None else []
        items += [f"{_dumps(k)}:{v}" for k, v in self.parts.items()]
        if self.log is not None:
            items += [f'"log":[{",".join(self.log)}]', f'"log_start":{self.log_start}']
        return '{"type":"view","view":{' + ",".join(items) + "}}"

    def since(self, old: Snapshot) -> str | None:
        """The message from ``old`` (the last the tab took) to this: a patch of what changed;
        the whole view where a part is gone (another screen: a part's null is a value, never
        "gone"); None if nothing but ``v`` changed."""
        if any(k not in self.parts for k in old.parts) or (self.log is None) != (old.log is None):
            return self.whole()
        changed: list[str] = []
        ops: list[str] = []
        for key, text in self.parts.items():
            if old.parts.get(key) == text:
                continue
            deeper: list[str] = []
            if key in old.parts:
                _changes(old.value(key), self.value(key), [key], deeper)
            if deeper and sum(len(op) + 1 for op in deeper) < len(text):  # a few of its values: those
                ops += deeper
            else:
                changed.append(f"{_dumps(key)}:{text}")
        log = self._log_since(old)
        if not changed and not ops and log is None:
            return None
        version = f'"v":{_dumps(self.v)},' if self.v is not None else ""
        text = '{"type":"patch",' + version + '"set":{' + ",".join(changed) + "}"
        if ops:
            text += ',"ops":[' + ",".join(ops) + "]"
        return text + (f',"log":{log}' if log is not None else "") + "}"

    def _log_since(self, old: Snapshot) -> str | None:
        if self.log is None:
            return None
        if old.log is not None and old.log_start <= self.log_start <= old.log_start + len(old.log):
            kept = old.log[self.log_start - old.log_start:]
            if self.log[:len(kept)] == kept:  # the old window's lines still there, in place
                added = self.log[len(kept):]
                if not added and self.log_start == old.log_start:
                    return None
                return f'{{"start":{self.log_start},"add":[{",".join(added)}]}}'
        return f'{{"start":{self.log_start},"lines":[{",".join(self.log)}]}}'


def _changes(old: Any, new: Any, path: list[Any], out: list[str]) -> None:
    """The values of ``new`` that differ from ``old``, each as ``[PATH, VALUE]`` (JSON): into
    an object with the same keys, or a list of the same length, a change goes down to what
    changed in it; anything else is replaced whole where it stands."""
    if old == new:
        return
    if isinstance(old, dict) and isinstance(new, dict) and old.keys() == new.keys():
        for key in new:
            _changes(old[key], new[key], [*path, key], out)
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for index, (was, now) in enumerate(zip(old, new, strict=True)):
            _changes(was, now, [*path, index], out)
    else:
        out.append(f"[{_dumps(path)},{_dumps(new)}]")


class _Tab:
    """One open socket and its writer: a slot for the latest snapshot not yet sent, and the
    last one sent (what the next is sent against)."""

    def __init__(self, ws: web.WebSocketResponse) -> None:
        self.ws = ws
        self.greeted = False
        self._slot: Snapshot | str | None = None
        self._sent: Snapshot | None = None
        self._last = False
        self._ready = asyncio.Event()
        self.writer = asyncio.ensure_future(self._write())

    def offer(self, view: Snapshot) -> None:
        """Send ``view`` when the socket is free, instead of any view not yet sent."""
        if not self._last:
            self._slot = view
            self._ready.set()

    def finish(self, text: str | None) -> None:
        """Send ``text`` (if any) as the last message, then close the socket."""
        self._slot = text
        self._last = True
        self._ready.set()

    def _message(self, slot: Snapshot | str | None) -> str | None:
        if not isinstance(slot, Snapshot):
            return slot
        text = slot.whole() if self._sent is None else slot.since(self._sent)
        self._sent = slot
        return text

    async def _write(self) -> None:
        try:
            while True:
                await self._ready.wait()
                self._ready.clear()
                slot, self._slot = self._slot, None
                text = self._message(slot)
                if text is not None and not self.ws.closed:
                    await self.ws.send_str(text)
                if self._last:
                    break
        except (ConnectionError, RuntimeError):
            pass  # the tab went away: its handler ends as the socket closes
        finally:
            await self.ws.close()


class WebServer:
    """The door of one screen (:class:`Screen`), listening until :meth:`close`."""

    url: str  # http://HOST:PORT/#t=TOKEN
    token: str
    port: int

    def __init__(self, screen: Screen, host: str, readonly: bool) -> None:
        self.screen = screen
        self.host = host
        self.readonly = readonly
        self.token = secrets.token_urlsafe(32)
        self._token = self.token.encode("ascii")
        self._page: Page | None = None  # the screen's, asked for at the first request
        self._tabs: set[_Tab] = set()
        self._pending = False
        self._closing = False
        self._hosts: frozenset[str] = frozenset()
        self._runner: web.AppRunner | None = None
        self._loop = asyncio.get_running_loop()

    @classmethod
    async def start(cls, screen: Screen, host: str = "127.0.0.1", port: int = 0,
                    readonly: bool = False) -> WebServer:
        """Serve ``screen`` on ``host``:``port`` (0: a free port) with a new token; read-only,
        the browser's actions are ignored."""
        self = cls(screen, host, readonly)
        app = web.Application(middlewares=[self._door], client_max_size=MAX_MESSAGE)
        app.router.add_get("/", self._shell, allow_head=False)
        app.router.add_get("/ws", self._socket, allow_head=False)
        app.on_response_prepare.append(self._headers)
        runner = web.AppRunner(app, handle_signals=False, access_log=None, shutdown_timeout=2.0)
        await runner.setup()
        site = web.TCPSite(runner, host, port)
        try:
            await site.start()
        except BaseException:
            with contextlib.suppress(Exception):
                await runner.cleanup()
            raise
        self._runner = runner
        self.port = int(runner.addresses[0][1])
        here = host_port(host, self.port)
        hosts = {here.lower()}
        if host == "127.0.0.1":
            hosts.add(f"localhost:{self.port}")
        self._hosts = frozenset(hosts)
        self.url = f"http://{here}/#t={self.token}"
        return self

    def _host_ok(self, netloc: str | None) -> bool:
        """Whether a request's ``Host`` names this server. Bound to every address (0.0.0.0),
        the server cannot know the names it is reached by: then any IP address with its port
        will do, and no DNS name, since a name is what a rebinding attack brings."""
        if netloc is None:
            return False
        netloc = netloc.lower()
        if netloc in self._hosts:
            return True
        return (is_wildcard(self.host) and netloc.endswith(f":{self.port}") and _ip_literal(netloc))

    @web.middleware
    async def _door(self, request: web.Request,
                    handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
        """The checks every request passes, in order (the module's docstring)."""
        netloc = request.headers.get("Host")
        if not self._host_ok(netloc):
            return _plain(421)
        origin = request.headers.get("Origin")
        if origin is not None and origin.lower() != f"http://{netloc}".lower():
            return _plain(403)
        if request.path == "/ws":
            given = request.query.get("t", "").encode("utf-8", "replace")
            if origin is None or not hmac.compare_digest(given, self._token):
                return _plain(403)
        if request.method != "GET":
            return _plain(405)
        try:
            return await handler(request)
        except web.HTTPException as refused:
            return _plain(refused.status)

    async def _headers(self, request: web.Request, response: web.StreamResponse) -> None:
        """The headers of every response, a refusal's and the socket's included."""
        if self._page is None:
            try:
                self._page = self.screen.page()
            except Exception:
                _trace("page")
        # (a page that could not be built leaves the strictest policy: nothing may run)
        policy = (self._page.csp if self._page is not None else STRICTEST).strip().rstrip(";")
        if "frame-ancestors" not in policy:
            policy += "; frame-ancestors 'none'"
        response.headers["Content-Security-Policy"] = policy
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Cache-Control"] = "no-store"

    async def _shell(self, request: web.Request) -> web.Response:
        self._page = self.screen.page()
        return web.Response(text=self._page.html, content_type="text/html", charset="utf-8")

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        if self._closing:
            return _plain(403)
        ws = web.WebSocketResponse(max_msg_size=MAX_MESSAGE, heartbeat=HEARTBEAT)
        await ws.prepare(request)
        tab = _Tab(ws)
        self._tabs.add(tab)
        try:
            async for message in ws:
                if message.type == WSMsgType.TEXT:
                    await self._heard(tab, message.data)
        finally:
            self._tabs.discard(tab)
            tab.finish(None)
            with contextlib.suppress(asyncio.CancelledError):
                await tab.writer
        return ws

    async def _heard(self, tab: _Tab, text: str) -> None:
        """One message from a tab: a hello, an action for the screen, or nothing."""
        try:
            message = json.loads(text)
        except (ValueError, RecursionError):
            return
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            return
        if message["type"] == "hello":
            if tab.greeted:
                return
            langs = message.get("langs")
            langs = [lang for lang in langs[:MAX_LANGS] if isinstance(lang, str) and len(lang) <= MAX_LANG
                     ] if isinstance(langs, list) else []
            try:
                self.screen.hello(langs)
            except Exception:
                _trace("hello")
            tab.greeted = True
            view = self._view()
            if view is not None:
                tab.offer(view)
            return
        if not tab.greeted or self.readonly or self._closing:
            return
        try:
            await self.screen.act(message)
        except Exception:
            _trace("act")

    def _view(self) -> Snapshot | None:
        """The screen's view now, or None if building it failed (said on stderr)."""
        try:
            return Snapshot.of(self.screen.snapshot())
        except Exception:
            _trace("snapshot")
            return None

    def changed(self) -> None:
        """The view changed: every greeted tab gets the new snapshot. Calls in one turn of the
        event loop make one snapshot, built once the turn is over."""
        if not self._pending and not self._closing:
            self._pending = True
            self._loop.call_soon(self._push)

    def _push(self) -> None:
        self._pending = False
        tabs = [tab for tab in self._tabs if tab.greeted]
        if not tabs or self._closing:
            return
        view = self._view()
        if view is not None:
            for tab in tabs:
                tab.offer(view)

    async def close(self, text: str | None = None) -> None:
        """Say bye (``text``, for the page to show) to every tab, close the sockets and stop
        listening."""
        self._closing = True
        bye = json.dumps({"type": "bye", "text": text}, ensure_ascii=False)
        tabs = list(self._tabs)
        for tab in tabs:
            tab.finish(bye)
        if tabs:
            await asyncio.wait([tab.writer for tab in tabs], timeout=BYE_WITHIN)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None


def _trace(what: str) -> None:
    """An error inside the screen, for the developer: the socket stays up."""
    print(f"p2p10 web: the screen's {what} failed:", file=sys.stderr)
    traceback.print_exc(file=sys.stderr)
