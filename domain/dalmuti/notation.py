"""El Gran Dalmuti in words and card codes, for clients that show the game to people.

Card codes: a rank is written as it is printed, ``1`` (the Dalmuti, the best
card) to ``12`` (the Peasants), and a jester is ``JS``.  The rules work on
their own value of a card, an int: the rank, or 13 for a jester (see
``domain.dalmuti.cards``).  Identical copies (the twelve 12s, the two jesters)
are the same value and share one code.

Everything the game shows or keeps writes cards as codes: the API (views,
legal moves, the move schemas of ``MOVES``), the moves posted and the stored
log (events and their private parts).  ``domain.wire`` translates at that one
place, from where this module says the cards are: ``MOVES`` marks every card
of a move ``x-naipes-card``, ``VIEW_CARDS`` lists the paths of the cards in a
view, ``EVENT_CARDS`` those of each event type, and ``DECK_CARDS`` those inside
a deal's deck (a flat list of cards).  A path is dot-separated steps: a key of
an object, an index of a list (the seating draw's ``[seat, card]`` pairs), or
``*`` for every element of a list or every value of an object; it ends at a
card.  A rank (``rank`` of a play, ``beat_rank``) is a number, not a card, and
stays one.

Labels are short sentences in English and Spanish (``lang`` ``"en"`` or
``"es"``); the Spanish uses the terms of the Spanish edition of the rules
(Bufón, rango, ronda, impuestos, revolución, Gran Dalmuti, Pequeño Peón ...).
``label_event`` reads only an event's public ``data``; it is never given a
private part, so it tells nothing a spectator may not know.

Nothing of the game imports this module: the service imports it directly.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from domain.dalmuti.about import OPTIONS
from domain.dalmuti.about import ROLES as ROLE_IDS
from domain.dalmuti.cards import JESTER, deck_for, set_rank
from domain.phrases import check_language, join, seat_name

CARD_PATTERN = r"^(?:[1-9]|1[0-2]|JS)$"
_CARD_RE = re.compile(CARD_PATTERN)
JESTER_CODE = "JS"

# Card names: the Spanish edition's words (its table of ranks) and the English edition's.
_NAMES: dict[int, tuple[str, str]] = {
    1: ("Dalmuti", "Dalmuti"),
    2: ("Archbishop", "Arzobispo"),
    3: ("Earl Marshal", "Sherif"),
    4: ("Baroness", "Baronesa"),
    5: ("Abbess", "Abadesa"),
    6: ("Knight", "Caballero"),
    7: ("Seamstress", "Costurera"),
    8: ("Mason", "Albañil"),
    9: ("Cook", "Cocinera"),
    10: ("Shepherdess", "Pastora"),
    11: ("Stonecutter", "Picapedrero"),
    12: ("Peasant", "Campesino"),
    JESTER: ("Jester", "Bufón"),
}


# ------------------------------------------------------------------ cards


def code(card: Any) -> str:
    """The code of a card value: ranks 1..12 as they are, 13 (a jester) as ``JS``."""
    if isinstance(card, bool) or not isinstance(card, int) or not 1 <= card <= JESTER:
        raise ValueError(f"{card!r} is no El Gran Dalmuti card: cards are ranks 1..12 or 13 for a jester")
    return JESTER_CODE if card == JESTER else str(card)


def card(code_: Any) -> int:
    """The card value of a code (``"8"`` -> 8, ``"JS"`` -> 13); ValueError for anything else."""
    if not isinstance(code_, str) or not _CARD_RE.fullmatch(code_):
        raise ValueError(f"{code_!r} is no El Gran Dalmuti card code (codes match {CARD_PATTERN})")
    return JESTER if code_ == JESTER_CODE else int(code_)


def deck(options: dict | None = None, players: int | None = None) -> list[dict]:
    """Every distinct card, best first, the jester last.

    Option ``reduced_deck`` removes the 12s at a table of 5 and the 12s and 11s
    at a table of 4; the deck is chosen at each deal from that hand's player
    count (a newcomer can change it).  So without ``players`` this lists every
    card a game with these options can deal (all thirteen, ``copies`` as in the
    full deck of 80); with ``players`` (a player count) exactly the deck dealt
    at such a table.  ``rank`` of the jester is ``"13"``, its rank played alone.
    """
    reduced = bool((options or {}).get("reduced_deck", False))
    counts = Counter(deck_for(players if players is not None else 16, reduced))
    out = []
    for value in sorted(counts):
        en, es = _NAMES[value]
        out.append(
            {
                "code": code(value),
                "id": value,
                "suit": None,
                "rank": str(value),
                "name": {"en": en, "es": es},
                "colour": "multicolour",
                "copies": counts[value],
            }
        )
    return out


# ------------------------------------------------------------------ phases, roles, moves

PHASES: list[dict] = [
    {
        "id": "created",
        "name": {"en": "Not started", "es": "Sin empezar"},
        "description": {
            "en": "The players are at the table; the seating draw has not been made yet.",
            "es": "Los jugadores están en la mesa; aún no se han sorteado los asientos.",
        },
    },
    {
        "id": "placing",
        "name": {"en": "Placing newcomers", "es": "Colocar a los recién llegados"},
        "description": {
            "en": "Before the next deal the Greater Dalmuti seats each newcomer among the Merchants, halfway "
            "down the table.",
            "es": "Antes del siguiente reparto, el Gran Dalmuti sienta a cada recién llegado entre los "
            "Comerciantes, a medio camino de la mesa.",
        },
    },
    {
        "id": "revolution",
        "name": {"en": "Revolution", "es": "Revolución"},
        "description": {
            "en": "After the deal every player answers whether it declares a revolution; only a player "
            "dealt both jesters may (the Greater Peon's is a greater revolution).",
            "es": "Tras el reparto cada jugador responde si declara una revolución; sólo puede quien haya "
            "recibido los dos Bufones (la del Gran Peón es una gran revolución).",
        },
    },
    {
        "id": "taxes",
        "name": {"en": "Taxes", "es": "Impuestos"},
        "description": {
            "en": "The Greater Dalmuti chooses 2 cards for the Greater Peon and the Lesser Dalmuti 1 for "
            "the Lesser Peon; the Peons pay their best cards. With the option, the highest Merchant may "
            "swap a random card with another Merchant.",
            "es": "El Gran Dalmuti elige 2 cartas para el Gran Peón y el Pequeño Dalmuti 1 para el "
            "Pequeño Peón; los Peones entregan sus mejores cartas. Con la opción, el Comerciante de "
            "mayor estatus puede intercambiar una carta al azar con otro Comerciante.",
        },
    },
    {
        "id": "play",
        "name": {"en": "Play", "es": "Juego"},
        "description": {
            "en": "Tricks: the leader plays a set of one rank; each next player plays as many cards of a "
            "better (lower) rank or passes. Playing your last card takes you out.",
            "es": "Rondas: quien tiene el turno juega un conjunto de cartas del mismo rango; los demás "
            "juegan el mismo número de cartas de mejor (más bajo) rango o pasan. Quien juega su última "
            "carta sale del juego.",
        },
    },
    {
        "id": "between_hands",
        "name": {"en": "Between hands", "es": "Entre manos"},
        "description": {
            "en": "A hand has ended and the next one is being dealt (only for an instant).",
            "es": "Ha terminado una mano y se reparte la siguiente (sólo un instante).",
        },
    },
    {
        "id": "finished",
        "name": {"en": "Finished", "es": "Terminada"},
        "description": {
            "en": "The match is over.",
            "es": "La partida ha terminado.",
        },
    },
]

_ROLE_NAMES: dict[str, tuple[str, str]] = {
    "greater_dalmuti": ("Greater Dalmuti", "Gran Dalmuti"),
    "lesser_dalmuti": ("Lesser Dalmuti", "Pequeño Dalmuti"),
    "merchant": ("Merchant", "Comerciante"),
    "lesser_peon": ("Lesser Peon", "Pequeño Peón"),
    "greater_peon": ("Greater Peon", "Gran Peón"),
}

ROLES: list[dict] = [{"id": r, "name": {"en": _ROLE_NAMES[r][0], "es": _ROLE_NAMES[r][1]}} for r in ROLE_IDS]

_SCHEMA = "https://json-schema.org/draft/2020-12/schema"
_CARD_ITEM = {"type": "string", "pattern": CARD_PATTERN, "x-naipes-card": True}
_SEAT = {"type": "integer", "minimum": 0, "maximum": 15}


def _schema(type_: str, **fields: dict) -> dict:
    return {
        "$schema": _SCHEMA,
        "type": "object",
        "properties": {"type": {"const": type_}, **fields},
        "required": ["type", *fields],
        "additionalProperties": False,
    }


MOVES: dict[str, dict] = {
    "play": {
        "description": {
            "en": "Play a set: cards of one rank plus any jesters (jesters alone are rank 13); when following, "
            "as many cards as the last play and a better (lower) rank.",
            "es": "Jugar un conjunto: cartas de un mismo rango y los Bufones que se quiera (los Bufones solos "
            "son rango 13); si no se abre la ronda, tantas cartas como la última jugada y de mejor (más bajo) rango.",
        },
        "schema": _schema(
            "play",
            cards={
                "type": "array",
                "minItems": 1,
                "maxItems": 14,
                "items": _CARD_ITEM,
                "description": "the cards of the set (card codes)",
            },
        ),
    },
    "pass": {
        "description": {
            "en": "Pass; you may still play later in the same trick.",
            "es": "Pasar; aún se puede jugar más tarde en la misma ronda.",
        },
        "schema": _schema("pass"),
    },
    "declare_revolution": {
        "description": {
            "en": "Declare a revolution (only with both jesters): no taxes this hand; declared by the Greater "
            "Peon it is a greater revolution and the order is reversed.",
            "es": "Declarar una revolución (sólo con los dos Bufones): no se pagan impuestos en esta mano; si la "
            "declara el Gran Peón es una gran revolución y el orden se invierte.",
        },
        "schema": _schema("declare_revolution"),
    },
    "decline_revolution": {
        "description": {
            "en": "Declare no revolution (every player answers after each deal).",
            "es": "No declarar ninguna revolución (todos responden tras cada reparto).",
        },
        "schema": _schema("decline_revolution"),
    },
    "give_taxes": {
        "description": {
            "en": "The Greater Dalmuti chooses 2 cards to give the Greater Peon, the Lesser Dalmuti 1 for the "
            "Lesser Peon.",
            "es": "El Gran Dalmuti elige 2 cartas para entregar al Gran Peón; el Pequeño Dalmuti, 1 para el "
            "Pequeño Peón.",
        },
        "schema": _schema(
            "give_taxes",
            cards={
                "type": "array",
                "minItems": 1,
                "maxItems": 2,
                "items": _CARD_ITEM,
                "description": "the cards given (card codes)",
            },
        ),
    },
    "merchant_exchange": {
        "description": {
            "en": "The highest Merchant swaps one random card with another Merchant (option merchant_exchange).",
            "es": "El Comerciante de mayor estatus intercambia una carta al azar con otro Comerciante "
            "(opción merchant_exchange).",
        },
        "schema": _schema("merchant_exchange", **{"with": {**_SEAT, "description": "the other Merchant's seat"}}),
    },
    "decline_exchange": {
        "description": {
            "en": "The highest Merchant makes no exchange.",
            "es": "El Comerciante de mayor estatus no hace ningún cambio.",
        },
        "schema": _schema("decline_exchange"),
    },
    "place_newcomer": {
        "description": {
            "en": "The Greater Dalmuti seats a newcomer among the Merchants, halfway between the Greater "
            "Dalmuti and the Greater Peon: slot 0 is just after the Lesser Dalmuti.",
            "es": "El Gran Dalmuti sienta a un recién llegado entre los Comerciantes, a medio camino entre el "
            "Gran Dalmuti y el Gran Peón: el hueco 0 está justo después del Pequeño Dalmuti.",
        },
        "schema": _schema(
            "place_newcomer",
            newcomer={**_SEAT, "description": "the newcomer's seat"},
            slot={
                "type": "integer",
                "minimum": 0,
                "maximum": 11,
                "description": "0 just after the Lesser Dalmuti; one of the view's must.allowed_slots",
            },
        ),
    },
}

EVENT_TYPES: tuple[str, ...] = (
    "SeatsDrawn",
    "PlayerJoined",
    "NewcomerPlaced",
    "HandDealt",
    "RevolutionAnswered",
    "RevolutionDeclared",
    "RevolutionDeclined",
    "TaxChosen",
    "MerchantsExchanged",
    "ExchangeDeclined",
    "TaxesPaid",
    "Played",
    "Passed",
    "TrickEnded",
    "HandEnded",
    "MatchEnded",
)

# Where the cards are (see the module's docstring and ``domain.wire``).
VIEW_CARDS: tuple[str, ...] = (
    "hand.*",  # a seat's own hand
    "trick.cards.*",  # the last play of the trick
    "seating_draw.*.*.1",  # rounds of [seat, card]
    "transfers.*.gave.*",  # a seat's own taxes and exchange this hand
    "transfers.*.received.*",
    "tax.chosen.*",  # the Dalmuti's own tax choice
    "hands.*.*",  # the reviewer: every hand
    "transfers_all.*.*.gave.*",  # the reviewer: every seat's transfers
    "transfers_all.*.*.received.*",
    "tax_chosen.*.*",  # the reviewer: every tax choice
)

EVENT_CARDS: dict[str, tuple[str, ...]] = {
    "SeatsDrawn": ("data.draws.*.*.1",),  # rounds of [seat, card]
    "PlayerJoined": (),
    "NewcomerPlaced": (),
    "HandDealt": ("private.*.hand.*",),  # the deck of private.deal: DECK_CARDS
    "RevolutionAnswered": (),
    "RevolutionDeclared": (),
    "RevolutionDeclined": (),
    "TaxChosen": ("private.*.cards.*",),
    "MerchantsExchanged": ("private.*.gave.*", "private.*.received.*"),
    "ExchangeDeclined": (),
    "TaxesPaid": ("private.*.gave.*", "private.*.received.*"),
    "Played": ("data.cards.*",),
    "Passed": (),
    "TrickEnded": (),
    "HandEnded": (),
    "MatchEnded": (),
}

DECK_CARDS = "*"  # a deal's deck (private.deal.deck, DealRevealed data.deck) is a flat list of cards


# ------------------------------------------------------------------ shapes
# The JSON Schemas (2020-12) of what the API shows, cards written as codes: ``VIEW_SCHEMA`` the view
# (``GET /games/{id}`` ``state``) for any viewer (a seat, the spectator, the reviewer) in any phase,
# and ``EVENT_SCHEMAS`` every event type's public ``data`` and whole secret ``private`` part.  Cards
# sit where ``VIEW_CARDS`` / ``EVENT_CARDS`` / ``DECK_CARDS`` say, each one a ``_CARD_ITEM``.

_MAX_HAND = 20  # 80 cards dealt to 4 players; taxes and the exchange keep every hand's size
_MAX_SET = 14  # twelve 12s and both jesters
_HEX32 = r"^[0-9a-f]{32}$"
_HEX64 = r"^[0-9a-f]{64}$"
_PHASE_IDS = [p["id"] for p in PHASES]


def _d(schema: dict, description: str) -> dict:
    return {**schema, "description": description}


def _int(description: str, low: int | None = 0, high: int | None = None, null: bool = False) -> dict:
    out: dict[str, Any] = {"type": ["integer", "null"] if null else "integer"}
    if low is not None:
        out["minimum"] = low
    if high is not None:
        out["maximum"] = high
    return _d(out, description)


def _seat_no(description: str, null: bool = False) -> dict:
    return _int(description, 0, 15, null)


def _bool(description: str) -> dict:
    return {"type": "boolean", "description": description}


def _list(items: dict, description: str, low: int = 0, high: int | None = None) -> dict:
    out: dict[str, Any] = {"type": "array", "items": items, "description": description}
    if low:
        out["minItems"] = low
    if high is not None:
        out["maxItems"] = high
    return out


def _seat_list(description: str, low: int = 0, high: int = 16) -> dict:
    return _list(_seat_no("a seat number"), description, low, high)


def _per_seat(items: dict, description: str) -> dict:
    """A list with one entry per seat, in seat order (4 to 16 seats)."""
    return _list(items, description, 4, 16)


def _card_list(description: str, low: int = 0, high: int | None = None) -> dict:
    return _list(_CARD_ITEM, description, low, high)


def _obj(properties: dict, description: str, required: list[str] | None = None, null: bool = False) -> dict:
    """An object of fixed keys; ``required`` None: all of them."""
    return {
        "type": ["object", "null"] if null else "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
        "additionalProperties": False,
        "description": description,
    }


def _by_seat(value: dict, description: str) -> dict:
    return {
        "type": "object",
        "additionalProperties": value,
        "description": f"seat number (as a string) -> {description}",
    }


def _variant(properties: dict, description: str, required: list[str] | None = None) -> dict:
    """One shape of an object that has several (an ``anyOf`` branch under a nullable object type)."""
    return {
        "properties": properties,
        "required": list(properties) if required is None else required,
        "additionalProperties": False,
        "description": description,
    }


_ROLE_ENUM = list(ROLE_IDS)
_ORDER_DESC = "the seats clockwise from the Greater Dalmuti (position 0) to the Greater Peon (the last)"

_DRAW_ROUNDS = _list(
    _list(
        {
            "type": "array",
            "minItems": 2,
            "maxItems": 2,
            "items": {"anyOf": [_seat_no("the seat that drew"), _d(_CARD_ITEM, "the card it drew (card code)")]},
            "description": "[seat, card]: a seat and the card it drew (a jester counts 13 here, the worst)",
        },
        "one round of the draw: [seat, card] pairs, in the order drawn",
        1,
        16,
    ),
    "the seating draw: the first round is every seat's draw, each later round a redraw among seats that tied "
    "(depth-first, best tied group first); the best card becomes the Greater Dalmuti",
)

_OUTCOME_PROPS = {
    "scores": _per_seat(_int("points"), "the match's total points per seat, in seat order"),
    "ranking": _seat_list("every seat, the winner first (equal points are ranked by the final hand's order)", 4),
    "winners": _seat_list("the winning seat (always exactly one: ties are broken)", 1, 1),
    "hands_played": _int("the number of hands dealt in the match", 1, 100),
    "last_order": _seat_list(
        "the final hand's order of going out, the first out first (a seat that never played a hand is absent)"
    ),
}

_TRANSFER = _obj(
    {
        "kind": {
            "type": "string",
            "enum": ["tax", "exchange"],
            "description": "tax: the taxes between a Dalmuti and its Peon; exchange: the Merchants' exchange",
        },
        "with": _seat_no("the other seat of the transfer"),
        "gave": _card_list("the cards this seat gave (card codes)", 1, 2),
        "received": _card_list("the cards this seat received (card codes)", 1, 2),
    },
    "one transfer of cards this hand",
)

_OPTION_VALUES = _obj(
    {
        name: {k: v for k, v in spec.items() if k in ("type", "minimum", "maximum", "description")}
        for name, spec in OPTIONS["properties"].items()
    },
    "the match's options, every one with its value (defaults filled in); see GET /game-types/dalmuti",
)

_MUST = {
    "type": ["object", "null"],
    "anyOf": [
        _variant(
            {
                "action": {"const": "play", "description": "play a set or pass (phase play)"},
                "leading": {"const": True, "description": "true: you lead a new trick (any set; you cannot pass)"},
            },
            "leading a trick",
        ),
        _variant(
            {
                "action": {"const": "play", "description": "play a set or pass (phase play)"},
                "leading": {"const": False, "description": "false: you follow the last play of the trick"},
                "count": _int("the number of cards you must play, as many as the last play", 1, _MAX_SET),
                "beat_rank": _int("the rank to beat: your set's rank must be lower (better) than this", 1, 13),
            },
            "following in a trick",
        ),
        _variant(
            {
                "action": {"const": "revolution", "description": "answer the revolution question (phase revolution)"},
                "greater": _bool("true when you are the Greater Peon: a revolution you declare is a greater one"),
                "may_declare": _bool(
                    "true when you hold both jesters and may declare (rules 2 and 3; absent in games of rules 1, "
                    "where only the holder is asked)"
                ),
            },
            "the revolution question",
            ["action", "greater"],
        ),
        _variant(
            {
                "action": {"const": "give_taxes", "description": "choose the cards to give your Peon (phase taxes)"},
                "count": _int("how many cards to choose: 2 (Greater Dalmuti) or 1 (Lesser Dalmuti)", 1, 2),
                "to": _seat_no("the Peon who receives them"),
            },
            "a Dalmuti's taxes",
        ),
        _variant(
            {
                "action": {
                    "const": "merchant_exchange",
                    "description": "swap a random card with another Merchant or decline (phase taxes, option "
                    "merchant_exchange)",
                },
                "merchants": _seat_list("the other Merchants you may exchange with", 1, 11),
            },
            "the highest Merchant's exchange",
        ),
        _variant(
            {
                "action": {
                    "const": "place_newcomer",
                    "description": "seat a newcomer among the Merchants (phase placing)",
                },
                "newcomers": _seat_list("the newcomers still waiting to be placed", 1, 12),
                "slots": _int("the number of slots: slot 0 is just after the Lesser Dalmuti", 1, 12),
                "allowed_slots": _list(
                    _int("a slot", 0, 11),
                    "the slots you may choose now: halfway between the Greater Dalmuti and the Greater Peon "
                    "(rules 3; every slot in games of rules 1 and 2)",
                    1,
                    12,
                ),
            },
            "placing newcomers",
        ),
    ],
    "description": "a seat's view: what this seat has to decide now (by action); null when it does not act",
}

_TAX = {
    "type": ["object", "null"],
    "anyOf": [
        _variant(
            {
                "gives": _int("how many cards this seat gives: 2 (Greater Dalmuti) or 1 (Lesser Dalmuti)", 1, 2),
                "to": _seat_no("the Peon who receives them"),
                "chooses": {"const": True, "description": "true: a Dalmuti chooses the cards it gives"},
                "chosen": {
                    **_card_list("the cards this seat chose (card codes); null until it has chosen", 1, 2),
                    "type": ["array", "null"],
                },
            },
            "a Dalmuti's part",
        ),
        _variant(
            {
                "gives": _int("how many cards this seat pays: 2 (Greater Peon) or 1 (Lesser Peon)", 1, 2),
                "to": _seat_no("the Dalmuti who receives them"),
                "chooses": {
                    "const": False,
                    "description": "false: a Peon chooses nothing; its best cards are taken when the taxes resolve",
                },
            },
            "a Peon's part",
        ),
    ],
    "description": "a seat's view, phase taxes: this seat's part in the taxes; null for a Merchant, a seat "
    "outside the hand and in every other phase",
}

VIEW_SCHEMA: dict = {
    "$schema": _SCHEMA,
    **_obj(
        {
            "game": {"const": "dalmuti", "description": "the game type"},
            "rules_version": {
                "type": "string",
                "enum": ["1", "2", "3"],
                "description": "the rules version the match is played under (3 seats a newcomer halfway "
                "between the Greater Dalmuti and the Greater Peon, where 1 and 2 allowed any Merchant slot; "
                "2 and 3 ask every seat the revolution question; 1 asked only the holder of both jesters)",
            },
            "phase": {
                "type": "string",
                "enum": _PHASE_IDS,
                "description": "created (before the seating draw), placing (newcomers are seated), revolution, "
                "taxes, play, between_hands (only for an instant), finished",
            },
            "hand_no": _int("the number of the hand being played, from 1; 0 before the first deal", 0, 100),
            "hands_total": _int("the number of hands in the match (option hands)", 1, 100),
            "players": _per_seat({"type": "string", "description": "a player's name"}, "player names by seat"),
            "options": _OPTION_VALUES,
            "order": _seat_list(f"this hand's table order: {_ORDER_DESC}; empty before the seating draw"),
            "roles": _per_seat(
                {
                    "type": ["string", "null"],
                    "enum": [*_ROLE_ENUM, None],
                    "description": "the seat's role this hand; null for a seat not in the order (a newcomer "
                    "waiting, or before the draw)",
                },
                "each seat's role, in seat order",
            ),
            "hand_sizes": _per_seat(_int("cards in hand", 0, _MAX_HAND), "the number of cards each seat holds"),
            "deck_size": {
                "type": "integer",
                "enum": [0, 57, 68, 80],
                "description": "the number of cards dealt this hand: 80, or 68 / 57 with option reduced_deck "
                "at 5 / 4 players; 0 before the first deal",
            },
            "discards": _int("the number of cards played so far this hand", 0, 80),
            "trick": _obj(
                {
                    "seat": _seat_no("the seat that made the last play"),
                    "cards": _card_list("the cards of the last play (card codes)", 1, _MAX_SET),
                    "rank": _int("the rank of the last play (13: jesters alone); a following set must be lower", 1, 13),
                    "count": _int("the number of cards of the last play; a following set has as many", 1, _MAX_SET),
                },
                "the last play of the current trick; null when a new trick is to be led and outside phase play",
                null=True,
            ),
            "passes": _int("the consecutive passes since the last play of the trick", 0, 14),
            "turn": _seat_no("phase play: the seat whose turn it is to play or pass; null in other phases", True),
            "to_act": _seat_list(
                "the seats that must decide now (revolution: every seat still to answer; taxes: the Dalmutis "
                "still to choose and the highest Merchant; play: the seat to play; placing: the Greater Dalmuti)"
            ),
            "pending": _obj(
                {
                    "revolution": _seat_list("phase revolution: the seats still to answer; empty otherwise"),
                    "taxes": _seat_list("phase taxes: the Dalmutis still to choose their cards; empty otherwise", 0, 2),
                    "taxes_chosen": _seat_list("phase taxes: the Dalmutis that have chosen (not what)", 0, 2),
                    "exchange": _seat_no(
                        "phase taxes: the highest Merchant still to decide on the Merchants' exchange; null otherwise",
                        True,
                    ),
                    "placing": _seat_no("phase placing: the Greater Dalmuti, who seats the newcomers; else null", True),
                },
                "who the match waits for, by decision",
            ),
            "out_order": _seat_list("this hand's seats that have gone out, the first out first"),
            "hand_points": _per_seat(
                _int("points", 0, 16),
                "the points each seat scored this hand (after the hand: including the philanthropic point)",
            ),
            "scores": _per_seat(_int("points"), "each seat's total points in the match so far"),
            "revolution": _obj(
                {
                    "kind": {
                        "type": "string",
                        "enum": ["revolution", "greater", "first_deal"],
                        "description": "revolution: declared, no taxes; greater: declared by the Greater Peon, the "
                        "order reversed; first_deal: the automatic revolution of the first hand (option "
                        "first_deal_revolution)",
                    },
                    "seat": _seat_no("the seat that declared; null for first_deal", True),
                },
                "the revolution of the current (or last) hand; null when there was none",
                null=True,
            ),
            "exchange": _obj(
                {
                    "seat": _seat_no("the highest Merchant, who decided"),
                    "with": _seat_no("the Merchant it swapped a random card with; null when it declined", True),
                },
                "the Merchants' exchange of this hand once decided (option merchant_exchange); null before or "
                "without one",
                null=True,
            ),
            "newcomers": _seat_list("seats that joined and wait to be placed at the next deal (option allow_joining)"),
            "seating_draw": {
                **_DRAW_ROUNDS,
                "description": "the seating draw made at the start (empty before it): " + _DRAW_ROUNDS["description"],
            },
            "last_hand": _obj(
                {
                    "hand": _int("the hand's number", 1, 100),
                    "order": _seat_list(f"that hand's table order: {_ORDER_DESC}", 4),
                    "out_order": _seat_list("that hand's order of going out, the first out first", 4),
                    "points": _per_seat(_int("points", 0, 16), "the points each seat scored in that hand"),
                    "bonus": _per_seat(
                        _int("philanthropic point", 0, 1),
                        "the philanthropic point each seat earned in that hand (option philanthropic_scoring)",
                    ),
                },
                "the result of the hand last ended; null until a hand ends",
                null=True,
            ),
            "outcome": _obj(_OUTCOME_PROPS, "the result of the match; null until phase finished", null=True),
            "seat": _seat_no("a seat's view: the viewer's own seat; absent for the spectator and the reviewer"),
            "role": {
                "type": ["string", "null"],
                "enum": [*_ROLE_ENUM, None],
                "description": "a seat's view: the viewer's role this hand; null when it is not in the order",
            },
            "hand": _card_list("a seat's view: the viewer's own cards, best first (card codes)", 0, _MAX_HAND),
            "transfers": _list(
                _TRANSFER,
                "a seat's view: the cards this seat gave and received this hand (taxes, exchange), in order",
                0,
                1,
            ),
            "must": _MUST,
            "tax": _TAX,
            "revolution_answer": {
                "type": ["boolean", "null"],
                "description": "a seat's view, phase revolution (rules 2 and 3): true if this seat declared, false if "
                "it declined, null until it answers",
            },
            "hands": _per_seat(
                _card_list("a seat's cards, best first (card codes)", 0, _MAX_HAND),
                "the reviewer's view: every seat's cards",
            ),
            "transfers_all": _by_seat(
                _list(_TRANSFER, "that seat's transfers this hand", 1, 1),
                "the reviewer's view: that seat's transfers this hand (seats without any are absent)",
            ),
            "tax_chosen": _by_seat(
                _card_list("the cards that Dalmuti chose (card codes)", 1, 2),
                "the reviewer's view, phase taxes: the cards a Dalmuti chose to give",
            ),
            "revolution_answers": _by_seat(
                _bool("true: declared a revolution; false: declined"),
                "the reviewer's view, phase revolution: each answer given so far",
            ),
        },
        "El Gran Dalmuti as a viewer sees it: a seat sees its own hand; the reviewer sees every hand",
        required=[
            "game",
            "rules_version",
            "phase",
            "hand_no",
            "hands_total",
            "players",
            "options",
            "order",
            "roles",
            "hand_sizes",
            "deck_size",
            "discards",
            "trick",
            "passes",
            "turn",
            "to_act",
            "pending",
            "out_order",
            "hand_points",
            "scores",
            "revolution",
            "exchange",
            "newcomers",
            "seating_draw",
            "last_hand",
            "outcome",
        ],
    ),
}


def _event(description: str, data: dict, private: dict | None = None) -> dict:
    return {"description": description, "data": data, "private": private}


EVENT_SCHEMAS: dict[str, dict] = {
    "SeatsDrawn": _event(
        "The seating draw: every player drew a card (ties drew again); the best card is the Greater Dalmuti",
        _obj(
            {
                "draws": _DRAW_ROUNDS,
                "order": _seat_list(f"the first hand's table order: {_ORDER_DESC}", 4),
            },
            "the seating draw",
        ),
    ),
    "PlayerJoined": _event(
        "A newcomer joined the table; it is seated among the Merchants before the next deal",
        _obj(
            {
                "seat": _seat_no("the newcomer's seat (the next seat number)"),
                "player": {"type": "string", "description": "the newcomer's name"},
            },
            "the newcomer",
        ),
    ),
    "NewcomerPlaced": _event(
        "The Greater Dalmuti seated a newcomer among the Merchants",
        _obj(
            {
                "seat": _seat_no("the Greater Dalmuti, who placed the newcomer"),
                "newcomer": _seat_no("the newcomer's seat"),
                "slot": _int(
                    "the slot chosen: 0 just after the Lesser Dalmuti, the last just before the Lesser Peon", 0, 11
                ),
                "order": _seat_list(f"the table order with the newcomer: {_ORDER_DESC}", 5),
            },
            "the placement",
        ),
    ),
    "HandDealt": _event(
        "A new hand was dealt: each player received its cards face down",
        _obj(
            {
                "hand": _int("the number of the hand, from 1", 1, 100),
                "order": _seat_list(f"this hand's table order: {_ORDER_DESC}", 4),
                "dealer": _seat_no("the dealer, the Greater Peon"),
                "deck_size": {
                    "type": "integer",
                    "enum": [57, 68, 80],
                    "description": "the number of cards dealt: 80, or 68 / 57 with option reduced_deck at 5 / 4 "
                    "players",
                },
                "sizes": _per_seat(_int("cards dealt", 0, _MAX_HAND), "the cards dealt to each seat, in seat order"),
                "auto_revolution": _bool(
                    "true: the first hand's automatic revolution (option first_deal_revolution): no taxes"
                ),
                "commitment": {
                    "type": "string",
                    "pattern": _HEX64,
                    "description": "SHA-256 (hex) committing to the deck before play; the deck is revealed when "
                    "the hand is over",
                },
                "jesters_seat": _seat_no(
                    "rules 1 only (absent in rules 2 and 3): the seat holding both jesters that may declare a "
                    "revolution; null if none",
                    True,
                ),
            },
            "the deal's public part",
            ["hand", "order", "dealer", "deck_size", "sizes", "auto_revolution", "commitment"],
        ),
        {
            "type": "object",
            "properties": {
                "deal": _obj(
                    {
                        "salt": {"type": "string", "pattern": _HEX32, "description": "the commitment's salt"},
                        "deck": _card_list("the whole deck in the order it was dealt (card codes)", 57, 80),
                    },
                    "the deck and salt behind the commitment: no seat receives it; revealed when the hand is over",
                ),
            },
            "required": ["deal"],
            "additionalProperties": _obj(
                {"hand": _card_list("the seat's cards, best first (card codes)", 1, _MAX_HAND)},
                "a seat's part: its hand",
            ),
            "description": "seat number (as a string) -> that seat's hand; and deal: the deck and salt",
        },
    ),
    "RevolutionAnswered": _event(
        "A player answered the revolution question (whether it declared is secret until everyone has answered)",
        _obj({"seat": _seat_no("the seat that answered")}, "who answered"),
        _by_seat(
            _obj(
                {
                    "declare": _bool("true: the seat declared a revolution; false: it declined"),
                    "salt": {
                        "type": "string",
                        "pattern": _HEX32,
                        "description": "random salt so the answer cannot be guessed from the event hash",
                    },
                },
                "the answer",
            ),
            "the answering seat's secret answer (only that seat)",
        ),
    ),
    "RevolutionDeclared": _event(
        "A player holding both jesters declared a revolution: no taxes this hand; by the Greater Peon it is a "
        "greater revolution and the order is reversed",
        _obj(
            {
                "seat": _seat_no("the seat that declared"),
                "greater": _bool("true: a greater revolution (declared by the Greater Peon), the order reversed"),
                "order": _seat_list(f"this hand's table order from now on: {_ORDER_DESC}", 4),
            },
            "the revolution",
        ),
    ),
    "RevolutionDeclined": _event(
        "Nobody declared a revolution: the taxes follow (or play, after the first hand's automatic revolution)",
        _obj(
            {"seat": _seat_no("rules 1 only: the holder of both jesters, who declined; absent in rules 2 and 3")},
            "empty in rules 2 and 3",
            [],
        ),
    ),
    "TaxChosen": _event(
        "A Dalmuti chose the cards it gives its Peon (which cards is secret)",
        _obj(
            {
                "seat": _seat_no("the Dalmuti that chose"),
                "count": _int("the number of cards chosen: 2 (Greater Dalmuti) or 1 (Lesser Dalmuti)", 1, 2),
            },
            "who chose",
        ),
        _by_seat(
            _obj({"cards": _card_list("the cards chosen (card codes)", 1, 2)}, "the choice"),
            "the chooser's cards (only the chooser's seat)",
        ),
    ),
    "MerchantsExchanged": _event(
        "The highest Merchant swapped one random card with another Merchant",
        _obj(
            {
                "seat": _seat_no("the highest Merchant"),
                "with": _seat_no("the Merchant it swapped with"),
            },
            "who swapped",
        ),
        _by_seat(
            _obj(
                {
                    "with": _seat_no("the other Merchant"),
                    "gave": _card_list("the card this seat gave (card code)", 1, 1),
                    "received": _card_list("the card this seat received (card code)", 1, 1),
                },
                "the swap as this seat sees it",
            ),
            "each of the two Merchants' cards moved",
        ),
    ),
    "ExchangeDeclined": _event(
        "The highest Merchant made no exchange",
        _obj({"seat": _seat_no("the highest Merchant")}, "who declined"),
    ),
    "TaxesPaid": _event(
        "The taxes were paid: the Peons gave their best cards, the Dalmutis the cards they chose",
        _obj(
            {
                "transfers": _list(
                    _obj(
                        {
                            "from": _seat_no("the giving seat"),
                            "to": _seat_no("the receiving seat"),
                            "count": _int("the number of cards given", 1, 2),
                        },
                        "one payment",
                    ),
                    "the four payments: Greater Peon to Greater Dalmuti, Greater Dalmuti to Greater Peon, Lesser "
                    "Peon to Lesser Dalmuti, Lesser Dalmuti to Lesser Peon",
                    4,
                    4,
                ),
            },
            "the counts (no cards)",
        ),
        _by_seat(
            _obj(
                {
                    "with": _seat_no("the other seat of the exchange"),
                    "gave": _card_list("the cards this seat gave (card codes)", 1, 2),
                    "received": _card_list("the cards this seat received (card codes)", 1, 2),
                },
                "the taxes as this seat sees them",
            ),
            "the cards each of the four seats gave and received",
        ),
    ),
    "Played": _event(
        "A player played a set to the trick (and went out if it was its last card)",
        _obj(
            {
                "seat": _seat_no("the seat that played"),
                "cards": _card_list("the set played (card codes)", 1, _MAX_SET),
                "rank": _int("the set's rank (13: jesters alone); lower is better", 1, 13),
                "count": _int("the number of cards played", 1, _MAX_SET),
                "out": _bool("true: that was the seat's last card; it goes out"),
                "points": _int("points scored by going out (1 per opponent still holding cards); 0 if not out", 0, 15),
                "next": _seat_no("the seat to play next; null when the hand is over", True),
            },
            "the play",
        ),
    ),
    "Passed": _event(
        "A player passed",
        _obj(
            {
                "seat": _seat_no("the seat that passed"),
                "next": _seat_no("the seat to play next; null when the pass ended the trick", True),
            },
            "the pass",
        ),
    ),
    "TrickEnded": _event(
        "Everyone else passed: the trick is over and a new one is led",
        _obj(
            {
                "winner": _seat_no("the seat that made the last play"),
                "leader": _seat_no("the seat that leads the next trick (the winner, or the next holder if it is out)"),
            },
            "the trick's end",
        ),
    ),
    "HandEnded": _event(
        "The hand is over: one player still holds cards; the order of going out is the next hand's order",
        _obj(
            {
                "hand": _int("the number of the hand", 1, 100),
                "out_order": _seat_list("the order of going out, the first out first (the last still held cards)", 4),
                "points": _per_seat(_int("points", 0, 16), "the points each seat scored this hand, bonus included"),
                "bonus": _per_seat(
                    _int("philanthropic point", 0, 1),
                    "the philanthropic point each seat earned (option philanthropic_scoring)",
                ),
                "scores": _per_seat(_int("points"), "each seat's total points after this hand"),
                "order": _seat_list(f"the next hand's table order (the order of going out): {_ORDER_DESC}", 4),
                "match_over": _bool("true: that was the last hand"),
            },
            "the hand's result",
        ),
    ),
    "MatchEnded": _event(
        "The match is over: its ranking and winner",
        _obj(_OUTCOME_PROPS, "the outcome"),
    ),
}


# ------------------------------------------------------------------ words

_EN_NUM = (
    "no",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
)
_ES_NUM = (
    "ningún",
    "un",
    "dos",
    "tres",
    "cuatro",
    "cinco",
    "seis",
    "siete",
    "ocho",
    "nueve",
    "diez",
    "once",
    "doce",
    "trece",
    "catorce",
)


def _lang(lang: str) -> bool:
    """True for English, False for Spanish."""
    return check_language(lang) == "en"


def _num(n: int, en: bool) -> str:
    words = _EN_NUM if en else _ES_NUM
    return words[n] if 0 <= n < len(words) else str(n)


def _some(value: int, k: int, en: bool) -> str:
    """``k`` cards of one value: "an 8", "two 8s", "a jester" / "un 8", "dos 8", "un Bufón"."""
    if value == JESTER:
        if en:
            return "a jester" if k == 1 else f"{_num(k, en)} jesters"
        return "un Bufón" if k == 1 else f"{_num(k, en)} Bufones"
    if en:
        if k == 1:
            return f"{'an' if value in (8, 11) else 'a'} {value}"
        return f"{_num(k, en)} {value}s"
    return f"{_num(k, en)} {value}"


def _and(items: list[str], en: bool) -> str:
    return join(items, "en" if en else "es")


def _cards_phrase(cards: list, en: bool) -> str:
    """Some cards, best first and jesters last: "a 5 and two jesters" / "un 5 y dos Bufones"."""
    counts = Counter(c for c in cards if isinstance(c, int) and not isinstance(c, bool))
    return _and([_some(v, counts[v], en) for v in sorted(counts)], en)


def _set_phrase(cards: list, en: bool) -> str:
    """A set played: "three 8s (two 8s and a jester)", "two jesters (rank 13)"."""
    ints = [c for c in cards if isinstance(c, int) and not isinstance(c, bool) and 1 <= c <= JESTER]
    if not ints:
        return "no cards" if en else "ninguna carta"
    rank = set_rank(ints)
    jesters = ints.count(JESTER)
    if rank is None:  # not a set (never legal): the cards as they are
        return _cards_phrase(ints, en)
    if rank == JESTER:
        return f"{_some(JESTER, jesters, en)} ({'rank' if en else 'rango'} 13)"
    whole = _some(rank, len(ints), en)
    if not jesters:
        return whole
    return f"{whole} ({_and([_some(rank, len(ints) - jesters, en), _some(JESTER, jesters, en)], en)})"


def _name(players: list, seat: Any, en: bool) -> str:
    return seat_name(players, seat, "en" if en else "es")


def _names(players: list, seats: Any, en: bool) -> str:
    return ", ".join(_name(players, s, en) for s in (seats or []))


def _role(role: Any, en: bool, article: bool = True) -> str:
    names = _ROLE_NAMES.get(role)
    if names is None:
        return ""
    if not article:
        return names[0 if en else 1]
    return f"the {names[0]}" if en else f"el {names[1]}"


def _points(n: Any, en: bool) -> str:
    if en:
        return f"{n} point" if n == 1 else f"{n} points"
    return f"{n} punto" if n == 1 else f"{n} puntos"


def _cards_count(n: Any, en: bool) -> str:
    if en:
        return f"{n} card" if n == 1 else f"{n} cards"
    return f"{n} carta" if n == 1 else f"{n} cartas"


# ------------------------------------------------------------------ moves


def label_move(view: dict, seat: int, move: dict, lang: str) -> str:
    """One short sentence for a legal move of ``seat``, from that seat's own view."""
    en = _lang(lang)
    players = view.get("players") or []
    order = view.get("order") or []
    roles = view.get("roles") or []
    kind = move.get("type")
    if kind == "play":
        cards = list(move.get("cards") or [])
        text = ("play " if en else "jugar ") + _set_phrase(cards, en)
        hand = view.get("hand")
        if isinstance(hand, list) and hand and len(cards) == len(hand):
            text += " and go out" if en else " y salir del juego"
        return text
    if kind == "pass":
        return "pass" if en else "pasar"
    if kind == "declare_revolution":
        must = view.get("must") or {}
        greater = must.get("greater") if "greater" in must else bool(order) and order[-1] == seat
        if greater:
            return (
                "declare a greater revolution: the order is reversed"
                if en
                else "declarar una gran revolución: el orden se invierte"
            )
        return (
            "declare a revolution: no taxes this hand"
            if en
            else "declarar una revolución: no se pagan impuestos en esta mano"
        )
    if kind == "decline_revolution":
        return "declare no revolution" if en else "no declarar ninguna revolución"
    if kind == "give_taxes":
        must = view.get("must") or {}
        to = must.get("to")
        if to is None and len(order) >= 4:
            to = order[-1] if order[0] == seat else order[-2]
        who = _name(players, to, en)
        role = roles[to] if isinstance(to, int) and 0 <= to < len(roles) else None
        if role:
            who += ", " + _role(role, en)
        cards = _cards_phrase(list(move.get("cards") or []), en)
        return f"give {cards} to {who}" if en else f"entregar {cards} a {who}"
    if kind == "merchant_exchange":
        other = _name(players, move.get("with"), en)
        return f"swap a random card with {other}" if en else f"intercambiar una carta al azar con {other}"
    if kind == "decline_exchange":
        return "make no exchange with another Merchant" if en else "no hacer ningún cambio con otro Comerciante"
    if kind == "place_newcomer":
        who = _name(players, move.get("newcomer"), en)
        slot = move.get("slot")
        if isinstance(slot, int) and 0 <= slot and 2 + slot < len(order):
            before, after = _name(players, order[1 + slot], en), _name(players, order[2 + slot], en)
            if en:
                return f"seat {who} as a Merchant between {before} and {after}"
            return f"sentar a {who} como Comerciante entre {before} y {after}"
        return f"seat {who} as a Merchant, slot {slot}" if en else f"sentar a {who} como Comerciante, hueco {slot}"
    raise ValueError(f"unknown El Gran Dalmuti move type {kind!r}")


