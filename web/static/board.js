// The live board: the map's background (sea, borders, names) loaded once, and over it the page's own drawing of the
// game: owners' colours, army numbers, capitals, highlights, the last battle's arrow. Everything drawn comes from
// the server over the WebSocket, already reduced to what this viewer may know: a whole board when the page says
// hello, then only what changed. Every move is sent back as a message the server checks against the legal choices
// of the moment. Opened from a link, the page holds its data and the cookie does the rest; inside Discord (the
// Activity) the page starts empty and activity.js calls RiskBoard.start(data, token) once Discord has said who the
// viewer is: the token, held in memory only, goes with every request, as the cookie would.
"use strict";
function startBoard(data, token) {
  const S = data.strings;
  const map = data.map;
  const SVG = "http://www.w3.org/2000/svg";
  const svg = document.getElementById("board");
  const stage = document.getElementById("stage");
  const viewport = document.getElementById("viewport");
  const statusLine = document.getElementById("status");
  const prompt = document.getElementById("prompt");
  const controls = document.getElementById("controls");
  const battleBox = document.getElementById("battle");
  const list = document.getElementById("list");
  const logList = document.getElementById("log");
  const MAX_ZOOM = 6;
  const BADGE_FONT = 13;   // CSS px of an army number, whatever the zoom
  let board = null;       // the board as the server last described it (changes applied)
  let seq = 0;            // the last event this page has seen
  let selected = null;    // the territory tapped first
  let target = null;      // the second one (a fortify's destination)
  let mode = null;        // what the selection is for: "place", "attack", "fortify", "capital"
  let socket = null;
  let retry = 500;
  let again = null;       // the reconnection waiting to run
  let answered = null;    // the hello not answered yet (a socket dead after a phone's sleep is closed)
  let zoom = 1;
  let focused = false;    // the first board was framed on the viewer's front
  let replay = null;      // the moment the scrubber shows (null: live)
  let ended = null;       // why the server closed the board, when it did ("closed" message)
  let fight = null;       // the last battle shown: {from, to, seat, defender, rolls, conquered, old}
  let blitzing = false;   // the next lit target tapped is blitzed, not attacked once
  let taken = new Set();  // territories conquered since the viewer last looked, marked until their first tap
  // Plan my turn (web/plans.py): the plan being built by taps, recorded instead of played, and the one kept.
  let draft = null;       // {place, attacks: [{from, to, stop, move}], fortify, end, repeat} while planning
  let pending = null;     // the attack whose stop is being chosen
  let kept = null;        // the viewer's own plan as the server last told it ({plan, lines}), only ever theirs
  let planTurn = null;    // the turn the kept plan was asked for at
  const shapes = {};
  const fills = {};
  const badges = {};
  const items = {};
  const store = (() => { try { return window.localStorage; } catch (e) { return null; } })();
  const seenKey = `risk:${data.game}:${data.you === null ? "watch" : data.you}`;

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
  const remember = (key, value) => { try { if (store) store.setItem(key, value); } catch (e) { /* private mode */ } };
  const recall = (key) => { try { return store ? store.getItem(key) : null; } catch (e) { return null; } };

  document.title = S.title;
  const label = (id, text, aria) => {
    const node = document.getElementById(id);
    node.textContent = text;
    if (aria) node.setAttribute("aria-label", aria);
  };
  label("zoom-in", "+", S.zoom_in);
  label("zoom-out", "−", S.zoom_out);
  label("zoom-fit", "⤢", S.fit);
  label("list-title", S.territories);
  label("log-title", S.log);
  label("hand-title", S.cards);
  label("glance-title", S.players + " · " + S.continents);
  label("since-title", S.since);
  label("leave-button", S.leave);
  label("hint-close", "×", S.close);
  document.getElementById("leave").setAttribute("action", `/g/${data.game}/leave`);
  if (token) {  // inside Discord the page has no cookie: Leave sends its session, as every request does
    document.getElementById("leave").addEventListener("submit", (e) => {
      e.preventDefault();
      fetch(`/g/${data.game}/leave`, { method: "POST", headers: { Authorization: "Bearer " + token } })
        .then(() => { token = null; end({ reason: "session", text: S.left }); });
    });
  }
  if (!recall("risk:hint")) {  // a first visit: what to tap, in one line
    const hint = document.getElementById("hint");
    document.getElementById("hint-text").textContent = S.hint;
    hint.hidden = false;
    document.getElementById("hint-close").addEventListener("click", () => {
      hint.hidden = true;
      remember("risk:hint", "1");
    });
  }

  // -- colours: the renderer's palette comes with the board; text on a colour takes the ink that reads best ----
  function luminance(hex) {
    const c = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
      .map((v) => (v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4)));
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  }
  const inkOn = (hex) => (luminance(hex) > 0.179 ? "#000000" : "#ffffff");

  // -- the map: fills under the background picture, then the outlines to tap, highlights and badges --------------
  svg.setAttribute("viewBox", `0 0 ${map.width} ${map.height}`);
  stage.style.aspectRatio = `${map.width} / ${map.height}`;
  svg.setAttribute("aria-label", S.territories);
  const names = map.names;
  const ids = Object.keys(map.paths).sort((a, b) => names[a].localeCompare(names[b]));
  const layer = (cls, hidden) => sv("g", hidden ? { "class": cls, "aria-hidden": "true" } : { "class": cls });
  const fillLayer = layer("fills", true);
  const picture = sv("image", { x: 0, y: 0, width: map.width, height: map.height, "class": "background",
                                 "aria-hidden": "true", preserveAspectRatio: "none" });
  const tapLayer = layer("taps");
  const lightLayer = layer("lights", true);
  const arrowLayer = layer("arrows", true);
  const marks = layer("marks", true);
  svg.append(fillLayer, picture, tapLayer, lightLayer, arrowLayer, marks);
  picture.addEventListener("load", () => picture.setAttribute("data-loaded", "1"));
  if (token) {  // an <image> cannot send the token: the picture comes as a blob
    fetch(map.background, { headers: { Authorization: "Bearer " + token } })
      .then((r) => (r.ok ? r.blob() : null))
      .then((blob) => { if (blob) picture.setAttribute("href", URL.createObjectURL(blob)); })
      .catch(() => {});
  } else {
    picture.setAttribute("href", map.background);
  }
  for (const tid of ids) {
    fills[tid] = sv("path", { d: map.paths[tid], "fill-rule": "evenodd" });
    fillLayer.append(fills[tid]);
    const path = sv("path", { d: map.paths[tid], "fill-rule": "evenodd", "class": "t", id: "t-" + tid,
                              role: "button", tabindex: "-1", "data-territory": tid });
    path.addEventListener("click", () => tap(tid));
    path.addEventListener("keydown", (e) => {  // a territory in focus is tapped with Enter or Space
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); tap(tid); }
    });
    tapLayer.append(path);
    shapes[tid] = path;
    const [x, y] = map.anchors[tid];
    const g = sv("g", { "class": "badge", "data-territory": tid });
    const plate = sv("rect", { x: -12, y: -10, width: 24, height: 20, rx: 10 });
    const number = sv("text", { x: 0, y: 1, "text-anchor": "middle", "dominant-baseline": "middle" });
    number.style.fontSize = BADGE_FONT + "px";
    const star = sv("text", { x: 0, y: -15, "text-anchor": "middle", "class": "capital" });
    const odds = sv("text", { x: 0, y: 24, "text-anchor": "middle", "class": "odds" });
    g.append(plate, number, star, odds);
    g.addEventListener("click", () => tap(tid));
    marks.append(g);
    badges[tid] = { g: g, plate: plate, number: number, star: star, odds: odds, x: x, y: y };
    const button = el("button", { type: "button", "class": "item", "data-territory": tid });
    button.addEventListener("click", () => tap(tid));
    list.append(button);
    items[tid] = button;
  }

  // -- zoom: the stage grows inside the scrolling viewport; badges keep their size on screen -------------------
  const scale = () => stage.getBoundingClientRect().width / map.width;  // CSS px per map unit
  function placeBadges() {
    const k = 1 / scale();
    for (const tid of ids) {
      const b = badges[tid];
      b.g.setAttribute("transform", `translate(${b.x} ${b.y}) scale(${k})`);
    }
  }
  // Zoom keeps the point (cx, cy) of the viewport where it is: the middle for the buttons, between the fingers
  // for a pinch, under the pointer for a trackpad's pinch (a wheel with ctrl).
  function setZoom(z, cx, cy) {
    const before = zoom;
    zoom = Math.max(1, Math.min(MAX_ZOOM, z));
    if (cx === undefined) { cx = viewport.clientWidth / 2; cy = viewport.clientHeight / 2; }
    const x = (viewport.scrollLeft + cx) / before;
    const y = (viewport.scrollTop + cy) / before;
    stage.style.width = (zoom * 100) + "%";
    viewport.scrollLeft = x * zoom - cx;
    viewport.scrollTop = y * zoom - cy;
    placeBadges();
  }
  // Frame a set of territories: as large as the viewport holds them, centred.
  function frame(tids) {
    const boxes = tids.filter((t) => shapes[t]).map((t) => shapes[t].getBBox());
    if (!boxes.length) return;
    const x0 = Math.min(...boxes.map((b) => b.x)), y0 = Math.min(...boxes.map((b) => b.y));
    const x1 = Math.max(...boxes.map((b) => b.x + b.width)), y1 = Math.max(...boxes.map((b) => b.y + b.height));
    const base = viewport.clientWidth / map.width;   // CSS px per map unit at zoom 1
    const tall = Math.max(viewport.clientHeight, parseFloat(getComputedStyle(viewport).maxHeight) || 0);
    const z = 0.9 * Math.min(viewport.clientWidth / ((x1 - x0) * base), tall / ((y1 - y0) * base));
    setZoom(z);
    const s = scale();
    viewport.scrollLeft = ((x0 + x1) / 2) * s - viewport.clientWidth / 2;
    viewport.scrollTop = ((y0 + y1) / 2) * s - viewport.clientHeight / 2;
  }
  // The viewer's front: a player's strongest territory that borders someone else's, with its neighbours; a
  // spectator's, the last battle (else the front of the player whose turn it is).
  function front() {
    if (selected) return [selected, ...(map.links[selected] || [])];
    if (board.you === null && fight) return [fight.from, fight.to].filter((t) => t);
    const seat = board.you === null ? board.current : board.you;
    const mine = Object.keys(board.owners).filter((t) => board.owners[t] === seat);
    const border = mine.filter((t) => (map.links[t] || []).some((n) => board.owners[n] !== seat));
    const pool = border.length ? border : mine;
    if (!pool.length) return [];
    const best = pool.reduce((a, b) => ((board.armies[b] || 0) > (board.armies[a] || 0) ? b : a));
    return [best, ...(map.links[best] || [])];
  }
  document.getElementById("zoom-in").addEventListener("click", () => setZoom(zoom * 1.5));
  document.getElementById("zoom-out").addEventListener("click", () => setZoom(zoom / 1.5));
  document.getElementById("zoom-fit").addEventListener("click", () => setZoom(1, 0, 0));
  window.addEventListener("resize", placeBadges);  // a phone turned: the stage's width changed
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
  for (const gone of ["pointerup", "pointercancel", "pointerleave"]) {
    viewport.addEventListener(gone, (e) => {
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

  // -- the connection: resume from the last event seen; after a sleep or a lost network, ask for it all anew ----
  function connect() {
    clearTimeout(again);
    again = null;
    const scheme = location.protocol === "https:" ? "wss://" : "ws://";
    const url = `${scheme}${location.host}/g/${data.game}/ws`;
    const ws = token ? new WebSocket(url, ["risk-board", "session." + token]) : new WebSocket(url);
    socket = ws;
    ws.addEventListener("open", () => { retry = 500; hello(); });
    ws.addEventListener("message", (e) => { if (ws === socket) receive(JSON.parse(e.data)); });
    ws.addEventListener("close", () => {
      if (ws !== socket) return;
      socket = null;
      if (ended && ended.reason !== "restart") { end(ended); return; }  // told why: no blind retry
      ended = null;
      statusLine.textContent = S.reconnecting;
      document.body.classList.add("offline");
      again = setTimeout(connect, retry);
      retry = Math.min(retry * 2, 10000);
    });
  }
  function hello() {
    // The first hello asks for what happened since this viewer last looked (kept by the browser), so the page
    // can tell it; later ones for what this page has not seen.
    const since = seq || parseInt(recall(seenKey) || "0", 10) || 0;
    socket.send(JSON.stringify({ type: "hello", since: since }));
    clearTimeout(answered);
    answered = setTimeout(() => { if (socket) socket.close(); }, 8000);
  }
  function resync() {   // the phone woke up or the network came back: never show a stale board
    if (ended && ended.reason !== "restart") return;
    if (socket && socket.readyState === WebSocket.OPEN) { hello(); return; }
    if (!socket && again !== null) { retry = 500; connect(); }
  }
  document.addEventListener("visibilitychange", () => { if (!document.hidden) resync(); });
  window.addEventListener("online", resync);
  window.addEventListener("pageshow", (e) => { if (e.persisted) resync(); });
  function send(move) {
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    const id = Math.random().toString(36).slice(2) + Date.now().toString(36);
    socket.send(JSON.stringify(Object.assign({ type: "move", id: id }, move)));
    document.body.classList.add("busy");
    performance.clearMarks();
    performance.mark("risk-move");   // a tap's move sent: bench/board_phone.py times it to the board drawn
  }
  function askPlan(type, plan) {
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    const id = Math.random().toString(36).slice(2) + Date.now().toString(36);
    socket.send(JSON.stringify(Object.assign({ type: type, id: id }, plan)));
    if (type !== "plan_show") document.body.classList.add("busy");
  }
  function patch(before, change) {
    const after = Object.assign({}, before, change.set || {});
    for (const key of change.drop || []) delete after[key];
    for (const key of ["owners", "armies"]) {
      const territories = Object.assign({}, after[key] || {});
      for (const [t, v] of Object.entries(change[key] || {})) {
        if (v === null) delete territories[t]; else territories[t] = v;
      }
      after[key] = territories;
    }
    return after;
  }
  function receive(message) {
    document.body.classList.remove("offline");
    if (message.type === "board") {
      clearTimeout(answered);
      const first = board === null;
      board = message.board ? message.board : patch(board, message.diff);
      seq = message.seq;
      document.body.dataset.seq = String(seq);
      remember(seenKey, String(seq));
      for (const line of message.lines) logList.prepend(el("li", {}, line));
      while (logList.children.length > 200) logList.lastChild.remove();
      document.body.classList.remove("busy");
      takeBattles(message.battles || [], first);
      if (first && message.since > 0 && message.lines.length) {
        showSince(message.lines);
        taken = new Set((message.battles || []).filter((r) => r.kind === "conquest" && r.to).map((r) => r.to));
      }
      keepSelection();
      if (board.you !== null && board.turn !== planTurn) { planTurn = board.turn; askPlan("plan_show", {}); }
      draw();
      if (!focused) { focused = true; frame(front()); }
      performance.mark("risk-drawn");
    } else if (message.type === "plan") {   // the viewer's own plan, sent to this board alone
      document.body.classList.remove("busy");
      kept = message.plan ? message : null;
      draft = null; pending = null; selected = null;
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
    const ws = socket;
    socket = null;
    if (ws) ws.close();
    board = null;
    statusLine.textContent = why.text;
    document.body.classList.add("offline");
    for (const node of [svg, logList, document.getElementById("hand"), list, battleBox,
      document.getElementById("glance"), document.getElementById("since")]) node.replaceChildren();
    battleBox.hidden = true;
    document.getElementById("mapbox").style.display = "none";
    prompt.textContent = why.text;
    controls.replaceChildren(button(S.reconnect, () => location.reload(), "go"));
  }
  function flash(text) {
    const note = el("p", { "class": "refusal", role: "alert" }, text);
    controls.prepend(note);
    setTimeout(() => note.remove(), 6000);
  }
  function showSince(lines) {
    const box = document.getElementById("since-box");
    const since = document.getElementById("since");
    since.replaceChildren(...lines.slice(-12).map((line) => el("li", {}, line)));
    box.hidden = false;
  }

  // -- battles: each roll's dice and losses at the battle, a blitz summed up, a conquest marked ----------------
  function takeBattles(rolls, first) {
    if (!rolls.length) {   // another move since: the card of the last battle goes (a pending move-in keeps it)
      if (!first && fight && !(board.legal && board.legal.occupy)) fight.old = true;
      return;
    }
    // The last battle among them: its rolls (one roll, or all the rolls of a blitz) and whether it conquered.
    let i = rolls.length - 1;
    while (i > 0 && rolls[i].kind !== "roll") i--;
    const last = rolls[i];
    if (last.kind !== "roll") return;
    let start = i;
    while (last.blitz !== null && last.blitz !== undefined && start > 0 && rolls[start - 1].kind === "roll" &&
           rolls[start - 1].blitz === last.blitz) start--;
    const conquered = rolls.slice(i).some((r) => r.kind === "conquest" && r.to === last.to);
    fight = { from: last.from, to: last.to, seat: last.seat, defender: last.defender,
              rolls: rolls.slice(start, i + 1), conquered: conquered, old: false };
  }
  function die(value, colour, lost) {   // a die that lost its pair is crossed out
    const d = el("span", { "class": "die" + (lost ? " lost" : ""), role: "img",
                           "aria-label": lost ? `${value} ✗` : String(value) }, String(value));
    d.style.background = colour;
    d.style.color = inkOn(colour);
    return d;
  }
  function drawBattle() {
    arrowLayer.replaceChildren();
    battleBox.replaceChildren();
    const L = legal();
    const show = fight && !fight.old && !replay;
    battleBox.hidden = !show;
    if (!show) return;
    const from = fight.from, to = fight.to;
    if (from && to && map.anchors[from] && map.anchors[to]) {
      const [x0, y0] = map.anchors[from];
      const [x1, y1] = map.anchors[to];
      arrowLayer.append(sv("line", { x1: x0, y1: y0, x2: x1, y2: y1, "class": "arrow-under" }),
        sv("line", { x1: x0, y1: y0, x2: x1, y2: y1, "class": "arrow" }));
    }
    const attacker = ownerName(fight.seat), defender = ownerName(fight.defender);
    battleBox.append(el("h2", {}, `${from ? names[from] : "?"} → ${to ? names[to] : "?"}`));
    const roll = fight.rolls[fight.rolls.length - 1];
    if (roll) {
      const rows = el("div", { "class": "dice", "aria-label": S.dice });
      const pairs = Math.min(roll.attack.length, roll.defend.length);
      const row = (who, dice, colour, loses) => {
        const line = el("p", { "class": "dice-row" }, "");
        line.append(el("span", { "class": "who" }, who), ...dice.map((v, i) => die(v, colour, i < pairs && loses(i))));
        return line;
      };
      rows.append(row(attacker, roll.attack, colourOf(fight.seat), (i) => roll.attack[i] <= roll.defend[i]),
        row(defender, roll.defend, colourOf(fight.defender), (i) => roll.attack[i] > roll.defend[i]));
      battleBox.append(rows);
    }
    const lost = fight.rolls.reduce((n, r) => n + r.lost, 0), killed = fight.rolls.reduce((n, r) => n + r.killed, 0);
    const words = [fill(S.lost, { player: attacker, n: lost }), fill(S.lost, { player: defender, n: killed })];
    if (fight.rolls.length > 1) words.unshift(fill(S.blitz_rolls, { n: fight.rolls.length }));
    if (fight.conquered && to) words.push(fill(S.conquered, { territory: names[to] }));
    battleBox.append(el("p", { "class": "losses" }, words.join(" · ")));
    const actions = el("div", { "class": "battle-actions" });
    if (L.occupy) {
      actions.append(...moveIn(L.occupy));
    } else if (L.attack && L.attack[from] && L.attack[from].some((t) => t.to === to)) {
      const stop = stopAt(from);
      actions.append(button(S.attack_again, () => send({ move: "attack", from: from, to: to }), "go attack"),
        button(S.blitz, () => send({ move: "blitz", from: from, to: to, stop_at: stop ? Number(stop.value) : 1 }),
          "attack"));
      if (stop) actions.append(stop);
    }
    if (actions.children.length) battleBox.append(actions);
  }
  // The blitz's stop, beside its button: the armies the attacking territory keeps (1, the default: to the end).
  function stopAt(from) {
    const most = ((board.armies || {})[from] || 0) - 1;
    if (most < 2) return null;
    const pick = el("select", { id: "stop-at", "class": "stop-at", "aria-label": S.blitz_stop,
                                title: S.blitz_stop });
    for (let n = 1; n <= most; n++) pick.append(el("option", { value: String(n) }, String(n)));
    return pick;
  }
  function counts(low, high) {   // a few counts to choose in one tap: the least, about half, the most
    return [...new Set([high, Math.max(low, Math.ceil((low + high) / 2)), low])].filter((n) => n >= low && n <= high);
  }
  function moveIn(occupy) {
    return counts(occupy.min, occupy.max).map((n, i) => {
      const b = button(fill(S.move_n, { n: n }), () => send({ move: "occupy", count: n }), i === 0 ? "go" : "");
      if (i === 0) b.id = "move-in";
      return b;
    });
  }

  // -- drawing the board ---------------------------------------------------------------------------------------
  function playerOf(seat) {
    const B = replay ? replay.board : board;
    return B.players.find((p) => p.seat === seat) || null;
  }
  function ownerName(seat) {
    if (seat === undefined || seat === null) return "?";
    const p = playerOf(seat);
    return p ? p.name : S.neutral;
  }
  function colourOf(seat) {
    const B = replay ? replay.board : board;
    if (seat === undefined || seat === null) return B.fog.colour;
    const p = playerOf(seat);
    return p ? p.colour : B.neutral.colour;
  }
  function fillOf(seat) {
    const B = replay ? replay.board : board;
    if (seat === undefined) return B.fog.fill;
    const p = playerOf(seat);
    return p ? p.fill : B.neutral.fill;
  }
  function clock(seconds) {
    const unit = (n, u) => new Intl.NumberFormat(data.language, { style: "unit", unit: u, unitDisplay: "narrow" })
      .format(n);
    if (seconds >= 86400) return `${unit(Math.floor(seconds / 86400), "day")} ${unit(Math.floor(seconds % 86400 / 3600), "hour")}`;
    if (seconds >= 3600) return `${unit(Math.floor(seconds / 3600), "hour")} ${unit(Math.floor(seconds % 3600 / 60), "minute")}`;
    return `${unit(Math.floor(seconds / 60), "minute")} ${unit(Math.floor(seconds % 60), "second")}`;
  }
  let deadline = null;   // [the seconds left as the server said, when it said it]
  let ticking = null;
  function drawStatus() {
    const B = replay ? replay.board : board;
    const current = playerOf(B.current);
    const parts = [];
    if (B.turn && current) parts.push(fill(S.turn_of, { n: B.turn, player: current.name }));
    if (B.phase_text) parts.push(B.phase_text);
    if (!replay && deadline) {
      const left = Math.max(0, deadline[0] - (Date.now() - deadline[1]) / 1000);
      parts.push(fill(S.time_left, { time: clock(left) }));
    }
    statusLine.textContent = parts.join(" · ");
  }
  function draw() {
    if (!board) return;
    const B = replay ? replay.board : board;
    if (!replay) {
      deadline = board.deadline === null || board.deadline === undefined ? null : [board.deadline, Date.now()];
      clearInterval(ticking);
      if (deadline) ticking = setInterval(drawStatus, 1000);
    }
    drawStatus();
    const chips = document.getElementById("players");
    chips.replaceChildren();
    const order = B.order && B.order.length ? B.order : B.players.map((p) => p.seat);
    for (const seat of order) {
      const p = playerOf(seat);
      if (!p) continue;
      const chip = el("li", { "class": "chip" + (p.seat === B.current ? " now" : "") + (p.out ? " out" : "") });
      const dot = el("span", { "class": "dot shape-" + p.shape, "aria-hidden": "true" });
      dot.style.background = p.colour;
      chip.append(dot, document.createTextNode(p.name + (p.seat === B.you ? " " + S.you_mark : "")));
      chips.append(chip);
    }
    const lit = replay ? new Set() : litTerritories();
    const capitals = new Set(Object.values(B.capitals || {}));
    lightLayer.replaceChildren();
    for (const tid of ids) {
      const owner = B.owners[tid];
      const armies = B.armies[tid];
      const b = badges[tid];
      const known = owner !== undefined;
      fills[tid].setAttribute("fill", known ? fillOf(owner) : B.fog.fill);
      b.g.style.display = known ? "" : "none";
      if (known) {
        const colour = colourOf(owner);
        const text = String(armies);
        const width = 12 + 8 * text.length;
        b.plate.setAttribute("x", -width / 2);
        b.plate.setAttribute("width", width);
        b.plate.setAttribute("fill", colour);
        b.number.setAttribute("fill", inkOn(colour));
        b.number.textContent = text;
        b.star.textContent = capitals.has(tid) ? "★" : "";
      }
      const name = names[tid];
      const words = known ? `${name}, ${ownerName(owner)}, ${fill(S.armies, { n: armies })}` : name;
      shapes[tid].setAttribute("aria-label", words);
      items[tid].textContent = known ? `${name} · ${ownerName(owner)} · ${armies}` : name;
      const on = lit.has(tid);
      if (on || tid === selected || tid === target) {
        const cls = tid === selected || tid === target ? "chosen" : "lit";
        lightLayer.append(sv("path", { d: map.paths[tid], "class": "light-under " + cls }),
          sv("path", { d: map.paths[tid], "class": "light " + cls }));
      }
      shapes[tid].classList.toggle("lit", on);
      shapes[tid].setAttribute("tabindex", on ? "0" : "-1");
      items[tid].classList.toggle("lit", on);
      items[tid].disabled = !on;
      items[tid].setAttribute("aria-pressed", tid === selected ? "true" : "false");
      b.odds.textContent = "";
    }
    if (!replay) {   // the last conquest, and those since the viewer last looked
      const marked = new Set(taken);
      if (fight && fight.conquered && !fight.old && fight.to) marked.add(fight.to);
      for (const t of marked) if (map.paths[t]) lightLayer.append(sv("path", { d: map.paths[t], "class": "conquered" }));
    }
    const L = legal();
    if (!replay && selected && mode === "attack" && L.attack && L.attack[selected]) {
      for (const t of L.attack[selected]) badges[t.to].odds.textContent = pct(t.win);
    }
    drawBattle();
    drawHand();
    drawGlance(B);
    if (replay) drawReplay(); else drawControls();
    drawScrubber();
  }
  function pct(p) {
    return new Intl.NumberFormat(data.language, { style: "percent", maximumFractionDigits: 0 }).format(p);
  }
  function legal() { return (!replay && board && board.legal) || {}; }
  function mineByPlan() {   // the viewer's territories as the plan will hold them: now, and what it takes
    const out = new Set(Object.keys(board.owners).filter((t) => board.owners[t] === board.you));
    if (draft) for (const a of draft.attacks) out.add(a.to);
    return out;
  }
  function planLit() {
    const mine = mineByPlan();
    if (pending) return new Set();
    if (draft.place === null || !selected) return mine;
    const near = (map.links[selected] || []).filter((t) => !mine.has(t) ? board.owners[t] !== undefined &&
      draft.attacks.length < 5 : draft.fortify === null);
    return new Set([...near, ...mine]);
  }
  function litTerritories() {
    if (draft && board) return planLit();
    const L = legal();
    const out = new Set();
    if (L.occupy) return out;
    if (L.claim) L.claim.forEach((t) => out.add(t));
    if (L.capital) L.capital.forEach((t) => out.add(t));
    if (L.place) L.place.territories.forEach((t) => out.add(t));
    if (L.neutral) L.neutral.territories.forEach((t) => out.add(t));
    if (selected && mode === "attack" && L.attack && L.attack[selected]) {
      L.attack[selected].forEach((t) => out.add(t.to));
    } else if (selected && mode === "fortify" && !target && L.fortify && L.fortify[selected]) {
      L.fortify[selected].to.forEach((t) => out.add(t));
    } else if (!selected && !L.place && !L.neutral) {
      if (L.attack) Object.keys(L.attack).forEach((t) => out.add(t));
      if (L.fortify && !(L.attack && Object.keys(L.attack).length)) Object.keys(L.fortify).forEach((t) => out.add(t));
    }
    return out;
  }
  // After a board arrives: keep what the player chose if it still makes sense (the territory just placed on
  // becomes the attack's source; after a conquest, the armies' new home when the old one has no more to send).
  function keepSelection() {
    const L = legal();
    if (L.occupy) { target = null; return; }
    if (fight && fight.conquered && selected === fight.from && !(L.attack && L.attack[selected]) &&
        L.attack && L.attack[fight.to]) selected = fight.to;
    if (selected && L.place && L.place.territories.includes(selected)) { mode = "place"; target = null; return; }
    if (selected && L.attack && L.attack[selected]) { mode = "attack"; target = null; return; }
    if (selected && L.fortify && L.fortify[selected] && mode === "fortify") {
      if (target && !L.fortify[selected].to.includes(target)) target = null;
      return;
    }
    selected = null; target = null; mode = null;
  }
  function planTap(tid) {
    const mine = mineByPlan();
    if (pending) return;
    if (draft.place === null) {
      if (mine.has(tid)) selected = tid === selected ? null : tid;
    } else if (selected && tid !== selected && (map.links[selected] || []).includes(tid) && !mine.has(tid) &&
               draft.attacks.length < 5) {
      pending = { from: selected, to: tid, stop: "", move: "a" };
    } else if (selected && tid !== selected && (map.links[selected] || []).includes(tid) && mine.has(tid) &&
               draft.fortify === null) {
      draft.fortify = { from: selected, to: tid };
      selected = null;
    } else if (mine.has(tid)) {
      selected = tid === selected ? null : tid;
    }
    draw();
  }
  function startPlan() {
    draft = { place: null, attacks: [], fortify: null, end: true, repeat: kept ? kept.plan.repeat : false };
    pending = null; selected = null; mode = null; target = null;
    draw();
  }
  function tap(tid) {
    if (replay || !board) return;
    if (draft) { planTap(tid); return; }
    taken = new Set();   // what changed is seen: the marks go
    const L = legal();
    if (L.occupy) return;   // the armies move in first (the battle's buttons)
    if (L.claim && L.claim.includes(tid)) { send({ move: "claim", territory: tid }); return; }
    if (L.capital && L.capital.includes(tid)) { selected = tid; mode = "capital"; target = null; draw(); return; }
    const placing = (L.place && L.place.territories.includes(tid)) || (L.neutral && L.neutral.territories.includes(tid));
    if (placing) { selected = tid === selected ? null : tid; mode = selected ? "place" : null; draw(); return; }
    if (selected && mode === "attack" && tid !== selected && L.attack && L.attack[selected] &&
        L.attack[selected].some((t) => t.to === tid)) {   // a lit target: the attack itself, one tap
      fight = null;
      send(blitzing ? { move: "blitz", from: selected, to: tid, stop_at: 1 } : { move: "attack", from: selected, to: tid });
      blitzing = false;
      return;
    }
    if (selected && tid !== selected && L.fortify && L.fortify[selected] && L.fortify[selected].to.includes(tid)) {
      mode = "fortify"; target = tid; draw(); return;
    }
    blitzing = false;
    if (tid === selected) { selected = null; mode = null; target = null; draw(); return; }
    if (L.attack && L.attack[tid]) { selected = tid; mode = "attack"; target = null; draw(); return; }
    if (L.fortify && L.fortify[tid]) { selected = tid; mode = "fortify"; target = null; draw(); }
  }
  function button(text, action, cls) {
    const b = el("button", { type: "button", "class": cls || "" }, text);
    b.addEventListener("click", action);
    return b;
  }
  function counter(low, high, start, words) {
    const wrap = el("label", { "class": "count" }, words + " ");
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
  // A count in one tap (a button per usual choice), or any other with the slider and its button.
  function countChoice(low, high, words, go, first) {
    const quick = counts(low, high).map((n, i) => button(fill(first && i === 0 ? first : S.move_n, { n: n }),
      () => go(n), i === 0 ? "go" : ""));
    if (high - low < 3) return quick;
    const c = counter(low, high, high, words);
    const exact = button(fill(S.move_n, { n: c.value() }), () => go(c.value()));
    c.changed((n) => { exact.textContent = fill(S.move_n, { n: n }); });
    return [...quick, c.node, exact];
  }
  function drawPlan() {   // Plan my turn: the same taps as playing, recorded; sent whole at its end
    const word = (t) => (t === "front" ? S.plan_front : names[t] || t);
    const summary = el("ol", { id: "plan-draft" });
    if (draft.place !== null) summary.append(el("li", {}, `${S.place}: ${word(draft.place)}`));
    for (const a of draft.attacks) {
      summary.append(el("li", {}, `${S.attack}: ${word(a.from)} → ${word(a.to)} · ${S["plan_" + a.stop]}`));
    }
    if (draft.fortify) summary.append(el("li", {}, `${S.fortify}: ${word(draft.fortify.from)} → ${word(draft.fortify.to)}`));
    if (summary.children.length) controls.append(summary);
    if (draft.place === null) {
      prompt.textContent = S.plan_place;
      if (selected) {
        const all = button(S.plan_all_here, () => { draft.place = selected; draw(); }, "go");
        all.id = "plan-all-here";
        controls.append(all);
      }
      controls.append(button(S.plan_front, () => { draft.place = "front"; selected = null; draw(); }));
    } else if (pending) {
      prompt.textContent = fill(S.plan_stop, { target: word(pending.to), source: word(pending.from) });
      for (const stop of ["s2", "s3", "s5", "o60", "o80"]) {
        const b = button(S["plan_" + stop], () => { pending.stop = stop; draft.attacks.push(pending); pending = null;
          draw(); }, stop === "s3" ? "attack" : "");
        b.dataset.stop = stop;
        controls.append(b);
      }
      for (const move of ["a", "k2", "m"]) {
        const b = button(S["plan_" + move], () => { pending.move = move; draw(); }, pending.move === move ? "go" : "");
        b.setAttribute("aria-pressed", pending.move === move ? "true" : "false");
        controls.append(b);
      }
    } else {
      prompt.textContent = selected ? names[selected] : S.plan_pick;
      const repeat = button(`🔁 ${S.plan_repeat}`, () => { draft.repeat = !draft.repeat; draw(); },
        draft.repeat ? "go" : "");
      repeat.setAttribute("aria-pressed", draft.repeat ? "true" : "false");
      const finish = (end) => askPlan("plan", { place: draft.place, attacks: draft.attacks.map((a) => ({ from: a.from,
        to: a.to, stop: a.stop, move: a.move })), fortify: draft.fortify, end: end, repeat: draft.repeat });
      const end = button(S.plan_end, () => finish(true), "end");
      end.id = "plan-end";
      controls.append(end, button(S.plan_leave, () => finish(false)), repeat);
    }
    controls.append(button(S.cancel, () => { draft = null; pending = null; selected = null; draw(); }));
  }
  function drawKept() {   // the viewer's own plan, with what can be done to it
    const box = el("div", { id: "plan-kept" });
    box.append(el("p", {}, S.plan_kept));
    const lines = el("ul", {});
    for (const line of kept.lines) {   // an attack's move-in ("  then move in ...") goes on with its attack
      if (/^\s/.test(line) && lines.lastChild) lines.lastChild.textContent += ", " + line.trim();
      else lines.append(el("li", {}, line.replace(/^[•\s]+/, "")));
    }
    box.append(lines);
    controls.append(box, button(S.plan_change, startPlan),
      button(S.plan_cancel, () => askPlan("plan_cancel", {}), "end"));
  }
  function drawControls() {
    controls.replaceChildren();
    const L = legal();
    if (board.over) { prompt.textContent = board.phase_text; return; }
    if (board.you === null) { prompt.textContent = S.spectator; return; }
    if (draft) { drawPlan(); return; }
    if (board.current !== board.you || Object.keys(L).length === 0) {
      const current = playerOf(board.current);
      prompt.textContent = fill(S.waiting, { player: current ? current.name : "" });
      if (kept) drawKept();
      else {
        const b = button(S.plan, startPlan, "go");
        b.id = "plan-start";
        controls.append(b);
      }
      return;
    }
    if (L.occupy) {
      prompt.textContent = fill(S.move_in, { territory: names[L.occupy.to] || "" });
      if (battleBox.hidden) controls.append(...moveIn(L.occupy));
      return;
    }
    if (L.trade && L.trade.length) {   // the best set first: one tap
      const set = L.trade[0];
      const words = set.cards.map((c) => (board.hand.find((h) => h.card === c) || { name: c }).name).join(", ");
      const b = button(`${S.trade}: ${words}`, () => send({ move: "trade", cards: set.cards,
        bonus: set.bonus.length ? set.bonus[0] : null }), "go");
      b.id = "trade";
      controls.append(b);
    }
    if (selected && mode === "place") {
      const neutral = !(L.place && L.place.territories.includes(selected));
      const most = neutral ? L.neutral.most : L.place.most;
      const move = neutral ? "neutral" : "place";
      prompt.textContent = names[selected];
      const all = button(fill(S.all_here, { n: most }), () => send({ move: move, territory: selected, count: most }),
        "go");
      all.id = "all-here";
      controls.append(all);
      if (most > 1) {
        const c = counter(1, most, most, S.how_many);
        const some = button(fill(S.place_n, { n: most }), () => send({ move: move, territory: selected,
          count: c.value() }));
        c.changed((n) => { some.textContent = fill(S.place_n, { n: n }); });
        controls.append(c.node, some);
      }
    } else if (selected && mode === "capital") {
      prompt.textContent = names[selected];
      controls.append(button(S.capital, () => send({ move: "capital", territory: selected }), "go"));
    } else if (selected && target && mode === "fortify") {
      prompt.textContent = `${names[selected]} → ${names[target]}`;
      const from = selected, to = target;
      controls.append(...countChoice(1, L.fortify[from].most, S.how_many,
        (n) => send({ move: "fortify", from: from, to: to, count: n })));
      if (L.attack && L.attack[to]) {
        controls.append(button(S.attack_from, () => { selected = to; mode = "attack"; target = null; draw(); }));
      }
      controls.append(button(S.cancel, () => { target = null; mode = L.attack && L.attack[from] ? "attack" : "fortify";
        draw(); }));
    } else if (selected && mode === "attack") {
      prompt.textContent = fill(S.pick_target, { territory: names[selected] });
      const arm = button(S.blitz, () => { blitzing = !blitzing; draw(); }, blitzing ? "attack" : "");
      arm.id = "blitz-next";
      arm.setAttribute("aria-pressed", blitzing ? "true" : "false");
      controls.append(arm);
      if (L.fortify && L.fortify[selected]) {
        controls.append(button(S.fortify_from, () => { mode = "fortify"; draw(); }));
      }
    } else if (selected && mode === "fortify") {
      prompt.textContent = fill(S.pick_fortify, { territory: names[selected] });
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
    if (selected && mode !== "place") {
      controls.append(button(S.cancel, () => { selected = null; mode = null; target = null; draw(); }));
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
    const L = legal();
    for (const set of (L.trade || []).slice(1)) {   // the other sets, and where a set's +2 may go
      const words = set.cards.map((c) => (board.hand.find((h) => h.card === c) || { name: c }).name).join(", ");
      hand.append(button(`${S.trade}: ${words}`, () => send({ move: "trade", cards: set.cards,
        bonus: set.bonus.length ? set.bonus[0] : null })));
    }
    if (L.trade && L.trade.length && L.trade[0].bonus.length > 1) {
      const set = L.trade[0];
      for (const bonus of set.bonus.slice(1)) {
        hand.append(button(`${S.trade} · +2 ${names[bonus]}`, () => send({ move: "trade", cards: set.cards,
          bonus: bonus })));
      }
    }
  }
  // The game in words: each player in turn order (territories, armies, cards, next income), the continents.
  function drawGlance(B) {
    const glance = document.getElementById("glance");
    glance.replaceChildren();
    const table = el("table", { "class": "players" });
    const head = el("tr", {});
    for (const h of ["", S.players, S.territories, S.armies_word, S.cards, S.income]) head.append(el("th", { scope: "col" }, h));
    table.append(el("thead", {}), el("tbody", {}));
    table.firstChild.append(head);
    const order = B.order && B.order.length ? B.order : B.players.map((p) => p.seat);
    for (const seat of order) {
      const p = playerOf(seat);
      if (!p) continue;
      const row = el("tr", { "class": (p.seat === B.current ? "now" : "") + (p.out ? " out" : "") });
      const dot = el("span", { "class": "dot shape-" + p.shape, "aria-hidden": "true" });
      dot.style.background = p.colour;
      const mark = el("td", {}, p.seat === B.current ? "▶" : "");
      const who = el("th", { scope: "row" });
      who.append(dot, document.createTextNode(" " + p.name + (p.seat === B.you ? " " + S.you_mark : "")));
      row.append(mark, who, el("td", {}, String(p.territories)), el("td", {}, String(p.armies)),
        el("td", {}, String(p.cards)), el("td", {}, p.income === null || p.income === undefined ? "?" : String(p.income)));
      table.lastChild.append(row);
    }
    const lands = el("ul", { "class": "continents" });
    for (const c of B.continents || []) {
      const holder = c.holder === null || c.holder === undefined ? S.not_held : fill(S.held_by, { player: ownerName(c.holder) });
      lands.append(el("li", {}, `${c.name} +${c.bonus} · ${holder}`));
    }
    glance.append(table, lands);
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
    const B = replay ? replay.board : board;
    const at = replay ? replay.seq : seq;
    const words = fill(S.replay_turn, { turn: B.turn || 0, n: at, total: replay ? replay.of : seq });
    scrubAt.textContent = words;
    scrub.setAttribute("aria-valuetext", words);
    if (!replay) scrub.value = String(seq);
  }
  function drawReplay() {
    controls.replaceChildren();
    prompt.textContent = fill(S.replay_turn, { turn: replay.board.turn || 0, n: replay.seq, total: replay.of }) +
      (replay.lines.length ? " · " + replay.lines.join(" ") : "");
    controls.append(button(S.live, goLive, "go"));
  }

  placeBadges();
  statusLine.textContent = S.connecting;
  connect();
}
window.RiskBoard = { start: startBoard };
(function () {
  const data = JSON.parse(document.getElementById("data").textContent);
  if (data.game !== undefined) startBoard(data, null);
})();
