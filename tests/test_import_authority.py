"""An import brings a log written elsewhere: it may not carry links to, or acts on, games of this store
(a rematch named, a game it follows), its seat events must be ones this service would have appended,
and it holds no more events than its game can reach.  A rematch hands out the tokens only of the game
it created itself.  The audit of a long log is bounded in cost (a few at once per process)."""

from __future__ import annotations

import random
import secrets

import pytest
import redis

from domain import table as tables
from events.envelope import GENESIS, dumps, event_hash, loads, now_iso
from service.core import records

from .conftest import bearer
from .helpers import create, play_http, tokens

NDJSON = {"Content-Type": "application/x-ndjson"}
PROBLEM = "urn:naipes:problem:"
CEGO = ["ana", "bea", "carl"]


def _key(service, *scopes: str) -> dict:
    made = service.keys.create("-".join(scopes), list(scopes))
    return bearer(made["key"])


def _export(client, key, gid) -> tuple[dict, list[dict]]:
    r = client.get(f"/games/{gid}/export", headers=key)
    assert r.status_code == 200, r.get_json()
    lines = r.data.splitlines()
    return loads(lines[0]), [loads(x) for x in lines[1:]]


def _reseal(header: dict, envs: list[dict], game_id: str) -> bytes:
    """The forger's work: a fresh id, every prev_hash and hash recomputed, the header fixed."""
    prev, out = GENESIS, []
    for version, env in enumerate(envs, start=1):
        body = {k: v for k, v in env.items() if k != "hash"}
        body.update(game_id=game_id, version=version, prev_hash=prev)
        body["hash"] = event_hash(prev, {k: v for k, v in body.items() if k != "hash"})
        prev = body["hash"]
        out.append(body)
    header = {**header, "game_id": game_id, "version": len(out), "head_hash": prev}
    return b"\n".join(dumps(x) for x in [header, *out]) + b"\n"


def _extra(envs: list[dict], etype: str, data: dict, actor: str = "integrator") -> dict:
    last = envs[-1]
    return {**{k: v for k, v in last.items() if k != "private"}, "type": etype, "data": data, "actor": actor}


def _problem(r, status: int, kind: str) -> dict:
    body = r.get_json()
    assert r.status_code == status, (r.status_code, body)
    assert r.mimetype == "application/problem+json"
    assert body["type"] == PROBLEM + kind, body
    assert "st_" not in r.get_data(as_text=True)
    return body


# ------------------------------------------------------------------ the forged rematch link
def test_an_import_naming_another_game_as_its_rematch_is_refused_and_takes_no_seat(client, service, integrator):
    """The attack: export one's own game, append RematchCreated naming a victim's game, reseal under a
    fresh id, import, then ask the imported game's rematch: the victim's tokens.  The import is refused."""
    victim = create(client, integrator, game="cego", players=CEGO, options={"rounds": 1})
    attacker = _key(service, "games")
    own = create(client, attacker, game="cego", players=["x", "y", "z"], options={"rounds": 1})
    header, envs = _export(client, attacker, own["id"])
    envs.append(_extra(envs, tables.REMATCH_CREATED, {"game": victim["id"]}))
    forged_id = secrets.token_hex(8)
    r = client.post("/games/import", data=_reseal(header, envs, forged_id), headers={**attacker, **NDJSON})
    body = _problem(r, 422, "bad-export")
    assert "RematchCreated" in body["detail"] and body["event"] == "RematchCreated", body
    assert not service.store.exists(forged_id)
    r = client.post(f"/games/{forged_id}/rematch", headers=attacker)
    assert r.status_code == 404 and "st_" not in r.get_data(as_text=True)
    # the victim's seats still hold their own tokens
    seat0 = client.get(f"/games/{victim['id']}/legal-moves", headers=bearer(tokens(victim)[0]))
    assert seat0.status_code == 200


def test_an_import_that_says_it_follows_another_game_is_refused(client, service, integrator):
    victim = create(client, integrator, game="cego", players=CEGO, options={"rounds": 1})
    attacker = _key(service, "games")
    own = create(client, attacker, game="cego", players=["x", "y", "z"], options={"rounds": 1})
    header, envs = _export(client, attacker, own["id"])
    envs[0] = {**envs[0], "data": {**envs[0]["data"], "rematch_of": victim["id"]}}
    r = client.post("/games/import", data=_reseal(header, envs, secrets.token_hex(8)), headers={**attacker, **NDJSON})
    body = _problem(r, 422, "bad-export")
    assert "rematch_of" in body["detail"], body


