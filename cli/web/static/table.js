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
  var KEY_NAMES = { ArrowLeft: "←", ArrowRight: "→", ArrowUp: "↑", ArrowDown: "↓", Enter: "Enter",
    Escape: "Esc", " ": "Space", Home: "home", End: "end", PageUp: "pageup", PageDown: "pagedown",
    Tab: "Tab" };
  var MOVING_KEYS = ["←→", "Space", "↑↓", "Home/End"];

  function word(key, fallback) { return (view && view.words && view.words[key]) || words[key] || fallback; }

  function node(tag, attrs, parent, text) {
    var element = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (attrs[key] !== null && attrs[key] !== undefined) { element.setAttribute(key, attrs[key]); }
    });
    if (text !== undefined && text !== null) { element.textContent = text; }
    if (parent) { parent.appendChild(element); }
    return element;
  }

  function send(message) {
    if (view && view.readonly) { return; }
    if (P2P10.transport) { P2P10.transport.send(message); return; }  /* a phone's page: its worker */
    if (socket && socket.readyState === WebSocket.OPEN) {
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
          role: view.readonly ? "group" : null }, melds);  /* named by its words and its cards' names */
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
    hand.cards.forEach(function (entry) { kept("card " + entry.slot, entry, cards, drawSlot); });
    for (var i = 0; i < (hand.coming || 0); i++) {
      var coming = node("li", { "class": "slot coming" }, cards);
      coming.appendChild(P2P10.back(hand.line || "?"));
    }
    if (hand.line) { node("p", { "class": "dim hand-line" }, box, hand.line); }
  }

  function drawSlot(entry, parent) {
    var item = node("li", { "class": "slot" + (entry.fit ? " fit" : "") + (entry.raised ? " raised" : "") +
      (entry.cursor ? " cursor" : ""), "data-slot": String(entry.slot) }, parent);
    /* named by its card's drawing (an image named "red 7"): the button's name is the card's,
       and no text of the drawing (its corner numbers) is left out of it */
    var button = node("button", { "class": "card-button", draggable: "true",
      "aria-pressed": entry.raised ? "true" : "false", "data-card": entry.card.text }, item);
    button.appendChild(P2P10.card(entry.card));
    button.addEventListener("click", function () { send({ type: "card", slot: entry.slot }); });
    button.addEventListener("dblclick", function () { send({ type: "discard", slot: entry.slot }); });
    button.addEventListener("dragstart", function (event) {
      dragged = entry.slot;
      if (event.dataTransfer) { event.dataTransfer.setData("text/plain", entry.card.text); }
    });
    return item;
  }

  /* A part of a part drawn once and kept while its data stays the same (a seat, a card of the
     hand): a view that changes one seat's count draws that seat, not every meld's cards. The
     data's JSON is the key's check; what it is drawn with from elsewhere (read-only, the words)
     is in it too. */
  var drawnBefore = {};
  var context = "";  /* what else a kept part is drawn with, as JSON (set by render) */
  function kept(key, data, parent, draw) {
    var json = context + JSON.stringify(data);
    var before = drawnBefore[key];
    if (before && before.json === json) { parent.appendChild(before.element); return before.element; }
    var element = draw(data, parent);
    drawnBefore[key] = { json: json, element: element };
    return element;
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

  /* The keys as buttons (a click is the key): on the table, the moves; on a side screen, the one
     that goes on (Enter: next hand, leave, back) first and marked, then the others. */
  function drawKeys(parent, dialog) {
    var box = node("nav", { "class": "keys", "aria-label": word("keys", "Keys") }, parent);
    (view.keys || []).forEach(function (item, index) {
      if (MOVING_KEYS.indexOf(item.key) >= 0) { return; }
      var primary = dialog && index === 0;
      var button = node("button", { "class": "key" + (primary ? " primary" : ""), "data-key": item.key,
        "aria-keyshortcuts": item.key.length === 1 ? item.key : null }, box);
      node("span", { "class": "key-label" }, button, item.label);
      node("kbd", {}, button, item.key);
      if (!item.enabled) { button.disabled = true; }
      button.addEventListener("click", function () {
        if (item.key === "c" && chatShown()) { document.getElementById("chat-line").focus(); return; }
        send({ type: "key", key: item.key });
      });
    });
  }

  function drawLog(parent) {
    var box = folding(parent, "log", word("moves", "Moves"));
    /* focusable, so that a keyboard can scroll it (it holds more than it shows) */
    var list = node("ol", { "class": "log-lines", tabindex: "0", "aria-label": word("moves", "Moves") }, box);
    (view.log || []).slice(-200).forEach(function (line) {
      node("li", { "class": "log-" + line.kind }, list, line.text);
    });
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

  /* The score sheet as a table of its own: a column per player where that fits its box, else
     (a phone, six players in a narrow column) a row per player, the hands as a list that wraps.
     Either way nothing is cut and nothing scrolls sideways. */
  function sheetTable(parent, sheet) {
    var wrap = node("div", { "class": "sheet-wrap" }, parent);
    var table = node("table", { "class": "sheet-table by-column" }, wrap);
    var headRow = node("tr", {}, node("thead", {}, table));
    node("th", { scope: "col" }, headRow, sheet.heads[0]);
    sheet.names.forEach(function (name, seat) {
      /* a bot's level (the part in brackets) on a smaller line of its own: six columns fit */
      var cut = / \([^()]*\)$/.exec(name);
      var head = node("th", { scope: "col", "data-player": String(seat) }, headRow, cut ? name.slice(0, cut.index) : name);
      if (cut) { node("span", { "class": "level" }, head, cut[0]); }
    });
    var body = node("tbody", {}, table);
    var rows = sheet.hands.concat([sheet.totals, sheet.made]);
    rows.forEach(function (row, index) {
      var kind = index < sheet.hands.length ? "hand" : index === sheet.hands.length ? "total" : "made";
      var tr = node("tr", { "class": kind === "hand" ? "" : "total", "data-row": kind }, body);
      node("th", { scope: "row" }, tr, sheet.heads[index + 1]);
      row.forEach(function (cell, seat) { node("td", { "data-player": String(seat) }, tr, cell); });
    });
    wrap.p2p10Sheet = sheet;
    return wrap;
  }

  function sheetWithLegend(parent, sheet) {
    sheetTable(parent, sheet);
    node("p", { "class": "dim legend" }, parent, sheet.legend);
  }

  function bySeat(parent, sheet) {
    var table = node("table", { "class": "sheet-table by-player" }, parent);
    var headRow = node("tr", {}, node("thead", {}, table));
    node("th", { scope: "col" }, headRow, word("player", "Player"));
    node("th", { scope: "col" }, headRow, sheet.heads[sheet.heads.length - 2]);
    node("th", { scope: "col" }, headRow, sheet.heads[sheet.heads.length - 1]);
    var body = node("tbody", {}, table);
    sheet.names.forEach(function (name, seat) {
      var tr = node("tr", { "data-player": String(seat) }, body);
      var head = node("th", { scope: "row" }, tr);
      node("div", { "class": "sheet-name" }, head, name);
      var hands = node("ol", { "class": "sheet-hands", "aria-label": sheet.heads[0] }, head);
      sheet.hands.forEach(function (row, index) {
        node("li", {}, hands, sheet.heads[index + 1] + ": " + row[seat]);
      });
      node("td", { "data-row": "total" }, tr, sheet.totals[seat]);
      node("td", { "data-row": "made" }, tr, sheet.made[seat]);
    });
    return table;
  }

  /* Once the page is drawn: each score sheet keeps its column form if that fits its box, else
     the row form takes its place (measured, not guessed: names, languages and fonts differ). A
     sheet in a folded part is measured when it is opened. */
  function fitSheets() {
    Array.prototype.forEach.call(document.querySelectorAll(".sheet-wrap"), function (wrap) {
      if (wrap.getAttribute("data-form") || !wrap.p2p10Sheet || !wrap.clientWidth) { return; }
      if (wrap.scrollWidth > wrap.clientWidth + 1) {
        clear(wrap);
        bySeat(wrap, wrap.p2p10Sheet);
        wrap.setAttribute("data-form", "by-player");
      } else {
        wrap.setAttribute("data-form", "by-column");
      }
    });
  }

  function drawSheet(parent) {
    var sheet = view.sheet;
    if (!sheet) { return; }
    sheetWithLegend(folding(parent, "sheet", word("score_sheet", "Score sheet")), sheet);
  }

  /* A part of the side column that folds away on a narrow screen (closed there unless the
     player opened it; open on a wide one), remembered across views. */
  var folded = {};
  function folding(parent, name, title) {
    var details = node("details", { "class": name + " panel fold", "data-fold": name }, parent);
    var narrow = window.matchMedia && window.matchMedia("(max-width: 50rem)").matches;
    var open = folded[name] !== undefined ? folded[name] : !narrow;
    if (open) { details.setAttribute("open", ""); }
    node("h2", {}, node("summary", {}, details), title);
    details.addEventListener("toggle", function () { folded[name] = details.open; fitSheets(); });
    return details;
  }

  /* ------------------------------------------------------------------ the side screens */

  /* A hand's summary: a row per player (phase, points, total), the cards left beside them where
     the page is wide, on a row of their own under them where it is narrow (a phone). */
  function summaryTable(parent, summary) {
    var narrow = window.matchMedia && window.matchMedia("(max-width: 40rem)").matches;
    var table = node("table", { "class": "summary-table" + (narrow ? " narrow" : "") }, parent);
    var headRow = node("tr", {}, node("thead", {}, table));
    node("th", { scope: "col" }, headRow, word("player", "Player"));
    summary.heads.forEach(function (head, index) {
      if (index < 3 || !narrow) {
        node("th", { scope: "col", "class": index === 1 || index === 2 ? "num" : "" }, headRow, head);
      }
    });
    summary.rows.forEach(function (row) {
      var body = node("tbody", { "data-player": String(row.seat) }, table);
      var tr = node("tr", { "data-player": String(row.seat) }, body);
      node("th", { scope: "row" }, tr, row.name);
      node("td", { "data-col": "phase", "class": "phase" + (row.made ? " made" : "") }, tr, row.phase_text);
      node("td", { "data-col": "points", "class": "num" }, tr, String(row.points));
      node("td", { "data-col": "total", "class": "num" }, tr, String(row.total));
      if (narrow && !row.left.length) { return; }
      var left = narrow ? node("td", { colspan: "4", "data-col": "left", "class": "left-cards" }, node("tr", { "class": "left-row" }, body))
        : node("td", { "data-col": "left", "class": "left-cards" }, tr);
      var names = row.left.map(function (c) { return c.words; }).join(", ");
      var cards = node("span", { "class": "meld-cards wrap", role: "list",
        "aria-label": summary.heads[3] + ": " + (names || "-") }, left);
      row.left.forEach(function (card) {
        var item = node("span", { role: "listitem" }, cards);
        item.appendChild(P2P10.card(card, { small: true }));
      });
    });
    if (summary.tie) { node("p", { "class": "tie tone-warn" }, parent, summary.tie); }
    return table;
  }

  function paragraphs(parent, notes) {
    (notes || []).forEach(function (note) {
      if (note.text) { node("p", { "class": note.tone ? "tone-" + note.tone : "" }, parent, note.text); }
    });
  }

  var SIDE = {
    hand: function (body, data) {
      node("h2", { id: "side-title" }, body, data.title);
      summaryTable(body, data);
    },
    over: function (body, data) {
      node("h2", { id: "side-title", "class": "tone-" + data.tone }, body, data.title);
      if (data.last) { summaryTable(body, data.last); }
      if (data.sheet) {
        node("h3", {}, body, word("score_sheet", "Score sheet"));
        sheetWithLegend(body, data.sheet);
      }
      if (view.chart) {
        var chart = node("div", { "class": "chart" }, body);
        chart.innerHTML = view.chart; /* an SVG built by Python (cli/web/charts.py), names escaped there */
      }
      paragraphs(body, data.notes);
    },
    sheet: function (body, data) {
      node("h2", { id: "side-title" }, body, word("score_sheet", "Score sheet"));
      sheetWithLegend(body, data);
    },
    rules: function (body, data) {
      node("h2", { id: "side-title" }, body, data.title);
      node("p", { "class": "tone-title" }, body, data.in_force);
      var options = node("ul", { "class": "options" }, body);
      data.options.forEach(function (option) {
        var item = node("li", { "class": option.on ? "on" : "off" }, options);
        node("span", { "class": "mark", "aria-hidden": "true" }, item, option.on ? "✓" : "–");
        node("code", {}, item, option.name);
        node("span", {}, item, " " + option.words);
      });
      node("h3", {}, body, data.phases_title);
      var phases = node("ol", { "class": "phases" }, body);
      data.phases.forEach(function (phase) { node("li", { value: String(phase[0]) }, phases, phase[1]); });
      data.notes.forEach(function (text) { node("p", {}, body, text); });
      data.sections.forEach(function (section) {
        node("h3", {}, body, section.title);
        section.paragraphs.forEach(function (text) { node("p", {}, body, text); });
      });
    },
    help: function (body, data) {
      node("h2", { id: "side-title" }, body, data.title);
      var list = null;
      data.items.forEach(function (item) {
        if (item.key) {
          list = list || node("dl", { "class": "help-keys" }, body);
          node("kbd", {}, node("dt", {}, list), item.key);
          node("dd", {}, list, item.text);
        } else {
          list = null;
          if (item.text) { node("p", {}, body, item.text.trim()); }
        }
      });
    },
    melds: function (body, data) {
      node("h2", { id: "side-title" }, body, data.title);
      if (!data.seats.length) { node("p", { "class": "dim" }, body, data.empty); }
      data.seats.forEach(function (seat) {
        node("h3", {}, body, seat.name);
        var melds = node("div", { "class": "melds" }, body);
        seat.melds.forEach(function (meld) {
          var box = node("div", { "class": "meld", role: "group", "aria-label": meld.letter + ": " + meld.name }, melds);
          node("span", { "class": "meld-name" }, box, meld.letter + " " + meld.name);
          var cards = node("span", { "class": "meld-cards" }, box);
          meld.cards.forEach(function (card) { cards.appendChild(P2P10.card(card, { small: true })); });
        });
      });
    }
  };

  /* A side screen is a dialog on top of the table: its content scrolls, its keys (the one that
     goes on first: next hand, leave, back) stay in view at its foot. */
  function drawSide(parent) {
    var side = view.side;
    if (!side || !SIDE[side.kind]) { return null; }
    var overlay = node("div", { "class": "overlay", "data-screen": side.kind }, parent);
    var box = node("section", { "class": "side-screen dialog panel", role: "dialog", "aria-modal": "true",
      "aria-labelledby": "side-title", "data-screen": side.kind }, overlay);
    /* focusable, so that a keyboard can scroll it (its text may be longer than the screen) */
    var body = node("div", { "class": "dialog-body", tabindex: "0" }, box);
    SIDE[side.kind](body, side.data);
    var actions = node("div", { "class": "dialog-actions" }, box);
    drawKeys(actions, true);
    return body;
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

  /* ------------------------------------------------------------------ drawing by parts

     The page is laid out once (a skeleton of slots); a view's change redraws only the parts
     whose data changed, and the move log only adds its new lines: a bot's move redraws a seat,
     the piles, the title and a line, not the page. A part redrawn keeps the keyboard's focus
     on the same control (the same card, pile, key or answer) where it is still there. */

  function drawTop(slot) {
    node("h1", { "class": "title" }, slot, view.title || "p2p10");
    drawVerdict(slot);
    var status = node("p", { "class": "status" }, slot);
    (view.status || []).forEach(function (part) {  /* fragments, or lines of them */
      if (Array.isArray(part)) { toned(status, part); node("br", {}, status); } else { toned(status, [part]); }
    });
    drawPrompt(slot);
  }

  function drawOthers(slot) {
    var others = node("div", { "class": "others" }, slot);
    (view.seats || []).forEach(function (seat) { if (!seat.me) { kept("seat " + seat.seat, seat, others, drawSeat); } });
  }

  function drawMine(slot) {
    (view.seats || []).forEach(function (seat) { if (seat.me) { kept("seat " + seat.seat, seat, slot, drawSeat); } });
  }

  /* The move log follows its newest line while the reader is at its end (scrolled up, it stays
     put). Where it is, is noted as the reader scrolls, and the scroll to the end waits for the
     next frame: reading the page's layout while drawing would lay it out once more per view. */
  var logAtEnd = true;
  function followLog(list) {
    if (!logAtEnd) { return; }
    window.requestAnimationFrame(function () { list.scrollTop = list.scrollHeight; });
  }

  function drawLogPart(slot) {
    var list = drawLog(slot);
    list.addEventListener("scroll", function () {
      logAtEnd = list.scrollHeight - list.scrollTop - list.clientHeight < 24;
    }, { passive: true });
    logAtEnd = true;
    followLog(list);
  }

  /* Only the lines a patch added, at the end of the list drawn (the oldest beyond the window
     leave it); false where the list is not there to add to. */
  function addLogLines(slot, added) {
    var list = slot.querySelector(".log-lines");
    if (!list) { return false; }
    added.forEach(function (line) { node("li", { "class": "log-" + line.kind }, list, line.text); });
    while (list.children.length > (view.log || []).length) { list.removeChild(list.firstChild); }
    followLog(list);
    return true;
  }

  function drawSidePart(slot) {
    var before = slot.querySelector(".dialog-body");
    var kept = before && before.parentNode.getAttribute("data-screen") === (view.side && view.side.kind)
      ? before.scrollTop : 0;
    var body = drawSide(slot);
    document.body.classList.toggle("dialog-open", Boolean(body));
    if (body) {
      body.scrollTop = kept;
      if (!before) { body.focus({ preventScroll: true }); } /* a new dialog takes the focus */
    }
  }

  var PARTS = [
    { name: "top", data: ["title", "status", "prompt", "verdict", "words"], draw: drawTop },
    { name: "others", data: ["seats", "readonly", "words"], draw: drawOthers },
    { name: "piles", data: ["piles", "dealing", "title", "readonly", "words"], draw: drawPiles },
    { name: "mine", data: ["seats", "readonly", "words"], draw: drawMine },
    { name: "hand", data: ["hand", "words"], draw: drawHand },
    { name: "keys", data: ["keys", "side"], draw: function (slot) { if (!view.side) { drawKeys(slot); } } },
    { name: "sheet", data: ["sheet", "words"], draw: drawSheet },
    { name: "log", data: ["log", "log_start", "words"], draw: drawLogPart },
    { name: "side", data: ["side", "keys", "chart", "words"], draw: drawSidePart }
  ];

  var slots = null;
  function skeleton() {
    var root = clear(appRoot());
    var top = node("header", { "class": "top" }, root);
    var table = node("main", { "class": "table" }, root);
    var side = node("aside", { "class": "side" }, root);
    slots = { top: top };
    ["others", "piles", "mine", "hand", "keys"].forEach(function (name) {
      slots[name] = node("div", { "class": "part", "data-part": name }, table);
    });
    ["sheet", "log"].forEach(function (name) { slots[name] = node("div", { "class": "part", "data-part": name }, side); });
    slots.side = node("div", { "class": "part", "data-part": "side" }, root);
    /* what changed, said to a screen reader once (the title and the status line) */
    slots.live = document.getElementById("live") ||
      node("div", { id: "live", "class": "visually-hidden", role: "status", "aria-live": "polite" }, document.body);
  }

  /* The control that has the focus, by what names it on the page, to find it again. */
  var FOCUS_KEYS = ["data-slot", "data-key", "data-pile", "data-meld", "data-index", "data-sort", "data-fold"];
  function focused(slot) {
    var active = document.activeElement;
    if (!active || !slot.contains(active) || active === document.body) { return null; }
    var holder = active.closest("[data-slot]") || active;
    for (var i = 0; i < FOCUS_KEYS.length; i++) {
      var value = holder.getAttribute(FOCUS_KEYS[i]) || active.getAttribute(FOCUS_KEYS[i]);
      if (value !== null) {
        return "[" + FOCUS_KEYS[i] + '="' + value.replace(/["\\]/g, "\\$&") + '"]';
      }
    }
    return active.classList.contains("dialog-body") ? ".dialog-body" : null;
  }

  function redraw(part) {
    var slot = slots[part.name];
    var again = focused(slot);
    clear(slot);
    part.draw(slot);
    if (again) {
      var found = slot.querySelector(again);
      var target = found && (found.matches("button, [tabindex], summary, input") ? found
        : found.querySelector("button, [tabindex]"));
      if (target) { target.focus({ preventScroll: true }); }
    }
  }

  var spoken = "";
  /* What a screen reader is told of a change, once: the move log's new lines (what the others
     did), then the title and the status line where they changed (whose turn, what to do). */
  function announce(added) {
    var now = [view.title || ""].concat((view.status || []).map(function (part) {
      return Array.isArray(part) ? part.map(function (p) { return p.text; }).join("") : part.text;
    })).join(" ").replace(/\s+/g, " ").trim();
    var said = (added || []).map(function (line) { return line.text; });
    if (now !== spoken) { said.push(now); spoken = now; }
    if (said.length) { slots.live.textContent = said.join(" "); }
  }

  /* Draw the parts of the view that ``changed`` names (null: every part); ``added``: the move
     log's lines a patch added, drawn alone where the log is there already. */
  function render(changed, added) {
    if (!slots || !slots.top.isConnected) { skeleton(); changed = null; }
    context = JSON.stringify([view.readonly, view.words]);
    document.body.setAttribute("data-page", view.page || "table");
    document.body.setAttribute("data-screen", view.screen || "table");
    if (view.lang) { document.documentElement.lang = view.lang; }
    PARTS.forEach(function (part) {
      if (changed && !part.data.some(function (key) { return changed[key]; })) { return; }
      if (changed && part.name === "log" && added && !changed.words && addLogLines(slots.log, added)) { return; }
      redraw(part);
    });
    if (!changed || changed.keys) {  /* the chat line, where the table has chat (its key c) */
      chatForm().hidden = !(view.keys && view.keys.some(function (k) { return k.key === "c"; }));
    }
    announce(added);
    fitSheets();
  }

  /* A patch applied to the view held: its parts set, the values changed within parts (ops), its
     move log's lines added or replaced; what changed, for render. */
  function apply(patch) {
    var changed = {};
    Object.keys(patch.set || {}).forEach(function (key) {
      view[key] = patch.set[key];
      changed[key] = true;
    });
    (patch.ops || []).forEach(function (op) {  /* [path from the top, value]: a value in a part */
      var path = op[0], holder = view;
      for (var i = 0; i < path.length - 1; i++) { holder = holder[path[i]]; }
      holder[path[path.length - 1]] = op[1];
      changed[path[0]] = true;
    });
    view.v = patch.v;
    var added = null;
    if (patch.log) {
      var log = patch.log;
      if (log.lines) {
        view.log = log.lines;
      } else {
        added = log.add;
        view.log = (view.log || []).concat(log.add).slice(Math.max(0, log.start - (view.log_start || 0)));
      }
      view.log_start = log.start;
      changed.log = true;
    }
    return { changed: changed, added: added };
  }

  function show(changed, added) {
    words = view.words || words;
    if (view.page === "start" && P2P10.drawStart) {
      slots = null;
      document.body.setAttribute("data-page", "start");
      P2P10.drawStart(clear(appRoot()), view, send);
    } else if (view.page === "wait") {
      slots = null;
      document.body.setAttribute("data-page", "wait");
      say(view.text);
    } else {
      render(changed, added);
    }
    drawn += 1;
    document.body.setAttribute("data-version", String(drawn)); /* views drawn so far (tests wait on it) */
  }

  /* ------------------------------------------------------------------ the socket */

  function say(text) {
    var root = clear(appRoot());
    node("p", { "class": "notice panel", role: "alert" }, root, text);
  }

  /* A view or a patch, from the server's socket or the page's own worker. */
  function received(message) {
    if (message.type === "view") {
      view = message.view;
      show(null, null);
    } else if (message.type === "patch" && view) {
      var page = view.page;
      var done = apply(message);
      show(view.page === page ? done.changed : null, done.added);
    } else if (message.type === "bye") {
      say((message.text ? message.text + " " : "") + word("gone", "p2p10 has stopped."));
      socket = null;
    }
  }

  function connect() {
    if (P2P10.transport) {  /* a phone's page: the seat is played in the page itself (phone/page.js) */
      say(word("starting", "Starting the table in this page..."));
      P2P10.transport.start(received, function (status, why) {
        if (status === "failed") { say(word("failed", "The table could not start in this page:") + " " + why); }
      });
      return;
    }
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
    });
    socket.addEventListener("message", function (event) {
      var message;
      try { message = JSON.parse(event.data); } catch (err) { return; }
      received(message);
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
  var layouts = 0;
  window.addEventListener("resize", function () {
    clearTimeout(resizing);
    /* The page lays itself out again at its new width (the score sheet's form is measured). */
    resizing = setTimeout(function () {
      if (view && view.page !== "start" && view.page !== "wait") {
        show(null, null);
        layouts += 1;  /* drawings at a new size so far (tests wait on it) */
        document.body.setAttribute("data-layouts", String(layouts));
      }
    }, 150);
  });

  P2P10.view = function () { return view; };
  P2P10.node = node;
  connect();
})(window.P2P10);
