"""Errors a client can act on.

* the credential is decided before the body or the query is read, and every
  401 carries a Bearer challenge (RFC 6750);
* a JSON body sent without its content type is 415 naming the type;
* a seat that is to act but posts a move of another phase is told so
  (``wrong-phase``), distinct from ``not-your-turn``;
* every kind of problem the code can raise is listed, with its meaning, in
  the contract;
* ``GET /game-types`` states every constraint a creation can fail on, as JSON
  Schemas a client can check, and the service refuses exactly those.
"""

from __future__ import annotations

import ast
import json
import random
import re

import jsonschema
import pytest

from domain import registry
from service.core import catalogue

from .conftest import ROOT, bearer
from .helpers import create, tokens

PROBLEM = "application/problem+json"
CHALLENGE = re.compile(
    r'^Bearer realm="naipes"(, error="(?P<error>[a-z_]+)"(, error_description="[^"]*")?)?'
    r'(, scope="[a-z ]+")?$'
)
MISSING_GAME = "0123456789abcdef"
MISSING_TOURNAMENT = "t-0123456789abcdef"


def problem(r, status: int) -> dict:
    assert r.status_code == status, (r.status_code, r.get_data(as_text=True)[:400])
    assert r.mimetype == PROBLEM
    return r.get_json()


def challenge(r) -> str | None:
    """The error code of a 401's WWW-Authenticate (None for a bare challenge); fails without one."""
    header = r.headers.get("WWW-Authenticate")
    assert header, f"a {r.status_code} without WWW-Authenticate: {r.get_data(as_text=True)[:200]}"
    found = CHALLENGE.match(header)
    assert found, header
    return found.group("error")


def kind(body: dict) -> str:
    return body["type"].rsplit(":", 1)[-1]


# ------------------------------------------------------------------ 5: credentials before the body


def body_routes(app) -> list[tuple[str, str]]:
    """(method, rule) of every operation reading a JSON body, from the URL map."""
    from service.web.base import operation_of

    out = []
    for rule in app.url_map.iter_rules():
        for method in sorted(rule.methods - {"HEAD", "OPTIONS", "GET"}):
            op = operation_of(app.view_functions[rule.endpoint], method)
            params = (getattr(op, "_apidoc", {}) or {}).get("arguments", {}).get("parameters", [])
            if any(p.get("in") == "json" for p in params):
                out.append((method, rule.rule))
    return out


def concrete(rule: str, game_id: str) -> str:
    return (
        rule.replace("<game_id:game_id>", game_id)
        .replace("<tournament_id:tournament_id>", MISSING_TOURNAMENT)
        .replace("<webhook_id>", "wh_0")
        .replace("<key_id>", "key_000000000000")
    )


def test_a_bad_credential_is_told_before_a_bad_body(app, client, integrator):
    g = create(client, integrator)
    routes = body_routes(app)
    assert ("POST", "/games/<game_id:game_id>/moves") in routes and ("POST", "/games") in routes, routes
    assert len(routes) >= 10, routes
    for method, rule in routes:
        path = concrete(rule, g["id"])
        for headers, error in (({}, None), (bearer("st_not_a_token"), "invalid_token")):
            for body in ([1, 2], {"type": 7, "players": "x", "reason": ""}, {}):
                r = client.open(path, method=method, json=body, headers=headers)
                assert r.status_code == 401, (method, path, headers, body, r.status_code, r.get_json())
                assert challenge(r) == error, (path, r.headers.get("WWW-Authenticate"))


def test_a_bad_credential_is_told_before_a_bad_query(client, integrator):
    g = create(client, integrator)
    for path in (
        f"/games/{g['id']}/events?after=-1&limit=0",
        f"/games/{g['id']}/replay?version=0&as=nobody",
        f"/tournaments/{MISSING_TOURNAMENT}/events?after=-5",
        "/tournaments?limit=0",
        "/webhooks/wh_0/deliveries?limit=-1",
    ):
        r = client.get(path, headers=bearer("st_not_a_token"))
        assert r.status_code == 401, (path, r.status_code, r.get_json())
        assert challenge(r) == "invalid_token"


