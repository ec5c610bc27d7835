"""GET /me tells what a bearer credential is, through HTTP: an integrator key (its id, name, scopes and
rate-limit budget) or a seat of one game; never the credential itself."""

from __future__ import annotations

import random

import pytest

from service.core.keys import SCOPES, digest
from service.web.app import create_app

from .conftest import API_KEY, bearer
from .helpers import create, fresh_window, play_http, tokens
from .test_contract import conforms

SCOPE_SETS = [["games"], ["tournaments"], ["review"], ["admin"], ["games", "review"], list(SCOPES)]


def _no_secret(resp, *secrets: str) -> None:
    text = resp.get_data(as_text=True)
    for secret in secrets:
        assert secret not in text
        assert digest(secret) not in text
    assert "key" not in (resp.get_json().get("key") or {})  # the record's secret member is never there


@pytest.mark.parametrize("scopes", SCOPE_SETS, ids=["+".join(s) for s in SCOPE_SETS])
def test_a_key_is_told_its_id_name_and_scopes(client, service, scopes):
    made = service.keys.create(f"me-{'-'.join(scopes)}", scopes)
    r = client.get("/me", headers=bearer(made["key"]))
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert body["kind"] == "integrator" and "seat" not in body
    assert body["key"] == {"id": made["id"], "name": f"me-{'-'.join(scopes)}", "scopes": sorted(scopes)}
    assert body["rate_limit"] is None  # the test app runs without limits
    _no_secret(r, made["key"])
    conforms("get", "/me", r)


def test_the_environment_key_holds_every_scope(client, integrator):
    body = client.get("/me", headers=integrator).get_json()
    assert body["kind"] == "integrator"
    assert body["key"]["name"] == "environment key" and body["key"]["id"].startswith("env-")
    assert body["key"]["scopes"] == sorted(SCOPES)
    # a key with a game_id is still the key
    g = create(client, integrator, players=["a", "b", "c", "d"])
    assert client.get(f"/me?game_id={g['id']}", headers=integrator).get_json()["key"] == body["key"]


def test_a_seat_token_is_told_its_game_seat_and_player(client, integrator):
    players = ["ana", "bea", "carl", "dani"]
    g = create(client, integrator, players=players)
    for seat, token in tokens(g).items():
        assert (
            client.get("/me", headers=bearer(token)).get_json()
            == client.get(f"/me?game_id={g['id']}", headers=bearer(token)).get_json()
        ), "a seat token names its game: ?game_id= is not needed"
        r = client.get("/me", headers=bearer(token))
        assert r.status_code == 200, r.get_json()
        assert r.get_json() == {
            "kind": "seat",
            "seat": {"game_id": g["id"], "game": "dalmuti", "seat": seat, "player": players[seat], "finished": False},
            "rate_limit": None,
        }
        _no_secret(r, token)
        conforms("get", "/me", r)


def test_a_seat_of_a_finished_game_is_told_so(client, integrator):
    g = create(client, integrator, players=["ana", "bea", "carl", "dani"], options={"hands": 1})
    play_http(client, g, random.Random(5))
    me = client.get(f"/me?game_id={g['id']}", headers=bearer(tokens(g)[1])).get_json()
    assert me["seat"]["finished"] is True and me["seat"]["game"] == "dalmuti" and me["seat"]["player"] == "bea"


def test_no_credential_is_a_bearer_challenge(client):
    r = client.get("/me")
    assert r.status_code == 401 and r.mimetype == "application/problem+json"
    assert r.headers["WWW-Authenticate"] == 'Bearer realm="naipes"'
    assert r.get_json()["type"] == "urn:naipes:problem:unauthorized"
    conforms("get", "/me", r)


