// leakui incident timeline: the figure with data-timeline becomes one uPlot
// panel per series (static/vendor/uplot), stacked over one shared time axis
// (UTC), each with its own y axis in its own unit, the annotations and lab run
// events drawn as vertical lines across every panel. Hovering any panel moves
// the cursor in all of them and the readout lists what every source says at
// that moment: each series' last value at or before it. The PNG stays for
// readers without JavaScript. Dragging across a panel shows that time in
// every panel; a double click shows all of it again. Each panel carries
// data-yticks (its y labels) and the figure data-view (the time shown after a
// zoom), which the browser tests read.
(function () {
  "use strict";

  var colours = ["#2457d6", "#c62828", "#a15c00", "#6a1b9a", "#00796b", "#5d4037", "#ad1457", "#455a64"];
  var byteUnits = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];

  function plain(v) {
    var r = Math.round(v * 100) / 100;
    return r.toLocaleString("en-US", { maximumFractionDigits: 2 });
  }

  // formatValue matches static/charts.js: bytes in pprof's units of 1024 with
  // one decimal, counts as they are.
  function formatValue(v, unit) {
    if (v === null || v === undefined) return "–";
    if (unit === "bytes") {
      var a = Math.abs(v), i = 0;
      while (a >= 1024 && i < byteUnits.length - 1) { a /= 1024; i++; }
      return (v < 0 ? "-" : "") + (i === 0 ? Math.round(a) + " B" : a.toFixed(1) + " " + byteUnits[i]);
    }
    return plain(v);
  }

  function pad(n) { return (n < 10 ? "0" : "") + n; }

  function formatTime(x) {
    var d = new Date(Math.floor(x) * 1000);
    return d.getUTCFullYear() + "-" + pad(d.getUTCMonth() + 1) + "-" + pad(d.getUTCDate()) + " " +
      pad(d.getUTCHours()) + ":" + pad(d.getUTCMinutes()) + ":" + pad(d.getUTCSeconds()) + " UTC";
  }

  // valueAt is a series' last value at or before x, or null before its first.
  function valueAt(s, x) {
    var lo = 0, hi = s.t.length - 1, at = -1;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (s.t[mid] <= x + 1e-6) { at = mid; lo = mid + 1; } else { hi = mid - 1; }
    }
    return at < 0 ? null : s.v[at];
  }

  function build(fig) {
    var d;
    try { d = JSON.parse(fig.getAttribute("data-timeline")); } catch (e) { return; }
    if (!d || !d.series || d.series.length === 0 || !window.uPlot) return;
    var lo = Infinity, hi = -Infinity;
    d.series.forEach(function (s) { s.t.forEach(function (t) { lo = Math.min(lo, t); hi = Math.max(hi, t); }); });
    (d.markers || []).forEach(function (m) { lo = Math.min(lo, m.t); hi = Math.max(hi, m.t); });
    if (lo === hi) { lo -= 30; hi += 30; }
    var pad5 = (hi - lo) * 0.02;
    lo -= pad5; hi += pad5;

    var host = document.createElement("div");
    host.className = "timeline-panels";
    host.setAttribute("data-testid", "timeline-panels");
    var readout = document.createElement("div");
    readout.className = "timeline-readout";
    readout.setAttribute("data-testid", "timeline-readout");
    readout.setAttribute("aria-live", "polite");
    readout.textContent = "Hover over the timeline: every source's value at that moment shows here.";
    var img = fig.querySelector(".timeline-static");
    fig.insertBefore(host, img);
    fig.insertBefore(readout, img);
    fig.classList.add("js-timeline");

    var key = "incident-" + Math.random().toString(36).slice(2);
    var plots = [];
    // view is the time every panel shows: all of it, or what a drag across
    // any panel selected (a double click shows all again).
    var view = [lo, hi];
    function zoom(a, b) {
      view = [a, b];
      fig.setAttribute("data-view", a + "|" + b);
      plots.forEach(function (p) { p.setScale("x", { min: a, max: b }); });
    }
    host.addEventListener("dblclick", function () { zoom(lo, hi); });

    // show lists every series' value at x; tol is one pixel's time, so that a
    // point under the cursor counts although the cursor's pixel rounds before it.
    function show(x, tol) {
      readout.textContent = "";
      var head = document.createElement("strong");
      head.textContent = formatTime(x);
      readout.appendChild(head);
      var list = document.createElement("ul");
      d.series.forEach(function (s, k) {
        var li = document.createElement("li");
        li.setAttribute("data-series", String(k));
        li.setAttribute("data-testid", "readout-value");
        var sw = document.createElement("span");
        sw.className = "swatch";
        sw.style.background = colours[k % colours.length];
        li.appendChild(sw);
        li.appendChild(document.createTextNode(s.name + ": " + formatValue(valueAt(s, x + tol), s.unit)));
        list.appendChild(li);
      });
      // The annotations and events within a few pixels of the moment.
      (d.markers || []).forEach(function (m) {
        if (Math.abs(m.t - x) > 4 * tol) return;
        var li = document.createElement("li");
        li.setAttribute("data-testid", "readout-marker");
        li.textContent = (m.kind === "annotation" ? "note " + m.n + " (" + formatTime(m.t) + "): " : "") + m.label;
        list.appendChild(li);
      });
      readout.appendChild(list);
    }

    function drawMarkers(u) {
      var ctx = u.ctx, top = u.bbox.top, height = u.bbox.height;
      ctx.save();
      (d.markers || []).forEach(function (m) {
        var x = Math.round(u.valToPos(m.t, "x", true));
        if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
        ctx.strokeStyle = m.kind === "annotation" ? "#24292f" : "#6a1b9a";
        ctx.lineWidth = 1 * devicePixelRatio;
        ctx.setLineDash(m.kind === "annotation" ? [4 * devicePixelRatio, 3 * devicePixelRatio] : []);
        ctx.beginPath();
        ctx.moveTo(x, top);
        ctx.lineTo(x, top + height);
        ctx.stroke();
        if (m.kind === "annotation") {
          ctx.fillStyle = "#24292f";
          ctx.font = (11 * devicePixelRatio) + "px sans-serif";
          ctx.fillText(String(m.n), x + 3 * devicePixelRatio, top + 11 * devicePixelRatio);
        }
      });
      ctx.restore();
    }

    d.series.forEach(function (s, k) {
      var panel = document.createElement("div");
      panel.className = "timeline-panel";
      panel.setAttribute("data-testid", "timeline-panel");
      panel.setAttribute("data-unit", s.unit || "count");
      panel.setAttribute("data-name", s.name);
      host.appendChild(panel);
      var last = k === d.series.length - 1;
      var colour = colours[k % colours.length];
      var opts = {
        width: Math.max(200, host.clientWidth || fig.clientWidth || 320),
        height: last ? 150 : 120,
        legend: { show: false },
        cursor: { sync: { key: key }, points: { size: 7 }, y: false, drag: { x: true, y: false, setScale: false } },
        scales: { x: { time: true, range: function () { return view; } } },
        tzDate: function (ts) { return uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"); },
        axes: [
          { show: true, size: last ? 40 : 24, values: last ? undefined : function (u, splits) { return splits.map(function () { return ""; }); } },
          {
            size: 76,
            values: function (u, splits) {
              var labels = splits.map(function (v) { return formatValue(v, s.unit); });
              panel.setAttribute("data-yticks", labels.join("|"));
              return labels;
            }
          }
        ],
        series: [{}, { label: s.name, stroke: colour, width: 2, spanGaps: true, points: { size: 5, fill: colour } }],
        hooks: {
          draw: [drawMarkers],
          setSelect: [function (u) {
            if (u.select.width < 4) return;
            var a = u.posToVal(u.select.left, "x"), b = u.posToVal(u.select.left + u.select.width, "x");
            u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
            zoom(a, b);
          }],
          setCursor: [function (u) {
            if (u.cursor.left === undefined || u.cursor.left < 0) return;
            var x = u.posToVal(u.cursor.left, "x");
            show(x, Math.abs(u.posToVal(u.cursor.left + 1, "x") - x));
          }]
        }
      };
      var title = document.createElement("div");
      title.className = "timeline-panel-title";
      title.textContent = s.name + " (" + (s.unit || "count") + ")";
      title.style.color = colour;
      panel.appendChild(title);
      var u = new uPlot(opts, [s.t, s.v], panel);
      panel.uplot = u;
      plots.push(u);
    });

    if (window.ResizeObserver) {
      new ResizeObserver(function () {
        var w = Math.max(200, host.clientWidth);
        plots.forEach(function (u) { if (Math.abs(w - u.width) > 2) u.setSize({ width: w, height: u.height }); });
      }).observe(host);
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("figure[data-timeline]").forEach(build);
  });
})();
