"""Cripple Mr Onion: the reducers of the modifiers' events (declarations,
replacement cards, forced disclosures and the Showdown's duels).
"""

from __future__ import annotations

from domain.onion import hands as H
from domain.onion.modifiers.state import _opt
from domain.onion.state import _goto, _mods_round


def _after_round_started(st: dict, ev: dict) -> dict:
    return {**st, "mods": _mods_round(st["mods"] if st["round_no"] > 1 else None, len(st["players"]))}


def _after_round_ended(st: dict, ev: dict) -> dict:
    m = st["mods"]
    sd = ev["data"].get("showdown") or {}
    nulls = any(r.get("null_eights") for r in sd.values())
    return {
        **st,
        "mods": {**m, "next_wild": _opt(st, "null_eights") and not m["round_wild"] and nulls, "pending": None},
    }


_MOD_AFTER = {"RoundStarted": _after_round_started, "RoundEnded": _after_round_ended}


def _m(st: dict) -> dict:
    """A shallow copy of ``st`` whose ``mods`` may be changed in place (one level)."""
    out = dict(st)
    out["mods"] = dict(st["mods"])
    return out


def _show_cards(m: dict, seat: int, cards: list[int]) -> None:
    shown = list(m["shown"])
    shown[seat] = sorted(set(shown[seat]) | set(cards))
    m["shown"] = shown


def _note(m: dict, text: str) -> None:
    m["notes"] = m["notes"] + [text]


