// The naipes replay viewer: plain JavaScript over the public API.
//   GET /games/{id}                  head version, players
//   GET /games/{id}/replay?version=N the caller's view at version N (optionally ?as=seat|spectator|reviewer)
//   GET /games/{id}/events           the events leading to a version
//   GET /games/{id}/stream           live events (Server-Sent Events), read with fetch so the token
//                                    travels as a Bearer header
"use strict";

const GAME_ID = decodeURIComponent(location.pathname.replace(/\/+$/, "").split("/").pop());
const TOKEN_KEY = "naipes.token";
const AS_KEY = "naipes.as";
const $ = (id) => document.getElementById(id);

const state = {
  head: 0,          // the game's latest version known
  version: 0,       // the version shown
  views: new Map(), // version -> view JSON (for this token and viewpoint)
  following: true,  // the slider sits at the head: live events move it
  live: null,       // AbortController of the live stream
  request: 0,       // sequence number of the latest render request
};

// ------------------------------------------------------------------ API
function token() { return sessionStorage.getItem(TOKEN_KEY) || ""; }
function viewpoint() { return sessionStorage.getItem(AS_KEY) || ""; }

function headers() {
  const t = token();
  return t ? { Authorization: "Bearer " + t } : {};
}

async function api(path) {
  const r = await fetch(path, { headers: headers() });
  const body = await r.json().catch(() => null);
  if (!r.ok) {
    const detail = body && (body.detail || body.title) || r.statusText;
    throw new Error(`${r.status}: ${detail}`);
  }
  return body;
}

function replayPath(version) {
  const as = viewpoint();
  return `/games/${encodeURIComponent(GAME_ID)}/replay?version=${version}` + (as ? `&as=${as}` : "");
}

// ------------------------------------------------------------------ cards
// Every card comes from the game's own description (GET /game-types/{game}): its deck lists each
// card's code, id (the value that stands for it in views), suit, rank, names and colour.
const LANG = (new URLSearchParams(location.search).get("lang") || (document.documentElement && document.documentElement.lang) || "en").slice(0, 2);
const decks = new Map(); // game -> Promise of Map(String(id) -> card)

function deckFor(game) {
  if (!decks.has(game)) {
    const p = fetch(`/game-types/${encodeURIComponent(game)}`)
      .then((r) => (r.ok ? r.json() : { deck: [] }))
      .then((t) => new Map((t.deck || []).map((c) => [String(c.id), c])))
      .catch(() => new Map());
    decks.set(game, p);
  }
  return decks.get(game);
}