def test_a_move_without_a_token_is_401_and_with_a_key_403(client, integrator):
    g = create(client, integrator)
    move = client.get(f"/games/{g['id']}/legal-moves", headers=bearer(tokens(g)[0])).get_json()["moves"][0]
    for r in (client.post(f"/games/{g['id']}/moves", json=move), client.get(f"/games/{g['id']}/legal-moves")):
        body = problem(r, 401)
        assert kind(body) == "unauthorized" and "seat" in body["detail"]
        assert challenge(r) is None  # no credential sent: a bare challenge (RFC 6750, 3.1)
    for r in (
        client.post(f"/games/{g['id']}/moves", json=move, headers=integrator),
        client.get(f"/games/{g['id']}/legal-moves", headers=integrator),
    ):
        assert kind(problem(r, 403)) == "seat-required"


def test_a_seat_token_on_a_game_that_does_not_exist_is_404(client, integrator):
    g = create(client, integrator)
    seat = bearer(tokens(g)[0])
    for r in (
        client.post(f"/games/{MISSING_GAME}/moves", json={"type": "pass"}, headers=seat),
        client.get(f"/games/{MISSING_GAME}/legal-moves", headers=seat),
        client.get(f"/games/{MISSING_GAME}", headers=seat),
        client.get(f"/games/{MISSING_GAME}/events", headers=seat),
    ):
        assert kind(problem(r, 404)) == "game-not-found"
    # the same token on another game that exists is still refused as a credential
    other = create(client, integrator)
    r = client.get(f"/games/{other['id']}/legal-moves", headers=seat)
    assert kind(problem(r, 401)) == "unauthorized" and challenge(r) == "invalid_token"


def test_every_401_carries_a_bearer_challenge(client, integrator):
    made = client.post("/keys", json={"name": "gone", "scopes": ["games"]}, headers=integrator).get_json()
    assert client.delete(f"/keys/{made['id']}", headers=integrator).status_code == 200
    cases = {
        "nothing": ({}, None),
        "another scheme": ({"Authorization": "Basic YTpi"}, None),
        "a malformed token": ({"Authorization": "Bearer a b"}, "invalid_token"),
        "an unknown token": (bearer("nk_unknown"), "invalid_token"),
        "a revoked key": (bearer(made["key"]), "invalid_token"),
    }
    for name, (headers, error) in cases.items():
        for r in (
            client.post("/games", json={"game": "dalmuti", "players": ["a", "b", "c", "d"]}, headers=headers),
            client.get("/keys", headers=headers),
            client.post("/tournaments", json={}, headers=headers),
        ):
            problem(r, 401)
            assert challenge(r) == error, (name, r.headers.get("WWW-Authenticate"))


def test_a_missing_scope_says_insufficient_scope(client, integrator):
    made = client.post("/keys", json={"name": "reader", "scopes": ["tournaments"]}, headers=integrator).get_json()
    r = client.post("/games", json={"game": "dalmuti", "players": ["a", "b", "c", "d"]}, headers=bearer(made["key"]))
    assert kind(problem(r, 403)) == "scope-missing"
    assert challenge(r) == "insufficient_scope" and 'scope="games"' in r.headers["WWW-Authenticate"]


# ------------------------------------------------------------------ 9: a revoked key is told so


def test_a_revoked_key_is_told_it_was_revoked_before_its_body_is_read(client, integrator):
    made = client.post("/keys", json={"name": "old", "scopes": ["games", "admin"]}, headers=integrator).get_json()
    assert client.delete(f"/keys/{made['id']}", headers=integrator).status_code == 200
    for r in (
        client.post("/games", json={"players": 3}, headers=bearer(made["key"])),
        client.post("/games", data="{not json", headers={**bearer(made["key"]), "Content-Type": "text/plain"}),
        client.get("/keys", headers=bearer(made["key"])),
    ):
        body = problem(r, 401)
        assert kind(body) == "key-revoked" and "revoked" in body["detail"] and body["key_id"] == made["id"]
        assert challenge(r) == "invalid_token"


