"""The table: a game's state plus what every game shares (players, timing).

Pure like the games: the fold reads times only from the events themselves
(the ``time`` member the store stamped at append), never from a clock.

A table is a JSON object:

``game``, ``rules``    game type and rules version
``cards``              ``"codes"`` when the log writes cards as codes (:mod:`domain.wire`),
                       None for a log written before the notation (the rules' values)
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
``deals``              ``{"open": [...], "due": [...], "count": n, "starts": [v, ...]}``:
                       deals whose commitment is not yet revealed (``due`` once
                       their hand is over), how many deals there have been, and
                       the version at which each began
``deal_seed``          (duplicate play) the secret all of a game's seeds come from
``notes``              how many notes reviewers have added (the notes are in
                       the log, and the audit lists them: a note costs the
                       table nothing, so folding many notes stays linear)
``adjudication``       ``None`` or the reviewers' rulings: ``void``,
                       ``award`` (a result), ``corrections`` (score deltas, at
                       most MAX_CORRECTIONS)
``open``               seats left open at creation and not claimed yet (the
                       players' names are in the state: a claimed seat's name
                       replaces its placeholder there)
``started``            False while a game created with open seats waits for them
``left``               seats whose players left after the start (absent for good)
``rematch``, ``rematch_of``  the game that follows this one, and the one it follows
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

from . import registry, wire
from .base import DEAL

# Events every game shares; all others belong to the game's own evolve.
GAME_CREATED = "GameCreated"
TURN_TIMED_OUT = "TurnTimedOut"
DEAL_REVEALED = "DealRevealed"
GAME_FROZEN = "GameFrozen"
GAME_UNFROZEN = "GameUnfrozen"
NOTE_ADDED = "NoteAdded"
ADJUDICATED = "Adjudicated"
# Seats: a seat left open at creation is claimed with its invitation; a seat is left; a finished
# game names the game that follows it (its rematch).  Public, with no cards.
SEAT_CLAIMED = "SeatClaimed"
SEAT_LEFT = "SeatLeft"
REMATCH_CREATED = "RematchCreated"
BOT_SEATED = "BotSeated"  # the owner puts a bot in a seat whose player is absent
SEAT_EVENTS = {SEAT_CLAIMED, SEAT_LEFT, REMATCH_CREATED, BOT_SEATED}
# A running game with a clock, brought here by an import, starts its clocks again: the seats to act get
# a fresh turn from the import (the time between its export and its import is nobody's turn).
CLOCKS_RESTARTED = "ClocksRestarted"
TABLE_EVENTS = {
    GAME_CREATED,
    CLOCKS_RESTARTED,
    TURN_TIMED_OUT,
    DEAL_REVEALED,
    GAME_FROZEN,
    GAME_UNFROZEN,
    NOTE_ADDED,
    ADJUDICATED,
    *SEAT_EVENTS,
}
REVIEW_EVENTS = {GAME_FROZEN, GAME_UNFROZEN, NOTE_ADDED, ADJUDICATED}
ADJUDICATIONS = ("void", "award", "correct_score", "unfreeze")
# Score corrections a game takes: the outcome adds them up at every event, so
# a log may not grow them without end.
MAX_CORRECTIONS = 50

TIMING_OPTIONS = {
    "turn_seconds": {
        "type": ["number", "null"],
        "default": None,
        "minimum": 0.05,
        "maximum": 86400 * 7,
        "description": "Seconds a seat has for one decision; null means no limit.",
    },
    "bank_seconds": {
        "type": ["number", "null"],
        "default": None,
        "minimum": 0,
        "maximum": 86400 * 7,
        "description": "A time bank per seat (Fischer): time left over is kept; used once turn_seconds runs out.",
    },
    "increment_seconds": {
        "type": "number",
        "default": 0,
        "minimum": 0,
        "maximum": 86400,
        "description": "Seconds added to a seat's bank after each of its moves (with bank_seconds).",
    },
    "absent_after": {
        "type": "integer",
        "default": 3,
        "minimum": 1,
        "maximum": 1000,
        "description": "Timeouts in a row after which a seat is marked absent and moved for at once "
        "(while some seat is present; when every seat is absent each waits for its turn clock).",
    },
}


BOT_KINDS = ("random", "heuristic", "search")

# Options every game has: the timing ones, its bots and what becomes public at the end.
TABLE_OPTIONS = {
    **TIMING_OPTIONS,
    "bots": {
        "type": "object",
        "default": {},
        "maxProperties": 16,
        "propertyNames": {"pattern": "^(?:[0-9]|1[0-5])$"},
        "additionalProperties": {"enum": list(BOT_KINDS)},
        "description": "Seats played by the service's bots: seat number -> 'random' (any legal move), "
        "'heuristic' (the game's own strategy) or 'search' (a search over the deals its seat cannot tell "
        "apart). A bot decides from its seat's view only; its moves are made by the workers, with the actor "
        "'bot:<kind>'. Other seats keep their timing options.",
    },
    "public_after_end": {
        "type": "boolean",
        "default": False,
        "description": "Once the game is over, everyone (seats and spectators) may read every event with "
        "every seat's private parts and replay it from any viewpoint; not the table's setup secret (a duplicate "
        "deal seed, which other tables may still deal from), so not the audit or the export either.",
    },
}


def epoch(iso: str) -> float:
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def split_options(game_type: str, options: dict) -> tuple[dict, dict]:
    """Separate the table's options (timing, publicity) from the game's own."""
    game_opts = {k: v for k, v in options.items() if k not in TABLE_OPTIONS}
    timing = {k: options.get(k, spec["default"]) for k, spec in TABLE_OPTIONS.items()}
    return game_opts, timing


def timed(table: dict) -> bool:
    """Whether some seat's turn runs on a clock: timing options, or a bot's seat (a bot's turn is due
    at once, and the workers make its move as they enforce deadlines)."""
    t = table["timing"]
    return t.get("turn_seconds") is not None or t.get("bank_seconds") is not None or bool(t.get("bots"))


def bot(table: dict, seat: int | str) -> str | None:
    """The kind of bot that plays ``seat``, or None for a person."""
    return (table["timing"].get("bots") or {}).get(str(seat))


def created_event(
    game_type: str,
    players: list[str],
    options: dict,
    rules: str,
    *,
    open_seats: list[int] | None = None,
    rematch_of: str | None = None,
) -> dict:
    """A game's first event.  ``cards: "codes"`` says its log writes every card as its game's code
    (:mod:`domain.wire`); a log without it (a game made before the notation) writes the rules' own
    values, and is folded as it was written.  ``open_seats``: seats left open (their names in
    ``players`` are placeholders, see :func:`placeholder`); the game starts once they are all
    claimed.  ``rematch_of``: the finished game this one follows."""
    data = {"game": game_type, "players": players, "options": options, "rules": rules, "cards": wire.CODES}
    if open_seats:
        data["open"] = sorted(open_seats)
    if rematch_of is not None:
        data["rematch_of"] = rematch_of
    return {"type": GAME_CREATED, "data": data}


def placeholder(seat: int) -> str:
    """The name an open seat holds until it is claimed."""
    return f"seat {seat}"


def started(table: dict) -> bool:
    """Whether the game has started: a game created with open seats waits until they are claimed
    (a table folded before open seats existed has always started)."""
    return table.get("started", True)


def open_seats(table: dict) -> list[int]:
    """The seats waiting for a player (each claimed with its invitation)."""
    return list(table.get("open") or [])


def _seat_names(table: dict, module: Any, names: list[str]) -> None:
    """A game not started yet sits its players again: its state is the rules' initial state for
    the names now at the table (nothing else has happened to it; mutates the copy)."""
    table["state"] = module.initial_state(list(names), table["options"])


def coded(table: dict | None) -> bool:
    """Whether the table's log writes its cards as codes."""
    return table is not None and table.get("cards") == wire.CODES


