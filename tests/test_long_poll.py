"""Long-polls of GET /games/{id}/events?wait=: what a waiting request holds, and who it answers.

A long-poll used to block in an XREAD on a connection of the web process's Redis pool for up to
30 s: a few hundred of them (anonymous, under the address's request budget) took every pooled
connection, and every other request of the process was refused (503) until the waits ran out.  It
now waits as a live stream does, on the game's reader in the process (fed by the process's one
subscription), holding one of the streams' slots.  And the credential is looked at again after
the wait: a key revoked meanwhile used to be answered with every card of the events that woke it.
"""

from __future__ import annotations

import threading
import time

from service.web import live

from .conftest import bearer
from .helpers import create


def _acting(client, g) -> tuple[str, dict]:
    view = client.get(f"/games/{g['id']}").get_json()
    seat = view["to_act"][0]
    tok = g["seats"][seat]["token"]
    move = client.get(f"/games/{g['id']}/legal-moves", headers=bearer(tok)).get_json()["moves"][0]
    return tok, move


def _blocked_xreads(redis_client) -> int:
    return sum(1 for c in redis_client.client_list() if c.get("cmd") in ("xread", "xreadgroup"))


def test_waiting_long_polls_hold_no_redis_connection(app, client, integrator, redis_client):
    g = create(client, integrator)
    head = client.get(f"/games/{g['id']}").get_json()["version"]
    answers: list = []

    def poll():
        answers.append(app.test_client().get(f"/games/{g['id']}/events?after={head}&wait=4"))

    polls = [threading.Thread(target=poll) for _ in range(40)]
    before = _blocked_xreads(redis_client)
    for t in polls:
        t.start()
    time.sleep(1.0)
    assert _blocked_xreads(redis_client) <= before  # none of the forty waits in Redis
    assert client.get("/health").status_code == 200  # and the process serves everyone else
    tok, move = _acting(client, g)
    assert client.post(f"/games/{g['id']}/moves", json=move, headers=bearer(tok)).status_code == 201
    for t in polls:
        t.join(6)
    assert len(answers) == 40 and all(r.status_code == 200 for r in answers)
    assert all(r.get_json()["events"][0]["version"] == head + 1 for r in answers)


def test_long_polls_share_the_streams_slots(app, client, integrator, monkeypatch):
    monkeypatch.setattr(live, "_streams", live.StreamSlots(total=100, per_client=3, per_address=3))
    g = create(client, integrator)
    head = client.get(f"/games/{g['id']}").get_json()["version"]
    answers: list = []

    def poll():
        answers.append(app.test_client().get(f"/games/{g['id']}/events?after={head}&wait=2"))

    polls = [threading.Thread(target=poll) for _ in range(3)]
    for t in polls:
        t.start()
    time.sleep(0.5)
    fourth = client.get(f"/games/{g['id']}/events?after={head}&wait=2")
    assert fourth.status_code == 429 and fourth.mimetype == "application/problem+json", fourth.get_json()
    assert "Retry-After" in fourth.headers
    # a read that need not wait takes no slot
    assert client.get(f"/games/{g['id']}/events?after=0&wait=2").status_code == 200
    for t in polls:
        t.join(4)
    assert [r.status_code for r in answers] == [200, 200, 200]
    assert client.get(f"/games/{g['id']}/events?after={head}&wait=0.1").status_code == 200  # slots given back


def test_a_key_revoked_during_a_long_poll_is_answered_nothing(app, client, integrator):
    made = client.post("/keys", json={"name": "lapsed", "scopes": ["games"]}, headers=integrator).get_json()
    key = bearer(made["key"])
    g = create(client, key)
    head = client.get(f"/games/{g['id']}", headers=key).get_json()["version"]
    answer: dict = {}

    def poll():
        answer["r"] = app.test_client().get(f"/games/{g['id']}/events?after={head}&wait=5", headers=key)

    t = threading.Thread(target=poll)
    t.start()
    time.sleep(0.5)
    assert client.delete(f"/keys/{made['id']}", headers=integrator).status_code == 200
    tok, move = _acting(client, g)
    assert client.post(f"/games/{g['id']}/moves", json=move, headers=bearer(tok)).status_code == 201
    t.join(6)
    r = answer["r"]
    assert r.status_code == 401 and r.mimetype == "application/problem+json", (r.status_code, r.get_json())
    assert "private" not in r.get_data(as_text=True)
    assert r.get_json()["type"].endswith("key-revoked"), r.get_json()  # told as every other route tells it


def test_a_long_poll_ends_within_seconds_of_its_key_being_revoked(app, client, integrator):
    """A quiet game: nothing wakes the wait but the revocation itself, which ends it within a few
    seconds (the key's record is trusted 2 s, looked at every second) with 401 key-revoked, giving
    back the stream slot it held, instead of holding it for the whole wait."""
    made = client.post("/keys", json={"name": "lapsed-quiet", "scopes": ["games"]}, headers=integrator).get_json()
    key = bearer(made["key"])
    g = create(client, key)
    head = client.get(f"/games/{g['id']}", headers=key).get_json()["version"]
    answer: dict = {}

    def poll():
        t0 = time.monotonic()
        answer["r"] = app.test_client().get(f"/games/{g['id']}/events?after={head}&wait=20", headers=key)
        answer["took"] = time.monotonic() - t0

    t = threading.Thread(target=poll)
    t.start()
    time.sleep(0.5)
    assert client.delete(f"/keys/{made['id']}", headers=integrator).status_code == 200
    t.join(15)
    assert not t.is_alive(), "the long-poll outlived its key's revocation"
    r = answer["r"]
    assert r.status_code == 401 and r.get_json()["type"].endswith("key-revoked"), r.get_json()
    assert answer["took"] < 8, answer["took"]


def test_a_long_poll_at_the_end_of_a_finished_game_is_woken_by_what_follows_the_end(app, client, integrator):
    """Events follow a game's end (its rematch, reviewers' notes and rulings): a long-poll after the
    last event of a finished game waits for them, and is answered with the first that comes."""
    import random

    from .helpers import play_http

    g = create(client, integrator)
    play_http(client, g, random.Random(3))
    head = client.get(f"/games/{g['id']}").get_json()
    assert head["finished"]
    answers: list = []
    poll = threading.Thread(
        target=lambda: answers.append(
            app.test_client().get(f"/games/{g['id']}/events?after={head['version']}&wait=10", headers=integrator)
        )
    )
    poll.start()
    time.sleep(1.0)
    r = client.post(f"/games/{g['id']}/rematch", headers=bearer(g["seats"][0]["token"]))
    assert r.status_code in (200, 201), r.get_json()
    poll.join(12)
    assert [e["type"] for e in answers[0].get_json()["events"]] == ["RematchCreated"]
