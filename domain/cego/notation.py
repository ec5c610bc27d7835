"""Cego in words and card codes, for clients that show the game to people.

Card codes (see ``docs/rules/cego.md``, Notation):

* the trumps 1 to 21 are ``T1`` ... ``T21`` and the Juglar (internally 22, the
  highest trump, the Sküs of other tarot games) is ``SK``;
* a suit card is its rank then its suit letter: ranks ``K`` king, ``Q`` queen,
  ``C`` cavalier (the knight), ``J`` jack, the red numerals ``1``-``4`` and the
  black numerals ``7``-``10``; suits ``D`` diamonds, ``H`` hearts, ``S``
  spades, ``C`` clubs: ``KH`` is the king of hearts, ``CC`` the knight of
  clubs, ``1D`` the 1 of diamonds, ``10S`` the 10 of spades.

The API, the stored log and posted moves write every card as its code; the
rules keep working on the internal value of a card, the int of
``domain.cego.cards`` (trumps 1..22, suit cards ``100 + 10 * suit + i``);
every card is distinct (no copies).  ``domain/wire.py`` translates, at one
place, from where this module says the cards are: the move schemas of
``MOVES`` mark each card (``x-naipes-card``), ``VIEW_CARDS`` lists the paths
of the cards in a ``view`` and ``EVENT_CARDS`` those of each event type.
A ``[seat, card]`` pair (the dealer draw, a trick) has its card at index ``1``.

Labels are built from a seat's view (moves) or from an event's public data
only (events); names of cards and games use the terms of the rules text (seed
003): retador, defensores, ciega, mano, baza, triunfo, juglar.
"""

from __future__ import annotations

from typing import Any

from domain.cego.about import OPTIONS
from domain.cego.cards import BLACK_NUM, FIGURES, JUGLAR, RED_NUM, full_deck, idx, is_trump, suit, value
from domain.cego.contracts import LEVELS
from domain.phrases import LANGUAGES
from domain.phrases import check_language as _lang
from domain.phrases import join as _join

CARD_PATTERN = r"^(?:T(?:[1-9]|1[0-9]|2[01])|SK|[KQCJ][DHSC]|[1-4][DH]|(?:[7-9]|10)[SC])$"

_SUIT_LETTERS = "DHSC"
_SUIT_IDS = ("diamonds", "hearts", "spades", "clubs")
_SUIT_NAMES = {
    "en": ("diamonds", "hearts", "spades", "clubs"),
    "es": ("diamantes", "corazones", "picas", "tréboles"),
}
_FIGURE_NAMES = {
    "en": {"K": "king", "Q": "queen", "C": "knight", "J": "jack"},
    "es": {"K": "rey", "Q": "dama", "C": "caballo", "J": "sota"},
}
_FEMININE = {"Q", "J"}  # la dama, la sota
_LANGS = LANGUAGES


def _rank(c: int) -> str:
    if c == JUGLAR:
        return "SK"
    if is_trump(c):
        return str(c)
    i = idx(c)
    return FIGURES[i] if i < 4 else (RED_NUM if suit(c) < 2 else BLACK_NUM)[i - 4]


def _code_of(c: int) -> str:
    if c == JUGLAR:
        return "SK"
    if is_trump(c):
        return f"T{c}"
    return _rank(c) + _SUIT_LETTERS[suit(c)]


_CARDS = full_deck()
_BY_CARD = {c: _code_of(c) for c in _CARDS}
_BY_CODE = {v: k for k, v in _BY_CARD.items()}


def code(card: int) -> str:
    """The code of an internal card value (``21`` -> ``"T21"``, ``22`` -> ``"SK"``, ``110`` -> ``"KH"``)."""
    if isinstance(card, bool) or not isinstance(card, int) or card not in _BY_CARD:
        raise ValueError(f"{card!r} is not a Cego card (trumps 1..22, suit cards 100..137)")
    return _BY_CARD[card]


def card(code: str) -> int:
    """The internal value of a card code (``"T21"`` -> ``21``, ``"SK"`` -> ``22``, ``"KH"`` -> ``110``)."""
    if not isinstance(code, str) or code not in _BY_CODE:
        raise ValueError(f"{code!r} is not a Cego card code (codes match {CARD_PATTERN})")
    return _BY_CODE[code]


def _name(c: int, lang: str) -> str:
    """The card's name without an article."""
    if c == JUGLAR:
        return "Fool" if lang == "en" else "Juglar"
    if is_trump(c):
        return f"trump {c}" if lang == "en" else f"triunfo n.º {c}"
    r = _rank(c)
    rank = _FIGURE_NAMES[lang].get(r, r)
    return f"{rank} {'of' if lang == 'en' else 'de'} {_SUIT_NAMES[lang][suit(c)]}"


def _the(c: int, lang: str) -> str:
    """The card's name with its article, as it reads in a sentence."""
    if lang == "en":
        return _name(c, lang) if is_trump(c) and c != JUGLAR else f"the {_name(c, lang)}"
    feminine = not is_trump(c) and _rank(c) in _FEMININE
    return f"{'la' if feminine else 'el'} {_name(c, lang)}"


def _colour(c: int) -> str:
    if is_trump(c):
        return "multicolour"  # the trumps and the Juglar are printed as coloured pictures
    return "red" if suit(c) < 2 else "black"


def deck(options: dict | None = None) -> list[dict]:
    """Every card of Cego: the 54 of the full deck, whatever the options.

    With three active players (three seats, or four when the dealer sits out)
    a round is dealt from 51 of them, without ``7C``, ``7S`` and ``4D``; the
    options alone do not say how many players sit at the table, so the list
    is always the full deck.  Every card counts points, and there are no copies.
    """
    return [
        {
            "code": _BY_CARD[c],
            "id": c,
            "suit": None if is_trump(c) else _SUIT_IDS[suit(c)],
            "rank": _rank(c),
            "name": {lang: _name(c, lang) for lang in _LANGS},
            "colour": _colour(c),
            "points": value(c),
        }
        for c in _CARDS
    ]


def _t(en: str, es: str) -> dict[str, str]:
    return {"en": en, "es": es}


