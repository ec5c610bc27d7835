"""¡Muerte al rey! bots: the sampler of hidden cards and the heuristic (seed 001, ``docs/rules/muerte.md``).

What a seat sees (``domain.muerte.view``): every identity (so both teams), its own two cards and its own
exchanges, every hand's size, the cards lost (public), and every accusation's reveal.  ``determinize`` deals,
team by team, the cards of that team's deck the seat has not seen (the deck less the lost cards and, for its
own team, its hand) to the team's other players with the sizes the view shows.  Where the state holds a
hidden card that follows from a hand (the card offered in a pending exchange, a treason's received card),
it is taken from the sampled hand, so the sampled state is one the rules could have reached.
"""

from __future__ import annotations

import random

from domain.muerte import KINGS, TEAMS, number, team_deck


def _key(card: str) -> tuple[str, int]:
    return card[0], number(card)


def _team(view: dict, s: int) -> str:
    return view["teams"][s]


def determinize(view: dict, seat: int, rng: random.Random) -> dict:
    """A full Muerte state consistent with ``view`` (``view(state, seat) == view``)."""
    p = len(view["players"])
    n = p // 2
    started = bool(view["identity"])
    hands: list[list[str]] = [[] for _ in range(p)]
    if started:
        hands[seat] = list(view["hand"])
        # while identities are swapped between games the teams no longer match the hands' decks: the
        # hands (about to be dealt again) are then dealt from both decks at once
        groups = [list(range(p))] if view["phase"] == "swapping" else None
        for team in TEAMS if groups is None else ("both",):
            members = groups[0] if groups else [s for s in range(p) if _team(view, s) == team]
            decks = TEAMS if groups else (team,)
            pool = [c for t in decks for c in team_deck(t, n, view["options"]["deck"])]
            for s in members:
                for c in view["lost"][s]:
                    pool.remove(c)
                if s == seat:
                    for c in view["hand"]:
                        pool.remove(c)
            rng.shuffle(pool)
            kept = _kept_from_reveals(view, [s for s in members if s != seat], pool, rng)
            k = 0
            for s in members:
                if s == seat:
                    continue
                size = view["hand_sizes"][s] - len(kept[s])
                hands[s] = sorted(kept[s] + pool[k : k + size], key=_key)
                k += size
    tr = view["treason"]
    transfers: dict[str, list[dict]] = {}
    if view.get("transfers"):
        transfers[str(seat)] = [dict(t) for t in view["transfers"]]
    treason = None
    if tr is not None:
        chances = []
        for rec, giver in tr["chances"]:
            if rec == seat:
                card = view["transfers"][-1]["received"]
            elif giver == seat:
                card = view["transfers"][-1]["gave"]
            else:
                if view["options"].get("treason_prompt", "match") == "every":  # asked whatever it received
                    card = hands[rec][rng.randrange(len(hands[rec]))]
                else:
                    card = _identity_card(view, hands, rec, seat, rng)
                gave = _other_card(hands[rec], card, rng)
                transfers[str(rec)] = [{"with": giver, "gave": gave, "received": card}]
            chances.append([rec, giver, card])
        treason = {"pending": list(tr["pending"]), "chances": chances, "denounced": [list(d) for d in tr["denounced"]]}
    ex = view["exchange"]
    offer = None
    if ex is not None:
        if ex["seat"] == seat:
            offer = view["offer"]
        else:
            giver_hand = hands[ex["seat"]]
            offer = giver_hand[rng.randrange(len(giver_hand))] if giver_hand else None
    turn = view["turn"]
    order = view["order"]
    mode = view["options"]["identity_mode"]
    return {
        "game": view["game"],
        "players": list(view["players"]),
        "options": dict(view["options"]),
        "phase": view["phase"],
        "game_no": view["game_no"],
        "games_total": view["games_total"],
        "n": n,
        "identity": list(view["identity"]),
        "order": list(order),
        "hands": hands,
        "lost": [list(x) for x in view["lost"]],
        "eliminated": list(view["eliminated"]),
        "turn": turn,
        "pos": order.index(turn) if turn in order else 0,
        "round": view["round"],
        "accused": dict(view["accused_this_round"]),
        "exchange": None if ex is None else dict(ex),
        "offer": offer,
        "accusation": None if view["accusation"] is None else dict(view["accusation"]),
        "treason": treason,
        "transfers": transfers,
        "reveals": [dict(r, cards=list(r["cards"])) for r in view["reveals"]],
        "swap": None if view["swap"] is None else dict(view["swap"]),
        "assign": None
        if view["assign"] is None
        else {t: {**a, "given": dict(a["given"])} for t, a in view["assign"].items()},
        "teams_fixed": list(view["teams"]) if started and mode != "random" else None,
        "game_points": list(view["game_points"]),
        "scores": list(view["scores"]),
        "results": [dict(r) for r in view["results"]],
        "outcome": view["outcome"],
    }


ACCUSE_AT = 0.0  # accuse when the likeliest holder of the enemy king is at least this likely (always)
TRUST = (0.85, 0.5, 0.2)  # the chance a player still holds what its reveal showed, this full round, the last, older


