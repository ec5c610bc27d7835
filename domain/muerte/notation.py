"""¡Muerte al rey!: the game in words and card codes, for clients that show it to people.

Card codes are the game's own card values: a suit letter and a number, as the
events, views and moves already write them.  Suits ``O`` oros, ``C`` copas,
``E`` espadas, ``B`` bastos; numbers ``1``-``7`` and ``10`` (sota), ``11``
(caballo), ``12`` (rey) in the 40-card deck, ``8`` and ``9`` as well in the
48-card deck.  ``O12`` is the rey de oros (the king the espadas team hides),
``C12`` the rey de copas (the bastos team's king), ``E1`` the 1 de espadas
(the identity card of the player who plays first).  ``code`` and ``card`` are
therefore the identity on valid cards; they only check them.

Everything the game shows or keeps writes cards as codes: the API (views,
legal moves, the move schemas of ``MOVES``), the moves posted and the stored
log (events and their private parts).  ``domain.wire`` reads them at that one
place, from where this module says the cards are: ``MOVES`` marks every card
of a move ``x-naipes-card``, ``VIEW_CARDS`` lists the paths of the cards in a
view, ``EVENT_CARDS`` those of each event type, and ``DECK_CARDS`` those inside
a deal's deck (an object: each team's deck, a list of cards).  A path is
dot-separated steps: a key of an object, an index of a list (the card of a
denounced treason's ``[seat, traitor, card]``), or ``*`` for every element of
a list or every value of an object; it ends at a card.  The translation is the
identity here, but a posted move or a logged event is checked at those paths:
a string that is no card of the game is refused, naming its field.

Card names: the Spanish ones are the rules text's own ("el 3 de oros", "la
sota de espadas", "el rey de oros"); the English ones are the usual names of
the Spanish-suited cards (coins, cups, swords, clubs; jack, knight, king).
Colours are the suit colours the Spanish pack is printed in.

Labels read only what they are given: ``label_move`` the seat's own view and
the move, ``label_event`` the public part of an event (never its private
part), so an event label tells a spectator nothing the spectator may not see.
Nothing of the game imports this module; the service imports it directly.
"""

from __future__ import annotations

import re
from typing import Any

from domain.muerte.about import MAX_PLAYERS, MIN_PLAYERS, OPTIONS
from domain.muerte.cards import DECK_NUMBERS, KINGS, TEAMS
from domain.phrases import LANGUAGES
from domain.phrases import check_language as _lang
from domain.phrases import join as _join
from domain.phrases import seat_name as _who
from domain.shapes import obj as _obj

CARD_PATTERN = r"^[OCEB](?:[1-9]|1[0-2])$"

_CARD_RE = re.compile(CARD_PATTERN)

# suit letter -> (suit as the rules text names it, English name, printed colour)
_SUITS = {
    "O": ("oros", "coins", "yellow"),
    "C": ("copas", "cups", "red"),
    "E": ("espadas", "swords", "blue"),
    "B": ("bastos", "clubs", "green"),
}

# number -> (Spanish name, English name, Spanish article); numbers without an entry are named by their digits
_FACES = {
    1: ("1", "ace", "el"),
    10: ("sota", "jack", "la"),
    11: ("caballo", "knight", "el"),
    12: ("rey", "king", "el"),
}

_LANGS = LANGUAGES


def _checked(value: Any) -> str:
    if not isinstance(value, str) or not _CARD_RE.fullmatch(value):
        raise ValueError(f"{value!r} is not a card of ¡Muerte al rey! (a card code matches {CARD_PATTERN})")
    return value


def code(card: Any) -> str:
    """The code of a card value (``"O12"`` -> ``"O12"``): the game's values are already codes."""
    return _checked(card)


def card(code: str) -> str:
    """The card value of a code (``"O12"`` -> ``"O12"``); ValueError for a string that is no card."""
    return _checked(code)


def _number(c: str) -> int:
    return int(c[1:])


def _names(c: str) -> dict[str, str]:
    suit_es, suit_en, _colour = _SUITS[c[0]]
    k = _number(c)
    es, en, _article = _FACES.get(k, (str(k), str(k), "el"))
    return {"en": f"{en} of {suit_en}", "es": f"{es} de {suit_es}"}


def deck(options: dict | None = None) -> list[dict]:
    """Every card of the Spanish pack the game is played with (option ``deck``: 40 or 48 cards).

    The identity deck and both team decks are drawn from this pack (which
    cards depends on the number of players, see ``domain.muerte.cards``);
    every card is unique, and no card is worth points.  With no options (the
    game's description) every card of either pack, the 8s and 9s marked as
    dealt only with ``deck: spanish48``.
    """
    if options is None:
        short = DECK_NUMBERS["spanish40"]
        return [
            card if int(card["rank"]) in short else {**card, "options": {"deck": ["spanish48"]}}
            for card in deck({"deck": "spanish48"})
        ]
    name = options.get("deck", OPTIONS["properties"]["deck"]["default"])
    if name not in DECK_NUMBERS:
        raise ValueError(f"unknown deck {name!r} (known: {', '.join(DECK_NUMBERS)})")
    out = []
    for letter, (suit, _en, colour) in _SUITS.items():
        for k in DECK_NUMBERS[name]:
            c = f"{letter}{k}"
            out.append({"code": c, "id": c, "suit": suit, "rank": str(k), "name": _names(c), "colour": colour})
    return out


def _the(c: str, lang: str) -> str:
    """A card's name with its article: "the king of coins", "la sota de oros"."""
    if lang == "en":
        return "the " + _names(c)["en"]
    return _FACES.get(_number(c), ("", "", "el"))[2] + " " + _names(c)["es"]


