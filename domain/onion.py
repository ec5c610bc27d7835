"""Cripple Mr Onion (base game, no modifiers) as a decider (see ``domain.base``).

Cards are ints 0..103 (see ``domain.onion_hands``).  Money is in chips:
``sum(bankrolls) + pot`` never changes (every bet, raise, extra bet, bought
card and auction bid goes straight into the Pot).

A round: ``RoundStarted`` (ante + first five) -> ``draw`` -> betting round 1
(parts 1-3: ``bet_name`` -> ``bet_respond`` -> ``bet_dealer``?) ->
``DealerDealt`` -> ``buy``/``extra`` per player -> ``dealer_extra`` ->
(``offer`` ...) -> betting round 2 (parts 1-2) -> showdown.  A Dealer who folds
opens an ``auction``.  Readings are in ``docs/rules/onion.md``.
"""

from __future__ import annotations

from typing import Any

from domain import onion_hands as H
from domain.base import settle_options, check_player_count, Outbox, viewer_is_seat, REVIEWER, RuleViolation, event, int_field, int_list, require_seat, shuffled

GAME_ID = "onion"
TITLE = "Cripple Mr Onion"
RULES_VERSION = "1"
MIN_PLAYERS = 2
MAX_PLAYERS = 7

OPTIONS: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "rounds": {"type": "integer", "default": 10, "minimum": 1, "maximum": 500,
                   "description": "Rounds in the match (it ends sooner when fewer than two players can ante)."},
        "bankroll": {"type": "integer", "default": 50, "minimum": 1, "maximum": 100000,
                     "description": "Each player's starting bankroll, in Stakes."},
        "stake": {"type": "integer", "default": 10, "minimum": 1, "maximum": 1000000,
                  "description": "The Stake in chips: the ante, and the price of one bought card."},
        "max_raise": {"type": "integer", "default": 5, "minimum": 1, "maximum": 1000,
                      "description": "The largest bid, raise or extra bet, as a multiple of the Stake."},
    },
}

BETTING_PARTS = {1: 3, 2: 2}  # betting round -> number of parts
NO_RAISE_PARTS = {(1, 3)}


# --------------------------------------------------------------------- helpers


def _rotate(seating: list[int], dealer: int) -> list[int]:
    i = seating.index(dealer)
    return seating[i:] + seating[:i]


def _live(state: dict) -> list[int]:
    """Seats still in, in precedence order (Dealer, Elder, ..., Younger)."""
    ins = set(state["in_round"])
    return [s for s in state["order"] if s in ins]


def _after_dealer(state: dict) -> list[int]:
    """Seats still in from the Elder to the Younger."""
    return [s for s in _live(state) if s != state["order"][0]]


def _next_in(seq: list[int], seat: int) -> int | None:
    if seat not in seq:
        return None
    i = seq.index(seat)
    return seq[i + 1] if i + 1 < len(seq) else None


def _cap(state: dict) -> int:
    return state["options"]["max_raise"] * state["options"]["stake"]


def _amounts(stake: int, cap: int, lo: int = 0) -> list[int]:
    out = list(range(lo, cap + 1, stake)) if cap >= lo else []
    if cap >= lo and cap not in out:
        out.append(cap)
    return out


def _amount(command: dict, field: str, lo: int, hi: int, what: str) -> int:
    a = command.get(field, 0) if field == "raise" else command.get(field)
    if not isinstance(a, int) or isinstance(a, bool):
        raise RuleViolation("invalid-field", f"'{field}' must be an integer", "invalid")
    if a < 0:
        raise RuleViolation("invalid-field", f"'{field}' may not be negative", "invalid")
    if not lo <= a <= hi:
        raise RuleViolation(f"{what}-out-of-range", f"the {what} must be between {lo} and {hi} chips here")
    return a


def _Out(state: dict) -> Outbox:
    return Outbox(state, evolve)


# ----------------------------------------------------------------------- state


