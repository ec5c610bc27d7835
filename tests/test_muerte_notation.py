"""Notation and labels of ¡Muerte al rey! (domain/muerte/notation.py).

Card codes are suit letter and number (``O12`` the rey de oros), the card
names and the game's terms (compañeros, bando, acusar, intercambiar, traición,
carta identificadora, ronda) come from the rules text
../shared/seeds/001_2bc3f36edf9233f8.txt; the readings are in
docs/rules/muerte.md.  Random playthroughs check every legal move against its
JSON Schema and label every move and every event met, in English and Spanish.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from functools import lru_cache

import jsonschema
import pytest

from domain import muerte as M
from domain import wire
from domain.base import event
from domain.muerte import notation as N
from domain.muerte.evolve import _EVOLVERS

LANGS = ("en", "es")
LEAKS = ("{", "}", "[", "]", "None", "True", "False", "'")
NAMES = ["ana", "bea", "carl", "dan", "eva", "fede", "gil", "hugo", "ines", "juan", "kiko", "lola", "mar", "nico"]
NAMES += ["olga", "paco"]

# (players, options) of the playthroughs: every deck, treason on and off, every identity mode of section 3.3
OPTION_SETS = [
    (6, {}),
    (6, {"treason": True, "games": 3, "identity_mode": "fixed"}),
    (8, {"treason": True, "games": 3, "identity_mode": "winner_swaps"}),
    (12, {"treason": True, "games": 2, "identity_mode": "team_chooses"}),
    (10, {"deck": "spanish48", "treason": True, "games": 2, "identity_mode": "opponents_choose"}),
    (16, {"deck": "spanish48", "treason": True, "games": 2, "identity_mode": "fixed_teams"}),
    (14, {"deck": "spanish48", "games": 2, "identity_mode": "random"}),
]
SEEDS_PER_SET = 4


def clean(text: str) -> None:
    assert isinstance(text, str) and text.strip(), text
    for bad in LEAKS:
        assert bad not in text, (bad, text)


def view_cards(v: dict) -> list[str]:
    """Every card a view shows: identity cards, hand, lost cards, reveals, exchanges, the offer, what to place."""
    out = list(v["identity"]) + [c for x in v["lost"] for c in x] + [c for r in v["reveals"] for c in r["cards"]]
    out += v.get("hand", [])
    for t in v.get("transfers", []):
        out += [t["gave"], t["received"]]
    if v.get("offer"):
        out.append(v["offer"])
    if v.get("must") and v["must"].get("card"):
        out.append(v["must"]["card"])
    for a in (v.get("assign") or {}).values():
        out += list(a["cards"]) + list(a["given"].values())
    for d in (v.get("treason") or {}).get("denounced", []):
        out.append(d[2])
    return out


def card_fields(schema: dict, move: dict) -> list:
    return [move[k] for k, spec in schema["properties"].items() if spec.get("x-naipes-card") and k in move]


class Met:
    """What the playthroughs reached."""

    def __init__(self):
        self.events = Counter()
        self.moves = Counter()
        self.phases = set()
        self.roles = set()
        self.reasons = Counter()
        self.labels: dict[str, dict[str, str]] = {}  # public event JSON -> labels


def play(n: int, options: dict, seed: int, met: Met) -> None:
    """One match to its end: random legal moves (seeded), every move and event checked and labelled."""
    players = NAMES[:n]
    r = random.Random(seed)
    codes = {c["code"] for c in N.deck(options)}
    state = M.initial_state(players, options)
    met.phases.add(M.view(state, "spectator")["phase"])
    command = {"type": "start", "seat": None, "seed": seed}
    for _ in range(5000):
        for ev in M.decide(state, command):
            state = M.evolve(state, ev)
            met.events[ev["type"]] += 1
            if ev["type"] == "GameEnded":
                met.reasons[ev["data"]["reason"] + ("_double" if ev["data"].get("double") else "")] += 1
            public = {"type": ev["type"], "data": ev["data"]}
            key = json.dumps(public, sort_keys=True)
            labels = {lang: N.label_event(public, players, lang) for lang in LANGS}
            for text in labels.values():
                clean(text)
            assert met.labels.setdefault(key, labels) == labels
            # the private part, when present, changes nothing
            assert N.label_event(copy.deepcopy(ev), players, "en") == labels["en"]
        acting = M.to_act(state)
        if not acting:
            break
        seat = r.choice(acting)
        view = M.view(state, seat)
        met.phases.add(view["phase"])
        met.roles.update(view["teams"])
        for c in view_cards(view):
            assert c in codes, (c, options)
            assert N.card(N.code(c)) == c
        moves = M.legal_moves(state, seat)
        for m in moves:
            schema = N.MOVES[m["type"]]["schema"]
            posted = wire.encode_move("muerte", m)  # the move as a client posts it: cards as codes
            jsonschema.Draft202012Validator(schema).validate(posted)
            for c in card_fields(schema, posted):
                assert c in codes
            for lang in LANGS:
                clean(N.label_move(view, seat, m, lang))
            met.moves[m["type"]] += 1
        choice = r.choice(moves)
        command = {**choice, "seat": seat, "seed": r.randrange(2**31)}
    assert M.outcome(state) is not None, "the match did not end"
    met.phases.add(M.view(state, "spectator")["phase"])


@lru_cache(maxsize=1)
def playthroughs() -> Met:
    met = Met()
    for i, (n, options) in enumerate(OPTION_SETS):
        for k in range(SEEDS_PER_SET):
            play(n, options, 1000 * i + k, met)
    return met


# ------------------------------------------------------------------ hand-built states

P6 = NAMES[:6]
IDENT6 = ["E1", "B1", "E2", "B2", "E3", "B3"]  # turn order 0, 1, 2, 3, 4, 5
HANDS6 = [["O1", "O4"], ["C1", "C4"], ["O2", "O5"], ["C2", "C5"], ["O3", "O12"], ["C3", "C12"]]


def dealt(hands=HANDS6, identity=IDENT6, **opts) -> dict:
    st = M.initial_state(P6, opts)
    data = {"game": 1, "identity": identity, "order": M.turn_order(identity), "sizes": [2] * 6, "teams_fixed": None}
    return M.evolve(st, event("GameDealt", data, {s: {"hand": h} for s, h in enumerate(hands)}))


def move(state: dict, seat: int, **fields) -> tuple[dict, list[dict]]:
    events = M.decide(state, {**fields, "seat": seat, "seed": 7})
    for ev in events:
        state = M.evolve(state, ev)
    return state, events


def labels_of_move(state: dict, seat: int, m: dict) -> tuple[str, str]:
    assert m in M.legal_moves(state, seat)
    v = M.view(state, seat)
    return N.label_move(v, seat, m, "en"), N.label_move(v, seat, m, "es")


def labels_of_event(ev: dict, players=P6) -> tuple[str, str]:
    public = {"type": ev["type"], "data": ev["data"]}
    return N.label_event(public, players, "en"), N.label_event(public, players, "es")


# ------------------------------------------------------------------ cards


@pytest.mark.parametrize("deck", ["spanish40", "spanish48"])
def test_deck_round_trips_and_codes_match_the_pattern(deck):
    """Seed 001, 1: the classic 40-card Spanish pack (6 to 12 players) or the 48-card one (up to 16)."""
    cards = N.deck({"deck": deck})
    assert len(cards) == {"spanish40": 40, "spanish48": 48}[deck]
    codes = [c["code"] for c in cards]
    assert len(set(codes)) == len(codes)
    for c in cards:
        assert N.card(c["code"]) == c["id"] and N.code(c["id"]) == c["code"]
        assert N.card(N.code(c["id"])) == c["id"]
        jsonschema.Draft202012Validator({"type": "string", "pattern": N.CARD_PATTERN}).validate(c["code"])
        assert c["suit"] in ("oros", "copas", "espadas", "bastos") and c["rank"] == c["code"][1:]
        assert c["name"]["en"] and c["name"]["es"] and c["colour"]
        assert "points" not in c and "copies" not in c
    assert {c["code"] for c in cards} == M._all_cards(deck)
    assert N.deck({}) == N.deck({"deck": "spanish40"}) == N.deck({"deck": "spanish40", "treason": True})
    # the game's description (no options) lists either pack's cards, the 8s and 9s marked as spanish48's alone
    described = N.deck()
    assert [c["code"] for c in described] == [c["code"] for c in N.deck({"deck": "spanish48"})]
    assert {c["code"] for c in described if "options" not in c} == M._all_cards("spanish40")
    assert all(c["options"] == {"deck": ["spanish48"]} for c in described if c["rank"] in ("8", "9"))


def test_every_card_the_game_deals_is_in_the_deck():
    """Seed 001, 2.1: the identity deck and both team decks come from the pack, for every team size."""
    for deck, most in M.DECK_MAX_PLAYERS.items():
        codes = {c["code"] for c in N.deck({"deck": deck})}
        for n in range(3, most // 2 + 1):
            used = M.identity_deck(n) + M.team_deck("espadas", n, deck) + M.team_deck("bastos", n, deck)
            assert set(used) <= codes


def test_card_names_use_the_seeds_words():
    """Seed 001, 2.1.2 and 3.1: "el rey de oros", "la sota y el caballo de oros", "el 3 de oros"."""
    names = {c["code"]: c["name"] for c in N.deck({"deck": "spanish48"})}
    assert names["O12"] == {"en": "king of coins", "es": "rey de oros"}
    assert names["E10"] == {"en": "jack of swords", "es": "sota de espadas"}
    assert names["O11"] == {"en": "knight of coins", "es": "caballo de oros"}
    assert names["O3"] == {"en": "3 of coins", "es": "3 de oros"}
    assert names["E1"] == {"en": "ace of swords", "es": "1 de espadas"}
    assert names["B9"] == {"en": "9 of clubs", "es": "9 de bastos"}
    colours = {c["code"]: c["colour"] for c in N.deck()}
    assert (colours["O1"], colours["C1"], colours["E1"], colours["B1"]) == ("yellow", "red", "blue", "green")


@pytest.mark.parametrize(
    "bad", ["", "O", "O0", "O13", "o12", "X3", "12O", " O1", "O1 ", "O01", "E10\n", "10H", "JS", "OC1"]
)
def test_strings_that_are_no_card_are_refused(bad):
    with pytest.raises(ValueError, match="matches"):
        N.card(bad)
    with pytest.raises(ValueError):
        N.code(bad)


@pytest.mark.parametrize("bad", [None, 12, ["O1"], {"card": "O1"}])
def test_values_that_are_no_card_are_refused(bad):
    with pytest.raises(ValueError):
        N.code(bad)


def test_unknown_deck_option_is_refused():
    with pytest.raises(ValueError):
        N.deck({"deck": "french52"})


# ------------------------------------------------------------------ phases, roles, moves, events


def test_phases_roles_and_moves_are_described_in_both_languages():
    for p in N.PHASES:
        assert p["id"] and all(p["name"][lang] and p["description"][lang] for lang in LANGS)
    assert [r["id"] for r in N.ROLES] == list(M.TEAMS)
    assert all(r["name"][lang] for r in N.ROLES for lang in LANGS)
    for kind, spec in N.MOVES.items():
        assert all(spec["description"][lang] for lang in LANGS)
        schema = spec["schema"]
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["properties"]["type"] == {"const": kind}
        assert schema["additionalProperties"] is False and set(schema["required"]) == set(schema["properties"])
    assert set(N.EVENT_TYPES) == set(_EVOLVERS)


def test_schemas_refuse_malformed_moves():
    def ok(m):
        return jsonschema.Draft202012Validator(N.MOVES[m["type"]]["schema"]).is_valid(m)

    assert ok({"type": "exchange", "with": 2, "card": "O12"})
    assert not ok({"type": "exchange", "with": 2, "card": "O13"})
    assert not ok({"type": "exchange", "with": 2})
    assert not ok({"type": "accuse", "target": 1, "card": "O1"})
    assert not ok({"type": "accuse", "target": "1"})
    assert not ok({"type": "denounce", "seat": 1})
    assert ok({"type": "ignore_treason"})


def test_playthroughs_meet_every_phase_role_move_and_event():
    """Every move and event type is met (the team_eliminated ending cannot happen; it is built below)."""
    met = playthroughs()
    assert set(met.moves) == set(N.MOVES)
    assert set(met.events) == set(N.EVENT_TYPES)
    assert met.phases <= {p["id"] for p in N.PHASES}
    assert met.phases >= {"created", "turn", "giveback", "discard", "treason", "swapping", "assigning", "finished"}
    assert met.roles == {r["id"] for r in N.ROLES}
    assert {"king_found", "king_lost", "treason"} <= set(met.reasons)


def test_event_labels_depend_only_on_public_data():
    """Every event met is labelled from {"type", "data"} alone: equal public data, equal text in both languages
    (the playthroughs also label each event with its private part attached and get the same text)."""
    met = playthroughs()
    assert len(met.labels) > 100
    for key, labels in met.labels.items():
        public = json.loads(key)
        assert set(public) == {"type", "data"}
        assert {lang: N.label_event(copy.deepcopy(public), NAMES, lang) for lang in LANGS} == labels


# ------------------------------------------------------------------ exact labels


def test_turn_move_labels():
    """Seed 001, 2.3: "Intercambiar" with a compañero, or "Acusar" one of the other team."""
    st = dealt()
    assert labels_of_move(st, 0, {"type": "exchange", "with": 2, "card": "O4"}) == (
        "exchange the 4 of coins with carl",
        "intercambiar el 4 de oros con carl",
    )
    assert labels_of_move(st, 0, {"type": "accuse", "target": 5}) == ("accuse fede", "acusar a fede")
    st, evs = move(st, 0, type="exchange", **{"with": 2}, card="O4")
    assert labels_of_event(evs[0]) == ("ana offers a card to carl", "ana ofrece una carta a carl")
    assert labels_of_move(st, 2, {"type": "give_back", "card": "O5"}) == (
        "give the 5 of coins back to ana",
        "devolver el 5 de oros a ana",
    )
    st, evs = move(st, 2, type="give_back", card="O5")
    assert labels_of_event(evs[0]) == ("ana and carl exchange a card", "ana y carl intercambian una carta")
    assert labels_of_event(evs[1]) == ("Round 1: bea to play", "Ronda 1: turno de bea")


def test_accusation_labels():
    """Seed 001, 2.3: the accused shows all their cards; a wrong accuser loses one, the one they choose."""
    hands = [list(h) for h in HANDS6]
    hands[0] = ["O10", "O4"]
    st = dealt(hands)
    st, evs = move(st, 0, type="accuse", target=1)
    assert labels_of_event(evs[0]) == (
        "ana accuses bea, who shows the ace of cups and the 4 of cups: no king",
        "ana acusa a bea, que enseña el 1 de copas y el 4 de copas: no tiene el rey",
    )
    assert labels_of_move(st, 0, {"type": "discard", "card": "O10"}) == (
        "lose the jack of coins",
        "perder la sota de oros",
    )
    st, evs = move(st, 0, type="discard", card="O10")
    assert labels_of_event(evs[0]) == ("ana loses the jack of coins", "ana pierde la sota de oros")


def test_finding_the_king_labels():
    """Seed 001, 2.3 and 2.4: if the accused has the king, the game ends and the accuser's team wins."""
    st = dealt()
    _, evs = move(st, 0, type="accuse", target=5)
    assert [e["type"] for e in evs] == ["Accused", "GameEnded", "MatchEnded"]
    assert labels_of_event(evs[0]) == (
        "ana accuses fede, who shows the 3 of cups and the king of cups: the king is found",
        "ana acusa a fede, que enseña el 3 de copas y el rey de copas: tiene el rey",
    )
    assert labels_of_event(evs[1]) == (
        "Game 1 ends: ana finds the king, held by fede; the espadas team wins",
        "Termina la partida 1: ana descubre el rey, que custodiaba fede; gana el bando de espadas",
    )
    assert labels_of_event(evs[2]) == (
        "The match ends after 1 game: ana, eva and carl win",
        "Termina el encuentro tras 1 partida: ganan ana, eva y carl",
    )


