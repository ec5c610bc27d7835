"""Open seats, invitations, leaving, rematches, the lobby and GET /me, attacked through HTTP: the wrong
credential, the wrong seat, odd input and racing requests.  Every refusal is a 4xx problem+json naming
what is wrong, gives no token, and leaves the game as it was (its version and its hash chain)."""

from __future__ import annotations

import json
import random
import threading
import time

import pytest
import requests

from service.core.identity import AUTH_TTL
from service.core.naipes import Naipes
from service.web.app import create_app

from .conftest import API_KEY, bearer
from .helpers import play_http
from .live import live_server  # noqa: F401

DALMUTI = {"hands": 1}
PROBLEM = "urn:naipes:problem:"


def _create(client, integrator, players, game="dalmuti", options=None) -> dict:
    r = client.post(
        "/games", json={"game": game, "players": players, "options": options or DALMUTI}, headers=integrator
    )
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def _refused(r, status: int, kind: str) -> dict:
    """A refusal: the status, a problem+json of that type, a detail, and no token."""
    body = r.get_json()
    assert r.status_code == status, (r.status_code, body)
    assert r.mimetype == "application/problem+json", r.mimetype
    assert body["type"] == PROBLEM + kind, body
    assert body.get("detail"), body
    assert "token" not in body and "st_" not in json.dumps(body)
    return body


def _state(client, integrator, gid) -> tuple[int, str]:
    """The game's version and head hash, after checking its hash chain."""
    audit = client.get(f"/games/{gid}/audit", headers=integrator)
    assert audit.status_code == 200, audit.get_json()
    body = audit.get_json()
    assert body["chain"]["ok"] is True, body["chain"]
    return body["version"], body["head_hash"]


def _void(client, integrator, gid) -> None:
    r = client.post(f"/games/{gid}/adjudications", json={"action": "void", "reason": "abandoned"}, headers=integrator)
    assert r.status_code == 201, r.get_json()


def _claim(client, gid, seat, invitation, player):
    return client.post(f"/games/{gid}/seats/{seat}/claim", json={"player": player}, headers=bearer(invitation))


def _works(client, gid, token) -> bool:
    code = client.get(f"/games/{gid}/legal-moves", headers=bearer(token)).status_code
    assert code in (200, 401), code
    return code == 200


