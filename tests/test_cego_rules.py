"""Rules of Cego (domain/cego/).  Each docstring cites the part of the rules
text (seed 003) it checks, or the reading chosen (docs/rules/cego.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from domain import cego as C
from domain import table as tables
from domain.base import RuleViolation, event
from service.core.verify import verify_export

NAMES = ["a", "b", "c", "d", "e"]
T = lambda n: n  # noqa: E731  trump n
D, H, S, K = 0, 1, 2, 3


def card(s: int, i: int) -> int:
    return 100 + 10 * s + i


def fold(st, evs):
    for e in evs:
        st = C.evolve(st, e)
    return st


def move(st, seat, **m):
    return fold(st, C.decide(st, {**m, "seat": seat, "seed": 1}))


def rejects(st, command, rule, kind=None):
    with pytest.raises(RuleViolation) as info:
        C.decide(st, {"seed": 1, **command})
    assert info.value.rule == rule, (info.value.rule, info.value.detail)
    if kind:
        assert info.value.kind == kind


def dealt(hands: dict, blind: list, n=4, dealer=None, rounds=1, **opts):
    """A state right after a crafted deal; active seats from mano (seat after the dealer)."""
    st = C.initial_state(NAMES[:n], dict(rounds=rounds, **opts))
    dealer = (n - 1) if dealer is None else dealer
    active = [(dealer + 1 + i) % n for i in range(n) if (dealer + 1 + i) % n in hands]
    return C.evolve(
        st,
        event(
            "RoundDealt",
            {
                "round": 1,
                "dealer": dealer,
                "cutter": (dealer - 1) % n,
                "mano": active[0],
                "active": active,
                "sitting_out": dealer if dealer not in hands else None,
                "blind_size": len(blind),
                "hand_size": len(hands[active[0]]),
            },
            {**{s: {"hand": sorted(h)} for s, h in hands.items()}, "nobody": {"blind": sorted(blind)}},
        ),
    )


def split_deck(n_active=4):
    deck = sorted(C.deck_for(n_active), key=C.strength, reverse=True)
    return deck


def test_deck_and_79_points():
    """Seed 003, Cartas / Valores: 54 cards (22 trumps, 4x8 suit cards) counted in pairs less one = 79."""
    deck = C.full_deck()
    assert len(deck) == 54 and sum(1 for c in deck if C.is_trump(c)) == 22
    assert C.count_points(deck) == 79
    assert [C.value(c) for c in (C.JUGLAR, 21, 1, card(D, 0), card(D, 1), card(D, 2), card(D, 3), card(D, 4), 5)] == [
        5,
        5,
        5,
        5,
        4,
        3,
        2,
        1,
        1,
    ]
    assert C.count_points([card(D, 0), card(D, 1)]) == 8
    assert C.count_points([card(D, 0)]) == 5  # an odd card counts its value (reading)


def test_three_player_deck():
    """Seed 003, Nota (tres jugadores): 51 cards without 7 of clubs, 7 of spades, 4 of diamonds; 12 blind, 13 each."""
    d = C.deck_for(3)
    assert len(d) == 51 and {card(K, 7), card(S, 7), card(D, 7)}.isdisjoint(d)
    st = fold(
        C.initial_state(NAMES[:3], {}),
        C.decide(C.initial_state(NAMES[:3], {}), {"type": "start", "seat": None, "seed": 5}),
    )
    assert len(st["blind"]) == 12 and all(len(h) == 13 for h in st["hands"])


def test_card_order_and_tiebreak():
    """Seed 003, Cartas: red K,Q,C,J,1..4; black K,Q,C,J,10..7; equal cards by suit diamonds, hearts, spades, clubs."""
    assert C.label(card(D, 4)) == "1 of diamonds" and C.label(card(K, 4)) == "10 of clubs"
    assert C.strength(card(D, 0)) > C.strength(card(H, 0)) > C.strength(card(S, 0)) > C.strength(card(K, 0))
    assert C.strength(1) > C.strength(card(D, 0)) and C.strength(C.JUGLAR) > C.strength(21)


def test_start_dealer_and_deal_four():
    """Seed 003, Reparto: dealer by the highest card; 10 blind, 11 each; mano (dealer's right) speaks first."""
    st0 = C.initial_state(NAMES[:4], {})
    evs = C.decide(st0, {"type": "start", "seat": None, "seed": 9})
    st = fold(st0, evs)
    draws = evs[0]["data"]["draws"]
    assert st["dealer"] == max(draws, key=lambda p: C.strength(p[1]))[0]
    assert len(st["blind"]) == 10 and all(len(h) == 11 for h in st["hands"])
    assert C.to_act(st) == [(st["dealer"] + 1) % 4] == [st["active"][0]]
    assert "blind" not in evs[1]["data"]
    assert evs[1]["private"]["nobody"]["blind"] == st["blind"]


def test_five_players_dealer_sits_out():
    """Seed 003, Reglas generales: with five the dealer sits out; option also with four (then 51 cards)."""
    st0 = C.initial_state(NAMES, {})
    st = fold(st0, C.decide(st0, {"type": "start", "seat": None, "seed": 3}))
    assert st["sitting_out"] == st["dealer"] and st["dealer"] not in st["active"] and len(st["active"]) == 4
    st0 = C.initial_state(NAMES[:4], {"dealer_sits_out_with_four": True})
    st = fold(st0, C.decide(st0, {"type": "start", "seat": None, "seed": 3}))
    assert len(st["active"]) == 3 and len(st["blind"]) == 12


def solo_hand():
    return [C.JUGLAR, 21, 20, 19, 18, 17, 16, 15, card(D, 0), card(D, 1), card(H, 0)]


def test_solo_requirement():
    """Seed 003, Solo: eight trumps, or seven with two above 17 and only two suits among the rest."""
    assert C.solo_allowed(solo_hand())
    seven = [C.JUGLAR, 21, 5, 6, 7, 8, 9, card(D, 0), card(D, 1), card(H, 0), card(H, 1)]
    assert C.solo_allowed(seven)
    assert not C.solo_allowed(seven[:-1] + [card(S, 0)])
    assert not C.solo_allowed([2, 3, 4, 5, 6, 7, 9, card(D, 0), card(D, 1), card(H, 0), card(H, 1)])


def test_solo_seven_trump_readings():
    """Seed 003, Solo: seven trumps qualify with two of them above 17 and the other cards in only two suits.
    Readings of docs/rules/cego.md (First auction): the Juglar, the highest trump though it has no number, is one
    of the two above 17, and the other cards all in one suit qualify too (at most two suits)."""
    juglar_and_18 = [C.JUGLAR, 18, 2, 3, 4, 5, 6, card(D, 0), card(D, 1), card(H, 0), card(H, 1)]
    assert C.solo_allowed(juglar_and_18)
    one_suit = [21, 20, 2, 3, 4, 5, 6, card(D, 0), card(D, 1), card(D, 2), card(D, 3)]
    assert C.solo_allowed(one_suit)
    assert not C.solo_allowed([17, 18, 2, 3, 4, 5, 6, card(D, 0), card(D, 1), card(H, 0), card(H, 1)])  # 17 is not


def four_hands():
    deck = list(C.full_deck())
    trumps = [c for c in deck if C.is_trump(c)]
    suits = [c for c in deck if not C.is_trump(c)]
    # seat 0 solo-able, seat 1 has trump 1
    h0 = solo_hand()
    rest = [c for c in deck if c not in h0]
    h1 = [1] + [c for c in rest if not C.is_trump(c)][:10]
    rest = [c for c in rest if c not in h1]
    h2, h3, blind = rest[:11], rest[11:22], rest[22:]
    assert trumps and suits and len(blind) == 10
    return {0: h0, 1: h1, 2: h2, 3: h3}, blind


def test_solo_ulti_calls_checked():
    """Seed 003, Primera subasta / Solo / Ulti: Solo needs the hand; Ulti needs trump 1; out of turn is refused."""
    hands, blind = four_hands()
    st = dealt(hands, blind)
    assert C.to_act(st) == [0]
    rejects(st, {"type": "call", "call": "ulti", "seat": 0}, "ulti-needs-pagat")
    rejects(st, {"type": "call", "call": "pass", "seat": 1}, "not-your-turn", "turn")
    st = move(st, 0, type="call", call="pass")
    rejects(st, {"type": "call", "call": "solo", "seat": 1}, "solo-needs-trumps")
    st = move(st, 1, type="call", call="ulti")
    assert st["phase"] == "play" and st["contract"]["game"] == "ulti" and C.to_act(st) == [1]


def play_out(st):
    while st["phase"] == "play":
        seat = C.to_act(st)[0]
        st = move(st, seat, **C.timeout_move(st, seat))
    return st


def test_solo_played_and_paid():
    """Seed 003, Solo + Puntuación: the soloist counts the blind if it won a trick; factor 2 won, 1 lost."""
    hands, blind = four_hands()
    st = dealt(hands, blind)
    st = move(st, 0, type="call", call="solo")
    for s in (1, 2, 3):
        st = move(st, s, type="call", call="pass")
    assert st["contract"] == {"game": "solo", "challenger": 0, "gegensolo": False}
    st = play_out(st)
    r = st["last_round"]
    assert r["challenger_points"] + r["defender_points"] == 79
    f = 2 if r["challenger_won"] else 1
    w = r["challenger_points"] if r["challenger_won"] else r["defender_points"]
    assert r["amount"] == (w - 39) * f and r["payments"][0] == (3 if r["challenger_won"] else -3) * r["amount"]
    assert sum(r["payments"]) == 0 and r["blind"] == sorted(blind)


def test_gegensolo_player_declares_cego_without_piccolo_or_bettel():
    """Seed 003, Segunda subasta: "Si no ha habido declaración de Solo en la primera vuelta, se pregunta si alguien
    quiere Piccolo o Bettel"; Cego: "el mano (o quien declarase Gegensolo en la primera) declarará Cego".  After
    Solo + Gegensolo nobody is offered Piccolo or Bettel: the Gegensolo player holds Cego at once, the others may
    raise from its right, and Cego has the Gegensolo factor (2)."""
    hands, blind = four_hands()
    st = dealt(hands, blind)
    st = move(st, 0, type="call", call="solo")
    st = move(st, 1, type="call", call="pass")
    st = move(st, 2, type="call", call="gegensolo")
    assert st["phase"] == "raise" and st["gegensolo"] == 2
    assert st["contract"] == {"game": "cego", "challenger": 2, "gegensolo": True}
    assert [(a["seat"], a["call"]) for a in st["auction"][-2:]] == [(2, "gegensolo"), (2, "cego")]
    assert C.to_act(st) == [3] and st["speakers"] == [3, 0, 1]
    for s in range(4):
        assert not {m.get("call") for m in C.legal_moves(st, s)} & {"piccolo", "bettel"}
    rejects(st, {"type": "call", "call": "piccolo", "seat": 3}, "call-not-allowed")
    rejects(st, {"type": "call", "call": "bettel", "seat": 3}, "call-not-allowed")
    for s in (3, 0, 1):
        st = move(st, s, type="call", call="pass")
    assert st["phase"] == "rauber_choice" and C.to_act(st) == [2]
    assert C.factor(st["contract"], True) == 2
    # a game started under rules "1" still offered them, as it was played
    st1 = dict(dealt(hands, blind), rules="1")
    for s, call in ((0, "solo"), (1, "pass"), (2, "gegensolo")):
        st1 = move(st1, s, type="call", call=call)
    assert st1["phase"] == "second_auction" and {"piccolo", "bettel"} <= {m["call"] for m in C.legal_moves(st1, 2)}


def to_raise_phase(st):
    for s in list(st["speakers"]):
        st = move(st, s, type="call", call="pass")
    for s in list(st["speakers"]):
        st = move(st, s, type="call", call="pass")
    return st


def test_cego_keep_two_discard_one_and_rauber_choice():
    """Seed 003, Cego (juego normal) + Räuber: no raise -> the declarer may play Räuber; Cego keeps two, takes the
    blind, discards one more; the Legage is hidden from others until scored."""
    hands, blind = four_hands()
    st = to_raise_phase(dealt(hands, blind))
    assert st["contract"]["challenger"] == 0
    for s in (1, 2, 3):
        st = move(st, s, type="call", call="pass")
    assert st["phase"] == "rauber_choice"
    st = move(st, 0, type="call", call="cego")
    st = move(st, 0, type="keep", cards=[C.JUGLAR, 21])
    assert len(st["hands"][0]) == 12 and len(st["legage"]) == 9
    rejects(st, {"type": "keep", "cards": [20], "seat": 0}, "wrong-step")
    st = move(st, 0, type="discard", cards=[card(D, 7)] if card(D, 7) in st["hands"][0] else [st["hands"][0][0]])
    assert len(st["hands"][0]) == 11 and len(st["legage"]) == 10
    assert "legage" not in C.view(st, 1) and "legage" not in C.view(st, "spectator") and "legage" in C.view(st, 0)
    st = play_out(st)
    r = st["last_round"]
    assert r["game"] == "cego" and r["challenger_points"] + r["defender_points"] == 79 and r["factor"] == 1


def test_rauber_most_points_loses():
    """Seed 003, Räuber: each alone, the player with most points pays 40 to each, double if it declared."""
    hands, blind = four_hands()
    st = to_raise_phase(dealt(hands, blind))
    for s in (1, 2, 3):
        st = move(st, s, type="call", call="pass")
    st = move(st, 0, type="call", call="rauber")
    st = play_out(st)
    r = st["last_round"]
    top = max(p for p in r["points"] if p is not None)
    for lo in r["losers"]:
        assert r["points"][lo] == top
    # each loser pays every other seat 40, 80 when it declared Räuber (seat 0); ties all pay (docs reading)
    n = len(r["payments"])
    pay = {lo: 80 if lo == 0 else 40 for lo in r["losers"]}
    expected = [sum(p for lo, p in pay.items() if lo != s) - pay.get(s, 0) * (n - 1) for s in range(n)]
    assert r["payments"] == expected, (r["losers"], r["payments"])
    assert sum(r["payments"]) == 0


def test_raises_one_level_and_factors():
    """Seed 003, Cego raises + table: each raise is one level up; factors 1..6 (2..7 after a Gegensolo)."""
    for i, lvl in enumerate(C.LEVELS):
        assert C.factor({"game": lvl}, True) == i + 1
        assert C.factor({"game": lvl, "gegensolo": True}, False) == i + 2
    assert C.factor({"game": "solo"}, True) == 2 and C.factor({"game": "solo"}, False) == 1
    hands, blind = four_hands()
    st = to_raise_phase(dealt(hands, blind))
    st = move(st, 1, type="call", call="raise")
    assert st["contract"]["game"] == "eine" and st["contract"]["challenger"] == 1


def test_gut_selbst_option():
    """Seed 003, Regla opcional: the previous declarer accepts (gut) or plays the raised game itself (selbst)."""
    hands, blind = four_hands()
    st = to_raise_phase(dealt(hands, blind, gut_selbst=True))
    st = move(st, 1, type="call", call="raise")
    assert st["phase"] == "gut_selbst" and C.to_act(st) == [0]
    st2 = move(st, 0, type="call", call="selbst")
    assert st2["contract"]["game"] == "eine" and st2["contract"]["challenger"] == 0
    st3 = move(st, 0, type="call", call="gut")
    assert st3["contract"]["challenger"] == 1


def test_selbst_needs_a_hand_for_the_raised_game():
    """Seed 003, Regla opcional (gut / selbst).  Reading of docs/rules/cego.md (Auctions, 5): the holder may answer
    selbst only when its own hand could play the raised game; raised to Pagat by the holder of trump 1, the Cego
    holder without it can only say gut, and the raiser plays Pagat."""
    hands, blind = four_hands()  # seat 1 holds trump 1, seat 0 (mano, the Cego holder) does not
    st = to_raise_phase(dealt(hands, blind, gut_selbst=True))
    assert 1 in st["hands"][1] and 1 not in st["hands"][0]
    st = dict(st, speakers=[1, 2, 3], contract=dict(st["contract"], game="zwei_verschiedene"))
    st = move(st, 1, type="call", call="raise")
    assert st["phase"] == "gut_selbst" and C.to_act(st) == [0]
    assert C.legal_moves(st, 0) == [{"type": "call", "call": "gut"}]
    rejects(st, {"type": "call", "call": "selbst", "seat": 0}, "cannot-play-selbst")
    st = move(st, 0, type="call", call="gut")
    assert st["contract"]["game"] == "pagat" and st["contract"]["challenger"] == 1 and st["shown"] == [1]


def test_fixed_payments():
    """Seed 003, Puntuación: Ulti 80, Piccolo 40, Bettel 30 to or from each defender."""
    assert C.FIXED == {"ulti": 80, "piccolo": 40, "bettel": 30}
    hands, blind = four_hands()
    for game in ("piccolo", "bettel"):
        st = dealt(hands, blind)
        for s in (0, 1, 2, 3):
            st = move(st, s, type="call", call="pass")
        st = move(st, 0, type="call", call=game)
        st = play_out(st)
        r = st["last_round"]
        tw = r["tricks_won"][0]
        assert r["challenger_won"] == (tw == 1 if game == "piccolo" else tw == 0)
        assert abs(r["payments"][0]) == 3 * C.FIXED[game]


def test_bettel_ends_at_first_trick_won():
    """Seed 003, Bettel: if the challenger wins a trick the round ends and the defenders win."""
    hands, blind = four_hands()
    st = dealt(hands, blind)
    for s in (0, 1, 2, 3):
        st = move(st, s, type="call", call="pass")
    st = move(st, 0, type="call", call="bettel")
    # seat 0 leads the Juglar: it wins the first trick
    st = move(st, 0, type="play", card=C.JUGLAR)
    while st["phase"] == "play":
        s = C.to_act(st)[0]
        st = move(st, s, **C.timeout_move(st, s))
    assert st["last_round"]["challenger_won"] is False and st["last_round"]["tricks_won"][0] == 1


def test_follow_rules():
    """Seed 003, Desarrollo: follow suit, else trump, else anything; on a trump lead trump if possible."""
    hands = {0: [card(D, 0), 5], 1: [card(D, 4), 6], 2: [card(H, 0), 7], 3: [card(S, 0), card(K, 0)]}
    st = dealt(hands, [8], dealer=3)
    st = dict(
        st, phase="play", contract={"game": "solo", "challenger": 0, "gegensolo": False}, turn=0, leader=0, speakers=[]
    )
    st = move(st, 0, type="play", card=card(D, 0))
    assert C.playable(st, 1) == [card(D, 4)]
    rejects(st, {"type": "play", "card": 6, "seat": 1}, "must-follow")
    st = move(st, 1, type="play", card=card(D, 4))
    assert C.playable(st, 2) == [7]
    st = move(st, 2, type="play", card=7)
    assert sorted(C.playable(st, 3)) == sorted([card(S, 0), card(K, 0)])
    st = move(st, 3, type="play", card=card(S, 0))
    assert st["last_trick"]["winner"] == 2  # the trump wins
    # a trump led: whoever holds a trump must play one, though it holds a suit card too
    hands = {0: [9, card(D, 1)], 1: [card(D, 4), 6], 2: [card(H, 0), card(H, 1)], 3: [card(S, 0), 12]}
    st = dealt(hands, [8], dealer=3)
    st = dict(
        st, phase="play", contract={"game": "solo", "challenger": 0, "gegensolo": False}, turn=0, leader=0, speakers=[]
    )
    st = move(st, 0, type="play", card=9)
    assert C.playable(st, 1) == [6]
    rejects(st, {"type": "play", "card": card(D, 4), "seat": 1}, "must-follow")
    st = move(st, 1, type="play", card=6)
    assert sorted(C.playable(st, 2)) == sorted([card(H, 0), card(H, 1)])  # no trump: anything
    st = move(st, 2, type="play", card=card(H, 0))
    assert C.playable(st, 3) == [12]
    st = move(st, 3, type="play", card=12)
    assert st["last_trick"]["winner"] == 3  # the highest trump


def in_play(hands, blind, game, shown):
    """A crafted deal in play: seat 0 the challenger of ``game``, leading the first trick, ``shown`` on the table."""
    return dict(
        dealt(hands, blind, dealer=3),
        phase="play",
        contract={"game": game, "challenger": 0, "gegensolo": False},
        turn=0,
        leader=0,
        speakers=[],
        shown=list(shown),
        shown_left=list(shown),
    )


def test_eine_leere_shown_card_cannot_win():
    """Seed 003, Eine Leere: "La primera baza deberá empezar con la carta mostrada, o bien con otra carta del mismo
    palo. En cualquier caso, la carta mostrada no podrá ganar la baza en la que sea jugada, aunque abra la baza."
    The shown 1 of diamonds outranks every diamond the others play, yet the best of theirs wins: when it leads the
    first trick, and when it follows suit in a later trick after a substitute led the first."""
    d1, d2, d3, d4 = card(D, 4), card(D, 5), card(D, 6), card(D, 7)  # the 1, 2, 3 and 4 of diamonds
    hands = {0: [d1, 20], 1: [d2, 6], 2: [d3, 7], 3: [card(K, 4), card(K, 5)]}
    st = in_play(hands, [card(D, 3)], "eine_leere", [d1])
    assert C.playable(st, 0) == [d1]  # trump 20 may not lead: the shown card (or a diamond) must
    for s, c in ((0, d1), (1, d2), (2, d3), (3, card(K, 4))):  # nobody trumps: the others follow or discard
        st = move(st, s, type="play", card=c)
    assert st["last_trick"]["winner"] == 1 and st["trick_winners"][0] == [1, d2]
    # a substitute leads the first trick; the shown card, played later, still cannot win its trick
    hands = {0: [d1, d4], 1: [card(D, 1), d3], 2: [d2, card(H, 4)], 3: [card(K, 4), card(K, 5)]}
    st = in_play(hands, [card(D, 3)], "eine_leere", [d1])
    assert sorted(C.playable(st, 0)) == sorted([d1, d4])
    for s, c in ((0, d4), (1, card(D, 1)), (2, d2), (3, card(K, 4))):
        st = move(st, s, type="play", card=c)
    assert st["leader"] == 1 and st["shown_left"] == [d1]  # the queen of diamonds won; the shown card is in hand
    assert C.playable(st, 0) == [d1]  # on a diamond lead the shown card must follow
    for s, c in ((1, d3), (2, card(H, 4)), (3, card(K, 5)), (0, d1)):
        st = move(st, s, type="play", card=c)
    assert st["last_trick"]["winner"] == 1 and st["trick_winners"][1] == [1, d3]  # the 3 of diamonds, not the 1


@pytest.mark.parametrize("first_trump, third_leader", [(5, 3), (20, 2)])
def test_zwei_leere_lead_rules(first_trump, third_leader):
    """Seed 003, Desarrollo (Zwei Leere / Zwei Verschiedene): "el retador abre la segunda baza obligatoriamente";
    "la tercera baza la abrirá uno de los ganadores de las dos primeras bazas (aquel cuya carta ganadora sea más
    alta)".  Seat 2 takes the first trick with ``first_trump``, seat 3 the second with trump 9: the third is led by
    seat 3 after trump 5, and by seat 2, the winner of the first trick, after trump 20."""
    hands = {0: [card(D, 6), card(D, 7), 2], 1: [card(D, 4), 3, 4], 2: [first_trump, 6, 7], 3: [card(D, 5), 8, 9]}
    st = in_play(hands, [10], "zwei_leere", [card(D, 6), card(D, 7)])
    assert sorted(C.playable(st, 0)) == [card(D, 6), card(D, 7)]
    for s, c in ((0, card(D, 6)), (1, card(D, 4)), (2, first_trump), (3, card(D, 5))):
        st = move(st, s, type="play", card=c)
    assert st["last_trick"]["winner"] == 2 and st["leader"] == 0  # challenger leads trick 2
    for s, c in ((0, card(D, 7)), (1, 3), (2, 6), (3, 9)):
        st = move(st, s, type="play", card=c)
    assert st["last_trick"]["winner"] == 3 and st["trick_winners"] == [[2, first_trump], [3, 9]]
    assert st["leader"] == third_leader == C.to_act(st)[0]


def test_zwei_verschiedene_each_shown_suit_leads_one_of_the_first_two_tricks():
    """Seed 003, Zwei Verschiedene: "Se aplican las mismas condiciones que en Zwei Leere", where the shown cards
    "deben jugarse en las dos primeras bazas, o bien ser sustituidas por otras del mismo palo".  After a spade
    substitute leads the first trick, the second is led by the shown club (or a club), not by spades again."""
    s7, k7 = card(S, 7), card(K, 7)  # the shown 7 of spades and 7 of clubs
    hands = {0: [s7, k7, card(S, 6), 2], 1: [card(S, 4), 3, 4, 11], 2: [5, 6, 7, 12], 3: [card(S, 5), 8, 9, 13]}
    st = dealt(hands, [10], dealer=3)
    st = dict(
        st,
        phase="play",
        contract={"game": "zwei_verschiedene", "challenger": 0, "gegensolo": False},
        turn=0,
        leader=0,
        speakers=[],
        shown=[s7, k7],
        shown_left=[s7, k7],
    )
    assert sorted(C.playable(st, 0)) == sorted([s7, k7, card(S, 6)])
    for s, c in ((0, card(S, 6)), (1, card(S, 4)), (2, 5), (3, card(S, 5))):  # the 8 of spades stands for the 7
        st = move(st, s, type="play", card=c)
    assert st["leader"] == 0 and st["shown_left"] == [s7, k7]
    assert C.playable(st, 0) == [k7]
    with pytest.raises(RuleViolation) as info:
        C.decide(st, {"type": "play", "card": s7, "seat": 0, "seed": 1})
    assert info.value.rule == "must-lead-shown" and "lead a card of clubs now" in info.value.detail
    # a game started under rules "1" let spades lead again, as it was played
    assert sorted(C.playable(dict(st, rules="1"), 0)) == sorted([s7, k7])
    st = move(st, 0, type="play", card=k7)
    for s, c in ((1, 3), (2, 6), (3, 8)):
        st = move(st, s, type="play", card=c)
    assert st["trick_no"] == 2 and st["leader"] == 3  # trump 8 beat trump 5: seat 3 leads the third trick
    # the shown card itself leading the first trick leaves the other suit for the second, in both versions
    st = dict(
        dealt(hands, [10], dealer=3),
        phase="play",
        turn=0,
        leader=0,
        speakers=[],
        shown=[s7, k7],
        shown_left=[s7, k7],
        contract={"game": "zwei_verschiedene", "challenger": 0, "gegensolo": False},
    )
    for s, c in ((0, s7), (1, card(S, 4)), (2, 5), (3, card(S, 5))):
        st = move(st, s, type="play", card=c)
    assert C.playable(st, 0) == [k7] == C.playable(dict(st, rules="1"), 0)


NO_TRUMP_BLIND = [card(D, i) for i in range(8)] + [card(K, 0), card(K, 1)]


@pytest.mark.parametrize(
    "game, shown, blind, discard",
    [
        ("zwei_leere", [card(H, 4), card(H, 5)], [3, 9, 17, C.JUGLAR], 3),
        ("zwei_verschiedene", [card(H, 4), card(S, 4)], [3, 9, 17, C.JUGLAR], C.JUGLAR),
        ("zwei_leere", [card(H, 4), card(H, 5)], NO_TRUMP_BLIND, card(D, 7)),  # reading: the weakest card
        ("zwei_verschiedene", [card(H, 4), card(S, 4)], NO_TRUMP_BLIND, card(D, 0)),  # reading: the strongest
    ],
)
def test_show_and_automatic_trump_discard(game, shown, blind, discard):
    """Seed 003, Zwei Leere: "De ella debe descartar el triunfo más bajo, enseñándolo a los defensores"; Zwei
    Verschiedene: "De ella debe descartar el triunfo más alto".  From a blind of trumps 3, 9, 17 and the Juglar,
    Zwei Leere discards trump 3 and Zwei Verschiedene the Juglar, shown to all and added to the Legage; the shown
    cards stay in the hand, the other nine are set aside.  A blind without trumps gives up its weakest card (the 4
    of diamonds), or its strongest (the king of diamonds): the reading of docs/rules/cego.md."""
    st = built({2: shown + [card(H, 6), card(S, 5), card(S, 6)]}, blind=blind)
    hand, full = list(st["hands"][2]), sorted(st["blind"])
    assert [c for c in full if C.is_trump(c)] == sorted(c for c in blind if C.is_trump(c))  # no other trump
    st = dict(
        st, phase="exchange", step="show", speakers=[], contract={"game": game, "challenger": 2, "gegensolo": False}
    )
    assert sorted(shown) in [sorted(o) for o in C.show_options(hand, game)]
    st = move(st, 2, type="show", cards=shown)
    assert st["shown_discard"] == discard and st["shown"] == sorted(shown)
    assert sorted(st["hands"][2]) == sorted(shown + [c for c in full if c != discard])
    assert sorted(st["legage"]) == sorted([c for c in hand if c not in shown] + [discard]) and len(st["legage"]) == 10
    for viewer in (0, "spectator"):
        v = C.view(st, viewer)
        assert v["shown_discard"] == discard and v["shown"] == sorted(shown) and "legage" not in v


def test_garbage_input():
    """Interface contract: malformed commands raise RuleViolation of kind 'invalid'."""
    hands, blind = four_hands()
    st = dealt(hands, blind)
    rejects(st, {"type": "bogus", "seat": 0}, "unknown-move", "invalid")
    rejects(st, {"type": "call", "call": 5, "seat": 0}, "invalid-field", "invalid")
    rejects(st, {"type": "call", "call": "pass", "seat": "x"}, "seat-required", "turn")
    with pytest.raises(RuleViolation):
        C.decide(st, "nonsense")


def test_module_face():
    """Interface contract (domain/base.py): names, bounds and options with defaults."""
    assert C.GAME_ID == "cego" and C.MIN_PLAYERS == 3 and C.MAX_PLAYERS == 5 and C.RULES_VERSION == "2"
    assert C.FOLDS_RULES == ("1",)  # logs of rules "1" still fold as played (see test_rules_v1_logs_replay)
    for spec in C.OPTIONS["properties"].values():
        assert "default" in spec and "description" in spec


# ------------------------------------------------------------------ contracts won and lost, paid per the table

SEED_FACTORS = {  # Seed 003, Puntuación table: (sin Solo, Gegensolo)
    "cego": (1, 2),
    "eine": (2, 3),
    "eine_leere": (3, 4),
    "zwei_leere": (4, 5),
    "zwei_verschiedene": (5, 6),
    "pagat": (6, 7),
}
TOP = [C.JUGLAR, 21, 20, 19, 18, 17, 16, 15, 14, 13]


def built(fixed: dict, blind=None, n_active=4, dealer=3, n=4):
    """A crafted deal: ``fixed`` seats get their cards (padded from the rest), the blind likewise."""
    deck = C.deck_for(n_active)
    b, h = (10, 11) if n_active == 4 else (12, 13)
    used = [c for cs in fixed.values() for c in cs] + list(blind or [])
    rest = [c for c in deck if c not in used]
    hands = {}
    seats = [(dealer + 1 + i) % n for i in range(n) if n_active == n or (dealer + 1 + i) % n != dealer]
    for s in seats:
        cs = list(fixed.get(s, []))
        while len(cs) < h:
            cs.append(rest.pop(0))
        hands[s] = cs
    blind = list(blind or [])
    while len(blind) < b:
        blind.append(rest.pop(0))
    assert not rest
    assert sorted([c for cs in hands.values() for c in cs] + blind) == sorted(deck)
    return dealt(hands, blind, n=n, dealer=dealer)


def expected_payments(st):
    """Payments recomputed from the final state by the seed's Puntuación rules."""
    con = st["contract"]
    ch, game = con["challenger"], con["game"]
    n = len(st["players"])
    part = list(st["active"]) + ([st["sitting_out"]] if st["sitting_out"] is not None else [])
    pay = [0] * n
    if game in C.FIXED:
        won = {
            "ulti": st["last_trick"]["winner"] == ch and [ch, 1] in st["last_trick"]["cards"],
            "piccolo": st["tricks_won"][ch] == 1,
            "bettel": st["tricks_won"][ch] == 0,
        }[game]
        amt = {"ulti": 80, "piccolo": 40, "bettel": 30}[game]
    else:
        aside = st["blind"] if game == "solo" else st["legage"]
        counted = st["tricks_won"][ch] or game != "solo"  # the blind needs a trick; the Legage counts always
        mine = list(st["won"][ch]) + (list(aside) if counted else [])
        theirs = [c for s in range(n) if s != ch for c in st["won"][s]] + ([] if counted else list(aside))
        cp, dp = C.count_points(mine), C.count_points(theirs)
        won = cp >= 40
        if game == "solo":
            f = 2 if won else 1
        else:
            f = SEED_FACTORS[game][1 if con.get("gegensolo") else 0]
        amt = ((cp if won else dp) - 39) * f
    for s in part:
        if s != ch:
            pay[s] += -amt if won else amt
            pay[ch] += amt if won else -amt
    return won, amt, pay


def finish(st, script=None):
    """Play out: ``script(st, seat)`` may pick a card, else the lowest legal card (timeout move)."""
    while st["phase"] == "play":
        seat = C.to_act(st)[0]
        c = script(st, seat) if script else None
        st = move(st, seat, **({"type": "play", "card": c} if c is not None else C.timeout_move(st, seat)))
    return st


def check_paid(st, game, won):
    r = st["last_round"]
    assert r["game"] == game and r["challenger_won"] is won
    ew, amt, pay = expected_payments(st)
    assert ew is won and r["amount"] == amt and r["payments"] == pay and sum(pay) == 0
    if game not in C.FIXED and game != "solo":
        assert r["factor"] == SEED_FACTORS[game][1 if st["contract"].get("gegensolo") else 0]
    return r


def raise_to(st, level: str):
    """All pass twice (mano 0 declares Cego), then seats 1, 2, 3, 0, 1 raise one level each up to ``level``."""
    st = to_raise_phase(st)
    k = C.LEVELS.index(level)
    for _i in range(k):
        s = C.to_act(st)[0]
        st = move(st, s, type="call", call="raise")
    while st["phase"] == "raise":
        st = move(st, C.to_act(st)[0], type="call", call="pass")
    assert st["contract"]["game"] == level
    return st


def ulti_hands():
    """Seat 0: trump 1 and the ten top trumps; trumps 2..12 split 6/5 so the defenders run out of them."""
    return {
        0: [1] + TOP,
        1: [card(H, i) for i in range(8)] + [card(D, 0), card(D, 1), card(D, 2)],
        2: list(range(2, 8)),
        3: list(range(8, 13)),
    }


def highest_but_pagat(st, seat):
    if seat != st["contract"]["challenger"]:
        return None
    legal = C.playable(st, seat)
    others = [c for c in legal if c != 1]
    return max(others, key=C.strength) if others else 1


@pytest.mark.parametrize("won", [True, False])
def test_ulti_won_and_lost(won):
    """Seed 003, Ulti + Puntuación: the holder of trump 1 wins by taking the last trick with it; Ulti is paid 80 by
    (or to) each defender; the blind takes no part."""
    if won:  # seat 0 leads its ten top trumps; the defenders' eleven trumps are gone before the last trick
        st = built(ulti_hands())
    else:  # seat 1 keeps a trump for the last trick, when trump 1 must be played
        st = built({0: [1] + [card(H, i) for i in range(8)] + [card(D, 0), card(D, 1)], 1: [12] + TOP})
    st = move(st, 0, type="call", call="ulti")
    assert st["contract"] == {"game": "ulti", "challenger": 0, "gegensolo": False}
    st = finish(st, highest_but_pagat)
    r = check_paid(st, "ulti", won)
    assert r["amount"] == 80 and r["payments"][0] == (240 if won else -240)
    if won:
        assert st["last_trick"]["winner"] == 0 and [0, 1] in st["last_trick"]["cards"]
    else:
        assert st["last_trick"]["winner"] != 0 or [0, 1] not in st["last_trick"]["cards"]


def test_solo_lost():
    """Seed 003, Solo + Puntuación: a Solo lost pays (defenders' points - 39) x 1 to each defender."""
    weak = [2, 3, 4, 5, 6, 7, 8, 9, card(K, 7), card(S, 7), card(H, 7)]
    assert C.solo_allowed(weak)
    st = built({0: weak})
    st = move(st, 0, type="call", call="solo")
    for s in (1, 2, 3):
        st = move(st, s, type="call", call="pass")
    st = finish(st)
    r = check_paid(st, "solo", False)
    assert r["defender_points"] >= 40 and r["amount"] == r["defender_points"] - 39
    assert r["payments"][0] == -3 * r["amount"]


@pytest.mark.parametrize("won", [True, False])
def test_cego_won_and_lost(won):
    """Seed 003, Cego (juego normal) + Puntuación: keep two, take the blind, discard one; the Legage counts for
    the challenger; factor 1 without Solo: (winner's points - 39) per defender."""
    if won:
        st = built({0: TOP[:2] + [card(D, 0), card(H, 0)]}, blind=TOP[2:] + [12, 11])
        keep, discard = [C.JUGLAR, 21], 11
    else:
        st = built(
            {0: [card(D, 7), card(H, 7)] + [card(D, 6), card(H, 6)]},
            blind=[
                card(D, 5),
                card(H, 5),
                card(S, 7),
                card(K, 7),
                card(S, 6),
                card(K, 6),
                card(S, 5),
                card(K, 5),
                card(D, 4),
                card(H, 4),
            ],
        )
        keep, discard = [card(D, 7), card(H, 7)], card(H, 4)
    st = to_raise_phase(st)
    for s in (1, 2, 3):
        st = move(st, s, type="call", call="pass")
    st = move(st, 0, type="call", call="cego")
    st = move(st, 0, type="keep", cards=keep)
    st = move(st, 0, type="discard", cards=[discard])
    assert len(st["legage"]) == 10 and discard in st["legage"]
    st = finish(st)
    check_paid(st, "cego", won)


@pytest.mark.parametrize("won", [True, False])
def test_eine_won_and_lost(won):
    """Seed 003, Eine + table: the challenger keeps one card, plays it with the blind, the other ten are Legage;
    factor 2 without Solo."""
    if won:
        st = built({1: [12, card(D, 0), card(H, 0), card(S, 0)]}, blind=TOP)
        keep = 12
    else:
        low = [card(s, i) for s in (D, H) for i in (4, 5, 6, 7)]
        st = built({1: [card(S, 7), card(K, 7)]}, blind=low + [card(S, 6), card(K, 6)])
        keep = card(S, 7)
    st = raise_to(st, "eine")
    assert st["contract"]["challenger"] == 1 and st["step"] == "keep1"
    st = move(st, 1, type="keep", cards=[keep])
    assert len(st["hands"][1]) == 11 and len(st["legage"]) == 10 and st["phase"] == "play"
    st = finish(st)
    check_paid(st, "eine", won)


@pytest.mark.parametrize("won", [True, False])
def test_eine_leere_won_and_lost(won):
    """Seed 003, Eine Leere + table: one numeral is shown and played with the blind (it leads the first trick and
    cannot win it); factor 3 without Solo."""
    shown = card(K, 7)
    if won:
        st = built({2: [shown, card(D, 0), card(H, 0), card(S, 0)]}, blind=TOP)
    else:
        low = [card(s, i) for s in (D, H) for i in (4, 5, 6, 7)]
        st = built({2: [shown, card(S, 7)]}, blind=low + [card(S, 6), card(K, 6)])
    st = raise_to(st, "eine_leere")
    assert st["contract"]["challenger"] == 2 and st["step"] == "show"
    st = move(st, 2, type="show", cards=[shown])
    assert st["shown"] == [shown] and len(st["hands"][2]) == 11 and len(st["legage"]) == 10
    if won:  # with only trumps besides the shown card, it must open the first trick
        assert C.playable(st, 2) == [shown]
    st = finish(st)
    first = st["trick_winners"][0]
    assert first[1] != shown
    check_paid(st, "eine_leere", won)


def test_zwei_verschiedene_third_trick_goes_to_the_higher_winning_card_of_the_first_two():
    """Seed 003, Zwei Verschiedene: "Se aplican las mismas condiciones que en Zwei Leere", whose third trick
    is led by whoever won one of the first two with the higher card. Here the first trick's winner (trump
    12) leads the third, though the second trick went to another seat (trump 8)."""
    s7, k7 = card(S, 7), card(K, 7)
    hands = {0: [s7, k7, card(S, 6), 2], 1: [card(S, 4), 3, 4, 11], 2: [5, 6, 7, 12], 3: [card(S, 5), 8, 9, 13]}
    st = in_play(hands, [10], "zwei_verschiedene", [s7, k7])
    for s, c in ((0, card(S, 6)), (1, card(S, 4)), (2, 12), (3, card(S, 5))):
        st = move(st, s, type="play", card=c)
    assert st["last_trick"]["winner"] == 2
    for s, c in ((0, k7), (1, 3), (2, 6), (3, 8)):
        st = move(st, s, type="play", card=c)
    assert st["last_trick"]["winner"] == 3 and st["trick_no"] == 2
    assert st["leader"] == 2  # trump 12 (first trick) is higher than trump 8 (second)


@pytest.mark.parametrize("won", [True, False])
def test_zwei_verschiedene_won_and_lost(won):
    """Seed 003, Zwei Verschiedene + table: two numerals of different suits shown, the blind's highest trump
    discarded openly; factor 5 without Solo."""
    shown = [card(S, 7), card(K, 7)]
    if won:
        st = built({0: shown + [card(D, 0), card(H, 0)]}, blind=TOP)
    else:
        low = [card(s, i) for s in (D, H) for i in (4, 5, 6, 7)]
        st = built({0: shown + [card(S, 6)]}, blind=low + [card(K, 6), 2])
    st = raise_to(st, "zwei_verschiedene")
    assert st["contract"]["challenger"] == 0 and st["step"] == "show"
    st = move(st, 0, type="show", cards=shown)
    assert st["shown_discard"] == (C.JUGLAR if won else 2) and st["shown_discard"] in st["legage"]
    assert len(st["hands"][0]) == 11 and len(st["legage"]) == 10
    st = finish(st)
    check_paid(st, "zwei_verschiedene", won)


@pytest.mark.parametrize("won", [True, False])
def test_pagat_won_and_lost(won):
    """Seed 003, Pagat + table: trump 1 shown opens the first trick and loses it, the other ten are Legage;
    factor 6 without Solo."""
    if won:
        st = built({1: [1, card(D, 0), card(H, 0), card(S, 0)], 0: [card(S, 1), card(K, 1)]}, blind=TOP)
    else:
        low = [card(s, i) for s in (D, H) for i in (4, 5, 6, 7)]
        st = built({1: [1, card(S, 7), card(K, 7)], 0: [card(S, 1), card(K, 1)]}, blind=low + [card(S, 6), card(K, 6)])
    st = raise_to(st, "pagat")
    assert st["contract"]["challenger"] == 1 and st["phase"] == "play"
    assert st["shown"] == [1] and C.playable(st, 1) == [1] and len(st["legage"]) == 10
    st = finish(st)
    assert st["trick_winners"][0][0] != 1
    check_paid(st, "pagat", won)


@pytest.mark.parametrize("declarer_loses", [True, False])
def test_rauber_payments(declarer_loses):
    """Seed 003, Räuber: the player with most points pays 40 to each other player, 80 if it declared Räuber."""
    if declarer_loses:
        st = built({0: TOP + [12]})
    else:
        st = built({2: TOP + [12]})
    st = to_raise_phase(st)
    for s in (1, 2, 3):
        st = move(st, s, type="call", call="pass")
    st = move(st, 0, type="call", call="rauber")
    st = finish(st)
    r = st["last_round"]
    lo = 0 if declarer_loses else 2
    assert r["losers"] == [lo] and r["points"][lo] == max(p for p in r["points"] if p is not None)
    amt = 80 if declarer_loses else 40
    assert r["payments"] == [(-3 * amt if s == lo else amt) for s in range(4)]


def test_rauber_loser_pays_the_dealer_who_sits_out():
    """Seed 003, Räuber: "el perdedor pagará 40 a cada uno, el doble si es él quien declaró el juego"; Reglas
    generales: the dealer who sits out "paga o recibe lo mismo que los defensores".  With five players the declarer
    who loses Räuber pays 80 to each of the other four, the dealer included (docs/rules/cego.md, Scoring)."""
    st = built({0: TOP + [12]}, n=5, dealer=4)
    assert st["sitting_out"] == 4 and st["active"] == [0, 1, 2, 3]
    st = to_raise_phase(st)
    for s in (1, 2, 3):
        st = move(st, s, type="call", call="pass")
    st = finish(move(st, 0, type="call", call="rauber"))
    r = st["last_round"]
    assert r["game"] == "rauber" and r["losers"] == [0] and r["payments"] == [-320, 80, 80, 80, 80]


def test_three_player_round_end_to_end():
    """Seed 003, Nota (tres jugadores) + Puntuación: 51 cards, 12 blind, 13 each, a whole round scored; the
    payments follow the table and sum to zero."""
    st0 = C.initial_state(NAMES[:3], {"rounds": 1})
    st = fold(st0, C.decide(st0, {"type": "start", "seat": None, "seed": 7}))
    assert len(st["blind"]) == 12 and all(len(h) == 13 for h in st["hands"])
    assert sorted(st["blind"] + [c for h in st["hands"] for c in h]) == sorted(C.deck_for(3))
    while st["phase"] != "finished":
        seat = C.to_act(st)[0]
        st = move(st, seat, **C.timeout_move(st, seat))
    r = st["last_round"]
    won, amt, pay = expected_payments(st)
    assert r["challenger_won"] is won and r["amount"] == amt and r["payments"] == pay and sum(pay) == 0
    assert st["outcome"]["scores"] == pay and any(pay)


def test_five_player_round_dealer_pays_as_defender():
    """Seed 003, Reglas generales: with five players the dealer sits out but pays or receives what each defender
    does; the round sums to zero."""
    st = built(ulti_hands(), n=5, dealer=4)
    assert st["sitting_out"] == 4 and st["active"] == [0, 1, 2, 3] and st["hands"][4] == []
    st = move(st, 0, type="call", call="ulti")
    st = finish(st, highest_but_pagat)
    r = check_paid(st, "ulti", True)
    assert r["payments"] == [320, -80, -80, -80, -80]


# ------------------------------------------------------------------ the Legage counts


def test_legage_counts_for_a_challenger_without_a_trick():
    """Seed 003, Cego: "Los descartes que el retador realice al cambiar la mano por la ciega (Legage) se guardan y
    cuentan en su puntuación final"; Puntuación: "el retador y los defensores cuentan los puntos conseguidos en las
    bazas y sus cartas guardadas".  The condition "siempre que haya ganado al menos una baza" is the blind's (Solo)
    only: a Cego challenger who takes no trick still counts its Legage, here 42 points, and wins."""
    rich = [C.JUGLAR, 21, 1] + [card(s, 0) for s in (D, H, S, K)] + [card(D, 1), card(H, 1)]
    low = [card(D, 7), card(H, 7), card(D, 6), card(H, 6), card(S, 6), card(K, 6), card(D, 5), card(H, 5), card(S, 5)]
    st = built({0: rich + [card(S, 7), card(K, 7)]}, blind=low + [card(S, 1)])
    st = to_raise_phase(st)
    for s in (1, 2, 3):
        st = move(st, s, type="call", call="pass")
    st = move(st, 0, type="call", call="cego")
    st = move(st, 0, type="keep", cards=[card(S, 7), card(K, 7)])
    st = move(st, 0, type="discard", cards=[card(S, 1)])  # the queen of spades joins the Legage
    assert sorted(st["legage"]) == sorted(rich + [card(S, 1)]) and C.count_points(st["legage"]) == 42
    st = finish(st)
    r = check_paid(st, "cego", True)
    assert r["tricks_won"][0] == 0 and r["aside_to_challenger"] is True
    assert (r["challenger_points"], r["defender_points"], r["amount"]) == (42, 37, 3)
    assert r["payments"] == [9, -3, -3, -3]
    # a game started under rules "1" gave the Legage to the defenders, as it was played
    old = C.score_round(dict(st, rules="1"))
    assert (old["challenger_points"], old["challenger_won"], old["payments"]) == (0, False, [-120, 40, 40, 40])
    # the blind of a Solo still needs a trick won
    solo = C.score_round(dict(st, contract={"game": "solo", "challenger": 0, "gegensolo": False}))
    assert solo["aside_to_challenger"] is False and solo["challenger_points"] == 0


# ------------------------------------------------------------------ logs of earlier rules versions

FIXTURES = sorted((Path(__file__).parent / "fixtures" / "cego_rules_v1").glob("*.jsonl"))


def _command(state: dict, env: dict) -> dict:
    """The seat's move that decided ``env`` (the first event of its batch)."""
    d, seat = env["data"], int(env["actor"][5:])
    part = (env.get("private") or {}).get(str(seat), {})
    if env["type"] == "Called":
        return {"type": "call", "call": d["call"]}
    if env["type"] == "Played":
        return {"type": "play", "card": d["card"]}
    if d["step"] == "discard":
        return {"type": "discard", "cards": part["cards"]}
    if state["contract"]["game"] in ("cego", "eine"):
        return {"type": "keep", "cards": part["kept"]}
    return {"type": "show", "cards": d["shown"]}


def _replay(envs: list[dict], rules: str | None = None) -> list[str]:
    """Fold the log, deciding every seat's move again on the state before it (``rules``: read that state as this
    version instead).  Returns where the decisions differ from the log (nothing when it replays exactly)."""
    table = tables.fold(envs[:1])
    i, differences = 1, []
    while i < len(envs):
        env = envs[i]
        if not env["actor"].startswith("seat:"):  # the start, the reveals of the deals
            table = tables.fold([env], table)
            i += 1
            continue
        seat, command = int(env["actor"][5:]), _command(table["state"], env)
        # the move's envelopes: what the log's own rules decide for it
        j = i + len(C.decide(table["state"], {**command, "seat": seat, "seed": 1}))
        state = table["state"] if rules is None else dict(table["state"], rules=rules)
        try:
            if command not in C.legal_moves(state, seat):
                raise RuleViolation("not-legal", "not among the legal moves")
            decided = C.decide(state, {**command, "seat": seat, "seed": 1})
        except RuleViolation as exc:
            differences.append(f"v{env['version']}: {command} refused ({exc.detail})")
            decided = []
        recorded = envs[i:j]
        if decided and len(decided) != len(recorded):
            differences.append(f"v{env['version']}: {len(decided)} events decided, {len(recorded)} recorded")
        for dec, rec in zip(decided, recorded):
            if dec["type"] != rec["type"] or (
                dec["type"] != "RoundDealt"
                and (  # other seeds deal other cards
                    dec["data"] != rec["data"] or (dec.get("private") or {}) != (rec.get("private") or {})
                )
            ):
                differences.append(f"v{rec['version']}: decided {dec['type']} {dec['data']}")
                break
        table = tables.fold(recorded, table)  # on with the log as it was written
        i = j
    return differences


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_rules_v1_logs_replay(path):
    """Rules versions (docs/rules/cego.md): a game recorded under rules "1" still verifies, folds to its recorded
    outcome, and every move of it is decided again exactly as it was, although the same log read under the
    current rules would go otherwise (each fixture plays a rule that changed)."""
    lines = path.read_bytes().splitlines()
    report = verify_export(lines)
    assert report["ok"], report["problems"]
    header, envs = report["header"], report["events"]
    assert header["rules_version"] == "1" and {e.get("rules") for e in envs} == {"1"}
    table = tables.fold(envs)
    assert table["state"]["rules"] == "1" and C.view(table["state"], "spectator")["rules_version"] == "1"
    assert tables.outcome(table) == header["outcome"] and C.outcome(table["state"]) is not None
    assert _replay(envs) == []
    assert _replay(envs, rules=C.RULES_VERSION) != []
