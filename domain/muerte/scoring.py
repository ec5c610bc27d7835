"""¡Muerte al rey!: the end of a game (sections 2.4, 3.1, 3.2) and of the match."""

from __future__ import annotations

from typing import Any

from domain.base import event
from domain.muerte.cards import KINGS
from domain.muerte.evolve import _Out
from domain.muerte.identities import _next_game
from domain.muerte.state import _alive, _members, _other, team_of


def game_points(state: dict, reason: str, actor: int) -> dict:
    """Section 3.2: the points of the game that just ended (and who won)."""
    p = len(state["players"])
    points = [0] * p
    info: dict[str, Any] = {
        "reason": reason,
        "winning_team": None,
        "discoverer": None,
        "custodian": None,
        "traitors": [],
        "denouncers": [],
    }
    if reason == "treason":
        den = state["treason"]["denounced"]
        for s, traitor, _card in den:
            points[s] += 2
            points[traitor] -= 2
        traitors = {tr for _s, tr, _c in den}
        denouncers = [s for s, _t, _c in den]
        info["traitors"] = sorted(traitors)
        info["denouncers"] = sorted(denouncers)
        # double treason: both found each other, nobody wins (each only loses 2)
        winners = [s for s in denouncers if s not in traitors]
        for s in denouncers:
            if s in traitors:
                points[s] = -2
        info["winners"] = winners
        info["double"] = len(winners) == 0
    else:
        if reason == "king_found":
            win = team_of(state, actor)
            info["discoverer"] = actor
            info["custodian"] = state["reveals"][-1]["target"]
        else:  # king_lost (or, in theory, team_eliminated): the actor's team loses
            win = _other(team_of(state, actor))
            info["custodian"] = actor if reason == "king_lost" else None
        info["winning_team"] = win
        king = KINGS[win]
        for s in range(p):
            if team_of(state, s) == win:
                if not _alive(state, s):
                    points[s] = 0
                else:
                    holder = king in state["hands"][s]
                    disc = s == info["discoverer"]
                    points[s] = 4 if holder and disc else 3 if disc else 2 if holder else 1
            else:
                if s == info["custodian"]:
                    points[s] = -4 if not _alive(state, s) else -3
                else:
                    points[s] = -1
        info["winners"] = list(_members(state, win))
    info["points"] = points
    return info


def _end_game(out: _Out, command: dict, reason: str, actor: int) -> None:
    st = out.state
    info = game_points(st, reason, actor)
    scores = [a + b for a, b in zip(st["scores"], info["points"])]
    match_over = st["game_no"] >= st["games_total"]
    out.emit(event("GameEnded", {"game": st["game_no"], **info, "scores": scores, "match_over": match_over}))
    if match_over:
        out.emit(event("MatchEnded", _compute_outcome(out.state)))
        return
    _next_game(out, command, reason)


def _compute_outcome(st: dict) -> dict:
    """The match's result.  Section 3.2's points are "a scoring system for playing several games in a
    row": over several games the best total wins.  A match of one game is won as the game was
    (section 2.4: "Un equipo gana si localiza al rey contrario"; a treason's discoverer wins alone; "En
    caso de doble traición, no gana nadie"), and the ranking puts its winners first.  Rules version 1
    named the best total's seats in both cases."""
    scores = st["scores"]
    seats = range(len(st["players"]))
    ranking = sorted(seats, key=lambda s: (-scores[s], s))
    top = scores[ranking[0]]
    winners = [s for s in ranking if scores[s] == top]
    if st.get("rules") != "1" and st["games_total"] == 1 and st["results"]:
        won = set(st["results"][-1].get("winners") or [])
        ranking = sorted(seats, key=lambda s: (s not in won, -scores[s], s))
        winners = [s for s in ranking if s in won]
    return {
        "scores": list(scores),
        "ranking": ranking,
        "winners": winners,
        "games_played": st["game_no"],
        "games": [dict(r) for r in st["results"]],
    }
