// leakui dashboard behaviour: drag-and-drop uploads with progress, keyboard shortcuts.
// No inline scripts anywhere: the Content-Security-Policy forbids them.
(function () {
  "use strict";

  // Uploads: the drop zone posts the files to /api/artifacts with a progress bar and
  // opens the report; without JavaScript the form posts to /upload instead.
  function setupDropzone(form) {
    var zone = form.querySelector("[data-dropzone]");
    var input = form.querySelector("input[type=file]");
    var bar = form.querySelector("[data-testid=upload-progress]");
    var status = form.querySelector("[data-testid=upload-status]");
    if (!zone || !input) return;

    function show(msg, cls) {
      status.textContent = msg;
      status.className = "notice " + cls;
      status.hidden = false;
    }

    function send(files) {
      if (!files || files.length === 0) return;
      var data = new FormData();
      for (var i = 0; i < files.length; i++) data.append("file", files[i], files[i].name);
      var extra = form.querySelectorAll("[data-upload-field]");
      for (var j = 0; j < extra.length; j++) {
        if ((extra[j].type === "checkbox" || extra[j].type === "radio") && !extra[j].checked) continue;
        if (extra[j].value) data.append(extra[j].name, extra[j].value);
      }
      var xhr = new XMLHttpRequest();
      xhr.open("POST", form.getAttribute("data-api") || "/api/artifacts");
      xhr.setRequestHeader("Accept", "application/json");
      bar.hidden = false;
      bar.value = 0;
      show("Uploading " + files.length + (files.length === 1 ? " file…" : " files…"), "ok");
      xhr.upload.onprogress = function (e) {
        if (e.lengthComputable) bar.value = Math.round((e.loaded / e.total) * 100);
      };
      xhr.upload.onload = function () { show("Analyzing…", "ok"); };
      xhr.onload = function () {
        var body = {};
        try { body = JSON.parse(xhr.responseText); } catch (e) { body = { error: xhr.statusText }; }
        if (xhr.status >= 200 && xhr.status < 300 && body.report_url) {
          window.location.assign(body.report_url);
        } else {
          bar.hidden = true;
          show(body.error || ("Upload failed: HTTP " + xhr.status), "error");
        }
      };
      xhr.onerror = function () { bar.hidden = true; show("Upload failed: the server could not be reached.", "error"); };
      xhr.send(data);
    }

    zone.addEventListener("dragover", function (e) { e.preventDefault(); zone.classList.add("over"); });
    zone.addEventListener("dragleave", function () { zone.classList.remove("over"); });
    zone.addEventListener("drop", function (e) {
      e.preventDefault();
      zone.classList.remove("over");
      send(e.dataTransfer.files);
    });
    zone.addEventListener("click", function (e) { if (e.target === zone) input.click(); });
    zone.addEventListener("keydown", function (e) {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); input.click(); }
    });
    input.addEventListener("change", function () { send(input.files); });
    form.addEventListener("submit", function (e) { e.preventDefault(); send(input.files); });
  }

  // Keyboard: "u" picks a file to upload, "/" focuses the first search box, digits
  // switch the sample type, "?" lists the shortcuts.
  function setupKeys() {
    document.addEventListener("keydown", function (e) {
      var t = e.target;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT")) {
        if (e.key === "Escape") t.blur();
        return;
      }
      if (e.key === "u") {
        var input = document.querySelector("[data-testid=file-input]");
        if (input) { e.preventDefault(); input.click(); }
      } else if (e.key === "/") {
        // On a flame graph "/" searches its frames, not the pprof focus field.
        var search = document.querySelector("[data-testid=flame-search]") || document.querySelector("input[type=search]");
        if (search) { e.preventDefault(); search.focus(); }
      } else if (/^[1-9]$/.test(e.key)) {
        var tab = document.querySelector("[data-key='" + e.key + "']");
        if (tab) { e.preventDefault(); tab.click(); }
      } else if (e.key === "?") {
        var help = document.getElementById("shortcuts");
        if (help) help.hidden = !help.hidden;
      }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var forms = document.querySelectorAll("form[data-upload]");
    for (var i = 0; i < forms.length; i++) setupDropzone(forms[i]);
    setupKeys();
  });
})();
