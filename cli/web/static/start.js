/* p2p10's start screen in the browser: the terminal's menu (cli/table/start.py), drawn from the
   rows Python sends. A row is a button; a setting has its ← and → buttons; the name and the rule
   options are fields. Every check is Python's: a refused name or option comes back as the
   menu's message. */
(function (P2P10) {
  "use strict";

  P2P10.drawStart = function (root, view, send) {
    var node = P2P10.node;
    document.documentElement.lang = view.lang || document.documentElement.lang;
    var box = node("main", { "class": "start panel" }, root);
    node("h1", {}, box, view.title);
    if (view.message) {
      node("p", { "class": "message tone-" + view.message.tone, role: "alert" }, box, view.message.text);
    }
    var list = node("div", { "class": "menu", role: "list" }, box);
    view.rows.forEach(function (row) {
      if (row.heading) { node("h2", {}, node("div", { role: "listitem", "class": "menu-heading" }, list), row.heading); }
      var line = node("div", { "class": "menu-row" + (row.index === view.cursor ? " current" : ""), role: "listitem",
        "data-row": row.key }, list);
      if (row.key === "name" || row.key === "options") {
        var form = node("form", { "class": "field" }, line);
        var label = node("label", { "for": "field-" + row.key }, form, view.fields[row.key]);
        label.setAttribute("class", "field-label");
        var input = node("input", { id: "field-" + row.key, type: "text", maxlength: row.key === "name" ? "40" : "200",
          value: row.key === "name" ? view.name : view.options }, form);
        if (row.key === "options") { input.setAttribute("placeholder", "phases=even skip=next"); }
        node("button", { type: "submit" }, form, view.fields.set);
        form.addEventListener("submit", function (event) {
          event.preventDefault();
          send({ type: "edit", field: row.key, text: input.value });
        });
        return;
      }
      if (row.change) {
        var less = node("button", { "class": "step", "aria-label": row.text + " −", "data-step": "-1" }, line, "←");
        less.addEventListener("click", function () { send({ type: "row", index: row.index, step: -1 }); });
      }
      var button = node("button", { "class": "row-button", "data-index": String(row.index) }, line, row.text);
      button.addEventListener("click", function () { send({ type: "row", index: row.index }); });
      if (row.change) {
        var more = node("button", { "class": "step", "aria-label": row.text + " +", "data-step": "1" }, line, "→");
        more.addEventListener("click", function () { send({ type: "row", index: row.index, step: 1 }); });
      }
    });
    var record = node("section", { "class": "record" }, box);
    node("h2", {}, record, view.record_title);
    view.record.forEach(function (line) { node("p", { "class": "record-line" }, record, line); });
  };
})(window.P2P10);
