"""¡Muerte al rey!: the identity cards between games (section 3.3): dealt
again, kept, swapped from the winner back, or placed by a team.
"""

from __future__ import annotations

from domain.base import RuleViolation, event, int_field, rng
from domain.muerte.cards import IDENTITY_SUIT, TEAMS, identity_deck
from domain.muerte.deal import _deal
from domain.muerte.evolve import _Out
from domain.muerte.state import _choosing, _in_phase, _other, _target, team_of


def game_winner(state: dict, points: list[int]) -> int:
    """For winner_swaps: the best scorer of the game, ties to the earliest in turn order."""
    order = state["order"]
    return min(order, key=lambda s: (-points[s], order.index(s)))


def _next_game(out: _Out, command: dict, reason: str) -> None:
    st = out.state
    mode = st["options"]["identity_mode"]
    ident = list(st["identity"])
    n = st["n"]
    if reason == "treason" or mode == "fixed":
        _deal(out, ident, int_field(command, "seed"))
    elif mode == "random":
        new = identity_deck(n)
        rng(f"identity:{int_field(command, 'seed')}").shuffle(new)
        _deal(out, new, int_field(command, "seed"))
    elif mode == "fixed_teams":
        r = rng(f"identity:{int_field(command, 'seed')}")
        new = list(ident)
        for team in TEAMS:
            seats = [s for s in range(len(ident)) if st["teams_fixed"][s] == team]
            cards = [f"{IDENTITY_SUIT[team]}{k}" for k in range(1, n + 1)]
            r.shuffle(cards)
            for s, c in zip(seats, cards):
                new[s] = c
        _deal(out, new, int_field(command, "seed"))
    elif mode == "winner_swaps":
        order = st["order"]
        w = order.index(game_winner(st, st["game_points"]))
        m = len(order)
        seq = [order[(w - k) % m] for k in range(1, m + 1)]
        out.emit(event("IdentitySwapsBegan", {"winner": order[w], "sequence": seq}))
    else:
        teams_fixed = st["teams_fixed"] or [team_of(st, s) for s in range(len(ident))]
        teams = {}
        for team in TEAMS:
            seats = [s for s in range(len(ident)) if teams_fixed[s] == team]
            chooser_team = team if mode == "team_chooses" else _other(team)
            # the chooser: who held the choosing team's 1 in the game just ended
            chooser = next(s for s in range(len(ident)) if ident[s] == f"{IDENTITY_SUIT[chooser_team]}1")
            if teams_fixed[chooser] != chooser_team:
                chooser = min(s for s in range(len(ident)) if teams_fixed[s] == chooser_team)
            teams[team] = {
                "chooser": chooser,
                "cards": [f"{IDENTITY_SUIT[team]}{k}" for k in range(1, n + 1)],
                "seats": seats,
            }
        out.emit(event("IdentityAssignmentBegan", {"teams": teams, "teams_fixed": teams_fixed}))


def _d_swap(state: dict, command: dict) -> list[dict]:
    seat = _in_phase(state, command, "swapping", "swapping identity cards between games")
    sw = state["swap"]
    cur = sw["sequence"][sw["index"]]
    if seat != cur:
        raise RuleViolation("not-your-turn", f"seat {cur} swaps its identity card now", "turn")
    other = _target(state, command, "with")
    if other == seat:
        raise RuleViolation("swap-with-self", "you swap your identity card with another player's")
    out = _Out(state)
    out.emit(event("IdentitySwapped", {"seat": seat, "with": other}))
    if out.state["swap"]["index"] >= len(sw["sequence"]):
        _deal(out, out.state["identity"], int_field(command, "seed"))
    return out.events


def _d_assign(state: dict, command: dict) -> list[dict]:
    seat = _in_phase(state, command, "assigning", "placing identity cards between games")
    team = _choosing(state, seat)
    if team is None:
        raise RuleViolation("not-your-turn", "you have no identity card to place", "turn")
    to = _target(state, command, "to")
    a = state["assign"][team]
    if to not in a["seats"]:
        raise RuleViolation("not-in-team", f"the {team} identity cards go to the {team} team")
    if str(to) in a["given"]:
        raise RuleViolation("already-placed", f"seat {to} already has its identity card")
    card = a["cards"][len(a["given"])]
    out = _Out(state)
    out.emit(event("IdentityAssigned", {"seat": seat, "team": team, "card": card, "to": to}))
    st = out.state
    if all(len(x["given"]) == len(x["cards"]) for x in st["assign"].values()):
        ident = list(st["identity"])
        for x in st["assign"].values():
            for k, c in x["given"].items():
                ident[int(k)] = c
        _deal(out, ident, int_field(command, "seed"))
    return out.events
