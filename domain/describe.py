"""What a client needs to show a game to a person: each game described (its cards and their codes,
phases, roles, and move types with a JSON Schema each) and every move and event put in words, in
English and Spanish.

Each game says it in its own ``domain/<game>/notation.py``; the table's own events (creation,
timeouts, reveals, reviewers' events), alike for every game, are put in words here.  An event's
words come from its public part only, so they tell nobody more than the event they describe.
"""

from __future__ import annotations

from types import ModuleType

from domain import registry
from domain import table as tables
from domain.cego import notation as cego_notation
from domain.dalmuti import notation as dalmuti_notation
from domain.muerte import notation as muerte_notation
from domain.onion import notation as onion_notation
from domain.phrases import LANGUAGES, join, seat_name

NOTATIONS: dict[str, ModuleType] = {
    "cego": cego_notation,
    "dalmuti": dalmuti_notation,
    "muerte": muerte_notation,
    "onion": onion_notation,
}


def notation(game_id: str) -> ModuleType:
    """The notation module of a registered game."""
    return NOTATIONS[game_id]


TABLE_EVENT_WORDS = {
    tables.GAME_CREATED: {"en": "The game is set up for {players}", "es": "Se prepara la partida para {players}"},
    tables.DEAL_REVEALED: {
        "en": "The cards of the deal at version {deal} are revealed: its commitment can be checked",
        "es": "Se revelan las cartas del reparto de la versión {deal}: su compromiso puede comprobarse",
    },
    tables.GAME_FROZEN: {
        "en": "A reviewer freezes the game{reason}",
        "es": "Un árbitro congela la partida{reason}",
    },
    tables.GAME_UNFROZEN: {
        "en": "A reviewer unfreezes the game{reason}",
        "es": "Un árbitro descongela la partida{reason}",
    },
    tables.CLOCKS_RESTARTED: {
        "en": "The game is imported into this service: its clocks start again, each seat to act with a fresh turn",
        "es": "La partida se importa a este servicio: sus relojes vuelven a correr, "
        "con un turno nuevo para cada asiento que debe jugar",
    },
    tables.NOTE_ADDED: {
        "en": "A reviewer notes on version {at}: {text}",
        "es": "Un árbitro anota sobre la versión {at}: {text}",
    },
}
TIMEOUT_WORDS = {
    "deadline": {
        "en": "{player}'s time runs out; the table moves for them",
        "es": "A {player} se le acaba el tiempo; la mesa juega en su lugar",
    },
    "absent": {
        "en": "{player} is away; the table moves for them",
        "es": "{player} está ausente; la mesa juega en su lugar",
    },
}
SEAT_WORDS = {
    tables.SEAT_CLAIMED: {
        "en": "{player} takes seat {seat} with an invitation",
        "es": "{player} ocupa el asiento {seat} con una invitación",
    },
    tables.SEAT_LEFT: {
        "en": "{player} leaves the table",
        "es": "{player} deja la mesa",
    },
    tables.REMATCH_CREATED: {
        "en": "A rematch follows: game {game}",
        "es": "Sigue una revancha: la partida {game}",
    },
    tables.BOT_SEATED: {
        "en": "A {bot} bot plays seat {seat} for {player}, who is away",
        "es": "Un bot {bot} juega el asiento {seat} por {player}, que está ausente",
    },
}
BOT_NAMES = {
    "random": {"en": "random", "es": "al azar"},
    "heuristic": {"en": "heuristic", "es": "heurístico"},
    "search": {"en": "searching", "es": "de búsqueda"},
}
RULING_WORDS = {
    "void": {"en": "A reviewer voids {what}{reason}", "es": "Un árbitro anula {what}{reason}"},
    "award": {
        "en": "A reviewer awards the result: {scores}{reason}",
        "es": "Un árbitro otorga el resultado: {scores}{reason}",
    },
    "correct_score": {
        "en": "A reviewer corrects the scores by {scores}{reason}",
        "es": "Un árbitro corrige los puntos en {scores}{reason}",
    },
    "unfreeze": {"en": "A reviewer unfreezes the game{reason}", "es": "Un árbitro descongela la partida{reason}"},
}


def _reason(data: dict) -> str:
    reason = data.get("reason")
    return f" ({reason})" if isinstance(reason, str) and reason else ""


def _scores(players: list[str], values: object, lang: str) -> str:
    if not isinstance(values, list):
        return "?"
    return ", ".join(
        f"{seat_name(players, s, lang)} {v:+g}" if isinstance(v, (int, float)) else "?" for s, v in enumerate(values)
    )


