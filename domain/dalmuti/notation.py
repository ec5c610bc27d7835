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
            "en": "Before the next deal the Greater Dalmuti seats each newcomer among the Merchants.",
            "es": "Antes del siguiente reparto, el Gran Dalmuti sienta a cada recién llegado entre los Comerciantes.",
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
            "en": "The Greater Dalmuti seats a newcomer among the Merchants: slot 0 just after the Lesser "
            "Dalmuti, the last slot just before the Lesser Peon.",
            "es": "El Gran Dalmuti sienta a un recién llegado entre los Comerciantes: el hueco 0 justo después "
            "del Pequeño Dalmuti, el último justo antes del Pequeño Peón.",
        },
        "schema": _schema(
            "place_newcomer",
            newcomer={**_SEAT, "description": "the newcomer's seat"},
            slot={"type": "integer", "minimum": 0, "maximum": 12, "description": "0 just after the Lesser Dalmuti"},
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
