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

  // drawCharts hands the live points to each chart (static/charts.js draws them)
  // and updates the captions' maxima.
  function drawCharts(root, p) {
    var points = p.points || [];
    var x = points.map(function (pt) { return pt.step; });
    var times = points.map(function (pt) { return (pt.at || 0) / 1000; });
    root.querySelectorAll("figure[data-chart]").forEach(function (fig) {
      var values = {}, yMax = 0;
      Object.keys(pointKey).forEach(function (key) {
        values[key] = points.map(function (pt) { return pt[pointKey[key]] || 0; });
      });
      var d = {};
      try { d = JSON.parse(fig.getAttribute("data-chart-data")) || {}; } catch (e) { d = {}; }
      (d.series || []).forEach(function (s) {
        (values[s.key] || []).forEach(function (v) { yMax = Math.max(yMax, v); });
      });
      fig.dispatchEvent(new CustomEvent("leakui:data", { detail: { x: x, times: times, values: values, xlabel: p.step_name || "step" } }));
      var label = fig.querySelector("[data-ymax]");
      if (label) label.textContent = formatValue(yMax, fig.getAttribute("data-unit"));
      var xmax = fig.querySelector("[data-xmax]");
      if (xmax) xmax.textContent = (p.step_name || "step") + " " + (p.step || 0);
      fig.setAttribute("data-points", String(points.length));
    });
  }

  function update(root, p) {
    var step = root.querySelector("[data-testid=run-step]");
    // Before the first of the unit's steps (a phase such as writing the log),
    // the line keeps the unit the page was rendered with.
    if (step && p.steps > 0) step.textContent = (p.step_name || "step") + " " + p.step + " of " + p.steps;
    var phase = root.querySelector("[data-testid=run-phase]");
    if (phase) {
      var ph = p.phase;
      phase.textContent = ph ? ph.name + " " + ph.step + (ph.steps > 0 ? " of " + ph.steps : "") : "";
      phase.hidden = !ph;
    }
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
      var v = k === "iterators_open" ? (counters.iterators_opened === undefined ? undefined : counters.iterators_opened - (counters.iterators_closed || 0)) : counters[k];
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