def evolve(table: dict | None, env: dict) -> dict:
    """Fold one envelope, as the log stores it, into the table (pure: returns a new table).
    The table's state holds the rules' own card values whatever the log writes."""
    if coded(table) and env["type"] != GAME_CREATED:
        env = wire.decode_event(table["game"], env)
    return evolve_decoded(table, env)


def encode(table: dict, event: dict) -> dict:
    """An event of the rules or the table (cards as values) as the table's log writes it."""
    return wire.encode_event(table["game"], event) if coded(table) else event


def decode(table: dict, env: dict) -> dict:
    """An envelope of the table's log with its cards as the rules' values."""
    return wire.decode_event(table["game"], env) if coded(table) else env


def evolve_decoded(table: dict | None, env: dict) -> dict:
    """Fold one envelope whose cards are the rules' own values (see :func:`evolve`)."""
    etype = env["type"]
    if etype == GAME_CREATED:
        d = env["data"]
        module = registry.for_rules(d["game"], d.get("rules"))
        game_opts, timing = split_options(d["game"], d["options"])
        table = {
            "game": d["game"],
            "rules": d.get("rules"),
            "cards": d.get("cards"),
            "options": game_opts,
            "timing": timing,
            "state": module.initial_state(list(d["players"]), game_opts),
            "created_at": env["time"],
            "clock": {},
            "bank": {},
            "timeouts": {},
            "absent": [],
            "frozen": False,
            "deals": {"open": [], "due": [], "count": 0, "starts": []},
            "deal_seed": ((env.get("private") or {}).get("setup") or {}).get("deal_seed"),
            "notes": 0,
            "adjudication": None,
            "open": sorted(d.get("open") or []),
            "claimed": [],  # seats whose invitation was used (a table folded before this was kept has none)
            "started": not d.get("open"),
            "left": [],
            "rematch": None,
            "rematch_of": d.get("rematch_of"),
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
        elif etype == DEAL_REVEALED:
            deals = dict(table["deals"])
            deals["due"] = [d for d in deals["due"] if d["version"] != env["data"]["deal_version"]]
            table["deals"] = deals
        elif etype in REVIEW_EVENTS:
            _review(table, env)
        elif etype == CLOCKS_RESTARTED:
            table["clock"] = {}  # every seat to act gets a fresh turn (its bank is kept), as after an unfreeze
        elif etype in SEAT_EVENTS:
            _seats(table, env)
        else:
            if not started(table):
                table["started"] = True
            table["state"] = module.evolve(table["state"], env)
            _track_deals(table, module, env)
            if actor.startswith("seat:") and int(actor[5:]) not in table.get("left", ()):
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


def _track_deals(table: dict, module: Any, env: dict) -> None:
    """Remember each deal's commitment until its hand is over (mutates the copy)."""
    commitment = env["data"].get("commitment")
    over = env["type"] in module.HAND_OVER_EVENTS  # the match's end is one of them
    if commitment is None and not (over and table["deals"]["open"]):
        return
    deals = {**table["deals"]}
    if over:
        deals["due"] = deals["due"] + deals["open"]
        deals["open"] = []
    if commitment is not None:
        secret = (env.get("private") or {}).get(DEAL) or {}
        entry = {
            "version": env["version"],
            "commitment": commitment,
            "salt": secret.get("salt"),
            "deck": secret.get("deck"),
        }
        deals["count"] = deals["count"] + 1
        deals["starts"] = [*deals.get("starts", ()), env["version"]]
        if module.outcome(table["state"]) is not None:
            deals["due"] = deals["due"] + [entry]
        else:
            deals["open"] = deals["open"] + [entry]
    table["deals"] = deals


def reveal_events(table: dict) -> list[dict]:
    """The ``DealRevealed`` events a table owes: one per deal whose hand is over."""
    return [
        {
            "type": DEAL_REVEALED,
            "data": {"deal_version": d["version"], "commitment": d["commitment"], "salt": d["salt"], "deck": d["deck"]},
        }
        for d in table["deals"]["due"]
    ]


def deal_seed(table: dict) -> int | None:
    """The seed of the next command in duplicate play, else None (fresh randomness).

    Every game created with the same ``deal_seed`` gets the same seed for its
    k-th deal, whichever seat's move brings it about, so tables of one
    duplicate round are dealt the same cards.
    """
    secret = table.get("deal_seed")
    if secret is None:
        return None
    digest = hashlib.sha256(f"{secret}:{table['deals']['count']}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _seats(table: dict, env: dict) -> None:
    """A seat claimed or left, and a finished game's rematch named (mutates the copy).  Before the
    game starts a claimed seat takes its player's name and a seat left is open again; once it has
    started a seat left is absent for good (the rules' timeout move plays it)."""
    etype, d = env["type"], env["data"]
    if etype == REMATCH_CREATED:
        table["rematch"] = d["game"]
        return
    if etype == BOT_SEATED:  # the bot plays the seat from now on (its turn is due at once)
        table["timing"] = {**table["timing"], "bots": {**(table["timing"].get("bots") or {}), str(d["seat"]): d["bot"]}}
        table["clock"] = {s: c for s, c in table["clock"].items() if s != str(d["seat"])}
        table["absent"] = [s for s in table["absent"] if s != int(d["seat"])]  # no longer moved for at once
        return
    seat = int(d["seat"])
    module = registry.for_rules(table["game"], table.get("rules"))
    names = list(table["state"].get("players", []))
    if etype == SEAT_CLAIMED:
        table["open"] = [s for s in open_seats(table) if s != seat]
        table["claimed"] = sorted({*table.get("claimed", ()), seat})
        names[seat] = d["player"]
        _seat_names(table, module, names)
    elif not started(table):  # SEAT_LEFT before the game starts: the seat is open again
        table["open"] = sorted({*open_seats(table), seat})
        table["released"] = sorted({*table.get("released", ()), seat})
        names[seat] = placeholder(seat)
        _seat_names(table, module, names)
    else:  # SEAT_LEFT: absent for good
        table["left"] = sorted({*table.get("left", ()), seat})
        table["released"] = sorted({*table.get("released", ()), seat})
        table["absent"] = sorted({*table["absent"], seat})


def _review(table: dict, env: dict) -> None:
    """Reviewers' events: freeze, unfreeze, notes, adjudications (mutates the copy)."""
    etype, d = env["type"], env["data"]
    if etype == GAME_FROZEN:
        table["frozen"] = True
    elif etype == GAME_UNFROZEN:
        table["frozen"] = False
    elif etype == NOTE_ADDED:
        notes = table.get("notes") or 0
        # a list: a table stored before notes were counted
        table["notes"] = (len(notes) if isinstance(notes, list) else notes) + 1
    elif etype == ADJUDICATED:
        adj = dict(table["adjudication"] or {"void": False, "award": None, "corrections": []})
        action = d["action"]
        if action == "void":
            adj["void"] = True
        elif action == "award":
            adj["award"] = d["result"]
        elif action == "correct_score":
            if len(adj["corrections"]) >= MAX_CORRECTIONS:
                raise ValueError(f"more than {MAX_CORRECTIONS} score corrections")
            adj["corrections"] = adj["corrections"] + [d["deltas"]]
        elif action == "unfreeze":
            table["frozen"] = False
        table["adjudication"] = adj
        if table["deals"]["open"] and outcome(table) is not None:
            # the ruling ended the game mid-hand: its deal is over too, and is revealed in the same append
            table["deals"] = {**table["deals"], "due": table["deals"]["due"] + table["deals"]["open"], "open": []}


def outcome(table: dict) -> dict | None:
    """The game's outcome as the reviewers left it: a void game ends with no
    scores; an award replaces the result; corrections add to the scores."""
    module = registry.get(table["game"])
    adj = table.get("adjudication")
    result = module.outcome(table["state"])
    if not adj:
        return result
    n = len(table["state"].get("players", []))
    if adj.get("void"):
        return {"scores": [0] * n, "ranking": [], "winners": [], "void": True, "adjudicated": True}
    if adj.get("award") is not None:
        result = dict(adj["award"])
    if result is None:
        return None
    if adj.get("corrections"):
        scores = list(result.get("scores") or [0] * n)
        for deltas in adj["corrections"]:
            scores = [a + b for a, b in zip(scores, deltas)]
        best = max(scores)
        result = {
            **result,
            "scores": scores,
            "ranking": sorted(range(n), key=lambda s: -scores[s]),
            "winners": [s for s in range(n) if scores[s] == best],
        }
    return {**result, "adjudicated": True}


def ranks(table: dict, result: dict | None) -> list[int | None]:
    """Each seat's place in ``result`` (an :func:`outcome` of ``table``):
    competition ranking, so seats with equal scores share a place and the
    next place is skipped (1, 2, 2, 4).  A game whose rules order equal
    scores by another criterion says so with ``TIES_BROKEN``: its places
    follow its ranking one by one.  A reviewer's award or correction ranks
    by the scores alone.  A seat the ranking leaves out (a void game) has
    no place."""
    if not result:
        return []
    ranking = list(result.get("ranking") or [])
    scores = result.get("scores") or []
    n = max(len(scores), len(table["state"].get("players", [])), len(ranking))
    broken = not result.get("adjudicated") and getattr(registry.get(table["game"]), "TIES_BROKEN", False)
    places: list[int | None] = [None] * n
    previous = None
    for position, seat in enumerate(ranking, start=1):
        tied = (
            previous is not None
            and not broken
            and seat < len(scores)
            and previous < len(scores)
            and scores[seat] == scores[previous]
        )
        places[seat] = places[previous] if tied else position
        previous = seat
    return places


def ranked(table: dict, result: dict | None) -> dict | None:
    """``result`` as shown to people: with ``ranks`` (see :func:`ranks`).
    The outcome itself stays as folded, so logs exported earlier still verify."""
    if result is None:
        return None
    return {**result, "ranks": ranks(table, result)}


def _run_clocks(table: dict, module: Any, env: dict) -> None:
    """Update ``clock`` and ``bank`` after an event (mutates the fresh copy)."""
    if table.get("frozen"):  # no clock runs while reviewers hold the game;
        table["clock"] = {}  # unfreezing gives the seats to act a fresh turn
        return
    now = epoch(env["time"])
    timing = table["timing"]
    turn = timing.get("turn_seconds") or 0.0
    acting = {s for s in module.to_act(table["state"]) if isinstance(s, int)} if outcome(table) is None else set()
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
        if bot(table, seat_s) is not None:
            clock[seat_s] = {"since": now, "deadline": now}  # due at once: a worker makes the bot's move
            continue
        if timing.get("turn_seconds") is None and timing.get("bank_seconds") is None:
            continue  # people play without a clock at this table (only its bots have one)
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
    """Fold envelopes as the log stores them."""
    for env in envelopes:
        table = evolve(table, env)
    return table