def table_event_label(event: dict, players: list[str], lang: str) -> str:
    """The words of an event of the table (one of :data:`domain.table.TABLE_EVENTS`)."""
    etype, data = event["type"], event.get("data") or {}
    if etype == tables.TURN_TIMED_OUT:
        words = TIMEOUT_WORDS.get(data.get("reason"), TIMEOUT_WORDS["deadline"])
        return words[lang].format(player=seat_name(players, data.get("seat"), lang))
    if etype in SEAT_WORDS:
        seat = data.get("seat")
        claimed = data.get("player")
        return SEAT_WORDS[etype][lang].format(
            player=str(claimed) if isinstance(claimed, str) else seat_name(players, seat, lang),
            seat=seat if isinstance(seat, int) else "?",
            game=str(data.get("game", "?")),
            bot=BOT_NAMES.get(data.get("bot"), {}).get(lang, "?"),
        )
    if etype == tables.ADJUDICATED:
        action = data.get("action")
        words = RULING_WORDS.get(action, RULING_WORDS["unfreeze"])
        hand = data.get("hand")
        what = {
            "en": f"hand {hand}" if hand is not None else "the hand in play",
            "es": f"la mano {hand}" if hand is not None else "la mano en juego",
        }[lang]
        scores = (data.get("result") or {}).get("scores") if action == "award" else data.get("deltas")
        return words[lang].format(what=what, scores=_scores(players, scores, lang), reason=_reason(data))
    words = TABLE_EVENT_WORDS[etype][lang]
    return words.format(
        players=join(data.get("players") or players, lang),
        deal=data.get("deal_version", "?"),
        reason=_reason(data),
        at=data.get("at_version", "?"),
        text=str(data.get("text", "")),
    )


def label_event(game_id: str, event: dict, players: list[str], lang: str = "en") -> str:
    """One sentence for an event of a game, from its public part (``type`` and ``data``) only."""
    public = {"type": event["type"], "data": event.get("data") or {}}
    if public["type"] in tables.TABLE_EVENTS:
        return table_event_label(public, players, lang)
    return notation(game_id).label_event(public, players, lang)


# ------------------------------------------------------------------ shapes
# The table's own events, alike in every game, in JSON Schema (2020-12): what their public ``data``
# holds (none of them has a private part).  A game's own events and its view are in its notation
# (``EVENT_SCHEMAS``, ``VIEW_SCHEMA``); :func:`event_schemas` gives both, as GET /game-types/{game} does.

_SEAT_NO = {"type": "integer", "minimum": 0, "maximum": 15, "description": "a seat number (0 is the first seat)"}
_PLAYER = {"type": "string", "description": "the player's name at the table"}
_REASON = {"type": "string", "description": "the reviewer's reason, in their words (may be empty)"}
_SCORE_LIST = {"type": "array", "items": {"type": "number"}, "maxItems": 16}


def _obj(description: str, required: tuple[str, ...] = (), **properties: dict) -> dict:
    return {
        "type": "object",
        "description": description,
        "properties": properties,
        "required": list(required),
        "additionalProperties": False,
    }