PHASES: list[dict] = [
    {
        "id": "created",
        "name": _t("Not started", "Sin empezar"),
        "description": _t(
            "The match waits for its start: the first dealer is drawn, then the first round is dealt.",
            "La partida espera su inicio: se sortea el primer repartidor y se reparte la primera ronda.",
        ),
    },
    {
        "id": "first_auction",
        "name": _t("First auction", "Primera subasta"),
        "description": _t(
            "From the mano, each active player in turn declares Solo, Ulti or passes (fort).",
            "Desde el mano, cada jugador por turno declara Solo, Ulti o pasa (fort).",
        ),
    },
    {
        "id": "gegen",
        "name": _t("Gegensolo", "Gegensolo"),
        "description": _t(
            "A Solo was declared: each other player in turn may challenge it (Gegensolo) or pass.",
            "Se ha declarado Solo: cada uno de los demás por turno puede desafiarlo (Gegensolo) o pasar.",
        ),
    },
    {
        "id": "second_auction",
        "name": _t("Second auction", "Segunda subasta"),
        "description": _t(
            "Each player in turn declares Piccolo, Bettel or passes; if all pass, the mano holds Cego.",
            "Cada jugador por turno declara Piccolo, Bettel o pasa; si todos pasan, el mano declara Cego.",
        ),
    },
    {
        "id": "raise",
        "name": _t("Raises", "Subidas"),
        "description": _t(
            "A Cego game is held; the others in turn may raise it one level "
            "(Eine, Eine Leere, Zwei Leere, Zwei Verschiedene, Pagat) or pass.",
            "Hay un juego de Cego; los demás por turno pueden subirlo un nivel "
            "(Eine, Eine Leere, Zwei Leere, Zwei Verschiedene, Pagat) o pasar.",
        ),
    },
    {
        "id": "gut_selbst",
        "name": _t("Gut or selbst", "Gut o selbst"),
        "description": _t(
            "The game was raised: its holder accepts the raise (gut) or plays the raised game itself (selbst).",
            "Se ha subido el juego: quien lo tenía acepta la subida (gut) o juega él mismo el nuevo juego (selbst).",
        ),
    },
    {
        "id": "rauber_choice",
        "name": _t("Cego or Räuber", "Cego o Räuber"),
        "description": _t(
            "Nobody raised: the player holding Cego plays it or calls Räuber, where everyone plays alone.",
            "Nadie ha subido: quien declaró Cego lo juega o declara Räuber, en el que cada cual juega en solitario.",
        ),
    },
    {
        "id": "exchange",
        "name": _t("Exchange with the blind", "Cambio con la ciega"),
        "description": _t(
            "The challenger keeps or shows cards, sets the rest aside (the Legage) and takes the blind; "
            "in Cego it then discards one card face down.",
            "El retador se queda o muestra cartas, guarda el resto (el Legage) y coge la ciega; "
            "en el Cego descarta después una carta boca abajo.",
        ),
    },
    {
        "id": "play",
        "name": _t("Tricks", "Bazas"),
        "description": _t(
            "The tricks are played: follow the suit led, else play a trump, else any card; "
            "the highest trump or the highest card of the suit led wins.",
            "Se juegan las bazas: se asiste al palo que abre, si no se juega triunfo, si no cualquier carta; "
            "gana el triunfo más alto o la carta más alta del palo que abre.",
        ),
    },
    {
        "id": "between_rounds",
        "name": _t("Round scored", "Ronda puntuada"),
        "description": _t(
            "The round has been scored and paid; the next round is dealt.",
            "La ronda se ha puntuado y pagado; se reparte la siguiente.",
        ),
    },
    {
        "id": "finished",
        "name": _t("Match over", "Partida terminada"),
        "description": _t(
            "Every round has been played; the seats are ranked by their balance.",
            "Se han jugado todas las rondas; los jugadores se ordenan por su saldo.",
        ),
    },
]

ROLES: list[dict] = [
    {"id": "dealer", "name": _t("dealer", "repartidor")},
    {"id": "mano", "name": _t("mano (first to speak)", "mano")},
    {"id": "sitting_out", "name": _t("sitting out", "no juega la ronda")},
    {"id": "challenger", "name": _t("challenger", "retador")},
    {"id": "defender", "name": _t("defender", "defensor")},
    {"id": "soloist", "name": _t("Solo player", "jugador del Solo")},
    {"id": "gegensolo", "name": _t("Gegensolo player", "jugador del Gegensolo")},
    {"id": "raiser", "name": _t("raiser", "jugador que sube")},
]

_CALLS = ("pass", "solo", "ulti", "gegensolo", "piccolo", "bettel", "raise", "gut", "selbst", "cego", "rauber")
_CARD_SCHEMA = {
    "type": "string",
    "pattern": CARD_PATTERN,
    "x-naipes-card": True,
    "description": "a card code (T1 ... T21, SK the Juglar, KH the king of hearts, 10S the 10 of spades ...)",
}


def _cards_schema(low: int, high: int) -> dict:
    return {"type": "array", "items": _CARD_SCHEMA, "minItems": low, "maxItems": high, "uniqueItems": True}


def _move_schema(kind: str, fields: dict) -> dict:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"type": {"const": kind}, **fields},
        "required": ["type", *fields],
        "additionalProperties": False,
    }


MOVES: dict[str, dict] = {
    "call": {
        "description": _t(
            "A call in the auctions: pass, solo, ulti, gegensolo, piccolo, bettel, raise (one level up), "
            "gut or selbst (answering a raise), cego or rauber (when nobody raised).",
            "Una declaración en las subastas: pasar, Solo, Ulti, Gegensolo, Piccolo, Bettel, subir un nivel, "
            "gut o selbst (ante una subida), Cego o Räuber (cuando nadie ha subido).",
        ),
        "schema": _move_schema("call", {"call": {"type": "string", "enum": list(_CALLS)}}),
    },
    "keep": {
        "description": _t(
            "The challenger of Cego keeps two cards (Eine: one), sets the rest aside and takes the blind.",
            "El retador del Cego se queda dos cartas (Eine: una), guarda el resto y coge la ciega.",
        ),
        "schema": _move_schema("keep", {"cards": _cards_schema(1, 2)}),
    },
    "show": {
        "description": _t(
            "The challenger of Eine Leere, Zwei Leere or Zwei Verschiedene shows one or two blank cards, "
            "sets the rest aside and takes the blind.",
            "El retador de Eine Leere, Zwei Leere o Zwei Verschiedene muestra una o dos cartas blancas, "
            "guarda el resto y coge la ciega.",
        ),
        "schema": _move_schema("show", {"cards": _cards_schema(1, 2)}),
    },
    "discard": {
        "description": _t(
            "The challenger of Cego, holding the blind, discards one card face down to the Legage.",
            "El retador del Cego, con la ciega en la mano, descarta una carta boca abajo al Legage.",
        ),
        "schema": _move_schema("discard", {"cards": _cards_schema(1, 1)}),
    },
    "play": {
        "description": _t("Play a card to the trick.", "Jugar una carta a la baza."),
        "schema": _move_schema("play", {"card": _CARD_SCHEMA}),
    },
}

