"""The RateLimit fields (draft-ietf-httpapi-ratelimit-headers-10) through HTTP: the numbers the limiter
counted fall with each request and come back when the window resets; a 429 says when to retry; an
operator gives one key a budget of its own; the contract documents all of it."""

from __future__ import annotations

import random
import re
import secrets
import threading
import time
from pathlib import Path

import requests
import yaml
from click.testing import CliRunner

from service.cli import main as cli
from service.core.identity import Viewer
from service.web.app import create_app
from service.web.ratelimit import EXEMPT_PREFIXES, PAGED_RULES, Counts, _process

from .conftest import API_KEY, ROOT, bearer
from .helpers import create, fresh_window, play_http, tokens
from .live import LiveServer
from .test_stream import sse

FIELD = re.compile(r'"(?P<name>[a-z0-9-]+)";(?P<a>[qr])=(?P<x>\d+);(?P<b>[wt])=(?P<y>\d+)')


def parse(value: str) -> dict[str, tuple[int, int]]:
    """A RateLimit or RateLimit-Policy field: policy name -> (q, w) or (r, t)."""
    items = [item.strip() for item in value.split(",")]
    out = {}
    for item in items:
        m = FIELD.fullmatch(item)
        assert m, f"not a structured-field item of the draft: {item!r}"
        out[m["name"]] = (int(m["x"]), int(m["y"]))
    return out


def _address() -> dict:
    return {"REMOTE_ADDR": f"10.{random.randrange(256)}.{random.randrange(256)}.{random.randrange(1, 255)}"}


def _client(service, monkeypatch, limits: str, address_limits: str = "off"):
    monkeypatch.setenv("NAIPES_RATE_LIMIT_ADDRESS", address_limits)
    return create_app(service, rate_limit=limits).test_client()


def test_remaining_falls_with_each_request_and_comes_back_after_the_window(service, monkeypatch):
    c = _client(service, monkeypatch, "4 per 2 seconds")
    key = bearer(service.keys.create("counted", ["games"])["key"])  # a key of the test's own: a fresh count
    fresh_window(2, 2)  # five requests within one two-second window
    seen = []
    for _ in range(4):
        r = c.get("/games", headers=key)
        assert r.status_code == 200
        assert parse(r.headers["RateLimit-Policy"]) == {"credential": (4, 2)}
        seen.append(parse(r.headers["RateLimit"])["credential"])
    assert [remaining for remaining, _ in seen] == [3, 2, 1, 0]
    assert all(0 <= reset <= 2 for _, reset in seen)

    refused = c.get("/games", headers=key)
    assert refused.status_code == 429 and refused.mimetype == "application/problem+json"
    assert parse(refused.headers["RateLimit-Policy"]) == {"credential": (4, 2)}
    remaining, reset = parse(refused.headers["RateLimit"])["credential"]
    assert remaining == 0 and 1 <= int(refused.headers["Retry-After"]) <= 2
    assert int(refused.headers["Retry-After"]) >= reset

    time.sleep(int(refused.headers["Retry-After"]) + 0.2)  # the window is two seconds
    again = c.get("/games", headers=key)
    assert again.status_code == 200
    assert parse(again.headers["RateLimit"])["credential"][0] == 3


