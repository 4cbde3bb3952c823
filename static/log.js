// leakui log patterns: add and remove rows of patterns and pairs in the pattern
// forms (the report page's and the upload form's), keeping the fields numbered
// p1, p2, … / pair1, … so that the server reads them in row order.
(function () {
  "use strict";

  // renumber names every row's fields after its position: data-log-name="p"
  // in the third row becomes name="p3".
  function renumber(box) {
    var rows = box.querySelectorAll(":scope > [data-log-row]");
    for (var i = 0; i < rows.length; i++) {
      var fields = rows[i].querySelectorAll("[data-log-name]");
      for (var j = 0; j < fields.length; j++) {
        fields[j].name = fields[j].getAttribute("data-log-name") + (i + 1);
      }
    }
  }

  function setupRows(box) {
    var tpl = box.querySelector(":scope > template[data-log-template]");
    var add = box.querySelector(":scope > [data-log-add]");
    if (!tpl || !add) return;
    add.addEventListener("click", function () {
      var row = tpl.content.firstElementChild.cloneNode(true);
      box.insertBefore(row, add);
      renumber(box);
      var input = row.querySelector("input[type=text]");
      if (input) input.focus();
    });
    box.addEventListener("click", function (e) {
      var btn = e.target.closest("[data-log-remove]");
      if (!btn || !box.contains(btn)) return;
      var row = btn.closest("[data-log-row]");
      var rows = box.querySelectorAll(":scope > [data-log-row]");
      if (rows.length > 1) {
        row.remove();
      } else {
        // The last row stays, emptied: there is always one to type into.
        row.querySelectorAll("input").forEach(function (f) {
          if (f.type === "checkbox") f.checked = false; else f.value = "";
        });
      }
      renumber(box);
    });
    renumber(box);
  }

  // escapePair writes a pattern for NAME=START,CLOSE: a backslash as \\ and a
  // comma as \, (what the server's pair parser reads back).
  function escapePair(s) {
    return s.replace(/\\/g, "\\\\").replace(/,/g, "\\,");
  }

  // pendingStart reports whether a pair field holds NAME=START, and waits for
  // its close: it ends with a comma that is not escaped.
  function pendingStart(v) {
    if (v.slice(-1) !== ",") return false;
    var n = 0;
    for (var i = v.length - 2; i >= 0 && v[i] === "\\"; i--) n++;
    return n % 2 === 0;
  }

  // pairRow returns the pair row to fill: for a close, the last one waiting
  // for its close; else the first empty one, added when there is none.
  function pairRow(box, close) {
    var rows = Array.prototype.slice.call(box.querySelectorAll(":scope > [data-log-row]"));
    var field = function (r) { return r.querySelector("[data-log-name=pair]"); };
    if (close) {
      for (var i = rows.length - 1; i >= 0; i--) {
        if (pendingStart(field(rows[i]).value)) return rows[i];
      }
    }
    for (var j = 0; j < rows.length; j++) {
      if (field(rows[j]).value === "") return rows[j];
    }
    box.querySelector(":scope > [data-log-add]").click();
    rows = box.querySelectorAll(":scope > [data-log-row]");
    return rows[rows.length - 1];
  }

  // A template's "pair start" and "pair close" buttons write its regexp into
  // the pattern form's pair rows (NAME=START,CLOSE with RE2 ticked); Count
  // then counts the pair.
  function setupTemplateButtons() {
    var box = document.querySelector("form[data-testid=log-form] [data-log-rows=pair]");
    if (!box) return;
    document.addEventListener("click", function (e) {
      var btn = e.target.closest("[data-log-use]");
      if (!btn) return;
      var close = btn.getAttribute("data-log-use") === "close";
      var row = pairRow(box, close);
      var input = row.querySelector("[data-log-name=pair]");
      var re = escapePair(btn.getAttribute("data-regexp"));
      if (!close) {
        input.value = (btn.getAttribute("data-pair-name") || "pair") + "=" + re + ",";
      } else if (pendingStart(input.value)) {
        input.value += re;
      } else {
        input.value = "pair=," + re;
      }
      row.querySelector("[data-log-name=pre]").checked = true;
      input.scrollIntoView({ block: "center" });
      input.focus();
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-log-rows]").forEach(setupRows);
    setupTemplateButtons();
  });
})();
