"""The games naipes knows, by id.  The service asks here and names no game."""

from __future__ import annotations

import importlib
from types import ModuleType

# game id -> the path of its package; each has the face described in domain.base
GAME_MODULES = {
    "dalmuti": "domain.dalmuti",
    "cego": "domain.cego",
    "muerte": "domain.muerte",
    "onion": "domain.onion",
}

_loaded: dict[str, ModuleType] = {}


class UnknownGame(KeyError):
    pass


class UnsupportedRules(ValueError):
    """A log written under rules this code no longer folds the same way."""


def for_rules(game_id: str, rules: str | None) -> ModuleType:
    """The module that folds a game started under rules version ``rules``.

    A game keeps the rules version it started under (every event records
    it).  A module lists in ``FOLDS_RULES`` the versions whose logs it folds
    exactly as they were played; a change that would fold old logs
    differently gets a new version, and the old code stays registered as
    its own module until no stored game needs it.
    """
    module = get(game_id)
    folds = (module.RULES_VERSION, *getattr(module, "FOLDS_RULES", ()))
    if rules is not None and rules not in folds:
        raise UnsupportedRules(
            f"{game_id} rules version {rules} is not folded by this release (it folds {', '.join(folds)})"
        )
    return module


def get(game_id: str) -> ModuleType:
    module = _loaded.get(game_id)
    if module is None:
        path = GAME_MODULES.get(game_id)
        if path is None:
            raise UnknownGame(game_id)
        module = _loaded[game_id] = importlib.import_module(path)
    return module


def all_games() -> dict[str, ModuleType]:
    return {gid: get(gid) for gid in GAME_MODULES}
