"""Random bots play complete Cego matches (domain/cego.py).

5,000 matches (3, 4 and 5 players, 1..2 rounds, options mixed).  Bots pick a
move uniformly among ``legal_moves`` with seeded generators (in every other match they pass
in the first and second auctions, so that the Cego raises are reached).  Checked: cards
are conserved (hands + blind/Legage + played cards = the deck of the round),
points of both sides sum to 79 (78 with 51 cards, see docs) where the contract
counts points, payments and balances sum to zero, every round ends, the fold
is pure (re-folding the log gives an equal state, states survive JSON), views
of seats and spectators show no hidden card, and ``timeout_move`` is legal.
Cego games (Cego to Pagat): payments sum to zero in every round, each participant
but the challenger paying or receiving the same amount; the challenger counts its
Legage whether or not it took a trick; after a Gegensolo nobody plays Piccolo or
Bettel (the Gegensolo player declares Cego); in Zwei Verschiedene the first two
leads are one of each shown suit.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from domain import cego as C

MATCHES = 5000
CHUNKS = 5
MAX_MOVES_PER_ROUND = 400


def cards_in_round(st: dict) -> list[int]:
    """Seed 003, Reparto: every card of the round is in a hand, the blind, the Legage, a trick or a won pile."""
    cards = [c for s in st["active"] for c in st["hands"][s]]
    cards += [] if st["blind_taken"] else st["blind"]
    cards += st["legage"] + [c for _, c in st["trick"]] + [c for w in st["won"] for c in w]
    return sorted(cards)


def check_view_no_leak(st: dict) -> None:
    """Views: a seat sees its own hand only; the blind and others' Legage are never shown before scoring."""
    hidden_blind = set() if st["blind_taken"] else set(st["blind"])
    con = st["contract"]
    for viewer in list(st["active"]) + ["spectator"]:
        v = C.view(st, viewer)
        assert "hands" not in v and "blind" not in v
        visible = set(v.get("hand", []))
        if con is None or con["challenger"] != viewer:
            assert "legage" not in v
        # any card that could be leaked: other hands, the blind, the Legage
        secret = hidden_blind | set(st["legage"]) if not (con and con["challenger"] == viewer) else hidden_blind
        for s in st["active"]:
            if s != viewer:
                secret |= set(st["hands"][s]) - set(st["shown_left"])
        text = json.dumps({k: x for k, x in v.items() if k not in ("last_round", "dealer_draw")})
        public = set(st["shown"]) | {st["shown_discard"]} | visible
        for c in secret - public:
            # cards are ints: look for them only as list items of card fields
            for key in ("hand", "trick", "shown", "shown_in_hand"):
                val = v.get(key)
                if isinstance(val, list):
                    flat = [x for p in val for x in (p if isinstance(p, list) else [p])]
                    if key == "trick":
                        flat = [p[1] for p in val]
                    assert c not in flat, (viewer, key, c)
        assert text


