"""El Gran Dalmuti bots: the sampler of hidden cards and the heuristic (seed 004, ``docs/rules/dalmuti.md``).

What a seat sees (``domain.dalmuti.view``): its own hand and transfers, every hand's size, the trick on the
table, the number of cards played this hand, the roles, the scores.  Which cards were played before the
current trick is not in the view, so ``determinize`` treats every card the seat has not seen (the deck less
its hand and the trick on the table) alike: it deals them at random to the other seats in the hand, with the
sizes the view shows; the rest are the cards already played.
"""

from __future__ import annotations

import random
from collections import Counter

from domain.dalmuti import JESTER, deck_for


def _unseen(view: dict) -> list[int]:
    order = view["order"]
    deck = Counter(deck_for(len(order), bool(view["options"].get("reduced_deck")))) if order else Counter()
    deck -= Counter(view.get("hand") or [])
    if view["trick"] is not None:
        deck -= Counter(view["trick"]["cards"])
    return sorted(deck.elements())


def determinize(view: dict, seat: int, rng: random.Random) -> dict:
    """A full Dalmuti state consistent with ``view`` (``view(state, seat) == view``)."""
    n = len(view["players"])
    sizes = view["hand_sizes"]
    pool = _unseen(view)
    rng.shuffle(pool)
    hands: list[list[int]] = [[] for _ in range(n)]
    k = 0
    for s in range(n):
        if s == seat:
            hands[s] = list(view["hand"])
        else:
            hands[s] = sorted(pool[k : k + sizes[s]])
            k += sizes[s]
    phase = view["phase"]
    order = view["order"]
    v1 = view["rules_version"] == "1"
    jesters_seat = None
    if phase == "revolution" and v1:
        jesters_seat = view["to_act"][0] if view["to_act"] else None
        if jesters_seat is not None and jesters_seat != seat:
            _give_jesters(hands, jesters_seat, seat, rng)
    tax_chosen: dict[str, list[int]] = {}
    if phase == "taxes":
        for s in view["pending"]["taxes_chosen"]:
            if s == seat:
                tax_chosen[str(s)] = list(view["tax"]["chosen"])
            else:  # the worst cards of the sampled hand: what a Dalmuti gives
                need = 2 if s == order[0] else 1
                tax_chosen[str(s)] = hands[s][-need:]
    answers: dict[str, bool] = {}
    if phase == "revolution" and not v1:
        for s in order:
            if s in view["pending"]["revolution"]:
                continue
            answers[str(s)] = bool(view.get("revolution_answer")) if s == seat else False
    trick = view["trick"]
    return {
        "game": view["game"],
        "rules": view["rules_version"],
        "players": list(view["players"]),
        "options": dict(view["options"]),
        "phase": phase,
        "hand_no": view["hand_no"],
        "hands_total": view["hands_total"],
        "order": list(order),
        "seating_draw": [[list(p) for p in rnd] for rnd in view["seating_draw"]],
        "hands": hands,
        "deck_size": view["deck_size"],
        "discards": view["discards"],
        "revolution": None if view["revolution"] is None else dict(view["revolution"]),
        "jesters_seat": jesters_seat,
        "revolution_pending": list(view["pending"]["revolution"]) if phase == "revolution" and not v1 else [],
        "revolution_answers": answers,
        "tax_pending": list(view["pending"]["taxes"]),
        "tax_chosen": tax_chosen,
        "exchange_seat": view["pending"]["exchange"],
        "exchange": None if view["exchange"] is None else dict(view["exchange"]),
        "transfers": {str(seat): [dict(t) for t in view["transfers"]]} if view.get("transfers") else {},
        "turn": view["turn"],
        "trick": None if trick is None else {**trick, "cards": list(trick["cards"])},
        "passes": view["passes"],
        "out_order": list(view["out_order"]),
        "hand_points": list(view["hand_points"]),
        "scores": list(view["scores"]),
        "newcomers": list(view["newcomers"]),
        "last_hand": None if view["last_hand"] is None else dict(view["last_hand"]),
        "outcome": view["outcome"],
    }


