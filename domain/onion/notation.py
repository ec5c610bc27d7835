"""Cripple Mr Onion in words and card codes: the notation clients show to people.

Pure: no I/O, no clock, no randomness; it reads ``domain.onion.hands`` (the
cards) and ``domain.onion.about`` (the modifiers) only, and no module of the
game imports it.

**Card codes.**  The game plays two 52-card packs (seed 002: "two standard
decks ... one having the English or French suits clubs, spades, hearts and
diamonds, and the second having the Spanish or Italian suits swords, staves,
cups and coins"), 104 distinct cards, ids 0..103 (``pack = id // 52``,
``suit = id % 52 // 13``, ``rank = id % 13 + 1``; see ``domain.onion.hands.cards``).

* French pack: rank then suit letter, as everywhere in the project: ranks
  ``A`` ``2``-``9`` ``10`` ``J`` ``Q`` ``K``, suits ``C`` clubs, ``S`` spades,
  ``H`` hearts, ``D`` diamonds (``QS`` the queen of spades, ``10H``).
* Spanish-suited pack: suit letter then rank, as Spanish cards are written in
  the project: ``E`` espadas (swords), ``B`` bastos (staves), ``C`` copas
  (cups), ``O`` oros (coins); the ace is ``1`` as in every Spanish pack,
  ``2``-``10`` the pips.  This pack has a ten, a jack, a queen and a king
  (not the sota 10, caballo 11 and rey 12 of a Spanish baraja), so its
  pictures are written with letters, ``J`` ``Q`` ``K``: ``OQ`` is the queen of
  coins (Great A'Tuin), ``CK`` the king of cups (Fate), ``EK`` the king of
  swords (Death), ``BJ`` the jack of staves (the Archchancellor).

A French code begins with its rank, a Spanish one with its suit letter, so
``7C`` (seven of clubs) and ``C7`` (seven of cups) never mix.  Every card
exists once: there are no copies.  ``points`` in :func:`deck` is the card's
value in an onion: tens and pictures 10, pips their number, and the ace 1
(it may also count 11, chosen in each grouping).

**Cards on the wire.**  The API, the stored log and posted moves write every
card as its code, everywhere; the rules keep working on the card ids.
``domain/wire.py`` translates, at one place, from where this module says the
cards are: the move schemas of ``MOVES`` mark each card (``x-naipes-card``,
a string matching ``CARD_PATTERN``), ``VIEW_CARDS`` lists the paths of the
cards in a ``view`` (every viewer, every phase) and ``EVENT_CARDS`` those of
each event type (public data and private parts).

**Shapes.**  ``VIEW_SCHEMA`` is the JSON Schema (2020-12) of a view as the API
shows it (every viewer, phase and option), ``EVENT_SCHEMAS`` those of each event
type's public ``data`` and whole ``private`` part, cards written as codes; they
use only what OpenAPI 3.0 can say, and the contract publishes them.

``label_move`` and ``label_event`` write short sentences in English
(``"en"``) and Spanish (``"es"``) from the rules' own values (card ids);
amounts are in chips.  The Spanish words for the game's own terms: the
Dealer is *la banca* (the Dealership passes, is offered and is auctioned as
*la banca*), the Elder *la mano*, the Younger *el postre*, the Pot *el
bote*, the Showdown *el enfrentamiento*, an onion *una cebolla* (an Onion
*una Cebolla*), a bagel *una rosquilla*.
"""

from __future__ import annotations

import re
from typing import Any

from domain.onion.about import FOLDS_RULES, MAX_PLAYERS, MIN_PLAYERS, OPTIONS, RULES_VERSION
from domain.onion.hands.cards import ARCH, ATUIN, DEATH, DECK_SIZE, FATE, FOOL, LADY, SENDER, value_of
from domain.onion.hands.plain import KINDS
from domain.onion.hands.profile import POS_FOOL
from domain.phrases import check_language as _check_lang
from domain.phrases import join
from domain.phrases import seat_name as _name
from domain.shapes import obj as _obj

# ---------------------------------------------------------------------- cards

_FR_SUITS = ("C", "S", "H", "D")  # clubs, spades, hearts, diamonds (paired suits 0..3)
_ES_SUITS = ("E", "B", "C", "O")  # espadas, bastos, copas, oros (paired with the above)
_RANKS_FR = {1: "A", 11: "J", 12: "Q", 13: "K"}
_RANKS_ES = {11: "J", 12: "Q", 13: "K"}

CARD_PATTERN = r"^(?:(?:[2-9]|10|[AJQK])[CSHD]|[EBCO](?:[1-9]|10|[JQK]))$"
_CARD_RE = re.compile(CARD_PATTERN)

_SUIT_WORDS = (
    # (pack, suit) -> (suit id, English, Spanish, colour as printed)
    (("clubs", "clubs", "tréboles", "black"), ("swords", "swords", "espadas", "blue")),
    (("spades", "spades", "picas", "black"), ("staves", "staves", "bastos", "green")),
    (("hearts", "hearts", "corazones", "red"), ("cups", "cups", "copas", "red")),
    (("diamonds", "diamonds", "diamantes", "red"), ("coins", "coins", "oros", "yellow")),
)
_RANK_EN = {
    1: "ace",
    2: "two",
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    8: "eight",
    9: "nine",
    10: "ten",
    11: "jack",
    12: "queen",
    13: "king",
}
_RANK_ES = {1: "as", 2: "dos", 3: "tres", 4: "cuatro", 5: "cinco", 6: "seis", 7: "siete", 8: "ocho", 9: "nueve"}
_RANK_ES.update({10: "diez", 12: "reina", 13: "rey"})


def _is_card(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < DECK_SIZE


def code(card: int) -> str:
    """The code of a card id (0..103): ``QS``, ``10H``, ``O1``, ``CK``."""
    if not _is_card(card):
        raise ValueError(f"not a Cripple Mr Onion card: {card!r} (cards are the integers 0..103)")
    pack, suit, rank = card // 52, card % 52 // 13, card % 13 + 1
    if pack == 0:
        return _RANKS_FR.get(rank, str(rank)) + _FR_SUITS[suit]
    return _ES_SUITS[suit] + _RANKS_ES.get(rank, str(rank))


def card(code: str) -> int:
    """The card id of a code; ValueError for a string that is no card of the game."""
    if not isinstance(code, str) or _CARD_RE.fullmatch(code) is None:
        raise ValueError(f"not a Cripple Mr Onion card code: {code!r} (a code matches {CARD_PATTERN})")
    if code[0] in "EBCO" and code[1:] in ("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"):
        suit, rank_text, pack = _ES_SUITS.index(code[0]), code[1:], 1
        rank = {"J": 11, "Q": 12, "K": 13}.get(rank_text) or int(rank_text)
    else:
        suit, rank_text, pack = _FR_SUITS.index(code[-1]), code[:-1], 0
        rank = {"A": 1, "J": 11, "Q": 12, "K": 13}.get(rank_text) or int(rank_text)
    return pack * 52 + suit * 13 + rank - 1


def _names(c: int) -> dict[str, str]:
    pack, suit, rank = c // 52, c % 52 // 13, c % 13 + 1
    _, en_suit, es_suit, _ = _SUIT_WORDS[suit][pack]
    es_rank = _RANK_ES.get(rank) or ("jota" if pack == 0 else "sota")
    return {"en": f"{_RANK_EN[rank]} of {en_suit}", "es": f"{es_rank} de {es_suit}"}


def deck(options: dict | None = None) -> list[dict]:
    """The 104 cards, French pack first.  No option changes the deck (the
    modifiers give seven cards a role, never add or remove one)."""
    out = []
    for c in range(DECK_SIZE):
        pack, suit = c // 52, c % 52 // 13
        suit_id, _, _, colour = _SUIT_WORDS[suit][pack]
        cd = code(c)
        out.append(
            {
                "code": cd,
                "id": c,
                "suit": suit_id,
                "rank": cd[:-1] if pack == 0 else cd[1:],
                "name": _names(c),
                "colour": colour,
                "points": value_of(c),
            }
        )
    return out


# ------------------------------------------------------ phases, roles, moves


def _both(en: str, es: str) -> dict[str, str]:
    return {"en": en, "es": es}


PHASES: list[dict] = [
    {
        "id": "created",
        "name": _both("Not started", "Sin empezar"),
        "description": _both("The table waits for the first round.", "La mesa espera la primera ronda."),
    },
    {
        "id": "draw",
        "name": _both("Draw", "Descarte"),
        "description": _both(
            "Elder to Younger, then the Dealer: each discards up to four cards and draws as many, or folds.",
            "De la mano al postre y luego la banca: cada uno descarta hasta cuatro cartas y roba otras tantas, "
            "o se retira.",
        ),
    },
    {
        "id": "bet_name",
        "name": _both("Dealer names a bet", "La banca fija la apuesta"),
        "description": _both(
            "The Dealer names the amount the others must match to stay in (it may be zero).",
            "La banca fija lo que los demás deben igualar para seguir (puede ser cero).",
        ),
    },
    {
        "id": "bet_respond",
        "name": _both("Answering the bet", "Respuesta a la apuesta"),
        "description": _both(
            "Elder to Younger: match the Dealer's bet, and raise if this part allows it, or fold.",
            "De la mano al postre: igualar la apuesta de la banca, y subir si esta parte lo permite, o retirarse.",
        ),
    },
    {
        "id": "bet_dealer",
        "name": _both("Dealer faces the raises", "La banca ante las subidas"),
        "description": _both(
            "The Dealer matches the collective raise or folds (the Dealership is then auctioned).",
            "La banca iguala la suma de las subidas o se retira (y entonces se subasta la banca).",
        ),
    },
    {
        "id": "auction",
        "name": _both("Auction of the Dealership", "Subasta de la banca"),
        "description": _both(
            "The Dealer has folded: the players still in bid for the Dealership, a Stake above the highest bid.",
            "La banca se ha retirado: los que siguen pujan por la banca, una puesta por encima de la puja más alta.",
        ),
    },
    {
        "id": "buy",
        "name": _both("Buying cards", "Compra de cartas"),
        "description": _both(
            "The second five: buy cards face down at a Stake each, then stand and take the rest face up.",
            "Las segundas cinco: comprar cartas boca abajo a una puesta cada una y plantarse para recibir el resto "
            "boca arriba.",
        ),
    },
    {
        "id": "extra",
        "name": _both("Extra bet", "Apuesta extra"),
        "description": _both(
            "Each player places an extra bet, possibly zero, in front of itself; the Dealer alone must match them.",
            "Cada jugador hace una apuesta extra, quizá cero, delante de sí; solo la banca debe igualarlas.",
        ),
    },
    {
        "id": "dealer_extra",
        "name": _both("Dealer faces the extra bets", "La banca ante las apuestas extra"),
        "description": _both(
            "The Dealer matches the extra bets, passes the Dealership to the Elder, or folds.",
            "La banca iguala las apuestas extra, pasa la banca a la mano o se retira.",
        ),
    },
    {
        "id": "offer",
        "name": _both("Dealership offered", "Banca ofrecida"),
        "description": _both(
            "The Dealership goes round from the Elder: accept it by matching the others' extra bets, or decline.",
            "La banca va pasando desde la mano: aceptarla igualando las apuestas extra de los demás, o rechazarla.",
        ),
    },
    {
        "id": "predeclare",
        "name": _both("Before the Showdown", "Antes del enfrentamiento"),
        "description": _both(
            "With modifiers: from the Elder to the Dealer, each may declare special cards, then is ready.",
            "Con modificadores: de la mano a la banca, cada uno puede declarar cartas especiales y luego pasa.",
        ),
    },
    {
        "id": "showdown",
        "name": _both("Showdown", "Enfrentamiento"),
        "description": _both(
            "With modifiers: the next player may declare, then shows its hand against the one holding the table.",
            "Con modificadores: el siguiente jugador puede declarar y enseña su mano contra la que domina la mesa.",
        ),
    },
    {
        "id": "answer",
        "name": _both("Answer in a duel", "Réplica en un duelo"),
        "description": _both(
            "With modifiers: the player now losing the duel declares a modifier or concedes.",
            "Con modificadores: quien va perdiendo el duelo declara un modificador o cede.",
        ),
    },
    {
        "id": "choose",
        "name": _both("Choosing a replacement", "Elección del reemplazo"),
        "description": _both(
            "The Lady or Fate was declared: its holder keeps one of the next two cards in its place.",
            "Se declaró la Dama o el Destino: quien la tenía se queda con una de las dos cartas siguientes.",
        ),
    },
    {
        "id": "reveal",
        "name": _both("Forced disclosure", "Revelación obligada"),
        "description": _both(
            "The Archchancellor brought out Death: every other player shows one undisclosed card.",
            "El Archicanciller sacó a la Muerte: cada uno de los demás enseña una carta aún oculta.",
        ),
    },
    {
        "id": "between_rounds",
        "name": _both("Between rounds", "Entre rondas"),
        "description": _both(
            "A round is over; the next one is being dealt.", "Ha terminado una ronda; se reparte la siguiente."
        ),
    },
    {
        "id": "finished",
        "name": _both("Match over", "Partida terminada"),
        "description": _both(
            "The match is over: the bankrolls are the scores.", "La partida ha terminado: cuenta lo que tiene cada uno."
        ),
    },
]


ROLES: list[dict] = [
    {"id": "dealer", "name": _both("Dealer", "Banca")},
    {"id": "elder", "name": _both("Elder", "Mano")},
    {"id": "player", "name": _both("Player", "Jugador")},
    {"id": "younger", "name": _both("Younger", "Postre")},
]


_CARD_SCHEMA: dict[str, Any] = {
    "type": "string",
    "pattern": CARD_PATTERN,
    "x-naipes-card": True,
    "description": "a card code (QS the queen of spades, 10H, O1 the ace of coins, CK the king of cups; see deck())",
}


def _schema(type_: str, fields: dict | None = None, required: tuple[str, ...] = (), **more: Any) -> dict:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"type": {"const": type_}, **(fields or {})},
        "required": ["type", *required],
        "additionalProperties": False,
        **more,
    }