// Suits drawn as SVG (24×24), filled with the card's colour: no font glyphs.
const SVG_NS = "http://www.w3.org/2000/svg";
const SUIT_SHAPES = {
  spades: [["path", { d: "M12 2C9 6 3 9.5 3 14a4.5 4.5 0 0 0 7.6 3.2L9.5 22h5l-1.1-4.8A4.5 4.5 0 0 0 21 14c0-4.5-6-8-9-12z" }]],
  hearts: [["path", { d: "M12 21.5 3.8 13A5 5 0 0 1 12 6.6 5 5 0 0 1 20.2 13z" }]],
  diamonds: [["path", { d: "M12 1.5 20 12l-8 10.5L4 12z" }]],
  clubs: [
    ["circle", { cx: 12, cy: 7, r: 4.3 }], ["circle", { cx: 6.8, cy: 13.6, r: 4.3 }],
    ["circle", { cx: 17.2, cy: 13.6, r: 4.3 }], ["path", { d: "M11 11h2l1.6 11h-5.2z" }],
  ],
  // Spanish suits: a coin, a cup, a sword, a club
  oros: [
    ["circle", { cx: 12, cy: 12, r: 9.5 }],
    ["circle", { cx: 12, cy: 12, r: 5.5, fill: "none", stroke: "#fff", "stroke-width": 1.6 }],
    ["circle", { cx: 12, cy: 12, r: 1.8, fill: "#fff" }],
  ],
  copas: [
    ["path", { d: "M5 3h14c0 5-2.6 8.6-6 9.4V17h-2v-4.6C7.6 11.6 5 8 5 3z" }],
    ["path", { d: "M7 21.5c0-2 2.2-3.5 5-3.5s5 1.5 5 3.5z" }],
  ],
  espadas: [
    ["path", { d: "M12 1 14 4v11h-4V4z" }], ["rect", { x: 6, y: 15, width: 12, height: 2.2, rx: 1 }],
    ["rect", { x: 11, y: 17, width: 2, height: 4 }], ["circle", { cx: 12, cy: 22, r: 1.6 }],
  ],
  bastos: [
    ["path", { d: "M9.6 22.5 7.4 6.5a4.6 4.6 0 0 1 9.2 0l-2.2 16z" }],
    ["circle", { cx: 8, cy: 11, r: 1.5 }], ["circle", { cx: 16, cy: 9, r: 1.5 }], ["circle", { cx: 8.8, cy: 16.5, r: 1.3 }],
  ],
};
// the same drawings under the other names decks give Spanish suits
Object.assign(SUIT_SHAPES, { coins: SUIT_SHAPES.oros, cups: SUIT_SHAPES.copas, swords: SUIT_SHAPES.espadas,
  staves: SUIT_SHAPES.bastos, batons: SUIT_SHAPES.bastos });

function suitSvg(suit) {
  const shapes = SUIT_SHAPES[suit];
  if (!shapes) return null;
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", "suit");
  svg.setAttribute("aria-hidden", "true");
  for (const [tag, attrs] of shapes) {
    const el = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
    if (!("fill" in attrs)) el.setAttribute("fill", "currentColor");
    svg.appendChild(el);
  }
  return svg;
}

function cardName(card) {
  const n = card.name || {};
  return n[LANG] || n.en || card.code;
}

// One card face: its rank and its suit drawn, or (trumps, the Sküs, Dalmuti's ranks and jester) its code.
function cardEl(ctx, id) {
  const card = ctx.deck.get(String(id));
  const el = document.createElement("span");
  if (!card) {
    el.className = "card plain unknown";
    el.textContent = String(id);
    el.title = String(id);
    return el;
  }
  el.dataset.code = card.code;
  el.title = cardName(card);
  const colour = String(card.colour || "black").replace(/[^a-z]/gi, "");
  const svg = card.suit ? suitSvg(card.suit) : null;
  if (svg) {
    el.className = `card suited c-${colour}`;
    el.appendChild(text("span", card.rank, "rank"));
    el.appendChild(svg);
  } else {
    const kind = (GAME_TABLES[ctx.game] || {}).face?.(card) || "plain";
    el.className = `card plain ${kind} c-${colour}`;
    el.appendChild(text("span", card.code, "rank"));
  }
  return el;
}

function backs(n) {
  const wrap = document.createElement("span");
  wrap.className = "backs";
  for (let i = 0; i < Math.min(n, 20); i++) {
    const b = document.createElement("span");
    b.className = "card back";
    wrap.appendChild(b);
  }
  if (n > 20) wrap.appendChild(text("span", ` +${n - 20}`));
  return wrap;
}

function cardsEl(ctx, list) {
  const wrap = document.createElement("span");
  wrap.className = "cards";
  if (!list.length) wrap.appendChild(text("span", "—", "muted"));
  for (const c of list) wrap.appendChild(cardEl(ctx, c));
  return wrap;
}

// ------------------------------------------------------------------ reading a view
// What the keys of the views mean. Shared by all games, then small per-game tables.
const SEAT_KEYS = new Set(["seat", "leader", "winner", "dealer", "to", "from", "by", "with", "turn", "mano", "soloist",
  "challenger", "raiser", "discoverer", "custodian", "target", "giver", "placing", "sitting_out", "gegensolo",
  "accuser", "accused", "loser", "holder", "crippler", "player", "elder", "younger", "bidder", "buyer", "seller", "exchange", "denouncer"]);
