"""Cego for the bots: a full state consistent with a seat's view, and the heuristic player.

A seat's view (``domain.cego.view``) shows its hand, as challenger its Legage,
and what is public: the auction, the contract, the shown cards and the shown
discard, the trick in play, the last trick, the tricks won (counts), the sizes
of every hand, of the blind and of the Legage.  It keeps no record of the
earlier tricks, so the cards won in them are dealt among the won piles like any
unseen card (only the last trick's cards go to its winner, and a shown card
already played to some won pile).

``heuristic`` follows the strategy of seed 003 (``../shared/seeds/003_e0bc4396a9caea9d.txt``):
bid Solo on the Solo requirement (eight trumps, or seven with two above 17 and
two suits), challenge a Solo and raise a Cego game on trump strength and the
points the Legage will bring, Bettel and Piccolo on weak hands, keep the high
trumps in the exchange and set the points aside, and in the tricks win cheaply,
give points to a winning partner and throw low cards otherwise.
"""

from __future__ import annotations

import random

from domain.cego import (
    LEVELS,
    count_points,
    deck_for,
    full_deck,
    initial_state,
    is_trump,
    solo_allowed,
    strength,
    suit,
    trick_winner,
    value,
)
from domain.cego.contracts import show_options

# the phases in which every active seat still holds the hand it was dealt
_AUCTION = ("first_auction", "gegen", "second_auction", "raise", "gut_selbst", "rauber_choice")


def _hidden_slots(view: dict, seat: int) -> tuple[list[int], dict]:
    """The cards the seat has not seen, and the places they may be (and what is fixed in each)."""
    active = view["active"]
    con = view["contract"]
    ch = None if con is None else con["challenger"]
    mine = ch == seat
    deck = deck_for(len(active)) if active else full_deck()
    hand = list(view["hand"])
    trick = [c for _, c in view["trick"]]
    last = view["last_trick"]
    last_cards = [c for _, c in last["cards"]] if last else []
    shown_left = list(view["shown_in_hand"])
    sd = view["shown_discard"]
    legage_fixed = list(view.get("legage") or []) if mine else ([sd] if sd is not None else [])
    placed = set(hand) | set(trick) | set(last_cards) | set(shown_left) | set(legage_fixed)
    played_shown = [c for c in view["shown"] if c not in placed]  # shown, then played in an earlier trick
    known = placed | set(played_shown)
    pool = [c for c in deck if c not in known]
    n = len(view["players"])
    hands_fixed = [[] for _ in range(n)]
    if ch is not None and ch != seat:
        hands_fixed[ch] = shown_left
    won_fixed = [[] for _ in range(n)]
    if last:
        won_fixed[last["winner"]] = list(last_cards)
    return pool, {
        "hands_fixed": hands_fixed,
        "legage_fixed": legage_fixed,
        "won_fixed": won_fixed,
        "played_shown": played_shown,
        "mine": mine,
        "challenger": ch,
    }


def _calls_heard(view: dict) -> dict[int, list[str]]:
    """What each seat's calls say of the hand it was dealt, while it still holds it: per seat the
    levels its hand must be able to play (``solo``, ``ulti`` or a Cego level it raised to)."""
    if view["phase"] not in _AUCTION:
        return {}
    need: dict[int, list[str]] = {}
    level = 0
    for a in view["auction"]:
        call = a["call"]
        if call == "raise":
            level += 1
        if call in ("solo", "ulti"):
            need.setdefault(a["seat"], []).append(call)
        elif call in ("raise", "selbst") and level < len(LEVELS):
            need.setdefault(a["seat"], []).append(LEVELS[level])
    return need


def _fits(hand: list[int], needs: list[str]) -> bool:
    for need in needs:
        if need == "solo" and not solo_allowed(hand):
            return False
        if need in ("ulti", "pagat") and 1 not in hand:
            return False
        if need in LEVELS and need not in ("cego", "eine", "pagat") and not show_options(hand, need):
            return False
    return True


