// leakui copy buttons: a button with data-copy puts its value (a SHA-256) on the
// clipboard and says so for a moment.
(function () {
  "use strict";
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("button[data-copy]");
    if (!b) return;
    var value = b.getAttribute("data-copy"), label = b.textContent;
    function done(text) {
      b.textContent = text;
      b.setAttribute("data-copied", text === "copied" ? "true" : "false");
      setTimeout(function () { b.textContent = label; }, 1500);
    }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(value).then(function () { done("copied"); }, function () { done("select it"); });
    } else {
      done("select it");
    }
  });
})();