const SEAT_LIST_KEYS = new Set(["order", "active", "eliminated", "in_round", "out_order", "winners", "ranking",
  "traitors", "denouncers", "speakers", "newcomers", "to_act", "last_order", "revolution", "taxes", "taxes_chosen",
  "teammates", "merchants", "pending", "folded", "seats", "losers"]);
const ORDER_KEYS = new Set(["order", "out_order", "ranking", "last_order"]); // seat lists read as a sequence
const PER_SEAT_KEYS = new Set(["scores", "hand_points", "balances", "tricks_won", "game_points", "bankrolls", "in_front",
  "roles", "teams", "identity", "hand_sizes", "lost", "up", "points", "payments", "bonus", "hands", "ranks", "bets", "disclosed"]);
const HIDDEN_KEYS = new Set(["game", "rules_version", "players", "options", "outcome", "hand", "hands", "seat",
  "deck", "to_act"]);

// Per game: the keys whose values are cards (a card, a list of cards, or [seat, card] pairs), and the face
// of the cards without a suit.
const GAME_TABLES = {
  dalmuti: {
    cards: ["hand", "hands", "cards", "gave", "received", "chosen", "rank", "beat_rank", "seating_draw", "card"],
    face: (c) => (c.code === "JS" ? "jester" : "rank-face"),
  },
  cego: {
    cards: ["hand", "hands", "cards", "blind", "legage", "shown", "shown_in_hand", "shown_discard", "discard", "trick",
      "dealer_draw", "card", "discarded"],
    face: () => "trump",
  },
  muerte: {
    cards: ["hand", "hands", "cards", "lost", "identity", "offer", "gave", "received", "card", "discard"],
  },
  onion: {
    cards: ["hand", "hands", "cards", "up", "unused", "offer", "card", "zeroed_aces", "disclosed", "on_table"],
    face: () => "trump",
  },
};

function makeCtx(view, deck) {
  const t = GAME_TABLES[view.game] || {};
  return { game: view.game, players: view.players, deck, cardKeys: new Set(t.cards || []) };
}

function humanise(k) { return String(k).replace(/_/g, " "); }
function isScalar(v) { return v === null || ["string", "number", "boolean"].includes(typeof v); }
function isSeat(ctx, v) { return Number.isInteger(v) && v >= 0 && v < ctx.players.length; }
function isCard(ctx, v) { return (typeof v === "number" || typeof v === "string") && ctx.deck.has(String(v)); }
// a card where the key says cards, or a string id of the deck anywhere (e.g. Muerte's "O4")
function cardHere(ctx, key, v) {
  if (!isCard(ctx, v)) return false;
  if (ctx.cardKeys.has(key)) return true;
  const c = ctx.deck.get(String(v));
  return typeof v === "string" && typeof c.id === "string";
}
function seatName(ctx, s) { return ctx.players[s] ?? `#${s}`; }

function text(tag, s, cls) {
  const el = document.createElement(tag);
  el.textContent = s;
  if (cls) el.className = cls;
  return el;
}
function span(cls, ...children) {
  const el = document.createElement("span");
  if (cls) el.className = cls;
  for (const c of children) el.append(c);
  return el;
}

function namesEl(ctx, list, sep) {
  return text("span", list.map((s) => seatName(ctx, s)).join(sep), "names");
}

// [seat, card] pairs: each card with its player's name above it
function playedEl(ctx, pairs) {
  const wrap = span("cards");
  for (const [seat, c] of pairs) {
    const played = span("played", text("small", seatName(ctx, seat)), cardEl(ctx, c));
    wrap.appendChild(played);
  }
  return wrap;
}