def initial_state(players: list[str], options: dict | None) -> dict:
    players = list(players)
    check_player_count(TITLE, len(players), MIN_PLAYERS, MAX_PLAYERS)
    opts = settle_options(OPTIONS, options)
    n = len(players)
    chips = opts["bankroll"] * opts["stake"]
    return {
        "game": GAME_ID,
        "players": players,
        "options": opts,
        "phase": "created",
        "round_no": 0,
        "bankrolls": [chips] * n,
        "pot": 0,
        "total": chips * n,
        "dealer": 0,
        "seating": [],  # seats dealt into this round, in seat order
        "order": [],  # precedence: Dealer, Elder, ..., Younger
        "in_round": [],  # seats not folded
        "hands": [[] for _ in range(n)],  # secret (face-up cards included)
        "up": [[] for _ in range(n)],  # face-up cards (public)
        "deck": [],  # secret
        "discards": 0,
        "turn": None,
        "betting": None,  # {"round", "part", "bet", "raises": {seat: chips}}
        "bought": 0,  # cards bought by the seat on turn (buy phase)
        "extra": {},  # seat -> extra bet
        "offer": None,  # {"from": original Dealer}
        "auction": None,  # {"active": [...], "bids": {seat: total}, "high", "leader"}
        "carry": False,  # the Pot carries over as the next ante
        "last_round": None,
        "outcome": None,
    }


