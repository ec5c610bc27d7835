"""Bots and checks shared by the HTTP tests."""

from __future__ import annotations

import random

from .conftest import bearer

# options for a short match of each game (one hand or round; two rounds of Cripple Mr Onion)
SHORT = {"dalmuti": {"hands": 1}, "cego": {"rounds": 1}, "muerte": {"games": 1}, "onion": {"rounds": 2}}


def create(client, integrator, game="dalmuti", players=None, options=None, status=201):
    players = players or ["ana", "bea", "carl", "dani", "eva"]
    r = client.post("/games", json={"game": game, "players": players, "options": options or {}}, headers=integrator)
    assert r.status_code == status, r.get_json()
    return r.get_json()


def tokens(created) -> dict[int, str]:
    return {s["seat"]: s["token"] for s in created["seats"]}


def play_http(client, created, rng: random.Random, on_step=None, max_moves=20000) -> dict:
    """Play a game to its end through the API, choosing among legal-moves only."""
    gid = created["id"]
    toks = tokens(created)
    for _ in range(max_moves):
        # a seat's view is live; a spectator's may be held back (a duplicate round's embargo)
        view = client.get(f"/games/{gid}", headers=bearer(toks[0])).get_json()
        if view["finished"]:
            return view
        seat = rng.choice(view["to_act"])
        lm = client.get(f"/games/{gid}/legal-moves", headers=bearer(toks[seat])).get_json()
        assert lm["moves"], f"seat {seat} must act but has no legal move"
        move = rng.choice(lm["moves"])
        r = client.post(f"/games/{gid}/moves", json=move, headers=bearer(toks[seat]))
        assert r.status_code == 201, (move, r.get_json())
        if on_step:
            on_step(gid, toks, r.get_json())
    raise AssertionError("game did not finish")


def private_seats(events: list[dict]) -> set[str]:
    out: set[str] = set()
    for e in events:
        out.update((e.get("private") or {}).keys())
    return out
