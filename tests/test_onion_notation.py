"""Cripple Mr Onion in words and card codes (``domain.onion.notation``).

The cards are the two packs of ``../shared/seeds/002_c6b7f4254666cdbe.txt`` ("two
standard decks of playing cards ... clubs, spades, hearts and diamonds, and ... swords,
staves, cups and coins"), 104 distinct cards.  Random matches (the base game and the
modifiers #0-#11 of the same seed) check that every legal move, its cards written as codes
(``domain.wire.encode_move``, as the API lists it), fits its JSON Schema and every move and
event gets a clean label in English and Spanish; hand-built cases check
the words themselves.
"""

from __future__ import annotations

import copy
import random
import re
from collections import Counter

import jsonschema
import pytest

from domain import onion as O
from domain import wire
from domain.onion import notation as N
from domain.onion.decide import _DECIDERS
from domain.onion.evolve import _EVOLVERS

SEED = "../shared/seeds/002_c6b7f4254666cdbe.txt"
NAMES = ["ana", "bea", "carl", "dora", "ines", "juan", "kim"]
ALL_ON = {name: True for name, _ in O.MODIFIERS}
LANGS = ("en", "es")
LEAKS = ("{", "}", "[", "]", "None", "'", "_")

OPTION_SETS = [
    # (name, options, matches, players)
    ("base", {"rounds": 2, "bankroll": 10, "stake": 5, "max_raise": 2}, 16, None),
    ("base-poor", {"rounds": 3, "bankroll": 3, "stake": 1, "max_raise": 1}, 12, None),
    ("base-rules-1", {"rounds": 2, "bankroll": 10, "stake": 5, "max_raise": 2}, 6, None),
    ("all-modifiers", {"rounds": 3, "bankroll": 10, "stake": 5, "max_raise": 2, **ALL_ON}, 30, None),
    ("lady-fate-wild", {"rounds": 4, "bankroll": 20, "stake": 1, "lady": True, "fate": True, "null_eights": True},
     16, 3),
    (
        "atuin-elephants-death-arch",
        {"rounds": 3, "bankroll": 20, "stake": 1, "great_atuin": True, "elephants": True, "death": True,
         "archchancellor": True},
        16,
        4,
    ),
    ("crippling", {"rounds": 3, "bankroll": 20, "stake": 1, "crippling": True, "null_eights": True, "octavo": True,
                   "wild_crippling": True, "sender_of_eights": True, "fool": True}, 12, 2),
]  # fmt: skip


# ------------------------------------------------------------------ helpers


def card_values(schema: dict, value):
    """The values of ``value`` at the places ``schema`` marks with ``x-naipes-card``."""
    if schema.get("x-naipes-card"):
        yield value
    if isinstance(value, dict):
        for key, sub in (schema.get("properties") or {}).items():
            if key in value:
                yield from card_values(sub, value[key])
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for item in value:
            yield from card_values(schema["items"], item)


def assert_clean(text: str, what) -> None:
    assert isinstance(text, str) and text.strip(), what
    for bad in LEAKS:
        assert bad not in text, (bad, text, what)


CARD_KEYS = ("cards", "up", "card", "kept", "from", "to", "unused")


def public_cards(data) -> set[int]:
    """Every card id the public data of an event names."""
    out: set[int] = set()
    if isinstance(data, dict):
        for k, v in data.items():
            if k in CARD_KEYS and isinstance(v, int) and not isinstance(v, bool):
                out.add(v)
            elif k in CARD_KEYS and isinstance(v, list) and all(isinstance(x, int) for x in v):
                out |= set(v)
            else:
                out |= public_cards(v)
    elif isinstance(data, list):
        for v in data:
            out |= public_cards(v)
    return out


def codes_in(text: str) -> set[str]:
    return {w for w in re.split(r"[^0-9A-Za-z]+", text) if re.fullmatch(N.CARD_PATTERN, w)}