def _sample_hand(cards: list[int], fixed: list[int], count: int, needs: list[str], rng: random.Random, tries: int):
    """``count`` of ``cards`` that, with ``fixed``, make a hand fit for ``needs``: drawn at random
    until one fits; then, for a Solo or an Ulti, drawn with eight trumps or more (trump 1)."""
    picked = rng.sample(cards, count)
    for _ in range(max(1, tries)):
        if _fits(fixed + picked, needs):
            return picked
        picked = rng.sample(cards, count)
    trumps = [c for c in cards if is_trump(c)]
    others = [c for c in cards if not is_trump(c)]
    held = sum(1 for c in fixed if is_trump(c))
    if "solo" in needs and held + len(trumps) >= 8:
        low = max(0, 8 - held, count - len(others))
        k = rng.randint(low, min(count, len(trumps))) if low <= min(count, len(trumps)) else low
        picked = rng.sample(trumps, k) + rng.sample(others, count - k)
    if any(n in ("ulti", "pagat") for n in needs) and 1 in cards and 1 not in picked and picked:
        picked = [1] + [c for c in picked if c != 1][: count - 1]
    return picked


def determinize(view: dict, seat: int, rng: random.Random, tries: int = 60) -> dict:
    """A full Cego state consistent with ``view`` (``view(state, seat) == view``).

    The unseen cards are dealt at random to the other hands (their sizes as
    shown, the challenger's shown cards kept in its hand), to the blind while it
    lies on the table, to the Legage but for the seat that set it aside (the
    shown discard stays in it), and to the won piles (the last trick's cards to
    its winner).  While the auction runs, the hand of a seat that called Solo,
    Ulti or a raise is drawn again (up to ``tries`` times) until it could have
    made that call (after that, a Solo's hand is drawn with eight trumps or more).
    """
    pool, f = _hidden_slots(view, seat)
    n = len(view["players"])
    active = view["active"]
    na = len(active)
    sizes = view["hand_sizes"]
    blind_taken = bool(active) and view["blind_size"] == 0
    cards = list(pool)
    rng.shuffle(cards)
    hands: list[list[int]] = [[] for _ in range(n)]
    hands[seat] = sorted(view["hand"])
    for s, needs in sorted(_calls_heard(view).items()):  # the hands the calls heard tell something of
        if s == seat:
            continue
        fixed = f["hands_fixed"][s]
        count = sizes[s] - len(fixed)
        picked = _sample_hand(cards, fixed, count, needs, rng, tries)
        hands[s] = sorted(fixed + picked)
        taken = set(picked)
        cards = [c for c in cards if c not in taken]
    k = 0

    def take(count: int) -> list[int]:
        nonlocal k
        out = cards[k : k + count]
        k += count
        return out

    for s in range(n):
        if s != seat and not hands[s]:
            fixed = f["hands_fixed"][s]
            hands[s] = sorted(fixed + take(sizes[s] - len(fixed)))
    blind = [] if blind_taken else sorted(take(view["blind_size"]))
    legage = list(f["legage_fixed"]) + take(view["legage_size"] - len(f["legage_fixed"]))
    won_sizes = [view["tricks_won"][s] * na for s in range(n)]
    won_free = [won_sizes[s] - len(f["won_fixed"][s]) for s in range(n)]
    slots = [s for s in range(n) for _ in range(won_free[s])]
    rng.shuffle(slots)
    rest = f["played_shown"] + cards[k:]
    won = [list(f["won_fixed"][s]) for s in range(n)]
    for s, c in zip(slots, rest):
        won[s].append(c)
    if blind_taken:  # taken into the challenger's hand: its cards came from the challenger's hand and Legage
        ch = f["challenger"]
        source = sorted(set(hands[ch]) | set(legage) | set(won[ch]), key=strength)
        blind = sorted(rng.sample(source, min(len(source), 10 if na == 4 else 12)))
    st = initial_state(view["players"], view["options"])
    trick_winners = _trick_winners(view, won, rng)
    st.update(
        rules=view["rules_version"],
        phase=view["phase"],
        round_no=view["round_no"],
        rounds_total=view["rounds_total"],
        draws=[list(p) for p in view["dealer_draw"]],
        dealer=view["dealer"],
        active=list(active),
        sitting_out=view["sitting_out"],
        hands=hands,
        blind=blind,
        blind_taken=blind_taken,
        legage=legage,
        auction=[dict(a) for a in view["auction"]],
        speakers=list(view["speakers"]),
        contract=None if view["contract"] is None else dict(view["contract"]),
        gegensolo=view["gegensolo"],
        soloist=view["soloist"],
        raiser=view["raiser"],
        step=view["exchange_step"],
        shown=list(view["shown"]),
        shown_left=list(view["shown_in_hand"]),
        shown_discard=view["shown_discard"],
        trick=[list(p) for p in view["trick"]],
        leader=view["leader"],
        turn=view["turn"],
        trick_no=view["trick_no"],
        tricks_won=list(view["tricks_won"]),
        won=won,
        trick_winners=trick_winners,
        last_trick=None
        if view["last_trick"] is None
        else {"cards": [list(p) for p in view["last_trick"]["cards"]], "winner": view["last_trick"]["winner"]},
        balances=list(view["balances"]),
        last_round=view["last_round"],
        outcome=view["outcome"],
    )
    return st