# Where the cards are (``domain/wire.py``): dot paths, a step a key, the index
# of a list or ``*`` (every element of a list, every value of an object).
VIEW_CARDS: tuple[str, ...] = (
    "dealer_draw.*.1",  # [seat, card] pairs
    "shown.*",
    "shown_in_hand.*",
    "shown_discard",
    "trick.*.1",  # [seat, card] pairs
    "last_trick.cards.*.1",
    "last_round.blind.*",  # the data of the last RoundScored
    "last_round.legage.*",
    "hand.*",  # a seat
    "legage.*",  # the challenger, the reviewer
    "moves.*.card",  # a seat's legal moves
    "moves.*.cards.*",
    "hands.*.*",  # the reviewer
    "blind.*",
)

EVENT_CARDS: dict[str, tuple[str, ...]] = {
    "DealerDrawn": ("data.draws.*.1",),  # [seat, card] pairs
    "RoundDealt": ("private.*.hand.*", "private.nobody.blind.*"),
    "Called": (),
    "Exchanged": (
        "data.shown.*",
        "data.discarded",
        "private.*.kept.*",
        "private.*.legage.*",
        "private.*.cards.*",
    ),
    "Played": ("data.card",),
    "TrickTaken": ("data.winning_card",),
    "RoundScored": ("data.blind.*", "data.legage.*"),
    "MatchEnded": (),
}

EVENT_TYPES: tuple[str, ...] = (
    "DealerDrawn",
    "RoundDealt",
    "Called",
    "Exchanged",
    "Played",
    "TrickTaken",
    "RoundScored",
    "MatchEnded",
)

# ------------------------------------------------------------------ shapes
# The JSON Schemas (2020-12) of the view (``wire.encode_view`` of ``view``, for a seat, the
# spectator and the reviewer) and of each event's public ``data`` and whole ``private`` part, as
# the API writes them (cards as codes).  Only keywords OpenAPI 3.0 can say after conversion.

_MAX_SEAT = 4  # at most five players
_MAX_HAND = 14  # a Cego challenger holds its two kept cards and the 12 cards of the blind before the discard
_MAX_TRICKS = 13  # 13 tricks with three active players, 11 with four
_GAME_IDS = ["solo", "ulti", "piccolo", "bettel", *LEVELS, "rauber"]
_CALL_PHASES = ["first_auction", "gegen", "second_auction", "raise", "gut_selbst", "rauber_choice"]


def _d(schema: dict, description: str) -> dict:
    return {**schema, "description": description}


def _int(description: str, low: int | None = 0, high: int | None = None, null: bool = False) -> dict:
    out: dict = {"type": ["integer", "null"] if null else "integer"}
    if low is not None:
        out["minimum"] = low
    if high is not None:
        out["maximum"] = high
    return _d(out, description)


def _seat_int(description: str, null: bool = False) -> dict:
    return _int(description, 0, _MAX_SEAT, null)


def _list(items: dict, description: str, low: int = 0, high: int | None = None) -> dict:
    out: dict = {"type": "array", "items": items, "minItems": low}
    if high is not None:
        out["maxItems"] = high
    return _d(out, description)


def _card_item(description: str, null: bool = False) -> dict:
    return _d({**_CARD_SCHEMA, "type": ["string", "null"] if null else "string"}, description)


def _card_list(description: str, low: int = 0, high: int | None = None) -> dict:
    return _list(_card_item(_CARD_SCHEMA["description"]), description, low, high)


def _seats(description: str, low: int = 0, high: int = _MAX_SEAT + 1) -> dict:
    return _list(_seat_int("a seat number"), description, low, high)


def _pair(description: str) -> dict:
    return _d(
        {
            "type": "array",
            "minItems": 2,
            "maxItems": 2,
            "items": {
                "anyOf": [_seat_int("the seat (index 0)"), _card_item("the card code (index 1)")],
                "description": "the seat number (index 0) or the card code (index 1)",
            },
        },
        f"[seat, card]: {description}",
    )


def _obj(properties: dict, required: list[str] | None, description: str) -> dict:
    """A closed object; ``required`` None: every property is always there."""
    return _d(
        {
            "type": "object",
            "properties": properties,
            "required": list(properties) if required is None else required,
            "additionalProperties": False,
        },
        description,
    )


def _by_seat(value: dict, description: str) -> dict:
    return _d({"type": "object", "additionalProperties": value}, f"seat number (as a string) -> {description}")


_HEX = {64: "^[0-9a-f]{64}$", 32: "^[0-9a-f]{32}$"}

_CONTRACT = _obj(
    {
        "game": _d(
            {"type": "string", "enum": _GAME_IDS},
            "the game being played: solo, ulti, piccolo, bettel, the Cego levels (cego, eine, eine_leere, "
            "zwei_leere, zwei_verschiedene, pagat) or rauber (Räuber, everyone plays alone)",
        ),
        "challenger": _seat_int(
            "the seat of the challenger (retador) who holds the game; in Räuber, the player who called it"
        ),
        "gegensolo": {
            "type": "boolean",
            "description": "true when the game follows a Gegensolo (a Cego level then pays one factor more)",
        },
    },
    None,
    "the contract: which game is played and by whom",
)

