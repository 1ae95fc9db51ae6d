/* The core of a phone's seat in a Web Worker (core-load.mjs loads it), so that the page answers
   taps while it works; the seat's files kept in the browser's IndexedDB.

   Messages in: {id, code} runs Python source (its last expression, a string, is the answer);
   {act: text} is a message of the page's table.js (a key, a tap) for the seat the page shows
   (cli/web/page_seat.py).
   Messages out: {id, ok: true, value} or {id, ok: false, error}; {table: text}, a view for the
   page to draw; {ready: true, seconds, from} once the core is loaded ("snapshot": Pyodide
   restored from this browser's memory snapshot; "start"), {ready: false, error} if it cannot be. */

import { loadCore, startedFrom } from "./core-load.mjs";

const started = performance.now();
const SAVED = "/home/pyodide/games";  /* the seat's files: kept in the browser's IndexedDB */

/* The page's own files, in IndexedDB (Emscripten's IDBFS): written to it a moment after each
   change (at most one write at a time, and one more if a change came meanwhile), read back when
   the page opens, so that a reload or a phone that slept finds its seat's keys and log. */
function keeper(FS) {
  let writing = null;
  let again = false;
  function write() {
    writing = new Promise((resolve) => FS.syncfs(false, (error) => {
      if (error) { self.postMessage({ error: "saving in the browser failed: " + error }); }
      resolve();
    })).then(() => {
      writing = null;
      if (again) { again = false; write(); }
    });
  }
  return () => { if (writing) { again = true; } else { write(); } };
}

const ready = loadCore().then(async (pyodide) => {
  const FS = pyodide.FS;
  FS.mkdirTree(SAVED);
  FS.mount(FS.filesystems.IDBFS, {}, SAVED);
  await new Promise((resolve, reject) => FS.syncfs(true, (error) => (error ? reject(error) : resolve())));
  /* how the seat's Python gives the page a view (post) and keeps its files (persist) */
  pyodide.registerJsModule("p2p10_page", {
    post: (text) => self.postMessage({ table: String(text) }),
    persist: keeper(FS),
  });
  return pyodide;
});
let act = null;

ready.then(
  () => self.postMessage({ ready: true, seconds: (performance.now() - started) / 1000, from: startedFrom.how }),
  (error) => self.postMessage({ ready: false, error: String(error && error.stack || error) }));

self.onmessage = async (event) => {
  const data = event.data || {};
  if (typeof data.act === "string") {
    const pyodide = await ready;
    if (!act) { act = pyodide.runPython("from cli.web.page_seat import act\nact"); }
    try { act(data.act); } catch (error) { self.postMessage({ error: String(error && error.message || error) }); }
    return;
  }
  const { id, code } = data;
  try {
    const pyodide = await ready;
    const value = await pyodide.runPythonAsync(String(code));
    self.postMessage({ id, ok: true, value: typeof value === "string" ? value : String(value) });
  } catch (error) {
    self.postMessage({ id, ok: false, error: String(error && error.message || error) });
  }
};
