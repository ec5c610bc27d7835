"""The small pieces every game's words are made with (``domain/<game>/notation.py`` and
:mod:`domain.describe`): the languages, a list of names joined as a sentence joins them, and a
seat named by its player."""

from __future__ import annotations

from typing import Any

LANGUAGES = ("en", "es")


def check_language(lang: str) -> str:
    """``lang`` when the words are written in it, else a ValueError naming the languages."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}: labels are written in 'en' or 'es'")
    return lang


def join(items: list[Any], lang: str, *, none: str = "") -> str:
    """``ana, bea and carl`` / ``ana, bea y carl`` (Spanish ``e`` before an i sound: ``bea e inés``);
    ``none`` for an empty list."""
    items = [str(x) for x in items]
    if not items:
        return none
    if len(items) == 1:
        return items[0]
    if lang == "en":
        conj = "and"
    else:
        low = items[-1].lower()
        conj = "e" if (low.startswith("i") or low.startswith("hi")) and not low.startswith("hie") else "y"
    return f"{', '.join(items[:-1])} {conj} {items[-1]}"


def seat_name(players: list[str], seat: Any, lang: str) -> str:
    """The player at ``seat``, or the seat by number when no player sits there."""
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(players):
        return str(players[seat])
    return f"seat {seat}" if lang == "en" else f"el asiento {seat}"
