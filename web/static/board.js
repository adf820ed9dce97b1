// The live board: the map as the bot draws it, territories to tap, and the moves of the player whose turn it is.
// Everything the board shows comes from the server over the WebSocket, already reduced to what this viewer may
// know; every move is sent back as a message the server checks against the legal choices of the moment.
// Opened from a link, the page holds its data and the cookie does the rest; inside Discord (the Activity) the page
// starts empty and activity.js calls RiskBoard.start(data, token) once Discord has said who the viewer is: the
// token, held in memory only, goes with every request, as the cookie would.
"use strict";
function startBoard(data, token) {
  const S = data.strings;
  const map = data.map;
  const SVG = "http://www.w3.org/2000/svg";
  const svg = document.getElementById("board");
  const img = document.getElementById("map");
  const stage = document.getElementById("stage");
  const statusLine = document.getElementById("status");
  const prompt = document.getElementById("prompt");
  const controls = document.getElementById("controls");
  const list = document.getElementById("list");
  const logList = document.getElementById("log");
  const fullHeight = map.height + map.panel;
  let board = null;       // the last board the server sent
  let seq = 0;            // the last event this page has seen
  let selected = null;    // the territory tapped first
  let mode = null;        // what a second tap does: "attack" or "fortify"
  let socket = null;
  let retry = 500;
  let zoom = 1;
  let imageSeq = "";
  let replay = null;      // the moment the scrubber shows (null: live)
  let ended = null;       // why the server closed the board, when it did ("closed" message)
  const shapes = {};
  const badges = {};
  const items = {};

  const fill = (text, values) => text.replace(/\{(\w+)\}/g, (m, k) => (k in values ? values[k] : m));
  const el = (tag, attrs, text) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const sv = (tag, attrs) => {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    return node;
  };

  document.title = S.title;
  document.getElementById("zoom-in").textContent = "+";
  document.getElementById("zoom-in").setAttribute("aria-label", S.zoom_in);
  document.getElementById("zoom-out").textContent = "−";
  document.getElementById("zoom-out").setAttribute("aria-label", S.zoom_out);
  document.getElementById("list-title").textContent = S.territories;
  document.getElementById("log-title").textContent = S.log;
  document.getElementById("hand-title").textContent = S.cards;
  document.getElementById("leave-button").textContent = S.leave;
  document.getElementById("leave").setAttribute("action", `/g/${data.game}/leave`);
  if (token) {  // inside Discord the page has no cookie: Leave sends its session, as every request does
    document.getElementById("leave").addEventListener("submit", (e) => {
      e.preventDefault();
      fetch(`/g/${data.game}/leave`, { method: "POST", headers: { Authorization: "Bearer " + token } })
        .then(() => { token = null; end({ reason: "session", text: S.left }); });
    });
  }

  // -- the map: the rendered image, and over it an outline per territory to tap ------------------------------
  svg.setAttribute("viewBox", `0 0 ${map.width} ${fullHeight}`);
  stage.style.aspectRatio = `${map.width} / ${fullHeight}`;  // the outlines fit the map before its picture comes
  svg.setAttribute("aria-label", S.territories);
  const names = map.names;
  const ids = Object.keys(map.paths).sort((a, b) => names[a].localeCompare(names[b]));
  const outlines = sv("g", {});
  const marks = sv("g", { "class": "marks", "aria-hidden": "true" });
  svg.append(outlines, marks);
  for (const tid of ids) {
    const path = sv("path", { d: map.paths[tid], "class": "t", id: "t-" + tid, role: "button", tabindex: "-1",
                              "data-territory": tid });
    path.addEventListener("click", () => tap(tid));
    path.addEventListener("keydown", (e) => {  // a territory in focus is tapped with Enter or Space
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); tap(tid); }
    });
    outlines.append(path);
    shapes[tid] = path;
    const [x, y] = map.anchors[tid];
    const g = sv("g", { "class": "badge" });
    const r = map.badge / 2 + 1;
    g.append(sv("circle", { cx: x, cy: y, r: r }));
    const label = sv("text", { x: x, y: y + 1, "text-anchor": "middle", "dominant-baseline": "middle" });
    g.append(label);
    const odds = sv("text", { x: x, y: y - r - 6, "class": "odds", "text-anchor": "middle" });
    g.append(odds);
    marks.append(g);
    badges[tid] = { g: g, label: label, odds: odds };
    const button = el("button", { type: "button", "class": "item", "data-territory": tid });
    button.addEventListener("click", () => tap(tid));
    list.append(button);
    items[tid] = button;
  }
  const viewport = document.getElementById("viewport");
  // Zoom keeps the point (cx, cy) of the viewport where it is: the middle for the buttons, between the fingers
  // for a pinch, under the pointer for a trackpad's pinch (a wheel with ctrl).
  function setZoom(z, cx, cy) {
    const before = zoom;
    zoom = Math.max(1, Math.min(4, z));
    if (cx === undefined) { cx = viewport.clientWidth / 2; cy = viewport.clientHeight / 2; }
    const x = (viewport.scrollLeft + cx) / before;
    const y = (viewport.scrollTop + cy) / before;
    stage.style.width = (zoom * 100) + "%";
    viewport.scrollLeft = x * zoom - cx;
    viewport.scrollTop = y * zoom - cy;
  }
  document.getElementById("zoom-in").addEventListener("click", () => setZoom(zoom * 1.5));
  document.getElementById("zoom-out").addEventListener("click", () => setZoom(zoom / 1.5));
  // One finger pans the map (the viewport scrolls); two fingers pinch it.
  const fingers = new Map();
  let pinch = null;
  function spread() {
    const [a, b] = [...fingers.values()];
    const box = viewport.getBoundingClientRect();
    return { d: Math.hypot(a.x - b.x, a.y - b.y) || 1, x: (a.x + b.x) / 2 - box.left, y: (a.y + b.y) / 2 - box.top };
  }
  viewport.addEventListener("pointerdown", (e) => {
    if (e.pointerType !== "touch") return;
    fingers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (fingers.size === 2) pinch = { zoom: zoom, d: spread().d };
  });
  viewport.addEventListener("pointermove", (e) => {
    if (!fingers.has(e.pointerId)) return;
    fingers.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (pinch && fingers.size === 2) {
      const now = spread();
      setZoom(pinch.zoom * now.d / pinch.d, now.x, now.y);
      e.preventDefault();
    }
  });
  for (const ended of ["pointerup", "pointercancel", "pointerleave"]) {
    viewport.addEventListener(ended, (e) => {
      fingers.delete(e.pointerId);
      if (fingers.size < 2) pinch = null;
    });
  }
  viewport.addEventListener("wheel", (e) => {
    if (!e.ctrlKey) return;  // a plain wheel scrolls
    e.preventDefault();
    const box = viewport.getBoundingClientRect();
    setZoom(zoom * Math.exp(-e.deltaY / 200), e.clientX - box.left, e.clientY - box.top);
  }, { passive: false });

  // -- the connection: resume from the last event seen ---------------------------------------------------------
  function connect() {
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const url = `${scheme}${location.host}/g/${data.game}/ws`;
    socket = token ? new WebSocket(url, ["risk-board", "session." + token]) : new WebSocket(url);
    socket.addEventListener("open", () => {
      retry = 500;
      socket.send(JSON.stringify({ type: "hello", since: seq }));
    });
    socket.addEventListener("message", (e) => receive(JSON.parse(e.data)));
    socket.addEventListener("close", () => {
      if (ended && ended.reason !== "restart") { end(ended); return; }  // told why: no blind retry
      ended = null;
      statusLine.textContent = S.reconnecting;
      document.body.classList.add("offline");
      setTimeout(connect, retry);
      retry = Math.min(retry * 2, 10000);
    });
  }
  function send(move) {
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    const id = Math.random().toString(36).slice(2) + Date.now().toString(36);
    socket.send(JSON.stringify(Object.assign({ type: "move", id: id }, move)));
    document.body.classList.add("busy");
  }
  function receive(message) {
    document.body.classList.remove("offline");
    if (message.type === "board") {
      seq = message.seq;
      board = message.board;
      for (const line of message.lines) logList.prepend(el("li", {}, line));
      while (logList.children.length > 200) logList.lastChild.remove();
      document.body.classList.remove("busy");
      keepSelection();
      draw();
    } else if (message.type === "refused") {
      document.body.classList.remove("busy");
      flash(message.text);
    } else if (message.type === "replay") {
      if (scrubbing === message.seq) { replay = message; draw(); }
    } else if (message.type === "done") {
      document.body.classList.remove("busy");
    } else if (message.type === "closed") {
      ended = message;
    }
  }
  // The server ended this board (the seat is no longer the viewer's, the session left, too many boards open):
  // say why, show nothing of the seat any more, and offer to open the board again (a new page asks anew who
  // the viewer is: inside Discord, a spectator's board for a seat that changed hands).
  function end(why) {
    if (socket) socket.close();
    socket = null;
    board = null;
    statusLine.textContent = why.text;
    document.body.classList.add("offline");
    for (const node of [svg, logList, document.getElementById("hand"), list]) if (node) node.replaceChildren();
    img.removeAttribute("src");
    for (const id of ["zoom", "viewport"]) document.getElementById(id).style.display = "none";
    prompt.textContent = why.text;
    controls.replaceChildren(button(S.reconnect, () => location.reload(), "go"));
  }
  function flash(text) {
    const note = el("p", { "class": "refusal", role: "alert" }, text);
    controls.prepend(note);
    setTimeout(() => note.remove(), 6000);
  }

  // -- drawing the board ---------------------------------------------------------------------------------------
  function playerOf(seat) {
    return board.players.find((p) => p.seat === seat) || null;
  }
  function ownerName(seat) {
    if (seat === undefined) return "";
    const p = playerOf(seat);
    return p ? p.name : S.neutral;
  }
  function colourOf(seat) {
    const p = playerOf(seat);
    return p ? p.colour : board.neutral.colour;
  }
  function highlightOf(seat) {   // the renderer's highlight for this owner's fill (light or dark)
    if (seat === undefined) return board.fog.highlight;
    const p = playerOf(seat);
    return p ? p.highlight : board.neutral.highlight;
  }
  function draw() {
    const B = replay ? replay.board : board;
    const picture = replay ? `at=${replay.seq}` : `v=${board.seq}`;
    if (picture !== imageSeq) {   // the renderer's picture of this moment (the badges above are already right)
      imageSeq = picture;
      showPicture(`/g/${data.game}/map.png?${picture}`);
    }
    const you = B.you;
    const current = playerOf(B.current);
    statusLine.textContent = B.phase_text ? `${B.turn ? B.turn + " · " : ""}${B.phase_text}` : "";
    const chips = document.getElementById("players");
    chips.replaceChildren();
    for (const p of B.players) {
      const chip = el("li", { "class": "chip" + (p.seat === B.current ? " now" : "") + (p.out ? " out" : "") });
      const dot = el("span", { "class": "dot shape-" + p.shape, "aria-hidden": "true" });
      dot.style.background = p.colour;
      chip.append(dot, document.createTextNode(p.name + (p.cards ? ` 🃏${p.cards}` : "")));
      chips.append(chip);
    }
    const lit = replay ? new Set() : litTerritories();
    for (const tid of ids) {
      const owner = B.owners[tid];
      const armies = B.armies[tid];
      const b = badges[tid];
      const known = owner !== undefined;
      b.g.style.display = known ? "" : "none";
      if (known) {
        b.g.querySelector("circle").setAttribute("fill", colourOf(owner));
        b.label.textContent = armies;
      }
      const name = names[tid];
      const label = known ? `${name}, ${ownerName(owner)}, ${fill(S.armies, { n: armies })}` : name;
      shapes[tid].setAttribute("aria-label", label);
      items[tid].textContent = known ? `${name} · ${ownerName(owner)} · ${armies}` : name;
      const on = lit.has(tid);
      shapes[tid].style.setProperty("--hl", highlightOf(owner));
      shapes[tid].classList.toggle("lit", on);
      shapes[tid].classList.toggle("selected", tid === selected);
      shapes[tid].setAttribute("tabindex", on ? "0" : "-1");
      items[tid].classList.toggle("lit", on);
      items[tid].disabled = !on;
      items[tid].setAttribute("aria-pressed", tid === selected ? "true" : "false");
      b.odds.textContent = "";
    }
    if (!replay && selected && mode === "attack" && B.legal && B.legal.attack && B.legal.attack[selected]) {
      for (const t of B.legal.attack[selected]) badges[t.to].odds.textContent = pct(t.win);
    }
    drawHand();
    if (replay) drawReplay(); else drawControls(current);
    drawScrubber();
  }
  function showPicture(url) {
    if (!token) { img.src = url; return; }
    fetch(url, { headers: { Authorization: "Bearer " + token } })  // an <img> cannot send the token
      .then((r) => (r.ok ? r.blob() : null))
      .then((blob) => {
        if (!blob || imageSeq !== url.split("?")[1]) return;  // a newer picture was asked for meanwhile
        const old = img.src;
        img.src = URL.createObjectURL(blob);
        if (old.startsWith("blob:")) URL.revokeObjectURL(old);
      })
      .catch(() => {});
  }
  function pct(p) {
    return new Intl.NumberFormat(data.language, { style: "percent", maximumFractionDigits: 0 }).format(p);
  }
  function legal() { return (board && board.legal) || {}; }
  function litTerritories() {
    const L = legal();
    const out = new Set();
    if (L.claim) L.claim.forEach((t) => out.add(t));
    if (L.capital) L.capital.forEach((t) => out.add(t));
    if (L.place) L.place.territories.forEach((t) => out.add(t));
    if (L.neutral) L.neutral.territories.forEach((t) => out.add(t));
    if (selected && mode === "attack" && L.attack && L.attack[selected]) {
      out.add(selected);
      L.attack[selected].forEach((t) => out.add(t.to));
    } else if (selected && mode === "fortify" && L.fortify && L.fortify[selected]) {
      out.add(selected);
      L.fortify[selected].to.forEach((t) => out.add(t));
    } else if (!L.place && !L.neutral) {
      if (L.attack) Object.keys(L.attack).forEach((t) => out.add(t));
      if (L.fortify) Object.keys(L.fortify).forEach((t) => out.add(t));
    }
    return out;
  }
  function keepSelection() {
    const L = legal();
    if (!selected) return;
    const placing = (L.place && L.place.territories.includes(selected)) ||
      (L.neutral && L.neutral.territories.includes(selected));
    const ok = placing || (mode === "attack" && L.attack && L.attack[selected]) ||
      (mode === "fortify" && L.fortify && L.fortify[selected]);
    if (!ok) { selected = null; mode = null; target = null; }
  }

  // -- taps -----------------------------------------------------------------------------------------------------
  let target = null;
  function tap(tid) {
    const L = legal();
    if (L.claim && L.claim.includes(tid)) return send({ move: "claim", territory: tid });
    if (L.capital && L.capital.includes(tid)) return send({ move: "capital", territory: tid });
    if ((L.place && L.place.territories.includes(tid)) || (L.neutral && L.neutral.territories.includes(tid))) {
      selected = tid; mode = null; target = null;
      return draw();
    }
    if (selected && tid !== selected) {
      if (mode === "attack" && L.attack && L.attack[selected] && L.attack[selected].some((t) => t.to === tid)) {
        target = tid; return draw();
      }
      if (mode === "fortify" && L.fortify && L.fortify[selected] && L.fortify[selected].to.includes(tid)) {
        target = tid; return draw();
      }
    }
    if (tid === selected) { selected = null; mode = null; target = null; return draw(); }
    if (L.attack && L.attack[tid]) { selected = tid; mode = "attack"; target = null; return draw(); }
    if (L.fortify && L.fortify[tid]) { selected = tid; mode = "fortify"; target = null; return draw(); }
  }
  function button(text, action, cls) {
    const b = el("button", { type: "button", "class": cls || "" }, text);
    b.addEventListener("click", action);
    return b;
  }
  function counter(low, high, start, label) {
    const wrap = el("label", { "class": "count" }, label + " ");
    const input = el("input", { type: "range", min: low, max: high, value: start, step: 1 });
    const shown = el("output", {}, String(start));
    const watchers = [];
    input.addEventListener("input", () => {
      shown.textContent = input.value;
      watchers.forEach((w) => w(parseInt(input.value, 10)));
    });
    wrap.append(input, shown);
    return { node: wrap, value: () => parseInt(input.value, 10), changed: (w) => watchers.push(w) };
  }
  function drawControls(current) {
    controls.replaceChildren();
    const L = legal();
    if (board.over) { prompt.textContent = board.phase_text; return; }
    if (board.you === null) { prompt.textContent = S.spectator; return; }
    if (board.current !== board.you || Object.keys(L).length === 0) {
      prompt.textContent = fill(S.waiting, { player: current ? current.name : "" });
      return;
    }
    if (L.occupy) {
      const to = L.occupy.to;
      prompt.textContent = fill(S.move_in, { territory: names[to] || "" });
      const c = counter(L.occupy.min, L.occupy.max, L.occupy.max, S.how_many);
      const go = button(fill(S.move_n, { n: c.value() }), () => send({ move: "occupy", count: c.value() }), "go");
      go.id = "move-in";
      c.changed((n) => { go.textContent = fill(S.move_n, { n: n }); });
      controls.append(c.node, go);
      return;
    }
    const placing = selected && ((L.place && L.place.territories.includes(selected)) ||
      (L.neutral && L.neutral.territories.includes(selected)));
    if (placing) {
      const neutral = !(L.place && L.place.territories.includes(selected));
      const most = neutral ? L.neutral.most : L.place.most;
      prompt.textContent = names[selected];
      const c = counter(1, most, most, S.how_many);
      controls.append(c.node,
        button(neutral ? S.neutral : S.place, () => send({ move: neutral ? "neutral" : "place", territory: selected,
          count: c.value() }), "go"),
        button(S.cancel, () => { selected = null; draw(); }));
    } else if (selected && target && mode === "attack") {
      prompt.textContent = `${names[selected]} → ${names[target]}`;
      const from = selected, to = target;
      const stop = counter(1, Math.max(1, board.armies[from] - 1), 1, S.stop_at);
      controls.append(button(S.attack, () => send({ move: "attack", from: from, to: to }), "go attack"),
        button(S.blitz, () => send({ move: "blitz", from: from, to: to, stop_at: stop.value() }), "attack"),
        button(S.cancel, () => { target = null; draw(); }), stop.node);
    } else if (selected && target && mode === "fortify") {
      prompt.textContent = `${names[selected]} → ${names[target]}`;
      const from = selected, to = target;
      const c = counter(1, L.fortify[from].most, L.fortify[from].most, S.how_many);
      controls.append(c.node, button(S.fortify, () => send({ move: "fortify", from: from, to: to, count: c.value() }),
        "go"), button(S.cancel, () => { target = null; draw(); }));
    } else if (selected && mode === "attack") {
      prompt.textContent = fill(S.pick_target, { territory: names[selected] });
      if (L.fortify && L.fortify[selected]) {
        controls.append(button(S.fortify_from, () => { mode = "fortify"; draw(); }));
      }
      controls.append(button(S.cancel, () => { selected = null; mode = null; draw(); }));
    } else if (selected && mode === "fortify") {
      prompt.textContent = fill(S.pick_fortify, { territory: names[selected] });
      controls.append(button(S.cancel, () => { selected = null; mode = null; draw(); }));
    } else if (L.claim) {
      prompt.textContent = S.pick_claim;
    } else if (L.capital) {
      prompt.textContent = S.pick_capital;
    } else if (L.place) {
      prompt.textContent = S.pick_place + ` (${L.place.most})`;
    } else if (L.neutral) {
      prompt.textContent = S.pick_neutral;
    } else {
      prompt.textContent = S.pick_source;
    }
    if (L.trade) {
      for (const set of L.trade) {
        const words = set.cards.map((c) => (board.hand.find((h) => h.card === c) || { name: c }).name).join(", ");
        const bonuses = set.bonus.length > 1 ? set.bonus : [set.bonus.length ? set.bonus[0] : null];
        for (const bonus of bonuses) {  // more than one card's territory held: the player chooses where the +2 go
          const where = set.bonus.length > 1 ? ` · +2 ${names[bonus]}` : "";
          controls.append(button(`${S.trade}: ${words}${where}`, () => send({ move: "trade", cards: set.cards,
            bonus: bonus })));
        }
      }
    }
    if (L.undo) controls.append(button(S.undo, () => send({ move: "undo" })));
    if (L.end_attack && !target) controls.append(button(S.end_attack, () => send({ move: "end_attack" })));
    if (L.end_turn && !target) controls.append(button(S.end_turn, () => send({ move: "end_turn" }), "end"));
  }
  function drawHand() {
    const hand = document.getElementById("hand");
    hand.replaceChildren();
    const box = document.getElementById("hand-box");
    if (board.you === null) { box.hidden = true; return; }
    box.hidden = false;
    if (board.mission) hand.append(el("p", { "class": "mission" }, `📜 ${board.mission}`));
    if (!board.hand || !board.hand.length) { hand.append(el("p", {}, S.no_cards)); return; }
    const cards = el("ul", {});
    for (const c of board.hand) cards.append(el("li", {}, `${c.symbol} ${c.name}`));
    hand.append(cards);
  }

  // -- the replay: the scrubber over the game's events, each moment as this viewer may know it ------------------
  const scrub = document.getElementById("scrub");
  const scrubAt = document.getElementById("scrub-at");
  document.getElementById("replay-title").textContent = S.replay;
  let scrubbing = null;
  let scrubTimer = null;
  scrub.addEventListener("input", () => {
    const at = parseInt(scrub.value, 10);
    scrubAt.textContent = fill(S.replay_at, { n: at, total: seq });
    clearTimeout(scrubTimer);
    scrubTimer = setTimeout(() => {
      if (at >= seq) { goLive(); return; }
      scrubbing = at;
      socket.send(JSON.stringify({ type: "replay", seq: at }));
    }, 120);
  });
  function goLive() {
    replay = null; scrubbing = null;
    draw();
  }
  function drawScrubber() {
    scrub.max = String(seq);
    if (!replay) { scrub.value = String(seq); scrubAt.textContent = fill(S.replay_at, { n: seq, total: seq }); }
  }
  function drawReplay() {
    controls.replaceChildren();
    prompt.textContent = fill(S.replay_at, { n: replay.seq, total: replay.of }) +
      (replay.lines.length ? " · " + replay.lines.join(" ") : "");
    controls.append(button(S.live, goLive, "go"));
  }

  statusLine.textContent = S.connecting;
  connect();
}
window.RiskBoard = { start: startBoard };
(function () {
  const data = JSON.parse(document.getElementById("data").textContent);
  if (data.game !== undefined) startBoard(data, null);
})();
