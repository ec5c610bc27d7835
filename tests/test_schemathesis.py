"""Schemathesis against the live app and the committed openapi.yaml.

Every operation, in both generation modes (data that fits the contract and
data that breaks it), with valid credentials: an integrator key, or the
token of a seat that must act in a live game.  Checks: no 5xx, every status,
header, content type and body as the contract says, and every error
``application/problem+json`` with a ``detail``.
"""

from __future__ import annotations

import json
import random

import pytest
import schemathesis
import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.core.parameters import ParameterLocation
from schemathesis.generation.modes import GenerationMode
from schemathesis.specs.openapi.checks import positive_data_acceptance

from .conftest import API_KEY, ROOT

PROBLEM = "application/problem+json"
EXAMPLES = 10
CONTRACT = ROOT / "openapi.yaml"

GAMES = {
    "dalmuti": (["ana", "bea", "carl", "dani"], {"hands": 1, "allow_joining": True}),
    "cego": (["ana", "bea", "carl", "dani"], {}),
    "muerte": (["ana", "bea", "carl", "dani", "eva", "flor"], {}),
    "onion": (["ana", "bea", "carl", "dani"], {}),
}


def problem_json(ctx, response, case):
    """Every error is application/problem+json with type, title, status and a detail."""
    if response.status_code < 400:
        return None
    ctype = response.headers.get("Content-Type") or response.headers.get("content-type") or [""]
    ctype = ctype[0] if isinstance(ctype, list) else ctype
    assert ctype.split(";")[0].strip() == PROBLEM, f"error {response.status_code} served as {ctype!r}"
    body = response.json()
    for member in ("type", "title", "status", "detail"):
        assert member in body, f"problem without '{member}': {body}"
    assert body["status"] == response.status_code, body
    assert isinstance(body["detail"], str) and body["detail"], body
    return True


@schemathesis.serializer("application/x-ndjson")
def _ndjson(ctx, value) -> bytes:
    """One JSON value a line (game import): a list is its lines, anything else one line."""
    rows = value if isinstance(value, list) else [value]
    return b"".join(json.dumps(row).encode() + b"\n" for row in rows)


def load_contract(app):
    """The committed contract (test_contract.py holds it equal to what the app serves), sent to the live app."""
    loaded = schemathesis.openapi.from_path(CONTRACT)
    loaded.app = app
    return loaded


def operations() -> list:
    """(operation, mode) for every operation; negative data only where there is an input to break."""
    spec = yaml.safe_load(CONTRACT.read_text())
    out = []
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            label = f"{method.upper()} {path}"
            out.append(pytest.param(label, GenerationMode.POSITIVE, id=f"{label} positive"))
            inputs = (
                op.get("parameters")
                or op.get("requestBody")
                or "{" in path
                or any(req for req in op.get("security", [{}]))
            )
            if inputs:
                out.append(pytest.param(label, GenerationMode.NEGATIVE, id=f"{label} negative"))
    return out


@pytest.fixture()
def live_games(service):
    return make_games(service)


def make_games(service):
    """One running game of each type; the seat tokens of each."""
    out = []
    for game, (players, options) in GAMES.items():
        created = service.games.create_game(game, players, options)
        out.append({"id": created["id"], "tokens": {s["seat"]: s["token"] for s in created["seats"]}})
    # a finished game: its event stream ends after its last event
    done = service.games.create_game("dalmuti", ["ana", "bea", "carl", "dani"], {"hands": 1})
    rng = random.Random(5)
    while True:
        acting = service.reads.state_view(done["id"], service.identity.viewer(None, None))["to_act"]
        if not acting:
            break
        token = done["seats"][acting[0]]["token"]
        service.moves.move(
            done["id"],
            acting[0],
            rng.choice(service.reads.legal_moves(done["id"], service.identity.viewer(done["id"], token))["moves"]),
        )
    out.append({"id": done["id"], "tokens": {s["seat"]: s["token"] for s in done["seats"]}, "finished": True})
    return out


def _security(case) -> list[str]:
    names = []
    for requirement in case.operation.definition.raw.get("security", [{}]):
        names.extend(requirement.keys() or ["none"])
    return names


def _prepare(case, service, games, rng: random.Random, positive: bool) -> dict:
    """A live game in the path; returns the headers with a credential the operation accepts."""
    streams = case.operation.path.endswith("/stream")
    game = (
        next(g for g in games if g.get("finished"))
        if streams
        else rng.choice([g for g in games if not g.get("finished")])
    )
    broken_path = not positive and case.meta is not None and case.meta.is_negative_at(ParameterLocation.PATH)
    if "game_id" in (case.path_parameters or {}) and rng.random() < 0.9 and not broken_path:
        case.path_parameters["game_id"] = game["id"]
    gid = (case.path_parameters or {}).get("game_id", game["id"])
    security = _security(case)
    headers = dict(case.headers or {})
    seat_token = None
    live = next((g for g in games if g["id"] == gid), None)
    if live is not None:
        acting = service.reads.state_view(gid, service.identity.viewer(None, None))["to_act"]
        seat = acting[0] if acting else 0
        seat_token = live["tokens"][seat]
    if security == ["seatToken"]:
        credential = seat_token or rng.choice(list(game["tokens"].values()))
    elif security == ["integratorKey"]:
        credential = API_KEY
    elif "integratorKey" in security:  # seat, integrator or nobody
        credential = rng.choice([seat_token, API_KEY, None])
    else:
        credential = None
    if (
        not positive
        and case.meta is not None
        and case.meta.is_negative_at(ParameterLocation.HEADER)
        and "Authorization" in headers
    ):
        return {}  # a generated, malformed credential goes as it is: it must be refused
    if credential:
        headers["Authorization"] = f"Bearer {credential}"
    else:
        headers.pop("Authorization", None)
    case.headers = headers
    query = case.query or {}
    wait = query.get("wait")
    if isinstance(wait, (int, float)) and not isinstance(wait, bool) and 0 < wait <= 30:
        query["wait"] = min(wait, 0.05)  # a long-poll of up to 30 s would only eat the time budget
    # a positive move request posts, half of the time, a move the seat may make
    if (
        case.operation.definition.raw.get("operationId") == "postMove"
        and live is not None
        and positive
        and rng.random() < 0.5
    ):
        moves = service.reads.legal_moves(gid, service.identity.viewer(gid, seat_token))["moves"]
        if moves:
            case.body = rng.choice(moves)
    return {"Authorization": f"Bearer {credential}"} if credential else {}


@pytest.mark.parametrize(("label", "mode"), operations())
def test_every_operation_keeps_its_contract(label, mode, app, service, live_games):
    operation = load_contract(app).find_operation_by_label(label)
    assert operation is not None, label
    seen = []

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    def run(case):
        rng = random.Random(repr((label, case.path_parameters, case.query, case.body)))
        auth = _prepare(case, service, live_games, rng, mode is GenerationMode.POSITIVE)
        response = case.call_and_validate(
            headers=auth, additional_checks=[problem_json], excluded_checks=[positive_data_acceptance]
        )
        seen.append(response.status_code)

    try:
        run()
    except Unsatisfiable:
        if mode is GenerationMode.POSITIVE:
            raise
        pytest.skip(f"no input of {label} can be made to break its schema")
    assert seen, f"no case was generated for {label}"
