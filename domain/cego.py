"""Cego (German tarot) as a decider (see ``domain.base`` for the shared face).

Cards are ints.  Trumps are 1..21 and the Juglar is 22 (the highest trump).
Suit cards are ``100 + 10 * suit + idx`` with suit 0 diamonds, 1 hearts,
2 spades, 3 clubs (the tie-break order, best first) and idx 0 king, 1 queen,
2 knight, 3 jack, 4..7 the numerals from strongest to weakest (red 1, 2, 3, 4;
black 10, 9, 8, 7).

Seats never change.  Play runs counter-clockwise, written as increasing seat
numbers: the seat after ``s`` is ``s + 1`` (its right-hand neighbour).  Mano is
the seat after the dealer; the deal passes to the mano.

Phases: ``created`` -> per round ``first_auction`` -> (``gegen``) ->
``second_auction`` (skipped after a Gegensolo) -> (``raise`` / ``gut_selbst``)
-> (``rauber_choice``) -> (``exchange``) -> ``play`` -> next round ... ->
``finished``.

The blind (``blind``) and the Legage (``legage``) are secret: the deal puts the
blind in the private part ``"nobody"`` (no seat receives it); the Legage is in
the challenger's private parts.  Both are published by ``RoundScored``.
Readings of the rules are in ``docs/rules/cego.md``.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from domain.base import committed, match_ended, seat_parts, settle_options, check_player_count, table_seat, int_field, Outbox, viewer_is_seat, REVIEWER, RuleViolation, event, int_list, rng, shuffled

GAME_ID = "cego"
TITLE = "Cego"
RULES_VERSION = "2"
# rules versions whose logs this module folds exactly as they were played; the
# state records the version its game was started under (``rules``) and the
# rules below branch on it where version 2 changed them (see docs/rules/cego.md):
# no Piccolo or Bettel after a Solo, each Zwei Verschiedene shown suit leads one
# of the first two tricks, the Legage counts for the challenger without a trick.
FOLDS_RULES = ("1",)
# events after which the deal in play is over and its commitment is revealed
HAND_OVER_EVENTS = ("RoundScored", "MatchEnded")
MIN_PLAYERS = 3
MAX_PLAYERS = 5

JUGLAR = 22
NOBODY = "nobody"

OPTIONS: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "rounds": {
            "type": "integer", "default": 4, "minimum": 1, "maximum": 100,
            "description": "Number of rounds (deals) in the match.",
        },
        "dealer_sits_out_with_four": {
            "type": "boolean", "default": False,
            "description": "With four players the dealer sits each round out (three active players, "
            "51 cards) and pays or receives like a defender. With five players the dealer always sits out.",
        },
        "gut_selbst": {
            "type": "boolean", "default": False,
            "description": "Optional rule: when a Cego game is raised, the player holding it may accept "
            "(gut, the raiser plays) or play the raised game itself (selbst).",
        },
    },
}

SUITS = ("diamonds", "hearts", "spades", "clubs")
FIGURES = ("K", "Q", "C", "J")
RED_NUM = ("1", "2", "3", "4")
BLACK_NUM = ("10", "9", "8", "7")
LEVELS = ("cego", "eine", "eine_leere", "zwei_leere", "zwei_verschiedene", "pagat")
FIXED = {"ulti": 80, "piccolo": 40, "bettel": 30}
RAUBER_PAY = 40


# ------------------------------------------------------------------ cards


def full_deck() -> list[int]:
    return list(range(1, 23)) + [100 + 10 * s + i for s in range(4) for i in range(8)]


def deck_for(active: int) -> list[int]:
    """54 cards for four active players; 51 for three (no 7 of clubs, 7 of spades, 4 of diamonds)."""
    d = full_deck()
    if active == 3:
        d = [c for c in d if c not in (137, 127, 107)]
    return d


def is_trump(c: int) -> bool:
    return c <= JUGLAR


def suit(c: int) -> int:
    return -1 if is_trump(c) else (c - 100) // 10


def idx(c: int) -> int:
    return (c - 100) % 10


def is_numeral(c: int) -> bool:
    return not is_trump(c) and idx(c) >= 4


def value(c: int) -> int:
    if is_trump(c):
        return 5 if c in (1, 21, JUGLAR) else 1
    return (5, 4, 3, 2, 1, 1, 1, 1)[idx(c)]


def strength(c: int) -> int:
    """Global order: any trump beats any suit card; equal suit ranks go by suit (diamonds best)."""
    if is_trump(c):
        return 100 + c
    return (7 - idx(c)) * 4 + (3 - suit(c))


def label(c: int) -> str:
    if c == JUGLAR:
        return "Juglar"
    if is_trump(c):
        return f"T{c}"
    s, i = suit(c), idx(c)
    name = FIGURES[i] if i < 4 else (RED_NUM if s < 2 else BLACK_NUM)[i - 4]
    return f"{name} of {SUITS[s]}"


def count_points(cards: list[int]) -> int:
    """Counted in pairs less one; an odd last card counts its own value (see docs)."""
    return sum(value(c) for c in cards) - len(cards) // 2


def solo_allowed(hand: list[int]) -> bool:
    trumps = [c for c in hand if is_trump(c)]
    if len(trumps) >= 8:
        return True
    suits = {suit(c) for c in hand if not is_trump(c)}
    return len(trumps) == 7 and sum(1 for c in trumps if c > 17) >= 2 and len(suits) <= 2


def show_options(hand: list[int], level: str) -> list[list[int]]:
    """The sets of cards the challenger may show for a Leere game or Pagat."""
    suited = sorted(c for c in hand if not is_trump(c))
    nums = [c for c in suited if is_numeral(c)]
    if level == "pagat":
        return [[1]] if 1 in hand else []
    if level == "eine_leere":
        return [[c] for c in (nums or suited)]
    if level in ("zwei_leere", "zwei_verschiedene"):
        same = level == "zwei_leere"

        def pairs(cs):
            return [list(p) for p in combinations(cs, 2) if (suit(p[0]) == suit(p[1])) == same]

        return pairs(nums) or pairs(suited)
    return []


def qualifies(hand: list[int], level: str) -> bool:
    if level in ("cego", "eine"):
        return True
    return bool(show_options(hand, level))


def factor(contract: dict, challenger_won: bool) -> int:
    if contract["game"] == "solo":
        return 2 if challenger_won else 1
    return LEVELS.index(contract["game"]) + 1 + (1 if contract.get("gegensolo") else 0)


# ------------------------------------------------------------------ state


def initial_state(players: list[str], options: dict | None) -> dict:
    players = list(players)
    check_player_count(TITLE, len(players), MIN_PLAYERS, MAX_PLAYERS)
    opts = settle_options(OPTIONS, options)
    n = len(players)
    return {
        "game": GAME_ID, "rules": RULES_VERSION, "players": players, "options": opts, "phase": "created",
        "round_no": 0, "rounds_total": int(opts["rounds"]), "draws": [], "dealer": None,
        "active": [], "sitting_out": None, "hands": [[] for _ in range(n)], "blind": [], "blind_taken": False,
        "legage": [], "auction": [], "speakers": [], "contract": None, "gegensolo": None, "soloist": None,
        "raiser": None, "step": None, "shown": [], "shown_left": [], "shown_discard": None,
        "trick": [], "leader": None, "turn": None, "trick_no": 0, "tricks_won": [0] * n,
        "won": [[] for _ in range(n)], "trick_winners": [], "last_trick": None,
        "balances": [0] * n, "last_round": None, "outcome": None,
    }


def rules_of(state: dict) -> str:
    """The rules version the game was started under (a state without it predates versions: "1")."""
    return state.get("rules", "1")


def active_after(state: dict, seat: int) -> int:
    a = state["active"]
    return a[(a.index(seat) + 1) % len(a)]


def _ring_from(state: dict, seat: int, include: bool) -> list[int]:
    a = state["active"]
    i = a.index(seat)
    ring = a[i:] + a[:i]
    return ring if include else ring[1:]


def _remove(hand: list[int], cards: list[int]) -> list[int]:
    h = list(hand)
    for c in cards:
        h.remove(c)
    return h


# ------------------------------------------------------------------ evolve


def _ev_dealer_drawn(state, ev):
    return dict(state, draws=ev["data"]["draws"], dealer=ev["data"]["dealer"])


def _ev_round_dealt(state, ev):
    d = ev["data"]
    n = len(state["players"])
    hands = [[] for _ in range(n)]
    priv = ev.get("private") or {}
    for seat, part in seat_parts(priv):
        hands[seat] = list(part["hand"])
    st = dict(state)
    st.update(
        phase="first_auction", round_no=d["round"], dealer=d["dealer"], active=list(d["active"]),
        sitting_out=d["sitting_out"], hands=hands, blind=list(priv[NOBODY]["blind"]), blind_taken=False, legage=[],
        auction=[], speakers=list(d["active"]), contract=None, gegensolo=None, soloist=None, raiser=None,
        step=None, shown=[], shown_left=[], shown_discard=None, trick=[], leader=None, turn=None, trick_no=0,
        tricks_won=[0] * n, won=[[] for _ in range(n)], trick_winners=[], last_trick=None,
    )
    return st


def _ev_called(state, ev):
    """A call in an auction: data has seat, call, and the state's next step."""
    d = ev["data"]
    st = dict(state)
    st["auction"] = state["auction"] + [{"seat": d["seat"], "call": d["call"], "phase": state["phase"]}]
    st["speakers"] = list(d["speakers"])
    st["phase"] = d["phase"]
    for k in ("contract", "gegensolo", "soloist", "raiser", "step"):
        if k in d:
            st[k] = d[k]
    if d["phase"] == "play":
        st["leader"] = st["turn"] = st["contract"]["challenger"]
    return st


