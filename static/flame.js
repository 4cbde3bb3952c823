// leakui flame graphs: an icicle (root at the top) drawn from the JSON the server
// embeds in the page, with tooltips, click to zoom, a breadcrumb back, and a search
// that highlights matching frames and shows their share of the total. The zoom and
// the search live in the URL (?zoom=a;b;c&search=re), so a link reproduces the
// view; a clicked or searched function links to its sandwich and to the profile
// focused on it. Without JavaScript the server's static SVG stays in place.
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

  // label fits a frame into chars characters as pprof's flame graph does: the
  // first of its display names that fits (the short name the server gives,
  // then what follows each "::" or "."), else the last cut from the left (the
  // server's flameLabel in web/profiles/flame_label.go does the same for the
  // static SVG).
  function label(short, chars) {
    var names = [short], re = /::|\./g, m;
    while ((m = re.exec(short)) !== null) {
      var end = m.index + m[0].length;
      if (end < short.length) names.push(short.slice(end));
    }
    for (var i = 0; i < names.length; i++) {
      if (Array.from(names[i]).length <= chars) return names[i];
    }
    if (chars < 3) return "";
    var r = Array.from(names[names.length - 1]);
    return "…" + r.slice(r.length - (chars - 1)).join("");
  }

  // quoteMeta escapes a name as Go's regexp.QuoteMeta does, for ?f=^name$.
  function quoteMeta(s) { return s.replace(/[\\.+*?()|[\]{}^$]/g, "\\$&"); }

  // withParam adds one query parameter to a URL that may have a query already.
  function withParam(url, key, value) {
    return url + (url.indexOf("?") >= 0 ? "&" : "?") + encodeURIComponent(key) + "=" + encodeURIComponent(value);
  }

  // build turns the preorder list [name, value, base, depth] into a tree.
  function build(data) {
    var nodes = [], stack = [];
    for (var i = 0; i < data.nodes.length; i++) {
      var r = data.nodes[i];
      var name = data.names[r[0]], s = data.short ? data.short[r[0]] : 0;
      var n = { name: name, short: typeof s === "number" ? name.slice(s) : s, value: r[1], base: r[2], depth: r[3], children: [], parent: null };
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
          t.textContent = label(n.short, Math.floor((w - 6) / 7));
          g.appendChild(t);
        }
        g.addEventListener("mousemove", function (e) { showTip(e, n); });
        g.addEventListener("mouseleave", function () { tip.hidden = true; });
        g.addEventListener("click", function () { zoom(n); select(n); });
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
        (data.dropped || data.base_dropped ? " (the page holds the " + (data.boxes || "") + " largest boxes; " + data.dropped.toLocaleString("en-US") +
          (data.base_dropped ? " smaller ones of the target's tree and " + data.base_dropped.toLocaleString("en-US") + " of the base's" : " smaller ones") +
          " stayed on the server: zoom shows detail down to them)" : "") + ".";
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

    var selected = box.querySelector("[data-testid=flame-selected]");
    var sandwichURL = box.getAttribute("data-sandwich") || "";
    var focusURL = box.getAttribute("data-focus") || "";

    // functionLinks fills el with a function's name and the links to its
    // sandwich and to the profile focused on it, when the page offers them.
    function functionLinks(el, prefix, name) {
      el.replaceChildren(document.createTextNode(prefix));
      var code = document.createElement("code");
      code.textContent = name;
      el.appendChild(code);
      if (sandwichURL) {
        var a = document.createElement("a");
        a.href = withParam(sandwichURL, "fn", name);
        a.textContent = "callers and callees";
        a.setAttribute("data-testid", "flame-sandwich");
        el.appendChild(document.createTextNode(" "));
        el.appendChild(a);
      }
      if (focusURL) {
        var f = document.createElement("a");
        f.href = withParam(focusURL, "f", "^" + quoteMeta(name) + "$");
        f.textContent = "focus";
        f.setAttribute("data-testid", "flame-focus");
        el.appendChild(document.createTextNode(" "));
        el.appendChild(f);
      }
    }

    function select(n) {
      if (!selected || n === root) { if (selected) selected.hidden = true; return; }
      functionLinks(selected, "selected: ", n.name);
      selected.hidden = false;
    }

    // pathOf names the frames from the root's child down to n, for ?zoom=.
    function pathOf(n) {
      var names = [];
      for (var a = n; a && a.parent; a = a.parent) names.unshift(a.name);
      return names.join(";");
    }

    // nodeAt follows a ?zoom= path from the root; it stops where a name is missing.
    function nodeAt(path) {
      var n = root;
      if (!path) return n;
      var names = path.split(";");
      for (var i = 0; i < names.length; i++) {
        var next = null;
        for (var j = 0; j < n.children.length; j++) if (n.children[j].name === names[i]) { next = n.children[j]; break; }
        if (!next) break;
        n = next;
      }
      return n;
    }

    // saveState writes the zoom and the search into the URL: a new history entry
    // for a zoom, the same entry while typing a search.
    function saveState(push) {
      if (!window.history || !window.URL) return;
      var u = new URL(window.location.href);
      var z = pathOf(focus), q = search.value.trim();
      if (z) u.searchParams.set("zoom", z); else u.searchParams.delete("zoom");
      if (q) u.searchParams.set("search", q); else u.searchParams.delete("search");
      if (u.href === window.location.href) return;
      if (push) window.history.pushState(null, "", u.href); else window.history.replaceState(null, "", u.href);
    }

    function zoom(n) { focus = n; draw(); saveState(true); }

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
        var best = largestMatch();
        if (best) functionLinks(selected, "largest match: ", best); else if (selected) selected.hidden = true;
        if (best && selected) selected.hidden = false;
      }
      draw();
    }

    // largestMatch is the matching function with the most value, each function
    // counted once per stack (its outermost frame), for the search's sandwich link.
    function largestMatch() {
      var byName = {}, best = null;
      (function walk(n, open) {
        var counted = open[n.name];
        if (matches(n) && !counted) byName[n.name] = (byName[n.name] || 0) + n.value;
        var inner = open;
        if (!counted) { inner = Object.create(open); inner[n.name] = true; }
        n.children.forEach(function (c) { walk(c, inner); });
      })(root, Object.create(null));
      Object.keys(byName).forEach(function (k) { if (best === null || byName[k] > byName[best]) best = k; });
      return best;
    }

    search.addEventListener("input", function () { runSearch(); saveState(false); });
    window.addEventListener("popstate", restore);

    // restore reads the zoom and the search from the URL.
    function restore() {
      var params = new URLSearchParams(window.location.search);
      search.value = params.get("search") || "";
      focus = nodeAt(params.get("zoom"));
      if (search.value) runSearch(); else { query = null; matchInfo.textContent = ""; draw(); }
      if (focus !== root) select(focus);
    }
    window.addEventListener("resize", draw);
    // "w" follows the link to the other layout (full width, or beside the table).
    var layout = box.querySelector("[data-testid=flame-layout]");
    if (layout) {
      document.addEventListener("keydown", function (e) {
        var t = e.target;
        if (e.key !== "w" || e.ctrlKey || e.metaKey || e.altKey) return;
        if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT")) return;
        e.preventDefault();
        layout.click();
      });
    }
    box.classList.add("interactive");
    restore();
  }

  document.addEventListener("DOMContentLoaded", function () {
    var boxes = document.querySelectorAll("[data-flame]");
    for (var i = 0; i < boxes.length; i++) setup(boxes[i]);
  });
})();
