"""Tournaments: a pure decider over many tables of one game.

No I/O and no clock.  Randomness enters only as the tournament's ``seed``
(a command field of ``create``); every pairing is a function of the seed, the
round number and the events so far, so a re-run of the same command decides
the same tables.

Events (``{"type", "data", "private"?}``, sealed into envelopes by the
service exactly like a game's):

``TournamentCreated``  name, game, options, format, rounds, table_size
                       ``{"min", "max"}``, owner, tie_breaks, bots (player ->
                       kind: the players the service's bots play); private
                       ``setup.seed``
``PlayerRegistered``   player
``RoundPaired``        round, tables ``[{"table", "players"}]`` (seat order),
                       byes; private ``deal_seeds`` (duplicate: one per round,
                       the same for every table)
``TableStarted``       round, table, game_id
``RoundStarted``       round, games (once every table of the round has its game)
``TableResult``        round, table, game_id, scores (the game's, per seat),
                       points (what the tournament counts, per seat), winners,
                       ranking, void
``TableResultCorrected`` the fields of ``TableResult`` again, as a reviewer's
                       adjudication of the finished game changed them, with
                       ``previous_points`` and ``game_version`` (the game's
                       version that carries the adjudication)
``PlayerWithdrew``     player, round (the round in play when it withdrew)
``TournamentFinished`` reason, standings

Commands (``decide(state, command)``): ``create``, ``pair`` (pair the next
round, or finish), ``start_table``, ``record``, ``correct`` (a recorded
table's game has a new outcome), ``withdraw``.

A correction changes the standings from then on (and the pairings of rounds
not yet paired); rounds already paired stay as they were, and the standings
written into ``TournamentFinished`` are those of the moment it ended.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import math
import random
from typing import Any

from domain.table import BOT_KINDS

FORMATS = ("round_robin", "swiss", "duplicate")

TOURNAMENT_CREATED = "TournamentCreated"
PLAYER_REGISTERED = "PlayerRegistered"
ROUND_PAIRED = "RoundPaired"
TABLE_STARTED = "TableStarted"
ROUND_STARTED = "RoundStarted"
TABLE_RESULT = "TableResult"
TABLE_RESULT_CORRECTED = "TableResultCorrected"
PLAYER_WITHDREW = "PlayerWithdrew"
TOURNAMENT_FINISHED = "TournamentFinished"

# Tie-breaks after the total score, in order.  ``registration`` (the order
# players were registered in) makes the order total.
TIE_BREAKS = {
    "round_robin": ["wins", "opponents_points", "registration"],
    "swiss": ["wins", "opponents_points", "registration"],
    "duplicate": ["par", "wins", "opponents_points", "registration"],
}

MAX_PLAYERS = 512
MAX_ROUNDS = 64


class TournamentError(Exception):
    """A command the tournament refuses.  ``kind``: ``invalid`` (malformed or
    impossible), ``conflict`` (not now), ``unknown`` (names nothing)."""

    def __init__(self, rule: str, detail: str, kind: str = "invalid"):
        super().__init__(detail)
        self.rule = rule
        self.detail = detail
        self.kind = kind


def _event(type_: str, data: dict, private: dict | None = None) -> dict:
    ev: dict[str, Any] = {"type": type_, "data": data}
    if private:
        ev["private"] = private
    return ev


# ---------------------------------------------------------------- scores
def table_points(game: str, options: dict, outcome: dict) -> list[float]:
    """What a game's outcome counts in the standings, per seat.

    Dalmuti: its points (1 per opponent still holding cards when one goes
    out, summed over the match).  Muerte al rey: the match total of the
    scoring table (3.2).  Cego: the balances (zero-sum).  Cripple Mr Onion:
    money won or lost, i.e. the final bankroll minus the starting bankroll
    (``bankroll`` x ``stake`` chips), so that a table's points sum to minus
    any pot left unclaimed.  A voided game counts 0 for everyone.
    """
    scores = list(outcome.get("scores") or [])
    if outcome.get("void"):
        return [0] * len(scores)
    if game == "onion":
        start = int(options.get("bankroll", 50)) * int(options.get("stake", 10))
        return [s - start for s in scores]
    return scores


# ---------------------------------------------------------------- sizes
def table_sizes(n: int, low: int, high: int, *, equal: bool = False) -> list[int]:
    """Sizes of the tables for ``n`` players, each between ``low`` and
    ``high``, as even as possible and seating as many as possible; the rest
    sit the round out (byes).  ``equal``: every table the same size
    (duplicate play deals the same cards to every table)."""
    if n < low or low < 1 or high < low:
        return []
    if equal:
        best: tuple[int, int] | None = None
        for size in range(high, low - 1, -1):
            seated = (n // size) * size
            if best is None or seated > best[0]:
                best = (seated, size)
        seated, size = best  # type: ignore[misc]
        return [size] * (seated // size)
    m = math.ceil(n / high)
    if n // m >= low:
        base, extra = divmod(n, m)
        return [base + 1] * extra + [base] * (m - extra)
    m = n // low
    seated = min(n, m * high)
    base, extra = divmod(seated, m)
    return [base + 1] * extra + [base] * (m - extra)


def default_rounds(fmt: str, n: int, low: int, high: int) -> int:
    """Round robin: enough rounds for everyone to meet everyone once at tables
    of the largest size; swiss: ceil(log2 n); duplicate: the table size (each
    player takes every seat once)."""
    sizes = table_sizes(n, low, high, equal=fmt == "duplicate") or [high]
    k = max(sizes)
    if fmt == "round_robin":
        return max(1, math.ceil((n - 1) / max(1, k - 1)))
    if fmt == "swiss":
        return max(1, math.ceil(math.log2(max(2, n))))
    return max(1, k)


# ---------------------------------------------------------------- seeds
def derive(seed: int | str, *parts: Any) -> int:
    """A 63-bit number derived from the tournament seed and ``parts``."""
    h = hashlib.sha256(":".join([str(seed), *map(str, parts)]).encode()).digest()
    return int.from_bytes(h[:8], "big") >> 1


def deal_seed(seed: int | str, round_no: int) -> str:
    """The deal seed every table of a duplicate round shares (secret)."""
    return hashlib.sha256(f"naipes-duplicate:{seed}:{round_no}".encode()).hexdigest()


# ---------------------------------------------------------------- state
def initial_state() -> dict:
    return {"created": False}


def evolve(state: dict, ev: dict) -> dict:
    """Fold one event (pure: returns a new state, sharing what did not change)."""
    t, d = ev["type"], ev.get("data") or {}
    st = dict(state)
    if t == TOURNAMENT_CREATED:
        st.update(
            {
                "created": True,
                "name": d["name"],
                "game": d["game"],
                "options": d["options"],
                "format": d["format"],
                "rounds": d["rounds"],
                "table_size": d["table_size"],
                "owner": d.get("owner"),
                "tie_breaks": d["tie_breaks"],
                "bots": dict(d.get("bots") or {}),
                "seed": ((ev.get("private") or {}).get("setup") or {}).get("seed"),
                "players": [],
                "withdrawn": [],
                "round": 0,
                "schedule": [],
                "finished": False,
                "finish_reason": None,
            }
        )
    elif t == PLAYER_REGISTERED:
        st["players"] = state["players"] + [d["player"]]
    elif t == ROUND_PAIRED:
        rnd = {
            "round": d["round"],
            "byes": list(d.get("byes") or []),
            "started": False,
            "deal_seed": ((ev.get("private") or {}).get("deal_seeds") or {}).get(str(d["round"])),
            "tables": [
                {"table": tb["table"], "players": list(tb["players"]), "game_id": None, "result": None}
                for tb in d["tables"]
            ],
        }
        st["schedule"] = state["schedule"] + [rnd]
        st["round"] = d["round"]
    elif t in (TABLE_STARTED, TABLE_RESULT, TABLE_RESULT_CORRECTED, ROUND_STARTED):
        idx = d["round"] - 1
        rnd = dict(state["schedule"][idx])
        if t == ROUND_STARTED:
            rnd["started"] = True
        else:
            tables = list(rnd["tables"])
            tb = dict(tables[d["table"]])
            if t == TABLE_STARTED:
                tb["game_id"] = d["game_id"]
            else:
                tb["result"] = {k: d[k] for k in ("scores", "points", "winners", "ranking", "void") if k in d}
                if t == TABLE_RESULT_CORRECTED:
                    before = tables[d["table"]]["result"] or {}
                    tb["result"]["corrections"] = before.get("corrections", 0) + 1
            tables[d["table"]] = tb
            rnd["tables"] = tables
        sched = list(state["schedule"])
        sched[idx] = rnd
        st["schedule"] = sched
    elif t == PLAYER_WITHDREW:
        st["withdrawn"] = state["withdrawn"] + [d["player"]]
    elif t == TOURNAMENT_FINISHED:
        st["finished"] = True
        st["finish_reason"] = d.get("reason")
    return st


def fold(events, state: dict | None = None) -> dict:
    state = state if state is not None else initial_state()
    for ev in events:
        state = evolve(state, ev)
    return state


def active_players(state: dict) -> list[str]:
    gone = set(state["withdrawn"])
    return [p for p in state["players"] if p not in gone]


def current_round(state: dict) -> dict | None:
    return state["schedule"][-1] if state["schedule"] else None


def round_complete(rnd: dict) -> bool:
    return all(tb["result"] is not None for tb in rnd["tables"])


def status(state: dict) -> str:
    if state["finished"]:
        return "finished"
    return "running" if state["schedule"] else "created"


# ---------------------------------------------------------------- standings
def standings(state: dict) -> list[dict]:
    """Every registered player's line, best first.

    ``points``: the sum over its tables of the game's per-seat points
    (:func:`table_points`); ``wins``: tables where it was among the game's
    winners; ``par`` (duplicate): the sum over its tables of its points minus
    the mean points of the players who held the same seat, with the same
    cards, at the other tables of the round; ``opponents_points``: the sum of
    the final points of every opponent it sat with, once per table
    (Buchholz).  Ordered by points, then ``tie_breaks`` in order.
    """
    players = state.get("players", [])
    idx = {p: i for i, p in enumerate(players)}
    rows = {
        p: {
            "player": p,
            "points": 0,
            "games": 0,
            "wins": 0,
            "byes": 0,
            "par": 0.0,
            "opponents_points": 0,
            "withdrawn": p in state.get("withdrawn", []),
            "opponents": [],
        }
        for p in players
    }
    for rnd in state.get("schedule", []):
        for p in rnd["byes"]:
            rows[p]["byes"] += 1
        seat_points: dict[int, list] = {}
        for tb in rnd["tables"]:
            res = tb["result"]
            if res is None:
                continue
            for seat, p in enumerate(tb["players"]):
                row = rows[p]
                row["points"] += res["points"][seat]
                row["games"] += 1
                if seat in res.get("winners", []):
                    row["wins"] += 1
                row["opponents"].append([q for q in tb["players"] if q != p])
                seat_points.setdefault(seat, []).append(res["points"][seat])
        for tb in rnd["tables"]:
            res = tb["result"]
            if res is None:
                continue
            for seat, p in enumerate(tb["players"]):
                held, own = seat_points[seat], res["points"][seat]
                if len(held) > 1:  # the mean of the seat at the round's other tables
                    rows[p]["par"] += own - (sum(held) - own) / (len(held) - 1)
    for row in rows.values():
        row["opponents_points"] = sum(rows[q]["points"] for table in row.pop("opponents") for q in table)
        row["par"] = round(row["par"], 6)
    breaks = state.get("tie_breaks") or ["registration"]

    def key(row: dict):
        out: list = [-row["points"]]
        for b in breaks:
            out.append(idx[row["player"]] if b == "registration" else -row[b])
        return out

    ordered = sorted(rows.values(), key=key)
    for rank, row in enumerate(ordered, start=1):
        row["rank"] = rank
    return ordered


def meetings(state: dict) -> dict[frozenset, int]:
    """How many times each pair of players has sat at one table."""
    out: dict[frozenset, int] = {}
    for rnd in state.get("schedule", []):
        for tb in rnd["tables"]:
            ps = tb["players"]
            for i in range(len(ps)):
                for j in range(i + 1, len(ps)):
                    k = frozenset((ps[i], ps[j]))
                    out[k] = out.get(k, 0) + 1
    return out


# ---------------------------------------------------------------- pairing
def _pick_byes(
    players: list[str], count: int, byes_so_far: dict[str, int], order: list[str], rng: random.Random
) -> list[str]:
    """``count`` players to sit out: fewest byes so far first, then the end of
    ``order`` (the lowest standing), then chance."""
    if count <= 0:
        return []
    pos = {p: i for i, p in enumerate(order)}
    jitter = {p: rng.random() for p in players}
    return sorted(players, key=lambda p: (byes_so_far.get(p, 0), -pos.get(p, 0), jitter[p]))[:count]


def _chunk(players: list[str], sizes: list[int]) -> list[list[str]]:
    out, i = [], 0
    for s in sizes:
        out.append(players[i : i + s])
        i += s
    return out


def _anneal(
    groups: list[list[str]], delta, apply, rng: random.Random, iters: int, temp: float = 1.5, done=lambda: False
) -> None:
    """Improve ``groups`` in place by swapping two players of different groups.

    ``delta(gi, a, gj, b)`` is the change of cost the swap would make;
    ``apply`` performs it.  Simulated annealing: a worse swap is taken with
    probability exp(-delta / T), T falling to near zero.
    """
    if len(groups) < 2:
        return
    for it in range(iters):
        if done():
            return
        t = temp * (1 - it / iters) + 1e-3
        gi, gj = rng.sample(range(len(groups)), 2)
        ai, bj = rng.randrange(len(groups[gi])), rng.randrange(len(groups[gj]))
        d = delta(gi, ai, gj, bj)
        if d <= 0 or rng.random() < math.exp(-d / t):
            apply(gi, ai, gj, bj)


def _weight(meetings: int) -> int:
    """The cost of a pair meeting that many times: convex, so that spreading
    meetings evenly is cheapest and a third meeting costs more than two
    pairs meeting twice."""
    return meetings**3


def round_robin_schedule(
    players: list[str],
    low: int,
    high: int,
    rounds: int,
    seed: int | str,
    *,
    equal: bool = False,
    iters: int | None = None,
) -> list[dict]:
    """Tables for every round, so that every pair meets as evenly as the
    sizes allow: the sum over pairs of (meetings cubed) is minimised by
    annealing over the whole schedule (its floor is reached when every pair
    meets ``floor(slots / pairs)`` or one more time).  Byes rotate: fewest
    byes first.  Returns ``[{"tables": [[names]], "byes": [names]}]``."""
    rng = random.Random(derive(seed, "round_robin"))
    n = len(players)
    sizes = table_sizes(n, low, high, equal=equal)
    if not sizes:
        return []
    seated = sum(sizes)
    byes_so_far: dict[str, int] = {}
    plan: list[dict] = []
    for _ in range(rounds):
        byes = _pick_byes(players, n - seated, byes_so_far, players, rng)
        for p in byes:
            byes_so_far[p] = byes_so_far.get(p, 0) + 1
        playing = [p for p in players if p not in byes]
        rng.shuffle(playing)
        plan.append({"tables": _chunk(playing, sizes), "byes": byes})
    idx = {p: i for i, p in enumerate(players)}
    count = [[0] * n for _ in range(n)]
    for r in plan:
        for tb in r["tables"]:
            for a in tb:
                for b in tb:
                    if a != b:
                        count[idx[a]][idx[b]] += 1
    slots = rounds * sum(s * (s - 1) // 2 for s in sizes)
    pairs = n * (n - 1) // 2
    q, rem = divmod(slots, pairs) if pairs else (0, 0)
    floor_cost = (pairs - rem) * _weight(q) + rem * _weight(q + 1)
    state = {"cost": sum(_weight(count[i][j]) for i in range(n) for j in range(i + 1, n)), "round": 0}

    def delta(gi, ai, gj, bj):
        tables = plan[state["round"]]["tables"]
        a, b = idx[tables[gi][ai]], idx[tables[gj][bj]]
        s = 0
        for x in tables[gi]:
            x = idx[x]
            if x != a:
                s += _weight(count[b][x] + 1) - _weight(count[b][x]) + _weight(count[a][x] - 1) - _weight(count[a][x])
        for y in tables[gj]:
            y = idx[y]
            if y != b:
                s += _weight(count[a][y] + 1) - _weight(count[a][y]) + _weight(count[b][y] - 1) - _weight(count[b][y])
        return s

    def apply(gi, ai, gj, bj):
        tables = plan[state["round"]]["tables"]
        state["cost"] += delta(gi, ai, gj, bj)
        a, b = tables[gi][ai], tables[gj][bj]
        ia, ib = idx[a], idx[b]
        for x in tables[gi]:
            if x != a:
                ix = idx[x]
                count[ia][ix] -= 1
                count[ix][ia] -= 1
                count[ib][ix] += 1
                count[ix][ib] += 1
        for y in tables[gj]:
            if y != b:
                iy = idx[y]
                count[ib][iy] -= 1
                count[iy][ib] -= 1
                count[ia][iy] += 1
                count[iy][ia] += 1
        tables[gi][ai], tables[gj][bj] = b, a

    budget = iters if iters is not None else min(200_000, 4000 * rounds * max(1, len(sizes)))
    for it in range(budget):
        if state["cost"] <= floor_cost or len(sizes) < 2:
            break
        state["round"] = rng.randrange(rounds)
        t = 2.0 * (1 - it / budget) + 1e-3
        tables = plan[state["round"]]["tables"]
        gi, gj = rng.sample(range(len(tables)), 2)
        ai, bj = rng.randrange(len(tables[gi])), rng.randrange(len(tables[gj]))
        d = delta(gi, ai, gj, bj)
        if d <= 0 or rng.random() < math.exp(-d / t):
            apply(gi, ai, gj, bj)
    return plan


@functools.lru_cache(maxsize=16)
def _schedule(players: tuple, low: int, high: int, rounds: int, seed: int | str, equal: bool) -> list[dict]:
    """:func:`round_robin_schedule`, kept for the tournaments paired last: every round of a tournament reads
    its own round off the same whole schedule, which costs a 512-player tournament about a second to plan.
    Shared between its callers: read it, never change it."""
    return round_robin_schedule(list(players), low, high, rounds, seed, equal=equal)


def _regroup(
    players: list[str],
    sizes: list[int],
    met: dict[frozenset, int],
    rank: dict[str, int] | None,
    rng: random.Random,
    iters: int = 6000,
) -> list[list[str]]:
    """Seat ``players`` (already in standing order when ``rank`` is given) at
    tables of ``sizes``: first as few earlier meetings of table mates as the
    search finds, then, with ``rank``, tables of similar standing (the spread
    of ranks at a table) without adding a repeated meeting."""
    groups = _chunk(list(players), sizes)

    def table_cost(tb: list[str]) -> float:
        c = 0.0
        for i in range(len(tb)):
            for j in range(i + 1, len(tb)):
                c += 1000 * met.get(frozenset((tb[i], tb[j])), 0)
        if rank is not None and tb:
            rs = [rank[p] for p in tb]
            c += max(rs) - min(rs)
        return c

    def swapped(gi, ai, gj, bj):
        a, b = groups[gi][ai], groups[gj][bj]
        ta = groups[gi][:ai] + [b] + groups[gi][ai + 1 :]
        tb = groups[gj][:bj] + [a] + groups[gj][bj + 1 :]
        return ta, tb

    def delta(gi, ai, gj, bj):
        ta, tb = swapped(gi, ai, gj, bj)
        return table_cost(ta) + table_cost(tb) - table_cost(groups[gi]) - table_cost(groups[gj])

    def apply(gi, ai, gj, bj):
        groups[gi], groups[gj] = swapped(gi, ai, gj, bj)

    def rematches(tb: list[str]) -> int:
        return sum(met.get(frozenset((tb[i], tb[j])), 0) for i in range(len(tb)) for j in range(i + 1, len(tb)))

    def rematch_delta(gi, ai, gj, bj):
        ta, tb = swapped(gi, ai, gj, bj)
        return rematches(ta) + rematches(tb) - rematches(groups[gi]) - rematches(groups[gj])

    # first away from repeated meetings (a walk at low temperature), then,
    # keeping them out, towards tables of similar standing
    _anneal(groups, rematch_delta, apply, rng, iters, temp=1.0, done=lambda: all(rematches(tb) == 0 for tb in groups))
    if rank is not None:
        _anneal(groups, delta, apply, rng, iters, temp=2.0)
        groups.sort(key=lambda tb: min(rank[p] for p in tb))
    return groups


def _balance_seats(
    groups: list[list[str]], seat_counts: dict[str, dict[int, int]], rng: random.Random
) -> list[list[str]]:
    """Order each table so that every player takes each seat as evenly as
    possible over the rounds: the order minimising the sum over players of
    (times it held that seat + 1) squared; every order is tried up to seven
    players, beyond that seat by seat, the player who held it least."""
    out = []
    for tb in groups:
        left = list(tb)
        rng.shuffle(left)

        def held(p: str, seat: int) -> int:
            return seat_counts.get(p, {}).get(seat, 0)

        if len(left) <= 7:
            best = min(
                itertools.permutations(left), key=lambda order: sum((held(p, s) + 1) ** 2 for s, p in enumerate(order))
            )
            out.append(list(best))
            continue
        order = []
        for seat in range(len(tb)):
            pick = min(left, key=lambda p: held(p, seat))
            order.append(pick)
            left.remove(pick)
        out.append(order)
    return out


def pair_round(state: dict, round_no: int) -> dict:
    """The tables of round ``round_no`` (``{"tables": [[names]], "byes": [...]}``),
    a pure function of the state and the seed.  Empty tables when fewer
    active players remain than the smallest table."""
    fmt = state["format"]
    low, high = state["table_size"]["min"], state["table_size"]["max"]
    seed = state["seed"]
    players = active_players(state)
    rng = random.Random(derive(seed, "round", round_no))
    equal = fmt == "duplicate"
    sizes = table_sizes(len(players), low, high, equal=equal)
    if not sizes:
        return {"tables": [], "byes": list(players)}
    table = standings(state)
    byes_so_far = {r["player"]: r["byes"] for r in table}
    met = meetings(state)
    active = set(players)
    standing = [r["player"] for r in table if r["player"] in active]
    if fmt == "swiss":
        order = standing
        if round_no == 1:
            order = list(players)
            rng.shuffle(order)
        byes = _pick_byes(players, len(players) - sum(sizes), byes_so_far, order, rng)
        seated = [p for p in order if p not in byes]
        rank = {p: i for i, p in enumerate(seated)} if round_no > 1 else None
        groups = _regroup(seated, sizes, met, rank, rng)
        return {"tables": groups, "byes": byes}
    # round robin and duplicate: the whole schedule of the registered players,
    # planned at once; withdrawn players leave their seats empty, and a round
    # whose tables fall out of the allowed sizes is seated again.
    plan = _schedule(tuple(state["players"]), low, high, state["rounds"], seed, equal)
    gone = set(state["withdrawn"])
    groups = byes = None
    if round_no <= len(plan):
        groups = [[p for p in tb if p not in gone] for tb in plan[round_no - 1]["tables"]]
        byes = [p for p in plan[round_no - 1]["byes"] if p not in gone]
        sizes_now = [len(tb) for tb in groups]
        fits = all(low <= s <= high for s in sizes_now) and (not equal or len(set(sizes_now)) == 1)
        if not fits or sorted(sizes_now, reverse=True) != sorted(sizes, reverse=True):
            groups = None
    if groups is None:
        byes = _pick_byes(players, len(players) - sum(sizes), byes_so_far, standing, rng)
        seated = [p for p in players if p not in byes]
        rng.shuffle(seated)
        groups = _regroup(seated, sizes, met, None, rng)
    if equal:
        seat_counts: dict[str, dict[int, int]] = {}
        for rnd in state["schedule"]:
            for tb in rnd["tables"]:
                for s, p in enumerate(tb["players"]):
                    counts = seat_counts.setdefault(p, {})
                    counts[s] = counts.get(s, 0) + 1
        groups = _balance_seats(groups, seat_counts, rng)
    return {"tables": groups, "byes": byes}


# ---------------------------------------------------------------- decide
def _check_create(c: dict) -> None:
    players = c.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) and p for p in players):
        raise TournamentError("invalid-players", "players must be a list of non-empty names")
    if len(set(players)) != len(players):
        raise TournamentError("duplicate-player", "each player may be registered once")
    if not 2 <= len(players) <= MAX_PLAYERS:
        raise TournamentError("player-count", f"a tournament takes 2 to {MAX_PLAYERS} players")
    if c.get("format") not in FORMATS:
        raise TournamentError("unknown-format", f"format must be one of {', '.join(FORMATS)}")
    low, high = c["table_size"]["min"], c["table_size"]["max"]
    if not (isinstance(low, int) and isinstance(high, int)) or low > high:
        raise TournamentError("table-size", "table_size.min must not exceed table_size.max")
    if c.get("game_min") is not None and (low < c["game_min"] or high > c["game_max"]):
        raise TournamentError(
            "table-size",
            f"this game seats {c['game_min']} to {c['game_max']} players at a table; table_size is {low} to {high}",
        )
    if len(players) < low:
        raise TournamentError("player-count", f"{len(players)} players cannot fill a table of {low}")
    rounds = c.get("rounds")
    if not isinstance(rounds, int) or not 1 <= rounds <= MAX_ROUNDS:
        raise TournamentError("rounds", f"rounds must be between 1 and {MAX_ROUNDS}")
    bots = c.get("bots") or {}
    strangers = sorted(set(bots) - set(players))
    if strangers:
        raise TournamentError("unknown-player", f"bots: '{strangers[0]}' is not a registered player")
    if any(kind not in BOT_KINDS for kind in bots.values()):
        raise TournamentError("invalid-players", f"bots: a bot is one of {', '.join(BOT_KINDS)}")
    if (c.get("options") or {}).get("bots"):
        raise TournamentError(
            "invalid-options", "a tournament names its bots by player (bots), not by seat (options.bots)"
        )


def decide(state: dict, command: dict) -> list[dict]:
    kind = command.get("type")
    if kind == "create":
        if state.get("created"):
            raise TournamentError("exists", "the tournament exists already", "conflict")
        _check_create(command)
        fmt = command["format"]
        created = _event(
            TOURNAMENT_CREATED,
            {
                "name": command.get("name") or "",
                "game": command["game"],
                "options": command.get("options") or {},
                "format": fmt,
                "rounds": command["rounds"],
                "table_size": {"min": command["table_size"]["min"], "max": command["table_size"]["max"]},
                "owner": command.get("owner"),
                "tie_breaks": TIE_BREAKS[fmt],
                "bots": dict(command.get("bots") or {}),
            },
            {"setup": {"seed": command["seed"]}},
        )
        return [created] + [_event(PLAYER_REGISTERED, {"player": p}) for p in command["players"]]
    if not state.get("created"):
        raise TournamentError("no-tournament", "there is no such tournament", "unknown")
    if kind == "withdraw":
        player = command.get("player")
        if player not in state["players"]:
            raise TournamentError("unknown-player", f"'{player}' is not registered in this tournament", "unknown")
        if state["finished"]:
            raise TournamentError("finished", "the tournament is over", "conflict")
        if player in state["withdrawn"]:
            raise TournamentError("already-withdrawn", f"'{player}' has withdrawn already", "conflict")
        return [_event(PLAYER_WITHDREW, {"player": player, "round": state["round"]})]
    if kind == "correct":
        return _correct(state, command)
    if state["finished"]:
        return []
    rnd = current_round(state)
    if kind == "pair":
        if rnd is not None and not round_complete(rnd):
            return []
        next_no = state["round"] + 1
        if next_no > state["rounds"]:
            return [_finished(state, "all rounds played")]
        pairing = pair_round(state, next_no)
        if not pairing["tables"]:
            return [_finished(state, "too few players left for a table")]
        private = None
        if state["format"] == "duplicate":
            private = {"deal_seeds": {str(next_no): deal_seed(state["seed"], next_no)}}
        return [
            _event(
                ROUND_PAIRED,
                {
                    "round": next_no,
                    "tables": [{"table": i, "players": tb} for i, tb in enumerate(pairing["tables"])],
                    "byes": pairing["byes"],
                },
                private,
            )
        ]
    if kind in ("start_table", "record"):
        r, i = command.get("round"), command.get("table")
        if rnd is None or r != rnd["round"] or not isinstance(i, int) or not 0 <= i < len(rnd["tables"]):
            raise TournamentError("unknown-table", f"round {r} has no table {i} in play", "unknown")
        tb = rnd["tables"][i]
        gid = command.get("game_id")
        if kind == "start_table":
            if tb["game_id"] is not None:
                if tb["game_id"] != gid:
                    raise TournamentError(
                        "table-started", f"table {i} of round {r} plays game {tb['game_id']}", "conflict"
                    )
                return []
            out = [_event(TABLE_STARTED, {"round": r, "table": i, "game_id": gid})]
            if all(t["game_id"] is not None for t in rnd["tables"] if t["table"] != i):
                games = [t["game_id"] if t["table"] != i else gid for t in rnd["tables"]]
                out.append(_event(ROUND_STARTED, {"round": r, "games": games}))
            return out
        if tb["game_id"] != gid:
            raise TournamentError("wrong-game", f"table {i} of round {r} does not play game {gid}", "conflict")
        if tb["result"] is not None:
            return []
        return [_event(TABLE_RESULT, _result(state, r, i, gid, tb, command["outcome"]))]
    raise TournamentError("unknown-command", f"unknown command '{kind}'")


def _result(state: dict, r: int, i: int, gid: str, tb: dict, outcome: dict) -> dict:
    scores = list(outcome.get("scores") or [])
    if len(scores) != len(tb["players"]):
        raise TournamentError("bad-outcome", "the outcome has not one score per seat")
    return {
        "round": r,
        "table": i,
        "game_id": gid,
        "scores": scores,
        "points": table_points(state["game"], state["options"], outcome),
        "winners": list(outcome.get("winners") or []),
        "ranking": list(outcome.get("ranking") or []),
        "void": bool(outcome.get("void")),
    }


def _correct(state: dict, command: dict) -> list[dict]:
    """A recorded table's game has a new outcome (a reviewer adjudicated it
    after the end): record it again, or nothing when it counts the same."""
    r, i, gid = command.get("round"), command.get("table"), command.get("game_id")
    sched = state["schedule"]
    if (
        not isinstance(r, int)
        or not 1 <= r <= len(sched)
        or not isinstance(i, int)
        or not 0 <= i < len(sched[r - 1]["tables"])
    ):
        raise TournamentError("unknown-table", f"round {r} has no table {i}", "unknown")
    tb = sched[r - 1]["tables"][i]
    if tb["game_id"] != gid:
        raise TournamentError("wrong-game", f"table {i} of round {r} does not play game {gid}", "conflict")
    if tb["result"] is None:
        raise TournamentError("no-result", f"table {i} of round {r} has no result to correct", "conflict")
    new = _result(state, r, i, gid, tb, command["outcome"])
    if all(new[k] == tb["result"].get(k) for k in ("scores", "points", "winners", "ranking", "void")):
        return []
    return [
        _event(
            TABLE_RESULT_CORRECTED,
            {**new, "previous_points": tb["result"]["points"], "game_version": command.get("game_version")},
        )
    ]


def _finished(state: dict, reason: str) -> dict:
    table = standings(state)
    return _event(
        TOURNAMENT_FINISHED,
        {
            "reason": reason,
            "standings": [
                {k: row[k] for k in ("rank", "player", "points", "wins", "games", "par", "opponents_points")}
                for row in table
            ],
        },
    )


# ---------------------------------------------------------------- shapes
def _obj(description: str, **properties: dict) -> dict:
    return {
        "type": "object",
        "description": description,
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


_NAME = {"type": "string", "minLength": 1, "description": "a registered player's name"}
_NAMES = {"type": "array", "items": _NAME}
_ROUND = {"type": "integer", "minimum": 0, "maximum": MAX_ROUNDS, "description": "a round number (1 is the first)"}
_TABLE = {"type": "integer", "minimum": 0, "description": "a table of the round (0 is the first)"}
_GAME_ID = {"type": "string", "description": "the table's game id (GET /games/{game_id})"}
_NUMBERS = {"type": "array", "items": {"type": "number"}}
_SEATS = {"type": "array", "items": {"type": "integer", "minimum": 0}}
_SEED = {"type": ["integer", "string"], "description": "a seed"}
_RESULT = {
    "round": _ROUND,
    "table": _TABLE,
    "game_id": _GAME_ID,
    "scores": {**_NUMBERS, "description": "the game's scores, per seat"},
    "points": {**_NUMBERS, "description": "what the standings count, per seat (0 for everyone when void)"},
    "winners": {**_SEATS, "description": "the game's winning seats"},
    "ranking": {**_SEATS, "description": "the game's seats, best first"},
    "void": {"type": "boolean", "description": "a reviewer voided the game: it counts for nobody"},
}
_STANDING = _obj(
    "a player's line of the standings",
    rank={"type": "integer", "minimum": 1, "description": "its place (1 is the first; tie-breaks make places differ)"},
    player=_NAME,
    points={"type": "number", "description": "the sum of its tables' points"},
    wins={"type": "integer", "minimum": 0, "description": "tables where it was among the game's winners"},
    games={"type": "integer", "minimum": 0, "description": "tables it played"},
    par={
        "type": "number",
        "description": "duplicate: its points minus the mean points of the players who held the same seat, with the "
        "same cards, at the round's other tables (in other formats the same by seat number, shown but not ranked by)",
    },
    opponents_points={"type": "number", "description": "the points of every opponent it sat with, once per table"},
)

# Each event type of a tournament's log: {"description", "data", "private"} (JSON Schema 2020-12; private
# None when the event keeps no secret), as a game's ``event_schemas`` give its events.
EVENT_SCHEMAS: dict[str, dict[str, Any]] = {
    TOURNAMENT_CREATED: {
        "description": "The tournament is set up",
        "data": _obj(
            "what it plays and how",
            name={"type": "string", "description": "its name (may be empty)"},
            game={"type": "string", "description": "the game type every table plays"},
            options={"type": "object", "description": "the options of every table's game"},
            format={"enum": list(FORMATS)},
            rounds={"type": "integer", "minimum": 1, "maximum": MAX_ROUNDS},
            table_size=_obj(
                "how many players a table seats",
                min={"type": "integer", "minimum": 1},
                max={"type": "integer", "minimum": 1},
            ),
            owner={"type": ["string", "null"], "description": "the id of the key that created it"},
            tie_breaks={
                "type": "array",
                "items": {"enum": sorted({t for ts in TIE_BREAKS.values() for t in ts})},
                "description": "what orders players of equal points, in order",
            },
            bots={
                "type": "object",
                "additionalProperties": {"enum": list(BOT_KINDS)},
                "description": "player -> the kind of bot that plays it",
            },
        ),
        "private": _obj(
            "the secret the pairings and the duplicate deals come from",
            setup=_obj("the tournament's seed", seed=_SEED),
        ),
    },
    PLAYER_REGISTERED: {
        "description": "A player is registered",
        "data": _obj("who", player=_NAME),
        "private": None,
    },
    ROUND_PAIRED: {
        "description": "A round's tables are drawn",
        "data": _obj(
            "the round's tables, and who sits it out",
            round=_ROUND,
            tables={
                "type": "array",
                "items": _obj("a table", table=_TABLE, players={**_NAMES, "description": "its players, in seat order"}),
            },
            byes={**_NAMES, "description": "the players who sit this round out"},
        ),
        "private": _obj(
            "duplicate: the round's deal, the same at every table",
            deal_seeds={"type": "object", "additionalProperties": _SEED, "description": "round -> seed"},
        ),
    },
    TABLE_STARTED: {
        "description": "A table's game is created",
        "data": _obj("which game a table plays", round=_ROUND, table=_TABLE, game_id=_GAME_ID),
        "private": None,
    },
    ROUND_STARTED: {
        "description": "Every table of a round has its game",
        "data": _obj(
            "the round's games", round=_ROUND, games={"type": "array", "items": _GAME_ID, "description": "by table"}
        ),
        "private": None,
    },
    TABLE_RESULT: {
        "description": "A table's game ended: its result is recorded",
        "data": _obj("the table's result", **_RESULT),
        "private": None,
    },
    TABLE_RESULT_CORRECTED: {
        "description": "A reviewer's ruling changed a recorded table's result: recorded again",
        "data": _obj(
            "the table's result as it is now",
            **_RESULT,
            previous_points={**_NUMBERS, "description": "the points recorded before, per seat"},
            game_version={"type": ["integer", "null"], "description": "the game's version that carries the ruling"},
        ),
        "private": None,
    },
    PLAYER_WITHDREW: {
        "description": "A player leaves the tournament: it is paired no more",
        "data": _obj("who, and when", player=_NAME, round=_ROUND),
        "private": None,
    },
    TOURNAMENT_FINISHED: {
        "description": "The tournament is over",
        "data": _obj(
            "why, and the final standings",
            reason={"type": "string", "description": "why it ended, in words"},
            standings={"type": "array", "items": _STANDING, "description": "best first"},
        ),
        "private": None,
    },
}
