"""The test battery (tests/battery.py) over every registered game, and the
battery failing on games broken on purpose (tests/battery_broken_game.py).

Each chunk plays a share of a game's matches under every check of the
battery and the game's own hooks (``PROFILE`` in tests/test_<game>_bots.py).
A game registered without hooks gets the default profile.  A broken copy of a
real game, registered only inside its test, makes the battery raise a
``BatteryFailure`` naming the check it broke, where the real game passes the
same matches.
"""

from __future__ import annotations

import pytest

from . import battery
from .battery import BatteryFailure
from .battery_broken_game import broken, register

FEW = range(5)  # the matches a broken game is tried on (the first tries every legal move)


@pytest.mark.parametrize("game_id, variant, chunk", battery.chunks(), ids=lambda x: str(x))
def test_battery(game_id, variant, chunk):
    """Random complete matches of every registered game keep every invariant of the battery and the game."""
    battery.run(game_id, variant, chunk)


def test_a_registered_game_gets_the_battery(monkeypatch):
    """A game the battery has no hooks for gets it by being registered: options drawn from its schema."""
    game = broken("muerte", None, game_id_as="tresillo")  # a faithful copy the battery knows nothing of
    register(monkeypatch, "tresillo", game)
    assert [c for c in battery.chunks() if c[0] == "tresillo"] == [("tresillo", "random", 0)]
    assert battery.profile_for(game) == battery.Profile()
    seen = battery.run("tresillo", matches=range(20))
    assert seen["matches"] == 20 and seen["GameDealt"] >= 20


BROKEN = [
    # (game, defect, the check that catches it)
    *((g, "leaky_view", "view") for g in ("cego", "dalmuti", "muerte", "onion")),
    *((g, "unpublished_view_field", "shapes") for g in ("cego", "dalmuti", "muerte", "onion")),
    *((g, "dropping_evolve", "cards") for g in ("cego", "dalmuti", "muerte", "onion")),
    ("muerte", "mutating_evolve", "fold"),
    ("dalmuti", "counting_evolve", "fold"),
    ("cego", "unshuffled_decide", "decide"),
    ("onion", "tuple_state", "json"),
    ("cego", "illegal_timeout", "legal"),
    ("dalmuti", "refused_move", "legal"),
    ("muerte", "anyone_acts", "turns"),
    ("onion", "free_money", "money"),
    ("cego", "partial_ranking", "outcome"),
]


@pytest.mark.parametrize("game_id, defect, check", BROKEN, ids=lambda x: str(x))
def test_the_battery_catches_a_broken_game(monkeypatch, game_id, defect, check):
    """The battery passes the real game and fails its broken copy, naming the broken check (each check
    shown on its own: a leaky view is also a view of a shape the game does not publish, which the shapes
    check would name first)."""
    battery.run(game_id, matches=FEW)
    if check != "shapes":
        monkeypatch.setattr(battery, "SHAPES", False)
    register(monkeypatch, "broken", broken(game_id, defect))
    with pytest.raises(BatteryFailure, match=rf"\(random, match \d+\) {check}: "):
        battery.run("broken", matches=FEW)


def test_the_default_profile_catches_a_leaky_view_of_a_new_game(monkeypatch):
    """Without hooks, the other seats' hands are scrambled: a view showing one of them fails."""
    register(monkeypatch, "tresillo", broken("cego", "leaky_view", game_id_as="tresillo"))
    with pytest.raises(BatteryFailure, match=r"view: the view of \d+ changes"):
        battery.run("tresillo", matches=FEW)


def test_the_battery_catches_a_game_that_cannot_put_an_event_in_words(monkeypatch):
    """The words check: an event without a label (here every event of Muerte, in a copy of its
    notation) fails the battery, naming the check."""
    import types

    from domain import describe

    real = describe.NOTATIONS["muerte"]
    mute = types.SimpleNamespace(
        MOVES=real.MOVES,
        EVENT_TYPES=real.EVENT_TYPES,
        CARD_PATTERN=real.CARD_PATTERN,
        VIEW_SCHEMA=real.VIEW_SCHEMA,
        EVENT_SCHEMAS=real.EVENT_SCHEMAS,
        label_move=real.label_move,
        label_event=lambda e, p, lang: "",
    )
    monkeypatch.setitem(describe.NOTATIONS, "muerte", mute)
    with pytest.raises(BatteryFailure, match=r"\(random, match 0\) words: no en label for "):
        battery.run("muerte", "random", 0, matches=range(1))
