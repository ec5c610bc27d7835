"""The face every game module shares (the decider pattern).

A game module (``domain/<game>.py`` or a package) exposes, as module-level
names:

``GAME_ID``          short id used by the API (``"dalmuti"``).
``TITLE``            human title.
``RULES_VERSION``    string; bumped whenever a rule change would fold old logs
                     differently.
``MIN_PLAYERS``, ``MAX_PLAYERS``
``OPTIONS``          a JSON Schema (``type: object``) describing the game's
                     options, every property with a ``default`` and a
                     ``description``.
``CONSTRAINTS``      (optional) what a creation must satisfy beyond the player
                     count and each option's schema: ``{"id", "on",
                     "description", "schema"}``, ``schema`` a JSON Schema over
                     ``{"player_count": n, "options": {...}}`` (defaults filled
                     in), ``id`` the rule a refused creation names.
``FOLDS_RULES``      older rules versions whose logs the module still folds
                     exactly as they were played.
``HAND_OVER_EVENTS`` the event types after which the deal in play is over
                     (the end of a hand and ``MatchEnded``): the table then
                     reveals the deal's commitment (see :func:`committed`).

``initial_state(players, options) -> state``
    The state before any event of the game itself.  ``players`` is the list of
    player names, ``options`` the validated options with defaults filled in.
``decide(state, command) -> list[event]``
    ``command`` is a dict: ``{"type": ..., "seat": int | None, "seed": int,
    ...move fields}``.  ``seat`` is ``None`` for system commands (``start``).
    ``seed`` is fresh randomness from the caller; it is only ever used to
    shuffle, and the shuffled result is written into the events.  In
    duplicate play every command of a deal gets the seed that shuffles the
    next deal: any other draw takes a stream of its own (``rng(f"<use>:{seed}")``),
    never ``rng(seed)``, which would tell that deal's cards.  Raises
    :class:`RuleViolation` when the command breaks a rule.
``evolve(state, event) -> state``
    Pure: never mutates ``state``; shares unchanged parts (copy only what
    changes).  ``event`` is ``{"type", "data", "private"}`` (``private`` maps
    ``str(seat)`` to that seat's secret part and may be absent).
``to_act(state) -> list[int]``
    The seats that may act now (several at once for simultaneous decisions).
``legal_moves(state, seat) -> list[dict]``
    Each move dict can be posted back as it is.
``view(state, viewer) -> dict``
    ``viewer`` is a seat number, ``"spectator"`` or ``"reviewer"`` (sees all).
``timeout_move(state, seat) -> dict``
    The move made for a seat that did not act in time (one of its legal
    moves).
``outcome(state) -> dict | None``
    ``None`` while the game runs; else ``{"scores": [per seat], "ranking":
    [seats, best first], "winners": [seats], ...}``.

States and events are plain JSON values (dicts with string keys, lists, str,
int, bool, None) so that a state survives a JSON round trip unchanged.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

SPECTATOR = "spectator"
REVIEWER = "reviewer"


class RuleViolation(Exception):
    """A command that the rules do not allow.

    ``rule`` is a short stable identifier (``"not-your-turn"``,
    ``"must-beat-rank"`` ...), ``detail`` a sentence for a person, and
    ``kind`` either ``"illegal"`` (the move itself is wrong), ``"turn"`` (the
    seat may not act now) or ``"invalid"`` (the move is malformed).
    """

    def __init__(self, rule: str, detail: str, kind: str = "illegal"):
        super().__init__(detail)
        self.rule = rule
        self.detail = detail
        self.kind = kind


def event(type_: str, data: dict | None = None, private: dict | None = None) -> dict:
    """Build a domain event. ``private`` maps seat numbers to secret parts."""
    ev: dict[str, Any] = {"type": type_, "data": data or {}}
    if private:
        ev["private"] = {str(k): v for k, v in private.items()}
    return ev


def shuffled(items: list, seed: int) -> list:
    """A copy of ``items`` shuffled by a generator seeded with ``seed`` only."""
    out = list(items)
    random.Random(seed).shuffle(out)
    return out


def deal_commitment(deck: Any, salt: str) -> str:
    """SHA-256 (hex) of ``salt``, a ``|`` and the deck as compact JSON (keys
    sorted, UTF-8): what a deal event commits to before play begins."""
    payload = salt + "|" + json.dumps(deck, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


DEAL = "deal"  # the private part of a deal event that holds the salt and the deck


def committed(ev: dict, deck: Any, seed: int) -> dict:
    """Seal a deal event: its public data gets the ``commitment`` to ``deck``;
    the salt and the deck go to the private part ``"deal"``, which no seat
    receives and the table reveals when the hand is over.  The salt is drawn
    from the command's seed, so the domain stays free of other randomness."""
    salt = hashlib.sha256(f"naipes-deal-salt:{seed}".encode()).hexdigest()[:32]
    ev["data"]["commitment"] = deal_commitment(deck, salt)
    ev.setdefault("private", {})[DEAL] = {"salt": salt, "deck": deck}
    return ev


