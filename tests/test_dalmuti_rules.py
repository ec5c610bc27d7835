"""Rules of El Gran Dalmuti (domain/dalmuti/), one or more tests per rule.

Each docstring cites the section of the rules text (seed 004) the test checks,
or the reading chosen where the text is silent (see docs/rules/dalmuti.md).
"""

from __future__ import annotations

import copy
import json
import random
import time
from collections import Counter
from itertools import combinations
from pathlib import Path

import jsonschema
import pytest

from domain import dalmuti as D
from domain import table as tables
from domain.base import RuleViolation, deal_commitment, event, shuffled
from service.core import catalogue
from service.core.errors import ProblemError
from service.core.verify import verify_export

NAMES = [f"p{i}" for i in range(20)]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


# ------------------------------------------------------------------ helpers


def new(n: int = 6, **opts) -> dict:
    return D.initial_state(NAMES[:n], opts)


def fold(state: dict, events: list[dict]) -> dict:
    for ev in events:
        state = D.evolve(state, ev)
    return state


def act(state: dict, command: dict) -> tuple[dict, list[dict]]:
    events = D.decide(state, command)
    return fold(state, events), events


def move(state: dict, seat, seed: int = 0, **fields) -> tuple[dict, list[dict]]:
    return act(state, {**fields, "seat": seat, "seed": seed})


def started(n: int = 6, seed: int = 1, **opts) -> tuple[dict, list[dict]]:
    return act(new(n, **opts), {"type": "start", "seat": None, "seed": seed})


def find_start(pred, n: int = 6, limit: int = 5000, **opts):
    for seed in range(limit):
        st, evs = started(n, seed, **opts)
        if pred(st, evs):
            return seed, st, evs
    raise AssertionError("no seed found")


def all_decline(st: dict) -> dict:
    """Every seat still asked about a revolution declines it (rules 2 asks them all after each deal)."""
    if st["phase"] == "revolution" and st["rules"] != "1":
        for s in D.to_act(st):
            st, _ = move(st, s, type="decline_revolution")
    return st


def dealt(
    deal: list[list[int]],
    order=None,
    *,
    jesters_seat=None,
    auto=False,
    hand_no=1,
    asked=False,
    rules: str = D.RULES_VERSION,
    **opts,
) -> dict:
    """A state right after a crafted deal (folded from events).  Under rules 2
    every seat then declines the revolution unless ``asked`` keeps the state in
    the revolution phase; ``rules="1"`` folds the events as a game of rules 1
    (its deal names ``jesters_seat``)."""
    n = len(deal)
    order = list(range(n)) if order is None else list(order)
    st = new(n, **opts)
    stamp = {"rules": rules}
    st = D.evolve(st, {**event("SeatsDrawn", {"draws": [], "order": order}), **stamp})
    st = dict(st, hand_no=hand_no - 1)
    sizes = [len(h) for h in deal]
    data = {
        "hand": hand_no,
        "order": order,
        "dealer": order[-1],
        "deck_size": sum(sizes),
        "sizes": sizes,
        "auto_revolution": auto,
    }
    if rules == "1":
        data["jesters_seat"] = jesters_seat
    st = D.evolve(st, {**event("HandDealt", data, {s: {"hand": sorted(h)} for s, h in enumerate(deal)}), **stamp})
    return st if asked else all_decline(st)


def play_state(deal, order=None, *, trick=None, turn=None, scores=None, **opts) -> dict:
    """A crafted state in the play phase (no revolution, no taxes)."""
    opts.setdefault("hands", 1)
    st = dealt(deal, order, auto=True, **opts)
    st = dict(st, revolution=None)
    if trick is not None:
        st["trick"] = {"seat": trick[0], "cards": trick[1], "rank": D.set_rank(trick[1]), "count": len(trick[1])}
    if turn is not None:
        st["turn"] = turn
    if scores is not None:
        st["scores"] = list(scores)
    return st


