"""El Gran Dalmuti's cards as codes everywhere (domain/dalmuti/notation.py: where the cards are;
domain/wire.py: the translation).

The cards are the rules text's ranks and jesters (../shared/seeds/004_3965bd3c775629cb.txt, EL
MAZO); their codes and the paths declared for them are in docs/rules/dalmuti.md ("Notation").
Random matches to the end (as tests/test_dalmuti_notation.py plays them) give the events, the
views (every seat, the spectator, the reviewer, all through play) and the legal moves checked here.

No card escapes: the check chosen is a second, independent reading of where the cards are, made
from the key names the rules use for cards (``hand``, ``hands``, ``cards``, ``gave``, ``received``,
``chosen``, ``tax_chosen``, ``deck`` hold cards and nothing else; a seating draw holds rounds of
``[seat, card]``).  For every object met, the places that reading finds and the places the declared
paths reach must be the same set: a path missing from VIEW_CARDS or EVENT_CARDS leaves a card
behind and fails it (shown below by dropping each declared path in turn), a path too many reaches
something that is not a card and fails it too.  After encoding, every string that reads as a card
code must also be at a declared place.
"""

from __future__ import annotations

import copy
import functools
import random
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from domain import dalmuti as D
from domain import wire
from domain.base import REVIEWER, SPECTATOR, event
from domain.dalmuti import notation as N

GAME = "dalmuti"
CARD = re.compile(N.CARD_PATTERN)
NAMES = ["ana", "bea", "carl", "dan", "eve", "fay", "gil", "hal", "ivy", "jon"]

# (players, options, rules version, newcomers join): every option that changes the deck or adds moves
CONFIGS = [
    (4, {"hands": 2}, "2", False),
    (4, {"hands": 2, "reduced_deck": True, "first_deal_revolution": True}, "2", False),
    (5, {"hands": 2, "reduced_deck": True, "philanthropic_scoring": True}, "2", False),
    (6, {"hands": 2, "merchant_exchange": True}, "2", False),
    (7, {"hands": 2, "merchant_exchange": True, "allow_joining": True, "scoring": False}, "2", True),
    (5, {"hands": 3, "allow_joining": True, "first_deal_revolution": True}, "2", True),
    (5, {"hands": 3, "first_deal_revolution": True}, "1", False),
    (4, {"hands": 3}, "1", False),
]
SEEDS = 2
VIEW_EVERY = 20  # the views of every viewer after one command in twenty (and after every phase change)

# The independent reading: keys whose value (a list or an object) holds cards and only cards ...
CARD_KEYS = {"hand", "hands", "cards", "gave", "received", "chosen", "tax_chosen", "deck"}
# ... and keys whose value holds cards among other things, with the places of its cards.
MIXED_KEYS = {"seating_draw": ("*", "*", "1"), "draws": ("*", "*", "1")}  # rounds of [seat, card]
NOT_CARDS = {"rules_version"}  # strings that may read like a code ("2") and are none


def parse(path: str) -> tuple[str, ...]:
    return tuple(path.split("."))


DECK_PATH = ("private", "deal", "deck", *parse(N.DECK_CARDS))
VIEW_PATHS = tuple(parse(p) for p in N.VIEW_CARDS)
EVENT_PATHS = {t: (*(parse(p) for p in ps), DECK_PATH) for t, ps in N.EVENT_CARDS.items()}


# ------------------------------------------------------------------ places


Place = tuple  # the keys and indices from the root of an object to one value


def places(obj: Any, path: tuple[str, ...], where: Place = ()) -> Iterator[Place]:
    """The places ``path`` reaches in ``obj`` (a missing key or a None on the way: none)."""
    if not path:
        yield where
        return
    step, rest = path[0], path[1:]
    if step == "*":
        items = enumerate(obj) if isinstance(obj, list) else obj.items() if isinstance(obj, dict) else ()
        for k, v in items:
            yield from places(v, rest, (*where, k))
    elif isinstance(obj, list) and step.isdigit():
        if int(step) < len(obj) and obj[int(step)] is not None:
            yield from places(obj[int(step)], rest, (*where, int(step)))
    elif isinstance(obj, dict) and obj.get(step) is not None:
        yield from places(obj[step], rest, (*where, step))