_ROUND_SCORED = _obj(
    {
        "game": _d(_CONTRACT["properties"]["game"], "the game that was played this round (see contract.game)"),
        "challenger": _seat_int("the seat of the challenger (retador); in Räuber, the player who called Räuber"),
        "gegensolo": {"type": "boolean", "description": "true when the game followed a Gegensolo"},
        "challenger_won": {
            "type": ["boolean", "null"],
            "description": "true when the challenger won its game, false when it lost; null in Räuber",
        },
        "amount": _int(
            "what each defender (and a dealer sitting out) pays to the challenger when it won, or receives "
            "from it when it lost, in points; absent in Räuber"
        ),
        "challenger_points": _int(
            "card points of the challenger's side, Legage or blind included when it counts for it "
            "(Solo and the Cego levels only; 40 or more wins)",
            0,
            79,
        ),
        "defender_points": _int("card points of the defenders' side (Solo and the Cego levels only)", 0, 79),
        "factor": _int(
            "the multiplier of the payment: Solo 2 won / 1 lost, Cego 1 ... Pagat 6, +1 after a Gegensolo "
            "(Solo and the Cego levels only)",
            1,
            7,
        ),
        "aside_to_challenger": {
            "type": "boolean",
            "description": "true when the cards set aside (the blind of a Solo, the Legage of a Cego level) "
            "counted for the challenger, false when they went to the defenders (Solo and the Cego levels only)",
        },
        "points": _list(
            _int("card points the seat took in its tricks; null for a seat that sat the round out", 0, 79, True),
            "Räuber only: the card points each seat took, indexed by seat number",
            3,
            5,
        ),
        "losers": _seats("Räuber only: the seats with the most points, who pay every other participant", 1, 4),
        "payments": _list(
            _int("points the seat won (positive) or paid (negative) this round", None),
            "what each seat won or paid this round, indexed by seat number (sums to zero)",
            3,
            5,
        ),
        "round": _int("the number of the round just scored, from 1", 1, 100),
        "balances": _list(
            _int("the seat's running balance in points", None),
            "each seat's balance after this round, indexed by seat number (sums to zero)",
            3,
            5,
        ),
        "match_over": {"type": "boolean", "description": "true when this was the last round of the match"},
        "blind": _card_list("the blind (ciega) of the round, now revealed to everyone", 10, 12),
        "legage": _card_list(
            "the cards the challenger of a Cego level set aside (the Legage), now revealed; empty in other games",
            0,
            12,
        ),
        "tricks_won": _list(
            _int("tricks the seat won this round", 0, _MAX_TRICKS),
            "tricks won by each seat this round, indexed by seat number",
            3,
            5,
        ),
    },
    [
        "game",
        "challenger",
        "gegensolo",
        "challenger_won",
        "payments",
        "round",
        "balances",
        "match_over",
        "blind",
        "legage",
        "tricks_won",
    ],
    "the result of a round",
)

_MATCH_ENDED = _obj(
    {
        "scores": _list(
            _int("the seat's final balance in points", None),
            "the final balance of each seat, indexed by seat number",
            3,
            5,
        ),
        "ranking": _seats("the seats from the highest balance to the lowest (ties by seat number)", 3, 5),
        "winners": _seats("the seats sharing the highest balance", 1, 5),
        "rounds_played": _int("how many rounds were played", 1, 100),
    },
    None,
    "the outcome of the match",
)


def _move_item(kind: str, fields: dict, description: str) -> dict:
    return _obj(
        {"type": {"type": "string", "const": kind, "description": f"the move type, {kind!r}"}, **fields},
        None,
        description,
    )


_MOVE_ITEMS = {
    "oneOf": [
        _move_item(
            "call",
            {
                "call": {
                    "type": "string",
                    "enum": list(_CALLS),
                    "description": "the call: pass (fort), solo, ulti, gegensolo, piccolo, bettel, raise (one "
                    "level up), gut or selbst (answering a raise), cego or rauber (when nobody raised)",
                }
            },
            "a call in the auctions",
        ),
        _move_item(
            "keep",
            {"cards": _card_list("the cards kept: two in Cego, one in Eine", 1, 2)},
            "the Cego or Eine challenger keeps these cards, sets the rest aside (the Legage) and takes the blind",
        ),
        _move_item(
            "show",
            {
                "cards": _card_list(
                    "the blank cards shown: one in Eine Leere, two in Zwei Leere and Zwei Verschiedene", 1, 2
                )
            },
            "the challenger of a Leere game shows these cards, sets the rest aside and takes the blind",
        ),
        _move_item(
            "discard",
            {"cards": _card_list("the one card discarded face down to the Legage", 1, 1)},
            "the Cego challenger, holding the blind, discards one card face down",
        ),
        _move_item("play", {"card": _card_item("the card played to the trick (baza)")}, "play a card to the trick"),
    ],
    "description": "a legal move, as it may be posted back",
}

_OPTIONS_VIEW = _obj(
    {k: {kk: vv for kk, vv in v.items() if kk != "default"} for k, v in OPTIONS["properties"].items()},
    None,
    "the options of the match, every one with its value (defaults filled in)",
)

