"""Cego: the score of a round, and the next deal or the end of the match."""

from __future__ import annotations

from typing import Any

from domain.base import event, int_field
from domain.cego.cards import count_points
from domain.cego.contracts import FIXED, RAUBER_PAY, factor
from domain.cego.deal import _deal
from domain.cego.evolve import _Out
from domain.cego.state import rules_of


def score_round(state: dict) -> dict:
    """Points, result and payments of a finished round (pure)."""
    n = len(state["players"])
    con = state["contract"]
    ch = con["challenger"]
    game = con["game"]
    part = list(state["active"]) + ([state["sitting_out"]] if state["sitting_out"] is not None else [])
    pay = [0] * n
    res: dict[str, Any] = {"game": game, "challenger": ch, "gegensolo": con.get("gegensolo", False)}
    if game == "rauber":
        pts = {s: count_points(state["won"][s]) for s in state["active"]}
        top = max(pts.values())
        losers = [s for s in state["active"] if pts[s] == top]
        for lo in losers:
            amt = RAUBER_PAY * (2 if lo == ch else 1)
            for s in part:
                if s != lo:
                    pay[lo] -= amt
                    pay[s] += amt
        res.update(points=[pts.get(s) for s in range(n)], losers=losers, challenger_won=None)
        return dict(res, payments=pay)
    if game in FIXED:
        tw = state["tricks_won"][ch]
        if game == "ulti":
            lt = state["last_trick"]
            won = not any(state["hands"][s] for s in state["active"]) and lt["winner"] == ch and [ch, 1] in lt["cards"]
        elif game == "piccolo":
            won = tw == 1
        else:
            won = tw == 0
        amt = FIXED[game]
    else:
        aside = state["blind"] if game == "solo" else state["legage"]
        mine = list(state["won"][ch])
        theirs = [c for s in range(n) if s != ch for c in state["won"][s]]
        # the blind of a Solo needs a trick won; the Legage of the Cego games counts always (rules "1": a trick)
        to_challenger = state["tricks_won"][ch] >= 1 or (game != "solo" and rules_of(state) != "1")
        if to_challenger:
            mine += aside
        else:
            theirs += aside
        cp, dp = count_points(mine), count_points(theirs)
        won = cp >= 40
        f = factor(con, won)
        amt = ((cp if won else dp) - 39) * f
        res.update(challenger_points=cp, defender_points=dp, factor=f, aside_to_challenger=to_challenger)
    for s in part:
        if s != ch:
            pay[s] -= amt if won else -amt
            pay[ch] += amt if won else -amt
    res.update(challenger_won=won, amount=amt)
    return dict(res, payments=pay)


def _score(out: _Out, command: dict) -> None:
    st = out.state
    res = score_round(st)
    balances = [a + b for a, b in zip(st["balances"], res["payments"])]
    over = st["round_no"] >= st["rounds_total"]
    seed = None if over else int_field(command, "seed")
    out.emit(
        event(
            "RoundScored",
            dict(
                res,
                round=st["round_no"],
                balances=balances,
                match_over=over,
                blind=list(st["blind"]),
                legage=list(st["legage"]),
                tricks_won=list(st["tricks_won"]),
            ),
        )
    )
    if over:
        ranking = sorted(range(len(balances)), key=lambda s: (-balances[s], s))
        top = balances[ranking[0]]
        out.emit(
            event(
                "MatchEnded",
                {
                    "scores": balances,
                    "ranking": ranking,
                    "winners": [s for s in ranking if balances[s] == top],
                    "rounds_played": st["round_no"],
                },
            )
        )
    else:
        _deal(out, seed, (st["dealer"] + 1) % len(st["players"]))