def view_cards(v: dict) -> set[int]:
    """The cards a seat's view shows: its hand, the face-up cards, and the modifiers' cards."""
    out = set(v.get("hand") or [])
    for u in v["up"]:
        out |= set(u)
    m = v.get("modifiers")
    if m:
        out |= set(m.get("offer") or [])
        out |= {d["card"] for d in m["declared"]}
        for xs in m["disclosed"] + m["on_table"]:
            out |= set(xs)
    out |= public_cards(v.get("last_round"))
    return out


VALIDATORS = {t: jsonschema.Draft202012Validator(spec["schema"]) for t, spec in N.MOVES.items()}


def check_move(view: dict, seat: int, move: dict, met: Counter) -> None:
    """A legal move (cards as the rules' ids) validates, cards as codes, as the API lists it."""
    VALIDATORS[move["type"]].validate(wire.encode_move("onion", move))
    for c in card_values(N.MOVES[move["type"]]["schema"], move):
        N.code(c)
    for lang in LANGS:
        assert_clean(N.label_move(view, seat, move, lang), (move, lang))
    met[move["type"]] += 1


def check_event(ev: dict, players: list[str], met: Counter) -> None:
    public = {"type": ev["type"], "data": copy.deepcopy(ev["data"])}
    shown = public_cards(ev["data"])
    for lang in LANGS:
        text = N.label_event(public, players, lang)
        assert_clean(text, (ev["type"], lang))
        assert N.label_event(copy.deepcopy(public), list(players), lang) == text
        # the whole event (private parts included) reads the same: only the public part is read
        assert N.label_event(ev, players, lang) == text
        # no card code in the label that the public data does not name
        assert codes_in(text) <= {N.code(c) for c in shown | set(O.hands.SPECIAL)}, (text, ev["type"])
    assert public["data"] == ev["data"]  # labelling changes nothing
    met[ev["type"]] += 1


def policy(r: random.Random, moves: list[dict], stubborn: bool) -> dict:
    declares = [m for m in moves if m["type"] == "declare"]
    if declares and r.random() < 0.6:
        return r.choice(declares)
    pool = [m for m in moves if m["type"] not in ("fold", "pass_dealership", "decline_bid", "concede")]
    return r.choice((pool if stubborn else None) or moves)


def play(name: str, options: dict, index: int, players_n: int | None, found: dict) -> None:
    r = random.Random(f"{name}-{index}")
    n = players_n or 2 + index % 6
    players = NAMES[:n]
    st = O.initial_state(players, options)
    if name == "base-rules-1":
        st = {**st, "rules": "1"}
    found["phases"].add(O.view(st, "spectator")["phase"])
    for ev in O.decide(st, {"type": "start", "seat": None, "seed": r.getrandbits(63)}):
        check_event(ev, players, found["events"])
        st = O.evolve(st, ev)
    stubborn = index % 3 != 0
    steps = 0
    while st["phase"] != "finished":
        steps += 1
        assert steps < 5000
        seat = O.to_act(st)[0]
        for s in range(n):
            found["cards"] |= view_cards(O.view(st, s))
        view = O.view(st, seat)
        found["phases"].add(view["phase"])
        found["roles"] |= {x for x in view["roles"] if x is not None}
        for move in view["legal_moves"]:
            check_move(view, seat, move, found["moves"])
            found["cards"] |= set(card_values(N.MOVES[move["type"]]["schema"], move))
        move = policy(r, view["legal_moves"], stubborn)
        for ev in O.decide(st, {**move, "seat": seat, "seed": r.getrandbits(63)}):
            check_event(ev, players, found["events"])
            st = O.evolve(st, ev)
            found["phases"].add(st["phase"])
    found["phases"].add(O.view(st, "spectator")["phase"])


@pytest.fixture(scope="module")
def found() -> dict:
    out = {"events": Counter(), "moves": Counter(), "cards": set(), "phases": set(), "roles": set()}
    for name, options, matches, players_n in OPTION_SETS:
        for i in range(matches):
            play(name, options, i, players_n, out)
    return out


# --------------------------------------------------------------- the cards


