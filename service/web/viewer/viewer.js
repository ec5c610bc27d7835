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
const CEGO_SUITS = ["♦", "♥", "♠", "♣"];
const CEGO_FIGURES = ["K", "Q", "C", "J"];
const CEGO_RED = ["1", "2", "3", "4"], CEGO_BLACK = ["10", "9", "8", "7"];
const ONION_SUITS = [["♣", "⚔"], ["♠", "⚚"], ["♥", "🍷"], ["♦", "🪙"]];
const ONION_RANKS = { 1: "A", 11: "J", 12: "Q", 13: "K" };
const SPANISH = { O: "oros", C: "copas", E: "espadas", B: "bastos" };

function cardLabel(game, c) {
  if (typeof c === "string") {
    const m = /^([OCEB])(\d+)$/.exec(c);
    return m ? { text: m[2], suit: m[1], title: `${m[2]} de ${SPANISH[m[1]]}` } : { text: c, title: c };
  }
  if (typeof c !== "number") return { text: JSON.stringify(c), title: "" };
  if (game === "dalmuti") return c === 13 ? { text: "J", suit: "jester", title: "jester" } : { text: String(c), title: `rank ${c}` };
  if (game === "cego") {
    if (c === 22) return { text: "Jg", suit: "trump", title: "Juglar" };
    if (c < 100) return { text: "T" + c, suit: "trump", title: "trump " + c };
    const s = Math.floor((c - 100) / 10), i = (c - 100) % 10;
    const name = i < 4 ? CEGO_FIGURES[i] : (s < 2 ? CEGO_RED : CEGO_BLACK)[i - 4];
    return { text: name + CEGO_SUITS[s], suit: s < 2 ? "red" : "black", title: `${name} of ${["diamonds", "hearts", "spades", "clubs"][s]}` };
  }
  if (game === "onion") {
    const r = c % 13 + 1, s = Math.floor((c % 52) / 13), p = Math.floor(c / 52);
    const rank = ONION_RANKS[r] || String(r);
    return { text: rank + ONION_SUITS[s][p], suit: s >= 2 ? "red" : "black", title: `${rank} (card ${c})` };
  }
  return { text: String(c), title: String(c) };
}

