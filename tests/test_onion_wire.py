"""Cripple Mr Onion's cards on the wire: ``VIEW_CARDS``, ``EVENT_CARDS`` and the move schemas
of ``domain.onion.notation`` as ``domain.wire`` reads them.

Random matches (the base game, rules version 1, the modifiers #0-#11 of
``../shared/seeds/002_c6b7f4254666cdbe.txt``) collect every event, many views (each seat,
the spectator, the reviewer, all along the play) and every legal move; each is encoded,
its cards checked against ``CARD_PATTERN`` and decoded back to exactly the original, and
the decoded log folds to the same final state.

No card escapes: every integer in a view, an event or a move sits under a key (the
nearest key of an object that is not a seat number) that the rules' sources
(``view.py``, ``evolve.py``, ``rounds.py``, ``drawing.py``, ``betting.py``,
``showdown.py``, ``modifier_moves.py``, ``modifiers/``, ``hands/``) use either for cards
(``CARD_KEYS``) or for something else (``OTHER_KEYS``); a key in neither fails the test
(a new field must be sorted).  After encoding, no integer may be left under a card key;
and dropping any one path of ``VIEW_CARDS`` or ``EVENT_CARDS`` (or any card marker of a
move schema) makes that check fail on the matches played: every path is needed and the
check sees every card the paths reach.
"""

from __future__ import annotations

import copy
import random
import re

import orjson
import pytest

from domain import onion as O
from domain import wire
from domain.base import DEAL, REVIEWER, SPECTATOR
from domain.onion import notation as N

GAME = "onion"
SEED = "../shared/seeds/002_c6b7f4254666cdbe.txt"
NAMES = ["ana", "bea", "carl", "dora", "ines", "juan", "kim"]
ALL_ON = {name: True for name, _ in O.MODIFIERS}
CARD_RE = re.compile(N.CARD_PATTERN)

OPTION_SETS = [
    # (name, options, matches, players)
    ("base", {"rounds": 2, "bankroll": 10, "stake": 5, "max_raise": 2}, 8, None),
    ("base-poor", {"rounds": 3, "bankroll": 3, "stake": 1, "max_raise": 1}, 6, None),
    ("base-rules-1", {"rounds": 2, "bankroll": 10, "stake": 5, "max_raise": 2}, 3, None),
    ("all-modifiers", {"rounds": 3, "bankroll": 10, "stake": 5, "max_raise": 2, **ALL_ON}, 14, None),
    ("lady-fate-wild", {"rounds": 4, "bankroll": 20, "stake": 1, "lady": True, "fate": True, "null_eights": True},
     8, 3),
    (
        "atuin-elephants-death-arch",
        {"rounds": 3, "bankroll": 20, "stake": 1, "great_atuin": True, "elephants": True, "death": True,
         "archchancellor": True},
        8,
        4,
    ),
    ("crippling", {"rounds": 3, "bankroll": 20, "stake": 1, "crippling": True, "null_eights": True, "octavo": True,
                   "wild_crippling": True, "sender_of_eights": True, "fool": True}, 6, 2),
]  # fmt: skip