@pytest.mark.parametrize("options", [None, {}, {"rounds": 3}, ALL_ON, {"lady": True, "fate": True}])
def test_every_card_of_the_deck_round_trips_and_its_code_is_unique(options):
    """Seed 002 (``SEED``): two packs of 52, one French-suited and one Spanish-suited: 104
    distinct cards whatever the options (the modifiers only give seven of them a role)."""
    deck = N.deck(options)
    assert len(deck) == 104
    assert sorted(c["id"] for c in deck) == list(range(104))
    codes = [c["code"] for c in deck]
    assert len(set(codes)) == 104
    for c in deck:
        assert re.fullmatch(N.CARD_PATTERN, c["code"])
        assert N.card(N.code(c["id"])) == c["id"]
        assert N.code(N.card(c["code"])) == c["code"]
        assert c["code"].isascii() and len(c["code"]) <= 3
        assert c["name"]["en"] and c["name"]["es"]
        assert c["colour"] in ("red", "black", "yellow", "blue", "green")
        assert "copies" not in c
        assert c["points"] == O.hands.value_of(c["id"])
    assert deck == N.deck(None)


def test_the_codes_read_as_the_cards():
    """French cards rank then suit, Spanish-suited cards suit then rank; the special cards of
    seed 002's modifiers by the seed's own names (``SEED``, #4-#11)."""
    H = O.hands
    named = {c["code"]: c for c in N.deck()}
    assert N.code(H.LADY) == "QS" and named["QS"]["name"] == {"en": "queen of spades", "es": "reina de picas"}
    assert N.code(H.FATE) == "CK" and named["CK"]["name"] == {"en": "king of cups", "es": "rey de copas"}
    assert N.code(H.ATUIN) == "OQ" and named["OQ"]["name"] == {"en": "queen of coins", "es": "reina de oros"}
    assert N.code(H.SENDER) == "JD" and named["JD"]["name"] == {"en": "jack of diamonds", "es": "jota de diamantes"}
    assert N.code(H.DEATH) == "EK" and named["EK"]["name"] == {"en": "king of swords", "es": "rey de espadas"}
    assert N.code(H.ARCH) == "BJ" and named["BJ"]["name"] == {"en": "jack of staves", "es": "sota de bastos"}
    assert N.code(H.FOOL) == "JC" and named["JC"]["name"] == {"en": "jack of clubs", "es": "jota de tréboles"}
    assert N.card("AC") == H.card(1, 0, 0) and N.card("10H") == H.card(10, 2, 0)
    assert N.card("O1") == H.card(1, 3, 1) and N.card("C7") == H.card(7, 2, 1) and N.card("7C") == H.card(7, 0, 0)
    assert named["O1"] == {
        "code": "O1",
        "id": H.card(1, 3, 1),
        "suit": "coins",
        "rank": "1",
        "name": {"en": "ace of coins", "es": "as de oros"},
        "colour": "yellow",
        "points": 1,
    }
    assert named["10H"]["colour"] == "red" and named["AS"]["colour"] == "black" and named["E5"]["colour"] == "blue"
    assert named["KD"]["points"] == 10 and named["B10"]["points"] == 10


@pytest.mark.parametrize(
    "text",
    ["", "1S", "11H", "AX", "S7", "O0", "O11", "O12", "OA", "CC", "7s", "qs", " 7S", "7S ", "7S\n", "10", "T1", "JS?"],
)
def test_strings_that_are_no_card_are_refused(text):
    with pytest.raises(ValueError, match=re.escape(N.CARD_PATTERN)):
        N.card(text)


@pytest.mark.parametrize("value", [None, 7, ["7S"], b"7S"])
def test_values_that_are_no_code_are_refused(value):
    with pytest.raises(ValueError):
        N.card(value)


@pytest.mark.parametrize("value", [-1, 104, True, "7S", None, 3.0])
def test_values_that_are_no_card_have_no_code(value):
    with pytest.raises(ValueError):
        N.code(value)


def test_every_card_seen_in_play_is_in_the_deck(found):
    assert found["cards"] <= {c["id"] for c in N.deck()}
    assert len(found["cards"]) > 90


