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
  refused: null,    // {as, why}: the viewpoint last asked for and refused
  extras: null,     // timer of the chart and the deal check
};

// ------------------------------------------------------------------ API
function token() { return sessionStorage.getItem(TOKEN_KEY) || ""; }
function viewpoint() { return sessionStorage.getItem(AS_KEY) || ""; }

const ASKED_LANG = new URLSearchParams(location.search).get("lang");  // ?lang=es: labels in Spanish

function headers() {
  const t = token();
  const h = t ? { Authorization: "Bearer " + t } : {};
  if (ASKED_LANG) h["Accept-Language"] = ASKED_LANG; // else the browser's own languages
  return h;
}

async function api(path, tries = 4) {
  let r = await fetch(path, { headers: headers() });
  // over the rate limit (a long game's score log reads pages of events, each counted by its size): wait as told
  while (r.status === 429 && --tries > 0) {
    const wait = Math.min(10, Math.max(1, Number(r.headers.get("Retry-After")) || 1));
    await new Promise((done) => setTimeout(done, wait * 1000));
    r = await fetch(path, { headers: headers() });
  }
  const body = await r.json().catch(() => null);
  if (!r.ok) {
    const detail = body && (body.detail || body.title) || r.statusText;
    const err = new Error(`${r.status}: ${detail}`);
    err.status = r.status;
    err.detail = detail;
    throw err;
  }
  return body;
}

function replayPath(version, as = viewpoint()) {
  return `/games/${encodeURIComponent(GAME_ID)}/replay?version=${version}` + (as ? `&as=${as}` : "");
}

// ------------------------------------------------------------------ cards
// Every card comes from the game's own description (GET /game-types/{game}): its deck lists each
// card's code (what the API writes), id (what older games' events wrote), suit, rank, names and colour.
// A value is looked up by code first, then by id.
const LANG = (new URLSearchParams(location.search).get("lang") || (document.documentElement && document.documentElement.lang) || "en").slice(0, 2);
const decks = new Map(); // game -> Promise of a Deck

class Deck {
  constructor(cards) {
    this.byCode = new Map(cards.map((c) => [String(c.code), c]));
    this.byId = new Map(cards.map((c) => [String(c.id), c]));
  }
  get(v) {
    if (v === null || v === undefined || typeof v === "boolean" || typeof v === "object") return undefined;
    return this.byCode.get(String(v)) || this.byId.get(String(v));
  }
  has(v) { return this.get(v) !== undefined; }
  isCode(v) { return typeof v === "string" && this.byCode.has(v); }
}

