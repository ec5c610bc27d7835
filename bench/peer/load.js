// The peer's load generator: N concurrent tables of the shedding game (game.js) on a running
// server.js. A table creates a match with the lobby API, joins its five seats one by one (each gets
// its credentials), and runs each seat as a boardgame.io Client on the SocketIO transport (its own
// socket). A seat whose turn it is picks a random legal move from its own view and makes it; the
// move's latency runs from makeMove to that seat receiving the state with the turn advanced (or the
// game over). When a match ends the table starts another. After S seconds no new move is made;
// the moves still in flight are awaited (counted, and the time with them), then ONE JSON line:
//
//   {"moves": n, "seconds": s, "moves_per_s": x, "p50_ms": .., "p99_ms": .., "tables": N, ...,
//    "latencies_ms": [every move's, sorted]}
//
//   node load.js --server http://127.0.0.1:8000 --tables 8 --seconds 8 [--check]
//
// --check: every state a seat receives is checked to hold no other seat's hand (nor the random
// plugin's state, from which the deal follows); the counts come out as "checked_states" and
// "leaks", and the exit status is 3 when a view leaked or a table stalled.

const { Client, LobbyClient } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { Game, legalPlays, NAME, SEATS } = require('./game');

function parseArgs(argv) {
  const opts = { server: process.env.PEER_SERVER || 'http://127.0.0.1:8000', tables: 8, seconds: 8, check: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--check') opts.check = true;
    else if (a === '--server') opts.server = argv[++i];
    else if (a === '--tables') opts.tables = Number(argv[++i]);
    else if (a === '--seconds') opts.seconds = Number(argv[++i]);
    else {
      console.error(`load.js: unknown argument ${a}`);
      process.exit(2);
    }
  }
  if (!Number.isInteger(opts.tables) || opts.tables < 1 || !(opts.seconds > 0)) {
    console.error('load.js: --tables must be a positive integer and --seconds a positive number');
    process.exit(2);
  }
  return opts;
}

const opts = parseArgs(process.argv.slice(2));
const lobby = new LobbyClient({ server: opts.server });
const GRACE_MS = 5000; // how long the moves in flight at the end are awaited; a table silent that long stalled

const latencies = []; // ms
const stats = { matches: 0, checked: 0, leaks: 0, firstLeak: null };
let stopping = false;

function now() {
  return Number(process.hrtime.bigint()) / 1e6;
}

function checkView(seat, state) {
  stats.checked += 1;
  const others = Object.keys(state.G.hands || {}).filter((p) => p !== seat.playerID);
  const random = state.plugins && state.plugins.random && state.plugins.random.data;
  if (others.length || random !== undefined) {
    stats.leaks += 1;
    if (!stats.firstLeak) {
      stats.firstLeak = others.length
        ? `seat ${seat.playerID} received the hands of seats ${others.join(', ')}`
        : `seat ${seat.playerID} received the random plugin's state`;
    }
  }
}

class Seat {
  constructor(table, matchID, playerID, credentials) {
    this.table = table;
    this.playerID = playerID;
    this.pending = null; // the move in flight: { turn, t0 }
    this.scheduled = false;
    this.lastChecked = -1;
    this.client = Client({
      game: Game,
      numPlayers: SEATS,
      matchID,
      playerID,
      credentials,
      debug: false,
      // each seat on a socket of its own (forceNew: socket.io-client would otherwise share one per
      // server), WebSocket from the start (no long-polling handshake first)
      multiplayer: SocketIO({
        server: opts.server,
        socketOpts: { forceNew: true, transports: ['websocket'] },
      }),
    });
  }

  start() {
    this.client.subscribe((state) => this.onState(state));
    this.client.start();
  }

  stop() {
    this.client.stop();
  }