def _chips(minimum: int = 0, what: str = "chips") -> dict:
    return {"type": "integer", "minimum": minimum, "description": what}


_DECLARABLE = ("lady", "fate", "rewild", "atuin", "elephants", "sender", "death", "archchancellor", "fool")


def _move(en: str, es: str, schema: dict) -> dict:
    return {"description": _both(en, es), "schema": schema}


MOVES: dict[str, dict] = {
    "discard": _move(
        "The draw: discard up to four cards (none is allowed) and draw as many from the pack.",
        "El descarte: descartar hasta cuatro cartas (o ninguna) y robar otras tantas del mazo.",
        _schema(
            "discard",
            {"cards": {"type": "array", "items": _CARD_SCHEMA, "maxItems": 4, "uniqueItems": True}},
            ("cards",),
        ),
    ),
    "fold": _move(
        "Fold: in the draw (throwing in all five), against the Dealer's bet, or as the Dealer refusing the "
        "collective raise or the extra bets (the Dealership is then auctioned).",
        "Retirarse: en el descarte (tirando las cinco), ante la apuesta de la banca, o siendo la banca al "
        "rechazar las subidas o las apuestas extra (entonces se subasta la banca).",
        _schema("fold"),
    ),
    "bet": _move(
        "The Dealer names a bet in chips (zero allowed, at most the largest raise).",
        "La banca fija una apuesta en fichas (puede ser cero, como mucho la subida máxima).",
        _schema("bet", {"amount": _chips()}, ("amount",)),
    ),
    "match": _move(
        "Match the Dealer's bet, with an optional raise in chips; or, as the Dealer, match the collective raise.",
        "Igualar la apuesta de la banca, con una subida opcional en fichas; o, siendo la banca, igualar las subidas.",
        _schema("match", {"raise": _chips(what="the raise in chips (0: none)")}),
    ),
    "bid": _move(
        "Bid for the Dealership: a total at least one Stake above the highest bid.",
        "Pujar por la banca: un total de al menos una puesta por encima de la puja más alta.",
        _schema("bid", {"amount": _chips(1, "the bid's total in chips")}, ("amount",)),
    ),
    "decline_bid": _move(
        "Leave the auction of the Dealership.", "Abandonar la subasta de la banca.", _schema("decline_bid")
    ),
    "buy": _move(
        "Buy cards face down from the Dealer at a Stake each (five in all at most).",
        "Comprar cartas boca abajo a la banca, a una puesta cada una (cinco en total como mucho).",
        _schema("buy", {"count": {"type": "integer", "minimum": 1, "maximum": 5}}, ("count",)),
    ),
    "stand": _move(
        "Stop buying: the rest of the second five are dealt face up.",
        "Dejar de comprar: el resto de las segundas cinco se reparte boca arriba.",
        _schema("stand"),
    ),
    "extra_bet": _move(
        "Place an extra bet in chips (zero allowed) that the Dealer alone must match.",
        "Hacer una apuesta extra en fichas (puede ser cero) que solo la banca debe igualar.",
        _schema("extra_bet", {"amount": _chips()}, ("amount",)),
    ),
    "match_extra": _move(
        "As the Dealer, match the total of the other players' extra bets.",
        "Siendo la banca, igualar la suma de las apuestas extra de los demás.",
        _schema("match_extra"),
    ),
    "pass_dealership": _move(
        "As the Dealer, give the Dealership to the Elder instead of matching the extra bets.",
        "Siendo la banca, pasar la banca a la mano en vez de igualar las apuestas extra.",
        _schema("pass_dealership"),
    ),
    "accept_dealership": _move(
        "Accept the Dealership offered, matching the other players' extra bets.",
        "Aceptar la banca ofrecida, igualando las apuestas extra de los demás.",
        _schema("accept_dealership"),
    ),
    "decline_dealership": _move(
        "Decline the Dealership offered; it passes on to the left.",
        "Rechazar la banca ofrecida, que pasa al siguiente.",
        _schema("decline_dealership"),
    ),
    "declare": _move(
        "Declare a modifier's special card: the Lady, Fate, the Lady's claim to wild eights (rewild), Great "
        "A’Tuin (from, to), the Elephants (four cards), the Sender of Eights, Death, the Archchancellor, the Fool.",
        "Declarar la carta especial de un modificador: la Dama, el Destino, los ochos comodines de quien tiene "
        "la Dama (rewild), la Gran A’Tuin (from, to), los Elefantes (cuatro cartas), el Emisor de Ochos, la "
        "Muerte, el Archicanciller, el Loco.",
        _schema(
            "declare",
            {
                "modifier": {"enum": list(_DECLARABLE)},
                "from": _CARD_SCHEMA,
                "to": _CARD_SCHEMA,
                "cards": {"type": "array", "items": _CARD_SCHEMA, "minItems": 4, "maxItems": 4, "uniqueItems": True},
            },
            ("modifier",),
            allOf=[
                {
                    "if": {"properties": {"modifier": {"const": "atuin"}}},
                    "then": {"required": ["from", "to"], "not": {"required": ["cards"]}},
                },
                {
                    "if": {"properties": {"modifier": {"const": "elephants"}}},
                    "then": {"required": ["cards"], "not": {"anyOf": [{"required": ["from"]}, {"required": ["to"]}]}},
                },
                {
                    "if": {
                        "properties": {
                            "modifier": {"enum": [m for m in _DECLARABLE if m not in ("atuin", "elephants")]}
                        }
                    },
                    "then": {"not": {"anyOf": [{"required": ["from"]}, {"required": ["to"]}, {"required": ["cards"]}]}},
                },
            ],
        ),
    ),
    "choose": _move(
        "Keep one of the two cards offered in place of the Lady or Fate.",
        "Quedarse con una de las dos cartas ofrecidas en lugar de la Dama o del Destino.",
        _schema("choose", {"card": _CARD_SCHEMA}, ("card",)),
    ),
    "reveal": _move(
        "Show one undisclosed card, as the Archchancellor demands.",
        "Enseñar una carta aún oculta, como exige el Archicanciller.",
        _schema("reveal", {"card": _CARD_SCHEMA}, ("card",)),
    ),
    "ready": _move(
        "Declare nothing more before the Showdown.",
        "No declarar nada más antes del enfrentamiento.",
        _schema("ready"),
    ),
    "show": _move(
        "Show one's hand against the player holding the table.",
        "Enseñar la mano contra quien domina la mesa.",
        _schema("show"),
    ),
    "concede": _move("Concede the duel.", "Ceder el duelo.", _schema("concede")),
}


# Where the cards are (``domain/wire.py``): dot paths, each step a key or ``*``
# (every element of a list, every value of an object), each path ending at a card.
# A hand's arrangement (``hands.evaluate`` / ``hands.best_arrangement``, as the
# Showdown reports it) holds cards in ``cards``, ``groupings.*.cards`` and ``unused``.
_ARRANGEMENT: tuple[str, ...] = ("cards.*", "groupings.*.cards.*", "unused.*")


def _under(prefix: str, paths: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f"{prefix}.{p}" for p in paths)


VIEW_CARDS: tuple[str, ...] = (
    "hand.*",  # a seat
    "up.*.*",  # the face-up cards of every seat
    "legal_moves.*.cards.*",  # a seat's legal moves: discard, declare (the Elephants)
    "legal_moves.*.card",  # choose, reveal
    "legal_moves.*.from",  # declare (Great A'Tuin)
    "legal_moves.*.to",
    "hands.*.*",  # the reviewer
    "deck.*",
    *_under("last_round.showdown.*", _ARRANGEMENT),  # the data of the last RoundEnded
    "modifiers.declared.*.card",
    "modifiers.great_atuin.from",
    "modifiers.great_atuin.to",
    "modifiers.elephants.cards.*",
    "modifiers.disclosed.*.*",
    "modifiers.on_table.*.*",
    "modifiers.offer.*",  # the seat choosing a replacement, the reviewer
    *_under("modifiers.showdown.arrangements.*", _ARRANGEMENT),
)

EVENT_CARDS: dict[str, tuple[str, ...]] = {
    # the deal's own secret (``private.deal.deck``) is the table's: see domain/wire.py
    "RoundStarted": ("private.*.hand.*", "private.deck.deck.*"),
    "Discarded": ("private.*.discarded.*", "private.*.drawn.*"),
    "DealerDealt": ("private.*.cards.*",),
    "Bought": ("private.*.cards.*",),
    "Stood": ("data.up.*",),
    "RoundEnded": _under("data.showdown.*", _ARRANGEMENT),
    "Declared": (
        "data.card",
        "data.from",
        "data.to",
        "data.cards.*",
        "data.pending.card",
        "private.*.offer.*",
    ),
    "ReplacementChosen": ("data.card", "data.kept", "private.*.kept", "private.*.rejected"),
    "CardRevealed": ("data.card",),
    "HandShown": ("data.cards.*", *_under("data.arrangement", _ARRANGEMENT)),
    "Compared": _under("data.hands.*", _ARRANGEMENT),
}


EVENT_TYPES: tuple[str, ...] = (
    "RoundStarted",
    "Discarded",
    "Folded",
    "BetNamed",
    "Matched",
    "RaiseMatched",
    "PartOpened",
    "DealerDealt",
    "Bought",
    "Stood",
    "ExtraBet",
    "ExtraMatched",
    "DealershipPassed",
    "DealershipDeclined",
    "DealerChanged",
    "AuctionOpened",
    "Bid",
    "BidDeclined",
    "RoundEnded",
    "MatchEnded",
    "Declared",
    "ReplacementChosen",
    "CardRevealed",
    "ShowdownOpened",
    "Ready",
    "ChallengerCalled",
    "HandShown",
    "Compared",
    "Conceded",
    "DuelEnded",
)


# ------------------------------------------------------------------ shapes
# The JSON Schemas (2020-12) of the view as the API shows it (``VIEW_SCHEMA``: every viewer, every
# phase, every option) and of every event's public data and secret part (``EVENT_SCHEMAS``), cards
# written as codes.  Cards sit where ``VIEW_CARDS`` / ``EVENT_CARDS`` say, each one a card item
# (``_CARD_SCHEMA``).  Only keywords OpenAPI 3.0 can express are used.