# Keys whose integers are cards (read from the rules' sources) ...
CARD_KEYS = frozenset(
    {
        "hand",  # a seat's view; RoundStarted private
        "hands",  # the reviewer's view (list of hands); Compared (seat -> arrangement, see below)
        "deck",  # the reviewer's view; RoundStarted private "deck" and the deal's secret
        "up",  # face-up cards (view); Stood
        "cards",  # moves (discard, declare); arrangements and their groupings; Bought, DealerDealt
        # private; HandShown, Declared (the Elephants); the modifiers' Elephants in a view
        "card",  # moves (choose, reveal); Declared, its pending choice; ReplacementChosen, CardRevealed;
        # the declared cards of a view
        "from",  # Great A'Tuin (move, Declared, view)
        "to",  # Great A'Tuin (move, Declared, view); elsewhere "to" is an object of phase and turn
        "kept",  # ReplacementChosen (public when face up, and private)
        "rejected",  # ReplacementChosen private
        "offer",  # Declared private; the modifiers' offer in a view
        "discarded",  # Discarded private
        "drawn",  # Discarded private
        "unused",  # arrangements
        "disclosed",  # view (modifiers)
        "on_table",  # view (modifiers)
    }
)
# ... and keys whose integers are something else: seats, chips, counts, values, options.
OTHER_KEYS = frozenset(
    {
        # seats and lists of seats
        "seat", "turn", "dealer", "order", "seating", "in_round", "to_act", "active", "leader", "holder",
        "challenger", "winner", "loser", "winners", "ranking", "zeroes", "death_holder", "queue", "shown",
        "zeroed_aces", "own_eights_wild_again",
        # chips and amounts
        "bankrolls", "pot", "ante", "amount", "paid", "raise", "bet", "raises", "front", "in_front", "pooled",
        "returned", "extra", "bid", "bids", "high", "scores", "pot_left", "bankroll", "stake", "max_raise",
        # counts, rounds, indexes
        "round", "part", "round_no", "rounds", "rounds_total", "rounds_played", "count", "hand_sizes",
        "deck_size", "discards", "bought", "index",
        # the hand evaluator's values (not cards): keys, ranks, running flushes, wild counts
        "value", "key", "rank", "nulls", "length", "wilds", "suit", "low", "onion_wilds", "null_eights",
        "victim_wilds",
    }
)  # fmt: skip
# A card key holding no card at one place, as (top key, key): a view's ``offer`` is the
# Dealership offered ({"from": seat}).
NOT_CARDS = frozenset({("offer", "from")})


# ------------------------------------------------------------------ the check


def _owned_ints(obj):
    """``(owner key, top key)`` for every integer of ``obj``: its owner is the nearest key of an
    object that is not a seat number (list elements and seat-keyed values belong to the key
    above), its top key the key of ``obj`` it is found under."""
    stack = [(v, k, k) for k, v in obj.items()]
    while stack:
        o, k, top = stack.pop()
        if isinstance(o, dict):
            stack += [(v, k if kk.isdigit() else kk, top) for kk, v in o.items()]
        elif isinstance(o, list):
            stack += [(v, k, top) for v in o]
        elif isinstance(o, int) and not isinstance(o, bool):
            yield k, top


def unsorted_keys(obj) -> set:
    """Keys holding integers that are neither card keys nor other keys (the check must know every key)."""
    return {k for k, _ in _owned_ints(obj)} - CARD_KEYS - OTHER_KEYS


def escaped(obj) -> list[tuple]:
    """The integers left under a card key (cards not written as codes), as (key, top key)."""
    return [(k, top) for k, top in _owned_ints(obj) if k in CARD_KEYS and (top, k) not in NOT_CARDS]


# ------------------------------------------------------------------ the matches


_GIVING_UP = ("fold", "pass_dealership", "decline_bid", "decline_dealership", "concede")


def policy(r: random.Random, moves: list[dict], stubborn: bool, cheap: bool = False) -> dict:
    """A random legal move (declarations often); ``stubborn``: no folding when there is another
    move; ``cheap``: the first such move (no bet, raise or extra bet, no card bought), so that hands
    reach the Showdown."""
    if cheap:  # standing at once takes the second five face up
        return next((m for m in moves if m["type"] == "stand"), None) or next(
            (m for m in moves if m["type"] not in _GIVING_UP), moves[0]
        )
    declares = [m for m in moves if m["type"] == "declare"]
    if declares and r.random() < 0.6:
        return r.choice(declares)
    pool = [m for m in moves if m["type"] not in _GIVING_UP]
    return r.choice((pool if stubborn else None) or moves)


def _look(st: dict, n: int, corpus: dict, everyone: bool, seat: int | None = None) -> None:
    viewers = [*range(n), SPECTATOR, REVIEWER] if everyone else [seat]
    for v in viewers:
        corpus["views"].append(O.view(st, v))


