"""Random bots play complete matches of Cripple Mr Onion (domain/onion.py).

1,000 matches, 2 to 7 players, 1..3 rounds, small bankrolls so that players go
broke and cannot cover bets.  Bots pick a move uniformly among ``legal_moves``;
every command carries a seed from the match's own generator.

Checked throughout: money is conserved (sum of bankrolls + Pot + the extra
bets lying in front of the players, seed 002 "Pot" and "directly in front of
the player"), extra bets lie in front of their players until matched, then all
go into the Pot, and go back to their players when the round ends unmatched
(see ``extra_bets_checker``), the 104 cards are conserved (deck + hands + discards), no bankroll
goes negative, every round ends within a bounded number of moves, the fold is
pure and JSON-safe, re-folding the log gives the same state, ``timeout_move``
is among ``legal_moves``, and a seat not on turn is refused.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from domain import onion as O
from domain.base import RuleViolation

MATCHES = 1000
CHUNKS = 5
MAX_MOVES_PER_ROUND = 2000


def cards_in_play(st: dict) -> int:
    return len(st["deck"]) + sum(len(h) for h in st["hands"]) + st["discards"]


def extra_bets_checker(total: int, seen: Counter):
    """Seed 002, extra bets (rules 3): a check to run after every event.  Money is conserved
    counting the chips in front of the players; an extra bet lies in front of its player (not in
    the Pot) until matched; matching puts every one of them into the Pot; a round ending unmatched
    gives each back to its player; the public view shows them."""
    placed: dict[str, int] = {}
    matched = False

    def check(before: dict, st: dict, ev: dict) -> None:
        nonlocal matched
        front = st["front"]
        assert sum(st["bankrolls"]) + st["pot"] + sum(front) == total
        t, d = ev["type"], ev["data"]
        if t in ("ExtraBet", "DealershipPassed", "Folded"):
            assert O.view(st, "spectator")["in_front"] == front
        if t == "RoundStarted":
            placed.clear()
            matched = False
            assert front == [0] * len(front)
        elif t == "ExtraBet":
            s = d["seat"]
            assert st["pot"] == before["pot"] and front[s] == d["amount"]
            assert st["bankrolls"][s] == before["bankrolls"][s] - d["amount"]
            if d["amount"]:
                placed[str(s)] = d["amount"]
        elif t == "ExtraMatched" or (t == "DealerChanged" and d["how"] == "accepted"):
            assert d.get("pooled", {}) == placed and front == [0] * len(front)
            assert st["pot"] == before["pot"] + d["paid"] + sum(placed.values())
            matched = True
            seen["extra-bets-pooled"] += bool(placed)
        elif t == "RoundEnded":
            assert d["returned"] == ({} if matched else placed) and front == [0] * len(front)
            for s, chips in d["returned"].items():
                won = d["amount"] if d["winner"] == int(s) else 0
                assert st["bankrolls"][int(s)] == before["bankrolls"][int(s)] + chips + won
            seen["extra-bets-returned"] += bool(d["returned"])
        else:
            assert front == before["front"]

    return check


def play_match(index: int, seen: Counter, stubborn: bool = False) -> None:
    r = random.Random(7919 * index + 3)
    n = 2 + index % 6 if index % 7 else 7
    opts = {"rounds": r.randint(1, 3), "bankroll": r.choice([3, 5, 10, 30]), "stake": r.choice([1, 5, 10]),
            "max_raise": r.choice([1, 2, 5])}
    st0 = O.initial_state([f"b{i}" for i in range(n)], opts)
    total = st0["total"]
    st = st0
    log: list[dict] = []
    moves = 0
    extra_bets = extra_bets_checker(total, seen)

    def apply(events):
        nonlocal st, moves
        for ev in events:
            before, st = st, O.evolve(st, ev)
            log.append(ev)
            seen[ev["type"]] += 1
            extra_bets(before, st, ev)
            assert min(st["bankrolls"]) >= 0
            if st["phase"] not in ("between_rounds", "finished", "created"):
                assert cards_in_play(st) == 104
                assert len(set(st["deck"]) | {c for h in st["hands"] for c in h}) == len(st["deck"]) + sum(
                    len(h) for h in st["hands"])
            if ev["type"] == "RoundStarted":
                moves = 0
            if ev["type"] == "RoundEnded":
                seen["reason-" + ev["data"]["reason"]] += 1
            if ev["type"] in ("Folded", "DealerChanged", "AuctionOpened"):
                seen[ev["type"] + "-" + str(ev["data"].get("reason") or ev["data"].get("how") or
                                            ev["data"].get("after"))] += 1

    apply(O.decide(st, {"type": "start", "seat": None, "seed": r.getrandbits(63)}))
    while O.outcome(st) is None:
        acting = O.to_act(st)
        assert len(acting) == 1 and all(isinstance(s, int) for s in acting)
        seat = acting[0]
        legal = O.legal_moves(st, seat)
        assert legal
        assert O.timeout_move(st, seat) in legal
        other = (seat + 1) % n
        with pytest.raises(RuleViolation):
            O.decide(st, {**legal[0], "seat": other, "seed": 1})
        pool = [x for x in legal if x["type"] not in ("fold", "pass_dealership", "decline_bid")] if stubborn else []
        m = r.choice(pool or legal)
        apply(O.decide(st, {**m, "seat": seat, "seed": r.getrandbits(63)}))
        moves += 1
        assert moves < MAX_MOVES_PER_ROUND, "a round did not end"
    assert json.loads(json.dumps(st)) == st
    refold = st0
    for ev in log:
        refold = O.evolve(refold, ev)
    assert refold == st
    out = O.outcome(st)
    assert sorted(out["ranking"]) == list(range(n))
    assert sum(out["scores"]) + out["pot_left"] == total
    seen["matches"] += 1


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_bot_matches(chunk):
    """Seed 002 as a whole: 200 random complete matches per chunk (1,000 in all) keep every invariant."""
    seen: Counter = Counter()
    per = MATCHES // CHUNKS
    for i in range(chunk * per, (chunk + 1) * per):
        play_match(i, seen)
    assert seen["matches"] == per
    for t in ("RoundStarted", "Discarded", "BetNamed", "Matched", "RaiseMatched", "Folded", "AuctionOpened",
              "Bid", "DealerDealt", "Bought", "Stood", "ExtraBet", "ExtraMatched", "DealershipPassed",
              "DealerChanged", "RoundEnded", "MatchEnded", "reason-showdown", "reason-last-player-in",
              "reason-dealership-refused", "reason-no-dealer", "Folded-dealer-declined-extra",
              "AuctionOpened-extra_bets", "DealerChanged-accepted", "DealerChanged-auction",
              "extra-bets-pooled", "extra-bets-returned"):
        assert seen[t] > 0, t


def test_stubborn_bots_reach_showdowns():
    """Seed 002, Showdown: 200 more matches by bots that never fold when they may stay in."""
    seen: Counter = Counter()
    for i in range(200):
        play_match(10_000 + i, seen, stubborn=True)
    assert seen["reason-showdown"] > 100
