// naipes's push loop driven from Node, as the peer's load generator drives boardgame.io: N concurrent
// tables of five-seat Dalmuti on a running naipes. A table's owner creates a game (POST /games with
// the integrator's key); each seat follows its own stream (GET /games/{id}/stream?<view>) and, when a
// state offers it moves, posts one of them (POST /games/{id}/moves, If-Match the state's version): one
// request per move. Every player comes from an address of its own (127.x.y.z, from --first-address
// on), as in bench/move_throughput.py, so the per-address budgets count players. A move's latency is
// its POST's. After S seconds no move is counted; the tables play their games out (at most
// PLAY_OUT_MS) so that no stream is left open, then ONE JSON line:
//
//   {"moves": n, "seconds": s, "moves_per_s": x, "p50_ms": .., "p99_ms": .., "tables": N,
//    "refused": 429s, "conflicts": 412s, "latencies_ms": [every counted move's, sorted]}
//
//   node load.js --server http://127.0.0.1:8000 --key KEY --tables 8 --seconds 5
//                [--view 'view=turn&events=none'] [--first-address 0]
//
// No dependency beyond Node.js itself (18 or later).

'use strict';

const http = require('http');

const SEATS = 5;
const PLAY_OUT_MS = 10000;

function parseArgs(argv) {
  const opts = { server: '', key: '', tables: 8, seconds: 5, view: 'view=turn&events=none', first: 0 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--server') opts.server = argv[++i];
    else if (a === '--key') opts.key = argv[++i];
    else if (a === '--tables') opts.tables = Number(argv[++i]);
    else if (a === '--seconds') opts.seconds = Number(argv[++i]);
    else if (a === '--view') opts.view = argv[++i];
    else if (a === '--first-address') opts.first = Number(argv[++i]);
    else {
      console.error(`load.js: unknown argument ${a}`);
      process.exit(2);
    }
  }
  if (!opts.server || !opts.key || !Number.isInteger(opts.tables) || opts.tables < 1 || !(opts.seconds > 0)) {
    console.error('load.js: --server and --key are required; --tables a positive integer, --seconds a positive number');
    process.exit(2);
  }
  return opts;
}

const opts = parseArgs(process.argv.slice(2));
const base = new URL(opts.server);
const latencies = [];
const stats = { refused: 0, conflicts: 0, errors: 0, games: 0, unexpected: {} };
let t0 = 0;
let stopAt = 0;
let endAt = 0;
const open = new Set(); // the seats still following their streams (ended at endAt, the play-out's end)

function now() {
  return Number(process.hrtime.bigint()) / 1e6;
}

function address(table, seat) {
  const n = table * (SEATS + 1) + (seat === null ? 0 : seat + 1) + opts.first;
  return `127.${Math.floor(n / 62500) % 250}.${Math.floor(n / 250) % 250}.${(n % 250) + 2}`;
}

function agentFor(source) {
  return new http.Agent({ keepAlive: true, maxSockets: 1, localAddress: source });
}

function request(agent, method, path, body, headers) {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? null : Buffer.from(JSON.stringify(body));
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        method,
        path,
        agent,
        headers: { ...headers, ...(data ? { 'Content-Type': 'application/json', 'Content-Length': data.length } : {}) },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    if (data) req.write(data);
    req.end();
  });
}

