"""El Gran Dalmuti in words and card codes (domain/dalmuti/notation.py).

The card names and the Spanish terms of the labels come from the rules text,
../shared/seeds/004_3965bd3c775629cb.txt (EL MAZO, RANGOS DE LAS CARTAS,
IMPUESTOS, REVOLUCIÓN, LA PARTIDA, LOS BUFONES, SALIR); the readings are in
docs/rules/dalmuti.md ("Notation").
"""

from __future__ import annotations

import copy
import functools
import importlib
import json
import random
from collections import Counter

import jsonschema
import pytest

from domain import dalmuti as D
from domain import wire
from domain.base import event
from domain.dalmuti import notation as N

LANGS = ("en", "es")
NAMES = ["ana", "bea", "carl", "dan", "eve", "fay", "gil", "hal", "ivy", "jon"]
LEAKS = ("{", "}", "[", "]", "None", "'", "True", "False")

# (players, options, rules version, newcomers join): every deck-changing and move-adding option
CONFIGS = [
    (4, {"hands": 2}, "2", False),
    (4, {"hands": 2, "reduced_deck": True, "first_deal_revolution": True}, "2", False),
    (5, {"hands": 2, "reduced_deck": True, "philanthropic_scoring": True}, "2", False),
    (6, {"hands": 2, "merchant_exchange": True}, "2", False),
    (7, {"hands": 3, "merchant_exchange": True, "allow_joining": True, "scoring": False}, "2", True),
    (5, {"hands": 3, "allow_joining": True, "first_deal_revolution": True}, "2", True),
    (8, {"hands": 1, "merchant_exchange": True, "philanthropic_scoring": True}, "2", False),
    (5, {"hands": 3, "first_deal_revolution": True}, "1", False),
    (4, {"hands": 3}, "1", False),
]


# ------------------------------------------------------------------ playthroughs


def _cards_seen(view: dict) -> list[int]:
    """Every card a view shows: its hand, the last play, the seating draw, its transfers and tax choice."""
    seen = list(view.get("hand") or [])
    if view.get("trick"):
        seen += view["trick"]["cards"]
    seen += [c for rnd in view.get("seating_draw") or [] for _, c in rnd]
    for t in view.get("transfers") or []:
        seen += t["gave"] + t["received"]
    if view.get("tax") and view["tax"].get("chosen"):
        seen += view["tax"]["chosen"]
    return seen


@functools.cache
def playthroughs() -> tuple[list, list, Counter]:
    """Random matches to the end over CONFIGS (three seeds each): the decisions met as
    (view, seat, legal moves, options), the events met as (event, players), and the move types chosen."""
    decisions: list[tuple[dict, int, list[dict], dict]] = []
    events: list[tuple[dict, list[str]]] = []
    chosen: Counter = Counter()
    for index, (n, opts, rules, joins) in enumerate(CONFIGS):
        for k in range(3):
            r = random.Random(1000 * index + k)
            st = D.initial_state(NAMES[:n], opts)
            st["rules"] = rules

            def apply(st: dict, command: dict, rules: str = rules) -> dict:
                for ev in D.decide(st, command):
                    st = D.evolve(st, {**ev, "rules": rules})
                    events.append((ev, list(st["players"])))
                return st

            st = apply(st, {"type": "start", "seat": None, "seed": r.getrandbits(63)})
            for _ in range(20_000):
                if D.outcome(st) is not None:
                    break
                if joins and len(st["players"]) < len(NAMES) and r.random() < 0.02:
                    name = NAMES[len(st["players"])]
                    st = apply(st, {"type": "join", "seat": None, "player": name, "seed": r.getrandbits(63)})
                    continue
                acting = D.to_act(st)
                for seat in acting:
                    decisions.append((D.view(st, seat), seat, D.legal_moves(st, seat), dict(st["options"])))
                seat = r.choice(acting)
                move = r.choice(D.legal_moves(st, seat))
                chosen[move["type"]] += 1
                st = apply(st, {**move, "seat": seat, "seed": r.getrandbits(63)})
            assert D.outcome(st) is not None, "the match did not end"
    return decisions, events, chosen


def _clean(text: str) -> None:
    assert isinstance(text, str) and text.strip(), repr(text)
    for bad in LEAKS:
        assert bad not in text, (bad, text)


# ------------------------------------------------------------------ cards


