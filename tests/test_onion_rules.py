"""Rules of Cripple Mr Onion, base game (domain/onion.py).

Each docstring cites the seed 002 lines it checks (or the reading in
docs/rules/onion.md).
"""

from __future__ import annotations

import json

import pytest

from domain import onion as O
from domain import onion_hands as H
from domain.base import RuleViolation

NAMES = [f"p{i}" for i in range(7)]


def fold(st, events):
    for ev in events:
        st = O.evolve(st, ev)
    return st


def act(st, seat, seed=0, **fields):
    return fold(st, O.decide(st, {**fields, "seat": seat, "seed": seed}))


def started(n=4, seed=1, **opts):
    opts.setdefault("stake", 10)
    st = O.initial_state(NAMES[:n], opts)
    return fold(st, O.decide(st, {"type": "start", "seat": None, "seed": seed}))


def money(st):
    return sum(st["bankrolls"]) + st["pot"]


def through_draw(st):
    while st["phase"] == "draw":
        st = act(st, st["turn"], type="discard", cards=[])
    return st


def to_buy(st):
    """Zero bets through the first betting round."""
    st = through_draw(st)
    while st["phase"] in ("bet_name", "bet_respond"):
        if st["phase"] == "bet_name":
            st = act(st, st["turn"], type="bet", amount=0)
        else:
            st = act(st, st["turn"], type="match")
    return st


def test_start_ante_and_deal():
    """Seed 002 lines 26-40: every player antes the Stake; five cards each; Dealer, Elder (left),
    Younger (right); the Elder draws first."""
    st = started(4)
    assert st["pot"] == 40 and st["bankrolls"] == [490] * 4
    assert st["order"] == [0, 1, 2, 3] and O.roles(st) == ["dealer", "elder", "player", "younger"]
    assert [len(h) for h in st["hands"]] == [5] * 4 and len(st["deck"]) == 84
    assert O.to_act(st) == [1] and st["phase"] == "draw"
    assert json.loads(json.dumps(st)) == st


def test_deal_order_two_three_three_two():
    """Seed 002 lines 37-40: the Dealer gets two, the others three; the Dealer three, the others two."""
    st0 = O.initial_state(NAMES[:3], {})
    evs = O.decide(st0, {"type": "start", "seat": None, "seed": 5})
    from domain.base import shuffled
    deck = shuffled(list(range(104)), 5)
    p = evs[0]["private"]
    assert p["0"]["hand"] == sorted(deck[0:2] + deck[8:11])
    assert p["1"]["hand"] == sorted(deck[2:5] + deck[11:13])
    assert p["2"]["hand"] == sorted(deck[5:8] + deck[13:15])
    assert p["deck"]["deck"] == deck[15:]


def test_draw_up_to_four_or_fold():
    """Seed 002 lines 41-45: discard up to four and replace from the top, or fold by discarding
    five; the Dealer draws last."""
    st = started(3)
    hand = st["hands"][1]
    with pytest.raises(RuleViolation) as e:
        act(st, 1, type="discard", cards=hand)
    assert e.value.rule == "discard-at-most-four"
    top = st["deck"][:2]
    st2 = act(st, 1, type="discard", cards=hand[:2])
    assert sorted(st2["hands"][1]) == sorted(hand[2:] + top) and st2["turn"] == 2
    st3 = act(st2, 2, type="fold")
    assert 2 not in st3["in_round"] and st3["turn"] == 0
    with pytest.raises(RuleViolation) as e:
        act(st3, 0, type="fold")
    assert e.value.rule == "dealer-cannot-fold-in-draw"
    st4 = act(st3, 0, type="discard", cards=[])
    assert st4["phase"] == "bet_name" and st4["turn"] == 0


def test_out_of_turn_and_garbage():
    """Base contract: acting out of turn is kind 'turn'; malformed input is kind 'invalid'."""
    st = started(3)
    with pytest.raises(RuleViolation) as e:
        act(st, 2, type="discard", cards=[])
    assert e.value.kind == "turn"
    for bad in ({"type": "discard", "cards": "x"}, {"type": "discard", "cards": [999]}, {"type": "nope"},
                {"type": "discard", "cards": [True]}):
        with pytest.raises(RuleViolation) as e:
            O.decide(st, {**bad, "seat": 1, "seed": 0})
        assert e.value.kind in ("invalid", "illegal")