# ------------------------------------------------------------ claiming
def test_bad_claims_are_named_and_change_nothing(client, integrator):
    created = _create(client, integrator, ["ana", None, None, "dani"])
    other = _create(client, integrator, [None, "bea", "carl", "dani"])
    gid, inv = created["id"], {i["seat"]: i["invitation"] for i in created["invitations"]}
    before = _state(client, integrator, gid)
    url = f"/games/{gid}/seats/1/claim"
    cases = [
        # another game's invitation, another seat's
        (_claim(client, gid, 1, other["invitations"][0]["invitation"], "eli"), 409, "wrong-invitation"),
        (_claim(client, gid, 1, inv[2], "eli"), 409, "wrong-invitation"),
        # names: taken, long, control characters, blank, not a string
        (_claim(client, gid, 1, inv[1], "ana"), 409, "name-taken"),
        (_claim(client, gid, 1, inv[1], "x" * 10_000), 422, "invalid-request"),
        (_claim(client, gid, 1, inv[1], "x" * 65), 422, "invalid-request"),
        (_claim(client, gid, 1, inv[1], "eli\x00"), 422, "invalid-request"),
        (_claim(client, gid, 1, inv[1], "eli\nbea"), 422, "invalid-request"),
        (_claim(client, gid, 1, inv[1], "eli\u202e"), 422, "invalid-request"),
        (_claim(client, gid, 1, inv[1], "   "), 422, "invalid-players"),
        (_claim(client, gid, 1, inv[1], None), 422, "invalid-request"),
        (_claim(client, gid, 1, inv[1], 7), 422, "invalid-request"),
        (_claim(client, gid, 1, inv[1], ["eli"]), 422, "invalid-request"),
        (client.post(url, data="player=eli", headers=bearer(inv[1])), 415, "unsupported-media-type"),
        (
            client.post(url, data="{", headers={**bearer(inv[1]), "Content-Type": "application/json"}),
            400,
            "bad-request",
        ),
        (client.post(url, json=["eli"], headers=bearer(inv[1])), 422, "invalid-request"),
        # seats the game does not have
        (_claim(client, gid, 4, inv[1], "eli"), 422, "bad-seat"),
        (_claim(client, gid, 999999999, inv[1], "eli"), 422, "bad-seat"),
        (_claim(client, gid, "9" * 40, inv[1], "eli"), 422, "bad-seat"),
        (_claim(client, gid, "-1", inv[1], "eli"), 422, "bad-seat"),
        (_claim(client, gid, "1.0", inv[1], "eli"), 422, "bad-seat"),
        (_claim(client, gid, "\u0661", inv[1], "eli"), 422, "bad-seat"),  # an Arabic-Indic one
        # a seat given its player at creation: it never had an invitation
        (_claim(client, gid, 0, inv[1], "eli"), 409, "seat-not-open"),
        # credentials that are no invitation
        (_claim(client, gid, 1, API_KEY, "eli"), 401, "unauthorized"),
        (_claim(client, gid, 1, created["seats"][0]["token"], "eli"), 401, "unauthorized"),
        (_claim(client, gid, 1, "inv_" + "a" * 600, "eli"), 401, "unauthorized"),
        (_claim(client, gid, 1, "inv_\u00e9", "eli"), 401, "unauthorized"),
        (_claim(client, gid, 1, "inv_", "eli"), 409, "wrong-invitation"),
        (client.post(url, json={"player": "eli"}, headers={"Authorization": "Basic " + inv[1]}), 401, "unauthorized"),
        (client.post(url, json={"player": "eli"}), 401, "unauthorized"),
        # a game that does not exist
        (_claim(client, "0123456789abcdef", 1, inv[1], "eli"), 404, "game-not-found"),
    ]
    wrong = []
    for i, (r, status, kind) in enumerate(cases):
        try:
            body = _refused(r, status, kind)
        except AssertionError as exc:
            wrong.append((i, str(exc)[:300]))
            continue
        if kind == "invalid-request":
            assert "player" in json.dumps(body["errors"]) or "_schema" in json.dumps(body["errors"]), (i, body)
    assert not wrong, wrong
    assert _state(client, integrator, gid) == before
    seats = client.get(f"/games/{gid}/seats").get_json()
    assert seats["open"] == [1, 2] and not seats["started"]
    # the invitation still works after all that
    assert _claim(client, gid, 1, inv[1], "eli").status_code == 201


def test_a_name_must_not_be_another_seats_placeholder(client, integrator):
    """A claimed seat named like the placeholder of a seat still open ('seat 2') would show two
    'seat 2' at the table: one a player, one waiting."""
    created = _create(client, integrator, ["ana", None, None, "dani"])
    gid, inv = created["id"], {i["seat"]: i["invitation"] for i in created["invitations"]}
    _refused(_claim(client, gid, 1, inv[1], "seat 2"), 409, "name-taken")
    assert _claim(client, gid, 1, inv[1], "seat 1").status_code == 201  # its own placeholder is no other's


def test_claims_after_the_start_and_after_the_end(client, integrator):
    created = _create(client, integrator, ["ana", None, "carl", "dani"])
    gid, code = created["id"], created["invitations"][0]["invitation"]
    assert _claim(client, gid, 1, code, "bea").get_json()["started"] is True
    version = _state(client, integrator, gid)
    _refused(_claim(client, gid, 1, code, "eli"), 410, "invitation-used")  # claimed: its invitation was used
    _refused(_claim(client, gid, 2, code, "eli"), 409, "seat-not-open")  # named at creation: it had none
    assert _state(client, integrator, gid) == version

    waiting = _create(client, integrator, ["ana", None, "carl", None])
    wid, codes = waiting["id"], [i["invitation"] for i in waiting["invitations"]]
    _void(client, integrator, wid)
    version = _state(client, integrator, wid)
    _refused(_claim(client, wid, 1, codes[0], "bea"), 409, "game-finished")
    _refused(client.post(f"/games/{wid}/seats/1/invitation", headers=integrator), 409, "game-finished")
    assert _state(client, integrator, wid) == version