def table_event_schemas(game_id: str) -> dict[str, dict]:
    """The table's events of a game, each ``{"description", "data", "private"}`` (``private`` None)."""
    words = notation(game_id)
    card = {"type": "string", "pattern": words.CARD_PATTERN, "x-naipes-card": True}
    deck = {"type": "array", "items": card, "description": "the whole deck in the order it was dealt"}
    for shape in words.EVENT_SCHEMAS.values():  # a deal's deck, as the game's deal event keeps it secret
        secret = (shape["private"] or {}).get("properties", {}).get("deal", {}).get("properties", {})
        if "deck" in secret:
            deck = secret["deck"]
    move = {
        "description": "the move the table made for the seat: its timeout move, as legal-moves writes it",
        "anyOf": [{k: v for k, v in spec["schema"].items() if k != "$schema"} for spec in words.MOVES.values()],
    }
    shapes = {
        tables.GAME_CREATED: (
            "The game is set up: the first event of every log",
            _obj(
                "the game as it was created",
                ("game", "players", "options", "rules"),
                game={"const": game_id, "description": "the game type"},
                players={
                    "type": "array",
                    "items": _PLAYER,
                    "minItems": 1,
                    "maxItems": 16,
                    "description": "the players' names, by seat (an open seat's is a placeholder until claimed)",
                },
                options={
                    "type": "object",
                    "description": "every option of the game with its value, defaults filled in: the options "
                    "GET /game-types/{game} lists (the game's own, and the table's: timing, bots, public_after_end)",
                },
                rules={"type": "string", "description": "the rules version the game is played under"},
                cards={
                    "const": "codes",
                    "description": "the log writes every card as its code (absent: an early log that writes the "
                    "rules' own values, GET /game-types/{game} deck[].id)",
                },
                open={
                    "type": "array",
                    "items": _SEAT_NO,
                    "description": "seats left open for invitations; the game starts once they are all claimed",
                },
                rematch_of={"type": "string", "description": "the finished game this one is the rematch of"},
            ),
        ),
        tables.TURN_TIMED_OUT: (
            "A seat's time ran out, or the seat is away: the table makes its timeout move for it (the move's "
            "own events follow, showing what they show; the move itself is the seat's, in the private part)",
            _obj(
                "whose turn timed out and why (a log written before the move was kept private has it here too)",
                ("seat", "reason"),
                seat=_SEAT_NO,
                reason={
                    "enum": ["deadline", "absent"],
                    "description": "deadline: its turn clock ran out; absent: the seat is marked away and the "
                    "table plays for it at once",
                },
                move=move,
            ),
        ),
        tables.DEAL_REVEALED: (
            "A finished deal's cards are published, so that anyone can check the commitment its deal made",
            {
                "description": "the deal's secret, now public; or, to a seat of a duplicate round's table while "
                "another table of the round has not played the same deal out, the reveal without its deck "
                "(the event then says redacted)",
                "oneOf": [
                    _obj(
                        "the deal's secret, now public",
                        ("deal_version", "commitment", "salt", "deck"),
                        deal_version={
                            "type": "integer",
                            "minimum": 1,
                            "description": "the version of the deal's event",
                        },
                        commitment={
                            "type": "string",
                            "pattern": "^[0-9a-f]{64}$",
                            "description": "the SHA-256 the deal published: hex of SHA-256 over the UTF-8 of "
                            "salt + '|' + the deck as compact JSON (no spaces, keys sorted), the deck as shown here "
                            "(card codes); recompute it to check the deal",
                        },
                        salt={"type": "string", "description": "the salt the commitment was made with"},
                        deck=deck,
                    ),
                    _obj(
                        "the reveal as an embargoed seat gets it: which deal, and that its cards are held back",
                        ("deal_version", "embargoed"),
                        deal_version={
                            "type": "integer",
                            "minimum": 1,
                            "description": "the version of the deal's event",
                        },
                        embargoed={"const": True, "description": "the deck is held back for now"},
                    ),
                ],
            },
        ),
        tables.GAME_FROZEN: (
            "A reviewer freezes the game: moves are refused until a ruling unfreezes it",
            _obj("why", ("reason",), reason=_REASON),
        ),
        tables.GAME_UNFROZEN: (
            "A reviewer unfreezes the game (an early log's event: rulings now unfreeze)",
            _obj("why", (), reason=_REASON),
        ),
        tables.NOTE_ADDED: (
            "A reviewer's note on the record, about one version of the log",
            _obj(
                "the note",
                ("at_version", "text"),
                at_version={"type": "integer", "minimum": 1, "description": "the version the note is about"},
                text={"type": "string", "description": "the note, in the reviewer's words"},
            ),
        ),
        tables.ADJUDICATED: (
            "A reviewer's ruling: the game voided, a result awarded, scores corrected, or the game unfrozen",
            _obj(
                "the ruling",
                ("action", "reason"),
                action={
                    "enum": list(tables.ADJUDICATIONS),
                    "description": "void: the game ends without a result; award: the result is the given "
                    "scores; correct_score: deltas are added to the scores; unfreeze: moves are taken again",
                },
                reason=_REASON,
                result={
                    **_obj(
                        "award: the result awarded",
                        ("scores", "ranking", "winners"),
                        scores={**_SCORE_LIST, "description": "a score per seat"},
                        ranking={"type": "array", "items": _SEAT_NO, "description": "seats, best first"},
                        winners={"type": "array", "items": _SEAT_NO, "description": "the seats with the best score"},
                    )
                },
                deltas={**_SCORE_LIST, "description": "correct_score: what is added to each seat's score"},
                hand={
                    "type": ["integer", "null"],
                    "minimum": 0,
                    "description": "void: the hand that prompted the ruling, for the record",
                },
            ),
        ),
        tables.SEAT_CLAIMED: (
            "A player takes an open seat with its invitation",
            _obj("who took which seat", ("seat", "player"), seat=_SEAT_NO, player=_PLAYER),
        ),
        tables.SEAT_LEFT: (
            "A player leaves: before the start the seat is open again; after it the seat is away for good",
            _obj("who left which seat", ("seat", "player"), seat=_SEAT_NO, player=_PLAYER),
        ),
        tables.REMATCH_CREATED: (
            "The finished game is followed by a rematch with the same players",
            _obj("the rematch", ("game",), game={"type": "string", "description": "the rematch's game id"}),
        ),
        tables.CLOCKS_RESTARTED: (
            "A running game with a clock was imported: its clocks start again, every seat to act given a "
            "fresh turn (its bank kept) from this event's time",
            _obj(
                "why",
                ("reason",),
                reason={"const": "imported", "description": "the game was imported into this service"},
            ),
        ),
        tables.BOT_SEATED: (
            "A bot plays an away player's seat, at the owner's word",
            _obj(
                "which bot plays which seat for whom",
                ("seat", "player", "bot"),
                seat=_SEAT_NO,
                player=_PLAYER,
                bot={"enum": list(tables.BOT_KINDS), "description": "the kind of bot"},
            ),
        ),
    }
    assert set(shapes) == tables.TABLE_EVENTS, "every table event has its shape"
    out = {kind: {"description": text, "data": data, "private": None} for kind, (text, data) in shapes.items()}
    # the timeout move may hold cards only its seat sees (taxes given, a card passed): the seat's own part
    out[tables.TURN_TIMED_OUT]["private"] = {
        "type": "object",
        "description": "seat number (as a string) -> the move the table made for that seat, shown to that seat "
        "and to a caller who sees everything",
        "additionalProperties": _obj("the timeout move", ("move",), move=move),
    }
    # a tournament's table (and a game given a deal seed) keeps the seed of its deals in a secret part, shown
    # only to a caller who sees everything
    out[tables.GAME_CREATED]["private"] = {
        "type": "object",
        "description": "the table's setup secret, for a caller who sees everything; absent when there is none",
        "properties": {
            "setup": {
                "type": "object",
                "description": "how the table's deals are drawn",
                "properties": {
                    "deal_seed": {"type": "string", "description": "the secret the table's deal seeds come from"}
                },
            }
        },
    }
    return out


