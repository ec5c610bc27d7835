"""The twelve optional modifiers of Cripple Mr Onion (seed 002, #0-#11).

Each test cites the clause it checks ("#4i" is modifier #4, clause i) and
builds hands that trigger it; the readings are in docs/rules/onion.md.
Evaluator tests call ``onion.hands.evaluate`` with the modifiers in force for
one hand; game tests play a table to its Showdown and put chosen hands in the
players' hands just before it.
"""

from __future__ import annotations

import pytest

from domain import onion as O
from domain.base import RuleViolation
from domain.onion import hands as H
from domain.onion.hands import ARCH, ATUIN, DEATH, FATE, FOOL, LADY, SENDER, card

NAMES = [f"p{i}" for i in range(7)]


def fold(st, events):
    for ev in events:
        st = O.evolve(st, ev)
    return st


def act(st, seat, **move):
    return fold(st, O.decide(st, {**move, "seat": seat, "seed": 5}))


def kinds(res):
    return [g["kind"] for g in res["groupings"]]


def ev(cards, **mods):
    return H.evaluate(cards, mods)


def key(kind, sub=H.SUB, fool=False):
    return (H.POS_FOOL if fool else H.POS_BASE)[kind] * 64 + sub


def auto(st, stop=("predeclare", "between_rounds", "finished")):
    """Timeout moves (never a declaration) until a phase in ``stop``."""
    guard = 0
    while st["phase"] not in stop:
        seat = O.to_act(st)[0]
        st = act(st, seat, **O.timeout_move(st, seat))
        guard += 1
        assert guard < 500
    return st


def table(hands, up=None, deck=None, wild=False, rounds=1, stop=("predeclare", "between_rounds", "finished"), **opts):
    """A table of len(hands) players (seat 0 deals, seat 1 is the Elder) whose
    hands are ``hands`` from the end of the buying on; the rest of the round is
    played with zero bets up to the Showdown (or its end)."""
    n = len(hands)
    st = O.initial_state(NAMES[:n], {"stake": 1, "bankroll": 50, "rounds": rounds, **opts})
    st = fold(st, O.decide(st, {"type": "start", "seat": None, "seed": 3}))
    st = auto(st, stop=("dealer_extra",))
    st = dict(st)
    st["hands"] = [sorted(h) for h in hands]
    st["up"] = [sorted(u) for u in (up or [[] for _ in hands])]
    if deck is not None:
        st["deck"] = list(deck)
    if st["mods"] is not None:
        mods = O._mods_round(None, n)
        mods["wild"] = mods["round_wild"] = wild
        st["mods"] = mods
    return auto(st, stop)


def ready_all(st):
    while st["phase"] == "predeclare":
        st = act(st, st["turn"], type="ready")
    return st


def winner(st):
    return st["last_round"]["winner"]


def decl(st, seat, modifier, **fields):
    return act(st, seat, type="declare", modifier=modifier, **fields)


def has_decl(st, seat, modifier):
    return any(m["type"] == "declare" and m["modifier"] == modifier for m in O.legal_moves(st, seat))


# named hands (no special card unless said)
GREAT_ONION = [
    card(13, 0, 0),
    card(12, 2, 0),
    card(11, 2, 0),
    card(13, 3, 0),
    card(12, 0, 0),
    card(1, 0, 0),
    card(1, 1, 0),
    card(1, 2, 0),
    card(1, 3, 0),
    card(1, 0, 1),
]
LESSER_ONION = GREAT_ONION[:4] + GREAT_ONION[5:9] + [card(2, 0, 1), card(4, 1, 1)]
RUN9 = [card(r, 2, 0) for r in range(2, 11)] + [card(5, 1, 1)]  # hearts 2..10
RUN10 = [card(r, 2, 1) for r in range(1, 11)]  # cups ace..10
SEVEN = [
    card(1, 3, 1),
    card(1, 1, 1),
    card(2, 0, 0),
    card(2, 1, 0),
    card(4, 2, 0),
    card(5, 3, 0),
    card(6, 0, 0),
    card(3, 3, 1),
    card(9, 0, 1),
    card(7, 1, 1),
]  # seven-card onion A-A-2-2-4-5-6


# ------------------------------------------------------------------ options


def test_options_are_twelve_booleans_off_by_default():
    """Issue 8: every modifier #0..#11 is a boolean option, default false, with a description;
    with all off the table keeps the base game (no modifier state)."""
    props = O.OPTIONS["properties"]
    names = [n for n, _ in O.MODIFIERS]
    assert len(names) == 12
    for n in names:
        assert props[n]["type"] == "boolean" and props[n]["default"] is False and props[n]["description"]
    assert O.initial_state(NAMES[:3], {})["mods"] is None
    assert O.initial_state(NAMES[:3], dict.fromkeys(names, True))["mods"] is not None
    assert O.RULES_VERSION != "1"