def _deal_in(st: dict, seat: int, want: list[int], face_up: bool = False) -> dict | None:
    """``st`` with the cards ``want`` (from the pack) in ``seat``'s hand in place of as many cards
    it has not shown (``face_up``: in place of face-up cards, and face up); None if it cannot."""
    hand = st["hands"][seat]
    if any(c not in st["deck"] for c in want):
        return None
    shown = set(st["up"][seat]) | set(st["mods"]["shown"][seat])
    pool = sorted(st["up"][seat]) if face_up else [c for c in hand if c not in shown]
    give = [c for c in pool if c not in O.hands.SPECIAL][: len(want)]
    if len(give) < len(want):
        return None
    swap = {**dict(zip(want, give)), **dict(zip(give, want))}
    hands = [list(h) for h in st["hands"]]
    hands[seat] = sorted(swap.get(c, c) for c in hand)
    up = [list(u) for u in st["up"]]
    up[seat] = sorted(swap.get(c, c) for c in up[seat])
    return {**st, "hands": hands, "up": up, "deck": [swap.get(c, c) for c in st["deck"]]}


def _rigged(st: dict | None, seat: int, modifier: str) -> tuple[dict, dict] | None:
    moves = [m for m in O.legal_moves(st, seat) if m.get("modifier") == modifier] if st else []
    return (st, moves[0]) if moves else None


def rig_elephants(st: dict, seat: int) -> tuple[dict, dict] | None:
    """Before the Showdown, ``seat`` is dealt Great A'Tuin and four nines and tens from the pack:
    the Elephants (#7), which random play seldom meets, are declared."""
    H = O.hands
    if st["phase"] != "predeclare" or H.ATUIN in st["hands"][seat]:
        return None
    have = sum(1 for c in st["hands"][seat] if H.rank_of(c) in (9, 10))
    tens = [c for c in st["deck"] if H.rank_of(c) in (9, 10)][: max(0, 4 - have)]
    return _rigged(_deal_in(st, seat, [H.ATUIN, *tens]), seat, "elephants")


def rig_lady_face_up(st: dict, seat: int) -> tuple[dict, dict] | None:
    """Before the Showdown, ``seat`` holds the Lady face up (dealt when it stood) and declares it:
    the card it keeps in its place is kept face up, in public (``ReplacementChosen`` ``kept``)."""
    if st["phase"] != "predeclare" or O.hands.LADY in st["hands"][seat]:
        return None
    return _rigged(_deal_in(st, seat, [O.hands.LADY], face_up=True), seat, "lady")


LOOK_AFTER = {"RoundEnded": 0.5, "Compared": 0.3, "HandShown": 0.2}  # how often every viewer looks after


def play(name: str, options: dict, index: int, players_n: int | None, corpus: dict, rig=None) -> None:
    r = random.Random(f"wire-{name}-{index}")
    look = random.Random(f"look-{name}-{index}")  # which views are taken does not change the play
    n = players_n or 2 + index % 6
    st0 = O.initial_state(NAMES[:n], options)
    if name == "base-rules-1":
        st0 = {**st0, "rules": "1"}
    st = st0
    _look(st, n, corpus, True)
    log: list[dict] = []
    stubborn = index % 3 != 0
    cmd = {"type": "start", "seat": None, "seed": r.getrandbits(63)}
    steps = 0
    while True:
        for ev in O.decide(st, cmd):
            log.append(ev)
            corpus["events"].append(ev)
            st = O.evolve(st, ev)
            # between two events of a command too (the rounds' ends, the modifiers' pending choices)
            if ev["type"] == "Declared" or look.random() < LOOK_AFTER.get(ev["type"], 0.01):
                _look(st, n, corpus, True)
        if st["phase"] == "finished":
            break
        steps += 1
        assert steps < 5000
        seat = O.to_act(st)[0]
        rigged = rig(st, seat) if rig else None
        if rigged:  # the log folds from the rigged state on
            st0, log, rig = rigged[0], [], None
            st = st0
            _look(st, n, corpus, True)
        legal = O.legal_moves(st, seat)
        corpus["moves"] += legal
        if look.random() < 0.25 or any(m["type"] in ("choose", "reveal") or "from" in m for m in legal):
            _look(st, n, corpus, look.random() < 0.1, seat)
        move = rigged[1] if rigged else policy(r, legal, stubborn, cheap=rig is not None)
        cmd = {**move, "seat": seat, "seed": r.getrandbits(63)}
    _look(st, n, corpus, True)
    corpus["matches"].append((st0, log, st))


