/* A phone's page: the table drawn by table.js, the seat played by our own core in a Web Worker
   (phone/core-worker.mjs), not by a server. This script runs before table.js and gives it its
   transport (P2P10.transport): views come from the worker, keys and taps go to it. What the
   page plays is in its data ({"phone": {...}}): "solo", a game against bots in the page.
   Plain script, no modules, no eval. */
window.P2P10 = window.P2P10 || {};
(function (P2P10) {
  "use strict";
  var shell = JSON.parse(document.getElementById("p2p10-data").textContent || "{}");
  var settings = shell.phone || {};
  var worker = null;
  var listener = null;
  var waiting = {};
  var next = 0;

  function run(code) {
    next += 1;
    var id = next;
    return new Promise(function (resolve) { waiting[id] = resolve; worker.postMessage({ id: id, code: code }); });
  }

  P2P10.transport = {
    start: function (onMessage, onStatus) {
      listener = onMessage;
      worker = new Worker("/phone/core-worker.mjs", { type: "module" });
      worker.addEventListener("message", function (event) {
        var data = event.data || {};
        if (typeof data.table === "string") {
          var message;
          try { message = JSON.parse(data.table); } catch (err) { return; }
          if (listener) { listener(message); }
        } else if ("ready" in data) {
          P2P10.coreReady = data;
          if (!data.ready) { onStatus("failed", data.error); return; }
          /* the settings cross as JSON text, read by json.loads: never code */
          run("import json\nfrom cli.web.page_seat import start\nfrom p2p10_page import persist, post\n"
              + "start(post, json.loads(" + JSON.stringify(JSON.stringify(settings)) + "), persist)\n'started'")
            .then(function (done) { if (!done.ok) { onStatus("failed", done.error); } });
        } else if (data.id && waiting[data.id]) {
          waiting[data.id](data);
          delete waiting[data.id];
        }
      });
      worker.addEventListener("error", function (event) { onStatus("failed", event.message); });
    },
    send: function (message) {
      if (worker) { worker.postMessage({ act: JSON.stringify(message) }); }
    },
    run: function (code) { return run(code); },
  };
})(window.P2P10);
