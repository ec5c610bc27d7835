"""El Gran Dalmuti as a decider (see ``domain.base`` for the shared face).

Cards are ints: ranks 1..12 (rank n has n copies, lower is better) and 13 for
a jester (two in the deck).  A jester played with other cards takes their rank;
played alone (one or two jesters) it is rank 13.

``seat`` is the index into ``players`` and never changes.  The table positions
change every hand: ``order`` lists the seats clockwise starting at the Greater
Dalmuti; position 0 is the Greater Dalmuti, 1 the Lesser Dalmuti, the last the
Greater Peon, the one before it the Lesser Peon and everybody else a Merchant.

Phases: ``created`` -> (``placing``) -> ``revolution`` -> ``taxes``? ->
``play`` -> next hand ... -> ``finished``.  ``between_hands`` exists only
inside one ``decide`` call (between ``HandEnded`` and ``HandDealt``).

Rules version 2 asks every seat at once after every deal whether it declares
a revolution, so that nothing public tells who holds both jesters.  Version 1
asked the holder alone (the seat was named in ``HandDealt``); a game keeps the
version it started under (``state["rules"]``, taken from the envelopes) and
its log folds, and its moves are decided, as they were under that version.

The rules as implemented, with every reading chosen, are in
``docs/rules/dalmuti.md``.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from itertools import combinations
from typing import Any

from domain.base import (
    committed,
    match_ended,
    seat_parts,
    settle_options,
    check_player_count,
    table_seat,
    Outbox,
    viewer_is_seat,
    REVIEWER,
    RuleViolation,
    event,
    int_field,
    int_list,
    rng,
    shuffled,
)

GAME_ID = "dalmuti"
TITLE = "El Gran Dalmuti"
RULES_VERSION = "2"
# rules versions whose logs this module folds exactly as they were played
FOLDS_RULES = ("1",)
# events after which the deal in play is over and its commitment is revealed
HAND_OVER_EVENTS = ("HandEnded", "MatchEnded")
MIN_PLAYERS = 4
MAX_PLAYERS = 16

JESTER = 13
NAME_MAX = 100

OPTIONS: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "hands": {
            "type": "integer",
            "default": 3,
            "minimum": 1,
            "maximum": 100,
            "description": "Number of hands in the match.",
        },
        "first_deal_revolution": {
            "type": "boolean",
            "default": False,
            "description": "The first hand has an automatic revolution (no taxes); a Greater Peon "
            "holding both jesters may still declare a greater revolution.",
        },
        "reduced_deck": {
            "type": "boolean",
            "default": False,
            "description": "With 5 players the 12s are removed (68 cards); with 4 players the 12s "
            "and 11s (57 cards). No effect for other player counts.",
        },
        "scoring": {
            "type": "boolean",
            "default": True,
            "description": "A player going out scores 1 point per opponent still holding cards; the "
            "match is won on points. When false the match is ranked by the last hand's order of "
            "going out (points are still computed and reported). philanthropic_scoring needs it on.",
        },
        "philanthropic_scoring": {
            "type": "boolean",
            "default": False,
            "description": "An addition to scoring: at the end of a hand the Greater Dalmuti scores "
            "1 extra point if its Greater Peon climbed, the Lesser Dalmuti 1 if its Lesser Peon climbed. "
            "Refused together with scoring false (it does not turn scoring on).",
        },
        "merchant_exchange": {
            "type": "boolean",
            "default": False,
            "description": "During taxes the highest Merchant may swap one random card with another "
            "Merchant of its choice (needs at least two Merchants).",
        },
        "allow_joining": {
            "type": "boolean",
            "default": False,
            "description": "Newcomers may join; they enter at the start of the next hand as "
            "Merchants, placed by the Greater Dalmuti.",
        },
    },
    # Seed 004, Puntuación filantrópica: "Además de utilizar las reglas de puntuación anteriores"
    # (an addition to scoring): with scoring false, philanthropic_scoring must stay false
    "if": {"properties": {"scoring": {"const": False}}, "required": ["scoring"]},
    "then": {"properties": {"philanthropic_scoring": {"const": False}}},
}

# What a creation must satisfy beyond the player count and each option's schema, as JSON Schemas
# over {"player_count": n, "options": {...defaults filled in}} (GET /game-types): the if/then above.
CONSTRAINTS: tuple[dict[str, Any], ...] = (
    {"id": "philanthropic-needs-scoring", "on": ["options"],
     "description": "philanthropic_scoring is an addition to scoring: it needs scoring true",
     "schema": {"properties": {"options": {"if": OPTIONS["if"], "then": OPTIONS["then"]}}}},
)

ROLES = ("greater_dalmuti", "lesser_dalmuti", "merchant", "lesser_peon", "greater_peon")


# --------------------------------------------------------------------- helpers


def deck_for(n_players: int, reduced: bool) -> list[int]:
    """The deck for a hand with ``n_players`` players (sorted)."""
    top = 12
    if reduced and n_players == 5:
        top = 11
    elif reduced and n_players == 4:
        top = 10
    cards = [r for r in range(1, top + 1) for _ in range(r)]
    return cards + [JESTER, JESTER]


def role_at(position: int, n: int) -> str:
    if position == 0:
        return "greater_dalmuti"
    if position == n - 1:
        return "greater_peon"
    if position == 1:
        return "lesser_dalmuti"
    if position == n - 2:
        return "lesser_peon"
    return "merchant"


def set_rank(cards: list[int]) -> int | None:
    """The effective rank of a set, or None if it mixes ranks."""
    ranks = {c for c in cards if c != JESTER}
    if len(ranks) > 1:
        return None
    return ranks.pop() if ranks else JESTER


def _next_holder(order: list[int], hands: list[list[int]], after: int) -> int | None:
    """The next seat clockwise from ``after`` that still holds cards."""
    n = len(order)
    pos = order.index(after)
    for i in range(1, n + 1):
        s = order[(pos + i) % n]
        if hands[s]:
            return s
    return None


def _cards(command: dict, field: str = "cards", min_len: int = 1) -> list[int]:
    cards = int_list(command.get(field), field, min_len=min_len, max_len=200)
    for c in cards:
        if not 1 <= c <= JESTER:
            raise RuleViolation(
                "invalid-card", f"'{field}' holds {c}: cards are ranks 1..12 or 13 for a jester", "invalid"
            )
    return sorted(cards)


def _require_in_hand(hand: list[int], cards: list[int]) -> None:
    have = Counter(hand)
    for c, k in Counter(cards).items():
        if have[c] < k:
            raise RuleViolation(
                "cards-not-in-hand", f"you do not hold {k} card(s) of rank {c}: you may only use cards in your hand"
            )


def _remove(hand: list[int], cards: list[int]) -> list[int]:
    h = list(hand)
    for c in cards:
        h.remove(c)
    return h


def _Out(state: dict) -> Outbox:
    return Outbox(state, evolve)


def _v1(state: dict) -> bool:
    """Whether the game started under rules version 1 (a state from before
    versions were recorded in it is one)."""
    return state.get("rules", "1") == "1"


def may_declare(state: dict, seat: int) -> bool:
    """Rules 2: whether ``seat`` may declare a revolution in this revolution
    phase: it holds both jesters, and in the first hand's automatic
    revolution it is the Greater Peon (only a greater revolution is left)."""
    if state["phase"] != "revolution" or seat not in state["order"]:
        return False
    if state["hands"][seat].count(JESTER) != 2:
        return False
    return state["revolution"] is None or seat == state["order"][-1]


# ----------------------------------------------------------------------- state


def initial_state(players: list[str], options: dict | None) -> dict:
    players = list(players)
    check_player_count(TITLE, len(players), MIN_PLAYERS, MAX_PLAYERS)
    opts = settle_options(OPTIONS, options)
    n = len(players)
    return {
        "game": GAME_ID,
        "rules": RULES_VERSION,  # the rules version the game started under (see evolve)
        "players": players,
        "options": opts,
        "phase": "created",
        "hand_no": 0,
        "hands_total": int(opts["hands"]),
        "order": [],  # seats clockwise from the Greater Dalmuti (this hand)
        "seating_draw": [],  # rounds of [seat, card]
        "hands": [[] for _ in range(n)],  # per seat, sorted (secret)
        "deck_size": 0,
        "discards": 0,  # cards played this hand
        "revolution": None,  # {"kind": "revolution"|"greater"|"first_deal", "seat": s|None}
        "jesters_seat": None,  # rules 1: seat that may declare a revolution now
        "revolution_pending": [],  # rules 2: seats still to answer the revolution question
        "revolution_answers": {},  # rules 2: str(seat) -> declares (secret until the phase ends)
        "tax_pending": [],  # GD / LD still to choose
        "tax_chosen": {},  # str(seat) -> cards chosen (secret)
        "exchange_seat": None,  # Merchant that may still exchange
        "exchange": None,  # {"seat": s, "with": s|None} once decided (public)
        "transfers": {},  # str(seat) -> [{"kind","with","gave","received"}] this hand (secret)
        "turn": None,
        "trick": None,  # {"seat","cards","rank","count"} last play of the trick
        "passes": 0,  # consecutive passes since the last play
        "out_order": [],
        "hand_points": [0] * n,
        "scores": [0] * n,
        "newcomers": [],  # seats waiting to be placed
        "last_hand": None,
        "outcome": None,
    }


def _enter_taxes(st: dict) -> None:
    order = st["order"]
    st["phase"] = "taxes"
    st["tax_pending"] = [order[0], order[1]]
    st["tax_chosen"] = {}
    merchants = len(order) - 4
    st["exchange_seat"] = order[2] if st["options"].get("merchant_exchange") and merchants >= 2 else None
    st["exchange"] = None


def _enter_play(st: dict) -> None:
    st["phase"] = "play"
    st["turn"] = st["order"][0]
    st["trick"] = None
    st["passes"] = 0
    st["tax_pending"] = []
    st["tax_chosen"] = {}
    st["exchange_seat"] = None


def _apply_transfers(st: dict, state: dict, private: dict, kind: str) -> None:
    hands = list(state["hands"])
    transfers = dict(state["transfers"])
    for key, part in private.items():
        s = int(key)
        h = _remove(hands[s], part["gave"])
        h.extend(part["received"])
        h.sort()
        hands[s] = h
        transfers[key] = transfers.get(key, []) + [
            {"kind": kind, "with": part["with"], "gave": part["gave"], "received": part["received"]}
        ]
    st["hands"] = hands
    st["transfers"] = transfers


def _ev_seats_drawn(state: dict, ev: dict) -> dict:
    st = dict(state)
    st["seating_draw"] = ev["data"]["draws"]
    st["order"] = list(ev["data"]["order"])
    st["phase"] = "between_hands"
    return st


def _ev_player_joined(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    st["players"] = state["players"] + [d["player"]]
    st["hands"] = state["hands"] + [[]]
    st["scores"] = state["scores"] + [0]
    st["hand_points"] = state["hand_points"] + [0]
    if state["phase"] != "created":
        st["newcomers"] = state["newcomers"] + [d["seat"]]
    return st


def _ev_newcomer_placed(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    st["order"] = list(d["order"])
    st["newcomers"] = [s for s in state["newcomers"] if s != d["newcomer"]]
    return st


def _ev_hand_dealt(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    hands: list[list[int]] = [[] for _ in state["players"]]
    for seat, part in seat_parts(ev.get("private")):
        hands[seat] = list(part["hand"])
    st["hands"] = hands
    st["hand_no"] = d["hand"]
    st["order"] = list(d["order"])
    st["deck_size"] = d["deck_size"]
    st["discards"] = 0
    st["revolution"] = {"kind": "first_deal", "seat": None} if d["auto_revolution"] else None
    st["jesters_seat"] = d.get("jesters_seat")
    st["transfers"] = {}
    st["exchange"] = None
    st["exchange_seat"] = None
    st["tax_pending"] = []
    st["tax_chosen"] = {}
    st["trick"] = None
    st["passes"] = 0
    st["turn"] = None
    st["out_order"] = []
    st["hand_points"] = [0] * len(state["players"])
    if not _v1(state):  # every seat is asked, whoever holds the jesters
        st["jesters_seat"] = None
        st["phase"] = "revolution"
        st["revolution_pending"] = list(d["order"])
        st["revolution_answers"] = {}
    elif d["jesters_seat"] is not None:
        st["phase"] = "revolution"
    elif d["auto_revolution"]:
        _enter_play(st)
    else:
        _enter_taxes(st)
    return st


def _ev_revolution_answered(state: dict, ev: dict) -> dict:
    seat = ev["data"]["seat"]
    st = dict(state)
    st["revolution_pending"] = [s for s in state["revolution_pending"] if s != seat]
    part = (ev.get("private") or {}).get(str(seat))
    answers = dict(state["revolution_answers"])
    answers[str(seat)] = bool(part["declare"]) if part else False
    st["revolution_answers"] = answers
    return st


def _end_revolution_phase(st: dict) -> None:
    st["jesters_seat"] = None
    if "revolution_pending" in st:  # absent from states of rules 1 saved before rules 2
        st["revolution_pending"] = []
        st["revolution_answers"] = {}


def _ev_revolution_declared(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    st["revolution"] = {"kind": "greater" if d["greater"] else "revolution", "seat": d["seat"]}
    st["order"] = list(d["order"])
    _end_revolution_phase(st)
    _enter_play(st)
    return st


def _ev_revolution_declined(state: dict, ev: dict) -> dict:
    st = dict(state)
    _end_revolution_phase(st)
    if state["revolution"]:
        _enter_play(st)
    else:
        _enter_taxes(st)
    return st


def _ev_tax_chosen(state: dict, ev: dict) -> dict:
    seat = ev["data"]["seat"]
    st = dict(state)
    st["tax_pending"] = [s for s in state["tax_pending"] if s != seat]
    chosen = dict(state["tax_chosen"])
    part = (ev.get("private") or {}).get(str(seat))
    chosen[str(seat)] = list(part["cards"]) if part else []
    st["tax_chosen"] = chosen
    return st


def _ev_merchants_exchanged(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    _apply_transfers(st, state, ev.get("private") or {}, "exchange")
    st["exchange_seat"] = None
    st["exchange"] = {"seat": d["seat"], "with": d["with"]}
    return st


def _ev_exchange_declined(state: dict, ev: dict) -> dict:
    st = dict(state)
    st["exchange_seat"] = None
    st["exchange"] = {"seat": ev["data"]["seat"], "with": None}
    return st


def _ev_taxes_paid(state: dict, ev: dict) -> dict:
    st = dict(state)
    _apply_transfers(st, state, ev.get("private") or {}, "tax")
    _enter_play(st)
    return st


def _ev_played(state: dict, ev: dict) -> dict:
    d = ev["data"]
    seat = d["seat"]
    cards = d["cards"]
    st = dict(state)
    hands = list(state["hands"])
    hands[seat] = _remove(hands[seat], cards)
    st["hands"] = hands
    st["trick"] = {"seat": seat, "cards": cards, "rank": d["rank"], "count": len(cards)}
    st["passes"] = 0
    st["turn"] = d["next"]
    st["discards"] = state["discards"] + len(cards)
    if d["out"]:
        st["out_order"] = state["out_order"] + [seat]
        points = list(state["hand_points"])
        points[seat] = d["points"]
        st["hand_points"] = points
        scores = list(state["scores"])
        scores[seat] += d["points"]
        st["scores"] = scores
    return st


def _ev_passed(state: dict, ev: dict) -> dict:
    st = dict(state)
    st["passes"] = state["passes"] + 1
    st["turn"] = ev["data"]["next"]
    return st


def _ev_trick_ended(state: dict, ev: dict) -> dict:
    st = dict(state)
    st["trick"] = None
    st["passes"] = 0
    st["turn"] = ev["data"]["leader"]
    return st


def _ev_hand_ended(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    st["out_order"] = list(d["out_order"])
    st["hand_points"] = list(d["points"])
    st["scores"] = list(d["scores"])
    st["last_hand"] = {
        "hand": d["hand"],
        "order": list(state["order"]),
        "out_order": list(d["out_order"]),
        "points": list(d["points"]),
        "bonus": list(d["bonus"]),
    }
    st["order"] = list(d["order"])
    st["trick"] = None
    st["passes"] = 0
    st["turn"] = None
    if d["match_over"]:
        st["phase"] = "finished"
    elif state["newcomers"]:
        st["phase"] = "placing"
    else:
        st["phase"] = "between_hands"
    return st


_EVOLVERS = {
    "SeatsDrawn": _ev_seats_drawn,
    "PlayerJoined": _ev_player_joined,
    "NewcomerPlaced": _ev_newcomer_placed,
    "HandDealt": _ev_hand_dealt,
    "RevolutionAnswered": _ev_revolution_answered,
    "RevolutionDeclared": _ev_revolution_declared,
    "RevolutionDeclined": _ev_revolution_declined,
    "TaxChosen": _ev_tax_chosen,
    "MerchantsExchanged": _ev_merchants_exchanged,
    "ExchangeDeclined": _ev_exchange_declined,
    "TaxesPaid": _ev_taxes_paid,
    "Played": _ev_played,
    "Passed": _ev_passed,
    "TrickEnded": _ev_trick_ended,
    "HandEnded": _ev_hand_ended,
    "MatchEnded": match_ended,
}


def evolve(state: dict, ev: dict) -> dict:
    fn = _EVOLVERS.get(ev["type"])
    if fn is None:
        raise ValueError(f"dalmuti: unknown event type {ev['type']!r}")
    # a stored envelope names the rules version its game started under; the
    # state keeps it so that later decisions follow the same rules
    rules = ev.get("rules")
    if rules is not None and rules != state.get("rules"):
        state = {**state, "rules": rules}
    return fn(state, ev)


# ---------------------------------------------------------------------- decide


def _seating_draw(seats: list[int], deck: list[int], seed: int) -> tuple[list, list[int]]:
    """Every seat draws a card; tied seats draw again among themselves."""
    r = rng(f"seating:{seed}")
    pile: list[int] = []
    rounds: list[list[list[int]]] = []

    def draw() -> int:
        nonlocal pile
        if not pile:  # a fresh deck if a long run of ties used it up
            pile = list(deck)
            r.shuffle(pile)
        return pile.pop()

    def rank_group(group: list[int]) -> list[int]:
        drawn = [[s, draw()] for s in group]
        rounds.append(drawn)
        by_card: dict[int, list[int]] = {}
        for s, c in drawn:
            by_card.setdefault(c, []).append(s)
        result: list[int] = []
        for c in sorted(by_card):
            tied = by_card[c]
            result.extend(tied if len(tied) == 1 else rank_group(tied))
        return result

    order = rank_group(list(seats))
    return rounds, order


def _deal(out: _Out, seed: int) -> None:
    st = out.state
    order = st["order"]
    n = len(order)
    deck = shuffled(deck_for(n, bool(st["options"].get("reduced_deck"))), seed)
    hands: dict[int, list[int]] = {s: [] for s in order}
    for i, c in enumerate(deck):  # one at a time, from the Greater Dalmuti clockwise
        hands[order[i % n]].append(c)
    sizes = [0] * len(st["players"])
    for s, h in hands.items():
        h.sort()
        sizes[s] = len(h)
    hand_no = st["hand_no"] + 1
    auto = bool(st["options"].get("first_deal_revolution")) and hand_no == 1
    data = {
        "hand": hand_no,
        "order": list(order),
        "dealer": order[-1],
        "deck_size": len(deck),
        "sizes": sizes,
        "auto_revolution": auto,
    }
    if _v1(st):  # rules 1 named the seat holding both jesters
        holder = next((s for s in order if hands[s].count(JESTER) == 2), None)
        if auto and holder != order[-1]:
            holder = None  # already a revolution; only a greater one is left to declare
        data["jesters_seat"] = holder
    out.emit(committed(event("HandDealt", data, {s: {"hand": h} for s, h in hands.items()}), deck, seed))


def _finish_hand(out: _Out, command: dict) -> None:
    st = out.state
    order = st["order"]
    n = len(order)
    out_order = list(st["out_order"])
    out_order += [s for s in order if s not in out_order]
    points = list(st["hand_points"])
    bonus = [0] * len(st["players"])
    if st["options"].get("philanthropic_scoring"):
        finish = {s: i for i, s in enumerate(out_order)}
        if finish[order[-1]] < n - 1:
            bonus[order[0]] += 1
        if finish[order[-2]] < n - 2:
            bonus[order[1]] += 1
    scores = [sc + b for sc, b in zip(st["scores"], bonus)]
    points = [p + b for p, b in zip(points, bonus)]
    match_over = st["hand_no"] >= st["hands_total"]
    seed = None if match_over or st["newcomers"] else int_field(command, "seed")
    out.emit(
        event(
            "HandEnded",
            {
                "hand": st["hand_no"],
                "out_order": out_order,
                "points": points,
                "bonus": bonus,
                "scores": scores,
                "order": out_order,
                "match_over": match_over,
            },
        )
    )
    if match_over:
        out.emit(event("MatchEnded", _compute_outcome(out.state)))
    elif seed is not None:
        _deal(out, seed)


def _compute_outcome(st: dict) -> dict:
    last = st["order"]
    pos = {s: i for i, s in enumerate(last)}
    seats = range(len(st["players"]))

    def place(s: int) -> int:
        return pos.get(s, len(last) + s)

    scores = st["scores"]
    if st["options"].get("scoring", True):
        ranking = sorted(seats, key=lambda s: (-scores[s], place(s)))
    else:
        ranking = sorted(seats, key=place)
    return {
        "scores": list(scores),
        "ranking": ranking,
        "winners": ranking[:1],
        "hands_played": st["hand_no"],
        "last_order": list(last),
    }


def _seat(state: dict, command: dict) -> int:
    seat = table_seat(state, command)
    return seat


def _running(state: dict) -> None:
    phase = state["phase"]
    if phase == "created":
        raise RuleViolation("not-started", "the match has not started yet", "turn")
    if phase == "finished":
        raise RuleViolation("game-over", "the match is over: no more moves", "turn")


def _seat_in_phase(state: dict, command: dict, phase: str) -> int:
    seat = _seat(state, command)
    _running(state)
    if state["phase"] != phase:
        raise RuleViolation(
            "wrong-phase",
            f"'{command['type']}' belongs to the {phase} phase; the match is in the {state['phase']} phase",
            "turn",
        )
    return seat


def _system(command: dict, what: str) -> None:
    if command.get("seat") is not None:
        raise RuleViolation("system-command", f"'{what}' is a system command, not a seat's move", "turn")


def _d_start(state: dict, command: dict) -> list[dict]:
    _system(command, "start")
    if state["phase"] != "created":
        raise RuleViolation("already-started", "the match has already started", "turn")
    seed = int_field(command, "seed")
    n = len(state["players"])
    out = _Out(state)
    draws, order = _seating_draw(list(range(n)), deck_for(n, bool(state["options"].get("reduced_deck"))), seed)
    out.emit(event("SeatsDrawn", {"draws": draws, "order": order}))
    _deal(out, seed)
    return out.events


def _d_join(state: dict, command: dict) -> list[dict]:
    _system(command, "join")
    if not state["options"].get("allow_joining"):
        raise RuleViolation("joining-disabled", "this match does not allow newcomers (option allow_joining)")
    if state["phase"] == "finished":
        raise RuleViolation("game-over", "the match is over: nobody can join it", "turn")
    name = command.get("player")
    if not isinstance(name, str) or not name.strip() or len(name) > NAME_MAX:
        raise RuleViolation("invalid-field", f"'player' must be a name of 1 to {NAME_MAX} characters", "invalid")
    if name in state["players"]:
        raise RuleViolation("name-taken", f"a player named {name!r} already sits at this table")
    if len(state["players"]) >= MAX_PLAYERS:
        raise RuleViolation("table-full", f"the table already has the maximum of {MAX_PLAYERS} players")
    return [event("PlayerJoined", {"seat": len(state["players"]), "player": name})]


def _d_place(state: dict, command: dict) -> list[dict]:
    seat = _seat_in_phase(state, command, "placing")
    order = state["order"]
    if seat != order[0]:
        raise RuleViolation("not-your-turn", "only the Greater Dalmuti places newcomers", "turn")
    newcomer = int_field(command, "newcomer")
    slot = int_field(command, "slot")
    if newcomer not in state["newcomers"]:
        raise RuleViolation("not-a-newcomer", f"seat {newcomer} is not waiting to be placed")
    merchants = len(order) - 4
    if not 0 <= slot <= merchants:
        raise RuleViolation(
            "invalid-slot",
            f"newcomers sit among the Merchants: slot must be 0..{merchants} "
            "(0 just after the Lesser Dalmuti, the last just before the Lesser Peon)",
        )
    last = len(state["newcomers"]) == 1
    seed = int_field(command, "seed") if last else None
    new_order = order[: 2 + slot] + [newcomer] + order[2 + slot :]
    out = _Out(state)
    out.emit(event("NewcomerPlaced", {"seat": seat, "newcomer": newcomer, "slot": slot, "order": new_order}))
    if seed is not None:
        _deal(out, seed)
    return out.events


def _d_revolution(state: dict, command: dict) -> list[dict]:
    if not _v1(state):
        return _d_revolution_answer(state, command)
    seat = _seat_in_phase(state, command, "revolution")
    if seat != state["jesters_seat"]:
        raise RuleViolation("not-your-turn", "only the player holding both jesters may declare a revolution", "turn")
    order = state["order"]
    if command["type"] == "decline_revolution":
        return [event("RevolutionDeclined", {"seat": seat})]
    greater = seat == order[-1]
    new_order = order[::-1] if greater else list(order)
    return [event("RevolutionDeclared", {"seat": seat, "greater": greater, "order": new_order})]


def _d_revolution_answer(state: dict, command: dict) -> list[dict]:
    """Rules 2: every seat answers; the holder of both jesters may declare.

    Every answer is the same public event, ``RevolutionAnswered`` naming the
    seat, with the choice in the seat's private part beside a salt drawn from
    the command's seed (the event hash covers the private part: without the
    salt anyone could hash both possible answers and compare).  When the last
    seat has answered, one event says what the table decided."""
    seat = _seat_in_phase(state, command, "revolution")
    if seat not in state["order"]:
        raise RuleViolation("not-your-turn", "you take no part in this hand", "turn")
    if seat not in state["revolution_pending"]:
        raise RuleViolation("revolution-already-answered", "you have already answered the revolution question",
                            "turn")
    declare = command["type"] == "declare_revolution"
    if declare and not may_declare(state, seat):
        if state["revolution"] is not None and state["hands"][seat].count(JESTER) == 2:
            detail = ("this first hand is already a revolution: only a Greater Peon dealt both jesters "
                      "may declare (a greater revolution)")
        else:
            detail = "only a player dealt both jesters may declare a revolution: answer decline_revolution"
        raise RuleViolation("no-revolution", detail)
    seed = int_field(command, "seed")
    salt = hashlib.sha256(f"naipes-revolution-salt:{seed}:{seat}".encode()).hexdigest()[:32]
    out = _Out(state)
    out.emit(event("RevolutionAnswered", {"seat": seat}, {seat: {"declare": declare, "salt": salt}}))
    st = out.state
    if st["revolution_pending"]:
        return out.events
    order = st["order"]
    declared = [s for s in order if st["revolution_answers"].get(str(s))]
    if declared:
        holder = declared[0]  # two jesters: at most one seat can declare
        greater = holder == order[-1]
        new_order = order[::-1] if greater else list(order)
        out.emit(event("RevolutionDeclared", {"seat": holder, "greater": greater, "order": new_order}))
    else:
        out.emit(event("RevolutionDeclined", {}))
    return out.events


def _resolve_taxes(out: _Out) -> None:
    st = out.state
    if st["tax_pending"] or st["exchange_seat"] is not None:
        return
    order = st["order"]
    gd, ld, lp, gp = order[0], order[1], order[-2], order[-1]
    gd_gives = st["tax_chosen"][str(gd)]
    ld_gives = st["tax_chosen"][str(ld)]
    gp_pays = st["hands"][gp][:2]  # the two best (lowest; jesters are 13, the worst)
    lp_pays = st["hands"][lp][:1]
    out.emit(
        event(
            "TaxesPaid",
            {
                "transfers": [
                    {"from": gp, "to": gd, "count": len(gp_pays)},
                    {"from": gd, "to": gp, "count": len(gd_gives)},
                    {"from": lp, "to": ld, "count": len(lp_pays)},
                    {"from": ld, "to": lp, "count": len(ld_gives)},
                ]
            },
            {
                gd: {"with": gp, "gave": gd_gives, "received": gp_pays},
                gp: {"with": gd, "gave": gp_pays, "received": gd_gives},
                ld: {"with": lp, "gave": ld_gives, "received": lp_pays},
                lp: {"with": ld, "gave": lp_pays, "received": ld_gives},
            },
        )
    )


def _d_give_taxes(state: dict, command: dict) -> list[dict]:
    seat = _seat_in_phase(state, command, "taxes")
    order = state["order"]
    if seat not in (order[0], order[1]):
        raise RuleViolation(
            "not-your-turn", "only the Greater and the Lesser Dalmuti choose cards to give as taxes", "turn"
        )
    if seat not in state["tax_pending"]:
        raise RuleViolation("taxes-already-given", "you have already chosen the cards you give", "turn")
    cards = _cards(command)
    need = 2 if seat == order[0] else 1
    if len(cards) != need:
        who = "Greater Dalmuti" if need == 2 else "Lesser Dalmuti"
        raise RuleViolation("wrong-tax-count", f"the {who} gives exactly {need} card(s) to its Peon")
    _require_in_hand(state["hands"][seat], cards)
    out = _Out(state)
    out.emit(event("TaxChosen", {"seat": seat, "count": need}, {seat: {"cards": cards}}))
    _resolve_taxes(out)
    return out.events


def _d_exchange(state: dict, command: dict) -> list[dict]:
    seat = _seat_in_phase(state, command, "taxes")
    if seat != state["exchange_seat"]:
        raise RuleViolation(
            "not-your-turn", "only the highest Merchant may propose a Merchants' exchange, once per hand", "turn"
        )
    out = _Out(state)
    if command["type"] == "decline_exchange":
        out.emit(event("ExchangeDeclined", {"seat": seat}))
    else:
        other = int_field(command, "with")
        merchants = state["order"][2:-2]
        if other == seat or other not in merchants:
            raise RuleViolation("not-a-merchant", "the exchange must be made with another Merchant")
        r = rng(int_field(command, "seed"))
        mine = r.choice(state["hands"][seat])
        theirs = r.choice(state["hands"][other])
        out.emit(
            event(
                "MerchantsExchanged",
                {"seat": seat, "with": other},
                {
                    seat: {"with": other, "gave": [mine], "received": [theirs]},
                    other: {"with": seat, "gave": [theirs], "received": [mine]},
                },
            )
        )
    _resolve_taxes(out)
    return out.events


def _d_play(state: dict, command: dict) -> list[dict]:
    seat = _seat_in_phase(state, command, "play")
    if seat != state["turn"]:
        raise RuleViolation("not-your-turn", f"it is seat {state['turn']}'s turn to play", "turn")
    cards = _cards(command)
    hand = state["hands"][seat]
    _require_in_hand(hand, cards)
    rank = set_rank(cards)
    if rank is None:
        raise RuleViolation("mixed-ranks", "a set must be cards of one rank (jesters may join any set)")
    trick = state["trick"]
    if trick is not None:
        if len(cards) != trick["count"]:
            raise RuleViolation(
                "must-match-count", f"you must play exactly {trick['count']} card(s), as many as the last play"
            )
        if rank >= trick["rank"]:
            raise RuleViolation(
                "must-beat-rank", f"you must play a better (lower) rank than {trick['rank']}, or pass"
            )
    order = state["order"]
    hands = state["hands"]
    out_now = len(cards) == len(hand)
    holders = [s for s in order if hands[s]]
    points = len(holders) - 1 if out_now else 0
    left = [s for s in holders if s != seat or not out_now]
    nxt = None
    if len(left) > 1:
        n = len(order)
        pos = order.index(seat)
        for i in range(1, n + 1):
            s = order[(pos + i) % n]
            if hands[s] and s in left:
                nxt = s
                break
    out = _Out(state)
    out.emit(
        event(
            "Played",
            {"seat": seat, "cards": cards, "rank": rank, "count": len(cards), "out": out_now, "points": points,
             "next": nxt},
        )
    )
    if nxt is None:
        _finish_hand(out, command)
    return out.events


def _d_pass(state: dict, command: dict) -> list[dict]:
    seat = _seat_in_phase(state, command, "play")
    if seat != state["turn"]:
        raise RuleViolation("not-your-turn", f"it is seat {state['turn']}'s turn to play", "turn")
    trick = state["trick"]
    if trick is None:
        raise RuleViolation("cannot-pass-on-lead", "you lead a new trick: you must play a set")
    order = state["order"]
    hands = state["hands"]
    others = sum(1 for s in order if hands[s] and s != trick["seat"])
    out = _Out(state)
    if state["passes"] + 1 >= others:
        leader = trick["seat"] if hands[trick["seat"]] else _next_holder(order, hands, trick["seat"])
        out.emit(event("Passed", {"seat": seat, "next": None}))
        out.emit(event("TrickEnded", {"winner": trick["seat"], "leader": leader}))
    else:
        out.emit(event("Passed", {"seat": seat, "next": _next_holder(order, hands, seat)}))
    return out.events


_DECIDERS = {
    "start": _d_start,
    "join": _d_join,
    "place_newcomer": _d_place,
    "declare_revolution": _d_revolution,
    "decline_revolution": _d_revolution,
    "give_taxes": _d_give_taxes,
    "merchant_exchange": _d_exchange,
    "decline_exchange": _d_exchange,
    "play": _d_play,
    "pass": _d_pass,
}


def decide(state: dict, command: dict) -> list[dict]:
    if not isinstance(command, dict):
        raise RuleViolation("invalid-command", "a command must be an object", "invalid")
    kind = command.get("type")
    fn = _DECIDERS.get(kind) if isinstance(kind, str) else None
    if fn is None:
        known = ", ".join(sorted(_DECIDERS))
        raise RuleViolation("unknown-move", f"unknown move type {kind!r} (known: {known})", "invalid")
    return fn(state, command)


# --------------------------------------------------------------------- queries


def to_act(state: dict) -> list[int]:
    phase = state["phase"]
    if phase == "play":
        return [state["turn"]]
    if phase == "taxes":
        seats = list(state["tax_pending"])
        if state["exchange_seat"] is not None:
            seats.append(state["exchange_seat"])
        return seats
    if phase == "revolution":
        if _v1(state):
            return [state["jesters_seat"]]
        return list(state["revolution_pending"])
    if phase == "placing":
        return [state["order"][0]]
    return []


def _play_moves(hand: list[int], trick: dict | None) -> list[dict]:
    counts = Counter(hand)
    jesters = counts.pop(JESTER, 0)
    moves = []
    for r in sorted(counts):
        for k in range(1, counts[r] + 1):
            for j in range(jesters + 1):
                if trick is None or (k + j == trick["count"] and r < trick["rank"]):
                    moves.append({"type": "play", "cards": [r] * k + [JESTER] * j})
    if trick is None:
        for j in range(1, jesters + 1):
            moves.append({"type": "play", "cards": [JESTER] * j})
    else:
        moves.append({"type": "pass"})
    return moves


def legal_moves(state: dict, seat: int) -> list[dict]:
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(state["players"]):
        return []
    if seat not in to_act(state):
        return []
    phase = state["phase"]
    hand = state["hands"][seat]
    order = state["order"]
    if phase == "play":
        return _play_moves(hand, state["trick"])
    if phase == "revolution":
        if _v1(state) or may_declare(state, seat):
            return [{"type": "declare_revolution"}, {"type": "decline_revolution"}]
        return [{"type": "decline_revolution"}]
    if phase == "placing":
        merchants = len(order) - 4
        return [
            {"type": "place_newcomer", "newcomer": s, "slot": k}
            for s in state["newcomers"]
            for k in range(merchants + 1)
        ]
    if phase == "taxes":
        moves: list[dict] = []
        if seat in state["tax_pending"]:
            need = 2 if seat == order[0] else 1
            for combo in sorted(set(combinations(hand, need))):
                moves.append({"type": "give_taxes", "cards": list(combo)})
        if seat == state["exchange_seat"]:
            for other in order[2:-2]:
                if other != seat:
                    moves.append({"type": "merchant_exchange", "with": other})
            moves.append({"type": "decline_exchange"})
        return moves
    return []


def timeout_move(state: dict, seat: int) -> dict:
    if not isinstance(seat, int) or isinstance(seat, bool) or seat not in to_act(state):
        raise RuleViolation("not-your-turn", f"seat {seat} has nothing to decide now", "turn")
    phase = state["phase"]
    hand = state["hands"][seat]
    order = state["order"]
    if phase == "play":
        if state["trick"] is not None:
            return {"type": "pass"}
        return {"type": "play", "cards": [hand[-1]]}  # the worst single card
    if phase == "revolution":
        return {"type": "decline_revolution"}
    if phase == "placing":
        return {"type": "place_newcomer", "newcomer": state["newcomers"][0], "slot": 0}
    # taxes: a giver gives its worst cards; the Merchant declines
    if seat in state["tax_pending"]:
        need = 2 if seat == order[0] else 1
        return {"type": "give_taxes", "cards": hand[-need:]}
    return {"type": "decline_exchange"}


def _must(state: dict, seat: int) -> dict | None:
    """What ``seat`` has to decide now, in words a client can show."""
    if seat not in to_act(state):
        return None
    phase = state["phase"]
    order = state["order"]
    if phase == "play":
        if state["trick"] is None:
            return {"action": "play", "leading": True}
        t = state["trick"]
        return {"action": "play", "leading": False, "count": t["count"], "beat_rank": t["rank"]}
    if phase == "revolution":
        if _v1(state):
            return {"action": "revolution", "greater": seat == order[-1]}
        return {"action": "revolution", "greater": seat == order[-1], "may_declare": may_declare(state, seat)}
    if phase == "placing":
        return {"action": "place_newcomer", "newcomers": list(state["newcomers"]), "slots": len(order) - 3}
    if seat in state["tax_pending"]:
        return {"action": "give_taxes", "count": 2 if seat == order[0] else 1,
                "to": order[-1] if seat == order[0] else order[-2]}
    return {"action": "merchant_exchange", "merchants": [s for s in order[2:-2] if s != seat]}


def _tax_info(state: dict, seat: int) -> dict | None:
    """A tax-paying seat's part in the taxes phase (no card it may not see)."""
    order = state["order"]
    if state["phase"] != "taxes" or seat not in order:
        return None
    gd, ld, lp, gp = order[0], order[1], order[-2], order[-1]
    if seat in (gd, ld):
        chosen = state["tax_chosen"].get(str(seat))
        return {"gives": 2 if seat == gd else 1, "to": gp if seat == gd else lp, "chooses": True,
                "chosen": list(chosen) if chosen is not None else None}
    if seat in (gp, lp):
        return {"gives": 2 if seat == gp else 1, "to": gd if seat == gp else ld, "chooses": False,
                "automatic": "your best card(s) are taken when the taxes resolve"}
    return None


