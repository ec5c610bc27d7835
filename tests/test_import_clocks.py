"""An imported running game with a clock starts its clocks again: the seats to act get a fresh turn
from the import (the time between the export and the import is nobody's turn), and the workers enforce
it, as for a game made here.  A finished game, or one without a clock, is imported as it was."""

from __future__ import annotations

import random
import time

import pytest
import redis

from domain import table as tables
from events.envelope import loads, parse_time
from events.store import key
from service.core.listing import INDEX_INFO
from service.core.naipes import Naipes
from service.core.timers import DEADLINES
from service.core.verify import verify_export
from service.web.app import create_app

from .conftest import API_KEY, bearer
from .helpers import SHORT, create, play_http
from .test_timers import quiet, quiet_worker, timeouts, wait_for  # noqa: F401

NDJSON = {"Content-Type": "application/x-ndjson"}


def _move(client, gid: str, token: str) -> dict:
    return client.get(f"/games/{gid}/legal-moves", headers=bearer(token)).get_json()["moves"][0]


def test_an_imported_running_timed_game_gives_its_seats_a_fresh_turn_and_the_workers_enforce_it(
    client, integrator, quiet_worker
):
    # exported from the tests' shared store, imported into a store of its own (the same id) with a worker
    service, here = quiet_worker
    g = create(client, integrator, options={"turn_seconds": 2.0, "hands": 1})
    exported = client.get(f"/games/{g['id']}/export", headers=integrator).data
    source = client.get(f"/games/{g['id']}").get_json()
    _wait_until(max(parse_time(d) for d in source["deadlines"].values()) + 0.3)  # every deadline in the log past
    before = time.time()
    r = here.post("/games/import", data=exported, headers={**integrator, **NDJSON})
    assert r.status_code == 201, r.get_json()
    imported = r.get_json()
    assert imported["version"] == source["version"] + 1
    assert imported["provenance"]["imported_version"] == source["version"]
    view = here.get(f"/games/{g['id']}").get_json()
    assert view["to_act"] == source["to_act"]
    for seat in view["to_act"]:  # a fresh turn from the import, not the log's old deadline
        assert parse_time(view["deadlines"][str(seat)]) >= before + 2.0 - 0.01
    audit = here.get(f"/games/{g['id']}/audit", headers=integrator).get_json()["events"]
    last = audit[-1]
    assert last["type"] == tables.CLOCKS_RESTARTED and last["actor"] == "system"
    assert last["data"] == {"reason": "imported"} and not timeouts(here, integrator, g["id"])[0]

    # a move within the fresh turn is taken
    seat = view["to_act"][0]
    token = imported["seats"][seat]["token"]
    r = here.post(f"/games/{g['id']}/moves", json=_move(here, g["id"], token), headers=bearer(token))
    assert r.status_code == 201, r.get_json()
    # the seats that stay silent are timed out by the workers at their new deadlines, not before
    found = wait_for(lambda: timeouts(here, integrator, g["id"])[0], timeout=10)
    assert found, "the imported game's deadlines were never enforced"
    assert all(parse_time(e["time"]) >= before + 2.0 - 0.01 for e in found)
    assert seat not in [e["data"]["seat"] for e in found if parse_time(e["time"]) < before + 4.0]

    # the export of the imported game verifies elsewhere, its restart in its chain
    lines = here.get(f"/games/{g['id']}/export", headers=integrator).data.splitlines()
    assert tables.CLOCKS_RESTARTED in [loads(x)["type"] for x in lines[1:]]
    report = verify_export([loads(x) for x in lines])
    assert report["ok"], report["problems"]


def test_a_finished_or_untimed_game_is_imported_as_it_was(client, integrator, quiet):
    _url, _service, here = quiet
    untimed = create(client, integrator, options={"hands": 1})
    done = create(
        client, integrator, game="cego", players=["ana", "bea", "carl"], options={"rounds": 1, "turn_seconds": 30}
    )
    play_http(client, done, random.Random(7))
    for g in (untimed, done):
        version = client.get(f"/games/{g['id']}").get_json()["version"]
        exported = client.get(f"/games/{g['id']}/export", headers=integrator).data
        r = here.post("/games/import", data=exported, headers={**integrator, **NDJSON})
        assert r.status_code == 201, r.get_json()
        assert r.get_json()["version"] == version


def _wait_until(moment: float) -> None:
    while time.time() < moment:
        time.sleep(0.05)


