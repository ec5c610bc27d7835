"""``onion.hands.evaluate`` under modifiers gives exactly what the evaluator
gave before its search was optimised (a frozen copy in
tests/onion_evaluator_reference.py): the same value, groupings (kinds, keys,
cards, null eights), unused cards, notes, running flush, top kind and Onion
wild count, on seeded random hands in every situation of
bench/onion_evaluator.py, plus hands rich in eights, aces and pictures (the
slow, wild-heavy ones) and hands declaring Great A'Tuin's Elephants.
"""

from __future__ import annotations

import random

import pytest

from bench.onion_evaluator import SITUATIONS, with_shift
from domain.onion import hands as H

from . import onion_evaluator_reference as REF

DECK = list(range(H.DECK_SIZE))
EIGHTS = [c for c in DECK if H.rank_of(c) == 8]
RICH = [c for c in DECK if H.rank_of(c) in (1, 8, 9, 10, 11, 12, 13)]


def random_hands(seed: int, count: int) -> list[tuple[list[int], dict]]:
    rng = random.Random(seed)
    return [
        (hand, with_shift(hand, SITUATIONS[i % len(SITUATIONS)]))
        for i, hand in enumerate(rng.sample(DECK, 10) for _ in range(count))
    ]


def wild_heavy_hands(seed: int, count: int) -> list[tuple[list[int], dict]]:
    """Two to five eights (and often the jack of staves) among high cards."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        eights = rng.sample(EIGHTS, rng.randint(2, 5))
        rest = [c for c in (RICH if i % 2 else DECK) if c not in eights]
        hand = eights + rng.sample(rest, 10 - len(eights))
        out.append((hand, with_shift(hand, SITUATIONS[i % len(SITUATIONS)])))
    return out


def elephant_hands(seed: int, count: int) -> list[tuple[list[int], dict]]:
    """The queen of coins with four nines, tens or (wild) eights declared as the Elephants."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        ctx = dict(SITUATIONS[i % len(SITUATIONS)])
        wild = bool(ctx.get("wild"))
        pool = [c for c in DECK if H.rank_of(c) in (9, 10) or (wild and H.rank_of(c) == 8)]
        eleph = sorted(rng.sample(pool, 4))
        flags, limited = [wild and H.rank_of(c) == 8 for c in eleph], bool(ctx.get("wild_limited"))
        points = H.elephant_points(eleph, flags, limited)
        # the reference predates the rule that a ten is never a picture of the Elephants' Double
        # Onion (seed 002, the note to #7): only the sets where that changes nothing are compared
        if points is None or points != REF.elephant_points(eleph, flags, limited):
            continue
        rest = [c for c in DECK if c != H.ATUIN and c not in eleph]
        hand = [H.ATUIN] + eleph + rng.sample(rest, 5)
        ctx["elephants"] = eleph
        out.append((hand, ctx))
    return out


def normalised(res: dict) -> dict:
    return {**res, "value": list(res["value"])}


CASES = {
    "random": random_hands(20240601, 1500),
    "wild_heavy": wild_heavy_hands(77, 150),
    "elephants": elephant_hands(5, 90),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_evaluate_matches_reference(name):
    mismatches = []
    for hand, ctx in CASES[name]:
        got = H.evaluate(list(hand), dict(ctx))
        want = REF.evaluate(list(hand), dict(ctx))
        if normalised(got) != normalised(want):
            mismatches.append((sorted(hand), ctx, got, want))
    assert not mismatches, f"{len(mismatches)} hand(s) differ; first: {mismatches[0]}"