// A value of the view, readably: cards drawn, seats named, objects as "key value" lines. Never JSON.
function valueEl(ctx, key, v) {
  if (v === null || v === undefined) return text("span", "—", "muted");
  if (typeof v === "boolean") return text("span", v ? "yes" : "no");
  if (isScalar(v)) {
    if (typeof v === "number" && SEAT_KEYS.has(key) && isSeat(ctx, v)) return text("span", seatName(ctx, v), "name-ref");
    if (cardHere(ctx, key, v)) return cardEl(ctx, v);
    return text("span", typeof v === "string" ? humanise(v) : String(v));
  }
  if (Array.isArray(v)) return listEl(ctx, key, v);
  return objectEl(ctx, v);
}

function isPair(ctx, x) { return Array.isArray(x) && x.length === 2 && isSeat(ctx, x[0]); }

function listEl(ctx, key, v) {
  if (!v.length) return text("span", "—", "muted");
  if (v.every((x) => cardHere(ctx, key, x))) return cardsEl(ctx, v);
  if (ctx.cardKeys.has(key) && v.every((x) => isPair(ctx, x) && isCard(ctx, x[1]))) return playedEl(ctx, v);
  if (SEAT_LIST_KEYS.has(key) && v.every((x) => isSeat(ctx, x))) return namesEl(ctx, v, ORDER_KEYS.has(key) ? " → " : ", ");
  if (PER_SEAT_KEYS.has(key) && v.length === ctx.players.length) {
    const wrap = span("per-seat");
    v.forEach((x, s) => wrap.appendChild(span("kv", text("span", seatName(ctx, s), "k"), valueEl(ctx, key, x))));
    return wrap;
  }
  if (v.every((x) => isPair(ctx, x) && isScalar(x[1]))) {
    const wrap = span("per-seat");
    for (const [s, x] of v) wrap.appendChild(span("kv", text("span", seatName(ctx, s), "k"), valueEl(ctx, key, x)));
    return wrap;
  }
  if (v.every((x) => isScalar(x))) return text("span", v.map((x) => valueEl(ctx, key, x).textContent).join(", "));
  // a list of lists or objects: one short row each
  const rows = document.createElement("div");
  rows.className = "rows";
  for (const x of v) {
    const row = document.createElement("div");
    row.className = "row";
    row.appendChild(valueEl(ctx, key, x));
    rows.appendChild(row);
  }
  return rows;
}

function objectEl(ctx, o) {
  const entries = Object.entries(o);
  if (!entries.length) return text("span", "—", "muted");
  const wrap = span("obj");
  for (const [k, x] of entries) {
    // keys that are seat numbers ("1": ...) name the player
    const label = /^\d+$/.test(k) && isSeat(ctx, Number(k)) ? seatName(ctx, Number(k)) : humanise(k);
    wrap.appendChild(span("kv", text("span", label, "k"), valueEl(ctx, k, x)));
  }
  return wrap;
}

function isEmpty(v) {
  return v === null || v === undefined || (Array.isArray(v) && !v.length)
    || (typeof v === "object" && !Array.isArray(v) && !Object.keys(v).length);
}

// top-level arrays with one value per seat, shown in the seats' boxes
function perSeatKeys(ctx, st) {
  const n = ctx.players.length;
  return Object.keys(st).filter((k) => Array.isArray(st[k]) && st[k].length === n && !HIDDEN_KEYS.has(k)
    && !SEAT_LIST_KEYS.has(k) && k !== "hand_sizes"
    && (PER_SEAT_KEYS.has(k) || (!ctx.cardKeys.has(k) && !st[k].every((x) => isPair(ctx, x))
      && st[k].every((x) => isScalar(x) || (Array.isArray(x) && x.every(isScalar))))));
}

