"""Example requests for every operation of the contract.

An apispec plugin: when an operation is added to the spec it gets a request
example (``example`` on its parameters and its JSON body) and a ``curl``
sample under ``x-codeSamples``.  Bodies are the ones written below by
operation id; an operation without one gets a body assembled from the
``example`` of each property of its schema.
"""

from __future__ import annotations

import json
import shlex

from apispec import BasePlugin

from service.core import catalogue
from service.core.errors import ProblemError

GAME = "3f9a1c07d2b84e6a"


def example_move(game: str = "dalmuti", kind: str = "play", code: str = "12", count: int = 2) -> dict:
    """A move playing ``count`` copies of the card ``code``, its cards written as the game's move
    schema (GET /game-types/{game}) wants them: the card's code, or the id its deck gives it."""
    card = next(c for c in catalogue.describe_game(game)["deck"] if c["code"] == code)
    for value in (card["code"], card["id"]):
        move = {"type": kind, "cards": [value] * count}
        try:
            catalogue.check_move(game, move)
        except ProblemError:
            continue
        return move
    return {"type": kind, "cards": [card["code"]] * count}


def legal_moves_example() -> list[dict]:
    """The ``moves`` of a legal-moves answer, as an example."""
    return [{**example_move(), "label": "play two 12s"}, {"type": "pass", "label": "pass"}]


# operationId -> the JSON body of an example request
BODIES: dict[str, object] = {
    "createGame": {"game": "dalmuti", "players": ["ana", "bea", "carl", "dani"], "options": {"hands": 1}},
    "joinGame": {"player": "flor"},
    "postMove": example_move(),
    "freezeGame": {"reason": "seat 2 reports a disconnect during the auction"},
    "addNote": {"version": 12, "text": "checked the deal commitment of version 3: it matches"},
    "adjudicate": {"action": "award", "reason": "collusion established between seats 1 and 3", "scores": [3, 0, 2, 1]},
    "createKey": {"name": "club-ladder", "scopes": ["games", "tournaments"]},
    "createTournament": {
        "name": "spring ladder",
        "game": "dalmuti",
        "options": {"hands": 1},
        "players": ["ana", "bea", "carl", "dani", "eva", "flor", "gus", "hana"],
        "format": "swiss",
        "rounds": 3,
        "table_size": {"min": 4, "max": 4},
    },
    "withdrawPlayer": {"player": "gus"},
    "createWebhook": {"url": "https://example.org/naipes-hook", "events": ["game.finished"]},
}

# parameter name -> example value (path, query and header parameters)
PARAMETERS: dict[str, object] = {
    "game_id": GAME,
    "tournament_id": "t_5d1e90aa",
    "number": 1,
    "key_id": "k_7b2c",
    "webhook_id": "wh_41f0",
    "after": 0,
    "wait": 10,
    "limit": 100,
    "offset": 0,
    "version": 5,
    "as": "spectator",
    "status": "active",
    "game": "dalmuti",
    "token": "st_...",
    "If-None-Match": '"42"',
    "If-Match": '"42"',
    "Idempotency-Key": "move-7f3e2a",
    "Last-Event-ID": "42",
}

NDJSON = '{"format":"naipes-game-log/1","game_id":"' + GAME + '", ...}\n{"version":1,"type":"GameCreated", ...}\n'


class ExamplesPlugin(BasePlugin):
    spec = None

    def init_spec(self, spec):
        super().init_spec(spec)
        self.spec = spec

    def operation_helper(self, path=None, operations=None, **kwargs):
        for method, op in (operations or {}).items():
            if not isinstance(op, dict) or method not in ("get", "post", "put", "patch", "delete"):
                continue
            add_examples(path, method, op, self.spec)


def add_examples(path: str, method: str, op: dict, spec=None) -> None:
    query = {}
    headers = {}
    for param in op.get("parameters", []):
        if not isinstance(param, dict) or "name" not in param:
            continue
        name = param["name"]
        if name in PARAMETERS and "example" not in param:
            param["example"] = PARAMETERS[name]
        if param.get("in") == "query" and (param.get("required") or name in ("after", "wait", "version")):
            query[name] = param.get("example", PARAMETERS.get(name))
        if param.get("in") == "header" and name in ("If-Match", "Idempotency-Key", "Last-Event-ID"):
            headers[name] = param.get("example")
    body = None
    content = (op.get("requestBody") or {}).get("content") or {}
    if "application/json" in content:
        media = content["application/json"]
        body = BODIES.get(op.get("operationId"))
        if body is None:
            body = _from_schema(media.get("schema"), spec)
        if body is not None:
            media.setdefault("example", body)
    elif "application/x-ndjson" in content:
        content["application/x-ndjson"].setdefault("example", NDJSON)
    op.setdefault(
        "x-codeSamples",
        [{"lang": "curl", "label": "curl", "source": curl(path, method, op, query, headers, body, content)}],
    )


def _from_schema(schema, spec) -> dict | None:
    """A body from the ``example`` of each property (None when a required one has none)."""
    if not schema:
        return None
    if isinstance(schema, dict) and "$ref" in schema and spec is not None:
        name = schema["$ref"].rsplit("/", 1)[1]
        schema = spec.components.schemas.get(name)
    elif not isinstance(schema, dict) and spec is not None:  # a marshmallow schema not yet resolved
        from apispec.ext.marshmallow import resolver

        name = resolver(schema)
        schema = spec.components.schemas.get(name)
    if not isinstance(schema, dict):
        return None
    props = schema.get("properties") or {}
    out = {k: p["example"] for k, p in props.items() if isinstance(p, dict) and "example" in p}
    if any(r not in out for r in schema.get("required", [])):
        return None
    return out


def curl(path: str, method: str, op: dict, query: dict, headers: dict, body, content: dict) -> str:
    url_path = path.replace("{game_id}", "$GAME")
    for name, value in PARAMETERS.items():
        url_path = url_path.replace("{" + name + "}", str(value))
    if query:
        url_path += "?" + "&".join(f"{k}={v}" for k, v in query.items())
    parts = ["curl -sN" if "text/event-stream" in str(op.get("responses", {}).get("200", "")) else "curl -s"]
    if method != "get":
        parts.append(f"-X {method.upper()}")
    parts.append(f'"$API{url_path}"')
    security = op.get("security") or []
    names = {name for req in security for name in req}
    if "seatToken" in names and "integratorKey" not in names:
        parts.append('-H "Authorization: Bearer $SEAT_TOKEN"')
    elif "integratorKey" in names:
        parts.append('-H "Authorization: Bearer $KEY"')
    for name, value in headers.items():
        parts.append("-H " + shlex.quote(f"{name}: {value}"))
    if body is not None:
        parts.append("-H 'Content-Type: application/json'")
        parts.append("-d " + shlex.quote(json.dumps(body)))
    elif "application/x-ndjson" in content:
        parts.append("-H 'Content-Type: application/x-ndjson' --data-binary @game.jsonl")
    return " ".join(parts)


# open seats, invitations and the lobby (service/web/seats.py)
BODIES["claimSeat"] = {"player": "eli"}
PARAMETERS["seat"] = 1
BODIES["seatBot"] = {"bot": "heuristic"}