RIGGED = [
    # (name, options, matches, players, rig): each match sees the rigged declaration once
    ("elephants", {"rounds": 2, "bankroll": 20, "stake": 1, "elephants": True, "great_atuin": True}, 2, 3,
     rig_elephants),
    ("elephants-wild", {"rounds": 2, "bankroll": 20, "stake": 1, "elephants": True, "null_eights": True,
                        "crippling": True}, 1, 2, rig_elephants),
    ("lady-face-up", {"rounds": 2, "bankroll": 20, "stake": 1, "lady": True, "fate": True}, 2, 3, rig_lady_face_up),
]  # fmt: skip


@pytest.fixture(scope="module")
def corpus() -> dict:
    out = {"events": [], "views": [], "moves": [], "matches": []}
    for name, options, matches, players_n in OPTION_SETS:
        for i in range(matches):
            play(name, options, i, players_n, out)
    for name, options, matches, players_n, rig in RIGGED:
        for i in range(matches):
            play(name, options, i, players_n, out, rig)
    return out


# ------------------------------------------------------------------ tests


def _json(obj):
    """As the log stores it and the API writes it."""
    return orjson.loads(orjson.dumps(obj))


def test_every_type_is_met(corpus):
    """Every event type of ``EVENT_TYPES`` and every move type of ``MOVES`` appears in the matches
    (so every path below is exercised), and views of every viewer in many phases."""
    assert {e["type"] for e in corpus["events"]} == set(N.EVENT_TYPES)
    assert {m["type"] for m in corpus["moves"]} == set(N.MOVES)
    assert {"created", "draw", "buy", "predeclare", "answer", "choose", "reveal", "between_rounds", "finished"} <= {
        v["phase"] for v in corpus["views"]
    }
    assert {"hand", "hands", "deck", "modifiers", "legal_moves"} <= {k for v in corpus["views"] for k in v}
    assert any((v.get("modifiers") or {}).get("offer") for v in corpus["views"])
    assert any((v.get("modifiers") or {}).get("great_atuin") for v in corpus["views"])
    assert any((v.get("modifiers") or {}).get("elephants") for v in corpus["views"])
    assert any(e["type"] == "Declared" and e["data"]["modifier"] == "elephants" for e in corpus["events"])
    assert any(e["type"] == "ReplacementChosen" and "kept" in e["data"] for e in corpus["events"])
    assert any(((v.get("last_round") or {}).get("showdown")) for v in corpus["views"])


def test_every_key_holding_integers_is_sorted(corpus):
    """The check below knows every key: each one holding an integer is a card key or another key."""
    for what in ("events", "views", "moves"):
        found = set()
        for obj in corpus[what]:
            found |= unsorted_keys(obj)
        assert not found, (what, found)


def test_events_encode_to_codes_and_decode_back(corpus):
    for ev in corpus["events"]:
        before = copy.deepcopy(ev)
        enc = wire.encode_event(GAME, ev)
        assert ev == before  # encoding copies, never changes the rules' event
        cards = wire.cards_at(enc, wire.event_paths(GAME, ev["type"]))
        assert all(isinstance(c, str) and CARD_RE.fullmatch(c) for c in cards), (ev["type"], cards)
        assert len(cards) == len(wire.cards_at(ev, wire.event_paths(GAME, ev["type"])))
        assert not escaped(enc), (ev["type"], escaped(enc))
        stored = _json(enc)
        assert stored == enc
        assert wire.decode_event(GAME, stored) == ev