def test_card_pattern_is_anchored():
    """Codes: the ranks 1..12 as printed, the jester JS (seed 004, RANGOS DE LAS CARTAS)."""
    assert N.CARD_PATTERN.startswith("^") and N.CARD_PATTERN.endswith("$")
    assert N.code(1) == "1" and N.code(12) == "12" and N.code(13) == "JS"
    assert N.card("8") == 8 and N.card("JS") == D.JESTER


@pytest.mark.parametrize("reduced", [False, True])
@pytest.mark.parametrize("players", [None, 4, 5, 6, 16])
def test_deck_round_trips(reduced, players):
    """Every card of every deck (seed 004, EL MAZO; Mazos reducidos) round-trips through its code."""
    cards = N.deck({"reduced_deck": reduced}, players) if players else N.deck({"reduced_deck": reduced})
    codes = [c["code"] for c in cards]
    assert len(codes) == len(set(codes))
    for c in cards:
        assert N.card(N.code(c["id"])) == c["id"] and N.code(c["id"]) == c["code"]
        assert jsonschema.Draft202012Validator({"type": "string", "pattern": N.CARD_PATTERN}).is_valid(c["code"])
        assert c["suit"] is None and c["rank"] == str(c["id"])
        assert c["name"]["en"] and c["name"]["es"] and c["colour"]
        assert "points" not in c
    expected = D.deck_for(players or 16, reduced)
    assert sum(c["copies"] for c in cards) == len(expected)
    assert {c["id"]: c["copies"] for c in cards} == dict(Counter(expected))


def test_deck_sizes_and_names():
    """Seed 004: 80 cards; 68 for five players and 57 for four with the reduced decks; the names of the
    table of ranks (Dalmuti 1 ... Campesino 12, Bufón)."""
    assert sum(c["copies"] for c in N.deck()) == 80
    assert sum(c["copies"] for c in N.deck(None)) == 80
    assert sum(c["copies"] for c in N.deck({"reduced_deck": True}, 5)) == 68
    assert sum(c["copies"] for c in N.deck({"reduced_deck": True}, 4)) == 57
    assert sum(c["copies"] for c in N.deck({"reduced_deck": True})) == 80  # any table size may come
    by_code = {c["code"]: c for c in N.deck()}
    assert by_code["1"]["name"] == {"en": "Dalmuti", "es": "Dalmuti"}
    assert by_code["3"]["name"]["es"] == "Sherif"
    assert by_code["8"]["name"] == {"en": "Mason", "es": "Albañil"}
    assert by_code["12"]["name"] == {"en": "Peasant", "es": "Campesino"}
    assert by_code["JS"] == {
        "code": "JS",
        "id": 13,
        "suit": None,
        "rank": "13",
        "name": {"en": "Jester", "es": "Bufón"},
        "colour": "multicolour",
        "copies": 2,
    }


@pytest.mark.parametrize(
    "bad", ["", "0", "13", "01", "8 ", " 8", "8\n", "js", "J", "JSS", "S", "1.0", "-1", "8S", 8, None, ["8"]]
)
def test_not_a_card(bad):
    with pytest.raises(ValueError, match="match"):
        N.card(bad)


@pytest.mark.parametrize("bad", [0, 14, -1, True, "8", None, 8.0])
def test_not_a_card_value(bad):
    with pytest.raises(ValueError):
        N.code(bad)


def test_every_card_seen_is_in_the_deck():
    """Every card a playthrough shows in a seat's hand or view is a card of deck() for its options."""
    decisions, _, _ = playthroughs()
    for view, _, _, opts in decisions:
        ids = {c["id"] for c in N.deck(opts)}
        table = {c["id"] for c in N.deck(opts, len(view["order"]))}
        for c in _cards_seen(view):
            assert c in ids, c
            if view.get("hand") is not None and c in view["hand"]:
                assert c in table, (c, len(view["order"]), opts)


# ------------------------------------------------------------------ phases, roles, moves


def test_phases_and_roles():
    ids = [p["id"] for p in N.PHASES]
    assert set(ids) == {"created", "placing", "revolution", "taxes", "play", "between_hands", "finished"}
    for p in N.PHASES:
        assert all(p["name"][lang] and p["description"][lang] for lang in LANGS)
    assert [r["id"] for r in N.ROLES] == list(D.ROLES)
    names = {r["id"]: r["name"] for r in N.ROLES}
    # seed 004, PREPARACIÓN DEL JUEGO: Gran Dalmuti, Pequeño Dalmuti, Comerciantes, Pequeño Peón, Gran Peón
    assert names["greater_dalmuti"]["es"] == "Gran Dalmuti" and names["lesser_peon"]["es"] == "Pequeño Peón"