PHASES: list[dict] = [
    {
        "id": "created",
        "name": {"en": "Not started", "es": "Sin empezar"},
        "description": {
            "en": "The table is set; the match has not started yet.",
            "es": "La mesa está lista; el encuentro aún no ha empezado.",
        },
    },
    {
        "id": "turn",
        "name": {"en": "Turn", "es": "Turno"},
        "description": {
            "en": "The player on turn exchanges a card with a companion or accuses an opponent.",
            "es": "El jugador en turno intercambia una carta con un compañero o acusa a un contrario.",
        },
    },
    {
        "id": "giveback",
        "name": {"en": "Giving back", "es": "Devolución"},
        "description": {
            "en": "The companion chosen for an exchange picks the card to give back.",
            "es": "El compañero elegido para el intercambio escoge la carta que entrega.",
        },
    },
    {
        "id": "discard",
        "name": {"en": "Losing a card", "es": "Pérdida de una carta"},
        "description": {
            "en": "The accuser was wrong and loses one of their cards, the one they choose.",
            "es": "El acusador se ha equivocado y pierde una de sus cartas, la que quiera.",
        },
    },
    {
        "id": "treason",
        "name": {"en": "Treason", "es": "Traición"},
        "description": {
            "en": "A player who has just received a card of their identity number may denounce the giver, "
            "now or never.",
            "es": "Quien acaba de recibir una carta del número de su carta identificadora puede acusar de traición "
            "a quien se la dio, ahora o nunca.",
        },
    },
    {
        "id": "between_games",
        "name": {"en": "Between games", "es": "Entre partidas"},
        "description": {
            "en": "A game has just ended and the next one is about to be dealt.",
            "es": "Una partida acaba de terminar y la siguiente está por repartirse.",
        },
    },
    {
        "id": "swapping",
        "name": {"en": "Swapping identity cards", "es": "Cambio de cartas identificadoras"},
        "description": {
            "en": "From the player before the winner backwards, each player swaps their identity card with "
            "another player; the winner swaps last.",
            "es": "Desde el anterior al ganador y en orden inverso, cada jugador intercambia su carta "
            "identificadora con la de otro; el ganador es el último.",
        },
    },
    {
        "id": "assigning",
        "name": {"en": "Placing identity cards", "es": "Reparto de cartas identificadoras"},
        "description": {
            "en": "For each team, one chooser decides who gets each identity card, lowest number first.",
            "es": "Por cada bando, un jugador elige quién tendrá cada carta identificadora, de menor a mayor.",
        },
    },
    {
        "id": "finished",
        "name": {"en": "Finished", "es": "Terminado"},
        "description": {
            "en": "The match is over; points are added up over its games.",
            "es": "El encuentro ha terminado; los puntos se suman sobre sus partidas.",
        },
    },
]


_TEAM_NAMES = {
    "espadas": {"en": "the espadas team", "es": "el bando de espadas"},
    "bastos": {"en": "the bastos team", "es": "el bando de bastos"},
}


ROLES: list[dict] = [
    {"id": "espadas", "name": {"en": "Espadas team (swords)", "es": "Bando de espadas"}},
    {"id": "bastos", "name": {"en": "Bastos team (clubs)", "es": "Bando de bastos"}},
]


_CARD_FIELD = {"type": "string", "pattern": CARD_PATTERN, "x-naipes-card": True, "description": "a card code"}
_SEAT_FIELD = {"type": "integer", "minimum": 0, "maximum": MAX_PLAYERS - 1}


def _schema(kind: str, **fields: dict) -> dict:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"type": {"const": kind}, **fields},
        "required": ["type", *fields],
        "additionalProperties": False,
    }


MOVES: dict[str, dict] = {
    "exchange": {
        "description": {
            "en": "On your turn: offer one of your cards to an active companion, who then gives you one back.",
            "es": "En tu turno: ofreces una de tus cartas a un compañero activo, que te entrega otra a cambio.",
        },
        "schema": _schema("exchange", **{"with": _SEAT_FIELD, "card": _CARD_FIELD}),
    },
    "give_back": {
        "description": {
            "en": "A companion has offered you an exchange: choose the card you give in return.",
            "es": "Un compañero te ha propuesto un intercambio: escoges la carta que le entregas.",
        },
        "schema": _schema("give_back", card=_CARD_FIELD),
    },
    "accuse": {
        "description": {
            "en": "On your turn: accuse an active opponent of hiding the king; they show all their cards.",
            "es": "En tu turno: acusas a un contrario activo de ocultar al rey; enseña todas sus cartas.",
        },
        "schema": _schema("accuse", target=_SEAT_FIELD),
    },
    "discard": {
        "description": {
            "en": "Your accusation was wrong: lose one of your cards (losing your own king loses the game).",
            "es": "Tu acusación era falsa: pierdes una de tus cartas (si pierdes el rey, tu bando pierde).",
        },
        "schema": _schema("discard", card=_CARD_FIELD),
    },
    "denounce": {
        "description": {
            "en": "You received a card of your identity number: denounce the giver as a traitor.",
            "es": "Has recibido una carta del número de tu carta identificadora: acusas de traición a quien la dio.",
        },
        "schema": _schema("denounce"),
    },
    "ignore_treason": {
        "description": {
            "en": "Let the treason pass; it can never be denounced later.",
            "es": "Dejas pasar la traición; ya no podrá denunciarse más tarde.",
        },
        "schema": _schema("ignore_treason"),
    },
    "swap_identity": {
        "description": {
            "en": "Between games: swap your identity card with another player.",
            "es": "Entre partidas: intercambias tu carta identificadora con la de otro jugador.",
        },
        "schema": _schema("swap_identity", **{"with": _SEAT_FIELD}),
    },
    "assign_identity": {
        "description": {
            "en": "Between games: give the next identity card of the team you place to one of its players.",
            "es": "Entre partidas: das la siguiente carta identificadora del bando que repartes a uno de sus "
            "jugadores.",
        },
        "schema": _schema("assign_identity", to=_SEAT_FIELD),
    },
}


EVENT_TYPES: tuple[str, ...] = (
    "GameDealt",
    "ExchangeOffered",
    "CardsExchanged",
    "TreasonDenounced",
    "TreasonIgnored",
    "Accused",
    "CardLost",
    "TurnBegan",
    "GameEnded",
    "IdentitySwapsBegan",
    "IdentitySwapped",
    "IdentityAssignmentBegan",
    "IdentityAssigned",
    "MatchEnded",
)

