"""Cripple Mr Onion with all twelve modifiers on (seed 002 #0-#11): the battery's
``modifiers`` variant of the game (tests/battery.py, hooks in test_onion_bots.py).

At least 1,000 complete rounds, 2 to 7 players.  Bots pick uniformly among
``legal_moves``, but take a declaration when one is open half of the time;
three matches in four are "stubborn" (the bots never fold when they may stay
in) so that most rounds reach the Showdown, where the modifiers are played.
Beyond the base game's checks: public event data names only disclosed cards
(and modifier cards left on the table); the declarations, duels and
groupings of the modifiers are all reached.  The test here shows the check of
public event data failing on a game with a broken rule.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from domain import onion as O

from . import battery
from .battery import Checks, Variant
from .battery_broken_game import register, with_events

ALL_ON = {name: True for name, _ in O.MODIFIERS}
MIN_ROUNDS = 1000


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


def setup(r: random.Random, index: int) -> tuple[int, dict]:
    n = 2 + index % 6 if index % 5 else 7
    return n, {
        "rounds": r.randint(2, 4),
        "bankroll": r.choice([10, 30]),
        "stake": r.choice([1, 5]),
        "max_raise": r.choice([1, 2]),
        **ALL_ON,
    }


def policy(st: dict, acting: list[int], legal: dict, r: random.Random, index: int) -> dict:
    seat = acting[0]
    moves = legal[seat]
    declares = [x for x in moves if x["type"] == "declare"]
    if declares and r.random() < 0.5:
        move = r.choice(declares)
    else:
        stubborn = index % 4 != 0
        pool = [x for x in moves if x["type"] not in ("fold", "pass_dealership", "decline_bid", "concede")]
        move = r.choice((pool if stubborn else None) or moves)
    return {**move, "seat": seat, "seed": r.getrandbits(63)}


class ModifierChecks(Checks):
    def __init__(self, st0: dict, options: dict, seen: Counter):
        self.seen = seen

    def event(self, before: dict, ev: dict, st: dict) -> None:
        seen, t, d = self.seen, ev["type"], ev["data"]
        if t in ("Declared", "CardRevealed", "HandShown", "Compared", "ReplacementChosen"):
            assert named_cards(d) <= public_cards(st), ev
        if t == "Declared":
            seen["declared-" + d["modifier"]] += 1
        elif t in ("Compared", "DuelEnded"):
            seen["how-" + d["how"]] += 1
        elif t == "RoundStarted" and st["mods"]["wild"]:
            seen["wild-rounds"] += 1
        elif t == "RoundEnded":
            for res in (d["showdown"] or {}).values():
                for g in res["groupings"]:
                    seen["kind-" + g["kind"]] += 1
                if res["null_eights"]:
                    seen["null-eights-played"] += 1


def rounds_and_showdowns(seen: Counter) -> None:
    """At least 1,000 complete rounds, most of them to a Showdown."""
    assert seen["RoundEnded"] >= MIN_ROUNDS, seen["RoundEnded"]
    assert seen["reason-showdown"] > seen["RoundEnded"] // 3


MODIFIERS = Variant(
    name="modifiers",
    matches=430,
    setup=setup,
    policy=policy,
    max_moves=20_000,
    deep_every=215,
    reached=(
        "Declared",
        "ReplacementChosen",
        "HandShown",
        "Compared",
        "DuelEnded",
        "Ready",
        "ShowdownOpened",
        "declared-lady",
        "declared-atuin",
        "declared-death",
        "declared-archchancellor",
        "declared-fool",
        "declared-sender",
        "null-eights-played",
        "how-value",
        "how-conceded",
        "extra-bets-pooled",
        "extra-bets-returned",
    ),
    verdict=rounds_and_showdowns,
)


def test_the_modifier_checks_catch_a_declaration_naming_hidden_cards(monkeypatch):
    """Seed 002, #4-#11: a declaration shows the card declared (and the cards it takes along); a
    game whose ``Declared`` event also names the rest of the declarer's hand fails the checks."""

    def change(state: dict, ev: dict) -> None:
        if ev["type"] == "Declared":
            ev["data"]["cards"] = list(state["hands"][ev["data"]["seat"]])

    register(monkeypatch, "broken", with_events("onion", change))
    with pytest.raises(AssertionError) as caught:
        battery.run("broken", "modifiers", matches=range(3))
    assert caught.traceback[-1].name == "event"