def _ev_exchanged(state, ev):
    d = ev["data"]
    seat = d["seat"]
    st = dict(state)
    hands = list(state["hands"])
    part = (ev.get("private") or {}).get(str(seat), {})
    if d["step"] == "keep":
        kept = part.get("kept", d.get("shown", []))
        aside = _remove(hands[seat], kept)
        hand = kept + list(state["blind"])
        st["legage"] = state["legage"] + aside
        st["blind_taken"] = True
        if d.get("discarded") is not None:
            hand.remove(d["discarded"])
            st["shown_discard"] = d["discarded"]
            st["legage"] = st["legage"] + [d["discarded"]]
        hands[seat] = sorted(hand)
        if d.get("shown"):
            st["shown"] = list(d["shown"])
            st["shown_left"] = list(d["shown"])
    else:  # discard
        hands[seat] = _remove(hands[seat], part["cards"])
        st["legage"] = state["legage"] + list(part["cards"])
    st["hands"] = hands
    st["step"] = d["next_step"]
    if d["next_step"] is None:
        st["phase"] = "play"
        st["leader"] = st["turn"] = st["contract"]["challenger"]
    return st


def _ev_played(state, ev):
    d = ev["data"]
    seat, card = d["seat"], d["card"]
    st = dict(state)
    hands = list(state["hands"])
    hands[seat] = _remove(hands[seat], [card])
    st["hands"] = hands
    st["trick"] = state["trick"] + [[seat, card]]
    if card in state["shown_left"]:
        st["shown_left"] = [c for c in state["shown_left"] if c != card]
    st["turn"] = d["next"]
    return st


