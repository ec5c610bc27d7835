"""¡Muerte al rey!: the deal of a game and the start of the match."""

from __future__ import annotations

from domain.base import RuleViolation, committed, event, int_field, rng
from domain.muerte.cards import (
    DECK_MAX_PLAYERS,
    IDENTITY_SUIT,
    TEAMS,
    _card_key,
    identity_deck,
    team_deck,
    turn_order,
)
from domain.muerte.evolve import _Out


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
            hands[s] = sorted(deck[2 * i : 2 * i + 2], key=_card_key)
    teams_fixed = None
    if st["options"]["identity_mode"] != "random" and st["teams_fixed"] is None:
        teams_fixed = ["espadas" if c[0] == "E" else "bastos" for c in identity]
    out.emit(
        committed(
            event(
                "GameDealt",
                {
                    "game": st["game_no"] + 1,
                    "identity": list(identity),
                    "order": order,
                    "sizes": [2] * len(identity),
                    "teams_fixed": teams_fixed,
                },
                {s: {"hand": h} for s, h in hands.items()},
            ),
            decks,
            seed,
        )
    )


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
        raise RuleViolation(
            "deck-too-small",
            f"the {deck} deck serves at most {DECK_MAX_PLAYERS[deck]} players, "
            f"got {p}; use the 48-card deck for up to 16",
        )
    identity = identity_deck(p // 2)
    rng(f"identity:{seed}").shuffle(identity)
    out = _Out(state)
    _deal(out, identity, seed)
    return out.events
