"""Information-set Monte Carlo tree search (single-observer ISMCTS, Cowling, Powley and Whitehouse 2012).

The bot sees only its seat's view.  Each iteration:

1. samples a full state consistent with that view (the game's ``determinize``: the seat's own cards as
   they are, every card it has not seen dealt at random to the places that hold hidden cards);
2. descends the one tree of the search, choosing at each node among the moves legal *in that
   determinization* by UCB1 with availability counts (a child's exploration term counts the iterations in
   which it was available, not its parent's visits); the seat that acts at a node picks by its own reward,
   so the other seats play to win too (when several seats act at once, the bot's own seat acts first,
   else the lowest acting seat);
3. expands one untried move, then plays out with uniformly random legal moves through the game's own
   ``decide`` and ``evolve`` (``domain.registry.get(game)``), every command with a seed from the search's
   generator;
4. scores every seat and backs the rewards up the path.

**What is scored.**  A playout runs to the end of the current hand (the first of the game's
``HAND_OVER_EVENTS``: Dalmuti ``HandEnded``, Muerte ``GameEnded``, Cego ``RoundScored``, Onion ``RoundEnded``,
or ``MatchEnded``) rather than to the end of the match: the match's ``outcome()`` only exists at its end, and
hands after this one are dealt from cards nobody has seen yet, so they add noise and no information.  A
seat's reward is its gain over the hand in the game's running total, read from the state (``VALUE_KEYS``:
Dalmuti and Muerte ``scores``, Cego ``balances``, Onion ``bankrolls``), normalised to [0, 1] across the table:
``(gain - lowest gain) / (highest gain - lowest gain)``, 0.5 for everyone when all gains are equal.  A game
whose bot module offers its own ``score(root, end, seat_count) -> [reward per seat]`` is scored by it instead.
If a playout meets the match's end (``outcome()`` not None) the same gains are read from the final state.

The search is deterministic: the same view, moves, seed and budget give the same move.  ``budget`` is the
number of iterations (one determinization and one playout each), never time: the domain has no clock.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable

from domain import registry
from domain.base import RuleViolation

# where a game keeps each seat's running total (see the module's docstring)
VALUE_KEYS = {"dalmuti": "scores", "muerte": "scores", "cego": "balances", "onion": "bankrolls"}
EXPLORATION = 0.7  # UCB1's constant for rewards in [0, 1]
MAX_PLAYOUT = 5_000  # moves; a hand that has not ended by then is scored as it stands

Determinize = Callable[[dict, int, random.Random], dict]
Score = Callable[[dict, dict, int], list[float]]


def move_key(seat: int, move: dict) -> str:
    return f"{seat}|{json.dumps(move, sort_keys=True, separators=(',', ':'))}"


class Node:
    __slots__ = ("children", "visits", "avail", "reward", "seat", "move")

    def __init__(self, seat: int | None = None, move: dict | None = None):
        self.children: dict[str, Node] = {}
        self.visits = 0
        self.avail = 0
        self.reward = 0.0  # summed reward of ``seat``, the seat that made ``move``
        self.seat = seat
        self.move = move


def values(game: str, state: dict) -> list[float]:
    """Each seat's running total, as the game keeps it."""
    vals = state.get(VALUE_KEYS.get(game, "scores"))
    if not isinstance(vals, list):
        out = state.get("outcome") or {}
        vals = out.get("scores") or [0] * len(state["players"])
    return [float(v) for v in vals]


def normalised(gains: list[float]) -> list[float]:
    low, high = min(gains), max(gains)
    if high <= low:
        return [0.5] * len(gains)
    return [(g - low) / (high - low) for g in gains]


def hand_rewards(game: str, root: dict, end: dict) -> list[float]:
    """Every seat's reward in [0, 1] for the play from ``root`` to ``end`` (the default scoring)."""
    before, after = values(game, root), values(game, end)
    n = len(after)
    before = (before + [0.0] * n)[:n]  # a seat that joined on the way started from nothing
    return normalised([a - b for a, b in zip(after, before)])


