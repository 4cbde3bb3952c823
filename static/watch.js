// leakui watch pages: while a page is open and visible, look at its JSON twin
// (data-json) every data-refresh seconds; when the watch has news (its
// version, or the list's JSON, changed), fetch the page again and put its
// live part (#watch-live) in place. A chart already drawn by charts.js takes
// the new numbers through its "leakui:data" event instead of being replaced.
// The pause button (keyboard reachable, aria-pressed) stops the looks;
// without scripts the page's noscript refresh does the same more bluntly.
(function () {
  "use strict";

  function chartValues(d) {
    var values = {};
    (d.series || []).forEach(function (s) { values[s.key] = s.values; });
    return { x: d.x, times: d.times, xlabel: d.xlabel, values: values };
  }

  // keepCharts moves each drawn chart of the old part into the new one,
  // feeding it the new numbers.
  function keepCharts(oldPart, newPart) {
    newPart.querySelectorAll("figure[data-chart-data]").forEach(function (fig) {
      var id = fig.getAttribute("data-chart");
      var old = oldPart.querySelector('figure.js-chart[data-chart="' + (window.CSS && CSS.escape ? CSS.escape(id) : id) + '"]');
      if (!old) return;
      var raw = fig.getAttribute("data-chart-data"), d;
      try { d = JSON.parse(raw); } catch (e) { return; }
      old.setAttribute("data-chart-data", raw);
      var stat = old.querySelector(".chart-static"), fresh = fig.querySelector(".chart-static");
      if (stat && fresh) stat.innerHTML = fresh.innerHTML;
      var cap = old.querySelector("figcaption"), freshCap = fig.querySelector("figcaption");
      if (cap && freshCap) cap.innerHTML = freshCap.innerHTML;
      fig.replaceWith(old);
      old.dispatchEvent(new CustomEvent("leakui:data", { detail: chartValues(d) }));
    });
  }

  function start(part) {
    var jsonURL = part.getAttribute("data-json");
    var every = Math.max(5, parseInt(part.getAttribute("data-refresh"), 10) || 30) * 1000;
    var version = part.getAttribute("data-version") || null;
    var status = document.querySelector("[data-watch-updated]");
    var pause = document.querySelector("[data-watch-pause]");
    var paused = false, timer = null, busy = false;

    function say(text) { if (status) status.textContent = text; }
    function clock() { return new Date().toISOString().slice(11, 19) + " UTC"; }

    function schedule() {
      clearTimeout(timer);
      if (!paused) timer = setTimeout(look, every);
    }

    function look() {
      if (paused || busy) return;
      if (document.hidden) { schedule(); return; }
      busy = true;
      fetch(jsonURL, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (r) { if (!r.ok) throw new Error(r.status + " " + r.statusText); return r.text(); })
        .then(function (text) {
          var v;
          try { v = JSON.parse(text).version || text; } catch (e) { v = text; }
          if (version === null) { version = v; return false; }
          if (v === version) return false;
          version = v;
          return fetch(location.pathname, { headers: { Accept: "text/html" }, credentials: "same-origin" })
            .then(function (r) { if (!r.ok) throw new Error(r.status + " " + r.statusText); return r.text(); })
            .then(function (html) {
              var doc = new DOMParser().parseFromString(html, "text/html");
              var fresh = doc.getElementById("watch-live");
              if (!fresh) return false;
              keepCharts(part, fresh);
              var focused = document.activeElement && document.activeElement.id;
              part.replaceChildren.apply(part, Array.from(fresh.childNodes));
              part.setAttribute("data-version", fresh.getAttribute("data-version") || "");
              if (doc.title) document.title = doc.title;
              if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
              return true;
            });
        })
        .then(function (changed) {
          say((changed ? "Updated at " : "Looked at ") + clock() + "; next look in " + every / 1000 + " s.");
          part.setAttribute("data-looked", String(Date.now()));
        })
        .catch(function (e) { say("Could not look for news (" + e.message + "); trying again in " + every / 1000 + " s."); })
        .then(function () { busy = false; schedule(); });
    }

    if (pause) {
      pause.hidden = false;
      pause.addEventListener("click", function () {
        paused = !paused;
        pause.setAttribute("aria-pressed", String(paused));
        pause.textContent = paused ? "Resume updates" : "Pause updates";
        say(paused ? "Updates paused." : "Updates resumed.");
        if (paused) clearTimeout(timer); else look();
      });
    }
    document.addEventListener("visibilitychange", function () { if (!document.hidden && !paused) look(); });
    look();
  }

  document.addEventListener("DOMContentLoaded", function () {
    var part = document.querySelector("[data-watch-live]");
    if (part) start(part);
  });
})();