def view(state: dict, viewer: Any) -> dict:
    is_seat = viewer_is_seat(state, viewer)
    order = state["order"]
    n = len(order)
    roles: list[str | None] = [None] * len(state["players"])
    for i, s in enumerate(order):
        roles[s] = role_at(i, n)
    trick = state["trick"]
    v: dict[str, Any] = {
        "game": GAME_ID,
        "rules_version": state.get("rules", "1"),
        "phase": state["phase"],
        "hand_no": state["hand_no"],
        "hands_total": state["hands_total"],
        "players": list(state["players"]),
        "options": dict(state["options"]),
        "order": list(order),
        "roles": roles,
        "hand_sizes": [len(h) for h in state["hands"]],
        "deck_size": state["deck_size"],
        "discards": state["discards"],
        "trick": None if trick is None else {**trick, "cards": list(trick["cards"])},
        "passes": state["passes"],
        "turn": state["turn"] if state["phase"] == "play" else None,
        "to_act": to_act(state),
        "pending": {
            "revolution": to_act(state) if state["phase"] == "revolution" else [],
            "taxes": list(state["tax_pending"]) if state["phase"] == "taxes" else [],
            "taxes_chosen": sorted(int(k) for k in state["tax_chosen"]),
            "exchange": state["exchange_seat"],
            "placing": order[0] if state["phase"] == "placing" else None,
        },
        "out_order": list(state["out_order"]),
        "hand_points": list(state["hand_points"]),
        "scores": list(state["scores"]),
        "revolution": None if state["revolution"] is None else dict(state["revolution"]),
        "exchange": None if state["exchange"] is None else dict(state["exchange"]),
        "newcomers": list(state["newcomers"]),
        "seating_draw": [[list(p) for p in rnd] for rnd in state["seating_draw"]],
        "last_hand": None if state["last_hand"] is None else dict(state["last_hand"]),
        "outcome": outcome(state),
    }
    if is_seat:
        v["seat"] = viewer
        v["role"] = roles[viewer]
        v["hand"] = list(state["hands"][viewer])
        v["transfers"] = [dict(t) for t in state["transfers"].get(str(viewer), [])]
        v["must"] = _must(state, viewer)
        v["tax"] = _tax_info(state, viewer)
        if state["phase"] == "revolution" and not _v1(state):
            v["revolution_answer"] = state["revolution_answers"].get(str(viewer))
    elif viewer == REVIEWER:
        v["hands"] = [list(h) for h in state["hands"]]
        v["transfers_all"] = {k: [dict(t) for t in ts] for k, ts in state["transfers"].items()}
        v["tax_chosen"] = {k: list(c) for k, c in state["tax_chosen"].items()}
        v["revolution_answers"] = dict(state.get("revolution_answers") or {})
    return v


# Equal points are ranked by the order of going out in the final hand (docs/rules/dalmuti.md,
# "Scoring"): no two seats of a result share a place.
TIES_BROKEN = True


def outcome(state: dict) -> dict | None:
    if state["phase"] != "finished":
        return None
    return state["outcome"]