VIEW_SCHEMA: dict = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    **_obj(
        {
            "game": {"type": "string", "const": "cego", "description": "the game type, always 'cego'"},
            "rules_version": {
                "type": "string",
                "enum": ["1", "2"],
                "description": "the rules version the match was started under, and keeps: 2 today; "
                "1 (older matches) still offered Piccolo "
                "and Bettel after a Solo, let the Zwei Verschiedene shown suits lead in any order and counted "
                "the Legage for the challenger only with a trick won",
            },
            "phase": {
                "type": "string",
                "enum": [p["id"] for p in PHASES],
                "description": "the phase of the round (`phases` of GET /game-types/cego names and describes each)",
            },
            "round_no": _int("the number of the round in play, from 1; 0 before the start", 0, 100),
            "rounds_total": _int("how many rounds the match has (option rounds)", 1, 100),
            "players": _list(
                {"type": "string", "description": "a player's name"}, "the players' names, indexed by seat number", 3, 5
            ),
            "options": _OPTIONS_VIEW,
            "dealer_draw": _list(
                _pair("the card each seat drew to choose the first dealer (the highest deals)"),
                "the draw for the first dealer, one pair per seat; empty before the start",
                0,
                5,
            ),
            "dealer": _seat_int("the seat of the dealer of this round; null before the start", True),
            "active": _seats("the seats playing this round, in turn order from the mano; empty before the start", 0, 4),
            "sitting_out": _seat_int(
                "the dealer's seat when the dealer sits the round out (five players, or four with the option "
                "dealer_sits_out_with_four); null otherwise",
                True,
            ),
            "mano": _seat_int(
                "the seat of the mano (the first to speak, after the dealer); null before the start", True
            ),
            "hand_sizes": _list(
                _int("how many cards the seat holds", 0, _MAX_HAND),
                "the number of cards in each seat's hand, indexed by seat number",
                3,
                5,
            ),
            "blind_size": _int(
                "how many cards lie in the blind (ciega): 10, or 12 with three active players; 0 once the challenger "
                "took it and before the start",
                0,
                12,
            ),
            "legage_size": _int("how many cards the challenger has set aside (the Legage)", 0, 12),
            "auction": _list(
                _obj(
                    {
                        "seat": _seat_int("the seat that called"),
                        "call": {
                            "type": "string",
                            "enum": list(_CALLS),
                            "description": "the call made (pass, solo, ulti, gegensolo, piccolo, bettel, raise, gut, "
                            "selbst, cego, rauber)",
                        },
                        "phase": {
                            "type": "string",
                            "enum": _CALL_PHASES,
                            "description": "the phase in which the call was made",
                        },
                    },
                    None,
                    "one call",
                ),
                "the calls of this round's auctions, in order (the automatic Cego declaration included)",
            ),
            "speakers": _seats(
                "the seats still to speak in the current auction, the first one next; empty outside the auctions",
                0,
                4,
            ),
            "contract": _d(
                {**_CONTRACT, "type": ["object", "null"]},
                "the game held or being played and its challenger; null until a game is declared",
            ),
            "soloist": _seat_int("the seat that declared Solo this round; null if none", True),
            "gegensolo": _seat_int("the seat that declared Gegensolo this round; null if none", True),
            "raiser": _seat_int(
                "the seat whose raise waits for the holder's gut or selbst (phase gut_selbst); null otherwise", True
            ),
            "exchange_step": {
                "type": ["string", "null"],
                "enum": ["keep2", "keep1", "show", "discard", None],
                "description": "what the challenger must do next in the exchange with the blind: keep2 (Cego: keep "
                "two cards), keep1 (Eine: keep one), show (the Leere games: show blank cards), discard (Cego: "
                "discard one card face down); null outside the exchange",
            },
            "shown": _card_list(
                "the cards the challenger showed (the Leere games, trump 1 in Pagat), public for the whole round; "
                "they must lead the first tricks and never win a trick",
                0,
                2,
            ),
            "shown_in_hand": _card_list("the shown cards not yet played", 0, 2),
            "shown_discard": _card_item(
                "the card discarded face up from the blind in Zwei Leere (lowest trump) or Zwei Verschiedene "
                "(highest); null otherwise",
                True,
            ),
            "trick": _list(
                _pair("a card played to the current trick, by that seat"),
                "the current trick (baza), in play order",
                0,
                4,
            ),
            "leader": _seat_int("the seat that leads (led) the current trick; null before the play", True),
            "turn": _seat_int("the seat to play a card (phase play); null otherwise", True),
            "trick_no": _int("how many tricks of this round have been completed", 0, _MAX_TRICKS),
            "tricks_won": _list(
                _int("tricks the seat won this round", 0, _MAX_TRICKS),
                "tricks won by each seat this round, indexed by seat number",
                3,
                5,
            ),
            "last_trick": _d(
                {
                    **_obj(
                        {
                            "cards": _list(_pair("a card of the trick, by that seat"), "the trick in play order", 3, 4),
                            "winner": _seat_int("the seat that won it"),
                        },
                        None,
                        "",
                    ),
                    "type": ["object", "null"],
                },
                "the last completed trick of this round; null before the first one is taken",
            ),
            "balances": _list(
                _int("the seat's running balance in points", None),
                "each seat's balance in the match so far, indexed by seat number (sums to zero)",
                3,
                5,
            ),
            "last_round": _d(
                {**_ROUND_SCORED, "type": ["object", "null"]},
                "the result of the last round scored (the data of its RoundScored event, blind and Legage "
                "revealed); null before the first round is scored",
            ),
            "to_act": _seats("the seat that must act now (at most one); empty when nobody acts", 0, 1),
            "outcome": _d(
                {**_MATCH_ENDED, "type": ["object", "null"]},
                "the outcome of the match (the data of MatchEnded) in phase finished; null before",
            ),
            "seat": _seat_int("the viewer's own seat; present only in a seat's view"),
            "hand": _card_list("the viewer's own cards, sorted; present only in a seat's view", 0, _MAX_HAND),
            "legage": _card_list(
                "the cards the challenger set aside (the Legage); present for the challenger's seat and the reviewer",
                0,
                12,
            ),
            "moves": _list(
                _MOVE_ITEMS, "the viewer's legal moves now (empty when it does not act); present only in a seat's view"
            ),
            "hands": _list(
                _card_list("that seat's cards", 0, _MAX_HAND),
                "every seat's hand, indexed by seat number; present only in the reviewer's view",
                3,
                5,
            ),
            "blind": _card_list(
                "the cards dealt to the blind this round (still listed after the challenger took them); present only "
                "in the reviewer's view",
                0,
                12,
            ),
        },
        [
            "game",
            "rules_version",
            "phase",
            "round_no",
            "rounds_total",
            "players",
            "options",
            "dealer_draw",
            "dealer",
            "active",
            "sitting_out",
            "mano",
            "hand_sizes",
            "blind_size",
            "legage_size",
            "auction",
            "speakers",
            "contract",
            "soloist",
            "gegensolo",
            "raiser",
            "exchange_step",
            "shown",
            "shown_in_hand",
            "shown_discard",
            "trick",
            "leader",
            "turn",
            "trick_no",
            "tricks_won",
            "last_trick",
            "balances",
            "last_round",
            "to_act",
            "outcome",
        ],
        "What a seat, the spectator or the reviewer sees of a Cego match; cards are card codes.",
    ),
}

