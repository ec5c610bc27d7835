"""Rules of Cripple Mr Onion, base game (domain/onion/).

Each docstring cites the seed 002 lines it checks (or the reading in
docs/rules/onion.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from domain import onion as O
from domain.base import RuleViolation
from domain.onion import hands as H

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
    for bad in (
        {"type": "discard", "cards": "x"},
        {"type": "discard", "cards": [999]},
        {"type": "nope"},
        {"type": "discard", "cards": [True]},
    ):
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
    """Seed 002 lines 45-48: "all cards have been dealt face down, each player is only aware of their
    own cards"; face-up cards (lines 72-76) are public. Views: a seat sees only its own cards and
    face-up cards; spectators none; the reviewer all. A view does not change when every card its
    viewer may not see (the deck, the other hands' face-down cards) is dealt again."""
    import random

    st = finish_buying(to_buy(started(3)), {1: 0, 2: 0})  # seats 1 and 2 hold five face-up cards
    assert all(len(st["up"][s]) == 5 for s in (1, 2))
    r = random.Random(4)
    for viewer in (0, 1, 2, "spectator"):
        hidden = {s: [c for c in st["hands"][s] if c not in st["up"][s]] for s in range(3) if s != viewer}
        pool = [c for h in hidden.values() for c in h] + st["deck"]
        for _ in range(5):
            r.shuffle(pool)
            hands, k = [list(h) for h in st["hands"]], 0
            for s, h in hidden.items():
                hands[s] = sorted(pool[k : k + len(h)] + st["up"][s])
                k += len(h)
            other = {**st, "hands": hands, "deck": pool[k:]}
            assert other["hands"] != st["hands"] and O.view(other, viewer) == O.view(st, viewer)
        v = O.view(st, viewer)
        assert "hands" not in v and "deck" not in v and v["up"] == st["up"]
        assert v.get("hand") == (st["hands"][viewer] if viewer != "spectator" else None)
    assert O.view(st, "reviewer")["hands"] == st["hands"]
    assert O.view(st, "reviewer")["deck"] == st["deck"]


def test_match_ends_and_outcome():
    """Reading: the match ends after `rounds` rounds or when fewer than two players can ante;
    scores are bankrolls."""
    st = started(2, rounds=1)
    st = act(st, 1, type="fold")
    out = O.outcome(st)
    assert out["scores"] == [510, 490] and out["ranking"] == [0, 1] and out["winners"] == [0]


def test_a_reviewers_award_keeps_scores_whole_chips():
    """Seed 002, Showdown: "the player who holds the best cards wins the contents of the Pot; in the
    event of a complete tie, the player of greater seniority wins": a Pot is never split, and every
    Stake, bet and bid is whole chips, so a score (a bankroll) is a whole number of chips. A
    reviewer's award or score correction on an Onion game keeps the scores integers (the API reads
    every number as a float) and refuses a fraction of a chip."""
    from domain import table as tables
    from service.core.errors import ProblemError
    from service.core.records import Records

    assert O.WHOLE_SCORES is True
    st = started(2, rounds=1)
    st = act(st, 1, type="fold")
    table = {"game": "onion", "state": st, "adjudication": None, "deals": {"open": [], "due": []}}
    award = Records._review_event(table, "adjudicate", {"action": "award", "reason": "r", "scores": [3.0, 997.0]})
    result = award["data"]["result"]
    assert result["scores"] == [3, 997] and all(type(x) is int for x in result["scores"])
    tables._review(table, award)
    correction = {"action": "correct_score", "reason": "r", "deltas": [2.0, -2.0]}
    fixed = Records._review_event(table, "adjudicate", correction)
    assert fixed["data"]["deltas"] == [2, -2] and all(type(x) is int for x in fixed["data"]["deltas"])
    tables._review(table, fixed)
    out = tables.outcome(table)
    assert out["scores"] == [5, 995] and all(type(x) is int for x in out["scores"])
    for action, field in (("award", "scores"), ("correct_score", "deltas")):
        with pytest.raises(ProblemError) as e:
            Records._review_event(table, "adjudicate", {"action": action, "reason": "r", field: [2.5, 0.0]})
        assert e.value.status == 422 and e.value.kind == "bad-adjudication"


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
        cmd = {
            "type": r.choice(types),
            "seat": r.choice([0, 1, 2, 3, None, "1", True, 9]),
            "seed": r.choice([1, None, "s"]),
        }
        for f in ("cards", "amount", "raise", "count"):
            if r.random() < 0.5:
                cmd[f] = r.choice(vals)
        try:
            O.decide(st, cmd)
        except RuleViolation as e:
            assert e.kind in ("turn", "invalid", "illegal") and e.rule


# ------------------------------------------------------------ extra bets in front of their players (rules 3)


def in_front(st):
    return O.view(st, "spectator")["in_front"]


def test_unmatched_extra_bets_lie_in_front_and_go_back():
    """Seed 002: the extra bet is placed "on the face up cards, or on the table ... directly in front
    of the player"; only when the Dealer matches are "all extra bets ... placed in the Pot as well".
    When the Dealership goes full circle nobody matched them: the Pot (without them) carries over and
    each extra bet goes back to its player."""
    base = to_buy(started(4))
    pot, banks = base["pot"], list(base["bankrolls"])
    st = finish_buying(base, {1: 10, 2: 20, 3: 0})  # every player stands: nothing bought
    assert st["phase"] == "dealer_extra"
    assert st["pot"] == pot and in_front(st) == [0, 10, 20, 0]
    assert st["bankrolls"] == [banks[0], banks[1] - 10, banks[2] - 20, banks[3]]
    assert sum(st["bankrolls"]) + st["pot"] + sum(in_front(st)) == 2000
    st = act(st, 0, type="pass_dealership")
    st = act(st, 1, type="decline_dealership")
    st = act(st, 2, type="decline_dealership")
    st = act(st, 3, type="decline_dealership", seed=4)
    assert st["last_round"]["reason"] == "dealership-refused"
    assert st["last_round"]["returned"] == {"1": 10, "2": 20}
    assert st["round_no"] == 2 and st["pot"] == pot and in_front(st) == [0, 0, 0, 0]
    assert st["bankrolls"] == banks and st["order"][0] == 0


def test_matched_extra_bets_go_into_the_pot():
    """Seed 002: "If the Dealer decides to match the total amount of the extra bets made, by placing
    the total value in the Pot, all extra bets are placed in the Pot as well"; the Elder who accepts
    the Dealership matches the others' extra bets, its own "being lost to the Pot without reclaim"."""
    base = to_buy(started(4))
    pot = base["pot"]
    st = finish_buying(base, {1: 10, 2: 20, 3: 0})
    assert st["pot"] == pot and in_front(st) == [0, 10, 20, 0]
    matched = act(st, 0, type="match_extra")
    assert matched["pot"] == pot + 30 + 30 and in_front(matched) == [0, 0, 0, 0]
    assert matched["bankrolls"][0] == st["bankrolls"][0] - 30
    st = act(st, 0, type="pass_dealership")
    accepted = act(st, 1, type="accept_dealership")
    assert accepted["order"][0] == 1 and accepted["bankrolls"][1] == st["bankrolls"][1] - 20
    assert accepted["pot"] == pot + 20 + 30 and in_front(accepted) == [0, 0, 0, 0]


def test_dealer_facing_extra_bets_may_fold_and_the_dealership_is_auctioned():
    """Seed 002: "If the extra bets are not matched, the Dealer may give the Dealership to the Elder
    WITHOUT being required to fold": folding stays open to the Dealer, and then "the Dealership is
    auctioned". Reading: the new Dealer faces the same extra bets (match, pass or fold)."""
    st = finish_buying(to_buy(started(4)), {1: 10, 2: 20, 3: 0})
    assert {"type": "fold"} in O.legal_moves(st, 0)
    pot = st["pot"]
    st = act(st, 0, type="fold")
    assert 0 not in st["in_round"] and st["phase"] == "auction" and st["turn"] == 1
    st = act(st, 1, type="decline_bid")
    st = act(st, 2, type="bid", amount=10)
    st = act(st, 3, type="decline_bid")
    assert st["order"][0] == 2 and st["phase"] == "dealer_extra" and st["turn"] == 2
    assert in_front(st) == [0, 10, 20, 0] and st["pot"] == pot + 10
    assert {"type": "fold"} in O.legal_moves(st, 2)
    before = st["bankrolls"][2]
    st = act(st, 2, type="match_extra")  # the others' 10; its own 20 goes into the Pot too
    assert st["bankrolls"][2] == before - 10 and st["pot"] == pot + 10 + 10 + 30
    assert in_front(st) == [0, 0, 0, 0] and st["phase"] == "bet_name" and st["turn"] == 2
    assert sum(st["bankrolls"]) + st["pot"] == 2000


def test_dealer_folds_facing_extra_bets_nobody_bids():
    """Seed 002: after a Dealer's fold, "If nobody wishes to be the new Dealer, all the players fold,
    the Pot becomes the ante for the next round, the old Dealer stays as Dealer"; the extra bets were
    never matched and go back to their players."""
    base = to_buy(started(3))
    pot, banks = base["pot"], list(base["bankrolls"])
    st = finish_buying(base, {1: 10, 2: 20})
    st = act(st, 0, type="fold")
    st = act(st, 1, type="decline_bid")
    st = act(st, 2, type="decline_bid", seed=5)
    assert st["last_round"]["reason"] == "no-dealer" and st["last_round"]["returned"] == {"1": 10, "2": 20}
    assert st["round_no"] == 2 and st["pot"] == pot and st["bankrolls"] == banks and st["order"][0] == 0


def test_dealer_folds_facing_extra_bets_with_one_player_left():
    """Reading (docs): when all players but one have folded, that player takes the Pot at once; its
    unmatched extra bet goes back to it."""
    base = to_buy(started(2))
    pot, banks = base["pot"], list(base["bankrolls"])
    st = finish_buying(base, {1: 20})
    st = act(st, 0, type="fold", seed=6)
    assert st["last_round"]["reason"] == "last-player-in" and st["last_round"]["winner"] == 1
    assert st["last_round"]["amount"] == pot and st["last_round"]["returned"] == {"1": 20}
    assert st["bankrolls"][1] == banks[1] + pot - 10  # its extra bet back, the Pot won, the next ante


def test_dealer_cannot_fold_when_the_extra_bets_are_all_zero():
    """Reading (docs): with extra bets totalling 0 there is nothing to refuse: the Dealer matches
    (for nothing) or passes the Dealership, and may not fold."""
    st = finish_buying(to_buy(started(3)), {1: 0, 2: 0})
    assert {"type": "fold"} not in O.legal_moves(st, 0)
    with pytest.raises(RuleViolation) as e:
        act(st, 0, type="fold")
    assert e.value.rule == "nothing-to-fold-to"


# ------------------------------------------------------------------ logs written under earlier rules

FIXTURES = sorted(Path(__file__).parent.glob("fixtures/onion_rules_v*/*.jsonl"))


def test_fixtures_of_every_earlier_rules_version_are_present():
    """Every rules version this module still folds has a game recorded under it."""
    versions = {json.loads(p.read_text().splitlines()[0])["rules_version"] for p in FIXTURES}
    assert versions == set(O.FOLDS_RULES)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_old_logs_fold_as_they_were_played(path):
    """A game exported under rules 1 or 2 still verifies and folds to its recorded outcome: its
    unmatched extra bets stayed in the Pot and were carried over (the old reading), and every round
    starts from the bankrolls the old code dealt it. The fold knows the rules it plays under."""
    from domain import table as tables
    from service.core.verify import verify_export

    lines = path.read_bytes().splitlines()
    report = verify_export(lines)
    assert report["ok"], report["problems"]
    header, envs = report["header"], report["events"]
    assert header["rules_version"] in O.FOLDS_RULES
    assert report["outcome"] == header["outcome"]
    table = None
    refused_with_extras = 0
    for env in envs:
        if env["type"] == "RoundStarted" and table["state"]["phase"] != "created":
            st, d = table["state"], env["data"]
            ante = [d["ante"] if s in d["seating"] else 0 for s in range(len(st["players"]))]
            assert [b - a for b, a in zip(st["bankrolls"], ante)] == d["bankrolls"]
            assert st["pot"] + sum(ante) == d["pot"]
        if env["type"] == "RoundEnded" and env["data"]["reason"] == "dealership-refused":
            st = table["state"]
            pot, extras = st["pot"], sum(st["extra"].values())
            refused_with_extras += extras > 0
        table = tables.evolve(table, env)
        st = table["state"]
        if env["type"] != "GameCreated":  # the game's own events name its rules
            assert st["rules"] == header["rules_version"]
        assert sum(st["bankrolls"]) + st["pot"] == st["total"] and in_front(st) == [0] * len(st["players"])
        if env["type"] == "RoundEnded" and env["data"]["reason"] == "dealership-refused":
            assert "returned" not in env["data"] and st["pot"] == pot  # the extra bets stay in the Pot
    assert refused_with_extras, "the fixture holds a round whose extra bets went unmatched"
    assert tables.outcome(table) == header["outcome"]
    assert O.view(table["state"], "spectator")["rules_version"] == header["rules_version"]


def test_a_game_under_rules_2_keeps_them():
    """A game started under rules 2 goes on under them: its extra bets go straight into the Pot and
    its Dealer facing them matches or passes the Dealership, nothing else."""

    def fold2(st, events):
        return fold(st, [{**e, "rules": "2"} for e in events])

    def act2(st, seat, seed=0, **fields):
        return fold2(st, O.decide(st, {**fields, "seat": seat, "seed": seed}))

    st = O.initial_state(NAMES[:3], {"stake": 10})
    st = fold2(st, O.decide(st, {"type": "start", "seat": None, "seed": 1}))
    assert st["rules"] == "2"
    while st["phase"] != "buy":
        st = act2(st, st["turn"], **O.timeout_move(st, st["turn"]))
    pot = st["pot"]
    while st["phase"] != "dealer_extra":  # everyone stands; extra bets of 10 and 20
        s = st["turn"]
        st = act2(st, s, type="extra_bet", amount=10 * s) if st["phase"] == "extra" else act2(st, s, type="stand")
    assert st["phase"] == "dealer_extra" and st["pot"] == pot + 30 and in_front(st) == [0, 0, 0]
    assert O.legal_moves(st, 0) == [{"type": "match_extra"}, {"type": "pass_dealership"}]
    with pytest.raises(RuleViolation):
        act2(st, 0, type="fold")
    st = act2(st, 0, type="pass_dealership")
    st = act2(st, 1, type="decline_dealership")
    st = act2(st, 2, type="decline_dealership", seed=2)
    assert st["last_round"]["reason"] == "dealership-refused" and "returned" not in st["last_round"]
    assert st["pot"] == pot + 30
