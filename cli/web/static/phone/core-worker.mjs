/* The core of a phone's seat in a Web Worker (core-load.mjs loads it), so that the page answers
   taps while it works.

   Messages in: {id, code} runs Python source (its last expression, a string, is the answer);
   {act: text} is a message of the page's table.js (a key, a tap) for the seat the page shows
   (cli/web/page_seat.py).
   Messages out: {id, ok: true, value} or {id, ok: false, error}; {table: text}, a view for the
   page to draw; {ready: true, seconds} once the core is loaded, {ready: false, error} if it
   cannot be. */

import { loadCore } from "./core-load.mjs";

const started = performance.now();
const ready = loadCore().then((pyodide) => {
  /* how the seat's Python gives the page a view: import p2p10_page; p2p10_page.post(text) */
  pyodide.registerJsModule("p2p10_page", { post: (text) => self.postMessage({ table: String(text) }) });
  return pyodide;
});
let act = null;

ready.then(
  () => self.postMessage({ ready: true, seconds: (performance.now() - started) / 1000 }),
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