function cardEl(game, c) {
  const el = document.createElement("span");
  const l = cardLabel(game, c);
  el.className = "card" + (l.suit ? " s-" + l.suit : "");
  el.textContent = l.text;
  el.title = l.title;
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

function cardsEl(game, list) {
  const wrap = document.createElement("span");
  wrap.className = "cards";
  if (!list.length) wrap.appendChild(text("span", "—", "muted"));
  for (const c of list) wrap.appendChild(cardEl(game, c));
  return wrap;
}

// ------------------------------------------------------------------ rendering
function text(tag, s, cls) {
  const el = document.createElement(tag);
  el.textContent = s;
  if (cls) el.className = cls;
  return el;
}

const CARD_KEYS = new Set(["hand", "cards", "up", "lost", "blind", "legage", "shown", "shown_in_hand", "discard",
  "gave", "received", "deck_top"]);
const HIDDEN_KEYS = new Set(["game", "rules_version", "players", "options", "outcome", "hand", "hands", "seat",
  "deck", "to_act"]);

function isScalar(v) { return v === null || ["string", "number", "boolean"].includes(typeof v); }
function looksLikeCards(v) { return Array.isArray(v) && v.every((x) => typeof x === "number" || (typeof x === "string" && /^[OCEB]\d+$/.test(x))); }

// A value of the view, drawn as cards where it holds cards, else compactly.
function valueEl(game, key, v) {
  if (isScalar(v)) return text("span", v === null ? "—" : String(v), v === null ? "muted" : "");
  if (CARD_KEYS.has(key) && looksLikeCards(v)) return cardsEl(game, v);
  if (Array.isArray(v) && v.every(isScalar)) return text("span", v.length ? v.join(", ") : "—");
  if (v && typeof v === "object" && Array.isArray(v.cards) && looksLikeCards(v.cards)) {
    // a trick: its cards, with who played them when told
    const wrap = document.createElement("span");
    wrap.appendChild(cardsEl(game, v.cards));
    const rest = Object.fromEntries(Object.entries(v).filter(([k]) => k !== "cards"));
    if (Object.keys(rest).length) wrap.appendChild(text("code", " " + compact(rest)));
    return wrap;
  }
  if (Array.isArray(v) && v.length && v.every((x) => Array.isArray(x) && x.length === 2 && typeof x[0] === "number" && looksLikeCards([x[1]]))) {
    // [[seat, card], ...]: cards played in a trick
    const wrap = document.createElement("span");
    wrap.className = "cards";
    for (const [seat, c] of v) {
      const played = document.createElement("span");
      played.className = "played";
      played.appendChild(text("small", "#" + seat));
      played.appendChild(cardEl(game, c));
      wrap.appendChild(played);
    }
    return wrap;
  }
  return text("code", compact(v));
}

function compact(v) {
  const s = JSON.stringify(v);
  return s.length > 400 ? s.slice(0, 400) + " …" : s;
}

function renderSeats(view) {
  const st = view.state || {};
  const game = view.game;
  const n = view.players.length;
  const perSeat = Object.entries(st).filter(([k, v]) => Array.isArray(v) && v.length === n && !HIDDEN_KEYS.has(k)
    && k !== "order" && k !== "hand_sizes" && v.every((x) => isScalar(x) || looksLikeCards(x)));
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
    if (cards) hand.appendChild(cardsEl(game, cards));
    else if (Array.isArray(st.hand_sizes)) hand.appendChild(backs(st.hand_sizes[seat] || 0));
    box.appendChild(hand);
    if (Array.isArray(st.hand_sizes)) box.appendChild(text("div", `${st.hand_sizes[seat]} cards`, "muted small"));

    const dl = document.createElement("dl");
    for (const [k, v] of perSeat) {
      dl.appendChild(text("dt", k.replace(/_/g, " ")));
      const dd = document.createElement("dd");
      dd.appendChild(valueEl(game, k, v[seat]));
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

function renderTable(view) {
  const st = view.state || {};
  const n = view.players.length;
  const dl = document.createElement("dl");
  const add = (k, el) => { dl.appendChild(text("dt", k.replace(/_/g, " "))); const dd = document.createElement("dd"); dd.appendChild(el); dl.appendChild(dd); };
  add("version", text("span", String(view.version)));
  add("to act", text("span", view.to_act.length ? view.to_act.map((s) => view.players[s]).join(", ") : "—"));
  if (view.frozen) add("frozen", text("span", "yes", "badge warn"));
  for (const [k, v] of Object.entries(st)) {
    if (HIDDEN_KEYS.has(k)) continue;
    if (Array.isArray(v) && v.length === n && k !== "order" && v.every((x) => isScalar(x) || looksLikeCards(x))) continue; // per seat
    if (v === null || (Array.isArray(v) && !v.length) || (v && typeof v === "object" && !Array.isArray(v) && !Object.keys(v).length)) continue;
    if (k === "order" && Array.isArray(v)) { add(k, text("span", v.map((s) => view.players[s] ?? s).join(" → "))); continue; }
    add(k, valueEl(view.game, k, v));
  }
  $("table-state").replaceChildren(dl);
}

function renderResult(view) {
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
  const rest = Object.fromEntries(Object.entries(r).filter(([k]) => !["scores", "ranking", "ranks", "winners"].includes(k)));
  root.replaceChildren(table);
  if (Object.keys(rest).length) root.appendChild(text("code", compact(rest)));
}

async function renderEvents(version) {
  const after = Math.max(0, version - 6);
  try {
    const body = await api(`/games/${encodeURIComponent(GAME_ID)}/events?after=${after}&limit=${version - after}`);
    const ol = $("events");
    ol.replaceChildren();
    ol.start = after + 1;
    for (const e of body.events) {
      // the event in words (its label, in the browser's language); its type and actor beside it
      const li = document.createElement("li");
      li.appendChild(text("span", e.label || e.type, "label"));
      li.appendChild(text("span", ` · ${e.type} · ${e.actor}`, "muted"));
      if (!e.label) li.appendChild(text("code", compact(e.data)));
      ol.appendChild(li);
    }
  } catch (err) { /* the table is drawn; the event list is a courtesy */ }
}

function draw(view) {
  document.body.dataset.game = view.game;
  document.body.dataset.version = view.version;
  $("game-type").textContent = view.game;
  $("viewer-kind").textContent = `viewing as ${view.viewer.kind}` + (view.viewer.seat != null ? ` (seat ${view.viewer.seat})` : "");
  renderSeats(view);
  renderTable(view);
  renderResult(view);
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
    if (ticket !== state.request) return; // a later request wins
    hideError();
    draw(view);
    renderEvents(version);
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