# ------------------------------------------------------------------ events


def _seats_drawn(d: dict, players: list, en: bool) -> str:
    rounds = []
    for rnd in d.get("draws") or []:
        rounds.append(
            ", ".join(f"{_name(players, s, en)} {('jester' if en else 'Bufón') if c == JESTER else c}" for s, c in rnd)
        )
    order = d.get("order") or []
    drawn = ("; again " if en else "; de nuevo ").join(rounds)
    if order:
        first, last = _name(players, order[0], en), _name(players, order[-1], en)
        who = (
            f"{first} is the Greater Dalmuti, {last} the Greater Peon"
            if en
            else f"{first} es el Gran Dalmuti y {last} el Gran Peón"
        )
    else:
        who = ""
    head = "seating draw" if en else "sorteo de asientos"
    return f"{head}: {drawn}: {who}" if drawn and who else f"{head}: {drawn or who}"


def _hand_dealt(d: dict, players: list, en: bool) -> str:
    order = d.get("order") or []
    dealer = _name(players, d.get("dealer"), en)
    first = _name(players, order[0], en) if order else "?"
    n = d.get("deck_size")
    if en:
        text = f"hand {d.get('hand')}: {dealer}, the Greater Peon, deals {n} cards from {first} clockwise"
    else:
        text = f"mano {d.get('hand')}: {dealer}, el Gran Peón, reparte {n} cartas empezando por {first}"
    if d.get("auto_revolution"):
        text += "; first-deal revolution: no taxes" if en else "; revolución del primer reparto: no se pagan impuestos"
    if d.get("jesters_seat") is not None:  # rules 1 named the holder publicly
        holder = _name(players, d["jesters_seat"], en)
        text += f"; {holder} holds both jesters" if en else f"; {holder} tiene los dos Bufones"
    return text