def _ev_trick_taken(state, ev):
    d = ev["data"]
    w = d["winner"]
    st = dict(state)
    cards = [c for _, c in state["trick"]]
    won = list(state["won"])
    won[w] = state["won"][w] + cards
    tw = list(state["tricks_won"])
    tw[w] += 1
    st.update(won=won, tricks_won=tw, last_trick={"cards": [list(p) for p in state["trick"]], "winner": w},
              trick=[], trick_no=state["trick_no"] + 1,
              trick_winners=state["trick_winners"] + [[w, d["winning_card"]]], leader=d["leader"],
              turn=d["leader"])
    return st


def _ev_round_scored(state, ev):
    d = ev["data"]
    st = dict(state)
    st.update(phase="between_rounds", balances=list(d["balances"]), last_round=d, turn=None, speakers=[],
              step=None)
    if d["match_over"]:
        st["phase"] = "finished"
    return st


_EVOLVERS = {
    "DealerDrawn": _ev_dealer_drawn, "RoundDealt": _ev_round_dealt, "Called": _ev_called,
    "Exchanged": _ev_exchanged, "Played": _ev_played, "TrickTaken": _ev_trick_taken,
    "RoundScored": _ev_round_scored, "MatchEnded": match_ended,
}


def evolve(state: dict, ev: dict) -> dict:
    fn = _EVOLVERS.get(ev["type"])
    if fn is None:
        raise ValueError(f"cego: unknown event type {ev['type']!r}")
    st = fn(state, ev)
    rules = ev.get("rules")  # an envelope names the rules version of its game
    if rules is not None and rules != rules_of(st):
        st = dict(st, rules=rules)
    return st


def _Out(state: dict) -> Outbox:
    return Outbox(state, evolve)


# ------------------------------------------------------------------ decide helpers


def _seat(state: dict, command: dict) -> int:
    seat = table_seat(state, command)
    if state["phase"] == "created":
        raise RuleViolation("not-started", "the match has not started yet", "turn")
    if state["phase"] == "finished":
        raise RuleViolation("game-over", "the match is over: no more moves", "turn")
    if seat not in to_act(state):
        raise RuleViolation("not-your-turn", f"seat {seat} does not act now (to act: {to_act(state)})", "turn")
    return seat


def _cards(command: dict, count: int) -> list[int]:
    cards = int_list(command.get("cards"), "cards", min_len=count, max_len=count)
    valid = set(full_deck())
    for c in cards:
        if c not in valid:
            raise RuleViolation("invalid-card", f"{c} is not a card (trumps 1..22, suit cards 100..137)", "invalid")
    if len(set(cards)) != len(cards):
        raise RuleViolation("invalid-card", "the same card is named twice", "invalid")
    return cards


