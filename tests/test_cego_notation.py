"""Cego's notation and labels (domain/cego/notation.py, docs/rules/cego.md, Notation).

Card names and game terms come from the rules text ../shared/seeds/003_e0bc4396a9caea9d.txt
(seed 003): the 54 cards (22 trumps, the Juglar the highest; four suits of king, queen, knight,
jack and the numerals 1-4 red, 10-7 black), the retador and the defensores, the ciega, the
subastas, and the games Solo, Ulti, Piccolo, Bettel, Cego, Eine, Eine Leere, Zwei Leere, Zwei
Verschiedene, Pagat and Räuber.
"""

from __future__ import annotations

import copy
import functools
import itertools
import random
import re
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from domain import cego as C
from domain import wire
from domain.base import event
from domain.cego import notation as N

NAMES = ["ana", "bea", "carl", "dora", "eve"]
LANGS = ("en", "es")
LEAKS = ("{", "}", "[", "]", "None", "'")
D, H, S, K = 0, 1, 2, 3  # diamonds, hearts, spades, clubs (domain.cego.cards)

# option sets of the playthroughs: 3, 4 and 5 players, the dealer sitting out with four, gut/selbst
SETUPS = [
    (3, {"rounds": 2}),
    (4, {"rounds": 2}),
    (4, {"rounds": 2, "dealer_sits_out_with_four": True, "gut_selbst": True}),
    (5, {"rounds": 2, "gut_selbst": True}),
    (4, {"rounds": 1, "gut_selbst": True}),
]
GAMES_PER_SETUP = 6


def card(s: int, i: int) -> int:
    return 100 + 10 * s + i


def clean(text: str) -> bool:
    return isinstance(text, str) and text.strip() != "" and not any(x in text for x in LEAKS)


def view_cards(v: dict) -> list[int]:
    """Every card a view shows: the hand, the Legage, shown cards, tricks, the dealer draw, the last round."""
    out = list(v.get("hand") or []) + list(v.get("legage") or []) + list(v["shown"]) + list(v["shown_in_hand"])
    out += [c for _, c in v["trick"]] + [c for _, c in v["dealer_draw"]]
    if v["shown_discard"] is not None:
        out.append(v["shown_discard"])
    if v["last_trick"]:
        out += [c for _, c in v["last_trick"]["cards"]]
    if v["last_round"]:
        out += list(v["last_round"]["blind"]) + list(v["last_round"]["legage"])
    return out


def fold(st: dict, evs: list[dict]) -> dict:
    for e in evs:
        st = C.evolve(st, e)
    return st


def move(st: dict, seat: int, **m) -> dict:
    return fold(st, C.decide(st, {**m, "seat": seat, "seed": 1}))


@functools.cache
def playthroughs() -> dict:
    """Random matches to the end: every turn (the seat's view, the seat, its legal moves), every event."""
    turns: list[tuple[dict, int, list[dict]]] = []
    events: list[tuple[dict, list[str]]] = []
    phases: set[str] = set()
    cards: set[int] = set()
    for (n, options), k in itertools.product(SETUPS, range(GAMES_PER_SETUP)):
        r = random.Random(f"cego-notation:{n}:{sorted(options.items())}:{k}")
        players = NAMES[:n]
        st = C.initial_state(players, options)
        evs = C.decide(st, {"type": "start", "seat": None, "seed": r.getrandbits(63)})
        passing = k % 2 == 1  # every other match heads for the Cego raises and the exchange
        while True:
            for ev in evs:
                st = C.evolve(st, ev)
                events.append((ev, players))
            if C.outcome(st) is not None:
                break
            seat = C.to_act(st)[0]
            v = C.view(st, seat)
            phases.add(v["phase"])
            cards.update(view_cards(v))
            cards.update(view_cards(C.view(st, "spectator")))
            legal = C.legal_moves(st, seat)
            assert legal == v["moves"]
            turns.append((v, seat, legal))
            m = r.choice(legal)
            if passing and st["phase"] in ("first_auction", "gegen", "second_auction"):
                m = {"type": "call", "call": "pass"}
            evs = C.decide(st, {**m, "seat": seat, "seed": r.getrandbits(63)})
        phases.add(C.view(st, 0)["phase"])
    return {"turns": turns, "events": events, "phases": phases, "cards": cards}


