"""A move checked against its game's schema (``catalogue.check_move``), and the contract's move
components saying what those schemas say.

The schemas are read at run time from GET /game-types/{game} (each game's ``notation.MOVES``);
a bad card is a value no card schema takes (neither an integer id nor a code: ``"??"``).
"""

from __future__ import annotations

import random

import jsonschema
import pytest

from service.core import catalogue
from service.core.catalogue import MOVE_LABEL as LABEL
from service.core.errors import ProblemError
from service.core.identity import Viewer
from service.web.schemas import move_component_name, move_components, openapi_schema

GAMES = {
    "dalmuti": (["ana", "bea", "carl", "dani"], {"hands": 1}),
    "cego": (["ana", "bea", "carl"], {"rounds": 1}),
    "muerte": (["ana", "bea", "carl", "dani", "eva", "flor"], {}),
    "onion": (["ana", "bea", "carl"], {"rounds": 1}),
}
NOT_A_CARD = "??"


def refused(game: str, move: dict) -> ProblemError:
    with pytest.raises(ProblemError) as caught:
        catalogue.check_move(game, move)
    problem = caught.value
    assert problem.status == 422 and problem.kind == "malformed-move", (problem.status, problem.kind)
    return problem


def a_card(game: str):
    """A card as the ``card`` of the game's moves takes it (its code, or the id its deck gives it)."""
    schema = next(
        spec["schema"]["properties"]["card"]
        for spec in catalogue.move_types(game).values()
        if "card" in spec["schema"]["properties"]
    )
    return _fitting(game, schema)


def a_card_in_list(game: str, kind: str):
    """A card as the ``cards`` of a move type of the game take it."""
    return _fitting(game, catalogue.move_types(game)[kind]["schema"]["properties"]["cards"]["items"])


def _fitting(game: str, schema: dict):
    check = jsonschema.Draft202012Validator(schema)
    for card in catalogue.describe_game(game)["deck"]:
        for value in (card["code"], card["id"]):
            if check.is_valid(value):
                return value
    raise AssertionError(f"no card of {game} fits {schema}")


def legal_moves_of_played_games(service, game: str, steps: int = 300) -> list[dict]:
    players, options = GAMES[game]
    created = service.games.create_game(game, players, options)
    gid, rng, seen = created["id"], random.Random(game), []
    for _ in range(steps):
        view = service.reads.state_view(gid, Viewer("spectator"))
        if view["finished"]:
            break
        seat = rng.choice(view["to_act"])
        moves = service.reads.legal_moves(gid, Viewer("seat", seat=seat))["moves"]
        seen.extend(moves)
        service.moves.move(gid, seat, rng.choice(moves))
    return seen


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_legal_move_of_a_played_game_fits_its_schema(service, game):
    moves = legal_moves_of_played_games(service, game)
    assert len({m["type"] for m in moves}) > 1
    for move in moves:
        catalogue.check_move(game, {k: v for k, v in move.items() if k != "label"})
    # and the contract's component of its type takes it as legal-moves gives it (label included), and so
    # does the schema GET /game-types/{game} gives for its type
    components = move_components()
    served = {m["type"]: m["schema"] for m in catalogue.describe_game(game)["moves"]}
    for move in moves:
        jsonschema.validate(move, components[move_component_name(game, move["type"])])
        jsonschema.Draft202012Validator(served[move["type"]]).validate(move)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_an_unknown_move_type_names_the_games_move_types(game):
    problem = refused(game, {"type": "teleport"})
    assert problem.extra["rule"] == "unknown-move"
    assert problem.detail.startswith("/type: ")
    for kind in catalogue.move_types(game):
        assert kind in problem.detail
    missing = refused(game, {})
    assert missing.extra["rule"] == "missing-field" and missing.detail.startswith("/type: ")
    assert refused(game, {"type": ["play"]}).extra["rule"] == "unknown-move"


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_member_the_type_does_not_have_is_named(game):
    move = {"dalmuti": {"type": "pass"}, "cego": {"type": "call", "call": "pass"}}.get(game, {"type": "fold"})
    move = {"type": "denounce"} if game == "muerte" else move
    catalogue.check_move(game, move)
    problem = refused(game, {**move, "seat": 2})
    assert problem.detail.startswith("/seat: ") and problem.extra["rule"] == "unknown-field"


