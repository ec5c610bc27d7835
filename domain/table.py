"""The table: a game's state plus what every game shares (players, timing).

Pure like the games: the fold reads times only from the events themselves
(the ``time`` member the store stamped at append), never from a clock.

A table is a JSON object:

``game``, ``rules``    game type and rules version
``options``            the game's options (defaults filled in)
``timing``             ``turn_seconds``, ``bank_seconds``, ``increment_seconds``,
                       ``absent_after``
``state``              the game's own state (folded by the game's ``evolve``)
``version``, ``hash``  of the last event folded
``created_at``, ``updated_at``
``clock``              ``{"<seat>": {"since": t, "deadline": t | None}}`` for
                       every seat that must act now (epoch seconds)
``bank``               ``{"<seat>": seconds}`` when a time bank is on
``timeouts``           ``{"<seat>": n}``: timeouts in a row
``absent``             seats marked absent
``frozen``             moves refused while a reviewer holds the game
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from . import registry

# Events every game shares; all others belong to the game's own evolve.
GAME_CREATED = "GameCreated"
TURN_TIMED_OUT = "TurnTimedOut"
TABLE_EVENTS = {GAME_CREATED, TURN_TIMED_OUT}

TIMING_OPTIONS = {
    "turn_seconds": {
        "type": ["number", "null"], "default": None, "minimum": 0.05, "maximum": 86400 * 7,
        "description": "Seconds a seat has for one decision; null means no limit.",
    },
    "bank_seconds": {
        "type": ["number", "null"], "default": None, "minimum": 0, "maximum": 86400 * 7,
        "description": "A time bank per seat (Fischer): time left over is kept; used once turn_seconds runs out.",
    },
    "increment_seconds": {
        "type": "number", "default": 0, "minimum": 0, "maximum": 86400,
        "description": "Seconds added to a seat's bank after each of its moves (with bank_seconds).",
    },
    "absent_after": {
        "type": "integer", "default": 3, "minimum": 1, "maximum": 1000,
        "description": "Timeouts in a row after which a seat is marked absent and moved for at once.",
    },
}


def epoch(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def split_options(game_type: str, options: dict) -> tuple[dict, dict]:
    """Separate the timing options from the game's own."""
    game_opts = {k: v for k, v in options.items() if k not in TIMING_OPTIONS}
    timing = {k: options.get(k, spec["default"]) for k, spec in TIMING_OPTIONS.items()}
    return game_opts, timing


def timed(table: dict) -> bool:
    t = table["timing"]
    return t.get("turn_seconds") is not None or t.get("bank_seconds") is not None


def created_event(game_type: str, players: list[str], options: dict, rules: str) -> dict:
    return {"type": GAME_CREATED, "data": {"game": game_type, "players": players, "options": options, "rules": rules}}


def evolve(table: dict | None, env: dict) -> dict:
    """Fold one envelope into the table (pure: returns a new table)."""
    etype = env["type"]
    if etype == GAME_CREATED:
        d = env["data"]
        module = registry.get(d["game"])
        game_opts, timing = split_options(d["game"], d["options"])
        table = {
            "game": d["game"],
            "rules": d.get("rules"),
            "options": game_opts,
            "timing": timing,
            "state": module.initial_state(list(d["players"]), game_opts),
            "created_at": env["time"],
            "clock": {},
            "bank": {},
            "timeouts": {},
            "absent": [],
            "frozen": False,
        }
        if timing.get("bank_seconds") is not None:
            table["bank"] = {str(s): float(timing["bank_seconds"]) for s in range(len(d["players"]))}
    else:
        assert table is not None, "the first event of a game must be GameCreated"
        module = registry.get(table["game"])
        table = dict(table)
        actor = env.get("actor", "")
        if etype == TURN_TIMED_OUT:
            seat = str(env["data"]["seat"])
            timeouts = dict(table["timeouts"])
            timeouts[seat] = timeouts.get(seat, 0) + 1
            table["timeouts"] = timeouts
            if timeouts[seat] >= table["timing"]["absent_after"] and int(seat) not in table["absent"]:
                table["absent"] = sorted(table["absent"] + [int(seat)])
            if seat in table["bank"]:
                bank = dict(table["bank"])
                bank[seat] = 0.0
                table["bank"] = bank
            clock = dict(table["clock"])
            clock.pop(seat, None)  # the timeout move that follows restarts it if needed
            table["clock"] = clock
        else:
            table["state"] = module.evolve(table["state"], env)
            if actor.startswith("seat:"):
                seat = actor[5:]
                if table["timeouts"].get(seat) or int(seat) in table["absent"]:
                    timeouts = dict(table["timeouts"])
                    timeouts[seat] = 0
                    table["timeouts"] = timeouts
                    table["absent"] = [s for s in table["absent"] if s != int(seat)]
    table["version"] = env["version"]
    table["hash"] = env["hash"]
    table["updated_at"] = env["time"]
    if timed(table):
        _run_clocks(table, module, env)
    return table


def _run_clocks(table: dict, module: Any, env: dict) -> None:
    """Update ``clock`` and ``bank`` after an event (mutates the fresh copy)."""
    now = epoch(env["time"])
    timing = table["timing"]
    turn = timing.get("turn_seconds") or 0.0
    acting = {s for s in module.to_act(table["state"]) if isinstance(s, int)} \
        if module.outcome(table["state"]) is None else set()
    actor = env.get("actor", "")
    mover = actor[5:] if actor.startswith("seat:") else None
    old = table["clock"]
    clock: dict[str, dict] = {}
    bank = table["bank"]
    bank_changed = False
    for seat_s, entry in old.items():
        if int(seat_s) in acting and seat_s != mover:
            clock[seat_s] = entry
            continue
        # the seat acted (or no longer has to): charge its bank
        if seat_s in bank and env["type"] != TURN_TIMED_OUT and entry["since"] != now:
            if not bank_changed:
                bank = dict(bank)
                bank_changed = True
            overrun = max(0.0, (now - entry["since"]) - turn)
            bank[seat_s] = max(0.0, bank[seat_s] - overrun) + float(timing.get("increment_seconds") or 0)
    for seat in acting:
        seat_s = str(seat)
        if seat_s in clock:
            continue
        if seat_s not in bank and timing.get("bank_seconds") is not None:
            if not bank_changed:
                bank = dict(bank)
                bank_changed = True
            bank[seat_s] = float(timing["bank_seconds"])  # a seat that joined later
        limit = turn + (bank.get(seat_s, 0.0) if timing.get("bank_seconds") is not None else 0.0)
        clock[seat_s] = {"since": now, "deadline": round(now + limit, 3)}
    table["clock"] = clock
    if bank_changed:
        table["bank"] = bank


def fold(envelopes, table: dict | None = None) -> dict | None:
    for env in envelopes:
        table = evolve(table, env)
    return table