@pytest.mark.parametrize(
    ("etype", "data"),
    [
        (tables.SEAT_CLAIMED, {"seat": 1, "player": "mallory"}),  # no seat of the game is open
        (tables.BOT_SEATED, {"seat": 1, "player": "y", "bot": "random"}),  # its player is not absent
        (tables.SEAT_LEFT, {"seat": 7, "player": "nobody"}),  # no such seat
    ],
)
def test_an_import_holding_a_seat_event_this_service_would_not_append_is_refused(
    client, service, integrator, etype, data
):
    own = create(client, integrator, game="cego", players=["x", "y", "z"], options={"rounds": 1})
    header, envs = _export(client, integrator, own["id"])
    envs.append(_extra(envs, etype, data))
    forged_id = secrets.token_hex(8)
    r = client.post("/games/import", data=_reseal(header, envs, forged_id), headers={**integrator, **NDJSON})
    body = _problem(r, 422, "bad-export")
    assert body["event"] == etype and etype in body["detail"], body
    assert not service.store.exists(forged_id)


def test_an_export_with_its_own_seats_claimed_and_left_still_imports(client, service, integrator):
    """Seat events this service appended for the game itself (a claim, a departure) come back as they were."""
    g = create(client, integrator, game="cego", players=["x", None, "z"], options={"rounds": 1})
    invitation = g["invitations"][0]["invitation"]
    r = client.post(f"/games/{g['id']}/seats/1/claim", json={"player": "yan"}, headers=bearer(invitation))
    assert r.status_code == 201, r.get_json()
    r = client.post(f"/games/{g['id']}/seats/2/leave", headers=bearer(tokens(g)[2]))
    assert r.status_code == 200, r.get_json()
    header, envs = _export(client, integrator, g["id"])
    assert {tables.SEAT_CLAIMED, tables.SEAT_LEFT} <= {e["type"] for e in envs}
    r = client.post("/games/import", data=_reseal(header, envs, secrets.token_hex(8)), headers={**integrator, **NDJSON})
    assert r.status_code == 201, r.get_json()


# ------------------------------------------------------------------ the rematch side
def _append(service, gid: str, event: dict) -> None:
    table = service.tables.table(gid, fresh=True)
    envs, new = service.appender.append_events(gid, table, [event], actor="integrator", stamp=now_iso())
    service.appender.commit(gid, table, new, envs)


def test_a_rematch_link_to_a_foreign_game_yields_none_of_its_tokens(client, service, integrator):
    """A finished game whose log names another owner's game as its rematch (written through the store,
    as no route can): its rematch is refused, and the other game's tokens keep working."""
    other = _key(service, "games")
    victim = create(client, other, game="cego", players=CEGO, options={"rounds": 1})
    own = create(client, integrator, game="cego", players=["x", "y", "z"], options={"rounds": 1})
    play_http(client, own, random.Random(5))
    _append(service, own["id"], {"type": tables.REMATCH_CREATED, "data": {"game": victim["id"]}})
    for credential in (integrator, bearer(tokens(own)[0])):
        r = client.post(f"/games/{own['id']}/rematch", headers=credential)
        assert r.status_code in (403, 409), r.get_json()
        assert "st_" not in r.get_data(as_text=True)
    for seat, token in tokens(victim).items():
        assert client.get(f"/games/{victim['id']}", headers=bearer(token)).get_json()["viewer"]["seat"] == seat


def test_a_rematch_link_to_a_game_of_the_same_owner_that_does_not_follow_it_yields_nothing(client, service, integrator):
    """Even the same owner's game is not a rematch unless it names this game as the one it follows."""
    mine = create(client, integrator, game="cego", players=CEGO, options={"rounds": 1})
    own = create(client, integrator, game="cego", players=["x", "y", "z"], options={"rounds": 1})
    play_http(client, own, random.Random(6))
    _append(service, own["id"], {"type": tables.REMATCH_CREATED, "data": {"game": mine["id"]}})
    r = client.post(f"/games/{own['id']}/rematch", headers=bearer(tokens(own)[1]))
    assert r.status_code in (403, 409) and "st_" not in r.get_data(as_text=True), r.get_json()
    assert client.get(f"/games/{mine['id']}/legal-moves", headers=bearer(tokens(mine)[0])).status_code == 200