def test_phases_met_are_described():
    decisions, _, _ = playthroughs()
    ids = {p["id"] for p in N.PHASES}
    assert {view["phase"] for view, *_ in decisions} <= ids
    assert {view["role"] for view, *_ in decisions} <= {r["id"] for r in N.ROLES}


def test_move_schemas_are_valid_schemas():
    for kind, spec in N.MOVES.items():
        jsonschema.Draft202012Validator.check_schema(spec["schema"])
        schema = spec["schema"]
        assert schema["properties"]["type"] == {"const": kind}
        assert schema["additionalProperties"] is False and "type" in schema["required"]
        assert set(schema["required"]) == set(schema["properties"])
        assert all(spec["description"][lang] for lang in LANGS)


def _card_values(schema: dict, move: dict) -> list:
    """The values of ``move`` in fields (or items) marked x-naipes-card."""
    out = []
    for field, spec in schema["properties"].items():
        if field not in move:
            continue
        if spec.get("x-naipes-card"):
            out.append(move[field])
        if spec.get("items", {}).get("x-naipes-card"):
            out.extend(move[field])
    return out


def test_every_legal_move_fits_its_schema_and_has_labels():
    """Every listed move of every acting seat: as posted (cards as codes, domain.wire) it fits its schema
    and its cards are codes of the game; a label in both languages (from the rules' own move)."""
    decisions, _, _ = playthroughs()
    validators = {k: jsonschema.Draft202012Validator(s["schema"]) for k, s in N.MOVES.items()}
    listed: Counter = Counter()
    for view, seat, moves, _ in decisions:
        assert moves
        for move in moves:
            listed[move["type"]] += 1
            posted = wire.encode_move("dalmuti", move)
            errors = list(validators[move["type"]].iter_errors(posted))
            assert not errors, (posted, errors[0].message)
            codes = _card_values(N.MOVES[move["type"]]["schema"], posted)
            assert codes == [N.code(c) for c in _card_values(N.MOVES[move["type"]]["schema"], move)]
            for value in codes:
                assert N.code(N.card(value)) == value
            texts = [N.label_move(view, seat, move, lang) for lang in LANGS]
            for text in texts:
                _clean(text)
            assert texts[0] != texts[1]
    assert set(listed) == set(N.MOVES), set(N.MOVES) - set(listed)


def test_every_event_has_labels_from_its_public_part():
    """Every event met: a label in both languages from {type, data} alone, the same for the same public
    data, and the same whatever the private part held (it is never read)."""
    _, events, _ = playthroughs()
    seen: dict[tuple, dict[str, str]] = {}
    for ev, players in events:
        public = {"type": ev["type"], "data": copy.deepcopy(ev["data"])}
        key = (ev["type"], json.dumps(ev["data"], sort_keys=True), tuple(players))
        for lang in LANGS:
            text = N.label_event(public, players, lang)
            _clean(text)
            assert N.label_event(ev, players, lang) == text
            assert seen.setdefault(key, {}).setdefault(lang, text) == text
        assert public["data"] == ev["data"]  # not mutated
        assert N.label_event(public, players, "en") != N.label_event(public, players, "es")
    met = {ev["type"] for ev, _ in events}
    assert met <= set(N.EVENT_TYPES)
    constructed = {"RevolutionDeclared"}  # also built by hand below (a greater revolution is rare)
    assert set(N.EVENT_TYPES) - met <= constructed, set(N.EVENT_TYPES) - met


def test_revolution_answers_read_the_same():
    """Rules 2: every answer to the revolution question is the same public event; its label cannot tell a
    declaration from a decline (seed 004, REVOLUCIÓN; docs/rules/dalmuti.md, "Revolution")."""
    players = NAMES[:4]
    yes = event("RevolutionAnswered", {"seat": 2}, {2: {"declare": True, "salt": "a"}})
    no = event("RevolutionAnswered", {"seat": 2}, {2: {"declare": False, "salt": "b"}})
    for lang in LANGS:
        assert N.label_event(yes, players, lang) == N.label_event(no, players, lang)
    assert N.label_event(no, players, "en") == "carl answers the revolution question"
    assert N.label_event(no, players, "es") == "carl responde si declara una revolución"