function renderSeats(view, ctx) {
  const st = view.state || {};
  const perSeat = perSeatKeys(ctx, st);
  const root = $("seats");
  root.replaceChildren();
  view.players.forEach((name, seat) => {
    const box = document.createElement("article");
    box.className = "seat";
    box.dataset.seat = seat;
    if (view.to_act.includes(seat)) box.classList.add("to-act");
    if (view.viewer.kind === "seat" && view.viewer.seat === seat) box.classList.add("me");
    if ((view.absent || []).includes(seat)) box.classList.add("absent");
    const head = document.createElement("h3");
    head.appendChild(text("span", name, "name"));
    head.appendChild(text("span", " #" + seat, "muted"));
    if (view.to_act.includes(seat)) head.appendChild(text("span", "to act", "badge"));
    if ((view.absent || []).includes(seat)) head.appendChild(text("span", "absent", "badge warn"));
    if (view.result && (view.result.winners || []).includes(seat)) head.appendChild(text("span", "winner", "badge win"));
    box.appendChild(head);

    // the hand, as this viewer may see it
    const hand = document.createElement("div");
    hand.className = "hand";
    let cards = null;
    if (Array.isArray(st.hands) && Array.isArray(st.hands[seat])) cards = st.hands[seat];
    else if (Array.isArray(st.hand) && st.seat === seat) cards = st.hand;
    if (cards) hand.appendChild(cardsEl(ctx, cards));
    else if (Array.isArray(st.hand_sizes)) hand.appendChild(backs(st.hand_sizes[seat] || 0));
    box.appendChild(hand);
    if (Array.isArray(st.hand_sizes)) box.appendChild(text("div", `${st.hand_sizes[seat]} card${st.hand_sizes[seat] === 1 ? "" : "s"}`, "muted small"));

    const dl = document.createElement("dl");
    for (const k of perSeat) {
      if (isEmpty(st[k][seat])) continue;
      dl.appendChild(text("dt", humanise(k)));
      const dd = document.createElement("dd");
      dd.appendChild(valueEl(ctx, k, st[k][seat]));
      dl.appendChild(dd);
    }
    if (view.deadlines && view.deadlines[seat]) {
      dl.appendChild(text("dt", "deadline"));
      dl.appendChild(text("dd", view.deadlines[seat]));
    }
    box.appendChild(dl);
    root.appendChild(box);
  });
}

function renderTable(view, ctx) {
  const st = view.state || {};
  const perSeat = new Set(perSeatKeys(ctx, st));
  const dl = document.createElement("dl");
  const add = (k, el) => { dl.appendChild(text("dt", humanise(k))); const dd = document.createElement("dd"); dd.appendChild(el); dl.appendChild(dd); };
  add("version", text("span", String(view.version)));
  add("to act", text("span", view.to_act.length ? view.to_act.map((s) => seatName(ctx, s)).join(", ") : "—"));
  if (view.frozen) add("frozen", text("span", "yes", "badge warn"));
  for (const [k, v] of Object.entries(st)) {
    if (HIDDEN_KEYS.has(k) || perSeat.has(k) || k === "hand_sizes" || isEmpty(v)) continue;
    add(k, valueEl(ctx, k, v));
  }
  $("table-state").replaceChildren(dl);
}

function renderResult(view, ctx) {
  const root = $("result-body");
  const r = view.result;
  if (!r) { root.replaceChildren(text("p", view.finished ? "finished" : "not finished at this version", "muted")); return; }
  const table = document.createElement("table");
  const head = document.createElement("tr");
  ["rank", "player", "score"].forEach((h) => head.appendChild(text("th", h)));
  table.appendChild(head);
  const ranking = r.ranking || view.players.map((_, i) => i);
  const places = r.ranks || [];
  ranking.forEach((seat, i) => {
    const tr = document.createElement("tr");
    if ((r.winners || []).includes(seat)) tr.className = "winner";
    // equal scores share a place: each tied seat shows "=2"
    const place = places[seat] ?? i + 1;
    const tied = places.filter((p) => p === place).length > 1;
    if (tied) tr.classList.add("tie");
    tr.appendChild(text("td", (tied ? "=" : "") + place));
    if (tied) tr.lastChild.title = "tie: equal scores share this place";
    tr.appendChild(text("td", `${view.players[seat]} #${seat}`));
    tr.appendChild(text("td", r.scores ? String(r.scores[seat]) : "—"));
    table.appendChild(tr);
  });
  root.replaceChildren(table);
  const rest = Object.entries(r).filter(([k, v]) => !["scores", "ranking", "ranks", "winners"].includes(k) && !isEmpty(v));
  if (rest.length) {
    const dl = document.createElement("dl");
    for (const [k, v] of rest) {
      dl.appendChild(text("dt", humanise(k)));
      const dd = document.createElement("dd");
      dd.appendChild(valueEl(ctx, k, v));
      dl.appendChild(dd);
    }
    root.appendChild(dl);
  }
}

