"""¡Muerte al rey! as a decider (see ``domain.base`` for the shared face).

Cards are strings: a suit letter and a number, ``"O12"`` is the king of oros.
Suits: ``O`` oros, ``C`` copas, ``E`` espadas, ``B`` bastos.  Numbers 1..7 and
10 (sota), 11 (caballo), 12 (rey) in the 40-card deck; 8 and 9 as well in the
48-card deck.

2n players form two teams of n, espadas and bastos.  Each seat shows one
identity card (``E1``..``En`` or ``B1``..``Bn``, public) and holds cards of its
own team's deck (secret): the espadas team hides the king of oros (``O12``),
the bastos team the king of copas (``C12``).

Phases: ``created`` -> ``turn`` (a seat exchanges or accuses) -> ``giveback``
(the chosen teammate gives a card back) -> (``treason``) -> ``turn`` ... or
``turn`` -> ``discard`` (a wrong accusation: the accuser loses a card) ->
``turn`` ... until a game ends; then ``swapping`` / ``assigning`` (fixed
cards, section 3.3) or straight to the next deal; ``finished`` at the end of
the match.  ``between_games`` exists only inside one ``decide`` call.

The rules as implemented, with every reading chosen, are in
``docs/rules/muerte.md``.
"""

from __future__ import annotations

from typing import Any

from domain.base import (
    committed,
    match_ended,
    seat_parts,
    settle_options,
    check_player_count,
    table_seat,
    Outbox,
    viewer_is_seat,
    REVIEWER,
    RuleViolation,
    event,
    int_field,
    rng,
)

GAME_ID = "muerte"
TITLE = "¡Muerte al rey!"
RULES_VERSION = "1"
# rules versions whose logs this module folds exactly as they were played
FOLDS_RULES = ("1",)
# events after which the deal in play is over and its commitment is revealed
HAND_OVER_EVENTS = ("GameEnded", "MatchEnded")
MIN_PLAYERS = 6
MAX_PLAYERS = 16

TEAMS = ("espadas", "bastos")
IDENTITY_SUIT = {"espadas": "E", "bastos": "B"}
MAIN_SUIT = {"espadas": "O", "bastos": "C"}  # the suit of the team's deck (and of its king)
KINGS = {"espadas": "O12", "bastos": "C12"}
KING = 12
DECK_NUMBERS = {
    "spanish40": (1, 2, 3, 4, 5, 6, 7, 10, 11, 12),
    "spanish48": tuple(range(1, 13)),
}
DECK_MAX_PLAYERS = {"spanish40": 12, "spanish48": 16}
IDENTITY_MODES = ("random", "fixed", "winner_swaps", "fixed_teams", "team_chooses", "opponents_choose")

OPTIONS: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "deck": {
            "type": "string",
            "enum": list(DECK_NUMBERS),
            "default": "spanish40",
            "description": "spanish40 (1-7, sota, caballo, rey: 6 to 12 players) or spanish48 (with the 8s and "
            "9s: up to 16 players).",
        },
        "treason": {
            "type": "boolean",
            "default": False,
            "description": "Treason (3.1): a player who receives in an exchange a card of their identity "
            "card's number may denounce the giver at once; the game then ends and only the discoverer wins.",
        },
        "games": {
            "type": "integer",
            "default": 1,
            "minimum": 1,
            "maximum": 100,
            "description": "Number of games in the match; points (3.2) are summed over them.",
        },
        "identity_mode": {
            "type": "string",
            "enum": list(IDENTITY_MODES),
            "default": "random",
            "description": "How identity cards are assigned from the second game on (3.3): random (dealt "
            "again), fixed (kept), winner_swaps (from the player before the winner backwards, each swaps "
            "its card with another player), fixed_teams (teams kept, cards shuffled within each), "
            "team_chooses (each team places its own cards), opponents_choose (each team places the "
            "opponents' cards).",
        },
    },
}

# What a creation must satisfy beyond the player count and each option's schema, as JSON Schemas
# over {"player_count": n, "options": {...defaults filled in}}; each id is the rule _d_start refuses
# with.  Seed 001, 2.1: "El número de jugadores ha de ser par. Con la baraja española clásica de 40
# cartas, podrán participar de 6 a 12 jugadores."
CONSTRAINTS: tuple[dict[str, Any], ...] = (
    {"id": "odd-player-count", "on": ["player_count"],
     "description": "the number of players must be even (two teams of equal size)",
     "schema": {"properties": {"player_count": {"multipleOf": 2}}}},
    {"id": "deck-too-small", "on": ["player_count", "options"],
     "description": "a deck serves so many players: " + ", ".join(
         f"{deck} up to {most}" for deck, most in DECK_MAX_PLAYERS.items()),
     "schema": {"allOf": [
         {"if": {"properties": {"options": {"properties": {"deck": {"const": deck}}, "required": ["deck"]}},
                 "required": ["options"]},
          "then": {"properties": {"player_count": {"maximum": most}}}}
         for deck, most in DECK_MAX_PLAYERS.items()]}},
)


# --------------------------------------------------------------------- helpers


