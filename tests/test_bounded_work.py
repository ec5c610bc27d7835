"""Bounded work per request: a replay folds from a checkpoint, notes cost the
table nothing, replays beyond the process's slots are refused with
Retry-After, and a timed game whose seats are all absent plays on in
appends of bounded size without holding up another game's deadline."""

from __future__ import annotations

import random
import time
from itertools import groupby
from pathlib import Path

import pytest

from domain import registry, wire
from domain import table as tables
from events.store import key
from service.core.appending import Appender
from service.core.identity import SPECTATOR_VIEWER
from service.core.naipes import Naipes
from service.core.tables import Tables

from .helpers import create
from .test_timers import kill_group, start_worker, wait_for

EVERY = Tables.REPLAY_EVERY


def long_game(service: Naipes, versions: int, seed: int = 3, game_id: str | None = None) -> str:
    """A Dalmuti game played by random legal moves to at least ``versions`` events."""
    module = registry.get("dalmuti")
    rng = random.Random(seed)
    gid = service.games.create_game("dalmuti", [f"p{i}" for i in range(5)], {"hands": 50}, game_id=game_id)["id"]
    while True:
        t = service.tables.table(gid, trust_cache=True)
        if t["version"] >= versions or module.outcome(t["state"]) is not None:
            assert t["version"] >= versions, "the game ended too soon"
            return gid
        seat = rng.choice([s for s in module.to_act(t["state"]) if s is not None])
        move = rng.choice(module.legal_moves(t["state"], seat))
        service.moves.move(gid, seat, wire.encode_move(t["game"], move))  # posted as a client does: codes


@pytest.fixture()
def count_folds(monkeypatch):
    """How many events the table fold takes in (every fold goes through ``tables.evolve``)."""
    counter = {"n": 0}
    real = tables.evolve

    def counting(table, env):
        counter["n"] += 1
        return real(table, env)

    monkeypatch.setattr(tables, "evolve", counting)
    return counter


def test_a_replay_folds_at_most_one_checkpoint_interval(client, service, redis_client, count_folds):
    gid = long_game(service, 6 * EVERY)
    head = service.tables.table(gid)["version"]
    envs = service.store.read(gid)
    assert client.get(f"/games/{gid}/replay?version={head}").status_code == 200  # builds the checkpoints
    rng = random.Random(5)
    for version in sorted(
        {1, EVERY - 1, EVERY, EVERY + 1, 3 * EVERY + 7, head - 1, head, *rng.sample(range(1, head + 1), 12)}
    ):
        count_folds["n"] = 0
        r = client.get(f"/games/{gid}/replay?version={version}")
        assert r.status_code == 200, r.get_json()
        assert count_folds["n"] <= EVERY, (version, count_folds["n"])
        # the same table as folding the log from its first event
        assert service.tables.fold_from_zero(gid, version) == tables.fold(envs[:version])
        assert (
            r.get_json()["state"]
            == service.reads.state_view(gid, SPECTATOR_VIEWER, tables.fold(envs[:version]))["state"]
        )
    # the game's log goes and another game is made under its id: the old checkpoints and tables are not used
    redis_client.delete(*[key(gid, part) for part in ("events", "head", "snap", "auth")])
    long_game(service, 2 * EVERY + 10, seed=2, game_id=gid)
    other = Naipes(redis_client)  # another process: nothing cached
    for naipes in (service, other):
        for version in (EVERY, 2 * EVERY + 5, head):
            want = tables.fold(service.store.read(gid, 0, version))
            assert naipes.tables.fold_from_zero(gid, version) == want


def test_notes_cost_the_table_nothing_and_the_audit_lists_them_all(client, integrator, redis_client):
    gid = create(client, integrator, players=["a", "b", "c", "d"])["id"]
    sizes = []
    for i in range(300):
        r = client.post(
            f"/games/{gid}/notes", json={"version": 1, "text": f"note {i}: " + "x" * 400}, headers=integrator
        )
        assert r.status_code == 201
        sizes.append(len(redis_client.get(key(gid, "snap"))))
    # the table written at every append does not grow with the notes (a fold of n notes stays linear)
    assert sizes[-1] - sizes[0] < 16, (sizes[0], sizes[-1])
    review = client.get(f"/games/{gid}/audit", headers=integrator).get_json()["review"]
    assert [e["text"] for e in review if e["type"] == tables.NOTE_ADDED] == [
        f"note {i}: " + "x" * 400 for i in range(300)
    ]


