"""¡Muerte al rey! under the test battery (tests/battery.py): the game's hooks.

1,000 matches over every even table size (6..16), both decks (where they fit),
treason on and off (asking only a receiver of its identity number, or both players of
every exchange), 1..3 games and every identity mode of section 3.3.

Beyond the battery's own checks (seed sections in brackets): the decks and the
deal [2.1, 2.2]; cards are conserved per team (hands + lost = the team deck)
and each team deck holds exactly one king until it is found or lost [2.1.2,
2.3]; the turn order and skipping eliminated players [2.3]; every full round
holds an accusation by each team [2.3]; a game ends only as the rules say
[2.4, 3.1] with the points of 3.2; no public event data names a card outside
the public reveals; treason (single and double), swaps and assignments all
happen [3.1, 3.3].  The view check scrambles the other seats' hands and the
card offered in an exchange (secret but to the seat offering it).  The test
here shows these checks failing on a game with a broken rule.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest

from domain import muerte as M

from . import battery
from .battery import Checks, Profile, Variant, deal_again
from .battery_broken_game import register, with_events

SIZES = [6, 8, 10, 12, 14, 16]
PUBLIC_CARD_FIELDS = {"Accused": "cards", "CardLost": "card", "TreasonDenounced": "card"}


def setup(r: random.Random, index: int) -> tuple[int, dict]:
    n = SIZES[index % len(SIZES)]
    deck = "spanish48" if n > 12 or (index // len(SIZES)) % 2 else "spanish40"
    opts = {
        "deck": deck,
        "treason": (index // 12) % 2 == 0,
        "treason_prompt": M.TREASON_PROMPTS[(index // 7) % 2],
        "games": r.randint(1, 3),
        "identity_mode": M.IDENTITY_MODES[(index // 24) % len(M.IDENTITY_MODES)],
    }
    return n, opts


def cards(st: dict) -> tuple[list, int]:
    """2.1-2.3: every card of both team decks is in a hand or lost."""
    return [c for h in st["hands"] for c in h] + [c for x in st["lost"] for c in x], 0


def scramble(st: dict, viewer: Any, r: random.Random) -> dict:
    others = [s for s in range(len(st["hands"])) if s != viewer]
    ex = st["exchange"]
    offer = [st["offer"]] if st["offer"] is not None and not (ex and ex["seat"] == viewer) else []
    hands, rest = deal_again(st["hands"], others, offer, r)
    return {**st, "hands": hands, "offer": rest[0] if offer else st["offer"]}


def check_cards(st: dict) -> None:
    """2.1-2.3: per team, hands + lost cards are exactly the team deck; one king while the game runs."""
    n = st["n"]
    for team in M.TEAMS:
        members = [s for s in range(len(st["players"])) if M.team_of(st, s) == team]
        held = [c for s in members for c in st["hands"][s]]
        lost = [c for s in members for c in st["lost"][s]]
        assert Counter(held + lost) == Counter(M.team_deck(team, n, st["options"]["deck"]))
        if st["phase"] in ("turn", "giveback", "discard", "treason"):
            assert held.count(M.KINGS[team]) == 1
    for s in range(len(st["players"])):
        assert len(st["hands"][s]) <= 2
        assert (not st["hands"][s]) == (s in st["eliminated"])


def check_event(before: dict, ev: dict, after: dict, seen: Counter) -> None:
    t = ev["type"]
    d = ev["data"]
    text = json.dumps({k: v for k, v in d.items() if k != PUBLIC_CARD_FIELDS.get(t)})
    if t not in (
        "GameDealt",
        "IdentitySwapsBegan",
        "IdentityAssignmentBegan",
        "IdentityAssigned",
        "GameEnded",
        "MatchEnded",
    ):
        for c in M._all_cards(before["options"]["deck"]):
            assert f'"{c}"' not in text, (t, c)
    if t == "GameDealt":
        # 2.1.1 / 2.2: the identity deck dealt one per seat; two cards of one's team deck each
        n = before["n"]
        assert sorted(d["identity"]) == sorted(M.identity_deck(n))
        assert d["order"] == M.turn_order(d["identity"])
        assert "hand" not in text and all(len(p["hand"]) == 2 for k, p in ev["private"].items() if k != "deal")
        if before["game_no"] > 0:
            mode = before["options"]["identity_mode"]
            last = before["results"][-1]
            if mode == "fixed" or last["reason"] == "treason":
                assert d["identity"] == before["identity"]  # 3.1 / 3.3: identities kept
            if mode in ("fixed_teams", "team_chooses", "opponents_choose"):
                teams = ["espadas" if c[0] == "E" else "bastos" for c in d["identity"]]
                assert teams == before["teams_fixed"]
    elif t == "TurnBegan":
        # 2.3: next seat in turn order, eliminated players skipped; each full round has accusations of both teams
        order = before["order"]
        m = len(order)
        k = next(i for i in range(1, m + 1) if order[(before["pos"] + i) % m] not in before["eliminated"])
        assert d["pos"] == (before["pos"] + k) % m and d["seat"] == order[d["pos"]]
        if d["round"] != before["round"]:
            assert before["accused"] == {"espadas": True, "bastos": True}
    elif t == "ExchangeOffered":
        assert M.team_of(before, d["seat"]) == M.team_of(before, d["with"]) and d["seat"] != d["with"]
        assert not M.must_accuse(before, d["seat"])
    elif t == "CardsExchanged":
        a, b = ev["private"][str(d["seat"])], ev["private"][str(d["with"])]
        assert a["gave"] == b["received"] and a["received"] == b["gave"]
        for s in (d["seat"], d["with"]):
            assert len(after["hands"][s]) == len(before["hands"][s])
        if not before["options"]["treason"]:
            assert d["treason_chances"] == []
        if before["options"]["treason"] and before["options"]["treason_prompt"] == "every":
            # 3.1, option treason_prompt every: both players asked, whatever they received
            assert d["treason_chances"] == [[d["with"], d["seat"]], [d["seat"], d["with"]]]
        for rec, _giver in d["treason_chances"]:
            got = ev["private"][str(rec)]["received"]
            found = M.number(got) == M.number(before["identity"][rec])
            if before["options"]["treason_prompt"] == "every":
                seen["asked, a treason" if found else "asked, no treason"] += 1
            else:
                assert found
    elif t == "TreasonDenounced":  # 3.1: only a card of the denouncer's identity number is a treason
        assert M.number(d["card"]) == M.number(before["identity"][d["seat"]])
    elif t == "Accused":
        assert M.team_of(before, d["seat"]) != M.team_of(before, d["target"])
        assert d["cards"] == before["hands"][d["target"]]
        assert d["king"] == (M.KINGS[M.team_of(before, d["target"])] in d["cards"])
    elif t == "CardLost":
        assert d["eliminated"] == (len(before["hands"][d["seat"]]) == 1)
    elif t == "GameEnded":
        # 2.4 / 3.1 / 3.2
        p = d["points"]
        assert d["scores"] == [a + b for a, b in zip(before["scores"], p)]
        seen[d["reason"]] += 1
        if d.get("double"):
            seen["double-treason"] += 1
        if d["reason"] == "treason":
            assert before["options"]["treason"]
            assert all(x in (-2, 0, 2) for x in p)
            assert sorted(s for s in range(len(p)) if p[s] == 2) == d["winners"]
        else:
            assert d["reason"] in ("king_found", "king_lost")
            win = d["winning_team"]
            for s in range(len(p)):
                if M.team_of(before, s) == win:
                    assert p[s] in (0, 1, 2, 3, 4)
                else:
                    assert p[s] in (-1, -3, -4)
            assert sum(1 for x in p if x in (-3, -4)) == 1
            assert sum(1 for x in p if x in (2, 4)) <= 1
            if d["reason"] == "king_found":
                assert p[d["discoverer"]] in (3, 4)
    elif t == "IdentitySwapped":
        assert d["seat"] == before["swap"]["sequence"][before["swap"]["index"]] != d["with"]


class MuerteChecks(Checks):
    def __init__(self, st0: dict, options: dict, seen: Counter):
        self.options, self.seen = options, seen
        n = len(st0["players"])
        seen[f"players-{n}"] += 1
        seen[options["identity_mode"]] += 1

    def event(self, before: dict, ev: dict, after: dict) -> None:
        check_event(before, ev, after, self.seen)

    def command(self, before: dict, events: list[dict], after: dict) -> None:
        if after["identity"] and after["phase"] != "swapping":  # swaps change identities, not yet the cards
            check_cards(after)

    def nobody_wins(self, st: dict) -> bool:
        """Seed 001, 3.1: "En caso de doble traición, no gana nadie": a match of one game so ended."""
        return self.options["games"] == 1 and bool(st["results"][-1].get("double"))

    def end(self, st: dict) -> None:
        out = M.outcome(st)
        n = len(st["players"])
        assert out["games_played"] == self.options["games"] == len(out["games"])
        assert out["scores"] == [sum(g["points"][s] for g in out["games"]) for s in range(n)]
        if self.options["games"] == 1:  # seed 001 2.4/3.1: a match of one game is won as the game is
            assert out["winners"] == [s for s in out["ranking"] if s in out["games"][0]["winners"]]
            assert set(out["ranking"][: len(out["winners"])]) == set(out["winners"])
        else:  # 3.2: the points, over several games
            assert out["winners"] and all(out["scores"][s] == max(out["scores"]) for s in out["winners"])


PROFILE = Profile(
    variants=(
        Variant(
            matches=1000,
            chunks=4,
            setup=setup,
            max_moves=10_000,
            reached=(
                "GameDealt",
                "ExchangeOffered",
                "CardsExchanged",
                "Accused",
                "CardLost",
                "TurnBegan",
                "GameEnded",
                "MatchEnded",
                "king_found",
                "king_lost",
                "treason",
                "TreasonDenounced",
                "TreasonIgnored",
                "asked, a treason",
                "asked, no treason",
                "IdentitySwapped",
                "IdentityAssigned",
                "IdentityAssignmentBegan",
                "IdentitySwapsBegan",
                *(f"players-{n}" for n in SIZES),
                *M.IDENTITY_MODES,
            ),
        ),
    ),
    cards=cards,
    scramble=scramble,
    checks=MuerteChecks,
)


def test_the_muerte_checks_catch_an_accused_hiding_a_card(monkeypatch):
    """Seed 001, 2.3, Acusar: "Éste enseñará todas sus cartas".  A ¡Muerte al rey! whose accused
    player shows only its first card fails the game's checks."""

    def change(state: dict, ev: dict) -> None:
        if ev["type"] == "Accused" and len(ev["data"]["cards"]) == 2:
            ev["data"]["cards"] = ev["data"]["cards"][:1]

    register(monkeypatch, "broken", with_events("muerte", change))
    with pytest.raises(AssertionError) as caught:
        battery.run("broken", matches=range(5))
    assert caught.traceback[-1].name == "check_event"