def test_every_event_type_is_decided_by_the_game():
    """EVENT_TYPES are exactly the types evolve folds (every one decide can emit)."""
    folds = importlib.import_module("domain.dalmuti.evolve")._EVOLVERS
    assert set(N.EVENT_TYPES) == set(folds)


def test_unknown_types_and_languages():
    view = {"players": NAMES[:4], "order": [0, 1, 2, 3]}
    with pytest.raises(ValueError):
        N.label_move(view, 0, {"type": "bid"}, "en")
    with pytest.raises(ValueError):
        N.label_event({"type": "Bid", "data": {}}, NAMES[:4], "en")
    with pytest.raises(ValueError):
        N.label_move(view, 0, {"type": "pass"}, "fr")


# ------------------------------------------------------------------ exact labels

PLAYERS = ["ana", "bea", "carl", "dan", "eve", "fay"]


def _view(seat: int, hand: list[int], must: dict | None = None, order=None) -> dict:
    order = list(range(6)) if order is None else order
    roles = [None] * len(PLAYERS)
    for i, s in enumerate(order):
        roles[s] = D.role_at(i, len(order))
    return {"players": PLAYERS, "order": order, "roles": roles, "hand": hand, "must": must, "seat": seat}


def both(fn, *args) -> tuple[str, str]:
    return fn(*args, "en"), fn(*args, "es")


def test_play_labels():
    """Seed 004, LOS BUFONES: "dos Albañiles (rango 8) y un Bufón ... tres cartas de rango 8"; a jester alone
    is rank 13."""
    v = _view(1, [3, 8, 8, 13, 13])
    assert both(N.label_move, v, 1, {"type": "play", "cards": [8, 8, 13]}) == (
        "play three 8s (two 8s and a jester)",
        "jugar tres 8 (dos 8 y un Bufón)",
    )
    assert both(N.label_move, v, 1, {"type": "play", "cards": [13, 13]}) == (
        "play two jesters (rank 13)",
        "jugar dos Bufones (rango 13)",
    )
    assert both(N.label_move, v, 1, {"type": "play", "cards": [8]}) == ("play an 8", "jugar un 8")
    assert both(N.label_move, v, 1, {"type": "pass"}) == ("pass", "pasar")
    out = _view(1, [11, 13])
    assert both(N.label_move, out, 1, {"type": "play", "cards": [11, 13]}) == (
        "play two 11s (an 11 and a jester) and go out",
        "jugar dos 11 (un 11 y un Bufón) y salir del juego",
    )


def test_play_events():
    """Seed 004, SALIR: a player playing its last card goes out (Puntuación: 1 point per opponent left)."""
    played = event(
        "Played", {"seat": 1, "cards": [8, 8, 13], "rank": 8, "count": 3, "out": False, "points": 0, "next": 2}
    )
    assert both(N.label_event, played, PLAYERS) == (
        "bea plays three 8s (two 8s and a jester)",
        "bea juega tres 8 (dos 8 y un Bufón)",
    )
    out = event("Played", {"seat": 4, "cards": [1], "rank": 1, "count": 1, "out": True, "points": 5, "next": 5})
    assert both(N.label_event, out, PLAYERS) == (
        "eve plays a 1 and goes out (+5 points)",
        "eve juega un 1 y sale del juego (+5 puntos)",
    )
    assert both(N.label_event, event("Passed", {"seat": 2, "next": 3}), PLAYERS) == ("carl passes", "carl pasa")
    assert both(N.label_event, event("TrickEnded", {"winner": 4, "leader": 5}), PLAYERS) == (
        "eve wins the trick; fay leads the next",
        "eve gana la ronda; empieza la siguiente fay",
    )
    assert both(N.label_event, event("TrickEnded", {"winner": 1, "leader": 1}), PLAYERS) == (
        "bea wins the trick and leads the next",
        "bea gana la ronda y empieza la siguiente",
    )


