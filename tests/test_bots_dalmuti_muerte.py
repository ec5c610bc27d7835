"""The Dalmuti and Muerte bots (``domain/bots/dalmuti.py``, ``domain/bots/muerte.py``).

- No peeking: at many points of random matches, the other seats' hidden cards dealt again (the battery's
  ``scramble`` hook of ``tests/test_<game>_bots.py``) leave the seat's view and legal moves as they were,
  and every kind of bot chooses the same move with the same seed.
- ``determinize`` gives states whose view is the seat's view, that hold the cards of the deal, and that
  vary with the generator.
- Bots of every kind play complete matches without an illegal move.
- The heuristics follow the seeds' strategies (``../shared/seeds/004_3965bd3c775629cb.txt`` for Dalmuti,
  ``../shared/seeds/001_2bc3f36edf9233f8.txt`` for Muerte).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from domain import bots, registry
from domain.bots import dalmuti as dalmuti_bots
from domain.bots import muerte as muerte_bots
from domain.dalmuti import JESTER, deck_for

from . import test_dalmuti_bots, test_muerte_bots
from .test_bots import apply, by_team, play, start

SCRAMBLE = {"dalmuti": test_dalmuti_bots.scramble, "muerte": test_muerte_bots.scramble}
SETUPS = {
    "dalmuti": [
        (4, {"reduced_deck": True, "hands": 2, "merchant_exchange": True}),
        (6, {"hands": 2, "merchant_exchange": True, "first_deal_revolution": True, "philanthropic_scoring": True}),
        (5, {"hands": 1, "reduced_deck": True, "scoring": False}),
    ],
    "muerte": [
        (6, {"games": 3, "treason": True}),
        (8, {"games": 2, "identity_mode": "winner_swaps", "treason": True}),
        (10, {"games": 2, "identity_mode": "team_chooses", "deck": "spanish48"}),
    ],
}


def points_of_play(game: str, n: int, options: dict, seed: int, every: int) -> list[tuple[dict, int]]:
    """(state, seat) at every ``every``-th decision with more than one legal move of a random match."""
    m = registry.get(game)
    out: list[tuple[dict, int]] = []
    count = [0]

    def visit(st: dict, seat: int) -> None:
        if len(m.legal_moves(st, seat)) > 1:
            count[0] += 1
            if count[0] % every == 0:
                out.append((st, seat))

    play(game, n, options, ["random"] * n, seed, visit=visit)
    return out


def all_points(game: str, every: int) -> list[tuple[dict, int]]:
    pts = []
    for i, (n, options) in enumerate(SETUPS[game]):
        pts += points_of_play(game, n, options, 40 + i, every)
    return pts


# ------------------------------------------------------------------ no peeking


@pytest.mark.parametrize("game,every", [("dalmuti", 9), ("muerte", 2)])
def test_no_bot_decision_depends_on_cards_its_seat_may_not_see(game, every):
    m = registry.get(game)
    r = random.Random(game)
    points = all_points(game, every)
    assert len(points) >= 20
    changed = 0
    for k, (st, seat) in enumerate(points):
        view, legal = m.view(st, seat), m.legal_moves(st, seat)
        other = SCRAMBLE[game](st, seat, r)
        changed += other["hands"] != st["hands"]
        assert m.view(other, seat) == view
        assert m.legal_moves(other, seat) == legal
        for kind in bots.KINDS:
            budget = 12 if kind == "search" else 200
            if kind == "search" and k % 3:  # the search is the slow one: a third of the points
                continue
            a = bots.choose(game, view, seat, legal, kind=kind, seed=k, budget=budget)
            b = bots.choose(game, m.view(other, seat), seat, m.legal_moves(other, seat), kind=kind, seed=k,
                            budget=budget)  # fmt: skip
            assert a == b, (kind, a, b)
    assert changed >= len(points) // 2  # the scrambles did deal the other hands differently


# ------------------------------------------------------------------ determinize


def dalmuti_cards_ok(det: dict, view: dict) -> None:
    """Every card of the deck is in a hand of the hand's seats or among the cards played (a count)."""
    held = Counter(c for s in det["order"] for c in det["hands"][s])
    deck = Counter(deck_for(len(det["order"]), bool(det["options"]["reduced_deck"])))
    assert held <= deck
    assert sum(held.values()) + det["discards"] == det["deck_size"] == sum(deck.values())
    if det["trick"] is not None:
        assert held + Counter(det["trick"]["cards"]) <= deck


