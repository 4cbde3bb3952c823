// leakui flame graphs: an icicle (root at the top) drawn from the JSON the server
// embeds in the page, with tooltips, click to zoom, a breadcrumb back, and a search
// that highlights matching frames and shows their share of the total. Without
// JavaScript the server's static SVG stays in place.
(function () {
  "use strict";
  var SVGNS = "http://www.w3.org/2000/svg";
  var ROW = 18;

  function formatValue(v, unit) {
    var neg = v < 0, a = Math.abs(v), s;
    if (unit === "bytes") {
      var units = ["B", "kB", "MB", "GB", "TB", "PB"], i = 0;
      while (a >= 1024 && i < units.length - 1) { a /= 1024; i++; }
      s = i === 0 ? a + " B" : a.toFixed(1) + " " + units[i];
    } else if (unit === "nanoseconds") {
      s = a >= 1e9 ? (a / 1e9).toFixed(2) + " s" : a >= 1e6 ? (a / 1e6).toFixed(2) + " ms" : a >= 1e3 ? (a / 1e3).toFixed(2) + " µs" : a + " ns";
    } else {
      s = a.toLocaleString("en-US");
    }
    return (neg ? "-" : "") + s;
  }

  function pct(v, total) {
    if (!total) return "0%";
    return (100 * v / total).toFixed(2) + "%";
  }

  // build turns the preorder list [name, value, base, depth] into a tree.
  function build(data) {
    var nodes = [], stack = [];
    for (var i = 0; i < data.nodes.length; i++) {
      var r = data.nodes[i];
      var n = { name: data.names[r[0]], value: r[1], base: r[2], depth: r[3], children: [], parent: null };
      while (stack.length > n.depth) stack.pop();
      if (stack.length > 0) { n.parent = stack[stack.length - 1]; n.parent.children.push(n); }
      stack.push(n);
      nodes.push(n);
    }
    return nodes[0];
  }

  // hue is FNV-1a, as the server uses for the static picture, so colours agree.
  function hue(name) {
    var h = 2166136261;
    for (var i = 0; i < name.length; i++) { h ^= name.charCodeAt(i); h = Math.imul(h, 16777619) >>> 0; }
    return h;
  }

  function colour(n, data, maxDelta) {
    if (data.diff) {
      var d = n.value - n.base;
      if (d === 0 || maxDelta === 0) return "rgb(220,220,220)";
      var k = Math.min(1, Math.abs(d) / maxDelta), c = Math.round(225 - 160 * k);
      return d > 0 ? "rgb(240," + c + "," + c + ")" : "rgb(" + c + "," + c + ",240)";
    }
    var h = hue(n.name);
    return "rgb(" + (205 + (h % 50)) + "," + (80 + ((h >>> 8) % 130)) + "," + (40 + ((h >>> 16) % 50)) + ")";
  }

  function setup(box) {
    var script = box.querySelector("script[type='application/json']");
    if (!script) return;
    var data = JSON.parse(script.textContent);
    var root = build(data);
    var svgHolder = box.querySelector("[data-flame-svg]");
    var crumbs = box.querySelector("[data-testid=flame-breadcrumb]");
    var tip = box.querySelector("[data-testid=flame-tooltip]");
    var search = box.querySelector("[data-testid=flame-search]");
    var matchInfo = box.querySelector("[data-testid=flame-match]");
    var hiddenInfo = box.querySelector("[data-testid=flame-hidden]");
    var maxDelta = 0;
    (function walk(n) {
      maxDelta = Math.max(maxDelta, Math.abs(n.value - n.base));
      n.children.forEach(walk);
    })(root);
    var focus = root, query = null;

    function matches(n) { return query && query.test(n.name); }

    function draw() {
      var width = svgHolder.clientWidth || 1200;
      var rows = 0, drawn = 0, hidden = 0;
      var svg = document.createElementNS(SVGNS, "svg");
      svg.setAttribute("width", width);
      svg.setAttribute("data-testid", "flame-svg");
      svg.setAttribute("role", "img");
      var scale = focus.value > 0 ? width / focus.value : 0;
      // Ancestors of the focus are drawn full width above it.
      var chain = [];
      for (var a = focus; a; a = a.parent) chain.unshift(a);
      function rect(n, x, w, depth) {
        var g = document.createElementNS(SVGNS, "g");
        g.setAttribute("data-testid", "flame-box");
        g.setAttribute("data-name", n.name);
        if (matches(n)) g.setAttribute("data-match", "true");
        var r = document.createElementNS(SVGNS, "rect");
        r.setAttribute("x", x.toFixed(1));
        r.setAttribute("y", depth * ROW);
        r.setAttribute("width", Math.max(w - 0.5, 0.5).toFixed(1));
        r.setAttribute("height", ROW - 1);
        r.setAttribute("fill", matches(n) ? "rgb(190,60,220)" : colour(n, data, maxDelta));
        g.appendChild(r);
        if (w > 35) {
          var t = document.createElementNS(SVGNS, "text");
          t.setAttribute("x", (x + 3).toFixed(1));
          t.setAttribute("y", depth * ROW + 13);
          var chars = Math.floor((w - 6) / 7);
          t.textContent = n.name.length > chars ? n.name.slice(0, Math.max(chars - 1, 1)) + "…" : n.name;
          g.appendChild(t);
        }
        g.addEventListener("mousemove", function (e) { showTip(e, n); });
        g.addEventListener("mouseleave", function () { tip.hidden = true; });
        g.addEventListener("click", function () { zoom(n); });
        svg.appendChild(g);
        drawn++;
        rows = Math.max(rows, depth + 1);
      }
      for (var i = 0; i < chain.length - 1; i++) rect(chain[i], 0, width, i);
      (function layout(n, x, depth) {
        var w = n.value * scale;
        if (w < 1) { hidden += n.value; return; }
        rect(n, x, w, depth);
        var cx = x;
        for (var j = 0; j < n.children.length; j++) {
          layout(n.children[j], cx, depth + 1);
          cx += n.children[j].value * scale;
        }
      })(focus, 0, chain.length - 1);
      svg.setAttribute("height", rows * ROW);
      svgHolder.replaceChildren(svg);
      hiddenInfo.textContent = drawn + " boxes drawn; boxes narrower than a pixel are left out, with " +
        formatValue(hidden, data.unit) + " (" + pct(hidden, data.total) + " of the total) under them" +
        (data.dropped ? " (the page holds the " + (data.boxes || "") + " largest boxes; " + data.dropped.toLocaleString("en-US") +
          " smaller ones stayed on the server: zoom shows detail down to them)" : "") + ".";
      drawCrumbs(chain);
    }

    function drawCrumbs(chain) {
      crumbs.replaceChildren();
      chain.forEach(function (n, i) {
        if (i > 0) crumbs.appendChild(document.createTextNode(" › "));
        var b = document.createElement("button");
        b.type = "button";
        b.className = "secondary";
        b.textContent = i === 0 ? "all" : n.name;
        b.setAttribute("data-testid", "flame-crumb");
        b.addEventListener("click", function () { zoom(n); });
        crumbs.appendChild(b);
      });
    }

    function showTip(e, n) {
      var lines = [n.name, formatValue(n.value, data.unit) + " (" + pct(n.value, data.total) + " of the total)"];
      if (data.diff) lines.push("base " + formatValue(n.base, data.unit) + ", change " + formatValue(n.value - n.base, data.unit));
      tip.textContent = lines.join("\n");
      tip.hidden = false;
      var rect = box.getBoundingClientRect();
      tip.style.left = Math.min(e.clientX - rect.left + 12, rect.width - 320) + "px";
      tip.style.top = (e.clientY - rect.top + 14) + "px";
    }

    function zoom(n) { focus = n; draw(); }

    function runSearch() {
      var q = search.value.trim();
      query = null;
      matchInfo.textContent = "";
      if (q) {
        try { query = new RegExp(q); } catch (err) { matchInfo.textContent = "invalid regexp: " + err.message; }
      }
      if (query) {
        var total = 0, count = 0;
        (function walk(n) {
          if (matches(n)) { total += n.value; count++; return; } // nested matches count once
          n.children.forEach(walk);
        })(root);
        (function walkAll(n) { if (matches(n)) count++; n.children.forEach(walkAll); })(root);
        matchInfo.textContent = count === 0 ? "no frame matches" :
          "matched: " + formatValue(total, data.unit) + " (" + pct(total, data.total) + " of the total)";
      }
      draw();
    }

    search.addEventListener("input", runSearch);
    window.addEventListener("resize", draw);
    box.classList.add("interactive");
    draw();
  }

  document.addEventListener("DOMContentLoaded", function () {
    var boxes = document.querySelectorAll("[data-flame]");
    for (var i = 0; i < boxes.length; i++) setup(boxes[i]);
  });
})();