# Where the cards are (see the module's docstring and ``domain.wire``).
VIEW_CARDS: tuple[str, ...] = (
    "identity.*",  # every seat's identity card (public)
    "lost.*.*",  # the cards lost after wrong accusations (public)
    "treason.denounced.*.2",  # [seat, traitor, card]
    "reveals.*.cards.*",  # an accused player's cards, shown
    "assign.*.cards.*",  # the identity cards a team's chooser places
    "assign.*.given.*",  # seat -> identity card placed
    "hand.*",  # a seat's own hand
    "transfers.*.gave",  # a seat's own exchanges this game
    "transfers.*.received",
    "offer",  # the card offered in an exchange (its giver, the reviewer)
    "must.card",  # the identity card to place next
    "hands.*.*",  # the reviewer: every hand
    "transfers_all.*.*.gave",  # the reviewer: every seat's exchanges
    "transfers_all.*.*.received",
)

EVENT_CARDS: dict[str, tuple[str, ...]] = {
    "GameDealt": ("data.identity.*", "private.*.hand.*"),  # the deck of private.deal: DECK_CARDS
    "ExchangeOffered": ("private.*.card",),
    "CardsExchanged": ("private.*.gave", "private.*.received"),
    "TreasonDenounced": ("data.card",),
    "TreasonIgnored": (),
    "Accused": ("data.cards.*",),
    "CardLost": ("data.card",),
    "TurnBegan": (),
    "GameEnded": (),
    "IdentitySwapsBegan": (),
    "IdentitySwapped": (),
    "IdentityAssignmentBegan": ("data.teams.*.cards.*",),
    "IdentityAssigned": ("data.card",),
    "MatchEnded": (),
}

DECK_CARDS = "*.*"  # a deal's deck (private.deal.deck, DealRevealed data.deck): team -> list of cards


# ------------------------------------------------------------------ shapes
# The JSON Schemas (2020-12) of the view as the API shows it (``VIEW_SCHEMA``) and of every event's
# public data and secret part, cards written as codes (``EVENT_SCHEMAS``).  Cards sit where
# ``VIEW_CARDS`` / ``EVENT_CARDS`` / ``DECK_CARDS`` say, each one a ``_CARD_ITEM``.

_CARD_ITEM = {"type": "string", "pattern": CARD_PATTERN, "x-naipes-card": True}
_TEAM_IDS = list(TEAMS)
_HALF = MAX_PLAYERS // 2  # the most players a team has
_MOST_GAMES = OPTIONS["properties"]["games"]["maximum"]
_REASONS = ["king_found", "king_lost", "team_eliminated", "treason"]


def _card_item(description: str, nullable: bool = False) -> dict:
    item = {**_CARD_ITEM, "description": description}
    if nullable:
        item["type"] = ["string", "null"]
    return item


def _cards(description: str, most: int | None = None, least: int = 0, what: str = "a card") -> dict:
    out: dict = {"type": "array", "items": _card_item(what), "description": description}
    if least:
        out["minItems"] = least
    if most is not None:
        out["maxItems"] = most
    return out


def _seat(description: str, nullable: bool = False) -> dict:
    out = {**_SEAT_FIELD, "description": description}
    if nullable:
        out["type"] = ["integer", "null"]
    return out


def _seats(description: str, most: int = MAX_PLAYERS, least: int = 0) -> dict:
    out: dict = {"type": "array", "items": _seat("a seat number"), "maxItems": most, "description": description}
    if least:
        out["minItems"] = least
    return out


def _int(description: str, minimum: int | None = None, maximum: int | None = None) -> dict:
    out: dict = {"type": "integer", "description": description}
    if minimum is not None:
        out["minimum"] = minimum
    if maximum is not None:
        out["maximum"] = maximum
    return out


def _bool(description: str) -> dict:
    return {"type": "boolean", "description": description}


def _team(description: str, nullable: bool = False) -> dict:
    if nullable:
        return {"type": ["string", "null"], "enum": [*_TEAM_IDS, None], "description": description}
    return {"type": "string", "enum": list(_TEAM_IDS), "description": description}


def _per_seat(description: str, item: dict, most: int = MAX_PLAYERS) -> dict:
    """A list indexed by seat number."""
    return {"type": "array", "items": item, "maxItems": most, "description": description}


def _by_team(description: str, value: dict) -> dict:
    return _obj(description, {t: {**value, "description": f"the {t} team: {value['description']}"} for t in TEAMS})


def _points(description: str) -> dict:
    return _per_seat(description, _int("points of the seat in this game", -4, 4))


def _scores(description: str) -> dict:
    return _per_seat(description, _int("match total of the seat (sum of its game points)"))


_PAIR = {
    "type": "array",
    "minItems": 2,
    "maxItems": 2,
    "items": _seat("a seat number"),
    "description": "[receiver, giver]: the seat that received a card of its identity number, and the seat that gave it",
}

_DENOUNCED = {
    "type": "array",
    "minItems": 3,
    "maxItems": 3,
    "items": {"anyOf": [_seat("a seat number"), _card_item("the card received")]},
    "description": "[seat, traitor, card]: the seat that denounced, the giver it denounced, and the card of its "
    "identity number it received from the traitor",
}

_TRANSFER = _obj(
    "one exchange of this game, seen from the seat",
    {
        "with": _seat("the teammate the seat exchanged with"),
        "gave": _card_item("the card the seat handed over"),
        "received": _card_item("the card the seat got in return"),
    },
)

_GAME_RECORD = {
    "game": _int("number of the game in the match, from 1", 1, _MOST_GAMES),
    "reason": {
        "type": "string",
        "enum": _REASONS,
        "description": "how the game ended: king_found (an accusation found the enemy king), king_lost (a wrong "
        "accuser discarded their own team's king), team_eliminated (a team has no active player left; kept for "
        "safety, the rules make it unreachable), treason (a denounced treason)",
    },
    "winning_team": _team("the team that won; null for a game ended by treason", nullable=True),
    "discoverer": _seat("the seat whose accusation found the enemy king (king_found); null otherwise", True),
    "custodian": _seat(
        "the seat of the losing team that held its king: the accused holder (king_found) or the seat that "
        "discarded it (king_lost); null otherwise",
        True,
    ),
    "traitors": _seats("treason: the seats denounced as traitors, in seat order; empty otherwise"),
    "denouncers": _seats("treason: the seats that denounced a treason, in seat order; empty otherwise"),
    "winners": _seats(
        "the seats that won the game: every member of the winning team in turn order, or, after a treason, the "
        "discoverers who were not themselves denounced (empty for a double treason)"
    ),
    "points": _points("seat number (index) -> the points the seat scored in this game (section 3.2), -4 to 4"),
    "match_over": _bool("true when this was the last game of the match"),
    "double": _bool(
        "present only when reason is treason: true for a double treason (two players denounced each other, nobody wins)"
    ),
}


