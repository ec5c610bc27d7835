// Plays one complete game of naipes through the typed client generated from openapi.yaml.
//
//   node dist/play.js <game> [--players ana,bea,carl] [--options '{"rounds":1}'] [--seed 7]
//
// API (the service's base URL) and KEY (an integrator key) come from the environment, as in the
// README.  The game is created with the key, then every move is one that legal-moves lists for a
// seat that must act, posted back unchanged; the result is printed as one JSON line.  Last, a move
// posted to the finished game shows the typed problem the API answers with.
import createClient, { type Client } from "openapi-fetch";

import type { components, paths } from "./schema.js";

type Schemas = components["schemas"];
export type Problem = Schemas["Problem"];
export type AnyMove = Schemas["Move"];

/** Each game type's own move union, as the contract names it. */
export type MoveOf = {
  dalmuti: Schemas["DalmutiMove"];
  cego: Schemas["CegoMove"];
  muerte: Schemas["MuerteMove"];
  onion: Schemas["OnionMove"];
};
export type GameType = keyof MoveOf;
const GAME_TYPES: readonly GameType[] = ["dalmuti", "cego", "muerte", "onion"];

// The unions are closed: a move of another game, or a field a move type lacks, does not type-check.
// @ts-expect-error a Dalmuti move has no `call` (that is Cego's auction)
const notDalmuti: MoveOf["dalmuti"] = { type: "call", call: "solo" };
void notDalmuti;
const pass: MoveOf["dalmuti"] = { type: "pass" };
void pass;

/** The move types a game's description lists (GET /game-types/{game}): a legal move is one of them. */
function isMoveOf<G extends GameType>(types: ReadonlySet<string>, move: AnyMove): move is MoveOf[G] {
  return types.has(move.type);
}

/** Whether an error body is the API's problem+json (RFC 9457) with the fields the contract requires. */
export function isProblem(body: unknown): body is Problem {
  const p = body as Partial<Problem> | null;
  return (
    typeof p === "object" &&
    p !== null &&
    typeof p.type === "string" &&
    p.type.startsWith("urn:naipes:problem:") &&
    typeof p.title === "string" &&
    typeof p.status === "number" &&
    typeof p.detail === "string"
  );
}

type Api = Client<paths>;

function client(api: string, token?: string): Api {
  return createClient<paths>({ baseUrl: api, headers: token ? { Authorization: `Bearer ${token}` } : {} });
}

/** A small seeded generator (mulberry32), so a game can be played again move for move. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(items: readonly T[], rnd: () => number): T {
  const item = items[Math.floor(rnd() * items.length)];
  if (item === undefined) throw new Error("nothing to choose from");
  return item;
}

function fail(what: string, error: unknown): never {
  throw new Error(`${what}: ${isProblem(error) ? `${error.status} ${error.type}: ${error.detail}` : String(error)}`);
}

export interface Played {
  id: string;
  game: GameType;
  moves: number;
  version: number;
  finished: boolean;
  result: Schemas["GameView"]["result"];
  problem: Pick<Problem, "type" | "title" | "status" | "detail">;
}

export async function play<G extends GameType>(
  api: string,
  key: string,
  game: G,
  players: string[],
  options: Record<string, unknown>,
  seed = 1,
  maxMoves = 20000,
): Promise<Played> {
  const rnd = random(seed);
  const spectator = client(api);
  const integrator = client(api, key);

  const described = await spectator.GET("/game-types/{game_type}", { params: { path: { game_type: game } } });
  if (!described.data) fail(`GET /game-types/${game}`, described.error);
  const types = new Set(described.data.moves.map((m) => m.type));

  const created = await integrator.POST("/games", { body: { game, players, options } });
  if (!created.data) fail("POST /games", created.error);
  const id = created.data.id;
  const seats = new Map(created.data.seats.map((s) => [s.seat, client(api, s.token)] as const));
  const seat = (n: number): Api => seats.get(n) ?? fail(`seat ${n}`, "no token for it");

  let last: { seat: number; move: MoveOf[G] } | undefined;
  for (let made = 0; made <= maxMoves; made++) {
    const view = await spectator.GET("/games/{game_id}", { params: { path: { game_id: id } } });
    if (!view.data) fail(`GET /games/${id}`, view.error);
    if (view.data.finished) {
      if (!last) throw new Error("the game finished before any move");
      const problem = await badMove(seat(last.seat), id, last.move);
      return { id, game, moves: made, version: view.data.version, finished: true, result: view.data.result, problem };
    }
    const n = pick(view.data.to_act, rnd);
    const legal = await seat(n).GET("/games/{game_id}/legal-moves", { params: { path: { game_id: id } } });
    if (!legal.data) fail(`legal moves of seat ${n}`, legal.error);
    const chosen = pick(legal.data.moves, rnd);
    if (!isMoveOf<G>(types, chosen)) throw new Error(`not a ${game} move: ${JSON.stringify(chosen)}`);
    const move: MoveOf[G] = chosen; // the game's own move type, posted back as legal-moves gave it
    const posted = await seat(n).POST("/games/{game_id}/moves", {
      params: { path: { game_id: id }, header: { "If-Match": `"${view.data.version}"` } },
      body: move,
    });
    if (!posted.data) fail(`seat ${n} posting ${JSON.stringify(move)}`, posted.error);
    last = { seat: n, move };
  }
  throw new Error(`${game} game ${id} did not finish in ${maxMoves} moves`);
}

/** A move posted to a finished game: the error is the contract's Problem, narrowed by its `type`. */
async function badMove<G extends GameType>(seat: Api, id: string, move: MoveOf[G]): Promise<Played["problem"]> {
  const { data, error, response } = await seat.POST("/games/{game_id}/moves", {
    params: { path: { game_id: id } },
    body: move,
  });
  if (data !== undefined) throw new Error(`a move after the end was accepted: ${JSON.stringify(data)}`);
  if (error?.type === "urn:naipes:problem:game-finished" && isProblem(error)) {
    const type: "urn:naipes:problem:game-finished" = error.type; // narrowed by the check above
    return { type, title: error.title, status: error.status, detail: error.detail };
  }
  throw new Error(`expected a game-finished problem, got ${response.status} ${JSON.stringify(error)}`);
}

function argument(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(argv: string[]): Promise<void> {
  const [game, ...rest] = argv;
  if (!GAME_TYPES.includes(game as GameType)) {
    throw new Error(`usage: play.js <${GAME_TYPES.join("|")}> [--players a,b,c] [--options JSON] [--seed N]`);
  }
  const api = process.env.API ?? "http://127.0.0.1:8000";
  const key = process.env.KEY;
  if (!key) throw new Error("KEY must hold an integrator key (./naipes start prints one; data/api_key keeps it)");
  const players = (argument(rest, "--players") ?? "ana,bea,carl,dani,eva,flor").split(",");
  const options = JSON.parse(argument(rest, "--options") ?? "{}") as Record<string, unknown>;
  const seed = Number(argument(rest, "--seed") ?? "1");
  const played = await play(api, key, game as GameType, players, options, seed);
  console.log(JSON.stringify(played));
}

main(process.argv.slice(2)).catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
