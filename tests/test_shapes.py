"""The shapes the contract publishes (each game's ``<Game>View``, ``<Game><Type>Data`` and
``<Game><Type>Private`` components, the same JSON Schemas GET /game-types/{game} gives as
``view_schema`` and ``event_schemas``) are the shapes the service answers over HTTP: the view of every
kind of caller while games of every type are played, and every event of their logs, the table's own
events among them (a creation with open seats, claims, a seat left and played by the table, a bot
seated, reviewers' rulings, a rematch, deals revealed).  The battery (tests/battery.py, ``shapes``)
checks the same schemas on many more matches, on the rules alone."""

from __future__ import annotations

import random

import pytest
from openapi_schema_validator import OAS30Validator

from domain import table as tables
from service.web.schemas import shape_components

from .conftest import bearer
from .helpers import SHORT, create, play_http, tokens

PLAYERS = {"dalmuti": 4, "cego": 3, "muerte": 6, "onion": 3}
COMPONENTS = shape_components()


def camel(name: str) -> str:
    return name[:1].upper() + name[1:]


def valid(component: str, value) -> None:
    schema = COMPONENTS[component]
    errors = sorted(OAS30Validator(schema).iter_errors(value), key=lambda e: list(e.absolute_path))
    assert not errors, f"{component}: /{'/'.join(map(str, errors[0].absolute_path))}: {errors[0].message}"


def check_events(client, gid: str, game: str, headers: dict) -> set[str]:
    events = client.get(f"/games/{gid}/events?limit=5000", headers=headers).get_json()["events"]
    for env in events:
        valid(camel(game) + env["type"] + "Data", env["data"])
        if env.get("private"):
            valid(camel(game) + env["type"] + "Private", env["private"])
    return {env["type"] for env in events}


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_every_callers_view_and_every_event_of_a_played_game_has_its_published_shape(client, integrator, game):
    players = [f"p{i}" for i in range(PLAYERS[game])]
    g = create(client, integrator, game, players=players, options=SHORT[game])
    toks, rng, shown = tokens(g), random.Random(game), []
    view_component = camel(game) + "View"

    def look(gid, _toks, _resp):
        if rng.random() < 0.3:
            for headers in ({}, integrator, bearer(toks[rng.randrange(len(players))])):
                state = client.get(f"/games/{gid}", headers=headers).get_json()["state"]
                valid(view_component, state)
                shown.append(state)

    play_http(client, g, rng, on_step=look)
    for headers in ({}, integrator, bearer(toks[0])):
        valid(view_component, client.get(f"/games/{g['id']}", headers=headers).get_json()["state"])
    assert len(shown) >= 3
    kinds = check_events(client, g["id"], game, integrator)
    check_events(client, g["id"], game, bearer(toks[1]))  # a seat's parts
    assert {tables.GAME_CREATED, tables.DEAL_REVEALED} <= kinds


def test_the_tables_own_events_have_their_published_shapes(client, integrator, service):
    """Open seats claimed, a seat left after the start (the table plays it: TurnTimedOut, absent), a bot
    in its seat, a reviewer's freeze, note and rulings, a rematch: each event as its component says."""
    g = create(client, integrator, "cego", players=["ana", None, "cy"], options={"rounds": 1})
    gid = g["id"]
    invitation = g["invitations"][0]
    claimed = client.post(
        f"/games/{gid}/seats/1/claim", json={"player": "bo"}, headers=bearer(invitation["invitation"])
    )
    assert claimed.status_code == 201, claimed.get_json()
    toks = {0: g["seats"][0]["token"], 1: claimed.get_json()["token"], 2: g["seats"][1]["token"]}
    assert client.post(f"/games/{gid}/seats/2/leave", headers=bearer(toks[2])).status_code == 200
    assert client.post(f"/games/{gid}/seats/2/bot", json={"bot": "random"}, headers=integrator).status_code == 201
    review = [
        ("freeze", {"reason": "a look at the deal"}),
        ("notes", {"version": 1, "text": "the deal is as committed"}),
        ("adjudications", {"action": "unfreeze", "reason": "all clear"}),
        ("adjudications", {"action": "award", "reason": "a ruling", "scores": [3, 1, -4]}),
        ("adjudications", {"action": "correct_score", "reason": "a count", "deltas": [0, 1, -1]}),
    ]
    for route, body in review:
        r = client.post(f"/games/{gid}/{route}", json=body, headers=integrator)
        assert r.status_code == 201, (route, r.get_json())
    assert client.post(f"/games/{gid}/rematch", headers=integrator).status_code == 201
    kinds = check_events(client, gid, "cego", integrator)
    assert {
        tables.GAME_CREATED,
        tables.SEAT_CLAIMED,
        tables.SEAT_LEFT,
        tables.BOT_SEATED,
        tables.GAME_FROZEN,
        tables.NOTE_ADDED,
        tables.ADJUDICATED,
        tables.REMATCH_CREATED,
        tables.DEAL_REVEALED,
    } <= kinds, kinds
    voided = create(client, integrator, "dalmuti", players=list("abcd"), options=SHORT["dalmuti"])
    r = client.post(
        f"/games/{voided['id']}/adjudications", json={"action": "void", "reason": "r", "hand": 1}, headers=integrator
    )
    assert r.status_code == 201, r.get_json()
    check_events(client, voided["id"], "dalmuti", integrator)


def test_a_turn_the_table_played_has_its_published_shape(client, integrator, service):
    """TurnTimedOut (its move is one of the game's moves) as the deadline enforcer appends it."""
    for game in sorted(PLAYERS):
        g = create(client, integrator, game, players=[f"p{i}" for i in range(PLAYERS[game])], options=SHORT[game])
        gid = g["id"]
        for _ in range(3):
            table = service.tables.table(gid)
            seat = service.reads.state_view(gid, service.identity.viewer(gid, None))["to_act"][0]
            events = service.appender.timeout_events(table, seat, "deadline")
            envs, new = service.appender.append_events(gid, table, events, actor="worker", stamp=table["updated_at"])
            service.appender.commit(gid, table, new, envs)
        assert tables.TURN_TIMED_OUT in check_events(client, gid, game, integrator)
