// The interactive throughput-against-area chart of a cipherfab study report (study/chart.py).
// Reads the JSON block #cf-chart-data, draws an SVG with log axes into #cf-chart, one mark per
// point (circle: ours, square: peers, triangle: papers), a tooltip on hover (label, command),
// checkboxes per architecture and S-box style, and a list of every point.  Filters can also
// come from the URL: #arch=iterative,column&sbox=rom.  No network, no library.
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  var data = JSON.parse(document.getElementById("cf-chart-data").textContent);
  var root = document.getElementById("cf-chart");
  var W = 900, H = 540, L = 80, R = 45, T = 30, B = 60;
  var pts = data.points;
  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function range(key) {
    var lo = Infinity, hi = -Infinity;
    pts.forEach(function (p) { lo = Math.min(lo, p[key]); hi = Math.max(hi, p[key]); });
    return [Math.pow(10, Math.floor(Math.log10(lo))), Math.pow(10, Math.ceil(Math.log10(hi)))];
  }
  var xr = range("slices"), yr = range("mbps");
  function sx(v) { return L + (Math.log10(v) - Math.log10(xr[0])) / (Math.log10(xr[1]) - Math.log10(xr[0])) * (W - L - R); }
  function sy(v) { return H - B - (Math.log10(v) - Math.log10(yr[0])) / (Math.log10(yr[1]) - Math.log10(yr[0])) * (H - T - B); }

  var svg = el("svg", {width: W, height: H, viewBox: "0 0 " + W + " " + H, role: "img",
                       "aria-label": data.title, "font-family": "sans-serif", "font-size": "12"});
  el("text", {x: L, y: 18, "font-weight": "bold"}, svg).textContent = data.title + (data.device ? " (" + data.device + ")" : "");
  function axis(r, horizontal) {
    for (var d = r[0]; d <= r[1] + 1e-9; d *= 10) {
      for (var m = 1; m < 10; m++) {
        var v = d * m;
        if (v > r[1] * 1.0000001) break;
        var major = m === 1;
        if (horizontal) {
          el("line", {x1: sx(v), x2: sx(v), y1: T, y2: H - B, stroke: major ? "#bbb" : "#eee"}, svg);
          if (major) el("text", {x: sx(v), y: H - B + 18, "text-anchor": "middle"}, svg).textContent = v.toLocaleString("en");
        } else {
          el("line", {x1: L, x2: W - R, y1: sy(v), y2: sy(v), stroke: major ? "#bbb" : "#eee"}, svg);
          if (major) el("text", {x: L - 6, y: sy(v) + 4, "text-anchor": "end"}, svg).textContent = v.toLocaleString("en");
        }
      }
    }
  }
  axis(xr, true);
  axis(yr, false);
  el("text", {x: (L + W - R) / 2, y: H - 14, "text-anchor": "middle"}, svg).textContent = data.x;
  el("text", {x: 16, y: (T + H - B) / 2, "text-anchor": "middle",
              transform: "rotate(-90 16 " + (T + H - B) / 2 + ")"}, svg).textContent = data.y;

  [["ours", "cipherfab (this study)"], ["peer", "peers (external cores)"], ["paper", "papers (as printed)"]].forEach(function (k, i) {
    var y = T + 14 + 18 * i, x = W - R - 190;
    if (k[0] === "peer") el("rect", {x: x - 5, y: y - 5, width: 10, height: 10, fill: "#d62728"}, svg);
    else if (k[0] === "paper") el("path", {d: "M" + x + "," + (y - 6) + "L" + (x + 6) + "," + (y + 5) + "L" + (x - 6) + "," + (y + 5) + "Z", fill: "#2ca02c"}, svg);
    else el("circle", {cx: x, cy: y, r: 5, fill: "#1f77b4"}, svg);
    el("text", {x: x + 12, y: y + 4}, svg).textContent = k[1];
  });
  var tip = document.createElement("div");
  tip.className = "cf-tip";
  tip.style.cssText = "position:absolute;display:none;background:#fff;border:1px solid #888;padding:4px 6px;font-size:12px;pointer-events:none;max-width:520px";
  var COLORS = {ours: "#1f77b4", peer: "#d62728", paper: "#2ca02c"};
  var marks = pts.map(function (p, i) {
    var x = sx(p.slices), y = sy(p.mbps), m;
    if (p.kind === "peer") m = el("rect", {x: x - 5, y: y - 5, width: 10, height: 10}, svg);
    else if (p.kind === "paper") m = el("path", {d: "M" + x + "," + (y - 6) + "L" + (x + 6) + "," + (y + 5) + "L" + (x - 6) + "," + (y + 5) + "Z"}, svg);
    else m = el("circle", {cx: x, cy: y, r: 5}, svg);
    m.setAttribute("fill", COLORS[p.kind]);
    m.setAttribute("fill-opacity", "0.8");
    m.setAttribute("data-point", p.label);
    m.setAttribute("class", "cf-mark cf-" + p.kind);
    el("title", {}, m).textContent = p.label;
    m.addEventListener("mouseenter", function (ev) {
      tip.innerHTML = "";
      var b = document.createElement("b"); b.textContent = p.label; tip.appendChild(b);
      tip.appendChild(document.createElement("br"));
      tip.appendChild(document.createTextNode(Math.round(p.slices).toLocaleString("en") + " slices, " + Math.round(p.mbps).toLocaleString("en") + " Mbit/s"));
      if (p.command) { tip.appendChild(document.createElement("br")); var c = document.createElement("code"); c.textContent = p.command; tip.appendChild(c); }
      tip.style.display = "block";
      tip.style.left = (ev.pageX + 12) + "px"; tip.style.top = (ev.pageY + 12) + "px";
    });
    m.addEventListener("mouseleave", function () { tip.style.display = "none"; });
    return m;
  });

  function values(key) {
    var seen = [];
    pts.forEach(function (p) { if (seen.indexOf(p[key]) < 0) seen.push(p[key]); });
    return seen.sort();
  }
  var wanted = {};
  (location.hash || "").replace(/^#/, "").split("&").forEach(function (kv) {
    var parts = kv.split("=");
    if (parts.length === 2 && parts[1]) wanted[parts[0]] = parts[1].split(",");
  });
  var controls = document.createElement("div");
  controls.className = "cf-filters";
  var boxes = {};
  ["arch", "sbox"].forEach(function (key) {
    var group = document.createElement("div");
    group.appendChild(document.createTextNode(key === "arch" ? "architecture: " : "S-box style: "));
    boxes[key] = values(key).map(function (v) {
      var lab = document.createElement("label");
      var box = document.createElement("input");
      box.type = "checkbox"; box.value = v;
      box.checked = !wanted[key] || wanted[key].indexOf(v) >= 0;
      box.addEventListener("change", apply);
      lab.appendChild(box); lab.appendChild(document.createTextNode(" " + v + " "));
      group.appendChild(lab);
      return box;
    });
    controls.appendChild(group);
  });
  var list = document.createElement("ol");
  list.className = "cf-list";
  var items = pts.map(function (p) {
    var li = document.createElement("li");
    li.setAttribute("data-point", p.label);
    li.textContent = p.label + " (" + p.kind + "): " + Math.round(p.slices).toLocaleString("en") + " slices, " +
      Math.round(p.mbps).toLocaleString("en") + " Mbit/s" + (p.command ? " - " + p.command : "");
    list.appendChild(li);
    return li;
  });
  function apply() {
    var on = {};
    ["arch", "sbox"].forEach(function (key) {
      on[key] = boxes[key].filter(function (b) { return b.checked; }).map(function (b) { return b.value; });
    });
    pts.forEach(function (p, i) {
      var shown = on.arch.indexOf(p.arch) >= 0 && on.sbox.indexOf(p.sbox) >= 0;
      marks[i].style.display = shown ? "" : "none";
      items[i].style.display = shown ? "" : "none";
      marks[i].setAttribute("data-shown", shown ? "1" : "0");
    });
    root.setAttribute("data-shown", String(pts.filter(function (p, i) { return marks[i].getAttribute("data-shown") === "1"; }).length));
  }
  root.appendChild(controls);
  root.appendChild(svg);
  root.appendChild(list);
  document.body.appendChild(tip);
  apply();
  root.setAttribute("data-rendered", String(pts.length));
})();