def test_a_rematch_is_refused_before_the_end_even_when_a_link_is_there(client, service, integrator):
    other = _key(service, "games")
    victim = create(client, other, game="cego", players=CEGO, options={"rounds": 1})
    own = create(client, integrator, game="cego", players=["x", "y", "z"], options={"rounds": 1})
    _append(service, own["id"], {"type": tables.REMATCH_CREATED, "data": {"game": victim["id"]}})
    _problem(client.post(f"/games/{own['id']}/rematch", headers=integrator), 409, "game-not-finished")


def test_a_genuine_rematch_still_hands_out_its_tokens(client, integrator):
    own = create(client, integrator, game="cego", players=["x", "y", "z"], options={"rounds": 1})
    play_http(client, own, random.Random(7))
    first = client.post(f"/games/{own['id']}/rematch", headers=integrator)
    assert first.status_code == 201, first.get_json()
    again = client.post(f"/games/{own['id']}/rematch", headers=bearer(tokens(own)[0]))
    assert again.status_code == 201 and again.get_json()["id"] == first.get_json()["id"], again.get_json()


# ------------------------------------------------------------------ bounds
def test_an_import_longer_than_its_game_can_be_is_refused_naming_the_limit(client, service, integrator):
    """100,000 forged TurnTimedOut events on a one-round Cego game: more than any game of those options
    can hold, refused before the log is folded."""
    own = create(client, integrator, game="cego", players=["x", "y", "z"], options={"rounds": 1})
    header, envs = _export(client, integrator, own["id"])
    limit = records.longest_game("cego", 3, envs[0]["data"]["options"])
    assert limit < 20_000
    envs += [_extra(envs, tables.TURN_TIMED_OUT, {"seat": 0}, actor="system")] * (limit + 1 - len(envs))
    forged_id = secrets.token_hex(8)
    r = client.post("/games/import", data=_reseal(header, envs, forged_id), headers={**integrator, **NDJSON})
    body = _problem(r, 413, "payload-too-large")
    assert body["max_events"] == limit and str(limit) in body["detail"], body
    assert not service.store.exists(forged_id)


def test_the_longest_game_bounds_every_game_below_the_import_cap():
    from domain import registry

    for game, module in registry.all_games().items():
        assert records.longest_game(game, module.MAX_PLAYERS, {}) <= records.MAX_IMPORT_EVENTS, game


def test_the_audit_folds_a_bounded_number_of_logs_at_once(client, integrator):
    own = create(client, integrator, game="cego", players=["x", "y", "z"], options={"rounds": 1})
    slots = records.Records._audit_slots
    held = 0
    while slots.acquire(blocking=False):
        held += 1
    try:
        assert held == records.Records.AUDIT_SLOTS
        r = client.get(f"/games/{own['id']}/audit", headers=integrator)
        _problem(r, 503, "unavailable")
        assert r.headers["Retry-After"]
    finally:
        for _ in range(held):
            slots.release()
    assert client.get(f"/games/{own['id']}/audit", headers=integrator).status_code == 200


def _played(client, integrator) -> str:
    g = create(client, integrator, "cego", players=CEGO, options={"rounds": 1})
    play_http(client, g, random.Random(21))
    return g["id"]


def test_an_export_carries_this_services_seal_and_only_an_unchanged_log_keeps_it(client, service, integrator):
    """A chain proves a log unchanged since it was written, not who wrote it: a forger's log, rechained
    under a fresh id, verifies as a chain and imports, but as unsealed; this service's own export, brought
    back unchanged (a store restored, say), imports sealed."""
    gid = _played(client, integrator)
    header, envs = _export(client, integrator, gid)
    assert header["seal"] == service.records.seal(gid, header["version"], header["head_hash"])
    forged = _reseal(header, envs, "forged-" + secrets.token_hex(4))
    r = client.post("/games/import", data=forged, headers={**integrator, **NDJSON})
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["provenance"]["sealed"] is False
    # the genuine log, its game gone from the store, comes back sealed
    for stored in service.redis.scan_iter(match=f"naipes:{{{gid}}}:*"):
        service.redis.delete(stored)
    lines = [dumps(header), *(dumps(e) for e in envs)]
    back = client.post("/games/import", data=b"\n".join(lines) + b"\n", headers={**integrator, **NDJSON})
    assert back.status_code == 201, back.get_json()
    assert back.get_json()["provenance"]["sealed"] is True
    assert client.get(f"/games/{gid}/audit", headers=integrator).get_json()["provenance"]["sealed"] is True
    # a seal copied onto another log does not hold
    copied = _reseal({**header}, envs, gid + "x")
    r = client.post("/games/import", data=copied, headers={**integrator, **NDJSON})
    assert r.status_code == 201 and r.get_json()["provenance"]["sealed"] is False