def test_a_page_of_events_counts_one_request_per_hundred_events_it_may_hold(service, monkeypatch):
    """What one request may make the service read, label and send is bounded by the caller's budget,
    whatever the page it asks for: GET /games/{id}/events counts as ceil(limit / 100) requests (the
    default limit, 1,000, as ten), at most a window's whole quota, so that any page fits a window
    nothing was spent in; a page of the games' listing the same way.  Another route's count is its own."""
    c = _client(service, monkeypatch, "60 per 4 seconds", address_limits="90 per 4 seconds")
    key = bearer(service.keys.create("paged", ["games"])["key"])
    gid = create(c, key)["id"]
    c.get(f"/games/{gid}/events?limit=1")  # (the route's first answer, made before the window is counted)
    fresh_window(4, 4)

    def remaining(path: str, headers: dict) -> tuple[int, dict[str, int]]:
        r = c.get(path, headers=headers, environ_base=address)
        return r.status_code, {name: left for name, (left, _) in parse(r.headers["RateLimit"]).items()}

    address = _address()
    assert remaining(f"/games/{gid}/events?limit=100", key) == (200, {"credential": 59})
    assert remaining(f"/games/{gid}/events?limit=101", key) == (200, {"credential": 57})
    assert remaining(f"/games/{gid}/events", key) == (200, {"credential": 47})
    assert remaining(f"/games/{gid}/events?limit=1000&after=3", key) == (200, {"credential": 37})
    assert remaining(f"/games/{gid}", key) == (200, {"credential": 59})
    assert remaining("/games?limit=500", key) == (200, {"credential": 55})  # a listing's page: the same units
    assert remaining("/games", key) == (200, {"credential": 54})
    status, _ = remaining(f"/games/{gid}/events?limit=5000", key)  # 50 more: over the quota
    assert status == 429
    # a spectator is counted by its address too, in the same units
    assert remaining(f"/games/{gid}/events?limit=300", {}) == (200, {"credential": 57, "address": 87})
    # a page larger than the quota counts as the whole quota: it fits a window nothing was spent in
    other = bearer(service.keys.create("paged-large", ["games"])["key"])
    big = _client(service, monkeypatch, "20 per 4 seconds")
    fresh_window(4, 4)
    r = big.get(f"/games/{gid}/events?limit=5000", headers=other)
    assert r.status_code == 200 and parse(r.headers["RateLimit"])["credential"][0] == 0
    assert big.get(f"/games/{gid}/events?limit=1", headers=other).status_code == 429


def test_the_paged_routes_count_the_limits_the_contract_gives_them():
    """Each route whose page is counted by its size (PAGED_RULES) takes, in the contract, the default and
    largest ``limit`` the count assumes, and says what its page costs."""
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    for rule, (default, most) in PAGED_RULES.items():
        path = re.sub(r"<(?:[^:>]+:)?([^>]+)>", r"{\1}", rule)
        [limit] = [p for p in spec["paths"][path]["get"]["parameters"] if p["name"] == "limit"]
        assert (limit["schema"]["default"], limit["schema"]["maximum"]) == (default, most), path
        assert "ceil(limit / 100) requests" in limit["description"], path


def test_a_stream_catching_up_with_a_long_log_goes_at_the_pace_of_the_budget(service, monkeypatch):
    """A stream opened at the start of a long log is counted as pages of its events would be: every
    100 events it sends count as a request of its client on the stream route, and past the budget it
    waits for the window to reset, then goes on, losing nothing.  Opening streams over a long log
    again and again then costs the service no more than reading it in pages."""
    rng = random.Random(7)
    gid = service.games.create_game("dalmuti", ["ana", "bea", "carl", "dani", "eva"], {"hands": 4})["id"]
    while (view := service.reads.state_view(gid, Viewer("integrator")))["to_act"]:
        seat = rng.choice(view["to_act"])
        service.moves.move(gid, seat, rng.choice(service.reads.legal_moves(gid, Viewer("seat", seat=seat))["moves"]))
    assert view["finished"]
    head = view["version"]
    assert head > 600, head  # (a four-hand game of five: 750 to 870 events; the first batch holds 500)
    monkeypatch.setenv("NAIPES_RATE_LIMIT_ADDRESS", "off")
    app = create_app(service, rate_limit="3 per 2 seconds")
    key = bearer(service.keys.create("streamer", ["games"])["key"])
    with LiveServer(app) as server:
        fresh_window(2, 2)
        started = time.monotonic()
        with requests.get(f"{server.url}/games/{gid}/stream?after=0", headers=key, stream=True, timeout=30) as r:
            assert r.status_code == 200
            versions = [int(m["id"]) for kind, m in sse(r, timeout=30) if kind == "event"]
        took = time.monotonic() - started
    assert versions == list(range(1, head + 1))  # the whole log, in order, once
    # opened (1) and its first 500 events (5) spent the window's 3 requests: the rest waited for the next
    assert took >= 1.0, f"{head} events sent in {took:.2f} s under a budget of 3 pages of 100 per 2 s"


