/* p2p10 replay page: steps through the frames that p2p10 computed when it made this file, and
   draws them. It decides nothing about the game: every text, card and score comes from the data
   (cli/web/replay_html.py documents its layout). Plain script, no network, no eval. */
(function () {
  "use strict";
  var P2P10 = window.P2P10;
  var data = JSON.parse(document.getElementById("p2p10-data").textContent);
  var words = data.words, strings = data.strings, parts = data.parts, frames = data.frames;
  var KINDS = ["heading", "play", "event", "note", "detail", "item", "aside"];
  var HIDDEN = -1;
  var state = { at: 0, viewer: 0 };
  var $ = function (id) { return document.getElementById(id); };

  function fill(template, fields) {
    return template.replace(/\{(\w+)\}/g, function (all, key) {
      return Object.prototype.hasOwnProperty.call(fields, key) ? String(fields[key]) : all;
    });
  }
  function node(tag, className, text) {
    var el = document.createElement(tag);
    if (className) { el.className = className; }
    if (text !== undefined) { el.textContent = text; }
    return el;
  }
  function clear(el) { while (el.firstChild) { el.removeChild(el.firstChild); } }
  function cardsWords(n) { return words.cards[n] !== undefined ? words.cards[n] : fill(words.cards[2], { n: n }); }

  /* The frame at index i, as the chosen viewer saw it. */
  function frameAt(i) {
    var f = frames[i];
    var frame = { hand: f[0], stage: ["deal", "draw", "play", "reveal", "over"][f[1]], turn: f[2], stock: f[3],
      top: f[4], discard: f[5], sheet: f[6], melds: parts[f[7]], seats: f[8].map(function (p) { return parts[p]; }),
      rows: f[9].map(function (p) { return parts[p]; }), status: strings[f[10]] };
    var view = data.views[state.viewer];
    var own = view.rows ? view.rows[i] : 0;
    if (own) {
      for (var k = 0; k < own.length; k += 2) { frame.rows[own[k]] = parts[own[k + 1]]; }
    }
    return frame;
  }

  function drawCard(id, small) {
    if (id === HIDDEN) { return P2P10.back(words.hidden, { small: small }); }
    return P2P10.card(data.cards[id], { small: small });
  }

  function drawWhere(frame) {
    var bits = [];
    if (frame.hand >= 1) { bits.push(fill(words.hand, { n: frame.hand })); }
    bits.push(fill(words.step, { at: state.at + 1, count: frames.length }));
    bits.push(state.viewer === 0 ? words.asSpectator : fill(words.as, { name: data.names[state.viewer - 1] }));
    $("where").textContent = bits.join(" · ");
    var stopped = state.at === frames.length - 1 && words.stopped;
    $("status").textContent = stopped ? frame.status + " " + words.stopped : frame.status;
  }

  function drawPiles(frame) {
    var stock = $("stock"), discard = $("discard");
    clear(stock); clear(discard);
    stock.appendChild(P2P10.back(fill(words.stock, { n: frame.stock })));
    stock.appendChild(node("figcaption", "", fill(words.stock, { n: frame.stock })));
    if (frame.top !== HIDDEN) {
      discard.appendChild(drawCard(frame.top, false));
    } else {
      discard.appendChild(node("div", "pile-empty", words.empty));
    }
    discard.appendChild(node("figcaption", "", fill(words.discard, { n: frame.discard })));
  }

  function drawSeats(frame) {
    var seats = $("seats");
    clear(seats);
    var moving = frame.stage === "draw" || frame.stage === "play";
    data.names.forEach(function (name, seat) {
      var info = frame.seats[seat]; /* phase, down, skips, total, in hand */
      var box = node("section", "seat");
      var turn = moving && frame.turn === seat;
      if (turn) { box.classList.add("turn"); }
      if (state.viewer === seat + 1) { box.classList.add("viewer"); }
      box.setAttribute("aria-label", name);
      var head = node("h3", "seat-head");
      if (turn) {
        head.appendChild(node("span", "marker", "▶")).setAttribute("aria-hidden", "true");
        head.appendChild(node("span", "visually-hidden", words.turn));
      }
      head.appendChild(node("span", "name", name));
      if (info[0]) { head.appendChild(node("span", "chip", "P" + info[0] + (info[1] ? words.down : ""))); }
      if (info[4]) { head.appendChild(node("span", "count", cardsWords(frame.rows[seat].length))); }
      head.appendChild(node("span", "points", fill(words.points, { n: info[3] })));
      if (info[2]) {
        head.appendChild(node("span", "skips", info[2] === 1 ? words.skippedNext : fill(words.skipped, { n: info[2] })));
      }
      box.appendChild(head);
      if (info[4]) {
        var hand = node("div", "hand");
        frame.rows[seat].forEach(function (id) { hand.appendChild(drawCard(id, false)); });
        box.appendChild(hand);
      }
      var melds = frame.melds.filter(function (m) { return m[0] === seat; });
      if (melds.length && frame.stage !== "deal" && frame.stage !== "over") {
        var list = node("div", "melds");
        list.setAttribute("aria-label", words.melds);
        melds.forEach(function (m) {
          var meld = node("div", "meld");
          meld.appendChild(node("span", "meld-name", String.fromCharCode(65 + m[1]) + " " + strings[m[2]]));
          var row = node("div", "meld-cards");
          m[3].forEach(function (id) { row.appendChild(drawCard(id, true)); });
          meld.appendChild(row);
          list.appendChild(meld);
        });
        box.appendChild(list);
      }
      seats.appendChild(box);
    });
  }

  var logShown = -1;
  var told = [];  /* how many lines of the log each step has told */
  function buildLog() {
    var list = $("moves");
    clear(list);
    var sum = 0;
    told = data.views[state.viewer].at.map(function (more) { sum += more; return sum; });
    data.views[state.viewer].log.forEach(function (line) {
      var item = node("li", "line " + KINDS[line % 8], strings[Math.floor(line / 8)]);
      item.hidden = true;
      list.appendChild(item);
    });
    logShown = 0;
  }
  function drawLog() {
    var count = told[state.at];
    var items = $("moves").children;
    for (var i = 0; i < items.length; i++) { items[i].hidden = i >= count; }
    if (count !== logShown) {
      var box = $("moves");
      box.scrollTop = box.scrollHeight;
      logShown = count;
    }
  }

  function drawSheet(frame) {
    var table = $("sheet-table");
    clear(table);
    var head = node("thead"), row = node("tr");
    row.appendChild(node("th", "", words.hands));
    data.names.forEach(function (name) { row.appendChild(node("th", "", name)); });
    head.appendChild(row);
    table.appendChild(head);
    var body = node("tbody");
    var rows = data.sheet.slice(0, frame.sheet);
    rows.forEach(function (r, i) {
      var tr = node("tr");
      tr.appendChild(node("th", "", r[0] ? fill(words.tie, { n: i + 1 }) : String(i + 1)));
      data.names.forEach(function (name, seat) {
        var phase = r[1][seat] ? "P" + r[1][seat] + (r[2][seat] ? words.down : "") : "";
        var points = r[3][seat] === HIDDEN ? "-" : String(r[3][seat]);
        tr.appendChild(node("td", r[2][seat] ? "made" : "", phase ? phase + " " + points : points));
      });
      body.appendChild(tr);
    });
    table.appendChild(body);
    var foot = node("tfoot"), total = node("tr");
    total.appendChild(node("th", "", words.total));
    data.names.forEach(function (name, seat) {
      total.appendChild(node("td", "total", rows.length ? String(rows[rows.length - 1][4][seat]) : "0"));
    });
    foot.appendChild(total);
    table.appendChild(foot);
    var chart = $("chart");
    if (chart) {
      chart.hidden = frame.sheet === 0;
      var marks = chart.querySelectorAll("[data-hand]");
      for (var c = 0; c < marks.length; c++) {
        marks[c].setAttribute("visibility", Number(marks[c].getAttribute("data-hand")) > frame.sheet ? "hidden" : "visible");
      }
    }
  }

  function draw() {
    var frame = frameAt(state.at);
    drawWhere(frame);
    drawPiles(frame);
    drawSeats(frame);
    drawLog();
    drawSheet(frame);
    $("first").disabled = $("back").disabled = $("hand-back").disabled = state.at === 0;
    $("last").disabled = $("on").disabled = $("hand-on").disabled = state.at === frames.length - 1;
    document.body.setAttribute("data-step", String(state.at));
  }

  /* Moving as the terminal's replay viewer does (cli/table/replay_view.py). */
  function handOf(i) { return frames[i][0]; }
  function firstOfHand(hand) {
    for (var i = 0; i < frames.length; i++) { if (handOf(i) === hand) { return i; } }
    return 0;
  }
  var moves = {
    on: function () { return Math.min(state.at + 1, frames.length - 1); },
    back: function () { return Math.max(state.at - 1, 0); },
    first: function () { return 0; },
    last: function () { return frames.length - 1; },
    "hand-on": function () {
      var here = handOf(state.at);
      for (var i = state.at; i < frames.length; i++) { if (handOf(i) > here) { return i; } }
      return frames.length - 1;
    },
    "hand-back": function () {
      var here = handOf(state.at);
      var target = state.at === firstOfHand(here) ? Math.max(here - 1, handOf(0)) : here;
      return firstOfHand(target);
    }
  };
  function go(name) { state.at = moves[name](); draw(); }
  function see(viewer) {
    state.viewer = viewer;
    $("seat").value = String(viewer);
    buildLog();
    draw();
  }

  Object.keys(moves).forEach(function (name) {
    $(name).addEventListener("click", function () { go(name); });
  });
  $("seat").addEventListener("change", function (event) { see(Number(event.target.value)); });
  var KEYS = { ArrowRight: "on", ArrowLeft: "back", ArrowDown: "hand-on", ArrowUp: "hand-back",
    PageDown: "hand-on", PageUp: "hand-back", Home: "first", End: "last" };
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) { return; }
    if (event.target && event.target.tagName === "SELECT") { return; }
    if (KEYS[event.key]) {
      event.preventDefault();
      go(KEYS[event.key]);
    } else if (/^[0-6]$/.test(event.key) && Number(event.key) <= data.names.length) {
      see(Number(event.key));
    }
  });
  see(0);
  document.body.classList.add("ready");
  /* When the first step was drawn (benchmarks/bench_replay_html.py reads it). */
  if (window.performance && performance.mark) { performance.mark("p2p10-drawn"); }
})();
