"""The revolution question tells nobody who holds both jesters (rules 2).

Seed 004, REVOLUCIÓN: "Si al repartir las cartas cualquier jugador recibe los
dos Bufones, puede declarar una revolución."  At a table the holder declares
or says nothing; here every seat answers after every deal, and until a seat
declares nothing public differs between the holder and the others (see
docs/rules/dalmuti.md, Revolution).

* Over many real deals, the public trace of the revolution phase (event types
  and data, ``to_act``, the spectator's view and every non-holder's view, at
  each version) is the same function of the public setup and of the order in
  which seats answer whether someone holds both jesters or nobody does.
* Twin deals: the same deal with one of the holder's jesters swapped with
  another seat's card gives an identical public log, ``to_act`` and views for
  every seat that holds both jesters in neither deal.
* Through the service: the same envelopes (types, data, redaction) and one
  deadline shared by every seat, and the same timeout move for all.
"""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict

from domain import dalmuti as D
from domain.base import REVIEWER, SPECTATOR

DEALS = 2400
NAMES = [f"p{i}" for i in range(16)]
# the view fields that can depend on the deal's cards: the viewer's own hand
# and what it alone decided (nobody else sees either)
OWN = ("hand", "revolution_answer", "must")


def holder_of(state: dict) -> int | None:
    return next((s for s in state["order"] if state["hands"][s].count(13) == 2), None)


def start(n: int, seed: int, **opts) -> tuple[dict, list[dict]]:
    st = D.initial_state(NAMES[:n], opts)
    events = D.decide(st, {"type": "start", "seat": None, "seed": seed})
    for ev in events:
        st = D.evolve(st, ev)
    return st, events


def public(ev: dict) -> tuple:
    """What everybody sees of an event: its type and public data."""
    return ev["type"], ev["data"], sorted((ev.get("private") or {}).keys())


def run_phase(st: dict, order_of_answers: list[int]) -> list[dict]:
    """Every seat declines, in the given order; returns one record per version."""
    records = []
    for seat in order_of_answers:
        assert seat in D.to_act(st)
        events = D.decide(st, {"type": "decline_revolution", "seat": seat, "seed": 7})
        for ev in events:
            st = D.evolve(st, ev)
            records.append({"event": ev, "state": st})
    assert st["phase"] in ("taxes", "play")
    return records


def as_positions(value, pos: dict[int, int]):
    """Seats written as table positions, so that deals of different seatings compare."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return ("pos", pos[value])
    if isinstance(value, list):
        return tuple(as_positions(v, pos) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, as_positions(v, pos)) for k, v in value.items()))
    return value


SEAT_FIELDS = ("to_act", "pending", "seat", "turn")
SEAT_KEYS = ("to", "merchants", "newcomers")  # the members of ``must`` and ``tax`` that name seats


def skeleton(view: dict, pos: dict[int, int]) -> tuple:
    """A view's fields that the revolution question could change, seats as positions."""
    keep = (
        "phase",
        "to_act",
        "pending",
        "revolution",
        "turn",
        "hand_no",
        "rules_version",
        "seat",
        "role",
        "must",
        "revolution_answer",
        "tax",
    )
    out = []
    for k in keep:
        value = view.get(k, "absent")
        if k in SEAT_FIELDS:
            value = as_positions(value, pos)
        elif k in ("must", "tax") and isinstance(value, dict):
            value = {m: as_positions(v, pos) if m in SEAT_KEYS else v for m, v in value.items()}
        out.append((k, json.dumps(value, sort_keys=True)))
    return tuple(out) + (tuple(sorted(view)),)


def trace(st: dict, deal_event: dict, answer_positions: list[int]) -> tuple[tuple, dict[int, tuple]]:
    """The public trace of one revolution phase, seats as positions, and each non-holder's view at each
    version (by its position).  The deal-specific numbers (order, sizes, the commitment) are left out:
    the twin test compares them exactly."""
    order = st["order"]
    pos = {s: i for i, s in enumerate(order)}
    holder = holder_of(st)
    non_holders = [s for s in order if s != holder]
    rows = [
        (
            "HandDealt",
            tuple(sorted(deal_event["data"])),
            as_positions(D.to_act(st), pos),
            skeleton(D.view(st, SPECTATOR), pos),
        )
    ]
    seats = {pos[s]: [skeleton(D.view(st, s), pos)] for s in non_holders}
    for rec in run_phase(st, [order[p] for p in answer_positions]):
        ev, now = rec["event"], rec["state"]
        rows.append(
            (
                ev["type"],
                as_positions(ev["data"], pos),
                tuple(sorted(pos[int(k)] for k in (ev.get("private") or {}))),
                tuple(sorted(k for part in (ev.get("private") or {}).values() for k in part)),
                as_positions(D.to_act(now), pos),
                skeleton(D.view(now, SPECTATOR), pos),
            )
        )
        for s in non_holders:
            seats[pos[s]].append(skeleton(D.view(now, s), pos))
    return tuple(rows), {p: tuple(v) for p, v in seats.items()}