_LAST_SEAT = MAX_PLAYERS - 1
_MOST_ROUNDS = OPTIONS["properties"]["rounds"]["maximum"]
_HAND = 10  # cards in a full hand: the first five and the second five
_MOST_GROUPINGS = _HAND // 2  # a grouping holds two cards at least
_PHASE_IDS = [p["id"] for p in PHASES]
_ROLE_IDS = [r["id"] for r in ROLES]
_BASE_KINDS = list(KINDS)
_MOD_KINDS = [*KINDS, "octavo", "elephants_double_onion"]
_MOST_KEY = (max(POS_FOOL.values()) + 1) * 64 - 1  # position x 64 + sub-rank (0..63)
_SPECIAL_NAMES = ["the Lady", "Fate", "Great A'Tuin", "the Sender of Eights", "Death", "the Archchancellor", "the Fool"]
_HOWS = ["value", "precedence", "crippled", "out-crippled", "crippler"]  # how a comparison is decided


def _card_item(description: str) -> dict:
    return {**_CARD_SCHEMA, "description": description}


def _cards(description: str, least: int = 0, most: int | None = _HAND, what: str = "a card") -> dict:
    out: dict[str, Any] = {"type": "array", "items": _card_item(what), "description": description}
    if least:
        out["minItems"] = least
    if most is not None:
        out["maxItems"] = most
    return out


def _int(description: str, minimum: int | None = 0, maximum: int | None = None, nullable: bool = False) -> dict:
    out: dict[str, Any] = {"type": ["integer", "null"] if nullable else "integer", "description": description}
    if minimum is not None:
        out["minimum"] = minimum
    if maximum is not None:
        out["maximum"] = maximum
    return out


def _chip(description: str, minimum: int = 0) -> dict:
    return _int(description + " (chips)", minimum)


def _seat(description: str, nullable: bool = False) -> dict:
    return _int(description, 0, _LAST_SEAT, nullable)


def _seats(description: str, least: int = 0, most: int = MAX_PLAYERS) -> dict:
    out = {"type": "array", "items": _seat("a seat number"), "maxItems": most, "description": description}
    if least:
        out["minItems"] = least
    return out


def _per_seat(description: str, item: dict) -> dict:
    """A list with one entry per seat of the table, indexed by seat number."""
    return {
        "type": "array",
        "items": item,
        "minItems": MIN_PLAYERS,
        "maxItems": MAX_PLAYERS,
        "description": "seat number (index) -> " + description,
    }


def _by_seat(description: str, value: dict) -> dict:
    """An object keyed by seat number (as a string)."""
    return {
        "type": "object",
        "additionalProperties": value,
        "description": "seat number (as a string) -> " + description,
    }


def _bool(description: str) -> dict:
    return {"type": "boolean", "description": description}


def _enum(description: str, values: list, nullable: bool = False) -> dict:
    if nullable:
        return {"type": ["string", "null"], "enum": [*values, None], "description": description}
    return {"type": "string", "enum": list(values), "description": description}


def _const(description: str, value: Any) -> dict:
    return {"type": "string" if isinstance(value, str) else "boolean", "const": value, "description": description}


# ------------------------------------------------------------ shared parts

_OPEN_BETTING = _obj(
    "the betting part just opened: nothing named yet",
    {
        "round": _int("the betting round: 1 (before the second five) or 2 (after the extra bets)", 1, 2),
        "part": _int("the part of that betting round: 1 to 3 in round 1, 1 or 2 in round 2", 1, 3),
        "bet": {
            "type": ["integer", "null"],
            "enum": [None],
            "description": "the Dealer's bet: always null, the Dealer has not named it yet",
        },
        "raises": {
            "type": "object",
            "properties": {},
            "additionalProperties": False,
            "description": "the raises made in this part: always empty ({}), nobody has raised yet",
        },
    },
)


def _to(description: str, phases: list[str], betting: str = "no", nullable: bool = False) -> dict:
    """Where the game goes next (``to``): the phase and the seat on turn; ``betting`` is "open" (the
    opened betting part is given), "null" (betting is over: null), "maybe" (given when the phase is
    bet_name) or "no" (never given)."""
    props: dict[str, Any] = {
        "phase": _enum("the phase the game moves to", phases),
        "turn": _seat("the seat on turn in that phase"),
    }
    optional: tuple[str, ...] = ()
    if betting == "null":
        props["betting"] = {
            "type": ["object", "null"],
            "enum": [None],
            "description": "the betting is over for now (always null)",
        }
    elif betting in ("open", "maybe"):
        props["betting"] = _OPEN_BETTING
        if betting == "maybe":
            optional = ("betting",)
            props["betting"] = {**_OPEN_BETTING, "description": "present when phase is bet_name: the part opened"}
    return _obj(description, props, optional, nullable)


_RUN = _obj(
    "#0: the hand's longest running flush of nine or ten cards (the fewest wild cards); null when it has none "
    "or crippling (#0) is off",
    {
        "length": _int("cards in the run: 9 or 10", 9, 10),
        "wilds": _int("wild cards the run needs (#2)", 0, _HAND),
        "suit": _int("the paired suit: 0 clubs/swords, 1 spades/staves, 2 hearts/cups, 3 diamonds/coins", 0, 3),
        "low": _int("the lowest denomination of the run: 1 (ace low) to 6", 1, 6),
    },
    nullable=True,
)

_RANKS_IN_WORDS = ", ".join(f"{i} {kind.replace('_', ' ')}" for i, kind in enumerate(KINDS, start=1))

_PLAIN_ARRANGEMENT = _obj(
    "a hand as the server arranged it, base game (no modifier on)",
    {
        "cards": _cards("the ten cards of the hand", _HAND, _HAND),
        "value": {
            "type": "array",
            "items": _int(f"a grouping's rank, lowest first: {_RANKS_IN_WORDS}", 1, 20),
            "maxItems": _MOST_GROUPINGS,
            "description": "the hand's value: its grouping ranks, highest first; compared element by element, "
            "a longer list beats its own prefix",
        },
        "groupings": {
            "type": "array",
            "maxItems": _MOST_GROUPINGS,
            "description": "the groupings, highest first (all bagels form one grouping, all picture+ace pairs one "
            "Onion)",
            "items": _obj(
                "one grouping",
                {
                    "kind": _enum("the grouping's kind", _BASE_KINDS),
                    "rank": _int(f"its rank in the order of groupings, lowest first: {_RANKS_IN_WORDS}", 1, 20),
                    "cards": _cards("the cards of the grouping", 2),
                },
            ),
        },
        "unused": _cards("the cards in no grouping (they count for nothing)"),
    },
)

_MOD_ARRANGEMENT = _obj(
    "a hand as the server arranged it under the modifiers in force for it",
    {
        "cards": _cards("the ten cards of the hand", _HAND, _HAND),
        "value": {
            "type": "array",
            "items": _int(
                "a grouping's key: position x 64 + sub-rank (32; less for null eights, 40 the Octavo, 24 the "
                "Elephants); the Fool changes the positions",
                64,
                _MOST_KEY,
            ),
            "maxItems": _MOST_GROUPINGS,
            "description": "the hand's value: its grouping keys, highest first; compared element by element, "
            "a longer list beats its own prefix",
        },
        "groupings": {
            "type": "array",
            "maxItems": _MOST_GROUPINGS,
            "description": "the groupings, highest first",
            "items": _obj(
                "one grouping",
                {
                    "kind": _enum("the grouping's kind (octavo: #3; elephants_double_onion: #7)", _MOD_KINDS),
                    "key": _int("its key: position x 64 + sub-rank", 64, _MOST_KEY),
                    "cards": _cards("the cards of the grouping", 2),
                    "nulls": _int("#1i: null eights counting zero in it", 0, 8),
                },
            ),
        },
        "unused": _cards("the cards in no grouping (they count for nothing)"),
        "notes": {
            "type": "array",
            "items": {"type": "string", "description": "one note, in English"},
            "description": "which modifier changed what in this hand (English sentences, to show as they are)",
        },
        "run": _RUN,
        "top": _enum("the kind of the highest grouping; null when the hand has none", _MOD_KINDS, nullable=True),
        "onion_wilds": _int("#2: the most wild cards the top Onion (or great bagel) holds", 0, _HAND),
        "null_eights": _int("#1i: null eights played in the whole hand", 0, 8),
    },
)

_ARRANGEMENT_EITHER = {
    "anyOf": [_PLAIN_ARRANGEMENT, _MOD_ARRANGEMENT],
    "description": "the seat's arranged hand: the base game's form, or (with any modifier on) the modifiers' form",
}

_CRIPPLER = _obj(
    "#0: the player who crippled an Onion in this Showdown and keeps that standing; null when nobody has",
    {
        "seat": _seat("the crippler's seat"),
        "length": _int("the length of its running flush: 9 or 10", 9, 10),
        "victim_wilds": _int("#2: wild cards of the Onion it crippled", 0, _HAND),
    },
    nullable=True,
)

_OUTCOME_FIELDS = {
    "scores": _per_seat("the seat's final bankroll in chips: its score", _chip("a bankroll")),
    "ranking": _seats("every seat, best first (by bankroll, ties by seat number)", MIN_PLAYERS),
    "winners": _seats("the seats with the highest bankroll", 1),
    "rounds_played": _int("rounds played, a round whose Pot carried over included", 0, _MOST_ROUNDS),
    "pot_left": _chip("a Pot still carried over at the end, left unclaimed"),
}

_ROUND_ENDED_FIELDS = {
    "round": _int("the round that ended, from 1", 1, _MOST_ROUNDS),
    "winner": _seat("the seat that takes the Pot and deals next; null when nobody does (the Pot carries over)", True),
    "amount": _chip("what the winner takes: the whole Pot (0 when nobody wins)"),
    "reason": _enum(
        "how the round ended: showdown (best hand), last-player-in (all others folded), no-dealer (nobody bid "
        "for the Dealership), dealership-refused (every player declined the Dealership offered)",
        ["showdown", "last-player-in", "no-dealer", "dealership-refused"],
    ),
    "showdown": {
        **_by_seat("that player's hand as arranged at the Showdown", _ARRANGEMENT_EITHER),
        "type": ["object", "null"],
        "description": "seat number (as a string) -> that player's arranged hand, for every player in the Showdown; "
        "null when the round ended without one",
    },
    "order": _seats("the round's precedence: Dealer, Elder, ..., Younger", MIN_PLAYERS),
    "returned": _by_seat(
        "chips of an unmatched extra bet given back to that player (only seats with chips); present under rules 3",
        _chip("chips given back", 1),
    ),
}


# ------------------------------------------------------------- legal moves


def _legal(kind: str, description: str, fields: dict | None = None, optional: tuple[str, ...] = ()) -> dict:
    return _obj(
        f"{kind}: {description}",
        {"type": {"type": "string", "const": kind, "description": "the move type"}, **(fields or {})},
        optional,
    )


