"""The REST API over real Redis: creation, views, moves, retries, logs, replays, audit."""

from __future__ import annotations

import random
import threading

import pytest

from events.envelope import dumps, loads
from events.store import key

from .conftest import bearer
from .helpers import create, play_http, private_seats, tokens

PROBLEM = "application/problem+json"


def problem(r, status):
    assert r.status_code == status, (r.status_code, r.get_data(as_text=True))
    assert r.mimetype == PROBLEM
    body = r.get_json()
    assert body["status"] == status and body["detail"] and body["type"].startswith("urn:naipes:problem:")
    return body


def test_game_types_list_dalmuti_with_options_and_defaults(client):
    types = {t["id"]: t for t in client.get("/game-types").get_json()}
    d = types["dalmuti"]
    assert (d["min_players"], d["max_players"]) == (4, 16)
    for name in (
        "hands",
        "first_deal_revolution",
        "reduced_deck",
        "scoring",
        "philanthropic_scoring",
        "merchant_exchange",
        "allow_joining",
        "turn_seconds",
        "bank_seconds",
        "absent_after",
    ):
        assert "default" in d["options"][name], name


def test_creating_needs_an_integrator_key(client):
    r = client.post("/games", json={"game": "dalmuti", "players": ["a", "b", "c", "d"]})
    problem(r, 401)
    r = client.post("/games", json={"game": "dalmuti", "players": ["a", "b", "c", "d"]}, headers=bearer("nope"))
    problem(r, 401)


@pytest.mark.parametrize(
    "body,status,needle",
    [
        ({"game": "chess", "players": ["a", "b", "c", "d"]}, 422, "chess"),
        ({"game": "dalmuti", "players": ["a", "b", "c"]}, 422, "4 to 16"),
        ({"game": "dalmuti", "players": ["a", "b", "c", "d"], "options": {"hands": 0}}, 422, "hands"),
        ({"game": "dalmuti", "players": ["a", "b", "c", "d"], "options": {"colour": "red"}}, 422, "colour"),
        ({"game": "dalmuti", "players": "abcd"}, 422, "players"),
        ({"players": ["a", "b", "c", "d"]}, 422, "game"),
    ],
)
def test_bad_creation_requests_say_what_was_wrong(client, integrator, body, status, needle):
    assert needle in problem(client.post("/games", json=body, headers=integrator), status)["detail"]


def test_malformed_bodies_are_4xx_problems(client, integrator):
    problem(client.post("/games", data="{not json", headers={**integrator, "Content-Type": "application/json"}), 400)
    problem(client.post("/games", data="[" * 100000, headers={**integrator, "Content-Type": "application/json"}), 413)
    problem(
        client.post(
            "/games", data='{"a":' * 3000 + "1" + "}" * 3000, headers={**integrator, "Content-Type": "application/json"}
        ),
        400,
    )
    problem(client.get("/games/doesnotexist"), 404)
    problem(client.delete("/games"), 405)


def test_each_seat_sees_its_own_hand_spectators_none_integrators_all(client, integrator):
    g = create(client, integrator)
    toks = tokens(g)
    full = client.get(f"/games/{g['id']}", headers=integrator).get_json()["state"]
    hands = full["hands"]
    assert sum(len(h) for h in hands) == 80
    for seat, tok in toks.items():
        v = client.get(f"/games/{g['id']}", headers=bearer(tok)).get_json()
        assert v["viewer"] == {"kind": "seat", "seat": seat, "full": False}
        assert v["state"]["hand"] == hands[seat]
        assert "hands" not in v["state"]
    spec = client.get(f"/games/{g['id']}").get_json()
    assert spec["viewer"]["kind"] == "spectator" and "hand" not in spec["state"] and "hands" not in spec["state"]


def test_a_token_of_one_game_is_refused_by_another(client, integrator):
    a, b = create(client, integrator), create(client, integrator)
    problem(client.get(f"/games/{b['id']}/legal-moves", headers=bearer(a["seats"][0]["token"])), 401)