def _in_hand(hand: list[int], cards: list[int]) -> None:
    for c in cards:
        if c not in hand:
            raise RuleViolation("card-not-in-hand", f"you do not hold {label(c)}")


def _deal(out: _Out, seed: int, dealer: int) -> None:
    st = out.state
    n = len(st["players"])
    sits = n == 5 or (n == 4 and bool(st["options"].get("dealer_sits_out_with_four")))
    ring = [(dealer + 1 + i) % n for i in range(n)]
    active = [s for s in ring if not (sits and s == dealer)]
    deck = shuffled(deck_for(len(active)), seed)
    b = 10 if len(active) == 4 else 12
    h = (len(deck) - b) // len(active)
    blind = sorted(deck[:b])
    private: dict = {NOBODY: {"blind": blind}}
    for k, s in enumerate(active):
        private[str(s)] = {"hand": sorted(deck[b + k * h: b + (k + 1) * h])}
    out.emit(committed(event("RoundDealt", {
        "round": st["round_no"] + 1, "dealer": dealer, "cutter": (dealer - 1) % n, "mano": active[0],
        "active": active, "sitting_out": dealer if sits else None, "blind_size": b, "hand_size": h,
    }, private), deck, seed))


def _called(out: _Out, seat: int, call: str, **data) -> None:
    out.emit(event("Called", {"seat": seat, "call": call, **data}))


def _to_play(out: _Out, seat: int, call: str, contract: dict, **data) -> None:
    _called(out, seat, call, phase="play", speakers=[], contract=contract, **data)


def _enter_exchange(out: _Out, seat: int, call: str, contract: dict, **data) -> None:
    game = contract["game"]
    step = {"cego": "keep2", "eine": "keep1", "pagat": None}.get(game, "show")
    _called(out, seat, call, phase="exchange", speakers=[], contract=contract, step=step, **data)
    if game == "pagat":  # no choice: trump 1 is shown, the rest set aside
        st = out.state
        ch = contract["challenger"]
        aside = [c for c in st["hands"][ch] if c != 1]
        out.emit(event("Exchanged", {"seat": ch, "step": "keep", "count": 1, "shown": [1], "discarded": None,
                                     "next_step": None}, {ch: {"kept": [1], "legage": aside}}))


# ------------------------------------------------------------------ auction


def auction_calls(state: dict, seat: int) -> list[str]:
    phase = state["phase"]
    hand = state["hands"][seat]
    if phase == "first_auction":
        calls = ["pass"]
        if solo_allowed(hand):
            calls.append("solo")
        if 1 in hand:
            calls.append("ulti")
        return calls
    if phase == "gegen":
        return ["pass", "gegensolo"]
    if phase == "second_auction":
        return ["pass", "piccolo", "bettel"]
    if phase == "raise":
        lvl = LEVELS.index(state["contract"]["game"])
        if lvl + 1 < len(LEVELS) and qualifies(hand, LEVELS[lvl + 1]):
            return ["pass", "raise"]
        return ["pass"]
    if phase == "gut_selbst":
        nxt = LEVELS[LEVELS.index(state["contract"]["game"]) + 1]
        return ["gut", "selbst"] if qualifies(hand, nxt) else ["gut"]
    if phase == "rauber_choice":
        return ["cego", "rauber"]
    return []


