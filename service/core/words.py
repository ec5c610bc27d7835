"""Words for what a caller is shown: a legal move's ``label`` and an event's ``label``, in the
caller's language, from the games' own words (:mod:`domain.describe`).

An event's label is made from the envelope the caller is shown, after the sight removed what the
caller may not see; the games make it from the public part alone.  A label a game cannot make (an
event of an old rules version, say) falls back to the event's type and is logged: words never
cost a caller the event.
"""

from __future__ import annotations

import logging

from domain import describe, wire
from domain import table as tables
from service.core import facts

log = logging.getLogger("naipes.words")

LANGUAGES = describe.LANGUAGES


def move_label(game: str, view: dict, seat: int, move: dict, lang: str) -> str:
    try:
        return describe.label_move(game, view, seat, move, lang)
    except Exception:  # a missing word must not cost the seat its moves
        log.exception("no %s label for a %s move of %s", lang, move.get("type"), game)
        return str(move.get("type"))


def event_label(game: str, env: dict, players: list[str], lang: str) -> str:
    try:
        return describe.label_event(game, env, players, lang)
    except Exception:  # a missing word must not cost the caller the event
        log.exception("no %s label for %s (version %s) of %s", lang, env.get("type"), env.get("version"), game)
        return str(env.get("type"))


def label_events(table: dict, envs: list[dict], lang: str) -> list[dict]:
    """The envelopes a caller is shown, each with its ``label`` (outside the hash, like ``redacted``)."""
    players = facts.players(table)
    game = table["game"]
    if not tables.coded(table):
        return [{**env, "label": event_label(game, env, players, lang)} for env in envs]
    return [{**env, "label": event_label(game, _values(game, env), players, lang)} for env in envs]


def _values(game: str, env: dict) -> dict:
    """An envelope's public part with its cards as the rules' values, which the games' words read."""
    try:
        return wire.decode_event(game, {"type": env["type"], "data": env.get("data") or {}})
    except ValueError:
        return env  # the label falls back to the type (and is logged)
