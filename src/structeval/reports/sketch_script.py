"""The page's script that draws a task's structures (from :mod:`.sketch` data) when it opens.

Drawing in the browser, and only for the task being looked at, is what makes a
thousand-task page cheap to build. The drawing data and the raw answers (most
of a page's bytes, and very repetitive JSON) travel as one gzip-compressed,
base64-encoded block (:func:`packed_block`) that the browser's own
``DecompressionStream`` unpacks once; no library, nothing fetched. Every node
is made with ``createElementNS``/``createElement`` and every text with
``textContent``: point ids and answers are arbitrary text, and nothing from
the data is ever parsed as markup. Colours are only used as attribute values.
"""

from __future__ import annotations

import base64
import gzip
import json
from typing import Any

SKETCH_JS = r"""
(function () {
  "use strict";
  var block = document.getElementById("page-data");
  var ready = null;
  function payload() {
    if (!ready) {
      var bytes = Uint8Array.from(atob(block ? block.textContent.trim() : ""),
                                  function (c) { return c.charCodeAt(0); });
      var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      ready = new Response(stream).text().then(JSON.parse);
    }
    return ready;
  }
  var NS = "http://www.w3.org/2000/svg", INK = "#2a3140", WIDE = 340, PAD = 46, MH = 36;
  function el(name, attrs, parent) {
    var n = document.createElementNS(NS, name);
    Object.keys(attrs).forEach(function (k) { n.setAttribute(k, String(attrs[k])); });
    if (parent) { parent.appendChild(n); }
    return n;
  }
  function text(parent, x, y, s, attrs) {
    var t = el("text", Object.assign({x: x.toFixed(1), y: y.toFixed(1), "font-size": 10,
      "font-family": "sans-serif"}, attrs || {}), parent);
    t.textContent = String(s);
    return t;
  }
  function extent(d) {
    var xs = d.p.map(function (p) { return p[0]; }), ys = d.p.map(function (p) { return p[1]; });
    return {x0: Math.min.apply(null, xs), x1: Math.max.apply(null, xs),
            y0: Math.min.apply(null, ys), y1: Math.max.apply(null, ys)};
  }
  function size(b) { return Math.max(b.x1 - b.x0, b.y1 - b.y0, 1e-9); }
  function frame(d, scale) {
    var b = extent(d);
    var w = (b.x1 - b.x0) * scale + 2 * PAD, h = (b.y1 - b.y0) * scale + 2 * PAD;
    var svg = el("svg", {xmlns: NS, width: w.toFixed(0), height: h.toFixed(0),
                         viewBox: "0 0 " + w.toFixed(1) + " " + h.toFixed(1), "class": "sketch"});
    return {svg: svg, X: function (x) { return PAD + (x - b.x0) * scale; },
            Y: function (y) { return PAD + (b.y1 - y) * scale; }};
  }
  function members(f, d, colourless) {
    d.l.forEach(function (l) {
      var a = d.p[l[0]], b = d.p[l[1]];
      el("line", {x1: f.X(a[0]), y1: f.Y(a[1]), x2: f.X(b[0]), y2: f.Y(b[1]),
                  stroke: colourless ? "#b8bec8" : (l[4] || INK), "stroke-width": 2.4,
                  "stroke-linecap": "round"}, f.svg);
    });
  }
  function arrow(g, x1, y1, x2, y2, colour) {
    el("line", {x1: x1, y1: y1, x2: x2, y2: y2, stroke: colour, "stroke-width": 1.4}, g);
    var a = Math.atan2(y2 - y1, x2 - x1), k = 6;
    el("path", {d: "M" + x2 + " " + y2 + "L" + (x2 - k * Math.cos(a - 0.4)) + " " +
      (y2 - k * Math.sin(a - 0.4)) + "L" + (x2 - k * Math.cos(a + 0.4)) + " " +
      (y2 - k * Math.sin(a + 0.4)) + "Z", fill: colour}, g);
  }
  function supports(f, d) {
    d.s.forEach(function (s) {
      var p = d.p[s[0]], x = f.X(p[0]), y = f.Y(p[1]), c = s[3] || INK;
      var g = el("g", {transform: "rotate(" + (-s[2]) + " " + x + " " + y + ")"}, f.svg);
      el("title", {}, g).textContent = s[1];
      if (s[1] === "fixed") {
        el("rect", {x: x - 10, y: y, width: 20, height: 5, fill: c}, g);
      } else if (s[1] === "slider") {
        el("rect", {x: x - 9, y: y - 4, width: 18, height: 8, fill: "none", stroke: c}, g);
        el("line", {x1: x - 12, y1: y + 7, x2: x + 12, y2: y + 7, stroke: c}, g);
      } else {
        el("path", {d: "M" + x + " " + y + "l-7 12h14z", fill: "none", stroke: c,
                    "stroke-width": 1.4}, g);
        if (s[1] === "roller") {
          el("line", {x1: x - 10, y1: y + 16, x2: x + 10, y2: y + 16, stroke: c}, g);
        }
      }
    });
  }
  function loads(f, d) {
    d.f.forEach(function (q) {
      var c, g = el("g", {}, f.svg);
      if (q[0] === "f") {
        c = q[6] || "#a33"; var x = f.X(q[1]), y = f.Y(q[2]);
        arrow(g, x - q[3] * 26, y + q[4] * 26, x, y, c);
        text(g, x - q[3] * 30 + 3, y + q[4] * 30 - 3, q[5], {fill: c});
      } else if (q[0] === "q") {
        c = q[10] || "#a33";
        var wm = Math.max(Math.abs(q[7]), Math.abs(q[8]), 1e-9), k;
        for (k = 0; k <= 4; k += 1) {
          var t = k / 4, xs = f.X(q[1] + (q[3] - q[1]) * t), ys = f.Y(q[2] + (q[4] - q[2]) * t);
          var len = 6 + 14 * Math.abs(q[7] + (q[8] - q[7]) * t) / wm;
          arrow(g, xs - q[5] * len, ys + q[6] * len, xs, ys, c);
        }
        text(g, (f.X(q[1]) + f.X(q[3])) / 2 - q[5] * 26, (f.Y(q[2]) + f.Y(q[4])) / 2 +
             q[6] * 26 - 4, q[9], {fill: c, "text-anchor": "middle"});
      } else if (q[0] === "c") {
        c = q[5] || "#a33"; var cx = f.X(q[1]), cy = f.Y(q[2]), r = 11;
        el("path", {d: "M" + (cx + r) + " " + cy + "A" + r + " " + r + " 0 1 " +
          (q[3] > 0 ? 0 : 1) + " " + cx + " " + (cy + (q[3] > 0 ? r : -r)), fill: "none",
          stroke: c, "stroke-width": 1.4}, g);
        text(g, cx + r + 2, cy - r, q[4], {fill: c});
      }
    });
  }
  function joints(f, d) {
    d.l.forEach(function (l) {
      [[l[0], l[1], l[2]], [l[1], l[0], l[3]]].forEach(function (e) {
        if (!e[2]) { return; }
        var a = d.p[e[0]], b = d.p[e[1]], ax = f.X(a[0]), ay = f.Y(a[1]);
        var dx = f.X(b[0]) - ax, dy = f.Y(b[1]) - ay, n = Math.max(Math.hypot(dx, dy), 1e-9);
        el("circle", {cx: ax + 5 * dx / n, cy: ay + 5 * dy / n, r: 3.2, fill: "#fff",
                      stroke: INK, "stroke-width": 1.3}, f.svg);
      });
    });
    d.p.forEach(function (p) {
      var x = f.X(p[0]), y = f.Y(p[1]);
      if (p[3]) { el("circle", {cx: x, cy: y, r: 6, fill: "none", stroke: p[3],
                                "stroke-width": 2}, f.svg); }
      text(f.svg, x + 4, y - 5, p[2], {fill: "#5d6776", "font-size": 9});
    });
  }
  function structure(d, scale) {
    var f = frame(d, scale);
    members(f, d, false); supports(f, d); loads(f, d); joints(f, d);
    return f.svg;
  }
  function moments(d, scale, mscale) {
    var f = frame(d, scale), peak = 0;
    members(f, d, true);
    d.m.forEach(function (entry) {
      var l = d.l[entry[0]], a = d.p[l[0]], b = d.p[l[1]], s = entry[1], i;
      var L = Math.max(Math.hypot(b[0] - a[0], b[1] - a[1]), 1e-12);
      var ex = (b[0] - a[0]) / L, ey = (b[1] - a[1]) / L, pts = [];
      for (i = 0; i + 1 < s.length; i += 2) {
        var x = a[0] + ex * s[i], y = a[1] + ey * s[i], m = s[i + 1] * mscale;
        peak = Math.max(peak, Math.abs(s[i + 1]));
        pts.push([f.X(x) + ey * m, f.Y(y) + ex * m]);
      }
      if (!pts.length) { return; }
      var first = [f.X(a[0] + ex * s[0]), f.Y(a[1] + ey * s[0])];
      var last = [f.X(a[0] + ex * s[s.length - 2]), f.Y(a[1] + ey * s[s.length - 2])];
      var all = [first].concat(pts, [last]);
      el("polygon", {points: all.map(function (q) { return q[0].toFixed(1) + "," +
        q[1].toFixed(1); }).join(" "), fill: "rgba(31,78,137,0.25)", stroke: "#1f4e89",
        "stroke-width": 1.2}, f.svg);
    });
    text(f.svg, 4, 12, "max |M| = " + peak.toPrecision(4) + " kN·m", {fill: INK});
    return f.svg;
  }
  function peakOf(d) {
    var peak = 0;
    (d.m || []).forEach(function (e) {
      for (var i = 1; i < e[1].length; i += 2) { peak = Math.max(peak, Math.abs(e[1][i])); }
    });
    return peak;
  }
  function note(box, s) {
    var n = document.createElement("div");
    n.className = "noimg";
    n.textContent = s || "not available";
    box.appendChild(n);
  }
  function draw(details, d) {
    if (!d || details.getAttribute("data-drawn")) { return; }
    details.setAttribute("data-drawn", "1");
    var scale = d.gt ? WIDE / size(extent(d.gt)) : (d.cand ? WIDE / size(extent(d.cand)) : 1);
    var cscale = (d.cand && size(extent(d.cand)) * scale > 4 * WIDE) ?
      WIDE / size(extent(d.cand)) : scale;
    var peak = Math.max(d.gt ? peakOf(d.gt) : 0, d.cand ? peakOf(d.cand) : 0, 1e-12);
    var boxes = details.querySelectorAll("[data-which]");
    Array.prototype.forEach.call(boxes, function (box) {
      var which = box.getAttribute("data-which"), side = which.indexOf("cand") === 0 ?
        "cand" : "gt", m = which.slice(-1) === "m", s = d[side];
      var sc = side === "cand" ? cscale : scale;
      if (!s) { note(box, d[side + "Note"]); return; }
      if (m && !s.m) { note(box, s.mnote); return; }
      box.appendChild(m ? moments(s, sc, MH / peak) : structure(s, sc));
    });
  }
  function answer(details, all) {
    var texts = all[Number(details.getAttribute("data-order"))] || [];
    var pre = details.querySelector("pre");
    if (pre && !pre.textContent) {
      pre.textContent = texts[Number(details.getAttribute("data-attempt"))] || "";
    }
  }
  function whenOpen(selector, then) {
    Array.prototype.forEach.call(document.querySelectorAll(selector), function (x) {
      function go() { if (x.open) { payload().then(function (p) { then(x, p); }); } }
      x.addEventListener("toggle", go);
      go();
    });
  }
  whenOpen("details.drawings", function (x, p) {
    draw(x, p.s[Number(x.getAttribute("data-order"))]);
  });
  whenOpen("details.answer", function (x, p) { answer(x, p.a); });
  Array.prototype.forEach.call(document.querySelectorAll("img[data-from]"), function (img) {
    var from = document.getElementById(img.getAttribute("data-from"));
    if (from) { img.src = from.src; }
  });
})();
"""


def packed_block(element_id: str, value: Any) -> str:
    """``value`` as JSON, gzip-compressed and base64-encoded in a non-executed script
    element (the base64 alphabet cannot close it); mtime 0 keeps the bytes the same
    for the same value."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    packed = base64.b64encode(gzip.compress(text.encode("utf-8"), compresslevel=6, mtime=0))
    return (f"<script type='application/octet-stream' id='{element_id}'>"
            f"{packed.decode('ascii')}</script>")
