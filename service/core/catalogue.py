"""The games this service hosts, and the one validator of a game's options (whichever route or
command brought them: a creation, an import, a tournament)."""

from __future__ import annotations

import functools
from collections.abc import Callable

import jsonschema
import jsonschema_rs

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


# legal-moves gives every move with its words; a client may post a listed move back whole, so each move
# type's schema, as the contract and GET /game-types/{game} give it, allows them (the move's own fields
# are checked against the game's schema, without them)
MOVE_LABEL = {
    "type": "string",
    "maxLength": 1000,
    "description": "Ignored: the move's words, as legal-moves gives them (a move may be posted back whole)",
}


def with_label(schema: dict) -> dict:
    """A move type's schema as the contract gives it: the game's, with the ignored ``label``."""
    return {**schema, "properties": {**schema.get("properties", {}), "label": MOVE_LABEL}}


@functools.cache
def _description(game_type: str) -> dict:
    described = describe.describe(game_type)
    return {**described, "moves": [{**m, "schema": with_label(m["schema"])} for m in described["moves"]]}


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


# A search bot's move is seconds of one worker's CPU (docs/bots.md), and every table's bots share the bots'
# worker: a game may seat this many of them at most (the other kinds cost next to nothing).
MAX_SEARCH_SEATS = 4


def check_bot_seats(options: dict, players: int) -> None:
    """The seats of the ``bots`` option are seats of the table, and at most :data:`MAX_SEARCH_SEATS` of them
    are ``search`` bots."""
    bots = options.get("bots") or {}
    outside = sorted(int(seat) for seat in bots if int(seat) >= players)
    if outside:
        raise ProblemError(
            422,
            "Invalid options",
            f"bots: seat {outside[0]} is not at this table (its seats are 0 to {players - 1})",
            "invalid-options",
            rule="bot-seat",
        )
    check_search_seats(bots)


def check_search_seats(bots: dict) -> None:
    """A game's bots (seat -> kind) hold at most :data:`MAX_SEARCH_SEATS` ``search`` bots, or a 422
    ``invalid-options`` whose ``rule`` is ``search-bot-seats``."""
    search = sorted((int(seat) for seat, kind in bots.items() if kind == "search"))
    if len(search) > MAX_SEARCH_SEATS:
        raise ProblemError(
            422,
            "Invalid options",
            f"bots: a game seats at most {MAX_SEARCH_SEATS} search bots, and {len(search)} were asked for "
            f"(seats {', '.join(map(str, search))}); make the others heuristic or random bots",
            "invalid-options",
            rule="search-bot-seats",
            field="/options/bots",
        )


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
    bot_seats = {
        "id": "bot-seat",
        "on": ["player_count", "options"],
        "description": "the seats of the bots option are seats of the table (0 to the player count less one)",
        "schema": {
            "allOf": [
                {
                    "if": {"properties": {"player_count": {"const": n}}, "required": ["player_count"]},
                    "then": {
                        "properties": {
                            "options": {"properties": {"bots": {"propertyNames": {"enum": [str(s) for s in range(n)]}}}}
                        }
                    },
                }
                for n in range(module.MIN_PLAYERS, module.MAX_PLAYERS + 1)
            ]
        },
    }
    stated = (count, bot_seats, *getattr(module, "CONSTRAINTS", ()))
    checks = tuple(jsonschema.Draft202012Validator(c["schema"]).is_valid for c in stated)
    return stated, checks


def move_types(game_type: str) -> dict[str, dict]:
    """A game's move types as GET /game-types/{game} lists them: type -> its description (en, es)
    and its JSON Schema (2020-12)."""
    return {m["type"]: m for m in describe_game(game_type)["moves"]}


@functools.cache
def move_validators(game_type: str) -> dict[str, jsonschema.protocols.Validator]:
    """The validator of each move type of a game, compiled once from the schema of its notation."""
    validators = {}
    for kind, spec in move_types(game_type).items():
        cls = jsonschema.validators.validator_for(spec["schema"])
        cls.check_schema(spec["schema"])
        validators[kind] = cls(spec["schema"])
    return validators


