"""Cego's cards as codes on the wire: ``domain/wire.py`` with the paths of ``domain/cego/notation.py``.

Random matches to the end, over several option sets (driven as ``tests/battery.py`` drives a
game), give every event, views of every seat, of the spectator and of the reviewer at every
point of play, and every legal move.  For each: the values at the declared paths are card
codes, decoding gives back exactly the original, and no card escapes.

No card escapes (:func:`escapes`): the encoded object is walked whole.  Under a key that holds
cards in Cego (``CARD_KEYS``, read from ``view.py``, ``evolve.py``, ``deal.py``, ``auction.py``,
``exchange.py``, ``tricks.py`` and ``scoring.py``) every value must be a card code (or ``None``),
but for the seat of a ``[seat, code]`` pair; anywhere else an int may only sit under a key known to
hold no card (``NUMBER_KEYS``: seats, counts, points, money).  So a path missing from
``VIEW_CARDS`` / ``EVENT_CARDS`` (or a card field not marked in ``MOVES``) leaves an int under a
card key, and a new card field the lists do not know leaves an int under an unknown key: both fail.
``test_each_declared_path_is_needed`` deletes each path in turn and shows the check fails.

Card names and the deck come from the rules text ../shared/seeds/003_e0bc4396a9caea9d.txt (seed 003).
"""

from __future__ import annotations

import copy
import functools
import itertools
import json
import random
import re

import pytest

from domain import cego as C
from domain import wire
from domain.base import REVIEWER, SPECTATOR
from domain.cego import notation as N

GAME = "cego"
NAMES = ["ana", "bea", "carl", "dora", "eve"]
PATTERN = re.compile(N.CARD_PATTERN)

# option sets: 3, 4 and 5 players, the dealer sitting out with four, gut/selbst
SETUPS = [
    (3, {"rounds": 2}),
    (4, {"rounds": 2}),
    (4, {"rounds": 2, "dealer_sits_out_with_four": True, "gut_selbst": True}),
    (5, {"rounds": 2, "gut_selbst": True}),
    (4, {"rounds": 1, "gut_selbst": True}),
]
GAMES_PER_SETUP = 4

# Cego keeps [seat, card] pairs (the dealer draw, the trick, the last trick): their card is at
# index 1, a step domain/wire.py has to read; until it does, the checks that meet pairs wait.
INDEX_STEPS = wire.cards_at([[0, 5]], [("*", "1")]) == [5]
needs_index_steps = pytest.mark.skipif(
    not INDEX_STEPS, reason="domain/wire.py does not read an index step yet (the card of a [seat, card] pair)"
)

# keys under which Cego keeps cards (in views, events, their private parts, moves)
CARD_KEYS = frozenset(
    {
        "hand",  # a seat's view; RoundDealt private part of a seat
        "hands",  # the reviewer's view
        "blind",  # the reviewer's view, RoundDealt private "nobody", RoundScored, last_round
        "legage",  # the challenger's and reviewer's views, Exchanged private part, RoundScored
        "shown",  # views, Exchanged
        "shown_in_hand",
        "shown_discard",
        "discarded",  # Exchanged
        "kept",  # Exchanged private part
        "cards",  # keep / show / discard moves, Exchanged private part, last_trick ([seat, card] pairs)
        "card",  # play moves, Played
        "winning_card",  # TrickTaken
        "trick",  # [seat, card] pairs
        "dealer_draw",  # [seat, card] pairs
        "draws",  # DealerDrawn: [seat, card] pairs
        "deck",  # the deal secret (private.deal.deck)
    }
)
# keys under which an int is no card: seats, counts, sizes, points, money, options
NUMBER_KEYS = frozenset(
    {
        "round_no",
        "rounds_total",
        "rounds",
        "round",
        "dealer",
        "cutter",
        "mano",
        "active",
        "sitting_out",
        "seat",
        "speakers",
        "challenger",
        "soloist",
        "gegensolo",
        "raiser",
        "leader",
        "turn",
        "to_act",
        "winner",
        "next",
        "hand_sizes",
        "hand_size",
        "blind_size",
        "legage_size",
        "count",
        "trick_no",
        "tricks_won",
        "balances",
        "payments",
        "amount",
        "factor",
        "challenger_points",
        "defender_points",
        "points",  # Räuber: each seat's card points
        "losers",
        "scores",
        "ranking",
        "winners",
        "rounds_played",
    }
)