function deckFor(game) {
  if (!decks.has(game)) {
    const p = fetch(`/game-types/${encodeURIComponent(game)}`)
      .then((r) => (r.ok ? r.json() : { deck: [] }))
      .then((t) => new Deck(t.deck || []))
      .catch(() => new Deck([]));
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
  const card = ctx.deck.get(id);
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
// keys that name a list of cards, whose single value is a number, not a card (Dalmuti's "hand": 2)
const NOT_A_CARD = new Set(["hand", "hands", "cards"]);
const HIDDEN_KEYS = new Set(["game", "rules_version", "players", "options", "outcome", "hand", "hands", "seat",
  "deck", "to_act"]);

// Per game: the keys whose values are cards (a card, a list of cards, or [seat, card] pairs), and the face
// of the cards without a suit.
const GAME_TABLES = {
  dalmuti: {
    cards: ["hand", "hands", "cards", "gave", "received", "chosen", "seating_draw", "card"],
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
function isCard(ctx, v) { return (typeof v === "number" || typeof v === "string") && ctx.deck.has(v); }
// a card where the key says cards, or a card code anywhere (e.g. "O4", "7S"; not a bare number)
function cardHere(ctx, key, v) {
  if (!isCard(ctx, v)) return false;
  if (ctx.cardKeys.has(key)) return true;
  return typeof v === "string" && !/^\d+$/.test(v) && ctx.deck.isCode(v);
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
    if (!NOT_A_CARD.has(key) && cardHere(ctx, key, v)) return cardEl(ctx, v);
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
  // nothing said for what is empty ("pending: revolution — taxes —" reads as noise)
  const entries = Object.entries(o).filter(([, x]) => x !== undefined && !deepEmpty(x));
  if (!entries.length) return text("span", "—", "muted");
  const wrap = span("obj");
  for (const [k, x] of entries) {
    // keys that are seat numbers ("1": ...) name the player
    const label = /^\d+$/.test(k) && isSeat(ctx, Number(k)) ? seatName(ctx, Number(k)) : humanise(k);
    wrap.appendChild(span("kv", text("span", label, "k"), valueEl(ctx, k, x)));
  }
  return wrap;
}

function deepEmpty(v) {
  if (v === null || v === undefined) return true;
  if (Array.isArray(v)) return v.every(deepEmpty);
  if (typeof v === "object") return Object.values(v).every(deepEmpty);
  return false;
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
  if (view.provenance) add("provenance", provenanceEl(view.provenance));
  const focus = new Set(FOCUS_KEYS[view.game] || []);
  for (let [k, v] of Object.entries(st)) {
    if (HIDDEN_KEYS.has(k) || perSeat.has(k) || focus.has(k) || k === "hand_sizes" || deepEmpty(v)) continue;
    if (view.game === "onion" && k === "last_round" && v.showdown) v = { ...v, showdown: undefined }; // drawn above
    if (view.game === "onion" && k === "modifiers" && v.showdown) v = { ...v, showdown: { ...v.showdown, arrangements: undefined } };
    if (view.game === "dalmuti" && k === "must" && v && Array.isArray(v.allowed_slots) && Array.isArray(st.order)) {
      add(k, span("", valueEl(ctx, k, { ...v, allowed_slots: undefined }), newcomerSlotsEl(ctx, st.order, v.allowed_slots)));
      continue;
    }
    add(k, valueEl(ctx, k, v));
  }
  $("table-state").replaceChildren(dl);
}

// Where the log comes from: made here, or imported (a chain proves a log unchanged, not who wrote it)
function provenanceEl(p) {
  const el = document.createElement("span");
  el.id = "provenance";
  el.dataset.kind = p.kind;
  if (p.kind !== "imported") { el.textContent = "made by this service"; return el; }
  el.appendChild(text("span", "imported", "badge warn"));
  const head = String(p.source_head_hash || "").slice(0, 12);
  el.appendChild(text("span", ` ${p.imported_at || ""} by ${p.imported_by || "?"}: the log as brought ends at version `
    + `${p.imported_version} (head ${head}…), exported ${p.exported_at || "?"}, `
    + (p.sealed ? "sealed by this service's key" : "not sealed by this service's key")
    + (p.review_events ? `, with ${p.review_events} review event${p.review_events === 1 ? "" : "s"} made elsewhere` : "")
    + "; later events are this service's"));
  return el;
}

// Dalmuti: slot k seats a newcomer at position 2 + k of the order, between the players now at 1 + k and 2 + k
function newcomerSlotsEl(ctx, order, slots) {
  const wrap = span("kv slots", text("span", "may seat the newcomer", "k"));
  for (const k of slots) {
    const above = order[1 + k], below = order[2 + k];
    const words = isSeat(ctx, above) && isSeat(ctx, below)
      ? `between ${seatName(ctx, above)} and ${seatName(ctx, below)}` : `at place ${3 + k}`;
    const el = text("span", `slot ${k}: ${words}`, "slot");
    el.dataset.slot = k;
    wrap.appendChild(el);
  }
  return wrap;
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
      li.dataset.version = e.version;
      li.appendChild(text("span", ` · ${e.type} · ${e.actor}`, "muted"));
      if (!e.label && e.data && typeof e.data === "object") li.appendChild(span("event-data", " ", valueEl(ctx, "event", e.data)));
      const timeoutMove = timeoutMoveEl(e, ctx);
      if (timeoutMove) li.appendChild(timeoutMove);
      ol.appendChild(li);
    }
  } catch (err) { /* the table is drawn; the event list is a courtesy */ }
}

// The move the table made for a seat out of time: kept in the TurnTimedOut's private part, which the API
// gives only to that seat and to callers who see everything (the label, made from the public part, says
// only that the table moved)
function timeoutMoveEl(e, ctx) {
  if (e.type !== "TurnTimedOut" || !e.private || typeof e.private !== "object") return null;
  const parts = Object.entries(e.private).filter(([, p]) => p && p.move && typeof p.move === "object");
  if (!parts.length) return null;
  const wrap = span("timeout-move");
  for (const [seat, p] of parts) {
    const { type, ...fields } = p.move;
    const line = span("", text("span", `the table's move for ${seatName(ctx, Number(seat))}: `, "muted"),
      text("strong", humanise(type || "move")));
    if (Object.keys(fields).length) line.append(" ", valueEl(ctx, "move", fields));
    line.append(text("span", " (private: shown to that seat and to reviewers)", "muted small"));
    wrap.appendChild(line);
  }
  return wrap;
}

// ------------------------------------------------------------------ the middle of the table
// What a game puts on the table, drawn for people: Dalmuti's trick, the Onion Showdown's groupings,
// Muerte's identity cards per team. The keys drawn here are left out of the table's list.
const FOCUS_KEYS = { dalmuti: ["trick"], muerte: ["identity", "teams"], onion: [], cego: ["trick", "last_trick"] };

function panel(title, cls) {
  const box = document.createElement("div");
  box.className = "panel " + (cls || "");
  box.appendChild(text("h3", title));
  return box;
}

function dalmutiTrick(st, ctx) {
  const t = st.trick;
  if (!t || !Array.isArray(t.cards)) return null;
  const box = panel("Trick", "trick");
  const line = span("trick-line");
  if (isSeat(ctx, t.seat)) line.appendChild(text("span", `${seatName(ctx, t.seat)} played`, "who"));
  line.appendChild(cardsEl(ctx, t.cards));
  // the rank to beat, in words: a number and its name, never a card face
  const named = ctx.deck.byId.get(String(t.rank));
  const words = `rank ${t.rank}` + (named ? ` (${cardName(named)})` : "") + ` · ${t.count ?? t.cards.length} card${(t.count ?? t.cards.length) === 1 ? "" : "s"}`;
  const rank = text("span", words, "trick-rank");
  rank.dataset.rank = String(t.rank);
  line.appendChild(rank);
  box.appendChild(line);
  box.appendChild(text("p", "to beat it: as many cards of a better (lower) rank", "muted small"));
  return box;
}

function groupingName(kind) {
  return humanise(String(kind).replace(/_card_/g, "-card_"));
}

function onionShowdown(st, ctx) {
  const live = st.modifiers && st.modifiers.showdown && st.modifiers.showdown.arrangements;
  const last = st.last_round && st.last_round.showdown;
  const hands = live && Object.keys(live).length ? live : last;
  if (!hands || typeof hands !== "object" || !Object.keys(hands).length) return null;
  const winner = live && Object.keys(live).length ? st.modifiers.showdown.holder : st.last_round.winner;
  const round = live ? st.round_no : st.last_round.round;
  const box = panel(`Showdown${round ? ` · round ${round}` : ""}`, "showdown");
  for (const [seat, arr] of Object.entries(hands)) {
    const s = Number(seat);
    const row = document.createElement("div");
    row.className = "sd-hand";
    row.dataset.seat = seat;
    const who = text("div", seatName(ctx, s), "sd-who");
    if (s === winner) { who.appendChild(text("span", live ? "holds the table" : "takes the Pot", "badge win")); row.classList.add("winner"); }
    row.appendChild(who);
    const groups = span("groupings");
    for (const g of (arr && arr.groupings) || []) {
      const el = document.createElement("div");
      el.className = "grouping";
      el.dataset.kind = g.kind;
      el.appendChild(text("div", groupingName(g.kind), "g-name"));
      el.appendChild(cardsEl(ctx, g.cards || []));
      groups.appendChild(el);
    }
    if (arr && Array.isArray(arr.unused) && arr.unused.length) {
      const el = document.createElement("div");
      el.className = "grouping unused";
      el.appendChild(text("div", "not grouped", "g-name"));
      el.appendChild(cardsEl(ctx, arr.unused));
      groups.appendChild(el);
    }
    if (!groups.childNodes.length) groups.appendChild(text("span", "no grouping", "muted"));
    row.appendChild(groups);
    box.appendChild(row);
  }
  return box;
}

function muerteTeams(st, ctx) {
  if (!Array.isArray(st.identity) || !st.identity.length) return null;
  const teams = new Map();
  st.identity.forEach((card, seat) => {
    const c = ctx.deck.get(card);
    const team = (Array.isArray(st.teams) && st.teams[seat]) || (c && c.suit) || "?";
    if (!teams.has(team)) teams.set(team, []);
    teams.get(team).push([seat, card]);
  });
  const box = panel("Identity cards by team", "teams");
  for (const [team, members] of teams) {
    const row = document.createElement("div");
    row.className = "team";
    row.dataset.team = team;
    const svg = suitSvg(team);
    const head = span("team-name");
    if (svg) head.appendChild(svg);
    head.appendChild(text("span", team));
    row.appendChild(head);
    row.appendChild(playedEl(ctx, members));
    box.appendChild(row);
  }
  return box;
}

// Cego: the trick on the table, and the last one taken beside it
function cegoTricks(st, ctx) {
  const played = (pairs) => Array.isArray(pairs) && pairs.every((x) => isPair(ctx, x));
  const now = played(st.trick) && st.trick.length ? st.trick : null;
  const last = st.last_trick && played(st.last_trick.cards) ? st.last_trick : null;
  if (!now && !last) return null;
  const box = panel(`Trick${Number.isInteger(st.trick_no) ? ` ${st.trick_no + 1}` : ""}`, "trick");
  const row = span("trick-line");
  if (now) row.appendChild(playedEl(ctx, now));
  else row.appendChild(text("span", "no card played yet", "muted"));
  if (last) {
    const past = span("last-trick", text("span", "last trick", "muted small"), playedEl(ctx, last.cards));
    if (isSeat(ctx, last.winner)) past.appendChild(text("span", `taken by ${seatName(ctx, last.winner)}`, "muted small"));
    row.appendChild(past);
  }
  box.appendChild(row);
  return box;
}

const FOCUS = { dalmuti: [dalmutiTrick], onion: [onionShowdown], muerte: [muerteTeams], cego: [cegoTricks] };

function renderFocus(view, ctx) {
  const root = $("focus");
  const st = view.state || {};
  const panels = (FOCUS[view.game] || []).map((f) => f(st, ctx)).filter(Boolean);
  root.replaceChildren(...panels);
  root.hidden = !panels.length;
}

// ------------------------------------------------------------------ scores over the hands
// One point per hand played up to the version shown, one line per seat: the scores after each hand,
// read from the event that closes it (or the view at that version when the event carries no totals).
const HAND_ENDS = {
  dalmuti: { type: "HandEnded", key: "scores", unit: "hand" },
  cego: { type: "RoundScored", key: "balances", unit: "round" },
  onion: { type: "RoundEnded", key: "bankrolls", unit: "round" },
  muerte: { type: "GameEnded", key: "scores", unit: "game" },
};
const SERIES = ["#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed", "#db2777", "#0891b2", "#4b5563"];
const scoreLog = { key: "", after: 0, ends: [] }; // hand ends seen in the events: {version, scores|null}

async function handEnds(game, upTo) {
  const spec = HAND_ENDS[game];
  if (!spec) return [];
  const key = token() + "|" + viewpoint();
  if (scoreLog.key !== key) Object.assign(scoreLog, { key, after: 0, ends: [] });
  while (scoreLog.after < upTo) {
    const body = await api(`/games/${encodeURIComponent(GAME_ID)}/events?after=${scoreLog.after}&limit=5000`);
    if (!body.events.length) break;
    for (const e of body.events) {
      if (e.type === spec.type) scoreLog.ends.push({ version: e.version, scores: Array.isArray(e.data && e.data[spec.key]) ? e.data[spec.key] : null });
    }
    scoreLog.after = body.events[body.events.length - 1].version;
  }
  const ends = scoreLog.ends.filter((h) => h.version <= upTo);
  for (const h of ends) {
    if (h.scores) continue;
    let v = state.views.get(h.version);
    if (!v) { v = await api(replayPath(h.version)); state.views.set(h.version, v); }
    h.scores = (v.state || {})[spec.key] || null;
  }
  return ends.filter((h) => Array.isArray(h.scores));
}

function svgEl(tag, attrs, parent) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  if (parent) parent.appendChild(el);
  return el;
}

function drawChart(ends, ctx, unit) {
  const root = $("chart");
  if (!ends.length) { root.replaceChildren(text("p", `no ${unit} finished at this version`, "muted")); return; }
  const W = 360, H = 170, L = 38, R = 10, T = 10, B = 26;
  const all = ends.flatMap((h) => h.scores);
  let lo = Math.min(0, ...all), hi = Math.max(...all);
  if (hi === lo) hi = lo + 1;
  const n = ctx.players.length;
  // equal scores would hide each other: each seat's points sit a little apart
  const x = (i, seat = (n - 1) / 2) => L + (ends.length === 1 ? (W - L - R) / 2 : (i * (W - L - R)) / (ends.length - 1)) + (seat - (n - 1) / 2) * 2.5;
  const y = (v) => T + ((hi - v) * (H - T - B)) / (hi - lo);
  const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, id: "score-chart", role: "img", "aria-label": `scores after each ${unit}` });
  svg.dataset.points = String(ends.length);
  for (const v of [lo, hi, ...(lo < 0 && hi > 0 ? [0] : [])]) {
    svgEl("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: v === 0 ? "axis zero" : "axis" }, svg);
    svgEl("text", { x: L - 4, y: y(v) + 4, "text-anchor": "end", class: "tick" }, svg).textContent = String(v);
  }
  const step = Math.max(1, Math.ceil(ends.length / 12));
  ends.forEach((h, i) => {
    if (i % step && i !== ends.length - 1) return;
    svgEl("text", { x: x(i), y: H - 8, "text-anchor": "middle", class: "tick" }, svg).textContent = String(i + 1);
  });
  const legend = span("legend");
  ctx.players.forEach((name, seat) => {
    const colour = SERIES[seat % SERIES.length];
    const g = svgEl("g", { class: "series", "data-seat": seat, stroke: colour, fill: colour }, svg);
    const pts = ends.map((h, i) => `${x(i, seat)},${y(Number(h.scores[seat]) || 0)}`).join(" ");
    if (ends.length > 1) svgEl("polyline", { points: pts, fill: "none", "stroke-width": 2 }, g);
    ends.forEach((h, i) => {
      const c = svgEl("circle", { cx: x(i, seat), cy: y(Number(h.scores[seat]) || 0), r: 3.2, class: "point" }, g);
      svgEl("title", {}, c).textContent = `${name}: ${h.scores[seat]} after ${unit} ${i + 1}`;
    });
    const key = span("key");
    const swatch = span("swatch");
    swatch.style.background = colour;
    key.append(swatch, text("span", `${name} ${ends[ends.length - 1].scores[seat]}`));
    legend.appendChild(key);
  });
  root.replaceChildren(svg, legend, text("div", `after each ${unit} (${ends.length} played)`, "muted small"));
}

