"""The game and tournament listings, and the index the workers' reconcile pass reads.

A listing shows each game as it is now (version, time of its latest event),
a page at a time from sorted sets kept per filter, with a cursor: what a page
costs does not depend on how many games the store holds.  The reconcile pass
reads the games due a look, not every running game.
"""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from service.cli import main as cli
from service.core import timers
from service.core.listing import DUE, INDEX_INFO, LISTED_BY
from service.core.naipes import Naipes
from service.core.tables import Tables

from .conftest import bearer
from .helpers import create, play_http, tokens


def move_once(client, g: dict, rng: random.Random) -> dict:
    """One legal move of the game through the API; the game's view after it."""
    toks = tokens(g)
    view = client.get(f"/games/{g['id']}", headers=bearer(toks[0])).get_json()
    seat = view["to_act"][0]
    moves = client.get(f"/games/{g['id']}/legal-moves", headers=bearer(toks[seat])).get_json()["moves"]
    r = client.post(f"/games/{g['id']}/moves", json=rng.choice(moves), headers=bearer(toks[seat]))
    assert r.status_code == 201, r.get_json()
    return client.get(f"/games/{g['id']}", headers=bearer(toks[0])).get_json()


def listed(client, integrator, query: str) -> dict:
    r = client.get(f"/games?{query}", headers=integrator)
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def row_of(rows: list[dict], gid: str) -> dict:
    return next(row for row in rows if row["id"] == gid)


def test_the_listing_shows_each_game_current_version_and_time(client, integrator, redis_url):
    g = create(client, integrator, game="cego", players=["ana", "bea", "carl"], options={"rounds": 1})
    created = client.get(f"/games/{g['id']}").get_json()
    rng = random.Random(3)
    for _ in range(3):
        view = move_once(client, g, rng)
    assert view["version"] > created["version"]
    row = row_of(listed(client, integrator, "game=cego&status=active&limit=50")["games"], g["id"])
    assert (row["version"], row["updated_at"]) == (view["version"], view["updated_at"])
    assert row["created_at"] == created["created_at"]

    # the operator's command shows the same
    out = CliRunner().invoke(
        cli, ["games", "list", "--game", "cego", "--status", "active", "--json"], env={"REDIS_URL": redis_url}
    )
    assert out.exit_code == 0, out.output
    rows = [json.loads(line) for line in out.output.splitlines() if line.startswith("{")]
    assert (row_of(rows, g["id"])["version"], row_of(rows, g["id"])["updated_at"]) == (
        view["version"],
        view["updated_at"],
    )


def output_bytes(service: Naipes) -> int:
    return int(service.redis.info("stats")["total_net_output_bytes"])


def bytes_of_a_page(client, integrator, service: Naipes, query: str) -> int:
    client.get(f"/games?{query}", headers=integrator)  # warm: the key's lookup, the listing's sets
    before = output_bytes(service)
    r = client.get(f"/games?{query}", headers=integrator)
    after = output_bytes(service)
    assert r.status_code == 200
    return after - before


def test_a_page_reads_what_it_shows_whatever_the_store_holds(client, integrator, service):
    """What Redis sends for a page of two games: the same with a few games and with
    hundreds more of the same filter (reading the whole index grows with every game)."""
    players = ["ana", "bea", "carl"]
    for _ in range(3):
        service.games.create_game("cego", players, {"rounds": 1})
    queries = ["limit=2", "game=cego&limit=2", "status=active&limit=2", "game=cego&status=active&limit=2"]
    small = {q: bytes_of_a_page(client, integrator, service, q) for q in queries}
    for _ in range(250):
        service.games.create_game("cego", players, {"rounds": 1})
    large = {q: bytes_of_a_page(client, integrator, service, q) for q in queries}
    for q in queries:
        assert abs(large[q] - small[q]) < 400, (q, small[q], large[q])  # 250 summaries are 50 KB and more