def test_losing_the_own_king_labels():
    """Seed 001, 2.3: "Si la que pierde es el rey, su equipo pierde"; with the last card, "queda eliminado"."""
    hands = [list(h) for h in HANDS6]
    hands[0], hands[4] = ["O12"], ["O3", "O4", "O1"]
    st = dealt(hands)
    st, _ = move(st, 0, type="accuse", target=1)
    assert labels_of_move(st, 0, {"type": "discard", "card": "O12"}) == (
        "lose the king of coins and be eliminated: your team loses",
        "perder el rey de oros y quedar eliminado: tu bando pierde",
    )
    _, evs = move(st, 0, type="discard", card="O12")
    assert labels_of_event(evs[0]) == (
        "ana loses the king of coins and is eliminated: it is the king, the espadas team loses",
        "ana pierde el rey de oros y queda eliminado: es el rey, pierde el bando de espadas",
    )
    assert labels_of_event(evs[1]) == (
        "Game 1 ends: ana loses the king; the bastos team wins",
        "Termina la partida 1: ana pierde el rey; gana el bando de bastos",
    )


def test_treason_labels():
    """Seed 001, 3.1: "eres el 3 de espadas y tu compañero te envía el 3 de oros, ¡es un traidor!"."""
    hands = [list(h) for h in HANDS6]
    hands[0], hands[2] = ["O2", "O4"], ["O1", "O5"]  # carl is E2 and receives the 2 of oros
    st = dealt(hands, treason=True)
    st, _ = move(st, 0, type="exchange", **{"with": 2}, card="O2")
    st, evs = move(st, 2, type="give_back", card="O5")
    assert labels_of_event(evs[0]) == (
        "ana and carl exchange a card; carl may denounce ana for treason",
        "ana y carl intercambian una carta; carl puede acusar de traición a ana",
    )
    assert labels_of_move(st, 2, {"type": "denounce"}) == (
        "denounce ana for treason (you received the 2 of coins)",
        "acusar de traición a ana (has recibido el 2 de oros)",
    )
    assert labels_of_move(st, 2, {"type": "ignore_treason"}) == (
        "let the treason of ana pass",
        "dejar pasar la traición de ana",
    )
    _, ignored = move(st, 2, type="ignore_treason")
    assert labels_of_event(ignored[0]) == ("carl lets the treason pass", "carl deja pasar la traición")
    _, evs = move(st, 2, type="denounce")
    assert labels_of_event(evs[0]) == (
        "carl denounces ana for treason, showing the 2 of coins",
        "carl acusa de traición a ana y enseña el 2 de oros",
    )
    assert labels_of_event(evs[1]) == (
        "Game 1 ends by treason: carl uncovers the treason of ana and wins alone",
        "Termina la partida 1 por traición: carl descubre la traición de ana y gana en solitario",
    )