def _game_record(description: str, **more: dict) -> dict:
    return _obj(description, {**_GAME_RECORD, **more}, optional=("double",))


_OUTCOME = {
    "scores": _scores("seat number (index) -> the seat's points over the whole match"),
    "ranking": _seats(
        "every seat, best first: over several games by match total (ties by seat number); in a match of one "
        "game its winners first, then by points",
        least=1,
    ),
    "winners": _seats(
        "over several games, the seats with the best match total; in a match of one game, the game's winners "
        "(the winning team, a treason's discoverer; nobody after a double treason)"
    ),
    "games_played": _int("the number of games played in the match", 1, _MOST_GAMES),
    "games": {
        "type": "array",
        "items": _game_record("the record of one game, in the order played"),
        "minItems": 1,
        "maxItems": _MOST_GAMES,
        "description": "the record of every game of the match, in the order played",
    },
}

_TEAM_FLAGS = {t: _bool(f"the {t} team") for t in TEAMS}

_MUST_ACTIONS = ["turn", "give_back", "discard", "treason", "swap_identity", "assign_identity"]

_MUST_FIELDS = {
    "action": {
        "type": "string",
        "enum": _MUST_ACTIONS,
        "description": "turn (exchange with a teammate or accuse an opponent), give_back (choose the card to give "
        "back in an exchange), discard (lose a card after a wrong accusation), treason (denounce the giver or let "
        "it pass), swap_identity (swap identity cards), assign_identity (place the next identity card)",
    },
    "must_accuse": _bool(
        "action turn only: true when the seat may only accuse (its team has not accused in this full round and it "
        "is the team's last active player to play in it, or it has no active teammate)"
    ),
    "teammates": _seats("action turn only: the seat's active teammates, in turn order", most=_HALF - 1),
    "to": _seat("action give_back only: the seat that offered the exchange and gets the card back"),
    "giver": _seat(
        "action treason only: the seat that gave the card just received (of the seat's identity number, but with "
        "treason_prompt every perhaps not: the legal moves offer denounce only when it is)"
    ),
    "team": _team("action assign_identity only: the team whose identity cards the seat places"),
    "card": _card_item("action assign_identity only: the identity card the seat places now"),
}


def _must_case(action: str, *fields: str) -> dict:
    """The keys ``must`` has for one action (no ``type``: a null ``must`` matches every case)."""
    return {
        "description": f"action {action}" + (f": with {', '.join(fields)}" if fields else ": no other key"),
        "properties": {
            "action": {"const": action, "description": _MUST_FIELDS["action"]["description"]},
            **{f: _MUST_FIELDS[f] for f in fields},
        },
        "required": ["action", *fields],
        "additionalProperties": False,
    }


_MUST = {
    **_obj(
        "Present only in a seat's view: what the seat has to decide now (its moves come from legal-moves); "
        "null when the seat is not in to_act.  Which keys come with each action: see anyOf.",
        _MUST_FIELDS,
        optional=("must_accuse", "teammates", "to", "giver", "team", "card"),
        nullable=True,
    ),
    "anyOf": [
        _must_case("turn", "must_accuse", "teammates"),
        _must_case("give_back", "to"),
        _must_case("discard"),
        _must_case("treason", "giver"),
        _must_case("swap_identity"),
        _must_case("assign_identity", "team", "card"),
    ],
}