async function renderChart(view, ctx) {
  const spec = HAND_ENDS[view.game];
  $("scores-box").hidden = !spec;
  if (!spec) return;
  $("scores-title").textContent = `Scores by ${spec.unit}`;
  try {
    const ends = await handEnds(view.game, view.version);
    if (state.version === view.version) drawChart(ends, ctx, spec.unit);
  } catch (err) { $("chart").replaceChildren(text("p", "scores unavailable: " + err.message, "muted")); }
}

// ------------------------------------------------------------------ the rulings
// A reviewer's freezes, notes and adjudications are public events: listed with their words (reason
// included), who made them and on whose authority (imported with the log, or made by this service)
const REVIEW_TYPES = new Set(["GameFrozen", "GameUnfrozen", "NoteAdded", "Adjudicated"]);
const reviewLog = { key: "", after: 0, events: [] };

async function reviewEvents() {
  const key = token() + "|" + viewpoint() + "|" + ASKED_LANG;
  if (reviewLog.key !== key) Object.assign(reviewLog, { key, after: 0, events: [] });
  while (reviewLog.after < state.head) {
    const body = await api(`/games/${encodeURIComponent(GAME_ID)}/events?after=${reviewLog.after}&limit=5000`);
    if (!body.events.length) break;
    for (const e of body.events) if (REVIEW_TYPES.has(e.type)) reviewLog.events.push(e);
    reviewLog.after = body.events[body.events.length - 1].version;
  }
  return reviewLog.events;
}