def match_ended(state: dict, ev: dict) -> dict:
    """The reducer of ``MatchEnded``, the same in every game: the match is
    over and the event's data is its outcome."""
    return {**state, "phase": "finished", "outcome": ev["data"]}


def seat_parts(private: dict | None):
    """The ``(seat, part)`` pairs of an event's private parts (other keys,
    like ``"deal"``, are not seats)."""
    for key, part in (private or {}).items():
        if key.isdigit():
            yield int(key), part


def rng(seed: int) -> random.Random:
    """A private generator for one command (never the global one)."""
    return random.Random(seed)


def require_seat(command: dict) -> int:
    seat = command.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise RuleViolation("seat-required", "this command must be made by a seat", "turn")
    return seat


def int_list(value: Any, field: str, *, min_len: int = 0, max_len: int = 200) -> list[int]:
    """Validate a list of integers coming from a client."""
    if not isinstance(value, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in value):
        raise RuleViolation("invalid-field", f"'{field}' must be a list of integers", "invalid")
    if not (min_len <= len(value) <= max_len):
        raise RuleViolation("invalid-field", f"'{field}' must hold between {min_len} and {max_len} items", "invalid")
    return value


def int_field(command: dict, field: str) -> int:
    value = command.get(field)
    if not isinstance(value, int) or isinstance(value, bool):
        raise RuleViolation("invalid-field", f"'{field}' must be an integer", "invalid")
    return value


class Outbox:
    """Collects the events a command decides, keeping the state they lead to.

    ``decide`` functions emit events one by one and read ``state`` as it
    becomes, so that later rules of the same command see earlier effects.
    """

    __slots__ = ("state", "events", "_evolve")

    def __init__(self, state: dict, evolve):
        self.state = state
        self.events: list[dict] = []
        self._evolve = evolve

    def emit(self, ev: dict) -> None:
        self.events.append(ev)
        self.state = self._evolve(self.state, ev)


def viewer_is_seat(state: dict, viewer: Any) -> bool:
    """Check a view's viewer (a seat of ``state["players"]``, SPECTATOR or REVIEWER);
    True when it is a seat."""
    is_seat = isinstance(viewer, int) and not isinstance(viewer, bool)
    if is_seat and not 0 <= viewer < len(state["players"]):
        raise RuleViolation("unknown-seat", f"seat {viewer} is not at this table", "invalid")
    if not is_seat and viewer not in (SPECTATOR, REVIEWER):
        raise RuleViolation("invalid-viewer", "a viewer is a seat number, 'spectator' or 'reviewer'", "invalid")
    return is_seat


def settle_options(schema: dict, options: dict | None) -> dict:
    """A game's options: every default of its OPTIONS schema, overridden by the
    given values of known options (unknown names are ignored)."""
    opts = {k: spec["default"] for k, spec in schema["properties"].items()}
    for k, v in (options or {}).items():
        if k in opts:
            opts[k] = v
    return opts


def check_player_count(title: str, n: int, low: int, high: int) -> None:
    if not low <= n <= high:
        raise RuleViolation("player-count", f"{title} takes {low} to {high} players, got {n}", "invalid")


def table_seat(state: dict, command: dict) -> int:
    """The commanding seat, which must sit at this table."""
    seat = require_seat(command)
    if not 0 <= seat < len(state["players"]):
        raise RuleViolation("unknown-seat", f"seat {seat} is not at this table", "invalid")
    return seat