# ------------------------------------------------------ phases, roles, moves


def test_phases_roles_and_moves_are_described_in_both_languages(found):
    ids = [p["id"] for p in N.PHASES]
    assert len(set(ids)) == len(ids)
    assert found["phases"] <= set(ids), found["phases"] - set(ids)
    assert {"created", "draw", "bet_name", "auction", "buy", "predeclare", "answer", "choose"} <= found["phases"]
    for p in N.PHASES:
        for lang in LANGS:
            assert p["name"][lang] and p["description"][lang]
    assert [r["id"] for r in N.ROLES] == ["dealer", "elder", "player", "younger"]
    assert found["roles"] <= {r["id"] for r in N.ROLES}
    assert all(r["name"]["en"] and r["name"]["es"] for r in N.ROLES)
    assert {r["id"]: r["name"]["es"] for r in N.ROLES}["dealer"] == "Banca"
    assert set(N.MOVES) == set(_DECIDERS) - {"start"}
    for t, spec in N.MOVES.items():
        s = spec["schema"]
        jsonschema.Draft202012Validator.check_schema(s)
        assert s["properties"]["type"] == {"const": t}
        assert s["additionalProperties"] is False and "type" in s["required"]
        assert spec["description"]["en"] and spec["description"]["es"]


def test_the_schemas_refuse_malformed_moves():
    bad = [
        {"type": "discard"},
        {"type": "discard", "cards": ["2C", "3C", "4C", "5C", "6C"]},
        {"type": "discard", "cards": ["1S"]},
        {"type": "discard", "cards": [3]},  # an id, not a code
        {"type": "discard", "cards": ["7S", "7S"]},
        {"type": "bet", "amount": -1},
        {"type": "match", "raise": 10, "amount": 3},
        {"type": "fold", "cards": []},
        {"type": "buy", "count": 6},
        {"type": "declare", "modifier": "atuin", "from": "KH"},
        {"type": "declare", "modifier": "atuin", "from": 3, "to": "2S"},
        {"type": "declare", "modifier": "lady", "cards": ["9S", "9H", "B10", "10D"]},
        {"type": "declare", "modifier": "elephants", "cards": ["9S", "9H", "B10"]},
        {"type": "declare", "modifier": "joker"},
        {"type": "choose"},
        {"type": "choose", "card": "O11"},
    ]
    for move in bad:
        assert not VALIDATORS[move["type"]].is_valid(move), move


def test_card_fields_are_marked():
    marked = {
        t: sorted({str(c) for c in card_values(spec["schema"], {"card": 0, "from": 1, "to": 2, "cards": [3, 4]})})
        for t, spec in N.MOVES.items()
    }
    assert marked["discard"] == ["3", "4"]
    assert marked["choose"] == marked["reveal"] == ["0"]
    assert marked["declare"] == ["1", "2", "3", "4"]
    assert marked["bet"] == marked["match"] == []


# -------------------------------------------------------------- playthroughs


def test_random_matches_label_every_move_and_event(found):
    """Every legal move met validated and labelled, every event met labelled (see check_move,
    check_event); the types met together with the hand-built cases below cover them all."""
    assert sum(found["moves"].values()) > 1000 and sum(found["events"].values()) > 1000
    covered_moves = set(found["moves"]) | {m["type"] for _, _, m, _, _ in MOVE_CASES}
    assert covered_moves == set(N.MOVES), set(N.MOVES) - covered_moves
    covered_events = set(found["events"]) | {e["type"] for e, _, _ in EVENT_CASES}
    assert covered_events == set(N.EVENT_TYPES), set(N.EVENT_TYPES) - covered_events
    assert set(N.EVENT_TYPES) == set(_EVOLVERS)


def test_label_event_refuses_what_is_no_event_and_no_language():
    with pytest.raises(ValueError):
        N.label_event({"type": "Trumped", "data": {}}, NAMES, "en")
    with pytest.raises(ValueError):
        N.label_event({"type": "Ready", "data": {"seat": 0}}, NAMES, "fr")
    with pytest.raises(ValueError):
        N.label_move({"phase": "draw"}, 0, {"type": "pass"}, "en")