_VIEW_PROPERTIES: dict[str, dict] = {
    "game": {"const": "muerte", "type": "string", "description": "the game type (always muerte)"},
    "rules_version": {"type": "string", "description": "the version of the rules this game is played by"},
    "phase": {
        "type": "string",
        "enum": [p["id"] for p in PHASES],
        "description": "what the table waits for (`phases` of GET /game-types/muerte describes each); "
        "between_games lasts only inside one move (a replay stopped between two events may show it)",
    },
    "game_no": _int("the game of the match being played, from 1; 0 before the match starts", 0, _MOST_GAMES),
    "games_total": _int("the number of games in the match (option games)", 1, _MOST_GAMES),
    "players": _per_seat(
        "seat number (index) -> the player's name", {"type": "string", "description": "a player's name"}
    ),
    "options": _obj(
        "the options the match was created with, defaults filled in",
        {k: {kk: vv for kk, vv in spec.items() if kk != "default"} for k, spec in OPTIONS["properties"].items()},
    ),
    "identity": _per_seat(
        "seat number (index) -> the seat's identity card, public (E1..En for espadas, B1..Bn for bastos); "
        "empty before the match starts",
        _card_item("an identity card"),
    ),
    "teams": _per_seat(
        "seat number (index) -> the seat's team, read from its identity card; empty before the match starts",
        _team("a team"),
    ),
    "order": _seats(
        "the turn order of this game: the holders of E1, B1, E2, B2 ... En, Bn; empty before the match starts"
    ),
    "turn": _seat(
        "the seat whose turn it is (it stays the turn's owner during giveback, discard and treason); null before "
        "the match starts and once a game has ended",
        True,
    ),
    "round": _int("the full round of this game, from 1 (one pass through the turn order); 0 before the start", 0),
    "accused_this_round": _obj("team -> whether the team has accused in this full round", _TEAM_FLAGS),
    "accusation_due": _obj(
        "team -> whether the team still owes its accusation in this full round (always false outside a game's "
        "play: phases created, between_games, swapping, assigning, finished)",
        _TEAM_FLAGS,
    ),
    "to_act": _seats(
        "the seats that must move now (two in a double treason chance or while both choosers place identity "
        "cards); empty before the start and when the match is finished",
        most=2,
    ),
    "hand_sizes": _per_seat(
        "seat number (index) -> how many cards the seat holds (2 after the deal, fewer after lost cards)",
        _int("a number of cards", 0, 2),
    ),
    "lost": _per_seat(
        "seat number (index) -> the cards the seat lost after wrong accusations in this game, public",
        _cards("the seat's lost cards, in the order lost", most=2, what="a lost card"),
    ),
    "eliminated": _seats("the seats eliminated in this game (they lost their last card), in the order eliminated"),
    "exchange": _obj(
        "the pending exchange during phase giveback (who, never the cards); null otherwise",
        {
            "seat": _seat("the seat that offered a card"),
            "with": _seat("the teammate who must give a card back"),
        },
        nullable=True,
    ),
    "accusation": _obj(
        "the wrong accusation whose accuser must lose a card, during phase discard; null otherwise",
        {
            "seat": _seat("the accuser, who must discard a card"),
            "target": _seat("the accused opponent, who did not hold the king"),
        },
        nullable=True,
    ),
    "treason": _obj(
        "the treason chance after an exchange, during phase treason (option treason); null otherwise",
        {
            "pending": _seats("the seats that still have to denounce or let it pass", most=2),
            "chances": {
                "type": "array",
                "items": _PAIR,
                "minItems": 1,
                "maxItems": 2,
                "description": "the chances to denounce this exchange opened",
            },
            "denounced": {
                "type": "array",
                "items": _DENOUNCED,
                "maxItems": 2,
                "description": "the denunciations made so far",
            },
        },
        nullable=True,
    ),
    "reveals": {
        "type": "array",
        "description": "every accusation of the match so far, with the cards the accused showed at that moment",
        "items": _obj(
            "one accusation",
            {
                "game": _int("the game it was made in, from 1", 1, _MOST_GAMES),
                "round": _int("the full round it was made in, from 1", 1),
                "seat": _seat("the accuser"),
                "target": _seat("the accused opponent"),
                "cards": _cards("the accused's cards, shown to everyone", most=2, least=1, what="a shown card"),
                "king": _bool("true when the accused held their team's king (the accuser's team won the game)"),
            },
        ),
    },
    "swap": _obj(
        "the identity swaps between games (identity_mode winner_swaps), during phase swapping; null otherwise",
        {
            "sequence": _seats(
                "the seats in the order they swap: from the player before the game's winner backwards, the winner last",
                least=MIN_PLAYERS,
            ),
            "index": _int("position in sequence of the seat that swaps now", 0, MAX_PLAYERS - 1),
        },
        nullable=True,
    ),
    "assign": {
        **_by_team(
            "the placing of identity cards between games (identity_mode team_chooses or opponents_choose), "
            "during phase assigning; null otherwise. Team -> the placing of that team's identity cards",
            _obj(
                "how its identity cards are placed",
                {
                    "chooser": _seat("the seat that places these cards"),
                    "cards": _cards(
                        "the team's identity cards, placed in this order (lowest number first)",
                        most=_HALF,
                        least=1,
                        what="an identity card",
                    ),
                    "seats": _seats("the seats of the team, who receive these cards", most=_HALF, least=1),
                    "given": {
                        "type": "object",
                        "additionalProperties": _card_item("the identity card placed with that seat"),
                        "description": "seat number (as a string) -> the identity card placed with it so far",
                    },
                },
            ),
        ),
        "type": ["object", "null"],
    },
    "game_points": _points(
        "seat number (index) -> the points of the last game ended (zeros until a game ends), -4 to 4"
    ),
    "scores": _scores("seat number (index) -> the seat's points over the games of the match ended so far"),
    "results": {
        "type": "array",
        "items": _game_record("the record of one game ended"),
        "maxItems": _MOST_GAMES,
        "description": "the record of every game of the match ended so far, in the order played",
    },
    "outcome": _obj(
        "the result of the match once it is finished (phase finished); null before",
        _OUTCOME,
        nullable=True,
    ),
    # a seat's own
    "seat": _seat("present only in a seat's view: the viewer's own seat"),
    "hand": _cards("present only in a seat's view: the seat's own cards", most=2, what="a card of the hand"),
    "transfers": {
        "type": "array",
        "items": _TRANSFER,
        "description": "present only in a seat's view: the seat's own exchanges in this game, oldest first",
    },
    "offer": _card_item(
        "in a seat's view: the card the seat offered in its pending exchange (phase giveback, the seat is the "
        "giver), else null; in the reviewer's view: the card offered in the pending exchange, else null; absent "
        "in a spectator's view",
        nullable=True,
    ),
    "must": _MUST,
    # the reviewer's
    "hands": _per_seat(
        "present only in the reviewer's view: seat number (index) -> that seat's cards",
        _cards("the seat's cards", most=2, what="a card of the hand"),
    ),
    "transfers_all": {
        "type": "object",
        "additionalProperties": {
            "type": "array",
            "items": _TRANSFER,
            "description": "that seat's exchanges, oldest first",
        },
        "description": "present only in the reviewer's view: seat number (as a string) -> that seat's exchanges in "
        "this game (seats that have not exchanged are absent)",
    },
}

_VIEWER_ONLY = ("seat", "hand", "transfers", "offer", "must", "hands", "transfers_all")

VIEW_SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    **_obj(
        "¡Muerte al rey! as one viewer sees it: a seat (its own cards too), the spectator (public information only) "
        "or the reviewer (every card)",
        _VIEW_PROPERTIES,
        optional=_VIEWER_ONLY,
    ),
}


def _event(description: str, data: dict, private: dict | None = None) -> dict:
    return {
        "description": description,
        "data": _obj("the event's public data", data),
        "private": private,
    }


def _secret(description: str, part: dict) -> dict:
    return {"type": "object", "additionalProperties": part, "description": description}