_LEGAL_MOVE = {
    "description": "a move the seat may post now, as it may be posted (`moves` of GET /game-types/onion says "
    "what each type means)",
    "oneOf": [
        _legal("discard", "discard these cards and draw as many", {"cards": _cards("the cards to discard", 0, 4)}),
        _legal("fold", "fold (in the draw, against a bet, or as the Dealer)"),
        _legal("bet", "the Dealer names this bet", {"amount": _chip("the bet")}),
        _legal(
            "match",
            "match the Dealer's bet (with this raise), or as the Dealer match the raises",
            {"raise": _chip("the raise on top of the bet; absent when the Dealer matches the collective raise")},
            ("raise",),
        ),
        _legal("bid", "bid for the Dealership", {"amount": _chip("the bid's total", 1)}),
        _legal("decline_bid", "leave the auction"),
        _legal("buy", "buy this many cards face down", {"count": _int("cards to buy, a Stake each", 1, 5)}),
        _legal("stand", "stop buying; the rest of the second five come face up"),
        _legal("extra_bet", "make this extra bet", {"amount": _chip("the extra bet")}),
        _legal("match_extra", "as the Dealer, match the other players' extra bets"),
        _legal("pass_dealership", "as the Dealer, give the Dealership to the Elder"),
        _legal("accept_dealership", "accept the Dealership offered"),
        _legal("decline_dealership", "decline the Dealership offered"),
        _legal(
            "declare",
            "declare a modifier's special card",
            {
                "modifier": _enum("the declaration", list(_DECLARABLE)),
                "from": _card_item("Great A'Tuin (atuin) only: the card giving eight points"),
                "to": _card_item("Great A'Tuin (atuin) only: the card receiving them"),
                "cards": _cards("the Elephants only: the four cards declared with the queen of coins", 4, 4),
            },
            ("from", "to", "cards"),
        ),
        _legal("choose", "keep this card in place of the Lady or Fate", {"card": _card_item("one card offered")}),
        _legal("reveal", "show this undisclosed card (#10ii)", {"card": _card_item("an undisclosed card")}),
        _legal("ready", "declare nothing more before the Showdown"),
        _legal("show", "show the hand against the player holding the table"),
        _legal("concede", "concede the duel"),
    ],
}


# -------------------------------------------------------------------- view

_MODIFIERS_VIEW = _obj(
    "present only when at least one modifier (#0-#11) is on: what the modifiers have done this round (public)",
    {
        "eights_wild": _bool("#1ii: eights are wild now for everybody"),
        "round_began_wild": _bool("#1ii: this round began with wild eights"),
        "next_round_wild": _bool("#1ii: the next round will begin with wild eights (a null eight was played)"),
        "own_eights_wild_again": _seat("#5ii: the seat whose own eights are wild again (rewild); null if none", True),
        "declared": {
            "type": "array",
            "description": "the special cards declared this round, in order",
            "items": _obj(
                "one declared card",
                {
                    "card": _card_item("the special card"),
                    "name": _enum("its name as a special card (English)", _SPECIAL_NAMES),
                    "seat": _seat("the seat that declared it (or was made to show it)"),
                },
            ),
        },
        "lady": _obj(
            "#4: the Lady's declaration; null until declared",
            {
                "seat": _seat("who declared the Lady"),
                "mode": _enum(
                    "replace (#4i: replaced by a card offered) or devalue (#4ii, wild eights)", ["replace", "devalue"]
                ),
            },
            nullable=True,
        ),
        "fate": _obj(
            "#5: Fate's declaration; null until declared",
            {
                "seat": _seat("who declared Fate"),
                "mode": _enum(
                    "replace (#5i: replaced, zeroes the Lady's player's aces) or stop (#5ii: eights not wild)",
                    ["replace", "stop"],
                ),
            },
            nullable=True,
        ),
        "zeroed_aces": _seats("#5i: seats whose aces count zero this round", 0, 1),
        "great_atuin": _obj(
            "#6: Great A'Tuin's shift; null until declared",
            {
                "seat": _seat("who declared it"),
                "from": _card_item("the card that gave eight points"),
                "to": _card_item("the card that received them"),
            },
            nullable=True,
        ),
        "elephants": _obj(
            "#7: the Elephants; null until declared",
            {
                "seat": _seat("who declared them"),
                "cards": _cards("the four cards declared with the queen of coins", 4, 4),
            },
            nullable=True,
        ),
        "sender": _obj(
            "#8: the Sender of Eights made visible; null until then",
            {"seat": _seat("its holder"), "forced": _bool("#8ii: declared by the server when dealt (wild eights)")},
            nullable=True,
        ),
        "death": _obj(
            "#9: Death shown; null until then",
            {"seat": _seat("its holder"), "forced": _bool("#10ii: brought out by the Archchancellor")},
            nullable=True,
        ),
        "archchancellor": _obj(
            "#10ii: the Archchancellor's declaration; null until declared",
            {"seat": _seat("who declared it")},
            nullable=True,
        ),
        "jack_of_staves_wild": _bool("#10ii: the jack of staves is wild for the rest of the round"),
        "fool": _bool("#11: the Fool is declared: bagels and Onions have swapped places"),
        "disclosed": _per_seat(
            "the cards of that seat's hand everybody has seen (face up, declared, revealed, or shown at the "
            "Showdown); empty for a seat not in the round",
            _cards("the seat's disclosed cards"),
        ),
        "on_table": {
            "type": "array",
            "maxItems": MAX_PLAYERS,
            "items": _cards("the Lady and/or Fate left on the table by that seat", 0, 2),
            "description": "seat number (index) -> the replaced special cards left on the table by that seat; an "
            "empty list (no entry per seat) before the first round",
        },
        "pending": _obj(
            "a declaration waiting on a player (phases choose and reveal); null otherwise",
            {
                "kind": _enum("choose (a replacement for the Lady or Fate) or reveal (#10ii)", ["choose", "reveal"]),
                "seat": _seat("the seat that must choose or reveal"),
                "queue": _seats(
                    "reveal: every seat still to reveal, in order, the one acting first (as the Declared event "
                    "published it); absent for choose",
                    1,
                ),
            },
            optional=("queue",),
            nullable=True,
        ),
        "showdown": _obj(
            "the Showdown in progress (phases predeclare, showdown, answer and after); null before it",
            {
                "order": _seats("the players in the Showdown, Elder first, Dealer last", 1),
                "holder": _seat("the seat holding the table; null before the first hand is shown", True),
                "challenger": _seat("the seat dueling the holder now; null between duels", True),
                "leader": _seat("the seat winning the current duel; null before the first hand is shown", True),
                "crippler": _CRIPPLER,
                "shown": _seats("the seats whose hands have been shown, in order"),
                "arrangements": _by_seat("that player's shown hand as arranged now", _MOD_ARRANGEMENT),
                "duels": {
                    "type": "array",
                    "description": "the duels decided so far, in order",
                    "items": _obj(
                        "one duel",
                        {
                            "winner": _seat("the seat that won the duel"),
                            "loser": _seat("the seat that lost it"),
                            "how": _enum("how it was decided", [*_HOWS, "conceded"]),
                        },
                    ),
                },
            },
            nullable=True,
        ),
        "notes": {
            "type": "array",
            "items": {"type": "string", "description": "one note, in English"},
            "description": "every declaration and its effect this round (English sentences, to show as they are)",
        },
        "offer": _cards(
            "the two cards offered in place of the Lady or Fate: only for the seat choosing (phase choose) and "
            "the reviewer",
            2,
            2,
        ),
    },
    optional=("offer",),
)

_OPTIONS_VIEW = _obj(
    "the table's options (`options` of GET /game-types/onion describes each): the numbers and the twelve modifiers",
    {
        k: {kk: vv for kk, vv in spec.items() if kk in ("type", "minimum", "maximum", "description")}
        for k, spec in OPTIONS["properties"].items()
    },
)

VIEW_SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    **_obj(
        "Cripple Mr Onion as a viewer sees it: a seat (its own hand and legal moves), a spectator (no hidden card) "
        "or a reviewer (every hand and the deck)",
        {
            "game": _const("the game type (always onion)", "onion"),
            "rules_version": _enum("the rules version the game started under", [*FOLDS_RULES, RULES_VERSION]),
            "phase": _enum("the phase (`phases` of GET /game-types/onion describes each)", _PHASE_IDS),
            "round_no": _int("the round being played, from 1; 0 before the first", 0, _MOST_ROUNDS),
            "rounds_total": _int("rounds in the match (option rounds)", 1, _MOST_ROUNDS),
            "players": _per_seat("the player's name", {"type": "string", "description": "a player's name"}),
            "options": _OPTIONS_VIEW,
            "bankrolls": _per_seat("the seat's chips (not counting its extra bet in front of it)", _chip("a bankroll")),
            "pot": _chip("the Pot"),
            "dealer": _seat(
                "the Dealer of the round being played (or of the last one); before the first round, the first Dealer"
            ),
            "order": _seats("the round's precedence: Dealer, Elder, ..., Younger; empty before the first round"),
            "roles": _per_seat(
                "the seat's role this round; null for a seat not dealt in", _enum("a role", _ROLE_IDS, nullable=True)
            ),
            "in_round": _seats("the seats still in the round (not folded), in seat order"),
            "hand_sizes": _per_seat("cards in the seat's hand (face-up cards included)", _int("a count", 0, _HAND)),
            "up": _per_seat("the seat's face-up cards (the rest of its second five)", _cards("face-up cards", 0, 5)),
            "deck_size": _int("cards left in the deck", 0, DECK_SIZE),
            "discards": _int(
                "cards out of play face down this round (discarded, folded, replaced); after the round, its hands too",
                0,
            ),
            "turn": _seat("the seat on turn; null when nobody is", True),
            "to_act": _seats("the seats that must act now (none or one)", 0, 1),
            "betting": _obj(
                "the current betting part, kept through an auction or the Showdown that follows it; null in the draw, "
                "from the second five until the second betting round opens, and between rounds",
                {
                    "round": _int("the betting round: 1 (before the second five) or 2 (after the extra bets)", 1, 2),
                    "part": _int("the part: 1 to 3 in round 1, 1 or 2 in round 2", 1, 3),
                    "bet": _int("the Dealer's bet in chips; null until named", 0, None, True),
                    "raises": _by_seat(
                        "that player's raise in this part (chips; only seats that raised)", _chip("a raise", 1)
                    ),
                },
                nullable=True,
            ),
            "bought": _int("phase buy: cards the seat on turn has bought so far; 0 otherwise", 0, 5),
            "extra": _by_seat(
                "the extra bet that player made this round (chips, as made, zero allowed)", _chip("an extra bet")
            ),
            "in_front": _per_seat(
                "chips of the seat's extra bet lying in front of it, not yet matched (always 0 under rules 1 and 2)",
                _chip("chips in front"),
            ),
            "offer": _obj(
                "the Dealership offered round the table (phase offer, and after); null when it is not",
                {"from": _seat("the Dealer who passed the Dealership")},
                nullable=True,
            ),
            "auction": _obj(
                "the auction of the Dealership (phase auction); null otherwise",
                {
                    "active": _seats("the seats still bidding, Elder first", 1),
                    "bids": _by_seat("that player's bid so far, its total (chips)", _chip("a bid", 1)),
                    "high": _chip("the highest bid (0 before any)"),
                    "leader": _seat("the highest bidder; null before any bid", True),
                    "after": _const(
                        "present when the Dealer folded facing extra bets: the new Dealer then faces them", "extra_bets"
                    ),
                },
                optional=("after",),
                nullable=True,
            ),
            "carry": _bool("the last round ended with nobody winning: the Pot carries over as the next ante"),
            "last_round": _obj(
                "the last round's end (the data of its RoundEnded event); null before any round ended",
                _ROUND_ENDED_FIELDS,
                optional=("returned",),
                nullable=True,
            ),
            "outcome": _obj("the match's result (phase finished); null before", _OUTCOME_FIELDS, nullable=True),
            "seat": _seat("the viewer's own seat: present for a seat only"),
            "hand": _cards("the viewer's hand, face-up cards included: present for a seat only"),
            "legal_moves": {
                "type": "array",
                "items": _LEGAL_MOVE,
                "description": "the moves the viewer may post now (empty when not on turn): present for a seat only",
            },
            "hands": _per_seat(
                "the seat's hand (face-up cards included): present for the reviewer only", _cards("a hand")
            ),
            "deck": _cards("the deck, top first: present for the reviewer only", 0, DECK_SIZE),
            "modifiers": _MODIFIERS_VIEW,
        },
        optional=("seat", "hand", "legal_moves", "hands", "deck", "modifiers"),
    ),
}


# ------------------------------------------------------------------ events


def _event(description: str, data: dict, optional: tuple[str, ...] = (), private: dict | None = None) -> dict:
    return {"description": description, "data": _obj(description, data, optional), "private": private}


def _secret(description: str, part: dict) -> dict:
    """A private part whose keys are seat numbers: each seat's part."""
    return _by_seat(description, part)