def number(card: str) -> int:
    return int(card[1:])


def identity_deck(n: int) -> list[str]:
    """Section 2.1.1: espadas and bastos 1..n."""
    return [f"E{k}" for k in range(1, n + 1)] + [f"B{k}" for k in range(1, n + 1)]


def team_deck(team: str, n: int, deck: str = "spanish40") -> list[str]:
    """Sections 2.1.2 / 2.1.3: 2n cards, the team's 1..n, its king and n-1 fillers.

    Fillers never share a number with an identity card (all above n).  They are
    taken first from the main suit (oros / copas), ascending, leaving out its 7
    (the seed's example for 6 companions skips it), then from the identity suit
    (espadas / bastos), ascending (its own 12 only for 8 companions, the one case
    where nothing else is left).
    """
    nums = DECK_NUMBERS[deck]
    main, other = MAIN_SUIT[team], IDENTITY_SUIT[team]
    cards = [f"{main}{k}" for k in range(1, n + 1)] + [f"{main}{KING}"]
    fillers = [f"{main}{k}" for k in nums if k > n and k not in (7, KING)]
    fillers += [f"{other}{k}" for k in nums if k > n]
    fillers += [f"{main}7"] if 7 > n else []
    return cards + fillers[: n - 1]


def _all_cards(deck: str) -> set[str]:
    return {f"{s}{k}" for s in "OCEB" for k in DECK_NUMBERS[deck]}


def team_of(state: dict, seat: int) -> str:
    return "espadas" if state["identity"][seat][0] == "E" else "bastos"


def _other(team: str) -> str:
    return "bastos" if team == "espadas" else "espadas"


def _members(state: dict, team: str) -> list[int]:
    """The team's seats in turn order."""
    return [s for s in state["order"] if team_of(state, s) == team]


def _alive(state: dict, seat: int) -> bool:
    return seat not in state["eliminated"]


def turn_order(identity: list[str]) -> list[int]:
    """Section 2.3: 1 of espadas, 1 of bastos, 2 of espadas ... n of bastos."""
    where = {c: s for s, c in enumerate(identity)}
    n = len(identity) // 2
    return [where[f"{suit}{k}"] for k in range(1, n + 1) for suit in ("E", "B")]


def _card(state: dict, command: dict, field: str = "card") -> str:
    c = command.get(field)
    if not isinstance(c, str):
        raise RuleViolation("invalid-field", f"'{field}' must be a card such as \"O3\"", "invalid")
    if c not in _all_cards(state["options"]["deck"]):
        raise RuleViolation("unknown-card", f"{c!r} is not a card of this deck (suit O/C/E/B and a number)",
                            "invalid")
    return c


def _target(state: dict, command: dict, field: str) -> int:
    t = int_field(command, field)
    if not 0 <= t < len(state["players"]):
        raise RuleViolation("unknown-seat", f"'{field}': seat {t} is not at this table", "invalid")
    return t


def _Out(state: dict) -> Outbox:
    return Outbox(state, evolve)


# ----------------------------------------------------------------------- state


def initial_state(players: list[str], options: dict | None) -> dict:
    players = list(players)
    check_player_count(TITLE, len(players), MIN_PLAYERS, MAX_PLAYERS)
    opts = settle_options(OPTIONS, options)
    if opts["deck"] not in DECK_NUMBERS:
        opts["deck"] = "spanish40"
    if opts["identity_mode"] not in IDENTITY_MODES:
        opts["identity_mode"] = "random"
    if not isinstance(opts["games"], int) or isinstance(opts["games"], bool) or opts["games"] < 1:
        opts["games"] = 1
    opts["treason"] = bool(opts["treason"])
    p = len(players)
    return {
        "game": GAME_ID,
        "players": players,
        "options": opts,
        "phase": "created",
        "game_no": 0,
        "games_total": opts["games"],
        "n": p // 2,
        "identity": [],  # per seat, public
        "order": [],  # seats in turn order
        "hands": [[] for _ in range(p)],  # secret
        "lost": [[] for _ in range(p)],  # cards lost after wrong accusations (public)
        "eliminated": [],
        "turn": None,
        "pos": 0,
        "round": 0,
        "accused": {"espadas": False, "bastos": False},  # this full round
        "exchange": None,  # {"seat", "with"} while the teammate must give back
        "offer": None,  # the giver's card while pending (secret)
        "accusation": None,  # {"seat", "target"} while the accuser must discard
        "treason": None,  # {"pending": [...], "chances": [[receiver, giver, card]], "denounced": [...]}
        "transfers": {},  # str(seat) -> [{"with", "gave", "received"}] this game (secret)
        "reveals": [],  # public list of accusations' reveals
        "swap": None,  # {"sequence": [...], "index": i} (winner_swaps)
        "assign": None,  # team -> {"chooser", "cards", "seats", "given"} (team/opponents choose)
        "teams_fixed": None,  # seat -> team, once teams are fixed for the match
        "game_points": [0] * p,
        "scores": [0] * p,
        "results": [],  # one record per finished game
        "outcome": None,
    }