EVENT_SCHEMAS: dict[str, dict] = {
    "GameDealt": _event(
        "A game of the match is dealt: everyone's identity card is shown and each player gets two secret cards of "
        "their team's deck; E1's holder plays first.",
        {
            "game": _int("the game of the match dealt, from 1", 1, _MOST_GAMES),
            "identity": _per_seat(
                "seat number (index) -> the seat's identity card, public", _card_item("an identity card")
            ),
            "order": _seats("the turn order of this game: the holders of E1, B1, E2, B2 ... En, Bn", least=MIN_PLAYERS),
            "sizes": _per_seat(
                "seat number (index) -> cards dealt to the seat (always 2)",
                _int("cards dealt to the seat: always 2", 2, 2),
            ),
            "teams_fixed": {
                **_per_seat(
                    "seat number (index) -> the seat's team, kept for the match: set on the first deal when "
                    "identity_mode is not random; null otherwise",
                    _team("a team"),
                ),
                "type": ["array", "null"],
            },
            "commitment": {
                "type": "string",
                "pattern": "^[0-9a-f]{64}$",
                "description": "SHA-256 (hex) of the deal's salt and decks, to check once the deal is revealed",
            },
        },
        {
            "type": "object",
            "description": "seat number (as a string) -> that seat's dealt hand; and deal, the salt and decks the "
            "commitment seals (no seat receives it; revealed when the game is over)",
            "properties": {
                "deal": _obj(
                    "the secret of the commitment",
                    {
                        "salt": {
                            "type": "string",
                            "pattern": "^[0-9a-f]{32}$",
                            "description": "the salt hashed with the decks (32 hex digits)",
                        },
                        "deck": _by_team(
                            "team -> that team's shuffled deck (2n cards), dealt two by two in turn order",
                            _cards("its shuffled deck", most=2 * _HALF, least=6, what="a card of the deck"),
                        ),
                    },
                ),
            },
            "required": ["deal"],
            "additionalProperties": _obj(
                "a seat's deal",
                {"hand": _cards("the two cards dealt to the seat", most=2, least=2, what="a card dealt")},
            ),
        },
    ),
    "ExchangeOffered": _event(
        "A player offers one of their cards to an active teammate, who must now give one back; the card stays secret.",
        {
            "seat": _seat("the seat on turn, offering a card"),
            "with": _seat("the teammate who must give a card back"),
        },
        _secret(
            "seat number (as a string) -> its part: only the offering seat, with its card",
            _obj("the offering seat's part", {"card": _card_item("the card offered")}),
        ),
    ),
    "CardsExchanged": _event(
        "The teammate gave a card back: the two players swapped one card each (which cards stays secret).",
        {
            "seat": _seat("the seat that offered the exchange"),
            "with": _seat("the teammate who gave a card back"),
            "treason_chances": {
                "type": "array",
                "items": _PAIR,
                "maxItems": 2,
                "description": "option treason: the players asked whether to denounce the giver of the card they "
                "received, each with that giver (phase treason follows; empty when none): those who received a "
                "card of their identity number, or, with treason_prompt every, both players whatever they received",
            },
        },
        _secret(
            "seat number (as a string) -> that seat's side of the exchange: both seats of the exchange",
            _TRANSFER,
        ),
    ),
    "TreasonDenounced": _event(
        "A player denounces the teammate who gave them a card of their identity number: a treason; once every "
        "pending chance is answered the game ends.",
        {
            "seat": _seat("the seat that denounces"),
            "traitor": _seat("the seat denounced, who gave the card"),
            "card": _card_item("the card received, of the denouncer's identity number"),
        },
    ),
    "TreasonIgnored": _event(
        "A player lets a treason pass; it can never be denounced later.",
        {"seat": _seat("the seat that let the treason pass")},
    ),
    "Accused": _event(
        "A player accuses an opponent of hiding the king; the accused shows all their cards to everyone.",
        {
            "seat": _seat("the accuser"),
            "target": _seat("the accused opponent"),
            "cards": _cards("the accused's cards, shown to everyone", most=2, least=1, what="a shown card"),
            "king": _bool(
                "true when the accused held their team's king: the accuser's team wins the game; false: the accuser "
                "must lose a card"
            ),
        },
    ),
    "CardLost": _event(
        "A wrong accuser loses a card of their choice, shown to everyone.",
        {
            "seat": _seat("the accuser who loses the card"),
            "card": _card_item("the card lost"),
            "king": _bool("true when it was the seat's own team's king: that team loses the game"),
            "eliminated": _bool("true when it was the seat's last card: the seat is out of this game"),
        },
    ),
    "TurnBegan": _event(
        "The next active player in turn order is on turn.",
        {
            "seat": _seat("the seat on turn"),
            "pos": _int("the seat's position in the turn order, from 0", 0, MAX_PLAYERS - 1),
            "round": _int("the full round, from 1", 1),
        },
    ),
    "GameEnded": {
        "description": "A game of the match is over: how it ended, who won, and the points of every seat.",
        "data": _game_record(
            "the game's record",
            scores=_scores("seat number (index) -> the seat's match total after this game"),
        ),
        "private": None,
    },
    "IdentitySwapsBegan": _event(
        "Between games (identity_mode winner_swaps): from the player before the winner backwards, each player "
        "swaps identity cards with another player; the winner swaps last.",
        {
            "winner": _seat("the game's winner: its best scorer, ties to the earliest in turn order"),
            "sequence": _seats("the seats in the order they swap, the winner last", least=MIN_PLAYERS),
        },
    ),
    "IdentitySwapped": _event(
        "A player swaps their identity card with another player's.",
        {
            "seat": _seat("the seat that swaps"),
            "with": _seat("the seat whose identity card it takes"),
        },
    ),
    "IdentityAssignmentBegan": _event(
        "Between games (identity_mode team_chooses or opponents_choose): for each team, a chooser places its "
        "identity cards one by one, lowest first; teams are kept.",
        {
            "teams": _by_team(
                "team -> the placing of that team's identity cards",
                _obj(
                    "how its identity cards are placed",
                    {
                        "chooser": _seat("the seat that places these cards"),
                        "cards": _cards(
                            "the team's identity cards, placed in this order",
                            most=_HALF,
                            least=1,
                            what="an identity card",
                        ),
                        "seats": _seats("the seats of the team, who receive these cards", most=_HALF, least=1),
                    },
                ),
            ),
            "teams_fixed": _per_seat("seat number (index) -> the seat's team, kept for the match", _team("a team")),
        },
    ),
    "IdentityAssigned": _event(
        "A chooser places the next identity card with a player of the team.",
        {
            "seat": _seat("the chooser"),
            "team": _team("the team whose identity card is placed"),
            "card": _card_item("the identity card placed"),
            "to": _seat("the seat that gets it (may be the chooser)"),
        },
    ),
    "MatchEnded": _event(
        "The match is over: match totals, ranking and winners.",
        _OUTCOME,
    ),
}


# ------------------------------------------------------------------ labels


