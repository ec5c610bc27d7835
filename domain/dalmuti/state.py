"""El Gran Dalmuti: the state before the game, and the readings every part shares.

``seat`` is the index into ``players`` and never changes.  The table positions
change every hand: ``order`` lists the seats clockwise starting at the Greater
Dalmuti; position 0 is the Greater Dalmuti, 1 the Lesser Dalmuti, the last the
Greater Peon, the one before it the Lesser Peon and everybody else a Merchant.
"""

from __future__ import annotations

from domain.base import RuleViolation, check_player_count, settle_options, table_seat
from domain.dalmuti.about import GAME_ID, MAX_PLAYERS, MIN_PLAYERS, OPTIONS, RULES_VERSION, TITLE
from domain.dalmuti.cards import JESTER


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


def _v1(state: dict) -> bool:
    """Whether the game started under rules version 1 (a state from before
    versions were recorded in it is one)."""
    return state.get("rules", "1") == "1"


def placing_slots(state: dict) -> list[int]:
    """The slots where the Greater Dalmuti may seat a newcomer now (slot ``k``
    puts it at position ``2 + k``, just after the Lesser Dalmuti for 0).

    Seed 004, INCORPORARSE: newcomers enter as Merchants "a medio camino entre
    el Gran Dalmuti y el Gran Peón", the GD choosing when there are several
    places.  From rules 3 that is the middle of the table as it stands: as many
    players above the newcomer as below it, or one more on either side when the
    table has an odd number of players.  Rules 1 and 2 allowed every Merchant
    slot, and games of those versions keep it."""
    t = len(state["order"])
    if places_anywhere(state):
        return list(range(t - 4 + 1))
    return sorted({t // 2 - 2, (t + 1) // 2 - 2})


def places_anywhere(state: dict) -> bool:
    """Rules 1 and 2: a newcomer may take any Merchant slot (from rules 3, the middle)."""
    return state.get("rules", "1") in ("1", "2")


def may_declare(state: dict, seat: int) -> bool:
    """Rules 2: whether ``seat`` may declare a revolution in this revolution
    phase: it holds both jesters, and in the first hand's automatic
    revolution it is the Greater Peon (only a greater revolution is left)."""
    if state["phase"] != "revolution" or seat not in state["order"]:
        return False
    if state["hands"][seat].count(JESTER) != 2:
        return False
    return state["revolution"] is None or seat == state["order"][-1]


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


def to_act(state: dict) -> list[int]:
    phase = state["phase"]
    if phase == "play":  # (no turn between a trick's last card and its end, two events of one append)
        return [] if state["turn"] is None else [state["turn"]]
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


def outcome(state: dict) -> dict | None:
    if state["phase"] != "finished":
        return None
    return state["outcome"]
