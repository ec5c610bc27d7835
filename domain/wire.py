"""Cards as the API and the log write them: each game's card codes, in and out.

A game's rules work on their own card values (ints for El Gran Dalmuti, Cego
and Cripple Mr Onion; ¡Muerte al rey!'s values are already codes).  Everything
a game shows or stores in its log (views, legal moves, posted moves, events
and their private parts) writes cards as the codes of its notation
(``domain/<game>/notation.py``: ``code`` and ``card``, one bijection per game).

Where cards sit is declared, not guessed: each notation module lists

* ``VIEW_CARDS``: the paths of the cards in what its ``view`` returns;
* ``EVENT_CARDS``: per event type, the paths of the cards in the event
  (``data...`` and ``private...``);

and a move's cards are found from its JSON Schema (the items marked
``x-naipes-card``), so the schema a client reads and the translation agree.

A path is a tuple of steps: a key of an object, an index of a list (``1``:
the card of a ``[seat, card]`` pair), or ``*`` for every element of a list (or
every value of an object).  The path ends at a card.  A missing key
or a ``None`` on the way is skipped (events and views vary by phase).

The table's own events carry cards too: a timed-out seat's move
(``TurnTimedOut`` ``private.<seat>.move``; ``data.move`` in an earlier log), each deal's deck in the private part of the
event that commits it (``private.deal.deck``) and in its ``DealRevealed``.
A deal's ``commitment`` is made again over the deck as the log writes it (its
codes): anyone can check a revealed deck against the commitment as both are
shown.  The rules' own commitment (over the values) comes back on reading.

Games created before the notation (their ``GameCreated`` has no ``cards``)
keep their log as it was written and signed: their events are folded as they
are (see :func:`domain.table.evolve`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from types import ModuleType
from typing import Any

from domain.base import DEAL, deal_commitment
from domain.cego import notation as cego_notation
from domain.dalmuti import notation as dalmuti_notation
from domain.muerte import notation as muerte_notation
from domain.onion import notation as onion_notation

CODES = "codes"  # GameCreated data.cards of a game whose log writes cards as codes

Path = tuple[str, ...]

_NOTATIONS: dict[str, ModuleType] = {
    "cego": cego_notation,
    "dalmuti": dalmuti_notation,
    "muerte": muerte_notation,
    "onion": onion_notation,
}


def _deck(game: str) -> Path:
    """Where the cards are in a deal's deck: a list of cards (``*``), unless the game says otherwise
    in ``DECK_CARDS`` (¡Muerte al rey!'s deck is one list per team: ``*.*``)."""
    return _parse(getattr(notation(game), "DECK_CARDS", "*"))


class CardError(ValueError):
    """A card that is not written in its game's notation; ``path`` says where."""

    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: {message}")
        self.path = path
        self.detail = message


def notation(game: str) -> ModuleType:
    return _NOTATIONS[game]


def _parse(path: str) -> Path:
    return tuple(path.split("."))


def _apply(obj: Any, path: Path, fn: Callable[[Any, str], Any], where: str = "") -> Any:
    """A copy of ``obj`` with ``fn(card, where)`` put in place of each card at ``path``
    (only the containers on the way are copied)."""
    if not path:
        return fn(obj, where)
    step, rest = path[0], path[1:]
    if step == "*":
        if isinstance(obj, list):
            return [_apply(v, rest, fn, f"{where}/{i}") for i, v in enumerate(obj)]
        if isinstance(obj, dict):
            return {k: _apply(v, rest, fn, f"{where}/{k}") for k, v in obj.items()}
        return obj
    if isinstance(obj, list) and step.isdigit():  # an index: the card of a [seat, card] pair, say
        i = int(step)
        if i < len(obj) and obj[i] is not None:
            items = list(obj)
            items[i] = _apply(obj[i], rest, fn, f"{where}/{i}")
            return items
        return obj
    if isinstance(obj, dict) and obj.get(step) is not None:
        out = dict(obj)
        out[step] = _apply(obj[step], rest, fn, f"{where}/{step}")
        return out
    return obj


def _apply_all(obj: Any, paths: Iterable[Path], fn: Callable[[Any, str], Any]) -> Any:
    for path in paths:
        obj = _apply(obj, path, fn)
    return obj


# ---------------------------------------------------------------- the paths


def _schema_paths(schema: dict, prefix: Path = ()) -> list[Path]:
    """The paths of the cards in an object that ``schema`` describes (items marked ``x-naipes-card``)."""
    if not isinstance(schema, dict):
        return []
    if schema.get("x-naipes-card"):
        return [prefix]
    out: list[Path] = []
    for key, sub in (schema.get("properties") or {}).items():
        out += _schema_paths(sub, (*prefix, key))
    if isinstance(schema.get("items"), dict):
        out += _schema_paths(schema["items"], (*prefix, "*"))
    for sub in schema.get("prefixItems") or ():
        out += _schema_paths(sub, (*prefix, "*"))
    for combinator in ("oneOf", "anyOf", "allOf"):
        for sub in schema.get(combinator) or ():
            out += _schema_paths(sub, prefix)
    return sorted(set(out))


@cache
def move_paths(game: str, move_type: str) -> tuple[Path, ...]:
    """Where a move of ``move_type`` holds cards, from its JSON Schema."""
    spec = notation(game).MOVES.get(move_type)
    return tuple(_schema_paths(spec["schema"])) if spec else ()


@cache
def event_paths(game: str, event_type: str) -> tuple[Path, ...]:
    """Where an event of ``event_type`` holds cards (the game's own and the table's)."""
    declared = tuple(_parse(p) for p in getattr(notation(game), "EVENT_CARDS", {}).get(event_type, ()))
    if event_type == "DealRevealed":  # the table's event that publishes a deal's deck
        return (*declared, ("data", "deck", *_deck(game)))
    return (*declared, ("private", "deal", "deck", *_deck(game)))


@cache
def view_paths(game: str) -> tuple[Path, ...]:
    return tuple(_parse(p) for p in getattr(notation(game), "VIEW_CARDS", ()))


# ---------------------------------------------------------------- out: values to codes


def _coder(game: str) -> Callable[[Any, str], Any]:
    code = notation(game).code

    def to_code(value: Any, where: str) -> Any:
        try:
            return code(value)
        except (ValueError, TypeError, KeyError):
            raise CardError(where or "/", f"{value!r} is not a card of this game's rules") from None

    return to_code


def _decoder(game: str) -> Callable[[Any, str], Any]:
    card, pattern = notation(game).card, notation(game).CARD_PATTERN

    def to_value(value: Any, where: str) -> Any:
        try:
            return card(value)
        except (ValueError, TypeError, KeyError):
            raise CardError(
                where or "/", f"{value!r} is not a card code of this game (codes match {pattern})"
            ) from None

    return to_value


def encode_move(game: str, move: dict) -> dict:
    """A move of the rules (``type`` and fields, cards as values) with its cards as codes."""
    return _apply_all(move, move_paths(game, move.get("type")), _coder(game))


def decode_move(game: str, move: dict) -> dict:
    """A move as posted (cards as codes) with its cards as the rules' values;
    :class:`CardError` names the first field holding no card code of the game."""
    return _apply_all(move, move_paths(game, move.get("type")), _decoder(game))


def _timed_out_paths(game: str, event: dict) -> tuple[Path, ...]:
    """The cards of a ``TurnTimedOut``'s move: in its seat's private part (``private.<seat>.move``), or in
    its public data (``data.move``) in a log written before the move was kept the seat's."""
    found: list[tuple[Path, dict]] = []
    data, private = event.get("data") or {}, event.get("private")
    if isinstance(data, dict) and isinstance(data.get("move"), dict):
        found.append((("data", "move"), data["move"]))
    if isinstance(private, dict):
        for seat, part in private.items():
            if isinstance(part, dict) and isinstance(part.get("move"), dict):
                found.append((("private", seat, "move"), part["move"]))
    return tuple((*at, *p) for at, move in found for p in move_paths(game, move.get("type")))


def _secret(event: dict) -> dict | None:
    """The deck and salt an event holds: a deal event's ``deal`` part, a ``DealRevealed``'s data."""
    data = event.get("data")
    if not isinstance(data, dict) or not isinstance(data.get("commitment"), str):
        return None
    secret = data if event.get("type") == "DealRevealed" else ((event.get("private") or {}).get(DEAL) or {})
    if not isinstance(secret, dict) or "deck" not in secret or not isinstance(secret.get("salt"), str):
        return None
    return secret


def _recommitted(before: dict, after: dict) -> dict:
    """``after`` (``before`` with its cards written the other way) committing to its deck as it is
    written, where ``before`` held a deck that matched its commitment.  A commitment that did not
    match its deck is left as it was: a forged one stays forged."""
    secret, moved = _secret(before), _secret(after)
    if (
        secret is None
        or moved is None
        or deal_commitment(secret["deck"], secret["salt"]) != before["data"]["commitment"]
    ):
        return after
    return {**after, "data": {**after["data"], "commitment": deal_commitment(moved["deck"], moved["salt"])}}


def encode_event(game: str, event: dict) -> dict:
    """An event of the rules or of the table (``type``, ``data``, ``private``) with its cards as codes;
    :class:`CardError` names the first place holding no card of the rules (so a log of before the
    notation, whose events write the rules' values, can be checked card by card).

    A deal's ``commitment`` is made over the deck as the log writes it (its codes), so anyone can
    check a revealed deck against it as it is shown."""
    etype = event.get("type")
    paths = _timed_out_paths(game, event) if etype == "TurnTimedOut" else event_paths(game, etype)
    return _recommitted(event, _apply_all(event, paths, _coder(game)))


def decode_event(game: str, event: dict) -> dict:
    """The inverse of :func:`encode_event` (an envelope keeps its other members).  A commitment goes
    back to the rules' own (over the deck's values) where the event holds the deck; an event shown
    without it (a spectator's) keeps the commitment the log shows."""
    etype = event.get("type")
    paths = _timed_out_paths(game, event) if etype == "TurnTimedOut" else event_paths(game, etype)
    return _recommitted(event, _apply_all(event, paths, _decoder(game)))


def encode_view(game: str, view: dict) -> dict:
    """A game's ``view`` with its cards as codes."""
    return _apply_all(view, view_paths(game), _coder(game))


def decode_view(game: str, view: dict) -> dict:
    return _apply_all(view, view_paths(game), _decoder(game))


def cards_at(obj: Any, paths: Iterable[Path]) -> list[Any]:
    """Every value found at ``paths`` (for tests and checks)."""
    found: list[Any] = []

    def keep(value: Any, where: str) -> Any:
        found.append(value)
        return value

    _apply_all(obj, paths, keep)
    return found
