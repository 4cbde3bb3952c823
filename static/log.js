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

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-log-rows]").forEach(setupRows);
  });
})();
