"""The games this service hosts, and the one validator of a game's options (whichever route or
command brought them: a creation, an import, a tournament)."""

from __future__ import annotations

import functools
from collections.abc import Callable

import jsonschema

from domain import describe, registry
from domain import table as tables
from events.envelope import dumps
from service.core.errors import ProblemError


def game_types() -> list[dict]:
    return [_summary(gid) for gid in registry.all_games()]


def _summary(gid: str) -> dict:
    module = registry.get(gid)
    props = {**module.OPTIONS.get("properties", {}), **tables.TABLE_OPTIONS}
    return {
        "id": gid,
        "title": module.TITLE,
        "rules_version": module.RULES_VERSION,
        "min_players": module.MIN_PLAYERS,
        "max_players": module.MAX_PLAYERS,
        "options": {name: dict(spec) for name, spec in props.items()},
        "constraints": [dict(c) for c in creation_constraints(gid)[0]],
    }


def describe_game(game_type: str) -> dict:
    """GET /game-types/{game}: the summary of GET /game-types and the game in words and codes: its
    deck (every card's code, suit, rank, names, colour, points), phases, roles, every move type with
    a JSON Schema, and its event types (see :mod:`domain.describe`)."""
    if game_type not in registry.GAME_MODULES:
        known = ", ".join(registry.GAME_MODULES)
        raise ProblemError(
            404,
            "Game type not found",
            f"there is no game type '{game_type[:64]}' (known: {known})",
            "game-type-not-found",
        )
    return {**_summary(game_type), **_description(game_type)}


@functools.cache
def _description(game_type: str) -> dict:
    return describe.describe(game_type)


def validate_options(game_type: str, options: dict) -> dict:
    """The options with their defaults filled in, or a 422 naming what is wrong: an unknown
    option (naming the game's options), a value its schema refuses, or a constraint of
    GET /game-types that the options alone break (``rule`` names it)."""
    schema, validator = options_validator(game_type)
    errors = list(validator.iter_errors(options))
    # a const error comes from an if/then between options: the constraint naming it says why
    error = jsonschema.exceptions.best_match(e for e in errors if e.validator != "const")
    if error is not None:
        where = ".".join(str(p) for p in error.absolute_path) or "options"
        message = error.message
        if error.validator == "additionalProperties":
            message = f"{error.message}; the options of {game_type} are {', '.join(schema['properties'])}"
        raise ProblemError(422, "Invalid options", f"{where}: {message}", "invalid-options")
    filled = {name: spec.get("default") for name, spec in schema["properties"].items()}
    filled.update(options)
    stated, check = creation_constraints(game_type)
    for constraint, holds in zip(stated, check):
        if constraint["on"] == ["options"] and not holds({"options": filled}):
            raise ProblemError(
                422,
                "Invalid options",
                f"{constraint['id']}: {constraint['description']}",
                "invalid-options",
                rule=constraint["id"],
            )
    if errors:  # an if/then of the options' schema that no constraint names
        where = ".".join(str(p) for p in errors[0].absolute_path) or "options"
        spec = schema["properties"].get(where, {})
        raise ProblemError(
            422,
            "Invalid options",
            f"{where}: {dumps(errors[0].instance).decode()} is not "
            "allowed together with the other options given "
            f"({spec.get('description', 'see GET /game-types')})",
            "invalid-options",
        )
    return filled


@functools.cache
def options_validator(game_type: str):
    """The JSON Schema of a game's options plus the timing options, compiled once."""
    module = registry.get(game_type)
    schema = dict(module.OPTIONS)
    schema["properties"] = {**schema.get("properties", {}), **tables.TABLE_OPTIONS}
    schema["additionalProperties"] = False
    cls = jsonschema.validators.validator_for(schema)
    return schema, cls(schema)


@functools.cache
def creation_constraints(game_type: str) -> tuple[tuple[dict, ...], tuple[Callable[[dict], bool], ...]]:
    """What a creation of the game must satisfy beyond each option's own schema, as GET /game-types
    states it: the player count, then the game's ``CONSTRAINTS``; each with its compiled check."""
    module = registry.get(game_type)
    count = {
        "id": "player-count",
        "on": ["player_count"],
        "description": f"{module.TITLE} takes {module.MIN_PLAYERS} to {module.MAX_PLAYERS} players",
        "schema": {"properties": {"player_count": {"minimum": module.MIN_PLAYERS, "maximum": module.MAX_PLAYERS}}},
    }
    stated = (count, *getattr(module, "CONSTRAINTS", ()))
    checks = tuple(jsonschema.Draft202012Validator(c["schema"]).is_valid for c in stated)
    return stated, checks
