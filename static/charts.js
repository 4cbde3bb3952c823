// leakui charts: every figure with data-chart-data becomes a uPlot chart
// (static/vendor/uplot) of the same numbers as its static SVG: y from zero with
// ticks in the unit (bytes in pprof's units of 1024, counts), x as wall time (UTC)
// or snapshot/step numbers, a marker per point, a hover readout, a legend whose
// entries toggle their series. The static SVG stays for readers without
// JavaScript. A figure takes new data through a "leakui:data" event (run.js sends
// the live points). After drawing, the figure carries data-yticks, data-xticks
// and data-ymax-scale, which the browser tests read.
(function () {
  "use strict";

  var colours = { s1: "#2457d6", s2: "#c62828", s3: "#a15c00", s4: "#6a1b9a" };
  var byteUnits = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];

  function plain(v) {
    var r = Math.round(v * 100) / 100;
    return r.toLocaleString("en-US", { maximumFractionDigits: 2 });
  }

  // formatY matches internal/linechart.FormatY.
  function formatY(v, unit) {
    if (v === null || v === undefined) return "–";
    var a = Math.abs(v), sign = v < 0 ? "-" : "";
    if (unit === "bytes") {
      var i = 0;
      while (a >= 1024 && i < byteUnits.length - 1) { a /= 1024; i++; }
      return sign + plain(a) + " " + byteUnits[i];
    }
    if (unit === "nanoseconds") {
      if (a >= 1e9) return sign + plain(a / 1e9) + "s";
      if (a >= 1e6) return sign + plain(a / 1e6) + "ms";
      if (a >= 1e3) return sign + plain(a / 1e3) + "µs";
      return sign + plain(a) + "ns";
    }
    return plain(v);
  }

  // formatValue writes a point's value as the page's tables do (pprof's one
  // decimal for bytes).
  function formatValue(v, unit) {
    if (v === null || v === undefined) return "–";
    if (unit === "bytes") {
      var a = Math.abs(v), i = 0;
      while (a >= 1024 && i < byteUnits.length - 1) { a /= 1024; i++; }
      return (v < 0 ? "-" : "") + (i === 0 ? Math.round(a) + " B" : a.toFixed(1) + " " + byteUnits[i]);
    }
    return formatY(v, unit);
  }

  function pad(n) { return (n < 10 ? "0" : "") + n; }
  var months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

  // timeSteps and timeStep match internal/linechart's: the round intervals of a
  // time axis, in seconds.
  var timeSteps = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800];
  function timeStep(v) {
    for (var i = 0; i < timeSteps.length; i++) if (timeSteps[i] >= v) return timeSteps[i];
    return niceStep(v / 86400) * 86400;
  }

  // formatX matches internal/linechart.FormatX: UTC clock times as fine as the
  // ticks of a span that long are apart (ms, s, min, the date from a day), or
  // numbers. A span of zero gives seconds (formatAt writes milliseconds).
  function formatX(x, isTime, span) {
    if (!isTime) return plain(x);
    var ms = Math.floor(x * 1000 + 0.5);
    var d = new Date(ms);
    var hm = pad(d.getUTCHours()) + ":" + pad(d.getUTCMinutes());
    var hms = hm + ":" + pad(d.getUTCSeconds());
    var milli = "." + String(1000 + d.getUTCMilliseconds()).slice(1);
    if (!(span > 0)) return hms;
    var step = timeStep(span / 5);
    if (step < 1) return hms + milli;
    if (step < 60) return hms;
    if (step < 86400 && span < 86400) return hm;
    return months[d.getUTCMonth()] + " " + d.getUTCDate() + " " + hm;
  }

  // formatAt matches internal/linechart.FormatAt: a point's time for the
  // readout, in seconds or to the millisecond.
  function formatAt(x, millis) { return formatX(x, true, millis ? 0.001 : 0); }

  // xTicks matches internal/linechart.XTicks: at most seven, whole numbers for
  // snapshots and steps, round clock times for wall time.
  function xTicks(lo, hi, isTime) {
    if (!(hi > lo)) return [lo];
    var step = isTime ? timeStep((hi - lo) / 5) : Math.max(niceStep((hi - lo) / 6), 1);
    var ticks = [];
    for (var i = Math.ceil(lo / step - 1e-9); i * step <= hi + step * 1e-9; i++) ticks.push(i * step);
    return ticks;
  }

  // asDrawn matches internal/linechart.Chart.AsDrawn: a wall-time chart that
  // spans less than a minute, or whose points share a time, is drawn against
  // the points' numbers 1…N, with their times kept for the readout.
  function asDrawn(d) {
    if (!d.xtime || !d.x.length) return;
    var lo = Math.min.apply(null, d.x), hi = Math.max.apply(null, d.x), seen = {}, tie = false;
    d.x.forEach(function (x) { tie = tie || seen[x]; seen[x] = true; });
    if (hi - lo >= 60 && !tie) return;
    d.xtime = false;
    d.timems = true;
    if (!d.xlabel || d.xlabel === "time") d.xlabel = "snapshot";
    d.times = d.x.slice();
    d.x = d.x.map(function (x, i) { return i + 1; });
  }

  function niceStep(v) {
    if (v <= 0) return 1;
    var p = Math.pow(10, Math.floor(Math.log10(v)));
    var ms = [1, 2, 5, 10];
    for (var i = 0; i < ms.length; i++) if (ms[i] * p >= v) return ms[i] * p;
    return 10 * p;
  }

  // yTicks matches internal/linechart.YTicks (with a negative minimum, as
  // Chart.Ticks): from zero to a round value strictly above the top.
  function yTicks(lo, top, unit) {
    lo = Math.min(lo, 0);
    var span = top - lo;
    if (!(span > 0) || !isFinite(span)) return [0, 1];
    var scale = 1;
    if (unit === "bytes") while (span / scale >= 1024 && scale < Math.pow(2, 60)) scale *= 1024;
    var step = niceStep(span / scale / 4) * scale;
    if (unit !== "bytes" && unit !== "nanoseconds") step = Math.max(step, 1);
    var start = lo < 0 ? Math.floor(lo / step) * step : 0, ticks = [];
    for (var t = start; ; t += step) {
      ticks.push(t);
      if (t > top) break;
    }
    return ticks;
  }

  function dataRange(d) {
    var lo = 0, hi = 0;
    d.series.forEach(function (s) {
      s.values.forEach(function (v) { if (v !== null) { lo = Math.min(lo, v); hi = Math.max(hi, v); } });
    });
    return [lo, Math.max(hi, d.ymax || 0)];
  }

  function columns(d) {
    return [d.x].concat(d.series.map(function (s) { return s.values; }));
  }

  function build(fig) {
    var d;
    try { d = JSON.parse(fig.getAttribute("data-chart-data")); } catch (e) { return; }
    if (!d || !d.series || !window.uPlot) return;
    d.x = d.x || [];
    asDrawn(d);
    var host = document.createElement("div");
    host.className = "uplot-host";
    var readout = document.createElement("div");
    readout.className = "chart-readout muted";
    readout.setAttribute("data-testid", "chart-readout");
    readout.setAttribute("aria-live", "polite");
    readout.textContent = "Hover over the chart for values; click a legend entry to hide its line.";
    var links = fig.querySelector(".chart-links");
    fig.insertBefore(host, links);
    fig.insertBefore(readout, links);

    var ticks = function () { var r = dataRange(d); return yTicks(r[0], r[1], d.unit); };

    var opts = {
      width: Math.max(200, host.clientWidth || fig.clientWidth || 320),
      height: 220,
      legend: { live: true },
      cursor: { points: { size: 9 }, focus: { prox: 24 } },
      scales: {
        x: {
          // The x axis's ticks and labels are ours (xTicks, formatX), as in
          // the static SVG, never uPlot's time ticks.
          time: false,
          range: function (u, lo, hi) {
            if (lo === null || hi === null) return [0, 1];
            if (lo === hi) return d.xtime ? [lo - 30, hi + 30] : [lo - 1, hi + 1];
            return [lo, hi];
          }
        },
        y: {
          range: function () { var t = ticks(); return [t[0], t[t.length - 1]]; }
        }
      },
      axes: [
        {
          label: d.xtime ? "time (UTC)" : d.xlabel,
          labelSize: 18,
          splits: function (u) { return xTicks(u.scales.x.min, u.scales.x.max, d.xtime); },
          values: function (u, splits) {
            var span = u.scales.x.max - u.scales.x.min;
            var labels = splits.map(function (x) { return formatX(x, d.xtime, span); });
            fig.setAttribute("data-xticks", labels.join("|"));
            return labels;
          }
        },
        {
          size: 70,
          splits: function () { return ticks(); },
          values: function (u, splits) {
            var labels = splits.map(function (v) { return formatY(v, d.unit); });
            fig.setAttribute("data-yticks", labels.join("|"));
            return labels;
          }
        }
      ],
      series: [{
        label: d.xtime ? "time" : d.xlabel,
        value: function (u, x) { return x === null || x === undefined ? "–" : formatX(x, d.xtime, 0); }
      }].concat(d.series.map(function (s) {
        return {
          label: s.name,
          stroke: colours[s.cls] || colours.s1,
          width: 2,
          spanGaps: true,
          // uPlot shows the markers while there is room for them.
          points: { size: 6, fill: colours[s.cls] || colours.s1 },
          value: function (u, v) { return formatValue(v, d.unit); }
        };
      })),
      hooks: {
        setCursor: [function (u) {
          var i = u.cursor.idx;
          if (i === null || i === undefined || i >= d.x.length) return;
          var parts = [];
          d.series.forEach(function (s, k) {
            if (u.series[k + 1].show) parts.push(s.name + " " + formatValue(s.values[i], d.unit));
          });
          var at = !d.xtime && d.times && d.times[i] > 0 ? " (" + formatAt(d.times[i], d.timems) + " UTC)" : "";
          readout.textContent = (d.xtime ? "" : d.xlabel + " ") + formatX(d.x[i], d.xtime, 0) + (d.xtime ? " UTC" : at) + ": " + parts.join(", ");
        }],
        draw: [function (u) {
          fig.setAttribute("data-ymax-scale", String(u.scales.y.max));
        }]
      }
    };
    var u = new uPlot(opts, columns(d), host);
    fig.classList.add("js-chart");
    fig.uplot = u;

    fig.addEventListener("leakui:data", function (e) {
      var nd = e.detail || {};
      if (nd.x) d.x = nd.x;
      if (nd.times) d.times = nd.times;
      if (nd.values) d.series.forEach(function (s) { if (nd.values[s.key]) s.values = nd.values[s.key]; });
      var wasTime = d.xtime;
      asDrawn(d);
      if (wasTime && !d.xtime) nd.xlabel = nd.xlabel || d.xlabel;
      if (nd.xlabel && (nd.xlabel !== d.xlabel || wasTime) && !d.xtime) {
        d.xlabel = nd.xlabel;
        u.axes[0].label = nd.xlabel;
        var key = u.root.querySelector(".u-legend .u-series:first-child .u-label");
        if (key) key.textContent = nd.xlabel;
      }
      u.setData(columns(d));
    });
    if (window.ResizeObserver) {
      new ResizeObserver(function () {
        var w = Math.max(200, host.clientWidth);
        if (Math.abs(w - u.width) > 2) u.setSize({ width: w, height: 220 });
      }).observe(fig);
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("figure[data-chart-data]").forEach(build);
  });
})();
