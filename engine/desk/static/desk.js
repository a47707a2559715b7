// The desk's one script: the queue's keyboard (j/k move, x select, a accept, r reject,
// e edit), its partial updates, a belief page's what-if before each action, and the live
// stream (/events) that redraws what another writer changed. Every POST carries the page's
// CSRF token; every text the server sends is already escaped HTML.
"use strict";
(function () {
  const body = document.body;
  const page = body.dataset.page;
  const csrf = document.querySelector('meta[name="csrf"]').content;
  const $ = (sel, root) => (root || document).querySelector(sel);
  const $$ = (sel, root) => Array.from((root || document).querySelectorAll(sel));

  function toast(message, bad) {
    const t = $("#toast");
    t.textContent = message;
    t.className = bad ? "bad show" : "show";
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { t.className = ""; }, 6000);
  }

  async function post(url, fields) {
    const form = new FormData();
    for (const [k, v] of fields) form.append(k, v);
    form.append("csrf", csrf);
    const r = await fetch(url, { method: "POST", body: form, credentials: "same-origin" });
    let answer = {};
    try { answer = await r.json(); } catch (e) { answer = { error: r.status + " " + r.statusText }; }
    if (!r.ok && !answer.error) answer.error = r.status + " " + r.statusText;
    return answer;
  }

  function fragment(html) {
    const t = document.createElement("template");
    t.innerHTML = html;
    return t.content;
  }

  // --- the queue ---------------------------------------------------------------------
  const EAGER = 10;  // rows whose details are read at once; the rest when they come into view
  let focus = -1;
  const rows = () => $$("#rows > li.row");
  const openRows = () => rows().filter((r) => r.dataset.state === "open");

  function setFocus(i) {
    const all = rows();
    if (!all.length) return;
    focus = Math.max(0, Math.min(all.length - 1, i));
    all.forEach((r, n) => r.classList.toggle("focus", n === focus));
    all[focus].focus({ preventScroll: true });
    all[focus].scrollIntoView({ block: "nearest" });
    loadDetail(all[focus]);
  }

  function focused() { return rows()[focus] || null; }

  function chosen() {
    const picked = openRows().filter((r) => $(".pick", r).checked);
    if (picked.length) return picked;
    const f = focused();
    return f && f.dataset.state === "open" ? [f] : [];
  }

  function countSelected() {
    const n = openRows().filter((r) => $(".pick", r).checked).length;
    const c = $("#selected-count");
    if (c) c.textContent = n + " selected";
  }

  function applyOutcome(o) {
    const row = rows().find((r) => r.dataset.key === o.key);
    if (!row) return;
    if (o.status === "open") { toast(o.message, true); return; }
    row.dataset.state = o.status;
    row.classList.add("decided");
    const pick = $(".pick", row);
    pick.checked = false;
    pick.disabled = true;
    $(".state", row).textContent = o.message;
    $$(".detail, form.edit", row).forEach((e) => e.remove());
  }

  async function decide(what, reason) {
    const picked = chosen();
    if (!picked.length) { toast("nothing chosen: move with j/k, select with x", true); return; }
    const fields = [["decision", what], ...picked.map((r) => ["key", r.dataset.key])];
    if (reason) fields.push(["reason", reason]);
    const answer = await post("/queue/decide", fields);
    if (answer.error) { toast(answer.error, true); return; }
    answer.outcomes.forEach(applyOutcome);
    const done = answer.outcomes.filter((o) => o.status === what + "ed").length;
    toast(done + " " + what + "ed" + (done < answer.outcomes.length
      ? ", " + (answer.outcomes.length - done) + " not: see their rows" : ""));
    countSelected();
    refreshRows();
  }

  function askReason() {
    const form = $("#reject-form");
    if (!form) return;
    form.hidden = false;
    $("#reject-reason").focus();
  }

  async function submitEdit(form) {
    const fields = Array.from(new FormData(form).entries());
    const answer = await post("/queue/edit", fields);
    if (answer.error) { toast(answer.error, true); return; }
    answer.outcomes.forEach(applyOutcome);
    const o = answer.outcomes[0];
    if (o && o.status !== "open") toast(o.message);
    const edited = fields.find(([k]) => k === "text");
    const row = o && o.status === "accepted" && edited && rows().find((r) => r.dataset.key === o.key);
    const said = row && $("p.text", row);
    if (said) {  // the row says what was written, not what was proposed
      said.textContent = edited[1];
      said.classList.add("edited");
      said.title = "as edited at the desk";
    }
    refreshRows();
  }

  // a row's what-if and lines, and its nearest beliefs: read when it comes into view, the
  // what-ifs first (two at a time), the nearest beliefs one at a time (an embedding model
  // may still be loading)
  const waiting = { first: [], later: [] };
  const reading = { first: 0, later: 0 };
  function loadDetail(row) {
    if (!row) return;
    $$(".lazy[data-src]", row).forEach((part) => {
      if (part.dataset.loaded) return;
      part.dataset.loaded = "1";
      waiting[part.classList.contains("nearest-part") ? "later" : "first"].push(part);
    });
    pump();
  }
  function take(kind) {
    const part = waiting[kind].shift();
    reading[kind] += 1;
    fetch(part.dataset.src, { credentials: "same-origin" })
      .then((r) => r.text())
      .then((html) => { part.replaceChildren(fragment(html)); part.classList.add("loaded"); })
      .finally(() => { reading[kind] -= 1; pump(); });
  }
  function pump() {
    while (reading.first < 2 && waiting.first.length) take("first");
    while (reading.later < 1 && waiting.later.length) take("later");
  }
  const seen = "IntersectionObserver" in window ? new IntersectionObserver((entries) => {
    entries.filter((e) => e.isIntersecting).forEach((e) => loadDetail(e.target.closest("li.row")));
  }) : null;
  function watchDetails(root) {
    $$(".detail", root).forEach((d) => (seen ? seen.observe(d) : loadDetail(d.closest("li.row"))));
  }

  let refreshing = null;
  async function refreshRows() {
    if (refreshing) { refreshing.again = true; return; }
    refreshing = { again: false };
    try {
      const r = await fetch("/queue/rows?since=" + body.dataset.seq, { credentials: "same-origin" });
      if (!r.ok) return;
      const fresh = $$("li.row", fragment(await r.text()));
      const list = $("#rows");
      const known = new Map(rows().map((row) => [row.dataset.key, row]));
      const answered = new Set();
      for (const row of fresh) {
        answered.add(row.dataset.key);
        const old = known.get(row.dataset.key);
        if (!old) { list.appendChild(row); watchDetails(row); continue; }
        if (old.dataset.state !== row.dataset.state && row.dataset.state !== "open") {
          old.replaceWith(row);
        }
      }
      for (const [key, old] of known) {
        if (!answered.has(key) && old.dataset.state === "open") {
          applyOutcome({ key: key, status: "gone", message: "no longer open (decided or withdrawn elsewhere)" });
        }
      }
      const open = r.headers.get("x-eem-open");
      if (open !== null && $("#open-count")) $("#open-count").textContent = open;
      const empty = $("#empty");
      if (empty && rows().length) empty.remove();
      if (focus >= 0) setFocus(Math.min(focus, rows().length - 1));
    } finally {
      const again = refreshing.again;
      refreshing = null;
      if (again) refreshRows();
    }
  }

  function queueKeys(e) {
    if (e.target.closest("input, textarea, select")) {
      if (e.key === "Escape") {
        const form = e.target.closest("form");
        if (form) form.hidden = true;
        e.target.blur();
        setFocus(focus);
      }
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const f = focused();
    switch (e.key) {
      case "j": setFocus(focus + 1); break;
      case "k": setFocus(focus < 0 ? 0 : focus - 1); break;
      case "x":
        if (f && f.dataset.state === "open") { const p = $(".pick", f); p.checked = !p.checked; countSelected(); }
        break;
      case "a": decide("accept"); break;
      case "r": askReason(); break;
      case "e": {
        const form = f && $("form.edit", f);
        if (form) { form.hidden = false; const first = $("textarea, input:not([type=hidden]), select", form); if (first) first.focus(); }
        break;
      }
      case "Escape": $$("form.edit, #reject-form").forEach((x) => { x.hidden = true; }); break;
      default: return;
    }
    e.preventDefault();
  }

  function startQueue() {
    document.addEventListener("keydown", queueKeys);
    $("#rows").addEventListener("click", (e) => {
      const row = e.target.closest("li.row");
      if (row && !e.target.closest("a, button, input, textarea, select")) setFocus(rows().indexOf(row));
    });
    $("#rows").addEventListener("change", (e) => { if (e.target.matches(".pick")) countSelected(); });
    $("#rows").addEventListener("submit", (e) => {
      if (!e.target.matches("form.edit")) return;
      e.preventDefault();
      e.target.hidden = true;
      setFocus(focus);
      submitEdit(e.target);
    });
    $("#rows").addEventListener("click", (e) => {
      if (e.target.matches("form.edit [data-cancel]")) e.target.closest("form").hidden = true;
    });
    $$("[data-decide]").forEach((b) => b.addEventListener("click", () =>
      (b.dataset.decide === "reject" ? askReason() : decide("accept"))));
    const rf = $("#reject-form");
    if (rf) {
      rf.addEventListener("submit", (e) => {
        e.preventDefault();
        const reason = $("#reject-reason").value.trim();
        if (!reason) return;
        rf.hidden = true;
        $("#reject-reason").value = "";
        $("#reject-reason").blur();
        setFocus(focus);
        decide("reject", reason);
      });
      $("[data-cancel]", rf).addEventListener("click", () => { rf.hidden = true; });
    }
    watchDetails(document);
    rows().slice(0, EAGER).forEach(loadDetail);  // a short queue: every what-if at once
    if (rows().length) setFocus(0);
  }

  // --- a belief's page -----------------------------------------------------------------
  // the explain tree and trace: a part of its own, read after the page is drawn; the steps a
  // person folded stay folded when it is read again
  async function loadWhy(closed) {
    const why = $("#belief-why");
    if (!why) return;
    const r = await fetch(why.dataset.src, { credentials: "same-origin" });
    why.replaceChildren(fragment(await r.text()));
    why.classList.add("loaded");
    $$("details.step", why).forEach((d) => { if (closed.has($("summary a", d).textContent)) d.open = false; });
  }

  function startBelief() {
    const main = $("#belief-main");
    loadWhy(new Set());
    main.addEventListener("click", async (e) => {
      const fold = e.target.closest("[data-fold]");
      if (fold) { $$("details.step", main).forEach((d) => { d.open = fold.dataset.fold === "open"; }); return; }
      const then = e.target.closest("[data-then]");
      if (then) {
        const r = await fetch(then.dataset.then, { credentials: "same-origin" });
        then.replaceWith(fragment(await r.text()));
        return;
      }
      const w = e.target.closest("[data-whatif]");
      if (w) {
        const form = w.closest("form");
        const q = new URLSearchParams();
        for (const [k, v] of new FormData(form)) if (k !== "csrf") q.append(k, v);
        const r = await fetch(w.dataset.whatif + "?" + q, { credentials: "same-origin" });
        $(".whatif-out", form).replaceChildren(fragment(await r.text()));
        $("button.do", form).disabled = !r.ok || !!$(".bad", form);
      }
    });
    main.addEventListener("input", (e) => {  // a changed form needs its what-if again
      const form = e.target.closest("form.act");
      if (form) { $("button.do", form).disabled = true; $(".whatif-out", form).replaceChildren(); }
    });
    main.addEventListener("submit", async (e) => {
      const form = e.target.closest("form.act");
      if (!form) return;
      e.preventDefault();
      const answer = await post(form.action, Array.from(new FormData(form).entries()).filter(([k]) => k !== "csrf"));
      toast(answer.error || answer.message, !!answer.error);
      if (!answer.error) refreshBelief();
    });
  }

  let beliefBusy = null;
  async function refreshBelief() {
    if (beliefBusy) { beliefBusy.again = true; return; }
    beliefBusy = { again: false };
    try {
      const closed = new Set($$("details.step", $("#belief-main")).filter((d) => !d.open).map((d) => $("summary a", d).textContent));
      const r = await fetch(location.pathname + "?part=main", { credentials: "same-origin" });
      if (!r.ok) return;
      const drawn = fragment(await r.text());
      const before = $("#belief-why");
      const placeholder = $("#belief-why", drawn);
      if (before && placeholder) placeholder.replaceWith(before);  // kept until read again
      $("#belief-main").replaceChildren(drawn);
      body.dataset.seq = r.headers.get("x-eem-seq") || body.dataset.seq;
      await loadWhy(closed);
    } finally {
      const again = beliefBusy.again;
      beliefBusy = null;
      if (again) refreshBelief();
    }
  }

  // --- live ----------------------------------------------------------------------------
  function startLive() {
    if (!("EventSource" in window)) return;
    const indicator = $("#live");
    const source = new EventSource("/events");
    let timer = null;
    const soon = (fn) => { clearTimeout(timer); timer = setTimeout(fn, 150); };
    source.onopen = () => indicator.classList.add("on");
    source.onerror = () => indicator.classList.remove("on");
    source.onmessage = (m) => {
      const event = JSON.parse(m.data);
      if (page === "queue") { soon(refreshRows); return; }
      if (page === "belief") {
        const id = body.dataset.belief;
        if (event.kind === "reload" || (event.ids || []).includes(id)) soon(refreshBelief);
      }
    };
  }

  if (page === "queue") startQueue();
  if (page === "belief") startBelief();
  startLive();
})();