# ------------------------------------------------------------------ 6: 415 for JSON without its type


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_a_json_body_without_its_content_type_is_415(client, integrator, content_type):
    g = create(client, integrator)
    seat = bearer(tokens(g)[0])
    move = client.get(f"/games/{g['id']}/legal-moves", headers=seat).get_json()["moves"][0]
    sent = [
        ("/games", {"game": "dalmuti", "players": ["a", "b", "c", "d"]}, integrator),
        (f"/games/{g['id']}/moves", move, seat),
        ("/keys", {"name": "k", "scopes": ["games"]}, integrator),
    ]
    for path, body, headers in sent:
        extra = {"Content-Type": content_type} if content_type else {}
        r = client.post(path, data=json.dumps(body), headers={**headers, **extra})
        detail = problem(r, 415)["detail"]
        assert "application/json" in detail, detail
        assert kind(r.get_json()) == "unsupported-media-type"
        # the same body with its type is taken
        assert client.post(path, json=body, headers=headers).status_code == 201
    # the credential still comes first
    r = client.post("/games", data="{}", headers={**bearer("nk_nope"), "Content-Type": "text/plain"})
    assert problem(r, 401) and challenge(r) == "invalid_token"


# ------------------------------------------------------------------ 7: wrong phase, not your turn

# a move of another phase than the one each game starts in (docs/rules/<game>.md)
OTHER_PHASE = {
    "dalmuti": {"type": "play", "cards": ["12"]},
    "cego": {"type": "discard", "cards": ["T1"]},
    "muerte": {"type": "give_back", "card": "O2"},
    "onion": {"type": "stand"},
}
PLAYERS = {"dalmuti": 4, "cego": 4, "muerte": 6, "onion": 4}


@pytest.mark.parametrize("game", sorted(OTHER_PHASE))
def test_a_seat_to_act_posting_a_move_of_another_phase_is_told_wrong_phase(client, integrator, game):
    g = create(client, integrator, game=game, players=[f"p{i}" for i in range(PLAYERS[game])])
    toks = tokens(g)
    view = client.get(f"/games/{g['id']}").get_json()
    acting = view["to_act"][0]
    legal = client.get(f"/games/{g['id']}/legal-moves", headers=bearer(toks[acting])).get_json()["moves"]
    move = OTHER_PHASE[game]
    assert move["type"] not in {m["type"] for m in legal}
    body = problem(client.post(f"/games/{g['id']}/moves", json=move, headers=bearer(toks[acting])), 409)
    assert kind(body) == "wrong-phase", body
    idle = [s for s in toks if s not in view["to_act"]]
    for seat in idle:  # a seat that is not to act is told it is not its turn, whatever it posts
        for posted in (move, legal[0]):
            body = problem(client.post(f"/games/{g['id']}/moves", json=posted, headers=bearer(toks[seat])), 409)
            assert kind(body) == "not-your-turn", body
    assert client.get(f"/games/{g['id']}").get_json()["version"] == view["version"]


# ------------------------------------------------------------------ 7: every problem type is in the contract


def _tournament_rules() -> set[str]:
    tree = ast.parse((ROOT / "domain" / "tournament.py").read_text())
    return {
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) == "TournamentError"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    }


def raised_kinds() -> set[str]:
    """Every problem kind the code under service/ can answer with: the literal kinds of every
    ProblemError and problem_response, and what the few computed ones can be."""
    from service.core.problems import OTHER_STATUS, STATUS_KINDS

    computed = {  # (file, expression) -> the kinds it can be
        ("base.py", "exc.kind"): set(),  # the handler passing on a ProblemError's own kind
        ("base.py", "kind"): set(STATUS_KINDS.values()) | {OTHER_STATUS},
        ("app.py", "problems.for_status(resp.status_code)"): set(STATUS_KINDS.values()) | {OTHER_STATUS},
        ("tournaments.py", "exc.rule"): _tournament_rules(),
    }
    found: set[str] = set()
    unread = []
    for path in sorted((ROOT / "service").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", getattr(node.func, "attr", None)) in ("ProblemError", "problem_response")
            ):
                continue
            arg = (
                node.args[3] if len(node.args) > 3 else next((k.value for k in node.keywords if k.arg == "kind"), None)
            )
            if arg is None:
                unread.append(f"{path.name}:{node.lineno} (no kind)")
            elif isinstance(arg, ast.Constant):
                found.add(arg.value)
            elif (path.name, ast.unparse(arg)) in computed:
                found |= computed[(path.name, ast.unparse(arg))]
            else:
                unread.append(f"{path.name}:{node.lineno} ({ast.unparse(arg)})")
    assert not unread, f"problem kinds this test cannot read: {unread}"
    return found