def is_code(x) -> bool:
    return isinstance(x, str) and PATTERN.match(x) is not None


def escapes(obj, where: str = "", key: str | None = None, cards: bool = False) -> list[str]:
    """Where an encoded object still holds something that is not a card code under a card key,
    or an int under a key not known to hold numbers."""
    out: list[str] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += escapes(v, f"{where}/{k}", k, cards or k in CARD_KEYS)
    elif isinstance(obj, list):
        pair = cards and len(obj) == 2 and type(obj[0]) is int and is_code(obj[1])  # [seat, code]
        for i, v in enumerate(obj):
            if not (pair and i == 0):
                out += escapes(v, f"{where}/{i}", key, cards)
    elif obj is None or isinstance(obj, bool):
        pass
    elif cards:
        if not is_code(obj):
            out.append(f"{where}: {obj!r} under the card key {key!r}")
    elif isinstance(obj, (int, float)) and key not in NUMBER_KEYS:
        out.append(f"{where}: the number {obj!r} under the key {key!r}, not known to hold numbers")
    return out


def json_copy(obj):
    """What the log or the API hands back: a JSON round trip."""
    return json.loads(json.dumps(obj))


def viewers(n: int) -> list:
    return [*range(n), SPECTATOR, REVIEWER]


@functools.cache
def playthroughs() -> dict:
    """Random matches to the end: every event, the views of every viewer after every command, every
    legal and timeout move."""
    matches: list[tuple[list[str], dict, list[dict], dict]] = []
    views: list[dict] = []
    moves: list[dict] = []
    games: set[str] = set()
    for (n, options), k in itertools.product(SETUPS, range(GAMES_PER_SETUP)):
        r = random.Random(f"cego-wire:{n}:{sorted(options.items())}:{k}")
        players = NAMES[:n]
        st = C.initial_state(players, options)
        views += [C.view(st, v) for v in viewers(n)]
        log: list[dict] = []
        evs = C.decide(st, {"type": "start", "seat": None, "seed": r.getrandbits(63)})
        passing = k % 2 == 1  # every other match heads for the Cego raises and the exchange
        while True:
            for ev in evs:
                st = C.evolve(st, ev)
                log.append(ev)
            views += [C.view(st, v) for v in viewers(n)]
            if st["contract"]:
                games.add(st["contract"]["game"])
            if C.outcome(st) is not None:
                break
            seat = C.to_act(st)[0]
            legal = C.legal_moves(st, seat)
            moves += legal + [C.timeout_move(st, seat)]
            m = r.choice(legal)
            if passing and st["phase"] in ("first_auction", "gegen", "second_auction"):
                m = {"type": "call", "call": "pass"}
            evs = C.decide(st, {**m, "seat": seat, "seed": r.getrandbits(63)})
        matches.append((players, options, log, st))
    return {"matches": matches, "views": views, "moves": moves, "games": games}


def all_events() -> list[dict]:
    return [ev for _, _, log, _ in playthroughs()["matches"] for ev in log]


def paths_hold_codes(encoded, paths) -> list:
    found = wire.cards_at(encoded, paths)
    assert all(is_code(c) for c in found), found
    return found


# ------------------------------------------------------------------ declarations


def test_every_event_type_declares_its_cards():
    assert set(N.EVENT_CARDS) == set(N.EVENT_TYPES)
    declared = [*N.VIEW_CARDS, *(p for ps in N.EVENT_CARDS.values() for p in ps)]
    assert all(isinstance(p, str) and p and " " not in p for p in declared)
    assert len(set(N.VIEW_CARDS)) == len(N.VIEW_CARDS)
    for etype, paths in N.EVENT_CARDS.items():
        assert all(p.split(".")[0] in ("data", "private") for p in paths), etype