def test_the_deal_secret_is_a_flat_list_of_cards(corpus):
    """The deal's committed deck (``private.deal.deck``, encoded by domain/wire.py) is the 104 cards."""
    dealt = [ev for ev in corpus["events"] if DEAL in (ev.get("private") or {})]
    assert dealt and all(ev["type"] == "RoundStarted" for ev in dealt)
    for ev in dealt:
        deck = ev["private"][DEAL]["deck"]
        assert sorted(deck) == list(range(104))
        enc = wire.encode_event(GAME, ev)["private"][DEAL]["deck"]
        assert [N.card(c) for c in enc] == deck


def test_views_encode_to_codes_and_decode_back(corpus):
    for i, v in enumerate(corpus["views"]):
        enc = wire.encode_view(GAME, v)
        if i % 3 == 0:
            cards = wire.cards_at(enc, wire.view_paths(GAME))
            assert all(isinstance(c, str) and CARD_RE.fullmatch(c) for c in cards), cards
        assert not escaped(enc), (v["phase"], escaped(enc))
        stored = _json(enc)
        assert stored == enc
        assert wire.decode_view(GAME, stored) == v
    reviewer = [v for v in corpus["views"] if "deck" in v and v["phase"] == "draw"]
    assert reviewer
    for v in reviewer:  # the reviewer sees every card still in play: hands and pack
        enc = wire.encode_view(GAME, v)
        shown = [c for h in enc["hands"] for c in h] + enc["deck"]
        assert len(set(shown)) == len(shown) and all(CARD_RE.fullmatch(c) for c in shown)


def test_moves_encode_to_codes_and_decode_back(corpus):
    for move in corpus["moves"]:
        enc = wire.encode_move(GAME, move)
        cards = wire.cards_at(enc, wire.move_paths(GAME, move["type"]))
        assert all(isinstance(c, str) and CARD_RE.fullmatch(c) for c in cards), (move, cards)
        assert not escaped(enc), (move, escaped(enc))
        assert wire.decode_move(GAME, _json(enc)) == move


def test_a_decoded_log_folds_to_the_same_state(corpus):
    for st0, log, final in corpus["matches"]:
        st = st0
        for ev in log:
            st = O.evolve(st, wire.decode_event(GAME, _json(wire.encode_event(GAME, ev))))
        assert st == final
        assert st["phase"] == "finished"


def test_a_move_posted_as_codes_is_decided_as_the_rules_move():
    """A posted move (codes) decodes to the legal move and is decided alike."""
    st = O.initial_state(NAMES[:3], {})
    for ev in O.decide(st, {"type": "start", "seat": None, "seed": 11}):
        st = O.evolve(st, ev)
    seat = O.to_act(st)[0]
    hand = st["hands"][seat]
    posted = {"type": "discard", "cards": [N.code(hand[0]), N.code(hand[1])]}
    move = wire.decode_move(GAME, posted)
    assert move == {"type": "discard", "cards": hand[:2]}
    assert O.decide(st, {**move, "seat": seat, "seed": 3}) == O.decide(
        st, {"type": "discard", "cards": hand[:2], "seat": seat, "seed": 3}
    )
    with pytest.raises(wire.CardError) as err:
        wire.decode_move(GAME, {"type": "discard", "cards": [hand[0]]})
    assert err.value.path == "/cards/0"
    with pytest.raises(wire.CardError):
        wire.decode_move(GAME, {"type": "declare", "modifier": "atuin", "from": "KH", "to": "T1"})


# ------------------------------------------------------- every path is needed


def _without(paths: tuple[str, ...], drop: str) -> tuple[str, ...]:
    out = tuple(p for p in paths if p != drop)
    assert len(out) == len(paths) - 1
    return out


