/* Loading the core of a phone's seat: our own p2p10 package (core.zip, from the machine that
   served the page) in Pyodide, its ristretto255 and Ed25519 from libsodium in WebAssembly
   (sodium.mjs), msgpack in pure Python. The page runs it in a Web Worker (core-worker.mjs), so
   that it answers taps while the core works; the benchmarks load it on the page's own thread
   too, where DevTools' CPU throttling reaches (it does not reach a dedicated worker). */

import { loadPyodide } from "../vendor/pyodide/pyodide.mjs";
import { loadSodium } from "./sodium.mjs";

async function fetched(url) {
  const response = await fetch(url);
  if (!response.ok) { throw new Error(url + ": " + response.status + " " + response.statusText); }
  return response.arrayBuffer();
}

/* Pyodide with the core on its path and the primitives registered; resolves once
   p2p10.primitives imports (so a broken download or a missing export shows here). */
export const loadTimes = {};  /* milliseconds from the start of loadCore to each step's end */

export async function loadCore() {
  const start = performance.now();
  const step = (name) => (value) => { loadTimes[name] = performance.now() - start; return value; };
  const [pyodide, sodium, core] = await Promise.all([
    loadPyodide({ indexURL: new URL("../vendor/pyodide/", import.meta.url).href }).then(step("pyodide")),
    loadSodium(new URL("../vendor/libsodium/libsodium-sumo.mjs", import.meta.url).href).then(step("sodium")),
    fetched(new URL("./core.zip", import.meta.url).href).then(step("archive")),
  ]);
  pyodide.registerJsModule("p2p10_sodium", sodium);
  pyodide.unpackArchive(core, "zip", { extractDir: "/core" });
  step("unpacked")();
  pyodide.runPython("import sys\nsys.path.insert(0, '/core')\nimport p2p10.primitives");
  step("imported")();
  return pyodide;
}