// One seat: its stream, and its moves. Resolves when its game is over (or the play-out time is up).
function seat(table, gid, token, seatNo) {
  return new Promise((resolve) => {
    const source = address(table, seatNo);
    const poster = agentFor(source);
    const auth = { Authorization: `Bearer ${token}` };
    let buffer = '';
    let posting = false; // a POST in flight
    let waiting = null; // the moves a state offered while it was: made when it is answered
    let done = false;
    let req = null;
    const finish = () => {
      if (done) return;
      done = true;
      open.delete(finish);
      req.destroy();
      poster.destroy();
      resolve();
    };
    const play = (offered) => {
      if (posting) {
        waiting = offered;
        return;
      }
      posting = true;
      const move = offered.moves[Math.floor(Math.random() * offered.moves.length)];
      const started = now();
      let again = false; // refused by the address's budget: the same move again shortly
      request(poster, 'POST', `/games/${gid}/moves`, move, { ...auth, 'If-Match': `"${offered.version}"` })
        .then((answer) => {
          if (answer.status === 201) {
            const answered = now();
            if (answered <= stopAt) latencies.push(answered - started); // answered within the run
          } else if (answer.status === 412) stats.conflicts += 1; // another seat moved first: the next state says
          else if (answer.status === 429) {
            stats.refused += 1;
            again = true;
          } else {
            stats.errors += 1;
            stats.unexpected[answer.status] = (stats.unexpected[answer.status] || 0) + 1;
          }
        })
        .catch(() => {
          if (!done) stats.errors += 1; // a POST cut short by the seat's end is not one
        })
        .finally(() => {
          posting = false;
          const next = waiting;
          waiting = null;
          if (next && next.version > offered.version && !done) play(next);
          else if (again && !done) setTimeout(() => !done && !posting && play(offered), 50);
        });
    };
    req = http.get(
      { host: base.hostname, port: base.port, path: `/games/${gid}/stream?${opts.view}`, headers: auth, localAddress: source, agent: false },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          buffer += chunk;
          let cut;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const message = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            let event = null;
            let data = null;
            for (const line of message.split('\n')) {
              if (line.startsWith('event: ')) event = line.slice(7);
              else if (line.startsWith('data: ')) data = line.slice(6);
            }
            if (event !== 'state' || data === null) continue;
            const state = JSON.parse(data);
            if (state.view.finished) return finish();
            const offered = state.legal_moves;
            if (offered && offered.moves.length) play(offered);
          }
        });
        res.on('end', finish);
      },
    );
    req.on('error', finish);
    open.add(finish);
  });
}

async function table(i) {
  const owner = agentFor(address(i, null));
  const auth = { Authorization: `Bearer ${opts.key}` };
  while (now() < stopAt) {
    const created = await request(owner, 'POST', '/games', { game: 'dalmuti', players: ['p0', 'p1', 'p2', 'p3', 'p4'], options: { hands: 1 } }, auth);
    if (created.status === 429) {
      stats.refused += 1;
      await new Promise((r) => setTimeout(r, 50));
      continue;
    }
    if (created.status !== 201) throw new Error(`POST /games: ${created.status} ${created.body.slice(0, 300)}`);
    const g = JSON.parse(created.body);
    stats.games += 1;
    await Promise.all(g.seats.map((s) => seat(i, g.id, s.token, s.seat)));
  }
  owner.destroy();
}

function percentile(sorted, q) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : null;
}

async function main() {
  t0 = now();
  stopAt = t0 + opts.seconds * 1000;
  endAt = stopAt + PLAY_OUT_MS;
  const tables = [];
  for (let i = 0; i < opts.tables; i++) tables.push(table(i));
  const cut = setTimeout(() => [...open].forEach((finish) => finish()), endAt - now());
  await Promise.all(tables);
  clearTimeout(cut);
  const sorted = latencies.slice().sort((a, b) => a - b);
  const round = (x, d) => (x === null ? null : Math.round(x * 10 ** d) / 10 ** d);
  const result = {
    moves: sorted.length,
    seconds: opts.seconds,
    moves_per_s: round(sorted.length / opts.seconds, 1),
    p50_ms: round(percentile(sorted, 0.5), 3),
    p99_ms: round(percentile(sorted, 0.99), 3),
    tables: opts.tables,
    games: stats.games,
    refused: stats.refused,
    conflicts: stats.conflicts,
    errors: stats.errors,
    unexpected: stats.unexpected, // the answers neither 201, 412 nor 429, by status
    latencies_ms: sorted.map((x) => round(x, 3)),
  };
  process.stdout.write(JSON.stringify(result) + '\n', () => process.exit(stats.errors ? 3 : 0));
}

main().catch((err) => {
  console.error(`load.js: ${err.stack || err}`);
  process.exit(1);
});