def test_naipes_verify_with_the_published_key_fails_a_rewritten_log_that_verifies_as_a_chain(
    client, service, integrator, tmp_path
):
    import os
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    gid = _played(client, integrator)
    header, envs = _export(client, integrator, gid)
    genuine = tmp_path / "genuine.jsonl"
    genuine.write_bytes(b"\n".join([dumps(header), *(dumps(e) for e in envs)]) + b"\n")
    rewritten = tmp_path / "rewritten.jsonl"
    rewritten.write_bytes(_reseal(header, envs, "forged-" + secrets.token_hex(4)))
    secret = os.environ.get("NAIPES_SECRET") or service.redis.get("naipes:secret").decode()
    env = {**os.environ, "NAIPES_SECRET": secret, "NAIPES_DATA": str(tmp_path / "data")}

    def verify(path, *flags):
        cmd = [str(root / "naipes"), "verify", *flags, str(path)]
        return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)

    assert verify(rewritten).returncode == 0  # a chain anyone can write
    published = client.get("/seal-key").get_json()  # anyone may ask, and check with it offline
    assert published["algorithm"] == "Ed25519" and header["seal_key"] == published["public_key"]
    for check in (("--key", published["public_key"]), ("--sealed",)):
        assert verify(genuine, *check).returncode == 0, check
        refused = verify(rewritten, *check)
        assert refused.returncode == 1 and "not sealed by this service" in refused.stdout, refused.stdout
    # a forger's own key, put in the file, proves nothing: the key is the published one
    other = service.secret.__class__(b"another service's secret, 32 bytes or more").public_key
    assert verify(genuine, "--key", other).returncode == 1


def test_the_cheap_refusals_of_an_import_come_before_its_chain_is_hashed_and_its_log_folded(
    client, service, integrator
):
    """Review events from a key without the review scope, and a game this store holds, are refused from
    each line's type and the header's id: a log whose chain is broken everywhere gets them, not the
    chain's 422 (so such a log costs no hashing nor folding)."""
    gid = create(client, integrator, game="cego", players=CEGO, options={"rounds": 1})["id"]
    header, envs = _export(client, integrator, gid)
    games = _key(service, "games")
    forged = [dict(e, hash="0" * 64) for e in envs]  # no link holds
    noted = [*forged, _extra(forged, "NoteAdded", {"version": 1, "text": "x"}, actor="reviewer:k")]
    fresh = secrets.token_hex(8)
    body = b"\n".join(dumps(x) for x in [{**header, "game_id": fresh}, *noted]) + b"\n"
    _problem(client.post("/games/import", data=body, headers={**games, **NDJSON}), 403, "review-authority")
    body = b"\n".join(dumps(x) for x in [header, *forged]) + b"\n"  # this store's own game
    _problem(client.post("/games/import", data=body, headers={**games, **NDJSON}), 409, "game-exists")
    # a header alone has nothing to hash: what is wrong with it is told first, not where its id stands
    _problem(client.post("/games/import", data=dumps(header) + b"\n", headers={**games, **NDJSON}), 422, "bad-export")
    body = b"\n".join(dumps(x) for x in [{**header, "game_id": fresh}, *forged]) + b"\n"
    _problem(client.post("/games/import", data=body, headers={**games, **NDJSON}), 422, "bad-export")
    assert not service.store.exists(fresh)


FIVE = ["ana", "bea", "carl", "dani", "eva"]


@pytest.mark.parametrize(
    ("game", "players", "bots", "rule"),
    [
        ("cego", CEGO, {"7": "random"}, "bot-seat"),  # no such seat at a table of three
        ("cego", CEGO, {"0": "search", "1": "search", "2": "search"}, None),  # within the limit
        ("dalmuti", FIVE, {str(s): "search" for s in range(5)}, "search-bot-seats"),  # five: over it
    ],
)
def test_an_imported_creation_seats_bots_as_a_creation_here_does(
    client, service, integrator, game, players, bots, rule
):
    """The bots option of an imported GameCreated goes through the checks of POST /games: a seat the table
    does not have, or more search bots than a game seats, is the same 422 as a creation here."""
    gid = create(client, integrator, game=game, players=players)["id"]
    header, envs = _export(client, integrator, gid)
    created = dict(envs[0], data={**envs[0]["data"], "options": {**envs[0]["data"]["options"], "bots": bots}})
    body = _reseal(header, [created], secrets.token_hex(8))
    here = client.post("/games", json={"game": game, "players": players, "options": {"bots": bots}}, headers=integrator)
    r = client.post("/games/import", data=body, headers={**integrator, **NDJSON})
    if rule is None:
        assert here.status_code == 201 and r.status_code == 201, r.get_json()
    else:
        assert here.status_code == 422 and here.get_json()["rule"] == rule
        assert _problem(r, 422, "invalid-options")["rule"] == rule