def test_betting_parts_raise_and_dealer_matches():
    """Seed 002 lines 50-65: the Dealer names a bet, each matches or folds and may raise; the
    Dealer matches the collective raise; part three has no raises; a zero bet is allowed."""
    st = through_draw(started(3))
    st = act(st, 0, type="bet", amount=20)
    st = act(st, 1, type="match", **{"raise": 10})
    st = act(st, 2, type="match", **{"raise": 20})
    assert st["phase"] == "bet_dealer" and st["turn"] == 0
    st = act(st, 0, type="match")
    assert st["bankrolls"] == [490 - 20 - 30, 490 - 30, 490 - 40] and money(st) == 1500
    assert st["betting"]["part"] == 2 and st["phase"] == "bet_name"
    st = act(st, 0, type="bet", amount=0)
    st = act(st, 1, type="match")
    st = act(st, 2, type="match")
    assert st["betting"]["part"] == 3
    st = act(st, 0, type="bet", amount=0)
    with pytest.raises(RuleViolation) as e:
        act(st, 1, type="match", **{"raise": 10})
    assert e.value.rule == "no-raise-in-part-three"
    assert all(m.get("raise", 0) == 0 for m in O.legal_moves(st, 1))


def test_max_raise_and_cannot_cover():
    """Seed 002 lines 33-35: a raise is at most max_raise Stakes. Reading: a player who cannot
    cover the bet must fold."""
    st = through_draw(started(2, bankroll=3, max_raise=5))
    st = act(st, 0, type="bet", amount=20)
    with pytest.raises(RuleViolation):
        act(st, 1, type="match", **{"raise": 10})  # 20 left after the ante: nothing to raise with
    assert O.legal_moves(st, 1) == [{"type": "match", "raise": 0}, {"type": "fold"}]


def test_everyone_folds_but_one_wins_the_pot():
    """Reading (docs): when all but one player have folded, that player takes the Pot at once
    and deals next."""
    st = started(3)
    st = act(st, 1, type="fold")
    st = act(st, 2, type="fold")
    assert st["round_no"] == 2 and st["bankrolls"][0] == 490 + 30 - 10 and st["order"][0] == 0


def test_dealer_folds_auction():
    """Seed 002 lines 121-134: a Dealer who folds auctions the Dealership; bids rise by a Stake;
    decliners pay their bid into the Pot; the last bidder pays and becomes Dealer."""
    st = through_draw(started(4))
    st = act(st, 0, type="bet", amount=0)
    st = act(st, 1, type="match", **{"raise": 10})
    st = act(st, 2, type="match")
    st = act(st, 3, type="match")
    st = act(st, 0, type="fold")
    assert st["phase"] == "auction" and st["turn"] == 1
    st = act(st, 1, type="bid", amount=10)
    with pytest.raises(RuleViolation):
        act(st, 2, type="bid", amount=15)  # must rise by a Stake
    st = act(st, 2, type="bid", amount=20)
    st = act(st, 3, type="decline_bid")
    assert st["turn"] == 1
    st = act(st, 1, type="decline_bid")
    assert st["order"][0] == 2 and O.roles(st)[3] == "elder" and st["phase"] == "bet_name"
    assert st["betting"]["part"] == 2 and st["turn"] == 2
    assert st["bankrolls"][1] == 490 - 10 - 10 and st["bankrolls"][2] == 490 - 20 and money(st) == 2000


def test_auction_without_bidders_carries_the_pot():
    """Seed 002 lines 132-134: nobody bids: all fold, the Pot is the next ante, the Dealer stays."""
    st = through_draw(started(3))
    st = act(st, 0, type="bet", amount=0)
    st = act(st, 1, type="match", **{"raise": 10})
    st = act(st, 2, type="match")
    st = act(st, 0, type="fold")
    pot = st["pot"]
    st = act(st, 1, type="decline_bid", seed=3)
    st = act(st, 2, type="decline_bid", seed=3)
    assert st["round_no"] == 2 and st["pot"] == pot and st["order"][0] == 0
    assert st["last_round"]["reason"] == "no-dealer" and st["last_round"]["winner"] is None


def test_second_five_buying_and_face_up():
    """Seed 002 lines 67-76: the Dealer gets five face down; each player buys up to five at a
    Stake each, the rest are dealt face up and stay public."""
    st = to_buy(started(3))
    assert st["phase"] == "buy" and len(st["hands"][0]) == 10 and st["up"][0] == []
    before = st["bankrolls"][1]
    st = act(st, 1, type="buy", count=2)
    st = act(st, 1, type="stand")
    assert st["bankrolls"][1] == before - 20 and len(st["up"][1]) == 3 and len(st["hands"][1]) == 10
    v = O.view(st, 2)
    assert v["up"][1] == st["up"][1] and "hands" not in v
    assert set(v["hand"]) == set(st["hands"][2])
    assert st["phase"] == "extra" and st["turn"] == 1


def finish_buying(st, extras):
    while st["phase"] in ("buy", "extra"):
        s = st["turn"]
        st = act(st, s, type="stand") if st["phase"] == "buy" else act(st, s, type="extra_bet", amount=extras[s])
    return st


