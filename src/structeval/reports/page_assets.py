"""The report page's stylesheet and script, inlined so the page works from a mail attachment.

The script only filters and reorders task sections that are already in the
page (data attributes carry the keys), so the report reads fine with
scripting disabled, and nothing in it can reach the network: the page's
Content-Security-Policy forbids every fetch except inline data.
"""

CSP = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
       "script-src 'unsafe-inline'; base-uri 'none'; form-action 'none'")

CSS = """
:root { --ink: #1d2430; --muted: #5d6776; --line: #d9dee6; --bg: #f6f7f9; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; color: var(--ink); background: var(--bg); }
header, main { max-width: 1500px; margin: 0 auto; padding: 12px 20px; }
h1 { font-size: 22px; margin: 8px 0 2px; }
h2 { font-size: 18px; margin: 22px 0 8px; border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 0 0 8px; }
h4 { font-size: 13px; margin: 10px 0 4px; color: var(--muted); text-transform: uppercase; }
.meta { color: var(--muted); margin: 0; }
table { border-collapse: collapse; background: #fff; margin: 6px 16px 10px 0; }
td, th { border: 1px solid var(--line); padding: 3px 8px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.tables, .charts { display: flex; flex-wrap: wrap; align-items: flex-start; gap: 8px; }
.chart { background: #fff; border: 1px solid var(--line); }
#controls { position: sticky; top: 0; z-index: 2; background: var(--bg); padding: 8px 0;
  border-bottom: 1px solid var(--line); display: flex; flex-wrap: wrap; gap: 14px; }
#controls label { font-size: 13px; }
article.task { background: #fff; border: 1px solid var(--line); border-radius: 6px;
  padding: 12px 14px; margin: 12px 0; }
.figs { display: grid; grid-template-columns: repeat(auto-fit, minmax(280px, 1fr)); gap: 10px; }
figure { margin: 0; border: 1px solid var(--line); padding: 6px; background: #fff; }
figure img { max-width: 100%; height: auto; display: block; margin: 0 auto; }
figcaption { font-size: 12px; color: var(--muted); margin-top: 4px; }
.noimg { color: var(--muted); font-style: italic; padding: 24px 8px; text-align: center; }
.stage { display: inline-block; padding: 0 7px; border-radius: 9px; font-size: 12px;
  color: #fff; background: #7f7f7f; }
.s-perfect { background: #00795a; } .s-loads { background: #2b7fb0; }
.s-releases { background: #8a7d00; } .s-supports { background: #b07800; }
.s-geometry { background: #b34a00; } .s-invalid, .s-no_json, .s-unavailable { background: #666; }
.legend span.swatch { display: inline-block; width: 11px; height: 11px; margin: 0 4px 0 10px;
  vertical-align: -1px; }
ol.attempts > li { margin-bottom: 8px; }
pre { white-space: pre-wrap; word-break: break-word; background: #f3f4f7; padding: 6px;
  border-radius: 4px; max-height: 320px; overflow: auto; font-size: 12px; margin: 4px 0; }
.notes { color: #8a3b00; }
article.structure { background: #fff; border: 1px solid var(--line); border-radius: 6px;
  padding: 10px 14px; margin: 10px 0; }
article.structure .figs { grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); }
td[rowspan] { vertical-align: top; }
td.v { text-align: left; }
img.thumb { max-width: 260px; height: auto; }
details.drawings > summary { cursor: pointer; color: var(--muted); margin: 6px 0; }
.sk svg { max-width: 100%; height: auto; display: block; margin: 0 auto; }
.fig-note { font-size: 12px; color: #8a3b00; }
"""

JS = """
(function () {
  "use strict";
  var list = document.getElementById("task-list");
  if (!list) { return; }
  var tasks = Array.prototype.slice.call(list.querySelectorAll("article.task"));
  var rank = {unavailable: -1, no_json: 0, invalid: 1, geometry: 2, supports: 3,
              releases: 4, loads: 5, perfect: 6};
  function num(t, key) { return Number(t.getAttribute("data-" + key)); }
  var orders = {
    dataset: function (a, b) { return num(a, "order") - num(b, "order"); },
    id: function (a, b) {
      var x = a.getAttribute("data-id"), y = b.getAttribute("data-id");
      return x < y ? -1 : (x > y ? 1 : 0);
    },
    "difficulty-desc": function (a, b) { return num(b, "difficulty") - num(a, "difficulty"); },
    "ratio-asc": function (a, b) { return num(a, "ratio") - num(b, "ratio"); },
    "ratio-desc": function (a, b) { return num(b, "ratio") - num(a, "ratio"); },
    stage: function (a, b) {
      return rank[a.getAttribute("data-stage")] - rank[b.getAttribute("data-stage")];
    }
  };
  function value(id) { return document.getElementById(id).value; }
  var factorSelects = Array.prototype.slice.call(document.querySelectorAll("select.f-factor"));
  var shownFigures = Array.prototype.slice.call(document.querySelectorAll("figure.shown"));
  var structures = Array.prototype.slice.call(document.querySelectorAll("article.structure"));
  function factorsMatch(el) {
    return factorSelects.every(function (s) {
      return !s.value || el.getAttribute("data-f-" + s.getAttribute("data-factor")) === s.value;
    });
  }
  function applyFactors() {
    shownFigures.forEach(function (f) { f.hidden = !factorsMatch(f); });
    structures.forEach(function (a) {
      a.hidden = !a.querySelector("figure.shown:not([hidden])");
    });
  }
  function apply() {
    var stage = value("f-stage"), category = value("f-category");
    var difficulty = value("f-difficulty"), order = orders[value("f-sort")] || orders.dataset;
    var sorted = tasks.slice().sort(function (a, b) {
      return order(a, b) || num(a, "order") - num(b, "order");
    });
    var shown = 0;
    sorted.forEach(function (t) {
      var ok = (!stage || t.getAttribute("data-stage") === stage) &&
               (!category || t.getAttribute("data-category") === category) &&
               (!difficulty || t.getAttribute("data-difficulty") === difficulty) &&
               factorsMatch(t);
      t.hidden = !ok;
      if (ok) { shown += 1; }
      list.appendChild(t);
    });
    document.getElementById("shown").textContent =
      shown + " of " + tasks.length + " task(s) shown";
    applyFactors();
  }
  ["f-stage", "f-category", "f-difficulty", "f-sort"].forEach(function (id) {
    document.getElementById(id).addEventListener("change", apply);
  });
  factorSelects.forEach(function (s) { s.addEventListener("change", apply); });
  apply();
})();
"""