def test_etag_is_the_version_and_if_none_match_gives_304(client, integrator):
    g = create(client, integrator)
    r = client.get(f"/games/{g['id']}")
    assert r.headers["ETag"] == f'"{g["version"]}"'
    assert client.get(f"/games/{g['id']}", headers={"If-None-Match": r.headers["ETag"]}).status_code == 304
    # If-None-Match compares weakly (RFC 9110, 13.1.2): a weak tag, a list holding the version, and *
    v = g["version"]
    for matching in (f'W/"{v}"', f'"{v + 5}", "{v}"', f'"{v + 5}", W/"{v}"', "*"):
        again = client.get(f"/games/{g['id']}", headers={"If-None-Match": matching})
        assert again.status_code == 304 and again.headers["ETag"] == f'"{v}"', matching
    for other in (f'"{v + 1}"', f'W/"{v + 1}"', f'"{v + 1}", "{v + 2}"', "garbage"):
        assert client.get(f"/games/{g['id']}", headers={"If-None-Match": other}).status_code == 200, other


def test_a_callers_view_is_kept_apart_by_caches(client, integrator):
    """Every caller's view of a version has the same ETag: a seat's view (its hand in it) and a
    spectator's are told apart by caches only through Vary: Authorization, and no shared cache may keep
    either (Cache-Control: private), on the 200 and on the 304 alike. Before, a browser that cached a
    seat's view revalidated it for a spectator's reload, got 304 and showed the seat's hand."""
    g = create(client, integrator)
    seat = bearer(tokens(g)[0])
    for who in ({}, seat, integrator):
        for extra in ({}, {"If-None-Match": f'"{g["version"]}"'}):
            r = client.get(f"/games/{g['id']}", headers={**who, **extra})
            assert r.status_code == (304 if extra else 200)
            assert "Authorization" in r.headers.get("Vary", ""), (who, extra, dict(r.headers))
            assert {"private", "no-cache"} <= {d.strip() for d in r.headers["Cache-Control"].split(",")}


def _acting(client, g):
    v = client.get(f"/games/{g['id']}").get_json()
    seat = v["to_act"][0]
    return seat, tokens(g)[seat], v


def test_legal_moves_are_for_seats_and_can_be_posted_as_they_are(client, integrator):
    g = create(client, integrator)
    problem(client.get(f"/games/{g['id']}/legal-moves"), 401)  # no credential; a key is 403 seat-required
    seat, tok, v = _acting(client, g)
    lm = client.get(f"/games/{g['id']}/legal-moves", headers=bearer(tok)).get_json()
    assert lm["version"] == v["version"] and lm["seat"] == seat and lm["moves"]
    r = client.post(f"/games/{g['id']}/moves", json=lm["moves"][0], headers=bearer(tok))
    assert r.status_code == 201
    body = r.get_json()
    assert body["version"] > v["version"] and body["events"]
    assert private_seats(body["events"]) <= {str(seat)}


def test_out_of_turn_and_illegal_moves_name_the_rule(client, integrator):
    g = create(client, integrator, options={"first_deal_revolution": True})
    # after a deal every seat answers the revolution question at once (docs/rules/dalmuti.md): all decline
    for s in client.get(f"/games/{g['id']}").get_json()["to_act"]:
        r = client.post(f"/games/{g['id']}/moves", json={"type": "decline_revolution"}, headers=bearer(tokens(g)[s]))
        assert r.status_code == 201, r.get_json()
    v = client.get(f"/games/{g['id']}").get_json()
    idle = next(s for s in range(5) if s not in v["to_act"])
    seat, tok, _ = _acting(client, g)
    # the move the acting seat may make now (the deal decides whether that is a play or a revolution)
    theirs = client.get(f"/games/{g['id']}/legal-moves", headers=bearer(tok)).get_json()["moves"][0]
    body = problem(client.post(f"/games/{g['id']}/moves", json=theirs, headers=bearer(tokens(g)[idle])), 409)
    assert body["rule"] == "not-your-turn"
    # a card nobody holds: 422 naming the rule in the play phase; during a revolution decision (which some
    # first deals lead to with first_deal_revolution) any play is out of phase, 409 "wrong-phase"
    in_play = theirs["type"] == "play"
    body = problem(
        client.post(f"/games/{g['id']}/moves", json={"type": "play", "cards": [99]}, headers=bearer(tok)),
        422 if in_play else 409,
    )
    assert body["rule"] if in_play else body["rule"] == "wrong-phase"
    body = problem(client.post(f"/games/{g['id']}/moves", json={"type": "fly"}, headers=bearer(tok)), 422)
    assert body["rule"] == "unknown-move"
    problem(client.post(f"/games/{g['id']}/moves", json={"cards": [1]}, headers=bearer(tok)), 422)
    problem(client.post(f"/games/{g['id']}/moves", json=[1, 2], headers=bearer(tok)), 422)
    assert client.get(f"/games/{g['id']}").get_json()["version"] == v["version"]  # nothing appended


