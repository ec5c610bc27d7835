"""Open seats, invitations, leaving, rematches and the lobby, through HTTP.

A game created with open seats waits (no deal, no seat to act) until each open seat is claimed
with its invitation; an invitation works once; a seat that leaves is played by the rules' timeout
move; a finished game is followed by a rematch, each seat fetching its new token with its old
one; the lobby lists games waiting for players, never an invitation code."""

from __future__ import annotations

import json
import random
import threading

from .conftest import bearer

DALMUTI = {"hands": 1}


def _create(client, integrator, players, game="dalmuti", options=None) -> dict:
    r = client.post(
        "/games", json={"game": game, "players": players, "options": options or DALMUTI}, headers=integrator
    )
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def _claim(client, gid, seat, invitation, player, status=201) -> dict:
    r = client.post(f"/games/{gid}/seats/{seat}/claim", json={"player": player}, headers=bearer(invitation))
    assert r.status_code == status, r.get_json()
    if status >= 400:
        assert r.mimetype == "application/problem+json"
        assert "token" not in r.get_json()
    return r.get_json()


def _play(client, gid, toks: dict[int, str], rng: random.Random, skip=()) -> dict:
    """Play to the end with legal moves only (seats in ``skip`` are moved for by the table)."""
    for _ in range(5000):
        view = client.get(f"/games/{gid}").get_json()
        if view["finished"]:
            return view
        acting = [s for s in view["to_act"] if s not in skip]
        assert acting, view["to_act"]
        seat = rng.choice(acting)
        lm = client.get(f"/games/{gid}/legal-moves", headers=bearer(toks[seat])).get_json()
        r = client.post(f"/games/{gid}/moves", json=rng.choice(lm["moves"]), headers=bearer(toks[seat]))
        assert r.status_code == 201, r.get_json()
    raise AssertionError("the game did not end")


def _events(client, gid, headers=None, lang="en") -> list[dict]:
    r = client.get(f"/games/{gid}/events?after=0", headers={**(headers or {}), "Accept-Language": lang})
    assert r.status_code == 200, r.get_json()
    return r.get_json()["events"]


def _lobby(client, integrator) -> dict:
    r = client.get("/lobby?game=dalmuti&limit=500", headers=integrator)
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def _rematch_all(client, gid, toks: dict[int, str]) -> tuple[str, dict[int, str], dict[int, int]]:
    """Every seat asks for the rematch with its old token; returns the new game, its tokens, old -> new seat."""
    new_toks, moved, ids = {}, {}, set()
    for seat, tok in sorted(toks.items()):
        r = client.post(f"/games/{gid}/rematch", headers=bearer(tok))
        assert r.status_code == 201, r.get_json()
        body = r.get_json()
        ids.add(body["id"])
        assert body["rematch_of"] == gid and [s["seat"] for s in body["seats"]] == [body["seat"]]
        new_toks[body["seat"]] = body["seats"][0]["token"]
        moved[seat] = body["seat"]
    assert len(ids) == 1, "one rematch for every seat"
    assert sorted(moved.values()) == sorted(toks)
    return ids.pop(), new_toks, moved