def _d_call(state: dict, command: dict) -> list[dict]:
    seat = _seat(state, command)
    call = command.get("call")
    if not isinstance(call, str):
        raise RuleViolation("invalid-field", "'call' must be a string", "invalid")
    allowed = auction_calls(state, seat)
    if not allowed:
        raise RuleViolation("wrong-phase", f"no auction is running (phase {state['phase']})", "turn")
    if call not in allowed:
        rule = {"solo": "solo-needs-trumps", "ulti": "ulti-needs-pagat", "raise": "cannot-raise",
                "selbst": "cannot-play-selbst"}.get(call, "call-not-allowed")
        raise RuleViolation(rule, f"'{call}' is not allowed now; allowed: {', '.join(allowed)} "
                            "(Solo needs 8 trumps, or 7 with two above 17 and two suits; Ulti and Pagat need "
                            "trump 1; a raise goes one level up and needs a hand for it)")
    out = _Out(state)
    phase = state["phase"]
    rest = list(state["speakers"][1:])
    con = state["contract"]
    gs = state["gegensolo"] is not None
    if phase == "first_auction":
        if call == "solo":
            _called(out, seat, call, phase="gegen", speakers=_ring_from(state, seat, False), soloist=seat)
        elif call == "ulti":
            _to_play(out, seat, call, {"game": "ulti", "challenger": seat, "gegensolo": False})
        elif rest:
            _called(out, seat, call, phase="first_auction", speakers=rest)
        else:
            _called(out, seat, call, phase="second_auction", speakers=list(state["active"]))
    elif phase == "gegen":
        if call == "gegensolo" and rules_of(state) == "1":
            _called(out, seat, call, phase="second_auction", speakers=_ring_from(state, seat, True), gegensolo=seat)
        elif call == "gegensolo":
            # a Solo was declared: no Piccolo or Bettel; the Gegensolo player declares Cego
            _called(out, seat, call, phase="second_auction", speakers=[], gegensolo=seat)
            _called(out, seat, "cego", phase="raise", speakers=_ring_from(state, seat, False),
                    contract={"game": "cego", "challenger": seat, "gegensolo": True})
        elif rest:
            _called(out, seat, call, phase="gegen", speakers=rest)
        else:
            _to_play(out, seat, call, {"game": "solo", "challenger": state["soloist"], "gegensolo": False})
    elif phase == "second_auction":
        if call in ("piccolo", "bettel"):
            _to_play(out, seat, call, {"game": call, "challenger": seat, "gegensolo": gs})
        elif rest:
            _called(out, seat, call, phase="second_auction", speakers=rest)
        else:
            _called(out, seat, call, phase="second_auction", speakers=[])
            starter = state["gegensolo"] if gs else state["active"][0]
            _called(out, starter, "cego", phase="raise", speakers=_ring_from(state, starter, False),
                    contract={"game": "cego", "challenger": starter, "gegensolo": gs})
    elif phase == "raise":
        if call == "raise":
            new = dict(con, game=LEVELS[LEVELS.index(con["game"]) + 1])
            if state["options"].get("gut_selbst"):
                _called(out, seat, call, phase="gut_selbst", speakers=[], raiser=seat)
            elif LEVELS.index(new["game"]) + 1 < len(LEVELS):
                # after a raise every other player may raise again, in turn from the raiser
                _called(out, seat, call, phase="raise", speakers=_ring_from(state, seat, False),
                        contract=dict(new, challenger=seat))
            else:
                _enter_exchange(out, seat, call, dict(new, challenger=seat))
        elif rest:
            _called(out, seat, call, phase="raise", speakers=rest)
        elif con["game"] == "cego":
            _called(out, seat, call, phase="rauber_choice", speakers=[])
        else:
            _enter_exchange(out, seat, call, con)
    elif phase == "gut_selbst":
        new = dict(con, game=LEVELS[LEVELS.index(con["game"]) + 1])
        if call == "gut":
            new["challenger"] = state["raiser"]
        holder = new["challenger"]
        rest = [s for s in _ring_from(state, state["raiser"], False) if s != holder]
        if holder != state["raiser"]:  # selbst: the refused raiser may speak again after the others
            rest.append(state["raiser"])
        if LEVELS.index(new["game"]) + 1 < len(LEVELS):
            _called(out, seat, call, phase="raise", speakers=rest, contract=new, raiser=None)
        else:
            _enter_exchange(out, seat, call, new, raiser=None)
    else:  # rauber_choice
        if call == "rauber":
            _to_play(out, seat, call, dict(con, game="rauber"))
        else:
            _enter_exchange(out, seat, call, con)
    return out.events


# ------------------------------------------------------------------ exchange


def exchange_moves(state: dict, seat: int) -> list[dict]:
    hand = state["hands"][seat]
    step = state["step"]
    if step == "keep2":
        return [{"type": "keep", "cards": list(p)} for p in combinations(hand, 2)]
    if step == "keep1":
        return [{"type": "keep", "cards": [c]} for c in hand]
    if step == "discard":
        return [{"type": "discard", "cards": [c]} for c in hand]
    if step == "show":
        return [{"type": "show", "cards": cs} for cs in show_options(hand, state["contract"]["game"])]
    return []


