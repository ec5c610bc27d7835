"""Cripple Mr Onion for the bots: a full state consistent with a seat's view, and the heuristic player.

A seat's view (``domain.onion.view``) shows its hand, every face-up card, with
the modifiers every disclosed card and the hands laid on the table at the
Showdown, the cards left on the table, the size of every hand and of the
deck, and the number of cards discarded.  The cards it has not seen are dealt
at random to the hidden places of the other hands and to the deck; the rest of
them are the discards (which the state keeps only as a count).  A replacement
offered to the seat (modifiers #4 and #5) stays on top of the deck.

Two parts of the modifier state are not in any view and are rebuilt as the
rules make them: where play resumes after a pending replacement or disclosure
(the declarer's turn, in the Showdown turn the Showdown has reached, or for the
Archchancellor the phase of the round its betting, auction, offer and hand
sizes show) and the queue of forced disclosures (#10ii: the seats from the
current one on, in precedence order from the Elder).

``heuristic`` follows seed 002 (``../shared/seeds/002_c6b7f4254666cdbe.txt``):
the hand's value (its best arrangement, ``domain.onion.hands``) decides the
draw (throw the cards no grouping uses), the bets, raises and extra bets (more
with a stronger hand, within what the seat holds), and whether to match, take
the Dealership or fold.
"""

from __future__ import annotations

import random

from domain.onion import hands as H
from domain.onion import initial_state

# the groupings a hand's top value is compared with (``domain.onion.hands.RANK``)
_THREE = H.RANK["three_card_onion"]
_FOUR = H.RANK["four_card_onion"]
_FIVE = H.RANK["five_card_onion"]
_SEVEN = H.RANK["seven_card_onion"]


def _known(view: dict, seat: int) -> list[list[int]]:
    """The cards of each other seat's hand that the seat has seen (face up, disclosed)."""
    n = len(view["players"])
    mods = view.get("modifiers")
    known = [list(view["up"][s]) for s in range(n)]
    if mods is not None:
        for s in range(n):
            known[s] = sorted(set(known[s]) | set(mods["disclosed"][s]))
    known[seat] = list(view["hand"])
    return known


def determinize(view: dict, seat: int, rng: random.Random) -> dict:
    """A full Cripple Mr Onion state consistent with ``view`` (``view(state, seat) == view``)."""
    n = len(view["players"])
    mods = view.get("modifiers")
    known = _known(view, seat)
    offer = list(mods.get("offer") or []) if mods is not None else []
    table = [c for t in (mods["on_table"] if mods is not None else []) for c in t]
    seen = {c for k in known for c in k} | set(offer) | set(table)
    pool = [c for c in range(H.DECK_SIZE) if c not in seen]
    rng.shuffle(pool)
    k = 0
    hands = []
    for s in range(n):
        if s == seat:
            hands.append(sorted(view["hand"]))
            continue
        hidden = view["hand_sizes"][s] - len(known[s])
        hands.append(sorted(known[s] + pool[k : k + hidden]))
        k += hidden
    deck = offer + pool[k : k + view["deck_size"] - len(offer)]
    st = initial_state(view["players"], view["options"])
    b = view["betting"]
    a = view["auction"]
    st.update(
        rules=view["rules_version"],
        phase=view["phase"],
        round_no=view["round_no"],
        bankrolls=list(view["bankrolls"]),
        pot=view["pot"],
        front=list(view["in_front"]),
        total=sum(view["bankrolls"]) + view["pot"] + sum(view["in_front"]),
        dealer=view["dealer"],
        seating=sorted(view["order"]),
        order=list(view["order"]),
        in_round=list(view["in_round"]),
        hands=hands,
        up=[list(u) for u in view["up"]],
        deck=deck,
        discards=view["discards"],
        turn=view["turn"],
        betting=None if b is None else {**b, "raises": dict(b["raises"])},
        bought=view["bought"],
        extra=dict(view["extra"]),
        offer=None if view["offer"] is None else dict(view["offer"]),
        auction=None if a is None else {**a, "active": list(a["active"]), "bids": dict(a["bids"])},
        carry=view["carry"],
        last_round=view["last_round"],
        outcome=view["outcome"],
    )
    if mods is not None:
        st["mods"] = _mods(view, mods, deck)
    return st