def _points(n: int, lang: str) -> str:
    if lang == "en":
        return f"{n} point" if abs(n) == 1 else f"{n} points"
    return f"{n} punto" if abs(n) == 1 else f"{n} puntos"


def _team(team: Any, lang: str) -> str:
    return _TEAM_NAMES.get(team, {"en": f"team {team}", "es": f"el bando {team}"})[lang]


def _other(team: Any) -> str:
    return "bastos" if team == "espadas" else "espadas"


def _card_text(c: Any, lang: str) -> str:
    if isinstance(c, str) and _CARD_RE.fullmatch(c):
        return _the(c, lang)
    return "a card" if lang == "en" else "una carta"


def label_move(view: dict, seat: int, move: dict, lang: str) -> str:
    """One short sentence, for ``seat``, of one of its legal moves, from the seat's own view."""
    lang = _lang(lang)
    en = lang == "en"
    players = view.get("players", [])
    must = view.get("must") or {}
    kind = move.get("type")
    if kind == "exchange":
        c, mate = _card_text(move.get("card"), lang), _who(players, move.get("with"), lang)
        return f"exchange {c} with {mate}" if en else f"intercambiar {c} con {mate}"
    if kind == "give_back":
        c = _card_text(move.get("card"), lang)
        to = must.get("to", (view.get("exchange") or {}).get("seat"))
        if to is None:
            return f"give {c} back" if en else f"devolver {c}"
        mate = _who(players, to, lang)
        return f"give {c} back to {mate}" if en else f"devolver {c} a {mate}"
    if kind == "accuse":
        target = _who(players, move.get("target"), lang)
        return f"accuse {target}" if en else f"acusar a {target}"
    if kind == "discard":
        c = move.get("card")
        text = f"lose {_card_text(c, lang)}" if en else f"perder {_card_text(c, lang)}"
        if view.get("hand") == [c]:
            text += " and be eliminated" if en else " y quedar eliminado"
        teams = view.get("teams") or []
        if 0 <= seat < len(teams) and KINGS.get(teams[seat]) == c:
            text += ": your team loses" if en else ": tu bando pierde"
        return text
    if kind in ("denounce", "ignore_treason"):
        giver = must.get("giver")
        who = _who(players, giver, lang) if giver is not None else None
        if kind == "ignore_treason":
            if who is None:
                return "let the treason pass" if en else "dejar pasar la traición"
            return f"let the treason of {who} pass" if en else f"dejar pasar la traición de {who}"
        text = ("denounce the treason" if en else "denunciar la traición") if who is None else None
        if text is None:
            text = f"denounce {who} for treason" if en else f"acusar de traición a {who}"
        transfers = view.get("transfers") or []
        if transfers:
            got = _card_text(transfers[-1].get("received"), lang)
            text += f" (you received {got})" if en else f" (has recibido {got})"
        return text
    if kind == "swap_identity":
        other = move.get("with")
        who = _who(players, other, lang)
        identity = view.get("identity") or []
        theirs = (
            f" ({_card_text(identity[other], lang)})" if isinstance(other, int) and 0 <= other < len(identity) else ""
        )
        if en:
            return f"swap identity cards with {who}{theirs}"
        return f"intercambiar tu carta identificadora con {who}{theirs}"
    if kind == "assign_identity":
        who = _who(players, move.get("to"), lang)
        c = must.get("card")
        if c is None:
            return f"give an identity card to {who}" if en else f"dar una carta identificadora a {who}"
        if move.get("to") == seat:
            return f"keep {_card_text(c, lang)}" if en else f"quedarte con {_card_text(c, lang)}"
        return f"give {_card_text(c, lang)} to {who}" if en else f"dar {_card_text(c, lang)} a {who}"
    raise ValueError(f"unknown move type {kind!r} of ¡Muerte al rey!")


def _ev_game_dealt(d: dict, players: list[str], lang: str) -> str:
    order = d.get("order") or []
    identity = d.get("identity") or []
    game = d.get("game")
    if not order:
        return f"Game {game} is dealt" if lang == "en" else f"Se reparte la partida {game}"
    first = order[0]
    who = _who(players, first, lang)
    c = _card_text(identity[first] if first < len(identity) else None, lang)
    if lang == "en":
        return f"Game {game} is dealt; {who} holds {c} and plays first"
    return f"Se reparte la partida {game}; {who} tiene {c} y juega primero"


def _ev_cards_exchanged(d: dict, players: list[str], lang: str) -> str:
    a, b = _who(players, d.get("seat"), lang), _who(players, d.get("with"), lang)
    text = f"{a} and {b} exchange a card" if lang == "en" else f"{a} y {b} intercambian una carta"
    for receiver, giver in d.get("treason_chances") or []:
        r, g = _who(players, receiver, lang), _who(players, giver, lang)
        text += f"; {r} may denounce {g} for treason" if lang == "en" else f"; {r} puede acusar de traición a {g}"
    return text


def _ev_accused(d: dict, players: list[str], lang: str) -> str:
    a, t = _who(players, d.get("seat"), lang), _who(players, d.get("target"), lang)
    cards = _join([_card_text(c, lang) for c in d.get("cards") or []], lang)
    if lang == "en":
        shown = f"who shows {cards}" if cards else "who shows no card"
        return f"{a} accuses {t}, {shown}: " + ("the king is found" if d.get("king") else "no king")
    shown = f"que enseña {cards}" if cards else "que no enseña ninguna carta"
    return f"{a} acusa a {t}, {shown}: " + ("tiene el rey" if d.get("king") else "no tiene el rey")


def _ev_card_lost(d: dict, players: list[str], lang: str) -> str:
    who, c = _who(players, d.get("seat"), lang), d.get("card")
    en = lang == "en"
    text = f"{who} loses {_card_text(c, lang)}" if en else f"{who} pierde {_card_text(c, lang)}"
    if d.get("eliminated"):
        text += " and is eliminated" if en else " y queda eliminado"
    if d.get("king"):
        team = next((t for t in TEAMS if KINGS[t] == c), None)
        loser = _team(team, lang) if team else ("the team" if en else "su bando")
        text += f": it is the king, {loser} loses" if en else f": es el rey, pierde {loser}"
    return text