def _d_exchange(state: dict, command: dict) -> list[dict]:
    seat = _seat(state, command)
    if state["phase"] != "exchange":
        raise RuleViolation("wrong-phase", f"'{command['type']}' belongs to the exchange; phase is {state['phase']}",
                            "turn")
    step = state["step"]
    want = {"keep2": "keep", "keep1": "keep", "discard": "discard", "show": "show"}[step]
    if command["type"] != want:
        raise RuleViolation("wrong-step", f"the challenger must now '{want}' (step {step} of the exchange)")
    count = {"keep2": 2, "keep1": 1, "discard": 1}.get(step)
    if step == "show":
        count = 1 if state["contract"]["game"] == "eine_leere" else 2
    cards = _cards(command, count)
    hand = state["hands"][seat]
    _in_hand(hand, cards)
    if step == "discard":
        return [event("Exchanged", {"seat": seat, "step": "discard", "count": 1, "next_step": None},
                      {seat: {"cards": cards}})]
    kept = sorted(cards)
    aside = _remove(hand, kept)
    data = {"seat": seat, "step": "keep", "count": len(kept), "discarded": None,
            "next_step": "discard" if step == "keep2" else None}
    if step == "show":
        game = state["contract"]["game"]
        if kept not in [sorted(o) for o in show_options(hand, game)]:
            raise RuleViolation("bad-show", {
                "eine_leere": "Eine Leere shows one numeral (a figure only when you hold no numeral)",
                "zwei_leere": "Zwei Leere shows two numerals of one suit (figures only without such a pair)",
                "zwei_verschiedene": "Zwei Verschiedene shows two numerals of different suits "
                                     "(figures only without such a pair)"}[game])
        data["shown"] = kept
        blind = state["blind"]
        if game == "zwei_leere":
            trumps = [c for c in blind if is_trump(c)]
            data["discarded"] = min(trumps) if trumps else min(blind, key=strength)
        elif game == "zwei_verschiedene":
            data["discarded"] = max(blind, key=strength)
    return [event("Exchanged", data, {seat: {"kept": kept, "legage": aside}})]


# ------------------------------------------------------------------ play


def playable(state: dict, seat: int) -> list[int]:
    hand = state["hands"][seat]
    trick = state["trick"]
    con = state["contract"]
    if not trick:
        if seat == con["challenger"] and state["trick_no"] < len(state["shown"]):
            if con["game"] == "pagat":
                return [1] if 1 in hand else list(hand)
            suits = _shown_suits_to_lead(state)
            lead = [c for c in hand if not is_trump(c) and suit(c) in suits]
            if lead:
                return lead
        return list(hand)
    led = trick[0][1]
    if is_trump(led):
        return [c for c in hand if is_trump(c)] or list(hand)
    same = [c for c in hand if not is_trump(c) and suit(c) == suit(led)]
    return same or [c for c in hand if is_trump(c)] or list(hand)


def _shown_suits_to_lead(state: dict) -> set[int]:
    """The suits the challenger's lead may take while shown cards bind its leads.

    Each shown card, or another card of its suit, leads one of the first
    tricks: a suit already led in an earlier of those tricks is used up (Zwei
    Verschiedene's two suits lead one trick each).  Rules "1" asked only for the
    suit of a shown card still in hand.
    """
    if rules_of(state) == "1":
        return {suit(c) for c in state["shown_left"]} if state["shown_left"] else set()
    suits = [suit(c) for c in state["shown"]]
    if state["trick_no"] >= 1 and state["last_trick"] is not None:
        led = suit(state["last_trick"]["cards"][0][1])  # the challenger led the first trick
        if led in suits:
            suits.remove(led)
    return set(suits)


def trick_winner(state: dict, trick: list) -> tuple[int, int]:
    """(seat, card) winning ``trick``; a shown card (blank, or Pagat's trump 1) never wins."""
    shown = set(state["shown"])
    ok = [(s, c) for s, c in trick if c not in shown]
    trumps = [p for p in ok if is_trump(p[1])]
    led = trick[0][1]
    cands = trumps or [p for p in ok if not is_trump(led) and not is_trump(p[1]) and suit(p[1]) == suit(led)]
    if not cands:
        return tuple(trick[1])  # nothing eligible: the first player after the leader (reading)
    return tuple(max(cands, key=lambda p: strength(p[1])))


def _round_over(state: dict) -> bool:
    con = state["contract"]
    ch = con["challenger"]
    if con["game"] == "bettel" and state["tricks_won"][ch] >= 1:
        return True
    if con["game"] == "piccolo" and state["tricks_won"][ch] >= 2:
        return True
    return not any(state["hands"][s] for s in state["active"])


def _d_play(state: dict, command: dict) -> list[dict]:
    seat = _seat(state, command)
    if state["phase"] != "play":
        raise RuleViolation("wrong-phase", f"cards are played in the play phase; phase is {state['phase']}", "turn")
    card = _cards({"cards": [command.get("card")]} if isinstance(command.get("card"), int) and not isinstance(
        command.get("card"), bool) else {"cards": None}, 1)[0]
    _in_hand(state["hands"][seat], [card])
    legal = playable(state, seat)
    if card not in legal:
        if not state["trick"]:
            if state["contract"]["game"] == "pagat":
                now = "trump 1"
            else:
                now = "a card of " + " or ".join(SUITS[x] for x in sorted(_shown_suits_to_lead(state)))
            raise RuleViolation("must-lead-shown", "the challenger must lead the shown card(s) or a card of their "
                                "suit in the first trick(s), each shown card (or its suit) one of them "
                                f"(Pagat: trump 1 opens the first trick); lead {now} now")
        raise RuleViolation("must-follow", "follow the suit led; without it play a trump; on a trump lead play a "
                            "trump if you can")
    out = _Out(state)
    done = len(state["trick"]) + 1 == len(state["active"])
    out.emit(event("Played", {"seat": seat, "card": card, "next": None if done else active_after(state, seat)}))
    if done:
        st = out.state
        w, wc = trick_winner(st, st["trick"])
        leader = w
        con = st["contract"]
        if con["game"] in ("zwei_leere", "zwei_verschiedene"):
            if st["trick_no"] == 0:
                leader = con["challenger"]
            elif st["trick_no"] == 1:
                a, b = st["trick_winners"][0], [w, wc]
                leader = a[0] if strength(a[1]) > strength(b[1]) else b[0]
        out.emit(event("TrickTaken", {"winner": w, "winning_card": wc, "leader": leader}))
        if _round_over(out.state):
            _score(out, command)
    return out.events


