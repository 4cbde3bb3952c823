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

  // reveal shows the buttons that need this script (hidden without it, when
  // the links to each object's page serve instead).
  function reveal(scope) {
    scope.querySelectorAll("[data-lazy], [data-testid=dominator-chain]").forEach(function (l) { l.setAttribute("data-js", ""); });
    scope.querySelectorAll("[data-testid=dominator-expand][hidden], [data-testid=suspect-chain][hidden]").forEach(function (b) { b.hidden = false; });
  }

  function srcOf(el) {
    var c = el.closest("[data-src]");
    return c ? c.getAttribute("data-src") : "";
  }

  function load(url) {
    return fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } }).then(function (r) {
      if (!r.ok) throw new Error(r.status + " " + r.statusText);
      return r.text();
    });
  }

  function fragment(html) {
    var t = document.createElement("template");
    t.innerHTML = html;
    return t.content;
  }

  function setOpen(btn, open) {
    btn.setAttribute("aria-expanded", String(open));
    btn.textContent = open ? "\u2212" : "+";
  }

  // expand loads (once) and shows or hides the children of a row.
  function expand(btn) {
    var li = btn.closest("li");
    var kids = li.querySelector(":scope > ul");
    if (kids) {
      var open = btn.getAttribute("aria-expanded") === "true";
      kids.hidden = open;
      setOpen(btn, !open);
      return;
    }
    btn.disabled = true;
    var url = srcOf(btn) + "?node=" + encodeURIComponent(btn.getAttribute("data-node")) +
      "&level=" + encodeURIComponent(btn.getAttribute("data-level")) + "&fragment=1";
    // A group row opens onto its class's objects; every level keeps the
    // tree's grouping by class.
    var cls = btn.getAttribute("data-class");
    if (cls) url += "&class=" + encodeURIComponent(cls);
    var tree = btn.closest("[data-group]");
    if (tree && tree.getAttribute("data-group")) url += "&group=" + encodeURIComponent(tree.getAttribute("data-group"));
    load(url).then(function (html) {
      var ul = document.createElement("ul");
      ul.setAttribute("data-testid", "dominator-children");
      ul.appendChild(fragment(html));
      reveal(ul);
      li.appendChild(ul);
      setOpen(btn, true);
      btn.disabled = false;
    }).catch(function (e) { btn.disabled = false; btn.title = "could not load: " + e.message; });
  }

  // more replaces a "show more" link with the next page of rows.
  function more(a) {
    var li = a.closest("li");
    load(a.getAttribute("href") + "&fragment=1").then(function (html) {
      var rows = fragment(html);
      var parent = li.parentNode;
      li.replaceWith(rows);
      reveal(parent);
    }).catch(function (e) { a.title = "could not load: " + e.message; });
  }

  // chain loads a suspect's dominator chain from the GC roots into its card.
  function chain(btn) {
    var list = btn.closest("section").querySelector("[data-testid=dominator-chain]");
    if (!list) return;
    if (list.childElementCount > 0) {
      list.hidden = !list.hidden;
      btn.setAttribute("aria-expanded", String(!list.hidden));
      return;
    }
    var src = btn.getAttribute("data-src");
    btn.disabled = true;
    load(src + "&chain=1").then(function (html) {
      list.setAttribute("data-src", src.split("?")[0]);
      list.appendChild(fragment(html));
      reveal(list);
      list.hidden = false;
      btn.setAttribute("aria-expanded", "true");
      btn.disabled = false;
    }).catch(function (e) { btn.disabled = false; btn.title = "could not load: " + e.message; });
  }

  document.addEventListener("click", function (e) {
    var t = e.target.closest("[data-testid=dominator-expand], [data-testid=dominator-more], [data-testid=suspect-chain]");
    if (!t) return;
    var kind = t.getAttribute("data-testid");
    if (kind === "dominator-more") {
      if (!srcOf(t)) return; // outside a lazy tree: follow the link
      e.preventDefault();
      more(t);
    } else if (kind === "suspect-chain") {
      chain(t);
    } else {
      expand(t);
    }
  });

  document.addEventListener("DOMContentLoaded", function () {
    var root = document.querySelector("[data-testid=analysis][data-status=analyzing]");
    if (root) follow(root);
    reveal(document);
  });
})();