def _ev_round_started(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    n = len(state["players"])
    st["round_no"] = d["round"]
    st["dealer"] = d["dealer"]
    st["seating"] = list(d["seating"])
    st["order"] = list(d["order"])
    st["in_round"] = list(d["seating"])
    st["bankrolls"] = list(d["bankrolls"])
    st["pot"] = d["pot"]
    priv = ev.get("private") or {}
    hands: list[list[int]] = [[] for _ in range(n)]
    for key, part in priv.items():
        if key != "deck":
            hands[int(key)] = list(part["hand"])
    st["hands"] = hands
    st["up"] = [[] for _ in range(n)]
    st["deck"] = list(priv["deck"]["deck"]) if "deck" in priv else []
    st["discards"] = 0
    st["phase"] = "draw"
    st["turn"] = d["turn"]
    st["betting"] = None
    st["bought"] = 0
    st["extra"] = {}
    st["offer"] = None
    st["auction"] = None
    st["carry"] = False
    return st


def _goto(st: dict, d: dict) -> None:
    to = d.get("to")
    if to:
        st["phase"] = to["phase"]
        st["turn"] = to["turn"]
        if "betting" in to:
            st["betting"] = to["betting"]


def _pay(st: dict, state: dict, seat: int, chips: int) -> None:
    if chips:
        b = list(state["bankrolls"] if st["bankrolls"] is state["bankrolls"] else st["bankrolls"])
        b[seat] -= chips
        st["bankrolls"] = b
        st["pot"] = st["pot"] + chips


def _ev_discarded(state: dict, ev: dict) -> dict:
    d = ev["data"]
    seat, k = d["seat"], d["count"]
    st = dict(state)
    part = (ev.get("private") or {}).get(str(seat)) or {}
    hands = list(state["hands"])
    h = [c for c in hands[seat] if c not in part.get("discarded", [])]
    st["deck"] = state["deck"][len(part.get("drawn", [])):] if not d["fold"] else state["deck"]
    hands[seat] = sorted(h + list(part.get("drawn", [])))
    st["hands"] = hands
    st["discards"] = state["discards"] + k
    if d["fold"]:
        st["in_round"] = [s for s in state["in_round"] if s != seat]
        hands[seat] = []
    _goto(st, d)
    return st


def _ev_folded(state: dict, ev: dict) -> dict:
    d = ev["data"]
    seat = d["seat"]
    st = dict(state)
    hands = list(state["hands"])
    st["discards"] = state["discards"] + len(hands[seat])
    hands[seat] = []
    st["hands"] = hands
    up = list(state["up"])
    up[seat] = []
    st["up"] = up
    st["in_round"] = [s for s in state["in_round"] if s != seat]
    _goto(st, d)
    return st


def _ev_paid(state: dict, ev: dict) -> dict:
    """BetNamed, Matched, RaiseMatched, ExtraBet, ExtraMatched: chips into the Pot."""
    d = ev["data"]
    st = dict(state)
    _pay(st, state, d["seat"], d["paid"])
    if ev["type"] == "BetNamed":
        st["betting"] = {**state["betting"], "bet": d["amount"], "raises": {}}
    elif ev["type"] == "Matched" and d.get("raise"):
        st["betting"] = {**state["betting"], "raises": {**state["betting"]["raises"], str(d["seat"]): d["raise"]}}
    elif ev["type"] == "ExtraBet":
        st["extra"] = {**state["extra"], str(d["seat"]): d["amount"]}
    _goto(st, d)
    return st


def _ev_dealer_dealt(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    seat = d["seat"]
    part = (ev.get("private") or {}).get(str(seat)) or {}
    hands = list(state["hands"])
    hands[seat] = sorted(hands[seat] + list(part.get("cards", [])))
    st["hands"] = hands
    st["deck"] = state["deck"][5:]
    st["bought"] = 0
    _goto(st, d)
    return st


def _ev_bought(state: dict, ev: dict) -> dict:
    d = ev["data"]
    seat, k = d["seat"], d["count"]
    st = dict(state)
    _pay(st, state, seat, d["paid"])
    part = (ev.get("private") or {}).get(str(seat)) or {}
    hands = list(state["hands"])
    hands[seat] = sorted(hands[seat] + list(part.get("cards", [])))
    st["hands"] = hands
    st["deck"] = state["deck"][k:]
    st["bought"] = state["bought"] + k
    _goto(st, d)
    return st


def _ev_stood(state: dict, ev: dict) -> dict:
    d = ev["data"]
    seat = d["seat"]
    st = dict(state)
    cards = list(d["up"])
    hands = list(state["hands"])
    hands[seat] = sorted(hands[seat] + cards)
    st["hands"] = hands
    up = list(state["up"])
    up[seat] = sorted(cards)
    st["up"] = up
    st["deck"] = state["deck"][len(cards):]
    st["bought"] = 0
    _goto(st, d)
    return st


def _ev_dealer_changed(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    _pay(st, state, d["dealer"], d["paid"])
    st["dealer"] = d["dealer"]
    st["order"] = list(d["order"])
    st["auction"] = None
    st["offer"] = None
    _goto(st, d)
    return st


def _ev_simple(state: dict, ev: dict) -> dict:
    """DealershipPassed, DealershipDeclined: only the turn moves."""
    d = ev["data"]
    st = dict(state)
    if ev["type"] == "DealershipPassed":
        st["offer"] = {"from": d["seat"]}
    _goto(st, d)
    return st


def _ev_auction_opened(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    st["auction"] = {"active": list(d["active"]), "bids": {}, "high": 0, "leader": None}
    _goto(st, d)
    return st


def _ev_bid(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    a = state["auction"]
    if ev["type"] == "Bid":
        _pay(st, state, d["seat"], d["paid"])
        st["auction"] = {**a, "bids": {**a["bids"], str(d["seat"]): d["amount"]}, "high": d["amount"],
                         "leader": d["seat"]}
    else:
        st["auction"] = {**a, "active": [s for s in a["active"] if s != d["seat"]]}
    _goto(st, d)
    return st


def _ev_round_ended(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    b = list(state["bankrolls"])
    if d["winner"] is not None:
        b[d["winner"]] += d["amount"]
        st["pot"] = state["pot"] - d["amount"]
        st["dealer"] = d["winner"]
    st["bankrolls"] = b
    st["carry"] = d["winner"] is None
    st["discards"] = state["discards"] + sum(len(h) for h in state["hands"])
    st["hands"] = [[] for _ in state["players"]]
    st["in_round"] = []
    st["phase"] = "between_rounds"
    st["turn"] = None
    st["betting"] = None
    st["auction"] = None
    st["offer"] = None
    st["last_round"] = d
    return st


def _ev_match_ended(state: dict, ev: dict) -> dict:
    st = dict(state)
    st["phase"] = "finished"
    st["outcome"] = ev["data"]
    return st


_EVOLVERS = {
    "RoundStarted": _ev_round_started,
    "Discarded": _ev_discarded,
    "Folded": _ev_folded,
    "BetNamed": _ev_paid,
    "Matched": _ev_paid,
    "RaiseMatched": _ev_paid,
    "ExtraBet": _ev_paid,
    "ExtraMatched": _ev_paid,
    "DealerDealt": _ev_dealer_dealt,
    "Bought": _ev_bought,
    "Stood": _ev_stood,
    "DealerChanged": _ev_dealer_changed,
    "DealershipPassed": _ev_simple,
    "DealershipDeclined": _ev_simple,
    "PartOpened": _ev_simple,
    "AuctionOpened": _ev_auction_opened,
    "Bid": _ev_bid,
    "BidDeclined": _ev_bid,
    "RoundEnded": _ev_round_ended,
    "MatchEnded": _ev_match_ended,
}


def evolve(state: dict, ev: dict) -> dict:
    fn = _EVOLVERS.get(ev["type"])
    if fn is None:
        raise ValueError(f"onion: unknown event type {ev['type']!r}")
    return fn(state, ev)


# ---------------------------------------------------------------- round flow


def _start_round(out: _Out, seed: int) -> None:
    st = out.state
    n = len(st["players"])
    stake = st["options"]["stake"]
    seating = [s for s in range(n) if st["bankrolls"][s] >= stake]
    dealer = st["dealer"]
    for k in range(n):  # a Dealer who cannot ante hands the Dealership to the left
        if (dealer + k) % n in seating:
            dealer = (dealer + k) % n
            break
    order = _rotate(seating, dealer)
    bankrolls = list(st["bankrolls"])
    pot = st["pot"]
    ante = 0 if st["carry"] else stake
    if ante:
        for s in seating:
            bankrolls[s] -= ante
            pot += ante
    deck = shuffled(list(range(H.DECK_SIZE)), seed)
    hands: dict[int, list[int]] = {s: [] for s in order}
    pos = 0
    for s in order:  # the Dealer two, the others three; the Dealer three, the others two
        k = 2 if s == order[0] else 3
        hands[s] += deck[pos:pos + k]
        pos += k
    for s in order:
        k = 3 if s == order[0] else 2
        hands[s] += deck[pos:pos + k]
        pos += k
    private: dict[Any, Any] = {s: {"hand": sorted(h)} for s, h in hands.items()}
    private["deck"] = {"deck": deck[pos:]}
    out.emit(event("RoundStarted", {
        "round": st["round_no"] + 1, "dealer": dealer, "seating": seating, "order": order,
        "ante": ante, "carried": bool(st["carry"]), "bankrolls": bankrolls, "pot": pot,
        "turn": order[1],
    }, private))


def _end_round(out: _Out, command: dict, winner: int | None, showdown: dict | None, reason: str) -> None:
    st = out.state
    out.emit(event("RoundEnded", {
        "round": st["round_no"], "winner": winner, "amount": st["pot"] if winner is not None else 0,
        "reason": reason, "showdown": showdown, "order": list(st["order"]),
    }))
    st = out.state
    stake = st["options"]["stake"]
    able = [s for s in range(len(st["players"])) if st["bankrolls"][s] >= stake]
    if st["round_no"] >= st["options"]["rounds"] or len(able) < 2:
        out.emit(event("MatchEnded", _compute_outcome(st)))
    else:
        _start_round(out, int_field(command, "seed"))


def _compute_outcome(st: dict) -> dict:
    b = st["bankrolls"]
    ranking = sorted(range(len(b)), key=lambda s: (-b[s], s))
    best = b[ranking[0]]
    return {"scores": list(b), "ranking": ranking, "winners": [s for s in ranking if b[s] == best],
            "rounds_played": st["round_no"], "pot_left": st["pot"]}


def _lone_winner(out: _Out, command: dict) -> bool:
    live = out.state["in_round"]
    if len(live) == 1:
        _end_round(out, command, live[0], None, "last-player-in")
        return True
    return False


def _open_part(st: dict, rnd: int, part: int) -> dict:
    return {"phase": "bet_name", "turn": st["order"][0],
            "betting": {"round": rnd, "part": part, "bet": None, "raises": {}}}


def _close_part(out: _Out, command: dict) -> None:
    """The current betting part is over: the next part, the second deal or the Showdown."""
    st = out.state
    b = st["betting"]
    rnd, part = b["round"], b["part"]
    if part < BETTING_PARTS[rnd]:
        out.emit(event("PartOpened", {"round": rnd, "part": part + 1, "to": _open_part(st, rnd, part + 1)}))
        return
    if rnd == 1:
        dealer = st["order"][0]
        buyers = _after_dealer(st)
        out.emit(event("DealerDealt", {"seat": dealer, "count": 5,
                                       "to": {"phase": "buy", "turn": buyers[0], "betting": None}},
                       {dealer: {"cards": sorted(st["deck"][:5])}}))
        return
    _showdown(out, command)


def _showdown(out: _Out, command: dict) -> None:
    st = out.state
    live = _live(st)
    result = {}
    best_seat, best_value = None, None
    for s in live:  # precedence order: a complete tie goes to the earlier seat
        arr = H.best_arrangement(st["hands"][s])
        result[str(s)] = {"cards": list(st["hands"][s]), **arr}
        if best_value is None or H.compare(arr["value"], best_value) > 0:
            best_seat, best_value = s, arr["value"]
    _end_round(out, command, best_seat, result, "showdown")


def _after_buyer(out: _Out, seat: int) -> dict:
    st = out.state
    nxt = _next_in(_after_dealer(st), seat)
    if nxt is not None:
        return {"phase": "buy", "turn": nxt}
    return {"phase": "dealer_extra", "turn": st["order"][0]}


# ---------------------------------------------------------------------- decide


def _d_start(state: dict, command: dict) -> list[dict]:
    if state["phase"] != "created":
        raise RuleViolation("already-started", "the game has already started", "turn")
    out = _Out(state)
    _start_round(out, int_field(command, "seed"))
    return out.events


def _acting(state: dict, command: dict, phases: tuple[str, ...]) -> int:
    seat = require_seat(command)
    if state["phase"] not in phases or seat != state["turn"]:
        raise RuleViolation("not-your-turn", f"it is not seat {seat}'s turn to make this move now", "turn")
    return seat


def _cards(command: dict, hand: list[int], max_len: int) -> list[int]:
    cards = int_list(command.get("cards"), "cards", min_len=0, max_len=max_len)
    if len(set(cards)) != len(cards):
        raise RuleViolation("invalid-card", "'cards' names a card twice", "invalid")
    for c in cards:
        if not 0 <= c < H.DECK_SIZE:
            raise RuleViolation("invalid-card", f"'cards' holds {c}: cards are 0..103", "invalid")
        if c not in hand:
            raise RuleViolation("cards-not-in-hand", "you may only discard cards you hold")
    return sorted(cards)


def _d_discard(state: dict, command: dict) -> list[dict]:
    seat = _acting(state, command, ("draw",))
    dealer = state["order"][0]
    hand = state["hands"][seat]
    fold = command["type"] == "fold"
    if fold:
        if seat == dealer:
            raise RuleViolation("dealer-cannot-fold-in-draw", "the Dealer discards and replaces; it does not fold in the draw")
        cards = list(hand)
    else:
        cards = _cards(command, hand, 5)
        if len(cards) > 4:
            raise RuleViolation("discard-at-most-four", "discard at most four cards, or fold by discarding all five")
    order = _after_dealer(state) + [dealer]
    nxt = _next_in(order, seat)
    to = {"phase": "draw", "turn": nxt} if nxt is not None else _open_part(state, 1, 1)
    drawn = [] if fold else state["deck"][:len(cards)]
    out = _Out(state)
    out.emit(event("Discarded", {"seat": seat, "count": len(cards), "fold": fold, "to": to},
                   {seat: {"discarded": cards, "drawn": sorted(drawn)}}))
    if fold:
        _lone_winner(out, command)
    return out.events


def _d_bet(state: dict, command: dict) -> list[dict]:
    seat = _acting(state, command, ("bet_name",))
    cap = min(_cap(state), state["bankrolls"][seat])
    amount = _amount(command, "amount", 0, cap, "bet")
    first = _after_dealer(state)[0]
    out = _Out(state)
    out.emit(event("BetNamed", {"seat": seat, "amount": amount, "paid": amount,
                                "to": {"phase": "bet_respond", "turn": first}}))
    return out.events


def _respond_to(state: dict, seat: int, raised: int) -> dict | None:
    live = _after_dealer(state)
    nxt = _next_in(live, seat)
    if nxt is not None:
        return {"phase": "bet_respond", "turn": nxt}
    raises = sum(state["betting"]["raises"].values()) + raised
    if raises:
        return {"phase": "bet_dealer", "turn": state["order"][0]}
    return None


def _d_respond(state: dict, command: dict) -> list[dict]:
    seat = _acting(state, command, ("bet_respond",))
    b = state["betting"]
    bet = b["bet"]
    out = _Out(state)
    if command["type"] == "fold":
        to = _respond_to(state, seat, 0)
        out.emit(event("Folded", {"seat": seat, "reason": "declined-bet", "to": to}))
        if not _lone_winner(out, command) and to is None:
            _close_part(out, command)
        return out.events
    if state["bankrolls"][seat] < bet:
        raise RuleViolation("cannot-cover", f"you cannot cover the bet of {bet}: you must fold")
    may_raise = (b["round"], b["part"]) not in NO_RAISE_PARTS
    hi = min(_cap(state), state["bankrolls"][seat] - bet) if may_raise else 0
    if command.get("raise", 0) and not may_raise:
        raise RuleViolation("no-raise-in-part-three", "no raising in the third part of the first betting round")
    raised = _amount(command, "raise", 0, hi, "raise")
    to = _respond_to(state, seat, raised)
    out.emit(event("Matched", {"seat": seat, "amount": bet, "raise": raised, "paid": bet + raised, "to": to}))
    if to is None:
        _close_part(out, command)
    return out.events


def _open_auction(out: _Out, command: dict) -> None:
    st = out.state
    active = _live(st)  # the old Dealer has folded: Elder to Younger still in
    out.emit(event("AuctionOpened", {"active": active, "to": {"phase": "auction", "turn": active[0]}}))


def _d_dealer_raise(state: dict, command: dict) -> list[dict]:
    seat = _acting(state, command, ("bet_dealer",))
    owed = sum(state["betting"]["raises"].values())
    out = _Out(state)
    if command["type"] == "fold":
        out.emit(event("Folded", {"seat": seat, "reason": "dealer-declined-raise"}))
        if not _lone_winner(out, command):
            _open_auction(out, command)
        return out.events
    if state["bankrolls"][seat] < owed:
        raise RuleViolation("cannot-cover", f"you cannot cover the collective raise of {owed}: you must fold")
    out.emit(event("RaiseMatched", {"seat": seat, "amount": owed, "paid": owed}))
    _close_part(out, command)
    return out.events


def _auction_next(active: list[int], seat: int, leader: int | None) -> int | None:
    """The next bidder after ``seat`` round the table (never ``seat`` itself nor the leader)."""
    i = active.index(seat)
    for k in range(1, len(active)):
        s = active[(i + k) % len(active)]
        if s != leader:
            return s
    return None


def _d_auction(state: dict, command: dict) -> list[dict]:
    seat = _acting(state, command, ("auction",))
    a = state["auction"]
    stake = state["options"]["stake"]
    out = _Out(state)
    bid = command["type"] == "bid"
    leader = seat if bid else a["leader"]
    nxt = _auction_next(a["active"], seat, leader)
    to = {"phase": "auction", "turn": nxt} if nxt is not None else None
    if bid:
        own = a["bids"].get(str(seat), 0)
        lo = a["high"] + stake
        if own + state["bankrolls"][seat] < lo:
            raise RuleViolation("cannot-cover", f"a bid must be at least {lo}: more than you can advance")
        amount = _amount(command, "amount", lo, own + state["bankrolls"][seat], "bid")
        out.emit(event("Bid", {"seat": seat, "amount": amount, "paid": amount - own, "to": to}))
    else:
        out.emit(event("BidDeclined", {"seat": seat, "bid": a["bids"].get(str(seat), 0), "to": to}))
    if to is not None:
        return out.events
    if leader is None:
        _end_round(out, command, None, None, "no-dealer")
        return out.events
    order = _rotate(state["seating"], leader)
    out.emit(event("DealerChanged", {"dealer": leader, "order": order, "how": "auction", "paid": 0}))
    if not _lone_winner(out, command):
        _close_part(out, command)
    return out.events


def _d_buy(state: dict, command: dict) -> list[dict]:
    seat = _acting(state, command, ("buy",))
    stake = state["options"]["stake"]
    left = 5 - state["bought"]
    out = _Out(state)
    if command["type"] == "buy":
        k = int_field(command, "count")
        if not 1 <= k <= left:
            raise RuleViolation("buy-at-most-five", f"you may buy 1 to {left} more card(s)")
        if state["bankrolls"][seat] < k * stake:
            raise RuleViolation("cannot-cover", f"{k} card(s) cost {k * stake}: more than you hold")
        to = {"phase": "buy", "turn": seat} if k < left else {"phase": "extra", "turn": seat}
        out.emit(event("Bought", {"seat": seat, "count": k, "paid": k * stake, "to": to},
                       {seat: {"cards": sorted(state["deck"][:k])}}))
        if k == left:
            out.emit(event("Stood", {"seat": seat, "up": [], "to": {"phase": "extra", "turn": seat}}))
        return out.events
    out.emit(event("Stood", {"seat": seat, "up": sorted(state["deck"][:left]),
                             "to": {"phase": "extra", "turn": seat}}))
    return out.events


def _d_extra(state: dict, command: dict) -> list[dict]:
    seat = _acting(state, command, ("extra",))
    amount = _amount(command, "amount", 0, min(_cap(state), state["bankrolls"][seat]), "extra bet")
    out = _Out(state)
    out.emit(event("ExtraBet", {"seat": seat, "amount": amount, "paid": amount, "to": _after_buyer(out, seat)}))
    return out.events


def _extra_owed(state: dict, seat: int) -> int:
    return sum(v for k, v in state["extra"].items() if int(k) != seat and int(k) in state["in_round"])


def _d_dealer_extra(state: dict, command: dict) -> list[dict]:
    seat = _acting(state, command, ("dealer_extra",))
    out = _Out(state)
    if command["type"] == "match_extra":
        owed = _extra_owed(state, seat)
        if state["bankrolls"][seat] < owed:
            raise RuleViolation("cannot-cover", f"you cannot cover the extra bets ({owed}): pass the Dealership")
        out.emit(event("ExtraMatched", {"seat": seat, "amount": owed, "paid": owed,
                                        "to": _open_part(state, 2, 1)}))
        return out.events
    elder = _after_dealer(state)[0]
    out.emit(event("DealershipPassed", {"seat": seat, "to": {"phase": "offer", "turn": elder}}))
    return out.events


def _d_offer(state: dict, command: dict) -> list[dict]:
    seat = _acting(state, command, ("offer",))
    out = _Out(state)
    if command["type"] == "accept_dealership":
        owed = _extra_owed(state, seat)
        if state["bankrolls"][seat] < owed:
            raise RuleViolation("cannot-cover", f"you cannot cover the others' extra bets ({owed})")
        order = _rotate(state["seating"], seat)
        st2 = dict(state, order=order)
        out.emit(event("DealerChanged", {"dealer": seat, "order": order, "how": "accepted", "paid": owed,
                                         "to": _open_part(st2, 2, 1)}))
        return out.events
    nxt = _next_in(_after_dealer(state), seat)
    if nxt is None:
        out.emit(event("DealershipDeclined", {"seat": seat}))
        _end_round(out, command, None, None, "dealership-refused")
    else:
        out.emit(event("DealershipDeclined", {"seat": seat, "to": {"phase": "offer", "turn": nxt}}))
    return out.events


_DECIDERS = {
    "start": _d_start,
    "discard": _d_discard,
    "bet": _d_bet,
    "match": None,
    "fold": None,
    "bid": _d_auction,
    "decline_bid": _d_auction,
    "buy": _d_buy,
    "stand": _d_buy,
    "extra_bet": _d_extra,
    "match_extra": _d_dealer_extra,
    "pass_dealership": _d_dealer_extra,
    "accept_dealership": _d_offer,
    "decline_dealership": _d_offer,
}


def decide(state: dict, command: dict) -> list[dict]:
    if not isinstance(command, dict):
        raise RuleViolation("invalid-command", "a command must be an object", "invalid")
    kind = command.get("type")
    if not isinstance(kind, str) or kind not in _DECIDERS:
        known = ", ".join(sorted(_DECIDERS))
        raise RuleViolation("unknown-move", f"unknown move type {kind!r} (known: {known})", "invalid")
    if state["phase"] == "finished" and kind != "start":
        raise RuleViolation("game-over", "the game is over", "turn")
    if kind in ("match", "fold"):
        phase = state["phase"]
        if phase == "draw" and kind == "fold":
            return _d_discard(state, command)
        if phase == "bet_dealer":
            return _d_dealer_raise(state, command)
        if phase == "bet_respond":
            return _d_respond(state, command)
        require_seat(command)
        raise RuleViolation("not-your-turn", f"there is nothing to {kind} now", "turn")
    fn = _DECIDERS[kind]
    return fn(state, command)


# --------------------------------------------------------------------- queries


def to_act(state: dict) -> list[int]:
    if state["phase"] in ("created", "between_rounds", "finished") or state["turn"] is None:
        return []
    return [state["turn"]]


def legal_moves(state: dict, seat: int) -> list[dict]:
    if not isinstance(seat, int) or isinstance(seat, bool) or seat not in to_act(state):
        return []
    phase = state["phase"]
    stake = state["options"]["stake"]
    money = state["bankrolls"][seat]
    cap = _cap(state)
    if phase == "draw":
        hand = state["hands"][seat]
        moves = [{"type": "discard", "cards": []}]
        moves += [{"type": "discard", "cards": [c]} for c in hand]
        moves.append({"type": "discard", "cards": hand[:2]})
        moves.append({"type": "discard", "cards": hand[:4]})
        if seat != state["order"][0]:
            moves.append({"type": "fold"})
        return moves
    if phase == "bet_name":
        return [{"type": "bet", "amount": a} for a in _amounts(stake, min(cap, money))]
    if phase == "bet_respond":
        b = state["betting"]
        moves = []
        if money >= b["bet"]:
            may_raise = (b["round"], b["part"]) not in NO_RAISE_PARTS
            hi = min(cap, money - b["bet"]) if may_raise else 0
            moves = [{"type": "match", "raise": r} for r in _amounts(stake, hi)]
        return moves + [{"type": "fold"}]
    if phase == "bet_dealer":
        owed = sum(state["betting"]["raises"].values())
        return ([{"type": "match"}] if money >= owed else []) + [{"type": "fold"}]
    if phase == "auction":
        a = state["auction"]
        own = a["bids"].get(str(seat), 0)
        lo = a["high"] + stake
        return ([{"type": "bid", "amount": lo}] if lo - own <= money else []) + [{"type": "decline_bid"}]
    if phase == "buy":
        left = 5 - state["bought"]
        return [{"type": "buy", "count": k} for k in range(1, left + 1) if k * stake <= money] + [{"type": "stand"}]
    if phase == "extra":
        return [{"type": "extra_bet", "amount": a} for a in _amounts(stake, min(cap, money))]
    if phase == "dealer_extra":
        ok = money >= _extra_owed(state, seat)
        return ([{"type": "match_extra"}] if ok else []) + [{"type": "pass_dealership"}]
    if phase == "offer":
        ok = money >= _extra_owed(state, seat)
        return ([{"type": "accept_dealership"}] if ok else []) + [{"type": "decline_dealership"}]
    return []


def timeout_move(state: dict, seat: int) -> dict:
    if not isinstance(seat, int) or isinstance(seat, bool) or seat not in to_act(state):
        raise RuleViolation("not-your-turn", f"seat {seat} has nothing to decide now", "turn")
    phase = state["phase"]
    if phase == "draw":
        return {"type": "discard", "cards": []}
    if phase == "bet_name":
        return {"type": "bet", "amount": 0}
    if phase == "bet_respond":
        return {"type": "match", "raise": 0} if state["betting"]["bet"] == 0 else {"type": "fold"}
    if phase == "bet_dealer":
        return {"type": "fold"}
    if phase == "auction":
        return {"type": "decline_bid"}
    if phase == "buy":
        return {"type": "stand"}
    if phase == "extra":
        return {"type": "extra_bet", "amount": 0}
    if phase == "dealer_extra":
        if _extra_owed(state, seat) == 0:
            return {"type": "match_extra"}
        return {"type": "pass_dealership"}
    return {"type": "decline_dealership"}


ROLE_NAMES = ("dealer", "elder", "younger")


def roles(state: dict) -> list[str | None]:
    out: list[str | None] = [None] * len(state["players"])
    order = state["order"]
    for i, s in enumerate(order):
        out[s] = "dealer" if i == 0 else "elder" if i == 1 else "younger" if i == len(order) - 1 else "player"
    return out


def view(state: dict, viewer: Any) -> dict:
    is_seat = viewer_is_seat(state, viewer)
    b = state["betting"]
    a = state["auction"]
    v: dict[str, Any] = {
        "game": GAME_ID,
        "rules_version": RULES_VERSION,
        "phase": state["phase"],
        "round_no": state["round_no"],
        "rounds_total": state["options"]["rounds"],
        "players": list(state["players"]),
        "options": dict(state["options"]),
        "bankrolls": list(state["bankrolls"]),
        "pot": state["pot"],
        "dealer": state["order"][0] if state["order"] else state["dealer"],
        "order": list(state["order"]),
        "roles": roles(state),
        "in_round": list(state["in_round"]),
        "hand_sizes": [len(h) for h in state["hands"]],
        "up": [list(u) for u in state["up"]],
        "deck_size": len(state["deck"]),
        "discards": state["discards"],
        "turn": state["turn"],
        "to_act": to_act(state),
        "betting": None if b is None else {**b, "raises": dict(b["raises"])},
        "bought": state["bought"] if state["phase"] == "buy" else 0,
        "extra": dict(state["extra"]),
        "offer": None if state["offer"] is None else dict(state["offer"]),
        "auction": None if a is None else {**a, "active": list(a["active"]), "bids": dict(a["bids"])},
        "carry": state["carry"],
        "last_round": state["last_round"],
        "outcome": outcome(state),
    }
    if is_seat:
        v["seat"] = viewer
        v["hand"] = list(state["hands"][viewer])
        v["legal_moves"] = legal_moves(state, viewer)
    elif viewer == REVIEWER:
        v["hands"] = [list(h) for h in state["hands"]]
        v["deck"] = list(state["deck"])
    return v


def outcome(state: dict) -> dict | None:
    if state["phase"] != "finished":
        return None
    return state["outcome"]