def test_dalmuti_moves():
    good = a_card_in_list("dalmuti", "play")
    catalogue.check_move("dalmuti", {"type": "play", "cards": [good, good]})
    problem = refused("dalmuti", {"type": "play", "cards": [good, NOT_A_CARD]})
    assert problem.detail.startswith("/cards/1: ") and problem.extra["rule"] == "invalid-field"
    assert refused("dalmuti", {"type": "play"}).detail.startswith("/cards: ")
    assert refused("dalmuti", {"type": "play", "cards": []}).detail.startswith("/cards: ")
    assert refused("dalmuti", {"type": "give_taxes", "cards": [good] * 3}).detail.startswith("/cards: ")
    assert refused("dalmuti", {"type": "merchant_exchange", "with": -1}).detail.startswith("/with: ")
    problem = refused("dalmuti", {"type": "place_newcomer", "newcomer": 4})
    assert problem.detail.startswith("/slot: ") and problem.extra["rule"] == "missing-field"
    catalogue.check_move("dalmuti", {"type": "place_newcomer", "newcomer": 4, "slot": 0})


def test_cego_moves():
    card = a_card("cego")
    catalogue.check_move("cego", {"type": "play", "card": card})
    catalogue.check_move("cego", {"type": "call", "call": "solo"})
    assert refused("cego", {"type": "play", "card": NOT_A_CARD}).detail.startswith("/card: ")
    assert refused("cego", {"type": "call", "call": "double"}).detail.startswith("/call: ")
    problem = refused("cego", {"type": "keep", "cards": [card, card]})  # the same card twice
    assert problem.detail.startswith("/cards: ")
    assert refused("cego", {"type": "discard", "cards": [card, NOT_A_CARD]}).detail.startswith("/cards")


def test_muerte_moves():
    card = a_card("muerte")
    catalogue.check_move("muerte", {"type": "exchange", "with": 1, "card": card})
    assert refused("muerte", {"type": "exchange", "with": 1, "card": NOT_A_CARD}).detail.startswith("/card: ")
    assert refused("muerte", {"type": "exchange", "with": 99, "card": card}).detail.startswith("/with: ")
    assert refused("muerte", {"type": "accuse", "target": "bea"}).detail.startswith("/target: ")
    assert refused("muerte", {"type": "assign_identity"}).detail.startswith("/to: ")
    catalogue.check_move("muerte", {"type": "denounce"})


def test_onion_moves_and_the_fields_a_modifier_rules_out():
    card = a_card_in_list("onion", "discard")
    catalogue.check_move("onion", {"type": "discard", "cards": []})
    assert refused("onion", {"type": "discard", "cards": [card, NOT_A_CARD]}).detail.startswith("/cards/1: ")
    assert refused("onion", {"type": "bet", "amount": -1}).detail.startswith("/amount: ")
    assert refused("onion", {"type": "buy", "count": 6}).detail.startswith("/count: ")
    assert refused("onion", {"type": "declare", "modifier": "joker"}).detail.startswith("/modifier: ")
    catalogue.check_move("onion", {"type": "declare", "modifier": "lady"})
    catalogue.check_move("onion", {"type": "declare", "modifier": "atuin", "from": card, "to": card})
    problem = refused("onion", {"type": "declare", "modifier": "atuin", "from": card})
    assert problem.detail.startswith("/to: ") and problem.extra["rule"] == "missing-field"
    problem = refused("onion", {"type": "declare", "modifier": "lady", "from": card})
    assert problem.detail.startswith("/from: ") and problem.extra["rule"] == "unknown-field"


def test_the_validators_are_compiled_once_per_game():
    catalogue.move_validators.cache_clear()
    for game in GAMES:
        with pytest.raises(ProblemError):
            catalogue.check_move(game, {"type": "teleport"})
        with pytest.raises(ProblemError):
            catalogue.check_move(game, {"type": "teleport"})
    info = catalogue.move_validators.cache_info()
    assert info.misses == len(GAMES) and info.hits == len(GAMES)
    assert set(catalogue.move_validators("onion")) == set(catalogue.move_types("onion"))


