"""The contract is consumable: a Python client generated from openapi.yaml plays every game type.

openapi-python-client generates the client into the test's temporary folder;
the client then plays a complete game of each type against a real HTTP
server over the tests' Redis, choosing every move among legal-moves.  If the
spec drifts from what the server does, the generated models fail to parse
the answers or the server refuses the requests.
"""

from __future__ import annotations

import importlib
import inspect
import random
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml

from .conftest import API_KEY, ROOT
from .live import live_server  # noqa: F401 - fixture

SPEC_PATH = ROOT / "openapi.yaml"
GAMES = {  # game type -> players, options (short games)
    "dalmuti": (["ana", "bea", "carl", "dani"], {"hands": 1}),
    "cego": (["ana", "bea", "carl"], {"rounds": 1}),
    "muerte": (["ana", "bea", "carl", "dani", "eva", "flor"], {}),
    "onion": (["ana", "bea", "carl"], {"rounds": 2}),
}


@pytest.fixture(scope="module")
def naipes_client(tmp_path_factory):
    """The client package generated from the committed contract, imported."""
    out = tmp_path_factory.mktemp("client")
    config = out / "config.yaml"
    config.write_text("post_hooks: []\nproject_name_override: naipes_client\npackage_name_override: naipes_client\n")
    generator = Path(sys.executable).with_name("openapi-python-client")
    proc = subprocess.run(
        [
            str(generator),
            "generate",
            "--path",
            str(SPEC_PATH),
            "--config",
            str(config),
            "--meta",
            "none",
            "--output-path",
            str(out / "naipes_client"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    sys.path.insert(0, str(out))
    try:
        for name in [m for m in sys.modules if m == "naipes_client" or m.startswith("naipes_client.")]:
            del sys.modules[name]
        yield importlib.import_module("naipes_client")
    finally:
        sys.path.remove(str(out))


def _api(name: str):
    return importlib.import_module(f"naipes_client.api.naipes.{name}")


def _models():
    return importlib.import_module("naipes_client.models")


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def test_generated_moves_are_typed_per_game(naipes_client, app):
    """A class per game's move type (DalmutiPlay, CegoCall ...), each parsing the moves of its type
    only; the body of post_move takes them and nothing untyped."""
    models = _models()
    assert not hasattr(models, "Move"), "the body of a move is typed per game, not 'a type and anything else'"
    client = app.test_client()
    for game in GAMES:
        described = client.get(f"/game-types/{game}").get_json()
        kinds = [m["type"] for m in described["moves"]]
        assert kinds
        for kind in kinds:
            cls = getattr(models, _camel(game) + _camel(kind))
            assert cls.from_dict({"type": kind, **_minimal(described, kind)}).type_.value == kind
            with pytest.raises(ValueError):
                cls.from_dict({"type": "no-such-move", **_minimal(described, kind)})
    body = inspect.signature(_api("post_move").sync).parameters["body"].annotation
    assert "DalmutiPlay" in str(body) and "OnionDeclare" in str(body) and "dict" not in str(body)


def _minimal(described: dict, kind: str) -> dict:
    """A value for each required field of a move type, of the type its schema says."""
    schema = next(m["schema"] for m in described["moves"] if m["type"] == kind)
    sample = {"string": "x", "integer": 0, "array": [], "object": {}, "boolean": False}
    out = {}
    for name in schema.get("required", []):
        prop = schema["properties"][name]
        if name != "type":
            out[name] = prop["enum"][0] if "enum" in prop else sample[prop.get("type", "string")]
    return out


def play_with_client(nc, base: str, game: str, players: list[str], options: dict, rng: random.Random) -> dict:
    models = _models()
    integrator = nc.AuthenticatedClient(base_url=base, token=API_KEY)
    spectator = nc.Client(base_url=base)

    types = _api("list_game_types").sync(client=spectator)
    assert game in [t.id for t in types]

    body = models.CreateGame(game=game, players=players, options=models.CreateGameOptions.from_dict(options))
    created = _api("create_game").sync(client=integrator, body=body)
    assert isinstance(created, models.CreatedGame), created
    seats = {s.seat: nc.AuthenticatedClient(base_url=base, token=s.token) for s in created.seats}
    gid = created.id

    moves_made = 0
    for _ in range(20000):
        view = _api("get_game").sync(gid, client=spectator)
        assert isinstance(view, models.GameView), view
        if view.finished:
            break
        seat = rng.choice(view.to_act)
        legal = _api("get_legal_moves").sync(gid, client=seats[seat])
        assert isinstance(legal, models.LegalMoves), legal
        assert legal.moves, f"seat {seat} must act but has no legal move"
        chosen = rng.choice(legal.moves)
        assert type(chosen).__name__.endswith(_camel(chosen.type_.value)), chosen  # a typed move, by its type
        result = _api("post_move").sync(gid, client=seats[seat], body=chosen, if_match=f'"{view.version}"')
        assert isinstance(result, models.MoveResult), (chosen, result)
        assert result.version > view.version
        moves_made += 1
    else:
        raise AssertionError(f"{game} did not finish")

    final = _api("get_game").sync(gid, client=seats[0])
    assert final.finished and final.viewer.kind.value == "seat" and final.viewer.seat == 0
    result = final.result.to_dict()
    assert len(result["scores"]) == len(players) and result["winners"]

    events = _api("get_events").sync(gid, client=spectator, after=0, limit=5000)
    assert [e.version for e in events.events] == list(range(1, final.version + 1))
    replay = _api("get_replay").sync(gid, client=spectator, version=final.version)
    assert isinstance(replay, models.GameView) and replay.version == final.version and replay.finished
    audit = _api("get_audit").sync(gid, client=integrator)
    assert audit.chain.ok and audit.version == final.version

    # errors parse as the contract's problem documents
    refused = _api("post_move").sync(gid, client=seats[0], body=models.DalmutiPass.from_dict({"type": "pass"}))
    assert isinstance(refused, models.Problem) and refused.status == 409
    missing = _api("get_game").sync("no-such-game", client=spectator)
    assert isinstance(missing, models.Problem) and missing.status == 404
    return {"game": game, "moves": moves_made, "version": final.version}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_generated_client_plays_a_complete_game(naipes_client, live_server, game):
    players, options = GAMES[game]
    played = play_with_client(naipes_client, live_server.url, game, players, options, random.Random(game))
    assert played["moves"] > 0


def test_generated_client_reads_health_and_lists_games(naipes_client, live_server):
    health = _api("get_health").sync(client=naipes_client.Client(base_url=live_server.url))
    assert health.redis is True and isinstance(health.workers, int)
    listed = _api("list_games").sync(client=naipes_client.AuthenticatedClient(base_url=live_server.url, token=API_KEY))
    assert listed.total >= 0


SPEC = yaml.safe_load(SPEC_PATH.read_text())


def _resolve(schema: dict) -> dict:
    if "$ref" in schema:
        return _resolve(SPEC["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]])
    out = {}
    for k, v in schema.items():
        if k == "nullable":
            continue
        if k == "properties":
            v = {p: _resolve(s) for p, s in v.items()}
        elif isinstance(v, dict):
            v = _resolve(v)
        elif isinstance(v, list) and k in ("allOf", "oneOf", "anyOf"):
            v = [_resolve(x) for x in v]
        out[k] = v
    if schema.get("nullable"):
        out = {"anyOf": [out, {"type": "null"}]}
    return out


def test_every_operation_has_an_example_request_that_fits_its_schema():
    ops = [
        (path, method, op)
        for path, item in SPEC["paths"].items()
        for method, op in item.items()
        if method in ("get", "post", "put", "patch", "delete")
    ]
    assert ops
    for path, method, op in ops:
        samples = op.get("x-codeSamples") or []
        assert samples and samples[0]["source"].startswith("curl"), f"{method.upper()} {path} has no example request"
        content = (op.get("requestBody") or {}).get("content") or {}
        for media, spec in content.items():
            assert "example" in spec, f"{method.upper()} {path}: no example body ({media})"
            if media == "application/json":
                jsonschema.validate(spec["example"], _resolve(spec["schema"]))
                assert "-d " in samples[0]["source"]
        for param in op.get("parameters", []):
            if param.get("required"):
                assert "example" in param, f"{method.upper()} {path}: parameter {param['name']} has no example"
