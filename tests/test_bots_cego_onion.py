"""The bots of Cego and Cripple Mr Onion (domain/bots/cego.py, domain/bots/onion.py).

- No peeking: at many points of random matches the cards a seat may not see
  are dealt again (the battery's ``scramble`` hooks of tests/test_cego_bots.py
  and tests/test_onion_bots.py); the seat's view stays the same and every kind
  of bot, given that view and the same seed, makes the same move.
- ``determinize`` gives full states whose view is the seat's view, that hold
  every card once (seed 003, Reparto: 54 cards, 51 with three active players;
  seed 002: the 104 cards are the deck, the hands and the discards), and that
  differ from one generator state to another.
- Bots of every kind play whole matches without an illegal move.
- ``search`` beats ``random`` by a clear margin in a quick check (the bench,
  bench/bots.py, has the full figures): the same matches are played with a
  random bot in the seat as the control.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from domain import cego as C
from domain import onion as O
from domain.bots import KINDS, choose
from domain.bots import cego as cego_bots
from domain.bots import onion as onion_bots

from .test_cego_bots import scramble as cego_scramble
from .test_onion_bots import scramble as onion_scramble

ALL_MODIFIERS = {name: True for name, _ in O.MODIFIERS}
MODULES = {"cego": C, "onion": O}
SCRAMBLE = {"cego": cego_scramble, "onion": onion_scramble}
DETERMINIZE = {"cego": cego_bots.determinize, "onion": onion_bots.determinize}


def setups(game: str, index: int) -> tuple[int, dict]:
    if game == "cego":
        return [3, 4, 5][index % 3], {
            "rounds": 1 + index % 2,
            "gut_selbst": index % 4 < 2,
            "dealer_sits_out_with_four": index % 5 == 0,
        }
    opts = {"rounds": 2, "bankroll": [3, 5, 10][index % 3], "stake": 5, "max_raise": 2}
    if index % 2:
        opts.update(ALL_MODIFIERS)
    return 2 + index % 6, opts


def start(game: str, n: int, options: dict, r: random.Random) -> dict:
    m = MODULES[game]
    st = m.initial_state([f"p{i}" for i in range(n)], options)
    for ev in m.decide(st, {"type": "start", "seat": None, "seed": r.getrandbits(63)}):
        st = m.evolve(st, ev)
    return st


def play(game: str, n: int, options: dict, seed: int, policy, visit=None, max_moves: int = 5000) -> dict:
    """A match driven as tests/battery.py drives one: ``policy(state, seat, moves, r) -> move``."""
    m = MODULES[game]
    r = random.Random(seed)
    st = start(game, n, options, r)
    for _ in range(max_moves):
        if m.outcome(st) is not None:
            return st
        seat = m.to_act(st)[0]
        moves = m.legal_moves(st, seat)
        if visit is not None:
            visit(st, seat, moves, r)
        move = policy(st, seat, moves, r)
        assert move in moves, f"{game}: {move} is not a legal move of seat {seat}"
        for ev in m.decide(st, {**move, "seat": seat, "seed": r.getrandbits(63)}):
            st = m.evolve(st, ev)
    raise AssertionError(f"{game}: the match did not end in {max_moves} moves")


def randomly(st: dict, seat: int, moves: list[dict], r: random.Random) -> dict:
    return r.choice(moves)


def cards_of(game: str, st: dict) -> tuple[list, int]:
    if game == "cego":  # seed 003, Reparto
        located = [c for h in st["hands"] for c in h] + ([] if st["blind_taken"] else st["blind"])
        located += st["legage"] + [c for _, c in st["trick"]] + [c for w in st["won"] for c in w]
        return located, 0
    return st["deck"] + [c for h in st["hands"] for c in h], st["discards"]  # seed 002


def deck_size(game: str, st: dict) -> int:
    if game == "cego":
        return len(C.deck_for(len(st["active"])))
    return 104


@pytest.mark.parametrize("game", ["cego", "onion"])
def test_no_peeking_the_other_seats_cards_change_no_decision(game):
    """Issue 23: changing the other seats' hidden cards while keeping the bot's view and the
    seed changes no bot decision, for every kind."""
    m = MODULES[game]
    checked = Counter()

    def visit(st: dict, seat: int, moves: list[dict], r: random.Random) -> None:
        if r.random() > 0.2:
            return
        view = m.view(st, seat)
        other = SCRAMBLE[game](st, seat, random.Random(r.random()))
        if other == st:
            return
        assert m.view(other, seat) == view, "the seat's view changed with cards it may not see"
        assert m.legal_moves(other, seat) == moves
        seed = r.getrandbits(32)
        for kind in KINDS:
            budget = 12
            mine = choose(game, view, seat, moves, kind=kind, seed=seed, budget=budget)
            theirs = choose(game, m.view(other, seat), seat, moves, kind=kind, seed=seed, budget=budget)
            assert mine == theirs, f"{kind}: {mine} with the real deal, {theirs} with the other"
            checked[kind] += 1
        checked[st["phase"]] += 1

    for index in range(8):
        n, options = setups(game, index)
        play(game, n, options, 100 + index, randomly, visit)
    assert min(checked[k] for k in KINDS) >= 30, checked


@pytest.mark.parametrize("game", ["cego", "onion"])
def test_determinize_is_consistent_with_the_view_and_conserves_the_cards(game):
    m = MODULES[game]
    seen = Counter()

    def visit(st: dict, seat: int, moves: list[dict], r: random.Random) -> None:
        view = m.view(st, seat)
        g = r.getrandbits(32)
        det = DETERMINIZE[game](view, seat, random.Random(g))
        assert m.view(det, seat) == view
        assert m.legal_moves(det, seat) == moves
        assert DETERMINIZE[game](view, seat, random.Random(g)) == det, "not deterministic for one generator state"
        located, loose = cards_of(game, det)
        assert len(set(located)) == len(located), "a card is in two places"
        assert len(located) + loose == deck_size(game, det), "cards lost or added"
        if game == "cego":
            assert set(located) == set(C.deck_for(len(det["active"])))
        assert view == m.view(st, seat), "determinize changed the view it was given"
        other = DETERMINIZE[game](view, seat, random.Random(g + 1))
        seen["points"] += 1
        seen["varied"] += other != det
        seen["hidden"] += sum(view["hand_sizes"]) > len(view["hand"])

    for index in range(12):
        n, options = setups(game, index)
        play(game, n, options, 200 + index, randomly, visit)
    assert seen["points"] > 300, seen
    assert seen["varied"] >= 0.9 * seen["hidden"], seen  # another generator deals the hidden cards otherwise


def test_determinize_keeps_what_the_seat_has_seen_in_cego():
    """Seed 003: the challenger's Legage is its own, the shown discard lies in the Legage, the
    shown cards stay in the challenger's hand, the last trick went to its winner."""
    count = Counter()

    def visit(st: dict, seat: int, moves: list[dict], r: random.Random) -> None:
        view = C.view(st, seat)
        det = cego_bots.determinize(view, seat, random.Random(r.getrandbits(32)))
        con = view["contract"]
        if con is not None and con["challenger"] == seat:
            assert det["legage"] == st["legage"]
            count["own-legage"] += 1
        if view["shown_discard"] is not None:
            assert view["shown_discard"] in det["legage"]
            count["shown-discard"] += 1
        if con is not None and view["shown_in_hand"]:
            assert set(view["shown_in_hand"]) <= set(det["hands"][con["challenger"]])
            count["shown"] += 1
        if view["last_trick"] is not None:
            pile = det["won"][view["last_trick"]["winner"]]
            assert {c for _, c in view["last_trick"]["cards"]} <= set(pile)
            count["last-trick"] += 1
        if view["phase"] in ("gegen", "second_auction", "raise") and any(a["call"] == "solo" for a in view["auction"]):
            assert C.solo_allowed(det["hands"][view["soloist"]]), "a Solo was called on this hand"
            count["solo"] += 1

    def solos(st: dict, seat: int, moves: list[dict], r: random.Random) -> dict:
        calls = [mv for mv in moves if mv.get("call") in ("solo", "raise")]
        return calls[0] if calls and r.random() < 0.8 else r.choice(moves)

    for index in range(40):
        n, options = setups("cego", index)
        play("cego", n, options, 300 + index, solos, visit)
    assert min(count[k] for k in ("own-legage", "shown-discard", "shown", "last-trick", "solo")) > 0, count