def test_cursor_pages_give_every_game_once_newest_first(client, integrator, service):
    players = ["ana", "bea", "carl", "dani"]
    made = [service.games.create_game("onion", players, {"rounds": 2})["id"] for _ in range(7)]
    seen: list[str] = []
    cursor = None
    first = None
    for _ in range(100):
        page = listed(client, integrator, "game=onion&status=active&limit=3" + (f"&cursor={cursor}" if cursor else ""))
        assert len(page["games"]) <= 3
        first = first or page
        seen += [row["id"] for row in page["games"]]
        if cursor is None:
            # a game created after the first page is not shown on the next ones (an offset would shift)
            newer = service.games.create_game("onion", players, {"rounds": 2})["id"]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert len(seen) == len(set(seen)), "a game was listed twice"
    assert newer not in seen
    assert [gid for gid in seen if gid in made] == made[::-1]
    assert first["total"] >= 7 and first["next_cursor"]

    # offsets still work without a cursor; cursor and offset together, or a made-up cursor: 422 problems
    by_offset = listed(client, integrator, "game=onion&status=active&limit=2&offset=1")["games"]
    assert [row["id"] for row in by_offset] == [newer, *seen][1:3]
    for bad in (
        "cursor=bm90LWEtY3Vyc29y",
        "cursor=%00%01",
        "cursor=" + "x" * 300,
        f"cursor={first['next_cursor']}&offset=2",
    ):
        r = client.get(f"/games?{bad}", headers=integrator)
        assert r.status_code == 422 and r.mimetype == "application/problem+json", (bad, r.get_json())


def test_a_game_that_finishes_moves_to_the_finished_listing(client, integrator, service):
    g = create(client, integrator, game="dalmuti", players=["ana", "bea", "carl", "dani"], options={"hands": 1})
    assert g["id"] in {r["id"] for r in listed(client, integrator, "game=dalmuti&status=active&limit=500")["games"]}
    final = play_http(client, g, random.Random(5))
    finished = listed(client, integrator, "game=dalmuti&status=finished&limit=500")["games"]
    assert row_of(finished, g["id"])["version"] == final["version"]
    assert g["id"] not in {r["id"] for r in listed(client, integrator, "status=active&limit=500")["games"]}
    assert g["id"] not in {r["id"] for r in listed(client, integrator, "game=dalmuti&status=active&limit=500")["games"]}
    # it left the index of active games for the one of finished games (not filtered out as read)
    for filters in ("status", "type:dalmuti:status"):
        assert service.redis.zscore(f"{LISTED_BY}:{filters}:finished", g["id"]) is not None
        assert service.redis.zscore(f"{LISTED_BY}:{filters}:active", g["id"]) is None


def test_a_store_listed_before_the_filter_sets_is_still_listed_whole(client, integrator, service):
    g = service.games.create_game("muerte", ["a", "b", "c", "d", "e", "f"], {})
    # as a store written before the sets existed: its summaries only
    for key in service.redis.scan_iter(match=f"{LISTED_BY}:*"):
        service.redis.delete(key)
    rows = listed(client, integrator, "game=muerte&status=active&limit=500")["games"]
    assert g["id"] in {r["id"] for r in rows}
    assert service.redis.get(f"{LISTED_BY}:ready") == b"done"
    assert service.redis.zscore(f"{LISTED_BY}:type:muerte:status:active", g["id"]) is not None


def test_a_duplicate_table_is_listed_as_its_view_shows_it(client, integrator, service):
    """Under a duplicate round's embargo a key that does not see the table whole sees
    its version held at the round's horizon in the listing, as in its view."""
    from .test_trust import duplicate_tournament, key_with, play_until_deals_done

    owner = bearer(key_with(client, integrator, "tournaments", "games")["key"])
    other = bearer(key_with(client, integrator, "games")["key"])
    t = duplicate_tournament(client, owner)
    a = t["round_detail"]["tables"][0]
    play_until_deals_done(client, service, a, 1, random.Random(1))
    gid = a["game_id"]
    head = service.tables.table(gid, fresh=True)["version"]
    horizon = client.get(f"/games/{gid}", headers=other).get_json()
    assert horizon["embargo"] is not None
    assert row_of(listed(client, owner, "limit=500")["games"], gid)["version"] == head
    shown = row_of(listed(client, other, "limit=500")["games"], gid)
    assert (shown["version"], shown["updated_at"]) == (horizon["version"], horizon["updated_at"])