def test_open_seats_filled_by_invitations_played_and_rematched_twice(client, integrator):
    rng = random.Random("seats")
    created = _create(client, integrator, ["ana", None, "carl", None])
    gid = created["id"]
    assert [s["seat"] for s in created["seats"]] == [0, 2]
    invitations = {i["seat"]: i for i in created["invitations"]}
    assert sorted(invitations) == [1, 3]
    assert all(i["invitation"].startswith("inv_") for i in invitations.values())
    assert invitations[1]["url"] == f"/games/{gid}/seats/1/claim"
    toks = {s["seat"]: s["token"] for s in created["seats"]}

    view = client.get(f"/games/{gid}").get_json()
    assert view["to_act"] == [] and not view["finished"] and view["version"] == 1
    first = _events(client, gid)[0]
    assert first["type"] == "GameCreated" and first["data"]["open"] == [1, 3]
    r = client.post(f"/games/{gid}/moves", json={"type": "pass"}, headers=bearer(toks[0]))
    assert r.status_code == 409 and r.get_json()["type"].endswith("game-not-started")
    assert client.get(f"/games/{gid}/legal-moves", headers=bearer(toks[0])).get_json()["moves"] == []

    listed = {g["id"]: g for g in _lobby(client, integrator)["games"]}
    assert [s["seat"] for s in listed[gid]["open_seats"]] == [1, 3]
    assert listed[gid]["open_seats"][0]["url"] == invitations[1]["url"]

    bea = _claim(client, gid, 1, invitations[1]["invitation"], "bea")
    assert not bea["started"] and bea["seat"] == 1
    toks[1] = bea["token"]
    assert [s["seat"] for s in {g["id"]: g for g in _lobby(client, integrator)["games"]}[gid]["open_seats"]] == [3]
    dani = _claim(client, gid, 3, invitations[3]["invitation"], "dani")
    assert dani["started"]
    toks[3] = dani["token"]
    assert gid not in {g["id"] for g in _lobby(client, integrator)["games"]}

    again = _claim(client, gid, 3, invitations[3]["invitation"], "dani", status=410)
    assert again["type"].endswith("invitation-used")
    view = client.get(f"/games/{gid}", headers=bearer(toks[1])).get_json()
    assert view["players"] == ["ana", "bea", "carl", "dani"] and view["to_act"]
    seats = client.get(f"/games/{gid}/seats").get_json()
    assert seats["started"] and seats["open"] == [] and [s["player"] for s in seats["seats"]] == view["players"]
    listed = client.get("/games?game=dalmuti&status=active&limit=500", headers=integrator).get_json()
    assert {g["id"]: g for g in listed["games"]}[gid]["players"] == view["players"]

    names = view["players"]
    early = client.post(f"/games/{gid}/rematch", headers=bearer(toks[0]))
    assert early.status_code == 409 and early.get_json()["type"].endswith("game-not-finished")
    for _ in range(2):
        end = _play(client, gid, toks, rng)
        last_order = end["result"]["last_order"]
        new_gid, new_toks, moved = _rematch_all(client, gid, toks)
        # El Gran Dalmuti keeps the last order: the Greater Dalmuti sits first
        assert moved == {old: new for new, old in enumerate(last_order)}
        new_names = client.get(f"/games/{new_gid}").get_json()["players"]
        assert new_names == [names[s] for s in last_order]
        assert client.get(f"/games/{gid}/seats").get_json()["rematch"] == new_gid
        assert client.get(f"/games/{new_gid}/seats").get_json()["rematch_of"] == gid
        assert any(e["type"] == "RematchCreated" and e["data"]["game"] == new_gid for e in _events(client, gid))
        # a second call by one seat gives it a fresh token; the earlier stops working
        seat0 = moved[0]
        r = client.post(f"/games/{gid}/rematch", headers=bearer(toks[0]))
        assert r.status_code == 201 and r.get_json()["id"] == new_gid and r.get_json()["seat"] == seat0
        fresh = r.get_json()["seats"][0]["token"]
        assert client.get(f"/games/{new_gid}/legal-moves", headers=bearer(new_toks[seat0])).status_code == 401
        new_toks[seat0] = fresh
        for seat, tok in new_toks.items():
            assert client.get(f"/games/{new_gid}/legal-moves", headers=bearer(tok)).status_code == 200, seat
        gid, toks, names = new_gid, new_toks, new_names
    assert client.get(f"/games/{gid}/seats").get_json()["rematch_of"]


def test_the_owner_key_rematches_with_seats_rotated_and_gets_every_token(client, integrator):
    created = _create(client, integrator, ["ana", "bea", "carl", "dani"], game="cego", options={"rounds": 1})
    gid = created["id"]
    award = client.post(
        f"/games/{gid}/adjudications",
        json={"action": "award", "scores": [3, 2, 1, 0], "reason": "agreed"},
        headers=integrator,
    )
    assert award.status_code == 201, award.get_json()
    r = client.post(f"/games/{gid}/rematch", headers=integrator)
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    assert [s["player"] for s in body["seats"]] == ["bea", "carl", "dani", "ana"]  # the next seat deals
    assert client.get(f"/games/{body['id']}").get_json()["players"] == ["bea", "carl", "dani", "ana"]
    for s in body["seats"]:
        assert client.get(f"/games/{body['id']}/legal-moves", headers=bearer(s["token"])).status_code == 200
    assert client.post(f"/games/{gid}/rematch").status_code == 401
    again = client.post(f"/games/{gid}/rematch", headers=bearer(created["seats"][2]["token"])).get_json()
    assert again["id"] == body["id"] and again["seat"] == 1  # carl, seat 2, sits at seat 1


