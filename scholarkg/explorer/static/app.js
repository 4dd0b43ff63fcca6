// scholarkg explore: the page. Plain JS, no build step; Cytoscape.js draws the graph.
// Every value from the graph is put into the page with textContent, never as HTML.
"use strict";

(function () {
  const TOKEN = document.querySelector('meta[name="scholarkg-token"]').content;
  const $ = (id) => document.getElementById(id);
  const state = { info: null, saved: [], boards: {}, selected: null, expanded: new Set(), last: null };

  // -- talking to the server -------------------------------------------------------------
  async function api(path, body) {
    const opts = { headers: { "X-Scholarkg-Token": TOKEN } };
    if (body !== undefined) {
      opts.method = "POST";
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    const res = await fetch(path, opts);
    const data = await res.json().catch(() => ({ error: res.statusText }));
    if (!res.ok) throw new Error(data.error || res.statusText);
    return data;
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  function setStatus(text, isError) {
    $("status").textContent = text;
    $("status").classList.toggle("error", !!isError);
  }

  function show(kind, name) {
    const tabs = kind === "view" ? "view-tabs" : "side-tabs";
    for (const b of $(tabs).querySelectorAll("button")) {
      b.classList.toggle("active", b.dataset[kind === "view" ? "view" : "panel"] === name);
    }
    const prefix = kind === "view" ? "view-" : "panel-";
    for (const sec of document.querySelectorAll(kind === "view" ? ".view" : ".panel")) {
      sec.classList.toggle("active", sec.id === prefix + name);
    }
    if (kind === "view" && name === "graph") cy.resize();
  }

  // -- the node-link view ------------------------------------------------------------------
  const PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948",
                   "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#86bcb6", "#d37295"];
  const colours = {};
  function colour(label) {
    if (!(label in colours)) colours[label] = PALETTE[Object.keys(colours).length % PALETTE.length];
    return colours[label];
  }

  function caption(node) {
    const p = node.properties || {};
    const board = p.dataset && p.metric ? `${p.dataset} · ${p.metric}` : null;  // a Leaderboard
    const text = p.title || p.name || p.method || board || p.text || p.url || p.id ||
      node.labels[0] || node.ref;
    const s = String(text);
    return s.length > 28 ? s.slice(0, 27) + "…" : s;
  }

  const cy = cytoscape({
    container: $("graph"),
    wheelSensitivity: 0.3,
    style: [
      { selector: "node", style: {
        "background-color": "data(colour)", label: "data(caption)", "font-size": 9,
        "text-valign": "bottom", "text-margin-y": 3, width: 22, height: 22, color: "#333",
        "text-wrap": "ellipsis", "text-max-width": 120 } },
      { selector: "node.expanded", style: { "border-width": 2, "border-color": "#333" } },
      { selector: "node:selected", style: { "border-width": 3, "border-color": "#2f6fb3" } },
      { selector: "edge", style: {
        width: 1.2, "line-color": "#b9b9b9", "target-arrow-color": "#b9b9b9",
        "target-arrow-shape": "triangle", "curve-style": "bezier", label: "data(type)",
        "font-size": 7, color: "#888", "text-rotation": "autorotate" } },
    ],
  });

  function addPayload(payload, around) {
    const added = [];
    for (const n of payload.nodes) {
      const id = "n" + n.ref;
      if (cy.getElementById(id).length) continue;
      const label = n.labels[0] || "(no label)";
      const data = { id, ref: n.ref, caption: caption(n), colour: colour(label), node: n };
      const spec = { group: "nodes", data };
      if (around) {
        const k = added.length, angle = (2 * Math.PI * k) / Math.max(1, payload.nodes.length);
        const p = around.position();
        spec.position = { x: p.x + 140 * Math.cos(angle), y: p.y + 140 * Math.sin(angle) };
      }
      added.push(cy.add(spec));
    }
    for (const r of payload.relationships) {
      const id = "r" + r.ref;
      if (cy.getElementById(id).length) continue;
      if (!cy.getElementById("n" + r.start).length || !cy.getElementById("n" + r.end).length) continue;
      cy.add({ group: "edges", data: { id, source: "n" + r.start, target: "n" + r.end, type: r.type, rel: r } });
    }
    legend();
    return added;
  }

  function legend() {
    const box = $("legend");
    box.replaceChildren();
    const seen = new Set(cy.nodes().map((n) => n.data("node").labels[0] || "(no label)"));
    for (const label of [...seen].sort()) {
      const dot = el("i");
      dot.style.background = colour(label);
      box.append(el("span", {}, dot, label));
    }
  }

  function drawResult(payload) {
    cy.elements().remove();
    state.expanded.clear();
    $("card").hidden = true;
    addPayload(payload);
    // force-directed for graphs that fit on a screen; a grid for edgeless or huge results,
    // where a force layout only piles nodes up (and takes seconds)
    const n = cy.nodes().length, grid = n > 300 || cy.edges().length === 0;
    cy.layout({ name: grid ? "grid" : "cose", animate: false, fit: true, padding: 30,
                nodeDimensionsIncludeLabels: true, avoidOverlap: true,
                nodeRepulsion: () => 8000, idealEdgeLength: () => 70 }).run();
  }

  async function expand(node) {
    const ref = node.data("ref");
    if (state.expanded.has(ref)) return;
    state.expanded.add(ref);
    node.addClass("expanded");
    try {
      const payload = await api("/api/expand", { ref });
      const added = addPayload(payload, node);
      setStatus(`expanded ${caption(node.data("node"))}: ${added.length} new node(s)`);
    } catch (err) {
      state.expanded.delete(ref);
      setStatus(err.message, true);
    }
  }

  function showCard(node) {
    const n = node.data("node");
    state.selected = n;
    const rows = Object.entries(n.properties).map(([k, v]) =>
      el("tr", {}, el("td", {}, k), el("td", {}, typeof v === "object" ? JSON.stringify(v) : String(v))));
    const card = $("card");
    card.replaceChildren(
      el("h4", {}, n.labels.map((l) => ":" + l).join(" ") || "(no label)"),
      el("div", { class: "muted" }, `ref ${n.ref} · ${node.degree()} relationship(s) shown`),
      el("table", { class: "kv" }, rows),
      el("p", {}, el("button", { class: "small", onclick: () => { card.hidden = true; } }, "close")),
    );
    card.hidden = false;
  }

  cy.on("tap", "node", (evt) => { showCard(evt.target); expand(evt.target); });

  // -- the table ---------------------------------------------------------------------------
  function cell(value, payload) {
    if (value && typeof value === "object" && !Array.isArray(value)) {
      if ("~node" in value) {
        const n = payload.nodeIndex[value["~node"]];
        const chip = el("span", { class: "chip", title: "show in the graph" },
          `(:${n.labels.join(":")} ${caption(n)})`);
        chip.addEventListener("click", () => {
          show("view", "graph");
          const node = cy.getElementById("n" + n.ref);
          cy.elements().unselect(); node.select(); showCard(node);
        });
        return chip;
      }
      if ("~rel" in value) {
        const r = payload.relIndex[value["~rel"]];
        return el("span", { class: "chip rel" }, `[:${r.type}]`);
      }
      if ("~path" in value) return el("span", { class: "chip rel" }, `path of ${(value["~path"].length - 1) / 2} hop(s)`);
    }
    const isRef = (v) => v && typeof v === "object" && ("~node" in v || "~rel" in v || "~path" in v);
    if (Array.isArray(value) && value.some(isRef)) {  // collect(n): chips, not JSON
      return el("span", {}, value.map((v, i) => [i ? " " : "", cell(v, payload)]));
    }
    if (value === null || value === undefined) return "";
    return typeof value === "object" ? JSON.stringify(value) : String(value);
  }

  function renderTable(container, columns, rows, payload) {
    const idx = payload || { nodeIndex: {}, relIndex: {} };
    const head = el("tr", {}, columns.map((c) => el("th", {}, c)));
    const body = rows.map((row) => el("tr", {}, row.map((v) =>
      el("td", { class: typeof v === "number" ? "num" : "" }, cell(v, idx)))));
    container.replaceChildren(el("table", {}, el("thead", {}, head), el("tbody", {}, body)));
  }

  // -- running queries ---------------------------------------------------------------------
  async function runQuery(text, params) {
    if (text !== undefined) $("query").value = text;
    if (params !== undefined) $("params").value = JSON.stringify(params, null, 2);
    let parsed;
    try {
      parsed = JSON.parse($("params").value || "{}");
    } catch (err) {
      setStatus("parameters are not valid JSON: " + err.message, true);
      return null;
    }
    setStatus("running…");
    $("run").disabled = true;
    try {
      const payload = await api("/api/query", { query: $("query").value, params: parsed });
      payload.nodeIndex = Object.fromEntries(payload.nodes.map((n) => [n.ref, n]));
      payload.relIndex = Object.fromEntries(payload.relationships.map((r) => [r.ref, r]));
      state.last = payload;
      renderTable($("table"), payload.columns, payload.rows, payload);
      // the view must be visible before the layout runs: a hidden container has no size
      show("view", payload.nodes.length ? "graph" : "table");
      drawResult(payload);
      const cut = !payload.truncated ? "" : payload.limited_by === "bytes"
        ? ` · cut at ${Math.round(payload.max_bytes / 1048576)} MiB of reply`
        : payload.limited_by === "depth" ? " · a value nested too deep was cut"
        : ` · only the first ${payload.row_limit} rows`;
      const warned = (payload.warnings || []).map((w) => ` · warning: ${w}`).join("");
      setStatus(`${payload.rows.length} row(s) · ${payload.nodes.length} node(s) · ` +
                `${payload.relationships.length} relationship(s) · ${payload.elapsed_ms} ms${cut}` +
                warned, warned !== "");
      return payload;
    } catch (err) {
      setStatus(err.message, true);
      return null;
    } finally {
      $("run").disabled = false;
    }
  }

  // A saved query's documented example parameters, with "<label>Id" parameters taken from
  // the node selected in the view when its label matches (paperId from a selected :Paper).
  // Returns the parameters and the labels it needed but found no selected node for.
  function savedParams(q) {
    const params = Object.assign({}, q.params);
    const sel = state.selected;
    const missing = [];
    for (const name of Object.keys(params)) {
      const m = /^(.*)Id$/.exec(name);
      if (!m) continue;
      const label = m[1].charAt(0).toUpperCase() + m[1].slice(1);
      if (sel && sel.properties.id !== undefined &&
          sel.labels.some((l) => l.toLowerCase() === m[1].toLowerCase())) {
        params[name] = sel.properties.id;
      } else {
        missing.push({ name, label });
      }
    }
    return { params, missing };
  }

  function runSaved(name, extra) {
    const q = state.saved.find((s) => s.name === name);
    if (!q) throw new Error("no saved query " + name);
    const { params, missing } = savedParams(q);
    const all = Object.assign(params, extra || {});
    const unset = missing.filter((m) => !(extra && m.name in extra));
    if (unset.length) {
      // the example id names no node of this graph: running it would return 0 rows and say
      // nothing; put the query in the editor and say what it needs instead
      $("query").value = q.text;
      $("params").value = JSON.stringify(all, null, 2);
      const what = unset.map((m) => `a :${m.label} (${m.name})`).join(" and ");
      setStatus(`"${q.title}" needs ${what}: click one in the graph or in a table, then ` +
                `run it again, or put its id under Parameters and press Run.`, true);
      return Promise.resolve(null);
    }
    return runQuery(q.text, all);
  }

  // -- side panels ---------------------------------------------------------------------------
  function item(title, sub, onclick, attrs) {
    return el("div", Object.assign({ class: "item", onclick }, attrs || {}),
      el("div", { class: "title" }, title), sub ? el("div", { class: "sub" }, sub) : null);
  }

  async function loadSaved() {
    state.saved = await api("/api/saved");
    $("panel-saved").replaceChildren(
      el("p", { class: "sub muted" }, "Click to run. Parameters named like paperId use the selected node."),
      ...state.saved.map((q) => item(q.title, q.why, () => runSaved(q.name), { "data-saved": q.name, title: q.why })));
  }

  function quoteName(name) { return "`" + String(name).replace(/`/g, "``") + "`"; }

  async function loadSchema() {
    const s = await api("/api/schema");
    const panel = $("panel-schema");
    const idx = el("div", {});
    renderTable(idx, ["label", "properties", "type", "state"],
      s.indexes.map((r) => [r.label, r.properties.join(", "), r.type, r.state]));
    panel.replaceChildren(
      el("h3", {}, "Node labels"),
      ...s.labels.map((l) => item(`:${l.name}`, `${l.count.toLocaleString()} node(s)`,
        () => runQuery(`MATCH (n:${quoteName(l.name)})\nRETURN n\nLIMIT 25`, {}), { "data-label": l.name })),
      el("h3", {}, "Relationship types"),
      ...s.relationships.map((r) => item(`[:${r.name}]`, `${r.count.toLocaleString()} relationship(s)`,
        () => runQuery(`MATCH p = ()-[:${quoteName(r.name)}]->()\nRETURN p\nLIMIT 25`, {}))),
      el("h3", {}, "Indexes and constraints"), idx);
  }

  async function loadLeaderboards() {
    const boards = await api("/api/leaderboards");
    state.boards = Object.fromEntries(boards.map((b) => [b.id, b]));
    $("panel-leaderboards").replaceChildren(
      boards.length ? "" : el("p", { class: "muted" }, "No leaderboards in this graph."),
      ...boards.map((b) => item(`${b.task} · ${b.dataset}`,
        `${b.metric} (${b.direction} is better) · ${b.results} result(s), ${b.gold_entries} gold`,
        () => openLeaderboard(b.id), { "data-leaderboard": b.id })));
  }

  async function openLeaderboard(id) {
    const data = await api("/api/leaderboard?id=" + encodeURIComponent(id));
    const b = Object.assign({}, state.boards[id], data.leaderboard);
    const box = $("details");
    const table = el("div", {});
    const rows = data.results.length ? data.results : data.gold;
    if (rows.length) {
      const cols = Object.keys(rows[0]);
      renderTable(table, cols, rows.map((r) => cols.map((c) => r[c])));
    }
    box.replaceChildren(
      el("h2", {}, `${b.task} · ${b.dataset} · ${b.metric}`),
      el("p", { class: "muted" }, `${data.direction} is better · source ${b.source || "–"} · ` +
        (data.results.length ? `${data.results.length} result(s), ranked` : "no results: ground-truth order")),
      el("p", {}, el("button", { class: "small", onclick: () => runSaved("leaderboard_graph", { leaderboardId: id }) },
        "Show in the graph")),
      table);
    show("view", "details");
  }

  function fmt(v) { return typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(4)) : v === null ? "–" : String(v); }

  async function loadRuns() {
    const runs = await api("/api/runs");
    $("panel-runs").replaceChildren(
      runs.length ? "" : el("p", { class: "muted" }, "No recorded runs yet (scholarkg bench …)."),
      ...runs.map((r) => item(
        // what ran, not only the task: the ranker or model, and whether it is the paper's
        // baseline or ours
        r.task + (r.answered_by ? ` · ${r.answered_by}` : "") + (r.role ? ` (${r.role})` : ""),
        `${r.created}` + (r.dataset ? ` · ${r.dataset}` : "") + " · " +
        Object.entries(r.metrics).slice(0, 3).map(([k, v]) => `${k}=${fmt(v)}`).join(", "),
        () => openRun(r.id), { "data-run": r.id })));
  }

  async function openRun(id) {
    const run = await api("/api/run?id=" + encodeURIComponent(id));
    const kv = (obj) => Object.keys(obj).length === 0 ? el("p", { class: "muted" }, "–") :
      el("table", { class: "kv" }, Object.entries(obj).map(([k, v]) =>
      el("tr", {}, el("td", {}, k), el("td", {}, typeof v === "object" && v !== null ? JSON.stringify(v) : fmt(v)))));
    const frame = el("iframe", { title: "report", sandbox: "",
      src: "/api/report?id=" + encodeURIComponent(id) + "&token=" + encodeURIComponent(TOKEN) });
    $("details").replaceChildren(
      el("h2", {}, run.task), el("p", { class: "muted" }, `${run.id} · ${run.instances} instance(s)`),
      el("h3", {}, "Metrics"), kv(run.metrics),
      el("h3", {}, "Models and configuration"), kv(Object.assign({}, run.models, run.config)),
      el("h3", {}, "Report"), frame);
    show("view", "details");
  }

  // -- wiring ------------------------------------------------------------------------------
  for (const b of $("side-tabs").querySelectorAll("button")) b.addEventListener("click", () => show("panel", b.dataset.panel));
  for (const b of $("view-tabs").querySelectorAll("button")) b.addEventListener("click", () => show("view", b.dataset.view));
  $("run").addEventListener("click", () => runQuery());
  for (const id of ["query", "params"]) {
    $(id).addEventListener("keydown", (e) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); runQuery(); }
    });
  }

  async function start() {
    try {
      state.info = await api("/api/info");
      const i = state.info;
      $("where").textContent = `${i.backend} · graph ${i.graph} · timeout ${i.timeout_ms / 1000} s · ` +
        `row limit ${i.row_limit}`;
      $("mode").textContent = i.allow_writes ? "writes allowed" : "read-only";
      $("mode").classList.toggle("writes", i.allow_writes);
      await Promise.all([loadSaved(), loadSchema(), loadLeaderboards(), loadRuns()]);
      document.body.dataset.ready = "1";
    } catch (err) {
      setStatus(err.message, true);
    }
  }

  window.scholarkgExplorer = { cy, runQuery, runSaved, expand, state };
  start();
})();