async function renderEvents(version, ctx) {
  const after = Math.max(0, version - 6);
  try {
    const body = await api(`/games/${encodeURIComponent(GAME_ID)}/events?after=${after}&limit=${version - after}`);
    const ol = $("events");
    ol.replaceChildren();
    ol.start = after + 1;
    for (const e of body.events) {
      // the event in words (its label, in the browser's language); its type and actor beside it
      const li = document.createElement("li");
      li.appendChild(text("span", e.label || humanise(e.type), "label"));
      li.appendChild(text("span", ` · ${e.type} · ${e.actor}`, "muted"));
      if (!e.label && e.data && typeof e.data === "object") li.appendChild(span("event-data", " ", valueEl(ctx, "event", e.data)));
      ol.appendChild(li);
    }
  } catch (err) { /* the table is drawn; the event list is a courtesy */ }
}

function draw(view, ctx) {
  document.body.dataset.game = view.game;
  document.body.dataset.version = view.version;
  $("game-type").textContent = view.game;
  $("viewer-kind").textContent = `viewing as ${view.viewer.kind}` + (view.viewer.seat != null ? ` (seat ${view.viewer.seat})` : "");
  renderSeats(view, ctx);
  renderTable(view, ctx);
  renderResult(view, ctx);
  document.body.dataset.viewer = view.viewer.kind + (view.viewer.seat != null ? view.viewer.seat : "");
  document.body.dataset.rendered = String(view.version);
}

async function show(version) {
  version = Math.max(1, Math.min(state.head, version));
  state.version = version;
  state.following = version === state.head;
  $("slider").value = version;
  $("version-label").textContent = `version ${version} / ${state.head}`;
  const ticket = ++state.request;
  try {
    let view = state.views.get(version);
    if (!view) {
      view = await api(replayPath(version));
      state.views.set(version, view);
    }
    const ctx = makeCtx(view, await deckFor(view.game));
    if (ticket !== state.request) return; // a later request wins
    hideError();
    draw(view, ctx);
    renderEvents(version, ctx);
  } catch (err) {
    if (ticket === state.request) showError(err.message);
  }
}

function showError(msg) { const e = $("error"); e.textContent = msg; e.hidden = false; }
function hideError() { $("error").hidden = true; }

function setHead(version) {
  state.head = version;
  $("slider").max = Math.max(1, version);
  $("version-label").textContent = `version ${state.version} / ${state.head}`;
}

