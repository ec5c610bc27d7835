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
    }
