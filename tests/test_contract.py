"""openapi.yaml is the contract: it validates, it is what the app serves, and routes match it."""

from __future__ import annotations

import random
import re
from pathlib import Path

import jsonschema
import yaml
from openapi_spec_validator import validate

from service.web.app import spec_yaml

from .conftest import bearer
from .helpers import tokens

ROOT = Path(__file__).resolve().parent.parent
SPEC = yaml.safe_load((ROOT / "openapi.yaml").read_text())


def test_openapi_yaml_validates():
    validate(SPEC)


def test_committed_contract_is_what_the_app_generates(app):
    generated = spec_yaml(app)
    committed = (ROOT / "openapi.yaml").read_text()
    assert generated == committed, "openapi.yaml is stale: regenerate it with `./naipes openapi > openapi.yaml`"


def test_every_route_is_in_the_contract_and_every_path_is_routed(app):
    routed = set()
    for rule in app.url_map.iter_rules():
        if rule.endpoint.rsplit(".", 1)[-1] == "static" or rule.rule.startswith(("/openapi", "/docs")):
            continue
        path = re.sub(r"<(?:[^:>]+:)?([^>]+)>", r"{\1}", rule.rule)
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            routed.add((path, method.lower()))
    documented = {
        (path, method)
        for path, ops in SPEC["paths"].items()
        for method in ops
        if method in {"get", "post", "put", "patch", "delete"}
    }
    assert routed == documented


def _schema(ref_or_schema: dict) -> dict:
    """Resolve $refs and turn OpenAPI 3.0 ``nullable`` into JSON Schema."""
    if "$ref" in ref_or_schema:
        name = ref_or_schema["$ref"].rsplit("/", 1)[1]
        return _schema(SPEC["components"]["schemas"][name])
    out = {}
    for k, v in ref_or_schema.items():
        if k == "nullable":
            continue
        if isinstance(v, dict):
            v = _schema(v) if k != "properties" else {p: _schema(s) for p, s in v.items()}
        elif isinstance(v, list) and k in ("allOf", "oneOf", "anyOf"):
            v = [_schema(x) for x in v]
        out[k] = v
    if ref_or_schema.get("nullable"):
        out = {"anyOf": [out, {"type": "null"}]}
    return out


def conforms(method: str, path_template: str, response) -> None:
    op = SPEC["paths"][path_template][method]
    status = str(response.status_code)
    assert status in op["responses"], f"{method.upper()} {path_template} answered {status}, not in the contract"
    spec = op["responses"][status]
    content = spec.get("content")
    if not content:
        return
    assert response.mimetype in content, (response.mimetype, list(content))
    key = (method, path_template, status, response.mimetype)
    if key not in _VALIDATORS:  # resolved and checked once: the views' schemas are large
        schema = _schema(content[response.mimetype]["schema"])
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        _VALIDATORS[key] = cls(schema)
    error = jsonschema.exceptions.best_match(_VALIDATORS[key].iter_errors(response.get_json()))
    assert error is None, f"{method.upper()} {path_template} {status}: {error.message} at {list(error.absolute_path)}"


_VALIDATORS: dict[tuple[str, str, str, str], object] = {}


def test_responses_of_a_played_game_conform_to_the_contract(client, integrator):
    conforms("get", "/game-types", client.get("/game-types"))
    r = client.post(
        "/games", json={"game": "dalmuti", "players": list("abcde"), "options": {"hands": 1}}, headers=integrator
    )
    conforms("post", "/games", r)
    g = r.get_json()
    gid, toks = g["id"], tokens(g)
    rng = random.Random(11)
    conforms("post", "/games", client.post("/games", json={"game": "x", "players": []}, headers=integrator))
    for step in range(400):
        view = client.get(f"/games/{gid}", headers=bearer(toks[0]))
        conforms("get", "/games/{game_id}", view)
        if view.get_json()["finished"]:
            break
        seat = rng.choice(view.get_json()["to_act"])
        lm = client.get(f"/games/{gid}/legal-moves", headers=bearer(toks[seat]))
        conforms("get", "/games/{game_id}/legal-moves", lm)
        if step % 25 == 0:
            conforms(
                "post",
                "/games/{game_id}/moves",
                client.post(f"/games/{gid}/moves", json={"type": "play", "cards": ["x"]}, headers=bearer(toks[seat])),
            )
        r = client.post(f"/games/{gid}/moves", json=rng.choice(lm.get_json()["moves"]), headers=bearer(toks[seat]))
        conforms("post", "/games/{game_id}/moves", r)
    conforms("get", "/games/{game_id}/events", client.get(f"/games/{gid}/events?after=3", headers=bearer(toks[1])))
    conforms("get", "/games/{game_id}/replay", client.get(f"/games/{gid}/replay?version=4"))
    conforms("get", "/games/{game_id}/audit", client.get(f"/games/{gid}/audit", headers=integrator))
    conforms("get", "/games", client.get("/games?game=dalmuti", headers=integrator))
    conforms("get", "/games/{game_id}", client.get("/games/nope"))
    conforms("get", "/health", client.get("/health"))