def _mods(view: dict, v: dict, deck: list[int]) -> dict:
    """The modifier state behind the view's ``modifiers``."""
    fate = v["fate"]
    sd = v["showdown"]
    m = {
        "wild": v["eights_wild"],
        "round_wild": v["round_began_wild"],
        "next_wild": v["next_round_wild"],
        "rewild": v["own_eights_wild_again"],
        "fate_stopped": fate["seat"] if fate and fate["mode"] == "stop" else None,
        "declared": {str(d["card"]): d["seat"] for d in v["declared"]},
        "lady": v["lady"],
        "fate": fate,
        "zeroed": list(v["zeroed_aces"]),
        "atuin": v["great_atuin"],
        "elephants": v["elephants"],
        "sender": v["sender"],
        "death": v["death"],
        "arch": v["archchancellor"],
        "jack_wild": v["jack_of_staves_wild"],
        "fool": v["fool"],
        "shown": [list(d) for d in v["disclosed"]],
        "table": [list(t) for t in v["on_table"]],
        "pending": None,
        "sd": None
        if sd is None
        else {
            "order": list(sd["order"]),
            "holder": sd["holder"],
            "challenger": sd["challenger"],
            "leader": sd["leader"],
            "crippler": sd["crippler"],
            "shown": list(sd["shown"]),
            "results": dict(sd["arrangements"]),
            "duels": list(sd["duels"]),
        },
        "notes": list(v["notes"]),
    }
    pend = v["pending"]
    if pend is not None:
        m["pending"] = _pending(view, v, pend, deck)
    return m


def _pending(view: dict, v: dict, pend: dict, deck: list[int]) -> dict:
    sd = v["showdown"]
    arch = (v["archchancellor"] or {}).get("seat")
    if sd is None:
        phase = _base_phase(view, arch if arch is not None else pend["seat"])
    elif not sd["shown"]:
        phase = "predeclare"
    else:
        phase = "showdown" if sd["challenger"] is None else "answer"
    if pend["kind"] == "choose":
        mine = [int(d["card"]) for d in v["declared"] if d["seat"] == pend["seat"] and d["card"] in (H.LADY, H.FATE)]
        card = mine[-1] if mine else H.LADY
        return {**pend, "card": card, "offer": list(deck[:2]), "resume": {"phase": phase, "turn": pend["seat"]}}
    death = (v["death"] or {}).get("seat")
    order = view["order"]
    ring = [s for s in order[1:] + order[:1] if s in view["in_round"] and s not in (arch, death)]
    queue = ring[ring.index(pend["seat"]) :] if pend["seat"] in ring else [pend["seat"]]
    return {**pend, "queue": queue, "resume": {"phase": phase, "turn": arch if arch is not None else pend["seat"]}}


def _base_phase(view: dict, seat: int) -> str:
    """The phase of the round in which ``seat`` declared (the Archchancellor, on any own turn), read
    from what the view shows of the round: the auction, the offer, the betting and the hand sizes."""
    b = view["betting"]
    dealer = view["order"][0] if view["order"] else view["dealer"]
    if view["auction"] is not None:
        return "auction"
    if view["offer"] is not None:
        return "offer"
    if b is None:
        return "draw"
    if b["round"] == 1 and view["hand_sizes"][seat] > 5:
        if seat == dealer:
            return "dealer_extra"
        return "buy" if view["hand_sizes"][seat] < 10 else "extra"
    if b["bet"] is None:
        return "bet_name"
    return "bet_dealer" if seat == dealer else "bet_respond"


# ------------------------------------------------------------------ the heuristic


def strength(cards: list[int]) -> tuple[int, int]:
    """A hand's worth for the heuristic: the rank of its best grouping, and how many groupings it has."""
    value = H.best_arrangement(cards)["value"] if cards else []
    return (value[0] if value else 0, len(value))


def _pick(options: list, score, rng: random.Random):
    scored = [(score(o), i) for i, o in enumerate(options)]
    top = max(s for s, _ in scored)
    return options[rng.choice([i for s, i in scored if s == top])]


