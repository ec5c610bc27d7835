"""Cripple Mr Onion under the test battery (tests/battery.py): the game's hooks.

The base game: 1,000 matches, 2 to 7 players, 1..3 rounds, small bankrolls so
that players go broke and cannot cover bets; 200 more by bots that never fold
when they may stay in, so that most rounds reach the Showdown.  The modifiers
(#0-#11 all on) are a variant of their own: see test_onion_modifier_bots.py.

Beyond the battery's own checks: money is conserved (sum of bankrolls + Pot +
the extra bets lying in front of the players, seed 002 "Pot" and "directly in
front of the player"); extra bets lie in front of their players until matched,
then all go into the Pot, and go back to their players when the round ends
unmatched (see ``ExtraBets``); the 104 cards are conserved (deck + hands +
discards); no bankroll goes negative; the outcome's scores and the Pot left
hold all the money.  The view check scrambles the deck and the cards of the
other hands that are not face up or disclosed (and an offered replacement,
secret but to its chooser).  The test here shows these checks failing on a
game with a broken rule.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from domain import onion as O

from . import battery
from .battery import Checks, Profile, Variant, deal_again
from .battery_broken_game import register, with_events
from .test_onion_modifier_bots import MODIFIERS, ModifierChecks


def setup(r: random.Random, index: int) -> tuple[int, dict]:
    n = 2 + index % 6 if index % 7 else 7
    return n, {
        "rounds": r.randint(1, 3),
        "bankroll": r.choice([3, 5, 10, 30]),
        "stake": r.choice([1, 5, 10]),
        "max_raise": r.choice([1, 2, 5]),
    }


def stubborn(st: dict, acting: list[int], legal: dict, r: random.Random, index: int) -> dict | None:
    """Never fold when staying in is allowed."""
    seat = acting[0]
    pool = [x for x in legal[seat] if x["type"] not in ("fold", "pass_dealership", "decline_bid")]
    return {**r.choice(pool or legal[seat]), "seat": seat, "seed": r.getrandbits(63)}


def cards(st: dict) -> tuple[list, int]:
    """The 104 cards: the deck and the hands, and the discards (a count)."""
    return st["deck"] + [c for h in st["hands"] for c in h], st["discards"]


def money(st: dict) -> int:
    """Seed 002, "Pot": the bankrolls, the Pot and the extra bets lying in front of the players."""
    return sum(st["bankrolls"]) + st["pot"] + sum(st.get("front") or ())


def scramble(st: dict, viewer: Any, r: random.Random) -> dict:
    """The deck and the other hands' cards that are neither face up nor disclosed dealt again."""
    seats = range(len(st["hands"]))
    m = st.get("mods")
    known = [set(st["up"][s]) for s in seats]
    pend = m and m["pending"]
    choosing = bool(pend) and pend["kind"] == "choose"
    if m is not None:
        for s in seats:
            known[s] |= set(m["shown"][s])
        for s in (m["sd"] or {}).get("shown", ()):
            known[s] = set(st["hands"][s])
    fixed = st["deck"][:2] if choosing and pend["seat"] == viewer else []  # the offer its chooser sees
    hidden = [[c for c in h if c not in known[s]] if s != viewer else [] for s, h in enumerate(st["hands"])]
    hidden, deck = deal_again(hidden, [s for s in seats if s != viewer], st["deck"][len(fixed) :], r)
    hands = [h if s == viewer else hidden[s] + [c for c in h if c in known[s]] for s, h in enumerate(st["hands"])]
    out = {**st, "hands": hands, "deck": fixed + deck}
    if choosing and not fixed:
        out["mods"] = {**m, "pending": {**pend, "offer": out["deck"][:2]}}
    return out