def _revolution_declared(d: dict, players: list, en: bool) -> str:
    who = _name(players, d.get("seat"), en)
    if d.get("greater"):
        if en:
            return f"{who} declares a greater revolution: the order is reversed and {who} is the Greater Dalmuti"
        return f"{who} declara una gran revolución: el orden se invierte y {who} pasa a ser el Gran Dalmuti"
    if en:
        return f"{who} declares a revolution: no taxes this hand"
    return f"{who} declara una revolución: no se pagan impuestos en esta mano"


def _tax_chosen(d: dict, players: list, en: bool) -> str:
    who = _name(players, d.get("seat"), en)
    if d.get("count") == 2:
        if en:
            return f"{who} chooses the two cards to give to the Greater Peon"
        return f"{who} elige las dos cartas que entregará al Gran Peón"
    if en:
        return f"{who} chooses the card to give to the Lesser Peon"
    return f"{who} elige la carta que entregará al Pequeño Peón"


def _taxes_paid(d: dict, players: list, en: bool) -> str:
    parts = []
    for i, t in enumerate(d.get("transfers") or []):
        giver, taker, n = _name(players, t.get("from"), en), _name(players, t.get("to"), en), t.get("count")
        if i == 0:
            parts.append(
                f"{giver} gives {_cards_count(n, en)} to {taker}"
                if en
                else f"{giver} entrega {_cards_count(n, en)} a {taker}"
            )
        else:
            parts.append(f"{giver} {n} to {taker}" if en else f"{giver} {n} a {taker}")
    head = "taxes paid" if en else "impuestos pagados"
    return f"{head}: {', '.join(parts)}" if parts else head