def test_base_showdown_unchanged_without_modifiers():
    """With no modifier on, the Showdown is the base game's (values are rank lists)."""
    st = table([SEVEN, GREAT_ONION[:5] + [card(3, 0, 1), card(4, 0, 1), card(5, 0, 1), card(6, 0, 1), card(9, 1, 1)]])
    assert st["phase"] in ("between_rounds", "finished") and winner(st) == 0
    assert st["last_round"]["showdown"]["0"]["value"][0] == H.RANK["seven_card_onion"]


def test_modified_evaluator_agrees_with_base_when_nothing_applies():
    """The evaluator under modifiers finds the same best arrangement as the base one when no
    modifier touches the hand (values in positions)."""
    import random

    r = random.Random(8)
    for _ in range(150):
        h = r.sample(range(104), 10)
        assert [k // 64 for k in ev(h)["value"]] == H.best_arrangement(h)["value"]


# ---------------------------------------------------------------- #0


def test_0i_nine_card_run_cripples_a_great_onion_and_cannot_be_retracted():
    """#0i: a nine-card running flush cripples a Great Onion and wins; once crippled the Onion may
    not be retracted (the duel ends at once: no answer turn for the crippled player)."""
    assert ev(RUN9, crippling=True)["run"]["length"] == 9
    st = table([RUN9, GREAT_ONION], crippling=True)
    assert winner(st) == 0
    assert st["mods"]["sd"]["duels"] == [{"winner": 0, "loser": 1, "how": "crippled"}]
    # and the other way round: the crippler is the Elder
    st = table([GREAT_ONION, RUN9], crippling=True)
    assert winner(st) == 1


def test_0ii_ten_card_run_outcripples_and_cripples_a_lesser_onion():
    """#0ii: a ten-card running flush out-cripples a nine-card one in crippling a Great Onion and may
    also cripple a Lesser Onion; a nine-card run does not cripple a Lesser Onion."""
    st = table([RUN10, GREAT_ONION, RUN9], crippling=True)  # Elder 1 Great Onion, 2 nine-run, Dealer 0 ten-run
    assert [d["how"] for d in st["mods"]["sd"]["duels"]] == ["crippled", "out-crippled"]
    assert winner(st) == 0
    st = table([RUN10, LESSER_ONION], crippling=True)
    assert st["mods"]["sd"]["duels"][0]["how"] == "crippled" and winner(st) == 0
    st = table([RUN9, LESSER_ONION], crippling=True)
    assert st["mods"]["sd"]["duels"][0]["how"] == "value" and winner(st) == 1


def test_0_running_flush_reading_ace_high_no_wrap():
    """#0 (reading): an ace is low or high in a run, which does not wrap round."""
    high = [card(r, 1, 0) for r in range(5, 14)] + [card(1, 1, 0)]  # 5..K + A of spades: ten-card run 5..A
    assert ev(high, crippling=True)["run"]["length"] == 10
    wrap = [card(r, 1, 0) for r in (10, 11, 12, 13, 1, 2, 3, 4, 5)] + [card(9, 0, 0)]
    assert ev(wrap, crippling=True)["run"] is None


# ---------------------------------------------------------------- #1


FOUR_PLUS_EIGHT = [card(2, 0, 0), card(4, 1, 0), card(5, 2, 0), card(10, 3, 0), card(8, 0, 1)]


def test_1i_null_eight_trumps_up_an_onion():
    """#1i: while eights are not wild an eight may count zero to trump up an onion (4 -> 5 cards)."""
    assert kinds(ev(FOUR_PLUS_EIGHT)) == ["four_card_onion"]
    res = ev(FOUR_PLUS_EIGHT, null=True)
    assert kinds(res) == ["five_card_onion"] and res["null_eights"] == 1
    assert any("null eight" in n for n in res["notes"])
    # no onion beyond seven cards: three nulls cannot make an eight-card onion of five
    five = [card(1, 0, 0), card(2, 1, 0), card(3, 2, 0), card(5, 3, 0), card(10, 0, 1)]
    res = ev(five + [card(8, 0, 0), card(8, 1, 0), card(8, 2, 0)], null=True)
    assert res["groupings"][0]["kind"] == "seven_card_onion" and res["null_eights"] == 2


def test_1i_equal_onions_fewer_null_eights_wins():
    """#1i: between two onions of as many cards, the one with fewer null eights wins."""
    clean = ev([card(2, 1, 1), card(3, 2, 1), card(4, 3, 1), card(5, 0, 1), card(7, 1, 0)], null=True)
    nulled = ev(FOUR_PLUS_EIGHT, null=True)
    assert clean["top"] == nulled["top"] == "five_card_onion"
    assert H.compare(clean["value"], nulled["value"]) == 1


def test_1ii_round_after_a_null_eight_is_wild_then_not():
    """#1ii: in the round after one in which a null eight was played eights are wild (the Wild
    Royal may be played); the round after, they are not."""
    other = [
        card(6, 0, 1),
        card(6, 1, 1),
        card(3, 2, 1),
        card(9, 3, 1),
        card(12, 2, 1),
        card(2, 3, 1),
        card(4, 0, 1),
        card(7, 3, 0),
        card(7, 2, 1),
        card(13, 1, 0),
    ]
    mine = FOUR_PLUS_EIGHT + [card(3, 0, 0), card(9, 0, 0), card(6, 2, 0), card(13, 2, 0), card(5, 1, 1)]
    st = table([other, mine], rounds=3, stop=("draw",), null_eights=True)
    assert st["round_no"] == 2 and st["mods"]["wild"] and st["mods"]["round_wild"]
    sd = st["last_round"]["showdown"]
    assert sd["1"]["null_eights"] >= 1
    wild_royal = [card(8, 0, 0), card(8, 1, 1), card(8, 3, 0)]
    assert ev(wild_royal, wild=True)["top"] == "wild_royal"
    assert ev(wild_royal)["top"] is None
    assert (
        H.compare(ev(wild_royal, wild=True)["value"], ev([card(7, 0, 0), card(7, 1, 0), card(7, 2, 0)])["value"]) == 1
    )
    while st["round_no"] == 2:
        st = act(st, st["turn"], **O.timeout_move(st, st["turn"]))
    assert st["round_no"] == 3 and not st["mods"]["wild"]


# ------------------------------------------------------------ #2 and #3 with #1


def _eight_run():
    """Hearts 2..10 with the 5 replaced by a (wild) eight of clubs: a nine-card run with one wild."""
    return [card(r, 2, 0) for r in (2, 3, 4, 6, 7, 8, 9, 10)] + [card(8, 0, 1), card(5, 1, 1)]


def test_2_wild_crippling_counts_wild_cards_with_1():
    """#2 with #1ii: with wild eights the run must hold at most as many wild cards as the Onion it
    cripples; without #2 any run cripples."""
    run = ev(_eight_run(), wild=True, crippling=True)["run"]
    assert run == {"length": 9, "wilds": 1, "suit": 2, "low": 2}
    st = table([_eight_run(), GREAT_ONION], wild=True, crippling=True, null_eights=True, wild_crippling=True)
    assert winner(st) == 1 and st["mods"]["sd"]["duels"][0]["how"] == "value"
    st = table([_eight_run(), GREAT_ONION], wild=True, crippling=True, null_eights=True)
    assert winner(st) == 0 and st["mods"]["sd"]["duels"][0]["how"] == "crippled"
    # a Great Onion holding a wild eight may be crippled by a run with one wild
    onion_w = GREAT_ONION[:9] + [card(8, 3, 1)]
    assert ev(onion_w, wild=True)["onion_wilds"] == 1
    st = table([_eight_run(), onion_w], wild=True, crippling=True, null_eights=True, wild_crippling=True)
    assert winner(st) == 0


OCTAVO = [card(8, s, p) for s in range(4) for p in range(2)] + [card(2, 0, 0), card(3, 1, 0)]


def test_3_octavo_beats_lesser_onions_and_is_not_crippled_with_1():
    """#3 with #1ii: with wild eights, eight eights are a Lesser Onion that beats other Lesser Onions
    and cannot be crippled; without wild eights they are no Onion."""
    res = ev(OCTAVO, wild=True, octavo=True)
    assert res["top"] == "octavo" and res["value"][0] == key("lesser_onion", H.SUB_OCTAVO)
    assert H.compare(res["value"], ev(LESSER_ONION, wild=True)["value"]) == 1
    assert H.compare(res["value"], ev(GREAT_ONION, wild=True)["value"]) == -1
    assert ev(OCTAVO, octavo=True)["top"] != "octavo"
    st = table([RUN10, OCTAVO], wild=True, crippling=True, null_eights=True, octavo=True)
    assert winner(st) == 1 and st["mods"]["sd"]["duels"][0]["how"] == "value"


# ---------------------------------------------------------------- #4 and #5


ELDER_LADY = [
    card(13, 0, 0),
    card(12, 2, 0),
    card(1, 1, 0),
    LADY,
    card(2, 0, 1),
    card(3, 2, 1),
    card(4, 3, 1),
    card(5, 0, 1),
    card(6, 2, 1),
    card(7, 3, 1),
]


def test_4i_lady_declared_before_showdown_and_replaced():
    """#4i: without wild eights the Lady may be declared before Showdown and replaced by the
    player's choice of one of the next two cards; the other goes to the discards; no second time."""
    deck = [card(9, 0, 0), card(1, 3, 0)] + [card(2, 2, 0)] * 0
    st = table([SEVEN, ELDER_LADY], deck=deck, lady=True)
    assert st["phase"] == "predeclare" and st["turn"] == 1
    assert has_decl(st, 1, "lady")
    discards = st["discards"]
    st = decl(st, 1, "lady")
    assert st["phase"] == "choose" and O.legal_moves(st, 1) == [{"type": "choose", "card": c} for c in deck]
    assert O.view(st, 1)["modifiers"]["offer"] == deck
    assert "offer" not in O.view(st, 0)["modifiers"] and "offer" not in O.view(st, "spectator")["modifiers"]
    with pytest.raises(RuleViolation):
        act(st, 1, type="choose", card=card(5, 0, 0))
    st = act(st, 1, type="choose", card=card(1, 3, 0))
    assert LADY not in st["hands"][1] and card(1, 3, 0) in st["hands"][1] and len(st["hands"][1]) == 10
    assert st["discards"] == discards + 2 and st["mods"]["table"][1] == [LADY]
    assert st["phase"] == "predeclare" and not has_decl(st, 1, "lady")
    st = ready_all(st)
    assert st["phase"] == "showdown" and st["turn"] == 0  # the Elder's hand is on the table
    st = act(st, 0, type="show")
    st = act(st, st["turn"], type="concede")
    assert winner(st) == 1  # Double Onion (K-A, Q-A) beats the seven-card onion


def test_4i_showdown_order_elder_answers_a_beaten_hand_with_the_lady():
    """Seed 002 Showdown and #4i (during Showdown): the Elder declares, the next player beats it,
    the Elder answers with a modifier (the Lady) and wins; the other may then answer or concede."""
    st = table([SEVEN, ELDER_LADY], deck=[card(1, 3, 0), card(9, 0, 0)], lady=True)
    st = ready_all(st)
    shown = st["mods"]["sd"]["shown"]
    assert shown == [1] and st["phase"] == "showdown" and st["turn"] == 0
    st = act(st, 0, type="show")
    assert st["phase"] == "answer" and st["turn"] == 1 and st["mods"]["sd"]["leader"] == 0
    st = decl(st, 1, "lady")
    st = act(st, 1, type="choose", card=card(1, 3, 0))
    assert st["phase"] == "answer" and st["turn"] == 0 and st["mods"]["sd"]["leader"] == 1
    assert O.legal_moves(st, 0) == [{"type": "concede"}]
    st = act(st, 0, type="concede")
    assert winner(st) == 1
    assert st["last_round"]["showdown"]["1"]["top"] == "double_onion"


def test_4ii_lady_devalues_one_eleven_of_other_hands():
    """#4ii: with wild eights the Lady devalues to one an ace of every other player that would count
    eleven (also a wild card), but not in a Great Onion."""
    pontoon = [card(13, 0, 0), card(1, 1, 0), card(2, 2, 1), card(3, 3, 1)]
    assert kinds(ev(pontoon, wild=True)) == ["two_card_onion"]
    assert kinds(ev(pontoon, wild=True, lady=True)) == []
    wild_pontoon = [card(13, 0, 0), card(8, 1, 0)]
    assert kinds(ev(wild_pontoon, wild=True, lady=True)) == ["bagel"]  # the wild card cannot be an ace
    res = ev(GREAT_ONION, wild=True, lady=True)
    assert res["top"] == "great_onion"
    # game: declared in a wild round, the Lady stays in the hand and hits the others only
    hands = [SEVEN, ELDER_LADY]
    st = table(hands, wild=True, lady=True, null_eights=True)
    st = decl(st, 1, "lady")
    assert st["mods"]["lady"] == {"seat": 1, "mode": "devalue"} and LADY in st["hands"][1]
    assert O._ctx(st, 0).get("lady") and not O._ctx(st, 1).get("lady")


def test_5i_fate_after_the_lady_zeroes_her_players_aces():
    """#5i with #4i: once the Lady is declared and replaced, Fate may be declared and replaced
    likewise, making all aces of the Lady's player count zero; zeroed aces cannot trump up onions."""
    fate_hand = SEVEN[:9] + [FATE]
    deck = [card(1, 3, 0), card(9, 0, 0), card(6, 3, 0), card(10, 1, 1)]
    st = table([fate_hand, ELDER_LADY], deck=deck, lady=True, fate=True)
    assert not has_decl(st, 1, "fate")
    st = decl(st, 1, "lady")
    st = act(st, 1, type="choose", card=card(1, 3, 0))
    st = ready_all(st)
    assert st["turn"] == 0 and has_decl(st, 0, "fate")
    st = decl(st, 0, "fate")
    assert st["phase"] == "choose" and st["mods"]["zeroed"] == [1]
    st = act(st, 0, type="choose", card=card(6, 3, 0))
    assert FATE not in st["hands"][0]
    res = O._arrange(st, 1)
    assert "double_onion" not in kinds(res) and "two_card_onion" not in kinds(res)
    # zeroed aces cannot trump up: 2-4-5-T + a zeroed ace stays a four-card onion
    four = [card(2, 0, 0), card(4, 1, 0), card(5, 2, 0), card(10, 3, 0), card(1, 0, 1)]
    assert kinds(ev(four, zero_aces=True)) == ["four_card_onion"]


def test_5ii_fate_stops_wild_eights_and_the_lady_rewilds_her_own():
    """#5ii with #4ii: with wild eights Fate stops them being wild; a different player holding the
    Lady may then make its own eights wild again; one player may not use Fate and then the Lady."""
    royal8 = [card(8, 0, 0), card(8, 1, 1), card(8, 3, 0)]
    a = royal8 + [FATE, card(2, 0, 1), card(3, 1, 1), card(4, 2, 1), card(5, 3, 1), card(6, 0, 1), card(9, 1, 1)]
    b = [
        LADY,
        card(8, 2, 0),
        card(8, 1, 0),
        card(8, 0, 1),
        card(2, 2, 1),
        card(3, 3, 0),
        card(4, 0, 0),
        card(5, 1, 0),
        card(6, 2, 0),
        card(9, 3, 0),
    ]
    st = table([a, b, SEVEN], wild=True, lady=True, fate=True, null_eights=True)
    st = act(st, 1, type="ready")  # Elder
    st = act(st, 2, type="ready")
    assert st["turn"] == 0 and has_decl(st, 0, "fate")
    assert O._ctx(st, 0)["wild"] and ev(royal8, **O._ctx(st, 0))["top"] == "wild_royal"
    st = decl(st, 0, "fate")
    assert st["mods"]["wild"] is False and st["mods"]["fate_stopped"] == 0
    assert not O._ctx(st, 0)["wild"] and ev(royal8, **O._ctx(st, 0))["top"] != "wild_royal"
    assert not has_decl(st, 0, "rewild")
    st = act(st, 0, type="ready")
    assert st["phase"] == "showdown" and st["turn"] == 2
    assert has_decl(st, 2, "rewild") is False  # seat 2 never held the Lady
    st = act(st, 2, type="show")
    assert st["phase"] == "answer"
    # the Lady's holder (seat 1) may rewild in an answer turn of its own
    st2 = dict(st, turn=1)
    assert has_decl(st2, 1, "rewild")
    st2 = decl(st2, 1, "rewild")
    assert st2["mods"]["rewild"] == 1 and O._wild(st2, 1) and not O._wild(st2, 0)


# ---------------------------------------------------------------- #6 and #7


def test_6_great_atuin_moves_eight_points():
    """#6: declaring the queen of coins moves eight points from one card to another, both staying
    between one and eleven (a two raised to ten is a picture card)."""
    hand = [
        ATUIN,
        card(2, 0, 0),
        card(1, 1, 0),
        card(9, 2, 0),
        card(5, 3, 0),
        card(6, 0, 1),
        card(7, 1, 1),
        card(4, 2, 1),
        card(1, 3, 1),
        card(10, 0, 1),
    ]
    assert H.evaluate(hand, {})["top"] != "double_onion"
    res = ev(hand, shift=[card(9, 2, 0), card(2, 0, 0)])  # 9 -> 1, 2 -> 10 (a picture)
    assert "double_onion" in kinds(res) or res["top"] == "double_onion"
    st = table([SEVEN, hand], great_atuin=True)
    moves = [m for m in O.legal_moves(st, 1) if m["type"] == "declare"]
    assert moves and all(H.value_of(m["from"]) >= 9 or H.is_ace(m["from"]) for m in moves)
    assert all(H.value_of(m["to"]) <= 3 for m in moves)
    assert {"type": "declare", "modifier": "atuin", "from": card(5, 3, 0), "to": card(2, 0, 0)} not in moves
    with pytest.raises(RuleViolation):
        decl(st, 1, "atuin", **{"from": card(5, 3, 0), "to": card(2, 0, 0)})
    st = decl(st, 1, "atuin", **{"from": card(9, 2, 0), "to": card(2, 0, 0)})
    assert O._arrange(st, 1)["top"] == "double_onion"
    assert not has_decl(st, 1, "atuin")


ELEPHANT_HAND = [
    card(9, 0, 0),
    card(9, 2, 0),
    card(10, 0, 0),
    card(10, 2, 0),
    ATUIN,
    card(7, 1, 0),
    card(7, 3, 0),
    card(9, 3, 1),
    card(2, 1, 1),
    card(3, 2, 1),
]


def test_7_elephants_make_a_double_onion_below_the_others():
    """#7: four nines/tens declared with the queen of coins shift points to make a Double Onion,
    beaten by any other Double Onion; the points come from the queen (two nines and two tens: four);
    a spare nine may count one."""
    four = ELEPHANT_HAND[:4]
    res = ev(ELEPHANT_HAND[:8], elephants=four)
    assert res["top"] == "elephants_double_onion" and res["value"][0] == key("double_onion", H.SUB_ELEPHANTS)
    assert H.compare(res["value"], ev(SEVEN)["value"]) == 1
    real = ev(GREAT_ONION[:2] + GREAT_ONION[5:7])
    assert real["top"] == "double_onion" and H.compare(real["value"], res["value"]) == 1
    # queen of coins counts 10 - 4 = 6; spare nine counts 1: 6 + 7 + 7 + 1 = 21
    assert ["four_card_onion"] == [
        g["kind"] for g in res["groupings"] if set(g["cards"]) == {ATUIN, card(7, 1, 0), card(7, 3, 0), card(9, 3, 1)}
    ]


def test_6_and_7_share_the_queen_of_coins():
    """#6 with #7: the queen of coins is declared once, as Great A'Tuin or with the Elephants."""
    from itertools import combinations

    st = table([SEVEN, ELEPHANT_HAND], great_atuin=True, elephants=True)
    ele = [m for m in O.legal_moves(st, 1) if m.get("modifier") == "elephants"]
    nines_and_tens = sorted(c for c in ELEPHANT_HAND if H.rank_of(c) in (9, 10))  # five: any four will do
    assert len(nines_and_tens) == 5 and ELEPHANT_HAND[:4] in [list(x) for x in combinations(ELEPHANT_HAND[:5], 4)]
    assert sorted(m["cards"] for m in ele) == [list(x) for x in combinations(nines_and_tens, 4)]
    assert has_decl(st, 1, "atuin")
    st2 = decl(st, 1, "elephants", cards=sorted(ELEPHANT_HAND[:4]))
    assert not has_decl(st2, 1, "atuin") and not has_decl(st2, 1, "elephants")
    assert O._arrange(st2, 1)["top"] == "elephants_double_onion"
    m = [x for x in O.legal_moves(st, 1) if x.get("modifier") == "atuin"][0]
    st3 = decl(st, 1, "atuin", **{"from": m["from"], "to": m["to"]})
    assert not has_decl(st3, 1, "elephants")


def test_7_a_ten_is_never_a_picture_of_the_elephants_double_onion():
    """#7, the note under the Elephants' Rule: a ten may not stand for a picture card in an Onion;
    a nine (or an eight) shifted up to ten is needed. The tens of the four can only become the
    aces (ten plus one), so the four need two nines or wild eights for the pictures: four tens,
    or three tens and a nine, make no Double Onion, and two wild eights with two tens cost the
    queen two points (the tens become aces), not nothing."""
    tens = [card(10, 0, 0), card(10, 1, 0), card(10, 2, 0), card(10, 3, 0)]
    nine = card(9, 0, 1)
    assert H.elephant_points(tens, [False] * 4, False) is None
    assert H.elephant_points(tens[:3] + [nine], [False] * 4, False) is None
    assert H.elephant_points(tens[:2] + [nine, card(9, 1, 1)], [False] * 4, False) == 4  # the seed's example
    eights = [card(8, 0, 0), card(8, 1, 0)]
    assert H.elephant_points(eights + tens[:2], [True, True, False, False], False) == 2
    hand = [ATUIN] + tens + [card(2, 0, 1), card(3, 1, 1), card(4, 2, 1), card(5, 3, 1), card(6, 0, 1)]
    assert "elephants_double_onion" not in kinds(ev(hand, elephants=tens))
    st = table([SEVEN, hand], great_atuin=True, elephants=True)
    assert not has_decl(st, 1, "elephants")
    with pytest.raises(RuleViolation):
        decl(st, 1, "elephants", cards=sorted(tens))


# ---------------------------------------------------------------- #8


def test_8i_visible_sender_zeroes_aces_of_eight_users():
    """#8i: without wild eights a visible jack of diamonds zeroes the aces of a player who uses any
    eights: the hand either plays no eight or loses its aces (the better is taken)."""
    hand = [card(8, 0, 0), card(8, 1, 0), card(5, 2, 0), card(13, 3, 0), card(1, 0, 1)]
    assert kinds(ev(hand)) == ["three_card_onion", "two_card_onion"]
    res = ev(hand, sender=True)
    assert kinds(res) == ["three_card_onion"] and any("#8i" in n for n in res["notes"])
    hand2 = [card(8, 0, 0), card(13, 3, 0), card(1, 0, 1), card(12, 3, 0), card(1, 1, 1)]
    assert kinds(ev(hand2, sender=True)) == ["double_onion"]  # keeps the aces, plays no eight
    # game: the jack of diamonds dealt face up is visible
    other = [SENDER] + SEVEN[:9]
    st = table(
        [other, hand + [card(2, 3, 1), card(3, 0, 1), card(4, 1, 1), card(6, 2, 1), card(9, 3, 1)]],
        up=[[SENDER], []],
        sender_of_eights=True,
    )
    assert O._ctx(st, 1).get("sender")


def test_8ii_sender_declared_when_dealt_with_wild_eights():
    """#8ii: with wild eights the jack of diamonds is declared as soon as it is dealt, zeroing all
    aces and keeping wild eights from counting one or eleven."""
    st = O.initial_state(NAMES[:2], {"stake": 1, "sender_of_eights": True, "null_eights": True})
    st = fold(st, O.decide(st, {"type": "start", "seat": None, "seed": 3}))
    st = dict(st)
    st["mods"] = {**st["mods"], "wild": True, "round_wild": True}
    st["deck"] = [SENDER] + [c for c in st["deck"] if c != SENDER]
    st["hands"] = [[c for c in h if c != SENDER] for h in st["hands"]]
    seat = st["turn"]
    evs = O.decide(st, {"type": "discard", "cards": [st["hands"][seat][0]], "seat": seat, "seed": 1})
    assert [e["type"] for e in evs] == ["Discarded", "Declared"]
    assert evs[1]["data"] == {"seat": seat, "modifier": "sender", "card": SENDER, "forced": True}
    st = fold(st, evs)
    ctx = O._ctx(st, 1 - seat)
    assert ctx.get("zero_aces") and ctx.get("wild_limited")
    assert kinds(ev([card(13, 0, 0), card(8, 1, 0)], wild=True, wild_limited=True)) == ["bagel"]
    assert kinds(ev([card(13, 0, 0), card(1, 1, 0)], wild=True, wild_limited=True, zero_aces=True)) == []


# ------------------------------------------------------------ #9 and #10


DOUBLE2 = [
    card(13, 0, 0),
    card(12, 2, 0),
    card(1, 1, 0),
    card(1, 2, 0),
    card(2, 0, 1),
    card(3, 1, 1),
    card(4, 2, 1),
    card(6, 3, 1),
    card(9, 0, 1),
    card(5, 3, 0),
]


def test_9i_visible_death_breaks_double_onions():
    """#9i: a visible king of swords makes one picture of every hand with two or more take no part in
    a Double Onion (it may still make a two-card onion); with a third picture the Double Onion stands."""
    assert ev(DOUBLE2)["top"] == "double_onion"
    res = ev(DOUBLE2, death=[2])
    assert "double_onion" not in kinds(res) and any("#9" in n for n in res["notes"])
    pair = ev(DOUBLE2[:4], death=[2])
    assert kinds(pair) == ["three_card_onion"]  # K-Q-A: the killed picture still takes part elsewhere
    three = DOUBLE2[:9] + [card(11, 3, 0)]
    assert ev(three, death=[2])["top"] == "double_onion"


def test_9ii_death_with_wild_eights_breaks_triple_onions():
    """#9ii: with wild eights Death also keeps a picture out of a Triple Onion."""
    triple = [
        card(13, 0, 0),
        card(12, 2, 0),
        card(11, 3, 0),
        card(1, 1, 0),
        card(1, 2, 0),
        card(1, 3, 0),
        card(2, 0, 1),
        card(3, 1, 1),
        card(4, 2, 1),
        card(6, 3, 1),
    ]
    assert ev(triple, death=[2])["top"] == "triple_onion"
    assert ev(triple, wild=True, death=[2, 3])["top"] == "double_onion"


def test_10i_who_plays_the_archchancellor_plays_no_eight_as_eight():
    """#10i: a player who plays the jack of staves may not also play an eight as eight."""
    hand = [ARCH, card(1, 0, 0), card(8, 0, 1), card(8, 1, 0), card(5, 2, 0)]
    assert kinds(ev(hand)) == ["three_card_onion", "two_card_onion"]
    res = ev(hand, arch=True)
    assert kinds(res) == ["three_card_onion"] and any("#10i" in n for n in res["notes"])


def test_10ii_archchancellor_without_death_turns_wild():
    """#10ii: declared at any time (here in the draw); if nobody holds the king of swords the jack of
    staves is wild for the rest of the round."""
    st = O.initial_state(NAMES[:3], {"stake": 1, "archchancellor": True})
    st = fold(st, O.decide(st, {"type": "start", "seat": None, "seed": 3}))
    st = dict(st)
    seat = st["turn"]
    hands = [[c for c in h if c not in (ARCH, DEATH)] for h in st["hands"]]
    hands[seat] = hands[seat][:4] + [ARCH]
    st["hands"] = hands
    assert {"type": "declare", "modifier": "archchancellor"} in O.legal_moves(st, seat)
    st = decl(st, seat, "archchancellor")
    assert st["mods"]["jack_wild"] and st["phase"] == "draw" and st["turn"] == seat
    assert ev([ARCH, card(13, 0, 0)], jack_wild=True)["top"] == "two_card_onion"  # the jack as an ace


def test_10ii_and_9_archchancellor_brings_out_death_and_a_card_from_everyone():
    """#10ii with #9: declaring the jack of staves forces the king of swords out of its holder; then
    every other player discloses one undisclosed card; Death then breaks a third player's Double Onion."""
    arch_hand = [ARCH] + SEVEN[:9]
    death_hand = [
        DEATH,
        card(2, 3, 0),
        card(3, 0, 0),
        card(4, 1, 0),
        card(6, 2, 0),
        card(9, 3, 0),
        card(10, 1, 0),
        card(5, 0, 0),
        card(7, 2, 0),
        card(6, 0, 0) + 52,
    ]
    st = table([death_hand, arch_hand, DOUBLE2], archchancellor=True, death=True)
    assert O._arrange(st, 2)["top"] == "double_onion"
    st = decl(st, 1, "archchancellor")
    assert st["mods"]["death"] == {"seat": 0, "forced": True} and not st["mods"]["jack_wild"]
    assert st["phase"] == "reveal" and st["turn"] == 2
    # every viewer sees who reveals and who follows (the Declared event published the queue), not what
    for viewer in (0, 1, "spectator"):
        assert O.view(st, viewer)["modifiers"]["pending"] == {"kind": "reveal", "seat": 2, "queue": [2]}
    moves = O.legal_moves(st, 2)
    assert {m["card"] for m in moves} == set(DOUBLE2)
    assert O.timeout_move(st, 2) in moves
    st = act(st, 2, type="reveal", card=card(5, 3, 0))
    assert st["phase"] == "predeclare" and st["turn"] == 1
    assert card(5, 3, 0) in O.view(st, 0)["modifiers"]["disclosed"][2]
    assert O._arrange(st, 2)["top"] != "double_onion"


# ---------------------------------------------------------------- #11


def test_11_fool_swaps_bagels_and_onions():
    """#11: the jack of clubs declared just before Showdown swaps bagels and Onions for the rest of the
    round; the great bagel is beaten only by the Great Onion."""
    bagel = ev([card(10, 0, 0), card(10, 1, 0)], fool=True)
    pontoon = ev([card(13, 0, 0), card(1, 1, 0)], fool=True)
    assert H.compare(bagel["value"], pontoon["value"]) == 1
    assert H.compare(ev([card(10, 0, 0), card(10, 1, 0)])["value"], ev([card(13, 0, 0), card(1, 1, 0)])["value"]) == -1
    great_bagel = [card(10, s, p) for s in range(4) for p in range(2)] + [card(13, 1, 0), card(12, 3, 0)]
    gb = ev(great_bagel, fool=True)
    assert gb["top"] == "great_bagel"
    assert H.compare(gb["value"], ev(LESSER_ONION, fool=True)["value"]) == 1
    assert H.compare(gb["value"], ev(SEVEN, fool=True)["value"]) == 1
    assert H.compare(gb["value"], ev(GREAT_ONION, fool=True)["value"]) == -1
    # game: only just before Showdown; then a great bagel is crippled like the Great Onion
    fool_hand = [FOOL] + RUN9[:9]
    st = table([fool_hand, great_bagel], fool=True, crippling=True)
    assert st["turn"] == 1 and not has_decl(st, 1, "fool")
    st = act(st, 1, type="ready")
    assert has_decl(st, 0, "fool")
    st = decl(st, 0, "fool")
    st = act(st, 0, type="ready")
    assert st["mods"]["fool"]
    st = act(st, 0, type="show")
    assert st["phase"] in ("between_rounds", "finished") and winner(st) == 0
    assert st["mods"]["sd"]["duels"][0]["how"] == "crippled"


# ------------------------------------------------------------ timed turns, views


def test_every_modifier_phase_has_a_legal_timeout_and_notes_explain():
    """Declarations work with timed turns: the timeout move is legal in every modifier phase; the
    public view lists the declarations and explains each modifier's effect in notes."""
    st = table([SEVEN, ELDER_LADY], deck=[card(1, 3, 0), card(9, 0, 0)], lady=True)
    assert O.timeout_move(st, 1) == {"type": "ready"}
    st = decl(st, 1, "lady")
    assert O.timeout_move(st, 1) in O.legal_moves(st, 1)
    st = act(st, 1, **O.timeout_move(st, 1))
    st = ready_all(st)
    assert O.timeout_move(st, 0) == {"type": "show"}
    st = act(st, 0, type="show")
    assert O.timeout_move(st, st["turn"]) == {"type": "concede"}
    v = O.view(st, "spectator")["modifiers"]
    assert v["declared"] == [{"card": LADY, "name": "the Lady", "seat": 1}]
    assert any("#4i" in n for n in v["notes"])
    assert set(v["showdown"]["arrangements"]) == {"0", "1"}


def test_4ii_lady_search_equals_trying_each_card():
    """#4ii (reading: the owner picks the devalued card): the single search equals the best over
    every choice of the card held to one, outside a Great Onion."""
    import random

    r = random.Random(5)
    for i in range(60):
        h = r.sample(range(104), 10)
        if i % 2:
            h = [c for c in h if H.rank_of(c) != 8][:7] + [card(8, 0, 0), card(8, 1, 0), card(8, 2, 0)]
        mods = {"wild": True, "lady": True, "fool": i % 3 == 0}
        cards = sorted(h)
        p, _ = H._profile(cards, mods)
        pos = H.POS_FOOL if mods["fool"] else H.POS_BASE
        full = (1 << len(cards)) - 1
        free = {**mods, "lady": False}
        v0, g0 = H._solve(p, pos, free, usable=full)
        elevens = [k for k in range(len(cards)) if 11 in p.vals[k]]
        if (g0 and max(g0, key=lambda g: g[2])[0] == "great_onion") or not elevens:
            want = v0
        else:
            want = None
            for k in elevens:
                q = p.copy()
                q.vals[k] = tuple(v for v in q.vals[k] if v != 11)
                q.a11[k] = False
                v = H._solve(q, pos, free, usable=full)[0]
                want = v if want is None or v > want else want
        assert ev(h, **mods)["value"] == want, [H.card_name(c) for c in h]