def test_if_match_with_a_stale_version_is_412(client, integrator):
    g = create(client, integrator)
    seat, tok, v = _acting(client, g)
    move = client.get(f"/games/{g['id']}/legal-moves", headers=bearer(tok)).get_json()["moves"][0]
    body = problem(
        client.post(f"/games/{g['id']}/moves", json=move, headers={**bearer(tok), "If-Match": f'"{v["version"] - 1}"'}),
        412,
    )
    assert body["current_version"] == v["version"]
    r = client.post(f"/games/{g['id']}/moves", json=move, headers={**bearer(tok), "If-Match": f'"{v["version"]}"'})
    assert r.status_code == 201


def test_idempotent_retry_returns_first_answer_and_appends_nothing(client, integrator):
    g = create(client, integrator)
    seat, tok, v = _acting(client, g)
    move = client.get(f"/games/{g['id']}/legal-moves", headers=bearer(tok)).get_json()["moves"][0]
    h = {**bearer(tok), "Idempotency-Key": "retry-1"}
    first = client.post(f"/games/{g['id']}/moves", json=move, headers=h)
    second = client.post(f"/games/{g['id']}/moves", json=move, headers=h)
    assert first.status_code == second.status_code == 201
    assert second.get_json()["replayed"] is True
    assert second.get_json()["version"] == first.get_json()["version"]
    assert client.get(f"/games/{g['id']}").get_json()["version"] == first.get_json()["version"]
    other = dict(move, type="pass") if move.get("type") != "pass" else {"type": "play", "cards": [1]}
    problem(client.post(f"/games/{g['id']}/moves", json=other, headers=h), 422)


def test_a_retry_after_the_game_moved_on_still_gets_its_first_answer(client, integrator):
    """The stored answer is read only when a move is refused: a retry arriving after other seats
    have moved (its move no longer legal, the version past it) still gets the first answer."""
    g = create(client, integrator)
    seat, tok, v = _acting(client, g)
    move = client.get(f"/games/{g['id']}/legal-moves", headers=bearer(tok)).get_json()["moves"][0]
    h = {**bearer(tok), "Idempotency-Key": "late-retry", "If-Match": f'"{v["version"]}"'}
    first = client.post(f"/games/{g['id']}/moves", json=move, headers=h)
    assert first.status_code == 201
    later = _acting(client, g)
    assert later[0] != seat or later[2]["version"] != v["version"]
    nxt = client.get(f"/games/{g['id']}/legal-moves", headers=bearer(later[1])).get_json()["moves"][0]
    assert client.post(f"/games/{g['id']}/moves", json=nxt, headers=bearer(later[1])).status_code == 201
    again = client.post(f"/games/{g['id']}/moves", json=move, headers=h)
    assert again.status_code == 201 and again.get_json()["replayed"] is True
    assert again.get_json()["version"] == first.get_json()["version"]