def test_an_unknown_game_type_is_not_found():
    with pytest.raises(ProblemError) as caught:
        catalogue.check_move("chess", {"type": "move"})
    assert caught.value.status == 404


# ------------------------------------------------------------- the contract's components
def _instances(game: str, kind: str) -> list[dict]:
    """Moves of a type, good and bad, to compare the game's schema with its component."""
    card = {"dalmuti": a_card_in_list("dalmuti", "play"), "onion": a_card_in_list("onion", "discard")}.get(game)
    card = card if card is not None else a_card(game)
    values = [None, 0, -1, 99, "x", card, NOT_A_CARD, [], [card], [card, card], [card, NOT_A_CARD], "solo", "atuin"]
    props = catalogue.move_types(game)[kind]["schema"]["properties"]
    out = [{"type": kind}, {"type": kind, "seat": 1}, {"type": "other"}]
    for name in props:
        if name == "type":
            continue
        for value in values:
            out.append({"type": kind, name: value})
    full = {name: card for name in props if name != "type"}
    out.append({"type": kind, **full})
    return out


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_components_say_what_the_games_schemas_say(game):
    components = move_components()
    union = components[game.capitalize() + "Move"]
    assert union["discriminator"]["propertyName"] == "type"
    assert set(union["discriminator"]["mapping"]) == set(catalogue.move_types(game))
    assert {"$ref": f"#/components/schemas/{game.capitalize()}Move"} in components["Move"]["anyOf"]
    for kind, spec in catalogue.move_types(game).items():
        component = components[move_component_name(game, kind)]
        text = repr(component)
        assert "'const'" not in text and "$schema" not in text and "'if'" not in text
        assert component["properties"]["label"] == LABEL
        assert repr(spec["schema"]).count("x-naipes-card") == text.count("x-naipes-card")
        domain = jsonschema.Draft202012Validator(spec["schema"])
        contract = jsonschema.Draft4Validator(component)  # OpenAPI 3.0's schemas are draft 4's, extended
        for move in _instances(game, kind):
            assert domain.is_valid(move) == contract.is_valid(move), (kind, move)


def test_if_then_else_and_local_refs_are_converted():
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {"n": {"type": "integer", "minimum": 0}},
        "type": "object",
        "properties": {
            "t": {"const": 3},
            "k": {"type": "string"},
            "n": {"$ref": "#/$defs/n"},
            "s": {"type": ["string", "null"]},
        },
        "if": {"properties": {"k": {"const": "a"}}},
        "then": {"required": ["n"]},
        "else": {"required": ["s"]},
    }
    converted = openapi_schema(schema)
    assert converted["properties"]["t"] == {"enum": [3], "type": "integer"}
    assert converted["properties"]["n"] == {"type": "integer", "minimum": 0}
    assert converted["properties"]["s"] == {"type": "string", "nullable": True}
    assert "$schema" not in converted and "$defs" not in converted and "if" not in converted
    draft4 = jsonschema.Draft4Validator(converted)
    assert draft4.is_valid({"k": "a", "n": 1}) and not draft4.is_valid({"k": "a"})
    assert draft4.is_valid({"k": "b", "s": "x"}) and not draft4.is_valid({"k": "b", "n": 1})
    with pytest.raises(ValueError):
        openapi_schema({"prefixItems": [{"type": "integer"}]})


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_compiled_check_says_what_the_schema_says(service, game):
    """A posted move is first checked by the compiled validator (``fast_move_checks``); it must take
    exactly the moves the schema takes: every legal move of a played game, and each good or bad
    instance of every move type."""
    fast = catalogue.fast_move_checks(game)
    slow = catalogue.move_validators(game)
    moves = [{k: v for k, v in m.items() if k != "label"} for m in legal_moves_of_played_games(service, game, 120)]
    for kind in catalogue.move_types(game):
        moves += [m for m in _instances(game, kind) if m.get("type") in fast]
    assert len(moves) > 100
    for move in moves:
        assert fast[move["type"]](move) == slow[move["type"]].is_valid(move), move
