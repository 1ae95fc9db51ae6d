/* Loading the core of a phone's seat: our own p2p10 package (core.zip, from the machine that
   served the page) in Pyodide, its ristretto255 and Ed25519 from libsodium in WebAssembly
   (sodium.mjs), msgpack in pure Python. The page runs it in a Web Worker (core-worker.mjs), so
   that it answers taps while the core works; the benchmarks load it on the page's own thread
   too, where DevTools' CPU throttling reaches (it does not reach a dedicated worker).

   Pyodide starting is most of the time a page takes to be ready (7.7 s of 8 s on a 4x slower
   CPU, from the browser's cache). So the first start saves a memory snapshot of the interpreter
   just started (Pyodide's makeMemorySnapshot: nothing of ours in it yet, no key, no card) in the
   browser's IndexedDB, under Pyodide's version; later starts restore it (0.6 s at 4x). A
   snapshot that does not restore is dropped, and Pyodide starts as the first time. */

const SNAPSHOTS = "p2p10-pyodide";  /* the IndexedDB database: one store, snapshots by version */

function database() {
  return new Promise((resolve, reject) => {
    const opening = indexedDB.open(SNAPSHOTS, 1);
    opening.onupgradeneeded = () => opening.result.createObjectStore("snapshots");
    opening.onsuccess = () => resolve(opening.result);
    opening.onerror = () => reject(opening.error);
  });
}

async function snapshotStore(mode, act) {
  const db = await database();
  try {
    return await new Promise((resolve, reject) => {
      const request = act(db.transaction("snapshots", mode).objectStore("snapshots"));
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
  } finally {
    db.close();
  }
}

const savedSnapshot = () => snapshotStore("readonly", (store) => store.get(version)).catch(() => undefined);
const saveSnapshot = (bytes) => snapshotStore("readwrite", (store) => store.put(bytes, version));
const dropSnapshot = () => snapshotStore("readwrite", (store) => store.delete(version)).catch(() => undefined);

/* Pyodide, from its snapshot if this browser keeps one (and saving one if not). */
async function startPyodide(indexURL) {
  const snapshot = typeof indexedDB === "undefined" ? undefined : await savedSnapshot();
  if (snapshot) {
    try {
      const pyodide = await loadPyodide({ indexURL, _loadSnapshot: snapshot });
      startedFrom.how = "snapshot";
      return pyodide;
    } catch (error) {
      startedFrom.how = "start (a snapshot dropped: " + String(error && error.message || error) + ")";
      await dropSnapshot();
    }
  }
  if (!startedFrom.how) { startedFrom.how = "start"; }
  const pyodide = await loadPyodide({ indexURL, _makeSnapshot: typeof indexedDB !== "undefined" });
  if (typeof indexedDB !== "undefined") {
    /* saved while the page goes on (31 MB take a moment to write); a page that cannot save one
       (no room, a private window) simply starts anew the next time */
    try {
      saveSnapshot(pyodide.makeMemorySnapshot()).catch(() => undefined);
    } catch (error) { /* (the same) */ }
  }
  return pyodide;
}

import { loadPyodide, version } from "../vendor/pyodide/pyodide.mjs";
import { loadSodium } from "./sodium.mjs";

async function fetched(url) {
  const response = await fetch(url);
  if (!response.ok) { throw new Error(url + ": " + response.status + " " + response.statusText); }
  return response.arrayBuffer();
}

/* Pyodide with the core on its path and the primitives registered; resolves once
   p2p10.primitives imports (so a broken download or a missing export shows here). */
export const loadTimes = {};  /* milliseconds from the start of loadCore to each step's end */
export const startedFrom = { how: null };  /* "snapshot", or "start" (Pyodide started anew) */

export async function loadCore() {
  const start = performance.now();
  const step = (name) => (value) => { loadTimes[name] = performance.now() - start; return value; };
  const [pyodide, sodium, core] = await Promise.all([
    startPyodide(new URL("../vendor/pyodide/", import.meta.url).href).then(step("pyodide")),
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