def _race(url: str, requests_: list[tuple[str, dict, dict | None]]) -> list[requests.Response]:
    """Fire the requests at once from threads against the real server."""
    barrier = threading.Barrier(len(requests_))
    out: list = [None] * len(requests_)

    def go(i, path, headers, body):
        barrier.wait()
        out[i] = requests.post(url + path, json=body, headers=headers, timeout=30)

    threads = [threading.Thread(target=go, args=(i, *req)) for i, req in enumerate(requests_)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


@pytest.mark.parametrize("round_", range(10))
def test_racing_claims_of_one_seat_give_one_token(live_server, client, integrator, round_):
    created = _create(client, integrator, ["ana", None, "carl", None])
    gid, code = created["id"], created["invitations"][0]["invitation"]
    names = [f"p{i}" for i in range(8)]
    found = _race(live_server.url, [(f"/games/{gid}/seats/1/claim", bearer(code), {"player": n}) for n in names])
    won = [r for r in found if r.status_code == 201]
    assert len(won) == 1, [(r.status_code, r.text) for r in found]
    for r in found:
        if r.status_code != 201:
            assert r.status_code == 410 and r.json()["type"] == PROBLEM + "invitation-used", r.text
            assert "token" not in r.json()
    winner = won[0].json()
    assert _works(client, gid, winner["token"])
    events = client.get(f"/games/{gid}/events?after=0").get_json()["events"]
    assert [e["data"]["player"] for e in events if e["type"] == "SeatClaimed"] == [winner["player"]]
    assert client.get(f"/games/{gid}").get_json()["players"][1] == winner["player"]
    assert _state(client, integrator, gid)[0] == 2


def test_racing_claims_of_the_last_seats_start_the_game_once(live_server, client, integrator):
    for _ in range(3):
        created = _create(client, integrator, [None, "bea", None, None])
        gid, inv = created["id"], {i["seat"]: i["invitation"] for i in created["invitations"]}
        found = _race(
            live_server.url,
            [(f"/games/{gid}/seats/{s}/claim", bearer(inv[s]), {"player": f"p{s}"}) for s in (0, 2, 3)],
        )
        assert [r.status_code for r in found] == [201, 201, 201], [r.text for r in found]
        assert sum(r.json()["started"] for r in found) == 1
        full = _create(client, integrator, ["p0", "bea", "p2", "p3"])
        kinds = [e["type"] for e in client.get(f"/games/{gid}/events?after=0").get_json()["events"]]
        plain = [e["type"] for e in client.get(f"/games/{full['id']}/events?after=0").get_json()["events"]]
        # the same events as a game created full, besides the claims
        assert [k for k in kinds if k != "SeatClaimed"] == plain
        assert kinds.count("SeatClaimed") == 3
        view = client.get(f"/games/{gid}").get_json()
        assert view["players"] == ["p0", "bea", "p2", "p3"] and view["to_act"]
        _state(client, integrator, gid)


def test_racing_claims_of_one_name_seat_it_once(live_server, client, integrator):
    created = _create(client, integrator, ["ana", None, None, "dani"])
    gid, inv = created["id"], {i["seat"]: i["invitation"] for i in created["invitations"]}
    found = _race(
        live_server.url, [(f"/games/{gid}/seats/{s}/claim", bearer(inv[s]), {"player": "eli"}) for s in (1, 2)]
    )
    assert sorted(r.status_code for r in found) == [201, 409], [r.text for r in found]
    lost = next(r for r in found if r.status_code == 409)
    assert lost.json()["type"] == PROBLEM + "name-taken" and "token" not in lost.json()
    assert client.get(f"/games/{gid}").get_json()["players"].count("eli") == 1


# ------------------------------------------------------------ leaving
def test_bad_leaves_are_refused_and_change_nothing(client, integrator, service):
    created = _create(client, integrator, ["ana", "bea", "carl", "dani"])
    other = _create(client, integrator, ["ana", "bea", "carl", "dani"])
    gid, toks = created["id"], {s["seat"]: s["token"] for s in created["seats"]}
    foreign = service.keys.create("stranger", ["games"])["key"]
    before = _state(client, integrator, gid)
    leave = f"/games/{gid}/seats/%s/leave"
    _refused(client.post(leave % 1, headers=bearer(toks[2])), 403, "forbidden")
    _refused(client.post(leave % 1, headers=integrator), 403, "seat-required")
    _refused(client.post(leave % 1, headers=bearer(foreign)), 403, "seat-required")
    _refused(client.post(leave % 1), 401, "unauthorized")
    _refused(client.post(leave % 1, headers=bearer(other["seats"][1]["token"])), 401, "unauthorized")
    forged = f"st_{gid}." + other["seats"][1]["token"].split(".", 1)[1]  # this game's name, another's secret
    _refused(client.post(leave % 1, headers=bearer(forged)), 401, "unauthorized")
    _refused(client.post(leave % "x", headers=bearer(toks[1])), 422, "bad-seat")
    _refused(client.post(leave % 9, headers=bearer(toks[1])), 403, "forbidden")
    _refused(client.post("/games/0123456789abcdef/seats/1/leave", headers=bearer(toks[1])), 404, "game-not-found")
    assert _state(client, integrator, gid) == before

    assert client.post(leave % 1, headers=bearer(toks[1])).status_code == 200
    after = _state(client, integrator, gid)
    _refused(client.post(leave % 1, headers=bearer(toks[1])), 401, "unauthorized")  # leaving twice
    _refused(client.post(f"/games/{gid}/moves", json={"type": "pass"}, headers=bearer(toks[1])), 401, "unauthorized")
    _refused(client.post(f"/games/{gid}/rematch", headers=bearer(toks[1])), 401, "unauthorized")
    _refused(client.get("/me", headers=bearer(toks[1])), 401, "unauthorized")
    # the owner cannot invite anyone to a seat left after the start
    _refused(client.post(f"/games/{gid}/seats/1/invitation", headers=integrator), 409, "seat-not-open")
    assert _state(client, integrator, gid) == after


def test_racing_leaves_of_one_seat_append_one_seat_left(live_server, client, integrator):
    created = _create(client, integrator, ["ana", None, "carl", None])
    gid = created["id"]
    tok = created["seats"][0]["token"]
    found = _race(live_server.url, [(f"/games/{gid}/seats/0/leave", bearer(tok), None) for _ in range(6)])
    assert sorted(r.status_code for r in found)[0] == 200
    # one leave is appended; a leave racing it within the same millisecond made the very same event
    # (same actor, data and stamp), which the store answers as made (events/store.py): the same answer
    assert len({r.text for r in found if r.status_code == 200}) == 1, [r.text for r in found]
    for r in found:
        assert r.status_code in (200, 401, 409), r.text
    events = client.get(f"/games/{gid}/events?after=0").get_json()["events"]
    assert [e["type"] for e in events].count("SeatLeft") == 1
    assert client.get(f"/games/{gid}/seats").get_json()["open"] == [0, 1, 3]
    _state(client, integrator, gid)


def test_leaving_does_not_revoke_the_next_claimers_token(client, integrator, service, monkeypatch):
    """A seat left before the start is open at once: a newcomer may claim it before the leave has
    revoked the leaver's tokens, and the newcomer's token must survive that revocation."""
    created = _create(client, integrator, ["ana", None, "carl", None])
    gid = created["id"]
    bea = _claim(client, gid, 1, created["invitations"][0]["invitation"], "bea").get_json()
    owner = service.visibility.context(gid).owner
    commit = service.appender.commit
    newcomer: dict = {}

    def commit_then_claim(game_id, table, new, envs):
        commit(game_id, table, new, envs)
        if game_id == gid and not newcomer and 1 in new.get("open", ()):  # the leave, just stored
            owner_viewer = service.identity.integrator(API_KEY)
            assert owner_viewer.key_id == owner
            code = service.seats.new_invitation(gid, 1, owner_viewer)["invitation"]
            newcomer.update(service.seats.claim(gid, 1, code, "flor"))

    monkeypatch.setattr(service.appender, "commit", commit_then_claim)
    r = client.post(f"/games/{gid}/seats/1/leave", headers=bearer(bea["token"]))
    assert r.status_code == 200, r.get_json()
    monkeypatch.setattr(service.appender, "commit", commit)
    assert newcomer["player"] == "flor"
    assert not _works(client, gid, bea["token"])
    assert _works(client, gid, newcomer["token"])
    assert client.get("/me", headers=bearer(newcomer["token"])).get_json()["seat"]["player"] == "flor"


def test_a_left_seats_token_stops_working_in_every_worker(client, integrator, redis_client):
    created = _create(client, integrator, ["ana", "bea", "carl", "dani"])
    gid, tok = created["id"], created["seats"][1]["token"]
    second = create_app(Naipes(redis_client, api_keys=[API_KEY]), rate_limit="off").test_client()
    assert _works(second, gid, tok)  # the other worker has the game's tokens cached
    assert client.post(f"/games/{gid}/seats/1/leave", headers=bearer(tok)).status_code == 200
    assert not _works(client, gid, tok)
    # the other process trusts its copy of the game's tokens AUTH_TTL seconds at most (as keys: 2 s)
    time.sleep(AUTH_TTL + 0.1)
    assert not _works(second, gid, tok)


def test_the_owner_only_invites_to_an_open_seat(client, integrator, service):
    created = _create(client, integrator, ["ana", None, "carl", "dani"])
    gid = created["id"]
    stranger = service.keys.create("stranger", ["games"])["key"]
    reviewer = service.keys.create("reviewer", ["review"])["key"]
    before = _state(client, integrator, gid)
    url = f"/games/{gid}/seats/1/invitation"
    _refused(client.post(url, headers=bearer(stranger)), 403, "forbidden")
    _refused(client.post(url, headers=bearer(reviewer)), 403, "scope-missing")
    _refused(
        client.post(url, headers=bearer(created["seats"][0]["token"])), 403, "forbidden"
    )  # a seat token of the game, known as one
    _refused(client.post(url), 401, "unauthorized")
    _refused(client.post(f"/games/{gid}/seats/0/invitation", headers=integrator), 409, "seat-not-open")
    _refused(client.post(f"/games/{gid}/seats/4/invitation", headers=integrator), 422, "bad-seat")
    _refused(client.post("/games/0123456789abcdef/seats/1/invitation", headers=integrator), 404, "game-not-found")
    assert _state(client, integrator, gid) == before
    first = created["invitations"][0]["invitation"]
    new = client.post(url, headers=integrator)
    assert new.status_code == 201
    _refused(_claim(client, gid, 1, first, "bea"), 409, "wrong-invitation")  # the earlier stops working
    assert _claim(client, gid, 1, new.get_json()["invitation"], "bea").status_code == 201


# ------------------------------------------------------------ rematches
def _finished(client, integrator, players=("ana", "bea", "carl", "dani")) -> dict:
    created = _create(client, integrator, list(players), game="cego", options={"rounds": 1})
    r = client.post(
        f"/games/{created['id']}/adjudications",
        json={"action": "award", "scores": [3, 2, 1, 0], "reason": "agreed"},
        headers=integrator,
    )
    assert r.status_code == 201, r.get_json()
    return created


def test_bad_rematches_are_refused_and_change_nothing(client, integrator, service):
    running = _create(client, integrator, ["ana", "bea", "carl", "dani"])
    rid = running["id"]
    before = _state(client, integrator, rid)
    _refused(
        client.post(f"/games/{rid}/rematch", headers=bearer(running["seats"][0]["token"])), 409, "game-not-finished"
    )
    _refused(client.post(f"/games/{rid}/rematch", headers=integrator), 409, "game-not-finished")
    assert _state(client, integrator, rid) == before

    done = _finished(client, integrator)
    gid = done["id"]
    stranger = service.keys.create("stranger", ["games"])["key"]
    before = _state(client, integrator, gid)
    url = f"/games/{gid}/rematch"
    _refused(client.post(url), 401, "unauthorized")  # a spectator
    _refused(client.post(url, headers=bearer(stranger)), 403, "forbidden")
    _refused(client.post(url, headers=bearer(running["seats"][0]["token"])), 401, "unauthorized")  # another game's
    _refused(client.post(url, headers=bearer("st_" + gid + ".nope")), 401, "unauthorized")
    _refused(client.post(url, headers=bearer("x" * 600)), 401, "unauthorized")
    _refused(client.post("/games/0123456789abcdef/rematch", headers=integrator), 404, "game-not-found")
    assert _state(client, integrator, gid) == before
    assert client.get(f"/games/{gid}/seats").get_json()["rematch"] is None


def test_a_rematch_of_a_game_that_never_started_is_refused(client, integrator):
    """Its open seats hold placeholders ('seat 1'), which are nobody's names."""
    created = _create(client, integrator, ["ana", None, "carl", None])
    gid = created["id"]
    _void(client, integrator, gid)
    before = _state(client, integrator, gid)
    _refused(client.post(f"/games/{gid}/rematch", headers=integrator), 409, "game-not-started")
    _refused(
        client.post(f"/games/{gid}/rematch", headers=bearer(created["seats"][0]["token"])), 409, "game-not-started"
    )
    assert _state(client, integrator, gid) == before


def test_every_seat_gets_its_own_players_token_and_the_chain_holds(client, integrator):
    gid, created = None, _finished(client, integrator)
    gid, toks = created["id"], {s["seat"]: s["token"] for s in created["seats"]}
    chain = [gid]
    for _ in range(3):
        who = {s: client.get("/me", headers=bearer(t)).get_json()["seat"]["player"] for s, t in toks.items()}
        new_toks, new_id = {}, None
        for seat, tok in toks.items():
            r = client.post(f"/games/{gid}/rematch", headers=bearer(tok))
            assert r.status_code == 201, r.get_json()
            body = r.get_json()
            new_id = new_id or body["id"]
            assert body["id"] == new_id and len(body["seats"]) == 1
            me = client.get("/me", headers=bearer(body["seats"][0]["token"])).get_json()["seat"]
            assert me == {**me, "game_id": new_id, "seat": body["seat"], "player": who[seat]}
            assert body["seats"][0]["player"] == who[seat]
            new_toks[body["seat"]] = body["seats"][0]["token"]
        assert sorted(new_toks) == [0, 1, 2, 3]
        # the old tokens still read the old game, and do not act in the new one
        for tok in toks.values():
            assert not _works(client, new_id, tok)
        r = client.post(
            f"/games/{new_id}/adjudications",
            json={"action": "award", "scores": [0, 1, 2, 3], "reason": "agreed"},
            headers=integrator,
        )
        assert r.status_code == 201
        chain.append(new_id)
        gid, toks = new_id, new_toks
    for before, after in zip(chain, chain[1:]):
        assert client.get(f"/games/{before}/seats").get_json()["rematch"] == after
        assert client.get(f"/games/{after}/seats").get_json()["rematch_of"] == before
        _state(client, integrator, before)


def test_a_player_who_left_has_an_open_seat_in_the_rematch(client, integrator):
    """Nobody holds a left seat's token: seated in the rematch, its player would stall it for good."""
    created = _create(client, integrator, ["ana", "bea", "carl", "dani"], game="cego", options={"rounds": 1})
    gid, toks = created["id"], {s["seat"]: s["token"] for s in created["seats"]}
    assert client.post(f"/games/{gid}/seats/2/leave", headers=bearer(toks[2])).status_code == 200
    _void(client, integrator, gid)
    _refused(client.post(f"/games/{gid}/rematch", headers=bearer(toks[2])), 401, "unauthorized")
    ana = client.post(f"/games/{gid}/rematch", headers=bearer(toks[0]))
    assert ana.status_code == 201, ana.get_json()
    new_id = ana.get_json()["id"]
    assert "invitations" not in ana.get_json()  # a seat is shown no invitation
    seats = client.get(f"/games/{new_id}/seats").get_json()
    assert seats["open"] == [1] and not seats["started"]  # carl sat at seat 2; rotated, at seat 1
    assert [s["player"] for s in seats["seats"]] == ["bea", None, "dani", "ana"]
    assert new_id in {g["id"] for g in client.get("/lobby?limit=500", headers=integrator).get_json()["games"]}
    owner = client.post(f"/games/{gid}/rematch", headers=integrator)
    assert owner.status_code == 201, owner.get_json()
    body = owner.get_json()
    assert [s["seat"] for s in body["seats"]] == [0, 2, 3]
    assert [i["seat"] for i in body["invitations"]] == [1]
    claimed = _claim(client, new_id, 1, body["invitations"][0]["invitation"], "eli")
    assert claimed.status_code == 201 and claimed.get_json()["started"]
    # the owner's later call hands out every seat's token, the claimed one too, and no invitation
    again = client.post(f"/games/{gid}/rematch", headers=integrator).get_json()
    assert [s["player"] for s in again["seats"]] == ["bea", "eli", "dani", "ana"] and "invitations" not in again
    for s in again["seats"]:
        assert _works(client, new_id, s["token"])
    _state(client, integrator, new_id)


def test_a_duplicate_rounds_table_shows_nothing_past_its_horizon_and_has_no_rematch(client, integrator):
    """Under the duplicate embargo a spectator sees a finished table as it was before its deal: the
    seats route must not tell its live version, and a rematch (whose seating is the table's finishing
    order) must not publish how it ended."""
    body = {
        "game": "dalmuti",
        "options": {"hands": 1},
        "players": [f"q{i}" for i in range(8)],
        "format": "duplicate",
        "rounds": 1,
        "table_size": {"min": 4, "max": 4},
    }
    t = client.post("/tournaments", json=body, headers=integrator)
    assert t.status_code == 201, t.get_json()
    table = t.get_json()["round_detail"]["tables"][0]
    gid, toks = table["game_id"], {s["seat"]: s["token"] for s in table["seats"]}
    play_http(client, {"id": gid, "seats": table["seats"]}, random.Random(3))
    public = client.get(f"/games/{gid}").get_json()
    assert not public["finished"]  # embargoed: the other table has not played the deal
    seats = client.get(f"/games/{gid}/seats").get_json()
    assert seats["version"] == public["version"], (seats["version"], public["version"])
    assert client.get(f"/games/{gid}/seats", headers=integrator).get_json()["version"] > public["version"]
    before = _state(client, integrator, gid)
    _refused(client.post(f"/games/{gid}/rematch", headers=bearer(toks[0])), 409, "tournament-table")
    _refused(client.post(f"/games/{gid}/rematch", headers=integrator), 409, "tournament-table")
    assert _state(client, integrator, gid) == before
    assert client.get(f"/games/{gid}/seats", headers=integrator).get_json()["rematch"] is None


def test_racing_rematches_against_a_real_server_make_one_game(live_server, client, integrator):
    created = _finished(client, integrator)
    gid = created["id"]
    calls = [(f"/games/{gid}/rematch", bearer(s["token"]), None) for s in created["seats"]]
    calls += [(f"/games/{gid}/rematch", integrator, None)] * 2
    found = _race(live_server.url, calls)
    assert [r.status_code for r in found] == [201] * 6, [r.text for r in found]
    ids = {r.json()["id"] for r in found}
    assert len(ids) == 1
    new_id = ids.pop()
    events = client.get(f"/games/{gid}/events?after=0").get_json()["events"]
    assert [e["type"] for e in events].count("RematchCreated") == 1
    assert client.get(f"/games/{new_id}/events?after=0").get_json()["events"][0]["data"]["rematch_of"] == gid
    listed = client.get("/games?game=cego&limit=500", headers=integrator).get_json()["games"]
    assert sum(1 for g in listed if g["id"] == new_id) == 1
    assert len([g for g in listed if g["created_at"] >= created.get("created_at", "")]) >= 1
    _state(client, integrator, gid)
    _state(client, integrator, new_id)


# ------------------------------------------------------------ the lobby
def test_the_lobby_shows_no_secret_and_takes_only_keys(client, integrator):
    created = _create(client, integrator, ["ana", None, "carl", None])
    gid = created["id"]
    codes = [i["invitation"] for i in created["invitations"]]
    r = client.get("/lobby?limit=500", headers=integrator)
    assert r.status_code == 200
    text = r.get_data(as_text=True)
    assert gid in text
    for secret in [*codes, created["seats"][0]["token"], created["seats"][1]["token"]]:
        assert secret not in text and secret.split("_", 1)[1] not in text
    assert "inv_" not in text and "st_" not in text and "hand" not in text
    row = next(g for g in r.get_json()["games"] if g["id"] == gid)
    assert set(row) <= {
        "id",
        "game",
        "status",
        "created_at",
        "updated_at",
        "version",
        "players",
        "timed",
        "provenance",
        "open_seats",
    }
    assert row["players"] == ["ana", "seat 1", "carl", "seat 3"] and row["status"] == "open"

    _refused(client.get("/lobby"), 401, "unauthorized")
    _refused(client.get("/lobby", headers=bearer(created["seats"][0]["token"])), 401, "unauthorized")
    _refused(client.get("/lobby", headers=bearer(codes[0])), 401, "unauthorized")
    for query in ("limit=0", "limit=501", "limit=x", "cursor=%00", "cursor=" + "z" * 2000, "game=" + "a" * 500):
        r = client.get(f"/lobby?{query}", headers=integrator)
        assert r.status_code == 422 and r.mimetype == "application/problem+json", (query, r.get_json())


# ------------------------------------------------------------ GET /me
def test_me_refuses_odd_and_forged_tokens(client, integrator, service):
    created = _create(client, integrator, ["ana", "bea", "carl", "dani"])
    other = _create(client, integrator, ["eva", "flor", "gus", "hal"])
    gid, oid = created["id"], other["id"]
    tok = created["seats"][1]["token"]
    secret = tok.split(".", 1)[1]
    odd = [
        f"st_{oid}.{secret}",  # another game's name on this one's secret
        f"st_{gid}.{other['seats'][1]['token'].split('.', 1)[1]}",  # this game's name, another's secret
        f"st_{gid}.",
        f"st_{gid}",
        "st_.x",
        "st_" + "a" * 500,
        f"st_{gid}.{secret}x",
        f"st_{gid.upper()}.{secret}",
        created["invitations"][0]["invitation"] if created.get("invitations") else "inv_nothing",
        "st_../../etc.passwd",
    ]
    for token in odd:
        r = client.get("/me", headers=bearer(token))
        _refused(r, 401, "unauthorized")
        assert secret not in r.get_data(as_text=True)
    for token in ("x" * 513, "st_\u00e9.x", "st_a b.c"):
        r = client.get("/me", headers={"Authorization": f"Bearer {token}".encode().decode("latin-1")})
        _refused(r, 401, "unauthorized")
    # a good token named with another game's ?game_id= is no seat of that game
    _refused(client.get(f"/me?game_id={oid}", headers=bearer(tok)), 401, "unauthorized")
    r = client.get(f"/me?game_id={gid}&game_id={oid}", headers=bearer(tok))
    assert r.status_code in (200, 401, 422) and r.mimetype in ("application/json", "application/problem+json")
    # the token's own answer holds nothing secret
    me = client.get("/me", headers=bearer(tok))
    assert me.status_code == 200 and secret not in me.get_data(as_text=True)
    assert me.get_json()["seat"] == {"game_id": gid, "game": "dalmuti", "seat": 1, "player": "bea", "finished": False}


def test_me_follows_claims_leaves_and_rematches(client, integrator):
    created = _create(client, integrator, ["ana", None, "carl", "dani"], game="cego", options={"rounds": 1})
    gid = created["id"]
    claimed = _claim(client, gid, 1, created["invitations"][0]["invitation"], "eli").get_json()
    me = client.get("/me", headers=bearer(claimed["token"])).get_json()
    assert me["seat"]["player"] == "eli" and me["seat"]["seat"] == 1
    _refused(client.get("/me", headers=bearer(created["invitations"][0]["invitation"])), 401, "unauthorized")
    assert client.post(f"/games/{gid}/seats/1/leave", headers=bearer(claimed["token"])).status_code == 200
    _refused(client.get("/me", headers=bearer(claimed["token"])), 401, "unauthorized")
    _void(client, integrator, gid)
    first = client.post(f"/games/{gid}/rematch", headers=bearer(created["seats"][0]["token"])).get_json()
    again = client.post(f"/games/{gid}/rematch", headers=bearer(created["seats"][0]["token"])).get_json()
    _refused(client.get("/me", headers=bearer(first["seats"][0]["token"])), 401, "unauthorized")
    assert client.get("/me", headers=bearer(again["seats"][0]["token"])).get_json()["seat"]["player"] == "ana"


def test_a_table_folded_before_claims_were_kept_answers_a_used_invitation_as_before(client, integrator, service):
    """A game whose snapshot was written before tables kept their claimed seats cannot tell a seat named at
    creation from one claimed: a claim of either is answered 410 invitation-used, as it was then, never
    409 seat-not-open for a seat whose invitation was in fact used."""
    from events.envelope import dumps, loads
    from events.store import key

    created = _create(client, integrator, ["ana", None, "carl", None])
    gid, code = created["id"], created["invitations"][0]["invitation"]
    assert _claim(client, gid, 1, code, "bea").status_code == 201
    snap = loads(service.redis.get(key(gid, "snap")))
    assert snap["claimed"] == [1]
    del snap["claimed"]
    service.redis.set(key(gid, "snap"), dumps(snap))
    service.tables._cache.clear()  # as a process started after the upgrade reads it
    version = _state(client, integrator, gid)
    _refused(_claim(client, gid, 1, code, "eli"), 410, "invitation-used")
    _refused(_claim(client, gid, 2, code, "eli"), 410, "invitation-used")
    assert _state(client, integrator, gid) == version
