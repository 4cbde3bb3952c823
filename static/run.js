// leakui lab runs: follow a run's server-sent events and update the progress bar,
// the counters and the charts live; reload once it has ended to show its report.
(function () {
  "use strict";

  function formatValue(v, unit) {
    if (unit === "bytes") {
      var units = ["B", "kB", "MB", "GB", "TB"], i = 0, a = Math.abs(v);
      while (a >= 1024 && i < units.length - 1) { a /= 1024; i++; }
      return (v < 0 ? "-" : "") + (i === 0 ? a + " B" : a.toFixed(1) + " " + units[i]);
    }
    return v.toLocaleString("en-US");
  }

  function duration(ms) {
    var s = Math.round(ms / 1000), m = Math.floor(s / 60), h = Math.floor(m / 60);
    if (h > 0) return h + "h" + (m % 60) + "m" + (s % 60) + "s";
    if (m > 0) return m + "m" + (s % 60) + "s";
    return s + "s";
  }

  var pointKey = { goroutines: "goroutines", heap_inuse: "heap_inuse", rss: "rss", offheap: "offheap", open: "open" };

  function drawCharts(root, p) {
    var xMax = p.steps || 0;
    (p.points || []).forEach(function (pt) { xMax = Math.max(xMax, pt.step); });
    root.querySelectorAll("[data-chart]").forEach(function (fig) {
      var svg = fig.querySelector("svg"), vb = svg.viewBox.baseVal, W = vb.width, H = vb.height;
      var lines = fig.querySelectorAll("polyline[data-series]"), yMax = 0;
      lines.forEach(function (l) {
        var k = pointKey[l.getAttribute("data-series")];
        (p.points || []).forEach(function (pt) { yMax = Math.max(yMax, pt[k] || 0); });
      });
      lines.forEach(function (l) {
        var k = pointKey[l.getAttribute("data-series")];
        var pts = (p.points || []).map(function (pt) {
          var x = xMax > 0 ? pt.step / xMax * W : 0;
          var y = yMax > 0 ? H - (pt[k] || 0) / yMax * (H - 4) : H;
          return x.toFixed(1) + "," + y.toFixed(1);
        });
        l.setAttribute("points", pts.join(" "));
      });
      var label = fig.querySelector("[data-ymax]");
      if (label) label.textContent = formatValue(yMax, fig.getAttribute("data-unit"));
      fig.setAttribute("data-points", String((p.points || []).length));
    });
  }

  function update(root, p) {
    var step = root.querySelector("[data-testid=run-step]");
    if (step) step.textContent = (p.step_name || "step") + " " + p.step + " of " + p.steps;
    var bar = root.querySelector("[data-testid=run-progress]");
    if (bar && p.steps > 0) bar.value = Math.floor(p.step * 100 / p.steps);
    var el = root.querySelector("[data-testid=run-elapsed]");
    if (el) el.textContent = "elapsed " + duration(p.elapsed_ms || 0);
    var rem = root.querySelector("[data-testid=run-remaining]");
    if (rem) rem.textContent = p.remaining_ms > 0 ? "about " + duration(p.remaining_ms) + " left" : "";
    var snaps = root.querySelector("[data-testid=run-snapshots]");
    if (snaps) snaps.textContent = String(p.snapshots || 0);
    root.querySelectorAll("[data-counter]").forEach(function (c) {
      var k = c.getAttribute("data-counter"), counters = p.counters || {};
      var v = k === "iterators_open" ? (counters.iterators_opened || 0) - (counters.iterators_closed || 0) : counters[k];
      if (v !== undefined) c.textContent = k === "offheap_bytes" ? formatValue(v, "bytes") : v.toLocaleString("en-US");
    });
    var status = root.querySelector("[data-testid=run-status]");
    if (status) status.textContent = p.status;
    drawCharts(root, p);
  }

  document.addEventListener("DOMContentLoaded", function () {
    var root = document.querySelector("[data-testid=run][data-status=running]");
    if (!root || !window.EventSource) return;
    var es = new EventSource(root.getAttribute("data-events"));
    es.addEventListener("progress", function (e) { update(root, JSON.parse(e.data)); });
    es.addEventListener("end", function () { es.close(); window.location.reload(); });
  });
})();