# ------------------------------------------------------------------ cards


def test_deck_codes_round_trip_and_are_unique():
    """Seed 003, Cartas: 54 cards, 22 trumps and 4 suits of 8; every code reads back to its card."""
    for options in (None, {}, {"dealer_sits_out_with_four": True}, {"gut_selbst": True, "rounds": 3}):
        deck = N.deck(options)
        assert len(deck) == 54 and sorted(c["id"] for c in deck) == sorted(C.full_deck())
        codes = [c["code"] for c in deck]
        assert len(set(codes)) == 54
        for c in deck:
            assert N.card(N.code(c["id"])) == c["id"] and N.code(c["id"]) == c["code"]
            assert re.match(N.CARD_PATTERN, c["code"]) and c["code"].isascii()
            assert c["points"] == C.value(c["id"])
            assert c["name"]["en"] and c["name"]["es"] and "copies" not in c
            assert c["colour"] == ("multicolour" if C.is_trump(c["id"]) else "red" if C.suit(c["id"]) < 2 else "black")
        assert sum(1 for c in deck if c["suit"] is None) == 22


def test_three_player_deck_is_in_the_deck():
    """Seed 003, Nota: with three players 51 cards, without the 7 of clubs, the 7 of spades and the 4 of diamonds."""
    codes = {c["code"] for c in N.deck()}
    three = {N.code(c) for c in C.deck_for(3)}
    assert three < codes and codes - three == {"7C", "7S", "4D"}


def test_pattern_matches_the_codes_and_nothing_else():
    """Every short string over the code alphabet matches CARD_PATTERN exactly when it is a card code."""
    codes = {c["code"] for c in N.deck()}
    alphabet = "TSKQCJDH0123456789"
    for size in (1, 2, 3):
        for chars in itertools.product(alphabet, repeat=size):
            s = "".join(chars)
            assert bool(re.match(N.CARD_PATTERN, s)) == (s in codes), s
    assert N.CARD_PATTERN.startswith("^") and N.CARD_PATTERN.endswith("$")


@pytest.mark.parametrize(
    "bad", ["", "T0", "T22", "T01", "1S", "7H", "10D", "5D", "KX", "sk", "kh", "22", "C7", "O12", "JD1", " KH", "KH "]
)
def test_strings_that_are_no_card_raise(bad):
    with pytest.raises(ValueError) as info:
        N.card(bad)
    assert N.CARD_PATTERN in str(info.value)


@pytest.mark.parametrize("bad", [None, 22.0, True, ["KH"]])
def test_values_that_are_no_card_raise(bad):
    with pytest.raises(ValueError):
        N.card(bad)


@pytest.mark.parametrize("bad", [0, 23, 99, 108, 138, -1, True, None, "KH"])
def test_internal_values_that_are_no_card_raise(bad):
    with pytest.raises(ValueError):
        N.code(bad)