@functools.cache
def fast_move_checks(game_type: str) -> dict[str, Callable[[object], bool]]:
    """Whether a move fits its type's schema, compiled to native code (jsonschema-rs) once per game.
    A move it refuses is checked again by :func:`move_validators`, whose error names the field."""
    return {kind: jsonschema_rs.validator_for(spec["schema"]).is_valid for kind, spec in move_types(game_type).items()}


@functools.cache
def event_checks(game_type: str) -> dict[str, tuple[Callable, Callable | None]]:
    """The shape checks of each event type of a game, public part and secret part as the log keeps them
    (:func:`domain.describe.event_schemas`), compiled to native code once per game.  Each check returns
    the first error (``(pointer, message)``) or None."""

    def compiled(schema: dict | None) -> Callable | None:
        if schema is None:
            return None
        validator = jsonschema_rs.validator_for(schema)

        def first_error(value: object) -> tuple[str, str] | None:
            for error in validator.iter_errors(value):
                return _pointer(error.instance_path), error.message[:_DETAIL]
            return None

        return first_error

    return {
        kind: (compiled(shape["data"]), compiled(shape["private"]))
        for kind, shape in describe.event_schemas(game_type).items()
    }


_DETAIL = 300  # a detail quotes at most this much of what was sent


def _pointer(path) -> str:
    """An RFC 6901 JSON pointer (``/cards/1``); the empty pointer (the whole move) is written ``/``."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path) or "/"


def _short(text: str) -> str:
    return text if len(text) <= _DETAIL else text[: _DETAIL - 3] + "..."


def check_move(game_type: str, move: dict) -> None:
    """A move (its own members only: no ``label``) fits the JSON Schema of its type in GET
    /game-types/{game}, or a 422 ``malformed-move`` whose detail starts with the JSON pointer of the
    member that is wrong (``/cards/1: ...``) and whose ``rule`` says how: unknown-move (naming the
    game's move types), missing-field, unknown-field or invalid-field."""
    validators = move_validators(game_type)
    kind = move.get("type")
    if not isinstance(kind, str) or kind not in validators:
        rule = "missing-field" if kind is None else "unknown-move"
        got = "missing" if kind is None else f"{_short(dumps(kind).decode())} is not a move type of {game_type}"
        raise ProblemError(
            422,
            "Malformed move",
            f"/type: {got}; the move types of {game_type} are {', '.join(validators)}",
            "malformed-move",
            rule=rule,
        )
    if fast_move_checks(game_type)[kind](move):  # compiled: the usual, valid move costs microseconds
        return
    error = jsonschema.exceptions.best_match(validators[kind].iter_errors(move))
    if error is None:
        return
    path, rule, message = list(error.absolute_path), "invalid-field", error.message
    instance = error.instance if isinstance(error.instance, dict) else {}
    if error.validator == "required":
        missing = [name for name in error.validator_value if name not in instance]
        path, rule = path + missing[:1], "missing-field"
        message = f"a '{kind}' move needs this field"
    elif error.validator == "additionalProperties":
        known = error.schema.get("properties", {})
        extra = sorted(str(name) for name in instance if name not in known)
        path, rule = path + extra[:1], "unknown-field"
        message = f"a '{kind}' move has no such field (its fields: {', '.join(known)})"
    elif error.validator == "not":
        # a field some other field rules out (an if/then of the schema): name the first one present
        banned = [n for n in _required_in(error.validator_value) if n in instance]
        if banned:
            path, rule = path + banned[:1], "unknown-field"
            message = f"not allowed in this '{kind}' move, given its other fields"
    raise ProblemError(422, "Malformed move", f"{_pointer(path)}: {_short(message)}", "malformed-move", rule=rule)


def _required_in(schema) -> list[str]:
    """The member names a schema of ``required`` lists (alone or under anyOf/oneOf/allOf) names."""
    if not isinstance(schema, dict):
        return []
    names = list(schema.get("required", []))
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in schema.get(key, []):
            names.extend(_required_in(sub))
    return names
