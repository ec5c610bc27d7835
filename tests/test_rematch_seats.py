"""A finished game's seat token and its seat of the rematch (docs/seats.md, Rematch).

Each call of ``POST /games/{old}/rematch`` with a seat token of the finished game gives a fresh token of that
player's seat in the rematch, as long as the seat is still the one the rematch gave the player.  Once the
player has left it (before the start, when the seat opens again for an invitation, or for good after it),
the call is refused and the seat stays with whoever holds it now: the leaver gets nothing back to rejoin
with, and an invitation stays the only credential of a claim.

Each refusal is checked twice: on the rematch's table as the current code folds it, and on a snapshot stored
by the code before the table kept the seats ever left (``released``), as every game whose seat was left
before that code ran still has; the decision reads only what every fold of the table keeps.
"""

from __future__ import annotations

import json

import pytest

from events.store import key

from .conftest import bearer
from .test_seats import _claim, _create

VOID = {"action": "void", "reason": "ended early"}
SNAPSHOTS = ["folded-now", "stored-before"]


def _finished(client, integrator, leaver: int | None = None) -> tuple[str, dict[int, str]]:
    """g1: ana, bea, carl, dani; ``leaver`` leaves it mid-game; a reviewer's void finishes it."""
    g = _create(client, integrator, ["ana", "bea", "carl", "dani"])
    toks = {s["seat"]: s["token"] for s in g["seats"]}
    if leaver is not None:
        assert client.post(f"/games/{g['id']}/seats/{leaver}/leave", headers=bearer(toks[leaver])).status_code == 200
    assert client.post(f"/games/{g['id']}/adjudications", json=VOID, headers=integrator).status_code == 201
    return g["id"], toks


def _rematch(client, gid, token, status=201):
    r = client.post(f"/games/{gid}/rematch", headers=bearer(token))
    assert r.status_code == status, r.get_json()
    return r


def _seats(client, gid) -> dict:
    r = client.get(f"/games/{gid}/seats")
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def _stored(redis_client, gid: str, snapshot: str) -> None:
    """``stored-before``: the rematch's snapshot as the code before ``released`` wrote it (the table is
    read from the snapshot on every rematch call)."""
    if snapshot == "stored-before":
        snap = json.loads(redis_client.get(key(gid, "snap")))
        snap.pop("released", None)
        redis_client.set(key(gid, "snap"), json.dumps(snap))


def _refused(r) -> None:
    assert r.status_code == 403 and r.mimetype == "application/problem+json", r.get_json()
    body = r.get_json()
    assert body["type"] == "urn:naipes:problem:forbidden", body
    assert "left" in body["detail"], body
    assert "seats" not in body and "st_" not in r.get_data(as_text=True)


@pytest.mark.parametrize("snapshot", SNAPSHOTS)
def test_a_seat_left_before_the_start_and_claimed_by_a_newcomer_stays_the_newcomers(
    client, integrator, redis_client, snapshot
):
    """The reviewer's case: dani leaves g1, bea's rematch call creates g2 (dani's seat open), bea leaves g2
    before it starts, the owner invites quinn to her seat.  Before, bea's old token took quinn's seat back
    (201 with quinn's seat and a token) and quinn's token stopped working."""
    g1, toks = _finished(client, integrator, leaver=3)
    first = _rematch(client, g1, toks[1]).get_json()
    g2, seat, bea = first["id"], first["seat"], first["seats"][0]["token"]
    assert not _seats(client, g2)["started"]
    assert client.post(f"/games/{g2}/seats/{seat}/leave", headers=bearer(bea)).status_code == 200
    invited = client.post(f"/games/{g2}/seats/{seat}/invitation", headers=integrator)
    assert invited.status_code in (200, 201), invited.get_json()
    quinn = _claim(client, g2, seat, invited.get_json()["invitation"], "quinn")["token"]
    before = _seats(client, g2)
    _stored(redis_client, g2, snapshot)

    _refused(_rematch(client, g1, toks[1], status=403))
    _refused(_rematch(client, g1, toks[1], status=403))  # as often as it asks

    assert _seats(client, g2) == before
    assert before["seats"][seat]["player"] == "quinn"
    view = client.get(f"/games/{g2}", headers=bearer(quinn))
    assert view.status_code == 200 and view.get_json()["viewer"]["seat"] == seat
    assert client.get(f"/games/{g2}", headers=bearer(bea)).status_code == 401


