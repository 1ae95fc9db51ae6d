/* The core of a phone's seat, in a Web Worker so that the page answers taps while it works:
   our own p2p10 package (core.zip, from the machine that served the page) in Pyodide, its
   ristretto255 and Ed25519 from libsodium in WebAssembly (sodium.mjs), msgpack in pure Python.

   Messages in: {id, code} runs Python source (its last expression, a string, is the answer).
   Messages out: {id, ok: true, value} or {id, ok: false, error}; {ready: true, seconds} once the
   core is loaded, {ready: false, error} if it cannot be. */

import { loadPyodide } from "../vendor/pyodide/pyodide.mjs";
import { loadSodium } from "./sodium.mjs";

const started = performance.now();

async function fetched(url) {
  const response = await fetch(url);
  if (!response.ok) { throw new Error(url + ": " + response.status + " " + response.statusText); }
  return response.arrayBuffer();
}

const ready = (async () => {
  const [pyodide, sodium, core] = await Promise.all([
    loadPyodide({ indexURL: new URL("../vendor/pyodide/", import.meta.url).href }),
    loadSodium(new URL("../vendor/libsodium/libsodium-sumo.mjs", import.meta.url).href),
    fetched(new URL("./core.zip", import.meta.url).href),
  ]);
  pyodide.registerJsModule("p2p10_sodium", sodium);
  pyodide.unpackArchive(core, "zip", { extractDir: "/core" });
  pyodide.runPython("import sys\nsys.path.insert(0, '/core')\nimport p2p10.primitives");
  return pyodide;
})();

ready.then(
  () => self.postMessage({ ready: true, seconds: (performance.now() - started) / 1000 }),
  (error) => self.postMessage({ ready: false, error: String(error && error.stack || error) }));

self.onmessage = async (event) => {
  const { id, code } = event.data || {};
  try {
    const pyodide = await ready;
    const value = await pyodide.runPythonAsync(String(code));
    self.postMessage({ id, ok: true, value: typeof value === "string" ? value : String(value) });
  } catch (error) {
    self.postMessage({ id, ok: false, error: String(error && error.message || error) });
  }
};