def _reaching(objs: list, path: str, most: int = 12) -> list:
    """Some objects holding a card at ``path`` (at least one: every path is met in the matches)."""
    out = [o for o in objs if wire.cards_at(o, [tuple(path.split("."))])][:most]
    assert out, f"no card met at {path}"
    return out


@pytest.fixture
def clean_paths():
    """The wire's path caches, emptied around a test that changes the declared paths."""
    for f in (wire.view_paths, wire.event_paths, wire.move_paths):
        f.cache_clear()
    yield
    for f in (wire.view_paths, wire.event_paths, wire.move_paths):
        f.cache_clear()


@pytest.mark.parametrize("drop", N.VIEW_CARDS)
def test_dropping_a_view_path_lets_a_card_escape(corpus, drop, monkeypatch, clean_paths):
    reached = _reaching(corpus["views"], drop)
    monkeypatch.setattr(N, "VIEW_CARDS", _without(N.VIEW_CARDS, drop))
    wire.view_paths.cache_clear()
    assert all(escaped(wire.encode_view(GAME, v)) for v in reached), drop


EVENT_PATHS = [(t, p) for t, paths in N.EVENT_CARDS.items() for p in paths]


@pytest.mark.parametrize("etype,drop", EVENT_PATHS, ids=[f"{t}:{p}" for t, p in EVENT_PATHS])
def test_dropping_an_event_path_lets_a_card_escape(corpus, etype, drop, monkeypatch, clean_paths):
    reached = _reaching([e for e in corpus["events"] if e["type"] == etype], drop)
    monkeypatch.setattr(N, "EVENT_CARDS", {**N.EVENT_CARDS, etype: _without(N.EVENT_CARDS[etype], drop)})
    wire.event_paths.cache_clear()
    assert all(escaped(wire.encode_event(GAME, e)) for e in reached), drop


def _unmark(schema, path: tuple):
    """A copy of ``schema`` with the card marker at ``path`` (a move path) taken away."""
    s = copy.deepcopy(schema)
    node = s
    for step in path:
        node = node["items"] if step == "*" else node["properties"][step]
    del node["x-naipes-card"]
    return s


MOVE_PATHS = [(t, p) for t in N.MOVES for p in wire.move_paths(GAME, t)]


@pytest.mark.parametrize("mtype,path", MOVE_PATHS, ids=[f"{t}:{'.'.join(p)}" for t, p in MOVE_PATHS])
def test_unmarking_a_move_card_lets_a_card_escape(corpus, mtype, path, monkeypatch, clean_paths):
    spec = N.MOVES[mtype]
    reached = _reaching([m for m in corpus["moves"] if m["type"] == mtype], ".".join(path))
    monkeypatch.setattr(N, "MOVES", {**N.MOVES, mtype: {**spec, "schema": _unmark(spec["schema"], path)}})
    wire.move_paths.cache_clear()
    assert all(escaped(wire.encode_move(GAME, m)) for m in reached), path


def test_every_move_card_is_marked():
    """Each card field of each move type, nested ones included, is a marked card code."""
    paths = {t: {".".join(p) for p in wire.move_paths(GAME, t)} for t in N.MOVES}
    assert paths["discard"] == {"cards.*"}
    assert paths["declare"] == {"from", "to", "cards.*"}
    assert paths["choose"] == paths["reveal"] == {"card"}
    assert all(not ps for t, ps in paths.items() if t not in ("discard", "declare", "choose", "reveal"))


def test_the_check_sees_what_the_paths_reach(corpus):
    """Before encoding, the check finds every card the declared paths reach (and so would find
    one a missing path leaves behind): the keys of the paths are card keys."""
    for ev in corpus["events"]:
        n = len(wire.cards_at(ev, wire.event_paths(GAME, ev["type"])))
        assert len(escaped(ev)) == n, ev["type"]
    for v in corpus["views"][::7]:
        assert len(escaped(v)) == len(wire.cards_at(v, wire.view_paths(GAME)))