def test_codes_read_as_the_cards():
    """Seed 003, Cartas: trumps 1-21, the Juglar (SK), K/Q/C/J, red numerals 1-4, black 10-7."""
    assert [N.code(c) for c in (1, 21, C.JUGLAR)] == ["T1", "T21", "SK"]
    assert [N.code(card(H, i)) for i in range(8)] == ["KH", "QH", "CH", "JH", "1H", "2H", "3H", "4H"]
    assert [N.code(card(S, i)) for i in range(8)] == ["KS", "QS", "CS", "JS", "10S", "9S", "8S", "7S"]
    assert N.card("JS") == card(S, 3)  # the jack of spades (Dalmuti's jester is another game's code)
    assert N.code(card(D, 7)) == "4D" and N.code(card(K, 2)) == "CC" and N.card("10C") == card(K, 4)
    by = {c["code"]: c for c in N.deck()}
    assert by["SK"]["name"] == {"en": "Fool", "es": "Juglar"} and by["SK"]["points"] == 5
    assert by["T21"]["name"] == {"en": "trump 21", "es": "triunfo n.º 21"} and by["T21"]["points"] == 5
    assert by["T2"]["points"] == 1 and by["T2"]["rank"] == "2" and by["T2"]["suit"] is None
    assert by["KH"] == {
        "code": "KH",
        "id": card(H, 0),
        "suit": "hearts",
        "rank": "K",
        "name": {"en": "king of hearts", "es": "rey de corazones"},
        "colour": "red",
        "points": 5,
    }
    assert by["QS"]["name"]["es"] == "dama de picas" and by["QS"]["points"] == 4
    assert by["CC"]["name"] == {"en": "knight of clubs", "es": "caballo de tréboles"} and by["CC"]["points"] == 3
    assert by["JD"]["name"]["es"] == "sota de diamantes" and by["JD"]["points"] == 2
    assert by["7C"]["colour"] == "black" and by["7C"]["points"] == 1


def test_every_card_met_is_in_the_deck():
    """Every card a hand or a view showed in the playthroughs is a card of deck()."""
    ids = {c["id"] for c in N.deck()}
    met = playthroughs()["cards"]
    assert met and met <= ids


# ------------------------------------------------------------------ phases, roles, moves


def test_phases_and_roles():
    ids = [p["id"] for p in N.PHASES]
    assert len(ids) == len(set(ids)) and playthroughs()["phases"] <= set(ids)
    for p in N.PHASES:
        assert all(p["name"][lang] and p["description"][lang] for lang in LANGS)
    v = C.view(C.initial_state(NAMES[:4], {}), 0)
    for r in N.ROLES:
        assert r["id"] in v or r["id"] in ("challenger", "defender")
        assert all(r["name"][lang] for lang in LANGS)


def test_move_schemas_are_valid():
    assert set(N.MOVES) == {"call", "keep", "show", "discard", "play"}
    for kind, spec in N.MOVES.items():
        Draft202012Validator.check_schema(spec["schema"])
        assert spec["schema"]["properties"]["type"] == {"const": kind}
        assert spec["schema"]["additionalProperties"] is False
        assert all(spec["description"][lang] for lang in LANGS)


def card_values(schema: dict, value) -> list:
    """The values of ``value`` that ``schema`` marks as cards (x-naipes-card)."""
    if schema.get("x-naipes-card"):
        return [value]
    out = []
    if isinstance(value, dict):
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                out += card_values(sub, value[key])
    elif isinstance(value, list) and "items" in schema:
        for item in value:
            out += card_values(schema["items"], item)
    return out


def test_every_legal_move_fits_its_schema_and_has_labels():
    """Every legal move met, its cards as codes, validates against MOVES; its labels are clean sentences."""
    validators = {k: Draft202012Validator(spec["schema"]) for k, spec in N.MOVES.items()}
    met: set[str] = set()
    calls: set[str] = set()
    for v, seat, legal in playthroughs()["turns"]:
        for m in legal:
            met.add(m["type"])
            calls.add(m.get("call", "-"))
            posted = wire.encode_move("cego", m)  # the move as the API lists it: cards as codes
            validators[m["type"]].validate(posted)
            marked = card_values(N.MOVES[m["type"]]["schema"], posted)
            assert marked or m["type"] == "call"
            assert marked == [N.code(c) for c in card_values(N.MOVES[m["type"]]["schema"], m)]
            labels = [N.label_move(v, seat, m, lang) for lang in LANGS]
            assert all(clean(t) for t in labels), (m, labels)
            assert labels[0] != labels[1]
    assert met == set(N.MOVES)  # every type is also built by hand below
    assert calls - {"-"} == set(N.MOVES["call"]["schema"]["properties"]["call"]["enum"])