def test_move_schemas_mark_every_card():
    """Seed 003: keep, show and discard name cards, play names one card; a call names none."""
    assert wire.move_paths(GAME, "call") == ()
    for kind in ("keep", "show", "discard"):
        assert wire.move_paths(GAME, kind) == (("cards", "*"),)
        items = N.MOVES[kind]["schema"]["properties"]["cards"]["items"]
        assert items["type"] == "string" and items["pattern"] == N.CARD_PATTERN and items["x-naipes-card"] is True
    assert wire.move_paths(GAME, "play") == (("card",),)
    assert N.MOVES["play"]["schema"]["properties"]["card"]["pattern"] == N.CARD_PATTERN


# ------------------------------------------------------------------ round trips


@needs_index_steps
def test_events_encode_to_codes_and_decode_back():
    met: set[str] = set()
    for ev in all_events():
        met.add(ev["type"])
        before = copy.deepcopy(ev)
        enc = wire.encode_event(GAME, ev)
        assert ev == before  # the original is untouched
        found = paths_hold_codes(enc, wire.event_paths(GAME, ev["type"]))
        assert len(found) == len(wire.cards_at(ev, wire.event_paths(GAME, ev["type"])))
        assert escapes(enc) == [], (ev["type"], escapes(enc))
        assert wire.decode_event(GAME, json_copy(enc)) == ev
    assert met == set(N.EVENT_TYPES)


@needs_index_steps
def test_views_encode_to_codes_and_decode_back():
    phases: set[str] = set()
    for v in playthroughs()["views"]:
        phases.add(v["phase"])
        enc = wire.encode_view(GAME, v)
        paths_hold_codes(enc, wire.view_paths(GAME))
        assert escapes(enc) == [], (v["phase"], escapes(enc))
        assert wire.decode_view(GAME, json_copy(enc)) == v
    assert phases == {p["id"] for p in N.PHASES} - {"between_rounds"}  # the next deal follows in the command


def test_moves_encode_to_codes_and_decode_back():
    met: set[str] = set()
    for m in playthroughs()["moves"]:
        met.add(m["type"])
        enc = wire.encode_move(GAME, m)
        found = paths_hold_codes(enc, wire.move_paths(GAME, m["type"]))
        assert found or m["type"] == "call"
        assert escapes(enc) == [], (m, escapes(enc))
        assert wire.decode_move(GAME, json_copy(enc)) == m
        timed_out = {"type": "TurnTimedOut", "data": {"seat": 0, "move": m}}
        assert wire.decode_event(GAME, json_copy(wire.encode_event(GAME, timed_out))) == timed_out
        assert wire.encode_event(GAME, timed_out)["data"]["move"] == enc
    assert met == set(N.MOVES)


@needs_index_steps
def test_every_declared_path_is_met():
    """No dead path: each path of VIEW_CARDS and of EVENT_CARDS reaches a card in some view or event met."""
    views = playthroughs()["views"]
    for path in N.VIEW_CARDS:
        assert any(wire.cards_at(v, [wire._parse(path)]) for v in views), path
    events = all_events()
    for etype, paths in N.EVENT_CARDS.items():
        of_type = [e for e in events if e["type"] == etype]
        for path in paths:
            assert any(wire.cards_at(e, [wire._parse(path)]) for e in of_type), (etype, path)


def test_folding_the_decoded_log_gives_the_same_state():
    """The log as stored (codes, a JSON round trip) and read back folds to the very same state."""
    for players, options, log, final in playthroughs()["matches"]:
        st = C.initial_state(players, options)
        for ev in log:
            stored = json_copy(wire.encode_event(GAME, ev))
            st = C.evolve(st, wire.decode_event(GAME, stored))
        assert st == final


def test_the_deal_secret_is_a_flat_deck():
    """The deal's deck (private.deal.deck) is a flat list of the cards dealt: the table's path reaches them all."""
    for ev in all_events():
        if ev["type"] == "RoundDealt":
            deck = ev["private"]["deal"]["deck"]
            n = len(ev["data"]["active"])
            assert sorted(deck) == sorted(C.deck_for(n))
            enc = wire.encode_event(GAME, ev)
            assert sorted(enc["private"]["deal"]["deck"]) == sorted(N.code(c) for c in deck)


