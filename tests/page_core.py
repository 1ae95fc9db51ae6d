"""A page that loads the core of a phone's seat, for the tests and the benchmarks: the phone's
files as a machine at the table serves them (:class:`cli.web.phone_files.PhoneFiles`, under the
phone page's Content-Security-Policy), and a harness page that starts the core and lets selenium
run Python in it (:func:`run`).

``/`` loads the core in a Web Worker, as the phone's page does; ``/?main`` loads it on the page's
own thread, where DevTools' CPU throttling reaches (a benchmark's 4x "mid-range phone"). Other
pages (a phone's, :func:`cli.web.phone_files.phone_page`) are served at the addresses given.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from aiohttp import web

from cli.web.page import Page
from cli.web.phone_files import PHONE_CSP, PhoneFiles

HARNESS_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>core</title>
<script type="module" src="/harness.mjs"></script></head><body></body></html>"""

# The page's side: the core started (in a worker, or on this thread with ?main), and
# window.core.run(code) answering {ok, value} or {ok: false, error}.
HARNESS = """
import { loadCore, loadTimes, startedFrom } from "/phone/core-load.mjs";
const started = performance.now();
window.coreLoadTimes = loadTimes;  /* (on the page's thread only: a worker keeps its own) */
window.coreStartedFrom = startedFrom;
if (location.search === "?main") {
  const ready = loadCore();
  window.coreReady = ready.then(() => ({ ready: true, seconds: (performance.now() - started) / 1000 }),
                                (error) => ({ ready: false, error: String(error) }));
  window.core = {
    async run(code) {
      try { return { ok: true, value: String(await (await ready).runPythonAsync(code)) }; }
      catch (error) { return { ok: false, error: String(error && error.message || error) }; }
    },
  };
} else {
  const worker = new Worker("/phone/core-worker.mjs", { type: "module" });
  const waiting = new Map();
  let next = 0;
  window.coreReady = new Promise((resolve) => {
    worker.addEventListener("message", (event) => {
      const data = event.data;
      if ("ready" in data) { resolve(data); return; }
      const done = waiting.get(data.id);
      waiting.delete(data.id);
      if (done) { done(data); }
    });
  });
  window.core = {
    run(code) {
      next += 1;
      const id = next;
      return new Promise((resolve) => { waiting.set(id, resolve); worker.postMessage({ id, code }); });
    },
  };
}
"""


class Server:
    """The phone's files (with ``extra`` files in the core's archive) and the harness page,
    served on 127.0.0.1 from a thread of its own; :meth:`stop` ends it."""

    def __init__(self, extra: Iterable[str] = (), pages: Mapping[str, Page] | None = None) -> None:
        self.extra = list(extra)
        self.pages = dict(pages or {})
        self.loop = asyncio.new_event_loop()
        self.started = threading.Event()
        self.url = ""
        self.phone_files: PhoneFiles | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        assert self.started.wait(60), "the server did not start"

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        app = web.Application()
        self.phone_files = PhoneFiles(self.extra)
        self.phone_files.add_routes(app)

        async def page(_request: web.Request) -> web.Response:
            return web.Response(text=HARNESS_PAGE, content_type="text/html",
                                headers={"Content-Security-Policy": PHONE_CSP})

        async def harness(_request: web.Request) -> web.Response:
            return web.Response(text=HARNESS, content_type="text/javascript")

        app.router.add_get("/", page)
        app.router.add_get("/harness.mjs", harness)
        for address, built in self.pages.items():
            app.router.add_get(address, _serving(built))
        self.runner = web.AppRunner(app)
        self.loop.run_until_complete(self.runner.setup())
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        self.loop.run_until_complete(site.start())
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}/"
        self.started.set()
        self.loop.run_forever()

    def stop(self) -> None:
        async def down() -> None:
            await self.runner.cleanup()

        asyncio.run_coroutine_threadsafe(down(), self.loop).result(60)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(60)


def _serving(built: Page) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def serve(_request: web.Request) -> web.Response:
        return web.Response(text=built.html, content_type="text/html",
                            headers={"Content-Security-Policy": built.csp})
    return serve


def ready(driver: Any) -> dict[str, Any]:
    """Wait for the page's core: ``{"ready": True, "seconds": ...}`` or why it failed."""
    result: dict[str, Any] = driver.execute_async_script(
        "window.coreReady.then(arguments[arguments.length - 1])")
    return result


def run(driver: Any, code: str) -> Any:
    """Python ``code`` run in the page's core; its last expression, a JSON string, decoded."""
    done = driver.execute_async_script(
        "window.core.run(arguments[0]).then(arguments[arguments.length - 1])", code)
    assert done["ok"], done.get("error")
    return json.loads(done["value"])