def test_every_event_has_labels_from_its_public_part():
    """label_event reads the public part only: the same text with or without the private parts, every time."""
    met: set[str] = set()
    for ev, players in playthroughs()["events"]:
        met.add(ev["type"])
        public = {"type": ev["type"], "data": copy.deepcopy(ev["data"])}
        for lang in LANGS:
            text = N.label_event(public, players, lang)
            assert clean(text), (ev["type"], text)
            assert N.label_event({"type": ev["type"], "data": copy.deepcopy(ev["data"])}, players, lang) == text
            assert N.label_event(ev, players, lang) == text
        assert N.label_event(public, players, "en") != N.label_event(public, players, "es")
        if ev["type"] == "Exchanged" and ev["data"]["step"] == "discard":  # the discard is face down
            assert not any(c["name"]["en"] in N.label_event(public, players, "en") for c in N.deck())
    assert met == set(N.EVENT_TYPES)


def test_unknown_types_and_languages_raise():
    with pytest.raises(ValueError):
        N.label_event({"type": "Nope", "data": {}}, NAMES, "en")
    with pytest.raises(ValueError):
        N.label_event({"type": "Played", "data": {"seat": 0, "card": 1, "next": 1}}, NAMES, "de")
    with pytest.raises(ValueError):
        N.label_move({"phase": "play", "trick": []}, 0, {"type": "bid"}, "en")


# ------------------------------------------------------------------ hand-built cases


def dealt(hands: dict, blind: list, n=4, dealer=3, **opts) -> dict:
    """A state right after a crafted deal; active seats from mano (the seat after the dealer)."""
    st = C.initial_state(NAMES[:n], dict(rounds=1, **opts))
    active = [(dealer + 1 + i) % n for i in range(n) if (dealer + 1 + i) % n in hands]
    data = {
        "round": 1,
        "dealer": dealer,
        "cutter": (dealer - 1) % n,
        "mano": active[0],
        "active": active,
        "sitting_out": None,
        "blind_size": len(blind),
        "hand_size": len(hands[active[0]]),
    }
    private = {**{s: {"hand": sorted(h)} for s, h in hands.items()}, "nobody": {"blind": sorted(blind)}}
    return C.evolve(st, event("RoundDealt", data, private))


def four_hands() -> tuple[dict, list]:
    """Seat 0 may declare Solo (seed 003, Solo: eight trumps), seat 1 holds trump 1 and blank cards."""
    h0 = [C.JUGLAR, 21, 20, 19, 18, 17, 16, 15, card(D, 0), card(D, 1), card(H, 0)]
    rest = [c for c in C.full_deck() if c not in h0]
    h1 = [1] + [c for c in rest if not C.is_trump(c)][:10]
    rest = [c for c in rest if c not in h1]
    return {0: h0, 1: h1, 2: rest[:11], 3: rest[11:22]}, rest[22:]


def labels(st: dict, seat: int, m: dict) -> tuple[str, str]:
    assert m in C.legal_moves(st, seat)
    v = C.view(st, seat)
    return N.label_move(v, seat, m, "en"), N.label_move(v, seat, m, "es")


def test_first_auction_and_gegensolo_labels():
    """Seed 003, Primera subasta: "Los jugadores pueden declarar Solo, Ulti, o pasar (fort)"; Gegensolo."""
    st = dealt(*four_hands())
    assert labels(st, 0, {"type": "call", "call": "pass"}) == ("pass (fort)", "pasar (fort)")
    assert labels(st, 0, {"type": "call", "call": "solo"}) == (
        "declare Solo: play alone against the others",
        "declarar Solo: jugar solo contra los demás",
    )
    st1 = move(st, 0, type="call", call="pass")
    assert labels(st1, 1, {"type": "call", "call": "ulti"}) == (
        "declare Ulti: win the last trick with trump 1",
        "declarar Ulti: ganar la última baza con el triunfo n.º 1",
    )
    st = move(st, 0, type="call", call="solo")
    assert labels(st, 1, {"type": "call", "call": "gegensolo"}) == (
        "challenge the Solo (Gegensolo)",
        "desafiar al Solo (Gegensolo)",
    )
    assert labels(st, 1, {"type": "call", "call": "pass"}) == (
        "pass (let ana play Solo)",
        "pasar (dejar jugar el Solo a ana)",
    )
    evs = C.decide(st, {"type": "call", "call": "gegensolo", "seat": 1, "seed": 1})
    assert [N.label_event(e, NAMES[:4], "en") for e in evs] == [
        "bea challenges the Solo (Gegensolo)",
        "bea declares Cego after the Gegensolo",
    ]
    assert [N.label_event(e, NAMES[:4], "es") for e in evs] == [
        "bea desafía al Solo (Gegensolo)",
        "bea declara Cego tras el Gegensolo",
    ]