def test_double_treason_label():
    """Seed 001, 2.4: "En caso de doble traición, no gana nadie"."""
    hands = [list(h) for h in HANDS6]
    hands[0], hands[2] = ["O2", "O4"], ["O1", "O5"]
    st = dealt(hands, treason=True)
    st, _ = move(st, 0, type="exchange", **{"with": 2}, card="O2")
    st, _ = move(st, 2, type="give_back", card="O1")
    st, _ = move(st, 0, type="denounce")
    _, evs = move(st, 2, type="denounce")
    assert labels_of_event(evs[1]) == (
        "Game 1 ends in a double treason (ana and carl): nobody wins",
        "Termina la partida 1 con una doble traición (ana y carl): no gana nadie",
    )


def test_team_eliminated_label():
    """Seed 001, 2.4: "o si el otro equipo se queda sin participantes" (an ending play cannot reach; built here)."""
    data = {"game": 2, "reason": "team_eliminated", "winning_team": "bastos", "discoverer": None, "custodian": None}
    data |= {"traitors": [], "denouncers": [], "winners": [1, 3, 5], "points": [-1, 1, -1, 1, -1, 1]}
    ev = {"type": "GameEnded", "data": {**data, "scores": data["points"], "match_over": False}}
    assert labels_of_event(ev) == (
        "Game 2 ends: the espadas team has no players left; the bastos team wins",
        "Termina la partida 2: el bando de espadas se queda sin participantes; gana el bando de bastos",
    )