@pytest.fixture()
def elsewhere(redis_url):
    """Another service's store (a database of its own, no worker over it): the bots there never move."""
    url = redis_url.rsplit("/", 1)[0] + "/9"
    conn = redis.Redis.from_url(url)
    conn.flushdb()
    yield create_app(Naipes(conn, api_keys=[API_KEY]), rate_limit="off").test_client()
    conn.flushdb()
    conn.close()


def test_the_bots_of_an_imported_game_play_on(elsewhere, integrator, quiet_worker):
    service, here = quiet_worker
    g = create(
        elsewhere,
        integrator,
        options={**SHORT["dalmuti"], "bots": {str(s): "random" for s in range(4)}},
        players=["a", "b", "c", "d"],
    )
    exported = elsewhere.get(f"/games/{g['id']}/export", headers=integrator).data
    assert elsewhere.get(f"/games/{g['id']}").get_json()["to_act"], "the bots wait there"
    r = here.post("/games/import", data=exported, headers={**integrator, **NDJSON})
    assert r.status_code == 201, r.get_json()
    finished = wait_for(lambda: here.get(f"/games/{g['id']}").get_json()["finished"], timeout=60)
    assert finished, "the imported game's bots never played"
    actors = {e["actor"] for e in here.get(f"/games/{g['id']}/audit", headers=integrator).get_json()["events"]}
    assert "bot:random" in actors


def test_a_restart_of_the_clocks_is_imported_only_as_a_service_writes_it(client, integrator, quiet):
    """A log that claims a player restarted the clocks, or restarts them after the game ended, is not one
    a service wrote: 422 naming the event, and nothing stored."""
    from .test_import_authority import _extra, _reseal

    _url, service, here = quiet
    g = create(client, integrator, options={"turn_seconds": 30.0, "hands": 1})
    lines = client.get(f"/games/{g['id']}/export", headers=integrator).data.splitlines()
    header, envs = loads(lines[0]), [loads(x) for x in lines[1:]]
    forged = _reseal(header, [*envs, _extra(envs, tables.CLOCKS_RESTARTED, {"reason": "imported"}, "seat:0")], g["id"])
    r = here.post("/games/import", data=forged, headers={**integrator, **NDJSON})
    body = r.get_json()
    assert r.status_code == 422 and body["type"].endswith(":bad-export") and body["event"] == "ClocksRestarted", body
    assert not service.store.exists(g["id"])
    honest = _reseal(header, [*envs, _extra(envs, tables.CLOCKS_RESTARTED, {"reason": "imported"}, "system")], g["id"])
    r = here.post("/games/import", data=honest, headers={**integrator, **NDJSON})
    assert r.status_code == 201, r.get_json()


def test_an_imports_deadlines_and_bots_turns_are_scheduled_once_its_owner_tokens_and_listing_are_written(
    elsewhere, integrator, quiet
):
    """A bot to act is due at once, and a worker may make its move as soon as its turn is queued: were the
    turn queued in the import's own append, a bot's move that ended the game would find no owner to tell
    its end to (its webhook lost), and the import's listing would then list the finished game as active.
    So the import writes the deadlines and queues the bots' turns last: whenever the scheduler is called,
    the game's owner, its seats' tokens and its listing are there."""
    _url, service, here = quiet
    seen: list[tuple] = []
    scheduler = service.scheduler

    class Watching:  # the service's own scheduler, noting what the store holds whenever it is called
        shared = scheduler.shared

        def _note(self, game_id: str) -> None:
            ctx = service.visibility.context(game_id)
            listed = service.redis.hget(INDEX_INFO, game_id)
            seen.append((ctx.owner, bool(service.redis.hlen(key(game_id, "auth"))), listed is not None))

        def in_append(self, game_id, old, new):
            self._note(game_id)
            return scheduler.in_append(game_id, old, new)

        def after_append(self, old, new, game_id):
            self._note(game_id)
            return scheduler.after_append(old, new, game_id)

        def __call__(self, old, new, game_id):
            self._note(game_id)
            return scheduler(old, new, game_id)

    service.scheduler = Watching()
    g = create(elsewhere, integrator, options={**SHORT["dalmuti"], "bots": {"1": "random"}}, players=list("abcd"))
    exported = elsewhere.get(f"/games/{g['id']}/export", headers=integrator).data
    r = here.post("/games/import", data=exported, headers={**integrator, **NDJSON})
    assert r.status_code == 201, r.get_json()
    assert seen, "the import scheduled nothing"
    assert all(owner is not None and tokens and listed for owner, tokens, listed in seen), seen
    assert service.queue_redis.zrangebyscore(DEADLINES, "-inf", "+inf"), "no deadline was written"
