"""¡Muerte al rey!: the cards and the decks.

Cards are strings: a suit letter and a number, ``"O12"`` is the king of oros.
Suits: ``O`` oros, ``C`` copas, ``E`` espadas, ``B`` bastos.  Numbers 1..7 and
10 (sota), 11 (caballo), 12 (rey) in the 40-card deck; 8 and 9 as well in the
48-card deck.  Each seat shows one identity card (``E1``..``En`` or
``B1``..``Bn``, public) and holds cards of its own team's deck (secret): the
espadas team hides the king of oros (``O12``), the bastos team the king of
copas (``C12``).
"""

from __future__ import annotations

from domain.base import RuleViolation

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


def turn_order(identity: list[str]) -> list[int]:
    """Section 2.3: 1 of espadas, 1 of bastos, 2 of espadas ... n of bastos."""
    where = {c: s for s, c in enumerate(identity)}
    n = len(identity) // 2
    return [where[f"{suit}{k}"] for k in range(1, n + 1) for suit in ("E", "B")]


def _card_key(card: str) -> tuple[str, int]:
    return card[0], number(card)


def _card(state: dict, command: dict, field: str = "card") -> str:
    c = command.get(field)
    if not isinstance(c, str):
        raise RuleViolation("invalid-field", f"'{field}' must be a card such as \"O3\"", "invalid")
    if c not in _all_cards(state["options"]["deck"]):
        raise RuleViolation("unknown-card", f"{c!r} is not a card of this deck (suit O/C/E/B and a number)", "invalid")
    return c