def _as_shown(private: dict | None) -> dict | None:
    """A secret part's schema as a caller gets it: only the parts it may see (a seat its own, the
    deal's secret to a caller who sees everything), so none of its keys is always there."""
    if private is None:
        return None
    return {k: v for k, v in private.items() if k != "required"}


def event_schemas(game_id: str) -> dict[str, dict]:
    """Every event type of a game, its own and the table's: ``{"description", "data", "private"}``, the
    JSON Schemas of its public part and of its secret part as a caller gets it (None: it never has one),
    cards as codes."""
    own = {
        kind: {**shape, "private": _as_shown(shape["private"])}
        for kind, shape in notation(game_id).EVENT_SCHEMAS.items()
    }
    return {**own, **table_event_schemas(game_id)}


def label_move(game_id: str, view: dict, seat: int, move: dict, lang: str = "en") -> str:
    """One sentence for a legal move, written for the seat that may make it (from its own view)."""
    return notation(game_id).label_move(view, seat, move, lang)


def describe(game_id: str) -> dict:
    """A game as GET /game-types/{game} shows it: its deck and card codes, phases, roles, moves
    (each with a JSON Schema) and the types of its events."""
    module, words = registry.get(game_id), notation(game_id)
    return {
        "id": game_id,
        "title": module.TITLE,
        "rules_version": module.RULES_VERSION,
        "min_players": module.MIN_PLAYERS,
        "max_players": module.MAX_PLAYERS,
        "card_pattern": words.CARD_PATTERN,
        "deck": words.deck(None),
        "phases": list(words.PHASES),
        "roles": list(words.ROLES),
        "moves": [{"type": kind, **spec} for kind, spec in words.MOVES.items()],
        "events": sorted({*words.EVENT_TYPES, *tables.TABLE_EVENTS}),
        "languages": list(LANGUAGES),
        "view_schema": words.VIEW_SCHEMA,
        "event_schemas": event_schemas(game_id),
    }