def test_every_problem_kind_raised_is_listed_with_its_meaning_in_the_contract(app):
    from service.core.problems import PREFIX, PROBLEM_TYPES

    raised = raised_kinds()
    assert {"not-your-turn", "wrong-phase", "illegal-move", "unauthorized", "key-revoked"} <= raised
    assert not raised - set(PROBLEM_TYPES), f"kinds raised but not listed: {sorted(raised - set(PROBLEM_TYPES))}"
    assert not set(PROBLEM_TYPES) - raised - {"error"}, (
        f"kinds listed that nothing raises: {sorted(set(PROBLEM_TYPES) - raised)}"
    )
    spec = app.extensions["naipes_api"].spec.to_dict()
    field = spec["components"]["schemas"]["Problem"]["properties"]["type"]
    assert sorted(field["enum"]) == sorted(PREFIX + k for k in PROBLEM_TYPES)
    listed = field["x-problem-types"]
    assert set(listed) == set(PROBLEM_TYPES) and all(len(m) > 20 for m in listed.values())
    for k in ("not-your-turn", "wrong-phase"):
        assert f"`{k}`" in field["description"]


def test_the_problems_answered_use_the_listed_types(client, integrator):
    from service.core.problems import PREFIX, PROBLEM_TYPES

    g = create(client, integrator)
    for r in (
        client.get("/nowhere"),
        client.delete("/games"),
        client.get(f"/games/{MISSING_GAME}"),
        client.post("/games", json={"game": "chess", "players": ["a"]}, headers=integrator),
        client.post(f"/games/{g['id']}/moves", json={"type": "fly"}, headers=bearer(tokens(g)[0])),
    ):
        body = r.get_json()
        assert body["type"].startswith(PREFIX) and body["type"][len(PREFIX) :] in PROBLEM_TYPES, body


# ------------------------------------------------------------------ 8: creation constraints


def test_an_unknown_option_names_the_games_options(client, integrator):
    for t in client.get("/game-types").get_json():
        players = [f"p{i}" for i in range(t["min_players"] + t["min_players"] % 2)]
        body = problem(
            client.post(
                "/games", json={"game": t["id"], "players": players, "options": {"colour": 1}}, headers=integrator
            ),
            422,
        )
        assert "colour" in body["detail"] and all(name in body["detail"] for name in t["options"]), body


def _option_value(rnd: random.Random, spec: dict):
    types = spec.get("type")
    types = types if isinstance(types, list) else [types]
    if "enum" in spec:
        return rnd.choice(spec["enum"])
    if "null" in types and rnd.random() < 0.7:
        return None
    if "boolean" in types:
        return rnd.random() < 0.5
    if "object" in types:  # the bots: a seat (of the table or not) and a kind, or none
        kinds = spec["additionalProperties"]["enum"]
        return {str(rnd.randint(0, 15)): rnd.choice(kinds)} if rnd.random() < 0.5 else {}
    low, high = spec.get("minimum", 0), spec.get("maximum", 10)
    if "integer" in types:
        return rnd.choice([low, high, rnd.randint(low, min(high, low + 20))])
    return rnd.choice([low, min(high, low + 60)])


def _candidate(rnd: random.Random, t: dict) -> tuple[int, dict]:
    """A creation of type ``t``: a player count near its range and options fitting their own schemas."""
    count = rnd.randint(max(1, t["min_players"] - 2), t["max_players"] + 2)
    options = {name: _option_value(rnd, spec) for name, spec in t["options"].items() if rnd.random() < 0.6}
    options = {k: v for k, v in options.items() if k != "turn_seconds" and k != "bank_seconds"}
    return count, options


def _creation(t: dict, count: int, options: dict) -> dict:
    filled = {name: spec.get("default") for name, spec in t["options"].items()}
    return {"player_count": count, "options": {**filled, **options}}


def _holds(constraint: dict, creation: dict) -> bool:
    return jsonschema.Draft202012Validator(constraint["schema"]).is_valid(creation)


def _named(body: dict, constraint: dict) -> bool:
    return body.get("rule") == constraint["id"] or kind(body) == constraint["id"]


