"""The one validator of ids, whichever route or command brought them.

Every id becomes part of Redis keys (``naipes:{<id>}:...``, where the braces
are Redis Cluster's hash tag), of URLs, of log lines and of file names, so an
id is short and made of URL- and key-safe characters only:

* a game id: 1 to 64 of ``A-Z a-z 0-9 _ -``, not starting with ``t-``
  (tournaments' namespace).  Games made here are 16 hex digits; an
  imported game keeps the id it was exported with, if it fits this rule;
* a tournament id: ``t-`` and 16 hex digits.

The HTTP routes take ids through URL converters built on it
(:mod:`service.web.ids`), so a path id
that breaks the rule never reaches the application: it is a 404 problem
like any unknown id.  The application checks ids it is given another way
(an import, a table's reserved id) with :func:`check_game_id`.
"""

from __future__ import annotations

import re

GAME_ID = r"(?!t-)[A-Za-z0-9_-]{1,64}"
TOURNAMENT_ID = r"t-[0-9a-f]{16}"
KEY_ID = r"key_[0-9a-f]{12}|env-[0-9a-f]{8,64}"
_GAME = re.compile(GAME_ID)
_TOURNAMENT = re.compile(TOURNAMENT_ID)


def is_game_id(value: object) -> bool:
    return isinstance(value, str) and _GAME.fullmatch(value) is not None


def is_tournament_id(value: object) -> bool:
    return isinstance(value, str) and _TOURNAMENT.fullmatch(value) is not None


def describe_game_id() -> str:
    return "a game id is 1 to 64 letters, digits, '_' or '-', and does not start with 't-'"