  onState(state) {
    if (!state) return; // not synced yet
    if (opts.check && state._stateID !== this.lastChecked) {
      this.lastChecked = state._stateID;
      checkView(this, state);
    }
    if (this.pending && (state.ctx.turn > this.pending.turn || state.ctx.gameover)) {
      latencies.push(now() - this.pending.t0);
      this.pending = null;
      this.table.progress = now();
    }
    if (state.ctx.gameover) {
      this.table.gameOver();
      return;
    }
    if (!stopping && !this.pending && !this.scheduled && state.ctx.currentPlayer === this.playerID) {
      this.scheduled = true; // out of the client's notification: makeMove notifies again
      setImmediate(() => this.move());
    }
  }

  move() {
    this.scheduled = false;
    const state = this.client.getState();
    if (stopping || this.pending || !state || state.ctx.gameover || state.ctx.currentPlayer !== this.playerID) return;
    const options = legalPlays(state.G.hands[this.playerID], state.G.trick).map((p) => ['play', p]);
    if (state.G.trick) options.push(['pass', []]);
    const [type, args] = options[Math.floor(Math.random() * options.length)];
    this.pending = { turn: state.ctx.turn, t0: now() };
    this.client.moves[type](...args);
  }
}

class Table {
  constructor() {
    this.seats = [];
    this.ending = false;
    this.progress = now();
  }

  async newMatch() {
    const { matchID } = await lobby.createMatch(NAME, { numPlayers: SEATS });
    const credentials = [];
    for (let s = 0; s < SEATS; s++) {
      // one at a time: the lobby's join reads and writes the match's metadata
      const { playerCredentials } = await lobby.joinMatch(NAME, matchID, { playerID: String(s), playerName: `p${s}` });
      credentials.push(playerCredentials);
    }
    this.seats = credentials.map((c, s) => new Seat(this, matchID, String(s), c));
    this.progress = now();
    for (const seat of this.seats) seat.start();
  }

  gameOver() {
    if (this.ending) return;
    this.ending = true;
    stats.matches += 1;
    setImmediate(async () => {
      for (const seat of this.seats) seat.stop();
      this.seats = [];
      if (!stopping) await this.newMatch().catch(fail);
      this.ending = false;
    });
  }

  inFlight() {
    return this.seats.some((s) => s.pending);
  }

  stop() {
    for (const seat of this.seats) seat.stop();
  }
}

function fail(err) {
  console.error(`load.js: ${err && err.stack ? err.stack : err}`);
  process.exit(1);
}

function percentile(sorted, q) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function round(x, digits) {
  return x === null ? null : Number(x.toFixed(digits));
}

async function main() {
  const t0 = now();
  const tables = Array.from({ length: opts.tables }, () => new Table());
  await Promise.all(tables.map((t) => t.newMatch()));
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, opts.seconds * 1000 - (now() - t0))));
  stopping = true;
  const end = now();
  while (tables.some((t) => t.inFlight()) && now() - end < GRACE_MS) {
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const elapsed = (now() - t0) / 1000;
  const stalled = tables.filter((t) => t.inFlight() || (opts.seconds * 1000 > GRACE_MS && end - t.progress > GRACE_MS));
  for (const t of tables) t.stop();
  const sorted = latencies.slice().sort((a, b) => a - b);
  const result = {
    moves: latencies.length,
    seconds: round(elapsed, 3),
    moves_per_s: round(latencies.length / elapsed, 1),
    p50_ms: round(percentile(sorted, 0.5), 2),
    p99_ms: round(percentile(sorted, 0.99), 2),
    tables: opts.tables,
    matches: stats.matches,
    stalled: stalled.length,
    latencies_ms: sorted.map((x) => round(x, 3)),
  };
  if (opts.check) Object.assign(result, { checked_states: stats.checked, leaks: stats.leaks });
  let code = 0;
  if (opts.check && (stats.leaks || stalled.length)) {
    console.error(
      `load.js --check: ${stats.leaks ? `${stats.leaks} views leaked (${stats.firstLeak})` : 'no leak'}; ` +
        `${stalled.length} tables stalled`
    );
    code = 3;
  }
  // exit once the line is written: a pipe takes it in pieces of 64 KiB, and an exit before the last one
  // cut the line short (every move's latency makes it hundreds of KiB)
  process.stdout.write(JSON.stringify(result) + '\n', () => process.exit(code));
}

main().catch(fail);