def test_a_bad_token_gets_the_401_of_every_route(client, integrator):
    g = create(client, integrator, players=["a", "b", "c", "d"])
    other = create(client, integrator, players=["a", "b", "c", "d"])
    for url, headers in [
        ("/me", bearer("nk_not_a_key")),
        (f"/me?game_id={g['id']}", bearer("st_not_a_seat")),
        (f"/me?game_id={g['id']}", bearer(tokens(other)[0])),  # a seat of another game
        ("/me", bearer("st_" + tokens(g)[0].split(".", 1)[1])),  # a token naming no game
    ]:
        r = client.get(url, headers=headers)
        assert r.status_code == 401, (url, r.get_json())
        assert r.get_json()["type"] == "urn:naipes:problem:unauthorized"
        assert r.headers["WWW-Authenticate"].startswith('Bearer realm="naipes", error="invalid_token"')
        conforms("get", "/me", r)
    elsewhere = client.get("/games", headers=bearer("nk_not_a_key"))
    assert (elsewhere.status_code, elsewhere.get_json()["type"]) == (401, "urn:naipes:problem:unauthorized")
    # a token for a game that does not exist identifies nothing either
    unknown = client.get("/me?game_id=nosuchgame", headers=bearer(tokens(g)[0]))
    assert unknown.status_code == 401 and "invalid_token" in unknown.headers["WWW-Authenticate"]
    assert client.get("/me?game_id=no/such", headers=integrator).status_code == 422


def test_a_revoked_key_is_refused_as_everywhere(client, service):
    made = service.keys.create("soon-gone", ["games"])
    assert client.get("/me", headers=bearer(made["key"])).status_code == 200
    service.keys.revoke(made["id"])
    r = client.get("/me", headers=bearer(made["key"]))
    assert r.status_code == 401 and r.get_json()["type"] == "urn:naipes:problem:key-revoked"
    assert "invalid_token" in r.headers["WWW-Authenticate"]
    elsewhere = client.get("/games", headers=bearer(made["key"]))
    assert elsewhere.get_json()["type"] == r.get_json()["type"] and elsewhere.status_code == 401
    _no_secret(r, made["key"])


def test_the_budget_is_the_keys_own_or_the_services(service, monkeypatch):
    monkeypatch.setenv("NAIPES_RATE_LIMIT_ADDRESS", "50 per minute")
    c = create_app(service, rate_limit="30 per minute").test_client()
    made = service.keys.create("budgeted", ["games"])
    fresh_window(60)
    first = c.get("/me", headers=bearer(made["key"])).get_json()["rate_limit"]
    assert first["limits"] == ["30 per minute"] and first["own"] is False
    assert first["address_limits"] == ["50 per minute"]
    assert [(w["policy"], w["quota"], w["window"], w["remaining"]) for w in first["windows"]] == [
        ("credential", 30, 60, 29)
    ]
    second = c.get("/me", headers=bearer(made["key"])).get_json()["rate_limit"]
    assert second["windows"][0]["remaining"] == 28

    service.keys.set_limit(made["id"], "1000 per hour")
    own = c.get("/me", headers=bearer(made["key"]))
    budget = own.get_json()["rate_limit"]
    assert budget["limits"] == ["1000 per hour"] and budget["own"] is True
    assert [(w["quota"], w["window"], w["remaining"]) for w in budget["windows"]] == [(1000, 3600, 999)]
    assert own.headers["RateLimit-Policy"] == '"credential";q=1000;w=3600'

    # a seat is counted by its seat and by its client address
    g = create(c, bearer(API_KEY), players=["a", "b", "c", "d"])
    env = {"REMOTE_ADDR": f"10.9.{random.randrange(256)}.{random.randrange(1, 255)}"}
    seat = c.get(f"/me?game_id={g['id']}", headers=bearer(tokens(g)[2]), environ_base=env).get_json()
    assert seat["rate_limit"]["own"] is False
    assert [(w["policy"], w["remaining"]) for w in seat["rate_limit"]["windows"]] == [
        ("credential", 29),
        ("address", 49),
    ]