def test_game_types_state_every_creation_constraint_and_the_service_refuses_exactly_those(client, integrator):
    types = client.get("/game-types").get_json()
    rnd = random.Random(8)
    created = 0
    for t in types:
        constraints = t["constraints"]
        ids = [c["id"] for c in constraints]
        assert len(ids) == len(set(ids)) and "player-count" in ids, ids
        for c in constraints:
            jsonschema.Draft202012Validator.check_schema(c["schema"])
            assert c["description"] and set(c["on"]) <= {"player_count", "options"}, c
        module = registry.get(t["id"])
        assert {c["id"] for c in getattr(module, "CONSTRAINTS", ())} <= set(ids)
        # each constraint broken alone is refused, naming it
        for c in constraints:
            for _ in range(5000):
                count, options = _candidate(rnd, t)
                creation = _creation(t, count, options)
                if not _holds(c, creation) and all(_holds(o, creation) for o in constraints if o is not c):
                    break
            else:
                raise AssertionError(f"{t['id']}: no creation breaks only {c['id']}")
            r = client.post(
                "/games",
                json={"game": t["id"], "players": [f"p{i}" for i in range(count)], "options": options},
                headers=integrator,
            )
            body = problem(r, 422)
            assert _named(body, c), (t["id"], c["id"], count, options, body)
        # creations keeping every constraint start
        kept = 0
        while kept < 12:
            count, options = _candidate(rnd, t)
            if not all(_holds(c, _creation(t, count, options)) for c in constraints):
                continue
            r = client.post(
                "/games",
                json={"game": t["id"], "players": [f"p{i}" for i in range(count)], "options": options},
                headers=integrator,
            )
            assert r.status_code == 201, (t["id"], count, options, r.get_json())
            kept += 1
            created += 1
    assert created == 12 * len(types)


def test_the_constraints_in_the_domain_cite_what_start_refuses():
    """Muerte's constraints are the seed's: "El número de jugadores ha de ser par. Con la baraja española
    clásica de 40 cartas, podrán participar de 6 a 12 jugadores." (seed 001, 2.1)."""

    muerte = next(t for t in catalogue.game_types() if t["id"] == "muerte")
    by_id = {c["id"]: c for c in muerte["constraints"]}
    assert not _holds(by_id["odd-player-count"], {"player_count": 7, "options": {"deck": "spanish48"}})
    assert not _holds(by_id["deck-too-small"], {"player_count": 14, "options": {"deck": "spanish40"}})
    assert _holds(by_id["deck-too-small"], {"player_count": 14, "options": {"deck": "spanish48"}})
    dalmuti = next(t for t in catalogue.game_types() if t["id"] == "dalmuti")
    needs = next(c for c in dalmuti["constraints"] if c["on"] == ["options"])
    assert not _holds(needs, _creation(dalmuti, 4, {"scoring": False, "philanthropic_scoring": True}))
    assert _holds(needs, _creation(dalmuti, 4, {"philanthropic_scoring": True}))


def test_the_contract_describes_the_constraints(app):
    spec = app.extensions["naipes_api"].spec.to_dict()
    listed = spec["components"]["schemas"]["GameType"]
    assert "constraints" in listed["required"]
    assert listed["properties"]["constraints"]["items"]["$ref"].endswith("/CreationConstraint")
    constraint = spec["components"]["schemas"]["CreationConstraint"]
    assert set(constraint["required"]) == {"id", "on", "description", "schema"}
    assert "player_count" in constraint["properties"]["schema"]["description"]


def test_an_export_sent_as_json_is_415_naming_its_type_whatever_its_lines(client, integrator):
    """An import takes NDJSON: an export sent as application/json is a 415 naming the type, whether
    its lines would parse as one JSON document or not (a whole export, many lines, was a 400 from the
    JSON parser); sent as NDJSON it is taken."""
    g = create(client, integrator)
    export = client.get(f"/games/{g['id']}/export", headers=integrator).get_data()
    assert export.count(b"\n") > 1
    for body in (export, export.splitlines()[0]):
        r = client.post("/games/import", data=body, headers={**integrator, "Content-Type": "application/json"})
        assert "application/x-ndjson" in problem(r, 415)["detail"]
        assert kind(r.get_json()) == "unsupported-media-type"
    r = client.post("/games/import", data=export, headers={**integrator, "Content-Type": "application/x-ndjson"})
    assert kind(problem(r, 409)) == "game-exists"  # read and checked: this store holds the game already