EVENT_SCHEMAS: dict[str, dict] = {
    "DealerDrawn": {
        "description": "Every seat drew a card from a shuffled deck; the highest card deals the first round",
        "data": _obj(
            {
                "draws": _list(_pair("the card this seat drew"), "one draw per seat, by seat number", 3, 5),
                "dealer": _seat_int("the seat that drew the highest card and deals first"),
            },
            None,
            "the draw for the first dealer",
        ),
        "private": None,
    },
    "RoundDealt": {
        "description": "A new round is dealt: the blind (ciega) goes face down, each active seat gets its hand, "
        "and the mano speaks first",
        "data": _obj(
            {
                "round": _int("the number of the round, from 1", 1, 100),
                "dealer": _seat_int("the seat that deals this round"),
                "cutter": _seat_int("the seat that cut (the dealer's left); only recorded"),
                "mano": _seat_int("the seat after the dealer, the first to speak and to play"),
                "active": _seats("the seats playing this round, in turn order from the mano", 3, 4),
                "sitting_out": _seat_int("the dealer's seat when it sits the round out; null otherwise", True),
                "blind_size": _int("cards in the blind: 10, or 12 with three active players", 10, 12),
                "hand_size": _int("cards dealt to each active seat: 11, or 13 with three active players", 11, 13),
                "commitment": {
                    "type": "string",
                    "pattern": _HEX[64],
                    "description": "SHA-256 (hex) of the deal's salt and deck, to check the deck revealed at the end",
                },
            },
            None,
            "the public facts of the deal",
        ),
        "private": _d(
            {
                "type": "object",
                "properties": {
                    "nobody": _obj(
                        {"blind": _card_list("the cards of the blind, sorted", 10, 12)},
                        None,
                        "the secret blind, which no seat receives; present in the whole private part "
                        "(the log, the reviewer); RoundScored reveals it",
                    ),
                    "deal": _obj(
                        {
                            "salt": {
                                "type": "string",
                                "pattern": _HEX[32],
                                "description": "the random salt (hex) of the commitment",
                            },
                            "deck": _card_list("the shuffled deck, in order: the blind first, then the hands", 51, 54),
                        },
                        None,
                        "the salt and shuffled deck the commitment covers; no seat receives it, the table "
                        "reveals it when the hand is over (present in the whole private part only)",
                    ),
                },
                "additionalProperties": _obj(
                    {"hand": _card_list("the seat's hand, sorted: 11 cards, or 13 with three active players", 11, 13)},
                    None,
                    "an active seat's part, received by that seat only",
                ),
            },
            "seat number (as a string) -> that active seat's hand; plus 'nobody' (the blind) and 'deal' (the deck); "
            "a seat receives only its own key",
        ),
    },
    "Called": {
        "description": "A player made a call in the auctions (pass, a game, a raise, gut/selbst, Cego or Räuber); "
        "the data says what comes next",
        "data": _obj(
            {
                "seat": _seat_int("the seat that called"),
                "call": {
                    "type": "string",
                    "enum": list(_CALLS),
                    "description": "the call made (pass, solo, ulti, gegensolo, piccolo, bettel, raise, gut, selbst, "
                    "cego, rauber)",
                },
                "phase": {
                    "type": "string",
                    "enum": [*_CALL_PHASES, "exchange", "play"],
                    "description": "the phase after the call (not the phase it was made in)",
                },
                "speakers": _seats("the seats still to speak after this call, the next one first", 0, 4),
                "contract": _d(
                    _CONTRACT,
                    "present when the call settles or changes the game held (a declaration, a raise, gut/selbst, "
                    "the Cego/Räuber choice, the last pass before play)",
                ),
                "soloist": _seat_int("present when Solo is declared: the soloist's seat"),
                "gegensolo": _seat_int("present when Gegensolo is declared: that player's seat"),
                "raiser": _seat_int(
                    "present after a raise under the gut_selbst option (the raiser's seat) and after the answer (null)",
                    null=True,
                ),
                "step": {
                    "type": ["string", "null"],
                    "enum": ["keep2", "keep1", "show", None],
                    "description": "present when the call leads to the exchange: the challenger's first step (keep2 "
                    "Cego, keep1 Eine, show the Leere games; null in Pagat, whose exchange is automatic)",
                },
            },
            ["seat", "call", "phase", "speakers"],
            "a call",
        ),
        "private": None,
    },
    "Exchanged": {
        "description": "The challenger exchanged with the blind: kept or showed cards, set the rest aside (the "
        "Legage) and took the blind, or discarded one card face down",
        "data": _obj(
            {
                "seat": _seat_int("the challenger's seat"),
                "step": {
                    "type": "string",
                    "enum": ["keep", "discard"],
                    "description": "keep: cards kept or shown, the rest set aside, the blind taken; discard: one card "
                    "discarded face down (Cego)",
                },
                "count": _int("how many cards were kept, shown or discarded", 1, 2),
                "discarded": _card_item(
                    "present when step is keep: the card discarded face up from the blind (Zwei Leere, Zwei "
                    "Verschiedene), or null",
                    True,
                ),
                "shown": _card_list(
                    "present in the Leere games and Pagat: the cards shown to everyone (Pagat: trump 1)", 1, 2
                ),
                "next_step": {
                    "type": ["string", "null"],
                    "enum": ["discard", None],
                    "description": "discard when the Cego challenger must now discard one card; null when play begins",
                },
            },
            ["seat", "step", "count", "next_step"],
            "the public part of the exchange",
        ),
        "private": _by_seat(
            {
                "oneOf": [
                    _obj(
                        {
                            "kept": _card_list("the cards kept (or shown)", 1, 2),
                            "legage": _card_list("the cards set aside to the Legage", 9, 12),
                        },
                        None,
                        "step keep",
                    ),
                    _obj({"cards": _card_list("the card discarded face down", 1, 1)}, None, "step discard"),
                ],
                "description": "the challenger's secret part: kept and legage (step keep) or cards (step discard)",
            },
            "the challenger's secret part (only the challenger's seat)",
        ),
    },
    "Played": {
        "description": "A player played a card to the trick",
        "data": _obj(
            {
                "seat": _seat_int("the seat that played"),
                "card": _card_item("the card played"),
                "next": _seat_int("the seat to play next; null when this card completed the trick", True),
            },
            None,
            "a card played",
        ),
        "private": None,
    },
    "TrickTaken": {
        "description": "A trick is complete and its winner takes it",
        "data": _obj(
            {
                "winner": _seat_int("the seat that won the trick"),
                "winning_card": _card_item("the card that won it"),
                "leader": _seat_int(
                    "the seat that leads the next trick (the winner, except in the Zwei games' first two tricks)"
                ),
            },
            None,
            "the trick taken",
        ),
        "private": None,
    },
    "RoundScored": {
        "description": "The round is over: its points are counted, payments made, and the blind and Legage revealed",
        "data": _ROUND_SCORED,
        "private": None,
    },
    "MatchEnded": {
        "description": "The last round was scored: the match is over and the seats are ranked by balance",
        "data": _MATCH_ENDED,
        "private": None,
    },
}

_GAMES = {
    "solo": "Solo",
    "ulti": "Ulti",
    "piccolo": "Piccolo",
    "bettel": "Bettel",
    "cego": "Cego",
    "eine": "Eine",
    "eine_leere": "Eine Leere",
    "zwei_leere": "Zwei Leere",
    "zwei_verschiedene": "Zwei Verschiedene",
    "pagat": "Pagat",
    "rauber": "Räuber",
}