def test_second_auction_labels():
    """Seed 003, Segunda subasta: Piccolo, "ganar una única baza"; Bettel, "no ganar ninguna baza"."""
    st = dealt(*four_hands())
    for s in range(4):
        st = move(st, s, type="call", call="pass")
    assert st["phase"] == "second_auction"
    assert labels(st, 0, {"type": "call", "call": "piccolo"}) == (
        "declare Piccolo: win exactly one trick",
        "declarar Piccolo: ganar una única baza",
    )
    assert labels(st, 0, {"type": "call", "call": "bettel"}) == (
        "declare Bettel: win no trick",
        "declarar Bettel: no ganar ninguna baza",
    )
    assert labels(st, 0, {"type": "call", "call": "pass"}) == ("pass", "pasar")


def cego_held(**opts) -> dict:
    """Everyone passes both auctions: mano (ana) holds Cego (seed 003, Cego)."""
    st = dealt(*four_hands(), **opts)
    for s in list(range(4)) * 2:
        st = move(st, s, type="call", call="pass")
    assert st["phase"] == "raise" and st["contract"]["game"] == "cego"
    return st


def test_raise_gut_selbst_and_rauber_labels():
    """Seed 003, Cego and Regla opcional: raise one level, accept (gut) or play it oneself (selbst); Räuber."""
    st = cego_held(gut_selbst=True)
    assert labels(st, 1, {"type": "call", "call": "raise"}) == ("raise to Eine", "subir a Eine")
    assert labels(st, 1, {"type": "call", "call": "pass"}) == ("pass (ana keeps Cego)", "pasar (ana sigue con Cego)")
    raised = move(st, 1, type="call", call="raise")
    assert labels(raised, 0, {"type": "call", "call": "gut"}) == (
        "accept the raise (gut): bea plays Eine",
        "aceptar la subida (gut): bea juega Eine",
    )
    assert labels(raised, 0, {"type": "call", "call": "selbst"}) == (
        "keep the game and play Eine (selbst)",
        "quedarse el juego y jugar Eine (selbst)",
    )
    ev = C.decide(raised, {"type": "call", "call": "selbst", "seat": 0, "seed": 1})[0]
    assert N.label_event(ev, NAMES[:4], "en") == "ana keeps the game and plays Eine (selbst)"
    assert N.label_event(ev, NAMES[:4], "es") == "ana se queda el juego y juega Eine (selbst)"
    for s in (1, 2, 3):
        st = move(st, s, type="call", call="pass")
    assert st["phase"] == "rauber_choice"
    assert labels(st, 0, {"type": "call", "call": "cego"}) == ("play Cego", "jugar el Cego")
    assert labels(st, 0, {"type": "call", "call": "rauber"}) == (
        "call Räuber: everyone plays alone",
        "declarar Räuber: cada cual juega en solitario",
    )


