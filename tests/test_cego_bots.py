"""Cego under the test battery (tests/battery.py): the game's hooks.

5,000 matches (3, 4 and 5 players, 1..2 rounds, options mixed); in every other
match the bots pass in the first and second auctions, so that the Cego raises
are reached.  Beyond the battery's own checks: every card of the round is in a
hand, the blind, the Legage, a trick or a won pile (seed 003, Reparto); the
balances are money that sums to zero; points of both sides sum to 79 (78 with
51 cards, see docs) where the contract counts points; in the Cego games (Cego
to Pagat) each participant but the challenger pays or receives the same
amount, and the challenger counts its Legage whether or not it took a trick;
after a Gegensolo nobody plays Piccolo or Bettel (the Gegensolo player
declares Cego); in Zwei Verschiedene the first two leads are one of each shown
suit.  The view check scrambles the other hands (but for shown cards), the
blind until it is taken and the Legage but for its challenger.  The test here
shows these checks failing on a Cego with a broken rule.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from domain import cego as C

from . import battery
from .battery import Checks, Profile, Variant, deal_again
from .battery_broken_game import register, with_events


def setup(r: random.Random, index: int) -> tuple[int, dict]:
    return [3, 4, 5][index % 3], {
        "rounds": r.randint(1, 2),
        "gut_selbst": r.random() < 0.5,
        "dealer_sits_out_with_four": r.random() < 0.3,
    }


def policy(st: dict, acting: list[int], legal: dict, r: random.Random, index: int) -> dict | None:
    """Every other match heads for the Cego raises: pass in the first and second auctions."""
    if index % 2 and st["phase"] in ("first_auction", "gegen", "second_auction"):
        return {"type": "call", "call": "pass", "seat": acting[0], "seed": r.getrandbits(63)}
    return None


def cards(st: dict) -> tuple[list, int]:
    """Seed 003, Reparto: every card of the round is in a hand, the blind, the Legage, a trick or a won pile."""
    located = [c for h in st["hands"] for c in h]
    located += [] if st["blind_taken"] else st["blind"]
    located += st["legage"] + [c for _, c in st["trick"]] + [c for w in st["won"] for c in w]
    return located, 0


def money(st: dict) -> int:
    return sum(st["balances"])


def scramble(st: dict, viewer: Any, r: random.Random) -> dict:
    """The other hands but for shown cards, the blind until it is taken, the Legage but for its challenger."""
    shown = set(st["shown_left"]) | {st["shown_discard"]}
    con = st["contract"]
    mine = con is not None and con["challenger"] == viewer
    hidden = [[c for c in h if c not in shown] if s != viewer else [] for s, h in enumerate(st["hands"])]
    blind = [] if st["blind_taken"] else list(st["blind"])
    legage = [] if mine else [c for c in st["legage"] if c not in shown]
    others = [s for s in range(len(hidden)) if s != viewer]
    hidden, rest = deal_again(hidden, others, blind + legage, r)
    hands = [h if s == viewer else hidden[s] + [c for c in h if c in shown] for s, h in enumerate(st["hands"])]
    out = {**st, "hands": hands}
    if blind:
        out["blind"] = rest[: len(blind)]
    if legage:
        out["legage"] = rest[len(blind) :] + [c for c in st["legage"] if c in shown]
    return out


class CegoChecks(Checks):
    def __init__(self, st0: dict, options: dict, seen: Counter):
        self.options, self.seen = options, seen
        self.round: dict = {}

    def event(self, before: dict, ev: dict, after: dict) -> None:
        d = ev["data"]
        if ev["type"] == "RoundDealt":
            self.round = {}
            assert len(C.deck_for(len(after["active"]))) == (54 if len(after["active"]) == 4 else 51)
            assert len(after["blind"]) == (10 if len(after["active"]) == 4 else 12)
        elif ev["type"] == "Called" and d["call"] == "gegensolo":
            self.round["gegensolo"] = d["seat"]
        elif (
            ev["type"] == "Played"
            and not before["trick"]
            and before["trick_no"] < 2
            and before["contract"]["game"] == "zwei_verschiedene"
        ):
            assert d["seat"] == before["contract"]["challenger"]
            self.round.setdefault("leads", []).append(C.suit(d["card"]))
        elif ev["type"] == "RoundScored":
            self.scored(before, d)

    def scored(self, before: dict, d: dict) -> None:
        seen = self.seen
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
        if "gegensolo" in self.round:
            assert d["game"] not in ("piccolo", "bettel")
            assert any(a["seat"] == self.round["gegensolo"] and a["call"] == "cego" for a in before["auction"])
            seen["gegensolo-then-" + d["game"]] += 1
        if d["game"] == "zwei_verschiedene":
            assert sorted(self.round["leads"]) == sorted(C.suit(c) for c in before["shown"])

    def end(self, st: dict) -> None:
        out = C.outcome(st)
        assert sum(out["scores"]) == 0 and out["rounds_played"] == self.options["rounds"]


PROFILE = Profile(
    variants=(
        Variant(
            matches=5000,
            chunks=5,
            setup=setup,
            policy=policy,
            max_moves=1000,
            deep_every=100,
            reached=(
                "game-solo",
                "game-ulti",
                "game-piccolo",
                "game-bettel",
                "game-cego",
                "game-eine",
                "game-rauber",
                "game-eine_leere",
                "game-zwei_leere",
                "game-zwei_verschiedene",
                "game-pagat",
                "Exchanged",
                "TrickTaken",
                "MatchEnded",
                "legage-without-a-trick",
                "gegensolo-then-cego",
            ),
        ),
    ),
    cards=cards,
    money=money,
    scramble=scramble,
    checks=CegoChecks,
)


def test_the_cego_checks_catch_payments_that_do_not_balance(monkeypatch):
    """Seed 003: "la parte perdedora pagará a la otra la apuesta pactada": what one side pays
    the other receives.  A Cego whose scoring pays seat 0 one point more fails the game's checks."""

    def change(state: dict, ev: dict) -> None:
        if ev["type"] == "RoundScored":
            ev["data"]["payments"][0] += 1

    register(monkeypatch, "broken", with_events("cego", change))
    with pytest.raises(AssertionError) as caught:
        battery.run("broken", matches=range(5))
    assert caught.traceback[-1].name == "scored"