async function renderRulings(view, ctx) {
  const root = $("rulings");
  const list = await reviewEvents();
  if (state.version !== view.version) return;
  const adjudicated = view.result && view.result.adjudicated;
  root.hidden = !list.length && !adjudicated;
  if (root.hidden) { root.replaceChildren(); return; }
  const items = [text("h2", "Rulings")];
  if (adjudicated) {
    items.push(text("p", "A reviewer's ruling sets the result above: the seats' scores and the chart are as played.",
      "badge warn ruling-note"));
  }
  const prov = view.provenance || {};
  const ol = document.createElement("ol");
  for (const e of list) {
    const li = document.createElement("li");
    li.dataset.version = e.version;
    const imported = prov.kind === "imported" && e.version <= prov.imported_version;
    li.appendChild(text("span", `version ${e.version}: `, "muted"));
    li.appendChild(text("span", e.label || humanise(e.type)));
    li.appendChild(text("span", ` · by ${e.actor} · ` + (imported ? "imported with the log: a ruling made elsewhere"
      : "made here, by this service's reviewer"), "muted small"));
    if (e.version > view.version) { li.classList.add("later"); li.appendChild(text("span", " (after this version)", "muted small")); }
    if (e.type === "NoteAdded" && e.data && e.data.at_version === view.version) {
      li.classList.add("here");
      li.appendChild(text("span", " "));
      li.appendChild(text("span", "on this version", "badge"));
    }
    ol.appendChild(li);
  }
  items.push(ol);
  root.replaceChildren(...items);
}