@pytest.mark.parametrize("snapshot", SNAPSHOTS)
def test_a_seat_left_before_the_start_stays_open(client, integrator, redis_client, snapshot):
    """Nobody claimed bea's seat yet: her old token does not take it back either; the seat waits for an
    invitation."""
    g1, toks = _finished(client, integrator, leaver=3)
    first = _rematch(client, g1, toks[1]).get_json()
    g2, seat, bea = first["id"], first["seat"], first["seats"][0]["token"]
    assert client.post(f"/games/{g2}/seats/{seat}/leave", headers=bearer(bea)).status_code == 200
    before = _seats(client, g2)
    _stored(redis_client, g2, snapshot)

    _refused(_rematch(client, g1, toks[1], status=403))
    after = _seats(client, g2)
    assert after == before and seat in after["open"] and after["seats"][seat]["player"] is None
    invited = client.post(f"/games/{g2}/seats/{seat}/invitation", headers=integrator).get_json()["invitation"]
    assert _claim(client, g2, seat, invited, "quinn")["token"]


@pytest.mark.parametrize("snapshot", SNAPSHOTS)
def test_a_player_who_left_a_running_rematch_gets_no_token_that_reads_its_hand(
    client, integrator, redis_client, snapshot
):
    """Nobody left g1, so its rematch starts at once; bea leaves it for good.  Before, her old token got a
    fresh token of the seat, which read the seat's hand again."""
    g1, toks = _finished(client, integrator)
    first = _rematch(client, g1, toks[1]).get_json()
    g2, seat, bea = first["id"], first["seat"], first["seats"][0]["token"]
    assert _seats(client, g2)["started"]
    assert client.get(f"/games/{g2}", headers=bearer(bea)).get_json()["viewer"]["seat"] == seat
    assert client.post(f"/games/{g2}/seats/{seat}/leave", headers=bearer(bea)).status_code == 200
    before = _seats(client, g2)
    assert before["seats"][seat]["left"]
    _stored(redis_client, g2, snapshot)

    _refused(_rematch(client, g1, toks[1], status=403))
    assert _seats(client, g2) == before
    assert client.get(f"/games/{g2}", headers=bearer(bea)).status_code == 401
    # the others still get theirs
    carl = _rematch(client, g1, toks[2]).get_json()["seats"][0]["token"]
    assert client.get(f"/games/{g2}", headers=bearer(carl)).status_code == 200


def test_a_claim_under_the_leavers_own_name_is_still_the_claimants(client, integrator):
    """An invitation is the claim's credential: the seat bea left, claimed by whoever the owner invited
    under the name 'bea', is the claimant's, and bea's old token does not take it."""
    g1, toks = _finished(client, integrator, leaver=3)
    first = _rematch(client, g1, toks[1]).get_json()
    g2, seat, bea = first["id"], first["seat"], first["seats"][0]["token"]
    assert client.post(f"/games/{g2}/seats/{seat}/leave", headers=bearer(bea)).status_code == 200
    invited = client.post(f"/games/{g2}/seats/{seat}/invitation", headers=integrator).get_json()["invitation"]
    claimant = _claim(client, g2, seat, invited, "bea")["token"]
    before = _seats(client, g2)

    _refused(_rematch(client, g1, toks[1], status=403))
    assert _seats(client, g2) == before
    assert client.get(f"/games/{g2}", headers=bearer(claimant)).get_json()["viewer"]["seat"] == seat


def test_a_seat_that_never_left_gets_a_fresh_token_at_every_call(client, integrator):
    """The ordinary case is unchanged: before the rematch starts, after it, and beside a seat that left, a
    player who kept its seat gets a fresh token of it at each call (the earlier one stops working)."""
    g1, toks = _finished(client, integrator, leaver=3)
    first = _rematch(client, g1, toks[0]).get_json()
    g2, seat = first["id"], first["seat"]
    tokens = [first["seats"][0]["token"]]
    tokens.append(_rematch(client, g1, toks[0]).get_json()["seats"][0]["token"])  # again, before the start
    # bea leaves hers: ana's seat is still ana's
    bea = _rematch(client, g1, toks[1]).get_json()
    left = client.post(f"/games/{g2}/seats/{bea['seat']}/leave", headers=bearer(bea["seats"][0]["token"]))
    assert left.status_code == 200, left.get_json()
    tokens.append(_rematch(client, g1, toks[0]).get_json()["seats"][0]["token"])
    # the open seats claimed: the rematch starts, and ana asks again
    owner = client.post(f"/games/{g1}/rematch", headers=integrator)
    assert owner.status_code == 201, owner.get_json()
    for invitation in owner.get_json()["invitations"]:
        _claim(client, g2, invitation["seat"], invitation["invitation"], f"new{invitation['seat']}")
    assert _seats(client, g2)["started"]
    again = _rematch(client, g1, toks[0]).get_json()
    assert again["seat"] == seat and again["seats"][0]["player"] == "ana"
    tokens.append(again["seats"][0]["token"])
    assert len(set(tokens)) == len(tokens)
    for old in tokens[:-1]:
        assert client.get(f"/games/{g2}", headers=bearer(old)).status_code == 401
    view = client.get(f"/games/{g2}", headers=bearer(tokens[-1]))
    assert view.status_code == 200 and view.get_json()["viewer"]["seat"] == seat
