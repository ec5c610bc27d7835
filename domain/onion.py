"""Cripple Mr Onion (base game and the optional modifiers #0-#11) as a decider (see ``domain.base``).

Cards are ints 0..103 (see ``domain.onion_hands``).  Money is in chips:
``sum(bankrolls) + pot + sum(front)`` never changes.  Every bet, raise, bought
card and auction bid goes straight into the Pot; since rules version 3 an
extra bet lies in front of its player (``front``) until the Dealer or a new
Dealer matches the extra bets, and goes back to its player when nobody does
(under rules 1 and 2 it went straight into the Pot).

A round: ``RoundStarted`` (ante + first five) -> ``draw`` -> betting round 1
(parts 1-3: ``bet_name`` -> ``bet_respond`` -> ``bet_dealer``?) ->
``DealerDealt`` -> ``buy``/``extra`` per player -> ``dealer_extra`` ->
(``offer`` ...) -> betting round 2 (parts 1-2) -> showdown.  A Dealer who folds
(facing a collective raise or, since rules version 3, unmatched extra bets)
opens an ``auction``.  Readings are in ``docs/rules/onion.md``.  With any
modifier switched on the Showdown becomes a sequence of duels with
declarations (see the "modifiers" section at the end of this module).
"""

from __future__ import annotations

from typing import Any

from domain import onion_hands as H
from domain.base import committed, match_ended, seat_parts, settle_options, check_player_count, Outbox, viewer_is_seat, REVIEWER, RuleViolation, event, int_field, int_list, require_seat, shuffled

GAME_ID = "onion"
TITLE = "Cripple Mr Onion"
RULES_VERSION = "3"
# rules versions whose logs this module folds exactly as they were played
FOLDS_RULES = ("1", "2")
# the rules version of a state that records none: states folded before the
# version was recorded in the state, which were all of version 1 or 2
_UNRECORDED_RULES = "2"
# events after which the deal in play is over and its commitment is revealed
HAND_OVER_EVENTS = ("RoundEnded", "MatchEnded")
MIN_PLAYERS = 2
MAX_PLAYERS = 7

# the optional modifiers of seed 002 (#0..#11), in order; see docs/rules/onion.md
MODIFIERS = (
    ("crippling", "#0 Crippling: a nine-card running flush cripples a Great Onion and wins; a ten-card one "
                  "out-cripples it and may also cripple a Lesser Onion."),
    ("null_eights", "#1 Null eights: while eights are not wild an eight may count zero to lengthen an onion "
                    "(fewer null eights wins a tie); the round after one is played, eights are wild."),
    ("wild_crippling", "#2 Wild crippling: with wild eights a running flush cripples only an Onion holding at "
                       "least as many wild cards."),
    ("octavo", "#3 Octavo: with wild eights, eight eights are a Lesser Onion above all others, never crippled."),
    ("lady", "#4 The Lady (queen of spades): declared and replaced by one of the next two cards; with wild "
             "eights it devalues one eleven of every other hand."),
    ("fate", "#5 Fate (king of cups): after the Lady, declared and replaced, zeroing the aces of the Lady's "
             "player; with wild eights it stops eights being wild."),
    ("great_atuin", "#6 Great A'Tuin (queen of coins): declared to move eight points from one card to another."),
    ("elephants", "#7 The Elephants: four nines, tens or wild eights declared with the queen of coins make a "
                  "Double Onion (below any other Double Onion)."),
    ("sender_of_eights", "#8 The Sender of Eights (jack of diamonds): when visible, whoever plays eights loses "
                         "its aces; with wild eights it is declared when dealt and zeroes all aces."),
    ("death", "#9 Death (king of swords): when visible, one picture of every hand with two or more takes no "
              "part in a Double (with wild eights also Triple) Onion."),
    ("archchancellor", "#10 The Archchancellor (jack of staves): who plays it plays no eight as eight; declared, "
                       "it brings out Death and a card from everyone, or turns wild."),
    ("fool", "#11 The Fool (jack of clubs): declared just before Showdown, bagels and Onions swap places."),
)

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
        **{name: {"type": "boolean", "default": False, "description": text} for name, text in MODIFIERS},
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
    return _Box(state, evolve)


def _rules(state: dict) -> str:
    """The rules version the game started under (recorded from its events)."""
    return state.get("rules", _UNRECORDED_RULES)


def _bets_in_front(state: dict) -> bool:
    """Rules 3 on: extra bets lie in front of their players until matched, and
    a Dealer facing unmatched extra bets may fold."""
    return _rules(state) not in ("1", "2")


def _front(state: dict) -> list[int]:
    """Chips lying in front of each seat: its extra bet, not yet matched."""
    return state.get("front") or [0] * len(state["players"])


# ----------------------------------------------------------------------- state


