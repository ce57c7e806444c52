// recycle studio, the Study view: a game's page, its skill ladder and balance, each a run of
// the studio's (a worker process, its progress, Cancel). The page is served by the studio from
// memory (/api/jobs/ID/page/NAME) and opens in a tab of its own; its figures show here as
// images. Every text from the server goes into the page as text, never as HTML.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const s = window.studio;
  let job = null;

  function pageUrl(id, name) {
    const q = s.token ? "?token=" + encodeURIComponent(s.token) : "";
    return "/api/jobs/" + encodeURIComponent(id) + "/page/" + encodeURIComponent(name) + q;
  }

  // one Study run at a time from this view: start it, follow its progress, give its answer
  async function study(kind, body, stateId) {
    if (!s.current()) { $(stateId).textContent = "open a game first"; return null; }
    if (job) { $(stateId).textContent = "a Study run is going: wait for it or cancel it"; return null; }
    $("study-bar").style.width = "0";
    $(stateId).textContent = kind + ": starting\u2026";
    try {
      const r = await s.api("POST", "/api/run", Object.assign({ kind, path: s.current(), text: s.text() }, body));
      job = r.job;
      $("study-cancel").disabled = false;
      const d = await s.follow(job, (p) => {
        $("study-bar").style.width = (100 * p.done / Math.max(1, p.total)) + "%";
        $(stateId).textContent = kind + ": " + p.done + " of " + s.count(p.total, "game");
      });
      $(stateId).textContent = kind + " " + d.status + (d.error ? ": " + d.error : "");
      if (d.status === "done") $("study-bar").style.width = "100%";
      return d.status === "done" ? d : null;
    } catch (e) { $(stateId).textContent = kind + ": " + e.message; return null; }
    finally { job = null; $("study-cancel").disabled = true; }
  }
  $("study-cancel").addEventListener("click", () => { if (job) s.api("POST", "/api/jobs/" + job + "/cancel", {}); });

  function words(id) { return $(id).value.split(/[\s;]+/).filter((w) => w); }

  $("page-go").addEventListener("click", async () => {
    $("page-view").replaceChildren(); $("page-open").classList.add("hidden");
    const d = await study("page", { n: +$("page-n").value, players: $("page-players").value.trim() || null,
      seconds: +$("page-seconds").value }, "page-state");
    if (!d) return;
    $("page-state").textContent = d.result.lines.join("\n");
    const link = $("page-open");
    link.href = pageUrl(d.id, "index.html");
    link.classList.remove("hidden");
    // in the page's order: the information flow, branching, decision spread, lead history, then
    // the skill ladder, luck and skill, suspense and surprise (the heuristics are a table: in the page)
    const order = (n) => ["flow", "branching", "spread", "lead", "ladder", "luck", "suspense"]
      .indexOf(n.split(".")[0]) + 1 || 99;
    const figures = d.result.files.filter((n) => /\.(png|svg)$/.test(n)).sort((a, b) => order(a) - order(b));
    for (const name of figures) {
      const img = document.createElement("img");
      img.alt = name; img.title = name; img.src = pageUrl(d.id, name);
      $("page-view").appendChild(img);
    }
  });

  $("ladder-go").addEventListener("click", async () => {
    $("ladder-lines").textContent = "";
    const d = await study("ladder", { n: +$("ladder-n").value, players: $("ladder-players").value.trim(),
      doublings: +$("ladder-doublings").value, seconds: +$("ladder-seconds").value }, "ladder-state");
    if (d) $("ladder-lines").textContent = d.result.lines.join("\n");
  });

  $("balance-go").addEventListener("click", async () => {
    $("balance-lines").textContent = "";
    const d = await study("balance", { n: +$("balance-n").value, vary: words("balance-vary"),
      target: words("balance-target"), iterations: +$("balance-iterations").value,
      seconds: +$("balance-seconds").value }, "balance-state");
    if (d) $("balance-lines").textContent = d.result.lines.join("\n");
  });
})();