def test_dealer_matches_extra_bets_then_two_parts_and_showdown():
    """Seed 002 lines 77-86 and 100-119: extra bets; the Dealer matches their total; two more parts;
    Showdown: the best arrangement wins the Pot and deals next."""
    st = finish_buying(to_buy(started(3)), {1: 10, 2: 20})
    assert st["phase"] == "dealer_extra"
    before = st["bankrolls"][0]
    st = act(st, 0, type="match_extra")
    assert st["bankrolls"][0] == before - 30 and st["betting"] == {"round": 2, "part": 1, "bet": None, "raises": {}}
    hands = [list(h) for h in st["hands"]]
    for _ in range(2):
        st = act(st, 0, type="bet", amount=0)
        st = act(st, 1, type="match")
        st = act(st, 2, type="match", seed=9)
    last = st["last_round"]
    assert last["reason"] == "showdown"
    values = {s: H.best_arrangement(hands[s])["value"] for s in range(3)}
    best = max(values.values())
    assert last["winner"] == next(s for s in [0, 1, 2] if values[s] == best)  # ties: Dealer, Elder, ...
    assert last["showdown"]["1"]["value"] == values[1]
    assert st["order"][0] == last["winner"]


def test_dealership_passed_round_and_back():
    """Seed 002 lines 87-98: unmatched extra bets pass the Dealership to the Elder, who accepts by
    matching the others' extra bets (its own is lost); round the table back to the Dealer: all fold
    and the Pot carries over."""
    st = finish_buying(to_buy(started(4)), {1: 10, 2: 20, 3: 0})
    st = act(st, 0, type="pass_dealership")
    assert st["phase"] == "offer" and st["turn"] == 1
    st2 = act(st, 1, type="accept_dealership")
    assert st2["order"] == [1, 2, 3, 0] and st2["bankrolls"][1] == st["bankrolls"][1] - 20
    assert O.roles(st2)[0] == "younger" and 0 in st2["in_round"] and st2["phase"] == "bet_name"
    st3 = act(st, 1, type="decline_dealership")
    st3 = act(st3, 2, type="decline_dealership")
    pot = st3["pot"]
    st3 = act(st3, 3, type="decline_dealership", seed=4)
    assert st3["round_no"] == 2 and st3["pot"] == pot and st3["order"][0] == 0
    assert st3["last_round"]["reason"] == "dealership-refused"


def test_views_hide_cards():
    """Views: a seat sees only its own cards and face-up cards; spectators none; the reviewer all."""
    st = started(3)
    for viewer in (0, 1, 2, "spectator"):
        v = json.dumps(O.view(st, viewer))
        assert '"deck": [' not in v
        for s in range(3):
            if s != viewer:
                assert f'"hand": {json.dumps(st["hands"][s])}' not in v
    assert O.view(st, "reviewer")["hands"] == st["hands"]


def test_match_ends_and_outcome():
    """Reading: the match ends after `rounds` rounds or when fewer than two players can ante;
    scores are bankrolls."""
    st = started(2, rounds=1)
    st = act(st, 1, type="fold")
    out = O.outcome(st)
    assert out["scores"] == [510, 490] and out["ranking"] == [0, 1] and out["winners"] == [0]


def test_timeout_moves():
    """Docs, timeouts: discard nothing, bet zero, match a zero bet else fold, stand, extra bet zero,
    decline."""
    st = started(3)
    assert O.timeout_move(st, 1) == {"type": "discard", "cards": []}
    st = through_draw(st)
    assert O.timeout_move(st, 0) == {"type": "bet", "amount": 0}
    st = act(st, 0, type="bet", amount=10)
    assert O.timeout_move(st, 1) == {"type": "fold"}


def test_garbage_commands_raise_rule_violations_only():
    """Base contract: wrong types, unknown cards, missing fields raise RuleViolation, never another error."""
    import random
    r = random.Random(1)
    vals = [None, "x", -1, 0, 1, 5, 10**9, True, [], [1, 2], {"a": 1}, 1.5, [200], [-1]]
    types = list(O._DECIDERS) + ["zzz", None, 3]
    states = [started(3), through_draw(started(3)), to_buy(started(4))]
    for _ in range(3000):
        st = r.choice(states)
        cmd = {"type": r.choice(types), "seat": r.choice([0, 1, 2, 3, None, "1", True, 9]),
               "seed": r.choice([1, None, "s"])}
        for f in ("cards", "amount", "raise", "count"):
            if r.random() < 0.5:
                cmd[f] = r.choice(vals)
        try:
            O.decide(st, cmd)
        except RuleViolation as e:
            assert e.kind in ("turn", "invalid", "illegal") and e.rule