def test_replays_beyond_the_process_slots_get_503_with_retry_after(client, integrator):
    gid = create(client, integrator, players=["a", "b", "c", "d"])["id"]
    held = 0
    try:
        while Tables._replay_slots.acquire(blocking=False):  # other replays hold every slot
            held += 1
        r = client.get(f"/games/{gid}/replay?version=2")
        assert r.status_code == 503 and r.mimetype == "application/problem+json"
        assert r.headers["Retry-After"] == "1" and "replays" in r.get_json()["detail"]
    finally:
        for _ in range(held):
            Tables._replay_slots.release()
    assert held == Tables.REPLAY_SLOTS
    assert client.get(f"/games/{gid}/replay?version=2").status_code == 200


def test_score_corrections_are_bounded(client, integrator):
    g = create(client, integrator, players=["a", "b", "c", "d"])
    gid = g["id"]
    award = {"action": "award", "reason": "abandoned", "scores": [4, 3, 2, 1]}
    assert client.post(f"/games/{gid}/adjudications", json=award, headers=integrator).status_code == 201
    fix = {"action": "correct_score", "reason": "recount", "deltas": [1, 0, 0, -1]}
    for _ in range(tables.MAX_CORRECTIONS):
        assert client.post(f"/games/{gid}/adjudications", json=fix, headers=integrator).status_code == 201
    r = client.post(f"/games/{gid}/adjudications", json=fix, headers=integrator)
    assert r.status_code == 409 and r.get_json()["type"].endswith("too-many-corrections")


def _appends(events: list[dict]) -> list[list[dict]]:
    """The log cut into appends: the events of one append share its time stamp."""
    return [list(group) for _stamp, group in groupby(events, key=lambda e: e["time"])]


def test_an_all_absent_game_plays_on_in_bounded_appends_and_holds_up_no_other_deadline(redis_url, client, integrator):
    worker = start_worker(redis_url)
    try:
        time.sleep(1.0)  # the worker takes the scheduler lock
        onion = create(
            client,
            integrator,
            game="onion",
            players=[f"p{i}" for i in range(7)],
            options={"rounds": 500, "bankroll": 100000, "turn_seconds": 0.2, "absent_after": 1},
        )
        gid = onion["id"]
        everyone = wait_for(lambda: len(client.get(f"/games/{gid}").get_json()["absent"]) == 7, timeout=20)
        assert everyone, "every seat should have timed out once"
        time.sleep(0.5)
        # another game's deadline while the absent game plays itself
        other = create(client, integrator, options={"turn_seconds": 1.0, "hands": 1})
        deadline = client.get(f"/games/{other['id']}").get_json()["deadlines"]
        found = wait_for(
            lambda: [
                e
                for e in client.get(f"/games/{other['id']}/audit", headers=integrator).get_json()["events"]
                if e["type"] == tables.TURN_TIMED_OUT
            ],
            timeout=10,
        )
        assert found, "the other game's deadline was never enforced"
        lateness = tables.epoch(found[0]["time"]) - tables.epoch(deadline[str(found[0]["data"]["seat"])])
        assert lateness <= 1.0, lateness
        time.sleep(1.0)
        events = client.get(f"/games/{gid}/audit", headers=integrator).get_json()["events"]
    finally:
        kill_group(worker)
    appends = _appends(events)
    moved = [[e for e in a if e["type"] == tables.TURN_TIMED_OUT and e["data"]["reason"] == "absent"] for a in appends]
    for append, by_worker in zip(appends, moved):
        assert len(by_worker) <= Appender.MAX_AUTO_MOVES
        assert len([e for e in append if e["type"] != tables.DEAL_REVEALED]) <= Appender.MAX_APPEND_EVENTS
    # the game goes on in appends of moves for absent seats alone (continuation jobs), not a deadline each
    continued = [a for a, by_worker in zip(appends, moved) if by_worker and a[0] is by_worker[0]]
    assert len(continued) >= 5, len(continued)


def test_checkpoints_are_tagged_with_the_code_of_every_game_package(tmp_path):
    """A checkpoint folded by other rules is never used: the tag names every module of the domain,
    those inside a game's package too (a change to Onion's hands makes another tag)."""
    import shutil

    import domain
    from service.core.tables import code_tag

    copy = tmp_path / "domain"
    shutil.copytree(Path(domain.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = code_tag(copy)
    hands = copy / "onion" / "hands" / "evaluate.py"
    hands.write_text(hands.read_text() + "\n# another version of the rules\n")
    code_tag.cache_clear()
    assert code_tag(copy) != before