def _game(game: Any) -> str:
    return _GAMES.get(game, str(game))


def _next_level(game: Any) -> str:
    i = LEVELS.index(game) if game in LEVELS else -1
    return _GAMES[LEVELS[i + 1]] if 0 <= i < len(LEVELS) - 1 else _GAMES["pagat"]


def _card_list(cards: list[int], lang: str) -> str:
    return _join([_the(c, lang) for c in cards], lang)


def _who(players: list[str], seat: Any) -> str:
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(players):
        return str(players[seat])
    return f"#{seat}" if isinstance(seat, int) else "-"


# ------------------------------------------------------------------ moves


def _label_call(view: dict, call: str, lang: str) -> str:
    en = lang == "en"
    phase = view.get("phase")
    con = view.get("contract") or {}
    players = view.get("players") or []
    if call == "pass":
        if phase == "first_auction":
            return "pass (fort)" if en else "pasar (fort)"
        if phase == "gegen" and view.get("soloist") is not None:
            who = _who(players, view["soloist"])
            return f"pass (let {who} play Solo)" if en else f"pasar (dejar jugar el Solo a {who})"
        if phase == "raise" and con:
            who, game = _who(players, con.get("challenger")), _game(con.get("game"))
            return f"pass ({who} keeps {game})" if en else f"pasar ({who} sigue con {game})"
        return "pass" if en else "pasar"
    if call in ("solo", "ulti", "piccolo", "bettel"):
        aim = {
            "solo": ("play alone against the others", "jugar solo contra los demás"),
            "ulti": ("win the last trick with trump 1", "ganar la última baza con el triunfo n.º 1"),
            "piccolo": ("win exactly one trick", "ganar una única baza"),
            "bettel": ("win no trick", "no ganar ninguna baza"),
        }[call][0 if en else 1]
        return f"declare {_game(call)}: {aim}" if en else f"declarar {_game(call)}: {aim}"
    if call == "gegensolo":
        return "challenge the Solo (Gegensolo)" if en else "desafiar al Solo (Gegensolo)"
    if call == "raise":
        nxt = _next_level(con.get("game"))
        return f"raise to {nxt}" if en else f"subir a {nxt}"
    if call == "gut":
        nxt = _next_level(con.get("game"))
        who = _who(players, view.get("raiser"))
        return f"accept the raise (gut): {who} plays {nxt}" if en else f"aceptar la subida (gut): {who} juega {nxt}"
    if call == "selbst":
        nxt = _next_level(con.get("game"))
        return f"keep the game and play {nxt} (selbst)" if en else f"quedarse el juego y jugar {nxt} (selbst)"
    if call == "cego":
        return "play Cego" if en else "jugar el Cego"
    if call == "rauber":
        return "call Räuber: everyone plays alone" if en else "declarar Räuber: cada cual juega en solitario"
    raise ValueError(f"unknown Cego call {call!r}")


def _rest_aside(view: dict, kept: int, lang: str) -> str:
    rest = len(view.get("hand") or []) - kept
    if lang == "en":
        return f"set the other {rest} aside and take the blind"
    return f"guardar las otras {rest} y coger la ciega"


def label_move(view: dict, seat: int, move: dict, lang: str) -> str:
    """A short sentence, for ``seat``, of one of its legal moves, from its own view."""
    lang = _lang(lang)
    en = lang == "en"
    kind = move.get("type")
    if kind == "call":
        return _label_call(view, move.get("call"), lang)
    if kind == "play":
        c = move["card"]
        if not view.get("trick"):
            return f"lead {_the(c, lang)}" if en else f"abrir la baza con {_the(c, lang)}"
        return f"play {_the(c, lang)}" if en else f"jugar {_the(c, lang)}"
    cards = list(move.get("cards") or [])
    if kind == "discard":
        what = _card_list(cards, lang)
        return f"discard {what} face down" if en else f"descartar {what} boca abajo"
    if kind == "keep":
        what = _card_list(cards, lang)
        head = f"keep {what}" if en else f"quedarse {what}"
        return f"{head}, {_rest_aside(view, len(cards), lang)}"
    if kind == "show":
        what = _card_list(cards, lang)
        game = _game((view.get("contract") or {}).get("game"))
        head = f"show {what} ({game})" if en else f"mostrar {what} ({game})"
        return f"{head}, {_rest_aside(view, len(cards), lang)}"
    raise ValueError(f"unknown Cego move type {kind!r}")


# ------------------------------------------------------------------ events


def _ev_dealer_drawn(d: dict, players: list[str], lang: str) -> str:
    who = _who(players, d["dealer"])
    drawn = next((c for s, c in d.get("draws") or [] if s == d["dealer"]), None)
    if drawn is None:
        return f"{who} deals first" if lang == "en" else f"{who} reparte primero"
    if lang == "en":
        return f"{who} draws the highest card ({_the(drawn, lang)}) and deals first"
    return f"{who} saca la carta más alta ({_the(drawn, lang)}) y reparte primero"


def _ev_round_dealt(d: dict, players: list[str], lang: str) -> str:
    dealer, mano = _who(players, d["dealer"]), _who(players, d["mano"])
    b, h = d["blind_size"], d["hand_size"]
    out = d.get("sitting_out")
    if lang == "en":
        text = f"Round {d['round']}: {dealer} deals, {mano} is mano; {b} cards to the blind and {h} to each player"
        return text + (f"; {_who(players, out)} sits out" if out is not None else "")
    text = f"Ronda {d['round']}: reparte {dealer}, es mano {mano}; {b} cartas a la ciega y {h} a cada jugador"
    return text + (f"; {_who(players, out)} no juega esta ronda" if out is not None else "")


