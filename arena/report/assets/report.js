// The report's page: plots, the head-to-head grid, faults, the game list and the replay viewer,
// all drawn from the JSON in #report-data. Cards come from each game's table drawing
// (arena/games/drawing.py): a replay frame holds only the parts that changed, as indexes into the
// game's values.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("report-data").textContent);
  const SUITS = { C: "♣", S: "♠", H: "♥", D: "♦" };
  const RED = { H: true, D: true };

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") node.className = v;
      else if (k.startsWith("data-")) node.setAttribute(k, v);
      else node[k] = v;
    }
    for (const c of children) if (c !== null && c !== undefined) node.append(c);
    return node;
  }

  function card(name, owner) {
    const rank = name[0] === "T" ? "10" : name[0];
    const suit = name[1];
    const node = el("span", { class: "card" + (RED[suit] ? " red" : ""), "data-card": name },
      rank + SUITS[suit]);
    if (owner !== undefined && owner !== null) node.append(el("sub", {}, String(owner)));
    return node;
  }

  function backs(n) {
    const box = el("span", { class: "backs" });
    for (let i = 0; i < n; i++) box.append(el("span", { class: "card back" }, "\u00a0"));
    return box;
  }

  // --- plots -----------------------------------------------------------------------------
  const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
    "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];

  function drawPlots() {
    for (const box of document.querySelectorAll(".plot")) {
      const history = data.games[box.dataset.game].ratings;
      const bots = Object.keys(history.bots).sort();
      if (!history.games.length || typeof uPlot === "undefined") {
        box.textContent = "No rated games.";
        continue;
      }
      const series = [{ label: "games" }].concat(bots.map((bot, i) => ({
        label: bot, stroke: COLOURS[i % COLOURS.length], width: 2, spanGaps: true,
      })));
      const width = Math.max(320, Math.min(900, box.clientWidth || 900));
      new uPlot({ width: width, height: 300, scales: { x: { time: false } }, series: series, axes: [{ label: "games played" },
        { label: "μ" }] }, [history.games].concat(bots.map((b) => history.bots[b])), box);
    }
  }

  // --- head to head ------------------------------------------------------------------------
  function drawHeadToHead() {
    for (const box of document.querySelectorAll(".h2h")) {
      const rows = data.games[box.dataset.game].head_to_head;
      if (!rows.length) { box.textContent = "No games between two bots yet."; continue; }
      const bots = [...new Set(rows.flatMap((r) => [r.bot, r.opponent]))].sort();
      const cell = new Map(rows.map((r) => [r.bot + "\u0000" + r.opponent, r]));
      const table = el("table", { class: "grid" });
      table.append(el("tr", {}, el("th", {}, "ahead of →"), ...bots.map((b) => el("th", {}, b))));
      for (const a of bots) {
        const tr = el("tr", {}, el("th", {}, a));
        for (const b of bots) {
          const r = cell.get(a + "\u0000" + b);
          if (a === b || !r) { tr.append(el("td", { class: "self" }, a === b ? "—" : "")); continue; }
          const td = el("td", { title: `${r.ahead} ahead, ${r.tied} tied, ${r.behind} behind in ${r.games} games` },
            `${Math.round(r.ahead_pct)}%`);
          const share = r.games ? r.ahead / r.games : 0.5;
          td.style.background = `hsl(${Math.round(share * 120)}, 65%, ${85 - Math.abs(share - 0.5) * 40}%)`;
          tr.append(td);
        }
        table.append(tr);
      }
      box.append(table);
    }
  }

  // --- faults ------------------------------------------------------------------------------
  const embedded = new Map();

  function gameLink(id, text) {
    if (!embedded.has(id)) return el("span", { title: "not embedded in this report" }, text);
    const a = el("a", { href: "#game-" + id }, text);
    return a;
  }

  function drawFaults() {
    const summary = document.getElementById("fault-summary");
    const table = el("table", {});
    table.append(el("tr", {}, ...["game", "bot", "faults", "forfeits", "by kind"].map((h) => el("th", {}, h))));
    let any = false;
    for (const [name, g] of Object.entries(data.games)) {
      for (const row of g.leaderboard) {
        if (!row.faults && !row.forfeits) continue;
        any = true;
        const kinds = Object.entries(g.fault_kinds[row.bot] || {}).map(([k, n]) => `${k} ${n}`).join(", ");
        table.append(el("tr", {}, el("td", {}, name), el("td", {}, row.bot), el("td", {}, String(row.faults)),
          el("td", {}, String(row.forfeits)), el("td", {}, kinds)));
      }
    }
    summary.append(any ? table : el("p", {}, "No bot has faulted."));
    if (!data.faults.length) return;
    const list = el("table", { class: "faults" });
    list.append(el("tr", {}, ...["game id", "game", "run", "bot", "seat", "decision", "kind", "message"].map((h) => el("th", {}, h))));
    for (const f of data.faults) {
      list.append(el("tr", {}, el("td", {}, gameLink(f.game_id, String(f.game_id))), el("td", {}, f.game),
        el("td", {}, String(f.run_id)), el("td", {}, f.bot), el("td", {}, String(f.seat)),
        el("td", {}, String(f.decision)), el("td", {}, f.kind), el("td", {}, f.message)));
    }
    document.getElementById("fault-list").append(el("h3", {}, `The latest ${data.faults.length} faults`), list);
  }

  // --- the game list -----------------------------------------------------------------------
  function fillSelect(id, values) {
    const select = document.getElementById(id);
    for (const v of values) select.append(el("option", { value: String(v) }, String(v)));
    select.addEventListener("change", drawGameList);
  }

  function drawGameList() {
    const bot = document.getElementById("filter-bot").value;
    const game = document.getElementById("filter-game").value;
    const run = document.getElementById("filter-run").value;
    const box = document.getElementById("game-list");
    box.textContent = "";
    const table = el("table", { class: "games" });
    table.append(el("tr", {}, ...["id", "run", "game", "finished", "seats: bot score (rank)", "faults"].map((h) => el("th", {}, h))));
    for (const g of data.replays) {
      if (bot && !g.seats.some((s) => s.bot === bot)) continue;
      if (game && g.game !== game) continue;
      if (run && String(g.run) !== run) continue;
      const seats = g.seats.map((s) => `${s.bot} ${s.score} (${s.rank}${s.forfeit ? "F" : ""})`).join("  ");
      const tr = el("tr", { "data-id": String(g.id) }, el("td", {}, gameLink(g.id, String(g.id))),
        el("td", {}, String(g.run)), el("td", {}, g.game + (g.variant ? ` (${g.variant})` : "")),
        el("td", {}, g.finished), el("td", {}, seats), el("td", {}, g.faults.length ? String(g.faults.length) : ""));
      table.append(tr);
    }
    box.append(table);
  }

  // --- the replay viewer -------------------------------------------------------------------
  const viewer = { game: null, view: 0, step: 0, frames: null };

  function frameAt(game, view, index) {
    // The drawing of frame ``index`` put back together as arena/report/replays.py took it apart
    // (drawing_at there does the same): the full view's latest parts, overridden in a seat view
    // by the parts where it differs (-1: no longer differs).
    const views = game.frames.views;
    const full = {};
    const over = {};
    for (let i = 0; i <= index; i++) {
      Object.assign(full, views[0][i]);
      if (view) {
        for (const [k, x] of Object.entries(views[view][i])) {
          if (x === -1) delete over[k]; else over[k] = x;
        }
      }
    }
    const parts = Object.assign({}, full, over);
    const values = game.frames.values;
    const seats = game.seats.map((_, s) => ({
      cards: values[parts["cards" + s]], hidden: values[parts["hidden" + s]],
      lines: values[parts["lines" + s]], out: values[parts["out" + s]],
    }));
    const piles = [];
    for (let i = 0; i < values[parts.piles]; i++) piles.push(values[parts["pile" + i]]);
    const say = views[view][index].say || views[0][index].say;
    return {
      status: values[parts.status], turn: values[parts.turn], seats: seats, piles: piles,
      say: say.map((i) => values[i]).join("\n"),
    };
  }

  function openGame(id) {
    const game = embedded.get(id);
    const section = document.getElementById("viewer");
    if (!game) return;
    viewer.game = game;
    viewer.step = 0;
    section.hidden = false;
    const title = `Game ${game.id} · ${game.game}${game.variant ? " (" + game.variant + ")" : ""} · run ${game.run} · ${game.finished}`;
    document.getElementById("viewer-title").textContent = title;
    const select = document.getElementById("view");
    select.textContent = "";
    select.append(el("option", { value: "0" }, "every hand"));
    game.seats.forEach((s, i) => select.append(el("option", { value: String(i + 1) }, `seat ${i} (${s.bot}) only`)));
    select.value = String(Math.min(viewer.view, game.seats.length));
    viewer.view = Number(select.value);
    if (!game.frames) {
      document.getElementById("table").textContent = game.note || "no record";
      document.getElementById("piles").textContent = "";
      document.getElementById("caption").textContent = "";
      return;
    }
    show();
    section.scrollIntoView();
  }

  function show() {
    const game = viewer.game;
    if (!game || !game.frames) return;
    const total = game.frames.views[0].length - 1;
    viewer.step = Math.max(0, Math.min(total, viewer.step));
    const d = frameAt(game, viewer.view, viewer.step);
    document.getElementById("step").textContent = `step ${viewer.step} of ${total}`;
    document.getElementById("status").textContent = d.status;
    const table = document.getElementById("table");
    table.textContent = "";
    game.seats.forEach((s, i) => {
      const seat = d.seats[i];
      const box = el("div", { class: "seat" + (d.turn === i ? " turn" : "") + (seat.out ? " out" : "") + (viewer.view === i + 1 ? " me" : ""), "data-seat": String(i) });
      box.append(el("div", { class: "name" }, `seat ${i} · ${s.bot}`));
      const hand = el("div", { class: "hand" });
      if (seat.cards) for (const c of seat.cards) hand.append(card(c));
      if (seat.hidden) hand.append(backs(seat.hidden));
      box.append(hand, el("div", { class: "lines" }, seat.lines.join(" · ")));
      table.append(box);
    });
    const piles = document.getElementById("piles");
    piles.textContent = "";
    for (const p of d.piles) {
      const box = el("div", { class: "pile" }, el("div", { class: "label" }, p.label));
      const cards = el("div", { class: "hand" });
      p.cards.forEach((c, i) => cards.append(card(c, p.owners ? p.owners[i] : null)));
      if (p.hidden) cards.append(backs(p.hidden));
      box.append(cards);
      piles.append(box);
    }
    const caption = document.getElementById("caption");
    caption.textContent = d.say;
    caption.className = game.frames.fault_steps.includes(viewer.step) ? "fault" : "";
  }

  function go(delta) { viewer.step += delta; show(); }

  function nextFault() {
    const steps = viewer.game && viewer.game.frames ? viewer.game.frames.fault_steps : [];
    const next = steps.find((s) => s > viewer.step);
    if (next !== undefined) { viewer.step = next; show(); }
  }

  function wireViewer() {
    document.getElementById("first").addEventListener("click", () => { viewer.step = 0; show(); });
    document.getElementById("prev").addEventListener("click", () => go(-1));
    document.getElementById("next").addEventListener("click", () => go(1));
    document.getElementById("last").addEventListener("click", () => { viewer.step = Infinity; show(); });
    document.getElementById("next-fault").addEventListener("click", nextFault);
    document.getElementById("view").addEventListener("change", (e) => { viewer.view = Number(e.target.value); show(); });
    document.addEventListener("keydown", (e) => {
      if (!viewer.game || e.target.tagName === "SELECT") return;
      if (e.key === "ArrowRight") go(1);
      else if (e.key === "ArrowLeft") go(-1);
      else if (e.key === "Home") { viewer.step = 0; show(); }
      else if (e.key === "End") { viewer.step = Infinity; show(); }
      else if (e.key === "f") nextFault();
      else return;
      e.preventDefault();
    });
    window.addEventListener("hashchange", route);
  }

  function route() {
    const m = /^#game-(\d+)$/.exec(location.hash);
    if (m) openGame(Number(m[1]));
  }

  function drawNote() {
    const note = document.getElementById("games-note");
    const n = data.replays.length;
    note.textContent = n === data.stored_games
      ? `All ${n} stored games are here; choose one to replay it.`
      : `${n} of the ${data.stored_games} stored games are embedded (every game with a fault, ` +
        `then the latest ones, to keep this file small); choose one to replay it. ` +
        `\`arena report --run ID\` or \`--game G\` narrows the report.`;
  }

  async function unpack() {
    // The replays are gzipped JSON in base64 (arena/report/render.py).
    const text = document.getElementById("report-replays").textContent.trim();
    const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  drawPlots();
  drawHeadToHead();
  unpack().then((replays) => {
    data.replays = replays;
    for (const g of replays) embedded.set(g.id, g);
    drawFaults();
    drawNote();
    fillSelect("filter-bot", [...new Set(replays.flatMap((g) => g.seats.map((s) => s.bot)))].sort());
    fillSelect("filter-game", [...new Set(replays.map((g) => g.game))].sort());
    fillSelect("filter-run", [...new Set(replays.map((g) => g.run))].sort((a, b) => a - b));
    drawGameList();
    wireViewer();
    route();
    document.body.dataset.ready = "yes";
  });
})();