def declared_places(obj: Any, paths) -> list[Place]:
    return [p for path in paths for p in places(obj, path)]


def leaves(obj: Any, where: Place) -> Iterator[Place]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from leaves(v, (*where, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from leaves(v, (*where, i))
    else:
        yield where


def card_places(obj: Any, where: Place = ()) -> set[Place]:
    """Where the cards of ``obj`` are, read from the key names alone."""
    found: set[Place] = set()
    if isinstance(obj, dict):
        for k, v in obj.items():
            here = (*where, k)
            if k in CARD_KEYS and isinstance(v, list | dict):
                found |= set(leaves(v, here))
            elif k in MIXED_KEYS:
                found |= set(places(v, MIXED_KEYS[k], here))
            else:
                found |= card_places(v, here)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            found |= card_places(v, (*where, i))
    return found


def at(obj: Any, place: Place) -> Any:
    for step in place:
        obj = obj[step]
    return obj


def strings(obj: Any, where: Place = ()) -> Iterator[tuple[Place, str]]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from strings(v, (*where, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from strings(v, (*where, i))
    elif isinstance(obj, str):
        yield where, obj


def escapes(obj: Any, paths, declared: list[Place] | None = None) -> tuple[set[Place], set[Place]]:
    """(cards no declared path reaches, places declared that hold no card)."""
    declared = declared_places(obj, paths) if declared is None else declared
    assert len(declared) == len(set(declared)), f"two declared paths reach one place: {Counter(declared)}"
    found = card_places(obj)
    return found - set(declared), set(declared) - found


def indexed(paths) -> set[tuple[str, ...]]:
    return {p for p in paths if any(s.isdigit() for s in p)}


# ------------------------------------------------------------------ playthroughs


class Sample:
    def __init__(self, kind: str, what: str, obj: dict, paths: tuple):
        self.kind, self.what, self.obj, self.paths = kind, what, obj, paths

    def __repr__(self) -> str:
        return f"{self.kind} {self.what}"

    @functools.cached_property
    def declared(self) -> list[Place]:
        return declared_places(self.obj, self.paths)

    @functools.cached_property
    def encoded(self) -> dict:
        if self.kind == "event":
            return wire.encode_event(GAME, self.obj)
        if self.kind == "view":
            return wire.encode_view(GAME, self.obj)
        return wire.encode_move(GAME, self.obj)


@functools.cache
def playthroughs() -> tuple[list[Sample], list[tuple[dict, list[dict], dict, str]]]:
    """Random matches to the end: the samples (events, views, legal moves) and, per match, its
    initial state, its events and its final state."""
    samples: list[Sample] = []
    matches = []
    moves_seen: set[str] = set()
    for index, (n, opts, rules, joins) in enumerate(CONFIGS):
        for k in range(SEEDS):
            r = random.Random(7000 + 100 * index + k)
            st = D.initial_state(NAMES[:n], opts)
            st["rules"] = rules
            first = copy.deepcopy(st)
            log: list[dict] = []

            def apply(st: dict, command: dict, log=log, rules=rules) -> dict:
                for ev in D.decide(st, command):
                    log.append(ev)
                    samples.append(Sample("event", ev["type"], ev, EVENT_PATHS[ev["type"]]))
                    st = D.evolve(st, {**ev, "rules": rules})
                return st

            def look(st: dict) -> None:
                for viewer in [*range(len(st["players"])), SPECTATOR, REVIEWER]:
                    samples.append(Sample("view", f"{st['phase']} for {viewer}", D.view(st, viewer), VIEW_PATHS))

            look(st)  # before the start
            st = apply(st, {"type": "start", "seat": None, "seed": r.getrandbits(63)})
            for step in range(20_000):
                if D.outcome(st) is not None:
                    break
                phase = st["phase"]
                if joins and len(st["players"]) < len(NAMES) and r.random() < 0.02:
                    name = NAMES[len(st["players"])]
                    st = apply(st, {"type": "join", "seat": None, "player": name, "seed": r.getrandbits(63)})
                    continue
                acting = D.to_act(st)
                for seat in acting:
                    for move in D.legal_moves(st, seat):
                        key = repr(sorted(move.items()))
                        if key not in moves_seen:
                            moves_seen.add(key)
                            samples.append(Sample("move", move["type"], move, wire.move_paths(GAME, move["type"])))
                seat = r.choice(acting)
                st = apply(st, {**r.choice(D.legal_moves(st, seat)), "seat": seat, "seed": r.getrandbits(63)})
                if step % VIEW_EVERY == 0 or st["phase"] != phase:
                    look(st)
            assert D.outcome(st) is not None, "the match did not end"
            look(st)
            matches.append((first, log, st, rules))
    return samples, matches


def constructed() -> list[Sample]:
    """What random play may miss: a greater revolution (seed 004, REVOLUCIÓN) and its view."""
    st = D.initial_state(NAMES[:4], {})
    dealt = {"hand": 1, "order": [0, 1, 2, 3], "dealer": 3, "deck_size": 80, "sizes": [20] * 4}
    hands = {0: [1, 2], 1: [3, 3], 2: [4, 4], 3: [5, 13, 13]}
    st = D.evolve(
        st, event("HandDealt", {**dealt, "auto_revolution": False}, {s: {"hand": h} for s, h in hands.items()})
    )
    out: list[Sample] = []
    for seat in (0, 1, 2, 3):
        kind = "declare_revolution" if seat == 3 else "decline_revolution"
        for ev in D.decide(st, {"type": kind, "seat": seat, "seed": 5}):
            out.append(Sample("event", ev["type"], ev, EVENT_PATHS[ev["type"]]))
            st = D.evolve(st, ev)
    out += [Sample("view", f"greater revolution for {v}", D.view(st, v), VIEW_PATHS) for v in (3, REVIEWER)]
    return out


def all_samples() -> list[Sample]:
    return playthroughs()[0] + constructed()


# ------------------------------------------------------------------ the declarations


def test_declarations_are_paths_of_the_game():
    assert isinstance(N.VIEW_CARDS, tuple) and all(isinstance(p, str) and p for p in N.VIEW_CARDS)
    assert len(set(N.VIEW_CARDS)) == len(N.VIEW_CARDS)
    assert set(N.EVENT_CARDS) == set(N.EVENT_TYPES)
    for paths in N.EVENT_CARDS.values():
        assert isinstance(paths, tuple) and len(set(paths)) == len(paths)
        assert all(p.split(".")[0] in ("data", "private") for p in paths)
    for path in (*N.VIEW_CARDS, *(p for ps in N.EVENT_CARDS.values() for p in ps)):
        assert all(step for step in path.split(".")), path
    assert N.DECK_CARDS == "*"
    # the places the checks below read are the places domain.wire translates
    assert wire.view_paths(GAME) == VIEW_PATHS
    assert {t: wire.event_paths(GAME, t) for t in N.EVENT_TYPES} == EVENT_PATHS


def test_every_card_of_every_move_is_marked():
    """The move schemas write cards as codes and mark each one (x-naipes-card): play and give_taxes."""
    assert {t: wire.move_paths(GAME, t) for t in N.MOVES if wire.move_paths(GAME, t)} == {
        "play": (("cards", "*"),),
        "give_taxes": (("cards", "*"),),
    }
    for t in ("play", "give_taxes"):
        item = N.MOVES[t]["schema"]["properties"]["cards"]["items"]
        assert item == {"type": "string", "pattern": N.CARD_PATTERN, "x-naipes-card": True}


# ------------------------------------------------------------------ no card escapes


def test_the_independent_reading_finds_the_cards():
    """The check's own reading, on hand-made objects: a seating draw's cards are the second of each pair,
    a hand number is no card, a card list is."""
    drawn = {"type": "SeatsDrawn", "data": {"draws": [[[0, 7], [1, 13]], [[0, 2]]], "order": [1, 0]}}
    assert card_places(drawn) == {("data", "draws", 0, 0, 1), ("data", "draws", 0, 1, 1), ("data", "draws", 1, 0, 1)}
    dealt = {"data": {"hand": 2, "deck_size": 80}, "private": {"1": {"hand": [3, 13]}, "deal": {"deck": [3, 13]}}}
    assert card_places(dealt) == {
        ("private", "1", "hand", 0),
        ("private", "1", "hand", 1),
        ("private", "deal", "deck", 0),
        ("private", "deal", "deck", 1),
    }
    assert escapes(dealt, EVENT_PATHS["HandDealt"]) == (set(), set())
    assert escapes(dealt, (("private", "*", "hand", "*"),)) == (
        {("private", "deal", "deck", 0), ("private", "deal", "deck", 1)},
        set(),
    )
    assert escapes(drawn, (("data", "draws", "*", "*", "*"),))[1] == {
        ("data", "draws", 0, 0, 0),
        ("data", "draws", 0, 1, 0),
        ("data", "draws", 1, 0, 0),
    }


@pytest.mark.parametrize("kind", ["event", "view", "move"])
def test_no_card_escapes(kind):
    """Every card of every event, view and legal move met is at a declared place, and every declared
    place holds a card."""
    met = 0
    for s in all_samples():
        if s.kind != kind:
            continue
        missing, extra = escapes(s.obj, s.paths, s.declared)
        assert not missing, (s, sorted(missing, key=str)[:5])
        assert not extra, (s, sorted(extra, key=str)[:5])
        met += 1
    assert met > 50


def _dropped(paths: tuple, path: tuple) -> tuple:
    return tuple(p for p in paths if p != path)


def test_dropping_any_declared_path_lets_a_card_escape():
    """The check can fail: without any one of the declared paths, some object met keeps a card nobody
    declared."""
    samples = all_samples()
    declared = {("view", p) for p in VIEW_PATHS} | {("HandDealt", DECK_PATH)}
    declared |= {(t, parse(p)) for t, ps in N.EVENT_CARDS.items() for p in ps}
    caught = set()
    for s in samples:
        if s.kind == "move":
            continue
        for path in s.paths:
            key = ("view", path) if s.kind == "view" else (s.what, path)
            if key in caught or key not in declared or next(places(s.obj, path), None) is None:
                continue
            if escapes(s.obj, _dropped(s.paths, path))[0]:
                caught.add(key)
    assert declared - caught == set()
    assert {p for w, p in caught if w == "view"} == set(VIEW_PATHS)
    assert {w for w, _ in caught} >= {"SeatsDrawn", "HandDealt", "TaxChosen", "MerchantsExchanged", "TaxesPaid"}


# ------------------------------------------------------------------ the translation


def _check_encoded(s: Sample, enc: dict) -> None:
    for p in s.declared:
        value = at(enc, p)
        assert isinstance(value, str) and CARD.fullmatch(value), (s, p, value)
        assert value == N.code(at(s.obj, p))
    everywhere = set(s.declared)
    for p, value in strings(enc):
        if CARD.fullmatch(value) and p[-1] not in NOT_CARDS:
            assert p in everywhere, (s, p, value)


def _decode(s: Sample, enc: dict) -> dict:
    if s.kind == "event":
        return wire.decode_event(GAME, enc)
    if s.kind == "view":
        return wire.decode_view(GAME, enc)
    return wire.decode_move(GAME, enc)


@pytest.mark.parametrize("kind", ["event", "view", "move"])
def test_encoded_cards_are_codes_and_decode_to_the_same(kind):
    """After domain.wire, every declared place holds the card's code; decoding gives back exactly what
    the rules wrote, and encoding leaves the rules' object as it was."""
    met = Counter()
    for i, s in enumerate(all_samples()):
        if s.kind != kind:
            continue
        before = copy.deepcopy(s.obj) if i % 10 == 0 else None
        enc = s.encoded
        assert before is None or s.obj == before
        _check_encoded(s, enc)
        assert _decode(s, enc) == s.obj, s
        met[s.what] += 1
    assert met


def test_seating_draw_cards_are_codes():
    """The seating draw (seed 004, PREPARACIÓN DEL JUEGO: every player draws a card) in SeatsDrawn and in
    every view: the second of each [seat, card] is written as a code, the seat stays a seat."""
    count = 0
    for s in all_samples():
        for path in indexed(s.paths):
            enc = s.encoded
            for p in places(s.obj, path):
                assert at(enc, p) == N.code(at(s.obj, p)), (s, p, at(enc, p))
                assert at(enc, p[:-1] + (0,)) == at(s.obj, p[:-1] + (0,))
                count += 1
    assert count > 100


def test_every_legal_move_as_posted_fits_its_schema():
    """A legal move, cards as codes, validates against its schema and decodes to the move."""
    validators = {t: jsonschema.Draft202012Validator(spec["schema"]) for t, spec in N.MOVES.items()}
    types = Counter()
    for s in all_samples():
        if s.kind == "move":
            enc = wire.encode_move(GAME, s.obj)
            errors = list(validators[s.what].iter_errors(enc))
            assert not errors, (enc, errors[0].message)
            if s.what in ("play", "give_taxes"):
                assert not validators[s.what].is_valid(s.obj), "a move with cards as ints fits the schema"
            types[s.what] += 1
    assert set(types) == set(N.MOVES)


def test_folding_the_decoded_log_gives_the_same_state():
    """Each match: its events through domain.wire and back, folded from the initial state, give the
    match's final state."""
    _, matches = playthroughs()
    for first, log, final, rules in matches:
        st = first
        for ev in log:
            st = D.evolve(st, {**wire.decode_event(GAME, wire.encode_event(GAME, ev)), "rules": rules})
        assert st == final


def test_the_deal_secret_is_a_flat_list_of_cards():
    """The deck a deal commits to (private.deal.deck, and DealRevealed data.deck) is one flat list of the
    dealt cards: domain.wire's default place for it."""
    dealt = [s.obj for s in all_samples() if s.what == "HandDealt" and "deal" in (s.obj.get("private") or {})]
    assert len(dealt) > 10
    for ev in dealt:
        deck = ev["private"]["deal"]["deck"]
        assert isinstance(deck, list) and len(deck) == ev["data"]["deck_size"]
        assert all(isinstance(c, int) and 1 <= c <= D.JESTER for c in deck)
        enc = wire.encode_event(GAME, ev)
        assert enc["private"]["deal"]["deck"] == [N.code(c) for c in deck]
        revealed = {"type": "DealRevealed", "data": {"deal_version": 1, "commitment": "c", "salt": "s", "deck": deck}}
        assert wire.encode_event(GAME, revealed)["data"]["deck"] == [N.code(c) for c in deck]


def test_every_event_and_move_type_is_met():
    samples = all_samples()
    assert {s.what for s in samples if s.kind == "event"} == set(N.EVENT_TYPES)
    assert {s.what for s in samples if s.kind == "move"} == set(N.MOVES)
    phases = {s.obj["phase"] for s in samples if s.kind == "view"}
    assert phases >= {"created", "placing", "revolution", "taxes", "play", "finished"}


# ------------------------------------------------------------------ what is not a card


@pytest.mark.parametrize(
    ("move", "where"),
    [
        ({"type": "play", "cards": ["8", 13]}, "/cards/1"),
        ({"type": "play", "cards": ["13"]}, "/cards/0"),
        ({"type": "give_taxes", "cards": ["12", "js"]}, "/cards/1"),
    ],
)
def test_a_posted_move_with_no_card_code_is_refused_naming_the_field(move, where):
    with pytest.raises(wire.CardError) as err:
        wire.decode_move(GAME, move)
    assert err.value.path == where
    assert N.CARD_PATTERN in str(err.value)


def test_a_logged_event_with_no_card_code_is_refused_naming_the_field():
    played = {"type": "Played", "data": {"seat": 1, "cards": ["8", 8], "rank": 8, "count": 2}}
    with pytest.raises(wire.CardError) as err:
        wire.decode_event(GAME, played)
    assert err.value.path == "/data/cards/1"
    dealt = {"type": "HandDealt", "data": {"hand": 1}, "private": {"2": {"hand": ["1", "0"]}}}
    with pytest.raises(wire.CardError) as err:
        wire.decode_event(GAME, dealt)
    assert err.value.path == "/private/2/hand/1"