def test_games_met():
    """The matches reach the exchange games, so shown cards and the shown discard are on the wire."""
    assert {"cego", "eine", "eine_leere", "zwei_leere"} <= playthroughs()["games"]


# ------------------------------------------------------------------ the escape check can fail


def sample_with(objs, path):
    return next(o for o in objs if wire.cards_at(o, [path]))


@pytest.fixture
def fresh_paths():
    """Each test may change the declarations: the wire's caches are read again before and after."""
    caches = (wire.view_paths, wire.event_paths, wire.move_paths)
    for c in caches:
        c.cache_clear()
    yield
    for c in caches:
        c.cache_clear()


@needs_index_steps
def test_each_declared_path_is_needed(monkeypatch, fresh_paths):
    """Deleting any one path of VIEW_CARDS or EVENT_CARDS leaves a card the escape check finds."""
    views = playthroughs()["views"]
    for path in N.VIEW_CARDS:
        v = sample_with(views, wire._parse(path))
        monkeypatch.setattr(N, "VIEW_CARDS", tuple(p for p in N.VIEW_CARDS if p != path))
        wire.view_paths.cache_clear()
        assert escapes(wire.encode_view(GAME, v)), path
    monkeypatch.undo()
    wire.view_paths.cache_clear()
    events = all_events()
    for etype, paths in N.EVENT_CARDS.items():
        for path in paths:
            ev = sample_with([e for e in events if e["type"] == etype], wire._parse(path))
            reduced = {**N.EVENT_CARDS, etype: tuple(p for p in paths if p != path)}
            monkeypatch.setattr(N, "EVENT_CARDS", reduced)
            wire.event_paths.cache_clear()
            assert escapes(wire.encode_event(GAME, ev)), (etype, path)
    monkeypatch.undo()
    wire.event_paths.cache_clear()
    assert all(escapes(wire.encode_event(GAME, e)) == [] for e in events[:50])


def test_each_card_mark_of_the_move_schemas_is_needed(monkeypatch, fresh_paths):
    moves = playthroughs()["moves"]
    for kind in ("keep", "show", "discard", "play"):
        m = next(x for x in moves if x["type"] == kind)
        unmarked = json.loads(json.dumps(N.MOVES[kind]).replace('"x-naipes-card": true', '"x-naipes-card": false'))
        monkeypatch.setitem(N.MOVES, kind, unmarked)
        wire.move_paths.cache_clear()
        assert escapes(wire.encode_move(GAME, m)), kind
        monkeypatch.undo()
        wire.move_paths.cache_clear()
        assert escapes(wire.encode_move(GAME, m)) == []


@needs_index_steps
def test_escape_check_finds_numbers_under_unknown_keys():
    """A card under a key nobody declared (a new field) is found as well."""
    v = wire.encode_view(GAME, playthroughs()["views"][-1])
    assert escapes(v) == []
    assert escapes({**v, "new_field": [C.JUGLAR]}) and escapes({**v, "trick": [[0, 110]]})
    assert escapes({**v, "hand": ["KH", 22]}) and escapes({**v, "hand": ["KH", "KX"]})
    assert escapes({**v, "trick": [[0, "KH"], [1, "SK"]]}) == []


def test_posted_moves_with_values_are_refused():
    """A posted move names its cards by code; an internal value or a string of no card is refused."""
    assert wire.decode_move(GAME, {"type": "play", "card": "SK"}) == {"type": "play", "card": C.JUGLAR}
    assert wire.decode_move(GAME, {"type": "keep", "cards": ["T21", "KH"]}) == {"type": "keep", "cards": [21, 110]}
    for bad in ({"type": "play", "card": 22}, {"type": "play", "card": "T22"}, {"type": "discard", "cards": ["7H"]}):
        with pytest.raises(wire.CardError):
            wire.decode_move(GAME, bad)
