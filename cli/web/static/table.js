/* p2p10's table page: draws the view Python pushes over the websocket, and sends back the
   keys the terminal reads and the clicks its mouse takes. It knows no rule: what is legal, the
   hint, the questions and every sentence come from Python (cli/web/table_screen.py). A
   read-only view (p2p10 watch --web) is drawn the same way, without hand, keys or questions. */
(function (P2P10) {
  "use strict";
  var shell = JSON.parse(document.getElementById("p2p10-data").textContent || "{}");
  var words = shell.words || {};
  var view = null;
  var socket = null;
  var dragged = null;
  var drawn = 0;
  var lastDrawn = null;
  var KEY_NAMES = { ArrowLeft: "←", ArrowRight: "→", ArrowUp: "↑", ArrowDown: "↓", Enter: "Enter",
    Escape: "Esc", " ": "Space", Home: "home", End: "end", PageUp: "pageup", PageDown: "pagedown",
    Tab: "Tab" };
  var MOVING_KEYS = ["←→", "Space", "↑↓", "Home/End"];

  function word(key, fallback) { return (view && view.words && view.words[key]) || words[key] || fallback; }

  function node(tag, attrs, parent, text) {
    var element = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) { element.setAttribute(key, attrs[key]); });
    if (text !== undefined && text !== null) { element.textContent = text; }
    if (parent) { parent.appendChild(element); }
    return element;
  }

  function send(message) {
    if (socket && socket.readyState === WebSocket.OPEN && !(view && view.readonly)) {
      socket.send(JSON.stringify(message));
    }
  }

  function clear(element) { while (element.firstChild) { element.removeChild(element.firstChild); } return element; }

  function toned(parent, parts) {
    (parts || []).forEach(function (part) {
      var span = node("span", { "class": "tone " + (part.tone || "").split(" ").map(function (t) {
        return t ? "tone-" + t.replace(/[^a-z0-9-]/gi, "-") : ""; }).join(" ") }, parent, part.text);
      return span;
    });
  }

  /* ------------------------------------------------------------------ the parts */

  function drawSeat(seat, parent) {
    var box = node("section", { "class": "seat panel" + (seat.turn ? " turn" : "") + (seat.me ? " me" : ""),
      "data-seat": String(seat.seat), "aria-label": seat.name }, parent);
    var head = node("div", { "class": "seat-head" }, box);
    if (seat.turn) { node("span", { "class": "turn-mark", "aria-hidden": "true" }, head, "▶"); }
    node("span", { "class": "name" }, head, seat.name);
    if (seat.phase !== null && seat.phase !== undefined) {
      node("span", { "class": "chip" + (seat.down ? " down" : ""), title: seat.phase_words },
        head, "P" + seat.phase + (seat.down ? " ✓" : ""));
    }
    if (seat.cards !== null && seat.cards !== undefined) {
      node("span", { "class": "count" }, head, seat.cards_text);
    }
    node("span", { "class": "points" }, head, seat.points_text);
    if (seat.skips_text) { node("span", { "class": "tone-warn" }, head, seat.skips_text); }
    if (seat.away) { node("span", { "class": "tone-warn away" }, head, seat.away); }
    if (seat.phase_words && seat.phase !== null && seat.me) {
      node("div", { "class": "dim phase-words" }, box, seat.phase_words);
    }
    if (seat.melds && seat.melds.length) {
      var melds = node("div", { "class": "melds" }, box);
      seat.melds.forEach(function (meld) {
        var button = node(view.readonly ? "div" : "button", { "class": "meld", "data-meld": String(meld.id),
          "aria-label": meld.letter + ": " + meld.name }, melds);
        node("span", { "class": "meld-name" }, button, meld.letter + " " + meld.name);
        var cards = node("span", { "class": "meld-cards" }, button);
        meld.cards.forEach(function (card) { cards.appendChild(P2P10.card(card, { small: true })); });
        if (!view.readonly) { button.addEventListener("click", function () { send({ type: "meld", id: meld.id }); }); }
      });
    }
    return box;
  }

  function drawPiles(parent) {
    var piles = node("section", { "class": "piles", "aria-label": word("draw_pile", "Draw pile") }, parent);
    if (view.dealing) {
      var done = view.dealing[0], total = view.dealing[1];
      node("progress", { max: String(total), value: String(done), "aria-label": view.title }, piles);
      return;
    }
    if (!view.piles) { return; }
    var draw = node(view.readonly ? "div" : "button", { "class": "pile draw", "data-pile": "draw" }, piles);
    draw.appendChild(P2P10.back(word("draw_pile", "Draw pile") + ": " + view.piles.stock));
    node("span", { "class": "pile-label" }, draw, word("draw_pile", "Draw pile") + " · " + view.piles.stock);
    var discard = node(view.readonly ? "div" : "button", { "class": "pile discard" + (view.piles.takeable ? " takeable" : ""),
      "data-pile": "discard" }, piles);
    if (view.piles.top) {
      discard.appendChild(P2P10.card(view.piles.top));
    } else {
      node("span", { "class": "empty-pile" }, discard, word("empty", "empty"));
    }
    node("span", { "class": "pile-label" }, discard, word("discard_pile", "Discard pile"));
    if (!view.readonly) {
      draw.addEventListener("click", function () { send({ type: "pile", pile: "draw" }); });
      discard.addEventListener("click", function () { send({ type: "pile", pile: "discard" }); });
      discard.addEventListener("dragover", function (event) { event.preventDefault(); discard.classList.add("drop"); });
      discard.addEventListener("dragleave", function () { discard.classList.remove("drop"); });
      discard.addEventListener("drop", function (event) {
        event.preventDefault();
        discard.classList.remove("drop");
        if (dragged !== null) { send({ type: "discard", slot: dragged }); dragged = null; }
      });
    }
  }

  function drawHand(parent) {
    var hand = view.hand;
    if (!hand || !hand.cards.length) { return; }
    var box = node("section", { "class": "hand", "aria-label": word("your_hand", "Your hand") }, parent);
    var sorts = node("div", { "class": "sorts" }, box);
    [["number", word("by_number", "Sort by number")], ["colour", word("by_colour", "Sort by colour")]].forEach(function (pair) {
      var on = (pair[0] === "colour") === hand.by_colour;
      var button = node("button", { "class": "sort" + (on ? " on" : ""), "aria-pressed": on ? "true" : "false",
        "data-sort": pair[0] }, sorts, pair[1]);
      button.addEventListener("click", function () { send({ type: "sort", by: pair[0] }); });
    });
    var cards = node("ul", { "class": "cards", role: "list" }, box);
    hand.cards.forEach(function (entry) {
      var item = node("li", { "class": "slot" + (entry.fit ? " fit" : "") + (entry.raised ? " raised" : "") +
        (entry.cursor ? " cursor" : ""), "data-slot": String(entry.slot) }, cards);
      var button = node("button", { "class": "card-button", draggable: "true", "aria-label": entry.card.words,
        "aria-pressed": entry.raised ? "true" : "false", "data-card": entry.card.text }, item);
      button.appendChild(P2P10.card(entry.card));
      button.addEventListener("click", function () { send({ type: "card", slot: entry.slot }); });
      button.addEventListener("dblclick", function () { send({ type: "discard", slot: entry.slot }); });
      button.addEventListener("dragstart", function (event) {
        dragged = entry.slot;
        if (event.dataTransfer) { event.dataTransfer.setData("text/plain", entry.card.text); }
      });
    });
    for (var i = 0; i < (hand.coming || 0); i++) {
      var coming = node("li", { "class": "slot coming" }, cards);
      coming.appendChild(P2P10.back(hand.line || "?"));
    }
    if (hand.line) { node("p", { "class": "dim hand-line" }, box, hand.line); }
  }

  function drawPrompt(parent) {
    var prompt = view.prompt;
    var box = node("div", { "class": "prompt", role: "group", "aria-live": "polite" }, parent);
    if (!prompt) { box.hidden = true; return; }
    node("p", { "class": "question tone-warn" }, box, prompt.question);
    var choices = node("div", { "class": "choices" }, box);
    prompt.choices.forEach(function (choice, index) {
      var button = node("button", { "class": "choice" + (index === prompt.index ? " current" : ""),
        "data-index": String(index), "data-key": choice.key }, choices, choice.key + "  " + choice.label);
      button.addEventListener("click", function () { send({ type: "pick", index: index }); });
    });
  }

  function drawKeys(parent) {
    var box = node("nav", { "class": "keys" }, parent);
    (view.keys || []).forEach(function (item) {
      if (MOVING_KEYS.indexOf(item.key) >= 0) { return; }
      var button = node("button", { "class": "key", "data-key": item.key, title: item.key }, box);
      node("kbd", {}, button, item.key);
      node("span", {}, button, " " + item.label);
      if (!item.enabled) { button.disabled = true; }
      button.addEventListener("click", function () {
        if (item.key === "c" && chatShown()) { document.getElementById("chat-line").focus(); return; }
        send({ type: "key", key: item.key });
      });
    });
  }

  function drawLog(parent) {
    var box = node("section", { "class": "log panel", "aria-label": word("moves", "Moves") }, parent);
    node("h2", {}, box, word("moves", "Moves"));
    var list = node("ol", { "class": "log-lines" }, box);
    (view.log || []).slice(-200).forEach(function (line) {
      node("li", { "class": "log-" + line.kind }, list, line.text);
    });
    var chat = chatForm();
    chat.hidden = !(view.keys && view.keys.some(function (k) { return k.key === "c"; }));
    return list;
  }

  /* The chat line lives outside the part of the page drawn again for each view, so that a line
     being typed keeps its text and its focus while the table moves on. */
  function chatShown() {
    var form = document.getElementById("chat");
    return Boolean(form && !form.hidden);
  }

  function chatForm() {
    var form = document.getElementById("chat");
    if (form) { return form; }
    form = node("form", { id: "chat", "class": "chat panel", hidden: "hidden" }, document.body);
    var input = node("input", { id: "chat-line", type: "text", maxlength: "200", "aria-label": word("chat", "Chat"),
      placeholder: word("chat", "Chat") }, form);
    node("button", { type: "submit" }, form, word("send", "Send"));
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (input.value.trim()) { send({ type: "chat", text: input.value }); }
      input.value = "";
    });
    return form;
  }

  function drawSheet(parent) {
    var sheet = view.sheet;
    if (!sheet) { return; }
    var box = node("section", { "class": "sheet panel", "aria-label": word("score_sheet", "Score sheet") }, parent);
    node("h2", {}, box, word("score_sheet", "Score sheet"));
    var wrap = node("div", { "class": "sheet-wrap" }, box);
    var table = node("table", {}, wrap);
    var headRow = node("tr", {}, node("thead", {}, table));
    node("th", { scope: "col" }, headRow, sheet.heads[0]);
    sheet.names.forEach(function (name) { node("th", { scope: "col" }, headRow, name); });
    var body = node("tbody", {}, table);
    var rows = sheet.hands.concat([sheet.totals, sheet.made]);
    rows.forEach(function (row, index) {
      var tr = node("tr", { "class": index >= sheet.hands.length ? "total" : "" }, body);
      node("th", { scope: "row" }, tr, sheet.heads[index + 1]);
      row.forEach(function (cell) { node("td", {}, tr, cell); });
    });
    node("p", { "class": "dim legend" }, box, sheet.legend);
  }

  function drawPanel(parent) {
    if (!view.panel) { return; }
    var box = node("section", { "class": "side-screen panel", role: "dialog", "aria-modal": "false",
      "data-screen": view.screen }, parent);
    var text = node("div", { "class": "side-text" }, box);
    view.panel.forEach(function (line) {
      var row = node("div", { "class": "side-line" }, text);
      if (!line.length) { row.textContent = "\u00a0"; }
      toned(row, line);
    });
    if (view.chart) {
      var chart = node("div", { "class": "chart" }, box);
      chart.innerHTML = view.chart; /* an SVG built by Python (cli/web/charts.py), names escaped there */
    }
  }

  function drawVerdict(parent) {
    if (!view.verdict) { return; }
    var box = node("div", { "class": "verdict verdict-" + String(view.verdict.word).toLowerCase(), role: "status" }, parent);
    node("strong", {}, box, view.verdict.word);
    node("span", {}, box, " " + view.verdict.text);
  }

  function appRoot() {
    var root = document.getElementById("app");
    if (!root) { root = node("div", { id: "app" }); document.body.insertBefore(root, document.body.firstChild); }
    return root;
  }

  function render() {
    var root = clear(appRoot());
    document.body.setAttribute("data-page", view.page || "table");
    document.body.setAttribute("data-screen", view.screen || "table");
    if (view.lang) { document.documentElement.lang = view.lang; }
    var top = node("header", { "class": "top" }, root);
    node("h1", { "class": "title", "aria-live": "polite" }, top, view.title || "p2p10");
    drawVerdict(top);
    var status = node("p", { "class": "status", role: "status" }, top);
    (view.status || []).forEach(function (part) {  /* fragments, or lines of them */
      if (Array.isArray(part)) { toned(status, part); node("br", {}, status); } else { toned(status, [part]); }
    });
    var table = node("main", { "class": "table" }, root);
    var others = node("div", { "class": "others" }, table);
    var mine = null;
    (view.seats || []).forEach(function (seat) {
      if (seat.me) { mine = seat; } else { drawSeat(seat, others); }
    });
    drawPiles(table);
    if (mine) { drawSeat(mine, table); }
    drawHand(table);
    drawPrompt(table);
    drawPanel(table);
    drawKeys(table);
    var side = node("aside", { "class": "side" }, root);
    drawSheet(side);
    var log = drawLog(side);
    log.scrollTop = log.scrollHeight;
  }

  /* ------------------------------------------------------------------ the socket */

  function say(text) {
    var root = clear(appRoot());
    node("p", { "class": "notice panel", role: "alert" }, root, text);
  }

  /* How many characters of the side screens' text fit a line: the side screen's own width
     where one is shown, else the page's less its margins. Python lays the text out to it. */
  function columns() {
    var holder = document.querySelector(".side-text") || document.body;
    var probe = node("span", { "class": "probe" }, holder, "0000000000");
    var width = probe.getBoundingClientRect().width / 10 || 8;
    holder.removeChild(probe);
    var room = holder === document.body ? document.documentElement.clientWidth - 60 : holder.clientWidth - 4;
    return Math.max(24, Math.min(200, Math.floor(room / width)));
  }

  function connect() {
    var match = /[#&]t=([A-Za-z0-9_-]+)/.exec(location.hash);
    var token = match ? match[1] : sessionStorage.getItem("p2p10-token");
    if (!token) { say(word("refused", "This page needs the address p2p10 printed, with its key.")); return; }
    sessionStorage.setItem("p2p10-token", token);
    if (match) { history.replaceState(null, "", location.pathname); } /* the key leaves the address bar */
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    socket = new WebSocket(scheme + location.host + "/ws?t=" + encodeURIComponent(token));
    var opened = false;
    socket.addEventListener("open", function () {
      opened = true;
      socket.send(JSON.stringify({ type: "hello", langs: navigator.languages || [navigator.language] }));
      socket.send(JSON.stringify({ type: "size", columns: columns() }));
    });
    socket.addEventListener("message", function (event) {
      var message;
      try { message = JSON.parse(event.data); } catch (err) { return; }
      if (message.type === "view") {
        var same = JSON.stringify(Object.assign({}, message.view, { v: 0 }));
        if (same === lastDrawn) { return; } /* the clock's redraw, with nothing new to show */
        lastDrawn = same;
        view = message.view;
        words = view.words || words;
        if (view.page === "start" && P2P10.drawStart) {
          document.body.setAttribute("data-page", "start");
          P2P10.drawStart(clear(appRoot()), view, send);
        } else if (view.page === "wait") {
          document.body.setAttribute("data-page", "wait");
          say(view.text);
        } else {
          render();
        }
        drawn += 1;
        document.body.setAttribute("data-version", String(drawn)); /* views drawn so far (tests wait on it) */
      } else if (message.type === "bye") {
        say((message.text ? message.text + " " : "") + word("gone", "p2p10 has stopped."));
        socket = null;
      }
    });
    socket.addEventListener("close", function () {
      if (!opened) { say(word("refused", "This page needs the address p2p10 printed, with its key.")); }
      else if (socket) { say(word("gone", "p2p10 has stopped.")); }
    });
  }

  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA")) {
      if (event.key === "Escape") { target.blur(); }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    var key = KEY_NAMES[event.key] || (event.key.length === 1 ? event.key : null);
    if (!key || !view || view.readonly) { return; }
    if (key === "c" && chatShown()) {
      event.preventDefault();
      document.getElementById("chat-line").focus();
      return;
    }
    if (key === "Space" || key === "Enter") {
      /* Space and Enter on a focused button click it; elsewhere they are the table's keys */
      if (target && target.tagName === "BUTTON") { return; }
    }
    if (key === "Tab") { return; } /* Tab moves the focus, as on any page */
    event.preventDefault();
    send({ type: "key", key: key });
  });

  var resizing = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizing);
    resizing = setTimeout(function () { send({ type: "size", columns: columns() }); }, 200);
  });

  P2P10.view = function () { return view; };
  P2P10.node = node;
  connect();
})(window.P2P10);
