"""Rules of ¡Muerte al rey! (domain/muerte/), one or more tests per rule.

Each docstring cites the section of the rules text (seed 001, sections 1 to
3.3) the test checks, or the reading chosen where the text is silent (see
docs/rules/muerte.md).
"""

from __future__ import annotations

import json

import pytest

from domain import muerte as M
from domain.base import RuleViolation, event

NAMES = [f"p{i}" for i in range(20)]
# six seats: seat k holds the identity card below; turn order is then 0, 1, 2, 3, 4, 5
IDENT6 = ["E1", "B1", "E2", "B2", "E3", "B3"]
ESP, BAS = [0, 2, 4], [1, 3, 5]


# ------------------------------------------------------------------ helpers


def new(n: int = 6, **opts) -> dict:
    return M.initial_state(NAMES[:n], opts)


def fold(state: dict, events: list[dict]) -> dict:
    for ev in events:
        state = M.evolve(state, ev)
    return state


def move(state: dict, seat, seed: int = 0, **fields) -> tuple[dict, list[dict]]:
    events = M.decide(state, {**fields, "seat": seat, "seed": seed})
    return fold(state, events), events


def started(n: int = 6, seed: int = 1, **opts) -> tuple[dict, list[dict]]:
    st = new(n, **opts)
    events = M.decide(st, {"type": "start", "seat": None, "seed": seed})
    return fold(st, events), events


def dealt(hands: list[list[str]], identity=None, game_no: int = 1, **opts) -> dict:
    """A state right after a crafted deal (folded from a GameDealt event)."""
    identity = list(IDENT6 if identity is None else identity)
    st = dict(new(len(identity), **opts), game_no=game_no - 1)
    teams = (
        None
        if st["options"]["identity_mode"] == "random"
        else ["espadas" if c[0] == "E" else "bastos" for c in identity]
    )
    return M.evolve(
        st,
        event(
            "GameDealt",
            {
                "game": game_no,
                "identity": identity,
                "order": M.turn_order(identity),
                "sizes": [2] * len(identity),
                "teams_fixed": teams,
            },
            {s: {"hand": h} for s, h in enumerate(hands)},
        ),
    )


# a standard deal for six: espadas seats 0, 2, 4 hold oros (king O12 with seat 4), bastos copas (C12 with seat 5)
HANDS6 = [["O1", "O4"], ["C1", "C4"], ["O2", "O5"], ["C2", "C5"], ["O3", "O12"], ["C3", "C12"]]