_PENDING_CHOOSE = _obj(
    "the declarer must now choose a replacement (phase choose)",
    {
        "kind": _const("choose", "choose"),
        "seat": _seat("the seat choosing: the declarer"),
        "card": _card_item("the special card to be replaced: the Lady (QS) or Fate (CK)"),
    },
)
_PENDING_REVEAL = _obj(
    "#10ii: the other players must each reveal a card (phase reveal)",
    {
        "kind": _const("reveal", "reveal"),
        "seat": _seat("the first seat that must reveal"),
        "queue": _seats("every seat that must reveal, in order", 1),
    },
)

EVENT_SCHEMAS: dict[str, dict] = {
    "RoundStarted": _event(
        "A round begins: the Dealer is set, every seat dealt in antes (or the carried Pot is the ante) and gets "
        "five cards face down.",
        {
            "round": _int("the round number, from 1", 1, _MOST_ROUNDS),
            "dealer": _seat("the Dealer of the round"),
            "seating": _seats("the seats dealt in (those holding a Stake), in seat order", MIN_PLAYERS),
            "order": _seats("precedence: Dealer, Elder, ..., Younger", MIN_PLAYERS),
            "ante": _chip("what each seat dealt in paid into the Pot; 0 when the carried Pot is the ante"),
            "carried": _bool("the Pot of the last round carried over and is this round's ante"),
            "bankrolls": _per_seat("the seat's chips after the ante", _chip("a bankroll")),
            "pot": _chip("the Pot after the ante"),
            "turn": _seat("the seat on turn: the Elder, first to draw"),
            "commitment": {
                "type": "string",
                "pattern": "^[0-9a-f]{64}$",
                "description": "SHA-256 (hex) of the deal's salt and shuffled deck, to check once the deal is revealed",
            },
        },
        private={
            "type": "object",
            "description": "seat number (as a string) -> that seat's first five; plus deck (the undealt cards) and "
            "deal (the secret the commitment seals), which no seat receives",
            "properties": {
                "deal": _obj(
                    "the secret of the commitment: revealed when the round is over",
                    {
                        "salt": {
                            "type": "string",
                            "pattern": "^[0-9a-f]{32}$",
                            "description": "the salt hashed with the deck (32 hex digits)",
                        },
                        "deck": _cards("the whole shuffled deck, top first (104 cards)", DECK_SIZE, DECK_SIZE),
                    },
                ),
                "deck": _obj(
                    "the undealt cards",
                    {"deck": _cards("the deck after the deal, top first", 0, DECK_SIZE, "a card of the deck")},
                ),
            },
            "required": ["deal", "deck"],
            "additionalProperties": _obj("a seat's deal", {"hand": _cards("the seat's first five", 5, 5)}),
        },
    ),
    "Discarded": _event(
        "A player discards some cards face down and draws as many (the draw), or folds throwing in all five.",
        {
            "seat": _seat("the seat that drew or folded"),
            "count": _int("cards discarded: 0 to 4, or 5 when folding", 0, 5),
            "fold": _bool("the player folded (all five thrown in)"),
            "to": _to("the next seat to draw, or the first betting part opened", ["draw", "bet_name"], "maybe"),
        },
        private=_secret(
            "the drawing seat's cards",
            _obj(
                "the cards that left and entered the hand",
                {
                    "discarded": _cards("the cards discarded (all five when folding)", 0, 5),
                    "drawn": _cards("the cards drawn (none when folding)", 0, 4),
                },
            ),
        ),
    ),
    "Folded": _event(
        "A player folds against the Dealer's bet, or the Dealer folds rather than match the raises or the extra "
        "bets (the Dealership is then auctioned).",
        {
            "seat": _seat("the seat that folded"),
            "reason": _enum(
                "declined-bet (a player against the bet), dealer-declined-raise, dealer-declined-extra",
                ["declined-bet", "dealer-declined-raise", "dealer-declined-extra"],
            ),
            "to": _to(
                "declined-bet only: the next turn; null when the betting part is over",
                ["bet_respond", "bet_dealer"],
                nullable=True,
            ),
        },
        ("to",),
    ),
    "BetNamed": _event(
        "The Dealer names the bet the others must match (it pays it into the Pot).",
        {
            "seat": _seat("the Dealer"),
            "amount": _chip("the bet (0 allowed)"),
            "paid": _chip("what the Dealer paid into the Pot: the bet"),
            "to": _to("the Elder (or first player in) answers", ["bet_respond"]),
        },
    ),
    "Matched": _event(
        "A player matches the Dealer's bet, maybe raising.",
        {
            "seat": _seat("the seat that matched"),
            "amount": _chip("the bet matched"),
            "raise": _chip("the raise on top (0: none)"),
            "paid": _chip("what it paid into the Pot: bet plus raise"),
            "to": _to(
                "the next player, or the Dealer facing the raises; null when the part is over",
                ["bet_respond", "bet_dealer"],
                nullable=True,
            ),
        },
    ),
    "RaiseMatched": _event(
        "The Dealer matches the collective raise.",
        {
            "seat": _seat("the Dealer"),
            "amount": _chip("the sum of the raises", 1),
            "paid": _chip("what it paid into the Pot", 1),
        },
    ),
    "PartOpened": _event(
        "The next part of a betting round begins: the Dealer names a bet again.",
        {
            "round": _int("the betting round: 1 or 2", 1, 2),
            "part": _int("the part opened: 2 or 3", 2, 3),
            "to": _to("the Dealer names the bet", ["bet_name"], "open"),
        },
    ),
    "DealerDealt": _event(
        "The first betting round is over: the Dealer takes its second five face down; the others now buy.",
        {
            "seat": _seat("the Dealer"),
            "count": _int("cards taken: always 5", 5, 5),
            "to": _to("the first player buys", ["buy"], "null"),
        },
        private=_secret(
            "the Dealer's cards", _obj("the Dealer's second five", {"cards": _cards("the five cards", 5, 5)})
        ),
    ),
    "Bought": _event(
        "A player buys cards face down from the Dealer, a Stake each.",
        {
            "seat": _seat("the buyer"),
            "count": _int("cards bought now", 1, 5),
            "paid": _chip("what it paid into the Pot", 1),
            "to": _to("the same player buys on, or (five bought) makes its extra bet", ["buy", "extra"]),
        },
        private=_secret("the buyer's cards", _obj("the cards bought", {"cards": _cards("the cards bought", 1, 5)})),
    ),
    "Stood": _event(
        "A player stops buying: the rest of its second five are dealt face up, public from now on.",
        {
            "seat": _seat("the player"),
            "up": _cards("the cards dealt face up (none when it bought all five)", 0, 5),
            "to": _to("the same player makes its extra bet", ["extra"]),
        },
    ),
    "ExtraBet": _event(
        "A player makes its extra bet, which only the Dealer must match; under rules 3 it lies in front of the player.",
        {
            "seat": _seat("the player"),
            "amount": _chip("the extra bet (0 allowed)"),
            "paid": _chip("what went into the Pot now: 0 under rules 3, the extra bet under rules 1 and 2"),
            "front": _chip("present under rules 3: the chips put in front of the player"),
            "to": _to("the next player buys, or the Dealer faces the extra bets", ["buy", "dealer_extra"]),
        },
        ("front",),
    ),
    "ExtraMatched": _event(
        "The Dealer matches the other players' extra bets; the second betting round begins.",
        {
            "seat": _seat("the Dealer"),
            "amount": _chip("the others' extra bets matched"),
            "paid": _chip("what it paid into the Pot"),
            "pooled": _by_seat(
                "chips of that player's extra bet moved from in front of it into the Pot; present under rules 3 when "
                "any",
                _chip("chips pooled", 1),
            ),
            "to": _to("the Dealer names the bet of part 1", ["bet_name"], "open"),
        },
        ("pooled",),
    ),
    "DealershipPassed": _event(
        "The Dealer gives the Dealership away instead of matching the extra bets: it is offered from the Elder.",
        {"seat": _seat("the Dealer"), "to": _to("the Elder is offered the Dealership", ["offer"])},
    ),
    "DealershipDeclined": _event(
        "A player declines the Dealership offered; it passes on, or (the last) the round ends.",
        {
            "seat": _seat("the player"),
            "to": _to("the next player offered it; absent when it was the last (the round ends)", ["offer"]),
        },
        ("to",),
    ),
    "DealerChanged": _event(
        "A new Dealer: the player who accepted the Dealership (matching the extra bets) or won the auction.",
        {
            "dealer": _seat("the new Dealer"),
            "order": _seats("the new precedence: Dealer, Elder, ..., Younger", MIN_PLAYERS),
            "how": _enum("accepted (the Dealership offered) or auction", ["accepted", "auction"]),
            "paid": _chip("what it paid into the Pot: the others' extra bets (accepted); 0 after an auction"),
            "pooled": _by_seat(
                "chips of that player's extra bet moved into the Pot; present under rules 3 when any (accepted)",
                _chip("chips pooled", 1),
            ),
            "to": _to(
                "present when accepted (the new Dealer names the bet) or after an auction opened by extra bets (the "
                "new Dealer faces them); absent otherwise",
                ["bet_name", "dealer_extra"],
                "maybe",
            ),
        },
        ("pooled", "to"),
    ),
    "AuctionOpened": _event(
        "The Dealer has folded: the Dealership is auctioned among the players still in.",
        {
            "active": _seats("the bidders, Elder first", 1),
            "after": _const(
                "present when the Dealer folded facing extra bets: the new Dealer then faces them", "extra_bets"
            ),
            "to": _to("the first bidder", ["auction"]),
        },
        ("after",),
    ),
    "Bid": _event(
        "A player bids for the Dealership (its total bid; the increase is paid into the Pot at once).",
        {
            "seat": _seat("the bidder"),
            "amount": _chip("its total bid", 1),
            "paid": _chip("what it paid into the Pot now", 1),
            "to": _to("the next bidder; null when the auction is over", ["auction"], nullable=True),
        },
    ),
    "BidDeclined": _event(
        "A player leaves the auction; its bids stay in the Pot.",
        {
            "seat": _seat("the player"),
            "bid": _chip("its total bid so far (0 if none)"),
            "to": _to("the next bidder; null when the auction is over", ["auction"], nullable=True),
        },
    ),
    "RoundEnded": _event(
        "The round is over: the winner takes the Pot (or nobody does and it carries over); the Showdown's hands "
        "are shown.",
        _ROUND_ENDED_FIELDS,
        ("returned",),
    ),
    "MatchEnded": _event("The match is over: the bankrolls are the scores.", _OUTCOME_FIELDS),
    "Declared": _event(
        "A player declares a modifier's special card (or the server does, for a Sender of Eights dealt with wild "
        "eights).",
        {
            "seat": _seat("the declaring seat"),
            "modifier": _enum("the declaration", list(_DECLARABLE)),
            "card": _card_item("the special card declared (rewild: the Lady, QS; elephants: the queen of coins)"),
            "mode": _enum(
                "lady and fate only: replace (a card offered takes its place), devalue (Lady, wild eights) or stop "
                "(Fate, wild eights stop)",
                ["replace", "devalue", "stop"],
            ),
            "zeroes": _seat("fate in mode replace only: the seat whose aces now count zero (the Lady's player)"),
            "from": _card_item("atuin only: the card giving eight points"),
            "to": _card_item("atuin only: the card receiving them"),
            "cards": _cards("elephants only: the four cards declared with the queen of coins", 4, 4),
            "death_holder": _seat(
                "archchancellor only: the seat made to show Death; null when nobody in holds it", True
            ),
            "jack_wild": _bool("archchancellor only: nobody holds Death, so the jack of staves is wild"),
            "forced": _const("sender only, present when the server declared it as dealt (#8ii): true", True),
            "pending": {
                "oneOf": [_PENDING_CHOOSE, _PENDING_REVEAL],
                "description": "present when the game now waits: the declarer chooses a replacement (mode replace), "
                "or the others reveal a card (archchancellor with Death in play)",
            },
        },
        ("mode", "zeroes", "from", "to", "cards", "death_holder", "jack_wild", "forced", "pending"),
        private=_secret(
            "present in mode replace only: the declarer's two cards offered",
            _obj("the offer", {"offer": _cards("the two top cards of the deck, one to keep", 2, 2)}),
        ),
    ),
    "ReplacementChosen": _event(
        "The declarer of the Lady or Fate keeps one of the two cards offered in its place; the special card stays on "
        "the table.",
        {
            "seat": _seat("the seat that chose"),
            "card": _card_item("the special card replaced: the Lady (QS) or Fate (CK)"),
            "index": _int("which of the two cards offered was kept: 0 or 1", 0, 1),
            "kept": _card_item("present when the special card was face up: the card kept, face up in its place"),
        },
        ("kept",),
        private=_secret(
            "the chooser's cards",
            _obj(
                "the choice",
                {"kept": _card_item("the card kept"), "rejected": _card_item("the card discarded")},
            ),
        ),
    ),
    "CardRevealed": _event(
        "#10ii: a player shows one undisclosed card, as the Archchancellor demands.",
        {"seat": _seat("the seat revealing"), "card": _card_item("the card shown")},
    ),
    "ShowdownOpened": _event(
        "With modifiers: the Showdown begins, a sequence of duels in this order.",
        {
            "order": _seats("the players in the Showdown, Elder first, Dealer last", 1),
            "to": _to(
                "the first declaration turn; null when nothing can be declared (the duels play out at once)",
                ["predeclare"],
                nullable=True,
            ),
        },
    ),
    "Ready": _event(
        "A player declares nothing more before the Showdown.",
        {
            "seat": _seat("the player"),
            "to": _to("the next player's turn; null when all are ready", ["predeclare"], nullable=True),
        },
    ),
    "ChallengerCalled": _event(
        "The next player is called to duel the player holding the table.",
        {"seat": _seat("the challenger"), "to": _to("the challenger's turn", ["showdown"])},
    ),
    "HandShown": _event(
        "A player lays its hand on the table, as the server arranged it.",
        {
            "seat": _seat("the player"),
            "role": _enum("holder (the first hand, holding the table) or challenger", ["holder", "challenger"]),
            "cards": _cards("the ten cards of the hand", _HAND, _HAND),
            "arrangement": _MOD_ARRANGEMENT,
        },
    ),
    "Compared": _event(
        "The holder's and the challenger's hands are compared; the loser may answer with a declaration.",
        {
            "holder": _seat("the seat holding the table"),
            "challenger": _seat("the challenger"),
            "winner": _seat("the seat winning now"),
            "loser": _seat("the seat losing now"),
            "how": _enum(
                "value (better hand), precedence (complete tie), crippled (#0), out-crippled (a longer run beat "
                "the crippler), crippler (the crippler keeps winning)",
                _HOWS,
            ),
            "hands": _by_seat("that duelist's hand as arranged now", _MOD_ARRANGEMENT),
            "crippler": _CRIPPLER,
            "to": _to(
                "the loser's answer turn; null when it gets none (no declaration possible, or crippled)",
                ["answer"],
                nullable=True,
            ),
        },
    ),
    "Conceded": _event("A player concedes the duel.", {"seat": _seat("the player")}),
    "DuelEnded": _event(
        "A duel is over: the winner holds the table against the next player.",
        {
            "winner": _seat("the winner"),
            "loser": _seat("the loser"),
            "how": _enum(
                "how it was decided (as in a Compared event; conceded: the loser conceded)", [*_HOWS, "conceded"]
            ),
        },
    ),
}


