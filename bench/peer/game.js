// The peer's game: a shedding game with secret hands, close to the El Gran Dalmuti hand that
// bench/move_throughput.py plays on naipes. Five seats; the deck is Dalmuti's (twelve ranks, rank r
// in r copies, and two jesters), shuffled with boardgame.io's random API and dealt round the table,
// sixteen cards each. On its turn a seat plays one card or a set of equal cards (jesters fill a
// set) that beats the trick (as many cards, of a better, lower, rank), or passes; the leader of a
// trick may not pass. When all the others have passed, the trick is cleared and its winner leads.
// The match ends as soon as a seat has no card left (the load generator then starts another).
//
// A seat's view holds its own hand only (`playerView`); the others' hands are public as counts.
// Moves run on the server alone (`client: false`): a seat's client holds no other hand to run
// them against, and the load generator times each move to the server's answer.

const { INVALID_MOVE } = require('boardgame.io/core');

const NAME = 'shedding';
const SEATS = 5;
const RANKS = 12; // 1 is the best rank, 12 the worst
const JESTER = 13; // a jester played alone counts as a 13

function deck() {
  const cards = [];
  for (let rank = 1; rank <= RANKS; rank++) {
    for (let copy = 0; copy < rank; copy++) cards.push(rank);
  }
  cards.push(JESTER, JESTER);
  return cards;
}

function tally(hand) {
  const held = {};
  for (const card of hand) held[card] = (held[card] || 0) + 1;
  return held;
}

function isCount(n, min) {
  return Number.isInteger(n) && n >= min && n <= 80;
}

// The legal plays of a hand against a trick (null when leading): [rank, count, jesters] each, where
// `jesters` of the `count` cards are jesters standing for `rank` (a set of jesters alone is rank 13).
function legalPlays(hand, trick) {
  const held = tally(hand);
  const jesters = held[JESTER] || 0;
  const plays = [];
  for (let rank = 1; rank <= JESTER; rank++) {
    const natural = rank === JESTER ? 0 : held[rank] || 0;
    if (rank !== JESTER && natural === 0) continue;
    if (trick && rank >= trick.rank) continue;
    for (let j = 0; j <= jesters; j++) {
      if (rank === JESTER && j === 0) continue;
      const most = natural + j;
      const least = rank === JESTER ? j : j + 1; // at least one natural card beside j jesters
      for (let count = least; count <= most; count++) {
        if (rank === JESTER && count !== j) continue;
        if (trick && count !== trick.count) continue;
        plays.push([rank, count, j]);
      }
    }
  }
  return plays;
}

function play({ G, ctx, playerID }, rank, count, jesters = 0) {
  if (!isCount(rank, 1) || rank > JESTER || !isCount(count, 1) || !isCount(jesters, 0) || jesters > count) {
    return INVALID_MOVE;
  }
  if (rank === JESTER ? jesters !== count : jesters === count) return INVALID_MOVE;
  const hand = G.hands[playerID];
  const held = tally(hand);
  const natural = rank === JESTER ? 0 : count - jesters;
  if ((held[rank] || 0) < natural || (held[JESTER] || 0) < jesters) return INVALID_MOVE;
  if (G.trick && (count !== G.trick.count || rank >= G.trick.rank)) return INVALID_MOVE;
  let naturalLeft = natural;
  let jestersLeft = jesters;
  G.hands[playerID] = hand.filter((card) => {
    if (card === rank && rank !== JESTER && naturalLeft > 0) {
      naturalLeft--;
      return false;
    }
    if (card === JESTER && jestersLeft > 0) {
      jestersLeft--;
      return false;
    }
    return true;
  });
  G.counts[playerID] = G.hands[playerID].length;
  G.trick = { rank, count, jesters, by: playerID };
  G.passes = 0;
  G.lastPlay = { seat: playerID, rank, count, jesters, turn: ctx.turn };
}

function pass({ G, ctx, playerID }) {
  if (!G.trick) return INVALID_MOVE; // the leader must play
  G.passes += 1;
  G.lastPlay = { seat: playerID, pass: true, turn: ctx.turn };
  if (G.passes === ctx.numPlayers - 1) {
    // all the others passed: the trick is cleared; its winner is next round the table and leads
    G.trick = null;
    G.passes = 0;
  }
}

const Game = {
  name: NAME,
  minPlayers: SEATS,
  maxPlayers: SEATS,
  disableUndo: true,

  setup: ({ ctx, random }) => {
    const cards = random.Shuffle(deck());
    const hands = {};
    for (const seat of ctx.playOrder) hands[seat] = [];
    cards.forEach((card, i) => hands[ctx.playOrder[i % ctx.numPlayers]].push(card));
    const counts = {};
    for (const seat of ctx.playOrder) {
      hands[seat].sort((a, b) => a - b);
      counts[seat] = hands[seat].length;
    }
    return { hands, counts, trick: null, passes: 0, lastPlay: null };
  },

  // Each seat sees its own hand and nobody else's; a spectator sees none.
  playerView: ({ G, playerID }) => ({
    ...G,
    hands: playerID != null && playerID in G.hands ? { [playerID]: G.hands[playerID] } : {},
  }),

  moves: {
    play: { move: play, client: false },
    pass: { move: pass, client: false },
  },

  // one move a turn: a play or a pass ends the turn; the seats may call no event of their own
  turn: { minMoves: 1, maxMoves: 1 },
  events: {
    endTurn: false,
    pass: false,
    endPhase: false,
    setPhase: false,
    endGame: false,
    setActivePlayers: false,
    endStage: false,
    setStage: false,
  },

  endIf: ({ G }) => {
    for (const seat of Object.keys(G.counts)) {
      if (G.counts[seat] === 0) return { winner: seat };
    }
    return undefined;
  },
};

module.exports = { Game, legalPlays, NAME, SEATS, JESTER };