# ----------------------------------------------------------- hand-built cases

P = ["ana", "bea", "carl"]
C = N.card


def event(type_: str, **data) -> dict:
    return {"type": type_, "data": data}


EVENT_CASES = [
    (
        event("Matched", seat=1, amount=20, **{"raise": 10}, paid=30),
        "bea matches 20 chips and raises 10 chips",
        "bea iguala 20 fichas y sube 10 fichas",
    ),
    (event("BetNamed", seat=0, amount=0, paid=0), "ana makes a zero bet", "ana hace una apuesta cero"),
    (
        event("Discarded", seat=2, count=3, fold=False),
        "carl discards 3 cards and draws 3",
        "carl descarta 3 cartas y roba otras 3",
    ),
    (
        event("Discarded", seat=2, count=5, fold=True),
        "carl folds, throwing in all five cards",
        "carl se retira y tira las cinco cartas",
    ),
    (
        event("Stood", seat=1, up=[C("7S"), C("QC"), C("O2")]),
        "bea stands and takes the seven of spades, the queen of clubs and the two of coins face up",
        "bea se planta y recibe el siete de picas, la reina de tréboles y el dos de oros boca arriba",
    ),
    (
        event("DealershipPassed", seat=0, to={"phase": "offer", "turn": 1}),
        "ana offers the Dealership to bea",
        "ana ofrece la banca a bea",
    ),
    (
        event("DealershipDeclined", seat=1, to={"phase": "offer", "turn": 2}),
        "bea declines the Dealership, which passes to carl",
        "bea rechaza la banca, que pasa a carl",
    ),
    (
        event("DealerChanged", dealer=2, order=[2, 0, 1], how="accepted", paid=40),
        "carl accepts the Dealership, paying 40 chips",
        "carl acepta la banca y paga 40 fichas",
    ),
    (
        event("AuctionOpened", active=[1, 2], after="extra_bets"),
        "the Dealership is auctioned among bea and carl",
        "se subasta la banca entre bea y carl",
    ),
    (
        event("Folded", seat=0, reason="dealer-declined-extra"),
        "ana folds rather than match the extra bets",
        "ana se retira sin igualar las apuestas extra",
    ),
    (
        event("Declared", seat=1, modifier="lady", card=O.hands.LADY, mode="devalue"),
        "bea declares the Lady (queen of spades): one eleven of every other hand counts one",
        "bea declara la Dama (reina de picas): un once de cada mano rival cuenta uno",
    ),
    (
        event("Declared", seat=0, modifier="fate", card=O.hands.FATE, mode="stop"),
        "ana declares Fate (king of cups): eights are no longer wild",
        "ana declara el Destino (rey de copas): los ochos dejan de ser comodines",
    ),
    (
        event("Declared", seat=2, modifier="rewild", card=O.hands.LADY),
        "carl claims with the Lady (queen of spades): its own eights are wild again",
        "carl reclama con la Dama (reina de picas): sus ochos vuelven a ser comodines",
    ),
    (
        event(
            "Declared", seat=1, modifier="elephants", card=O.hands.ATUIN, cards=[C("9S"), C("9H"), C("B10"), C("10D")]
        ),
        "bea declares the Elephants: the nine of spades, the nine of hearts, the ten of staves and the ten of "
        "diamonds with the queen of coins make a Double Onion",
        "bea declara los Elefantes: el nueve de picas, el nueve de corazones, el diez de bastos y el diez de "
        "diamantes con la reina de oros forman una Cebolla Doble",
    ),
    (
        event("Declared", seat=0, modifier="sender", card=O.hands.SENDER, forced=True),
        "ana is dealt the Sender of Eights (jack of diamonds), declared at once: aces count zero",
        "ana recibe el Emisor de Ochos (jota de diamantes), declarado en el acto: los ases valen cero",
    ),
    (
        event("Declared", seat=2, modifier="death", card=O.hands.DEATH),
        "carl shows Death (king of swords)",
        "carl muestra la Muerte (rey de espadas)",
    ),
    (
        event("Declared", seat=0, modifier="archchancellor", card=O.hands.ARCH, death_holder=2, jack_wild=False),
        "ana declares the Archchancellor (jack of staves): carl must show Death (king of swords) and every "
        "other player one card",
        "ana declara el Archicanciller (sota de bastos): carl debe mostrar la Muerte (rey de espadas) y los "
        "demás una carta cada uno",
    ),
    (
        event("ReplacementChosen", seat=1, card=O.hands.FATE, index=0, kept=C("AH")),
        "bea keeps the ace of hearts face up in place of Fate",
        "bea se queda con el as de corazones boca arriba en lugar del Destino",
    ),
    (
        event(
            "Compared",
            holder=0,
            challenger=1,
            winner=1,
            loser=0,
            how="crippled",
            hands={"0": {"top": "great_onion"}, "1": {"top": None, "run": {"length": 9}}},
            crippler={"seat": 1, "length": 9, "victim_wilds": 0},
        ),
        "bea cripples ana’s Great Onion with a nine-card running flush",
        "bea lisia la Gran Cebolla de ana con una escalera de color de nueve cartas",
    ),
    (
        event(
            "Compared",
            holder=1,
            challenger=2,
            winner=2,
            loser=1,
            how="out-crippled",
            hands={"1": {"run": {"length": 9}}, "2": {"run": {"length": 10}}},
            crippler={"seat": 2, "length": 10, "victim_wilds": 0},
        ),
        "carl out-cripples bea with a ten-card running flush",
        "carl supera la escalera de bea con una escalera de color de diez cartas",
    ),
    (
        event("Compared", holder=2, challenger=0, winner=2, loser=0, how="crippler", hands={}, crippler=None),
        "carl has crippled an Onion and holds the table against ana",
        "carl ya lisió una Cebolla y domina la mesa frente a ana",
    ),
    (
        event(
            "HandShown",
            seat=0,
            role="holder",
            cards=[],
            arrangement={
                "groupings": [
                    {"kind": "six_card_onion", "cards": [C("2S"), C("2H"), C("3C"), C("4D"), C("4S"), C("6H")]},
                    {"kind": "three_card_onion", "cards": [C("KS"), C("KD"), C("AC")]},
                ]
            },
        ),
        "ana opens the Showdown with a six-card onion (two of spades, two of hearts, three of clubs, four of "
        "diamonds, four of spades, six of hearts) and a three-card onion (king of spades, king of diamonds, "
        "ace of clubs)",
        "ana abre el enfrentamiento con una cebolla de seis cartas (dos de picas, dos de corazones, tres de tréboles, "
        "cuatro de diamantes, cuatro de picas, seis de corazones) y una cebolla de tres cartas (rey de picas, rey de "
        "diamantes, as de tréboles)",
    ),
    (
        event(
            "RoundEnded",
            round=4,
            winner=1,
            amount=120,
            reason="showdown",
            showdown={"1": {"groupings": [{"kind": "double_onion", "cards": []}]}},
            order=[1, 2, 0],
        ),
        "bea wins the Pot of 120 chips with a Double Onion",
        "bea gana el bote de 120 fichas con una Cebolla Doble",
    ),
    (
        event(
            "RoundEnded",
            round=2,
            winner=None,
            amount=0,
            reason="dealership-refused",
            showdown=None,
            order=[0, 1, 2],
            returned={"1": 20, "2": 10},
        ),
        "the Dealership went round the table unaccepted: everybody folds and the Pot carries over; the extra bets "
        "go back to bea and carl",
        "nadie acepta la banca: todos se retiran y el bote pasa a la ronda siguiente; las apuestas extra vuelven a "
        "bea y carl",
    ),
    (
        event("MatchEnded", scores=[300, 300, 0], ranking=[0, 1, 2], winners=[0, 1], rounds_played=10, pot_left=0),
        "the match is over after 10 rounds: ana and bea win with 300 chips each",
        "fin de la partida tras 10 rondas: ganan ana y bea con 300 fichas cada uno",
    ),
]