def test_concurrent_rematch_calls_make_one_game(app, client, integrator):
    created = _create(client, integrator, ["ana", "bea", "carl", "dani"], game="cego", options={"rounds": 1})
    gid = created["id"]
    client.post(f"/games/{gid}/adjudications", json={"action": "void", "reason": "abandoned"}, headers=integrator)
    found: list = []

    def ask(token):
        found.append(app.test_client().post(f"/games/{gid}/rematch", headers=bearer(token)).get_json())

    threads = [threading.Thread(target=ask, args=(s["token"],)) for s in created["seats"]]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({f["id"] for f in found}) == 1 and sorted(f["seat"] for f in found) == [0, 1, 2, 3], found
    for f in found:
        assert client.get(f"/games/{f['id']}/legal-moves", headers=bearer(f["seats"][0]["token"])).status_code == 200


def test_refused_claims_give_no_token(client, integrator):
    created = _create(client, integrator, ["ana", None, None, "dani"])
    gid, inv = created["id"], {i["seat"]: i["invitation"] for i in created["invitations"]}
    assert _claim(client, gid, 1, "inv_not-the-code", "bea", status=409)["type"].endswith("wrong-invitation")
    assert _claim(client, gid, 1, inv[2], "bea", status=409)["type"].endswith("wrong-invitation")
    assert _claim(client, gid, 7, inv[1], "bea", status=422)["type"].endswith("bad-seat")
    # seat 0 was named when the game was made: it never had an invitation to use
    refused = _claim(client, gid, 0, inv[1], "bea", status=409)
    assert refused["type"].endswith("seat-not-open") and "never had an invitation" in refused["detail"]
    assert _claim(client, gid, 1, inv[1], "ana", status=409)["type"].endswith("name-taken")
    assert _claim(client, "0123456789abcdef", 1, inv[1], "bea", status=404)["type"].endswith("game-not-found")
    assert _claim(client, gid, "x", inv[1], "bea", status=422)["type"].endswith("bad-seat")
    assert _claim(client, gid, "01", inv[1], "bea", status=422)["type"].endswith("bad-seat")  # written one way
    r = client.post(f"/games/{gid}/seats/1/claim", json={}, headers=bearer(inv[1]))
    assert r.status_code == 422 and r.mimetype == "application/problem+json"
    r = client.post(f"/games/{gid}/seats/1/claim", json={"player": "b\x07"}, headers=bearer(inv[1]))
    assert r.status_code == 422
    for headers in ({}, bearer(created["seats"][0]["token"])):  # the invitation is the claim's credential
        r = client.post(f"/games/{gid}/seats/1/claim", json={"player": "bea"}, headers=headers)
        assert r.status_code == 401 and r.get_json()["type"].endswith("unauthorized")
    bea = _claim(client, gid, 1, inv[1], "bea")
    assert client.get(f"/games/{gid}/legal-moves", headers=bearer(bea["token"])).status_code == 200
    assert _claim(client, gid, 1, inv[1], "bea", status=410)["type"].endswith("invitation-used")