# ------------------------------------------------------------------- words

_SPECIAL = {
    # card -> (English, Spanish), with their articles
    LADY: ("the Lady", "la Dama"),
    FATE: ("Fate", "el Destino"),
    ATUIN: ("Great A’Tuin", "la Gran A’Tuin"),
    SENDER: ("the Sender of Eights", "el Emisor de Ochos"),
    DEATH: ("Death", "la Muerte"),
    ARCH: ("the Archchancellor", "el Archicanciller"),
    FOOL: ("the Fool", "el Loco"),
}


_KINDS = {
    # grouping kind -> (English, Spanish), each with its indefinite article
    "bagel": ("a bagel", "una rosquilla"),
    "double_bagel": ("a double bagel", "una rosquilla doble"),
    "triple_bagel": ("a triple bagel", "una rosquilla triple"),
    "lesser_bagel": ("a lesser bagel", "una rosquilla menor"),
    "great_bagel": ("a great bagel", "una gran rosquilla"),
    "two_card_onion": ("a two-card onion", "una cebolla de dos cartas"),
    "broken_flush": ("a broken flush", "un color roto"),
    "three_card_onion": ("a three-card onion", "una cebolla de tres cartas"),
    "flush": ("a flush", "un color"),
    "four_card_onion": ("a four-card onion", "una cebolla de cuatro cartas"),
    "broken_royal": ("a broken Royal", "un Real roto"),
    "five_card_onion": ("a five-card onion", "una cebolla de cinco cartas"),
    "royal": ("a Royal", "un Real"),
    "six_card_onion": ("a six-card onion", "una cebolla de seis cartas"),
    "wild_royal": ("a Wild Royal", "un Real comodín"),
    "seven_card_onion": ("a seven-card onion", "una cebolla de siete cartas"),
    "double_onion": ("a Double Onion", "una Cebolla Doble"),
    "triple_onion": ("a Triple Onion", "una Cebolla Triple"),
    "lesser_onion": ("a Lesser Onion", "una Cebolla Menor"),
    "great_onion": ("a Great Onion", "una Gran Cebolla"),
    "octavo": ("the Octavo", "el Octavo"),
    "elephants_double_onion": ("the Elephants’ Double Onion", "la Cebolla Doble de los Elefantes"),
}


_RUN = {9: ("a nine-card running flush", "una escalera de color de nueve cartas")}
_RUN[10] = ("a ten-card running flush", "una escalera de color de diez cartas")


def _pick(lang: str, pair: tuple[str, str]) -> str:
    return pair[0] if lang == "en" else pair[1]


def _join(items: list[str], lang: str) -> str:
    return join(items, lang, none=_pick(lang, ("nobody", "nadie")))


def _de(text: str) -> str:
    """Spanish "de" before a noun phrase, contracted before "el": "del Destino", "de la Dama"."""
    return "del " + text[3:] if text.startswith("el ") else "de " + text


def _a(text: str) -> str:
    """Spanish "a" before a noun phrase, contracted before "el": "al dos de picas", "a la reina de copas"."""
    return "al " + text[3:] if text.startswith("el ") else "a " + text


def _chipword(n: Any, lang: str) -> str:
    one = n == 1
    return f"{n} chip" + ("" if one else "s") if lang == "en" else f"{n} ficha" + ("" if one else "s")


def _bare_card(c: Any, lang: str) -> str:
    """A card's name without its article: "queen of spades", "reina de picas"; "?" for no card."""
    return _names(c)[lang] if _is_card(c) else "?"


def _card(c: Any, lang: str) -> str:
    """A card's name as a label says it: "the queen of spades", "la reina de picas"."""
    if not _is_card(c):
        return "?"
    name = _names(c)[lang]
    if lang == "en":
        return "the " + name
    return ("la " if name.split(" ", 1)[0] in ("jota", "sota", "reina") else "el ") + name


def _cards_named(cards: Any, lang: str) -> str:
    """Cards by name, joined: "the seven of spades and the two of coins"."""
    return _join([_card(c, lang) for c in (cards or [])], lang)


def _special(c: Any, lang: str) -> str:
    """A special card by its role and name: "the Lady (queen of spades)"."""
    pair = _SPECIAL.get(c)
    if pair is None:
        return _card(c, lang)
    return f"{_pick(lang, pair)} ({_bare_card(c, lang)})"


def _kind(kind: Any, lang: str) -> str:
    pair = _KINDS.get(kind)
    if pair is None:
        text = str(kind).replace("_", " ")
        return f"a {text}" if lang == "en" else f"una agrupación {text}"
    return _pick(lang, pair)


def _bare(kind: Any, lang: str) -> str:
    """A grouping kind without its article: "Great Onion", "Gran Cebolla"."""
    text = _kind(kind, lang)
    for article in ("a ", "an ", "the ", "un ", "una ", "el ", "la "):
        if text.startswith(article):
            return text[len(article) :]
    return text


def _definite_es(kind: Any) -> str:
    """A grouping kind with the Spanish definite article: "la Gran Cebolla", "el color"."""
    text = _kind(kind, "es")
    if text.startswith("una "):
        return "la " + text[4:]
    if text.startswith("un "):
        return "el " + text[3:]
    return text


def _groupings(arrangement: Any, lang: str) -> str:
    """The groupings of a shown hand: "a bagel (ten of spades, jack of diamonds) and ..."."""
    groups = (arrangement.get("groupings") or []) if isinstance(arrangement, dict) else []
    parts = [
        f"{_kind(g.get('kind'), lang)} ({', '.join(_bare_card(c, lang) for c in g.get('cards') or [])})" for g in groups
    ]
    if not parts:
        return "no grouping" if lang == "en" else "ninguna agrupación"
    return _join(parts, lang)


def _top(arrangement: Any) -> str | None:
    if not isinstance(arrangement, dict):
        return None
    groups = arrangement.get("groupings") or []
    return arrangement.get("top") or (groups[0].get("kind") if groups else None)


# --------------------------------------------------------------- move labels


def _live(view: dict) -> list[int]:
    ins = set(view.get("in_round") or [])
    return [s for s in view.get("order") or [] if s in ins]


def _extra_owed(view: dict, seat: int) -> int:
    ins = set(view.get("in_round") or [])
    return sum(v for k, v in (view.get("extra") or {}).items() if int(k) != seat and int(k) in ins)


def _raises(view: dict) -> int:
    return sum(((view.get("betting") or {}).get("raises") or {}).values())


def _own_wild(view: dict, seat: int) -> bool:
    m = view.get("modifiers") or {}
    opts = view.get("options") or {}
    return bool(opts.get("null_eights")) and (bool(m.get("eights_wild")) or m.get("own_eights_wild_again") == seat)


def _declare_move(view: dict, seat: int, move: dict) -> tuple[str, str]:
    mod = move.get("modifier")
    m = view.get("modifiers") or {}
    players = view.get("players") or []
    if mod == "lady":
        lady = _special(LADY, "en"), _special(LADY, "es")
        if _own_wild(view, seat):
            return (
                f"declare {lady[0]}: one eleven of every other hand counts one",
                f"declarar {lady[1]}: un once de cada mano rival cuenta uno",
            )
        return (
            f"declare {lady[0]} and keep one of the next two cards in its place",
            f"declarar {lady[1]} y quedarse con una de las dos cartas siguientes en su lugar",
        )
    if mod == "fate":
        fate = _special(FATE, "en"), _special(FATE, "es")
        if _own_wild(view, seat):
            return (
                f"declare {fate[0]}: eights stop being wild",
                f"declarar {fate[1]}: los ochos dejan de ser comodines",
            )
        who = (m.get("lady") or {}).get("seat")
        if who == seat:
            return (
                f"declare {fate[0]} and replace it: your own aces count zero",
                f"declarar {fate[1]} y reemplazarlo: tus propios ases valen cero",
            )
        return (
            f"declare {fate[0]} and replace it: the aces of {_name(players, who, 'en')} count zero",
            f"declarar {fate[1]} y reemplazarlo: los ases de {_name(players, who, 'es')} valen cero",
        )
    if mod == "rewild":
        return (
            f"claim with {_special(LADY, 'en')}: your own eights are wild again",
            f"reclamar con {_special(LADY, 'es')}: tus ochos vuelven a ser comodines",
        )
    if mod == "atuin":
        a, b = move.get("from"), move.get("to")
        return (
            f"declare {_special(ATUIN, 'en')}: move eight points from {_card(a, 'en')} to {_card(b, 'en')}",
            f"declarar {_special(ATUIN, 'es')}: pasar ocho puntos {_de(_card(a, 'es'))} {_a(_card(b, 'es'))}",
        )
    if mod == "elephants":
        cs = move.get("cards")
        return (
            f"declare the Elephants: {_cards_named(cs, 'en')} with {_card(ATUIN, 'en')} make a Double Onion",
            f"declarar los Elefantes: {_cards_named(cs, 'es')} con {_card(ATUIN, 'es')} forman una Cebolla Doble",
        )
    if mod == "death":
        return f"show {_special(DEATH, 'en')}", f"mostrar {_special(DEATH, 'es')}"
    if mod == "fool":
        return (
            f"declare {_special(FOOL, 'en')}: bagels and Onions swap places",
            f"declarar {_special(FOOL, 'es')}: rosquillas y Cebollas cambian de lugar",
        )
    card_ = {"sender": SENDER, "archchancellor": ARCH}.get(mod)
    if card_ is None:
        raise ValueError(f"not a declaration of Cripple Mr Onion: {mod!r}")
    return f"declare {_special(card_, 'en')}", f"declarar {_special(card_, 'es')}"