def _played(d: dict, players: list, en: bool) -> str:
    who = _name(players, d.get("seat"), en)
    text = f"{who} {'plays' if en else 'juega'} {_set_phrase(list(d.get('cards') or []), en)}"
    if d.get("out"):
        pts = _points(d.get("points", 0), en)
        text += f" and goes out (+{pts})" if en else f" y sale del juego (+{pts})"
    return text


def _trick_ended(d: dict, players: list, en: bool) -> str:
    winner, leader = d.get("winner"), d.get("leader")
    w = _name(players, winner, en)
    if leader is None:
        return f"{w} wins the trick" if en else f"{w} gana la ronda"
    if leader == winner:
        return f"{w} wins the trick and leads the next" if en else f"{w} gana la ronda y empieza la siguiente"
    nxt = _name(players, leader, en)
    if en:
        return f"{w} wins the trick; {nxt} leads the next"
    return f"{w} gana la ronda; empieza la siguiente {nxt}"


def _hand_ended(d: dict, players: list, en: bool) -> str:
    out = d.get("out_order") or []
    scores = d.get("scores") or []
    if en:
        text = f"hand {d.get('hand')} over, order of going out: {_names(players, out, en)}"
    else:
        text = f"fin de la mano {d.get('hand')}, orden de salida: {_names(players, out, en)}"
    if out and not d.get("match_over"):
        first, last = _name(players, out[0], en), _name(players, out[-1], en)
        text += (
            f" ({first} becomes the Greater Dalmuti, {last} the Greater Peon)"
            if en
            else f" ({first} pasa a ser el Gran Dalmuti y {last} el Gran Peón)"
        )
    bonus = [f"{_name(players, s, en)} +1" for s, b in enumerate(d.get("bonus") or []) if b]
    if bonus:
        text += ("; philanthropic points: " if en else "; puntos filantrópicos: ") + ", ".join(bonus)
    if scores:
        text += ("; scores: " if en else "; puntos: ") + ", ".join(
            f"{_name(players, s, en)} {p}" for s, p in enumerate(scores)
        )
    return text