def test_deal_and_identity_labels():
    """Seed 001, 2.3 and 3.3: the 1 de espadas plays first; identity cards swapped or placed between games."""
    st = M.initial_state(P6, {})
    evs = M.decide(st, {"type": "start", "seat": None, "seed": 3})
    first = evs[0]["data"]["order"][0]
    en, es = labels_of_event(evs[0])
    assert en == f"Game 1 is dealt; {P6[first]} holds the ace of swords and plays first"
    assert es == f"Se reparte la partida 1; {P6[first]} tiene el 1 de espadas y juega primero"
    swaps = {"type": "IdentitySwapsBegan", "data": {"winner": 2, "sequence": [1, 0, 5, 4, 3, 2]}}
    assert labels_of_event(swaps) == (
        "carl won the game; identity cards are swapped, starting with bea",
        "carl ganó la partida; se intercambian las cartas identificadoras, empezando por bea",
    )
    assert labels_of_event({"type": "IdentitySwapped", "data": {"seat": 1, "with": 4}}) == (
        "bea swaps identity cards with eva",
        "bea intercambia su carta identificadora con eva",
    )
    teams = {"espadas": {"chooser": 0, "cards": ["E1", "E2", "E3"], "seats": [0, 2, 4]}}
    teams["bastos"] = {"chooser": 1, "cards": ["B1", "B2", "B3"], "seats": [1, 3, 5]}
    began = {"type": "IdentityAssignmentBegan", "data": {"teams": teams, "teams_fixed": ["espadas", "bastos"] * 3}}
    assert labels_of_event(began) == (
        "ana places the espadas identity cards and bea the bastos ones",
        "ana reparte las cartas identificadoras de espadas y bea las de bastos",
    )
    assigned = {"type": "IdentityAssigned", "data": {"seat": 0, "team": "espadas", "card": "E2", "to": 4}}
    assert labels_of_event(assigned) == ("ana gives the 2 of swords to eva", "ana da el 2 de espadas a eva")
    kept = {"type": "IdentityAssigned", "data": {"seat": 0, "team": "espadas", "card": "E1", "to": 0}}
    assert labels_of_event(kept) == ("ana keeps the ace of swords", "ana se queda con el 1 de espadas")