def _kept_from_reveals(view: dict, seats: list[int], pool: list[str], rng: random.Random) -> dict[int, list[str]]:
    """The cards each of ``seats`` is taken to still hold from its last reveal in this game (taken out of
    ``pool``): players exchange one card at a time within their team, so what an accusation showed stays
    likely for a while, the more so the more recent (``TRUST``).  Any such deal is consistent with the view;
    this only weights the deals as a player reading the table would."""
    last: dict[int, dict] = {}
    for r in view["reveals"]:
        if r["game"] == view["game_no"]:
            last[r["target"]] = r
    kept: dict[int, list[str]] = {s: [] for s in seats}
    for s in seats:
        r = last.get(s)
        if r is None:
            continue
        age = view["round"] - r["round"]
        if rng.random() >= TRUST[min(age, len(TRUST) - 1)]:
            continue
        for c in r["cards"]:
            if c in pool and len(kept[s]) < view["hand_sizes"][s]:
                pool.remove(c)
                kept[s].append(c)
    return kept


def _identity_card(view: dict, hands: list[list[str]], rec: int, seat: int, rng: random.Random) -> str:
    """A treason chance says ``rec`` just received a card of its identity number: the card of that number
    in its team's deck, moved into its sampled hand if another sampled hand holds it."""
    want = number(view["identity"][rec])
    mine = [c for c in hands[rec] if number(c) == want]
    if mine:
        return mine[0]
    team = _team(view, rec)
    for s in range(len(hands)):
        if s in (rec, seat) or _team(view, s) != team:
            continue
        for c in hands[s]:
            if number(c) == want:
                give = hands[rec][rng.randrange(len(hands[rec]))]
                hands[s] = sorted([x for x in hands[s] if x != c] + [give], key=_key)
                hands[rec] = sorted([x for x in hands[rec] if x != give] + [c], key=_key)
                return c
    return hands[rec][0]  # the card is out of reach (held by the seat itself): the nearest consistent guess


def _other_card(hand: list[str], card: str, rng: random.Random) -> str:
    rest = [c for c in hand if c != card] or hand
    return rest[rng.randrange(len(rest))]


# ------------------------------------------------------------------ the heuristic


def king_odds(view: dict, seat: int) -> dict[int, float]:
    """For each active opponent, the chance that it holds the enemy king, from what was shown: each card
    of the enemy team not lost is equally likely the king, except that a player whose reveal showed no
    king is trusted to still hold none for as long as it may not have exchanged since (a reveal this full
    round counts for a lot, one of the round before for less, older ones hardly)."""
    team = view["teams"][seat]
    eliminated = set(view["eliminated"])
    enemies = [s for s in view["order"] if view["teams"][s] != team and s not in eliminated]
    weight = {s: float(view["hand_sizes"][s]) for s in enemies}
    for r in view["reveals"]:
        if r["game"] != view["game_no"] or r["target"] not in weight or r["king"]:
            continue
        age = view["round"] - r["round"]
        weight[r["target"]] *= 0.1 if age == 0 else 0.4 if age == 1 else 0.8
    total = sum(weight.values()) or 1.0
    return {s: w / total for s, w in weight.items()}


def _safe_cards(view: dict, hand: list[str], receiver: int | None) -> list[str]:
    """Cards that neither give away the own king nor (with treason) hand the receiver its identity number."""
    king = KINGS[view["teams"][view["seat"]]]
    out = [c for c in hand if c != king]
    if view["options"]["treason"] and receiver is not None:
        bad = number(view["identity"][receiver])
        out = [c for c in out if number(c) != bad] or out
    return out or list(hand)


def heuristic(view: dict, seat: int, moves: list[dict], rng: random.Random) -> dict:
    """Seed 001, 2.3: every accusation is a chance to end the game, and a miss costs only a card of one's
    choice: accuse on every turn the likeliest holder of the enemy king from what was shown (``king_odds``),
    except to hide the own king with a teammate the enemy has just seen clean (``_hide_king``).  Never give
    away or discard the own king, never hand a teammate its identity number under treason (3.1), denounce a
    treason (the discoverer scores +2)."""
    types = {m["type"] for m in moves}
    hand = view.get("hand") or []
    if "accuse" in types or "exchange" in types:
        accusations = [m for m in moves if m["type"] == "accuse"]
        exchanges = [m for m in moves if m["type"] == "exchange"]
        hide = _hide_king(view, seat, exchanges, rng)
        if hide is not None:
            return hide
        if accusations:
            odds = king_odds(view, seat)
            best = max(accusations, key=lambda m: (odds.get(m["target"], 0.0), rng.random()))
            if not exchanges or odds.get(best["target"], 0.0) >= ACCUSE_AT:
                return best
        safe = [m for m in exchanges if m["card"] in _safe_cards(view, hand, m["with"])] or exchanges or moves
        return safe[rng.randrange(len(safe))]
    if "give_back" in types or "discard" in types:
        receiver = view["exchange"]["seat"] if "give_back" in types and view["exchange"] else None
        safe = set(_safe_cards(view, hand, receiver))
        pick = [m for m in moves if m["card"] in safe] or moves
        return pick[rng.randrange(len(pick))]
    if "denounce" in types:
        return {"type": "denounce"}
    return moves[rng.randrange(len(moves))]


def _hide_king(view: dict, seat: int, exchanges: list[dict], rng: random.Random) -> dict | None:
    """Holding the own king and not yet shown this game, hand it to the teammate shown clean most recently
    (the enemy looks there last); None when there is no such move."""
    king = KINGS[view["teams"][seat]]
    if king not in view["hand"]:
        return None
    shown: dict[int, int] = {}
    for r in view["reveals"]:
        if r["game"] == view["game_no"]:
            shown[r["target"]] = r["round"]
    if seat in shown:
        return None
    giving = [m for m in exchanges if m["card"] == king and m["with"] in shown]
    if not giving:
        return None
    return max(giving, key=lambda m: (shown[m["with"]], rng.random()))


__all__ = ["determinize", "heuristic", "king_odds"]