def test_moves_are_typed_per_game(client):
    """POST /moves and legal-moves speak of Move: any game's union (DalmutiMove ...) of its move types,
    one component per type (DalmutiPlay ...), as GET /game-types/{game} lists them."""
    schemas = SPEC["components"]["schemas"]
    body = SPEC["paths"]["/games/{game_id}/moves"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert body == {"$ref": "#/components/schemas/Move"}
    legal = schemas["LegalMoves"]["properties"]["moves"]["items"]
    assert legal == {"$ref": "#/components/schemas/Move"}
    unions = [ref["$ref"].rsplit("/", 1)[1] for ref in schemas["Move"]["anyOf"]]
    games = [t["id"] for t in client.get("/game-types").get_json()]
    assert sorted(unions) == sorted(g.capitalize() + "Move" for g in games)
    for game in games:
        union = schemas[game.capitalize() + "Move"]
        kinds = [m["type"] for m in client.get(f"/game-types/{game}").get_json()["moves"]]
        assert union["discriminator"]["propertyName"] == "type"
        assert list(union["discriminator"]["mapping"]) == kinds
        assert [r["$ref"] for r in union["oneOf"]] == list(union["discriminator"]["mapping"].values())
        for kind, ref in union["discriminator"]["mapping"].items():
            component = schemas[ref.rsplit("/", 1)[1]]
            assert component["properties"]["type"]["enum"] == [kind] and "type" in component["required"]
    move = _schema(body)
    jsonschema.validate({"type": "pass"}, move)
    jsonschema.validate({"type": "pass", "label": "pass"}, move)
    for wrong in ({"type": "pass", "seat": 1}, {"type": "teleport"}, {"type": "play", "cards": ["??"]}, {}):
        assert not jsonschema.Draft4Validator(move).is_valid(wrong), wrong


def sent(path: str, method: str, status: str, response) -> bool:
    """Whether the response carries every header its contract documents (the rate limit's aside: this
    client counts none); the documented set is never empty here."""
    documented = set(SPEC["paths"][path][method]["responses"][status]["headers"]) - {"RateLimit", "RateLimit-Policy"}
    missing = documented - set(response.headers.keys())
    assert documented and not missing, (path, method, status, missing)
    return True


def test_an_export_is_read_from_the_contract_and_documented_headers_are_sent(client, integrator):
    """The export's lines are what the contract names (an ExportHeader, then Events, whole), and the
    headers the contract documents beside a body are sent with it."""
    r = client.post(
        "/games", json={"game": "dalmuti", "players": list("abcde"), "options": {"hands": 1}}, headers=integrator
    )
    created = r.get_json()
    gid = created["id"]
    assert sent("/games", "post", "201", r) and r.headers["Location"] == f"/games/{gid}"
    seat = bearer(tokens(created)[0])
    lm = client.get(f"/games/{gid}/legal-moves", headers=seat)
    assert sent("/games/{game_id}/legal-moves", "get", "200", lm)
    if lm.get_json()["moves"]:
        moved = client.post(f"/games/{gid}/moves", json=lm.get_json()["moves"][0], headers=seat)
        assert moved.status_code == 201
        assert sent("/games/{game_id}/moves", "post", "201", moved)
        assert moved.headers["ETag"] == f'"{moved.get_json()["version"]}"'
    export = client.get(f"/games/{gid}/export", headers=integrator)
    assert sent("/games/{game_id}/export", "get", "200", export)
    lines = [yaml.safe_load(line) for line in export.get_data().splitlines()]
    header = jsonschema.Draft4Validator(_schema({"$ref": "#/components/schemas/ExportHeader"}))
    event = jsonschema.Draft4Validator(_schema({"$ref": "#/components/schemas/Event"}))
    header.validate(lines[0])
    assert lines[0]["version"] == len(lines) - 1 and lines[0]["game_id"] == gid
    for line in lines[1:]:
        event.validate(line)
    assert [line["version"] for line in lines[1:]] == list(range(1, len(lines)))
    assert not header.is_valid({**lines[0], "version": "three"})


def test_a_query_parameter_given_twice_is_a_422_naming_it_on_every_route(client, integrator):
    """One rule for every route the contract gives query parameters: a parameter that takes one value,
    sent twice, is refused naming it (before, most routes read the first value silently and some
    refused it), whatever the values and before any other check of them."""
    from .helpers import create

    game = create(client, integrator, game="cego", players=["ana", "bo", "cy"])
    ids = {"game_id": game["id"], "tournament_id": "t-" + "0" * 16, "webhook_id": "w-" + "0" * 16}
    checked = 0
    for path, operations in SPEC["paths"].items():
        for method, operation in operations.items():
            if method != "get":
                continue
            for param in operation.get("parameters", []):
                if param["in"] != "query" or param["schema"].get("type") == "array":
                    continue
                url = path.format(**{k: v for k, v in ids.items() if "{" + k + "}" in path})
                name = param["name"]
                r = client.get(f"{url}?{name}=1&{name}=2", headers=integrator)
                assert r.status_code == 422, (url, name, r.status_code, r.get_json())
                body = r.get_json()
                assert r.content_type == "application/problem+json"
                assert body["errors"]["query"] == {name: ["given more than once: give one value"]}, (url, body)
                assert name in body["detail"]
                checked += 1
    assert checked >= 20
