"""Malformed and hostile bodies for every move of every game.

For each game type a live game is played by legal moves; the first time a
seat is offered a move type, that move is posted again in malformed forms
(wrong types, unknown cards, cards not in hand, bodies over the 64 KiB limit,
deep nesting, NUL and other unicode, extra and missing fields).  Each must
get a 4xx problem+json whose detail names what was wrong, and the game's log
(version and head hash in the audit) must not change.
"""

from __future__ import annotations

import json
import random

import pytest

from .conftest import bearer

PROBLEM = "application/problem+json"
GAMES = {"dalmuti": 4, "cego": 4, "muerte": 6, "onion": 4}
WRONG_TYPES = ["seven", None, 1.5, True, {"card": 1}, [[1, 2]], -1, 10**30]


def _values(node, kind):
    """Every scalar of type ``kind`` in a JSON value."""
    if isinstance(node, dict):
        for v in node.values():
            yield from _values(v, kind)
    elif isinstance(node, list):
        for v in node:
            yield from _values(v, kind)
    elif type(node) is kind:
        yield node


def variants(move: dict, seat_view: dict, full_view: dict):
    """(name, body bytes or JSON value, what the detail must mention)."""
    mtype = move["type"]
    fields = [k for k in move if k not in ("type", "label")]  # a label is words for people, ignored by /moves
    out = [
        ("missing type", {k: v for k, v in move.items() if k != "type"}, "type"),
        ("type not a string", {**move, "type": 7}, "type"),
        ("unknown type", {**move, "type": "teleport"}, "teleport"),
        ("NUL in type", {**move, "type": mtype + "\x00"}, "type"),
        ("unicode type", {**move, "type": "jugar\u202e\U0001f0a1"}, "type"),
        ("system command start", {"type": "start"}, "start"),
        ("extra field", {**move, "extra": 1}, "extra"),
        ("extra field with NUL and unicode", {**move, "pl\x00yer\u00f1": "\U0001f0a1"}, "pl"),
        ("seat smuggled in", {**move, "seat": (seat_view["viewer"]["seat"] + 1) % len(seat_view["players"])}, "seat"),
        ("body is a list", [move], "input"),
        ("body is a string", json.dumps(move), "input"),
        ("huge payload", json.dumps({**move, "pad": "x" * (70 * 1024)}).encode(), "exceeds"),
        ("deeply nested", ('{"type": "' + mtype + '", "x": ' + "[" * 100_000 + "]" * 100_000 + "}").encode(), None),
        (
            "nested in a field",
            json.dumps({**move, (fields[0] if fields else "x"): "@"}).replace('"@"', "[" * 500 + "]" * 500).encode(),
            fields[0] if fields else "x",
        ),
        ("broken JSON", ('{"type": "' + mtype + '", ').encode(), "JSON"),
    ]
    for f in fields:
        out.append((f"missing {f}", {k: v for k, v in move.items() if k != f}, f))
        for bad in WRONG_TYPES:
            if type(bad) is type(move[f]) and not isinstance(bad, bool):
                continue  # same type: not a wrong type
            out.append((f"{f} as {bad!r:.20}", {**move, f: bad}, f))
        value = move[f]
        if f in ("cards", "card"):
            sample = value[0] if isinstance(value, list) and value else value
            if isinstance(value, list):
                if sample is not None:
                    out.append(
                        (f"{f} with an unknown card", {**move, f: [9999 if isinstance(sample, int) else "ZZ9"]}, None)
                    )
                    out.append((f"{f} with more copies than held", {**move, f: [sample] * 40}, None))
            else:
                out.append((f"{f} unknown", {**move, f: 9999 if isinstance(value, int) else "ZZ9"}, None))
            # cards that are somewhere in the game but not in this seat's hand
            kind = type(sample) if sample is not None else int
            mine = set(_values(seat_view["state"], kind))
            others = sorted(set(_values(full_view["state"], kind)) - mine, key=str)
            if others:
                foreign = others[len(others) // 2]
                body = {**move, f: [foreign] if isinstance(value, list) else foreign}
                out.append((f"{f} not in hand ({foreign!r})", body, None))
    return out


def post(client, gid, token, body):
    headers = bearer(token)
    if isinstance(body, bytes):
        return client.post(f"/games/{gid}/moves", data=body, headers={**headers, "Content-Type": "application/json"})
    return client.post(f"/games/{gid}/moves", json=body, headers=headers)


def log_head(client, integrator, gid):
    audit = client.get(f"/games/{gid}/audit", headers=integrator).get_json()
    assert audit["chain"]["ok"]
    return audit["version"], audit["head_hash"]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_malformed_moves_get_a_4xx_that_says_why_and_change_nothing(game, client, integrator):
    created = client.post(
        "/games",
        headers=integrator,
        json={"game": game, "players": [f"p{i}" for i in range(GAMES[game])], "options": {}},
    ).get_json()
    gid = created["id"]
    toks = {s["seat"]: s["token"] for s in created["seats"]}
    rng = random.Random(game)
    covered: set[str] = set()
    offered: set[str] = set()
    tried = 0
    for _ in range(400):
        view = client.get(f"/games/{gid}").get_json()
        if view["finished"]:
            break
        seat = rng.choice(view["to_act"])
        moves = client.get(f"/games/{gid}/legal-moves", headers=bearer(toks[seat])).get_json()["moves"]
        fresh = {m["type"]: m for m in moves if m["type"] not in covered}
        offered.update(m["type"] for m in moves)
        if fresh:
            before = log_head(client, integrator, gid)
            seat_view = client.get(f"/games/{gid}", headers=bearer(toks[seat])).get_json()
            full_view = client.get(f"/games/{gid}", headers=integrator).get_json()
            for mtype, move in fresh.items():
                for name, body, says in variants(move, seat_view, full_view):
                    r = post(client, gid, toks[seat], body)
                    where = f"{game} {mtype} / {name}"
                    assert 400 <= r.status_code < 500, (where, r.status_code, r.get_data()[:300])
                    assert r.mimetype == PROBLEM, (where, r.mimetype)
                    problem = r.get_json()
                    assert problem["status"] == r.status_code and problem["detail"], (where, problem)
                    if says is not None:
                        assert says.lower() in problem["detail"].lower(), (where, says, problem["detail"])
                    tried += 1
                covered.add(mtype)
            assert log_head(client, integrator, gid) == before, f"{game}: a refused body changed the log"
        r = client.post(f"/games/{gid}/moves", json=rng.choice(moves), headers=bearer(toks[seat]))
        assert r.status_code == 201, r.get_json()
        if covered >= offered and len(covered) >= 2 and _ > 60:
            break
    assert len(covered) >= 2 and tried > 30, (covered, tried)