def initial_state(players: list[str], options: dict | None) -> dict:
    players = list(players)
    check_player_count(TITLE, len(players), MIN_PLAYERS, MAX_PLAYERS)
    opts = settle_options(OPTIONS, options)
    n = len(players)
    chips = opts["bankroll"] * opts["stake"]
    return {
        "game": GAME_ID,
        "rules": RULES_VERSION,  # the version the game started under: set again from its events
        "players": players,
        "options": opts,
        "phase": "created",
        "round_no": 0,
        "bankrolls": [chips] * n,
        "pot": 0,
        "front": [0] * n,  # unmatched extra bets lying in front of each seat (rules 3 on)
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
        "mods": _mods_init(opts),  # None unless a modifier is switched on
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
    for seat, part in seat_parts(priv):
        hands[seat] = list(part["hand"])
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


def _to_front(st: dict, seat: int, chips: int) -> None:
    """An extra bet leaves the bankroll and lies in front of its player."""
    b = list(st["bankrolls"])
    b[seat] -= chips
    st["bankrolls"] = b
    front = list(_front(st))
    front[seat] += chips
    st["front"] = front


def _pool(st: dict, pooled: dict | None) -> None:
    """The extra bets named in ``pooled`` (str(seat) -> chips) go from in front of their players into the Pot."""
    if not pooled:
        return
    front = list(_front(st))
    for seat, chips in pooled.items():
        front[int(seat)] -= chips
        st["pot"] = st["pot"] + chips
    st["front"] = front


def _ev_paid(state: dict, ev: dict) -> dict:
    """BetNamed, Matched, RaiseMatched, ExtraBet, ExtraMatched: chips into the Pot
    (an extra bet with ``front``: in front of its player; ``pooled``: the extra bets
    in front of the players go into the Pot)."""
    d = ev["data"]
    st = dict(state)
    _pay(st, state, d["seat"], d["paid"])
    if d.get("front"):
        _to_front(st, d["seat"], d["front"])
    _pool(st, d.get("pooled"))
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
    _pool(st, d.get("pooled"))
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
    st["auction"] = {"active": list(d["active"]), "bids": {}, "high": 0, "leader": None,
                     **({"after": d["after"]} if "after" in d else {})}
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
    if "returned" in d:  # unmatched extra bets go back to their players
        for seat, chips in d["returned"].items():
            b[int(seat)] += chips
        st["front"] = [0] * len(state["players"])
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
    "MatchEnded": match_ended,
}


def evolve(state: dict, ev: dict) -> dict:
    fn = _EVOLVERS.get(ev["type"])
    if fn is None:
        raise ValueError(f"onion: unknown event type {ev['type']!r}")
    st = fn(state, ev)
    rules = ev.get("rules")  # an envelope names the rules version of its game
    if rules is not None and st.get("rules") != rules:
        st = {**st, "rules": rules}
    if st.get("mods") is not None and ev["type"] in _MOD_AFTER:
        st = _MOD_AFTER[ev["type"]](st, ev)
    return st


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
    out.emit(committed(event("RoundStarted", {
        "round": st["round_no"] + 1, "dealer": dealer, "seating": seating, "order": order,
        "ante": ante, "carried": bool(st["carry"]), "bankrolls": bankrolls, "pot": pot,
        "turn": order[1],
    }, private), deck, seed))


def _end_round(out: _Out, command: dict, winner: int | None, showdown: dict | None, reason: str) -> None:
    st = out.state
    returned = {}
    if _bets_in_front(st):  # extra bets nobody matched go back to their players
        returned = {"returned": {str(s): c for s, c in enumerate(_front(st)) if c}}
    out.emit(event("RoundEnded", {
        "round": st["round_no"], "winner": winner, "amount": st["pot"] if winner is not None else 0,
        "reason": reason, "showdown": showdown, "order": list(st["order"]), **returned,
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
    if st.get("mods") is not None:
        _mod_showdown(out, command)
        return
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


def _open_auction(out: _Out, command: dict, after: str | None = None) -> None:
    """``after``: "extra_bets" when the Dealer folded facing unmatched extra bets
    (the new Dealer then faces them in turn)."""
    st = out.state
    active = _live(st)  # the old Dealer has folded: Elder to Younger still in
    out.emit(event("AuctionOpened", {"active": active, "to": {"phase": "auction", "turn": active[0]},
                                     **({"after": after} if after else {})}))


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
    if a.get("after") == "extra_bets":  # the new Dealer faces the extra bets the old one refused
        out.emit(event("DealerChanged", {"dealer": leader, "order": order, "how": "auction", "paid": 0,
                                         "to": {"phase": "dealer_extra", "turn": leader}}))
        return out.events
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
    if _bets_in_front(state):  # on the table in front of the player until matched
        out.emit(event("ExtraBet", {"seat": seat, "amount": amount, "paid": 0, "front": amount,
                                    "to": _after_buyer(out, seat)}))
        return out.events
    out.emit(event("ExtraBet", {"seat": seat, "amount": amount, "paid": amount, "to": _after_buyer(out, seat)}))
    return out.events


def _extra_owed(state: dict, seat: int) -> int:
    return sum(v for k, v in state["extra"].items() if int(k) != seat and int(k) in state["in_round"])


def _pooled(state: dict) -> dict:
    """Rules 3 on: the extra bets lying in front of the players, all of which go into
    the Pot when the extra bets are matched ({} under rules 1 and 2)."""
    if not _bets_in_front(state):
        return {}
    chips = {str(s): c for s, c in enumerate(_front(state)) if c}
    return {"pooled": chips} if chips else {}


def _dealer_may_fold_extra(state: dict, seat: int) -> bool:
    """Rules 3 on: a Dealer facing extra bets (totalling more than 0) may fold instead of
    matching them or giving the Dealership away."""
    return _bets_in_front(state) and _extra_owed(state, seat) > 0


def _d_dealer_extra(state: dict, command: dict) -> list[dict]:
    seat = _acting(state, command, ("dealer_extra",))
    out = _Out(state)
    if command["type"] == "match_extra":
        owed = _extra_owed(state, seat)
        if state["bankrolls"][seat] < owed:
            raise RuleViolation("cannot-cover", f"you cannot cover the extra bets ({owed}): pass the Dealership")
        out.emit(event("ExtraMatched", {"seat": seat, "amount": owed, "paid": owed, **_pooled(state),
                                        "to": _open_part(state, 2, 1)}))
        return out.events
    if command["type"] == "fold":
        if not _dealer_may_fold_extra(state, seat):
            raise RuleViolation("nothing-to-fold-to", "the extra bets total 0: match them (it costs nothing) "
                                "or pass the Dealership")
        out.emit(event("Folded", {"seat": seat, "reason": "dealer-declined-extra"}))
        if not _lone_winner(out, command):
            _open_auction(out, command, "extra_bets")
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
                                         **_pooled(state), "to": _open_part(st2, 2, 1)}))
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
        if phase == "dealer_extra" and kind == "fold" and _bets_in_front(state):
            return _d_dealer_extra(state, command)
        require_seat(command)
        raise RuleViolation("not-your-turn", f"there is nothing to {kind} now", "turn")
    fn = _DECIDERS[kind]
    return fn(state, command)