def test_tax_labels():
    """Seed 004, IMPUESTOS: the Greater Dalmuti gives two cards of its choice to the Greater Peon, the Lesser
    Dalmuti one to the Lesser Peon."""
    v = _view(0, [1, 5, 12, 13], {"action": "give_taxes", "count": 2, "to": 5})
    assert both(N.label_move, v, 0, {"type": "give_taxes", "cards": [12, 13]}) == (
        "give a 12 and a jester to fay, the Greater Peon",
        "entregar un 12 y un Bufón a fay, el Gran Peón",
    )
    assert both(N.label_move, _view(1, [9, 9]), 1, {"type": "give_taxes", "cards": [9]}) == (
        "give a 9 to eve, the Lesser Peon",
        "entregar un 9 a eve, el Pequeño Peón",
    )
    assert both(N.label_event, event("TaxChosen", {"seat": 0, "count": 2}), PLAYERS) == (
        "ana chooses the two cards to give to the Greater Peon",
        "ana elige las dos cartas que entregará al Gran Peón",
    )
    paid = event(
        "TaxesPaid",
        {
            "transfers": [
                {"from": 5, "to": 0, "count": 2},
                {"from": 0, "to": 5, "count": 2},
                {"from": 4, "to": 1, "count": 1},
                {"from": 1, "to": 4, "count": 1},
            ]
        },
    )
    assert both(N.label_event, paid, PLAYERS) == (
        "taxes paid: fay gives 2 cards to ana, ana 2 to fay, eve 1 to bea, bea 1 to eve",
        "impuestos pagados: fay entrega 2 cartas a ana, ana 2 a fay, eve 1 a bea, bea 1 a eve",
    )


def test_merchant_exchange_labels():
    """Seed 004, Cambios entre comerciantes: the highest Merchant swaps a random card with another."""
    v = _view(2, [4, 6])
    assert both(N.label_move, v, 2, {"type": "merchant_exchange", "with": 3}) == (
        "swap a random card with dan",
        "intercambiar una carta al azar con dan",
    )
    assert both(N.label_move, v, 2, {"type": "decline_exchange"}) == (
        "make no exchange with another Merchant",
        "no hacer ningún cambio con otro Comerciante",
    )
    assert both(N.label_event, event("MerchantsExchanged", {"seat": 2, "with": 3}), PLAYERS) == (
        "carl swaps a random card with dan",
        "carl intercambia una carta al azar con dan",
    )
    assert both(N.label_event, event("ExchangeDeclined", {"seat": 2}), PLAYERS) == (
        "carl makes no exchange with another Merchant",
        "carl no hace ningún cambio con otro Comerciante",
    )


def test_revolution_labels():
    """Seed 004, REVOLUCIÓN: with both jesters a player may declare a revolution (no taxes); the Greater
    Peon's is a greater revolution and the seats are swapped with their opposites."""
    gp = _view(5, [2, 13, 13], {"action": "revolution", "greater": True, "may_declare": True})
    assert both(N.label_move, gp, 5, {"type": "declare_revolution"}) == (
        "declare a greater revolution: the order is reversed",
        "declarar una gran revolución: el orden se invierte",
    )
    other = _view(2, [2, 13, 13], {"action": "revolution", "greater": False, "may_declare": True})
    assert both(N.label_move, other, 2, {"type": "declare_revolution"}) == (
        "declare a revolution: no taxes this hand",
        "declarar una revolución: no se pagan impuestos en esta mano",
    )
    assert both(N.label_move, other, 2, {"type": "decline_revolution"}) == (
        "declare no revolution",
        "no declarar ninguna revolución",
    )
    greater = event("RevolutionDeclared", {"seat": 5, "greater": True, "order": [5, 4, 3, 2, 1, 0]})
    assert both(N.label_event, greater, PLAYERS) == (
        "fay declares a greater revolution: the order is reversed and fay is the Greater Dalmuti",
        "fay declara una gran revolución: el orden se invierte y fay pasa a ser el Gran Dalmuti",
    )
    plain = event("RevolutionDeclared", {"seat": 2, "greater": False, "order": [0, 1, 2, 3, 4, 5]})
    assert both(N.label_event, plain, PLAYERS) == (
        "carl declares a revolution: no taxes this hand",
        "carl declara una revolución: no se pagan impuestos en esta mano",
    )
    assert both(N.label_event, event("RevolutionDeclined", {}), PLAYERS) == (
        "nobody declares a revolution",
        "nadie declara una revolución",
    )


