"""Cripple Mr Onion: the state before the game and the modifier state a round
starts with (``state["mods"]``, when any modifier is switched on), and the
readings of a state every part of the game shares (precedence, seats still in,
money limits, the seats to act, roles, the outcome).  What the modifier state
means is read in ``domain.onion.modifiers``.
"""

from __future__ import annotations

from domain.base import RuleViolation, check_player_count, require_seat, settle_options
from domain.onion.about import (
    _UNRECORDED_RULES,
    GAME_ID,
    MAX_PLAYERS,
    MIN_PLAYERS,
    MODIFIERS,
    OPTIONS,
    RULES_VERSION,
    TITLE,
)


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


def _goto(st: dict, d: dict) -> None:
    to = d.get("to")
    if to:
        st["phase"] = to["phase"]
        st["turn"] = to["turn"]
        if "betting" in to:
            st["betting"] = to["betting"]


def _acting(state: dict, command: dict, phases: tuple[str, ...]) -> int:
    seat = require_seat(command)
    if state["phase"] not in phases or seat != state["turn"]:
        raise RuleViolation("not-your-turn", f"it is not seat {seat}'s turn to make this move now", "turn")
    return seat


def to_act(state: dict) -> list[int]:
    if state["phase"] in ("created", "between_rounds", "finished") or state["turn"] is None:
        return []
    return [state["turn"]]


ROLE_NAMES = ("dealer", "elder", "younger")


def roles(state: dict) -> list[str | None]:
    out: list[str | None] = [None] * len(state["players"])
    order = state["order"]
    for i, s in enumerate(order):
        out[s] = "dealer" if i == 0 else "elder" if i == 1 else "younger" if i == len(order) - 1 else "player"
    return out


def outcome(state: dict) -> dict | None:
    if state["phase"] != "finished":
        return None
    return state["outcome"]
