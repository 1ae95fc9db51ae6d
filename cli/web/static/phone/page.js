/* A phone's page: the table drawn by table.js, the seat played by our own core in a Web Worker
   (phone/core-worker.mjs), not by a server. This script runs before table.js and gives it its
   transport (P2P10.transport): views come from the worker, keys and taps go to it. What the
   page plays is in its data ({"phone": {...}}): "solo", a game against bots in the page. It
   keeps the screen on while the page is at the table (P2P10.awake).
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

  /* The screen kept on from the player's first tap (a browser allows it only after a gesture):
     the Screen Wake Lock where the browser offers it, else a silent looping video (NoSleep.js,
     vendored); asked again whenever the page is shown again (a lock is let go when it hides).
     P2P10.awake says what was asked and whether it holds. */
  P2P10.awake = { asked: false, how: null, on: false, why: null };
  function keepAwake() {
    if (typeof window.NoSleep !== "function") { P2P10.awake.why = "no NoSleep"; return; }
    var keeper = keepAwake.keeper || (keepAwake.keeper = new window.NoSleep());
    P2P10.awake.asked = true;
    P2P10.awake.how = "wakeLock" in navigator ? "wake lock" : "video";
    keeper.enable().then(function () { P2P10.awake.on = true; P2P10.awake.why = null; },
                         function (err) { P2P10.awake.on = false; P2P10.awake.why = String(err && err.name || err); });
  }
  function firstTap() {
    document.removeEventListener("pointerdown", firstTap, true);
    document.removeEventListener("keydown", firstTap, true);
    keepAwake();
  }
  document.addEventListener("pointerdown", firstTap, true);
  document.addEventListener("keydown", firstTap, true);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible" && P2P10.awake.asked) { keepAwake(); }
  });

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
