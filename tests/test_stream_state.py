"""The stream opens with the caller's whole game, and can push it after every batch of events.

A fresh stream (no Last-Event-ID, no ``after``) starts with a ``state`` message: the caller's view
as GET /games/{id} gives it and, when the caller's seat must act, its legal moves; the events
after that version follow.  With ``view=every`` a new state follows each batch, so a seat plays
a whole game from its stream, with one request per move (the POST).  A resumed stream sends no
state unless asked.
"""

from __future__ import annotations

import random
import threading

import jsonschema
import orjson
import pytest
import requests

from .conftest import bearer
from .helpers import tokens
from .live import live_server  # noqa: F401 - fixture
from .test_contract import _schema as contract_schema
from .test_stream import new_game, sse

_CONTRACT: dict[str, jsonschema.Draft202012Validator] = {}


def conforms_to_the_contract(kind: str, data: dict) -> None:
    """A stream message's data is what the contract names: a StreamState for ``state``, else an Event."""
    name = "StreamState" if kind == "state" else "Event"
    if name not in _CONTRACT:
        _CONTRACT[name] = jsonschema.Draft202012Validator(contract_schema({"$ref": f"#/components/schemas/{name}"}))
    error = jsonschema.exceptions.best_match(_CONTRACT[name].iter_errors(data))
    assert error is None, f"a {kind} message unlike the {name} of the contract: {error.message} at {error.json_path}"


def _messages(resp, limit: int, timeout: float = 30) -> list[tuple[str, dict]]:
    out = []
    for kind, msg in sse(resp, timeout=timeout):
        if kind == "event":
            out.append((msg["event"], {"id": msg["id"], **orjson.loads(msg["data"])}))
            if len(out) >= limit:
                break
    return out


def test_a_fresh_stream_opens_with_the_callers_view_and_moves(live_server, integrator):
    base = live_server.url
    g = new_game(base, integrator)
    gid, toks = g["id"], tokens(g)
    view = requests.get(f"{base}/games/{gid}", headers=bearer(toks[0])).json()
    while len(view["to_act"]) == len(toks):  # play on until some seat waits (every seat answers the revolution)
        seat = view["to_act"][0]
        move = requests.get(f"{base}/games/{gid}/legal-moves", headers=bearer(toks[seat])).json()["moves"][0]
        assert requests.post(f"{base}/games/{gid}/moves", json=move, headers=bearer(toks[seat])).status_code == 201
        view = requests.get(f"{base}/games/{gid}", headers=bearer(toks[0])).json()
    acting = view["to_act"][0]
    idle = next(s for s in toks if s not in view["to_act"])
    for seat, must_act in ((acting, True), (idle, False)):
        with requests.get(f"{base}/games/{gid}/stream", headers=bearer(toks[seat]), stream=True, timeout=30) as r:
            [(kind, state)] = _messages(r, 1)
        assert kind == "state" and int(state["id"]) == state["version"] == view["version"]
        mine = requests.get(f"{base}/games/{gid}", headers=bearer(toks[seat])).json()
        assert state["view"] == mine, "the view is the one GET /games/{id} gives the seat"
        if must_act:
            listed = requests.get(f"{base}/games/{gid}/legal-moves", headers=bearer(toks[seat])).json()
            assert state["legal_moves"] == listed and listed["moves"]
        else:
            assert state["legal_moves"] is None
    # a spectator gets the public view, no moves, no hand
    with requests.get(f"{base}/games/{gid}/stream", stream=True, timeout=30) as r:
        [(kind, state)] = _messages(r, 1)
    assert kind == "state" and state["legal_moves"] is None and state["view"]["viewer"]["kind"] == "spectator"
    assert "hand" not in state["view"]["state"]


def test_a_resumed_stream_sends_no_state_unless_asked(live_server, integrator):
    base = live_server.url
    g = new_game(base, integrator)
    gid, toks = g["id"], tokens(g)
    head = requests.get(f"{base}/games/{gid}").json()["version"]
    with requests.get(
        f"{base}/games/{gid}/stream", headers={**bearer(toks[1]), "Last-Event-ID": "1"}, stream=True, timeout=30
    ) as r:
        got = _messages(r, head - 1)
    assert all(kind == m["type"] for kind, m in got), "events only, no state"
    assert [int(m["id"]) for _, m in got] == list(range(2, head + 1))
    with requests.get(
        f"{base}/games/{gid}/stream",
        params={"view": "first"},
        headers={**bearer(toks[1]), "Last-Event-ID": "1"},
        stream=True,
        timeout=30,
    ) as r:
        got = _messages(r, head)
    # the state comes after the catch-up: its id is the head, and a client dropped just after it must not
    # resume past events it was never sent
    assert [int(m["id"]) for _, m in got[:-1]] == list(range(2, head + 1)) and all(k != "state" for k, _ in got[:-1])
    assert got[-1][0] == "state" and int(got[-1][1]["id"]) == got[-1][1]["version"] == head
    # resumed at the head, nothing to catch up: the state at once
    with requests.get(
        f"{base}/games/{gid}/stream",
        params={"view": "first", "after": head},
        headers=bearer(toks[1]),
        stream=True,
        timeout=30,
    ) as r:
        [(kind, state)] = _messages(r, 1)
    assert kind == "state" and state["version"] == head
    r = requests.get(f"{base}/games/{gid}/stream", params={"view": "sometimes"}, timeout=30)
    assert r.status_code == 422 and "view" in r.text


