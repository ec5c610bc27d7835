"""What one game may ask of the bots' worker: at most MAX_SEARCH_SEATS ``search`` seats (a creation
asking for more is refused, naming the limit), and a search bot's move stops at its thinking budget
(simulated moves as well as iterations), so that a move stays cheap at a table of sixteen."""

from __future__ import annotations

import random

import pytest

from domain import registry
from domain.bots import search
from service.core import bots, catalogue

PLAYERS16 = [f"p{i}" for i in range(16)]


def _create(client, integrator, players, options):
    return client.post("/games", json={"game": "dalmuti", "players": players, "options": options}, headers=integrator)


def _refused_for_search_seats(r, asked: int) -> dict:
    assert r.status_code == 422, (r.status_code, r.get_json())
    assert r.mimetype == "application/problem+json"
    body = r.get_json()
    assert body["type"] == "urn:naipes:problem:invalid-options", body
    assert body["rule"] == "search-bot-seats", body
    assert f"at most {catalogue.MAX_SEARCH_SEATS}" in body["detail"] and f"{asked}" in body["detail"], body
    return body


def test_sixteen_search_bots_for_a_hundred_hands_are_refused(client, integrator):
    options = {"hands": 100, "bots": {str(s): "search" for s in range(16)}}
    _refused_for_search_seats(_create(client, integrator, PLAYERS16, options), 16)


def test_one_search_seat_over_the_limit_is_refused_and_the_limit_is_accepted(client, integrator):
    limit = catalogue.MAX_SEARCH_SEATS
    over = {str(s): "search" for s in range(limit + 1)}
    _refused_for_search_seats(_create(client, integrator, PLAYERS16, {"hands": 1, "bots": over}), limit + 1)
    # the limit itself, the other seats heuristic and random bots: accepted
    kinds = {str(s): "search" if s < limit else ("heuristic" if s % 2 else "random") for s in range(16)}
    r = _create(client, integrator, PLAYERS16, {"hands": 1, "bots": kinds})
    assert r.status_code == 201, r.get_json()
    # the other kinds have no such limit
    r = _create(client, integrator, PLAYERS16, {"hands": 1, "bots": {str(s): "heuristic" for s in range(16)}})
    assert r.status_code == 201, r.get_json()


def _a_decision(players: int, seed: int = 3) -> tuple[dict, int]:
    """A Dalmuti table (as the workers read it) at a point where a seat has several legal moves."""
    m = registry.get("dalmuti")
    rnd = random.Random(seed)
    state = m.initial_state([f"p{i}" for i in range(players)], {})
    for ev in m.decide(state, {"type": "start", "seat": None, "seed": 1}):
        state = m.evolve(state, ev)
    while True:
        seat = m.to_act(state)[0]
        moves = m.legal_moves(state, seat)
        if len(moves) > 2:
            bot = {"bots": {str(seat): "search"}}
            return {"game": "dalmuti", "state": state, "hash": "ab" * 32, "timing": bot}, seat
        for ev in m.decide(state, {**moves[0], "seat": seat, "seed": rnd.getrandbits(63)}):
            state = m.evolve(state, ev)


@pytest.fixture()
def counted(monkeypatch):
    """Every move the search simulates, and every iteration it runs."""
    tally = {"moves": 0, "iterations": 0}
    step, iterate = search.Search.step, search.Search.iterate

    def counting_step(self, *args):
        tally["moves"] += 1
        return step(self, *args)

    def counting_iterate(self):
        tally["iterations"] += 1
        return iterate(self)

    monkeypatch.setattr(search.Search, "step", counting_step)
    monkeypatch.setattr(search.Search, "iterate", counting_iterate)
    return tally


def test_a_search_move_at_a_table_of_sixteen_stops_at_its_budget_of_simulated_moves(monkeypatch, counted):
    monkeypatch.setitem(bots.BUDGETS, "search", 200)  # the workers' default
    table, seat = _a_decision(16)
    actor, move = bots.decide(table, seat)
    assert actor == "bot:search"
    assert move in registry.get("dalmuti").legal_moves(table["state"], seat)
    # it stopped before its 200 iterations: a playout of sixteen players runs far longer than the allowance
    assert counted["iterations"] < 200, counted
    limit = 200 * bots.SEARCH_MOVES_PER_ITERATION
    # and within one playout of the budget (it is checked between iterations)
    assert limit <= counted["moves"] <= limit + search.MAX_PLAYOUT, counted
    # the same table at the same version: the same move (the budget is counted, not timed)
    assert bots.decide(table, seat) == (actor, move)


def test_a_search_move_at_a_small_table_runs_its_iterations(monkeypatch, counted):
    monkeypatch.setitem(bots.BUDGETS, "search", 16)
    table, seat = _a_decision(4)
    actor, move = bots.decide(table, seat)
    assert move in registry.get("dalmuti").legal_moves(table["state"], seat)
    assert counted["iterations"] <= 16


def test_a_bot_seated_later_counts_against_the_same_limit(client, integrator):
    """``/seats/{n}/bot`` may not take a game past MAX_SEARCH_SEATS search bots either."""
    limit = catalogue.MAX_SEARCH_SEATS
    options = {"hands": 1, "bots": {str(s): "search" for s in range(1, limit + 1)}}
    r = _create(client, integrator, [f"p{i}" for i in range(limit + 2)], options)
    assert r.status_code == 201, r.get_json()
    gid, seat = r.get_json()["id"], limit + 1
    token = next(s["token"] for s in r.get_json()["seats"] if s["seat"] == seat)
    left = client.post(f"/games/{gid}/seats/{seat}/leave", headers={"Authorization": f"Bearer {token}"})
    assert left.status_code == 200, left.get_json()
    url = f"/games/{gid}/seats/{seat}/bot"
    _refused_for_search_seats(client.post(url, json={"bot": "search"}, headers=integrator), limit + 1)
    assert client.post(url, json={"bot": "heuristic"}, headers=integrator).status_code == 201


def test_a_tournament_whose_tables_would_seat_too_many_search_bots_is_refused(client, integrator):
    """A tournament's table is created with its players' bots: one that could seat more search bots than
    a game takes is refused when the tournament is made, not when a round would stall on it."""
    limit = catalogue.MAX_SEARCH_SEATS
    players = [f"p{i}" for i in range(limit + 1)]
    body = {
        "game": "dalmuti",
        "players": players,
        "format": "swiss",
        "table_size": {"min": limit + 1},
        "options": {"hands": 1},
        "bots": dict.fromkeys(players, "search"),
    }
    _refused_for_search_seats(client.post("/tournaments", json=body, headers=integrator), limit + 1)
    body["bots"] = dict.fromkeys(players[:limit], "search")
    r = client.post("/tournaments", json=body, headers=integrator)
    assert r.status_code == 201, r.get_json()