@pytest.mark.parametrize("ev,en,es", EVENT_CASES, ids=[f"{e['type']}-{i}" for i, (e, _, _) in enumerate(EVENT_CASES)])
def test_event_labels_read_in_the_seeds_terms(ev, en, es):
    """Seed 002 (``SEED``): matching, raising, the Dealership passed and auctioned, the
    modifiers' cards declared, crippling a Great Onion with a nine-card running flush."""
    assert N.label_event(ev, P, "en") == en
    assert N.label_event(ev, P, "es") == es
    check_event(ev, P, Counter())


def _view(phase: str, seat: int, **more) -> dict:
    v = {
        "phase": phase,
        "players": list(P),
        "options": {"stake": 10, "null_eights": True, **more.pop("options", {})},
        "order": [0, 1, 2],
        "in_round": [0, 1, 2],
        "betting": None,
        "bought": 0,
        "extra": {},
        "seat": seat,
    }
    v.update(more)
    return v


MODS = {"eights_wild": False, "own_eights_wild_again": None, "lady": None, "fate": None, "on_table": [[], [], []]}

MOVE_CASES = [
    (
        _view("draw", 1),
        1,
        {"type": "discard", "cards": [C("7S"), C("QC")]},
        "discard the seven of spades and the queen of clubs",
        "descartar el siete de picas y la reina de tréboles",
    ),
    (
        _view("bet_respond", 2, betting={"round": 1, "part": 1, "bet": 20, "raises": {}}),
        2,
        {"type": "match", "raise": 10},
        "match 20 chips and raise 10 chips",
        "igualar 20 fichas y subir 10 fichas",
    ),
    (
        _view("bet_dealer", 0, betting={"round": 1, "part": 2, "bet": 20, "raises": {"1": 10, "2": 20}}),
        0,
        {"type": "fold"},
        "fold rather than match the raises of 30 chips (the Dealership goes to auction)",
        "retirarse sin igualar las subidas de 30 fichas (se subasta la banca)",
    ),
    (_view("buy", 1, bought=2), 1, {"type": "stand"}, "stand: take the other 3 cards face up",
     "plantarse: recibir las otras 3 cartas boca arriba"),
    (_view("buy", 1), 1, {"type": "buy", "count": 2}, "buy 2 cards for 20 chips", "comprar 2 cartas por 20 fichas"),
    (
        _view("dealer_extra", 0, extra={"1": 20, "2": 10}),
        0,
        {"type": "match_extra"},
        "match the extra bets: 30 chips",
        "igualar las apuestas extra: 30 fichas",
    ),
    (_view("dealer_extra", 0), 0, {"type": "pass_dealership"}, "pass the Dealership to bea", "pasar la banca a bea"),
    (
        _view("offer", 1, extra={"1": 20, "2": 10}),
        1,
        {"type": "accept_dealership"},
        "accept the Dealership, paying 10 chips",
        "aceptar la banca pagando 10 fichas",
    ),
    (_view("auction", 2), 2, {"type": "bid", "amount": 30}, "bid 30 chips for the Dealership",
     "pujar 30 fichas por la banca"),
    (
        _view("answer", 1, modifiers={**MODS, "eights_wild": True}),
        1,
        {"type": "declare", "modifier": "lady"},
        "declare the Lady (queen of spades): one eleven of every other hand counts one",
        "declarar la Dama (reina de picas): un once de cada mano rival cuenta uno",
    ),
    (
        _view("showdown", 2, modifiers={**MODS, "eights_wild": True}),
        2,
        {"type": "declare", "modifier": "fate"},
        "declare Fate (king of cups): eights stop being wild",
        "declarar el Destino (rey de copas): los ochos dejan de ser comodines",
    ),
    (
        _view("answer", 2, modifiers={**MODS, "lady": {"seat": 0, "mode": "replace"}}),
        2,
        {"type": "declare", "modifier": "fate"},
        "declare Fate (king of cups) and replace it: the aces of ana count zero",
        "declarar el Destino (rey de copas) y reemplazarlo: los ases de ana valen cero",
    ),
    (
        _view("answer", 0, modifiers=MODS),
        0,
        {"type": "declare", "modifier": "rewild"},
        "claim with the Lady (queen of spades): your own eights are wild again",
        "reclamar con la Dama (reina de picas): tus ochos vuelven a ser comodines",
    ),
    (
        _view("predeclare", 1, modifiers=MODS),
        1,
        {"type": "declare", "modifier": "atuin", "from": C("KH"), "to": C("2S")},
        "declare Great A’Tuin (queen of coins): move eight points from the king of hearts to the two of spades",
        "declarar la Gran A’Tuin (reina de oros): pasar ocho puntos del rey de corazones al dos de picas",
    ),
    (
        _view("predeclare", 1, modifiers=MODS),
        1,
        {"type": "declare", "modifier": "elephants", "cards": [C("9S"), C("9H"), C("E10"), C("10D")]},
        "declare the Elephants: the nine of spades, the nine of hearts, the ten of swords and the ten of "
        "diamonds with the queen of coins make a Double Onion",
        "declarar los Elefantes: el nueve de picas, el nueve de corazones, el diez de espadas y el diez de "
        "diamantes con la reina de oros forman una Cebolla Doble",
    ),
    (_view("showdown", 2, modifiers=MODS), 2, {"type": "declare", "modifier": "death"}, "show Death (king of swords)",
     "mostrar la Muerte (rey de espadas)"),
    (
        _view("predeclare", 0, modifiers=MODS),
        0,
        {"type": "declare", "modifier": "fool"},
        "declare the Fool (jack of clubs): bagels and Onions swap places",
        "declarar el Loco (jota de tréboles): rosquillas y Cebollas cambian de lugar",
    ),
    (
        _view("choose", 1,
              modifiers={**MODS, "fate": {"seat": 1, "mode": "replace"}, "on_table": [[], [O.hands.LADY], []]}),
        1,
        {"type": "choose", "card": C("AH")},
        "keep the ace of hearts in place of Fate",
        "quedarse con el as de corazones en lugar del Destino",
    ),
    (
        _view("answer", 2, modifiers={**MODS, "showdown": {"holder": 0, "challenger": 2}}),
        2,
        {"type": "concede"},
        "concede the duel to ana",
        "ceder el duelo a ana",
    ),
]  # fmt: skip