@pytest.mark.parametrize("game", ["cego", "onion"])
def test_bots_of_every_kind_play_whole_matches(game):
    m = MODULES[game]
    for index in range(3):
        n, options = setups(game, index)
        kinds = [KINDS[(s + index) % len(KINDS)] for s in range(n)]
        moves_made = Counter()

        def policy(st: dict, seat: int, moves: list[dict], r: random.Random, kinds=kinds, moves_made=moves_made):
            kind = kinds[seat]
            moves_made[kind] += 1
            return choose(game, m.view(st, seat), seat, moves, kind=kind, seed=r.getrandbits(32), budget=8)

        end = play(game, n, options, 400 + index, policy)
        assert m.outcome(end) is not None
        assert set(moves_made) == set(kinds), moves_made


@pytest.mark.parametrize("game", ["cego", "onion"])
def test_heuristic_bots_play_whole_matches_among_themselves(game):
    m = MODULES[game]
    for index in range(10):
        n, options = setups(game, index)

        def policy(st: dict, seat: int, moves: list[dict], r: random.Random) -> dict:
            return choose(game, m.view(st, seat), seat, moves, kind="heuristic", seed=r.getrandbits(32))

        assert m.outcome(play(game, n, options, 500 + index, policy)) is not None


def share(game: str, kind: str, matches: int, budget: int) -> float:
    """The seat's average result against random bots (Cego: its balance; Onion: its share of the
    chips), the seat rotating over the matches."""
    m = MODULES[game]
    total = 0.0
    for index in range(matches):
        if game == "cego":
            n, options = 4, {"rounds": 1}
        else:
            n, options = 3, {"rounds": 3, "bankroll": 10, "stake": 1, "max_raise": 3}
        mine = index % n

        def policy(st: dict, seat: int, moves: list[dict], r: random.Random, mine=mine) -> dict:
            seed = r.getrandbits(32)
            who = kind if seat == mine else "random"
            return choose(game, m.view(st, seat), seat, moves, kind=who, seed=seed, budget=budget)

        scores = m.outcome(play(game, n, options, 600 + index, policy))["scores"]
        total += scores[mine] if game == "cego" else scores[mine] / (10 * n)
    return total / matches


def test_search_beats_random_at_cego():
    """Twelve one-round matches of four: the search seat ends with a clear gain (the game is
    zero-sum: a random seat gains nothing on average) and well above a random bot in its seat
    (the control, same matches)."""
    searched = share("cego", "search", 12, 40)
    control = share("cego", "random", 12, 40)
    assert searched >= 15 and searched - control >= 30, (searched, control)


def test_search_beats_random_at_onion():
    """Ten three-round matches of three: the search seat ends with most of the chips (a third is
    an even share), well above a random bot in its seat (the control, same matches)."""
    searched = share("onion", "search", 10, 40)
    control = share("onion", "random", 10, 40)
    assert searched >= 0.6 and searched - control >= 0.2, (searched, control)