def test_public_trace_has_the_same_distribution_with_or_without_a_holder():
    """Over 2,400 deals (4..8 players, with and without the first deal's revolution, three answer orders
    chosen without looking at the cards), the public trace of the revolution phase (event types and data,
    to_act and the spectator's view at each version) and the view of a non-holder at each position are one
    and the same for every deal of a kind, whether a seat holds both jesters or not."""
    logs: dict[tuple, dict[bool, Counter]] = defaultdict(lambda: {True: Counter(), False: Counter()})
    views: dict[tuple, dict[bool, Counter]] = defaultdict(lambda: {True: Counter(), False: Counter()})
    holders = Counter()
    for i in range(DEALS):
        n = 4 + i % 5
        first = (i // 5) % 2 == 1
        st, events = start(n, 10_000 + i, first_deal_revolution=first)
        deal = next(e for e in events if e["type"] == "HandDealt")
        kind = i // 10 % 3  # in table order, reversed, or from the Lesser Dalmuti round
        answer_positions = [list(range(n)), list(range(n))[::-1], [(p + 1) % n for p in range(n)]][kind]
        has_holder = holder_of(st) is not None
        holders[has_holder] += 1
        rows, seats = trace(st, deal, answer_positions)
        logs[(n, first, kind)][has_holder][rows] += 1
        for p, v in seats.items():
            views[(n, first, kind, p)][has_holder][v] += 1
    assert holders[True] > 250 and holders[False] > 1500, holders
    for table in (logs, views):
        for kind, groups in table.items():
            assert len(set(groups[True]) | set(groups[False])) == 1, (
                f"{kind}: the public trace depends on where the jesters are"
            )
    assert len(logs) == 30 and all(g[True] and g[False] for g in logs.values())
    assert sum(1 for g in views.values() if g[True] and g[False]) > 150


def _twin(st: dict, holder: int, rnd: random.Random) -> tuple[dict, int]:
    """The same deal with one of the holder's jesters swapped for a non-jester card of another seat."""
    other = rnd.choice([s for s in st["order"] if s != holder])
    hands = [list(h) for h in st["hands"]]
    card = rnd.choice([c for c in hands[other] if c != 13])
    hands[holder].remove(13)
    hands[holder].append(card)
    hands[other].remove(card)
    hands[other].append(13)
    hands[holder].sort()
    hands[other].sort()
    twin = dict(st, hands=hands)
    assert holder_of(twin) is None and [len(h) for h in hands] == [len(h) for h in st["hands"]]
    return twin, other


def test_twin_deals_give_identical_public_logs_and_views():
    """Per deal with a holder: the same public deal without a holder (one jester moved to another seat)
    gives the same events (type, public data, which seat's private part), the same to_act at every version,
    the same spectator view, and the same view for every seat whose cards did not change."""
    rnd = random.Random(61)
    pairs = 0
    for i in range(4000):
        n = 4 + i % 5
        st, _ = start(n, 50_000 + i, first_deal_revolution=i % 3 == 0)
        holder = holder_of(st)
        if holder is None:
            continue
        twin, other = _twin(st, holder, rnd)
        answers = list(st["order"])
        rnd.shuffle(answers)
        unchanged = [s for s in st["order"] if s not in (holder, other)]
        for viewer in [SPECTATOR, *unchanged]:
            assert D.view(st, viewer) == D.view(twin, viewer)
        for viewer in (holder, other):
            a, b = D.view(st, viewer), D.view(twin, viewer)
            assert {k: v for k, v in a.items() if k not in OWN} == {k: v for k, v in b.items() if k not in OWN}
        real, fake = run_phase(st, answers), run_phase(twin, answers)
        assert len(real) == len(fake)
        for version, (r, f) in enumerate(zip(real, fake)):
            assert public(r["event"]) == public(f["event"]), version
            part_r = [sorted(p) for p in (r["event"].get("private") or {}).values()]
            part_f = [sorted(p) for p in (f["event"].get("private") or {}).values()]
            assert part_r == part_f
            assert D.to_act(r["state"]) == D.to_act(f["state"]), version
            for viewer in [SPECTATOR, *unchanged]:
                assert D.view(r["state"], viewer) == D.view(f["state"], viewer), (version, viewer)
        pairs += 1
    assert pairs > 400


def test_holder_learns_nothing_new_and_only_a_declaration_is_public():
    """The only public difference a holder can make is to declare; it shows once every seat has answered
    (a reviewer sees the answers as they come)."""
    for i in range(400):
        st, _ = start(5, 70_000 + i)
        holder = holder_of(st)
        if holder is None:
            continue
        others = [s for s in st["order"] if s != holder]
        events = D.decide(st, {"type": "declare_revolution", "seat": holder, "seed": 1})
        declared = D.evolve(st, events[0])
        assert D.view(declared, REVIEWER)["revolution_answers"] == {str(holder): True}
        declined = D.evolve(st, D.decide(st, {"type": "decline_revolution", "seat": holder, "seed": 1})[0])
        for viewer in [SPECTATOR, *others]:
            assert D.view(declared, viewer) == D.view(declined, viewer)
        final = run_phase(declared, others)
        assert final[-1]["event"]["type"] == "RevolutionDeclared"
        assert final[-1]["event"]["data"]["seat"] == holder
        return
    raise AssertionError("no deal with a holder")


# ------------------------------------------------------------------ through the service


def _seed_for(n: int, want_holder: bool) -> int:
    for seed in range(1, 5000):
        st, _ = start(n, seed)
        if (holder_of(st) is not None) == want_holder:
            return seed
    raise AssertionError("no seed")


def _spectator_log(service, gid: str, after: int) -> list[tuple]:
    from service.core.identity import Viewer

    envs = service.reads.events(gid, Viewer("spectator"), after=after)["events"]
    return [(e["type"], e["data"], e.get("redacted", False), "private" in e, e["actor"].split(":")[0]) for e in envs]


def test_service_shows_the_same_log_deadlines_and_timeouts(service):
    """Through the service: with or without a holder, a spectator sees the same envelopes after the deal
    (types, data, redaction), every seat is to act with one shared deadline, and a timed-out seat declines."""
    from service.core.identity import Viewer

    logs, timeouts = [], []
    for want in (True, False):
        seed = _seed_for(5, want)
        g = service.games.create_game("dalmuti", NAMES[:5], {"hands": 1, "turn_seconds": 60}, seed=seed)
        gid = g["id"]
        table = service.tables.table(gid, fresh=True)
        dealt_at = table["version"]
        view = service.reads.state_view(gid, Viewer("spectator"))
        order = table["state"]["order"]
        assert view["to_act"] == order and sorted(view["deadlines"]) == sorted(str(s) for s in order)
        assert len(set(view["deadlines"].values())) == 1
        assert view["state"]["pending"]["revolution"] == order
        assert "jesters_seat" not in str(_spectator_log(service, gid, 0))
        # positions 0 and 2 answer, position 1 times out, then the rest answer
        for p in (0, 2):
            service.moves.move(gid, order[p], {"type": "decline_revolution"})
        version = service.tables.table(gid, fresh=True)["version"]
        assert service.deadlines.enforce_deadline(gid, version, order[1])
        for p in (3, 4):
            service.moves.move(gid, order[p], {"type": "decline_revolution"})
        log = _spectator_log(service, gid, dealt_at)
        # the move made for the seat is its own (a spectator sees that it timed out, not the move)
        own = service.reads.events(gid, Viewer("seat", seat=order[1]), after=dealt_at)["events"]
        timeouts.append([e["private"][str(order[1])]["move"] for e in own if e["type"] == "TurnTimedOut"])
        # seats as positions, so that the two games compare
        pos = {s: i for i, s in enumerate(order)}
        logs.append(
            [(t, {k: pos.get(v, v) if k == "seat" else v for k, v in d.items()}, r, p, a) for t, d, r, p, a in log]
        )
        seat_view = service.reads.events(gid, Viewer("seat", seat=order[0]), after=dealt_at)["events"]
        mine = [e for e in seat_view if e["type"] == "RevolutionAnswered" and e["data"]["seat"] == order[0]]
        assert mine[0]["private"][str(order[0])]["declare"] is False
        assert all(
            "private" not in e for e in seat_view if e["type"] == "RevolutionAnswered" and e["data"]["seat"] != order[0]
        )
    assert logs[0] == logs[1]
    assert [t for t, *_ in logs[0]] == ["RevolutionAnswered"] * 2 + ["TurnTimedOut"] + ["RevolutionAnswered"] * 3 + [
        "RevolutionDeclined"
    ]
    assert all(r and not p for t, _d, r, p, _a in logs[0] if t == "RevolutionAnswered")
    assert timeouts == [[{"type": "decline_revolution"}]] * 2