def _give_jesters(hands: list[list[int]], holder: int, seat: int, rng: random.Random) -> None:
    """Rules 1 names the holder of both jesters: move them to its sampled hand (swapping cards back)."""
    for _ in range(2):
        if hands[holder].count(JESTER) >= 2:
            return
        src = next((s for s in range(len(hands)) if s not in (holder, seat) and JESTER in hands[s]), None)
        if src is None:
            return
        swap = [c for c in hands[holder] if c != JESTER]
        give = swap[rng.randrange(len(swap))]
        hands[src].remove(JESTER)
        hands[holder].remove(give)
        hands[src] = sorted(hands[src] + [give])
        hands[holder] = sorted(hands[holder] + [JESTER])


# ------------------------------------------------------------------ the heuristic

CONTROL = 2  # ranks 1 and 2 (and the jesters) win tricks: kept for when they are needed


def _rank(move: dict) -> int:
    ranks = {c for c in move["cards"] if c != JESTER}
    return ranks.pop() if ranks else JESTER


def _jesters(move: dict) -> int:
    return move["cards"].count(JESTER)


def _sets(hand: list[int]) -> int:
    """How many plays the hand still needs (one per rank, jesters apart)."""
    return len({c for c in hand if c != JESTER}) + (1 if JESTER in hand and len(set(hand)) == 1 else 0)


def _play(view: dict, seat: int, moves: list[dict], rng: random.Random) -> dict:
    """Seed 004, LA ESTRATEGIA DE GUARDARSE CARTAS: "most of the time it pays to play your worst cards as
    soon as you can", but keep the best sets until they can win the lead back.  So: shed the weak sets
    first (the highest numbers, as many at once as the hand holds), keep the control cards (1s, 2s,
    jesters) until two sets or fewer are left or an opponent is about to go out; never break a set or
    spend a jester when a whole set will do."""
    hand = view["hand"]
    plays = [m for m in moves if m["type"] == "play"]
    passing = next((m for m in moves if m["type"] == "pass"), None)
    if not plays:
        return passing or moves[0]
    counts = Counter(hand)
    sets_left = _sets(hand)
    endgame = sets_left <= 2

    def cost(m: dict) -> tuple:
        rank, size, jest = _rank(m), len(m["cards"]), _jesters(m)
        breaks = rank != JESTER and size - jest < counts[rank]  # leaves cards of that rank behind
        control = rank <= CONTROL or rank == JESTER
        return (control and not endgame, jest, breaks, -rank, -size, rng.random())

    leading = view["trick"] is None
    if leading:
        # the worst rank, all its cards, no jester (unless the jesters are all that is left)
        return min(plays, key=cost)
    best = min(plays, key=cost)
    rank, jest = _rank(best), _jesters(best)
    control = rank <= CONTROL or rank == JESTER
    others_left = [s for s in view["order"] if s != seat and view["hand_sizes"][s]]
    threat = any(view["hand_sizes"][s] <= 2 for s in others_left)
    if passing is not None and not endgame and not threat and (control or jest):
        return passing  # keep the control cards and the jesters
    return best


def _taxes(view: dict, moves: list[dict], rng: random.Random) -> dict:
    """Seed 004, IMPUESTOS: the Dalmutis give their worst cards (never a jester or a control card when
    anything else will do)."""

    def cost(m: dict) -> tuple:
        return (sum(1 for c in m["cards"] if c == JESTER), -sum(m["cards"]), rng.random())

    return min(moves, key=cost)


def heuristic(view: dict, seat: int, moves: list[dict], rng: random.Random) -> dict:
    """A move from the seed's strategy (see ``_play`` and ``_taxes``); ties broken by ``rng``."""
    types = {m["type"] for m in moves}
    if "play" in types or "pass" in types:
        return _play(view, seat, moves, rng)
    if "give_taxes" in types:
        return _taxes(view, [m for m in moves if m["type"] == "give_taxes"], rng)
    if "declare_revolution" in types:
        # a revolution spares the Peons their taxes: declare from the lower half of the table
        order = view["order"]
        low = seat in order[len(order) // 2 :] if seat in order else False
        return {"type": "declare_revolution"} if low else {"type": "decline_revolution"}
    if "merchant_exchange" in types or "decline_exchange" in types:
        # a random card for a random card: worth it with a weak hand (high average rank)
        hand = [c for c in view["hand"] if c != JESTER]
        mean = sum(hand) / len(hand) if hand else 0
        swaps = [m for m in moves if m["type"] == "merchant_exchange"]
        if swaps and mean > 7.5:
            return swaps[rng.randrange(len(swaps))]
        return next((m for m in moves if m["type"] == "decline_exchange"), moves[0])
    return moves[rng.randrange(len(moves))]


__all__ = ["determinize", "heuristic"]