def test_exchange_and_play_labels():
    """Seed 003, Cego (juego normal): keep two cards, set nine aside, take the blind, discard one face down."""
    st = cego_held()
    for s in (1, 2, 3):
        st = move(st, s, type="call", call="pass")
    st = move(st, 0, type="call", call="cego")
    assert labels(st, 0, {"type": "keep", "cards": [21, C.JUGLAR]}) == (
        "keep trump 21 and the Fool, set the other 9 aside and take the blind",
        "quedarse el triunfo n.º 21 y el Juglar, guardar las otras 9 y coger la ciega",
    )
    ev = C.decide(st, {"type": "keep", "cards": [21, C.JUGLAR], "seat": 0, "seed": 1})[0]
    assert N.label_event({"type": ev["type"], "data": ev["data"]}, NAMES[:4], "en") == (
        "ana keeps 2 cards, sets the rest aside and takes the blind"
    )
    assert N.label_event({"type": ev["type"], "data": ev["data"]}, NAMES[:4], "es") == (
        "ana se queda 2 cartas, guarda el resto y coge la ciega"
    )
    st = fold(st, [ev])
    assert labels(st, 0, {"type": "discard", "cards": [card(K, 7)]}) == (
        "discard the 7 of clubs face down",
        "descartar el 7 de tréboles boca abajo",
    )
    st = move(st, 0, type="discard", cards=[card(K, 7)])
    assert st["phase"] == "play"
    assert labels(st, 0, {"type": "play", "card": C.JUGLAR}) == ("lead the Fool", "abrir la baza con el Juglar")
    st = move(st, 0, type="play", card=C.JUGLAR)
    m = C.legal_moves(st, 1)[0]
    en, es = labels(st, 1, m)
    assert en.startswith("play ") and es.startswith("jugar ")


def test_show_labels():
    """Seed 003, Eine Leere: "El retador muestra sobre la mesa una carta numeral"."""
    st = cego_held()
    st = move(st, 1, type="call", call="raise")  # Eine for bea
    st = move(st, 2, type="call", call="pass")
    st = move(st, 3, type="call", call="raise")  # Eine Leere for dora
    for s in (0, 1, 2):
        st = move(st, s, type="call", call="pass")
    assert st["phase"] == "exchange" and st["contract"] == {"game": "eine_leere", "challenger": 3, "gegensolo": False}
    m = C.legal_moves(st, 3)[0]
    c = m["cards"][0]
    name_en, name_es = (next(d["name"] for d in N.deck() if d["id"] == c)[lang] for lang in LANGS)
    assert labels(st, 3, m) == (
        f"show the {name_en} (Eine Leere), set the other 10 aside and take the blind",
        f"mostrar el {name_es} (Eine Leere), guardar las otras 10 y coger la ciega",
    )
    ev = C.decide(st, {**m, "seat": 3, "seed": 1})[0]
    assert N.label_event(ev, NAMES[:4], "en") == f"dora shows the {name_en}, sets the rest aside and takes the blind"