def test_tournaments_are_listed_by_cursor_and_status(client, integrator):
    from .test_tournaments import create_tournament

    made = [
        create_tournament(
            client,
            integrator,
            name=f"list-{i}",
            game="cego",
            options={"rounds": 1},
            players=[f"p{j}" for j in range(6)],
            format="swiss",
            rounds=1,
            table_size={"min": 3, "max": 3},
        )["id"]
        for i in range(4)
    ]
    seen, cursor = [], None
    for _ in range(100):
        r = client.get(
            "/tournaments?status=running&limit=3" + (f"&cursor={cursor}" if cursor else ""), headers=integrator
        )
        assert r.status_code == 200, r.get_json()
        page = r.get_json()
        assert all(row["status"] == "running" for row in page["tournaments"])
        seen += [row["id"] for row in page["tournaments"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert len(seen) == len(set(seen))
    assert [tid for tid in seen if tid in made] == made[::-1]
    r = client.get("/tournaments?cursor=Zm9v", headers=integrator)
    assert r.status_code == 422 and r.mimetype == "application/problem+json"


# ------------------------------------------------------------------ the reconcile pass


def test_the_reconcile_pass_reads_the_games_due_not_every_running_game(service, monkeypatch):
    """Timed games whose deadlines are scheduled are not read by the pass; a move stored
    without its deadlines is found at once, and a deadline whose jobs went missing once
    it is overdue."""
    scheduled = [
        service.games.create_game("cego", ["a", "b", "c"], {"rounds": 1, "turn_seconds": 300 if i == 0 else 600})["id"]
        for i in range(12)
    ]
    schedule, service.scheduler = service.scheduler, None  # this one's deadline jobs are never written
    lost = service.games.create_game("cego", ["a", "b", "c"], {"rounds": 1, "turn_seconds": 600})["id"]
    service.scheduler = schedule

    read = count_table_reads(monkeypatch)
    assert lost in timers.reconcile(service)
    assert not set(read) & set(scheduled), "the pass read running games that were not due"
    assert lost not in timers.reconcile(service)  # scheduled now, and marked at its deadline

    # the jobs of a scheduled game vanish (with the queues' Redis, say): once its deadline is overdue
    # the pass finds the game and schedules it again
    gid = scheduled[0]
    table = service.tables.table(gid, fresh=True)
    for _seat, _deadline, job in timers.deadline_jobs(gid, table):
        service.queue_redis.zrem(timers.DEADLINES, job)
    deadline = min(d for _s, d, _j in timers.deadline_jobs(gid, table))
    assert service.redis.zscore(DUE, gid) == pytest.approx(deadline)
    read.clear()
    assert gid not in timers.reconcile(service, now=deadline - 1)
    assert gid in timers.reconcile(service, now=deadline + 0.5)
    assert not set(read) & set(scheduled[1:])


def test_a_finished_timed_game_leaves_the_due_index(client, integrator, service):
    g = create(
        client, integrator, game="cego", players=["ana", "bea", "carl"], options={"rounds": 1, "turn_seconds": 600}
    )
    assert service.redis.zscore(DUE, g["id"]) is not None
    play_http(client, g, random.Random(2))
    assert service.redis.zscore(DUE, g["id"]) is None
    assert service.redis.hget(INDEX_INFO, g["id"]) is not None


def test_rearming_at_worker_start_reads_the_running_timed_games_only(service, monkeypatch):
    """What a worker reads when it starts: the running timed games, the same
    with a few untimed games in the store as with hundreds."""
    untimed = service.games.create_game("cego", ["a", "b", "c"], {"rounds": 1})["id"]
    timed = service.games.create_game("cego", ["a", "b", "c"], {"rounds": 1, "turn_seconds": 600})["id"]
    read = count_table_reads(monkeypatch)
    service.deadlines.rearm_deadlines()
    before = output_bytes(service)
    assert service.deadlines.rearm_deadlines() >= 1
    small = output_bytes(service) - before
    assert timed in read and untimed not in read
    for _ in range(200):
        service.games.create_game("cego", ["a", "b", "c"], {"rounds": 1})
    before = output_bytes(service)
    service.deadlines.rearm_deadlines()
    large = output_bytes(service) - before
    assert abs(large - small) < 400, (small, large)  # 200 summaries are 40 KB and more


def count_table_reads(monkeypatch) -> list[str]:
    """The ids of the games whose table the application reads from now on."""
    read: list[str] = []
    original = Tables.table

    def counting(self, game_id, **kwargs):
        read.append(game_id)
        return original(self, game_id, **kwargs)

    monkeypatch.setattr(Tables, "table", counting)
    return read


def _tied_rows(rng: random.Random, count: int) -> dict[str, int]:
    """Members and scores of a listing with many rows of one millisecond."""
    return {
        f"g{rng.randrange(10**6):06d}x{n}": rng.choice([1000, 1000, 1001, 1500, rng.randrange(900, 2000)])
        for n in range(count)
    }


def _in_listing_order(rows: dict[str, int]) -> list[str]:
    """Newest first; one millisecond's rows in reverse byte order, as the sorted sets give them."""
    return [m for m, _ in sorted(rows.items(), key=lambda r: (r[1], r[0].encode()), reverse=True)]


def _pages_agree(redis_client, key: str, expected: list[str], load, limits, offsets, **sets) -> None:
    """Every page by offset is its slice of ``expected``, the total its length, and a walk by cursor is
    ``expected`` whole."""
    from service.core import pages

    for limit in limits:
        for offset in offsets:
            got = pages.page(redis_client, key, limit=limit, offset=offset, load=load, **sets)
            assert [r["id"] for r in got["rows"]] == expected[offset : offset + limit], (limit, offset)
            assert got["total"] == len(expected)
        walked, cursor = [], None
        while True:
            got = pages.page(redis_client, key, limit=limit, cursor=cursor, load=load, **sets)
            walked += [r["id"] for r in got["rows"]]
            if (cursor := got["next_cursor"]) is None:
                break
        assert walked == expected, limit


def test_two_sets_listed_as_one_page_alike_by_offset_and_by_cursor(redis_client):
    """A caller who sees held tables' ends lists the finished games and its held set as one: every page,
    by offset or by cursor, is the slice of the two sets' union in the listing's order (newest first,
    one millisecond's rows in reverse byte order), whatever the offset (found by a binary search)."""
    import secrets

    rng = random.Random(7)
    first, second = f"test:merge:{secrets.token_hex(4)}:a", f"test:merge:{secrets.token_hex(4)}:b"
    rows = _tied_rows(rng, 157)
    for member, score in rows.items():
        redis_client.zadd(first if rng.random() < 0.8 else second, {member: score})

    def load(ids, _scores):
        return [{"id": i} for i in ids]

    offsets = (0, 1, 5, 31, 100, 150, 156, 157, 400)
    _pages_agree(redis_client, first, _in_listing_order(rows), load, (1, 7, 50), offsets, merged=second)
    redis_client.delete(first, second)


def test_a_set_with_rows_passed_over_pages_alike_by_offset_and_by_cursor(redis_client):
    """Among the games in play, a caller who sees held tables' ends passes over those (they are in
    the set, and listed finished to it): an offset counts the rows it is shown, not the rows of the
    set, so offset pages are the same slices as cursor pages, and the total leaves the hidden out."""
    import secrets

    rng = random.Random(11)
    listed, hidden = f"test:hide:{secrets.token_hex(4)}:all", f"test:hide:{secrets.token_hex(4)}:held"
    rows = _tied_rows(rng, 131)
    for member, score in rows.items():
        redis_client.zadd(listed, {member: score})
        if rng.random() < 0.3:
            redis_client.zadd(hidden, {member: score})
    held = {m.decode() for m in redis_client.zrange(hidden, 0, -1)}
    shown = [m for m in _in_listing_order(rows) if m not in held]

    def load(ids, _scores):
        return [None if i in held else {"id": i} for i in ids]

    offsets = (0, 1, 2, 17, 50, len(shown) - 1, len(shown), 300)
    _pages_agree(redis_client, listed, shown, load, (1, 4, 30), offsets, hidden=hidden)
    redis_client.delete(listed, hidden)
