"""Who may bring a newcomer into a game (the key that owns it), tournaments' tables take no newcomers,
a newcomer's name already at the table is the same 409 name-taken as a claim's, and two seats of a
game never hold the same name."""

from __future__ import annotations

import json

import pytest

from .conftest import bearer
from .helpers import create

PROBLEM = "urn:naipes:problem:"
JOINING = {"allow_joining": True, "hands": 2}


def _problem(r, status: int, kind: str) -> dict:
    body = r.get_json()
    assert r.status_code == status, (r.status_code, body)
    assert r.mimetype == "application/problem+json"
    assert body["type"] == PROBLEM + kind, body
    assert "st_" not in json.dumps(body)
    return body


def test_only_the_owning_key_brings_a_newcomer(client, service, integrator):
    other = bearer(service.keys.create("someone else", ["games"])["key"])
    g = create(client, integrator, players=list("abcd"), options=JOINING)
    before = client.get(f"/games/{g['id']}").get_json()["version"]
    r = client.post(f"/games/{g['id']}/players", json={"player": "intruder"}, headers=other)
    body = _problem(r, 403, "forbidden")
    assert "owner" in body["title"].lower() or "owner" in body["detail"].lower(), body
    assert client.get(f"/games/{g['id']}").get_json()["version"] == before
    r = client.post(f"/games/{g['id']}/players", json={"player": "eve"}, headers=integrator)
    assert r.status_code == 201 and r.get_json()["token"].startswith("st_"), r.get_json()
    admin = bearer(service.keys.create("operator", ["games", "admin"])["key"])
    r = client.post(f"/games/{g['id']}/players", json={"player": "fay"}, headers=admin)
    assert r.status_code == 201, r.get_json()


def test_a_tournament_refuses_allow_joining_in_its_table_options(client, integrator):
    body = {
        "game": "dalmuti",
        "players": list("abcd"),
        "format": "swiss",
        "table_size": {"min": 4},
        "options": {"hands": 1, "allow_joining": True},
    }
    problem = _problem(client.post("/tournaments", json=body, headers=integrator), 422, "invalid-options")
    assert "allow_joining" in problem["detail"], problem


def test_a_newcomer_under_a_name_at_the_table_is_409_name_taken(client, integrator):
    g = create(client, integrator, players=list("abcd"), options=JOINING)
    before = client.get(f"/games/{g['id']}").get_json()["version"]
    _problem(client.post(f"/games/{g['id']}/players", json={"player": "b"}, headers=integrator), 409, "name-taken")
    assert client.get(f"/games/{g['id']}").get_json()["version"] == before
    r = client.post(f"/games/{g['id']}/players", json={"player": "eve"}, headers=integrator)
    assert r.status_code == 201, r.get_json()
    _problem(client.post(f"/games/{g['id']}/players", json={"player": "eve"}, headers=integrator), 409, "name-taken")


@pytest.mark.parametrize(
    ("game", "players", "field"),
    [
        ("cego", ["a", "a", "c"], "/players/1"),
        ("dalmuti", ["ana", "bea", "carl", "bea"], "/players/3"),
        ("cego", ["a", None, "a"], "/players/2"),
    ],
)
def test_two_seats_under_one_name_are_refused_naming_the_field(client, integrator, game, players, field):
    r = client.post("/games", json={"game": game, "players": players}, headers=integrator)
    body = _problem(r, 422, "duplicate-player")
    assert body["field"] == field, body


def test_a_placeholder_name_is_not_a_player_name_beside_an_open_seat(client, integrator):
    """An open seat shows 'seat 1' while it waits: a named player may not be called that."""
    r = client.post("/games", json={"game": "cego", "players": ["a", None, "seat 1"]}, headers=integrator)
    _problem(r, 422, "duplicate-player")
