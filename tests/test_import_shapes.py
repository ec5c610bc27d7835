"""An import refuses a log whose events do not have the shapes this service writes.

A chain of hashes proves a log unchanged since it was written, not that it is well formed: anyone can
write a log, change a field and compute the chain again (``forged``).  A Dalmuti ``HandDealt`` whose
``order`` held a list was imported (201), and then every view of the game, to every caller, was a 500.
Every event is now checked against the game's published event schemas (``GET /game-types/{game}``
``event_schemas``) and every envelope's members, before anything is written.
"""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from events.envelope import GENESIS, loads
from service.core.verify import verify_export

from .conftest import bearer
from .helpers import create, play_http
from .test_trust import forged

NDJSON = {"Content-Type": "application/x-ndjson"}
GAMES = {
    "dalmuti": (["ana", "bea", "carl", "dani"], {"hands": 1}),
    "muerte": (["ana", "bea", "carl", "dani", "eva", "flor"], {}),
    "cego": (["ana", "bea", "carl"], {"rounds": 1}),
    "onion": (["ana", "bea", "carl"], {"rounds": 1, "lady": True, "fate": True, "great_atuin": True}),
}


def exported(client, integrator, game: str, seed: int = 1) -> list[bytes]:
    players, options = GAMES[game]
    g = create(client, integrator, game=game, players=players, options=options)
    play_http(client, g, random.Random(seed))
    r = client.get(f"/games/{g['id']}/export", headers=integrator)
    assert r.status_code == 200
    # the game is removed from this store by importing it under a fresh id
    return r.data.splitlines()


def moved(lines: list[bytes], new_id: str, edit=None) -> bytes:
    def change(header, envs):
        envs = [{**e, "game_id": new_id} for e in envs]
        if edit is not None:
            edit(envs)
        return {**header, "game_id": new_id}, envs

    return forged(lines, change)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_genuine_log_of_every_game_imports_and_shows(client, integrator, game):
    lines = exported(client, integrator, game)
    new_id = f"shapes-{game}-{random.randrange(10**9)}"
    r = client.post("/games/import", data=moved(lines, new_id), headers={**integrator, **NDJSON})
    assert r.status_code == 201, r.get_json()
    assert client.get(f"/games/{new_id}").status_code == 200
    assert client.get(f"/games/{new_id}/replay?version=3&as=reviewer", headers=integrator).status_code == 200


def _first(envs, kind):
    return next(e for e in envs if e["type"] == kind)


CASES = {
    "a seat in Dalmuti's order written as a list": (
        "dalmuti",
        lambda envs: _first(envs, "HandDealt")["data"].__setitem__("order", [0, 1, 3, [[]]]),
        "/data/order",
    ),
    "a card of a Muerte accusation that is no card": (
        "muerte",
        lambda envs: _first(envs, "GameDealt")["data"].__setitem__("order", "é"),
        "/data/order",
    ),
    "a rules version no release wrote": ("cego", lambda envs: envs[2].__setitem__("rules", 2**63), None),
    "an event type the game does not have": ("onion", lambda envs: envs[3].__setitem__("type", "Teleported"), None),
    # (written as a list or an object, neither could be looked up among the review events' types or the rules
    # versions folded: the import was a 500)
    "an event type written as an object": ("cego", lambda envs: envs[3].__setitem__("type", {"a": 1}), None),
    "a rules version written as a list": ("cego", lambda envs: envs[2].__setitem__("rules", ["2"]), None),
    # (a time is shown as it is, and a timed game's clocks are folded from it)
    "an event time that is no timestamp": ("cego", lambda envs: envs[3].__setitem__("time", "yesterday"), "its time"),
    "an event time outside UTC": (
        "onion",
        lambda envs: envs[2].__setitem__("time", "2026-11-29T06:00:00.000+05:00"),
        "its time",
    ),
    "a private part of the wrong shape": (
        "dalmuti",
        lambda envs: _first(envs, "HandDealt").__setitem__("private", {"0": {"hand": "all of them"}}),
        None,  # (the deal's reveal no longer matches the hands: the verification refuses it first)
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_forged_log_of_the_wrong_shape_is_refused_and_nothing_is_written(client, integrator, case):
    game, edit, pointer = CASES[case]
    lines = exported(client, integrator, game, seed=2)
    new_id = f"badshape-{random.randrange(10**9)}"
    r = client.post("/games/import", data=moved(lines, new_id, edit), headers={**integrator, **NDJSON})
    assert r.status_code == 422 and r.mimetype == "application/problem+json", (r.status_code, r.get_json())
    problem = r.get_json()
    assert problem["type"].endswith("bad-export"), problem
    if pointer:  # refused by the shape check, which names the event and the field
        assert isinstance(problem["version"], int) and pointer in problem["detail"], problem
    for path in ("", "/events", "/replay?version=1"):
        assert client.get(f"/games/{new_id}{path}", headers=integrator).status_code == 404
    assert client.get(f"/games/{new_id}", headers=bearer("st_nothing")).status_code in (401, 404)


def _canonical(value) -> bytes:
    """The chain's canonical JSON (keys sorted, no white space, UTF-8), written without orjson's depth limit."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def test_a_forged_log_nested_deeper_than_the_chain_can_hash_is_a_422_not_a_500(client, integrator):
    """A forger computes a chain with any JSON writer: a line nested 300 levels deep, whose hash orjson
    cannot recompute (it writes at most 255 levels), made the import a 500 and ``naipes verify`` a
    traceback.  It is refused as any other malformed log is, and nothing is written."""
    lines = exported(client, integrator, "cego", seed=3)
    header, envs = loads(lines[0]), [loads(x) for x in lines[1:]]
    new_id = f"deep-{random.randrange(10**9)}"
    deep: object = 0
    for _ in range(300):
        deep = [deep]
    envs[3]["data"] = {**envs[3]["data"], "deep": deep}
    prev = GENESIS
    for env in envs:
        env.update(game_id=new_id, prev_hash=prev)
        body = {k: v for k, v in env.items() if k != "hash"}
        env["hash"] = prev = hashlib.sha256(prev.encode() + _canonical(body)).hexdigest()
    header = {**header, "game_id": new_id, "version": len(envs), "head_hash": prev}
    body = b"\n".join(_canonical(x) for x in [header, *envs]) + b"\n"
    r = client.post("/games/import", data=body, headers={**integrator, **NDJSON})
    assert r.status_code == 422 and r.mimetype == "application/problem+json", (r.status_code, r.get_json())
    assert r.get_json()["type"].endswith("bad-export"), r.get_json()
    assert client.get(f"/games/{new_id}", headers=integrator).status_code == 404
    report = verify_export(body.splitlines())  # what naipes verify runs: a finding, not a crash
    assert not report["ok"] and report["problems"], report["problems"]
    # the header's outcome nested as deep: the same
    header = {**header, "outcome": deep}
    plain = b"\n".join(_canonical(x) for x in [header]) + b"\n" + b"\n".join(lines[1:]) + b"\n"
    assert not verify_export(plain.splitlines())["ok"]
