// The review desk's keyboard and highlight helpers. The pages work without
// them; nothing here sends data anywhere.
(function () {
  "use strict";
  function typing(e) {
    var t = e.target;
    return t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.isContentEditable);
  }

  // Queue: j/k move the current row, Enter opens it, a/c/d open it at the
  // accept, correct or dismiss form.
  var rows = Array.prototype.slice.call(document.querySelectorAll("tr.row[data-href]"));
  var cur = -1;
  function select(i) {
    if (!rows.length) return;
    if (cur >= 0) rows[cur].classList.remove("cur");
    cur = Math.max(0, Math.min(rows.length - 1, i));
    rows[cur].classList.add("cur");
    rows[cur].scrollIntoView({ block: "nearest" });
  }
  function open(hash) {
    if (cur < 0) select(0);
    if (cur >= 0) window.location.href = rows[cur].getAttribute("data-href") + (hash || "");
  }

  // Document: a/c/d focus the form's first field (a person confirms with
  // Enter, so a stray key press changes nothing).
  function focusForm(id) {
    var f = document.getElementById(id);
    if (!f) return false;
    var el = f.querySelector("textarea, input[name]:not([type=hidden]), button");
    if (el) { el.focus(); f.scrollIntoView({ block: "nearest" }); }
    return true;
  }
  var keyForms = { a: "accept", c: "correct", d: "dismiss" };

  document.addEventListener("keydown", function (e) {
    if (typing(e) || e.ctrlKey || e.metaKey || e.altKey) return;
    if (rows.length) {
      if (e.key === "j") { select(cur + 1); e.preventDefault(); return; }
      if (e.key === "k") { select(cur - 1); e.preventDefault(); return; }
      if (e.key === "Enter") { open(""); e.preventDefault(); return; }
      if (keyForms[e.key]) { open("#" + keyForms[e.key]); e.preventDefault(); return; }
    } else if (keyForms[e.key] && focusForm(keyForms[e.key])) {
      e.preventDefault();
    }
  });
  if (window.location.hash) focusForm(window.location.hash.slice(1));

  // Hover a fact: its evidence lights up in the text.
  var marks = Array.prototype.slice.call(document.querySelectorAll("mark.ev"));
  Array.prototype.forEach.call(document.querySelectorAll("tr.fact[data-field]"), function (row) {
    var field = row.getAttribute("data-field");
    function light(on) {
      row.classList.toggle("lit", on);
      marks.forEach(function (m) {
        if ((" " + m.getAttribute("data-fields") + " ").indexOf(" " + field + " ") >= 0) m.classList.toggle("lit", on);
      });
    }
    row.addEventListener("mouseenter", function () { light(true); });
    row.addEventListener("mouseleave", function () { light(false); });
  });
})();