# ------------------------------------------------------------------ scoring


def score_round(state: dict) -> dict:
    """Points, result and payments of a finished round (pure)."""
    n = len(state["players"])
    con = state["contract"]
    ch = con["challenger"]
    game = con["game"]
    part = list(state["active"]) + ([state["sitting_out"]] if state["sitting_out"] is not None else [])
    pay = [0] * n
    res: dict[str, Any] = {"game": game, "challenger": ch, "gegensolo": con.get("gegensolo", False)}
    if game == "rauber":
        pts = {s: count_points(state["won"][s]) for s in state["active"]}
        top = max(pts.values())
        losers = [s for s in state["active"] if pts[s] == top]
        for lo in losers:
            amt = RAUBER_PAY * (2 if lo == ch else 1)
            for s in part:
                if s != lo:
                    pay[lo] -= amt
                    pay[s] += amt
        res.update(points=[pts.get(s) for s in range(n)], losers=losers, challenger_won=None)
        return dict(res, payments=pay)
    if game in FIXED:
        tw = state["tricks_won"][ch]
        if game == "ulti":
            lt = state["last_trick"]
            won = (not any(state["hands"][s] for s in state["active"]) and lt["winner"] == ch
                   and [ch, 1] in lt["cards"])
        elif game == "piccolo":
            won = tw == 1
        else:
            won = tw == 0
        amt = FIXED[game]
    else:
        aside = state["blind"] if game == "solo" else state["legage"]
        mine = list(state["won"][ch])
        theirs = [c for s in range(n) if s != ch for c in state["won"][s]]
        # the blind of a Solo needs a trick won; the Legage of the Cego games counts always (rules "1": a trick)
        to_challenger = state["tricks_won"][ch] >= 1 or (game != "solo" and rules_of(state) != "1")
        if to_challenger:
            mine += aside
        else:
            theirs += aside
        cp, dp = count_points(mine), count_points(theirs)
        won = cp >= 40
        f = factor(con, won)
        amt = ((cp if won else dp) - 39) * f
        res.update(challenger_points=cp, defender_points=dp, factor=f, aside_to_challenger=to_challenger)
    for s in part:
        if s != ch:
            pay[s] -= amt if won else -amt
            pay[ch] += amt if won else -amt
    res.update(challenger_won=won, amount=amt)
    return dict(res, payments=pay)


def _score(out: _Out, command: dict) -> None:
    st = out.state
    res = score_round(st)
    balances = [a + b for a, b in zip(st["balances"], res["payments"])]
    over = st["round_no"] >= st["rounds_total"]
    seed = None if over else int_field(command, "seed")
    out.emit(event("RoundScored", dict(res, round=st["round_no"], balances=balances, match_over=over,
                                       blind=list(st["blind"]), legage=list(st["legage"]),
                                       tricks_won=list(st["tricks_won"]))))
    if over:
        ranking = sorted(range(len(balances)), key=lambda s: (-balances[s], s))
        top = balances[ranking[0]]
        out.emit(event("MatchEnded", {"scores": balances, "ranking": ranking,
                                      "winners": [s for s in ranking if balances[s] == top],
                                      "rounds_played": st["round_no"]}))
    else:
        _deal(out, seed, (st["dealer"] + 1) % len(st["players"]))


def _d_start(state: dict, command: dict) -> list[dict]:
    if command.get("seat") is not None:
        raise RuleViolation("system-command", "'start' is a system command, not a seat's move", "turn")
    if state["phase"] != "created":
        raise RuleViolation("already-started", "the match has already started", "turn")
    seed = int_field(command, "seed")
    n = len(state["players"])
    pile = full_deck()
    rng(f"dealer:{seed}").shuffle(pile)
    draws = [[s, pile[s]] for s in range(n)]
    dealer = max(draws, key=lambda p: strength(p[1]))[0]
    out = _Out(state)
    out.emit(event("DealerDrawn", {"draws": draws, "dealer": dealer}))
    _deal(out, seed, dealer)
    return out.events