@pytest.mark.parametrize(
    "view,seat,move,en,es", MOVE_CASES, ids=[f"{m['type']}-{i}" for i, (_, _, m, _, _) in enumerate(MOVE_CASES)]
)
def test_move_labels_read_in_the_seeds_terms(view, seat, move, en, es):
    """Seed 002 (``SEED``): "match the Dealer's bid ... raising", buying cards at a Stake
    each, the extra bets the Dealer alone must match, the Dealership passed to the Elder;
    the modifiers' declarations (#4 the Lady, #5 Fate, #6 Great A'Tuin, #7 the Elephants,
    #9 Death, #11 the Fool)."""
    assert N.label_move(view, seat, move, "en") == en
    assert N.label_move(view, seat, move, "es") == es
    check_move(view, seat, move, Counter())


def test_labels_in_a_real_view():
    """A seat's own view (``O.view``) as the service passes it: the draw's moves read as discards."""
    st = O.initial_state(P, {})
    for ev in O.decide(st, {"type": "start", "seat": None, "seed": 7}):
        st = O.evolve(st, ev)
    seat = O.to_act(st)[0]
    view = O.view(st, seat)
    labels = [N.label_move(view, seat, m, "en") for m in view["legal_moves"]]
    assert labels[0] == "discard nothing: keep all five cards"
    assert labels[1] == f"discard the {N.deck()[view['hand'][0]]['name']['en']}"
    assert labels[-1] == "fold: throw in all five cards"
    assert N.label_move(view, seat, view["legal_moves"][-1], "es") == "retirarse: tirar las cinco cartas"
