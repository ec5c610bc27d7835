"""The Cripple Mr Onion hand evaluator (domain/onion/hands/).

Docstrings cite the groupings note (shared/rules/cripple-mr-onion-groupings.md,
"the note") or the seed 002 text; readings are in docs/rules/onion.md.
"""

from __future__ import annotations

import random

import pytest

from domain.onion import hands as H
from domain.onion.hands import card

SUIT_CYCLE = [(0, 0), (1, 0), (2, 0), (3, 0), (0, 1), (1, 1), (2, 1), (3, 1)]


def mixed(ranks: list[int]) -> list[int]:
    """Cards of these ranks with suits spread so no three share a paired suit."""
    out, used = [], set()
    for i, r in enumerate(ranks):
        for k in range(8):
            s, p = SUIT_CYCLE[(i + k) % 8]
            c = card(r, s, p)
            if c not in used:
                used.add(c)
                out.append(c)
                break
    return out


def kinds(cards: list[int]) -> list[str]:
    return [g["kind"] for g in H.best_arrangement(cards)["groupings"]]


# ------------------------------------------------------------------ cards


def test_deck_is_two_paired_packs():
    """Seed 002 lines 14-18: 104 cards, a French and a Spanish pack, suits paired for flushes."""
    assert len({(H.pack_of(c), H.suit_of(c), H.rank_of(c)) for c in range(H.DECK_SIZE)}) == 104
    assert H.card_name(card(13, 0, 1)) == "K of swords" and H.card_name(card(1, 3, 0)) == "A of diamonds"
    assert H.suit_of(card(5, 2, 0)) == H.suit_of(card(9, 2, 1))  # hearts pair with cups


def test_values_ace_one_or_eleven_tens_and_pictures_ten():
    """Note, Card values: ace 1 or 11, ten and pictures 10."""
    assert [H.value_of(card(r)) for r in range(1, 14)] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
    assert H.classify([card(1), card(10, 1)]) == "two_card_onion"  # ace as 11
    assert H.classify(mixed([1, 10, 10])) == "three_card_onion"  # ace as 1


# --------------------------------------------------------- every grouping


@pytest.mark.parametrize(
    "ranks,kind",
    [
        ([12, 13], "bagel"),
        ([10, 12], "bagel"),
        ([10, 10], "bagel"),
        ([9, 1], "bagel"),
        ([10, 1], "two_card_onion"),
        ([12, 1], "two_card_onion"),
        ([4, 7, 10], "three_card_onion"),
        ([1, 10, 10], "three_card_onion"),
        ([4, 5, 5, 7], "four_card_onion"),
        ([1, 4, 6, 10], "four_card_onion"),
        ([6, 7, 8], "broken_royal"),
        ([2, 3, 4, 6, 6], "five_card_onion"),
        ([7, 7, 7], "royal"),
        ([1, 2, 3, 4, 5, 6], "six_card_onion"),
        ([2, 2, 2, 5, 5, 5], "six_card_onion"),
        ([1, 1, 2, 2, 4, 5, 6], "seven_card_onion"),
        ([2, 3], None),
        ([5, 5, 5, 5, 2], None),
    ],
)
def test_single_groupings(ranks, kind):
    """Note, Groupings 1-12: the examples the note gives for each kind."""
    assert H.classify(mixed(ranks)) == kind


def test_no_eight_card_onion():
    """Note 12: there are no eight-card onions (2-2-2-2-3-3-3-4 adds to 21)."""
    assert H.classify(mixed([2, 2, 2, 2, 3, 3, 3, 4])) is None


def test_flushes():
    """Note 3 and 5: three or more cards adding 16..21, one paired suit (flush) or all
    but one (broken flush); a French and a Spanish suit pair."""
    assert H.classify([card(5, 2, 0), card(6, 2, 1), card(7, 2, 0)]) == "flush"  # 18
    assert H.classify([card(5, 2, 0), card(6, 2, 1), card(7, 1, 0)]) == "broken_flush"
    assert H.classify([card(5, 2, 0), card(6, 1, 1), card(7, 1, 0), card(2, 0)]) is None  # two off-suit
    assert H.classify([card(2, 2), card(3, 2, 1), card(4, 2)]) is None  # 9 is too little
    assert H.classify([card(10, 2), card(9, 2, 1), card(8, 2)]) is None  # 27 too much
    assert H.classify([card(1, 3), card(2, 3), card(3, 3, 1)]) == "flush"  # ace as 11: 16
    # a one-suit set adding to 21 is a three-card onion, but the flush ranks higher
    assert H.classify([card(4, 0), card(7, 0), card(10, 0, 1)]) == "flush"