def _replaced(view: dict, seat: int) -> int:
    """The special card a pending choice replaces: Fate if this seat declared it to replace it and it
    is not on the table yet, else the Lady."""
    m = view.get("modifiers") or {}
    fate = m.get("fate") or {}
    table = (m.get("on_table") or [])[seat] if seat < len(m.get("on_table") or []) else []
    if fate.get("seat") == seat and fate.get("mode") == "replace" and FATE not in table:
        return FATE
    return LADY


def _move_pair(view: dict, seat: int, move: dict) -> tuple[str, str]:
    t = move.get("type")
    phase = view.get("phase")
    players = view.get("players") or []
    if t == "discard":
        cards = move.get("cards") or []
        if not cards:
            return "discard nothing: keep all five cards", "no descartar: quedarse con las cinco cartas"
        return f"discard {_cards_named(cards, 'en')}", f"descartar {_cards_named(cards, 'es')}"
    if t == "fold":
        if phase == "draw":
            return "fold: throw in all five cards", "retirarse: tirar las cinco cartas"
        if phase == "bet_dealer":
            r = _raises(view)
            return (
                f"fold rather than match the raises of {_chipword(r, 'en')} (the Dealership goes to auction)",
                f"retirarse sin igualar las subidas de {_chipword(r, 'es')} (se subasta la banca)",
            )
        if phase == "dealer_extra":
            owed = _extra_owed(view, seat)
            return (
                f"fold rather than match the extra bets of {_chipword(owed, 'en')} (the Dealership goes to auction)",
                f"retirarse sin igualar las apuestas extra de {_chipword(owed, 'es')} (se subasta la banca)",
            )
        bet = (view.get("betting") or {}).get("bet")
        if bet:
            return f"fold rather than match {_chipword(bet, 'en')}", f"retirarse sin igualar {_chipword(bet, 'es')}"
        return "fold", "retirarse"
    if t == "bet":
        a = move.get("amount", 0)
        if not a:
            return "make a zero bet", "hacer una apuesta cero"
        return f"bet {_chipword(a, 'en')}", f"apostar {_chipword(a, 'es')}"
    if t == "match":
        if phase == "bet_dealer":
            r = _raises(view)
            return f"match the raises: {_chipword(r, 'en')}", f"igualar las subidas: {_chipword(r, 'es')}"
        bet = (view.get("betting") or {}).get("bet") or 0
        raised = move.get("raise", 0) or 0
        en = f"match {_chipword(bet, 'en')}" if bet else "stay in at the zero bet"
        es = f"igualar {_chipword(bet, 'es')}" if bet else "seguir con la apuesta cero"
        if raised:
            en += f" and raise {_chipword(raised, 'en')}"
            es += f" y subir {_chipword(raised, 'es')}"
        return en, es
    if t == "bid":
        a = move.get("amount")
        return f"bid {_chipword(a, 'en')} for the Dealership", f"pujar {_chipword(a, 'es')} por la banca"
    if t == "decline_bid":
        return "drop out of the auction", "abandonar la subasta"
    if t == "buy":
        k = move.get("count", 0)
        cost = k * ((view.get("options") or {}).get("stake") or 0)
        if k == 1:
            return f"buy a card for {_chipword(cost, 'en')}", f"comprar una carta por {_chipword(cost, 'es')}"
        return f"buy {k} cards for {_chipword(cost, 'en')}", f"comprar {k} cartas por {_chipword(cost, 'es')}"
    if t == "stand":
        left = 5 - (view.get("bought") or 0)
        if left == 1:
            return "stand: take the last card face up", "plantarse: recibir la última carta boca arriba"
        if left == 5:
            return "stand: take five cards face up", "plantarse: recibir cinco cartas boca arriba"
        return (
            f"stand: take the other {left} cards face up",
            f"plantarse: recibir las otras {left} cartas boca arriba",
        )
    if t == "extra_bet":
        a = move.get("amount", 0)
        if not a:
            return "make no extra bet", "no hacer apuesta extra"
        return f"make an extra bet of {_chipword(a, 'en')}", f"hacer una apuesta extra de {_chipword(a, 'es')}"
    if t == "match_extra":
        owed = _extra_owed(view, seat)
        if not owed:
            return "take up the extra bets (nothing to match)", "aceptar las apuestas extra (nada que igualar)"
        return f"match the extra bets: {_chipword(owed, 'en')}", f"igualar las apuestas extra: {_chipword(owed, 'es')}"
    if t == "pass_dealership":
        after = [s for s in _live(view) if s != (view.get("order") or [None])[0]]
        if after:
            name = _name(players, after[0], "en")
            return f"pass the Dealership to {name}", f"pasar la banca a {name}"
        return "pass the Dealership on", "pasar la banca"
    if t == "accept_dealership":
        owed = _extra_owed(view, seat)
        if not owed:
            return "accept the Dealership", "aceptar la banca"
        return (
            f"accept the Dealership, paying {_chipword(owed, 'en')}",
            f"aceptar la banca pagando {_chipword(owed, 'es')}",
        )
    if t == "decline_dealership":
        return "decline the Dealership", "rechazar la banca"
    if t == "declare":
        return _declare_move(view, seat, move)
    if t == "choose":
        c = move.get("card")
        sp = _replaced(view, seat)
        return (
            f"keep {_card(c, 'en')} in place of {_pick('en', _SPECIAL[sp])}",
            f"quedarse con {_card(c, 'es')} en lugar {_de(_pick('es', _SPECIAL[sp]))}",
        )
    if t == "reveal":
        c = move.get("card")
        return f"reveal {_card(c, 'en')}", f"descubrir {_card(c, 'es')}"
    if t == "ready":
        return "declare nothing more before the Showdown", "no declarar nada más antes del enfrentamiento"
    sd = (view.get("modifiers") or {}).get("showdown") or {}
    if t == "show":
        holder = sd.get("holder")
        if holder is None or holder == seat:
            return "show your hand", "enseñar tu mano"
        name = _name(players, holder, "en")
        return f"show your hand against {name}", f"enseñar tu mano contra {name}"
    if t == "concede":
        other = sd.get("holder") if sd.get("challenger") == seat else sd.get("challenger")
        if other is None:
            return "concede the duel", "ceder el duelo"
        name = _name(players, other, "en")
        return f"concede the duel to {name}", f"ceder el duelo a {name}"
    raise ValueError(f"not a move of Cripple Mr Onion: {t!r}")


def label_move(view: dict, seat: int, move: dict, lang: str) -> str:
    """One short sentence for a legal move of ``seat``, written for that seat,
    from its own view: "discard 7S and QC", "match 20 chips and raise 10 chips",
    "declare the Lady (QS) and keep one of the next two cards in its place"."""
    _check_lang(lang)
    return _pick(lang, _move_pair(view, seat, move))


# -------------------------------------------------------------- event labels


def _declared(d: dict, players: list[str], lang: str) -> str:
    who = _name(players, d.get("seat"), lang)
    mod = d.get("modifier")
    en = lang == "en"
    if mod == "lady":
        lady = _special(LADY, lang)
        if d.get("mode") == "devalue":
            return (
                f"{who} declares {lady}: one eleven of every other hand counts one"
                if en
                else f"{who} declara {lady}: un once de cada mano rival cuenta uno"
            )
        return (
            f"{who} declares {lady} and will keep one of the next two cards in its place"
            if en
            else f"{who} declara {lady} y se quedará con una de las dos cartas siguientes en su lugar"
        )
    if mod == "fate":
        fate = _special(FATE, lang)
        if d.get("mode") == "stop":
            return (
                f"{who} declares {fate}: eights are no longer wild"
                if en
                else f"{who} declara {fate}: los ochos dejan de ser comodines"
            )
        zeroed = _name(players, d.get("zeroes"), lang)
        return (
            f"{who} declares {fate}: the aces of {zeroed} count zero"
            if en
            else f"{who} declara {fate}: los ases de {zeroed} valen cero"
        )
    if mod == "rewild":
        lady = _special(LADY, lang)
        return (
            f"{who} claims with {lady}: its own eights are wild again"
            if en
            else f"{who} reclama con {lady}: sus ochos vuelven a ser comodines"
        )
    if mod == "atuin":
        a, b = _card(d.get("from"), lang), _card(d.get("to"), lang)
        atuin = _special(ATUIN, lang)
        return (
            f"{who} declares {atuin}: eight points move from {a} to {b}"
            if en
            else f"{who} declara {atuin}: pasan ocho puntos {_de(a)} {_a(b)}"
        )
    if mod == "elephants":
        cs = _cards_named(d.get("cards"), lang)
        q = _card(ATUIN, lang)
        return (
            f"{who} declares the Elephants: {cs} with {q} make a Double Onion"
            if en
            else f"{who} declara los Elefantes: {cs} con {q} forman una Cebolla Doble"
        )
    if mod == "sender":
        sender = _special(SENDER, lang)
        if d.get("forced"):
            return (
                f"{who} is dealt {sender}, declared at once: aces count zero"
                if en
                else f"{who} recibe {sender}, declarado en el acto: los ases valen cero"
            )
        return f"{who} declares {sender}" if en else f"{who} declara {sender}"
    if mod == "death":
        return f"{who} shows {_special(DEATH, lang)}" if en else f"{who} muestra {_special(DEATH, lang)}"
    if mod == "archchancellor":
        arch = _special(ARCH, lang)
        holder = d.get("death_holder")
        if holder is None:
            return (
                f"{who} declares {arch}: nobody holds Death, so the jack of staves is wild"
                if en
                else f"{who} declara {arch}: nadie tiene la Muerte, así que la sota de bastos es comodín"
            )
        h = _name(players, holder, lang)
        return (
            f"{who} declares {arch}: {h} must show {_special(DEATH, lang)} and every other player one card"
            if en
            else f"{who} declara {arch}: {h} debe mostrar {_special(DEATH, lang)} y los demás una carta cada uno"
        )
    if mod == "fool":
        fool = _special(FOOL, lang)
        return (
            f"{who} declares {fool}: bagels and Onions swap places"
            if en
            else f"{who} declara {fool}: rosquillas y Cebollas cambian de lugar"
        )
    return f"{who} declares {_special(d.get('card'), lang)}" if en else f"{who} declara {_special(d.get('card'), lang)}"


def _round_ended(d: dict, players: list[str], lang: str) -> str:
    en = lang == "en"
    reason = d.get("reason")
    winner = d.get("winner")
    if winner is not None:
        w = _name(players, winner, lang)
        pot = _chipword(d.get("amount", 0), lang)
        if reason == "showdown":
            top = _top((d.get("showdown") or {}).get(str(winner)))
            if top:
                k = _kind(top, lang)
                text = f"{w} wins the Pot of {pot} with {k}" if en else f"{w} gana el bote de {pot} con {k}"
            else:
                text = (
                    f"{w} wins the Pot of {pot} at the Showdown"
                    if en
                    else f"{w} gana el bote de {pot} en el enfrentamiento"
                )
        else:
            text = (
                f"{w}, the last player in, wins the Pot of {pot}"
                if en
                else f"{w}, el último que queda, gana el bote de {pot}"
            )
    elif reason == "dealership-refused":
        text = (
            "the Dealership went round the table unaccepted: everybody folds and the Pot carries over"
            if en
            else "nadie acepta la banca: todos se retiran y el bote pasa a la ronda siguiente"
        )
    else:
        text = (
            "nobody bids for the Dealership: everybody folds and the Pot carries over"
            if en
            else "nadie puja por la banca: todos se retiran y el bote pasa a la ronda siguiente"
        )
    returned = d.get("returned") or {}
    if returned:
        names = _join([_name(players, int(s), lang) for s in returned], lang)
        text += f"; the extra bets go back to {names}" if en else f"; las apuestas extra vuelven a {names}"
    return text