class ExtraBets:
    """Seed 002, extra bets (rules 3): a check to run after every event.  Money is conserved
    counting the chips in front of the players; an extra bet lies in front of its player (not in
    the Pot) until matched; matching puts every one of them into the Pot; a round ending unmatched
    gives each back to its player; the public view shows them."""

    def __init__(self, total: int, seen: Counter):
        self.total, self.seen = total, seen
        self.placed: dict[str, int] = {}
        self.matched = False

    def __call__(self, before: dict, st: dict, ev: dict) -> None:
        front, placed = st["front"], self.placed
        assert sum(st["bankrolls"]) + st["pot"] + sum(front) == self.total
        t, d = ev["type"], ev["data"]
        if t in ("ExtraBet", "DealershipPassed", "Folded"):
            assert O.view(st, "spectator")["in_front"] == front
        if t == "RoundStarted":
            placed.clear()
            self.matched = False
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
            self.matched = True
            self.seen["extra-bets-pooled"] += bool(placed)
        elif t == "RoundEnded":
            assert d["returned"] == ({} if self.matched else placed) and front == [0] * len(front)
            for s, chips in d["returned"].items():
                won = d["amount"] if d["winner"] == int(s) else 0
                assert st["bankrolls"][int(s)] == before["bankrolls"][int(s)] + chips + won
            self.seen["extra-bets-returned"] += bool(d["returned"])
        else:
            assert front == before["front"]


class OnionChecks(Checks):
    def __init__(self, st0: dict, options: dict, seen: Counter):
        self.total, self.seen = st0["total"], seen
        self.extra_bets = ExtraBets(st0["total"], seen)

    def event(self, before: dict, ev: dict, after: dict) -> None:
        seen, t, d = self.seen, ev["type"], ev["data"]
        self.extra_bets(before, after, ev)
        assert min(after["bankrolls"]) >= 0
        if t == "RoundEnded":
            seen["reason-" + d["reason"]] += 1
        if t in ("Folded", "DealerChanged", "AuctionOpened"):
            seen[t + "-" + str(d.get("reason") or d.get("how") or d.get("after"))] += 1

    def end(self, st: dict) -> None:
        out = O.outcome(st)
        assert sum(out["scores"]) + out["pot_left"] == self.total


class AllOnionChecks(OnionChecks):
    """The base game's checks, and the modifiers' when they are on."""

    def __init__(self, st0: dict, options: dict, seen: Counter):
        super().__init__(st0, options, seen)
        self.modifiers = ModifierChecks(st0, options, seen) if st0["mods"] is not None else None

    def event(self, before: dict, ev: dict, after: dict) -> None:
        super().event(before, ev, after)
        if self.modifiers:
            self.modifiers.event(before, ev, after)


def enough_showdowns(seen: Counter) -> None:
    """Seed 002, Showdown: stubborn bots reach it in most matches."""
    assert seen["reason-showdown"] > 100, seen["reason-showdown"]


PROFILE = Profile(
    variants=(
        Variant(
            matches=1000,
            chunks=5,
            setup=setup,
            max_moves=10_000,
            deep_every=20,
            reached=(
                "RoundStarted",
                "Discarded",
                "BetNamed",
                "Matched",
                "RaiseMatched",
                "Folded",
                "AuctionOpened",
                "Bid",
                "DealerDealt",
                "Bought",
                "Stood",
                "ExtraBet",
                "ExtraMatched",
                "DealershipPassed",
                "DealerChanged",
                "RoundEnded",
                "MatchEnded",
                "reason-showdown",
                "reason-last-player-in",
                "reason-dealership-refused",
                "reason-no-dealer",
                "Folded-dealer-declined-extra",
                "AuctionOpened-extra_bets",
                "DealerChanged-accepted",
                "DealerChanged-auction",
                "extra-bets-pooled",
                "extra-bets-returned",
            ),
        ),
        Variant(
            name="stubborn",
            matches=200,
            setup=setup,
            policy=stubborn,
            max_moves=10_000,
            deep_every=20,
            verdict=enough_showdowns,
        ),
        MODIFIERS,
    ),
    cards=cards,
    money=money,
    scramble=scramble,
    checks=AllOnionChecks,
)


def test_the_onion_checks_catch_an_extra_bet_put_in_the_pot(monkeypatch):
    """Seed 002: an extra bet is placed "directly in front of the player" until the Dealer matches
    the extra bets.  A game putting it straight into the Pot (as rules 1 and 2 did) keeps the money
    at the table, but fails the game's checks."""

    def change(state: dict, ev: dict) -> None:
        if ev["type"] == "ExtraBet" and ev["data"]["amount"]:
            ev["data"].update(paid=ev["data"]["amount"], front=0)

    register(monkeypatch, "broken", with_events("onion", change))
    with pytest.raises(AssertionError) as caught:
        battery.run("broken", matches=range(10))
    assert caught.traceback[-1].name == "__call__"