// ------------------------------------------------------------------ the reviewer's check of the deals
// With a key that sees the whole game, the audit trail (GET /games/{id}/audit) gives every event whole
// and whether the hash chain verifies; each revealed deck is hashed here (SHA-256 of the salt, "|" and
// the deck as compact JSON with sorted keys) and compared with the commitment made before play.
const SHA_K = [0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
  0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb,
  0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f,
  0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2];

function sha256hex(str) {
  const bytes = new TextEncoder().encode(str);
  const len = bytes.length;
  const padded = new Uint8Array(((len + 9 + 63) >> 6) << 6);
  padded.set(bytes);
  padded[len] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 4, (len * 8) >>> 0);
  view.setUint32(padded.length - 8, Math.floor(len / 0x20000000));
  const h = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
  const w = new Uint32Array(64);
  const rot = (v, n) => (v >>> n) | (v << (32 - n));
  for (let off = 0; off < padded.length; off += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(off + i * 4);
    for (let i = 16; i < 64; i++) {
      const s0 = rot(w[i - 15], 7) ^ rot(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rot(w[i - 2], 17) ^ rot(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, k] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (k + (rot(e, 6) ^ rot(e, 11) ^ rot(e, 25)) + ((e & f) ^ (~e & g)) + SHA_K[i] + w[i]) >>> 0;
      const t2 = ((rot(a, 2) ^ rot(a, 13) ^ rot(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      k = g; g = f; f = e; e = (d + t1) >>> 0; d = c; c = b; b = a; a = (t1 + t2) >>> 0;
    }
    [a, b, c, d, e, f, g, k].forEach((v, i) => { h[i] = (h[i] + v) >>> 0; });
  }
  return h.map((v) => v.toString(16).padStart(8, "0")).join("");
}

// JSON as the rules write it for a commitment: compact, keys sorted, non-ASCII as is
function canonical(v) {
  if (Array.isArray(v)) return "[" + v.map(canonical).join(",") + "]";
  if (v && typeof v === "object") {
    return "{" + Object.keys(v).sort().map((k) => JSON.stringify(k) + ":" + canonical(v[k])).join(",") + "}";
  }
  return JSON.stringify(v);
}

const audit = { key: "", promise: null };

function loadAudit() {
  const key = token() + "|" + state.head;
  if (audit.key !== key) {
    audit.key = key;
    audit.promise = api(`/games/${encodeURIComponent(GAME_ID)}/audit`).catch((err) => ({ error: err }));
  }
  return audit.promise;
}

function checkDeals(trail, ctx, upTo) {
  const deals = new Map();
  const results = [];
  for (const e of trail.events || []) {
    const d = e.data || {};
    if (e.type === "DealRevealed") {
      if (e.version > upTo) continue;
      const dealt = deals.get(d.deal_version);
      // the commitment is over the deck as the log writes it (codes; a game of before the notation: its values)
      const ok = !!dealt && dealt.data.commitment === d.commitment && sha256hex((d.salt || "") + "|" + canonical(d.deck)) === d.commitment;
      results.push({ version: d.deal_version, ok });
    } else if (typeof d.commitment === "string") deals.set(e.version, e);
  }
  const sealed = [...deals.keys()].filter((v) => v <= upTo && !results.some((r) => r.version === v));
  return { results, sealed };
}

async function renderAudit(view, ctx) {
  const root = $("audit");
  const reviewer = view.viewer.kind === "integrator" || viewpoint() === "reviewer";
  root.hidden = !reviewer || !token();
  if (root.hidden) { root.replaceChildren(); return; }
  const trail = await loadAudit();
  if (state.version !== view.version) return;
  if (trail.error) { root.replaceChildren(text("span", "deal check unavailable: " + trail.error.detail, "muted small")); return; }
  const { results, sealed } = checkDeals(trail, ctx, view.version);
  const items = [];
  const chain = trail.chain && trail.chain.ok;
  const c = text("span", chain ? "hash chain verifies" : "hash chain broken", chain ? "badge win" : "badge warn");
  c.dataset.check = chain ? "ok" : "bad";
  c.id = "chain-badge";
  items.push(c);
  const bad = results.filter((r) => !r.ok);
  let b;
  if (!results.length) b = text("span", "no deal revealed yet", "badge plain");
  else if (bad.length) b = text("span", `deal of version ${bad[0].version} does not match its commitment`, "badge warn");
  else b = text("span", `deal commitment checks out (${results.length} deal${results.length === 1 ? "" : "s"})`, "badge win");
  b.id = "deal-badge";
  b.dataset.check = !results.length ? "none" : bad.length ? "bad" : "ok";
  items.push(b);
  if (sealed.length) items.push(text("span", `deal of version ${sealed.join(", ")} sealed until its hand ends`, "muted small"));
  root.replaceChildren(...items);
}

// ------------------------------------------------------------------ viewpoints
// A key may look as any seat, the reviewer or a spectator; a seat token as itself or a spectator.
// A viewpoint the server refuses is explained, the others are offered, and the caller's own view is drawn.
function fillViewpoints(view) {
  const sel = $("as");
  const want = viewpoint();
  const opts = [["", "my own view"], ["spectator", "spectator"], ["reviewer", "reviewer"], ["seat", "my seat"]];
  view.players.forEach((name, s) => opts.push([`seat:${s}`, `seat ${s}: ${name}`]));
  const key = opts.map((o) => o[0]).join("|");
  if (sel.dataset.key !== key) {
    sel.replaceChildren(...opts.map(([v, label]) => { const o = text("option", label); o.value = v; return o; }));
    sel.dataset.key = key;
  }
  sel.value = want;
}

function offers(view) {
  const kind = view.viewer.kind;
  const list = [["", "my own view"], ["spectator", "spectator"]];
  if (kind === "integrator") {
    list.push(["reviewer", "reviewer"]);
    view.players.forEach((name, s) => list.push([`seat:${s}`, `${name} (seat ${s})`]));
  }
  return list;
}

function showRefused(view) {
  const r = state.refused;
  const e = $("error");
  e.replaceChildren(text("span", `The viewpoint "${r.as}" is not open to this caller: ${r.why}. Showing your own view instead. `));
  const pick = span("offers", text("span", "View as: ", "muted"));
  for (const [as, label] of offers(view)) {
    if (as === r.as) continue;
    const b = text("button", label);
    b.type = "button";
    b.dataset.as = as;
    b.addEventListener("click", () => choose(as));
    pick.appendChild(b);
  }
  e.appendChild(pick);
  e.hidden = false;
}

function choose(as) {
  if (as) sessionStorage.setItem(AS_KEY, as); else sessionStorage.removeItem(AS_KEY);
  state.refused = null;
  state.views.clear();
  hideError();
  show(state.version);
}

function draw(view, ctx) {
  document.body.dataset.game = view.game;
  document.body.dataset.version = view.version;
  $("game-type").textContent = view.game;
  $("game-origin").hidden = !(view.provenance && view.provenance.kind === "imported");
  $("viewer-kind").textContent = view.viewer.full
    ? "viewing as reviewer: every hand shown"
    : `viewing as ${view.viewer.kind}` + (view.viewer.seat != null ? ` (seat ${view.viewer.seat})` : "");
  renderSeats(view, ctx);
  renderTable(view, ctx);
  renderResult(view, ctx);
  renderFocus(view, ctx);
  fillViewpoints(view);
  document.body.dataset.viewer = view.viewer.kind + (view.viewer.seat != null ? view.viewer.seat : "");
  document.body.dataset.rendered = String(view.version);
}

async function show(version) {
  version = Math.max(1, Math.min(state.head, version));
  state.version = version;
  state.following = version === state.head;
  $("slider").value = version;
  $("version-label").textContent = `version ${version} / ${state.head}`;
  // the address names the version shown (a link or a reload opens it), none while following the latest
  const address = new URL(location.href);
  if (state.following) address.searchParams.delete("version"); else address.searchParams.set("version", version);
  if (address.href !== location.href) history.replaceState(null, "", address);
  const ticket = ++state.request;
  try {
    let view = state.views.get(version);
    if (!view) {
      try {
        view = await api(replayPath(version));
      } catch (err) {
        const as = viewpoint();
        if (!as || ![400, 401, 403, 422].includes(err.status) || ticket !== state.request) throw err;
        // a viewpoint this caller may not take: say why, fall back to the caller's own view
        sessionStorage.removeItem(AS_KEY);
        state.refused = { as, why: err.detail };
        state.views.clear();
        view = await api(replayPath(version));
      }
      state.views.set(version, view);
    }
    const ctx = makeCtx(view, await deckFor(view.game));
    if (ticket !== state.request) return; // a later request wins
    if (state.refused) showRefused(view); else hideError();
    draw(view, ctx);
    renderEvents(version, ctx);
    // the chart and the deal check read the whole log: only once the slider rests on a version
    clearTimeout(state.extras);
    state.extras = setTimeout(() => {
      if (ticket !== state.request) return;
      renderChart(view, ctx);
      renderRulings(view, ctx).catch(() => {});
      renderAudit(view, ctx).catch(() => {});
    }, 150);
  } catch (err) {
    if (ticket === state.request) showError(err.message);
  }
}

function showError(msg) { const e = $("error"); e.replaceChildren(text("span", msg)); e.hidden = false; }
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
      if (r.status === 409) {
        // the stream was asked to resume past the last event the server shows (its log's end was lost in
        // a failover): the game is read anew, and followed from there
        const view = await api(`/games/${encodeURIComponent(GAME_ID)}`);
        last = view.version;
        for (const v of [...state.views.keys()]) if (v > last) state.views.delete(v);
        setHead(last);
        if (state.following || state.version > last) show(last);
        await new Promise((ok) => setTimeout(ok, 500));
        continue;
      }
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
    // a token or viewpoint changed: the version on screen stays (the latest one if the slider followed it)
    const again = state.version > 0;
    const asked = Number(new URLSearchParams(location.search).get("version"));
    const wanted = again ? (state.following ? view.version : state.version) : asked || view.version;
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
  state.refused = null;
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