class Search:
    def __init__(self, game: str, view: dict, seat: int, moves: list[dict], determinize: Determinize, seed: int,
                 score: Score | None = None):  # fmt: skip
        self.game = game
        self.module = registry.get(game)
        self.view, self.seat, self.moves = view, seat, moves
        self.determinize = determinize
        self.rng = random.Random(seed)
        self.score = score
        self.hand_over = set(self.module.HAND_OVER_EVENTS)
        self.root = Node()
        self.root_keys = {move_key(seat, m): i for i, m in enumerate(moves)}
        self.simulated = 0  # the commands played so far (what a thinking budget counts)

    # one step of play: the events of a command applied; True when the hand (or match) is over
    def step(self, state: dict, seat: int, move: dict) -> tuple[dict, bool]:
        m = self.module
        self.simulated += 1
        events = m.decide(state, {**move, "seat": seat, "seed": self.rng.getrandbits(63)})
        over = False
        for ev in events:
            state = m.evolve(state, ev)
            if ev["type"] in self.hand_over:
                over = True
                break
        return state, over or m.outcome(state) is not None

    def actor(self, state: dict) -> int | None:
        acting = self.module.to_act(state)
        if not acting:
            return None
        return self.seat if self.seat in acting else min(acting)

    def rewards(self, root: dict, end: dict) -> list[float]:
        if self.score is not None:
            return self.score(root, end, len(end["players"]))
        return hand_rewards(self.game, root, end)

    def iterate(self) -> None:
        m, rng = self.module, self.rng
        root_state = self.determinize(self.view, self.seat, rng)
        state = root_state
        node = self.root
        path = [node]
        over = False
        first = True
        # selection and expansion
        while not over:
            seat = self.actor(state)
            if seat is None:
                break
            legal = self.moves if first and seat == self.seat else m.legal_moves(state, seat)
            first = False
            if not legal:
                break
            keyed = [(move_key(seat, mv), mv) for mv in legal]
            untried = [(k, mv) for k, mv in keyed if k not in node.children]
            for k, _ in keyed:
                child = node.children.get(k)
                if child is not None:
                    child.avail += 1
            if untried:
                k, mv = untried[rng.randrange(len(untried))]
                child = node.children[k] = Node(seat, mv)
                child.avail += 1
                state, over = self.step(state, seat, mv)
                node = child
                path.append(node)
                break
            best, best_val = None, -1.0
            for k, _ in keyed:
                c = node.children[k]
                val = c.reward / c.visits + EXPLORATION * math.sqrt(math.log(c.avail) / c.visits)
                if val > best_val:
                    best, best_val = c, val
            state, over = self.step(state, seat, best.move)
            node = best
            path.append(node)
        # playout
        moves = 0
        while not over and moves < MAX_PLAYOUT:
            acting = m.to_act(state)
            if not acting:
                break
            seat = acting[rng.randrange(len(acting))]
            legal = m.legal_moves(state, seat)
            state, over = self.step(state, seat, legal[rng.randrange(len(legal))])
            moves += 1
        rewards = self.rewards(root_state, state)
        for n in path:
            n.visits += 1
            if n.seat is not None:
                n.reward += rewards[n.seat]

    def best(self) -> dict:
        ranked = []
        for k, i in self.root_keys.items():
            c = self.root.children.get(k)
            ranked.append((c.visits if c else 0, c.reward / c.visits if c and c.visits else 0.0, -i))
        visits, _, neg_i = max(ranked)
        return self.moves[-neg_i]


def choose(game: str, view: dict, seat: int, moves: list[dict], *, determinize: Determinize, seed: int,
           budget: int = 200, score: Score | None = None, max_steps: int | None = None) -> dict:  # fmt: skip
    """One of ``moves`` chosen by ``budget`` ISMCTS iterations from ``view`` and ``seed`` only
    (see the module's docstring).  ``determinize(view, seat, rng)`` is the game's sampler of full states.
    ``max_steps``: the search also stops, between iterations, once it has played this many commands
    (an iteration plays its sample out, so its cost grows with the table): counted, not timed, so the
    same view and seed give the same move anywhere."""
    if not moves:
        raise ValueError("no legal move to choose from")
    if len(moves) == 1 or budget <= 0:
        return moves[0]
    search = Search(game, view, seat, moves, determinize, seed, score)
    for _ in range(budget):
        if max_steps is not None and search.simulated >= max_steps:
            break
        try:
            search.iterate()
        except RuleViolation:  # a move legal in the view but not in one sampled state: skip that sample
            continue
    return search.best()


__all__ = ["VALUE_KEYS", "Node", "Search", "choose", "hand_rewards", "normalised", "values"]