def test_multiple_bagels_and_onions():
    """Note 1 and 13: several bagels form double/triple/lesser/great bagels; several
    picture+ace pairs the Double/Triple/Lesser/Great Onion; a single one is a two-card onion."""
    assert kinds(mixed([12, 13, 10, 10, 3])) == ["double_bagel"]
    assert kinds(mixed([12, 13, 10, 10, 11, 11, 3])) == ["triple_bagel"]
    assert kinds(mixed([12, 13, 10, 10, 11, 11, 12, 13, 3])) == ["lesser_bagel"]
    assert kinds(mixed([12, 13, 10, 10, 11, 11, 12, 13, 10, 10])) == ["great_bagel"]
    assert kinds(mixed([12, 1, 3])) == ["two_card_onion"]
    assert kinds(mixed([12, 1, 13, 1, 2])) == ["double_onion"]
    assert kinds(mixed([12, 1, 13, 1, 11, 1, 2])) == ["triple_onion"]
    assert kinds(mixed([12, 1, 13, 1, 11, 1, 12, 1, 2])) == ["lesser_onion"]
    assert kinds(mixed([12, 1] * 5)) == ["great_onion"]


def test_a_ten_is_no_picture_in_an_onion():
    """Note 13: a ten cannot stand for a picture card in an Onion."""
    assert kinds(mixed([10, 1, 10, 1])) == ["three_card_onion"]  # A-T-T, the other ace idle
    assert kinds(mixed([13, 1, 5, 2, 12, 1])) == ["double_onion"]


def test_order_of_the_groupings():
    """Note, Groupings lowest to highest, with the multiple bagels below the two-card onion
    (reading) and the Onions at the top."""
    order = [
        "bagel",
        "double_bagel",
        "triple_bagel",
        "lesser_bagel",
        "great_bagel",
        "two_card_onion",
        "broken_flush",
        "three_card_onion",
        "flush",
        "four_card_onion",
        "broken_royal",
        "five_card_onion",
        "royal",
        "six_card_onion",
        "wild_royal",
        "seven_card_onion",
        "double_onion",
        "triple_onion",
        "lesser_onion",
        "great_onion",
    ]
    assert list(H.KINDS) == order
    assert [H.RANK[k] for k in order] == sorted(H.RANK[k] for k in order)
    hands = [
        mixed([12, 13, 2]),
        mixed([12, 13, 10, 10, 2]),
        mixed([10, 1, 2]),
        [card(5, 2, 0), card(6, 2, 1), card(7, 1, 0)],
        mixed([4, 7, 10]),
        [card(5, 2, 0), card(6, 2, 1), card(7, 2, 0)],
        mixed([4, 5, 5, 7]),
        mixed([6, 7, 8]),
        mixed([2, 3, 4, 6, 6]),
        mixed([7, 7, 7]),
        mixed([1, 2, 3, 4, 5, 6]),
        mixed([1, 1, 2, 2, 4, 5, 6]),
        mixed([12, 1, 13, 1]),
    ]
    values = [H.best_arrangement(h)["value"] for h in hands]
    for lo, hi in zip(values, values[1:]):
        assert H.compare(hi, lo) == 1 and H.compare(lo, hi) == -1


def test_worked_example():
    """Note, Showdown comparison (worked example 2-2-3-4-4-6-7-K-K-A): the six-card onion
    2-2-3-4-4-6 is the best grouping.  Reading (docs): K-K-A adds to 21 and is a three-card
    onion (the note's own example A-T-T), which outranks the source's K-A two-card onion,
    so the second grouping is K-K-A and only the seven counts for nothing."""
    hand = mixed([2, 2, 3, 4, 4, 6, 7, 13, 13, 1])
    a = H.best_arrangement(hand)
    assert a["value"] == [H.RANK["six_card_onion"], H.RANK["three_card_onion"]]
    top = a["groupings"][0]
    assert top["kind"] == "six_card_onion" and sorted(H.rank_of(c) for c in top["cards"]) == [2, 2, 3, 4, 4, 6]
    assert [H.rank_of(c) for c in a["unused"]] == [7]
    # the source's arrangement is a legal one, and worse
    assert H.compare(a["value"], [H.RANK["six_card_onion"], H.RANK["two_card_onion"]]) == 1


def _pairs_into(cards: list[int], ok) -> bool:
    """Whether ``cards`` split into pairs that each satisfy ``ok``."""
    if not cards:
        return True
    first, rest = cards[0], cards[1:]
    return any(ok(first, c) and _pairs_into(rest[:i] + rest[i + 1 :], ok) for i, c in enumerate(rest))