@pytest.mark.parametrize("view,events", [("every", "all"), ("turn", "all"), ("turn", "none"), ("every", "none")])
def test_seats_play_a_whole_game_from_their_streams_with_one_request_per_move(live_server, integrator, view, events):
    """Each seat follows its own stream with view=every (a state after every batch) or view=turn (a
    state only when the seat must act) and posts a move whenever a state offers it moves: no reads
    besides the streams.  With events=none the streams send their states and nothing else."""
    base = live_server.url
    idle_states: list[int] = []  # states after the first that offered the seat nothing
    others: list[str] = []  # messages other than states
    g = new_game(base, integrator)
    gid, toks = g["id"], tokens(g)
    posts: list[int] = []
    errors: list[str] = []
    heard: list[tuple[str, dict]] = []  # every message's event and data
    lock = threading.Lock()

    def seat_loop(seat: int) -> None:
        rng = random.Random(seat)
        try:
            with requests.get(
                f"{base}/games/{gid}/stream",
                params={"view": view, "events": events},
                headers=bearer(toks[seat]),
                stream=True,
                timeout=60,
            ) as r:
                first = True
                for kind, msg in sse(r, timeout=60):
                    if kind != "event":
                        continue
                    with lock:
                        heard.append((msg["event"], orjson.loads(msg["data"])))
                    if msg["event"] != "state":
                        with lock:
                            others.append(msg["event"])
                        continue
                    state = orjson.loads(msg["data"])
                    if state["view"]["finished"]:
                        return
                    offered = state["legal_moves"]
                    if not first and not (offered and offered["moves"]):
                        with lock:
                            idle_states.append(seat)
                    first = False
                    if offered and offered["moves"]:
                        move = rng.choice(offered["moves"])
                        p = requests.post(
                            f"{base}/games/{gid}/moves",
                            json=move,
                            headers={**bearer(toks[seat]), "If-Match": f'"{offered["version"]}"'},
                            timeout=30,
                        )
                        with lock:
                            posts.append(p.status_code)
                        if p.status_code not in (201, 412):
                            errors.append(p.text)
                            return
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(repr(exc))

    threads = [threading.Thread(target=seat_loop, args=(s,)) for s in toks]
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)
    assert not errors, errors[:3]
    final = requests.get(f"{base}/games/{gid}").json()
    assert final["finished"], "the game was played to its end from the streams alone"
    assert posts.count(201) >= 20 and posts.count(412) <= posts.count(201)
    if view == "turn":  # every state after the first came with the seat's turn
        assert not idle_states, idle_states
    else:  # every batch brought each seat a state, its turn or not
        assert idle_states
    for kind, data in heard:  # every message of every stream is as the contract describes it
        conforms_to_the_contract(kind, data)
    if events == "none":
        assert not others, others[:5]
    else:  # each seat's stream carried the events between its states
        assert len(others) >= len(toks) * posts.count(201)


def test_a_stream_of_states_alone_needs_a_view_that_sends_them(live_server, integrator):
    """events=none with no view, or a view that sends at most one state, would be a silent stream: 422
    naming the parameter; an unknown value too."""
    base = live_server.url
    g = new_game(base, integrator)
    gid, toks = g["id"], tokens(g)
    for params in ({"events": "none"}, {"events": "none", "view": "first"}, {"events": "none", "view": "none"}):
        r = requests.get(f"{base}/games/{gid}/stream", params=params, headers=bearer(toks[0]), timeout=30)
        assert r.status_code == 422, (params, r.text)
        assert r.headers["Content-Type"] == "application/problem+json"
        assert "events" in r.text and "view=every or view=turn" in r.text
    r = requests.get(f"{base}/games/{gid}/stream", params={"events": "some"}, timeout=30)
    assert r.status_code == 422 and "events" in r.text


def test_a_resumed_stream_of_states_alone_goes_on_from_the_state_it_shows(live_server, integrator):
    """Resuming with Last-Event-ID (the id of the last state received) and events=none: the seat's
    current state, then the state after the next move, none of the events it missed and no state twice."""
    base = live_server.url
    g = new_game(base, integrator)
    gid, toks = g["id"], tokens(g)
    view = requests.get(f"{base}/games/{gid}", headers=bearer(toks[0])).json()
    seat = view["to_act"][0]
    with requests.get(
        f"{base}/games/{gid}/stream",
        params={"view": "every", "events": "none"},
        headers={**bearer(toks[seat]), "Last-Event-ID": "1"},
        stream=True,
        timeout=30,
    ) as r:
        messages = sse(r, timeout=30)
        kind, msg = next(m for m in messages if m[0] == "event")
        state = orjson.loads(msg["data"])
        assert msg["event"] == "state" and int(msg["id"]) == state["version"] == view["version"]
        assert state["legal_moves"]["seat"] == seat and state["legal_moves"]["moves"]
        p = requests.post(
            f"{base}/games/{gid}/moves", json=state["legal_moves"]["moves"][0], headers=bearer(toks[seat]), timeout=30
        )
        assert p.status_code == 201, p.text
        kind, msg = next(m for m in messages if m[0] == "event")
        assert msg["event"] == "state" and int(msg["id"]) == p.json()["version"] > view["version"]