_DECIDERS = {"start": _d_start, "call": _d_call, "keep": _d_exchange, "show": _d_exchange,
             "discard": _d_exchange, "play": _d_play}


def decide(state: dict, command: dict) -> list[dict]:
    if not isinstance(command, dict):
        raise RuleViolation("invalid-command", "a command must be an object", "invalid")
    kind = command.get("type")
    fn = _DECIDERS.get(kind) if isinstance(kind, str) else None
    if fn is None:
        raise RuleViolation("unknown-move", f"unknown move type {kind!r} (known: {', '.join(sorted(_DECIDERS))})",
                            "invalid")
    return fn(state, command)


# ------------------------------------------------------------------ queries


def to_act(state: dict) -> list[int]:
    phase = state["phase"]
    if phase in ("first_auction", "gegen", "second_auction", "raise"):
        return state["speakers"][:1]
    if phase in ("gut_selbst", "rauber_choice", "exchange"):
        return [state["contract"]["challenger"]]
    if phase == "play":
        return [state["turn"]]
    return []


def legal_moves(state: dict, seat: int) -> list[dict]:
    if not isinstance(seat, int) or isinstance(seat, bool) or seat not in to_act(state):
        return []
    phase = state["phase"]
    if phase == "exchange":
        return exchange_moves(state, seat)
    if phase == "play":
        return [{"type": "play", "card": c} for c in sorted(playable(state, seat))]
    return [{"type": "call", "call": c} for c in auction_calls(state, seat)]


def timeout_move(state: dict, seat: int) -> dict:
    if not isinstance(seat, int) or isinstance(seat, bool) or seat not in to_act(state):
        raise RuleViolation("not-your-turn", f"seat {seat} has nothing to decide now", "turn")
    phase = state["phase"]
    if phase == "play":
        return {"type": "play", "card": min(playable(state, seat), key=strength)}
    if phase == "exchange":
        hand = sorted(state["hands"][seat], key=strength, reverse=True)
        step = state["step"]
        if step == "keep2":
            return {"type": "keep", "cards": sorted(hand[:2])}
        if step == "keep1":
            return {"type": "keep", "cards": hand[:1]}
        if step == "discard":
            return {"type": "discard", "cards": hand[-1:]}
        return exchange_moves(state, seat)[0]
    calls = auction_calls(state, seat)
    return {"type": "call", "call": "pass" if "pass" in calls else calls[0]}


def view(state: dict, viewer: Any) -> dict:
    is_seat = viewer_is_seat(state, viewer)
    con = state["contract"]
    v: dict[str, Any] = {
        "game": GAME_ID, "rules_version": rules_of(state), "phase": state["phase"],
        "round_no": state["round_no"], "rounds_total": state["rounds_total"],
        "players": list(state["players"]), "options": dict(state["options"]),
        "dealer_draw": [list(p) for p in state["draws"]], "dealer": state["dealer"],
        "active": list(state["active"]), "sitting_out": state["sitting_out"],
        "mano": state["active"][0] if state["active"] else None,
        "hand_sizes": [len(h) for h in state["hands"]],
        "blind_size": 0 if state["blind_taken"] else len(state["blind"]),
        "legage_size": len(state["legage"]),
        "auction": [dict(a) for a in state["auction"]], "speakers": list(state["speakers"]),
        "contract": None if con is None else dict(con), "soloist": state["soloist"],
        "gegensolo": state["gegensolo"], "raiser": state["raiser"], "exchange_step": state["step"],
        "shown": list(state["shown"]), "shown_in_hand": list(state["shown_left"]),
        "shown_discard": state["shown_discard"],
        "trick": [list(p) for p in state["trick"]], "leader": state["leader"], "turn": state["turn"],
        "trick_no": state["trick_no"], "tricks_won": list(state["tricks_won"]),
        "last_trick": None if state["last_trick"] is None else
        {"cards": [list(p) for p in state["last_trick"]["cards"]], "winner": state["last_trick"]["winner"]},
        "balances": list(state["balances"]), "last_round": state["last_round"],
        "to_act": to_act(state), "outcome": outcome(state),
    }
    if is_seat:
        v["seat"] = viewer
        v["hand"] = list(state["hands"][viewer])
        if con is not None and con["challenger"] == viewer:
            v["legage"] = list(state["legage"])
        v["moves"] = legal_moves(state, viewer)
    elif viewer == REVIEWER:
        v["hands"] = [list(h) for h in state["hands"]]
        v["blind"] = list(state["blind"])
        v["legage"] = list(state["legage"])
    return v


def outcome(state: dict) -> dict | None:
    if state["phase"] != "finished":
        return None
    return state["outcome"]
