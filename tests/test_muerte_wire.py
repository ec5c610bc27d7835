"""¡Muerte al rey!'s cards as codes everywhere (domain/muerte/notation.py: where the cards are;
domain/wire.py: the translation, here the identity with a check).

The cards are the Spanish pack of the rules text (../shared/seeds/001_2bc3f36edf9233f8.txt, 2.1:
the identity deck and the two team decks); their codes and the paths declared for them are in
docs/rules/muerte.md ("Notation").  Random matches to the end (as tests/test_muerte_notation.py
plays them) give the events, the views (every seat, the spectator, the reviewer, all through play)
and the legal moves checked here.

No card escapes: the check chosen is a second, independent reading of where the cards are, made
from the key names the rules use for cards (``hand``, ``hands``, ``cards``, ``identity``, ``lost``,
``deck``, ``given`` hold cards and nothing else; ``card``, ``offer``, ``gave``, ``received`` are one
card; a denounced treason is ``[seat, traitor, card]``).  For every object met, the places that
reading finds and the places the declared paths reach must be the same set, and every string
anywhere that reads as a card code must be at a declared place.  A path missing from VIEW_CARDS or
EVENT_CARDS fails it (shown below by dropping each declared path in turn).
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

from domain import muerte as M
from domain import wire
from domain.base import REVIEWER, SPECTATOR, event
from domain.muerte import notation as N

GAME = "muerte"
CARD = re.compile(N.CARD_PATTERN)
NAMES = ["ana", "bea", "carl", "dan", "eva", "fede", "gil", "hugo", "ines", "juan", "kiko", "lola", "mar", "nico"]
NAMES += ["olga", "paco"]

# (players, options): both decks, treason on and off, every identity mode of section 3.3
OPTION_SETS = [
    (6, {}),
    (6, {"treason": True, "games": 3, "identity_mode": "fixed"}),
    (8, {"treason": True, "games": 3, "identity_mode": "winner_swaps"}),
    (12, {"treason": True, "games": 2, "identity_mode": "team_chooses"}),
    (10, {"deck": "spanish48", "treason": True, "games": 2, "identity_mode": "opponents_choose"}),
    (16, {"deck": "spanish48", "treason": True, "games": 2, "identity_mode": "fixed_teams"}),
    (14, {"deck": "spanish48", "games": 2, "identity_mode": "random"}),
]
SEEDS = 3
VIEW_EVERY = 12  # the views of every viewer after one command in twelve (and after one phase change in five)

# The independent reading: keys whose value (a list or an object) holds cards and only cards ...
CARD_KEYS = {"hand", "hands", "cards", "identity", "lost", "deck", "given"}
# ... keys whose value is one card ...
ONE_CARD_KEYS = {"card", "offer", "gave", "received"}
# ... and keys whose value holds cards among other things, with the places of its cards.
MIXED_KEYS = {"denounced": ("*", "2")}  # [seat, traitor, card]


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
            elif k in ONE_CARD_KEYS and v is not None and not isinstance(v, list | dict):
                found.add(here)
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
    """(cards no declared path reaches, places declared that hold no card).  A card is what the key
    names say, and also any string anywhere that reads as a card code."""
    declared = declared_places(obj, paths) if declared is None else declared
    assert len(declared) == len(set(declared)), f"two declared paths reach one place: {Counter(declared)}"
    found = card_places(obj) | {p for p, v in strings(obj) if CARD.fullmatch(v)}
    return found - set(declared), set(declared) - found


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

    def decode(self, obj: dict) -> dict:
        if self.kind == "event":
            return wire.decode_event(GAME, obj)
        if self.kind == "view":
            return wire.decode_view(GAME, obj)
        return wire.decode_move(GAME, obj)


@functools.cache
def playthroughs() -> tuple[list[Sample], list[tuple[dict, list[dict], dict]]]:
    """Random matches to the end: the samples (events, views, legal moves) and, per match, its
    initial state, its events and its final state."""
    samples: list[Sample] = []
    matches = []
    moves_seen: set[str] = set()
    for index, (n, options) in enumerate(OPTION_SETS):
        for k in range(SEEDS):
            r = random.Random(5000 + 100 * index + k)
            st = M.initial_state(NAMES[:n], options)
            first = copy.deepcopy(st)
            log: list[dict] = []

            def look(st: dict) -> None:
                for viewer in [*range(len(st["players"])), SPECTATOR, REVIEWER]:
                    samples.append(Sample("view", f"{st['phase']} for {viewer}", M.view(st, viewer), VIEW_PATHS))

            look(st)  # before the start
            command = {"type": "start", "seat": None, "seed": r.randrange(2**31)}
            for step in range(5000):
                phase = st["phase"]
                for ev in M.decide(st, command):
                    log.append(ev)
                    samples.append(Sample("event", ev["type"], ev, EVENT_PATHS[ev["type"]]))
                    st = M.evolve(st, ev)
                if step % VIEW_EVERY == 0 or (st["phase"] != phase and r.random() < 0.2):
                    look(st)
                acting = M.to_act(st)
                if not acting:
                    break
                for seat in acting:
                    for move in M.legal_moves(st, seat):
                        key = repr(sorted(move.items()))
                        if key not in moves_seen:
                            moves_seen.add(key)
                            samples.append(Sample("move", move["type"], move, wire.move_paths(GAME, move["type"])))
                seat = r.choice(acting)
                command = {**r.choice(M.legal_moves(st, seat)), "seat": seat, "seed": r.randrange(2**31)}
            assert M.outcome(st) is not None, "the match did not end"
            look(st)
            matches.append((first, log, st))
    return samples, matches


def constructed() -> list[Sample]:
    """What random play seldom reaches: a double treason half answered (seed 001, 3.1), when a view shows
    a denounced treason's card while the other receiver still has to answer."""
    players = NAMES[:6]
    identity = ["E1", "B1", "E2", "B2", "E3", "B3"]  # turn order 0, 1, 2, 3, 4, 5
    hands = [["O2", "O4"], ["C1", "C4"], ["O1", "O5"], ["C2", "C5"], ["O3", "O12"], ["C3", "C12"]]
    st = M.initial_state(players, {"treason": True})
    data = {"game": 1, "identity": identity, "order": M.turn_order(identity), "sizes": [2] * 6, "teams_fixed": None}
    st = M.evolve(st, event("GameDealt", data, {s: {"hand": h} for s, h in enumerate(hands)}))
    out: list[Sample] = []
    for seat, move in ((0, {"type": "exchange", "with": 2, "card": "O2"}), (2, {"type": "give_back", "card": "O1"})):
        for ev in M.decide(st, {**move, "seat": seat, "seed": 3}):
            out.append(Sample("event", ev["type"], ev, EVENT_PATHS[ev["type"]]))
            st = M.evolve(st, ev)
    assert sorted(st["treason"]["pending"]) == [0, 2]
    for ev in M.decide(st, {"type": "denounce", "seat": 2, "seed": 3}):
        out.append(Sample("event", ev["type"], ev, EVENT_PATHS[ev["type"]]))
        st = M.evolve(st, ev)
    assert st["treason"]["denounced"] == [[2, 0, "O2"]]
    out += [Sample("view", f"double treason for {v}", M.view(st, v), VIEW_PATHS) for v in (0, SPECTATOR, REVIEWER)]
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
    assert N.DECK_CARDS == "*.*"
    # the places the checks below read are the places domain.wire translates
    assert wire.view_paths(GAME) == VIEW_PATHS
    assert {t: wire.event_paths(GAME, t) for t in N.EVENT_TYPES} == EVENT_PATHS


