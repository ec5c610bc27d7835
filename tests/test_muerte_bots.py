"""Random bots play complete matches of ¡Muerte al rey! (domain/muerte.py).

1,000 matches over every even table size (6..16), both decks (where they fit),
treason on and off, 1..3 games and every identity mode of section 3.3.  Bots
pick a seat among ``to_act`` and a move uniformly among its ``legal_moves``;
every command carries a seed from the bot's seeded generator, so each match is
reproducible from its number.

Checked (seed sections in brackets): the decks and the deal [2.1, 2.2]; cards
are conserved per team (hands + lost = the team deck) and each team deck holds
exactly one king until it is found or lost [2.1.2, 2.3]; the turn order and
skipping eliminated players [2.3]; every full round holds an accusation by
each team [2.3]; a game ends only as the rules say [2.4, 3.1] with the points
of 3.2; every match ends; views never show a hidden card; re-folding the log
gives an equal state; states survive JSON; ``timeout_move`` is always legal;
in every tenth match every legal move is accepted by ``decide``.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from domain import muerte as M
from domain.base import RuleViolation

MATCHES = 1000
CHUNKS = 10
MAX_MOVES_PER_GAME = 3000
SIZES = [6, 8, 10, 12, 14, 16]
PUBLIC_CARD_FIELDS = {"Accused": "cards", "CardLost": "card", "TreasonDenounced": "card"}


def setup(index: int, r: random.Random) -> tuple[int, dict]:
    n = SIZES[index % len(SIZES)]
    deck = "spanish48" if n > 12 or (index // len(SIZES)) % 2 else "spanish40"
    opts = {
        "deck": deck,
        "treason": (index // 12) % 2 == 0,
        "games": r.randint(1, 3),
        "identity_mode": M.IDENTITY_MODES[(index // 24) % len(M.IDENTITY_MODES)],
    }
    return n, opts


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


def check_view(st: dict, seat: int) -> None:
    """Views: no card held by another seat shows outside the public records (reveals, lost, results)."""
    v = M.view(st, seat)
    assert "hands" not in v
    mine = set(st["hands"][seat]) | {c for t in st["transfers"].get(str(seat), []) for c in (t["gave"], t["received"])}
    if st["offer"] is not None and st["exchange"]["seat"] == seat:
        mine.add(st["offer"])
    hidden = {c for s, h in enumerate(st["hands"]) if s != seat for c in h} - mine
    public = {k: v[k] for k in v if k not in ("reveals", "lost", "results", "treason", "identity", "options",
                                                "outcome")}
    text = json.dumps(public)
    for c in hidden:
        assert f'"{c}"' not in text, (c, seat)
    sv = M.view(st, "spectator")
    assert "hand" not in sv and "hands" not in sv and "offer" not in sv


def check_event(before: dict, ev: dict, after: dict, seen: Counter) -> None:
    t = ev["type"]
    seen[t] += 1
    d = ev["data"]
    text = json.dumps({k: v for k, v in d.items() if k != PUBLIC_CARD_FIELDS.get(t)})
    if t not in ("GameDealt", "IdentitySwapsBegan", "IdentityAssignmentBegan", "IdentityAssigned", "GameEnded",
                 "MatchEnded"):
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
        for rec, giver in d["treason_chances"]:
            got = ev["private"][str(rec)]["received"]
            assert M.number(got) == M.number(before["identity"][rec])
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


def play_match(index: int, *, all_moves: bool, seen: Counter) -> None:
    r = random.Random(7_000_003 * index + 11)
    n, opts = setup(index, r)
    st0 = M.initial_state([f"bot{i}" for i in range(n)], opts)
    st = st0
    log: list[dict] = []
    moves = 0

    def apply(events: list[dict]) -> None:
        nonlocal st, moves
        for ev in events:
            before = st
            st = M.evolve(st, ev)
            log.append(ev)
            check_event(before, ev, st, seen)
            if ev["type"] == "GameDealt":
                moves = 0
        if st["identity"] and st["phase"] != "swapping":  # swaps change identities, not yet the cards
            check_cards(st)

    apply(M.decide(st, {"type": "start", "seat": None, "seed": r.getrandbits(63)}))
    while M.outcome(st) is None:
        acting = M.to_act(st)
        assert acting and all(type(s) is int for s in acting)
        for seat in acting:
            legal = M.legal_moves(st, seat)
            assert legal
            assert M.timeout_move(st, seat) in legal
            if all_moves:
                for m in legal:
                    M.decide(st, {**m, "seat": seat, "seed": 5})
        idle = [s for s in range(n) if s not in acting]
        with pytest.raises(RuleViolation):
            M.decide(st, {"type": "accuse", "target": 0, "seat": r.choice(idle), "seed": 5})
        if moves % 7 == 0:
            check_view(st, r.randrange(n))
        seat = r.choice(acting)
        m = r.choice(M.legal_moves(st, seat))
        apply(M.decide(st, {**m, "seat": seat, "seed": r.getrandbits(63)}))
        moves += 1
        assert moves < MAX_MOVES_PER_GAME, "a game did not end"
    out = M.outcome(st)
    assert out["games_played"] == opts["games"] == len(out["games"])
    assert out["scores"] == [sum(g["points"][s] for g in out["games"]) for s in range(n)]
    assert sorted(out["ranking"]) == list(range(n))
    assert out["winners"] and all(out["scores"][s] == max(out["scores"]) for s in out["winners"])
    assert json.loads(json.dumps(st)) == st
    refold = st0
    for e in log:
        refold = M.evolve(refold, e)
    assert refold == st
    seen["matches"] += 1
    seen[f"players-{n}"] += 1
    seen[opts["identity_mode"]] += 1
    for g in out["games"]:
        seen[g["reason"]] += 1
        if g.get("double"):
            seen["double-treason"] += 1


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_bot_matches(chunk):
    """Seed 001 sections 2 and 3 as a whole: 100 random complete matches per chunk obey every invariant."""
    seen: Counter = Counter()
    per = MATCHES // CHUNKS
    for i in range(chunk * per, (chunk + 1) * per):
        play_match(i, all_moves=(i % 10 == 0), seen=seen)
    assert seen["matches"] == per
    for t in ("GameDealt", "ExchangeOffered", "CardsExchanged", "Accused", "CardLost", "TurnBegan", "GameEnded",
              "MatchEnded", "king_found", "king_lost"):
        assert seen[t] > 0, t
    for size in SIZES:
        assert seen[f"players-{size}"] > 0


def test_every_variation_reached():
    """3.1 / 3.3: across the matches, treason (single and double), swaps and assignments all happen."""
    seen: Counter = Counter()
    for i in range(0, 300):
        play_match(i, all_moves=False, seen=seen)
    for t in ("treason", "TreasonDenounced", "TreasonIgnored", "IdentitySwapped",
              "IdentityAssigned", "IdentityAssignmentBegan", "IdentitySwapsBegan"):
        assert seen[t] > 0, t
    for mode in M.IDENTITY_MODES:
        assert seen[mode] > 0, mode
