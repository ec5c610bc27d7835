"""Random bots play Cripple Mr Onion with all twelve modifiers on (seed 002 #0-#11).

At least 1,000 complete rounds, 2 to 7 players.  Bots pick uniformly among
``legal_moves`` (declarations included); most are "stubborn" (they never fold
when they may stay in) so that most rounds reach the Showdown, where the
modifiers are played.  Checked after every event: money is conserved (seed 002
"Pot"; the extra bets lying in front of the players count, and go into the Pot
when matched or back to their players when not: see
``test_onion_bots.extra_bets_checker``), the 104 cards are conserved (deck + hands + discards; replaced modifier
cards are counted with the discards), no bankroll goes negative, public event
data names only disclosed cards, the state survives JSON.  Checked per move:
``timeout_move`` is legal, a seat not on turn is refused.  Per match: every
round ends within a bounded number of moves and re-folding the log from scratch
gives the same state.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from domain import onion as O
from domain import onion_hands as H
from domain.base import RuleViolation

from .test_onion_bots import extra_bets_checker

ALL_ON = {name: True for name, _ in O.MODIFIERS}
MIN_ROUNDS = 1000
CHUNKS = 4
MAX_MOVES_PER_ROUND = 3000


def public_cards(st: dict) -> set[int]:
    """Cards anyone may see now: disclosed cards of hands still in, and modifier cards left on the table."""
    out: set[int] = set()
    for s in st["in_round"]:
        out |= O._disclosed(st, s)
    for t in st["mods"]["table"]:
        out |= set(t)
    return out


def named_cards(data: dict) -> set[int]:
    out: set[int] = set()
    for k in ("card", "kept", "from", "to"):
        if isinstance(data.get(k), int):
            out.add(data[k])
    for c in data.get("cards") or []:
        out.add(c)
    arrs = list((data.get("hands") or {}).values()) + ([data["arrangement"]] if "arrangement" in data else [])
    for a in arrs:
        out |= set(a["cards"])
    return out


def play_match(index: int, seen: Counter) -> int:
    r = random.Random(104729 * index + 11)
    n = 2 + index % 6 if index % 5 else 7
    opts = {"rounds": r.randint(2, 4), "bankroll": r.choice([10, 30]), "stake": r.choice([1, 5]),
            "max_raise": r.choice([1, 2]), **ALL_ON}
    stubborn = (index // CHUNKS) % 4 != 0
    st0 = O.initial_state([f"b{i}" for i in range(n)], opts)
    total = st0["total"]
    st = st0
    log: list[dict] = []
    moves = 0
    rounds = 0
    extra_bets = extra_bets_checker(total, seen)

    def apply(events):
        nonlocal st, moves, rounds
        for ev in events:
            before, st = st, O.evolve(st, ev)
            log.append(ev)
            seen[ev["type"]] += 1
            extra_bets(before, st, ev)
            assert min(st["bankrolls"]) >= 0
            if st["phase"] not in ("between_rounds", "finished", "created"):
                held = [c for h in st["hands"] for c in h]
                assert len(st["deck"]) + len(held) + st["discards"] == 104
                assert len(set(st["deck"]) | set(held)) == len(st["deck"]) + len(held)
            if ev["type"] in ("Declared", "CardRevealed", "HandShown", "Compared", "ReplacementChosen"):
                assert named_cards(ev["data"]) <= public_cards(st), ev
            if ev["type"] == "Declared":
                seen["declared-" + ev["data"]["modifier"]] += 1
            if ev["type"] in ("Compared", "DuelEnded"):
                seen["how-" + ev["data"]["how"]] += 1
            if ev["type"] == "RoundStarted":
                moves = 0
                if st["mods"]["wild"]:
                    seen["wild-rounds"] += 1
            if ev["type"] == "RoundEnded":
                rounds += 1
                seen["reason-" + ev["data"]["reason"]] += 1
                for res in (ev["data"]["showdown"] or {}).values():
                    for g in res["groupings"]:
                        seen["kind-" + g["kind"]] += 1
                    if res["null_eights"]:
                        seen["null-eights-played"] += 1

    apply(O.decide(st, {"type": "start", "seat": None, "seed": r.getrandbits(63)}))
    while O.outcome(st) is None:
        acting = O.to_act(st)
        assert len(acting) == 1
        seat = acting[0]
        legal = O.legal_moves(st, seat)
        assert legal
        assert O.timeout_move(st, seat) in legal
        with pytest.raises(RuleViolation):
            O.decide(st, {**legal[0], "seat": (seat + 1) % n, "seed": 1})
        pool = [x for x in legal if x["type"] not in ("fold", "pass_dealership", "decline_bid", "concede")]
        declares = [x for x in legal if x["type"] == "declare"]
        if declares and r.random() < 0.5:
            m = r.choice(declares)
        else:
            m = r.choice((pool if stubborn else None) or legal)
        apply(O.decide(st, {**m, "seat": seat, "seed": r.getrandbits(63)}))
        moves += 1
        assert moves < MAX_MOVES_PER_ROUND, "a round did not end"
        if moves % 23 == 0:
            v = O.view(st, seat)
            assert v["hand"] == st["hands"][seat] and "hands" not in v
            assert "offer" not in O.view(st, "spectator")["modifiers"]
    assert json.loads(json.dumps(st)) == st
    refold = st0
    for ev in log:
        refold = O.evolve(refold, ev)
    assert refold == st
    out = O.outcome(st)
    assert sum(out["scores"]) + out["pot_left"] == total
    return rounds


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_rounds_with_all_modifiers(chunk):
    """Seed 002 with #0-#11 all on: complete random rounds keep every invariant."""
    seen: Counter = Counter()
    rounds = 0
    i = chunk
    while rounds < MIN_ROUNDS // CHUNKS:
        rounds += play_match(i, seen)
        i += CHUNKS
    assert seen["reason-showdown"] > rounds // 3
    for t in ("Declared", "ReplacementChosen", "HandShown", "Compared", "DuelEnded", "Ready", "ShowdownOpened",
              "declared-lady", "declared-atuin", "declared-death", "declared-archchancellor", "declared-fool",
              "declared-sender", "null-eights-played", "how-value", "how-conceded", "extra-bets-pooled",
              "extra-bets-returned"):
        assert seen[t] > 0, (t, dict(seen))