def _ev_declared(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = _m(state)
    m = st["mods"]
    seat, kind = d["seat"], d["modifier"]
    who = st["players"][seat]
    if kind != "rewild":
        m["declared"] = {**m["declared"], str(d["card"]): seat}
        _show_cards(m, seat, [d["card"]])  # a declared card is put face up
    if kind == "lady":
        m["lady"] = {"seat": seat, "mode": d["mode"]}
        if d["mode"] == "devalue":
            _show_cards(m, seat, [H.LADY])
            _note(m, f"#4ii: {who} declared the Lady: one eleven of every other hand counts one while eights are wild")
        else:
            _note(m, f"#4i: {who} declared the Lady and takes one of the next two cards in its place")
    elif kind == "fate":
        m["fate"] = {"seat": seat, "mode": d["mode"]}
        if d["mode"] == "stop":
            m["wild"] = False
            m["fate_stopped"] = seat
            _show_cards(m, seat, [H.FATE])
            _note(m, f"#5ii: {who} declared Fate: eights are no longer wild")
        else:
            m["zeroed"] = m["zeroed"] + [d["zeroes"]]
            _note(m, f"#5i: {who} declared Fate: the aces of {st['players'][d['zeroes']]} count zero")
    elif kind == "rewild":
        m["rewild"] = seat
        if H.LADY in st["hands"][seat]:
            _show_cards(m, seat, [H.LADY])  # the Lady is shown to claim the right
        _note(m, f"#5ii: {who}, holder of the Lady, makes its own eights wild again")
    elif kind == "atuin":
        m["atuin"] = {"seat": seat, "from": d["from"], "to": d["to"]}
        _show_cards(m, seat, [H.ATUIN, d["from"], d["to"]])
        _note(
            m,
            f"#6: {who} declared Great A'Tuin: eight points move from the {H.card_name(d['from'])} "
            f"to the {H.card_name(d['to'])}",
        )
    elif kind == "elephants":
        m["elephants"] = {"seat": seat, "cards": list(d["cards"])}
        _show_cards(m, seat, [H.ATUIN] + list(d["cards"]))
        _note(m, f"#7: {who} declared the Elephants: a Double Onion, beaten by any other Double Onion")
    elif kind == "sender":
        m["sender"] = {"seat": seat, "forced": bool(d.get("forced"))}
        _show_cards(m, seat, [H.SENDER])
        _note(
            m,
            f"#8: {who} holds the Sender of Eights, now visible"
            + (" (declared when dealt: aces count zero, wild eights not one or eleven)" if d.get("forced") else ""),
        )
    elif kind == "death":
        m["death"] = {"seat": seat, "forced": False}
        _show_cards(m, seat, [H.DEATH])
        _note(m, f"#9: {who} shows Death: one picture of every hand with two or more leaves its Double Onion")
    elif kind == "archchancellor":
        m["arch"] = {"seat": seat}
        _show_cards(m, seat, [H.ARCH])
        holder = d["death_holder"]
        if holder is not None:
            m["death"] = {"seat": holder, "forced": True}
            m["declared"] = {**m["declared"], str(H.DEATH): holder}
            _show_cards(m, holder, [H.DEATH])
            _note(
                m,
                f"#10ii: {who} declared the Archchancellor: {st['players'][holder]} must show Death, "
                "and every other player one undisclosed card",
            )
        else:
            m["jack_wild"] = True
            _note(m, f"#10ii: {who} declared the Archchancellor; nobody holds Death: the jack of staves is wild")
    elif kind == "fool":
        m["fool"] = True
        _show_cards(m, seat, [H.FOOL])
        _note(m, f"#11: {who} declared the Fool: bagels and Onions swap places for the rest of the round")
    pend = d.get("pending")
    if pend:
        m["pending"] = {**pend, "resume": {"phase": state["phase"], "turn": state["turn"]}}
        st["phase"] = pend["kind"]
        st["turn"] = pend["seat"]
        if pend["kind"] == "choose":
            m["pending"]["offer"] = list(st["deck"][:2])
    return st


def _resume(st: dict, m: dict) -> None:
    r = m["pending"]["resume"]
    st["phase"], st["turn"] = r["phase"], r["turn"]
    m["pending"] = None


def _ev_replacement(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = _m(state)
    m = st["mods"]
    seat, special = d["seat"], d["card"]
    kept = m["pending"]["offer"][d["index"]]
    hands = list(st["hands"])
    hands[seat] = sorted([c for c in hands[seat] if c != special] + [kept])
    st["hands"] = hands
    if special in st["up"][seat]:  # the replacement takes the face-up place of the card
        up = list(st["up"])
        up[seat] = sorted([c for c in up[seat] if c != special] + [kept])
        st["up"] = up
    st["deck"] = st["deck"][2:]
    st["discards"] = st["discards"] + 2  # the special card (left on the table) and the card not chosen
    table = list(m["table"])
    table[seat] = table[seat] + [special]
    m["table"] = table
    _resume(st, m)
    return st


def _ev_revealed(state: dict, ev: dict) -> dict:
    d = ev["data"]
    st = _m(state)
    m = st["mods"]
    _show_cards(m, d["seat"], [d["card"]])
    queue = [s for s in m["pending"]["queue"] if s != d["seat"]]
    if queue:
        m["pending"] = {**m["pending"], "queue": queue, "seat": queue[0]}
        st["turn"] = queue[0]
    else:
        _resume(st, m)
    return st


def _ev_sd(state: dict, ev: dict) -> dict:
    """ShowdownOpened, Ready, ChallengerCalled, HandShown, Compared, Conceded, DuelEnded."""
    d = ev["data"]
    st = _m(state)
    m = st["mods"]
    t = ev["type"]
    if t == "ShowdownOpened":
        m["sd"] = {
            "order": list(d["order"]),
            "holder": None,
            "challenger": None,
            "leader": None,
            "crippler": None,
            "shown": [],
            "results": {},
            "duels": [],
        }
    else:
        sd = dict(m["sd"])
        m["sd"] = sd
        if t == "HandShown":
            sd["shown"] = sd["shown"] + [d["seat"]]
            sd["results"] = {**sd["results"], str(d["seat"]): d["arrangement"]}
            if d["role"] == "holder":
                sd["holder"] = sd["leader"] = d["seat"]
            else:
                sd["challenger"] = d["seat"]
        elif t == "Compared":
            sd["results"] = {**sd["results"], **d["hands"]}
            sd["leader"] = d["winner"]
            if d.get("crippler") is not None:
                sd["crippler"] = d["crippler"]
        elif t == "DuelEnded":
            sd["holder"] = sd["leader"] = d["winner"]
            sd["challenger"] = None
            sd["duels"] = sd["duels"] + [{k: d[k] for k in ("winner", "loser", "how")}]
    _goto(st, d)
    return st


MOD_EVOLVERS = {
    "Declared": _ev_declared,
    "ReplacementChosen": _ev_replacement,
    "CardRevealed": _ev_revealed,
    "ShowdownOpened": _ev_sd,
    "Ready": _ev_sd,
    "HandShown": _ev_sd,
    "Compared": _ev_sd,
    "Conceded": _ev_sd,
    "DuelEnded": _ev_sd,
    "ChallengerCalled": _ev_sd,
}
