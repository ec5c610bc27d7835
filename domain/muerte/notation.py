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

from domain.muerte.about import MAX_PLAYERS, OPTIONS
from domain.muerte.cards import DECK_NUMBERS, KINGS, TEAMS
from domain.phrases import LANGUAGES
from domain.phrases import check_language as _lang
from domain.phrases import join as _join
from domain.phrases import seat_name as _who

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
    every card is unique, and no card is worth points.
    """
    name = (options or {}).get("deck", OPTIONS["properties"]["deck"]["default"])
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
    if not winners:
        return f"The match ends after {games}" if en else f"Termina el encuentro tras {games}"
    top = scores[winners[0]] if isinstance(winners[0], int) and 0 <= winners[0] < len(scores) else None
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
    "EVENT_TYPES",
    "MOVES",
    "PHASES",
    "ROLES",
    "card",
    "code",
    "deck",
    "label_event",
    "label_move",
]