// ------------------------------------------------------------------ live mode (SSE over fetch)
async function startLive() {
  stopLive();
  const ctrl = new AbortController();
  state.live = ctrl;
  let last = state.head;
  $("live-status").textContent = "connecting…";
  while (!ctrl.signal.aborted) {
    try {
      const h = { ...headers(), Accept: "text/event-stream", "Last-Event-ID": String(last) };
      const r = await fetch(`/games/${encodeURIComponent(GAME_ID)}/stream`, { headers: h, signal: ctrl.signal });
      if (!r.ok) { const b = await r.json().catch(() => ({})); throw new Error(`${r.status}: ${b.detail || r.statusText}`); }
      $("live-status").textContent = "following";
      const reader = r.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const msg = parseSse(block);
          if (msg && msg.id) {
            last = Number(msg.id);
            onLiveEvent(last, msg.event);
          }
        }
      }
      // the server ends the stream after the last event of a finished game
      const view = await api(`/games/${encodeURIComponent(GAME_ID)}`);
      if (view.finished) { $("live-status").textContent = "game over"; state.live = null; $("live").checked = false; return; }
    } catch (err) {
      if (ctrl.signal.aborted) return;
      $("live-status").textContent = "reconnecting… (" + err.message + ")";
      await new Promise((ok) => setTimeout(ok, 2000));
    }
  }
}

function parseSse(block) {
  const msg = { data: "" };
  let seen = false;
  for (const line of block.split("\n")) {
    if (!line || line.startsWith(":")) continue;
    const i = line.indexOf(":");
    const field = i < 0 ? line : line.slice(0, i);
    const value = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
    if (field === "id") { msg.id = value; seen = true; }
    else if (field === "event") msg.event = value;
    else if (field === "data") msg.data += value;
  }
  return seen ? msg : null;
}

let liveTimer = null;
function onLiveEvent(version, type) {
  const wasFollowing = state.following;
  if (version > state.head) setHead(version);
  $("live-status").textContent = `following · ${type || "event"} at version ${version}`;
  if (wasFollowing) {
    // coalesce bursts: draw the newest version once the burst is read
    clearTimeout(liveTimer);
    liveTimer = setTimeout(() => show(state.head), 60);
  }
}

function stopLive() {
  if (state.live) state.live.abort();
  state.live = null;
  $("live-status").textContent = "";
}

// ------------------------------------------------------------------ wiring
async function load() {
  $("game-id").textContent = GAME_ID;
  $("token").value = token();
  $("as").value = viewpoint();
  state.views.clear();
  try {
    const view = await api(`/games/${encodeURIComponent(GAME_ID)}`);
    setHead(view.version);
    const wanted = Number(new URLSearchParams(location.search).get("version")) || view.version;
    await show(wanted);
    if (!view.finished && new URLSearchParams(location.search).get("live") !== "0") {
      $("live").checked = true;
      startLive();
    }
  } catch (err) {
    showError(err.message);
  }
}

$("auth").addEventListener("submit", (e) => {
  e.preventDefault();
  const t = $("token").value.trim();
  if (t) sessionStorage.setItem(TOKEN_KEY, t); else sessionStorage.removeItem(TOKEN_KEY);
  const as = $("as").value;
  if (as) sessionStorage.setItem(AS_KEY, as); else sessionStorage.removeItem(AS_KEY);
  const wasLive = !!state.live;
  stopLive();
  load().then(() => { if (wasLive && !state.live) { $("live").checked = true; startLive(); } });
});
$("forget-token").addEventListener("click", () => {
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(AS_KEY);
  stopLive();
  load();
});
let sliderTimer = null;
$("slider").addEventListener("input", () => {
  const v = Number($("slider").value);
  $("version-label").textContent = `version ${v} / ${state.head}`;
  clearTimeout(sliderTimer);
  sliderTimer = setTimeout(() => show(v), 80);
});
$("first").addEventListener("click", () => show(1));
$("prev").addEventListener("click", () => show(state.version - 1));
$("next").addEventListener("click", () => show(state.version + 1));
$("last").addEventListener("click", () => show(state.head));
$("live").addEventListener("change", () => { if ($("live").checked) { startLive(); show(state.head); } else stopLive(); });
document.addEventListener("keydown", (e) => {
  if (e.target instanceof HTMLInputElement && e.target.type !== "range") return;
  if (e.key === "ArrowLeft") { e.preventDefault(); show(state.version - 1); }
  if (e.key === "ArrowRight") { e.preventDefault(); show(state.version + 1); }
});

load();