def play_match(index: int, seen: Counter) -> None:
    r = random.Random(7_919 * index + 3)
    n = [3, 4, 5][index % 3]
    opts = {"rounds": r.randint(1, 2), "gut_selbst": r.random() < 0.5,
            "dealer_sits_out_with_four": r.random() < 0.3}
    st0 = C.initial_state([f"bot{i}" for i in range(n)], opts)
    st = st0
    log: list[dict] = []
    deck: list[int] = []
    this_round: dict = {}

    def apply(events):
        nonlocal st, deck, this_round
        for ev in events:
            before = st
            st = C.evolve(st, ev)
            log.append(ev)
            seen[ev["type"]] += 1
            if ev["type"] == "Called" and ev["data"]["call"] == "gegensolo":
                this_round["gegensolo"] = ev["data"]["seat"]
            if ev["type"] == "Played" and not before["trick"] and before["trick_no"] < 2 \
                    and before["contract"]["game"] == "zwei_verschiedene":
                assert ev["data"]["seat"] == before["contract"]["challenger"]
                this_round.setdefault("leads", []).append(C.suit(ev["data"]["card"]))
            if ev["type"] == "RoundDealt":
                this_round = {}
                deck = sorted(C.deck_for(len(st["active"])))
                assert len(deck) == (54 if len(st["active"]) == 4 else 51)
                assert len(st["blind"]) == (10 if len(deck) == 54 else 12)
            if ev["type"] == "RoundScored":
                d = ev["data"]
                assert sum(d["payments"]) == 0 and sum(d["balances"]) == 0
                seen["game-" + d["game"]] += 1
                if "challenger_points" in d:
                    total = 79 if len(before["active"]) == 4 else 78
                    assert d["challenger_points"] + d["defender_points"] == total
                    assert d["challenger_won"] == (d["challenger_points"] >= 40)
                if d["game"] in C.LEVELS:
                    ch = d["challenger"]
                    part = list(before["active"]) + [s for s in [before["sitting_out"]] if s is not None]
                    sign = 1 if d["challenger_won"] else -1
                    assert sum(d["payments"]) == 0 and d["payments"][ch] == sign * d["amount"] * (len(part) - 1)
                    assert all(d["payments"][s] == -sign * d["amount"] for s in part if s != ch)
                    assert d["challenger_points"] == C.count_points(before["won"][ch] + before["legage"])
                    if d["tricks_won"][ch] == 0:
                        seen["legage-without-a-trick"] += 1
                if "gegensolo" in this_round:
                    assert d["game"] not in ("piccolo", "bettel")
                    assert any(a["seat"] == this_round["gegensolo"] and a["call"] == "cego" for a in before["auction"])
                    seen["gegensolo-then-" + d["game"]] += 1
                if d["game"] == "zwei_verschiedene":
                    assert sorted(this_round["leads"]) == sorted(C.suit(c) for c in before["shown"])
                assert json.loads(json.dumps(st)) == st
            elif st["phase"] in ("first_auction", "gegen", "second_auction", "raise", "gut_selbst",
                                 "rauber_choice", "exchange", "play"):
                assert cards_in_round(st) == deck
        if any(e["type"] == "RoundScored" for e in events):
            refold = st0
            for e in log:
                refold = C.evolve(refold, e)
            assert refold == st

    apply(C.decide(st, {"type": "start", "seat": None, "seed": r.getrandbits(63)}))
    moves = 0
    rnd = st["round_no"]
    while C.outcome(st) is None:
        acting = C.to_act(st)
        assert len(acting) == 1
        seat = acting[0]
        legal = C.legal_moves(st, seat)
        assert legal and C.timeout_move(st, seat) in legal
        if index % 50 == 0:
            check_view_no_leak(st)
        m = r.choice(legal)
        if index % 2 and st["phase"] in ("first_auction", "gegen", "second_auction"):
            m = {"type": "call", "call": "pass"}  # every other match heads for the Cego raises
        apply(C.decide(st, {**m, "seat": seat, "seed": r.getrandbits(63)}))
        moves = 0 if st["round_no"] != rnd else moves + 1
        rnd = st["round_no"]
        assert moves < MAX_MOVES_PER_ROUND, "a round did not end"
    out = C.outcome(st)
    assert sum(out["scores"]) == 0 and sorted(out["ranking"]) == list(range(n))
    assert out["rounds_played"] == opts["rounds"]
    seen["matches"] += 1


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_bot_matches(chunk):
    """Seed 003 as a whole: 1,000 random complete matches per chunk (5,000 in all) obey every invariant."""
    seen: Counter = Counter()
    per = MATCHES // CHUNKS
    for i in range(chunk * per, (chunk + 1) * per):
        play_match(i, seen)
    assert seen["matches"] == per
    for t in ("game-solo", "game-ulti", "game-piccolo", "game-bettel", "game-cego", "game-eine",
              "game-rauber", "game-eine_leere", "game-zwei_leere", "game-zwei_verschiedene", "game-pagat", "Exchanged", "TrickTaken", "MatchEnded",
              "legage-without-a-trick", "gegensolo-then-cego"):
        assert seen[t] > 0, t
