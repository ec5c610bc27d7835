"""El Gran Dalmuti under the test battery (tests/battery.py): the game's hooks.

1,000 matches (4..8 players mostly, a few larger tables, 1..3 hands, every
option mixed at random, newcomers joining now and then).  Beyond the battery's
own checks (see ``check_event`` for the rule of each): the deal and the taxes
move the right cards, tricks obey count and rank, the next order is the order
of going out, points follow the scoring rule.  The revolution question
(rules 2) is put to every seat after every deal, every answer is the same
public event, only the holder of both jesters may declare, and the outcome is
public only once all have answered.  The options drawn are valid under the
module's schema (philanthropic scoring only with scoring).  The view check
scrambles the other hands, the taxes the others chose, their transfers and
their revolution answers.  The test here shows these checks failing on a
Dalmuti with a broken rule.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import jsonschema
import pytest

from domain import dalmuti as D

from . import battery
from .battery import Checks, Profile, Variant, deal_again
from .battery_broken_game import register, with_events

OPTIONS_VALIDATOR = jsonschema.validators.validator_for(D.OPTIONS)(D.OPTIONS)


def setup(r: random.Random, index: int) -> tuple[int, dict]:
    n = r.randint(9, 16) if r.random() < 0.04 else r.choice([4, 4, 5, 5, 6, 6, 7, 8])
    opts = {
        "hands": r.randint(1, 3),
        "first_deal_revolution": r.random() < 0.3,
        "reduced_deck": r.random() < 0.5,
        "scoring": r.random() < 0.7,
        "philanthropic_scoring": r.random() < 0.5,
        "merchant_exchange": r.random() < 0.6,
        "allow_joining": r.random() < 0.25,
    }
    # Seed 004, Puntuación filantrópica: an addition to scoring (the schema refuses it alone)
    opts["philanthropic_scoring"] = opts["philanthropic_scoring"] and opts["scoring"]
    assert not list(OPTIONS_VALIDATOR.iter_errors(opts))
    return n, opts


def policy(st: dict, acting: list[int], legal: dict, r: random.Random, index: int) -> dict | None:
    """Now and then a newcomer joins (seed 004, INCORPORARSE), when the match allows it."""
    if st["options"]["allow_joining"] and len(st["players"]) < D.MAX_PLAYERS and r.random() < 0.02:
        return {"type": "join", "seat": None, "player": f"new{len(st['players'])}", "seed": r.getrandbits(63)}
    return None


def cards(st: dict) -> tuple[list, int]:
    """The cards held by the seats and the cards played (a count) are the deck dealt."""
    return [c for h in st["hands"] for c in h], st["discards"]


def scramble(st: dict, viewer: Any, r: random.Random) -> dict:
    others = [s for s in range(len(st["hands"])) if s != viewer]
    hands, _ = deal_again(st["hands"], others, [], r)
    pool = [c for s in others for c in st["hands"][s]] or [1]
    mine = str(viewer)
    return {
        **st,
        "hands": hands,
        "tax_chosen": {k: v if k == mine else r.choices(pool, k=len(v)) for k, v in st["tax_chosen"].items()},
        "transfers": {
            k: v if k == mine else [{**t, "gave": r.choices(pool, k=len(t["gave"]))} for t in v]
            for k, v in st["transfers"].items()
        },
        "revolution_answers": {k: v if k == mine else not v for k, v in st.get("revolution_answers", {}).items()},
    }


def in_hand(state: dict) -> int:
    """Cards held by the seats of this hand plus cards played: must equal the deck size."""
    return sum(len(state["hands"][s]) for s in state["order"]) + state["discards"]


def check_event(before: dict, ev: dict, after: dict, seen: Counter, expect_order: list | None) -> None:
    t = ev["type"]
    d = ev["data"]
    if t == "HandDealt":
        # Seed 004, EL MAZO / EL REPARTO (+ Mazos reducidos): the whole deck, one at a time from the GD
        order = d["order"]
        n = len(order)
        deck = D.deck_for(n, before["options"]["reduced_deck"])
        dealt = sorted(c for k, part in ev["private"].items() if k != "deal" for c in part["hand"])
        assert dealt == deck == sorted(ev["private"]["deal"]["deck"])  # the committed deck is the one dealt
        assert d["deck_size"] == len(deck) == sum(d["sizes"]) in (80, 68, 57)
        if before["options"]["reduced_deck"] and n in (4, 5):
            assert d["deck_size"] == (57 if n == 4 else 68)
        else:
            assert d["deck_size"] == 80
        by_pos = [d["sizes"][s] for s in order]
        assert by_pos == sorted(by_pos, reverse=True) and by_pos[0] - by_pos[-1] <= 1
        assert d["dealer"] == order[-1]
        if expect_order is not None:
            # Seed 004, SALIR + INCORPORARSE: the order of going out, newcomers placed among the Merchants
            assert [s for s in order if s in expect_order] == expect_order
            for i, s in enumerate(order):
                if s not in expect_order:
                    assert 2 <= i <= n - 3
        # Seed 004, REVOLUCIÓN (rules 2): every seat is asked after every deal; the deal names nobody
        assert "jesters_seat" not in d
        assert after["phase"] == "revolution" and D.to_act(after) == order
        assert after["revolution_answers"] == {}
    elif t == "RevolutionAnswered":
        # every answer is the same public event; the choice is private (salted) to the seat
        seat = d["seat"]
        assert d == {"seat": seat} and before["phase"] == "revolution" and seat in D.to_act(before)
        assert set(ev["private"]) == {str(seat)} and set(ev["private"][str(seat)]) == {"declare", "salt"}
        if ev["private"][str(seat)]["declare"]:
            assert D.may_declare(before, seat) and before["hands"][seat].count(13) == 2
        assert seat not in D.to_act(after)
    elif t in ("RevolutionDeclared", "RevolutionDeclined"):
        # the table's decision comes once every seat has answered, and only the holder may have declared
        assert before["phase"] == "revolution" and before["revolution_pending"] == []
        assert sorted(before["revolution_answers"]) == sorted(str(s) for s in before["order"])
        declared = [int(k) for k, v in before["revolution_answers"].items() if v]
        if t == "RevolutionDeclined":
            assert d == {} and declared == []
        else:
            assert declared == [d["seat"]] and before["hands"][d["seat"]].count(13) == 2
            assert d["greater"] == (d["seat"] == before["order"][-1])
        assert after["phase"] == "play" or (
            after["phase"] == "taxes" and t == "RevolutionDeclined" and before["revolution"] is None
        )
    elif t == "TaxesPaid":
        # Seed 004, IMPUESTOS: GP's two best to the GD, GD's chosen two to the GP; LP/LD one card
        order = before["order"]
        gd, ld, lp, gp = order[0], order[1], order[-2], order[-1]
        p = ev["private"]
        assert p[str(gp)]["gave"] == sorted(before["hands"][gp])[:2]
        assert p[str(lp)]["gave"] == sorted(before["hands"][lp])[:1]
        assert p[str(gd)]["received"] == p[str(gp)]["gave"] and p[str(gp)]["received"] == p[str(gd)]["gave"]
        assert p[str(ld)]["received"] == p[str(lp)]["gave"] and p[str(lp)]["received"] == p[str(ld)]["gave"]
        assert p[str(gd)]["gave"] == before["tax_chosen"][str(gd)]
        assert p[str(ld)]["gave"] == before["tax_chosen"][str(ld)]
        gp_hand = before["hands"][gp]
        if sum(1 for c in gp_hand if c != 13) >= 2:
            assert 13 not in p[str(gp)]["gave"]  # jesters are the worst cards for taxes
        for s in (gd, ld, lp, gp):
            part = p[str(s)]
            assert Counter(after["hands"][s]) == Counter(before["hands"][s]) - Counter(part["gave"]) + Counter(
                part["received"]
            )
        for s in order[2:-2]:
            assert after["hands"][s] == before["hands"][s]
        assert before["revolution"] is None
        assert "gave" not in json.dumps(d)
    elif t == "MerchantsExchanged":
        # Seed 004, Cambios entre comerciantes: one random card each way, between two Merchants
        merchants = before["order"][2:-2]
        assert d["seat"] == before["order"][2] and d["with"] in merchants and d["with"] != d["seat"]
        for s in (d["seat"], d["with"]):
            assert len(after["hands"][s]) == len(before["hands"][s])
        a, b = ev["private"][str(d["seat"])], ev["private"][str(d["with"])]
        assert a["gave"] == b["received"] and a["received"] == b["gave"]
    elif t == "Played":
        # Seed 004, LA PARTIDA / LOS BUFONES: one rank (jesters join), same count, better rank
        rank = D.set_rank(d["cards"])
        assert rank is not None and rank == d["rank"]
        trick = before["trick"]
        if trick is not None:
            assert len(d["cards"]) == trick["count"] and rank < trick["rank"]
        assert Counter(after["hands"][d["seat"]]) == Counter(before["hands"][d["seat"]]) - Counter(d["cards"])
        holders = sum(1 for s in before["order"] if before["hands"][s])
        assert d["out"] == (not after["hands"][d["seat"]])
        assert d["points"] == (holders - 1 if d["out"] else 0)
    elif t == "Passed":
        assert before["trick"] is not None
    elif t == "TrickEnded":
        # Seed 004, LA PARTIDA / SALIR: the last player leads, or the next holder clockwise
        winner = d["winner"]
        if before["hands"][winner]:
            assert d["leader"] == winner
        else:
            order = before["order"]
            i = order.index(winner)
            nxt = next(
                order[(i + k) % len(order)]
                for k in range(1, len(order))
                if before["hands"][order[(i + k) % len(order)]]
            )
            assert d["leader"] == nxt
    elif t == "HandEnded":
        order = before["order"]
        n = len(order)
        assert in_hand(before) == before["deck_size"]
        left = [s for s in order if before["hands"][s]]
        assert len(left) == 1
        out = d["out_order"]
        assert out == before["out_order"] + left and sorted(out) == sorted(order)
        assert d["order"] == out == after["order"]
        bonus = d["bonus"]
        if before["options"]["philanthropic_scoring"]:
            assert bonus[order[0]] == (1 if out.index(order[-1]) < n - 1 else 0)
            assert bonus[order[1]] == (1 if out.index(order[-2]) < n - 2 else 0)
        else:
            assert not any(bonus)
        for i, s in enumerate(out):
            assert d["points"][s] == n - 1 - i + bonus[s]
        assert d["scores"] == [a + b for a, b in zip(before["scores"], bonus)]
    elif t == "MatchEnded":
        assert after["hand_no"] == before["hands_total"]


class DalmutiChecks(Checks):
    def __init__(self, st0: dict, options: dict, seen: Counter):
        self.options, self.seen = options, seen
        self.expect_order: list | None = None
        self.totals = [0] * len(st0["players"])
        seen[f"players-{min(len(st0['players']), 9)}"] += 1

    def event(self, before: dict, ev: dict, after: dict) -> None:
        check_event(before, ev, after, self.seen, self.expect_order)
        if after["phase"] in ("revolution", "taxes", "play"):
            assert in_hand(after) == after["deck_size"]
        if ev["type"] == "HandDealt":
            self.expect_order = None
        elif ev["type"] == "HandEnded":
            self.expect_order = list(ev["data"]["order"])
            self.totals = list(after["scores"])

    def end(self, st: dict) -> None:
        out = D.outcome(st)
        assert out["hands_played"] == self.options["hands"] and out["scores"] == self.totals
        assert out["winners"] == out["ranking"][:1] and out["last_order"] == st["order"]
        if self.options["scoring"]:
            ranked = [out["scores"][s] for s in out["ranking"]]
            assert ranked == sorted(ranked, reverse=True)
        else:
            assert out["ranking"][: len(st["order"])] == st["order"]


PROFILE = Profile(
    variants=(
        Variant(
            matches=1000,
            chunks=5,
            setup=setup,
            policy=policy,
            max_moves=12_000,
            reached=(
                "HandDealt",
                "TaxesPaid",
                "MerchantsExchanged",
                "ExchangeDeclined",
                "RevolutionAnswered",
                "RevolutionDeclared",
                "RevolutionDeclined",
                "TrickEnded",
                "HandEnded",
                "MatchEnded",
                "PlayerJoined",
                "NewcomerPlaced",
            ),
        ),
    ),
    cards=cards,
    scramble=scramble,
    checks=DalmutiChecks,
)


def test_the_dalmuti_checks_catch_a_peon_paying_its_worst_cards(monkeypatch):
    """Seed 004, IMPUESTOS: "El Gran Peón elige sus dos mejores cartas y se las entrega al Gran
    Dalmuti".  A Dalmuti whose Greater Peon pays its two worst cards instead fails the game's checks
    (the cards still go where the event says: no generic check sees it)."""

    def change(state: dict, ev: dict) -> None:
        if ev["type"] == "TaxesPaid":
            gd, gp = state["order"][0], state["order"][-1]
            worst = sorted(state["hands"][gp])[-2:]
            ev["private"][str(gp)]["gave"] = ev["private"][str(gd)]["received"] = worst

    register(monkeypatch, "broken", with_events("dalmuti", change))
    with pytest.raises(AssertionError) as caught:
        battery.run("broken", matches=range(10))
    assert caught.traceback[-1].name == "check_event"