def _ev_called(d: dict, players: list[str], lang: str) -> str:
    en = lang == "en"
    who = _who(players, d["seat"])
    call = d["call"]
    con = d.get("contract") or {}
    game = _game(con.get("game"))
    if call == "pass":
        base = f"{who} passes" if en else f"{who} pasa"
        if d.get("phase") == "rauber_choice":
            return base + (": nobody raised" if en else ": nadie ha subido")
        if d.get("phase") in ("play", "exchange") and con:
            holder = _who(players, con["challenger"])
            return base + (f": {holder} plays {game}" if en else f": {holder} juega {game}")
        return base
    if call in ("solo", "ulti", "piccolo", "bettel"):
        return f"{who} declares {_game(call)}" if en else f"{who} declara {_game(call)}"
    if call == "gegensolo":
        return f"{who} challenges the Solo (Gegensolo)" if en else f"{who} desafía al Solo (Gegensolo)"
    if call == "cego":
        after = con.get("gegensolo")
        if d.get("phase") == "raise":
            if en:
                return f"{who} declares Cego" + (" after the Gegensolo" if after else "")
            return f"{who} declara Cego" + (" tras el Gegensolo" if after else "")
        return f"{who} plays Cego" if en else f"{who} juega el Cego"
    if call == "raise":
        if con:
            return f"{who} raises to {game}" if en else f"{who} sube a {game}"
        return f"{who} raises the bid one level" if en else f"{who} sube la apuesta un nivel"
    if call == "gut":
        holder = _who(players, con.get("challenger"))
        return (
            f"{who} accepts the raise (gut): {holder} plays {game}"
            if en
            else (f"{who} acepta la subida (gut): {holder} juega {game}")
        )
    if call == "selbst":
        if en:
            return f"{who} keeps the game and plays {game} (selbst)"
        return f"{who} se queda el juego y juega {game} (selbst)"
    if call == "rauber":
        if en:
            return f"{who} calls Räuber: everyone plays alone"
        return f"{who} declara Räuber: cada cual juega en solitario"
    return f"{who}: {call}"


def _ev_exchanged(d: dict, players: list[str], lang: str) -> str:
    en = lang == "en"
    who = _who(players, d["seat"])
    if d["step"] == "discard":
        return f"{who} discards one card face down" if en else f"{who} descarta una carta boca abajo"
    shown = d.get("shown") or []
    if shown:
        head = f"{who} shows {_card_list(shown, lang)}" if en else f"{who} muestra {_card_list(shown, lang)}"
    else:
        n = d.get("count", 0)
        if en:
            head = f"{who} keeps {'one card' if n == 1 else f'{n} cards'}"
        else:
            head = f"{who} se queda {'una carta' if n == 1 else f'{n} cartas'}"
    text = head + (", sets the rest aside and takes the blind" if en else ", guarda el resto y coge la ciega")
    if d.get("discarded") is not None:
        c = _the(d["discarded"], lang)
        text += f"; {c} is discarded from the blind, face up" if en else f"; descarta de la ciega {c}, a la vista"
    return text


def _ev_played(d: dict, players: list[str], lang: str) -> str:
    who = _who(players, d["seat"])
    return f"{who} plays {_the(d['card'], lang)}" if lang == "en" else f"{who} juega {_the(d['card'], lang)}"


def _ev_trick_taken(d: dict, players: list[str], lang: str) -> str:
    en = lang == "en"
    who = _who(players, d["winner"])
    c = _the(d["winning_card"], lang)
    text = f"{who} wins the trick with {c}" if en else f"{who} gana la baza con {c}"
    if d.get("leader") is not None and d["leader"] != d["winner"]:
        nxt = _who(players, d["leader"])
        text += f"; {nxt} leads the next one" if en else f"; abre la siguiente {nxt}"
    return text


def _ev_round_scored(d: dict, players: list[str], lang: str) -> str:
    en = lang == "en"
    game = _game(d["game"])
    who = _who(players, d["challenger"])
    if d["game"] == "rauber":
        losers = list(d.get("losers") or [])
        pts = d.get("points") or []
        top = pts[losers[0]] if losers and losers[0] < len(pts) else None
        names = _join([_who(players, s) for s in losers], lang)
        pays = [(_who(players, s), 80 if s == d["challenger"] else 40) for s in losers]
        if len(pays) == 1:
            if en:
                return f"Räuber: {names} takes the most points ({top}) and pays {pays[0][1]} to each other player"
            return f"Räuber: {names} es quien más puntos hace ({top}) y paga {pays[0][1]} a cada uno de los demás"
        each = _join([f"{n} pays {a}" if en else f"{n} paga {a}" for n, a in pays], lang)
        if en:
            return f"Räuber: {names} take the most points ({top}); {each} to each other player"
        return f"Räuber: {names} empatan con más puntos ({top}); {each} a cada uno de los demás"
    won, amount = d.get("challenger_won"), d.get("amount", 0)
    if en:
        text = f"{who} {'wins' if won else 'loses'} {game}"
    else:
        text = f"{who} {'gana' if won else 'pierde'} {game}"
    if d.get("gegensolo") and d["game"] in LEVELS:
        text += " (Gegensolo)"
    if "challenger_points" in d:
        cp, dp = d["challenger_points"], d["defender_points"]
        text += f" with {cp} points to {dp}" if en else f" con {cp} puntos contra {dp}"
    if amount == 0:
        return text + (": nobody pays" if en else ": nadie paga")
    if won:
        return text + (f": each defender pays {amount}" if en else f": cada defensor paga {amount}")
    return text + (f" and pays {amount} to each defender" if en else f" y paga {amount} a cada defensor")


def _ev_match_ended(d: dict, players: list[str], lang: str) -> str:
    en = lang == "en"
    rounds = d.get("rounds_played", 0)
    winners = list(d.get("winners") or [])
    scores = d.get("scores") or []
    top = scores[winners[0]] if winners and winners[0] < len(scores) else 0
    names = _join([_who(players, s) for s in winners], lang)
    many = len(winners) > 1
    if en:
        head = f"The match ends after {rounds} {'round' if rounds == 1 else 'rounds'}"
        return f"{head}: {names} {'win' if many else 'wins'} with a balance of {top}"
    head = f"Termina la partida tras {rounds} {'ronda' if rounds == 1 else 'rondas'}"
    return f"{head}: {'ganan' if many else 'gana'} {names} con un saldo de {top}"


_EVENT_LABELS = {
    "DealerDrawn": _ev_dealer_drawn,
    "RoundDealt": _ev_round_dealt,
    "Called": _ev_called,
    "Exchanged": _ev_exchanged,
    "Played": _ev_played,
    "TrickTaken": _ev_trick_taken,
    "RoundScored": _ev_round_scored,
    "MatchEnded": _ev_match_ended,
}


def label_event(event: dict, players: list[str], lang: str) -> str:
    """A short sentence for an event, from its public part (``type`` and ``data``) only."""
    lang = _lang(lang)
    fn = _EVENT_LABELS.get(event.get("type"))
    if fn is None:
        raise ValueError(f"unknown Cego event type {event.get('type')!r}")
    return fn(event.get("data") or {}, list(players), lang)
