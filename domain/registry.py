"""The games naipes knows, by id.  The service asks here and names no game."""

from __future__ import annotations

import importlib
from types import ModuleType

# game id -> module path; each module has the face described in domain.base
GAME_MODULES = {
    "dalmuti": "domain.dalmuti",
    "cego": "domain.cego",
    "muerte": "domain.muerte",
    "onion": "domain.onion",
}

_loaded: dict[str, ModuleType] = {}


class UnknownGame(KeyError):
    pass


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