def test_a_player_who_leaves_is_moved_for_and_the_game_ends(client, integrator):
    rng = random.Random("leave")
    created = _create(client, integrator, ["ana", "bea", "carl", "dani"])
    gid, toks = created["id"], {s["seat"]: s["token"] for s in created["seats"]}
    assert client.post(f"/games/{gid}/seats/1/leave", headers=bearer(toks[2])).status_code == 403
    assert client.post(f"/games/{gid}/seats/2/leave", headers=integrator).status_code == 403
    r = client.post(f"/games/{gid}/seats/2/leave", headers=bearer(toks[2]))
    assert r.status_code == 200 and r.get_json()["open"] is False, r.get_json()
    assert client.get(f"/games/{gid}/legal-moves", headers=bearer(toks[2])).status_code == 401
    assert client.post(f"/games/{gid}/seats/2/leave", headers=bearer(toks[2])).status_code == 401
    assert 2 in client.get(f"/games/{gid}").get_json()["absent"]
    assert client.get(f"/games/{gid}/seats").get_json()["seats"][2]["left"]
    end = _play(client, gid, toks, rng, skip={2})
    assert end["finished"]
    events = _events(client, gid)
    assert any(e["type"] == "SeatLeft" and e["data"]["seat"] == 2 for e in events)
    assert any(
        e["type"] == "TurnTimedOut" and e["data"]["seat"] == 2 and e["data"]["reason"] == "absent" for e in events
    )
    assert client.post(f"/games/{gid}/seats/0/leave", headers=bearer(toks[0])).status_code == 409


def test_leaving_before_the_start_opens_the_seat_for_a_new_invitation(client, integrator):
    created = _create(client, integrator, ["ana", None, "carl", None])
    gid, old = created["id"], created["invitations"][0]["invitation"]
    bea = _claim(client, gid, 1, old, "bea")
    assert not bea["started"]
    r = client.post(f"/games/{gid}/seats/1/leave", headers=bearer(bea["token"]))
    assert r.status_code == 200 and r.get_json()["open"] is True
    assert client.get(f"/games/{gid}/legal-moves", headers=bearer(bea["token"])).status_code == 401
    assert client.get(f"/games/{gid}").get_json()["players"][1] != "bea"
    assert [s["seat"] for s in {g["id"]: g for g in _lobby(client, integrator)["games"]}[gid]["open_seats"]] == [1, 3]
    assert _claim(client, gid, 1, old, "bea", status=409)["type"].endswith("wrong-invitation")
    assert client.post(f"/games/{gid}/seats/0/invitation", headers=integrator).status_code == 409
    assert client.post(f"/games/{gid}/seats/9/invitation", headers=integrator).status_code == 422
    assert client.post(f"/games/{gid}/seats/1/invitation").status_code == 401
    new = client.post(f"/games/{gid}/seats/1/invitation", headers=integrator)
    assert new.status_code == 201, new.get_json()
    flor = _claim(client, gid, 1, new.get_json()["invitation"], "flor")
    assert not flor["started"]
    assert _claim(client, gid, 3, created["invitations"][1]["invitation"], "dani")["started"]
    assert client.get(f"/games/{gid}").get_json()["players"] == ["ana", "flor", "carl", "dani"]


def test_no_invitation_code_is_ever_shown_but_to_the_creating_key(client, integrator):
    created = _create(client, integrator, [None, "bea", None, "dani"])
    gid = created["id"]
    codes = [i["invitation"] for i in created["invitations"]]
    _claim(client, gid, 0, codes[0], "ana")
    seat_tok = created["seats"][0]["token"]
    shown = [
        _lobby(client, integrator),
        client.get("/lobby", headers=integrator).get_json(),
        client.get(f"/games/{gid}").get_json(),
        client.get(f"/games/{gid}", headers=integrator).get_json(),
        client.get(f"/games/{gid}", headers=bearer(seat_tok)).get_json(),
        client.get(f"/games/{gid}/seats").get_json(),
        _events(client, gid),
        _events(client, gid, integrator),
        _events(client, gid, bearer(seat_tok)),
        client.get(f"/games/{gid}/export", headers=integrator).get_data(as_text=True),
    ]
    text = json.dumps(shown)
    assert gid in text
    for code in codes:
        assert code not in text and code[4:] not in text
    assert "inv_" not in json.dumps(shown[:9])


