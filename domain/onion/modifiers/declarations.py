"""Cripple Mr Onion: the declarations a player may make now."""

from __future__ import annotations

from domain.onion import hands as H
from domain.onion.modifiers.state import _SD_PHASES, _ctx, _opt, _visible, _wild


def _pairs_for_shift(st: dict, seat: int) -> list[tuple[int, int]]:
    """#6: (from, to) pairs: a card worth 9..11 gives eight points to a card
    worth 1..3 (an ace gives as eleven and takes as one); wild and zeroed cards
    have no value to move."""
    hand = st["hands"][seat]
    ctx = _ctx(st, seat)
    wild = {c for c in hand if (ctx["wild"] and H.rank_of(c) == 8) or (ctx.get("jack_wild") and c == H.ARCH)}
    zero = ctx.get("zero_aces")
    givers = [c for c in hand if c not in wild and (H.value_of(c) >= 9 or (H.is_ace(c) and not zero))]
    takers = [c for c in hand if c not in wild and (H.value_of(c) in (2, 3) or (H.is_ace(c) and not zero))]
    return [(a, b) for a in givers for b in takers if a != b]


def _elephant_sets(st: dict, seat: int) -> list[list[int]]:
    from itertools import combinations

    hand = st["hands"][seat]
    wild8 = _wild(st, seat)
    limited = _opt(st, "sender_of_eights") and wild8 and st["mods"]["sender"] is not None
    pool = [c for c in hand if H.rank_of(c) in (9, 10) or (wild8 and H.rank_of(c) == 8)]
    out = []
    for combo in combinations(sorted(pool), 4):
        if H.elephant_points(list(combo), [wild8 and H.rank_of(x) == 8 for x in combo], limited) is not None:
            out.append(list(combo))
    return out


def _declarations(st: dict, seat: int) -> list[dict]:
    """The declarations ``seat`` may make now (it is on turn)."""
    m = st["mods"]
    phase = st["phase"]
    if m is None or phase in ("choose", "reveal") or seat not in st["in_round"]:
        return []
    hand = st["hands"][seat]
    done = m["declared"]
    sd_phase = phase in _SD_PHASES
    moves: list[dict] = []
    if _opt(st, "archchancellor") and H.ARCH in hand and str(H.ARCH) not in done:
        moves.append({"type": "declare", "modifier": "archchancellor"})
    if not sd_phase:
        return moves
    wild = _wild(st, seat)
    if _opt(st, "fool") and phase == "predeclare" and H.FOOL in hand and str(H.FOOL) not in done:
        moves.append({"type": "declare", "modifier": "fool"})
    if _opt(st, "lady") and H.LADY in hand and str(H.LADY) not in done and (wild or len(st["deck"]) >= 2):
        moves.append({"type": "declare", "modifier": "lady"})
    if _opt(st, "fate") and H.FATE in hand and str(H.FATE) not in done:
        if m["wild"] and wild:
            moves.append({"type": "declare", "modifier": "fate"})
        elif not wild and m["lady"] and m["lady"]["mode"] == "replace" and len(st["deck"]) >= 2:
            moves.append({"type": "declare", "modifier": "fate"})
    if (
        _opt(st, "fate")
        and m["fate_stopped"] is not None
        and m["fate_stopped"] != seat
        and m["rewild"] is None
        and (H.LADY in hand or (m["lady"] and m["lady"]["seat"] == seat))
    ):
        moves.append({"type": "declare", "modifier": "rewild"})
    if H.ATUIN in hand and str(H.ATUIN) not in done:
        if _opt(st, "great_atuin"):
            moves += [
                {"type": "declare", "modifier": "atuin", "from": a, "to": b} for a, b in _pairs_for_shift(st, seat)
            ]
        if _opt(st, "elephants"):
            moves += [{"type": "declare", "modifier": "elephants", "cards": cs} for cs in _elephant_sets(st, seat)]
    if (
        _opt(st, "sender_of_eights")
        and H.SENDER in hand
        and str(H.SENDER) not in done
        and not wild
        and H.SENDER not in st["up"][seat]
    ):
        moves.append({"type": "declare", "modifier": "sender"})
    if _opt(st, "death") and H.DEATH in hand and str(H.DEATH) not in done and not _visible(st, H.DEATH):
        moves.append({"type": "declare", "modifier": "death"})
    return moves