def test_seating_deal_and_end_labels():
    """Seed 004, PREPARACIÓN DEL JUEGO (the draw, ties draw again), EL REPARTO (the Greater Peon deals from the
    Greater Dalmuti), SALIR (the order of going out is the next order)."""
    players = PLAYERS[:4]
    drawn = event("SeatsDrawn", {"draws": [[[0, 7], [1, 3], [2, 7], [3, 13]], [[0, 9], [2, 2]]], "order": [1, 2, 0, 3]})
    assert both(N.label_event, drawn, players) == (
        "seating draw: ana 7, bea 3, carl 7, dan jester; again ana 9, carl 2: bea is the Greater Dalmuti, "
        "dan the Greater Peon",
        "sorteo de asientos: ana 7, bea 3, carl 7, dan Bufón; de nuevo ana 9, carl 2: bea es el Gran Dalmuti "
        "y dan el Gran Peón",
    )
    dealt = event(
        "HandDealt",
        {
            "hand": 1,
            "order": [1, 2, 0, 3],
            "dealer": 3,
            "deck_size": 57,
            "sizes": [14, 15, 14, 14],
            "auto_revolution": True,
            "commitment": "ab",
        },
    )
    assert both(N.label_event, dealt, players) == (
        "hand 1: dan, the Greater Peon, deals 57 cards from bea clockwise; first-deal revolution: no taxes",
        "mano 1: dan, el Gran Peón, reparte 57 cartas empezando por bea; revolución del primer reparto: "
        "no se pagan impuestos",
    )
    ended = event(
        "HandEnded",
        {
            "hand": 1,
            "out_order": [2, 1, 0, 3],
            "points": [1, 2, 3, 0],
            "bonus": [0, 1, 0, 0],
            "scores": [1, 3, 3, 0],
            "order": [2, 1, 0, 3],
            "match_over": False,
        },
    )
    assert both(N.label_event, ended, players) == (
        "hand 1 over, order of going out: carl, bea, ana, dan (carl becomes the Greater Dalmuti, dan the Greater "
        "Peon); philanthropic points: bea +1; scores: ana 1, bea 3, carl 3, dan 0",
        "fin de la mano 1, orden de salida: carl, bea, ana, dan (carl pasa a ser el Gran Dalmuti y dan el Gran "
        "Peón); puntos filantrópicos: bea +1; puntos: ana 1, bea 3, carl 3, dan 0",
    )
    over = event(
        "MatchEnded",
        {
            "scores": [1, 3, 3, 0],
            "ranking": [2, 1, 0, 3],
            "winners": [2],
            "hands_played": 1,
            "last_order": [2, 1, 0, 3],
        },
    )
    assert both(N.label_event, over, players) == (
        "match over after 1 hand: carl wins; ranking: carl, bea, ana, dan",
        "fin de la partida tras 1 mano: gana carl; clasificación: carl, bea, ana, dan",
    )


def test_newcomer_labels():
    """Seed 004, INCORPORARSE A UNA PARTIDA EN MARCHA: newcomers enter as Merchants, placed by the Greater
    Dalmuti."""
    v = _view(0, [], {"action": "place_newcomer", "newcomers": [5], "slots": 2}, order=[0, 1, 2, 3, 4])
    assert both(N.label_move, v, 0, {"type": "place_newcomer", "newcomer": 5, "slot": 1}) == (
        "seat fay as a Merchant between carl and dan",
        "sentar a fay como Comerciante entre carl y dan",
    )
    placed = event("NewcomerPlaced", {"seat": 0, "newcomer": 5, "slot": 1, "order": [0, 1, 2, 5, 3, 4]})
    assert both(N.label_event, placed, PLAYERS) == (
        "ana seats fay as a Merchant between carl and dan",
        "ana sienta a fay como Comerciante entre carl y dan",
    )
    assert both(N.label_event, event("PlayerJoined", {"seat": 5, "player": "fay"}), PLAYERS) == (
        "fay joins the table",
        "fay se une a la partida",
    )


def test_rules_one_events():
    """Rules 1 named the holder of both jesters in the deal and in its decline (public then)."""
    players = PLAYERS[:4]
    dealt = event(
        "HandDealt",
        {
            "hand": 2,
            "order": [0, 1, 2, 3],
            "dealer": 3,
            "deck_size": 80,
            "sizes": [20, 20, 20, 20],
            "auto_revolution": False,
            "jesters_seat": 1,
        },
    )
    assert both(N.label_event, dealt, players) == (
        "hand 2: dan, the Greater Peon, deals 80 cards from ana clockwise; bea holds both jesters",
        "mano 2: dan, el Gran Peón, reparte 80 cartas empezando por ana; bea tiene los dos Bufones",
    )
    assert both(N.label_event, event("RevolutionDeclined", {"seat": 1}), players) == (
        "bea declares no revolution",
        "bea no declara ninguna revolución",
    )