def test_event_labels_hand_built():
    """Seed 003: trick, deal, scoring and match labels in the game's terms (retador, defensores, ciega)."""
    p = NAMES[:4]

    def both(type_, data, players=p):
        return tuple(N.label_event({"type": type_, "data": data}, players, lang) for lang in LANGS)

    assert both("Played", {"seat": 1, "card": card(H, 0), "next": 2}) == (
        "bea plays the king of hearts",
        "bea juega el rey de corazones",
    )
    assert both("TrickTaken", {"winner": 2, "winning_card": 21, "leader": 0}) == (
        "carl wins the trick with trump 21; ana leads the next one",
        "carl gana la baza con el triunfo n.º 21; abre la siguiente ana",
    )
    assert both("DealerDrawn", {"draws": [[0, 5], [1, card(D, 1)], [2, 3], [3, 110]], "dealer": 0}) == (
        "ana draws the highest card (trump 5) and deals first",
        "ana saca la carta más alta (el triunfo n.º 5) y reparte primero",
    )
    assert both(
        "RoundDealt",
        {
            "round": 2,
            "dealer": 4,
            "cutter": 3,
            "mano": 0,
            "active": [0, 1, 2, 3],
            "sitting_out": 4,
            "blind_size": 10,
            "hand_size": 11,
            "commitment": "ab",
        },
        NAMES,
    ) == (
        "Round 2: eve deals, ana is mano; 10 cards to the blind and 11 to each player; eve sits out",
        "Ronda 2: reparte eve, es mano ana; 10 cartas a la ciega y 11 a cada jugador; eve no juega esta ronda",
    )
    assert both("Exchanged", {"seat": 3, "step": "discard", "count": 1, "next_step": None}) == (
        "dora discards one card face down",
        "dora descarta una carta boca abajo",
    )
    zwei = {"seat": 1, "step": "keep", "count": 2, "shown": [card(S, 5), card(S, 6)], "discarded": 2}
    assert both("Exchanged", {**zwei, "next_step": None}) == (
        "bea shows the 9 of spades and the 8 of spades, sets the rest aside and takes the blind; "
        "trump 2 is discarded from the blind, face up",
        "bea muestra el 9 de picas y el 8 de picas, guarda el resto y coge la ciega; "
        "descarta de la ciega el triunfo n.º 2, a la vista",
    )
    scored = {"game": "eine_leere", "challenger": 0, "gegensolo": False, "challenger_points": 52}
    scored.update(defender_points=27, factor=3, challenger_won=True, amount=39)
    assert both("RoundScored", scored) == (
        "ana wins Eine Leere with 52 points to 27: each defender pays 39",
        "ana gana Eine Leere con 52 puntos contra 27: cada defensor paga 39",
    )
    solo = {**scored, "game": "solo", "challenger_points": 30, "defender_points": 49, "challenger_won": False}
    assert both("RoundScored", {**solo, "amount": 10, "factor": 1}) == (
        "ana loses Solo with 30 points to 49 and pays 10 to each defender",
        "ana pierde Solo con 30 puntos contra 49 y paga 10 a cada defensor",
    )
    cego = {**scored, "game": "cego", "gegensolo": True, "challenger_points": 39, "defender_points": 39}
    assert both("RoundScored", {**cego, "challenger_won": False, "amount": 0}) == (
        "ana loses Cego (Gegensolo) with 39 points to 39: nobody pays",
        "ana pierde Cego (Gegensolo) con 39 puntos contra 39: nadie paga",
    )
    assert both("RoundScored", {"game": "piccolo", "challenger": 2, "challenger_won": True, "amount": 40}) == (
        "carl wins Piccolo: each defender pays 40",
        "carl gana Piccolo: cada defensor paga 40",
    )
    rauber = {"game": "rauber", "challenger": 0, "gegensolo": False, "points": [20, 32, 15, 12], "losers": [1]}
    assert both("RoundScored", {**rauber, "challenger_won": None}) == (
        "Räuber: bea takes the most points (32) and pays 40 to each other player",
        "Räuber: bea es quien más puntos hace (32) y paga 40 a cada uno de los demás",
    )
    tie = {**rauber, "points": [25, 25, 15, 14], "losers": [0, 1], "challenger_won": None}
    assert both("RoundScored", tie) == (
        "Räuber: ana and bea take the most points (25); ana pays 80 and bea pays 40 to each other player",
        "Räuber: ana y bea empatan con más puntos (25); ana paga 80 y bea paga 40 a cada uno de los demás",
    )
    ended = {"scores": [35, -5, 35, -65], "ranking": [0, 2, 1, 3], "winners": [0, 2], "rounds_played": 4}
    assert both("MatchEnded", ended) == (
        "The match ends after 4 rounds: ana and carl win with a balance of 35",
        "Termina la partida tras 4 rondas: ganan ana y carl con un saldo de 35",
    )
    assert both("Called", {"seat": 3, "call": "pass", "phase": "rauber_choice", "speakers": []}) == (
        "dora passes: nobody raised",
        "dora pasa: nadie ha subido",
    )


def test_docs_give_the_pattern_and_every_move_type():
    """docs/rules/cego.md, Notation: the code pattern, the phases and the move types, as the module has them."""
    doc = (Path(__file__).resolve().parent.parent / "docs/rules/cego.md").read_text(encoding="utf-8")
    notation = doc.split("## Notation", 1)[1].split("\n## ", 1)[0]
    assert N.CARD_PATTERN in notation
    assert all(f"`{p['id']}`" in notation for p in N.PHASES)
    assert all(f"`{r['id']}`" in notation for r in N.ROLES)
    assert all(f"`{kind}`" in notation for kind in N.MOVES)