# --------------------------------------------------------------------- queries


def to_act(state: dict) -> list[int]:
    if state["phase"] in ("created", "between_rounds", "finished") or state["turn"] is None:
        return []
    return [state["turn"]]


def _base_legal_moves(state: dict, seat: int) -> list[dict]:
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
        if a is None:  # between two events of one move (a replay may stop there): nobody bids
            return []
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
        fold = [{"type": "fold"}] if _dealer_may_fold_extra(state, seat) else []
        return ([{"type": "match_extra"}] if ok else []) + [{"type": "pass_dealership"}] + fold
    if phase == "offer":
        ok = money >= _extra_owed(state, seat)
        return ([{"type": "accept_dealership"}] if ok else []) + [{"type": "decline_dealership"}]
    return []


def _base_timeout_move(state: dict, seat: int) -> dict:
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


def _base_view(state: dict, viewer: Any) -> dict:
    is_seat = viewer_is_seat(state, viewer)
    b = state["betting"]
    a = state["auction"]
    v: dict[str, Any] = {
        "game": GAME_ID,
        "rules_version": _rules(state),
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
        "in_front": list(_front(state)),
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


# =================================================================== modifiers
#
# The twelve optional modifiers of seed 002 (#0..#11).  When any is switched on
# ``state["mods"]`` holds the round's modifier state and the Showdown is played
# as the seed tells it: after a round of declarations just before Showdown
# (``predeclare``), the Elder's hand is shown; then each next player
# (``showdown``) may declare modifiers and ``show``s; the hands are compared and
# the losing side may ``answer`` with a modifier (the comparison is made again)
# or ``concede``; the winner holds the table against the next player, round to
# the Dealer.  Declarations are ``declare`` moves; a replacement card is chosen
# with ``choose`` and the Archchancellor's forced disclosures are ``reveal``s.
# Readings are in docs/rules/onion.md.

INTERACTIVE = ("lady", "fate", "great_atuin", "elephants", "sender_of_eights", "death", "archchancellor", "fool")
_SD_PHASES = ("predeclare", "showdown", "answer")
_MOD_PHASES = _SD_PHASES + ("choose", "reveal")
_NAMES = {H.LADY: "the Lady", H.FATE: "Fate", H.ATUIN: "Great A'Tuin", H.SENDER: "the Sender of Eights",
          H.DEATH: "Death", H.ARCH: "the Archchancellor", H.FOOL: "the Fool"}
_DECL_CARD = {"lady": H.LADY, "fate": H.FATE, "atuin": H.ATUIN, "elephants": H.ATUIN, "sender": H.SENDER,
              "death": H.DEATH, "archchancellor": H.ARCH, "fool": H.FOOL}


def _mods_init(opts: dict) -> dict | None:
    if not any(opts.get(name) for name, _ in MODIFIERS):
        return None
    return _mods_round(None, 0)


def _mods_round(prev: dict | None, n: int) -> dict:
    """The modifier state at the start of a round (``n`` players)."""
    wild = bool(prev and prev["next_wild"])
    return {
        "wild": wild,  # eights are wild now (round-wide)
        "round_wild": wild,  # the round began with wild eights (#1ii)
        "next_wild": False,  # the next round starts with wild eights
        "rewild": None,  # #5ii: the seat whose own eights are wild again
        "fate_stopped": None,  # #5ii: the seat whose Fate stopped wild eights
        "declared": {},  # str(card) -> seat, special cards declared this round
        "lady": None,  # {"seat", "mode": "replace" | "devalue"}
        "fate": None,  # {"seat", "mode": "replace" | "stop"}
        "zeroed": [],  # #5i: seats whose aces count zero
        "atuin": None,  # {"seat", "from", "to"}
        "elephants": None,  # {"seat", "cards"}
        "sender": None,  # {"seat", "forced"}
        "death": None,  # {"seat", "forced"}
        "arch": None,  # {"seat"}
        "jack_wild": False,  # #10ii
        "fool": False,  # #11
        "shown": [[] for _ in range(n)],  # cards each seat has disclosed (declared or revealed)
        "table": [[] for _ in range(n)],  # replaced modifier cards left on the table
        "pending": None,  # {"kind": "choose"|"reveal", "seat", "offer"?, "queue"?, "card"?, "resume"}
        "sd": None,  # the Showdown in progress
        "notes": ["#1ii: eights are wild this round"] if wild else [],
    }


def _opt(st: dict, name: str) -> bool:
    return bool(st["options"].get(name))


def _wild(st: dict, seat: int) -> bool:
    m = st["mods"]
    return _opt(st, "null_eights") and (m["wild"] or m["rewild"] == seat)


def _disclosed(st: dict, seat: int) -> set[int]:
    m = st["mods"]
    sd = m["sd"]
    if sd and seat in sd["shown"]:
        return set(st["hands"][seat])
    return (set(st["up"][seat]) | set(m["shown"][seat])) & set(st["hands"][seat])


def _visible(st: dict, c: int) -> bool:
    """A special card is visible: declared this round, or face up in a hand still in."""
    if str(c) in st["mods"]["declared"]:
        return True
    return any(c in st["hands"][s] and c in _disclosed(st, s) for s in st["in_round"])


def _holder(st: dict, c: int) -> int | None:
    for s in st["in_round"]:
        if c in st["hands"][s]:
            return s
    return None


def _ctx(st: dict, seat: int) -> dict:
    """What the modifiers in force mean for ``seat``'s hand (see onion_hands.evaluate)."""
    m = st["mods"]
    wild = _wild(st, seat)
    ctx: dict[str, Any] = {"wild": wild, "null": _opt(st, "null_eights") and not wild,
                           "fool": m["fool"], "octavo": _opt(st, "octavo") and wild,
                           "crippling": _opt(st, "crippling"), "arch": _opt(st, "archchancellor"),
                           "jack_wild": m["jack_wild"]}
    if _opt(st, "sender_of_eights"):
        if wild and m["sender"] is not None:
            ctx["zero_aces"] = ctx["wild_limited"] = True
        elif not wild and _visible(st, H.SENDER):
            ctx["sender"] = True
    if seat in m["zeroed"]:
        ctx["zero_aces"] = True
    lady = m["lady"]
    if lady and lady["mode"] == "devalue" and m["wild"] and lady["seat"] != seat:
        ctx["lady"] = True
    if _opt(st, "death") and _visible(st, H.DEATH):
        ctx["death"] = [2, 3] if wild else [2]
    if m["atuin"] and m["atuin"]["seat"] == seat:
        ctx["shift"] = [m["atuin"]["from"], m["atuin"]["to"]]
    if m["elephants"] and m["elephants"]["seat"] == seat:
        ctx["elephants"] = list(m["elephants"]["cards"])
    return ctx


def _arrange(st: dict, seat: int) -> dict:
    hand = list(st["hands"][seat])
    return {"cards": hand, **H.evaluate(hand, _ctx(st, seat))}


# ---------------------------------------------------------------- outbox hook


class _Box(Outbox):
    """An Outbox that declares the Sender of Eights as soon as it is dealt in a
    round of wild eights (#8ii)."""

    __slots__ = ()
    DEALING = ("RoundStarted", "Discarded", "DealerDealt", "Bought", "Stood", "ReplacementChosen")

    def emit(self, ev: dict) -> None:
        super().emit(ev)
        st = self.state
        if ev["type"] not in self.DEALING or st.get("mods") is None or not _opt(st, "sender_of_eights"):
            return
        if st["mods"]["sender"] is not None or str(H.SENDER) in st["mods"]["declared"]:
            return
        s = _holder(st, H.SENDER)
        if s is not None and _wild(st, s):
            super().emit(event("Declared", {"seat": s, "modifier": "sender", "card": H.SENDER, "forced": True}))


# ------------------------------------------------------------------ evolvers


def _after_round_started(st: dict, ev: dict) -> dict:
    return {**st, "mods": _mods_round(st["mods"] if st["round_no"] > 1 else None, len(st["players"]))}


def _after_round_ended(st: dict, ev: dict) -> dict:
    m = st["mods"]
    sd = ev["data"].get("showdown") or {}
    nulls = any(r.get("null_eights") for r in sd.values())
    return {**st, "mods": {**m, "next_wild": _opt(st, "null_eights") and not m["round_wild"] and nulls,
                           "pending": None}}


_MOD_AFTER = {"RoundStarted": _after_round_started, "RoundEnded": _after_round_ended}


def _m(st: dict) -> dict:
    """A shallow copy of ``st`` whose ``mods`` may be changed in place (one level)."""
    out = dict(st)
    out["mods"] = dict(st["mods"])
    return out


def _show_cards(m: dict, seat: int, cards: list[int]) -> None:
    shown = list(m["shown"])
    shown[seat] = sorted(set(shown[seat]) | set(cards))
    m["shown"] = shown


def _note(m: dict, text: str) -> None:
    m["notes"] = m["notes"] + [text]


def _ev_declared(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = _m(state)
    m = st["mods"]
    seat, kind = d["seat"], d["modifier"]
    who = st["players"][seat]
    if kind != "rewild":
        m["declared"] = {**m["declared"], str(d["card"]): seat}
        _show_cards(m, seat, [d["card"]])  # a declared card is put face up
    if kind == "lady":
        m["lady"] = {"seat": seat, "mode": d["mode"]}
        if d["mode"] == "devalue":
            _show_cards(m, seat, [H.LADY])
            _note(m, f"#4ii: {who} declared the Lady: one eleven of every other hand counts one while eights are wild")
        else:
            _note(m, f"#4i: {who} declared the Lady and takes one of the next two cards in its place")
    elif kind == "fate":
        m["fate"] = {"seat": seat, "mode": d["mode"]}
        if d["mode"] == "stop":
            m["wild"] = False
            m["fate_stopped"] = seat
            _show_cards(m, seat, [H.FATE])
            _note(m, f"#5ii: {who} declared Fate: eights are no longer wild")
        else:
            m["zeroed"] = m["zeroed"] + [d["zeroes"]]
            _note(m, f"#5i: {who} declared Fate: the aces of {st['players'][d['zeroes']]} count zero")
    elif kind == "rewild":
        m["rewild"] = seat
        if H.LADY in st["hands"][seat]:
            _show_cards(m, seat, [H.LADY])  # the Lady is shown to claim the right
        _note(m, f"#5ii: {who}, holder of the Lady, makes its own eights wild again")
    elif kind == "atuin":
        m["atuin"] = {"seat": seat, "from": d["from"], "to": d["to"]}
        _show_cards(m, seat, [H.ATUIN, d["from"], d["to"]])
        _note(m, f"#6: {who} declared Great A'Tuin: eight points move from the {H.card_name(d['from'])} "
                 f"to the {H.card_name(d['to'])}")
    elif kind == "elephants":
        m["elephants"] = {"seat": seat, "cards": list(d["cards"])}
        _show_cards(m, seat, [H.ATUIN] + list(d["cards"]))
        _note(m, f"#7: {who} declared the Elephants: a Double Onion, beaten by any other Double Onion")
    elif kind == "sender":
        m["sender"] = {"seat": seat, "forced": bool(d.get("forced"))}
        _show_cards(m, seat, [H.SENDER])
        _note(m, f"#8: {who} holds the Sender of Eights, now visible"
                 + (" (declared when dealt: aces count zero, wild eights not one or eleven)" if d.get("forced") else ""))
    elif kind == "death":
        m["death"] = {"seat": seat, "forced": False}
        _show_cards(m, seat, [H.DEATH])
        _note(m, f"#9: {who} shows Death: one picture of every hand with two or more leaves its Double Onion")
    elif kind == "archchancellor":
        m["arch"] = {"seat": seat}
        _show_cards(m, seat, [H.ARCH])
        holder = d["death_holder"]
        if holder is not None:
            m["death"] = {"seat": holder, "forced": True}
            m["declared"] = {**m["declared"], str(H.DEATH): holder}
            _show_cards(m, holder, [H.DEATH])
            _note(m, f"#10ii: {who} declared the Archchancellor: {st['players'][holder]} must show Death, "
                     "and every other player one undisclosed card")
        else:
            m["jack_wild"] = True
            _note(m, f"#10ii: {who} declared the Archchancellor; nobody holds Death: the jack of staves is wild")
    elif kind == "fool":
        m["fool"] = True
        _show_cards(m, seat, [H.FOOL])
        _note(m, f"#11: {who} declared the Fool: bagels and Onions swap places for the rest of the round")
    pend = d.get("pending")
    if pend:
        m["pending"] = {**pend, "resume": {"phase": state["phase"], "turn": state["turn"]}}
        st["phase"] = pend["kind"]
        st["turn"] = pend["seat"]
        if pend["kind"] == "choose":
            m["pending"]["offer"] = list(st["deck"][:2])
    return st


def _resume(st: dict, m: dict) -> None:
    r = m["pending"]["resume"]
    st["phase"], st["turn"] = r["phase"], r["turn"]
    m["pending"] = None


def _ev_replacement(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = _m(state)
    m = st["mods"]
    seat, special = d["seat"], d["card"]
    kept = m["pending"]["offer"][d["index"]]
    hands = list(st["hands"])
    hands[seat] = sorted([c for c in hands[seat] if c != special] + [kept])
    st["hands"] = hands
    if special in st["up"][seat]:  # the replacement takes the face-up place of the card
        up = list(st["up"])
        up[seat] = sorted([c for c in up[seat] if c != special] + [kept])
        st["up"] = up
    st["deck"] = st["deck"][2:]
    st["discards"] = st["discards"] + 2  # the special card (left on the table) and the card not chosen
    table = list(m["table"])
    table[seat] = table[seat] + [special]
    m["table"] = table
    _resume(st, m)
    return st


def _ev_revealed(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = _m(state)
    m = st["mods"]
    _show_cards(m, d["seat"], [d["card"]])
    queue = [s for s in m["pending"]["queue"] if s != d["seat"]]
    if queue:
        m["pending"] = {**m["pending"], "queue": queue, "seat": queue[0]}
        st["turn"] = queue[0]
    else:
        _resume(st, m)
    return st


def _ev_sd(state: dict, ev: dict) -> dict:
    """ShowdownOpened, Ready, ChallengerCalled, HandShown, Compared, Conceded, DuelEnded."""
    d = ev["data"]
    st = _m(state)
    m = st["mods"]
    t = ev["type"]
    if t == "ShowdownOpened":
        m["sd"] = {"order": list(d["order"]), "holder": None, "challenger": None, "leader": None,
                   "crippler": None, "shown": [], "results": {}, "duels": []}
    else:
        sd = dict(m["sd"])
        m["sd"] = sd
        if t == "HandShown":
            sd["shown"] = sd["shown"] + [d["seat"]]
            sd["results"] = {**sd["results"], str(d["seat"]): d["arrangement"]}
            if d["role"] == "holder":
                sd["holder"] = sd["leader"] = d["seat"]
            else:
                sd["challenger"] = d["seat"]
        elif t == "Compared":
            sd["results"] = {**sd["results"], **d["hands"]}
            sd["leader"] = d["winner"]
            if d.get("crippler") is not None:
                sd["crippler"] = d["crippler"]
        elif t == "DuelEnded":
            sd["holder"] = sd["leader"] = d["winner"]
            sd["challenger"] = None
            sd["duels"] = sd["duels"] + [{k: d[k] for k in ("winner", "loser", "how")}]
    _goto(st, d)
    return st


_EVOLVERS.update({
    "Declared": _ev_declared,
    "ReplacementChosen": _ev_replacement,
    "CardRevealed": _ev_revealed,
    "ShowdownOpened": _ev_sd,
    "Ready": _ev_sd,
    "HandShown": _ev_sd,
    "Compared": _ev_sd,
    "Conceded": _ev_sd,
    "DuelEnded": _ev_sd,
    "ChallengerCalled": _ev_sd,
})


# ------------------------------------------------------------------ showdown


def _interactive(st: dict) -> bool:
    return any(_opt(st, name) for name in INTERACTIVE)


def _mod_showdown(out: _Out, command: dict) -> None:
    st = out.state
    order = [s for s in st["order"][1:] + st["order"][:1] if s in st["in_round"]]
    to = {"phase": "predeclare", "turn": order[0]} if _interactive(st) else None
    out.emit(event("ShowdownOpened", {"order": order, "to": to}))
    if to is None:
        _sd_begin(out, command)


def _sd_begin(out: _Out, command: dict) -> None:
    st = out.state
    holder = st["mods"]["sd"]["order"][0]
    out.emit(event("HandShown", {"seat": holder, "role": "holder", "cards": list(st["hands"][holder]),
                                 "arrangement": _arrange(st, holder)}))
    _sd_next(out, command)


def _sd_next(out: _Out, command: dict) -> None:
    st = out.state
    sd = st["mods"]["sd"]
    rest = [s for s in sd["order"] if s not in sd["shown"]]
    if not rest:
        _sd_finish(out, command)
        return
    c = rest[0]
    if _interactive(st):
        out.emit(event("ChallengerCalled", {"seat": c, "to": {"phase": "showdown", "turn": c}}))
        return
    _sd_show(out, command, c)


def _sd_show(out: _Out, command: dict, seat: int) -> None:
    st = out.state
    out.emit(event("HandShown", {"seat": seat, "role": "challenger", "cards": list(st["hands"][seat]),
                                 "arrangement": _arrange(st, seat)}))
    _sd_compare(out, command)


def _precedes(st: dict, a: int, b: int) -> bool:
    return st["order"].index(a) < st["order"].index(b)


def _cripples(st: dict, x: dict, y: dict) -> bool:
    """#0 (with #2, #3, #11): hand ``x``'s running flush cripples ``y``'s top grouping."""
    run = x.get("run")
    if not _opt(st, "crippling") or not run:
        return False
    top = y.get("top")
    fool = st["mods"]["fool"]
    need = {"great_onion": 9, "lesser_onion": 10}.get(top)
    if top == "great_bagel" and fool:
        need = 9
    if need is None or run["length"] < need:
        return False
    if _opt(st, "wild_crippling") and run["wilds"] > y.get("onion_wilds", 0):
        return False
    return True


def _judge(st: dict, h: int, c: int) -> tuple[int, int, str, dict, dict | None]:
    """(winner, loser, how, arrangements, new crippler) of the duel of ``h`` and ``c``."""
    sd = st["mods"]["sd"]
    a = {h: _arrange(st, h), c: _arrange(st, c)}
    cr = sd["crippler"]
    if cr is not None and cr["seat"] in (h, c):
        k = cr["seat"]
        o = c if k == h else h
        run = a[o].get("run")
        if (run and run["length"] > cr["length"]
                and not (_opt(st, "wild_crippling") and run["wilds"] > cr["victim_wilds"])):
            return o, k, "out-crippled", a, {"seat": o, "length": run["length"], "victim_wilds": cr["victim_wilds"]}
        return k, o, "crippler", a, None
    for x, y in ((c, h), (h, c)):
        if _cripples(st, a[x], a[y]):
            return x, y, "crippled", a, {"seat": x, "length": a[x]["run"]["length"],
                                         "victim_wilds": a[y].get("onion_wilds", 0)}
    cmp = H.compare(a[h]["value"], a[c]["value"])
    if cmp == 0:
        w = h if _precedes(st, h, c) else c
        return w, (c if w == h else h), "precedence", a, None
    return (h, c, "value", a, None) if cmp > 0 else (c, h, "value", a, None)


def _sd_compare(out: _Out, command: dict) -> None:
    st = out.state
    sd = st["mods"]["sd"]
    h, c = sd["holder"], sd["challenger"]
    w, lo, how, a, crip = _judge(st, h, c)
    answer = _interactive(st) and how not in ("crippled", "out-crippled", "crippler")
    to = {"phase": "answer", "turn": lo} if answer else None
    out.emit(event("Compared", {"holder": h, "challenger": c, "winner": w, "loser": lo, "how": how,
                                "hands": {str(s): v for s, v in a.items()}, "crippler": crip, "to": to}))
    if not answer:
        _sd_end_duel(out, command, w, lo, how)


def _sd_end_duel(out: _Out, command: dict, w: int, lo: int, how: str) -> None:
    out.emit(event("DuelEnded", {"winner": w, "loser": lo, "how": how}))
    _sd_next(out, command)


def _sd_finish(out: _Out, command: dict) -> None:
    st = out.state
    sd = st["mods"]["sd"]
    result = {str(s): _arrange(st, s) for s in sd["order"]}
    _end_round(out, command, sd["holder"], result, "showdown")


# -------------------------------------------------------------- declarations


def _pairs_for_shift(st: dict, seat: int) -> list[tuple[int, int]]:
    """#6: (from, to) pairs: a card worth 9..11 gives eight points to a card
    worth 1..3 (an ace gives as eleven and takes as one); wild and zeroed cards
    have no value to move."""
    hand = st["hands"][seat]
    ctx = _ctx(st, seat)
    wild = {c for c in hand if (ctx["wild"] and H.rank_of(c) == 8) or (ctx.get("jack_wild") and c == H.ARCH)}
    zero = ctx.get("zero_aces")
    givers = [c for c in hand if c not in wild and (H.value_of(c) >= 9 or (H.is_ace(c) and not zero))]
    takers = [c for c in hand if c not in wild and (H.value_of(c) in (2, 3) or (H.is_ace(c) and not zero))]
    return [(a, b) for a in givers for b in takers if a != b]


def _elephant_sets(st: dict, seat: int) -> list[list[int]]:
    from itertools import combinations
    hand = st["hands"][seat]
    wild8 = _wild(st, seat)
    limited = _opt(st, "sender_of_eights") and wild8 and st["mods"]["sender"] is not None
    pool = [c for c in hand if H.rank_of(c) in (9, 10) or (wild8 and H.rank_of(c) == 8)]
    out = []
    for combo in combinations(sorted(pool), 4):
        if H.elephant_points(list(combo), [wild8 and H.rank_of(x) == 8 for x in combo], limited) is not None:
            out.append(list(combo))
    return out


def _declarations(st: dict, seat: int) -> list[dict]:
    """The declarations ``seat`` may make now (it is on turn)."""
    m = st["mods"]
    phase = st["phase"]
    if m is None or phase in ("choose", "reveal") or seat not in st["in_round"]:
        return []
    hand = st["hands"][seat]
    done = m["declared"]
    sd_phase = phase in _SD_PHASES
    moves: list[dict] = []
    if _opt(st, "archchancellor") and H.ARCH in hand and str(H.ARCH) not in done:
        moves.append({"type": "declare", "modifier": "archchancellor"})
    if not sd_phase:
        return moves
    wild = _wild(st, seat)
    if _opt(st, "fool") and phase == "predeclare" and H.FOOL in hand and str(H.FOOL) not in done:
        moves.append({"type": "declare", "modifier": "fool"})
    if _opt(st, "lady") and H.LADY in hand and str(H.LADY) not in done and (wild or len(st["deck"]) >= 2):
        moves.append({"type": "declare", "modifier": "lady"})
    if _opt(st, "fate") and H.FATE in hand and str(H.FATE) not in done:
        if m["wild"] and wild:
            moves.append({"type": "declare", "modifier": "fate"})
        elif not wild and m["lady"] and m["lady"]["mode"] == "replace" and len(st["deck"]) >= 2:
            moves.append({"type": "declare", "modifier": "fate"})
    if (_opt(st, "fate") and m["fate_stopped"] is not None and m["fate_stopped"] != seat and m["rewild"] is None
            and (H.LADY in hand or (m["lady"] and m["lady"]["seat"] == seat))):
        moves.append({"type": "declare", "modifier": "rewild"})
    if H.ATUIN in hand and str(H.ATUIN) not in done:
        if _opt(st, "great_atuin"):
            moves += [{"type": "declare", "modifier": "atuin", "from": a, "to": b} for a, b in _pairs_for_shift(st, seat)]
        if _opt(st, "elephants"):
            moves += [{"type": "declare", "modifier": "elephants", "cards": cs} for cs in _elephant_sets(st, seat)]
    if (_opt(st, "sender_of_eights") and H.SENDER in hand and str(H.SENDER) not in done and not wild
            and H.SENDER not in st["up"][seat]):
        moves.append({"type": "declare", "modifier": "sender"})
    if _opt(st, "death") and H.DEATH in hand and str(H.DEATH) not in done and not _visible(st, H.DEATH):
        moves.append({"type": "declare", "modifier": "death"})
    return moves


def _norm(move: dict) -> dict:
    out = {k: v for k, v in move.items() if k not in ("seat", "seed")}
    if isinstance(out.get("cards"), list):
        out["cards"] = sorted(out["cards"]) if all(isinstance(x, int) for x in out["cards"]) else out["cards"]
    return out


def _d_mod(state: dict, command: dict) -> list[dict]:
    seat = require_seat(command)
    if state.get("mods") is None:
        raise RuleViolation("no-modifiers", "no modifier is switched on at this table", "invalid")
    if seat not in to_act(state):
        raise RuleViolation("not-your-turn", f"it is not seat {seat}'s turn to make this move now", "turn")
    kind = command["type"]
    legal = legal_moves(state, seat)
    if _norm(command) not in [_norm(x) for x in legal]:
        if kind == "declare":
            raise RuleViolation("cannot-declare", "that declaration is not open to you now")
        raise RuleViolation("not-allowed-now", f"'{kind}' with these fields is not a legal move now")
    out = _Out(state)
    st = state
    m = st["mods"]
    if kind == "declare":
        _declare(out, command, seat)
    elif kind == "choose":
        p = m["pending"]
        idx = p["offer"].index(command["card"])
        kept, rejected = p["offer"][idx], p["offer"][1 - idx]
        public_kept = p["card"] in st["up"][seat]
        out.emit(event("ReplacementChosen", {"seat": seat, "card": p["card"], "index": idx,
                                             **({"kept": kept} if public_kept else {})},
                       {seat: {"kept": kept, "rejected": rejected}}))
        _after_declaring(out, command)
    elif kind == "reveal":
        out.emit(event("CardRevealed", {"seat": seat, "card": command["card"]}))
        if out.state["mods"]["pending"] is None:
            _after_declaring(out, command)
    elif kind == "ready":
        order = m["sd"]["order"]
        nxt = _next_in(order, seat)
        out.emit(event("Ready", {"seat": seat, "to": {"phase": "predeclare", "turn": nxt} if nxt is not None else None}))
        if nxt is None:
            _sd_begin(out, command)
    elif kind == "show":
        _sd_show(out, command, seat)
    elif kind == "concede":
        sd = m["sd"]
        w = sd["holder"] if seat == sd["challenger"] else sd["challenger"]
        out.emit(event("Conceded", {"seat": seat}))
        _sd_end_duel(out, command, w, seat, "conceded")
    return out.events


def _declare(out: _Out, command: dict, seat: int) -> None:
    st = out.state
    m = st["mods"]
    kind = command["modifier"]
    data: dict[str, Any] = {"seat": seat, "modifier": kind, "card": _DECL_CARD.get(kind, H.LADY)}
    private = None
    if kind == "lady":
        data["mode"] = "devalue" if _wild(st, seat) else "replace"
    elif kind == "fate":
        data["mode"] = "stop" if _wild(st, seat) else "replace"
        if data["mode"] == "replace":
            data["zeroes"] = m["lady"]["seat"]
    elif kind == "atuin":
        data["from"], data["to"] = command["from"], command["to"]
    elif kind == "elephants":
        data["cards"] = sorted(command["cards"])
    elif kind == "archchancellor":
        holder = _holder(st, H.DEATH)
        data["death_holder"] = holder
        data["jack_wild"] = holder is None
        if holder is not None:
            queue = [s for s in st["order"][1:] + st["order"][:1]
                     if s in st["in_round"] and s not in (seat, holder)
                     and set(st["hands"][s]) - _disclosed(st, s) - {H.ARCH, H.DEATH}]
            if queue:
                data["pending"] = {"kind": "reveal", "seat": queue[0], "queue": queue}
    if data.get("mode") == "replace":
        data["pending"] = {"kind": "choose", "seat": seat, "card": data["card"]}
        private = {seat: {"offer": list(st["deck"][:2])}}
    out.emit(event("Declared", data, private))
    if out.state["mods"]["pending"] is None:
        _after_declaring(out, command)


def _after_declaring(out: _Out, command: dict) -> None:
    """A declaration is complete: in an answer, the hands are compared again."""
    st = out.state
    if st["phase"] == "answer":
        _sd_compare(out, command)


_DECIDERS.update({name: _d_mod for name in ("declare", "choose", "reveal", "ready", "show", "concede")})


# ------------------------------------------------------------------- queries


def legal_moves(state: dict, seat: int) -> list[dict]:
    if not isinstance(seat, int) or isinstance(seat, bool) or seat not in to_act(state):
        return []
    m = state.get("mods")
    if m is None:
        return _base_legal_moves(state, seat)
    phase = state["phase"]
    if phase == "choose":
        return [{"type": "choose", "card": c} for c in m["pending"]["offer"]]
    if phase == "reveal":
        return [{"type": "reveal", "card": c}
                for c in sorted(set(state["hands"][seat]) - _disclosed(state, seat))]
    decl = _declarations(state, seat)
    if phase == "predeclare":
        return decl + [{"type": "ready"}]
    if phase == "showdown":
        return decl + [{"type": "show"}]
    if phase == "answer":
        return decl + [{"type": "concede"}]
    return _base_legal_moves(state, seat) + decl


def timeout_move(state: dict, seat: int) -> dict:
    if not isinstance(seat, int) or isinstance(seat, bool) or seat not in to_act(state):
        raise RuleViolation("not-your-turn", f"seat {seat} has nothing to decide now", "turn")
    phase = state["phase"]
    if state.get("mods") is not None and phase in _MOD_PHASES:
        if phase in ("choose", "reveal"):
            return legal_moves(state, seat)[0]
        return {"predeclare": {"type": "ready"}, "showdown": {"type": "show"}, "answer": {"type": "concede"}}[phase]
    return _base_timeout_move(state, seat)


def view(state: dict, viewer: Any) -> dict:
    v = _base_view(state, viewer)
    m = state.get("mods")
    if m is None:
        return v
    sd = m["sd"]
    pend = m["pending"]
    v["modifiers"] = {
        "eights_wild": m["wild"],
        "round_began_wild": m["round_wild"],
        "next_round_wild": m["next_wild"],
        "own_eights_wild_again": m["rewild"],
        "declared": [{"card": int(c), "name": _NAMES.get(int(c), H.card_name(int(c))), "seat": s}
                     for c, s in m["declared"].items()],
        "lady": m["lady"], "fate": m["fate"], "zeroed_aces": list(m["zeroed"]),
        "great_atuin": m["atuin"], "elephants": m["elephants"], "sender": m["sender"], "death": m["death"],
        "archchancellor": m["arch"], "jack_of_staves_wild": m["jack_wild"], "fool": m["fool"],
        "disclosed": [sorted(_disclosed(state, s)) if s in state["in_round"] else [] for s in
                      range(len(state["players"]))],
        "on_table": [list(t) for t in m["table"]],
        "pending": None if pend is None else {k: pend[k] for k in ("kind", "seat") if k in pend},
        "showdown": None if sd is None else {
            "order": list(sd["order"]), "holder": sd["holder"], "challenger": sd["challenger"],
            "leader": sd["leader"], "crippler": sd["crippler"], "shown": list(sd["shown"]),
            "arrangements": dict(sd["results"]), "duels": list(sd["duels"])},
        "notes": list(m["notes"]),
    }
    if pend and pend.get("kind") == "choose" and (viewer == pend["seat"] or viewer == REVIEWER):
        v["modifiers"]["offer"] = list(pend["offer"])
    return v
