// hrf serve's page: the test is checked as one types (debounced), the
// answer drawn as verdict cards, an outcome table and execution graphs.
"use strict";

const $ = (id) => document.getElementById(id);
const DEBOUNCE_MS = 250;
const state = { info: null, reply: null, seq: 0, controller: null, timer: null, graph: { model: 0, index: 0 } };

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v; else if (k.startsWith("on")) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

// ---------------------------------------------------------------- the request
function chosenModels() {
  const names = [...document.querySelectorAll("#models input:checked")].map((c) => c.value);
  if ($("cat-on").checked && $("cat").value.trim()) names.push({ cat: $("cat").value });
  return names;
}

function request() {
  return { test: $("test").value, models: chosenModels(), unroll: Number($("unroll").value) || 0 };
}

async function post(path, body, signal) {
  const r = await fetch(path, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), signal,
  });
  const text = await r.text();
  try { return JSON.parse(text); } catch (e) {
    return { ok: false, error: { kind: "HTTP " + r.status, message: text.slice(0, 300), where: "request" } };
  }
}

// ---------------------------------------------------------------- permalink
function b64encode(s) {
  const bytes = new TextEncoder().encode(s);
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function b64decode(s) {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  return new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

const LINK_MAX = 200000; // characters of test and cat text a link carries (browsers cap a URL's length)

function permalink() {
  if ($("test").value.length + $("cat").value.length > LINK_MAX) {
    $("permalink").removeAttribute("href");
    $("permalink").title = "too long for a link";
    return;
  }
  $("permalink").title = "a link that holds this test and these models";
  const p = new URLSearchParams();
  p.set("m", [...document.querySelectorAll("#models input:checked")].map((c) => c.value).join(","));
  p.set("u", $("unroll").value);
  p.set("t", b64encode($("test").value));
  if ($("cat-on").checked && $("cat").value.trim()) p.set("c", b64encode($("cat").value));
  const hash = "#" + p.toString();
  history.replaceState(null, "", hash);
  $("permalink").href = location.href;
}

function fromHash() {
  if (location.hash.length < 2) return false;
  const p = new URLSearchParams(location.hash.slice(1));
  try {
    $("test").value = b64decode(p.get("t") || "");
    const models = (p.get("m") || "").split(",");
    for (const c of document.querySelectorAll("#models input")) c.checked = models.includes(c.value);
    if (p.get("u") !== null) $("unroll").value = p.get("u");
    if (p.get("c")) { $("cat").value = b64decode(p.get("c")); $("cat-on").checked = true; $("catbox").open = true; }
  } catch (e) {
    showError({ kind: "Permalink", message: "this link's test could not be read: " + e.message, where: "request" });
    return false;
  }
  return true;
}

// ---------------------------------------------------------------- the editor
function escapeHtml(s) {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function paintEditor(error) {
  const lines = $("test").value.split("\n");
  const bad = error && error.where === "test" && error.line ? error.line : 0;
  $("gutter").replaceChildren(...lines.map((_, i) => el("div", i + 1 === bad ? { class: "err" } : {}, String(i + 1))));
  $("backdrop").innerHTML = lines.map((line, i) => {
    if (i + 1 !== bad) return escapeHtml(line);
    const col = Math.max(0, (error.column || 1) - 1);
    const at = line.slice(col, col + 1) || " ";
    return "<mark>" + escapeHtml(line.slice(0, col)) + '<span class="col">' + escapeHtml(at) + "</span>" +
      escapeHtml(line.slice(col + 1)) + "</mark>";
  }).join("\n") + "\n";
  syncScroll();
}

function syncScroll() {
  // the highlight layer as wide and high as the text's visible area (not
  // under its scroll bars), so that both scroll equally far on a long line
  $("backdrop").style.width = $("test").clientWidth + "px";
  $("backdrop").style.height = $("test").clientHeight + "px";
  // and the line numbers as far down as the text scrolls above its scroll bar
  $("gutter").style.paddingBottom = 4 + $("test").offsetHeight - $("test").clientHeight + "px";
  $("backdrop").scrollTop = $("test").scrollTop;
  $("backdrop").scrollLeft = $("test").scrollLeft;
  $("gutter").scrollTop = $("test").scrollTop;
}

function showError(error) {
  const box = error && error.where && error.where.startsWith("model") ? $("cat-error") : $("error");
  for (const b of [$("error"), $("cat-error")]) { b.hidden = true; b.textContent = ""; }
  if (!error) return;
  const at = error.line ? ` at line ${error.line}` + (error.column ? `, column ${error.column}` : "") : "";
  box.textContent = `${error.kind}${at}: ${error.message}`;
  box.hidden = false;
  if (box === $("cat-error")) $("catbox").open = true;
}

// ---------------------------------------------------------------- checking
function schedule() {
  clearTimeout(state.timer);
  document.body.dataset.state = "pending"; // an edit not yet answered (tests wait on it)
  stale(true);
  paintEditor(null);
  staleSoundness();
  state.timer = setTimeout(check, DEBOUNCE_MS);
}

// what the page shows is the previous test's until its answer comes: greyed, with a spinner
function stale(on) {
  $("right").classList.toggle("stale", on);
  $("status").classList.toggle("busy", on);
}

// the soundness panel answers for the test it was run on: cleared when the test changes
function staleSoundness() {
  if (!$("sound-out").textContent || $("sound-out").dataset.test === $("test").value) return;
  $("sound-out").replaceChildren(el("div", { class: "note" }, "the test changed: check soundness again"));
  $("sound-trace").hidden = true;
}

async function check() {
  permalink();
  if (state.controller) state.controller.abort();
  const controller = (state.controller = new AbortController());
  const seq = ++state.seq;
  // the graph shown is drawn from this check's own executions (no second search)
  const body = { ...request(), graph: { model: state.graph.model, index: Math.max(0, state.graph.index) } };
  document.body.dataset.state = "checking";
  if (!body.models.length) { $("status").textContent = "choose a model"; stale(false); document.body.dataset.state = "done"; return; }
  $("status").textContent = "checking…";
  const t0 = performance.now();
  let reply;
  try { reply = await post("/api/check", body, controller.signal); } catch (e) {
    if (e.name === "AbortError") return;
    reply = { ok: false, error: { kind: "Network", message: String(e), where: "request" } };
  }
  if (seq !== state.seq) return; // a newer edit was sent
  $("status").textContent = reply.ok ? `checked in ${Math.round(performance.now() - t0)} ms` : "error";
  render(reply);
  stale(false);
  if (seq === state.seq && document.body.dataset.state !== "pending") document.body.dataset.state = "done";
}

function render(reply) {
  state.reply = reply;
  if (!reply.ok) {
    showError(reply.error);
    paintEditor(reply.error);
    $("verdicts").replaceChildren();
    $("outcomes").replaceChildren();
    clearGraph();
    return;
  }
  // a model's own error (a cat model that does not compile) belongs to its box and card alone;
  // a refusal is not a syntax error: the editor stays unmarked, the card says so
  const broken = reply.models.find((m) => m.error && m.error.where.startsWith("model "));
  showError(broken ? broken.error : null);
  const wrong = reply.models.find((m) => m.error && m.error.where === "test" && !m.error.refused);
  paintEditor(wrong ? wrong.error : null);
  markReaders(reply.readers || null);
  $("verdicts").replaceChildren(...reply.models.map(card));
  if (reply.warnings && reply.warnings.length) $("verdicts").append(el("div", { class: "note" }, reply.warnings.join("\n")));
  outcomeTable(reply);
  const sel = $("graph-model");
  sel.replaceChildren(...reply.models.map((m, i) => el("option", { value: i }, m.label)));
  if (state.graph.model >= reply.models.length) state.graph = { model: 0, index: 0 };
  sel.value = state.graph.model;
  const g = reply.graph;
  const m = reply.models[state.graph.model];
  if (g && g.model === state.graph.model && g.svg) showGraph(g);
  else if (g && g.model === state.graph.model && g.error && m && !m.error) {
    $("graphs").hidden = false;
    $("graph-label").textContent = g.error;
  } else drawGraph();
}

function card(m, i) {
  if (m.error && m.error.refused) {
    const at = m.error.line ? ` (line ${m.error.line})` : "";
    const readers = (state.reply && state.reply.readers) || [];
    return el("div", { class: "card refused", "data-model": m.label }, el("h3", {}, m.label, " ", el("span", { class: "tag-refused" }, "refuses this test")),
      el("div", { class: "note" }, `${m.error.message}${at}`),
      el("div", { class: "note" }, readers.length ? `models that read it: ${readers.join(", ")}` : "no built-in model reads it"));
  }
  if (m.error) {
    const at = m.error.line ? ` (line ${m.error.line})` : "";
    return el("div", { class: "card", "data-model": m.label }, el("h3", {}, m.label),
      el("div", { class: "error" }, `${m.error.kind}${at}: ${m.error.message}`));
  }
  const obs = m.observation[0] ? `${m.observation[0]} ${m.observation[1]}/${m.observation[1] + m.observation[2]}` : "so far";
  // racy where a flag is a race, else the undefined behaviour the flags name (the server's results.flag_word)
  const race = m.racy === null ? el("span", {}, "race unknown") : el("span", { class: m.racy ? "racy" : "race-free" }, m.race_word);
  const c = el("div", { class: "card", "data-model": m.label },
    el("h3", {}, m.label, " ", el("span", { class: "verdict verdict-" + m.verdict }, m.verdict), " ", race),
    el("div", { class: "note" }, `${obs} · ${m.candidates} candidates · ${(m.time * 1000).toFixed(1)} ms`));
  for (const f of m.flags) {
    const events = (f.events || []).map((e) => el("li", {}, `${e.thread}, line ${e.line ?? "-"}: ${e.op} (${e.kind} ${e.loc ?? ""}=${e.value})`));
    c.append(el("div", { class: "flag" }, el("strong", {}, f.kind), " ",
      el("button", { class: "link graph-link", type: "button", onclick: () => showExecution(i, f.execution) }, "graph"),
      el("ul", {}, ...events)));
  }
  if (!m.complete && m.limit) c.append(el("div", { class: "error" }, `limit ${m.limit.which} reached: ${m.limit.detail}`));
  for (const n of m.notes) c.append(el("div", { class: "note" }, n));
  return c;
}

function outcomeTable(reply) {
  const head = el("tr", {}, el("th", {}, "outcome"), ...reply.models.map((m) => el("th", {}, m.label)));
  const rows = reply.outcomes.map((o) => el("tr", o.differs ? { class: "differs" } : {}, el("td", {}, o.outcome),
    ...o.allowed.map((a) => el("td", { class: a === null ? "" : a ? "yes" : "no" }, a === null ? "?" : a ? "allowed" : "forbidden"))));
  $("outcomes").replaceChildren(
    el("caption", {}, "Outcomes (rows where the models differ are marked; ? : no verdict, the model refused the test or did not compile)"),
    head, ...rows);
}

// the models that cannot read the test's dialect, marked in the list (with why in their title)
function markReaders(readers) {
  for (const box of document.querySelectorAll("#models label")) {
    const name = box.querySelector("input").value;
    const cannot = readers !== null && !readers.includes(name);
    box.classList.toggle("cannot", cannot);
    box.title = cannot ? "this model does not read this test's dialect" : box.dataset.doc || "";
  }
}

// ---------------------------------------------------------------- graphs
function clearGraph() {
  $("graphs").hidden = true;
  $("graph").removeAttribute("src");
  $("graph-label").textContent = "";
}

function showExecution(model, index) {
  state.graph = { model, index };
  $("graph-model").value = model;
  drawGraph();
  $("graphs").scrollIntoView({ behavior: "instant", block: "nearest" });
}

async function drawGraph() {
  const reply = state.reply;
  if (!reply || !reply.ok) return clearGraph();
  const m = reply.models[state.graph.model];
  if (!m || m.error || !m.executions.length) { clearGraph(); $("graph-label").textContent = m && m.error ? "" : "no execution"; return; }
  $("graphs").hidden = false;
  const n = m.executions.length;
  state.graph.index = ((state.graph.index % n) + n) % n;
  const spec = request().models[state.graph.model];
  const seq = state.seq;
  $("graph-pane").classList.add("stale");  // a sign of work until the drawing comes
  $("graph-label").textContent = "drawing…";
  const g = await post("/api/graph", { ...request(), models: [spec], index: state.graph.index });
  $("graph-pane").classList.remove("stale");
  if (seq !== state.seq) return;
  if (!g.ok) { $("graph-label").textContent = g.error.message; return; }
  showGraph(g);
}

function showGraph(g) {
  $("graphs").hidden = false;
  state.graph.index = g.index;
  const url = URL.createObjectURL(new Blob([g.svg], { type: "image/svg+xml" }));
  const old = $("graph").src;
  $("graph").src = url;
  $("graph-download").href = url;
  if (old && old.startsWith("blob:")) URL.revokeObjectURL(old);
  $("graph-label").textContent = `${g.index + 1} of ${g.count}: ${g.label}`;
}

// the graph's size: its natural width times the zoom (the pane scrolls to pan)
function zoom(f) {
  const g = $("graph");
  const z = Math.min(8, Math.max(0.25, (Number(g.dataset.zoom) || 1) * f));
  g.dataset.zoom = z;
  g.style.maxWidth = "none";
  g.style.width = `${Math.round(g.naturalWidth * z)}px`;
}

// ---------------------------------------------------------------- soundness
async function soundness() {
  $("sound-out").textContent = "exploring the machine…";
  $("sound-out").dataset.test = $("test").value;
  $("sound-trace").hidden = true;
  const s = await post("/api/soundness", { test: $("test").value, scheme: $("scheme").value, unroll: Number($("unroll").value) || 0 });
  if (!s.ok) { $("sound-out").replaceChildren(el("div", { class: "error" }, `${s.error.kind}: ${s.error.message}`)); return; }
  $("sound-out").replaceChildren(el("strong", { class: "sound-verdict" }, s.verdict), el("pre", {}, s.text));
  if (s.svg_error) $("sound-out").append(el("div", { class: "note" }, `no picture: ${s.svg_error}`));
  if (s.svg) {
    $("sound-trace").src = URL.createObjectURL(new Blob([s.svg], { type: "image/svg+xml" }));
    $("sound-trace").hidden = false;
  }
}

// ---------------------------------------------------------------- start
async function loadCorpus(name) {
  const r = await fetch("/api/corpus/" + name);
  if (!r.ok) return;
  $("test").value = await r.text();
  schedule();
}

async function start() {
  const info = (state.info = await (await fetch("/api/info")).json());
  $("version").textContent = "v" + info.version;
  const groups = {};
  for (const name of info.corpus) (groups[name.split("/")[0]] ||= []).push(name);
  for (const [g, names] of Object.entries(groups)) {
    $("corpus").append(el("optgroup", { label: g }, ...names.map((n) => el("option", { value: n }, n.split("/")[1]))));
  }
  for (const m of info.models) {
    $("models").append(el("label", { title: m.doc, "data-doc": m.doc }, el("input", { type: "checkbox", value: m.name, onchange: schedule }), " " + m.name));
  }
  $("scheme").replaceChildren(...info.schemes.map((s) => el("option", { value: s }, s)));
  $("test").addEventListener("input", schedule);
  $("test").addEventListener("scroll", syncScroll);
  $("unroll").addEventListener("change", schedule);
  $("cat").addEventListener("input", schedule);
  $("cat-on").addEventListener("change", schedule);
  $("cat-file").addEventListener("change", async (e) => {
    const f = e.target.files[0];
    if (f) { $("cat").value = await f.text(); $("cat-on").checked = true; schedule(); }
  });
  $("corpus").addEventListener("change", (e) => e.target.value && loadCorpus(e.target.value));
  $("graph-model").addEventListener("change", (e) => { state.graph = { model: Number(e.target.value), index: 0 }; drawGraph(); });
  $("prev").addEventListener("click", () => { state.graph.index--; drawGraph(); });
  $("next").addEventListener("click", () => { state.graph.index++; drawGraph(); });
  $("zoom-in").addEventListener("click", () => zoom(1.25));
  $("zoom-out").addEventListener("click", () => zoom(0.8));
  $("sound-run").addEventListener("click", soundness);
  if (fromHash()) { schedule(); return; }
  for (const c of document.querySelectorAll("#models input")) c.checked = c.value === "hrf-direct" || c.value === "hrf-indirect";
  $("corpus").value = "hrf/hrf14-fig6.litmus";
  await loadCorpus("hrf/hrf14-fig6.litmus");
}

start();