@pytest.mark.parametrize("game", ["dalmuti", "muerte"])
def test_determinize_gives_states_with_the_seats_view_and_the_deals_cards(game):
    m = registry.get(game)
    sampler = bots.game_bots(game)
    points = all_points(game, 4 if game == "dalmuti" else 1)
    varied = 0
    for st, seat in points:
        view = m.view(st, seat)
        seen = set()
        for j in range(6):
            det = sampler.determinize(view, seat, random.Random(j))
            assert m.view(det, seat) == view
            assert m.legal_moves(det, seat) == m.legal_moves(st, seat)
            assert det == sampler.determinize(view, seat, random.Random(j))  # the generator decides it all
            if game == "dalmuti":
                dalmuti_cards_ok(det, view)
            elif det["phase"] != "swapping":  # the battery's own exception: swaps change teams, not yet cards
                test_muerte_bots.check_cards(det)
            seen.add(repr([h for s, h in enumerate(det["hands"]) if s != seat]))
        hidden = [c for s, h in enumerate(st["hands"]) if s != seat for c in h]
        varied += len(seen) > 1 or len(set(hidden)) <= 1
    assert varied >= 0.9 * len(points), (varied, len(points))


def test_a_dalmuti_sample_deals_only_cards_the_seat_has_not_seen():
    """The seat's own cards and the trick on the table are never dealt to another seat."""
    m = registry.get("dalmuti")
    for st, seat in all_points("dalmuti", 7):
        view = m.view(st, seat)
        det = dalmuti_bots.determinize(view, seat, random.Random(5))
        others = Counter(c for s in det["order"] if s != seat for c in det["hands"][s])
        mine = Counter(view["hand"]) + Counter(view["trick"]["cards"] if view["trick"] else [])
        deck = Counter(deck_for(len(det["order"]), bool(det["options"]["reduced_deck"])))
        assert others <= deck - mine


# ------------------------------------------------------------------ complete matches


@pytest.mark.parametrize("game", ["dalmuti", "muerte"])
def test_bots_of_every_kind_play_complete_matches(game):
    """Every kind at one table, every setup; ``play`` asserts each move is legal and ``decide`` accepts it."""
    for i, (n, options) in enumerate(SETUPS[game]):
        kinds = [bots.KINDS[(s + i) % 3] for s in range(n)]
        opts = {**options, "hands": 1} if game == "dalmuti" else {**options, "games": 1}
        out, st = play(game, n, opts, kinds, 70 + i, budget=8)
        assert out is not None and sorted(out["ranking"]) == list(range(n))


# ------------------------------------------------------------------ the heuristics


def dalmuti_play_point(seed: int) -> tuple[dict, int]:
    m = registry.get("dalmuti")
    st = start("dalmuti", 5, {"reduced_deck": True, "hands": 1}, seed)
    r = random.Random(seed)
    while st["phase"] != "play":
        seat = m.to_act(st)[0]
        st = apply("dalmuti", st, seat, r.choice(m.legal_moves(st, seat)), r.getrandbits(63))
    return st, st["turn"]


def test_the_dalmuti_heuristic_leads_its_weakest_set_whole():
    """Seed 004, LA PARTIDA: shed the weak sets early: a seat that leads plays all its cards of its
    highest (worst) rank, no jester with them."""
    m = registry.get("dalmuti")
    for seed in range(10):
        st, seat = dalmuti_play_point(seed)
        view = m.view(st, seat)
        move = bots.choose("dalmuti", view, seat, m.legal_moves(st, seat), kind="heuristic", seed=seed)
        hand = [c for c in view["hand"] if c != JESTER]
        worst = max(hand)
        assert move == {"type": "play", "cards": [worst] * hand.count(worst)}


def test_the_dalmuti_heuristic_keeps_its_control_cards_when_following():
    """Seed 004: keep the control cards: following a trick it could beat only with a 1, a 2 or a
    jester, early in the hand, the heuristic passes."""
    m = registry.get("dalmuti")
    st, seat = dalmuti_play_point(3)
    nxt = st["order"][(st["order"].index(seat) + 1) % len(st["order"])]
    hands = list(st["hands"])
    hands[nxt] = [2, 2, 5, 6, 7, 8, 9, 10, JESTER]
    st = {**st, "hands": hands, "turn": nxt, "trick": {"seat": seat, "cards": [3], "rank": 3, "count": 1}}
    legal = m.legal_moves(st, nxt)
    assert {"type": "play", "cards": [2]} in legal
    move = bots.choose("dalmuti", m.view(st, nxt), nxt, legal, kind="heuristic", seed=1)
    assert move == {"type": "pass"}