def test_every_card_of_every_move_is_marked():
    """exchange, give_back and discard name one card each, marked x-naipes-card."""
    assert {t: wire.move_paths(GAME, t) for t in N.MOVES if wire.move_paths(GAME, t)} == {
        "exchange": (("card",),),
        "give_back": (("card",),),
        "discard": (("card",),),
    }
    for t in ("exchange", "give_back", "discard"):
        field = N.MOVES[t]["schema"]["properties"]["card"]
        assert field["type"] == "string" and field["pattern"] == N.CARD_PATTERN and field["x-naipes-card"] is True


# ------------------------------------------------------------------ no card escapes


def test_the_independent_reading_finds_the_cards():
    """The check's own reading, on hand-made objects: a denounced treason's card is the third of each
    triple, a string that reads as a card is a card wherever it is, a deck option is no card."""
    view = {"options": {"deck": "spanish40"}, "treason": {"chances": [[1, 2]], "denounced": [[1, 2, "O3"]]}}
    assert card_places(view) == {("treason", "denounced", 0, 2)}
    assert escapes(view, (("treason", "denounced", "*", "2"),)) == (set(), set())
    assert escapes({"x": ["B4"]}, ()) == ({("x", 0)}, set())
    assert escapes(view, (("treason", "chances", "*", "*"),)) == (
        {("treason", "denounced", 0, 2)},
        {("treason", "chances", 0, 0), ("treason", "chances", 0, 1)},
    )
    dealt = {"data": {"game": 1}, "private": {"deal": {"salt": "ab", "deck": {"espadas": ["O1"], "bastos": ["C12"]}}}}
    assert escapes(dealt, EVENT_PATHS["GameDealt"]) == (set(), set())
    assert escapes(dealt, (("private", "deal", "deck", "*"),))[0] == {
        ("private", "deal", "deck", "espadas", 0),
        ("private", "deal", "deck", "bastos", 0),
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


def test_dropping_any_declared_path_lets_a_card_escape():
    """The check can fail: without any one of the declared paths, some object met keeps a card nobody
    declared."""
    declared = {("view", p) for p in VIEW_PATHS} | {("GameDealt", DECK_PATH)}
    declared |= {(t, parse(p)) for t, ps in N.EVENT_CARDS.items() for p in ps}
    caught = set()
    for s in all_samples():
        if s.kind == "move":
            continue
        for path in s.paths:
            key = ("view", path) if s.kind == "view" else (s.what, path)
            if key in caught or key not in declared or next(places(s.obj, path), None) is None:
                continue
            if escapes(s.obj, tuple(p for p in s.paths if p != path))[0]:
                caught.add(key)
    assert declared - caught == set()


# ------------------------------------------------------------------ the translation


@pytest.mark.parametrize("kind", ["event", "view", "move"])
def test_encoded_cards_are_codes_and_decode_to_the_same(kind):
    """After domain.wire every declared place holds a card code (the same string: the game's values are
    its codes); decoding gives back exactly what the rules wrote; encoding changes nothing in place."""
    met = Counter()
    for i, s in enumerate(all_samples()):
        if s.kind != kind:
            continue
        before = copy.deepcopy(s.obj) if i % 10 == 0 else None
        enc = s.encoded
        assert before is None or s.obj == before
        for p in s.declared:
            value = at(enc, p)
            assert isinstance(value, str) and CARD.fullmatch(value), (s, p, value)
            assert value == at(s.obj, p)
        assert enc == s.obj
        assert s.decode(enc) == s.obj, s
        met[s.what] += 1
    assert met


def test_every_legal_move_as_posted_fits_its_schema():
    validators = {t: jsonschema.Draft202012Validator(spec["schema"]) for t, spec in N.MOVES.items()}
    types = Counter()
    for s in all_samples():
        if s.kind == "move":
            errors = list(validators[s.what].iter_errors(wire.encode_move(GAME, s.obj)))
            assert not errors, (s.obj, errors[0].message)
            types[s.what] += 1
    assert set(types) == set(N.MOVES)


def test_folding_the_decoded_log_gives_the_same_state():
    """Each match: its events through domain.wire and back, folded from the initial state, give the
    match's final state."""
    _, matches = playthroughs()
    for first, log, final in matches:
        st = first
        for ev in log:
            st = M.evolve(st, wire.decode_event(GAME, wire.encode_event(GAME, ev)))
        assert st == final


def test_the_deal_secret_is_each_teams_deck():
    """The deal commits to both team decks (seed 001, 2.1.2 and 2.1.3): private.deal.deck is an object,
    team -> list of cards, not a flat list; DECK_CARDS says so, and domain.wire reads it and the
    DealRevealed deck that way."""
    dealt = [s.obj for s in all_samples() if s.what == "GameDealt"]
    assert len(dealt) > 10
    for ev in dealt:
        deck = ev["private"]["deal"]["deck"]
        assert isinstance(deck, dict) and set(deck) == set(M.TEAMS)
        assert all(isinstance(c, str) and CARD.fullmatch(c) for cards in deck.values() for c in cards)
        assert wire.decode_event(GAME, wire.encode_event(GAME, ev)) == ev
        revealed = {"type": "DealRevealed", "data": {"deal_version": 1, "commitment": "c", "salt": "s", "deck": deck}}
        assert wire.decode_event(GAME, wire.encode_event(GAME, revealed)) == revealed
        bad = copy.deepcopy(revealed)
        bad["data"]["deck"]["bastos"][1] = "C13"
        with pytest.raises(wire.CardError) as err:
            wire.decode_event(GAME, bad)
        assert err.value.path == "/data/deck/bastos/1"


def test_every_event_and_move_type_is_met():
    samples = all_samples()
    assert {s.what for s in samples if s.kind == "event"} == set(N.EVENT_TYPES)
    assert {s.what for s in samples if s.kind == "move"} == set(N.MOVES)
    phases = {s.obj["phase"] for s in samples if s.kind == "view"}
    assert phases >= {"created", "turn", "giveback", "discard", "treason", "swapping", "assigning", "finished"}


# ------------------------------------------------------------------ what is not a card


@pytest.mark.parametrize(
    ("move", "where"),
    [
        ({"type": "exchange", "with": 2, "card": "O13"}, "/card"),
        ({"type": "give_back", "card": "o3"}, "/card"),
        ({"type": "discard", "card": 12}, "/card"),
    ],
)
def test_a_posted_move_with_no_card_code_is_refused_naming_the_field(move, where):
    with pytest.raises(wire.CardError) as err:
        wire.decode_move(GAME, move)
    assert err.value.path == where
    assert N.CARD_PATTERN in str(err.value)


def test_a_logged_event_with_no_card_code_is_refused_naming_the_field():
    accused = event("Accused", {"seat": 0, "target": 1, "cards": ["C1", "C 4"], "king": False})
    with pytest.raises(wire.CardError) as err:
        wire.decode_event(GAME, accused)
    assert err.value.path == "/data/cards/1"
    offered = event("ExchangeOffered", {"seat": 3, "with": 5}, {3: {"card": "X1"}})
    with pytest.raises(wire.CardError) as err:
        wire.decode_event(GAME, offered)
    assert err.value.path == "/private/3/card"
    view = {"identity": ["E1", "B1"], "treason": {"denounced": [[1, 0, "E0"]]}}
    with pytest.raises(wire.CardError) as err:
        wire.decode_view(GAME, view)
    assert err.value.path == "/treason/denounced/0/2"