def test_identity_move_labels():
    """Seed 001, 3.3: each player "intercambia su carta identificativa con la de otro jugador"."""
    st, _ = move(dealt(games=2, identity_mode="winner_swaps"), 0, type="accuse", target=5)
    assert st["phase"] == "swapping"
    seat = M.to_act(st)[0]
    other = next(s for s in range(6) if s != seat)
    en, es = labels_of_move(st, seat, {"type": "swap_identity", "with": other})
    name = {c["code"]: c["name"] for c in N.deck()}[st["identity"][other]]
    assert en == f"swap identity cards with {P6[other]} (the {name['en']})"
    assert es == f"intercambiar tu carta identificadora con {P6[other]} (el {name['es']})"
    st = dealt(games=2, identity_mode="team_chooses")
    st, _ = move(st, 0, type="accuse", target=5)
    assert st["phase"] == "assigning"
    chooser = st["assign"]["espadas"]["chooser"]
    assert labels_of_move(st, chooser, {"type": "assign_identity", "to": 2}) == (
        "give the ace of swords to carl",
        "dar el 1 de espadas a carl",
    )
    assert labels_of_move(st, chooser, {"type": "assign_identity", "to": chooser}) == (
        "keep the ace of swords",
        "quedarte con el 1 de espadas",
    )


def test_labels_refuse_unknown_languages_and_types():
    st = dealt()
    with pytest.raises(ValueError):
        N.label_move(M.view(st, 0), 0, {"type": "accuse", "target": 1}, "fr")
    with pytest.raises(ValueError):
        N.label_move(M.view(st, 0), 0, {"type": "play", "cards": []}, "en")
    with pytest.raises(ValueError):
        N.label_event({"type": "TurnTimedOut", "data": {}}, P6, "en")