def test_the_dalmuti_heuristic_pays_taxes_with_its_worst_cards():
    """Seed 004, IMPUESTOS: the Dalmutis give back their worst cards (never a jester)."""
    m = registry.get("dalmuti")
    met = 0
    for seed in range(20):
        st = start("dalmuti", 5, {"reduced_deck": True, "hands": 2}, seed)
        r = random.Random(seed)
        while st["phase"] != "play" and met < 30:
            seat = m.to_act(st)[0]
            legal = m.legal_moves(st, seat)
            if st["phase"] == "taxes" and seat in st["tax_pending"]:
                move = bots.choose("dalmuti", m.view(st, seat), seat, legal, kind="heuristic", seed=seed)
                plain = sorted(c for c in st["hands"][seat] if c != JESTER)
                assert move["cards"] == plain[-len(move["cards"]) :]
                met += 1
            st = apply("dalmuti", st, seat, r.choice(legal), r.getrandbits(63))
    assert met >= 10


def test_the_muerte_heuristic_accuses_where_the_reveals_point():
    """Seed 001, 2.3: an accused player shows its cards.  With one enemy shown clean this very round and
    the others unseen, the heuristic's odds put the king with the unseen ones, and an accusation it must
    make never names the player just shown clean."""
    m = registry.get("muerte")
    met = 0
    for seed in range(60):
        st = start("muerte", 6, {}, seed)
        r = random.Random(seed)
        while m.outcome(st) is None and st["game_no"] == 1:
            seat = m.to_act(st)[0]
            legal = m.legal_moves(st, seat)
            view = m.view(st, seat)
            if view["must"] and view["must"].get("must_accuse"):
                shown = [x["target"] for x in view["reveals"] if x["round"] == view["round"] and not x["king"]]
                odds = muerte_bots.king_odds(view, seat)
                unseen = [s for s in odds if s not in shown]
                if shown and unseen:
                    move = bots.choose("muerte", view, seat, legal, kind="heuristic", seed=seed)
                    assert move["target"] not in shown
                    assert all(odds[s] < min(odds[u] for u in unseen) for s in shown if s in odds)
                    met += 1
            st = apply("muerte", st, seat, r.choice(legal), r.getrandbits(63))
    assert met >= 5


def test_the_muerte_heuristic_never_gives_away_or_discards_its_own_king():
    """Seed 001, 2.3: losing the own king loses the game: the heuristic never discards it, never gives it
    back in an exchange it did not start, and under treason never hands a teammate its identity number."""
    m = registry.get("muerte")
    met = Counter()
    for seed in range(30):

        def visit(st: dict, seat: int, seed: int = seed) -> None:
            view = m.view(st, seat)
            legal = m.legal_moves(st, seat)
            move = bots.choose("muerte", view, seat, legal, kind="heuristic", seed=seed)
            king = m.KINGS[view["teams"][seat]]
            if st["phase"] in ("discard", "giveback") and king in view["hand"] and len(view["hand"]) > 1:
                assert move["card"] != king
                met[st["phase"]] += 1
            if move["type"] == "exchange" and st["options"]["treason"]:
                bad = m.number(view["identity"][move["with"]])
                if any(m.number(c) != bad and c != king for c in view["hand"]):
                    assert m.number(move["card"]) != bad
                    met["treason"] += 1

        play("muerte", 6, {"treason": seed % 2 == 0}, ["random"] * 6, 500 + seed, visit=visit)
    assert met["discard"] and met["giveback"] and met["treason"], met


def test_the_muerte_heuristic_beats_random():
    """A team of heuristic seats against a team of random seats wins 40 of 60 six-player games or more
    (a fair coin does so less than 1% of the time)."""
    wins = 0
    for i in range(60):
        side = "espadas" if i % 2 else "bastos"
        out, _ = play("muerte", 6, {}, by_team(side, "heuristic", "random"), 900 + i)
        wins += out["games"][-1].get("winning_team") == side
    assert wins >= 40, wins