def test_every_new_event_has_labels_in_both_languages(client, integrator):
    created = _create(client, integrator, ["ana", None, "carl", "dani"], game="cego", options={"rounds": 1})
    gid = created["id"]
    bea = _claim(client, gid, 1, created["invitations"][0]["invitation"], "bea")
    client.post(f"/games/{gid}/seats/1/leave", headers=bearer(bea["token"]))
    client.post(f"/games/{gid}/adjudications", json={"action": "void", "reason": "abandoned"}, headers=integrator)
    client.post(f"/games/{gid}/rematch", headers=integrator)
    labels = {}
    for lang in ("en", "es"):
        for e in _events(client, gid, lang=lang):
            labels.setdefault(e["type"], {})[lang] = e["label"]
    for etype in ("SeatClaimed", "SeatLeft", "RematchCreated"):
        en, es = labels[etype]["en"], labels[etype]["es"]
        assert en and es and en != es and etype not in (en, es), (etype, en, es)
    assert "bea" in labels["SeatClaimed"]["en"] and "bea" in labels["SeatLeft"]["es"]


def _voided(client, integrator, players) -> dict:
    """A started game, ended by a reviewer's void: finished, so it has a rematch."""
    g = _create(client, integrator, players)
    void = {"action": "void", "reason": "ended early"}
    assert client.post(f"/games/{g['id']}/adjudications", json=void, headers=integrator).status_code == 201
    return g


def test_a_player_who_left_its_rematch_seat_gets_no_token_of_it_back(client, integrator):
    """docs/seats.md: the leaver gets nothing back to rejoin with.  A finished game's seat token asks for the
    rematch again and again (a fresh token each time); once its player has left its seat of the rematch, the
    call is refused, and the seat stays with whoever holds it now.  Before, bea's old token took quinn's
    seat back: bea got a working token and quinn's stopped."""
    g = _create(client, integrator, ["ana", "bea", "carl", "dani"])
    toks = {s["seat"]: s["token"] for s in g["seats"]}
    assert client.post(f"/games/{g['id']}/seats/3/leave", headers=bearer(toks[3])).status_code == 200
    void = {"action": "void", "reason": "ended early"}
    assert client.post(f"/games/{g['id']}/adjudications", json=void, headers=integrator).status_code == 201
    r = client.post(f"/games/{g['id']}/rematch", headers=bearer(toks[1]))
    assert r.status_code == 201, r.get_json()
    rematch, seat, bea = r.get_json()["id"], r.get_json()["seat"], r.get_json()["seats"][0]["token"]
    assert client.get(f"/games/{rematch}/seats").get_json()["open"]  # dani's seat waits: not started
    assert client.post(f"/games/{rematch}/seats/{seat}/leave", headers=bearer(bea)).status_code == 200
    invited = client.post(f"/games/{rematch}/seats/{seat}/invitation", headers=integrator)
    assert invited.status_code in (200, 201), invited.get_json()
    quinn = _claim(client, rematch, seat, invited.get_json()["invitation"], "quinn")["token"]

    again = client.post(f"/games/{g['id']}/rematch", headers=bearer(toks[1]))
    assert again.status_code == 403 and again.mimetype == "application/problem+json", again.get_json()
    assert "seats" not in again.get_json() and "st_" not in again.get_data(as_text=True)
    assert client.get(f"/games/{rematch}", headers=bearer(quinn)).get_json()["viewer"]["seat"] == seat
    assert client.get(f"/games/{rematch}/seats").get_json()["seats"][seat]["player"] == "quinn"


def test_a_player_who_left_a_running_rematch_gets_no_token_of_it_back(client, integrator):
    g = _voided(client, integrator, ["ana", "bea", "carl", "dani"])
    toks = {s["seat"]: s["token"] for s in g["seats"]}
    first = client.post(f"/games/{g['id']}/rematch", headers=bearer(toks[1])).get_json()
    rematch, seat, bea = first["id"], first["seat"], first["seats"][0]["token"]
    assert client.get(f"/games/{rematch}/seats").get_json()["started"]
    assert client.post(f"/games/{rematch}/seats/{seat}/leave", headers=bearer(bea)).status_code == 200
    again = client.post(f"/games/{g['id']}/rematch", headers=bearer(toks[1]))
    assert again.status_code == 403, again.get_json()
    # a player who never left still gets a fresh token of its seat, as often as it asks
    carl = client.post(f"/games/{g['id']}/rematch", headers=bearer(toks[2]))
    assert carl.status_code == 201 and carl.get_json()["seats"][0]["token"]
    assert client.get(f"/games/{rematch}", headers=bearer(carl.get_json()["seats"][0]["token"])).status_code == 200