def types(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


def rejects(state: dict, command: dict, rule: str, kind: str | None = None) -> RuleViolation:
    with pytest.raises(RuleViolation) as info:
        M.decide(state, command)
    assert info.value.rule == rule, (info.value.rule, info.value.detail)
    assert info.value.detail
    if kind is not None:
        assert info.value.kind == kind
    return info.value


def at_turn(st: dict, seat: int) -> dict:
    """A crafted state in which it is ``seat``'s turn (same round, nothing else changed)."""
    return dict(st, turn=seat, pos=st["order"].index(seat))


# ------------------------------------------------------------------ module face and players


def test_module_face():
    """Interface contract (domain/base.py): names, bounds and an options schema with defaults."""
    assert M.GAME_ID == "muerte" and M.TITLE and M.RULES_VERSION == "2" and "1" in M.FOLDS_RULES
    assert (M.MIN_PLAYERS, M.MAX_PLAYERS) == (6, 16)
    props = M.OPTIONS["properties"]
    assert M.OPTIONS["type"] == "object" and M.OPTIONS["additionalProperties"] is False
    assert set(props) == {"deck", "treason", "treason_prompt", "games", "identity_mode"}
    for spec in props.values():
        assert {"type", "default", "description"} <= set(spec)
    assert props["deck"]["enum"] == ["spanish40", "spanish48"] and props["deck"]["default"] == "spanish40"
    assert props["identity_mode"]["default"] == "random" and len(props["identity_mode"]["enum"]) == 6
    assert props["treason"]["default"] is False and props["games"]["default"] == 1
    assert props["treason_prompt"]["enum"] == ["match", "every"] and props["treason_prompt"]["default"] == "every"


def test_player_count_even_and_fits_the_deck():
    """Seed 001, 1 (Introducción): an even number; 6 to 12 with 40 cards, up to 16 with 48."""
    with pytest.raises(RuleViolation):
        new(4)
    with pytest.raises(RuleViolation):
        M.initial_state(NAMES[:17], {})
    rejects(new(7), {"type": "start", "seat": None, "seed": 1}, "odd-player-count")
    rejects(new(14), {"type": "start", "seat": None, "seed": 1}, "deck-too-small")
    rejects(new(16, deck="spanish40"), {"type": "start", "seat": None, "seed": 1}, "deck-too-small")
    for n in (6, 8, 10, 12):
        assert started(n)[0]["phase"] == "turn"
    for n in (14, 16):
        assert started(n, deck="spanish48")[0]["phase"] == "turn"


def test_start_is_a_system_command_once():
    """Interface contract: 'start' comes from the system, once."""
    st = new(6)
    rejects(st, {"type": "start", "seat": 0, "seed": 1}, "system-command", "turn")
    rejects(st, {"type": "start", "seat": None}, "invalid-field", "invalid")
    st, _ = started()
    rejects(st, {"type": "start", "seat": None, "seed": 1}, "already-started", "turn")


# ------------------------------------------------------------------ decks


def test_identity_deck():
    """Seed 001, 2.1.1: espadas and bastos 1..n (1..3 for three companions, 1..6 for six)."""
    assert M.identity_deck(3) == ["E1", "E2", "E3", "B1", "B2", "B3"]
    assert sorted(M.identity_deck(6)) == sorted([f"E{k}" for k in range(1, 7)] + [f"B{k}" for k in range(1, 7)])


def test_team_decks_for_three_companions():
    """Seed 001, 2.1.2 / 2.1.3 (example for 3): oros 1, 2, 3, the king, then the 4 and the 5; copas alike."""
    assert sorted(M.team_deck("espadas", 3)) == sorted(["O1", "O2", "O3", "O12", "O4", "O5"])
    assert sorted(M.team_deck("bastos", 3)) == sorted(["C1", "C2", "C3", "C12", "C4", "C5"])


def test_team_decks_for_six_companions():
    """Seed 001, 2.1.2 (example for 6): oros 1-6, king, sota and caballo; then 7, sota and caballo of espadas."""
    assert sorted(M.team_deck("espadas", 6)) == sorted(
        ["O1", "O2", "O3", "O4", "O5", "O6", "O12", "O10", "O11", "E7", "E10", "E11"]
    )
    assert sorted(M.team_deck("bastos", 6)) == sorted(
        ["C1", "C2", "C3", "C4", "C5", "C6", "C12", "C10", "C11", "B7", "B10", "B11"]
    )


def test_team_decks_for_eight_companions_48_cards():
    """Seed 001, 2.1.2 extended (reading): with 48 cards and 8 companions every card above 8 is a filler."""
    assert sorted(M.team_deck("espadas", 8, "spanish48")) == sorted(
        [f"O{k}" for k in range(1, 9)] + ["O12", "O9", "O10", "O11", "E9", "E10", "E11", "E12"]
    )
    assert sorted(M.team_deck("bastos", 8, "spanish48")) == sorted(
        [f"C{k}" for k in range(1, 9)] + ["C12", "C9", "C10", "C11", "B9", "B10", "B11", "B12"]
    )


def test_team_decks_every_size_one_king_no_shared_filler_number():
    """Seed 001, 2.1.2: 2n cards, the team's king once; reading: no filler shares a number with an identity card."""
    for deck, top in (("spanish40", 6), ("spanish48", 8)):
        for n in range(3, top + 1):
            for team in M.TEAMS:
                cards = M.team_deck(team, n, deck)
                assert len(cards) == len(set(cards)) == 2 * n
                assert cards.count(M.KINGS[team]) == 1
                main = M.MAIN_SUIT[team]
                assert {f"{main}{k}" for k in range(1, n + 1)} <= set(cards)
                fillers = [c for c in cards if c != M.KINGS[team] and not (c[0] == main and M.number(c) <= n)]
                assert len(fillers) == n - 1 and all(M.number(c) > n for c in fillers)
                assert all(c[0] in (main, M.IDENTITY_SUIT[team]) for c in cards)
                assert all(M.number(c) in M.DECK_NUMBERS[deck] for c in cards)


# ------------------------------------------------------------------ the deal


def test_deal_identity_public_two_team_cards_private():
    """Seed 001, 2.2: one identity card each, face up; two cards of one's own team deck, seen only by them."""
    for n in (6, 12):
        st, evs = started(n, seed=3)
        ev = evs[0]
        assert ev["type"] == "GameDealt"
        assert sorted(ev["data"]["identity"]) == sorted(M.identity_deck(n // 2))
        assert "hand" not in json.dumps(ev["data"])
        for s in range(n):
            hand = ev["private"][str(s)]["hand"]
            assert len(hand) == 2 and set(hand) <= set(M.team_deck(M.team_of(st, s), n // 2))
        assert sorted(c for k, p in ev["private"].items() if k != "deal" for c in p["hand"]) == sorted(
            M.team_deck("espadas", n // 2) + M.team_deck("bastos", n // 2)
        )
        # the commitment's deck is the two team decks the hands were dealt from
        assert sorted(c for d in ev["private"]["deal"]["deck"].values() for c in d) == sorted(
            M.team_deck("espadas", n // 2) + M.team_deck("bastos", n // 2)
        )
        v = M.view(st, 0)
        assert v["identity"] == ev["data"]["identity"] and v["hand"] == st["hands"][0]
        for s in range(1, n):
            for c in st["hands"][s]:
                assert f'"{c}"' not in json.dumps(v)


def test_deal_differs_by_seed():
    """Seed 001, 2.2: the three decks are shuffled (from the start command's seed)."""
    deals = {json.dumps(started(8, seed=s)[1][0]) for s in range(5)}
    assert len(deals) == 5


# ------------------------------------------------------------------ turn order


def test_turn_order_alternates_teams_by_number():
    """Seed 001, 2.3: 1 of espadas, 1 of bastos, 2 of espadas, 2 of bastos ... n of bastos."""
    ident = ["B2", "E3", "E1", "B3", "B1", "E2"]
    assert M.turn_order(ident) == [2, 4, 5, 0, 1, 3]
    st, _ = started(8, seed=9)
    assert [st["identity"][s] for s in st["order"]] == ["E1", "B1", "E2", "B2", "E3", "B3", "E4", "B4"]
    assert M.to_act(st) == [st["order"][0]]


def test_turn_passes_in_order_and_wraps_to_a_new_round():
    """Seed 001, 2.3: after n of bastos the cycle (a full round) starts again."""
    st = dealt(HANDS6)
    st, evs = move(st, 0, type="exchange", **{"with": 2}, card="O1")
    assert M.to_act(st) == [2]
    st, evs = move(st, 2, type="give_back", card="O5")
    assert evs[-1]["type"] == "TurnBegan" and evs[-1]["data"] == {"seat": 1, "pos": 1, "round": 1}
    st = dict(st, pos=5, turn=5, accused={"espadas": True, "bastos": True})
    st, evs = move(st, 5, type="accuse", target=0)
    st, evs = move(st, 5, type="discard", card="C3")
    assert evs[-1]["data"] == {"seat": 0, "pos": 0, "round": 2}
    assert st["accused"] == {"espadas": False, "bastos": False}


def test_eliminated_players_are_skipped():
    """Seed 001, 2.3: if a player has been eliminated, the turn passes to the next, in order."""
    hands = [list(h) for h in HANDS6]
    hands[1] = ["C1"]
    st = dealt(hands)
    st = at_turn(st, 1)
    st, evs = move(st, 1, type="accuse", target=0)
    st, evs = move(st, 1, type="discard", card="C1")
    assert evs[0]["data"]["eliminated"] and 1 in st["eliminated"]
    assert M.to_act(st) == [2]
    st = at_turn(st, 0)
    st, _ = move(st, 0, type="exchange", **{"with": 2}, card="O1")
    st, evs = move(st, 2, type="give_back", card="O2")
    assert evs[-1]["data"]["seat"] == 2  # seat 1 is skipped
    rejects(at_turn(st, 0), {"type": "accuse", "target": 1, "seat": 0, "seed": 0}, "eliminated")
    rejects(at_turn(st, 3), {"type": "exchange", "with": 1, "card": "C2", "seat": 3, "seed": 0}, "eliminated")


def test_acting_out_of_turn():
    """Seed 001, 2.3: only the player whose turn it is acts."""
    st = dealt(HANDS6)
    rejects(st, {"type": "accuse", "target": 1, "seat": 2, "seed": 0}, "not-your-turn", "turn")
    rejects(st, {"type": "give_back", "card": "O2", "seat": 2, "seed": 0}, "wrong-phase", "turn")
    assert M.legal_moves(st, 2) == []


# ------------------------------------------------------------------ exchange


def test_exchange_is_two_decisions_each_sees_what_it_receives():
    """Seed 001, 2.3 (Intercambiar): the player picks a companion and a card; the companion picks the card back."""
    st = dealt(HANDS6)
    st, evs = move(st, 0, type="exchange", **{"with": 4}, card="O4")
    assert types(evs) == ["ExchangeOffered"] and evs[0]["data"] == {"seat": 0, "with": 4}
    assert evs[0]["private"] == {"0": {"card": "O4"}}
    assert st["phase"] == "giveback" and M.to_act(st) == [4]
    # the companion does not see the offered card before choosing (reading)
    assert '"O4"' not in json.dumps(M.view(st, 4)) and M.view(st, 0)["offer"] == "O4"
    assert M.legal_moves(st, 4) == [{"type": "give_back", "card": "O3"}, {"type": "give_back", "card": "O12"}]
    st, evs = move(st, 4, type="give_back", card="O3")
    assert types(evs) == ["CardsExchanged", "TurnBegan"]
    assert evs[0]["private"] == {
        "0": {"with": 4, "gave": "O4", "received": "O3"},
        "4": {"with": 0, "gave": "O3", "received": "O4"},
    }
    assert "O" not in json.dumps(evs[0]["data"])
    assert sorted(st["hands"][0]) == ["O1", "O3"] and sorted(st["hands"][4]) == ["O12", "O4"]
    assert M.view(st, 0)["transfers"] == [{"with": 4, "gave": "O4", "received": "O3"}]
    assert M.view(st, 4)["transfers"] == [{"with": 0, "gave": "O3", "received": "O4"}]
    assert M.view(st, 2)["transfers"] == []


def test_exchange_only_with_a_companion_and_own_cards():
    """Seed 001, 2.3 (Intercambiar): with one of one's companions, one of one's cards."""
    st = dealt(HANDS6)
    rejects(st, {"type": "exchange", "with": 1, "card": "O1", "seat": 0, "seed": 0}, "not-a-teammate")
    rejects(st, {"type": "exchange", "with": 0, "card": "O1", "seat": 0, "seed": 0}, "not-a-teammate")
    rejects(st, {"type": "exchange", "with": 2, "card": "O2", "seat": 0, "seed": 0}, "card-not-in-hand")
    st2, _ = move(st, 0, type="exchange", **{"with": 2}, card="O1")
    rejects(st2, {"type": "give_back", "card": "O1", "seat": 2, "seed": 0}, "card-not-in-hand")
    rejects(st2, {"type": "give_back", "card": "O2", "seat": 4, "seed": 0}, "not-your-turn", "turn")


# ------------------------------------------------------------------ accusation


def test_accusation_reveals_cards_and_finding_the_king_wins():
    """Seed 001, 2.3 (Acusar) and 2.4: the accused shows every card; holding the king ends the game: team wins."""
    st = dealt(HANDS6)
    st, evs = move(st, 0, type="accuse", target=5)
    assert types(evs) == ["Accused", "GameEnded", "MatchEnded"]
    assert evs[0]["data"] == {"seat": 0, "target": 5, "cards": ["C3", "C12"], "king": True}
    end = evs[1]["data"]
    assert end["reason"] == "king_found" and end["winning_team"] == "espadas" and end["winners"] == ESP
    out = M.outcome(st)
    assert out is not None and st["reveals"][-1]["cards"] == ["C3", "C12"]
    assert M.view(st, "spectator")["reveals"][0]["target"] == 5


def test_wrong_accusation_costs_a_card_of_the_accusers_choice():
    """Seed 001, 2.3 (Acusar): otherwise the accuser loses a card of its choice, shown; the accused hides again."""
    st = dealt(HANDS6)
    st, evs = move(st, 0, type="accuse", target=1)
    assert evs[0]["data"] == {"seat": 0, "target": 1, "cards": ["C1", "C4"], "king": False}
    assert st["phase"] == "discard" and M.to_act(st) == [0]
    assert M.legal_moves(st, 0) == [{"type": "discard", "card": "O1"}, {"type": "discard", "card": "O4"}]
    # the accused's cards are shown only in the accusation's record, not as a hand
    v = M.view(st, 2)
    assert v["reveals"] == [{"game": 1, "round": 1, "seat": 0, "target": 1, "cards": ["C1", "C4"], "king": False}]
    assert "C1" not in json.dumps({k: x for k, x in v.items() if k != "reveals"})
    st, evs = move(st, 0, type="discard", card="O4")
    assert evs[0]["data"] == {"seat": 0, "card": "O4", "king": False, "eliminated": False}
    assert st["hands"][0] == ["O1"] and st["lost"][0] == ["O4"] and M.to_act(st) == [1]


def test_accuse_only_active_opponents():
    """Seed 001, 2.3 (Acusar): one of the other team."""
    st = dealt(HANDS6)
    rejects(st, {"type": "accuse", "target": 2, "seat": 0, "seed": 0}, "not-an-opponent")
    rejects(st, {"type": "accuse", "target": 9, "seat": 0, "seed": 0}, "unknown-seat", "invalid")


def test_losing_ones_own_king_loses_the_game():
    """Seed 001, 2.3 (Acusar): if the card lost is the king, the accuser's team loses."""
    st = at_turn(dealt(HANDS6), 4)
    st, _ = move(st, 4, type="accuse", target=1)
    st, evs = move(st, 4, type="discard", card="O12")
    assert types(evs) == ["CardLost", "GameEnded", "MatchEnded"]
    assert evs[0]["data"]["king"] is True
    end = evs[1]["data"]
    assert end["reason"] == "king_lost" and end["winning_team"] == "bastos" and end["custodian"] == 4
    assert end["winners"] == BAS


def test_elimination_when_no_card_is_left():
    """Seed 001, 2.3 (Acusar): a player left without cards is eliminated from the game."""
    hands = [list(h) for h in HANDS6]
    hands[0] = ["O1"]
    st = dealt(hands)
    st, _ = move(st, 0, type="accuse", target=1)
    st, evs = move(st, 0, type="discard", card="O1")
    assert evs[0]["data"]["eliminated"] is True and st["eliminated"] == [0]
    assert M.view(st, "spectator")["eliminated"] == [0]


# ------------------------------------------------------------------ mandatory accusation


def test_last_player_of_a_team_must_accuse_if_the_team_has_not():
    """Seed 001, 2.3: each team accuses at least once per full round; else its last player must."""
    st = at_turn(dealt(HANDS6), 4)  # E3 is espadas' last in the round; espadas has not accused
    assert M.must_accuse(st, 4)
    assert all(m["type"] == "accuse" for m in M.legal_moves(st, 4))
    assert {m["target"] for m in M.legal_moves(st, 4)} == set(BAS)
    rejects(st, {"type": "exchange", "with": 0, "card": "O3", "seat": 4, "seed": 0}, "must-accuse")
    assert M.view(st, 4)["must"]["must_accuse"] is True
    assert M.view(st, "spectator")["accusation_due"] == {"espadas": True, "bastos": True}
    st2 = dict(st, accused={"espadas": True, "bastos": False})
    assert not M.must_accuse(st2, 4)
    assert any(m["type"] == "exchange" for m in M.legal_moves(st2, 4))
    # not the last one yet: free to exchange
    st3 = at_turn(dealt(HANDS6), 2)
    assert not M.must_accuse(st3, 2)


def test_last_player_counts_only_active_players():
    """Seed 001, 2.3: the team's last player in the round; eliminated companions do not play (reading)."""
    st = at_turn(dealt(HANDS6), 2)
    st = dict(st, eliminated=[4], hands=[h if s != 4 else [] for s, h in enumerate(st["hands"])])
    assert M.must_accuse(st, 2)


def test_timeout_move_accuses_when_due():
    """docs/rules/muerte.md (timeouts): a due accusation names the first active opponent in turn order."""
    st = at_turn(dealt(HANDS6), 4)
    assert M.timeout_move(st, 4) == {"type": "accuse", "target": 1}
    st, _ = move(st, 4, **M.timeout_move(st, 4))
    assert M.timeout_move(st, 4) == {"type": "discard", "card": "O3"}  # not the king


def test_timeout_moves_exchange_and_give_back_not_the_king():
    """docs/rules/muerte.md (timeouts): exchange a non-king card with the next companion; give back a non-king."""
    hands = [list(h) for h in HANDS6]
    hands[0] = ["O12", "O1"]
    hands[4] = ["O3", "O4"]
    st = dealt(hands)
    assert M.timeout_move(st, 0) == {"type": "exchange", "with": 2, "card": "O1"}
    st = at_turn(st, 2)
    st, _ = move(st, 2, type="exchange", **{"with": 0}, card="O2")
    assert M.timeout_move(st, 0) == {"type": "give_back", "card": "O1"}
    with pytest.raises(RuleViolation):
        M.timeout_move(st, 3)


# ------------------------------------------------------------------ treason (3.1)


def test_treason_denounce_discoverer_alone_wins():
    """Seed 001, 3.1 and 2.4: receiving one's identity number lets one denounce the giver; only the discoverer wins."""
    hands = [list(h) for h in HANDS6]  # seat 2 is E2; seat 0 holds O2 after a swap below
    hands[0], hands[2] = ["O2", "O4"], ["O1", "O5"]
    st = dealt(hands, treason=True)
    st, _ = move(st, 0, type="exchange", **{"with": 2}, card="O2")
    st, evs = move(st, 2, type="give_back", card="O5")
    assert types(evs) == ["CardsExchanged"] and evs[0]["data"]["treason_chances"] == [[2, 0]]
    assert st["phase"] == "treason" and M.to_act(st) == [2]
    assert M.legal_moves(st, 2) == [{"type": "denounce"}, {"type": "ignore_treason"}]
    assert M.timeout_move(st, 2) == {"type": "ignore_treason"}
    st2, evs = move(st, 2, type="denounce")
    assert types(evs) == ["TreasonDenounced", "GameEnded", "MatchEnded"]
    assert evs[0]["data"] == {"seat": 2, "traitor": 0, "card": "O2"}
    end = evs[1]["data"]
    assert end["reason"] == "treason" and end["winners"] == [2] and end["points"] == [-2, 0, 2, 0, 0, 0]
    assert M.outcome(st2)["winners"] == [2]


def test_treason_only_at_that_moment():
    """Seed 001, 3.1: a treason not denounced at once cannot be denounced later."""
    hands = [list(h) for h in HANDS6]
    hands[0], hands[2] = ["O2", "O4"], ["O1", "O5"]
    st = dealt(hands, treason=True)
    st, _ = move(st, 0, type="exchange", **{"with": 2}, card="O2")
    st, _ = move(st, 2, type="give_back", card="O5")
    st, evs = move(st, 2, type="ignore_treason")
    assert types(evs) == ["TreasonIgnored", "TurnBegan"] and M.to_act(st) == [1]
    rejects(st, {"type": "denounce", "seat": 2, "seed": 0}, "wrong-phase", "turn")


def test_no_treason_at_the_deal_nor_without_the_option():
    """Seed 001, 3.1: the rule does not apply to the initial deal; it is an optional rule."""
    hands = [list(h) for h in HANDS6]
    hands[0], hands[2] = ["O1", "O4"], ["O2", "O5"]  # seat 0 is E1 holding O1, seat 2 is E2 holding O2
    st = dealt(hands, treason=True)
    assert st["phase"] == "turn" and M.to_act(st) == [0]
    hands[0], hands[2] = ["O2", "O4"], ["O1", "O5"]
    st = dealt(hands)  # treason off
    st, _ = move(st, 0, type="exchange", **{"with": 2}, card="O2")
    st, evs = move(st, 2, type="give_back", card="O1")
    assert evs[0]["data"]["treason_chances"] == [] and st["phase"] == "turn"
    rejects(st, {"type": "denounce", "seat": 2, "seed": 0}, "wrong-phase", "turn")


def test_double_treason_nobody_wins():
    """Seed 001, 3.1 / 2.4 / 3.2: both discover each other: nobody wins, both are traitors (-2)."""
    hands = [list(h) for h in HANDS6]
    hands[0], hands[2] = ["O2", "O4"], ["O1", "O5"]
    st = dealt(hands, treason=True)
    st, _ = move(st, 0, type="exchange", **{"with": 2}, card="O2")
    st, evs = move(st, 2, type="give_back", card="O1")
    assert evs[0]["data"]["treason_chances"] == [[2, 0], [0, 2]]
    assert M.to_act(st) == [2, 0]
    st, evs = move(st, 0, type="denounce")
    assert types(evs) == ["TreasonDenounced"]
    st, evs = move(st, 2, type="denounce")
    end = evs[1]["data"]
    assert end["double"] is True and end["winners"] == [] and end["points"] == [-2, 0, -2, 0, 0, 0]
    assert end["traitors"] == [0, 2]


def test_treason_one_of_two_denounces():
    """Seed 001, 3.1 / 3.2: when only one of two possible denunciations is made, that one wins alone."""
    hands = [list(h) for h in HANDS6]
    hands[0], hands[2] = ["O2", "O4"], ["O1", "O5"]
    st = dealt(hands, treason=True)
    st, _ = move(st, 0, type="exchange", **{"with": 2}, card="O2")
    st, _ = move(st, 2, type="give_back", card="O1")
    st, _ = move(st, 2, type="ignore_treason")
    st, evs = move(st, 0, type="denounce")
    assert evs[-2]["data"]["winners"] == [0] and evs[-2]["data"]["points"] == [2, 0, -2, 0, 0, 0]


def _exchange(treason_prompt: str, gave: str, back: str) -> tuple[dict, list[dict]]:
    """Seat 0 (E1) offers ``gave`` to its teammate seat 2 (E2), who gives ``back``."""
    hands = [list(h) for h in HANDS6]
    hands[0], hands[2] = ["O2", "O4"], ["O1", "O5"]
    st = dealt(hands, treason=True, treason_prompt=treason_prompt)
    st, _ = move(st, 0, type="exchange", **{"with": 2}, card=gave)
    return move(st, 2, type="give_back", card=back)


def test_treason_prompt_every_asks_both_players_of_every_exchange():
    """Seed 001, 3.1: a player who receives a card of their identity card's number "la mostrará a todo el
    mundo", and "si el que recibe la carta no se da cuenta de la traición en el momento, no podrá
    denunciarla más tarde": it is the receiver's secret until they denounce.  With treason_prompt every
    both players of each exchange are asked, so what the table sees of an exchange (its public event,
    who must act, a spectator's and a third seat's view) is the same whether a treason may be
    denounced or not; only a receiver of its identity number is offered ``denounce``."""
    plain_state, plain = _exchange("every", "O4", "O5")  # seat 2 (E2) gets O4, seat 0 (E1) gets O5: no treason
    found_state, found = _exchange("every", "O2", "O5")  # seat 2 gets O2, its identity number: a treason
    double_state, double = _exchange("every", "O2", "O1")  # each gets its identity number
    for st, evs in ((plain_state, plain), (found_state, found), (double_state, double)):
        assert evs[0]["data"]["treason_chances"] == [[2, 0], [0, 2]]
        assert st["phase"] == "treason" and M.to_act(st) == [2, 0]
        assert M.timeout_move(st, 2) == M.timeout_move(st, 0) == {"type": "ignore_treason"}
    for who in ("spectator", 1, 4):  # nobody but the two players can tell the three exchanges apart
        shown = [M.view(st, who) for st in (plain_state, found_state, double_state)]
        assert shown[0] == shown[1] == shown[2], who
    assert M.legal_moves(plain_state, 2) == M.legal_moves(plain_state, 0) == [{"type": "ignore_treason"}]
    assert M.legal_moves(found_state, 2) == [{"type": "denounce"}, {"type": "ignore_treason"}]
    assert M.legal_moves(found_state, 0) == [{"type": "ignore_treason"}]
    assert M.legal_moves(double_state, 0) == [{"type": "denounce"}, {"type": "ignore_treason"}]
    rejects(plain_state, {"type": "denounce", "seat": 2, "seed": 0}, "no-treason")
    rejects(found_state, {"type": "denounce", "seat": 0, "seed": 0}, "no-treason")
    # nothing found: both let it pass, and play goes on
    st, _ = move(plain_state, 2, type="ignore_treason")
    st, evs = move(st, 0, type="ignore_treason")
    assert types(evs) == ["TreasonIgnored", "TurnBegan"] and st["phase"] == "turn" and M.to_act(st) == [1]
    # a treason found: denounced, the game ends and only the discoverer wins, as with treason_prompt match
    st, _ = move(found_state, 0, type="ignore_treason")
    st, evs = move(st, 2, type="denounce")
    assert evs[0]["data"] == {"seat": 2, "traitor": 0, "card": "O2"}
    assert evs[1]["data"]["winners"] == [2] and evs[1]["data"]["points"] == [-2, 0, 2, 0, 0, 0]


def test_treason_prompt_match_asks_only_a_receiver_of_its_identity_number():
    """Seed 001, 3.1, read with treason_prompt match: only a player who received a card of their identity
    card's number is asked, so an exchange with no treason goes straight on."""
    st, evs = _exchange("match", "O4", "O5")
    assert evs[0]["data"]["treason_chances"] == [] and st["phase"] == "turn"
    st, evs = _exchange("match", "O2", "O5")
    assert evs[0]["data"]["treason_chances"] == [[2, 0]] and M.to_act(st) == [2]


def test_treason_prompt_match_tells_the_table_which_card_changed_hands():
    """Seed 001, 2.1.2 / 2.1.3 with the fillers' reading and 3.1 under treason_prompt match: a team's deck holds
    one card of each identity number, so the public chance to denounce names the card the receiver now holds,
    even when they let it pass (docs/rules/muerte.md, treason; the option's description says so too)."""
    for deck, most in M.DECK_MAX_PLAYERS.items():
        for n in range(3, most // 2 + 1):
            for team in M.TEAMS:
                cards = M.team_deck(team, n, deck)
                for k in range(1, n + 1):
                    assert [c for c in cards if M.number(c) == k] == [f"{M.MAIN_SUIT[team]}{k}"], (deck, n, k)
    st, evs = _exchange("match", "O2", "O5")
    receiver, _giver = evs[0]["data"]["treason_chances"][0]
    st, _ = move(st, receiver, type="ignore_treason")
    assert f"{M.MAIN_SUIT['espadas']}{M.number(st['identity'][receiver])}" in st["hands"][receiver]
    assert "though not which" not in M.OPTIONS["properties"]["treason_prompt"]["description"]


def test_identities_kept_after_treason():
    """Seed 001, 3.1: after a game ended by treason everyone keeps their identity card."""
    hands = [list(h) for h in HANDS6]
    hands[0], hands[2] = ["O2", "O4"], ["O1", "O5"]
    st = dealt(hands, treason=True, games=2)
    st, _ = move(st, 0, type="exchange", **{"with": 2}, card="O2")
    st, _ = move(st, 2, type="give_back", card="O5")
    st, evs = move(st, 2, seed=77, type="denounce")
    assert types(evs) == ["TreasonDenounced", "GameEnded", "GameDealt"]
    assert evs[-1]["data"]["identity"] == IDENT6 and st["game_no"] == 2


# ------------------------------------------------------------------ scoring (3.2)


def test_scoring_king_found_table():
    """Seed 001, 3.2: winners 0 eliminated / +1 / +2 hiding own king / +3 discoverer / +4 both; losers -1 / -3."""
    hands = [list(h) for h in HANDS6]
    hands[2], hands[4] = ["O2", "O12"], ["O3", "O5"]
    st = dealt(hands)
    st = dict(st, eliminated=[0], hands=[[] if s == 0 else h for s, h in enumerate(st["hands"])])
    st = at_turn(st, 2)
    st, evs = move(st, 2, type="accuse", target=5)
    assert evs[1]["data"]["points"] == [0, -1, 4, -1, 1, -3]
    st = at_turn(dealt(HANDS6), 2)
    st, evs = move(st, 2, type="accuse", target=5)
    assert evs[1]["data"]["points"] == [1, -1, 3, -1, 2, -3]


def test_scoring_king_lost_custodian_eliminated():
    """Seed 001, 3.2: the loser who kept the king: -3, or -4 when also eliminated."""
    hands = [list(h) for h in HANDS6]
    hands[4] = ["O12"]
    st = at_turn(dealt(hands), 4)
    st, _ = move(st, 4, type="accuse", target=1)
    st, evs = move(st, 4, type="discard", card="O12")
    assert evs[0]["data"]["eliminated"] is True
    assert evs[1]["data"]["points"] == [-1, 1, -1, 1, -4, 2]
    st = at_turn(dealt(HANDS6), 4)
    st, _ = move(st, 4, type="accuse", target=1)
    st, evs = move(st, 4, type="discard", card="O12")
    assert evs[1]["data"]["points"] == [-1, 1, -1, 1, -3, 2]


def test_match_of_several_games_sums_points():
    """Seed 001, 3.2: points summed over successive games; the match ends after the games option."""
    st = dealt(HANDS6, games=2)
    st, evs = move(st, 0, seed=5, type="accuse", target=5)
    assert types(evs) == ["Accused", "GameEnded", "GameDealt"]
    assert st["scores"] == [3, -1, 1, -1, 2, -3] and st["game_no"] == 2 and M.outcome(st) is None
    assert st["phase"] == "turn" and st["lost"] == [[]] * 6 and st["reveals"]
    while M.outcome(st) is None:
        seat = M.to_act(st)[0]
        st, _ = move(st, seat, **M.timeout_move(st, seat))
    out = M.outcome(st)
    assert out["games_played"] == 2 and len(out["games"]) == 2
    assert out["scores"] == [a + b for a, b in zip(out["games"][0]["points"], out["games"][1]["points"])]
    assert out["winners"] == [s for s in range(6) if out["scores"][s] == max(out["scores"])]


# ------------------------------------------------------------------ fixed cards (3.3)


def _finish_first_game(opts, seed: int = 5):
    st = dealt(HANDS6, games=2, **opts)
    return move(st, 0, seed=seed, type="accuse", target=5)  # seat 0 finds the king: +3, the best scorer


def test_mode_random_deals_identities_again():
    """Seed 001, 2.2: by default the identity deck is shuffled and dealt for every game."""
    idents = {tuple(_finish_first_game({}, seed)[0]["identity"]) for seed in range(6)}
    assert len(idents) > 1


def test_mode_fixed_keeps_the_distribution():
    """Seed 001, 3.3 (second item): a fixed distribution for all games."""
    st, evs = _finish_first_game({"identity_mode": "fixed"})
    assert st["identity"] == IDENT6


def test_mode_fixed_teams_shuffles_within_teams():
    """Seed 001, 3.3 (second item): two fixed teams, cards shuffled and dealt within each."""
    seen = set()
    for seed in range(10):
        st, _ = _finish_first_game({"identity_mode": "fixed_teams"}, seed)
        assert all(st["identity"][s][0] == "E" for s in ESP) and all(st["identity"][s][0] == "B" for s in BAS)
        seen.add(tuple(st["identity"]))
    assert len(seen) > 1


def test_mode_winner_swaps_from_the_one_before_the_winner_backwards():
    """Seed 001, 3.3 (first item): the one before the winner, and so on backwards, swaps with another; winner last."""
    st, evs = _finish_first_game({"identity_mode": "winner_swaps"})
    assert evs[-1]["type"] == "IdentitySwapsBegan"
    assert evs[-1]["data"] == {"winner": 0, "sequence": [5, 4, 3, 2, 1, 0]}
    assert M.to_act(st) == [5]
    rejects(st, {"type": "swap_identity", "with": 5, "seat": 5, "seed": 0}, "swap-with-self")
    rejects(st, {"type": "swap_identity", "with": 1, "seat": 4, "seed": 0}, "not-your-turn", "turn")
    st, _ = move(st, 5, type="swap_identity", **{"with": 0})
    assert st["identity"][0] == "B3" and st["identity"][5] == "E1"
    for seat in (4, 3, 2, 1):
        st, _ = move(st, seat, **M.timeout_move(st, seat))
    st, evs = move(st, 0, seed=3, type="swap_identity", **{"with": 1})
    assert types(evs) == ["IdentitySwapped", "GameDealt"] and st["game_no"] == 2
    assert evs[-1]["data"]["identity"] == st["identity"]


def test_mode_team_chooses_its_own_cards():
    """Seed 001, 3.3 (third item): each team chooses who holds each of its identity cards."""
    st, evs = _finish_first_game({"identity_mode": "team_chooses"})
    assert evs[-1]["type"] == "IdentityAssignmentBegan"
    assert st["assign"]["espadas"]["chooser"] == 0 and st["assign"]["bastos"]["chooser"] == 1
    assert M.to_act(st) == [0, 1]
    assert M.legal_moves(st, 0) == [{"type": "assign_identity", "to": s} for s in ESP]
    rejects(st, {"type": "assign_identity", "to": 1, "seat": 0, "seed": 0}, "not-in-team")
    st, _ = move(st, 0, type="assign_identity", to=4)  # E1 to seat 4
    rejects(st, {"type": "assign_identity", "to": 4, "seat": 0, "seed": 0}, "already-placed")
    st, _ = move(st, 0, type="assign_identity", to=2)
    st, _ = move(st, 0, type="assign_identity", to=0)
    assert M.to_act(st) == [1]
    for to in (5, 3):
        st, _ = move(st, 1, type="assign_identity", to=to)
    st, evs = move(st, 1, seed=4, type="assign_identity", to=1)
    assert evs[-1]["type"] == "GameDealt"
    assert st["identity"] == ["E3", "B3", "E2", "B2", "E1", "B1"]


def test_mode_opponents_choose():
    """Seed 001, 3.3 (fourth item): each team chooses the identity card of each opponent."""
    st, _ = _finish_first_game({"identity_mode": "opponents_choose"})
    assert st["assign"]["espadas"]["chooser"] == 1 and st["assign"]["bastos"]["chooser"] == 0
    assert M.legal_moves(st, 0) == [{"type": "assign_identity", "to": s} for s in BAS]
    while st["phase"] == "assigning":
        seat = M.to_act(st)[0]
        st, _ = move(st, seat, **M.timeout_move(st, seat))
    assert st["identity"] == IDENT6 and st["game_no"] == 2


# ------------------------------------------------------------------ views, garbage, purity


def test_views_hide_cards():
    """Interface contract / seed 001, 2.2: a seat sees its own two cards; spectators none; the reviewer all."""
    st, _ = started(10, seed=4)
    for s in range(10):
        v = M.view(st, s)
        assert v["hand"] == st["hands"][s] and "hands" not in v
    sv = M.view(st, "spectator")
    assert "hand" not in sv and "hands" not in sv and sv["hand_sizes"] == [2] * 10
    assert M.view(st, "reviewer")["hands"] == st["hands"]
    with pytest.raises(RuleViolation):
        M.view(st, 10)
    with pytest.raises(RuleViolation):
        M.view(st, "nobody")


@pytest.mark.parametrize(
    "cmd",
    [
        None,
        [],
        {"type": 3},
        {"type": "fly"},
        {"type": "accuse", "seat": "0"},
        {"type": "accuse", "seat": 0},
        {"type": "accuse", "seat": 0, "target": "x"},
        {"type": "accuse", "seat": 0, "target": True},
        {"type": "exchange", "seat": 0, "with": 2},
        {"type": "exchange", "seat": 0, "with": 2, "card": 5},
        {"type": "exchange", "seat": 0, "with": 2, "card": "Z1"},
        {"type": "exchange", "seat": 0, "with": 2, "card": "O8"},
        {"type": "exchange", "seat": 0, "with": 2, "card": "O"},
        {"type": "discard", "seat": 0, "card": "O1"},
        {"type": "swap_identity", "seat": 0, "with": 1},
        {"type": "assign_identity", "seat": 0, "to": 1},
        {"type": "denounce", "seat": 99},
    ],
)
def test_garbage_raises_rule_violation(cmd):
    """Interface contract: malformed input raises RuleViolation, never another exception."""
    st = dealt(HANDS6)
    with pytest.raises(RuleViolation):
        M.decide(st, cmd)


def test_before_start_and_after_end():
    """Interface contract: no moves before the start or after the end."""
    rejects(new(6), {"type": "accuse", "target": 1, "seat": 0, "seed": 0}, "not-started", "turn")
    st, _ = move(dealt(HANDS6), 0, type="accuse", target=5)
    rejects(st, {"type": "accuse", "target": 1, "seat": 1, "seed": 0}, "game-over", "turn")
    assert M.to_act(st) == [] and M.legal_moves(st, 0) == []


def test_evolve_is_pure_and_json():
    """Interface contract: evolve never mutates its input; states are plain JSON."""
    st = dealt(HANDS6, treason=True)
    frozen = json.dumps(st, sort_keys=True)
    events = M.decide(st, {"type": "accuse", "target": 1, "seat": 0, "seed": 0})
    st2 = fold(st, events)
    assert json.dumps(st, sort_keys=True) == frozen
    assert json.loads(json.dumps(st2)) == st2


# ---------------------------------------------------------------- who wins a match of one game
def test_a_match_of_one_game_is_won_as_the_game_is():
    """Seed 001, 2.4: "Un equipo gana si localiza al rey contrario"; 3.1: after a treason "sólo gana el
    que ha descubierto al traidor", and "En caso de doble traición, no gana nadie"; 3.2 gives its points
    as a system "para jugar varias partidas sucesivas".  A one-game match's outcome names the game's
    winners, not the seats with the best points (rules version 1 named those: four bystanders "won" a
    double treason, and one seat of the team that found the king)."""
    # the king found by seat 0: the whole espadas team (seats 0, 2, 4) wins, first in the ranking
    st = dealt(HANDS6)
    st, _ = move(st, 0, type="accuse", target=5)
    out = M.outcome(st)
    assert sorted(out["winners"]) == [0, 2, 4] and set(out["ranking"][:3]) == {0, 2, 4}
    # a double treason: nobody wins
    hands = [list(h) for h in HANDS6]
    hands[0], hands[2] = ["O2", "O4"], ["O1", "O5"]
    st = dealt(hands, treason=True)
    st, _ = move(st, 0, type="exchange", **{"with": 2}, card="O2")
    st, _ = move(st, 2, type="give_back", card="O1")
    st, _ = move(st, 0, type="denounce")
    st, _ = move(st, 2, type="denounce")
    out = M.outcome(st)
    assert out["winners"] == [] and sorted(out["ranking"]) == list(range(6))
    # one treason denounced: its discoverer alone
    st = dealt(hands, treason=True)
    st, _ = move(st, 0, type="exchange", **{"with": 2}, card="O2")
    st, _ = move(st, 2, type="give_back", card="O1")
    st, _ = move(st, 2, type="ignore_treason")
    st, _ = move(st, 0, type="denounce")
    assert M.outcome(st)["winners"] == [0] and M.outcome(st)["ranking"][0] == 0


def test_a_game_started_under_rules_1_ends_as_it_did():
    """A game keeps the rules version it started under (every envelope names it, and the fold keeps it):
    a one-game match of rules version 1 still names its best scorers, as it did when it was played."""
    st = {**dealt(HANDS6), "rules": "1"}  # as the fold of a log of version 1 leaves it
    for ev in M.decide(st, {"type": "accuse", "seat": 0, "target": 5, "seed": 0}):
        st = M.evolve(st, {**ev, "rules": "1"})  # as the log hands them over: each envelope with its version
    assert st["rules"] == "1"
    assert M.outcome(st)["winners"] == [0]  # the discoverer's +3 alone, as version 1 decided


def test_winner_swaps_names_the_best_scorer_and_breaks_a_tie_by_turn_order():
    """Seed 001, 3.3 (first item) names the game's winner; Reading (docs/rules/muerte.md, winner_swaps):
    the best scorer, ties to the player earliest in turn order, which is not seat order."""
    from domain.muerte.identities import game_winner

    state = {"order": [3, 1, 0, 2, 5, 4]}
    assert game_winner(state, [2, 5, 1, 0, 0, 0]) == 1  # the best scorer
    assert game_winner(state, [5, 5, 1, 0, 0, 0]) == 1  # seats 0 and 1 tie: 1 plays before 0
    assert game_winner(state, [0, 0, 1, 0, 5, 5]) == 5  # seats 4 and 5 tie: 5 plays before 4
    assert game_winner(state, [0, 0, 0, 0, 0, 0]) == 3  # all tie: the first to play


def test_a_creation_keeps_the_receivers_secret_by_default_and_an_early_log_folds_as_it_was_played():
    """Seed 001, 3.1: an unnoticed treason is the receiver's own business ("no podrá denunciarla más
    tarde"), so by default nobody learns that an exchange could be denounced: a game created with treason
    and no treason_prompt asks both players of every exchange.  A log written before the option existed
    names none in its GameCreated; it folds as such games were played, asking only a receiver of its
    identity number (docs/rules/muerte.md, Treason)."""
    from service.core import catalogue

    assert catalogue.validate_options("muerte", {"treason": True})["treason_prompt"] == "every"
    early = M.initial_state([f"p{i}" for i in range(6)], {"treason": True, "deck": "spanish40"})
    assert early["options"]["treason_prompt"] == "match"
    now = M.initial_state([f"p{i}" for i in range(6)], catalogue.validate_options("muerte", {"treason": True}))
    assert now["options"]["treason_prompt"] == "every"