def _compared(d: dict, players: list[str], lang: str) -> str:
    en = lang == "en"
    w, lo = _name(players, d.get("winner"), lang), _name(players, d.get("loser"), lang)
    how = d.get("how")
    hands = d.get("hands") or {}
    if how in ("crippled", "out-crippled"):
        run = (hands.get(str(d.get("winner"))) or {}).get("run") or {}
        r = _pick(lang, _RUN.get(run.get("length"), ("a running flush", "una escalera de color")))
        if how == "out-crippled":
            return f"{w} out-cripples {lo} with {r}" if en else f"{w} supera la escalera de {lo} con {r}"
        top = _top(hands.get(str(d.get("loser"))))
        if en:
            return f"{w} cripples {lo}’s {_bare(top, 'en') if top else 'hand'} with {r}"
        return f"{w} lisia {_definite_es(top) if top else 'la mano'} de {lo} con {r}"
    if how == "crippler":
        return (
            f"{w} has crippled an Onion and holds the table against {lo}"
            if en
            else f"{w} ya lisió una Cebolla y domina la mesa frente a {lo}"
        )
    if how == "precedence":
        return f"{w} and {lo} tie; {w} wins by precedence" if en else f"{w} y {lo} empatan; gana {w} por precedencia"
    top = _top(hands.get(str(d.get("winner"))))
    if top:
        k = _kind(top, lang)
        return f"{w} beats {lo} with {k}" if en else f"{w} gana a {lo} con {k}"
    return f"{w} beats {lo}" if en else f"{w} gana a {lo}"


def _event_text(ev: dict, players: list[str], lang: str) -> str:
    t = ev.get("type")
    d = ev.get("data") or {}
    en = lang == "en"
    who = _name(players, d.get("seat"), lang)
    if t == "RoundStarted":
        rnd = d.get("round")
        dealer = _name(players, d.get("dealer"), lang)
        n = len(d.get("seating") or [])
        pot = _chipword(d.get("pot", 0), lang)
        if d.get("carried"):
            return (
                f"round {rnd}: {dealer} deals to {n} players; the Pot of {pot} carried over is the ante"
                if en
                else f"ronda {rnd}: {dealer} es la banca, {n} jugadores; el bote acumulado de {pot} hace de ante"
            )
        ante = _chipword(d.get("ante", 0), lang)
        return (
            f"round {rnd}: {dealer} deals to {n} players, each antes {ante}; the Pot holds {pot}"
            if en
            else f"ronda {rnd}: {dealer} es la banca, {n} jugadores ponen {ante}; el bote tiene {pot}"
        )
    if t == "Discarded":
        k = d.get("count", 0)
        if d.get("fold"):
            return f"{who} folds, throwing in all five cards" if en else f"{who} se retira y tira las cinco cartas"
        if not k:
            return f"{who} keeps all five cards" if en else f"{who} se queda con sus cinco cartas"
        if k == 1:
            return f"{who} discards a card and draws one" if en else f"{who} descarta una carta y roba otra"
        return f"{who} discards {k} cards and draws {k}" if en else f"{who} descarta {k} cartas y roba otras {k}"
    if t == "Folded":
        reason = d.get("reason")
        if reason == "dealer-declined-raise":
            return f"{who} folds rather than match the raises" if en else f"{who} se retira sin igualar las subidas"
        if reason == "dealer-declined-extra":
            return (
                f"{who} folds rather than match the extra bets"
                if en
                else f"{who} se retira sin igualar las apuestas extra"
            )
        return f"{who} folds" if en else f"{who} se retira"
    if t == "BetNamed":
        a = d.get("amount", 0)
        if not a:
            return f"{who} makes a zero bet" if en else f"{who} hace una apuesta cero"
        return f"{who} bets {_chipword(a, lang)}" if en else f"{who} apuesta {_chipword(a, lang)}"
    if t == "Matched":
        a, r = d.get("amount", 0), d.get("raise", 0)
        base = (
            (f"{who} matches {_chipword(a, lang)}" if en else f"{who} iguala {_chipword(a, lang)}")
            if a
            else (f"{who} stays in" if en else f"{who} sigue")
        )
        if r:
            base += f" and raises {_chipword(r, lang)}" if en else f" y sube {_chipword(r, lang)}"
        return base
    if t == "RaiseMatched":
        a = _chipword(d.get("amount", 0), lang)
        return f"{who} matches the raises: {a}" if en else f"{who} iguala las subidas: {a}"
    if t == "PartOpened":
        return (
            f"part {d.get('part')} of betting round {d.get('round')} begins"
            if en
            else f"empieza la parte {d.get('part')} de la ronda de apuestas {d.get('round')}"
        )
    if t == "DealerDealt":
        return (
            f"{who}, the Dealer, takes five cards face down"
            if en
            else f"{who}, la banca, recibe cinco cartas boca abajo"
        )
    if t == "Bought":
        k, paid = d.get("count", 0), _chipword(d.get("paid", 0), lang)
        if k == 1:
            return f"{who} buys a card for {paid}" if en else f"{who} compra una carta por {paid}"
        return f"{who} buys {k} cards for {paid}" if en else f"{who} compra {k} cartas por {paid}"
    if t == "Stood":
        up = d.get("up") or []
        if not up:
            return f"{who} has bought all five cards" if en else f"{who} ha comprado las cinco cartas"
        return (
            f"{who} stands and takes {_cards_named(up, lang)} face up"
            if en
            else f"{who} se planta y recibe {_cards_named(up, lang)} boca arriba"
        )
    if t == "ExtraBet":
        a = d.get("amount", 0)
        if not a:
            return f"{who} makes no extra bet" if en else f"{who} no hace apuesta extra"
        return (
            f"{who} makes an extra bet of {_chipword(a, lang)}"
            if en
            else f"{who} hace una apuesta extra de {_chipword(a, lang)}"
        )
    if t == "ExtraMatched":
        a = d.get("amount", 0)
        if not a:
            return (
                f"{who} takes up the extra bets (nothing to match)"
                if en
                else f"{who} acepta las apuestas extra (nada que igualar)"
            )
        return (
            f"{who} matches the extra bets: {_chipword(a, lang)}"
            if en
            else f"{who} iguala las apuestas extra: {_chipword(a, lang)}"
        )
    if t == "DealershipPassed":
        nxt = (d.get("to") or {}).get("turn")
        if nxt is None:
            return f"{who} passes the Dealership on" if en else f"{who} cede la banca"
        n = _name(players, nxt, lang)
        return f"{who} offers the Dealership to {n}" if en else f"{who} ofrece la banca a {n}"
    if t == "DealershipDeclined":
        nxt = (d.get("to") or {}).get("turn")
        if nxt is None:
            return f"{who} declines the Dealership" if en else f"{who} rechaza la banca"
        n = _name(players, nxt, lang)
        return (
            f"{who} declines the Dealership, which passes to {n}" if en else f"{who} rechaza la banca, que pasa a {n}"
        )
    if t == "DealerChanged":
        n = _name(players, d.get("dealer"), lang)
        if d.get("how") == "auction":
            return (
                f"{n} wins the auction and becomes the Dealer" if en else f"{n} gana la subasta y pasa a ser la banca"
            )
        paid = d.get("paid", 0)
        if paid:
            return (
                f"{n} accepts the Dealership, paying {_chipword(paid, lang)}"
                if en
                else f"{n} acepta la banca y paga {_chipword(paid, lang)}"
            )
        return f"{n} accepts the Dealership" if en else f"{n} acepta la banca"
    if t == "AuctionOpened":
        names = _join([_name(players, s, lang) for s in d.get("active") or []], lang)
        return f"the Dealership is auctioned among {names}" if en else f"se subasta la banca entre {names}"
    if t == "Bid":
        a = _chipword(d.get("amount", 0), lang)
        return f"{who} bids {a} for the Dealership" if en else f"{who} puja {a} por la banca"
    if t == "BidDeclined":
        bid = d.get("bid", 0)
        if bid:
            b = _chipword(bid, lang)
            return (
                f"{who} drops out of the auction, its bid of {b} staying in the Pot"
                if en
                else f"{who} abandona la subasta; su puja de {b} queda en el bote"
            )
        return f"{who} drops out of the auction" if en else f"{who} abandona la subasta"
    if t == "RoundEnded":
        return _round_ended(d, players, lang)
    if t == "MatchEnded":
        scores = d.get("scores") or []
        winners = d.get("winners") or []
        names = _join([_name(players, s, lang) for s in winners], lang)
        best = scores[winners[0]] if winners and isinstance(winners[0], int) and winners[0] < len(scores) else 0
        rounds = d.get("rounds_played", 0)
        rw = ("round" if rounds == 1 else "rounds") if en else ("ronda" if rounds == 1 else "rondas")
        if len(winners) > 1:
            return (
                f"the match is over after {rounds} {rw}: {names} win with {_chipword(best, lang)} each"
                if en
                else f"fin de la partida tras {rounds} {rw}: ganan {names} con {_chipword(best, lang)} cada uno"
            )
        return (
            f"the match is over after {rounds} {rw}: {names} wins with {_chipword(best, lang)}"
            if en
            else f"fin de la partida tras {rounds} {rw}: gana {names} con {_chipword(best, lang)}"
        )
    if t == "Declared":
        return _declared(d, players, lang)
    if t == "ReplacementChosen":
        sp = _pick(lang, _SPECIAL.get(d.get("card"), ("a special card", "una carta especial")))
        if _is_card(d.get("kept")):
            k = _card(d.get("kept"), lang)
            return (
                f"{who} keeps {k} face up in place of {sp}"
                if en
                else f"{who} se queda con {k} boca arriba en lugar {_de(sp)}"
            )
        return (
            f"{who} keeps one of the two cards in place of {sp}"
            if en
            else f"{who} se queda con una de las dos cartas en lugar {_de(sp)}"
        )
    if t == "CardRevealed":
        c = _card(d.get("card"), lang)
        return f"{who} reveals {c}" if en else f"{who} descubre {c}"
    if t == "ShowdownOpened":
        names = _join([_name(players, s, lang) for s in d.get("order") or []], lang)
        return (
            f"the Showdown begins: {names}, in this order"
            if en
            else f"empieza el enfrentamiento: {names}, por este orden"
        )
    if t == "Ready":
        return f"{who} declares nothing more" if en else f"{who} no declara nada más"
    if t == "ChallengerCalled":
        return f"{who} is called to the Showdown" if en else f"{who} entra en el enfrentamiento"
    if t == "HandShown":
        g = _groupings(d.get("arrangement"), lang)
        if d.get("role") == "holder":
            return f"{who} opens the Showdown with {g}" if en else f"{who} abre el enfrentamiento con {g}"
        return f"{who} shows {g}" if en else f"{who} enseña {g}"
    if t == "Compared":
        return _compared(d, players, lang)
    if t == "Conceded":
        return f"{who} concedes the duel" if en else f"{who} cede el duelo"
    if t == "DuelEnded":
        w, lo = _name(players, d.get("winner"), lang), _name(players, d.get("loser"), lang)
        return f"{w} wins the duel against {lo}" if en else f"{w} gana el duelo contra {lo}"
    raise ValueError(f"not an event of Cripple Mr Onion: {t!r}")


def label_event(event: dict, players: list[str], lang: str) -> str:
    """One short sentence for an event, from its public part (``{"type", "data"}``) only:
    "bea matches 20 chips and raises 10 chips", "ana offers the Dealership to bea"."""
    _check_lang(lang)
    return _event_text({"type": event.get("type"), "data": event.get("data") or {}}, list(players), lang)
