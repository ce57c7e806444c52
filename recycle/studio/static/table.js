// recycle table: renders a seat's view (sent by the server, built from the seat's
// observation only) and sends the seat's choices. Every text from the game goes into the
// page as text (textContent), never as HTML.
"use strict";
(function () {
  const token = new URLSearchParams(location.search).get("token") || "";

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function card(name) {
    const c = el("span", "card", name);
    if (/[\u2665\u2666]/.test(name)) c.classList.add("red");
    return c;
  }

  // the table: one block per owner (you first), each location with its cards or its count,
  // then the owner's storages as the game names them (the server words them, as the terminal)
  function renderView(box, view) {
    box.replaceChildren();
    const blocks = new Map();
    const order = view.seat === null || view.seat === undefined ? [] : ["you"];
    (view.players || []).forEach((_, p) => { if (p !== view.seat) order.push("P" + p); });
    const seats = new Set(order);
    for (const row of view.locations || []) {
      if (!blocks.has(row.owner)) blocks.set(row.owner, []);
      blocks.get(row.owner).push(row);
    }
    const stored = new Map();
    for (const s of view.storages || []) {
      if (!stored.has(s.owner)) stored.set(s.owner, []);
      stored.get(s.owner).push(s.text);
    }
    for (const k of stored.keys()) if (!blocks.has(k)) blocks.set(k, []);
    for (const k of blocks.keys()) if (!order.includes(k)) order.push(k);
    for (const owner of order) {
      const rows = blocks.get(owner);
      if (!rows && !seats.has(owner)) continue;
      const b = el("div", "seat");
      let title = owner;
      const m = /^P(\d+)$/.exec(owner);
      if (owner === "you") { title = "You, P" + view.seat; b.classList.add("mine"); }
      else if (m) { title = owner + " " + (view.players[+m[1]] || ""); }
      const seatNo = owner === "you" ? view.seat : (m ? +m[1] : null);
      if (seatNo !== null && view.to_move === seatNo) b.classList.add("tomove");
      b.appendChild(el("h4", null, title));
      for (const row of rows || []) {
        const line = el("div", "loc");
        line.appendChild(el("span", "lname", row.name + " (" + row.count + ")"));
        if (row.cards) row.cards.forEach((c) => line.appendChild(card(c)));
        else {
          line.appendChild(el("span", "count", row.count + (row.count === 1 ? " card" : " cards")));
          if (row.known && row.known.length) {
            line.appendChild(el("span", "muted", " you know: "));
            row.known.forEach((c) => line.appendChild(card(c)));
          }
        }
        b.appendChild(line);
      }
      if ((!rows || !rows.length) && (seatNo !== null || !stored.has(owner)))
        b.appendChild(el("div", "muted", "(no cards)"));
      if (stored.has(owner)) b.appendChild(el("div", "loc storages", stored.get(owner).join(" \u00b7 ")));
      box.appendChild(b);
    }
  }
  window.RecycleTable = { renderView, el };

  if (!document.body.classList.contains("table-page")) return;

  let view = null;
  const $ = (id) => document.getElementById(id);

  async function post(what, body) {
    const r = await fetch("/table/api/" + what, {
      method: "POST", headers: { "X-Token": token, "Content-Type": "application/json" },
      body: JSON.stringify(Object.assign({ seat: view ? view.seat : null }, body || {})),
    });
    const data = await r.json().catch(() => ({ error: "no answer" }));
    if (!r.ok) { $("message").textContent = data.error || ("error " + r.status); return; }
    show(data);
  }

  function show(v) {
    if (view && v.version < view.version) return;
    view = v;
    // the deal is told by its place at the table only: its number would be the seed
    const dealt = "deal " + v.deal_at_table + " at this table";
    document.title = v.game + " \u00b7 " + dealt;
    $("title").textContent = v.game + " \u00b7 " + dealt + " \u00b7 you are P" + v.seat;
    $("status").textContent = "decision " + v.decision + (v.thinking ? " \u00b7 a computer player is thinking\u2026" : "");
    $("engine").textContent = v.engine || "";
    renderView($("view"), v);
    const opts = $("options");
    opts.replaceChildren();
    const mine = !v.over && v.to_move === v.seat && v.options.length > 0;
    $("turn").textContent = v.over ? "Game over" : mine ? "Your turn: choose" :
      "Waiting for P" + v.to_move + " (" + (v.players[v.to_move] || "") + ")";
    v.options.forEach((text, i) => {
      const li = el("li");
      const b = el("button", "option", (i + 1) + ". " + text);
      if (v.hint && v.hint.figures) {
        // the chance with its interval and its tries: a figure from few tries says so
        const f = el("span", "figure", v.hint.figures[i]);
        if (v.hint.few[i]) f.classList.add("few");
        b.appendChild(f);
      }
      if (v.hint && v.hint.choice === i) b.classList.add("hinted");
      b.dataset.index = i;
      b.addEventListener("click", () => post("act", { option: i, decision: v.decision }));
      li.appendChild(b);
      opts.appendChild(li);
    });
    $("hint").disabled = !mine || v.hint_pending;  // one hint at a time per seat (the server refuses more)
    $("undo").disabled = !v.undo || v.thinking || v.over;
    $("undo").hidden = !v.undo;
    $("message").textContent = v.error ? v.error : (v.hint ? v.hint.advice :
      v.hint_pending ? "working out a hint\u2026" : v.message || "");
    $("history").textContent = (v.history || []).join("\n");
    $("history").scrollTop = $("history").scrollHeight;
    const res = $("result");
    res.replaceChildren();
    if (v.result) {
      const word = { win: "You win!", share: "You share the win.", lose: "You did not win." }[v.result.you];
      res.appendChild(el("h3", null, word));
      res.appendChild(el("div", null, "Every card, revealed:\n" + v.result.reveal.join("\n")));
      if (v.result.record) res.appendChild(el("div", "muted", "Game record saved: " + v.result.record));
      const again = el("button", null, "The same deal again");
      again.id = "again";
      again.addEventListener("click", () => post("again", { next: false }));
      const next = el("button", null, "A new deal");
      next.id = "next";
      next.addEventListener("click", () => post("again", { next: true }));
      res.append(again, " ", next);
    }
  }

  $("hint").addEventListener("click", () => { $("message").textContent = "asking for a hint\u2026"; post("hint"); });
  $("undo").addEventListener("click", () => post("undo"));

  const source = new EventSource("/table/api/events?token=" + encodeURIComponent(token));
  source.onmessage = (e) => show(JSON.parse(e.data));
  source.onerror = () => { $("status").textContent = "connection lost: reload the page"; };
})();
