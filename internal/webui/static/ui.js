// Weir web UI: polls /api/status every second, updates the fields and
// tables marked with data-* attributes and redraws the SVG line charts.
// No libraries, no build step.
"use strict";

(function () {
  const colors = ["#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"];

  function get(obj, path) {
    for (const part of path.split(".")) {
      if (obj === null || obj === undefined) return undefined;
      obj = obj[part];
    }
    return obj;
  }

  function fmtBytes(v) {
    const units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let i = 0;
    while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
    return i === 0 ? v.toFixed(0) + " B" : v.toFixed(1) + " " + units[i];
  }

  function fmtRate(v) {
    if (v >= 100) return v.toFixed(0);
    if (v >= 1) return v.toFixed(1);
    return v.toFixed(2);
  }

  function fmt(v, how) {
    if (v === undefined || v === null) return "";
    switch (how) {
      case "bytes": return fmtBytes(v);
      case "rate": return fmtRate(v);
      case "pct": return (100 * v).toFixed(1) + "%";
      case "ms": return v.toFixed(2) + " ms";
      case "onoff": return v ? "on" : "off";
    }
    return String(v);
  }

  function updateFields(st) {
    for (const el of document.querySelectorAll("[data-field]")) {
      const v = get(st, el.dataset.field);
      if (v !== undefined) el.textContent = fmt(v, el.dataset.fmt);
    }
  }

  function link(kind, row) {
    switch (kind) {
      case "info": return row.info_addr ? "http://" + row.info_addr + "/" : "";
      case "table": return "/table?name=" + encodeURIComponent(row.name);
      case "region": return "/region?name=" + encodeURIComponent(row.encoded);
    }
    return "";
  }

  // A table body is re-rendered from its header's data-col columns.
  function updateTable(tbody, rows) {
    const heads = tbody.closest("table").querySelectorAll("thead th");
    const frag = document.createDocumentFragment();
    for (const row of rows || []) {
      const tr = document.createElement("tr");
      for (const th of heads) {
        const td = document.createElement("td");
        if (th.classList.contains("n")) td.className = "n";
        let v = get(row, th.dataset.col);
        let text = th.dataset.live && !row.live ? "—" : fmt(v, th.dataset.fmt === "code" ? "" : th.dataset.fmt);
        if (th.dataset.col === "limit_per_sec" && !v) text = "—";
        const href = th.dataset.link ? link(th.dataset.link, row) : "";
        let cell = td;
        if (href) { cell = document.createElement("a"); cell.href = href; td.appendChild(cell); }
        if (th.dataset.fmt === "code") { const c = document.createElement("code"); cell.appendChild(c); cell = c; }
        cell.textContent = text;
        tr.appendChild(td);
      }
      frag.appendChild(tr);
    }
    if (!rows || rows.length === 0) {
      const empty = tbody.querySelector("tr.empty");
      if (empty) frag.appendChild(empty);
    }
    tbody.replaceChildren(frag);
  }

  function updateEvents(ul, events) {
    const frag = document.createDocumentFragment();
    for (const e of events || []) {
      const li = document.createElement("li");
      li.textContent = new Date(e.time).toISOString().substring(11, 19) + " " + e.text;
      frag.appendChild(li);
    }
    if (frag.childNodes.length === 0) {
      const li = document.createElement("li");
      li.className = "empty";
      li.textContent = "none yet";
      frag.appendChild(li);
    }
    ul.replaceChildren(frag);
  }

  const svgNS = "http://www.w3.org/2000/svg";

  // drawChart draws series (name → [[t, v], ...]) and dashed limits
  // (name → v) into an SVG, in its own pixels (the viewBox follows its
  // size, so text is not stretched).
  function drawChart(svg, series, limits) {
    const W = svg.clientWidth || 600, H = svg.clientHeight || 160, pad = 4;
    svg.setAttribute("viewBox", "0 0 " + W + " " + H);
    let tmin = Infinity, tmax = -Infinity, vmax = 0, points = 0;
    for (const pts of Object.values(series)) {
      for (const [t, v] of pts) {
        tmin = Math.min(tmin, t); tmax = Math.max(tmax, t); vmax = Math.max(vmax, v);
      }
    }
    for (const v of Object.values(limits)) vmax = Math.max(vmax, v);
    if (vmax <= 0) vmax = 1;
    vmax *= 1.1;
    const x = t => tmax > tmin ? pad + (W - 2 * pad) * (t - tmin) / (tmax - tmin) : W / 2;
    const y = v => H - pad - (H - 2 * pad) * v / vmax;
    const nodes = [];
    const axis = document.createElementNS(svgNS, "text");
    axis.setAttribute("x", 6); axis.setAttribute("y", 14); axis.setAttribute("class", "axis");
    axis.textContent = "max " + fmtRate(vmax / 1.1);
    nodes.push(axis);
    Object.keys(series).forEach((name, i) => {
      const color = colors[i % colors.length];
      const pts = series[name];
      if (pts.length > 0) {
        const pl = document.createElementNS(svgNS, "polyline");
        pl.setAttribute("points", pts.map(([t, v]) => x(t).toFixed(1) + "," + y(v).toFixed(1)).join(" "));
        pl.setAttribute("stroke", color);
        pl.setAttribute("data-series", name);
        nodes.push(pl);
        points += pts.length;
      }
      if (limits[name] !== undefined) {
        const ln = document.createElementNS(svgNS, "line");
        ln.setAttribute("x1", pad); ln.setAttribute("x2", W - pad);
        ln.setAttribute("y1", y(limits[name])); ln.setAttribute("y2", y(limits[name]));
        ln.setAttribute("stroke", color); ln.setAttribute("class", "limit");
        nodes.push(ln);
      }
    });
    svg.replaceChildren(...nodes);
    svg.dataset.points = points;
    svg.dataset.updates = Number(svg.dataset.updates || 0) + 1;
  }

  function updateCharts(st) {
    for (const svg of document.querySelectorAll("svg[data-chart]")) {
      if (svg.dataset.chart === "history") {
        const series = {};
        for (const name of svg.dataset.series.split(",")) {
          series[name] = (st.history || []).map(p => [p.t, p[name]]);
        }
        drawChart(svg, series, {});
      } else if (svg.dataset.chart === "quota") {
        const series = {}, limits = {};
        for (const q of st.quotas || []) {
          if (!q.live) continue;
          const key = q.subject + " " + q.type;
          series[key] = (st.quota_history || []).filter(p => p.rates[key] !== undefined).map(p => [p.t, p.rates[key]]);
          if (q.limit_per_sec > 0) limits[key] = q.limit_per_sec;
        }
        drawChart(svg, series, limits);
        const legend = document.querySelector("[data-legend=quota]");
        if (legend) {
          legend.replaceChildren(...Object.keys(series).map((k, i) => {
            const s = document.createElement("span");
            s.style.color = colors[i % colors.length];
            s.textContent = " " + k;
            return s;
          }));
          if (Object.keys(series).length === 0) legend.textContent = "(no live usage reported)";
        }
      }
    }
  }

  async function poll() {
    try {
      const resp = await fetch("/api/status", { cache: "no-store" });
      if (!resp.ok) throw new Error(resp.status + " " + resp.statusText);
      const st = await resp.json();
      updateFields(st);
      for (const tbody of document.querySelectorAll("tbody[data-list]")) updateTable(tbody, st[tbody.dataset.list]);
      for (const ul of document.querySelectorAll("ul[data-list=events]")) updateEvents(ul, st.events);
      updateCharts(st);
      document.body.dataset.seq = st.seq;
      document.body.dataset.updates = Number(document.body.dataset.updates || 0) + 1;
      document.body.classList.remove("stale");
    } catch (e) {
      document.body.classList.add("stale");
      document.body.dataset.error = String(e);
    }
  }

  const page = document.body.dataset.page;
  if (page === "master" || page === "regionserver") {
    poll();
    setInterval(poll, 1000);
  }
})();