def _ev_game_dealt(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    p = len(state["players"])
    hands: list[list[str]] = [[] for _ in range(p)]
    for seat, part in seat_parts(ev.get("private")):
        hands[seat] = list(part["hand"])
    st["hands"] = hands
    st["identity"] = list(d["identity"])
    st["order"] = list(d["order"])
    st["game_no"] = d["game"]
    st["lost"] = [[] for _ in range(p)]
    st["eliminated"] = []
    st["turn"] = d["order"][0]
    st["pos"] = 0
    st["round"] = 1
    st["accused"] = {"espadas": False, "bastos": False}
    st["exchange"] = None
    st["offer"] = None
    st["accusation"] = None
    st["treason"] = None
    st["transfers"] = {}
    st["swap"] = None
    st["assign"] = None
    if d.get("teams_fixed") is not None:
        st["teams_fixed"] = list(d["teams_fixed"])
    st["phase"] = "turn"
    return st


def _ev_exchange_offered(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    part = (ev.get("private") or {}).get(str(d["seat"]))
    st["offer"] = part["card"] if part else None
    st["exchange"] = {"seat": d["seat"], "with": d["with"]}
    st["phase"] = "giveback"
    return st


def _ev_cards_exchanged(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    hands = list(state["hands"])
    transfers = dict(state["transfers"])
    for key, part in (ev.get("private") or {}).items():
        s = int(key)
        h = list(hands[s])
        h.remove(part["gave"])
        h.append(part["received"])
        h.sort(key=_card_key)
        hands[s] = h
        transfers[key] = transfers.get(key, []) + [dict(part)]
    st["hands"] = hands
    st["transfers"] = transfers
    st["offer"] = None
    st["exchange"] = None
    if d["treason_chances"]:
        st["phase"] = "treason"
        st["treason"] = {"pending": [c[0] for c in d["treason_chances"]],
                         "chances": [list(c) for c in d["treason_chances"]], "denounced": []}
    return st


def _ev_treason_answered(state: dict, ev: dict) -> dict:
    """TreasonDenounced and TreasonIgnored: the seat has answered; a denunciation is recorded."""
    d = ev["data"]
    t = state["treason"]
    denounced = t["denounced"]
    if ev["type"] == "TreasonDenounced":
        denounced = denounced + [[d["seat"], d["traitor"], d["card"]]]
    return {**state, "treason": {"pending": [s for s in t["pending"] if s != d["seat"]], "chances": t["chances"],
                                 "denounced": denounced}}


def _ev_accused(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    accused = dict(state["accused"])
    accused[team_of(state, d["seat"])] = True
    st["accused"] = accused
    st["reveals"] = state["reveals"] + [{"game": state["game_no"], "round": state["round"], "seat": d["seat"],
                                         "target": d["target"], "cards": list(d["cards"]), "king": d["king"]}]
    if not d["king"]:
        st["phase"] = "discard"
        st["accusation"] = {"seat": d["seat"], "target": d["target"]}
    return st


def _ev_card_lost(state: dict, ev: dict) -> dict:
    d = ev["data"]
    s = d["seat"]
    st = dict(state)
    hands = list(state["hands"])
    h = list(hands[s])
    h.remove(d["card"])
    hands[s] = h
    st["hands"] = hands
    lost = list(state["lost"])
    lost[s] = lost[s] + [d["card"]]
    st["lost"] = lost
    if d["eliminated"]:
        st["eliminated"] = state["eliminated"] + [s]
    st["accusation"] = None
    return st


def _ev_turn_began(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    st["phase"] = "turn"
    st["turn"] = d["seat"]
    st["pos"] = d["pos"]
    st["treason"] = None
    if d["round"] != state["round"]:
        st["round"] = d["round"]
        st["accused"] = {"espadas": False, "bastos": False}
    return st


def _ev_game_ended(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    st["game_points"] = list(d["points"])
    st["scores"] = list(d["scores"])
    st["results"] = state["results"] + [{k: v for k, v in d.items() if k != "scores"}]
    st["turn"] = None
    st["exchange"] = None
    st["offer"] = None
    st["accusation"] = None
    st["treason"] = None
    st["phase"] = "finished" if d["match_over"] else "between_games"
    return st


def _ev_swaps_began(state: dict, ev: dict) -> dict:
    st = dict(state)
    st["phase"] = "swapping"
    st["swap"] = {"sequence": list(ev["data"]["sequence"]), "index": 0}
    return st


def _ev_identity_swapped(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    ident = list(state["identity"])
    a, b = d["seat"], d["with"]
    ident[a], ident[b] = ident[b], ident[a]
    st["identity"] = ident
    st["swap"] = {"sequence": state["swap"]["sequence"], "index": state["swap"]["index"] + 1}
    return st


def _ev_assignment_began(state: dict, ev: dict) -> dict:
    st = dict(state)
    st["phase"] = "assigning"
    st["assign"] = {t: {"chooser": a["chooser"], "cards": list(a["cards"]), "seats": list(a["seats"]), "given": {}}
                    for t, a in ev["data"]["teams"].items()}
    st["teams_fixed"] = list(ev["data"]["teams_fixed"])
    return st


def _ev_identity_assigned(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = dict(state)
    assign = dict(state["assign"])
    a = assign[d["team"]]
    given = dict(a["given"])
    given[str(d["to"])] = d["card"]
    assign[d["team"]] = {**a, "given": given}
    st["assign"] = assign
    return st


_EVOLVERS = {
    "GameDealt": _ev_game_dealt,
    "ExchangeOffered": _ev_exchange_offered,
    "CardsExchanged": _ev_cards_exchanged,
    "TreasonDenounced": _ev_treason_answered,
    "TreasonIgnored": _ev_treason_answered,
    "Accused": _ev_accused,
    "CardLost": _ev_card_lost,
    "TurnBegan": _ev_turn_began,
    "GameEnded": _ev_game_ended,
    "IdentitySwapsBegan": _ev_swaps_began,
    "IdentitySwapped": _ev_identity_swapped,
    "IdentityAssignmentBegan": _ev_assignment_began,
    "IdentityAssigned": _ev_identity_assigned,
    "MatchEnded": match_ended,
}


def evolve(state: dict, ev: dict) -> dict:
    fn = _EVOLVERS.get(ev["type"])
    if fn is None:
        raise ValueError(f"muerte: unknown event type {ev['type']!r}")
    return fn(state, ev)


def _card_key(card: str) -> tuple[str, int]:
    return card[0], number(card)


# ---------------------------------------------------------------------- decide


def _deal(out: _Out, identity: list[str], seed: int) -> None:
    st = out.state
    n = st["n"]
    r = rng(f"deal:{seed}")
    order = turn_order(identity)
    hands: dict[int, list[str]] = {}
    decks: dict[str, list[str]] = {}
    for team in TEAMS:
        deck = team_deck(team, n, st["options"]["deck"])
        r.shuffle(deck)
        decks[team] = deck
        for i, s in enumerate(s for s in order if identity[s][0] == IDENTITY_SUIT[team]):
            hands[s] = sorted(deck[2 * i: 2 * i + 2], key=_card_key)
    teams_fixed = None
    if st["options"]["identity_mode"] != "random" and st["teams_fixed"] is None:
        teams_fixed = ["espadas" if c[0] == "E" else "bastos" for c in identity]
    out.emit(committed(event("GameDealt", {"game": st["game_no"] + 1, "identity": list(identity), "order": order,
                                           "sizes": [2] * len(identity), "teams_fixed": teams_fixed},
                             {s: {"hand": h} for s, h in hands.items()}), decks, seed))


def _d_start(state: dict, command: dict) -> list[dict]:
    if command.get("seat") is not None:
        raise RuleViolation("system-command", "'start' is a system command, not a seat's move", "turn")
    if state["phase"] != "created":
        raise RuleViolation("already-started", "the match has already started", "turn")
    seed = int_field(command, "seed")
    p = len(state["players"])
    deck = state["options"]["deck"]
    if p % 2:
        raise RuleViolation("odd-player-count", f"the number of players must be even (two equal teams), got {p}")
    if p > DECK_MAX_PLAYERS[deck]:
        raise RuleViolation("deck-too-small", f"the {deck} deck serves at most {DECK_MAX_PLAYERS[deck]} players, "
                            f"got {p}; use the 48-card deck for up to 16")
    identity = identity_deck(p // 2)
    rng(f"identity:{seed}").shuffle(identity)
    out = _Out(state)
    _deal(out, identity, seed)
    return out.events


def _seat(state: dict, command: dict) -> int:
    seat = table_seat(state, command)
    if state["phase"] == "created":
        raise RuleViolation("not-started", "the match has not started yet", "turn")
    if state["phase"] == "finished":
        raise RuleViolation("game-over", "the match is over: no more moves", "turn")
    return seat


def _in_phase(state: dict, command: dict, phase: str, what: str) -> int:
    seat = _seat(state, command)
    if state["phase"] != phase:
        raise RuleViolation("wrong-phase", f"'{command['type']}' is for {what}; now the game is in the "
                            f"{state['phase']} phase", "turn")
    return seat


def _later_teammate(state: dict, seat: int) -> bool:
    """Does an active teammate still play after ``seat`` in this full round?"""
    team = team_of(state, seat)
    order = state["order"]
    return any(_alive(state, s) and team_of(state, s) == team for s in order[state["pos"] + 1:])


def teammates(state: dict, seat: int) -> list[int]:
    team = team_of(state, seat)
    return [s for s in _members(state, team) if s != seat and _alive(state, s)]


def must_accuse(state: dict, seat: int) -> bool:
    """Section 2.3: the team's last player in a full round accuses if the team has not."""
    if state["phase"] != "turn" or state["turn"] != seat:
        return False
    if not teammates(state, seat):
        return True  # nobody to exchange with
    return not state["accused"][team_of(state, seat)] and not _later_teammate(state, seat)


def _begin_next_turn(out: _Out, after_pos: int) -> None:
    st = out.state
    order = st["order"]
    m = len(order)
    for i in range(1, m + 1):
        p = (after_pos + i) % m
        if _alive(st, order[p]):
            rnd = st["round"] + (1 if after_pos + i >= m else 0)
            out.emit(event("TurnBegan", {"seat": order[p], "pos": p, "round": rnd}))
            return
    raise AssertionError("nobody left to play")  # pragma: no cover (a team wins before)


def _d_exchange(state: dict, command: dict) -> list[dict]:
    seat = _in_phase(state, command, "turn", "a player's turn")
    if seat != state["turn"]:
        raise RuleViolation("not-your-turn", f"it is seat {state['turn']}'s turn", "turn")
    mate = _target(state, command, "with")
    card = _card(state, command)
    if must_accuse(state, seat):
        if teammates(state, seat):
            raise RuleViolation("must-accuse", "your team has not accused in this full round and you are its "
                                "last player in it: you must accuse")
        raise RuleViolation("must-accuse", "you have no active teammate to exchange with: you must accuse")
    if mate == seat or team_of(state, mate) != team_of(state, seat):
        raise RuleViolation("not-a-teammate", "you exchange a card with one of your companions")
    if not _alive(state, mate):
        raise RuleViolation("eliminated", f"seat {mate} has been eliminated")
    if card not in state["hands"][seat]:
        raise RuleViolation("card-not-in-hand", f"you do not hold {card}")
    return [event("ExchangeOffered", {"seat": seat, "with": mate}, {seat: {"card": card}})]


def _d_give_back(state: dict, command: dict) -> list[dict]:
    seat = _in_phase(state, command, "giveback", "the teammate giving a card back in an exchange")
    ex = state["exchange"]
    if seat != ex["with"]:
        raise RuleViolation("not-your-turn", f"seat {ex['with']} must give a card back to seat {ex['seat']}", "turn")
    card = _card(state, command)
    if card not in state["hands"][seat]:
        raise RuleViolation("card-not-in-hand", f"you do not hold {card}")
    giver = ex["seat"]
    offered = state["offer"]
    chances = []
    if state["options"]["treason"]:
        # Section 3.1: a card received with the number of one's identity card
        if number(offered) == number(state["identity"][seat]):
            chances.append([seat, giver, offered])
        if number(card) == number(state["identity"][giver]):
            chances.append([giver, seat, card])
    out = _Out(state)
    out.emit(event("CardsExchanged", {"seat": giver, "with": seat, "treason_chances": [c[:2] for c in chances]},
                   {giver: {"with": seat, "gave": offered, "received": card},
                    seat: {"with": giver, "gave": card, "received": offered}}))
    if not chances:
        _begin_next_turn(out, state["pos"])
    return out.events


def _d_treason(state: dict, command: dict) -> list[dict]:
    seat = _in_phase(state, command, "treason", "a treason just discovered in an exchange")
    t = state["treason"]
    if seat not in t["pending"]:
        raise RuleViolation("not-your-turn", "only a player who has just received a card of their identity "
                            "number may denounce, once", "turn")
    out = _Out(state)
    if command["type"] == "denounce":
        received = state["transfers"][str(seat)][-1]["received"]
        giver = next(c[1] for c in t["chances"] if c[0] == seat)
        out.emit(event("TreasonDenounced", {"seat": seat, "traitor": giver, "card": received}))
    else:
        out.emit(event("TreasonIgnored", {"seat": seat}))
    st = out.state
    if st["treason"]["pending"]:
        return out.events
    if st["treason"]["denounced"]:
        _end_game(out, command, "treason", seat)
    else:
        _begin_next_turn(out, st["pos"])
    return out.events


def _d_accuse(state: dict, command: dict) -> list[dict]:
    seat = _in_phase(state, command, "turn", "a player's turn")
    if seat != state["turn"]:
        raise RuleViolation("not-your-turn", f"it is seat {state['turn']}'s turn", "turn")
    target = _target(state, command, "target")
    if team_of(state, target) == team_of(state, seat):
        raise RuleViolation("not-an-opponent", "you accuse a player of the other team")
    if not _alive(state, target):
        raise RuleViolation("eliminated", f"seat {target} has been eliminated")
    cards = list(state["hands"][target])
    king = KINGS[team_of(state, target)] in cards
    out = _Out(state)
    out.emit(event("Accused", {"seat": seat, "target": target, "cards": cards, "king": king}))
    if king:
        _end_game(out, command, "king_found", seat)
    return out.events


def _d_discard(state: dict, command: dict) -> list[dict]:
    seat = _in_phase(state, command, "discard", "an accuser who accused wrongly")
    acc = state["accusation"]
    if seat != acc["seat"]:
        raise RuleViolation("not-your-turn", f"seat {acc['seat']} must lose a card", "turn")
    card = _card(state, command)
    hand = state["hands"][seat]
    if card not in hand:
        raise RuleViolation("card-not-in-hand", f"you do not hold {card}")
    king = card == KINGS[team_of(state, seat)]
    out = _Out(state)
    out.emit(event("CardLost", {"seat": seat, "card": card, "king": king, "eliminated": len(hand) == 1}))
    st = out.state
    team = team_of(st, seat)
    if king:
        _end_game(out, command, "king_lost", seat)
    elif not any(_alive(st, s) for s in _members(st, team)):
        _end_game(out, command, "team_eliminated", seat)  # cannot happen while the king is held; kept for safety
    else:
        _begin_next_turn(out, st["pos"])
    return out.events


def game_points(state: dict, reason: str, actor: int) -> dict:
    """Section 3.2: the points of the game that just ended (and who won)."""
    p = len(state["players"])
    points = [0] * p
    info: dict[str, Any] = {"reason": reason, "winning_team": None, "discoverer": None, "custodian": None,
                            "traitors": [], "denouncers": []}
    if reason == "treason":
        den = state["treason"]["denounced"]
        for s, traitor, _card_ in den:
            points[s] += 2
            points[traitor] -= 2
        traitors = {tr for _s, tr, _c in den}
        denouncers = [s for s, _t, _c in den]
        info["traitors"] = sorted(traitors)
        info["denouncers"] = sorted(denouncers)
        # double treason: both found each other, nobody wins (each only loses 2)
        winners = [s for s in denouncers if s not in traitors]
        for s in denouncers:
            if s in traitors:
                points[s] = -2
        info["winners"] = winners
        info["double"] = len(winners) == 0
    else:
        if reason == "king_found":
            win = team_of(state, actor)
            info["discoverer"] = actor
            info["custodian"] = state["reveals"][-1]["target"]
        else:  # king_lost (or, in theory, team_eliminated): the actor's team loses
            win = _other(team_of(state, actor))
            info["custodian"] = actor if reason == "king_lost" else None
        info["winning_team"] = win
        king = KINGS[win]
        for s in range(p):
            if team_of(state, s) == win:
                if not _alive(state, s):
                    points[s] = 0
                else:
                    holder = king in state["hands"][s]
                    disc = s == info["discoverer"]
                    points[s] = 4 if holder and disc else 3 if disc else 2 if holder else 1
            else:
                if s == info["custodian"]:
                    points[s] = -4 if not _alive(state, s) else -3
                else:
                    points[s] = -1
        info["winners"] = [s for s in _members(state, win)]
    info["points"] = points
    return info


def _end_game(out: _Out, command: dict, reason: str, actor: int) -> None:
    st = out.state
    info = game_points(st, reason, actor)
    scores = [a + b for a, b in zip(st["scores"], info["points"])]
    match_over = st["game_no"] >= st["games_total"]
    out.emit(event("GameEnded", {"game": st["game_no"], **info, "scores": scores, "match_over": match_over}))
    if match_over:
        out.emit(event("MatchEnded", _compute_outcome(out.state)))
        return
    _next_game(out, command, reason)


def game_winner(state: dict, points: list[int]) -> int:
    """For winner_swaps: the best scorer of the game, ties to the earliest in turn order."""
    order = state["order"]
    return min(order, key=lambda s: (-points[s], order.index(s)))


def _next_game(out: _Out, command: dict, reason: str) -> None:
    st = out.state
    mode = st["options"]["identity_mode"]
    ident = list(st["identity"])
    n = st["n"]
    if reason == "treason" or mode == "fixed":
        _deal(out, ident, int_field(command, "seed"))
    elif mode == "random":
        new = identity_deck(n)
        rng(f"identity:{int_field(command, 'seed')}").shuffle(new)
        _deal(out, new, int_field(command, "seed"))
    elif mode == "fixed_teams":
        r = rng(f"identity:{int_field(command, 'seed')}")
        new = list(ident)
        for team in TEAMS:
            seats = [s for s in range(len(ident)) if st["teams_fixed"][s] == team]
            cards = [f"{IDENTITY_SUIT[team]}{k}" for k in range(1, n + 1)]
            r.shuffle(cards)
            for s, c in zip(seats, cards):
                new[s] = c
        _deal(out, new, int_field(command, "seed"))
    elif mode == "winner_swaps":
        order = st["order"]
        w = order.index(game_winner(st, st["game_points"]))
        m = len(order)
        seq = [order[(w - k) % m] for k in range(1, m + 1)]
        out.emit(event("IdentitySwapsBegan", {"winner": order[w], "sequence": seq}))
    else:
        teams_fixed = st["teams_fixed"] or [team_of(st, s) for s in range(len(ident))]
        teams = {}
        for team in TEAMS:
            seats = [s for s in range(len(ident)) if teams_fixed[s] == team]
            chooser_team = team if mode == "team_chooses" else _other(team)
            # the chooser: who held the choosing team's 1 in the game just ended
            chooser = next(s for s in range(len(ident)) if ident[s] == f"{IDENTITY_SUIT[chooser_team]}1")
            if teams_fixed[chooser] != chooser_team:
                chooser = min(s for s in range(len(ident)) if teams_fixed[s] == chooser_team)
            teams[team] = {"chooser": chooser, "cards": [f"{IDENTITY_SUIT[team]}{k}" for k in range(1, n + 1)],
                           "seats": seats}
        out.emit(event("IdentityAssignmentBegan", {"teams": teams, "teams_fixed": teams_fixed}))


def _d_swap(state: dict, command: dict) -> list[dict]:
    seat = _in_phase(state, command, "swapping", "swapping identity cards between games")
    sw = state["swap"]
    cur = sw["sequence"][sw["index"]]
    if seat != cur:
        raise RuleViolation("not-your-turn", f"seat {cur} swaps its identity card now", "turn")
    other = _target(state, command, "with")
    if other == seat:
        raise RuleViolation("swap-with-self", "you swap your identity card with another player's")
    out = _Out(state)
    out.emit(event("IdentitySwapped", {"seat": seat, "with": other}))
    if out.state["swap"]["index"] >= len(sw["sequence"]):
        _deal(out, out.state["identity"], int_field(command, "seed"))
    return out.events


def _choosing(state: dict, seat: int) -> str | None:
    """The team whose identity cards ``seat`` places now, if any."""
    for team in TEAMS:
        a = state["assign"][team]
        if a["chooser"] == seat and len(a["given"]) < len(a["cards"]):
            return team
    return None


def _d_assign(state: dict, command: dict) -> list[dict]:
    seat = _in_phase(state, command, "assigning", "placing identity cards between games")
    team = _choosing(state, seat)
    if team is None:
        raise RuleViolation("not-your-turn", "you have no identity card to place", "turn")
    to = _target(state, command, "to")
    a = state["assign"][team]
    if to not in a["seats"]:
        raise RuleViolation("not-in-team", f"the {team} identity cards go to the {team} team")
    if str(to) in a["given"]:
        raise RuleViolation("already-placed", f"seat {to} already has its identity card")
    card = a["cards"][len(a["given"])]
    out = _Out(state)
    out.emit(event("IdentityAssigned", {"seat": seat, "team": team, "card": card, "to": to}))
    st = out.state
    if all(len(x["given"]) == len(x["cards"]) for x in st["assign"].values()):
        ident = list(st["identity"])
        for x in st["assign"].values():
            for k, c in x["given"].items():
                ident[int(k)] = c
        _deal(out, ident, int_field(command, "seed"))
    return out.events


_DECIDERS = {
    "start": _d_start,
    "exchange": _d_exchange,
    "give_back": _d_give_back,
    "denounce": _d_treason,
    "ignore_treason": _d_treason,
    "accuse": _d_accuse,
    "discard": _d_discard,
    "swap_identity": _d_swap,
    "assign_identity": _d_assign,
}


def decide(state: dict, command: dict) -> list[dict]:
    if not isinstance(command, dict):
        raise RuleViolation("invalid-command", "a command must be an object", "invalid")
    kind = command.get("type")
    fn = _DECIDERS.get(kind) if isinstance(kind, str) else None
    if fn is None:
        known = ", ".join(sorted(_DECIDERS))
        raise RuleViolation("unknown-move", f"unknown move type {kind!r} (known: {known})", "invalid")
    return fn(state, command)


def _compute_outcome(st: dict) -> dict:
    scores = st["scores"]
    seats = range(len(st["players"]))
    ranking = sorted(seats, key=lambda s: (-scores[s], s))
    top = scores[ranking[0]]
    return {
        "scores": list(scores),
        "ranking": ranking,
        "winners": [s for s in ranking if scores[s] == top],
        "games_played": st["game_no"],
        "games": [dict(r) for r in st["results"]],
    }


# --------------------------------------------------------------------- queries


def to_act(state: dict) -> list[int]:
    phase = state["phase"]
    if phase == "turn":
        return [state["turn"]]
    # between two events of one move (a replay may stop there) the phase can
    # outlive the exchange or accusation that it names: nobody acts then
    if phase == "giveback":
        return [state["exchange"]["with"]] if state["exchange"] else []
    if phase == "discard":
        return [state["accusation"]["seat"]] if state["accusation"] else []
    if phase == "treason":
        return list(state["treason"]["pending"])
    if phase == "swapping":
        sw = state["swap"]
        return [sw["sequence"][sw["index"]]]
    if phase == "assigning":
        return sorted({a["chooser"] for a in state["assign"].values() if len(a["given"]) < len(a["cards"])})
    return []


def legal_moves(state: dict, seat: int) -> list[dict]:
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(state["players"]):
        return []
    if seat not in to_act(state):
        return []
    phase = state["phase"]
    hand = state["hands"][seat]
    if phase == "turn":
        moves: list[dict] = []
        if not must_accuse(state, seat):
            for mate in teammates(state, seat):
                for c in hand:
                    moves.append({"type": "exchange", "with": mate, "card": c})
        opp = _other(team_of(state, seat))
        for s in _members(state, opp):
            if _alive(state, s):
                moves.append({"type": "accuse", "target": s})
        return moves
    if phase in ("giveback", "discard"):
        kind = "give_back" if phase == "giveback" else "discard"
        return [{"type": kind, "card": c} for c in hand]
    if phase == "treason":
        return [{"type": "denounce"}, {"type": "ignore_treason"}]
    if phase == "swapping":
        return [{"type": "swap_identity", "with": s} for s in range(len(state["players"])) if s != seat]
    if phase == "assigning":
        a = state["assign"][_choosing(state, seat)]
        return [{"type": "assign_identity", "to": s} for s in a["seats"] if str(s) not in a["given"]]
    return []


def _not_king(state: dict, seat: int) -> str:
    hand = state["hands"][seat]
    king = KINGS[team_of(state, seat)]
    return next((c for c in hand if c != king), hand[0])


def timeout_move(state: dict, seat: int) -> dict:
    if not isinstance(seat, int) or isinstance(seat, bool) or seat not in to_act(state):
        raise RuleViolation("not-your-turn", f"seat {seat} has nothing to decide now", "turn")
    phase = state["phase"]
    if phase == "turn":
        if must_accuse(state, seat):
            order = state["order"]
            opp = _other(team_of(state, seat))
            target = next(s for s in order if team_of(state, s) == opp and _alive(state, s))
            return {"type": "accuse", "target": target}
        order = state["order"]
        m = len(order)
        i = order.index(seat)
        mates = teammates(state, seat)
        mate = next(order[(i + k) % m] for k in range(1, m) if order[(i + k) % m] in mates)
        return {"type": "exchange", "with": mate, "card": _not_king(state, seat)}
    if phase == "giveback":
        return {"type": "give_back", "card": _not_king(state, seat)}
    if phase == "discard":
        return {"type": "discard", "card": _not_king(state, seat)}
    if phase == "treason":
        return {"type": "ignore_treason"}
    if phase == "swapping":
        order = state["order"]
        i = order.index(seat)
        return {"type": "swap_identity", "with": order[(i + 1) % len(order)]}
    return legal_moves(state, seat)[0]


def _must(state: dict, seat: int) -> dict | None:
    if seat not in to_act(state):
        return None
    phase = state["phase"]
    if phase == "turn":
        return {"action": "turn", "must_accuse": must_accuse(state, seat), "teammates": teammates(state, seat)}
    if phase == "giveback":
        return {"action": "give_back", "to": state["exchange"]["seat"]}
    if phase == "discard":
        return {"action": "discard"}
    if phase == "treason":
        giver = next(c[1] for c in state["treason"]["chances"] if c[0] == seat)
        return {"action": "treason", "giver": giver}
    if phase == "swapping":
        return {"action": "swap_identity"}
    team = _choosing(state, seat)
    a = state["assign"][team]
    return {"action": "assign_identity", "team": team, "card": a["cards"][len(a["given"])]}


def duties(state: dict) -> dict:
    """Which teams still owe an accusation in this full round (section 2.3)."""
    if state["phase"] not in ("turn", "giveback", "discard", "treason"):
        return {"espadas": False, "bastos": False}
    return {t: not state["accused"][t] for t in TEAMS}


def view(state: dict, viewer: Any) -> dict:
    is_seat = viewer_is_seat(state, viewer)
    started = bool(state["identity"])
    tr = state["treason"]
    v: dict[str, Any] = {
        "game": GAME_ID,
        "rules_version": RULES_VERSION,
        "phase": state["phase"],
        "game_no": state["game_no"],
        "games_total": state["games_total"],
        "players": list(state["players"]),
        "options": dict(state["options"]),
        "identity": list(state["identity"]),
        "teams": [team_of(state, s) for s in range(len(state["players"]))] if started else [],
        "order": list(state["order"]),
        "turn": state["turn"],
        "round": state["round"],
        "accused_this_round": dict(state["accused"]),
        "accusation_due": duties(state),
        "to_act": to_act(state),
        "hand_sizes": [len(h) for h in state["hands"]],
        "lost": [list(x) for x in state["lost"]],
        "eliminated": list(state["eliminated"]),
        "exchange": None if state["exchange"] is None else dict(state["exchange"]),
        "accusation": None if state["accusation"] is None else dict(state["accusation"]),
        "treason": None if tr is None else {"pending": list(tr["pending"]),
                                            "chances": [c[:2] for c in tr["chances"]],
                                            "denounced": [list(d) for d in tr["denounced"]]},
        "reveals": [dict(r, cards=list(r["cards"])) for r in state["reveals"]],
        "swap": None if state["swap"] is None else dict(state["swap"]),
        "assign": None if state["assign"] is None else {
            t: {**a, "given": dict(a["given"])} for t, a in state["assign"].items()},
        "game_points": list(state["game_points"]),
        "scores": list(state["scores"]),
        "results": [dict(r) for r in state["results"]],
        "outcome": outcome(state),
    }
    if is_seat:
        v["seat"] = viewer
        v["hand"] = list(state["hands"][viewer])
        v["transfers"] = [dict(t) for t in state["transfers"].get(str(viewer), [])]
        v["offer"] = state["offer"] if state["exchange"] and state["exchange"]["seat"] == viewer else None
        v["must"] = _must(state, viewer)
    elif viewer == REVIEWER:
        v["hands"] = [list(h) for h in state["hands"]]
        v["transfers_all"] = {k: [dict(t) for t in ts] for k, ts in state["transfers"].items()}
        v["offer"] = state["offer"]
    return v


def outcome(state: dict) -> dict | None:
    if state["phase"] != "finished":
        return None
    return state["outcome"]
