"""¡Muerte al rey!: the state before the game, and the readings every part
shares (teams, turns, duties, the seats to act, the outcome).

2n players form two teams of n, espadas and bastos.
"""

from __future__ import annotations

from domain.base import RuleViolation, check_player_count, int_field, settle_options, table_seat
from domain.muerte.about import GAME_ID, IDENTITY_MODES, MAX_PLAYERS, MIN_PLAYERS, OPTIONS, TITLE, TREASON_PROMPTS
from domain.muerte.cards import DECK_NUMBERS, TEAMS, number


def initial_state(players: list[str], options: dict | None) -> dict:
    players = list(players)
    check_player_count(TITLE, len(players), MIN_PLAYERS, MAX_PLAYERS)
    # a game created before the option existed asked only a receiver of its identity number: its log folds
    # so (a creation now always names the option, its default filled in)
    opts = settle_options(OPTIONS, {"treason_prompt": "match", **(options or {})})
    if opts["deck"] not in DECK_NUMBERS:
        opts["deck"] = "spanish40"
    if opts["identity_mode"] not in IDENTITY_MODES:
        opts["identity_mode"] = "random"
    if not isinstance(opts["games"], int) or isinstance(opts["games"], bool) or opts["games"] < 1:
        opts["games"] = 1
    opts["treason"] = bool(opts["treason"])
    if opts["treason_prompt"] not in TREASON_PROMPTS:
        opts["treason_prompt"] = "match"
    p = len(players)
    return {
        "game": GAME_ID,
        "players": players,
        "options": opts,
        "phase": "created",
        "game_no": 0,
        "games_total": opts["games"],
        "n": p // 2,
        "identity": [],  # per seat, public
        "order": [],  # seats in turn order
        "hands": [[] for _ in range(p)],  # secret
        "lost": [[] for _ in range(p)],  # cards lost after wrong accusations (public)
        "eliminated": [],
        "turn": None,
        "pos": 0,
        "round": 0,
        "accused": {"espadas": False, "bastos": False},  # this full round
        "exchange": None,  # {"seat", "with"} while the teammate must give back
        "offer": None,  # the giver's card while pending (secret)
        "accusation": None,  # {"seat", "target"} while the accuser must discard
        "treason": None,  # {"pending": [...], "chances": [[receiver, giver]], "denounced": [...]}
        "transfers": {},  # str(seat) -> [{"with", "gave", "received"}] this game (secret)
        "reveals": [],  # public list of accusations' reveals
        "swap": None,  # {"sequence": [...], "index": i} (winner_swaps)
        "assign": None,  # team -> {"chooser", "cards", "seats", "given"} (team/opponents choose)
        "teams_fixed": None,  # seat -> team, once teams are fixed for the match
        "game_points": [0] * p,
        "scores": [0] * p,
        "results": [],  # one record per finished game
        "outcome": None,
    }


def team_of(state: dict, seat: int) -> str:
    return "espadas" if state["identity"][seat][0] == "E" else "bastos"


def _other(team: str) -> str:
    return "bastos" if team == "espadas" else "espadas"


def _members(state: dict, team: str) -> list[int]:
    """The team's seats in turn order."""
    return [s for s in state["order"] if team_of(state, s) == team]


def _alive(state: dict, seat: int) -> bool:
    return seat not in state["eliminated"]


def _target(state: dict, command: dict, field: str) -> int:
    t = int_field(command, field)
    if not 0 <= t < len(state["players"]):
        raise RuleViolation("unknown-seat", f"'{field}': seat {t} is not at this table", "invalid")
    return t


def _seat(state: dict, command: dict) -> int:
    seat = table_seat(state, command)
    if state["phase"] == "created":
        raise RuleViolation("not-started", "the match has not started yet", "turn")
    if state["phase"] == "finished":
        raise RuleViolation("game-over", "the match is over: no more moves", "turn")
    return seat


def _in_phase(state: dict, command: dict, phase: str, what: str) -> int:
    seat = _seat(state, command)
    if state["phase"] != phase:
        raise RuleViolation(
            "wrong-phase", f"'{command['type']}' is for {what}; now the game is in the {state['phase']} phase", "turn"
        )
    return seat


def _later_teammate(state: dict, seat: int) -> bool:
    """Does an active teammate still play after ``seat`` in this full round?"""
    team = team_of(state, seat)
    order = state["order"]
    return any(_alive(state, s) and team_of(state, s) == team for s in order[state["pos"] + 1 :])


def teammates(state: dict, seat: int) -> list[int]:
    team = team_of(state, seat)
    return [s for s in _members(state, team) if s != seat and _alive(state, s)]


def must_accuse(state: dict, seat: int) -> bool:
    """Section 2.3: the team's last player in a full round accuses if the team has not."""
    if state["phase"] != "turn" or state["turn"] != seat:
        return False
    if not teammates(state, seat):
        return True  # nobody to exchange with
    return not state["accused"][team_of(state, seat)] and not _later_teammate(state, seat)


def _choosing(state: dict, seat: int) -> str | None:
    """The team whose identity cards ``seat`` places now, if any."""
    for team in TEAMS:
        a = state["assign"][team]
        if a["chooser"] == seat and len(a["given"]) < len(a["cards"]):
            return team
    return None


def duties(state: dict) -> dict:
    """Which teams still owe an accusation in this full round (section 2.3)."""
    if state["phase"] not in ("turn", "giveback", "discard", "treason"):
        return {"espadas": False, "bastos": False}
    return {t: not state["accused"][t] for t in TEAMS}


def to_act(state: dict) -> list[int]:
    phase = state["phase"]
    if phase == "turn":
        return [state["turn"]]
    # between two events of one move (a replay may stop there) the phase can
    # outlive the exchange or accusation that it names: nobody acts then
    if phase == "giveback":
        return [state["exchange"]["with"]] if state["exchange"] else []
    if phase == "discard":
        return [state["accusation"]["seat"]] if state["accusation"] else []
    if phase == "treason":
        return list(state["treason"]["pending"])
    if phase == "swapping":  # (after the last swap, before the deal of the same move: nobody)
        sw = state["swap"]
        return [sw["sequence"][sw["index"]]] if sw["index"] < len(sw["sequence"]) else []
    if phase == "assigning":
        return sorted({a["chooser"] for a in state["assign"].values() if len(a["given"]) < len(a["cards"])})
    return []


def outcome(state: dict) -> dict | None:
    if state["phase"] != "finished":
        return None
    return state["outcome"]


def treason_found(state: dict, seat: int) -> bool:
    """Whether ``seat``, asked during phase ``treason``, just received a card of its identity card's
    number (section 3.1), and so may denounce its giver: always so with ``treason_prompt`` ``match``
    (only such a player is asked), and for either, both or neither of the two with ``every``."""
    received = (state["transfers"].get(str(seat)) or [{}])[-1].get("received")
    return received is not None and number(received) == number(state["identity"][seat])