def _ev_game_ended(d: dict, players: list[str], lang: str) -> str:
    en = lang == "en"
    game = d.get("game")
    reason = d.get("reason")
    names = [_who(players, s, lang) for s in d.get("winners") or []]
    if reason == "treason":
        traitors = _join([_who(players, s, lang) for s in d.get("traitors") or []], lang)
        if d.get("double") or not names:
            if en:
                return f"Game {game} ends in a double treason ({traitors}): nobody wins"
            return f"Termina la partida {game} con una doble traición ({traitors}): no gana nadie"
        winners = _join(names, lang)
        if en:
            return f"Game {game} ends by treason: {winners} uncovers the treason of {traitors} and wins alone"
        return (
            f"Termina la partida {game} por traición: {winners} descubre la traición de {traitors} y gana en solitario"
        )
    win = d.get("winning_team")
    winner = _team(win, lang)
    if reason == "king_found":
        a, c = _who(players, d.get("discoverer"), lang), _who(players, d.get("custodian"), lang)
        how = f"{a} finds the king, held by {c}" if en else f"{a} descubre el rey, que custodiaba {c}"
    elif reason == "king_lost":
        c = _who(players, d.get("custodian"), lang)
        how = f"{c} loses the king" if en else f"{c} pierde el rey"
    else:
        loser = _team(_other(win), lang)
        how = f"{loser} has no players left" if en else f"{loser} se queda sin participantes"
    if en:
        return f"Game {game} ends: {how}; {winner} wins"
    return f"Termina la partida {game}: {how}; gana {winner}"


def _ev_assignment_began(d: dict, players: list[str], lang: str) -> str:
    teams = d.get("teams") or {}
    parts = []
    for i, team in enumerate(t for t in TEAMS if t in teams):
        who = _who(players, teams[team].get("chooser"), lang)
        if lang == "en":
            parts.append(f"{who} places the {team} identity cards" if i == 0 else f"{who} the {team} ones")
        else:
            parts.append(f"{who} reparte las cartas identificadoras de {team}" if i == 0 else f"{who} las de {team}")
    if not parts:
        return "Identity cards are placed" if lang == "en" else "Se reparten las cartas identificadoras"
    return _join(parts, lang)


def _ev_match_ended(d: dict, players: list[str], lang: str) -> str:
    en = lang == "en"
    played = d.get("games_played")
    games = (
        (f"{played} game" if played == 1 else f"{played} games")
        if en
        else (f"{played} partida" if played == 1 else f"{played} partidas")
    )
    winners = d.get("winners") or []
    scores = d.get("scores") or []
    names = _join([_who(players, s, lang) for s in winners], lang)
    if not winners:  # a match of one game ended by a double treason
        return (
            f"The match ends after {games}: nobody wins" if en else f"Termina el encuentro tras {games}: no gana nadie"
        )
    tops = {scores[s] for s in winners if isinstance(s, int) and 0 <= s < len(scores)}
    top = next(iter(tops)) if len(tops) == 1 and len(scores) > 0 else None  # (a team's members may score apart)
    pts = "" if top is None else (f" with {_points(top, lang)}" if en else f" con {_points(top, lang)}")
    if en:
        return f"The match ends after {games}: {names} {'wins' if len(winners) == 1 else 'win'}{pts}"
    return f"Termina el encuentro tras {games}: {'gana' if len(winners) == 1 else 'ganan'} {names}{pts}"


def label_event(event: dict, players: list[str], lang: str) -> str:
    """One short sentence for an event, from its public part only (``event["data"]``)."""
    lang = _lang(lang)
    en = lang == "en"
    kind = event.get("type")
    d = event.get("data") or {}
    who = _who(players, d.get("seat"), lang)
    if kind == "GameDealt":
        return _ev_game_dealt(d, players, lang)
    if kind == "ExchangeOffered":
        mate = _who(players, d.get("with"), lang)
        return f"{who} offers a card to {mate}" if en else f"{who} ofrece una carta a {mate}"
    if kind == "CardsExchanged":
        return _ev_cards_exchanged(d, players, lang)
    if kind == "TreasonDenounced":
        traitor, c = _who(players, d.get("traitor"), lang), _card_text(d.get("card"), lang)
        if en:
            return f"{who} denounces {traitor} for treason, showing {c}"
        return f"{who} acusa de traición a {traitor} y enseña {c}"
    if kind == "TreasonIgnored":
        return f"{who} lets the treason pass" if en else f"{who} deja pasar la traición"
    if kind == "Accused":
        return _ev_accused(d, players, lang)
    if kind == "CardLost":
        return _ev_card_lost(d, players, lang)
    if kind == "TurnBegan":
        rnd = d.get("round")
        return f"Round {rnd}: {who} to play" if en else f"Ronda {rnd}: turno de {who}"
    if kind == "GameEnded":
        return _ev_game_ended(d, players, lang)
    if kind == "IdentitySwapsBegan":
        winner = _who(players, d.get("winner"), lang)
        seq = d.get("sequence") or []
        first = _who(players, seq[0], lang) if seq else winner
        if en:
            return f"{winner} won the game; identity cards are swapped, starting with {first}"
        return f"{winner} ganó la partida; se intercambian las cartas identificadoras, empezando por {first}"
    if kind == "IdentitySwapped":
        other = _who(players, d.get("with"), lang)
        if en:
            return f"{who} swaps identity cards with {other}"
        return f"{who} intercambia su carta identificadora con {other}"
    if kind == "IdentityAssignmentBegan":
        return _ev_assignment_began(d, players, lang)
    if kind == "IdentityAssigned":
        to, c = _who(players, d.get("to"), lang), _card_text(d.get("card"), lang)
        if d.get("to") == d.get("seat"):
            return f"{who} keeps {c}" if en else f"{who} se queda con {c}"
        return f"{who} gives {c} to {to}" if en else f"{who} da {c} a {to}"
    if kind == "MatchEnded":
        return _ev_match_ended(d, players, lang)
    raise ValueError(f"unknown event type {kind!r} of ¡Muerte al rey!")


__all__ = [
    "CARD_PATTERN",
    "EVENT_SCHEMAS",
    "EVENT_TYPES",
    "MOVES",
    "PHASES",
    "ROLES",
    "VIEW_SCHEMA",
    "card",
    "code",
    "deck",
    "label_event",
    "label_move",
]