def _trick_winners(view: dict, won: list[list[int]], rng: random.Random) -> list[list[int]]:
    """The winners of the tricks played (and their winning cards): the last one as the view
    shows it, the earlier ones (which no rule reads again) one per trick each seat won."""
    last = view["last_trick"]
    if last is None:
        return []
    counts = list(view["tricks_won"])
    counts[last["winner"]] -= 1
    earlier = []
    for s, k in enumerate(counts):
        pile = sorted(won[s], key=strength, reverse=True)
        earlier += [[s, pile[i % len(pile)] if pile else 0] for i in range(k)]
    rng.shuffle(earlier)
    w, c = trick_winner({"shown": view["shown"]}, [tuple(p) for p in last["cards"]])
    return earlier + [[w, c]]


# ------------------------------------------------------------------ the heuristic


def _trumps(hand: list[int]) -> list[int]:
    return sorted(c for c in hand if is_trump(c))


def _pick(options: list, score, rng: random.Random):
    """The option with the highest score, ties broken by ``rng``."""
    scored = [(score(o), i) for i, o in enumerate(options)]
    top = max(s for s, _ in scored)
    return options[rng.choice([i for s, i in scored if s == top])]


def _call(view: dict, seat: int, calls: list[str], rng: random.Random) -> str:
    hand = view["hand"]
    phase = view["phase"]
    points = count_points(hand)
    trumps = _trumps(hand)
    high = [c for c in trumps if c >= 17]
    if phase == "first_auction":
        if "solo" in calls and (len(trumps) >= 8 or len(high) >= 2):
            return "solo"
        if "ulti" in calls and len(trumps) >= 10:
            return "ulti"
        return "pass"
    if phase == "gegen":
        return "gegensolo" if len(trumps) >= 6 and len(high) >= 2 else "pass"
    if phase == "second_auction":
        if "bettel" in calls and not any(c >= 8 for c in trumps) and len(trumps) <= 3 and points <= 10:
            return "bettel"
        if "piccolo" in calls and len(high) == 1 and len(trumps) <= 3 and points <= 14:
            return "piccolo"
        return "pass"
    if phase in ("raise", "gut_selbst"):
        level = LEVELS.index(view["contract"]["game"]) + 1
        # the Legage (most of the hand) counts for the challenger; fewer cards are kept at each level
        strong = points + 2 * len(high) >= 22 + 3 * level
        if phase == "raise":
            return "raise" if "raise" in calls and strong else "pass"
        return "selbst" if "selbst" in calls and strong else "gut"
    if phase == "rauber_choice":  # Räuber: the most points pays; a hand poor in points and high trumps is safe
        return "rauber" if points <= 12 and len(high) <= 1 else "cego"
    return rng.choice(calls)