def test_an_export_counts_as_the_pages_of_its_log(service, monkeypatch):
    """An export sends the whole log: it counts as ceil(version / 100) requests of the key's budget on
    the export route (at most a window's quota), and is refused past it before anything is read.  An
    audit, the whole log too, is counted the same way on its own route."""
    rng = random.Random(8)
    c = _client(service, monkeypatch, "30 per 4 seconds")
    key = bearer(service.keys.create("exporter", ["games", "review"])["key"])
    gid = create(c, key)["id"]
    while (view := service.reads.state_view(gid, Viewer("integrator")))["version"] < 250:
        seat = rng.choice(view["to_act"])
        service.moves.move(gid, seat, rng.choice(service.reads.legal_moves(gid, Viewer("seat", seat=seat))["moves"]))
    version = service.tables.table(gid, fresh=True)["version"]
    cost = -(-version // 100)
    fresh_window(4, 4)
    r = c.get(f"/games/{gid}/export", headers=key)
    assert r.status_code == 200 and len(r.data.splitlines()) == version + 1
    assert parse(r.headers["RateLimit"])["credential"][0] == 30 - cost
    while (left := parse(r.headers["RateLimit"])["credential"][0]) >= cost:
        r = c.get(f"/games/{gid}/export", headers=key)
        assert r.status_code == 200
    refused = c.get(f"/games/{gid}/export", headers=key)
    assert refused.status_code == 429 and refused.mimetype == "application/problem+json", left
    assert int(refused.headers["Retry-After"]) >= 1
    r = c.get(f"/games/{gid}/audit", headers=key)  # the audit, the whole log too: its own route's count
    assert r.status_code == 200 and parse(r.headers["RateLimit"])["credential"][0] == 30 - cost
    # a log of more pages than the quota: the whole quota, which a window nothing else was spent in holds
    small = _client(service, monkeypatch, "2 per 4 seconds")
    fresh_window(4, 4)
    r = small.get(f"/games/{gid}/export", headers=key)
    assert r.status_code == 200 and parse(r.headers["RateLimit"])["credential"][0] == 0


def test_a_tournament_counts_as_the_games_its_first_round_makes(service, monkeypatch):
    """Creating a tournament makes its first round's games in the request: it counts as one request per
    table of that round, and is refused past the budget before any game is made."""
    c = _client(service, monkeypatch, "10 per 4 seconds")
    key = bearer(service.keys.create("organiser", ["tournaments"])["key"])

    def body(players: int) -> dict:
        names = [f"rl{players}-{i}" for i in range(players)]
        return {"game": "dalmuti", "players": names, "format": "swiss", "rounds": 1, "table_size": {"min": 4}}

    def made() -> int:
        return c.get("/tournaments", headers=bearer(API_KEY)).get_json()["total"]

    fresh_window(4, 4)
    before = made()
    r = c.post("/tournaments", json=body(16), headers=key)  # four tables
    assert r.status_code == 201 and parse(r.headers["RateLimit"])["credential"][0] == 6
    refused = c.post("/tournaments", json=body(28), headers=key)  # seven tables: over the budget
    assert refused.status_code == 429 and refused.mimetype == "application/problem+json"
    assert made() == before + 1, "a refused tournament was made"
    # more tables than the quota: the whole quota, which a window nothing else was spent in holds
    large = bearer(service.keys.create("organiser-large", ["tournaments"])["key"])
    fresh_window(4, 4)
    r = c.post("/tournaments", json=body(64), headers=large)  # sixteen tables
    assert r.status_code == 201 and parse(r.headers["RateLimit"])["credential"][0] == 0


def test_a_page_is_counted_by_its_limit_however_it_is_spelt(service, monkeypatch):
    """The route reads ``limit`` as an integer field does (``+5000``, ``5_000``, `` 5000``, ``0005000``
    are all 5000): the page is counted by that number, not as the default page (10 instead of 50)."""
    c = _client(service, monkeypatch, "200 per 4 seconds")
    key = bearer(service.keys.create("spelt", ["games"])["key"])
    gid = create(c, key)["id"]
    c.get(f"/games/{gid}/events?limit=1", headers=key)
    for spelling in ("5000", "+5000", "5_000", " 5000", "0005000", "5000 "):
        fresh_window(4, 4)
        other = bearer(service.keys.create(f"spelt-{spelling.strip()}", ["games"])["key"])
        r = c.get(f"/games/{gid}/events", query_string={"limit": spelling}, headers=other)
        assert r.status_code == 200, (spelling, r.get_json())
        assert parse(r.headers["RateLimit"])["credential"][0] == 150, spelling
    r = c.get("/games", query_string={"limit": "+500"}, headers=key)
    assert r.status_code == 200


def test_an_import_counts_its_events_as_its_export_did(service, monkeypatch):
    """An import of N events counts as ceil(N / 100) requests, as the export it came from (a 32 MiB log
    counted one request before); counted before the log is read, so a refused one is counted too."""
    key = bearer(service.keys.create("importer", ["games"])["key"])
    free = create_app(service, rate_limit="off").test_client()
    game = create(free, key)
    play_http(free, game, random.Random(5))
    export = free.get(f"/games/{game['id']}/export", headers=key).get_data()
    c = _client(service, monkeypatch, "300 per 4 seconds")
    events = export.count(b"\n") - 1
    assert events > 100
    fresh_window(4, 4)
    r = c.post("/games/import", data=export, headers={**key, "Content-Type": "application/x-ndjson"})
    assert r.status_code == 409  # this store holds it: read, checked, refused
    assert parse(r.headers["RateLimit"])["credential"][0] == 300 - -(-events // 100)


class HeldFlush:
    """A process's counts (no background flush) whose flush, once started, is held half-way, before its
    add reaches Redis, until released: what a request meets while a flush is on its way."""

    AT = 1_000_000_020.0  # one window, whatever the clock says

    def __init__(self, service, name: str, processes: int):
        self.counts = Counts(service.redis, f"naipes:rate:{name}-{secrets.token_hex(4)}", processes=processes)
        self.counts._flusher_pid = _process[0]  # no background flush: the test flushes when it says
        real, self.inside, self.go = self.counts._add, threading.Event(), threading.Event()

        def held(amounts):
            if threading.current_thread().name == "flush-held":
                self.inside.set()
                assert self.go.wait(10)
            return real(amounts)

        self.counts._add = held

    def start(self) -> None:
        self.thread = threading.Thread(target=self.counts.flush, kwargs={"now": self.AT}, name="flush-held")
        self.thread.start()
        assert self.inside.wait(5)

    def release(self) -> None:
        self.go.set()
        self.thread.join(5)


def test_requests_being_flushed_are_counted_until_redis_has_them(service):
    """A flush takes a window's pending requests and adds them to Redis: a request meanwhile still counts
    them (its remaining count, and the process's share of what is left), and the count stays exact."""
    held = HeldFlush(service, "flushing", processes=1)
    counts, at = held.counts, held.AT
    used = [counts.hit("key", 4, 60, "credential", now=at).used]
    held.start()
    used.append(counts.hit("key", 4, 60, "credential", now=at).used)  # the first is on its way to Redis
    held.release()
    used += [counts.hit("key", 4, 60, "credential", now=at).used for _ in range(3)]
    assert used == [1, 2, 3, 4, 5]  # the fifth is over the quota: refused


def test_a_request_counted_in_redis_while_a_flush_is_on_its_way_counts_what_the_flush_carries(service):
    """Past its share a request adds itself to Redis at once; a flush of the same window on its way
    meanwhile holds requests this process let through.  Whichever add Redis takes first, the request's
    count holds them: it read 10 (its own add alone) where 23 had been let through."""
    held = HeldFlush(service, "racing", processes=2)
    counts, at = held.counts, held.AT
    assert counts.hit("key", 60, 60, "credential", now=at, cost=13).used == 13  # within the share (15)
    held.start()
    seen = []
    past = threading.Thread(target=lambda: seen.append(counts.hit("key", 60, 60, "credential", now=at, cost=10)))
    past.start()  # past the share: added to Redis at once
    past.join(0.3)
    held.release()
    past.join(5)
    assert [w.used for w in seen] == [23]
    assert int(service.redis.get(f"{counts.prefix}:key:60:60:{int(at // 60)}")) == 23
    assert counts.hit("key", 60, 60, "credential", now=at, cost=37).used == 60  # the quota, exactly
    assert counts.hit("key", 60, 60, "credential", now=at).exceeded


def test_a_flush_on_its_way_holds_back_only_the_adds_of_its_own_counts(service):
    """A flush's add waits for nothing but the counts it carries: while one is held half-way, another
    client's request past its share is added to Redis at once and answered (a lock of the whole process
    held it behind the flush's round trip, however long)."""
    held = HeldFlush(service, "apart", processes=2)
    counts, at = held.counts, held.AT
    counts.hit("one", 60, 60, "credential", now=at, cost=13)  # pending, for the flush to carry
    held.start()
    seen = []
    other = threading.Thread(target=lambda: seen.append(counts.hit("other", 60, 60, "credential", now=at, cost=20)))
    other.start()  # past its share (15): added to Redis at once
    other.join(5)
    try:
        assert not other.is_alive() and [w.used for w in seen] == [20], "another count's add waited for the flush"
    finally:
        held.release()
    assert int(service.redis.get(f"{counts.prefix}:one:60:60:{int(at // 60)}")) == 13


def test_every_process_counts_into_one_shared_count(service, monkeypatch):
    """Two web processes over one Redis: together they let through the quota, and at most the unflushed
    shares over it (half of it); once over, both refuse; after their flushes Redis holds every request
    and each process reads the shared count back."""
    monkeypatch.delenv("NAIPES_WEB_WORKERS", raising=False)
    apps = [create_app(service, rate_limit="10 per minute") for _ in range(2)]
    one, other = (app.test_client() for app in apps)
    made = service.keys.create("shared", ["games"])
    key = bearer(made["key"])
    fresh_window(60)
    codes = [(one if i % 2 == 0 else other).get("/games", headers=key).status_code for i in range(30)]
    assert 10 <= codes.count(200) <= 15, codes
    assert codes[-10:] == [429] * 10, codes
    for app in apps:
        app.extensions["naipes_rate_counts"].flush()
    counters = list(service.redis.scan_iter(match=f"naipes:rate:key:{made['id']}:*"))
    assert sum(int(service.redis.get(k)) for k in counters) == 30  # every request, once
    # every count expires with its window (each process gives a key its expiry once, not on every add)
    assert all(0 < service.redis.ttl(k) <= 61 for k in counters), [service.redis.ttl(k) for k in counters]
    for c in (one, other):
        assert parse(c.get("/games", headers=key).headers["RateLimit"])["credential"][0] == 0
    # each route has its own count for a credential
    assert parse(one.get("/me", headers=key).headers["RateLimit"])["credential"][0] == 9


def test_a_process_at_its_limit_is_exact(service, monkeypatch):
    """One process alone never lets through more than the quota, however fast the requests."""
    c = _client(service, monkeypatch, "40 per minute")
    key = bearer(service.keys.create("exact", ["games"])["key"])
    fresh_window(60)
    codes = [c.get("/games", headers=key).status_code for _ in range(60)]
    assert codes == [200] * 40 + [429] * 20


def test_a_request_without_a_key_sees_its_address_budget_too(service, monkeypatch):
    c = _client(service, monkeypatch, "10 per minute", address_limits="3 per minute")
    fresh_window(60)
    g = create(c, bearer(API_KEY), players=["a", "b", "c", "d"])
    env = _address()
    r = c.get(f"/games/{g['id']}", headers=bearer(tokens(g)[0]), environ_base=env)
    assert parse(r.headers["RateLimit-Policy"]) == {"credential": (10, 60), "address": (3, 60)}
    assert parse(r.headers["RateLimit"])["address"][0] == 2
    r = c.get("/game-types", environ_base=env)  # another route, no credential: the same address budget
    assert {name: remaining for name, (remaining, _) in parse(r.headers["RateLimit"]).items()} == {
        "credential": 9,
        "address": 1,
    }
    c.get("/game-types", environ_base=env)
    refused = c.get(f"/games/{g['id']}", headers=bearer(tokens(g)[1]), environ_base=env)
    assert refused.status_code == 429 and "client address" in refused.get_json()["detail"]
    assert parse(refused.headers["RateLimit"])["address"][0] == 0
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    # a key from the same address is counted by its key only
    keyed = c.get("/games", headers=bearer(API_KEY), environ_base=env)
    assert keyed.status_code == 200 and set(parse(keyed.headers["RateLimit"])) == {"credential"}


def test_errors_carry_the_fields_and_unlimited_routes_none(service, monkeypatch):
    c = _client(service, monkeypatch, "10 per minute")
    env = _address()
    for r in (
        c.get("/me", environ_base=env),  # 401
        c.get("/games/nosuchgame", environ_base=env),  # 404
        c.get("/games", headers=bearer("nk_nope"), environ_base=env),  # 401
    ):
        assert r.status_code in (401, 404)
        assert "credential" in parse(r.headers["RateLimit"]), r.headers
    assert "RateLimit" not in c.get("/health").headers
    # without limits, no fields
    off = create_app(service, rate_limit="off").test_client()
    assert "RateLimit" not in off.get("/games", headers=bearer(API_KEY)).headers


def test_the_fields_over_real_http(service, monkeypatch):
    monkeypatch.setenv("NAIPES_RATE_LIMIT_ADDRESS", "off")
    key = bearer(service.keys.create("wire", ["games"])["key"])
    with LiveServer(create_app(service, rate_limit="2 per 5 seconds")) as server:
        fresh_window(5, 3)
        got = [requests.get(server.url + "/games", headers=key, timeout=5) for _ in range(3)]
    assert [r.status_code for r in got] == [200, 200, 429]
    assert [parse(r.headers["RateLimit"])["credential"][0] for r in got] == [1, 0, 0]
    assert got[2].headers["Content-Type"].startswith("application/problem+json")
    assert 1 <= int(got[2].headers["Retry-After"]) <= 5


def test_an_operator_gives_one_key_a_budget_of_its_own(service, monkeypatch, redis_url, tmp_path):
    c = _client(service, monkeypatch, "2 per minute")
    env = {"REDIS_URL": redis_url, "NAIPES_DATA": str(tmp_path), "NAIPES_API_KEYS": API_KEY}
    runner = CliRunner()
    out = runner.invoke(
        cli, ["keys", "create", "--name", "big", "--scope", "games", "--rate-limit", "5/minute"], env=env
    )
    assert out.exit_code == 0, out.output
    key_id, secret = out.output.split()[:2]
    assert "rate limit: 5 per minute" in out.output
    key = bearer(secret)
    fresh_window(60, 10)
    codes = [c.get("/games", headers=key).status_code for _ in range(6)]
    assert codes == [200] * 5 + [429]

    out = runner.invoke(cli, ["keys", "limit", key_id, "1000 per hour"], env=env)
    assert out.exit_code == 0 and "1000 per hour" in out.output, out.output
    service.keys._cache.clear()  # another process's change: seen here within the cache's two seconds
    r = c.get("/games", headers=key)
    assert r.status_code == 200 and parse(r.headers["RateLimit-Policy"]) == {"credential": (1000, 3600)}
    assert "1000 per hour" in runner.invoke(cli, ["keys", "list"], env=env).output

    out = runner.invoke(cli, ["keys", "limit", key_id, "default"], env=env)
    assert out.exit_code == 0 and "service default" in out.output
    service.keys._cache.clear()
    assert parse(c.get("/me", headers=key).headers["RateLimit-Policy"]) == {"credential": (2, 60)}

    bad = runner.invoke(cli, ["keys", "limit", key_id, "lots"], env=env)
    assert bad.exit_code != 0 and "not a limit" in bad.output
    assert runner.invoke(cli, ["keys", "limit", "key_nosuch", "5/minute"], env=env).exit_code != 0


def test_the_contract_documents_the_fields_and_429(app):
    spec = yaml.safe_load((Path(ROOT) / "openapi.yaml").read_text())
    assert set(spec["components"]["headers"]) >= {"RateLimit", "RateLimit-Policy", "Retry-After"}
    too_many = spec["components"]["responses"]["TOO_MANY_REQUESTS"]
    assert "Retry-After" in too_many["headers"] and "application/problem+json" in too_many["content"]
    operations = [
        (path, method, op)
        for path, ops in spec["paths"].items()
        for method, op in ops.items()
        if method in ("get", "post", "put", "patch", "delete")
    ]
    assert len(operations) > 20
    for path, method, op in operations:
        limited = not path.startswith(EXEMPT_PREFIXES)
        assert ("429" in op["responses"]) == limited, (method, path)
        for status, response in op["responses"].items():
            if "$ref" in response:
                name = response["$ref"].rsplit("/", 1)[1]
                response = spec["components"]["responses"][name]
            assert {"RateLimit", "RateLimit-Policy"} <= set(response.get("headers", {})), (method, path, status)
            if status == "429":
                assert "Retry-After" in response["headers"], (method, path)


def test_the_counts_flush_on_a_thread_that_ends_with_its_application(service, monkeypatch):
    import gc

    def flushers() -> set:
        return {t for t in threading.enumerate() if t.name == "rate-limit-flush" and t.is_alive()}

    before = flushers()
    app = create_app(service, rate_limit="100 per minute")
    app.test_client().get("/games", headers=bearer(service.keys.create("flush", ["games"])["key"]))
    (ours,) = flushers() - before  # the first request counted in the process started it
    del app
    gc.collect()
    ours.join(timeout=2)
    assert not ours.is_alive()


def test_a_tournament_log_read_counts_its_whole_length_whatever_the_page(service, monkeypatch):
    """GET /tournaments/{id}/events checks the chain and folds the tournament over the whole log,
    whatever page it answers: it counts as ceil(version / 100) requests when that is more than the
    page's count, as an export of a game's whole log does."""
    from service.core.tournaments import attach_tournaments

    owner = service.keys.create("long-tournament", ["games"])
    made = attach_tournaments(service).create(
        service.identity.viewer(None, owner["key"]),
        {
            "game": "dalmuti",
            "options": {"hands": 1},
            "players": [f"lt{i:03d}" for i in range(120)],
            "format": "swiss",
            "rounds": 1,
            "table_size": {"min": 4, "max": 4},
        },
    )
    c = _client(service, monkeypatch, "60 per 4 seconds", address_limits="90 per 4 seconds")
    key = bearer(service.keys.create("reader", ["games"])["key"])
    path = f"/tournaments/{made['id']}/events"
    first = c.get(f"{path}?limit=1", headers=key).get_json()
    assert 150 < first["version"] <= 200 and len(first["events"]) == 1
    fresh_window(4, 4)
    counted = []
    for query in ("?limit=1", "?limit=100", "?limit=300", ""):
        r = c.get(path + query, headers=key, environ_base=_address())
        assert r.status_code == 200, r.get_json()
        counted.append(parse(r.headers["RateLimit"])["credential"][0])
    assert counted == [58, 56, 53, 43]  # 2 (its 15x events), 2, 3 (a page of 300), 10 (the default page)