def test_every_card_once_and_groupings_valid():
    """Note: each card serves in at most one grouping; every grouping shown is valid: a single
    bagel or two-card onion is one (TA, PA; PP, TP, TT, 9A), several bagels pair off into bagels,
    an Onion pairs off into a picture (never a ten) with an ace; the value lists the groupings' ranks."""

    def bagel(x, y):
        return H.classify([x, y]) == "bagel"

    def pontoon(x, y):
        return (H.is_picture(x) and H.is_ace(y)) or (H.is_picture(y) and H.is_ace(x))

    r = random.Random(7)
    rich = [c for c in range(104) if H.rank_of(c) in (1, 9, 10, 11, 12, 13)]
    seen = set()
    fixed = [mixed([12, 1, 2, 3]), mixed([10, 1, 2]), mixed([9, 1, 10, 12, 2])]  # PA; TA; 9A + TQ
    for i in range(-len(fixed), 300):
        hand = fixed[i] if i < 0 else r.sample(rich if i % 2 else range(104), 10)
        a = H.best_arrangement(hand)
        used = [c for g in a["groupings"] for c in g["cards"]] + a["unused"]
        assert sorted(used) == sorted(hand)
        for g in a["groupings"]:
            seen.add(g["kind"])
            assert g["rank"] == H.RANK[g["kind"]]
            if g["kind"] in ("double_bagel", "triple_bagel", "lesser_bagel", "great_bagel"):
                assert len(g["cards"]) == 2 * H.BAGELS.index(g["rank"]) and _pairs_into(g["cards"], bagel)
            elif g["kind"] in ("double_onion", "triple_onion", "lesser_onion", "great_onion"):
                assert len(g["cards"]) == 2 * H.ONIONS.index(g["rank"]) and _pairs_into(g["cards"], pontoon)
            else:
                assert H.classify(g["cards"]) == g["kind"]
        assert a["value"] == sorted((g["rank"] for g in a["groupings"]), reverse=True)
    assert {"bagel", "double_bagel", "two_card_onion", "double_onion"} <= seen


def test_ties_down_the_line():
    """Note, Showdown comparison: equal highest groupings go to the next grouping, and so on;
    same-size onions tie; a longer list beats its own prefix (reading)."""
    a = H.best_arrangement(mixed([1, 2, 3, 4, 5, 6, 12, 13, 2, 3]))["value"]  # six-card + bagel
    b = H.best_arrangement(mixed([2, 2, 2, 5, 5, 5, 10, 1, 3, 3]))["value"]  # six-card + two-card onion
    assert a[0] == b[0] and H.compare(b, a) == 1
    c = H.best_arrangement([card(7, 0), card(7, 1), card(7, 2), card(12, 3), card(13, 3, 1)])["value"]
    d = H.best_arrangement([card(7, 0, 1), card(7, 1, 1), card(7, 2, 1), card(10, 3), card(11, 2)])["value"]
    assert c == d == [H.RANK["royal"], H.RANK["bagel"]]
    assert H.compare(c, d) == 0  # same groupings, different cards: a tie
    assert H.compare([14, 6], [14]) == 1 and H.compare([], []) == 0


def test_best_arrangement_is_optimal_on_small_hands():
    """Note, Showdown comparison (reading): the best split is the greatest value list; the
    search agrees with brute force over every partition on seven-card hands. The brute force classifies
    each group with the module's own ``classify``: this checks the search, not the list of hands (the
    groupings' own tests above check that against the seed)."""
    r = random.Random(3)

    def brute(cards):
        best = []

        def rec(rest, groups):
            nonlocal best
            if not rest:
                ks = [H.classify(g) for g in groups]
                pont = sum(
                    1 for g in groups if len(g) == 2 and any(H.is_ace(c) for c in g) and any(H.is_picture(c) for c in g)
                )
                bag = sum(1 for k in ks if k == "bagel")
                val = [
                    H.RANK[k]
                    for g, k in zip(groups, ks)
                    if k
                    and k != "bagel"
                    and not (
                        pont >= 2 and len(g) == 2 and any(H.is_ace(c) for c in g) and any(H.is_picture(c) for c in g)
                    )
                ]
                if pont >= 2:
                    val.append(H.ONIONS[pont])
                if bag:
                    val.append(H.BAGELS[bag])
                val.sort(reverse=True)
                best = max(best, val)
                return
            first, others = rest[0], rest[1:]
            rec(others, groups)  # unused
            n = len(others)
            for m in range(1, 1 << n):
                g = [first] + [others[k] for k in range(n) if m >> k & 1]
                if H.classify(g):
                    rec([others[k] for k in range(n) if not m >> k & 1], groups + [g])

        rec(list(cards), [])
        return best

    for _ in range(150):
        hand = r.sample([c for c in range(104) if H.rank_of(c) in (1, 2, 3, 4, 6, 7, 8, 9, 10, 12)], 7)
        assert H.best_arrangement(hand)["value"] == brute(hand)
