// recycle studio: the editor (line numbers, colouring, positioned errors as you type),
// the runs with their progress, the graph and the tree, tables and replays. Every text
// from a game file, a record or the server goes into the page as text, never as HTML;
// figures (SVG) are shown as images, where no script of theirs can run.
"use strict";
(function () {
  const token = new URLSearchParams(location.search).get("token") || "";
  const $ = (id) => document.getElementById(id);
  const el = window.RecycleTable.el;
  let current = null;     // the path of the open game
  let saved = "";         // its text as saved
  let checkTimer = null, lintTimer = null, checkSeq = 0;
  let messages = [], simFindings = [];
  let runJob = null;

  async function api(method, path, body) {
    const opts = { method, headers: { "X-Token": token } };
    if (body !== undefined) { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body); }
    const r = await fetch(path, opts);
    const data = await r.json().catch(() => ({ error: "the studio did not answer (" + r.status + ")" }));
    if (!r.ok) throw new Error(data.error || ("error " + r.status));
    return data;
  }
  function status(text) { $("status").textContent = text; }
  // "1 warning", "2 warnings": a count and its noun, in the plural only where it is one
  function count(n, noun) { return n + " " + noun + (n === 1 ? "" : "s"); }

  // -- tabs ----------------------------------------------------------------------------------
  document.querySelectorAll(".tab").forEach((b) => b.addEventListener("click", () => showTab(b.dataset.tab)));
  function showTab(name) {
    document.querySelectorAll(".tab").forEach((b) => b.classList.toggle("active", b.dataset.tab === name));
    document.querySelectorAll(".panel").forEach((p) => p.classList.toggle("active", p.id === "tab-" + name));
  }

  // -- files ---------------------------------------------------------------------------------
  async function loadFiles() {
    const data = await api("GET", "/api/files");
    $("folder").textContent = data.root + "/";
    const games = $("games"), records = $("records"), pick = $("replay-file");
    games.replaceChildren(); records.replaceChildren(); pick.replaceChildren(el("option", null, ""));
    for (const f of data.files) {
      const li = el("li"), a = el("a", null, f);
      a.dataset.path = f;
      li.appendChild(a);
      if (f.endsWith(".rcy")) { a.addEventListener("click", () => openFile(f)); games.appendChild(li); }
      else {
        a.addEventListener("click", () => { pick.value = f; showTab("replay"); loadReplay(0); });
        records.appendChild(li);
        const o = el("option", null, f); o.value = f; pick.appendChild(o);
      }
    }
    return data.files;
  }

  async function openFile(path) {
    if (current && $("source").value !== saved && !confirm("Leave " + current + " without saving?")) return;
    const data = await api("GET", "/api/file?path=" + encodeURIComponent(path));
    current = path; saved = data.text;
    $("source").value = data.text;
    $("current").textContent = path;
    document.querySelectorAll("#games a").forEach((a) => a.classList.toggle("open", a.dataset.path === path));
    messages = []; simFindings = [];
    render(); scheduleCheck(0);
    showTab("edit");
  }

  async function save() {
    if (!current) return;
    const text = $("source").value;
    try {
      await api("PUT", "/api/file", { path: current, text });
      saved = text; status("saved " + current);
    } catch (e) { status("not saved: " + e.message); }
  }
  $("save").addEventListener("click", save);
  document.addEventListener("keydown", (e) => {
    if ((e.ctrlKey || e.metaKey) && e.key === "s") { e.preventDefault(); save(); }
  });

  // -- the editor ------------------------------------------------------------------------------
  // the words coloured: the form registry's, as the server gives them (/api/words), not a
  // list kept here by hand
  let KEYWORDS = new Set(), LOCS = new Set();
  async function loadWords() {
    const w = await api("GET", "/api/words");
    KEYWORDS = new Set(w.keywords); LOCS = new Set(w.locations);
    render();
  }
  const TOKEN = /(;[^\n]*)|('[A-Za-z0-9_\-]+)|(-?\d+\b)|([()])|([A-Za-z_][A-Za-z0-9_\-]*)|(\s+|[^\s()';]+|.)/g;

  function span(cls, text) { const s = el("span", cls, text); return s; }

  // the coloured copy of the text under the textarea, with the messages' places underlined
  function render() {
    const text = $("source").value;
    const lines = text.split("\n");
    const marks = new Map(); // line -> [{col, end, cls}]
    for (const m of messages.concat(simFindings)) {
      if (!m.line) continue;
      const cls = m.severity === "error" ? "t-err" : "t-warn";
      const end = m.end_line === m.line && m.end_column > m.column ? m.end_column : m.column + 1;
      if (!marks.has(m.line)) marks.set(m.line, []);
      marks.get(m.line).push({ col: m.column, end, cls });
    }
    const hl = $("highlight");
    const frag = document.createDocumentFragment();
    lines.forEach((line, k) => {
      const row = marks.get(k + 1);
      let col = 1;
      TOKEN.lastIndex = 0;
      let m;
      while ((m = TOKEN.exec(line)) !== null && m[0].length) {
        let cls = m[1] ? "t-comment" : m[2] ? "t-var" : m[3] ? "t-num" : m[4] ? "t-paren" : "";
        if (m[5]) cls = KEYWORDS.has(m[5]) ? "t-kw" : LOCS.has(m[5]) ? "t-loc" : /^[A-Z][A-Z0-9_]*$/.test(m[5]) ? "t-name" : "";
        const start = col, stop = col + m[0].length;
        const hit = row && row.find((r) => r.col < stop && r.end > start);
        const s = span(cls + (hit ? " " + hit.cls : ""), m[0]);
        frag.appendChild(s);
        col = stop;
      }
      if (row && row.some((r) => r.col >= col)) frag.appendChild(span(row[0].cls, " "));
      frag.appendChild(document.createTextNode("\n"));
    });
    hl.replaceChildren(frag);
    const g = $("gutter");
    g.replaceChildren();
    const worst = new Map();
    for (const m of messages.concat(simFindings)) {
      if (m.line && (m.severity === "error" || !worst.has(m.line))) worst.set(m.line, m.severity === "error" ? "err" : "warn");
    }
    lines.forEach((_, k) => {
      const n = el("span", worst.get(k + 1) || null, String(k + 1));
      n.dataset.line = k + 1;
      g.appendChild(n);
      if (!worst.has(k + 1)) g.appendChild(document.createTextNode("\n"));
    });
    const ta = $("source");
    ta.style.height = "0"; ta.style.width = "0";
    ta.style.height = Math.max(hl.scrollHeight, $("editor").clientHeight - 2) + "px";
    ta.style.width = Math.max(hl.scrollWidth, $("editor").clientWidth - g.offsetWidth - 2) + "px";
    renderProblems();
  }

  function problemItem(m) {
    const where = m.line ? current + ":" + m.line + ":" + m.column + ": " : "";
    const li = el("li", m.severity, where + m.message);
    li.dataset.line = m.line;
    li.dataset.column = m.column;
    if (m.line) li.addEventListener("click", () => goTo(m.line, m.column));
    return li;
  }

  function renderProblems() {
    $("problems").replaceChildren(...messages.map(problemItem));
    const errors = messages.filter((m) => m.severity === "error").length;
    $("problem-count").textContent = messages.length ? "(" + count(errors, "error") + ", " + count(messages.length - errors, "warning") + ")" : "";
    $("simlint").replaceChildren(...simFindings.map(problemItem));
  }

  function goTo(line, column) {
    const ta = $("source");
    const lines = ta.value.split("\n");
    let pos = 0;
    for (let k = 0; k < line - 1 && k < lines.length; k++) pos += lines[k].length + 1;
    pos += Math.max(0, column - 1);
    ta.focus();
    ta.setSelectionRange(pos, pos);
    $("editor").scrollTop = Math.max(0, (line - 5) * 18);
  }

  function scheduleCheck(delay) {
    clearTimeout(checkTimer);
    checkTimer = setTimeout(check, delay === undefined ? 300 : delay);
  }

  async function check() {
    if (!current) return;
    const seq = ++checkSeq;
    $("check-state").textContent = "checking\u2026";
    try {
      const data = await api("POST", "/api/check", { path: current, text: $("source").value });
      if (seq !== checkSeq) return;
      messages = data.messages;
      $("check-state").textContent = data.ok ? "\u2713 checks: " + data.name + ", " + data.players + " players" +
        (messages.length ? ", " + count(messages.length, "warning") : "") : "\u2717 does not check";
      $("check-state").className = "status " + (data.ok ? "ok" : "bad");
      render();
      if (data.ok) { clearTimeout(lintTimer); lintTimer = setTimeout(() => simLint(seq), 600); }
      else { simFindings = []; $("simlint-state").textContent = "(after the file checks)"; renderProblems(); }
    } catch (e) { $("check-state").textContent = e.message; }
  }

  async function simLint(seq) {
    $("simlint-state").textContent = "(running random games\u2026)";
    try {
      const { job } = await api("POST", "/api/run", { kind: "simlint", path: current, text: $("source").value, n: 300, seconds: 5 });
      const d = await follow(job, () => {});
      if (seq !== checkSeq) return;
      if (d.status === "cancelled") return;  // a newer lint took its place
      if (d.status !== "done") {  // the header says so; the message itself goes in the list, as a finding would
        simFindings = [];
        $("simlint-state").textContent = "(the random games could not run)";
        renderProblems();
        $("simlint").replaceChildren(el("li", "error", d.error || d.status));
        return;
      }
      simFindings = d.result.findings;
      $("simlint-state").textContent = "(" + count(d.result.games, "random game") + ": " +
        (simFindings.length ? count(simFindings.length, "finding") : "nothing to report") + ")";
      render();
    } catch (e) { $("simlint-state").textContent = "(" + e.message + ")"; }
  }

  $("source").addEventListener("input", () => { render(); scheduleCheck(); });
  $("source").addEventListener("keydown", (e) => {
    if (e.key === "Tab") { e.preventDefault(); document.execCommand("insertText", false, " "); }
  });

  // -- runs ----------------------------------------------------------------------------------------
  function follow(job, onProgress) {
    return new Promise((resolve) => {
      const es = new EventSource("/api/jobs/" + encodeURIComponent(job) + "/events?token=" + encodeURIComponent(token));
      es.onmessage = (e) => {
        const d = JSON.parse(e.data);
        onProgress(d);
        if (d.status !== "running") { es.close(); api("GET", "/api/jobs/" + job).then(resolve, () => resolve(d)); }
      };
      es.onerror = () => { es.close(); api("GET", "/api/jobs/" + job).then(resolve, () => resolve({ status: "failed", error: "lost" })); };
    });
  }

  function svgImage(svg, alt) {
    const img = el("img");
    img.alt = alt;
    img.src = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
    return img;
  }

  $("run-go").addEventListener("click", async () => {
    if (!current) { $("run-state").textContent = "open a game first"; return; }
    const kind = $("run-kind").value;
    $("run-lines").textContent = ""; $("run-plots").replaceChildren(); $("run-bar").style.width = "0";
    const body = { kind, path: current, text: $("source").value, n: +$("run-n").value, seed: +$("run-seed").value };
    if ($("run-players").value.trim()) body.players = $("run-players").value.trim();
    try {
      const { job } = await api("POST", "/api/run", body);
      runJob = job;
      $("run-cancel").disabled = false; $("run-go").disabled = true;
      const d = await follow(job, (p) => {
        $("run-bar").style.width = (100 * p.done / Math.max(1, p.total)) + "%";
        $("run-state").textContent = kind + ": " + p.done + " of " + count(p.total, "game");
      });
      $("run-state").textContent = kind + " " + d.status + (d.error ? ": " + d.error : "") + " (" + d.done + " of " + count(d.total, "game") + ")";
      if (d.result) {
        $("run-bar").style.width = "100%";
        $("run-lines").textContent = d.result.lines.join("\n");
        for (const [name, svg] of Object.entries(d.result.plots || {})) $("run-plots").appendChild(svgImage(svg, name));
      }
    } catch (e) { $("run-state").textContent = e.message; }
    runJob = null;
    $("run-cancel").disabled = true; $("run-go").disabled = false;
  });
  $("run-cancel").addEventListener("click", () => { if (runJob) api("POST", "/api/jobs/" + runJob + "/cancel", {}); });

  $("graph-go").addEventListener("click", async () => {
    if (!current) return;
    $("graph-state").textContent = "drawing the information-flow graph\u2026";
    $("graph").replaceChildren();
    try {
      const { job } = await api("POST", "/api/run", { kind: "graph", path: current, text: $("source").value,
        n: +$("graph-n").value, per_player: $("graph-per-player").checked });
      const d = await follow(job, () => {});
      if (d.status !== "done") { $("graph-state").textContent = d.error || d.status; return; }
      $("graph-state").textContent = "information flow over " + count(d.result.played, "random game") + ": " +
        count(d.result.locations, "location") + ", " + count(d.result.edges, "edge") + ($("graph-per-player").checked ? " (per player)" : " (folded)");
      $("graph").appendChild(svgImage(d.result.svg, "information-flow graph"));
    } catch (e) { $("graph-state").textContent = e.message; }
  });

  $("tree-go").addEventListener("click", async () => {
    if (!current) return;
    try {
      const d = await api("POST", "/api/tree", { path: current, text: $("source").value });
      $("tree-lines").textContent = d.outline.join("\n");
      $("tree").replaceChildren();
      if (d.svg) $("tree").appendChild(svgImage(d.svg, "structure tree"));
      else if (d.note) $("tree").appendChild(el("div", "muted", d.note));
    } catch (e) { $("tree-lines").textContent = e.message; }
  });

  // -- play ------------------------------------------------------------------------------------------
  $("play-go").addEventListener("click", async () => {
    if (!current) { $("play-state").textContent = "open a game first"; return; }
    if ($("source").value !== saved) await save();
    const body = { path: current, players: $("play-players").value };
    if ($("play-deal").value !== "") body.deal = +$("play-deal").value;
    try {
      const d = await api("POST", "/api/table", body);
      // a deal the owner did not choose is a secret: no one is told it (it is the seed)
      $("play-state").textContent = (d.deal === null ? "a secret deal" : "deal #" + d.deal) + ": " +
        d.specs.join(", ") + " (" + d.engine + "). A link per person (each is secret):";
      const ul = $("play-links");
      ul.replaceChildren();
      for (const [seat, link] of Object.entries(d.links)) {
        const li = el("li"), a = el("a", null, "P" + seat + ": open the table");
        a.href = link; a.target = "_blank"; a.rel = "noopener noreferrer";
        li.appendChild(a); ul.appendChild(li);
      }
    } catch (e) { $("play-state").textContent = e.message; }
  });

  // -- replay --------------------------------------------------------------------------------------------
  async function loadReplay(step) {
    const path = $("replay-file").value;
    if (!path) return;
    const seat = $("replay-seat").value;
    try {
      const v = await api("GET", "/api/replay?path=" + encodeURIComponent(path) + "&step=" + step + "&seat=" + seat);
      const slider = $("replay-step");
      slider.max = v.steps; slider.value = v.step;
      const sel = $("replay-seat");
      if (sel.options.length !== v.players.length + 1) {
        sel.replaceChildren(el("option", null, "revealed"));
        sel.options[0].value = "all";
        v.players.forEach((_, p) => { const o = el("option", null, "P" + p + "'s view"); o.value = String(p); sel.appendChild(o); });
        sel.value = seat;
      }
      $("replay-label").textContent = v.game + " \u00b7 deal #" + v.deal + " \u00b7 decision " + v.step + " of " + v.steps +
        (v.same_file ? "" : " \u00b7 the game file has changed since");
      const box = $("replay-view");
      window.RecycleTable.renderView(box, Object.assign({ to_move: null }, v));
      const hist = el("pre", "output", (v.history || []).join("\n") + (v.reveal ? "\n\n" + v.reveal.join("\n") : ""));
      box.appendChild(hist);
    } catch (e) { $("replay-label").textContent = e.message; }
  }
  $("replay-step").addEventListener("input", () => loadReplay(+$("replay-step").value));
  $("replay-seat").addEventListener("change", () => loadReplay(+$("replay-step").value));
  $("replay-file").addEventListener("change", () => loadReplay(0));

  loadWords().catch((e) => status(e.message));
  loadFiles().then((files) => {
    const want = new URLSearchParams(location.search).get("open");
    const first = want && files.includes(want) ? want : files.find((f) => f.endsWith(".rcy"));
    if (first) openFile(first);
  }).catch((e) => status(e.message));
  // what the Study view (study.js) uses
  window.studio = { openFile, check, loadFiles, goTo, api, follow, count, token,
    current: () => current, text: () => $("source").value };
})();