def test_many_clients_posting_at_one_version_get_exactly_one_success(app, client, integrator, redis_client):
    g = create(client, integrator)
    seat, tok, v = _acting(client, g)
    move = client.get(f"/games/{g['id']}/legal-moves", headers=bearer(tok)).get_json()["moves"][0]
    statuses = []
    barrier = threading.Barrier(12)

    def post():
        c = app.test_client()
        barrier.wait()
        r = c.post(f"/games/{g['id']}/moves", json=move, headers={**bearer(tok), "If-Match": f'"{v["version"]}"'})
        statuses.append(r.status_code)

    threads = [threading.Thread(target=post) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert statuses.count(201) == 1 and set(statuses) <= {201, 412}, statuses
    audit = client.get(f"/games/{g['id']}/audit", headers=integrator).get_json()
    assert audit["chain"]["ok"]
    assert [e["version"] for e in audit["events"]] == list(range(1, audit["version"] + 1))


def test_events_after_and_private_parts_by_caller(client, integrator):
    g = create(client, integrator)
    toks = tokens(g)
    all_events = client.get(f"/games/{g['id']}/events", headers=integrator).get_json()["events"]
    # the deal gives every seat a private part, and keeps the salted deck for the reveal
    assert private_seats(all_events) == {"0", "1", "2", "3", "4", "deal"}
    for seat, tok in toks.items():
        mine = client.get(f"/games/{g['id']}/events", headers=bearer(tok)).get_json()["events"]
        assert private_seats(mine) == {str(seat)}
        assert [e["hash"] for e in mine] == [e["hash"] for e in all_events]
    spectator = client.get(f"/games/{g['id']}/events").get_json()["events"]
    assert private_seats(spectator) == set()
    later = client.get(f"/games/{g['id']}/events?after=1").get_json()["events"]
    assert [e["version"] for e in later] == [e["version"] for e in all_events[1:]]
    problem(client.get(f"/games/{g['id']}/events?after=-1"), 422)


def test_events_long_poll_returns_when_a_move_lands(app, client, integrator):
    g = create(client, integrator)
    seat, tok, v = _acting(client, g)
    move = client.get(f"/games/{g['id']}/legal-moves", headers=bearer(tok)).get_json()["moves"][0]
    result = {}

    def poll():
        result["r"] = app.test_client().get(f"/games/{g['id']}/events?after={v['version']}&wait=5").get_json()

    t = threading.Thread(target=poll)
    t.start()
    threading.Event().wait(0.3)
    client.post(f"/games/{g['id']}/moves", json=move, headers=bearer(tok))
    t.join(6)
    assert result["r"]["events"] and result["r"]["events"][0]["version"] == v["version"] + 1


def test_audit_detects_a_tampered_event(client, integrator, redis_client):
    g = create(client, integrator)
    problem(client.get(f"/games/{g['id']}/audit"), 401)
    assert client.get(f"/games/{g['id']}/audit", headers=integrator).get_json()["chain"]["ok"]
    stream = key(g["id"], "events")
    entries = redis_client.xrange(stream)
    redis_client.delete(stream)
    for entry_id, fields in entries:
        env = loads(fields[b"e"])
        if env["version"] == 2:
            env["data"]["tampered"] = True
        redis_client.xadd(stream, {"e": dumps(env)}, id=entry_id)
    chain = client.get(f"/games/{g['id']}/audit", headers=integrator).get_json()["chain"]
    assert not chain["ok"] and chain["broken_at"] == 2, chain


def test_replay_gives_the_callers_view_at_any_version(client, integrator):
    g = create(client, integrator, options={"hands": 1})
    toks = tokens(g)
    seen = {}

    def record(gid, toks_, _resp):
        v = client.get(f"/games/{gid}", headers=bearer(toks_[0])).get_json()
        seen[v["version"]] = v

    play_http(client, g, random.Random(3), on_step=record)
    for version, view in list(seen.items())[::7]:
        replay = client.get(f"/games/{g['id']}/replay?version={version}", headers=bearer(toks[0])).get_json()
        assert replay == view
    problem(client.get(f"/games/{g['id']}/replay?version=0"), 422)
    problem(client.get(f"/games/{g['id']}/replay?version=999999"), 422)


def test_a_replay_viewpoint_naming_a_seat_the_game_lacks_is_a_bad_viewpoint(client, integrator):
    """``as=seat:<n>`` names a seat: one the game does not have at that version is a 422 bad-viewpoint
    naming the seats it has (not a 403 about a token the caller never sent); a seat number is written
    without leading zeros."""
    g = create(client, integrator, game="cego", players=["ana", "bo", "cy"])
    url = f"/games/{g['id']}/replay?version=1"
    assert client.get(f"{url}&as=seat:2", headers=integrator).status_code == 200
    body = problem(client.get(f"{url}&as=seat:9", headers=integrator), 422)
    assert body["type"].endswith("bad-viewpoint") and "no seat 9" in body["detail"] and "0 to 2" in body["detail"]
    for written in ("seat:01", "seat:٣", "seat:1%0A", "seat:-1"):
        problem(client.get(f"{url}&as={written}", headers=integrator), 422)
    # the seats a game has are public: whoever asks for a seat it lacks is told so, not refused;
    # a seat it has stays refused to all but its own token and a key that sees the whole game
    for headers in ({}, bearer(tokens(g)[0])):
        body = problem(client.get(f"{url}&as=seat:99", headers=headers), 422)
        assert "no seat 99" in body["detail"] and "0 to 2" in body["detail"]
        problem(client.get(f"{url}&as=seat:1", headers=headers), 403)


def test_list_games_filters_by_type_and_status(client, integrator):
    g = create(client, integrator, options={"hands": 1})
    play_http(client, g, random.Random(5))
    problem(client.get("/games"), 401)
    listed = client.get("/games?game=dalmuti&status=finished&limit=500", headers=integrator).get_json()
    assert g["id"] in {row["id"] for row in listed["games"]}
    active = client.get("/games?status=active&limit=500", headers=integrator).get_json()
    assert g["id"] not in {row["id"] for row in active["games"]}


def test_openapi_is_served(client):
    r = client.get("/openapi.yaml")
    assert r.status_code == 200 and b"openapi: 3.0.3" in r.data
    assert client.get("/openapi.json").get_json()["info"]["title"] == "naipes"


def test_a_newcomer_joins_at_the_next_hand_as_a_merchant_placed_by_the_greater_dalmuti(client, integrator):
    """Seed 004, INCORPORARSE A UNA PARTIDA EN MARCHA: newcomers join at the start of a hand as Merchants,
    the Greater Dalmuti choosing their position."""
    g = create(client, integrator, players=list("abcd"), options={"allow_joining": True, "hands": 2})
    problem(client.post(f"/games/{g['id']}/players", json={"player": "eve"}), 401)
    r = client.post(f"/games/{g['id']}/players", json={"player": "eve"}, headers=integrator)
    assert r.status_code == 201, r.get_json()
    joined = r.get_json()
    assert joined["seat"] == 4
    view = client.get(f"/games/{g['id']}", headers=bearer(joined["token"])).get_json()
    assert view["viewer"] == {"kind": "seat", "seat": 4, "full": False} and view["state"]["hand"] == []
    assert 4 in view["state"]["newcomers"]
    taken = problem(client.post(f"/games/{g['id']}/players", json={"player": "eve"}, headers=integrator), 409)
    assert taken["type"].endswith("name-taken")
    closed = create(client, integrator, players=list("abcd"))
    assert (
        problem(client.post(f"/games/{closed['id']}/players", json={"player": "x"}, headers=integrator), 422)["rule"]
        == "joining-disabled"
    )
    # a game whose rules know no newcomer says so, in the same words (not a move type unknown to the contract)
    cego = create(client, integrator, game="cego", players=["a", "b", "c"])
    refused = problem(client.post(f"/games/{cego['id']}/players", json={"player": "x"}, headers=integrator), 422)
    assert refused["rule"] == "joining-disabled" and "join" not in refused["detail"].split(), refused
    # play on: the new seat is placed by the Greater Dalmuti and is dealt cards in hand 2
    toks = {**tokens(g), 4: joined["token"]}
    rng = random.Random(8)
    for _ in range(3000):
        v = client.get(f"/games/{g['id']}", headers=integrator).get_json()
        if v["state"]["hand_no"] == 2 and v["state"]["phase"] != "placing":
            break
        seat = rng.choice(v["to_act"])
        moves = client.get(f"/games/{g['id']}/legal-moves", headers=bearer(toks[seat])).get_json()["moves"]
        if v["state"]["phase"] == "placing":
            assert seat == v["state"]["order"][0] and all(m["type"] == "place_newcomer" for m in moves)
        client.post(f"/games/{g['id']}/moves", json=rng.choice(moves), headers=bearer(toks[seat]))
    order = v["state"]["order"]
    assert 4 in order and order.index(4) not in (0, 1, len(order) - 2, len(order) - 1)
    assert len(v["state"]["hands"][4]) > 0