def test_a_read_racing_an_imports_context_write_does_not_keep_a_context_without_its_owner(
    client, service, integrator, monkeypatch
):
    """An import writes its game's owner and origin after its events: a read of the game in this process
    just before that write caches a context with neither.  The copy is dropped after the write, so the
    importing key still owns the game (its export answers) and its provenance says imported."""
    gid = create(client, integrator, game="cego", players=CEGO, options={"rounds": 1})["id"]
    header, envs = _export(client, integrator, gid)
    fresh = secrets.token_hex(8)
    body = _reseal(header, envs, fresh)
    meta = f"naipes:{{{fresh}}}:meta".encode()
    command, execute = service.redis.execute_command, redis.client.Pipeline.execute

    def race() -> None:  # a read of the game, in this process, just before its context is written
        service.visibility.context(fresh)

    def racing_command(*args, **kwargs):
        if args[0] == "HSET" and str(args[1]).encode() == meta:
            race()
        return command(*args, **kwargs)

    def racing_pipeline(pipe, *args, **kwargs):  # the write queued on a pipeline
        if any(c[0] == "HSET" and str(c[1]).encode() == meta for c, _ in pipe.command_stack):
            race()
        return execute(pipe, *args, **kwargs)

    monkeypatch.setattr(service.redis, "execute_command", racing_command)
    monkeypatch.setattr(redis.client.Pipeline, "execute", racing_pipeline)
    importer = _key(service, "games")
    assert client.post("/games/import", data=body, headers={**importer, **NDJSON}).status_code == 201
    monkeypatch.undo()
    assert client.get(f"/games/{fresh}/export", headers=importer).status_code == 200
    assert service.visibility.provenance(fresh)["kind"] == "imported"


def test_a_read_that_spans_a_context_write_does_not_keep_what_it_read_before_it(service):
    """A read of a game's context that began before its owner was written (an import writes it after its
    events) and ends after the write dropped this process's copy would keep a context without the
    owner: what a read spanning a write found is used once and not kept."""
    import threading

    gid = secrets.token_hex(8)
    inside, wrote = threading.Event(), threading.Event()
    tournament_context = service.tournament_context

    def slow(game_id):  # the read's second half waits for the write to be made
        inside.set()
        wrote.wait(10)
        return tournament_context(game_id) if tournament_context else None

    service.tournament_context = slow
    try:
        read = threading.Thread(target=lambda: service.visibility.context(gid))
        read.start()
        assert inside.wait(10)
        service.visibility.write_meta(gid, owner="k-importer", origin={"imported_by": "k-importer"})
        wrote.set()
        read.join(10)
    finally:
        service.tournament_context = tournament_context
    assert service.visibility.context(gid).owner == "k-importer"


def test_an_export_of_a_game_imported_unsealed_does_not_carry_this_services_seal(client, service, integrator):
    """A forger's log comes in unsealed; exporting it again must not launder it into one this service
    vouches for.  Before, every export was sealed, so a rewritten log, imported and exported, carried a
    seal that held against GET /seal-key: ``naipes verify --key`` passed it, and an import into a store of
    the same secret (a store restored from exports) marked it ``sealed``."""
    gid = _played(client, integrator)
    header, envs = _export(client, integrator, gid)
    forged_id = "forged-" + secrets.token_hex(4)
    r = client.post("/games/import", data=_reseal(header, envs, forged_id), headers={**integrator, **NDJSON})
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["provenance"]["sealed"] is False
    again, _ = _export(client, integrator, forged_id)
    public = client.get("/seal-key").get_json()["public_key"]
    assert not records.seal_holds(public, again.get("seal"), again["game_id"], again["version"], again["head_hash"])
    # a log this service wrote, brought back sealed, is still sealed when exported again
    for stored in service.redis.scan_iter(match=f"naipes:{{{gid}}}:*"):
        service.redis.delete(stored)
    lines = [dumps(header), *(dumps(e) for e in envs)]
    back = client.post("/games/import", data=b"\n".join(lines) + b"\n", headers={**integrator, **NDJSON})
    assert back.status_code == 201 and back.get_json()["provenance"]["sealed"] is True, back.get_json()
    resealed, _ = _export(client, integrator, gid)
    assert records.seal_holds(public, resealed["seal"], gid, resealed["version"], resealed["head_hash"])


