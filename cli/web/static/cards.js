/* p2p10 cards: each card drawn as an SVG element by this script, from the CardView JSON that
   Python sends ({id, text: "R7", words: "red 7", suit: "r|b|g|y|w|s", rank: "7|W|S"}).
   Nothing here knows a rule: it only draws. Plain script, no modules, no eval.
   Colour is never the only sign: each colour has its own shape (red circle, blue square,
   green triangle, yellow diamond) in the corners and behind the big rank.
   Sizes come from CSS (base.css): class p2p10-card for a hand's card, p2p10-card-small added
   with opts.small for a meld's. */
window.P2P10 = window.P2P10 || {};
(function (P2P10) {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var W = 60, H = 90;
  /* fill of the face, ink of the rank on it, ink of the corner rank on white */
  var SUITS = {
    r: { face: "#c62828", ink: "#ffffff", corner: "#b71c1c", shape: "circle" },
    b: { face: "#1565c0", ink: "#ffffff", corner: "#0d47a1", shape: "square" },
    g: { face: "#2e7d32", ink: "#ffffff", corner: "#1b5e20", shape: "triangle" },
    y: { face: "#fbc02d", ink: "#1a1a1a", corner: "#6d4c00", shape: "diamond" },
    w: { face: "#1a1a1a", ink: "#ffffff", corner: "#1a1a1a", shape: "star" },
    s: { face: "#37474f", ink: "#ffffff", corner: "#263238", shape: "ring" }
  };

  function el(name, attrs, parent) {
    var node = document.createElementNS(NS, name);
    Object.keys(attrs || {}).forEach(function (key) { node.setAttribute(key, attrs[key]); });
    if (parent) { parent.appendChild(node); }
    return node;
  }

  function text(parent, x, y, size, fill, value, weight) {
    var node = el("text", { x: x, y: y, "font-size": size, fill: fill, "text-anchor": "middle",
      "dominant-baseline": "central", "font-weight": weight || "700",
      "font-family": "system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif" }, parent);
    node.textContent = value;
    return node;
  }

  /* the colour's own shape, centred on (x, y), r its half-size */
  function shape(parent, kind, x, y, r, fill, extra) {
    var attrs = extra || {};
    var node;
    if (kind === "circle") {
      node = el("circle", { cx: x, cy: y, r: r, fill: fill }, parent);
    } else if (kind === "square") {
      node = el("rect", { x: x - r, y: y - r, width: 2 * r, height: 2 * r, fill: fill }, parent);
    } else if (kind === "triangle") {
      node = el("polygon", { points: [x, y - r * 1.1, x + r * 1.1, y + r * 0.9, x - r * 1.1, y + r * 0.9].join(" "),
        fill: fill }, parent);
    } else if (kind === "diamond") {
      node = el("polygon", { points: [x, y - r * 1.25, x + r, y, x, y + r * 1.25, x - r, y].join(" "), fill: fill }, parent);
    } else if (kind === "star") {
      var points = [];
      for (var i = 0; i < 10; i++) {
        var radius = i % 2 ? r * 0.45 : r * 1.15;
        var angle = Math.PI / 5 * i - Math.PI / 2;
        points.push((x + radius * Math.cos(angle)).toFixed(2), (y + radius * Math.sin(angle)).toFixed(2));
      }
      node = el("polygon", { points: points.join(" "), fill: fill }, parent);
    } else {
      node = el("circle", { cx: x, cy: y, r: r * 0.8, fill: "none", stroke: fill, "stroke-width": r * 0.35 }, parent);
      el("line", { x1: x - r * 0.55, y1: y + r * 0.55, x2: x + r * 0.55, y2: y - r * 0.55, stroke: fill,
        "stroke-width": r * 0.35 }, parent);
    }
    Object.keys(attrs).forEach(function (key) { node.setAttribute(key, attrs[key]); });
    return node;
  }

  function svg(opts) {
    var classes = ["p2p10-card"];
    if (opts && opts.small) { classes.push("p2p10-card-small"); }
    if (opts && opts.className) { classes.push(opts.className); }
    return el("svg", { viewBox: "0 0 " + W + " " + H, "class": classes.join(" "), focusable: "false" });
  }

  function corners(root, rank, suit) {
    [[8.5, 10, 0], [W - 8.5, H - 10, 180]].forEach(function (at) {
      var g = el("g", { transform: "rotate(" + at[2] + " " + at[0] + " " + at[1] + ")" }, root);
      text(g, at[0], at[1], rank.length > 1 ? 9 : 11, suit.corner, rank);
      shape(g, suit.shape, at[0], at[1] + 10, 3, suit.corner);
    });
  }

  /* The four-colour face of a Wild: each quarter in a colour with its shape. */
  function wildFace(root) {
    var order = ["r", "b", "y", "g"];
    var x0 = 12, y0 = 17, w = W - 24, h = H - 34;
    order.forEach(function (key, i) {
      var qx = x0 + (i % 2) * w / 2, qy = y0 + Math.floor(i / 2) * h / 2;
      el("rect", { x: qx, y: qy, width: w / 2, height: h / 2, fill: SUITS[key].face }, root);
      shape(root, SUITS[key].shape, qx + w / 4, qy + h / 4, 4, "rgba(255,255,255,0.35)");
    });
    el("rect", { x: x0, y: y0, width: w, height: h, rx: 5, fill: "none", stroke: "#1a1a1a", "stroke-width": 1.2 }, root);
  }

  /* P2P10.card(view, opts): the SVG element of one face-up card; opts.small for a meld's cards,
     opts.className for any more classes. */
  P2P10.card = function (view, opts) {
    var suit = SUITS[view.suit] || SUITS.s;
    var root = svg(opts);
    root.setAttribute("role", "img");
    root.setAttribute("aria-label", view.words);
    root.setAttribute("data-card", view.text);
    root.setAttribute("data-id", String(view.id));
    root.setAttribute("data-suit", view.suit);
    el("rect", { x: 0.75, y: 0.75, width: W - 1.5, height: H - 1.5, rx: 6, fill: "#ffffff", stroke: "#4a4a4a",
      "stroke-width": 1.5 }, root);
    if (view.suit === "w") {
      wildFace(root);
      el("ellipse", { cx: W / 2, cy: H / 2, rx: 13, ry: 12, fill: "#ffffff", stroke: "#1a1a1a", "stroke-width": 1.2 }, root);
      text(root, W / 2, H / 2 + 1, 17, "#1a1a1a", "W", "800");
    } else if (view.suit === "s") {
      el("rect", { x: 12, y: 17, width: W - 24, height: H - 34, rx: 5, fill: suit.face }, root);
      shape(root, "ring", W / 2, H / 2, 14, "#ffffff");
    } else {
      el("rect", { x: 12, y: 17, width: W - 24, height: H - 34, rx: 5, fill: suit.face }, root);
      shape(root, suit.shape, W / 2, H / 2, 14, "rgba(255,255,255,0.22)");
      var big = text(root, W / 2, H / 2 + 1, view.rank.length > 1 ? 22 : 27, suit.ink, view.rank, "800");
      big.setAttribute("stroke", suit.ink === "#ffffff" ? "rgba(0,0,0,0.35)" : "rgba(255,255,255,0.5)");
      big.setAttribute("stroke-width", "0.6");
    }
    corners(root, view.rank, suit);
    var title = el("title", {}, root);
    title.textContent = view.words;
    return root;
  };

  /* P2P10.back(label): a face-down card; label (e.g. "a hidden card") names it for a reader. */
  P2P10.back = function (label, opts) {
    var root = svg(opts);
    root.setAttribute("role", "img");
    root.setAttribute("aria-label", label);
    root.setAttribute("data-card", "?");
    el("rect", { x: 0.75, y: 0.75, width: W - 1.5, height: H - 1.5, rx: 6, fill: "#ffffff", stroke: "#4a4a4a",
      "stroke-width": 1.5 }, root);
    el("rect", { x: 5, y: 5, width: W - 10, height: H - 10, rx: 4, fill: "#1b3a6b" }, root);
    for (var i = 0; i < 6; i++) {
      el("line", { x1: 5, y1: 15 + i * 14, x2: W - 5, y2: 5 + i * 14, stroke: "#2f5b9e", "stroke-width": 3 }, root);
    }
    el("rect", { x: 5, y: 5, width: W - 10, height: H - 10, rx: 4, fill: "none", stroke: "#ffffff", "stroke-width": 1 }, root);
    el("ellipse", { cx: W / 2, cy: H / 2, rx: 17, ry: 11, fill: "#ffffff" }, root);
    text(root, W / 2, H / 2 + 0.5, 10, "#1b3a6b", "P10", "800");
    var title = el("title", {}, root);
    title.textContent = label;
    return root;
  };
})(window.P2P10);