def _match_ended(d: dict, players: list, en: bool) -> str:
    n = d.get("hands_played")
    winners = d.get("winners") or []
    ranking = d.get("ranking") or []
    if en:
        text = "match over" if n is None else f"match over after {n} hand{'' if n == 1 else 's'}"
        if winners:
            text += f": {_and([_name(players, s, en) for s in winners], en)} {'wins' if len(winners) == 1 else 'win'}"
        if ranking:
            text += f"; ranking: {_names(players, ranking, en)}"
        return text
    text = "fin de la partida" if n is None else f"fin de la partida tras {n} mano{'' if n == 1 else 's'}"
    if winners:
        text += f": {'gana' if len(winners) == 1 else 'ganan'} {_and([_name(players, s, en) for s in winners], en)}"
    if ranking:
        text += f"; clasificación: {_names(players, ranking, en)}"
    return text


def label_event(event: dict, players: list[str], lang: str) -> str:
    """One short sentence for an event, from its public ``data`` only."""
    en = _lang(lang)
    kind = event.get("type")
    d = event.get("data") or {}
    players = list(players or [])
    seat = _name(players, d.get("seat"), en) if "seat" in d else ""
    if kind == "SeatsDrawn":
        return _seats_drawn(d, players, en)
    if kind == "PlayerJoined":
        who = d.get("player") or _name(players, d.get("seat"), en)
        return f"{who} joins the table" if en else f"{who} se une a la partida"
    if kind == "NewcomerPlaced":
        order = d.get("order") or []
        who = _name(players, d.get("newcomer"), en)
        i = order.index(d.get("newcomer")) if d.get("newcomer") in order else -1
        if 1 <= i < len(order) - 1:
            before, after = _name(players, order[i - 1], en), _name(players, order[i + 1], en)
            if en:
                return f"{seat} seats {who} as a Merchant between {before} and {after}"
            return f"{seat} sienta a {who} como Comerciante entre {before} y {after}"
        return f"{seat} seats {who} as a Merchant" if en else f"{seat} sienta a {who} como Comerciante"
    if kind == "HandDealt":
        return _hand_dealt(d, players, en)
    if kind == "RevolutionAnswered":
        return f"{seat} answers the revolution question" if en else f"{seat} responde si declara una revolución"
    if kind == "RevolutionDeclared":
        return _revolution_declared(d, players, en)
    if kind == "RevolutionDeclined":
        if seat:  # rules 1: the holder of both jesters declined
            return f"{seat} declares no revolution" if en else f"{seat} no declara ninguna revolución"
        return "nobody declares a revolution" if en else "nadie declara una revolución"
    if kind == "TaxChosen":
        return _tax_chosen(d, players, en)
    if kind == "MerchantsExchanged":
        other = _name(players, d.get("with"), en)
        return f"{seat} swaps a random card with {other}" if en else f"{seat} intercambia una carta al azar con {other}"
    if kind == "ExchangeDeclined":
        return (
            f"{seat} makes no exchange with another Merchant"
            if en
            else f"{seat} no hace ningún cambio con otro Comerciante"
        )
    if kind == "TaxesPaid":
        return _taxes_paid(d, players, en)
    if kind == "Played":
        return _played(d, players, en)
    if kind == "Passed":
        return f"{seat} passes" if en else f"{seat} pasa"
    if kind == "TrickEnded":
        return _trick_ended(d, players, en)
    if kind == "HandEnded":
        return _hand_ended(d, players, en)
    if kind == "MatchEnded":
        return _match_ended(d, players, en)
    raise ValueError(f"unknown El Gran Dalmuti event type {kind!r}")