def _tier(view: dict) -> int:
    """0 weak, 1 fair, 2 good, 3 strong, judged against what a hand of its size usually holds."""
    hand = view["hand"]
    top = strength(hand)[0]
    bars = (H.RANK["two_card_onion"], _THREE, _FOUR) if len(hand) <= 5 else (_THREE, _FIVE, _SEVEN)
    return sum(1 for bar in bars if top >= bar)


def _amount(moves: list[dict], field: str, tier: int, rng: random.Random) -> dict:
    """The smallest amount for a weak hand, a middle one for a fair or good hand, the largest for a strong one."""
    amounts = sorted({m[field] for m in moves})
    at = {0: 0, 1: 0, 2: len(amounts) // 2, 3: len(amounts) - 1}[tier]
    want = amounts[at]
    return _pick([m for m in moves if m[field] == want], lambda m: 0, rng)


def _discard(view: dict, moves: list[dict], rng: random.Random) -> dict:
    """Keep the best arrangement; throw as many cards as it leaves idle (they are replaced from the deck)."""
    hand = view["hand"]

    def score(m: dict) -> tuple:
        if m["type"] == "fold":
            return ([-1], 0)
        kept = [c for c in hand if c not in m["cards"]]
        return (H.best_arrangement(kept)["value"] if kept else [], len(m["cards"]))

    return _pick(moves, score, rng)


def heuristic(view: dict, seat: int, moves: list[dict], rng: random.Random) -> dict:
    """A move by seed 002's strategy (see the module's docstring); ties broken by ``rng``."""
    phase = view["phase"]
    if phase not in ("answer", "predeclare", "showdown"):  # the Archchancellor's declaration is left unused
        moves = [m for m in moves if m["type"] != "declare"] or moves
    types = {m["type"] for m in moves}
    tier = _tier(view)

    def first(kind: str) -> dict | None:
        found = [m for m in moves if m["type"] == kind]
        return _pick(found, lambda m: 0, rng) if found else None

    if phase == "draw":
        return _discard(view, [m for m in moves if m["type"] in ("discard", "fold")], rng)
    if phase == "bet_name":
        return _amount(moves, "amount", tier, rng)
    if phase == "bet_respond":
        matches = [m for m in moves if m["type"] == "match"]
        bet = view["betting"]["bet"]
        if matches and (bet == 0 or tier >= 1 or bet <= view["options"]["stake"] and view["pot"] >= 4 * bet):
            return _amount(matches, "raise", tier if tier >= 2 else 0, rng)
        return first("fold") or moves[0]
    if phase == "bet_dealer":
        owed = sum(view["betting"]["raises"].values())
        if "match" in types and (tier >= 1 or owed * 3 <= view["pot"]):
            return first("match")
        return first("fold") or moves[0]
    if phase == "auction":
        return first("bid") if "bid" in types and tier >= 2 else (first("decline_bid") or moves[0])
    if phase == "buy":  # the cards come either way; a strong hand buys one to keep its strength out of sight
        if "buy" in types and tier >= 3 and view["bought"] == 0:
            return next(m for m in moves if m["type"] == "buy" and m["count"] == 1)
        return first("stand") or moves[0]
    if phase == "extra":
        return _amount(moves, "amount", tier, rng)
    if phase == "dealer_extra":
        if "match_extra" in types and (tier >= 1 or sum(view["extra"].values()) * 3 <= view["pot"]):
            return first("match_extra")
        return first("pass_dealership") or moves[0]
    if phase == "offer":
        return first("accept_dealership") if "accept_dealership" in types and tier >= 2 else first("decline_dealership")
    if phase == "choose":  # keep the replacement that makes the better hand
        hand = view["hand"]
        return _pick(moves, lambda m: H.best_arrangement(hand + [m["card"]])["value"], rng)
    if phase == "reveal":  # show the card that tells the least: the lowest
        return _pick(moves, lambda m: -H.value_of(m["card"]), rng)
    if phase == "answer":  # a declaration may turn the duel; else concede
        declares = [m for m in moves if m["type"] == "declare"]
        return _pick(declares, lambda m: 0, rng) if declares else first("concede")
    for kind in ("ready", "show"):
        if kind in types:
            return first(kind)
    return _pick(moves, lambda m: 0, rng)