def types(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


def rejects(state: dict, command: dict, rule: str, kind: str | None = None) -> RuleViolation:
    with pytest.raises(RuleViolation) as info:
        D.decide(state, command)
    assert info.value.rule == rule, (info.value.rule, info.value.detail)
    assert info.value.detail
    if kind is not None:
        assert info.value.kind == kind
    return info.value


def finish_hand(st: dict, rnd: random.Random, limit: int = 5000) -> dict:
    """Play timeouts/random moves until the hand number changes or the match ends."""
    hand = st["hand_no"]
    for _ in range(limit):
        if D.outcome(st) is not None or st["hand_no"] != hand:
            return st
        seat = D.to_act(st)[0]
        st, _ = move(st, seat, rnd.getrandbits(32), **rnd.choice(D.legal_moves(st, seat)))
    raise AssertionError("hand did not end")


# ------------------------------------------------------------------ module face


def test_module_face():
    """Interface contract (domain/base.py): names, bounds and an options schema with defaults."""
    assert D.GAME_ID == "dalmuti" and D.TITLE and D.RULES_VERSION == "3" and D.FOLDS_RULES == ("1", "2")
    assert (D.MIN_PLAYERS, D.MAX_PLAYERS) == (4, 16)
    props = D.OPTIONS["properties"]
    assert D.OPTIONS["type"] == "object" and D.OPTIONS["additionalProperties"] is False
    assert set(props) == {
        "hands",
        "first_deal_revolution",
        "reduced_deck",
        "scoring",
        "philanthropic_scoring",
        "merchant_exchange",
        "allow_joining",
    }
    for spec in props.values():
        assert {"type", "default", "description"} <= set(spec)
    assert props["hands"]["default"] == 3 and props["hands"]["minimum"] == 1 and props["hands"]["maximum"] == 100
    assert props["scoring"]["default"] is True


def test_player_count_bounds():
    """Seed 004, INTRODUCCIÓN: 4 players at least, more than 8 allowed (we cap at 16)."""
    with pytest.raises(RuleViolation):
        new(3)
    with pytest.raises(RuleViolation):
        D.initial_state(NAMES[:17], {})
    assert new(16)["phase"] == "created"


# ------------------------------------------------------------------ the deck


def test_full_deck_80_cards():
    """Seed 004, EL MAZO: rank n has n copies, plus two jesters: 80 cards."""
    for n in range(4, 17):
        deck = D.deck_for(n, False)
        assert len(deck) == 80
        counts = Counter(deck)
        assert all(counts[r] == r for r in range(1, 13))
        assert counts[13] == 2


def test_reduced_deck_five_players_68():
    """Seed 004, Mazos reducidos: five players remove the 12s (68 cards)."""
    deck = D.deck_for(5, True)
    assert len(deck) == 68 and 12 not in deck and Counter(deck)[13] == 2
    st, evs = started(5, 3, reduced_deck=True)
    assert evs[1]["data"]["deck_size"] == 68 and sum(map(len, st["hands"])) == 68


def test_reduced_deck_four_players_57():
    """Seed 004, Mazos reducidos: four players remove the 12s and 11s (57 cards)."""
    deck = D.deck_for(4, True)
    assert len(deck) == 57 and 12 not in deck and 11 not in deck
    st, evs = started(4, 3, reduced_deck=True)
    assert evs[1]["data"]["deck_size"] == 57 and sum(map(len, st["hands"])) == 57


def test_reduced_deck_no_effect_for_other_counts():
    """Reading (docs): reduced_deck only changes decks for 4 or 5 players."""
    for n in (6, 7, 8, 12):
        assert len(D.deck_for(n, True)) == 80
    st, evs = started(6, 3, reduced_deck=True)
    assert evs[1]["data"]["deck_size"] == 80


# ------------------------------------------------------------------ seating draw


def _order_from_draws(draws):
    """Oracle: rebuild the seating order from the recorded rounds (depth first)."""
    rounds = iter(draws)

    def resolve(group):
        rnd = next(rounds)
        assert sorted(s for s, _ in rnd) == sorted(group)
        by = {}
        for s, c in rnd:
            by.setdefault(c, []).append(s)
        out = []
        for c in sorted(by):
            out += by[c] if len(by[c]) == 1 else resolve(by[c])
        return out

    order = resolve([s for s, _ in draws[0]])
    assert next(rounds, None) is None
    return order


def test_seating_draw_best_card_is_greater_dalmuti():
    """Seed 004, PREPARACIÓN: best drawn card -> Greater Dalmuti, then clockwise by card; worst -> Greater Peon."""
    for seed in range(40):
        st, evs = started(6, seed)
        draws = evs[0]["data"]["draws"]
        assert evs[0]["type"] == "SeatsDrawn"
        assert sorted(s for s, _ in draws[0]) == list(range(6))
        assert st["order"] == evs[0]["data"]["order"] == _order_from_draws(draws)
        first = dict(draws[0])
        cards = [first[s] for s in st["order"]]
        assert cards == sorted(cards)


def test_seating_ties_redraw_among_tied_only():
    """Seed 004, PREPARACIÓN: on a tie the tied players draw again among themselves."""

    def tie(st, evs):
        return len(evs[0]["data"]["draws"]) > 1

    _, st, evs = find_start(tie, 8)
    draws = evs[0]["data"]["draws"]
    first = Counter(c for _, c in draws[0])
    tied_card = min(c for c, k in first.items() if k > 1)
    tied = sorted(s for s, c in draws[0] if c == tied_card)
    assert sorted(s for s, _ in draws[1]) == tied
    second = dict(draws[1])
    pos = [st["order"].index(s) for s in tied]
    # the tied seats occupy consecutive positions, ordered by their new cards
    assert sorted(pos) == list(range(min(pos), min(pos) + len(tied)))
    cards = [second[s] for s in st["order"][min(pos) : min(pos) + len(tied)]]
    assert cards == sorted(cards)


def test_seating_jester_counts_13():
    """Seed 004, PREPARACIÓN: in the draw a jester counts as the worst card (13)."""

    def one_jester(st, evs):
        draws = evs[0]["data"]["draws"]
        return sum(1 for _, c in draws[0] if c == 13) == 1

    _, st, evs = find_start(one_jester, 8)
    jester_seat = next(s for s, c in evs[0]["data"]["draws"][0] if c == 13)
    assert st["order"][-1] == jester_seat


# ------------------------------------------------------------------ dealing


def test_deal_one_at_a_time_from_gd_clockwise():
    """Seed 004, EL REPARTO: the whole deck is dealt one card at a time from the Greater Dalmuti clockwise."""
    for n, seed in ((6, 11), (7, 12), (4, 13), (9, 14)):
        st, evs = started(n, seed)
        order = st["order"]
        deck = shuffled(D.deck_for(n, False), seed)
        expect = {s: [] for s in order}
        for i, c in enumerate(deck):
            expect[order[i % n]].append(c)
        dealt_ev = evs[1]
        assert dealt_ev["type"] == "HandDealt" and dealt_ev["data"]["dealer"] == order[-1]
        for s in order:
            assert dealt_ev["private"][str(s)]["hand"] == sorted(expect[s])


def test_deal_uneven_sizes_extra_cards_to_first_positions():
    """Seed 004, EL REPARTO: some players may get more cards; the extra cards go to the first positions."""
    st, evs = started(6, 5)
    sizes = [len(st["hands"][s]) for s in st["order"]]
    assert sizes == [14, 14, 13, 13, 13, 13]
    st, evs = started(7, 5)
    assert [len(st["hands"][s]) for s in st["order"]] == [12, 12, 12, 11, 11, 11, 11]


def test_deal_event_public_part_has_no_cards():
    """Hidden information: the deal's public data holds only sizes; cards are private per seat."""
    st, evs = started(6, 21)
    d = evs[1]["data"]
    assert sum(d["sizes"]) == d["deck_size"] == 80
    assert set(evs[1]["private"]) == {str(s) for s in range(6)} | {"deal"}  # "deal": the committed deck
    assert set(d) == {"hand", "order", "dealer", "deck_size", "sizes", "auto_revolution", "commitment"}
    assert all(
        isinstance(v, (int, bool, type(None))) for k, v in d.items() if k not in ("order", "sizes", "commitment")
    )
    # the commitment is a SHA-256 over the salted deck, which stays private until the hand is over
    deal = evs[1]["private"]["deal"]
    assert d["commitment"] == deal_commitment(deal["deck"], deal["salt"]) and len(d["commitment"]) == 64
    assert sorted(deal["deck"]) == sorted(c for s in range(6) for c in evs[1]["private"][str(s)]["hand"])


# ------------------------------------------------------------------ taxes


def _taxes_start(n=6, **opts):
    seed, st, evs = find_start(lambda st, evs: all_decline(st)["phase"] == "taxes", n, **opts)
    return seed, all_decline(st), evs


def test_taxes_are_simultaneous_both_dalmutis_pending():
    """Seed 004, IMPUESTOS: the exchanges are simultaneous: GD and LD choose at the same time."""
    _, st, _ = _taxes_start()
    gd, ld = st["order"][:2]
    assert D.to_act(st) == [gd, ld]
    assert D.legal_moves(st, gd) and D.legal_moves(st, ld)
    # LD may choose first; nothing moves until both have chosen
    before = [list(h) for h in st["hands"]]
    st2, evs = move(st, ld, **D.timeout_move(st, ld))
    assert types(evs) == ["TaxChosen"]
    assert st2["phase"] == "taxes" and D.to_act(st2) == [gd]
    assert st2["hands"] == before


def test_taxes_exchange_cards():
    """Seed 004, IMPUESTOS: GP gives its two best cards to GD and gets the two GD chose; LP/LD one card."""
    _, st, _ = _taxes_start()
    order = st["order"]
    gd, ld, lp, gp = order[0], order[1], order[-2], order[-1]
    pre = [list(h) for h in st["hands"]]
    gd_gives = pre[gd][-2:]
    ld_gives = [pre[ld][len(pre[ld]) // 2]]
    st, e1 = move(st, gd, type="give_taxes", cards=gd_gives)
    st, e2 = move(st, ld, type="give_taxes", cards=ld_gives)
    assert types(e1) == ["TaxChosen"] and types(e2) == ["TaxChosen", "TaxesPaid"]
    gp_best, lp_best = pre[gp][:2], pre[lp][:1]
    assert st["hands"][gd] == sorted(D._remove(pre[gd], gd_gives) + gp_best)
    assert st["hands"][gp] == sorted(D._remove(pre[gp], gp_best) + gd_gives)
    assert st["hands"][ld] == sorted(D._remove(pre[ld], ld_gives) + lp_best)
    assert st["hands"][lp] == sorted(D._remove(pre[lp], lp_best) + ld_gives)
    for s in order[2:-2]:
        assert st["hands"][s] == pre[s]
    paid = e2[-1]
    assert paid["private"][str(gd)] == {"with": gp, "gave": gd_gives, "received": gp_best}
    assert "gave" not in json.dumps(paid["data"]) and all(t["count"] in (1, 2) for t in paid["data"]["transfers"])
    assert st["phase"] == "play" and D.to_act(st) == [gd]


def test_taxes_jesters_are_worst_for_peons():
    """Seed 004, IMPUESTOS: for taxes the jesters count as the worst cards; the Peons keep them."""
    hands = [[1, 2, 2, 3], [3, 3, 4], [5, 13, 12], [5, 13, 9, 12], [4, 4, 6], [7, 7, 8]]
    order = [0, 1, 4, 5, 2, 3]  # GP = 3 holds one jester, LP = 2 another
    st = dealt(hands, order)
    assert st["phase"] == "taxes"
    st, _ = move(st, 0, type="give_taxes", cards=[2, 3])
    st, _ = move(st, 1, type="give_taxes", cards=[4])
    assert st["hands"][0] == [1, 2, 5, 9]
    assert st["hands"][3] == [2, 3, 12, 13]
    assert st["hands"][1] == [3, 3, 5]
    assert st["hands"][2] == [4, 12, 13]


def test_tax_moves_are_distinct_multisets():
    """Reading (docs): give_taxes moves are the distinct multisets of ranks of the right size."""
    hands = [[1, 2, 2, 13, 13], [3, 3, 4], [5, 6], [5, 9], [4, 4, 6], [7, 7, 8]]
    st = dealt(hands)
    gd_moves = D.legal_moves(st, 0)
    assert sorted(tuple(m["cards"]) for m in gd_moves) == sorted(set(combinations([1, 2, 2, 13, 13], 2)))
    assert len(gd_moves) == 5
    assert D.legal_moves(st, 1) == [{"type": "give_taxes", "cards": [3]}, {"type": "give_taxes", "cards": [4]}]
    assert D.legal_moves(st, 5) == [] and D.legal_moves(st, 3) == []


def test_tax_violations():
    """Seed 004, IMPUESTOS: GD gives exactly two of its cards, LD one; Peons and Merchants do not choose."""
    hands = [[1, 2, 2, 13, 13], [3, 3, 4], [5, 6], [5, 9], [4, 4, 6], [7, 7, 8]]
    st = dealt(hands)
    rejects(st, {"type": "give_taxes", "seat": 0, "seed": 1, "cards": [1]}, "wrong-tax-count")
    rejects(st, {"type": "give_taxes", "seat": 0, "seed": 1, "cards": [1, 2, 2]}, "wrong-tax-count")
    rejects(st, {"type": "give_taxes", "seat": 0, "seed": 1, "cards": [1, 1]}, "cards-not-in-hand")
    rejects(st, {"type": "give_taxes", "seat": 1, "seed": 1, "cards": [3, 3]}, "wrong-tax-count")
    rejects(st, {"type": "give_taxes", "seat": 5, "seed": 1, "cards": [7, 8]}, "not-your-turn", "turn")
    rejects(st, {"type": "give_taxes", "seat": 2, "seed": 1, "cards": [5]}, "not-your-turn", "turn")
    rejects(st, {"type": "play", "seat": 0, "seed": 1, "cards": [1]}, "wrong-phase", "turn")
    st, _ = move(st, 0, type="give_taxes", cards=[13, 13])
    rejects(st, {"type": "give_taxes", "seat": 0, "seed": 1, "cards": [1, 2]}, "taxes-already-given", "turn")


def test_tax_choice_hidden_until_resolution():
    """Hidden information: the cards GD chose stay private to GD; others only see that it chose."""
    hands = [[1, 2, 2, 13, 13], [3, 3, 4], [5, 6], [5, 9], [4, 4, 6], [7, 7, 8]]
    st = dealt(hands)
    st, evs = move(st, 0, type="give_taxes", cards=[13, 13])
    assert evs[0]["data"] == {"seat": 0, "count": 2} and evs[0]["private"] == {"0": {"cards": [13, 13]}}
    assert D.view(st, 0)["tax"]["chosen"] == [13, 13]
    for viewer in (1, 3, "spectator"):
        v = D.view(st, viewer)
        assert v["pending"]["taxes_chosen"] == [0]
        assert "tax_chosen" not in v and (v.get("tax") or {}).get("chosen") is None
    assert D.view(st, 3)["tax"] is None  # a Merchant
    assert D.view(st, 5)["tax"] == {
        "gives": 2,
        "to": 0,
        "chooses": False,
    }  # seed line 145: a Peon gives its best cards; the service takes them when the taxes resolve
    assert D.view(st, 1)["must"] == {"action": "give_taxes", "count": 1, "to": 4}


# ------------------------------------------------------------------ revolution


def _holder_start(pred=lambda st, holder: True, n: int = 6, **opts):
    """A start whose deal gives both jesters to one seat (``pred(state, holder)`` chooses among them)."""

    def fits(st, evs):
        holder = next((s for s in st["order"] if st["hands"][s].count(13) == 2), None)
        return holder is not None and pred(st, holder)

    seed, st, evs = find_start(fits, n, **opts)
    return st, next(s for s in st["order"] if st["hands"][s].count(13) == 2), evs


def answer(st: dict, answers: dict) -> tuple[dict, list[dict]]:
    """Every seat still asked answers, in ``to_act`` order: declare if ``answers`` says so, else decline."""
    events = []
    for s in D.to_act(st):
        st, evs = move(st, s, 100 + s, type="declare_revolution" if answers.get(s) else "decline_revolution")
        events += evs
    return st, events


def test_revolution_every_seat_asked_after_every_deal():
    """Seed 004, REVOLUCIÓN: "Si al repartir las cartas cualquier jugador recibe los dos Bufones, puede
    declarar una revolución". Reading (docs): a player dealt both jesters "declares or says nothing", so
    after every deal every seat is asked at once, whoever holds the jesters; the deal names nobody."""
    for pred in (
        lambda st, evs: any(h.count(13) == 2 for h in st["hands"]),
        lambda st, evs: not any(h.count(13) == 2 for h in st["hands"]),
    ):
        _, st, evs = find_start(pred, 6)
        assert "jesters_seat" not in evs[1]["data"]
        assert st["phase"] == "revolution" and D.to_act(st) == st["order"]
        for s in st["order"]:
            may = st["hands"][s].count(13) == 2
            assert D.legal_moves(st, s) == ([{"type": "declare_revolution"}] if may else []) + [
                {"type": "decline_revolution"}
            ]
            assert D.view(st, s)["must"] == {
                "action": "revolution",
                "greater": s == st["order"][-1],
                "may_declare": may,
            }
            assert D.timeout_move(st, s) == {"type": "decline_revolution"}
        assert D.view(st, "spectator")["pending"]["revolution"] == st["order"]
    # the next hand's deal asks everybody again
    st = finish_hand(dict(all_decline(st), hands_total=2), random.Random(5))
    assert st["hand_no"] == 2 and st["phase"] == "revolution" and D.to_act(st) == st["order"]


def test_revolution_declared_by_holder_cancels_taxes():
    """Seed 004, REVOLUCIÓN: "no se pagarán impuestos en esa mano": a declared revolution skips the taxes;
    it is made public once every seat has answered."""
    st, holder, _ = _holder_start(lambda st, h: h != st["order"][-1])
    order = list(st["order"])
    hands = [list(h) for h in st["hands"]]
    others = [s for s in order if s != holder]
    st2, evs = move(st, holder, 1, type="declare_revolution")
    assert types(evs) == ["RevolutionAnswered"] and evs[0]["data"] == {"seat": holder}
    assert evs[0]["private"][str(holder)]["declare"] is True
    assert st2["phase"] == "revolution" and D.to_act(st2) == others
    assert st2["revolution"] is None
    rejects(st2, {"type": "decline_revolution", "seat": holder, "seed": 2}, "revolution-already-answered", "turn")
    st3, evs = answer(st2, {})
    assert types(evs) == ["RevolutionAnswered"] * (len(order) - 1) + ["RevolutionDeclared"]
    assert evs[-1]["data"] == {"seat": holder, "greater": False, "order": order}
    assert st3["phase"] == "play" and st3["order"] == order and st3["hands"] == hands
    assert st3["revolution"] == {"kind": "revolution", "seat": holder}
    assert D.to_act(st3) == [order[0]]
    # declining: the taxes as usual
    st4, evs = answer(st, {})
    assert types(evs)[-1] == "RevolutionDeclined" and evs[-1]["data"] == {}
    assert st4["phase"] == "taxes" and st4["revolution"] is None


def test_only_the_holder_of_both_jesters_may_declare():
    """Seed 004, REVOLUCIÓN: only a player who "recibe los dos Bufones" may declare; the others can only decline."""
    st, holder, _ = _holder_start()
    for s in st["order"]:
        if s != holder:
            e = rejects(st, {"type": "declare_revolution", "seat": s, "seed": 1}, "no-revolution", "illegal")
            assert "both jesters" in e.detail
    rejects(st, {"type": "decline_revolution", "seat": 99, "seed": 1}, "unknown-seat", "invalid")
    rejects(st, {"type": "declare_revolution", "seat": holder}, "invalid-field", "invalid")  # needs a seed


def test_holder_declining_looks_like_everybody_else():
    """Reading (docs), REVOLUCIÓN: a holder who declines "says nothing": its answer is the same public
    event as any other seat's; the choice is private (salted) until every seat has answered."""
    st, holder, _ = _holder_start()
    other = next(s for s in st["order"] if s != holder)
    _, mine = move(st, holder, 9, type="decline_revolution")
    _, theirs = move(st, other, 9, type="decline_revolution")
    assert [e["type"] for e in mine] == [e["type"] for e in theirs] == ["RevolutionAnswered"]
    assert mine[0]["data"] == {"seat": holder} and theirs[0]["data"] == {"seat": other}
    assert set(mine[0]["private"]) == {str(holder)} and set(theirs[0]["private"]) == {str(other)}
    a, b = mine[0]["private"][str(holder)], theirs[0]["private"][str(other)]
    assert set(a) == set(b) == {"declare", "salt"} and a["declare"] is b["declare"] is False
    assert len(a["salt"]) == 32 and a["salt"] != b["salt"]
    # a holder who declares looks the same until the phase ends
    declared, evs = move(st, holder, 9, type="declare_revolution")
    assert evs[0]["data"] == {"seat": holder} and set(evs[0]["private"][str(holder)]) == {"declare", "salt"}
    for viewer in [s for s in st["order"] if s != holder] + ["spectator"]:
        v_declared = D.view(declared, viewer)
        v_declined = D.view(move(st, holder, 9, type="decline_revolution")[0], viewer)
        assert v_declared == v_declined
    assert D.view(declared, holder)["revolution_answer"] is True
    assert D.view(declared, "reviewer")["revolution_answers"] == {str(holder): True}


def test_greater_revolution_reverses_positions():
    """Seed 004, REVOLUCIÓN: if the Greater Peon declares, positions reverse (GP -> GD, LP -> LD, ...)."""
    st, gp, _ = _holder_start(lambda st, h: h == st["order"][-1])
    order = list(st["order"])
    assert D.view(st, gp)["must"] == {"action": "revolution", "greater": True, "may_declare": True}
    st, evs = answer(st, {gp: True})
    assert evs[-1]["type"] == "RevolutionDeclared" and evs[-1]["data"]["greater"] is True
    assert st["order"] == order[::-1]
    assert st["revolution"] == {"kind": "greater", "seat": gp}
    v = D.view(st, "spectator")
    assert v["roles"][gp] == "greater_dalmuti" and v["roles"][order[-2]] == "lesser_dalmuti"
    assert v["roles"][order[0]] == "greater_peon"
    assert st["phase"] == "play" and D.to_act(st) == [gp]


def test_first_deal_revolution_skips_taxes():
    """Seed 004, Revolución del primer reparto: "se declara automáticamente una revolución, así que no se
    pagan impuestos"; every seat is still asked (reading: so that nobody learns where the jesters are)."""
    _, st, evs = find_start(
        lambda st, evs: not any(h.count(13) == 2 for h in st["hands"]), 6, first_deal_revolution=True
    )
    assert evs[1]["data"]["auto_revolution"] is True
    assert st["phase"] == "revolution" and D.to_act(st) == st["order"]
    assert st["revolution"] == {"kind": "first_deal", "seat": None}
    st, evs = answer(st, {})
    assert types(evs)[-1] == "RevolutionDeclined"
    assert st["phase"] == "play" and st["revolution"] == {"kind": "first_deal", "seat": None}
    # a non-GP holding both jesters has nothing left to declare
    st, holder, _ = _holder_start(lambda st, h: h != st["order"][-1], first_deal_revolution=True)
    assert D.legal_moves(st, holder) == [{"type": "decline_revolution"}]
    e = rejects(st, {"type": "declare_revolution", "seat": holder, "seed": 1}, "no-revolution")
    assert "already a revolution" in e.detail
    st, _ = answer(st, {})
    assert st["phase"] == "play" and st["revolution"]["kind"] == "first_deal"
    # the second hand pays taxes again
    st = finish_hand(dict(st, hands_total=2), random.Random(3))
    assert st["hand_no"] == 2
    assert st["revolution"] is None
    assert all_decline(st)["phase"] == "taxes"


def test_first_deal_revolution_gp_may_still_declare_greater():
    """Seed 004, Revolución del primer reparto: "Si el Gran Peón ha recibido los dos Bufones ... puede
    igualmente declarar una gran revolución"."""
    st, gp, _ = _holder_start(lambda st, h: h == st["order"][-1], first_deal_revolution=True)
    order = list(st["order"])
    assert st["phase"] == "revolution" and D.to_act(st) == order
    assert D.legal_moves(st, gp) == [{"type": "declare_revolution"}, {"type": "decline_revolution"}]
    declined, _ = answer(st, {})
    assert declined["phase"] == "play" and declined["order"] == order
    assert declined["revolution"]["kind"] == "first_deal"
    declared, _ = answer(st, {gp: True})
    assert declared["phase"] == "play" and declared["order"] == order[::-1]
    assert declared["revolution"]["kind"] == "greater"


def _v1_log(name: str) -> list[dict]:
    path = FIXTURES / "dalmuti_rules_v1" / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()[1:]]


def _v1_state_at_revolution(name: str) -> tuple[dict, list[dict]]:
    """A game of rules 1 folded up to its first revolution decision (a game in progress when rules 2 came)."""
    log = _v1_log(name)
    st = None
    for i, env in enumerate(log):
        st = D.initial_state(env["data"]["players"], env["data"]["options"]) if st is None else D.evolve(st, env)
        if st["phase"] == "revolution":
            return st, log[i + 1 :]
    raise AssertionError("no revolution in this log")


def test_rules_1_games_keep_the_holders_decision():
    """Old logs: a game that started under rules 1 keeps them: the holder alone decides, as it was played."""
    st, rest = _v1_state_at_revolution("revolution_declared")
    assert st["rules"] == "1" and D.view(st, "spectator")["rules_version"] == "1"
    holder = st["jesters_seat"]
    assert D.to_act(st) == [holder] and st["hands"][holder].count(13) == 2
    assert D.legal_moves(st, holder) == [{"type": "declare_revolution"}, {"type": "decline_revolution"}]
    assert D.view(st, holder)["must"] == {"action": "revolution", "greater": holder == st["order"][-1]}
    events = D.decide(st, {"type": "declare_revolution", "seat": holder, "seed": 1})
    assert [(e["type"], e["data"]) for e in events] == [(rest[0]["type"], rest[0]["data"])]
    st2 = fold(st, events)
    assert st2["phase"] == "play" and st2["revolution"] == {"kind": "revolution", "seat": holder}
    st, _ = _v1_state_at_revolution("revolution_declined")
    assert D.decide(st, {"type": "decline_revolution", "seat": st["jesters_seat"], "seed": 1}) == [
        event("RevolutionDeclined", {"seat": st["jesters_seat"]})
    ]
    # the next deal of a rules-1 game still names the holder
    st = finish_hand(
        dict(
            fold(st, D.decide(st, {"type": "decline_revolution", "seat": st["jesters_seat"], "seed": 1})), hands_total=2
        ),
        random.Random(2),
    )
    assert st["hand_no"] == 2 and st["rules"] == "1"


def test_rules_1_crafted_deal_still_folds():
    """Old logs: a rules-1 deal naming ``jesters_seat`` still opens the decision of that seat alone."""
    rev = dealt([[1, 13, 13], [3, 3, 4], [5, 6], [5, 9]], jesters_seat=0, rules="1")
    assert rev["phase"] == "revolution" and D.to_act(rev) == [0]
    assert D.timeout_move(rev, 0) == {"type": "decline_revolution"}
    assert D.view(rev, "spectator")["pending"]["revolution"] == [0]
    none = dealt([[1, 12, 13], [3, 3, 4], [5, 6], [5, 9, 13]], rules="1")
    assert none["phase"] == "taxes"


# ------------------------------------------------------------------ play


FOUR = [[2, 2, 5, 9, 13], [3, 3, 6, 10], [4, 4, 7, 11], [1, 8, 12, 12]]


def test_gd_leads_first_trick_any_set():
    """Seed 004, LA PARTIDA: the Greater Dalmuti leads the first trick with any set of one rank."""
    st = play_state(FOUR)
    assert D.to_act(st) == [0]
    moves = D.legal_moves(st, 0)
    cards = [m["cards"] for m in moves]
    assert [2] in cards and [2, 2] in cards and [2, 2, 13] in cards and [9, 13] in cards and [13] in cards
    assert {"type": "pass"} not in moves
    st2, evs = move(st, 0, type="play", cards=[2, 2, 13])
    assert evs[0]["data"] == {
        "seat": 0,
        "cards": [2, 2, 13],
        "rank": 2,
        "count": 3,
        "out": False,
        "points": 0,
        "next": 1,
    }
    assert st2["trick"] == {"seat": 0, "cards": [2, 2, 13], "rank": 2, "count": 3}


def test_follow_same_count_better_rank():
    """Seed 004, LA PARTIDA: a follower plays the same number of cards of a better (lower) rank, or passes."""
    st = play_state(FOUR, trick=(0, [9, 9]), turn=1)
    rejects(st, {"type": "play", "seat": 1, "seed": 0, "cards": [3]}, "must-match-count")
    rejects(st, {"type": "play", "seat": 1, "seed": 0, "cards": [10, 10]}, "cards-not-in-hand")
    st_eq = play_state([[2, 9, 9], [3, 9, 9, 10], [4, 4], [1, 8]], trick=(0, [9, 9]), turn=1)
    rejects(st_eq, {"type": "play", "seat": 1, "seed": 0, "cards": [9, 9]}, "must-beat-rank")
    st2, _ = move(st, 1, type="play", cards=[3, 3])
    assert st2["trick"]["rank"] == 3 and D.to_act(st2) == [2]
    assert D.legal_moves(st2, 2) == [{"type": "pass"}]
    assert D.legal_moves(st, 1) == [{"type": "play", "cards": [3, 3]}, {"type": "pass"}]


def test_pass_does_not_bar_later_play():
    """Seed 004, LA PARTIDA: a player who passed may still play later in the same trick."""
    hands = [[10, 7, 1], [9, 5, 6], [8, 11], [12, 12]]
    st = play_state(hands)
    st, _ = move(st, 0, type="play", cards=[10])
    st, _ = move(st, 1, type="pass")
    st, _ = move(st, 2, type="play", cards=[8])
    st, _ = move(st, 3, type="pass")
    st, _ = move(st, 0, type="pass")
    assert D.to_act(st) == [1] and st["trick"]["seat"] == 2
    st, evs = move(st, 1, type="play", cards=[6])
    assert types(evs) == ["Played"] and st["trick"] == {"seat": 1, "cards": [6], "rank": 6, "count": 1}


def test_trick_ends_when_all_others_pass_and_last_player_leads():
    """Seed 004, LA PARTIDA: when all others pass in a row the trick ends; the last player to play leads next."""
    st = play_state(FOUR)
    st, _ = move(st, 0, type="play", cards=[9])
    st, _ = move(st, 1, type="play", cards=[6])
    st, _ = move(st, 2, type="pass")
    st, _ = move(st, 3, type="pass")
    assert st["trick"] is not None and st["passes"] == 2
    st, evs = move(st, 0, type="pass")
    assert types(evs) == ["Passed", "TrickEnded"]
    assert evs[1]["data"] == {"winner": 1, "leader": 1}
    assert st["trick"] is None and st["passes"] == 0 and D.to_act(st) == [1]
    rejects(st, {"type": "pass", "seat": 1, "seed": 0}, "cannot-pass-on-lead")


def test_lead_passes_clockwise_when_last_player_went_out():
    """Seed 004, SALIR: if the player who went out wins the trick, the lead passes clockwise to the
    next player holding cards."""
    hands = [[5, 6], [3], [4, 9], [7, 8]]
    st = play_state(hands, order=[2, 1, 3, 0])  # clockwise: 2, 1, 3, 0
    st, _ = move(st, 2, type="play", cards=[9])
    st, evs = move(st, 1, type="play", cards=[3])
    assert evs[0]["data"]["out"] is True and evs[0]["data"]["next"] == 3
    assert st["out_order"] == [1]
    st, _ = move(st, 3, type="pass")
    st, _ = move(st, 0, type="pass")
    assert D.to_act(st) == [2]
    st, evs = move(st, 2, type="pass")  # the third remaining player passes: trick over
    assert types(evs) == ["Passed", "TrickEnded"] and evs[1]["data"] == {"winner": 1, "leader": 3}
    assert D.to_act(st) == [3]


def test_players_out_are_skipped():
    """Seed 004, SALIR: once out a player takes no more turns; play goes on clockwise among the others."""
    hands = [[5], [3, 4], [6, 9], [7, 8]]
    st = play_state(hands)
    st, _ = move(st, 0, type="play", cards=[5])
    assert st["out_order"] == [0]
    st, _ = move(st, 1, type="play", cards=[4])
    st, _ = move(st, 2, type="pass")
    st, evs = move(st, 3, type="pass")
    assert types(evs) == ["Passed", "TrickEnded"] and D.to_act(st) == [1]
    st, _ = move(st, 1, type="play", cards=[3])  # seat 1 goes out; next is 2 (0 is skipped)
    st, _ = move(st, 2, type="pass")
    st, evs = move(st, 3, type="pass")
    assert evs[-1]["data"] == {"winner": 1, "leader": 2}


def test_jesters_alone_are_rank_13():
    """Seed 004, LOS BUFONES: one jester (or two jesters) played alone is rank 13, worse than a 12."""
    hands = [[13, 13, 2], [12, 12, 3], [5, 6], [7, 8]]
    st = play_state(hands)
    st1, evs = move(st, 0, type="play", cards=[13])
    assert evs[0]["data"]["rank"] == 13
    assert {"type": "play", "cards": [12]} in D.legal_moves(st1, 1)
    st2, evs = move(st, 0, type="play", cards=[13, 13])
    assert st2["trick"] == {"seat": 0, "cards": [13, 13], "rank": 13, "count": 2}
    st3, _ = move(st2, 1, type="play", cards=[12, 12])
    assert st3["trick"]["rank"] == 12
    # a lone jester never beats anything
    st4 = play_state(hands, trick=(1, [12]), turn=0)
    rejects(st4, {"type": "play", "seat": 0, "seed": 0, "cards": [13]}, "must-beat-rank")


def test_jesters_with_other_cards_take_their_rank():
    """Seed 004, LOS BUFONES: jesters played with other cards take their rank (two 8s + a jester = three 8s)."""
    hands = [[8, 8, 13], [9, 9, 9], [5, 6], [7, 7, 13]]
    st = play_state(hands, trick=(1, [9, 9, 9]), turn=0, order=[1, 0, 2, 3])
    st, evs = move(st, 0, type="play", cards=[8, 8, 13])
    assert evs[0]["data"]["rank"] == 8 and evs[0]["data"]["count"] == 3
    assert D.legal_moves(st, 2) == [{"type": "pass"}]
    st, _ = move(st, 2, type="pass")
    assert {"type": "play", "cards": [7, 7, 13]} in D.legal_moves(st, 3)
    rejects(play_state(hands), {"type": "play", "seat": 0, "seed": 0, "cards": [8, 9]}, "cards-not-in-hand")
    rejects(
        play_state([[8, 9, 13], [9], [5], [7]]), {"type": "play", "seat": 0, "seed": 0, "cards": [8, 9]}, "mixed-ranks"
    )
    rejects(
        play_state([[8, 9, 13], [9], [5], [7]]),
        {"type": "play", "seat": 0, "seed": 0, "cards": [8, 9, 13]},
        "mixed-ranks",
    )


# ------------------------------------------------------------------ going out, scoring


def _play_out(st, plays):
    for seat, cards in plays:
        if cards is None:
            st, _ = move(st, seat, 7, type="pass")
        else:
            st, _ = move(st, seat, 7, type="play", cards=cards)
    return st


def test_going_out_sets_new_order_and_next_deal():
    """Seed 004, SALIR: first out becomes GD, next sits to its left, ...; the last with cards is the GP."""
    hands = [[5, 10], [3], [4, 12], [6, 7, 8]]
    st = play_state(hands, hands=2)
    st = _play_out(st, [(0, [10]), (1, [3]), (2, None), (3, None), (0, None)])
    assert st["out_order"] == [1] and D.to_act(st) == [2]
    st = _play_out(st, [(2, [12]), (3, [8]), (0, None), (2, [4]), (3, None), (0, None)])
    assert st["out_order"] == [1, 2] and D.to_act(st) == [3]
    st = _play_out(st, [(3, [7])])
    events = D.decide(st, {"type": "play", "seat": 0, "seed": 99, "cards": [5]})
    assert types(events) == ["Played", "HandEnded", "HandDealt"]
    ended = events[1]["data"]
    assert ended["out_order"] == [1, 2, 0, 3] and ended["order"] == [1, 2, 0, 3]
    assert ended["points"] == [1, 3, 2, 0]
    st = fold(st, events)
    assert st["order"] == [1, 2, 0, 3] and st["hand_no"] == 2
    roles = D.view(st, "spectator")["roles"]
    assert roles == ["lesser_peon", "greater_dalmuti", "lesser_dalmuti", "greater_peon"]
    # the next hand is dealt from the new GD with the same command's seed
    deck = shuffled(D.deck_for(4, False), 99)
    assert st["hands"][1] == sorted(deck[0::4])


def test_hand_ends_when_one_player_holds_cards():
    """Seed 004, SALIR / reading: the hand ends as soon as a single player still holds cards (the Greater Peon)."""
    hands = [[7], [6], [5], [8, 9, 10]]
    st = play_state(hands)
    st = _play_out(st, [(0, [7]), (1, [6]), (2, [5])])
    assert st["phase"] == "finished"
    assert st["last_hand"]["out_order"] == [0, 1, 2, 3]
    assert st["hands"][3] == [8, 9, 10]


def test_scoring_points_per_opponent_still_in():
    """Seed 004, Puntuación: going out scores 1 point per opponent still holding cards; the last gets 0."""
    hands = [[7], [6], [5], [8, 9, 10], [11, 12], [2, 4]]
    st = play_state(hands)
    st, evs = move(st, 0, type="play", cards=[7])
    assert evs[0]["data"]["points"] == 5 and st["scores"][0] == 5
    st = _play_out(st, [(1, [6]), (2, [5]), (3, None), (4, None), (5, None)])
    assert st["scores"] == [5, 4, 3, 0, 0, 0] and D.to_act(st) == [3]
    st = _play_out(st, [(3, [10]), (4, None), (5, [4]), (3, None), (4, None), (5, [2])])
    assert st["scores"] == [5, 4, 3, 0, 0, 2]
    st = _play_out(st, [(3, None), (4, None), (3, [9]), (4, None), (3, [8])])
    assert st["phase"] == "finished"
    assert st["scores"] == [5, 4, 3, 1, 0, 2]
    assert st["last_hand"]["out_order"] == [0, 1, 2, 5, 3, 4]
    assert st["last_hand"]["points"] == [5, 4, 3, 1, 0, 2]


def test_match_winner_most_points():
    """Seed 004, Puntuación: the player with the most points after the last hand wins."""
    hands = [[7], [6], [5], [8, 9]]
    st = play_state(hands, scores=[0, 0, 10, 0])
    st = _play_out(st, [(0, [7]), (1, [6]), (2, [5])])
    out = D.outcome(st)
    assert out["scores"] == [3, 2, 11, 0]
    assert out["ranking"] == [2, 0, 1, 3] and out["winners"] == [2]
    assert out["hands_played"] == 1 and out["last_order"] == [0, 1, 2, 3]


def test_points_tie_broken_by_last_hand_order():
    """Reading (docs): equal points are ranked by the last hand's order of going out."""
    st = play_state([[7], [6], [5], [8, 9]], scores=[0, 1, 0, 0])
    st = _play_out(st, [(0, [7]), (1, [6]), (2, [5])])
    assert D.outcome(st)["scores"] == [3, 3, 1, 0]
    assert D.outcome(st)["ranking"] == [0, 1, 2, 3] and D.outcome(st)["winners"] == [0]
    # and where the last hand's order is not the seats' order: seat 3 went out before seat 2
    st = play_state([[7], [6], [8, 9], [5]], scores=[0, 0, 2, 1])
    st = _play_out(st, [(0, [7]), (1, [6]), (2, None), (3, [5])])
    assert st["last_hand"]["out_order"] == [0, 1, 3, 2]
    assert D.outcome(st)["scores"] == [3, 2, 2, 2]
    assert D.outcome(st)["ranking"] == [0, 1, 3, 2]


def test_no_scoring_ranks_by_last_hand():
    """Seed 004, GANADORES Y PERDEDORES: without scoring, the final hand's order ranks the match
    (points still reported)."""
    st = play_state([[7], [6], [5], [8, 9]], scores=[0, 0, 10, 0], scoring=False)
    st = _play_out(st, [(0, [7]), (1, [6]), (2, [5])])
    out = D.outcome(st)
    assert out["ranking"] == [0, 1, 2, 3] and out["winners"] == [0]
    assert out["scores"] == [3, 2, 11, 0]


def test_philanthropic_scoring_bonus():
    """Seed 004, Puntuación filantrópica: GD +1 if its GP climbed, LD +1 if its LP climbed."""
    hands = [[9, 10], [8, 11], [5], [4]]  # order 0 GD, 1 LD, 2 LP, 3 GP
    st = play_state(hands, philanthropic_scoring=True)
    st = _play_out(st, [(0, [10]), (1, [8]), (2, [5]), (3, [4]), (0, None), (1, None), (0, [9])])
    ended = st["last_hand"]
    assert ended["out_order"] == [2, 3, 0, 1]
    assert ended["bonus"] == [1, 1, 0, 0] and ended["points"] == [2, 1, 3, 2]
    assert st["scores"] == [1 + 1, 0 + 1, 3, 2]


def test_philanthropic_no_bonus_when_peons_stay():
    """Seed 004, Puntuación filantrópica: no bonus when the Peons did not climb; off without the option."""
    hands = [[7], [6], [5], [8, 9]]
    st = play_state(hands, philanthropic_scoring=True)
    st = _play_out(st, [(0, [7]), (1, [6]), (2, [5])])
    assert st["last_hand"]["bonus"] == [0, 0, 0, 0]
    hands = [[9, 10], [8, 11], [5], [4]]
    st = play_state(hands)
    st = _play_out(st, [(0, [10]), (1, [8]), (2, [5]), (3, [4]), (0, None), (1, None), (0, [9])])
    assert st["last_hand"]["bonus"] == [0, 0, 0, 0] and st["scores"] == [1, 0, 3, 2]


def test_philanthropic_lp_climbing_only():
    """Seed 004, Puntuación filantrópica: the LD's bonus depends on its LP only."""
    hands = [[1], [5, 9], [6, 10], [2, 12], [7, 8, 11]]  # 0 GD, 1 LD, 2 M, 3 LP, 4 GP
    st = play_state(hands, philanthropic_scoring=True)
    st = _play_out(
        st,
        [
            (0, [1]),
            (1, None),
            (2, None),
            (3, None),
            (4, None),
            (1, [9]),
            (2, None),
            (3, [2]),
            (4, None),
            (1, None),
            (2, None),
            (3, [12]),
            (4, [11]),
            (1, [5]),
            (2, None),
            (4, None),
            (2, [10]),
            (4, [8]),
            (2, [6]),
        ],
    )
    assert st["phase"] == "finished"
    assert st["last_hand"]["out_order"] == [0, 3, 1, 2, 4]
    assert st["last_hand"]["bonus"] == [0, 1, 0, 0, 0]


def test_philanthropic_scoring_needs_scoring():
    """Seed 004, Puntuación filantrópica: "Además de utilizar las reglas de puntuación anteriores": an
    addition to scoring, so the options' schema refuses it with scoring off (it does not turn scoring on)."""
    validator = jsonschema.validators.validator_for(D.OPTIONS)(D.OPTIONS)
    bad = {"scoring": False, "philanthropic_scoring": True}
    errors = list(validator.iter_errors(bad))
    assert errors and all(list(e.absolute_path) == ["philanthropic_scoring"] for e in errors)
    for good in (
        {"philanthropic_scoring": True},
        {"scoring": True, "philanthropic_scoring": True},
        {"scoring": False},
        {"scoring": False, "philanthropic_scoring": False},
        {},
    ):
        assert not list(validator.iter_errors(good)), good
    with pytest.raises(ProblemError) as info:
        catalogue.validate_options("dalmuti", bad)
    assert info.value.status == 422 and info.value.kind == "invalid-options"
    assert "philanthropic_scoring" in info.value.detail and "scoring" in info.value.detail
    assert catalogue.validate_options("dalmuti", {"philanthropic_scoring": True})["scoring"] is True
    desc = D.OPTIONS["properties"]["philanthropic_scoring"]["description"]
    assert "addition to scoring" in desc and "Refused together with scoring false" in desc
    assert "philanthropic_scoring needs it on" in D.OPTIONS["properties"]["scoring"]["description"]


# ------------------------------------------------------------------ old logs


def _fixture_names() -> list[str]:
    return sorted(p.stem for p in (FIXTURES / "dalmuti_rules_v1").glob("*.jsonl"))


def _recorded_move(env: dict, seat: int) -> dict:
    """The move a seat made, read back from the first event it caused."""
    t, d = env["type"], env["data"]
    return {
        "Played": lambda: {"type": "play", "cards": d["cards"]},
        "Passed": lambda: {"type": "pass"},
        "TaxChosen": lambda: {"type": "give_taxes", "cards": env["private"][str(seat)]["cards"]},
        "RevolutionDeclared": lambda: {"type": "declare_revolution"},
        "RevolutionDeclined": lambda: {"type": "decline_revolution"},
        "MerchantsExchanged": lambda: {"type": "merchant_exchange", "with": d["with"]},
        "ExchangeDeclined": lambda: {"type": "decline_exchange"},
        "NewcomerPlaced": lambda: {"type": "place_newcomer", "newcomer": d["newcomer"], "slot": d["slot"]},
    }[t]()


def _replay(envs: list[dict]) -> tuple[dict, int]:
    """Fold a log, deciding every seat's move again on the state before it: the move must be legal for a
    seat to act, and the events decided must be the ones recorded (those drawn from the unrecorded seed,
    a deal's or an exchange's, by type only)."""
    table, i, replayed = None, 0, 0
    while i < len(envs):
        env = envs[i]
        if not env["actor"].startswith("seat:"):
            table = tables.evolve(table, env)
            i += 1
            continue
        seat = int(env["actor"][5:])
        state = table["state"]
        mv = _recorded_move(env, seat)
        assert seat in D.to_act(state) and mv in D.legal_moves(state, seat), (env["version"], mv)
        decided = D.decide(state, {**mv, "seat": seat, "seed": 0})
        recorded = envs[i : i + len(decided)]
        assert [e["type"] for e in decided] == [e["type"] for e in recorded], env["version"]
        for mine, theirs in zip(decided, recorded):
            if mine["type"] not in ("HandDealt", "MerchantsExchanged"):
                assert (mine["data"], mine.get("private")) == (theirs["data"], theirs.get("private")), theirs["version"]
            table = tables.evolve(table, theirs)
        i += len(decided)
        replayed += 1
    return table, replayed


@pytest.mark.parametrize("name", _fixture_names())
def test_rules_1_logs_still_fold_to_their_outcome(name):
    """Old logs: complete games recorded under rules 1 (exports of the service) verify, fold to the
    outcome they recorded, and every recorded move is still the one rules 1 decide (the holder alone
    answers the revolution question)."""
    lines = (FIXTURES / "dalmuti_rules_v1" / f"{name}.jsonl").read_bytes().splitlines()
    header = json.loads(lines[0])
    assert header["rules_version"] == "1" and header["outcome"] is not None
    report = verify_export(lines)
    assert report["ok"], report["problems"]
    table, replayed = _replay(report["events"])
    assert replayed > 100
    assert table["rules"] == "1" and table["state"]["rules"] == "1"
    assert tables.outcome(table) == header["outcome"]
    assert D.outcome(table["state"]) == header["outcome"]
    assert table["version"] == header["version"] and table["hash"] == header["head_hash"]


def test_rules_1_fixtures_cover_the_changed_rules():
    """Old logs: the recorded rules-1 games include a declared, a greater and a declined revolution, the
    first deal's revolution, and philanthropic scoring with scoring off (no longer accepted for new games)."""
    seen = set()
    for name in _fixture_names():
        log = _v1_log(name)
        options = log[0]["data"]["options"]
        for env in log:
            if env["type"] == "HandDealt" and env["data"]["jesters_seat"] is not None:
                seen.add("named-holder")
            if env["type"] == "RevolutionDeclared":
                seen.add("greater" if env["data"]["greater"] else "declared")
            if env["type"] == "RevolutionDeclined":
                seen.add("declined-first-deal" if options["first_deal_revolution"] else "declined")
            if env["type"] == "HandEnded" and any(env["data"]["bonus"]) and not options["scoring"]:
                seen.add("philanthropic-without-scoring")
    assert seen == {
        "named-holder",
        "greater",
        "declared",
        "declined",
        "declined-first-deal",
        "philanthropic-without-scoring",
    }


# ------------------------------------------------------------------ merchant exchange


def test_merchant_exchange_pending_with_taxes():
    """Seed 004, Cambios entre comerciantes: during taxes the highest Merchant may swap a random
    card with another Merchant."""
    _, st, _ = _taxes_start(7, merchant_exchange=True)
    order = st["order"]
    top = order[2]
    assert D.to_act(st) == [order[0], order[1], top]
    moves = D.legal_moves(st, top)
    assert moves == [{"type": "merchant_exchange", "with": s} for s in order[3:5]] + [{"type": "decline_exchange"}]
    other = order[4]
    pre = [list(h) for h in st["hands"]]
    st2, evs = move(st, top, 12345, type="merchant_exchange", **{"with": other})
    assert types(evs) == ["MerchantsExchanged"] and evs[0]["data"] == {"seat": top, "with": other}
    mine = evs[0]["private"][str(top)]
    theirs = evs[0]["private"][str(other)]
    assert mine["gave"] == theirs["received"] and mine["received"] == theirs["gave"]
    assert len(mine["gave"]) == 1 and mine["gave"][0] in pre[top] and mine["received"][0] in pre[other]
    assert st2["hands"][top] == sorted(D._remove(pre[top], mine["gave"]) + mine["received"])
    assert len(st2["hands"][top]) == len(pre[top])
    assert st2["phase"] == "taxes" and D.to_act(st2) == [order[0], order[1]]
    # deterministic from the seed
    assert D.decide(st, {"type": "merchant_exchange", "with": other, "seat": top, "seed": 12345}) == evs
    # the cards are seen only by the two Merchants
    assert D.view(st2, top)["transfers"][0]["received"] == mine["received"]
    assert D.view(st2, other)["transfers"][0]["gave"] == mine["received"]
    assert D.view(st2, order[0])["transfers"] == []
    assert D.view(st2, "spectator")["exchange"] == {"seat": top, "with": other}


def test_merchant_exchange_decline_and_violations():
    """Seed 004, Cambios entre comerciantes: only the highest Merchant, only with another Merchant, or decline."""
    _, st, _ = _taxes_start(6, merchant_exchange=True)
    order = st["order"]
    top = order[2]
    rejects(st, {"type": "merchant_exchange", "seat": top, "seed": 1, "with": order[0]}, "not-a-merchant")
    rejects(st, {"type": "merchant_exchange", "seat": top, "seed": 1, "with": top}, "not-a-merchant")
    rejects(st, {"type": "merchant_exchange", "seat": top, "seed": 1, "with": "x"}, "invalid-field", "invalid")
    rejects(st, {"type": "merchant_exchange", "seat": order[3], "seed": 1, "with": top}, "not-your-turn", "turn")
    st, evs = move(st, top, type="decline_exchange")
    assert types(evs) == ["ExchangeDeclined"] and st["exchange"] == {"seat": top, "with": None}
    rejects(st, {"type": "decline_exchange", "seat": top, "seed": 1}, "not-your-turn", "turn")
    # the taxes resolve when the last pending decision is in, whoever makes it
    st, _ = move(st, order[0], **D.timeout_move(st, order[0]))
    st, evs = move(st, order[1], **D.timeout_move(st, order[1]))
    assert types(evs) == ["TaxChosen", "TaxesPaid"] and st["phase"] == "play"


def test_merchant_exchange_needs_two_merchants_and_taxes():
    """Reading (docs): no exchange with fewer than two Merchants, nor when a revolution cancels the taxes."""
    _, st, _ = _taxes_start(5, merchant_exchange=True)
    assert D.to_act(st) == st["order"][:2] and st["exchange_seat"] is None
    _, st, _ = _taxes_start(6)
    assert D.to_act(st) == st["order"][:2]
    rejects(st, {"type": "decline_exchange", "seat": st["order"][2], "seed": 1}, "not-your-turn", "turn")
    st, holder, _ = _holder_start(merchant_exchange=True)
    st, _ = answer(st, {holder: True})
    assert st["phase"] == "play" and st["exchange_seat"] is None


def test_merchant_exchange_resolves_taxes_when_last():
    """Seed 004, IMPUESTOS: all exchanges are applied when the last pending tax decision is in."""
    _, st, _ = _taxes_start(6, merchant_exchange=True)
    order = st["order"]
    st, _ = move(st, order[0], **D.timeout_move(st, order[0]))
    st, _ = move(st, order[1], **D.timeout_move(st, order[1]))
    assert st["phase"] == "taxes" and D.to_act(st) == [order[2]]
    st, evs = move(st, order[2], 5, type="merchant_exchange", **{"with": order[3]})
    assert types(evs) == ["MerchantsExchanged", "TaxesPaid"] and st["phase"] == "play"
    assert sum(map(len, st["hands"])) == 80


# ------------------------------------------------------------------ joining


def _join(st, name):
    return act(st, {"type": "join", "seat": None, "player": name, "seed": 0})


def test_join_rejected_when_option_off_or_match_over():
    """Seed 004, INCORPORARSE (option): joining needs allow_joining, and is impossible once the match ended."""
    st, _ = started(5, 1)
    rejects(st, {"type": "join", "seat": None, "player": "zed"}, "joining-disabled")
    done = play_state([[7], [6], [5], [8, 9]], allow_joining=True)
    done = _play_out(done, [(0, [7]), (1, [6]), (2, [5])])
    rejects(done, {"type": "join", "seat": None, "player": "zed"}, "game-over", "turn")
    st, _ = started(5, 1, allow_joining=True)
    rejects(st, {"type": "join", "seat": 0, "player": "zed"}, "system-command", "turn")
    rejects(st, {"type": "join", "seat": None, "player": ""}, "invalid-field", "invalid")
    rejects(st, {"type": "join", "seat": None, "player": 7}, "invalid-field", "invalid")
    rejects(st, {"type": "join", "seat": None, "player": "p1"}, "name-taken")
    full, _ = started(16, 1, allow_joining=True)
    rejects(full, {"type": "join", "seat": None, "player": "zed"}, "table-full")


def test_newcomer_joins_next_hand_as_merchant_placed_by_gd():
    """Seed 004, INCORPORARSE: newcomers join at the start of a hand as Merchants; the GD chooses their place."""
    hands = [[9, 10], [3], [4, 12], [7, 8], [6, 11]]
    st = play_state(hands, hands=3, allow_joining=True)
    st, evs = _join(st, "newbie")
    assert evs[0]["data"] == {"seat": 5, "player": "newbie"}
    assert st["newcomers"] == [5] and st["players"][5] == "newbie" and 5 not in st["order"]
    assert D.to_act(st) == [0]  # the hand goes on without the newcomer
    st, _ = _join(st, "other")
    while st["phase"] == "play":
        seat = D.to_act(st)[0]
        st, _ = move(st, seat, 5, **D.timeout_move(st, seat))
    assert st["phase"] == "placing" and st["hand_no"] == 1
    gd = st["order"][0]
    assert D.to_act(st) == [gd]
    m = len(st["order"]) - 4  # 1 Merchant -> slots 0..1
    assert D.legal_moves(st, gd) == [
        {"type": "place_newcomer", "newcomer": s, "slot": k} for s in (5, 6) for k in range(m + 1)
    ]
    rejects(
        st,
        {"type": "place_newcomer", "seat": st["order"][1], "seed": 1, "newcomer": 5, "slot": 0},
        "not-your-turn",
        "turn",
    )
    rejects(st, {"type": "place_newcomer", "seat": gd, "seed": 1, "newcomer": 2, "slot": 0}, "not-a-newcomer")
    rejects(st, {"type": "place_newcomer", "seat": gd, "seed": 1, "newcomer": 6, "slot": 2}, "invalid-slot")
    rejects(st, {"type": "place_newcomer", "seat": gd, "seed": 1, "newcomer": 6, "slot": -1}, "invalid-slot")
    before = list(st["order"])
    # the GD picks the order too: seat 6 first, at the lower of the two middle slots of five players
    st, evs = move(st, gd, 3, type="place_newcomer", newcomer=6, slot=1)
    assert types(evs) == ["NewcomerPlaced"] and st["order"] == before[:3] + [6] + before[3:]
    # six players now: the middle is slot 1 alone (three players above the newcomer, three below)
    rejects(st, {"type": "place_newcomer", "seat": gd, "seed": 3, "newcomer": 5, "slot": 0}, "invalid-slot")
    st, evs = move(st, gd, 3, type="place_newcomer", newcomer=5, slot=1)
    assert types(evs) == ["NewcomerPlaced", "HandDealt"]
    assert st["order"] == before[:3] + [5, 6] + before[3:]
    assert st["hand_no"] == 2 and len(st["hands"][5]) > 0 and sum(map(len, st["hands"])) == 80
    roles = D.view(st, "spectator")["roles"]
    assert roles[5] == roles[6] == "merchant"


def _placing(n: int, rules: str = D.RULES_VERSION) -> dict:
    """A table of ``n`` players whose first hand just ended with one newcomer waiting to be placed."""
    hands = [[r] for r in range(2, n + 1)] + [[11, 12]]
    st = play_state(hands, hands=3, allow_joining=True, rules=rules)
    st, _ = _join(st, "newbie")
    while st["phase"] == "play":
        seat = D.to_act(st)[0]
        st, _ = move(st, seat, 5, **D.timeout_move(st, seat))
    assert st["phase"] == "placing" and st["newcomers"] == [n]
    return st


@pytest.mark.parametrize(("n", "middle"), [(4, [0]), (5, [0, 1]), (6, [1]), (7, [1, 2]), (8, [2]), (9, [2, 3])])
def test_newcomer_is_seated_halfway_between_gd_and_gp(n, middle):
    """Seed 004, INCORPORARSE A UNA PARTIDA EN MARCHA: newcomers enter as Merchants "a medio camino
    entre el Gran Dalmuti y el Gran Peón", and the GD chooses only "si hay varias posiciones entre las
    que elegir".  Reading (docs): the middle of the table as it stands, as many players above the
    newcomer as below it (one more on either side with an odd number of players)."""
    st = _placing(n)
    gd = st["order"][0]
    assert D.legal_moves(st, gd) == [{"type": "place_newcomer", "newcomer": n, "slot": k} for k in middle]
    assert D.view(st, gd)["must"]["allowed_slots"] == middle
    assert D.timeout_move(st, gd) in D.legal_moves(st, gd)
    for k in range(n - 4 + 1):
        command = {"type": "place_newcomer", "seat": gd, "seed": 1, "newcomer": n, "slot": k}
        if k in middle:
            placed, _ = act(st, command)
            pos = placed["order"].index(n)
            assert abs(pos - (n - pos)) <= 1  # players above it against players below it
            assert D.view(placed, "spectator")["roles"][n] == "merchant"
        else:
            rejects(st, command, "invalid-slot")


def test_newcomer_placing_of_rules_2_games_keeps_any_merchant_slot():
    """Rules versions: a game started under rules 2 keeps its placings, where the GD chose any
    Merchant slot (docs, "Rules versions")."""
    st = _placing(8, rules="2")
    gd = st["order"][0]
    assert [m["slot"] for m in D.legal_moves(st, gd)] == [0, 1, 2, 3, 4]
    placed, _ = act(st, {"type": "place_newcomer", "seat": gd, "seed": 1, "newcomer": 8, "slot": 0})
    assert placed["order"].index(8) == 2


def test_join_before_start_takes_part_in_draw():
    """Reading (docs): a player joining before the first deal simply takes part in the seating draw."""
    st = new(4, allow_joining=True)
    st, _ = _join(st, "late")
    assert st["newcomers"] == [] and len(st["players"]) == 5
    st, evs = act(st, {"type": "start", "seat": None, "seed": 4})
    assert sorted(st["order"]) == [0, 1, 2, 3, 4] and sum(map(len, st["hands"])) == 80


# ------------------------------------------------------------------ rejections


def test_out_of_turn_rejected():
    """Seed 004, LA PARTIDA: play goes clockwise; only the seat whose turn it is may act."""
    st = play_state(FOUR)
    e = rejects(st, {"type": "play", "seat": 2, "seed": 0, "cards": [4]}, "not-your-turn", "turn")
    assert "turn" in e.detail
    rejects(st, {"type": "pass", "seat": 1, "seed": 0}, "not-your-turn", "turn")
    rejects(st, {"type": "declare_revolution", "seat": 0, "seed": 0}, "wrong-phase", "turn")
    rejects(st, {"type": "start", "seat": None, "seed": 0}, "already-started", "turn")
    rejects(new(4), {"type": "play", "seat": 0, "seed": 0, "cards": [1]}, "not-started", "turn")
    done = _play_out(play_state([[7], [6], [5], [8, 9]]), [(0, [7]), (1, [6]), (2, [5])])
    rejects(done, {"type": "play", "seat": 3, "seed": 0, "cards": [8]}, "game-over", "turn")


GARBAGE = [
    None,
    "play",
    [],
    {},
    {"type": 5, "seat": 0},
    {"type": "fly", "seat": 0},
    {"type": "play"},
    {"type": "play", "seat": "0", "cards": [2]},
    {"type": "play", "seat": True, "cards": [2]},
    {"type": "play", "seat": 99, "cards": [2]},
    {"type": "play", "seat": -1, "cards": [2]},
    {"type": "play", "seat": 0, "cards": "x"},
    {"type": "play", "seat": 0, "cards": ["a"]},
    {"type": "play", "seat": 0, "cards": [2.0]},
    {"type": "play", "seat": 0, "cards": [True]},
    {"type": "play", "seat": 0, "cards": [0]},
    {"type": "play", "seat": 0, "cards": [14]},
    {"type": "play", "seat": 0, "cards": []},
    {"type": "play", "seat": 0, "cards": None},
    {"type": "play", "seat": 0, "cards": {"2": 1}},
    {"type": "play", "seat": 0, "cards": [2] * 500},
    {"type": "play", "seat": 0},
    {"type": "give_taxes", "seat": 0, "cards": "xx"},
    {"type": "place_newcomer", "seat": 0, "newcomer": "x", "slot": 0},
    {"type": "merchant_exchange", "seat": 0, "with": None},
    {"type": "start", "seat": 0, "seed": 1},
    {"type": "start", "seat": None},
    {"type": "join", "seat": None, "player": ["x"]},
    {"type": "declare_revolution", "seat": 0},
    {"type": "pass", "seat": 0, "extra": {"deep": []}},
]


@pytest.mark.parametrize("command", GARBAGE)
def test_garbage_rejected_with_rule_violation(command):
    """Robustness: malformed commands raise RuleViolation (never another exception) with a rule id and a kind."""
    for st in (new(4), play_state(FOUR), dealt(FOUR), started(6, 2, allow_joining=True)[0]):
        try:
            D.decide(st, command)
        except RuleViolation as e:
            assert e.rule and e.detail and e.kind in ("illegal", "turn", "invalid")
        else:
            # only a well-formed move may pass, e.g. a pass that is legal in that state
            assert isinstance(command, dict) and command.get("type") in ("pass", "start")


def test_unknown_move_and_missing_fields():
    """Robustness: unknown move types and missing fields are 'invalid'."""
    st = play_state(FOUR)
    rejects(st, {"type": "fly", "seat": 0}, "unknown-move", "invalid")
    rejects(st, {"type": "play", "seat": 0, "seed": 0}, "invalid-field", "invalid")
    rejects(st, {"type": "play", "seat": 0, "seed": 0, "cards": [14]}, "invalid-card", "invalid")
    rejects(st, {"type": "play", "seat": 7, "seed": 0, "cards": [2]}, "unknown-seat", "invalid")
    rejects(st, {"type": "play", "seat": None, "seed": 0, "cards": [2]}, "seat-required", "turn")
    # a play that ends the hand needs a seed to deal the next one
    st = play_state([[7], [6], [5], [8, 9]], hands=2)
    st = _play_out(st, [(0, [7]), (1, [6])])
    rejects(st, {"type": "play", "seat": 2, "cards": [5]}, "invalid-field", "invalid")


# ------------------------------------------------------------------ timeouts


def test_timeout_moves():
    """Reading (docs): timeouts pass when allowed, lead the worst single card, give the worst cards, decline."""
    st = play_state([[2, 5, 13], [3, 9], [4], [12, 12]])
    assert D.timeout_move(st, 0) == {"type": "play", "cards": [13]}
    st, _ = move(st, 0, type="play", cards=[5])
    assert D.timeout_move(st, 1) == {"type": "pass"}
    with pytest.raises(RuleViolation):
        D.timeout_move(st, 0)
    tax = dealt([[1, 2, 2, 13, 13], [3, 3, 4], [5, 6], [5, 9], [4, 4, 6], [7, 7, 8]], merchant_exchange=True)
    assert D.timeout_move(tax, 0) == {"type": "give_taxes", "cards": [13, 13]}
    assert D.timeout_move(tax, 1) == {"type": "give_taxes", "cards": [4]}
    assert D.timeout_move(tax, 2) == {"type": "decline_exchange"}
    rev = dealt([[1, 13, 13], [3, 3, 4], [5, 6], [5, 9]], asked=True)
    assert [D.timeout_move(rev, s) for s in range(4)] == [{"type": "decline_revolution"}] * 4


def test_timeout_move_always_legal_and_accepted():
    """Reading (docs): the timeout move is always one of the seat's legal moves and decide accepts it."""
    rnd = random.Random(8)
    for g in range(25):
        n = rnd.randint(4, 8)
        st, _ = started(n, g, merchant_exchange=True, allow_joining=True, hands=2)
        steps = 0
        while D.outcome(st) is None:
            if rnd.random() < 0.01 and len(st["players"]) < 16:
                st, _ = _join(st, f"j{len(st['players'])}")
            for seat in D.to_act(st):
                tm = D.timeout_move(st, seat)
                assert tm in D.legal_moves(st, seat)
                D.decide(st, {**tm, "seat": seat, "seed": 1})
            seat = rnd.choice(D.to_act(st))
            st, _ = move(st, seat, rnd.getrandbits(32), **D.timeout_move(st, seat))
            steps += 1
            assert steps < 5000


# ------------------------------------------------------------------ views


def _scramble_others(state, keep):
    """Swap cards between two seats other than ``keep`` (same sizes)."""
    others = [s for s in state["order"] if s != keep and state["hands"][s]]
    a, b = others[0], others[1]
    hands = list(state["hands"])
    ha, hb = list(hands[a]), list(hands[b])
    for i, c in enumerate(ha):
        j = next((j for j, d in enumerate(hb) if d != c), None)
        if j is not None:
            ha[i], hb[j] = hb[j], c
            break
    hands[a], hands[b] = sorted(ha), sorted(hb)
    assert hands != state["hands"]
    return dict(state, hands=hands)


def test_views_hide_cards():
    """Hidden information: a seat sees only its own hand; a spectator no hand; the reviewer all hands."""
    st, _ = started(6, 31)
    while st["phase"] != "play":
        seat = D.to_act(st)[0]
        st, _ = move(st, seat, **D.timeout_move(st, seat))
    for viewer in range(6):
        v = D.view(st, viewer)
        assert v["hand"] == st["hands"][viewer] and "hands" not in v
        assert D.view(_scramble_others(st, viewer), viewer) == v
    sv = D.view(st, "spectator")
    assert "hand" not in sv and "hands" not in sv and "transfers" not in sv
    assert D.view(_scramble_others(st, -1), "spectator") == sv
    rv = D.view(st, "reviewer")
    assert rv["hands"] == st["hands"]
    json.dumps(rv)
    for key in (
        "phase",
        "hand_no",
        "hands_total",
        "players",
        "order",
        "roles",
        "hand_sizes",
        "trick",
        "turn",
        "to_act",
        "out_order",
        "scores",
        "revolution",
        "newcomers",
        "pending",
    ):
        assert key in sv
    with pytest.raises(RuleViolation):
        D.view(st, 99)
    with pytest.raises(RuleViolation):
        D.view(st, "someone")


def test_views_show_only_own_tax_transfers():
    """Hidden information: each seat sees the tax cards it gave and received, nobody else's."""
    _, st, _ = _taxes_start(6)
    order = st["order"]
    for s in order[:2]:
        st, _ = move(st, s, **D.timeout_move(st, s))
    gd, gp, m = order[0], order[-1], order[2]
    tv = D.view(st, gp)["transfers"]
    assert tv == [
        {
            "kind": "tax",
            "with": gd,
            "gave": st["transfers"][str(gp)][0]["gave"],
            "received": st["transfers"][str(gd)][0]["gave"],
        }
    ]
    assert D.view(st, m)["transfers"] == []
    assert "transfers" not in D.view(st, "spectator")
    assert set(D.view(st, "reviewer")["transfers_all"]) == {str(s) for s in (order[0], order[1], order[-2], order[-1])}
    text = json.dumps(D.view(st, m))
    assert json.dumps(st["transfers"][str(gp)]) not in text


def test_view_trick_and_turn_fields():
    """View: current trick (last play, its rank and count), passes, whose turn, out order and scores."""
    st = play_state(FOUR)
    st, _ = move(st, 0, type="play", cards=[2, 13])
    st, _ = move(st, 1, type="pass")
    v = D.view(st, 3)
    assert v["trick"] == {"seat": 0, "cards": [2, 13], "rank": 2, "count": 2}
    assert v["passes"] == 1 and v["turn"] == 2 and v["to_act"] == [2]
    assert v["hand_sizes"] == [3, 4, 4, 4] and v["must"] is None
    assert D.view(st, 2)["must"] == {"action": "play", "leading": False, "count": 2, "beat_rank": 2}


# ------------------------------------------------------------------ purity


def test_state_json_round_trip_and_evolve_purity():
    """Contract (domain/base.py): states are plain JSON and evolve never mutates its input."""
    rnd = random.Random(4)
    opts = {"merchant_exchange": True, "allow_joining": True, "philanthropic_scoring": True, "hands": 2}
    st0 = new(7, **opts)
    st = st0
    assert json.loads(json.dumps(st)) == st
    events, _ = D.decide(st, {"type": "start", "seat": None, "seed": 77}), None
    log = []
    while True:
        for ev in events:
            frozen = copy.deepcopy(st)
            ev_frozen = copy.deepcopy(ev)
            nxt = D.evolve(st, ev)
            assert st == frozen and ev == ev_frozen
            assert json.loads(json.dumps(nxt)) == nxt
            json.dumps(ev)
            st = nxt
            log.append(ev)
        if D.outcome(st) is not None:
            break
        if rnd.random() < 0.02 and len(st["players"]) < 10:
            events = D.decide(st, {"type": "join", "seat": None, "player": f"x{len(st['players'])}", "seed": 0})
            continue
        seat = rnd.choice(D.to_act(st))
        events = D.decide(st, {**rnd.choice(D.legal_moves(st, seat)), "seat": seat, "seed": rnd.getrandbits(63)})
    assert fold(st0, log) == st


def test_fold_10000_events_fast():
    """Contract (brief): 10,000 events fold well under 100 ms."""
    rnd = random.Random(1)
    st0 = new(8, hands=100)
    st = st0
    log = D.decide(st, {"type": "start", "seat": None, "seed": 3})
    st = fold(st, log)
    while len(log) < 10000:
        seat = D.to_act(st)[0]
        evs = D.decide(st, {**rnd.choice(D.legal_moves(st, seat)), "seat": seat, "seed": rnd.getrandbits(63)})
        log += evs
        st = fold(st, evs)
    log = log[:10000]
    best = 1e9
    for _ in range(3):
        t = time.perf_counter()
        fold(st0, log)
        best = min(best, time.perf_counter() - t)
    assert best < 0.1, best


def test_the_merchants_exchange_tells_nothing_of_the_next_deal_in_duplicate_play():
    """In duplicate play every command of a deal gets the same seed, the one that shuffles the next deal
    (``domain.table.deal_seed``: one per deal, so that every table of a round is dealt alike, whichever
    move ends the hand).  The Merchants' exchange drew its random card from that very generator: the card
    a Merchant gave away told him the last card of the next deck (about 1.7 bits of it), at every table
    of the round.  Over many seeds, the card drawn and the next deck's last card are independent."""
    import math

    _, st, _ = _taxes_start(6, merchant_exchange=True)
    top, other = st["order"][2], st["order"][3]
    pairs = []
    for seed in range(2000):
        drawn = D.decide(st, {"type": "merchant_exchange", "with": other, "seat": top, "seed": seed})
        gave = drawn[0]["private"][str(top)]["gave"][0]
        # the deal a command of this seed makes (the first one's here: its seating draw has its own stream)
        dealt = next(e for e in D.decide(new(6), {"type": "start", "seat": None, "seed": seed}) if e.get("private"))
        pairs.append((gave, dealt["private"]["deal"]["deck"][-1]))
    n = len(pairs)
    both, first, last = Counter(pairs), Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    information = sum(c / n * math.log2(c * n / (first[a] * last[b])) for (a, b), c in both.items())
    assert information < 0.2, f"the card drawn tells {information:.2f} bits of the next deck's last card"