def _side(view: dict, a: int, b: int) -> bool:
    """Seats ``a`` and ``b`` play on the same side (Räuber: everyone alone)."""
    con = view["contract"]
    if con["game"] == "rauber":
        return a == b
    ch = con["challenger"]
    return (a == ch) == (b == ch)


def _winner(shown: dict, trick: list) -> int | None:
    """The seat holding ``trick`` so far (None: a lone shown card that cannot win)."""
    if len(trick) < 2 and trick and trick[0][1] in shown["shown"]:
        return None
    return trick_winner(shown, trick)[0]


def _play(view: dict, seat: int, cards: list[int], rng: random.Random) -> int:
    con = view["contract"]
    game = con["game"]
    trick = [tuple(p) for p in view["trick"]]
    shown = {"shown": view["shown"]}
    avoid = game == "rauber" or (game in ("bettel", "piccolo") and seat == con["challenger"])
    if game == "piccolo" and seat == con["challenger"] and view["tricks_won"][seat] == 0:
        avoid = len(view["hand"]) > 3  # take the one trick late
    if not trick:
        if avoid:
            return _pick(cards, lambda c: (-strength(c), -value(c)), rng)
        top = [c for c in cards if is_trump(c) and c >= 19]
        if top:
            return _pick(top, lambda c: strength(c), rng)
        # lead a low card of the shortest suit held
        by_suit = {}
        for c in view["hand"]:
            by_suit[suit(c)] = by_suit.get(suit(c), 0) + 1
        return _pick(cards, lambda c: (-by_suit[suit(c)] if not is_trump(c) else -99, -strength(c)), rng)

    def wins(c: int) -> bool:
        return _winner(shown, trick + [(seat, c)]) == seat

    winner = _winner(shown, trick)
    winning = [c for c in cards if wins(c)]
    losing = [c for c in cards if c not in winning]
    if avoid:
        if losing:
            return _pick(losing, lambda c: (strength(c), -value(c) if game == "rauber" else 0), rng)
        return _pick(cards, lambda c: (-value(c), strength(c)), rng)
    if (
        winner is not None and _side(view, winner, seat) and winner != seat
    ):  # the partner holds the trick: give it points
        if losing:
            return _pick(losing, lambda c: (value(c), -strength(c)), rng)
    if winning:
        return _pick(winning, lambda c: (value(c) >= 4, -strength(c)), rng)
    return _pick(cards, lambda c: (-value(c), -strength(c)), rng)


def heuristic(view: dict, seat: int, moves: list[dict], rng: random.Random) -> dict:
    """A move by seed 003's strategy (see the module's docstring); ties broken by ``rng``."""
    kind = moves[0]["type"]
    if kind == "call":
        call = _call(view, seat, [m["call"] for m in moves], rng)
        return next(m for m in moves if m["call"] == call)
    if kind == "keep":  # keep the strongest cards (the high trumps); the rest count in the Legage
        return _pick(moves, lambda m: sum(strength(c) for c in m["cards"]), rng)
    if kind == "discard":  # the Legage counts for the challenger: set aside points that would not win
        return _pick(
            moves, lambda m: (not is_trump(m["cards"][0]), value(m["cards"][0]), -strength(m["cards"][0])), rng
        )
    if kind == "show":  # the shown cards lose their tricks: show the cheapest
        return _pick(moves, lambda m: (-sum(value(c) for c in m["cards"]), -sum(strength(c) for c in m["cards"])), rng)
    if kind == "play":
        card = _play(view, seat, [m["card"] for m in moves], rng)
        return next(m for m in moves if m["card"] == card)
    return rng.choice(moves)