def _import_racing(client, service, monkeypatch, body: bytes, fresh: str, race):
    """Import ``body`` (game ``fresh``) with a key of scopes games and review, calling ``race`` before every
    write of the game's meta (the import's mark, then its owner and origin, after its events): what another
    process could do in between."""
    meta = f"naipes:{{{fresh}}}:meta".encode()
    command, execute = service.redis.execute_command, redis.client.Pipeline.execute

    def racing_command(*args, **kwargs):
        if args[0] == "HSET" and str(args[1]).encode() == meta:
            race()
        return command(*args, **kwargs)

    def racing_pipeline(pipe, *args, **kwargs):
        if any(c[0] == "HSET" and str(c[1]).encode() == meta for c, _ in pipe.command_stack):
            race()
        return execute(pipe, *args, **kwargs)

    monkeypatch.setattr(service.redis, "execute_command", racing_command)
    monkeypatch.setattr(redis.client.Pipeline, "execute", racing_pipeline)
    importer = _key(service, "games", "review")
    try:
        return client.post("/games/import", data=body, headers={**importer, **NDJSON})
    finally:
        monkeypatch.undo()


def test_another_process_reading_an_import_before_its_owner_is_written_does_not_keep_it_native(
    client, service, integrator, monkeypatch
):
    """An import writes its game's owner and origin just after its events.  Another process (another web
    worker) that reads the game in that moment (the forger can ask for its own id as fast as it likes) kept
    the context it found for good: there, the forged log showed as made here (``provenance`` native), its
    imported review events as rulings of this service in the audit, and the importing key lost its game."""
    from service.core.naipes import Naipes

    from .conftest import API_KEY

    other = Naipes(service.redis, api_keys=[API_KEY], max_search_games=0)  # a second process's application
    gid = create(client, integrator, game="cego", players=CEGO, options={"rounds": 1})["id"]
    header, envs = _export(client, integrator, gid)
    noted = [*envs, _extra(envs, "NoteAdded", {"at_version": 1, "text": "ruled fair"}, actor="reviewer:house")]
    fresh = secrets.token_hex(8)
    body = _reseal(header, noted, fresh)

    def race() -> None:  # the other process reads the game between its events and its owner
        if service.store.exists(fresh):
            other.visibility.context(fresh)

    r = _import_racing(client, service, monkeypatch, body, fresh, race)
    assert r.status_code == 201, r.get_json()
    assert other.visibility.provenance(fresh)["kind"] == "imported"
    assert [e["authority"] for e in other.records.audit(fresh)["review"]] == ["imported"]
    assert other.visibility.context(fresh).owner is not None


def test_an_export_made_while_an_unsealed_import_is_being_written_does_not_carry_this_services_seal(
    client, service, integrator, monkeypatch
):
    """An import appends its events, then writes the game's origin (whether this service sealed the log).
    An export made in between found no origin and took the game for one made here: the forged log came out
    sealed, its seal holding against GET /seal-key.  A key that may export any game (``review``) can ask for
    its own import's id as fast as it likes, and a failed write of the origin left the game so for good."""
    from service.core.naipes import Naipes

    from .conftest import API_KEY

    other = Naipes(service.redis, api_keys=[API_KEY], max_search_games=0)  # another process's application
    gid = _played(client, integrator)
    header, envs = _export(client, integrator, gid)
    fresh = secrets.token_hex(8)
    body = _reseal(header, envs, fresh)
    exported: list[dict] = []

    def race() -> None:  # the other process exports the game between its events and its origin
        if service.store.exists(fresh) and not exported:
            exported.append(loads(next(iter(other.records.export_lines(fresh)))))

    r = _import_racing(client, service, monkeypatch, body, fresh, race)
    assert r.status_code == 201 and r.get_json()["provenance"]["sealed"] is False, r.get_json()
    assert exported, "the race did not run"
    public = client.get("/seal-key").get_json()["public_key"]
    raced = exported[0]
    assert not records.seal_holds(public, raced.get("seal"), raced["game_id"], raced["version"], raced["head_hash"])
    again, _ = _export(client, integrator, fresh)
    assert again["seal"] is None
